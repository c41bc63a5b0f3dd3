"""Run a zoo model's ExecuTorch (portable, out-variant) program on Mote's kernels.

`ZooProgram(name)` exports zoo/<name>.py with torch.export -> to_edge ->
to_executorch (executorch is a test oracle here), walks the resulting graph
and prepares one kernel call per operator node with the exact argument list
ExecuTorch's runtime would pass (schema order, out tensors last). `run()`
executes the calls in order and returns the model outputs.
"""
from __future__ import annotations

import importlib
import time

import torch

from tests.kernels.kernels_ffi import DTYPE, Kernels

_MEMFMT = {torch.contiguous_format: 0, torch.preserve_format: 1}


def _empty_like_meta(val):
    if isinstance(val, (list, tuple)):
        return [_empty_like_meta(v) for v in val]
    return torch.empty(tuple(val.shape), dtype=val.dtype)


class ZooProgram:
    def __init__(self, K: Kernels, name: str):
        from executorch.exir import to_edge
        from executorch.exir import memory as et_memory

        mod = importlib.import_module(f"zoo.{name}")
        self.model = mod.model()
        self.inputs = tuple(t.clone() for t in mod.example_inputs())
        ep = torch.export.export(self.model, self.inputs)
        prog = to_edge(ep).to_executorch().exported_program()
        gm = prog.graph_module
        consts = dict(prog.state_dict)
        consts.update(prog.constants)
        specs = prog.graph_signature.input_specs
        env: dict = {}
        user = iter(self.inputs)
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        for node, spec in zip(placeholders, specs):
            if spec.target is not None and spec.target in consts:
                env[node] = consts[spec.target].detach().contiguous().clone()
            else:
                env[node] = next(user)
        self.calls = []
        self.ops = []
        for node in gm.graph.nodes:
            if node.op != "call_function":
                if node.op == "output":
                    self.outputs = [env[a] for a in node.args[0]]
                continue
            tgt = node.target
            if tgt is et_memory.alloc:
                env[node] = _empty_like_meta(node.meta["val"])
            elif tgt is et_memory.view:
                env[node] = env[node.args[0]].view(tuple(node.args[1]))
            elif getattr(tgt, "__name__", "") == "getitem":
                env[node] = env[node.args[0]][node.args[1]]
            elif hasattr(tgt, "_schema"):
                schema = tgt._schema
                args = []
                for i, a in enumerate(schema.arguments):
                    if a.name in node.kwargs:
                        v = node.kwargs[a.name]
                    elif i < len(node.args) and not a.kwarg_only:
                        v = node.args[i]
                    else:
                        v = a.default_value
                    args.append(self._conv(v, env))
                opname = f"{schema.name}.{schema.overload_name}"
                self.ops.append(opname)
                self.calls.append((opname, K.prepare(opname, *args)))
                outs = [env[node.kwargs[a.name]] for a in schema.arguments if a.is_out]
                env[node] = outs[0] if len(outs) == 1 else tuple(outs)
            else:
                raise NotImplementedError(f"graph node {tgt}")

    @staticmethod
    def _conv(v, env):
        if isinstance(v, torch.fx.Node):
            return env[v]
        if isinstance(v, (list, tuple)):
            return [ZooProgram._conv(x, env) for x in v]
        if isinstance(v, torch.dtype):
            return DTYPE[v]
        if isinstance(v, torch.memory_format):
            return _MEMFMT[v]
        return v

    def run(self):
        for name, fn in self.calls:
            rc = fn()
            if rc != 0:
                raise RuntimeError(f"{name} returned {rc}")
        return self.outputs

    def time_us(self, reps: int = 20) -> float:
        """Median wall time of one inference (kernel calls through ctypes), microseconds."""
        self.run()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            self.run()
            ts.append(time.perf_counter() - t0)
        ts.sort()
        return ts[len(ts) // 2] * 1e6
