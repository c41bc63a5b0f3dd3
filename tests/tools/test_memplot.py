"""aot.tools.memplot and ``aot inspect --png``: the arena plan picture of
zoo/small_cnn.py (fp32, and int8 with kernel scratch), checked against what the
reader reports and for consistency (live tensors never share bytes, except the
in-place handoffs the planner makes)."""
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aot.compiler.emit import build_program
from aot.compiler.manifest import model_header_text
from aot.compiler.pipeline import compile_model_file
from aot.compiler.scratch import scratch_slots
from aot.tools import memplot
from aot.errors import MoteError, PteFormatError
from aot.pte.reader import read_pte
from aot.tools.inspect import inspect_pte

ROOT = Path(__file__).resolve().parents[2]
AOT = Path(sys.executable).parent / "aot"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def fp32(tmp_path_factory):
    """(Compiled, path of its .pte written as aot export writes it)."""
    path = tmp_path_factory.mktemp("fp32") / "small_cnn.pte"
    return compile_model_file(ROOT / "zoo" / "small_cnn.py", out_pte=path), path


@pytest.fixture(scope="module")
def int8(tmp_path_factory):
    path = tmp_path_factory.mktemp("int8") / "small_cnn.pte"
    return compile_model_file(ROOT / "zoo" / "small_cnn.py", int8=True, out_pte=path), path


def _read_png(path: Path):
    import matplotlib.image as mpimg
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    return mpimg.imread(str(path))


def _check_png(path: Path, summary: dict):
    img = _read_png(path)
    h, w = img.shape[:2]
    assert (w, h) == (summary["width_px"], summary["height_px"])
    assert 600 <= w <= 3000 and 400 <= h <= 2500
    assert img.shape[2] in (3, 4)
    assert float(img[..., :3].std()) > 0.05        # a drawing, not a blank canvas
    # no temporary file left beside it
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def _check_consistent(plan: dict, pte_path: Path):
    """Every rectangle inside its arena and the instruction range; two
    rectangles overlapping in bytes and lifetime only when the second is the
    output an instruction writes over its input at the instruction where that
    input dies (same first byte), or an exact alias; scratch overlaps no live tensor."""
    p = read_pte(pte_path).plan(plan["method"])
    sizes = {a["mem_id"]: a["bytes"] for a in plan["arenas"]}
    for r in plan["rects"]:
        assert 0 <= r["offset"] and r["offset"] + r["bytes"] <= sizes[r["mem_id"]], r
        assert 0 <= r["first"] <= r["last"] < plan["instructions"], r
    rects = [r for r in plan["rects"] if r["bytes"] > 0]
    shared = []
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            bytes_overlap = (a["mem_id"] == b["mem_id"] and a["offset"] < b["offset"] + b["bytes"]
                             and b["offset"] < a["offset"] + a["bytes"])
            live_overlap = a["first"] <= b["last"] and b["first"] <= a["last"]
            if not (bytes_overlap and live_overlap):
                continue
            assert a["kind"] == b["kind"] == "tensor", (a, b)       # scratch shares with nobody
            if (a["offset"], a["bytes"]) == (b["offset"], b["bytes"]) and a["first"] == b["first"]:
                shared.append(sorted((a["value"], b["value"])))    # exact alias
                continue
            src, dst = (a, b) if a["last"] == b["first"] else (b, a)
            assert src["last"] == dst["first"] and src["offset"] == dst["offset"], (a, b)
            ins = p.instructions[src["last"]]
            assert ins.args[-1] == dst["value"], (a, b, ins)            # the op's output ...
            views = {v.args[-1] for v in p.instructions
                     if v.op == "executorch_prim::et_view.default" and v.args[0] == src["value"]}
            operands = set(ins.args[:-1])
            assert src["value"] in operands or views & operands, (a, b, ins)  # ... over its input
            shared.append(sorted((a["value"], b["value"])))
    assert sorted(shared) == plan["shared"]
    assert plan["plan_conflicts"] == []


def test_fp32_picture_matches_the_reader(fp32, tmp_path):
    compiled, pte = fp32
    out = tmp_path / "pics" / "small_cnn.png"            # parent folder is created
    s = memplot.draw_arena_plan(pte, out)
    _check_png(out, s)
    info = inspect_pte(pte)
    assert s["tensors"] == len(info["memory_plan"]) > 0
    assert s["tensors_not_used"] == 0
    assert s["arena_bytes"] == info["arena_bytes"] == list(compiled.spec.arena_sizes[1:])
    assert s["arena_total_bytes"] == info["arena_total_bytes"]
    # no scratch in an fp32 program: the bound is exactly aot inspect's
    assert s["scratch_blocks"] == 0 and s["scratch_source"] is None
    assert s["lower_bound_bytes"] == [info["arena_lower_bound_bytes"]]
    assert s["planner_lower_bound_bytes"] == compiled.spec.plan_info["arena_lower_bound_bytes"]
    assert s["model"] == "small_cnn" and s["method"] == "forward"
    plan = memplot.arena_plan(pte)
    rows = {r["value"]: r for r in info["memory_plan"]}
    for r in plan["rects"]:
        row = rows[r["value"]]
        assert (r["mem_id"], r["offset"], r["bytes"], r["first"], r["last"]) == \
            (row["mem_id"], row["offset"], row["bytes"], row["first"], row["last"])
    _check_consistent(plan, pte)


def test_int8_picture_shows_the_planned_scratch(int8, tmp_path):
    compiled, pte = int8
    slots = scratch_slots(compiled.spec)
    assert slots                                           # int8 convs plan scratch in the arena
    out = tmp_path / "int8.png"
    s = memplot.draw_compiled(compiled, out)
    _check_png(out, s)
    assert s["scratch_blocks"] == len(slots) and s["scratch_source"] == "given"
    assert s["tensors"] == len(inspect_pte(pte)["memory_plan"])
    plan = memplot.arena_plan(compiled.pte, scratch_slots=slots)
    got = sorted((r["first"], r["offset"], r["bytes"]) for r in plan["rects"] if r["kind"] == "scratch")
    assert got == sorted(slots)
    _check_consistent(plan, pte)
    # scratch counted: the live bytes at some instruction fill the arena exactly
    # here, and are never below the tensors-only bound nor above the arena
    tensors_only = inspect_pte(pte)["arena_lower_bound_bytes"]
    assert tensors_only <= s["lower_bound_bytes"][0] <= s["arena_bytes"][0]
    # the .pte alone does not record the scratch
    bare = memplot.arena_plan(pte)
    assert bare["scratch_source"] is None and bare["scratch_blocks"] == 0
    assert bare["arenas"][0]["lower_bound_bytes"] == tensors_only


def test_build_folder_header_gives_the_scratch_only_when_it_matches(int8, tmp_path):
    compiled, _ = int8
    folder = tmp_path / "build"
    folder.mkdir()
    (folder / "model.pte").write_bytes(compiled.pte)
    slots = scratch_slots(compiled.spec)
    header = model_header_text(compiled.spec, "small_cnn", compiled.manifest,
                               firmware={"state_bytes": 0, "inputs_bytes": 0, "scratch_slots": slots})
    (folder / "mote_model.h").write_text(header)
    plan = memplot.arena_plan(folder)
    assert plan["scratch_source"] == "mote_model.h" and plan["model"] == "small_cnn"
    assert sorted((r["first"], r["offset"], r["bytes"]) for r in plan["rects"] if r["kind"] == "scratch") \
        == sorted(slots)
    assert memplot.header_scratch_slots(header, compiled.pte) == slots
    # a header of another program (CRC-32 differs) is ignored
    assert memplot.header_scratch_slots(header, compiled.pte + b"\0") is None
    (folder / "model.pte").write_bytes(compiled.pte[:-1] + bytes([compiled.pte[-1] ^ 1]))
    assert memplot.arena_plan(folder)["scratch_source"] is None


def test_two_arenas_are_two_panels(fp32, tmp_path):
    compiled, _ = fp32
    spec = copy.deepcopy(compiled.spec)
    out_val = spec.outputs[0]
    t = spec.values[out_val]
    t.mem_id, t.mem_offset = 2, 0                          # the output moves to its own arena
    spec.arena_sizes = list(spec.arena_sizes[:2]) + [t.nbytes]
    data = build_program(spec).data
    s = memplot.draw_arena_plan(data, tmp_path / "two.png", title="two arenas")
    _check_png(tmp_path / "two.png", s)
    assert s["arena_bytes"] == [compiled.spec.arena_sizes[1], t.nbytes]
    assert s["model"] == "program"
    plan = memplot.arena_plan(data)
    assert [a["mem_id"] for a in plan["arenas"]] == [1, 2]
    assert [a["tensors"] for a in plan["arenas"]] == [s["tensors"] - 1, 1]
    assert plan["arenas"][1]["lower_bound_bytes"] == t.nbytes


def test_failed_write_keeps_the_old_file(fp32, tmp_path, monkeypatch):
    _, pte = fp32
    out = tmp_path / "plan.png"
    out.write_bytes(b"old")

    def no_fsync(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", no_fsync)
    with pytest.raises(MoteError, match="cannot write .*plan.png: No space left on device"):
        memplot.draw_arena_plan(pte, out)
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.png"]


def test_not_a_pte(tmp_path):
    bad = tmp_path / "x.pte"
    bad.write_bytes(b"not a program at all")
    with pytest.raises(PteFormatError):
        memplot.draw_arena_plan(bad, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(MoteError, match="no such file|No such file"):
        memplot.draw_arena_plan(tmp_path / "missing.pte", tmp_path / "x.png")


# ------------------------------------------------------------------ the command line


def _aot(*args):
    return subprocess.run([str(AOT), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_cli_png(fp32, tmp_path):
    _, pte = fp32
    out = tmp_path / "out.png"
    r = _aot("inspect", pte, "--png", out)
    assert r.returncode == 0, r.stderr
    plain = _aot("inspect", pte)
    assert r.stdout.startswith(plain.stdout)               # the report itself is unchanged
    n = len(inspect_pte(pte)["memory_plan"])
    assert r.stdout[len(plain.stdout):].startswith(f"arena plan: {out} ({n} tensors, 0 scratch blocks")
    img = _read_png(out)
    assert img.shape[0] > 400 and img.shape[1] > 600
    j = _aot("inspect", pte, "--json", "--png", tmp_path / "j.png")
    assert j.returncode == 0, j.stderr
    info = json.loads(j.stdout)
    assert info["arena_png"]["tensors"] == len(info["memory_plan"]) == n
    assert info["arena_png"]["arena_bytes"] == info["arena_bytes"]


def test_cli_errors_are_one_line(fp32, tmp_path):
    _, pte = fp32
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    r = _aot("inspect", pte, "--png", blocker / "out.png")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("aot inspect: error: cannot write ") and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"\0" * 64)
    r = _aot("inspect", bad, "--png", tmp_path / "bad.png")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("aot inspect: error: ") and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "bad.png").exists()
