"""Rewrite calls torch.export leaves in a form with no out-variant kernel:

* ``sub.Tensor(number, x, alpha)`` (``1 - x``: a Python number on the left) ->
  ``rsub.Scalar(x, number, alpha)`` (number - alpha * x);
* ``__lshift__`` / ``__rshift__`` (``x << 2``, ``x >> y``) -> the same overload
  of ``bitwise_left_shift`` / ``bitwise_right_shift`` (identical semantics for
  integer tensors: torch implements both with one kernel);
* any other Python number in a Tensor argument, unless a Scalar overload with
  a kernel takes it (``x / 2`` stays ``div.Scalar``) (``7 // x`` is
  ``div.Tensor_mode(7, x)``, ``2 ** x`` ``pow.Scalar``-less forms, ``torch.where(m, 1.0, x)``)
  -> a constant 0-d tensor: bool -> torch.bool, int -> int64, float -> the
  default dtype (float32). A 0-d tensor takes part in type promotion like the
  Python number it replaces (its category counts, its width does not), so the
  result dtype is unchanged.
"""
from __future__ import annotations

import torch

from aot.compiler.kernels import portable_ops
from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.passes.out_variants import op_name, to_out_variant

aten = torch.ops.aten

_SHIFTS = {
    aten.__lshift__.Scalar: aten.bitwise_left_shift.Tensor_Scalar,
    aten.__lshift__.Tensor: aten.bitwise_left_shift.Tensor,
    aten.__rshift__.Scalar: aten.bitwise_right_shift.Tensor_Scalar,
    aten.__rshift__.Tensor: aten.bitwise_right_shift.Tensor,
}


def _number_tensor(v) -> torch.Tensor:
    """The 0-d tensor that stands for Python number ``v`` in a Tensor argument."""
    if isinstance(v, bool):
        return torch.tensor(v, dtype=torch.bool)
    if isinstance(v, int):
        return torch.tensor(v, dtype=torch.int64)
    return torch.tensor(v, dtype=torch.get_default_dtype())


def _lift_numbers(prog: EdgeProgram, n: torch.fx.Node) -> bool:
    """Replace Python numbers in the Tensor arguments of ``n`` by constant 0-d tensors."""
    schema = getattr(n.target, "_schema", None)
    if schema is None:
        return False
    fn, out = to_out_variant(n.target, n.args)
    if fn is not n.target and out is not None and op_name(out) in portable_ops():
        return False  # a Scalar overload with a kernel takes the number as it is (x / 2)
    args = list(n.args)
    changed = False
    for i, (a, spec) in enumerate(zip(args, schema.arguments)):
        if isinstance(a, (bool, int, float)) and isinstance(spec.type, torch.TensorType):
            args[i] = prog.add_constant(f"{n.name}_arg{i}", _number_tensor(a))
            changed = True
    if changed:
        n.args = tuple(args)
    return changed


def rewrite_scalar_ops(prog: EdgeProgram) -> int:
    """Apply the rewrites above in place. Returns how many calls changed."""
    changed = 0
    for n in list(prog.graph.nodes):
        if n.op != "call_function":
            continue
        if n.target in _SHIFTS:
            n.target = _SHIFTS[n.target]
            changed += 1
        elif (n.target == aten.sub.Tensor and len(n.args) >= 2
              and isinstance(n.args[0], (int, float, bool)) and isinstance(n.args[1], torch.fx.Node)):
            alpha = n.args[2] if len(n.args) > 2 else n.kwargs.get("alpha", 1)
            n.target = aten.rsub.Scalar
            n.args = (n.args[1], n.args[0])
            n.kwargs = {"alpha": alpha}
            changed += 1
        elif _lift_numbers(prog, n):
            changed += 1
    return changed
