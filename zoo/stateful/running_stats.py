"""Sensor classifier that normalises its input with running statistics it
updates itself (an exponential moving average, as BatchNorm's running stats
in training, but kept on the device at inference).

State: ``mean`` [6] and ``var`` [6] float32 (zeros and ones at start), ``steps``
[1] float32 (calls so far). Each call with a sample ``x`` [1, 6] (an IMU's
accel + gyro): mean <- 0.9 mean + 0.1 x, var <- 0.9 var + 0.1 (x - mean)^2
(in-place mul_/add_), then an MLP 6 -> 32 -> 4 over (x - mean) / sqrt(var + eps).
Outputs: class logits [1, 4] and the step count [1].
"""
import torch
from torch import nn

from zoo._common import seeded

CHANNELS = 6
MOMENTUM = 0.1


class RunningStats(nn.Module):
    def __init__(self, hidden: int = 32, classes: int = 4):
        super().__init__()
        self.register_buffer("mean", torch.zeros(CHANNELS))
        self.register_buffer("var", torch.ones(CHANNELS))
        self.register_buffer("steps", torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(CHANNELS, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, x):
        sample = x.view(CHANNELS)
        self.mean.mul_(1 - MOMENTUM).add_(MOMENTUM * sample)
        self.var.mul_(1 - MOMENTUM).add_(MOMENTUM * (sample - self.mean) ** 2)
        self.steps.add_(1)
        z = (x - self.mean) / torch.sqrt(self.var + 1e-5)
        return self.mlp(z), self.steps.clone()


def model() -> nn.Module:
    seeded(0)
    return RunningStats().eval()


def example_inputs():
    return (torch.randn(1, CHANNELS, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(1, CHANNELS, generator=g),) for _ in range(64)]
