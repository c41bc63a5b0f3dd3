"""int8 post-training quantization (and QAT preparation) with torchao PT2E.

:func:`quantize` runs export -> ``prepare_pt2e`` with :class:`MoteQuantizer`
(aot.compiler.quant.annotate: the int8 / int16x8 / int4 x int8 schemes) ->
calibration -> ``convert_pt2e``; the converted GraphModule (q/dq ops around
fp32 ops) is the "PT2E reference" and runs eagerly. :func:`prepare_qat` is
the QAT entry point.

``scaled_dot_product_attention`` (what ``nn.MultiheadAttention`` exports to) is
decomposed by :func:`export_for_quantization` into matmul, scale, mask, softmax
and matmul before annotation, so each piece is quantized.

``aot compare MODEL.py --int8`` reports the PT2E reference against fp32 and the
program. :func:`main` is what ``python -m aot.compiler.quantize MODEL.py [--calib
FILE.npz]`` runs for one more release: the fp32 vs PT2E-int8 agreement on the
calibration set.
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
from math import prod
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import numpy as np
import torch

from aot.errors import InputError
from aot.compiler.export import capture
from torch.fx import GraphModule, Node

from aot.compiler.quant.annotate import ANNOTATION_KEY, FiniteMinMaxObserver, MoteQuantizer
from aot.compiler.quant.state import int8_state_qparams, mutated_buffers, state_constants
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e
from torchao.quantization.pt2e.quantizer import Quantizer

__all__ = ["MoteQuantizer", "quantize", "prepare_qat", "load_calibration",
           "export_for_quantization", "decompose_sdpa", "FiniteMinMaxObserver", "ANNOTATION_KEY",
           "int8_state_qparams", "mutated_buffers", "state_constants"]


class Int8CalibrationWarning(UserWarning):
    """--int8 without calibration data: ranges from the example inputs only."""


aten = torch.ops.aten


def export_for_quantization(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
                            recurrent: bool = True) -> GraphModule:
    """``torch.export.export(module, inputs).module(check_guards=False)`` (a
    GraphModule of ATen ops that PT2E can annotate), with every
    ``scaled_dot_product_attention`` decomposed (:func:`decompose_sdpa`), every
    two-operand ``einsum`` that is a batched matrix product rewritten into one
    (:func:`decompose_einsum`) and
    (recurrent: the int8 scheme's) every LSTM / GRU layer or cell unrolled into
    tagged steps (:func:`aot.compiler.quant.recurrent.decompose_recurrent`)."""
    ep = capture(module, example_inputs)
    gm = ep.module(check_guards=False)
    decompose_sdpa(gm)
    decompose_einsum(gm)
    if recurrent:
        from aot.compiler.quant.recurrent import decompose_recurrent
        decompose_recurrent(gm)
    return gm


def decompose_sdpa(gm: GraphModule) -> int:
    """Rewrite ``aten.scaled_dot_product_attention`` nodes of `gm` in place into
    ``softmax(matmul(q, k^T) * scale [masked]) @ v`` (torch's documented math):
    scale = the op's ``scale`` or 1/sqrt(q.size(-1)); a bool ``attn_mask`` (True =
    attend) or ``is_causal`` becomes ``masked_fill(~mask, -inf)``, a float mask an
    ``add``. Nodes with dropout, GQA or both a mask and is_causal stay as they are.
    Returns the number of nodes rewritten."""
    g = gm.graph
    done = 0
    for n in list(g.nodes):
        a = _sdpa_args(n)
        if a is None:
            continue
        with g.inserting_before(n):
            new = _sdpa_math(gm, a, f"_mote_causal_mask_{done}")
        mode = a["query"].meta["val"].fake_mode
        for node in g.nodes:
            if node.op == "call_function" and "val" not in node.meta:
                _fake_val(gm, node, mode)
        _replace(g, n, new)
        done += 1
    return _recompiled(gm, done)


def _einsum_plan(n: Node) -> Optional[dict]:
    """The letters of a two-operand einsum node `n` by role (batch: in both operands
    and the output; contracted: in both, not the output; fa / fb: in one operand
    and the output), with the operands' letters and the output's, when it is a
    batched matrix product (no repeated letter in an operand, no ellipsis, no
    letter summed out of one operand alone, known shapes); else None."""
    if n.op != "call_function" or n.target != aten.einsum.default or len(n.args) != 2:
        return None
    eq, ops = n.args[0], n.args[1]
    if not isinstance(eq, str) or "->" not in eq or "." in eq or len(ops) != 2 \
            or not all(isinstance(o, Node) and isinstance(o.meta.get("val"), torch.Tensor) for o in ops):
        return None
    lhs, out = eq.replace(" ", "").split("->")
    ins = lhs.split(",")
    if len(ins) != 2 or any(len(set(t)) != len(t) for t in ins + [out]) \
            or any(len(t) != o.meta["val"].dim() for t, o in zip(ins, ops)):
        return None
    a, b = ins
    if not set(out) <= set(a) | set(b) or not (set(a) ^ set(b)) <= set(out):
        return None
    return dict(a=a, b=b, out=out, batch=[c for c in out if c in a and c in b],
                contracted=[c for c in a if c in b and c not in out],
                fa=[c for c in out if c in a and c not in b], fb=[c for c in out if c in b and c not in a])


def _einsum_math(g, n: Node, plan: dict) -> list:
    """The nodes of einsum `n` as permute / reshape -> matmul(a [.., Fa, K], b [.., Fb, K]^T)
    -> reshape / permute (only where the layout needs one), at the insertion point."""
    sizes = {}
    for t, o in zip((plan["a"], plan["b"]), n.args[1]):
        sizes.update(zip(t, o.meta["val"].shape))
    batch, con = plan["batch"], plan["contracted"]
    new = []

    def call(target, args):
        new.append(g.call_function(target, args))
        return new[-1]

    def operand(x: Node, letters: str, free: list) -> Node:
        order = batch + free + con
        if list(letters) != order:
            x = call(aten.permute.default, (x, [letters.index(c) for c in order]))
        shape = [sizes[c] for c in batch] + [prod(sizes[c] for c in free), prod(sizes[c] for c in con)]
        if [sizes[c] for c in order] != shape:
            x = call(aten.reshape.default, (x, shape))
        return x
    xa = operand(n.args[1][0], plan["a"], plan["fa"])
    xb = call(aten.transpose.int, (operand(n.args[1][1], plan["b"], plan["fb"]), -2, -1))
    y = call(aten.matmul.default, (xa, xb))
    order = batch + plan["fa"] + plan["fb"]
    if len(plan["fa"]) != 1 or len(plan["fb"]) != 1:
        y = call(aten.reshape.default, (y, [sizes[c] for c in order]))
    if order != list(plan["out"]):
        y = call(aten.permute.default, (y, [order.index(c) for c in plan["out"]]))
    return new


def decompose_einsum(gm: GraphModule) -> int:
    """Rewrite every two-operand ``aten.einsum`` of `gm` that is a batched matrix
    product (attention's ``"bhid,bhjd->bhij"``, ``"bhij,bhjd->bhid"``: MaxViT) in
    place into permutes / reshapes around ``matmul`` (the int8 lowering's
    mote::bmm_s8, its second operand read transposed where it lies so); the
    others stay. Returns the number rewritten."""
    g = gm.graph
    done = 0
    for n in list(g.nodes):
        plan = _einsum_plan(n)
        if plan is None:
            continue
        with g.inserting_before(n):
            new = _einsum_math(g, n, plan)
        mode = n.args[1][0].meta["val"].fake_mode
        for node in new:
            _fake_val(gm, node, mode)
        _replace(g, n, new)
        done += 1
    return _recompiled(gm, done)


def _replace(g, n: Node, new: list) -> None:
    """Replace `n` by the last of the `new` nodes that compute it, each carrying n's
    source (aot.compiler.source.copy_source_meta), and erase it."""
    from aot.compiler.source import copy_source_meta
    for node in new:
        copy_source_meta(node, n)
    n.replace_all_uses_with(new[-1])
    g.erase_node(n)


def _recompiled(gm: GraphModule, done: int) -> int:
    """`done` after checking and recompiling `gm` when a rewrite changed it."""
    if done:
        gm.graph.lint()
        gm.recompile()
    return done


def _sdpa_args(n: Node) -> Optional[dict]:
    """The arguments of an SDPA node `n` by name (query, key, value, attn_mask,
    dropout_p, is_causal, scale) when decompose_sdpa rewrites it, else None."""
    if n.op != "call_function" or n.target != aten.scaled_dot_product_attention.default:
        return None
    names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")
    a = dict(zip(names, n.args))
    a.update({k: v for k, v in n.kwargs.items() if k in names})
    qv, kv = n.args[0].meta.get("val"), n.args[1].meta.get("val")
    if float(a.get("dropout_p", 0.0) or 0.0) != 0.0 or n.kwargs.get("enable_gqa", False) \
            or qv is None or kv is None or (a.get("attn_mask") is not None and a.get("is_causal", False)) \
            or qv.shape[:-2] != kv.shape[:-2]:
        return None
    return a


def _sdpa_math(gm: GraphModule, a: dict, mask_name: str) -> tuple:
    """The nodes (k^T, scores (scaled, masked), probabilities, output) of SDPA
    with arguments `a`, added at the graph's insertion point; a causal mask
    becomes the bool buffer `mask_name`."""
    g = gm.graph
    qv, kv, mask = a["query"].meta["val"], a["key"].meta["val"], a.get("attn_mask")
    scale = a.get("scale")
    scale = 1.0 / float(qv.shape[-1]) ** 0.5 if scale is None else float(scale)
    kt = g.call_function(aten.transpose.int, (a["key"], -2, -1))
    s = g.call_function(aten.matmul.default, (a["query"], kt))
    s = g.call_function(aten.mul.Tensor, (s, scale))
    if bool(a.get("is_causal", False)):
        lq, lk = int(qv.shape[-2]), int(kv.shape[-2])
        gm.register_buffer(mask_name, torch.ones(lq, lk, dtype=torch.bool).tril().logical_not())
        s = g.call_function(aten.masked_fill.Scalar, (s, g.get_attr(mask_name), float("-inf")))
    elif isinstance(mask, Node) and mask.meta.get("val") is not None and mask.meta["val"].dtype == torch.bool:
        keep_out = g.call_function(aten.logical_not.default, (mask,))
        s = g.call_function(aten.masked_fill.Scalar, (s, keep_out, float("-inf")))
    elif mask is not None:
        s = g.call_function(aten.add.Tensor, (s, mask))
    p = g.call_function(aten.softmax.int, (s, -1))
    return kt, s, p, g.call_function(aten.matmul.default, (p, a["value"]))


def _fake_val(gm: GraphModule, n: Node, mode) -> None:
    """meta["val"] of a node made by :func:`decompose_sdpa` / :func:`decompose_einsum`: its op run on the
    fake values of its inputs (constants converted to fakes of `mode`)."""
    def val(a):
        if not isinstance(a, Node):
            return a
        if a.op == "get_attr" and "val" not in a.meta:
            a.meta["val"] = mode.from_tensor(getattr(gm, a.target))
        return a.meta["val"]
    with mode:
        n.meta["val"] = n.target(*[val(a) for a in n.args])


def load_calibration(path: Union[str, Path], example_inputs: Sequence[torch.Tensor],
                     names: Optional[Sequence[str]] = None) -> list[tuple]:
    """Calibration samples from an ``.npz``: arrays ``arr_0, arr_1, ..``
    (``np.savez(f, x, y)``), or named like the model's inputs (``names``, e.g.
    the ``forward`` parameter names), or else in file order, feed the inputs. An array shaped
    like the example input is one sample; ``[S, *example_shape]`` is S samples.
    Returns a list of input tuples (float32 tensors). Raises ``ValueError`` on a
    count or shape mismatch (an :class:`aot.errors.InputError`, also a ValueError)."""
    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise InputError(f"--calib {path}: not an .npz archive (write one with np.savez(path, x0, ...))") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise InputError(f"--calib {path}: a single .npy array; give an .npz with one array per input")
    keys = list(data.files)
    if names and sorted(keys) == sorted(names):
        keys = list(names)  # arrays named like the forward() parameters
    elif all(k.startswith("arr_") and k[4:].isdigit() for k in keys):
        keys.sort(key=lambda k: int(k[4:]))
    arrays = [data[k] for k in keys]
    if len(arrays) != len(example_inputs):
        raise InputError(f"--calib {path}: {len(arrays)} arrays for {len(example_inputs)} model inputs "
                         "(one array per input: np.savez(f, x0, x1, ...))")
    per_input = []
    for a, ex in zip(arrays, example_inputs):
        shape = tuple(ex.shape)
        if tuple(a.shape) == shape:
            a = a[None]
        elif tuple(a.shape[1:]) != shape:
            raise InputError(f"--calib {path}: array shape {tuple(a.shape)} does not fit input {shape} "
                             f"(give {shape} for one sample or [S, *{shape}] for S samples)")
        per_input.append([torch.from_numpy(np.asarray(s, order="C")).to(ex.dtype) for s in a])
    counts = {len(p) for p in per_input}
    if len(counts) != 1:
        raise InputError(f"--calib {path}: the arrays hold different sample counts {sorted(counts)}")
    return [tuple(p[i] for p in per_input) for i in range(counts.pop())]


def _input_names(module) -> Optional[list]:
    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _samples(calibration, example_inputs, module=None) -> list[tuple]:
    if calibration is None:
        return [tuple(example_inputs)]
    if isinstance(calibration, (str, Path)):
        return load_calibration(calibration, example_inputs,
                                _input_names(module) if module is not None else None)
    out = []
    for s in calibration:
        out.append((s,) if isinstance(s, torch.Tensor) else tuple(s))
    if not out:
        raise ValueError("empty calibration set")
    for i, s in enumerate(out):  # the program's shapes are the example inputs': calibrate on those
        shapes = [tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__ for t in s]
        want = [tuple(t.shape) for t in example_inputs]
        if shapes != want:
            raise InputError(f"calibration_data() sample {i} has input shapes {shapes}; the example inputs "
                             f"have {want} (every sample is shaped like example_inputs())")
    return out


def quantize(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
             calibration: Union[None, str, Path, Iterable] = None,
             quantizer: Optional[Quantizer] = None):
    """Post-training int8 quantization with PT2E.

    module: eval-mode fp32 model; example_inputs: tuple of tensors; calibration:
    an iterable of input tuples (e.g. a model file's ``calibration_data()``),
    a path to an ``.npz`` (see :func:`load_calibration`), or None (calibrate on
    the example inputs). Returns ``(converted, info)``: the converted
    GraphModule (PT2E reference, q/dq + fp32 ops, weights folded to int8) and a
    dict ``{"calibration_samples": int}``.
    """
    initial = {name: b.detach().clone() for name, b in module.named_buffers()}
    quantizer = quantizer or MoteQuantizer()
    # int8 recurrent cells: MoteQuantizer's int8 post-training scheme (int16 activations keep
    # the layers whole, as QAT does)
    cells = isinstance(quantizer, MoteQuantizer) and not quantizer.int16_activations and not quantizer.qat
    gm = export_for_quantization(module, example_inputs, recurrent=cells)
    prepared = prepare_pt2e(gm, quantizer)
    samples = _samples(calibration, example_inputs, module)
    from aot.progress import iterate
    with torch.no_grad():
        for s in iterate(samples, "calibrate", unit="sample"):  # in order: a stateful model sees one stream
            prepared(*s)
    converted = convert_pt2e(prepared)
    # calibration ran forward, which updated the mutable buffers (the exported
    # graphs share the module's tensors): back to the values the model starts from
    with torch.no_grad():
        for m in (module, converted):
            for name, b in m.named_buffers():
                if name in initial and b.shape == initial[name].shape:
                    b.copy_(initial[name])
        # an int8 state starts from its initial value on the int8 grid, as the program's does
        for name, (scale, zp) in int8_state_qparams(converted).items():
            b = converted.get_buffer(name)
            b.copy_(torch.ops.quantized_decomposed.dequantize_per_tensor(
                torch.ops.quantized_decomposed.quantize_per_tensor(b, scale, zp, -128, 127, torch.int8),
                scale, zp, -128, 127, torch.int8))
    return converted, {"calibration_samples": len(samples)}

def prepare_qat(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor]) -> GraphModule:
    """QAT: export the (train-mode) module and insert fake-quantize modules
    (``prepare_qat_pt2e`` with ``MoteQuantizer(qat=True)``). Train the returned
    GraphModule, then call ``torchao...convert_pt2e`` on it (or pass it to
    ``aot.compiler.quant.lowering.lower_int8`` after conversion)."""
    gm = export_for_quantization(module, example_inputs, recurrent=False)
    return prepare_qat_pt2e(gm, MoteQuantizer(qat=True))


def _load_model_file(path: Union[str, Path]):
    spec = importlib.util.spec_from_file_location(Path(path).stem, str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m aot.compiler.quantize", description=__doc__.split("\n")[0])
    p.add_argument("model", help="model file with model(), example_inputs()")
    p.add_argument("--calib", help="calibration inputs (.npz); default calibration_data()")
    a = p.parse_args(argv)
    mf = _load_model_file(a.model)
    m, ex = mf.model(), tuple(mf.example_inputs())
    calib = a.calib or (mf.calibration_data() if hasattr(mf, "calibration_data") else None)
    q, info = quantize(m, ex, calib)
    samples = _samples(calib, ex, m)
    worst = 0.0
    with torch.no_grad():
        for s in samples:
            ref = m(*s)
            worst = max(worst, float((q(*s) - ref).abs().max() / (ref.abs().max() + 1e-12)))
    print(f"calibrated on {info['calibration_samples']} samples; "
          f"max |int8 - fp32| / max|fp32| = {worst:.4f}")
    return 0
