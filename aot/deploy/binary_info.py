"""Raspberry Pi binary info: the program facts `picotool info -a` reads from an
RP2040 / RP2350 image, written into Mote's pico and pico2 images and read back.

The one home of the layout's constants: the C side (ports/rp2/binary_info.c)
gets them from the header this module generates (``header_text``), with the
image's strings. The layout, as the Raspberry Pi Pico-series C/C++ SDK
documents it (pico_binary_info: ``binary_info/defs.h``, ``structure.h``) and
picotool reads it; the RP2040 datasheet (2.8.1: boot2 is the first 256 bytes of
flash) and the RP2350 datasheet (5.9: the image starts at the flash origin)
place the window:

Header: five little-endian words found, word aligned, in a window at the
start of the image: RP2040 the 256 bytes after boot2 (0x10000100-0x100001ff),
RP2350 the first 1024 bytes (0x10000000-0x100003ff)::

    +0x00  MARKER_START 0x7188ebf2
    +0x04  address of the first entry pointer      } an array of 32-bit pointers,
    +0x08  address after the last entry pointer    } one per entry
    +0x0c  address of the address mapping table
    +0x10  MARKER_END   0xe71aa390

Address mapping table: rows of three words (source address in the image,
runtime start, runtime end) for data the image copies to RAM at boot; a row
whose source is 0 ends it. A pointer into [start, end) is read at
source + (pointer - start). Mote's entries and strings are all in flash: its
table is the terminating 0 alone.

Entry: a 4-byte core (uint16 type, uint16 tag) and the type's fields:

    ID_AND_INT (5)      core, uint32 id, int32 value
    ID_AND_STRING (6)   core, uint32 id, uint32 address of a NUL-terminated string
    PINS_WITH_FUNC (8)  core, uint32 pin encoding: bits 2:0 = 2 (a list of pins),
                        bits 6:3 = the GPIO function, then 5 bits per pin from bit 7,
                        up to 5 pins; a list of fewer repeats its last pin
                        (bits 2:0 = 1: a range, low pin at bit 7, high pin at bit 12)

Tag 'R' | 'P' << 8 (RASPBERRY_PI) marks the well-known IDs below. The GPIO
functions and which UART signal a pin carries are aot.deploy.rp2's (the datasheets'
function tables): GP0/GP1 with F2 are UART0 TX/RX on both chips.

Reading an image back, its chip is the one its bootrom would boot it as
(aot.deploy.rp2.image_chip: the RP2040 boot2's CRC-32, the RP2350 IMAGE_DEF block);
a chip named by the caller or by a UF2's family ID must be that one.
"""
from __future__ import annotations

import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from aot.errors import BinaryInfoError
from aot.deploy import rp2
from aot.deploy.uf2 import FAMILY_CHIPS, parse_uf2

MARKER_START = 0x7188EBF2
MARKER_END = 0xE71AA390
HEADER_WORDS = 5

TYPE_ID_AND_INT = 5
TYPE_ID_AND_STRING = 6
TYPE_PINS_WITH_FUNC = 8
#: 'R' | 'P' << 8
TAG_RASPBERRY_PI = ord("R") | ord("P") << 8

#: the well-known IDs (tag RASPBERRY_PI) Mote writes, picotool's labels beside them
ID_PROGRAM_NAME = 0x02031C86
ID_PROGRAM_VERSION_STRING = 0x11A9BC3A
ID_PROGRAM_BUILD_DATE_STRING = 0x9DA22254
ID_BINARY_END = 0x68F465DE
ID_PROGRAM_URL = 0x1856239A
ID_PROGRAM_DESCRIPTION = 0xB6A07C19

PINS_ENCODING_RANGE = 1
PINS_ENCODING_MULTI = 2
PINS_BITS = 5  # bits per pin
PINS_FIRST_BIT = 7
PINS_MAX = 5
FUNC_BITS = 4
#: GPIO function select of the UART on RP2040 and RP2350 (aot.deploy.rp2)
GPIO_FUNC_UART = rp2.GPIO_FUNC_UART

#: chip -> (bytes of the image before the window, window bytes): where picotool
#: looks for the header. RP2040: after the 256-byte boot2; RP2350: from the start.
HEADER_WINDOW = {"RP2040": (rp2.BOOT2_BYTES, 256), "RP2350": (0, 1024)}

#: the header's section (ports/rp2/binary_info.c), placed by aot.deploy.firmware.linker_script
HEADER_SECTION = ".mote_binary_info_header"
HEADER_NAME = "mote_binary_info.h"
#: picotool reads at most this many bytes of a string; Mote's are shorter
MAX_STRING = 512


def board_chip(board) -> Optional[str]:
    """"RP2040" / "RP2350" for a board whose UF2 family is a Raspberry Pi chip's, else None."""
    return FAMILY_CHIPS.get(board.uf2_family_id) if board.uf2_family_id is not None else None


# --------------------------------------------------------------------------- what Mote writes


@dataclass(frozen=True)
class ProgramInfo:
    """The strings of one image's entries (ASCII/UTF-8 text, at most MAX_STRING - 1 bytes each)."""
    name: str
    version: str
    build_date: str
    description: str


def mote_version() -> str:
    """The Mote (aot package, distribution mote-aot) version."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("mote-aot")
    except PackageNotFoundError:
        return "unknown"


def build_date() -> str:
    """Today's UTC date, YYYY-MM-DD, or SOURCE_DATE_EPOCH's when it is set (reproducible builds).
    `aot build`: the day of the build; `aot generate`: the day the sources were generated
    (the generated mote_binary_info.h holds it, so the user's build of that folder is
    reproducible)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        return time.strftime("%Y-%m-%d", time.gmtime())
    try:
        return time.strftime("%Y-%m-%d", time.gmtime(int(epoch)))
    except (ValueError, OverflowError, OSError):
        raise BinaryInfoError(f"SOURCE_DATE_EPOCH={epoch!r} is not a count of seconds since 1970") from None


def model_program(model: str, int8: bool, arena_bytes: int) -> ProgramInfo:
    """The entries of an `aot build` image: program name `mote <model>`, the Mote
    version, today's date, and the model, its dtype and its planned arena bytes."""
    dtype = "int8" if int8 else "fp32"
    return ProgramInfo(name=f"mote {model}", version=mote_version(), build_date=build_date(),
                       description=f"Mote model {model}, {dtype}, arena {arena_bytes} bytes")


def compiled_program(compiled) -> ProgramInfo:
    """model_program of a compiled model (aot.compiler.pipeline.Compiled): its name,
    dtype and planned arena bytes (the sum of its arenas). The one source of the
    entries of `aot build` images and of the projects `aot generate` writes."""
    return model_program(compiled.name, bool(compiled.int8), int(sum(compiled.spec.arena_sizes)))


def firmware_program(name: str, board_name: str) -> ProgramInfo:
    """The entries of a firmware built without a model (aot.deploy.firmware.build_firmware's default)."""
    return ProgramInfo(name=f"mote {name}", version=mote_version(), build_date=build_date(),
                       description=f"Mote firmware for {board_name}")


def pins_with_func(pins, func: int) -> int:
    """PINS_WITH_FUNC's 32-bit encoding of a list of 1 to 5 pins (0-31) with one GPIO function."""
    pins = list(pins)
    if not 1 <= len(pins) <= PINS_MAX or not all(0 <= p < 1 << PINS_BITS for p in pins):
        raise BinaryInfoError(f"pins {pins}: 1 to {PINS_MAX} pins, each 0-{(1 << PINS_BITS) - 1}")
    if not 0 <= func < 1 << FUNC_BITS:
        raise BinaryInfoError(f"GPIO function {func} does not fit {FUNC_BITS} bits")
    if len(pins) < PINS_MAX:
        pins.append(pins[-1])  # the list ends where a pin repeats
    word = PINS_ENCODING_MULTI | func << 3
    for i, p in enumerate(pins):
        word |= p << (PINS_FIRST_BIT + PINS_BITS * i)
    return word & 0xFFFFFFFF


def uart_pins(board) -> list:
    """The board's UART pins (TX, RX) from its board file, each checked against the
    chip's function table (aot.deploy.rp2: a TX pin must carry a UART TX with F2)."""
    pins = [board.uart.pins.get(k) for k in ("tx_pin", "rx_pin")]
    if None in pins:
        raise BinaryInfoError(f"board {board.name}: its uart has no tx_pin/rx_pin for the binary info")
    chip = board_chip(board)
    for pin, role in zip(pins, ("TX", "RX")):
        signal = rp2.uart_signal(chip, pin, GPIO_FUNC_UART) if chip else None
        if signal is None or not signal.endswith(" " + role):
            raise BinaryInfoError(f"board {board.name}: uart {role.lower()}_pin {pin} is "
                                  f"{signal or 'no UART pin'} on the {chip}, not a UART {role}")
    return pins


def c_string(text: str) -> str:
    """A C99 string literal of `text`'s UTF-8 bytes (printable ASCII as is, the rest octal)."""
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        out.append("\\" + c if c in '"\\' else c if 0x20 <= b < 0x7F and c != "?" else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def header_text(board, program: ProgramInfo) -> str:
    """mote_binary_info.h: the layout's constants and this image's strings and
    UART pin encoding, for ports/rp2/binary_info.c."""
    chip = board_chip(board)
    if chip is None:
        raise BinaryInfoError(f"board {board.name} is not a Raspberry Pi RP2040/RP2350 board")
    for label, s in (("program name", program.name), ("version", program.version),
                     ("build date", program.build_date), ("description", program.description)):
        if len(s.encode("utf-8")) >= MAX_STRING or "\0" in s:
            raise BinaryInfoError(f"binary info {label} is longer than {MAX_STRING - 1} bytes or holds a NUL")
    tx, rx = uart_pins(board)
    macros = [
        ("HEADER_SECTION", f'"{HEADER_SECTION}"', "placed by the generated linker script"),
        ("MARKER_START", f"0x{MARKER_START:08x}u", None),
        ("MARKER_END", f"0x{MARKER_END:08x}u", None),
        ("TYPE_ID_AND_INT", f"{TYPE_ID_AND_INT}u", None),
        ("TYPE_ID_AND_STRING", f"{TYPE_ID_AND_STRING}u", None),
        ("TYPE_PINS_WITH_FUNC", f"{TYPE_PINS_WITH_FUNC}u", None),
        ("TAG_RASPBERRY_PI", f"0x{TAG_RASPBERRY_PI:04x}u", "'R' | 'P' << 8"),
        ("ID_PROGRAM_NAME", f"0x{ID_PROGRAM_NAME:08x}u", None),
        ("ID_PROGRAM_VERSION_STRING", f"0x{ID_PROGRAM_VERSION_STRING:08x}u", None),
        ("ID_PROGRAM_BUILD_DATE_STRING", f"0x{ID_PROGRAM_BUILD_DATE_STRING:08x}u", None),
        ("ID_PROGRAM_DESCRIPTION", f"0x{ID_PROGRAM_DESCRIPTION:08x}u", None),
        ("ID_BINARY_END", f"0x{ID_BINARY_END:08x}u", None),
        ("PROGRAM_NAME", c_string(program.name), None),
        ("PROGRAM_VERSION", c_string(program.version), None),
        ("PROGRAM_BUILD_DATE", c_string(program.build_date), None),
        ("PROGRAM_DESCRIPTION", c_string(program.description), None),
        ("UART_PINS", f"0x{pins_with_func([tx, rx], GPIO_FUNC_UART):08x}u",
         f"{rp2.pin_name(tx)} {rp2.pin_label(chip, tx, GPIO_FUNC_UART)}, "
         f"{rp2.pin_name(rx)} {rp2.pin_label(chip, rx, GPIO_FUNC_UART)}: GPIO function {GPIO_FUNC_UART}"),
    ]
    lines = [f"/* Generated by aot/deploy/binary_info.py for board {board.name} ({chip}); do not edit. */",
             "#ifndef MOTE_BINARY_INFO_H", "#define MOTE_BINARY_INFO_H"]
    for name, value, note in macros:
        lines.append(f"#define MOTE_BI_{name} {value}" + (f" /* {note} */" if note else ""))
    lines += ["#endif /* MOTE_BINARY_INFO_H */", ""]
    return "\n".join(lines)


def linker_lines(board) -> tuple:
    """(placement, checks) for aot.deploy.firmware.linker_script: the header's section
    after the vector table (and the RP2350 IMAGE_DEF), asserted inside picotool's
    window. ('', '') for boards of other chips. The linker script also defines
    __mote_flash_binary_end__ (the image's end in flash: the BINARY_END entry)."""
    chip = board_chip(board)
    if chip is None:
        return "", ""
    skip, window = HEADER_WINDOW[chip]
    placement = (
        f"        /* Raspberry Pi binary info header (picotool): within {window} bytes of\n"
        f"           ORIGIN(FLASH) + {skip} (aot/deploy/binary_info.py). */\n"
        f"        KEEP(*({HEADER_SECTION}))\n"
        "        __mote_binary_info_header_end__ = .;\n"
    )
    checks = (
        f"ASSERT(__mote_binary_info_header_end__ <= ORIGIN(FLASH) + {skip + window},\n"
        f"       \"binary info header must end within {window} bytes of ORIGIN(FLASH) + {skip}\")\n"
    )
    return placement, checks


# --------------------------------------------------------------------------- reading it back


@dataclass(frozen=True)
class Entry:
    """One entry: its address, type, tag, and (for the types Mote writes) id and value:
    ID_AND_INT an int, ID_AND_STRING a str, PINS_WITH_FUNC (function, [pins]) with
    id None; other types have id and value None."""
    addr: int
    type: int
    tag: int
    id: Optional[int]
    value: object
    raw: int = 0  # PINS_WITH_FUNC: the encoding word


@dataclass(frozen=True)
class BinaryInfo:
    chip: str
    header_addr: int
    entries: tuple

    def get(self, id_: int, tag: int = TAG_RASPBERRY_PI):
        """The value of the entry with this id and tag; BinaryInfoError if there is none or several."""
        found = [e.value for e in self.entries if e.id == id_ and e.tag == tag]
        if len(found) != 1:
            raise BinaryInfoError(f"{len(found)} binary info entries with id 0x{id_:08x}")
        return found[0]

    @property
    def pins(self) -> dict:
        """{"GP0": "UART0 TX", ...}: the pins of the PINS_WITH_FUNC entries, by GPIO
        number, each with its function as picotool names it (aot.deploy.rp2.pin_label:
        the UART signal the chip's function table gives the pin, else the function's name)."""
        found = {}
        for e in self.entries:
            if e.type == TYPE_PINS_WITH_FUNC:
                func, pins = e.value
                found.update((p, rp2.pin_label(self.chip, p, func)) for p in pins)
        return {rp2.pin_name(p): found[p] for p in sorted(found)}

    def summary(self) -> dict:
        """The entries Mote writes, by picotool's labels: the strings as they are, the
        binary end in hex ("0x10004a2c"), the pins as `pins` names them."""
        return {"program name": self.get(ID_PROGRAM_NAME), "version": self.get(ID_PROGRAM_VERSION_STRING),
                "build date": self.get(ID_PROGRAM_BUILD_DATE_STRING),
                "description": self.get(ID_PROGRAM_DESCRIPTION),
                "binary end": f"0x{self.get(ID_BINARY_END) & 0xFFFFFFFF:08x}", "pins": self.pins}

    def text(self) -> str:
        """summary() laid out in the sections of `picotool info -a`: Program Information
        (name, version, description, binary end), Fixed Pin Information, Build Information."""
        s = self.summary()
        rows = [f"Binary info of an {self.chip} image (header at 0x{self.header_addr:08x})", "",
                "Program Information"]
        rows += [f" {k + ':':<13} {s[k2]}" for k, k2 in (("name", "program name"), ("version", "version"),
                                                         ("description", "description"),
                                                         ("binary end", "binary end"))]
        rows += ["", "Fixed Pin Information"] + [f" {pin + ':':<6} {label}" for pin, label in s["pins"].items()]
        rows += ["", "Build Information", f" {'build date:':<13} {s['build date']}"]
        return "\n".join(rows)


class _Memory:
    """Bytes at addresses: (address, bytes) pieces of a flash image."""

    def __init__(self, pieces):
        self.pieces = [(a, bytes(d)) for a, d in pieces if len(d)]

    def read(self, addr: int, n: int) -> bytes:
        for a, d in self.pieces:
            if a <= addr and addr + n <= a + len(d):
                return d[addr - a:addr - a + n]
        raise BinaryInfoError(f"{n} bytes at 0x{addr:08x} are not in the image")

    def span(self, addr: int, n: int) -> bytes:
        """Up to `n` bytes from `addr`: what the pieces hold there, 0xff (erased flash) in
        the gaps between them, ending where the last piece ends."""
        end = min(addr + n, max((a + len(d) for a, d in self.pieces), default=addr))
        out = bytearray(b"\xff" * max(0, end - addr))
        for a, d in self.pieces:
            lo, hi = max(a, addr), min(a + len(d), end)
            if lo < hi:
                out[lo - addr:hi - addr] = d[lo - a:hi - a]
        return bytes(out)

    def words(self, addr: int, n: int) -> tuple:
        return struct.unpack("<%dI" % n, self.read(addr, 4 * n))

    def string(self, addr: int) -> str:
        for a, d in self.pieces:
            if a <= addr < a + len(d):
                end = d.find(b"\0", addr - a, addr - a + MAX_STRING)
                if end < 0:
                    break
                return d[addr - a:end].decode("utf-8", errors="replace")
        raise BinaryInfoError(f"no NUL-terminated string of at most {MAX_STRING} bytes at 0x{addr:08x}")


def decode_pins(word: int) -> tuple:
    """(GPIO function, [pins]) of a PINS_WITH_FUNC encoding."""
    kind, func = word & 7, (word >> 3) & ((1 << FUNC_BITS) - 1)
    mask = (1 << PINS_BITS) - 1
    field = lambda i: (word >> (PINS_FIRST_BIT + PINS_BITS * i)) & mask  # noqa: E731
    if kind == PINS_ENCODING_RANGE:
        return func, list(range(field(0), field(1) + 1))
    if kind != PINS_ENCODING_MULTI:
        raise BinaryInfoError(f"pin encoding 0x{word:08x}: kind {kind} is neither a list nor a range")
    pins = []
    for i in range(PINS_MAX):
        if pins and field(i) == pins[-1]:
            break
        pins.append(field(i))
    return func, pins


def _mapped(mapping, addr: int) -> int:
    for src, start, end in mapping:
        if start <= addr < end:
            return src + addr - start
    return addr


def check_chip(image: bytes, chip: Optional[str], what: str, named_by: str = "") -> str:
    """The chip of a flash image (`image`: its first bytes, from the flash origin) as its
    bootrom would boot it (aot.deploy.rp2.image_chip); `chip` (when given, e.g. by a UF2's
    family ID: `named_by`) must be that one. `what` names the image in the one-line
    BinaryInfoError of a mismatch or of an image neither chip boots."""
    if chip is not None and chip not in HEADER_WINDOW:
        raise BinaryInfoError(f"chip {chip!r}: binary info is read for {', '.join(HEADER_WINDOW)}")
    found, evidence = rp2.image_chip(image)
    if found is None:
        raise BinaryInfoError(f"{what} is not an RP2040 or RP2350 flash image: it has {evidence}")
    if chip is not None and found != chip:
        raise BinaryInfoError(f"{what} is an {found} image ({evidence}), not an {chip} image"
                              + (f" as {named_by} says" if named_by else f": read it as {found} "
                                 "(or leave the chip out: it is read from the image)"))
    return found


def read_memory(mem: "_Memory", base: int, chip: Optional[str] = None, what: str = "the image",
                named_by: str = "") -> BinaryInfo:
    """The binary info of an image in `mem` whose first byte is at `base`; its chip
    from the image (check_chip; `chip`, when given, must agree)."""
    chip = check_chip(mem.span(base, rp2.BLOCK_SEARCH_BYTES), chip, what, named_by)
    skip, window = HEADER_WINDOW[chip]
    try:
        area = mem.read(base + skip, window)
    except BinaryInfoError:
        raise BinaryInfoError(f"the image does not cover the {window} bytes at 0x{base + skip:08x} "
                              "where the binary info header lies") from None
    words = struct.unpack("<%dI" % (window // 4), area)
    for i in range(len(words) - HEADER_WORDS + 1):
        if words[i] != MARKER_START or words[i + HEADER_WORDS - 1] != MARKER_END:
            continue
        start, end, table = words[i + 1:i + 4]
        if end < start or (end - start) % 4 or start % 4:
            raise BinaryInfoError(f"binary info header at 0x{base + skip + 4 * i:08x}: entry table "
                                  f"0x{start:08x}-0x{end:08x} is not a word array")
        mapping = []
        for _ in range(16):
            (source,) = mem.words(table, 1)
            if source == 0:  # the table's end: a row whose source is 0
                break
            mapping.append(mem.words(table, 3))
            table += 12
        else:
            raise BinaryInfoError("binary info address mapping table has no end in 16 rows")
        pointers = mem.words(_mapped(mapping, start), (end - start) // 4)
        return BinaryInfo(chip=chip, header_addr=base + skip + 4 * i,
                          entries=tuple(_entry(mem, mapping, p) for p in pointers))
    raise BinaryInfoError(f"no binary info header in the {window} bytes at 0x{base + skip:08x} ({chip})")


def _entry(mem: "_Memory", mapping, addr: int) -> Entry:
    at = _mapped(mapping, addr)
    type_, tag = struct.unpack("<2H", mem.read(at, 4))
    if type_ == TYPE_ID_AND_INT:
        id_, value = struct.unpack("<Ii", mem.read(at + 4, 8))
        return Entry(addr, type_, tag, id_, value)
    if type_ == TYPE_ID_AND_STRING:
        id_, ptr = mem.words(at + 4, 2)
        return Entry(addr, type_, tag, id_, mem.string(_mapped(mapping, ptr)))
    if type_ == TYPE_PINS_WITH_FUNC:
        (word,) = mem.words(at + 4, 1)
        return Entry(addr, type_, tag, None, decode_pins(word), raw=word)
    return Entry(addr, type_, tag, None, None)


def read_uf2(uf2: bytes) -> BinaryInfo:
    """The binary info of a UF2 image (its chip from the blocks' family ID, which
    must be the image's: check_chip)."""
    family, base, image = parse_uf2(uf2)
    chip = FAMILY_CHIPS.get(family)
    if chip is None:
        raise BinaryInfoError(f"UF2 family 0x{family:08x} is not an RP2040/RP2350 family")
    return read_memory(_Memory([(base, image)]), base, chip, "the UF2's image",
                       f"its family ID 0x{family:08x}")


def read_bin(data: bytes, base: int, chip: Optional[str] = None) -> BinaryInfo:
    """The binary info of a flash image `data` loaded at `base` (chip: as read_elf's)."""
    return read_memory(_Memory([(base, data)]), base, chip, "the image")


def read_elf(path: Union[str, Path], chip: Optional[str] = None) -> BinaryInfo:
    """The binary info of an ELF image: its loadable segments at their load
    (physical) addresses, the image starting at the lowest. Its chip is read from
    the image (check_chip); `chip` ("RP2040" / "RP2350"), when given, must be it:
    an RP2350 ELF read as "RP2040" is one BinaryInfoError line."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            pieces = [(seg["p_paddr"], seg.data()[:seg["p_filesz"]]) for seg in elf.iter_segments()
                      if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]]
    except (OSError, ELFError) as e:
        raise BinaryInfoError(f"{path}: not a readable ELF file ({e})") from None
    if not pieces:
        raise BinaryInfoError(f"{path}: no loadable segment")
    return read_memory(_Memory(pieces), min(a for a, _ in pieces), chip, str(path))
