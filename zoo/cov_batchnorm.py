"""Op coverage: BatchNorm left in the model (not folded by hand), hardtanh, relu6.

conv -> BatchNorm2d -> hardtanh(-2, 2) -> conv -> BatchNorm2d -> relu6 -> flatten.
"""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class CovBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 5, 3, stride=2)
        self.bn2 = nn.BatchNorm2d(5)

    def forward(self, x):
        x = nn.functional.hardtanh(self.bn1(self.conv1(x)), -2.0, 2.0)
        x = nn.functional.relu6(self.bn2(self.conv2(x)))
        return torch.flatten(x, 1)


def model() -> nn.Module:
    seeded(0)
    m = CovBatchNorm()
    # non-trivial running statistics, as after training
    for bn in (m.bn1, m.bn2):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_(0.5, 1.5)
        bn.bias.data.uniform_(-0.2, 0.2)
    return m.eval()


def example_inputs():
    return (torch.randn(1, 3, 11, 9, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
