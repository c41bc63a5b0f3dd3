"""MLPerf Tiny visual wake words: MobileNetV1 width 0.25, 96x96 RGB, 2 classes.

BatchNorm folded as deployed. 7,489,664 MACs.
"""
import torch
from torch import nn

from zoo._common import calibration_from, seeded

# (output channels, stride) of the 13 depthwise-separable blocks at width 0.25
_BLOCKS = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2),
           (128, 1), (128, 1), (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]


class MobileNetV1(nn.Module):
    def __init__(self, classes: int = 2):
        super().__init__()
        layers = [nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU6()]
        cin = 8
        for cout, stride in _BLOCKS:
            layers += [
                nn.Conv2d(cin, cin, 3, stride=stride, padding=1, groups=cin), nn.ReLU6(),
                nn.Conv2d(cin, cout, 1), nn.ReLU6(),
            ]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


def model() -> nn.Module:
    seeded(0)
    return MobileNetV1().eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 96, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs(), n=4)
