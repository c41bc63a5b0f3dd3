"""EfficientNet-style network on 1x3x48x48: MBConv blocks with SiLU and squeeze-excite (sigmoid)."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class MBConv(nn.Module):
    def __init__(self, cin, cout, expand, stride):
        super().__init__()
        hidden = cin * expand
        self.expand = nn.Sequential(nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
                                nn.BatchNorm2d(hidden), nn.SiLU())
        squeeze = max(4, cin // 4)
        self.se_reduce = nn.Conv2d(hidden, squeeze, 1)
        self.se_expand = nn.Conv2d(squeeze, hidden, 1)
        self.project = nn.Sequential(nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        y = self.dw(self.expand(x))
        s = torch.sigmoid(self.se_expand(nn.functional.silu(self.se_reduce(y.mean((2, 3), keepdim=True)))))
        y = self.project(y * s)
        return x + y if self.res else y


class EfficientNetBlock(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.SiLU())
        self.blocks = nn.Sequential(MBConv(16, 16, 1, 1), MBConv(16, 24, 4, 2), MBConv(24, 24, 4, 1),
                                    MBConv(24, 40, 4, 2))
        self.fc = nn.Linear(40, classes)

    def forward(self, x):
        return self.fc(self.blocks(self.stem(x)).mean((2, 3)))


def model() -> nn.Module:
    seeded(0)
    return EfficientNetBlock().eval()


def example_inputs():
    return (torch.randn(1, 3, 48, 48, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
