"""Stage 3: edge graph -> :class:`aot.ir.ProgramSpec` (value table + one chain of
out-variant kernel calls), then memory planning (aot/compiler/plan.py).

Every call_function node becomes one KernelCall whose args are value indices
in ExecuTorch's calling convention: the out-variant schema's arguments in
order (out arguments last), then the returned values (the out tensors again). Scalars become Int/Double/Bool
values, int[] an IntListValue, Tensor[] a TensorListValue, None a None value,
ScalarType an Int with ExecuTorch's code. Unsupported operators are refused
(UnsupportedOpError) before any value is built.
"""
from __future__ import annotations

import operator

import torch

from aot import ir

#: torch dtype -> ScalarType code, for the dtypes the runtime accepts
DTYPE_CODES = {getattr(torch, ir.SCALAR_TYPE_NAMES[c]): c for c in ir.DTYPE_SIZES}
from aot.errors import LoweringError, UnsupportedOpError
from aot.compiler.export import export, to_core_aten
from aot.compiler.ops import is_supported
from aot.compiler.passes import EdgeProgram, from_exported, run_fp32_passes
from aot.compiler.passes.out_variants import bind, op_name, out_args, to_out_variant
from aot.compiler.passes.views import ET_VIEW_NAME, et_view
from aot.compiler.plan import plan_memory
from aot.compiler.share_values import share_values
from aot.compiler.source import module_of as _module_of
from aot.compiler.source import fused_nodes, module_path, qparams_of, quant_of, source_of

#: torch.memory_format -> c10::MemoryFormat code
_MEMORY_FORMATS = {torch.contiguous_format: 0, torch.preserve_format: 1,
                   torch.channels_last: 2, torch.channels_last_3d: 3}


def resolve_op(node: torch.fx.Node) -> tuple:
    """(functional op, out-variant op or None, "ns::name.overload" emitted) for
    a call_function node. et_view has no OpOverload: (None, None, name)."""
    if node.target is et_view:
        return None, None, ET_VIEW_NAME + ".default"
    if not isinstance(node.target, torch._ops.OpOverload):
        raise UnsupportedOpError(str(node.target), source_of(node), "not an ATen/library operator")
    fop, oop = to_out_variant(node.target, node.args)
    return fop, oop, (op_name(oop) if oop is not None else op_name(fop))


def _data_dependent_node(prog: EdgeProgram):
    """The first operator node whose output shape is symbolic (torch.export's unbacked
    sizes: torch.nonzero, masked_select, unique), else None."""
    for n in prog.graph.nodes:
        if n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        val = n.meta.get("val")
        vals = val if isinstance(val, (list, tuple)) else [val]
        if any(isinstance(d, torch.SymInt) for t in vals if isinstance(t, torch.Tensor) for d in t.shape):
            return n
    return None


def check_supported(prog: EdgeProgram) -> None:
    """Raise UnsupportedOpError naming the first node whose out-variant op the
    runtime lacks (op name, model file:line, module), and listing every other
    unsupported operator of the graph after it, so one run shows them all. An
    operator whose output shape depends on the data is named first, as such (the
    size checks torch.export adds after it are not what the user wrote)."""
    dyn = _data_dependent_node(prog)
    if dyn is not None:
        from aot.compiler.kernels import excluded_ops
        name = resolve_op(dyn)[2]
        why = excluded_ops().get(name, "its output shape depends on the data; a static memory plan needs "
                                       "every size at compile time")
        raise UnsupportedOpError(name, source_of(dyn), f"{why}; see kernels/excluded.json")
    found = []
    for n in prog.graph.nodes:
        if n.op != "call_function" or n.target == operator.getitem:
            continue
        _, oop, name = resolve_op(n)
        no_out = oop is None and n.target is not et_view
        if (no_out or not is_supported(name)) and name not in [f[0] for f in found]:
            detail = ["no out-variant exists"] if no_out else []
            detail += [_module_of(n)] if _module_of(n) else []
            found.append((name, source_of(n), detail))
    if found:
        name, src, detail = found[0]
        from aot.compiler.kernels import excluded_ops
        if name in excluded_ops():  # left out on purpose: say why (and what to write instead)
            detail.insert(0, excluded_ops()[name])
        detail += [f"also unsupported: {', '.join(f'{o} at {s}' if s else o for o, s, _ in found[1:])}"
                   ] if len(found) > 1 else []
        raise UnsupportedOpError(name, src, "; ".join(detail) if len(found) > 1 else ", ".join(detail))


class _Builder:
    """Accumulates the value table and kernel calls of one method."""

    def __init__(self, prog: EdgeProgram):
        self.prog = prog
        self.spec = ir.ProgramSpec()
        self.node_values = {}  # fx node -> value index (tuple for multi-output ops)
        self.current = None  # the node being lowered (call)

    def add(self, v) -> int:
        self.spec.values.append(v)
        return len(self.spec.values) - 1

    def tensor(self, t: torch.Tensor, name: str, constant: bool = False) -> int:
        if t.dtype not in DTYPE_CODES:
            raise LoweringError(f"{name}: dtype {t.dtype} is not supported")
        if any(not isinstance(s, int) for s in t.shape):
            raise LoweringError(f"{name}: dynamic shape {tuple(t.shape)}")
        sizes = [int(s) for s in t.shape]
        tv = ir.TensorValue(sizes=sizes, dtype=DTYPE_CODES[t.dtype],
                            dim_order=list(range(len(sizes))), name=name)
        if constant:
            tv.constant = t.detach().contiguous().cpu().numpy().tobytes()
        return self.add(tv)

    def node_value(self, n: torch.fx.Node) -> int:
        if n not in self.node_values:
            if self.prog.is_const(n):
                self.node_values[n] = self.tensor(self.prog.constants[n.name], n.name, constant=True)
            else:
                raise LoweringError(f"{n.name} is used before it is computed")
        v = self.node_values[n]
        if isinstance(v, tuple):
            raise LoweringError(f"{n.name}: multi-output value used as a tensor")
        return v

    def origin(self, const: torch.fx.Node, argument: str) -> str:
        """The user's name of constant `const`: the parameters it was made from, else the
        module of the op being lowered and the argument it fills ("features.3.weight")."""
        if const.name in self.prog.origins:
            return self.prog.origins[const.name]
        where = module_path(self.current) if self.current is not None else ""
        return f"{where}.{argument}" if where else ""

    def arg(self, a, value) -> int:
        """Value index for ``value`` passed to schema argument ``a``."""
        if value is None:
            return self.add(None)
        if isinstance(value, torch.fx.Node):
            idx = self.node_value(value)
            v = self.spec.values[idx]
            if v.constant is not None and not v.origin:
                v.origin = self.origin(value, a.name)
            return idx
        if isinstance(value, bool):
            return self.add(bool(value))
        if isinstance(value, torch.dtype):
            return self.add(DTYPE_CODES[value])
        if isinstance(value, torch.memory_format):
            return self.add(_MEMORY_FORMATS[value])
        if isinstance(value, int) and str(a.type).replace("Optional[", "").startswith("float"):
            return self.add(float(value))  # a float argument given 0 must still be a Double
        if isinstance(value, int):
            if "[]" in str(a.type) or "List[" in str(a.type):
                n = getattr(a, "N", None) or 1  # int[2] padding=0 means [0, 0]
                return self.add(ir.IntListValue([int(value)] * n))
            return self.add(int(value))
        if isinstance(value, float):
            return self.add(float(value))
        if isinstance(value, str):
            return self.add(value)
        if isinstance(value, (list, tuple)):
            return self.list_arg(a, list(value))
        raise LoweringError(f"argument {a.name}: cannot express {value!r}")

    def list_arg(self, a, items: list) -> int:
        t = str(a.type)
        if "Tensor" in t or any(isinstance(x, torch.fx.Node) for x in items):
            opt = "Optional" in t or any(x is None for x in items)
            return self.add(ir.TensorListValue(
                [-1 if x is None else self.node_value(x) for x in items], optional=opt))
        if all(isinstance(x, bool) for x in items) and items and "bool" in t:
            return self.add(ir.BoolListValue([bool(x) for x in items]))
        if "float" in t:
            return self.add(ir.DoubleListValue([float(x) for x in items]))
        return self.add(ir.IntListValue([int(x) for x in items]))

    def outputs_of(self, n: torch.fx.Node, count: int) -> list:
        val = n.meta["val"]
        vals = list(val) if isinstance(val, (tuple, list)) else [val]
        if len(vals) != count:
            raise LoweringError(f"{n.name}: {len(vals)} results for {count} out arguments")
        idx = [self.tensor(v, n.name if count == 1 else f"{n.name}_{i}") for i, v in enumerate(vals)]
        self.node_values[n] = idx[0] if count == 1 else tuple(idx)
        return idx

    def write_back(self, holder: torch.fx.Node, new) -> None:
        """``aten::copy_(buffer, new, non_blocking=False)`` at the end of the
        chain: the buffer's new value becomes the state of the next call. A
        buffer the graph returns unchanged needs none."""
        if new is holder:
            return
        if not isinstance(new, torch.fx.Node):
            raise LoweringError(f"buffer {self.prog.mutable[holder.name].fqn}: new value {new!r} is not a tensor")
        dst, src = self.node_value(holder), self.node_value(new)
        if self.spec.values[src].sizes != self.spec.values[dst].sizes:
            raise LoweringError(f"buffer {self.prog.mutable[holder.name].fqn}: new value has shape "
                                f"{self.spec.values[src].sizes}, the buffer {self.spec.values[dst].sizes}")
        self.spec.instructions.append(ir.KernelCall(
            "aten::copy_", "default", [dst, src, self.add(False), dst], source_of(new),
            node=new.name, nodes=fused_nodes(new), module=_module_of(new)))

    def call(self, n: torch.fx.Node) -> None:
        first = len(self.spec.instructions)
        self.current = n
        self._call(n)
        for call in self.spec.instructions[first:]:
            call.node, call.nodes, call.module, call.q = n.name, fused_nodes(n), _module_of(n), quant_of(n)
            call.qparams = qparams_of(n)

    def _call(self, n: torch.fx.Node) -> None:
        src = source_of(n)
        if n.target is et_view:
            args = [self.node_value(n.args[0]), self.add(ir.IntListValue(list(n.args[1])))]
            args += self.outputs_of(n, 1)
            self.spec.instructions.append(ir.KernelCall(ET_VIEW_NAME, "default", args, src))
            return
        fop, oop, _ = resolve_op(n)
        bound = bind(fop, oop, n.args, n.kwargs)
        args = [self.arg(a, v) for a, v in bound]
        ns_name, overload = op_name(oop).rsplit(".", 1)
        oargs = out_args(oop)
        if len(oargs) == 1 and str(oargs[0].type) == "List[Tensor]":
            # `Tensor(a!)[] out` (split_copy, split_with_sizes_copy, unbind_copy):
            # one TensorList of planned tensors; the schema returns `()`, yet
            # ExecuTorch's kernels take the list once more as the return value
            # (its emitter's convention; its runtime refuses the call without it)
            vals = list(n.meta["val"])
            idx = [self.tensor(v, f"{n.name}_{i}") for i, v in enumerate(vals)]
            self.node_values[n] = tuple(idx)
            out_list = self.add(ir.TensorListValue(idx))
            args += [out_list, out_list]
            self.spec.instructions.append(ir.KernelCall(ns_name, overload, args, src))
            return
        outs = self.outputs_of(n, len(oargs))
        # ExecuTorch's calling convention: schema arguments (out arguments
        # included), then the returned values, which for an out variant are
        # the out tensors again (relu.out: [self, out, out]); several returns
        # travel as one tensor list (max_pool2d_with_indices: [.., out, indices, [out, indices]])
        args += outs + (outs if len(outs) == 1 else [self.add(ir.TensorListValue(list(outs)))])
        self.spec.instructions.append(ir.KernelCall(ns_name, overload, args, src))


def build_spec(prog: EdgeProgram) -> ir.ProgramSpec:
    """Value table and instruction chain of ``prog`` (not yet planned). Each
    mutable buffer is a tensor value with its initial bytes; after the model's
    calls one ``aten::copy_`` per mutated buffer writes its new value back, as
    ExecuTorch's emitter does. Raises UnsupportedOpError / LoweringError."""
    check_supported(prog)
    b = _Builder(prog)
    for n in prog.graph.nodes:
        if n.op == "placeholder" and n.name in prog.user_inputs:
            b.node_values[n] = b.tensor(n.meta["val"], n.name)
        elif n.op == "placeholder" and n.name in prog.mutable:
            buf = prog.mutable[n.name]
            v = b.node_values[n] = b.tensor(buf.initial, buf.fqn)
            b.spec.values[v].initial = buf.initial.cpu().numpy().tobytes()
            b.spec.values[v].fqn = buf.fqn
    b.spec.inputs = [b.node_values[n] for n in prog.graph.nodes
                     if n.op == "placeholder" and n.name in prog.user_inputs]
    for n in prog.graph.nodes:
        if n.op != "call_function":
            continue
        if n.target == operator.getitem:
            b.node_values[n] = b.node_values[n.args[0]][n.args[1]]
        else:
            b.call(n)
    for holder, new in prog.mutation_nodes():
        b.write_back(holder, new)
    for i, o in enumerate(prog.user_output_nodes()):
        if not isinstance(o, torch.fx.Node) or prog.is_const(o):
            what = f"the Python value {o!r}" if not isinstance(o, torch.fx.Node) else f"the constant tensor {o.name}"
            raise LoweringError(f"forward() returns {what} as output {i}: a program's outputs are tensors it "
                                "computes from its inputs; constant outputs are not supported")
        b.spec.outputs.append(b.node_value(o))
    return b.spec


def set_scratch(spec: ir.ProgramSpec, scratch_fn) -> None:
    """Set every call's ``scratch_bytes`` to ``scratch_fn(spec, call)`` (bytes)
    so the planner places one scratch block per call inside the arena; the
    separate scratch buffer (plan_info["scratch_bytes"]) is then 0."""
    for call in spec.instructions:
        call.scratch_bytes = int(scratch_fn(spec, call) or 0)
    spec.plan_info["scratch_bytes"] = 0


def lower_program(prog: EdgeProgram, planner: str = "best", scratch_fn=None,
                  spec_passes=()) -> ir.ProgramSpec:
    """Build and memory-plan the ProgramSpec of an edge program whose passes
    already ran (the int8 path runs its own passes, then this). scratch_fn:
    optional ``(spec, call) -> bytes`` of kernel scratch, planned in the arena;
    spec_passes: functions of the unplanned spec run before it (e.g.
    aot.compiler.dsp_weights.add_dsp_weights). Equal constant scalars and
    lists become one value first (aot.compiler.share_values)."""
    spec = build_spec(prog)
    share_values(spec)  # first: later passes and the plan see the final value indices
    for spec_pass in spec_passes:
        spec_pass(spec)
    if scratch_fn is None:
        from aot.compiler.scratch import FFT_ELEMENT_BYTES, scratch_bytes
        if any(f"{c.op}.{c.overload}" in FFT_ELEMENT_BYTES for c in ir.kernel_calls(spec)):
            scratch_fn = scratch_bytes  # the real FFT's transform, planned in the arena of every program
    if scratch_fn is not None:
        set_scratch(spec, scratch_fn)
    plan_memory(spec, planner=planner)
    return spec


def core_program(ep_or_module, example_inputs=None) -> torch.export.ExportedProgram:
    """The Core ATen ExportedProgram that :func:`lower` lowers: ``ep_or_module``
    exported first when it is an eval nn.Module (with ``example_inputs``).
    Its node names are the ones the debug record's calls name (aot debug runs it)."""
    if isinstance(ep_or_module, torch.nn.Module):
        if example_inputs is None:
            raise LoweringError("lower(module) needs example_inputs")
        return export(ep_or_module, example_inputs)
    return to_core_aten(ep_or_module)


def lower_core(core: torch.export.ExportedProgram, *, planner: str = "best",
               scratch_fn=None, spec_passes=(), method_name: str = "forward",
               buffer_names: dict | None = None) -> ir.ProgramSpec:
    """:func:`lower` of a :func:`core_program`, as method ``method_name``;
    buffer_names: see :func:`aot.compiler.passes.edge_program.from_exported`."""
    spec = lower_program(run_fp32_passes(from_exported(core, buffer_names)), planner, scratch_fn, spec_passes)
    spec.method_name = method_name
    return spec


def lower(ep_or_module, example_inputs=None, *, planner: str = "best",
          scratch_fn=None, spec_passes=()) -> ir.ProgramSpec:
    """Lower an ExportedProgram (or an eval nn.Module with ``example_inputs``,
    exported first) to a fully planned ProgramSpec. scratch_fn: optional
    ``(spec, call) -> bytes`` of per-call kernel scratch placed in the arena
    (plan_info["scratch_offsets"]); spec_passes: see :func:`lower_program`.
    Raises UnsupportedOpError, LoweringError, ExportError, PlanError."""
    return lower_core(core_program(ep_or_module, example_inputs), planner=planner,
                      scratch_fn=scratch_fn, spec_passes=spec_passes)


def compile_model(module: torch.nn.Module, example_inputs) -> ir.ProgramSpec:
    """Export ``module`` on ``example_inputs`` (tuple of tensors) and lower it
    to a planned ProgramSpec."""
    return lower(module, example_inputs)
