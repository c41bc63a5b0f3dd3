"""aot.host.runtime: names a program holds (operators, methods) come from an
untrusted file; bytes that are not UTF-8 show as escapes, never a
UnicodeDecodeError (issue 34)."""
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
    assert err == "aot run: error: init (no kernel for aten::\\xffelu.out): MOTE_ERR_OP_NOT_FOUND (-300)\n"


def test_method_name_that_is_not_utf8(tmp_path):
    spec, _ = linear_relu_spec()
    p = tmp_path / "m.pte"
    emit.write_pte(spec, p)
    data = p.read_bytes()
    assert data.count(b"forward") >= 1
    p.write_bytes(data.replace(b"forward", b"forw\xc3(d"))
    assert Program(p).method_names == ["forw\\xc3(d"]
