//! Device-side orchestration: GPU struct mirrors, shader sources, the headless device helper and
//! the solver that records frames.

pub mod device;
pub mod layout;
mod pipelines;
mod plan;
pub(crate) mod readback;
pub mod shaders;
mod solver;

pub use device::{headless_device, request_device, required_limits, HeadlessOptions, TIMESTAMP_FEATURES};
pub use solver::GpuSolver;
