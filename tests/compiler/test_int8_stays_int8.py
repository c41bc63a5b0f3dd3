"""Ops that used to leave int8 under --int8 (issue 36: fp32 between a dequantize
and a quantize, costing RAM and time) now lower to integer kernels: for each, a
block shaped like the torchvision network that has it (weights random, seeded)
compiles with no fp32 fallback for that op, the measured share of MACs in int8
kernels, the planned arena, the host runtime's int8 bytes equal to the Python
integer reference (the lowered graph run eagerly: aot/compiler/quant/int8ref.py),
and every output within one quantum of PT2E's reference.

The figures in the asserts are the ones measured here before and after each
change (before: the op between dequantize and quantize)."""
import warnings

import numpy as np
import pytest
import torch
from torch import nn

from aot.compiler.macs import int8_mac_share
from aot.compiler.pipeline import compile_module
from aot.compiler.quant.lowering import int8_program

from test_int8_lowering import _check, _lower, _mote_ops, _quanta, per_op_quanta

pytestmark = pytest.mark.slow     # each test quantizes and compiles a block (10-40 s)


def _inputs(shape, n, seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(shape, generator=g),) for _ in range(n)]


def _compiled(module, shape):
    """(Compiled --int8, calibration sets, held-out sets) of eval-mode `module`."""
    torch.manual_seed(0)
    calib, held = _inputs(shape, 4, 0), _inputs(shape, 2, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module(type(module).__name__, module.eval(), calib[0], int8=True, calibration=calib)
    return c, calib, held


def _host_equals_reference(c, calib, sets):
    """The host runtime (libmote.so, kernels/) gives the bytes of the lowered graph
    run eagerly (the Python integer reference) on every input set."""
    from aot.host.runtime import Program
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = int8_program(c.eager, c.example_inputs, calib).module()
    method = Program(c.pte).method()
    for x in sets:
        with torch.no_grad():
            want = ref(*x).numpy()
        got = method.run([t.numpy() for t in x])[0]
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


def _quanta_vs_pt2e(module, shape):
    """(largest |mote op - PT2E| in quanta over the ops, each run on PT2E's int8
    inputs; largest end-to-end output difference in output quanta) on the
    calibration and held-out sets."""
    torch.manual_seed(0)
    calib = _inputs(shape, 4, 0)
    conv, low = _lower(module.eval(), calib[0], calib)
    scale = low.meta["mote_int8"].output_qparams[0][0]
    per_op, end = 0, 0.0
    for x in calib + _inputs(shape, 2, 7):
        worst, ref, got = per_op_quanta(conv, low, x)
        per_op = max([per_op] + list(worst.values()))
        end = max(end, _quanta(ref, got, scale))
    return per_op, end


def _figures(c):
    """(percent of MACs in int8 kernels, arena bytes, fp32 fallback op names)."""
    q, total = int8_mac_share(c.spec)
    return 100.0 * q / total, sum(c.spec.arena_sizes), sorted(set(c.int8_info.fallback_ops))


# ----------------------------------------------------------------------------- in-place residual

class BasicBlock(nn.Module):
    """torchvision ResNet's BasicBlock: ``out += identity`` then an in-place ReLU
    (export keeps aten.add_.Tensor and aten.relu_.default)."""

    def __init__(self, c=8):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.head = nn.Conv2d(c, 4, 1)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        out = self.relu(out)
        return self.head(out)


def test_in_place_residual_add_and_relu_stay_int8():
    # before: add_ and relu_ each between dequantize and quantize, arena 4,608 B
    c, calib, held = _compiled(BasicBlock(), (1, 8, 8, 8))
    share, arena, fallbacks = _figures(c)
    assert fallbacks == []
    assert share == 100.0
    assert arena == 3264                          # measured: 4,608 B before
    assert "mote::add_s8" in {i.op for i in c.spec.instructions}
    assert not any(i.op.startswith("aten::relu") or i.op.startswith("aten::add") for i in c.spec.instructions)
    _host_equals_reference(c, calib, calib + held)
    low = _check(BasicBlock(), (1, 8, 8, 8), ["add_s8"])
    assert "mote.lut_s8.default" not in _mote_ops(low)   # the ReLU is the add's clamp


# ----------------------------------------------------------------------------- grouped convolution

class RegNetXBlock(nn.Module):
    """torchvision RegNetX's ResBottleneckBlock: 1x1, 3x3 grouped (group width 16,
    stride 2), 1x1, each with BatchNorm, a 1x1 stride-2 projection, add, ReLU."""

    def __init__(self, cin=16, c=48, group_width=16):
        super().__init__()

        def cbr(i, o, k, s=1, g=1, act=True):
            layers = [nn.Conv2d(i, o, k, s, k // 2, groups=g, bias=False), nn.BatchNorm2d(o)]
            return nn.Sequential(*layers, *([nn.ReLU(inplace=True)] if act else []))
        self.proj = cbr(cin, c, 1, 2, act=False)
        self.f = nn.Sequential(cbr(cin, c, 1), cbr(c, c, 3, 2, c // group_width), cbr(c, c, 1, act=False))
        self.activation = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.activation(self.proj(x) + self.f(x))


def test_grouped_convolution_runs_in_grouped_conv2d_s8():
    # before: the grouped conv stayed fp32 and the export failed ("operator
    # quantized_decomposed::dequantize_per_channel.default is not supported"); torchvision
    # regnet_x_400mf / regnet_y_400mf failed the same way
    c, calib, held = _compiled(RegNetXBlock(), (1, 16, 12, 12))
    share, arena, fallbacks = _figures(c)
    assert fallbacks == []
    assert share == 100.0
    assert arena == 14144                         # measured
    ops = [i.op for i in c.spec.instructions]
    assert ops.count("mote::grouped_conv2d_s8") == 1
    _host_equals_reference(c, calib, calib + held)
    per_op, end = _quanta_vs_pt2e(RegNetXBlock(), (1, 16, 12, 12))
    assert per_op <= 1
    assert end <= 2 + 1e-3                        # measured: 2 (four convs and an add in a row)


@pytest.mark.parametrize("groups,shape", [(2, (1, 8, 7, 9)), (4, (2, 8, 6, 6))])
def test_grouped_conv_alone_within_one_quantum(groups, shape):
    class G(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv2d(8, 12, 3, stride=2, padding=1, groups=groups)

        def forward(self, x):
            return torch.relu(self.c(x))
    low = _check(G(), shape, ["grouped_conv2d_s8"])
    n = next(n for n in low.graph.nodes if n.target == torch.ops.mote.grouped_conv2d_s8.default)
    w = getattr(low, n.args[1].target)
    assert w.dtype == torch.int8 and tuple(w.shape) == (12, 3, 3, 8 // groups)   # [Cout, KH, KW, Cin/g]
    assert n.args[8] == groups


# ----------------------------------------------------------------------------- squeeze-excitation

class SqueezeExcitation(nn.Module):
    """torchvision's SqueezeExcitation (MobileNetV3, EfficientNet, RegNetY):
    x * gate(fc2(relu(fc1(avgpool(x))))), a [N, C, 1, 1] gate broadcast over
    [N, C, H, W], behind a conv and in front of a 1x1 projection."""

    def __init__(self, c=16, squeeze=4, gate=nn.Hardsigmoid):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(c, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, c, 1)
        self.relu = nn.ReLU()
        self.scale_activation = gate()
        self.proj = nn.Conv2d(c, 8, 1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        scale = self.scale_activation(self.fc2(self.relu(self.fc1(self.avgpool(x)))))
        return self.proj(scale * x)        # gate first: mul_s8 takes the full operand first


@pytest.mark.parametrize("gate,arena,before", [(nn.Hardsigmoid, 4000, 8064), (nn.Sigmoid, 4000, 8064)])
def test_squeeze_excitation_mul_broadcasts_in_mul_s8(gate, arena, before):
    # before: the mul stayed fp32 between dequantize and quantize (arena `before` B)
    c, calib, held = _compiled(SqueezeExcitation(gate=gate), (1, 3, 10, 10))
    share, got_arena, fallbacks = _figures(c)
    assert fallbacks == []
    assert share == 100.0
    assert got_arena == arena < before            # measured
    assert "mote::mul_s8" in {i.op for i in c.spec.instructions}
    _host_equals_reference(c, calib, calib + held)
    per_op, end = _quanta_vs_pt2e(SqueezeExcitation(gate=gate), (1, 3, 10, 10))
    assert per_op <= 1
    assert end <= 1 + 1e-3                        # measured


@pytest.mark.parametrize("name,arena", [("mobilenet_v3_small", 61440), ("efficientnet_block", 50304)])
def test_garden_squeeze_excitation_stays_int8(name, arena):
    # before: mobilenet_v3_small 3 and efficientnet_block 4 fp32 muls between dequantize and
    # quantize (arenas 61,440 B / 72,672 B, 65 / 78 instructions)
    from aot.compiler.pipeline import compile_model_file
    from zoo.garden import path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_model_file(path(name), int8=True)
    share, got_arena, fallbacks = _figures(c)
    assert fallbacks == [] and share == 100.0
    assert got_arena == arena                     # measured
    assert len(c.spec.instructions) == {"mobilenet_v3_small": 47, "efficientnet_block": 54}[name]


# ----------------------------------------------------------------------------- BatchNorm after no conv

class DenseBlock(nn.Module):
    """torchvision DenseNet's _DenseLayer x2 (BN -> ReLU -> 1x1 conv -> BN -> ReLU ->
    3x3 conv, features concatenated) and _Transition (BN -> ReLU -> 1x1 conv ->
    avgpool): each layer's first BN reads a concatenation, not a conv."""

    def __init__(self, c0=8, growth=4, bn_size=2):
        super().__init__()

        def layer(cin):
            return nn.Sequential(nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
                                 nn.Conv2d(cin, bn_size * growth, 1, bias=False),
                                 nn.BatchNorm2d(bn_size * growth), nn.ReLU(inplace=True),
                                 nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False))
        self.stem = nn.Conv2d(3, c0, 3, padding=1)
        self.layers = nn.ModuleList([layer(c0), layer(c0 + growth)])
        c = c0 + 2 * growth
        self.transition = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.Conv2d(c, c // 2, 1, bias=False),
                                        nn.AvgPool2d(2, 2))
        g = torch.Generator().manual_seed(3)
        for m in self.modules():       # statistics of a trained model, not the identity
            if isinstance(m, nn.BatchNorm2d):
                with torch.no_grad():
                    m.weight.uniform_(0.5, 1.5, generator=g)
                    m.bias.uniform_(-0.5, 0.5, generator=g)
                    m.running_mean.uniform_(-0.3, 0.3, generator=g)
                    m.running_var.uniform_(0.5, 2.0, generator=g)

    def forward(self, x):
        feats = [self.stem(x)]
        for layer in self.layers:
            feats.append(layer(torch.cat(feats, 1)))
        return self.transition(torch.cat(feats, 1))


def test_batch_norm_after_no_conv_runs_as_a_1x1_depthwise_conv():
    # before: the three BatchNorms and their in-place ReLUs fp32 between dequantize and
    # quantize, arena 8,192 B, 32 instructions
    c, calib, held = _compiled(DenseBlock(), (1, 3, 8, 8))
    share, arena, fallbacks = _figures(c)
    assert fallbacks == []
    assert share == 100.0
    assert arena == 2944 and len(c.spec.instructions) == 17      # measured
    ops = [i.op for i in c.spec.instructions]
    assert ops.count("mote::depthwise_conv2d_s8") == 3 and "mote::lut_s8" not in ops
    _host_equals_reference(c, calib, calib + held)
    per_op, end = _quanta_vs_pt2e(DenseBlock(), (1, 3, 8, 8))
    assert per_op <= 1
    assert end <= 1 + 1e-3                        # measured


def test_batch_norm_after_a_conv_still_folds():
    low = _check(BasicBlock(), (1, 8, 8, 8), ["conv2d_s8"])
    assert "mote.depthwise_conv2d_s8.default" not in _mote_ops(low)


# ----------------------------------------------------------------------------- max_pool2d(ceil_mode=True)

class SqueezeNetStem(nn.Module):
    """torchvision SqueezeNet 1.0's start: conv 7x7/2, ReLU, MaxPool2d(3, 2,
    ceil_mode=True), a Fire module (squeeze 1x1, expand 1x1 and 3x3, cat), and
    the next ceil-mode pool."""

    def __init__(self, c=16, squeeze=4, expand=8):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 7, stride=2)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.squeeze = nn.Conv2d(c, squeeze, 1)
        self.expand1x1 = nn.Conv2d(squeeze, expand, 1)
        self.expand3x3 = nn.Conv2d(squeeze, expand, 3, padding=1)
        self.pool2 = nn.MaxPool2d(3, 2, ceil_mode=True)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))
        s = torch.relu(self.squeeze(x))
        x = torch.cat([torch.relu(self.expand1x1(s)), torch.relu(self.expand3x3(s))], 1)
        return self.pool2(x)


def test_max_pool_ceil_mode_stays_int8():
    # before: both pools fp32 between dequantize and quantize, arena 21,952 B, 17 instructions
    c, calib, held = _compiled(SqueezeNetStem(), (1, 3, 33, 33))
    share, arena, fallbacks = _figures(c)
    assert fallbacks == []
    assert share == 100.0
    assert arena == 16335 and len(c.spec.instructions) == 11     # measured
    assert [i.op for i in c.spec.instructions].count("mote::max_pool2d_s8") == 2
    _host_equals_reference(c, calib, calib + held)
    low = _check(SqueezeNetStem(), (1, 3, 33, 33), ["max_pool2d_s8"])
    assert tuple(low(*_inputs((1, 3, 33, 33), 1, 0)[0]).shape) == (1, 16, 3, 3)   # 33 -> 14 -> 7 -> 3 (ceil)


# ----------------------------------------------------------------------------- einsum attention

class MaxViTAttention(nn.Module):
    """torchvision MaxViT's RelativePositionalMultiHeadAttention on [B, G, P, D]:
    q, k, v from one linear (chunk), k scaled, scores by
    einsum("B G H I D, B G H J D -> B G H I J"), a relative position bias,
    softmax, einsum("B G H I J, B G H J D -> B G H I D"), heads merged."""

    def __init__(self, d=16, heads=2, p=9):
        super().__init__()
        self.n_heads, self.head_dim, self.scale_factor = heads, d // heads, (d // heads) ** -0.5
        self.to_qkv = nn.Linear(d, 3 * d)
        self.merge = nn.Linear(d, d)
        self.pos_bias = nn.Parameter(torch.randn(heads, p, p, generator=torch.Generator().manual_seed(5)) * 0.1)

    def forward(self, x):
        B, G, P, D = x.shape
        H, DH = self.n_heads, self.head_dim
        q, k, v = torch.chunk(self.to_qkv(x), 3, dim=-1)
        q = q.reshape(B, G, P, H, DH).permute(0, 1, 3, 2, 4)
        k = k.reshape(B, G, P, H, DH).permute(0, 1, 3, 2, 4)
        v = v.reshape(B, G, P, H, DH).permute(0, 1, 3, 2, 4)
        k = k * self.scale_factor
        dot_prod = torch.einsum("B G H I D, B G H J D -> B G H I J", q, k)
        dot_prod = torch.softmax(dot_prod + self.pos_bias, dim=-1)
        out = torch.einsum("B G H I J, B G H J D -> B G H I D", dot_prod, v)
        return self.merge(out.permute(0, 1, 3, 2, 4).reshape(B, G, P, D))


def test_einsum_attention_runs_in_bmm_s8():
    # before: both einsums fp32 between dequantize and quantize: 78.0 % of the MACs in int8
    # kernels, 57 instructions
    c, calib, held = _compiled(MaxViTAttention(), (1, 2, 9, 16))
    share, arena, fallbacks = _figures(c)
    assert "aten.einsum.default" not in fallbacks and "aten.matmul.default" not in fallbacks
    assert share == 100.0 and len(c.spec.instructions) == 35      # measured
    assert [i.op for i in c.spec.instructions].count("mote::bmm_s8") == 2
    # what still leaves int8 here is not the products: chunk, the scalar k * scale, the bias add
    assert fallbacks == ["aten.add.Tensor", "aten.chunk.default", "aten.mul.Tensor"]
    _host_equals_reference(c, calib, calib + held)
    per_op, end = _quanta_vs_pt2e(MaxViTAttention(), (1, 2, 9, 16))
    assert per_op <= 1
    assert end <= 1 + 1e-3                        # measured


def test_einsum_that_is_no_matrix_product_is_left_alone():
    from aot.compiler.quant.pt2e import decompose_einsum, export_for_quantization

    class Trace(nn.Module):
        def forward(self, x, y):
            return torch.einsum("ii,ij->j", x, y) + torch.einsum("bij,bjk->bik", x[None], y[None])[0, 0]
    gm = export_for_quantization(Trace(), (torch.randn(3, 3), torch.randn(3, 3)))
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets.count(torch.ops.aten.einsum.default) == 1       # "ii,ij->j" (a repeated letter) stays
    assert targets.count(torch.ops.aten.matmul.default) == 1
    assert decompose_einsum(gm) == 0
