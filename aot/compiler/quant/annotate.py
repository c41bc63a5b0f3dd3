"""How Mote's quantizer annotates an exported graph for PT2E (torchao):
:class:`MoteQuantizer` and its table of rules (:data:`RULES`, :data:`RULES_INT16`).

:class:`MoteQuantizer` annotates an exported graph for the TFLite / CMSIS-NN
int8 scheme of ``docs/int8-ops.md``:

- activations: int8 per tensor, affine (zero point), range [-128, 127];
- weights of conv / depthwise conv / linear: int8 symmetric per output channel
  (axis 0; [-127, 127], zero point 0); of conv_transpose2d: axis 1 of
  [Cin, Cout/groups, kh, kw] (one scale per output channel of a group);
- bias: int32, scale = input_scale * weight_scale[c] (derived), zero point 0;
- conv/linear/add followed by relu / relu6 / hardtanh: one output observer
  *after* the activation (the activation fuses into the int8 op's clamp);
- BatchNorm that does not follow a convolution (DenseNet's BN -> ReLU -> conv):
  own input observer, output observed after a fused relu (the lowering runs it
  as a 1x1 depthwise convolution);
- pooling, cat, flatten/view/reshape/permute, pad, slice, nearest / bilinear
  upsampling: output shares the qparams of the input (cat: all inputs share one set);
- mean / adaptive average pool, add, mul, scalar arithmetic: own output
  observer;
- elementwise activations (LUT_OPS: sigmoid, tanh, hardswish, hardsigmoid,
  GELU, SiLU, ELU, LeakyReLU, ...): own input and output observers; the int8
  lowering turns each into a 256-entry lookup table (``mote::lut_s8``);
- softmax: own input observer, output with the fixed qparams scale 1/256, zero
  point -128 (``FixedQParamsQuantizationSpec``; the TFLite int8 softmax
  convention that ``mote::softmax_s8`` produces);
- matmul / bmm of two activations (attention): both operands activation-quantized,
  own output observer; a multiplication / division by a positive Python number
  right after it (attention's 1/sqrt(d)) carries the output observer instead, so
  the lowering folds the constant into ``mote::bmm_s8``'s requantize multiplier;
- recurrent cells (nn.LSTM / nn.GRU / LSTMCell / GRUCell, unrolled by
  aot.compiler.quant.recurrent.decompose_recurrent): int8 input and hidden state,
  int8 per-row weights, int16 gates and cell state (aot.compiler.quant.recurrent.annotate);
- an audio front end (an FFT, the scaling and window before it, the
  magnitude / power, mel product and log after it): a planned fp32 island
  read as it comes and quantized once, after the log (:func:`_front_end_chain`);
- model state: a buffer written back from a value (``buf.copy_(v)``) is int8 at
  v's qparams; a window ``cat([buf, new])`` whose result (or a slice of it) is
  written back into buf shares new's qparams with the buffer and its output,
  so the sliding window runs on int8 (:func:`_window_cat`);
- masked_fill(x, mask, -inf) read only by a softmax (a causal mask): the pair is
  a planned fp32 island (scores quantized before, probabilities after), so masked
  positions get exactly 0; masked_fill with another constant: output shares the
  qparams of its input. Activation observers ignore non-finite values.

Each op kind is one :class:`Rule` (the ops it covers, when it applies, the
observers it sets); the first rule that applies to a node annotates it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import torch
from torch.fx import GraphModule, Node

from aot.compiler.quant.opsets import (BATCH_NORM_OPS, BINARY_OPS, CAT_OPS, CONV_OPS, CONV_TRANSPOSE_OPS,
                                        EMBEDDING_OPS, FFT_OPS, FP32_ISLAND_OPS, FRONT_END_POST_OPS,
                                        FRONT_END_PRE_OPS, LOG_OPS, VECTOR_NORM_OPS, FUSABLE_ACTS,
                                        INT16_SHARED_OPS, ISLAND_KEY, LINEAR_OPS,
                                        MASKED_FILL_OPS, MATMUL_OPS, MATMUL_SCALE_OPS,
                                        OWN_QPARAM_OPS, PRELU_OPS, SCALAR_OPS, SHARED_OPS, SOFTMAX_OPS)
from aot.compiler.quant.observers import FiniteMinMaxObserver
from aot.compiler.quant.state import state_constants
from torchao.quantization.pt2e import observer as _obs
from torchao.quantization.pt2e.fake_quantize import FakeQuantize
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    Quantizer,
    SharedQuantizationSpec,
)

__all__ = ["MoteQuantizer", "FiniteMinMaxObserver", "ANNOTATION_KEY", "RULES", "RULES_INT16"]

ANNOTATION_KEY = "quantization_annotation"

aten = torch.ops.aten

#: softmax output: scale 1/256, zero point -128 over [-128, 127] (TFLite int8 softmax)
SOFTMAX_OUT_QSPEC = FixedQParamsQuantizationSpec(
    dtype=torch.int8, scale=1.0 / 256.0, zero_point=-128, quant_min=-128, quant_max=127,
    qscheme=torch.per_tensor_affine)


# ----------------------------------------------------------------------------- qspecs

def _act_qspec(qat: bool) -> QuantizationSpec:
    if qat:
        ctr = FakeQuantize.with_args(observer=_obs.MovingAverageMinMaxObserver,
                                     quant_min=-128, quant_max=127, dtype=torch.int8,
                                     qscheme=torch.per_tensor_affine)
    else:
        ctr = FiniteMinMaxObserver.with_args(eps=2 ** -12)
    return QuantizationSpec(dtype=torch.int8, quant_min=-128, quant_max=127,
                            qscheme=torch.per_tensor_affine, observer_or_fake_quant_ctr=ctr)

def _act16_qspec() -> QuantizationSpec:
    """int16 activations, symmetric (zero point 0) over [-32768, 32767]: the
    int16x8 scheme of TFLite and CMSIS-NN's s16 kernels (scale = max|x| / 32767.5)."""
    return QuantizationSpec(dtype=torch.int16, quant_min=-32768, quant_max=32767,
                            qscheme=torch.per_tensor_symmetric,
                            observer_or_fake_quant_ctr=FiniteMinMaxObserver.with_args(eps=2 ** -20))


#: weight ranges: int8 [-127, 127] (symmetric, as TFLite); int4 [-8, 7] (CMSIS-NN's s4
#: weights; the scale is max|w| / 7.5, torchao's symmetric int4)
WEIGHT_RANGE = {8: (-127, 127), 4: (-8, 7)}


def _weight_qspec(qat: bool, ch_axis: int = 0, bits: int = 8) -> QuantizationSpec:
    lo, hi = WEIGHT_RANGE[bits]
    if qat:
        ctr = FakeQuantize.with_args(observer=_obs.MovingAveragePerChannelMinMaxObserver,
                                     quant_min=lo, quant_max=hi, dtype=torch.int8,
                                     qscheme=torch.per_channel_symmetric, ch_axis=ch_axis)
    else:
        ctr = _obs.PerChannelMinMaxObserver.with_args(eps=2 ** -12, quant_min=lo, quant_max=hi)
    return QuantizationSpec(dtype=torch.int8, quant_min=lo, quant_max=hi,
                            qscheme=torch.per_channel_symmetric, ch_axis=ch_axis,
                            observer_or_fake_quant_ctr=ctr)


def _derive_bias_qparams(obs_or_fqs):
    """bias scale[c] = input_scale * weight_scale[c]; zero point 0 (int32)."""
    act, wt = obs_or_fqs
    a_scale, _ = act.calculate_qparams()
    w_scale, _ = wt.calculate_qparams()
    scale = (a_scale.to(torch.float32) * w_scale.to(torch.float32)).reshape(-1)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _derive_bias_qparams_grouped(groups: int):
    """Transposed convolution: the weight has Cout/groups per-channel scales
    (axis 1 of [Cin, Cout/groups, kh, kw]); output channel c uses scale
    c % (Cout/groups), so the bias scale is input_scale * w_scale tiled per group."""
    def derive(obs_or_fqs):
        scale, _ = _derive_bias_qparams(obs_or_fqs)
        scale = scale.repeat(groups)
        return scale, torch.zeros_like(scale, dtype=torch.int32)
    return derive


def _bias_qspec(x: Node, w: Node, node: Node, groups: int = 0) -> DerivedQuantizationSpec:
    derive = _derive_bias_qparams_grouped(groups) if groups else _derive_bias_qparams
    return DerivedQuantizationSpec(
        derived_from=[(x, node), (w, node)], derive_qparams_fn=derive,
        dtype=torch.int32, quant_min=-(2 ** 31), quant_max=2 ** 31 - 1,
        qscheme=torch.per_channel_symmetric, ch_axis=0)


# ----------------------------------------------------------------------------- quantizer

def _annotated(n: Node) -> bool:
    a = n.meta.get(ANNOTATION_KEY)
    return a is not None and a._annotated


def _set(n: Node, inputs: dict, output) -> None:
    n.meta[ANNOTATION_KEY] = QuantizationAnnotation(input_qspec_map=inputs,
                                                    output_qspec=output, _annotated=True)


def _is_float_tensor(n) -> bool:
    if not isinstance(n, Node):
        return False
    v = n.meta.get("val")
    return isinstance(v, torch.Tensor) and v.is_floating_point()


def _numel(n) -> int:
    v = n.meta.get("val") if isinstance(n, Node) else None
    return int(v.numel()) if isinstance(v, torch.Tensor) else -1


def _island_name(target) -> str:
    name = getattr(target, "__name__", str(target)).split(".")[0]
    return name[len("native_"):] if name.startswith("native_") else name


def _only_user(n: Node):
    return next(iter(n.users)) if len(n.users) == 1 else None


def _normalize_chain(norm: Node) -> Optional[list]:
    """[vector_norm, clamp_min(, expand_as), div] when ``norm`` = vector_norm(x, ord,
    dim, keepdim=True) starts F.normalize's x / clamp_min(norm, eps).expand_as(x) over
    float x with nothing else reading the intermediates (none annotated yet); else None."""
    x = norm.args[0]
    keepdim = norm.args[3] if len(norm.args) > 3 else norm.kwargs.get("keepdim", False)
    if not (_is_float_tensor(x) and keepdim):
        return None
    clamp = _only_user(norm)
    if clamp is None or clamp.target != aten.clamp_min.default or isinstance(clamp.args[1], Node):
        return None
    chain, last = [norm, clamp], _only_user(clamp)
    if last is not None and last.target == aten.expand_as.default and last.args[0] is clamp:
        chain.append(last)
        last = _only_user(last)
    if last is None or last.target != aten.div.Tensor or last.args[0] is not x or last.args[1] is not chain[-1]:
        return None
    chain.append(last)
    return None if any(_annotated(c) for c in chain) else chain


def _rms_norm_chain(pw: Node) -> Optional[list]:
    """[pow, mean, add, rsqrt, mul(x, r)(, mul(., weight))] when ``pw`` =
    pow(x, 2) starts RMSNorm's x * rsqrt(mean(x^2, -1, keepdim) + eps) [* w]
    over float x with nothing else reading the intermediates; else None."""
    x = pw.args[0]
    if not (_is_float_tensor(x) and len(pw.args) > 1 and pw.args[1] == 2):
        return None
    mean = _only_user(pw)
    if mean is None or mean.target != aten.mean.dim or not (
            len(mean.args) > 2 and mean.args[2] or mean.kwargs.get("keepdim")):
        return None
    add = _only_user(mean)
    if add is None or add.target != aten.add.Tensor or isinstance(add.args[1], Node):
        return None
    rs = _only_user(add)
    if rs is None or rs.target != aten.rsqrt.default:
        return None
    mul = _only_user(rs)
    if mul is None or mul.target != aten.mul.Tensor or set(mul.args[:2]) != {x, rs}:
        return None
    chain = [pw, mean, add, rs, mul]
    w = _only_user(mul)
    if w is not None and w.target == aten.mul.Tensor and not _annotated(w):
        other = w.args[1] if w.args[0] is mul else w.args[0]
        if isinstance(other, Node) and other.op == "get_attr":
            chain.append(w)
    if any(_annotated(c) for c in chain):
        return None
    return chain


def _masked_softmax(n: Node) -> Optional[Node]:
    """The softmax that alone reads ``n`` = masked_fill(float x, mask, -inf or +-inf/nan), else None."""
    if not (_is_float_tensor(n.args[0]) and len(n.args) > 2 and isinstance(n.args[2], (int, float))
            and not np.isfinite(float(n.args[2]))):
        return None
    sm = _only_user(n)
    if sm is None or sm.target not in SOFTMAX_OPS or sm.args[0] is not n or _annotated(sm):
        return None
    return sm


def _constant(a, state: set) -> bool:
    """A Python number or a constant tensor (a get_attr that is not model state)."""
    return not isinstance(a, Node) or (a.op == "get_attr" and a not in state)


def _data_arg(n: Node, state: set) -> Optional[Node]:
    """The one argument of `n` that is not a constant (its data), else None."""
    xs = [a for a in n.args if isinstance(a, Node) and not _constant(a, state)]
    return xs[0] if len(xs) == 1 else None


def _front_end_chain(fft: Node, state: set) -> Optional[list]:
    """The nodes of the audio front end around Fourier transform `fft`, in graph
    order: the elementwise / layout ops with constant other operands that alone
    feed it (int16 -> float, scaling, framing, window), the transform, and the ops
    that alone read it with constant other operands (abs, pow, mel matmul, add,
    clamp, layout), up to and including the first log; None if a node of it is
    already annotated."""
    before, x = [], _data_arg(fft, state)
    while isinstance(x, Node) and x.op == "call_function" and x.target in FRONT_END_PRE_OPS \
            and len(x.users) == 1 and not _annotated(x) and _data_arg(x, state) is not None:
        before.insert(0, x)
        x = _data_arg(x, state)
    after, y = [], fft
    while y.target not in LOG_OPS:
        u = _only_user(y)
        if u is None or u.op != "call_function" or u.target not in FRONT_END_POST_OPS or _annotated(u) \
                or _data_arg(u, state) is not y:
            break
        after.append(u)
        y = u
    chain = before + [fft] + after
    return None if any(_annotated(c) for c in chain) else chain


def _front_end(model: GraphModule, act, state: set) -> None:
    """Every audio front end of `model` (:func:`_front_end_chain`) a planned fp32
    island: no observer inside (the samples read as they come, constants fp32),
    the last node's output observed (the log-mel features quantized once)."""
    for n in model.graph.nodes:
        if n.op != "call_function" or n.target not in FFT_OPS or _annotated(n):
            continue
        chain = _front_end_chain(n, state)
        if chain is None:
            continue
        for c in chain[:-1]:
            _set(c, {}, None)
            c.meta[ISLAND_KEY] = ("front_end", False)
        _set(chain[-1], {}, act)
        chain[-1].meta[ISLAND_KEY] = ("front_end", True)


def _window_cat(n: Node, state: set) -> Optional[list]:
    """The new (not state) float inputs of ``cat([buf, .., new], dim)`` when its
    state inputs are mutable buffers or slices of them and its result, through
    slices / views, is what one of them is written back from (``buf.copy_(cat[..,
    k:])``: a sliding window); else None."""
    if n.target not in CAT_OPS or not isinstance(n.args[0], (list, tuple)):
        return None
    xs = list(n.args[0])
    bufs = [x for x in xs if x in state]
    new = [x for x in xs if x not in state]
    if not bufs or not new or not all(_is_float_tensor(x) for x in xs):
        return None
    for i, b in enumerate(bufs):     # a buffer or a slice of one (``frames[:, :, 1:]``)
        while b.op == "call_function" and b.target == aten.slice.Tensor:
            b = b.args[0]
        if b.op != "get_attr":
            return None
        bufs[i] = b
    todo, written = [n], set()
    while todo:
        for u in todo.pop().users:
            if u.op != "call_function":
                continue
            if u.target == aten.copy_.default:
                written.add(u.args[0])
            elif u.target in (aten.slice.Tensor, aten.view.default, aten.reshape.default) \
                    and u.args[0] is not None:
                todo.append(u)
    return new if any(b in written for b in bufs) else None


class MoteQuantizer(Quantizer):
    """PT2E quantizer for Mote's int8 scheme (TFLite / CMSIS-NN).

    qat: use fake-quantize modules (moving-average observers) instead of
    plain min/max observers, for ``prepare_qat_pt2e``; int4_linear: Linear
    weights int4 per output channel ([-8, 7]) with int8 activations;
    int16_activations: conv and linear with int16 activations (zero point 0)
    and int8 per-channel weights, their bias left fp32 (the lowering makes it
    int64 at input_scale * weight_scale), layout ops sharing qparams, every other
    op fp32 (:meth:`annotate_int16`); residual_islands: a residual add read by a
    LayerNorm / GroupNorm joins the norm's fp32 island (:func:`_joins_norm`; False:
    the add is int8 and the norm reads its int8 output, the scheme before, kept to
    measure the difference).
    """

    def __init__(self, qat: bool = False, int4_linear: bool = False, int16_activations: bool = False,
                 residual_islands: bool = True):
        super().__init__()
        self.residual_islands = residual_islands
        self.qat = qat
        self.int4_linear = int4_linear  # Linear weights int4 [-8, 7] per channel (mote::linear_s4)
        self.int16_activations = int16_activations
        if int16_activations and (qat or int4_linear):
            raise ValueError("int16 activations take neither QAT nor int4 weights")

    # the graph is annotated in topological order; each rule marks the nodes it covers
    def annotate(self, model: GraphModule) -> GraphModule:
        """Annotate `model` in place by :data:`RULES` (int16: :data:`RULES_INT16`);
        model state is read without observers, a buffer's whole new value observed."""
        if self.int16_activations:
            return self.annotate_int16(model)
        act = _act_qspec(self.qat)
        wq = _weight_qspec(self.qat)
        state = state_constants(model)
        from aot.compiler.quant import recurrent  # recurrent cells first (their tagged steps)
        recurrent.annotate(model, act, wq, _set, _bias_qspec)
        _front_end(model, act, state)
        for n in model.graph.nodes:
            if n.op != "call_function" or _annotated(n):
                continue
            new = _window_cat(n, state)
            if new is not None:
                # the window and its buffer share the new value's qparams (buf's reads
                # have no observer, as any read of state)
                first = new[0]
                inputs = {first: self._input_qspec(first, act)}
                for x in new[1:]:
                    inputs[x] = SharedQuantizationSpec((first, n))
                _set(n, inputs, SharedQuantizationSpec((first, n)))
                continue
            if self._int8_state_write(n, state):
                # the whole new value of a buffer (a sliding window): observed, so the
                # state is int8 with its own qparams (the lowering stores it int8)
                v = n.args[1]
                _set(n, {v: self._input_qspec_shared(v, act)}, None)
                continue
            if n in state or any(a in state for a in n.all_input_nodes):
                # a read of model state: no observer here, or convert_pt2e would
                # fold the buffer's value at calibration's end into a constant
                n.meta[ANNOTATION_KEY] = QuantizationAnnotation(_annotated=True)
                continue
            rule = next((r for r in RULES if n.target in r.ops and r.applies(self, n)), None)
            if rule is not None:
                rule.annotate(self, n, act, wq)
        return model

    def annotate_int16(self, model: GraphModule) -> GraphModule:
        """The int16x8 scheme: conv / linear (and a fused activation) get int16
        activation observers and int8 per-channel weight observers; no bias
        observer (an int32 bias at the int16 input scale can overflow: the
        lowering quantizes the fp32 bias to int64 instead, as CMSIS-NN's s16
        kernels take it)."""
        act, wq = _act16_qspec(), _weight_qspec(False)
        state = state_constants(model)
        for n in model.graph.nodes:
            if n.op != "call_function" or _annotated(n):
                continue
            if n in state or any(a in state for a in n.all_input_nodes):
                n.meta[ANNOTATION_KEY] = QuantizationAnnotation(_annotated=True)
                continue
            rule = next((r for r in RULES_INT16 if n.target in r.ops and r.applies(self, n)), None)
            if rule is not None:
                rule.annotate(self, n, act, wq)
        return model

    @staticmethod
    def _int8_state_write(n: Node, state: set) -> bool:
        """True for ``buffer.copy_(value)`` that replaces a mutable buffer by a float
        value computed from the inputs (not from state alone): a state the int8
        program keeps int8. In-place arithmetic on a buffer (running statistics:
        ``mean.mul_(m).add_(x)``) is not such a write: small updates would vanish
        on an int8 grid, so those buffers stay fp32."""
        return (n.target == aten.copy_.default and len(n.args) >= 2
                and isinstance(n.args[0], Node) and n.args[0].op == "get_attr"
                and n.args[0] in state and _is_float_tensor(n.args[1]) and n.args[1] not in state
                and n.args[1].meta.get("val") is not None
                and tuple(n.args[1].meta["val"].shape) == tuple(n.args[0].meta["val"].shape))

    @staticmethod
    def _input_qspec_shared(v: Node, act):
        """The qparams of `v` itself when its producer has them (a slice of a window
        written back), else share the observer of an already annotated use of `v`
        (the conv reading the window the model also stores), else `act`."""
        a = v.meta.get(ANNOTATION_KEY)
        if a is not None and a._annotated and a.output_qspec is not None:
            return SharedQuantizationSpec(v)
        for u in v.users:
            a = u.meta.get(ANNOTATION_KEY)
            if a is not None and a._annotated and isinstance(a.input_qspec_map.get(v), QuantizationSpec):
                return SharedQuantizationSpec((v, u))
        return act

    @staticmethod
    def _fused_act(n: Node) -> Node:
        """The relu/relu6/hardtanh that directly and solely follows `n`, else `n`."""
        if len(n.users) == 1:
            u = next(iter(n.users))
            if u.op == "call_function" and u.target in FUSABLE_ACTS and not _annotated(u):
                return u
        return n

    @staticmethod
    def _input_qspec(x: Node, act):
        """An operand's input qspec: shared with its producer's output when that is
        already annotated (softmax's fixed 1/256 qparams feeding p @ v: no second
        observer and requantization), else `act`."""
        a = x.meta.get(ANNOTATION_KEY)
        if a is not None and a._annotated and a.output_qspec is not None:
            return SharedQuantizationSpec(x)
        return act

    @staticmethod
    def _matmul_scale(n: Node) -> Node:
        """The mul / div by a positive Python number that directly and solely
        follows matmul `n` (attention's 1/sqrt(d)), else `n`."""
        if len(n.users) == 1:
            u = next(iter(n.users))
            if u.op == "call_function" and u.target in MATMUL_SCALE_OPS and u.args[0] is n \
                    and len(u.args) == 2 and isinstance(u.args[1], (int, float)) \
                    and not isinstance(u.args[1], bool) and u.args[1] > 0 and not _annotated(u):
                return u
        return n

    def _annotate_conv_linear(self, n: Node, act, wq, groups: int = 0) -> None:
        """groups > 0: a transposed convolution (bias scales tiled per group)."""
        x, w = n.args[0], n.args[1]
        b = n.args[2] if len(n.args) > 2 else None
        if not (_is_float_tensor(x) and isinstance(w, Node)):
            return
        inputs = {x: act, w: wq}
        if isinstance(b, Node):
            inputs[b] = _bias_qspec(x, w, n, groups)
        _with_tail(self, n, inputs, act, self._fused_act(n))

    def validate(self, model: GraphModule) -> None:
        return None


# ----------------------------------------------------------------------------- annotation rules
@dataclass(frozen=True)
class Rule:
    """How MoteQuantizer annotates one kind of op: the ``ops`` it covers, when
    it ``applies(quantizer, node)``, and ``annotate(quantizer, node, act, wq)``
    with the activation / weight qspecs. The first rule (in table order) that
    applies to a node annotates it; a node no rule takes stays fp32."""
    name: str
    ops: frozenset
    applies: Callable
    annotate: Callable


def _always(qz, n: Node) -> bool:
    return True


def _float_first(qz, n: Node) -> bool:
    return _is_float_tensor(n.args[0])


def _float_two(qz, n: Node) -> bool:
    return all(_is_float_tensor(a) for a in n.args[:2])


def _own(qz, n: Node, act, wq) -> None:
    """Own input and output observers."""
    _set(n, {n.args[0]: act}, act)


def _shared(qz, n: Node, act, wq) -> None:
    """The output shares the (first) input's qparams."""
    x = n.args[0]
    _set(n, {x: act}, SharedQuantizationSpec((x, n)))


def _conv_linear(qz, n: Node, act, wq) -> None:
    qz._annotate_conv_linear(n, act, wq)


def _linear_s4(qz, n: Node, act, wq) -> None:
    qz._annotate_conv_linear(n, act, _weight_qspec(qz.qat, bits=4))


def _conv_transpose(qz, n: Node, act, wq) -> None:
    groups = int(n.args[6]) if len(n.args) > 6 else 1
    qz._annotate_conv_linear(n, act, _weight_qspec(qz.qat, ch_axis=1), groups=groups)


def _with_tail(qz, n: Node, inputs: dict, act, last: Node) -> None:
    """`n` with `inputs`, its output observed after `last` (n itself, or the op that follows it)."""
    _set(n, inputs, act if last is n else None)
    if last is not n:
        _set(last, {}, act)


def _matmul(qz, n: Node, act, wq) -> None:
    _with_tail(qz, n, {x: qz._input_qspec(x, act) for x in n.args[:2]}, act, qz._matmul_scale(n))


def _binary(qz, n: Node, act, wq) -> None:
    _with_tail(qz, n, {n.args[0]: act, n.args[1]: act}, act, qz._fused_act(n))


def _masked_softmax_island(qz, n: Node, act, wq) -> None:
    sm = _masked_softmax(n)
    _set(n, {n.args[0]: act}, None)
    n.meta[ISLAND_KEY] = ("masked_softmax", False)
    _set(sm, {}, SOFTMAX_OUT_QSPEC)
    sm.meta[ISLAND_KEY] = ("masked_softmax", True)


def _cat(qz, n: Node, act, wq) -> None:
    """Every float input and the output share the first float input's qparams."""
    xs = [x for x in n.args[0] if _is_float_tensor(x)]
    if not xs:
        return
    first = xs[0]
    inputs = {first: act}
    for x in xs[1:]:
        inputs[x] = SharedQuantizationSpec((first, n))
    _set(n, inputs, SharedQuantizationSpec((first, n)))


def _softmax(qz, n: Node, act, wq) -> None:
    _set(n, {n.args[0]: act}, SOFTMAX_OUT_QSPEC)


def _island(qz, n: Node, act, wq) -> None:
    """A norm (or a per-channel PReLU) kept fp32 between its own observers; a norm
    whose input is a residual add takes that add into its island (:func:`_joins_norm`)."""
    x = n.args[0]
    if qz.residual_islands and n.target in FP32_ISLAND_OPS and _joins_norm(x, n):
        _into_island(x, _island_name(n.target))
        _set(n, {}, act)
    else:
        _set(n, {x: act}, act)
    if n.target in FP32_ISLAND_OPS or _numel(n.args[1]) != 1:
        n.meta[ISLAND_KEY] = (_island_name(n.target), True)


def _joins_norm(x, norm: Node) -> bool:
    """True when `x`, the input of `norm`, is an add of two float tensors with its own
    output observer (a transformer's residual add: ``x + attn(ln(x))``) that no op
    annotated so far reads: the norm then reads the add's exact fp32 sum, not the sum
    rounded to the add's int8 grid. That grid is as coarse as the residual stream's
    range demands, while a norm rescales its input by 1 / (its std over the normalised
    axis): a one-step difference at the input came out as up to gamma * in_scale /
    (std * out_scale) steps (6 in tiny_vit's second LayerNorm)."""
    if not (isinstance(x, Node) and x.target == aten.add.Tensor and _float_two(None, x)):
        return False
    a = x.meta.get(ANNOTATION_KEY)
    return (a is not None and a._annotated and isinstance(a.output_qspec, QuantizationSpec)
            and not any(_annotated(u) for u in x.users if u is not norm))


def _into_island(add: Node, kind: str) -> None:
    """Residual add `add` joins a norm's fp32 island: its output is not quantized
    (the norm reads the fp32 sum; any other reader quantizes it on its own input
    edge), and an operand that is itself such an add is read in fp32, so a chain of
    residual adds (the residual stream of a pre-norm transformer) stays fp32 between
    the int8 branches that feed it."""
    a = add.meta[ANNOTATION_KEY]
    a.output_qspec = None
    for x in list(a.input_qspec_map):
        if x.meta.get(ISLAND_KEY) is not None and x.target == aten.add.Tensor \
                and x.meta[ANNOTATION_KEY].output_qspec is None:
            del a.input_qspec_map[x]
    add.meta[ISLAND_KEY] = (kind, False)


def _rms_norm(qz, n: Node, act, wq) -> None:
    chain = _rms_norm_chain(n)
    x = n.args[0]
    for c in chain[:-1]:
        _set(c, {x: act} if x in c.args else {}, None)
        c.meta[ISLAND_KEY] = ("rms_norm", False)
    _set(chain[-1], {x: act} if x in chain[-1].args else {}, act)
    chain[-1].meta[ISLAND_KEY] = ("rms_norm", True)


def _normalize(qz, n: Node, act, wq) -> None:
    """F.normalize: x quantized into the chain, the quotient out of it; fp32 between."""
    chain = _normalize_chain(n)
    x = n.args[0]
    for c in chain[:-1]:
        _set(c, {x: act} if x in c.args else {}, None)
        c.meta[ISLAND_KEY] = ("normalize", False)
    _set(chain[-1], {x: act}, act)
    chain[-1].meta[ISLAND_KEY] = ("normalize", True)


def _vector_norm(qz, n: Node, act, wq) -> None:
    """A vector norm on its own: fp32 between its own input and output observers."""
    _set(n, {n.args[0]: act}, act)
    n.meta[ISLAND_KEY] = ("vector_norm", True)


def _standalone_batch_norm(qz, n: Node) -> bool:
    """An inference BatchNorm (training False) of a float 4-D tensor that no
    convolution produced (a conv's BN is folded into it before annotation)."""
    x = n.args[0]
    training = n.args[5] if len(n.args) > 5 else n.kwargs.get("training", False)
    v = x.meta.get("val") if isinstance(x, Node) else None
    return _is_float_tensor(x) and not training and v is not None and v.dim() == 4 \
        and not (x.op == "call_function" and x.target in CONV_OPS)


def _batch_norm(qz, n: Node, act, wq) -> None:
    """Own input observer, the output observed after a fused relu / relu6 / hardtanh."""
    _with_tail(qz, n, {n.args[0]: act}, act, qz._fused_act(n))


def _embedding_table(qz, n: Node) -> bool:
    return isinstance(n.args[0], Node) and n.args[0].op == "get_attr" and _is_float_tensor(n.args[0])


def _int16_conv_linear(qz, n: Node) -> bool:
    return _is_float_tensor(n.args[0]) and isinstance(n.args[1], Node)


def _int16_weighted(qz, n: Node, act, wq) -> None:
    """int16 activation observers, int8 per-channel weights, no bias observer."""
    _with_tail(qz, n, {n.args[0]: act, n.args[1]: wq}, act, qz._fused_act(n))


#: the int8 scheme's annotation, first applicable rule wins
RULES = (
    Rule("linear_s4", LINEAR_OPS, lambda qz, n: qz.int4_linear, _linear_s4),
    Rule("conv_linear", CONV_OPS | LINEAR_OPS, _always, _conv_linear),
    Rule("matmul", MATMUL_OPS, _float_two, _matmul),
    Rule("masked_softmax", MASKED_FILL_OPS, lambda qz, n: _masked_softmax(n) is not None, _masked_softmax_island),
    Rule("masked_fill", MASKED_FILL_OPS, lambda qz, n: _is_float_tensor(n.args[0]) and not isinstance(n.args[2], Node),
         _shared),
    Rule("conv_transpose", CONV_TRANSPOSE_OPS, _always, _conv_transpose),
    Rule("binary", BINARY_OPS, _float_two, _binary),
    Rule("scalar", SCALAR_OPS, _float_first, _own),
    Rule("shared", SHARED_OPS, _float_first, _shared),
    Rule("cat", CAT_OPS, _always, _cat),
    Rule("own_qparams", OWN_QPARAM_OPS, _float_first, _own),
    Rule("softmax", SOFTMAX_OPS, _float_first, _softmax),
    Rule("fp32_island", FP32_ISLAND_OPS | PRELU_OPS, _float_first, _island),
    Rule("rms_norm", frozenset({aten.pow.Tensor_Scalar}), lambda qz, n: bool(_rms_norm_chain(n)), _rms_norm),
    Rule("normalize", VECTOR_NORM_OPS, lambda qz, n: bool(_normalize_chain(n)), _normalize),
    Rule("vector_norm", VECTOR_NORM_OPS, _float_first, _vector_norm),
    Rule("embedding", EMBEDDING_OPS, _embedding_table, _shared),
    Rule("batch_norm", BATCH_NORM_OPS, _standalone_batch_norm, _batch_norm),
)
#: the int16x8 scheme's annotation (MoteQuantizer.annotate_int16)
RULES_INT16 = (
    Rule("conv_linear", CONV_OPS | LINEAR_OPS, _int16_conv_linear, _int16_weighted),
    Rule("shared", INT16_SHARED_OPS, _float_first, _shared),
)
