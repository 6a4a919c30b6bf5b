//! The mesh colliders' distance fields on the GPU: one 3-D `r32float` texture, each field's
//! samples a block of layers stacked along z (`distance_fields` in `shaders/collision.wgsl`, read
//! with `textureLoad` and interpolated there, so no sampler and no filterable format is needed,
//! and the GPU interpolates the same bits as [`crate::DistanceField::surface_point`]). A texture
//! binding keeps the integrate kernels within WebGPU's eight storage buffers per stage.

use crate::collision::Collider;
use crate::distance_field::DistanceField;
use crate::error::Error;
use std::sync::Arc;

/// The fields of a solver's mesh colliders and where each starts in the texture.
pub(crate) struct FieldAtlas {
    /// Each distinct field (colliders sharing one `Arc` share its layers), in collider order.
    fields: Vec<Arc<DistanceField>>,
    /// The layer each field starts at.
    first_layers: Vec<u32>,
    /// The texture: the widest and tallest field by the sum of their depths (1 × 1 × 1 with no
    /// field, since the integrate kernels always bind it).
    texture: wgpu::Texture,
    /// A view of all of it.
    pub view: wgpu::TextureView,
}

impl FieldAtlas {
    /// The atlas of the mesh colliders among `shapes`, uploaded. Fails when their layers
    /// together exceed the device's largest 3-D texture.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, shapes: &[Collider]) -> Result<Self, Error> {
        let fields = distinct_fields(shapes);
        let mut first_layers = Vec::with_capacity(fields.len());
        let mut layers = 0u32;
        for field in &fields {
            first_layers.push(layers);
            layers = layers.saturating_add(field.size().z);
        }
        let width = fields.iter().map(|f| f.size().x).max().unwrap_or(1);
        let height = fields.iter().map(|f| f.size().y).max().unwrap_or(1);
        let limit = device.limits().max_texture_dimension_3d;
        if layers > limit || width > limit || height > limit {
            return Err(Error::Device(format!(
                "the mesh colliders' fields need a {width} × {height} × {layers} texture; the device allows {limit} per side"
            )));
        }
        let size = wgpu::Extent3d { width, height, depth_or_array_layers: layers.max(1) };
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("drape distance fields"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D3,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for (field, &first) in fields.iter().zip(&first_layers) {
            let s = field.size();
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x: 0, y: 0, z: first },
                    aspect: wgpu::TextureAspect::All,
                },
                bytemuck::cast_slice(field.samples()),
                wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(4 * s.x), rows_per_image: Some(s.y) },
                wgpu::Extent3d { width: s.x, height: s.y, depth_or_array_layers: s.z },
            );
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self { fields, first_layers, texture, view })
    }

    /// Whether this atlas holds exactly the mesh colliders' fields among `shapes`, in order
    /// (then replacing colliders need not rebuild it).
    pub fn holds(&self, shapes: &[Collider]) -> bool {
        let wanted = distinct_fields(shapes);
        wanted.len() == self.fields.len() && wanted.iter().zip(&self.fields).all(|(a, b)| Arc::ptr_eq(a, b))
    }

    /// The layer a mesh collider's field starts at (0 for other shapes, whose records do not
    /// read it). The atlas holds every field of the colliders it was built for
    /// ([`FieldAtlas::holds`]).
    pub fn first_layer(&self, shape: &Collider) -> u32 {
        let Collider::Mesh { field, .. } = shape else { return 0 };
        let k = self.fields.iter().position(|f| Arc::ptr_eq(f, field)).expect("the atlas holds the colliders' fields");
        self.first_layers[k]
    }

    /// Bytes the texture takes.
    pub fn bytes(&self) -> u64 {
        let size = self.texture.size();
        4 * u64::from(size.width) * u64::from(size.height) * u64::from(size.depth_or_array_layers)
    }
}

/// The fields of the mesh colliders among `shapes`, each once, in collider order.
fn distinct_fields(shapes: &[Collider]) -> Vec<Arc<DistanceField>> {
    let mut fields: Vec<Arc<DistanceField>> = Vec::new();
    for shape in shapes {
        if let Collider::Mesh { field, .. } = shape {
            if !fields.iter().any(|f| Arc::ptr_eq(f, field)) {
                fields.push(field.clone());
            }
        }
    }
    fields
}
