"""Load a model file: a ``.py`` in the zoo convention or a ``.pt2`` archive.

A ``.py`` model file defines ``model()`` (returns an eval-mode ``nn.Module``),
``example_inputs()`` (returns a tuple of tensors) and optionally
``calibration_data()`` (a list of input tuples, for --int8). Each may also be
the value itself: ``model = M()`` (an nn.Module instance), ``example_inputs =
(torch.randn(1, 8),)``, ``calibration_data = [...]`` (see :func:`_value`). A program with
several methods comes from ``methods()`` instead: ``{name: (module,
example_inputs)}`` whose modules share parameters and buffers (``prefill``
and ``decode`` over one transformer, ``forward`` and ``reset``); the first
method is the default one. A ``.pt2`` is an
``ExportedProgram`` saved with ``torch.export.save``; its example inputs come
from the archive (or, when absent, zeros shaped like its input placeholders).
"""
from __future__ import annotations

import importlib.util
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import torch

from aot.compiler.model_path import model_path
from aot.errors import ModelFileError


@dataclass
class ModelFile:
    """A loaded model file. Exactly one of ``module`` / ``exported`` is set.

    example_inputs: tuple of tensors; calibration_data: list of input tuples
    or None; path: the file it came from; methods: name -> (module,
    example_inputs) for a file with ``methods()`` (then module and
    example_inputs are the first method's), else None.
    """
    path: Path
    example_inputs: tuple
    module: Optional[torch.nn.Module] = None
    exported: Optional[torch.export.ExportedProgram] = None
    calibration_data: Optional[list] = None
    methods: Optional[dict] = None


class BoundMethod(torch.nn.Module):
    """``module.<name>`` as an nn.Module's forward, for a model file's
    methods(): ``{"decode": (BoundMethod(lm, "decode"), inputs)}``. The
    wrapped module (and so its parameters and buffers) is shared, not copied."""

    def __init__(self, module: torch.nn.Module, name: str):
        super().__init__()
        self.module, self.name = module, name

    def forward(self, *args):
        return getattr(self.module, self.name)(*args)


def load_model_file(path) -> ModelFile:
    """Load ``path`` (.py or .pt2). Raises ModelFileError (missing file, wrong
    suffix, missing/invalid ``model()`` or ``example_inputs()``)."""
    p = model_path(path)
    return _load_py(p) if p.suffix == ".py" else _load_pt2(p)


def _where(exc: BaseException, p: Path) -> str:
    """"model.py:LINE": the deepest line of model file `p` on `exc`'s traceback ("model.py" when none is)."""
    import traceback
    frames = [fr for fr in traceback.extract_tb(exc.__traceback__) if Path(fr.filename) == p]
    return f"{p.name}:{frames[-1].lineno}" if frames else p.name


def _import_file(p: Path):
    # A zoo-style file imports its siblings as a package ("from zoo._common import"),
    # so the folder above the outermost package must be importable too.
    roots = [p.parent]
    d = p.parent
    while (d / "__init__.py").is_file():
        d = d.parent
        roots.append(d)
    for r in roots:
        if str(r) not in sys.path:
            sys.path.insert(0, str(r))
    name = f"_mote_model_{abs(hash(str(p)))}"
    spec = importlib.util.spec_from_file_location(name, p)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except SyntaxError as e:   # file:line:column as a compiler says it, not the exception's repr
        raise ModelFileError(f"{p.name}:{e.lineno}:{e.offset or 0}: {e.msg} (importing the model file)") from e
    except Exception as e:  # the user's code failed: say which file and line
        raise ModelFileError(f"{_where(e, p)}: importing the model file failed: {e!r}") from e
    return mod


def _call(mod, p: Path, fn: str):
    """mod.fn(); an exception in the user's code becomes one ModelFileError
    naming the function and the deepest line of the model file it passed."""
    f = getattr(mod, fn, None)
    if not callable(f):
        raise ModelFileError(f"{p.name}: no function {fn}() defined")
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the user's code failed: say where
        raise ModelFileError(f"{_where(e, p)}: {fn}() failed: {type(e).__name__}: {e}") from e


def _value(mod, p: Path, name: str):
    """The model file's `name`: the value itself when the file binds it to one
    (``model = M()``: an nn.Module instance, which is callable but is no factory;
    ``example_inputs = (x,)``; ``calibration_data = [...]``), else what calling the
    function returns (:func:`_call`)."""
    v = getattr(mod, name, None)
    if isinstance(v, torch.nn.Module) or (name != "model" and isinstance(v, (tuple, list, torch.Tensor))):
        return v
    return _call(mod, p, name)


def _inputs_tuple(inputs, p: Path, what: str) -> tuple:
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise ModelFileError(f"{p.name}: {what} must be a tuple of tensors")
    return tuple(inputs)


def _eval(module, p: Path, what: str):
    if not isinstance(module, torch.nn.Module):
        raise ModelFileError(f"{p.name}: {what} is {type(module).__name__}, not an nn.Module")
    if module.training:
        warnings.warn(f"{p.name}: {what} is a module in training mode; calling .eval()")
        module.eval()
    return module


def _refuse_float64(module, inputs, p: Path) -> None:
    """ModelFileError naming the first float64 parameter, buffer or example input: Mote's
    floating-point kernels compute in float32 (a double model would fail at its first
    kernel with a dtype code that names no dtype)."""
    named = [(f"example input {i}", t) for i, t in enumerate(inputs)]
    named += [(f"parameter {n}", t) for n, t in module.named_parameters()]
    named += [(f"buffer {n}", t) for n, t in module.named_buffers()]
    for what, t in named:
        if t.dtype == torch.float64:
            raise ModelFileError(f"{p.name}: {what} is torch.float64; Mote compiles float32 models: "
                                 "call .float() on the model and its example inputs")


def _load_methods(mod, p: Path) -> ModelFile:
    got = _call(mod, p, "methods")
    if not isinstance(got, dict) or not got:
        raise ModelFileError(f"{p.name}: methods() must return a non-empty dict {{name: (module, example_inputs)}}")
    methods = {}
    for name, entry in got.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ModelFileError(f"{p.name}: methods(): method name {name!r} is not an identifier")
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise ModelFileError(f"{p.name}: methods()[{name!r}] must be (module, example_inputs)")
        methods[name] = (_eval(entry[0], p, f"methods()[{name!r}][0]"),
                         _inputs_tuple(entry[1], p, f"methods()[{name!r}][1]"))
    first_module, first_inputs = next(iter(methods.values()))
    return ModelFile(path=p, example_inputs=first_inputs, module=first_module, methods=methods)


def _load_py(p: Path) -> ModelFile:
    mod = _import_file(p)
    if callable(getattr(mod, "methods", None)):
        return _load_methods(mod, p)
    module = _value(mod, p, "model")
    if not isinstance(module, torch.nn.Module):
        raise ModelFileError(f"{p.name}: model() returned {type(module).__name__}, not an nn.Module")
    if module.training:
        warnings.warn(f"{p.name}: the model is a module in training mode; calling .eval()")
        module.eval()
    inputs = _value(mod, p, "example_inputs")
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise ModelFileError(f"{p.name}: example_inputs must be a tuple of tensors (or a function returning one)")
    _refuse_float64(module, inputs, p)
    calib = None
    if getattr(mod, "calibration_data", None) is not None:
        calib = [tuple(c) if isinstance(c, (tuple, list)) else (c,) for c in _value(mod, p, "calibration_data")]
    return ModelFile(path=p, example_inputs=tuple(inputs), module=module, calibration_data=calib)


def _load_pt2(p: Path) -> ModelFile:
    try:
        ep = torch.export.load(str(p))
    except Exception as e:
        raise ModelFileError(f"{p.name}: torch.export.load failed: {e!r}") from e
    return ModelFile(path=p, example_inputs=example_inputs_of(ep), exported=ep)


def example_inputs_of(ep: torch.export.ExportedProgram) -> tuple:
    """Example inputs of an ExportedProgram: the ones stored with it, else zeros
    shaped like the user-input placeholders' fake tensors."""
    stored = getattr(ep, "example_inputs", None)
    if stored is not None:
        args, kwargs = stored
        if not kwargs:
            return tuple(args)
    users = [s.arg.name for s in ep.graph_signature.input_specs
             if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    by_name = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    out = []
    for name in users:
        val = by_name[name].meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise ModelFileError(f"input {name} is not a tensor")
        out.append(torch.zeros([int(s) for s in val.shape], dtype=val.dtype))
    return tuple(out)
