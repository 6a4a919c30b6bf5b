#!/usr/bin/env bash
# Builds the web demo into a static folder that any HTTP server can serve (default
# target/web/site):
#   web/build.sh [OUT]
#   python3 -m http.server -d target/web/site 8000     # then open http://localhost:8000
# It compiles web/ for wasm32 with web/cargo-wasm.sh (rustup's wasm32 target, or Debian's Rust
# for the web), runs wasm-bindgen --target web (its CLI installed with cargo install, at the
# version Cargo.lock resolves for the wasm-bindgen crate, when missing) and copies the page.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/web/site}

version=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ -z "$version" ]; then
    echo "Cargo.lock names no wasm-bindgen version" >&2
    exit 1
fi
bindgen="${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen"
if [ "$("$bindgen" --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
    echo "Installing wasm-bindgen-cli $version (it must match the wasm-bindgen crate)." >&2
    # Not --locked: the CLI's own lockfile names a version missing from the registry.
    cargo install wasm-bindgen-cli --version "$version"
fi

web/cargo-wasm.sh build --release -p drape-web
mkdir -p "$out"
"$bindgen" --target web --no-typescript --out-dir "$out" target/web/wasm32-unknown-unknown/release/drape_web.wasm
cp web/static/* "$out/"
echo "Built the web demo into $out: serve that folder over HTTP and open index.html." >&2
