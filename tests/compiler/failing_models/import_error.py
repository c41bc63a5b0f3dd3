"""Imports a package that is not installed."""
import torch
import not_a_package_mote_has  # noqa: F401


def model():
    return torch.nn.Identity()


def example_inputs():
    return (torch.randn(2, 8),)
