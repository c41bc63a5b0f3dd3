"""Linux targets other than the host: the runtime, kernels, libmote.so and
mote-run cross-built with Debian's toolchain (cmake/toolchains/), a program
run by mote-run under qemu-user (or natively when the machine is one).

    run_on_linux(pte_bytes, [inputs, ...], "linux-aarch64") -> [outputs, ...]

Each call is one mote-run process: a fresh method, so a program with mutable
state runs one step only here (the host and the boards carry state across
calls)."""
from __future__ import annotations

import platform
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from aot.errors import RunError
from aot.paths import ROOT, TOOLCHAINS_DIR


@dataclass(frozen=True)
class LinuxTarget:
    name: str        #: the --target name, e.g. "linux-aarch64"
    triple: str      #: the GNU triple of the cross toolchain (and its sysroot /usr/<triple>)
    machine: str     #: platform.machine() of a native host of this target
    qemu: str        #: the qemu-user binary
    apt: str         #: the Debian packages that provide the toolchain and qemu-user

    @property
    def build_dir(self) -> Path:
        return ROOT / "build" / self.name

    @property
    def extra_libs(self) -> Path:
        """Target libraries unpacked outside the cross sysroot (build/sysroot-<arch>)."""
        return ROOT / "build" / f"sysroot-{self.machine}" / "usr" / "lib" / self.triple

    @property
    def mote_run(self) -> Path:
        return self.build_dir / "ports" / "linux" / "mote-run"


#: the Linux targets aot compare / run accept (name -> target)
LINUX_TARGETS = {t.name: t for t in (
    LinuxTarget("linux-aarch64", "aarch64-linux-gnu", "aarch64", "qemu-aarch64",
                "gcc-aarch64-linux-gnu qemu-user"),
)}


def is_linux_target(name: str) -> bool:
    return name in LINUX_TARGETS


def _need(tool: str, t: LinuxTarget) -> None:
    if shutil.which(tool) is None:
        raise RunError(f"{t.name}: {tool} not found (apt install {t.apt})")


def build_linux(t: LinuxTarget) -> Path:
    """Cross-builds mote-run (and libmote.so) for `t` into build/<name> once;
    later calls only let CMake bring it up to date. Returns mote-run's path."""
    _need(f"{t.triple}-gcc", t)
    import fcntl
    toolchain = TOOLCHAINS_DIR / f"{t.triple}.cmake"
    t.build_dir.mkdir(parents=True, exist_ok=True)
    with open(t.build_dir / ".mote-build.lock", "w") as lock:   # two aot processes build one tree in turn
        fcntl.flock(lock, fcntl.LOCK_EX)
        # configured every time (a second or so): it finds libraries unpacked since (XNNPACK)
        _cmake(["cmake", "-S", str(ROOT), "-B", str(t.build_dir), f"-DCMAKE_TOOLCHAIN_FILE={toolchain}",
                "-DCMAKE_BUILD_TYPE=Release", "-DMOTE_BUILD_TESTS=OFF"], t)
        _cmake(["cmake", "--build", str(t.build_dir), "-j2", "--target", "mote-run"], t)
    return t.mote_run


def _cmake(cmd: list, t: LinuxTarget) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-15:])
        raise RunError(f"{t.name}: the cross build failed ({' '.join(cmd[:2])}):\n{tail}")


def _runner(t: LinuxTarget) -> list:
    if platform.machine() == t.machine:
        return []
    _need(t.qemu, t)
    env = []
    if t.extra_libs.is_dir():   # the arm64 XNNPACK libmote.so links (scripts/bootstrap.sh)
        env = ["-E", f"LD_LIBRARY_PATH={t.extra_libs}"]
    return [t.qemu, "-L", f"/usr/{t.triple}", *env]


def has_backend(target: str, backend: str) -> bool:
    """Does the cross-built libmote.so of `target` link delegate `backend` ("XnnpackBackend")?"""
    t = LINUX_TARGETS[target]
    build_linux(t)
    cache = (t.build_dir / "CMakeCache.txt").read_text()
    return backend == "XnnpackBackend" and "MOTE_XNNPACK_LIB:FILEPATH=" in cache and \
        "MOTE_XNNPACK_LIB:FILEPATH=MOTE_XNNPACK_LIB-NOTFOUND" not in cache


def run_on_linux(pte: bytes, steps: list, target: str, method: str = "forward",
                 timeout: float = 300.0, stats: Optional[dict] = None) -> list:
    """Runs program `pte` once per input list of `steps` (numpy arrays in the
    method's input order and dtypes) on Linux target `target`; returns each
    call's outputs (numpy arrays). With `stats` (a dict), a delegated program's
    backend pool high-water mark goes into stats["backend_pool_bytes"] (bytes,
    the largest over the calls). Raises RunError with mote-run's message."""
    t = LINUX_TARGETS[target]
    exe = [*_runner(t), str(build_linux(t))]
    results = []
    with tempfile.TemporaryDirectory(prefix=f"mote-{t.name}-") as tmp:
        prog = Path(tmp) / "program.pte"
        prog.write_bytes(pte)
        from aot.host.runtime import HOST_BACKEND_POOL_BYTES, HOST_BACKEND_POOL_MAX_BYTES
        pool_mib, max_mib = HOST_BACKEND_POOL_BYTES >> 20, HOST_BACKEND_POOL_MAX_BYTES >> 20  # the host's bounds
        for k, arrays in enumerate(steps):
            inp, out = Path(tmp) / f"in{k}.npz", Path(tmp) / f"out{k}.npz"
            np.savez(inp, *[np.ascontiguousarray(a) for a in arrays])
            while True:  # a delegate's backend pool: doubled (mote-run -p) while init says it is short
                try:
                    r = subprocess.run([*exe, "-m", method, "-p", str(pool_mib), "-o", str(out), str(prog),
                                        str(inp)], capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    raise RunError(f"{t.name}: mote-run did not finish in {timeout:.0f} s") from None
                if r.returncode == 0 or "MOTE_ERR_BACKEND_MEMORY" not in r.stderr or pool_mib >= max_mib:
                    break
                pool_mib = min(2 * pool_mib, max_mib)
            if r.returncode != 0:
                raise RunError(f"{t.name}: mote-run failed (exit {r.returncode}): "
                               f"{(r.stderr or r.stdout).strip().splitlines()[-1:]}")
            with np.load(out) as z:
                results.append([z[f"output_{i}"] for i in range(len(z.files))])
            pool = re.search(r"^backend pool: (\d+) bytes$", r.stdout, re.M)
            if stats is not None and pool:
                stats["backend_pool_bytes"] = max(stats.get("backend_pool_bytes", 0), int(pool.group(1)))
    return results
