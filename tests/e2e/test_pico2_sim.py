"""The Pico 2 image on LabWired's RP2350 model (PyPI labwired 0.25.0, aot/deploy/labwired.py).

1. The image `aot build zoo/small_cnn.py --board pico2` writes, booted from its
   UF2: the reset handler, XOSC/PLL_SYS/clock set-up, GPIO and pad set-up and
   the PL011 driver run to the first UART line, and the clock, reset, pin and
   baud registers end up as the port programmed them (150 MHz from 12 MHz x
   125 / (5 x 2)). Inference is not checked on this hard-float image:
   labwired's VLDR (literal) reads 4 bytes low and its VMLA.F32 is UNDEFINED
   (see aot/deploy/labwired.py), so the runtime sees wrong constants.
2. The same model, port and board built with the soft-float ABI
   (aot.deploy.labwired.sim_board) runs to "MOTE DONE" on the simulator; its output
   matches eager PyTorch and is bit-identical to the hard-float build on QEMU's
   Cortex-M33 (mps2-an505).
"""
import json
from pathlib import Path

import numpy as np
import pytest

from aot.deploy import labwired as lw
from aot.deploy.build import build_compiled
from aot.deploy.run import parse_uart, run_build
from aot.tools.compare import error_stats
from aot.compiler.pipeline import compile_model_file, eager_outputs

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "zoo" / "small_cnn.py"

pytestmark = [pytest.mark.sim, pytest.mark.slow]

# RP2350 register addresses (datasheet 2.2 address map; ports/pico2/board.c).
XOSC_CTRL, XOSC_STARTUP = 0x40048000, 0x4004800C
PLL_CS, PLL_PWR, PLL_FBDIV, PLL_PRIM = 0x40050000, 0x40050004, 0x40050008, 0x4005000C
CLK_REF_CTRL, CLK_REF_SELECTED = 0x40010030, 0x40010038
CLK_SYS_CTRL, CLK_SYS_DIV, CLK_SYS_SELECTED = 0x4001003C, 0x40010040, 0x40010044
CLK_PERI_CTRL, CLK_PERI_DIV = 0x40010048, 0x4001004C
RESETS_RESET, RESETS_DONE = 0x40020000, 0x40020008
GPIO0_CTRL, GPIO1_CTRL = 0x40028004, 0x4002800C
PADS_GPIO0, PADS_GPIO1 = 0x40038004, 0x40038008
UART0_IBRD, UART0_FBRD = 0x40070024, 0x40070028
DWT_CTRL, SCB_VTOR = 0xE0001000, 0xE000ED08
REGISTERS = [XOSC_CTRL, XOSC_STARTUP, PLL_CS, PLL_PWR, PLL_FBDIV, PLL_PRIM, CLK_REF_CTRL,
             CLK_REF_SELECTED, CLK_SYS_CTRL, CLK_SYS_DIV, CLK_SYS_SELECTED, CLK_PERI_CTRL,
             CLK_PERI_DIV, RESETS_RESET, RESETS_DONE, GPIO0_CTRL, GPIO1_CTRL, PADS_GPIO0,
             PADS_GPIO1, UART0_IBRD, UART0_FBRD, DWT_CTRL, SCB_VTOR]
PORT_RESETS = (1 << 6) | (1 << 9) | (1 << 14) | (1 << 26)  # IO_BANK0, PADS_BANK0, PLL_SYS, UART0


@pytest.fixture(scope="module")
def compiled():
    return compile_model_file(MODEL)


@pytest.fixture(scope="module")
def hard_build(compiled, tmp_path_factory):
    """Exactly what `aot build zoo/small_cnn.py --board pico2` produces."""
    return build_compiled(compiled, "pico2", tmp_path_factory.mktemp("pico2"))


@pytest.fixture(scope="module")
def soft_build(compiled, tmp_path_factory):
    return build_compiled(compiled, lw.sim_board("pico2"), tmp_path_factory.mktemp("pico2-soft"))


def test_labwired_version():
    from importlib.metadata import version
    assert version("labwired") == lw.LABWIRED_VERSION


def test_pico2_uf2_boots_and_programs_clocks(hard_build):
    r = lw.run(hard_build.uf2, timeout_s=60, read_after=REGISTERS)
    assert r.uart.startswith("MOTE BOOT pico2\n"), r.uart
    assert f"MOTE EXIT {r.status}\n" in r.uart
    reg = r.registers
    # XOSC: 1-15 MHz range, enabled, ~5 ms start-up delay.
    assert reg[XOSC_CTRL] == (0xFAB << 12) | 0xAA0
    assert reg[XOSC_STARTUP] == 234
    # PLL_SYS: REFDIV 1, FBDIV 125, POSTDIV1 5, POSTDIV2 2, powered up and locked.
    assert reg[PLL_CS] & 0x3F == 1 and reg[PLL_CS] >> 31 == 1
    assert reg[PLL_FBDIV] == 125
    assert reg[PLL_PRIM] == (5 << 16) | (2 << 12)
    assert reg[PLL_PWR] & 0b101001 == 0  # PD, POSTDIVPD, VCOPD cleared
    # clk_ref = XOSC; clk_sys = aux pll_sys / 1; clk_peri = clk_sys / 1, enabled.
    assert reg[CLK_REF_CTRL] & 3 == 2 and reg[CLK_REF_SELECTED] == 1 << 2
    assert reg[CLK_SYS_CTRL] == 1 and reg[CLK_SYS_DIV] == 1 << 16 and reg[CLK_SYS_SELECTED] == 2
    assert reg[CLK_PERI_CTRL] == 1 << 11 and reg[CLK_PERI_DIV] == 1 << 16
    # Out of reset: IO_BANK0, PADS_BANK0, PLL_SYS, UART0.
    assert reg[RESETS_RESET] & PORT_RESETS == 0
    assert reg[RESETS_DONE] & PORT_RESETS == PORT_RESETS
    # GP0/GP1 = UART0 TX/RX; pads: no isolation, TX not open-drain, RX input + pull-up.
    assert reg[GPIO0_CTRL] == 2 and reg[GPIO1_CTRL] == 2
    assert reg[PADS_GPIO0] & ((1 << 8) | (1 << 7)) == 0
    assert reg[PADS_GPIO1] & ((1 << 8) | (1 << 6) | (1 << 3)) == (1 << 6) | (1 << 3)
    # 115200 baud from 150 MHz: divisor 81 + 24/64.
    assert (reg[UART0_IBRD], reg[UART0_FBRD]) == (81, 24)
    # Cycle counter on; vector table at the start of flash.
    assert reg[DWT_CTRL] & 1 == 1
    assert reg[SCB_VTOR] == 0x10000000
    print(f"\nlabwired pico2 (hard-float) boot: status {r.status}, {r.sim_cycles} cycles simulated, "
          f"{r.wall_seconds:.2f} s wall\n{r.uart}")


def test_pico2_soft_float_matches_eager(compiled, soft_build):
    info = json.loads((soft_build.out_dir / "build.json").read_text())
    assert info["board"] == "pico2"
    r = lw.run(soft_build.uf2, timeout_s=120)
    assert r.status == 0, r.uart
    assert r.uart.startswith("MOTE BOOT pico2\nMOTE MODEL pte=")
    assert f"MOTE DONE {info['input_sets']}\n" in r.uart
    outputs, cycles = parse_uart(r.uart, info["outputs"])
    assert len(outputs) == info["input_sets"] == 1
    eager = eager_outputs(compiled, compiled.example_inputs)
    stats = error_stats(outputs[0], eager)
    assert stats["max_rel_error"] <= 1e-5, stats
    # DWT cycles of the inference: counted, and less than the whole simulated run.
    assert 0 < cycles[0] < r.sim_cycles
    print(f"\nlabwired pico2 (soft-float): {cycles[0]} DWT cycles per inference, "
          f"max rel error {stats['max_rel_error']:.3g}, {r.sim_seconds * 1e3:.2f} ms simulated, "
          f"{r.wall_seconds:.2f} s wall")


def test_pico2_soft_float_bit_identical_to_m33_fpu(compiled, soft_build, tmp_path):
    """libgcc's soft float on labwired == the FPU (VMLA etc.) on QEMU's Cortex-M33."""
    r = lw.run(soft_build.uf2, timeout_s=120)
    info = json.loads((soft_build.out_dir / "build.json").read_text())
    soft, _ = parse_uart(r.uart, info["outputs"])
    an505 = tmp_path / "an505"
    build_compiled(compiled, "mps2-an505", an505)
    fpu = run_build(an505, timeout=60)
    assert len(soft) == len(fpu.outputs) == 1
    for a, b in zip(soft[0], fpu.outputs[0]):
        assert a.dtype == b.dtype == np.float32
        assert a.tobytes() == b.tobytes()


def test_runner_times_out_with_partial_output(soft_build):
    """A run that has not reached MOTE EXIT within its simulated-time budget raises,
    carrying the UART text so far (the inference alone takes ~15 ms simulated)."""
    with pytest.raises(lw.LabwiredTimeout) as e:
        lw.run(soft_build.elf, timeout_s=60, max_sim_s=0.004)
    assert e.value.output.startswith("MOTE BOOT pico2\nMOTE MODEL pte=")
    assert "OUT 0" not in e.value.output and "MOTE EXIT" not in e.value.output
