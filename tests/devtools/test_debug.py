"""`aot debug` on the host library: per-op errors against eager / PT2E / the
integer reference, and the first divergent op of a deliberately broken program."""
import copy
import dataclasses
import json

import numpy as np
import pytest

import zoo
from aot.cli import main
from aot.compiler.emit import build_program
from aot.compiler.pipeline import compile_model_file
from aot.compiler.quant.annotate import MoteQuantizer as _MoteQuantizer
from aot.tools.debug import debug_compiled


@pytest.fixture(scope="module")
def ds_int8():
    return compile_model_file(str(zoo.path("ds_cnn")), int8=True, int8_io=True)


def test_int8_every_op_within_one_quantum_of_pt2e_and_exact_to_the_reference(ds_int8):
    rep = debug_compiled(ds_int8, "host")
    mote_ops = [o for o in rep["ops"] if o["op"].startswith("mote::")]
    assert len(mote_ops) == 11  # 5 convs, 4 depthwise, mean, linear
    assert all(o["quanta_vs_int8ref"] == 0 for o in mote_ops)
    assert all(o["quanta_vs_pt2e"] is not None and o["quanta_vs_pt2e"] <= 1 for o in rep["ops"])
    assert rep["first_divergent"] is None
    assert rep["ops"][1]["source"] == "ds_cnn.py:31" and rep["ops"][1]["module"] == "module 'features.0' (Conv2d)"


def _perturbed(compiled, instr: int):
    """`compiled` with one weight of conv `instr` flipped to the far end of
    int8: output channel 0's tap on the input channel that is busiest on the
    debug inputs (a tap on a channel sitting at its zero point would change nothing)."""
    from aot.compiler.pipeline import program_inputs
    from aot.devtools.debug import captured_host
    from aot.compiler.debug_record import debug_record
    from aot.tools.compare import random_inputs
    rec = debug_record(compiled)
    cap = captured_host(compiled.pte, rec, program_inputs(compiled, random_inputs(compiled.example_inputs, 0)))
    x = cap[instr - 1][0].astype(np.int32)            # NHWC input of the conv
    busy = int(np.argmax(np.abs(x - np.median(x)).reshape(-1, x.shape[-1]).sum(axis=0)))
    spec = copy.deepcopy(compiled.spec)
    w = spec.values[spec.instructions[instr].args[1]]  # [cout, kh, kw, cin]
    data = np.frombuffer(w.constant, dtype=np.int8).copy().reshape(w.sizes)
    data[0, 0, 0, busy] = -127 if data[0, 0, 0, busy] >= 0 else 127
    w.constant = data.tobytes()
    return dataclasses.replace(compiled, spec=spec, pte=build_program(spec).data)


@pytest.mark.parametrize("instr", [3, 5])
def test_a_flipped_weight_is_the_first_divergent_op(ds_int8, instr):
    assert ds_int8.spec.instructions[instr].op == "mote::conv2d_s8"
    rep = debug_compiled(_perturbed(ds_int8, instr), "host")
    fd = rep["first_divergent"]
    assert fd is not None and rep["ops"][fd]["instr"] == instr
    assert rep["ops"][fd]["quanta_vs_int8ref"] > 0
    # everything before it still agrees exactly with the integer reference
    assert all(o["quanta_vs_int8ref"] in (0, None) for o in rep["ops"][:fd])


def test_fp32_json_within_parity_of_eager(capsys):
    assert main(["debug", str(zoo.path("resnet8")), "--target", "host", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["first_divergent"] is None and rep["int8"] is False
    assert len(rep["ops"]) >= 10
    for o in rep["ops"]:
        assert {"op", "max_abs_error", "source"} <= set(o)
        assert o["max_rel_error"] < 1e-5, o
    assert rep["ops"][0]["source"].startswith("resnet8.py:")


def test_fp32_flipped_weight_diverges_at_its_conv(capsys):
    c = compile_model_file(str(zoo.path("ds_cnn")))
    spec = copy.deepcopy(c.spec)
    w = spec.values[spec.instructions[4].args[1]]
    data = np.frombuffer(w.constant, dtype=np.float32).copy()
    data[0] = -data[0] + 1.0
    w.constant = data.tobytes()
    rep = debug_compiled(dataclasses.replace(c, spec=spec, pte=build_program(spec).data), "host")
    assert rep["ops"][rep["first_divergent"]]["instr"] == 4


def test_resnet8_int8_ops_are_judged_on_their_own_error():
    """PT2E run end to end drifts 2-4 quanta at the residual adds; fed the
    target's own inputs op by op, every op is within 1 quantum."""
    c = compile_model_file(str(zoo.path("resnet8")), int8=True)
    rep = debug_compiled(c, "host")
    assert rep["first_divergent"] is None
    adds = [o for o in rep["ops"] if o["op"] == "mote::add_s8.out"]
    assert len(adds) == 3
    assert max(o["quanta_vs_pt2e_end_to_end"] for o in adds) >= 2
    assert all(o["quanta_vs_pt2e"] <= 1 for o in rep["ops"] if o["quanta_vs_pt2e"] is not None)


def test_every_instruction_that_writes_a_tensor_has_a_row(tmp_path):
    """max_pool2d_with_indices (two outputs) and et_view are rows too."""
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
            self.pool = torch.nn.MaxPool2d(2)
            self.fc = torch.nn.Linear(4 * 4 * 4, 3)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))

    from aot.compiler.pipeline import compile_module
    c = compile_module("net", Net().eval(), (torch.randn(1, 1, 8, 8),))
    rep = debug_compiled(c, "host")
    ops = [o["op"] for o in rep["ops"]]
    assert ops == [f"{k.op}.{k.overload}" for k in c.spec.instructions]
    pool = next(o for o in rep["ops"] if o["op"].startswith("aten::max_pool2d_with_indices"))
    assert pool["reference"] == "eager" and pool["max_rel_error"] < 1e-6
    assert rep["first_divergent"] is None


def test_bad_debug_targets_are_one_line(tmp_path, capsys):
    for args in (["debug", str(tmp_path), "--target", "host"],
                 ["debug", str(zoo.path("ds_cnn")), "--target", "serial:/dev/ttyACM0"],
                 ["debug", str(zoo.path("ds_cnn")), "--target", "pico2"]):
        assert main(args) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in err[0], err


def _tiny_vit_islands(monkeypatch, residual_islands: bool):
    """aot debug --int8 of the garden's tiny_vit on the host (seed 0): the report and its text;
    residual_islands False compiles with the scheme before (int8 residual adds)."""
    from zoo.garden import path as garden_path
    from aot.compiler.quant import annotate
    from aot.devtools.debug import render_text
    class Quantizer(_MoteQuantizer):  # a subclass, not a factory: pt2e checks isinstance(q, MoteQuantizer)
        def __init__(self, **kw):
            super().__init__(residual_islands=residual_islands, **kw)
    monkeypatch.setattr(annotate, "MoteQuantizer", Quantizer)
    rep = debug_compiled(compile_model_file(str(garden_path("tiny_vit")), int8=True), "host")
    return rep, render_text(rep)


def _by_module(islands: list) -> dict:
    return {i["module"]: i for i in islands if i["ops"] and i["ops"][-1] == "aten::native_layer_norm.out"}


def test_int8_islands_report_which_norm_amplified_and_by_how_much(monkeypatch, capsys):
    """tiny_vit with int8 residual adds (the scheme before): block 0's second LayerNorm
    turns a 1-quantum difference from PT2E into 6 (measured), the largest gain; with
    the residual adds in the norms' islands it gives 1 for the 2 it is given."""
    rep, text = _tiny_vit_islands(monkeypatch, residual_islands=False)
    ln = _by_module(rep["islands"])
    assert len(ln) == 5
    worst = ln["module 'blocks.0.ln2' (LayerNorm)"]
    assert (worst["quanta_in"], worst["quanta_out"], worst["gain"]) == (1, 6, 6.0)
    assert worst["ops"] == ["aten::native_layer_norm.out"] and worst["source"] == "tiny_vit.py:21"
    assert max(i["gain"] for i in rep["islands"] if i["gain"] is not None) == 6.0
    # quanta_out is the island's quantize row's end-to-end figure, quanta_in its input's
    rows = {o["instr"]: o for o in rep["ops"]}
    assert rows[worst["instrs"][-1]]["quanta_vs_pt2e_end_to_end"] == 6
    assert rows[worst["instrs"][-1]]["quanta_vs_pt2e"] == 0   # the island itself computes what PT2E does
    assert "largest amplification: x6.0 (1 -> 6 quanta) at" in text and "'blocks.0.ln2'" in text.splitlines()[-3]

    rep, text = _tiny_vit_islands(monkeypatch, residual_islands=True)
    ln = _by_module(rep["islands"])
    assert len(ln) == 5
    now = ln["module 'blocks.0.ln2' (LayerNorm)"]
    # the island now holds both residual adds before it, read in fp32
    assert now["ops"] == ["aten::add.out", "aten::add.out", "aten::native_layer_norm.out"]
    assert (now["quanta_in"], now["quanta_out"], now["gain"]) == (2, 1, 0.5)
    assert max(i["gain"] for i in rep["islands"] if i["gain"] is not None) == 1.0
    assert "largest amplification" not in text
    # the input quantize starts no island; every island starts at dequantizes
    assert all(rep["ops"][0]["instr"] not in i["instrs"] for i in rep["islands"])
    assert json.loads(json.dumps(rep["islands"])) == rep["islands"]
