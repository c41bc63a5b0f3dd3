"""Smoke test of benchmarks/: every script runs in --quick mode on one small
model and prints well-formed tables and JSON holding real figures.

Nothing here checks a time: the benchmarks print figures, they are not tests.
The figures that are exact (arena bytes, instruction counts > 0, sizes) are
checked against what aot.compiler.pipeline / aot.deploy.build report.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUICK_MODEL = "small_cnn"

pytestmark = [pytest.mark.slow, pytest.mark.sim, pytest.mark.oracle]


def _run(script: str, tmp_path: Path, *extra) -> tuple:
    out_json = tmp_path / f"{script}.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{script}.py"), "--quick",
                           "--json", str(out_json), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout, json.loads(out_json.read_text())


def _table_row(stdout: str, first_cell: str) -> list:
    """Cells of the first table row starting with `first_cell` (split on runs of spaces)."""
    for line in stdout.splitlines():
        cells = line.split()
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row for {first_cell!r} in:\n{stdout}")


def test_benchmark_scripts_quick(tmp_path):
    # scripts/bootstrap.sh installs these; a missing one is a set-up failure, not a skip.
    for tool in ("arm-none-eabi-gcc", "qemu-system-arm"):
        assert shutil.which(tool) is not None, f"{tool} not installed (run ./scripts/bootstrap.sh)"
    import executorch  # noqa: F401  (the oracle the benchmarks compare against)
    from aot.compiler.pipeline import compile_model_file
    import zoo
    fp32 = compile_model_file(zoo.path(QUICK_MODEL))
    # bench_mcu's int8 build for mps2-an505: int8 I/O, conv weights pre-widened for the DSP
    int8 = compile_model_file(zoo.path(QUICK_MODEL), int8=True, int8_io=True, dsp_weights=True)

    # bench_host: latencies are positive numbers, sizes/arenas are aot.compiler.pipeline's
    stdout, data = _run("bench_host", tmp_path)
    (r,) = data["results"]
    assert r["model"] == QUICK_MODEL and not r["errors"], r
    assert r["mote"]["arena_bytes"] == fp32.arena_bytes
    assert r["mote"]["arena_lower_bound_bytes"] == fp32.arena_lower_bound_bytes
    assert r["mote"]["pte_bytes"] == len(fp32.pte)
    assert r["mote"]["max_rel_err"] <= 1e-5
    for k in ("et_portable", "et_xnnpack"):
        assert r[k]["us"] > 0 and r[k]["pte_bytes"] > 0 and r[k]["arena_bytes"] >= 0
    assert r["mote"]["us"] > 0 and r["eager_us"] > 0
    lat = _table_row(stdout, QUICK_MODEL)
    assert float(lat[1].replace(",", "")) == pytest.approx(r["mote"]["us"], abs=0.06)
    assert f"{fp32.arena_bytes:,}" in stdout

    # bench_size: runtime core linked and run on QEMU; the model's size.json parts
    stdout, data = _run("bench_size", tmp_path)
    core = data["core_linked"]
    assert core["qemu_exit"] == 0 and core["qemu_uart"].startswith("CORE OK")
    assert 0 < core["runtime_flash"] <= sum(v["text"] + v["data"] for v in data["core_objects"].values())
    size = data["models"][QUICK_MODEL]["mps2-an505"]
    assert size["ram"]["arena"] == fp32.arena_bytes
    assert size["flash"]["model"] == len(fp32.pte)
    assert size["flash_bytes"] > size["flash"]["model"] and size["ram_bytes"] > size["ram"]["arena"]
    assert f"{core['runtime_flash']:,}" in stdout
    assert f"{size['flash_bytes']:,}" in _table_row(stdout, QUICK_MODEL)

    # bench_mcu: exact instruction counts from the firmware, int8 arena from aot.compiler.pipeline
    stdout, data = _run("bench_mcu", tmp_path)
    r = data["results"][QUICK_MODEL]
    f, q = r["fp32"]["mps2-an505"], r["int8"]["mps2-an505"]
    assert r["macs"] > 0 and f["instructions"] > 0 and q["instructions"] > 0
    assert f["arena_bytes"] == fp32.arena_bytes and q["arena_bytes"] == int8.arena_bytes
    assert q["size"]["ram"]["arena"] == int8.arena_bytes
    row = _table_row(stdout, QUICK_MODEL)
    assert f"{f['instructions']:,}" in row and f"{q['instructions']:,}" in row
    # the traced cycle estimate of the int8 run on the M33, beside its instruction count
    assert q["instructions"] < q["estimated_cycles"] < 3 * q["instructions"]
    assert f"{q['estimated_cycles']:,}" in stdout


def test_bench_cli_quick(tmp_path):
    """bench_cli: every mistake it times is refused (exit 1); times are positive figures."""
    stdout, data = _run("bench_cli", tmp_path)
    assert len(data["refusals"]) >= 6
    for r in data["refusals"]:
        assert r["exit_code"] == 1 and r["seconds"] > 0, r
        assert r["argv"][0] in stdout
    assert data["import_torch_s"] > 0


def test_bench_m0_quick(tmp_path):
    """bench_m0: small_cnn on the microbit (QEMU) and the pico (rp2040js), fp32 and int8:
    the same code and outputs on both boards, the M0+ estimate at least one cycle per
    instruction and, without rp2040js's uncounted lr pushes, within 0.5 % of rp2040js."""
    stdout, data = _run("bench_m0", tmp_path)
    assert data["arch_flags"]["microbit"].split()[1:2] == ["-mcpu=cortex-m0"]
    assert data["arch_flags"]["pico"].split()[1:2] == ["-mcpu=cortex-m0plus"]
    for tag in ("fp32", "int8"):
        q = data["results"][QUICK_MODEL][tag]
        instr, est, cyc, lr = (q["instructions"], q["estimated_cycles"], q["rp2040js_cycles"],
                               q["push_lr_executions"])
        assert 0 < instr <= est < 3 * instr and instr < cyc < 3 * instr, q
        assert q["outputs_equal"] and q["same_code"]["functions"] > 50 and q["same_code"]["differ"] == [], q
        assert 0 < lr and abs(est - lr - cyc) <= cyc // 200, q
        assert q["estimate_over_rp2040js"] == round(est / cyc, 5)
        assert abs(q["traced_instructions"] - instr) <= max(40, instr // 1000)
        row = [r for r in data["table"]["rows"] if r[:2] == [QUICK_MODEL, tag]]
        assert row and row[0][2:5] == [f"{instr:,}", f"{est:,}", f"{cyc:,}"]
        assert " ".join(row[0][2:5]) in " ".join(_table_row_for(stdout, QUICK_MODEL, tag))


def _table_row_for(stdout: str, first_cell: str, second_cell: str) -> list:
    """Cells of the table row starting with `first_cell`, `second_cell`."""
    for line in stdout.splitlines():
        cells = line.split()
        if cells[:2] == [first_cell, second_cell]:
            return cells
    raise AssertionError(f"no table row for {first_cell} {second_cell} in:\n{stdout}")


def test_bench_vit_parity_quick(tmp_path):
    """bench_vit_parity --quick: the digits ViT on the first 50 held-out images, with the
    residual adds int8 (before) and in the LayerNorm islands (now): the table prints the
    JSON's figures, which count every image."""
    stdout, data = _run("bench_vit_parity", tmp_path)
    rows = data["models"]["digits_vit"]
    for label in ("before", "now"):
        r = rows[label]
        assert r["inputs"] == 50 and sum(r["histogram"]) == 50
        assert r["max_quanta"] == len(r["histogram"]) - 1 and r["within_2"] == sum(r["histogram"][:3])
        assert 0.9 <= r["accuracy_pt2e"] <= 1.0 and r["top1_agreement"] >= 0.96
        cells = _table_row_for(stdout, "digits_vit", label)
        assert cells[2:5] == ["50", str(r["max_quanta"]), f"{r['mean_quanta']:.2f}"]
