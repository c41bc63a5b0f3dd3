"""renode/ agrees with the board files, and the robot files only use keywords
(with argument counts) that the QEMU stand-in provides. No simulator runs:
tests/e2e/test_renode_robot.py runs them."""
import re
import subprocess
import sys

import pytest

from aot.paths import ROOT
from aot.deploy.boards import load_board

RENODE = ROOT / "renode"
sys.path.insert(0, str(RENODE / "qemu_keywords"))
QemuKeywords = pytest.importorskip("QemuKeywords")

UART_TYPES = {"cmsdk": "UART.CMSDK_APB_UART", "pl011": "UART.PL011"}


def _sizes(path):
    """name -> size of each Memory.MappedMemory of a .repl."""
    out, name = {}, None
    for line in path.read_text().splitlines():
        m = re.match(r"^(\w+):\s*Memory\.MappedMemory", line)
        if m:
            name = m.group(1)
        elif name and re.match(r"^\s+size:\s*(0x[0-9a-fA-F]+)", line):
            out[name] = int(line.split(":")[1], 16)
            name = None
    return out


@pytest.mark.parametrize("repl", sorted(QemuKeywords.PLATFORMS))
def test_platform_matches_its_board(repl):
    board = load_board(QemuKeywords.PLATFORMS[repl])
    path = RENODE / repl
    periph = QemuKeywords._repl_peripherals(path)
    uarts = {n: a for n, (t, a) in periph.items() if t == UART_TYPES[board.uart.kind]}
    assert any(board.uart.base in a for a in uarts.values()), (repl, uarts)
    sizes = _sizes(path)
    for region in (board.flash, board.ram):
        hits = [n for n, (t, a) in periph.items() if t == "Memory.MappedMemory" and region.origin in a]
        assert hits and sizes[hits[0]] >= region.size, (repl, hex(region.origin))
    text = path.read_text()
    ticks = board.simulator.systick_hz if board.simulator else board.clock_hz
    assert f"systickFrequency: {ticks}" in text
    assert 'cpuType: "cortex-m33"' in text and board.core == "cortex-m33"
    if board.simulator is None:
        assert "STAND-IN" in text  # said plainly where Renode has no model of the chip


@pytest.mark.parametrize("name,repl,elf", [("mps2-an505", "mps2-an505.repl", "an505"),
                                           ("pico2", "pico2.repl", "pico2")])
def test_scripts_and_robot_files_agree(name, repl, elf):
    """The .resc and the .robot file load the same platform and default ELF."""
    resc = (RENODE / f"{name}.resc").read_text()
    robot = (RENODE / "tests" / f"{name}.robot").read_text()
    assert f"machine LoadPlatformDescription @renode/{repl}" in resc
    assert f"$elf?=@build/renode/{elf}/firmware.elf" in resc
    assert f"${{CURDIR}}/../{repl}" in robot
    assert f"${{CURDIR}}/../../build/renode/{elf}/firmware.elf" in robot
    assert "Wait For Line On Uart         MOTE SELFTEST PASS" in robot


def test_robot_files_dry_run(tmp_path):
    """robot --dryrun: every keyword exists in the QEMU stand-in with a fitting signature."""
    proc = subprocess.run(
        [sys.executable, "-m", "robot", "--dryrun", "--console", "quiet", "--outputdir", str(tmp_path),
         "--variable", f"RENODEKEYWORDS:{RENODE / 'qemu_keywords' / 'renode-keywords.robot'}",
         str(RENODE / "tests")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
