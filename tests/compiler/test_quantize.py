"""aot/compiler/quant/pt2e.py: the PT2E quantizer follows the TFLite/CMSIS-NN int8 scheme,
calibration sources work, QAT prepares, and int8 stays close to fp32 on the zoo."""
import importlib

import numpy as np
import pytest
import torch

import zoo
from aot.compiler.quant.pt2e import MoteQuantizer, load_calibration, prepare_qat, quantize

QD = torch.ops.quantized_decomposed
aten = torch.ops.aten


def _calls(gm, target):
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target == target]


def _attr(gm, node):
    return getattr(gm, node.target)


def _small_cnn():
    mf = importlib.import_module("zoo.small_cnn")
    return mf, mf.model(), mf.example_inputs()


def test_weights_symmetric_per_channel_bias_int32_derived():
    mf, m, ex = _small_cnn()
    conv, info = quantize(m, ex, mf.calibration_data())
    assert info["calibration_samples"] == len(mf.calibration_data())
    dq_ch = _calls(conv, QD.dequantize_per_channel.default)
    weights = [n for n in dq_ch if n.args[6] == torch.int8]
    biases = [n for n in dq_ch if n.args[6] == torch.int32]
    assert len(weights) == 3 and len(biases) == 3
    for n in weights:
        w = _attr(conv, n.args[0])
        assert w.dtype == torch.int8 and int(w.min()) >= -127
        assert n.args[3] == 0                                     # axis 0 (output channels)
        assert tuple(n.args[4:6]) == (-127, 127)
        assert torch.all(_attr(conv, n.args[2]) == 0)            # symmetric: zero point 0
        assert _attr(conv, n.args[1]).numel() == w.shape[0]      # one scale per channel
    # bias scale == input scale * weight scale (per channel), zero point 0
    for conv_node in _calls(conv, aten.conv2d.default) + _calls(conv, aten.linear.default):
        x_dq, w_dq, b_dq = conv_node.args[:3]
        in_scale = float(x_dq.args[1])
        w_scale = _attr(conv, w_dq.args[1])
        b_scale = _attr(conv, b_dq.args[1])
        assert torch.allclose(b_scale.double(), in_scale * w_scale.double(), rtol=1e-6)
        assert torch.all(_attr(conv, b_dq.args[2]) == 0)
        assert _attr(conv, b_dq.args[0]).dtype == torch.int32


def test_activation_fused_one_observer_after_relu():
    mf, m, ex = _small_cnn()
    conv, _ = quantize(m, ex, mf.calibration_data())
    for relu in _calls(conv, aten.relu.default):
        src = relu.args[0]
        assert src.target == aten.conv2d.default                 # no q/dq between conv and relu
        (user,) = relu.users
        assert user.target == QD.quantize_per_tensor.default
        assert user.args[2] == -128                              # relu output: zp at int8 min
    qs = _calls(conv, QD.quantize_per_tensor.default)
    assert all(q.args[3:6] == (-128, 127, torch.int8) for q in qs)


def test_shared_qparams_pool_cat_flatten():
    for name in ("cov_pooling", "cov_residual_cat"):
        mf = importlib.import_module(f"zoo.{name}")
        conv, _ = quantize(mf.model(), mf.example_inputs(), mf.calibration_data())
        for target in (aten.max_pool2d.default, aten.avg_pool2d.default, aten.flatten.using_ints,
                       aten.permute.default, aten.reshape.default, aten.cat.default):
            for n in _calls(conv, target):
                (q_out,) = n.users
                ins = n.args[0] if target == aten.cat.default else [n.args[0]]
                for dq in ins:
                    assert tuple(dq.args[1:3]) == tuple(q_out.args[1:3]), (name, n.name)


def test_npz_calibration_equals_list(tmp_path):
    mf, m, ex = _small_cnn()
    calib = mf.calibration_data()
    path = tmp_path / "calib.npz"
    np.savez(path, np.stack([c[0].numpy() for c in calib]))
    loaded = load_calibration(path, ex)
    assert len(loaded) == len(calib) and torch.equal(loaded[3][0], calib[3][0])
    a, _ = quantize(m, ex, calib)
    b, info = quantize(m, ex, str(path))
    assert info["calibration_samples"] == len(calib)
    qa = [q.args[1:3] for q in _calls(a, QD.quantize_per_tensor.default)]
    qb = [q.args[1:3] for q in _calls(b, QD.quantize_per_tensor.default)]
    assert qa == qb
    # named like the forward() parameter, one sample
    np.savez(tmp_path / "one.npz", x=ex[0].numpy())
    assert torch.equal(load_calibration(tmp_path / "one.npz", ex, ["x"])[0][0], ex[0])
    with pytest.raises(ValueError):
        np.savez(tmp_path / "bad.npz", np.zeros((2, 3)))
        load_calibration(tmp_path / "bad.npz", ex)


def test_prepare_qat_trains_and_converts():
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e
    mf, m, ex = _small_cnn()
    m.train()
    prepared = prepare_qat(m, ex)
    fqs = [mod for mod in prepared.modules() if type(mod).__name__.endswith("FakeQuantize")]
    assert len(fqs) >= 6
    opt = torch.optim.SGD(prepared.parameters(), lr=1e-3)
    for x in mf.calibration_data()[:3]:
        loss = prepared(*x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    conv = convert_pt2e(prepared)
    assert _calls(conv, QD.quantize_per_tensor.default)
    with torch.no_grad():
        ref = conv(*ex)
    assert ref.shape == (1, 10)
    # the QAT-converted graph lowers to mote ops like a PTQ one
    from aot.compiler.quant.lowering import lower_int8
    low = lower_int8(conv, ex)
    assert any(str(n.target) == "mote.conv2d_s8.default" for n in low.graph.nodes)
    scale = low.meta["mote_int8"].output_qparams[0][0]
    with torch.no_grad():
        assert float((low(*ex) - ref).abs().max()) <= scale * (1 + 1e-3)


class _LinearSoftmax(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(6, 4)

    def forward(self, x):
        return torch.softmax(self.l(x) * 3.0, dim=-1)


def test_softmax_output_fixed_qparams_ptq_and_qat():
    """softmax output: scale 1/256, zero point -128 whatever the calibration
    (FixedQParamsObserver / FixedQParamsFakeQuantize); its input keeps an observer."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e
    torch.manual_seed(0)
    x = torch.randn(8, 6)
    m = _LinearSoftmax().eval()
    conv, _ = quantize(m, (x,), [(x,), (x * 0.1,)])
    (sm,) = _calls(conv, aten.softmax.int)
    (q_out,) = sm.users
    assert q_out.target == QD.quantize_per_tensor.default
    assert tuple(q_out.args[1:6]) == (1 / 256, -128, -128, 127, torch.int8)
    dq_in = sm.args[0]
    assert dq_in.target == QD.dequantize_per_tensor.default and dq_in.args[1] != 1 / 256
    with torch.no_grad():
        got, ref = conv(x), m(x)
    # the PT2E reference output is k / 256 (1.0 saturates at 127 / 256 + 1/2)
    k = got * 256
    assert torch.equal(k, torch.round(k)) and float(got.max()) <= 255 / 256
    assert float((got - ref).abs().max()) < 3 / 256
    prepared = prepare_qat(_LinearSoftmax().train(), (x,))
    fq = [type(mod).__name__ for mod in prepared.modules()]
    assert "FixedQParamsFakeQuantize" in fq
    prepared(x).sum().backward()
    conv = convert_pt2e(prepared)
    (sm,) = _calls(conv, aten.softmax.int)
    assert tuple(next(iter(sm.users)).args[1:3]) == (1 / 256, -128)


def test_quantizer_is_a_pt2e_quantizer():
    from torchao.quantization.pt2e.quantizer import Quantizer
    assert isinstance(MoteQuantizer(), Quantizer)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_int8_close_to_fp32(name):
    """PT2E int8 vs fp32 on held-out random inputs: relative error and, for
    classifiers, top-1 agreement."""
    mf = importlib.import_module(f"zoo.{name}")
    m, ex = mf.model(), mf.example_inputs()
    conv, _ = quantize(m, ex, mf.calibration_data())
    g = torch.Generator().manual_seed(123)
    rels, agree, n = [], 0, 6
    with torch.no_grad():
        for _ in range(n):
            x = tuple(torch.randn(t.shape, generator=g) for t in ex)
            ref, got = m(*x), conv(*x)
            rels.append(float((got - ref).norm() / ref.norm()))
            agree += int(torch.equal(ref.argmax(-1), got.argmax(-1)))
    rels.sort()
    median = (rels[n // 2 - 1] + rels[n // 2]) / 2
    print(f"{name}: int8 vs fp32 relative L2 error median {median:.4f} max {rels[-1]:.4f} "
          f"(outputs beyond the calibrated range clip), top-1 agreement {agree}/{n}")
    assert median < 0.05
    assert rels[-1] < 0.25
    assert agree >= n - 1
