"""`aot compare`: eager PyTorch vs the Mote runtime on a target, on random inputs.

Errors are reported per run as max absolute error and max relative error,
where relative error = max|device - eager| / max|eager| over each output
(elementwise relative error is meaningless next to zeros). For --int8 the
int8 program is compared with eager fp32 and with the PT2E reference
(convert_pt2e's module), the latter also in output quantization steps.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import numpy as np

from aot.tools import jsonout


def random_inputs(example_inputs, seed: int) -> tuple:
    """Random inputs shaped and typed like `example_inputs`: normal for floats;
    integers and bools uniform within the example's own range (so token ids and
    indices stay valid for the model)."""
    import torch
    g = torch.Generator().manual_seed(seed)
    out = []
    for t in example_inputs:
        if t.is_floating_point():
            out.append(torch.randn(t.shape, generator=g, dtype=t.dtype))
        else:
            lo, hi = (int(t.min()), int(t.max())) if t.numel() else (0, 0)
            out.append(torch.randint(lo, hi + 1, t.shape, generator=g).to(t.dtype))
    return tuple(out)


def error_stats(outputs, references) -> dict:
    """max_abs_error and max_rel_error (see module docstring) over all outputs."""
    abs_err, rel_err = 0.0, 0.0
    for o, r in zip(outputs, references):
        o = np.asarray(o, dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        if o.shape != r.shape:
            raise ValueError(f"output shape {o.shape} != reference {r.shape}")
        a = float(np.max(np.abs(o - r))) if o.size else 0.0
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        abs_err = max(abs_err, a)
        rel_err = max(rel_err, a / scale if scale > 0 else a)
    return {"max_abs_error": abs_err, "max_rel_error": rel_err}


def run_on_target(compiled, inputs, target: str, out_dir=None, timeout: float = 300.0):
    """Run `compiled` on `target` with one input tuple (the model's; quantized
    for an --int8-io program); returns (the program's outputs, info dict)."""
    outputs, info = run_steps_on_target(compiled, [inputs], target, out_dir, timeout)
    return outputs[0], info


def run_steps_on_target(compiled, steps, target: str, out_dir=None, timeout: float = 300.0):
    """Run `compiled` on `target` once per input tuple of `steps`, in order, on
    one method instance (its mutable buffers carry over from call to call).
    Returns (the program's outputs per step, info dict; on a simulator the
    first call's instructions, flash and RAM bytes, the build directory)."""
    from aot.compiler.pipeline import program_inputs
    arrays = [program_inputs(compiled, inputs) for inputs in steps]
    if target == "host":
        from aot.host.runtime import Program
        method = _host_method(Program(compiled.pte, data_map=compiled.ptd), compiled)
        outs = [method.run(a) for a in arrays]
        return outs, ({"backend_pool_bytes": method.backend_pool_used} if compiled.delegation else {})
    from aot.deploy.linux import has_backend, is_linux_target
    if compiled.delegation and not (is_linux_target(target) and has_backend(target, compiled.delegation["backend"])):
        from aot.errors import RunError
        raise RunError(f"--delegate {compiled.delegation['delegate']}: the delegated program runs on "
                       f"--target host or a Linux target whose libmote.so links the backend; "
                       f"{target} links no {compiled.delegation['backend']}")
    if is_linux_target(target):
        stats: dict = {}
        return _run_on_linux(compiled, arrays, target, timeout, stats), stats
    from aot.deploy.build import build_compiled
    from aot.deploy.run import run_build
    scheme = "-int16" if compiled.int16 else "-int8" if compiled.int8 else ""
    method = f"-{compiled.method_name}" if len(compiled.methods) > 1 else ""   # one folder per method
    out_dir = Path(out_dir or Path("build") / f"{compiled.name}-{Path(target).stem}{scheme}{method}")
    art = build_compiled(compiled, target, out_dir, input_sets=arrays)
    result = run_build(out_dir, timeout=timeout)
    info = {"instructions": result.cycles[0], "flash_bytes": art.size["flash_bytes"],
            # boards with a separate model memory (mps3-an547's QSPI) hold the
            # program there: flash_bytes is then code only.
            **({"model_region_bytes": art.size["model_region_bytes"]}
               if "model_region_bytes" in art.size else {}),
            "ram_bytes": art.size["ram_bytes"], "build_dir": str(out_dir)}
    return result.outputs, info


def _host_method(program, compiled):
    """The host Method of `compiled`; a backend the host library lacks is one clear line."""
    from aot.errors import RunError, RuntimeCallError
    from aot.host.runtime import method_sized
    try:  # a delegated program's backend pool: grown from the default as its delegates need
        return method_sized(program, compiled.method_name)
    except RuntimeCallError as e:
        if "NO_SUCH_BACKEND" in str(e) and compiled.delegation:
            raise RunError(f"the host library (build/host) has no {compiled.delegation['backend']}: install "
                           "libxnnpack-dev and libpthreadpool-dev and rerun `make bootstrap`") from None
        raise


def record_backend_pool(compiled) -> Optional[int]:
    """A delegated program's backend pool need, measured on the host: its method inits
    (the pool grown as method_sized does) and runs once on the example inputs; the
    delegates' high-water mark (bytes) goes into compiled.manifest["memory"]
    ["backend_pool_bytes"] (ops.json; mote_model.h MOTE_MODEL_BACKEND_POOL_BYTES).
    None, recording nothing, without delegates or when the host library lacks the
    backend (the program still runs where it is linked)."""
    from aot.compiler.pipeline import program_inputs
    from aot.errors import RunError
    from aot.host.runtime import Program
    if not compiled.delegation:
        return None
    try:
        method = _host_method(Program(compiled.pte, data_map=compiled.ptd), compiled)
    except RunError:
        return None
    method.run(program_inputs(compiled, compiled.example_inputs))
    need = int(method.backend_pool_used)
    compiled.manifest.setdefault("memory", {})["backend_pool_bytes"] = need
    return need


def _run_on_linux(compiled, arrays, target: str, timeout: float, stats: dict) -> list:
    from aot.errors import RunError
    from aot.deploy.linux import run_on_linux
    if compiled.ptd is not None:
        raise RunError(f"--target {target} runs programs with their weights inside "
                       "(export without --external-weights)")
    if len(arrays) > 1 and compiled.mutable_bytes:
        raise RunError(f"--target {target} runs one call per mote-run process: a model with "
                       "mutable state compares there with --steps 1 (state across calls: --target host or a board)")
    return run_on_linux(compiled.pte, arrays, target, compiled.method_name, timeout, stats)


def _stateful_calls(fn, steps) -> list:
    """Outputs (numpy arrays) of a fresh copy of module `fn` called once per
    input tuple of `steps`: its buffers start at their exported values and
    carry over as on the device; `fn` itself is left untouched."""
    import copy
    import torch
    from aot.compiler.pipeline import outputs_tuple
    fn = copy.deepcopy(fn)
    with torch.no_grad():
        return [[t.detach().numpy() for t in outputs_tuple(fn(*inputs))] for inputs in steps]


def compare(compiled, target: str = "host", seed: int = 0, out_dir=None, steps: int = 1) -> dict:
    """Compare `compiled` on `target` against eager (and PT2E for int8); returns the report dict.

    steps: successive calls, each with fresh random inputs (seeds seed,
    seed+1, ...), on one method instance against one eager module called the
    same way, so a model's mutable buffers (state) carry over on both sides.
    The error figures are the worst step's; with steps > 1 the report also has
    "steps", "worst_step" (0-based) and "per_step" (each step's errors).
    "outputs_sha256": per step, a digest of the program's raw outputs (int8
    bytes for an --int8-io program): equal lists on two targets mean
    byte-identical results."""
    from aot.compiler.pipeline import model_outputs
    inputs = [random_inputs(compiled.example_inputs, seed + k) for k in range(steps)]
    outputs, info = run_steps_on_target(compiled, inputs, target, out_dir)
    # the program's own output bytes per step: equal digests on two targets = identical bytes
    digests = [_digest(o) for o in outputs]
    outputs = [model_outputs(compiled, o) for o in outputs]  # --int8-io: dequantized, as the model's
    eager = _stateful_calls(compiled.eager, inputs)
    per_step = [error_stats(o, e) for o, e in zip(outputs, eager)]
    if compiled.fp32_eager is not None:  # --int4-weights: eager is the int4 model; also the fp32 one
        for row, o, e in zip(per_step, outputs, _stateful_calls(compiled.fp32_eager, inputs)):
            row["fp32_max_rel_error"] = error_stats(o, e)["max_rel_error"]
    if compiled.int8:
        ref = _stateful_calls(compiled.reference, inputs)
        scale = _output_scale(compiled)
        for row, o, r in zip(per_step, outputs, ref):
            row["pt2e_max_abs_error"] = error_stats(o, r)["max_abs_error"]
            if scale:
                row["pt2e_max_quanta"] = row["pt2e_max_abs_error"] / scale
    worst = max(range(steps), key=lambda k: (per_step[k]["max_rel_error"], per_step[k]["max_abs_error"]))
    report = {"model": compiled.name, "target": target, "int8": compiled.int8}
    if compiled.int16:
        report["int16_activations"] = True
    if len(compiled.methods) > 1:
        report["method"] = compiled.method_name
    report.update(per_step[worst])
    for key in ("pt2e_max_abs_error", "pt2e_max_quanta", "fp32_max_rel_error"):  # the worst over the steps
        if key in report:
            report[key] = max(row[key] for row in per_step)
    if steps > 1:
        report.update({"steps": steps, "worst_step": worst, "per_step": per_step})
    report["outputs_sha256"] = digests
    report["arena_bytes"] = compiled.arena_bytes
    report["arena_lower_bound_bytes"] = compiled.arena_lower_bound_bytes
    report["mutable_bytes"] = compiled.mutable_bytes
    report["pte_bytes"] = len(compiled.pte)
    if compiled.delegation:
        report["delegation"] = compiled.delegation
    if compiled.int4 is not None:
        report["int4_layers"] = [n for n, _, _ in compiled.int4.quantized]
        report["int4_kept_fp32"] = [n for n, _ in compiled.int4.skipped]
    report.update(info)
    return report


def _digest(outputs) -> str:
    """SHA-256 over one call's outputs (each array's dtype, shape and bytes, in order)."""
    import hashlib
    h = hashlib.sha256()
    for o in outputs:
        a = np.asarray(o)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _output_scale(compiled):
    info = compiled.int8_info
    try:
        return float(info.output_qparams[0][0])
    except (AttributeError, IndexError, TypeError):
        return None


def compare_command(args) -> int:
    from aot.deploy.target import run_target
    target = run_target(args.target, serial=False, linux=True)  # a board is checked before the compile
    if target.board is not None:
        target.require_simulator(f"board {target.board.name} has no simulator to compare on")
    from aot.compiler.pipeline import compile_model_file  # torch: after the checks
    from aot.compiler.recipe import Recipe
    # the program aot build would ship for that board (pre-widened DSP weights by default)
    compiled = compile_model_file(args.model, Recipe.from_args(args, target))
    if args.method:
        compiled = compiled.for_method(args.method)
    report = compare(compiled, args.target, args.seed, args.output_dir, steps=args.steps)
    if args.json:
        print(jsonout.dumps(report))
        return 0
    print(f"model {report['model']}{'.' + report['method'] if 'method' in report else ''} on "
          f"{report['target']}{' (int16 activations)' if report.get('int16_activations') else ' (int8)' if report['int8'] else ''}"
          + (f", {report['steps']} steps (worst: step {report['worst_step']})" if "steps" in report else ""))
    print(f"  max abs error vs eager  {report['max_abs_error']:.3e}")
    print(f"  max rel error vs eager  {report['max_rel_error']:.3e}")
    if "fp32_max_rel_error" in report:
        print(f"  max rel error vs fp32   {report['fp32_max_rel_error']:.3e} (int4 weights vs the float model)")
    if "pt2e_max_abs_error" in report:
        q = report.get("pt2e_max_quanta")
        print(f"  max abs error vs PT2E   {report['pt2e_max_abs_error']:.3e}"
              + (f" ({q:.2f} output quanta)" if q is not None else ""))
    print(f"  arena {report['arena_bytes']:,} B (lower bound {report['arena_lower_bound_bytes']:,} B),"
          + (f" mutable buffers {report['mutable_bytes']:,} B," if report["mutable_bytes"] else "")
          + f" .pte {report['pte_bytes']:,} B")
    if "int4_layers" in report:
        print(f"  int4 weights: {len(report['int4_layers'])} layer(s)"
              + (f"; kept fp32: {', '.join(repr(n) for n in report['int4_kept_fp32'])}"
                 if report["int4_kept_fp32"] else ""))
    if "delegation" in report:
        from aot.compiler.partition import report_lines
        for line in report_lines(report["delegation"]):
            print("  " + line)
        if "backend_pool_bytes" in report:
            print(f"  backend pool {report['backend_pool_bytes']:,} B")
    for key in ("instructions", "flash_bytes", "model_region_bytes", "ram_bytes"):
        if key in report:
            label = "instructions (first call)" if key == "instructions" and "steps" in report \
                else key.replace("_", " ")
            print(f"  {label} {report[key]:,}")
    return 0


if __name__ == "__main__":  # kept one release: the command is `aot compare`
    sys.exit("mote: `python -m aot.tools.compare` is now `aot compare` (same arguments)")
