"""Cortex-M inference cost on QEMU: instructions per inference, MACs/instruction, int8 vs fp32.

  .venv/bin/python benchmarks/bench_mcu.py [--quick] [--json FILE] [--models NAME ...]
                                           [--boards BOARD ...]

For every zoo model on mps2-an505 (Cortex-M33, DSP + FPU) and mps3-an547
(Cortex-M55, MVE), fp32 and int8 (`aot build --int8`) firmware is built
(aot.deploy.build.build_compiled, under build/bench/mcu/) and run once on QEMU with
-icount shift=0 (aot.deploy.run.run_build, always under a timeout). The firmware's
OUT line carries the exact instruction count of mote_method_execute.

int8 programs keep int8 inputs and outputs (`--int8-io`), as TFLM's reference
models do; on the DSP board (mps2-an505) their conv weights are pre-widened in
flash (`aot build`'s default there, aot.compiler.dsp_weights), so the model
flash column includes that copy. On mps2-an505 every int8 run is traced once more
(aot.deploy.cycles: QEMU's execution log, per-instruction-class Cortex-M33
costs) for an estimated cycle count per inference, printed beside the
instruction count with the Pico 2 latency at 150 MHz and the published MLPerf
Tiny v1.0 figures of X-CUBE-AI on an STM32U575 Cortex-M33 at 160 MHz (KWS
29.0 ms, VWW 59.3 ms, IC 109.5 ms, AD 3.21 ms). One table (issue 32's goals)
gives, per MLPerf Tiny model, the published MACs per cycle of X-CUBE-AI and
Plumerai with their source, Mote's estimated MACs per cycle, its exact MACs
per instruction on the M33 per layer type (depthwise, pointwise, stem, other
conv, FC: a second build with the runtime's event tracer, `aot profile`'s
per-layer counts) and whole model on the M33 and the M55, RAM against TFLM's
arena and the KWS code, each against its goal.

Printed side by side, from one run:
* instructions per inference (fp32, int8), MACs (zoo.MODELS; the compiler's count,
  aot.compiler.macs, for models without a reference count), MACs per instruction,
  int8-over-fp32 speedup;
* TFLite Micro + CMSIS-NN on the same QEMU boards (reference figures, int8):
  DS-CNN 7,680,192 instructions, MobileNetV1-0.25 24,046,766, ResNet-8
  29,960,166 on the M33; DS-CNN 1,813,687 on the M55 with MVE;
* flash (code, model) and RAM bytes from size.json; the int8 arena beside
  ExecuTorch's cortex_m flow arenas (MLP 3,920, DS-CNN 20,464, MobileNetV1-0.25
  138,240, ResNet-8 49,728) and TFLM's DS-CNN arena (22,820 B; interpreter +
  int8 kernels 46,477 B of code).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as cm  # noqa: E402

BOARDS = ("mps2-an505", "mps3-an547")
QEMU_TIMEOUT_S = 600.0

#: TFLite Micro + CMSIS-NN int8, instructions per inference on the same QEMU boards.
REF_TFLM_INSTR = {
    "mps2-an505": {"ds_cnn": 7_680_192, "mobilenet_v1_025": 24_046_766, "resnet8": 29_960_166},
    "mps3-an547": {"ds_cnn": 1_813_687},
}
#: TFLite Micro (int8 model I/O): whole arena bytes, measured with the same QEMU
#: method (DS-CNN; ResNet-8, MobileNetV1-0.25 and the FC autoencoder as issue 15
#: quotes them); interpreter + int8 kernels code bytes.
REF_TFLM_ARENA = {"ds_cnn": 22_820, "resnet8": 54_996, "mobilenet_v1_025": 100_708, "autoencoder": 2_580}
#: MLPerf Tiny v1.0, X-CUBE-AI on an STM32U575 (Cortex-M33, 160 MHz): latency, ms.
REF_XCUBE_U575_MS = {"ds_cnn": 29.0, "mobilenet_v1_025": 59.3, "resnet8": 109.5, "autoencoder": 3.21}
#: The four MLPerf Tiny models (KWS, VWW, IC, AD).
MLPERF = {"ds_cnn": "KWS", "mobilenet_v1_025": "VWW", "resnet8": "IC", "autoencoder": "AD"}
#: Published MACs per cycle on an STM32U575 (Cortex-M33 at 160 MHz): the MLPerf Tiny
#: results (MLCommons, https://mlcommons.org/benchmarks/inference-tiny/) of X-CUBE-AI
#: (v1.3) and Plumerai (v1.1), latency converted to MACs per cycle as issue 32 gives them.
REF_MACS_PER_CYCLE = {
    "X-CUBE-AI (MLPerf Tiny v1.3)": {"ds_cnn": 0.57, "mobilenet_v1_025": 0.79, "resnet8": 0.71, "autoencoder": 0.51},
    "Plumerai (MLPerf Tiny v1.1)": {"ds_cnn": 0.55, "mobilenet_v1_025": 0.79, "resnet8": 0.75, "autoencoder": 0.45},
}
REF_SOURCE = ("MLCommons MLPerf Tiny results (X-CUBE-AI v1.3, Plumerai v1.1; STM32U575, Cortex-M33 at 160 MHz), "
              "https://mlcommons.org/benchmarks/inference-tiny/, in MACs per cycle as issue 32 gives them")
#: Issue 32's goals. Estimated M33 MACs per cycle: at or above the best published figure.
GOAL_MACS_PER_CYCLE = {n: max(r[n] for r in REF_MACS_PER_CYCLE.values()) for n in MLPERF}
#: Exact M33 instructions (per layer type, whole model: KWS and IC), M55 whole model (KWS and IC).
GOAL_MAC_PER_INSTR_LAYER = {"depthwise": 0.8, "pointwise": 1.2}
GOAL_MAC_PER_INSTR = {"mps2-an505": 1.0, "mps3-an547": 2.0}
GOAL_MAC_PER_INSTR_MODELS = ("ds_cnn", "resnet8")
GOAL_RAM_VS_TFLM = 0.8
GOAL_RAM_VS_TFLM_MODEL = {"autoencoder": 1.0}  # AD: at or below TFLM's arena
GOAL_KWS_CODE_BYTES = 20 * 1024
#: Layer types of the per-layer figures (layer_type).
LAYER_TYPES = ("stem", "depthwise", "pointwise", "conv", "FC", "other")
PICO2_HZ = 150_000_000
REF_TFLM_CODE = 46_477
#: ExecuTorch cortex_m (int8) flow: planned arena bytes, and its lower bound where known.
REF_ET_CM_ARENA = {"mlp": 3_920, "ds_cnn": 20_464, "mobilenet_v1_025": 138_240, "resnet8": 49_728}
REF_ET_CM_BOUND = {"ds_cnn": 16_000, "resnet8": 49_152}


def model_macs(name: str) -> tuple:
    """(MACs, source): zoo.MODELS' reference value, else the compiler's exact count
    over the compiled fp32 program (aot.compiler.macs: convolutions, matrix products)."""
    import zoo
    if zoo.MODELS.get(name) is not None:
        return zoo.MODELS[name], "zoo"
    from aot.compiler.macs import int8_mac_share
    from aot.compiler.pipeline import compile_model_file
    return int8_mac_share(compile_model_file(zoo.path(name)).spec)[1], "compiler"


def layer_type(row: dict, first_conv: bool) -> str:
    """A profile row's layer type: "depthwise" (a depthwise convolution), "stem"
    (the program's first convolution), "pointwise" (a 1x1 convolution),
    "conv" (any other), "FC" (a fully connected layer), "other" (no MACs)."""
    op = row["op"]
    if not row.get("macs"):
        return "other"
    if "depthwise" in op:
        return "depthwise"
    if "conv" in op:
        if first_conv:
            return "stem"
        out = 1
        for d in row["output_shapes"][0]:
            out *= d
        cin = row["input_shapes"][0][-1]  # NHWC
        return "pointwise" if out * cin == row["macs"] else "conv"
    if "linear" in op or "addmm" in op or "matmul" in op:
        return "FC"
    return "other"


def layer_figures(profile: dict) -> dict:
    """{layer type: {"macs", "instructions", "layers"[, "est_cycles"]}} of a profile
    (aot.devtools.profile; "est_cycles" when it carries the cycle estimate)."""
    out = {}
    seen_conv = False
    for row in profile["ops"]:
        is_conv = "conv" in row["op"] and "depthwise" not in row["op"] and bool(row.get("macs"))
        t = layer_type(row, is_conv and not seen_conv)
        seen_conv |= is_conv
        f = out.setdefault(t, {"macs": 0, "instructions": 0, "layers": 0})
        f["macs"] += int(row.get("macs") or 0)
        f["instructions"] += int(row["ticks"])
        f["layers"] += 1
        if "est_cycles" in row:
            f["est_cycles"] = f.get("est_cycles", 0) + int(row["est_cycles"])
    return out


def profile_layers(compiled, board: str, out_dir, inputs=None) -> dict:
    """Per-layer-type MACs, exact instructions and (Cortex-M33) estimated cycles of
    one inference: the firmware built with the runtime's event tracer (`aot build
    --trace profile`) run on QEMU, its PROF lines turned into aot profile's table,
    then traced once more for `aot profile --estimate-cycles`'s per-row cycles."""
    from aot.compiler.debug_record import debug_record
    from aot.deploy.boards import load_board
    from aot.deploy.build import build_compiled
    from aot.deploy.qemu import run_firmware_streaming
    from aot.devtools.profile import profile_uart
    b = load_board(board)
    art = build_compiled(compiled, board, out_dir, trace="profile")
    code, text = run_firmware_streaming(art.elf, b, timeout_s=QEMU_TIMEOUT_S)
    if code != 0:
        raise RuntimeError(f"traced firmware exited with {code}")
    p = profile_uart(text.splitlines(), debug_record(compiled), b, board, "instructions")
    if b.core == "cortex-m33":
        from aot.deploy.cycles import trace_firmware
        from aot.devtools.profile import add_cycle_estimate
        add_cycle_estimate(p, trace_firmware(art.elf, b, timeout_s=QEMU_TIMEOUT_S))
    return layer_figures(p)


def run_one(name: str, int8: bool, boards) -> dict:
    import zoo
    from aot.deploy.build import build_compiled
    from aot.deploy.run import run_build
    from aot.compiler.pipeline import compile_model_file
    res = {}
    from aot.deploy.boards import load_board
    from aot.deploy.cycles import trace_firmware
    compiled = {}
    for b in boards:
        # int8 on a DSP board: conv weights pre-widened in flash, as `aot build` does
        dsp = int8 and load_board(b).dsp_kernels
        if dsp not in compiled:
            try:
                compiled[dsp] = compile_model_file(zoo.path(name), int8=int8, int8_io=int8,
                                                   dsp_weights=dsp)
            except Exception as e:  # noqa: BLE001 - report and go on
                compiled[dsp] = e
        c = compiled[dsp]
        if isinstance(c, Exception):
            res[b] = {"error": "compile: " + cm.short_error(c)}
            continue
        d = cm.BUILD_DIR / "mcu" / f"{name}-{b}-{'int8' if int8 else 'fp32'}"
        try:
            art = build_compiled(c, b, d)
            r = run_build(art.out_dir, timeout=QEMU_TIMEOUT_S)
            res[b] = {"instructions": int(r.cycles[0]), "size": art.size,
                      "summary": cm.size_summary(art.size), "arena_bytes": c.arena_bytes,
                      "arena_lower_bound_bytes": c.arena_lower_bound_bytes, "pte_bytes": len(c.pte),
                      "dsp_weights_bytes": int(c.spec.plan_info.get("dsp_weights_bytes") or 0)}
            if int8 and load_board(b).core == "cortex-m33":
                est = trace_firmware(art.elf, b, timeout_s=QEMU_TIMEOUT_S)
                res[b]["estimated_cycles"] = est.cycles // max(est.runs, 1)
                res[b]["cycles_per_instruction"] = round(est.cycles_per_instruction, 4)
                if name in MLPERF:  # per layer type: a traced build (issue 32's per-layer goals)
                    res[b]["layers"] = profile_layers(c, b, d.with_name(d.name + "-prof"))
        except Exception as e:  # noqa: BLE001
            res[b] = {"error": cm.short_error(e)}
    return res


def _goal(value, goal, fmt=".2f", more_is_better=True) -> str:
    """"0.45 (>= 0.57: no)" for a figure against its goal."""
    if value is None:
        return "-"
    if goal is None:
        return format(value, fmt)
    ok = value >= goal if more_is_better else value <= goal
    return f"{format(value, fmt)} ({'>=' if more_is_better else '<='} {format(goal, fmt)}: {'yes' if ok else 'no'})"


def goal_rows(results: dict, boards) -> list:
    """Issue 32's table, one row per MLPerf Tiny model in the run: the published
    MACs per cycle, Mote's estimated MACs per cycle on the M33 against the best
    of them, exact MACs per instruction (whole model on the M33 and the M55,
    and per layer type on the M33) against their goals, RAM against TFLM's
    arena, the KWS code against 20 KiB."""
    rows = []
    for name, task in MLPERF.items():
        r = results.get(name)
        if r is None:
            continue
        macs = r["macs"]
        q = r["int8"].get("mps2-an505", {})
        v = r["int8"].get("mps3-an547", {})
        est = q.get("estimated_cycles")
        row = [f"{task} ({name})"]
        row += [cm.fmt(ref.get(name), ".2f") for ref in REF_MACS_PER_CYCLE.values()]
        row.append(_goal(macs / est if est else None, GOAL_MACS_PER_CYCLE[name]))
        goal_whole = name in GOAL_MAC_PER_INSTR_MODELS
        qi, vi = q.get("instructions"), v.get("instructions")
        row.append(_goal(macs / qi if qi else None, GOAL_MAC_PER_INSTR["mps2-an505"] if goal_whole else None))
        layers = q.get("layers") or {}
        for t in ("depthwise", "pointwise", "stem", "conv", "FC"):
            f = layers.get(t)
            mpi = f["macs"] / f["instructions"] if f and f["instructions"] else None
            goal = GOAL_MAC_PER_INSTR_LAYER.get(t) if goal_whole else None
            row.append(_goal(mpi, goal))
        row.append(_goal(macs / vi if vi else None, GOAL_MAC_PER_INSTR["mps3-an547"] if goal_whole else None)
                   if "mps3-an547" in boards else "-")
        ram = (q.get("size") or {}).get("ram_bytes")
        ref = REF_TFLM_ARENA.get(name)
        row.append(_goal(ram / ref if ram and ref else None, GOAL_RAM_VS_TFLM_MODEL.get(name, GOAL_RAM_VS_TFLM),
                         more_is_better=False))
        code = (q.get("summary") or {}).get("code")
        row.append(_goal(code, GOAL_KWS_CODE_BYTES, ",", more_is_better=False) if name == "ds_cnn" and code else "")
        rows.append(row)
    return rows


def layer_cycle_rows(results: dict) -> list:
    """Per MLPerf Tiny model, per layer type (LAYER_TYPES): the
    estimated M33 cycles of its rows (aot profile --estimate-cycles), cycles per
    instruction and MACs per cycle, "-" where the model has no such layer."""
    rows = []
    for name, task in MLPERF.items():
        layers = ((results.get(name) or {}).get("int8", {}).get("mps2-an505") or {}).get("layers") or {}
        if not any("est_cycles" in f for f in layers.values()):
            continue
        row = [f"{task} ({name})"]
        for t in LAYER_TYPES:
            f = layers.get(t)
            c = f.get("est_cycles") if f else None
            mpc = f"{f['macs'] / c:.2f}" if c and f["macs"] else "-"
            row.append(f"{c:,} ({c / f['instructions']:.2f}, {mpc})" if c else "-")
        total = sum(f.get("est_cycles", 0) for f in layers.values())
        row.append(f"{total:,}")
        rows.append(row)
    return rows


LAYER_CYCLE_HEADERS = (["model"] + [f"{t} cycles (cyc/i, MAC/cyc)" for t in LAYER_TYPES] + ["all rows"])


GOAL_HEADERS = (["model"] + [k.split(" (")[0] + " MAC/cyc" for k in REF_MACS_PER_CYCLE]
                + ["Mote MAC/cyc (est. M33)", "M33 MAC/i", "dw MAC/i", "pw MAC/i", "stem MAC/i", "conv MAC/i",
                   "FC MAC/i", "M55 MAC/i", "RAM / TFLM arena", "KWS code B"])


def main(argv=None) -> int:
    ap = cm.arg_parser(__doc__)
    ap.add_argument("--boards", nargs="*", default=None, choices=BOARDS,
                    help="boards (default: both; --quick: mps2-an505)")
    args = ap.parse_args(argv)
    names = cm.model_names(args)
    boards = args.boards or (["mps2-an505"] if args.quick else list(BOARDS))
    results = {}
    jobs = [(n, q) for n in names for q in (False, True)]
    for name, int8 in cm.progress(jobs, "bench_mcu"):
        r = results.setdefault(name, {})
        if "macs" not in r:
            r["macs"], r["macs_source"] = model_macs(name)
        r["int8" if int8 else "fp32"] = run_one(name, int8, boards)

    env = cm.environment()
    print(f"bench_mcu: instructions per inference on QEMU -icount shift=0  ({env['date_utc']})")
    for b in boards:
        core = "Cortex-M33, DSP+FPU" if b == "mps2-an505" else "Cortex-M55, MVE+FPU"
        print(f"\n{b} ({core}): compute\n")
        rows = []
        for name, r in results.items():
            f, q = r["fp32"].get(b, {}), r["int8"].get(b, {})
            fi, qi = f.get("instructions"), q.get("instructions")
            macs = r["macs"]
            ref = REF_TFLM_INSTR.get(b, {}).get(name)
            rows.append([name, cm.fmt(macs) + ("*" if r["macs_source"] == "compiler" else ""),
                         cm.fmt(fi), cm.fmt(qi),
                         cm.fmt(macs / fi if fi else None, ".2f"), cm.fmt(macs / qi if qi else None, ".2f"),
                         cm.fmt(fi / qi if fi and qi else None, ".2f"),
                         cm.fmt(ref), cm.fmt(macs / ref if ref else None, ".2f"),
                         cm.fmt(ref / qi if ref and qi else None, ".2f")])
        print(cm.table(["model", "MACs", "fp32 instr", "int8 instr", "fp32 MAC/i", "int8 MAC/i",
                        "int8 speedup", "TFLM instr", "TFLM MAC/i", "TFLM/Mote"], rows))
        print(f"\n{b}: memory (bytes; code = runtime + kernels + port + libc; "
              f"model = .pte{' in the QSPI model region' if b == 'mps3-an547' else ''})\n")
        rows = []
        for name, r in results.items():
            f, q = r["fp32"].get(b, {}), r["int8"].get(b, {})
            fs, qs = f.get("summary") or {}, q.get("summary") or {}
            rows.append([name, cm.fmt(fs.get("code")), cm.fmt(fs.get("model")), cm.fmt(fs.get("ram")),
                         cm.fmt(qs.get("code")), cm.fmt(qs.get("model")), cm.fmt(qs.get("ram")),
                         cm.fmt(q.get("arena_bytes")), cm.fmt(q.get("arena_lower_bound_bytes")),
                         cm.fmt(REF_ET_CM_ARENA.get(name)), cm.fmt(REF_ET_CM_BOUND.get(name)),
                         cm.fmt(REF_TFLM_ARENA.get(name))])
        print(cm.table(["model", "fp32 code", "fp32 model", "fp32 RAM", "int8 code", "int8 model",
                        "int8 RAM", "int8 arena", "int8 bound", "ET c_m arena", "ET c_m bound",
                        "TFLM arena"], rows))
        if any("estimated_cycles" in r["int8"].get(b, {}) for r in results.values()):
            print(f"\n{b}: estimated Cortex-M33 cycles, int8 (aot.deploy.cycles; code and data in "
                  "zero-wait-state memory)\n")
            rows = []
            for name, r in results.items():
                q = r["int8"].get(b, {})
                est = q.get("estimated_cycles")
                ms = 1000 * est / PICO2_HZ if est else None
                ref = REF_XCUBE_U575_MS.get(name)
                rows.append([name, cm.fmt(q.get("instructions")), cm.fmt(est),
                             cm.fmt(q.get("cycles_per_instruction"), ".2f"), cm.fmt(ms, ".2f"),
                             cm.fmt(ref, ".2f"), cm.fmt(ref / ms if ref and ms else None, ".2f")])
            print(cm.table(["model", "int8 instr", "est. cycles", "cycles/instr", "Pico 2 ms @150MHz",
                            "X-CUBE-AI U575 ms", "U575/Mote"], rows))
        errs = [(n, k, r[k][b]["error"]) for n, r in results.items() for k in ("fp32", "int8")
                if "error" in r[k].get(b, {})]
        for n, k, e in errs:
            print(f"  {n} [{k}]: {e}")
    goals = goal_rows(results, boards)
    print("\nissue 32 goals (int8, int8 I/O; M33 = mps2-an505, M55 = mps3-an547): estimated M33 MACs per "
          "cycle at or above the best published figure; exact MACs per instruction: depthwise >= "
          f"{GOAL_MAC_PER_INSTR_LAYER['depthwise']}, pointwise >= {GOAL_MAC_PER_INSTR_LAYER['pointwise']}, "
          f"whole model >= {GOAL_MAC_PER_INSTR['mps2-an505']} (M33) and >= {GOAL_MAC_PER_INSTR['mps3-an547']} "
          f"(M55) on KWS and IC; RAM <= {GOAL_RAM_VS_TFLM}x TFLM's arena (AD: <= 1.0x); KWS code <= "
          f"{GOAL_KWS_CODE_BYTES:,} B. Published: {REF_SOURCE}.\n")
    if goals:
        print(cm.table(GOAL_HEADERS, goals))
        print("  per layer type (aot profile's per-layer counts, a traced build): stem = the first convolution, "
              "pointwise = 1x1, conv = other convolutions, FC = fully connected; MAC/cyc from aot.deploy.cycles "
              "(code and data in zero-wait-state memory)")
    else:
        print("  (no MLPerf Tiny model in this run: --models ds_cnn mobilenet_v1_025 resnet8 autoencoder)")
    cyc_rows = layer_cycle_rows(results)
    if cyc_rows:
        print("\nestimated M33 cycles per layer type (aot profile --estimate-cycles on the traced build; "
              "cycles per instruction, MACs per cycle):\n")
        print(cm.table(LAYER_CYCLE_HEADERS, cyc_rows))
    print(f"\n  * MACs counted by the compiler on the program (aot.compiler.macs). MAC/i = MACs per instruction. "
          f"TFLM/Mote = TFLM instructions / Mote int8 instructions (>1: Mote faster).\n"
          f"  TFLM interpreter + int8 kernels: {REF_TFLM_CODE:,} B of code (DS-CNN); "
          f"RAM = every static byte incl. the analysed stack.")
    cm.write_json(args.json, {"benchmark": "bench_mcu", "environment": env, "boards": list(boards),
                              "results": results,
                              "goals": {"headers": GOAL_HEADERS, "rows": goals},
                              "layer_cycles": {"headers": LAYER_CYCLE_HEADERS, "rows": cyc_rows},
                              "reference": {"macs_per_cycle": REF_MACS_PER_CYCLE, "macs_per_cycle_source": REF_SOURCE,
                                            "tflm_instructions": REF_TFLM_INSTR, "tflm_arena": REF_TFLM_ARENA,
                                            "xcube_ai_u575_ms": REF_XCUBE_U575_MS,
                                            "tflm_code_bytes": REF_TFLM_CODE,
                                            "et_cortex_m_arena": REF_ET_CM_ARENA,
                                            "et_cortex_m_bound": REF_ET_CM_BOUND}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
