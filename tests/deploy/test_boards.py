"""Board files are data: every board loads, the facts match the hardware, bad files fail clearly."""
import json
import shutil

import pytest

from aot.deploy.boards import BOARDS_DIR, BoardError, Simulator, known_boards, load_board, parse_board
from aot.deploy.firmware import board_header, linker_script


def test_known_boards_cover_the_required_set():
    names = known_boards()
    for n in ("pico2", "mps2-an505", "mps3-an547", "nucleo-f446re", "mps2-an385", "mps2-an386",
              "mps2-an500", "microbit", "pico"):
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
    ({"simulator": {"kind": "renode", "machine": "x"}}, "simulator.kind must be one of qemu, rp2040js"),
    ({"simulator": {"kind": "rp2040js", "machine": "rp2040"}}, "simulator rp2040js runs the rp2040 port"),
    ({"model_region": {"origin": "0x10100000", "size": "0x1000"}}, "flash and model_region regions overlap"),
    ({"core": "cortex-m0", "mcpu": "cortex-m0"}, "cortex-m0 has no FPU"),
    ({"core": "cortex-m3", "features": {"fpu": False, "dsp": True, "mve": False},
      "mfloat_abi": "soft", "mfpu": None}, "cortex-m3 has no DSP"),
    ({"features": {"fpu": False, "dsp": True, "mve": False}}, "needs features.fpu"),
    ({"core": "cortex-m0", "features": {"fpu": False, "dsp": False, "mve": False}, "mfloat_abi": "soft",
      "mfpu": None, "cycle_counter": "dwt"}, "no DWT cycle counter"),
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


# --------------------------------------------------------------------------- small cores

def test_small_core_boards():
    """Facts of QEMU 7.2's mps2 AN385/AN386/AN500 (ZBT SSRAM1 at 0, SSRAM2&3 at
    0x20000000, CMSDK UART0 at 0x40004000, 25 MHz SYSCLK) and microbit (nRF51)."""
    for name, core, fpu in (("mps2-an385", "cortex-m3", False), ("mps2-an386", "cortex-m4", True),
                            ("mps2-an500", "cortex-m7", True)):
        b = load_board(name)
        assert (b.core, b.fpu, b.dsp, b.mve) == (core, fpu, fpu, False)
        assert b.simulator.machine == name and b.simulator.systick_hz == 25_000_000
        assert (b.flash.origin, b.ram.origin, b.uart.base) == (0, 0x20000000, 0x40004000)
        assert b.mfloat_abi == ("hard" if fpu else "soft")
    assert load_board("mps2-an385").arch_flags == ["-mthumb", "-mcpu=cortex-m3", "-mfloat-abi=soft"]
    m = load_board("microbit")
    assert (m.core, m.armv6m, m.has_vtor, m.fpu, m.dsp) == ("cortex-m0", True, False, False, False)
    assert (m.flash.size, m.ram.size) == (256 * 1024, 16 * 1024)
    assert (m.uart.kind, m.uart.base, m.uart.pins) == ("nrf51", 0x40002000, {"tx_pin": 24, "rx_pin": 25})
    assert m.arch_flags == ["-mthumb", "-mcpu=cortex-m0", "-mfloat-abi=soft"]
    h = board_header(m)
    assert "#define MOTE_BOARD_HAS_VTOR 0" in h and "#define MOTE_BOARD_SYSTICK_NS_Q8 16000u" in h
    assert "#define MOTE_BOARD_SYSTICK_NS_Q8 10240u" in board_header(load_board("mps2-an385"))  # 40 ns
    p = load_board("pico")
    assert (p.core, p.simulator, p.cycle_counter, p.uf2_family_id) == (
        "cortex-m0plus", Simulator("rp2040js", "rp2040", None), "systick", 0xE48BFF56)
    # rp2040js counts core cycles: no QEMU icount scale in the pico image's header
    assert "#define MOTE_BOARD_SYSTICK_NS_Q8 0u" in board_header(p)
    assert (p.flash.origin, p.ram.size, p.boot2_bytes, p.uart.base) == (0x10000000, 264 * 1024, 256,
                                                                       0x40034000)
    assert "rp2040js" in p.description


def test_nrf51_baudrate_register():
    """nRF51 BAUDRATE = baud * 2^32 / 16 MHz rounded to a multiple of 4096 (the
    formula of ports/nrf51/uart_nrf51.c): the reference manual's table gives
    0x01D7E000 for 115200, 0x00275000 for 9600, 0x10000000 for 1M."""
    for baud, reg in ((115200, 0x01D7E000), (9600, 0x00275000), (1_000_000, 0x10000000)):
        assert ((baud << 32) // 16_000_000 + 2048) & 0xFFFFF000 == reg


def test_boot2_crc32():
    from aot.deploy.firmware import boot2_crc32
    # CRC-32/MPEG-2 (poly 0x04c11db7, init 0xffffffff, no reflection, no final xor):
    # the catalogued check value over "123456789".
    assert boot2_crc32(b"123456789") == 0x0376E6E7
    assert boot2_crc32(b"") == 0xFFFFFFFF


def test_pico_image_is_build_only_and_valid(tmp_path):
    """pico (RP2040): first 256 bytes = boot2 with a valid CRC, vectors at
    0x10000100, a UF2 of family 0xe48bff56 covering the whole image."""
    import struct
    from aot.paths import ROOT
    from aot.deploy.firmware import boot2_crc32, build_firmware
    from aot.deploy.uf2 import parse_uf2
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc not installed")
    art = build_firmware("pico", [ROOT / "ports" / "cortex-m" / "selftest.c"], out_dir=tmp_path)
    image = art.bin.read_bytes()
    assert boot2_crc32(image[:252]) == struct.unpack_from("<I", image, 252)[0]
    sp, reset = struct.unpack_from("<II", image, 256)
    assert sp == 0x20000000 + 264 * 1024 and 0x10000100 < reset < 0x10000000 + len(image) and reset & 1
    family, base, data = parse_uf2(art.uf2.read_bytes())
    assert (family, base) == (0xE48BFF56, 0x10000000) and data[:len(image)] == image
    # Armv6-M only: no Thumb-2 32-bit instructions except BL/MRS/MSR/DMB/DSB/ISB.
    import subprocess
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(art.elf)], capture_output=True, text=True).stdout
    for line in dis.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and ":" in parts[0] and len(parts[1].split()) == 2:  # 32-bit encoding
            assert parts[2].split()[0] in ("bl", "mrs", "msr", "dmb", "dsb", "isb"), line


def test_nucleo_f446re_clock_and_uart_registers(tmp_path):
    """The register values ports/stm32f446 writes, computed by the C macros from
    the board file, against RM0390: SYSCLK 180 MHz from HSI 16 MHz through the
    PLL (VCO input 1-2 MHz, VCO 100-432 MHz), APB1 <= 45 MHz, APB2 <= 90 MHz,
    5 wait states, USART2 BRR for 115200 from PCLK1."""
    import subprocess
    from aot.paths import ROOT
    if shutil.which("gcc") is None:
        pytest.skip("host gcc not installed")
    b = load_board("nucleo-f446re")
    t = b.clock_tree
    vco_in = t["source_hz"] / t["pll_m"]
    vco = vco_in * t["pll_n"]
    assert 1e6 <= vco_in <= 2e6 and 100e6 <= vco <= 432e6 and t["pll_p"] in (2, 4, 6, 8)
    assert vco / t["pll_p"] == b.clock_hz == 180_000_000
    assert b.clock_hz / t["apb1_div"] <= 45e6 and b.clock_hz / t["apb2_div"] <= 90e6
    assert b.uart.clock_hz == b.clock_hz // t["apb1_div"]
    assert t["flash_wait_states"] == 5  # RM0390 table 5, 2.7-3.6 V, 150 < HCLK <= 180 MHz
    assert (b.uart.kind, b.uart.base, b.uart.pins) == ("stm32-usart", 0x40004400, {"tx_pin": 2, "rx_pin": 3})
    (tmp_path / "mote_board.h").write_text(board_header(b))
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "stm32f446_clock.h"\n'
        'int main(void) { printf("%x %x %x %u\\n", (unsigned)MOTE_STM32_PLLCFGR, (unsigned)MOTE_STM32_CFGR,'
        ' (unsigned)MOTE_STM32_FLASH_ACR, (unsigned)MOTE_STM32_USART_BRR); return 0; }\n')
    exe = tmp_path / "regs"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", f"-I{tmp_path}", f"-I{ROOT / 'ports' / 'stm32f446'}",
                    str(tmp_path / "main.c"), "-o", str(exe)], check=True)
    pllcfgr, cfgr, acr, brr = subprocess.run([str(exe)], capture_output=True, text=True).stdout.split()
    # PLLM=8 [5:0], PLLN=180 [14:6], PLLP=/2 -> 0 [17:16], PLLSRC=HSI [22]=0, PLLQ=8 [27:24], PLLR=2 [30:28]
    assert int(pllcfgr, 16) == 8 | (180 << 6) | (0 << 16) | (8 << 24) | (2 << 28)
    # SW=PLL (2), HPRE=/1, PPRE1=/4 (0b101 at 12:10), PPRE2=/2 (0b100 at 15:13)
    assert int(cfgr, 16) == 2 | (5 << 10) | (4 << 13)
    assert int(acr, 16) == 5 | (1 << 8) | (1 << 9) | (1 << 10)
    assert int(brr) == 391  # 45 MHz / 115200 = 390.625 -> mantissa 24, fraction 7
    assert abs(45e6 / int(brr) - 115200) / 115200 < 0.005
