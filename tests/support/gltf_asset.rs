//! glTF test assets written by the tests: an [`Asset`] collects one binary buffer, its views
//! and accessors, meshes and nodes, and writes itself as a `.glb` or a `.gltf` JSON.

use glam::Vec3;
use serde_json::{json, Value};

/// A glTF asset built in memory: one binary buffer, its views and accessors, meshes and nodes.
#[derive(Default)]
pub struct Asset {
    /// The binary buffer.
    pub bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
    roots: Vec<usize>,
}

pub const FLOAT: u32 = 5126;
pub const UNSIGNED_BYTE: u32 = 5121;
pub const UNSIGNED_INT: u32 = 5125;

impl Asset {
    /// Appends `bytes` as a buffer view and an accessor of `count` elements of `kind` over it.
    pub fn accessor(&mut self, bytes: &[u8], component: u32, kind: &str, count: usize, extra: Value) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() }));
        self.bin.extend_from_slice(bytes);
        let mut accessor =
            json!({ "bufferView": self.views.len() - 1, "componentType": component, "count": count, "type": kind });
        if let (Value::Object(a), Value::Object(e)) = (&mut accessor, extra) {
            a.extend(e);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    pub fn floats(&mut self, values: &[f32], kind: &str, per: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, FLOAT, kind, values.len() / per, json!({}))
    }

    pub fn positions(&mut self, points: &[Vec3]) -> usize {
        let flat: Vec<f32> = points.iter().flat_map(|p| p.to_array()).collect();
        let (min, max) = (
            points.iter().fold(Vec3::INFINITY, |a, &b| a.min(b)),
            points.iter().fold(Vec3::NEG_INFINITY, |a, &b| a.max(b)),
        );
        let bytes: Vec<u8> = flat.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, FLOAT, "VEC3", points.len(), json!({ "min": min.to_array(), "max": max.to_array() }))
    }

    pub fn indices(&mut self, indices: &[u32]) -> usize {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        self.accessor(&bytes, UNSIGNED_INT, "SCALAR", indices.len(), json!({}))
    }

    pub fn colours(&mut self, rgba: &[[u8; 4]]) -> usize {
        let bytes: Vec<u8> = rgba.iter().flatten().copied().collect();
        self.accessor(&bytes, UNSIGNED_BYTE, "VEC4", rgba.len(), json!({ "normalized": true }))
    }

    pub fn mesh(&mut self, primitive: Value) -> usize {
        self.meshes.push(json!({ "primitives": [primitive] }));
        self.meshes.len() - 1
    }

    pub fn node(&mut self, node: Value, root: bool) -> usize {
        self.nodes.push(node);
        if root {
            self.roots.push(self.nodes.len() - 1);
        }
        self.nodes.len() - 1
    }

    /// The JSON, its buffer embedded by `uri` (none: the GLB's binary chunk).
    pub fn json(&self, uri: Option<&str>) -> Value {
        let mut buffer = json!({ "byteLength": self.bin.len() });
        if let Some(uri) = uri {
            buffer["uri"] = json!(uri);
        }
        json!({
            "asset": { "version": "2.0" },
            "scene": 0,
            "scenes": [{ "nodes": self.roots }],
            "nodes": self.nodes,
            "meshes": self.meshes,
            "accessors": self.accessors,
            "bufferViews": self.views,
            "buffers": [buffer],
        })
    }

    /// A `.glb`: header, JSON chunk (padded with spaces), binary chunk (padded with zeros).
    pub fn glb(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.json(None)).unwrap();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }
}

/// Standard base64 (RFC 4648, padded), for the tests' data URIs.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A curtain of 3 × 3 vertices in the XY plane with its top row painted red, above a closed
/// cube in a node named `Collider`.
pub fn painted_curtain() -> Asset {
    let mut asset = Asset::default();
    let points: Vec<Vec3> = (0..9).map(|k| Vec3::new((k % 3) as f32 * 0.5, 2.0 - (k / 3) as f32 * 0.5, 0.0)).collect();
    let colours: Vec<[u8; 4]> = (0..9).map(|k| if k < 3 { [255, 0, 0, 255] } else { [64, 64, 64, 255] }).collect();
    let indices: Vec<u32> = (0..2)
        .flat_map(|j| {
            (0..2).flat_map(move |i| {
                let a = 3 * j + i;
                [a, a + 3, a + 4, a, a + 4, a + 1]
            })
        })
        .collect();
    let (p, c, x) = (asset.positions(&points), asset.colours(&colours), asset.indices(&indices));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p, "COLOR_0": c }, "indices": x }));
    asset.node(json!({ "name": "curtain", "mesh": mesh }), true);
    let corners: Vec<Vec3> =
        (0..8).map(|k| Vec3::new((k & 1) as f32, ((k >> 1) & 1) as f32, (k >> 2) as f32) - 0.5).collect();
    let quads = [[0u32, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let faces: Vec<u32> = quads.iter().flat_map(|&[a, b, c, d]| [a, b, c, a, c, d]).collect();
    let (p, x) = (asset.positions(&corners), asset.indices(&faces));
    let mesh = asset.mesh(json!({ "attributes": { "POSITION": p }, "indices": x }));
    asset.node(json!({ "name": "Collider", "mesh": mesh, "translation": [0.5, 0.5, 0.0] }), true);
    asset
}
