"""Malformed programs: each corruption gives its specific error code, under ASan + UBSan."""
import struct

import pytest

import _harness as H

pytestmark = pytest.mark.oracle  # the base file comes from executorch's serializer


def _u64(fb, p, v):
    struct.pack_into("<Q", fb.d, p, v)


def _const_tensor(fb):
    """First tensor with data in the constant segment and rank >= 1."""
    for i in fb.tensors():
        t = fb.value_table(i)
        if fb.field(t, 5) is not None and fb.vec(t, 2)[2] >= 1:
            return t
    raise AssertionError("no constant tensor")


def _planned(fb, with_offset=False):
    for i in fb.tensors():
        t = fb.value_table(i)
        if fb.field(t, 6) is not None:
            a = fb.sub(t, 6)
            if not with_offset or fb.field(a, 1) is not None:
                return t, a
    raise AssertionError("no planned tensor")


def _kernel_call(fb, with_op_index=True):
    for k in range(64):
        ins = fb.instruction(k)
        call = fb.sub(ins, 1)
        if not with_op_index or fb.field(call, 0) is not None:
            return ins, call
    raise AssertionError("no kernel call")


def _set_sizes0(fb, v):
    t = _const_tensor(fb)
    fb.put_i32(fb.vec(t, 2)[1], v)


def _set_planned_sizes0(fb, v):
    t, _ = _planned(fb)
    fb.put_i32(fb.vec(t, 2)[1], v)


def _bad_dim_order(fb):
    t, _ = _planned(fb)
    p = fb.vec(t, 3)[1]
    fb.d[p] = fb.d[p + 1]


def _rank_too_big(fb):
    t, _ = _planned(fb)
    fb.put_u32(fb.vec(t, 2)[0], 9)


def _op_name_unterminated(fb):
    ops_len, first, n = fb.vec(fb.plan(), 6)
    op = fb.vec_table(fb.plan(), 6, 0)
    lp, p, ln = fb.vec(op, 0)
    fb.d[p + ln] = ord("x")


# (id, mutation(fb), expected error, stage)
CASES = [
    ("identifier", lambda fb: fb.d.__setitem__(slice(4, 8), b"ET99"), "BAD_IDENTIFIER", "load"),
    ("eh00_length", lambda fb: fb.put_u32(12, 8), "BAD_HEADER", "load"),
    ("eh00_program_size_small", lambda fb: _u64(fb, 16, 16), "BAD_HEADER", "load"),
    ("eh00_program_size_past_end", lambda fb: _u64(fb, 16, len(fb.d) + 64), "TRUNCATED", "load"),
    ("eh00_segment_base_inside_program", lambda fb: _u64(fb, 24, 64), "BAD_HEADER", "load"),
    ("eh00_segment_size_past_end", lambda fb: _u64(fb, 32, 1 << 40), "TRUNCATED", "load"),
    ("root_offset_out_of_range", lambda fb: fb.put_u32(0, 0x7FFFFFF0), "BAD_OFFSET", "load"),
    ("root_offset_misaligned", lambda fb: fb.put_u32(0, fb.u32(0) + 2), "BAD_ALIGNMENT", "load"),
    ("root_vtable_out_of_range", lambda fb: fb.put_i32(fb.root()[0], -0x10000000), "BAD_VTABLE", "load"),
    ("plans_huge_count", lambda fb: fb.put_u32(fb.vec(fb.root(), 1)[0], 0x7FFFFFFF), "BAD_VECTOR", "load"),
    ("segments_huge_count", lambda fb: fb.put_u32(fb.vec(fb.root(), 4)[0], 0x20000000), "BAD_VECTOR", "load"),
    ("segment_size_past_data", lambda fb: _u64(fb, fb.field(fb.vec_table(fb.root(), 4, 0), 1), 1 << 20),
     "BAD_SEGMENT", "load"),
    ("values_huge_count", lambda fb: fb.put_u32(fb.vec(fb.plan(), 2)[0], 0x40000000), "BAD_VECTOR",
     "requirements"),
    ("value_union_tag", lambda fb: fb.d.__setitem__(fb.field(fb.value(0), 0), 12), "BAD_UNION_TAG",
     "requirements"),
    ("instruction_union_tag", lambda fb: fb.d.__setitem__(fb.field(fb.instruction(0), 0), 9), "BAD_UNION_TAG",
     "requirements"),
    # a DelegateCall naming a delegate the plan's (empty) delegates table lacks
    ("delegate_call", lambda fb: fb.d.__setitem__(fb.field(fb.instruction(0), 0), 2), "BAD_INDEX", "init"),
    ("constant_shorter_than_sizes", lambda fb: _set_sizes0(fb, 1000), "DATA_TOO_SHORT", "init"),
    ("constant_offset_past_segment",
     lambda fb: _u64(fb, fb.vec(fb.sub(fb.root(), 5), 1)[1] + 8, 1 << 32), "DATA_TOO_SHORT", "init"),
    ("constant_buffer_index", lambda fb: fb.put_u32(fb.field(_const_tensor(fb), 5), 99), "BAD_INDEX", "init"),
    ("memory_id", lambda fb: fb.put_u32(fb.field(_planned(fb)[1], 0), 7), "BAD_ALLOCATION", "init"),
    ("memory_offset", lambda fb: fb.put_u32(fb.field(_planned(fb, True)[1], 1), 0x10000), "BAD_ALLOCATION",
     "init"),
    ("memory_offset_misaligned", lambda fb: fb.put_u32(fb.field(_planned(fb, True)[1], 1),
                                                       fb.u32(fb.field(_planned(fb, True)[1], 1)) - 2),
     "BAD_ALIGNMENT", "init"),
    ("negative_size", lambda fb: _set_planned_sizes0(fb, -1), "BAD_SHAPE", "init"),
    ("numel_overflow", lambda fb: _set_planned_sizes0(fb, 0x7FFFFFFF), "SIZE_OVERFLOW", "init"),
    ("planned_past_arena", lambda fb: _set_planned_sizes0(fb, 1000), "BAD_ALLOCATION", "init"),
    ("dim_order_not_permutation", _bad_dim_order, "BAD_SHAPE", "init"),
    ("rank_too_big", _rank_too_big, "BAD_SHAPE", "init"),
    ("dtype", lambda fb: fb.d.__setitem__(fb.field(_planned(fb)[0], 0), 9), "BAD_DTYPE", "init"),
    ("kernel_arg_index", lambda fb: fb.put_u32(fb.vec(_kernel_call(fb, False)[1], 1)[1], 9999), "BAD_INDEX",
     "init"),
    ("op_index", lambda fb: fb.put_u32(fb.field(_kernel_call(fb)[1], 0), 99), "BAD_INDEX", "init"),
    ("input_index", lambda fb: fb.put_u32(fb.vec(fb.plan(), 3)[1], 9999), "BAD_INDEX", "init"),
    ("operator_name_unterminated", _op_name_unterminated, "BAD_VECTOR", "init"),
    ("arena_size_negative", lambda fb: _u64(fb, fb.vec(fb.plan(), 8)[1] + 8, (1 << 64) - 16),
     "SIZE_OVERFLOW", "requirements"),
]



@pytest.fixture(scope="module")
def checker(asan_build):
    return asan_build / "tests" / "runtime" / "loader_check"


@pytest.fixture(scope="module")
def base(pte):
    return pte("const_mul").read_bytes()


def test_base_file_is_valid(checker, base, tmp_path):
    (tmp_path / "ok.pte").write_bytes(base)
    assert H.run_checker(checker, [tmp_path / "ok.pte"], "--run")[0] == ["0", "MOTE_OK", "ok"]


def test_truncation_at_every_64_bytes(checker, base, tmp_path):
    files = []
    for n in list(range(0, len(base), 64)) + [len(base) - 1]:
        f = tmp_path / f"trunc{n}.pte"
        f.write_bytes(base[:n])
        files.append(f)
    res = H.run_checker(checker, files)
    assert len(res) == len(files) + 1
    for f, r in zip(files, res):
        assert r == [str(H.E["TRUNCATED"]), "MOTE_ERR_TRUNCATED", "load"], (f.name, r)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_corruption_gives_specific_error(case, checker, base, tmp_path):
    name, mutate, want, stage = case
    fb = H.FB(bytearray(base))
    mutate(fb)
    assert bytes(fb.d) != base
    f = tmp_path / f"{name}.pte"
    f.write_bytes(bytes(fb.d))
    res = H.run_checker(checker, [f], "--run")
    assert res[0] == [str(H.E[want]), f"MOTE_ERR_{want}", stage], res


def test_corruption_in_a_slot_gives_the_same_error(asan_build, base, tmp_path):
    """Each corrupted program above, arriving in a model slot (packed with valid CRC-32s,
    runtime/embed/mote_slot.c under ASan + UBSan): the same specific error as when loaded
    directly; the slot's reserve is large, so only the program decides."""
    from aot.deploy.slot import pack_image
    exe = asan_build / "tests" / "fuzz" / "fuzz_slot"
    files, want = [], []
    for name, mutate, err, _stage in CASES:
        fb = H.FB(bytearray(base))
        mutate(fb)
        f = tmp_path / f"{name}.img"
        f.write_bytes(pack_image(bytes(fb.d)))
        files.append(f)
        want.append((name, f"MOTE_ERR_{err}"))
    lines = H.run_checker(exe, files, "--arena", str(1 << 20), "--state", str(1 << 20), "--mutable", "4096")
    assert len(lines) == len(CASES)
    got = [(name, ln[1]) for (name, _), ln in zip(want, lines)]
    assert got == want
    assert all(" ".join(ln[3:6]) == "MOTE ERROR slot" for ln in lines)
