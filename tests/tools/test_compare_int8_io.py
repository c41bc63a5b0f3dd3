"""`aot compare --int8 --int8-io`: the inputs quantized for the program, its
int8 outputs dequantized before they meet eager PyTorch and PT2E."""
import json

import zoo
from aot.cli import main


def test_int8_io_compare_on_host(capsys):
    assert main(["compare", str(zoo.path("small_cnn")), "--int8", "--int8-io", "--json"]) == 0
    io = json.loads(capsys.readouterr().out)
    assert main(["compare", str(zoo.path("small_cnn")), "--int8", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    # the same int8 network: within a couple of output quanta of PT2E either way
    assert io["pt2e_max_quanta"] <= 2.0
    assert io["max_rel_error"] < 0.2
    assert abs(io["max_abs_error"] - plain["max_abs_error"]) < 0.5 * max(plain["max_abs_error"], 1e-3) + 0.05
