"""The malformed-program corpus through the embedding API (mote/model.h) on a board in
QEMU (mps2-an505, Cortex-M33), with the checksum option off and on: a program in a
model slot or in firmware is the same untrusted input as a file on the host.

One firmware (tests/runtime/corpus/corpus_app.c) holds the whole corpus in flash and
the embedding API twice (without and with MOTE_VERIFY_CHECKSUM); one boot gives every
program to both, prints one line of result codes per program and exits. The same
sources built for the host give the expected lines: the board must print exactly
them (no fault report, no hang: QEMU runs under `timeout`). On top, the codes are
checked against what each corpus entry is known to be (test_malformed.py's cases and
truncations, the reproducers, the unmutated program).

Corpus: ExecuTorch's const_mul program, its 31 corruptions from test_malformed.py, its
truncations at every 64 bytes, 200 seeded random byte mutations of it, and the
reproducers (tests/runtime/repro, tests/fuzz/regressions). With the checksum option
each program is tried with its own CRC-32 (the codes equal those without the option)
and with the base program's (MOTE_ERR_CHECKSUM for every program that differs from it).
"""
import random
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

import _harness as H
from test_malformed import CASES

pytestmark = [pytest.mark.sim, pytest.mark.oracle, pytest.mark.usefixtures("need_qemu")]

CORPUS_DIR = H.ROOT / "tests" / "runtime" / "corpus"
EMBED_DIR = H.ROOT / "runtime" / "embed"
BOARD = "mps2-an505"
REPRO = sorted((H.ROOT / "tests" / "runtime" / "repro").glob("*.pte")) + sorted(
    (H.ROOT / "tests" / "fuzz" / "regressions").glob("*.pte"))
NOT_RUN = 1  # corpus_app.c prints 1 for a run not attempted (init failed)

# What init must say about each reproducer on a board without an XNNPACK backend:
# the write proof's codes (tests/runtime/repro/README.md), the bounded-execution refusal,
# and NO_SUCH_BACKEND for the delegated programs.
REPRO_CODES = {
    "bn_out1_const": "OUTPUT_NOT_WRITABLE",
    "fuzz_setinput_writes_program_smallest": "INPUT_NOT_WRITABLE",
    "input_is_constant": "INPUT_NOT_WRITABLE",
    "jump_self_forever": "BACKWARD_JUMP",
    "move_view_oob_read": "ALIAS_MISMATCH",
    "move_view_oob_write": "ALIAS_MISMATCH",
    "xnn_two_producers_min": "NO_SUCH_BACKEND",
    "xnnpack_argument_not_a_tensor": "NO_SUCH_BACKEND",
    "xnnpack_unbound_view_argument": "NO_SUCH_BACKEND",
}


def _corpus(base: bytes) -> list:
    """[(name, program bytes)]: the base, test_malformed's corruptions and truncations,
    seeded random mutations, the reproducers."""
    out = [("base", base)]
    for name, mutate, _, _ in CASES:
        fb = H.FB(bytearray(base))
        mutate(fb)
        out.append((f"case:{name}", bytes(fb.d)))
    for n in list(range(0, len(base), 64)) + [len(base) - 1]:
        out.append((f"trunc:{n}", base[:n]))
    rng = random.Random(34)
    for k in range(200):
        d = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            d[rng.randrange(len(d))] = rng.randrange(256)
        out.append((f"mut:{k}", bytes(d)))
    out += [(f"repro:{p.stem}", p.read_bytes()) for p in REPRO]
    return out


def _blob(corpus: list, base: bytes) -> bytes:
    """corpus_app.c's blob: "MCRP", count, entries {offset, size, crc_self, crc_base}, programs."""
    pos = (8 + 16 * len(corpus) + 15) // 16 * 16
    head, data = [b"MCRP", struct.pack("<I", len(corpus))], b""
    for _, prog in corpus:
        head.append(struct.pack("<IIII", pos + len(data), len(prog), zlib.crc32(prog), zlib.crc32(base)))
        data += prog + bytes(-len(prog) % 16)
    h = b"".join(head)
    return h + bytes(pos - len(h)) + data


def _blob_source(path: Path, blob: Path, arm: bool) -> Path:
    path.write_text(f'    .section .mote_model, "a"\n    .balign 16\n    .global mote_corpus_blob\n'
                    f'mote_corpus_blob:\n    .incbin "{blob}"\n'
                    + ("" if arm else '    .section .note.GNU-stack, "", @progbits\n'))
    return path


def _op_names(corpus: list) -> list:
    """Every operator with a portable kernel whose name ("ns::name", a NUL-terminated flatbuffer
    string) is in a corpus program: read from the bytes, so unreadable programs count too."""
    from aot.compiler.kernels import kernel_files
    blob = b"".join(prog for _, prog in corpus)
    return sorted(op for op in kernel_files() if op.split(".")[0].encode() + b"\0" in blob)


@pytest.fixture(scope="module")
def corpus(pte, tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    base = pte("const_mul").read_bytes()
    items = _corpus(base)
    (d / "corpus.bin").write_bytes(_blob(items, base))
    from aot.deploy.generate import write_registry
    ops = _op_names(items)
    assert "aten::mul.out" in ops and "aten::relu.default" not in ops
    write_registry(ops, d / "registry.c")
    return d, items, base, ops


def _lines(text: str, n: int) -> list:
    rows = [line.split() for line in text.splitlines() if line.startswith("CASE ")]
    assert f"CORPUS DONE {n}" in text and "FAULT" not in text, text[-2000:]
    assert [int(r[1]) for r in rows] == list(range(n)), text[-2000:]
    return [tuple(int(x) for x in r[2:]) for r in rows]


@pytest.fixture(scope="module")
def host_lines(corpus, host_build):
    """The corpus app built for the host on the same embedding API and registry: the expected lines."""
    d, items, _, _ = corpus
    exe = d / "corpus_host"
    warn = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror"]
    subprocess.run(["cc", *warn, "-O1", f"-I{CORPUS_DIR}", f"-I{H.ROOT / 'runtime/include'}", f"-I{EMBED_DIR}",
                    f"-I{H.ROOT / 'ports/cortex-m'}", str(CORPUS_DIR / "corpus_app.c"), str(CORPUS_DIR / "corpus_crc.c"),
                    str(EMBED_DIR / "mote_model.c"), str(d / "registry.c"),
                    str(_blob_source(d / "blob_host.S", d / "corpus.bin", arm=False)),
                    str(H.ROOT / "tests/runtime/app_host_port.c"),
                    "-Wl,--start-group", str(host_build / "runtime/libmote_runtime.a"),
                    str(host_build / "kernels/libmote_kernels.a"), "-Wl,--end-group", "-lm", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    r = subprocess.run(["timeout", "60", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return _lines(r.stdout, len(items))


def test_corpus_on_the_host_gives_the_known_codes(corpus, host_lines):
    _, items, base, _ = corpus
    E = H.E
    assert len(host_lines) == len(items) > 250
    for (name, prog), (off_i, off_r, on_i, on_r, bad_i, bad_r) in zip(items, host_lines):
        # the checksum option with the program's own CRC changes nothing
        assert (on_i, on_r) == (off_i, off_r), name
        # with the base program's CRC every other program is refused before it is read
        if prog == base:
            assert (bad_i, bad_r) == (off_i, off_r), name
        else:
            assert (bad_i, bad_r) == (E["CHECKSUM"], NOT_RUN), name
        kind, _, what = name.partition(":")
        if kind == "base":
            assert (off_i, off_r) == (0, 0)
        elif kind == "case":
            want = next(c[2] for c in CASES if c[0] == what)
            assert (off_i, off_r) == (E[want], NOT_RUN), (name, off_i)
        elif kind == "trunc":
            assert (off_i, off_r) == (E["TRUNCATED"], NOT_RUN), (name, off_i)
        elif kind == "repro":
            assert (off_i, off_r) == (E[REPRO_CODES[what]], NOT_RUN), (name, off_i)
        else:  # a random mutation: a Mote error code or OK, at init and at run
            assert off_i <= 0 and (off_r == NOT_RUN if off_i else off_r <= 0), (name, off_i, off_r)
    codes = {r[0] for r in host_lines}
    assert len(codes) >= 15  # the corpus reaches many distinct refusals


def test_corpus_on_the_board_matches_the_host(corpus, host_lines, tmp_path_factory):
    """One firmware, one boot, every program three ways: exactly the host's lines."""
    from aot.deploy.firmware import build_firmware
    from aot.deploy.generate import runtime_sources, support_sources
    from aot.compiler.kernels import kernel_files
    from aot.deploy.qemu import qemu_command
    d, items, _, ops = corpus
    out = tmp_path_factory.mktemp("corpus_fw")
    files = kernel_files()
    kernels = sorted({files[op] for op in ops})
    fw = build_firmware(BOARD, [CORPUS_DIR / "corpus_app.c", CORPUS_DIR / "corpus_crc.c", EMBED_DIR / "mote_model.c",
                                d / "registry.c", _blob_source(out / "blob.S", d / "corpus.bin", arm=True)]
                        + runtime_sources() + support_sources() + kernels,
                        include_dirs=[CORPUS_DIR, H.ROOT / "runtime" / "include", EMBED_DIR, H.ROOT / "kernels"],
                        defines={"NDEBUG": None}, out_dir=out, stack_bytes=16384)
    r = subprocess.run(["timeout", "120", *qemu_command(fw.elf, BOARD)], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=150)
    text = r.stdout.decode("utf-8", "replace").replace("\r\n", "\n")
    assert r.returncode == 0, text[-3000:]
    board = _lines(text, len(items))
    diff = [(items[i][0], h, b) for i, (h, b) in enumerate(zip(host_lines, board)) if h != b]
    assert not diff, diff[:10]
