"""The zoo on 64-bit Arm Linux: the runtime, kernels and mote-run cross-built
with Debian's aarch64-linux-gnu toolchain (cmake/toolchains/) and run under
qemu-aarch64, through `aot compare MODEL --target linux-aarch64 --json`.

fp32 must meet the host's parity (<= 1e-5 relative to eager); int8 programs
are integer arithmetic, so their outputs must equal the x86_64 host runtime's
bit for bit (and stay within one output quantum of PT2E)."""
import json
import subprocess
import sys

import numpy as np
import pytest

import zoo
from aot.compiler.pipeline import compile_model_file, program_inputs
from aot.errors import RunError
from aot.host.runtime import Program
from aot.paths import ROOT
from aot.deploy.linux import LINUX_TARGETS, run_on_linux
from aot.tools.compare import random_inputs

pytestmark = pytest.mark.slow
TARGET = LINUX_TARGETS["linux-aarch64"]


@pytest.fixture(scope="module", autouse=True)
def cross_build():
    for tool in (f"{TARGET.triple}-gcc", TARGET.qemu):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            pytest.fail(f"{tool} missing: scripts/bootstrap.sh installs {TARGET.apt}")
    from aot.deploy.linux import build_linux
    exe = build_linux(TARGET)
    head = exe.read_bytes()[:20]
    assert head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == 183  # EM_AARCH64
    return exe


def _compare(model, *flags):
    r = subprocess.run([sys.executable, "-m", "aot", "compare", str(ROOT / "zoo" / f"{model}.py"),
                        "--target", "linux-aarch64", "--json", *flags],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("model", list(zoo.MODELS))
def test_zoo_fp32_on_linux_aarch64(model):
    rep = _compare(model)
    assert rep["target"] == "linux-aarch64" and rep["int8"] is False
    assert rep["max_rel_error"] <= 1e-5, rep


@pytest.mark.parametrize("model", ["ds_cnn", "resnet8", "mobilenet_v1_025"])
def test_zoo_int8_on_linux_aarch64_is_the_host_bytes(model):
    c = compile_model_file(ROOT / "zoo" / f"{model}.py", int8=True)
    steps = [program_inputs(c, random_inputs(c.example_inputs, seed)) for seed in range(2)]
    got = run_on_linux(c.pte, steps, "linux-aarch64")
    host = Program(c.pte).method()
    for arrays, outs in zip(steps, got):
        want = host.run(arrays)
        assert len(outs) == len(want)
        for o, w in zip(outs, want):
            assert o.dtype == w.dtype and np.array_equal(o, w)
    rep = _compare(model, "--int8")
    assert rep["pt2e_max_quanta"] <= 1.001, rep


def test_a_runtime_error_on_the_target_is_one_line(tmp_path):
    c = compile_model_file(ROOT / "zoo" / "mlp.py")
    bad = bytearray(c.pte)
    bad[4:8] = b"XX00"   # the flatbuffer file identifier
    with pytest.raises(RunError) as e:
        run_on_linux(bytes(bad), [program_inputs(c, c.example_inputs)], "linux-aarch64")
    assert "linux-aarch64: mote-run failed (exit 2)" in str(e.value) and "MOTE_ERR_" in str(e.value)


@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_zoo_delegated_to_xnnpack_on_linux_aarch64(model):
    """The XNNPACK backend cross-built against Debian's arm64 libXNNPACK (unpacked by
    scripts/bootstrap.sh into build/sysroot-aarch64) runs the delegated zoo, fp32 and int8,
    under qemu-aarch64, and mote-run reports the backend pool it used."""
    from aot.deploy.linux import has_backend
    assert has_backend("linux-aarch64", "XnnpackBackend"), \
        "build/sysroot-aarch64 lacks arm64 XNNPACK: rerun scripts/bootstrap.sh"
    rep = _compare(model, "--delegate", "xnnpack")
    assert rep["delegation"]["delegated_share"] == 1.0 and rep["max_rel_error"] <= 1e-5, rep
    assert rep["backend_pool_bytes"] > 0
    # int8: XNNPACK's qs8 / qc8 operators on arm64 (its NEON requantization), within a quantum of PT2E
    rep = _compare(model, "--int8", "--delegate", "xnnpack")
    assert rep["delegation"]["delegated_share"] == 1.0 and rep["pt2e_max_quanta"] <= 1.001, rep
    assert rep["backend_pool_bytes"] > 0
