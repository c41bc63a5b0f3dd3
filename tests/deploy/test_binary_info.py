"""Raspberry Pi binary info in pico (RP2040) and pico2 (RP2350) images
(ports/rp2/binary_info.c, aot/deploy/binary_info.py).

The expected words are the documented values (Pico SDK pico_binary_info, as
picotool reads them), written here as literals: the header's markers 0x7188ebf2
/ 0xe71aa390, types ID_AND_INT 5 / ID_AND_STRING 6 / PINS_WITH_FUNC 8, tag 'RP'
0x5052, the well-known IDs, and the pins encoding of GP0+GP1 with function 2
(UART): 2 | 2 << 3 | 0 << 7 | 1 << 12 | 1 << 17 = 0x00021012. The header and one
entry are decoded here with struct from the raw image, independently of the parser.
"""
import struct
from pathlib import Path

import pytest

from aot.deploy import binary_info as bi
from aot.deploy.firmware import build_firmware
from aot.deploy.uf2 import bin_to_uf2
from aot.errors import BinaryInfoError

ROOT = Path(__file__).resolve().parents[2]
SELFTEST = ROOT / "ports" / "cortex-m" / "selftest.c"

MARKER_START, MARKER_END = 0x7188EBF2, 0xE71AA390
TAG_RP = 0x5052
ID_NAME, ID_VERSION, ID_DATE, ID_DESCRIPTION, ID_BINARY_END = (
    0x02031C86, 0x11A9BC3A, 0x9DA22254, 0xB6A07C19, 0x68F465DE)
UART_GP0_GP1 = 0x00021012
#: where the header must be: right after the vector table (16 + irq_count words),
#: pico after its 256-byte boot2, pico2 after its 20-byte IMAGE_DEF block
HEADER_AT = {"pico": 0x10000100 + 4 * (16 + 26), "pico2": 0x10000000 + 4 * (16 + 52) + 20}
CHIP = {"pico": "RP2040", "pico2": "RP2350"}
PROGRAM = bi.ProgramInfo(name='mote "odd\\name??=', version="9.8.7", build_date="2001-02-03",
                         description="caf\u00e9 \u2014 fp32, arena 1234 bytes")


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    base = tmp_path_factory.mktemp("binfo")
    return {b: build_firmware(b, [SELFTEST], out_dir=base / b, stack_bytes=4096, program=PROGRAM)
            for b in ("pico", "pico2")}


@pytest.mark.parametrize("board", ["pico", "pico2"])
def test_header_and_entries_in_the_raw_image(images, board):
    a = images[board]
    image, origin = a.bin.read_bytes(), a.board.flash.origin
    at = HEADER_AT[board] - origin
    start, end, table = struct.unpack_from("<3I", image, at + 4)
    assert struct.unpack_from("<I", image, at)[0] == MARKER_START
    assert struct.unpack_from("<I", image, at + 16)[0] == MARKER_END
    assert (end - start) == 6 * 4 and struct.unpack_from("<I", image, table - origin)[0] == 0
    pointers = struct.unpack_from("<6I", image, start - origin)
    type_, tag, id_, ptr = struct.unpack_from("<HHII", image, pointers[0] - origin)
    assert (type_, tag, id_) == (6, TAG_RP, ID_NAME)
    assert image[ptr - origin:].split(b"\0", 1)[0] == PROGRAM.name.encode()
    assert struct.unpack_from("<HHI", image, pointers[-1] - origin) == (8, TAG_RP, UART_GP0_GP1)


@pytest.mark.parametrize("board", ["pico", "pico2"])
def test_parser_reads_every_entry_from_uf2_elf_and_bin(images, board):
    a = images[board]
    image = a.bin.read_bytes()
    infos = [bi.read_uf2(a.uf2.read_bytes()), bi.read_elf(a.elf, CHIP[board]), bi.read_elf(a.elf),
             bi.read_bin(image, a.board.flash.origin, CHIP[board]), bi.read_bin(image, a.board.flash.origin)]
    for info in infos:
        assert info.chip == CHIP[board] and info.header_addr == HEADER_AT[board]
        assert [(e.type, e.tag, e.id) for e in info.entries] == [
            (6, TAG_RP, ID_NAME), (6, TAG_RP, ID_VERSION), (6, TAG_RP, ID_DATE),
            (6, TAG_RP, ID_DESCRIPTION), (5, TAG_RP, ID_BINARY_END), (8, TAG_RP, None)]
        assert info.summary() == {
            "program name": 'mote "odd\\name??=', "version": "9.8.7", "build date": "2001-02-03",
            "description": "caf\u00e9 \u2014 fp32, arena 1234 bytes",
            "binary end": f"0x{a.board.flash.origin + len(image):08x}",
            "pins": {"GP0": "UART0 TX", "GP1": "UART0 RX"}}
        assert info.get(ID_BINARY_END) == a.board.flash.origin + len(image)
        assert info.entries[-1].raw == UART_GP0_GP1
    assert all(info == infos[0] for info in infos)


def test_default_program_of_a_firmware_without_a_model(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    a = build_firmware("pico", [SELFTEST], out_dir=tmp_path, stack_bytes=4096, name="selftest")
    info = bi.read_uf2(a.uf2.read_bytes())
    assert info.get(ID_NAME) == "mote selftest" and info.get(ID_DATE) == "1970-01-02"
    assert info.get(ID_DESCRIPTION) == "Mote firmware for pico"
    assert info.get(ID_VERSION) == bi.mote_version() != "unknown"


def test_binary_info_costs_only_its_own_bytes(images):
    """The header is 20 B in .text after the vectors; everything else is the entries'
    object (ports/rp2/binary_info.c): 6 pointers, 4 x 12 + 12 + 8 B of entries, the
    4-byte mapping table, the strings."""
    for board, a in images.items():
        objects = a.size_report()["objects"]
        (obj,) = [k for k in objects if k.endswith("rp2/binary_info.c.o")]
        strings = sum(len(s.encode()) + 1 for s in (PROGRAM.name, PROGRAM.version, PROGRAM.build_date,
                                                    PROGRAM.description))
        fixed = 20 + 24 + 4 * 12 + 12 + 8 + 4
        assert fixed <= objects[obj]["rodata"] + objects[obj]["text"] <= fixed + strings + 4 * 3


def test_pins_encoding():
    assert bi.pins_with_func([0, 1], 2) == UART_GP0_GP1
    assert bi.decode_pins(UART_GP0_GP1) == (2, [0, 1])
    assert bi.pins_with_func([4], 2) == 2 | 2 << 3 | 4 << 7 | 4 << 12
    assert bi.decode_pins(bi.pins_with_func([1, 2, 3, 4, 5], 3)) == (3, [1, 2, 3, 4, 5])
    assert bi.decode_pins(1 | 5 << 3 | 8 << 7 | 11 << 12) == (5, [8, 9, 10, 11])  # a range
    with pytest.raises(BinaryInfoError, match="1 to 5 pins"):
        bi.pins_with_func([0, 32], 2)


def test_build_date_follows_source_date_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert bi.build_date() == "2023-11-14"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(BinaryInfoError, match="SOURCE_DATE_EPOCH='yesterday'"):
        bi.build_date()


def test_linker_script_asserts_the_window():
    from aot.deploy.boards import load_board
    from aot.deploy.firmware import linker_script
    assert "ASSERT(__mote_binary_info_header_end__ <= ORIGIN(FLASH) + 512," in linker_script(load_board("pico"))
    assert "ASSERT(__mote_binary_info_header_end__ <= ORIGIN(FLASH) + 1024," in linker_script(load_board("pico2"))
    assert "binary_info" not in linker_script(load_board("mps2-an505"))


def test_images_without_binary_info_are_one_clear_error(images, tmp_path):
    a = images["pico2"]
    image = bytearray(a.bin.read_bytes())
    at = HEADER_AT["pico2"] - 0x10000000
    image[at:at + 4] = b"\0\0\0\0"  # the start marker gone
    with pytest.raises(BinaryInfoError, match=r"no binary info header in the 1024 bytes at 0x10000000 \(RP2350\)"):
        bi.read_uf2(bin_to_uf2(bytes(image), 0x10000000, 0xE48BFF59))
    with pytest.raises(BinaryInfoError, match="does not cover the 256 bytes at 0x10000100"):
        bi.read_bin(images["pico"].bin.read_bytes()[:0x180], 0x10000000, "RP2040")
    with pytest.raises(BinaryInfoError, match="not an RP2040/RP2350 family"):
        bi.read_uf2(bin_to_uf2(a.bin.read_bytes(), 0x10000000, 0x12345678))
    (tmp_path / "x.elf").write_bytes(b"not an elf")
    with pytest.raises(BinaryInfoError, match="not a readable ELF file"):
        bi.read_elf(tmp_path / "x.elf", "RP2040")


# --------------------------------------------------------------------------- the chip, the pins


#: where the IMAGE_DEF block of a pico2 image is: after the 16 + 52 vectors
IMAGE_DEF_AT = 4 * (16 + 52)


def test_the_chip_is_read_from_the_image_and_a_wrong_one_refused(images, tmp_path):
    pico, pico2 = images["pico"], images["pico2"]
    with pytest.raises(BinaryInfoError) as e:
        bi.read_elf(pico2.elf, "RP2040")
    assert str(e.value) == (f"{pico2.elf} is an RP2350 image (an IMAGE_DEF block at +0x{IMAGE_DEF_AT:x}), not an "
                            "RP2040 image: read it as RP2350 (or leave the chip out: it is read from the image)")
    with pytest.raises(BinaryInfoError, match=r"is an RP2040 image \(a boot2 with its CRC-32\), not an RP2350 image"):
        bi.read_elf(pico.elf, "RP2350")
    # a UF2 whose family ID is not its image's chip
    with pytest.raises(BinaryInfoError, match=r"^the UF2's image is an RP2350 image \(an IMAGE_DEF block at "
                                              r"\+0x110\), not an RP2040 image as its family ID 0xe48bff56 says$"):
        bi.read_uf2(bin_to_uf2(pico2.bin.read_bytes(), 0x10000000, 0xE48BFF56))
    # a boot2 whose CRC is wrong: the RP2040 bootrom would not run it, and it has no IMAGE_DEF
    image = bytearray(pico.bin.read_bytes())
    image[0] ^= 1
    with pytest.raises(BinaryInfoError, match=r"^the image is not an RP2040 or RP2350 flash image: it has neither "
                                              r"an RP2040 boot2 \(the first 256 bytes, ending in their CRC-32\) "
                                              r"nor an RP2350 IMAGE_DEF block \(in the first 4096 bytes\)$"):
        bi.read_bin(bytes(image), 0x10000000)
    with pytest.raises(BinaryInfoError, match="chip 'RP2041'"):
        bi.read_elf(pico.elf, "RP2041")


def test_image_chip_of_each_image():
    from aot.deploy import rp2
    boot2 = bytes(252)
    rp2040 = boot2 + rp2.boot2_crc32(boot2).to_bytes(4, "little") + bytes(64)
    assert rp2.image_chip(rp2040) == ("RP2040", "a boot2 with its CRC-32")
    block = struct.pack("<5I", 0xFFFFDED3, 0x10210142, 0x000001FF, 0, 0xAB123579)
    assert rp2.image_chip(bytes(272) + block) == ("RP2350", "an IMAGE_DEF block at +0x110")
    assert rp2.image_def(bytes(272) + block) == (0x110, "RP2350", "Arm", 2)
    # the same block for a RISC-V image (CPU bits 10:8 = 1), a block whose LAST size is wrong,
    # a block beyond the first 4 KiB: none boots as an Arm RP2350 image
    riscv = struct.pack("<5I", 0xFFFFDED3, 0x11210142, 0x000001FF, 0, 0xAB123579)
    assert rp2.image_chip(riscv)[0] is None and "for RP2350 (RISC-V CPU)" in rp2.image_chip(riscv)[1]
    bad_last = struct.pack("<5I", 0xFFFFDED3, 0x10210142, 0x000002FF, 0, 0xAB123579)
    assert rp2.image_def(bad_last) is None
    assert rp2.image_def(bytes(4096) + block) is None


def test_pins_are_named_from_the_function_tables():
    from aot.deploy import rp2
    # RP2040 datasheet 2.19.2 / RP2350 datasheet 9.4, F2 column
    f2 = {0: "UART0 TX", 1: "UART0 RX", 2: "UART0 CTS", 3: "UART0 RTS", 4: "UART1 TX", 5: "UART1 RX",
          8: "UART1 TX", 9: "UART1 RX", 12: "UART0 TX", 13: "UART0 RX", 16: "UART0 TX", 20: "UART1 TX",
          24: "UART1 TX", 28: "UART0 TX", 29: "UART0 RX"}
    for chip in ("RP2040", "RP2350"):
        assert {p: rp2.uart_signal(chip, p, 2) for p in f2} == f2
    # RP2350 F11: UART TX/RX on the CTS/RTS pins; not a function of the RP2040
    assert [rp2.pin_label("RP2350", p, 11) for p in (2, 3, 6, 7)] == ["UART0 TX", "UART0 RX", "UART1 TX", "UART1 RX"]
    assert rp2.pin_label("RP2350", 0, 11) == "UART_AUX" and rp2.pin_label("RP2040", 2, 11) == "F11"
    assert rp2.pin_label("RP2040", 0, 1) == "SPI" and rp2.pin_label("RP2350", 12, 0) == "HSTX"
    assert rp2.pin_label("RP2040", 31, 2) == "UART"  # no GPIO31: the function's name only
    info = bi.BinaryInfo("RP2040", 0, (bi.Entry(0, 8, TAG_RP, None, bi.decode_pins(bi.pins_with_func([4, 5], 2))),
                                       bi.Entry(0, 8, TAG_RP, None, (3, [10, 11]))))
    assert info.pins == {"GP4": "UART1 TX", "GP5": "UART1 RX", "GP10": "I2C", "GP11": "I2C"}


def test_board_uart_pins_are_checked_against_the_table():
    from dataclasses import replace
    from aot.deploy.boards import load_board
    b = load_board("pico")
    assert bi.uart_pins(b) == [0, 1]
    swapped = replace(b, uart=replace(b.uart, pins={"tx_pin": 1, "rx_pin": 0}))
    with pytest.raises(BinaryInfoError, match=r"^board pico: uart tx_pin 1 is UART0 RX on the RP2040, not a UART TX$"):
        bi.uart_pins(swapped)
    cts = replace(b, uart=replace(b.uart, pins={"tx_pin": 4, "rx_pin": 2}))
    with pytest.raises(BinaryInfoError, match=r"uart rx_pin 2 is UART0 CTS on the RP2040, not a UART RX$"):
        bi.uart_pins(cts)
    assert "GP0 UART0 TX, GP1 UART0 RX: GPIO function 2" in bi.header_text(b, PROGRAM)


def test_text_is_laid_out_as_picotool_sections(images):
    a = images["pico"]
    info = bi.read_uf2(a.uf2.read_bytes())
    end = a.board.flash.origin + len(a.bin.read_bytes())
    assert info.text().splitlines() == [
        f"Binary info of an RP2040 image (header at 0x{HEADER_AT['pico']:08x})", "",
        "Program Information",
        ' name:         mote "odd\\name??=', " version:      9.8.7",
        " description:  caf\u00e9 \u2014 fp32, arena 1234 bytes", f" binary end:   0x{end:08x}", "",
        "Fixed Pin Information", " GP0:   UART0 TX", " GP1:   UART0 RX", "",
        "Build Information", " build date:   2001-02-03"]


def docs_snippet(path: Path, name: str) -> str:
    """The ```python block right after the `<!-- snippet: NAME -->` line of `path`."""
    import re
    blocks = re.findall(rf"^<!-- snippet: {name} -->\n```python\n(.*?)^```$", path.read_text(), re.S | re.M)
    assert len(blocks) == 1, f"{path.name}: expected one {name} snippet, found {len(blocks)}"
    return blocks[0]


def test_devices_md_snippet_prints_the_entries(images, tmp_path):
    """docs/devices.md's read-back snippet, as written, from a folder holding a pico2
    build at the path it names: it prints the picotool-like text and the ELF's summary."""
    import os
    import shutil
    import subprocess
    import sys
    a = images["pico2"]
    build = tmp_path / "build" / "digits-pico2"
    build.mkdir(parents=True)
    shutil.copy(a.uf2, build / "firmware.uf2")
    shutil.copy(a.elf, build / "firmware.elf")
    code = docs_snippet(ROOT / "docs" / "devices.md", "binary-info")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    info = bi.read_elf(a.elf)
    assert r.stdout == info.text() + "\n" + repr(info.summary()) + "\n"
    assert "'pins': {'GP0': 'UART0 TX', 'GP1': 'UART0 RX'}" in r.stdout
    assert f"'binary end': '0x{a.board.flash.origin + len(a.bin.read_bytes()):08x}'" in r.stdout
