"""Named-data lookup in a .ptd (runtime/src/data_map.c): a binary search when the keys are
strictly increasing (checked once at load), a scan otherwise; counted in key comparisons
(mote_data_map_find_counted), never timed."""
import ctypes as C
import math

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
