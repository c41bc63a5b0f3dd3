"""`aot build --slot` (a firmware built for a model slot) and `aot pack` (a model-only
image for such a firmware): argument handling and the lines they print. The work is
in aot.deploy.slot."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aot.errors import BuildError


def _bytes(text: str) -> int:
    """A byte count: 123, 0x400, 64K / 64KiB, 1M / 1MiB."""
    t = text.strip().lower().replace("ib", "").replace("b", "") if not text.lower().startswith("0x") else text
    mult = 1
    if isinstance(t, str) and t[-1:] in ("k", "m"):
        mult, t = (1024 if t[-1] == "k" else 1024 * 1024), t[:-1]
    try:
        value = int(t, 0) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a byte count (123, 0x400, 64K, 1M)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 0 or more bytes")
    return value


def add_slot_build_arguments(p: argparse.ArgumentParser) -> None:
    """`aot build`'s slot options (a slot firmware instead of one with MODEL linked in)."""
    g = p.add_argument_group("model slot (a firmware that runs a model written later: aot pack)")
    g.add_argument("--slot", action="store_true",
                   help="build the firmware for a model slot instead of linking MODEL in: the runtime, the "
                        "kernels of MODEL (and --slot-for, --slot-ops), memory reserved for the largest of "
                        "them plus --slot-headroom; MODEL's inputs/outputs are the application's. Writes "
                        "slot.json (the contract aot pack checks)")
    g.add_argument("--slot-for", nargs="+", default=[], metavar="MODEL",
                   help="more model files the slot is sized for and whose operators it carries (implies "
                        "--slot; same inputs and outputs as MODEL)")
    g.add_argument("--slot-ops", default="", metavar="OP,OP",
                   help="more operators the firmware carries, by name (aot ops lists them), e.g. "
                        "aten::sigmoid.out,aten::tanh.out or short: sigmoid,tanh; with --int8 an aten op also "
                        "brings the int8 kernel --int8 models run it as (sigmoid, tanh: mote::lut_s8.out)")
    g.add_argument("--slot-flash", type=_bytes, metavar="BYTES",
                   help="flash reserved for the slot (rounded up to 4 KiB; default: the board's slot "
                        "region, boards/*.json \"slot\", else the largest image plus headroom), at the top "
                        "of flash unless --slot-address")
    g.add_argument("--slot-address", type=_bytes, metavar="ADDR",
                   help="flash address of the slot (4 KiB aligned)")
    g.add_argument("--slot-arena", type=_bytes, metavar="BYTES", help="activation arena reserved (default: derived)")
    g.add_argument("--slot-state", type=_bytes, metavar="BYTES",
                   help="runtime state reserved per bank (two banks: a new model is checked beside the "
                        "active one; default: derived)")
    g.add_argument("--slot-mutable", type=_bytes, metavar="BYTES",
                   help="mutable-buffer arena reserved per bank (default: derived; 0: models keeping "
                        "state across runs are refused)")
    g.add_argument("--slot-updates", type=_bytes, default=0, metavar="BYTES",
                   help="aot build: the app also takes images over the UART after boot (lines 'S <hex>', 'Q' "
                        "ends) into two RAM staging buffers of BYTES each, and loads each one on the call: a "
                        "refused image leaves the active model running (default 0: none)")
    g.add_argument("--slot-headroom", type=int, default=None, metavar="PERCENT",
                   help="headroom over the largest model for every derived size (default 25)")


def is_slot_build(args) -> bool:
    return bool(getattr(args, "slot", False) or getattr(args, "slot_for", None))


def slot_build_command(args) -> int:
    """`aot build MODEL --board B --slot ...`."""
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.slot import build_slot_firmware
    from aot.deploy.target import build_target
    for opt in ("selftest", "uart_inputs", "trace", "inputs", "external_weights", "method"):
        if getattr(args, opt, None):
            raise BuildError(f"--{opt.replace('_', '-')} is for a firmware with its model linked in; a slot "
                             "firmware runs the image's own self-test (aot pack --selftest)")
    from aot.deploy.multimodel import split_model_args
    split_model_args(args)  # MODEL [MODEL ...]: with --slot, every one sizes the slot (as --slot-for)
    target = build_target(args.board)
    recipe = Recipe.from_args(args, target)
    given = [m.path for m in args.models] if getattr(args, "models", None) else [args.model]
    models = [str(m) for m in given] + list(args.slot_for)
    compiled = [compile_model_file(m, recipe) for m in models]
    out = Path(args.output_dir or Path("build") / f"{compiled[0].name}-{args.board}-slot")
    built = build_slot_firmware(compiled, target.board, out, _contract_args(args, recipe), opt=recipe.opt,
                                updates=getattr(args, "slot_updates", 0),
                                kernel_opt=recipe.kernel_opt)
    c, s = built.contract, built.size
    print(f"aot build: slot firmware for {target.board.name}, sized for {', '.join(x.name for x in compiled)} "
          f"(+{c['headroom_percent']}%): {len(c['ops'])} operators")
    print(f"slot: 0x{c['address']:08x}, {c['flash_bytes']:,} B of flash; arena {c['arena_bytes']:,} B, state "
          f"2 x {c['state_bytes']:,} B, mutable 2 x {c['mutable_bytes']:,} B, scratch {c['scratch_bytes']:,} B")
    print(f"firmware: flash {s['flash_bytes']:,} B, RAM {s['ram_bytes']:,} B (slot memory {s['slot']['ram_bytes']:,} B, "
          f"stack {s['stack_bytes']:,} B)")
    for p in ("slot.json", "firmware.elf", "firmware.bin", "firmware.uf2", "size.json"):
        if (built.out_dir / p).exists():
            print(f"  {built.out_dir / p}")
    return 0


def slot_generate_command(args) -> int:
    """`aot generate MODEL --board B --slot ...`: a slot firmware's sources for your own build."""
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.multimodel import split_model_args
    from aot.deploy.slot import generate_slot_sources
    from aot.deploy.target import build_target
    from aot.tools import jsonout
    split_model_args(args)
    if getattr(args, "slot_updates", 0):
        raise BuildError("--slot-updates is the app of aot build; with aot generate the application is yours "
                         "(call mote_slot_load on any buffer the active model's bytes are not in)")
    if getattr(args, "selftest", None) or getattr(args, "dry_run", False):
        raise BuildError("--selftest / --dry-run are for a model's sources; a slot's images carry their own "
                         "self-test (aot pack --selftest)")
    target = build_target(args.board)
    recipe = Recipe.from_args(args, target)
    given = [m.path for m in args.models] if getattr(args, "models", None) else [args.model]
    compiled = [compile_model_file(str(m), recipe) for m in list(given) + list(args.slot_for)]
    out = Path(args.output_dir or Path("build") / f"{compiled[0].name}-{target.board.name}-slot-src")
    sources = generate_slot_sources(compiled, target.board, out, _contract_args(args, recipe), opt=recipe.opt)
    if args.json:
        print(jsonout.dumps(sources))
        return 0
    c = sources["slot"]
    print(f"aot generate: slot sources for {target.board.name}, sized for {', '.join(x.name for x in compiled)}: "
          f"{len(c['ops'])} operators; slot 0x{c['address']:08x}, {c['flash_bytes']:,} B; arena "
          f"{c['arena_bytes']:,} B, state 2 x {c['state_bytes']:,} B, mutable 2 x {c['mutable_bytes']:,} B")
    print(f"  {out}/mote_sources.json: {len(sources['sources'])} C files to compile; your application includes "
          "mote/slot.h and mote_slot_config.h (ports/cortex-m/app/mote_slot_app.c is one)")
    return 0


def _contract_args(args, recipe) -> dict:
    from aot.deploy.slot import DEFAULT_HEADROOM, recipe_record, resolve_slot_ops
    extra, notes = resolve_slot_ops([op.strip() for op in args.slot_ops.split(",") if op.strip()],
                                    recipe.quantized)
    for note in notes:
        print(f"aot: {note}")
    return {"extra_ops": extra, "flash": args.slot_flash, "address": args.slot_address,
            "arena": args.slot_arena, "state": args.slot_state, "mutable": args.slot_mutable,
            "headroom": DEFAULT_HEADROOM if args.slot_headroom is None else args.slot_headroom,
            "recipe": recipe_record(recipe)}


def adopt_recipe(args, contract: dict) -> list:
    """Set on `args` (aot pack's) the recipe options of the firmware (slot.json "recipe")
    the command line left at their defaults: an image is compiled as the firmware's
    models were unless the user says otherwise. Returns the options taken, as flags."""
    rec = contract.get("recipe")
    if not rec:
        return []  # a slot.json written before the recipe was recorded
    taken = []
    for key in ("int8", "int8_io", "int16_activations"):
        if rec.get(key) and not getattr(args, key, False):
            setattr(args, key, True)
            taken.append("--" + key.replace("_", "-"))
    if rec.get("int4_weights") and not getattr(args, "int4_weights", False):
        args.int4_weights, args.group_size = True, rec["int4_weights"]
        taken.append(f"--int4-weights --group-size {rec['int4_weights']}")
    if rec.get("layout", "auto") != "auto" and getattr(args, "layout", "auto") == "auto":
        args.layout = rec["layout"]
        taken.append(f"--layout {rec['layout']}")
    if rec.get("int8") and not rec.get("dsp_weights") and not rec.get("linear_tables") \
            and getattr(args, "dsp_weights", "flash") == "flash":
        args.dsp_weights = "arena"  # the firmware's models widen at run time (or its board has no DSP)
    return taken


def add_pack_arguments(p: argparse.ArgumentParser) -> None:
    from aot.compiler.recipe import add_model_options, add_selftest_option
    add_model_options(p)
    p.add_argument("--firmware", required=True, metavar="BUILD_DIR",
                   help="the slot firmware's build folder (its slot.json is the contract)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="the image: FILE.uf2 (only the slot's flash, for a pico/pico2 BOOTSEL drive) or FILE.bin "
                        "(written at the slot's address); default MODEL-slot.uf2 or .bin")
    add_selftest_option(p, "carry N self-test cases (default 1: the example inputs) with their expected outputs "
                           "from the host runtime; the firmware runs and checks them after loading the image")
    p.add_argument("--uf2-family", choices=("absolute", "data", "rp2350-arm-s"),
                   help="pico2 (RP2350) only: the UF2 family of the image (default absolute: written at the slot's "
                        "address in flash without a partition table; data: for a slot that is a partition "
                        "accepting data, docs/slots.md)")
    p.add_argument("--unchecked", action="store_true",
                   help="write the image even when this firmware will refuse it (for tests of its refusal "
                        "lines); the problems still print")


def pack_command(args) -> int:
    """`aot pack MODEL --firmware BUILD_DIR -o FILE`."""
    import tempfile
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.boards import load_board
    from aot.deploy.selftest import selftest_for
    from aot.deploy.slot import (SlotError, check_needs, firmware_board, image_for, model_needs, read_contract,
                                 write_image)
    import json
    contract = read_contract(args.firmware)
    board = firmware_board(args.firmware)
    if args.output and not Path(args.output).resolve().parent.is_dir():
        raise SlotError(f"-o {args.output}: the folder {Path(args.output).resolve().parent} does not exist")
    taken = adopt_recipe(args, contract)
    recipe = Recipe.from_args(args, board)
    compiled = compile_model_file(args.model, recipe)
    selftest = selftest_for(compiled, recipe.selftest) if getattr(args, "selftest", None) else None
    image = image_for(compiled, selftest)
    with tempfile.TemporaryDirectory(prefix="mote-pack-") as tmp:
        needs = model_needs(compiled, board, Path(tmp))
    problems = check_needs(contract, needs, len(image))
    out = Path(args.output or f"{compiled.name}-slot.{'uf2' if board.uf2_family_id is not None else 'bin'}")
    where = f"slot 0x{contract['address']:08x} of {args.firmware}"
    rec = contract.get("recipe") or {}
    if problems and rec and bool(rec.get("int8")) != recipe.int8:
        problems[-1] += (f" (the firmware was built {'with' if rec.get('int8') else 'without'} --int8, this "
                         f"image {'with' if recipe.int8 else 'without'})")
    if problems and not args.unchecked:
        raise SlotError(f"{compiled.name} does not fit {where}: {'; '.join(problems)} (--unchecked writes it anyway)")
    write_image(contract, board, image, out, getattr(args, "uf2_family", None))
    if board.uf2_family_id is not None and out.suffix.lower() != ".uf2":
        print(f"aot pack: warning: {out} is the raw image (for your own updater, to write at "
              f"0x{contract['address']:08x}); {board.name}'s BOOTSEL drive, aot flash --model-only and aot test "
              "take the UF2: -o NAME.uf2", file=sys.stderr)
    verdict = ("the firmware will refuse it: " + "; ".join(problems)) if problems else \
        (f"fits: arena {needs['arena_bytes']:,}/{contract['arena_bytes']:,} B, state {needs['state_bytes']:,}/"
         f"{contract['state_bytes']:,} B, {len(needs['ops'])}/{len(contract['ops'])} operators, inputs and outputs match")
    print(f"aot pack: {out} ({len(image):,} B image for {where}"
          + (f", {selftest.count} self-test case(s)" if selftest else "")
          + (f", the firmware's {' '.join(taken)}" if taken else "") + f"): {verdict}")
    return 0


def is_slot_folder(path) -> bool:
    """A slot firmware's build folder (slot.json beside build.json)."""
    p = Path(path)
    return p.is_dir() and (p / "slot.json").exists() and (p / "build.json").exists()


def _slot_target(args) -> None:
    import json
    info = json.loads((Path(args.program) / "build.json").read_text())
    if args.target not in ("host", info["board"]):
        raise BuildError(f"{args.program} is a slot firmware for {info['board']}: run it with --target "
                         f"{info['board']} (its simulator), not {args.target}")


def _check_image(build_dir, image) -> None:
    """The host's check of IMAGE against the slot firmware in `build_dir` before its
    simulator starts (aot.deploy.slot.check_image_file: one line)."""
    from aot.deploy.slot import check_image_file, firmware_board, read_contract
    check_image_file(read_contract(build_dir), firmware_board(build_dir), image, build_dir)


def slot_run_command(args) -> int:
    """`aot run BUILD [--slot IMAGE]` of a slot firmware: its simulator with IMAGE in the
    slot (none: an empty slot); the UART lines as they came, the firmware's exit status."""
    from aot.deploy.slot import run_with_image
    _slot_target(args)
    if getattr(args, "inputs", None):
        raise BuildError("a slot firmware runs the image's self-test cases, or its embedded inputs: --inputs "
                         "is for a firmware with its model linked in")
    image = getattr(args, "slot", None)
    if image is not None:
        _check_image(args.program, image)
    status, text = run_with_image(args.program, image, timeout=args.timeout)
    print(text.rstrip("\n"))
    from aot.deploy.slot import explain_refusal
    for line in text.splitlines():
        if explain_refusal(line) != line:
            print(f"aot run: {explain_refusal(line)[len('MOTE ERROR slot operator '):]}", file=sys.stderr)
    return status


def slot_test_command(args) -> int:
    """`aot test BUILD --slot IMAGE`: the image's own self-test (aot pack --selftest) run by
    the slot firmware; the table and verdict, or the firmware's one refusal line."""
    from aot.deploy.protocol import read_selftest
    from aot.deploy.slot import run_with_image
    from aot.tools import jsonout
    from aot.tools.selftest import format_report
    _slot_target(args)
    if not getattr(args, "slot", None):
        raise BuildError(f"{args.program} is a slot firmware: give the model image to test with --slot IMAGE "
                         "(aot pack MODEL --firmware DIR --selftest)")
    import json
    from aot.errors import ProtocolError, RunError
    _check_image(args.program, args.slot)
    code, text = run_with_image(args.program, args.slot, timeout=args.timeout)
    from aot.deploy.slot import explain_refusal
    from aot.errors import MoteError
    try:
        rep = read_selftest(text.splitlines())
    except MoteError as e:
        if not isinstance(e, ProtocolError):
            raise MoteError(explain_refusal(str(e))) from None
        raise RunError(f"the slot firmware exited with status {code} without a verdict ({e}); pack the image "
                       "with --selftest") from None
    board = json.loads((Path(args.program) / "build.json").read_text())["board"]
    rep.update({"program": f"{args.slot} in the slot of {args.program}", "target": board})
    print(jsonout.dumps(rep) if args.json else format_report(rep))
    return 0 if rep["verdict"] == "PASS" else 1


def add_slot_image_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--slot", metavar="IMAGE",
                   help="a slot firmware's build folder (aot build --slot): the model image (aot pack) to put in "
                        "its slot first: a .bin for QEMU boards, the .uf2 for the pico (default: an empty slot)")
