"""The `aot` command line: one subcommand per user action (the parser lists them).

Every sub-command prints human-readable text by default; `--json` (where
offered) prints exactly one JSON object on stdout instead. Exit codes: 0 ok,
1 a check failed or the model is unsupported/too large, 2 bad usage.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys

from aot.compiler.recipe import (DEFAULT_CASES, add_delegate_option as _add_delegate_option,
                                 add_dsp_weights_option as _add_dsp_weights_option,
                                 add_layout_option as _add_layout_option,
                                 add_model_options as _add_model_options, add_opt_option as _add_opt_option,
                                 add_recipe_arguments, add_selftest_option, count_type as _count)



@functools.lru_cache(maxsize=None)
def _sim_boards() -> str:
    """The boards of boards/ that name a simulator, for --target help texts."""
    from aot.deploy.target import simulated_boards
    return ", ".join(simulated_boards())

def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def _cmd_export(args) -> int:
    from pathlib import Path

    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    if Path(args.output).is_dir():  # a folder: the program goes inside it, named after the model
        args.output = str(Path(args.output) / (Path(args.model).stem + ".pte"))
    ptd = None
    if args.external_weights is not None:
        ptd = args.external_weights or str(Path(args.output).with_suffix(".ptd"))
        if Path(ptd).is_dir():  # a folder: the .ptd goes inside it, named after the program
            ptd = str(Path(ptd) / Path(args.output).with_suffix(".ptd").name)
        if Path(ptd).resolve() == Path(args.output).resolve():
            from aot.errors import MoteError
            raise MoteError(f"--external-weights {ptd} is the program's own path (-o): name a .ptd file, "
                            "or give --external-weights alone for one beside the program")
    recipe = Recipe.from_args(args, external_weights=ptd)
    if recipe.delegate is None:
        result = compile_model_file(args.model, recipe, out_pte=args.output)
    else:  # the delegates' backend pool, measured on the host, goes into ops.json before it is written
        from aot.compiler.pipeline import write_outputs
        from aot.tools.compare import record_backend_pool
        result = compile_model_file(args.model, recipe)
        record_backend_pool(result)
        write_outputs(result, Path(args.output), Path(ptd) if ptd else None)
    print(result.summary())
    if result.manifest.get("memory", {}).get("backend_pool_bytes"):
        print(f"backend pool: {result.manifest['memory']['backend_pool_bytes']:,} B measured on the host "
              "(ops.json memory.backend_pool_bytes; mote-run -p MiB)")
    if ptd is not None:
        from aot.pte.flat_tensor import read_ptd
        held = len(read_ptd(result.ptd)) - len(result.external)
        print(f"external weights: {len(result.external)} tensor(s), {sum(len(t.data) for t in result.external):,} B "
              f"in {ptd} ({len(result.ptd):,} B" + (f", with {held} tensor(s) it already held" if held > 0 else "")
              + ")")
    return 0


def _cmd_inspect(args) -> int:
    from aot.tools.inspect import run_inspect
    from aot.tools.memplot import draw_arena_plan  # --png: memplot draws what inspect reads
    return run_inspect(args, draw=draw_arena_plan)


def _cmd_run(args) -> int:
    from aot.tools.slot import is_slot_folder, slot_run_command
    if getattr(args, "slot", None) or is_slot_folder(args.program):
        return slot_run_command(args)
    from aot.tools.commands import run_command
    return run_command(args)


def _cmd_compare(args) -> int:
    from aot.tools.compare import compare_command
    return compare_command(args)


def _cmd_build(args) -> int:
    from aot.tools.slot import is_slot_build, slot_build_command
    if is_slot_build(args):
        return slot_build_command(args)
    from aot.tools.commands import build_command
    return build_command(args)


def _cmd_pack(args) -> int:
    from aot.tools.slot import pack_command
    return pack_command(args)


def _cmd_generate(args) -> int:
    from aot.tools.slot import is_slot_build, slot_generate_command
    if is_slot_build(args):
        return slot_generate_command(args)
    from aot.tools.commands import generate_command
    return generate_command(args)


def _cmd_test(args) -> int:
    from aot.tools.slot import is_slot_folder, slot_test_command
    if getattr(args, "slot", None) or is_slot_folder(args.program):
        return slot_test_command(args)
    from aot.tools.selftest import test_command
    return test_command(args)


def _cmd_ops(args) -> int:
    from aot.tools.ops import ops_command
    return ops_command(args)


def _cmd_profile(args) -> int:
    from aot.tools.profile import profile_command
    return profile_command(args)


def _cmd_debug(args) -> int:
    from aot.tools.debug import debug_command
    return debug_command(args)


def _cmd_flash(args) -> int:
    from aot.tools.device import flash_command
    return flash_command(args)


def _cmd_uf2(args) -> int:
    from aot.tools.device import uf2_command
    return uf2_command(args)


def _cmd_monitor(args) -> int:
    from aot.tools.device import monitor_command
    return monitor_command(args)


def _cmd_board_sources(args) -> int:
    import json
    from aot.deploy.generate import board_sources
    print(json.dumps(board_sources(args.board, args.port_dir), indent=2))
    return 0


def _cmd_qemu(args) -> int:
    from aot.deploy.qemu import run_elf
    return run_elf(args.elf, args.board, args.timeout)


def _cmd_demo(args) -> int:
    from aot.tools.demo import demo_command
    return demo_command(args)


class _OneLineParser(argparse.ArgumentParser):
    """argparse with a command-line mistake as one line, "aot build: error: argument --memory:
    invalid choice: 'bogus' (choose from 'shared', 'separate')", not the usage block first
    (`aot <command> -h` shows it). The sub-commands' parsers are of this class too."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="aot", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also show torch's and torchao's own warnings and log lines (hidden by default)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("export", help="compile a model file to a .pte program (+ ops.json)")
    _add_model_options(p)
    p.add_argument("-o", "--output", default="model.pte", help="output .pte path, or an existing folder to write MODEL.pte into (default model.pte)")
    p.add_argument("--external-weights", nargs="?", const="", metavar="FILE.ptd",
                   help="write the constants to a .ptd (ExecuTorch's flat-tensor format; default: beside "
                        "the .pte, same name) that the program names by key; an existing FILE.ptd gains "
                        "the tensors it lacks, so two programs (two heads over one backbone) share it")
    _add_delegate_option(p)
    _add_layout_option(p)
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("inspect", help="show a .pte program's ops, values and memory plan")
    from aot.tools.inspect import add_inspect_arguments
    add_inspect_arguments(p)
    p.set_defaults(func=_cmd_inspect)

    p = sub.add_parser("run", help="run a .pte (host) or a firmware build directory (simulator)")
    p.add_argument("program", help="model.pte for --target host; a build directory for simulators")
    p.add_argument("--target", default="host",
                   help=f"host, a simulated board ({_sim_boards()}), a board file (.json) naming a "
                        "simulator, or serial:PORT for the firmware on a real board (PORT: /dev/ttyACM0, "
                        "COM3, socket://HOST:PORT; --uart-inputs firmware takes --inputs over it)")
    p.add_argument("--inputs", metavar="IN.npz",
                   help="inputs: arr_0, arr_1, ... in order, then other names in archive order "
                        "(default: zeros on the host; the inputs embedded at build time for a build directory)")
    p.add_argument("--outputs", metavar="OUT.npz", help="write outputs here")
    p.add_argument("--method", metavar="NAME", help="the method of a program with several (default: the first)")
    p.add_argument("--ptd", metavar="FILE.ptd",
                   help="the .ptd holding a program's external weights (default: FILE.ptd beside FILE.pte "
                        "when there is one)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--timeout", type=_positive_seconds, default=120.0,
                   help="simulator or serial timeout, seconds (> 0; default 120): wall time on QEMU and "
                        "serial, simulated time on the pico's rp2040js (a budget of core cycles)")
    p.add_argument("--estimate-cycles", action="store_true",
                   help="on a simulated board with a cost model (mps2-an505: Cortex-M33; microbit: "
                        "Cortex-M0+ of the RP2040, priced from the Cortex-M0 trace): also trace the run and "
                        "estimate the cycles per inference from per-instruction-class costs (aot.deploy.cycles)")
    from aot.tools.slot import add_slot_image_argument
    add_slot_image_argument(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("compare", help="eager PyTorch vs the Mote runtime on a target")
    _add_model_options(p)
    p.add_argument("--target", default="host",
                   help=f"host, linux-aarch64 (cross-built, run under qemu-user), a simulated board "
                        f"({_sim_boards()}) or a board file (.json) naming a simulator")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--method", metavar="NAME",
                   help="the method of a model file with methods() to compare (default: the first)")
    p.add_argument("--steps", type=_count("steps"), default=1, metavar="N",
                   help="N successive calls with fresh inputs on one method instance (a model with "
                        "mutable buffers carries its state), against the eager module called the same "
                        "way; reports the worst step (default 1)")
    p.add_argument("-o", "--output-dir", help="build directory for simulator targets")
    _add_dsp_weights_option(p)
    _add_delegate_option(p)
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("build", help="build firmware for a board")
    _add_model_options(p, several=True)
    p.add_argument("--external-weights", action="store_true",
                   help="keep the constants in a .ptd (ExecuTorch's flat-tensor format) linked as its own "
                        "flash region (model_ptd.c) and attached to the program at init")
    p.add_argument("--board", required=True, help="what to build for: a board name (see boards/) or a board "
                   "file (.json); run the build with aot run --target")
    p.add_argument("--method", metavar="NAME",
                   help="the method the firmware app runs, of a model file with methods() (default: the "
                        "first; every method is initialised and callable through the embedding API)")
    p.add_argument("-o", "--output-dir", help="output directory (default build/<model>-<board>)")
    p.add_argument("--inputs", metavar="IN.npz",
                   help="inputs to embed in the firmware (default: the model's example inputs)")
    _add_opt_option(p)
    p.add_argument("--code-in-sram", action=argparse.BooleanOptionalAction, default=None,
                   help="run the kernels' code from SRAM, copied from flash at boot (default: on for boards "
                        "whose flash is behind an XIP cache, pico2; size.json's RAM part sram_copy is the cost)")
    p.add_argument("--weights-in-sram", action="store_true",
                   help="read the program and its weights from SRAM, copied from flash at boot (refused "
                        "when they do not fit the board's RAM)")
    p.add_argument("--kernel-opt", default="auto",
                   help="optimisation flag for the kernels (default auto: the --opt profile's; speed: "
                        "portable kernels -O2, Cortex-M int8 kernels -Os with their inner loops at -O2)")
    _add_dsp_weights_option(p)
    p.add_argument("--uart-inputs", action="store_true",
                   help="firmware reads inputs from UART0 (lines 'I <hex>' run one inference, 'R' resets the "
                        "state (MOTE RESET), 'Q' ends) instead of flash")
    p.add_argument("--verify-checksum", action="store_true",
                   help="firmware checks the program's CRC-32 (MOTE_MODEL_CRC32 in mote_model.h) at boot "
                        "and stops with MOTE_ERR_CHECKSUM if a byte of it changed in flash")
    add_selftest_option(p, f"embed N self-test cases (default {DEFAULT_CASES}: the example inputs, then "
                           "the calibration inputs) with their expected outputs from the host runtime; "
                           "the firmware checks them at boot and prints MOTE SELFTEST PASS|FAIL; also "
                           "writes model.bpte (run them with `aot test`)")
    p.add_argument("--trace", choices=("profile", "debug"),
                   help="compile the runtime's event tracer in (mote/trace.h): after each inference "
                        "the firmware runs it once more traced and prints per-instruction ticks "
                        "(PROF lines, for aot profile); debug also prints every instruction's "
                        "outputs (DBG lines, for aot debug)")
    from aot.tools.slot import add_pack_arguments, add_slot_build_arguments
    add_slot_build_arguments(p)
    p.set_defaults(func=_cmd_build)

    p = sub.add_parser("pack", help="pack a model into a model-only image for a slot firmware's build "
                                    "(aot build --slot): a UF2 of just the slot (pico, pico2) or a .bin for "
                                    "its address; checked against the firmware's slot.json")
    add_pack_arguments(p)
    p.set_defaults(func=_cmd_pack)

    from aot.tools.profile import add_profile_arguments
    p = sub.add_parser("profile", help="per-instruction time of one inference (host, simulator, serial)")
    _add_model_options(p)
    add_profile_arguments(p, _sim_boards())
    _add_dsp_weights_option(p)
    p.set_defaults(func=_cmd_profile)

    from aot.tools.debug import add_debug_arguments
    p = sub.add_parser("debug", help="every op's output on a target against eager / PT2E: the first "
                                     "op whose numbers drift")
    _add_model_options(p)
    add_debug_arguments(p, _sim_boards())
    _add_dsp_weights_option(p)
    p.set_defaults(func=_cmd_debug)

    p = sub.add_parser("generate", help="compile a model to C sources for your own build "
                                        "(CMake, PlatformIO, Zephyr): the build step without the link")
    add_recipe_arguments(p, several=True)
    p.add_argument("--board", required=True, help="board name (see boards/): its ABI sizes the "
                   "runtime state and its features (DSP, MVE) pick the kernels")
    p.add_argument("-o", "--output-dir", help="output folder (default build/<model>-<board>-src)")
    p.add_argument("--json", action="store_true", help="print mote_sources.json instead of the summary")
    p.add_argument("--dry-run", action="store_true",
                   help="check the options and the board, then print the files it would write (with "
                        "--json: the recipe, generated_sources, generated_headers and depends) without "
                        "compiling: what a build system asks at configure time")
    add_slot_build_arguments(p)
    p.set_defaults(func=_cmd_generate)

    p = sub.add_parser("board-sources", help="a board's model-independent sources, include folders and "
                                             "core flags as JSON, for build systems that list sources "
                                             "before the model is compiled (CMake)")
    p.add_argument("board", metavar="BOARD", help="board name (see boards/) or a board file (.json)")
    p.add_argument("--port-dir", metavar="DIR", help="also write the board's port files there "
                   "(mote_board.h, firmware.ld, boot2_image.S; unchanged files are not rewritten)")
    p.set_defaults(func=_cmd_board_sources)

    p = sub.add_parser("test", help="run a build's self-test (or a .bpte's cases) and print the table")
    p.add_argument("program", help="a build directory made with --selftest, or a .bpte file")
    p.add_argument("--target", default="host",
                   help=f"host (the cases on libmote.so), a simulated board ({_sim_boards()}) "
                        "or serial:PORT (read the lines of a board running the build; reset it)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--timeout", type=_positive_seconds, default=120.0,
                   help="simulator or serial timeout, seconds (> 0; default 120): wall time on QEMU and "
                        "serial, simulated time on the pico's rp2040js (a budget of core cycles)")
    add_slot_image_argument(p)
    p.set_defaults(func=_cmd_test)

    from aot.tools.device import add_flash_arguments, add_monitor_arguments, add_uf2_arguments
    p = sub.add_parser("flash", help="copy a build's firmware.uf2 to an RP2350/RP2040 board in BOOTSEL mode")
    add_flash_arguments(p)
    p.set_defaults(func=_cmd_flash)

    p = sub.add_parser("uf2", help="write the UF2 of a firmware ELF you linked yourself (CMake, PlatformIO) "
                                   "for an RP2040/RP2350 board's BOOTSEL drive, as `aot build` writes firmware.uf2")
    add_uf2_arguments(p)
    p.set_defaults(func=_cmd_uf2)

    p = sub.add_parser("monitor", help="read a board's serial port and decode the firmware's lines")
    add_monitor_arguments(p)
    p.set_defaults(func=_cmd_monitor)

    p = sub.add_parser("ops", help="list every operator the runtime can run, with dtypes and int8 kernels")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print one JSON object (operators, excluded, counts)")
    fmt.add_argument("--markdown", action="store_true", help="print docs/ops.md")
    p.set_defaults(func=_cmd_ops)

    p = sub.add_parser("qemu", help="run a firmware ELF you linked yourself on a board's QEMU machine (the pico: "
                                    "on rp2040js, from the UF2 of the ELF, written beside it when missing): UART0 "
                                    "printed as it arrives, the firmware's exit status")
    p.add_argument("elf", metavar="ELF")
    p.add_argument("--board", required=True, help="a board of boards/ (or a board file) that names a simulator "
                                                   "(a QEMU machine, or rp2040js for the pico)")
    p.add_argument("--timeout", type=_positive_seconds, default=60.0,
                   help="seconds of wall time (> 0; default 60; exit status 124 when it runs out)")
    p.set_defaults(func=_cmd_qemu)

    from aot.tools.demo import add_demo_arguments
    p = sub.add_parser("demo", help="`make demo`: the digits CNN trained, compiled fp32 and int8, built "
                                    "for the Pico 2 and QEMU's Cortex-M33, run and checked")
    add_demo_arguments(p)
    p.set_defaults(func=_cmd_demo)
    parser.description = "The `aot` command line: " + ", ".join(sub.choices) + "."  # from the parser: never stale
    return parser


def _quiet_dependencies() -> None:
    """Silence third-party start-up noise (torchao's optional CUDA kernels,
    torch's pytree deprecations) so the command's own output stays readable.
    Mote's own warnings (e.g. int8 fallbacks) still print."""
    import logging
    import warnings
    for name in ("torchao", "torch.utils._pytree", "torch._export", "torch.export",
                 "torch.fx.experimental.symbolic_shapes",  # "Unable to find user code" before our line
                 "torch._subclasses.fake_tensor"):  # its tracebacks repeat our one-line error
        level = logging.CRITICAL if "fake_tensor" in name else logging.ERROR
        # a filter, not only a level: importing torch (after this, since aot.cli imports no
        # torch) resets its loggers' levels, but keeps their filters
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.addFilter(lambda record, level=level: record.levelno >= level)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", message=".*is an Enum subclass.*")
    # nn.GRU / nn.LSTM: torch.export notes that the module's _flat_weights list is not a
    # registered buffer; the weights are exported as parameters all the same
    warnings.filterwarnings("ignore", message=r"(?s).*_flat_weights.*were assigned during export")


def _one_line_warnings(command: str) -> None:
    """Warnings print as one line, "aot <command>: warning: file:line: message",
    not Python's two-line form with the warning call's source."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        where = f"{filename}:{lineno}: " if filename and "/aot/" not in str(filename) else ""
        print(f"aot {command}: warning: {where}{message}", file=file or sys.stderr)
    warnings.showwarning = show


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.verbose:
        _quiet_dependencies()
    _one_line_warnings(args.command)
    from aot.errors import MoteError
    from aot.tools.preflight import preflight
    try:
        preflight(args)  # what needs no model is refused before torch is imported
        return args.func(args)
    except MoteError as exc:
        if args.verbose and exc.__cause__ is not None:  # -v: where torch or the compiler failed
            import traceback
            traceback.print_exception(exc.__cause__, file=sys.stderr)
        print(f"aot {args.command}: error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 1)
    except FileNotFoundError as exc:
        print(f"aot {args.command}: error: {exc.filename}: no such file", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"aot {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into a reader that stopped early (e.g. `| head`): not an error.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
