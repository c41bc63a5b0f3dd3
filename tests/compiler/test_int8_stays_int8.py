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

from test_int8_lowering import _check, _mote_ops


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
