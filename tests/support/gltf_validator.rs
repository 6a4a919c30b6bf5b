//! The Khronos glTF validator (the npm package `gltf-validator`), installed with npm under
//! `target/gltf-validator` the first time a test asks for it.

use std::path::PathBuf;
use std::process::Command;

/// The validator's version the tests use.
pub const VERSION: &str = "2.0.0-dev.3.10";

/// The issues the validator reports for a `.glb` (its JSON report's `issues`: `numErrors`,
/// `numWarnings`, `messages`).
pub fn validate(glb: &[u8]) -> serde_json::Value {
    let prefix = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join("gltf-validator");
    let module = prefix.join("node_modules").join("gltf-validator");
    if !module.join("package.json").exists() {
        let status = Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg(format!("gltf-validator@{VERSION}"))
            .status()
            .unwrap_or_else(|e| panic!("the glTF validator installs with npm (Node.js), which did not start: {e}"));
        assert!(status.success(), "npm could not install gltf-validator@{VERSION}");
    }
    let file = std::env::temp_dir().join(format!("drape-validate-{}.glb", std::process::id()));
    std::fs::write(&file, glb).expect("write the file to validate");
    let script = "const v = require(process.argv[1]); \
        v.validateBytes(new Uint8Array(require('fs').readFileSync(process.argv[2]))) \
        .then(r => console.log(JSON.stringify(r.issues))) \
        .catch(e => { console.error(String(e)); process.exit(1); });";
    let out = Command::new("node").arg("-e").arg(script).arg(&module).arg(&file).output().expect("node runs");
    std::fs::remove_file(&file).ok();
    assert!(out.status.success(), "the validator failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the validator's JSON report")
}
