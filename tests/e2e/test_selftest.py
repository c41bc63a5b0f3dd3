"""`aot build --selftest` firmware in QEMU: the app checks its embedded cases at
boot and `aot test` reads the verdict, on mps2-an505 (Cortex-M33) and
mps3-an547 (Cortex-M55, the cases in its model memory), fp32 and int8; a
wrong expected byte gives FAIL and exit status 1; the same lines over QEMU's
UART on a TCP socket (`--target serial:socket://...`).

Measured (small_cnn, 4 cases): fp32 max_abs_err 0 on both boards (the M33/M55
build reproduces the host's float results bit for bit); int8 exact. Larger
fp32 models (ds_cnn, gru_kws, lstm_sensor, cov_activations, tiny_decoder,
tiny_vit) differed by at most 4.2e-7 of the output's magnitude (tiny_vit,
M33); the bound is aot.deploy.selftest.RTOL = 1e-5.
"""
import json
import socket

import numpy as np
import pytest

import zoo
from aot.cli import main
from aot.compiler.pipeline import compile_model_file
from aot.deploy.build import build_compiled
from aot.deploy.selftest import case_inputs, make_selftest, tolerance

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

MODEL = "small_cnn"


def _test_json(capsys, *argv) -> tuple:
    capsys.readouterr()
    code = main(["test", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    root = tmp_path_factory.mktemp("selftest")
    return root


@pytest.mark.parametrize("board,int8", [("mps2-an505", False), ("mps3-an547", False),
                                        ("mps2-an505", True), ("mps3-an547", True)])
def test_selftest_passes(board, int8, builds, capsys):
    out = builds / f"{board}-{'int8' if int8 else 'fp32'}"
    argv = ["build", str(zoo.path(MODEL)), "--board", board, "--selftest", "-o", str(out)]
    if int8:
        argv += ["--int8", "--int8-io"] if board == "mps2-an505" else ["--int8"]
    assert main(argv) == 0
    info = json.loads((out / "build.json").read_text())
    assert info["selftest"]["cases"] == 4 and info["input_sets"] == 4
    size = json.loads((out / "size.json").read_text())
    from aot.deploy.selftest import read_bpte, selftest_blob
    blob = selftest_blob(read_bpte(out / "model.bpte")[2])  # what model_selftest.c holds
    part = size["model_region"] if board == "mps3-an547" else size["flash"]
    assert part["selftest"] == len(blob) == size["planned"]["selftest"]
    if board == "mps3-an547":
        assert size["flash"]["selftest"] == 0

    code, rep = _test_json(capsys, str(out), "--target", board)
    assert code == 0 and rep["verdict"] == "PASS" and rep["n"] == 4 and rep["fail"] is None
    assert [(r["case"], r["verdict"]) for r in rep["rows"]] == [(k, "PASS") for k in range(4)]
    host_code, host = _test_json(capsys, str(out), "--target", "host")
    assert host_code == 0
    for r, h in zip(rep["rows"], host["rows"]):
        assert r["max_abs_err"] <= r["tol"]
        assert r["tol"] == pytest.approx(h["tol"], rel=1e-3)  # the firmware prints 4 digits
    if int8 and board == "mps2-an505":
        assert all(r["tol"] == 0 for r in rep["rows"])  # int8 outputs: exact bytes
    # the firmware's OUT lines are still the plain run's (aot run on the build)
    capsys.readouterr()
    assert main(["run", str(out), "--target", board, "--json"]) == 0
    run = json.loads(capsys.readouterr().out)
    from aot.deploy.selftest import read_bpte
    _, _, st = read_bpte(out / "model.bpte")
    for r, want in zip(run["runs"], st.expected):
        got = np.asarray(r["outputs"][0], dtype=want[0].dtype)
        assert np.max(np.abs(got.astype(np.float64) - want[0])) <= tolerance(want[0])


def test_wrong_expected_byte_fails(tmp_path, capsys):
    """One expected int8 byte changed before the build: FAIL naming it, exit 1."""
    c = compile_model_file(zoo.path(MODEL), int8=True, int8_io=True)
    st = make_selftest(c.pte, case_inputs(c, 3))
    want = int(st.expected[2][0].reshape(-1)[4])
    st.expected[2][0].reshape(-1)[4] = np.int8(want + 1 if want < 127 else want - 1)
    out = tmp_path / "bad"
    build_compiled(c, "mps2-an505", out, selftest=st)
    code, rep = _test_json(capsys, str(out), "--target", "mps2-an505")
    assert code == 1 and rep["verdict"] == "FAIL" and rep["n"] == 3
    assert [r["verdict"] for r in rep["rows"]] == ["PASS", "PASS", "FAIL"]
    assert rep["rows"][2]["max_abs_err"] == 1.0 and rep["rows"][2]["tol"] == 0
    f = rep["fail"]
    assert (f["case"], f["output"], f["element"], f["failed"]) == (2, 0, 4, 1)
    assert (f["got"], f["want"]) == (want, int(st.expected[2][0].reshape(-1)[4]))
    capsys.readouterr()
    assert main(["test", str(out), "--target", "mps2-an505"]) == 1
    text = capsys.readouterr().out
    assert "FAIL: 3 case(s), max abs err 1; first failure: case 2 output 0 element 4" in text


def test_selftest_over_serial_socket(builds, capsys):
    """The same verdict read through pyserial from QEMU's UART on a TCP socket."""
    from aot.deploy.qemu import start_on_tcp
    out = builds / "mps2-an505-fp32"
    if not out.exists():
        assert main(["build", str(zoo.path(MODEL)), "--board", "mps2-an505", "--selftest",
                     "-o", str(out)]) == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = start_on_tcp(out / "firmware.elf", "mps2-an505", port)
    try:
        code, rep = _test_json(capsys, str(out), "--target", f"serial:socket://127.0.0.1:{port}",
                               "--timeout", "60")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
    assert code == 0 and rep["verdict"] == "PASS" and rep["n"] == 4 and len(rep["rows"]) == 4


def _small_qemu_boards() -> list:
    """The QEMU-run boards beyond the two above (the small cores), from boards/."""
    from aot.deploy.boards import known_boards, load_board
    out = []
    for name in known_boards():
        b = load_board(name)
        if (b.simulator is not None and b.simulator.kind == "qemu"  # pico: tests/e2e/test_rp2040_sim.py
                and name not in ("mps2-an505", "mps3-an547")):
            out.append(name)
    return out


@pytest.mark.parametrize("int8", [False, True], ids=["fp32", "int8"])
@pytest.mark.parametrize("board", _small_qemu_boards())
def test_selftest_passes_on_the_small_cores(board, int8, builds, capsys):
    """The same self-test on Cortex-M0/M3/M4/M7 (soft-float and plain-C kernel
    paths where the core has no FPU / DSP): PASS, int8 outputs exact."""
    out = builds / f"small-{board}-{'int8' if int8 else 'fp32'}"
    argv = ["build", str(zoo.path(MODEL)), "--board", board, "--selftest", "2", "-o", str(out)]
    if int8:
        argv += ["--int8", "--int8-io"]
    assert main(argv) == 0
    code, rep = _test_json(capsys, str(out), "--target", board)
    assert code == 0 and rep["verdict"] == "PASS" and rep["n"] == 2, rep
    assert all(r["max_abs_err"] <= r["tol"] for r in rep["rows"])
    if int8:
        assert all(r["tol"] == 0 and r["max_abs_err"] == 0 for r in rep["rows"])
