"""Issue 36 (in process): constructs that made the compiler fail with a traceback, and
the one-line error any remaining compiler failure becomes (aot.compiler.pipeline.compile_error)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from aot.compiler.model_file import load_model_file
from aot.compiler.pipeline import compile_model_file, compile_module
from aot.errors import CompileError
from aot.host.runtime import Program


class Relayout(nn.Module):
    """Swin-T's construct reduced: a parameter re-laid-out in forward. Core ATen makes
    the reshape of the permuted parameter clone + view; with the clone dropped as a
    no-op, constant folding once took a view of a non-contiguous permute."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(1, 3, 4, 3))

    def forward(self, x):
        return x + self.w.permute(0, 2, 1, 3).reshape(4, 9)


class WindowAttention(nn.Module):
    """A Swin block's shifted-window attention at toy size (8x8 map, 4x4 windows, 2 heads):
    torch.roll shift, window partition and merge through permutes, and the relative
    position bias gathered from its table and permuted, as torchvision's swin_t does."""

    def __init__(self, dim=8, window=4, heads=2, shift=2):
        super().__init__()
        self.window, self.heads, self.shift = window, heads, shift
        self.qkv, self.proj, self.norm = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim), nn.LayerNorm(dim)
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + window - 1
        self.register_buffer("index", (rel[..., 0] * (2 * window - 1) + rel[..., 1]).flatten())

    def forward(self, x):  # x: [B, H, W, C]
        b, h, w, c = x.shape
        ws, nh = self.window, self.heads
        y = torch.roll(self.norm(x), shifts=(-self.shift, -self.shift), dims=(1, 2))
        y = y.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        qkv = self.qkv(y).reshape(y.shape[0], ws * ws, 3, nh, c // nh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        bias = self.table[self.index].view(ws * ws, ws * ws, -1).permute(2, 0, 1).contiguous()
        attn = F.softmax(q @ k.transpose(-2, -1) * (c // nh) ** -0.5 + bias.unsqueeze(0), dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(-1, ws * ws, c)
        y = self.proj(y).view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        return x + torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))


def _seeded(cls):
    torch.manual_seed(0)
    return cls().eval()


@pytest.mark.parametrize("cls,shape", [(Relayout, (4, 9)), (WindowAttention, (1, 8, 8, 8))],
                         ids=["relayout", "window_attention"])
def test_swin_constructs_match_eager(cls, shape):
    m = _seeded(cls)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    c = compile_module(cls.__name__, m, (x,))
    got = Program(c.pte).method().run([x.numpy()])[0]
    want = m(x).detach().numpy()
    # measured: relayout 0.0 (one add of a folded constant); window_attention 2.4e-07 (max |out| 3.4)
    assert np.abs(got - want).max() <= 1e-6 * max(1.0, float(np.abs(want).max()))


def test_folded_relayout_is_a_constant():
    """The permuted, reshaped parameter is folded: one add at run time, no permute."""
    c = compile_module("relayout", _seeded(Relayout), (torch.randn(4, 9),))
    assert c.op_names == ["aten::add.out"]


def test_other_compiler_failures_are_one_line(monkeypatch):
    """An exception of the compiler's own (here: a pass that raises while visiting a node)
    becomes one CompileError naming the stage, the operator and the model's line."""
    from aot.compiler.passes import const_fold

    def broken(prog):
        for n in prog.graph.nodes:
            if n.op == "call_function":
                raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(const_fold, "fold_constants", broken)
    with pytest.raises(CompileError) as e:
        compile_module("relayout", _seeded(Relayout), (torch.randn(4, 9),))
    msg = str(e.value)
    assert msg.startswith("lower failed on aten.permute.default at test_compile_failures.py:25: RuntimeError: boom ")
    assert "\n" not in msg and isinstance(e.value.__cause__, RuntimeError)


INSTANCE = '''import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 4), nn.ReLU()).eval()
example_inputs = (torch.randn(2, 8),)
calibration_data = [(torch.randn(2, 8),), (torch.randn(2, 8),)]
'''


def test_model_file_may_bind_values(tmp_path):
    """`model = M()` (an instance) and tuples in place of the functions are accepted."""
    (tmp_path / "inst.py").write_text(INSTANCE)
    mf = load_model_file(tmp_path / "inst.py")
    assert isinstance(mf.module, nn.Sequential) and [tuple(t.shape) for t in mf.example_inputs] == [(2, 8)]
    assert len(mf.calibration_data) == 2
    c = compile_model_file(tmp_path / "inst.py")  # imports the file anew: its own random weights
    x = c.example_inputs[0]
    got = Program(c.pte).method().run([x.numpy()])[0]
    np.testing.assert_allclose(got, c.eager(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_long_data_dependent_expression_is_cut():
    """SSDLite's postprocessing fails export with a 5,000-character expression, repeated
    unhinted and followed by its symbols: the one line keeps 80 characters of it."""
    from aot.compiler.export import _short_expression
    expr = " + ".join(f"4*Min(300, u{i})" for i in range(90)) + " > 4000"
    line = f"Could not guard on data-dependent expression {expr} (unhinted: {expr}).  (Size-like symbols: u0, u1)"
    assert _short_expression(line) == f"Could not guard on data-dependent expression {expr[:80]} ..."
    assert _short_expression("Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  "
                             "(Size-like symbols: none)") == "Could not guard on data-dependent expression Eq(u0, 1)"
    assert _short_expression("shape '[3, 5]' is invalid") == "shape '[3, 5]' is invalid"
