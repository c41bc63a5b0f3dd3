"""The debug record: what every instruction of a compiled program stands for.

``aot export`` and ``aot build`` write it next to the program as
``<model>.debug.json`` (:func:`debug_record_path`); ``aot profile`` and
``aot debug`` read it to name each instruction's op, kernel variant, shapes,
MACs and the model ``file:line`` / module path it came from, after all
fusions (an int8 conv's record names the PT2E nodes of its weight, bias,
conv, activation and requantize).

Layout (JSON)::

    {"format": "mote-debug-record", "version": 1, "model": str, "int8": bool,
     "pte_sha256": SHA-256 of the program the record describes,
     "instructions": [{"instr": int, "op": "aten::convolution.out",
        "node": edge graph node, "nodes": [user graph node names],
        "source": "file.py:LINE" or "", "module": "module 'path' (Class)" or "",
        "inputs": [value index], "outputs": [value index],
        "input_shapes": [[int]], "output_shapes": [[int]], "output_dtypes": [str],
        "macs": int, "q": {"node": quantize node, "perm": [int]} or null}]}

Value indices are the program's (mote_method_value()); int8 outputs are
physical: logical.permute(perm).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from aot import ir
from aot.errors import MoteError

FORMAT = "mote-debug-record"
VERSION = 1


def debug_record_path(pte_path) -> Path:
    """``model.pte`` -> ``model.debug.json`` (same folder)."""
    p = Path(pte_path)
    return p.with_name(p.stem + ".debug.json")


def _tensor(spec: ir.ProgramSpec, i: int):
    v = spec.values[i] if 0 <= i < len(spec.values) else None
    return v if isinstance(v, ir.TensorValue) else None


def call_outputs(spec: ir.ProgramSpec, call: ir.KernelCall) -> list:
    """Value indices of the tensors `call` writes, from ExecuTorch's calling
    convention as aot.compiler.lower builds it: schema args, then the out
    tensors again ([.., out, out]), or one TensorList of several outs
    ([.., o1, o2, [o1, o2]]), or a `Tensor[] out` list with no returns; an
    et_view's output is its last argument."""
    args = call.args
    if not args:
        return []
    last = spec.values[args[-1]]
    if isinstance(last, ir.TensorListValue):
        return [i for i in last.items if i >= 0]
    if f"{call.op}.{call.overload}" == ir.ET_VIEW:
        return [args[-1]]
    return [args[-1]] if _tensor(spec, args[-1]) is not None else []


def call_inputs(spec: ir.ProgramSpec, call: ir.KernelCall) -> list:
    """Value indices of the non-constant tensors `call` reads (lists expanded)."""
    outs = set(call_outputs(spec, call))
    seen: list = []
    for a in call.args:
        v = spec.values[a]
        items = v.items if isinstance(v, ir.TensorListValue) else [a]
        for i in items:
            t = _tensor(spec, i) if i >= 0 else None
            if t is not None and t.constant is None and i not in outs and i not in seen:
                seen.append(i)
    return seen


def debug_record(compiled) -> dict:
    """The record of an aot.compiler.pipeline.Compiled (see the module docstring)."""
    from aot.compiler.macs import instruction_macs
    from aot.compiler.scratch import call_variant
    spec = compiled.spec
    rows = []
    for k, call in enumerate(spec.instructions):
        ins, outs = call_inputs(spec, call), call_outputs(spec, call)
        rows.append({
            "instr": k, "op": f"{call.op}.{call.overload}", "node": call.node,
            "nodes": list(call.nodes), "source": call.source, "module": call.module,
            "inputs": ins, "outputs": outs,
            "input_shapes": [list(spec.values[i].sizes) for i in ins],
            "output_shapes": [list(spec.values[i].sizes) for i in outs],
            "output_dtypes": [ir.dtype_name(spec.values[i].dtype) for i in outs],
            "macs": int(instruction_macs(spec, call)),
            "variant": call_variant(spec, call) if isinstance(call, ir.KernelCall) else None,
            "q": None if call.q is None else {"node": call.q[0], "perm": list(call.q[1])},
        })
    return {"format": FORMAT, "version": VERSION, "model": compiled.name,
            "int8": bool(compiled.int8), "pte_sha256": hashlib.sha256(compiled.pte).hexdigest(),
            "instructions": rows}


def load_debug_record(path, pte: bytes = None) -> dict:
    """Reads a record; MoteError (one line) when it is missing, not one, or
    (given the program's bytes `pte`) describes another program."""
    p = Path(path)
    try:
        rec = json.loads(p.read_text())
    except FileNotFoundError:
        raise MoteError(f"{p}: no debug record (aot export / aot build write it next to the .pte)") from None
    except (OSError, ValueError) as e:
        raise MoteError(f"{p}: not a readable debug record ({e})") from None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise MoteError(f"{p}: not a Mote debug record (format {rec.get('format') if isinstance(rec, dict) else None!r})")
    if pte is not None and rec.get("pte_sha256") != hashlib.sha256(pte).hexdigest():
        raise MoteError(f"{p} describes another program than the .pte beside it "
                        f"(model {rec.get('model')!r}): export or build again")
    return rec
