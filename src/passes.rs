//! The per-substep passes of a frame, each in a module of its own with its WGSL twin in
//! `shaders/passes/`.

pub mod air;
pub mod area_limits;
pub mod rigid_damping;
pub mod self_collision;
pub mod springs;
pub mod tethers;
