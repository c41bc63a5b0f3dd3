"""UF2 images (Microsoft UF2 format, as the RP2350 bootrom's USB drive accepts it).

Each 512-byte block, little-endian words:
    0   magicStart0 0x0A324655 ("UF2\\n")
    4   magicStart1 0x9E5D5157
    8   flags       0x00002000 = familyID present
    12  targetAddr  flash address of the payload
    16  payloadSize 256
    20  blockNo     0..numBlocks-1
    24  numBlocks
    28  familyID    RP2350 Arm-Secure: 0xe48bff59 (RP2350 datasheet, 5.5.3)
    32  data[476]   payload, zero padded
    508 magicEnd    0x0AB16F30
"""
from __future__ import annotations

import struct

from aot.errors import MoteError, Uf2Error

UF2_MAGIC_START0 = 0x0A324655
UF2_MAGIC_START1 = 0x9E5D5157
UF2_MAGIC_END = 0x0AB16F30
UF2_FLAG_FAMILY_ID = 0x00002000
UF2_BLOCK_SIZE = 512
UF2_PAYLOAD = 256
UF2_DATA_FIELD = 476

RP2350_ARM_S_FAMILY_ID = 0xE48BFF59
RP2350_ARM_NS_FAMILY_ID = 0xE48BFF5B
RP2040_FAMILY_ID = 0xE48BFF56
#: RP2350 bootrom families that carry no image: "absolute" (written at the blocks' own
#: addresses, into unpartitioned space that accepts it: all of flash without a partition
#: table) and "data" (into a partition that accepts data). The RP2040 bootrom takes neither.
RP2XXX_ABSOLUTE_FAMILY_ID = 0xE48BFF57
RP2XXX_DATA_FAMILY_ID = 0xE48BFF58

#: chip of each family ID, named as in BOOTSEL_BOARD_IDS
FAMILY_CHIPS = {RP2350_ARM_S_FAMILY_ID: "RP2350", RP2350_ARM_NS_FAMILY_ID: "RP2350",
                RP2040_FAMILY_ID: "RP2040"}
#: the "Board-ID:" line of INFO_UF2.TXT on the bootrom's USB drive (BOOTSEL mode) -> chip.
#: The RP2350 bootrom writes "RP2350"; the RP2040's writes "RPI-RP2" (its drive's label).
BOOTSEL_BOARD_IDS = {"RP2350": "RP2350", "RPI-RP2": "RP2040", "RP2040": "RP2040"}
#: the largest image parse_uf2 assembles when it is given no flash region, bytes
#: (RP2350's two 16 MiB QSPI windows)
MAX_IMAGE_BYTES = 32 << 20


def bin_to_uf2(data: bytes, base_addr: int, family_id: int = RP2350_ARM_S_FAMILY_ID) -> bytes:
    """Split `data` (loaded at `base_addr`) into 256-byte payload blocks."""
    if base_addr % UF2_PAYLOAD:
        raise Uf2Error(f"base address 0x{base_addr:08x} is not 256-byte aligned")
    n = max(1, (len(data) + UF2_PAYLOAD - 1) // UF2_PAYLOAD)
    out = bytearray()
    for i in range(n):
        chunk = data[i * UF2_PAYLOAD:(i + 1) * UF2_PAYLOAD].ljust(UF2_PAYLOAD, b"\0")
        out += struct.pack("<8I", UF2_MAGIC_START0, UF2_MAGIC_START1, UF2_FLAG_FAMILY_ID,
                           base_addr + i * UF2_PAYLOAD, UF2_PAYLOAD, i, n, family_id)
        out += chunk.ljust(UF2_DATA_FIELD, b"\0")
        out += struct.pack("<I", UF2_MAGIC_END)
    return bytes(out)


def parse_uf2(uf2: bytes, flash=None) -> tuple[int, int, bytes]:
    """(family id, base address, contiguous image bytes) of a UF2 written by bin_to_uf2.

    Checks every block's magics, flags, numbering and family; gaps are filled with 0xff.
    flash: the board's flash region (aot.deploy.boards.Region: origin, size in
    bytes); every block's payload must lie in it. Without it the image may span
    at most MAX_IMAGE_BYTES. Both are checked before the image is allocated.
    """
    if len(uf2) == 0 or len(uf2) % UF2_BLOCK_SIZE:
        raise Uf2Error(f"UF2 length {len(uf2)} is not a positive multiple of 512")
    blocks = []
    family = None
    total = None
    for off in range(0, len(uf2), UF2_BLOCK_SIZE):
        blk = uf2[off:off + UF2_BLOCK_SIZE]
        m0, m1, flags, addr, size, no, num, fam = struct.unpack_from("<8I", blk, 0)
        (mend,) = struct.unpack_from("<I", blk, 508)
        if (m0, m1, mend) != (UF2_MAGIC_START0, UF2_MAGIC_START1, UF2_MAGIC_END):
            raise Uf2Error(f"block {off // UF2_BLOCK_SIZE}: bad magic")
        if not flags & UF2_FLAG_FAMILY_ID:
            raise Uf2Error(f"block {off // UF2_BLOCK_SIZE}: no family id flag")
        if size > UF2_DATA_FIELD or size == 0:
            raise Uf2Error(f"block {off // UF2_BLOCK_SIZE}: payload size {size}")
        if family is None:
            family, total = fam, num
        if fam != family or num != total or no != off // UF2_BLOCK_SIZE:
            raise Uf2Error(f"block {off // UF2_BLOCK_SIZE}: inconsistent family/numbering")
        if flash is not None and not flash.contains(addr, size):
            raise Uf2Error(f"block {off // UF2_BLOCK_SIZE}: {size} bytes at 0x{addr:08x} are outside "
                           f"the board's flash (0x{flash.origin:08x}, {flash.size:,} bytes)")
        blocks.append((addr, blk[32:32 + size]))
    if total != len(blocks):
        raise Uf2Error(f"numBlocks {total} but {len(blocks)} blocks present")
    base = min(a for a, _ in blocks)
    end = max(a + len(d) for a, d in blocks)
    if flash is None and end - base > MAX_IMAGE_BYTES:
        raise Uf2Error(f"its blocks span {end - base:,} bytes (0x{base:08x} to 0x{end:08x}), "
                       f"more than {MAX_IMAGE_BYTES:,}")
    image = bytearray(b"\xff" * (end - base))
    for addr, payload in blocks:
        image[addr - base:addr - base + len(payload)] = payload
    return family, base, bytes(image)


def family_name(fid: int) -> str:
    """A UF2 family ID for a message: "0xe48bff56 (RP2040)", the RP2350's image-less
    families by name, "(unknown chip)" otherwise."""
    other = {RP2XXX_ABSOLUTE_FAMILY_ID: "RP2350 absolute", RP2XXX_DATA_FAMILY_ID: "RP2350 data"}
    return f"0x{fid:08x} ({FAMILY_CHIPS.get(fid) or other.get(fid, 'unknown chip')})"
