"""Init's write proof: no program that passes init writes the program or outside its arenas.

Every check runs in the ASan + UBSan loader_check with the program in read-only pages
(tests/runtime/loader_check.c): a write into the program exits with status 3, an arena
overrun is an ASan report; either fails run_checker.
"""
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import _harness as H
import _synth as S

#: /work/shared/repro (beside the clone; read-only in CI): file -> (code, stage)
REPRO = {
    "move_view_oob_read.pte": "ALIAS_MISMATCH",     # MoveCall 8-byte tensor into a 24-byte value, viewed as 24
    "move_view_oob_write.pte": "ALIAS_MISMATCH",
    "input_is_constant.pte": "INPUT_NOT_WRITABLE",  # plan.inputs[0] is the conv weight constant
    "fuzz_setinput_writes_program_smallest.pte": "INPUT_NOT_WRITABLE",
    "bn_out1_const.pte": "OUTPUT_NOT_WRITABLE",     # batch norm's save_mean out argument is a constant
    "jump_self_forever.pte": "BACKWARD_JUMP",       # a JumpFalseCall to itself: execute never returned
}
#: reproducers that need the XNNPACK backend (in mote-run and the host library, not in loader_check)
REPRO_XNNPACK = {
    # two nodes of the payload write one value: Debian's XNNPACK asserted (producer == XNN_INVALID_NODE_ID)
    "xnn_two_producers_min.pte": "BACKEND_PAYLOAD",
}


@pytest.fixture(scope="module")
def checker(asan_build):
    """loader_check with the test kernels (add, mul, relu)."""
    return asan_build / "tests" / "runtime" / "loader_check"


@pytest.fixture(scope="module")
def checker_all(asan_build):
    """loader_check with every kernel of kernels/ (zoo-made programs)."""
    return asan_build / "tests" / "runtime" / "loader_check_all"


def _one(exe, data: bytes, tmp_path, name="p.pte"):
    f = tmp_path / name
    f.write_bytes(data)
    res = H.run_checker(exe, [f], "--run")
    assert res[-1] == ["heap_calls", "0"]
    return res[0]


# ------------------------------------------------------------------ read-only program pages

@pytest.mark.parametrize("which", ["loader_check", "loader_check_all"])
def test_program_pages_really_are_read_only(which, asan_build, host_build, tmp_path):
    """--write-probe writes one byte of the mapped program: the checker must die with its
    own fault status (3), in the ASan build and in the plain one."""
    f = tmp_path / "p.pte"
    f.write_bytes(S.build())
    for build in (asan_build, host_build):
        exe = build / "tests" / "runtime" / which
        r = subprocess.run([str(exe), "--write-probe", str(f)], capture_output=True, text=True, timeout=60,
                           env=H.checker_env())
        assert r.returncode == 3, (build, r.returncode, r.stdout, r.stderr[-2000:])
        assert r.stdout.strip() == "PROGRAM_WRITE_FAULT"
        assert "PROGRAM_WRITABLE" not in r.stdout
        # without the probe the same file loads, initialises and runs
        assert H.run_checker(exe, [f], "--run")[0] == ["0", "MOTE_OK", "ok"]


# ------------------------------------------------------------------ the reproducers

def test_repro_dir_present():
    assert sorted(p.name for p in H.REPRO.glob("*.pte")) == sorted({**REPRO, **REPRO_XNNPACK})
    if H.SHARED_REPRO.is_dir():  # a working clone beside the shared folder: the copies match
        for name in {**REPRO, **REPRO_XNNPACK}:
            assert (H.REPRO / name).read_bytes() == (H.SHARED_REPRO / name).read_bytes(), name


@pytest.mark.parametrize("name", sorted(REPRO))
def test_repro_rejected_at_init(name, checker_all, tmp_path):
    src = H.REPRO / name
    assert src.is_file(), f"{src} missing"
    local = tmp_path / name
    shutil.copyfile(src, local)  # the shared copy stays untouched (read-only in CI)
    want = REPRO[name]
    res = H.run_checker(checker_all, [local], "--run")
    assert res[0] == [str(H.E[want]), f"MOTE_ERR_{want}", "init"], res
    assert res[-1] == ["heap_calls", "0"]


def test_repro_rejected_by_mote_run(host_build, tmp_path):
    """The shipped CLI (every kernel) names the code at init and exits, within the timeout."""
    exe = host_build / "ports" / "linux" / "mote-run"
    for name, want in {**REPRO, **REPRO_XNNPACK}.items():
        local = tmp_path / name
        shutil.copyfile(H.REPRO / name, local)
        r = subprocess.run([str(exe), str(local)], capture_output=True, text=True, timeout=60)
        line = f"init: MOTE_ERR_{want} ({H.E[want]})"
        if name.startswith("fuzz_"):  # mote-run looks the method up by name first; the fuzzer broke a string
            line = "method: MOTE_ERR_BAD_VECTOR" if "method:" in r.stderr else line
        assert r.returncode == 2 and f"mote-run: {local}: {line}" in r.stderr, (name, r.stderr)


def test_repro_rejected_by_the_host_library(host_build):
    """The Python binding (libmote.so, every kernel) refuses them with the same codes."""
    from aot.host import runtime as rt

    for name, want in {**REPRO, **REPRO_XNNPACK}.items():
        with pytest.raises(rt.MoteError) as e:
            rt.Program((H.REPRO / name).read_bytes()).method()
        if name.startswith("fuzz_"):
            # the binding looks the method up by name first, and the fuzzer also broke a string
            assert e.value.name in ("MOTE_ERR_BAD_VECTOR", f"MOTE_ERR_{want}"), e.value.name
        else:
            assert e.value.code == H.E[want], (name, e.value.name)


# ------------------------------------------------------------------ synthetic programs (test kernels)

def _spec(**changes):
    import copy
    s = copy.deepcopy(S.default_spec())
    for key, fn in changes.items():
        fn(s[key]) if callable(fn) else s.__setitem__(key, fn)
    return s


def _const_spec():
    """y = relu(x) + c; c is a program constant (legacy Program.constant_buffer index 1).
    Values: 0 x (input, arena 0), 1 c (constant [2,3]), 2 alpha, 3 r (arena 32), 4 y (arena 64),
    5 s (arena 96, [2] f32), 6 i (int), 7 t ([2,3] int32, arena 104), 8 list [r, c], 9 v (unplanned
    [3,2]: an et_view output, None in programs without a view), 10 int list (1, 2)."""
    c = np.arange(6, dtype=np.float32).reshape(2, 3)
    spec = S.default_spec()
    spec["values"] = [
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 0))),
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=None, buffer=1)),
        (S.INT, 1),
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 32))),
        (S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 64))),
        (S.TENSOR, dict(dtype=S.F32, sizes=[2], mem=(1, 96))),
        (S.INT, 2),
        (S.TENSOR, dict(dtype=3, sizes=[2, 3], mem=(1, 104))),
        (S.TENSOR_LIST, [3, 1]),
        (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=None)),
        (S.INT_LIST, [2, 6]),
    ]
    spec["instrs"] = [(S.KERNEL, dict(op=1, args=[0, 3, 3])), (S.KERNEL, dict(op=2, args=[3, 1, 2, 4, 4]))]
    spec["outputs"] = [4]
    spec["buffer_sizes"] = [0, 128]
    spec["constant_buffer"] = [b"", c.tobytes()]
    return spec, c


def _with(instrs=None, **keys):
    spec, _ = _const_spec()
    if instrs is not None:
        spec["instrs"] = instrs
    if not any(tag == S.KERNEL and a["op"] == 0 and a["args"][2] == 9 for tag, a in spec["instrs"]):
        spec["values"][9] = (S.NULL, None)  # no et_view gives v storage
    spec.update(keys)
    return spec


RELU, ADD, VIEW = (S.KERNEL, 1), (S.KERNEL, 2), (S.KERNEL, 0)


def _k(op, args):
    return (op[0], dict(op=op[1], args=args))


MOVE = S.MOVE
WRITE_CASES = [
    # MoveCall: only same-kind, same-size values; tensors never constants
    ("move_smaller_tensor", [(MOVE, dict(src=5, dst=0)), _k(RELU, [0, 3, 3])], "ALIAS_MISMATCH"),
    ("move_larger_tensor", [(MOVE, dict(src=0, dst=5)), _k(RELU, [0, 3, 3])], "ALIAS_MISMATCH"),
    ("move_other_dtype", [(MOVE, dict(src=7, dst=3)), _k(RELU, [0, 3, 3])], "ALIAS_MISMATCH"),
    ("move_constant_in", [(MOVE, dict(src=1, dst=3)), _k(RELU, [0, 3, 3])], "ALIAS_NOT_WRITABLE"),
    ("move_onto_constant", [(MOVE, dict(src=3, dst=1)), _k(RELU, [0, 3, 3])], "ALIAS_NOT_WRITABLE"),
    ("move_int_into_tensor", [(MOVE, dict(src=2, dst=3)), _k(RELU, [0, 3, 3])], "BAD_VALUE_TYPE"),
    ("move_tensor_list", [(MOVE, dict(src=8, dst=8)), _k(RELU, [0, 3, 3])], "BAD_VALUE_TYPE"),
    # et_view: input and output never constants, same dtype and bytes
    ("view_of_constant", [_k(VIEW, [1, 10, 9]), _k(RELU, [9, 3, 3])], "ALIAS_NOT_WRITABLE"),
    ("view_onto_constant", [_k(VIEW, [0, 10, 1]), _k(RELU, [0, 3, 3])], "ALIAS_NOT_WRITABLE"),
    ("view_larger_than_input", [_k(VIEW, [5, 10, 9]), _k(RELU, [9, 3, 3])], "ALIAS_MISMATCH"),
    # kernel out arguments: never constants, always tensors
    ("out_is_constant", [_k(RELU, [0, 1, 1])], "OUTPUT_NOT_WRITABLE"),
    ("out_is_constant_no_return", [_k(RELU, [0, 1])], "OUTPUT_NOT_WRITABLE"),
    ("out_is_an_int", [_k(RELU, [0, 2])], "OUTPUT_NOT_WRITABLE"),
    ("out_list_holds_constant", [_k(RELU, [0, 8])], "OUTPUT_NOT_WRITABLE"),
]


@pytest.mark.parametrize("case", WRITE_CASES, ids=[c[0] for c in WRITE_CASES])
def test_write_outside_planned_memory_is_refused(case, checker, testk_lib, tmp_path):
    name, instrs, want = case
    data = S.build(_with(instrs))
    assert _one(checker, data, tmp_path) == [str(H.E[want]), f"MOTE_ERR_{want}", "init"]


def test_input_that_is_a_constant(checker, tmp_path):
    data = S.build(_with(inputs=[1]))
    assert _one(checker, data, tmp_path) == [str(H.E["INPUT_NOT_WRITABLE"]), "MOTE_ERR_INPUT_NOT_WRITABLE", "init"]


ALLOWED = [
    # same-size moves and scalar moves; a view into a planned tensor of its size; int-list args
    ("move_same_size", [_k(RELU, [0, 3, 3]), (MOVE, dict(src=3, dst=4))], [np.maximum(np.arange(-3, 3.0), 0)]),
    ("move_scalar", [(MOVE, dict(src=6, dst=2)), _k(RELU, [0, 3, 3]), _k(ADD, [3, 1, 2, 4, 4])],
     [np.maximum(np.arange(-3, 3.0), 0) + 2 * np.arange(6.0)]),
    ("view_into_planned", [_k(VIEW, [0, 10, 3]), _k(RELU, [3, 4, 4])], [np.maximum(np.arange(-3, 3.0), 0)]),
]


@pytest.mark.parametrize("case", ALLOWED, ids=[c[0] for c in ALLOWED])
def test_safe_aliasing_still_runs(case, checker, testk_lib, tmp_path):
    from aot.host import runtime as rt

    name, instrs, want = case
    data = S.build(_with(instrs))
    assert _one(checker, data, tmp_path) == ["0", "MOTE_OK", "ok"]
    (y,) = rt.Program(data, library=testk_lib).method().run([np.arange(-3, 3, dtype=np.float32).reshape(2, 3)])
    np.testing.assert_array_equal(y.reshape(-1), np.asarray(want[0], np.float32))


# ------------------------------------------------------------------ multi-output kernels (full registry)

def _pool_spec(out_const: int):
    """max_pool2d_with_indices.out(x, [2,2], [2,2], [0,0], [1,1], False, out, indices): 2 out arguments.
    out_const: 0 none, 1 `out` (not the last argument) is a constant, 2 `indices` is."""
    spec = S.default_spec()
    out = dict(dtype=S.F32, sizes=[1, 1, 1, 1], mem=(1, 16))
    idx = dict(dtype=4, sizes=[1, 1, 1, 1], mem=(1, 32))
    blobs = [b""]
    if out_const == 1:
        out = dict(dtype=S.F32, sizes=[1, 1, 1, 1], mem=None, buffer=1)
        blobs.append(np.zeros(1, np.float32).tobytes())
    if out_const == 2:
        idx = dict(dtype=4, sizes=[1, 1, 1, 1], mem=None, buffer=1)
        blobs.append(np.zeros(1, np.int64).tobytes())
    spec["values"] = [
        (S.TENSOR, dict(dtype=S.F32, sizes=[1, 1, 2, 2], mem=(1, 0))),  # 0 x
        (S.INT, 2), (S.INT, 0), (S.INT, 1),                              # 1..3
        (S.INT_LIST, [1, 1]), (S.INT_LIST, [1, 1]), (S.INT_LIST, [2, 2]), (S.INT_LIST, [3, 3]),  # 4..7
        (S.BOOL, False),                                                  # 8
        (S.TENSOR, out),                                                  # 9 out
        (S.TENSOR, idx),                                                  # 10 indices
        (S.TENSOR_LIST, [9, 10]),                                         # 11 the returned pair
    ]
    spec["instrs"] = [(S.KERNEL, dict(op=0, args=[0, 4, 5, 6, 7, 8, 9, 10, 11]))]
    spec["ops"] = [("aten::max_pool2d_with_indices", "out")]
    spec["outputs"] = [9, 10]
    spec["buffer_sizes"] = [0, 64]
    if len(blobs) > 1:
        spec["constant_buffer"] = blobs
    return spec


@pytest.mark.parametrize("out_const,want", [(0, "OK"), (1, "OUTPUT_NOT_WRITABLE"), (2, "OUTPUT_NOT_WRITABLE")])
def test_every_out_argument_of_a_multi_output_kernel(out_const, want, checker_all, tmp_path):
    res = _one(checker_all, S.build(_pool_spec(out_const)), tmp_path)
    if want == "OK":
        assert res == ["0", "MOTE_OK", "ok"]
    else:
        assert res == [str(H.E[want]), f"MOTE_ERR_{want}", "init"]


def test_multi_output_kernel_runs(host_build):
    from aot.host import runtime as rt

    x = np.array([1.0, 7.0, -2.0, 3.0], np.float32).reshape(1, 1, 2, 2)
    out, idx = rt.Program(S.build(_pool_spec(0))).method().run([x])
    assert out.reshape(-1).tolist() == [7.0] and idx.reshape(-1).tolist() == [1]


# ------------------------------------------------------------------ the registry's out counts

def test_registry_out_counts_match_operator_schemas():
    """MOTE_KERNEL_OUTPUTS markers (the only place that says what a kernel writes) agree with
    each operator's schema: its mutable (out) arguments are exactly its last n arguments."""
    import torch
    import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  registers dim_order_ops

    sys.path.insert(0, str(H.ROOT / "kernels"))
    try:
        import gen_registry
    finally:
        sys.path.pop(0)
    try:
        import aot.compiler.mote_ops  # noqa: F401  registers mote:: ops
    except ImportError:
        pass
    found = gen_registry.scan_outputs(H.ROOT / "kernels")
    checked = {}
    for op, (_src, n) in found.items():
        ns, rest = op.split("::")
        name, overload = rest.split(".")
        try:
            schema = getattr(getattr(getattr(torch.ops, ns), name), overload)._schema
        except (AttributeError, RuntimeError):
            continue
        args = schema.arguments
        outs = [i for i, a in enumerate(args) if a.alias_info is not None and a.alias_info.is_write]
        if name.endswith("_"):
            # in place: the schema writes self; the runtime proves writable the alias of
            # self that the KernelCall appends (its one "output"), and the kernel refuses
            # a call where that alias is not self's storage
            assert outs == [0] and n == 1, (op, n, [a.name for a in args])
            checked[op] = n
            continue
        assert outs == list(range(len(args) - n, len(args))), (op, n, [a.name for a in args])
        checked[op] = n
    assert checked["aten::_native_batch_norm_legit_no_training.out"] == 3
    assert checked["aten::max_pool2d_with_indices.out"] == 2
    assert checked["aten::relu.out"] == 1
    assert len(checked) >= 40, sorted(set(found) - set(checked))
    # the committed registry carries the same counts
    text = (H.ROOT / "kernels" / "registry_all.c").read_text()
    table = re.findall(r"^\s+(\d+)u, /\* (\S+) \*/$", text, re.M)
    assert {op: int(n) for n, op in table} == {op: n for op, (_s, n) in found.items()}
