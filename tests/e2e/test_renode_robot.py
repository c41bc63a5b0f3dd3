"""renode/tests/*.robot run for real on each board's simulator: `python -m robot`
with RENODEKEYWORDS pointing at renode/sim_keywords/renode-keywords.robot (the
variable renode-test sets to Renode's own keywords), so the same files that
`renode-test renode/tests/` runs for users with Renode pass here.

The mps2-an505 file boots a --selftest firmware on QEMU and the pico file boots
the pico build's UF2 on rp2040js (the RP2040 model; timeouts in virtual time,
core cycles), each waiting for `MOTE SELFTEST PASS`; the pico2 file (a
memory-map stand-in, no simulator here) is skipped with its reason. A firmware
whose self-test fails, a line that never comes, a cycle budget too small and a
UF2 that is not the ELF's fail the run with the reason in the message.
"""
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from robot.api import ExecutionResult

import zoo
from aot.cli import main
from aot.compiler.pipeline import compile_model_file
from aot.paths import ROOT
from aot.deploy import rp2040js
from aot.deploy.boards import load_board
from aot.deploy.build import build_compiled
from aot.deploy.firmware import uf2_from_elf
from aot.deploy.selftest import case_inputs, make_selftest

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

KEYWORDS = ROOT / "renode" / "sim_keywords" / "renode-keywords.robot"
PICO_ROBOT = ROOT / "renode" / "tests" / "pico.robot"


def _robot(out_dir, *args) -> tuple:
    """Run robot from the repository root (the .resc paths are relative to
    it, as for Renode); returns (exit status, {test name: (status, message)})."""
    cmd = [sys.executable, "-m", "robot", "--variable", f"RENODEKEYWORDS:{KEYWORDS}",
           "--outputdir", str(out_dir), "--console", "quiet", *map(str, args)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    tests = {}

    def visit(suite):
        for t in suite.tests:
            tests[f"{suite.name}.{t.name}"] = (t.status, t.message)
        for s in suite.suites:
            visit(s)
    visit(ExecutionResult(str(out_dir / "output.xml")).suite)
    return proc.returncode, tests


@pytest.fixture(scope="module")
def an505_elf(tmp_path_factory):
    out = tmp_path_factory.mktemp("renode") / "an505"
    assert main(["build", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--selftest",
                 "-o", str(out)]) == 0
    return out / "firmware.elf"


@pytest.fixture(scope="module")
def pico_elf(tmp_path_factory):
    """fp32 small_cnn --selftest for the pico (firmware.uf2 beside the ELF)."""
    out = tmp_path_factory.mktemp("renode") / "pico"
    assert main(["build", str(zoo.path("small_cnn")), "--board", "pico", "--selftest", "-o", str(out)]) == 0
    return out / "firmware.elf"


def test_robot_files_pass_on_their_simulators(an505_elf, pico_elf, tmp_path):
    """The whole folder: mps2-an505 on QEMU, pico on rp2040js, pico2 skipped."""
    code, tests = _robot(tmp_path, "--variable", f"AN505_ELF:{an505_elf}", "--variable", f"PICO_ELF:{pico_elf}",
                         ROOT / "renode" / "tests")
    assert code == 0, tests
    assert tests["Mps2-An505.Self-Test Should Pass"] == ("PASS", "")
    assert tests["Pico.Self-Test Should Pass"] == ("PASS", "")
    status, why = tests["Pico2.Self-Test Should Pass"]
    assert status == "SKIP" and "no QEMU machine, no rp2040js" in why and "renode-test" in why


def test_pico_robot_file_boots_the_users_uf2(pico_elf, tmp_path):
    """The image rp2040js boots is the firmware.uf2 `aot build` wrote, and it is the
    UF2 made from the ELF; without it beside the ELF, that UF2 is made and booted."""
    board = load_board("pico")
    sibling = pico_elf.with_suffix(".uf2")
    assert rp2040js.image_uf2(pico_elf, board, tmp_path) == sibling
    assert sibling.read_bytes() == uf2_from_elf(board, pico_elf)
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(pico_elf, lone / "firmware.elf")
    code, tests = _robot(tmp_path / "robot", "--variable", f"PICO_ELF:{lone / 'firmware.elf'}", PICO_ROBOT)
    assert code == 0 and tests["Pico.Self-Test Should Pass"] == ("PASS", ""), tests


def test_pico_uf2_that_is_not_the_elfs_fails(pico_elf, tmp_path):
    """A firmware.uf2 beside the ELF that differs from the ELF's UF2 (here one payload
    byte) is refused at `sysbus LoadELF`, before anything runs."""
    d = tmp_path / "stale"
    shutil.copytree(pico_elf.parent, d)
    uf2 = bytearray((d / "firmware.uf2").read_bytes())
    uf2[512 + 32 + 7] ^= 0x01
    (d / "firmware.uf2").write_bytes(bytes(uf2))
    code, tests = _robot(tmp_path / "robot", "--variable", f"PICO_ELF:{d / 'firmware.elf'}", PICO_ROBOT)
    assert code == 1
    status, why = tests["Pico.Self-Test Should Pass"]
    assert status == "FAIL" and why.startswith("sysbus LoadELF: ")
    assert f"{d / 'firmware.uf2'} is not the UF2 of firmware.elf" in why


def test_failing_selftest_fails_the_robot_run(tmp_path):
    """One expected int8 byte changed before the build: the firmware prints
    MOTE SELFTEST FAIL, a failing UART string of the robot file."""
    c = compile_model_file(zoo.path("small_cnn"), int8=True, int8_io=True)
    st = make_selftest(c.pte, case_inputs(c, 2))
    flat = st.expected[1][0].reshape(-1)
    flat[3] = np.int8(int(flat[3]) + 1 if flat[3] < 127 else int(flat[3]) - 1)
    build_compiled(c, "mps2-an505", tmp_path / "bad", selftest=st)
    code, tests = _robot(tmp_path / "robot", "--variable", f"AN505_ELF:{tmp_path / 'bad' / 'firmware.elf'}",
                         ROOT / "renode" / "tests" / "mps2-an505.robot")
    assert code == 1
    status, why = tests["Mps2-An505.Self-Test Should Pass"]
    assert status == "FAIL" and "failing entry" in why and "MOTE SELFTEST FAIL case=1" in why


def test_resc_script_and_a_line_that_never_comes(an505_elf, tmp_path):
    """renode/mps2-an505.resc (variables, showAnalyzer, start) through Execute
    Script; a wait for a line the firmware never prints fails once it exits,
    listing what it printed."""
    suite = tmp_path / "resc.robot"
    suite.write_text(textwrap.dedent(f"""\
        *** Settings ***
        Test Setup        Reset Emulation
        Test Teardown     Test Teardown
        Resource          ${{RENODEKEYWORDS}}

        *** Keywords ***
        Boot The Script
            Execute Command           $elf=@{an505_elf}
            Execute Script            {ROOT / "renode" / "mps2-an505.resc"}
            Create Terminal Tester    sysbus.uart0    timeout=120

        *** Test Cases ***
        Script Boots The Self-Test
            Boot The Script
            ${{r}}=    Wait For Line On Uart    MOTE SELFTEST PASS n=(\\\\d+)    treatAsRegex=true
            Should Be Equal    ${{r}}[groups][0]    4

        Wrong Line Fails
            Boot The Script
            Wait For Line On Uart     MOTE SELFTEST PASS n=99
        """))
    code, tests = _robot(tmp_path / "out", suite)
    assert code == 1, tests
    assert tests["Resc.Script Boots The Self-Test"] == ("PASS", "")
    status, why = tests["Resc.Wrong Line Fails"]
    assert status == "FAIL" and "the firmware exited (QEMU status 0)" in why
    assert "MOTE SELFTEST PASS n=4" in why and "MOTE BOOT mps2-an505" in why


@pytest.fixture(scope="module")
def pico_int8(tmp_path_factory):
    """int8 small_cnn --selftest for the pico, one compile: (the firmware ELF, one
    whose case 1 expected bytes are changed: it prints MOTE SELFTEST FAIL case=1)."""
    c = compile_model_file(zoo.path("small_cnn"), int8=True, int8_io=True)
    st = make_selftest(c.pte, case_inputs(c, 2))
    root = tmp_path_factory.mktemp("renode")
    build_compiled(c, "pico", root / "pico-int8", selftest=st)
    flat = st.expected[1][0].reshape(-1)
    flat[3] = np.int8(int(flat[3]) + 1 if flat[3] < 127 else int(flat[3]) - 1)
    build_compiled(c, "pico", root / "pico-bad", selftest=st)
    return root / "pico-int8" / "firmware.elf", root / "pico-bad" / "firmware.elf"


def test_int8_selftest_passes_the_pico_robot_file(pico_int8, tmp_path):
    code, tests = _robot(tmp_path, "--variable", f"PICO_ELF:{pico_int8[0]}", PICO_ROBOT)
    assert code == 0 and tests["Pico.Self-Test Should Pass"] == ("PASS", ""), tests


def test_failing_selftest_fails_the_pico_robot_run(pico_int8, tmp_path):
    """On rp2040js as on QEMU: MOTE SELFTEST FAIL is a failing UART string of the file."""
    code, tests = _robot(tmp_path, "--variable", f"PICO_ELF:{pico_int8[1]}", PICO_ROBOT)
    assert code == 1
    status, why = tests["Pico.Self-Test Should Pass"]
    assert status == "FAIL" and "failing entry" in why and "MOTE SELFTEST FAIL case=1" in why


def test_pico_waits_count_virtual_time(pico_elf, tmp_path):
    """Timeouts on rp2040js are core cycles (seconds x the board's clock_hz), counted
    from the previous match's line: the run gives the same cycle stamps as `aot run`'s
    runner, a budget too small fails naming it and where the runner paused, a wait
    shorter than the gap to its line fails naming that line's cycle, and a line that
    never comes fails with the runner's end reason (MOTE EXIT at its cycle)."""
    board = load_board("pico")
    clock = board.clock_hz
    ref = rp2040js.run_uf2(pico_elf.with_suffix(".uf2"), board)
    assert ref.result == "exit" and ref.exit_status == 0
    lines = ref.uart.splitlines()
    out2 = ref.out_cycles[2]   # the cycle at which "OUT 2 ..." ended (the third case's output)
    suite = tmp_path / "virtual.robot"
    suite.write_text(textwrap.dedent(f"""\
        *** Settings ***
        Test Setup        Reset Emulation
        Test Teardown     Test Teardown
        Resource          ${{RENODEKEYWORDS}}

        *** Keywords ***
        Boot The Script
            [Arguments]               ${{timeout}}
            Execute Command           $elf=@{pico_elf}
            Execute Script            {ROOT / "renode" / "pico.resc"}
            Create Terminal Tester    sysbus.uart0    timeout=${{timeout}}

        *** Test Cases ***
        Stamps Are Virtual Milliseconds
            Boot The Script           120
            ${{r}}=    Wait For Line On Uart    OUT 2
            Should Be Equal As Numbers    ${{r}}[timestamp]    {out2 * 1000.0 / clock!r}

        Budget Too Small
            Boot The Script           0.1
            Wait For Line On Uart     MOTE SELFTEST PASS

        Each Wait Has Its Own Budget
            Boot The Script           0.1
            Wait For Line On Uart     OUT 1
            Wait For Line On Uart     MOTE SELFTEST PASS    timeout=0.1

        Wait Shorter Than The Gap
            Boot The Script           120
            Wait For Line On Uart     OUT 1
            Wait For Line On Uart     OUT 2    timeout=0.001

        Run Ends First
            Boot The Script           120
            Wait For Line On Uart     MOTE SELFTEST PASS n=99
        """))
    code, tests = _robot(tmp_path / "out", suite)
    assert code == 3, tests  # robot's status: the number of failed tests
    assert tests["Virtual.Stamps Are Virtual Milliseconds"] == ("PASS", "")
    budget = round(0.1 * clock)
    assert ref.out_cycles[-1] > budget  # the whole self-test does not fit in 0.1 s
    status, why = tests["Virtual.Budget Too Small"]
    assert status == "FAIL" and (f"no such line within 0.1 s of virtual time: the wait's cycle budget of "
                                 f"{budget:,} cycles (0.1 s x {clock:,} Hz, from cycle 0) was spent "
                                 f"(rp2040js paused at cycle ") in why, why
    # OUT 1 ends inside 0.1 s; from it, 0.1 s more covers the rest of the self-test
    assert ref.out_cycles[1] < budget and ref.out_cycles[-1] < ref.out_cycles[1] + budget
    assert tests["Virtual.Each Wait Has Its Own Budget"] == ("PASS", "")
    status, why = tests["Virtual.Wait Shorter Than The Gap"]
    short = round(0.001 * clock)
    assert status == "FAIL" and (f"the wait's cycle budget of {short:,} cycles (0.001 s x {clock:,} Hz, "
                                 f"from cycle {ref.out_cycles[1]:,}) was spent (the next line ended at cycle ") in why
    status, why = tests["Virtual.Run Ends First"]
    assert status == "FAIL" and f"the firmware exited (MOTE EXIT 0) at cycle {ref.cycles:,}" in why
    assert lines[-1] == "MOTE EXIT 0" and "MOTE BOOT pico" in why and "MOTE SELFTEST PASS n=4" in why
