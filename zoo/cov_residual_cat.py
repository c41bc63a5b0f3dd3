"""Op coverage: residual add, cat along channels, view/permute, mul and sub."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class CovResidualCat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 4, 3, padding=1)
        self.b = nn.Conv2d(4, 3, 1)
        self.fc = nn.Linear(7 * 6, 5)

    def forward(self, x):
        y = torch.relu(self.a(x)) + x          # residual add
        z = torch.cat([y, self.b(x)], dim=1)   # 4 + 3 channels
        z = z * 0.5 - 0.25                     # scalar mul / sub
        z = z.permute(0, 2, 3, 1)              # NCHW -> NHWC
        z = z.reshape(1, 6, 6 * 7).mean(dim=1) # view + mean over a dim -> 1x42
        return self.fc(z)


def model() -> nn.Module:
    seeded(0)
    return CovResidualCat().eval()


def example_inputs():
    return (torch.randn(1, 4, 6, 6, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
