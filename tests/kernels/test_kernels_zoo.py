"""Every zoo model's ExecuTorch portable program, run op by op on Mote's kernels,
matches eager PyTorch (fp32, max relative error <= 1e-5)."""
import pytest
import torch

from zoo import MODELS

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("name", sorted(MODELS))
def test_zoo_program_on_mote_kernels(K, name):
    from tests.kernels.zoo_runner import ZooProgram

    prog = ZooProgram(K, name)
    with torch.no_grad():
        ref = prog.model(*prog.inputs)
    out = prog.run()[0]
    err = (out - ref).abs().max().item() / ref.abs().max().item()
    assert err <= 1e-5, f"{name}: max rel err {err:.2e}"
