"""``--int4-weights``: symmetric int4 group-wise weights for Linear and Embedding
layers, by torchao (``quantize_`` with ``IntxWeightOnlyConfig(weight_dtype=
torch.int4, granularity=PerGroup(G))``: q = clamp(round(w / s), -8, 7),
s = max|w| of the group / 7.5, zero point 0, activations stay float32).

The quantized module is the reference the program must match (its weights are
what torchao's dequantization gives); aot/compiler/quant/int4.py then turns
each quantized weight into Mote's packed int4 kernels.
"""
from __future__ import annotations

from dataclasses import dataclass, field



from aot.errors import MoteError

#: the group sizes --group-size takes (elements per scale)
GROUP_SIZES = (32, 64, 128)


@dataclass
class Int4Report:
    """quantized: [(module fqn, "Linear"|"Embedding", weight shape)];
    skipped: [(module fqn, reason)] of the Linear / Embedding layers left fp32."""
    group_size: int
    quantized: list = field(default_factory=list)
    skipped: list = field(default_factory=list)

    def summary(self) -> str:
        line = f"int4 weights (group {self.group_size}): {len(self.quantized)} layer(s)"
        if self.skipped:
            line += "; kept fp32: " + ", ".join(f"layer '{n}' ({why})" for n, why in self.skipped)
        return line


def _already(w) -> bool:
    import torch
    return type(w) is not torch.nn.Parameter and type(w) is not torch.Tensor


def apply_int4_weights(modules, group_size: int) -> Int4Report:
    """Quantize in place the Linear / Embedding weights of ``modules`` (one or
    several nn.Modules; a layer they share is quantized once) whose row
    length is a multiple of ``group_size``. Raises MoteError for a group size
    not in GROUP_SIZES, or when torchao lacks IntxWeightOnlyConfig."""
    import torch
    if group_size not in GROUP_SIZES:
        raise MoteError(f"--group-size {group_size}: choose one of {', '.join(map(str, GROUP_SIZES))}")
    try:
        from torchao.quantization import IntxWeightOnlyConfig, quantize_
        from torchao.quantization.granularity import PerGroup
    except ImportError as e:  # pragma: no cover - torchao is pinned
        raise MoteError(f"--int4-weights needs torchao's IntxWeightOnlyConfig: {e}") from e
    report = Int4Report(group_size)
    modules = modules if isinstance(modules, (list, tuple)) else [modules]
    seen = set()
    config = IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(group_size))
    for root in modules:
        for fqn, mod in root.named_modules():
            if not isinstance(mod, (torch.nn.Linear, torch.nn.Embedding)) or id(mod) in seen:
                continue
            seen.add(id(mod))
            if _already(mod.weight):
                continue
            row = mod.weight.shape[1]
            if row % group_size:
                report.skipped.append((fqn, f"row of {row} is not a multiple of {group_size}"))
                continue
            quantize_(mod, config, filter_fn=lambda m, _fqn, target=mod: m is target)
            report.quantized.append((fqn, type(mod).__name__, tuple(mod.weight.shape)))
    if not report.quantized:
        raise MoteError(f"--int4-weights: no Linear or Embedding layer with rows a multiple of {group_size}"
                        + (": " + ", ".join(f"{n} ({why})" for n, why in report.skipped) if report.skipped else ""))
    return report
