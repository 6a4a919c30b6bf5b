//! Every WGSL module drape builds parses and validates with naga, every WGSL file is in one,
//! every constant generated from Rust has exactly its Rust value in WGSL, and every host-shared
//! WGSL struct matches its `#[repr(C)]` Rust twin in size and member offsets. No GPU needed.

use drape::passes::{shader_modules, GpuParams, ShaderModule};
use drape::wgsl::{f32_literal, Scalar, StructLayout};
use std::collections::BTreeSet;
use std::path::Path;

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

fn parse_module(module: &ShaderModule) -> (naga::Module, naga::valid::ModuleInfo) {
    parse_validate_info(module.label, &module.source)
}

/// Every `.wgsl` file under `shaders/` but the viewer's, as a path relative to it.
fn wgsl_files_on_disk() -> BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).expect("readable directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "wgsl") {
                out.insert(path.strip_prefix(root).expect("under shaders/").to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files = BTreeSet::new();
    walk(&root, &root, &mut files);
    files.retain(|f| !f.starts_with("viewer/"));
    files
}

#[test]
fn every_module_validates_and_every_wgsl_file_is_in_one() {
    let modules = shader_modules();
    for module in &modules {
        parse_module(module);
    }
    let used: BTreeSet<String> = modules.iter().flat_map(|m| m.files.iter().map(|f| f.path.to_string())).collect();
    for file in wgsl_files_on_disk() {
        assert!(used.contains(&file), "shaders/{file} is in no module");
    }
}

/// No WGSL file declares a binding: every declaration is generated from a binding table
/// (`drape::wgsl::BindingTable`), so a binding index is written nowhere else.
#[test]
fn no_wgsl_file_declares_a_binding() {
    for module in shader_modules() {
        for file in &module.files {
            assert!(!file.source.contains("@binding"), "shaders/{} declares a binding by hand", file.path);
        }
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
    let mut files: Vec<(String, &str)> = Vec::new();
    for module in shader_modules() {
        files.extend(module.files.iter().map(|f| (f.path.to_string(), f.source)));
    }
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
    for module in shader_modules() {
        let (parsed, info) = parse_module(&module);
        for wanted in &module.entry_points {
            let found = parsed.entry_points.iter().any(|e| e.name == *wanted);
            assert!(found, "{}: missing entry point {wanted}", module.label);
        }
        assert_within_webgpu_limits(module.label, &parsed, &info);
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
/// (chosen per adapter when the pipeline is built, src/passes/plan.rs `WorkgroupSizes`) as 1, so
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

/// The WGSL struct of `layout` has its Rust twin's size and members at the same offsets (padding
/// members left out); a head before a runtime-sized array has the array right after it.
fn assert_layout(module: &naga::Module, layout: &StructLayout) {
    let name = layout.name;
    let (wgsl_size, wgsl_members) = wgsl_layout(module, name);
    let members: Vec<&(String, u32)> = wgsl_members.iter().filter(|(n, _)| !n.starts_with("_pad")).collect();
    let rust: Vec<(String, u32)> = layout.members.iter().map(|&(n, o)| (n.to_string(), o as u32)).collect();
    match layout.tail {
        None => {
            assert_eq!(wgsl_size as usize, layout.size, "{name}: WGSL size {wgsl_size}, Rust size {}", layout.size);
            assert_eq!(members.into_iter().cloned().collect::<Vec<_>>(), rust, "{name}: members differ");
        }
        Some(tail) => {
            let expected: Vec<(String, u32)> =
                rust.into_iter().chain([(tail.to_string(), layout.size as u32)]).collect();
            assert_eq!(members.into_iter().cloned().collect::<Vec<_>>(), expected, "{name}: head and array differ");
        }
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

/// Whether a WGSL literal is exactly a Rust value, bit for bit.
fn same_value(literal: naga::Literal, value: Scalar) -> bool {
    match (literal, value) {
        (naga::Literal::U32(a), Scalar::U32(b)) => a == b,
        (naga::Literal::I32(a), Scalar::I32(b)) => a == b,
        (naga::Literal::F32(a), Scalar::F32(b)) => a.to_bits() == b.to_bits(),
        _ => false,
    }
}

#[test]
fn generated_constants_have_their_rust_values_bit_for_bit() {
    for module in shader_modules() {
        let (parsed, _) = parse_module(&module);
        for constant in &module.constants {
            let literal = wgsl_constant(&parsed, &constant.name);
            assert!(same_value(literal, constant.value), "{}: {} is {literal:?} in WGSL", module.label, constant.name);
        }
    }
}

/// Hexadecimal literals keep every bit, subnormals and signs included.
#[test]
fn f32_literals_are_exact() {
    let values = [1e-9, -1e-12, f32::MAX, f32::MIN_POSITIVE, 1e-45, -0.0, 0.0, 0.414_213_57, 16384.0, 1.732_050_8];
    let source: String =
        values.iter().enumerate().map(|(i, &v)| format!("const C{i}: f32 = {};\n", f32_literal(v))).collect();
    let module = parse_and_validate("literals", &source);
    for (i, &value) in values.iter().enumerate() {
        assert!(same_value(wgsl_constant(&module, &format!("C{i}")), Scalar::F32(value)), "{value:e}");
    }
}

#[test]
fn gpu_structs_match_their_wgsl_twins() {
    let modules = shader_modules();
    let mut checked = BTreeSet::new();
    for module in &modules {
        let (parsed, _) = parse_module(module);
        for layout in &module.structs {
            assert_layout(&parsed, layout);
            checked.insert(layout.name);
        }
    }
    for name in
        ["DispatchInfo", "Pin", "Collider", "ColliderList", "KindParams", "StretchConstraint", "SpatialHashTable"]
    {
        assert!(checked.contains(name), "{name} was not checked");
    }
}

/// Every struct of every module is laid out by its members' natural sizes and alignments alone:
/// no member starts past where WGSL's rules put it (no `@size` or `@align`). wgpu's GL backend
/// writes std140 GLSL, which knows no explicit sizes: a `@size` gap in `Params` was silently lost
/// there and every block after it read the wrong bytes.
#[test]
fn every_struct_has_its_natural_layout() {
    for module in shader_modules() {
        let (parsed, _) = parse_module(&module);
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(parsed.to_ctx()).expect("a layout");
        for (_, ty) in parsed.types.iter() {
            let naga::TypeInner::Struct { members, .. } = &ty.inner else { continue };
            let mut end = 0;
            for member in members {
                let layout = layouter[member.ty];
                let natural = layout.alignment.round_up(end);
                let name = ty.name.as_deref().unwrap_or("?");
                let member_name = member.name.as_deref().unwrap_or("?");
                assert_eq!(
                    member.offset, natural,
                    "{}: {name}.{member_name} is not at its natural offset",
                    module.label
                );
                end = member.offset + layout.size;
            }
        }
    }
}

/// Each module's `Params` holds the frame's own members where `GpuParams` has them, and its
/// pass's block where the frame's parameters lay it out.
#[test]
fn every_module_finds_its_block_of_the_frame_parameters() {
    for module in shader_modules() {
        let (parsed, _) = parse_module(&module);
        let (_, members) = wgsl_layout(&parsed, "Params");
        let frame = GpuParams::LAYOUT.members.iter().map(|&(n, o)| (n.to_string(), o as u32));
        let block = module.block.map(|(member, offset, _)| (member.to_string(), offset as u32));
        let expected: Vec<(String, u32)> = frame.chain(block).collect();
        let found: Vec<(String, u32)> = members.into_iter().filter(|(n, _)| !n.starts_with('_')).collect();
        assert_eq!(found, expected, "{}: Params", module.label);
        if let Some((_, _, layout)) = module.block {
            assert_layout(&parsed, &layout);
        }
    }
}

#[cfg(feature = "viewer")]
#[test]
fn viewer_shaders_validate_and_match_their_rust_twins() {
    use drape::viewer::renderer::ViewUniform;
    use drape::viewer::shaders as viewer;
    let view = viewer::FILES.iter().find(|(n, _)| *n == "view.wgsl").expect("view.wgsl").1;
    let module = parse_and_validate("view.wgsl", view);
    assert_layout(&module, &drape::struct_layout!(ViewUniform as "ViewUniform", view_proj, eye, light_direction));
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
