"""ctypes bridge to the portable kernels for the tests.

`build_lib()` compiles every kernels/*.c (registry included) plus
abi_helper.c into build/kernels-test/libmote_kernels_test.so with the
project's strict C flags; `call(name, *args)` runs the kernel of operator
`name` ("aten::convolution.out") on Python arguments converted to
mote_value_t: torch tensors, int, float, bool, None, list of ints, list of
floats (DoubleList), list of bools (BoolList), list of tensors (TensorList;
with None items an optional tensor list). Outputs are torch tensors the caller allocates (written in place).
"""
from __future__ import annotations

import ctypes as C
import os
import subprocess
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels"
BUILD = ROOT / "build" / "kernels-test"
LIB = BUILD / "libmote_kernels_test.so"
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror",
          "-O3", "-fPIC", "-shared"]

from aot.host.abi import TAG, KernelFn, Value, error_codes  # noqa: E402,F401 (re-exported to the tests)
from aot.host.abi import BoolList, DoubleList, IntList as _Ints, KernelCtx as Ctx, KernelEntry as Entry  # noqa: E402,F401
from aot.host.abi import Tensor, TensorList as _Tensors, ValueUnion as _U  # noqa: E402,F401
from aot.ir import DTYPE_SIZES, SCALAR_TYPE_NAMES  # noqa: E402

DTYPE = {getattr(torch, SCALAR_TYPE_NAMES[c]): c for c in DTYPE_SIZES}
ERR = {k: error_codes()["KERNEL_" + k if k != "OK" else k] for k in ("OK", "ARGS", "DTYPE", "SHAPE", "SCRATCH")}


def build_lib(extra_flags: list[str] | None = None, out: Path = LIB) -> Path:
    """Compile the kernels into a shared library (rebuilt when a source is newer)."""
    srcs = sorted(KERNELS.glob("*.c")) + [Path(__file__).with_name("abi_helper.c")]
    hdrs = list(KERNELS.glob("*.h")) + list((ROOT / "runtime/include/mote").glob("*.h"))
    newest = max(p.stat().st_mtime for p in srcs + hdrs)
    if out.exists() and out.stat().st_mtime > newest and not extra_flags:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    cmd = [os.environ.get("CC", "cc"), *CFLAGS, *(extra_flags or []),
           f"-I{ROOT / 'runtime/include'}", f"-I{KERNELS}", *map(str, srcs), "-o", str(tmp), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    tmp.replace(out)
    return out


class Kernels:
    """The loaded library: registry lookup and calls."""

    def __init__(self, path: Path):
        self.lib = C.CDLL(str(path))
        self.lib.mote_test_layout.restype = C.c_size_t
        self.lib.mote_test_layout.argtypes = [C.c_int]
        self.check_layout()
        n = C.c_uint32.in_dll(self.lib, "mote_kernel_registry_len").value
        table = (Entry * max(n, 1)).in_dll(self.lib, "mote_kernel_registry")
        self.registry = {table[i].name.decode(): table[i].fn for i in range(n)}

    def check_layout(self) -> None:
        lay = self.lib.mote_test_layout
        want = {0: C.sizeof(Tensor), 1: C.sizeof(Value), 2: Value.u.offset,
                3: Tensor.numel.offset, 4: Tensor.dim.offset, 5: Tensor.dtype.offset,
                6: C.sizeof(Ctx), 7: C.sizeof(Entry)}
        got = {k: lay(k) for k in want}
        assert got == want, f"ctypes mirror differs from the C ABI: C {got} vs ctypes {want}"

    def prepare(self, name: str, *args):
        """Convert the arguments once; returns a no-argument callable giving the status."""
        keep = []
        vals = [self._value(a, keep) for a in args]
        arr = (C.POINTER(Value) * max(len(vals), 1))(*[C.pointer(v) for v in vals])
        ctx = Ctx(None, 0)
        fn = KernelFn(self.registry[name])
        n = len(vals)
        keep += [arr, ctx, fn]

        def run(_keep=keep):
            return fn(C.byref(ctx), arr, n)
        return run

    def call(self, name: str, *args, scratch: bytearray | None = None) -> int:
        keep = []
        vals = [self._value(a, keep) for a in args]
        arr = (C.POINTER(Value) * max(len(vals), 1))(*[C.pointer(v) for v in vals])
        ctx = Ctx(None, 0)
        if scratch is not None:
            buf = (C.c_uint8 * len(scratch)).from_buffer(scratch)
            keep.append(buf)
            ctx = Ctx(C.cast(buf, C.c_void_p), len(scratch))
        fn = KernelFn(self.registry[name])
        return fn(C.byref(ctx), arr, len(vals))

    def _tensor(self, t: torch.Tensor, keep: list) -> Tensor:
        assert t.is_contiguous()
        sizes = (C.c_int32 * max(t.dim(), 1))(*t.shape)
        keep.append(sizes)
        keep.append(t)
        st = Tensor(C.c_void_p(t.data_ptr() if t.numel() else 0), sizes, None, t.numel(),
                    t.numel() * t.element_size(), t.dim(), DTYPE[t.dtype])
        keep.append(st)
        return st

    def _value(self, a, keep: list) -> Value:
        v = Value()
        if a is None:
            v.tag = TAG["NULL"]
        elif isinstance(a, bool):
            v.tag, v.u.b = TAG["BOOL"], a
        elif isinstance(a, int):
            v.tag, v.u.i = TAG["INT"], a
        elif isinstance(a, float):
            v.tag, v.u.d = TAG["DOUBLE"], a
        elif isinstance(a, torch.Tensor):
            v.tag = TAG["TENSOR"]
            v.u.t = C.pointer(self._tensor(a, keep))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, torch.Tensor) or x is None for x in a):
            # a list holding None is an optional tensor list (Tensor?[]): NULL items
            ts = [None if x is None else C.pointer(self._tensor(x, keep)) for x in a]
            arr = (C.POINTER(Tensor) * len(ts))(*ts)
            keep.append(arr)
            v.tag = TAG["OPT_TENSOR_LIST" if any(x is None for x in a) else "TENSOR_LIST"]
            v.u.tensors = _Tensors(arr, len(ts))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, bool) for x in a):
            arr = (C.c_uint8 * len(a))(*a)
            keep.append(arr)
            v.tag = TAG["BOOL_LIST"]
            v.u.bools = BoolList(arr, len(a))
        elif isinstance(a, (list, tuple)) and a and any(isinstance(x, float) for x in a):
            arr = (C.c_double * len(a))(*a)
            keep.append(arr)
            v.tag = TAG["DOUBLE_LIST"]
            v.u.doubles = DoubleList(arr, len(a))
        elif isinstance(a, (list, tuple)):
            arr = (C.c_int64 * max(len(a), 1))(*a)
            keep.append(arr)
            v.tag = TAG["INT_LIST"]
            v.u.ints = _Ints(arr, len(a))
        elif isinstance(a, Value):
            v = a
        else:
            raise TypeError(a)
        keep.append(v)
        return v
