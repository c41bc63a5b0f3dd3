"""example_inputs() that do not fit the model (12 features into a Linear(10, 4))."""
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 4)

    def forward(self, x):
        return self.fc(x)


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(1, 12),)


def calibration_data():
    return [example_inputs()]
