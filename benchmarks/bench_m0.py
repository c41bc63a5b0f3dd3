"""Cortex-M0+ cycles per inference: rp2040js (the Pico's RP2040) beside QEMU's microbit (Cortex-M0) and Mote's estimate.

  .venv/bin/python benchmarks/bench_m0.py [--quick] [--json FILE] [--models NAME ...]

For every zoo model that fits both the micro:bit (nRF51: 16 KiB RAM, 256 KiB
flash) and the Pico (RP2040: 264 KiB RAM), fp32 and int8 (`aot build --int8`,
int8 I/O as bench_mcu.py builds it), firmware is built for both boards
(aot.deploy.build.build_compiled, under build/bench/m0/) and run (always under
a timeout):

* microbit on QEMU with -icount shift=0: the OUT line's exact instruction count
  of mote_method_execute (Cortex-M0, Armv6-M);
* the same microbit firmware once more with QEMU's execution log, priced with
  Mote's Cortex-M0+ cost table (aot.deploy.cycles.M0PLUS: the Cortex-M0+ TRM's
  timings, the RP2040's single-cycle multiplier, every XIP access a cache hit):
  `aot run --target microbit --estimate-cycles`'s figure;
* pico on rp2040js from its UF2 (aot.deploy.rp2040js): the OUT line's count is
  SysTick on the core clock, which rp2040js advances with its own per-instruction
  cycle count: rp2040js's cycles per inference.

Printed side by side: QEMU M0 instructions, the M0+ estimate, rp2040js cycles,
estimate / rp2040js, rp2040js cycles per instruction; and what explains the
difference: the executions of PUSH {..., lr} (rp2040js charges a push 1 cycle per
low register and none for lr, the TRM 1 + N with lr among the N), the estimate
without them over rp2040js. Two checks that the same inference ran: the outputs
of both boards are equal (bytes), and every function the two ELFs share outside
the ports (mote_port_*, the pico's boot2 and binary info) disassembles to the
same instructions (addresses and literal-pool words aside): the microbit build
compiles with -mcpu=cortex-m0, the pico build with -mcpu=cortex-m0plus.

The programs differ slightly around the inference (port, UART driver, startup,
board init); the figures are of the inference alone. Models that do not fit the
micro:bit are listed with the build's reason.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as cm  # noqa: E402

BOARDS = ("microbit", "pico")
TIMEOUT_S = 600.0
#: Functions of the ports and the pico image's extras: not the inference's code.
PORT_PREFIXES = ("mote_port_", "mote_rp2040_", "mote_bi_", "__mote_boot2")


def functions(elf) -> dict:
    """{function symbol: [instruction text]} of an ELF's FUNC symbols, every number
    in an operand masked (addresses and branch targets differ between the boards);
    literal-pool data (.word) left out."""
    from aot.deploy.firmware import CC
    objdump = CC.replace("gcc", "objdump")
    readelf = CC.replace("gcc", "readelf")
    syms = subprocess.run([readelf, "-sW", str(elf)], capture_output=True, text=True, check=True).stdout
    funcs = {f[7] for f in (ln.split() for ln in syms.splitlines()) if len(f) >= 8 and f[3] == "FUNC"}
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    code, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            cur = code.setdefault(m.group(1), []) if m.group(1) in funcs else None
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+(.*)$", line)
        if m and cur is not None:
            t = re.sub(r";.*|@.*|<[^>]*>", "", m.group(1)).split(None, 1)
            if t and not t[0].startswith("."):
                ops = re.sub(r"0x[0-9a-f]+|\b[0-9a-f]+\b", "N", t[1]) if len(t) > 1 else ""
                cur.append(f"{t[0]} {ops}".strip())
    return code


def same_code(elf_a, elf_b) -> dict:
    """The functions both ELFs define outside the ports: {"functions": how many,
    "differ": the names whose instructions differ}."""
    a, b = functions(elf_a), functions(elf_b)
    common = sorted(k for k in set(a) & set(b) if not k.startswith(PORT_PREFIXES))
    return {"functions": len(common), "differ": [k for k in common if a[k] != b[k]]}


def push_lr_executions(est, inference) -> int:
    """Executions of PUSH {..., lr} in `inference` of the Estimate `est`."""
    n = 0
    for (host, _after_load, _taken, _sym), times in inference.blocks.items():
        n += times * sum(1 for i in est.translations[host]
                         if i.mnemonic.startswith("push") and re.search(r"\blr\b", i.operands))
    return n


def _equal_outputs(a, b) -> bool:
    import numpy as np
    return len(a) == len(b) and all(len(x) == len(y) and all(
        np.asarray(p).dtype == np.asarray(q).dtype and np.array_equal(np.asarray(p), np.asarray(q))
        for p, q in zip(x, y)) for x, y in zip(a, b))


def run_one(name: str, int8: bool) -> dict:
    """One model and dtype on both boards (see the module docstring)."""
    import zoo
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.boards import load_board
    from aot.deploy.build import build_compiled
    from aot.deploy.cycles import M0PLUS, trace_firmware
    from aot.deploy.run import run_build
    from aot.errors import BuildError
    try:
        c = compile_model_file(zoo.path(name), int8=int8, int8_io=int8)
    except Exception as e:  # noqa: BLE001 - report and go on
        return {"error": "compile: " + cm.short_error(e)}
    tag = "int8" if int8 else "fp32"
    arts = {}
    for b in BOARDS:
        try:
            arts[b] = build_compiled(c, b, cm.BUILD_DIR / "m0" / f"{name}-{b}-{tag}")
        except BuildError as e:
            # the build's reason without its list of the largest tensors/constants
            return {"skipped": f"does not fit the {b}: {str(e).split('. Largest')[0]}", "arena_bytes": c.arena_bytes}
        except Exception as e:  # noqa: BLE001
            return {"error": f"build for {b}: {cm.short_error(e)}"}
    try:
        mb = run_build(arts["microbit"].out_dir, timeout=TIMEOUT_S)
        pico = run_build(arts["pico"].out_dir, timeout=TIMEOUT_S)
        est = trace_firmware(arts["microbit"].elf, load_board("microbit"), timeout_s=TIMEOUT_S, costs=M0PLUS)
    except Exception as e:  # noqa: BLE001
        return {"error": cm.short_error(e)}
    plain = est.untraced().inferences
    if not plain:
        return {"error": "the traced microbit run made no inference"}
    instr, cycles, est_cyc = int(mb.cycles[0]), int(pico.cycles[0]), plain[0].cycles
    push_lr = push_lr_executions(est, plain[0])
    return {"instructions": instr, "estimated_cycles": est_cyc, "rp2040js_cycles": cycles,
            "traced_instructions": plain[0].instructions,
            "estimate_over_rp2040js": round(est_cyc / cycles, 5),
            "rp2040js_cycles_per_instruction": round(cycles / instr, 4),
            "estimate_cycles_per_instruction": round(plain[0].cycles_per_instruction, 4),
            "push_lr_executions": push_lr,
            "estimate_without_lr_over_rp2040js": round((est_cyc - push_lr) / cycles, 5),
            "cycles_by_class": dict(plain[0].by_class.most_common()),
            "pico_ms": round(1000 * cycles / load_board("pico").clock_hz, 3),
            "outputs_equal": _equal_outputs(mb.outputs, pico.outputs),
            "same_code": same_code(arts["microbit"].elf, arts["pico"].elf),
            "arch_flags": {b: load_board(b).arch_flags for b in BOARDS},
            "ram_bytes": {b: int(arts[b].size["ram_bytes"]) for b in BOARDS},
            "arena_bytes": c.arena_bytes}


HEADERS = ["model", "dtype", "QEMU M0 instr", "M0+ estimate", "rp2040js cycles", "est/rp2040js",
           "rp2040js cyc/instr", "PUSH{lr}", "(est-PUSH{lr})/rp2040js", "same code", "same out"]


def rows(results: dict) -> list:
    out = []
    for name, r in results.items():
        for tag in ("fp32", "int8"):
            q = r.get(tag) or {}
            if "instructions" not in q:
                continue
            sc = q["same_code"]
            out.append([name, tag, cm.fmt(q["instructions"]), cm.fmt(q["estimated_cycles"]),
                        cm.fmt(q["rp2040js_cycles"]), f"{q['estimate_over_rp2040js']:.4f}",
                        f"{q['rp2040js_cycles_per_instruction']:.3f}", cm.fmt(q["push_lr_executions"]),
                        f"{q['estimate_without_lr_over_rp2040js']:.4f}",
                        f"{sc['functions'] - len(sc['differ'])}/{sc['functions']}",
                        "yes" if q["outputs_equal"] else "NO"])
    return out


def main(argv=None) -> int:
    ap = cm.arg_parser(__doc__)
    args = ap.parse_args(argv)
    names = cm.model_names(args)
    results = {}
    jobs = [(n, q) for n in names for q in (False, True)]
    for name, int8 in cm.progress(jobs, "bench_m0"):
        results.setdefault(name, {})["int8" if int8 else "fp32"] = run_one(name, int8)

    from aot.deploy.boards import load_board
    from aot.deploy.cycles import M0PLUS
    env = cm.environment()
    flags = {b: " ".join(load_board(b).arch_flags) for b in BOARDS}
    print(f"bench_m0: Cortex-M0+ cycles per inference, rp2040js beside QEMU microbit and Mote's estimate "
          f"({env['date_utc']})\n")
    table = rows(results)
    if table:
        print(cm.table(HEADERS, table))
    print(f"\n  QEMU M0 instr: exact instructions per inference on QEMU microbit (-icount shift=0). "
          f"M0+ estimate: the microbit trace priced with aot.deploy.cycles.M0PLUS ({M0PLUS.memory}). "
          f"rp2040js cycles: the pico UF2 on rp2040js, SysTick on the core clock.\n"
          f"  PUSH{{lr}}: executions of PUSH {{..., lr}}, which rp2040js charges one cycle less than the "
          f"Cortex-M0+ TRM (1 + N, lr among the N). same code: functions outside the ports with identical "
          f"instructions in both ELFs (microbit: {flags['microbit']}; pico: {flags['pico']}). same out: "
          f"both boards' outputs equal, bytes.")
    for name, r in results.items():
        for tag in ("fp32", "int8"):
            q = r.get(tag) or {}
            if "skipped" in q:
                print(f"  {name} [{tag}]: {q['skipped']}")
            elif "error" in q:
                print(f"  {name} [{tag}]: {q['error']}")
            elif q["same_code"]["differ"]:
                print(f"  {name} [{tag}]: code differs in {', '.join(q['same_code']['differ'])}")
    cm.write_json(args.json, {"benchmark": "bench_m0", "environment": env, "boards": list(BOARDS),
                              "arch_flags": flags, "memory": M0PLUS.memory, "results": results,
                              "table": {"headers": HEADERS, "rows": table}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
