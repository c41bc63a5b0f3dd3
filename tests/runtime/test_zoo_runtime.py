"""The whole zoo through ExecuTorch's own serializer and Mote's runtime + portable kernels (libmote.so)."""
import importlib

import numpy as np
import pytest
import torch

import _harness as H
from aot.host import runtime as rt
from zoo import MODELS

pytestmark = [pytest.mark.oracle, pytest.mark.slow]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_zoo_model_matches_eager(name, host_build, tmp_path):
    mod = importlib.import_module(f"zoo.{name}")
    model, inputs = mod.model(), mod.example_inputs()
    with torch.no_grad():
        want = model(*inputs)
    want = want if isinstance(want, tuple) else (want,)
    path = H.export_pte(model, inputs, tmp_path / f"{name}.pte")
    m = rt.Program(path, library=host_build / "ports" / "linux" / "libmote.so").method("forward")
    got = m.run([t.numpy() for t in inputs])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.shape == w.shape and g.dtype == w.dtype
        err = float(np.max(np.abs(g - w)) / max(float(np.max(np.abs(w))), 1e-12))
        print(f"{name}: max error relative to max |eager| = {err:.3g}")
        assert err <= 1e-5


def test_mote_run_cli_on_zoo_mlp(host_build, tmp_path):
    import subprocess

    mod = importlib.import_module("zoo.mlp")
    model, inputs = mod.model(), mod.example_inputs()
    with torch.no_grad():
        want = model(*inputs).numpy()
    path = H.export_pte(model, inputs, tmp_path / "mlp.pte")
    np.save(tmp_path / "x.npy", inputs[0].numpy())
    exe = host_build / "ports" / "linux" / "mote-run"
    r = subprocess.run([str(exe), "-o", str(tmp_path / "y"), str(path), str(tmp_path / "x.npy")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "y0.npy")
    assert got.shape == want.shape
    assert float(np.max(np.abs(got - want)) / np.max(np.abs(want))) <= 1e-5
