//! # drape — GPU cloth simulation on wgpu
//!
//! The whole simulation runs in WGSL compute shaders: predict, project stretch and bending
//! constraints (coloured Gauss-Seidel or Jacobi, PBD stiffness or XPBD compliance, with
//! substeps), push the cloth with the air (drag, lift, wind and gusts), collide with itself and
//! with planes, spheres, capsules, boxes and triangle meshes ([`DistanceField`]), still or
//! moving, update velocities with friction and restitution, and recompute normals. A mass-spring
//! cloth ([`passes::springs`], semi-implicit Euler) runs through the same steps as a baseline to
//! compare with. The host builds the model once ([`ClothModel`]) and the solver ([`GpuSolver`])
//! records frames into your own encoder.
//!
//! ```no_run
//! # fn main() -> Result<(), drape::Error> {
//! let (device, queue, _) = drape::headless_device(Default::default())?;
//! let scene = drape::Scene::new(drape::SceneKind::Drape, 32)?;
//! let mut solver = drape::GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders)?;
//! for _ in 0..60 {
//!     solver.step();
//! }
//! let positions = solver.read_positions()?;
//! # Ok(()) }
//! ```
//!
//! The physics follows Müller et al., *Position Based Dynamics* (2007), cited as "PBD §…", and
//! Macklin et al.'s XPBD with substepping ("XPBD eq. …").

#![warn(missing_docs)]

pub mod animation;
pub mod bodies;
pub mod collision;
pub mod constraints;
pub mod distance_field;
pub mod error;
pub mod fabric;
pub mod geodesic;
pub mod gltf_input;
pub mod gpu;
pub mod graph;
pub mod lab;
pub mod math;
pub mod mesh;
pub mod metrics;
pub mod model;
pub mod params;
pub mod passes;
pub mod pins;
pub mod reference;
pub mod scene;
pub mod schedule;
#[cfg(feature = "render")]
pub mod viewer;
pub mod wgsl;
// The viewer opens native windows and waits for the GPU; the browser build leaves it out.
#[cfg(all(feature = "viewer", target_arch = "wasm32"))]
compile_error!(
    "the `viewer` feature is native only: build for wasm32 with `--no-default-features` (and `--features render` for the renderer and session)"
);

pub use animation::AnimationRecorder;
pub use bodies::{BodyMass, BodyShape, BodyState, RigidBody};
pub use collision::{Collider, ContactMaterial, Pose};
pub use constraints::membrane::Moduli;
pub use constraints::stretch::StrainLimits;
pub use constraints::{BendingModel, StretchModel};
pub use distance_field::DistanceField;
pub use error::{Error, GltfError, MeshError, ParamError};
pub use fabric::{BendingRigidity, Fabric, FabricChoice};
pub use gltf_input::GltfCloth;
#[cfg(not(target_arch = "wasm32"))]
pub use gpu::{headless_device, request_device};
pub use gpu::{request_device_async, required_limits, DispatchStrategy, GpuSolver, HeadlessOptions};
pub use mesh::{ClothMesh, GridPlane};
pub use metrics::{ClothMetrics, Overflows, StretchReport, StretchStats};
pub use model::{Cloth, ClothModel, PairFriction};
pub use params::{
    Aerodynamics, DirectionalLimit, Gusts, MassSpringParams, SelfCollision, SolverMode, SolverParams, Stiffness,
    TetherParams,
};
pub use passes::attachments::Attachment;
pub use passes::bodies::attachments::BodyAttachment;
pub use passes::bodies::ropes::BodyRope;
pub use reference::CpuSolver;
pub use scene::{Scene, SceneKind, SceneObjects, Spin};
