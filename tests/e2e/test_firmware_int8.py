"""int8 end to end: every zoo model compiled with --int8 (float program inputs
and outputs; quantize/dequantize inside the program) and run on four paths:

  * the Python integer reference: the lowered int8 graph run eagerly
    (aot.compiler.quant.lowering.int8_program(...).module(), whose mote:: ops execute
    aot/compiler/quant/int8ref.py),
  * the host runtime (libmote.so, portable C kernels of kernels/),
  * mps2-an505 in QEMU (Cortex-M33: the DSP kernels of cmsis/),
  * mps3-an547 in QEMU (Cortex-M55: the MVE kernels of cmsis/).

The float outputs are dequantized int8 (q - zp) * scale, a deterministic
function of the int8 bytes, so the four paths must agree bit for bit. Against
the PT2E reference (convert_pt2e's module run eagerly, fake-quantized fp32
between ops) the outputs must stay within a small number of output
quantization steps (see PT2E_QUANTA). The planned arena must be at or below
the tensor-level lower bound (the largest sum of bytes of the tensors live at
one instruction). Figures go to build/e2e_firmware_report.json.
"""

import numpy as np
import pytest

import zoo
from aot.compiler.pipeline import reference_outputs

BOARDS = ("mps2-an505", "mps3-an547")
MODELS = list(zoo.MODELS)

#: Largest |int8 program - PT2E reference| in output quanta, per model. The
#: integer pipeline rounds once per requantization (fixed-point multiplier),
#: PT2E rounds a float product; each op can differ by one step and the
#: difference can propagate. Measured on the seeds used here: every model
#: within one quantum. cov_activations was at two while its softmax fell back
#: to fp32 between dequantize/quantize; it now ends in mote::softmax_s8 (output
#: scale fixed at 1/256) and is at one (sigmoid and tanh still run in fp32).
#: H5 reported two coverage models at two quanta; cov_residual_cat is at one now.
PT2E_QUANTA = {m: 1.0 for m in MODELS}


def _output_scale(c):
    return float(c.int8_info.output_qparams[0][0])


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("model", MODELS)
def test_int8_bytes_identical_on_four_paths(fw, model):
    py = fw.int8_reference(model)
    host = fw.host(model, True)
    assert fw.same_bits(host, py), f"{model}: host runtime differs from the Python int8 reference"
    fp32_counts = {}
    for board in BOARDS:
        b = fw.build(model, board, int8=True)
        dev = b.run.outputs
        same = fw.same_bits(dev, py)
        f = fw.build(model, board, int8=False)
        fp32_counts[board] = f.run.cycles[0]
        fw.record(model, board, "int8", bytes_match_all_paths=same, instructions=b.run.cycles[0],
                  flash_bytes=b.art.size["flash_bytes"], ram_bytes=b.art.size["ram_bytes"],
                  scratch_bytes=b.art.size["ram"]["scratch"],
                  speedup_vs_fp32=round(f.run.cycles[0] / b.run.cycles[0], 3))
        assert same, f"{model} on {board}: firmware output bytes differ from the int8 reference"
    # Any nonzero output proves the comparison is not vacuous.
    assert any(np.any(o != 0) for s in py for o in s)


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("model", MODELS)
def test_int8_cmsis_scratch_is_exact(fw, model):
    """Each DSP/MVE conv/depthwise call gets its own scratch block, planned in
    arena 1 with exactly the kernel's need (kernels/int8_scratch.c; plus the row
    ring, mote_s8_rows_ring_bytes, for a call planned in place by rows) and handed
    to the runtime as MOTE_MODEL_SCRATCH_SLOTS; no separate scratch buffer is
    reserved, and the firmware runs with it (previous test: bytes match)."""
    from aot.compiler.scratch import scratch_bytes, scratch_slots
    from aot.compiler.plan import verify_plan
    c = fw.compile(model, True)
    verify_plan(c.spec)
    arena = int(sum(c.spec.arena_sizes))
    slots = {i: (off, size) for i, off, size in scratch_slots(c.spec)}
    ops = {f"{k.op}.{k.overload}" for k in c.spec.instructions}
    convs = [i for i, k in enumerate(c.spec.instructions)
             if k.op in ("mote::conv2d_s8", "mote::depthwise_conv2d_s8")]
    if "mote::conv2d_s8.out" in ops:
        assert convs and any(scratch_bytes(c.spec, c.spec.instructions[i]) for i in convs)
    rings = c.spec.plan_info.get("row_rings", {})
    for i in convs:
        # the kernel's own need, plus the row ring of a call planned in place by rows
        need = scratch_bytes(c.spec, c.spec.instructions[i]) + rings.get(i, 0)
        assert c.spec.instructions[i].scratch_bytes == need
        if need:
            off, size = slots[i]
            assert size == need and 0 <= off and off + size <= arena
    for board in BOARDS:
        b = fw.build(model, board, int8=True)
        assert b.art.size["ram"]["scratch"] == 0
        assert fw.header_macro(b.out_dir / "mote_model.h", "MOTE_MODEL_SCRATCH_BYTES") == 0
        assert fw.header_macro(b.out_dir / "mote_model.h", "MOTE_MODEL_NUM_SCRATCH_SLOTS") == len(slots)
        syms = fw.elf_symbols(b.art.elf)
        assert "mote_embed_scratch" not in syms
        assert syms["mote_embed_arena0"][1] == arena
        # cmsis/ kernels are the ones linked for the int8 ops that have one.
        kernels = b.art.size["kernels"]
        if "mote::conv2d_s8.out" in ops:
            assert "op_mote_conv2d_s8.c" in kernels
        if "mote::softmax_s8.out" in ops:   # portable kernels/ version (none in cmsis/)
            assert "op_mote_softmax_s8.c" in kernels


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("model", ["ds_cnn", "resnet8", "mobilenet_v1_025", "autoencoder"])
def test_int8_dsp_weights_bytes_identical(fw, model, tmp_path):
    """The DSP kernels reading pre-widened weights and requantization tables from the
    program (aot.compiler.dsp_weights, `aot build`'s default on DSP boards; the
    autoencoder: fully connected layers only) give the same bytes as the host
    runtime, with less arena than widening at run time."""
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.build import build_compiled
    from aot.deploy.run import run_build
    c = compile_model_file(f"zoo/{model}.py", int8=True, dsp_weights=True)
    assert c.spec.plan_info["dsp_weights_bytes"] > 0
    assert c.arena_bytes <= fw.compile(model, True).arena_bytes  # MobileNet: its fp32 input sets it
    sets = [[t.numpy() for t in s] for s in fw.inputs(model, True)]
    build_compiled(c, "mps2-an505", tmp_path, input_sets=sets)
    dev = run_build(tmp_path, timeout=120).outputs
    assert fw.same_bits(dev, fw.host(model, True)), f"{model}: DSP-weights firmware differs from the host"


@pytest.mark.parametrize("model", MODELS)
def test_int8_within_quanta_of_pt2e(fw, model):
    c = fw.compile(model, True)
    scale = _output_scale(c)
    worst = 0.0
    for inputs, outs in zip(fw.inputs(model, True), fw.host(model, True)):
        ref = reference_outputs(c, inputs)
        for o, r in zip(outs, ref):
            worst = max(worst, float(np.max(np.abs(o.astype(np.float64) - r.astype(np.float64)))))
    quanta = worst / scale
    for board in BOARDS:
        fw.record(model, board, "int8", pt2e_max_quanta=round(quanta, 4))
    # A small tolerance for the float rounding of (q - zp) * scale itself.
    assert quanta <= PT2E_QUANTA[model] + 1e-3, f"{model}: {quanta:.3f} quanta from PT2E"


@pytest.mark.parametrize("model", MODELS)
def test_int8_arena_at_lower_bound(fw, model):
    """The arena is at or below the tensor-level lower bound (max over steps of
    the live int8 tensors' true bytes + scratch; in-place reuse can go below
    it), for every zoo model. int8 tensors are word aligned (aot.compiler.plan), so
    alignment padding no longer pushes small int8 tensors above the bound
    (cov_batchnorm was 1,492 B vs 1,485 B with 16-byte alignment)."""
    c = fw.compile(model, True)
    lb = c.arena_lower_bound_bytes
    assert 0 < c.arena_bytes <= lb, f"{model}: arena {c.arena_bytes} B > lower bound {lb} B"
    f = fw.compile(model, False)
    for board in BOARDS:
        fw.record(model, board, "int8", arena_bytes=c.arena_bytes, arena_lower_bound_bytes=lb,
                  fp32_arena_bytes=f.arena_bytes)


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("model", MODELS)
def test_stack_reserve_covers_the_measured_high_water_mark(fw, model):
    """The reset handler paints the stack and the app reports its high-water
    mark ("MOTE STACK used=N"). The reserve aot build links (reset frame +
    deepest chain from main + nested exceptions, aot/deploy/stack.py) covers
    it, and the analysed chain from main is not a loose guess: the run reaches
    it within the reset handler's frame plus the frames the run never takes."""
    for board in BOARDS:
        b = fw.build(model, board, int8=True)
        used = b.run.stack_used
        reserve = b.art.size["ram"]["stack"]
        analysed = b.art.size["stack_worst_case_bytes"]
        assert used is not None and 0 < used <= reserve, (board, used, reserve)
        # the run's own deepest path (init or a kernel) is a large part of the analysed
        # bound. The bound counts every path a linked kernel has: the DSP depthwise
        # picks its int16-plane path or its strip path (a 1 KiB strip on the stack) by
        # shape at run time, and DS-CNN's shapes all take the plane path, so its run
        # stays near 0.45 of the bound (1,032 of 2,312 B on mps2-an505).
        assert used >= 0.4 * analysed, (board, used, analysed)


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025"])
def test_int8_planar_layout_bytes_identical(fw, model, tmp_path):
    """--layout planar (every pointwise -> depthwise pair through the planar int16
    layout, aot/compiler/layout.py) gives the NHWC program's bytes, which are
    the Python integer reference's: on the host, the M33 (DSP kernels, pre-widened
    pointwise weights), the M55 (MVE) and the M3 (plain C)."""
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.build import build_compiled
    from aot.deploy.run import run_build
    from aot.host.runtime import Program
    planar = {n: 12 if model == "mobilenet_v1_025" else 3 for n in ("pw", "dw")}
    sets = fw.inputs(model, True)
    py = fw.int8_reference(model)
    for board, dsp in (("mps2-an505", True), ("mps3-an547", False), ("mps2-an385", False)):
        c = compile_model_file(f"zoo/{model}.py", int8=True, dsp_weights=dsp, layout="planar")
        ops = [k.op for k in c.spec.instructions]
        assert ops.count("mote::pointwise_s8_planar16") == planar["pw"]
        assert ops.count("mote::depthwise_planar16_s8") == planar["dw"]
        if board == "mps3-an547":    # host once: the same program bytes run everywhere
            method = Program(c.pte).method()
            host = [method.run([t.numpy() for t in s]) for s in sets]
            assert fw.same_bits(host, py), f"{model}: planar program on the host differs from int8ref"
        out = tmp_path / board
        build_compiled(c, board, out, input_sets=[[t.numpy() for t in s] for s in sets])
        dev = run_build(out, timeout=300).outputs
        assert fw.same_bits(dev, py), f"{model} on {board}: planar firmware differs from int8ref"
