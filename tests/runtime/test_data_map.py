"""Named-data lookup in a .ptd (runtime/src/data_map.c): a binary search when the keys are
strictly increasing (checked once at load), a scan otherwise; counted in key comparisons
(mote_data_map_find_counted), never timed."""
import ctypes as C
import math
from pathlib import Path

import numpy as np
import pytest

from aot.pte.flat_tensor import NamedTensor, write_ptd

F32 = 6


@pytest.fixture(scope="module")
def lib(host_build):
    so = C.CDLL(str(host_build / "ports" / "linux" / "libmote.so"))
    so.mote_host_sizeof_data_map.restype = C.c_size_t
    so.mote_data_map_load.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t]
    so.mote_data_map_find_counted.argtypes = [C.c_void_p, C.c_char_p, C.c_uint32, C.c_void_p,
                                              C.POINTER(C.c_uint32)]
    return so


class Entry(C.Structure):
    """mote_data_entry_t (runtime/src/program_internal.h)."""
    _fields_ = [("key", C.c_void_p), ("key_len", C.c_uint32), ("has_layout", C.c_bool), ("dtype", C.c_uint8),
                ("dim", C.c_uint32), ("sizes_pos", C.c_uint32), ("order_pos", C.c_uint32),
                ("order_len", C.c_uint32), ("data", C.POINTER(C.c_float)), ("nbytes", C.c_uint64)]


def _ptd(keys):
    """A .ptd whose entry i (key keys[i]) holds the float i."""
    return write_ptd([NamedTensor(key=k, dtype=F32, sizes=[1], dim_order=[0],
                                  data=np.float32(i).tobytes()) for i, k in enumerate(keys)])


def _lookups(lib, keys, data=None):
    """Loads the .ptd of `keys`, finds each key (checking it found that key's entry) and a missing one:
    (comparisons per lookup, comparisons for the missing key)."""
    data = _ptd(keys) if data is None else data
    buf = np.zeros(len(data) + 16, np.uint8)
    off = (-buf.ctypes.data) % 16
    buf[off:off + len(data)] = np.frombuffer(data, np.uint8)
    m = np.zeros(lib.mote_host_sizeof_data_map() + 16, np.uint8)
    assert lib.mote_data_map_load(m.ctypes.data, buf.ctypes.data + off, len(data)) == 0
    entry = Entry()
    counts = []
    n = C.c_uint32(0)
    for i, k in enumerate(keys):
        assert lib.mote_data_map_find_counted(m.ctypes.data, k.encode(), len(k), C.byref(entry), C.byref(n)) == 0, k
        counts.append(n.value)
        assert C.string_at(entry.key, entry.key_len) == k.encode() and entry.nbytes == 4 and entry.dtype == F32
        assert entry.data[0] == keys.index(k)  # the first entry of that key
    missing = "zz-not-there"
    assert lib.mote_data_map_find_counted(m.ctypes.data, missing.encode(), len(missing), C.byref(entry), C.byref(n)) == -220
    return counts, n.value


def _keys(n):
    return [f"w{i:06d}" for i in range(n)]  # strictly increasing


def test_sorted_keys_are_binary_searched_and_grow_n_log_n(lib):
    total = {}
    for n in (1000, 10000):
        counts, miss = _lookups(lib, _keys(n))
        bound = math.floor(math.log2(n)) + 1
        assert max(counts) <= bound and miss <= bound, (n, max(counts), miss)
        total[n] = sum(counts)
    # 10x the entries, each looked up once: the work grows ~10 * log(10^4)/log(10^3) = 13.3x, not 100x
    ratio = total[10000] / total[1000]
    assert 10 < ratio < 16, (total, ratio)


def test_unsorted_keys_still_load_and_are_found(lib):
    """ExecuTorch writes keys in insertion order: such a map is scanned (n comparisons at worst)."""
    keys = _keys(200)[::-1]
    counts, miss = _lookups(lib, keys)
    assert counts == list(range(1, 201)) and miss == 200


def test_a_repeated_key_is_not_sorted(lib):
    """Keys a, b, b, d (write_ptd refuses a repeat: the third key's bytes are edited): not strictly
    increasing, so scanned, and the first "b" is the one found."""
    data = _ptd(["a", "b", "c", "d"])
    c_str = b"\x01\x00\x00\x00c\x00"  # flatbuffer string: length, bytes, NUL
    assert data.count(c_str) == 1
    counts, miss = _lookups(lib, ["a", "b", "b", "d"], data.replace(c_str, b"\x01\x00\x00\x00b\x00"))
    assert counts == [1, 2, 2, 4] and miss == 4


# --- an index in caller memory (mote_data_map_set_index): unsorted keys binary-searched too ---

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def ilib(lib):
    lib.mote_data_map_index_size.restype, lib.mote_data_map_index_size.argtypes = C.c_size_t, [C.c_void_p]
    lib.mote_data_map_set_index.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t]
    return lib


def _indexed_lookups(lib, keys, data):
    """As _lookups, with the map given an index of exactly mote_data_map_index_size bytes."""
    buf = np.zeros(len(data) + 16, np.uint8)
    off = (-buf.ctypes.data) % 16
    buf[off:off + len(data)] = np.frombuffer(data, np.uint8)
    m = np.zeros(lib.mote_host_sizeof_data_map() + 16, np.uint8)
    assert lib.mote_data_map_load(m.ctypes.data, buf.ctypes.data + off, len(data)) == 0
    size = lib.mote_data_map_index_size(m.ctypes.data)
    assert size == 4 * len(keys)  # keys not in order: 4 bytes per entry
    index = np.full(len(keys), 0xFFFFFFFF, np.uint32)
    assert lib.mote_data_map_set_index(m.ctypes.data, index.ctypes.data, size - 1) == -101  # MEMORY_TOO_SMALL
    assert lib.mote_data_map_set_index(m.ctypes.data, None, size) == -100  # INVALID_ARGUMENT
    assert lib.mote_data_map_set_index(m.ctypes.data, index.ctypes.data + 1, size) == -102  # MEMORY_ALIGNMENT
    assert lib.mote_data_map_set_index(m.ctypes.data, index.ctypes.data, size) == 0
    # the index is the entry numbers ordered by (key, entry number)
    assert index.tolist() == sorted(range(len(keys)), key=lambda i: (keys[i].encode(), i))
    entry, n, counts = Entry(), C.c_uint32(0), []
    for k in keys:
        assert lib.mote_data_map_find_counted(m.ctypes.data, k.encode(), len(k), C.byref(entry), C.byref(n)) == 0, k
        counts.append(n.value)
        assert C.string_at(entry.key, entry.key_len) == k.encode()
    missing = "zz-not-there"
    assert lib.mote_data_map_find_counted(m.ctypes.data, missing.encode(), len(missing), C.byref(entry), C.byref(n)) == -220
    return counts, n.value, entry


def test_unsorted_keys_with_an_index_are_binary_searched_and_grow_n_log_n(ilib):
    total = {}
    for n in (1000, 10000):
        keys = _keys(n)[::-1]
        counts, miss, _ = _indexed_lookups(ilib, keys, _ptd(keys))
        bound = math.floor(math.log2(n)) + 1
        assert max(counts) <= bound and miss <= bound, (n, max(counts), miss)
        total[n] = sum(counts)
    ratio = total[10000] / total[1000]
    assert 10 < ratio < 16, (total, ratio)  # the scan took 100x


def test_an_index_finds_the_first_of_repeated_keys_sharing_one_offset(ilib):
    """Crafted: 2,000 entries on one data segment (every offset the same), keys out of order and
    each key twice; with the index each lookup finds the first entry of its key, as the scan does."""
    import sys
    sys.path.insert(0, str(BENCH))
    from bench_init_growth import ptd_bytes
    base = [f"k{(i * 7919) % 1000:04d}" for i in range(1000)]  # a permutation: not in order
    keys = base + base[::-1]
    data = ptd_bytes(keys, shared=True)
    counts, miss, _ = _indexed_lookups(ilib, keys, data)
    assert max(counts) <= math.floor(math.log2(2000)) + 1 and miss <= 11
    # the scan (no index) agrees on which entry each key is: the first in the file
    buf = np.zeros(len(data) + 16, np.uint8)
    off = (-buf.ctypes.data) % 16
    buf[off:off + len(data)] = np.frombuffer(data, np.uint8)
    m1 = np.zeros(ilib.mote_host_sizeof_data_map() + 16, np.uint8)
    m2 = np.zeros(ilib.mote_host_sizeof_data_map() + 16, np.uint8)
    assert ilib.mote_data_map_load(m1.ctypes.data, buf.ctypes.data + off, len(data)) == 0
    assert ilib.mote_data_map_load(m2.ctypes.data, buf.ctypes.data + off, len(data)) == 0
    index = np.zeros(len(keys), np.uint32)
    assert ilib.mote_data_map_set_index(m2.ctypes.data, index.ctypes.data, index.nbytes) == 0
    e1, e2 = Entry(), Entry()
    for k in base[:50]:
        assert ilib.mote_data_map_find_counted(m1.ctypes.data, k.encode(), len(k), C.byref(e1), None) == 0
        assert ilib.mote_data_map_find_counted(m2.ctypes.data, k.encode(), len(k), C.byref(e2), None) == 0
        assert e1.key == e2.key  # the same entry: its key string's address in the file


def test_a_sorted_map_needs_no_index(ilib):
    data = _ptd(_keys(100))
    buf = np.zeros(len(data) + 16, np.uint8)
    off = (-buf.ctypes.data) % 16
    buf[off:off + len(data)] = np.frombuffer(data, np.uint8)
    m = np.zeros(ilib.mote_host_sizeof_data_map() + 16, np.uint8)
    assert ilib.mote_data_map_load(m.ctypes.data, buf.ctypes.data + off, len(data)) == 0
    assert ilib.mote_data_map_index_size(m.ctypes.data) == 0
    assert ilib.mote_data_map_set_index(m.ctypes.data, None, 0) == 0


@pytest.mark.oracle
def test_executorchs_ptd_with_many_entries_is_indexed_and_runs(ilib, tmp_path):
    """ExecuTorch 1.5.1 writes a model's 500 parameters in insertion order (p.0, p.1, ..., p.10, ...:
    not sorted); the host binding gives the map an index and the program runs as ExecuTorch runs it."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.runtime import Runtime
    from aot.host.runtime import Program
    from aot.pte.flat_tensor import read_ptd

    class Many(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = torch.nn.ParameterList([torch.nn.Parameter(torch.full((2,), float(i))) for i in range(500)])

        def forward(self, x):
            for p in self.p:
                x = x * 0.5 + p
            return x

    x = torch.tensor([1.0, -2.0])
    et = to_edge(torch.export.export(Many().eval(), (x,))).to_executorch(ExecutorchBackendConfig(external_constants=True))
    (tmp_path / "m.pte").write_bytes(et.buffer)
    et.write_tensor_data_to_file(str(tmp_path))
    (ptd,) = tmp_path.glob("*.ptd")
    keys = list(read_ptd(ptd.read_bytes()))
    assert len(keys) == 500 and keys != sorted(keys)
    counts, miss, _ = _indexed_lookups(ilib, keys, ptd.read_bytes())
    assert max(counts) <= 9 and miss <= 9  # floor(log2 500) + 1
    want = Runtime.get().load_program(tmp_path / "m.pte", data_path=str(ptd)).load_method("forward").execute([x])[0]
    got = Program(tmp_path / "m.pte", data_map=ptd).method().run([x.numpy()])[0]
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)


def test_keys_longer_than_the_limit_are_refused_and_never_compared(ilib):
    """MOTE_MAX_KEY_BYTES (1,024): a .ptd key of 1,025 bytes is UNSUPPORTED at load; 1,024 loads; a
    longer key looked up is missing without a comparison (each comparison reads a bounded key)."""
    def load(keys):
        data = _ptd(keys)
        buf = np.zeros(len(data) + 16, np.uint8)
        off = (-buf.ctypes.data) % 16
        buf[off:off + len(data)] = np.frombuffer(data, np.uint8)
        m = np.zeros(ilib.mote_host_sizeof_data_map() + 16, np.uint8)
        return ilib.mote_data_map_load(m.ctypes.data, buf.ctypes.data + off, len(data)), m, buf
    assert load(["a", "k" * 1025])[0] == -217  # UNSUPPORTED
    code, m, _keep = load(["k" * 1024, "a"])
    assert code == 0
    index = np.zeros(2, np.uint32)
    assert ilib.mote_data_map_set_index(m.ctypes.data, index.ctypes.data, index.nbytes) == 0
    entry, n = Entry(), C.c_uint32(7)
    k = "k" * 1024
    assert ilib.mote_data_map_find_counted(m.ctypes.data, k.encode(), len(k), C.byref(entry), C.byref(n)) == 0
    k = "k" * 1025
    assert ilib.mote_data_map_find_counted(m.ctypes.data, k.encode(), len(k), C.byref(entry), C.byref(n)) == -220
    assert n.value == 0


EMBED_MAIN = r"""
#include <stdio.h>
#include "mote/model.h"
int main(void)
{
    printf("%s\n", mote_err_name(mote_model_init()));
    return 0;
}
"""


@pytest.mark.parametrize("in_order", [True, False])
def test_embedding_api_takes_a_ptd_with_keys_in_order_only(host_build, tmp_path, in_order):
    """The embedding API (runtime/embed/mote_model.c, static memory, no index RAM) with a .ptd of
    300 entries: keys in order (as aot generate writes them) init; out of order (ExecuTorch's
    insertion order) is MOTE_ERR_UNSUPPORTED rather than a scan per external tensor."""
    import subprocess
    import sys
    sys.path.insert(0, str(BENCH))
    from bench_init_growth import ptd_bytes, ptd_program
    from aot.deploy.generate import blob_source_text, pte_header_text, pte_source_text
    pte, _ = ptd_program(300)
    keys = [f"w{i:07d}" for i in range(300)]
    ptd = ptd_bytes(keys if in_order else keys[::-1])
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "model_pte.h").write_text(pte_header_text("t", len(pte)))
    (tmp_path / "model_pte.c").write_text(pte_source_text("t", pte))
    (tmp_path / "model_ptd.c").write_text(blob_source_text("t", "mote_model_ptd", "MOTE_MODEL_PTD_SECTION",
                                                           ".mote_model.ptd", ptd, align=16))
    (tmp_path / "mote_model.h").write_text(
        "#define MOTE_MODEL_STATE_BYTES 65536\n#define MOTE_MODEL_ARENA0_BYTES 16\n#define MOTE_MODEL_SCRATCH_BYTES 0\n"
        f"#define MOTE_MODEL_PTD_BYTES {len(ptd)}u\n")
    (tmp_path / "main.c").write_text(EMBED_MAIN)
    exe = tmp_path / "app"
    xnn = host_build / "backends/xnnpack/libmote_backend_xnnpack.a"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", f"-I{root / 'runtime/include'}",
                    f"-I{root / 'runtime/embed'}", f"-I{tmp_path}", str(tmp_path / "main.c"),
                    str(root / "runtime/embed/mote_model.c"), str(tmp_path / "model_pte.c"),
                    str(tmp_path / "model_ptd.c"), str(root / "tests/runtime/app_host_port.c"),
                    f"-I{root / 'ports/cortex-m'}", "-Wl,--start-group", str(host_build / "runtime/libmote_runtime.a"),
                    str(host_build / "kernels/libmote_kernels.a"), *([str(xnn), "-lXNNPACK"] if xnn.exists() else []),
                    "-Wl,--end-group", "-lm", "-o", str(exe)], check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout.strip()
    assert out == ("MOTE_OK" if in_order else "MOTE_ERR_UNSUPPORTED")
