//! Helpers shared by the GPU tests.
#![allow(dead_code)]

use glam::Vec3;

/// A headless device (lavapipe on machines without a GPU).
pub fn device() -> (wgpu::Device, wgpu::Queue) {
    let (device, queue, _) =
        drape::headless_device(Default::default()).unwrap_or_else(|e| panic!("GPU tests need a Vulkan adapter: {e}"));
    (device, queue)
}

/// Largest distance between corresponding points.
pub fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max)
}
