"""`--opt size|speed` (aot.deploy.generate.OPT_PROFILES, the one place the
flash/speed trade is chosen) and the runtime features a build compiles in
(mote/config.h MOTE_RUNTIME_*, from the program)."""
import json
from pathlib import Path
import warnings

import pytest

import zoo
from aot.cli import main
from aot.deploy.generate import OPT_PROFILES, resolve_opt, runtime_feature_defines


def _compiled(path, **kw):
    from aot.compiler.pipeline import compile_model_file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_model_file(path, **kw)


def test_profiles_resolve_to_flags_and_the_size_macro():
    assert set(OPT_PROFILES) == {"size", "speed"}
    assert resolve_opt("speed") == ("-Os", "auto", {"MOTE_OPT_SIZE": 0})
    assert resolve_opt("size") == ("-Os", "-Os", {"MOTE_OPT_SIZE": 1})
    # a GCC flag keeps its old meaning: the runtime's flag, the speed profile's kernels
    assert resolve_opt("-O2") == ("-O2", "auto", {"MOTE_OPT_SIZE": 0})
    assert resolve_opt("size", "-O2") == ("-Os", "-O2", {"MOTE_OPT_SIZE": 1})  # explicit --kernel-opt wins


@pytest.mark.parametrize("opt", ["size", "speed"])
def test_generate_writes_the_profile(tmp_path, opt):
    out = tmp_path / opt
    assert main(["generate", str(zoo.path("mlp")), "--board", "mps2-an505", "--int8", "--opt", opt,
                 "-o", str(out)]) == 0
    src = json.loads((out / "mote_sources.json").read_text())
    assert src["opt"] == opt
    assert src["defines"]["MOTE_OPT_SIZE"] == (1 if opt == "size" else 0)
    # size: no source is worth -O2; speed: the kernels are
    assert (src["kernel_sources"] == []) == (opt == "size")


def test_generate_refuses_another_profile(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["generate", str(zoo.path("mlp")), "--board", "mps2-an505", "--opt", "fast", "-o", str(tmp_path)])
    assert "invalid choice: 'fast'" in capsys.readouterr().err


def test_runtime_features_follow_the_program():
    none = {"MOTE_RUNTIME_DELEGATES": 0, "MOTE_RUNTIME_MUTABLE": 0, "MOTE_RUNTIME_EXTERNAL": 0,
            "MOTE_RUNTIME_TENSOR_LISTS": 0, "MOTE_RUNTIME_DOUBLES": 0, "MOTE_RUNTIME_STRINGS": 0,
            "MOTE_RUNTIME_BOOL_LISTS": 0, "MOTE_RUNTIME_CONTROL": 0}
    # int8 with fp32 I/O: the quantize / dequantize scales are Double values
    plain = _compiled(zoo.path("mlp"), int8=True)
    assert runtime_feature_defines(plain) == dict(none, MOTE_RUNTIME_DOUBLES=1)
    assert runtime_feature_defines(_compiled(zoo.path("mlp"), int8=True, int8_io=True)) == none
    state = _compiled(Path(zoo.__file__).parent / "stateful" / "running_stats.py")
    assert runtime_feature_defines(state)["MOTE_RUNTIME_MUTABLE"] == 1
    ext = _compiled(zoo.path("mlp"), external_weights=True)
    assert runtime_feature_defines(ext) == dict(none, MOTE_RUNTIME_EXTERNAL=1)
    cat = _compiled(zoo.path("cov_residual_cat"))
    assert runtime_feature_defines(cat)["MOTE_RUNTIME_TENSOR_LISTS"] == 1


def test_build_prints_the_trade_of_the_other_profile(tmp_path, capsys):
    out = tmp_path / "b"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["build", str(zoo.path("mlp")), "--board", "mps2-an505", "--int8", "--opt", "size",
                     "-o", str(out)]) == 0
    trade = json.loads((out / "size.json").read_text())["opt"]
    assert (trade["profile"], trade["other"]) == ("size", "speed")
    # -O2 kernels and the speed-only cores take more flash than -Os and the general ones
    assert trade["other_kernels_bytes"] > trade["kernels_bytes"] > 0
    assert sum(trade["files"].values()) == trade["other_kernels_bytes"] - trade["kernels_bytes"]
    # linked both ways: this build's kernels part, and the other profile's firmware's
    size = json.loads((out / "size.json").read_text())
    assert trade["linked_bytes"] == size["flash"]["kernels"]
    assert trade["other_linked_bytes"] > trade["linked_bytes"]  # speed: the panel core and -O2 kernels
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("--opt size:"))
    assert f"kernels {trade['kernels_bytes']:,} B" in line and f"{trade['other_kernels_bytes']:,} B" in line
    assert f"kernels {trade['linked_bytes']:,} B linked" in line and f"{trade['other_linked_bytes']:,} B" in line
