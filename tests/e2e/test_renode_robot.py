"""renode/tests/*.robot run for real on QEMU: `python -m robot` with
RENODEKEYWORDS pointing at renode/qemu_keywords/renode-keywords.robot (the
variable renode-test sets to Renode's own keywords), so the same files that
`renode-test renode/tests/` runs for users with Renode pass here.

The mps2-an505 file boots a --selftest firmware and waits for
`MOTE SELFTEST PASS`; the pico2 file (a memory-map stand-in, no QEMU machine)
is skipped with its reason. A firmware whose self-test fails, and a line that
never comes, fail the run with the UART lines in the message.
"""
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
from aot.deploy.build import build_compiled
from aot.deploy.selftest import case_inputs, make_selftest

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

KEYWORDS = ROOT / "renode" / "qemu_keywords" / "renode-keywords.robot"


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


def test_robot_files_pass_on_qemu(an505_elf, tmp_path):
    code, tests = _robot(tmp_path, "--variable", f"AN505_ELF:{an505_elf}", ROOT / "renode" / "tests")
    assert code == 0, tests
    assert tests["Mps2-An505.Self-Test Should Pass"] == ("PASS", "")
    status, why = tests["Pico2.Self-Test Should Pass"]
    assert status == "SKIP" and "no QEMU machine" in why and "renode-test" in why


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
