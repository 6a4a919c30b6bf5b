//! Animation out: a run recorded on the GPU and written as one glTF file reads back, through the
//! `gltf` crate, to the recorded positions (within f32), with one key per frame at the run's
//! times; the Khronos validator reports no error; the OBJ sequence reads back to the same
//! positions; bad input is a typed error.

mod support;

use drape::{AnimationRecorder, ClothMesh, Error, GpuSolver, Scene, SceneKind, SolverParams};
use glam::Vec3;
use support::device;
use support::gltf_validator::validate;

/// A hanging cloth recorded for `frames` frames after its rest state.
fn recorded_run(frames: usize) -> (AnimationRecorder, Vec<Vec<Vec3>>, ClothMesh, f32) {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 6).unwrap();
    let params = SolverParams { substeps: 4, iterations: 2, ..scene.params };
    let mut solver = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
    let mut recorder = AnimationRecorder::new(scene.model.mesh(), params.time_step).unwrap();
    let mut recorded = vec![scene.model.mesh().positions.clone()];
    recorder.record(&recorded[0]).unwrap();
    for _ in 0..frames {
        solver.step();
        let positions = solver.read_positions().unwrap();
        recorder.record(&positions).unwrap();
        recorded.push(positions);
    }
    (recorder, recorded, scene.model.mesh().clone(), params.time_step)
}

/// The floats of accessor `index` of a parsed GLB.
fn floats(document: &gltf::Gltf, index: usize) -> Vec<f32> {
    let accessor = document.accessors().nth(index).unwrap();
    let view = accessor.view().unwrap();
    let blob = document.blob.as_ref().unwrap();
    let start = view.offset() + accessor.offset();
    let count = accessor.count() * accessor.dimensions().multiplicity();
    blob[start..start + 4 * count].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

#[test]
fn an_exported_animation_reads_back_and_validates() {
    let frames = 12;
    let (recorder, recorded, mesh, dt) = recorded_run(frames);
    assert_eq!(recorder.frame_count(), frames + 1);
    let glb = recorder.to_glb().unwrap();
    let document = gltf::Gltf::from_slice(&glb).expect("the gltf crate reads it");
    let primitive = document.meshes().next().unwrap().primitives().next().unwrap();
    let rest = floats(&document, primitive.get(&gltf::Semantic::Positions).unwrap().index());
    let targets: Vec<_> = primitive.morph_targets().collect();
    assert_eq!(targets.len(), frames + 1, "one morph target per frame");
    for (k, (target, positions)) in targets.iter().zip(&recorded).enumerate() {
        let displacement = floats(&document, target.positions().unwrap().index());
        for (v, p) in positions.iter().enumerate() {
            let played = Vec3::from_slice(&rest[3 * v..]) + Vec3::from_slice(&displacement[3 * v..]);
            let error = (played - *p).abs().max_element();
            assert!(error <= 1e-6 * p.abs().max_element().max(1.0), "frame {k}, vertex {v}: {played} for {p}");
        }
    }
    let mut rest_triangles = Vec::new();
    let indices = primitive.indices().unwrap();
    let blob = document.blob.as_ref().unwrap();
    let start = indices.view().unwrap().offset();
    for t in blob[start..start + 4 * indices.count()].chunks_exact(12) {
        let v = |k: usize| u32::from_le_bytes([t[4 * k], t[4 * k + 1], t[4 * k + 2], t[4 * k + 3]]);
        rest_triangles.push([v(0), v(1), v(2)]);
    }
    assert_eq!(rest_triangles, mesh.triangles);
    let animation = document.animations().next().expect("an animation");
    let channel = animation.channels().next().unwrap();
    assert_eq!(channel.target().property(), gltf::animation::Property::MorphTargetWeights);
    let times = floats(&document, channel.sampler().input().index());
    let expected: Vec<f32> = (0..=frames).map(|k| k as f32 * dt).collect();
    assert_eq!(times, expected, "one key per frame, the run's frame time apart");
    let weights = floats(&document, channel.sampler().output().index());
    assert_eq!(weights.len(), (frames + 1) * (frames + 1));
    for (k, key) in weights.chunks_exact(frames + 1).enumerate() {
        assert!(key.iter().enumerate().all(|(t, &w)| w == if t == k { 1.0 } else { 0.0 }), "key {k}: {key:?}");
    }
    let issues = validate(&glb);
    assert_eq!(issues["numErrors"].as_u64(), Some(0), "the validator's report: {issues}");
    assert_eq!(issues["numWarnings"].as_u64(), Some(0), "the validator's report: {issues}");
}

#[test]
fn an_obj_sequence_reads_back_to_the_frames() {
    let (recorder, recorded, mesh, _) = recorded_run(3);
    let dir = std::env::temp_dir().join(format!("drape-animation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = recorder.write_obj_sequence(dir.join("hanging.obj")).unwrap();
    let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["hanging_0000.obj", "hanging_0001.obj", "hanging_0002.obj", "hanging_0003.obj"]);
    for (file, positions) in files.iter().zip(&recorded) {
        // The OBJ loader numbers vertices by first use: compare corner by corner.
        let frame = ClothMesh::from_obj(file).unwrap();
        assert_eq!(frame.triangles.len(), mesh.triangles.len());
        for (read, written) in frame.triangles.iter().zip(&mesh.triangles) {
            for (r, w) in read.iter().zip(written) {
                let (r, w) = (*r as usize, *w as usize);
                assert_eq!((frame.positions[r], frame.uvs[r]), (positions[w], mesh.uvs[w]), "{:?}", file.file_name());
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_recordings_are_typed_errors() {
    let mesh = ClothMesh::grid(3, 3, 0.1, drape::GridPlane::Horizontal, Vec3::ZERO).unwrap();
    for frame_time in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(AnimationRecorder::new(&mesh, frame_time), Err(Error::Param(_))), "{frame_time}");
    }
    let mut recorder = AnimationRecorder::new(&mesh, 1.0 / 60.0).unwrap();
    assert!(matches!(recorder.to_glb(), Err(Error::Param(_))), "no frames");
    assert!(matches!(recorder.record(&mesh.positions[1..]), Err(Error::Param(_))), "too few positions");
    let mut broken = mesh.positions.clone();
    broken[4].y = f32::NAN;
    assert!(matches!(recorder.record(&broken), Err(Error::Param(_))), "a NaN position");
    assert_eq!(recorder.frame_count(), 0, "nothing was recorded");
    let missing = std::env::temp_dir().join("drape-no-such-folder").join("a.glb");
    recorder.record(&mesh.positions).unwrap();
    assert!(matches!(recorder.write_glb(&missing), Err(Error::Export { .. })));
}
