"""mote-run (the C CLI) with .npz inputs and outputs, written and read by numpy.

numpy.savez writes a stored zip of .npy members (each with a ZIP64 extra field
in its local header); mote-run parses the central directory and local headers,
checks each member's CRC-32, orders positional arrays arr_0, arr_1, ..., arr_10
by number (named arrays by member order), and writes outputs as a stored .npz
(output_0, output_1, ...) when -o ends in .npz.
"""
import subprocess
import zipfile

import numpy as np
import pytest
import torch
from torch import nn

import _harness as H

pytestmark = pytest.mark.oracle  # the .pte files come from executorch's serializer


class Chain(nn.Module):
    """out = ((x0 + x1) * x2 + x3) * x4 + ...: any input permutation changes the result."""

    def forward(self, *xs):
        z = xs[0]
        for i, x in enumerate(xs[1:]):
            z = z + x if i % 2 == 0 else z * x
        return torch.relu(z), z * xs[-1]


N_CHAIN = 12  # arr_0 .. arr_11: lexicographic order (arr_1, arr_10, arr_11, arr_2) would be wrong


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    g = torch.Generator().manual_seed(21)
    xs = tuple(torch.randn(3, 5, generator=g) for _ in range(N_CHAIN))
    d = tmp_path_factory.mktemp("chain")
    path = H.export_pte(Chain(), xs, d / "chain.pte")
    with torch.no_grad():
        want = [o.numpy() for o in Chain()(*xs)]
    return path, [x.numpy() for x in xs], want


@pytest.fixture(scope="module")
def exe(host_build):
    """mote-run on the test kernels (add, mul, relu), independent of kernels/."""
    return host_build / "tests" / "runtime" / "mote_run_testk"


def _run(exe, *args, cwd=None):
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd)


def _close(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_npz_in_npz_out(exe, chain, tmp_path):
    pte, xs, want = chain
    np.savez(tmp_path / "in.npz", *xs)
    r = _run(exe, "-o", tmp_path / "out.npz", pte, tmp_path / "in.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        assert z.files == ["output_0", "output_1"]
        _close(z["output_0"], want[0])
        _close(z["output_1"], want[1])
        assert (z["output_0"] > 0).any() and (z["output_0"] == 0).any()  # relu did something
    # the archive is a valid, stored zip with correct CRCs
    with zipfile.ZipFile(tmp_path / "out.npz") as zf:
        assert zf.testzip() is None
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert "out.npz:output_1" in r.stdout


def test_npz_in_npy_out_and_mixed_inputs(exe, chain, tmp_path):
    """Archives and .npy files mix in command-line order; -o PREFIX still writes .npy files."""
    pte, xs, want = chain
    np.savez(tmp_path / "a.npz", *xs[:5])
    np.save(tmp_path / "b.npy", xs[5])
    np.savez(tmp_path / "c.npz", *xs[6:])
    r = _run(exe, "-o", tmp_path / "y", pte, tmp_path / "a.npz", tmp_path / "b.npy", tmp_path / "c.npz")
    assert r.returncode == 0, r.stderr
    _close(np.load(tmp_path / "y0.npy"), want[0])
    _close(np.load(tmp_path / "y1.npy"), want[1])


def test_named_members_keep_member_order(exe, chain, tmp_path):
    pte, xs, want = chain
    names = [f"input_{chr(ord('z') - i)}" for i in range(N_CHAIN)]  # z, y, x, ...: not sorted
    np.savez(tmp_path / "named.npz", **dict(zip(names, xs)))
    r = _run(exe, "-o", tmp_path / "o.npz", pte, tmp_path / "named.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o.npz") as z:
        _close(z["output_0"], want[0])
    # the same arrays in another member order give another (wrong) answer: order is honoured
    np.savez(tmp_path / "rev.npz", **dict(zip(reversed(names), reversed(xs))))
    r = _run(exe, "-o", tmp_path / "o2.npz", pte, tmp_path / "rev.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o2.npz") as z:
        assert not np.allclose(z["output_1"], want[1])


def test_zip_written_by_zipfile_with_comment(exe, chain, tmp_path):
    """A stored archive from Python's zipfile (no ZIP64 extras, an archive comment,
    a non-array member) is read too."""
    pte, xs, want = chain
    p = tmp_path / "zf.npz"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.comment = b"written by zipfile" * 20
        zf.writestr("README.txt", "not an array")
        for i, x in reversed(list(enumerate(xs))):  # members in reverse: arr_N order must win
            np.save(tmp_path / "m.npy", x)
            zf.write(tmp_path / "m.npy", f"arr_{i}.npy")
    r = _run(exe, "-o", tmp_path / "o.npz", pte, p)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o.npz") as z:
        _close(z["output_0"], want[0])
        _close(z["output_1"], want[1])


def test_savez_compressed_is_a_clear_error(exe, chain, tmp_path):
    pte, xs, _ = chain
    np.savez_compressed(tmp_path / "c.npz", *xs)
    r = _run(exe, "-o", tmp_path / "o.npz", pte, tmp_path / "c.npz")
    assert r.returncode == 1
    assert "savez_compressed" in r.stderr and "arr_" in r.stderr
    assert not (tmp_path / "o.npz").exists()


def test_bad_archives_are_errors_not_crashes(exe, chain, tmp_path):
    pte, xs, _ = chain
    run = lambda *a: _run(exe, *a, cwd=tmp_path)  # noqa: E731  (default outputs land in tmp_path)
    good = tmp_path / "in.npz"
    np.savez(good, *xs)
    data = good.read_bytes()
    # a flipped byte inside the first member's array data: CRC mismatch
    bad = bytearray(data)
    pos = data.index(b"\x93NUMPY") + 128 + 20  # past the 128-byte .npy header
    bad[pos] ^= 0x40
    (tmp_path / "crc.npz").write_bytes(bytes(bad))
    r = run(pte, tmp_path / "crc.npz")
    assert r.returncode == 1 and "CRC" in r.stderr
    # truncations at many points: exit status 1 with a message, never a signal
    for cut in range(4, len(data), max(1, len(data) // 40)):
        (tmp_path / "cut.npz").write_bytes(data[:cut])
        r = run(pte, tmp_path / "cut.npz")
        assert r.returncode == 1, (cut, r.returncode, r.stderr)
        assert r.stderr.startswith("mote-run: ")
    # too few arrays: the count is reported
    np.savez(tmp_path / "few.npz", *xs[:3])
    r = run(pte, tmp_path / "few.npz")
    assert r.returncode == 1 and f"takes {N_CHAIN} inputs, 3 given" in r.stderr
    # a wrong dtype inside an archive: the runtime's error, naming the member
    np.savez(tmp_path / "f64.npz", *[x.astype(np.float64) if i == 4 else x for i, x in enumerate(xs)])
    r = run(pte, tmp_path / "f64.npz")
    assert r.returncode == 2 and "MOTE_ERR_INPUT_DTYPE" in r.stderr and "arr_4" in r.stderr


def test_real_mote_run_npz_with_int8_and_float_outputs(host_build, tmp_path):
    """The shipped mote-run (all kernels): a program with an int8 output and a float
    output, both round-tripped through the .npz writer and read back by numpy."""

    class QOut(nn.Module):
        def forward(self, x):
            q = torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)
            return q, torch.ops.quantized_decomposed.dequantize_per_tensor(q, 0.05, 3, -128, 127, torch.int8)

    # the q/dq .out variants to_edge needs: aot.compiler.mote_ops defines them when ExecuTorch's
    # quantized library is not loaded (and defers to it when it is); importing
    # executorch.kernels.quantized here instead could abort (see test_et_quantized.py)
    import aot.compiler.mote_ops  # noqa: F401

    x = torch.linspace(-8, 8, 2 * 3 * 7).reshape(2, 3, 7)
    pte = H.export_pte(QOut(), (x,), tmp_path / "q.pte")
    want_q, want_dq = QOut()(x)
    np.savez(tmp_path / "in.npz", x.numpy())
    r = _run(host_build / "ports" / "linux" / "mote-run", "-o", tmp_path / "o.npz", pte, tmp_path / "in.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o.npz") as z:
        assert z["output_0"].dtype == np.int8 and z["output_0"].shape == (2, 3, 7)
        np.testing.assert_array_equal(z["output_0"], want_q.numpy())
        assert z["output_0"].min() == -128 and z["output_0"].max() == 127  # clamped at both ends
        np.testing.assert_array_equal(z["output_1"], want_dq.numpy())


def test_corrupted_archives_under_asan(asan_build, chain, tmp_path):
    """Random byte flips and truncations of a numpy-written .npz through the
    ASan+UBSan build: a clean exit status every time, no sanitizer report, no leak."""
    import os
    import random

    pte, xs, want = chain
    exe = asan_build / "tests" / "runtime" / "mote_run_testk"
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:halt_on_error=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    np.savez(tmp_path / "in.npz", *xs)
    data = (tmp_path / "in.npz").read_bytes()
    rng = random.Random(7)
    seen = {}
    for trial in range(120):
        d = bytearray(data)
        if trial == 0:
            pass  # the intact archive: runs
        elif trial % 3 == 0:
            d = d[:rng.randrange(len(d))]
        else:
            for _ in range(rng.randrange(1, 4)):
                d[rng.randrange(len(d))] = rng.randrange(256)
        (tmp_path / "f.npz").write_bytes(bytes(d))
        r = subprocess.run([str(exe), "-o", str(tmp_path / "o.npz"), str(pte), str(tmp_path / "f.npz")],
                           capture_output=True, text=True, errors="replace", timeout=60, env=env)
        assert r.returncode in (0, 1, 2), (trial, r.returncode, r.stderr[-3000:])
        assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-3000:]
        seen[r.returncode] = seen.get(r.returncode, 0) + 1
        if trial == 0:
            assert r.returncode == 0, r.stderr
            with np.load(tmp_path / "o.npz") as z:
                _close(z["output_0"], want[0])
    assert seen.get(1, 0) > 50  # most corruptions are caught by the archive checks (CRC, offsets)


def test_mote_run_attaches_a_ptd_and_times_each_stage(exe, tmp_path):
    """-d FILE.ptd attaches external weights (keys out of order: mote-run gives the map its
    index); -t prints one "mote-run: time STAGE SECONDS" line per stage (benchmarks read them).
    The program (benchmarks/bench_init_growth.py) has 300 external tensors and returns its input."""
    import sys
    sys.path.insert(0, str(H.ROOT / "benchmarks"))
    from bench_init_growth import ptd_program
    pte, ptd = ptd_program(300)
    (tmp_path / "p.pte").write_bytes(pte)
    (tmp_path / "w.ptd").write_bytes(ptd)
    np.save(tmp_path / "x.npy", np.array([2.5], np.float32))
    r = _run(exe, "-t", "-d", tmp_path / "w.ptd", "-o", tmp_path / "o", tmp_path / "p.pte", tmp_path / "x.npy")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "o0.npy"), np.array([2.5], np.float32))
    stages = [line.split()[2] for line in r.stderr.splitlines() if line.startswith("mote-run: time ")]
    assert stages == ["load", "index", "ptd_load", "ptd_index", "requirements", "init", "execute"], r.stderr
    assert all(float(line.split()[3]) >= 0 for line in r.stderr.splitlines() if line.startswith("mote-run: time "))
    # without the .ptd the external tensors are missing; a .pte given as -d is not a .ptd
    r = _run(exe, tmp_path / "p.pte", tmp_path / "x.npy")
    assert r.returncode == 2 and "MOTE_ERR_EXTERNAL_MISSING" in r.stderr
    r = _run(exe, "-d", tmp_path / "p.pte", tmp_path / "p.pte", tmp_path / "x.npy")
    assert r.returncode == 2 and "load .ptd: MOTE_ERR_BAD_IDENTIFIER" in r.stderr
