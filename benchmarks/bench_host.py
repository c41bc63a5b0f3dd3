"""Host (x86_64) fp32 and int8 latency and memory: Mote vs ExecuTorch 1.5.1 vs eager PyTorch.

  .venv/bin/python benchmarks/bench_host.py [--quick] [--json FILE] [--models NAME ...]

For every zoo model (zoo.MODELS), from one run, side by side:

* Mote: aot.compiler.pipeline.compile_model_file -> libmote.so (aot.host.runtime). The timed
  region is the C calls mote_method_set_input (a memcpy per input) +
  mote_method_execute; outputs are not copied out. The median cost of an empty
  ctypes call into the same library, times the number of calls, is subtracted.
* Mote+XNNPACK: the same with --delegate xnnpack (aot.compiler.partition):
  the delegated subgraphs run in Mote's XNNPACK backend (backends/xnnpack,
  Debian's libxnnpack), with XNNPACK's memory in the method's backend pool.
* ExecuTorch portable: torch.export -> exir.to_edge -> to_executorch, run by
  the pybindings' _load_for_executorch_from_buffer(...).forward.
* ExecuTorch XNNPACK: to_edge_transform_and_lower(XnnpackPartitioner) ->
  to_executorch, threadpool reset to 1 thread.
* eager PyTorch, torch.set_num_threads(1), torch.no_grad().

int8 (a second table): Mote --int8 on its own int8 kernels and with
--delegate xnnpack (XNNPACK's qs8 / qc8 operators), against ExecuTorch's own
int8 XNNPACK lowering (XNNPACKQuantizer, per-channel, calibrated on the model
file's calibration data, to_edge_transform_and_lower). Parity: Mote's outputs
in output quanta from PT2E's reference (the converted module).

Everything is single-threaded (OMP/MKL/OpenBLAS = 1). Latencies are medians
of many runs (µs). Sizes: .pte bytes of the three programs; arenas: Mote's
planned arena and its lower bound (aot/compiler/plan.py) against ExecuTorch's
non_const_buffer_sizes (XNNPACK: the delegate's own workspace is not in it).
executorch is a benchmark oracle here; nothing under aot/ or runtime/ imports it.
"""
from __future__ import annotations

import ctypes
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as cm  # noqa: E402  (sets single-thread env before torch)

import numpy as np  # noqa: E402
import torch  # noqa: E402

#: ExecuTorch 1.5.1 portable / eager PyTorch, 1 thread, µs, measured for the project brief.
REF_ET_PORTABLE_US = {"ds_cnn": 10_059, "mobilenet_v1_025": 29_565, "resnet8": 34_876}
REF_EAGER_US = {"ds_cnn": 621, "mobilenet_v1_025": 1_780, "resnet8": 674}


def _rel_err(a, b) -> float:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def _time_method(meth, inputs, budget: float) -> tuple:
    """(median µs of set_input + execute, the ctypes overhead subtracted from it) of a
    Mote method (aot.host.runtime.Method) on `inputs`."""
    lib, ptr = meth._lib, meth._ptr
    execute = lib.mote_method_execute
    # Inputs are planned in the arena like every tensor: once an input is dead
    # its bytes are reused, so each inference sets its inputs again (a memcpy;
    # re-executing on stale bytes would time garbage, e.g. denormals).
    set_input = lib.mote_method_set_input
    set_input.restype = ctypes.c_int32
    set_input.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]
    arrays = [np.ascontiguousarray(a) for a in inputs]
    feeds = [(i, a.ctypes.data, a.nbytes) for i, a in enumerate(arrays)]

    def infer():
        for i, data, n in feeds:
            set_input(ptr, i, data, n)
        return execute(ptr)

    rc = infer()
    if rc != 0:
        raise RuntimeError(f"mote_method_execute returned {rc}")
    noop = lib.mote_method_num_inputs
    overhead = cm.median_us(lambda: noop(ptr), budget_s=0.05, min_reps=200) * (1 + len(feeds))
    us = cm.median_us(infer, budget_s=budget)
    return us, overhead


def bench_mote(name: str, budget: float, delegate=None, int8: bool = False) -> dict:
    from aot.compiler.pipeline import compile_model_file, program_inputs
    from aot.host.runtime import Program
    import zoo
    c = compile_model_file(zoo.path(name), delegate=delegate, int8=int8)
    prog = Program(c.pte)
    meth = prog.method()
    inputs = program_inputs(c, c.example_inputs)
    outs = meth.run(inputs)                 # sets the inputs; they stay set
    ref = [o.detach().numpy() for o in
           (lambda r: (r,) if isinstance(r, torch.Tensor) else tuple(r))(c.reference(*c.example_inputs))]
    if int8:   # in output quanta from PT2E's reference
        err = max(float(np.abs(o.astype(np.float64) - r).max()) / q[0]
                  for o, r, q in zip(outs, ref, c.int8_info.output_qparams))
    else:
        err = max(_rel_err(o, r) for o, r in zip(outs, ref))
    us, overhead = _time_method(meth, inputs, budget)
    return {
        "us": max(us - overhead, 0.0), "us_raw": us, "ctypes_overhead_us": overhead,
        "pte_bytes": len(c.pte), "arena_bytes": c.arena_bytes,
        "arena_lower_bound_bytes": c.arena_lower_bound_bytes,
        "state_bytes": meth.requirements.state_size, "max_rel_err": err,
        "instructions": len(c.spec.instructions), "model": c.eager, "inputs": c.example_inputs,
        "backend_pool_bytes": meth.backend_pool_used, "calibration": c.calibration_data,
    }


def _et_program(model, inputs, xnnpack: bool, calibration=None):
    """ExecuTorch's program of `model`; with `calibration` (input tuples) quantized to int8 first."""
    from executorch.exir import to_edge, to_edge_transform_and_lower
    if calibration is not None:
        model = _et_quantized(model, inputs, calibration)
    ep = torch.export.export(model, tuple(inputs))
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    else:
        edge = to_edge(ep)
    return edge.to_executorch()


def _et_quantized(model, inputs, calibration):
    """ExecuTorch's int8 flow: XNNPACKQuantizer (symmetric, per-channel), PT2E calibrated on `calibration`."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    gm = torch.export.export(model, tuple(inputs)).module(check_guards=False)
    prepared = prepare_pt2e(gm, XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True)))
    for batch in calibration:
        prepared(*batch)
    return convert_pt2e(prepared)


def bench_et(model, inputs, xnnpack: bool, budget: float, calibration=None) -> dict:
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    prog = _et_program(model, inputs, xnnpack, calibration)
    buf = bytes(prog.buffer)                       # the module keeps a pointer: keep buf alive
    plan = prog.executorch_program.execution_plan[0]
    sizes = list(plan.non_const_buffer_sizes)
    mod = _load_for_executorch_from_buffer(buf)
    args = tuple(inputs)
    out = mod.forward(args)
    with torch.no_grad():
        ref = model(*args)      # int8: against eager fp32 (ExecuTorch's quantization is its own)
    ref = (ref,) if isinstance(ref, torch.Tensor) else tuple(ref)
    err = max(_rel_err(o.detach().numpy(), r.numpy()) for o, r in zip(out, ref))
    us = cm.median_us(lambda: mod.forward(args), budget_s=budget)
    res = {"us": us, "pte_bytes": len(buf), "arena_bytes": int(sum(sizes[1:])),
           "max_rel_err": err, "delegates": [d.id for d in plan.delegates], "pte": buf,
           "outputs": [o.detach().numpy() for o in out]}
    del mod
    return res


def bench_et_program_on_mote(et: dict, inputs, budget: float) -> dict:
    """ExecuTorch's own program (bench_et's) run by Mote's runtime and backend: the
    same payload on Debian's XNNPACK instead of ExecuTorch's bundled one."""
    from aot.host.runtime import Program
    meth = Program(et["pte"]).method()
    arrays = [t.numpy() for t in inputs]
    outs = meth.run(arrays)
    us, overhead = _time_method(meth, arrays, budget)
    return {"us": max(us - overhead, 0.0), "identical_to_executorch":
            all(np.array_equal(a, b) for a, b in zip(outs, et["outputs"]))}


def bench_eager(model, inputs, budget: float) -> float:
    with torch.no_grad():
        return cm.median_us(lambda: model(*inputs), budget_s=budget)


def _bench_int8(name: str, model, inputs, calibration, budget: float, errors: dict) -> dict:
    """The int8 columns of one model: Mote's int8 kernels, Mote+XNNPACK qs8, ExecuTorch+XNNPACK int8."""
    out = {}
    for key, run in (("mote", lambda: bench_mote(name, budget, int8=True)),
                     ("mote_xnnpack", lambda: bench_mote(name, budget, delegate="xnnpack", int8=True)),
                     ("et_xnnpack", lambda: bench_et(model, inputs, True, budget, calibration))):
        try:
            r = run()
            for k in ("model", "inputs", "calibration"):
                r.pop(k, None)
            out[key] = r
        except Exception as e:  # noqa: BLE001 - report and go on
            errors["int8_" + key] = cm.short_error(e)
    if out.get("et_xnnpack"):
        from aot.errors import RuntimeCallError
        try:
            out["et_program_on_mote"] = bench_et_program_on_mote(out["et_xnnpack"], inputs, budget)
        except RuntimeCallError as e:   # e.g. a data-moving transpose inside ExecuTorch's subgraph (small_cnn):
            out["et_program_on_mote"] = {"refused": str(e)}   # refused by the backend, as documented
        except Exception as e:  # noqa: BLE001
            errors["int8_et_program_on_mote"] = cm.short_error(e)
        out["et_xnnpack"].pop("pte"), out["et_xnnpack"].pop("outputs")
    mx, ex = out.get("mote_xnnpack"), out.get("et_xnnpack")
    out["mote_xnnpack_vs_et_xnnpack"] = mx["us"] / ex["us"] if mx and ex and ex["us"] > 0 else None
    return out


def _et_on_mote(xm) -> str:
    """The "ET's int8 .pte on Mote" cell: µs and (=) / (differs), or why the backend refused it."""
    if not xm:
        return cm.fmt(None)
    if "refused" in xm:
        return "refused (" + xm["refused"].split(": ")[-1] + ")"
    return cm.fmt(xm["us"], ",.1f") + (" (=)" if xm["identical_to_executorch"] else " (differs)")


def main(argv=None) -> int:
    args = cm.arg_parser(__doc__).parse_args(argv)
    names = cm.model_names(args)
    budget = 0.1 if args.quick else 1.0
    torch.set_num_threads(1)
    try:
        from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool
        _unsafe_reset_threadpool(1)
    except Exception:  # noqa: BLE001 - older pybindings: threads already pinned by env
        pass
    results = []
    for name in cm.progress(names, "bench_host"):
        row = {"model": name, "errors": {}}
        try:
            m = bench_mote(name, budget)
        except Exception as e:  # noqa: BLE001 - report and go on
            row["errors"]["mote"] = cm.short_error(e)
            results.append(row)
            continue
        model, inputs, calibration = m.pop("model"), m.pop("inputs"), m.pop("calibration")
        row["mote"] = m
        try:
            mx = bench_mote(name, budget, delegate="xnnpack")
            mx.pop("model"), mx.pop("inputs"), mx.pop("calibration")
            row["mote_xnnpack"] = mx
        except Exception as e:  # noqa: BLE001
            row["errors"]["mote_xnnpack"] = cm.short_error(e)
        for key, xnn in (("et_portable", False), ("et_xnnpack", True)):
            try:
                row[key] = bench_et(model, inputs, xnn, budget)
            except Exception as e:  # noqa: BLE001
                row["errors"][key] = cm.short_error(e)
        row["eager_us"] = bench_eager(model, inputs, budget)
        et = row.get("et_portable")
        row["speedup_vs_et_portable"] = et["us"] / m["us"] if et and m["us"] > 0 else None
        mx, ex = row.get("mote_xnnpack"), row.get("et_xnnpack")
        row["mote_xnnpack_vs_et_xnnpack"] = mx["us"] / ex["us"] if mx and ex and ex["us"] > 0 else None
        row["ref_et_portable_us"] = REF_ET_PORTABLE_US.get(name)
        row["ref_eager_us"] = REF_EAGER_US.get(name)
        row["int8"] = _bench_int8(name, model, inputs, calibration or [tuple(inputs)], budget, row["errors"])
        results.append(row)

    env = cm.environment()
    print(f"bench_host: fp32, 1 thread, median latency in µs  ({env['date_utc']}, "
          f"{env.get('cpu', env['host'])}, load avg {env.get('load_average_1min', '?')}, "
          f"torch {env['torch']}, executorch {env['executorch']})")
    print()
    lat = []
    for r in results:
        m, p, x = r.get("mote"), r.get("et_portable"), r.get("et_xnnpack")
        mx = r.get("mote_xnnpack")
        ratio = r.get("mote_xnnpack_vs_et_xnnpack")
        lat.append([r["model"], cm.fmt(m and m["us"], ",.1f"), cm.fmt(mx and mx["us"], ",.1f"),
                    cm.fmt(x and x["us"], ",.1f"), cm.fmt(ratio, ".2f") + ("x" if ratio else ""),
                    cm.fmt(p and p["us"], ",.1f"), cm.fmt(r.get("eager_us"), ",.1f"),
                    cm.fmt(r.get("speedup_vs_et_portable"), ".1f") + ("x" if r.get("speedup_vs_et_portable") else ""),
                    cm.fmt(r.get("ref_et_portable_us")), cm.fmt(r.get("ref_eager_us")),
                    cm.fmt(m and m["max_rel_err"], ".1e"), cm.fmt(mx and mx["max_rel_err"], ".1e")])
    print(cm.table(["model", "Mote us", "Mote+XNN us", "ET XNNPACK us", "Mote+XNN / ET XNN", "ET port. us",
                    "eager us", "Mote vs ET port.", "ref ET port.", "ref eager", "Mote rel err",
                    "Mote+XNN rel err"], lat))
    print()
    q8 = []
    for r in results:
        i8 = r.get("int8") or {}
        m, mx, x, xm = i8.get("mote"), i8.get("mote_xnnpack"), i8.get("et_xnnpack"), i8.get("et_program_on_mote")
        ratio = i8.get("mote_xnnpack_vs_et_xnnpack")
        q8.append([r["model"], cm.fmt(m and m["us"], ",.1f"), cm.fmt(mx and mx["us"], ",.1f"),
                   cm.fmt(x and x["us"], ",.1f"), cm.fmt(ratio, ".2f") + ("x" if ratio else ""),
                   _et_on_mote(xm),
                   cm.fmt(m and m["max_rel_err"], ".2f"), cm.fmt(mx and mx["max_rel_err"], ".2f"),
                   cm.fmt(mx and mx["backend_pool_bytes"])])
    print("int8, 1 thread, median latency in µs; parity in output quanta from PT2E's reference")
    print(cm.table(["model", "Mote int8 us", "Mote+XNN int8 us", "ET XNN int8 us", "Mote+XNN / ET XNN",
                    "ET's int8 .pte on Mote us", "Mote quanta", "Mote+XNN quanta", "Mote+XNN pool B"], q8))
    print("ET's int8 .pte on Mote: ExecuTorch's own int8 program through Mote's runtime and Debian's 2022 "
          "XNNPACK ((=): outputs identical to ExecuTorch's); against the ET XNN column it isolates the "
          "library version from Mote's lowering.")
    print()
    mem = []
    for r in results:
        m, p, x = r.get("mote"), r.get("et_portable"), r.get("et_xnnpack")
        mem.append([r["model"], cm.fmt(m and m["pte_bytes"]), cm.fmt(p and p["pte_bytes"]),
                    cm.fmt(x and x["pte_bytes"]), cm.fmt(m and m["arena_bytes"]),
                    cm.fmt(m and m["arena_lower_bound_bytes"]), cm.fmt(p and p["arena_bytes"]),
                    cm.fmt(x and x["arena_bytes"]), cm.fmt(m and m["state_bytes"])])
    print(cm.table(["model", "Mote .pte B", "ET port. .pte B", "ET XNN .pte B", "Mote arena B",
                    "Mote bound B", "ET port. arena B", "ET XNN arena B", "Mote state B"], mem))
    errs = [(r["model"], k, v) for r in results for k, v in r["errors"].items()]
    if errs:
        print()
        for name, k, v in errs:
            print(f"  {name} [{k}]: {v}")
    print("\nMote us: mote_method_set_input + mote_method_execute (ctypes call overhead subtracted). "
          "ET XNN arena: excludes the delegate's own workspace; Mote+XNN's is in its backend pool ("
          + ", ".join(f"{r['model']} {r['mote_xnnpack']['backend_pool_bytes']:,} B" for r in results
                      if r.get("mote_xnnpack")) + ").")
    cm.write_json(args.json, {"benchmark": "bench_host", "environment": env, "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
