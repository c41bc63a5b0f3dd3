"""Seeded byte mutation shared by the deterministic fuzz tests (test_fuzz.py: programs through
the sanitized C loader; test_fuzz_bundled.py: .bpte files through the Python readers)."""
import random
import struct

#: u32 values that are offsets, lengths and indices at their edges
INTERESTING = [0, 1, 2, 3, 4, 7, 8, 16, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 0xFFFFFFF0, 0x10000000]


def mutate(rng: random.Random, base: bytes) -> bytes:
    """`base` with 1 to 5 edits drawn from `rng`: bit flips, interesting or nudged aligned u32s,
    random bytes, a truncation, a chunk copied elsewhere."""
    d = bytearray(base)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 5))):
        kind = rng.randrange(6)
        if kind == 0:  # bit flip
            p = rng.randrange(len(d))
            d[p] ^= 1 << rng.randrange(8)
        elif kind == 1:  # interesting u32 at an aligned position (offsets, lengths, indices)
            p = rng.randrange(0, len(d) - 4) & ~3
            struct.pack_into("<I", d, p, rng.choice(INTERESTING + [len(d), len(d) - p, rng.getrandbits(32)]))
        elif kind == 2:  # random byte (union tags, dtypes, bools, dim orders)
            d[rng.randrange(len(d))] = rng.randrange(256)
        elif kind == 3:  # small signed delta on an aligned u32
            p = rng.randrange(0, len(d) - 4) & ~3
            v = (struct.unpack_from("<I", d, p)[0] + rng.randint(-64, 64)) & 0xFFFFFFFF
            struct.pack_into("<I", d, p, v)
        elif kind == 4:  # truncate
            del d[rng.randrange(1, len(d)):]
            if len(d) < 8:
                break
        else:  # copy a chunk over another place
            a, b = rng.randrange(len(d)), rng.randrange(len(d))
            n = rng.randint(1, 64)
            chunk = d[a:a + n]
            d[b:b + len(chunk)] = chunk
    return bytes(d)
