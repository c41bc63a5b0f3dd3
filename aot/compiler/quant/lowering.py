"""Lower a PT2E-converted int8 graph (q/dq around fp32 ops) to Mote's fused
``mote::`` integer ops with NHWC activations (``docs/int8-ops.md``).

The driver here walks the converted graph once: every quantize node whose
group ``dq -> op [-> fused activation / constant factor] -> q`` a pattern of
:data:`aot.compiler.quant.patterns.PATTERNS` matches becomes that pattern's
integer op(s) (:mod:`aot.compiler.quant.patterns` lists them: convolutions,
linear, add / mul, matmul, pooling, mean, pad, softmax, lookup tables,
resampling, slices, views, cat, embedding); anything else runs in fp32
between ``dequantize`` and ``quantize`` and an :class:`Int8FallbackWarning`
names the op, its model file:line and the pattern's reason.

4-D int8 activations are physically NHWC; the layout is tracked per value
(:class:`aot.compiler.quant.values.QVal`) and a ``permute_copy`` is inserted
only where a consumer needs another layout. Inputs and outputs stay fp32
(quantize/dequantize at the edges) unless ``int8_io=True``, in which case
they are int8 in the model's own (NCHW) layout.
"""
from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass, field
from typing import Optional, Sequence

import torch
from torch.fx import Graph, GraphModule, Node

from aot.compiler.quant.observers import Int8FallbackWarning  # noqa: F401  (re-exported)
from aot.compiler.quant.opsets import ISLAND_KEY
from aot.compiler.quant.recurrent import KEEP_ROLES, RNN_KEY
from aot.compiler.quant.patterns import BY_OP, INT16_REASON, find
from aot.compiler.quant.patterns.base import DQ, DQ_CH, Q, Pattern, is_dq_of_q, qd
from aot.compiler.quant.values import NHWC, NLC, QRANGE, QVal, same_bytes, tag
from aot.compiler.source import copy_source_meta, fused_nodes, module_of, set_fused, source_location, source_of
from aot.compiler import mote_ops  # noqa: F401  (registers torch.ops.mote)
import torch.ao.quantization.fx._decomposed  # noqa: F401,E402  (registers quantized_decomposed)

__all__ = ["lower_int8", "int8_program", "quantized_program", "Int8FallbackWarning", "Int8Info"]

aten = torch.ops.aten
_NO_WARN = {DQ_CH, qd.quantize_per_channel.default}


@dataclass
class Int8Info:
    """Facts about a lowering. input_qparams: per program input, (scale,
    zero_point) of its int8 form with ``int8_io`` (None: fp32 input, or
    int8_io off); output_qparams: per quantized output, (scale, zero_point);
    fallback_ops: names of the ops kept in fp32; fp32_islands: per planned
    fp32 island (a norm, or a per-channel PReLU, kept fp32 on purpose between
    dequantize and quantize; no warning), (kind, "file.py:line");
    fallback_sites: every op kept in fp32 next to int8 values, (op name,
    "file.py:line" or "", reason), one entry per graph node (the warning comes
    once per op); the reason is the refusing pattern's (or "no int8 kernel for <op>")."""
    input_qparams: list
    output_qparams: list
    fallback_ops: list
    fp32_islands: list = field(default_factory=list)
    fallback_sites: list = field(default_factory=list)
    #: names of the PT2E nodes inside planned fp32 islands (an audio front end's
    #: mel product is MACs kept fp32 on purpose, not a fallback)
    island_nodes: list = field(default_factory=list)


class Lowering:
    """The state of one lowering: the new graph and module, the integer value of
    every PT2E quantize node (``qv``), the layouts made of each, and what fell back."""
    def __init__(self, gm: GraphModule, example_inputs, int8_io: bool):
        self.gm = gm
        self.int8_io = int8_io
        self.root = torch.nn.Module()
        self.g = Graph()
        self.g.set_codegen(gm.graph._codegen)
        self.env: dict = {}        # old node -> new float node
        self.qv: dict = {}         # old q node -> QVal
        self.layouts: dict = {}    # (id(qval), perm) -> node
        self.selections: dict = {}  # (target, args) -> node of a slice / select already made
        self.dq_cache: dict = {}   # old q node -> new float node
        self.plans: dict = {}      # old q node -> (pattern, site) lowering its group
        self.refused: dict = {}    # old core node -> reason of the pattern that refused it
        self.pattern: Optional[Pattern] = None  # the pattern being emitted
        self.absorbed: set = set()
        self.n_const = 0
        self.fallback: list = []
        self.input_qparams: list = []
        self.input_q: dict = {}    # placeholder name -> (scale, zp) with int8_io
        self.output_qparams: list = []
        self.example_inputs = example_inputs
        self._propagated = False
        self.warned: set = set()   # targets already reported by Int8FallbackWarning
        self.sites: list = []      # (op, source, reason) of every fp32 fallback node
        self.islands: list = []    # planned fp32 islands: (kind, "file.py:line")
        self.island_nodes: list = []  # PT2E names of every node of those islands
        self.fusing = None         # PT2E node names the group being emitted computes
        from aot.compiler.quant.state import int8_state_qparams, mutated_buffers
        self.mutable = mutated_buffers(gm)  # get_attr targets the model updates in place
        # buffers the model replaces by a quantized value: kept int8 ({target: (scale, zp)})
        self.int8_state = int8_state_qparams(gm)
        self.state_nodes: dict = {}  # target -> the new graph's get_attr of that buffer
        self.state_perms: dict = {}  # target -> its physical layout (state_perm)
        self.rnn: dict = {}          # quantize node of a recurrent step -> (step, output) (recurrent.plan)

    # ------------------------------------------------------------------ helpers
    def shape(self, n: Node) -> tuple:
        """Static shape of old node n (export's fake values; q/dq take their
        input's; shape propagation with the example inputs otherwise)."""
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            return tuple(int(d) for d in v.shape)
        if n.op == "call_function" and n.target in (Q, DQ) and isinstance(n.args[0], Node):
            return self.shape(n.args[0])
        if "tensor_meta" not in n.meta and not self._propagated:
            from torch.fx.passes.shape_prop import ShapeProp
            ShapeProp(self.gm).propagate(*self.example_inputs)
            self._propagated = True
        return tuple(int(d) for d in n.meta["tensor_meta"].shape)

    def const(self, t: torch.Tensor, hint: str) -> Node:
        name = f"_mote_{hint}_{self.n_const}"
        self.n_const += 1
        self.root.register_buffer(name, t.detach().contiguous().clone())
        return self.g.get_attr(name)

    def state(self, target: str, t: torch.Tensor) -> Node:
        """The mutable buffer `target` ("frames", "norm.running_mean") under the
        same path in the new module, so the program names it as the model does."""
        *path, leaf = target.split(".")
        mod = self.root
        for part in path:
            if not hasattr(mod, part):
                mod.add_module(part, torch.nn.Module())
            mod = getattr(mod, part)
        mod.register_buffer(leaf, t.detach().contiguous().clone())
        return self.g.get_attr(target)

    def attr(self, n: Node) -> torch.Tensor:
        obj = self.gm
        for part in n.target.split("."):
            obj = getattr(obj, part)
        return obj

    def op(self, name: str):
        """``torch.ops.mote.<name>.default``, which the pattern being emitted must
        declare in its ``emits`` (the table is the one list of what each lowers to)."""
        if f"mote::{name}" not in self.pattern.emits:
            raise AssertionError(f"pattern {self.pattern.name} emits mote::{name} but does not declare it")
        return mote_ops.op(name)

    def call(self, target, args, src: Optional[Node] = None) -> Node:
        if target == aten.view_copy.default and isinstance(args[0], Node) \
                and args[0].target == aten.view_copy.default:
            args = (args[0].args[0],) + tuple(args[1:])  # view of a view: one view
        node = self.g.call_function(target, tuple(args))
        if src is not None:
            copy_source_meta(node, src)
            set_fused(node, self.fusing or fused_nodes(src))
        return node

    def selection(self, target, args: tuple, src: Node) -> Node:
        """``target(*args)`` (an int8 slice / select of a value), made once: the same
        selection asked again (a window's newest frames both written back and read:
        ``buf.copy_(full[..., 1:])`` and ``full[..., 1:].mean()``) is the same node."""
        key = (target, tuple(args))
        if key not in self.selections:
            self.selections[key] = self.call(target, args, src)
        return self.selections[key]

    def layout(self, v: QVal, perm: tuple, src=None) -> Node:
        """Node holding `v` physically as logical.permute(perm)."""
        if tuple(v.perm) == tuple(perm):
            return v.node
        key = (id(v), tuple(perm))
        if key not in self.layouts:
            phys = [v.shape[d] for d in perm]
            if same_bytes(v.shape, v.perm, perm):
                node = self.call(aten.view_copy.default, (v.node, phys), src)
            else:
                # physical_new = physical_old.permute(r): r[i] = position of perm[i] in v.perm
                r = [list(v.perm).index(d) for d in perm]
                node = self.call(aten.permute_copy.default, (v.node, r), src)
            self.layouts[key] = node
            tag(node, v.qname, perm)
            if v.qname:
                set_fused(node, [v.qname])  # a layout change of that value, not the group's op
        return self.layouts[key]

    def nhwc(self, v: QVal, src=None) -> Node:
        return self.layout(v, NHWC, src)

    def nlc4(self, x: QVal, src=None) -> Node:
        """A 3-D int8 value [N, C, L] as the NHWC tensor [N, 1, L, C] (its bytes in
        the channels-last layout NLC, viewed with H = 1) for the 2-D int8 kernels."""
        node = self.call(aten.view_copy.default, (self.layout(x, NLC, src), [x.shape[0], 1, x.shape[2],
                                                                                x.shape[1]]), src)
        tag(node, x.qname, NLC)
        return node

    def plain(self, v: QVal, src=None) -> Node:
        return self.layout(v, tuple(range(len(v.shape))), src)

    def dq_src(self, n) -> Optional[QVal]:
        """The int8 value behind ``dq`` node n (None if n is not such a dq)."""
        if isinstance(n, Node) and n.op == "call_function" and n.target == DQ:
            src = n.args[0]
            if src in self.qv:
                return self.qv[src]
        return None

    def float_of(self, n: Node) -> Node:
        """New-graph float value for old node n (dequantizing int8 on demand)."""
        if n in self.env:
            return self.env[n]
        if n.op == "get_attr" and n.target in self.int8_state:
            # int8 state: stored int8 (its initial value quantized), read dequantized
            v = self.state_qval(n)
            self.env[n] = self.call(DQ, (self.plain(v), v.scale, v.zp, -128, 127, torch.int8))
            return self.env[n]
        if n.op == "get_attr" and n.target in self.mutable:
            self.env[n] = self.state(n.target, self.attr(n))
            return self.env[n]
        if n.op == "get_attr":
            self.env[n] = self.const(self.attr(n), n.name)
            return self.env[n]
        if n.op == "call_function" and n.target == DQ and n.args[0] in self.qv:
            src = n.args[0]
            if src not in self.dq_cache:
                v = self.qv[src]
                self.dq_cache[src] = self.call(DQ, (self.plain(v), v.scale, v.zp, v.qmin,
                                                    v.qmax, v.dtype))
            return self.dq_cache[src]
        if n.op == "call_function" and n.target == DQ and isinstance(n.args[0], Node) \
                and n.args[0].op == "get_attr":
            # A quantized constant that no int8 op absorbed (e.g. an nn.Parameter
            # used directly: `x * self.gain`): the op using it runs in fp32, so
            # dequantize the constant ahead of time, exactly as PT2E's reference does.
            s, zp = n.args[1], n.args[2]
            q = self.attr(n.args[0])
            self.env[n] = self.const(DQ(q, s, zp, *n.args[3:]), n.name)
            return self.env[n]
        raise RuntimeError(f"int8 lowering: no value for {n.format_node()}")

    def state_source(self, n) -> Optional[str]:
        """The int8 state (buffer target) old node `n` is (its get_attr) or slices
        (``buf[:, :, 1:]``), else None."""
        while isinstance(n, Node) and n.op == "call_function" and n.target == aten.slice.Tensor:
            n = n.args[0]
        ok = isinstance(n, Node) and n.op == "get_attr" and n.target in self.int8_state
        return n.target if ok else None

    def state_qval(self, n: Node) -> Optional[QVal]:
        """The int8 value of old node `n` when it is an int8 state (stored int8, its
        initial value quantized at the qparams it is written back with) or a slice of
        one (an int8 slice_copy of the buffer), else None."""
        if self.state_source(n) is None:
            return None
        if n.op == "call_function":      # a slice of the state
            v = self.state_qval(n.args[0])
            a = n.args
            dim = int(a[1]) % len(v.shape) if len(a) > 1 else 0
            node = self.selection(aten.slice_copy.Tensor, (v.node, list(v.perm).index(dim),
                                                           a[2] if len(a) > 2 else None,
                                                           a[3] if len(a) > 3 else None,
                                                           int(a[4]) if len(a) > 4 else 1), n)
            shape = self.shape(n)
            return QVal(node, shape, v.perm, v.scale, v.zp)
        s, zp = self.int8_state[n.target]
        shape = tuple(self.attr(n).shape)
        perm = self.state_perm(n.target, len(shape))
        if n.target not in self.state_nodes:
            q = Q(self.attr(n), s, zp, -128, 127, torch.int8).permute(perm)
            self.state_nodes[n.target] = self.state(n.target, q)
        return QVal(self.state_nodes[n.target], shape, perm, s, zp)

    def state_perm(self, target: str, rank: int) -> tuple:
        """The physical layout of int8 state `target` (physical = logical.permute(perm)):
        channels-last (NLC) for a 3-D window [N, C, L] the model extends along L
        (``cat([buf, new], -1)``), the layout 1-D int8 convolutions read, so the
        window's cat, its slice and its write-back each move whole frames and the
        convolution reads it with no permute; the logical layout otherwise."""
        if target not in self.state_perms:  # asked at every read and the write-back: walk the graph once
            window = rank == 3 and any(
                n.op == "get_attr" and n.target == target and any(
                    u.target == aten.cat.default and len(u.args) > 1 and int(u.args[1]) % 3 == 2 for u in n.users)
                for n in self.gm.graph.nodes)
            self.state_perms[target] = NLC if window else tuple(range(rank))
        return self.state_perms[target]

    def map_arg(self, a):
        if isinstance(a, Node):
            return self.float_of(a)
        if isinstance(a, (list, tuple)):
            return type(a)(self.map_arg(x) for x in a)
        if isinstance(a, dict):
            return {k: self.map_arg(v) for k, v in a.items()}
        return a

    # ------------------------------------------------------------------ fallbacks
    def warn_fallback(self, n: Node, reason: Optional[str] = None, stacklevel: int = 6) -> None:
        """Record op `n` as kept in fp32 (one Int8FallbackWarning per target),
        reported at the model's own file:line with its module path and the
        reason (default: :meth:`fallback_reason`)."""
        if n.target is operator.getitem:
            return  # picks one output of a multi-output op, which is reported itself
        name = getattr(n.target, "__name__", str(n.target))
        scheme = "int16" if any(x.target in (Q, DQ) and len(x.args) > 5 and x.args[5] == torch.int16
                                for x in list(n.all_input_nodes) + list(n.users)) else "int8"
        reason = reason or self.fallback_reason(n, scheme)
        self.sites.append((name.split(".")[0], source_of(n) or "", reason))
        if n.target in self.warned:
            return
        self.warned.add(n.target)
        self.fallback.append(str(n.target))
        where = ", ".join(x for x in (source_of(n), module_of(n)) if x)
        message = (f"mote {scheme}: {name} ({n.name}{'; ' + where if where else ''}) runs in fp32 "
                   f"between dequantize and quantize: {reason}")
        loc = source_location(n)
        if loc is None:
            warnings.warn(message, Int8FallbackWarning, stacklevel=stacklevel)
        else:
            warnings.warn_explicit(message, Int8FallbackWarning, filename=loc[0], lineno=loc[1],
                                   module="mote.int8")

    def fallback_reason(self, n: Node, scheme: str) -> str:
        """Why op `n` runs in fp32: the reason of the pattern that refused it,
        else what kept it from being tried."""
        if n in self.refused:
            return self.refused[n]
        if scheme == "int16":
            return INT16_REASON
        if n.target not in BY_OP:
            return "no int8 kernel for this op"
        if not any(is_dq_of_q(x) for x in n.all_input_nodes):
            return "its input is fp32 (the op before it runs in fp32)"
        return "its result is not quantized on its own (an fp32 op reads it)"

    # ------------------------------------------------------------------ driver
    def run(self) -> GraphModule:
        """Plan every quantize node's pattern, then build the new graph in the old order."""
        nodes = list(self.gm.graph.nodes)
        from aot.compiler.quant import recurrent
        recurrent.plan(self)  # LSTM / GRU steps: one cell op each (self.rnn)
        for n in nodes:
            if n.op == "call_function" and n.target == Q and n not in self.rnn:
                m = find(self, n)
                if m is not None:
                    self.plans[n] = m
                    self.absorbed.update(x for x in (m[1].core, m[1].act) if x is not None)
        for n in nodes:
            self.lower_node(n)
        self.input_qparams = [self.input_q.get(n.name) for n in nodes if n.op == "placeholder"]
        self.g.eliminate_dead_code()
        self.g.lint()
        gm = GraphModule(self.root, self.g)
        gm.meta["mote_int8"] = Int8Info(self.input_qparams, self.output_qparams, self.fallback,
                                        self.islands, self.sites, self.island_nodes)
        return gm

    def lower_node(self, n: Node) -> None:
        """Old node `n` in the new graph: a quantize as its pattern's op (or a
        quantize), a dequantize / absorbed op not at all (made on demand), an
        int8 state's write-back on the int8 value, any other op in fp32."""
        if n.op == "placeholder":
            new = self.g.placeholder(n.name, type_expr=n.type)
            new.meta = dict(n.meta)
            self.env[n] = new
        elif n.op == "get_attr":
            return  # copied on demand
        elif n.op == "output":
            self.g.output(self.map_output(n.args[0]))
        elif n.target == Q:
            self.lower_q(n)
        elif n.target == aten.copy_.default and getattr(n.args[0], "target", None) in self.int8_state:
            # the write-back of an int8 state: the quantized value itself, no dequantize
            self.float_of(n.args[0])
            v = self.qv[n.args[1].args[0]]
            target = n.args[0].target
            perm = self.state_perm(target, len(v.shape))
            self.env[n] = self.g.call_function(aten.copy_.default, (
                self.state_nodes[target], self.layout(v, perm, n)))
        elif n.target == DQ or n in self.absorbed:
            return  # dequantized on demand / fused
        elif n.op == "call_function":
            self.lower_fp32(n)
        else:
            raise RuntimeError(f"int8 lowering: unsupported node {n.format_node()}")

    def lower_fp32(self, n: Node) -> None:
        """Op `n` as it is on float values: a planned fp32 island is recorded,
        any other op next to int8 values is a fallback (warned, with its reason)."""
        island = n.meta.get(ISLAND_KEY)
        if island is not None:   # planned fp32 island: reported, not warned
            self.island_nodes.append(n.name)
            if island[1]:
                self.islands.append((island[0], source_of(n)))
        elif n.target not in _NO_WARN and n.meta.get(RNN_KEY, (None,) * 4)[3] not in KEEP_ROLES:
            # (a recurrent layer's initial-state selects are constant set-up, not a fallback)
            to_cell = n.users and all(u.target == Q and all(RNN_KEY in d.meta for w in u.users for d in w.users)
                                      for u in n.users)  # an initial state quantized for a recurrent cell
            if not to_cell and (any(is_dq_of_q(x) for x in n.all_input_nodes) or any(u.target == Q for u in n.users)):
                self.warn_fallback(n)
        new = self.g.call_function(n.target, self.map_arg(n.args), self.map_arg(n.kwargs))
        new.meta = {k: v for k, v in n.meta.items() if k not in ("tensor_meta", "val")}
        set_fused(new, fused_nodes(n))
        self.env[n] = new

    def lower_q(self, q: Node) -> None:
        s, zp, qmin, qmax, dt = q.args[1:6]
        if QRANGE.get(dt) != (qmin, qmax) or (dt == torch.int16 and zp != 0):
            raise ValueError(f"int8 lowering: unsupported quantize {q.format_node()}")
        if q in self.rnn:
            from aot.compiler.quant import recurrent
            v = recurrent.lower_q(self, q)
            if v is not None:
                tag(v.node, q.name, v.perm)
                self.qv[q] = v
            return
        if q in self.plans:
            pattern, site = self.plans[q]
            core, act = site.core, site.act
            # the PT2E nodes this group computes: weights/bias, op, activation, requantize
            params = [a for a in core.all_input_nodes  # weight / bias (dequantized constants)
                      if a.op == "get_attr" or (a.all_input_nodes
                                                and all(b.op == "get_attr" for b in a.all_input_nodes))]
            self.fusing = [a.name for a in params] + [core.name] + ([act.name] if act is not None else []) + [q.name]
            self.pattern = pattern
            try:
                v = pattern.emit(self, site)
            finally:
                self.fusing, self.pattern = None, None
            v.qname = q.name
            v.qmin, v.qmax, v.dtype = qmin, qmax, dt
            tag(v.node, q.name, v.perm)
            self.qv[q] = v
            return
        src = q.args[0]
        if src.op == "call_function" and src.target == aten.copy_.default \
                and getattr(src.args[0], "target", None) in self.int8_state and src.args[1].args[0] in self.qv:
            # an int8 state read back after its write (``buf.copy_(w); f(buf)``): the value written
            v = self.qv[src.args[1].args[0]]
            if (v.scale, v.zp) == (float(s), int(zp)):
                self.qv[q] = QVal(v.node, v.shape, v.perm, v.scale, v.zp, qmin, qmax, q.name, dt)
                return
        shape = self.shape(src)
        if self.int8_io and src.op == "placeholder":
            if any(u is not q for u in src.users):
                raise ValueError(f"int8_io: input {src.name} is also used in fp32")
            node = self.env[src]
            self.input_q[src.name] = (float(s), int(zp))
        else:
            self.fusing = [q.name]
            try:
                node = self.call(Q, (self.float_of(src), float(s), int(zp), qmin, qmax, dt), src)
            finally:
                self.fusing = None
        self.qv[q] = QVal(node, shape, tuple(range(len(shape))), float(s), int(zp), qmin, qmax, q.name, dt)
        tag(node, q.name, self.qv[q].perm)

    def map_output(self, a):
        if isinstance(a, (list, tuple)):
            return type(a)(self.map_output(x) for x in a)
        if isinstance(a, Node):
            v = self.dq_src(a)
            if v is not None:
                if self.int8_io:
                    self.output_qparams.append((v.scale, v.zp))
                    return self.plain(v)
                self.output_qparams.append((v.scale, v.zp))
            return self.float_of(a)
        return a


def lower_int8(gm, example_inputs: Sequence[torch.Tensor], int8_io: bool = False) -> GraphModule:
    """Rewrite a ``convert_pt2e`` GraphModule into ``mote::`` int8 ops.

    gm: the converted GraphModule (or an ExportedProgram of it);
    example_inputs: fp32 inputs (shapes are propagated with them where the
    graph lacks static shapes);
    int8_io: keep program inputs/outputs int8 (NCHW, as the model's own
    layout; their qparams are in ``result.meta["mote_int8"]``).
    Returns a GraphModule of aten / quantized_decomposed / mote ops whose
    constants (packed weights, int32 bias, multipliers, shifts) are buffers;
    it runs eagerly (mote ops execute :mod:`aot.compiler.quant.int8ref`) and exports with
    ``torch.export``. Emits :class:`Int8FallbackWarning` per op kept in fp32.
    """
    if isinstance(gm, torch.export.ExportedProgram):
        gm = gm.module(check_guards=False)
    return Lowering(gm, tuple(example_inputs), int8_io).run()


def int8_program(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
                 calibration=None, int8_io: bool = False,
                 converted=None) -> torch.export.ExportedProgram:
    """quantize (PT2E) -> lower_int8 -> ``torch.export.export``.

    calibration: see :func:`aot.compiler.quant.pt2e.quantize`; ``converted``: the
    result of that call when the caller already has it (PT2E then does not run
    again; the converted module is not modified). With ``int8_io`` the
    program's inputs are int8 (NCHW; the example inputs are quantized with the
    input qparams) and its outputs int8; the (scale, zero_point) pairs are in
    ``ep.graph_module.meta["mote_int8"]`` (an :class:`Int8Info`).
    Returns the ExportedProgram, ready for the generic lowering.
    """
    if converted is None:
        from aot.compiler.quant.pt2e import quantize
        converted, _ = quantize(module, example_inputs, calibration)
    lowered = lower_int8(converted, example_inputs, int8_io=int8_io)
    inputs = tuple(example_inputs)
    info: Int8Info = lowered.meta["mote_int8"]
    if int8_io:
        inputs = tuple(
            x if qp is None else torch.clamp(torch.round(x / qp[0]) + qp[1], -128, 127).to(torch.int8)
            for x, qp in zip(inputs, info.input_qparams))
    ep = torch.export.export(lowered, inputs, strict=False)
    ep.graph_module.meta["mote_int8"] = info
    return ep


def quantized_program(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor], calibration,
                      model_path, int8_io: bool = False, int4_linear: bool = False,
                      int16: bool = False) -> tuple:
    """What ``--int8`` compiles: PT2E once with :class:`MoteQuantizer` for the
    scheme (int4_linear: --int8 --int4-weights, Linear weights int4 per channel,
    mote::linear_s4; int16: --int16-activations, conv / linear with int16
    activations, mote::*_s16), then :func:`int8_program`. calibration: see
    :func:`aot.compiler.quant.pt2e.quantize` (None: an Int8CalibrationWarning at
    ``model_path``). Returns (ExportedProgram, :class:`Int8Info`, the converted
    module): PT2E's module is both the reference the device must match and the
    input of the lowering (which copies it)."""
    from aot.compiler.quant.annotate import MoteQuantizer
    from aot.compiler.quant.pt2e import Int8CalibrationWarning, quantize
    if calibration is None:
        warnings.warn_explicit("int8: no calibration data (no --calib, no calibration_data() in the "
                               "model file): quantization ranges come from the example inputs alone",
                               Int8CalibrationWarning, filename=str(model_path), lineno=1, module="mote.int8")
    converted, _ = quantize(module, example_inputs, calibration,
                            MoteQuantizer(int4_linear=int4_linear, int16_activations=int16))
    ep = int8_program(module, example_inputs, int8_io=int8_io, converted=converted)
    return ep, ep.graph_module.meta.get("mote_int8"), converted
