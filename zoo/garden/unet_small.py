"""Small U-Net on 1x1x32x32 (segmentation): max-pool down, one ConvTranspose2d and one
bilinear upsampling on the way up, skip concatenations."""
import torch
from torch import nn
from torch.nn import functional as F

from zoo._common import calibration_from, seeded


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())


class UNetSmall(nn.Module):
    def __init__(self, classes=2):
        super().__init__()
        self.enc1 = double_conv(1, 8)
        self.enc2 = double_conv(8, 16)
        self.bottom = double_conv(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = double_conv(32, 16)
        self.dec1 = double_conv(16 + 8, 8)
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)                        # 32x32
        e2 = self.enc2(F.max_pool2d(e1, 2))      # 16x16
        b = self.bottom(F.max_pool2d(e2, 2))     # 8x8
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        up = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([up, e1], 1))
        return self.head(d1)


def model() -> nn.Module:
    seeded(0)
    return UNetSmall().eval()


def example_inputs():
    return (torch.randn(1, 1, 32, 32, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
