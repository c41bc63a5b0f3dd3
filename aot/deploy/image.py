"""Method images: a method's runtime state made ahead of time, as const data.

The runtime's state (mote/method.h: values, tensors, resolved int-list
items, tensor-list pointers, instructions, kernel argument pointers) only
holds pointers that are known at link time in a build through the embedding
API (runtime/embed/mote_model.c): into the program (mote_model_pte), the
external weights (mote_model_ptd), the static arenas (mote_embed_arena0/1),
the state's own tables and the kernels. ``image_source`` writes that state as
C initializers (model_image.c) so it stays in flash: the method needs no
state buffer at all (MOTE_MODEL_STATE_BYTES 0). mote_method_init still
computes every entry from the program and compares (MOTE_ERR_BAD_IMAGE on a
difference), so nothing in the image is trusted.

The entries are not computed here a second time: the host library
initialises the method (the runtime's own init, with the arenas and scratch
slots the embedding API passes) and this module reads its state buffer back
and names every pointer by what it points into. A program whose state
changes at run time (MoveCall, DelegateCall) or holds a double that C cannot
spell as a constant (inf, nan) gets no image (``image_source`` returns None).
"""
from __future__ import annotations

import ctypes as C
import importlib.util
import math
from functools import lru_cache
from typing import Optional

from aot.host import abi
from aot.paths import KERNELS_DIR

#: the state's regions, in mote_method_state_counts' order (mote/method.h)
REGIONS = ("values", "tensors", "ints", "tptrs", "instrs", "kargs")
#: C element type of each region's table in the image
_CTYPE = {"values": "mote_value_t", "tensors": "mote_tensor_t", "ints": "int64_t",
          "tptrs": "mote_tensor_t *", "instrs": "mote_instr_t", "kargs": "mote_value_t *"}
#: instruction kinds whose entries init writes at run time or from a backend
_NO_IMAGE_KINDS = (2, 3)  # MOTE_INSTR_DELEGATE, MOTE_INSTR_MOVE


class Instr(C.Structure):
    """mote_instr_t (mote/method.h), host layout."""
    _fields_ = [("kind", C.c_uint8), ("a", C.c_uint32), ("b", C.c_uint32), ("scratch_size", C.c_uint32),
                ("fn", C.c_void_p), ("args", C.c_void_p), ("scratch", C.c_void_p)]


_HOST_SIZE = {"values": C.sizeof(abi.Value), "tensors": C.sizeof(abi.Tensor), "ints": 8,
              "tptrs": C.sizeof(C.c_void_p), "instrs": C.sizeof(Instr), "kargs": C.sizeof(C.c_void_p)}


@lru_cache(maxsize=None)
def _kernel_symbol():
    """kernels/gen_registry.py's symbol(op): the one rule naming a kernel's C function."""
    spec = importlib.util.spec_from_file_location("mote_gen_registry", KERNELS_DIR / "gen_registry.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.symbol


def image_bytes(counts: dict, sizes: dict) -> int:
    """Flash bytes of an image's tables on an ABI with per-entry `sizes` (each table
    rounded up to 8 bytes, the state buffer's rule)."""
    return sum((counts[k] * sizes[k] + 7) & ~7 for k in REGIONS)


def _registry(lib) -> dict:
    """Kernel function address -> operator name, of the host library's registry."""
    n = C.c_uint32.in_dll(lib, "mote_kernel_registry_len").value
    entries = (abi.KernelEntry * n).in_dll(lib, "mote_kernel_registry")
    return {e.fn: e.name.decode() for e in entries if e.fn}


class _Namer:
    """C expressions for the host pointers of one initialised method."""

    def __init__(self, prog, method, tables: dict, prefix: str):
        self.ranges = [(prog._data.ctypes.data, prog._data.size, "mote_model_pte", True)]
        if getattr(prog, "_ptd", None) is not None:
            self.ranges.append((prog._ptd.ctypes.data, prog._ptd.size, "mote_model_ptd", True))
        for i, a in enumerate(method._arenas):
            self.ranges.append((a.ctypes.data, a.size, f"mote_embed_arena{i}", False))
        self.tables = tables  # region -> (host address, entry size)
        self.prefix = prefix
        self.used_ptd = False

    def ptr(self, addr: Optional[int], ctype: str, table: Optional[str] = None) -> str:
        """`addr` as a C address constant of type `ctype` (NULL for 0). `table`: the
        region a list's items live in; an empty list at its end points one past the
        region's last entry, which must be named from that region: on the host the
        next region may start there, on the target the regions are separate arrays."""
        if not addr:
            return "NULL"
        if table is not None:
            base, esize = self.tables[table]
            if addr == base + esize * self.count[table]:
                return f"({ctype})&{self.prefix}_{table}[{self.count[table]}]"
        for region, (base, esize) in self.tables.items():
            if base <= addr < base + esize * self.count[region] and (addr - base) % esize == 0:
                return f"({ctype})&{self.prefix}_{region}[{(addr - base) // esize}]"
        for base, size, sym, _const in self.ranges:
            if base <= addr < base + size or (addr == base + size and size == 0):
                self.used_ptd |= sym == "mote_model_ptd"
                return f"({ctype})({sym} + {addr - base}u)"
        raise _NoImage(f"a pointer the image cannot name (0x{addr:x})")


class _NoImage(Exception):
    pass


def _double(d: float) -> str:
    if not math.isfinite(d):
        raise _NoImage("a non-finite double")
    return d.hex()


def _method_tables(prog, index: int, slots, prefix: str) -> tuple:
    """(C text of one method's tables, counts) from the host library's init of it."""
    from aot.host.runtime import Method
    m = Method(prog, index, scratch_slots=slots)
    counts = prog.state_counts(index)
    base = m._state.ctypes.data
    tables, at = {}, 0
    for k in REGIONS:  # mote/method.h's layout: each region rounded up to 8 bytes
        tables[k] = (base + at, _HOST_SIZE[k])
        at += (counts[k] * _HOST_SIZE[k] + 7) & ~7
    namer = _Namer(prog, m, tables, prefix)
    namer.count = counts
    reg = _registry(prog._lib)
    symbol = _kernel_symbol()

    def rows(region, ctype):
        addr, size = tables[region]
        return [ctype.from_address(addr + i * size) for i in range(counts[region])]

    out, fns = [], set()
    vals = []
    for v in rows("values", abi.Value):
        u, tag = v.u, v.tag
        T = abi.TAG
        if tag == T["INT"]:
            body = f".i = {u.i}"
            if u.i == -(1 << 63):
                body = f".i = ({u.i + 1} - 1)"
        elif tag == T["BOOL"]:
            body = f".b = {'true' if u.b else 'false'}"
        elif tag == T["DOUBLE"]:
            body = f".d = {_double(u.d)}"
        elif tag == T["TENSOR"]:
            body = f".t = {namer.ptr(C.cast(u.t, C.c_void_p).value, 'mote_tensor_t *')}"
        elif tag == T["STRING"]:
            # the field's own bytes: ctypes turns a c_char_p field into a copy of the string
            raw = C.c_void_p.from_address(C.addressof(u.str) + abi.Str.ptr.offset).value
            body = (f".str = {{{namer.ptr(raw, 'const char *')}, "
                    f"{u.str.len}u}}")
        elif tag == T["INT_LIST"]:
            body = f".ints = {{{namer.ptr(C.cast(u.ints.items, C.c_void_p).value, 'const int64_t *', 'ints')}, {u.ints.len}u}}"
        elif tag == T["DOUBLE_LIST"]:
            body = (f".doubles = {{{namer.ptr(C.cast(u.doubles.items, C.c_void_p).value, 'const double *')}, "
                    f"{u.doubles.len}u}}")
        elif tag == T["BOOL_LIST"]:
            body = (f".bools = {{{namer.ptr(C.cast(u.bools.items, C.c_void_p).value, 'const uint8_t *')}, "
                    f"{u.bools.len}u}}")
        elif tag in (T["TENSOR_LIST"], T["OPT_TENSOR_LIST"]):
            body = (f".tensors = {{{namer.ptr(C.cast(u.tensors.items, C.c_void_p).value, 'mote_tensor_t *const *', 'tptrs')}, "
                    f"{u.tensors.len}u}}")
        else:
            body = ".i = 0"
        vals.append(f"    {{.tag = {tag}u, .u = {{{body}}}}}")
    tens = []
    for t in rows("tensors", abi.Tensor):
        tens.append("    {" + ", ".join([
            namer.ptr(t.data, "void *"),
            namer.ptr(C.cast(t.sizes, C.c_void_p).value, "const int32_t *"),
            namer.ptr(C.cast(t.dim_order, C.c_void_p).value, "const uint8_t *"),
            f"{t.numel}u", f"{t.nbytes}u", f"{t.dim}u", f"{t.dtype}u"]) + "}")
    ints = [f"    {x.value}" if x.value != -(1 << 63) else f"    ({x.value + 1} - 1)"
            for x in rows("ints", C.c_int64)]
    tptrs = [f"    {namer.ptr(x.value, 'mote_tensor_t *')}" for x in rows("tptrs", C.c_void_p)]
    kargs = [f"    {namer.ptr(x.value, 'mote_value_t *')}" for x in rows("kargs", C.c_void_p)]
    instrs = []
    for ins in rows("instrs", Instr):
        if ins.kind in _NO_IMAGE_KINDS:
            raise _NoImage("a MoveCall or DelegateCall")
        fn = "NULL"
        if ins.fn:
            fn = symbol(reg[ins.fn])
            fns.add(fn)
        instrs.append("    {" + ", ".join([
            f"{ins.kind}u", f"{ins.a}u", f"{ins.b}u", f"{ins.scratch_size}u", fn,
            namer.ptr(ins.args, "mote_value_t *const *"), namer.ptr(ins.scratch, "void *")]) + "}")
    del m
    body = {"values": vals, "tensors": tens, "ints": ints, "tptrs": tptrs, "instrs": instrs, "kargs": kargs}
    decls = {}
    for k in REGIONS:  # declared first: the tables point into each other
        const = "" if k in ("tptrs", "kargs") else "const "
        qual = " const" if k in ("tptrs", "kargs") else ""
        decls[k] = f"static {const}{_CTYPE[k]}{qual} {prefix}_{k}[{max(len(body[k]), 1)}]"
        out.append(decls[k] + ";")
    for k in REGIONS:
        n = len(body[k])
        out.append(f"{decls[k]} = {{\n" + (",\n".join(body[k]) if n else "    " + _zero(k)) + "\n};")
    return "\n".join(out), counts, fns, namer.used_ptd


def _zero(region: str) -> str:
    return {"values": "{.tag = 0u, .u = {.i = 0}}", "tensors": "{NULL, NULL, NULL, 0u, 0u, 0u, 0u}", "ints": "0",
            "tptrs": "NULL", "instrs": "{0u, 0u, 0u, 0u, NULL, NULL, NULL}", "kargs": "NULL"}[region]


def image_source(compiled, slots, library=None) -> Optional[str]:
    """model_image.c for `compiled` (one image per method, in method order), or
    None when a method cannot have one (see the module docstring). slots: the
    scratch slots the embedding API gives method 0 (mote_model.h's
    MOTE_MODEL_SCRATCH_SLOTS); library: the host library whose init is read
    back (default: aot.host.runtime's)."""
    from aot.host.runtime import Program
    prog = Program(compiled.pte, library=library, data_map=compiled.ptd)
    parts, decls, ptd = [], set(), False
    try:
        for k in range(prog.method_count):
            text, counts, fns, used_ptd = _method_tables(prog, k, slots if k == 0 else None, f"mote_image{k}")
            decls |= fns
            ptd |= used_ptd
            parts.append((text, counts))
    except _NoImage:
        return None
    protos = "".join(f"mote_err_t {f}(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs);\n"
                     for f in sorted(decls))
    images = ",\n".join(
        "    {" + ", ".join(f"mote_image{k}_{r}" for r in REGIONS)
        + ", {" + ", ".join(f"{c[r]}u" for r in REGIONS) + "}}"
        for k, (_, c) in enumerate(parts))
    arenas = "".join(f"extern uint8_t mote_embed_arena{i}[];\n"
                     for i in range(max((len(compiled.spec.arena_sizes)), 0)) if i < 2)
    return (f"/* Generated by aot generate for model \"{compiled.name}\": the runtime state of each method "
            "as init builds it\n * for the embedding API's static memory (mote/method.h, mote_method_image_t). "
            "Init compares every\n * entry with what it computes from the program; do not edit. */\n"
            "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
            "#include \"mote/method.h\"\n#include \"model_pte.h\"\n\n"
            + ("extern const uint8_t mote_model_ptd[];\n" if ptd else "") + arenas + protos + "\n"
            + "\n\n".join(t for t, _ in parts)
            + f"\n\nextern const mote_method_image_t mote_model_images[{len(parts)}];\n"
            + f"const mote_method_image_t mote_model_images[{len(parts)}] = {{\n{images}\n}};\n")


def no_image_source(name: str) -> str:
    """model_image.c for a program without method images: no tables (its state is in RAM)."""
    return (f"/* Generated by aot generate for model \"{name}\": no method image (a MoveCall or "
            "DelegateCall: the\n * runtime state is in RAM, MOTE_MODEL_STATE_BYTES); do not edit. */\n"
            "typedef int mote_model_image_none_t; /* ISO C: a translation unit declares something */\n")
