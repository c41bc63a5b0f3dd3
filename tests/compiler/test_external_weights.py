"""Weights apart from the program (--external-weights): the constants go to a .ptd in
ExecuTorch's flat-tensor format (FT01), keyed by content, and the program names them;
the runtime takes the .ptd from the caller and checks every tensor's key, layout and
size at init. Two heads over one backbone share one .ptd; ExecuTorch runs Mote's
.pte + .ptd and Mote runs ExecuTorch's."""
import numpy as np
import pytest
import torch

from aot.compiler.pipeline import compile_model_file
from aot.host.runtime import MoteError, Program
from aot.pte.flat_tensor import NamedTensor, read_ptd, write_ptd
from aot.pte.reader import parse_pte

BACKBONE = '''
import torch
class Backbone(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b = torch.nn.Linear(16, 32), torch.nn.Linear(32, 32)
    def forward(self, x):
        return torch.relu(self.b(torch.relu(self.a(x))))
'''
HEAD = '''
import sys, torch
sys.path.insert(0, {folder!r})
from backbone import Backbone
class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        torch.manual_seed({seed})
        self.head = torch.nn.Linear(32, {classes})
    def forward(self, x):
        return self.head(self.backbone(x))
def model():
    return Head().eval()
def example_inputs():
    return (torch.randn(1, 16, generator=torch.Generator().manual_seed(3)),)
'''


@pytest.fixture(scope="module")
def heads(tmp_path_factory):
    """Two heads exported into one shared .ptd (the second export adds to the first's file)."""
    d = tmp_path_factory.mktemp("heads")
    (d / "backbone.py").write_text(BACKBONE)
    ptd = d / "shared.ptd"
    out = {}
    for name, seed, classes in (("a", 1, 4), ("b", 2, 6)):
        (d / f"head_{name}.py").write_text(HEAD.format(folder=str(d), seed=seed, classes=classes))
        out[name] = compile_model_file(d / f"head_{name}.py", out_pte=d / f"{name}.pte", external_weights=ptd)
    return d, out


def test_constants_leave_the_program_and_the_backbone_is_stored_once(heads):
    d, c = heads
    a, b = c["a"], c["b"]
    assert len(parse_pte(a.pte).segments[0]) == 0  # no constant bytes in the program
    keys_a, keys_b = {t.key for t in a.external}, {t.key for t in b.external}
    assert len(keys_a & keys_b) == 4  # the backbone's two weights and two biases
    shared = read_ptd((d / "shared.ptd").read_bytes())
    assert set(shared) == keys_a | keys_b  # 8 tensors, not 12
    assert list(shared) == sorted(shared, key=str.encode)  # key order: the runtime binary-searches
    backbone = (16 * 32 + 32 + 32 * 32 + 32) * 4
    assert sum(len(t.data) for t in shared.values()) == backbone + (32 * 4 + 4 + 32 * 6 + 6) * 4


def test_both_heads_run_on_the_shared_ptd(heads):
    d, c = heads
    for name in "ab":
        x = c[name].example_inputs[0]
        got = Program(d / f"{name}.pte", data_map=d / "shared.ptd").method().run([x.numpy()])[0]
        np.testing.assert_allclose(got, c[name].eager(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_init_refuses_a_missing_or_mismatched_ptd(heads):
    d, c = heads
    with pytest.raises(MoteError, match="EXTERNAL_MISSING"):
        Program(d / "a.pte").method()
    # the same keys with another shape: the layout check catches it
    bad = [NamedTensor(t.key, t.dtype, [t.sizes[0] * 0 + 1] + list(t.sizes[1:]) if t.sizes else [], t.dim_order,
                       t.data) for t in c["a"].external]
    with pytest.raises(MoteError, match="EXTERNAL_MISMATCH"):
        Program(c["a"].pte, data_map=write_ptd(bad)).method()
    with pytest.raises(MoteError, match="BAD_HEADER|BAD_IDENTIFIER|TRUNCATED"):
        Program(c["a"].pte, data_map=b"\0" * 64)


@pytest.mark.oracle
def test_executorch_runs_motes_pte_and_ptd(heads):
    from executorch.runtime import Runtime
    d, c = heads
    for name in "ab":
        x = c[name].example_inputs[0]
        prog = Runtime.get().load_program(d / f"{name}.pte", data_path=str(d / "shared.ptd"))
        got = prog.load_method("forward").execute([x])[0]
        assert torch.allclose(got, c[name].eager(x), rtol=1e-5, atol=1e-6)


@pytest.mark.oracle
def test_mote_runs_executorchs_pte_and_ptd(tmp_path):
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.runtime import Runtime
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)).eval()
    x = torch.randn(2, 8)
    et = to_edge(torch.export.export(model, (x,))).to_executorch(ExecutorchBackendConfig(external_constants=True))
    (tmp_path / "m.pte").write_bytes(et.buffer)
    et.write_tensor_data_to_file(str(tmp_path))
    (ptd,) = tmp_path.glob("*.ptd")
    want = Runtime.get().load_program(tmp_path / "m.pte", data_path=str(ptd)).load_method("forward").execute([x])[0]
    got = Program(tmp_path / "m.pte", data_map=ptd).method().run([x.numpy()])[0]
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-7)
    keys = list(read_ptd(ptd.read_bytes()))
    assert sorted(keys) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    assert keys != sorted(keys)  # insertion order: the runtime's scan path (mote/data_map.h) found them
    from aot.tools.inspect import inspect_pte
    ext = inspect_pte(tmp_path / "m.pte")["methods"][0]["external_tensors"]
    assert sorted(e["key"] for e in ext) == ["0.bias", "0.weight", "2.bias", "2.weight"]


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_firmware_links_the_ptd_as_its_own_region(heads, tmp_path):
    from aot.tools.compare import compare
    d, _ = heads
    c = compile_model_file(d / "head_a.py", external_weights=True)
    r = compare(c, "mps2-an505", seed=1, out_dir=tmp_path / "fw")
    assert r["max_rel_error"] <= 1e-5, r
    header = (tmp_path / "fw" / "gen" / "mote_model.h").read_text()
    assert f"#define MOTE_MODEL_PTD_BYTES {len(c.ptd)}u" in header
    assert (tmp_path / "fw" / "gen" / "model_ptd.c").is_file()


@pytest.mark.slow  # several aot processes, each importing torch
def test_aot_run_finds_or_is_told_the_ptd(heads, tmp_path):
    import subprocess
    import sys
    d, _ = heads

    def run(*args):
        return subprocess.run([sys.executable, "-m", "aot.cli", "run", *args], capture_output=True, text=True,
                              timeout=300)
    r = run(str(d / "a.pte"))
    assert r.returncode != 0 and "pass --ptd FILE.ptd" in r.stderr and "Traceback" not in r.stderr
    r = run(str(d / "a.pte"), "--ptd", str(d / "shared.ptd"), "--json")
    assert r.returncode == 0, r.stderr
    # aot export --external-weights without a file name writes NAME.ptd beside NAME.pte: found by default
    r = subprocess.run([sys.executable, "-m", "aot.cli", "export", str(d / "head_b.py"), "-o", str(tmp_path / "b.pte"),
                        "--external-weights"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and (tmp_path / "b.ptd").is_file(), r.stderr
    assert run(str(tmp_path / "b.pte")).returncode == 0
    # a .ptd in a folder that does not exist yet: created, as -o's is
    r = subprocess.run([sys.executable, "-m", "aot.cli", "export", str(d / "head_b.py"), "-o", str(tmp_path / "c.pte"),
                        "--external-weights", str(tmp_path / "new" / "w.ptd")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and (tmp_path / "new" / "w.ptd").is_file(), r.stderr


@pytest.mark.slow  # several aot processes, each importing torch
def test_export_external_weights_path_mistakes(heads, tmp_path):
    """--external-weights naming the program itself is refused (it used to overwrite the
    .ptd with the .pte and lose the weights); a folder gets NAME.ptd inside; a file that
    is not a .ptd is named in the error."""
    import subprocess
    import sys
    d, _ = heads

    def export(out, ptd):
        return subprocess.run([sys.executable, "-m", "aot.cli", "export", str(d / "head_b.py"), "-o", str(out),
                               "--external-weights", str(ptd)], capture_output=True, text=True, timeout=300)
    r = export(tmp_path / "y.pte", tmp_path / "y.pte")
    assert r.returncode != 0 and "is the program's own path" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "y.pte").exists()
    (tmp_path / "w").mkdir()
    r = export(tmp_path / "z.pte", tmp_path / "w")
    assert r.returncode == 0 and (tmp_path / "w" / "z.ptd").is_file(), r.stderr
    r = export(tmp_path / "v.pte", d / "a.pte")
    assert r.returncode != 0 and f"--external-weights {d / 'a.pte'}: not a .ptd" in r.stderr
    r = subprocess.run([sys.executable, "-m", "aot.cli", "run", str(tmp_path / "w" / "z.ptd")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "not a .pte program" in r.stderr and "a .ptd goes to --ptd" in r.stderr
