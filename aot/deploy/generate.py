"""`aot generate`: the compile step of `aot build` without the firmware link,
for a user's own build (CMake, PlatformIO, Zephyr, anything that compiles C).

``generate_compiled(compiled, board, out_dir)`` writes into ``out_dir``
(whole or not at all: a staging folder replaces it at the end):

  model_pte.c / model_pte.h   the program as ``const uint8_t mote_model_pte[]``
                              (aligned to MOTE_PROGRAM_ALIGN, in section
                              ``.mote_model`` unless MOTE_MODEL_PTE_SECTION names
                              another), MOTE_MODEL_PTE_SIZE (bytes)
  mote_model.h                exact sizes for the board's ABI (state, arena,
                              scratch plan, inputs/outputs, CRC-32)
  registry.c                  the static kernel registry: only the ops used
  model_selftest.c,           with a self-test: the cases' expected outputs and
  model_selftest_inputs.c     inputs (mote_model_selftest(), mote/model.h)
  model.pte, ops.json         the program and its manifest (+ model.bpte)
  port/                       the board's linker script and mote_board.h, for
                              projects that use Mote's bare-metal port
  mote_binary_info.h          pico/pico2 (RP2040/RP2350): the Raspberry Pi binary
                              info `picotool info -a` reads, as `aot build` gives
                              it (aot.deploy.binary_info: name, version, date of
                              this generate, description, UART pins); the port's
                              ports/rp2/binary_info.c includes it
  mote_sources.json           what to compile: sources, include folders,
                              defines, the kernel subset, the port (see
                              :func:`sources_manifest`)

Selective build: the kernel files are exactly the program's operators
(``cmsis/`` versions for int8 ops on cores with DSP or MVE). The same helpers
serve ``aot build`` (aot.deploy.build), which adds the app and links.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from aot import ir
from aot.errors import BuildError
from aot.paths import CMSIS_DIR, KERNELS_DIR, RUNTIME_DIR
from aot.compiler.kernels import RUNTIME_OPS, int8_variants, kernel_files, optimized_kernel_files
from aot.compiler.scratch import scratch_bytes, scratch_slots
from aot.deploy.firmware import GCC_OPT_FLAGS

#: The embedding API (mote/model.h): storage and the three calls; the self-test runner.
EMBED_DIR = RUNTIME_DIR / "embed"
EMBED_SOURCES = [EMBED_DIR / "mote_model.c", EMBED_DIR / "mote_selftest.c"]
EMBED_SELFTEST_SOURCE = EMBED_DIR / "mote_model_selftest.c"
#: Stack reserved by port/firmware.ld for a user's bare-metal link, bytes.
GENERATE_STACK_BYTES = 8 * 1024
#: Program alignment in flash, bytes (MOTE_PROGRAM_ALIGN, mote/program.h).
PTE_ALIGN = 16


# --------------------------------------------------------------------------- kernels


def _kernel_source(op: str, board, portable: dict, optimized: dict):
    """The one rule: cmsis/ first for ops it has on cores with DSP or MVE, else kernels/."""
    src = optimized.get(op) if (board.dsp or board.mve) else None
    return src or portable.get(op)


def select_kernels(op_names: Sequence[str], board) -> list:
    """Kernel source files for `op_names` on `board` (cmsis/ first for int8 ops
    on cores with DSP or MVE). Raises BuildError naming every op with no kernel."""
    portable = kernel_files(KERNELS_DIR)
    optimized = optimized_kernel_files()
    files, missing = [], []
    for op in op_names:
        if op in RUNTIME_OPS:
            continue
        src = _kernel_source(op, board, portable, optimized)
        if src is None:
            missing.append(op)
        elif src not in files:
            files.append(src)
    if missing:
        raise BuildError("no kernel for operator(s) " + ", ".join(missing)
                         + f" in this build (kernels/ has {len(portable)} operators)")
    return files


def kernel_variant(op: str, board=None) -> str:
    """Which kernel runs `op` ("aten::convolution.out") in a build for `board`
    (None: the host library): "runtime" (et_view, run by the runtime itself),
    "MVE" or "DSP" (cmsis/ on a core with Helium or the DSP extension),
    "portable" (kernels/), or "none"."""
    if op in RUNTIME_OPS:
        return "runtime"
    portable = kernel_files(KERNELS_DIR)
    if board is None:
        return "portable" if op in portable else "none"
    src = _kernel_source(op, board, portable, optimized_kernel_files())
    if src is None:
        return "none"
    if Path(src).resolve().parent != CMSIS_DIR.resolve():
        return "portable"
    path = "MVE" if board.mve else "DSP"
    # a cmsis/ kernel without this core's path (the FFT's fp32 and Q31 on a DSP core) runs portable code
    return path if path in int8_variants(op) else "portable"


#: Arithmetic kernels whose integer paths are compiled only when a program uses them.
_INT_ARITH_OPS = ("aten::add.", "aten::sub.", "aten::mul.", "aten::div.")


#: kernel_opt "auto": the Cortex-M int8 kernels (cmsis/) build with the rest of
#: the firmware (-Os) because they mark their inner loops MOTE_S8_HOT (-O2 per
#: function, cmsis/mote_s8_arm.h); the portable kernels have no such marks and
#: build at -O2. Measured on DS-CNN int8, mps2-an505: code 27,648 -> 24,304 B
#: for +1.6 % estimated cycles against every kernel at -O2.
KERNEL_OPT_AUTO = "auto"

#: kernels/ support files with no inner loop of their own: the int8 kernels'
#: argument parsers and row-band iterator (their loops are the cmsis/ kernels',
#: marked MOTE_S8_HOT). "auto" builds them like cmsis/, at the firmware's flag:
#: DS-CNN int8, mps2-an505: 140 B less code, the same instructions +- 0.1 %.
KERNEL_CONTROL_SOURCES = ("s8_args.c", "s8_rows.c")


def kernel_fast_sources(sources) -> list:
    """The sources of `sources` that "auto" builds at -O2: every kernels/ file but
    KERNEL_CONTROL_SOURCES (cmsis/ marks its own hot loops)."""
    cmsis = CMSIS_DIR.resolve()
    return [s for s in sources if Path(s).resolve().parent != cmsis and Path(s).name not in KERNEL_CONTROL_SOURCES]


#: `--opt size|speed`: the one place where a build's flash/speed trade is
#: chosen (aot build and aot generate). Per profile: the flag of the runtime,
#: port and app; the kernels' flag (kernel_opt_groups); MOTE_OPT_SIZE, the
#: macro every source sees, with which a kernel that has a variant specialised
#: for speed (more flash) builds its general one instead (`#if !MOTE_OPT_SIZE`).
#: speed (the default): kernels as KERNEL_OPT_AUTO, specialised variants in;
#: size: every source at -Os, specialised variants out. A plain GCC flag
#: (-Os, -O2, ...) is the runtime's flag with the speed profile's kernels, as
#: --opt always meant. `aot build` prints what the other profile's kernels
#: would cost (opt_trade).
OPT_PROFILES = {
    "speed": {"opt": "-Os", "kernel_opt": KERNEL_OPT_AUTO, "MOTE_OPT_SIZE": 0},
    "size": {"opt": "-Os", "kernel_opt": "-Os", "MOTE_OPT_SIZE": 1},
}
DEFAULT_OPT = "speed"


def check_opt(opt: str, kernel_opt: str = KERNEL_OPT_AUTO) -> None:
    """Raise BuildError unless --opt is a profile (OPT_PROFILES) or a GCC flag and
    --kernel-opt is "auto" or a GCC flag (aot.deploy.firmware.GCC_OPT_FLAGS)."""
    flags = ", ".join(GCC_OPT_FLAGS)
    if opt not in OPT_PROFILES and opt not in GCC_OPT_FLAGS:
        raise BuildError(f"--opt {opt}: choose {' or '.join(OPT_PROFILES)}, or a GCC flag ({flags})")
    if kernel_opt != KERNEL_OPT_AUTO and kernel_opt not in GCC_OPT_FLAGS:
        raise BuildError(f"--kernel-opt {kernel_opt}: choose {KERNEL_OPT_AUTO} or a GCC flag ({flags})")


def resolve_opt(opt: str, kernel_opt: str = KERNEL_OPT_AUTO) -> tuple:
    """(runtime flag, kernels' flag or "auto", {"MOTE_OPT_SIZE": 0|1}) of --opt
    and --kernel-opt (an explicit --kernel-opt wins over the profile's). Raises
    BuildError (check_opt)."""
    check_opt(opt, kernel_opt)
    prof = OPT_PROFILES.get(opt, OPT_PROFILES["speed"])
    flag = prof["opt"] if opt in OPT_PROFILES else opt
    kflag = prof["kernel_opt"] if kernel_opt == KERNEL_OPT_AUTO else kernel_opt
    return flag, kflag, {"MOTE_OPT_SIZE": prof["MOTE_OPT_SIZE"]}


def runtime_feature_defines(compiled) -> dict:
    """mote/config.h's MOTE_RUNTIME_* macros for a build of `compiled`: each
    feature compiled in only when one of the program's methods uses it
    (DelegateCalls, mutable buffers, external tensors in a .ptd, tensor-list,
    double, string and bool-list values, control instructions)."""
    specs = [m.spec for m in compiled.methods] or [compiled.spec]
    values = [v for sp in specs for v in sp.values]
    uses = {
        "MOTE_RUNTIME_DELEGATES": any(isinstance(c, ir.DelegateCall) for sp in specs for c in sp.instructions),
        "MOTE_RUNTIME_MUTABLE": any(isinstance(v, ir.TensorValue) and v.is_mutable for v in values),
        "MOTE_RUNTIME_EXTERNAL": compiled.ptd is not None,
        "MOTE_RUNTIME_TENSOR_LISTS": any(isinstance(v, ir.TensorListValue) for v in values),
        "MOTE_RUNTIME_DOUBLES": any(isinstance(v, (float, ir.DoubleListValue)) for v in values),
        "MOTE_RUNTIME_STRINGS": any(isinstance(v, str) for v in values),
        "MOTE_RUNTIME_BOOL_LISTS": any(isinstance(v, ir.BoolListValue) for v in values),
        # Move / JumpFalse / Free: the compiler emits only kernel and delegate calls
        "MOTE_RUNTIME_CONTROL": any(not isinstance(c, (ir.KernelCall, ir.DelegateCall))
                                    for sp in specs for c in sp.instructions),
    }
    return {k: int(v) for k, v in uses.items()}


#: The header that lists the per-program kernel variants (MOTE_S8_USE_*, each
#: defaulting to 1) and says what each one guards.
VARIANTS_HEADER = CMSIS_DIR / "mote_s8_arm.h"


def kernel_variant_names() -> list:
    """The per-program kernel variants, from their one list (MOTE_S8_USE_<name>
    in cmsis/mote_s8_arm.h): ["CONV_POINTWISE", ...]."""
    import re
    text = VARIANTS_HEADER.read_text(encoding="utf-8")
    return re.findall(r"^#ifndef MOTE_S8_USE_(\w+)$", text, re.M)


def _x8_run(run: int) -> bool:
    """The DSP planes' 1x8 block takes rows of `run` outputs (cmsis/mote_s8_planar.h
    dwp_asm_plane): 8n, or 16+."""
    return run >= 8 and (run % 8 == 0 or run >= 16)


def _variant_rules(spec, opt_size: bool) -> dict:
    """{variant name: whether a call of `spec` runs it} on a core with the DSP
    extension, by the rules the kernels dispatch with (the C ones through the
    host-compiled kernels/int8_scratch.c, aot.compiler.scratch)."""
    from aot.compiler.dsp_weights import (EFORM_K8, LINEAR, eform_pw, has_dw_record, has_eform, has_panel,
                                          has_table, is_conv)
    from aot.compiler.scratch import (conv_code, conv_direct_in_place, conv_eform_k64, conv_has_table, dw_planar,
                                      dw_planar_eform, dw_planar_form, placement)
    conv = [c for c in spec.instructions if is_conv(c)]
    dw = [c for c in spec.instructions if (c.op, c.overload) == ("mote::depthwise_conv2d_s8", "out")]
    lin = [c for c in spec.instructions if (c.op, c.overload) == LINEAR]
    vals = spec.values
    codes = [conv_code(spec, c) for c in conv]
    eform = [has_eform(spec, c) for c in conv]
    epw = [e and eform_pw(spec, c) for c, e in zip(conv, eform)]   # conv_rows_pwe
    # the store cores serve the calls other than the E-form's (a core of its own)
    cores = [c for c, e in zip(conv, eform) if not e]
    full = [int(vals[c.args[10]]) == -128 and int(vals[c.args[11]]) == 127 for c in cores]
    planar = [dw_planar(spec, c) for c in dw]
    dw_eform = [pl and dw_planar_eform(spec, c) for c, pl in zip(dw, planar)]
    forms = [dw_planar_form(spec, c) for c, pl in zip(dw, planar) if pl]
    panel = [has_panel(spec, c) for c in lin]
    table = [has_table(spec, c) for c in lin]
    return {
        # a stride-1 pointwise call with the program's table reads the input directly
        "CONV_POINTWISE": any(code == 1 and (list(vals[c.args[5]].items) != [1, 1] or not conv_has_table(spec, c))
                              for c, code in zip(conv, codes)),
        "CONV_STEM": 2 in codes, "CONV_WINDOW": 3 in codes,
        "CONV_STEM3X3C3": 4 in codes,
        "CONV_STEM3_NCHW": any(c.op == "mote::conv2d_s8_nchw" for c in conv),
        "CONV_GENERAL": not all(conv_has_table(spec, c) for c in conv),
        "CONV_FULL": not opt_size and any(full),
        "CONV_CLAMP": bool(cores) and (opt_size or not all(full)),
        "CONV_ODD": any(int(vals[c.args[-1]].sizes[3]) % 2 for c in conv),
        "CONV_E": any(eform),
        # the E core of 16-group passes (conv_rows; not conv_rows_pwe's calls, K <= 32)
        "CONV_EK64": any(e and conv_eform_k64(spec, c) for c, e in zip(conv, eform)),
        "CONV_PWE": any(pw for pw in epw),
        # the unrolled E-form cores (cmsis/op_mote_conv2d_s8.c conv_rows_pwe: Cin 16, 32)
        "CONV_PWU": any(pw and int(vals[c.args[0]].sizes[3]) in (16, 32) for c, pw in zip(conv, epw)),
        "CONV_PW8": any(pw and int(vals[c.args[0]].sizes[3]) == EFORM_K8 for c, pw in zip(conv, epw)),
        "DW_PLANAR": any(planar),
        "DW_PLANAR_S2": any(pl and int(vals[c.args[5]].items[0]) == 2 for c, pl in zip(dw, planar)),
        "DW_PLANAR_T": any(f & 1 for f in forms), "DW_PLANAR_N": any(not f & 1 for f in forms),
        "DW_PLANAR_ONE": any(f & 2 for f in forms), "DW_PLANAR_TWO": any(f & 32 for f in forms), "DW_PLANAR_X6": any(f & 4 for f in forms),
        # the stride-2 1x3 block: kept for any stride-2 plane (a superset of its rows)
        "DW_PLANAR_X3S2": any(pl and int(vals[c.args[5]].items[0]) == 2 for c, pl in zip(dw, planar)),
        # the stride-2 1x6 block: kept for any stride-2 plane (a superset of its rows)
        "DW_PLANAR_X6S2": any(pl and int(vals[c.args[5]].items[0]) == 2 for c, pl in zip(dw, planar)),
        "DW_PLANAR_X3": any(f & 8 for f in forms), "DW_PLANAR_C": any(f & 16 for f in forms),
        # the planes' assembly by requantization: the E-form, and the 4-instruction one
        # (also when planes run and none takes the E-form: dw_planar's blocks need one of them)
        "DW_PLANAR_E": any(dw_eform),
        # the channel constants derived at run time: a plane call without the program's record
        "DW_PLANAR_JOB": any(pl and not has_dw_record(spec, c) for c, pl in zip(dw, planar)),
        # the E-form's stride-1 1x8 block: rows of 8n or 16+ outputs along the blocks
        # (form bit 0: transposed; a superset of dwp_asm_plane's rule); --opt size: 1x4 blocks
        # (about 0.5 KB less code)
        "DW_PLANAR_X8": not opt_size and any(ef and int(vals[c.args[5]].items[0]) == 1
                            and _x8_run(int(vals[c.args[-1]].sizes[1 if dw_planar_form(spec, c) & 1 else 2]))
                            for c, ef in zip(dw, dw_eform)),
        "DW_PLANAR_R": any(planar) and (any(pl and not ef for pl, ef in zip(planar, dw_eform)) or not any(dw_eform)),
        "DW_GROUP": not all(planar),
        # --opt size leaves the panel core out: a call with a panel takes the rows
        "LINEAR_ROWS": any(not pa and not ta for pa, ta in zip(panel, table)) or (opt_size and any(panel)),
        "LINEAR_TABLE": any(ta and not pa for pa, ta in zip(panel, table)),
        "LINEAR_PANEL": not opt_size and any(panel),
        # a call planned in place (or overlapping) that takes neither in-place path of its own
        "ROWS_RING": any(placement(spec, c) and not conv_direct_in_place(spec, c) for c in conv)
        or any(placement(spec, c) and not pl for c, pl in zip(dw, planar)),
    }


#: the variants whose guards reach the MVE kernels (cmsis/op_mote_linear_s8.c)
MVE_VARIANTS = ("LINEAR_TABLE",)


def kernel_variant_defines(compiled, board, opt_size: bool) -> dict:
    """The MOTE_S8_USE_* macros (cmsis/mote_s8_arm.h) of a build of `compiled` for
    `board`: 1 for each kernel variant a call of the program runs, 0 for the
    others, so the firmware carries only those (the DSP kernels, and the MVE linear
    table path; cores with neither: none defined, every variant). opt_size: the --opt size profile (MOTE_OPT_SIZE=1),
    whose kernels leave out the speed-only cores."""
    if not (board.dsp or board.mve):
        return {}
    specs = [m.spec for m in compiled.methods] or [compiled.spec]
    uses = {}
    for sp in specs:
        for k, v in _variant_rules(sp, opt_size).items():
            uses[k] = uses.get(k, False) or bool(v)
    # the rules are the DSP kernels'; on MVE only the linear table path is guarded
    # (the row ring, for one, serves MVE calls the DSP rules know nothing of)
    names = kernel_variant_names() if not board.mve else MVE_VARIANTS
    return {f"MOTE_S8_USE_{name}": int(uses[name]) for name in names}


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

#: The method images' source (aot.deploy.image), written by target_memory.
IMAGE_SOURCE = "model_image.c"


def target_state_bytes(pte: bytes, board, work: Path) -> int:
    """Exact runtime-state bytes of every method together on `board`'s ABI
    (the embedding API initialises them all, one state each, back to back).

    The host library counts the state's entries (values, tensors, list items,
    instructions, kernel argument pointers) without depending on its own
    pointer size; the per-entry sizes for the target come from an object
    compiled for the board (runtime/src/abi_probe.c) and read back with
    pyelftools. Same layout rule as runtime/src/method_init.c: each region rounded
    up to 8 bytes.
    """
    from aot.host.runtime import Program
    prog = Program(pte)
    sizes = _target_abi_sizes(board, work)
    total = 0
    for index in range(prog.method_count):
        counts = prog.state_counts(index)
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




def runtime_sources() -> list:
    """The C runtime core's sources (runtime/src), every build's."""
    return sorted((RUNTIME_DIR / "src").glob("*.c"))


def board_kernel_files(board) -> list:
    """Every kernel file a build for `board` can use, one per operator (cmsis/
    first on cores with DSP or MVE): the kernel library of a build system that
    fixes its sources before the model is compiled (cmake/mote.cmake); the
    registry then links only the program's kernels."""
    portable = kernel_files(KERNELS_DIR)
    optimized = optimized_kernel_files() if (board.dsp or board.mve) else {}
    return sorted({optimized.get(op) or src for op, src in portable.items()} |
                  set(optimized.values()))


# --------------------------------------------------------------------------- generated C


def c_bytes(data: bytes, indent: str = "    ") -> str:
    """`data` as the body of a C array initializer, 16 bytes per line."""
    rows = []
    for i in range(0, len(data), 16):
        chunk = data[i:i + 16]
        rows.append(indent + ("0x%02x, " * len(chunk) % tuple(chunk)).rstrip())
    return "\n".join(rows) or indent + "0"


def pte_header_text(name: str, size: int) -> str:
    return f"""/* Generated by aot generate for model "{name}"; do not edit. */
#ifndef MOTE_MODEL_PTE_H
#define MOTE_MODEL_PTE_H
#include <stdint.h>

/** Alignment of mote_model_pte, bytes (MOTE_PROGRAM_ALIGN: tensor data is used in place). */
#define MOTE_MODEL_PTE_ALIGN {PTE_ALIGN}
/** Size of mote_model_pte, bytes (also MOTE_MODEL_PTE_BYTES in mote_model.h). */
#define MOTE_MODEL_PTE_SIZE {size}u

/** The .pte program (ExecuTorch ET12 wire format), in flash. */
extern const uint8_t mote_model_pte[];

#endif /* MOTE_MODEL_PTE_H */
"""


def pte_source_text(name: str, pte: bytes) -> str:
    return f"""/* Generated by aot generate for model "{name}": {len(pte):,} B, CRC-32 in mote_model.h; do not edit. */
#include <stdint.h>

#include "model_pte.h"

/* Its own section, so a linker script can place the program (Mote's put
 * .mote_model* in flash, or in a board's separate model memory); a linker
 * script that does not name it places it after .rodata. Define
 * MOTE_MODEL_PTE_SECTION to use another section. */
#ifndef MOTE_MODEL_PTE_SECTION
#define MOTE_MODEL_PTE_SECTION ".mote_model"
#endif

__attribute__((aligned(MOTE_MODEL_PTE_ALIGN), section(MOTE_MODEL_PTE_SECTION)))
const uint8_t mote_model_pte[{max(len(pte), 1)}] = {{
{c_bytes(pte)}
}};
"""


def blob_source_text(what: str, symbol: str, macro: str, section: str, data: bytes, align: int = 8) -> str:
    """A generated C file holding one const byte array `symbol` (aligned to
    `align` bytes) in `section` (overridable with the macro `macro`)."""
    return f"""/* Generated by aot generate: {what}; do not edit. */
#include <stdint.h>

#ifndef {macro}
#define {macro} "{section}"
#endif

extern const uint8_t {symbol}[];
__attribute__((aligned({align}), section({macro})))
const uint8_t {symbol}[{max(len(data), 1)}] = {{
{c_bytes(data)}
}};
"""


def input_sets_bytes(spec, input_sets) -> bytes:
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


# --------------------------------------------------------------------------- generate


def check_output_folder(out: Path, marker: str, command: str) -> None:
    """Refuse an output folder that is not one Mote may replace: `out` must not
    exist, be an empty folder (or hold empty folders only: a build tool such as Ninja
    makes the folders of a several-models generate's outputs, NAME/, before it runs), or
    hold `marker` (the file every folder `command` writes has: build.json,
    mote_sources.json). Raises BuildError naming it."""
    if not out.exists():
        return
    if not out.is_dir():
        raise BuildError(f"{out} exists and is a file, not a folder: choose another -o")
    if any(not p.is_dir() for p in out.rglob("*")) and not (out / marker).is_file():
        raise BuildError(f"{out} is not empty and is not a folder `aot {command}` wrote (no {marker}): "
                         "its contents would be replaced; choose another -o (a new or empty folder)")


@contextlib.contextmanager
def staged_folder(out: Path, what: str):
    """Yield a fresh staging folder beside `out` ("." + name + "." + what + "-pid");
    when the block succeeds it replaces `out` (replace_folder), when it raises it
    is removed and `out` stays exactly as it was (or absent). Call
    check_output_folder first: whatever `out` holds is replaced."""
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = out.parent / f".{out.name}.{what}-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir()
    try:
        yield stage
        replace_folder(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def fit_check(spec: "ir.ProgramSpec", board, state: int, scratch: int, stack: int) -> None:
    """Fail before compiling when planned RAM alone exceeds the board's RAM."""
    arena = int(sum(spec.arena_sizes))
    need = arena + state + scratch + stack
    if need <= board.ram.size:
        return
    raise BuildError(
        f"model does not fit {board.name}: needs {need:,} B of RAM (arena {arena:,} + runtime state "
        f"{state:,} + scratch {scratch:,}" + (f" + stack {stack:,}" if stack else "") + f"), the board has "
        f"{board.ram.size:,} B: {need - board.ram.size:,} B short. Largest tensors: {largest(spec, False)}")


def largest(spec: "ir.ProgramSpec", constants: bool, n: int = 5) -> str:
    """The `n` largest planned (constants=False) or constant tensors, "name [shape] bytes B", ...;
    a constant by the user's name of what it was made from (TensorValue.origin) when known,
    and once when several values hold the same bytes (the program stores them once)."""
    rows, stored = [], set()
    for i, v in enumerate(spec.values):
        if not isinstance(v, ir.TensorValue) or not ((v.constant is not None) if constants else (v.mem_id is not None)):
            continue
        if constants:
            if v.constant in stored:
                continue
            stored.add(v.constant)
        rows.append((v.nbytes, v.origin or v.name or f"value {i}", tuple(v.sizes)))
    rows.sort(reverse=True)
    return ", ".join(f"{name} {list(shape)} {b:,} B" for b, name, shape in rows[:n])


def check_fits(spec: "ir.ProgramSpec", board, state: int, scratch: int, program_bytes: int) -> None:
    """Before any C is compiled (aot generate, aot build): the planned RAM (fit_check, no
    stack yet) and the program with its embedded data (flash_check) fit `board`.
    Raises BuildError naming the largest tensors by the user's names."""
    problems = []
    for check in (lambda: fit_check(spec, board, state, scratch, 0), lambda: flash_check(spec, board, program_bytes)):
        try:
            check()
        except BuildError as e:
            problems.append(str(e))
    if len(problems) == 2:  # both: one line that says so, not the RAM alone
        raise BuildError(problems[0].rstrip(".") + ". Flash too: " + problems[1].split(": ", 1)[1])
    if problems:
        raise BuildError(problems[0] + _dsp_weights_hint(spec, board, state, scratch, program_bytes,
                                                         flash_short=len(problems) == 1 and "program needs" in problems[0]))


#: the most bytes a DSP conv call widens its weight rows into at run time without
#: pre-widened weights (kernels/requant.h mote_s8_conv_dsp_rows: 16 KiB)
DSP_ROWS_SCRATCH_BYTES = 16384


def _dsp_weights_hint(spec: "ir.ProgramSpec", board, state: int, scratch: int, program_bytes: int,
                      flash_short: bool) -> str:
    """" ...: --dsp-weights arena fits" when the program overflows flash only by its
    pre-widened DSP weights (spec.plan_info["dsp_weights_bytes"]) and the RAM holds at
    least DSP_ROWS_SCRATCH_BYTES more (the widening rows of one call; a conv's scratch slot
    can grow by more: a 128->256 int8 conv's grew by 36 KiB), else "". The RAM of that
    build is checked when it is built."""
    dsp = int((spec.plan_info or {}).get("dsp_weights_bytes") or 0)
    region = board.model_region or board.flash
    ram = int(sum(spec.arena_sizes)) + state + scratch + DSP_ROWS_SCRATCH_BYTES
    if not (flash_short and dsp and program_bytes - dsp <= region.size and ram <= board.ram.size):
        return ""
    return (f". {dsp:,} B of the program are the int8 weights pre-widened to int16 for the DSP kernels: "
            f"--dsp-weights arena fits the flash (program {program_bytes - dsp:,} B; the convolutions then "
            "widen their weights at run time in RAM scratch: more RAM, which that build's size table shows, "
            "and slower)")


def flash_check(spec: "ir.ProgramSpec", board, program_bytes: int) -> None:
    """Fail when the program alone (the .pte and any self-test data, bytes)
    exceeds the board memory that holds it (its model region, else flash),
    naming the largest constants."""
    region = board.model_region or board.flash
    where = "model region" if board.model_region else "flash"
    if program_bytes <= region.size:
        return
    raise BuildError(f"model does not fit {board.name}: the program needs {program_bytes:,} B of {where}, "
                     f"the board has {region.size:,} B: {program_bytes - region.size:,} B short. "
                     f"Largest constants: {largest(spec, constants=True)}")


def replace_folder(new: Path, out: Path) -> None:
    """Put the finished build `new` at `out`: two renames, so `out` holds either
    the old build or the new one, never a mix."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    new.rename(out)
    shutil.rmtree(old, ignore_errors=True)




@dataclass
class Generated:
    """What generate_compiled wrote: the folder and its mote_sources.json dict."""
    out_dir: Path
    sources: dict


def target_memory(compiled, board, work: Path) -> tuple:
    """(runtime state bytes for `board`'s ABI, separate scratch bytes) of `compiled`,
    also recorded in compiled.manifest["memory"].

    When every method can have a method image (aot.deploy.image: its state
    as const data in flash), the runtime state in RAM is 0 bytes and
    "method_image_bytes" records the image's flash bytes on the board's ABI.
    model_image.c is written into `work` either way (without an image it
    declares nothing), so a build system can list the generated files."""
    from aot.deploy.image import image_source, no_image_source
    image = image_source(compiled, scratch_slots(compiled.spec))
    state = target_state_bytes(compiled.pte, board, work)
    compiled.manifest.setdefault("memory", {})
    compiled.manifest["memory"].pop("method_image_bytes", None)
    (work / IMAGE_SOURCE).write_text(image if image is not None else no_image_source(compiled.name))
    if image is not None:
        compiled.manifest["memory"]["method_image_bytes"] = state
        state = 0
    # kernel scratch planned in the arena (one slot per call) needs no separate buffer
    scratch = int(compiled.manifest.get("memory", {}).get("scratch_bytes") or 0)
    scratch = max(scratch, _cmsis_scratch(compiled, board))
    compiled.manifest["memory"].update({"runtime_state_bytes": state, "scratch_bytes": scratch})
    return state, scratch


def model_header(compiled, state: int, stack_reserved: Optional[int] = None, selftest_cases: int = 0) -> str:
    """mote_model.h of `compiled` for a target (the one writer: aot.compiler.manifest)."""
    from aot.compiler.manifest import model_header_text
    spec = compiled.spec
    return model_header_text(spec, compiled.name, compiled.manifest, firmware={
        "state_bytes": state, "inputs_bytes": sum(spec.values[i].nbytes for i in spec.inputs),
        "stack_reserved_bytes": stack_reserved, "scratch_slots": scratch_slots(spec),
        "selftest_cases": selftest_cases,
        "method_image": "method_image_bytes" in compiled.manifest.get("memory", {}), "methods": [m.name for m in compiled.methods] or [spec.method_name],
        "default_method": compiled.method_name,
        "ptd_bytes": len(compiled.ptd) if compiled.ptd is not None else None})


#: the headers aot generate writes for every model (beside generated_sources' C files)
GENERATED_HEADERS = ("model_pte.h", "mote_model.h")


def generated_headers(board) -> list:
    """The headers aot generate writes for `board`: GENERATED_HEADERS and, for an
    RP2040/RP2350 board, mote_binary_info.h (the image's Raspberry Pi binary info,
    included by the port's ports/rp2/binary_info.c). What a build system lists as
    the generate step's outputs (``aot generate --dry-run --json``)."""
    from aot.deploy import binary_info
    return list(GENERATED_HEADERS) + ([binary_info.HEADER_NAME] if binary_info.board_chip(board) else [])


def generated_sources(external_weights: bool, selftest: bool) -> list:
    """The names of the C files write_model_sources writes, in its order: the program, the
    registry and the method image, with external weights the .ptd, with a self-test its
    expected outputs and inputs. What a build system compiles (CMake learns it at configure
    time from ``aot generate --dry-run --json``)."""
    return (["model_pte.c", "registry.c", IMAGE_SOURCE] + (["model_ptd.c"] if external_weights else [])
            + (["model_selftest.c", "model_selftest_inputs.c"] if selftest else []))


def write_model_sources(compiled, board, gen: Path, state: int, selftest=None,
                        stack_reserved: Optional[int] = None) -> list:
    """model_pte.c/.h, registry.c, mote_model.h (and with a self-test
    model_selftest.c, its expected outputs, and model_selftest_inputs.c, its
    cases' inputs) into `gen`: the one writer of these files for aot build
    and aot generate. Returns the C sources written."""
    spec = compiled.spec
    op_names = compiled.op_names
    (gen / "model_pte.h").write_text(pte_header_text(compiled.name, len(compiled.pte)))
    (gen / "model_pte.c").write_text(pte_source_text(compiled.name, compiled.pte))
    write_registry(op_names, gen / "registry.c")
    if compiled.ptd is not None:  # --external-weights: the .ptd in its own flash region
        (gen / "model_ptd.c").write_text(blob_source_text(
            f"the external weights of \"{compiled.name}\" (a .ptd, ExecuTorch's flat-tensor format; "
            "mote/data_map.h), {len(compiled.ptd):,} B", "mote_model_ptd", "MOTE_MODEL_PTD_SECTION",
            ".mote_model.ptd", compiled.ptd, align=16))
    cases = 0
    if selftest is not None:
        from aot.deploy.selftest import selftest_blob
        cases = selftest.count
        (gen / "model_selftest.c").write_text(blob_source_text(
            f"the expected outputs of {cases} self-test case(s) of \"{compiled.name}\": per case one float32 "
            "tolerance per output padded to 8 bytes, then each output's bytes padded to 8 bytes "
            "(runtime/embed/mote_selftest.h)", "mote_selftest_expected", "MOTE_MODEL_SELFTEST_SECTION",
            ".mote_model.selftest",
            selftest_blob(selftest)))
        (gen / "model_selftest_inputs.c").write_text(blob_source_text(
            f"the inputs of {cases} self-test case(s) of \"{compiled.name}\", MOTE_MODEL_INPUTS_BYTES per case",
            "mote_selftest_inputs", "MOTE_MODEL_INPUTS_SECTION", ".mote_model.inputs",
            input_sets_bytes(spec, selftest.inputs)))
    (gen / "mote_model.h").write_text(model_header(compiled, state, stack_reserved, cases))
    # target_memory wrote the method image (IMAGE_SOURCE) before
    return [gen / name for name in generated_sources(compiled.ptd is not None, selftest is not None)]


def model_defines(compiled, board, opt: str = DEFAULT_OPT) -> dict:
    """The -D macros a build of `compiled` for `board` compiles every source with: the dtype
    paths (dtype_defines), the runtime features (runtime_feature_defines), MOTE_OPT_SIZE of
    --opt and the kernel variants (kernel_variant_defines). A build of several models takes
    each macro's largest value over them (aot.deploy.multimodel)."""
    opt_defines = resolve_opt(opt)[2]
    defines = dict(dtype_defines(compiled.manifest))
    defines.update(runtime_feature_defines(compiled))
    defines.update(opt_defines)
    defines.update(kernel_variant_defines(compiled, board, bool(opt_defines["MOTE_OPT_SIZE"])))
    return defines


def build_keys(board, out: Path, generated: list, embed: list, kernels: list, defines: dict,
               opt: str = DEFAULT_OPT, generated_headers: Optional[list] = None) -> dict:
    """The compile keys of a mote_sources.json dict, in their order: sources (`generated`,
    the runtime, the embedding API files `embed`, kernel support, `kernels`),
    generated_sources, generated_headers (only when given), kernel_sources, opt,
    include_dirs (`out` first), defines, cflags, warning_flags, arch_flags and port.
    Writes the board's port files in out/port (write_port_files). Used by
    sources_manifest (one model) and aot.deploy.slot.generate_slot_sources (a slot
    firmware); every path absolute."""
    from aot.deploy.firmware import WARN_FLAGS, link_flags
    port = port_manifest(board)
    port_dir = out / "port"
    psrc = [Path(p) for p in port["sources"]] + write_port_files(board, port_dir)
    fast = support_sources() + list(kernels)
    keys = {"sources": [str(p) for p in list(generated) + runtime_sources() + list(embed) + fast],
            "generated_sources": [str(p) for p in generated]}
    if generated_headers is not None:
        keys["generated_headers"] = [str(p) for p in generated_headers]
    keys.update({
        # --opt size: none at -O2; speed: the kernels but their control files
        "kernel_sources": [str(p) for p in fast if p.name not in KERNEL_CONTROL_SOURCES] if opt == "speed" else [],
        "opt": opt,
        "include_dirs": [str(out), str(RUNTIME_DIR / "include"), str(EMBED_DIR), str(KERNELS_DIR)],
        "defines": defines,
        "cflags": ["-std=c99", "-ffunction-sections", "-fdata-sections"],
        "warning_flags": list(WARN_FLAGS),
        "arch_flags": list(board.arch_flags),
        "port": dict(port, sources=[str(p) for p in psrc],
                     include_dirs=[str(port_dir)] + port["include_dirs"],
                     generated_sources=[str(out / p) for p in port["generated_sources"]],
                     linker_script=str(port_dir / "firmware.ld"),
                     ldflags=link_flags(board, port_dir / "firmware.ld")),
    })
    return keys


def sources_manifest(compiled, board, out: Path, generated: list, kernels: list,
                     selftest: bool, verify_checksum: bool, selftest_bytes: int = 0,
                     opt: str = DEFAULT_OPT) -> dict:
    """The mote_sources.json dict: every path absolute.

    sources: every C file to compile (generated, runtime, embedding API,
    kernel support, the selected kernels); kernel_sources: the subset worth
    compiling for speed (-O2); include_dirs; defines ({name: value or None});
    cflags: what the sources need beyond the user's flags; warning_flags:
    what Mote compiles them with; arch_flags: this board's -mcpu/-mfpu/-mfloat-abi;
    port: Mote's bare-metal port for the board (startup, vectors, UART, the
    port hooks), its linker script and link flags, for a project without
    startup code of its own (these keys: build_keys)."""
    embed = EMBED_SOURCES + ([EMBED_SELFTEST_SOURCE] if selftest else [])
    defines = {"NDEBUG": None}
    defines.update(model_defines(compiled, board, opt))
    if verify_checksum:
        defines["MOTE_VERIFY_CHECKSUM"] = None
    return {
        "board": board.name, "model": compiled.name, "int8": bool(compiled.int8),
        **build_keys(board, out, generated, embed, kernels, defines, opt),
        "memory": dict(compiled.manifest.get("memory", {})),
        "inputs": compiled.manifest["inputs"], "outputs": compiled.manifest["outputs"],
        "pte_bytes": len(compiled.pte),
        "selftest_bytes": selftest_bytes,  # the self-test's inputs and expected outputs, flash
        "pte_sha256": hashlib.sha256(compiled.pte).hexdigest(),
    }


def generate_compiled(compiled, board, out_dir, selftest=None,
                      verify_checksum: bool = False, opt: str = DEFAULT_OPT) -> Generated:
    """Write the sources of `compiled` (aot.compiler.pipeline.Compiled) for
    `board` (a Board, or a board name / board file) into `out_dir` (see the module docstring). selftest: an
    aot.deploy.selftest.SelfTest to embed (model_selftest.c, model.bpte).
    The folder is written in a staging folder beside it and replaces it
    only when everything succeeded. Raises BuildError (no kernel for an op,
    the model's RAM exceeds the board's)."""
    from aot.compiler.pipeline import write_outputs
    from aot.deploy.boards import load_board
    from aot.deploy.selftest import selftest_blob
    board = load_board(board)  # a Board is taken as it is
    out = Path(out_dir).resolve()
    check_output_folder(out, "mote_sources.json", "generate")
    with staged_folder(out, "generating") as stage:
        op_names = compiled.op_names
        kernels = select_kernels(op_names, board)
        state, scratch = target_memory(compiled, board, stage)
        # The stack is the application's (its own linker script or RTOS sizes it).
        st_bytes = len(selftest_blob(selftest)) + len(input_sets_bytes(compiled.spec, selftest.inputs)) \
            if selftest is not None else 0
        check_fits(compiled.spec, board, state, scratch, len(compiled.pte) + st_bytes)
        (stage / "abi_probe.o").unlink(missing_ok=True)
        generated = write_model_sources(compiled, board, stage, state, selftest)
        # RP2040/RP2350: the binary info `aot build` gives this model (picotool info -a),
        # compiled with the port (port_manifest: ports/rp2/binary_info.c)
        from aot.deploy import binary_info
        from aot.deploy.firmware import write_binary_info_header
        write_binary_info_header(board, stage, binary_info.compiled_program(compiled))
        write_outputs(compiled, stage / "model.pte")
        if selftest is not None:
            from aot.deploy.selftest import bpte_bytes
            (stage / "model.bpte").write_bytes(bpte_bytes(compiled.pte, selftest))
        if opt not in OPT_PROFILES:
            raise BuildError(f"--opt {opt}: choose one of {', '.join(OPT_PROFILES)}")
        manifest = sources_manifest(compiled, board, stage, generated, kernels, selftest is not None,
                                    verify_checksum, st_bytes, opt)
        # paths inside the staging folder become paths inside the final one
        text = json.dumps(manifest, indent=2).replace(str(stage), str(out))
        (stage / "mote_sources.json").write_text(text + "\n")
    return Generated(out_dir=out, sources=json.loads((out / "mote_sources.json").read_text()))


def planned_table(sources: dict, board) -> str:
    """The size table `aot generate` prints: flash and RAM known before the
    link (program, arena, runtime state, scratch) against the board budget."""
    mem = sources["memory"]
    arena = sum(mem.get("arena_bytes") or [0])
    state = mem.get("runtime_state_bytes") or 0
    scratch = mem.get("scratch_bytes") or 0
    st = sources.get("selftest_bytes") or 0
    rows = [("program (.pte)", sources["pte_bytes"], None)] + ([("self-test", st, None)] if st else []) + [
        ("arena", None, arena), ("runtime state", None, state), ("scratch", None, scratch)]
    lines = [f"{'part':<16}{'flash B':>12}{'RAM B':>12}"]
    for name, fl, ram in rows:
        lines.append(f"{name:<16}{'' if fl is None else f'{fl:,}':>12}{'' if ram is None else f'{ram:,}':>12}")
    ram_total = arena + state + scratch
    flash_total = sources["pte_bytes"] + st
    region = board.model_region or board.flash
    lines.append(f"{'model total':<16}{flash_total:>12,}{ram_total:>12,}"
                 f"   (+ code, stack and your application's own memory)")
    lines.append(f"{'board budget':<16}{region.size:>12,}{board.ram.size:>12,}   "
                 f"({100 * flash_total / region.size:.1f}% {'model region' if board.model_region else 'flash'}, "
                 f"{100 * ram_total / board.ram.size:.1f}% RAM)")
    kern = [f"{Path(p).parent.name}/{Path(p).name}" for p in sources["kernel_sources"]
            if Path(p).name.startswith("op_")]
    lines.append(f"kernels: {len(kern)} ({', '.join(kern)})")
    return "\n".join(lines)


def write_port_files(board, port_dir: Path) -> list:
    """The board's generated port files in `port_dir`: mote_board.h, the linker
    script firmware.ld (GENERATE_STACK_BYTES of stack) and, for boards with a
    boot stage, boot2_image.S. A file whose content is unchanged is not
    rewritten (its mtime stays: build systems do not recompile the port).
    Returns the generated sources (boot2_image.S) to compile."""
    import tempfile
    from aot.deploy.firmware import board_header, boot2_image, linker_script
    port_dir.mkdir(parents=True, exist_ok=True)
    files = {"mote_board.h": board_header(board), "firmware.ld": linker_script(board, GENERATE_STACK_BYTES)}
    sources = []
    if board.boot2_bytes:
        with tempfile.TemporaryDirectory() as tmp:
            files["boot2_image.S"] = boot2_image(board, Path(tmp)).read_text()
        sources.append(port_dir / "boot2_image.S")
    for name, text in files.items():
        path = port_dir / name
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
    return sources


def port_manifest(board) -> dict:
    """Mote's bare-metal port for `board` (startup, vectors, UART, port hooks; on
    an RP2040/RP2350 board the Raspberry Pi binary info, ports/rp2/binary_info.c,
    which includes the mote_binary_info.h `aot generate` writes) as a build
    system needs it: sources, include folders, the files `aot generate` writes
    under port/ (relative to its folder), link flags without the linker script
    (port/firmware.ld), the libraries, and for a board flashed as a UF2 (pico,
    pico2) its UF2 family ID ("0xe48bff56"; else null): the build systems then add
    a post-build `aot uf2 ELF --board B` step (cmake/mote.cmake,
    integrations/platformio/extra_script.py)."""
    from aot.deploy.firmware import (LINK_LIBS, binary_info_port_sources, link_flags, port_include_dirs,
                                     port_sources)
    return {"sources": [str(p) for p in port_sources(board) + binary_info_port_sources(board)],
            "include_dirs": [str(d) for d in port_include_dirs(board)],
            "generated_sources": ["port/boot2_image.S"] if board.boot2_bytes else [],
            "linker_script": "port/firmware.ld",
            "ldflags": [f for f in link_flags(board, "") if not f.startswith("-T")],
            "libs": list(LINK_LIBS), "stack_bytes": GENERATE_STACK_BYTES,
            "uf2_family_id": f"0x{board.uf2_family_id:08x}" if board.uf2_family_id is not None else None}


def board_sources(board_name: str, port_dir=None) -> dict:
    """`aot board-sources BOARD [--port-dir DIR]`: the model-independent sources of a
    build for BOARD (runtime, embedding API, kernel support, every kernel for the
    board: absolute paths), its include folders and core flags, for build systems
    that fix their source list before the model is compiled (cmake/mote.cmake).
    port_dir: also write the board's port files there (unchanged files are not
    rewritten). Raises BoardError for an unknown or malformed board."""
    from aot.deploy.boards import load_board
    board = load_board(board_name)
    if port_dir:
        write_port_files(board, Path(port_dir))
    return {
        "board": board.name,
        "runtime_sources": [str(p) for p in runtime_sources()],
        "embed_sources": [str(p) for p in EMBED_SOURCES],
        "embed_selftest_source": str(EMBED_SELFTEST_SOURCE),
        "kernel_sources": [str(p) for p in support_sources() + board_kernel_files(board)],
        "include_dirs": [str(RUNTIME_DIR / "include"), str(EMBED_DIR), str(KERNELS_DIR)],
        "arch_flags": list(board.arch_flags),
        "qemu_machine": (board.simulator.machine if board.simulator is not None
                         and board.simulator.kind == "qemu" else None),
        "simulator": board.simulator.kind if board.simulator is not None else None,  # qemu, rp2040js
        "port": port_manifest(board),
    }


def _main(argv=None) -> int:
    """`python -m aot.deploy.generate --board-sources BOARD [--port-dir DIR]`: the old
    form of `aot board-sources` (kept one release)."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m aot.deploy.generate")
    p.add_argument("--board-sources", metavar="BOARD", required=True)
    p.add_argument("--port-dir", metavar="DIR", help="also write the board's port files there "
                   "(mote_board.h, firmware.ld, boot2_image.S; unchanged files are not rewritten)")
    args = p.parse_args(argv)
    try:
        sources = board_sources(args.board_sources, args.port_dir)
    except Exception as e:  # noqa: BLE001 - one line for the build system's log
        print(str(e), file=sys.stderr)
        return 1
    print(json.dumps(sources, indent=2))
    return 0


if __name__ == "__main__":
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.deploy.generate --board-sources BOARD", "aot board-sources BOARD")
    sys.exit(_main())
