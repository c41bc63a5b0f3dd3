"""Python control flow on a tensor's value: torch.export cannot trace it."""
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(2, 8),)


def calibration_data():
    return [example_inputs()]
