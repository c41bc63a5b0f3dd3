"""The example's model: a tiny gesture classifier over a 3-axis accelerometer
window (1 x 3 x 32 samples -> 4 classes). Untrained, with fixed weights: the
example shows the build, not accuracy. Replace it with your own file and point
`custom_mote_model` in platformio.ini at it.

A Mote model file defines model() (an eval-mode nn.Module), example_inputs()
(a tuple of tensors) and, for int8, calibration_data() (a list of input tuples).
"""
import torch
from torch import nn

WINDOW = 32
CHANNELS = 16


class Gesture(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(3, 8, kernel_size=5, padding=2)
        self.conv2 = nn.Conv1d(8, CHANNELS, kernel_size=3, stride=2, padding=1)
        self.fc = nn.Linear(CHANNELS * (WINDOW // 2), 4)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


def model() -> nn.Module:
    torch.manual_seed(0)
    return Gesture().eval()


def example_inputs():
    return (torch.randn(1, 3, WINDOW, generator=torch.Generator().manual_seed(1)),)


def calibration_data():
    g = torch.Generator().manual_seed(2)
    return [(torch.randn(1, 3, WINDOW, generator=g),) for _ in range(8)]
