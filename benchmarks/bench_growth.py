"""Growth of every stage a file reaches with the size of the file (issue 34): each stage's
median time on inputs of size n, 2n and 10n, the ratios, and OK/over against the target
"doubling an input at most doubles the time" (x2 <= 2.2 with noise; x10 <= 2.2**log2(10)
= 13.7, which n log n meets from n = 1024 on); "OK (n log n)": within 1.1x of n log n's
ratios (what sorting n keys costs at small n). Not a test: it prints figures and asserts
nothing about time.

Inputs (crafted with benchmarks/bench_init_growth.py's generators unless said):
  views         a program of n planned float32 [1] tensors and n et_view calls
  ptd-sorted    m = n external tensors and a .ptd of n entries, keys in byte order (as Mote
                writes them: binary search without an index)
  ptd-unsorted  the same .ptd with the keys reversed (as ExecuTorch 1.5.1 writes them in
                insertion order: the runtime's key index, a heapsort)
  xnnpack       one XNNPACK delegate of n add+relu nodes (compiled from torch by the Mote
                compiler; only when the host library has the XNNPACK backend)
  xnnpack-staging  one XNNPACK delegate of n StaticTranspose nodes that move data: the
                backend's staging of edge transposes looks at every one, then init refuses
                the payload (MOTE_ERR_BACKEND_PAYLOAD: XNNPACK 2022 has no subgraph
                transpose); its init is that refusal, and `aot run` is not timed
  bundled       a .bpte of n test cases around a 2-tensor program

Each size runs --repeat times (fewer once its runs took RUN_BUDGET_S seconds: a quadratic
stage at 10n), each run the C stages C_REPEAT times; the medians are kept.

Stages:
  C, through ctypes on the host library (the calls a device makes): load
  (mote_program_load), named_index (mote_program_set_named_index), ptd_load
  (mote_data_map_load), ptd_index (mote_data_map_set_index), verify
  (mote_method_memory_requirements: verifies the method while counting), init
  (mote_method_init: named-data lookup, delegate staging, the write proof);
  host tools, in process: inspect (`aot inspect FILE`), run (`aot run FILE` on the host,
  zero inputs), bundled (aot.deploy.selftest.read_bpte: what `aot test` reads).

    .venv/bin/python benchmarks/bench_growth.py [--quick] [--scale K] [--repeat 5]
        [--inputs views,...] [--library build/host/ports/linux/libmote.so] [--json FILE]
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes as C
import io
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import bench_init_growth as gen  # noqa: E402
from aot.host.abi import Buffer, Memory, Requirements  # noqa: E402

#: the noise allowed on a ratio (shared machine)
NOISE = 1.1
#: the target: doubling an input at most doubles a stage's time (noise allowed: 2.2)
DOUBLING = 2 * NOISE
#: the same for 10x the input: DOUBLING per doubling, log2(10) doublings
TENFOLD = DOUBLING ** math.log2(10)
#: base size n of each input (full run, --quick): at 10n the C stages' data (program, .ptd, method
#: state) still fits a 1 MiB L2 cache, so the ratios show the algorithm, not the memory hierarchy
#: (--scale 5 crosses it: see benchmarks/README.md)
BASE = {"views": (400, 200), "ptd-sorted": (300, 150), "ptd-unsorted": (300, 150),
        "xnnpack": (100, 50), "xnnpack-staging": (1000, 200), "bundled": (200, 50)}
#: the C stages and the bundled reader (micro- to milliseconds, preemption-prone on a shared
#: machine) run this many times per run, their median kept
C_REPEAT = 7
#: seconds of runs per size after which no further run starts (a quadratic stage at 10n)
RUN_BUDGET_S = 60
HOST_BACKEND_POOL_BYTES = 64 << 20
HOST_SCRATCH_BYTES = 1 << 20


class Lib:
    """The host library's C entry points the stages call."""

    def __init__(self, path):
        lib = C.CDLL(str(path))
        vp, sz, i32 = C.c_void_p, C.c_size_t, C.c_int32
        for name, res, args in (("mote_program_load", i32, [vp, vp, sz]),
                                ("mote_program_named_index_size", sz, [vp]),
                                ("mote_program_set_named_index", i32, [vp, vp, sz]),
                                ("mote_data_map_load", i32, [vp, vp, sz]),
                                ("mote_data_map_index_size", sz, [vp]),
                                ("mote_data_map_set_index", i32, [vp, vp, sz]),
                                ("mote_program_set_data_map", i32, [vp, vp]),
                                ("mote_method_memory_requirements", i32, [vp, C.c_uint32, C.POINTER(Requirements)]),
                                ("mote_method_init", i32, [vp, vp, C.c_uint32, C.POINTER(Memory)]),
                                ("mote_method_destroy", None, [vp]),
                                ("mote_host_sizeof_program", sz, []), ("mote_host_sizeof_method", sz, []),
                                ("mote_host_sizeof_data_map", sz, [])):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        self.lib = lib
        self._scratch = self._pool = None

    def scratch_and_pool(self) -> tuple:
        """(kernel scratch array, backend pool address): made once, shared by every init."""
        if self._pool is None:
            self._scratch = gen._aligned(bytes(HOST_SCRATCH_BYTES))
            self._pool = np.zeros(HOST_BACKEND_POOL_BYTES + 16, np.uint8)
        return self._scratch, self._pool.ctypes.data + (-self._pool.ctypes.data) % 16


def c_stages(L: Lib, pte: bytes, ptd: bytes | None, init_code: int = 0) -> dict:
    """Seconds of each C stage on (pte, ptd). Raises RuntimeError naming a stage that failed
    (init: that returned another code than init_code)."""
    lib, times = L.lib, {}

    def stage(name, fn):
        t0 = time.perf_counter()
        code = fn()
        times[name] = time.perf_counter() - t0
        if code != (init_code if name == "init" else 0):
            raise RuntimeError(f"{name}: mote error {code}")

    buf = gen._aligned(pte)
    prog = gen._aligned(bytes(lib.mote_host_sizeof_program()))
    stage("load", lambda: lib.mote_program_load(prog.ctypes.data, buf.ctypes.data, len(pte)))
    nidx = gen._aligned(bytes(max(4, lib.mote_program_named_index_size(prog.ctypes.data))), 4)
    stage("named_index", lambda: lib.mote_program_set_named_index(prog.ctypes.data, nidx.ctypes.data, nidx.size))
    if ptd is not None:
        pbuf = gen._aligned(ptd)
        dmap = gen._aligned(bytes(lib.mote_host_sizeof_data_map()))
        stage("ptd_load", lambda: lib.mote_data_map_load(dmap.ctypes.data, pbuf.ctypes.data, len(ptd)))
        index = gen._aligned(bytes(max(4, lib.mote_data_map_index_size(dmap.ctypes.data))), 4)
        stage("ptd_index", lambda: lib.mote_data_map_set_index(dmap.ctypes.data, index.ctypes.data, index.size))
        code = lib.mote_program_set_data_map(prog.ctypes.data, dmap.ctypes.data)
        if code:
            raise RuntimeError(f"set_data_map: mote error {code}")
    req = Requirements()
    stage("verify", lambda: lib.mote_method_memory_requirements(prog.ctypes.data, 0, C.byref(req)))
    state = gen._aligned(bytes(max(req.state_size, 16)))
    arenas = [gen._aligned(bytes(max(req.arena_size[i], 16))) for i in range(req.num_arenas)]
    scratch, pool_at = L.scratch_and_pool()
    mem = Memory()
    mem.state = Buffer(state.ctypes.data, req.state_size)
    for i, a in enumerate(arenas):
        mem.arenas[i] = Buffer(a.ctypes.data, req.arena_size[i])
    mem.num_arenas = req.num_arenas
    mem.scratch = Buffer(scratch.ctypes.data, HOST_SCRATCH_BYTES)
    mem.backend = Buffer(pool_at, HOST_BACKEND_POOL_BYTES)
    method = gen._aligned(bytes(lib.mote_host_sizeof_method()))
    stage("init", lambda: lib.mote_method_init(method.ctypes.data, prog.ctypes.data, 0, C.byref(mem)))
    lib.mote_method_destroy(method.ctypes.data)
    return times


def cli_seconds(argv: list) -> float:
    """Seconds of `aot ARGV...` in this process (its output discarded). Raises RuntimeError if it fails."""
    from aot.cli import main
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    t = time.perf_counter() - t0
    if code:
        raise RuntimeError(f"aot {' '.join(map(str, argv))}: exit {code}: {err.getvalue().strip()[-300:]}")
    return t


def _bundle(n: int) -> bytes:
    """A .bpte of n cases (float32 [2, 3] in, [2, 3] out) around a 2-tensor program."""
    from aot.pte.bundled import serialize_bundled
    pte, _ = gen.view_program(1)
    rng = np.random.default_rng(0)
    cases = [([rng.standard_normal((2, 3)).astype(np.float32)], [rng.standard_normal((2, 3)).astype(np.float32)])
             for _ in range(n)]
    return serialize_bundled(pte, {"forward": cases})


def _xnnpack_chain(n: int) -> bytes:
    """One XNNPACK delegate of n add+relu nodes over float32 [1, 4, 4, 4] (Mote's compiler)."""
    import torch
    from torch import nn

    from aot.compiler.pipeline import compile_module

    class Chain(nn.Module):
        def forward(self, x, y):
            for _ in range(n):
                x = torch.relu(x + y)
            return x

    x = torch.randn(1, 4, 4, 4, generator=torch.Generator().manual_seed(0))
    with contextlib.redirect_stderr(io.StringIO()):
        return compile_module("chain", Chain().eval(), (x, x.clone()), delegate="xnnpack").pte


def _xnnpack_staging(n: int) -> bytes:
    """One XNNPACK delegate (arguments float32 [1, 4, 4, 2] in and out) whose payload is a chain
    of n StaticTranspose nodes alternating [1, 4, 4, 2] -> [1, 2, 4, 4] -> [1, 4, 4, 2]: the
    first and last are edge transposes (staged), the others move data inside the subgraph."""
    import torch
    from torch import nn

    from aot import ir
    from aot.backends.xnnpack import schema as xs
    from aot.compiler.emit import build_program
    from aot.compiler.pipeline import compile_module

    x = torch.randn(1, 2, 4, 4, generator=torch.Generator().manual_seed(0))
    with contextlib.redirect_stderr(io.StringIO()):
        c = compile_module("conv1x1", nn.Conv2d(2, 2, 1).eval(), (x,), delegate="xnnpack")
    dc = next(i for i in c.spec.instructions if isinstance(i, ir.DelegateCall))
    assert [c.spec.values[a].sizes for a in dc.args] == [[1, 4, 4, 2], [1, 4, 4, 2]]

    def value(i, dims, ext=xs.INVALID_ID, flags=0):
        return xs.XValue(xs.XNNTensorValue(datatype=xs.FP32, num_dims=4, dims=dims, external_id=ext, flags=flags,
                                           id_out=i))
    a, b = [1, 4, 4, 2], [1, 2, 4, 4]
    values = [value(0, a, 0, xs.EXTERNAL_INPUT), value(1, a, 1, xs.EXTERNAL_OUTPUT)]
    nodes, prev = [], 0
    for i in range(n):
        out = 1 if i == n - 1 else len(values)
        if out != 1:
            values.append(value(out, a if i % 2 else b))
        nodes.append(xs.XNode(xnode_union=xs.NODE_TYPES["XNNStaticTranspose"](
            num_dims=4, perm=[0, 2, 3, 1] if i % 2 else [0, 3, 1, 2], input_id=prev, output_id=out, flags=0)))
        prev = out
    g = xs.XNNGraph(version="0", num_externs=2, input_ids=[0], output_ids=[1], xvalues=values, xnodes=nodes,
                    constant_data=[xs.ConstantDataOffset(0, 0)])
    dc.payload = xs.serialize_payload(g, b"")
    return build_program(c.spec).data


def make_input(kind: str, n: int, d: Path) -> dict:
    """Files of input `kind` at size n in d: {"pte": path, "ptd": path or None, "bpte": path or None}."""
    ptd = bpte = None
    if kind == "views":
        pte, _ = gen.view_program(n)
    elif kind in ("ptd-sorted", "ptd-unsorted"):
        pte, ptd = gen.ptd_program(n)  # keys reversed
        if kind == "ptd-sorted":
            ptd = gen.ptd_bytes(sorted(f"w{i:07d}" for i in range(n)))
    elif kind == "xnnpack":
        pte = _xnnpack_chain(n)
    elif kind == "xnnpack-staging":
        pte = _xnnpack_staging(2 * (n // 2))
    elif kind == "bundled":
        pte, bpte = None, _bundle(n)
    else:
        raise ValueError(kind)
    files = {"pte": None, "ptd": None, "bpte": None}
    for key, data, ext in (("pte", pte, ".pte"), ("ptd", ptd, ".ptd"), ("bpte", bpte, ".bpte")):
        if data is not None:
            files[key] = d / f"{kind}-{n}{ext}"
            files[key].write_bytes(data)
    return files


def stage_times(L: Lib, kind: str, files: dict) -> dict:
    """Seconds of every stage input `kind` reaches (one run)."""
    if kind == "bundled":
        from aot.deploy.selftest import read_bpte
        ts = []
        for _ in range(C_REPEAT):
            t0 = time.perf_counter()
            read_bpte(files["bpte"])
            ts.append(time.perf_counter() - t0)
        return {"bundled": statistics.median(ts)}
    pte = files["pte"].read_bytes()
    ptd = files["ptd"].read_bytes() if files["ptd"] else None
    init_code = 0
    if kind == "xnnpack-staging":   # init stages the transposes, then refuses the payload
        from aot.host.abi import error_codes
        init_code = error_codes()["BACKEND_PAYLOAD"]
    c_runs = [c_stages(L, pte, ptd, init_code=init_code) for _ in range(C_REPEAT)]
    times = {k: statistics.median(r[k] for r in c_runs) for k in c_runs[0]}
    if kind == "xnnpack-staging":   # the payload is refused: nothing to run
        times["inspect"] = cli_seconds(["inspect", files["pte"]])
        return times
    times["inspect"] = cli_seconds(["inspect", files["pte"]])
    times["run"] = cli_seconds(["run", files["pte"]] + (["--ptd", files["ptd"]] if files["ptd"] else []))
    return times


def has_xnnpack(library) -> bool:
    try:
        C.CDLL(str(library)).mote_backend_xnnpack  # noqa: B018 -- the symbol's presence
        return True
    except AttributeError:
        return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--quick", action="store_true", help="smaller base sizes, 3 runs (a smoke run)")
    ap.add_argument("--inputs", default=",".join(BASE), help="which inputs (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per size; the median is kept (default 5, --quick 3)")
    ap.add_argument("--scale", type=int, default=1, help="multiply every base size n (default %(default)s)")
    ap.add_argument("--library", default=str(gen.DEFAULT_LIBRARY), help="libmote.so (default %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 5)
    L = Lib(args.library)
    kinds = [k for k in args.inputs.split(",") if k]
    for k in ("xnnpack", "xnnpack-staging"):
        if k in kinds and not has_xnnpack(args.library):
            print(f"{k}: skipped (the host library has no XNNPACK backend)")
            kinds.remove(k)
    results, overs = [], []
    print(f"bench_growth: median of {repeat} runs per size; OK: x2 <= {DOUBLING}, x10 <= {TENFOLD:.1f} "
          f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            n = BASE[kind][1 if args.quick else 0] * args.scale
            sizes = [n, 2 * n, 10 * n]
            med, nbytes = {}, {}
            for s in sizes:
                files = make_input(kind, s, Path(tmp))
                nbytes[s] = sum(f.stat().st_size for f in files.values() if f)
                runs, t0 = [], time.perf_counter()
                while len(runs) < repeat and (not runs or time.perf_counter() - t0 < RUN_BUDGET_S):
                    runs.append(stage_times(L, kind, files))
                med[s] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"\n{kind}: n = {sizes[0]}, {sizes[1]}, {sizes[2]} "
                  f"(file bytes {nbytes[sizes[0]]:,} / {nbytes[sizes[1]]:,} / {nbytes[sizes[2]]:,})")
            print(f"  {'stage':<12} {'t(n) ms':>10} {'t(2n) ms':>10} {'t(10n) ms':>10} {'x2':>6} {'x10':>6}  verdict")
            for st in med[sizes[0]]:
                t = [med[s][st] for s in sizes]
                x2 = t[1] / t[0] if t[0] > 0 else float("inf")
                x10 = t[2] / t[0] if t[0] > 0 else float("inf")
                ok = x2 <= DOUBLING and x10 <= TENFOLD
                # n log n (the key index's heapsort) grows faster than 2.2x per doubling below n = 1024
                nlogn = x2 <= NOISE * 2 * math.log2(2 * n) / math.log2(n) and \
                    x10 <= NOISE * 10 * math.log2(10 * n) / math.log2(n)
                verdict = "OK" if ok else "OK (n log n)" if nlogn else "over"
                if not (ok or nlogn):
                    overs.append(f"{kind}/{st}")
                print(f"  {st:<12} {t[0] * 1e3:>10.3f} {t[1] * 1e3:>10.3f} {t[2] * 1e3:>10.3f} {x2:>6.2f} {x10:>6.2f}  "
                      f"{verdict}")
                results.append({"input": kind, "stage": st, "n": sizes, "bytes": [nbytes[s] for s in sizes],
                                "seconds": t, "x2": x2, "x10": x10, "verdict": verdict})
    print(f"\n{len(results) - len(overs)} of {len(results)} stages OK or n log n" + (f"; over: {', '.join(overs)}" if overs else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"library": args.library, "repeat": repeat, "doubling": DOUBLING,
                                               "tenfold": TENFOLD, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
