"""The program's named data (Program.named_data, where ExecuTorch's XNNPACK lowering keeps the
weights) with an index in caller memory (mote_program_set_named_index): every key is found at
the same bytes as the scan finds it, a missing key is EXTERNAL_MISSING, and the index is the
entry numbers ordered by key."""
import ctypes as C

import numpy as np
import pytest
import torch

from aot.pte import schema as fb

vp = C.c_void_p


@pytest.fixture(scope="module")
def lib(host_build):
    so = C.CDLL(str(host_build / "ports" / "linux" / "libmote.so"))
    so.mote_host_sizeof_program.restype = C.c_size_t
    so.mote_program_load.argtypes = [vp, vp, C.c_size_t]
    so.mote_program_named_index_size.restype, so.mote_program_named_index_size.argtypes = C.c_size_t, [vp]
    so.mote_program_set_named_index.argtypes = [vp, vp, C.c_size_t]
    so.mote_program_named_data.argtypes = [vp, C.c_char_p, C.c_uint32, C.POINTER(vp), C.POINTER(C.c_size_t)]
    return so


def _load(lib, pte: bytes):
    buf = np.zeros(len(pte) + 16, np.uint8)
    off = (-buf.ctypes.data) % 16
    buf[off:off + len(pte)] = np.frombuffer(pte, np.uint8)
    prog = np.zeros(lib.mote_host_sizeof_program() + 16, np.uint8)
    assert lib.mote_program_load(prog.ctypes.data, buf.ctypes.data + off, len(pte)) == 0
    return buf, prog, buf.ctypes.data + off


def _find(lib, loaded, key: bytes):
    """(code, offset of the bytes in the file, size)."""
    _, prog, base = loaded
    p, n = vp(), C.c_size_t()
    code = lib.mote_program_named_data(prog.ctypes.data, key, len(key), C.byref(p), C.byref(n))
    return code, (p.value - base) if p.value else None, n.value


@pytest.mark.oracle
def test_named_data_index_finds_what_the_scan_finds(lib):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(12)]).eval()
    x = (torch.randn(1, 8),)
    pte = bytes(to_edge_transform_and_lower(torch.export.export(model, x),
                                            partitioner=[XnnpackPartitioner()]).to_executorch().buffer)
    keys = [nd.key.encode() for nd in fb.read_program(pte).named_data]
    assert len(keys) == 24 and keys != sorted(keys)  # weights and biases, keys not in order
    scan = _load(lib, pte)
    loaded = _load(lib, pte)
    indexed = loaded[1]
    size = lib.mote_program_named_index_size(indexed.ctypes.data)
    assert size == 4 * len(keys)
    index = np.full(len(keys), 0xFFFFFFFF, np.uint32)
    assert lib.mote_program_set_named_index(indexed.ctypes.data, index.ctypes.data, size - 4) == -101
    assert lib.mote_program_set_named_index(indexed.ctypes.data, index.ctypes.data + 2, size) == -102
    assert lib.mote_program_set_named_index(indexed.ctypes.data, index.ctypes.data, size) == 0
    assert index.tolist() == sorted(range(len(keys)), key=lambda i: (keys[i], i))
    offsets = set()
    for k in keys:
        code, off, n = _find(lib, loaded, k)
        assert code == 0 and off > 0 and n in (8 * 8 * 4, 8 * 4), (k, code, n)
        assert (code, off, n) == _find(lib, scan, k)
        offsets.add(off)
    assert len(offsets) == len(keys)
    for missing in (b"", b"zz", keys[0][:-1], keys[0] + b"x"):
        assert _find(lib, loaded, missing)[0] == -220 and _find(lib, scan, missing)[0] == -220
