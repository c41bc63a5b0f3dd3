"""The streaming keyword spotter: a log-mel front end and a causal depthwise-separable
network, written once in PyTorch for training (whole clips) and for the device (one
10 ms hop at a time, the history kept in mutable buffers).

Front end (``LogMel``): PCM int16 at 16 kHz -> frames of N_FFT = 512 samples (32 ms)
every HOP = 160 samples (10 ms), periodic Hann window -> power spectrum |rfft|^2
(257 bins) -> N_MELS = 40 triangular mel filters (HTK mel scale, 20 Hz - 8 kHz)
-> log(mel + LOG_FLOOR). Output: float32 [B, 40, frames].

Network (``KwsNet``): causal Conv1d over time, so an output frame depends only on
the frames before it, and the same weights run frame by frame:
conv k=3 (40 -> C) + BN + ReLU, then BLOCKS x [depthwise k=3 with dilation
1, 2, 4, 8 + pointwise C -> C + BN + ReLU], then the mean over the last WINDOW
frames and a linear layer to the scores of LABELS. Receptive field before the
mean: 1 + 2 * (1 + 1 + 2 + 4 + 8) = 33 frames (330 ms).

``KwsStream`` is the device's form: ``forward(pcm)`` takes one hop (int16 [1, 160])
and returns the scores (float32 [1, len(LABELS)]) of the newest WINDOW frames.
Its buffers (the last N_FFT samples, each conv's last 2 x dilation + 1 inputs, the
last WINDOW embeddings) are mutable buffers: the program's state. Each holds the
whole window its reader reads, so a hop updates it with one in-place call
(mote::window_push, aot/compiler/windows.py).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from examples.kws.dataset import CLIP_SAMPLES, LABELS, SAMPLE_RATE

N_FFT = 512
HOP = 160
N_MELS = 40
F_MIN, F_MAX = 20.0, SAMPLE_RATE / 2
LOG_FLOOR = 1e-6
#: Frames in one second of audio: (16000 - 512) // 160 + 1 = 97, the frames
#: the scores average over.
WINDOW = (CLIP_SAMPLES - N_FFT) // HOP + 1
#: A clip reaches the device as HOPS hops of HOP samples: ALIGN zeros, then the
#: clip's first HOPS * HOP - ALIGN samples. ALIGN = (-N_FFT) mod HOP makes the
#: stream's frames (each ends on a hop) the frames stft takes from the clip
#: (each starts on a hop): the last WINDOW frames cover clip[0 : 15872].
ALIGN = (-N_FFT) % HOP
HOPS = CLIP_SAMPLES // HOP
CHANNELS = 64
DILATIONS = (1, 2, 4, 8)


def _hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_filterbank(n_fft: int = N_FFT, n_mels: int = N_MELS, sr: int = SAMPLE_RATE,
                   fmin: float = F_MIN, fmax: float = F_MAX) -> torch.Tensor:
    """Triangular filters on the HTK mel scale, mel = 2595 log10(1 + f / 700):
    float32 [n_fft // 2 + 1, n_mels], each filter's peak 1 at its centre bin."""
    lo, hi = _hz_to_mel(fmin), _hz_to_mel(fmax)
    mels = torch.linspace(lo, hi, n_mels + 2, dtype=torch.float64)
    hz = 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    bins = torch.linspace(0, sr / 2, n_fft // 2 + 1, dtype=torch.float64)
    left, centre, right = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    up = (bins[None] - left) / (centre - left)
    down = (right - bins[None]) / (right - centre)
    return torch.clamp(torch.minimum(up, down), min=0.0).T.contiguous().to(torch.float32)


class LogMel(nn.Module):
    """int16 PCM [B, S] -> log-mel float32 [B, N_MELS, (S - N_FFT) // HOP + 1]."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT, periodic=True), persistent=False)
        self.register_buffer("mel", mel_filterbank(), persistent=False)

    def forward(self, pcm: torch.Tensor) -> torch.Tensor:
        x = pcm.to(torch.float32) * (1.0 / 32768.0)
        spec = torch.stft(x, N_FFT, HOP, window=self.window, center=False, return_complex=True)
        power = spec.abs().pow(2)                               # [B, 257, frames]
        return torch.log(torch.matmul(power.transpose(1, 2), self.mel) + LOG_FLOOR).transpose(1, 2)

    def frame(self, samples: torch.Tensor) -> torch.Tensor:
        """One frame: float32 samples [B, N_FFT] (scaled to +-1) -> log-mel [B, N_MELS]."""
        power = torch.fft.rfft(samples * self.window).abs().pow(2)
        return torch.log(torch.matmul(power, self.mel) + LOG_FLOOR)


class KwsNet(nn.Module):
    """Log-mel [B, N_MELS, T] -> scores [B, len(LABELS)] (the mean of the last WINDOW frames)."""

    def __init__(self, channels: int = CHANNELS, dilations=DILATIONS):
        super().__init__()
        self.dilations = tuple(dilations)
        self.conv0 = nn.Conv1d(N_MELS, channels, 3)
        self.bn0 = nn.BatchNorm1d(channels)
        self.dw = nn.ModuleList(nn.Conv1d(channels, channels, 3, dilation=d, groups=channels) for d in dilations)
        self.pw = nn.ModuleList(nn.Conv1d(channels, channels, 1) for _ in dilations)
        self.bn = nn.ModuleList(nn.BatchNorm1d(channels) for _ in dilations)
        self.fc = nn.Linear(channels, len(LABELS))

    def embed(self, feats: torch.Tensor) -> torch.Tensor:
        """Per-frame embeddings [B, C, T] of causal convolutions (zero history)."""
        x = F.relu(self.bn0(self.conv0(F.pad(feats, (2, 0)))))
        for d, dw, pw, bn in zip(self.dilations, self.dw, self.pw, self.bn):
            x = F.relu(bn(pw(dw(F.pad(x, (2 * d, 0))))))
        return x

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        return self.fc(self.embed(feats)[:, :, -WINDOW:].mean(2))


def stream_input(pcm: torch.Tensor) -> torch.Tensor:
    """int16 clips [B, 16000] -> what the stream sees: int16 [B, HOPS * HOP]
    (ALIGN zeros, then the clip's start)."""
    return F.pad(pcm[:, :HOPS * HOP - ALIGN], (ALIGN, 0))


def clip_features(front: LogMel, pcm: torch.Tensor) -> torch.Tensor:
    """Log-mel [B, N_MELS, HOPS] of clips [B, 16000], exactly the frames a
    KwsStream computes hop by hop from a reset state (its sample history
    starts as N_FFT - HOP zeros)."""
    return front(F.pad(stream_input(pcm), (N_FFT - HOP, 0)))


class KwsModel(nn.Module):
    """Training form: int16 PCM [B, 16000] -> scores [B, len(LABELS)], equal to
    KwsStream's scores after the clip's HOPS hops from a reset state."""

    def __init__(self, net: KwsNet = None):
        super().__init__()
        self.front = LogMel()
        self.net = net if net is not None else KwsNet()

    def forward(self, pcm: torch.Tensor) -> torch.Tensor:
        return self.net(clip_features(self.front, pcm))


class KwsStream(nn.Module):
    """Device form: one hop int16 [1, HOP] -> scores float32 [1, len(LABELS)] of
    the newest WINDOW frames. Mutable buffers (the program's state, zero at
    reset), each the whole window its reader reads: the last N_FFT samples, each
    convolution's last 2 x dilation + 1 inputs, the last WINDOW embeddings."""

    def __init__(self, net: KwsNet):
        super().__init__()
        self.front = LogMel()
        self.net = net
        c = net.conv0.out_channels
        self.register_buffer("samples", torch.zeros(1, N_FFT, dtype=torch.int16))
        self.register_buffer("feats", torch.zeros(1, N_MELS, 3))
        for i, d in enumerate(net.dilations):
            self.register_buffer(f"hist{i}", torch.zeros(1, c, 2 * d + 1))
        self.register_buffer("embeds", torch.zeros(1, c, WINDOW))

    @staticmethod
    def _push(buf: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
        """The window ``buf`` (its last frames along the last dim) after ``new``
        arrives: the newest buf.shape[-1] frames of cat(buf, new), written back to
        buf and returned (the model reads the window's new value, not the cat: the
        update is then one in-place call)."""
        window = torch.cat([buf, new], dim=-1)[..., new.shape[-1]:]
        buf.copy_(window)
        return window

    def forward(self, pcm: torch.Tensor) -> torch.Tensor:
        window = self._push(self.samples, pcm)                           # int16 [1, N_FFT]
        feat = self.front.frame(window.to(torch.float32) * (1.0 / 32768.0))  # [1, N_MELS]
        net = self.net
        x = F.relu(net.bn0(net.conv0(self._push(self.feats, feat.unsqueeze(2)))))
        for i, (dw, pw, bn) in enumerate(zip(net.dw, net.pw, net.bn)):
            x = F.relu(bn(pw(dw(self._push(getattr(self, f"hist{i}"), x)))))
        return net.fc(self._push(self.embeds, x).mean(2))
