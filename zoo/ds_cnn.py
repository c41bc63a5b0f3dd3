"""MLPerf Tiny keyword spotting DS-CNN (small), BatchNorm folded as deployed.

Input 1x1x49x10 (MFCC frames x coefficients); conv 10x4 stride 2 (64 ch),
4 x [depthwise 3x3 + pointwise 1x1, 64 ch, ReLU], global average pool,
linear 64->12. 2,656,768 MACs.
"""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


def _dw_pw(ch: int) -> list:
    return [
        nn.Conv2d(ch, ch, 3, padding=1, groups=ch), nn.ReLU(),
        nn.Conv2d(ch, ch, 1), nn.ReLU(),
    ]


class DSCNN(nn.Module):
    def __init__(self, ch: int = 64, classes: int = 12):
        super().__init__()
        layers = [nn.Conv2d(1, ch, (10, 4), stride=2, padding=(5, 1)), nn.ReLU()]
        for _ in range(4):
            layers += _dw_pw(ch)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(ch, classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


def model() -> nn.Module:
    seeded(0)
    return DSCNN().eval()


def example_inputs():
    return (torch.randn(1, 1, 49, 10, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
