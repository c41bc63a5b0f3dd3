"""Helpers shared by the zoo model files."""
import torch


def seeded(seed: int = 0) -> None:
    """Fix torch's RNG so every zoo model has the same weights on every run."""
    torch.manual_seed(seed)


def calibration_from(example_inputs, n: int = 8, seed: int = 1):
    """n random input tuples shaped like ``example_inputs`` (for --int8)."""
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(t.shape, generator=g) for t in example_inputs) for _ in range(n)]
