"""mm / addmm / linear by a constant banded weight lower to mote::band_mm
(aot/compiler/passes/band_mm.py): which weights (bandref.worth_it: band storage at most
half the dense weight), the packed constants, the host runtime against the dense fp32
product within bandref.error_bound (one row and several, with and without bias, the
mel filterbank of examples/kws and random bands), weights that stay dense, and a
program whose band table is corrupted in the .pte refused at its call."""
import numpy as np
import pytest
import torch
from torch import nn

from aot.compiler import bandref
from aot.compiler.pipeline import compile_module
from aot.errors import RuntimeCallError
from aot.host.runtime import Program
from tests.compiler.fn_module import Fn

pytestmark = pytest.mark.slow


def _ops(c) -> list:
    return [f"{i.op}.{i.overload}" for i in c.spec.instructions]


def _banded(k, n, seed, width=4):
    """[k, n]: column j nonzero on rows [lo_j, lo_j + width) (clipped), lo_j spread over k."""
    g = torch.Generator().manual_seed(seed)
    w = torch.zeros(k, n)
    for j in range(n):
        lo = (j * (k - 1)) // max(n - 1, 1)
        hi = min(k, lo + width)
        w[lo:hi, j] = torch.rand(hi - lo, generator=g) + 0.5
    return w


def _run(c, x):
    return Program(c.pte).method().run([x.numpy()])[0]


def _mel():
    from examples.kws.model import mel_filterbank
    return mel_filterbank()


@pytest.mark.parametrize("rows", [1, 4])
def test_mel_projection_runs_on_the_bands(rows):
    mel = _mel()
    m = Fn(lambda s, x: torch.matmul(x, s.mel), mel=mel).eval()
    x = torch.rand(rows, 257) * 100
    c = compile_module("mel", m, (x,))
    assert _ops(c) == ["mote::band_mm.out"]
    call = c.spec.instructions[0]
    values, bands = (c.spec.values[a] for a in call.args[1:3])
    want_v, want_b = bandref.bands_of(mel.numpy())
    assert values.constant == want_v.tobytes() and bands.constant == want_b.tobytes()
    assert c.spec.values[call.args[3]] is None                       # no bias
    got = _run(c, x)
    dense = torch.mm(x, mel).numpy()
    assert np.all(np.abs(got - dense) <= bandref.error_bound(x.numpy(), mel.numpy()))
    # the program stores the bands, not the dense matrix: 41,120 B of weight -> 2,292 B
    assert len(c.pte) < 41120


def test_kws_front_end_frame_and_clip_forms():
    """LogMel.frame (one frame, the stream's) and LogMel.forward (stft frames of a batch:
    matmul of [B, frames, 257] by the broadcast mel, one mm of B * frames rows)."""
    from examples.kws import model as km
    front = km.LogMel().eval()
    frame = Fn(lambda s, x: s.f.frame(x)).eval()
    frame.f = front
    x = torch.rand(3, km.N_FFT) - 0.5
    c = compile_module("frame", frame, (x,))
    assert "mote::band_mm.out" in _ops(c) and "aten::mm.out" not in _ops(c)
    want = frame(x).detach().numpy()
    assert np.max(np.abs(_run(c, x) - want)) <= 1e-5 * np.max(np.abs(want))
    pcm = torch.randint(-3000, 3000, (2, 2000), dtype=torch.int16, generator=torch.Generator().manual_seed(3))
    c = compile_module("clip", front, (pcm,))
    calls = [i for i in c.spec.instructions if i.op == "mote::band_mm"]
    assert len(calls) == 1 and "aten::bmm.out" not in _ops(c) and "aten::mm.out" not in _ops(c)
    assert c.spec.values[calls[0].args[0]].sizes == [2 * ((2000 - km.N_FFT) // km.HOP + 1), 257]
    want = front(pcm).numpy()
    assert np.max(np.abs(_run(c, pcm) - want)) <= 1e-5 * np.max(np.abs(want))


@pytest.mark.parametrize("k, n, rows", [(64, 16, 1), (100, 30, 5), (33, 8, 2)])
def test_linear_with_bias_runs_on_the_bands(k, n, rows):
    lin = nn.Linear(k, n)
    with torch.no_grad():
        lin.weight.copy_(_banded(k, n, k).T)
    c = compile_module("lin", lin.eval(), (torch.zeros(rows, k),))
    assert _ops(c) == ["mote::band_mm.out"]
    x = torch.randn(rows, k, generator=torch.Generator().manual_seed(n))
    got = _run(c, x)
    w = lin.weight.detach().T.contiguous().numpy()
    b = lin.bias.detach().numpy()
    dense = torch.addmm(lin.bias.detach(), x, lin.weight.detach().T).numpy()
    assert np.all(np.abs(got - dense) <= bandref.error_bound(x.numpy(), w, b))
    np.testing.assert_array_equal(got, bandref.band_mm(x.numpy(), *bandref.bands_of(w), b))


def test_addmm_with_a_full_bias_adds_it_after():
    w = _banded(40, 12, 1)
    m = Fn(lambda s, x: torch.addmm(s.b, x, s.w), w=w, b=torch.randn(3, 12)).eval()
    x = torch.randn(3, 40)
    c = compile_module("addmm", m, (x,))
    assert _ops(c) == ["mote::band_mm.out", "aten::add.out"]
    got = _run(c, x)
    dense = m(x).numpy()
    assert np.all(np.abs(got - dense) <= bandref.error_bound(x.numpy(), w.numpy(), m.b.numpy()))


def test_threshold_is_half_the_dense_bytes():
    k, n = 40, 10
    # 8 N + 4 P <= 0.5 * 4 K N  <=>  P <= K N / 2 - 2 N = 180
    at = torch.zeros(k, n)
    at[:18, :] = 1.0                                   # P = 180: exactly half
    over = at.clone()
    over[18, 0] = 1.0                                  # P = 181
    assert bandref.band_bytes(bandref.bands_of(at.numpy())[1]) == 2 * k * n
    assert bandref.worth_it(at.numpy()) and not bandref.worth_it(over.numpy())
    x = torch.randn(2, k)
    for w, op in ((at, "mote::band_mm.out"), (over, "aten::mm.out")):
        c = compile_module("t", Fn(lambda s, x: x @ s.w, w=w).eval(), (x,))
        assert _ops(c) == [op]
        assert np.allclose(_run(c, x), (x @ w).numpy(), rtol=1e-6, atol=1e-5)


def test_what_stays_dense():
    w = _banded(64, 16, 2)
    x = torch.randn(2, 64)
    cases = [
        (Fn(lambda s, x: x @ s.w, w=torch.randn(64, 16)), (x,)),                  # dense weight
        (Fn(lambda s, x: s.w.T @ x.T, w=w), (x,)),                              # constant on the left
        (Fn(lambda s, x: torch.addmm(s.b, x, s.w, beta=0.5), w=w, b=torch.randn(16)), (x,)),  # beta
    ]
    for m, args in cases:
        c = compile_module("dense", m.eval(), args)
        assert "mote::band_mm.out" not in _ops(c), _ops(c)
        assert np.allclose(_run(c, *args), m(*args).numpy(), rtol=1e-5, atol=1e-5)

    class Two(nn.Module):
        def forward(self, x, y):
            return x @ y                                                        # not a constant
    c = compile_module("two", Two().eval(), (x, w))
    assert _ops(c) == ["aten::mm.out"]


def test_one_weight_is_packed_once():
    w = _banded(64, 16, 3)
    c = compile_module("twice", Fn(lambda s, x: (x @ s.w) + (2 * x) @ s.w, w=w).eval(), (torch.randn(2, 64),))
    calls = [i for i in c.spec.instructions if i.op == "mote::band_mm"]
    assert len(calls) == 2 and calls[0].args[1:3] == calls[1].args[1:3]


def test_corrupted_band_table_in_the_pte_is_refused():
    mel = _mel()
    c = compile_module("mel", Fn(lambda s, x: x @ s.mel, mel=mel).eval(), (torch.rand(1, 257),))
    _, bands = bandref.bands_of(mel.numpy())
    raw = bands.tobytes()
    at = c.pte.find(raw)
    assert at > 0 and c.pte.find(raw, at + 1) < 0
    x = np.random.default_rng(0).random((1, 257)).astype(np.float32)
    assert np.isfinite(Program(c.pte).method().run([x])[0]).all()
    for j, field, value in ((5, 1, 300), (5, 0, -1), (39, 1, bands[39, 1] + 1), (0, 0, 2 ** 31 - 1)):
        bad = bands.copy()
        bad[j, field] = value
        pte = c.pte[:at] + bad.tobytes() + c.pte[at + len(raw):]
        with pytest.raises(RuntimeCallError) as e:
            Program(pte).method().run([x])
        assert e.value.name == "MOTE_ERR_KERNEL_SHAPE", (j, field, value, e.value)
