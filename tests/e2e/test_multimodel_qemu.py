"""Several models in one firmware on the QEMU Cortex-M33 (mps2-an505): the DS-CNN keyword
spotter (zoo/ds_cnn.py) and the digits image CNN (examples/digits/model.py), int8, each with
three self-test cases, built with `aot build kws=... digits=... --selftest 3` in both memory
modes. The app initialises both models, then runs kws case 0, digits case 0, kws case 1,
digits case 1 (in shared mode every run follows the other model's in the same arena);
`aot test` reads a verdict per model.

Measured (2026-12-07, --opt speed): kws arena 10,890 B, digits 4,080 B; both programs have
method images (runtime state 0 B of RAM, 204 B of handles each). RAM: shared 12,924 B =
10,890 (the larger plan) + 408 (both models' handles) + 1,528 stack + 98 port;
separate 17,008 B = 14,970 (both plans) + 408 + 1,528 + 102: 4,084 B more, the smaller arena
plus 4 B of .bss alignment. Flash 186,120 B in both modes.
"""
from __future__ import annotations

import json

import pytest

from aot.cli import main
from aot.paths import ROOT

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

MODELS = [f"kws={ROOT / 'zoo' / 'ds_cnn.py'}", f"digits={ROOT / 'examples' / 'digits' / 'model.py'}"]


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    root = tmp_path_factory.mktemp("multimodel")
    out = {}
    for memory in ("shared", "separate"):
        out[memory] = root / memory
        assert main(["build", *MODELS, "--board", "mps2-an505", "--int8", "--selftest", "3",
                     "--memory", memory, "-o", str(out[memory])]) == 0
    return out


@pytest.mark.parametrize("memory", ["shared", "separate"])
def test_both_models_pass_their_selftest_in_qemu(builds, capsys, memory):
    capsys.readouterr()
    assert main(["test", str(builds[memory]), "--target", "mps2-an505", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["verdict"] == "PASS" and list(rep["models"]) == ["kws", "digits"]
    for name, r in rep["models"].items():
        assert r["verdict"] == "PASS" and r["n"] == 3, name
        assert [row["case"] for row in r["rows"]] == [0, 1, 2]
    info = json.loads((builds[memory] / "build.json").read_text())
    assert info["memory"] == memory and [m["name"] for m in info["models"]] == ["kws", "digits"]


def test_the_models_take_turns_and_their_outputs_are_their_own(builds):
    """The UART lines: both models announced, then kws 0, digits 0, kws 1, ... each OUT line
    after its model's MOTE RUN line; the cases give distinct outputs (the random-weight
    DS-CNN's case 2 differs from its case 0; digits' differ all), so a pass is not a
    constant's."""
    from aot.deploy.boards import load_board
    from aot.deploy.qemu import run_firmware_streaming
    code, text = run_firmware_streaming(builds["shared"] / "firmware.elf", load_board("mps2-an505"), timeout_s=120)
    assert code == 0, text
    lines = text.splitlines()
    assert [ln.split()[2] for ln in lines if ln.startswith("MOTE MODEL ")] == ["name=kws", "name=digits"]
    outs, model = [], None
    for ln in lines:
        if ln.startswith("MOTE RUN model="):
            model = ln.split("=", 1)[1]
        elif ln.startswith("OUT "):
            outs.append((model, int(ln.split()[1]), ln.split()[3]))
    assert [(m, k) for m, k, _ in outs] == [(m, k) for k in range(3) for m in ("kws", "digits")]
    kws = [h for m, _, h in outs if m == "kws"]
    digits = [h for m, _, h in outs if m == "digits"]
    assert kws[2] != kws[0] and len(set(digits)) == 3
    assert lines[-1] == "MOTE DONE 6"


def test_shared_ram_is_the_larger_plan_plus_both_models_state(builds):
    shared, separate = (json.loads((builds[m] / "size.json").read_text()) for m in ("shared", "separate"))
    kws, digits = (shared["models"][n]["planned"]["arena"] for n in ("kws", "digits"))
    assert kws > digits > 0
    # separate: each model's arena; shared: one, the larger plan
    assert [separate["models"][n]["ram"]["arena"] for n in ("kws", "digits")] == [kws, digits]
    assert separate["ram"]["arena"] == kws + digits and separate["shared"]["arena"] == 0
    assert shared["ram"]["arena"] == shared["shared"]["arena"] == kws
    assert all(shared["models"][n]["ram"]["arena"] == 0 for n in ("kws", "digits"))
    # each model keeps its own state (method images: 0 B of state in RAM) and handles in both modes
    for n in ("kws", "digits"):
        assert shared["models"][n]["ram"] == dict(separate["models"][n]["ram"], arena=0)
        assert shared["models"][n]["ram"]["runtime"] > 0
    # the rest of the firmware is the same: code, stack, state, handles
    assert shared["flash_bytes"] == separate["flash_bytes"] and shared["flash"] == separate["flash"]
    for part in ("runtime_state", "runtime", "stack", "scratch"):
        assert shared["ram"][part] == separate["ram"][part], part
    states = sum(shared["models"][n]["ram"]["runtime_state"] + shared["models"][n]["ram"]["runtime"]
                 for n in ("kws", "digits"))
    assert shared["ram_bytes"] == kws + states + shared["ram"]["stack"] + shared["ram"]["port"]
    # shared saves the smaller arena, up to the .bss alignment the arenas' order leaves (< 16 B)
    saved = separate["ram_bytes"] - shared["ram_bytes"]
    assert saved - digits == separate["ram"]["port"] - shared["ram"]["port"]
    assert 0 <= saved - digits < 16


def test_both_verdicts_over_serial_socket(builds, capsys):
    """`aot test DIR --target serial:...` reads the same two verdicts from QEMU's UART on a TCP
    socket, checking each MOTE MODEL line against the folder's programs."""
    import socket
    from aot.deploy.qemu import start_on_tcp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = start_on_tcp(builds["separate"] / "firmware.elf", "mps2-an505", port)
    try:
        capsys.readouterr()
        code = main(["test", str(builds["separate"]), "--target", f"serial:socket://127.0.0.1:{port}",
                     "--timeout", "60", "--json"])
        rep = json.loads(capsys.readouterr().out)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
    assert code == 0 and rep["verdict"] == "PASS" and rep["n"] == 6
    assert {n: r["verdict"] for n, r in rep["models"].items()} == {"kws": "PASS", "digits": "PASS"}


def test_one_failing_model_fails_the_firmware_and_is_named(tmp_path, capsys):
    """One expected value of model b changed: the firmware exits 1, `aot test` exits 1 with a
    PASS for a and b's first failing element."""
    import warnings
    import zoo
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.multimodel import ModelBuild, build_models
    from aot.deploy.selftest import case_inputs, make_selftest
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = compile_model_file(zoo.path("small_cnn"), int8=True)
        b = compile_model_file(zoo.path("mlp"))
    sa, sb = (make_selftest(c.pte, case_inputs(c, 2)) for c in (a, b))
    sb.expected[1][0] = sb.expected[1][0].copy()
    sb.expected[1][0].reshape(-1)[3] += 1.0
    out = tmp_path / "bad"
    build_models([ModelBuild("a", a, sa), ModelBuild("b", b, sb)], "mps2-an505", out, memory="shared")
    capsys.readouterr()
    assert main(["test", str(out), "--target", "mps2-an505"]) == 1
    text = capsys.readouterr().out
    assert text.splitlines()[-1] == "FAIL: 2 models, 4 case(s); failed: b"
    assert "model a:\n" in text and "first failure: case 1 output 0 element 3" in text
