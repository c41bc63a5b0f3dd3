"""Growth of the C runtime's load and init with the size of the input (issue 34): each
stage's time for inputs that grow 10x, and the ratio of times (linear: ~10x; n log n:
~13x; quadratic: ~100x). Not a test: it prints figures and asserts nothing.

Inputs (crafted, no torch needed):
  ptd      a program of m external tensors (all float32 [1], keys "w<i>") and a .ptd of
           n = m entries, keys in reverse order (ExecuTorch 1.5.1 writes insertion order,
           so not sorted), every entry sharing one data segment (duplicate offsets).
  values   a program of n planned float32 [1] tensors and n et_view calls, each viewing
           tensor i as tensor i+1 (the view chains that init's view bookkeeping walks).
  lists    a tensor list of n planned tensors written by n split_copy calls (init's write
           proof of a list out argument, per call).

Stages (wall time of the C calls through ctypes, each the best of --repeat runs): load
(mote_program_load), ptd_load (mote_data_map_load), ptd_index (mote_data_map_set_index,
absent in a library from before it), requirements, init (mote_method_init).

    .venv/bin/python benchmarks/bench_init_growth.py [--sizes 1000,10000,30000]
        [--library build/host/ports/linux/libmote.so] [--json FILE]

For other scripts (benchmarks/bench_growth.py): ptd_program(n), view_program(n), list_program(n) give the
(pte, ptd) bytes; stage_times(pte, ptd, library) the seconds per stage. mote-run -t -d
FILE.ptd prints the same stages from C (ports/linux/mote_run.c).
"""
from __future__ import annotations

import argparse
import ctypes as C
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aot.host.abi import Buffer, Memory, Requirements  # noqa: E402
from aot.pte import schema as fb  # noqa: E402
from aot.pte.flat_tensor import (FILE_IDENTIFIER, FLAT_TENSOR_VERSION, HEADER_LENGTH, HEADER_MAGIC,  # noqa: E402
                                 PADDED_HEADER_LENGTH, DataSegment, FlatTensor, NamedData, TensorLayout)

F32 = 6
DEFAULT_LIBRARY = ROOT / "build" / "host" / "ports" / "linux" / "libmote.so"


def _planned(offset: int) -> fb.EValue:
    return fb.EValue(fb.Tensor(scalar_type=F32, sizes=[1], dim_order=[0],
                               allocation_info=fb.AllocationDetails(memory_id=1, memory_offset_low=offset)))


def _program(values: list, instructions: list, operators: list, arena: int) -> bytes:
    plan = fb.ExecutionPlan(name="forward", values=values, inputs=[0], outputs=[0],
                            chains=[fb.Chain(inputs=[0], outputs=[0], instructions=instructions)],
                            operators=operators, non_const_buffer_sizes=[0, arena])
    return fb.serialize_program(fb.Program(execution_plan=[plan]))


def ptd_bytes(keys: list, shared: bool = True) -> bytes:
    """A .ptd of float32 [1] entries named `keys`, in that order; with `shared`, all of them
    on one data segment (the same offset), else one segment each."""
    import flatbuffers
    n_seg = 1 if shared else len(keys)
    root = FlatTensor(version=FLAT_TENSOR_VERSION,
                      segments=[DataSegment(offset=16 * i, size=4) for i in range(n_seg)],
                      named_data=[NamedData(key=k, segment_index=0 if shared else i,
                                            tensor_layout=TensorLayout(scalar_type=F32, sizes=[1], dim_order=[0]))
                                  for i, k in enumerate(keys)])
    b = flatbuffers.Builder(1024)
    b.Finish(fb.write_table(b, root), file_identifier=FILE_IDENTIFIER)
    flat = bytes(b.Output())
    base = (len(flat) + PADDED_HEADER_LENGTH + 15) // 16 * 16
    data = b"".join(np.float32(i).tobytes() + bytes(12) for i in range(n_seg))
    header = HEADER_MAGIC + np.array([HEADER_LENGTH], "<u4").tobytes() + np.array(
        [PADDED_HEADER_LENGTH, len(flat), base, len(data)], "<u8").tobytes()
    header += bytes(PADDED_HEADER_LENGTH - len(header))
    root_off = int.from_bytes(flat[0:4], "little") + PADDED_HEADER_LENGTH
    out = root_off.to_bytes(4, "little") + flat[4:8] + header + flat[8:]
    return out + bytes(base - len(out)) + data


def ptd_program(n: int, m: int | None = None) -> tuple:
    """(pte, ptd): m external tensors (default n) looked up in a .ptd of n reverse-ordered keys."""
    m = n if m is None else m
    keys = [f"w{i:07d}" for i in range(n)]
    ext = [fb.EValue(fb.Tensor(scalar_type=F32, sizes=[1], dim_order=[0], extra_tensor_info=fb.ExtraTensorInfo(
        fully_qualified_name=keys[i], location=fb.TensorDataLocation.EXTERNAL))) for i in range(m)]
    return _program([_planned(0)] + ext, [], [], 16), ptd_bytes(keys[::-1])


def view_program(n: int) -> tuple:
    """(pte, None): n + 1 planned tensors and n et_view calls, view i: tensor i -> tensor i + 1."""
    values = [_planned(0) for _ in range(n + 1)] + [fb.EValue(fb.Int(1)), fb.EValue(fb.IntList([n + 1]))]
    instrs = [fb.Instruction(fb.KernelCall(op_index=0, args=[i, n + 2, i + 1])) for i in range(n)]
    return _program(values, instrs, [fb.Operator(name="executorch_prim::et_view", overload="default")], 16), None


def list_program(n: int, calls: int | None = None, repeat: bool = False) -> tuple:
    """(pte, None): one TensorList of n planned tensors, the out argument of `calls` (default n)
    aten::split_copy.Tensor_out calls (x, split_size, dim, out); with `repeat`, each call also
    names a second list of the same tensors after it, as ExecuTorch repeats a returned list."""
    items = list(range(1, n + 1))
    values = [_planned(0) for _ in range(n + 1)] + [fb.EValue(fb.Int(1)), fb.EValue(fb.TensorList(items)),
                                                     fb.EValue(fb.TensorList(items))]
    args = [0, n + 1, n + 1, n + 2] + ([n + 3] if repeat else [])
    instrs = [fb.Instruction(fb.KernelCall(op_index=0, args=args)) for _ in range(n if calls is None else calls)]
    return _program(values, instrs, [fb.Operator(name="aten::split_copy", overload="Tensor_out")], 16), None


def _aligned(data: bytes, align: int = 16) -> np.ndarray:
    raw = np.zeros(len(data) + align, np.uint8)
    off = (-raw.ctypes.data) % align
    a = raw[off:off + len(data)]
    a[:] = np.frombuffer(data, np.uint8)
    return a


def stage_times(pte: bytes, ptd: bytes | None, library=None) -> dict:
    """Seconds of each C stage (load, ptd_load, ptd_index, requirements, init) on (pte, ptd).
    Raises RuntimeError naming the stage that failed and its code."""
    lib = C.CDLL(str(library or DEFAULT_LIBRARY))
    vp, sz = C.c_void_p, C.c_size_t
    for name, res, args in (("mote_program_load", C.c_int32, [vp, vp, sz]),
                            ("mote_data_map_load", C.c_int32, [vp, vp, sz]),
                            ("mote_program_set_data_map", C.c_int32, [vp, vp]),
                            ("mote_method_memory_requirements", C.c_int32, [vp, C.c_uint32, C.POINTER(Requirements)]),
                            ("mote_method_init", C.c_int32, [vp, vp, C.c_uint32, C.POINTER(Memory)]),
                            ("mote_host_sizeof_program", sz, []), ("mote_host_sizeof_method", sz, []),
                            ("mote_host_sizeof_data_map", sz, [])):
        getattr(lib, name).restype, getattr(lib, name).argtypes = res, args
    indexed = hasattr(lib, "mote_data_map_set_index")
    if indexed:
        lib.mote_data_map_index_size.restype, lib.mote_data_map_index_size.argtypes = sz, [vp]
        lib.mote_data_map_set_index.restype, lib.mote_data_map_set_index.argtypes = C.c_int32, [vp, vp, sz]
    times = {}

    def stage(name, fn):
        t0 = time.perf_counter()
        code = fn()
        times[name] = time.perf_counter() - t0
        if code:
            raise RuntimeError(f"{name}: mote error {code}")

    buf = _aligned(pte)
    prog = _aligned(bytes(lib.mote_host_sizeof_program()))
    stage("load", lambda: lib.mote_program_load(prog.ctypes.data, buf.ctypes.data, len(pte)))
    if ptd is not None:
        pbuf = _aligned(ptd)
        dmap = _aligned(bytes(lib.mote_host_sizeof_data_map()))
        stage("ptd_load", lambda: lib.mote_data_map_load(dmap.ctypes.data, pbuf.ctypes.data, len(ptd)))
        if indexed:
            index = _aligned(bytes(max(4, lib.mote_data_map_index_size(dmap.ctypes.data))), 4)
            stage("ptd_index", lambda: lib.mote_data_map_set_index(dmap.ctypes.data, index.ctypes.data, index.size))
        code = lib.mote_program_set_data_map(prog.ctypes.data, dmap.ctypes.data)
        if code:
            raise RuntimeError(f"set_data_map: mote error {code}")
    req = Requirements()
    stage("requirements", lambda: lib.mote_method_memory_requirements(prog.ctypes.data, 0, C.byref(req)))
    state = _aligned(bytes(max(req.state_size, 16)))
    arenas = [_aligned(bytes(max(req.arena_size[i], 16))) for i in range(req.num_arenas)]
    mem = Memory()
    mem.state = Buffer(state.ctypes.data, req.state_size)
    for i, a in enumerate(arenas):
        mem.arenas[i] = Buffer(a.ctypes.data, req.arena_size[i])
    mem.num_arenas = req.num_arenas
    method = _aligned(bytes(lib.mote_host_sizeof_method()))
    stage("init", lambda: lib.mote_method_init(method.ctypes.data, prog.ctypes.data, 0, C.byref(mem)))
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,30000", help="n values, comma-separated (default %(default)s)")
    ap.add_argument("--library", default=str(DEFAULT_LIBRARY), help="libmote.so to time (default %(default)s)")
    ap.add_argument("--inputs", default="ptd,values,lists",
                    help="which inputs: ptd, values, lists (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per size; the best is kept (default %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    makers = {"ptd": ptd_program, "values": view_program, "lists": list_program}
    results = []
    for kind in args.inputs.split(","):
        rows = {}
        for n in sizes:
            pte, ptd = makers[kind](n)
            runs = [stage_times(pte, ptd, args.library) for _ in range(args.repeat)]
            rows[n] = {k: min(r[k] for r in runs) for k in runs[0]}
            results.append({"input": kind, "n": n, "pte_bytes": len(pte), "ptd_bytes": len(ptd or b""),
                            "seconds": rows[n]})
        stages = list(rows[sizes[0]])
        print(f"\n{kind}: seconds per stage (ratio to the previous size)")
        print(f"{'n':>8} " + " ".join(f"{s:>22}" for s in stages))
        for j, n in enumerate(sizes):
            cells = []
            for s in stages:
                t = rows[n][s]
                ratio = f" (x{t / rows[sizes[j - 1]][s]:.1f})" if j and rows[sizes[j - 1]][s] > 0 else ""
                cells.append(f"{t:.6f}{ratio}")
            print(f"{n:>8} " + " ".join(f"{c:>22}" for c in cells))
    if args.json:
        Path(args.json).write_text(json.dumps({"library": args.library, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
