"""The `aot build` and `aot run` commands: argument handling and the text or
JSON they print. The work itself is in aot.deploy (build, run) and
aot.compiler (compile)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from aot.errors import RunError
from aot.host.inputs import conform_inputs, load_npz_inputs
from aot.deploy.target import HOST, SERIAL, build_target, run_target
from aot.deploy.build import build_compiled
from aot.deploy.run import SIM_TARGETS, _check_inputs, embedded_inputs, read_build, run_host, run_simulator
from aot.deploy.size import size_table
from aot.tools.device import format_array
from aot.tools import jsonout


def _note(message: str) -> None:
    print(f"aot run: note: {message}", file=sys.stderr)


def _jsonable(result: dict) -> dict:
    counter = result.get("counter", "instructions")  # "cycles" on a real board
    runs = [{"outputs": [np.asarray(o).tolist() for o in r["outputs"]],
             counter: r[counter]} for r in result["runs"]]
    out = {"target": result["target"], "program": result["program"],
           "outputs": runs[0]["outputs"] if runs else [],
           counter: runs[0][counter] if runs else None,
           "runs": runs}
    for k in ("flash_bytes", "ram_bytes", "estimated_cycles", "cycles_per_instruction", "estimate"):
        if k in result:
            out[k] = result[k]
    return out


def _selftest(compiled, n, command: str):
    """The --selftest N cases of `compiled` with their expected outputs (None without --selftest)."""
    if not n:
        return None
    from aot.deploy.selftest import case_inputs, make_selftest
    cases = case_inputs(compiled, n)
    if len(cases) < n:
        print(f"aot {command}: note: --selftest {n}: the model has {len(cases)} input "
              f"set(s) (example + calibration inputs); embedding {len(cases)}", file=sys.stderr)
    return make_selftest(compiled.pte, cases, compiled.ptd)


def generate_command(args) -> int:
    """`aot generate`: the sources of a model for the user's own build (aot.deploy.generate)."""
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.generate import generate_compiled, planned_table
    from aot.deploy.generate import check_output_folder
    from aot.deploy.multimodel import split_model_args
    split_model_args(args)  # MODEL [MODEL ...] (aot.tools.preflight did it when run from the command line)
    target = build_target(args.board)  # an unknown board or a bad -o fails before the (slower) compile
    board = target.board
    if args.output_dir:
        check_output_folder(Path(args.output_dir).resolve(), "mote_sources.json", "generate")
    recipe = Recipe.from_args(args, target)
    if getattr(args, "models", None):  # several models, or one with NAME=
        from aot.tools.multimodel import generate_models_command
        return generate_models_command(args, recipe, board, _selftest)
    if getattr(args, "dry_run", False):
        return _generate_dry_run(args, recipe, board)
    compiled = compile_model_file(args.model, recipe)
    out = Path(args.output_dir or Path("build") / f"{compiled.name}-{board.name}-src")
    selftest = _selftest(compiled, recipe.selftest, "generate")
    gen = generate_compiled(compiled, board, out, selftest=selftest,
                            verify_checksum=recipe.verify_checksum, opt=recipe.opt)
    if args.json:
        print(jsonout.dumps(gen.sources))
        return 0
    print(f"aot generate: {compiled.summary()}")
    print(planned_table(gen.sources, board))
    if selftest is not None:
        print(f"self-test: {selftest.count} case(s) in model_selftest.c (mote_model_selftest())")
    print(f"  {out}/mote_sources.json: {len(gen.sources['sources'])} C files to compile, "
          f"include folders {', '.join(gen.sources['include_dirs'])}")
    return 0


def _generate_dry_run(args, recipe, board) -> int:
    """`aot generate --dry-run`: the checked recipe and the files the generate would write."""
    import dataclasses
    from aot.deploy.generate import generated_headers, generated_sources
    if recipe.calib and not Path(recipe.calib).is_file():
        from aot.errors import MoteError
        raise MoteError(f"--calib {recipe.calib}: no such file")
    info = {"board": board.name, "recipe": dataclasses.asdict(recipe),
            "generated_sources": generated_sources(recipe.external_weights is not None, bool(recipe.selftest)),
            "generated_headers": generated_headers(board),
            "depends": [str(Path(recipe.calib).resolve())] if recipe.calib else []}
    if args.json:
        print(jsonout.dumps(info))
    else:
        print(f"aot generate: options checked for {board.name}; would write "
              + ", ".join(info["generated_sources"] + info["generated_headers"]) + ", mote_sources.json")
    return 0


def build_command(args) -> int:
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.generate import check_output_folder
    from aot.deploy.multimodel import split_model_args
    split_model_args(args)  # MODEL [MODEL ...] (aot.tools.preflight did it when run from the command line)
    target = build_target(args.board)  # an unknown board or a bad -o fails before the (slower) compile
    if args.output_dir:
        check_output_folder(Path(args.output_dir).resolve(), "build.json", "build")
    if getattr(args, "selftest", None) and (args.inputs or getattr(args, "uart_inputs", False)):
        from aot.errors import BuildError
        raise BuildError("--selftest embeds its own cases as the inputs; it cannot be combined with "
                         + ("--inputs" if args.inputs else "--uart-inputs"))
    recipe = Recipe.from_args(args, target)
    if getattr(args, "models", None):  # several models, or one with NAME=
        from aot.tools.multimodel import build_models_command
        return build_models_command(args, recipe, target, _selftest)
    compiled = compile_model_file(args.model, recipe)
    if recipe.method:   # the method the firmware app runs (every method is initialised)
        compiled = compiled.for_method(recipe.method)
    suffix = f"-{compiled.method_name}" if len(compiled.methods) > 1 else ""
    out = Path(args.output_dir or Path("build") / f"{compiled.name}-{args.board}{suffix}")
    selftest = _selftest(compiled, recipe.selftest, "build")
    input_sets = None
    if args.inputs:
        from aot.host.inputs import conform_inputs, load_npz_inputs
        input_sets = [load_npz_inputs(args.inputs)]
    print(f"aot build: {compiled.summary()}")
    art = build_compiled(compiled, target.board, out, input_sets=input_sets, opt=recipe.opt,
                         kernel_opt=recipe.kernel_opt,
                         uart_inputs=getattr(args, "uart_inputs", False),
                         verify_checksum=recipe.verify_checksum,
                         selftest=selftest, trace=getattr(args, "trace", None),
                         code_in_sram=recipe.code_in_sram, weights_in_sram=recipe.weights_in_sram,
                         report_opt_trade=True)
    print(size_table(art.size))
    if art.size.get("opt"):
        from aot.deploy.build import opt_trade_line
        print(opt_trade_line(art.size["opt"]))
    spec = getattr(compiled, "spec", None)
    linear = spec.plan_info.get("linear_trade") if spec is not None else None
    if linear and linear["layers"]:
        from aot.compiler.dsp_weights import linear_trade_line
        print(linear_trade_line(linear))
    if selftest is not None:
        print(f"self-test: {selftest.count} case(s), {art.size['planned']['selftest']:,} B of "
              "expected outputs and tolerances (part \"selftest\")")
    for p in ("model.pte", "model.ptd", "model.debug.json", "model.bpte", "ops.json", "mote_model.h", "firmware.elf", "firmware.bin",
              "firmware.uf2", "size.json"):
        if (out / p).exists():
            print(f"  {out / p}")
    return 0


def _estimate_cycles(result: dict, board, timeout: float) -> None:
    """Trace the run of `result` again and add the cycle estimate of the board's
    cost model (aot.deploy.cycles.cost_model: Cortex-M33 on mps2-an505, Cortex-M0+
    on microbit) per inference ("estimated_cycles", "cycles_per_instruction") to it."""
    from aot.deploy.cycles import cost_model, energy, trace_firmware
    costs = cost_model(board)
    # a --trace profile|debug firmware runs every input set twice, the second time with the
    # event tracer: the figure is the untraced inferences'
    est = trace_firmware(result["elf"], board, timeout_s=max(timeout, 60.0) * 10, costs=costs).untraced()
    if est.runs != len(result["runs"]):
        raise RunError(f"the traced run made {est.runs} inferences, the run {len(result['runs'])}")
    result["estimated_cycles"] = est.cycles // est.runs
    result["cycles_per_instruction"] = round(est.cycles_per_instruction, 4)
    chip = build_target(costs.clock_board).board
    result["estimate"] = {"model": costs.name, "traced_instructions": est.instructions // est.runs,
                          "cycles_by_class": dict(est.by_class.most_common()),
                          "memory": costs.memory, "clock_board": chip.name, "clock_hz": chip.clock_hz}
    if costs.traced_on:
        result["estimate"]["traced_on"] = costs.traced_on
    result["estimate"][f"{chip.name}_energy"] = energy(result["estimated_cycles"], chip)


def run_command(args) -> int:
    program = Path(args.program)
    inputs = load_npz_inputs(args.inputs) if args.inputs else None
    if getattr(args, "estimate_cycles", False) and (args.target == "host" or args.target.startswith("serial:")):
        from aot.deploy.cycles import ESTIMATE_TARGETS
        raise RunError(f"{ESTIMATE_TARGETS}, not {args.target}")
    target = run_target(args.target)
    if target.kind == SERIAL:
        from aot.deploy.serial_port import run_serial
        port = target.port
        if not program.is_dir():
            raise RunError(f"--target {args.target} runs a build directory whose firmware is on the "
                           f"board (`aot build ... --uart-inputs -o DIR`, `aot flash DIR`), not {program}")
        result = run_serial(program, port, inputs, timeout=args.timeout, note=_note)
    elif target.kind != HOST and getattr(args, "method", None):
        raise RunError("--method picks the method of a .pte on the host; a firmware build runs the "
                       "method it was built for (aot build --method NAME)")
    elif target.kind == HOST:
        input_sets = None
        if program.is_dir():
            info = read_build(program)  # a build folder's files must belong together, as on every target
            if inputs is None:  # the inputs embedded at build time, as the firmware runs them
                input_sets = embedded_inputs(program, info)
        pte = program / "model.pte" if program.is_dir() else program
        if not pte.exists():
            raise RunError(f"{pte} not found")
        name = getattr(args, "method", None)
        from aot.host.runtime import Program
        ptd = Path(args.ptd) if getattr(args, "ptd", None) else pte.with_suffix(".ptd")
        if getattr(args, "ptd", None) and not ptd.is_file():
            raise RunError(f"--ptd {ptd}: no such file")
        ptd = ptd if ptd.is_file() else None
        names = Program(pte).method_names
        if name is not None and name not in names:
            raise RunError(f"{pte.name} has no method {name!r}; its methods: {', '.join(names)}")
        if inputs is not None:
            method = Program(pte, data_map=ptd).method(name)
            infos = [method.input_info(i) for i in range(method.num_inputs)]
            inputs = conform_inputs(inputs, [x.shape for x in infos], [x.dtype for x in infos], _note)
        from aot.errors import RuntimeCallError
        try:
            result = run_host(pte, inputs, name, ptd, input_sets=input_sets)
        except RuntimeCallError as e:
            if e.name != "MOTE_ERR_EXTERNAL_MISSING":
                raise
            raise RunError(f"{pte.name} keeps its weights in a .ptd " + (
                f"and {ptd.name} lacks some of them" if ptd else "and none was found beside it")
                + ": pass --ptd FILE.ptd (the file aot export --external-weights wrote)") from None
    else:
        board = target.require_simulator(
            f"board {target.board.name} has no simulator to run on; "
            f"simulated boards: {', '.join(SIM_TARGETS)} or a board file naming one").board
        if not program.is_dir():
            raise RunError(f"--target {args.target} runs a build directory (`aot build ... "
                           f"--board {args.target} -o DIR`), not {program}")
        if getattr(args, "estimate_cycles", False):
            from aot.deploy.cycles import cost_model
            cost_model(board)  # refuse a board without one before the run
        if getattr(args, "estimate_cycles", False) and read_build(program).get("uart_inputs"):
            # the traced run has no UART input: the firmware would wait for it until the timeout
            raise RunError("--estimate-cycles traces a firmware with embedded inputs; this one reads "
                           "them from the UART (built with --uart-inputs)")
        if inputs is not None:
            inputs = _check_inputs(read_build(program), inputs, _note)
        result = run_simulator(program, args.target, inputs, timeout=args.timeout)
        if getattr(args, "estimate_cycles", False):
            _estimate_cycles(result, board, args.timeout)
    if args.outputs:
        arrays = {}
        for k, r in enumerate(result["runs"]):
            for i, o in enumerate(r["outputs"]):
                arrays[f"output_{i}" if k == 0 else f"set{k}_output_{i}"] = np.asarray(o)
        np.savez(args.outputs, **arrays)
    if args.json:
        print(jsonout.dumps(_jsonable(result)))
        return 0
    print(f"aot run: {result['program']} on {result['target']}")
    counter = result.get("counter", "instructions")
    for k, r in enumerate(result["runs"]):
        head = f"  inference {k}" + (f": {r[counter]:,} {counter}" if r[counter] is not None else "")
        print(head)
        for i, o in enumerate(r["outputs"]):
            print(f"    output {i}: {format_array(o)}")
    if "flash_bytes" in result:
        print(f"  flash {result['flash_bytes']:,} B, RAM {result['ram_bytes']:,} B")
    if "estimated_cycles" in result:
        e = result["estimate"]
        from aot.deploy.cycles import costs_named
        costs = costs_named(e["model"])
        est, hz = result["estimated_cycles"], e["clock_hz"]
        print(f"  estimated {costs.label} cycles: {est:,} per inference ({result['cycles_per_instruction']:.2f} "
              f"cycles/instruction; {1000 * est / hz:.2f} ms at {hz / 1e6:.0f} MHz on a {costs.product})")
        if costs.note:
            print(f"  {costs.note}")
        print(f"  memory assumed: {e['memory']}")
        en = e.get(f"{e['clock_board']}_energy")
        if en:
            print(f"  estimated energy on a {costs.product}: {en['microjoules']:.1f} uJ per inference "
                  f"({en['milliseconds']:.3f} ms x {en['active_mw']:g} mW at {en['clock_hz'] / 1e6:g} MHz; "
                  f"power figure: {en['source']})")
    if args.outputs:
        print(f"  wrote {args.outputs}")
    return 0
