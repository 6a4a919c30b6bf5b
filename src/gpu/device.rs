//! A headless device for tests, benchmarks and tools. Embedding programs pass their own.

use crate::error::Error;
use crate::passes::plan::{WorkgroupSizes, DISPATCH_ENTRY_STRIDE, MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE};
use crate::passes::Shader;
use crate::wgsl::{Access, Binding, BindingTable};

/// How to get a Vulkan driver on a machine without a GPU (for "no adapter" messages).
#[cfg(not(target_arch = "wasm32"))]
const LAVAPIPE_HINT: &str = "install a GPU driver, or Mesa's software Vulkan driver lavapipe \
    (Debian/Ubuntu: `apt-get install mesa-vulkan-drivers`)";

/// Features for GPU timestamps written between passes (step timing in the tools). The demos'
/// timer needs only `TIMESTAMP_QUERY`, the one WebGPU has.
pub const TIMESTAMP_FEATURES: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Options for the device helpers (`headless_device`, `request_device`, [`request_device_async`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessOptions {
    /// Also request the timestamp features ([`TIMESTAMP_FEATURES`]) that the adapter offers.
    pub timestamps: bool,
}

/// A device with no window: honours `WGPU_BACKEND` (e.g. `vulkan`, `gl`) and
/// `WGPU_ADAPTER_NAME` (a case-insensitive substring of the adapter name). See
/// [`request_device`] for the limits and features it asks for. Native only: it blocks until the
/// device is there, which a browser cannot do.
#[cfg(not(target_arch = "wasm32"))]
pub fn headless_device(options: HeadlessOptions) -> Result<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo), Error> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(choose_adapter(&instance, None))?;
    let (device, queue) = request_device(&adapter, options)?;
    Ok((device, queue, adapter.get_info()))
}

/// The limits a drape solver needs from `adapter`: the WebGPU defaults, except for buffer sizes,
/// which are raised to what the adapter offers so large cloths fit, and workgroup memory, raised
/// to what the adapter offers (up to 32 KiB) so the striped kernel can keep stripes of up to
/// [`crate::model::STRIPE_PARTICLES`] particles there with their positions (two `vec4` each).
/// Engines that create their own device should request (at least) these; with less workgroup
/// memory stripes are kept without their positions, or projected in place: slower, but alike.
pub fn required_limits(adapter: &wgpu::Adapter) -> wgpu::Limits {
    let offered = adapter.limits();
    let defaults = wgpu::Limits::default();
    let block_bytes = (crate::model::STRIPE_PARTICLES * 32) as u32;
    wgpu::Limits {
        max_storage_buffer_binding_size: offered.max_storage_buffer_binding_size,
        max_buffer_size: offered.max_buffer_size,
        max_compute_workgroup_storage_size: offered
            .max_compute_workgroup_storage_size
            .clamp(defaults.max_compute_workgroup_storage_size, block_bytes),
        ..defaults
    }
}

/// Whether the device runs on the CPU (lavapipe, llvmpipe), where dispatches are expensive and
/// loops are capped.
pub(crate) fn is_cpu_adapter(device: &wgpu::Device) -> bool {
    device.adapter_info().device_type == wgpu::DeviceType::Cpu
}

/// Fails when a buffer of `size` bytes exceeds what the device can create or bind.
pub(crate) fn check_buffer_size(device: &wgpu::Device, what: &str, size: u64) -> Result<(), Error> {
    let limits = device.limits();
    let limit = limits.max_buffer_size.min(limits.max_storage_buffer_binding_size);
    if size > limit {
        return Err(Error::Device(format!("{what}: {size} bytes, and the device allows {limit} per buffer")));
    }
    Ok(())
}

/// Each kernel's pipeline layout in `shaders`: the frame's bindings, then those of each of its
/// module's groups, the last only as far as the kernel uses it ([`crate::passes::Kernel::uses`],
/// as `super::pipelines` builds them).
pub(crate) fn kernel_layouts<'a>(frame: &'a BindingTable, shaders: &'a [Shader]) -> Vec<Vec<Vec<&'a Binding>>> {
    let mut layouts = Vec::new();
    for shader in shaders {
        for kernel in &shader.kernels {
            let mut groups: Vec<Vec<&Binding>> = std::iter::once(frame)
                .chain(shader.groups.iter().copied())
                .map(|t| t.bindings.iter().collect())
                .collect();
            if let (Some(uses), Some(last)) = (kernel.uses, groups.last_mut()) {
                last.retain(|b| uses.contains(&b.name));
            }
            layouts.push(groups);
        }
    }
    layouts
}

/// Checks the device's limits that the solver's layouts and kernels rely on, so that a device
/// created with lower limits than [`required_limits`] gets an error naming the limit instead of
/// a wgpu validation panic. `layouts` holds each kernel's pipeline layout: the bindings of each
/// of its groups, the frame's first ([`kernel_layouts`]); the frame's parameters take
/// `params_bytes`.
pub(crate) fn check_device_limits(
    device: &wgpu::Device,
    sizes: WorkgroupSizes,
    layouts: &[Vec<Vec<&Binding>>],
    params_bytes: u64,
) -> Result<(), Error> {
    let limits = device.limits();
    let most = |count: &dyn Fn(&[Vec<&Binding>]) -> u64| layouts.iter().map(|l| count(l)).max().unwrap_or(0);
    let counted = |accesses: &'static [Access]| {
        move |layout: &[Vec<&Binding>]| layout.iter().flatten().filter(|b| accesses.contains(&b.access)).count() as u64
    };
    let bindings = |layout: &[Vec<&Binding>]| layout.iter().map(|g| g.len() as u64).sum();
    let highest_binding = most(&|layout| layout.iter().map(|g| g.len() as u64).max().unwrap_or(0));
    let uniform_bytes = layouts
        .iter()
        .flatten()
        .flatten()
        .filter(|b| matches!(b.access, Access::Uniform | Access::DynamicUniform))
        .map(|b| b.min_bytes)
        .fold(params_bytes, u64::max);
    let invocations = u64::from(WORKGROUP_SIZE.max(sizes.substep).max(sizes.stripe));
    let at_least = [
        ("max_bind_groups", most(&|layout| layout.len() as u64), limits.max_bind_groups.into()),
        ("max_bindings_per_bind_group", highest_binding, limits.max_bindings_per_bind_group.into()),
        (
            "max_storage_buffers_per_shader_stage",
            most(&counted(&[Access::Read, Access::ReadWrite])),
            limits.max_storage_buffers_per_shader_stage.into(),
        ),
        (
            "max_uniform_buffers_per_shader_stage",
            most(&counted(&[Access::Uniform, Access::DynamicUniform])),
            limits.max_uniform_buffers_per_shader_stage.into(),
        ),
        (
            "max_buffers_and_acceleration_structures_per_shader_stage",
            most(&bindings),
            limits.max_buffers_and_acceleration_structures_per_shader_stage.into(),
        ),
        (
            "max_dynamic_uniform_buffers_per_pipeline_layout",
            most(&counted(&[Access::DynamicUniform])),
            limits.max_dynamic_uniform_buffers_per_pipeline_layout.into(),
        ),
        ("max_uniform_buffer_binding_size", uniform_bytes, limits.max_uniform_buffer_binding_size),
        ("max_compute_invocations_per_workgroup", invocations, limits.max_compute_invocations_per_workgroup.into()),
        ("max_compute_workgroup_size_x", invocations, limits.max_compute_workgroup_size_x.into()),
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

/// Requests a device with [`required_limits`] from an adapter (a headless one, or one
/// compatible with a window's surface), plus the timestamp features asked for and offered.
/// Native only: it blocks until the device is there; on the web, await
/// [`request_device_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn request_device(adapter: &wgpu::Adapter, options: HeadlessOptions) -> Result<(wgpu::Device, wgpu::Queue), Error> {
    pollster::block_on(request_device_async(adapter, options))
}

/// `request_device` without blocking, for the web (and any async program).
pub async fn request_device_async(
    adapter: &wgpu::Adapter,
    options: HeadlessOptions,
) -> Result<(wgpu::Device, wgpu::Queue), Error> {
    let info = adapter.get_info();
    let required_features =
        if options.timestamps { adapter.features() & TIMESTAMP_FEATURES } else { wgpu::Features::empty() };
    adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("drape device"),
            required_features,
            required_limits: required_limits(adapter),
            ..Default::default()
        })
        .await
        .map_err(|e| Error::Device(format!("{e} (adapter {})", info.name)))
}

/// The adapter named by `WGPU_ADAPTER_NAME` (a case-insensitive substring), or else the one
/// `WGPU_POWER_PREF` (default high performance) prefers; when drawing to `surface`, only adapters
/// that can present to it.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) async fn choose_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, Error> {
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = wanted.to_lowercase();
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .filter(|a| surface.is_none_or(|s| a.is_surface_supported(s)))
            .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
            .ok_or_else(|| {
                Error::NoAdapter(format!(
                    "WGPU_ADAPTER_NAME={wanted} matches no usable adapter of {names:?}; {LAVAPIPE_HINT}"
                ))
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::HighPerformance),
            compatible_surface: surface,
            ..Default::default()
        })
        .await
        .map_err(|e| Error::NoAdapter(format!("{e}; {LAVAPIPE_HINT}")))
}
