"""int8 recurrent cells: nn.LSTM / nn.GRU (unidirectional, any number of layers)
and nn.LSTMCell / nn.GRUCell as PT2E sees them, quantized in the scheme of
``docs/quantization.md`` ("Recurrent cells") and lowered to one
``mote::lstm_cell_s8`` / ``mote::gru_cell_s8`` per time step
(:mod:`aot.compiler.quant.recurrentref` is their arithmetic).

Three steps, one per compiler stage:

- :func:`decompose_recurrent` (before PT2E annotates the exported graph):
  ``aten.lstm.input`` / ``gru.input`` / ``lstm_cell`` / ``gru_cell`` become
  their per-step equations in ATen ops (linear, add, slice, sigmoid, tanh, mul),
  each node tagged ``meta[RNN_KEY] = (kind, cell, step, role)``;
- :func:`annotate` (MoteQuantizer, for tagged nodes): int8 input and hidden
  state (one scale for every step of a cell), int8 per-row weights, int32 bias,
  gate pre-activations int16 at 2^-12, sigmoid / tanh outputs int16 at 2^-15,
  LSTM cell state int16 at a power-of-two scale (:class:`PowerOfTwoObserver`);
  PT2E's converted graph (the reference) then rounds where the kernels round;
- :func:`plan` / :func:`lower_q` (the int8 lowering): each step's group becomes
  one cell op reading the int8 input, hidden (and int16 cell) values of the
  lowering; constants are made once per cell.

Bidirectional layers, projections (proj_size) and unbatched sequences are left
to torch's decomposition (fp32, reported by the --int8 summary).
"""
from __future__ import annotations

import math
import operator
from typing import Optional

import numpy as np
import torch
from torch.fx import GraphModule, Node

from aot.compiler.quant import recurrentref as R
from aot.compiler.source import copy_source_meta

aten = torch.ops.aten

#: node meta key of the tags: (kind "lstm" / "gru", cell id, step index, role)
RNN_KEY = "mote_rnn"
#: roles whose node the lowering keeps as it is (sequence steps, initial states, output stacking)
KEEP_ROLES = frozenset({"x", "h0", "c0", "out"})
#: why a recurrent layer stays fp32 (the --int8 summary's reason)
REFUSED = "int8 recurrent cells take unidirectional, batched layers without proj_size"

__all__ = ["decompose_recurrent", "annotate", "plan", "lower_q", "PowerOfTwoObserver",
           "RNN_KEY", "REFUSED"]


# ----------------------------------------------------------------------------- decomposition

class _Builder:
    """Adds tagged nodes before `anchor`, each with its fake value."""

    def __init__(self, gm: GraphModule, anchor: Node, kind: str, cell: str):
        self.gm, self.g, self.anchor = gm, gm.graph, anchor
        self.kind, self.cell, self.step = kind, cell, 0
        self.mode = next(a.meta["val"].fake_mode for a in anchor.all_input_nodes
                         if isinstance(a.meta.get("val"), torch.Tensor))

    def __call__(self, target, args, role: str) -> Node:
        with self.g.inserting_before(self.anchor):
            n = self.g.call_function(target, tuple(args))
        vals = [a.meta["val"] if isinstance(a, Node) else
                [x.meta["val"] if isinstance(x, Node) else x for x in a] if isinstance(a, list) else a
                for a in args]
        with self.mode:
            n.meta["val"] = target(*vals)
        copy_source_meta(n, self.anchor)
        n.meta[RNN_KEY] = (self.kind, self.cell, self.step, role)
        return n


def _lstm_step(b: _Builder, x: Node, h: Node, c: Node, w: tuple) -> tuple:
    """torch's LSTM equations for one step: (h', c')."""
    w_ih, w_hh, b_ih, b_hh = w
    hid = int(w_hh.meta["val"].shape[1])
    gx = b(aten.linear.default, (x, w_ih, b_ih), "gx")
    gh = b(aten.linear.default, (h, w_hh, b_hh), "gh")
    g = b(aten.add.Tensor, (gx, gh), "gates")
    parts = [b(aten.slice.Tensor, (g, 1, j * hid, (j + 1) * hid), "gate_slice") for j in range(4)]
    i, f, o = (b(aten.sigmoid.default, (parts[j],), "gate_act") for j in (0, 1, 3))
    gg = b(aten.tanh.default, (parts[2],), "gate_act")
    fc = b(aten.mul.Tensor, (f, c), "cell_mul")
    ig = b(aten.mul.Tensor, (i, gg), "cell_mul")
    c2 = b(aten.add.Tensor, (fc, ig), "cell")
    tc = b(aten.tanh.default, (c2,), "cell_tanh")
    h2 = b(aten.mul.Tensor, (o, tc), "hidden")
    b.step += 1
    return h2, c2


def _gru_step(b: _Builder, x: Node, h: Node, w: tuple) -> Node:
    """torch's GRU equations for one step: h'."""
    w_ih, w_hh, b_ih, b_hh = w
    hid = int(w_hh.meta["val"].shape[1])
    gx = b(aten.linear.default, (x, w_ih, b_ih), "gx")
    gh = b(aten.linear.default, (h, w_hh, b_hh), "gh")
    xs = [b(aten.slice.Tensor, (gx, 1, j * hid, (j + 1) * hid), "gate_slice") for j in range(3)]
    hs = [b(aten.slice.Tensor, (gh, 1, j * hid, (j + 1) * hid), "gate_slice") for j in range(3)]
    r, z = (b(aten.sigmoid.default, (b(aten.add.Tensor, (xs[j], hs[j]), "gates"),), "gate_act") for j in (0, 1))
    rn = b(aten.mul.Tensor, (r, hs[2]), "n_mul")
    n = b(aten.tanh.default, (b(aten.add.Tensor, (xs[2], rn), "gates"),), "gate_act")
    h2 = b(aten.add.Tensor, (b(aten.mul.Tensor, (b(aten.rsub.Scalar, (z, 1), "mix"), n), "mix"),
                             b(aten.mul.Tensor, (z, h), "mix_h")), "hidden")
    b.step += 1
    return h2


def _stack(b: _Builder, xs: list, dim: int) -> Node:
    us = [b(aten.unsqueeze.default, (x, dim), "out") for x in xs]
    return us[0] if len(us) == 1 else b(aten.cat.default, (us, dim), "out")


def _layer_weights(params: list, layer: int, biases: bool) -> Optional[tuple]:
    per = 4 if biases else 2
    w = params[layer * per:(layer + 1) * per]
    return (w[0], w[1], w[2], w[3]) if biases else (w[0], w[1], None, None)


def _rnn_args(n: Node) -> Optional[dict]:
    """The arguments of an aten.lstm.input / gru.input `n` this module decomposes, else None."""
    names = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
             "bidirectional", "batch_first")
    a = dict(zip(names, n.args))
    x = a["input"].meta.get("val")
    per = 4 if a["has_biases"] else 2
    if a["bidirectional"] or a["train"] or x is None or x.dim() != 3 \
            or len(a["params"]) != per * int(a["num_layers"]):
        return None
    return a


def _replace_outputs(n: Node, outs: list) -> None:
    """Point the users of `n`'s outputs at `outs` and erase `n` (the graph's
    dead-code pass keeps it: torch tags the recurrent ops nondeterministic)."""
    g = n.graph
    for u in list(n.users):
        if u.target is operator.getitem and u.args[1] < len(outs) and outs[u.args[1]] is not None:
            u.replace_all_uses_with(outs[u.args[1]])
        if not u.users:
            g.erase_node(u)
    if not n.users:
        g.erase_node(n)


def _refuse(n: Node) -> bool:
    """Warn (Int8FallbackWarning, at the model's file:line) that `n` stays fp32."""
    import warnings
    from aot.compiler.quant.observers import Int8FallbackWarning
    from aot.compiler.source import source_location, source_of
    name = str(n.target).split(".")[1] if "." in str(n.target) else str(n.target)
    msg = f"mote int8: {name} ({source_of(n) or n.name}) runs in fp32: {REFUSED}"
    loc = source_location(n)
    if loc is None:
        warnings.warn(msg, Int8FallbackWarning, stacklevel=4)
    else:
        warnings.warn_explicit(msg, Int8FallbackWarning, filename=loc[0], lineno=loc[1], module="mote.int8")
    return False


def _decompose_layers(gm: GraphModule, n: Node, kind: str, k: int) -> bool:
    a = _rnn_args(n)
    if a is None:
        return _refuse(n)
    x, layers, tdim = a["input"], int(a["num_layers"]), 1 if a["batch_first"] else 0
    steps = int(x.meta["val"].shape[tdim])
    used = {u.args[1] for u in n.users if u.target is operator.getitem and u.users}
    hs, cs, seq = [], [], None
    for layer in range(layers):
        w = _layer_weights(a["params"], layer, a["has_biases"])
        b = _Builder(gm, n, kind, f"{kind}{k}.l{layer}")
        if kind == "lstm":
            h = b(aten.select.int, (a["hx"][0], 0, layer), "h0")
            c = b(aten.select.int, (a["hx"][1], 0, layer), "c0")
        else:
            h = b(aten.select.int, (a["hx"], 0, layer), "h0")
        out = []
        for t in range(steps):
            xt = b(aten.select.int, (x, tdim, t), "x") if seq is None else seq[t]
            if kind == "lstm":
                h, c = _lstm_step(b, xt, h, c, w)
            else:
                h = _gru_step(b, xt, h, w)
            out.append(h)
        seq = out
        hs.append(h)
        if kind == "lstm":
            cs.append(c)
    y = _stack(b, seq, tdim) if 0 in used else None
    h_n = _stack(b, hs, 0) if 1 in used else None
    c_n = _stack(b, cs, 0) if kind == "lstm" and 2 in used else None
    _replace_outputs(n, [y, h_n, c_n])
    return True


def _decompose_cell(gm: GraphModule, n: Node, kind: str, cells: dict) -> bool:
    x = n.args[0]
    xv = x.meta.get("val")
    if xv is None or xv.dim() != 2:
        return _refuse(n)
    w = tuple(n.args[2:6]) + (None,) * (6 - len(n.args))
    key = (kind, w[0])
    cell = cells.setdefault(key, f"{kind}cell{len(cells)}")
    b = _Builder(gm, n, kind, cell)
    b.step = sum(1 for m in gm.graph.nodes if m.meta.get(RNN_KEY, (0, None))[1] == cell
                 and m.meta[RNN_KEY][3] == "gx")
    if kind == "lstm":
        h, c = _lstm_step(b, x, n.args[1][0], n.args[1][1], w)
        _replace_outputs(n, [h, c])
    else:
        hx = n.args[1]
        if hx is None:
            hx = b(aten.zeros.default, ([int(xv.shape[0]), int(w[1].meta["val"].shape[1])],), "h0")
        n.replace_all_uses_with(_gru_step(b, x, hx, w))
        n.graph.erase_node(n)
    return True


def decompose_recurrent(gm: GraphModule) -> int:
    """Rewrite the recurrent ops of `gm` in place into their tagged per-step
    equations; returns how many were rewritten. A layer outside the int8 cells'
    contract (bidirectional, proj_size, unbatched) is left as it is."""
    done, cells = 0, {}
    targets = {aten.lstm.input: "lstm", aten.gru.input: "gru",
               aten.lstm_cell.default: "lstm", aten.gru_cell.default: "gru"}
    for n in list(gm.graph.nodes):
        kind = targets.get(n.target) if n.op == "call_function" else None
        if kind is None:
            continue
        if n.target in (aten.lstm.input, aten.gru.input):
            ok = _decompose_layers(gm, n, kind, done)
        else:
            ok = _decompose_cell(gm, n, kind, cells)
        if ok:
            gm.graph.eliminate_dead_code()
            done += 1
    if done:
        gm.graph.lint()
        gm.recompile()
    return done


# ----------------------------------------------------------------------------- annotation

def _pow2_scale(scale: float) -> float:
    """The smallest power of two >= scale that is a cell scale (2^-15 .. 1)."""
    k = math.floor(-math.log2(max(float(scale), 2.0 ** -30)))
    return 2.0 ** -min(max(k, R.CELL_FRAC_RANGE[0]), R.CELL_FRAC_RANGE[1])


def _fixed16(scale: float):
    from torchao.quantization.pt2e.quantizer import FixedQParamsQuantizationSpec
    return FixedQParamsQuantizationSpec(dtype=torch.int16, scale=scale, zero_point=0, quant_min=-32768,
                                        quant_max=32767, qscheme=torch.per_tensor_symmetric)


def _cell_qspec():
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    return QuantizationSpec(dtype=torch.int16, quant_min=-32768, quant_max=32767,
                            qscheme=torch.per_tensor_symmetric,
                            observer_or_fake_quant_ctr=PowerOfTwoObserver.with_args(eps=2 ** -20))


def _make_pow2_observer():
    from aot.compiler.quant.observers import FiniteMinMaxObserver

    class PowerOfTwoObserver(FiniteMinMaxObserver):
        """int16 symmetric observer whose scale is rounded up to a power of two
        2^-k, k in [0, 15]: the LSTM cell state's scale (the kernels shift by k)."""

        def calculate_qparams(self):
            scale, zp = super().calculate_qparams()
            return torch.full_like(scale, _pow2_scale(float(scale.reshape(-1)[0]))), zp
    return PowerOfTwoObserver


PowerOfTwoObserver = _make_pow2_observer()


def _steps(gm: GraphModule) -> dict:
    """{(cell, step): {role: [nodes]}} of the tagged nodes, in graph order."""
    out: dict = {}
    for n in gm.graph.nodes:
        tag = n.meta.get(RNN_KEY)
        if tag is not None:
            out.setdefault((tag[1], tag[2]), {"kind": tag[0]}).setdefault(tag[3], []).append(n)
    return out


def annotate(gm: GraphModule, act, wq, set_fn, bias_fn) -> None:
    """Annotate every tagged node of `gm` (before the table of rules sees it):
    see the module docstring. set_fn(node, inputs, output) and bias_fn(x, w,
    node) are MoteQuantizer's. Input edges take `act`, which PT2E shares with
    a producer whose output has the same spec (a select of the sequence, the
    previous layer's hidden state): one scale for every step."""
    from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec
    steps = _steps(gm)
    first: dict = {}
    for (cell, t), roles in steps.items():
        if "gx" in roles:
            gx, gh = roles["gx"][0], roles["gh"][0]
            h = gh.args[0]
            fc = [n for n in roles.get("cell_mul", ()) if n.args[1] not in roles["gate_act"]]
            f = first.setdefault(cell, {"h": (h, gh), "c": (fc[0].args[1], fc[0]) if fc else None})
            hspec = act if f["h"] == (h, gh) else SharedQuantizationSpec(f["h"])
            for node, inp in ((gx, act), (gh, hspec)):
                spec = {node.args[0]: inp, node.args[1]: wq}
                if len(node.args) > 2 and isinstance(node.args[2], Node):
                    spec[node.args[2]] = bias_fn(node.args[0], node.args[1], node)
                set_fn(node, spec, None)
        f = first[cell]
        hshare = SharedQuantizationSpec(f["h"])
        for role, nodes in roles.items():
            if role in ("kind", "gx", "gh"):
                continue
            for n in nodes:
                if role == "gates":
                    set_fn(n, {}, _fixed16(2.0 ** -R.GATE_FRAC_BITS))
                elif role in ("gate_act", "cell_tanh"):
                    set_fn(n, {}, _fixed16(2.0 ** -15))
                elif role == "cell":
                    set_fn(n, {}, SharedQuantizationSpec(f["c"]))
                elif role == "cell_mul" and n.args[1] not in roles.get("gate_act", ()):
                    # f * c: c on the cell grid (the first step's edge holds the observer)
                    set_fn(n, {n.args[1]: _cell_qspec() if f["c"] == (n.args[1], n)
                               else SharedQuantizationSpec(f["c"])}, None)
                elif role == "mix_h":
                    set_fn(n, {n.args[1]: hshare}, None)                          # z * h: h on its int8 grid
                elif role == "x":  # a step of the sequence: shares the sequence's qparams
                    set_fn(n, {n.args[0]: act}, SharedQuantizationSpec((n.args[0], n)))
                elif role == "hidden":
                    set_fn(n, {}, hshare)
                elif role == "out" and n.target == aten.unsqueeze.default:
                    src = n.args[0]
                    share = SharedQuantizationSpec(src) if src.meta.get(RNN_KEY, ())[3:] == ("hidden",) else None
                    if share is not None:
                        set_fn(n, {src: share}, SharedQuantizationSpec(src))
                    else:
                        set_fn(n, {}, None)
                elif role == "out":  # cat of the unsqueezed steps / layers
                    xs = list(n.args[0])
                    if xs[0].meta.get(RNN_KEY, ())[3:] == ("out",) and \
                            xs[0].args[0].meta.get(RNN_KEY, ())[3:] == ("hidden",):
                        set_fn(n, {x: SharedQuantizationSpec(x) for x in xs}, SharedQuantizationSpec(xs[0]))
                    else:
                        set_fn(n, {}, None)
                else:
                    set_fn(n, {}, None)


# ----------------------------------------------------------------------------- lowering

def _q_of(n: Node) -> Optional[Node]:
    from aot.compiler.quant.patterns.base import Q
    return next((u for u in n.users if u.op == "call_function" and u.target == Q), None)


def _q_behind(dq) -> Optional[Node]:
    """The quantize node behind dequantize `dq` (None if `dq` is no such node)."""
    from aot.compiler.quant.patterns.base import DQ, Q
    if isinstance(dq, Node) and dq.op == "call_function" and dq.target == DQ \
            and isinstance(dq.args[0], Node) and dq.args[0].target == Q:
        return dq.args[0]
    return None


class _Step:
    """One planned cell step of the PT2E graph: its nodes by role and the
    quantize nodes of its inputs and outputs."""

    def __init__(self, kind: str, roles: dict):
        self.kind, self.roles = kind, roles
        self.gx, self.gh = roles["gx"][0], roles["gh"][0]
        self.qx, self.qh = _q_behind(self.gx.args[0]), _q_behind(self.gh.args[0])
        self.out_h = _q_of(roles["hidden"][0])
        self.qc = self.out_c = None
        if kind == "lstm":
            fc = next(n for n in roles["cell_mul"] if n.args[1] not in roles["gate_act"])
            self.qc = _q_behind(fc.args[1])
            self.out_c = _q_of(roles["cell"][0])
        self.pending = None

    def ok(self) -> bool:
        qs = [self.qx, self.qh, self.out_h] + ([self.qc, self.out_c] if self.kind == "lstm" else [])
        if any(q is None for q in qs):
            return False
        if tuple(self.qh.args[1:6]) != tuple(self.out_h.args[1:6]) or self.out_h.args[5] != torch.int8 \
                or self.qx.args[5] != torch.int8:
            return False
        if self.kind == "lstm":
            try:
                R.cell_frac_bits(float(self.out_c.args[1]))
            except ValueError:
                return False
            return tuple(self.qc.args[1:6]) == tuple(self.out_c.args[1:6])
        return True


def plan(lw) -> None:
    """Plan the cell steps of the PT2E graph of lowering `lw`: ``lw.rnn`` maps
    each step's output quantize nodes to (step, "h" / "c"), its internal
    quantize nodes to (step, None); its ops join ``lw.absorbed``. A cell whose
    weights or qparams the kernels do not take stays as it is (fp32 ops)."""
    lw.rnn, lw.rnn_consts = {}, {}
    by_cell: dict = {}
    for (cell, t), roles in _steps(lw.gm).items():
        if "gx" in roles and "hidden" in roles:
            by_cell.setdefault(cell, []).append(_Step(roles["kind"], roles))
    for cell, steps in by_cell.items():
        if not all(s.ok() and _consts(lw, s, dry=True) for s in steps):
            continue
        for s in steps:
            for role, nodes in s.roles.items():
                if role in KEEP_ROLES or role == "kind":
                    continue
                for n in nodes:
                    lw.absorbed.add(n)
                    q = _q_of(n)
                    if q is not None:
                        lw.rnn[q] = (s, None)
            lw.rnn[s.out_h] = (s, "h")
            if s.out_c is not None:
                lw.rnn[s.out_c] = (s, "c")


def _consts(lw, s: _Step, dry: bool = False):
    """The cell's constant nodes (weights, bias, multipliers, shifts, tables), made
    once per set of qparams; dry: only whether they can be made."""
    from aot.compiler.quant.int8ref import quantize_multiplier
    from aot.compiler.quant.patterns.conv import int32_bias, weight
    sx, zx = float(s.qx.args[1]), int(s.qx.args[2])
    sh, zh = float(s.qh.args[1]), int(s.qh.args[2])
    ws = [weight(lw, s.gx.args[1]), weight(lw, s.gh.args[1])]
    if any(w is None for w in ws):
        return None
    bias, mult, shift = [], [], []
    for node, (wq, wsc), si, zi in ((s.gx, ws[0], sx, zx), (s.gh, ws[1], sh, zh)):
        rows = wq.shape[0]
        b = int32_bias(lw, node.args[2] if len(node.args) > 2 else None, si * wsc, rows).to(torch.int64)
        b = b - zi * wq.to(torch.int64).sum(dim=1)
        if bool((b.abs() > R.BIAS_MAX).any()) or wq.shape[1] > R.TAPS_MAX:
            return None
        ms = []
        for c in wsc.tolist():
            try:
                m, e = quantize_multiplier(si * c * 2.0 ** R.ACC_FRAC_BITS)
            except ValueError:
                return None
            ms.append((m, e))
        bias.append(b)
        mult.append([m for m, _ in ms])
        shift.append([e for _, e in ms])
    hm, hs = quantize_multiplier((2.0 ** -30 if s.kind == "lstm" else 2.0 ** -15) / sh)
    if hs < -31:
        return None
    if dry:
        return True
    bias = torch.stack(bias).to(torch.int32)
    # PT2E gives every step its own copy of the weights: one set of constants per content
    key = (s.kind, sx, zx, sh, zh, hm, hs) + tuple(t.numpy().tobytes() for t in (ws[0][0], ws[1][0], bias))
    if key in lw.rnn_consts:
        return lw.rnn_consts[key]
    c = dict(w_ih=lw.const(ws[0][0], "rnn_w_ih"), w_hh=lw.const(ws[1][0], "rnn_w_hh"),
             bias=lw.const(bias, "rnn_bias"),
             mult=lw.const(torch.tensor(mult, dtype=torch.int32), "rnn_multiplier"),
             shift=lw.const(torch.tensor(shift, dtype=torch.int32), "rnn_shift"),
             hm=hm, hs=hs, zh=zh)
    if "table" not in lw.rnn_consts:
        lw.rnn_consts["table"] = lw.const(torch.from_numpy(R.activation_tables()), "rnn_table")
    c["table"] = lw.rnn_consts["table"]
    lw.rnn_consts[key] = c
    return c


#: the mote:: ops the recurrent lowering emits (its declaration, beside the patterns'
#: ``emits``: tests/compiler/test_quant_patterns.py holds every mote:: op to one declaration)
EMITS = ("mote::lstm_cell_s8", "mote::gru_cell_s8")


def _cell_op(name: str):
    """``torch.ops.mote.<name>.default`` for a cell op EMITS declares."""
    from aot.compiler import mote_ops
    if f"mote::{name}" not in EMITS:
        raise AssertionError(f"the recurrent lowering emits mote::{name} but does not declare it")
    return mote_ops.op(name)


def lower_q(lw, q: Node):
    """The QVal for quantize node `q` of a planned step (emitting the step's cell
    op on its first output), or None for a quantize inside the step."""
    from aot.compiler.quant.values import QVal, tag
    s, which = lw.rnn[q]
    if which is None:
        return None
    if s.pending is None:
        c = _consts(lw, s)
        x, h = lw.qv[s.qx], lw.qv[s.qh]
        src = s.roles["hidden"][0]
        if s.kind == "lstm":
            cell = lw.qv[s.qc]
            args = (lw.plain(x), lw.plain(h), lw.plain(cell), c["w_ih"], c["w_hh"], c["bias"], c["mult"],
                    c["shift"], c["table"], R.cell_frac_bits(float(s.out_c.args[1])), c["zh"], c["hm"], c["hs"])
            node = lw.call(_cell_op("lstm_cell_s8"), args, src)
            tag(node, s.out_h.name, (0, 1))  # the op's first output (aot debug compares it with PT2E)
            hn = lw.g.call_function(operator.getitem, (node, 0))
            cn = lw.g.call_function(operator.getitem, (node, 1))
            s.pending = {"h": (hn, s.out_h, torch.int8), "c": (cn, s.out_c, torch.int16)}
        else:
            args = (lw.plain(x), lw.plain(h), c["w_ih"], c["w_hh"], c["bias"], c["mult"], c["shift"],
                    c["table"], c["zh"], c["hm"], c["hs"])
            s.pending = {"h": (lw.call(_cell_op("gru_cell_s8"), args, src), s.out_h, torch.int8)}
    node, qn, dt = s.pending[which]
    shape = tuple(int(d) for d in lw.shape(qn.args[0]))
    lo, hi = (-128, 127) if dt == torch.int8 else (-32768, 32767)
    return QVal(node, shape, tuple(range(len(shape))), float(qn.args[1]), int(qn.args[2]), lo, hi, qn.name, dt)
