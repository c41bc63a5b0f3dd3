"""Passes and lowering to a ProgramSpec (aot/compiler/passes/, aot/compiler/lower.py)."""
import importlib
import inspect

import pytest
import torch
from torch import nn

import aot
import zoo
from aot import ir
from aot.errors import UnsupportedOpError
from aot.compiler.lower import lower
from aot.compiler.ops import is_supported
from aot.compiler.passes.out_variants import op_name, out_variant, to_out_variant

_SPECS = {}


def _spec(name):
    if name not in _SPECS:
        m = importlib.import_module(f"zoo.{name}")
        _SPECS[name] = lower(m.model(), m.example_inputs())
    return _SPECS[name]


def _producer(spec):
    """value index -> the instruction that writes it (its last arg)."""
    return {k.args[-1]: k for k in spec.instructions}


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_lowering(name):
    spec = _spec(name)
    assert spec.instructions and spec.inputs and spec.outputs
    prod = _producer(spec)
    for k in spec.instructions:
        assert is_supported(f"{k.op}.{k.overload}"), k.op
        assert ".py:" in k.source
        for a in k.args:
            assert 0 <= a < len(spec.values)
        if k.op == "aten::permute_copy":  # never a weight transposed at run time
            assert spec.values[k.args[0]].constant is None
        if k.op == "aten::_native_batch_norm_legit_no_training":
            src = prod.get(k.args[0])
            assert src is None or src.op != "aten::convolution"
    consts = [v for v in spec.values if isinstance(v, ir.TensorValue) and v.constant is not None]
    for c in consts:
        assert len(c.constant) == c.nbytes


def test_linear_weight_is_transposed_ahead_of_time():
    spec = _spec("mlp")
    assert [k.op for k in spec.instructions] == ["aten::addmm", "aten::relu"] * 2 + ["aten::addmm"]
    w = spec.values[spec.instructions[0].args[2]]      # addmm(bias, input, weight.T)
    assert w.sizes == [784, 128] and w.constant is not None
    ref = importlib.import_module("zoo.mlp").model()[0].weight.detach().t().contiguous()
    assert w.constant == ref.numpy().tobytes()
    # 3 weights + 3 biases, no untransposed copy left behind
    assert sum(isinstance(v, ir.TensorValue) and v.constant is not None for v in spec.values) == 6


def test_batchnorm_folded_into_conv():
    spec = _spec("cov_batchnorm")
    ops = [k.op for k in spec.instructions]
    assert "aten::_native_batch_norm_legit_no_training" not in ops
    assert ops.count("aten::convolution") == 2
    # the folded conv has a bias although the model's conv1 had none
    assert spec.values[spec.instructions[0].args[2]].sizes == [6]


class _StandaloneBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 6)
        self.bn = nn.BatchNorm1d(6)
        self.bn.running_mean.uniform_(-1, 1)
        self.bn.running_var.uniform_(0.5, 2)

    def forward(self, x):
        return self.bn(self.fc(x)) * 2.0


def test_standalone_batchnorm_kept_with_three_outputs():
    torch.manual_seed(0)
    m = _StandaloneBN().eval()
    spec = lower(m, (torch.randn(3, 8),))
    bn = [k for k in spec.instructions if k.op == "aten::_native_batch_norm_legit_no_training"]
    assert len(bn) == 1 and bn[0].overload == "out"
    # input, weight, bias, mean, var, momentum, eps, out0, out1, out2, [out0, out1, out2]
    assert len(bn[0].args) == 11
    assert isinstance(spec.values[bn[0].args[5]], float)
    assert spec.values[bn[0].args[-1]].items == bn[0].args[7:10]


def test_scalar_arguments_and_views():
    spec = _spec("cov_residual_cat")
    by_op = {f"{k.op}.{k.overload}": k for k in spec.instructions}
    mul = by_op["aten::mul.Scalar_out"]
    assert spec.values[mul.args[1]] == 0.5
    sub = by_op["aten::sub.Scalar_out"]
    assert spec.values[sub.args[1]] == 0.25 and spec.values[sub.args[2]] == 1
    cat = by_op["aten::cat.out"]
    assert isinstance(spec.values[cat.args[0]], ir.TensorListValue) and spec.values[cat.args[1]] == 1
    view = by_op["executorch_prim::et_view.default"]
    out = spec.values[view.args[-1]]
    assert out.sizes == [1, 6, 42] and out.mem_id is None     # alias: unplanned
    assert spec.values[view.args[1]].items == [1, 6, 42]
    # a flatten that is the graph output becomes a copy with its own buffer
    spec = _spec("cov_batchnorm")
    last = spec.instructions[-1]
    assert last.op == "aten::view_copy" and spec.values[last.args[-1]].mem_id == 1


def test_max_pool_has_two_outputs_in_schema_order():
    spec = _spec("cov_pooling")
    k = next(k for k in spec.instructions if k.op == "aten::max_pool2d_with_indices")
    vals = [spec.values[a] for a in k.args]
    assert [v.items for v in vals[1:5]] == [[2, 2], [2, 2], [0, 0], [1, 1]]
    assert vals[5] is False
    assert vals[6].dtype == 6 and vals[7].dtype == 4        # out fp32, indices int64
    assert vals[8].items == [k.args[6], k.args[7]]


def test_generic_out_variant_mapping():
    a = torch.ops.aten
    assert op_name(out_variant(a.add.Tensor)) == "aten::add.out"
    assert op_name(to_out_variant(a.mul.Tensor, ("x", 0.5))[1]) == "aten::mul.Scalar_out"
    assert op_name(to_out_variant(a.permute.default, ())[1]) == "aten::permute_copy.out"
    assert op_name(to_out_variant(a.squeeze.dims, ())[1]) == "aten::squeeze_copy.dims_out"
    assert op_name(out_variant(a.sum.dim_IntList)) == "aten::sum.IntList_out"
    assert op_name(out_variant(a.full.default)) == "aten::full.out"
    assert op_name(out_variant(a._native_batch_norm_legit_no_training.default)) == \
        "aten::_native_batch_norm_legit_no_training.out"


def test_out_variant_mapping_for_library_ops():
    lib = torch.library.Library("mote_lowertest", "DEF")
    lib.define("scale(Tensor x, float s, int[2] pad) -> Tensor")
    lib.define("scale.out(Tensor x, float s, int[2] pad, *, Tensor(a!) out) -> Tensor(a!)")
    op = torch.ops.mote_lowertest.scale
    assert out_variant(op.default) is op.out
    import aot.compiler.mote_ops  # noqa: F401  (the int8 ops, registered by another stage)
    assert op_name(out_variant(torch.ops.mote.conv2d_s8.default)) == "mote::conv2d_s8.out"


class _Bessel(nn.Module):
    """An operator no microcontroller model needs: no kernel."""

    def forward(self, x):
        y = torch.relu(x)
        return torch.special.bessel_j0(y)


def test_unsupported_op_names_op_and_model_line():
    line = inspect.getsourcelines(_Bessel.forward)[1] + 2
    with pytest.raises(UnsupportedOpError) as e:
        lower(_Bessel(), (torch.randn(2, 5),))
    msg = str(e.value)
    assert "aten::special_bessel_j0.out" in msg and f"test_lower.py:{line}" in msg
    assert e.value.op == "aten::special_bessel_j0.out"


def test_public_api():
    m = importlib.import_module("zoo.small_cnn")
    ep = aot.export(m.model(), m.example_inputs())
    spec = aot.lower(ep)
    assert isinstance(spec, ir.ProgramSpec) and spec.plan_info["arena_bytes"] > 0
    from aot.compiler.lower import compile_model
    assert len(compile_model(m.model(), m.example_inputs()).instructions) == len(spec.instructions)


def _max_rel_err(out, ref):
    return ((out - ref).abs().max() / ref.abs().max()).item()


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_matches_eager_in_executorch_runtime(name):
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer

    from aot.compiler.emit import emit_program
    m = importlib.import_module(f"zoo.{name}")
    mod, x = m.model(), m.example_inputs()
    spec = _spec(name)
    pte = emit_program(spec)  # the loaded program reads from these bytes: keep them alive
    et = _load_for_executorch_from_buffer(pte)
    out = et.forward(list(x))[0]
    err = _max_rel_err(out, mod(*x).detach())
    print(f"{name}: max rel err {err:.2e}; arena {spec.plan_info['arena_bytes']} B "
          f"(bound {spec.plan_info['arena_lower_bound_bytes']} B)")
    assert err <= 1e-5


class _OpCoverage(nn.Module):
    """Ops the zoo does not use: bmm, pad, clamp, exp, neg, select, rsqrt,
    div, log_softmax, sum, unsqueeze/expand/squeeze, mm with a folded constant."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 4, 5))

    def forward(self, x, y):
        a = torch.bmm(x, self.w)
        a = nn.functional.pad(a, (1, 2), value=0.5)
        a = torch.clamp(a, -1.0, 1.5).exp().neg()
        b = a[:, 1] / (y * y + 1.0).rsqrt()[:, :8]
        c = torch.log_softmax(b, dim=-1).sum(dim=0, keepdim=True)
        d = c.unsqueeze(0).expand(2, 1, 8).squeeze(1)
        return torch.mm(d, torch.ones(8, 3) * 2), torch.sigmoid(a).mean(dim=(1, 2))


def _op_coverage():
    torch.manual_seed(0)
    return _OpCoverage().eval(), (torch.randn(3, 2, 4), torch.randn(3, 9))


def test_op_coverage_lowering():
    m, x = _op_coverage()
    spec = lower(m, x)
    ops = {f"{k.op}.{k.overload}" for k in spec.instructions}
    assert {"aten::bmm.out", "aten::constant_pad_nd.out", "aten::select_copy.int_out",
            "aten::slice_copy.Tensor_out", "aten::expand_copy.out", "aten::_log_softmax.out",
            "aten::sum.IntList_out", "aten::add.Scalar_out", "executorch_prim::et_view.default",
            "aten::mm.out"} <= ops
    # ones(8, 3) * 2 was folded into one constant: no full/mul on it at run time
    mm = next(k for k in spec.instructions if k.op == "aten::mm")
    assert spec.values[mm.args[1]].constant == (torch.ones(8, 3) * 2).numpy().tobytes()
    assert len(spec.outputs) == 2


@pytest.mark.oracle
def test_op_coverage_matches_eager_in_executorch_runtime():
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer

    from aot.compiler.emit import emit_program
    m, x = _op_coverage()
    pte = emit_program(lower(m, x))
    et = _load_for_executorch_from_buffer(pte)
    outs = et.forward(list(x))
    for out, ref in zip(outs, m(*x)):
        assert _max_rel_err(out, ref.detach()) <= 1e-5


@pytest.mark.oracle
def test_standalone_batchnorm_matches_eager_in_executorch_runtime():
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer

    from aot.compiler.emit import emit_program
    torch.manual_seed(0)
    m, x = _StandaloneBN().eval(), (torch.randn(3, 8),)
    pte = emit_program(lower(m, x))
    et = _load_for_executorch_from_buffer(pte)
    out = et.forward(list(x))[0]
    assert _max_rel_err(out, m(*x).detach()) <= 1e-5


class _Noops(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        y = x.reshape(2, 12)                  # view of a graph input: copied
        z = self.drop(torch.tanh(y)).clone().detach()
        return z.view(4, 6) * 3.0             # view of an intermediate: aliased


def test_noops_removed_and_views_of_inputs_copied():
    spec = lower(_Noops().eval(), (torch.randn(2, 3, 4),))
    ops = [k.op for k in spec.instructions]
    assert ops == ["aten::view_copy", "aten::tanh", "executorch_prim::et_view", "aten::mul"]
    assert spec.values[spec.instructions[0].args[-1]].mem_id == 1
    assert spec.values[spec.instructions[2].args[-1]].mem_id is None
    # tanh writes over the copied input; mul writes over tanh's output through the view
    assert spec.plan_info["in_place"] == 2
    base, out = spec.instructions[1].args[-1], spec.instructions[3].args[-1]
    assert spec.values[base].mem_offset == spec.values[out].mem_offset
