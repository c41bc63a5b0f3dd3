"""The example's model: a small CNN on one 8x8 grey image, 10 scores.

A model file for `aot`: model() returns the eval-mode nn.Module,
example_inputs() a tuple of tensors, calibration_data() the inputs the int8
ranges come from. Edit it (a layer's width, say) and the next
`cmake --build` compiles the new model; nothing else makes it recompile.
"""
import torch
from torch import nn

WIDTH = 8  # channels of the first convolution


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, WIDTH, 3, padding=1)
        self.conv2 = nn.Conv2d(WIDTH, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


def model() -> nn.Module:
    torch.manual_seed(0)
    return TinyCNN().eval()


def example_inputs():
    return (torch.rand(1, 1, 8, 8, generator=torch.Generator().manual_seed(1)),)


def calibration_data():
    g = torch.Generator().manual_seed(2)
    return [(torch.rand(1, 1, 8, 8, generator=g),) for _ in range(16)]
