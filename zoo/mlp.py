"""MLP 784-128-64-10 (MNIST-sized), ReLU between layers. Input 1x784 fp32."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


def model() -> nn.Module:
    seeded(0)
    return nn.Sequential(
        nn.Linear(784, 128), nn.ReLU(),
        nn.Linear(128, 64), nn.ReLU(),
        nn.Linear(64, 10),
    ).eval()


def example_inputs():
    return (torch.randn(1, 784, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
