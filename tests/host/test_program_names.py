"""aot.host.runtime: names a program holds (operators, methods) come from an
untrusted file; bytes that are not UTF-8 show as escapes, never a
UnicodeDecodeError (issue 34). aot inspect and aot run accept the same programs,
and a load error names the file (issue 39)."""
from aot.cli import main
from aot.compiler import emit
from aot.host.runtime import Program
from tests.pte.test_format_specs import linear_relu_spec


def _program_with_op(tmp_path, raw: bytes):
    spec, _ = linear_relu_spec()
    p = tmp_path / "m.pte"
    emit.write_pte(spec, p)
    data = p.read_bytes()
    assert data.count(b"aten::relu") == 1 and len(raw) == len(b"aten::relu")
    p.write_bytes(data.replace(b"aten::relu", raw))
    return p


def test_operator_name_that_is_not_utf8(tmp_path, capsys):
    p = _program_with_op(tmp_path, b"aten::\xffelu")
    assert Program(p).operator_name(0, 1) == "aten::\\xffelu.out"
    capsys.readouterr()
    assert main(["run", str(p)]) == 1
    err = capsys.readouterr().err
    # the load error names the file (issue 39)
    assert err == f"aot run: error: {p}: init (no kernel for aten::\\xffelu.out): MOTE_ERR_OP_NOT_FOUND (-300)\n"


def test_method_name_that_is_not_utf8(tmp_path):
    spec, _ = linear_relu_spec()
    p = tmp_path / "m.pte"
    emit.write_pte(spec, p)
    data = p.read_bytes()
    assert data.count(b"forward") >= 1
    p.write_bytes(data.replace(b"forward", b"forw\xc3(d"))
    assert Program(p).method_names == ["forw\\xc3(d"]


def test_inspect_and_run_accept_the_same_names(tmp_path, capsys):
    """Issue 39: a debug file name that is not UTF-8 (the runtime never decodes it) is
    shown as an escape by aot inspect, which used to refuse the program aot run runs."""
    spec, _ = linear_relu_spec()
    p = tmp_path / "m.pte"
    emit.write_pte(spec, p)
    data = p.read_bytes()
    assert data.count(b"model.py") == 2
    p.write_bytes(data.replace(b"model.py", b"mod\xffl.py"))
    assert main(["run", str(p)]) == 0
    capsys.readouterr()
    assert main(["inspect", str(p)]) == 0
    assert "# mod\\xffl.py:12 (forward)" in capsys.readouterr().out


def test_run_on_the_host_checks_a_build_folder_like_every_target(tmp_path, capsys):
    """Issue 39: `aot run BUILD --target host` checks build.json (the folder's files belong
    together), as the simulated and serial targets do."""
    import hashlib
    import json
    spec, _ = linear_relu_spec()
    build = tmp_path / "b"
    build.mkdir()
    emit.write_pte(spec, build / "model.pte")
    (build / "firmware.elf").write_bytes(b"\x7fELF")
    assert main(["run", str(build), "--target", "host"]) == 1
    assert "is not a build directory (no build.json)" in capsys.readouterr().err
    sha = {k: hashlib.sha256((build / n).read_bytes()).hexdigest()
           for k, n in (("pte_sha256", "model.pte"), ("firmware_sha256", "firmware.elf"))}
    sha["board"] = "mps2-an505"
    (build / "build.json").write_text(json.dumps(sha))
    assert main(["run", str(build), "--target", "host"]) == 0
    capsys.readouterr()
    # the inputs embedded at build time (gen/inputs.bin, two sets), as the firmware runs them
    import numpy as np
    sets = [np.full((2, 3), v, np.float32) for v in (1.0, -2.0)]
    (build / "gen").mkdir()
    (build / "gen" / "inputs.bin").write_bytes(b"".join(a.tobytes() for a in sets))
    (build / "build.json").write_text(json.dumps({**sha, "board": "mps2-an505", "input_sets": 2,
                                                  "inputs": [{"sizes": [2, 3], "dtype": 6}]}))
    assert main(["run", str(build), "--target", "host", "--outputs", str(tmp_path / "o.npz")]) == 0
    got = np.load(tmp_path / "o.npz")
    for k, a in enumerate(sets):
        want = Program(build / "model.pte").method().run([a])[0]
        assert np.array_equal(got["output_0" if k == 0 else f"set{k}_output_0"], want)
    assert not np.array_equal(got["output_0"], got["set1_output_0"])
    capsys.readouterr()
    (build / "build.json").write_text("garbage")  # a folder edited by hand: one line, no traceback
    assert main(["run", str(build), "--target", "host"]) == 1
    assert "build.json cannot be read" in capsys.readouterr().err
    (build / "build.json").write_text(json.dumps({**sha, "pte_sha256": "0" * 64}))
    assert main(["run", str(build), "--target", "host"]) == 1
    assert "model.pte does not match build.json" in capsys.readouterr().err
