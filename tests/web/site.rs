//! The web demo's static site, built with `web/build.sh` (cargo rebuilds only what changed).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The built site, built once per run (after checking that there is a browser to open it).
pub fn site() -> &'static Path {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(|| {
        crate::browser::check_installed();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = root.join("target/web/site");
        let status = Command::new(root.join("web/build.sh")).arg(&out).status().expect("web/build.sh runs");
        assert!(status.success(), "web/build.sh failed");
        out
    })
}
