//! glTF 2.0 input: a cloth, its pins and material maps, and its mesh colliders from a `.gltf` or
//! `.glb` file.
//!
//! Every triangle primitive of the scene's nodes (the default scene, else the first, else every
//! root node) is placed by its node's world transform. Nodes whose name starts with `collider`
//! (any case), and their children, are colliders ([`Collider::mesh`]); the rest is the cloth.
//! [`load_colliders`] reads each root node of a second file as a collider, whatever its name.
//! As with OBJ files ([`ClothMesh::from_obj`]), a cloth vertex is a position: corners at equal
//! positions are one vertex, so vertices split at UV or normal seams, and meshes of several
//! nodes that meet, are welded back; vertices are numbered in the order the triangles first use
//! them, and a welded vertex keeps the texture coordinate and material scales of its first
//! corner. Texture coordinates follow OBJ's convention (`v` up: glTF's `v` is turned into
//! `1 − v`), so a cloth exported both ways loads the same.
//!
//! Painted attributes (the common "paint the pins" workflow):
//! - pins: a vertex painted red (`COLOR_0`: red above 0.5, green and blue not; white, the colour
//!   a new attribute starts with, pins nothing), or whose custom `_PIN` attribute is above 0.5;
//!   a welded vertex is pinned if any of its corners is;
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
use crate::mesh::{ClothMesh, Welding};
use crate::model::ClothModel;
use base64::Engine;
use glam::{Mat4, Vec2, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};
use gltf::Accessor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Nodes whose name starts with this (in any case) are colliders, with their children.
pub const COLLIDER_PREFIX: &str = "collider";
/// Samples along the longest side of a collider node's distance field ([`DistanceField`]).
pub const COLLIDER_FIELD_RESOLUTION: u32 = 64;
/// A `_PIN` value above this pins the vertex, as does a colour whose red channel is above it
/// and whose green and blue are not (red paint: white and greys, the colour a new attribute
/// starts with, pin nothing).
pub const PIN_THRESHOLD: f32 = 0.5;
/// Most triangle corners a scene may gather (three per triangle, [`crate::mesh::MAX_TRIANGLES`]
/// triangles): a small file that instances a large mesh many times is refused before it fills
/// the memory.
pub const MAX_CORNERS: usize = 3 * crate::mesh::MAX_TRIANGLES;

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
        read_file(path.as_ref(), |bytes, folder| Self::parse(bytes, |uri| read_beside(folder, uri)))
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

    /// Its colliders and a ground plane under them and the cloth ([`ground_under`]): where the
    /// demo and the runner let the cloth fall.
    pub fn colliders_with_ground(&self) -> Vec<Collider> {
        let (mut low, mut high) = bounding_box(&self.mesh.positions);
        for (collider_low, collider_high) in self.colliders.iter().filter_map(Collider::bounds) {
            (low, high) = (low.min(collider_low), high.max(collider_high));
        }
        self.colliders.iter().cloned().chain([ground_under(low, high)]).collect()
    }

    fn parse(bytes: &[u8], external: impl Fn(&str) -> Result<Vec<u8>, String>) -> Result<Self, GltfError> {
        let (cloth, colliders) = read_scene(bytes, external, false)?;
        if cloth.corners.is_empty() {
            return Err(GltfError::NoCloth);
        }
        let welded = cloth.welded();
        let mesh = ClothMesh::validated(welded.positions, welded.triangles, welded.uvs)
            .map_err(|error| GltfError::Mesh { node: None, error })?;
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

/// A ground plane under the box from `low` to `high`, half its size below (at least 5 cm): where a
/// loaded cloth falls to.
pub fn ground_under(low: Vec3, high: Vec3) -> Collider {
    Collider::ground(low.y - 0.5 * (high - low).max_element().max(0.1))
}

/// Loads each root node of the scene of a second `.gltf` or `.glb` file (a body, a set), with its
/// children, as one mesh collider, whatever its name ([`GltfCloth::colliders`] takes those of the
/// cloth's own file): for colliders kept apart from the cloth's file.
pub fn load_colliders(path: impl AsRef<Path>) -> Result<Vec<Collider>, Error> {
    read_file(path.as_ref(), |bytes, folder| {
        let (_, colliders) = read_scene(bytes, |uri| read_beside(folder, uri), true)?;
        colliders.into_iter().map(|(node, soup)| collider(&node, soup)).collect()
    })
}

/// What `read` makes of the file at `path` and its folder, its errors naming the file.
fn read_file<T>(path: &Path, read: impl FnOnce(&[u8], &Path) -> Result<T, GltfError>) -> Result<T, Error> {
    let fail = |error| Error::Gltf { path: path.display().to_string(), error };
    let bytes = std::fs::read(path).map_err(|e| fail(GltfError::Read { message: e.to_string() }))?;
    read(&bytes, path.parent().unwrap_or(Path::new("."))).map_err(fail)
}

/// The file `uri` names, relative to `folder`.
fn read_beside(folder: &Path, uri: &str) -> Result<Vec<u8>, String> {
    let relative = PathBuf::from(percent_decoded(uri)?);
    // Only files in the folder or below: a file may not reach elsewhere on the machine.
    if !relative.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir)) {
        return Err(format!("`{uri}` is not a path inside the file's folder"));
    }
    let file = folder.join(relative);
    std::fs::read(&file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))
}

/// The triangles of a glTF file's scene: the cloth's, and each collider node's (every root node's
/// where `all_colliders`).
fn read_scene(
    bytes: &[u8],
    external: impl Fn(&str) -> Result<Vec<u8>, String>,
    all_colliders: bool,
) -> Result<(Soup, Vec<(String, Soup)>), GltfError> {
    let document = document(bytes)?;
    let buffers = load_buffers(&document, external)?;
    let mut cloth = Soup::default();
    let mut colliders = Vec::new();
    let mut visited = vec![false; document.nodes().len()];
    let mut walk = Walk { buffers: &buffers, visited: &mut visited, cloth: &mut cloth, all_colliders, corners: 0 };
    for root in scene_roots(&document) {
        walk.tree(root, &mut colliders)?;
    }
    // A collider node without triangles (an empty, a camera) collides with nothing.
    colliders.retain(|(_, soup)| !soup.corners.is_empty());
    Ok((cloth, colliders))
}

/// The glTF document of `bytes`, validated. The `gltf` crate's validation indexes a primitive's
/// `POSITION` accessor without checking it, and its GLB reader subtracts the header's size from
/// the declared length unchecked: both are checked here first, so that a broken file is an
/// error and never a panic.
fn document(bytes: &[u8]) -> Result<gltf::Gltf, GltfError> {
    let fail = |message: String| GltfError::Read { message };
    if let Some(length) = bytes.strip_prefix(b"glTF").and_then(|rest| rest.get(4..8)) {
        let declared = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
        if declared < 12 {
            return Err(fail(format!("the GLB header declares {declared} bytes, fewer than its own 12")));
        }
    }
    let unchecked = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| fail(e.to_string()))?;
    let json = unchecked.document.into_json();
    let accessors = json.accessors.len();
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (k, primitive) in mesh.primitives.iter().enumerate() {
            let used = primitive.attributes.values().chain(&primitive.indices).map(|a| a.value());
            if let Some(index) = used.into_iter().find(|&a| a >= accessors) {
                return Err(fail(format!("mesh {m}, primitive {k}: accessor {index} does not exist")));
            }
        }
    }
    let document = gltf::Document::from_json(json).map_err(|e| fail(e.to_string()))?;
    Ok(gltf::Gltf { document, blob: unchecked.blob })
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
    /// The corners welded by position ([`Welding`]); a vertex keeps its first corner's texture
    /// coordinate and scales, and is pinned if any of its corners is.
    fn welded(&self) -> Welded {
        let welding = Welding::by_position(self.corners.iter().map(|c| c.position));
        let firsts: Vec<&Corner> = welding.firsts.iter().map(|&c| &self.corners[c]).collect();
        let mut pinned = vec![false; firsts.len()];
        for (&vertex, corner) in welding.vertices.iter().zip(&self.corners) {
            pinned[vertex as usize] |= corner.pinned;
        }
        let scales = std::array::from_fn(|k| {
            let painted = firsts.iter().any(|c| c.scales[k].is_some());
            painted.then(|| firsts.iter().map(|c| c.scales[k].unwrap_or(1.0)).collect())
        });
        Welded {
            positions: firsts.iter().map(|c| c.position + 0.0).collect(),
            triangles: welding.triangles(),
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

/// A walk down the node hierarchy, with a stack of its own (a file may nest nodes deeper than
/// a thread's stack would take).
struct Walk<'a> {
    buffers: &'a [Vec<u8>],
    visited: &'a mut [bool],
    cloth: &'a mut Soup,
    /// Whether every node the walk starts from is a collider, whatever its name.
    all_colliders: bool,
    /// The corners gathered so far, cloth and colliders together.
    corners: usize,
}

impl Walk<'_> {
    /// Adds `root`'s and its descendants' triangles, each placed by its world transform (the
    /// parents' transforms times its own), to the cloth, or from a collider node down to that
    /// node's soup in `colliders` (one collider per collider node reached from above).
    fn tree(&mut self, root: gltf::Node<'_>, colliders: &mut Vec<(String, Soup)>) -> Result<(), GltfError> {
        let whole_tree = self.all_colliders.then(|| {
            colliders.push((node_name(&root), Soup::default()));
            colliders.len() - 1
        });
        // Each entry: a node, its parent's world transform, and the collider it belongs to.
        let mut pending: Vec<(gltf::Node<'_>, Mat4, Option<usize>)> = vec![(root, Mat4::IDENTITY, whole_tree)];
        while let Some((node, parent, mut collider)) = pending.pop() {
            if std::mem::replace(&mut self.visited[node.index()], true) {
                return Err(GltfError::Hierarchy { node: node_name(&node) });
            }
            let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
            let named = node.name().is_some_and(|n| n.to_lowercase().starts_with(COLLIDER_PREFIX));
            if collider.is_none() && named {
                colliders.push((node_name(&node), Soup::default()));
                collider = Some(colliders.len() - 1);
            }
            if let Some(mesh) = node.mesh() {
                for primitive in mesh.primitives() {
                    let corners = read_primitive(&primitive, world, self.buffers)
                        .map_err(|reason| primitive_error(&node, &primitive, reason))?;
                    self.corners += corners.len();
                    if self.corners > MAX_CORNERS {
                        let reason = format!("the scene has more than {MAX_CORNERS} triangle corners");
                        return Err(primitive_error(&node, &primitive, reason));
                    }
                    let soup = match collider {
                        Some(k) => &mut colliders[k].1,
                        None => &mut *self.cloth,
                    };
                    soup.corners.extend(corners);
                }
            }
            // Reversed, so that the stack takes the children in their order.
            let children: Vec<_> = node.children().collect();
            pending.extend(children.into_iter().rev().map(|child| (child, world, collider)));
        }
        Ok(())
    }
}

/// The mesh collider of a collider node's triangles (welded; closed, for its distance field).
fn collider(node: &str, soup: Soup) -> Result<Collider, GltfError> {
    let welded = soup.welded();
    let uvs = vec![Vec2::ZERO; welded.positions.len()];
    let mesh = ClothMesh::validated(welded.positions, welded.triangles, uvs)
        .map_err(|error| GltfError::Mesh { node: Some(node.into()), error })?;
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
        let red = |c: &[f32]| c[0] > PIN_THRESHOLD && c[1] <= PIN_THRESHOLD && c[2] <= PIN_THRESHOLD;
        (pinned.iter_mut().zip(raw.chunks_exact(channels))).for_each(|(p, colour)| *p |= red(colour));
    }
    if let Some(pin) = scalar_attribute(primitive, buffers, "PIN", count)? {
        (pinned.iter_mut().zip(pin)).for_each(|(p, value)| *p |= value > PIN_THRESHOLD);
    }
    let mut scales = [None, None, None];
    for (scale, name) in scales.iter_mut().zip(SCALE_ATTRIBUTES) {
        *scale = scale_attribute(primitive, buffers, name, count)?;
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
/// strip triangle turned, so that all keep the winding of the first). Strip and fan triangles
/// with a repeated index are left out: they are how exporters join strips, and have no area.
fn triangles_of(mode: Mode, indices: &[u32]) -> Result<Vec<[u32; 3]>, String> {
    let proper = |t: &[u32; 3]| t[0] != t[1] && t[1] != t[2] && t[2] != t[0];
    match mode {
        Mode::Triangles if indices.len().is_multiple_of(3) => {
            Ok(indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect())
        }
        Mode::Triangles => Err(format!("{} indices do not make whole triangles", indices.len())),
        Mode::TriangleStrip => Ok((0..indices.len().saturating_sub(2))
            .map(|k| {
                let [a, b, c] = [indices[k], indices[k + 1], indices[k + 2]];
                if k % 2 == 0 {
                    [a, b, c]
                } else {
                    [b, a, c]
                }
            })
            .filter(proper)
            .collect()),
        Mode::TriangleFan => Ok((1..indices.len().saturating_sub(1))
            .map(|k| [indices[0], indices[k], indices[k + 1]])
            .filter(proper)
            .collect()),
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

/// The material map `_name` of `primitive`: a scale per vertex, each above zero.
fn scale_attribute(
    primitive: &gltf::Primitive<'_>,
    buffers: &[Vec<u8>],
    name: &str,
    count: usize,
) -> Result<Option<Vec<f32>>, String> {
    let scales = scalar_attribute(primitive, buffers, name, count)?;
    if let Some(vertex) = scales.as_ref().and_then(|s| s.iter().position(|&v| v <= 0.0)) {
        return Err(format!("_{name} is not above zero at vertex {vertex}"));
    }
    Ok(scales)
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
    let values: Vec<f32> = bytes.map(|b| component(accessor.data_type(), b)).collect();
    match values.iter().position(|v| !v.is_finite()) {
        Some(k) => Err(format!("{name} has a non-finite value at vertex {}", k / accessor.dimensions().multiplicity())),
        None => Ok(values),
    }
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
        n => (n - 1).checked_mul(stride).and_then(|s| s.checked_add(offset)?.checked_add(element)),
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
