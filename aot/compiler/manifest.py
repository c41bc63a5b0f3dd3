"""Selective-op manifest (``ops.json``) and firmware header (``mote_model.h``).

``ops.json``::

    {"ops": [{"name": "aten::addmm.out", "dtypes": ["float32"],
              "kernel": "mote_kernel_aten_addmm_out", "count": 1}, ...],
     # int8 conv / linear entries also: "variants": {"pointwise+table": 4, ...},
     # the optimized kernel's variant per call (aot.compiler.scratch.call_variant)
     "memory": {"arena_bytes": [..],            # one entry per memory id 1..n
                "arena_lower_bound_bytes": ..,  # live-bytes lower bound
                "constants_bytes": ..,          # constant segment bytes
                "runtime_state_bytes": null, "scratch_bytes": .., "stack_bytes": null,
                # --delegate (aot export): the delegates' backend pool measured on the host
                "backend_pool_bytes": ..},
     "inputs": [{"index": .., "shape": [..], "dtype": "float32", "bytes": ..}],
     "outputs": [...], "pte_bytes": .., "method": "forward"}

``arena_bytes[i]`` is memory id ``i + 1`` (ExecuTorch's
``non_const_buffer_sizes[i + 1]``; entry 0 there is reserved). All sizes are
bytes. Kernel symbols: ``"aten::addmm.out"`` -> ``mote_kernel_aten_addmm_out``
(``::`` and ``.`` become ``_``).
"""
from __future__ import annotations

import hashlib
import json
import zlib
import re
from pathlib import Path

from aot import ir
from aot.pte import schema as fb
from aot.compiler.emit import atomic_write, build_program
from aot.compiler.kernels import kernel_symbol  # noqa: F401 (public here too)
from aot.compiler.liveness import spec_lower_bound, spec_uses
from aot.compiler.scratch import call_variant


def _io(spec: ir.ProgramSpec, idxs: list) -> list:
    return [{"index": i, "shape": list(spec.values[i].sizes), "dtype": ir.dtype_name(spec.values[i].dtype),
             "bytes": spec.values[i].nbytes} for i in idxs]


def manifest_path(pte_path: Path) -> Path:
    """Where the ops.json of ``pte_path`` goes: ``ops.json`` next to a
    ``model.pte`` (the build folder layout), ``<name>.ops.json`` next to any
    other ``<name>.pte``, so two programs in one folder keep their own."""
    pte_path = Path(pte_path)
    return pte_path.with_name("ops.json" if pte_path.name == "model.pte" else pte_path.stem + ".ops.json")


def build_manifest(spec: ir.ProgramSpec, extra: dict | None = None, program=None, others=()) -> dict:
    """The ops.json dict of ``spec`` (see module docstring).

    ``extra`` is merged at top level, except: ``extra["memory"]`` updates the
    memory section (e.g. runtime_state_bytes, stack_bytes) and
    ``extra["kernels"]`` ({op name: symbol}) overrides kernel symbols.
    ``spec.plan_info`` keys ``lower_bound``/``arena_lower_bound_bytes`` and
    ``scratch_bytes`` override the computed figures. ``program``: the
    :class:`aot.compiler.emit.EmitResult` of ``spec`` when the caller has it
    (otherwise the spec is serialised here). ``others``: the specs of the
    program's other methods, whose operators join ``ops`` (a build links the
    kernels of every method); inputs, outputs and memory stay ``spec``'s.
    Raises EmitError."""
    extra = dict(extra or {})
    res = program if program is not None else build_program(spec)
    kernels = extra.pop("kernels", {}) or {}
    ops: dict = {}
    for sp in [spec, *others]:
        for call, used in zip(sp.instructions, spec_uses(sp)):
            if isinstance(call, ir.DelegateCall):   # a backend's work: "delegates", not a kernel
                continue
            name = f"{call.op}.{call.overload}"
            e = ops.setdefault(name, {"name": name, "dtypes": set(),
                                      "kernel": kernels.get(name) or kernel_symbol(name), "count": 0})
            e["count"] += 1
            e["dtypes"].update(ir.dtype_name(sp.values[i].dtype) for i in used)
            variant = call_variant(sp, call)
            if variant is not None:
                vs = e.setdefault("variants", {})
                vs[variant] = vs.get(variant, 0) + 1
    pi = spec.plan_info or {}
    lb = pi.get("arena_lower_bound_bytes", pi.get("lower_bound"))
    if lb is None:
        lb = spec_lower_bound(spec)
    scratch = pi.get("scratch_bytes")
    if scratch is None:
        scratch = max([c.scratch_bytes for c in spec.instructions] or [0])
    memory = {
        "arena_bytes": list(spec.arena_sizes[1:]),
        "arena_lower_bound_bytes": lb,
        "constants_bytes": len(res.constant_segment),
        "runtime_state_bytes": pi.get("runtime_state_bytes"),
        "scratch_bytes": scratch,
        "stack_bytes": pi.get("stack_bytes"),
    }
    memory.update(extra.pop("memory", {}) or {})
    m = {
        "method": spec.method_name,
        "ops": [dict(e, dtypes=sorted(e["dtypes"])) for e in ops.values()],
        "memory": memory,
        "inputs": _io(spec, spec.inputs),
        "outputs": _io(spec, spec.outputs),
        "pte_bytes": len(res.data),
        # Ties the manifest to its program: `aot inspect` ignores an ops.json
        # whose hash differs from the .pte next to it.
        "pte_sha256": hashlib.sha256(res.data).hexdigest(),
        # What firmware checks at boot with MOTE_VERIFY_CHECKSUM (mote_model.h).
        "pte_crc32": zlib.crc32(res.data),
    }
    if (spec.plan_info or {}).get("layouts", {}).get("pairs"):
        # aot.compiler.layout: each pointwise -> depthwise tensor, planar int16 or NHWC
        m["layouts"] = spec.plan_info["layouts"]
    if (spec.plan_info or {}).get("dw_planes_arena"):
        # aot.compiler.layout.planes4_pass: the depthwise calls widening four or two
        # channels at once, and what that costs the arena
        m["dw_planes"] = {"four": spec.plan_info.get("dw_planes4", []), "two": spec.plan_info.get("dw_planes2", []),
                          **spec.plan_info["dw_planes_arena"]}
    if (spec.plan_info or {}).get("delegation"):
        m["delegation"] = spec.plan_info["delegation"]
    m.update(extra)
    return m


def manifest_for_method(manifest: dict, spec: ir.ProgramSpec) -> dict:
    """A copy of a program's ``manifest`` describing method ``spec`` (its name,
    inputs and outputs); the operators and memory are the program's."""
    return dict(manifest, method=spec.method_name, inputs=_io(spec, spec.inputs), outputs=_io(spec, spec.outputs))


def _atomic_write(path, text: str) -> None:
    atomic_write(path, text.encode("utf-8"))


def write_manifest(spec: ir.ProgramSpec, path, extra: dict | None = None) -> dict:
    """Write ops.json for ``spec`` to ``path`` (atomically); returns the dict.
    See :func:`build_manifest`. Raises EmitError / OSError."""
    m = build_manifest(spec, extra)
    _atomic_write(path, json.dumps(m, indent=2) + "\n")
    return m


def model_header_text(spec: ir.ProgramSpec, name: str = "model", manifest: dict | None = None,
                      firmware: dict | None = None) -> str:
    """Text of mote_model.h, the one writer of it: exact byte sizes as macros
    (see :func:`write_model_header`).

    ``firmware``: what ``aot build`` / ``aot generate`` know for their target
    (all bytes): ``state_bytes`` (runtime state for the target ABI),
    ``inputs_bytes``, ``stack_reserved_bytes`` (None before a link),
    ``scratch_slots`` ([(instruction, offset, size)] planned in arena 1) and
    ``selftest_cases`` (embedded self-test cases, 0 for none)."""
    m = manifest or build_manifest(spec)
    mem = m["memory"]
    guard = "MOTE_MODEL_H"
    L = ["/* Generated by aot (aot/compiler/manifest.py) for model \"%s\". Do not edit. */" % name.replace("*/", ""),
         f"#ifndef {guard}", f"#define {guard}", "",
         f"#define MOTE_MODEL_NAME \"{json.dumps(name)[1:-1]}\"",
         f"/* ARENA<i> is memory id i+1 (non_const_buffer_sizes[i+1]); sizes in bytes. */",
         f"#define MOTE_MODEL_NUM_ARENAS {len(mem['arena_bytes'])}u"]
    for i, b in enumerate(mem["arena_bytes"] or [0]):
        L.append(f"#define MOTE_MODEL_ARENA{i}_BYTES {b}u")
    L.append(f"#define MOTE_MODEL_ARENA_LOWER_BOUND_BYTES {mem['arena_lower_bound_bytes']}u")
    L.append(f"#define MOTE_MODEL_CONSTANTS_BYTES {mem['constants_bytes']}u")
    L.append(f"#define MOTE_MODEL_SCRATCH_BYTES {mem['scratch_bytes'] or 0}u")
    for key, macro in (("runtime_state_bytes", "RUNTIME_STATE"), ("stack_bytes", "STACK")):
        if mem.get(key) is not None:
            L.append(f"#define MOTE_MODEL_{macro}_BYTES {mem[key]}u")
    if mem.get("backend_pool_bytes"):
        L.append("/* The delegates' backend pool (mote_memory_t.backend) the program took on the host"
                 " (aot export --delegate measures it). */")
        L.append(f"#define MOTE_MODEL_BACKEND_POOL_BYTES {mem['backend_pool_bytes']}u")
    L.append(f"#define MOTE_MODEL_PTE_BYTES {m['pte_bytes']}u")
    if m.get("pte_crc32") is not None:
        L.append("/* CRC-32 (IEEE 802.3, zlib's) of the whole .pte: program and data segments. */")
        L.append(f"#define MOTE_MODEL_CRC32 0x{m['pte_crc32']:08x}u")
    L.append(f"#define MOTE_MODEL_NUM_OPS {len(m['ops'])}u")
    for key, macro in (("inputs", "INPUT"), ("outputs", "OUTPUT")):
        L.append(f"#define MOTE_MODEL_NUM_{macro}S {len(m[key])}u")
        for i, io in enumerate(m[key]):
            code = spec.values[io["index"]].dtype
            L.append(f"#define MOTE_MODEL_{macro}{i}_BYTES {io['bytes']}u")
            L.append(f"#define MOTE_MODEL_{macro}{i}_DTYPE {code} /* {io['dtype']} */")
            L.append(f"#define MOTE_MODEL_{macro}{i}_NUMEL {io['bytes'] // max(ir.DTYPE_SIZES[code], 1)}u")
    if firmware is not None:
        slots = firmware.get("scratch_slots") or []
        items = ", ".join(f"{{{i}u, {off}u, {size}u}}" for i, off, size in slots) or "{0u, 0u, 0u}"
        L += ["", "/* Target-exact sizes from aot build / aot generate (bytes). */",
              f"#define MOTE_MODEL_STATE_BYTES {firmware['state_bytes']}u",
              *([f"/* The runtime state is in flash: model_image.c (mote/method.h, mote_method_image_t). */",
                 "#define MOTE_MODEL_IMAGE 1"] if firmware.get("method_image") else []),
              f"#define MOTE_MODEL_INPUTS_BYTES {firmware['inputs_bytes']}u"]
        if firmware.get("stack_reserved_bytes") is not None:  # known after aot build's link
            L.append(f"#define MOTE_MODEL_STACK_RESERVED_BYTES {firmware['stack_reserved_bytes']}u")
        L += ["/* Kernel scratch planned in arena 1: {instruction, offset, size} (mote_scratch_slot_t). */",
              f"#define MOTE_MODEL_NUM_SCRATCH_SLOTS {len(slots)}",
              f"#define MOTE_MODEL_SCRATCH_SLOTS {{ {items} }}"]
        if firmware.get("ptd_bytes") is not None:
            L += ["/* External weights (--external-weights): mote_model_ptd[] in model_ptd.c, a .ptd. */",
                  f"#define MOTE_MODEL_PTD_BYTES {firmware['ptd_bytes']}u"]
        methods = firmware.get("methods") or [spec.method_name]
        L += ["/* The program's methods (execution plans), in order; the embedding API starts on the default one. */",
              f"#define MOTE_MODEL_NUM_METHODS {len(methods)}u",
              f"#define MOTE_MODEL_DEFAULT_METHOD {methods.index(firmware.get('default_method') or methods[0])}u"]
        for i, name in enumerate(methods):
            L.append(f"#define MOTE_MODEL_METHOD{i}_NAME \"{name}\"")
        if firmware.get("selftest_cases"):
            L += ["/* Self-test cases embedded by --selftest (model_selftest.c; mote_model_selftest()). */",
                  f"#define MOTE_MODEL_SELFTEST_CASES {firmware['selftest_cases']}u"]
    L += ["", f"#endif /* {guard} */", ""]
    return "\n".join(L)


def write_model_header(spec: ir.ProgramSpec, path, name: str = "model", manifest: dict | None = None) -> str:
    """Write mote_model.h for ``spec`` to ``path`` (atomically); returns the text.

    Macros (bytes unless noted): MOTE_MODEL_NUM_ARENAS, MOTE_MODEL_ARENA<i>_BYTES,
    MOTE_MODEL_ARENA_LOWER_BOUND_BYTES, MOTE_MODEL_CONSTANTS_BYTES,
    MOTE_MODEL_SCRATCH_BYTES, MOTE_MODEL_PTE_BYTES, MOTE_MODEL_NUM_OPS,
    MOTE_MODEL_NUM_INPUTS/OUTPUTS, MOTE_MODEL_INPUT<i>_BYTES/_DTYPE/_NUMEL,
    MOTE_MODEL_OUTPUT<i>_BYTES/_DTYPE/_NUMEL, and RUNTIME_STATE/STACK when known.
    Raises EmitError / OSError."""
    text = model_header_text(spec, name, manifest)
    _atomic_write(path, text)
    return text
