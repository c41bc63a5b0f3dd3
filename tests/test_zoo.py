"""The zoo's reference networks have the MLPerf Tiny layer shapes (MAC counts)."""
import importlib

import pytest
import torch

import zoo


def _count_macs(module: torch.nn.Module, inputs) -> int:
    total = 0

    def hook(mod, _inp, out):
        nonlocal total
        if isinstance(mod, torch.nn.Conv2d):
            k = mod.kernel_size[0] * mod.kernel_size[1] * mod.in_channels // mod.groups
            total += out.numel() * k
        elif isinstance(mod, torch.nn.Linear):
            total += out.numel() * mod.in_features

    handles = [m.register_forward_hook(hook) for m in module.modules()]
    with torch.no_grad():
        module(*inputs)
    for h in handles:
        h.remove()
    return total


@pytest.mark.parametrize("name", [n for n, m in zoo.MODELS.items() if m is not None])
def test_reference_mac_count(name):
    mod = importlib.import_module(f"zoo.{name}")
    assert _count_macs(mod.model(), mod.example_inputs()) == zoo.MODELS[name]


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_model_is_deterministic_eval(name):
    mod = importlib.import_module(f"zoo.{name}")
    m1, m2 = mod.model(), mod.model()
    assert not m1.training
    x = mod.example_inputs()
    with torch.no_grad():
        assert torch.equal(m1(*x), m2(*x))
