"""`aot profile`: where the time of one inference goes, per instruction.

    aot profile MODEL_OR_BUILD_OR_PTE --target host|<simulated board>|serial:PORT
                [--int8 [--int8-io]] [--json] [--png FILE] [--etdump FILE]
                [--estimate-cycles [--annotate N]]

MODEL (.py/.pt2) is compiled first; on a board target a firmware with the
event tracer (`aot build --trace profile`) is built into -o DIR (default
build/<model>-<board>-profile) and run. A BUILD folder is used as it is: on a
board it must have been built with --trace profile (or debug); on the host
its model.pte runs. A .pte (with the debug record aot export wrote beside
it) runs on the host on seeded random inputs. serial:PORT reads a traced firmware already running on
a board (cycles from DWT) or behind a socket (QEMU: instructions).
The work is in aot.devtools.profile; this module is argument handling.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from aot.errors import RunError
from aot.tools import jsonout


def _note(message: str) -> None:
    print(f"aot profile: {message}", file=sys.stderr)


def _record(pte: Path) -> dict:
    """The debug record beside `pte`, checked against its bytes."""
    from aot.compiler.debug_record import debug_record_path, load_debug_record
    return load_debug_record(debug_record_path(pte), pte.read_bytes())


def _check_writable(*paths) -> None:
    """Refuse an output file whose folder does not exist before any slow step."""
    for p in paths:
        if p and not Path(p).resolve().parent.is_dir():
            raise RunError(f"cannot write {p}: folder {Path(p).resolve().parent} does not exist")


def _random_program_inputs(pte: bytes) -> list:
    """Seeded random inputs of a program's own shapes and dtypes (a .pte alone has no model)."""
    import numpy as np
    from aot.host.runtime import Program
    m = Program(pte).method()
    rng = np.random.default_rng(0)
    out = []
    for i in range(m.num_inputs):
        info = m.input_info(i)
        if info.dtype.kind == "f":
            out.append(rng.standard_normal(info.shape).astype(info.dtype))
        elif info.dtype.kind == "b":
            out.append(rng.integers(0, 2, info.shape).astype(bool))
        else:
            lim = np.iinfo(info.dtype)
            out.append(rng.integers(max(lim.min, -128), min(lim.max, 127) + 1, info.shape).astype(info.dtype))
    return out


def _embedded_inputs(folder: Path, info: dict) -> list:
    """The first input set a build embedded (gen/inputs.bin), per input."""
    import numpy as np
    from aot import ir
    blob = (folder / "gen" / "inputs.bin").read_bytes()
    arrays, off = [], 0
    for meta in info["inputs"]:
        dt = np.dtype(ir.DTYPE_NUMPY[meta["dtype"]])
        n = int(np.prod(meta["sizes"], dtype=np.int64))
        arrays.append(np.frombuffer(blob, dtype=dt, count=n, offset=off).reshape(meta["sizes"]).copy())
        off += n * dt.itemsize
    return arrays


def _profile_build(folder: Path, target: str, args) -> dict:
    from aot.devtools.profile import profile_host, profile_uart
    from aot.deploy.run import build_board, read_build
    info = read_build(folder)
    record = _record(folder / "model.pte")
    if args.estimate_cycles and (target == "host" or target.startswith("serial:")):
        from aot.deploy.cycles import ESTIMATE_TARGETS
        raise RunError(f"{ESTIMATE_TARGETS}, not {target}")
    if target == "host":
        return profile_host((folder / "model.pte").read_bytes(), record, _embedded_inputs(folder, info),
                            repeats=args.repeats)
    board = build_board(info)
    if info.get("trace") not in ("profile", "debug"):
        raise RunError(f"{folder}'s firmware has no event tracer: build it with "
                       f"`aot build ... --board {board.name} --trace profile -o {folder}`")
    if target.startswith("serial:"):
        return _profile_serial(folder, target, board, record, args)
    if target != board.name:
        raise RunError(f"{folder} was built for {board.name}; profile it with --target {board.name}")
    from aot.deploy.qemu import run_firmware_streaming
    if board.simulator is None:
        raise RunError(f"board {board.name} has no simulator; run the firmware on the board and "
                       "use --target serial:PORT")
    if args.estimate_cycles:
        from aot.deploy.cycles import cost_model
        cost_model(board)  # one line for a board without one, before the run
    if args.estimate_cycles and info.get("uart_inputs"):
        raise RunError("--estimate-cycles traces a firmware with embedded inputs; this one reads "
                       "them from the UART (built with --uart-inputs)")
    _note(f"running {folder.name} on {board.name} ({'QEMU' if board.simulator.kind == 'qemu' else 'rp2040js'})...")
    code, text = run_firmware_streaming(folder / "firmware.elf", board, timeout_s=args.timeout)
    if code != 0:
        raise RunError(f"firmware exited with status {code}; last lines: {text.splitlines()[-3:]}")
    p = profile_uart(text.splitlines(), record, board, board.name, board.count_unit)
    if args.annotate is not None and all(o["instr"] != args.annotate for o in p["ops"]):
        raise RunError(f"--annotate {args.annotate}: program instruction {args.annotate} did not run; "
                       f"the rows are instructions {', '.join(str(o['instr']) for o in p['ops'])}")
    if args.estimate_cycles:
        from aot.deploy.cycles import trace_firmware
        from aot.devtools.profile import add_cycle_estimate
        _note("tracing it again for the cycle estimate (QEMU's instruction log; slower)...")
        add_cycle_estimate(p, trace_firmware(folder / "firmware.elf", board, timeout_s=args.timeout * 10),
                           annotate=args.annotate)
    return p


def _profile_serial(folder: Path, target: str, board, record: dict, args) -> dict:
    from aot.devtools.profile import profile_uart
    from aot.deploy.serial_port import count_name, open_port, read_lines
    port = target[len("serial:"):]
    if not port:
        raise RunError("--target serial:PORT needs a port (serial:/dev/ttyACM0, serial:socket://HOST:PORT)")
    ser = open_port(port, board.uart.baud)
    _note(f"waiting up to {args.timeout:g} s for a traced inference on {port}: reset the board")
    lines = []
    try:
        for line in read_lines(ser, time.monotonic() + args.timeout):
            lines.append(line)
            if line.startswith("MOTE PROF") or line.startswith("MOTE ERROR"):
                break
    finally:
        ser.close()
    return profile_uart(lines, record, board, target, count_name(board))


def _profile_model(args) -> dict:
    from aot.deploy.target import run_target
    if args.target.startswith("serial:"):
        raise RunError("--target serial:PORT profiles a build folder whose traced firmware is on "
                       "the board (`aot build ... --trace profile -o DIR`, `aot flash DIR`)")
    target = run_target(args.target, serial=False)  # a board is checked before the (slower) compile
    board = target.board
    if args.estimate_cycles:
        from aot.deploy.cycles import ESTIMATE_TARGETS, cost_model
        if board is None:
            raise RunError(f"{ESTIMATE_TARGETS}, not {args.target}")
        cost_model(board)  # before the (slower) compile
    if board is not None:
        target.require_simulator(f"board {board.name} has no simulator; build with --trace profile, flash it "
                                 "and use --target serial:PORT")
    from aot.compiler.pipeline import compile_model_file, program_inputs  # torch: after the checks
    from aot.devtools.profile import profile_host
    from aot.compiler.debug_record import debug_record
    from aot.compiler.recipe import Recipe
    compiled = compile_model_file(args.model, Recipe.from_args(args, target))
    inputs = program_inputs(compiled, compiled.example_inputs)
    if board is None:
        return profile_host(compiled.pte, debug_record(compiled), inputs, repeats=args.repeats)
    from aot.deploy.build import build_compiled
    out = Path(args.output_dir or Path("build") / f"{compiled.name}-{board.name}"
               f"{'-int8' if compiled.int8 else ''}-profile")
    _note(f"building traced firmware in {out}...")
    build_compiled(compiled, board, out, input_sets=[inputs], trace="profile")
    return _profile_build(out, board.name, args)


def profile_command(args) -> int:
    path = Path(args.model)
    if args.annotate is not None and not args.estimate_cycles:
        raise RunError("--annotate N lists the estimated cycles of instruction N's addresses: "
                       "add --estimate-cycles")
    _check_writable(args.png, args.etdump)
    if (path.is_dir() or path.suffix == ".pte") and (args.int8 or args.int8_io or args.calib):
        raise RunError(f"{path} is compiled already: --int8/--int8-io/--calib apply to a model file")
    if path.is_dir():
        p = _profile_build(path.resolve(), args.target, args)
    elif path.suffix == ".pte":
        if args.target != "host":
            raise RunError(f"a .pte runs on --target host; for {args.target} give the model file or "
                           "a build folder made with aot build --trace profile")
        if not path.is_file():
            raise RunError(f"{path} not found")
        from aot.devtools.profile import profile_host
        pte = path.read_bytes()
        if args.estimate_cycles:
            from aot.deploy.cycles import ESTIMATE_TARGETS
            raise RunError(f"{ESTIMATE_TARGETS}, not host")
        p = profile_host(pte, _record(path), _random_program_inputs(pte), repeats=args.repeats)
    else:
        p = _profile_model(args)
    from aot.devtools.profile import draw_png, etdump_profile, render_text
    if args.png:
        draw_png(p, args.png)
    if args.etdump:
        from aot.devtools.etdump import inspector_time_scale, write_etdump
        write_etdump(etdump_profile(p), args.etdump)
    if args.json:
        print(jsonout.dumps(p))
        return 0
    print(render_text(p))
    if args.png:
        print(f"  wrote {args.png}")
    if args.etdump:
        scale = inspector_time_scale(p["tick_unit"])
        print(f"  wrote {args.etdump} (ETDump; ExecuTorch's Inspector: source_time_scale={scale!r}, "
              f"target_time_scale={scale!r})")
    return 0


def add_profile_arguments(p, sim_boards: str) -> None:
    """The options after the model options (aot.cli adds those)."""
    p.add_argument("--target", required=True,
                   help=f"host, a simulated board ({sim_boards}) or serial:PORT (a traced firmware on a board)")
    p.add_argument("--json", action="store_true", help="print one JSON object (total_ticks, tick_unit, ops)")
    p.add_argument("--png", metavar="FILE", help="bar chart of the slowest instructions")
    p.add_argument("--etdump", metavar="FILE", help="write ExecuTorch's ETDump (ED00) for its Inspector")
    p.add_argument("-o", "--output-dir", help="build folder for the traced firmware (board targets)")
    p.add_argument("--repeats", type=int, default=30,
                   help="host: traced runs; each row keeps its least time (default 30)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the firmware")
    p.add_argument("--estimate-cycles", action="store_true",
                   help="on a simulated board with a cost model (mps2-an505: Cortex-M33; microbit: "
                        "Cortex-M0+): also trace the run and estimate each row's cycles (aot run "
                        "--estimate-cycles's model; the trace is slower)")
    p.add_argument("--annotate", type=int, metavar="N",
                   help="with --estimate-cycles: also list program instruction N's estimated cycles "
                        "per function and per instruction address (N: the table's # column)")
