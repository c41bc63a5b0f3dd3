"""The self-test bundle on the host: cases and tolerance (aot.deploy.selftest),
the BP08 .bpte both ways with ExecuTorch as the oracle
(executorch.devtools.bundled_program), `aot test` on a .bpte, the FAIL path,
the protocol's reading of the SELFTEST lines and the one-line user errors.
The firmware side (QEMU, serial) is tests/e2e/test_selftest.py."""
import importlib.util
import json

import numpy as np
import pytest

import zoo
from aot.cli import main
from aot.compiler.pipeline import compile_model_file
from aot.pte.bundled import read_bundled, bundled_suites
from aot.deploy.protocol import read_selftest
from aot.deploy.selftest import (RTOL, SelfTest, bpte_bytes, case_inputs, compare, make_selftest,
                                 run_host, selftest_blob, tolerance)


@pytest.fixture(scope="module")
def cnn():
    """small_cnn compiled, with its default 4 self-test cases."""
    c = compile_model_file(zoo.path("small_cnn"))
    return c, make_selftest(c.pte, case_inputs(c, 4))


def _load_zoo_module(name):
    spec = importlib.util.spec_from_file_location(name, zoo.path(name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_cases_are_example_then_calibration_inputs(cnn):
    c, st = cnn
    assert st.count == 4
    np.testing.assert_array_equal(st.inputs[0][0], c.example_inputs[0].numpy())
    for k in (1, 2, 3):
        np.testing.assert_array_equal(st.inputs[k][0], c.calibration_data[k - 1][0].numpy())
    # capped by what exists: 1 example + the calibration sets
    assert len(case_inputs(c, 1000)) == 1 + len(c.calibration_data)
    # the expected outputs are the host runtime's, bit for bit
    from aot.host.runtime import Program
    got = Program(c.pte).method().run(st.inputs[2])
    assert got[0].tobytes() == st.expected[2][0].tobytes()


def test_tolerance_rule():
    assert tolerance(np.array([1, -7], np.int8)) == 0.0
    assert tolerance(np.array([True])) == 0.0
    assert tolerance(np.array([0.5, -4.0], np.float32)) == pytest.approx(4.0 * RTOL)
    assert tolerance(np.zeros(3, np.float32)) == 0.0
    assert tolerance(np.array([np.inf, 2.0], np.float32)) == pytest.approx(2.0 * RTOL)
    want = np.array([1.0, 2.0, -3.0], np.float32)
    assert compare(want.copy(), want, 0.0)["verdict"] == "PASS"
    near = want + np.float32(2e-5)
    r = compare(near, want, tolerance(want))
    assert r["verdict"] == "PASS" and 1.9e-5 < r["max_abs_err"] < 2.1e-5
    far = want.copy()
    far[2] = -3.001
    r = compare(far, want, tolerance(want))
    assert (r["verdict"], r["element"], r["want"]) == ("FAIL", 2, -3.0)
    q = np.array([3, -4, 5], np.int8)
    r = compare(q + np.int8(1) * (np.arange(3) == 1), q, 0.0)
    assert (r["verdict"], r["element"], r["got"], r["want"], r["max_abs_err"]) == ("FAIL", 1, -3, -4, 1.0)
    nan = want.copy()
    nan[0] = np.nan
    assert compare(nan, want, 1.0)["verdict"] == "FAIL"


def test_selftest_blob_layout(cnn):
    """Per case: float32 tolerances padded to 8, then each output padded to 8."""
    _, st = cnn
    blob = selftest_blob(st)
    out_bytes = st.expected[0][0].nbytes  # small_cnn: one fp32 output of 10
    per_case = 8 + out_bytes + (-out_bytes % 8)
    assert len(blob) == 4 * per_case == 192
    k = 2
    base = k * per_case
    assert np.frombuffer(blob[base:base + 4], "<f4")[0] == np.float32(tolerance(st.expected[k][0]))
    assert blob[base + 8:base + 8 + out_bytes] == st.expected[k][0].tobytes()


def test_bpte_reads_back(cnn):
    c, st = cnn
    data = bpte_bytes(c.pte, st)
    assert data[4:8] == b"BP08"
    bp = read_bundled(data)
    assert bp.version == 2 and bp.program == c.pte
    (name, cases), = bundled_suites(bp).items()
    assert name == "forward" and len(cases) == 4
    for (ins, outs), want_in, want_out in zip(cases, st.inputs, st.expected):
        assert ins[0].tobytes() == want_in[0].tobytes() and ins[0].shape == want_in[0].shape
        assert outs[0].tobytes() == want_out[0].tobytes() and outs[0].dtype == np.float32
    # the program's data is 32-byte aligned in the file, tensor data 16-byte aligned
    assert data.find(c.pte) % 32 == 0
    assert data.find(st.inputs[1][0].tobytes()) % 16 == 0


def test_host_report(cnn, tmp_path):
    c, st = cnn
    rep = run_host(c.pte, st)
    assert rep["verdict"] == "PASS" and rep["n"] == 4 and rep["max_abs_err"] == 0.0
    assert [(r["case"], r["output"], r["verdict"]) for r in rep["rows"]] == [(k, 0, "PASS") for k in range(4)]
    assert rep["rows"][0]["tol"] == pytest.approx(RTOL * float(np.abs(st.expected[0][0]).max()))
    path = tmp_path / "cnn.bpte"
    path.write_bytes(bpte_bytes(c.pte, st))
    assert main(["test", str(path), "--json"]) == 0


def test_wrong_expected_output_fails_with_exit_1(cnn, tmp_path, capsys):
    c, st = cnn
    bad = SelfTest(inputs=st.inputs, expected=[[a.copy() for a in outs] for outs in st.expected])
    bad.expected[1][0].reshape(-1)[3] += np.float32(0.25)
    path = tmp_path / "bad.bpte"
    path.write_bytes(bpte_bytes(c.pte, bad))
    capsys.readouterr()
    assert main(["test", str(path)]) == 1
    text = capsys.readouterr().out
    assert "FAIL: 4 case(s)" in text and "case 1 output 0 element 3" in text
    rows = [ln.split() for ln in text.splitlines() if ln.strip()[:1].isdigit()]
    assert [r[-1] for r in rows] == ["PASS", "FAIL", "PASS", "PASS"]
    assert float(rows[1][2]) == pytest.approx(0.25, rel=1e-3)


def test_read_selftest_lines():
    lines = ["MOTE BOOT mps2-an505", "OUT 0 5 00",
             "MOTE SELFTEST CASE case=0 output=0 max_abs_err=0 tol=3.099e-6 result=PASS",
             "MOTE SELFTEST CASE case=1 output=0 max_abs_err=2.5e-1 tol=1.484e-6 result=FAIL",
             "MOTE SELFTEST FAIL case=1 output=0 element=3 got=-1.234e-1 want=-3.734e-1 tol=1.484e-6 "
             "failed=1 n=2 max_abs_err=2.5e-1", "MOTE DONE 2"]
    rep = read_selftest(lines)
    assert rep["verdict"] == "FAIL" and rep["n"] == 2 and rep["max_abs_err"] == 0.25
    assert rep["rows"][1] == {"case": 1, "output": 0, "max_abs_err": 0.25, "tol": 1.484e-6,
                              "verdict": "FAIL"}
    assert rep["fail"] == {"case": 1, "output": 0, "element": 3, "got": -0.1234, "want": -0.3734,
                           "tol": 1.484e-6, "failed": 1}
    assert read_selftest(["MOTE SELFTEST PASS n=4 max_abs_err=0"])["verdict"] == "PASS"
    from aot.errors import MoteError, ProtocolError
    with pytest.raises(ProtocolError):
        read_selftest(lines[:3])
    with pytest.raises(MoteError, match="MOTE ERROR load -201"):
        read_selftest(["MOTE ERROR load -201"])


def test_user_mistakes_one_line(tmp_path, capsys, cnn):
    c, st = cnn
    notbp = tmp_path / "x.bpte"
    notbp.write_bytes(c.pte)  # a .pte, not a bundle
    bp = tmp_path / "ok.bpte"
    bp.write_bytes(bpte_bytes(c.pte, st))
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "build.json").write_text(json.dumps({"board": "mps2-an505", "outputs": []}))
    (plain / "model.pte").write_bytes(c.pte)
    (plain / "firmware.elf").write_bytes(b"")
    cases = [(["test", str(notbp)], "is not a bundled program"),
             (["test", str(bp), "--target", "mps2-an505"], "a .bpte runs on the host"),
             (["test", str(tmp_path / "missing")], "no such file"),
             (["test", str(plain)], "built without --selftest")]
    for argv, msg in cases:
        capsys.readouterr()
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1, err
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["build", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--selftest", "0"])
    assert e.value.code == 2
    assert main(["build", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--selftest",
                 "--uart-inputs", "-o", str(tmp_path / "never")]) == 1
    assert "cannot be combined with --uart-inputs" in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


@pytest.mark.oracle
def test_mote_bpte_read_by_executorch(cnn):
    from executorch.devtools.bundled_program.serialize import (
        deserialize_from_flatbuffer_to_bundled_program)
    c, st = cnn
    et = deserialize_from_flatbuffer_to_bundled_program(bpte_bytes(c.pte, st))
    assert et.version == 2 and bytes(et.program) == c.pte
    (suite,) = et.method_test_suites
    assert suite.method_name == "forward" and len(suite.test_cases) == 4
    for case, ins, outs in zip(suite.test_cases, st.inputs, st.expected):
        for values, arrays in ((case.inputs, ins), (case.expected_outputs, outs)):
            assert len(values) == len(arrays)
            for v, a in zip(values, arrays):
                t = v.val
                assert t.scalar_type == 6 and list(t.sizes) == list(a.shape)  # 6: Float
                assert list(t.dim_order) == list(range(a.ndim))
                np.testing.assert_array_equal(np.frombuffer(bytes(t.data), np.float32).reshape(a.shape), a)


@pytest.mark.oracle
def test_executorch_bpte_passes_aot_test(tmp_path, capsys):
    """A BundledProgram made by ExecuTorch (its own .pte inside, expected
    outputs from eager PyTorch) runs on Mote's host runtime within the tolerance."""
    import torch
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
    from executorch.exir import to_edge
    mod = _load_zoo_module("small_cnn")
    model, ex = mod.model(), mod.example_inputs()
    prog = to_edge(torch.export.export(model, ex)).to_executorch()
    sets = [ex] + [tuple(s) for s in mod.calibration_data()[:2]]
    with torch.no_grad():
        cases = [MethodTestCase(inputs=list(x), expected_outputs=(model(*x),)) for x in sets]
    data = serialize_from_bundled_program_to_flatbuffer(
        BundledProgram(prog, [MethodTestSuite(method_name="forward", test_cases=cases)]))
    path = tmp_path / "et.bpte"
    path.write_bytes(data)
    capsys.readouterr()
    assert main(["test", str(path), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["verdict"] == "PASS" and rep["n"] == 3 and len(rep["rows"]) == 3
    assert all(r["max_abs_err"] <= r["tol"] and r["tol"] > 0 for r in rep["rows"])
    # and a wrong expected output in ExecuTorch's own bundle fails
    with torch.no_grad():
        y = model(*ex).clone()
    y.view(-1)[0] += 1.0
    bad = serialize_from_bundled_program_to_flatbuffer(BundledProgram(prog, [MethodTestSuite(
        method_name="forward", test_cases=[MethodTestCase(inputs=list(ex), expected_outputs=(y,))])]))
    path.write_bytes(bad)
    assert main(["test", str(path)]) == 1
