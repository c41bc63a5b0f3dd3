"""Temporal convolution network on 1x8x128: causal dilated Conv1d residual blocks."""
import torch
from torch import nn
from torch.nn import functional as F

from zoo._common import calibration_from, seeded


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, dilation, k=3):
        super().__init__()
        self.pad = (k - 1) * dilation
        self.conv1 = nn.Conv1d(cin, cout, k, dilation=dilation)
        self.conv2 = nn.Conv1d(cout, cout, k, dilation=dilation)
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        y = F.relu(self.conv1(F.pad(x, (self.pad, 0))))   # left padding: causal
        y = F.relu(self.conv2(F.pad(y, (self.pad, 0))))
        return F.relu(y + self.down(x))


class Tcn(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.blocks = nn.Sequential(TemporalBlock(8, 16, 1), TemporalBlock(16, 16, 2), TemporalBlock(16, 24, 4),
                                    TemporalBlock(24, 24, 8))
        self.fc = nn.Linear(24, classes)

    def forward(self, x):
        return self.fc(self.blocks(x)[:, :, -1])


def model() -> nn.Module:
    seeded(0)
    return Tcn().eval()


def example_inputs():
    return (torch.randn(1, 8, 128, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
