//! WGSL sources. WGSL has no `#include`, so modules are concatenations of the files in
//! `shaders/`: shared structs first, then bindings, math, and one file per stage.

/// `(file name, source)` of every WGSL file, for validation tests.
pub const FILES: &[(&str, &str)] = &[
    ("common.wgsl", COMMON),
    ("bindings.wgsl", BINDINGS),
    ("constraints.wgsl", CONSTRAINTS),
    ("collide.wgsl", COLLIDE),
    ("predict.wgsl", PREDICT),
    ("project.wgsl", PROJECT),
    ("jacobi.wgsl", JACOBI),
    ("finalize.wgsl", FINALIZE),
    ("fused.wgsl", FUSED),
    ("normals.wgsl", NORMALS),
];

const COMMON: &str = include_str!("../../shaders/common.wgsl");
const BINDINGS: &str = include_str!("../../shaders/bindings.wgsl");
const CONSTRAINTS: &str = include_str!("../../shaders/constraints.wgsl");
const COLLIDE: &str = include_str!("../../shaders/collide.wgsl");
const PREDICT: &str = include_str!("../../shaders/predict.wgsl");
const PROJECT: &str = include_str!("../../shaders/project.wgsl");
const JACOBI: &str = include_str!("../../shaders/jacobi.wgsl");
const FINALIZE: &str = include_str!("../../shaders/finalize.wgsl");
const FUSED: &str = include_str!("../../shaders/fused.wgsl");
const NORMALS: &str = include_str!("../../shaders/normals.wgsl");

/// The solver module: every simulation stage, sharing one bind group.
pub fn solver_module_source() -> String {
    [COMMON, BINDINGS, CONSTRAINTS, COLLIDE, PREDICT, PROJECT, JACOBI, FINALIZE, FUSED].concat()
}

/// The normals module.
pub fn normals_module_source() -> String {
    [COMMON, NORMALS].concat()
}

/// Only the shared structs, for layout reflection.
pub fn common_source() -> &'static str {
    COMMON
}
