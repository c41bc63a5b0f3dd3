"""LSTM over 64 IMU samples (6 axes) -> 6 activity classes."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class LstmSensor(nn.Module):
    def __init__(self, classes=6):
        super().__init__()
        self.lstm = nn.LSTM(6, 32, batch_first=True)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return self.fc(h[-1])


def model() -> nn.Module:
    seeded(0)
    return LstmSensor().eval()


def example_inputs():
    return (torch.randn(1, 64, 6, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
