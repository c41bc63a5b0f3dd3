"""The "index" family end to end: the layers of ordinary models that need its
kernels compile and run on the host runtime, matching eager PyTorch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from aot.compiler.pipeline import compile_module
from aot.host.runtime import Program

pytestmark = pytest.mark.slow


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def _seeded(make):
    torch.manual_seed(0)
    return make().eval()


def _x(*shape, seed=1):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


class _Tok(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, ids):
        return self.fc(self.emb(ids)).mean(dim=1)


X4 = _x(1, 3, 5, 6)
MODELS = {
    "embedding_int64": (lambda: _Tok(), (torch.tensor([[3, 0, 49, 7], [1, 1, 2, 3]]),)),
    "embedding_int32": (lambda: nn.Embedding(20, 5), (torch.tensor([[3, 0, 19]], dtype=torch.int32),)),
    "upsample_nearest": (lambda: nn.Upsample(scale_factor=2, mode="nearest"), (X4,)),
    "upsample_nearest_3": (lambda: nn.Upsample(scale_factor=3, mode="nearest"), (X4,)),
    "upsample_bilinear": (lambda: nn.Upsample(scale_factor=2, mode="bilinear"), (X4,)),
    "upsample_bilinear_ac": (lambda: nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True), (X4,)),
    "interpolate_size": (lambda: Fn(lambda x: F.interpolate(x, size=(7, 9))), (X4,)),
    "interpolate_size_down": (lambda: Fn(lambda x: F.interpolate(x, size=(3, 4))), (X4,)),
    "interpolate_size_bilinear": (lambda: Fn(lambda x: F.interpolate(x, size=(7, 11), mode="bilinear")), (X4,)),
    "interpolate_bilinear_ac": (lambda: Fn(lambda x: F.interpolate(x, size=(4, 9), mode="bilinear",
                                                                   align_corners=True)), (X4,)),
    "reflection_pad2d": (lambda: nn.ReflectionPad2d((1, 2, 3, 0)), (X4,)),
    "replication_pad2d": (lambda: nn.ReplicationPad2d(2), (X4,)),
    "reflection_pad1d": (lambda: nn.ReflectionPad1d(2), (_x(2, 3, 5),)),
    "replication_pad3d": (lambda: nn.ReplicationPad3d(1), (_x(1, 2, 3, 4, 5),)),
    "conv_transpose2d": (lambda: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
                         (_x(1, 4, 5, 6),)),
    "conv_transpose2d_dil": (lambda: nn.ConvTranspose2d(3, 2, (3, 2), stride=(1, 2), padding=(2, 0), dilation=2),
                             (_x(2, 3, 4, 5),)),
    "conv_transpose1d": (lambda: nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2),
                         (_x(1, 4, 7),)),
    "gather": (lambda: Fn(lambda x, i: torch.gather(x, 1, i)), (_x(3, 5), torch.tensor([[0, 4], [2, 2], [1, 3]]))),
    "x_idx": (lambda: Fn(lambda x, i: x[i]), (_x(5, 4), torch.tensor([4, 0, -2, 1]))),
    "x_colon_idx": (lambda: Fn(lambda x, i: x[:, i]), (_x(2, 5, 3), torch.tensor([[0, 1], [4, -1]]))),
    "x_two_idx": (lambda: Fn(lambda x, i, j: x[i, :, j]), (_x(3, 4, 5), torch.tensor([0, 2]), torch.tensor([[1], [4]]))),
    "x_setitem": (lambda: Fn(lambda x, i: x.index_put((i,), torch.zeros(2, 4))), (_x(5, 4), torch.tensor([0, 3]))),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_runs(name):
    make, inputs = MODELS[name]
    module = _seeded(make)
    c = compile_module(name, module, inputs)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    with torch.no_grad():
        want = module(*inputs).numpy()
    assert got.shape == want.shape
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-12)
    assert err <= 1e-5, (name, err)


class _EtModel(nn.Module):
    """Embedding, transposed conv and both upsamplings, as ExecuTorch's own
    export (to_edge().to_executorch()) keeps them."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.up = nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.fc = nn.Linear(8, 8)

    def forward(self, ids, x):
        y = F.interpolate(self.up(x), scale_factor=2, mode="bilinear")
        return self.fc(self.emb(ids)), y, F.interpolate(x, size=(5, 7), mode="nearest")


def _et_inputs():
    return torch.tensor([[1, 2, 9, 0]]), _x(1, 2, 4, 4)


def _et_export(path: str) -> None:  # runs in a subprocess (see test_et_quantized.py)
    from executorch.exir import to_edge
    ep = torch.export.export(_seeded(_EtModel), _et_inputs())
    prog = to_edge(ep).to_executorch()
    ops = {f"{o.name}.{o.overload}" for o in prog.executorch_program.execution_plan[0].operators}
    assert {"aten::embedding.out", "aten::convolution.out", "aten::upsample_bilinear2d.vec_out",
            "aten::upsample_nearest2d.vec_out"} <= ops, ops
    with open(path, "wb") as f:
        f.write(prog.buffer)


@pytest.mark.oracle
def test_executorch_program_runs(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    pte = tmp_path / "et_index.pte"
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"import test_index_models as t; t._et_export({str(pte)!r})")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=600)
    ids, x = _et_inputs()
    got = Program(pte.read_bytes()).method().run([ids.numpy(), x.numpy()])
    with torch.no_grad():
        want = _seeded(_EtModel)(ids, x)
    assert len(got) == 3
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        assert np.max(np.abs(g - w.numpy())) / np.max(np.abs(w.numpy())) <= 1e-5
