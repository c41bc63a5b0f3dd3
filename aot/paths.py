"""Where Mote's sources live: the one home of the repository paths every
layer needs (kernels, runtime, ports, boards). Nothing here imports torch."""
from __future__ import annotations

from pathlib import Path

#: repository root (the folder holding aot/, runtime/, kernels/, ports/, boards/)
ROOT = Path(__file__).resolve().parents[1]
KERNELS_DIR = ROOT / "kernels"
CMSIS_DIR = ROOT / "cmsis"
RUNTIME_DIR = ROOT / "runtime"
PORTS_DIR = ROOT / "ports"
BOARDS_DIR = ROOT / "boards"
#: host build of the runtime (scripts/bootstrap.sh: cmake -B build/host)
HOST_BUILD_DIR = ROOT / "build" / "host"
#: CMake toolchain files for cross-built Linux ports (cmake/toolchains/)
TOOLCHAINS_DIR = ROOT / "cmake" / "toolchains"
