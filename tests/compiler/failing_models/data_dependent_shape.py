"""An output whose size depends on the data (boolean mask indexing)."""
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return y[y > 0]


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(2, 8),)


def calibration_data():
    return [example_inputs()]
