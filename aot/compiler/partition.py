"""Delegation (ExecuTorch's design): a backend's partitioner says which kernel
calls it takes, this pass groups them into subgraphs, the backend's
``preprocess`` compiles each subgraph into a payload, and the subgraph's calls
become one :class:`aot.ir.DelegateCall`; everything else stays on Mote's kernels.

A subgraph is a maximal run of consecutive supported calls in the chain
(consecutive calls form a convex subgraph: nothing outside runs between
them). Its inputs are the non-constant tensors it reads but does not write;
its outputs the tensors it writes that a later call or the method's outputs
read. Tensors only the subgraph uses (its intermediates, and constants no
other call reads) leave the value table (their entries become None), so they
are neither planned nor stored in the constant segment: the payload holds
what the backend needs.

Backends: ``aot.backends.<name>.partitioner.PARTITIONER`` (a :class:`Partitioner`).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from aot import ir
from aot.compiler.liveness import call_tensors
from aot.errors import MoteError


class Partitioner:
    """What one backend takes and how it compiles it.

    backend: the id the program's delegates table names (the runtime's
    registry key); name: the ``--delegate`` name; read_past_end: bytes the
    backend's library may read after the end of a tensor it is given (never
    writes): the memory plan leaves that many after every arena of a program
    that delegates to it (spec.plan_info "arena_tail_bytes", aot.compiler.plan)."""
    name = ""
    backend = ""
    read_past_end = 0

    def supports(self, spec: ir.ProgramSpec, call: ir.KernelCall) -> str:
        """"" if the backend takes ``call`` (op, dtypes, shapes), else why not (one phrase)."""
        raise NotImplementedError

    def lower(self, spec: ir.ProgramSpec, sub: "Subgraph") -> ir.DelegateCall:
        """The DelegateCall of subgraph ``sub`` of ``spec`` (payload built,
        boundary layout changes added to ``sub.before`` / ``sub.after``)."""
        raise NotImplementedError

    def finish(self, spec: ir.ProgramSpec) -> None:
        """After every subgraph is lowered, before unused values are dropped:
        a backend may tidy what its lowerings put between them (default: nothing)."""


@dataclass
class Subgraph:
    """calls: the kernel calls taken, in order; inputs / outputs: value
    indices (see module doc); before / after: kernel calls the lowering puts
    around the DelegateCall (e.g. layout changes)."""
    calls: list
    inputs: list
    outputs: list
    before: list
    after: list


def backend_names() -> list:
    """The --delegate names: every package under aot/backends with a partitioner."""
    import aot.backends as pkg
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if m.ispkg)


def partitioner(name: str) -> Partitioner:
    """The partitioner of backend ``name`` ("xnnpack"). Raises MoteError naming the backends."""
    if name not in backend_names():
        raise MoteError(f"--delegate {name}: no such backend; there are: {', '.join(backend_names())}")
    return importlib.import_module(f"aot.backends.{name}.partitioner").PARTITIONER


def _runs(spec: ir.ProgramSpec, part: Partitioner) -> tuple:
    """[(first, last)] instruction ranges of maximal supported runs, and the
    fallbacks: [(call, reason)] of the calls the backend did not take."""
    runs, fallbacks, start = [], [], None
    for k, call in enumerate(spec.instructions):
        why = part.supports(spec, call) if isinstance(call, ir.KernelCall) else "not a kernel call"
        if not why:
            start = k if start is None else start
            continue
        fallbacks.append((call, why))
        if start is not None:
            runs.append((start, k - 1))
            start = None
    if start is not None:
        runs.append((start, len(spec.instructions) - 1))
    return runs, fallbacks


def _subgraph(spec: ir.ProgramSpec, first: int, last: int) -> Subgraph:
    calls = spec.instructions[first:last + 1]
    written = [c.args[-1] for c in calls]       # every supported op has one out tensor, last
    wset = set(written)
    inputs = []
    for c in calls:
        for a in call_tensors(spec, c):
            t = spec.values[a]
            if a not in wset and t.constant is None and a not in inputs:
                inputs.append(a)
    later = set(spec.outputs)
    for c in spec.instructions[last + 1:]:
        later.update(call_tensors(spec, c))
    outputs = [w for w in dict.fromkeys(written) if w in later]
    return Subgraph(calls, inputs, outputs, [], [])


def delegate(spec: ir.ProgramSpec, name: str) -> dict:
    """Delegate to backend ``name`` every run of calls it takes (in place, on
    an unplanned spec). Returns the report aot inspect and compare show:
    {"backend", "delegate", "subgraphs" (DelegateCalls), "delegated_operators"
    (the kernel calls they replace), "delegated_ops" ({op: count}),
    "delegated_macs", "total_macs", "delegated_share" (of the MACs; of the
    operators for a program without MACs), "fallbacks": [{"op", "source",
    "why"}] (each op and source line once)}."""
    from aot.compiler.macs import instruction_macs
    part = partitioner(name)
    total = sum(instruction_macs(spec, c) for c in spec.instructions if isinstance(c, ir.KernelCall))
    runs, fallbacks = _runs(spec, part)
    new, pos, delegated, macs, subgraphs = [], 0, 0, 0, 0
    for first, last in runs:
        new.extend(spec.instructions[pos:first])
        sub = _subgraph(spec, first, last)
        if not sub.outputs or all(f"{c.op}.{c.overload}" == ir.ET_VIEW for c in sub.calls):
            # computes nothing anybody reads, or only views (free on Mote, a call and a copy
            # in a delegate): left to the kernels
            new.extend(sub.calls)
            pos = last + 1
            continue
        dc = part.lower(spec, sub)
        dc.macs = sum(instruction_macs(spec, c) for c in sub.calls)
        dc.calls = list(sub.calls)
        dc.source = sub.calls[0].source
        delegated += len(sub.calls)
        subgraphs += 1
        macs += dc.macs
        new.extend(sub.before + [dc] + sub.after)
        pos = last + 1
    new.extend(spec.instructions[pos:])
    spec.instructions = new
    if subgraphs and part.read_past_end:
        spec.plan_info["arena_tail_bytes"] = max(spec.plan_info.get("arena_tail_bytes", 0), part.read_past_end)
    part.finish(spec)
    _drop_unused(spec)
    ops: dict = {}
    for c in new:
        for k in (c.calls if isinstance(c, ir.DelegateCall) else ()):
            ops[f"{k.op}.{k.overload}"] = ops.get(f"{k.op}.{k.overload}", 0) + 1
    seen = {}
    for c, why in fallbacks:
        if isinstance(c, ir.KernelCall):
            seen.setdefault((f"{c.op}.{c.overload}", c.source), why)
    n_ops = delegated + len(seen)
    return {"backend": part.backend, "delegate": name, "subgraphs": subgraphs, "delegated_operators": delegated,
            "delegated_ops": dict(sorted(ops.items())), "delegated_macs": macs, "total_macs": total,
            "delegated_share": macs / total if total else (delegated / n_ops if n_ops else 0.0),
            "fallbacks": [{"op": op, "source": src, "why": why} for (op, src), why in seen.items()]}


def report_lines(d: dict) -> list:
    """Text of a delegation report (:func:`delegate`): the share, the
    delegated operators, then each fallback with its model file:line."""
    pct = 100.0 * d["delegated_share"]
    share = f"{pct:.2f}%" if 99.95 <= pct < 100.0 else f"{pct:.1f}%"   # a fallback never reads 100.0%
    ops = ", ".join(f"{n} x {op}" for op, n in d.get("delegated_ops", {}).items())
    lines = [f"delegated to {d['backend']}: {d['delegated_operators']} operator(s) in {d['subgraphs']} "
             f"subgraph(s), {share} of {d['total_macs']:,} MACs" + (f" ({ops})" if ops else "")]
    lines += [f"  fell back: {f['op']} at {f['source'] or 'unknown source'} ({f['why']})" for f in d["fallbacks"]]
    return lines


def _drop_unused(spec: ir.ProgramSpec) -> None:
    """Tensor values no instruction and no method input/output names any more become None."""
    used = set(spec.inputs) | set(spec.outputs)
    for c in spec.instructions:
        used.update(call_tensors(spec, c))
    for i, v in enumerate(spec.values):
        if isinstance(v, ir.TensorValue) and i not in used and not v.is_mutable:
            spec.values[i] = None


def delegate_pass(name: str, report: dict):
    """A spec pass (aot.compiler.lower.lower_program's spec_passes) delegating
    to backend ``name``; its report goes into ``report``."""
    def run(spec: ir.ProgramSpec) -> None:
        report.update(delegate(spec, name))
    return run
