"""CNN on 1x3x32x32 with GroupNorm, PReLU, LeakyReLU and ELU."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class NormActCnn(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.gn1 = nn.GroupNorm(4, 16)
        self.a1 = nn.PReLU(16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.gn2 = nn.GroupNorm(8, 32)
        self.a2 = nn.LeakyReLU(0.1)
        self.c3 = nn.Conv2d(32, 32, 3, stride=2, padding=1)
        self.a3 = nn.ELU()
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.a1(self.gn1(self.c1(x)))
        x = self.a2(self.gn2(self.c2(x)))
        x = self.a3(self.c3(x))
        return self.fc(x.mean((2, 3)))


def model() -> nn.Module:
    seeded(0)
    m = NormActCnn()
    with torch.no_grad():  # trained-looking affine parameters, not the identity init
        for gn in (m.gn1, m.gn2):
            gn.weight.uniform_(0.5, 1.5)
            gn.bias.uniform_(-0.2, 0.2)
    return m.eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
