"""Shared helpers for the runtime and fuzz tests: C builds, .pte generation, flatbuffer patching."""
from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

from aot.host.runtime import error_codes
from shared_build import ASAN, HOST, cmake_build  # noqa: F401  (H.cmake_build, H.HOST, H.ASAN)

ROOT = Path(__file__).resolve().parents[2]
#: programs that once escaped their memory (tests/runtime/repro, see its README)
REPRO = ROOT / "tests" / "runtime" / "repro"
#: where they came from: the team's shared folder beside a working clone (absent in CI)
SHARED_REPRO = ROOT.parent / "shared" / "repro"

# mote_err_t values, short name -> code (parsed from runtime/include/mote/types.h)
E = error_codes()


def export_pte(module, example_inputs, path: Path) -> Path:
    """ExecuTorch's own portable .pte for `module` (the oracle's serializer)."""
    import torch
    from executorch.exir import to_edge

    ep = torch.export.export(module, tuple(example_inputs))
    path.write_bytes(to_edge(ep).to_executorch().buffer)
    return path


def checker_env() -> dict:
    """Environment of the sanitized checkers: stop at the first report; let loader_check's
    own SIGSEGV handler (a write into the read-only program) run before ASan's."""
    return dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:"
                "allow_user_segv_handler=1", UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")


def run_checker(exe: Path, files, *extra) -> list:
    """Runs loader_check/fuzz_loader over files; returns [(code, name, stage...)] per file.
    loader_check maps each program read-only: a write into it exits with status 3."""
    env = checker_env()
    r = subprocess.run([str(exe), *extra, *[str(f) for f in files]], capture_output=True, text=True,
                       timeout=900, env=env)
    assert r.returncode == 0, f"checker crashed (rc={r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-6000:]}"
    lines = [ln.split() for ln in r.stdout.splitlines()]
    return lines


class FB:
    """Minimal flatbuffer navigator over a bytearray, to locate fields to corrupt."""

    def __init__(self, data: bytearray):
        self.d = data

    def u16(self, p):
        return struct.unpack_from("<H", self.d, p)[0]

    def u32(self, p):
        return struct.unpack_from("<I", self.d, p)[0]

    def i32(self, p):
        return struct.unpack_from("<i", self.d, p)[0]

    def table(self, pos):
        return (pos, pos - self.i32(pos))

    def root(self):
        return self.table(self.u32(0))

    def field(self, t, fid):
        """Absolute position of field fid's inline slot, or None when absent."""
        pos, vt = t
        if 4 + 2 * fid + 2 > self.u16(vt):
            return None
        off = self.u16(vt + 4 + 2 * fid)
        return pos + off if off else None

    def ref(self, t, fid):
        p = self.field(t, fid)
        return None if p is None else p + self.u32(p)

    def sub(self, t, fid):
        return self.table(self.ref(t, fid))

    def vec(self, t, fid):
        """(length-prefix position, element-0 position, length)."""
        p = self.ref(t, fid)
        return p, p + 4, self.u32(p)

    def vec_table(self, t, fid, i):
        _, first, n = self.vec(t, fid)
        assert i < n
        p = first + 4 * i
        return self.table(p + self.u32(p))

    # schema shortcuts (field ids of program.fbs)
    def plan(self, i=0):
        return self.vec_table(self.root(), 1, i)

    def value(self, i, plan=0):
        return self.vec_table(self.plan(plan), 2, i)

    def value_tag(self, i):
        return self.d[self.field(self.value(i), 0)]

    def value_table(self, i):
        return self.sub(self.value(i), 1)

    def instruction(self, i):
        chain = self.vec_table(self.plan(), 5, 0)
        return self.vec_table(chain, 2, i)

    def values_where(self, pred):
        _, _, n = self.vec(self.plan(), 2)
        return [i for i in range(n) if pred(i)]

    def tensors(self):
        return self.values_where(lambda i: self.value_tag(i) == 5)

    def put_u32(self, p, v):
        struct.pack_into("<I", self.d, p, v & 0xFFFFFFFF)

    def put_i32(self, p, v):
        struct.pack_into("<i", self.d, p, v)
