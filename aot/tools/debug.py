"""`aot debug`: every instruction's output on a target against the reference.

    aot debug MODEL --target host|<simulated board> [--int8 [--int8-io]] [--json]
              [--seed N] [--tol REL] [--tol-quanta Q] [-o DIR]

The model is compiled, run once on random inputs (seed --seed, as aot
compare) with every intermediate output captured (host: the tracer's
callback; board: a `--trace debug` firmware built into -o DIR, default
build/<model>-<board>[-int8]-debug, prints them over the UART), and compared
op by op (aot.devtools.debug). Exit 0 when no op diverges, 1 otherwise.
"""
from __future__ import annotations

import sys
from pathlib import Path

from aot.errors import RunError
from aot.tools import jsonout


def debug_compiled(compiled, target: str, seed: int = 0, out_dir=None, tol=None, tol_quanta=None,
                   timeout: float = 300.0, board=None) -> dict:
    """The debugger's report (aot.devtools.debug.compare_outputs) for `compiled` on `target`."""
    from aot.compiler.pipeline import program_inputs
    from aot.devtools import debug as dbg
    from aot.compiler.debug_record import debug_record
    from aot.tools.compare import random_inputs
    record = debug_record(compiled)
    x = random_inputs(compiled.example_inputs, seed)
    prog_in = program_inputs(compiled, x)
    if target == "host":
        captured = dbg.captured_host(compiled.pte, record, prog_in)
    else:
        from aot.deploy.build import build_compiled
        from aot.deploy.qemu import run_firmware_streaming
        from aot.deploy.target import run_target
        board = board or run_target(target, serial=False).board
        out = Path(out_dir or Path("build") / f"{compiled.name}-{board.name}"
                   f"{'-int8' if compiled.int8 else ''}-debug")
        print(f"aot debug: building a --trace debug firmware in {out}...", file=sys.stderr)
        build_compiled(compiled, board, out, input_sets=[prog_in], trace="debug")
        code, text = run_firmware_streaming(out / "firmware.elf", board, timeout_s=timeout)
        if code != 0:
            raise RunError(f"firmware exited with status {code}; last lines: {text.splitlines()[-3:]}")
        captured = dbg.captured_uart(text.splitlines(), record)
    rep = dbg.compare_outputs(compiled, record, captured, x,
                              tol=dbg.DEFAULT_TOL if tol is None else tol,
                              tol_quanta=dbg.DEFAULT_TOL_QUANTA if tol_quanta is None else tol_quanta)
    rep["target"] = target
    return rep


def check_debug_model(model) -> None:
    """Refuse a build folder or a .pte (RunError): aot debug needs the model to compare with."""
    path = Path(model)
    if path.is_dir() or path.suffix == ".pte":
        raise RunError(f"aot debug compares against the model, so it takes the model file (.py/.pt2), not "
                       f"{path}; `aot profile` takes build folders and .pte files")


def debug_command(args) -> int:
    check_debug_model(args.model)
    if args.target.startswith("serial:"):
        raise RunError("aot debug runs on host or a simulated board: it needs every op's outputs, which "
                       "a board's UART would take minutes to send (use aot profile for a real board)")
    from aot.deploy.target import run_target, simulated_boards
    target = run_target(args.target, serial=False)  # a board is checked before the (slower) compile
    if target.board is not None:
        target.require_simulator(f"board {target.board.name} has no simulator; aot debug runs on host or a "
                                 f"simulated board ({', '.join(simulated_boards())})")
    from aot.compiler.pipeline import compile_model_file  # torch: after every check that needs no model
    from aot.compiler.recipe import Recipe
    from aot.devtools.debug import render_text
    compiled = compile_model_file(args.model, Recipe.from_args(args, target))
    rep = debug_compiled(compiled, args.target, args.seed, args.output_dir, args.tol, args.tol_quanta,
                         args.timeout, target.board)
    if args.json:
        print(jsonout.dumps(rep))
    else:
        print(render_text(rep))
    return 0 if rep["first_divergent"] is None else 1


def add_debug_arguments(p, sim_boards: str) -> None:
    """The options after the model options (aot.cli adds those)."""
    p.add_argument("--target", default="host", help=f"host or a simulated board ({sim_boards})")
    p.add_argument("--json", action="store_true", help="print one JSON object (ops, first_divergent)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (as aot compare)")
    p.add_argument("--tol", type=float, default=None,
                   help="fp32: relative error above which an op diverges (default 1e-4)")
    p.add_argument("--tol-quanta", type=int, default=None,
                   help="int8: quanta from PT2E above which an op diverges (default 1)")
    p.add_argument("-o", "--output-dir", help="build folder for the debug firmware (board targets)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the firmware")
