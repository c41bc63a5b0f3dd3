"""Op coverage: sigmoid, tanh, softmax, hardtanh, relu6 on a small MLP."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class CovActivations(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(20, 24)
        self.l2 = nn.Linear(24, 16)
        self.l3 = nn.Linear(16, 6)

    def forward(self, x):
        x = torch.sigmoid(self.l1(x))
        x = torch.tanh(self.l2(x)) + nn.functional.hardtanh(x[:, :16], -0.5, 0.5)
        x = nn.functional.relu6(self.l3(x) * 4.0)
        return torch.softmax(x, dim=-1)


def model() -> nn.Module:
    seeded(0)
    return CovActivations().eval()


def example_inputs():
    return (torch.randn(2, 20, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
