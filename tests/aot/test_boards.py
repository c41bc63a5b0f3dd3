"""Board files are data: every board loads, the facts match the hardware, bad files fail clearly."""
import json
import shutil

import pytest

from aot.target.boards import BOARDS_DIR, BoardError, known_boards, load_board, parse_board
from aot.target.firmware import board_header, linker_script


def test_known_boards_cover_the_required_set():
    names = known_boards()
    for n in ("pico2", "mps2-an505", "mps3-an547", "nucleo-f446re"):
        assert n in names
    for n in names:
        b = load_board(n)
        assert b.name == n
        assert b.flash.size > 0 and b.ram.size > 0


def test_pico2_facts():
    b = load_board("pico2")
    assert (b.core, b.clock_hz) == ("cortex-m33", 150_000_000)
    assert (b.flash.origin, b.flash.size) == (0x10000000, 4 * 1024 * 1024)
    assert (b.ram.origin, b.ram.size) == (0x20000000, 520 * 1024)
    assert (b.uart.kind, b.uart.base, b.uart.baud) == ("pl011", 0x40070000, 115200)
    assert b.uf2_family_id == 0xE48BFF59
    assert b.simulator is None and b.port == "pico2" and b.cycle_counter == "dwt"
    assert b.fpu and b.dsp and not b.mve
    assert b.arch_flags == ["-mthumb", "-mcpu=cortex-m33", "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"]


def test_qemu_boards():
    a = load_board("mps2-an505")
    assert a.simulator.machine == "mps2-an505" and a.core == "cortex-m33"
    assert a.dsp and a.fpu and not a.mve
    assert (a.uart.kind, a.uart.base) == ("cmsdk", 0x50200000)
    assert (a.flash.origin, a.ram.origin) == (0x10000000, 0x38000000)
    m = load_board("mps3-an547")
    assert m.simulator.machine == "mps3-an547" and m.core == "cortex-m55" and m.mve
    assert (m.uart.kind, m.uart.base) == ("cmsdk", 0x59303000)
    assert (m.model_region.origin, m.model_region.size) == (0x38000000, 8 << 20)  # QSPI
    assert "MODEL (r)  : ORIGIN = 0x38000000, LENGTH = 0x800000" in linker_script(m)
    assert "> MODEL" in linker_script(m) and "MODEL" not in linker_script(a)
    assert a.model_region is None
    assert load_board("nucleo-f446re").simulator is None


def test_unknown_board_lists_known_ones():
    with pytest.raises(BoardError) as e:
        load_board("pico3")
    msg = str(e.value)
    assert "pico3" in msg
    for n in known_boards():
        assert n in msg


def _variant(tmp_path, name, **changes):
    d = json.loads((BOARDS_DIR / "mps2-an505.json").read_text())
    d["name"] = name
    for k, v in changes.items():
        d[k] = v
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(d))
    return p


def test_board_from_a_path(tmp_path):
    p = _variant(tmp_path, "my-board", ram={"origin": "0x38000000", "size": 65536})
    b = load_board(str(p))
    assert b.name == "my-board" and b.ram.size == 65536


@pytest.mark.parametrize("changes, needle", [
    ({"core": "cortex-m99"}, "core"),
    ({"features": {"fpu": True, "dsp": True, "mve": True}}, "MVE"),
    ({"ram": {"origin": "0x10000000", "size": "0x1000"}}, "flash and ram regions overlap"),
    ({"uart": {"kind": "cmsdk", "baud": 115200}}, "uart.base"),
    ({"uart": {"kind": "usb", "base": 0, "baud": 1}}, "uart.kind"),
    ({"flash": {"origin": "zero", "size": 4}}, "flash.origin"),
    ({"simulator": None}, "simulator"),
    ({"model_region": {"origin": "0x10100000", "size": "0x1000"}}, "flash and model_region regions overlap"),
])
def test_malformed_boards_fail_clearly(tmp_path, changes, needle):
    p = _variant(tmp_path, "bad", **changes)
    with pytest.raises(BoardError) as e:
        parse_board(p)
    assert needle in str(e.value)


def test_missing_field(tmp_path):
    d = json.loads((BOARDS_DIR / "pico2.json").read_text())
    del d["mcpu"]
    p = tmp_path / "pico2.json"
    p.write_text(json.dumps(d))
    with pytest.raises(BoardError, match="'mcpu'"):
        parse_board(p)


def test_generated_linker_script_and_header():
    b = load_board("pico2")
    ld = linker_script(b, 4096)
    assert "FLASH (rx) : ORIGIN = 0x10000000, LENGTH = 0x400000" in ld
    assert "RAM (rwx)  : ORIGIN = 0x20000000, LENGTH = 0x82000" in ld
    assert "__stack_size__ = 4096;" in ld
    assert "KEEP(*(.mote_image_def))" in ld and "first 4 KB" in ld
    assert "*(.rodata .rodata.*)" in ld.split("} > FLASH")[0]  # rodata stays in flash
    assert ".mote_image_def" not in linker_script(load_board("mps2-an505"))
    h = board_header(load_board("mps2-an505"))
    assert "#define MOTE_BOARD_UART_BASE 0x50200000u" in h
    assert "#define MOTE_BOARD_SYSTICK_NS_Q8 12800u" in h  # 50 ns per tick at 20 MHz
    assert "#define MOTE_BOARD_CYCLES_SYSTICK_ICOUNT 1" in h
    assert "#define MOTE_BOARD_SYSTICK_NS_Q8 8000u" in board_header(load_board("mps3-an547"))
