#!/usr/bin/env bash
# One idempotent set-up for `make demo` and `make test` on Debian 12:
# apt packages, a .venv at the repository root with pinned versions, the
# editable install of the `aot` package, and the host C build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

APT_PKGS="cmake make gcc g++ python3-venv gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm binutils clang libclang-rt-14-dev gcc-aarch64-linux-gnu qemu-user libxnnpack-dev libpthreadpool-dev"
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

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv"
    "$PY" -m venv .venv
fi
STAMP=.venv/.mote-installed
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
    echo "bootstrap: installing the aot package and pinned dependencies (torch 2.13.0 CPU)"
    .venv/bin/pip install -q --upgrade pip >/dev/null
    # torch first and pinned: any other version pulls a multi-GB CUDA build.
    .venv/bin/pip install -q "torch==2.13.0"
    .venv/bin/pip install -q -e ".[dev]"
    touch "$STAMP"
fi

echo "bootstrap: building the host runtime (build/host)"
cmake -S . -B build/host -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/host -j"$(nproc)" >/dev/null
echo "bootstrap: ready"
