"""Runtime core on ExecuTorch-made programs: parity with eager, I/O checks, exact memory, no heap."""
import subprocess

import numpy as np
import pytest
import torch

import _harness as H
from aot.host import runtime as rt

pytestmark = pytest.mark.oracle  # the .pte files come from executorch's serializer


def _eager(models, name):
    mod, ex = models[name]
    with torch.no_grad():
        out = mod(*ex)
    outs = out if isinstance(out, tuple) else (out,)
    return [o.numpy() for o in outs], [t.numpy() for t in ex]


def _max_rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-6)))


@pytest.mark.parametrize("name", ["add_relu", "const_mul", "view_chain"])
def test_parity_with_eager(name, pte, models, testk_lib):
    want, inputs = _eager(models, name)
    m = rt.Program(pte(name), library=testk_lib).method("forward")
    got = m.run(inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np.float32 and g.shape == w.shape
        err = _max_rel(g, w)
        print(f"{name}: max relative error {err:.3g}")
        assert err <= 1e-5
    # a second run with other inputs gives other (correct) results: nothing stale
    inputs2 = [np.full_like(x, 0.5) for x in inputs]
    mod, _ = models[name]
    with torch.no_grad():
        out2 = mod(*[torch.from_numpy(x) for x in inputs2])
    out2 = out2 if isinstance(out2, tuple) else (out2,)
    for g, w in zip(m.run(inputs2), out2):
        assert _max_rel(g, w.numpy()) <= 1e-5


def test_program_metadata(pte, testk_lib):
    p = rt.Program(pte("add_relu"), library=testk_lib)
    assert p.method_names == ["forward"]
    assert p.method_index("forward") == 0
    with pytest.raises(rt.MoteError) as e:
        p.method_index("backward")
    assert e.value.name == "MOTE_ERR_NO_SUCH_METHOD" and e.value.code == -106
    m = p.method()
    assert m.num_inputs == 2 and m.num_outputs == 1
    info = m.input_info(0)
    assert info.dtype == np.float32 and info.shape == (2, 3, 4) and info.nbytes == 96
    assert m.output_info(0).shape == (2, 3, 4)
    # the arena holds at least the two inputs and the output
    assert sum(m.requirements.arena_sizes) >= 2 * 96
    assert p.operator_name(0, 0) == "aten::add.out"


def test_input_checks(pte, testk_lib):
    m = rt.Program(pte("add_relu"), library=testk_lib).method()
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(rt.MoteError) as e:
        m.set_input(0, x.astype(np.float64))
    assert e.value.name == "MOTE_ERR_INPUT_DTYPE"
    with pytest.raises(rt.MoteError) as e:
        m.set_input(0, np.zeros((3, 2, 4), np.float32))
    assert e.value.name == "MOTE_ERR_INPUT_SHAPE"
    with pytest.raises(rt.MoteError) as e:
        m.set_input(0, np.zeros((2, 3), np.float32))
    assert e.value.name == "MOTE_ERR_INPUT_SHAPE"
    with pytest.raises(rt.MoteError) as e:
        m.set_input(2, x)
    assert e.value.name == "MOTE_ERR_INPUT_INDEX"


def test_requirements_are_exact(pte, testk_lib):
    p = rt.Program(pte("const_mul"), library=testk_lib)
    req = p.requirements()
    assert req.state_size > 0 and req.state_align == 8 and req.arena_align == 16
    with pytest.raises(rt.MoteError) as e:
        p.method(state_size=req.state_size - 1)
    assert e.value.name == "MOTE_ERR_MEMORY_TOO_SMALL"
    with pytest.raises(rt.MoteError) as e:
        p.method(arena_sizes=[s - 1 for s in req.arena_sizes])
    assert e.value.name == "MOTE_ERR_MEMORY_TOO_SMALL"
    m = p.method(state_size=req.state_size, arena_sizes=req.arena_sizes)
    x = np.ones((2, 3, 4), np.float32)
    assert m.run([x])[0].shape == (2, 3, 4)


def test_requirements_exact_under_asan(pte, asan_build):
    exe = asan_build / "tests" / "runtime" / "loader_check"
    f = pte("const_mul")
    assert H.run_checker(exe, [f], "--run", "--state-delta", "-1")[0][:3] == ["-101", "MOTE_ERR_MEMORY_TOO_SMALL", "init"]
    assert H.run_checker(exe, [f], "--run", "--state-delta", "0")[0][:3] == ["0", "MOTE_OK", "ok"]


def test_missing_operator_is_named(pte, testk_lib, tmp_path):
    data = bytearray(pte("add_relu").read_bytes())
    i = data.find(b"aten::relu")
    assert i > 0
    data[i:i + 10] = b"aten::rexu"
    p = rt.Program(bytes(data), library=testk_lib)
    with pytest.raises(rt.MoteError) as e:
        p.method()
    assert e.value.name == "MOTE_ERR_OP_NOT_FOUND"
    assert "aten::rexu.out" in str(e.value)


def test_no_heap_symbols(host_build, testk_lib):
    for lib in (host_build / "ports" / "linux" / "libmote.so", testk_lib):
        out = subprocess.run(["nm", "-D", "--undefined-only", str(lib)], capture_output=True, text=True,
                             check=True).stdout
        syms = {ln.split()[-1].split("@")[0] for ln in out.splitlines() if ln.strip()}
        assert not syms & {"malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign"}, syms
    lib_a = host_build / "runtime" / "libmote_runtime.a"
    out = subprocess.run(["nm", "-u", str(lib_a)], capture_output=True, text=True, check=True).stdout
    assert not {"malloc", "calloc", "realloc", "free"} & set(out.split())
    # the core needs nothing from libc: only its own symbols and the kernel registry
    undefined = {ln.split()[-1] for ln in out.splitlines() if ln.strip().startswith("U ")}
    foreign = {s for s in undefined if not s.startswith("mote_") and s not in ("_GLOBAL_OFFSET_TABLE_", "memcpy", "memset")}
    assert foreign == set(), foreign


def test_zero_heap_calls_load_init_execute(pte, host_build):
    exe = host_build / "tests" / "runtime" / "loader_check"
    res = H.run_checker(exe, [pte("const_mul"), pte("add_relu")], "--run")
    assert res[0][:3] == ["0", "MOTE_OK", "ok"] and res[1][:3] == ["0", "MOTE_OK", "ok"]
    assert res[-1] == ["heap_calls", "0"]


def test_mote_run_cli(pte, models, host_build, tmp_path):
    exe = host_build / "tests" / "runtime" / "mote_run_testk"
    want, inputs = _eager(models, "add_relu")
    paths = []
    for i, x in enumerate(inputs):
        paths.append(tmp_path / f"in{i}.npy")
        np.save(paths[-1], x)
    r = subprocess.run([str(exe), "-o", str(tmp_path / "out"), str(pte("add_relu")), *map(str, paths)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out0.npy")
    assert got.shape == want[0].shape and _max_rel(got, want[0]) <= 1e-5
    # wrong dtype input: runtime error code, exit status 2
    np.save(paths[0], inputs[0].astype(np.float64))
    r = subprocess.run([str(exe), "-o", str(tmp_path / "out"), str(pte("add_relu")), *map(str, paths)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "MOTE_ERR_INPUT_DTYPE" in r.stderr


def test_python_cli_npz(pte, models, testk_lib, tmp_path):
    want, inputs = _eager(models, "add_relu")
    np.savez(tmp_path / "in.npz", *inputs)
    assert rt.main([str(pte("add_relu")), str(tmp_path / "in.npz"), "-o", str(tmp_path / "o.npz"),
                    "--lib", str(testk_lib)]) == 0
    with np.load(tmp_path / "o.npz") as z:
        assert _max_rel(z["output_0"], want[0]) <= 1e-5
    # a runtime error is reported by name, exit status 2
    np.savez(tmp_path / "bad.npz", inputs[0].astype(np.float64), inputs[1])
    assert rt.main([str(pte("add_relu")), str(tmp_path / "bad.npz"), "--lib", str(testk_lib)]) == 2
