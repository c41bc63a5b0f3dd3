"""`Fn`: a test module around a function of itself and its input, with optional
buffers (constants the exported program carries: a window, a filterbank). Shared by
the front-end tests (test_spectrum.py, test_band_mm.py)."""
from torch import nn


class Fn(nn.Module):
    """``Fn(lambda m, x: torch.stft(x, 64, window=m.w, ...), w=torch.hann_window(64))``."""

    def __init__(self, fn, **buffers):
        super().__init__()
        self.fn = fn
        for k, v in buffers.items():
            self.register_buffer(k, v)

    def forward(self, x):
        return self.fn(self, x)
