"""The "eh00" extended header of a .pte file: its layout, its writer and its
reader, and Mote's format-version stamp (the one home of these facts).

Layout at file byte 8 (all integers little-endian; source: ExecuTorch's
``extended_header.h`` for the first 32 bytes)::

    8   "eh00"   magic
    12  uint32   header length in bytes (ExecuTorch writes 32; readers accept
                 a longer header and skip what they do not know)
    16  uint64   program_size: bytes of the flatbuffer including this header
    24  uint64   segment_base_offset: file offset of the first data segment
    32  uint64   segment_data_size: bytes from segment_base_offset to the end
    40  "MOTE"   Mote's stamp (only when length >= 40)
    44  uint32   MOTE_PTE_FORMAT_VERSION the compiler wrote the file for

The version lives in the header, not in ``Program.version``, because
ExecuTorch's runtime refuses any Program.version it does not know, while it
skips header bytes past the fields it reads. Its value has one home:
``runtime/include/mote/config.h``; the runtime refuses files stamped with a
newer version (MOTE_ERR_FORMAT_VERSION) and treats unstamped files (written
by ExecuTorch) as version 0.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from aot.errors import PteFormatError
from aot.paths import RUNTIME_DIR

EH_OFFSET = 8
EH_MAGIC = b"eh00"
#: magic, length, program_size, segment_base_offset: the least a reader needs
EH_MIN_LENGTH = 24
#: + segment_data_size: what ExecuTorch writes
EH_ET_LENGTH = 32
STAMP_MAGIC = b"MOTE"
#: + "MOTE" + uint32 version: what Mote writes
EH_STAMPED_LENGTH = 40
#: bytes the header occupies in Mote's files: 40 rounded up to 16 so the
#: flatbuffer body after it keeps its 16-byte alignment
EH_PADDED_LENGTH = 48

CONFIG_H = RUNTIME_DIR / "include" / "mote" / "config.h"
_VERSION_RE = re.compile(r"^#define MOTE_PTE_FORMAT_VERSION (\d+)$", re.M)


@lru_cache(maxsize=None)
def format_version() -> int:
    """MOTE_PTE_FORMAT_VERSION from runtime/include/mote/config.h (>= 1)."""
    found = _VERSION_RE.findall(CONFIG_H.read_text())
    if len(found) != 1:
        raise PteFormatError(f"{CONFIG_H}: expected one '#define MOTE_PTE_FORMAT_VERSION <n>' line, "
                             f"found {len(found)}")
    return int(found[0])


@dataclass
class ExtendedHeader:
    """The "eh00" header at byte 8. Sizes/offsets in bytes; format_version is
    Mote's stamp (0 when the file is unstamped, e.g. written by ExecuTorch)."""
    length: int
    program_size: int
    segment_base_offset: int
    segment_data_size: int
    format_version: int = 0


def write_header(program_size: int, segment_base_offset: int, segment_data_size: int,
                 version: Optional[int] = None) -> bytes:
    """The EH_PADDED_LENGTH-byte stamped header (length field 40, then zero
    padding); ``version`` defaults to :func:`format_version`."""
    v = format_version() if version is None else version
    out = (EH_MAGIC + EH_STAMPED_LENGTH.to_bytes(4, "little") + program_size.to_bytes(8, "little")
           + segment_base_offset.to_bytes(8, "little") + segment_data_size.to_bytes(8, "little")
           + STAMP_MAGIC + v.to_bytes(4, "little"))
    return out + bytes(EH_PADDED_LENGTH - len(out))


def parse_header(data: bytes) -> Optional[ExtendedHeader]:
    """The extended header of ``data`` if bytes 8..12 are "eh00", else None.

    Raises PteFormatError if the header is present but truncated/too short."""
    if len(data) < EH_OFFSET + 4 or data[EH_OFFSET:EH_OFFSET + 4] != EH_MAGIC:
        return None
    if len(data) < EH_OFFSET + EH_MIN_LENGTH:
        raise PteFormatError("truncated extended header")
    length = int.from_bytes(data[12:16], "little")
    if length < EH_MIN_LENGTH:
        raise PteFormatError(f"extended header length {length} < {EH_MIN_LENGTH}")
    if len(data) < EH_OFFSET + length:
        raise PteFormatError(f"extended header length {length} runs past the end of the file")
    psize = int.from_bytes(data[16:24], "little")
    base = int.from_bytes(data[24:32], "little")
    dsize = int.from_bytes(data[32:40], "little") if length >= EH_ET_LENGTH else 0
    version = 0
    if length >= EH_STAMPED_LENGTH and data[40:44] == STAMP_MAGIC:
        version = int.from_bytes(data[44:48], "little")
        if version == 0:
            raise PteFormatError("extended header: \"MOTE\" stamp with format version 0")
    return ExtendedHeader(length, psize, base, dsize, version)
