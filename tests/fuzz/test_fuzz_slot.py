"""A program arriving in a model slot (mote/slot.h, runtime/embed/mote_slot.c) is
untrusted input: every refusal reason gives its one line and specific code, a refused
image leaves the active model active and giving the same bytes, and seeded mutants
of slot images (the image's bytes, and the program inside re-packed with valid CRCs
so the loader and verifier see them) never crash the sanitized driver
(tests/fuzz/fuzz_slot.c: image in read-only pages before a guard page, memory of the
exact reserved sizes)."""
import random
import re
import struct
import sys
import zlib
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as H  # noqa: E402
from _mutate import mutate  # noqa: E402

from aot.deploy.slot import HEADER_BYTES, image_for, pack_image, read_image  # noqa: E402
from aot.pte.header import format_version  # noqa: E402

N_MUTANTS = 1500
SEED = 20261207
IO = ["--in", "6:2x3x4", "--out", "6:2x3x4"]


def _compiled(seed: int, scalar: bool = False):
    import torch
    from torch import nn
    from aot.compiler.pipeline import compile_module

    class Affine(nn.Module):  # add, mul, relu: the test registry's kernels (tests/runtime/test_kernels.c)
        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(seed)
            self.w = nn.Parameter(torch.randn(2, 3, 4, generator=g), requires_grad=False)
            self.b = nn.Parameter(torch.randn(2, 3, 4, generator=g), requires_grad=False)

        def forward(self, x):
            y = torch.relu(x * self.w + self.b) * x
            return y + 2.0 * x if scalar else y  # 2.0 * x: aten::mul.Scalar_out, not in the test registry

    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(1))
    return compile_module(f"affine{seed}", Affine().eval(), (x,))


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    d = tmp_path_factory.mktemp("slot")
    a, b, s = _compiled(3), _compiled(4), _compiled(3, scalar=True)
    out = {"a": image_for(a), "b": image_for(b), "scalar": image_for(s), "compiled_a": a}
    for k in ("a", "b", "scalar"):
        (d / f"{k}.img").write_bytes(out[k])
    out["dir"] = d
    return out


def _run(exe, files, *opts):
    import subprocess
    r = subprocess.run([str(exe), *opts, *map(str, files)], capture_output=True, text=True, timeout=900,
                       env=H.checker_env())
    assert r.returncode == 0, f"fuzz_slot failed (rc={r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    return r.stdout.splitlines()


def _with_header(img: bytes, **fields) -> bytes:
    """`img` with header u32 fields changed (offset -> value) and the header CRC-32 made valid again."""
    d = bytearray(img)
    for off, v in fields.items():
        struct.pack_into("<I", d, int(off[1:]), v)
    struct.pack_into("<I", d, 60, zlib.crc32(bytes(d[:60])) & 0xFFFFFFFF)
    return bytes(d)


def _line(out: str) -> str:
    return out.split(" ", 3)[3]


def test_each_refusal_reason_gives_its_line(host_build, images):
    exe = host_build / "tests" / "fuzz" / "fuzz_slot"
    d, a = images["dir"], images["a"]
    info = read_image(a)
    pte = bytearray(info["program"])
    pte[4:8] = b"XX12"  # not "ET12", CRCs valid: the loader's refusal
    cases = {
        "empty": (b"\xff" * 4096, "empty", "BAD_HEADER"),
        "short": (a[:40], "header size need=64 have=40", "TRUNCATED"),
        "magic": (b"MOTZ" + a[4:], "header magic need=0x53544f4d have=0x5a544f4d", "BAD_HEADER"),  # "MOTS", "MOTZ"
        "hcrc": (a[:20] + bytes([a[20] ^ 1]) + a[21:], "header crc", "CHECKSUM"),
        "image_version": (_with_header(a, o4=2), "version image=2 firmware=1", "FORMAT_VERSION"),
        "pte_version": (_with_header(a, o12=99), f"version pte=99 firmware={format_version()}", "FORMAT_VERSION"),
        "stamp": (_with_header(a, o12=0), f"version stamp header=0 program={format_version()}", "BAD_HEADER"),
        "pcrc": (a[:HEADER_BYTES + 100] + bytes([a[HEADER_BYTES + 100] ^ 8]) + a[HEADER_BYTES + 101:],
                 "crc program header=0x", "CHECKSUM"),
        "cut": (a[:HEADER_BYTES + info["program_bytes"] - 1], "header size need=", "TRUNCATED"),
        "program": (pack_image(bytes(pte), format_version()), "program MOTE_ERR_BAD_IDENTIFIER", "BAD_IDENTIFIER"),
        "operator": (images["scalar"], "operator aten::mul.Scalar_out missing", "OP_NOT_FOUND"),
        "selftest": (pack_image(info["program"], format_version(), (), b"\0" * 4, 1, b""),
                     "selftest inputs bytes=4 method=96", "BAD_SEGMENT"),
        "scratch_plan": (pack_image(info["program"], format_version(), [(0, 1 << 20, 16)]),
                         "init MOTE_ERR_BAD_SCRATCH_PLAN", "BAD_SCRATCH_PLAN"),
    }
    files = []
    for name, (data, _, _) in cases.items():
        (d / f"{name}.img").write_bytes(data)
        files.append(d / f"{name}.img")
    lines = _run(exe, files, *IO)
    assert len(lines) == len(cases)
    for (name, (_, want, code)), line in zip(cases.items(), lines):
        assert line.split()[1] == f"MOTE_ERR_{code}", (name, line)
        assert _line(line).startswith(f"MOTE ERROR slot {want}"), (name, line)
        assert " active=-1 " in line, (name, line)


def test_reserved_sizes_and_io_are_exact_bounds(host_build, images):
    exe = host_build / "tests" / "fuzz" / "fuzz_slot"
    img = images["dir"] / "a.img"
    arena = images["compiled_a"].spec.arena_sizes[1]
    ok = _run(exe, [img], *IO, "--arena", str(arena))
    assert ok[0].startswith("0 MOTE_OK active=0 MOTE SLOT ok"), ok
    small = _run(exe, [img], *IO, "--arena", str(arena - 16))
    assert _line(small[0]) == f"MOTE ERROR slot arena need={arena} reserved={arena - 16}"
    st = _run(exe, [img], *IO, "--state", "64")
    need = int(re.search(r"state need=(\d+) reserved=64$", st[0]).group(1))
    assert need > 64
    assert _run(exe, [img], *IO, "--state", str(need))[0].startswith("0 MOTE_OK")
    assert _line(_run(exe, [img], *IO, "--state", str(need - 8))[0]) == \
        f"MOTE ERROR slot state need={need} reserved={need - 8}"
    shape = _run(exe, [img], "--in", "6:2x3x5", "--out", "6:2x3x4")
    assert _line(shape[0]) == "MOTE ERROR slot input 0 dtype=6 sizes=2x3x4 application dtype=6 sizes=2x3x5"
    assert shape[0].split()[1] == "MOTE_ERR_INPUT_SHAPE"
    dtype = _run(exe, [img], "--in", "6:2x3x4", "--out", "1:2x3x4")
    assert _line(dtype[0]) == "MOTE ERROR slot output 0 dtype=6 sizes=2x3x4 application dtype=1 sizes=2x3x4"
    count = _run(exe, [img], "--in", "6:2x3x4", "--out", "6:2x3x4", "--out", "6:2x3x4")
    assert _line(count[0]) == "MOTE ERROR slot outputs 1 application=2"


def test_a_refused_image_leaves_the_active_model_running(host_build, images):
    exe = host_build / "tests" / "fuzz" / "fuzz_slot"
    d = images["dir"]
    corrupt = bytearray(images["b"])
    corrupt[HEADER_BYTES + 200] ^= 1
    (d / "corrupt.img").write_bytes(bytes(corrupt))
    lines = _run(exe, [d / "a.img", d / "scalar.img", d / "corrupt.img", d / "b.img", d / "scalar.img"], *IO, "--run")
    out = [re.search(r" out=([0-9a-f]*) run=0", ln).group(1) for ln in lines]
    banks = [int(re.search(r"active=(-?\d)", ln).group(1)) for ln in lines]
    assert lines[0].startswith("0 MOTE_OK") and lines[3].startswith("0 MOTE_OK")
    assert [ln.split()[1] for ln in lines[1:3] + lines[4:]] == ["MOTE_ERR_OP_NOT_FOUND", "MOTE_ERR_CHECKSUM",
                                                               "MOTE_ERR_OP_NOT_FOUND"]
    assert banks == [0, 0, 0, 1, 1]  # refusals never switch banks; a new model takes the other bank
    assert out[0] == out[1] == out[2] and out[3] == out[4] and out[0] != out[3]
    # the bytes are the host runtime's for each model
    import numpy as np
    from aot.host.runtime import Program
    x = np.frombuffer(b"\x3f" * 96, dtype="<f4").reshape(2, 3, 4)
    want = np.asarray(Program(images["compiled_a"].pte).method().run([x])[0]).astype("<f4").tobytes()
    assert bytes.fromhex(out[0]) == want[:32]


@pytest.mark.slow
def test_mutated_slot_images_never_crash(asan_build, images, tmp_path):
    exe = asan_build / "tests" / "fuzz" / "fuzz_slot"
    rng = random.Random(SEED)
    bases = [images["a"], images["b"], images["scalar"]]
    files = []
    for i in range(N_MUTANTS):
        base = bases[i % len(bases)]
        if i % 3 == 0:  # the image's own bytes: header, CRCs, trailer
            data = mutate(rng, base)
        else:  # the program inside, re-packed with valid CRCs: the loader and verifier see it
            data = pack_image(mutate(rng, read_image(base)["program"]), format_version())
        f = tmp_path / f"m{i:05d}.img"
        f.write_bytes(data)
        files.append(f)
    known = set(H.E.values())
    codes = Counter()
    for k in range(0, len(files), 300):
        # a good image first: every mutant is offered while a model is active (the driver
        # exits with status 4 if a refused one changed it)
        chunk = [images["dir"] / "a.img"] + files[k:k + 300]
        lines = _run(exe, chunk, *IO, "--run")
        assert len(lines) == len(chunk)
        for ln in lines[1:]:
            assert int(ln.split()[0]) in known, ln
            assert ln.split(" ", 3)[3].startswith(("MOTE ERROR slot ", "MOTE SLOT ok")), ln
            codes[ln.split()[1]] += 1
    print("slot fuzz outcomes:", dict(codes.most_common()))
    assert len(codes) >= 8  # past the header checks, into the loader and init
    assert codes["MOTE_OK"] > 0 and codes["MOTE_ERR_CHECKSUM"] > 0
