"""Where a graph node came from in the user's model: the one home of the rule
that turns torch.export's node metadata into "file.py:LINE" and a module path,
for unsupported-op errors, int8 fallback warnings and the program's stack traces."""
from __future__ import annotations

import os
import re
from typing import Optional

import torch

_TORCH_DIR = os.path.dirname(torch.__file__)
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def source_location(node: torch.fx.Node) -> Optional[tuple]:
    """(path, line) of the model code behind ``node``: the innermost frame of
    its stack trace outside torch (the innermost frame when all are inside
    torch, e.g. a plain nn.Sequential). None when unknown."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    if not frames:
        return None
    user = [f for f in frames if not f[0].startswith(_TORCH_DIR)]
    path, line = (user or frames)[-1]
    return path, int(line)


def raised_at(exc: BaseException) -> str:
    """"file.py:LINE" of the innermost frame of `exc`'s traceback (and of the exceptions
    it was raised from) in the user's code: outside torch, the installed packages and
    aot itself; "" when there is none (the error is torch's own)."""
    aot_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found, seen = "", set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            path = tb.tb_frame.f_code.co_filename
            if not (path.startswith((_TORCH_DIR, aot_dir, "<")) or "site-packages" in path
                    or path.startswith(os.path.dirname(os.__file__))):
                found = f"{os.path.basename(path)}:{tb.tb_lineno}"
            tb = tb.tb_next
        if found:
            return found
        exc = exc.__cause__ or exc.__context__
    return found


def failing_node(exc: BaseException) -> Optional[torch.fx.Node]:
    """The graph node a compiler pass was working on when `exc` was raised: the
    innermost frame of its traceback (and of the exceptions it came from) with a
    local ``n`` or ``node`` that is an FX node, the names every pass here uses for
    the node it visits; None when there is none."""
    found, seen = None, set()
    while exc is not None and id(exc) not in seen and found is None:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            for name in ("n", "node"):
                v = tb.tb_frame.f_locals.get(name)
                if isinstance(v, torch.fx.Node):
                    found = v
                    break
            tb = tb.tb_next
        exc = exc.__cause__ or exc.__context__
    return found


def op_name(node: torch.fx.Node) -> str:
    """"aten.view.default" for a call_function node (its target's name), else the node's op."""
    if node.op != "call_function":
        return node.op
    t = node.target
    return str(t) if isinstance(t, torch._ops.OpOverload) else getattr(t, "__name__", str(t))


def source_of(node: torch.fx.Node) -> str:
    """"file.py:LINE" of :func:`source_location`, "" when unknown."""
    loc = source_location(node)
    return f"{os.path.basename(loc[0])}:{loc[1]}" if loc else ""


def module_path(node: torch.fx.Node) -> str:
    """The path of the innermost nn.Module that produced ``node`` ("features.3"), or ""."""
    stack = node.meta.get("nn_module_stack") or {}
    return str(list(stack.values())[-1][0]) if stack else ""


def module_of(node: torch.fx.Node) -> str:
    """"module 'path' (Class)" of the innermost nn.Module that produced ``node``, or ""."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    path, cls = list(stack.values())[-1]
    cls = cls.__name__ if isinstance(cls, type) else str(cls).rsplit(".", 1)[-1]
    return f"module '{path}' ({cls})" if path else ""


#: key in node.meta["custom"] (the meta torch.export carries through a
#: re-export): names of the FX nodes of the user's exported (or PT2E
#: converted) graph that a node computes after fusions, in graph order
#: node meta keys that say where an op came from in the model (its stack trace, module,
#: source function): a node a pass creates in place of another carries them
SOURCE_META_KEYS = ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node")


def copy_source_meta(dst: torch.fx.Node, src: torch.fx.Node) -> None:
    """Give `dst` the SOURCE_META_KEYS `src` has (aot debug, profile and errors then
    name the model line of the op `dst` replaces)."""
    for k in SOURCE_META_KEYS:
        if k in src.meta:
            dst.meta[k] = src.meta[k]


FUSED_KEY = "mote_fused"
#: key in node.meta["custom"]: (quantize node name, perm) of an int8 value
#: (physical = logical.permute(perm))
QUANT_KEY = "mote_q"
#: key in node.meta["custom"]: the real-valued quantization of a mote:: int8
#: op (:func:`set_qparams`), for backends that requantize themselves
QPARAMS_KEY = "mote_qparams"


def _custom(node: torch.fx.Node) -> dict:
    return node.meta.get("custom") or {}


def fused_nodes(node: torch.fx.Node) -> list:
    """Names of the graph nodes ``node`` stands for: its own name unless a
    pass fused others into it (a folded conv + batch norm, an int8 conv's
    weight, bias, conv, activation and requantize)."""
    return list(_custom(node).get(FUSED_KEY) or [node.name])


def set_fused(node: torch.fx.Node, names) -> None:
    """Records that ``node`` computes the nodes ``names``."""
    node.meta["custom"] = {**_custom(node), FUSED_KEY: list(names)}


def mark_fused(node: torch.fx.Node, names) -> None:
    """Records that ``node`` now also computes the nodes ``names`` (appended,
    without repeats)."""
    have = fused_nodes(node)
    set_fused(node, have + [n for n in names if n not in have])


def quant_of(node: torch.fx.Node):
    """(quantize node name, perm) recorded for an int8 value, or None."""
    q = _custom(node).get(QUANT_KEY)
    return None if q is None else (q[0], tuple(q[1]))


def set_quant(node: torch.fx.Node, qname: str, perm) -> None:
    node.meta["custom"] = {**_custom(node), QUANT_KEY: (qname, tuple(int(d) for d in perm))}


def set_qparams(node: torch.fx.Node, inputs, output, weight_scales=None) -> None:
    """Records the PT2E quantization a mote:: int8 op's integer arguments were
    derived from: ``inputs`` [(scale, zero point)] per activation input,
    ``output`` (scale, zero point), ``weight_scales`` [Cout] (symmetric
    per-channel weights, zero point 0) or None. The kernels use the fixed-point
    multipliers; a delegate that requantizes in float (XNNPACK) needs these."""
    qp = {"inputs": [[float(s), int(z)] for s, z in inputs], "output": [float(output[0]), int(output[1])]}
    if weight_scales is not None:
        qp["weight_scales"] = [float(w) for w in weight_scales]
    node.meta["custom"] = {**_custom(node), QPARAMS_KEY: qp}


def qparams_of(node: torch.fx.Node):
    """The dict :func:`set_qparams` recorded on ``node``, or None."""
    return _custom(node).get(QPARAMS_KEY)
