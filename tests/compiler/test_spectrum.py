"""The front-end forms users write export and run: ``torch.fft.rfft(x).abs()`` (and ``** 2``,
``.pow(2)``, ``norm=``, another dim) and ``torch.stft(...).abs()`` (and power) become
mote::rfft_mag (aot/compiler/passes/spectrum.py), no complex operator reaches the program,
the transform's scratch is planned, and the host runtime matches eager PyTorch (fp32:
max |error| / max |eager| ≤ 1e-5); a log-mel front end (mel matmul + log) runs with the
existing kernels, and under --int8 is one fp32 island quantized once after the log. Refusals: a length that is not a power of two, a complex value used
otherwise (view_as_real)."""
import numpy as np
import pytest
import torch
from torch import nn

from aot.compiler.pipeline import compile_module
from aot.errors import UnsupportedOpError
from aot.host.runtime import Program
from tests.compiler.fn_module import Fn

pytestmark = pytest.mark.slow


def _max_rel(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12))


def _check(module, x, power=None):
    c = compile_module("spectrum", module.eval(), (x,))
    ops = {f"{i.op}.{i.overload}" for i in c.spec.instructions}
    # a window multiply before the transform joins it (mote::rfft_mag_window)
    assert ops & {"mote::rfft_mag.out", "mote::rfft_mag_window.out"} \
        and not any("fft" in o and "rfft_mag" not in o for o in ops)
    calls = [i for i in c.spec.instructions if i.op in ("mote::rfft_mag", "mote::rfft_mag_window")]
    for call in calls:
        n = c.spec.values[call.args[0]].sizes[-1]
        assert call.scratch_bytes == 4 * n
        if power is not None:
            assert int(c.spec.values[call.args[2]]) == power
    got = Program(c.pte).method().run([x.numpy()])[0]
    with torch.no_grad():
        want = module(x).numpy()
    assert got.shape == want.shape
    assert _max_rel(got, want) <= 1e-5
    return c


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("form, power", [
    (lambda m, x: torch.fft.rfft(x).abs(), 1),
    (lambda m, x: torch.fft.rfft(x).abs() ** 2, 2),
    (lambda m, x: torch.fft.rfft(x).abs().pow(2), 2),
    (lambda m, x: torch.fft.rfft(x, norm="ortho").abs(), 1),
    (lambda m, x: torch.fft.rfft(x, norm="forward").abs() ** 2, 2),
    (lambda m, x: torch.fft.rfft(x).abs()[..., 1:-1] * 2.0, 1),
    (lambda m, x: torch.fft.rfft(x).abs().square(), 2),
    (lambda m, x: torch.abs(torch.fft.rfft(x)) ** 2.0, 2),
    (lambda m, x: (lambda a: a * a)(torch.fft.rfft(x).abs()), 2),
], ids=["abs", "abs**2", "abs.pow2", "ortho", "forward**2", "sliced", "square", "**2.0", "a*a"])
@pytest.mark.parametrize("n", [256, 512, 1024])
def test_rfft_forms(form, power, n):
    _check(Fn(form), _r(3, n, seed=n), power)


def test_two_transforms_share_one_twiddle_table_per_length():
    c = _check(Fn(lambda m, x: torch.fft.rfft(x).abs() + torch.fft.rfft(x * 2).abs() ** 2), _r(2, 256))
    calls = [i for i in c.spec.instructions if i.op == "mote::rfft_mag"]
    assert sorted(int(c.spec.values[i.args[2]]) for i in calls) == [1, 2]
    assert len({i.args[1] for i in calls}) == 1


def test_rfft_with_n_pads_to_the_length():
    c = _check(Fn(lambda m, x: torch.fft.rfft(x, n=512).abs()), _r(2, 400))
    assert "aten::constant_pad_nd" in {i.op for i in c.spec.instructions}


def test_full_fft_of_a_real_signal():
    _check(Fn(lambda m, x: torch.fft.fft(x).abs()), _r(2, 256))
    _check(Fn(lambda m, x: torch.fft.fft(x, dim=0).abs() ** 2), _r(64, 3))
    _check(Fn(lambda m, x: torch.stft(x, 256, 64, window=m.win, onesided=False, return_complex=True).abs(),
              win=torch.hann_window(256)), _r(1, 1000))


def test_rfft_of_another_dim_and_rank():
    _check(Fn(lambda m, x: torch.fft.rfft(x, dim=1).abs()), _r(2, 64, 3))
    _check(Fn(lambda m, x: torch.fft.rfft(x).abs()), _r(512))


@pytest.mark.parametrize("n_fft, hop, power", [(256, 128, 1), (512, 160, 2), (1024, 256, 2)])
def test_stft_forms(n_fft, hop, power):
    def f(m, x):
        s = torch.stft(x, n_fft, hop, window=m.win, return_complex=True).abs()
        return s if power == 1 else s.pow(2)
    _check(Fn(f, win=torch.hann_window(n_fft)), _r(1, 4000, seed=n_fft), power)


@pytest.mark.parametrize("kw, win", [({"normalized": True}, torch.hann_window(256)),
                                     ({"win_length": 200}, torch.hamming_window(200)),
                                     ({"pad_mode": "constant"}, torch.hann_window(256))],
                         ids=["normalized", "win_length", "constant-pad"])
def test_stft_options(kw, win):
    _check(Fn(lambda m, x: torch.stft(x, 256, 64, window=m.win, return_complex=True, **kw).abs(), win=win),
           _r(1, 1000))


def test_stft_without_centering_rectangular_window():
    _check(Fn(lambda m, x: torch.stft(x, 256, 64, window=m.win, center=False, return_complex=True).abs(),
              win=torch.ones(256)), _r(2, 1000))


def _mel_filterbank(n_freq: int, n_mels: int, sr: int) -> torch.Tensor:
    """Triangular mel filters [n_mels, n_freq] (HTK mel scale)."""
    mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)        # noqa: E731
    hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)         # noqa: E731
    edges = hz(np.linspace(mel(0.0), mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_freq)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    fb = np.maximum(0, np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)))
    return torch.from_numpy(fb.astype(np.float32))


class LogMel(nn.Module):
    """The KWS front end as a user writes it: 16 kHz PCM -> 40 log-mel bands per 10 ms."""

    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(512))
        self.register_buffer("fb", _mel_filterbank(257, 40, 16000))

    def forward(self, pcm):
        spec = torch.stft(pcm, 512, 160, window=self.win, return_complex=True).abs() ** 2
        mel = torch.matmul(self.fb, spec)                     # [B, 40, frames]
        return torch.log(mel + 1e-6)


def test_log_mel_front_end_end_to_end():
    c = _check(LogMel(), 0.1 * _r(1, 16000, seed=5), power=2)
    ops = {f"{i.op}.{i.overload}" for i in c.spec.instructions}
    assert {"aten::log.out", "mote::rfft_mag_window.out"} <= ops  # stft's window joins the transform


def test_length_not_a_power_of_two_is_one_clear_error():
    with pytest.raises(UnsupportedOpError, match=r"real FFT of 400 samples.*n=512"):
        compile_module("bad", Fn(lambda m, x: torch.fft.rfft(x).abs()).eval(), (_r(2, 400),))


def test_complex_value_used_otherwise_is_refused():
    with pytest.raises(UnsupportedOpError, match=r"_fft_r2c.*rfft_mag"):
        compile_module("bad", Fn(lambda m, x: torch.view_as_real(torch.fft.rfft(x))).eval(), (_r(2, 64),))


def test_kws_stream_front_end_exports():
    """examples/kws: the one-hop streaming keyword spotter (int16 PCM -> rfft power -> mel ->
    log -> causal DS-CNN, state in mutable buffers) compiles with its FFT as mote::rfft_mag
    and its first hops match eager."""
    from examples.kws import model as km
    torch.manual_seed(0)
    net = km.KwsNet().eval()
    hops = torch.randint(-3000, 3000, (3, 1, km.HOP), dtype=torch.int16,
                         generator=torch.Generator().manual_seed(1))
    c = compile_module("kws_stream", km.KwsStream(net).eval(), (hops[0],))
    # the int16 hop's cast, its 1/32768 and the Hann window join the transform
    assert "mote::rfft_mag_window" in {i.op for i in c.spec.instructions}
    method = Program(c.pte).method()
    eager = km.KwsStream(net).eval()
    for hop in hops:
        got = method.run([hop.numpy()])[0]
        with torch.no_grad():
            want = eager(hop).numpy()
        assert _max_rel(got, want) <= 1e-5


def _int8_front_end_is_one_island(name: str, net: nn.Module, calibration: list) -> tuple:
    """Compiles `net` with --int8 (an fp32 fallback is an error) and asserts that its front
    end is one fp32 island, quantized once, after the log: no fallback site, the one island
    "front_end", one quantize_per_tensor, and the transform (stft's window joined to it:
    mote::rfft_mag_window) < log < that quantize in the program.
    Returns (compiled, its int8 info, the program's ops in order)."""
    import warnings
    from aot.compiler.quant.lowering import Int8FallbackWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error", Int8FallbackWarning)
        c = compile_module(name, net.eval(), calibration[0], int8=True, calibration=calibration)
    info = c.program.graph_module.meta["mote_int8"]
    assert info.fallback_sites == [] and [k for k, _ in info.fp32_islands] == ["front_end"]
    ops = [i.op for i in c.spec.instructions]
    quantize = "quantized_decomposed::quantize_per_tensor"
    assert ops.count(quantize) == 1
    assert ops.index("mote::rfft_mag_window") < ops.index("aten::log") < ops.index(quantize)
    return c, info, ops


def test_log_mel_front_end_under_int8_is_one_fp32_island():
    """--int8: torch.stft's framing and window, rfft, power, mel product and log are one
    planned fp32 island (no observer inside, no fallback), quantized once after the log;
    the int8 convolution after it runs on the host as the integer reference computes it
    and within one quantum of PT2E."""
    from examples.kws import model as km

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.front = km.LogMel()
            self.conv = nn.Conv1d(km.N_MELS, 8, 3)

        def forward(self, pcm):
            return self.conv(self.front(pcm)).relu()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    pcm = [(torch.randint(-3000, 3000, (1, 2000), dtype=torch.int16, generator=g),) for _ in range(4)]
    c, info, ops = _int8_front_end_is_one_island("log_mel_int8", Net(), pcm)
    assert "mote::conv2d_s8" in ops
    scale = info.output_qparams[0][0]
    method = Program(c.pte).method()
    lowered = c.program.module()
    with torch.no_grad():
        for (x,) in pcm:
            got = method.run([x.numpy()])[0]
            assert np.array_equal(got, lowered(x).numpy())
            assert float(np.abs(got - c.reference(x).numpy()).max()) <= 1.001 * scale


def test_centered_stft_under_int8_keeps_the_samples_in_the_island():
    """torch.stft's default center=True pads the samples (aten.pad, reflect) before framing:
    under --int8 that pad belongs to the front end's fp32 island too, so the samples are
    read as they come (no quantize before the transform, no fp32 fallback) and the one
    quantize follows the log."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("win", torch.hann_window(256))
            self.conv = nn.Conv1d(129, 4, 3)

        def forward(self, pcm):
            spec = torch.stft(pcm.float() / 32768.0, 256, 128, window=self.win, return_complex=True)
            return self.conv(torch.log(spec.abs() ** 2 + 1e-6)).relu()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    pcm = [(torch.randint(-3000, 3000, (1, 1024), dtype=torch.int16, generator=g),) for _ in range(3)]
    _int8_front_end_is_one_island("stft_center_int8", Net(), pcm)
