"""MobileNetV3-small (reduced) on 1x3x64x64: hardswish, squeeze-excite with hardsigmoid."""
import torch
from torch import nn
from torch.nn import functional as F

from zoo._common import calibration_from, seeded


class SqueezeExcite(nn.Module):
    def __init__(self, c, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(c, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))
        return x * s


class Block(nn.Module):
    def __init__(self, cin, k, hidden, cout, se, hs, stride):
        super().__init__()
        act = nn.Hardswish if hs else nn.ReLU
        self.expand = nn.Sequential(nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), act()) \
            if hidden != cin else nn.Identity()
        self.dw = nn.Sequential(nn.Conv2d(hidden, hidden, k, stride, k // 2, groups=hidden, bias=False),
                                nn.BatchNorm2d(hidden), act())
        self.se = SqueezeExcite(hidden, max(8, hidden // 4)) if se else nn.Identity()
        self.project = nn.Sequential(nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.res else y


class MobileNetV3Small(nn.Module):
    # (in, kernel, expanded, out, SE, hardswish, stride): the reference's first blocks, narrowed
    CFG = [(16, 3, 16, 16, True, False, 2), (16, 3, 48, 24, False, False, 2), (24, 3, 64, 24, False, False, 1),
           (24, 5, 64, 32, True, True, 2), (32, 5, 96, 32, True, True, 1)]

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.blocks = nn.Sequential(*[Block(*c) for c in self.CFG])
        self.head = nn.Sequential(nn.Conv2d(32, 128, 1), nn.Hardswish())
        self.classifier = nn.Sequential(nn.Linear(128, 64), nn.Hardswish(), nn.Linear(64, classes))

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def model() -> nn.Module:
    seeded(0)
    return MobileNetV3Small().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
