"""The `make demo` pipeline (examples/digits/demo.py) on the first 40 held-out digits.

Runs the demo's own stage functions end to end: compile examples/digits/model.py
(fp32 and int8), build firmware for pico2 and mps2-an505 with the images
embedded in flash, run the mps2-an505 builds in QEMU and the int8 program
through the host runtime, draw the picture. Every figure the demo reports is
recomputed here independently (the trained model run eagerly on the whole
batch, accuracies counted image by image).
"""
import json
import shutil

import numpy as np
import pytest
import torch

from examples.digits import demo

pytestmark = pytest.mark.sim

N_IMAGES = 40


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    if shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None:
        pytest.fail("qemu-system-arm and arm-none-eabi-gcc are required for the sim tests")
    demo.quiet_libraries()
    out = tmp_path_factory.mktemp("demo")
    lines = []
    r = demo.run_pipeline(limit=N_IMAGES, out_root=out, echo=lines.append)
    return r, out, lines


def _count_accuracy(logits, labels):
    """Accuracy counted one image at a time, without numpy's vectorised argmax/compare."""
    hits = 0
    for row, label in zip(logits, labels):
        row = [float(v) for v in row]
        best = max(range(len(row)), key=lambda k: (row[k], -k))  # first maximum
        hits += best == int(label)
    return hits / len(labels)


def test_int8_firmware_predictions_equal_host_runtime(result):
    r, _, _ = result
    assert r.fw_int8.shape == (N_IMAGES, 10)
    assert r.fw_int8.dtype == np.float32
    from aot.host.runtime import Program
    # The host runtime on the .pte the firmware embeds (read back from the build directory).
    pte = (result[1] / "mps2-an505-int8" / "model.pte").read_bytes()
    method = Program(pte).method()
    x, _ = demo.held_out(N_IMAGES)
    for i in range(N_IMAGES):
        host = method.run([x[i:i + 1]])[0].reshape(-1)
        assert int(np.argmax(r.fw_int8[i])) == int(np.argmax(host)), f"image {i}"
        assert r.fw_int8[i].tobytes() == host.tobytes(), f"image {i}: logits differ"
    assert np.array_equal(demo.predictions(r.fw_int8), demo.predictions(r.host_int8))


def test_fp32_firmware_matches_eager(result):
    r, _, _ = result
    from examples.digits.train import trained_model
    x, _ = demo.held_out(N_IMAGES)
    with torch.no_grad():
        eager = trained_model(verbose=False)(torch.from_numpy(x)).numpy()
    fw = r.fw_fp32.astype(np.float64)
    rel = np.abs(fw - eager).max(axis=1) / np.abs(eager).max(axis=1)
    assert rel.max() <= 1e-5, f"max relative error {rel.max():.3e}"
    assert np.array_equal(fw.argmax(1), eager.argmax(1))
    assert demo.max_rel_error(r.fw_fp32, r.eager) == pytest.approx(
        float((np.abs(fw - r.eager).max(axis=1) / np.abs(r.eager).max(axis=1)).max()), rel=1e-9)


def test_accuracies_are_counted_correctly(result):
    r, _, _ = result
    from examples.digits.train import accuracy as eager_accuracy, trained_model
    x, y = demo.held_out(N_IMAGES)
    assert np.array_equal(r.y, y)
    acc = r.accuracies
    expected = {
        "eager_fp32": r.eager, "pt2e_int8": r.pt2e, "host_int8": r.host_int8,
        "firmware_fp32": r.fw_fp32, "firmware_int8": r.fw_int8,
    }
    for key, logits in expected.items():
        assert acc[key] == pytest.approx(_count_accuracy(logits, y), abs=1e-12), key
    assert acc["eager_fp32"] == pytest.approx(eager_accuracy(trained_model(verbose=False), x, y))
    # The digits are an easy task: every path gets most of them right.
    assert min(acc.values()) >= 0.9
    # The table prints the counts it was given.
    table = demo.format_table(r)
    for key, label in (("firmware_int8", "firmware int8  mps2-an505"),
                       ("eager_fp32", "eager PyTorch fp32")):
        row = next(ln for ln in table.splitlines() if ln.startswith(label))
        assert f"({round(acc[key] * N_IMAGES)}/{N_IMAGES})" in row
    # The accuracy check agrees with the numbers.
    checks = {name: ok for name, ok, _ in r.checks()}
    drop = 100 * abs(_count_accuracy(r.fw_int8, y) - _count_accuracy(r.eager, y))
    assert checks["int8 firmware accuracy within 1 pp of eager fp32"] == (drop <= 1.0)
    assert checks["int8 firmware predictions == host runtime (libmote.so) predictions"]
    assert checks["fp32 firmware logits match eager PyTorch"]


def test_progress_callback_and_rerun_are_deterministic(result):
    """run_build's progress callback (what feeds the demo's tqdm bar) counts every
    inference, and a second boot prints the same logits and instruction counts."""
    r, out, _ = result
    from aot.deploy.run import run_build
    calls = []
    again = run_build(out / "mps2-an505-int8", timeout=120, progress=calls.append)
    assert calls == list(range(1, N_IMAGES + 1))
    assert np.array_equal(demo.firmware_logits(again), r.fw_int8)
    assert list(again.cycles) == r.instr_int8


def test_instruction_counts_and_pt2e_reference(result):
    r, _, _ = result
    assert len(r.instr_fp32) == len(r.instr_int8) == N_IMAGES
    assert min(r.instr_int8) > 10_000 and min(r.instr_fp32) > 10_000
    # The int8 build does several times less work than fp32.
    assert np.mean(r.instr_int8) * 2 < np.mean(r.instr_fp32)
    # No data-dependent branches worth speaking of: counts vary by < 0.1 %.
    assert max(r.instr_int8) - min(r.instr_int8) < 0.001 * np.mean(r.instr_int8)
    assert demo.pico2_latency_ms(150_000) == pytest.approx(1.0)
    # The Pico 2 latency comes from the cycle model of a one-image trace: each
    # instruction costs one cycle or more (loads, taken branches), under 3 on average.
    for dtype, instr in (("int8", r.instr_int8), ("fp32", r.instr_fp32)):
        cpi = r.cycles[dtype] / np.mean(instr)
        assert 1.0 < cpi < 3.0, (dtype, r.cycles[dtype], np.mean(instr))
    # The int8 firmware stays close to the PT2E reference (a few output quanta).
    assert np.abs(r.fw_int8 - r.pt2e).max() < 0.1 * np.abs(r.pt2e).max()


def test_build_directories_and_sizes(result):
    r, out, _ = result
    by = {(b.board, b.dtype): b for b in r.builds}
    assert set(by) == {("pico2", "int8"), ("pico2", "fp32"),
                       ("mps2-an505", "fp32"), ("mps2-an505", "int8")}
    for (board, dtype), b in by.items():
        assert b.out_dir == (out / f"{board}-{dtype}").resolve()
        size = json.loads((b.out_dir / "size.json").read_text())
        assert size == b.size
        assert 0 < size["flash_bytes"] <= size["flash_size"]
        assert 0 < size["ram_bytes"] <= size["ram_size"]
        assert size["flash"]["inputs"] == N_IMAGES * 8 * 8 * 4 + 4  # float32 images + count
        info = json.loads((b.out_dir / "build.json").read_text())
        assert info["input_sets"] == N_IMAGES and info["int8"] == (dtype == "int8")
    uf2 = by[("pico2", "int8")].uf2
    assert uf2 is not None and uf2.exists() and uf2.stat().st_size > 0
    assert uf2.stat().st_size % 512 == 0
    assert by[("pico2", "int8")].size["ram_size"] == 520 * 1024
    assert by[("mps2-an505", "int8")].uf2 is None


def test_picture_and_stage_headers(result):
    r, out, lines = result
    png = out / demo.PNG_NAME
    assert r.png["path"] == png
    data = png.read_bytes()
    assert len(data) > 10_000 and data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image as mpimg
    img = mpimg.imread(png)
    assert img.shape[0] > 200 and img.shape[1] > 200
    wrong = int(np.count_nonzero(demo.predictions(r.fw_int8) != r.y))
    assert r.png["mistakes_shown"] == wrong
    assert r.png["shown"] == N_IMAGES
    for k in range(1, demo.STAGES + 1):
        assert any(ln.startswith(f"[{k}/{demo.STAGES}]") for ln in lines), k
    assert set(r.seconds) >= {"train", "compile", "build", "run", "report", "total"}
