//! The viewer's WGSL: each module is `view.wgsl` (camera, light, shading) followed by one
//! drawing stage.

/// `(file name, source)` of every viewer WGSL file, for validation tests.
pub const FILES: &[(&str, &str)] =
    &[("view.wgsl", VIEW), ("cloth.wgsl", CLOTH), ("spheres.wgsl", SPHERES), ("planes.wgsl", PLANES)];

pub(crate) const VIEW: &str = include_str!("../../shaders/viewer/view.wgsl");
pub(crate) const CLOTH: &str = include_str!("../../shaders/viewer/cloth.wgsl");
pub(crate) const SPHERES: &str = include_str!("../../shaders/viewer/spheres.wgsl");
pub(crate) const PLANES: &str = include_str!("../../shaders/viewer/planes.wgsl");

/// The module for one drawing stage (`cloth`, `spheres` or `planes` source).
pub fn module_source(stage: &str) -> String {
    [VIEW, stage].concat()
}
