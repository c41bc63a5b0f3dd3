"""The example's image classifier: one 16x16 grey image, 10 scores (a small CNN).

A model file for `aot`: model(), example_inputs(), calibration_data().
"""
import torch
from torch import nn


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def model() -> nn.Module:
    torch.manual_seed(0)
    return TinyCNN().eval()


def example_inputs():
    return (torch.rand(1, 1, 16, 16, generator=torch.Generator().manual_seed(1)),)


def calibration_data():
    g = torch.Generator().manual_seed(2)
    return [(torch.rand(1, 1, 16, 16, generator=g),) for _ in range(16)]
