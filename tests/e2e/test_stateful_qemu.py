"""Stateful models (zoo/stateful/) in firmware: the app initialises the method once
and runs one input set per step, so the mutable buffers carry over as on the host.
fp32 matches eager within 1e-5 over 20 steps on mps2-an505; int8 gives the same
bytes as the host runtime at every step."""
import numpy as np
import pytest

from aot.compiler.pipeline import compile_model_file
from aot.tools.compare import compare, random_inputs, run_steps_on_target
from zoo.stateful import STATEFUL, path

pytestmark = [pytest.mark.slow, pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]
STEPS = 20


@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_fp32_steps_match_eager_on_mps2_an505(name, tmp_path):
    r = compare(compile_model_file(path(name)), "mps2-an505", seed=5, out_dir=tmp_path / name, steps=STEPS)
    assert r["max_rel_error"] <= 1e-5, r
    assert r["mutable_bytes"] > 0 and r["ram_bytes"] > r["arena_bytes"]


@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_int8_steps_bytes_identical_host_and_firmware(name, tmp_path):
    c = compile_model_file(path(name), int8=True)
    steps = [random_inputs(c.example_inputs, 100 + k) for k in range(STEPS)]
    host, _ = run_steps_on_target(c, steps, "host")
    fw, info = run_steps_on_target(c, steps, "mps2-an505", out_dir=tmp_path / name)
    assert len(fw) == STEPS
    for k, (h, f) in enumerate(zip(host, fw)):
        assert [a.tobytes() for a in h] == [np.asarray(b).tobytes() for b in f], f"step {k} differs"
    # and the state moved: not every step gives the first step's output
    assert any(host[k][0].tobytes() != host[0][0].tobytes() for k in range(1, STEPS))


def test_any_method_of_a_multi_method_program_in_firmware(tmp_path):
    """The firmware initialises every method (one runtime state each, shared arenas)
    and runs the one it was built for: kv_attention's decode, four steps on one cache."""
    c = compile_model_file(path("kv_attention")).for_method("decode")
    r = compare(c, "mps2-an505", seed=5, out_dir=tmp_path / "kv", steps=4)
    assert r["method"] == "decode" and r["max_rel_error"] <= 1e-5, r
    header = (tmp_path / "kv" / "gen" / "mote_model.h").read_text()
    assert "#define MOTE_MODEL_NUM_METHODS 3u" in header and "#define MOTE_MODEL_DEFAULT_METHOD 1u" in header


def test_aot_build_method_builds_firmware_for_that_method(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "aot.cli", "build", str(path("kv_attention")), "--board", "mps2-an505",
                        "--method", "decode", "-o", str(tmp_path / "b")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "#define MOTE_MODEL_DEFAULT_METHOD 1u" in (tmp_path / "b" / "gen" / "mote_model.h").read_text()
    r = subprocess.run([sys.executable, "-m", "aot.cli", "build", str(path("kv_attention")), "--board", "mps2-an505",
                        "--method", "nope", "-o", str(tmp_path / "c")], capture_output=True, text=True, timeout=600)
    assert r.returncode != 0 and "no method 'nope'" in r.stderr and "Traceback" not in r.stderr
