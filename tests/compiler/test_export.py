"""Model files and the export stage (aot/compiler/model_file.py, aot/compiler/export.py)."""
import warnings

import pytest
import torch

import aot
import zoo
from aot.errors import ModelFileError
from aot.compiler.model_file import load_model_file


def test_load_py_model_file():
    mf = load_model_file(zoo.path("small_cnn"))
    assert isinstance(mf.module, torch.nn.Module) and not mf.module.training
    assert mf.exported is None
    assert [tuple(t.shape) for t in mf.example_inputs] == [(1, 1, 8, 8)]
    assert len(mf.calibration_data) == 8 and mf.calibration_data[0][0].shape == (1, 1, 8, 8)


def test_load_pt2_recovers_example_inputs(tmp_path):
    mf = load_model_file(zoo.path("mlp"))
    ep = torch.export.export(mf.module, mf.example_inputs)
    torch.export.save(ep, str(tmp_path / "mlp.pt2"))
    loaded = load_model_file(tmp_path / "mlp.pt2")
    assert loaded.module is None and loaded.exported is not None
    assert torch.equal(loaded.example_inputs[0], mf.example_inputs[0])
    spec = aot.lower(loaded.exported)
    assert spec.values[spec.outputs[0]].sizes == [1, 10]


def test_model_file_errors(tmp_path):
    missing = tmp_path / "nomodel.py"
    missing.write_text("import torch\ndef example_inputs():\n    return (torch.zeros(1),)\n")
    with pytest.raises(ModelFileError, match=r"no function model\(\)"):
        load_model_file(missing)
    notmod = tmp_path / "notmod.py"
    notmod.write_text("import torch\ndef model():\n    return 3\n"
                      "def example_inputs():\n    return (torch.zeros(1),)\n")
    with pytest.raises(ModelFileError, match="not an nn.Module"):
        load_model_file(notmod)
    with pytest.raises(ModelFileError, match="expected a .py"):
        (tmp_path / "m.onnx").write_text("x")
        load_model_file(tmp_path / "m.onnx")
    with pytest.raises(ModelFileError, match="not found"):
        load_model_file(tmp_path / "absent.py")
    syn = tmp_path / "syn.py"
    syn.write_text("import torch\ndef model(:\n    return None\n")
    with pytest.raises(ModelFileError) as e:      # where, as a compiler says it; not the exception's repr
        load_model_file(syn)
    assert str(e.value) == "syn.py:2:11: invalid syntax (importing the model file)"


def test_training_mode_model_is_put_in_eval(tmp_path):
    f = tmp_path / "train.py"
    f.write_text("import torch\ndef model():\n    return torch.nn.Dropout(0.5)\n"
                 "def example_inputs():\n    return torch.ones(2)\n")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mf = load_model_file(f)
    assert any("training mode" in str(x.message) for x in w)
    assert not mf.module.training and len(mf.example_inputs) == 1


def test_export_gives_core_aten():
    mf = load_model_file(zoo.path("cov_residual_cat"))
    ep = aot.export(mf.module, mf.example_inputs)
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert "aten.linear.default" not in targets
    assert {"aten.addmm.default", "aten.permute.default", "aten.cat.default"} <= targets
    # the exported program still computes the model
    x = mf.example_inputs
    assert torch.allclose(ep.module()(*x), mf.module(*x), atol=1e-6)


def test_example_inputs_from_placeholders_when_not_stored():
    from aot.compiler.model_file import example_inputs_of
    ep = torch.export.export(torch.nn.Flatten(), (torch.randn(2, 3, 4),))
    ep.example_inputs = None   # as in archives saved without them
    (x,) = example_inputs_of(ep)
    assert x.shape == (2, 3, 4) and x.dtype == torch.float32 and not x.any()
