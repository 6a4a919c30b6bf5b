//! Device-side orchestration: GPU struct mirrors, shader sources, bind group layouts and
//! pipelines, the frame plan, the headless device helper and the solver that records frames.

mod buffers;
pub mod device;
mod fields;
mod pipelines;
mod plan;
pub(crate) mod readback;
pub mod records;
pub mod shaders;
mod solver;

#[cfg(not(target_arch = "wasm32"))]
pub use device::{headless_device, request_device};
pub use device::{request_device_async, required_limits, HeadlessOptions, TIMESTAMP_FEATURES};
pub use plan::DispatchStrategy;
pub use solver::GpuSolver;
