"""renode/ agrees with the board files, and the robot files only use keywords
(with argument counts) that the stand-in for Renode's keywords
(renode/sim_keywords, on QEMU and rp2040js) provides. No simulator runs:
tests/e2e/test_renode_robot.py runs them."""
import re
import subprocess
import sys

import pytest

from aot.paths import ROOT
from aot.deploy.boards import load_board

RENODE = ROOT / "renode"
sys.path.insert(0, str(RENODE / "sim_keywords"))
SimKeywords = pytest.importorskip("SimKeywords")

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


@pytest.mark.parametrize("repl", sorted(SimKeywords.PLATFORMS))
def test_platform_matches_its_board(repl):
    board = load_board(SimKeywords.PLATFORMS[repl])
    path = RENODE / repl
    periph = SimKeywords._repl_peripherals(path)
    uarts = {n: a for n, (t, a) in periph.items() if t == UART_TYPES[board.uart.kind]}
    assert any(board.uart.base in a for a in uarts.values()), (repl, uarts)
    sizes = _sizes(path)
    for region in (board.flash, board.ram):
        hits = [n for n, (t, a) in periph.items() if t == "Memory.MappedMemory" and region.origin in a]
        assert hits and sizes[hits[0]] >= region.size, (repl, hex(region.origin))
    text = path.read_text()
    # SysTick: QEMU's model of it where the board runs on QEMU, else the core clock
    ticks = (board.simulator and board.simulator.systick_hz) or board.clock_hz
    assert f"systickFrequency: {ticks}" in text
    assert SimKeywords.repl_cpu_types(path) == [SimKeywords.renode_cpu_type(board.core)]
    if board.uf2_family_id is not None:
        # a Raspberry Pi chip: Renode models neither the RP2040 nor the RP2350
        assert "STAND-IN" in text  # said plainly where Renode has no model of the chip


def test_cpu_types_are_renodes_names():
    assert SimKeywords.renode_cpu_type(load_board("pico").core) == "cortex-m0+"
    assert SimKeywords.renode_cpu_type(load_board("mps2-an505").core) == "cortex-m33"


def test_pico_platform_is_the_rp2040s():
    """The RP2040 facts pico.repl carries beyond the board file: UART0_IRQ 20 (an
    interrupt of the board's table) and the clock set-up's blocks at the RP2040's
    addresses (ports/rp2040/board.c names the same)."""
    board = load_board("pico")
    periph = SimKeywords._repl_peripherals(RENODE / "pico.repl")
    text = (RENODE / "pico.repl").read_text()
    assert "-> nvic0@20" in text and 20 < board.irq_count
    port = (ROOT / "ports" / "rp2040" / "board.c").read_text()
    for name, macro in (("clocks", "CLOCKS"), ("resets", "RESETS"), ("xosc", "XOSC"), ("pll_sys", "PLL_SYS")):
        (address,) = periph[name][1]
        assert f"#define MOTE_{macro}_BASE 0x{address:08x}u" in port, name


@pytest.mark.parametrize("name,repl,elf", [("mps2-an505", "mps2-an505.repl", "an505"),
                                           ("pico", "pico.repl", "pico"),
                                           ("pico2", "pico2.repl", "pico2")])
def test_scripts_and_robot_files_agree(name, repl, elf):
    """The .resc and the .robot file load the same platform and default ELF; where
    the image starts with boot2 (pico), both point VTOR past it, at the image's vectors."""
    resc = (RENODE / f"{name}.resc").read_text()
    robot = (RENODE / "tests" / f"{name}.robot").read_text()
    assert f"machine LoadPlatformDescription @renode/{repl}" in resc
    assert f"$elf?=@build/renode/{elf}/firmware.elf" in resc
    assert f"${{CURDIR}}/../{repl}" in robot
    assert f"${{CURDIR}}/../../build/renode/{elf}/firmware.elf" in robot
    assert "Wait For Line On Uart         MOTE SELFTEST PASS" in robot
    assert f"Wait For Line On Uart         MOTE BOOT {name}\n" in robot
    board = load_board(SimKeywords.PLATFORMS[repl])
    vtor = f"sysbus.cpu0 VectorTableOffset 0x{board.flash.origin + board.boot2_bytes:08x}"
    assert (vtor in resc, vtor in robot) == ((True, True) if board.boot2_bytes else (False, False))


def test_robot_files_dry_run(tmp_path):
    """robot --dryrun: every keyword exists in the stand-in with a fitting signature."""
    proc = subprocess.run(
        [sys.executable, "-m", "robot", "--dryrun", "--console", "quiet", "--outputdir", str(tmp_path),
         "--variable", f"RENODEKEYWORDS:{RENODE / 'sim_keywords' / 'renode-keywords.robot'}",
         str(RENODE / "tests")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
