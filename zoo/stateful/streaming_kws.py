"""Streaming keyword spotter: one MFCC frame per call, a DS-CNN over the last
49 frames.

State: ``frames`` [1, 1, 49, 10] float32, zeros at start; each call shifts it
one frame up and appends the new frame ``x`` [1, 10] (a window the model keeps
itself, so the caller streams frames instead of re-sending the window).
Network: conv 10x4 stride 2 (32 ch), 2 x [depthwise 3x3 + pointwise 1x1,
ReLU], global average pool, linear 32 -> 12. Output: logits [1, 12].
"""
import torch
from torch import nn

from zoo._common import seeded

FRAMES, COEFFS = 49, 10


class StreamingKWS(nn.Module):
    def __init__(self, ch: int = 32, classes: int = 12):
        super().__init__()
        self.register_buffer("frames", torch.zeros(1, 1, FRAMES, COEFFS))
        layers = [nn.Conv2d(1, ch, (10, 4), stride=2, padding=(5, 1)), nn.ReLU()]
        for _ in range(2):
            layers += [nn.Conv2d(ch, ch, 3, padding=1, groups=ch), nn.ReLU(), nn.Conv2d(ch, ch, 1), nn.ReLU()]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(ch, classes)

    def forward(self, x):
        window = torch.cat([self.frames[:, :, 1:], x.view(1, 1, 1, COEFFS)], dim=2)
        self.frames.copy_(window)
        return self.fc(torch.flatten(self.pool(self.features(window)), 1))


def model() -> nn.Module:
    seeded(0)
    return StreamingKWS().eval()


def example_inputs():
    return (torch.randn(1, COEFFS, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    """64 successive frames of one stream (the window fills as it would on the device)."""
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(1, COEFFS, generator=g),) for _ in range(64)]
