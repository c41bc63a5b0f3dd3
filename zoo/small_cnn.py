"""Small CNN on 1x1x8x8: conv3x3(1->8)+ReLU, conv3x3 s2 (8->16)+ReLU, flatten, linear 10."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


def model() -> nn.Module:
    seeded(0)
    return SmallCNN().eval()


def example_inputs():
    return (torch.randn(1, 1, 8, 8, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
