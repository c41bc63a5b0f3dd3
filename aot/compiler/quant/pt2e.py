"""int8 post-training quantization (and QAT preparation) with torchao PT2E.

:class:`MoteQuantizer` annotates an exported graph for the TFLite / CMSIS-NN
int8 scheme of ``docs/int8-ops.md``:

- activations: int8 per tensor, affine (zero point), range [-128, 127];
- weights of conv / depthwise conv / linear: int8 symmetric per output channel
  (axis 0; [-127, 127], zero point 0); of conv_transpose2d: axis 1 of
  [Cin, Cout/groups, kh, kw] (one scale per output channel of a group);
- bias: int32, scale = input_scale * weight_scale[c] (derived), zero point 0;
- conv/linear/add followed by relu / relu6 / hardtanh: one output observer
  *after* the activation (the activation fuses into the int8 op's clamp);
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
- masked_fill(x, mask, -inf) read only by a softmax (a causal mask): the pair is
  a planned fp32 island (scores quantized before, probabilities after), so masked
  positions get exactly 0; masked_fill with another constant: output shares the
  qparams of its input. Activation observers ignore non-finite values.

``scaled_dot_product_attention`` (what ``nn.MultiheadAttention`` exports to) is
decomposed by :func:`export_for_quantization` into matmul, scale, mask, softmax
and matmul before annotation, so each piece is quantized.

:func:`quantize` runs export -> ``prepare_pt2e`` -> calibration ->
``convert_pt2e``; the converted GraphModule (q/dq ops around fp32 ops) is the
"PT2E reference" and runs eagerly. :func:`prepare_qat` is the QAT entry point.

Command line: ``python -m aot.compiler.quant.pt2e MODEL.py [--calib FILE.npz]`` prints
the fp32 vs PT2E-int8 agreement on the calibration set.
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
from pathlib import Path
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence, Union

import numpy as np
import torch

from aot.errors import InputError
from torch.fx import GraphModule, Node

from aot.compiler.quant.opsets import (BINARY_OPS, CAT_OPS, CONV_OPS, CONV_TRANSPOSE_OPS, EMBEDDING_OPS,
                                        FP32_ISLAND_OPS, FUSABLE_ACTS, INT16_SHARED_OPS, ISLAND_KEY, LINEAR_OPS,
                                        MASKED_FILL_OPS, MATMUL_OPS, MATMUL_SCALE_OPS,
                                        OWN_QPARAM_OPS, PRELU_OPS, SCALAR_OPS, SHARED_OPS, SOFTMAX_OPS)
from torchao.quantization.pt2e import observer as _obs
from torchao.quantization.pt2e.fake_quantize import FakeQuantize
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    Quantizer,
    SharedQuantizationSpec,
)

__all__ = ["MoteQuantizer", "quantize", "int16_option", "prepare_qat", "load_calibration",
           "export_for_quantization", "decompose_sdpa", "FiniteMinMaxObserver", "ANNOTATION_KEY"]

ANNOTATION_KEY = "quantization_annotation"


class Int8CalibrationWarning(UserWarning):
    """--int8 without calibration data: ranges from the example inputs only."""


aten = torch.ops.aten

#: softmax output: scale 1/256, zero point -128 over [-128, 127] (TFLite int8 softmax)
SOFTMAX_OUT_QSPEC = FixedQParamsQuantizationSpec(
    dtype=torch.int8, scale=1.0 / 256.0, zero_point=-128, quant_min=-128, quant_max=127,
    qscheme=torch.per_tensor_affine)


# ----------------------------------------------------------------------------- qspecs

class FiniteMinMaxObserver(_obs.MinMaxObserver):
    """MinMaxObserver that ignores infinities and NaNs (a causal mask's -inf
    before softmax): the range is the one of the finite values, and -inf then
    quantizes to quant_min (torch's quantize clamps). With only finite values
    it is exactly MinMaxObserver."""

    def forward(self, x_orig):
        if isinstance(x_orig, torch.Tensor) and x_orig.is_floating_point() and x_orig.numel() \
                and not bool(torch.isfinite(x_orig).all()):
            x = x_orig.detach()
            x = x[torch.isfinite(x)]
            if x.numel():
                super().forward(x)
            return x_orig
        return super().forward(x_orig)


def _act_qspec(qat: bool) -> QuantizationSpec:
    if qat:
        ctr = FakeQuantize.with_args(observer=_obs.MovingAverageMinMaxObserver,
                                     quant_min=-128, quant_max=127, dtype=torch.int8,
                                     qscheme=torch.per_tensor_affine)
    else:
        ctr = FiniteMinMaxObserver.with_args(eps=2 ** -12)
    return QuantizationSpec(dtype=torch.int8, quant_min=-128, quant_max=127,
                            qscheme=torch.per_tensor_affine, observer_or_fake_quant_ctr=ctr)


def int16_option(args) -> bool:
    """True if an ``aot`` command asks for --int16-activations."""
    return bool(getattr(args, "int16_activations", False))


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


class MoteQuantizer(Quantizer):
    """PT2E quantizer for Mote's int8 scheme (TFLite / CMSIS-NN).

    qat: use fake-quantize modules (moving-average observers) instead of
    plain min/max observers, for ``prepare_qat_pt2e``; int4_linear: Linear
    weights int4 per output channel ([-8, 7]) with int8 activations;
    int16_activations: conv and linear with int16 activations (zero point 0)
    and int8 per-channel weights, their bias left fp32 (the lowering makes it
    int64 at input_scale * weight_scale), layout ops sharing qparams, every other
    op fp32 (:meth:`annotate_int16`).
    """

    def __init__(self, qat: bool = False, int4_linear: bool = False, int16_activations: bool = False):
        super().__init__()
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
        for n in model.graph.nodes:
            if n.op != "call_function" or _annotated(n):
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
        """Share the observer of an already annotated use of `v` (the conv reading the
        window the model also stores), else `act`."""
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
    """A norm (or a per-channel PReLU) kept fp32 between its own observers."""
    _set(n, {n.args[0]: act}, act)
    if n.target in FP32_ISLAND_OPS or _numel(n.args[1]) != 1:
        n.meta[ISLAND_KEY] = (_island_name(n.target), True)


def _rms_norm(qz, n: Node, act, wq) -> None:
    chain = _rms_norm_chain(n)
    x = n.args[0]
    for c in chain[:-1]:
        _set(c, {x: act} if x in c.args else {}, None)
        c.meta[ISLAND_KEY] = ("rms_norm", False)
    _set(chain[-1], {x: act} if x in chain[-1].args else {}, act)
    chain[-1].meta[ISLAND_KEY] = ("rms_norm", True)


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
    Rule("embedding", EMBEDDING_OPS, _embedding_table, _shared),
)
#: the int16x8 scheme's annotation (MoteQuantizer.annotate_int16)
RULES_INT16 = (
    Rule("conv_linear", CONV_OPS | LINEAR_OPS, _int16_conv_linear, _int16_weighted),
    Rule("shared", INT16_SHARED_OPS, _float_first, _shared),
)


# ----------------------------------------------------------------------------- pipeline

def _writes_first_arg(n: Node) -> bool:
    """True if call `n` writes its first argument in place (mul_, add_, copy_, index_put_)."""
    schema = getattr(n.target, "_schema", None)
    if n.op != "call_function" or schema is None or not schema.arguments:
        return False
    info = schema.arguments[0].alias_info
    return info is not None and info.is_write


def mutated_buffers(gm: GraphModule) -> set:
    """Targets of the get_attr nodes of unlifted graph `gm` that an in-place op
    writes (directly or through other in-place ops on them): the model's
    mutable buffers, its state across calls."""
    found = set()
    for n in gm.graph.nodes:
        if _writes_first_arg(n):
            base = n.args[0]
            while isinstance(base, Node) and _writes_first_arg(base):
                base = base.args[0]
            if isinstance(base, Node) and base.op == "get_attr":
                found.add(base.target)
    return found


def state_constants(gm: GraphModule) -> set:
    """Nodes of `gm` computed from get_attr values alone, a mutable buffer among
    them (``mean.mul_(0.9)``, ``frames[:, 1:]``): constants to a constant
    folder, but the model's state at run time."""
    mutable = mutated_buffers(gm)
    const, state = set(), set()
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            const.add(n)
            if n.target in mutable:
                state.add(n)
        elif n.op == "call_function" and n.all_input_nodes and all(a in const for a in n.all_input_nodes):
            const.add(n)
            if any(a in state for a in n.all_input_nodes):
                state.add(n)
    return state


def export_for_quantization(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor]
                            ) -> GraphModule:
    """``torch.export.export(module, inputs).module(check_guards=False)`` (a
    GraphModule of ATen ops that PT2E can annotate), with every
    ``scaled_dot_product_attention`` decomposed (:func:`decompose_sdpa`)."""
    ep = torch.export.export(module, tuple(example_inputs))
    gm = ep.module(check_guards=False)
    decompose_sdpa(gm)
    return gm


def decompose_sdpa(gm: GraphModule) -> int:
    """Rewrite ``aten.scaled_dot_product_attention`` nodes of `gm` in place into
    ``softmax(matmul(q, k^T) * scale [masked]) @ v`` (torch's documented math):
    scale = the op's ``scale`` or 1/sqrt(q.size(-1)); a bool ``attn_mask`` (True =
    attend) or ``is_causal`` becomes ``masked_fill(~mask, -inf)``, a float mask an
    ``add``. Nodes with dropout, GQA or both a mask and is_causal stay as they are.
    Returns the number of nodes rewritten."""
    g = gm.graph
    done = 0
    for n in list(g.nodes):
        if n.op != "call_function" or n.target != aten.scaled_dot_product_attention.default:
            continue
        names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")
        a = dict(zip(names, n.args))
        a.update({k: v for k, v in n.kwargs.items() if k in names})
        qv, kv = n.args[0].meta.get("val"), n.args[1].meta.get("val")
        mask = a.get("attn_mask")
        causal = bool(a.get("is_causal", False))
        if float(a.get("dropout_p", 0.0) or 0.0) != 0.0 or n.kwargs.get("enable_gqa", False) \
                or qv is None or kv is None or (mask is not None and causal) \
                or qv.shape[:-2] != kv.shape[:-2]:
            continue
        scale = a.get("scale")
        scale = 1.0 / float(qv.shape[-1]) ** 0.5 if scale is None else float(scale)
        with g.inserting_before(n):
            kt = g.call_function(aten.transpose.int, (a["key"], -2, -1))
            s = g.call_function(aten.matmul.default, (a["query"], kt))
            s = g.call_function(aten.mul.Tensor, (s, scale))
            if causal:
                lq, lk = int(qv.shape[-2]), int(kv.shape[-2])
                name = f"_mote_causal_mask_{done}"
                gm.register_buffer(name, torch.ones(lq, lk, dtype=torch.bool).tril().logical_not())
                s = g.call_function(aten.masked_fill.Scalar, (s, g.get_attr(name), float("-inf")))
            elif isinstance(mask, Node) and mask.meta.get("val") is not None \
                    and mask.meta["val"].dtype == torch.bool:
                keep_out = g.call_function(aten.logical_not.default, (mask,))
                s = g.call_function(aten.masked_fill.Scalar, (s, keep_out, float("-inf")))
            elif mask is not None:
                s = g.call_function(aten.add.Tensor, (s, mask))
            p = g.call_function(aten.softmax.int, (s, -1))
            out = g.call_function(aten.matmul.default, (p, a["value"]))
        mode = qv.fake_mode
        for new in g.nodes:
            if new.op == "call_function" and "val" not in new.meta:
                _fake_val(gm, new, mode)
        for new in (kt, s, p, out):
            new.meta.update({k: v for k, v in n.meta.items() if k in
                             ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node")})
        n.replace_all_uses_with(out)
        g.erase_node(n)
        done += 1
    if done:
        g.lint()
        gm.recompile()
    return done


def _fake_val(gm: GraphModule, n: Node, mode) -> None:
    """meta["val"] of a node made by :func:`decompose_sdpa`: its op run on the
    fake values of its inputs (constants converted to fakes of `mode`)."""
    def val(a):
        if not isinstance(a, Node):
            return a
        if a.op == "get_attr" and "val" not in a.meta:
            a.meta["val"] = mode.from_tensor(getattr(gm, a.target))
        return a.meta["val"]
    with mode:
        n.meta["val"] = n.target(*[val(a) for a in n.args])


def load_calibration(path: Union[str, Path], example_inputs: Sequence[torch.Tensor],
                     names: Optional[Sequence[str]] = None) -> list[tuple]:
    """Calibration samples from an ``.npz``: arrays ``arr_0, arr_1, ..``
    (``np.savez(f, x, y)``), or named like the model's inputs (``names``, e.g.
    the ``forward`` parameter names), or else in file order, feed the inputs. An array shaped
    like the example input is one sample; ``[S, *example_shape]`` is S samples.
    Returns a list of input tuples (float32 tensors). Raises ``ValueError`` on a
    count or shape mismatch (an :class:`aot.errors.InputError`, also a ValueError)."""
    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise InputError(f"--calib {path}: not an .npz archive (write one with np.savez(path, x0, ...))") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise InputError(f"--calib {path}: a single .npy array; give an .npz with one array per input")
    keys = list(data.files)
    if names and sorted(keys) == sorted(names):
        keys = list(names)  # arrays named like the forward() parameters
    elif all(k.startswith("arr_") and k[4:].isdigit() for k in keys):
        keys.sort(key=lambda k: int(k[4:]))
    arrays = [data[k] for k in keys]
    if len(arrays) != len(example_inputs):
        raise InputError(f"--calib {path}: {len(arrays)} arrays for {len(example_inputs)} model inputs "
                         "(one array per input: np.savez(f, x0, x1, ...))")
    per_input = []
    for a, ex in zip(arrays, example_inputs):
        shape = tuple(ex.shape)
        if tuple(a.shape) == shape:
            a = a[None]
        elif tuple(a.shape[1:]) != shape:
            raise InputError(f"--calib {path}: array shape {tuple(a.shape)} does not fit input {shape} "
                             f"(give {shape} for one sample or [S, *{shape}] for S samples)")
        per_input.append([torch.from_numpy(np.asarray(s, order="C")).to(ex.dtype) for s in a])
    counts = {len(p) for p in per_input}
    if len(counts) != 1:
        raise InputError(f"--calib {path}: the arrays hold different sample counts {sorted(counts)}")
    return [tuple(p[i] for p in per_input) for i in range(counts.pop())]


def _input_names(module) -> Optional[list]:
    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _samples(calibration, example_inputs, module=None) -> list[tuple]:
    if calibration is None:
        return [tuple(example_inputs)]
    if isinstance(calibration, (str, Path)):
        return load_calibration(calibration, example_inputs,
                                _input_names(module) if module is not None else None)
    out = []
    for s in calibration:
        out.append((s,) if isinstance(s, torch.Tensor) else tuple(s))
    if not out:
        raise ValueError("empty calibration set")
    return out


def quantize(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
             calibration: Union[None, str, Path, Iterable] = None,
             quantizer: Optional[Quantizer] = None):
    """Post-training int8 quantization with PT2E.

    module: eval-mode fp32 model; example_inputs: tuple of tensors; calibration:
    an iterable of input tuples (e.g. a model file's ``calibration_data()``),
    a path to an ``.npz`` (see :func:`load_calibration`), or None (calibrate on
    the example inputs). Returns ``(converted, info)``: the converted
    GraphModule (PT2E reference, q/dq + fp32 ops, weights folded to int8) and a
    dict ``{"calibration_samples": int}``.
    """
    initial = {name: b.detach().clone() for name, b in module.named_buffers()}
    gm = export_for_quantization(module, example_inputs)
    prepared = prepare_pt2e(gm, quantizer or MoteQuantizer())
    samples = _samples(calibration, example_inputs, module)
    with torch.no_grad():
        for s in samples:  # in order: a stateful model sees one stream
            prepared(*s)
    converted = convert_pt2e(prepared)
    # calibration ran forward, which updated the mutable buffers (the exported
    # graphs share the module's tensors): back to the values the model starts from
    with torch.no_grad():
        for m in (module, converted):
            for name, b in m.named_buffers():
                if name in initial and b.shape == initial[name].shape:
                    b.copy_(initial[name])
        # an int8 state starts from its initial value on the int8 grid, as the program's does
        for name, (scale, zp) in int8_state_qparams(converted).items():
            b = converted.get_buffer(name)
            b.copy_(torch.ops.quantized_decomposed.dequantize_per_tensor(
                torch.ops.quantized_decomposed.quantize_per_tensor(b, scale, zp, -128, 127, torch.int8),
                scale, zp, -128, 127, torch.int8))
    return converted, {"calibration_samples": len(samples)}


def int8_state_qparams(converted: GraphModule) -> dict:
    """{buffer name: (scale, zero point)} of the mutable buffers a converted graph
    writes as ``copy_(buffer, dequantize(quantize(value)))`` with int8 qparams:
    the model state an int8 program keeps int8."""
    qd = torch.ops.quantized_decomposed
    out = {}
    for n in converted.graph.nodes:
        if n.op == "call_function" and n.target == aten.copy_.default and isinstance(n.args[0], Node) \
                and n.args[0].op == "get_attr" and isinstance(n.args[1], Node) \
                and n.args[1].target == qd.dequantize_per_tensor.default:
            q = n.args[1].args[0]
            if isinstance(q, Node) and q.target == qd.quantize_per_tensor.default and q.args[5] == torch.int8:
                out[n.args[0].target] = (float(q.args[1]), int(q.args[2]))
    return out


def prepare_qat(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor]) -> GraphModule:
    """QAT: export the (train-mode) module and insert fake-quantize modules
    (``prepare_qat_pt2e`` with ``MoteQuantizer(qat=True)``). Train the returned
    GraphModule, then call ``torchao...convert_pt2e`` on it (or pass it to
    ``aot.compiler.quant.lowering.lower_int8`` after conversion)."""
    gm = export_for_quantization(module, example_inputs)
    return prepare_qat_pt2e(gm, MoteQuantizer(qat=True))


def _load_model_file(path: Union[str, Path]):
    spec = importlib.util.spec_from_file_location(Path(path).stem, str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m aot.compiler.quant.pt2e", description=__doc__.split("\n")[0])
    p.add_argument("model", help="model file with model(), example_inputs()")
    p.add_argument("--calib", help="calibration inputs (.npz); default calibration_data()")
    a = p.parse_args(argv)
    mf = _load_model_file(a.model)
    m, ex = mf.model(), tuple(mf.example_inputs())
    calib = a.calib or (mf.calibration_data() if hasattr(mf, "calibration_data") else None)
    q, info = quantize(m, ex, calib)
    samples = _samples(calib, ex, m)
    worst = 0.0
    with torch.no_grad():
        for s in samples:
            ref = m(*s)
            worst = max(worst, float((q(*s) - ref).abs().max() / (ref.abs().max() + 1e-12)))
    print(f"calibrated on {info['calibration_samples']} samples; "
          f"max |int8 - fp32| / max|fp32| = {worst:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
