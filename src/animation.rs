//! Simulated animation out: the frames of a run as one glTF 2.0 file, which any glTF viewer,
//! Blender and game engines play back, or as a sequence of OBJ files.
//!
//! The glTF file holds the cloth's rest mesh (positions, texture coordinates, triangles) and one
//! morph target per recorded frame, the frame's displacement from the rest shape; a weights
//! animation plays them: at frame `k`'s time only target `k` weighs 1, and between two frames
//! the weights pass linearly from one to the next, which moves each vertex on the straight line
//! between its two recorded positions. Frames are `frame_time` apart, the first at time 0.

use crate::error::{Error, ParamError};
use crate::mesh::ClothMesh;
use glam::Vec3;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Collects the frames of a run ([`AnimationRecorder::record`]) and writes them out.
#[derive(Debug, Clone)]
pub struct AnimationRecorder {
    mesh: ClothMesh,
    frame_time: f32,
    frames: Vec<Vec<Vec3>>,
}

impl AnimationRecorder {
    /// A recorder for the cloth of `mesh` (its rest shape), one frame every `frame_time`
    /// seconds (finite, > 0).
    pub fn new(mesh: &ClothMesh, frame_time: f32) -> Result<Self, Error> {
        if !(frame_time.is_finite() && frame_time > 0.0) {
            let expected = "finite and > 0 s";
            return Err(ParamError { name: "frame_time", value: frame_time.to_string(), expected }.into());
        }
        Ok(Self { mesh: mesh.clone(), frame_time, frames: Vec::new() })
    }

    /// Adds a frame: one finite position per particle.
    pub fn record(&mut self, positions: &[Vec3]) -> Result<(), Error> {
        if positions.len() != self.mesh.positions.len() {
            let (value, expected) = (format!("{} positions", positions.len()), "one position per particle");
            return Err(ParamError { name: "positions", value, expected }.into());
        }
        if let Some(p) = positions.iter().find(|p| !p.is_finite()) {
            let expected = "finite positions";
            return Err(ParamError { name: "positions", value: p.to_string(), expected }.into());
        }
        self.frames.push(positions.to_vec());
        Ok(())
    }

    /// The frames recorded.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// The seconds between two frames.
    pub fn frame_time(&self) -> f32 {
        self.frame_time
    }

    /// The animation as a binary glTF (`.glb`); at least one frame must be recorded.
    pub fn to_glb(&self) -> Result<Vec<u8>, Error> {
        self.check_frames()?;
        let fail = |message: String| Error::Export { path: "<memory>".into(), message };
        // GLB lengths are 32-bit; the JSON takes a few hundred bytes per frame beside.
        let (frames, particles) = (self.frames.len() as u64, self.mesh.positions.len() as u64);
        let triangles = self.mesh.triangles.len() as u64;
        let binary = 12 * particles * (frames + 1) + 8 * particles + 12 * triangles + 4 * frames * (frames + 1);
        if binary + 512 * frames > u64::from(u32::MAX) {
            return Err(fail(format!("{frames} frames of {particles} particles pass the 4 GiB a GLB holds")));
        }
        let mut file = GltfWriter::default();
        let json = self.document(&mut file);
        let json = serde_json::to_vec(&json).map_err(|e| fail(e.to_string()))?;
        let glb = gltf::binary::Glb {
            header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
            json: Cow::Owned(json),
            bin: Some(Cow::Owned(file.bin)),
        };
        glb.to_vec().map_err(|e| fail(e.to_string()))
    }

    /// Writes [`AnimationRecorder::to_glb`] to `path`.
    pub fn write_glb(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let bytes = self.to_glb()?;
        std::fs::write(path, bytes)
            .map_err(|e| Error::Export { path: path.display().to_string(), message: e.to_string() })
    }

    /// Writes each frame as an OBJ beside `path`: `stem_0000.obj`, `stem_0001.obj`, … (the
    /// digits as many as the last frame needs, at least four), each with the rest texture
    /// coordinates and the triangles; returns their paths.
    pub fn write_obj_sequence(&self, path: impl AsRef<Path>) -> Result<Vec<PathBuf>, Error> {
        self.check_frames()?;
        let path = path.as_ref();
        let stem = path.file_stem().map_or_else(|| "frame".into(), |s| s.to_string_lossy().into_owned());
        let folder = path.parent().unwrap_or(Path::new(""));
        let digits = self.frames.len().saturating_sub(1).to_string().len().max(4);
        let faces = self.obj_faces();
        (self.frames.iter().enumerate())
            .map(|(k, positions)| {
                let file = folder.join(format!("{stem}_{k:0digits$}.obj"));
                let mut text = String::with_capacity(faces.len() + 40 * positions.len());
                for p in positions {
                    let _ = writeln!(text, "v {} {} {}", p.x, p.y, p.z);
                }
                text += &faces;
                std::fs::write(&file, text)
                    .map_err(|e| Error::Export { path: file.display().to_string(), message: e.to_string() })?;
                Ok(file)
            })
            .collect()
    }

    /// An error unless a frame was recorded.
    fn check_frames(&self) -> Result<(), Error> {
        if self.frames.is_empty() {
            let expected = "at least one recorded frame";
            return Err(ParamError { name: "frames", value: "none".into(), expected }.into());
        }
        Ok(())
    }

    /// The texture coordinates and faces every OBJ of the sequence shares.
    fn obj_faces(&self) -> String {
        let mut text = String::new();
        for uv in &self.mesh.uvs {
            let _ = writeln!(text, "vt {} {}", uv.x, uv.y);
        }
        for t in &self.mesh.triangles {
            let [a, b, c] = t.map(|v| v + 1);
            let _ = writeln!(text, "f {a}/{a} {b}/{b} {c}/{c}");
        }
        text
    }

    /// The glTF JSON, its data appended to `file`'s binary buffer.
    fn document(&self, file: &mut GltfWriter) -> Value {
        let rest = &self.mesh.positions;
        let indices: Vec<u32> = self.mesh.triangles.iter().flatten().copied().collect();
        let indices =
            file.accessor(bytes_of_u32(&indices), ELEMENT_ARRAY_BUFFER, UNSIGNED_INT, "SCALAR", indices.len(), None);
        let position = file.vectors(rest, ARRAY_BUFFER);
        // glTF's texture coordinates run down from the top: v is turned back (OBJ's is up).
        let uvs: Vec<f32> = self.mesh.uvs.iter().flat_map(|uv| [uv.x, 1.0 - uv.y]).collect();
        let uv = file.accessor(bytes_of_f32(&uvs), ARRAY_BUFFER, FLOAT, "VEC2", self.mesh.uvs.len(), None);
        let targets: Vec<Value> = (self.frames.iter())
            .map(|frame| {
                let displacement: Vec<Vec3> = frame.iter().zip(rest).map(|(p, r)| *p - *r).collect();
                json!({ "POSITION": file.vectors(&displacement, ARRAY_BUFFER) })
            })
            .collect();
        let count = self.frames.len();
        let times: Vec<f32> = (0..count).map(|k| k as f32 * self.frame_time).collect();
        let bounds = json!({ "min": [times[0]], "max": [times[count - 1]] });
        let input = file.accessor(bytes_of_f32(&times), NO_TARGET, FLOAT, "SCALAR", count, Some(bounds));
        let weights: Vec<f32> = (0..count * count).map(|k| if k / count == k % count { 1.0 } else { 0.0 }).collect();
        let output = file.accessor(bytes_of_f32(&weights), NO_TARGET, FLOAT, "SCALAR", weights.len(), None);
        let mut initial = vec![0.0f32; count];
        initial[0] = 1.0;
        json!({
            "asset": { "version": "2.0", "generator": concat!("drape ", env!("CARGO_PKG_VERSION")) },
            "scene": 0,
            "scenes": [{ "nodes": [0] }],
            "nodes": [{ "name": "cloth", "mesh": 0 }],
            "meshes": [{
                "name": "cloth",
                "primitives": [{
                    "attributes": { "POSITION": position, "TEXCOORD_0": uv },
                    "indices": indices,
                    "targets": targets,
                }],
                "weights": initial,
            }],
            "animations": [{
                "name": "simulation",
                "samplers": [{ "input": input, "output": output, "interpolation": "LINEAR" }],
                "channels": [{ "sampler": 0, "target": { "node": 0, "path": "weights" } }],
            }],
            "accessors": file.accessors,
            "bufferViews": file.views,
            "buffers": [{ "byteLength": file.bin.len() }],
        })
    }
}

const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: Option<u32> = Some(34962);
const ELEMENT_ARRAY_BUFFER: Option<u32> = Some(34963);
const NO_TARGET: Option<u32> = None;

/// One binary buffer with its views and accessors, one view per accessor.
#[derive(Default)]
struct GltfWriter {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl GltfWriter {
    /// Appends `bytes` as a view (for `target`) with one accessor of `count` `kind`s over it;
    /// its index.
    fn accessor(
        &mut self,
        bytes: Vec<u8>,
        target: Option<u32>,
        component: u32,
        kind: &str,
        count: usize,
        bounds: Option<Value>,
    ) -> usize {
        let mut view = json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.views.push(view);
        self.bin.extend_from_slice(&bytes);
        // Every view starts at a multiple of four bytes.
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let mut accessor = serde_json::Map::new();
        accessor.insert("bufferView".into(), json!(self.views.len() - 1));
        accessor.insert("componentType".into(), json!(component));
        accessor.insert("count".into(), json!(count));
        accessor.insert("type".into(), json!(kind));
        if let Some(Value::Object(bounds)) = bounds {
            accessor.extend(bounds);
        }
        self.accessors.push(Value::Object(accessor));
        self.accessors.len() - 1
    }

    /// A `VEC3` accessor of `points`, with the bounds glTF asks of positions.
    fn vectors(&mut self, points: &[Vec3], target: Option<u32>) -> usize {
        let low = points.iter().fold(Vec3::INFINITY, |a, &b| a.min(b));
        let high = points.iter().fold(Vec3::NEG_INFINITY, |a, &b| a.max(b));
        let flat: Vec<f32> = points.iter().flat_map(|p| p.to_array()).collect();
        let bounds = json!({ "min": low.to_array(), "max": high.to_array() });
        self.accessor(bytes_of_f32(&flat), target, FLOAT, "VEC3", points.len(), Some(bounds))
    }
}

fn bytes_of_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn bytes_of_u32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
