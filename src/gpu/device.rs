//! A headless device for tests, benchmarks and tools. Embedding programs pass their own.

use crate::error::Error;

/// How to get a Vulkan driver on a machine without a GPU (for "no adapter" messages).
const LAVAPIPE_HINT: &str = "install a GPU driver, or Mesa's software Vulkan driver lavapipe \
    (Debian/Ubuntu: `apt-get install mesa-vulkan-drivers`)";

/// Features for GPU timestamps written between passes (step timing in the tools and the demo).
pub const TIMESTAMP_FEATURES: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Options for [`headless_device`].
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessOptions {
    /// Also request timestamp queries (inside encoders) when the adapter offers them.
    pub timestamps: bool,
}

/// A device with no window: honours `WGPU_BACKEND` (e.g. `vulkan`, `gl`) and
/// `WGPU_ADAPTER_NAME` (a case-insensitive substring of the adapter name). See
/// [`request_device`] for the limits and features it asks for.
pub fn headless_device(options: HeadlessOptions) -> Result<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo), Error> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(choose_adapter(&instance, None))?;
    let (device, queue) = request_device(&adapter, options)?;
    Ok((device, queue, adapter.get_info()))
}

/// The limits a drape solver needs from `adapter`: the WebGPU defaults, except for buffer sizes,
/// which are raised to what the adapter offers so large cloths fit. Engines that create their
/// own device should request (at least) these.
pub fn required_limits(adapter: &wgpu::Adapter) -> wgpu::Limits {
    let offered = adapter.limits();
    wgpu::Limits {
        max_storage_buffer_binding_size: offered.max_storage_buffer_binding_size,
        max_buffer_size: offered.max_buffer_size,
        ..wgpu::Limits::default()
    }
}

/// Requests a device with [`required_limits`] from an adapter (a headless one, or one
/// compatible with a window's surface), plus timestamp queries when asked for and offered.
pub fn request_device(adapter: &wgpu::Adapter, options: HeadlessOptions) -> Result<(wgpu::Device, wgpu::Queue), Error> {
    let info = adapter.get_info();
    let required_features = if options.timestamps && adapter.features().contains(TIMESTAMP_FEATURES) {
        TIMESTAMP_FEATURES
    } else {
        wgpu::Features::empty()
    };
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("drape device"),
        required_features,
        required_limits: required_limits(adapter),
        ..Default::default()
    }))
    .map_err(|e| Error::Device(format!("{e} (adapter {})", info.name)))
}

/// The adapter named by `WGPU_ADAPTER_NAME` (a case-insensitive substring), or else the one
/// `WGPU_POWER_PREF` (default high performance) prefers; when drawing to `surface`, only adapters
/// that can present to it.
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
