"""MobileNetV2 (width 0.35) on 1x3x64x64: inverted residual blocks with ReLU6."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


def conv_bn(cin, cout, k, stride=1, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, nn.ReLU6()) if act else nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = [conv_bn(cin, hidden, 1)] if expand != 1 else []
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden), conv_bn(hidden, cout, 1, act=False)]
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV2(nn.Module):
    # (expand, channels, repeats, stride), the reference table scaled by 0.35 and cut short
    CFG = [(1, 8, 1, 1), (6, 8, 2, 2), (6, 16, 2, 2), (6, 24, 2, 2), (6, 32, 1, 1)]

    def __init__(self, classes=10):
        super().__init__()
        layers = [conv_bn(3, 16, 3, 2)]
        cin = 16
        for t, c, n, s in self.CFG:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 128, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(128, classes)

    def forward(self, x):
        x = self.features(x).mean(dim=(2, 3))
        return self.classifier(x)


def model() -> nn.Module:
    seeded(0)
    m = MobileNetV2()
    for mod in m.modules():  # non-trivial running statistics, as after training
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.1, 0.1)
            mod.running_var.uniform_(0.5, 1.5)
    return m.eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
