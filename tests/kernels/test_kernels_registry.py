"""The kernel registry generator, the committed registry_all.c, and ABI coverage."""
import json
import subprocess
import sys

import pytest
import torch

from tests.kernels.kernels_ffi import ERR, KERNELS, ROOT

GEN = KERNELS / "gen_registry.py"

#: operators the fp32 lowering and ExecuTorch's portable export of the zoo need
REQUIRED = """aten::convolution.out aten::addmm.out aten::mm.out aten::bmm.out aten::add.out
aten::add.Scalar_out aten::sub.out aten::sub.Scalar_out aten::mul.out aten::mul.Scalar_out
aten::div.out aten::relu.out aten::hardtanh.out aten::clamp.out aten::sigmoid.out aten::tanh.out
aten::_softmax.out aten::_log_softmax.out aten::max_pool2d_with_indices.out aten::avg_pool2d.out
aten::mean.out aten::sum.IntList_out aten::_adaptive_avg_pool2d.out aten::cat.out
aten::permute_copy.out aten::view_copy.out aten::_native_batch_norm_legit_no_training.out
aten::clone.out aten::expand_copy.out aten::squeeze_copy.dims_out aten::unsqueeze_copy.out
aten::constant_pad_nd.out aten::slice_copy.Tensor_out aten::select_copy.int_out aten::full.out
aten::neg.out aten::exp.out aten::rsqrt.out dim_order_ops::_clone_dim_order.out""".split()


def test_registry_all_up_to_date():
    r = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + " (run kernels/gen_registry.py)"


def test_registry_has_every_required_kernel(K):
    missing = [op for op in REQUIRED if op not in K.registry]
    assert not missing
    names = list(K.registry)
    assert names == sorted(names)  # sorted for binary search


def test_selective_registry(tmp_path):
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps({"operators": [{"name": "aten::relu.out"}, "aten::addmm.out"]}))
    out = tmp_path / "reg.c"
    r = subprocess.run([sys.executable, str(GEN), "--ops", str(ops), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert '{"aten::addmm.out", mote_kernel_aten_addmm_out}' in text
    assert '{"aten::relu.out", mote_kernel_aten_relu_out}' in text
    assert "convolution" not in text and "mote_kernel_registry_len = 2u" in text
    # the selected registry compiles and links against the kernels
    obj = tmp_path / "reg.o"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes",
                    "-Werror", f"-I{ROOT / 'runtime/include'}", "-c", str(out), "-o", str(obj)],
                   check=True)
    # an operator without a kernel fails the build step
    ops.write_text(json.dumps(["aten::relu.out", "aten::no_such_op.out"]))
    r = subprocess.run([sys.executable, str(GEN), "--ops", str(ops), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "aten::no_such_op.out" in r.stderr
    # an empty selection is still valid C
    ops.write_text("[]")
    assert subprocess.run([sys.executable, str(GEN), "--ops", str(ops), "-o", str(out)]).returncode == 0
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                    f"-I{ROOT / 'runtime/include'}", "-c", str(out), "-o", str(obj)], check=True)


def _schema_nargs(op):
    ns, rest = op.split("::")
    name, ov = rest.split(".")
    if ns == "dim_order_ops":
        import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  registers the ops
    return len(getattr(getattr(getattr(torch.ops, ns), name), ov)._schema.arguments)


@pytest.mark.parametrize("op", REQUIRED)
def test_bad_arguments_are_rejected(K, op):
    """Wrong count, or the right count of None values: KERNEL_ARGS, never a crash."""
    n = _schema_nargs(op)
    assert K.call(op, *([None] * n)) == ERR["ARGS"]
    assert K.call(op, *([None] * (n + 1))) == ERR["ARGS"]
    assert K.call(op, *([torch.zeros(2)] * (n - 1))) == ERR["ARGS"]


@pytest.mark.slow
def test_cmake_selective_build(tmp_path):
    """kernels/CMakeLists.txt builds libmote_kernels.a; with MOTE_OPS_JSON the
    registry holds exactly the manifest's operators."""
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps(["aten::convolution.out", "aten::relu.out"]))
    b = tmp_path / "b"
    subprocess.run(["cmake", "-S", str(KERNELS), "-B", str(b), f"-DMOTE_OPS_JSON={ops}",
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, capture_output=True)
    r = subprocess.run(["cmake", "--build", str(b), "-j2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    lib = b / "libmote_kernels.a"
    assert lib.exists()
    reg = (b / "registry_selected.c").read_text()
    assert "mote_kernel_registry_len = 2u" in reg
    syms = subprocess.run(["nm", str(lib)], capture_output=True, text=True, check=True).stdout
    assert " T mote_kernel_registry" not in syms  # a const table is data
    assert "mote_kernel_registry" in syms and "mote_kernel_aten_convolution_out" in syms
