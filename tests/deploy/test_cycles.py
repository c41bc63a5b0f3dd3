"""The Cortex-M33 cycle estimate (aot.deploy.cycles): the cost classes on
hand-written instructions, the trace parser on a hand-written QEMU log, its
cut at the event tracer's tick reads into per-instruction spans, and (sim) a
traced run whose instruction count matches the exact -icount one, and
`aot profile --estimate-cycles`, whose rows sum to `aot run --estimate-cycles`."""
from __future__ import annotations

import json
import re
import warnings

import pytest

import zoo
from aot.deploy.cycles import Insn, annotate, estimate, instruction_spans, insn_cost, parse_trace


def _i(m, ops="", addr=0x100, size=2):
    return Insn(addr, size, m, ops)


@pytest.mark.parametrize("insn,taken,after_load,want", [
    (_i("adds", "r0, r1, r2"), False, False, (1, "data processing")),
    (_i("moveq", "r0, #1"), False, False, (1, "data processing")),
    (_i("ldr", "r2, [r0, #0x34]"), False, False, (2, "load")),
    (_i("ldr.w", "r2, [r0, #0x34]"), False, True, (1, "load")),       # pipelined after a load
    (_i("ldrb", "r2, [r0]"), False, False, (2, "load")),
    (_i("str", "r3, [sp]"), False, False, (1, "store")),
    (_i("push.w", "{r0, r1, r4, r5, r6, r7, r8, lr}"), False, False, (9, "store multiple")),
    (_i("pop", "{r4-r7, pc}"), False, False, (1 + 5 + 2, "load multiple")),
    (_i("vpush", "{s16-s31}"), False, False, (17, "store multiple")),
    (_i("bne", "#0x1000075e"), True, False, (3, "branch taken")),
    (_i("bne", "#0x1000075e"), False, False, (1, "branch not taken")),
    (_i("bl", "#0x10000100"), True, False, (3, "branch taken")),
    (_i("cbz", "r3, #0x100006f6"), False, False, (1, "branch not taken")),
    (_i("smlad", "r0, r1, r2, r0"), False, False, (1, "multiply")),
    (_i("sdiv", "r0, r1, r2"), False, False, (7, "divide")),
    (_i("vfma.f32", "s0, s1, s2"), False, False, (3, "fp mac")),
    (_i("vdiv.f32", "s0, s1, s2"), False, False, (14, "fp divide")),
    (_i("vadd.f32", "s0, s1, s2"), False, False, (1, "fp")),
    (_i("ldr", "pc, [sp], #4"), False, False, (4, "load")),
])
def test_cost_classes(insn, taken, after_load, want):
    assert insn_cost(insn, taken, after_load) == want


LOG = """\
IN: main
0x10000010:  b510       push     {r4, lr}
0x10000012:  f000 f801  bl       #0x10000018

Trace 0: 0x7f0000000100 [00800442/10000010/00000050/ff020200] main
----------------
IN: mote_method_execute
0x10000018:  6803       ldr      r3, [r0]
0x1000001a:  6844       ldr      r4, [r0, #4]
0x1000001c:  2b00       cmp      r3, #0
0x1000001e:  d1fb       bne      #0x10000018

Trace 0: 0x7f0000000200 [00800442/10000018/00000050/ff020200] mote_method_execute
Trace 0: 0x7f0000000200 [00800442/10000018/00000050/ff020200] mote_method_execute
----------------
IN: mote_method_execute
0x10000020:  bd10       pop      {r4, pc}

Trace 0: 0x7f0000000300 [00800442/10000020/00000050/ff020200] mote_method_execute
----------------
IN: main
0x10000016:  2000       movs     r0, #0

Trace 0: 0x7f0000000400 [00800442/10000016/00000050/ff020200] main
cpu_io_recompile: rewound execution of TB to 10000016
Trace 0: 0x7f0000000400 [00800442/10000016/00000050/ff020200] main
"""


def test_trace_parse_and_region():
    tbs, runs = parse_trace(LOG.splitlines())
    assert [len(tbs[h]) for h in ("0x7f0000000100", "0x7f0000000200", "0x7f0000000300")] == [2, 4, 1]
    assert len(runs) == 5  # the rewound execution is dropped
    est = estimate(tbs, runs)
    # The loop TB twice (its branch taken, then not), then the pop: 9 instructions in the region.
    assert est.runs == 1 and est.instructions == 9
    loop_taken = 2 + 1 + 1 + 3        # load, pipelined load, cmp, taken bne
    loop_fall = 2 + 1 + 1 + 1         # ... bne not taken (the pop TB follows at 0x10000020)
    pop = 1 + 2 + 2                   # two registers, pc written: refill
    assert est.cycles == loop_taken + loop_fall + pop
    assert est.by_function == {"mote_method_execute": est.cycles}
    assert est.by_class["branch taken"] == 3 and est.by_class["branch not taken"] == 1


# A traced inference (MOTE_TRACE's exec_traced): a tick read (mote_port_ticks)
# before the one program instruction (a kernel call), one after it, one at the end.
TRACED_LOG = """\
IN: main
0x10000010:  b510       push     {r4, lr}
0x10000012:  f000 f801  bl       #0x10000018

Trace 0: 0x7f0000001100 [00800442/10000010/00000050/ff020200] main
----------------
IN: mote_method_execute
0x10000018:  2400       movs     r4, #0
0x1000001a:  f000 f8f1  bl       #0x10000200

Trace 0: 0x7f0000001200 [00800442/10000018/00000050/ff020200] mote_method_execute
----------------
IN: mote_port_ticks
0x10000200:  6818       ldr      r0, [r3]
0x10000202:  4770       bx       lr

Trace 0: 0x7f0000001300 [00800442/10000200/00000050/ff020200] mote_port_ticks
----------------
IN: mote_method_execute
0x1000001e:  4605       mov      r5, r0
0x10000020:  f000 f86e  bl       #0x10000100

Trace 0: 0x7f0000001400 [00800442/1000001e/00000050/ff020200] mote_method_execute
----------------
IN: kern
0x10000100:  6811       ldr      r1, [r2]
0x10000102:  6853       ldr      r3, [r2, #4]
0x10000104:  fb21 0003  smlad    r0, r1, r3, r0
0x10000108:  4770       bx       lr

Trace 0: 0x7f0000001500 [00800442/10000100/00000050/ff020200] kern
----------------
IN: mote_method_execute
0x10000024:  f000 f8ec  bl       #0x10000200

Trace 0: 0x7f0000001600 [00800442/10000024/00000050/ff020200] mote_method_execute
Trace 0: 0x7f0000001300 [00800442/10000200/00000050/ff020200] mote_port_ticks
----------------
IN: mote_method_execute
0x10000028:  4606       mov      r6, r0
0x1000002a:  f000 f8e9  bl       #0x10000200

Trace 0: 0x7f0000001700 [00800442/10000028/00000050/ff020200] mote_method_execute
Trace 0: 0x7f0000001300 [00800442/10000200/00000050/ff020200] mote_port_ticks
----------------
IN: mote_method_execute
0x1000002e:  bd10       pop      {r4, pc}

Trace 0: 0x7f0000001800 [00800442/1000002e/00000050/ff020200] mote_method_execute
----------------
IN: main
0x10000016:  2000       movs     r0, #0

Trace 0: 0x7f0000001900 [00800442/10000016/00000050/ff020200] main
"""


def test_tick_reads_cut_a_traced_inference_into_instruction_spans():
    """LOG's untraced inference, then TRACED_LOG's: the second is cut at its
    three tick reads; the program instruction's span is the stretch between the
    first two (the kernel call and the loop around it), the reads in no span."""
    tbs, runs = parse_trace((LOG + "----------------\n" + TRACED_LOG).splitlines())
    est = estimate(tbs, runs)
    plain, traced = est.inferences
    assert (plain.markers, traced.markers) == (0, 3) and len(traced.spans) == 4
    read = 2 + 3                       # ldr after a taken bl, taken bx
    before = 1 + 3                     # movs, bl
    row = (1 + 3) + (2 + 1 + 1 + 3) + 3  # mov, bl; ldr, pipelined ldr, smlad, bx; bl
    after = (1 + 3) + (1 + 2 + 2)      # mov, bl; pop {r4, pc}
    assert [sp.cycles for sp in traced.spans] == [before, row, 1 + 3, 1 + 2 + 2]
    assert traced.cycles == before + row + after + 3 * read and traced.instructions == 18
    (span,) = instruction_spans(traced, 1)
    assert span is traced.spans[1] and (span.instructions, span.cycles) == (7, row)
    assert span.by_function == {"mote_method_execute": 1 + 3 + 3, "kern": 2 + 1 + 1 + 3}
    # above one cycle per instruction: three taken branches (2 each), the first load (1)
    assert span.extra_by_class() == {"branch taken": 6, "load": 1, "data processing": 0, "multiply": 0}
    assert span.cycles_per_instruction == pytest.approx(row / 7)
    # the untraced inferences alone: what `aot run --estimate-cycles` prices on a --trace profile build
    u = est.untraced()
    assert u.runs == 1 and u.per_run == [plain.cycles] and u.instructions == 9
    assert est.per_run == [plain.cycles, traced.cycles] and est.cycles == plain.cycles + traced.cycles
    with pytest.raises(ValueError, match="read the ticks 3 times, fewer than 2 x 2 instructions"):
        instruction_spans(traced, 2)
    # per instruction address: the span's 7 instructions, each priced where it ran
    rows = annotate(est, span)
    assert [(r["address"], r["executions"], r["cycles"]) for r in rows] == [
        (0x1000001e, 1, 1), (0x10000020, 1, 3), (0x10000024, 1, 3),
        (0x10000100, 1, 2), (0x10000102, 1, 1), (0x10000104, 1, 1), (0x10000108, 1, 3)]
    assert rows[3] == {"address": 0x10000100, "function": "kern", "instruction": "ldr r1, [r2]",
                       "executions": 1, "cycles": 2, "classes": {"load": 1}}
    assert sum(r["cycles"] for r in rows) == span.cycles


def test_profile_rows_gain_the_estimate():
    """add_cycle_estimate puts each span on its row and the untraced inference as the whole."""
    from aot.devtools.profile import add_cycle_estimate, render_text
    from aot.errors import MoteError
    tbs, runs = parse_trace((LOG + "----------------\n" + TRACED_LOG).splitlines())
    est = estimate(tbs, runs)
    p = {"model": "m", "target": "mps2-an505", "int8": True, "tick_unit": "instructions", "runs": 1,
         "total_ticks": 7, "whole_ticks": 9, "agreement": 7 / 9,
         "ops": [{"instr": 0, "op": "k", "kernel": "DSP", "input_shapes": [[4]], "output_shapes": [[1]],
                  "macs": 28, "ticks": 7, "share": 1.0, "macs_per_tick": 4.0, "source": "", "module": ""}]}
    add_cycle_estimate(p, est)
    (o,) = p["ops"]
    assert (o["est_cycles"], o["est_instructions"], o["cycles_per_instruction"]) == (14, 7, 2.0)
    assert o["cycles_by_function"] == {"mote_method_execute": 7, "kern": 7}
    e = p["estimate"]
    assert (e["total_cycles"], e["whole_cycles"], e["whole_instructions"]) == (14, 17, 9)
    assert e["extra_cycles_by_class"] == {"branch taken": 6, "load": 1}
    text = render_text(p)
    assert "est. cycles  cycles/instr  MACs/cycle" in text
    assert "estimated Cortex-M33 cycles: 14 over the rows (2.00 cycles/instruction, 2.00 MACs/cycle); " \
           "untraced whole inference: 17" in text
    assert "cycles above one per instruction, by class: branch taken 6, load 1" in text
    add_cycle_estimate(p, est, annotate=0)
    assert len(p["ops"][0]["addresses"]) == 7
    text = render_text(p)
    assert "#0 k [DSP]: 7 instructions, 14 estimated cycles (2.00 per instruction)" in text
    assert "  kern: 4 instructions, 7 cycles (1.75 per instruction)" in text
    assert re.search(r"10000104 +1 +1 +0 +smlad r0, r1, r3, r0 +kern +multiply 1", text)
    with pytest.raises(MoteError, match="program instruction 5 did not run: the rows are instructions 0"):
        add_cycle_estimate(p, est, annotate=5)


@pytest.mark.sim
def test_traced_run_matches_the_exact_instruction_count(tmp_path, capsys):
    """The region the estimate prices is the one -icount measures: small_cnn int8
    on mps2-an505, two input sets, traced instructions within 0.1 % of the OUT
    counts; estimated cycles between 1 and 3 per instruction."""
    from aot.cli import main
    out = tmp_path / "b"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["build", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--int8",
                     "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["run", str(out), "--target", "mps2-an505", "--estimate-cycles", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    exact = r["instructions"]
    traced = r["estimate"]["traced_instructions"]
    assert abs(traced - exact) <= max(40, exact // 1000), (traced, exact)
    assert exact < r["estimated_cycles"] < 3 * exact
    assert r["cycles_per_instruction"] == pytest.approx(r["estimated_cycles"] / traced, rel=1e-3)
    assert set(r["estimate"]["cycles_by_class"]) >= {"load", "multiply", "branch taken"}
    # the memory the estimate assumes, and the Pico 2 energy: cycles / clock x active power
    assert r["estimate"]["memory"].startswith("code and data in zero-wait-state memory")
    e = r["estimate"]["pico2_energy"]
    assert (e["active_mw"], e["clock_hz"]) == (80.0, 150_000_000) and "not an RP2350 datasheet figure" in e["source"]
    assert e["microjoules"] == pytest.approx(r["estimated_cycles"] / 150e6 * 80e-3 * 1e6, rel=1e-9)
    assert main(["run", str(out), "--target", "mps2-an505", "--estimate-cycles"]) == 0
    text = capsys.readouterr().out
    cyc = int(re.search(r"estimated Cortex-M33 cycles: ([\d,]+) per inference", text).group(1).replace(",", ""))
    m = re.search(r"estimated energy on a Pico 2: ([\d.]+) uJ per inference \(([\d.]+) ms x 80 mW at 150 MHz", text)
    assert m and "memory assumed: code and data in zero-wait-state memory" in text
    assert float(m.group(1)) == pytest.approx(cyc / 150e6 * 0.080 * 1e6, abs=0.05)
    assert float(m.group(2)) == pytest.approx(cyc / 150e6 * 1e3, abs=5e-4)
    assert main(["run", str(out), "--target", "host", "--estimate-cycles"]) == 1
    assert "--estimate-cycles traces a run on a simulated Cortex-M33 board" in capsys.readouterr().err


@pytest.mark.sim
def test_profile_estimate_cycles_rows_sum_to_the_run_estimate(tmp_path, capsys):
    """`aot profile --estimate-cycles` on small_cnn int8 (mps2-an505): every row
    priced over the instructions it counts, the rows within 0.5 % of the untraced
    inference, whose figure `aot run --estimate-cycles` of the same (traced)
    build prints."""
    from aot.cli import main
    out = tmp_path / "p"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["profile", str(zoo.path("small_cnn")), "--int8", "--target", "mps2-an505",
                     "-o", str(out), "--estimate-cycles", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    e = p["estimate"]
    assert e["total_cycles"] == sum(o["est_cycles"] for o in p["ops"])
    for o in p["ops"]:
        # the exec log and the -icount ticks agree to a few instructions a row (the tick
        # reads' own glue); up to 0.16 % seen (small_cnn's stem row, 55 of 33,504)
        assert abs(o["est_instructions"] - o["ticks"]) <= max(16, o["ticks"] // 400), o
        assert o["ticks"] <= o["est_cycles"] <= 3 * o["est_instructions"], o
        assert o["cycles_per_instruction"] == pytest.approx(o["est_cycles"] / o["est_instructions"], abs=1e-4)
        assert sum(o["cycles_by_function"].values()) == sum(o["cycles_by_class"].values()) == o["est_cycles"]
    conv = [o for o in p["ops"] if o["op"] == "mote::conv2d_s8.out"]
    assert conv and all(any("conv" in f for f in o["cycles_by_function"]) for o in conv)
    assert 0.995 <= e["agreement"] <= 1.0 and e["agreement"] == e["total_cycles"] / e["whole_cycles"]
    assert abs(e["whole_instructions"] - p["whole_ticks"]) <= 40
    assert sum(e["extra_cycles_by_class"].values()) == e["total_cycles"] - sum(o["est_instructions"] for o in p["ops"])
    # the same build's whole-inference figure: its untraced inference (not both)
    assert main(["run", str(out), "--target", "mps2-an505", "--estimate-cycles", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["estimated_cycles"] == e["whole_cycles"]
    assert r["estimate"]["traced_instructions"] == e["whole_instructions"]
    assert main(["profile", str(out), "--target", "mps2-an505", "--estimate-cycles"]) == 0
    text = capsys.readouterr().out
    assert "est. cycles  cycles/instr  MACs/cycle" in text
    assert f"untraced whole inference: {e['whole_cycles']:,} (the figure of aot run --estimate-cycles" in text
    assert main(["profile", str(out), "--target", "host", "--estimate-cycles"]) == 1
    assert "--estimate-cycles traces a run on a simulated Cortex-M33 board" in capsys.readouterr().err
    # one row per address: the conv's rows sum to the row
    k = conv[0]["instr"]
    assert main(["profile", str(out), "--target", "mps2-an505", "--estimate-cycles", "--annotate", str(k),
                 "--json"]) == 0
    (row,) = [o for o in json.loads(capsys.readouterr().out)["ops"] if "addresses" in o]
    assert row["instr"] == k and row["est_cycles"] == conv[0]["est_cycles"]
    assert sum(a["cycles"] for a in row["addresses"]) == row["est_cycles"]
    assert sum(a["executions"] for a in row["addresses"]) == row["est_instructions"]
    assert any(a["instruction"].startswith("smlad") for a in row["addresses"])
    assert main(["profile", str(out), "--target", "mps2-an505", "--annotate", str(k)]) == 1
    assert "--annotate N lists the estimated cycles of instruction N's addresses: add --estimate-cycles" \
        in capsys.readouterr().err
