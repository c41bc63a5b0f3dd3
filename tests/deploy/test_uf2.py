"""UF2 writer/parser: block layout, magics, family, addresses, round trip."""
import struct

import numpy as np
import pytest

from aot.deploy.uf2 import (RP2350_ARM_S_FAMILY_ID, UF2_MAGIC_END, UF2_MAGIC_START0, UF2_MAGIC_START1,
                     Uf2Error, bin_to_uf2, parse_uf2)


def _data(n):
    return np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()


def test_family_id_is_rp2350_arm_secure():
    assert RP2350_ARM_S_FAMILY_ID == 0xE48BFF59


@pytest.mark.parametrize("n", [1, 255, 256, 257, 1000, 4096])
def test_round_trip(n):
    data = _data(n)
    uf2 = bin_to_uf2(data, 0x10000000)
    nblocks = (n + 255) // 256
    assert len(uf2) == 512 * nblocks
    fam, base, image = parse_uf2(uf2)
    assert (fam, base) == (0xE48BFF59, 0x10000000)
    assert image[:n] == data
    assert image[n:] == b"\0" * (nblocks * 256 - n)


def test_block_layout():
    data = bytes(range(256)) * 3
    uf2 = bin_to_uf2(data, 0x10000000)
    for i in range(3):
        blk = uf2[512 * i:512 * (i + 1)]
        words = struct.unpack_from("<8I", blk)
        assert words == (UF2_MAGIC_START0, UF2_MAGIC_START1, 0x2000, 0x10000000 + 256 * i, 256, i, 3,
                         0xE48BFF59)
        assert blk[32:288] == bytes(range(256))
        assert blk[288:508] == b"\0" * 220
        assert struct.unpack_from("<I", blk, 508)[0] == UF2_MAGIC_END
    assert UF2_MAGIC_START0 == 0x0A324655 and UF2_MAGIC_START1 == 0x9E5D5157 and UF2_MAGIC_END == 0x0AB16F30


def test_malformed():
    good = bin_to_uf2(_data(600), 0x10000000)
    with pytest.raises(Uf2Error, match="multiple of 512"):
        parse_uf2(good[:-1])
    bad = bytearray(good)
    bad[0] ^= 1
    with pytest.raises(Uf2Error, match="magic"):
        parse_uf2(bytes(bad))
    bad = bytearray(good)
    struct.pack_into("<I", bad, 512 + 20, 7)  # block number of the second block
    with pytest.raises(Uf2Error, match="numbering"):
        parse_uf2(bytes(bad))
    with pytest.raises(Uf2Error, match="numBlocks"):
        parse_uf2(good[:512])
    with pytest.raises(Uf2Error, match="aligned"):
        bin_to_uf2(b"x", 0x10000001)


def test_span_is_checked_before_the_image_is_assembled():
    from aot.deploy.boards import Region
    from aot.deploy.uf2 import MAX_IMAGE_BYTES
    good = bytearray(bin_to_uf2(_data(600), 0x10000000))
    struct.pack_into("<I", good, 512 + 12, 0xFFFFFF00)  # 4 GiB between two blocks: no MemoryError
    with pytest.raises(Uf2Error, match=f"^its blocks span 4,026,531,840 bytes .* more than {MAX_IMAGE_BYTES:,}$"):
        parse_uf2(bytes(good))
    with pytest.raises(Uf2Error, match=r"^block 1: 256 bytes at 0xffffff00 are outside the board's flash "
                                       r"\(0x10000000, 4,194,304 bytes\)$"):
        parse_uf2(bytes(good), Region(0x10000000, 0x400000))
    fam, base, image = parse_uf2(bin_to_uf2(_data(600), 0x10000000), Region(0x10000000, 0x400000))
    assert (base, image[:600]) == (0x10000000, _data(600))
    with pytest.raises(Uf2Error, match="block 0: 256 bytes at 0x10000000 are outside"):
        parse_uf2(bin_to_uf2(_data(600), 0x10000000), Region(0x10000100, 0x400000))
