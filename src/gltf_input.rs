//! glTF 2.0 input: a cloth, its pins and material maps, and its mesh colliders from a `.gltf` or
//! `.glb` file.
//!
//! Every triangle primitive of the scene's nodes (the default scene, else the first, else every
//! root node) is placed by its node's world transform. Nodes whose name starts with `collider`
//! (any case), and their children, are colliders ([`Collider::mesh`]); the rest is the cloth.
//! As with OBJ files ([`ClothMesh::from_obj`]), a cloth vertex is a position: corners at equal
//! positions are one vertex, so vertices split at UV or normal seams, and meshes of several
//! nodes that meet, are welded back; vertices are numbered in the order the triangles first use
//! them, and a welded vertex keeps the texture coordinate and material scales of its first
//! corner. Texture coordinates follow OBJ's convention (`v` up: glTF's `v` is turned into
//! `1 − v`), so a cloth exported both ways loads the same.
//!
//! Painted attributes (the common "paint the pins" workflow):
//! - pins: a vertex whose colour (`COLOR_0`) has red above 0.5, or whose custom `_PIN`
//!   attribute is above 0.5; a welded vertex is pinned if any of its corners is;
//! - material maps ([`ClothModel::with_mass_scales`], [`ClothModel::with_stiffness_scales`]):
//!   `_MASS` scales a particle's mass, `_STIFFNESS` the stretch constraints and `_BENDING` the
//!   hinges around it (each constraint takes the mean of its particles'); a vertex without the
//!   attribute takes 1.
//!
//! Buffers are read here, from the GLB's binary chunk, a `data:` URI or a file beside the
//! `.gltf`, and every accessor is checked against its buffer view and buffer before it is read:
//! a broken file is an [`Error::Gltf`] naming the node and primitive, never a panic.

use crate::collision::{Collider, Pose};
use crate::constraints::Kind;
use crate::distance_field::DistanceField;
use crate::error::{Error, GltfError};
use crate::math::bounding_box;
use crate::mesh::ClothMesh;
use crate::model::ClothModel;
use base64::Engine;
use glam::{Mat4, Vec2, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};
use gltf::Accessor;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Nodes whose name starts with this (in any case) are colliders, with their children.
pub const COLLIDER_PREFIX: &str = "collider";
/// Samples along the longest side of a collider node's distance field ([`DistanceField`]).
pub const COLLIDER_FIELD_RESOLUTION: u32 = 64;
/// A colour's red channel, or a `_PIN` value, above this pins the vertex.
pub const PIN_THRESHOLD: f32 = 0.5;

/// A cloth read from a glTF file, with what its vertices were painted with and its colliders.
#[derive(Debug, Clone)]
pub struct GltfCloth {
    /// The cloth's rest mesh, every node's triangles welded by position.
    pub mesh: ClothMesh,
    /// The painted pins, by vertex index, increasing.
    pub pins: Vec<u32>,
    /// Per vertex, the `_MASS` scale (where some primitive has the attribute).
    pub mass_scales: Option<Vec<f32>>,
    /// Per vertex, the `_STIFFNESS` scale of the stretch constraints.
    pub stretch_scales: Option<Vec<f32>>,
    /// Per vertex, the `_BENDING` scale of the hinges.
    pub bending_scales: Option<Vec<f32>>,
    /// One mesh collider per collider node, at its world placement.
    pub colliders: Vec<Collider>,
}

impl GltfCloth {
    /// Loads a `.gltf` (its external buffers beside it) or `.glb` file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let fail = |error| Error::Gltf { path: name.clone(), error };
        let bytes = std::fs::read(path).map_err(|e| fail(GltfError::Read { message: e.to_string() }))?;
        let folder = path.parent().unwrap_or(Path::new("."));
        let external = |uri: &str| {
            let file = folder.join(percent_decoded(uri)?);
            std::fs::read(&file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))
        };
        Self::parse(&bytes, external).map_err(fail)
    }

    /// Reads a `.glb`, or a `.gltf` whose buffers are embedded as `data:` URIs, from memory (a
    /// file dropped on the web page).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        let external = |uri: &str| Err(format!("external buffer `{uri}` cannot be read from memory"));
        Self::parse(bytes, external).map_err(|error| Error::Gltf { path: "<memory>".into(), error })
    }

    /// The cloth as a model of areal `density` (kg/m²), pinned where painted and scaled by its
    /// material maps.
    pub fn model(&self, density: f32) -> Result<ClothModel, Error> {
        let mut model = ClothModel::new(self.mesh.clone(), density, &self.pins)?;
        if let Some(scales) = &self.mass_scales {
            model = model.with_mass_scales(scales)?;
        }
        for (kind, scales) in [(Kind::Stretch, &self.stretch_scales), (Kind::Bending, &self.bending_scales)] {
            if let Some(scales) = scales {
                let means = model.constraint_means(kind, scales)?;
                model = model.with_stiffness_scales(kind, &means)?;
            }
        }
        Ok(model)
    }

    /// Its colliders and a ground plane under them and the cloth, half the scene's size below
    /// its lowest point (at least 5 cm): where the demo and the runner let the cloth fall.
    pub fn colliders_with_ground(&self) -> Vec<Collider> {
        let (mut low, mut high) = bounding_box(&self.mesh.positions);
        for (collider_low, collider_high) in self.colliders.iter().filter_map(Collider::bounds) {
            (low, high) = (low.min(collider_low), high.max(collider_high));
        }
        let ground = low.y - 0.5 * (high - low).max_element().max(0.1);
        self.colliders.iter().cloned().chain([Collider::ground(ground)]).collect()
    }

    fn parse(bytes: &[u8], external: impl Fn(&str) -> Result<Vec<u8>, String>) -> Result<Self, GltfError> {
        let document = gltf::Gltf::from_slice(bytes).map_err(|e| GltfError::Read { message: e.to_string() })?;
        let buffers = load_buffers(&document, external)?;
        let mut cloth = Soup::default();
        let mut colliders = Vec::new();
        let mut visited = vec![false; document.nodes().len()];
        for root in scene_roots(&document) {
            let mut walk = Walk { buffers: &buffers, visited: &mut visited, cloth: &mut cloth };
            walk.node(root, Mat4::IDENTITY, &mut colliders)?;
        }
        if cloth.corners.is_empty() {
            return Err(GltfError::NoCloth);
        }
        let welded = cloth.welded();
        let mesh = ClothMesh::new(welded.positions, welded.triangles, Some(welded.uvs)).map_err(|e| match e {
            Error::Mesh(error) => GltfError::Mesh { node: None, error },
            other => GltfError::Read { message: other.to_string() },
        })?;
        let colliders = colliders.into_iter().map(|(node, soup)| collider(&node, soup)).collect::<Result<_, _>>()?;
        Ok(Self {
            mesh,
            pins: welded.pins,
            mass_scales: welded.scales[MASS].clone(),
            stretch_scales: welded.scales[STIFFNESS].clone(),
            bending_scales: welded.scales[BENDING].clone(),
            colliders,
        })
    }
}

/// The custom attributes of the material maps, by their name after the underscore, in
/// [`Corner::scales`] order.
const SCALE_ATTRIBUTES: [&str; 3] = ["MASS", "STIFFNESS", "BENDING"];
const MASS: usize = 0;
const STIFFNESS: usize = 1;
const BENDING: usize = 2;

/// One corner of a triangle: its world position and what its vertex was painted with.
#[derive(Debug, Clone, Copy)]
struct Corner {
    position: Vec3,
    uv: Vec2,
    pinned: bool,
    /// `_MASS`, `_STIFFNESS`, `_BENDING` where the primitive has them.
    scales: [Option<f32>; 3],
}

/// Triangle corners, three by three.
#[derive(Debug, Default)]
struct Soup {
    corners: Vec<Corner>,
}

/// A soup welded by position.
struct Welded {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    uvs: Vec<Vec2>,
    pins: Vec<u32>,
    scales: [Option<Vec<f32>>; 3],
}

impl Soup {
    /// Equal positions made one vertex, numbered by first use; a vertex keeps its first corner's
    /// texture coordinate and scales, and is pinned if any of its corners is.
    fn welded(&self) -> Welded {
        let mut vertex_of_position = HashMap::new();
        let mut firsts: Vec<Corner> = Vec::new();
        let mut pinned: Vec<bool> = Vec::new();
        let vertices: Vec<u32> = (self.corners.iter())
            .map(|corner| {
                // + 0.0 turns −0.0 into 0.0, so that the two weld.
                let key = (corner.position + 0.0).to_array().map(f32::to_bits);
                let vertex = *vertex_of_position.entry(key).or_insert_with(|| {
                    firsts.push(*corner);
                    pinned.push(false);
                    firsts.len() as u32 - 1
                });
                pinned[vertex as usize] |= corner.pinned;
                vertex
            })
            .collect();
        let scales = std::array::from_fn(|k| {
            let painted = firsts.iter().any(|c| c.scales[k].is_some());
            painted.then(|| firsts.iter().map(|c| c.scales[k].unwrap_or(1.0)).collect())
        });
        Welded {
            positions: firsts.iter().map(|c| c.position + 0.0).collect(),
            triangles: vertices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
            uvs: firsts.iter().map(|c| c.uv).collect(),
            pins: (0..pinned.len() as u32).filter(|&v| pinned[v as usize]).collect(),
            scales,
        }
    }
}

/// The roots of the nodes to read: the default scene's, else the first scene's, else every node
/// that is no other's child.
fn scene_roots(document: &gltf::Document) -> Vec<gltf::Node<'_>> {
    if let Some(scene) = document.default_scene().or_else(|| document.scenes().next()) {
        return scene.nodes().collect();
    }
    let mut child = vec![false; document.nodes().len()];
    document.nodes().flat_map(|n| n.children()).for_each(|c| child[c.index()] = true);
    document.nodes().filter(|n| !child[n.index()]).collect()
}

/// A walk down the node hierarchy.
struct Walk<'a> {
    buffers: &'a [Vec<u8>],
    visited: &'a mut [bool],
    cloth: &'a mut Soup,
}

impl Walk<'_> {
    /// Adds `node`'s and its children's triangles, placed by `parent`'s world transform times
    /// theirs, to the cloth, or to `colliders` from a collider node down (one collider per
    /// collider node reached from above).
    fn node(
        &mut self,
        node: gltf::Node<'_>,
        parent: Mat4,
        colliders: &mut Vec<(String, Soup)>,
    ) -> Result<(), GltfError> {
        if std::mem::replace(&mut self.visited[node.index()], true) {
            return Err(GltfError::Hierarchy { node: node_name(&node) });
        }
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        let is_collider = node.name().is_some_and(|n| n.to_lowercase().starts_with(COLLIDER_PREFIX));
        if is_collider {
            let mut soup = Soup::default();
            let name = node_name(&node);
            self.collider_node(node, world, &mut soup)?;
            colliders.push((name, soup));
            return Ok(());
        }
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                let corners = read_primitive(&primitive, world, self.buffers)
                    .map_err(|reason| primitive_error(&node, &primitive, reason))?;
                self.cloth.corners.extend(corners);
            }
        }
        for child in node.children() {
            self.node(child, world, colliders)?;
        }
        Ok(())
    }

    /// Adds a collider node's and its children's triangles to `soup`.
    fn collider_node(&mut self, node: gltf::Node<'_>, world: Mat4, soup: &mut Soup) -> Result<(), GltfError> {
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                let corners = read_primitive(&primitive, world, self.buffers)
                    .map_err(|reason| primitive_error(&node, &primitive, reason))?;
                soup.corners.extend(corners);
            }
        }
        for child in node.children() {
            if std::mem::replace(&mut self.visited[child.index()], true) {
                return Err(GltfError::Hierarchy { node: node_name(&child) });
            }
            let child_world = world * Mat4::from_cols_array_2d(&child.transform().matrix());
            self.collider_node(child, child_world, soup)?;
        }
        Ok(())
    }
}

/// The mesh collider of a collider node's triangles (welded; closed, for its distance field).
fn collider(node: &str, soup: Soup) -> Result<Collider, GltfError> {
    let welded = soup.welded();
    let mesh = ClothMesh::new(welded.positions, welded.triangles, None).map_err(|e| match e {
        Error::Mesh(error) => GltfError::Mesh { node: Some(node.into()), error },
        other => GltfError::Collider { node: node.into(), message: other.to_string() },
    })?;
    let field = DistanceField::from_mesh(&mesh, COLLIDER_FIELD_RESOLUTION)
        .map_err(|e| GltfError::Collider { node: node.into(), message: e.to_string() })?;
    Ok(Collider::mesh(Arc::new(field), Pose::IDENTITY))
}

/// A node's name, or `#index` where it has none.
fn node_name(node: &gltf::Node<'_>) -> String {
    node.name().map_or_else(|| format!("#{}", node.index()), str::to_string)
}

fn primitive_error(node: &gltf::Node<'_>, primitive: &gltf::Primitive<'_>, reason: String) -> GltfError {
    GltfError::Primitive { node: node_name(node), primitive: primitive.index(), reason }
}

/// The triangle corners of `primitive`, placed by `world` (a mirroring transform turns each
/// triangle over, so that it stays counter-clockwise seen from its front).
fn read_primitive(primitive: &gltf::Primitive<'_>, world: Mat4, buffers: &[Vec<u8>]) -> Result<Vec<Corner>, String> {
    let positions_accessor = primitive.get(&Semantic::Positions).ok_or("it has no POSITION attribute")?;
    let raw_positions = read_attribute(&positions_accessor, buffers, "POSITION", &[Dimensions::Vec3], false)?;
    let count = positions_accessor.count();
    let positions: Vec<Vec3> =
        raw_positions.chunks_exact(3).map(|p| world.transform_point3(Vec3::from_slice(p))).collect();
    if let Some(vertex) = positions.iter().position(|p| !p.is_finite()) {
        return Err(format!("vertex {vertex} has a non-finite position"));
    }
    let uvs = match primitive.get(&Semantic::TexCoords(0)) {
        Some(accessor) => {
            let raw = read_attribute(&accessor, buffers, "TEXCOORD_0", &[Dimensions::Vec2], true)?;
            same_count(&accessor, count, "TEXCOORD_0")?;
            raw.chunks_exact(2).map(|uv| Vec2::new(uv[0], 1.0 - uv[1])).collect()
        }
        None => vec![Vec2::ZERO; count],
    };
    let mut pinned = vec![false; count];
    if let Some(accessor) = primitive.get(&Semantic::Colors(0)) {
        let raw = read_attribute(&accessor, buffers, "COLOR_0", &[Dimensions::Vec3, Dimensions::Vec4], true)?;
        same_count(&accessor, count, "COLOR_0")?;
        let channels = accessor.dimensions().multiplicity();
        (pinned.iter_mut().zip(raw.chunks_exact(channels))).for_each(|(p, colour)| *p |= colour[0] > PIN_THRESHOLD);
    }
    if let Some(pin) = scalar_attribute(primitive, buffers, "PIN", count)? {
        (pinned.iter_mut().zip(pin)).for_each(|(p, value)| *p |= value > PIN_THRESHOLD);
    }
    let mut scales = [None, None, None];
    for (scale, name) in scales.iter_mut().zip(SCALE_ATTRIBUTES) {
        *scale = scalar_attribute(primitive, buffers, name, count)?;
    }
    let indices = match primitive.indices() {
        Some(accessor) => read_indices(&accessor, buffers)?,
        None => (0..count as u32).collect(),
    };
    if let Some(&index) = indices.iter().find(|&&i| i as usize >= count) {
        return Err(format!("index {index} is past its {count} vertices"));
    }
    let triangles = triangles_of(primitive.mode(), &indices)?;
    let mirrored = world.determinant() < 0.0;
    let corner = |v: u32| {
        let v = v as usize;
        Corner {
            position: positions[v],
            uv: uvs[v],
            pinned: pinned[v],
            scales: scales.each_ref().map(|s| s.as_ref().map(|s| s[v])),
        }
    };
    Ok(triangles.into_iter().flat_map(|[a, b, c]| if mirrored { [a, c, b] } else { [a, b, c] }).map(corner).collect())
}

/// The triangles of `indices` drawn as `mode`: lists of three, strips and fans (every other
/// strip triangle turned, so that all keep the winding of the first).
fn triangles_of(mode: Mode, indices: &[u32]) -> Result<Vec<[u32; 3]>, String> {
    match mode {
        Mode::Triangles if indices.len().is_multiple_of(3) => {
            Ok(indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect())
        }
        Mode::Triangles => Err(format!("{} indices do not make whole triangles", indices.len())),
        Mode::TriangleStrip => Ok((0..indices.len().saturating_sub(2))
            .map(|k| {
                if k % 2 == 0 {
                    [indices[k], indices[k + 1], indices[k + 2]]
                } else {
                    [indices[k + 1], indices[k], indices[k + 2]]
                }
            })
            .collect()),
        Mode::TriangleFan => {
            Ok((1..indices.len().saturating_sub(1)).map(|k| [indices[0], indices[k], indices[k + 1]]).collect())
        }
        other => Err(format!("its mode is {other:?}, not triangles")),
    }
}

/// The custom scalar attribute `_name` of `primitive`, one value per vertex, if it has one.
fn scalar_attribute(
    primitive: &gltf::Primitive<'_>,
    buffers: &[Vec<u8>],
    name: &str,
    count: usize,
) -> Result<Option<Vec<f32>>, String> {
    let Some(accessor) = primitive.get(&Semantic::Extras(name.into())) else {
        return Ok(None);
    };
    let label = format!("_{name}");
    let values = read_attribute(&accessor, buffers, &label, &[Dimensions::Scalar], true)?;
    same_count(&accessor, count, &label)?;
    Ok(Some(values))
}

fn same_count(accessor: &Accessor<'_>, count: usize, name: &str) -> Result<(), String> {
    match accessor.count() {
        n if n == count => Ok(()),
        n => Err(format!("{name} has {n} values for {count} vertices")),
    }
}

/// The components of a float attribute (normalised integers too, where `normalised_too`),
/// checked to be one of `shapes`.
fn read_attribute(
    accessor: &Accessor<'_>,
    buffers: &[Vec<u8>],
    name: &str,
    shapes: &[Dimensions],
    normalised_too: bool,
) -> Result<Vec<f32>, String> {
    if !shapes.contains(&accessor.dimensions()) {
        return Err(format!("{name} is a {:?}, not a {shapes:?}", accessor.dimensions()));
    }
    let float = accessor.data_type() == DataType::F32;
    let normalised = normalised_too && accessor.normalized() && accessor.data_type() != DataType::U32;
    if !(float || normalised) {
        return Err(format!(
            "{name} is {:?}, not floats{}",
            accessor.data_type(),
            if normalised_too { " or normalised integers" } else { "" }
        ));
    }
    let bytes = accessor_bytes(accessor, buffers).map_err(|e| format!("{name}: {e}"))?;
    Ok(bytes.map(|b| component(accessor.data_type(), b)).collect())
}

/// The vertex indices of an index accessor (unsigned scalars).
fn read_indices(accessor: &Accessor<'_>, buffers: &[Vec<u8>]) -> Result<Vec<u32>, String> {
    if accessor.dimensions() != Dimensions::Scalar {
        return Err(format!("the indices are a {:?}, not scalars", accessor.dimensions()));
    }
    let data_type = accessor.data_type();
    if !matches!(data_type, DataType::U8 | DataType::U16 | DataType::U32) {
        return Err(format!("the indices are {data_type:?}, not unsigned integers"));
    }
    let bytes = accessor_bytes(accessor, buffers).map_err(|e| format!("indices: {e}"))?;
    Ok(bytes.map(|b| unsigned(data_type, b)).collect())
}

/// The bytes of each component of an accessor's elements, element by element, after checking
/// that every element lies within its buffer view and the view within its buffer.
fn accessor_bytes<'a>(
    accessor: &Accessor<'_>,
    buffers: &'a [Vec<u8>],
) -> Result<impl Iterator<Item = &'a [u8]> + 'a, String> {
    if accessor.sparse().is_some() {
        return Err(format!("accessor {} is sparse, which is not supported", accessor.index()));
    }
    let view = accessor.view().ok_or_else(|| format!("accessor {} has no buffer view", accessor.index()))?;
    let data = &buffers[view.buffer().index()];
    let view_end = view.offset().checked_add(view.length()).filter(|&end| end <= data.len());
    let view_end = view_end.ok_or_else(|| format!("buffer view {} runs past its buffer", view.index()))?;
    let bytes = &data[view.offset()..view_end];
    let size = accessor.data_type().size();
    let components = accessor.dimensions().multiplicity();
    let element = size * components;
    let stride = view.stride().unwrap_or(element);
    let (offset, count) = (accessor.offset(), accessor.count());
    let end = match count {
        0 => Some(offset),
        n => (n - 1).checked_mul(stride).and_then(|s| s.checked_add(offset + element)),
    };
    if end.is_none_or(|end| end > bytes.len()) || stride < element {
        return Err(format!("accessor {} reads past buffer view {}", accessor.index(), view.index()));
    }
    Ok((0..count).flat_map(move |k| {
        let at = offset + k * stride;
        (0..components).map(move |c| &bytes[at + c * size..at + (c + 1) * size])
    }))
}

/// A float component, or a normalised integer's value (glTF 2.0 §3.11).
fn component(data_type: DataType, bytes: &[u8]) -> f32 {
    match data_type {
        DataType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        DataType::U8 => f32::from(bytes[0]) / 255.0,
        DataType::U16 => f32::from(u16::from_le_bytes([bytes[0], bytes[1]])) / 65535.0,
        DataType::I8 => (f32::from(bytes[0] as i8) / 127.0).max(-1.0),
        DataType::I16 => (f32::from(i16::from_le_bytes([bytes[0], bytes[1]])) / 32767.0).max(-1.0),
        DataType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32,
    }
}

fn unsigned(data_type: DataType, bytes: &[u8]) -> u32 {
    match data_type {
        DataType::U8 => u32::from(bytes[0]),
        DataType::U16 => u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        _ => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
    }
}

/// Every buffer's data: the GLB's binary chunk, a `data:` URI's bytes, or what `external` reads
/// for a URI; at least as long as the buffer declares.
fn load_buffers(
    document: &gltf::Gltf,
    external: impl Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<Vec<u8>>, GltfError> {
    document
        .buffers()
        .map(|buffer| {
            let fail = |message| GltfError::Buffer { buffer: buffer.index(), message };
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => {
                    document.blob.clone().ok_or_else(|| fail("the GLB has no binary chunk".into()))?
                }
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => data_uri(uri).map_err(fail)?,
                gltf::buffer::Source::Uri(uri) => external(uri).map_err(fail)?,
            };
            if data.len() < buffer.length() {
                return Err(fail(format!("{} bytes, {} declared", data.len(), buffer.length())));
            }
            Ok(data)
        })
        .collect()
}

/// The bytes of a base64 `data:` URI.
fn data_uri(uri: &str) -> Result<Vec<u8>, String> {
    let (_, payload) = uri.split_once(";base64,").ok_or("a data URI that is not base64")?;
    base64::engine::general_purpose::STANDARD.decode(payload).map_err(|e| format!("its data URI: {e}"))
}

/// A relative URI with its `%XX` escapes decoded.
fn percent_decoded(uri: &str) -> Result<String, String> {
    let mut bytes = Vec::with_capacity(uri.len());
    let mut rest = uri.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = tail.get(..2).and_then(|h| std::str::from_utf8(h).ok());
            let value = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or(format!("a bad escape in `{uri}`"))?;
            bytes.push(value);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).map_err(|_| format!("`{uri}` is not UTF-8 once decoded"))
}
