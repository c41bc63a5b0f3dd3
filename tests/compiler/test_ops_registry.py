"""The operator registry (`aot ops`, docs/ops.md) against the kernels and against
ExecuTorch's portable operator list (the executorch package is the oracle)."""
import json
import subprocess
import sys

import pytest

from aot.compiler import kernels as K
from aot.compiler.ops import supported_ops
from aot.tools.ops import DOC_PATH, ops_markdown, ops_report

#: operators of ExecuTorch's portable library Mote must cover (issue "Operator coverage")
COVERAGE_MIN = 180


def test_docs_ops_md_is_generated_from_the_kernels():
    assert DOC_PATH.read_text() == ops_markdown(ops_report()), (
        "docs/ops.md drifted from the kernels: regenerate with `aot ops --markdown > docs/ops.md`")


def test_every_kernel_documents_its_dtypes():
    missing = [op for op in K.kernel_files() if not K.kernel_dtypes(op)]
    assert missing == [], f"kernels without a 'dtypes:' line in their header comment: {missing}"


def test_int8_variants_follow_cmsis():
    variants = {r["op"]: r["int8_kernels"] for r in ops_report()["operators"] if r["kind"] in ("int8", "signal")}
    assert variants and all(v[0] == "reference" for v in variants.values())
    for op, path in K.optimized_kernel_files().items():
        assert set(variants[op]) > {"reference"}, f"{path.name} has neither a DSP nor an MVE path"


def test_aot_ops_json():
    r = subprocess.run([sys.executable, "-m", "aot.cli", "ops", "--json"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert {row["op"] for row in rep["operators"]} == set(supported_ops())
    assert rep["excluded"] == K.excluded_ops()


@pytest.mark.oracle
def test_coverage_of_executorch_portable_operators():
    from executorch.extension.pybindings import portable_lib

    # ExecuTorch names a default overload without a suffix ("aten::copy_"); the runtime
    # matches that name to a kernel registered as "aten::copy_.default"
    theirs = {n if "." in n.split("::")[1] else n + ".default" for n in portable_lib._get_operator_names()}
    ours = set(supported_ops())
    excluded = set(K.excluded_ops())
    assert excluded <= theirs, f"excluded but not an ExecuTorch operator: {sorted(excluded - theirs)}"
    assert excluded.isdisjoint(ours), f"excluded yet supported: {sorted(excluded & ours)}"
    assert all(len(why) > 20 for why in K.excluded_ops().values())
    covered = theirs & ours
    missing = sorted(theirs - ours - excluded)
    print(f"\nMote covers {len(covered)} of ExecuTorch portable's {len(theirs)} operators "
          f"({len(excluded)} excluded with a reason, {len(missing)} missing: {missing})")
    assert len(covered) >= COVERAGE_MIN


@pytest.mark.parametrize("overload", ["", "default"])
def test_runtime_finds_a_default_overload_named_without_one(overload):
    """ExecuTorch's programs name a default overload without a suffix ("aten::copy_",
    overload ""); the runtime finds the kernel registered as "aten::copy_.default"."""
    import numpy as np

    from aot import ir
    from aot.compiler.emit import emit_program
    from aot.host.runtime import Program

    f32 = 6
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    values = [ir.TensorValue([2, 3], f32, mem_id=1, mem_offset=0),        # self (input, written)
              ir.TensorValue([2, 3], f32, constant=src.tobytes()),      # src
              False]                                                    # non_blocking
    spec = ir.ProgramSpec(values=values, inputs=[0], outputs=[0],
                          instructions=[ir.KernelCall("aten::copy_", overload, [0, 1, 2, 0])],
                          arena_sizes=[0, 32])
    got = Program(emit_program(spec)).method().run([np.zeros((2, 3), np.float32)])[0]
    assert np.array_equal(got, src)
