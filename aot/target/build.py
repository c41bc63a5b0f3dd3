"""`aot build`: model file -> firmware for a board, with exact sizes.

Output directory (default build/<model>-<board>):
  model.pte, ops.json, mote_model.h      the program, its manifest, exact sizes
  firmware.elf / .bin (/ .uf2)           runtime + only the kernels in ops.json + model
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
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from aot import ir
from aot.paths import CMSIS_DIR, KERNELS_DIR, PORTS_DIR, ROOT, RUNTIME_DIR
from aot.target.boards import load_board
from aot.errors import BuildError, FirmwareError, MoteError
from aot.target.size import size_json, size_table
from aot.compiler.kernels import RUNTIME_OPS, kernel_files, optimized_kernel_files
from aot.compiler.scratch import scratch_bytes, scratch_slots
from aot.target.stack import STACK_MARGIN_BYTES, stack_needed

APP_SOURCE = PORTS_DIR / "cortex-m" / "app" / "mote_app.c"



@dataclass
class BuildArtifacts:
    out_dir: Path
    board: str
    elf: Path
    bin: Path
    uf2: Optional[Path]
    size: dict


# --------------------------------------------------------------------------- kernels


def select_kernels(op_names: Sequence[str], board) -> list:
    """Kernel source files for `op_names` on `board` (cmsis/ first for int8 ops
    on cores with DSP or MVE). Raises BuildError naming every op with no kernel."""
    portable = kernel_files(KERNELS_DIR)
    optimized = optimized_kernel_files()
    files, missing = [], []
    for op in op_names:
        if op in RUNTIME_OPS:
            continue
        src = optimized.get(op) if (board.dsp or board.mve) else None
        src = src or portable.get(op)
        if src is None:
            missing.append(op)
        elif src not in files:
            files.append(src)
    if missing:
        raise BuildError("no kernel for operator(s) " + ", ".join(missing)
                         + f" in this build (kernels/ has {len(portable)} operators)")
    return files


#: Arithmetic kernels whose integer paths are compiled only when a program uses them.
_INT_ARITH_OPS = ("aten::add.", "aten::sub.", "aten::mul.", "aten::div.")


def dtype_defines(manifest: dict) -> dict:
    """Compile-time dtype selection from ops.json: MOTE_KERNELS_INT32/INT64 = 0
    unless an arithmetic op of the program has int32/int64 tensors, so the
    firmware carries only the dtype paths it uses (kernels/binary.c)."""
    used = set()
    for op in manifest.get("ops", []):
        if op["name"].startswith(_INT_ARITH_OPS):
            used.update(op.get("dtypes", []))
    return {"MOTE_KERNELS_INT32": int("int32" in used), "MOTE_KERNELS_INT64": int("int64" in used)}


def support_sources() -> list:
    """Kernel support files (GEMM cores, helpers): every kernels/*.c that is not an op.
    Unused ones cost nothing: the link drops unreferenced sections."""
    return [p for p in sorted(KERNELS_DIR.glob("*.c"))
            if not p.name.startswith("op_") and p.name != "registry_all.c"]


def write_registry(op_names: Sequence[str], path: Path) -> None:
    """Generate the static kernel registry for exactly `op_names`."""
    ops = [op for op in op_names if op not in RUNTIME_OPS]
    cmd = [sys.executable, str(KERNELS_DIR / "gen_registry.py"), "-o", str(path)]
    for op in ops:
        cmd += ["--op", op]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"registry generation failed: {proc.stderr.strip() or proc.stdout.strip()}")


# --------------------------------------------------------------------------- target ABI


def target_state_bytes(pte: bytes, board, work: Path) -> int:
    """Exact runtime-state bytes of method 0 on `board`'s ABI.

    The host library counts the state's entries (values, tensors, list items,
    instructions, kernel argument pointers) without depending on its own
    pointer size; the per-entry sizes for the target come from an object
    compiled for the board (runtime/src/abi_probe.c) and read back with
    pyelftools. Same layout rule as runtime/src/method_init.c: each region rounded
    up to 8 bytes.
    """
    from aot.host.runtime import Program
    counts = Program(pte).state_counts(0)
    sizes = _target_abi_sizes(board, work)
    total = 0
    for key in ("values", "tensors", "ints", "tptrs", "instrs", "kargs"):
        total += (counts[key] * sizes[key] + 7) & ~7
    return total


def _target_abi_sizes(board, work: Path) -> dict:
    from elftools.elf.elffile import ELFFile
    obj = work / "abi_probe.o"
    cmd = (["arm-none-eabi-gcc"] + board.arch_flags
           + ["-std=c99", "-c", "-I", str(RUNTIME_DIR / "include"),
              str(RUNTIME_DIR / "abi" / "abi_probe.c"), "-o", str(obj)])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"ABI probe failed: {proc.stderr.strip()}")
    with open(obj, "rb") as f:
        ef = ELFFile(f)
        sym = ef.get_section_by_name(".symtab").get_symbol_by_name("mote_abi_sizes")[0]
        sec = ef.get_section(sym["st_shndx"])
        data = sec.data()[sym["st_value"]:sym["st_value"] + sym["st_size"]]
    vals = np.frombuffer(data, dtype="<u4")
    keys = ("values", "tensors", "ints", "tptrs", "instrs", "kargs")
    return dict(zip(keys, (int(v) for v in vals[:len(keys)])))


# --------------------------------------------------------------------------- generated sources


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


def _input_sets_bytes(spec: ir.ProgramSpec, input_sets) -> bytes:
    """All input sets back to back, each input cast to the program's dtype and checked."""
    blob = bytearray()
    for k, arrays in enumerate(input_sets):
        if len(arrays) != len(spec.inputs):
            raise BuildError(f"input set {k}: {len(arrays)} arrays, the program takes {len(spec.inputs)}")
        for i, (a, vi) in enumerate(zip(arrays, spec.inputs)):
            t = spec.values[vi]
            a = np.asarray(a)
            if tuple(a.shape) != tuple(t.sizes):
                raise BuildError(f"input set {k}, input {i}: shape {tuple(a.shape)} != "
                                 f"program {tuple(t.sizes)}")
            blob += np.ascontiguousarray(a.astype(ir.DTYPE_NUMPY[t.dtype])).tobytes()
    return bytes(blob)


def _fit_check(spec: ir.ProgramSpec, board, state: int, scratch: int, stack: int) -> None:
    """Fail before compiling when planned RAM alone exceeds the board's RAM."""
    arena = int(sum(spec.arena_sizes))
    need = arena + state + scratch + stack
    if need <= board.ram.size:
        return
    planned = [(v.nbytes, v.name or f"value {i}", tuple(v.sizes)) for i, v in enumerate(spec.values)
               if isinstance(v, ir.TensorValue) and v.mem_id is not None]
    planned.sort(reverse=True)
    top = ", ".join(f"{n} {list(s)} {b:,} B" for b, n, s in planned[:5])
    raise BuildError(
        f"model does not fit {board.name}: needs {need:,} B of RAM (arena {arena:,} + runtime state "
        f"{state:,} + scratch {scratch:,} + stack {stack:,}), the board has {board.ram.size:,} B: "
        f"{need - board.ram.size:,} B short. Largest tensors: {top}")


def _header(compiled, state: int, stack: int, input_bytes: int) -> str:
    """mote_model.h of this build (the one writer: aot.compiler.manifest)."""
    from aot.compiler.manifest import model_header_text
    return model_header_text(compiled.spec, compiled.name, compiled.manifest, firmware={
        "state_bytes": state, "inputs_bytes": input_bytes, "stack_reserved_bytes": stack,
        "scratch_slots": scratch_slots(compiled.spec)})


# --------------------------------------------------------------------------- build


def build_compiled(compiled, board_name: str, out_dir, input_sets=None, opt: str = "-Os",
                   uart_inputs: bool = False, verbose: bool = False,
                   kernel_opt: str = "-O2", verify_checksum: bool = False,
                   selftest=None) -> BuildArtifacts:
    """Build firmware for `board_name` from a compiled model (aot.compiler.pipeline.Compiled).

    input_sets: list of input tuples (numpy arrays) embedded in flash and run
    in order (default: the model's example inputs). uart_inputs: read inputs
    from the UART instead. verify_checksum: the app checks the program's
    CRC-32 (MOTE_MODEL_CRC32) before loading it and stops with
    MOTE_ERR_CHECKSUM on a mismatch (MOTE_VERIFY_CHECKSUM). selftest: an
    aot.target.selftest.SelfTest whose cases become the embedded input sets
    and whose expected outputs the firmware checks at boot (MOTE_APP_SELFTEST;
    also written as model.bpte). The build runs in a staging folder next to
    `out_dir` that replaces `out_dir` only when everything succeeded: a failed
    build leaves the previous build folder exactly as it was (or none).
    Raises BuildError (missing kernel, does not fit).
    """
    board = load_board(board_name)
    if selftest is not None:
        if uart_inputs:
            raise BuildError("--selftest runs the cases embedded in flash; it cannot be combined "
                             "with --uart-inputs")
        if input_sets is not None:
            raise BuildError("--selftest embeds its own cases as the inputs; it cannot be combined "
                             "with --inputs")
        input_sets = selftest.inputs
    out = Path(out_dir).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir()
    try:
        size, info = _build_into(compiled, board, stage, input_sets, opt, uart_inputs, kernel_opt,
                                 verify_checksum, selftest)
        _replace_folder(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    uf2 = out / "firmware.uf2"
    return BuildArtifacts(out_dir=out, board=board.name, elf=out / "firmware.elf",
                          bin=out / "firmware.bin", uf2=uf2 if uf2.exists() else None, size=size)


def _replace_folder(new: Path, out: Path) -> None:
    """Put the finished build `new` at `out`: two renames, so `out` holds either
    the old build or the new one, never a mix."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    new.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def _build_into(compiled, board, out: Path, input_sets, opt, uart_inputs, kernel_opt,
                verify_checksum=False, selftest=None) -> tuple:
    """Every build step, writing only inside `out`. Returns (size.json dict, build.json dict)."""
    from aot.compiler.pipeline import write_outputs
    from aot.target.firmware import build_firmware

    # kernel_opt: the kernels (kernels/, cmsis/) are the hot loop and compile
    # with it (default -O2: 13-43% fewer instructions than -Os for int8 zoo
    # models, ~6 KB more flash); everything else uses `opt` (default -Os).
    gen = out / "gen"
    gen.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    spec = compiled.spec
    op_names = sorted({f"{c.op}.{c.overload}" for c in spec.instructions})
    kernels = select_kernels(op_names, board)

    state = target_state_bytes(compiled.pte, board, gen)
    # kernel scratch planned in the arena (one slot per call) needs no separate buffer
    scratch = int(compiled.manifest.get("memory", {}).get("scratch_bytes") or 0)
    scratch = max(scratch, _cmsis_scratch(compiled, board))
    input_bytes = sum(spec.values[i].nbytes for i in spec.inputs)
    if input_sets is None:
        input_sets = [[t.numpy() for t in compiled.example_inputs]]
    blob = _input_sets_bytes(spec, input_sets)

    compiled.manifest.setdefault("memory", {})
    compiled.manifest["memory"].update({"runtime_state_bytes": state, "scratch_bytes": scratch})
    (out / "model.pte").write_bytes(compiled.pte)
    (gen / "inputs.bin").write_bytes(blob)
    (gen / "model.S").write_text(incbin_source("mote_model_pte", out / "model.pte", ".mote_model"))
    (gen / "model_inputs.S").write_text(inputs_source(gen / "inputs.bin", len(input_sets)))
    write_registry(op_names, gen / "registry.c")
    selftest_sources, selftest_bytes = [], 0
    if selftest is not None:
        from aot.target.selftest import bpte_bytes, selftest_blob
        st_blob = selftest_blob(selftest)
        selftest_bytes = len(st_blob)
        (gen / "selftest.bin").write_bytes(st_blob)
        (gen / "model_selftest.S").write_text(
            incbin_source("mote_selftest", gen / "selftest.bin", ".mote_model.selftest"))
        (out / "model.bpte").write_bytes(bpte_bytes(compiled.pte, selftest))
        selftest_sources = [gen / "model_selftest.S"]

    sources = ([APP_SOURCE, gen / "model.S", gen / "model_inputs.S", gen / "registry.c"]
               + selftest_sources
               + sorted((RUNTIME_DIR / "src").glob("*.c")) + support_sources() + kernels)
    defines = {"MOTE_APP_BOARD_NAME": f'"{board.name}"', "NDEBUG": None}
    defines.update(dtype_defines(compiled.manifest))
    if uart_inputs:
        defines["MOTE_APP_UART_INPUTS"] = None
    if verify_checksum:
        defines["MOTE_VERIFY_CHECKSUM"] = None
    if selftest is not None:
        defines["MOTE_APP_SELFTEST"] = None
    includes = [gen, RUNTIME_DIR / "include", KERNELS_DIR]

    # Compile and link once with a generous stack, then re-link (no recompile:
    # the code does not depend on the reserve) with exactly the analysed worst
    # case (+ margin) reserved. The frames come from the compiler's .su/.ci
    # files, so the analysis does not change with the reserve; the header's
    # stack figure is not read by the code, so the objects stay valid.
    stack = 16384
    _fit_check(spec, board, state, scratch, 4096)
    spare = board.ram.size - (int(sum(spec.arena_sizes)) + state + scratch)
    if spare < 2 * stack:
        # Small RAM (micro:bit, 16 KiB): link first with a provisional reserve that
        # leaves room for .data/.bss; the exact reserve follows as on every board.
        stack = max(256, spare // 4 // 8 * 8)
    (gen / "mote_model.h").write_text(_header(compiled, state, stack, input_bytes))
    try:
        art = build_firmware(board, sources, include_dirs=includes, defines=defines, out_dir=out,
                             stack_bytes=stack, opt=opt, fast_sources=support_sources() + kernels,
                             fast_opt=kernel_opt)
    except FirmwareError as e:
        raise _link_error(e, spec, board, state, scratch, stack) from None
    needed = stack_needed(art)
    if needed != stack:
        stack = needed
        _fit_check(spec, board, state, scratch, stack)
        try:
            _relink(art, board, stack)
        except FirmwareError as e:
            raise _link_error(e, spec, board, state, scratch, stack) from None
    analysed = needed - STACK_MARGIN_BYTES

    size = size_json(art, compiled, board, state, scratch, stack, analysed, kernels, len(blob),
                     selftest_bytes)
    compiled.manifest["memory"]["stack_bytes"] = stack
    # Written once, at the end, with the final figures.
    write_outputs(compiled, out / "model.pte")
    header = _header(compiled, state, stack, input_bytes)
    (gen / "mote_model.h").write_text(header)
    (out / "mote_model.h").write_text(header)
    (out / "size.json").write_text(json.dumps(size, indent=2) + "\n")
    rel = lambda p: str(Path(p).relative_to(out)) if Path(p).is_relative_to(out) else str(p)  # noqa: E731
    build_info = {
        "board": board.name, "board_file": str(board.path), "model": compiled.name,
        "int8": compiled.int8, "uart_inputs": uart_inputs, "input_sets": len(input_sets),
        "verify_checksum": verify_checksum,
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
        "link": {"objects": [rel(o) for o in art.objects], "stack_bytes": stack,
                 "inputs_object": next((rel(o) for o in art.objects
                                        if o.name.startswith("model_inputs.S")), None)},
    }
    (out / "build.json").write_text(json.dumps(build_info, indent=2) + "\n")
    return size, build_info


def _relink(art, board, stack: int) -> None:
    """Link art's objects again with a `stack`-byte main stack (the one link
    function, aot.target.firmware.link_image), rewriting .elf, .map, .bin (.uf2)."""
    from aot.target.firmware import link_image
    link_image(board, art.objects, art.elf.parent, art.elf.stem, stack, art.linker_script)
    art.stack_bytes = stack


def _link_error(err, spec, board, state, scratch, stack) -> BuildError:
    """A link failure as a BuildError; a flash/RAM overflow names the largest
    constants/tensors and the shortfall the linker reports."""
    text = str(err)
    m = re.search(r"region [`'](\w+)' overflowed by (\d+) bytes", text)
    if not m:
        if "RAM overflow" in text:
            return BuildError(f"model does not fit {board.name}'s RAM "
                              f"(arena {int(sum(spec.arena_sizes)):,} + state {state:,} + scratch "
                              f"{scratch:,} + stack {stack:,} B): {text.splitlines()[0]}")
        return BuildError(text)
    region, short = m.group(1), int(m.group(2))
    if region == "RAM":
        tensors = [(v.nbytes, v.name or f"value {i}", tuple(v.sizes)) for i, v in enumerate(spec.values)
                   if isinstance(v, ir.TensorValue) and v.mem_id is not None]
        what = "RAM"
    else:
        tensors = [(v.nbytes, v.name or f"value {i}", tuple(v.sizes)) for i, v in enumerate(spec.values)
                   if isinstance(v, ir.TensorValue) and v.constant is not None]
        what = "flash" if region in ("FLASH", "MODEL") else region
    tensors.sort(reverse=True)
    top = ", ".join(f"{n} {list(s)} {b:,} B" for b, n, s in tensors[:5])
    return BuildError(f"model does not fit {board.name}: {what} ({region}) is {short:,} B short. "
                      f"Largest tensors: {top}")


def _cmsis_scratch(compiled, board) -> int:
    """Largest scratch an optimized int8 kernel needs (0 when none is linked).

    The sizes come from the C functions of kernels/int8_scratch.c (the same
    formulas the cmsis/ kernels check ctx->scratch_size against), compiled
    for the host into a small cached shared library and called through ctypes.
    """
    if not (board.dsp or board.mve):
        return 0
    planned = {i for i, _, _ in scratch_slots(compiled.spec)}
    return max([scratch_bytes(compiled.spec, c) for i, c in enumerate(compiled.spec.instructions)
                if i not in planned] or [0])


