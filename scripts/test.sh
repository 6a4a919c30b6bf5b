#!/usr/bin/env bash
# The whole suite (`./run test`, after scripts/setup.sh): formatting and lints, the core library
# and the web demo built for wasm32, every test on the default backend, then the GPU's port and
# physics tests again on Mesa's GL.
set -euo pipefail
cd "$(dirname "$0")/.."

# Mesa complains without a runtime directory; give it a private one.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --no-default-features -- -D warnings
# Embedding without the viewer must not pull in any window or UI crate.
core_dependencies="$(cargo tree --no-default-features -e normal --prefix none)"
if grep -E '^(winit|egui|image) ' <<<"$core_dependencies"; then
    echo "the core library depends on viewer crates" >&2
    exit 1
fi
# The core library and the web demo keep compiling for the browser (wasm32, WebGPU),
# warning-free; then the demo's static folder is built ahead of the tests (which run web/build.sh
# again: cargo finds nothing left to do).
web/cargo-wasm.sh rustc --release --lib --no-default-features -- -D warnings
web/cargo-wasm.sh rustc --release -p drape-web --lib -- -D warnings
web/build.sh
cargo build --all-targets
cargo test
# The GPU's port and physics tests again on Mesa's GL (llvmpipe), which rounds multiply-adds,
# divisions and square roots its own way, as real GPUs do: an assumption that holds on one driver
# only shows up here.
WGPU_BACKEND=gl cargo test --test gpu_reference --test mesh_collider --test physics_laws --test gpu_physics \
    --test self_collision --test triangle_contacts --test aerodynamics --test fabric --test lab
