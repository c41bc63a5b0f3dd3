"""One small PyTorch model per operator the compiler can emit (see
test_op_coverage.py). Each entry: operator -> (module factory, example inputs).

Operator families keep their cases in ``op_cases_<family>.py`` beside this
file (a dict ``FP32`` of the same form, optionally a set ``EXECUTORCH_ONLY``);
they are merged into the tables below, and an operator listed twice fails."""
import importlib
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


class Fn(nn.Module):
    """A module around a function of the inputs (and optional constants)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def _r(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


def _seq(*mods):
    torch.manual_seed(0)
    return nn.Sequential(*mods).eval()


FP32 = {
    "aten::_adaptive_avg_pool2d.out": (lambda: Fn(lambda x: F.adaptive_avg_pool2d(x, (2, 3))), (_r(1, 2, 4, 6),)),
    "aten::_log_softmax.out": (lambda: Fn(lambda x: F.log_softmax(x, -1)), (_r(2, 5),)),
    "aten::_native_batch_norm_legit_no_training.out": (lambda: _seq(nn.BatchNorm2d(3)), (_r(1, 3, 4, 4),)),
    "aten::_softmax.out": (lambda: Fn(lambda x: F.softmax(x, -1)), (_r(2, 5),)),
    "aten::add.Scalar_out": (lambda: Fn(lambda x: x + 1.5), (_r(2, 3),)),
    "aten::add.out": (lambda: Fn(lambda x, y: x + y), (_r(2, 3), _r(1, 3))),
    "aten::addmm.out": (lambda: _seq(nn.Linear(6, 4)), (_r(2, 6),)),
    "aten::avg_pool2d.out": (lambda: _seq(nn.AvgPool2d(2)), (_r(1, 2, 4, 4),)),
    "aten::bmm.out": (lambda: Fn(lambda x, y: torch.bmm(x, y)), (_r(2, 3, 4), _r(2, 4, 5))),
    "aten::cat.out": (lambda: Fn(lambda x, y: torch.cat([x, y], 1)), (_r(2, 3), _r(2, 2))),
    "aten::clamp.out": (lambda: Fn(lambda x: torch.clamp(x, -0.5, 0.7)), (_r(2, 3),)),
    "aten::constant_pad_nd.out": (lambda: Fn(lambda x: F.pad(x, (1, 2), value=0.5)), (_r(2, 3),)),
    "aten::convolution.out": (lambda: _seq(nn.Conv2d(3, 4, 3, padding=1)), (_r(1, 3, 6, 6),)),
    "aten::div.Scalar_out": (lambda: Fn(lambda x: x / 6.0), (_r(2, 3),)),
    "aten::div.out": (lambda: Fn(lambda x, y: x / (y * y + 1.0)), (_r(2, 3), _r(2, 3))),
    "aten::exp.out": (lambda: Fn(torch.exp), (_r(2, 3),)),
    "aten::expand_copy.out": (lambda: Fn(lambda x: x.expand(3, 2, 4) * 1.0), (_r(2, 4),)),
    "aten::hardtanh.out": (lambda: _seq(nn.ReLU6()), (_r(2, 3) * 4,)),
    "aten::max_pool2d_with_indices.out": (lambda: _seq(nn.MaxPool2d(2)), (_r(1, 2, 4, 4),)),
    "aten::mean.out": (lambda: Fn(lambda x: x.mean(dim=-1)), (_r(2, 5),)),
    "aten::mm.out": (lambda: Fn(lambda x, y: x @ y), (_r(3, 4), _r(4, 2))),
    "aten::mul.Scalar_out": (lambda: Fn(lambda x: x * 2.5), (_r(2, 3),)),
    "aten::mul.out": (lambda: Fn(lambda x, y: x * y), (_r(2, 3), _r(2, 3))),
    "aten::neg.out": (lambda: Fn(lambda x: -x), (_r(2, 3),)),
    "aten::permute_copy.out": (lambda: Fn(lambda x: x.permute(0, 2, 1) * 1.0), (_r(2, 3, 4),)),
    "aten::relu.out": (lambda: _seq(nn.ReLU()), (_r(2, 3),)),
    "aten::rsqrt.out": (lambda: Fn(lambda x: torch.rsqrt(x * x + 1.0)), (_r(2, 3),)),
    "aten::select_copy.int_out": (lambda: Fn(lambda x: x[:, 1] * 1.0), (_r(2, 3, 4),)),
    "aten::sigmoid.out": (lambda: _seq(nn.Sigmoid()), (_r(2, 3),)),
    "aten::slice_copy.Tensor_out": (lambda: Fn(lambda x: x[:, 1:3] * 1.0), (_r(2, 5),)),
    "aten::sub.Scalar_out": (lambda: Fn(lambda x: x - 1.5), (_r(2, 3),)),
    "aten::sub.out": (lambda: Fn(lambda x, y: x - y), (_r(2, 3), _r(2, 3))),
    "aten::sum.IntList_out": (lambda: Fn(lambda x: x.sum(dim=1)), (_r(2, 5),)),
    "aten::tanh.out": (lambda: _seq(nn.Tanh()), (_r(2, 3),)),
    "executorch_prim::et_view.default": (lambda: Fn(lambda x: torch.relu(x).reshape(3, 4) + 1.0), (_r(2, 6),)),
    "aten::view_copy.out": (lambda: Fn(lambda x: torch.relu(x).reshape(3, 4)), (_r(2, 6),)),
    "aten::clone.out": (lambda: Fn(lambda x: x.clone()), (_r(2, 3),)),
    "aten::full.out": (lambda: Fn(lambda x: torch.full((2, 3), 1.5)), (_r(2, 3),)),
}


class _Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.gc = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.conv(F.pad(x, (1, 1, 1, 1))))
        y = torch.relu(self.gc(torch.relu(self.dw(y))))
        y = self.avg(self.pool(y) + self.pool(y) * self.pool(y))
        y = torch.sigmoid(y.mean(dim=(2, 3)))
        return F.softmax(self.fc(y), -1)


class _Resize(nn.Module):
    """Transposed conv, bilinear down, nearest up, add: the int8 resampling kernels."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(3, 3, 2, stride=2)

    def forward(self, x):
        y = F.interpolate(self.up(x), scale_factor=0.25, mode="bilinear", align_corners=False)
        return x + F.interpolate(y, scale_factor=2, mode="nearest")


class _Gram(nn.Module):
    """x + (x @ x^T) / 8 per channel: a batched product of two activations (mote::bmm_s8)."""

    def forward(self, x):
        return x + torch.matmul(x, x.transpose(-2, -1)) / 8.0


INT8_MODEL = (lambda: _seq(_Resize(), _Gram(), _Cnn()), (_r(1, 3, 8, 8),))
#: what the int8 model above must contain (the int8 compile emits these)
INT8 = ("mote::add_s8.out", "mote::avg_pool2d_s8.out", "mote::conv2d_s8.out",
        "mote::depthwise_conv2d_s8.out", "mote::linear_s8.out", "mote::max_pool2d_s8.out",
        "mote::mean_s8.out", "mote::mul_s8.out", "mote::lut_s8.out", "mote::pad_s8.out", "mote::softmax_s8.out",
        "quantized_decomposed::quantize_per_tensor.out",
        "quantized_decomposed::dequantize_per_tensor.out")
INT8 = INT8 + ("mote::conv_transpose2d_s8.out", "mote::upsample_bilinear2d_s8.out",
               "mote::upsample_nearest2d_s8.out", "mote::bmm_s8.out", "mote::grouped_conv2d_s8.out")

class _Recurrent(nn.Module):
    """An LSTM then a GRU over 6 steps, the last hidden state classified: the int8
    recurrent cells (one mote::lstm_cell_s8 / gru_cell_s8 per step)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        self.gru = nn.GRU(8, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        _, h = self.gru(y)
        return self.fc(h[-1])


INT8_RNN_MODEL = (lambda: _Recurrent().eval(), (_r(1, 6, 4),))
#: what an --int8 compile of the recurrent model above emits (tests/compiler/test_op_coverage.py)
INT8_RNN = ("mote::lstm_cell_s8.out", "mote::gru_cell_s8.out")

class _Window(nn.Module):
    """A 1-D conv over its last 5 inputs, kept whole in a mutable buffer: an int8 compile
    updates the window in place (mote::window_push, aot/compiler/windows.py)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 3, 5)
        self.register_buffer("win", torch.zeros(1, 4, 5))

    def forward(self, x):
        w = torch.cat([self.win, x], dim=-1)[..., 1:]
        self.win.copy_(w)
        return self.conv(w)


INT8_STATE_MODEL = (lambda: _Window().eval(), (_r(1, 4, 1),))
#: what an --int8 compile of the stateful model above emits (tests/compiler/test_op_coverage.py)
INT8_STATE = ("mote::window_push.default",)

#: what an --int8 --layout planar compile of a pointwise -> depthwise pair emits
#: (aot.compiler.layout names them; tests/compiler/test_op_coverage.py runs them)
def _planar_ops() -> tuple:
    from aot.compiler.layout import DW_PLANAR, PW_PLANAR
    return tuple(f"{op}.{overload}" for op, overload in (PW_PLANAR, DW_PLANAR))


INT8_PLANAR = _planar_ops()
INT8_PLANAR_MODEL = (lambda: nn.Sequential(nn.Conv2d(3, 8, 1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1, groups=8),
                                           nn.ReLU(), nn.Conv2d(8, 4, 1)).eval(), (_r(1, 3, 8, 8),))

#: what an --int8 compile with DSP weights (a DSP board) of an RGB 3x3 stem emits: the stem
#: reads the NCHW input (aot.compiler.dsp_weights.nchw_stem_pass; tests/compiler/test_op_coverage.py)
INT8_NCHW = ("mote::conv2d_s8_nchw.out",)
INT8_NCHW_MODEL = (lambda: nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                         nn.Conv2d(8, 4, 1)).eval(), (_r(1, 3, 12, 12),))

#: what an --int8 --int4-weights compile of a Linear emits (tests/compiler/test_op_coverage.py)
INT4X8 = ("mote::linear_s4.out",)

#: what an --int16-activations compile of a conv / depthwise / linear model emits
INT16 = ("mote::conv2d_s16.out", "mote::depthwise_conv2d_s16.out", "mote::linear_s16.out")

#: Operators with a kernel that Mote's lowering never emits (it turns squeeze and
#: unsqueeze into views and has no dim-order or dynamic-quantization stage):
#: they run ExecuTorch-made programs, proven in tests/runtime (test_et_quantized.py,
#: test_zoo_runtime.py) against the executorch oracle.
EXECUTORCH_ONLY = {
    "aten::squeeze_copy.dims_out", "aten::unsqueeze_copy.out",
    "dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out",
    "quantized_decomposed::choose_qparams.Tensor_out",
    "quantized_decomposed::dequantize_per_channel.out",
    "quantized_decomposed::dequantize_per_tensor.Tensor_out",
    "quantized_decomposed::quantize_per_tensor.Tensor_out",
}


def _merge_families() -> None:
    for f in sorted(Path(__file__).resolve().parent.glob("op_cases_*.py")):
        mod = importlib.import_module(f.stem)
        for op, case in getattr(mod, "FP32", {}).items():
            if op in FP32:
                raise ValueError(f"{f.name}: {op} already has a case")
            FP32[op] = case
        EXECUTORCH_ONLY.update(getattr(mod, "EXECUTORCH_ONLY", set()))


_merge_families()
