#!/usr/bin/env bash
# Runs a cargo command for wasm32-unknown-unknown (the browser, through wgpu's WebGPU backend)
# with the toolchain this machine has: rustup's wasm32 target where it is installed; otherwise
# Debian's Rust for the web (rustc-web, 1.96), which builds the standard library from its sources
# (-Zbuild-std), installed with apt when missing (as root or through sudo; apt may not remove
# anything for it). The first argument is cargo's command, the rest its arguments, e.g.
#   web/cargo-wasm.sh build --release --lib --no-default-features
#   web/cargo-wasm.sh rustc --lib --no-default-features -- -D warnings
# Build outputs go to target/web, apart from the native builds in target/.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
    echo "usage: web/cargo-wasm.sh COMMAND [ARGS...]" >&2
    exit 2
fi
command=$1
shift
target=wasm32-unknown-unknown
if [ -d "$(rustc --print sysroot 2>/dev/null)/lib/rustlib/$target/lib" ]; then
    exec cargo "$command" --target "$target" --target-dir target/web "$@"
fi

debian_packages=(rustc-web cargo-web rust-web-src rust-web-llvm libstd-rust-web-dev lld-22)
if ! dpkg -s "${debian_packages[@]}" >/dev/null 2>&1; then
    echo "No wasm32 standard library: installing Debian's Rust for the web (${debian_packages[*]})." >&2
    sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --no-remove \
        "${debian_packages[@]}"
fi
# By full path, so that rustup's proxies do not pick another toolchain; RUSTC_BOOTSTRAP lets this
# stable compiler take -Zbuild-std.
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
exec /usr/bin/cargo "$command" --target "$target" --target-dir target/web -Zbuild-std=std,panic_abort "$@"
