"""`aot build`: model file -> firmware for a board, with exact sizes.

Output directory (default build/<model>-<board>):
  model.pte, ops.json, mote_model.h      the program, its manifest, exact sizes
  firmware.elf / .bin (/ .uf2)           runtime + only the kernels in ops.json + model
                                         (pico, pico2: with Raspberry Pi binary info for
                                         `picotool info -a`, aot.deploy.binary_info)
  size.json                              flash and RAM by part (bytes), read from the
                                         link map and the ELF; the parts add up to
                                         flash_bytes / ram_bytes (see _size_json)
  build.json                             what `aot run` needs (board, inputs/outputs,
                                         input sets, the objects to re-link with
                                         other inputs)

Selective build: the registry and the kernel sources are exactly the operators
of ops.json; an operator with no kernel fails here, naming it. On Cortex-M
boards an int8 operator with a file in cmsis/ compiles from there instead of
kernels/ (DSP/MVE paths chosen by the compiler's feature macros).

Exact RAM: the planned arena (from the memory plan), the runtime state for
the *target's* ABI (the host library counts the state entries of the method;
the element sizes come from compiling runtime/src/abi_probe.c for the board),
kernel scratch (each int8 kernel call's need, from the C size functions of
kernels/int8_scratch.c compiled for the host, planned as one block per call
inside the arena and handed to the runtime as MOTE_MODEL_SCRATCH_SLOTS; a
separate buffer only for needs the plan does not cover), the stack
(worst call chain from -fstack-usage/-fcallgraph-info, with every kernel as a
possible target of the dispatch and a kernel helper's function-pointer call
bounded by its own file's leaf functions) — all reserved statically, so the
linker rejects what does not fit and nothing is found by trial and error on
the device. A model that does not fit fails here naming its largest tensors
(RAM) or constants (flash) and the shortfall in bytes.

The sources are compiled once; the exact stack reserve is applied by a
second link of the same objects. fp32 kernels that call expf/tanhf link
newlib-nano's libm.a (as an archive: only the members used).
"""
from __future__ import annotations

import json
import re
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from aot.paths import CMSIS_DIR, KERNELS_DIR, PORTS_DIR, RUNTIME_DIR
from aot.deploy import binary_info
from aot.deploy.boards import load_board
from aot.errors import BuildError, FirmwareError
from aot.deploy.size import size_json
from aot.deploy.generate import (EMBED_DIR, EMBED_SOURCES, check_output_folder, dtype_defines,
                                 kernel_fast_sources, kernel_variant_defines,
                                 runtime_feature_defines, KERNEL_OPT_AUTO, OPT_PROFILES, DEFAULT_OPT,
                                 resolve_opt,
                                 check_fits, fit_check, input_sets_bytes, largest, model_header, runtime_sources,
                                 select_kernels, staged_folder, support_sources, target_memory,
                                 write_model_sources)
from aot.deploy.stack import stack_budget

APP_SOURCE = PORTS_DIR / "cortex-m" / "app" / "mote_app.c"



@dataclass
class BuildArtifacts:
    out_dir: Path
    board: str
    elf: Path
    bin: Path
    uf2: Optional[Path]
    size: dict


# --------------------------------------------------------------------------- generated sources


#: the smallest main stack a build counts before its first link (the fit pre-check); the
#: reserve linked is the measured worst case (aot.deploy.stack), which may be less on small RAM
MIN_STACK_BYTES = 4096


def incbin_source(symbol: str, path: Path, section: str, count: Optional[int] = None) -> str:
    """GNU as source placing a file's bytes in flash at a 16-byte boundary."""
    lines = [f'    .section {section},"a"', "    .balign 16",
             f"    .global {symbol}", f"{symbol}:", f'    .incbin "{path}"',
             f"    .global {symbol}_end", f"{symbol}_end:"]
    if count is not None:
        lines += ["    .balign 4", f"    .global {symbol}_count", f"{symbol}_count:",
                  f"    .word {count}"]
    return "\n".join(lines) + "\n"


def inputs_source(blob: Path, count: int) -> str:
    """The assembler source that places the input sets' blob in flash, with their count."""
    return incbin_source("mote_inputs", blob, ".mote_model.inputs", count=count)


# --------------------------------------------------------------------------- build


def build_compiled(compiled, board, out_dir, input_sets=None, opt: str = "speed",
                   uart_inputs: bool = False, verbose: bool = False,
                   kernel_opt: str = "auto", verify_checksum: bool = False,
                   selftest=None, trace: Optional[str] = None, app=None,
                   app_defines: Optional[dict] = None, code_in_sram: Optional[bool] = None,
                   weights_in_sram: bool = False, report_opt_trade: bool = False) -> BuildArtifacts:
    """Build firmware for `board` (a Board, e.g. aot.deploy.target.build_target(name).board, or a
    board name / board file) from a compiled model (aot.compiler.pipeline.Compiled).

    input_sets: list of input tuples (numpy arrays) embedded in flash and run
    in order (default: the model's example inputs). uart_inputs: read inputs
    from the UART instead. verify_checksum: the app checks the program's
    CRC-32 (MOTE_MODEL_CRC32) before loading it and stops with
    MOTE_ERR_CHECKSUM on a mismatch (MOTE_VERIFY_CHECKSUM). selftest: an
    aot.deploy.selftest.SelfTest whose cases become the embedded input sets
    and whose expected outputs the firmware checks at boot (MOTE_APP_SELFTEST;
    also written as model.bpte). trace: None, "profile" (the runtime's event
    tracer, MOTE_TRACE: each inference runs once more traced and prints PROF
    lines) or "debug" (as profile, plus every instruction's output tensors as
    DBG lines; see ports/cortex-m/app/mote_app.c). kernel_opt: the kernels' optimisation flag,
    or "auto" (see kernel_opt_groups). opt: "speed", "size" (OPT_PROFILES) or
    the runtime's GCC flag. app: the application's C source instead
    of ports/cortex-m/app/mote_app.c (it uses the embedding API, mote/model.h,
    and the port's mote_port.h; examples/tinylm/tinylm_app.c is one);
    app_defines: extra -D macros for the build (name -> value or None).
    code_in_sram: the kernels' code runs from SRAM, copied from flash at boot
    (None: the board's default, on for boards behind an XIP cache: pico2);
    size.json's RAM part "sram_copy" is what it costs. weights_in_sram: the
    program (its constants) is read from SRAM, copied at boot; a program that
    does not fit beside everything else is refused naming the sizes.
    report_opt_trade: also compile the linked kernels with the other --opt
    profile and record the trade in size.json "opt" (opt_trade; `aot build`
    prints it).
    The build runs in a staging folder next to
    `out_dir` that replaces `out_dir` only when everything succeeded: a failed
    build leaves the previous build folder exactly as it was (or none).
    Raises BuildError (missing kernel, does not fit).
    """
    board = load_board(board)  # a Board is taken as it is
    if trace not in TRACE_MODES:
        raise BuildError(f"--trace {trace}: choose one of {', '.join(m for m in TRACE_MODES if m)}")
    if selftest is not None:
        if uart_inputs:
            raise BuildError("--selftest runs the cases embedded in flash; it cannot be combined "
                             "with --uart-inputs")
        if input_sets is not None:
            raise BuildError("--selftest embeds its own cases as the inputs; it cannot be combined "
                             "with --inputs")
        input_sets = selftest.inputs
    out = Path(out_dir).resolve()
    check_output_folder(out, "build.json", "build")
    with staged_folder(out, "building") as stage:
        layout = {"code_in_sram": board.code_in_sram if code_in_sram is None else bool(code_in_sram),
                  "weights_in_sram": bool(weights_in_sram), "report_opt_trade": bool(report_opt_trade)}
        size, info = _build_into(compiled, board, stage, input_sets, opt, uart_inputs, kernel_opt,
                                 verify_checksum, selftest, trace, app or APP_SOURCE, app_defines or {},
                                 layout)
    uf2 = out / "firmware.uf2"
    return BuildArtifacts(out_dir=out, board=board.name, elf=out / "firmware.elf",
                          bin=out / "firmware.bin", uf2=uf2 if uf2.exists() else None, size=size)




def opt_trade(board, kernel_sources, include_dirs, defines, art_objects, work: Path, opt: str,
              link=None) -> dict:
    """What the other --opt profile would make of the kernels: their sources
    (those the link kept code of) compiled again with its flags and variant
    defines (`defines`: the other profile's MOTE_S8_USE_*) and compared object by
    object with this build's (flash bytes before --gc-sections, firmware.object_bytes).
    {"profile", "other", "kernels_bytes", "other_kernels_bytes", "files": {name: other - this}}.
    link: (this build's linked kernel bytes, {object: linked bytes}, stack bytes,
    layout) to also link the firmware with the other objects: then "linked_bytes"
    and "other_linked_bytes" are the kernels' flash after --gc-sections, what
    size.json's kernels part would be."""
    from aot.deploy.firmware import compile_sources, object_bytes
    this = "size" if OPT_PROFILES.get(opt, {}).get("MOTE_OPT_SIZE") else "speed"
    other = "speed" if this == "size" else "size"
    _, kflag, odefs = resolve_opt(other)
    defs = dict(defines, **odefs)
    objs = compile_sources(board, kernel_sources, include_dirs, defs, work,
                           **{"opt": "-Os", **kernel_opt_groups(kernel_sources, kflag)})
    names = {Path(s).resolve(): Path(s).name for s in kernel_sources}
    mine = {}
    for o in art_objects:  # this build's objects of the same sources (obj/<rel path>.o)
        for src, name in names.items():
            if Path(o).name == src.name + ".o" and Path(o).parent.name == src.parent.name:
                mine[name] = object_bytes(o)
    theirs = {Path(o).name[:-2]: object_bytes(o) for o in objs}
    files = {n: theirs[n] - mine[n] for n in sorted(mine) if n in theirs and theirs[n] != mine[n]}
    out = {"profile": this, "other": other, "kernels_bytes": sum(mine.values()),
           "other_kernels_bytes": sum(theirs[n] for n in mine if n in theirs), "files": files}
    if link is not None:
        out.update(_linked_trade(board, art_objects, objs, work, *link))
    return out


def _linked_trade(board, art_objects, other_objs, work: Path, kernels_linked: int, linked: dict,
                  stack: int, layout) -> dict:
    """Link this build's objects with `other_objs` in place of the same sources'
    (same path under obj/), in `work`: the kernels' linked bytes there."""
    from aot.deploy.firmware import link_image
    from aot.deploy.size import size_report
    by_rel = {Path(o).resolve().relative_to(work.resolve()): Path(o) for o in other_objs}
    objects, swapped = [], []
    for o in art_objects:
        parts = Path(o).parts
        rel = Path(*parts[len(parts) - 1 - parts[::-1].index("obj") + 1:]) if "obj" in parts else None
        if rel is not None and rel in by_rel:
            objects.append(by_rel[rel])
            swapped.append(Path(o).resolve())
        else:
            objects.append(Path(o))
    (work / "link").mkdir(parents=True, exist_ok=True)
    elf, _, _, mapf = link_image(board, objects, work / "link", "other", stack, work / "link" / "other.ld", layout)
    theirs = size_report(elf, mapf)["objects"]
    flash = lambda k: k["text"] + k["rodata"] + k["data"]  # noqa: E731
    mine = sum(b for o, b in linked.items() if Path(o).resolve() in swapped)
    other = sum(flash(k) for o, k in theirs.items() if Path(o).resolve() in {p.resolve() for p in by_rel.values()})
    return {"linked_bytes": kernels_linked, "other_linked_bytes": kernels_linked - mine + other}


def opt_trade_line(trade: dict) -> str:
    """One line: the kernels' flash at this --opt profile and at the other (linked,
    when opt_trade linked the other profile too; and as objects)."""
    d = trade["other_kernels_bytes"] - trade["kernels_bytes"]
    worst = sorted(trade["files"].items(), key=lambda kv: kv[1])[:3] if d < 0 else \
        sorted(trade["files"].items(), key=lambda kv: -kv[1])[:3]
    detail = ", ".join(f"{n} {v:+,}" for n, v in worst)
    objects = (f"kernels {trade['kernels_bytes']:,} B of objects; --opt {trade['other']} "
               f"would make them {trade['other_kernels_bytes']:,} B ({d:+,} B{': ' + detail if detail else ''})")
    if "other_linked_bytes" not in trade:
        return f"--opt {trade['profile']}: {objects}"
    dl = trade["other_linked_bytes"] - trade["linked_bytes"]
    return (f"--opt {trade['profile']}: kernels {trade['linked_bytes']:,} B linked; --opt {trade['other']} would link "
            f"{trade['other_linked_bytes']:,} B ({dl:+,} B). Objects: {objects}")


def kernel_opt_groups(kernel_sources, kernel_opt: str) -> dict:
    """build_firmware's fast_sources/fast_opt for the kernel sources: all of them
    at `kernel_opt`, or with "auto" the portable ones at -O2 (kernel_fast_sources)
    and cmsis/ at the firmware's own flag."""
    if kernel_opt != KERNEL_OPT_AUTO:
        return {"fast_sources": list(kernel_sources), "fast_opt": kernel_opt}
    return {"fast_sources": kernel_fast_sources(kernel_sources), "fast_opt": "-O2"}


#: build_compiled's trace modes (None: no tracer compiled in)
TRACE_MODES = (None, "profile", "debug")


def debug_pairs_source(compiled) -> str:
    """model_debug.c: the (instruction, value index) pairs of every tensor an
    instruction writes, in instruction order, for MOTE_APP_TRACE_DEBUG."""
    from aot.compiler.debug_record import call_outputs
    spec = compiled.spec
    pairs = [(k, v) for k, call in enumerate(spec.instructions) for v in call_outputs(spec, call)]
    body = ",\n".join(f"    {k}u, {v}u" for k, v in pairs) or "    0u, 0u"
    return ("/* Generated by aot build --trace debug: (instruction, value) pairs. */\n"
            "#include <stdint.h>\n\n"
            "extern const uint32_t mote_debug_pairs[];\n"
            "extern const uint32_t mote_debug_pairs_count;\n\n"
            f"const uint32_t mote_debug_pairs[] = {{\n{body}\n}};\n"
            f"const uint32_t mote_debug_pairs_count = {len(pairs)}u;\n")


def _build_into(compiled, board, out: Path, input_sets, opt, uart_inputs, kernel_opt,
                verify_checksum=False, selftest=None, trace=None, app=APP_SOURCE, app_defines=None,
                layout=None) -> tuple:
    """Every build step, writing only inside `out`. Returns (size.json dict, build.json dict)."""
    from aot.compiler.pipeline import write_outputs
    from aot.deploy.firmware import build_firmware

    gen = out / "gen"
    gen.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    spec = compiled.spec
    op_names = compiled.op_names
    kernels = select_kernels(op_names, board)
    state, scratch = target_memory(compiled, board, gen)
    if input_sets is None:
        input_sets = [[t.numpy() for t in compiled.example_inputs]]
    blob = input_sets_bytes(spec, input_sets)
    # what does not fit is refused before any C is compiled, as aot generate refuses it
    # (with a self-test, input_sets are its cases and the expected outputs come on top)
    from aot.deploy.selftest import selftest_blob
    embedded = len(blob) + (len(selftest_blob(selftest)) if selftest is not None else 0)
    check_fits(spec, board, state, scratch, len(compiled.pte) + embedded)

    # The model's sources are aot generate's (model_pte.c, registry.c,
    # mote_model.h, the self-test's cases); the app and its inputs are the build's.
    (out / "model.pte").write_bytes(compiled.pte)
    generated = write_model_sources(compiled, board, gen, state, selftest)
    inputs_sources, selftest_bytes = [], 0
    if selftest is None:
        (gen / "inputs.bin").write_bytes(blob)
        (gen / "model_inputs.S").write_text(inputs_source(gen / "inputs.bin", len(input_sets)))
        inputs_sources = [gen / "model_inputs.S"]
    else:
        from aot.deploy.selftest import bpte_bytes
        selftest_bytes = len(selftest_blob(selftest))
        (out / "model.bpte").write_bytes(bpte_bytes(compiled.pte, selftest))

    sources = ([Path(app)] + generated + inputs_sources + runtime_sources() + EMBED_SOURCES
               + support_sources() + kernels)
    defines = {"MOTE_APP_BOARD_NAME": f'"{board.name}"', "NDEBUG": None}
    defines.update(dtype_defines(compiled.manifest))
    defines.update(runtime_feature_defines(compiled))
    # every method runs from its image (target_memory): the app's init never writes a state
    defines["MOTE_RUNTIME_STATE"] = int("method_image_bytes" not in compiled.manifest.get("memory", {}))
    opt_flag, kernel_flag, opt_defines = resolve_opt(opt, kernel_opt)
    defines.update(opt_defines)
    defines.update(kernel_variant_defines(compiled, board, bool(opt_defines["MOTE_OPT_SIZE"])))
    defines.update(app_defines or {})
    if uart_inputs:
        defines["MOTE_APP_UART_INPUTS"] = None
    if verify_checksum:
        defines["MOTE_VERIFY_CHECKSUM"] = None
    if selftest is not None:
        defines["MOTE_APP_SELFTEST"] = None
    if trace is not None:
        defines.update({"MOTE_TRACE": None, "MOTE_APP_TRACE": None,
                        "MOTE_APP_TRACE_EVENTS": str(max(len(spec.instructions), 1))})
    if trace == "debug":
        defines["MOTE_APP_TRACE_DEBUG"] = None
        (gen / "model_debug.c").write_text(debug_pairs_source(compiled))
        sources.append(gen / "model_debug.c")
    includes = [gen, RUNTIME_DIR / "include", EMBED_DIR, KERNELS_DIR]
    cases = selftest.count if selftest is not None else 0

    # Compile and link once with a generous stack, then re-link (no recompile:
    # the code does not depend on the reserve) with exactly the analysed worst
    # case (+ margin) reserved. The frames come from the compiler's .su/.ci
    # files, so the analysis does not change with the reserve; the header's
    # stack figure is not read by the code, so the objects stay valid.
    stack = 16384
    layout = dict(layout or {})
    trade = layout.pop("report_opt_trade", False)
    if layout.get("weights_in_sram"):
        need = len(compiled.pte) + int(sum(spec.arena_sizes)) + state + scratch + MIN_STACK_BYTES
        if need > board.ram.size:
            raise BuildError(f"--weights-in-sram: the program's {len(compiled.pte):,} B do not fit {board.name}'s "
                             f"{board.ram.size:,} B of RAM beside the arena, state, scratch and stack "
                             f"({need - board.ram.size:,} B short)")
    fit_check(spec, board, state, scratch, MIN_STACK_BYTES)
    spare = board.ram.size - (int(sum(spec.arena_sizes)) + state + scratch)
    if spare < 2 * stack:
        # Small RAM (micro:bit, 16 KiB): link first with a provisional reserve that
        # leaves room for .data/.bss; the exact reserve follows as on every board.
        stack = max(256, spare // 4 // 8 * 8)
    (gen / "mote_model.h").write_text(model_header(compiled, state, stack, cases))
    # RP2040/RP2350 images carry Raspberry Pi binary info (`picotool info -a`)
    program = binary_info.compiled_program(compiled) if binary_info.board_chip(board) else None
    try:
        art = build_firmware(board, sources, include_dirs=includes, defines=defines, out_dir=out,
                             stack_bytes=stack, opt=opt_flag, layout=layout, program=program,
                             **kernel_opt_groups(support_sources() + kernels, kernel_flag))
    except FirmwareError as e:
        raise _link_error(e, spec, board, state, scratch, stack) from None
    budget = stack_budget(art)
    needed = budget.reserve_bytes
    if needed != stack:
        stack = needed
        fit_check(spec, board, state, scratch, stack)
        try:
            _relink(art, board, stack, layout)
        except FirmwareError as e:
            raise _link_error(e, spec, board, state, scratch, stack) from None
    analysed = budget.main_bytes

    size = size_json(art, compiled, board, state, scratch, stack, analysed, kernels, len(blob),
                     selftest_bytes)
    if trade:
        other_size = not opt_defines["MOTE_OPT_SIZE"]
        size["opt"] = _opt_trade_of(art, board, kernels, includes,
                                    dict(defines, **kernel_variant_defines(compiled, board, other_size)), opt,
                                    size["flash"].get("kernels", 0), layout)
    compiled.manifest["memory"]["stack_bytes"] = stack
    # Written once, at the end, with the final figures.
    write_outputs(compiled, out / "model.pte")
    header = model_header(compiled, state, stack, cases)
    (gen / "mote_model.h").write_text(header)
    (out / "mote_model.h").write_text(header)
    (out / "size.json").write_text(json.dumps(size, indent=2) + "\n")
    rel = lambda p: str(Path(p).relative_to(out)) if Path(p).is_relative_to(out) else str(p)  # noqa: E731
    build_info = {
        "board": board.name, "board_file": str(board.path), "model": compiled.name,
        "int8": compiled.int8, "uart_inputs": uart_inputs, "input_sets": len(input_sets),
        "verify_checksum": verify_checksum, "trace": trace,
        # the self-test's cases are the input sets; their expected outputs are model.bpte's
        "selftest": None if selftest is None else {
            "cases": selftest.count, "blob_bytes": selftest_bytes, "bundle": "model.bpte"},
        "outputs": [{"sizes": list(spec.values[i].sizes), "dtype": spec.values[i].dtype}
                    for i in spec.outputs],
        "inputs": [{"sizes": list(spec.values[i].sizes), "dtype": spec.values[i].dtype}
                   for i in spec.inputs],
        "seconds": round(time.time() - t0, 2),
        # `aot run` refuses a folder whose files do not belong together.
        "pte_sha256": hashlib.sha256(compiled.pte).hexdigest(),
        "firmware_sha256": hashlib.sha256(art.elf.read_bytes()).hexdigest(),
        # What `aot run DIR --inputs` needs to re-link other embedded inputs
        # (paths relative to the build folder).
        "link": {"objects": [rel(o) for o in art.objects], "stack_bytes": stack, "layout": layout,
                 "inputs_object": next((rel(o) for o in art.objects
                                        if o.name.startswith("model_inputs.S")), None)},
    }
    (out / "build.json").write_text(json.dumps(build_info, indent=2) + "\n")
    return size, build_info



def _opt_trade_of(art, board, kernels, includes, defines, opt, kernels_linked: int, layout=None) -> dict:
    """opt_trade for the kernel and support sources the link kept code of, linked
    both ways (kernels_linked: this build's size.json kernels part)."""
    import tempfile
    sizes = {o: k["text"] + k["rodata"] + k["data"] for o, k in art.size_report().get("objects", {}).items()}
    linked = {Path(o).resolve() for o, b in sizes.items() if b > 0}
    used = [s for s in support_sources() + kernels
            if any(o.name == Path(s).name + ".o" and o.parent.name == Path(s).parent.name for o in linked)]
    with tempfile.TemporaryDirectory(prefix="mote-opt-") as tmp:
        return opt_trade(board, used, [art.board_header.parent] + includes, defines, art.objects, Path(tmp), opt,
                         link=(kernels_linked, sizes, art.stack_bytes, layout))

def _relink(art, board, stack: int, layout=None) -> None:
    """Link art's objects again with a `stack`-byte main stack (the one link
    function, aot.deploy.firmware.link_image), rewriting .elf, .map, .bin (.uf2)."""
    from aot.deploy.firmware import link_image
    link_image(board, art.objects, art.elf.parent, art.elf.stem, stack, art.linker_script, layout)
    art.stack_bytes = stack


def linker_reason(text: str) -> str:
    """The linker's own words in a failed link's FirmwareError text ("... linking firmware.elf
    failed (1):", the tool's output, "command: ..."): its overflow / error lines joined in one
    line ("arm-none-eabi-ld: RAM overflow: ...; region `RAM' overflowed by 506 bytes"), never
    an empty reason."""
    lines = [ln.strip() for ln in text.splitlines()[1:] if ln.strip() and not ln.startswith("command: ")]
    picked = [ln for ln in lines if re.search(r"overflow|will not fit|error|undefined reference", ln, re.I)]
    return "; ".join(picked or lines[:3]) or text.splitlines()[0]


def _link_error(err, spec, board, state, scratch, stack) -> BuildError:
    """A link failure as a BuildError; a flash/RAM overflow names the largest
    constants/tensors and the shortfall the linker reports."""
    text = str(err)
    m = re.search(r"region [`'](\w+)' overflowed by (\d+) bytes", text)
    if not m:
        if "RAM overflow" in text:
            return BuildError(f"model does not fit {board.name}'s RAM "
                              f"(arena {int(sum(spec.arena_sizes)):,} + state {state:,} + scratch "
                              f"{scratch:,} + stack {stack:,} B, and the runtime's and port's own data): "
                              f"{linker_reason(text)}")
        return BuildError(text)
    region, short = m.group(1), int(m.group(2))
    what = "RAM" if region == "RAM" else "flash" if region in ("FLASH", "MODEL") else region
    return BuildError(f"model does not fit {board.name}: {what} ({region}) is {short:,} B short. "
                      f"Largest tensors: {largest(spec, constants=region != 'RAM')}")
