"""GRU keyword spotter: 49 frames x 10 MFCC -> two-layer GRU (hidden 32) -> 12 classes."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class GruKws(nn.Module):
    def __init__(self, classes=12):
        super().__init__()
        self.gru = nn.GRU(10, 32, num_layers=2, batch_first=True)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y[:, -1])


def model() -> nn.Module:
    seeded(0)
    return GruKws().eval()


def example_inputs():
    return (torch.randn(1, 49, 10, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
