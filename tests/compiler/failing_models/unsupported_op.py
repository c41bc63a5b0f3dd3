"""An operator the runtime has no kernel for (a determinant)."""
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        return torch.linalg.det(x)


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(2, 3, 3),)


def calibration_data():
    return [example_inputs()]
