//! Helpers shared by the GPU tests.
#![allow(dead_code)]

use glam::Vec3;

/// A headless device (lavapipe on machines without a GPU).
pub fn device() -> (wgpu::Device, wgpu::Queue) {
    let (device, queue, _) =
        drape::headless_device(Default::default()).unwrap_or_else(|e| panic!("GPU tests need a Vulkan adapter: {e}"));
    (device, queue)
}

/// A headless device whose limits `adjust` lowers from what drape asks for.
pub fn device_with(adjust: impl FnOnce(&mut wgpu::Limits)) -> (wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, None)).expect("an adapter");
    let mut limits = drape::required_limits(&adapter);
    adjust(&mut limits);
    pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() }),
    )
    .expect("a device")
}

/// Largest distance between corresponding points.
pub fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max)
}
