//! Every WGSL file parses and validates with naga, and every host-shared WGSL struct matches its
//! `#[repr(C)]` Rust twin in size and member offsets. No GPU needed.

use drape::constraints::bending::BendingRecord;
use drape::constraints::isometric::IsometricRecord;
use drape::constraints::stretch::StretchRecord;
use drape::constraints::UnitType;
use drape::gpu::records::{
    DispatchInfo, GpuAir, GpuCollider, GpuColliderListHead, GpuKind, GpuParams, GpuSpatialHashHead,
};
use drape::gpu::shaders;
use drape::pins::PinRecord;
use std::mem::{offset_of, size_of};

fn parse_and_validate(label: &str, source: &str) -> naga::Module {
    parse_validate_info(label, source).0
}

fn parse_validate_info(label: &str, source: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module =
        naga::front::wgsl::parse_str(source).unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
    (module, info)
}

fn file(name: &str) -> &'static str {
    shaders::files().into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no shader {name}")).1
}

/// Every module drape builds, by name.
fn modules() -> [(&'static str, String); 10] {
    [
        ("integrate", shaders::integrate_module_source()),
        ("solver", shaders::solver_module_source(&UnitType::ALL)),
        ("workgroup", shaders::workgroup_module_source(&UnitType::ALL)),
        ("normals", shaders::normals_module_source()),
        ("tethers", shaders::tether_module_source()),
        ("area limits", shaders::area_module_source()),
        ("aerodynamics", shaders::aerodynamics_module_source()),
        ("rigid damping", shaders::rigid_damping_module_source()),
        ("mass-spring", shaders::mass_spring_module_source()),
        ("self-collision", shaders::self_collision_module_source()),
    ]
}

#[test]
fn every_wgsl_file_validates_in_its_module() {
    let common = file("common.wgsl");
    parse_and_validate("common.wgsl", common);
    let modules = modules();
    for (name, source) in &modules {
        parse_and_validate(name, source);
    }
    for (name, source) in shaders::files() {
        assert!(modules.iter().any(|(_, module)| module.contains(source)), "{name} is in no module");
    }
}

/// WGSL's reserved words (WGSL §15.2): the browser's and wgpu's parsers refuse them as names,
/// though the naga these tests validate with lets some through.
const RESERVED_WORDS: &[&str] = &[
    "NULL",
    "Self",
    "abstract",
    "active",
    "alignas",
    "alignof",
    "as",
    "asm",
    "asm_fragment",
    "async",
    "attribute",
    "auto",
    "await",
    "become",
    "binding_array",
    "cast",
    "catch",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "coherent",
    "column_major",
    "common",
    "compile",
    "compile_fragment",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "crate",
    "debugger",
    "decltype",
    "delete",
    "demote",
    "demote_to_helper",
    "do",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extends",
    "extern",
    "external",
    "fallthrough",
    "filter",
    "final",
    "finally",
    "friend",
    "from",
    "fxgroup",
    "get",
    "goto",
    "groupshared",
    "highp",
    "impl",
    "implements",
    "import",
    "inline",
    "instanceof",
    "interface",
    "layout",
    "lowp",
    "macro",
    "macro_rules",
    "match",
    "mediump",
    "meta",
    "mod",
    "module",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "nil",
    "noexcept",
    "noinline",
    "nointerpolation",
    "non_coherent",
    "noncoherent",
    "noperspective",
    "null",
    "nullptr",
    "of",
    "operator",
    "package",
    "packoffset",
    "partition",
    "pass",
    "patch",
    "pixelfragment",
    "precise",
    "precision",
    "premerge",
    "priv",
    "protected",
    "pub",
    "public",
    "readonly",
    "ref",
    "regardless",
    "register",
    "reinterpret_cast",
    "require",
    "resource",
    "restrict",
    "self",
    "set",
    "shared",
    "sizeof",
    "smooth",
    "snorm",
    "static",
    "static_assert",
    "static_cast",
    "std",
    "subroutine",
    "super",
    "target",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "union",
    "unless",
    "unorm",
    "unsafe",
    "unsized",
    "use",
    "using",
    "varying",
    "virtual",
    "volatile",
    "wgsl",
    "where",
    "with",
    "writeonly",
    "yield",
];

#[test]
fn no_wgsl_file_names_anything_with_a_reserved_word() {
    #[allow(unused_mut)]
    let mut files = shaders::files();
    #[cfg(feature = "viewer")]
    files.extend(drape::viewer::shaders::FILES.iter().map(|&(name, source)| (name.to_string(), source)));
    for (name, source) in files {
        for (number, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let words = code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
            for word in words {
                assert!(!RESERVED_WORDS.contains(&word), "{name}:{}: `{word}` is reserved in WGSL", number + 1);
            }
        }
    }
}

#[test]
fn every_entry_point_is_within_webgpu_limits_with_headroom() {
    let expected = [
        ("integrate", &["predict", "finalize", "finalize_and_predict"][..]),
        (
            "solver",
            &[
                "project_colour",
                "project_stripes",
                "project_substep",
                "jacobi_project",
                "jacobi_apply",
                "jacobi_substep",
            ],
        ),
        ("workgroup", &["project_stripes", "project_substep"]),
        ("normals", &["compute_normals"]),
        ("tethers", &["project_tethers"]),
        ("area limits", &["limit_areas"]),
        ("aerodynamics", &["apply_aerodynamics"]),
        ("rigid damping", &["sum_moments", "solve_rigid_motion", "damp_to_rigid_motion"]),
        ("mass-spring", &["apply_springs"]),
        (
            "self-collision",
            &[
                "hash_count",
                "hash_prefix_sum",
                "hash_scatter",
                "hash_sort_buckets",
                "self_contacts",
                "apply_self_contacts",
            ],
        ),
    ];
    for ((name, source), (expected_name, entry_points)) in modules().iter().zip(expected) {
        assert_eq!(*name, expected_name);
        let (module, info) = parse_validate_info(name, source);
        for wanted in entry_points {
            assert!(module.entry_points.iter().any(|e| e.name == *wanted), "{name}: missing entry point {wanted}");
        }
        assert_within_webgpu_limits(name, &module, &info);
    }
}

/// WebGPU's default limits, per entry point and counting only what it uses: 256 invocations per
/// workgroup, at most 6 of the 8 storage buffers per stage (two to spare for what comes), and
/// 16 KiB of workgroup memory at the overrides' defaults.
fn assert_within_webgpu_limits(label: &str, module: &naga::Module, info: &naga::valid::ModuleInfo) {
    for (index, entry) in module.entry_points.iter().enumerate() {
        let invocations: u32 = (0..3).map(|axis| workgroup_dimension(module, entry, axis)).product();
        assert!(invocations <= 256, "{label}: {} uses {invocations} invocations per workgroup", entry.name);
        let uses = info.get_entry_point(index);
        let used = |space: fn(naga::AddressSpace) -> bool| {
            module.global_variables.iter().filter(move |(handle, v)| space(v.space) && !uses[*handle].is_empty())
        };
        let storage = used(|s| matches!(s, naga::AddressSpace::Storage { .. })).count();
        assert!(storage <= 6, "{label}: {} binds {storage} storage buffers, more than 6", entry.name);
        let workgroup_bytes: u32 =
            used(|s| s == naga::AddressSpace::WorkGroup).map(|(_, v)| workgroup_variable_bytes(module, v)).sum();
        assert!(workgroup_bytes <= 16384, "{label}: {} uses {workgroup_bytes} bytes of workgroup memory", entry.name);
    }
}

/// Bytes of a workgroup variable, reading an override-sized array at the overrides' defaults.
fn workgroup_variable_bytes(module: &naga::Module, variable: &naga::GlobalVariable) -> u32 {
    match module.types[variable.ty].inner {
        naga::TypeInner::Array { size: naga::ArraySize::Pending(length), stride, .. } => {
            stride * evaluate(module, module.overrides[length].init.expect("a default"))
        }
        ref inner => inner.size(module.to_ctx()),
    }
}

/// A `u32` constant expression of literals, overrides (at their defaults) and products.
fn evaluate(module: &naga::Module, expression: naga::Handle<naga::Expression>) -> u32 {
    match module.global_expressions[expression] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        naga::Expression::Override(o) => evaluate(module, module.overrides[o].init.expect("a default")),
        naga::Expression::Binary { op: naga::BinaryOperator::Multiply, left, right } => {
            evaluate(module, left) * evaluate(module, right)
        }
        ref other => panic!("unexpected constant expression {other:?}"),
    }
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
    use naga::Literal::{F32, I32, U32};
    let module = parse_and_validate("common.wgsl", shaders::common_source());
    assert_eq!(wgsl_constant(&module, "GEOMETRY_EPSILON"), F32(drape::math::GEOMETRY_EPSILON));
    assert_eq!(wgsl_constant(&module, "DENOMINATOR_EPSILON"), F32(drape::constraints::DENOMINATOR_EPSILON));
    assert_eq!(wgsl_constant(&module, "WORKGROUP_SIZE"), U32(drape::gpu::records::WORKGROUP_SIZE));
    assert_eq!(wgsl_constant(&module, "MAX_UNIT_TYPES"), U32(drape::gpu::records::MAX_UNIT_TYPES as u32));
    assert_eq!(wgsl_constant(&module, "MAX_KINDS"), U32(drape::gpu::records::MAX_KINDS as u32));
    let collide = parse_and_validate("integrate", &shaders::integrate_module_source());
    assert_eq!(wgsl_constant(&collide, "COLLIDER_PLANE"), U32(GpuCollider::PLANE));
    assert_eq!(wgsl_constant(&collide, "COLLIDER_SPHERE"), U32(GpuCollider::SPHERE));
    assert_eq!(wgsl_constant(&collide, "COLLIDER_CAPSULE"), U32(GpuCollider::CAPSULE));
    assert_eq!(wgsl_constant(&collide, "COLLIDER_BOX"), U32(GpuCollider::BOX));
    assert_eq!(wgsl_constant(&collide, "COLLIDER_MESH"), U32(GpuCollider::MESH));
    assert_eq!(wgsl_constant(&collide, "FIELD_SLOPE"), F32(drape::distance_field::FIELD_SLOPE));
    let near = drape::collision::MAX_NEAR_COLLIDERS as u32;
    assert_eq!(wgsl_constant(&collide, "MAX_NEAR_COLLIDERS"), U32(near));
    assert_eq!(wgsl_constant(&collide, "MAX_CONTACTS"), U32(drape::collision::MAX_CONTACTS as u32));
    assert_eq!(wgsl_constant(&collide, "PARALLEL_EPSILON"), F32(drape::collision::PARALLEL_EPSILON));
    assert_eq!(wgsl_constant(&collide, "TRACE_STEPS"), U32(drape::collision::TRACE_STEPS));
    assert_eq!(wgsl_constant(&collide, "TRACE_TOLERANCE"), F32(drape::collision::TRACE_TOLERANCE));
    assert_eq!(wgsl_constant(&collide, "CLOCK_PERIOD"), F32(drape::passes::air::CLOCK_PERIOD));
    let air = parse_and_validate("aerodynamics", &shaders::aerodynamics_module_source());
    assert_eq!(wgsl_constant(&air, "SPEED_EPSILON"), F32(drape::passes::air::SPEED_EPSILON));
    assert_eq!(wgsl_constant(&air, "PHASE_LIMIT"), F32(drape::passes::air::PHASE_LIMIT));
    let rigid = parse_and_validate("rigid damping", &shaders::rigid_damping_module_source());
    assert_eq!(wgsl_constant(&rigid, "SINGULAR_INERTIA"), F32(drape::passes::rigid_damping::SINGULAR_INERTIA));
    let springs = parse_and_validate("mass-spring", &shaders::mass_spring_module_source());
    let shift = drape::passes::springs::SPRING_KIND_SHIFT;
    assert_eq!(wgsl_constant(&springs, "SPRING_KIND_SHIFT"), U32(shift));
    assert_eq!(wgsl_constant(&springs, "SPRING_PARTICLE_MASK"), U32((1 << shift) - 1));
    let areas = parse_and_validate("area limits", &shaders::area_module_source());
    assert_eq!(wgsl_constant(&areas, "MAX_AREA_GROWTH"), F32(drape::passes::area_limits::MAX_AREA_GROWTH));
    use drape::passes::self_collision as sc;
    let hash = parse_and_validate("self-collision", &shaders::self_collision_module_source());
    assert_eq!(wgsl_constant(&hash, "MAX_BUCKET_ENTRIES"), U32(sc::MAX_BUCKET_ENTRIES));
    assert_eq!(wgsl_constant(&hash, "MAX_CANDIDATES"), U32(sc::MAX_CANDIDATES));
    assert_eq!(wgsl_constant(&hash, "CELL_LIMIT"), F32(sc::CELL_LIMIT));
    for (axis, prime) in ["X", "Y", "Z"].into_iter().zip(sc::HASH_PRIMES) {
        assert_eq!(wgsl_constant(&hash, &format!("HASH_PRIME_{axis}")), U32(prime));
    }
    use sc::triangles as st;
    assert_eq!(wgsl_constant(&hash, "RELAXATION"), F32(st::RELAXATION));
    assert_eq!(wgsl_constant(&hash, "MAX_TRIANGLE_COLUMNS"), U32(st::MAX_TRIANGLE_COLUMNS));
    assert_eq!(wgsl_constant(&hash, "MAX_TRIANGLE_CANDIDATES"), U32(st::MAX_TRIANGLE_CANDIDATES));
    assert_eq!(wgsl_constant(&hash, "MAX_FIXED_POINT"), F32(st::MAX_FIXED_POINT));
    assert_eq!(wgsl_constant(&hash, "MAX_TRIANGLE_STEPS"), U32(st::MAX_TRIANGLE_STEPS));
    assert_eq!(wgsl_constant(&hash, "MAX_PARTICLE_CORRECTIONS"), I32(st::MAX_PARTICLE_CORRECTIONS));
}

macro_rules! rust_offsets {
    ($ty:ty, $($field:ident),* $(,)?) => {
        &[$((stringify!($field), offset_of!($ty, $field))),*]
    };
}

#[test]
fn gpu_structs_match_their_wgsl_twins() {
    let integrate = parse_and_validate("integrate", &shaders::integrate_module_source());
    assert_layout(
        &integrate,
        "Collider",
        size_of::<GpuCollider>(),
        rust_offsets!(
            GpuCollider,
            a,
            b,
            rotation,
            start_translation,
            start_rotation,
            end_translation,
            end_rotation,
            material,
            bounds,
            field,
            kind
        ),
    );
    // The list's head is its members before the runtime-sized array of records.
    let (_, list) = wgsl_layout(&integrate, "ColliderList");
    let head = rust_offsets!(GpuColliderListHead, overflow, count).iter().map(|&(n, o)| (n.to_string(), o as u32));
    let records = ("colliders".to_string(), size_of::<GpuColliderListHead>() as u32);
    assert_eq!(list, head.chain([records]).collect::<Vec<_>>(), "ColliderList and GpuColliderListHead differ");
    let self_collision = parse_and_validate("self-collision", &shaders::self_collision_module_source());
    let (_, table) = wgsl_layout(&self_collision, "SpatialHashTable");
    let head = rust_offsets!(GpuSpatialHashHead, overflow).iter().map(|&(n, o)| (n.to_string(), o as u32));
    let pads = [4, 8, 12].map(|o| (format!("_pad{}", o / 4 - 1), o));
    let starts = ("starts".to_string(), size_of::<GpuSpatialHashHead>() as u32);
    let expected: Vec<_> = head.chain(pads).chain([starts]).collect();
    assert_eq!(table, expected, "SpatialHashTable and GpuSpatialHashHead differ");
    let module = parse_and_validate("common.wgsl", shaders::common_source());
    assert_layout(
        &module,
        "Params",
        size_of::<GpuParams>(),
        rust_offsets!(
            GpuParams,
            acceleration,
            unit_types,
            kinds,
            tether,
            strain_limits,
            area_limits,
            air,
            springs,
            self_collision,
            relaxation,
            h,
            damping_factor,
            restitution_threshold,
            particle_count,
            pin_count,
            colour_count,
            substeps,
            unit_table,
            jacobi_items,
            jacobi_unit_table,
            tether_particles,
            rigid_damping,
            hash_table_size,
            triangle_count,
        ),
    );
    assert_layout(
        &module,
        "Air",
        size_of::<GpuAir>(),
        rust_offsets!(GpuAir, wind, density, drag_coefficient, lift_coefficient, gust_strength, gust_frequency),
    );
    assert_layout(
        &module,
        "KindParams",
        size_of::<GpuKind>(),
        rust_offsets!(GpuKind, response, records, jacobi_shares, mapped),
    );
    assert_layout(
        &module,
        "DispatchInfo",
        size_of::<DispatchInfo>(),
        rust_offsets!(DispatchInfo, substep, first_iteration, iterations, colour_first, colour_count, stripe_entries),
    );
    assert_layout(&module, "Pin", size_of::<PinRecord>(), rust_offsets!(PinRecord, position, particle));
    let solver = parse_and_validate("solver", &shaders::solver_module_source(&UnitType::ALL));
    assert_layout(
        &solver,
        "StretchConstraint",
        size_of::<StretchRecord>(),
        rust_offsets!(StretchRecord, rest_length, lambda, stiffness_scale),
    );
    assert_layout(
        &solver,
        "BendingConstraint",
        size_of::<BendingRecord>(),
        rust_offsets!(BendingRecord, rest_angle, lambda, stiffness_scale),
    );
    assert_layout(
        &solver,
        "IsometricConstraint",
        size_of::<IsometricRecord>(),
        rust_offsets!(IsometricRecord, weights, lambda, stiffness_scale),
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
    let pipelines =
        [("cloth.wgsl", "cloth"), ("shapes.wgsl", "shape"), ("planes.wgsl", "plane"), ("meshes.wgsl", "mesh")];
    for (file, pipeline) in pipelines {
        let stage = viewer::FILES.iter().find(|(n, _)| *n == file).unwrap_or_else(|| panic!("no {file}")).1;
        let module = parse_and_validate(file, &viewer::module_source(stage));
        for suffix in ["vertex", "fragment"] {
            let entry = format!("{pipeline}_{suffix}");
            assert!(module.entry_points.iter().any(|e| e.name == entry), "{file} lacks {entry}");
        }
    }
    assert_eq!(viewer::FILES.len(), 5, "a new viewer shader needs a line here");
}
