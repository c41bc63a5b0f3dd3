"""Transposed convolution and nearest / bilinear upsampling lower to
mote::conv_transpose2d_s8 / upsample_nearest2d_s8 / upsample_bilinear2d_s8
with no fp32 fallback, within one output quantum of the PT2E reference (end to
end and op by op on PT2E's own int8 inputs)."""
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from tests.compiler.test_int8_lowering import _check, _inputs, _lower, _targets, per_op_quanta

aten = torch.ops.aten


class TConv(nn.Module):
    def __init__(self, cin=4, cout=6, k=3, stride=2, padding=1, output_padding=1, groups=2,
                 dilation=1, relu=True, bias=True):
        super().__init__()
        self.t = nn.ConvTranspose2d(cin, cout, k, stride, padding, output_padding, groups, bias,
                                    dilation)
        self.relu = relu

    def forward(self, x):
        y = self.t(x)
        return torch.relu(y) if self.relu else y


class Up(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.c = nn.Conv2d(3, 5, 3, padding=1)
        self.kw = kw

    def forward(self, x):
        return F.interpolate(self.c(x), **self.kw)


def _no_fallback(low):
    info = low.meta["mote_int8"]
    assert info.fallback_ops == [], info.fallback_ops
    assert not any("upsample" in str(t) or "conv_transpose" in str(t) for t in _targets(low)
                   if not str(t).startswith("mote."))


def _per_op(module, shape):
    calib = _inputs(shape)
    conv, low = _lower(module.eval(), calib[0], calib)
    worst = {}
    for x in calib:
        for k, v in per_op_quanta(conv, low, x)[0].items():
            worst[k] = max(worst.get(k, 0), v)
    return worst


@pytest.mark.parametrize("args,shape", [
    (dict(), (1, 4, 5, 6)),                                                      # s2 p1 op1 g2 + relu
    (dict(cin=32, cout=16, k=2, stride=2, padding=0, output_padding=0, groups=1, relu=False), (1, 32, 4, 4)),
    (dict(cin=3, cout=5, k=(3, 2), stride=(1, 2), padding=(0, 1), output_padding=(0, 1), groups=1,
          dilation=(2, 1), bias=False), (2, 3, 4, 5)),
    (dict(cin=6, cout=6, k=3, stride=3, padding=2, output_padding=2, groups=3), (1, 6, 3, 4)),
])
def test_conv_transpose2d_lowers_to_int8(args, shape):
    torch.manual_seed(0)
    low = _check(TConv(**args), shape, ["conv_transpose2d_s8"])
    _no_fallback(low)
    if args.get("relu", True):     # relu fused into the clamp
        assert aten.relu.default not in _targets(low)
    n = next(n for n in low.graph.nodes if n.target == torch.ops.mote.conv_transpose2d_s8.default)
    w = getattr(low, n.args[1].target)
    cin, cout, g = args.get("cin", 4), args.get("cout", 6), args.get("groups", 2)
    assert w.dtype == torch.int8 and w.shape[0] == cout and w.shape[3] == cin // g   # [Cout, KH, KW, Cin/g]
    torch.manual_seed(0)
    assert max(_per_op(TConv(**args), shape).values()) <= 1


def test_conv_transpose2d_packed_weight_is_torch_weight():
    """Packing [Cin, Cout/g, KH, KW] -> [Cout, KH, KW, Cin/g] keeps every value:
    unpacking the lowered constant gives PT2E's int8 weight back."""
    torch.manual_seed(0)
    m = TConv().eval()
    calib = _inputs((1, 4, 5, 6))
    conv, low = _lower(m, calib[0], calib)
    n = next(n for n in low.graph.nodes if n.target == torch.ops.mote.conv_transpose2d_s8.default)
    wpk = getattr(low, n.args[1].target)
    wq = next(getattr(conv, a.target) for a in conv.graph.nodes
              if a.op == "get_attr" and getattr(conv, a.target).dtype == torch.int8)
    g, cout, kh, kw, cin_g = 2, 6, 3, 3, 2
    back = wpk.reshape(g, cout // g, kh, kw, cin_g).permute(0, 4, 1, 2, 3).reshape(4, 3, kh, kw)
    assert torch.equal(back, wq)
    assert list(n.args[5:10]) == [[2, 2], [1, 1], [1, 1], [1, 1], 2]


@pytest.mark.parametrize("kw,shape", [
    (dict(scale_factor=2, mode="nearest"), (1, 3, 5, 4)),
    (dict(scale_factor=(1.5, 3), mode="nearest"), (1, 3, 6, 3)),
    (dict(size=(7, 9), mode="nearest"), (2, 3, 4, 5)),
    (dict(scale_factor=2, mode="nearest-exact"), (1, 3, 5, 4)),
    (dict(size=(5, 5), mode="nearest-exact"), (1, 3, 3, 4)),
])
def test_upsample_nearest_lowers_to_int8(kw, shape):
    torch.manual_seed(0)
    low = _check(Up(**kw), shape, ["upsample_nearest2d_s8"])
    _no_fallback(low)
    torch.manual_seed(0)
    per_op = _per_op(Up(**kw), shape)
    up = [v for k, v in per_op.items() if "upsample" in k or "interpolate" in k]
    assert up and max(up) == 0      # a pure copy: PT2E's bytes exactly
    assert max(per_op.values()) <= 1


@pytest.mark.parametrize("kw,shape", [
    (dict(scale_factor=2, mode="bilinear", align_corners=False), (1, 3, 5, 4)),
    (dict(scale_factor=2, mode="bilinear", align_corners=True), (1, 3, 5, 4)),
    (dict(size=(11, 6), mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    (dict(size=(11, 6), mode="bilinear", align_corners=False), (2, 3, 4, 5)),
    (dict(scale_factor=(1.5, 0.5), mode="bilinear", align_corners=False), (1, 3, 6, 8)),
    (dict(scale_factor=(1.7, 2.5), mode="bilinear", align_corners=True), (1, 3, 5, 4)),
])
def test_upsample_bilinear_lowers_to_int8(kw, shape):
    torch.manual_seed(0)
    low = _check(Up(**kw), shape, ["upsample_bilinear2d_s8"])
    _no_fallback(low)
    torch.manual_seed(0)
    assert max(_per_op(Up(**kw), shape).values()) <= 1


def test_unet_small_runs_all_in_int8():
    import zoo
    import importlib
    mf = importlib.import_module("zoo.garden.unet_small")
    calib = mf.calibration_data()
    conv, low = _lower(mf.model(), mf.example_inputs(), calib)
    _no_fallback(low)
    ops = {str(t) for t in _targets(low)}
    assert {"mote.conv_transpose2d_s8.default", "mote.upsample_bilinear2d_s8.default"} <= ops
    worst = {}
    for x in [mf.example_inputs()] + list(calib)[:3]:
        for k, v in per_op_quanta(conv, low, x)[0].items():
            worst[k] = max(worst.get(k, 0), v)
    assert max(worst.values()) <= 1, worst


def test_out_overloads_exist():
    for name in ("conv_transpose2d_s8", "upsample_nearest2d_s8", "upsample_bilinear2d_s8"):
        packet = getattr(torch.ops.mote, name)
        assert "out" in packet.overloads()
        assert packet.out._schema.arguments[-1].name == "out"
