//! glTF input: a test asset set written here (two nodes, one moved by its transform, a UV seam,
//! painted pins, a collider node), read as `.glb` and as `.gltf` with an external buffer, must
//! give the cloth the same triangles give as an OBJ, pinned where painted; broken files give
//! typed errors, never a panic.

use drape::constraints::Kind;
use drape::{ClothMesh, Error, GltfCloth, GltfError, MeshError};
use glam::{Vec2, Vec3};
use serde_json::{json, Value};
use support::gltf_asset::{base64, Asset, FLOAT};

mod support;
use std::path::PathBuf;

const SPACING: f32 = 0.25;

/// Grid point (column i, row j) of the test cloth, 5 × 3 points in the XZ plane, 1 m up.
fn point(i: u32, j: u32) -> Vec3 {
    Vec3::new(i as f32 * SPACING, 1.0, j as f32 * SPACING)
}

/// The triangles of columns `first..first + 2` (two quads across, two down), as corner (i, j).
fn half_triangles(first: u32) -> Vec<[(u32, u32); 3]> {
    let mut triangles = Vec::new();
    for j in 0..2 {
        for i in first..first + 2 {
            triangles.push([(i, j), (i, j + 1), (i + 1, j + 1)]);
            triangles.push([(i, j), (i + 1, j + 1), (i + 1, j)]);
        }
    }
    triangles
}

/// The texture coordinate of corner (i, j) in glTF's convention (v down), and in a triangle
/// lying left of column 1 a different one there: a UV seam down column 1.
fn gltf_uv(i: u32, j: u32, left_of_seam: bool) -> Vec2 {
    let u = i as f32 / 4.0 + if left_of_seam && i == 1 { 0.5 } else { 0.0 };
    Vec2::new(u, j as f32 / 2.0)
}

/// The test asset: node `left` (columns 0–2, identity) with a UV seam down column 1 and the pins
/// painted red on its first row; node `right` (columns 2–4) defined half a metre to the left and
/// moved back by its translation, its first row pinned by a `_PIN` attribute and its particles
/// twice as heavy by `_MASS`; a closed cube in node `Collider box` under the cloth. Returns the
/// asset and the triangles in the order the loader meets them.
fn test_asset() -> (Asset, Vec<[(u32, u32); 3]>) {
    let mut asset = Asset::default();
    // Left: one vertex per corner of each triangle side of the seam.
    let left = half_triangles(0);
    let mut points = Vec::new();
    let mut uvs = Vec::new();
    let mut colours = Vec::new();
    let mut indices = Vec::new();
    let mut vertex_of = std::collections::HashMap::new();
    for triangle in &left {
        let left_of_seam = triangle.iter().all(|&(i, _)| i <= 1);
        for &(i, j) in triangle {
            let key = (i, j, left_of_seam && i == 1);
            let vertex = *vertex_of.entry(key).or_insert_with(|| {
                points.push(point(i, j));
                uvs.extend(gltf_uv(i, j, left_of_seam).to_array());
                colours.push(if j == 0 { [255, 0, 0, 255] } else { [0, 0, 255, 255] });
                points.len() as u32 - 1
            });
            indices.push(vertex);
        }
    }
    let (p, t, c, x) =
        (asset.positions(&points), asset.floats(&uvs, "VEC2", 2), asset.colours(&colours), asset.indices(&indices));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p, "TEXCOORD_0": t, "COLOR_0": c }, "indices": x }));
    asset.node(json!({ "name": "left", "mesh": mesh }), true);
    // Right: indexed by grid point, defined 0.5 m to the left.
    let right = half_triangles(2);
    let grid: Vec<(u32, u32)> = (0..3).flat_map(|j| (2..5).map(move |i| (i, j))).collect();
    let index = |c: (u32, u32)| grid.iter().position(|&g| g == c).unwrap() as u32;
    let local: Vec<Vec3> = grid.iter().map(|&(i, j)| point(i, j) - Vec3::new(0.5, 0.0, 0.0)).collect();
    let uv: Vec<f32> = grid.iter().flat_map(|&(i, j)| gltf_uv(i, j, false).to_array()).collect();
    let pin: Vec<f32> = grid.iter().map(|&(_, j)| if j == 0 { 1.0 } else { 0.0 }).collect();
    let mass: Vec<f32> = grid.iter().map(|_| 2.0).collect();
    let indices: Vec<u32> = right.iter().flatten().map(|&c| index(c)).collect();
    let (p, t) = (asset.positions(&local), asset.floats(&uv, "VEC2", 2));
    let (pin, mass, x) = (asset.floats(&pin, "SCALAR", 1), asset.floats(&mass, "SCALAR", 1), asset.indices(&indices));
    let attributes = json!({ "POSITION": p, "TEXCOORD_0": t, "_PIN": pin, "_MASS": mass });
    let mesh = asset.mesh(json!({ "attributes": attributes, "indices": x }));
    let child = asset.node(json!({ "name": "right", "mesh": mesh, "translation": [0.5, 0.0, 0.0] }), false);
    asset.node(json!({ "name": "group", "children": [child] }), true);
    // The collider: a cube 0.4 m across, centred 0.5 m under the cloth's middle.
    let (corners, faces) = cube_mesh(0.2);
    let (p, x) = (asset.positions(&corners), asset.indices(&faces));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    asset.node(json!({ "name": "Collider box", "mesh": mesh, "translation": [0.5, 0.5, 0.25] }), true);
    (asset, left.into_iter().chain(right).collect())
}

/// A closed cube of half side `half` about the origin, triangles counter-clockwise from outside.
fn cube_mesh(half: f32) -> (Vec<Vec3>, Vec<u32>) {
    let corners: Vec<Vec3> = (0..8)
        .map(|k| {
            Vec3::new(
                if k & 1 == 0 { -half } else { half },
                if k & 2 == 0 { -half } else { half },
                if k & 4 == 0 { -half } else { half },
            )
        })
        .collect();
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let faces = quads.iter().flat_map(|&[a, b, c, d]| [a, b, c, a, c, d]).collect();
    (corners, faces)
}

/// The OBJ of `triangles`: each corner its own `v` and `vt` line, with the texture coordinate
/// the asset gives it (the seam's side as in [`test_asset`]) in OBJ's convention (v up).
fn obj_of(triangles: &[[(u32, u32); 3]]) -> String {
    let mut obj = String::new();
    for (t, triangle) in triangles.iter().enumerate() {
        let left_of_seam = triangle.iter().all(|&(i, _)| i <= 1);
        for &(i, j) in triangle {
            let (p, uv) = (point(i, j), gltf_uv(i, j, left_of_seam));
            obj += &format!("v {} {} {}\nvt {} {}\n", p.x, p.y, p.z, uv.x, 1.0 - uv.y);
        }
        let corner = 3 * t + 1;
        obj += &format!("f {0}/{0} {1}/{1} {2}/{2}\n", corner, corner + 1, corner + 2);
    }
    obj
}

/// A fresh folder under the system's temporary folder for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("drape-gltf-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `.glb` and the `.gltf` with its buffer in a `.bin` beside it (a name that needs
/// escaping) give the cloth the same triangles give as an OBJ: the two nodes welded along
/// column 2 and the seam down column 1 welded back, the texture coordinates of each vertex's
/// first corner; the pins are the painted first row, by colour on the left and `_PIN` on the
/// right; `_MASS` doubles the right's masses; the collider node is a mesh collider where its
/// transform puts it.
#[test]
fn a_gltf_cloth_is_its_obj_cloth_pinned_where_painted() {
    let (asset, triangles) = test_asset();
    let dir = scratch("cloth");
    let glb = dir.join("cloth.glb");
    std::fs::write(&glb, asset.glb()).unwrap();
    let gltf = dir.join("cloth.gltf");
    std::fs::write(dir.join("cloth data.bin"), &asset.bin).unwrap();
    std::fs::write(&gltf, serde_json::to_vec(&asset.json(Some("cloth%20data.bin"))).unwrap()).unwrap();
    let obj = ClothMesh::from_obj_str(&obj_of(&triangles)).unwrap();
    assert_eq!(obj.positions.len(), 15, "the OBJ welds to the 5 × 3 grid");
    for path in [&glb, &gltf] {
        let cloth = GltfCloth::load(path).unwrap();
        assert_eq!(cloth.mesh.positions, obj.positions, "{}", path.display());
        assert_eq!(cloth.mesh.triangles, obj.triangles);
        assert_eq!(cloth.mesh.uvs, obj.uvs);
        let first_row: Vec<u32> = (0..15).filter(|&v| cloth.mesh.positions[v as usize].z == 0.0).collect();
        assert_eq!(cloth.pins, first_row, "the painted row is pinned");
        let model = cloth.model(0.2).unwrap();
        let plain = drape::ClothModel::new(obj.clone(), 0.2, &first_row).unwrap();
        for (v, (m, plain)) in model.masses().iter().zip(plain.masses()).enumerate() {
            let x = cloth.mesh.positions[v].x;
            let expected = if x > 0.5 { 2.0 * plain } else { *plain };
            // A vertex of the shared column keeps its first corner's scale (the left's: none).
            assert!((m - expected).abs() <= 1e-6 * expected, "vertex {v} at x = {x}: {m} kg, not {expected}");
        }
        assert_eq!(cloth.colliders.len(), 1);
        let box_centre = Vec3::new(0.5, 0.5, 0.25);
        let distance = |dy: f32| cloth.colliders[0].signed_distance(box_centre + Vec3::new(0.0, dy, 0.0));
        let (inside, below_top, above_top) = (distance(0.0), distance(0.19), distance(0.21));
        assert!(
            (inside + 0.2).abs() < 0.01 && below_top < 0.0 && above_top > 0.0,
            "{inside}, {below_top}, {above_top}"
        );
    }
    let embedded = asset.json(Some(&format!("data:application/octet-stream;base64,{}", base64(&asset.bin))));
    let from_memory = GltfCloth::from_slice(&serde_json::to_vec(&embedded).unwrap()).unwrap();
    assert_eq!(from_memory.mesh, obj, "a .gltf with a data: URI, read from memory");
    assert_eq!(GltfCloth::from_slice(&asset.glb()).unwrap().mesh, obj, "a .glb read from memory");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A material map painted as `_STIFFNESS` scales the stretch constraints by their particles'
/// mean, and a mirroring node transform keeps each triangle counter-clockwise from its front.
#[test]
fn stiffness_maps_and_mirrored_nodes() {
    let mut asset = Asset::default();
    let points = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
    let (p, s) = (asset.positions(&points), asset.floats(&[1.0, 3.0, 3.0], "SCALAR", 1));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p, "_STIFFNESS": s } }));
    asset.node(json!({ "mesh": mesh, "scale": [-1.0, 1.0, 1.0] }), true);
    let cloth = GltfCloth::from_slice(&asset.glb()).unwrap();
    let [a, b, c] = cloth.mesh.triangles[0].map(|v| cloth.mesh.positions[v as usize]);
    assert!((b - a).cross(c - a).z > 0.0, "the mirrored triangle still faces +z");
    assert!(cloth.mesh.positions.contains(&Vec3::new(-1.0, 0.0, 0.0)), "{:?}", cloth.mesh.positions);
    let model = cloth.model(0.2).unwrap();
    let scales = model.constraints().of(Kind::Stretch).stiffness_scales().to_vec();
    let mut sorted = scales.clone();
    sorted.sort_by(f32::total_cmp);
    assert_eq!(sorted, vec![2.0, 2.0, 3.0], "each edge takes its ends' mean");
}

/// Broken files: each a typed error naming what is wrong, none a panic.
#[test]
fn broken_gltf_files_are_typed_errors() {
    let (asset, _) = test_asset();
    let glb = asset.glb();
    let read_error = |bytes: &[u8]| match GltfCloth::from_slice(bytes) {
        Err(Error::Gltf { error: GltfError::Read { .. }, .. }) => (),
        other => panic!("expected a read error, got {other:?}"),
    };
    read_error(&glb[..glb.len() / 2]);
    let mut wrong_magic = glb.clone();
    wrong_magic[..4].copy_from_slice(b"gLTF");
    read_error(&wrong_magic);
    read_error(b"{ \"asset\": ");
    let primitive_error =
        |value: Value, expected: &str| match GltfCloth::from_slice(&serde_json::to_vec(&value).unwrap()) {
            Err(Error::Gltf { error: GltfError::Primitive { node, primitive, reason }, .. }) => {
                assert_eq!((node.as_str(), primitive), ("left", 0));
                assert!(reason.contains(expected), "{reason}");
            }
            other => panic!("expected a primitive error with `{expected}`, got {other:?}"),
        };
    let embedded =
        |asset: &Asset| asset.json(Some(&format!("data:application/octet-stream;base64,{}", base64(&asset.bin))));
    let mut out_of_range = embedded(&asset);
    out_of_range["accessors"][0]["count"] = json!(1000);
    primitive_error(out_of_range, "reads past buffer view");
    let mut lines = embedded(&asset);
    lines["meshes"][0]["primitives"][0]["mode"] = json!(1);
    primitive_error(lines, "not triangles");
    let mut nan = Asset::default();
    // The bounds a file must give its positions are finite; the data is not.
    let bytes: Vec<u8> =
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, f32::NAN, 0.0, 0.0f32].iter().flat_map(|v| v.to_le_bytes()).collect();
    let p = nan.accessor(&bytes, FLOAT, "VEC3", 3, json!({ "min": [0.0, 0.0, 0.0], "max": [1.0, 0.0, 0.0] }));
    let mesh = nan.mesh(json!({ "attributes": { "POSITION": p } }));
    nan.node(json!({ "name": "left", "mesh": mesh }), true);
    primitive_error(embedded(&nan), "non-finite");
    let mut bad_index = Asset::default();
    let (p, x) = (bad_index.positions(&[Vec3::ZERO, Vec3::X, Vec3::Y]), bad_index.indices(&[0, 1, 7]));
    let mesh = bad_index.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    bad_index.node(json!({ "name": "left", "mesh": mesh }), true);
    primitive_error(embedded(&bad_index), "index 7");
    let missing = asset.json(Some("nowhere.bin"));
    let dir = scratch("missing");
    std::fs::write(dir.join("missing.gltf"), serde_json::to_vec(&missing).unwrap()).unwrap();
    match GltfCloth::load(dir.join("missing.gltf")) {
        Err(Error::Gltf { error: GltfError::Buffer { buffer: 0, .. }, .. }) => (),
        other => panic!("expected a buffer error, got {other:?}"),
    }
    let mut short = asset.json(Some(&format!("data:application/octet-stream;base64,{}", base64(&asset.bin[..8]))));
    short["buffers"][0]["byteLength"] = json!(asset.bin.len());
    match GltfCloth::from_slice(&serde_json::to_vec(&short).unwrap()) {
        Err(Error::Gltf { error: GltfError::Buffer { buffer: 0, .. }, .. }) => (),
        other => panic!("expected a buffer error, got {other:?}"),
    }
    match GltfCloth::load(dir.join("absent.glb")) {
        Err(Error::Gltf { error: GltfError::Read { .. }, .. }) => (),
        other => panic!("expected a read error, got {other:?}"),
    }
    let mut only_collider = Asset::default();
    let (corners, faces) = cube_mesh(0.2);
    let (p, x) = (only_collider.positions(&corners), only_collider.indices(&faces));
    let mesh = only_collider.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    only_collider.node(json!({ "name": "collider", "mesh": mesh }), true);
    assert!(matches!(GltfCloth::from_slice(&only_collider.glb()), Err(Error::Gltf { error: GltfError::NoCloth, .. })));
    let mut cycle = embedded(&asset);
    cycle["nodes"][1]["children"] = json!([1]);
    let result = GltfCloth::from_slice(&serde_json::to_vec(&cycle).unwrap());
    assert!(
        matches!(result, Err(Error::Gltf { error: GltfError::Read { .. } | GltfError::Hierarchy { .. }, .. })),
        "{result:?}"
    );
    let mut open_collider = Asset::default();
    let (p, x) = (open_collider.positions(&corners), open_collider.indices(&faces[..faces.len() - 6]));
    let cloth_points = open_collider.positions(&[Vec3::ZERO, Vec3::X, Vec3::Y]);
    let box_mesh = open_collider.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    let cloth_mesh = open_collider.mesh(json!({ "attributes": { "POSITION": cloth_points } }));
    open_collider.node(json!({ "name": "cloth", "mesh": cloth_mesh }), true);
    open_collider.node(json!({ "name": "collider open box", "mesh": box_mesh }), true);
    match GltfCloth::from_slice(&open_collider.glb()) {
        Err(Error::Gltf {
            error: GltfError::Collider { node, .. } | GltfError::Mesh { node: Some(node), .. }, ..
        }) => {
            assert_eq!(node, "collider open box")
        }
        other => panic!("expected a collider error, got {other:?}"),
    }
    let mut degenerate = Asset::default();
    let p = degenerate.positions(&[Vec3::ZERO, Vec3::X, 2.0 * Vec3::X]);
    let mesh = degenerate.mesh(json!({ "attributes": { "POSITION": p } }));
    degenerate.node(json!({ "mesh": mesh }), true);
    assert!(matches!(
        GltfCloth::from_slice(&degenerate.glb()),
        Err(Error::Gltf {
            error: GltfError::Mesh { node: None, error: MeshError::DegenerateTriangle { triangle: 0 } },
            ..
        })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A second file's nodes are colliders whatever their names, placed by their transforms; a file
/// with an open mesh there says which node.
#[test]
fn a_second_file_brings_colliders() {
    let mut asset = Asset::default();
    let (corners, faces) = cube_mesh(0.2);
    let (p, x) = (asset.positions(&corners), asset.indices(&faces));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    asset.node(json!({ "name": "body", "mesh": mesh, "translation": [0.0, 1.0, 0.0] }), true);
    asset.node(json!({ "name": "chair", "mesh": mesh, "translation": [2.0, 0.0, 0.0] }), true);
    let dir = scratch("colliders");
    let file = dir.join("set.glb");
    std::fs::write(&file, asset.glb()).unwrap();
    let colliders = drape::gltf_input::load_colliders(&file).unwrap();
    assert_eq!(colliders.len(), 2);
    assert!(colliders[0].signed_distance(Vec3::new(0.0, 1.0, 0.0)) < -0.15);
    assert!(colliders[1].signed_distance(Vec3::new(2.0, 0.0, 0.0)) < -0.15);
    assert!(colliders[0].signed_distance(Vec3::new(2.0, 0.0, 0.0)) > 0.5);
    let mut open = Asset::default();
    let (p, x) = (open.positions(&corners), open.indices(&faces[..faces.len() - 6]));
    let mesh = open.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    open.node(json!({ "name": "open box", "mesh": mesh }), true);
    std::fs::write(&file, open.glb()).unwrap();
    match drape::gltf_input::load_colliders(&file) {
        Err(Error::Gltf {
            error: GltfError::Collider { node, .. } | GltfError::Mesh { node: Some(node), .. }, ..
        }) => {
            assert_eq!(node, "open box")
        }
        other => panic!("expected a collider error, got {other:?}"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The data: URI form of `asset`, as JSON to edit.
fn embedded(asset: &Asset) -> Value {
    asset.json(Some(&format!("data:application/octet-stream;base64,{}", base64(&asset.bin))))
}

fn load(json: &Value) -> Result<GltfCloth, Error> {
    GltfCloth::from_slice(&serde_json::to_vec(json).unwrap())
}

/// One triangle in node `name`, painted with `colour` (RGBA bytes) at every corner.
fn painted_triangle(colour: [u8; 4]) -> Asset {
    let mut asset = Asset::default();
    let (p, c) = (asset.positions(&[Vec3::ZERO, Vec3::X, Vec3::Y]), asset.colours(&[colour; 3]));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p, "COLOR_0": c } }));
    asset.node(json!({ "name": "left", "mesh": mesh }), true);
    asset
}

/// Red paint pins; white, grey and other colours with red in them do not (a new colour
/// attribute starts white, and painting the pins red must not pin the rest).
#[test]
fn only_red_paint_pins() {
    let pins = |colour| GltfCloth::from_slice(&painted_triangle(colour).glb()).unwrap().pins.len();
    assert_eq!(pins([255, 0, 0, 255]), 3);
    assert_eq!(pins([230, 60, 40, 255]), 3);
    for colour in [[255, 255, 255, 255], [200, 200, 200, 255], [255, 255, 0, 255], [255, 0, 255, 255], [0, 0, 255, 255]]
    {
        assert_eq!(pins(colour), 0, "{colour:?}");
    }
}

/// Files the `gltf` crate would panic on, or that would overflow an offset, or reach outside
/// their folder, or paint nonsense: each a typed error.
#[test]
fn hostile_gltf_files_are_typed_errors() {
    let asset = painted_triangle([0, 0, 0, 255]);
    let mut glb = asset.glb();
    glb[8..12].copy_from_slice(&4u32.to_le_bytes());
    assert!(matches!(GltfCloth::from_slice(&glb), Err(Error::Gltf { error: GltfError::Read { .. }, .. })));
    let mut missing_position = embedded(&asset);
    missing_position["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    assert!(matches!(load(&missing_position), Err(Error::Gltf { error: GltfError::Read { .. }, .. })));
    let mut far = embedded(&asset);
    far["accessors"][0]["byteOffset"] = json!(u64::MAX - 3);
    let result = load(&far);
    assert!(
        matches!(result, Err(Error::Gltf { error: GltfError::Read { .. } | GltfError::Primitive { .. }, .. })),
        "{result:?}"
    );
    let mut nan_uv = Asset::default();
    let (p, t) = (
        nan_uv.positions(&[Vec3::ZERO, Vec3::X, Vec3::Y]),
        nan_uv.floats(&[0.0, 0.0, 1.0, f32::NAN, 0.0, 1.0], "VEC2", 2),
    );
    let mesh = nan_uv.mesh(json!({ "attributes": { "POSITION": p, "TEXCOORD_0": t } }));
    nan_uv.node(json!({ "name": "left", "mesh": mesh }), true);
    let result = GltfCloth::from_slice(&nan_uv.glb());
    assert!(
        matches!(&result, Err(Error::Gltf { error: GltfError::Primitive { reason, .. }, .. }) if reason.contains("non-finite")),
        "{result:?}"
    );
    let mut heavy = Asset::default();
    let (p, m) = (heavy.positions(&[Vec3::ZERO, Vec3::X, Vec3::Y]), heavy.floats(&[1.0, 0.0, 2.0], "SCALAR", 1));
    let mesh = heavy.mesh(json!({ "attributes": { "POSITION": p, "_MASS": m } }));
    heavy.node(json!({ "name": "left", "mesh": mesh }), true);
    let result = GltfCloth::from_slice(&heavy.glb());
    assert!(
        matches!(&result, Err(Error::Gltf { error: GltfError::Primitive { reason, .. }, .. }) if reason.contains("_MASS")),
        "{result:?}"
    );
    let dir = scratch("outside");
    for uri in ["../secret.bin", "/etc/passwd"] {
        std::fs::write(dir.join("cloth.gltf"), serde_json::to_vec(&asset.json(Some(uri))).unwrap()).unwrap();
        let result = GltfCloth::load(dir.join("cloth.gltf"));
        assert!(matches!(result, Err(Error::Gltf { error: GltfError::Buffer { .. }, .. })), "{uri}: {result:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Triangle strips and fans (with the repeated-index triangles exporters join strips with),
/// vertex data interleaved in one buffer view with a stride, a parent's transform applied
/// after its child's, and a chain of nodes deeper than a thread's stack would follow.
#[test]
fn strips_fans_strides_parents_and_deep_chains() {
    // A strip over a 2 × 3 grid of points, joined to a second strip by two repeated indices.
    let points: Vec<Vec3> = (0..6).map(|k| Vec3::new((k / 2) as f32, (k % 2) as f32, 0.0)).collect();
    let mut strip = Asset::default();
    let (p, x) = (strip.positions(&points), strip.indices(&[0, 1, 2, 3, 3, 2, 2, 3, 4, 5]));
    let mesh = strip.mesh(json!({ "attributes": { "POSITION": p }, "indices": x, "mode": 5 }));
    strip.node(json!({ "mesh": mesh }), true);
    let cloth = GltfCloth::from_slice(&strip.glb()).unwrap();
    assert_eq!(cloth.mesh.triangles.len(), 4, "the joining triangles are left out: {:?}", cloth.mesh.triangles);
    for [a, b, c] in cloth.mesh.triangles.iter().map(|t| t.map(|v| cloth.mesh.positions[v as usize])) {
        assert!((b - a).cross(c - a).z < 0.0, "every strip triangle keeps the first one's winding");
    }
    let mut fan = Asset::default();
    let (p, x) = (fan.positions(&[Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y]), fan.indices(&[0, 1, 2, 3]));
    let mesh = fan.mesh(json!({ "attributes": { "POSITION": p }, "indices": x, "mode": 6 }));
    fan.node(json!({ "mesh": mesh }), true);
    assert_eq!(GltfCloth::from_slice(&fan.glb()).unwrap().mesh.triangles.len(), 2);

    // Position (12 bytes) and texture coordinate (8) interleaved, 20 bytes a vertex.
    let mut interleaved = Asset::default();
    let vertices = [(Vec3::ZERO, [0.0, 0.0]), (Vec3::X, [1.0, 0.0]), (Vec3::Y, [0.0, 1.0])];
    let bytes: Vec<u8> =
        (vertices.iter()).flat_map(|(p, uv)| p.to_array().into_iter().chain(*uv).flat_map(f32::to_le_bytes)).collect();
    let bounds = json!({ "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0] });
    let p = interleaved.accessor(&bytes, FLOAT, "VEC3", 3, bounds);
    let mesh = interleaved.mesh(json!({ "attributes": { "POSITION": p, "TEXCOORD_0": p + 1 } }));
    interleaved.node(json!({ "mesh": mesh }), true);
    let mut json = embedded(&interleaved);
    json["bufferViews"][0]["byteStride"] = json!(20);
    json["accessors"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "bufferView": 0, "byteOffset": 12, "componentType": FLOAT, "count": 3, "type": "VEC2" }));
    let cloth = load(&json).unwrap();
    assert_eq!(cloth.mesh.positions, [Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert_eq!(cloth.mesh.uvs, [Vec2::new(0.0, 1.0), Vec2::new(1.0, 1.0), Vec2::new(0.0, 0.0)], "v turned up");

    // The parent turns a quarter turn about z; the child moves its triangle 1 m along x first.
    let mut parented = Asset::default();
    let p = parented.positions(&[Vec3::ZERO, Vec3::new(0.1, 0.0, 0.0), Vec3::new(0.0, 0.1, 0.0)]);
    let mesh = parented.mesh(json!({ "attributes": { "POSITION": p } }));
    let child = parented.node(json!({ "mesh": mesh, "translation": [1.0, 0.0, 0.0] }), false);
    let half = std::f32::consts::FRAC_1_SQRT_2;
    parented.node(json!({ "children": [child], "rotation": [0.0, 0.0, half, half] }), true);
    let first = GltfCloth::from_slice(&parented.glb()).unwrap().mesh.positions[0];
    assert!((first - Vec3::Y).length() < 1e-6, "parent × child puts (0, 0, 0) at {first}, not (0, 1, 0)");

    // 20 000 nodes, each the parent of the next, the last holding the triangle.
    let mut deep = Asset::default();
    let p = deep.positions(&[Vec3::ZERO, Vec3::X, Vec3::Y]);
    let mesh = deep.mesh(json!({ "attributes": { "POSITION": p } }));
    let depth = 20_000;
    let mut json = embedded(&deep);
    let nodes: Vec<Value> = (0..depth)
        .map(|k| if k + 1 < depth { json!({ "children": [k + 1] }) } else { json!({ "mesh": mesh }) })
        .collect();
    json["nodes"] = json!(nodes);
    json["scenes"] = json!([{ "nodes": [0] }]);
    assert_eq!(load(&json).unwrap().mesh.positions.len(), 3);
}
