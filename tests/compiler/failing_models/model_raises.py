"""model() itself fails (a layer built with a bad argument)."""
import torch
from torch import nn


def model():
    return nn.Sequential(nn.Conv2d(3, 8, kernel_size=3, padding="sideways")).eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
