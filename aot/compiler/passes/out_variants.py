"""Functional -> out-variant mapping, done generically from torch's op schemas.

For a functional ``OpOverload`` ``ns::name.overload`` this finds the overload of
``torch.ops.ns.name`` whose non-out arguments match (same names and types) and
whose kwarg-only ``out`` arguments (``Tensor(a!)``) are as many as the
functional op's returns, e.g. ``aten::add.Tensor`` -> ``aten::add.out``,
``aten::max_pool2d_with_indices.default`` -> ``.out`` (out, indices). It works
for any namespace registered with ``torch.library`` (``mote::``,
``quantized_decomposed::``), so the int8 lowering reuses it.

Two rewrites come first: a view op (returns an alias) maps to its ``_copy``
op (``permute`` -> ``permute_copy``), and a Tensor argument given a Python
number switches to the ``Scalar`` overload (``mul.Tensor(x, 0.5)`` -> ``mul.Scalar``).
"""
from __future__ import annotations

from typing import Optional

import torch
from torch._ops import OpOverload


def op_name(op: OpOverload) -> str:
    """"ns::name.overload" of ``op`` ("default" when the overload is unnamed)."""
    return f"{op._schema.name}.{op._schema.overload_name or 'default'}"


def _packet(op: OpOverload, name: Optional[str] = None):
    ns, base = op._schema.name.split("::")
    return getattr(getattr(torch.ops, ns), name or base, None)


def _overloads(packet) -> list:
    return [getattr(packet, o) for o in packet.overloads()]


def _sig(args) -> list:
    return [(a.name, str(a.type)) for a in args]


def copy_variant(op: OpOverload) -> OpOverload:
    """``op`` itself, or for a view op (its first return aliases an input)
    the same overload of ``<name>_copy`` when torch has one."""
    rets = op._schema.returns
    if not rets or rets[0].alias_info is None or rets[0].alias_info.is_write:
        return op
    packet = _packet(op, op._schema.name.split("::")[1] + "_copy")
    ov = op._schema.overload_name or "default"
    return getattr(packet, ov) if packet is not None and ov in packet.overloads() else op


def scalar_variant(op: OpOverload, args: tuple) -> OpOverload:
    """Switch to the overload that takes a Scalar where ``op`` expects a Tensor
    but ``args`` (positional) hold a Python number. Returns ``op`` if none."""
    params = [a for a in op._schema.arguments if not a.kwarg_only]
    bad = {p.name for p, v in zip(params, args)
           if str(p.type) == "Tensor" and isinstance(v, (int, float, bool))}
    if not bad:
        return op
    # a Scalar argument's type prints as "number"
    want = [(a.name, "number" if a.name in bad else str(a.type)) for a in op._schema.arguments]
    for cand in _overloads(_packet(op)):
        if _sig(cand._schema.arguments) == want:
            return cand
    return op


def out_args(op: OpOverload) -> list:
    """The out arguments (kwarg-only, written) of an out-variant ``op``."""
    return [a for a in op._schema.arguments if a.is_out]


def out_variant(op: OpOverload) -> Optional[OpOverload]:
    """The out-variant overload matching functional ``op``, or None.
    An op that already is an out variant is returned unchanged."""
    if out_args(op):
        return op
    fargs = op._schema.arguments
    fsig = _sig(fargs)
    n_ret = len(op._schema.returns)
    exact, subset = [], []
    for cand in _overloads(_packet(op)):
        outs = out_args(cand)
        if len(outs) != n_ret or n_ret == 0:
            continue
        csig = _sig(a for a in cand._schema.arguments if not a.is_out)
        if csig == fsig:
            exact.append(cand)
        elif all(s in fsig for s in csig) and all(
                a.kwarg_only and a.has_default_value() for a in fargs if (a.name, str(a.type)) not in csig):
            # e.g. full(size, value, *, dtype, layout, ...) -> full.out(size, value, *, out):
            # the tensor-creation options are carried by the out tensor itself
            subset.append(cand)
    found = exact or subset
    if not found:
        return None
    # prefer the conventional names when several match
    ov = op._schema.overload_name
    pref = ["out", f"{ov}_out"]
    found.sort(key=lambda c: pref.index(c._schema.overload_name) if c._schema.overload_name in pref else 2)
    return found[0]


def bind(op: OpOverload, out_op: OpOverload, args: tuple, kwargs: dict) -> list:
    """Arguments of ``out_op`` before its outputs, as (schema Argument, value)
    in schema order; values come from the functional call ``op(*args,
    **kwargs)`` by name, else the schema default. Raises ValueError if a
    required argument is missing."""
    given = {}
    for a, v in zip(op._schema.arguments, args):
        given[a.name] = v
    given.update(kwargs)
    bound = []
    for a in out_op._schema.arguments:
        if a.is_out:
            continue
        if a.name in given:
            bound.append((a, given[a.name]))
        elif a.has_default_value():
            bound.append((a, a.default_value))
        else:
            raise ValueError(f"{op_name(out_op)}: no value for argument {a.name}")
    return bound


def to_out_variant(op: OpOverload, args: tuple) -> tuple:
    """Full mapping for a functional call: returns (functional op actually
    used, out-variant op or None)."""
    op = scalar_variant(copy_variant(op), args)
    return op, out_variant(op)
