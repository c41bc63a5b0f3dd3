"""Per-operator profiles: where the time of one inference goes, instruction by instruction.

The runtime's event tracer (runtime/include/mote/trace.h) records a start and
end tick around every instruction; this module turns those events and the
program's debug record (aot.compiler.debug_record) into one table:

    {"model", "target", "int8", "tick_unit": "instructions"|"cycles"|"ns",
     "total_ticks": sum of the rows' ticks, "whole_ticks": the same inference
     measured without the tracer, "agreement": total_ticks / whole_ticks,
     "overhead": ticks of one tick read (subtracted from every row), "runs": int,
     "ops": [{"instr", "op", "kernel": "portable"|"DSP"|"MVE"|"runtime" (DSP / MVE
              followed by the call's variant, e.g. "DSP pointwise+table"),
              "input_shapes", "output_shapes", "macs", "ticks", "share" (0..1),
              "macs_per_tick", "source": "file.py:LINE", "module", "start", "end"}]}

With `aot profile --estimate-cycles` (add_cycle_estimate) each row also has
"est_cycles", "est_instructions", "cycles_per_instruction", "cycles_by_class",
"cycles_by_function" and the table "estimate": the Cortex-M33 cycle model of aot.deploy.cycles
priced over the same stretches the rows count; with --annotate N the rows of
program instruction N carry "addresses" (per instruction address: "address",
"function", "instruction", "executions", "cycles", "classes").

"start"/"end" lay the rows back to back from 0 (the inference without the
tracer's own ticks), the timeline an ETDump carries.

Ticks: exact instruction counts under QEMU -icount (the simulated boards),
DWT core cycles on silicon, CLOCK_MONOTONIC ns on the host (the least of
`repeats` runs per row, and of the whole run: timing noise only adds).
A row's ticks are end - start - overhead: the instruction alone.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from aot.errors import MoteError

MASK32 = 0xFFFFFFFF


def _delta(start: int, end: int) -> int:
    return (end - start) & MASK32


def profile_from_events(record: dict, runs: list, tick_unit: str, whole_ticks: int,
                        variant_of, target: str) -> dict:
    """The profile table from traced runs of one program.

    runs: per run, {"events": [(instr, start, end)], "overhead": ticks}; rows
    take the least ticks over the runs (one row per executed instruction of
    the first run, in execution order). variant_of: op name -> kernel variant.
    whole_ticks: the untraced inference's count. A record's variant naming one
    core ("planes(MVE)", aot.compiler.scratch.call_variant) labels only that core's
    rows ("MVE planes"); the other core's rows show the bare kernel ("DSP")."""
    instrs = record["instructions"]
    first = runs[0]["events"]
    if not first:
        raise MoteError("the traced run recorded no events")
    best = []
    for pos, (k, start, end) in enumerate(first):
        ticks = []
        for run in runs:
            if pos < len(run["events"]) and run["events"][pos][0] == k:
                _, s, e = run["events"][pos]
                ticks.append(max(_delta(s, e) - run["overhead"], 0))
        best.append((k, start, min(ticks)))
    total = sum(t for _, _, t in best)
    ops, rel = [], 0
    for k, _, ticks in best:
        if not 0 <= k < len(instrs):
            raise MoteError(f"traced instruction {k} is not in the debug record "
                            f"({len(instrs)} instructions): record and program do not match")
        r = instrs[k]
        kernel = variant_of(r["op"])
        variant = r.get("variant") or ""
        if variant.endswith(")"):   # a variant of one core's kernel only: "planes(MVE)"
            label, core = variant[:-1].split("(", 1)
            variant = label if core == kernel else ""
        if kernel in ("DSP", "MVE") and variant:   # the optimized kernel's variant
            kernel = f"{kernel} {variant}"
        ops.append({"instr": k, "op": r["op"], "kernel": kernel,
                    "input_shapes": r["input_shapes"], "output_shapes": r["output_shapes"],
                    "macs": r["macs"], "ticks": ticks, "share": ticks / total if total else 0.0,
                    "macs_per_tick": r["macs"] / ticks if ticks else 0.0,
                    "source": r["source"], "module": r["module"], "start": rel, "end": rel + ticks})
        rel += ticks  # rows back to back: the timeline without the tracer's own ticks
    return {"model": record["model"], "target": target, "int8": record["int8"], "tick_unit": tick_unit,
            "total_ticks": total, "whole_ticks": int(whole_ticks),
            "agreement": total / whole_ticks if whole_ticks else 0.0,
            "overhead": runs[0]["overhead"], "runs": len(runs), "ops": ops}


# --------------------------------------------------------------------------- host


def _whole_host_ns(method, inputs, repeats: int) -> int:
    """Least untraced execute time in ns, the cost of an empty ctypes call
    (mote_method_num_inputs) subtracted."""
    import time
    for i, x in enumerate(inputs):
        method.set_input(i, x)
    best, empty = None, None
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        method._lib.mote_method_num_inputs(method._ptr)
        t1 = time.perf_counter_ns()
        method.execute()
        t2 = time.perf_counter_ns()
        empty = t1 - t0 if empty is None else min(empty, t1 - t0)
        best = t2 - t1 if best is None else min(best, t2 - t1)
        for i, x in enumerate(inputs):  # inputs are planned: dead bytes get reused
            method.set_input(i, x)
    return max(best - empty, 1)


def profile_host(pte: bytes, record: dict, inputs, repeats: int = 30) -> dict:
    """Profile one program on the host library (libmote.so, built with MOTE_TRACE)."""
    from aot.host.runtime import Program
    from aot.deploy.generate import kernel_variant
    method = Program(pte).method()
    runs = []
    for _ in range(repeats):
        tr = method.run_traced(inputs)
        if tr.dropped:
            raise MoteError(f"the tracer dropped {tr.dropped} events")
        runs.append({"events": tr.events, "overhead": tr.overhead})
    whole = _whole_host_ns(method, inputs, repeats)
    return profile_from_events(record, runs, "ns", whole, kernel_variant, "host")


# --------------------------------------------------------------------------- firmware


def profile_uart(lines, record: dict, board, target: str, tick_unit: str) -> dict:
    """Profile from a --trace profile firmware's UART lines (QEMU or a real
    port). tick_unit: "instructions" (QEMU -icount) or "cycles" (DWT on silicon)."""
    from aot.deploy.generate import kernel_variant
    from aot.deploy.protocol import read_traces
    runs = read_traces(lines)
    run = runs[0]
    if run.get("dropped"):
        raise MoteError(f"the firmware's tracer dropped {run['dropped']} events")
    return profile_from_events(record, [run], tick_unit, run["count"],
                               lambda op: kernel_variant(op, board), target)


def add_cycle_estimate(p: dict, est, annotate: Optional[int] = None) -> dict:
    """Adds to the profile `p` of a --trace profile firmware the cycle estimate
    of the same firmware's QEMU trace (est: an
    aot.deploy.cycles.Estimate of it; each input set ran untraced, then traced).
    Each row gains "est_cycles" (the estimated cycles of its stretch of the
    first traced inference, aot.deploy.cycles.instruction_spans), "est_instructions"
    (the instructions priced: the row's ticks give or take the tick read's own),
    "cycles_per_instruction", "cycles_by_class" and "cycles_by_function" (by the
    ELF symbol QEMU names); p gains "estimate":
    {"model": the core priced (est.costs.name: "cortex-m33", "cortex-m0plus"), "label"
    (its name: "Cortex-M33"), "total_cycles": the rows' sum, "whole_cycles": the
    first untraced inference (the figure `aot run --estimate-cycles` prints),
    "agreement": total / whole, "cycles_by_class": the rows',
    "extra_cycles_by_class": the rows' cycles above one per instruction, "memory"}.
    annotate: a program instruction index; its rows also get "addresses"
    (aot.deploy.cycles.annotate: every executed address with its executions and
    cycles). Returns p."""
    from collections import Counter
    from aot.deploy.cycles import annotate as annotate_span, instruction_spans
    traced = [i for i in est.inferences if i.markers]
    plain = est.untraced().inferences
    if not traced or not plain:
        raise MoteError(f"the traced run made {len(plain)} untraced and {len(traced)} traced inferences; "
                        "a --trace profile firmware makes one of each per input set")
    try:
        spans = instruction_spans(traced[0], len(p["ops"]))
    except ValueError as e:
        raise MoteError(f"the traced run does not match the profile: {e}") from None
    by_class, extra = Counter(), Counter()
    for o, sp in zip(p["ops"], spans):
        o["est_cycles"] = sp.cycles
        o["est_instructions"] = sp.instructions
        o["cycles_per_instruction"] = round(sp.cycles_per_instruction, 4)
        o["cycles_by_class"] = dict(sp.by_class.most_common())
        o["cycles_by_function"] = dict(sp.by_function.most_common())
        o.pop("addresses", None)
        if annotate is not None and o["instr"] == annotate:
            o["addresses"] = annotate_span(est, sp)
        by_class += sp.by_class
        extra.update(sp.extra_by_class())
    if annotate is not None and not any("addresses" in o for o in p["ops"]):
        raise MoteError(f"program instruction {annotate} did not run: the rows are instructions "
                        f"{', '.join(str(o['instr']) for o in p['ops'])}")
    total = sum(sp.cycles for sp in spans)
    whole = plain[0].cycles
    p["estimate"] = {"model": est.costs.name, "label": est.costs.label, "total_cycles": total,
                     "whole_cycles": whole, "whole_instructions": plain[0].instructions,
                     "agreement": total / whole if whole else 0.0,
                     "cycles_by_class": dict(by_class.most_common()),
                     "extra_cycles_by_class": {c: n for c, n in extra.most_common() if n > 0},
                     "memory": est.costs.memory}
    if est.costs.traced_on:
        p["estimate"]["traced_on"] = est.costs.traced_on
    return p


# --------------------------------------------------------------------------- output


def _shape(shapes) -> str:
    return ",".join("x".join(str(d) for d in s) for s in shapes) or "-"


#: tick_unit -> the singular a "MACs per ..." column names
_PER_TICK = {"instructions": "instr", "cycles": "cycle", "ns": "ns"}


def render_text(p: dict, limit: Optional[int] = None) -> str:
    """The profile as a table, one row per executed instruction, then totals."""
    unit = p["tick_unit"]
    est = p.get("estimate")
    cyc_head = ["est. cycles", "cycles/instr", "MACs/cycle"] if est else []
    per = _PER_TICK.get(unit, "tick")
    head = ["#", "op", "kernel", "in", "out", "MACs", unit, "share", f"MACs/{per}"] + cyc_head + ["source", "module"]
    rows = []
    for o in p["ops"][:limit] if limit else p["ops"]:
        cyc = [f"{o['est_cycles']:,}", f"{o['cycles_per_instruction']:.2f}",
               f"{o['macs'] / o['est_cycles']:.2f}" if o["macs"] and o["est_cycles"] else "-"] if est else []
        rows.append([str(o["instr"]), o["op"], o["kernel"], _shape(o["input_shapes"]),
                     _shape(o["output_shapes"]), f"{o['macs']:,}", f"{o['ticks']:,}",
                     f"{100 * o['share']:.1f}%", f"{o['macs_per_tick']:.2f}" if o["macs"] else "-"]
                    + cyc + [o["source"] or "-", o["module"].replace("module ", "") or "-"])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    right = range(5, 9 + len(cyc_head))
    fmt = lambda r: "  ".join(c.rjust(w) if i == 0 or i in right else c.ljust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    lines = [f"profile: {p['model']}{' int8' if p['int8'] else ''} on {p['target']} "
             f"({unit}; {p['runs']} run{'s' if p['runs'] != 1 else ''}, least per row)",
             fmt(head), fmt(["-" * w for w in widths])]
    lines += [fmt(r) for r in rows]
    macs = sum(o["macs"] for o in p["ops"])
    lines.append(f"total: {p['total_ticks']:,} {unit} over {len(p['ops'])} program instructions "
                 f"({macs:,} MACs, {macs / p['total_ticks'] if p['total_ticks'] else 0:.2f} MACs/{per}); "
                 f"untraced whole inference: {p['whole_ticks']:,} {unit} "
                 f"(rows sum to {100 * p['agreement']:.2f}% of it)")
    if est:
        from aot.deploy.cycles import costs_named
        instrs = sum(o["est_instructions"] for o in p["ops"])
        costs = costs_named(est["model"])
        lines.append(f"estimated {costs.label} cycles: {est['total_cycles']:,} over the rows "
                     f"({est['total_cycles'] / instrs if instrs else 0:.2f} cycles/instruction, "
                     f"{macs / est['total_cycles'] if est['total_cycles'] else 0:.2f} MACs/cycle); untraced "
                     f"whole inference: {est['whole_cycles']:,} (the figure of aot run --estimate-cycles; "
                     f"rows sum to {100 * est['agreement']:.2f}% of it)")
        lines.append("cycles above one per instruction, by class: " + ", ".join(
            f"{cls} {n:,}" for cls, n in est["extra_cycles_by_class"].items()))
        if costs.note:
            lines.append(costs.note)
        lines.append(f"memory assumed: {est['memory']}")
    for o in p["ops"]:
        if "addresses" in o:
            lines += _annotation(o)
    return "\n".join(lines)


def _annotation(o: dict) -> list:
    """A row's estimated cycles per function, then per instruction address."""
    out = [f"", f"#{o['instr']} {o['op']} [{o['kernel']}]: {o['est_instructions']:,} instructions, "
           f"{o['est_cycles']:,} estimated cycles ({o['cycles_per_instruction']:.2f} per instruction)"]
    funcs: dict = {}
    for a in o["addresses"]:
        f = funcs.setdefault(a["function"], [0, 0])
        f[0] += a["executions"]
        f[1] += a["cycles"]
    for name, (n, c) in sorted(funcs.items(), key=lambda kv: -kv[1][1]):
        out.append(f"  {name}: {n:,} instructions, {c:,} cycles ({c / n:.2f} per instruction)")
    head = ["address", "executions", "cycles", "above 1", "instruction", "function", "classes"]
    rows = [[f"{a['address']:08x}", f"{a['executions']:,}", f"{a['cycles']:,}",
             f"{a['cycles'] - a['executions']:,}", a["instruction"], a["function"],
             ", ".join(f"{c} {n:,}" for c, n in a["classes"].items())] for a in o["addresses"]]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    fmt = lambda r: "  " + "  ".join(c.rjust(w) if 1 <= i <= 3 else c.ljust(w)  # noqa: E731
                                     for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return out + [fmt(head)] + [fmt(r) for r in rows]


def draw_png(p: dict, path, top: int = 15) -> None:
    """Horizontal bar chart of the `top` instructions by ticks (matplotlib, Agg),
    written atomically."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (matplotlib.ticker.FuncFormatter)
    from aot.compiler.emit import atomic_write
    import io
    ops = sorted(p["ops"], key=lambda o: o["ticks"], reverse=True)[:top]
    labels = [f"#{o['instr']} {o['op'].split('::')[-1]} [{o['kernel']}]  "
              f"{o['module'].replace('module ', '')} {o['source'] or ''}".rstrip() for o in ops]
    fig, ax = plt.subplots(figsize=(10, 0.42 * len(ops) + 1.6))
    ax.barh(range(len(ops)), [o["ticks"] for o in ops], color="#3b75af")
    ax.set_yticks(range(len(ops)), labels, fontsize=8)
    ax.invert_yaxis()
    for i, o in enumerate(ops):
        ax.text(o["ticks"], i, f" {100 * o['share']:.1f}%", va="center", fontsize=8)
    ax.set_xlabel(p["tick_unit"])
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.set_title(f"{p['model']}{' int8' if p['int8'] else ''} on {p['target']}: "
                 f"top {len(ops)} of {len(p['ops'])} program instructions, total {p['total_ticks']:,} {p['tick_unit']}",
                 fontsize=10)
    ax.margins(x=0.12)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    try:
        atomic_write(Path(path), buf.getvalue())
    except OSError as e:
        raise MoteError(f"cannot write {path}: {e.strerror or e}") from None


def etdump_profile(p: dict) -> dict:
    """The profile in aot.devtools.etdump's input form: each event's end is
    start + ticks (the tracer's overhead taken out, as in the table)."""
    return {"tick_unit": p["tick_unit"], "total_ticks": p["total_ticks"], "run_start": 0,
            "ops": [{"instr": o["instr"], "op": o["op"], "start": o["start"], "end": o["end"],
                     "ticks": o["ticks"]} for o in p["ops"]]}
