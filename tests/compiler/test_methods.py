"""Programs of several methods (a model file's methods()): one execution plan per
method in ExecuTorch's layout, constants stored once, the mutable buffers the
methods share placed once (prefill and decode over one KV cache); the host runtime
looks methods up by name and shares the state between them; ExecuTorch runs Mote's
multi-method programs and Mote runs ExecuTorch's."""
import copy

import numpy as np
import pytest
import torch

from aot import ir
from aot.compiler.pipeline import compile_model_file
from aot.errors import MoteError
from aot.host.runtime import Program
from aot.pte.reader import parse_pte
from aot.tools.compare import compare
from zoo.stateful import kv_attention, path

MODEL = path("kv_attention")


@pytest.fixture(scope="module")
def compiled():
    return compile_model_file(MODEL)


def _mutable(spec) -> dict:
    return {v.fqn: v.mem_offset for v in spec.values if isinstance(v, ir.TensorValue) and v.is_mutable}


def test_one_plan_per_method_constants_once_state_shared(compiled):
    pte = parse_pte(compiled.pte)
    assert [p.name for p in pte.plans] == ["prefill", "decode", "clear"]
    # the qkv and out weights, used by prefill and decode, are stored once
    weights = sum(p.numel() * 4 for p in kv_attention.KVAttention().parameters())
    assert weights <= len(pte.segments[0]) < 2 * weights
    layouts = [_mutable(m.spec) for m in compiled.methods]
    assert layouts[0] == layouts[1] == layouts[2] == {"module.k_cache": 0, "module.v_cache": 1024}
    assert len({tuple(m.spec.arena_sizes) for m in compiled.methods}) == 1  # one arena serves all
    assert compiled.manifest["methods"] == ["prefill", "decode", "clear"]
    # the ops of every method are in the manifest (a build links them all)
    assert {"aten::index_put.out", "aten::slice_scatter.out", "aten::full_like.out"} <= \
        {o["name"] for o in compiled.manifest["ops"]}


def test_prefill_then_decode_share_the_cache_on_host(compiled):
    prog = Program(compiled.pte)
    prefill = prog.method("prefill")
    decode = prog.method("decode", share_state_with=prefill)
    clear = prog.method("clear", share_state_with=prefill)
    core = copy.deepcopy(kv_attention.methods()["prefill"][0].module)
    g = torch.Generator().manual_seed(7)
    x = torch.randn(1, kv_attention.PROMPT, kv_attention.WIDTH, generator=g)
    np.testing.assert_allclose(prefill.run([x.numpy()])[0], core.prefill(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    for pos in range(kv_attention.PROMPT, kv_attention.MAX_LEN):
        x, p = torch.randn(1, 1, kv_attention.WIDTH, generator=g), torch.tensor([pos])
        np.testing.assert_allclose(decode.run([x.numpy(), p.numpy()])[0], core.decode(x, p).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    clear.run([np.zeros(1, np.float32)])
    core.clear(torch.zeros(1))
    x, p = torch.randn(1, 1, kv_attention.WIDTH, generator=g), torch.tensor([0])
    np.testing.assert_allclose(decode.run([x.numpy(), p.numpy()])[0], core.decode(x, p).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    # without sharing, a method has its own state: decode alone sees an empty cache
    alone = Program(compiled.pte).method("decode")
    fresh = copy.deepcopy(kv_attention.methods()["prefill"][0].module)
    x, p = torch.randn(1, 1, kv_attention.WIDTH, generator=g), torch.tensor([3])
    np.testing.assert_allclose(alone.run([x.numpy(), p.numpy()])[0], fresh.decode(x, p).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_compare_any_method_with_steps(compiled):
    r = compare(compiled.for_method("decode"), "host", steps=5)
    assert (r["method"], r["steps"]) == ("decode", 5) and r["max_rel_error"] <= 1e-5
    with pytest.raises(MoteError, match="no method 'forward'.*prefill, decode, clear"):
        compiled.for_method("forward")


@pytest.mark.oracle
def test_executorch_runs_motes_multi_method_program(compiled):
    from executorch.runtime import Runtime

    prog = Runtime.get().load_program(compiled.pte)
    assert set(prog.method_names) == {"prefill", "decode", "clear"}
    for m in compiled.methods:
        eager = copy.deepcopy(m.eager)
        want = eager(*m.example_inputs)
        got = prog.load_method(m.name).execute(list(m.example_inputs))[0]
        assert torch.allclose(got, want, rtol=1e-5, atol=1e-6), m.name


@pytest.mark.oracle
def test_mote_runs_executorchs_multi_method_program():
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
    from executorch.runtime import Runtime

    methods = kv_attention.methods()
    with torch.no_grad():
        eps = {name: torch.export.export(mod, inputs) for name, (mod, inputs) in methods.items()}
        # initial values in the program: without them ExecuTorch leaves a mutated buffer undefined
        pte = to_edge(eps).to_executorch(ExecutorchBackendConfig(
            emit_mutable_buffer_names=True,
            passes=[InitializedMutableBufferPass(["k_cache", "v_cache"])])).buffer  # placeholder-name patterns
    mote = Program(pte)
    assert sorted(mote.method_names) == sorted(methods)
    assert {t.fqn for p in parse_pte(pte).plans for t in p.tensors.values() if t.initial is not None} \
        == {"module.k_cache", "module.v_cache"}
    for name, (mod, inputs) in methods.items():
        # a fresh program per method: each starts from the initial cache
        want = Runtime.get().load_program(pte).load_method(name).execute(list(inputs))[0].numpy()
        got = mote.method(name).run([t.numpy() for t in inputs])[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(got, copy.deepcopy(mod)(*inputs).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_int8_with_several_methods_says_not_yet():
    with pytest.raises(MoteError, match="several methods"):
        compile_model_file(MODEL, int8=True)


def test_several_methods_with_external_weights_share_each_weight_once():
    c = compile_model_file(MODEL, external_weights=True)
    keys = [t.key for t in c.external]
    assert len(keys) == len(set(keys))
    params = sum(p.numel() * 4 for p in kv_attention.KVAttention().parameters())
    # the qkv and out weights both methods use are in the .ptd once (plus a few small constants)
    assert params <= sum(len(t.data) for t in c.external) < params + 1024
    prog = Program(c.pte, data_map=c.ptd)
    prefill = prog.method("prefill")
    decode = prog.method("decode", share_state_with=prefill)
    eager = copy.deepcopy(kv_attention.methods()["prefill"][0].module)
    (x,) = c.methods[0].example_inputs
    np.testing.assert_allclose(prefill.run([x.numpy()])[0], eager.prefill(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    x, p = c.methods[1].example_inputs
    np.testing.assert_allclose(decode.run([x.numpy(), p.numpy()])[0], eager.decode(x, p).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
