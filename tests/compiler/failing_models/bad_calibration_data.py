"""calibration_data() whose samples do not fit the model (--int8 only; fp32 compiles)."""
import torch
from torch import nn


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 4), nn.ReLU()).eval()


def example_inputs():
    return (torch.randn(2, 8),)


def calibration_data():
    return [(torch.randn(2, 6),)]
