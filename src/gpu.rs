//! Device-side orchestration of the passes ([`crate::passes`]): their resources and bind groups,
//! their pipelines, the headless device helper and the solver that records frames.

pub mod device;
mod fields;
mod pipelines;
pub mod profile;
pub(crate) mod readback;
mod resources;
mod solver;

pub use crate::passes::plan::DispatchStrategy;
#[cfg(not(target_arch = "wasm32"))]
pub use device::{headless_device, request_device};
pub use device::{request_device_async, required_limits, HeadlessOptions, TIMESTAMP_FEATURES};
pub use profile::{FrameProfile, PassTime, ProfileBy};
pub use solver::GpuSolver;
