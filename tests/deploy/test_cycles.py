"""The Cortex-M33 cycle estimate (aot.deploy.cycles): the cost classes on
hand-written instructions, the trace parser on a hand-written QEMU log, and
(sim) a traced run whose instruction count matches the exact -icount one."""
from __future__ import annotations

import json
import re
import warnings

import pytest

import zoo
from aot.deploy.cycles import Insn, estimate, insn_cost, parse_trace


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
