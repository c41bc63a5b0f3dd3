"""The CMake builds the tests share, and one lock per build folder.

`make test` runs pytest-xdist workers; several of them may configure and build the
same CMake folder (build/host, build/host-asan, build/fuzz). CMake and make are not
safe to run twice at once in one folder, so every test that builds a shared folder
holds its lock (a file beside the folder, `<folder>.lock`) while it does.

The host library (build/host/ports/linux/libmote.so: the compiler's accept check,
aot.host.runtime, `aot run --target host`) is rebuilt before any test when one of
its sources is newer than the last build (:func:`ensure_host_library`, the
`host_library` fixture of tests/conftest.py): a kernel edit is never tested
against a stale library.
"""
from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
HOST = ROOT / "build" / "host"
#: the documented sanitized build (ASan + UBSan)
ASAN = ROOT / "build" / "host-asan"
HOST_LIBRARY = HOST / "ports" / "linux" / "libmote.so"
#: what the host library is built from (files and folders under ROOT)
HOST_SOURCES = ("CMakeLists.txt", "cmake", "runtime", "kernels", "backends", "ports/linux")
#: the suffixes of those that are build inputs (C, assembly, CMake)
SOURCE_SUFFIXES = frozenset({".c", ".h", ".S", ".s", ".inc", ".cmake", ".txt"})
#: touched after every build of build/host: a source newer than both it and the
#: library means the library may be stale (make may relink nothing after a touch)
STAMP_NAME = ".mote-sources-stamp"


@contextmanager
def build_lock(build_dir: Path):
    """Hold the inter-process lock of build_dir (blocks until the other holder is done)."""
    build_dir = Path(build_dir)
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(build_dir) + ".lock"):
        yield


def _cmake_build_unlocked(build_dir: Path, sanitize: bool) -> None:
    cfg = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DMOTE_BUILD_TESTS=ON"]
    cfg += ["-DMOTE_SANITIZE=ON", "-DCMAKE_BUILD_TYPE="] if sanitize else ["-DCMAKE_BUILD_TYPE=Release"]
    for cmd in (cfg, ["cmake", "--build", str(build_dir), "-j2"]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, f"{' '.join(cmd)} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    (Path(build_dir) / STAMP_NAME).touch()


def cmake_build(build_dir: Path, sanitize: bool = False) -> Path:
    """Configures and builds the C tree into build_dir (incremental); returns build_dir.
    sanitize: the documented `cmake -DMOTE_SANITIZE=ON` build (ASan + UBSan, no build
    type: the kernels keep -O3, where GCC's -Werror=maybe-uninitialized once fired).
    build/host is configured as scripts/bootstrap.sh configures it (Release; the C
    test helpers are on by default), so the two never reconfigure each other."""
    with build_lock(build_dir):
        _cmake_build_unlocked(Path(build_dir), sanitize)
    return Path(build_dir)


def newest_source_mtime(root: Path = ROOT, sources=HOST_SOURCES) -> float:
    """The latest modification time (s) of the build inputs under root/sources (0.0: none)."""
    newest = 0.0
    for rel in sources:
        p = Path(root) / rel
        files = [p] if p.is_file() else (f for f in p.rglob("*") if f.is_file()) if p.is_dir() else []
        for f in files:
            if f.suffix in SOURCE_SUFFIXES:
                newest = max(newest, f.stat().st_mtime)
    return newest


def is_stale(library: Path, stamp: Path, newest_source: float) -> bool:
    """True when `library` is missing or a source (modified at `newest_source`) is newer
    than both the library and the build stamp."""
    if not library.is_file():
        return True
    built = max(library.stat().st_mtime, stamp.stat().st_mtime if stamp.is_file() else 0.0)
    return newest_source > built


def ensure_host_library() -> Path:
    """build/host/ports/linux/libmote.so, built or rebuilt first when stale (see is_stale).
    Safe from several pytest-xdist workers at once: one builds, the others wait, then see
    it fresh. MOTE_LIB (a library the user chose) is left alone."""
    if os.environ.get("MOTE_LIB"):
        return Path(os.environ["MOTE_LIB"])
    stamp = HOST / STAMP_NAME
    if not is_stale(HOST_LIBRARY, stamp, newest_source_mtime()):
        return HOST_LIBRARY
    with build_lock(HOST):
        if is_stale(HOST_LIBRARY, stamp, newest_source_mtime()):
            _cmake_build_unlocked(HOST, sanitize=False)
    return HOST_LIBRARY
