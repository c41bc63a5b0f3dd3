"""A power-of-two scale folded into the constant multiplying next
(aot/compiler/passes/fold_scale.py) and a number added after a banded product
taken as its bias (aot/compiler/passes/band_mm.py): each one call fewer, and the
program's bytes equal the unfolded float32 arithmetic."""
import numpy as np
import torch
from torch import nn

from aot.compiler.pipeline import compile_module
from aot.host.runtime import Program


class Scaled(nn.Module):
    def __init__(self, s: float, window: torch.Tensor):
        super().__init__()
        self.s = s
        self.register_buffer("window", window)

    def forward(self, x):
        return (x.to(torch.float32) * self.s) * self.window


def _ops(c):
    return [i.op for i in c.spec.instructions]


def _run(c, x):
    return Program(c.pte).method().run([x.numpy()])[0]


def test_power_of_two_scale_joins_the_window():
    window = torch.hann_window(64, periodic=True)
    x = torch.randint(-32768, 32768, (3, 64), dtype=torch.int16, generator=torch.Generator().manual_seed(0))
    c = compile_module("scaled", Scaled(1.0 / 32768.0, window).eval(), (x,))
    assert _ops(c) == ["aten::_to_copy", "aten::mul"], _ops(c)
    want = (x.to(torch.float32) * (1.0 / 32768.0)) * window       # torch's two roundings
    assert np.array_equal(_run(c, x), want.numpy())


def test_other_scales_and_inexact_constants_stay_two_muls():
    x = torch.randint(-100, 100, (2, 8), dtype=torch.int16, generator=torch.Generator().manual_seed(1))
    for s, window in ((0.3, torch.linspace(0.1, 1.0, 8)),                 # not a power of two
                      (2.0 ** -20, torch.full((8,), 1e-34))):             # 2^-20 * 1e-34 leaves the normal range
        c = compile_module("scaled", Scaled(s, window).eval(), (x,))
        assert _ops(c).count("aten::mul") == 2, (s, _ops(c))
        assert np.array_equal(_run(c, x), ((x.to(torch.float32) * s) * window).numpy())


class MelPlusFloor(nn.Module):
    def __init__(self, log: bool):
        super().__init__()
        from examples.kws.model import mel_filterbank
        self.register_buffer("mel", mel_filterbank())
        self.log = log

    def forward(self, power):
        mel = torch.matmul(power, self.mel) + 1e-6
        return torch.log(mel) if self.log else mel


def test_a_number_added_after_band_mm_is_its_bias():
    from aot.compiler import bandref
    power = (torch.rand(2, 257, generator=torch.Generator().manual_seed(2)) ** 4)
    assert _ops(compile_module("logmel", MelPlusFloor(log=True).eval(), (power,))) == ["mote::band_mm", "aten::log"]
    c = compile_module("mel", MelPlusFloor(log=False).eval(), (power,))
    assert _ops(c) == ["mote::band_mm"], _ops(c)
    values, bands = bandref.bands_of(MelPlusFloor(log=False).mel.numpy())
    # the bias adds last: the product's floats, then + 1e-6 in float32, as the add did
    want = bandref.band_mm(power.numpy(), values, bands) + np.float32(1e-6)
    assert np.array_equal(_run(c, power), want)
    assert np.array_equal(want, bandref.band_mm(power.numpy(), values, bands, np.full(40, 1e-6, np.float32)))
