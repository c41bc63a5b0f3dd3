#!/usr/bin/env bash
# One idempotent set-up for `make demo` and `make test` on Debian 12:
# apt packages, a .venv at the repository root with pinned versions, the
# editable install of the `aot` package, and the host C build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

APT_PKGS="cmake make gcc g++ python3-venv gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm binutils clang libclang-rt-14-dev gcc-aarch64-linux-gnu qemu-user libxnnpack-dev libpthreadpool-dev nodejs espeak-ng"
missing=""
for p in $APT_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "bootstrap: installing apt packages:$missing"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi

# Debian's arm64 XNNPACK for the aarch64 cross-build's XNNPACK backend
# (cmake/toolchains/aarch64-linux-gnu.cmake): libxnnpack-dev is not
# Multi-Arch, so the arm64 packages are unpacked into build/sysroot-aarch64
# instead of installed beside the amd64 ones.
A64_SYSROOT=build/sysroot-aarch64
A64_PKGS="libxnnpack-dev libxnnpack0 libpthreadpool-dev libpthreadpool0 libcpuinfo0"
if [ ! -f "$A64_SYSROOT/usr/include/xnnpack.h" ]; then
    echo "bootstrap: unpacking Debian's arm64 XNNPACK into $A64_SYSROOT"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        $SUDO dpkg --add-architecture arm64
        $SUDO apt-get update -q
    fi
    debs="$(mktemp -d)"
    chmod 777 "$debs"   # apt's _apt user downloads into it
    (cd "$debs" && apt-get download -q $(for p in $A64_PKGS; do echo "$p:arm64"; done) >/dev/null)
    mkdir -p "$A64_SYSROOT"
    for d in "$debs"/*.deb; do dpkg -x "$d" "$A64_SYSROOT"; done
    rm -rf "$debs"
fi

# rp2040js (npm), the RP2040 model the pico board runs on (sim/rp2040, aot/deploy/rp2040js.py):
# the version its package-lock.json pins, installed with `npm ci` only when the lock file is
# newer than the installed tree (so a set-up machine needs no network here).
if ! command -v npm >/dev/null 2>&1; then
    echo "bootstrap: installing npm"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q npm
fi
RP_TREE=sim/rp2040/node_modules/.package-lock.json
if [ ! -f "$RP_TREE" ] || [ sim/rp2040/package-lock.json -nt "$RP_TREE" ]; then
    echo "bootstrap: installing rp2040js (npm ci in sim/rp2040)"
    npm ci --prefix sim/rp2040 --no-audit --no-fund --loglevel=error
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv"
    "$PY" -m venv .venv
fi
STAMP=.venv/.mote-installed
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
    echo "bootstrap: installing the aot package and pinned dependencies (torch 2.13.0 CPU; about 3 minutes)"
    # On a terminal pip draws its own bars (bytes, rate, time left) for each download;
    # in a log (CI) it stays quiet and the step lines below say where it is.
    if [ -t 1 ]; then PIP_SHOW="--progress-bar on"; else PIP_SHOW="-q"; fi
    echo "bootstrap: [1/3] pip"
    .venv/bin/pip install -q --upgrade pip >/dev/null
    # torch first and pinned: any other version pulls a multi-GB CUDA build.
    echo "bootstrap: [2/3] torch 2.13.0 (CPU wheel)"
    .venv/bin/pip install $PIP_SHOW "torch==2.13.0"
    echo "bootstrap: [3/3] the aot package and its pinned dependencies (executorch, torchao, ...)"
    .venv/bin/pip install $PIP_SHOW -e ".[dev]"
    touch "$STAMP"
fi

echo "bootstrap: building the host runtime (build/host; about a minute the first time)"
cmake -S . -B build/host -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/host -j"$(nproc)" >/dev/null
echo "bootstrap: ready"
