"""A dtype the runtime has no kernel for (complex64)."""
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        return torch.view_as_complex(x).abs()


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(4, 2),)


def calibration_data():
    return [example_inputs()]
