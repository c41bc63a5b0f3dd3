"""The quantization lowering is a table of declared patterns
(aot/compiler/quant/patterns, aot/compiler/quant/int4.py): each says what it
matches, what it emits and why an op it refuses stays fp32; every mote:: op
the package creates is declared by exactly one pattern (or the recurrent
lowering's EMITS, aot/compiler/quant/recurrent.py); the reason reaches the
user's warning and the --int8 report."""
import ast
import warnings
from pathlib import Path

import pytest
import torch
from torch.fx import Graph, GraphModule

from aot.compiler import mote_ops
from aot.compiler.quant import int4, recurrent
from aot.compiler.quant.lowering import Int8FallbackWarning, Lowering
from aot.compiler.quant.patterns import BY_OP, PATTERNS

QUANT = Path(__file__).resolve().parents[2] / "aot" / "compiler" / "quant"
ALL = PATTERNS + int4.PATTERNS
SCHEMA_OPS = set(mote_ops.SCHEMAS) | set(mote_ops.W4_SCHEMAS) | set(mote_ops.RNN_SCHEMAS)


def _op_names_in_source() -> dict:
    """{mote op name: [file:line]} of every string literal passed to an ``op(...)``
    call (``lw.op``, ``mote_ops.op``) in the package's source."""
    found: dict = {}
    for path in sorted(QUANT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "op":
                for c in ast.walk(node.args[0]) if node.args else ():
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        found.setdefault(c.value, []).append(f"{path.name}:{node.lineno}")
    return found


def test_every_pattern_declares_match_emit_and_reason():
    assert len(PATTERNS) > 20 and len(int4.PATTERNS) == 2
    names = [p.name for p in ALL]
    assert len(names) == len(set(names)), names
    for p in ALL:
        assert p.ops and all(isinstance(t, torch._ops.OpOverload) for t in p.ops), p.name
        assert callable(p.match) and callable(p.emit), p.name
        assert isinstance(p.emits, tuple) and all("::" in e for e in p.emits), p.name
        # one line of the report each; ";" separates the report's groups
        assert p.reason and "\n" not in p.reason and ";" not in p.reason, p.name
        assert p.tail in (None, "act", "scale"), p.name
        assert p.dtypes and p.dtypes <= {torch.int8, torch.int16}, p.name


def test_mote_ops_come_from_exactly_one_pattern():
    in_source = _op_names_in_source()
    declared: dict = {}
    for p in ALL:
        for name in p.mote_ops():
            declared.setdefault(name, []).append(p.name)
    for e in recurrent.EMITS:
        declared.setdefault(e.split("::", 1)[1], []).append("recurrent cells")
    assert set(declared) <= SCHEMA_OPS, set(declared) - SCHEMA_OPS
    assert set(in_source) <= set(declared), {n: in_source[n] for n in set(in_source) - set(declared)}
    assert {n: ps for n, ps in declared.items() if len(ps) != 1} == {}
    # the literal names are the int8 / int16 ops; int4's come from its declarations
    assert {"conv2d_s8", "linear_s16", "lut_s8", "bmm_s8"} <= set(in_source)
    # nothing reaches torch.ops.mote around the declared route (lw.op / the declarations)
    for path in sorted(QUANT.rglob("*.py")):
        around = [n.lineno for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Attribute)
                  and n.attr == "mote" and isinstance(n.value, ast.Attribute) and n.value.attr == "ops"]
        assert around == [], (path, around)


def test_a_pattern_cannot_emit_an_op_it_does_not_declare():
    gm = GraphModule(torch.nn.Module(), Graph())
    lw = Lowering(gm, (), False)
    lw.pattern = next(p for p in PATTERNS if p.name == "mul")
    assert lw.op("mul_s8") == mote_ops.op("mul_s8")
    with pytest.raises(AssertionError, match="add_s8"):
        lw.op("add_s8")


def test_patterns_of_one_op_kind_are_tried_in_table_order():
    conv = torch.ops.aten.conv2d.default
    assert [p.name for p in BY_OP[conv]] == [p.name for p in PATTERNS if conv in p.ops]
    assert [p.name for p in BY_OP[conv]][:2] == ["conv", "dwconv"]


MUL_BROADCAST = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(x)
        return y * y.mean(dim=(2, 3), keepdim=True)[0]


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
'''


def test_a_refused_op_reports_its_pattern_reason(tmp_path):
    """A mul of operands of different ranks ([1, 4, H, W] * [4, 1, 1]) matches the
    mul pattern's op kind but not its shape rule (a broadcast operand of the same rank only):
    it stays fp32, and the warning (at the model's file:line) and the --int8
    report give that pattern's reason."""
    from aot.compiler.pipeline import compile_model_file
    f = tmp_path / "bcast.py"
    f.write_text(MUL_BROADCAST)
    reason = next(p.reason for p in PATTERNS if p.name == "mul")
    line = next(i for i, t in enumerate(MUL_BROADCAST.splitlines(), 1) if "y * y.mean" in t)
    at = f"bcast.py:{line}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = compile_model_file(f, int8=True)
    (w,) = [w for w in caught if issubclass(w.category, Int8FallbackWarning)]
    assert Path(w.filename).name == "bcast.py" and w.lineno == line
    assert str(w.message).endswith(": " + reason) and at in str(w.message)
    assert c.int8_info.fallback_sites == [("mul", at, reason)]
    report = c.int8_report().splitlines()
    assert f"  fp32 ops without MACs (dequantize, op, quantize): mul x1 ({at})" in report
    assert f"    mul: {reason}" in report


def test_an_op_without_a_pattern_says_so():
    """sub has no pattern: the lowering's reason names that, and find() records no refusal."""
    assert torch.ops.aten.sub.Tensor not in BY_OP

    class Sub(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) - x

    from aot.compiler.quant.lowering import lower_int8
    from aot.compiler.quant.pt2e import quantize
    x = (torch.randn(2, 8),)
    conv, _ = quantize(Sub().eval(), x)
    with pytest.warns(Int8FallbackWarning, match="no int8 kernel for this op"):
        low = lower_int8(conv, x)
    sites = low.meta["mote_int8"].fallback_sites
    assert [(op, why) for op, _, why in sites] == [("sub", "no int8 kernel for this op")]
