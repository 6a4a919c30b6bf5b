#!/usr/bin/env bash
# Installs what drape needs and this machine lacks, with Debian's apt (as root or through sudo);
# elsewhere it says what is missing. `scripts/setup.sh demo`: a Vulkan driver where there is
# none (Mesa's lavapipe, which runs wgpu on the CPU). `scripts/setup.sh test`: that, Xvfb and the X
# libraries for the window tests, Chromium and chromedriver for the web tests, Node.js and npm for
# the glTF validator, rustfmt and clippy. The web toolchain (rustup's wasm32 target or Debian's
# rustc-web, and wasm-bindgen) is installed by web/cargo-wasm.sh and web/build.sh when they first
# need it; the glTF validator by the test that uses it.
set -euo pipefail

what=${1:-test}
if [ "$what" != demo ] && [ "$what" != test ]; then
    echo "usage: scripts/setup.sh demo|test" >&2
    exit 2
fi

# Whether any Vulkan driver manifest is installed where the loader looks.
has_vulkan_driver() {
    [ -n "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] && return 0
    local folder
    for folder in /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d /etc/vulkan/icd.d; do
        compgen -G "$folder/*.json" >/dev/null && return 0
    done
    return 1
}

packages=()
if [ "$(uname -s)" = Linux ] && ! has_vulkan_driver; then
    echo "setup: no Vulkan driver: Mesa's lavapipe (mesa-vulkan-drivers)."
    packages+=(mesa-vulkan-drivers)
fi
if [ "$what" = test ]; then
    # The window tests open the demo under a private Xvfb; winit loads these X libraries.
    x_libraries=(libX11.so.6 libX11-xcb.so.1 libXcursor.so.1 libXrandr.so.2 libXi.so.6 libxkbcommon-x11.so.0)
    libraries="$( (/sbin/ldconfig -p || ldconfig -p) 2>/dev/null || true)"
    missing_library=false
    for library in "${x_libraries[@]}"; do
        grep -qF "$library" <<<"$libraries" || missing_library=true
    done
    if ! command -v Xvfb >/dev/null 2>&1 || $missing_library; then
        echo "setup: Xvfb and the X libraries for the window tests."
        packages+=(xvfb libx11-6 libx11-xcb1 libxcursor1 libxrandr2 libxi6 libxkbcommon-x11-0)
    fi
    if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
        echo "setup: Chromium and chromedriver for the web tests."
        packages+=(chromium chromium-driver)
    fi
    if ! command -v npm >/dev/null 2>&1; then
        echo "setup: Node.js and npm for the glTF validator."
        packages+=(nodejs npm)
    fi
fi

if [ ${#packages[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "setup: no apt here; install these (or your system's equivalents) and run again: ${packages[*]}" >&2
        exit 1
    fi
    if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
        echo "setup: installing needs root or sudo; as root: apt-get install ${packages[*]}" >&2
        exit 1
    fi
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"
fi
if [ "$what" = test ]; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
