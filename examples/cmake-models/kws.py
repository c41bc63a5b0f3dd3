"""The example's keyword spotter: 49 frames x 10 MFCC coefficients, 12 scores
(a small depthwise-separable CNN, the shape of MLPerf Tiny's DS-CNN, narrower).

A model file for `aot`: model(), example_inputs(), calibration_data().
"""
import torch
from torch import nn

CHANNELS = 16


class TinyKWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, CHANNELS, (10, 4), stride=2, padding=(5, 1))
        self.dw = nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1, groups=CHANNELS)
        self.pw = nn.Conv2d(CHANNELS, CHANNELS, 1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(CHANNELS, 12)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.relu(self.pw(torch.relu(self.dw(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


def model() -> nn.Module:
    torch.manual_seed(0)
    return TinyKWS().eval()


def example_inputs():
    return (torch.randn(1, 1, 49, 10, generator=torch.Generator().manual_seed(1)),)


def calibration_data():
    g = torch.Generator().manual_seed(2)
    return [(torch.randn(1, 1, 49, 10, generator=g),) for _ in range(16)]
