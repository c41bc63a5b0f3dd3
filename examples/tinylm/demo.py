"""`make tinylm`: train the tiny LM, export it with prefill/decode methods and
4-bit weights, and generate text token by token three ways: greedy decoding in
eager PyTorch (torchao's int4 model), Mote's host runtime, and the firmware in
QEMU (mps2-an505, Cortex-M33). Also builds it for the Pico 2 and prints flash
and RAM against both boards' budgets and the tokens per second a 150 MHz Pico 2
would reach (estimated: the Cortex-M33 cycle model of aot.deploy.cycles over a
traced decode step). Exits 1 if the three token sequences differ.

    python -m examples.tinylm.demo [--tokens N] [--steps N] [--retrain] [-o build/tinylm]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
APP = HERE / "tinylm_app.c"
MODEL_FILE = HERE / "tinylm.py"
SIM_BOARD, PICO2 = "mps2-an505", "pico2"
GROUP = 32


def eager_tokens(compiled, n: int) -> list:
    """Greedy decoding of the int4 model the program implements, in eager PyTorch."""
    from examples.tinylm.tinylm import PROMPT_TEXT  # noqa: F401 (the prompt is prefill's example input)
    lm = compiled.methods[0].eager.module
    (prompt,) = compiled.methods[0].example_inputs
    return lm.generate(prompt, n)


def host_tokens(compiled, n: int) -> list:
    """The same loop on Mote's host runtime: prefill and decode share the KV cache."""
    from aot.host.runtime import Program
    from examples.tinylm.model import PROMPT
    prog = Program(compiled.pte)
    prefill = prog.method("prefill")
    decode = prog.method("decode", share_state_with=prefill)
    (prompt,) = compiled.methods[0].example_inputs
    out = [int(np.argmax(prefill.run([prompt.numpy()])[0]))]
    for i in range(n - 1):
        logits = decode.run([np.array([[out[-1]]], np.int64), np.array([PROMPT + i], np.int64)])[0]
        out.append(int(np.argmax(logits)))
    return out


def build(compiled, board: str, out: Path, n: int, decode_only: bool = False):
    """The firmware generating `n` tokens (decode_only: see tinylm_app.c)."""
    from aot.deploy.build import build_compiled
    from examples.tinylm.model import PROMPT
    (prompt,) = compiled.methods[0].example_inputs
    defines = {"TINYLM_PROMPT": str(PROMPT), "TINYLM_NEW_TOKENS": str(n)}
    if decode_only:
        defines["TINYLM_DECODE_ONLY"] = None
    return build_compiled(compiled, board, out, input_sets=[[prompt.numpy()]], app=APP, app_defines=defines)


def firmware_tokens(build_dir: Path, timeout: float = 600.0) -> tuple:
    """(tokens, instructions per step) from the firmware's TOK lines in QEMU."""
    from aot.errors import MoteError
    from aot.deploy.boards import load_board
    from aot.deploy.qemu import run_firmware_streaming
    code, text = run_firmware_streaming(build_dir / "firmware.elf", load_board(SIM_BOARD), timeout_s=timeout)
    toks = [line.split() for line in text.splitlines() if line.startswith("TOK ")]
    if code != 0 or "MOTE DONE" not in text:
        raise MoteError(f"the tiny LM firmware stopped (status {code}):\n{text[-1500:]}")
    return [int(t[2]) for t in toks], [int(t[3]) for t in toks]


def decode_cycles(compiled, out: Path) -> tuple:
    """(estimated Cortex-M33 cycles of one decode step, cycles per instruction)
    from a traced build running two decode steps (aot.deploy.cycles)."""
    from aot.deploy.boards import load_board
    from aot.deploy.cycles import trace_firmware
    build(compiled, SIM_BOARD, out, 3, decode_only=True)  # 2 decode steps
    est = trace_firmware(out / "firmware.elf", load_board(SIM_BOARD))
    return est.per_run[-1], est.cycles_per_instruction


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tokens", type=int, default=48, help="tokens to generate (prompt + tokens <= 64)")
    p.add_argument("--steps", type=int, default=None, help="training steps (default: train.STEPS)")
    p.add_argument("--retrain", action="store_true", help="train even if a checkpoint exists")
    p.add_argument("-o", "--output-dir", type=Path, default=Path("build/tinylm"))
    a = p.parse_args(argv)
    from aot.cli import _quiet_dependencies
    _quiet_dependencies()
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.boards import load_board
    from examples.tinylm import train
    from examples.tinylm.model import MAX_LEN, PROMPT
    from examples.tinylm.tinylm import PROMPT_TEXT
    if not 1 <= a.tokens <= MAX_LEN - PROMPT:
        print(f"tinylm: --tokens must be 1..{MAX_LEN - PROMPT}", file=sys.stderr)
        return 2
    out = a.output_dir.resolve()
    ckpt = out / "tinylm.pt"
    os.environ["TINYLM_CHECKPOINT"] = str(ckpt)
    t0 = time.time()
    if a.retrain or not ckpt.is_file():
        print(f"[1/5] training on {train.load_text.__module__.rsplit('.', 1)[0]}'s corpus (GPL-3 text)")
        ck = train.train(a.steps or train.STEPS, ckpt, log=lambda s: print(s))
        print(f"      {ck['steps']} steps in {ck['seconds']:.0f} s, loss {ck['loss']:.3f}")
    else:
        print(f"[1/5] trained weights: {ckpt}")
    print(f"[2/5] export: prefill + decode methods, int4 weights (group {GROUP})")
    compiled = compile_model_file(MODEL_FILE, int4_weights=GROUP)
    print("      " + compiled.summary().replace("\n", "\n      "))
    _, vocab = train.load(ckpt)
    print("[3/5] greedy decoding: eager PyTorch and Mote's host runtime")
    eager = eager_tokens(compiled, a.tokens)
    host = host_tokens(compiled, a.tokens)
    print(f"[4/5] firmware: {SIM_BOARD} in QEMU, and the {PICO2} image")
    fw_art = build(compiled, SIM_BOARD, out / f"fw-{SIM_BOARD}", a.tokens)
    fw, instr = firmware_tokens(out / f"fw-{SIM_BOARD}")
    pico = build(compiled, PICO2, out / f"fw-{PICO2}", a.tokens)
    print("[5/5] estimating Cortex-M33 cycles of a decode step (traced run)")
    dec_cycles, cpi = decode_cycles(compiled, out / "fw-trace")
    pre_cycles = instr[0] * cpi  # prefill: its QEMU instructions at the decode steps' cycles per instruction
    hz = load_board(PICO2).clock_hz
    print()
    print(f"prompt    {PROMPT_TEXT!r}")
    for label, toks in (("eager", eager), ("host", host), ("firmware", fw)):
        print(f"{label:9s} {vocab.decode(toks)!r}")
    same = eager == host == fw
    print(f"tokens    {len(fw)} generated; eager, host and firmware "
          + ("identical" if same else "DIFFER"))
    for name, art in ((SIM_BOARD, fw_art), (PICO2, pico)):
        board = load_board(name)
        s = art.size
        print(f"{name:10s} flash {s['flash_bytes']:,} of {board.flash.size:,} B "
              f"({100 * s['flash_bytes'] / board.flash.size:.1f} %), RAM {s['ram_bytes']:,} of "
              f"{board.ram.size:,} B ({100 * s['ram_bytes'] / board.ram.size:.1f} %)")
    print(f"Pico 2    ESTIMATE at {hz / 1e6:.0f} MHz: {hz / dec_cycles:.1f} tokens/s "
          f"({dec_cycles:,} cycles per decode step, prefill of {PROMPT} tokens ~{pre_cycles / hz * 1e3:.0f} ms; "
          f"QEMU: {int(np.mean(instr[1:])) if len(instr) > 1 else instr[0]:,} instructions per decode step)")
    print(f"done in {time.time() - t0:.0f} s")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
