"""A model and inputs in float64 (Mote's floating-point kernels compute in float32)."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 4), nn.ReLU()).double().eval()
example_inputs = (torch.randn(1, 8, dtype=torch.float64),)
