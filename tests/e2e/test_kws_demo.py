"""`make kws-demo` (examples/kws/demo.py): a short run end to end (three held-out clips
through eager fp32, the host runtime and the firmware in QEMU: two QEMUs side by side, one
of them running two clips with a reset between; a traced run of TRACE_HOPS hops for the
Pico 2 estimate), its figures and picture; which clips a short run takes; its one-line
refusals."""
import json

import numpy as np
import pytest

from examples.kws import demo
from examples.kws.dataset import LABELS

#: hops of the traced run (the demo's TRACE_HOPS is 8: each traced hop costs seconds)
TRACE_HOPS = 2


def test_a_short_run_takes_every_class_in_turn():
    labels = np.repeat(np.arange(len(LABELS)), 5)          # the dataset's order: class blocks
    data = {"split": np.r_[np.zeros(3, np.int64), np.full(labels.size, 2)],
            "label": np.r_[np.zeros(3, np.int64), labels]}
    test = np.flatnonzero(data["split"] == 2)
    assert demo.held_out(data, None).tolist() == test.tolist()
    pick = demo.held_out(data, len(LABELS) + 2)
    assert sorted(set(data["label"][pick])) == list(range(len(LABELS)))
    assert np.bincount(data["label"][pick]).tolist() == [2, 2] + [1] * (len(LABELS) - 2)
    assert demo.held_out(data, 10_000).tolist() == test.tolist()


@pytest.mark.parametrize("argv", [["--clips", "0"], ["--jobs", "0"]])
def test_bad_numbers_are_refused_in_one_line(argv, capsys):
    assert demo.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("kws-demo: ") and err.count("\n") == 1


@pytest.mark.sim
@pytest.mark.slow
@pytest.mark.usefixtures("need_qemu")
def test_kws_demo_short_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(demo, "TRACE_HOPS", TRACE_HOPS)
    assert demo.main(["--clips", "3", "--jobs", "2", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rec = json.loads((tmp_path / "demo.json").read_text())
    assert rec["clips"] == 3 and rec["hops"] == 300 and rec["bytes_equal_hops"] == 300
    assert set(rec["accuracy"]) == {"eager_fp32", "int8_host", "firmware"}
    assert np.sum(rec["confusion_firmware"]) == 3
    assert (tmp_path / "confusion_firmware.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    est = rec["pico2_estimate"]
    assert est["clock_hz"] == 150_000_000 and 1.0 < est["cycles_per_instruction"] < 3.0
    assert est["traced_hops"] == TRACE_HOPS and est["cycles_per_traced_hop"] > 100_000
    ipc = rec["instructions_per_hop"]
    assert 100_000 < ipc["min"] <= ipc["mean"] <= ipc["max"]
    assert rec["size"]["pico2"]["ram_bytes"] > 0 and rec["size"]["mps2-an505"]["flash_bytes"] > 0
    for text in ("eager fp32", "int8, host runtime", "firmware (mps2-an505)", "Pico 2 ESTIMATE at 150 MHz",
                 "% of the 10 ms hop", "equal the host runtime's for all 300 hops", "confusion_firmware.png"):
        assert text in out, text
