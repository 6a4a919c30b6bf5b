//! The GPU solver: owns the cloth's buffers and pipelines on a caller's device and records
//! frames into the caller's encoder. Nothing is created, read back or waited on per frame.

use super::layout::{index_lists, ColourTable, DispatchInfo, GpuParams, DISPATCH_ENTRY_STRIDE, WORKGROUP_SIZE};
use super::pipelines::{
    build_pipelines, normals_bind_group_layout, solver_bind_group_layout, solver_layout_entries, Pipelines,
};
use super::plan::{frame_plan, workgroups_for, Dispatch, FramePlan, WorkgroupSizes, MAX_WORKGROUPS_PER_DIMENSION};
use super::readback::{
    decode_particles, encode_particle_copies, particle_readback_buffer, read_mapped, BackgroundMap, READBACK_SLOTS,
};
use crate::collider::{validate_colliders, Collider};
use crate::coloring::MAX_COLOURS;
use crate::error::Error;
use crate::metrics::ClothMetrics;
use crate::model::{ClothModel, Constraint, STRIPE_CAPACITY};
use crate::params::{DispatchStrategy, SolverMode, SolverParams};
use crate::pins::Pins;
use bytemuck::Pod;
use glam::Vec3;
use std::mem::size_of;
use wgpu::util::DeviceExt;

/// On GPUs, `DispatchStrategy::Auto` gives cloths up to this many particles a single workgroup:
/// their striped or per-colour dispatches would be mostly launch overhead.
const AUTO_SINGLE_WORKGROUP_MAX_PARTICLES: usize = 1024;
/// On CPU adapters, `Auto` gives Jacobi a single workgroup while the per-colour plan averages fewer
/// projections per dispatch than this. Fitted on lavapipe (2 cores, BENCHMARKS.md): a single
/// workgroup costs ~80 ns per projection on one core; the per-colour layout ~25 ns per
/// projection on both cores plus ~74 µs per dispatch, so it wins above 74 µs / 55 ns ≈ 1350.
const CPU_SINGLE_WORKGROUP_MAX_PROJECTIONS_PER_DISPATCH: u64 = 1350;
/// On CPU adapters, `Auto` runs Gauss-Seidel in one workgroup up to this many particles, where
/// two threads save less than the striped layout's extra dispatches cost. Measured on lavapipe
/// (2 cores, benchmark scene, 10 × 10, fastest frames): 16² (289 particles) 16.9 ms in one
/// workgroup against 17.3 ms in 2 + 2 stripes; 24² (625) 26.0 against 24.1 ms.
const CPU_GAUSS_SEIDEL_SINGLE_WORKGROUP_MAX_PARTICLES: usize = 512;
/// llvmpipe silently ends every loop of a shader invocation once they have run 65535
/// iterations in total (Mesa gallivm `LP_MAX_TGSI_LOOP_ITERATIONS`). A single-workgroup
/// dispatch on a CPU adapter must stay below this estimate, with a margin.
const CPU_LOOP_BUDGET: u64 = 60_000;

struct Buffers {
    params: wgpu::Buffer,
    colour_table: wgpu::Buffer,
    dispatch_table: wgpu::Buffer,
    positions: wgpu::Buffer,
    velocities: wgpu::Buffer,
    predicted: wgpu::Buffer,
    particles: wgpu::Buffer,
    constraints: wgpu::Buffer,
    lambdas: wgpu::Buffer,
    /// Jacobi slots; a 16-byte placeholder until Jacobi mode is first used.
    corrections: wgpu::Buffer,
    /// Jacobi gather lists and stripe ranges ([`index_lists`]).
    lists: wgpu::Buffer,
    normals: wgpu::Buffer,
    triangles: wgpu::Buffer,
    vertex_triangles: wgpu::Buffer,
}

/// A cloth simulated on the GPU. Create it with [`GpuSolver::new`] from your own device and
/// queue, then each frame either call [`GpuSolver::step`] or record [`GpuSolver::encode_step`]
/// into your encoder and draw [`GpuSolver::positions_buffer`] and [`GpuSolver::normals_buffer`].
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    model: ClothModel,
    params: SolverParams,
    colliders: Vec<Collider>,
    pins: Pins,
    strategy: DispatchStrategy,
    workgroup_sizes: WorkgroupSizes,
    /// Where each phase's stripe ranges start in the index lists.
    stripe_entries: [u32; 2],
    plan: Vec<Dispatch>,
    buffers: Buffers,
    pipelines: Pipelines,
    solver_layout: wgpu::BindGroupLayout,
    solver_bind_group: wgpu::BindGroup,
    normals_bind_group: wgpu::BindGroup,
    readback: Option<wgpu::Buffer>,
    /// Positions and velocities of [`GpuSolver::request_metrics`], with the colliders of the
    /// moment they were requested.
    metrics_read: Option<(BackgroundMap, Vec<Collider>)>,
    allocated_bytes: u64,
}

impl GpuSolver {
    /// Uploads the model (at rest in its rest state) and builds the pipelines. Fails on invalid
    /// parameters, colliders or model ([`ClothModel::validate`]), on a device created with lower
    /// limits than [`crate::required_limits`], or when a buffer exceeds the device's limits.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &ClothModel,
        params: SolverParams,
        colliders: &[Collider],
    ) -> Result<Self, Error> {
        params.validate()?;
        validate_colliders(colliders)?;
        model.validate()?;
        let workgroup_sizes = WorkgroupSizes::for_adapter(is_cpu_adapter(device));
        check_device_limits(device, workgroup_sizes)?;
        let (lists, stripe_entries) = index_lists(model);
        check_limits(device, model, lists.len())?;
        let colliders: Vec<Collider> = colliders.iter().map(Collider::normalized).collect();
        let colliders = colliders.as_slice();
        let pins = Pins::new(model);
        let n = model.particle_count();
        let mut allocated_bytes = 0;
        let mut create = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            allocated_bytes += contents.len() as u64;
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
        };
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let uniform = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let RestState { positions: rest, records, normals } = RestState::new(model, &pins);
        let predicted: Vec<[f32; 4]> =
            model.mesh.positions.iter().zip(pins.inverse_masses()).map(|(p, &w)| [p.x, p.y, p.z, w]).collect();
        let triangles: Vec<u32> = model.mesh.triangles.iter().flatten().copied().collect();
        let buffers = Buffers {
            params: create("drape params", bytemuck::bytes_of(&GpuParams::new(&params, model, colliders)), uniform),
            colour_table: create("drape colour table", bytemuck::bytes_of(&ColourTable::from_model(model)), uniform),
            dispatch_table: create("drape dispatch table", &[0u8; DISPATCH_ENTRY_STRIDE as usize], uniform),
            positions: create("drape positions", bytemuck::cast_slice(&rest), storage | wgpu::BufferUsages::VERTEX),
            velocities: create("drape velocities", bytemuck::cast_slice(&vec![[0f32; 4]; n]), storage),
            predicted: create("drape predicted positions", bytemuck::cast_slice(&predicted), storage),
            particles: create("drape pin records", bytemuck::cast_slice(&records), storage),
            constraints: create("drape constraints", bytemuck::cast_slice(&model.constraints), storage),
            lambdas: create("drape multipliers", &vec![0u8; 4 * model.constraints.len()], storage),
            corrections: create("drape jacobi corrections (unused)", &[0u8; 16], storage),
            lists: create("drape index lists", bytemuck::cast_slice(&lists), storage),
            normals: create("drape normals", bytemuck::cast_slice(&normals), storage | wgpu::BufferUsages::VERTEX),
            triangles: create("drape triangles", bytemuck::cast_slice(&triangles), storage | wgpu::BufferUsages::INDEX),
            vertex_triangles: create("drape vertex triangles", &csr_words(&model.vertex_triangles), storage),
        };
        let solver_layout = solver_bind_group_layout(device);
        let normals_layout = normals_bind_group_layout(device);
        let pipelines =
            build_pipelines(device, &solver_layout, &normals_layout, workgroup_sizes, model.stripes_fit_workgroup());
        let solver_bind_group = solver_bind_group(device, &solver_layout, &buffers);
        let normals_bind_group = normals_bind_group(device, &normals_layout, &buffers);
        let mut solver = Self {
            device: device.clone(),
            queue: queue.clone(),
            model: model.clone(),
            params,
            colliders: colliders.to_vec(),
            pins,
            strategy: DispatchStrategy::PerColour,
            workgroup_sizes,
            stripe_entries,
            plan: Vec::new(),
            buffers,
            pipelines,
            solver_layout,
            solver_bind_group,
            normals_bind_group,
            readback: None,
            metrics_read: None,
            allocated_bytes,
        };
        solver.apply_params(params)?;
        Ok(solver)
    }

    /// Changes the parameters for the next frames. Validated and planned first: on error the
    /// solver keeps its previous parameters. Nothing is rebuilt except the Jacobi slot buffer
    /// (created the first time Jacobi mode is used) and the dispatch table when it must grow.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), Error> {
        params.validate()?;
        self.apply_params(params)
    }

    /// Replaces the colliders for the next frames (validated).
    pub fn set_colliders(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        validate_colliders(colliders)?;
        self.colliders = colliders.iter().map(Collider::normalized).collect();
        self.write_params();
        Ok(())
    }

    /// Pins a particle to `target` (it gets there by the end of the next frame).
    pub fn pin(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        self.pins.pin(index, target)?;
        self.write_pin_record(index);
        Ok(())
    }

    /// Moves a pinned particle's kinematic target.
    pub fn set_pin_target(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        self.pins.set_target(index, target)?;
        self.write_pin_record(index);
        Ok(())
    }

    /// Releases a pinned particle.
    pub fn unpin(&mut self, index: u32) -> Result<(), Error> {
        self.pins.unpin(index)?;
        self.write_pin_record(index);
        Ok(())
    }

    /// Puts the cloth back where it started: rest positions, zero velocities, the model's pins
    /// (targets at rest) and rest normals. Parameters and colliders stay; no pipeline or cloth
    /// buffer is rebuilt. An uncollected [`GpuSolver::request_metrics`] is dropped (it measured
    /// the cloth before), with its readback buffer if the map was still pending.
    pub fn reset(&mut self) {
        if self.metrics_read.as_ref().is_some_and(|(map, _)| !map.is_idle()) {
            self.drop_metrics_read();
        }
        self.pins = Pins::new(&self.model);
        let rest = RestState::new(&self.model, &self.pins);
        let write = |buffer: &wgpu::Buffer, data: &[[f32; 4]]| {
            self.queue.write_buffer(buffer, 0, bytemuck::cast_slice(data));
        };
        write(&self.buffers.positions, &rest.positions);
        write(&self.buffers.velocities, &vec![[0.0; 4]; self.model.particle_count()]);
        write(&self.buffers.particles, &rest.records);
        write(&self.buffers.normals, &rest.normals);
    }

    /// Overwrites every particle's position, keeping pins as they are.
    pub fn set_positions(&mut self, positions: &[Vec3]) -> Result<(), Error> {
        let data = self.particle_vectors(positions, 1.0)?;
        self.queue.write_buffer(&self.buffers.positions, 0, bytemuck::cast_slice(&data));
        Ok(())
    }

    /// Overwrites every particle's velocity (m/s).
    pub fn set_velocities(&mut self, velocities: &[Vec3]) -> Result<(), Error> {
        let data = self.particle_vectors(velocities, 0.0)?;
        self.queue.write_buffer(&self.buffers.velocities, 0, bytemuck::cast_slice(&data));
        Ok(())
    }

    fn particle_vectors(&self, values: &[Vec3], w: f32) -> Result<Vec<[f32; 4]>, Error> {
        let n = self.model.particle_count();
        if values.len() != n || values.iter().any(|v| !v.is_finite()) {
            return Err(Error::Param(crate::error::ParamError {
                name: "particle values",
                value: format!("{} values", values.len()),
                expected: "one finite vector per particle",
            }));
        }
        Ok(values.iter().map(|v| [v.x, v.y, v.z, w]).collect())
    }

    /// Records one frame (all substeps, then normals) into `encoder`, in one compute pass.
    /// Submitting it is the caller's business; nothing is read back or waited on.
    pub fn encode_step(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("drape frame"), timestamp_writes: None });
        let mut current = None;
        for dispatch in &self.plan {
            if current != Some(dispatch.kernel) {
                pass.set_pipeline(self.pipelines.get(dispatch.kernel));
                current = Some(dispatch.kernel);
            }
            let offset = (u64::from(dispatch.table_entry) * DISPATCH_ENTRY_STRIDE) as u32;
            pass.set_bind_group(0, &self.solver_bind_group, &[offset]);
            pass.dispatch_workgroups(dispatch.workgroups[0], dispatch.workgroups[1], 1);
        }
        pass.set_pipeline(&self.pipelines.normals);
        pass.set_bind_group(0, &self.normals_bind_group, &[]);
        let [x, y] = workgroups_for(self.model.particle_count() as u32);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records and submits one frame.
    pub fn step(&self) {
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape step") });
        self.encode_step(&mut encoder);
        self.queue.submit([encoder.finish()]);
    }

    /// Compute dispatches recorded per frame (normals included).
    pub fn dispatches_per_frame(&self) -> usize {
        self.plan.len() + 1
    }

    /// The dispatch layout in use (`Auto` resolved).
    pub fn dispatch_strategy(&self) -> DispatchStrategy {
        self.strategy
    }

    /// Bytes of GPU buffers this solver has allocated.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated_bytes
    }

    /// Current positions: `vec4<f32>` per particle (xyz in metres, w = 1), stride 16 bytes.
    /// Usable as a vertex buffer (`Float32x3` at offset 0, or `Float32x4`).
    pub fn positions_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.positions
    }

    /// Unit vertex normals: `vec4<f32>` per particle (xyz, w = 0), updated at the end of each
    /// frame. Usable as a vertex buffer.
    pub fn normals_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.normals
    }

    /// The cloth's triangles as a `u32` index buffer (`IndexFormat::Uint32`, three per
    /// triangle, counter-clockwise in the rest state); draw [`GpuSolver::index_count`] indices.
    pub fn index_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.triangles
    }

    /// Number of indices in [`GpuSolver::index_buffer`].
    pub fn index_count(&self) -> u32 {
        3 * self.model.mesh.triangles.len() as u32
    }

    /// The model being simulated (rest data, colours, rest-state UVs).
    pub fn model(&self) -> &ClothModel {
        &self.model
    }

    /// The current parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// The current colliders (plane normals normalised).
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// The current pins.
    pub fn pins(&self) -> &Pins {
        &self.pins
    }

    /// Reads the positions back (waits for the GPU).
    pub fn read_positions(&mut self) -> Result<Vec<Vec3>, Error> {
        let [positions] = self.read_vectors([Which::Positions])?;
        Ok(positions)
    }

    /// Reads the velocities back (waits for the GPU).
    pub fn read_velocities(&mut self) -> Result<Vec<Vec3>, Error> {
        let [velocities] = self.read_vectors([Which::Velocities])?;
        Ok(velocities)
    }

    /// Reads the normals back (waits for the GPU).
    pub fn read_normals(&mut self) -> Result<Vec<Vec3>, Error> {
        let [normals] = self.read_vectors([Which::Normals])?;
        Ok(normals)
    }

    /// Reads positions and velocities back in one copy and wait, and measures the cloth
    /// against the current colliders.
    pub fn metrics(&mut self) -> Result<ClothMetrics, Error> {
        let [positions, velocities] = self.read_vectors([Which::Positions, Which::Velocities])?;
        Ok(ClothMetrics::measure(&self.model, &positions, &velocities, &self.colliders))
    }

    /// Starts measuring the cloth as the frames submitted so far leave it, without waiting:
    /// positions and velocities are copied in a submit of their own and mapped in the
    /// background. Collect the result with [`GpuSolver::poll_metrics`]; frames submitted in the
    /// meantime do not change it. Returns `false`, and starts nothing, while an earlier request
    /// has not been collected.
    pub fn request_metrics(&mut self) -> bool {
        let n = self.model.particle_count();
        let (map, colliders) = self.metrics_read.get_or_insert_with(|| {
            (BackgroundMap::new(counted_readback_buffer(&self.device, n, &mut self.allocated_bytes)), Vec::new())
        });
        if !map.is_idle() {
            return false;
        }
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape metrics") });
        encode_particle_copies(&mut encoder, &[&self.buffers.positions, &self.buffers.velocities], map.buffer(), n);
        self.queue.submit([encoder.finish()]);
        map.start();
        colliders.clone_from(&self.colliders);
        true
    }

    /// The metrics of the last [`GpuSolver::request_metrics`] once the GPU has delivered them,
    /// measured against the colliders of the request. Checks once without waiting: `Ok(None)`
    /// while they are on their way, and when there is nothing to collect. After an error (the
    /// map failed) the request is gone and the next one starts afresh.
    pub fn poll_metrics(&mut self) -> Result<Option<ClothMetrics>, Error> {
        let Some((map, colliders)) = &self.metrics_read else {
            return Ok(None);
        };
        let metrics = map.try_read(&self.device, |bytes| {
            let [positions, velocities] = decode_particles(bytes, self.model.particle_count());
            ClothMetrics::measure(&self.model, &positions, &velocities, colliders)
        });
        if metrics.is_err() {
            // A failed map leaves its buffer unusable: the next request makes a new one.
            self.drop_metrics_read();
        }
        metrics
    }

    fn drop_metrics_read(&mut self) {
        if let Some((map, _)) = self.metrics_read.take() {
            self.allocated_bytes -= map.buffer().size();
        }
    }

    /// Copies up to two particle buffers into the readback buffer, one submit, one wait.
    fn read_vectors<const N: usize>(&mut self, which: [Which; N]) -> Result<[Vec<Vec3>; N], Error> {
        const { assert!(N <= READBACK_SLOTS, "more particle buffers than the readback buffer holds") };
        let n = self.model.particle_count();
        let readback =
            self.readback.get_or_insert_with(|| counted_readback_buffer(&self.device, n, &mut self.allocated_bytes));
        let sources = which.map(|which| match which {
            Which::Positions => &self.buffers.positions,
            Which::Velocities => &self.buffers.velocities,
            Which::Normals => &self.buffers.normals,
        });
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape readback") });
        encode_particle_copies(&mut encoder, &sources, readback, n);
        self.queue.submit([encoder.finish()]);
        let mapped = read_mapped(&self.device, readback, |bytes| decode_particles(bytes, n));
        if mapped.is_err() {
            // A map may still be pending: start from a fresh buffer next time.
            if let Some(buffer) = self.readback.take() {
                self.allocated_bytes -= buffer.size();
            }
        }
        mapped
    }

    fn write_pin_record(&self, index: u32) {
        let record = self.pins.particle_record(index as usize);
        self.queue.write_buffer(&self.buffers.particles, 16 * u64::from(index), bytemuck::cast_slice(&record));
    }

    fn write_params(&self) {
        let gpu = GpuParams::new(&self.params, &self.model, &self.colliders);
        self.queue.write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&gpu));
    }

    /// Plans the frame for `params` and, only if that succeeds, makes them current: uploads
    /// them, the resolved layout's dispatch table and (first Jacobi use) the slot buffer.
    fn apply_params(&mut self, params: SolverParams) -> Result<(), Error> {
        let jacobi = matches!(params.mode, SolverMode::Jacobi { .. });
        let size = JACOBI_SLOT_BYTES * self.model.constraints.len().max(1) as u64;
        if jacobi {
            check_buffer_size(&self.device, "Jacobi correction slots", size)?;
        }
        let (strategy, plan) = self.plan_frame(&params)?;
        if jacobi && self.buffers.corrections.size() == 16 {
            self.allocated_bytes += size - 16;
            self.buffers.corrections = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("drape jacobi corrections"),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            self.solver_bind_group = solver_bind_group(&self.device, &self.solver_layout, &self.buffers);
        }
        self.params = params;
        self.strategy = strategy;
        self.write_params();
        self.upload_dispatch_table(&plan.table);
        self.plan = plan.dispatches;
        Ok(())
    }

    /// Resolves `Auto` and plans the frame. Refuses a single-workgroup or striped layout that
    /// cannot stay within llvmpipe's loop limit, whose results would be silently wrong.
    fn plan_frame(&self, params: &SolverParams) -> Result<(DispatchStrategy, FramePlan), Error> {
        let budget = is_cpu_adapter(&self.device).then_some(CPU_LOOP_BUDGET);
        let jacobi = matches!(params.mode, SolverMode::Jacobi { .. });
        let plan = |strategy| {
            // Jacobi has no stripes: its striped layout is the per-colour one.
            let strategy =
                if jacobi && strategy == DispatchStrategy::Striped { DispatchStrategy::PerColour } else { strategy };
            frame_plan(params, strategy, &self.model, self.workgroup_sizes, budget, self.stripe_entries)
                .map(|plan| (strategy, plan))
        };
        let per_colour = || plan(DispatchStrategy::PerColour).expect("the per-colour layout has no loop budget");
        let refused = |strategy: DispatchStrategy| {
            Error::Param(crate::error::ParamError {
                name: "dispatch",
                value: format!("{strategy:?}"),
                expected: "Auto or PerColour for a cloth this large on a CPU adapter (llvmpipe's loop limit)",
            })
        };
        match params.dispatch {
            DispatchStrategy::Auto => {
                let preferred = self.auto_strategy(params, || per_colour().1.dispatches.len());
                Ok(plan(preferred).or_else(|| plan(DispatchStrategy::Striped)).unwrap_or_else(per_colour))
            }
            DispatchStrategy::PerColour => Ok(per_colour()),
            strategy => plan(strategy).ok_or_else(|| refused(strategy)),
        }
    }

    /// The layout `Auto` tries first. Gauss-Seidel: on a CPU adapter, stripes once the cloth has
    /// more than [`CPU_GAUSS_SEIDEL_SINGLE_WORKGROUP_MAX_PARTICLES`] and both phases have two
    /// stripes (a workgroup per core; 32² in 2 + 2 stripes 31–33 ms against 38 ms in one
    /// workgroup on lavapipe) or, on a GPU, above a small-cloth size.
    /// Jacobi: a single workgroup on a CPU adapter while the per-colour plan would spend more on
    /// dispatches than on projections, on a GPU only for small cloths.
    fn auto_strategy(&self, params: &SolverParams, per_colour_dispatches: impl FnOnce() -> usize) -> DispatchStrategy {
        let cpu = is_cpu_adapter(&self.device);
        let small = self.model.particle_count() <= AUTO_SINGLE_WORKGROUP_MAX_PARTICLES;
        let single = match params.mode {
            SolverMode::GaussSeidel if cpu => {
                self.model.particle_count() <= CPU_GAUSS_SEIDEL_SINGLE_WORKGROUP_MAX_PARTICLES
                    || self.model.phases.iter().any(|p| p.stripes.len() < 2)
            }
            SolverMode::GaussSeidel => small,
            SolverMode::Jacobi { .. } if cpu => {
                let projections = u64::from(params.substeps * params.iterations) * self.model.constraints.len() as u64;
                projections < CPU_SINGLE_WORKGROUP_MAX_PROJECTIONS_PER_DISPATCH * per_colour_dispatches() as u64
            }
            SolverMode::Jacobi { .. } => small,
        };
        match (single, params.mode) {
            (true, _) => DispatchStrategy::SingleWorkgroup,
            (false, SolverMode::GaussSeidel) => DispatchStrategy::Striped,
            (false, SolverMode::Jacobi { .. }) => DispatchStrategy::PerColour,
        }
    }

    /// Writes the dispatch table, growing its buffer (and rebinding) when the plan needs more
    /// entries than it holds — only when parameters change, never per frame.
    fn upload_dispatch_table(&mut self, table: &[DispatchInfo]) {
        let bytes = strided(table, DISPATCH_ENTRY_STRIDE);
        let needed = bytes.len() as u64;
        if needed > self.buffers.dispatch_table.size() {
            self.allocated_bytes += needed - self.buffers.dispatch_table.size();
            self.buffers.dispatch_table = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("drape dispatch table"),
                size: needed,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.solver_bind_group = solver_bind_group(&self.device, &self.solver_layout, &self.buffers);
        }
        self.queue.write_buffer(&self.buffers.dispatch_table, 0, &bytes);
    }
}

enum Which {
    Positions,
    Velocities,
    Normals,
}

fn is_cpu_adapter(device: &wgpu::Device) -> bool {
    device.adapter_info().device_type == wgpu::DeviceType::Cpu
}

/// Entries laid out `stride` bytes apart (dynamic uniform offsets need aligned entries).
fn strided<T: Pod>(entries: &[T], stride: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; entries.len().max(1) * stride as usize];
    for (i, entry) in entries.iter().enumerate() {
        let start = i * stride as usize;
        bytes[start..start + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(entry));
    }
    bytes
}

/// The per-particle buffers of a cloth at rest (`vec4` per particle): positions (w = 1), pin
/// records and vertex normals. The predicted positions need no reset: predict rewrites them.
struct RestState {
    positions: Vec<[f32; 4]>,
    records: Vec<[f32; 4]>,
    normals: Vec<[f32; 4]>,
}

impl RestState {
    fn new(model: &ClothModel, pins: &Pins) -> Self {
        let rest = &model.mesh.positions;
        Self {
            positions: rest.iter().map(|p| p.extend(1.0).to_array()).collect(),
            records: (0..model.particle_count()).map(|i| pins.particle_record(i)).collect(),
            normals: model.vertex_normals(rest).iter().map(|n| n.extend(0.0).to_array()).collect(),
        }
    }
}

/// A particle readback buffer ([`particle_readback_buffer`]), counted in `allocated_bytes`.
fn counted_readback_buffer(device: &wgpu::Device, particle_count: usize, allocated_bytes: &mut u64) -> wgpu::Buffer {
    let buffer = particle_readback_buffer(device, particle_count);
    *allocated_bytes += buffer.size();
    buffer
}

/// A CSR list as the kernels read it: offsets, then items, in one `u32` array.
fn csr_words(csr: &crate::model::Csr) -> Vec<u8> {
    bytemuck::cast_slice(&csr.words()).to_vec()
}

/// Bytes of Jacobi correction slots per constraint (four `vec4<f32>`).
const JACOBI_SLOT_BYTES: u64 = 64;

/// Fails when a buffer of `size` bytes exceeds what the device can create or bind.
fn check_buffer_size(device: &wgpu::Device, what: &str, size: u64) -> Result<(), Error> {
    let limits = device.limits();
    let limit = limits.max_buffer_size.min(limits.max_storage_buffer_binding_size);
    if size > limit {
        return Err(Error::Device(format!("{what} need {size} bytes; the device allows {limit} per buffer")));
    }
    Ok(())
}

/// Checks the device's limits that the solver's layouts and kernels rely on, so that a device
/// created with lower limits than [`crate::required_limits`] gets an error instead of a wgpu
/// validation panic. The solver bind group is the largest one (the normals group needs less).
fn check_device_limits(device: &wgpu::Device, sizes: WorkgroupSizes) -> Result<(), Error> {
    let limits = device.limits();
    let entries = solver_layout_entries();
    let buffers = |uniform: bool, dynamic: bool| {
        let counted = |e: &&wgpu::BindGroupLayoutEntry| match e.ty {
            wgpu::BindingType::Buffer { ty, has_dynamic_offset, .. } => {
                (ty == wgpu::BufferBindingType::Uniform) == uniform && (has_dynamic_offset || !dynamic)
            }
            _ => false,
        };
        entries.iter().filter(counted).count() as u64
    };
    let invocations = u64::from(WORKGROUP_SIZE.max(sizes.fused).max(sizes.stripe));
    let uniform_bytes = size_of::<ColourTable>().max(size_of::<GpuParams>()) as u64;
    let at_least = [
        ("max_bind_groups", 1, limits.max_bind_groups.into()),
        ("max_bindings_per_bind_group", entries.len() as u64, limits.max_bindings_per_bind_group.into()),
        (
            "max_storage_buffers_per_shader_stage",
            buffers(false, false),
            limits.max_storage_buffers_per_shader_stage.into(),
        ),
        (
            "max_uniform_buffers_per_shader_stage",
            buffers(true, false),
            limits.max_uniform_buffers_per_shader_stage.into(),
        ),
        (
            "max_buffers_and_acceleration_structures_per_shader_stage",
            entries.len() as u64,
            limits.max_buffers_and_acceleration_structures_per_shader_stage.into(),
        ),
        (
            "max_dynamic_uniform_buffers_per_pipeline_layout",
            buffers(true, true),
            limits.max_dynamic_uniform_buffers_per_pipeline_layout.into(),
        ),
        ("max_uniform_buffer_binding_size", uniform_bytes, limits.max_uniform_buffer_binding_size),
        ("max_compute_invocations_per_workgroup", invocations, limits.max_compute_invocations_per_workgroup.into()),
        ("max_compute_workgroup_size_x", invocations, limits.max_compute_workgroup_size_x.into()),
        (
            "max_compute_workgroup_storage_size",
            (STRIPE_CAPACITY * 16) as u64,
            limits.max_compute_workgroup_storage_size.into(),
        ),
        (
            "max_compute_workgroups_per_dimension",
            MAX_WORKGROUPS_PER_DIMENSION.into(),
            limits.max_compute_workgroups_per_dimension.into(),
        ),
    ];
    let short = at_least
        .iter()
        .find(|(_, needed, offered)| offered < needed)
        .map(|&(name, needed, offered)| format!("the device's {name} is {offered}, drape needs at least {needed}"));
    let alignment = u64::from(limits.min_uniform_buffer_offset_alignment);
    let short = short.or_else(|| {
        (alignment > DISPATCH_ENTRY_STRIDE).then(|| {
            let name = "min_uniform_buffer_offset_alignment";
            format!("the device's {name} is {alignment}, drape needs at most {DISPATCH_ENTRY_STRIDE}")
        })
    });
    match short {
        Some(reason) => Err(Error::Device(format!("{reason} (request drape::required_limits(&adapter))"))),
        None => Ok(()),
    }
}

/// Checks the model's largest buffers (and its index lists of `list_words` words) against the
/// device before anything is created.
fn check_limits(device: &wgpu::Device, model: &ClothModel, list_words: usize) -> Result<(), Error> {
    let words = |csr: &crate::model::Csr| 4 * (csr.offsets.len() + csr.items.len()) as u64;
    check_buffer_size(device, "constraints", (model.constraints.len() * size_of::<Constraint>()) as u64)?;
    check_buffer_size(device, "particles", 16 * model.particle_count() as u64)?;
    check_buffer_size(device, "index lists", 4 * list_words as u64)?;
    check_buffer_size(device, "vertex triangle lists", words(&model.vertex_triangles))?;
    if model.colours.len() > MAX_COLOURS {
        return Err(Error::TooManyColours { needed: model.colours.len(), max: MAX_COLOURS });
    }
    Ok(())
}

/// Binds a whole buffer.
fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }
}

fn solver_bind_group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, b: &Buffers) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("drape solver bind group"),
        layout,
        entries: &[
            whole(0, &b.params),
            whole(1, &b.colour_table),
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &b.dispatch_table,
                    offset: 0,
                    size: wgpu::BufferSize::new(size_of::<DispatchInfo>() as u64),
                }),
            },
            whole(3, &b.positions),
            whole(4, &b.velocities),
            whole(5, &b.predicted),
            whole(6, &b.particles),
            whole(7, &b.constraints),
            whole(8, &b.lambdas),
            whole(9, &b.corrections),
            whole(10, &b.lists),
        ],
    })
}

fn normals_bind_group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, b: &Buffers) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("drape normals bind group"),
        layout,
        entries: &[
            whole(0, &b.params),
            whole(1, &b.positions),
            whole(2, &b.normals),
            whole(3, &b.triangles),
            whole(4, &b.vertex_triangles),
        ],
    })
}
