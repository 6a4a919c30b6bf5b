//! Rendering without a window: draw the scene into a texture, read it back as RGBA and write
//! PNGs. Used by the demo's `--headless --screenshot` and by the tests.

use super::renderer::{DepthBuffer, DrawOptions, SceneRenderer};
use crate::error::{Error, ParamError};
use crate::gpu::readback::read_mapped;
use crate::gpu::GpuSolver;
use std::path::Path;

/// Colour format of offscreen images (sRGB-encoded on store, like a window surface).
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// An offscreen colour + depth target of a fixed size, with a readback buffer.
pub struct Offscreen {
    colour: wgpu::Texture,
    colour_view: wgpu::TextureView,
    depth: DepthBuffer,
    readback: wgpu::Buffer,
    width: u32,
    height: u32,
    /// Bytes per row in the readback buffer (copies need rows padded to 256 bytes).
    padded_row: u32,
}

impl Offscreen {
    /// A `width × height` target; each side must be between 1 and the device's texture limit.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Result<Self, Error> {
        let limit = device.limits().max_texture_dimension_2d;
        for (name, value) in [("width", width), ("height", height)] {
            if !(1..=limit).contains(&value) {
                return Err(ParamError {
                    name,
                    value: value.to_string(),
                    expected: "between 1 and the device's texture limit",
                }
                .into());
            }
        }
        let colour = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("drape offscreen colour"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded_row = (4 * width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("drape offscreen readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Self {
            colour_view: colour.create_view(&Default::default()),
            colour,
            depth: DepthBuffer::new(device, width, height),
            readback,
            width,
            height,
            padded_row,
        })
    }

    /// Width / height.
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    /// Draws the scene (already [`SceneRenderer::prepare`]d) and reads the image back — this
    /// waits for the GPU.
    pub fn capture(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &SceneRenderer,
        solver: &GpuSolver,
        options: DrawOptions,
    ) -> Result<image::RgbaImage, Error> {
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape offscreen frame") });
        renderer.render(&mut encoder, &self.colour_view, self.depth.view(), None, solver, options);
        encoder.copy_texture_to_buffer(
            self.colour.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d { width: self.width, height: self.height, depth_or_array_layers: 1 },
        );
        queue.submit([encoder.finish()]);
        let row = 4 * self.width as usize;
        let pixels = read_mapped(device, &self.readback, |bytes| {
            bytes.chunks(self.padded_row as usize).flat_map(|padded| &padded[..row]).copied().collect::<Vec<u8>>()
        })?;
        image::RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| Error::Readback("image size does not match the texture".into()))
    }
}

/// Writes `image` as a PNG file.
pub fn save_png(image: &image::RgbaImage, path: &Path) -> Result<(), Error> {
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| Error::Image { path: path.display().to_string(), message: e.to_string() })
}
