"""MLPerf Tiny image classification ResNet-8 (CIFAR-10, 32x32 RGB).

Three residual stacks (16, 32, 64 channels; 1x1 stride-2 shortcuts on the
last two), BatchNorm folded as deployed. 12,501,632 MACs.
"""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride=stride) if stride != 1 else None

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = self.conv2(y)
        s = x if self.shortcut is None else self.shortcut(x)
        return torch.relu(y + s)


class ResNet8(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.stack1 = Block(16, 16, 1)
        self.stack2 = Block(16, 32, 2)
        self.stack3 = Block(32, 64, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = self.stack3(self.stack2(self.stack1(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def model() -> nn.Module:
    seeded(0)
    return ResNet8().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs(), n=4)
