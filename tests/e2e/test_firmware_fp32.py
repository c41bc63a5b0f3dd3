"""Cortex-M firmware, fp32: every zoo model built by `aot build` for both
simulated boards (mps2-an505 = Cortex-M33, mps3-an547 = Cortex-M55) and run
in QEMU on random inputs.

Checks per model and board: max relative error (max|dev - eager| / max|eager|)
<= 1e-5 against eager PyTorch; no heap symbol in the ELF; identical
instruction counts over two boots; the ELF's kernels are exactly the ops.json
kernels; size.json's parts add up to the ELF's flash and RAM and each static
buffer has exactly its planned size; the state size printed by the firmware
equals MOTE_MODEL_STATE_BYTES. Figures go to build/e2e_firmware_report.json.
"""
import re

import numpy as np
import pytest
import torch

import zoo
from aot.compiler.kernels import RUNTIME_OPS
from aot.deploy.run import run_build
from aot.tools.compare import error_stats
from aot.compiler.pipeline import eager_outputs
from aot.deploy.size import HEAP_SYMBOLS

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

BOARDS = ("mps2-an505", "mps3-an547")
CASES = [pytest.param(m, b, id=f"{m}-{b}") for m in zoo.MODELS for b in BOARDS]


def _built(fw, model, board):
    return fw.build(model, board, int8=False)


@pytest.mark.parametrize("model,board", CASES)
def test_fp32_matches_eager(fw, model, board):
    b = _built(fw, model, board)
    c = fw.compile(model, False)
    worst = 0.0
    for k, arrays in enumerate(b.inputs):
        ref = eager_outputs(c, [torch.from_numpy(a) for a in arrays])
        dev = b.run.outputs[k]
        assert [o.shape for o in dev] == [r.shape for r in ref]
        assert all(np.isfinite(o).all() for o in dev)
        stats = error_stats(dev, ref)
        worst = max(worst, stats["max_rel_error"])
    fw.record(model, board, "fp32", max_rel_error=worst, instructions=b.run.cycles[0],
              flash_bytes=b.art.size["flash_bytes"], ram_bytes=b.art.size["ram_bytes"],
              arena_bytes=c.arena_bytes)
    assert worst <= 1e-5, f"{model} on {board}: max relative error {worst:.3e}"


@pytest.mark.parametrize("model,board", CASES)
def test_no_heap(fw, model, board):
    syms = fw.elf_symbols(_built(fw, model, board).art.elf)
    assert not set(HEAP_SYMBOLS) & set(syms)
    assert not {s for s in syms if s in ("malloc", "calloc", "realloc", "free")}
    # The pyelftools scan sees real symbols: the runtime's entry points are there.
    assert "mote_method_execute" in syms and "mote_program_load" in syms


@pytest.mark.parametrize("model,board", CASES)
def test_instruction_counts_repeat(fw, model, board):
    b = _built(fw, model, board)
    again = run_build(b.out_dir, timeout=120)
    assert again.cycles == b.run.cycles
    assert all(c > 0 for c in again.cycles)
    # Same inputs give the same bytes on the second boot.
    for first, second in zip(b.run.outputs, again.outputs):
        assert all(fw.np_bits(x) == fw.np_bits(y) for x, y in zip(first, second))


@pytest.mark.parametrize("model,board", CASES)
def test_selective_build(fw, model, board):
    import json
    b = _built(fw, model, board)
    ops = json.loads((b.out_dir / "ops.json").read_text())["ops"]
    expected = {o["kernel"] for o in ops if o["name"] not in RUNTIME_OPS}
    syms = fw.elf_symbols(b.art.elf)
    linked = {n for n, (typ, _size, sec) in syms.items()
              if n.startswith("mote_kernel_") and typ == "STT_FUNC" and sec is not None}
    assert linked == expected
    # The registry table has one entry per kernel (8 bytes: name pointer + function).
    reg = [v for n, v in syms.items() if n == "mote_kernel_registry"]
    assert reg and reg[0][1] == 8 * len(expected)


@pytest.mark.parametrize("model,board", CASES)
def test_size_report_adds_up(fw, model, board):
    b = _built(fw, model, board)
    size = b.art.size
    secs = fw.elf_section_sizes(b.art.elf)
    syms = fw.elf_symbols(b.art.elf)
    flash_elf = sum(secs.get(n, 0) for n in (".text", ".ARM.extab", ".ARM.exidx", ".data"))
    ram_elf = sum(secs.get(n, 0) for n in (".data", ".bss", ".stack"))
    assert size["flash_bytes"] == flash_elf
    assert size["ram_bytes"] == ram_elf
    assert sum(size["flash"].values()) == flash_elf
    assert sum(size["ram"].values()) == ram_elf
    for part in ("runtime", "kernels", "port", "toolchain", "model", "inputs", "padding"):
        assert size["flash"][part] >= 0, part
    assert size["flash"]["runtime"] > 0 and size["flash"]["kernels"] > 0
    assert 0 <= size["flash"]["padding"] < 256
    # Static buffers: exactly the planned sizes, read back from the ELF.
    planned = size["planned"]
    c = fw.compile(model, False)
    assert planned["arena"] == c.arena_bytes
    if c.arena_bytes:
        assert size["ram"]["arena"] == syms["mote_embed_arena0"][1] == c.arena_bytes
    # the runtime state is in flash (model_image.c): no state buffer in RAM
    assert "mote_embed_state" not in syms and "mote_model_images" in syms
    assert size["ram"]["runtime_state"] == planned["runtime_state"] == 0
    assert size["flash"]["method_image"] == sum(v[1] for k, v in syms.items()
                                                if k.startswith(("mote_image", "mote_model_images")))
    assert size["ram"]["stack"] == secs[".stack"] == planned["stack"]
    assert size["ram"]["scratch"] == planned["scratch"]
    assert 0 <= size["ram"]["port"] < 256
    # The program: in flash, or in the board's model region (mps3-an547).
    pte_len = len(c.pte)
    if "model_region" in size:
        assert size["model_region"]["model"] == pte_len == secs.get(".mote_model", 0) - \
            size["model_region"]["inputs"] - size["model_region"]["padding"]
        assert size["model_region_bytes"] == secs[".mote_model"]
    else:
        assert size["flash"]["model"] == pte_len
        assert size["flash"]["inputs"] >= planned["inputs"]
    assert size["flash_bytes"] <= size["flash_size"] and size["ram_bytes"] <= size["ram_size"]


@pytest.mark.parametrize("model,board", CASES)
def test_state_bytes_printed_equal_header(fw, model, board):
    b = _built(fw, model, board)
    m = re.search(r"^MOTE MODEL pte=(\d+) state=(\d+) arena=(\d+)$", b.run.uart, re.M)
    assert m, b.run.uart[:500]
    header = b.out_dir / "mote_model.h"
    assert int(m.group(2)) == fw.header_macro(header, "MOTE_MODEL_STATE_BYTES")
    assert int(m.group(3)) == fw.header_macro(header, "MOTE_MODEL_ARENA0_BYTES")
    assert int(m.group(1)) == len(fw.compile(model, False).pte)


# --------------------------------------------------------------------------- aot run


def _run_cli(capsys, argv):
    import json
    from aot.cli import main
    rc = main(argv)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize("board", BOARDS)
def test_aot_run_build_dir_with_new_inputs(fw, board, tmp_path, capsys):
    """`aot run DIR --inputs in.npz --json` re-links the build's objects with the
    new inputs embedded (no model file needed) and reports outputs, the
    instruction count, flash and RAM; the build's own firmware is unchanged."""
    from aot.tools.compare import random_inputs
    b = _built(fw, "small_cnn", board)
    c = fw.compile("small_cnn", False)
    x = random_inputs(c.example_inputs, 7)
    np.savez(tmp_path / "in.npz", *[t.numpy() for t in x])
    before = b.art.elf.read_bytes()
    rep = _run_cli(capsys, ["run", str(b.out_dir), "--target", board, "--inputs",
                            str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"),
                            "--json"])
    assert b.art.elf.read_bytes() == before
    ref = eager_outputs(c, x)
    dev = [np.asarray(o, dtype=np.float32) for o in rep["outputs"]]
    assert error_stats(dev, ref)["max_rel_error"] <= 1e-5
    assert rep["instructions"] > 0 and len(rep["runs"]) == 1
    # Same code, one input set instead of N: the flash shrinks by the dropped sets only.
    size = b.art.size
    dropped = size["planned"]["inputs"] // len(b.inputs) * (len(b.inputs) - 1)
    if "model_region" in size:
        assert rep["flash_bytes"] == size["flash_bytes"]
    else:
        assert abs(size["flash_bytes"] - rep["flash_bytes"] - dropped) < 16
    assert rep["ram_bytes"] == b.art.size["ram_bytes"]
    with np.load(tmp_path / "out.npz") as z:
        assert fw.np_bits(z["output_0"]) == fw.np_bits(dev[0])
    # Without --inputs: the embedded sets, as built.
    rep2 = _run_cli(capsys, ["run", str(b.out_dir), "--target", board, "--json"])
    assert [r["instructions"] for r in rep2["runs"]] == b.run.cycles
    assert np.asarray(rep2["outputs"][0], np.float32).tobytes() == fw.np_bits(b.run.outputs[0][0])


def test_aot_run_host_pte(fw, tmp_path, capsys):
    from aot.tools.compare import random_inputs
    c = fw.compile("ds_cnn", False)
    (tmp_path / "m.pte").write_bytes(c.pte)
    x = random_inputs(c.example_inputs, 3)
    np.savez(tmp_path / "in.npz", *[t.numpy() for t in x])
    rep = _run_cli(capsys, ["run", str(tmp_path / "m.pte"), "--target", "host", "--inputs",
                            str(tmp_path / "in.npz"), "--json"])
    assert rep["target"] == "host" and rep["instructions"] is None
    dev = [np.asarray(o, dtype=np.float32) for o in rep["outputs"]]
    assert error_stats(dev, eager_outputs(c, x))["max_rel_error"] <= 1e-5


def test_aot_run_uart_inputs(fw, tmp_path):
    """A firmware built with uart_inputs reads "I <hex>" lines from UART0."""
    from aot.deploy.build import build_compiled
    from aot.tools.compare import random_inputs
    from aot.deploy.run import run_simulator
    c = fw.compile("mlp", False)
    art = build_compiled(c, "mps2-an505", tmp_path / "uart", uart_inputs=True)
    x = random_inputs(c.example_inputs, 5)
    rep = run_simulator(art.out_dir, "mps2-an505", [t.numpy() for t in x], timeout=60)
    assert "MOTE READY" in rep["uart"] and "MOTE DONE 1" in rep["uart"]
    assert error_stats(rep["runs"][0]["outputs"], eager_outputs(c, x))["max_rel_error"] <= 1e-5
    # Same work as the embedded-input firmware for the same inputs: the counts
    # agree to the SysTick edge alignment (a few instructions; the two images
    # differ in code layout), and the output bytes are identical.
    emb = build_compiled(c, "mps2-an505", tmp_path / "emb", input_sets=[[t.numpy() for t in x]])
    from aot.deploy.run import run_build
    ran = run_build(emb.out_dir, timeout=60)
    assert abs(ran.cycles[0] - rep["runs"][0]["instructions"]) <= 16
    assert fw.np_bits(ran.outputs[0][0]) == fw.np_bits(rep["runs"][0]["outputs"][0])


def test_aot_run_errors(fw, tmp_path, capsys):
    from aot.cli import main
    b = _built(fw, "mlp", "mps2-an505")
    assert main(["run", str(b.out_dir), "--target", "mps3-an547"]) == 1
    assert "built for mps2-an505" in capsys.readouterr().err
    np.savez(tmp_path / "bad.npz", np.zeros((2, 3), np.float32))
    assert main(["run", str(b.out_dir), "--target", "mps2-an505", "--inputs",
                 str(tmp_path / "bad.npz")]) == 1
    assert "shape [2, 3]" in capsys.readouterr().err
