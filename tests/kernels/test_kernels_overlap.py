"""Copying kernels whose out overlaps their input are defined.

Mote's and ExecuTorch's planners never overlap an instruction's out with its
inputs, but a program that passes init can (fuzz_mote found it:
memcpy-param-overlap under ASan, one 576-byte piece copied 432 bytes down).
Every copy between tensors is a memmove, so a single-piece copy gives the
input's values exactly, whatever the direction of the shift. The same cases
run under ASan in test_overlap_under_asan, where a memcpy would be reported.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
N = 144  # floats per piece: 576 bytes, the size fuzz_mote reported
SHIFTS = (108, -108, 1, -1)  # elements between src and out: 432 bytes and one element, both ways


def _views(shift, n=N):
    """(src, out) views of one buffer, out starting `shift` elements after src."""
    buf = torch.arange(3 * n, dtype=torch.float32) + 1
    lo = n
    return buf[lo:lo + n], buf[lo + shift:lo + shift + n]


# case -> function of (src, out) giving (kernel name, its arguments); out must end equal to src
CASES = {
    "cat": lambda s, o: ("aten::cat.out", [[s], 0, o]),
    "stack": lambda s, o: ("aten::stack.out", [[s], 0, o.reshape(1, N)]),
    "index_select": lambda s, o: ("aten::index_select.out", [s.reshape(1, N), 0, torch.tensor([0]),
                                                            o.reshape(1, N)]),
    "embedding": lambda s, o: ("aten::embedding.out", [s.reshape(1, N), torch.tensor([0]), -1, False, False,
                                                      o.reshape(1, N)]),
    "constant_pad_nd": lambda s, o: ("aten::constant_pad_nd.out", [s.reshape(1, N), [0, 0], 0.0,
                                                                  o.reshape(1, N)]),
    "split_copy": lambda s, o: ("aten::split_copy.Tensor_out", [s, N, 0, [o]]),
    "index_Tensor": lambda s, o: ("aten::index.Tensor_out", [s.reshape(1, N), [torch.tensor([0])],
                                                            o.reshape(1, N)]),
}


@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_copy_into_an_overlapping_out(K, case, shift):
    src, out = _views(shift)
    want = src.clone()
    name, args = CASES[case](src, out)
    assert K.call(name, *args) == 0
    assert torch.equal(out, want), (case, shift)


@pytest.mark.parametrize("shift", (1, -1, 5))
def test_permute_and_roll_into_an_overlapping_out_are_defined(K, shift):
    """Element-wise copies: overlapping pieces give meaningless values; the
    kernel still succeeds and writes only out's bytes."""
    buf = torch.zeros(3 * N)
    src, out = buf[N:2 * N], buf[N + shift:2 * N + shift]
    src.copy_(torch.arange(N, dtype=torch.float32))
    assert K.call("aten::permute_copy.out", src.reshape(12, 12), [1, 0], out.reshape(12, 12)) == 0
    assert K.call("aten::roll.out", src, [3], [0], out) == 0
    lo, hi = min(N, N + shift), max(2 * N, 2 * N + shift)
    assert torch.count_nonzero(buf[:lo]) == 0 and torch.count_nonzero(buf[hi:]) == 0


@pytest.mark.slow  # builds the kernels with ASan and UBSan, then runs this file again
def test_overlap_under_asan():
    """This file's cases on the ASan/UBSan build of the kernels: a memcpy
    between overlapping tensors would be a memcpy-param-overlap report."""
    asan = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    assert Path(asan).is_file(), f"libasan not found ({asan!r}): scripts/bootstrap.sh installs gcc's ASan"
    env = dict(os.environ, MOTE_KERNELS_SANITIZE="1", LD_PRELOAD=asan,
               ASAN_OPTIONS="detect_leaks=0:halt_on_error=1", PYTHONPATH=str(ROOT))
    env.pop("PYTEST_XDIST_WORKER", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                        __file__, "-k", "not under_asan"], capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert f"{len(CASES) * len(SHIFTS) + 3} passed" in r.stdout, r.stdout[-2000:]
