"""The cycle estimates (aot.deploy.cycles): the Cortex-M33 and Cortex-M0+ cost
classes on hand-written instructions, the trace parser on a hand-written QEMU
log, its cut at the event tracer's tick reads into per-instruction spans, and
(sim) a traced run whose instruction count matches the exact -icount one,
`aot profile --estimate-cycles`, whose rows sum to `aot run --estimate-cycles`,
and the M0+ estimate of a microbit build."""
from __future__ import annotations

import json
import re
import warnings

import pytest

import zoo
from aot.deploy.cycles import (M0PLUS, M33, Insn, annotate, cost_model, estimate, instruction_spans, insn_cost,
                               parse_trace)


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
    (_i("muls", "r0, r1, r0"), False, False, (1, "multiply")),
    (_i("vmls.f32", "s0, s1, s2"), False, False, (3, "fp mac")),
])
def test_cost_classes(insn, taken, after_load, want):
    assert insn_cost(insn, taken, after_load) == want
    assert insn_cost(insn, taken, after_load, M33) == want


# Cortex-M0+ (Cortex-M0+ TRM, Table 3.1; the RP2040's single-cycle multiplier).
@pytest.mark.parametrize("insn,taken,want", [
    (_i("adds", "r0, r1, r2"), False, (1, "data processing")),
    (_i("movs", "r3, #0"), False, (1, "data processing")),
    (_i("sxtb", "r2, r2"), False, (1, "data processing")),
    (_i("muls", "r0, r1, r0"), False, (1, "multiply")),          # fast multiplier: 1, not 32
    (_i("ldr", "r2, [r0, #4]"), False, (2, "load")),
    (_i("ldrsb", "r2, [r0, r1]"), False, (2, "load")),
    (_i("str", "r3, [sp, #8]"), False, (2, "store")),
    (_i("strb", "r3, [r1]"), False, (2, "store")),
    (_i("push", "{r4, r5, r6, r7, lr}"), False, (6, "store multiple")),   # 1 + N, lr counted
    (_i("pop", "{r4, r5, r6, r7}"), False, (5, "load multiple")),         # 1 + N
    (_i("pop", "{r4, r5, r6, r7, pc}"), True, (7, "load multiple")),      # 3 + N, N without pc
    (_i("pop", "{pc}"), True, (3, "load multiple")),
    (_i("ldm", "r0!, {r1, r2, r3}"), False, (4, "load multiple")),
    (_i("stm", "r0!, {r1, r2}"), False, (3, "store multiple")),
    (_i("bne", "#0x1000075e"), True, (2, "branch taken")),
    (_i("bne", "#0x1000075e"), False, (1, "branch not taken")),
    (_i("b", "#0x1000075e"), True, (2, "branch taken")),
    (_i("bl", "#0x10000100", size=4), True, (3, "branch taken")),
    (_i("bx", "lr"), True, (2, "branch taken")),
    (_i("blx", "r3"), True, (2, "branch taken")),
    (_i("mov", "pc, r3"), True, (2, "branch taken")),
    (_i("mrs", "r0, primask", size=4), False, (3, "system")),
    (_i("msr", "primask, r0", size=4), False, (3, "system")),
    (_i("dsb", "sy", size=4), False, (3, "system")),
    (_i("isb", "sy", size=4), False, (3, "system")),
    (_i("wfi", ""), False, (2, "system")),
    (_i("cpsid", "i"), False, (1, "data processing")),
])
def test_m0plus_cost_classes(insn, taken, want):
    assert insn_cost(insn, taken, False, M0PLUS) == want
    # no pipelining of consecutive loads on the two-stage M0+ (the M33 pipelines them)
    assert insn_cost(insn, taken, True, M0PLUS) == want


def test_m0plus_lacks_the_mainline_instructions():
    for m in ("sdiv", "vadd.f32", "vfma.f32", "vdiv.f32"):
        with pytest.raises(ValueError, match=f"{m} at 0x100 is not a Cortex-M0\\+ instruction"):
            insn_cost(_i(m, "r0, r1, r2"), False, False, M0PLUS)


# An Armv6-M loop (QEMU microbit's disassembly of a byte MAC): 16 iterations.
M0_LOG = """\
IN: main
0x00000100:  b510       push     {r4, lr}
0x00000102:  f000 f801  bl       #0x108

Trace 0: 0x7f0000002100 [00000000/00000100/00000050/ff020200] main
----------------
IN: mote_method_execute
0x00000108:  b570       push     {r4, r5, r6, lr}
0x0000010a:  2400       movs     r4, #0

Trace 0: 0x7f0000002200 [00000000/00000108/00000050/ff020200] mote_method_execute
----------------
IN: mote_method_execute
0x0000010c:  5705       ldrsb    r5, [r0, r4]
0x0000010e:  570e       ldrsb    r6, [r1, r4]
0x00000110:  4375       muls     r5, r6, r5
0x00000112:  18ed       adds     r5, r5, r3
0x00000114:  3401       adds     r4, #1
0x00000116:  2c10       cmp      r4, #0x10
0x00000118:  d1f8       bne      #0x10c

""" + "".join("Trace 0: 0x7f0000002300 [00000000/0000010c/00000050/ff020200] mote_method_execute\n"
              for _ in range(16)) + """----------------
IN: mote_method_execute
0x0000011a:  bd70       pop      {r4, r5, r6, pc}

Trace 0: 0x7f0000002400 [00000000/0000011a/00000050/ff020200] mote_method_execute
----------------
IN: main
0x00000106:  bd10       pop      {r4, pc}

Trace 0: 0x7f0000002500 [00000000/00000106/00000050/ff020200] main
"""


def test_m0plus_prices_an_armv6m_trace():
    """The loop above on the M0+: push (1 + 4), movs; 16 x (two loads of 2, muls,
    adds, adds, cmp, bne: 2 taken, 1 the last time); pop and return 3 + 3."""
    tbs, runs = parse_trace(M0_LOG.splitlines())
    m0 = estimate(tbs, runs, costs=M0PLUS)
    body = 2 + 2 + 1 + 1 + 1 + 1
    want = (1 + 4) + 1 + 15 * (body + 2) + (body + 1) + (3 + 3)
    assert (m0.runs, m0.instructions, m0.cycles) == (1, 2 + 16 * 7 + 1, want)
    assert m0.costs is M0PLUS and m0.untraced().costs is M0PLUS
    assert m0.by_class == {"store multiple": 5, "data processing": 1 + 16 * 3, "load": 16 * 4,
                           "multiply": 16, "branch taken": 15 * 2, "branch not taken": 1, "load multiple": 6}
    # the same trace on the M33 cost table: loads pipeline, branches refill 2, pop with pc 1 + N + 2
    m33 = estimate(tbs, runs, costs=M33)
    assert m33.cycles == (1 + 4) + 1 + 15 * (2 + 1 + 4 + 3) + (2 + 1 + 4 + 1) + (1 + 4 + 2)
    assert m0.cycles >= m0.instructions
    assert [r["cycles"] for r in annotate(m0, m0.inferences[0]) if r["address"] in (0x10c, 0x110, 0x118)] == \
        [16 * 2, 16, 15 * 2 + 1]


def test_cost_model_by_board():
    """microbit (Cortex-M0) traces are priced as the RP2040's M0+, mps2-an505 as the M33;
    the pico (rp2040js) and boards without a table get one line each."""
    from aot.deploy.boards import load_board
    from aot.errors import RunError
    assert cost_model(load_board("microbit")) is M0PLUS
    assert cost_model(load_board("mps2-an505")) is M33
    with pytest.raises(RunError, match=r"^--estimate-cycles prices a QEMU trace; pico runs on rp2040js, whose OUT "
                                       r"figures are core cycles already: .* --target microbit --estimate-cycles$"):
        cost_model(load_board("pico"))
    with pytest.raises(RunError, match=r"^--estimate-cycles has Cortex-M33 \(mps2-an505\) and Cortex-M0\+ "
                                       r"\(microbit\) cost models; mps2-an385 is a cortex-m3$"):
        cost_model(load_board("mps2-an385"))


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
    assert ("--estimate-cycles traces a run on a simulated board with a cost model (--target mps2-an505: "
            "Cortex-M33; --target microbit: Cortex-M0+), not host") in capsys.readouterr().err


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
    assert ("--estimate-cycles traces a run on a simulated board with a cost model (--target mps2-an505: "
            "Cortex-M33; --target microbit: Cortex-M0+), not host") in capsys.readouterr().err
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


@pytest.mark.sim
def test_microbit_estimate_prices_the_m0_trace_as_the_rp2040s_m0plus(tmp_path, capsys):
    """`aot profile` and `aot run --estimate-cycles` on small_cnn int8 built for the
    microbit (QEMU, Cortex-M0): the estimate names the Cortex-M0+ and the trace it
    priced, costs at least one cycle per instruction (within 3), its rows sum to the
    untraced inference; the pico (rp2040js) and a board without a cost table are
    refused with one line before any run."""
    from aot.cli import main
    out = tmp_path / "mb"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["profile", str(zoo.path("small_cnn")), "--int8", "--target", "microbit",
                     "-o", str(out), "--estimate-cycles", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    e = p["estimate"]
    assert (e["model"], e["label"]) == ("cortex-m0plus", "Cortex-M0+")
    assert e["traced_on"] == "the QEMU microbit (Cortex-M0) trace of the same Armv6-M code"
    assert e["memory"].startswith("RP2040: every XIP flash access (code, weights) a cache hit")
    assert e["total_cycles"] == sum(o["est_cycles"] for o in p["ops"]) and 0.995 <= e["agreement"] <= 1.0
    for o in p["ops"]:
        assert o["ticks"] <= o["est_cycles"] <= 3 * o["est_instructions"], o
    conv = [o for o in p["ops"] if o["op"] == "mote::conv2d_s8.out"]
    assert conv and all(o["cycles_by_class"]["multiply"] > 0 for o in conv)
    assert main(["run", str(out), "--target", "microbit", "--estimate-cycles", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    exact, est = r["instructions"], r["estimated_cycles"]
    assert est == e["whole_cycles"] and exact <= est < 3 * exact
    assert abs(r["estimate"]["traced_instructions"] - exact) <= max(40, exact // 1000)
    assert (r["estimate"]["model"], r["estimate"]["clock_board"], r["estimate"]["clock_hz"]) == \
        ("cortex-m0plus", "pico", 125_000_000)
    assert set(r["estimate"]["cycles_by_class"]) >= {"load", "store", "multiply", "branch taken"}
    assert main(["run", str(out), "--target", "microbit", "--estimate-cycles"]) == 0
    text = capsys.readouterr().out
    m = re.search(r"estimated Cortex-M0\+ cycles: ([\d,]+) per inference \(([\d.]+) cycles/instruction; "
                  r"([\d.]+) ms at 125 MHz on a Pico\)", text)
    assert m and int(m.group(1).replace(",", "")) == est
    assert float(m.group(3)) == pytest.approx(est / 125e3, abs=0.005)
    assert "  priced with the RP2040's Cortex-M0+ timings from the QEMU microbit (Cortex-M0) trace" in text
    assert "Cortex-M33" not in text and "Pico 2" not in text
    assert main(["profile", str(out), "--target", "microbit", "--estimate-cycles"]) == 0
    text = capsys.readouterr().out
    assert f"estimated Cortex-M0+ cycles: {e['total_cycles']:,} over the rows" in text
    assert "priced with the RP2040's Cortex-M0+ timings from the QEMU microbit" in text
    for target, line in (("pico", "--estimate-cycles prices a QEMU trace; pico runs on rp2040js"),
                         ("mps2-an385", "--estimate-cycles has Cortex-M33 (mps2-an505) and Cortex-M0+ "
                                        "(microbit) cost models; mps2-an385 is a cortex-m3")):
        assert main(["run", str(out), "--target", target, "--estimate-cycles"]) == 1
        err = capsys.readouterr().err
        assert line in err and len(err.strip().splitlines()) == 1, err
