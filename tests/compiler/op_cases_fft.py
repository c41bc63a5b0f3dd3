"""Cases of the real-FFT spectrum operators: ``torch.fft.rfft(x).abs()`` as a user writes it
(the compiler fuses it into mote::rfft_mag, aot/compiler/passes/spectrum.py), and the
fixed-point ops called by name on int16 PCM with the compiler's twiddle tables; a windowed frame of
int16 PCM (mote::rfft_mag_window, spectrum.fuse_window); and the mel
projection after them, a product by a banded constant (mote::band_mm,
aot/compiler/passes/band_mm.py)."""
import numpy as np
import torch
from torch import nn


class _Rfft(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()


class _Fixed(nn.Module):
    """torch.ops.mote.rfft_mag_q15 / _q31 on int16 rows (power spectrum)."""

    def __init__(self, name, n):
        super().__init__()
        from aot.compiler import fftref, mote_ops  # noqa: F401 (registers torch.ops.mote.*)
        self.name = name
        self.register_buffer("tw", torch.from_numpy(fftref.twiddles(n, fftref.TWIDDLE_DTYPES[name])))

    def forward(self, x):
        op = getattr(torch.ops.mote, self.name)
        return op(x, self.tw, 2) if self.name == "rfft_mag_q15" else op(x, self.tw, 2, 31)


class _Windowed(nn.Module):
    """A front end's frame: int16 PCM scaled to +-1, times a Hann window, power spectrum
    (the cast, the scale and the window join the transform: mote::rfft_mag_window)."""

    def __init__(self, n):
        super().__init__()
        self.register_buffer("window", torch.hann_window(n, periodic=True))

    def forward(self, x):
        return torch.fft.rfft(x.to(torch.float32) * (1.0 / 32768.0) * self.window).abs() ** 2


class _Mel(nn.Module):
    """power [.., 257] @ the keyword spotter's mel filterbank [257, 40]."""

    def __init__(self):
        super().__init__()
        from examples.kws.model import mel_filterbank
        self.register_buffer("mel", mel_filterbank())

    def forward(self, x):
        return torch.matmul(x, self.mel)


def _pcm(*shape):
    g = np.random.default_rng(sum(shape))
    return torch.from_numpy(g.integers(-32768, 32768, shape).astype(np.int16))


FP32 = {
    "mote::rfft_mag.out": (_Rfft, (torch.randn(2, 256, generator=torch.Generator().manual_seed(3)),)),
    "mote::rfft_mag_q15.out": (lambda: _Fixed("rfft_mag_q15", 256), (_pcm(2, 256),)),
    "mote::rfft_mag_q31.out": (lambda: _Fixed("rfft_mag_q31", 256), (_pcm(2, 256),)),
    "mote::rfft_mag_window.out": (lambda: _Windowed(256), (_pcm(3, 256),)),
    "mote::band_mm.out": (_Mel, (torch.rand(3, 257, generator=torch.Generator().manual_seed(4)),)),
}
