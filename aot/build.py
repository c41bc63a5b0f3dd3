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
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from aot import ir
from aot.boards import ROOT, load_board
from aot.errors import MoteError
from aot.firmware import FirmwareError

KERNELS_DIR = ROOT / "kernels"
CMSIS_DIR = ROOT / "cmsis"
RUNTIME_DIR = ROOT / "runtime"
APP_SOURCE = ROOT / "ports" / "cortex-m" / "app" / "mote_app.c"

#: Operators the runtime executes itself (no kernel file).
RUNTIME_OPS = {"executorch_prim::et_view.default"}
#: Bytes added to the analysed worst-case stack: exception entry with FP
#: context (104 B, Armv8-M) plus a margin for libgcc helpers the call graph
#: cannot see (soft division, memcpy).
STACK_MARGIN_BYTES = 512


class BuildError(MoteError):
    """The firmware cannot be built: missing kernel, model too large, toolchain error."""


@dataclass
class BuildArtifacts:
    out_dir: Path
    board: str
    elf: Path
    bin: Path
    uf2: Optional[Path]
    size: dict


# --------------------------------------------------------------------------- kernels


_MARKER = re.compile(r'MOTE_KERNEL\(\s*"([^"]+)"\s*\)')


def kernel_files(directory: Path) -> dict:
    """Operator name -> kernel source file, from the MOTE_KERNEL markers of op_*.c."""
    found = {}
    for path in sorted(directory.glob("op_*.c")):
        for m in _MARKER.finditer(path.read_text(encoding="utf-8")):
            found[m.group(1)] = path
    return found


def select_kernels(op_names: Sequence[str], board) -> list:
    """Kernel source files for `op_names` on `board` (cmsis/ first for int8 ops
    on cores with DSP or MVE). Raises BuildError naming every op with no kernel."""
    portable = kernel_files(KERNELS_DIR)
    optimized = kernel_files(CMSIS_DIR) if CMSIS_DIR.is_dir() else {}
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
    pyelftools. Same layout rule as runtime/src/method.c: each region rounded
    up to 8 bytes.
    """
    from aot.runtime import Program
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


def _incbin_source(symbol: str, path: Path, section: str, count: Optional[int] = None) -> str:
    """GNU as source placing a file's bytes in flash at a 16-byte boundary."""
    lines = [f'    .section {section},"a"', "    .balign 16",
             f"    .global {symbol}", f"{symbol}:", f'    .incbin "{path}"',
             f"    .global {symbol}_end", f"{symbol}_end:"]
    if count is not None:
        lines += ["    .balign 4", f"    .global {symbol}_count", f"{symbol}_count:",
                  f"    .word {count}"]
    return "\n".join(lines) + "\n"


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


def _model_header(compiled, state: int, scratch: int, stack: int, input_bytes: int) -> str:
    from aot.manifest import model_header_text
    text = model_header_text(compiled.spec, compiled.name, compiled.manifest)
    extra = [
        "/* Target-exact sizes added by aot build (bytes). */",
        f"#define MOTE_MODEL_STATE_BYTES {state}u",
        f"#define MOTE_MODEL_INPUTS_BYTES {input_bytes}u",
        f"#define MOTE_MODEL_STACK_RESERVED_BYTES {stack}u",
    ]
    if "MOTE_MODEL_SCRATCH_BYTES" not in text:
        extra.append(f"#define MOTE_MODEL_SCRATCH_BYTES {scratch}u")
    slots = scratch_slots(compiled.spec)
    extra.append("/* Kernel scratch planned in arena 1: {instruction, offset, size} (mote_scratch_slot_t). */")
    extra.append(f"#define MOTE_MODEL_NUM_SCRATCH_SLOTS {len(slots)}")
    items = ", ".join(f"{{{i}u, {off}u, {size}u}}" for i, off, size in slots) or "{0u, 0u, 0u}"
    extra.append(f"#define MOTE_MODEL_SCRATCH_SLOTS {{ {items} }}")
    if "MOTE_MODEL_ARENA0_BYTES" not in text:
        extra.append("#define MOTE_MODEL_ARENA0_BYTES 0u")
    end = text.rindex("#endif")
    return text[:end] + "\n".join(extra) + "\n\n" + text[end:]


# --------------------------------------------------------------------------- build


def build_compiled(compiled, board_name: str, out_dir, input_sets=None, opt: str = "-Os",
                   uart_inputs: bool = False, verbose: bool = False,
                   kernel_opt: str = "-O2") -> BuildArtifacts:
    """Build firmware for `board_name` from a compiled model (aot.compile.Compiled).

    input_sets: list of input tuples (numpy arrays) embedded in flash and run
    in order (default: the model's example inputs). uart_inputs: read inputs
    from the UART instead. Raises BuildError (missing kernel, does not fit).
    """
    from aot.firmware import build_firmware
    from aot.compile import write_outputs

    # kernel_opt: the kernels (kernels/, cmsis/) are the hot loop and compile
    # with it (default -O2: 13-43% fewer instructions than -Os for int8 zoo
    # models, ~6 KB more flash); everything else uses `opt` (default -Os).
    board = load_board(board_name)
    out = Path(out_dir).resolve()
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
    write_outputs(compiled, out / "model.pte")
    (gen / "inputs.bin").write_bytes(blob)
    (gen / "model.S").write_text(_incbin_source("mote_model_pte", out / "model.pte",
                                                ".mote_model"))
    (gen / "model_inputs.S").write_text(_incbin_source("mote_inputs", gen / "inputs.bin",
                                                 ".mote_model.inputs", count=len(input_sets)))
    write_registry(op_names, gen / "registry.c")

    sources = ([APP_SOURCE, gen / "model.S", gen / "model_inputs.S", gen / "registry.c"]
               + sorted((RUNTIME_DIR / "src").glob("*.c")) + support_sources() + kernels)
    defines = {"MOTE_APP_BOARD_NAME": f'"{board.name}"', "NDEBUG": None}
    defines.update(dtype_defines(compiled.manifest))
    if uart_inputs:
        defines["MOTE_APP_UART_INPUTS"] = None
    includes = [gen, RUNTIME_DIR / "include", KERNELS_DIR]

    # Compile and link once with a generous stack, then re-link (no recompile:
    # the code does not depend on the reserve) with exactly the analysed worst
    # case (+ margin) reserved. The frames come from the compiler's .su/.ci
    # files, so the analysis does not change with the reserve.
    stack = 16384
    _fit_check(spec, board, state, scratch, 4096)
    (gen / "mote_model.h").write_text(_model_header(compiled, state, scratch, stack, input_bytes))
    try:
        art = build_firmware(board, sources, include_dirs=includes, defines=defines, out_dir=out,
                             stack_bytes=stack, opt=opt, fast_sources=support_sources() + kernels,
                             fast_opt=kernel_opt)
    except FirmwareError as e:
        raise _link_error(e, spec, board, state, scratch, stack) from None
    needed = _stack_needed(art)
    if needed != stack:
        stack = needed
        _fit_check(spec, board, state, scratch, stack)
        try:
            _relink(art, board, stack)
        except FirmwareError as e:
            raise _link_error(e, spec, board, state, scratch, stack) from None
        (gen / "mote_model.h").write_text(_model_header(compiled, state, scratch, stack, input_bytes))
    analysed = needed - STACK_MARGIN_BYTES

    size = _size_json(art, compiled, board, state, scratch, stack, analysed, kernels, len(blob))
    compiled.manifest["memory"]["stack_bytes"] = stack
    write_outputs(compiled, out / "model.pte", header=False)
    (out / "mote_model.h").write_text((gen / "mote_model.h").read_text())
    (out / "size.json").write_text(json.dumps(size, indent=2) + "\n")
    build_info = {
        "board": board.name, "model": compiled.name, "int8": compiled.int8,
        "uart_inputs": uart_inputs, "input_sets": len(input_sets),
        "outputs": [{"sizes": list(spec.values[i].sizes), "dtype": spec.values[i].dtype}
                    for i in spec.outputs],
        "inputs": [{"sizes": list(spec.values[i].sizes), "dtype": spec.values[i].dtype}
                   for i in spec.inputs],
        "seconds": round(time.time() - t0, 2),
        # What `aot run DIR --inputs` needs to re-link other embedded inputs.
        "link": {"objects": [str(o) for o in art.objects], "stack_bytes": stack,
                 "inputs_source": str(gen / "model_inputs.S"),
                 "inputs_object": next((str(o) for o in art.objects
                                        if o.name.startswith("model_inputs.S")), None)},
    }
    (out / "build.json").write_text(json.dumps(build_info, indent=2) + "\n")
    return BuildArtifacts(out_dir=out, board=board.name, elf=art.elf, bin=art.bin, uf2=art.uf2,
                          size=size)


def _relink(art, board, stack: int) -> None:
    """Link art's objects again with a `stack`-byte main stack (same command as
    aot.firmware.build_firmware), rewriting the .elf, .map, .bin (and .uf2)."""
    from aot.firmware import CC, OBJCOPY, linker_script, _run
    art.linker_script.write_text(linker_script(board, stack))
    link = (board.arch_flags + ["-nostartfiles", "--specs=nano.specs", f"-T{art.linker_script}",
                                "-Wl,--gc-sections", f"-Wl,-Map={art.map}",
                                "-Wl,--no-warn-rwx-segments", "-o", str(art.elf)]
            + [str(o) for o in art.objects] + ["-lm", "-lc", "-lgcc"])
    _run([CC] + link, f"linking {art.elf.name}")
    _run([OBJCOPY, "-O", "binary", "-R", ".mote_model", str(art.elf), str(art.bin)], "objcopy")
    if art.uf2 is not None:
        from aot.uf2 import bin_to_uf2
        art.uf2.write_bytes(bin_to_uf2(art.bin.read_bytes(), board.flash.origin,
                                       board.uf2_family_id))
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


def scratch_slots(spec) -> list:
    """(instruction, offset, size) of each kernel call's scratch the planner
    placed in arena 1 (plan_info["scratch_offsets"]), by instruction."""
    offs = (spec.plan_info or {}).get("scratch_offsets") or {}
    return [(int(i), int(offs[i]), int(spec.instructions[i].scratch_bytes))
            for i in sorted(offs) if spec.instructions[i].scratch_bytes]


_SCRATCH_LIB = {}


def _scratch_library():
    """ctypes handle of kernels/int8_scratch.c built for the host (cached by content)."""
    import ctypes
    import hashlib
    import shutil
    src = KERNELS_DIR / "int8_scratch.c"
    digest = hashlib.sha256(src.read_bytes() + (KERNELS_DIR / "requant.h").read_bytes()).hexdigest()[:16]
    if digest in _SCRATCH_LIB:
        return _SCRATCH_LIB[digest]
    cache = ROOT / "build" / ".scratch"
    cache.mkdir(parents=True, exist_ok=True)
    lib_path = cache / f"libmote_scratch-{digest}.so"
    if not lib_path.exists():
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            raise BuildError("no host C compiler (cc) to compute int8 kernel scratch sizes")
        tmp = lib_path.with_name(lib_path.name + f".{id(src)}.tmp")
        proc = subprocess.run([cc, "-std=c99", "-O1", "-shared", "-fPIC", "-I", str(KERNELS_DIR),
                               "-I", str(RUNTIME_DIR / "include"), str(src), "-o", str(tmp)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"compiling {src.name} for the host failed: {proc.stderr.strip()}")
        tmp.replace(lib_path)
    lib = ctypes.CDLL(str(lib_path))
    for name, nargs in (("mote_scratch_mote_conv2d_s8", 7),
                        ("mote_scratch_mote_depthwise_conv2d_s8", 7),
                        ("mote_scratch_mote_linear_s8", 3)):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_size_t
        fn.argtypes = [ctypes.c_int32] * nargs
    _SCRATCH_LIB[digest] = lib
    return lib


def scratch_bytes(spec, call) -> int:
    """Scratch bytes the optimized Cortex-M kernel of `call` (an ir.KernelCall) needs."""
    name = f"{call.op}.{call.overload}"
    vals = spec.values
    if name in ("mote::conv2d_s8.out", "mote::depthwise_conv2d_s8.out"):
        x, w, out = vals[call.args[0]], vals[call.args[1]], vals[call.args[-1]]
        n, h, wd, cin = (int(v) for v in x.sizes)
        cout = int(out.sizes[3])
        kh, kw = int(w.sizes[1]), int(w.sizes[2])
        fn = getattr(_scratch_library(), "mote_scratch_mote_" + name.split("::")[1].split(".")[0])
        return int(fn(n, h, wd, cin, cout, kh, kw))
    if name == "mote::linear_s8.out":
        x, w = vals[call.args[0]], vals[call.args[1]]
        m = 1
        for s_ in x.sizes[:-1]:
            m *= int(s_)
        return int(_scratch_library().mote_scratch_mote_linear_s8(m, int(x.sizes[-1]),
                                                                   int(w.sizes[0])))
    return 0


def _stack_needed(art) -> int:
    """Main stack to reserve: the worst call chain from main, bounded through
    the two kinds of indirect call in the build: the runtime's kernel dispatch
    (may call any linked kernel) and a kernel helper's call of a per-element
    or per-row function pointer (may call any leaf function of its own
    object file: the pointers all name static loops of that file)."""
    from aot.firmware import INDIRECT_CALL, StackReport
    report = art.stack
    kernels = [f for f in report.frames if f.startswith("mote_kernel_")]
    by_object = _functions_by_object(art.objects)
    calls = {}
    for fn, callees in report.calls.items():
        if INDIRECT_CALL in callees and not fn.startswith("mote_method_"):
            own = next((fs for fs in by_object.values() if fn in fs), set())
            leaves = {f for f in own if f != fn and not report.calls.get(f)}
            callees = (set(callees) - {INDIRECT_CALL}) | leaves
        calls[fn] = set(callees)
    bounded = StackReport(report.frames, report.qualifiers, calls)
    worst, _chain, _unresolved = bounded.worst_path("main", indirect_targets=kernels)
    # The reset handler's own frame sits above main; round to 8 as AAPCS requires.
    return ((worst + STACK_MARGIN_BYTES) + 7) & ~7


def _functions_by_object(objects) -> dict:
    """object path -> names of the functions it defines (from its .su file; static
    functions appear both plain and as "file:name", as -fcallgraph-info names them)."""
    out = {}
    for obj in objects:
        su = Path(obj).with_suffix(".su")
        if not su.exists():
            continue
        names = set()
        for line in su.read_text().splitlines():
            m = re.match(r"^(.*?):(\d+):(\d+):(\S+)\s+(\d+)\s+(\S+)$", line.strip())
            if m:
                names.add(m.group(4))
                names.add(f"{m.group(1)}:{m.group(4)}")
        out[str(obj)] = names
    return out


#: RAM objects of mote_app.c: size.json part -> symbols.
_APP_RAM = {"arena": ("app_arena0",), "runtime_state": ("app_state",), "scratch": ("app_scratch",),
            "runtime": ("app_program", "app_method")}


def _flash_part(obj: str, out: Path) -> str:
    """size.json flash part of a linked object (a path from the link map)."""
    p = obj.replace("\\", "/")
    if ".a(" in p or "/lib/gcc/" in p or "arm-none-eabi/lib" in p:
        return "toolchain"
    prefix = str(out / "obj") + "/"
    rel = p[len(prefix):] if p.startswith(prefix) else p
    base = rel.rsplit("/", 1)[-1]
    if base.startswith("model_inputs.S"):
        return "inputs"
    if base.startswith("model.S"):
        return "model"
    if base.startswith("registry.c") or rel.startswith(("kernels/", "cmsis/")):
        return "kernels"
    if rel.startswith("runtime/"):
        return "runtime"
    return "port"


def _size_json(art, compiled, board, state, scratch, stack, analysed, kernels,
               input_blob_bytes) -> dict:
    """Flash and RAM by part, every figure read from the link map and the ELF.

    flash: bytes of each part's input sections placed in flash (text, rodata,
    data load image) + "padding" (alignment gaps) = flash_bytes (.text,
    .ARM.*, .data of the ELF). On boards with a model_region the program and
    the input sets live there instead (model_region). ram: the app's static
    buffers (ELF symbol sizes) + the stack section + "port" (every other
    .data/.bss byte: port variables, alignment) = ram_bytes.
    """
    from elftools.elf.elffile import ELFFile
    rep = art.size_report()
    out = art.elf.parent.resolve()
    parts = {k: 0 for k in ("runtime", "kernels", "port", "toolchain", "model", "inputs")}
    for obj, kinds in rep.get("objects", {}).items():
        parts[_flash_part(obj, out)] += int(kinds["text"] + kinds["rodata"] + kinds["data"])
    region = None
    if board.model_region is not None:
        region = {"model": parts.pop("model"), "inputs": parts.pop("inputs")}
        region["padding"] = int(rep.get("model_region_used", 0)) - region["model"] - region["inputs"]
        parts["model"], parts["inputs"] = 0, 0
    flash = dict(parts)
    flash["padding"] = int(rep["flash_used"]) - sum(parts.values())

    sym_sizes = {}
    with open(art.elf, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        for sym in symtab.iter_symbols():
            if sym.name in ("app_arena0", "app_state", "app_scratch", "app_program", "app_method"):
                sym_sizes[sym.name] = int(sym["st_size"])
    ram = {k: sum(sym_sizes.get(n, 0) for n in names) for k, names in _APP_RAM.items()}
    ram["stack"] = int(rep["sections"].get("stack", 0))
    ram["port"] = int(rep["ram_used"]) - sum(ram.values())
    size = {
        "board": board.name,
        "flash": flash,
        "ram": ram,
        "flash_bytes": int(rep["flash_used"]),
        "ram_bytes": int(rep["ram_used"]),
        "flash_size": board.flash.size,
        "ram_size": board.ram.size,
        "planned": {"arena": int(sum(compiled.spec.arena_sizes)), "runtime_state": state,
                    "scratch": scratch, "stack": stack, "pte": len(compiled.pte),
                    "inputs": int(input_blob_bytes)},
        "stack_worst_case_bytes": analysed,
        "kernels": [p.name for p in kernels],
        "model_constants_bytes": int(compiled.manifest.get("memory", {}).get("constants_bytes") or 0),
    }
    if region is not None:
        size["model_region"] = region
        size["model_region_bytes"] = int(rep.get("model_region_used", 0))
        size["model_region_size"] = board.model_region.size
    return size


def size_table(size: dict) -> str:
    """The size.json figures as a text table."""
    lines = [f"{'part':<16}{'flash B':>12}{'RAM B':>12}"]
    for k, v in size["flash"].items():
        lines.append(f"{k:<16}{v:>12,}{'':>12}")
    for k, v in size["ram"].items():
        lines.append(f"{k:<16}{'':>12}{v:>12,}")
    fl, fs = size["flash_bytes"], size["flash_size"]
    rl, rs = size["ram_bytes"], size["ram_size"]
    lines.append(f"{'total':<16}{fl:>12,}{rl:>12,}")
    if "model_region" in size:
        parts = ", ".join(f"{k} {v:,}" for k, v in size["model_region"].items())
        lines.append(f"model region: {size['model_region_bytes']:,} B of "
                     f"{size['model_region_size']:,} ({parts})")
    lines.append(f"{'board budget':<16}{fs:>12,}{rs:>12,}   "
                 f"({100 * fl / fs:.1f}% flash, {100 * rl / rs:.1f}% RAM)")
    return "\n".join(lines)


# --------------------------------------------------------------------------- run


@dataclass
class RunResult:
    outputs: list          # per input set: list of numpy arrays
    cycles: list           # per input set: cycles / instructions
    uart: str
    exit_code: int


_OUT = re.compile(r"^OUT (\d+) (\d+) ([0-9a-f,]*)$", re.M)


def parse_uart(text: str, outputs_meta: list) -> tuple:
    """Parse the firmware's line protocol into (outputs per set, cycles per set)."""
    if "MOTE ERROR" in text:
        line = next(ln for ln in text.splitlines() if ln.startswith("MOTE ERROR"))
        raise MoteError(f"firmware reported: {line}")
    outs, cycles = [], []
    for m in _OUT.finditer(text):
        parts = m.group(3).split(",")
        arrays = []
        for hexs, meta in zip(parts, outputs_meta):
            dt = ir.DTYPE_NUMPY[meta["dtype"]]
            arrays.append(np.frombuffer(bytes.fromhex(hexs), dtype=dt).reshape(meta["sizes"]).copy())
        outs.append(arrays)
        cycles.append(int(m.group(2)))
    return outs, cycles


def run_build(out_dir, timeout: float = 300.0, progress=None) -> RunResult:
    """Boot the firmware of build directory `out_dir` on its board's simulator.

    progress: optional callable(done_count) invoked as OUT lines arrive.
    Raises MoteError when the firmware reports an error or does not finish.
    """
    from aot.qemu import run_firmware_streaming
    out = Path(out_dir)
    info = json.loads((out / "build.json").read_text())
    code, text = run_firmware_streaming(out / "firmware.elf", info["board"], timeout_s=timeout,
                                        on_line=_progress_cb(progress))
    outputs, cycles = parse_uart(text, info["outputs"])
    if code != 0 or len(outputs) != info["input_sets"]:
        raise MoteError(f"firmware exited with status {code} after {len(outputs)} of "
                        f"{info['input_sets']} inferences; UART:\n{text[-2000:]}")
    return RunResult(outputs=outputs, cycles=cycles, uart=text, exit_code=code)


def _progress_cb(progress):
    if progress is None:
        return None
    count = [0]

    def on_line(line: str) -> None:
        if line.startswith("OUT "):
            count[0] += 1
            progress(count[0])
    return on_line


def build_command(args) -> int:
    from aot.compile import compile_model_file
    load_board(args.board)  # an unknown board fails before the (slower) compile
    compiled = compile_model_file(args.model, int8=args.int8, calib=args.calib,
                                  int8_io=args.int8_io)
    out = Path(args.output_dir or Path("build") / f"{compiled.name}-{args.board}")
    input_sets = None
    if args.inputs:
        from aot.runtime import load_npz_inputs
        input_sets = [load_npz_inputs(args.inputs)]
    print(f"aot build: {compiled.summary()}")
    art = build_compiled(compiled, args.board, out, input_sets=input_sets, opt=args.opt,
                         kernel_opt=args.kernel_opt,
                         uart_inputs=getattr(args, "uart_inputs", False))
    print(size_table(art.size))
    for p in ("model.pte", "ops.json", "mote_model.h", "firmware.elf", "firmware.bin",
              "firmware.uf2", "size.json"):
        if (out / p).exists():
            print(f"  {out / p}")
    return 0
