"""The report ``aot export --int8`` (and ``--int16-activations``) prints: the
share of the MACs in integer kernels, each fp32 fallback with its model
file:line and reason, and the planned fp32 islands."""
from __future__ import annotations

from aot import ir


def int8_report(spec: ir.ProgramSpec, info, int16: bool = False) -> str:
    """Share of the MACs of planned program `spec` that run in int8 (int16:
    int16-activation) kernels, then the fp32 fallbacks that do MACs, one line
    per op and model file:line (identical ones counted, their MACs summed),
    then the fp32 ops without MACs and the reason each stayed fp32, then the
    planned fp32 islands (norms, an audio front end, kept fp32 between dequantize
    and quantize on purpose) per op; MAC ops inside an island (a front end's mel
    product) are listed as "fp32 island", not as fallbacks. `info`: the lowering's Int8Info (or None)."""
    from aot.compiler.macs import FALLBACK_MAC_OPS, FP32_MOTE_MAC_OPS, instruction_macs, int8_mac_share
    quantized, total = int8_mac_share(spec, int16=int16)
    share = 100.0 * quantized / total if total else 100.0
    lines = [f"{'int16' if int16 else 'int8'}: {share:.1f}% of {total:,} MACs run in "
             + ("int16-activation (int16 x int8) kernels" if int16 else "int8 kernels")]
    dsp = (spec.plan_info or {}).get("dsp_weights_bytes")
    if dsp:
        lines.append(f"int8: conv weights pre-widened for the DSP kernels: {dsp:,} B of panels in flash "
                     "(plus their tensor entries and alignment in the .pte), no "
                     "widening scratch in RAM (--dsp-weights arena trades them back)")
    sites = list(getattr(info, "fallback_sites", None) or ())
    reasons = {(op, src): why for op, src, why in sites}
    island = set(getattr(info, "island_nodes", None) or ())
    groups: dict = {}      # (kind, op, source) -> [count, MACs], first-seen order
    for call in spec.instructions:
        m = instruction_macs(spec, call)
        if m and (not call.op.startswith("mote::") or call.op in FP32_MOTE_MAC_OPS):
            kind = "fp32 island" if island and set(call.nodes) & island else "fp32 fallback"
            g = groups.setdefault((kind, call.op, call.overload, call.source or "unknown source"), [0, 0])
            g[0] += 1
            g[1] += m
    for (kind, op, overload, src), (n, m) in groups.items():
        why = reasons.get((op.split("::")[-1], src)) if kind == "fp32 fallback" else None
        lines.append(f"  {kind}: {op}.{overload}{f' x{n}' if n > 1 else ''} ({m:,} MACs) at {src}"
                     + (f": {why}" if why else ""))
    fallbacks = [(op, src, why) for op, src, why in sites if op not in FALLBACK_MAC_OPS]
    lines += _grouped("fp32 ops without MACs (dequantize, op, quantize)", [(op, src) for op, src, _ in fallbacks])
    lines += _why(fallbacks)
    lines += _grouped("fp32 islands", getattr(info, "fp32_islands", None) or ())
    return "\n".join(lines)


def _why(sites) -> list:
    """One line "    op, op: reason" per distinct reason of (op, source, reason) triples."""
    ops: dict = {}         # reason -> ops in first-seen order
    for op, _, why in sites:
        if op not in ops.setdefault(why, []):
            ops[why].append(op)
    return [f"    {', '.join(names)}: {why}" for why, names in ops.items()]


def _grouped(title: str, sites) -> list:
    """One summary line "  <title>: op xN (file:line, ...); ..." for (op, source) pairs, else none."""
    groups: dict = {}      # op -> [count, sources in order]
    for op, src in sites:
        g = groups.setdefault(op, [0, []])
        g[0] += 1
        if src and src not in g[1]:
            g[1].append(src)
    if not groups:
        return []
    return [f"  {title}: " + "; ".join(f"{op} x{n}" + (f" ({', '.join(srcs)})" if srcs else "")
                                        for op, (n, srcs) in groups.items())]
