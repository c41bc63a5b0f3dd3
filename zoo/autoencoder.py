"""MLPerf Tiny anomaly detection FC autoencoder (ToyADMOS), input 1x640.

640-128-128-128-128-8-128-128-128-128-640 with ReLU after every hidden
layer; BatchNorm folded as deployed. 264,192 MACs.
"""
import torch
from torch import nn

from zoo._common import calibration_from, seeded

_WIDTHS = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640]


def model() -> nn.Module:
    seeded(0)
    layers = []
    for i, (a, b) in enumerate(zip(_WIDTHS, _WIDTHS[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(_WIDTHS) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers).eval()


def example_inputs():
    return (torch.randn(1, 640, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
