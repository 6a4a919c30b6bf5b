//! Draws a cloth scene with wgpu: the cloth straight from the solver's position and normal
//! buffers (no copy through the CPU), sphere, capsule, box, mesh and plane colliders, and markers
//! on pinned or grabbed particles. It records into any colour target with a [`DEPTH_FORMAT`]
//! depth buffer, so the window and the headless screenshots share it.

use super::camera::OrbitCamera;
use crate::bodies::GpuBody;
use crate::collision::{Collider, Pose};
use crate::distance_field::DistanceField;
use crate::gpu::GpuSolver;
use crate::math::bounding_box;
use crate::model::ClothModel;
use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec2, Vec3};
use std::mem::size_of;
use std::ops::Range;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// Depth buffer format the renderer's pipelines expect.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Background colour (linear RGB).
const SKY: wgpu::Color = wgpu::Color { r: 0.26, g: 0.32, b: 0.40, a: 1.0 };
/// Direction towards the light: high, from the front right.
const LIGHT_DIRECTION: Vec3 = Vec3::new(0.45, 0.8, 0.4);
/// Linear albedos of the colliders and markers.
const COLLIDER_ALBEDO: [f32; 4] = [0.30, 0.42, 0.30, 1.0];
const GROUND_ALBEDO: [f32; 4] = [0.42, 0.42, 0.40, 1.0];
const PIN_ALBEDO: [f32; 4] = [0.95, 0.55, 0.05, 1.0];
const GRAB_ALBEDO: [f32; 4] = [0.95, 0.90, 0.15, 1.0];
/// Rings and segments of the unit sphere every rounded shape is drawn from.
const SPHERE_RINGS: u32 = 25;
const SPHERE_SEGMENTS: u32 = 48;

/// The camera and light as `shaders/viewer/view.wgsl` reads them.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct ViewUniform {
    /// World-to-clip matrix, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// Camera position (xyz, m); w unused.
    pub eye: [f32; 4],
    /// Unit vector towards the light (xyz); w unused.
    pub light_direction: [f32; 4],
}

/// One instanced rounded shape (`shaders/viewer/shapes.wgsl`): a sphere, capsule or box
/// collider, or a marker.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct ShapeInstance {
    /// Centre (xyz, m) and rounding radius (w, m).
    pub center_rounding: [f32; 4],
    /// Half extents of the box the rounding is wrapped around (xyz, m); w unused.
    pub half_extents: [f32; 4],
    /// Rotation (unit quaternion x, y, z, w).
    pub rotation: [f32; 4],
    /// Linear RGB albedo; w unused.
    pub albedo: [f32; 4],
}

impl ShapeInstance {
    /// A sphere.
    fn sphere(center: Vec3, radius: f32, albedo: [f32; 4]) -> Self {
        Self::rounded_box(center, Vec3::ZERO, Quat::IDENTITY, radius, albedo)
    }

    /// A box of half extents `half_extents` rotated by `rotation`, rounded by `rounding`.
    fn rounded_box(center: Vec3, half_extents: Vec3, rotation: Quat, rounding: f32, albedo: [f32; 4]) -> Self {
        Self {
            center_rounding: center.extend(rounding).to_array(),
            half_extents: half_extents.extend(0.0).to_array(),
            rotation: rotation.to_array(),
            albedo,
        }
    }

    /// A collider's shape, or `None` for a plane or a mesh (drawn by their own pipelines).
    fn collider(collider: &Collider) -> Option<Self> {
        Some(match collider.normalized() {
            Collider::Plane { .. } => return None,
            Collider::Sphere { center, radius } => Self::sphere(center, radius, COLLIDER_ALBEDO),
            Collider::Capsule { a, b, radius } => {
                let axis = b - a;
                let rotation = Quat::from_rotation_arc(Vec3::Y, axis.try_normalize().unwrap_or(Vec3::Y));
                let half_length = Vec3::new(0.0, 0.5 * axis.length(), 0.0);
                Self::rounded_box(0.5 * (a + b), half_length, rotation, radius, COLLIDER_ALBEDO)
            }
            Collider::Box { center, half_extents, rotation, rounding } => {
                Self::rounded_box(center, half_extents, rotation, rounding, COLLIDER_ALBEDO)
            }
            Collider::Mesh { .. } => return None,
        })
    }
}

/// A vertex of a mesh collider's triangles in the mesh's own frame (`shaders/viewer/meshes.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct MeshVertex {
    /// Position in the mesh's frame (m).
    pub position: [f32; 3],
    /// The triangle's unit normal in the mesh's frame.
    pub normal: [f32; 3],
    /// Linear RGB albedo.
    pub albedo: [f32; 3],
}

/// A mesh collider's pose, one instance per mesh (`shaders/viewer/meshes.wgsl`): the triangles
/// are uploaded once, and a moving mesh writes only this.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct MeshInstance {
    /// Translation (m); w unused.
    pub translation: [f32; 4],
    /// Rotation as a unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
}

impl MeshInstance {
    fn new(pose: &Pose) -> Self {
        Self { translation: pose.translation.extend(0.0).to_array(), rotation: pose.rotation.to_array() }
    }
}

/// The mesh colliders' triangles in their own frames, one vertex per corner with its triangle's
/// normal, and each mesh's range of vertices.
fn mesh_vertices(fields: &[Arc<DistanceField>]) -> (Vec<MeshVertex>, Vec<Range<u32>>) {
    let mut vertices = Vec::new();
    let mut ranges = Vec::with_capacity(fields.len());
    for field in fields {
        let mesh = field.mesh();
        let start = vertices.len() as u32;
        for triangle in &mesh.triangles {
            let corners = triangle.map(|i| mesh.positions[i as usize]);
            let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]).normalize_or_zero();
            let albedo = [COLLIDER_ALBEDO[0], COLLIDER_ALBEDO[1], COLLIDER_ALBEDO[2]];
            vertices.extend(corners.map(|p| MeshVertex { position: p.to_array(), normal: normal.to_array(), albedo }));
        }
        ranges.push(start..vertices.len() as u32);
    }
    (vertices, ranges)
}

/// The mesh colliders' fields and poses (rotations normalised), in collider order.
fn mesh_placements(colliders: &[Collider]) -> (Vec<Arc<DistanceField>>, Vec<MeshInstance>) {
    colliders
        .iter()
        .filter_map(|collider| match collider.normalized() {
            Collider::Mesh { field, pose } => Some((field, MeshInstance::new(&pose))),
            _ => None,
        })
        .unzip()
}

/// Whether two lists hold the same fields (the same ones, not equal ones) in the same order.
fn same_fields(a: &[Arc<DistanceField>], b: &[Arc<DistanceField>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(f, g)| Arc::ptr_eq(f, g))
}

/// One instanced plane (`shaders/viewer/planes.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct PlaneInstance {
    /// Unit normal (xyz) and offset along it (w, m).
    pub normal_offset: [f32; 4],
    /// Linear RGB albedo; w unused.
    pub albedo: [f32; 4],
}

/// A small sphere drawn on a particle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    /// Where (m).
    pub position: Vec3,
    /// What it marks.
    pub kind: MarkerKind,
}

/// What a [`Marker`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerKind {
    /// A pinned particle.
    Pin,
    /// The particle being dragged.
    Grab,
}

/// Which parts of the scene to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawOptions {
    /// The cloth.
    pub cloth: bool,
    /// The colliders.
    pub colliders: bool,
    /// Pin and grab markers.
    pub markers: bool,
    /// The rigid bodies.
    pub bodies: bool,
}

impl Default for DrawOptions {
    fn default() -> Self {
        Self { cloth: true, colliders: true, markers: true, bodies: true }
    }
}

/// Everything besides the cloth that one frame shows.
#[derive(Debug, Clone, Copy)]
pub struct SceneView<'a> {
    /// The camera.
    pub camera: &'a OrbitCamera,
    /// Target width / height.
    pub aspect: f32,
    /// Colliders to draw.
    pub colliders: &'a [Collider],
    /// Markers to draw.
    pub markers: &'a [Marker],
}

/// A vertex buffer of instances that grows (geometrically) only when a frame needs more.
struct InstanceBuffer {
    buffer: wgpu::Buffer,
    capacity: usize,
    count: u32,
    label: &'static str,
}

impl InstanceBuffer {
    fn new<T: Pod>(device: &wgpu::Device, label: &'static str, capacity: usize) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: (capacity * size_of::<T>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self { buffer, capacity, count: 0, label }
    }

    fn write<T: Pod>(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, items: &[T]) {
        if items.len() > self.capacity {
            *self = Self::new::<T>(device, self.label, items.len().next_power_of_two());
        }
        queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(items));
        self.count = items.len() as u32;
    }
}

/// The scene renderer. Create once per colour format; call [`SceneRenderer::set_cloth`] when
/// the cloth changes, [`SceneRenderer::prepare`] every frame, then [`SceneRenderer::render`]
/// (or [`SceneRenderer::draw`] into a pass of your own).
pub struct SceneRenderer {
    view_buffer: wgpu::Buffer,
    view_bind_group: wgpu::BindGroup,
    cloth_pipeline: wgpu::RenderPipeline,
    shape_pipeline: wgpu::RenderPipeline,
    plane_pipeline: wgpu::RenderPipeline,
    mesh_pipeline: wgpu::RenderPipeline,
    /// The rigid bodies, drawn from the solver's `bodies` buffer as instance data.
    body_pipeline: wgpu::RenderPipeline,
    shape_vertices: wgpu::Buffer,
    shape_indices: wgpu::Buffer,
    shape_index_count: u32,
    /// Each particle's rest UV and its cloth's index ([`cloth_vertices`]).
    cloth_vertices: wgpu::Buffer,
    marker_radius: f32,
    /// Shape instances: the colliders' first, then the markers.
    shapes: InstanceBuffer,
    collider_shapes: u32,
    planes: InstanceBuffer,
    /// The mesh colliders' vertices in their own frames, the fields they were built from, each
    /// mesh's range of vertices, and the meshes' poses.
    mesh_vertices: InstanceBuffer,
    mesh_fields: Vec<Arc<DistanceField>>,
    mesh_ranges: Vec<Range<u32>>,
    mesh_poses: InstanceBuffer,
}

impl SceneRenderer {
    /// Builds the pipelines for colour targets of `format` (depth: [`DEPTH_FORMAT`]) and the
    /// per-cloth data of `model`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, model: &ClothModel) -> Self {
        let view_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("drape viewer camera"),
            size: size_of::<ViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("drape viewer camera layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(size_of::<ViewUniform>() as u64),
                },
                count: None,
            }],
        });
        let view_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("drape viewer camera bind group"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: view_buffer.as_entire_binding() }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("drape viewer pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let builder = PipelineBuilder { device, layout: &pipeline_layout, format };
        let (shape_vertex_data, shape_index_data) = unit_sphere(SPHERE_RINGS, SPHERE_SEGMENTS);
        let (cloth_vertices, marker_radius) = cloth_data(device, model);
        Self {
            cloth_pipeline: builder.cloth(),
            shape_pipeline: builder.shapes(),
            body_pipeline: builder.bodies(),
            plane_pipeline: builder.planes(),
            mesh_pipeline: builder.meshes(),
            view_buffer,
            view_bind_group,
            shape_vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("drape viewer sphere vertices"),
                contents: bytemuck::cast_slice(&shape_vertex_data),
                usage: wgpu::BufferUsages::VERTEX,
            }),
            shape_indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("drape viewer sphere indices"),
                contents: bytemuck::cast_slice(&shape_index_data),
                usage: wgpu::BufferUsages::INDEX,
            }),
            shape_index_count: shape_index_data.len() as u32,
            cloth_vertices,
            marker_radius,
            shapes: InstanceBuffer::new::<ShapeInstance>(device, "drape viewer shape instances", 64),
            collider_shapes: 0,
            planes: InstanceBuffer::new::<PlaneInstance>(device, "drape viewer plane instances", 8),
            mesh_vertices: InstanceBuffer::new::<MeshVertex>(device, "drape viewer mesh vertices", 1),
            mesh_fields: Vec::new(),
            mesh_ranges: Vec::new(),
            mesh_poses: InstanceBuffer::new::<MeshInstance>(device, "drape viewer mesh poses", 1),
        }
    }

    /// Uploads the per-vertex data of a new cloth (rest-state UVs) — on a scene change, not
    /// per frame.
    pub fn set_cloth(&mut self, device: &wgpu::Device, model: &ClothModel) {
        (self.cloth_vertices, self.marker_radius) = cloth_data(device, model);
    }

    /// Writes this frame's camera, colliders and markers.
    pub fn prepare(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, scene: &SceneView<'_>) {
        let eye = scene.camera.eye();
        let view = ViewUniform {
            view_proj: scene.camera.view_projection(scene.aspect).to_cols_array_2d(),
            eye: eye.extend(1.0).to_array(),
            light_direction: LIGHT_DIRECTION.normalize().extend(0.0).to_array(),
        };
        queue.write_buffer(&self.view_buffer, 0, bytemuck::bytes_of(&view));
        let mut shapes: Vec<ShapeInstance> = scene.colliders.iter().filter_map(ShapeInstance::collider).collect();
        let planes: Vec<PlaneInstance> = scene
            .colliders
            .iter()
            .filter_map(|collider| match collider.normalized() {
                Collider::Plane { normal, offset } => {
                    Some(PlaneInstance { normal_offset: normal.extend(offset).to_array(), albedo: GROUND_ALBEDO })
                }
                _ => None,
            })
            .collect();
        self.collider_shapes = shapes.len() as u32;
        shapes.extend(scene.markers.iter().map(|marker| {
            let (scale, albedo) = match marker.kind {
                MarkerKind::Pin => (1.0, PIN_ALBEDO),
                MarkerKind::Grab => (1.5, GRAB_ALBEDO),
            };
            ShapeInstance::sphere(marker.position, scale * self.marker_radius, albedo)
        }));
        self.shapes.write(device, queue, &shapes);
        self.planes.write(device, queue, &planes);
        let (fields, poses) = mesh_placements(scene.colliders);
        if !same_fields(&fields, &self.mesh_fields) {
            let (vertices, ranges) = mesh_vertices(&fields);
            self.mesh_vertices.write(device, queue, &vertices);
            (self.mesh_fields, self.mesh_ranges) = (fields, ranges);
        }
        self.mesh_poses.write(device, queue, &poses);
    }

    /// Records a render pass that clears `colour` and `depth` and draws the scene, into the
    /// pixel rectangle `viewport` (`[x, y, width, height]`) or the whole target.
    pub fn render(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        colour: &wgpu::TextureView,
        depth: &wgpu::TextureView,
        viewport: Option<[f32; 4]>,
        solver: &GpuSolver,
        options: DrawOptions,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("drape viewer scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: colour,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(SKY), store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some([x, y, width, height]) = viewport {
            pass.set_viewport(x, y, width, height, 0.0, 1.0);
        }
        self.draw(&mut pass, solver, options);
    }

    /// Draws into a pass of the caller's (one colour target of the renderer's format, a
    /// [`DEPTH_FORMAT`] depth attachment).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, solver: &GpuSolver, options: DrawOptions) {
        pass.set_bind_group(0, &self.view_bind_group, &[]);
        if options.colliders && self.planes.count > 0 {
            pass.set_pipeline(&self.plane_pipeline);
            pass.set_vertex_buffer(0, self.planes.buffer.slice(..));
            pass.draw(0..6, 0..self.planes.count);
        }
        if options.colliders && !self.mesh_ranges.is_empty() {
            pass.set_pipeline(&self.mesh_pipeline);
            pass.set_vertex_buffer(0, self.mesh_vertices.buffer.slice(..));
            pass.set_vertex_buffer(1, self.mesh_poses.buffer.slice(..));
            for (mesh, vertices) in (0u32..).zip(&self.mesh_ranges) {
                pass.draw(vertices.clone(), mesh..mesh + 1);
            }
        }
        // Collider shapes first, then markers.
        let first = if options.colliders { 0 } else { self.collider_shapes };
        let end = if options.markers { self.shapes.count } else { self.collider_shapes };
        let shapes = first..end;
        if !shapes.is_empty() {
            pass.set_pipeline(&self.shape_pipeline);
            pass.set_vertex_buffer(0, self.shape_vertices.slice(..));
            pass.set_vertex_buffer(1, self.shapes.buffer.slice(..));
            pass.set_index_buffer(self.shape_indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.shape_index_count, 0, shapes);
        }
        if options.bodies && solver.body_count() > 0 {
            pass.set_pipeline(&self.body_pipeline);
            pass.set_vertex_buffer(0, self.shape_vertices.slice(..));
            pass.set_vertex_buffer(1, solver.bodies_buffer().slice(..));
            pass.set_index_buffer(self.shape_indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.shape_index_count, 0, 0..solver.body_count());
        }
        if options.cloth {
            pass.set_pipeline(&self.cloth_pipeline);
            pass.set_vertex_buffer(0, solver.positions_buffer().slice(..));
            pass.set_vertex_buffer(1, solver.normals_buffer().slice(..));
            pass.set_vertex_buffer(2, self.cloth_vertices.slice(..));
            pass.set_index_buffer(solver.index_buffer().slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..solver.index_count(), 0, 0..1);
        }
    }
}

/// A depth buffer matching a colour target's size.
pub struct DepthBuffer {
    view: wgpu::TextureView,
    size: [u32; 2],
}

impl DepthBuffer {
    /// A `width × height` depth buffer of [`DEPTH_FORMAT`].
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("drape viewer depth"),
            size: wgpu::Extent3d { width: width.max(1), height: height.max(1), depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        Self { view: texture.create_view(&Default::default()), size: [width, height] }
    }

    /// The view to attach.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Recreates the buffer if the target changed size (on resize, not per frame).
    pub fn fit(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        if self.size != [width, height] {
            *self = Self::new(device, width, height);
        }
    }
}

/// The rest-state UV buffer of a cloth and the marker radius that suits its edge length.
fn cloth_data(device: &wgpu::Device, model: &ClothModel) -> (wgpu::Buffer, f32) {
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("drape viewer cloth vertices"),
        contents: bytemuck::cast_slice(&cloth_vertices(model)),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let stretch = model.edges();
    let mean_edge = (0..stretch.len()).map(|c| stretch.rest_length(c)).sum::<f32>() / stretch.len().max(1) as f32;
    (buffer, (0.4 * mean_edge).max(1e-3))
}

/// Each particle's rest UV ([`rest_uvs`]) and the index of its cloth ([`ClothModel::cloths`]):
/// each cloth is drawn in colours of its own.
pub fn cloth_vertices(model: &ClothModel) -> Vec<[f32; 3]> {
    let uvs = rest_uvs(model);
    let cloth_of = model.cloths().iter().enumerate().flat_map(|(c, cloth)| cloth.particles.clone().map(move |_| c));
    uvs.iter().zip(cloth_of).map(|(uv, c)| [uv.x, uv.y, c as f32]).collect()
}

/// The mesh's UVs, or — for meshes without any (an OBJ with no `vt`) — a planar projection of
/// the rest shape onto its two widest axes, one UV unit per length of the widest (so checks stay
/// square).
pub fn rest_uvs(model: &ClothModel) -> Vec<Vec2> {
    let mesh = model.mesh();
    if mesh.uvs.iter().any(|uv| *uv != Vec2::ZERO) {
        return mesh.uvs.clone();
    }
    let (min, max) = bounding_box(&mesh.positions);
    let extent = max - min;
    let mut axes = [0usize, 1, 2];
    axes.sort_by(|&a, &b| extent[b].total_cmp(&extent[a]));
    let scale = extent[axes[0]].max(1e-9);
    mesh.positions
        .iter()
        .map(|p| Vec2::new((p[axes[0]] - min[axes[0]]) / scale, (p[axes[1]] - min[axes[1]]) / scale))
        .collect()
}

/// A UV sphere of radius 1: vertices (position = normal) and triangle indices. No vertex lies
/// on a coordinate plane but the poles, which lie exactly on the Y axis: `shapes.wgsl` sends each
/// vertex to the octant of its signs, so an odd `rings` (no equator) and azimuths half a step
/// off the axes (`segments` a multiple of 4) keep every octant's vertices apart.
fn unit_sphere(rings: u32, segments: u32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut vertices = Vec::with_capacity(((rings + 1) * (segments + 1)) as usize);
    for ring in 0..=rings {
        let (sin, cos) = match ring {
            0 => (0.0, 1.0),
            r if r == rings => (0.0, -1.0),
            r => (std::f32::consts::PI * r as f32 / rings as f32).sin_cos(),
        };
        for segment in 0..=segments {
            let azimuth = std::f32::consts::TAU * (segment as f32 + 0.5) / segments as f32;
            vertices.push([sin * azimuth.cos(), cos, sin * azimuth.sin()]);
        }
    }
    let mut indices = Vec::with_capacity((6 * rings * segments) as usize);
    let row = segments + 1;
    for ring in 0..rings {
        for segment in 0..segments {
            let a = ring * row + segment;
            let (b, c, d) = (a + 1, a + row, a + row + 1);
            indices.extend([a, b, c, b, d, c]);
        }
    }
    (vertices, indices)
}

/// Builds the renderer's four pipelines, which differ only in shader and vertex layout.
struct PipelineBuilder<'a> {
    device: &'a wgpu::Device,
    layout: &'a wgpu::PipelineLayout,
    format: wgpu::TextureFormat,
}

const FLOAT3_AT_0: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Float32x3];
const FLOAT3_AT_1: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![1 => Float32x3];
const FLOAT3_AT_2: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![2 => Float32x3];
const SHAPE_INSTANCE: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![1 => Float32x4, 2 => Float32x4, 3 => Float32x4, 4 => Float32x4];
/// The unit sphere's points, which every rounded shape (and body) is drawn from.
const UNIT_SPHERE_VERTICES: wgpu::VertexBufferLayout<'static> = wgpu::VertexBufferLayout {
    array_stride: size_of::<[f32; 3]>() as u64,
    step_mode: wgpu::VertexStepMode::Vertex,
    attributes: &FLOAT3_AT_0,
};
/// A body record's position, rotation, rounding radius and half extents (`body_vertex`).
const BODY_INSTANCE: [wgpu::VertexAttribute; 4] = [
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: std::mem::offset_of!(GpuBody, position) as u64,
        shader_location: 1,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x4,
        offset: std::mem::offset_of!(GpuBody, rotation) as u64,
        shader_location: 2,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32,
        offset: std::mem::offset_of!(GpuBody, radius) as u64,
        shader_location: 3,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: std::mem::offset_of!(GpuBody, half_extents) as u64,
        shader_location: 4,
    },
];
const PLANE_INSTANCE: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4];
const MESH_VERTEX: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x3];
const MESH_INSTANCE: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![3 => Float32x4, 4 => Float32x4];
// The instance attributes above are tightly packed vec4s; the Rust structs must be too.
const _: () = assert!(
    std::mem::offset_of!(ShapeInstance, albedo) == 48
        && size_of::<ShapeInstance>() == 64
        && std::mem::offset_of!(PlaneInstance, albedo) == 16
        && size_of::<PlaneInstance>() == 32
        && std::mem::offset_of!(MeshVertex, albedo) == 24
        && size_of::<MeshVertex>() == 36
        && std::mem::offset_of!(MeshInstance, rotation) == 16
        && size_of::<MeshInstance>() == 32
);

impl PipelineBuilder<'_> {
    fn cloth(&self) -> wgpu::RenderPipeline {
        // The solver's buffers hold a vec4 per particle; the shader reads xyz.
        let particle = |attributes| wgpu::VertexBufferLayout {
            array_stride: 16,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes,
        };
        self.build(
            "cloth",
            super::shaders::CLOTH,
            &[
                Some(particle(&FLOAT3_AT_0)),
                Some(particle(&FLOAT3_AT_1)),
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<[f32; 3]>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &FLOAT3_AT_2,
                }),
            ],
        )
    }

    fn shapes(&self) -> wgpu::RenderPipeline {
        self.build(
            "shape",
            super::shaders::SHAPES,
            &[
                Some(UNIT_SPHERE_VERTICES),
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<ShapeInstance>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &SHAPE_INSTANCE,
                }),
            ],
        )
    }

    /// Rounded shapes whose instances are the solver's body records ([`GpuBody`]): between
    /// frames a body's pose is its position and rotation.
    fn bodies(&self) -> wgpu::RenderPipeline {
        self.build(
            "body",
            super::shaders::SHAPES,
            &[
                Some(UNIT_SPHERE_VERTICES),
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<GpuBody>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &BODY_INSTANCE,
                }),
            ],
        )
    }

    fn planes(&self) -> wgpu::RenderPipeline {
        self.build(
            "plane",
            super::shaders::PLANES,
            &[Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<PlaneInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &PLANE_INSTANCE,
            })],
        )
    }

    fn meshes(&self) -> wgpu::RenderPipeline {
        self.build(
            "mesh",
            super::shaders::MESHES,
            &[
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<MeshVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &MESH_VERTEX,
                }),
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<MeshInstance>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &MESH_INSTANCE,
                }),
            ],
        )
    }

    /// A pipeline whose entry points are `<name>_vertex` and `<name>_fragment` in the module
    /// `view.wgsl` + `stage`. No culling: cloth is two-sided, and the ground may be seen from
    /// below.
    fn build(&self, name: &str, stage: &str, buffers: &[Option<wgpu::VertexBufferLayout<'_>>]) -> wgpu::RenderPipeline {
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(super::shaders::module_source(stage).into()),
        });
        let (vertex, fragment) = (format!("{name}_vertex"), format!("{name}_fragment"));
        self.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(name),
            layout: Some(self.layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some(&vertex),
                compilation_options: Default::default(),
                buffers,
            },
            primitive: wgpu::PrimitiveState { cull_mode: None, ..Default::default() },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(&fragment),
                compilation_options: Default::default(),
                targets: &[Some(self.format.into())],
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}
