//! Every WGSL file parses and validates with naga, and every host-shared WGSL struct matches its
//! `#[repr(C)]` Rust twin in size and member offsets. No GPU needed.

use drape::gpu::layout::{ColourTable, DispatchInfo, GpuCollider, GpuParams};
use drape::gpu::shaders;
use drape::model::Constraint;
use std::mem::{offset_of, size_of};

fn parse_and_validate(label: &str, source: &str) -> naga::Module {
    let module =
        naga::front::wgsl::parse_str(source).unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
    module
}

fn file(name: &str) -> &'static str {
    shaders::FILES.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no shader {name}")).1
}

#[test]
fn every_wgsl_file_validates_in_its_module() {
    let common = file("common.wgsl");
    parse_and_validate("common.wgsl", common);
    for name in ["bindings.wgsl", "constraints.wgsl", "collide.wgsl"] {
        parse_and_validate(name, &[common, file(name)].concat());
    }
    parse_and_validate("solver module", &shaders::solver_module_source());
    parse_and_validate("normals module", &shaders::normals_module_source());
    for (name, source) in shaders::FILES {
        assert!(
            shaders::solver_module_source().contains(source) || shaders::normals_module_source().contains(source),
            "{name} is in no module"
        );
    }
}

#[test]
fn every_entry_point_is_within_webgpu_limits() {
    let module = parse_and_validate("solver module", &shaders::solver_module_source());
    let names: Vec<&str> = module.entry_points.iter().map(|e| e.name.as_str()).collect();
    for wanted in [
        "predict",
        "project_stretch_colour",
        "project_hinge_colour",
        "jacobi_project",
        "jacobi_apply",
        "finalize",
        "finalize_and_predict",
        "fused_gauss_seidel",
        "fused_jacobi",
        "project_stripes",
    ] {
        assert!(names.contains(&wanted), "missing entry point {wanted}");
    }
    assert_within_webgpu_limits("solver module", &module);
    let normals = parse_and_validate("normals module", &shaders::normals_module_source());
    assert!(normals.entry_points.iter().any(|e| e.name == "compute_normals"), "missing entry point compute_normals");
    assert_within_webgpu_limits("normals module", &normals);
}

/// WebGPU's default limits: 256 invocations per workgroup, 8 storage buffers per stage, 16 KiB
/// of workgroup memory.
fn assert_within_webgpu_limits(label: &str, module: &naga::Module) {
    for entry in &module.entry_points {
        let invocations: u32 = (0..3).map(|axis| workgroup_dimension(module, entry, axis)).product();
        assert!(invocations <= 256, "{label}: {} uses {invocations} invocations per workgroup", entry.name);
    }
    let storage_buffers =
        module.global_variables.iter().filter(|(_, v)| matches!(v.space, naga::AddressSpace::Storage { .. })).count();
    assert!(storage_buffers <= 8, "{label}: {storage_buffers} storage buffers exceed the WebGPU default of 8");
    let workgroup_bytes: u32 = module
        .global_variables
        .iter()
        .filter(|(_, v)| v.space == naga::AddressSpace::WorkGroup)
        .map(|(_, v)| module.types[v.ty].inner.size(module.to_ctx()))
        .sum();
    assert!(workgroup_bytes <= 16384, "{label}: {workgroup_bytes} bytes of workgroup memory exceed the WebGPU default");
}

/// An entry point's workgroup size along `axis`. naga records a size given by an override
/// (chosen per adapter when the pipeline is built, src/gpu/plan.rs `WorkgroupSizes`) as 1, so
/// this reads the override's default, which is the largest value the solver passes.
fn workgroup_dimension(module: &naga::Module, entry: &naga::EntryPoint, axis: usize) -> u32 {
    let Some(expression) = entry.workgroup_size_overrides.and_then(|o| o[axis]) else {
        return entry.workgroup_size[axis];
    };
    let literal = |e: naga::Handle<naga::Expression>| match module.global_expressions[e] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref other => panic!("{}: unexpected workgroup size expression {other:?}", entry.name),
    };
    match module.global_expressions[expression] {
        naga::Expression::Override(o) => literal(module.overrides[o].init.expect("an override with a default")),
        _ => literal(expression),
    }
}

/// Size and `(member, offset)` list of a WGSL struct as naga lays it out.
fn wgsl_layout(module: &naga::Module, name: &str) -> (u32, Vec<(String, u32)>) {
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name}"))
        .1;
    match &ty.inner {
        naga::TypeInner::Struct { members, span } => {
            (*span, members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect())
        }
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

fn assert_layout(module: &naga::Module, name: &str, size: usize, offsets: &[(&str, usize)]) {
    let (wgsl_size, wgsl_members) = wgsl_layout(module, name);
    assert_eq!(wgsl_size as usize, size, "{name}: WGSL size {wgsl_size}, Rust size {size}");
    let wgsl_names: Vec<&str> =
        wgsl_members.iter().map(|(n, _)| n.as_str()).filter(|n| !n.starts_with("_pad")).collect();
    let rust_names: Vec<&str> = offsets.iter().map(|(n, _)| *n).collect();
    assert_eq!(wgsl_names, rust_names, "{name}: member lists differ");
    for (member, offset) in offsets {
        let wgsl = wgsl_members.iter().find(|(n, _)| n == member).expect("checked above").1;
        assert_eq!(wgsl as usize, *offset, "{name}.{member}: WGSL offset {wgsl}, Rust offset {offset}");
    }
}

/// The value of a scalar WGSL `const`.
fn wgsl_constant(module: &naga::Module, name: &str) -> naga::Literal {
    let (_, constant) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no const {name}"));
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(literal) => literal,
        ref other => panic!("{name} is not a literal: {other:?}"),
    }
}

#[test]
fn shared_constants_match_their_wgsl_twins() {
    use naga::Literal::{F32, U32};
    let module = parse_and_validate("common.wgsl", shaders::common_source());
    assert_eq!(wgsl_constant(&module, "GEOMETRY_EPSILON"), F32(drape::math::GEOMETRY_EPSILON));
    assert_eq!(wgsl_constant(&module, "DENOMINATOR_EPSILON"), F32(drape::math::DENOMINATOR_EPSILON));
    assert_eq!(wgsl_constant(&module, "WORKGROUP_SIZE"), U32(drape::gpu::layout::WORKGROUP_SIZE));
    assert_eq!(wgsl_constant(&module, "MAX_COLLIDERS"), U32(drape::collider::MAX_COLLIDERS as u32));
    assert_eq!(wgsl_constant(&module, "MAX_COLOURS"), U32(drape::coloring::MAX_COLOURS as u32));
    assert_eq!(wgsl_constant(&module, "STRIPE_CAPACITY"), U32(drape::model::STRIPE_CAPACITY as u32));
    assert_eq!(wgsl_constant(&module, "COLLIDER_PLANE"), U32(GpuCollider::PLANE));
    assert_eq!(wgsl_constant(&module, "COLLIDER_SPHERE"), U32(GpuCollider::SPHERE));
    assert_eq!(wgsl_constant(&module, "STAGE_PREDICT"), U32(drape::gpu::layout::STAGE_PREDICT));
    assert_eq!(wgsl_constant(&module, "STAGE_FINALIZE"), U32(drape::gpu::layout::STAGE_FINALIZE));
}

macro_rules! rust_offsets {
    ($ty:ty, $($field:ident),* $(,)?) => {
        &[$((stringify!($field), offset_of!($ty, $field))),*]
    };
}

#[test]
fn gpu_structs_match_their_wgsl_twins() {
    let module = parse_and_validate("common.wgsl", shaders::common_source());
    assert_layout(&module, "Collider", size_of::<GpuCollider>(), rust_offsets!(GpuCollider, shape, kind));
    assert_layout(
        &module,
        "Params",
        size_of::<GpuParams>(),
        rust_offsets!(
            GpuParams,
            acceleration,
            phase_colours,
            stretch,
            compression,
            bending,
            relaxation,
            h,
            damping_factor,
            friction,
            restitution,
            restitution_threshold,
            collision_margin,
            particle_count,
            constraint_count,
            stretch_count,
            colour_count,
            substeps,
            iterations,
            collider_count,
            colliders,
        ),
    );
    assert_layout(
        &module,
        "Constraint",
        size_of::<Constraint>(),
        rust_offsets!(Constraint, particles, rest, stripe_slots),
    );
    assert_layout(&module, "ColourTable", size_of::<ColourTable>(), rust_offsets!(ColourTable, entries));
    assert_layout(
        &module,
        "DispatchInfo",
        size_of::<DispatchInfo>(),
        rust_offsets!(DispatchInfo, substep, colour_start, colour_count, iterations, stages, stripe_entries, phase),
    );
}

#[cfg(feature = "viewer")]
#[test]
fn viewer_shaders_validate_and_match_their_rust_twins() {
    use drape::viewer::renderer::ViewUniform;
    use drape::viewer::shaders as viewer;
    let view = viewer::FILES.iter().find(|(n, _)| *n == "view.wgsl").expect("view.wgsl").1;
    let module = parse_and_validate("view.wgsl", view);
    assert_layout(
        &module,
        "ViewUniform",
        size_of::<ViewUniform>(),
        rust_offsets!(ViewUniform, view_proj, eye, light_direction),
    );
    for (file, pipeline) in [("cloth.wgsl", "cloth"), ("spheres.wgsl", "sphere"), ("planes.wgsl", "plane")] {
        let stage = viewer::FILES.iter().find(|(n, _)| *n == file).unwrap_or_else(|| panic!("no {file}")).1;
        let module = parse_and_validate(file, &viewer::module_source(stage));
        for suffix in ["vertex", "fragment"] {
            let entry = format!("{pipeline}_{suffix}");
            assert!(module.entry_points.iter().any(|e| e.name == entry), "{file} lacks {entry}");
        }
    }
    assert_eq!(viewer::FILES.len(), 4, "a new viewer shader needs a line here");
}
