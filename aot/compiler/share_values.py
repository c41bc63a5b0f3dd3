"""One value per distinct constant scalar or list (a ProgramSpec pass right
after the spec is built, before anything refers to value indices).

Lowering gives every int argument of every call its own value (a conv's zero
points and clamp bounds, its stride/padding/dilation lists); the runtime keeps
one 16-byte mote_value_t per value, plus the int64 items of each list, in the
method's state. Equal values that no instruction writes are interchangeable,
so calls can share one: DS-CNN int8's runtime state on mps2-an505 went from
5,192 to 3,800 bytes (tests/compiler/test_dsp_weights.py checks the sharing). Tensors are never shared (their bytes differ or are
planned); a value a kernel writes (its trailing out arguments and their
ExecuTorch return duplicates) keeps its own index.
"""
from __future__ import annotations

from aot import ir
from aot.compiler.kernels import kernel_outputs

_SHAREABLE = (int, float, bool, str, ir.IntListValue, ir.DoubleListValue, ir.BoolListValue)


def _key(v):
    if v is None:
        return ("None",)
    if isinstance(v, (ir.IntListValue, ir.DoubleListValue, ir.BoolListValue)):
        return (type(v).__name__, tuple(v.items))
    if isinstance(v, _SHAREABLE):
        return (type(v).__name__, v)  # True and 1 stay apart
    return None


def _written(spec: ir.ProgramSpec) -> set:
    """Value indices some instruction writes: its last n out arguments and the
    n return entries an out-variant call repeats after them."""
    outs = kernel_outputs()
    w = set()
    for call in spec.instructions:
        n = outs.get(f"{call.op}.{call.overload}", 1)
        w.update(call.args[-2 * n:])
    return w


def share_values(spec: ir.ProgramSpec) -> int:
    """Rewrite ``spec`` so equal unwritten non-tensor values are one value
    (first occurrence kept, the value table compacted, every index remapped).
    Returns how many values were removed."""
    written = _written(spec) | set(spec.inputs) | set(spec.outputs)
    first: dict = {}
    remap: dict = {}
    kept: list = []
    for i, v in enumerate(spec.values):
        k = None if i in written else _key(v)
        if k is not None and k in first:
            remap[i] = first[k]
            continue
        remap[i] = len(kept)
        if k is not None:
            first[k] = remap[i]
        kept.append(v)
    removed = len(spec.values) - len(kept)
    if removed:
        remap_values(spec, kept, remap)
    return removed


def remap_values(spec: ir.ProgramSpec, kept: list, remap: dict) -> None:
    """Make ``kept`` the value table of ``spec`` and renumber every reference
    (call arguments, tensor list items, inputs, outputs) by ``remap`` (old index
    -> new index; it must cover every index still referenced)."""
    spec.values = kept
    for v in kept:
        if isinstance(v, ir.TensorListValue):
            v.items = [remap[x] if x >= 0 else x for x in v.items]
    for call in spec.instructions:
        call.args = [remap[a] for a in call.args]
    spec.inputs = [remap[x] for x in spec.inputs]
    spec.outputs = [remap[x] for x in spec.outputs]
