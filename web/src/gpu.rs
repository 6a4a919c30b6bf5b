//! The canvas's WebGPU surface and the device the solver and renderer share.

use crate::page::show_failure;
use drape::HeadlessOptions;
use std::sync::Arc;
use web_sys::HtmlCanvasElement;

/// A device and the canvas it draws to.
pub struct Gpu {
    pub surface: wgpu::Surface<'static>,
    pub config: wgpu::SurfaceConfiguration,
    /// The format the scene is drawn in: the sRGB view of the surface's format, so the shading
    /// is the desktop demo's.
    pub view_format: wgpu::TextureFormat,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    pub canvas: HtmlCanvasElement,
}

impl Gpu {
    /// Asks the browser for an adapter that can draw to `canvas`, and a device with drape's
    /// limits ([`drape::required_limits`]: the WebGPU defaults where the adapter offers no more).
    /// `Ok(None)` when the browser offers no adapter (WebGPU turned off, a blocked GPU).
    pub async fn new(canvas: HtmlCanvasElement) -> Result<Option<Self>, String> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
            .map_err(|e| format!("cannot draw to the canvas: {e}"))?;
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            compatible_surface: Some(&surface),
            ..Default::default()
        };
        let Ok(adapter) = instance.request_adapter(&options).await else {
            return Ok(None);
        };
        // Timestamp queries where the browser offers them: the session times the step with them.
        let timestamps = HeadlessOptions { timestamps: true };
        let (device, queue) = drape::request_device_async(&adapter, timestamps).await.map_err(|e| e.to_string())?;
        // A validation error (a shader the browser rejects, say) stops the demo with its message
        // rather than leaving a frozen canvas.
        device.on_uncaptured_error(Arc::new(|error| show_failure(&format!("WebGPU error: {error}"))));
        // A lost device never reports its work done: say so instead of freezing.
        device.set_device_lost_callback(|reason, message| {
            show_failure(&format!("the GPU device was lost ({reason:?}): {message}"));
        });
        let capabilities = surface.get_capabilities(&adapter);
        // The first format is the browser's preferred one (no extra copy to show it).
        let format = capabilities.formats.first().copied().ok_or("the canvas supports no format on this adapter")?;
        let view_format = format.add_srgb_suffix();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: canvas.width().max(1),
            height: canvas.height().max(1),
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: wgpu::CompositeAlphaMode::Auto,
            view_formats: if view_format == format { vec![] } else { vec![view_format] },
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&device, &config);
        let info = adapter.get_info();
        Ok(Some(Self { surface, config, view_format, device, queue, adapter: info, canvas }))
    }

    /// The adapter's name, or its kind where the browser keeps the name private.
    pub fn adapter_name(&self) -> String {
        match self.adapter.name.as_str() {
            "" => format!("{:?} WebGPU adapter", self.adapter.device_type).to_lowercase(),
            name => name.to_owned(),
        }
    }

    /// Matches the drawing buffer to the canvas's size on the page (in device pixels, clamped to
    /// the device's texture limit). Returns whether it changed.
    pub fn fit_canvas(&mut self) -> bool {
        let Some(window) = web_sys::window() else { return false };
        let scale = window.device_pixel_ratio();
        let limit = self.device.limits().max_texture_dimension_2d;
        let size = |css: i32| ((f64::from(css.max(1)) * scale).round() as u32).clamp(1, limit);
        let (width, height) = (size(self.canvas.client_width()), size(self.canvas.client_height()));
        if (width, height) == (self.config.width, self.config.height) {
            return false;
        }
        self.canvas.set_width(width);
        self.canvas.set_height(height);
        (self.config.width, self.config.height) = (width, height);
        self.surface.configure(&self.device, &self.config);
        true
    }

    /// The canvas's next texture, or `None` for a frame to skip.
    pub fn acquire(&mut self) -> Result<Option<wgpu::SurfaceTexture>, String> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(texture) | wgpu::CurrentSurfaceTexture::Suboptimal(texture) => {
                Ok(Some(texture))
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.device, &self.config);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => Ok(None),
            failed @ (wgpu::CurrentSurfaceTexture::Lost | wgpu::CurrentSurfaceTexture::Validation) => {
                Err(format!("the canvas failed: {failed:?}"))
            }
        }
    }
}
