"""Op coverage: max pooling, average pooling, adaptive average pooling."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class CovPooling(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 6, 3, padding=1)
        self.maxpool = nn.MaxPool2d(2)
        self.avgpool = nn.AvgPool2d(3, stride=1, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.conv(x)))
        x = self.avgpool(x)
        return self.fc(torch.flatten(self.gap(x), 1))


def model() -> nn.Module:
    seeded(0)
    return CovPooling().eval()


def example_inputs():
    return (torch.randn(1, 2, 10, 10, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
