"""Hand-built programs (tests/runtime/_synth.py): et_view, jumps, moves, frees, every value kind,
and the verifier's checks on them (ASan + UBSan checker and the Python binding)."""
import copy

import numpy as np
import pytest

import _harness as H
import _synth as S
from aot.host import runtime as rt

X = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
RELU_V = np.maximum(X, 0).reshape(3, 2)


def _spec(**changes):
    s = copy.deepcopy(S.default_spec())
    for key, fn in changes.items():
        fn(s[key]) if callable(fn) else s.__setitem__(key, fn)
    return s


def test_view_jump_move_free(testk_lib):
    m = rt.Program(S.build(), library=testk_lib).method()
    y, z, w = m.run([X])
    np.testing.assert_array_equal(y, RELU_V)          # relu over the et_view alias of x
    np.testing.assert_array_equal(z, np.zeros((3, 2), np.float32))  # instruction 3 jumped over
    np.testing.assert_array_equal(w, RELU_V)          # MoveCall: w names y's tensor


def test_jump_not_taken(testk_lib):
    spec = _spec(values=lambda v: v.__setitem__(6, (S.BOOL, True)))
    _, z, _ = rt.Program(S.build(spec), library=testk_lib).method().run([X])
    np.testing.assert_array_equal(z, 4 * RELU_V)      # add.out(y, y, alpha=3)


def test_jump_to_the_end(testk_lib):
    """The furthest forward jump (destination num_instrs) ends execute: add, Free and Move skipped."""
    spec = _spec(instrs=_instr(2, (S.JUMP_FALSE, dict(cond=6, dest=6))))
    y, z, w = rt.Program(S.build(spec), library=testk_lib).method().run([X])
    np.testing.assert_array_equal(y, RELU_V)
    np.testing.assert_array_equal(z, np.zeros((3, 2), np.float32))
    np.testing.assert_array_equal(w, np.zeros((3, 2), np.float32))  # no MoveCall: w keeps its own tensor


def test_requirements_count_every_region(testk_lib):
    p = rt.Program(S.build(), library=testk_lib)
    req = p.requirements()
    assert req.arena_sizes == (128,)
    # 16 values (24 B), 5 tensors (40 B), 2 ints (8 B), 5 tensor pointers (8 B),
    # 6 instructions (40 B: kind, a, b, scratch size, fn, args, scratch), 11 kernel-argument pointers (8 B); each region 8-aligned
    assert req.state_size == 16 * 24 + 5 * 40 + 2 * 8 + 5 * 8 + 6 * 40 + 11 * 8
    with pytest.raises(rt.MoteError) as e:
        p.method(state_size=req.state_size - 1)
    assert e.value.name == "MOTE_ERR_MEMORY_TOO_SMALL"


def _instr(i, new):
    return lambda ins: ins.__setitem__(i, new)


def _value(i, new):
    return lambda vals: vals.__setitem__(i, new)


BAD = [
    ("jump_past_end", dict(instrs=_instr(2, (S.JUMP_FALSE, dict(cond=6, dest=7)))), "BAD_INSTRUCTION", "init"),
    # a jump to itself or back: a loop, refused so execute runs at most num_instrs instructions
    ("jump_to_itself", dict(instrs=_instr(2, (S.JUMP_FALSE, dict(cond=6, dest=2)))), "BACKWARD_JUMP", "init"),
    ("jump_backward", dict(instrs=_instr(2, (S.JUMP_FALSE, dict(cond=6, dest=0)))), "BACKWARD_JUMP", "init"),
    ("jump_cond_index", dict(instrs=_instr(2, (S.JUMP_FALSE, dict(cond=99, dest=4)))), "BAD_INDEX", "init"),
    ("jump_cond_not_bool", dict(instrs=_instr(2, (S.JUMP_FALSE, dict(cond=1, dest=4)))), "BAD_VALUE_TYPE",
     "execute"),
    ("unplanned_input", dict(values=_value(0, (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=None))),
                             instrs=_instr(0, (S.KERNEL, dict(op=1, args=[0, 11, 11])))),
     "UNSUPPORTED", "init"),
    # delegate 0 of a plan with no delegates table
    ("delegate", dict(instrs=_instr(1, (S.DELEGATE, dict(op=0, args=[4, 5])))), "BAD_INDEX", "init"),
    ("move_index", dict(instrs=_instr(5, (S.MOVE, dict(src=5, dst=16)))), "BAD_INDEX", "init"),
    ("free_index", dict(instrs=_instr(4, (S.FREE, dict(value=-1)))), "BAD_INDEX", "init"),
    ("unplanned_not_a_view", dict(instrs=_instr(0, (S.KERNEL, dict(op=1, args=[0, 11])))), "BAD_ALLOCATION",
     "init"),
    ("view_size_mismatch", dict(values=_value(4, (S.TENSOR, dict(dtype=S.F32, sizes=[4, 2], mem=None)))),
     "ALIAS_MISMATCH", "init"),
    ("view_wrong_arity", dict(instrs=_instr(0, (S.KERNEL, dict(op=0, args=[0, 4])))), "BAD_INSTRUCTION", "init"),
    ("int_list_names_tensor", dict(values=_value(3, (S.INT_LIST, [1, 0]))), "BAD_VALUE_TYPE", "init"),
    ("int_list_index", dict(values=_value(3, (S.INT_LIST, [1, 99]))), "BAD_INDEX", "init"),
    ("tensor_list_names_int", dict(values=_value(8, (S.TENSOR_LIST, [0, 1]))), "BAD_VALUE_TYPE", "init"),
    ("tensor_list_none", dict(values=_value(8, (S.TENSOR_LIST, [0, -1]))), "BAD_INDEX", "init"),
    ("opt_tensor_list_index", dict(values=_value(9, (S.OPT_TENSOR_LIST, [-2]))), "BAD_INDEX", "init"),
    ("bool_list_not_bool", dict(values=_value(15, (S.BOOL_LIST, [2]))), "BAD_VALUE_TYPE", "init"),
    ("dtype_complex", dict(values=_value(10, (S.TENSOR, dict(dtype=9, sizes=[3, 2], mem=(1, 64))))),
     "BAD_DTYPE", "init"),
    ("rank_9", dict(values=_value(10, (S.TENSOR, dict(dtype=S.F32, sizes=[1] * 9, mem=(1, 64))))),
     "BAD_SHAPE", "init"),
    ("dim_order_repeat", dict(values=_value(10, (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], dim_order=[1, 1],
                                                                 mem=(1, 64))))), "BAD_SHAPE", "init"),
    ("offset_high_bits", dict(values=_value(10, (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=(1, 1 << 32))))),
     "BAD_ALLOCATION", "init"),
    ("memory_id_zero", dict(values=_value(10, (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=(0, 64))))),
     "BAD_ALLOCATION", "init"),
    ("constant_without_constants", dict(values=_value(10, (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=None,
                                                                           buffer=1)))), "BAD_INDEX", "init"),
    ("too_many_arenas", dict(buffer_sizes=[0, 128, 16, 16, 16, 16]), "UNSUPPORTED", "requirements"),
    ("output_index", dict(outputs=[5, 16]), "BAD_INDEX", "init"),
    ("op_not_found", dict(ops=[("executorch_prim::et_view", "default"), ("aten::relu", "out"),
                               ("aten::sub", "out")]), "OP_NOT_FOUND", "init"),
    ("kernel_rejects_args", dict(instrs=_instr(3, (S.KERNEL, dict(op=2, args=[5, 5, 13, 10, 10]))),
                                 values=_value(6, (S.BOOL, True))), "KERNEL_ARGS", "execute"),
]


@pytest.fixture(scope="module")
def asan_checker(asan_build):
    return asan_build / "tests" / "runtime" / "loader_check"


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_program(case, asan_checker, testk_lib, tmp_path):
    name, changes, want, stage = case
    data = S.build(_spec(**changes))
    f = tmp_path / f"{name}.pte"
    f.write_bytes(data)
    assert H.run_checker(asan_checker, [f], "--run")[0] == [str(H.E[want]), f"MOTE_ERR_{want}", stage]
    # the Python binding reports the same code by name
    with pytest.raises(rt.MoteError) as e:
        rt.Program(data, library=testk_lib).method().run([X])
    assert e.value.name == f"MOTE_ERR_{want}" and e.value.code == H.E[want]


def test_input_that_is_not_a_tensor(testk_lib):
    m = rt.Program(S.build(_spec(inputs=[1])), library=testk_lib).method()
    with pytest.raises(rt.MoteError) as e:
        m.set_input(0, X)
    assert e.value.name == "MOTE_ERR_BAD_VALUE_TYPE"


def _legacy_spec(blob_bytes):
    """y = relu(x) + c with c in the legacy Program.constant_buffer (index 1; 0 is reserved)."""
    c = np.arange(6, dtype=np.float32).reshape(2, 3)
    spec = S.default_spec()
    spec["values"] = [
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 0))),     # 0 x
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=None, buffer=1)),  # 1 c (constant)
        (S.INT, 1),                                                  # 2 alpha
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 32))),    # 3 r
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 64))),    # 4 y
    ]
    spec["instrs"] = [(S.KERNEL, dict(op=1, args=[0, 3, 3])), (S.KERNEL, dict(op=2, args=[3, 1, 2, 4, 4]))]
    spec["outputs"] = [4]
    spec["constant_buffer"] = [b"", c.tobytes()[:blob_bytes]]
    return spec, c


def test_legacy_constant_buffer(testk_lib):
    spec, c = _legacy_spec(24)
    (y,) = rt.Program(S.build(spec), library=testk_lib).method().run([X])
    np.testing.assert_array_equal(y, np.maximum(X, 0) + c)


def test_legacy_constant_buffer_too_short(testk_lib, asan_checker, tmp_path):
    spec, _ = _legacy_spec(20)
    f = tmp_path / "short.pte"
    f.write_bytes(S.build(spec))
    assert H.run_checker(asan_checker, [f], "--run")[0] == ["-210", "MOTE_ERR_DATA_TOO_SHORT", "init"]


def test_kernel_output_into_constant_is_rejected(testk_lib, asan_checker, tmp_path):
    spec, _ = _legacy_spec(24)
    spec["instrs"][0] = (S.KERNEL, dict(op=1, args=[0, 1, 1]))  # relu.out(x, out=c): c is in the program
    f = tmp_path / "const_out.pte"
    f.write_bytes(S.build(spec))
    assert H.run_checker(asan_checker, [f], "--run")[0] == ["-251", "MOTE_ERR_OUTPUT_NOT_WRITABLE", "init"]
