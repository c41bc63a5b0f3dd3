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
    infos = [bi.read_uf2(a.uf2.read_bytes()), bi.read_elf(a.elf, CHIP[board]),
             bi.read_bin(image, a.board.flash.origin, CHIP[board])]
    for info in infos:
        assert info.chip == CHIP[board] and info.header_addr == HEADER_AT[board]
        assert [(e.type, e.tag, e.id) for e in info.entries] == [
            (6, TAG_RP, ID_NAME), (6, TAG_RP, ID_VERSION), (6, TAG_RP, ID_DATE),
            (6, TAG_RP, ID_DESCRIPTION), (5, TAG_RP, ID_BINARY_END), (8, TAG_RP, None)]
        assert info.summary() == {
            "program name": 'mote "odd\\name??=', "version": "9.8.7", "build date": "2001-02-03",
            "description": "caf\u00e9 \u2014 fp32, arena 1234 bytes",
            "binary end": a.board.flash.origin + len(image), "pins": {0: 2, 1: 2}}
        assert info.entries[-1].raw == UART_GP0_GP1
    assert infos[0] == infos[1] == infos[2]


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
        bi.read_bin(a.bin.read_bytes()[:0x180], 0x10000000, "RP2040")
    with pytest.raises(BinaryInfoError, match="not an RP2040/RP2350 family"):
        bi.read_uf2(bin_to_uf2(a.bin.read_bytes(), 0x10000000, 0x12345678))
    (tmp_path / "x.elf").write_bytes(b"not an elf")
    with pytest.raises(BinaryInfoError, match="not a readable ELF file"):
        bi.read_elf(tmp_path / "x.elf", "RP2040")
