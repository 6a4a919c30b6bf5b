//! The viewer's WGSL: each module is `view.wgsl` (camera, light, shading, rotation by a
//! quaternion) followed by one drawing stage.

/// `(file name, source)` of every viewer WGSL file, for validation tests.
pub const FILES: &[(&str, &str)] = &[
    ("view.wgsl", VIEW),
    ("cloth.wgsl", CLOTH),
    ("shapes.wgsl", SHAPES),
    ("planes.wgsl", PLANES),
    ("meshes.wgsl", MESHES),
];

pub(crate) const VIEW: &str = include_str!("../../shaders/viewer/view.wgsl");
pub(crate) const CLOTH: &str = include_str!("../../shaders/viewer/cloth.wgsl");
pub(crate) const SHAPES: &str = include_str!("../../shaders/viewer/shapes.wgsl");
pub(crate) const PLANES: &str = include_str!("../../shaders/viewer/planes.wgsl");
pub(crate) const MESHES: &str = include_str!("../../shaders/viewer/meshes.wgsl");

/// The module for one drawing stage (`cloth`, `shapes`, `planes` or `meshes` source).
pub fn module_source(stage: &str) -> String {
    [VIEW, stage].concat()
}
