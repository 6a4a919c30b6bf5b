//! Typed errors: every public function whose input can be wrong returns `Result<_, Error>`.

use std::fmt;

/// Why a mesh was rejected (see [`crate::ClothMesh::validate`]).
#[derive(Debug, Clone, PartialEq)]
pub enum MeshError {
    /// The mesh has no vertices or no triangles.
    Empty,
    /// The mesh has more vertices or triangles than drape indexes ([`crate::mesh::MAX_VERTICES`],
    /// [`crate::mesh::MAX_TRIANGLES`]).
    #[allow(missing_docs)]
    TooLarge { what: &'static str, count: usize, limit: usize },
    /// A triangle refers to a vertex that does not exist.
    #[allow(missing_docs)]
    IndexOutOfRange { triangle: usize, index: u32, vertex_count: usize },
    /// A vertex position is NaN or infinite.
    #[allow(missing_docs)]
    NonFinitePosition { vertex: usize },
    /// A triangle is (nearly) a line or a point for its size: its height is below a millionth of
    /// its longest edge, so it has no reliable normal and next to no mass.
    #[allow(missing_docs)]
    DegenerateTriangle { triangle: usize },
    /// A triangle's area (m²) is below [`crate::mesh::MIN_AREA_RATIO`] of the mesh's median
    /// triangle area (m²): its vertices would weigh a millionth of their neighbours and less.
    #[allow(missing_docs)]
    TinyTriangle { triangle: usize, area: f32, median: f32 },
    /// An OBJ face (an `f` line) lists fewer than three vertices.
    #[allow(missing_docs)]
    ShortFace { line: usize, vertices: usize },
    /// An edge is shared by more than two triangles: cloth must be a manifold surface.
    #[allow(missing_docs)]
    NonManifoldEdge { a: u32, b: u32, triangles: usize },
    /// The same three vertices appear twice.
    #[allow(missing_docs)]
    DuplicateTriangle { first: usize, second: usize },
    /// The mesh has a different number of texture coordinates than vertices.
    #[allow(missing_docs)]
    TexCoordCount { uvs: usize, vertex_count: usize },
    /// A vertex belongs to no triangle, so it would have no mass.
    #[allow(missing_docs)]
    UnreferencedVertex { vertex: usize },
    /// A grid needs at least 2 × 2 vertices and a positive, finite spacing.
    #[allow(missing_docs)]
    InvalidGrid { reason: &'static str },
    /// A hand-edited [`crate::ClothModel`] breaks an invariant the solvers rely on.
    #[allow(missing_docs)]
    InvalidModel { reason: String },
    /// A pinned vertex index does not exist.
    #[allow(missing_docs)]
    PinOutOfRange { index: u32, vertex_count: usize },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "the mesh has no triangles"),
            Self::TooLarge { what, count, limit } => {
                write!(f, "the mesh has {count} {what}; at most {limit} are supported")
            }
            Self::IndexOutOfRange { triangle, index, vertex_count } => {
                write!(f, "triangle {triangle} refers to vertex {index}, but the mesh has {vertex_count} vertices")
            }
            Self::NonFinitePosition { vertex } => {
                write!(f, "vertex {vertex} has a non-finite position")
            }
            Self::DegenerateTriangle { triangle } => {
                write!(f, "triangle {triangle} is degenerate: its height is below a millionth of its longest edge")
            }
            Self::TinyTriangle { triangle, area, median } => write!(
                f,
                "triangle {triangle} is tiny: its area {area:e} m² is below a millionth of the median \
                 triangle's {median:e} m², so its vertices' masses would be out of scale"
            ),
            Self::ShortFace { line, vertices } => {
                write!(f, "the face on line {line} has {vertices} vertices; a face needs at least 3")
            }
            Self::NonManifoldEdge { a, b, triangles } => {
                write!(f, "edge {a}-{b} is shared by {triangles} triangles (cloth needs at most 2)")
            }
            Self::DuplicateTriangle { first, second } => {
                write!(f, "triangles {first} and {second} use the same three vertices")
            }
            Self::TexCoordCount { uvs, vertex_count } => {
                write!(f, "the mesh has {uvs} texture coordinates for {vertex_count} vertices")
            }
            Self::UnreferencedVertex { vertex } => write!(f, "vertex {vertex} belongs to no triangle"),
            Self::InvalidGrid { reason } => write!(f, "invalid grid: {reason}"),
            Self::InvalidModel { reason } => write!(f, "inconsistent cloth model: {reason}"),
            Self::PinOutOfRange { index, vertex_count } => {
                write!(f, "pinned vertex {index} does not exist (the mesh has {vertex_count} vertices)")
            }
        }
    }
}

/// A solver parameter outside its documented range (see [`crate::SolverParams`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// The parameter's field name.
    pub name: &'static str,
    /// The value that was given, printed.
    pub value: String,
    /// What the value must be.
    pub expected: &'static str,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter `{}` = {} must be {}", self.name, self.value, self.expected)
    }
}

/// Every error drape returns.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The cloth mesh is not usable.
    Mesh(MeshError),
    /// A solver parameter is out of range.
    Param(ParamError),
    /// An OBJ file could not be read or parsed.
    #[allow(missing_docs)]
    Obj { path: String, message: String },
    /// An OBJ file was read, but its mesh is not usable as cloth.
    #[allow(missing_docs)]
    ObjMesh { path: String, error: MeshError },
    /// A glTF file could not be loaded as a cloth ([`crate::gltf_input`]).
    #[allow(missing_docs)]
    Gltf { path: String, error: GltfError },
    /// An animation could not be encoded or written ([`crate::animation`]).
    #[allow(missing_docs)]
    Export { path: String, message: String },
    /// A collider is malformed (non-finite, plane normal not of unit length, radius ≤ 0) or there
    /// are too many.
    Collider(String),
    /// A pin call that does not fit the particle's state (e.g. moving the target of a particle
    /// that is not pinned, or a non-finite target).
    Pin(String),
    /// A particle index passed to a pin or target call does not exist.
    #[allow(missing_docs)]
    ParticleOutOfRange { index: u32, particle_count: usize },
    /// Graph colouring needed more colours than the GPU colour table holds.
    #[allow(missing_docs)]
    TooManyColours { needed: usize, max: usize },
    /// The isometric bending model was asked of a cloth whose rest hinge `hinge` (its
    /// particles: the shared edge, then the wings) is curved by `curvature` (`|Σ W_i x̄_i|`),
    /// more than `tolerance` ([`crate::constraints::isometric::FLAT_REST_TOLERANCE`]): the
    /// model bends toward flat and would lose that rest shape; the dihedral model keeps it.
    #[allow(missing_docs)]
    CurvedRestHinge { hinge: usize, particles: [u32; 4], curvature: f32, tolerance: f32 },
    /// No GPU adapter was found (the message says how to install lavapipe).
    NoAdapter(String),
    /// The adapter could not give a device with the limits the solver needs.
    Device(String),
    /// Reading a buffer back from the GPU failed.
    Readback(String),
    /// Opening, or drawing to, a window failed (feature `viewer`).
    Window(String),
    /// A screenshot could not be encoded or written (feature `viewer`).
    #[allow(missing_docs)]
    Image { path: String, message: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mesh(e) => write!(f, "invalid mesh: {e}"),
            Self::Param(e) => write!(f, "invalid parameter: {e}"),
            Self::Obj { path, message } => write!(f, "cannot load OBJ `{path}`: {message}"),
            Self::ObjMesh { path, error } => write!(f, "cannot load OBJ `{path}`: invalid mesh: {error}"),
            Self::Gltf { path, error } => write!(f, "cannot load glTF `{path}`: {error}"),
            Self::Export { path, message } => write!(f, "cannot write animation `{path}`: {message}"),
            Self::Collider(m) => write!(f, "invalid collider: {m}"),
            Self::Pin(m) => write!(f, "invalid pin: {m}"),
            Self::ParticleOutOfRange { index, particle_count } => {
                write!(f, "particle {index} does not exist (the cloth has {particle_count} particles)")
            }
            Self::TooManyColours { needed, max } => {
                write!(f, "the constraint graph needs {needed} colours, more than the {max} the solver supports")
            }
            Self::CurvedRestHinge { hinge, particles, curvature, tolerance } => write!(
                f,
                "isometric bending needs a flat rest mesh: hinge {hinge} (particles {particles:?}) is curved by \
                 {curvature} at rest, more than {tolerance}; use the dihedral model for a curved rest shape"
            ),
            Self::NoAdapter(m) => write!(f, "no GPU adapter: {m}"),
            Self::Device(m) => write!(f, "cannot create a GPU device: {m}"),
            Self::Readback(m) => write!(f, "GPU readback failed: {m}"),
            Self::Window(m) => write!(f, "window error: {m}"),
            Self::Image { path, message } => write!(f, "cannot write image `{path}`: {message}"),
        }
    }
}

impl std::error::Error for MeshError {}

/// Why a glTF file could not be loaded as a cloth ([`Error::Gltf`]). Nodes are named by their
/// name, or `#index` where they have none; primitives by their index in their mesh.
#[derive(Debug, Clone, PartialEq)]
pub enum GltfError {
    /// The file could not be read, or is not glTF 2.0: a wrong magic number, a truncated GLB,
    /// malformed JSON or an index that refers to nothing.
    #[allow(missing_docs)]
    Read { message: String },
    /// A buffer's data is missing (no GLB binary chunk, an unreadable file or data URI) or
    /// shorter than the buffer declares.
    #[allow(missing_docs)]
    Buffer { buffer: usize, message: String },
    /// A mesh primitive cannot be read: not triangles, a missing, sparse, out-of-range or
    /// ill-typed accessor, an index past its vertices, a non-finite position.
    #[allow(missing_docs)]
    Primitive { node: String, primitive: usize, reason: String },
    /// A node is reached twice: the node hierarchy is not a forest.
    #[allow(missing_docs)]
    Hierarchy { node: String },
    /// No triangles outside the collider nodes: there is no cloth.
    NoCloth,
    /// The welded triangles of the cloth, or of a collider node (`node`), are not a usable mesh.
    #[allow(missing_docs)]
    Mesh { node: Option<String>, error: MeshError },
    /// A collider node's mesh gave no distance field (it must be closed and within range).
    #[allow(missing_docs)]
    Collider { node: String, message: String },
}

impl fmt::Display for GltfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { message } => write!(f, "{message}"),
            Self::Buffer { buffer, message } => write!(f, "buffer {buffer}: {message}"),
            Self::Primitive { node, primitive, reason } => write!(f, "node `{node}`, primitive {primitive}: {reason}"),
            Self::Hierarchy { node } => write!(f, "node `{node}` is reached twice: the nodes must form a forest"),
            Self::NoCloth => write!(f, "no triangles outside the collider nodes"),
            Self::Mesh { node: None, error } => write!(f, "the cloth is not a usable mesh: {error}"),
            Self::Mesh { node: Some(node), error } => write!(f, "collider node `{node}` is not a usable mesh: {error}"),
            Self::Collider { node, message } => write!(f, "collider node `{node}`: {message}"),
        }
    }
}

impl std::error::Error for GltfError {}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Mesh(e) | Self::ObjMesh { error: e, .. } => Some(e),
            Self::Gltf { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<MeshError> for Error {
    fn from(e: MeshError) -> Self {
        Self::Mesh(e)
    }
}

impl From<ParamError> for Error {
    fn from(e: ParamError) -> Self {
        Self::Param(e)
    }
}

/// Shorthand for results with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
