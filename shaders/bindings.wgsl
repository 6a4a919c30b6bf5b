// The solver's bind group: shared by every solver stage. Eight storage buffers, the WebGPU
// default limit per stage.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> colour_table: ColourTable;
@group(0) @binding(2) var<uniform> dispatch: DispatchInfo;
// x: current positions (xyz, w = 1), drawn directly as a vertex buffer.
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;
// v: velocities; between predict and finalize they hold the pre-solve velocity.
@group(0) @binding(4) var<storage, read_write> velocities: array<vec4<f32>>;
// p: predicted positions (xyz), inverse mass in w so constraints read one buffer.
@group(0) @binding(5) var<storage, read_write> predicted: array<vec4<f32>>;
// Pin records: target xyz, inverse mass w (0 = pinned).
@group(0) @binding(6) var<storage, read> particles: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> constraints: array<Constraint>;
// XPBD Lagrange multipliers, one per constraint, reset every substep.
@group(0) @binding(8) var<storage, read_write> lambdas: array<f32>;
// Jacobi correction slots, 4 per constraint.
@group(0) @binding(9) var<storage, read_write> corrections: array<vec4<f32>>;
// Index lists: the Jacobi gather lists (particle_count + 1 offsets, then the slot indices),
// then the stripe entries of phase 0 and of phase 1 and the stripes' particle lists
// (src/gpu/layout.rs `index_lists`).
@group(0) @binding(10) var<storage, read> lists: array<u32>;
