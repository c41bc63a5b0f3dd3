"""A forward that raises (the user's own check)."""
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if x.shape[-1] != 16:
            raise ValueError(f"expected 16 features, got {x.shape[-1]}")
        return x * 2


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(2, 8),)


def calibration_data():
    return [example_inputs()]
