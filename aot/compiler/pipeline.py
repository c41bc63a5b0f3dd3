"""One call from a model file to a planned program: load → (quantize) → lower → emit.

This is the stage every command shares (`aot export`, `compare`, `build`).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import torch

from aot import ir
from aot.compiler.recipe import Recipe, delegate_refusal
from aot.errors import MoteError


@dataclass
class MethodProgram:
    """One method of a compiled program: its name, planned spec, example
    inputs (tuple of tensors) and the eager callable it must match."""
    name: str
    spec: ir.ProgramSpec
    example_inputs: tuple
    eager: Callable


@dataclass
class Compiled:
    """A compiled model.

    spec: the planned program; pte: its bytes; module: the eager fp32 model
    (None for a .pt2 file, whose ExportedProgram runs instead); reference:
    callable on input tensors giving the outputs the device should match
    (eager fp32, or for --int8 the PT2E reference: convert_pt2e's module);
    example_inputs: tuple of tensors; manifest: the ops.json dict; program:
    the Core ATen ExportedProgram that was lowered (for int8, with Mote's
    int8 operators), whose nodes the debug record names (aot debug).
    """
    name: str
    spec: ir.ProgramSpec
    pte: bytes
    example_inputs: tuple
    eager: Callable
    reference: Callable
    int8: bool = False
    #: --int16-activations (int8 is then True too): conv / linear in mote::*_s16
    int16: bool = False
    int8_info: object = None
    calibration_data: Optional[list] = None
    manifest: dict = field(default_factory=dict)
    seconds: float = 0.0
    program: object = None
    #: every method of the program, in its order (one: the model's forward);
    #: spec, example_inputs, eager and method_name describe the selected one
    methods: list = field(default_factory=list)
    method_name: str = "forward"
    #: --int4-weights: the Int4Report, and the fp32 model before quantization
    #: (eager is then the int4 model the program implements)
    int4: object = None
    fp32_eager: Optional[Callable] = None
    #: --external-weights: the NamedTensors the program refers to, and the .ptd bytes that hold them
    external: list = field(default_factory=list)
    ptd: Optional[bytes] = None
    #: the options it was compiled with (aot.compiler.recipe.Recipe)
    recipe: Recipe = field(default_factory=Recipe)

    def for_method(self, name: str) -> "Compiled":
        """This program with method `name` selected (what aot run/compare
        --method NAME run). Raises MoteError naming the methods there are."""
        import dataclasses
        from aot.compiler.manifest import manifest_for_method
        for m in self.methods:
            if m.name == name:
                return dataclasses.replace(self, spec=m.spec, example_inputs=m.example_inputs, eager=m.eager,
                                           reference=m.eager if not self.int8 else self.reference,
                                           method_name=name, manifest=manifest_for_method(self.manifest, m.spec))
        raise MoteError(f"no method {name!r} in {self.name}; it has: {', '.join(m.name for m in self.methods)}")

    @property
    def arena_bytes(self) -> int:
        return int(sum(self.spec.arena_sizes))

    @property
    def op_names(self) -> list:
        """Every operator ("ns::name.overload") the program's methods call, sorted:
        the kernels a build links."""
        specs = [m.spec for m in self.methods] or [self.spec]
        return sorted({f"{c.op}.{c.overload}" for sp in specs for c in ir.kernel_calls(sp)})

    @property
    def mutable_bytes(self) -> int:
        """Bytes of the mutable buffers' arena (memory id 2; part of arena_bytes)."""
        return int(self.spec.plan_info.get("mutable_bytes", 0))

    @property
    def arena_lower_bound_bytes(self) -> int:
        return int(self.spec.plan_info.get("arena_lower_bound_bytes", 0))

    @property
    def delegation(self) -> dict:
        """--delegate: aot.compiler.partition.delegate's report ({} without)."""
        return dict((self.spec.plan_info or {}).get("delegation") or {})

    def summary(self) -> str:
        ops = sorted({f"{c.op}.{c.overload}" for c in ir.kernel_calls(self.spec)})
        return (f"{self.name}: {len(self.spec.instructions)} instructions, {len(ops)} operator{'' if len(ops) == 1 else 's'}, "
                f".pte {len(self.pte):,} B, arena {self.arena_bytes:,} B "
                f"(tensor-level lower bound {self.arena_lower_bound_bytes:,} B"
                + ("; in-place reuse plans below it" if self.arena_bytes < self.arena_lower_bound_bytes else "")
                + ")" + (f" of which {self.mutable_bytes:,} B mutable buffers (state kept across calls)"
                         if self.mutable_bytes else "")
                + f", compiled in {self.seconds:.1f} s"
                + (("\n" + self.delegation_report()) if self.delegation else "")
                + (("\n" + self.int4.summary()) if self.int4 is not None else "")
                + (("\n" + self.int8_report()) if self.int8 else ""))

    def delegation_report(self) -> str:
        """--delegate: the backend's share of the operators and MACs, then each
        operator it did not take with its model file:line and why."""
        from aot.compiler.partition import report_lines
        return "\n".join(report_lines(self.delegation))

    def int8_report(self) -> str:
        """The --int8 / --int16-activations report (aot.compiler.quant.report.int8_report)."""
        from aot.compiler.quant.report import int8_report
        return int8_report(self.spec, self.int8_info, int16=self.int16)


def outputs_tuple(out) -> tuple:
    """A model's return value as a tuple of tensors."""
    if isinstance(out, torch.Tensor):
        return (out,)
    return tuple(out)


def recipe_of(recipe=None, **options) -> Recipe:
    """`recipe` (a Recipe, or None: the default one) with `options` (Recipe field names,
    e.g. ``int8=True``) applied: the keyword arguments the compile functions accept."""
    if recipe is None:
        return Recipe(**options)
    return recipe.replace(**options) if options else recipe


def compile_model_file(path, recipe: Optional[Recipe] = None, *, out_pte=None, **options) -> Compiled:
    """Compile the model file at `path` (.py or .pt2) as `recipe` says
    (aot.compiler.recipe.Recipe: quantization, int4 weights, pre-widened DSP weights,
    external weights, delegate, planner). `options`: Recipe fields given as keywords
    (``compile_model_file(path, int8=True)``), on top of `recipe`.

    With external weights the constants go to a .ptd (Compiled.ptd) and the program
    names them by key; a .ptd path's existing tensors are kept (merged), and the file
    is written with out_pte. With a delegate, Compiled.delegation reports what was
    delegated and what fell back.
    out_pte: if given, writes the .pte there atomically plus its ops.json
    (see :func:`manifest_path`).
    Raises aot.errors.MoteError subclasses (bad options, bad model file, unsupported op
    with its source line, planning failure); nothing is written on error.
    """
    from aot.compiler.model_file import load_model_file
    recipe = recipe_of(recipe, **options)
    calib, external_weights = recipe.calib, recipe.external_weights
    if calib and not Path(calib).is_file():
        raise MoteError(f"--calib {calib}: no such file")
    t0 = time.time()
    mf = load_model_file(path)
    name = Path(path).stem if Path(path).stem != "model" else Path(path).resolve().parent.name
    fp32, report = None, None
    if recipe.weight_only_int4:  # weight-only int4; with --int8: int4 x int8 linears
        mf, fp32, report = _int4_model_file(mf, recipe.int4_weights)
    if mf.module is not None:
        eager = mf.module
    else:
        eager = mf.exported.module()
    base_ptd = None
    if isinstance(external_weights, (str, Path)) and Path(external_weights).is_file():
        base_ptd = Path(external_weights).read_bytes()
        from aot.errors import FlatbufferError
        from aot.pte.flat_tensor import read_ptd
        try:                        # merged into: it must be a .ptd (checked before the compile)
            read_ptd(base_ptd)
        except FlatbufferError as e:
            raise MoteError(f"--external-weights {external_weights}: {e}") from None
    compiled = _compile(name, eager, mf, recipe, calib if calib else mf.calibration_data, base_ptd=base_ptd)
    compiled.int4, compiled.fp32_eager, compiled.recipe = report, fp32, recipe
    compiled.seconds = time.time() - t0
    if out_pte is not None:
        write_outputs(compiled, Path(out_pte),
                      Path(external_weights) if isinstance(external_weights, (str, Path)) else None)
    return compiled


def _int4_model_file(mf, group_size: int) -> tuple:
    """(a copy of model file `mf` whose modules have int4 weights, the fp32
    eager model, the Int4Report). The copy keeps what the methods share."""
    import copy
    import dataclasses
    from aot.compiler.quant.weights4 import apply_int4_weights
    if mf.module is None:
        raise MoteError("--int4-weights needs a .py model file (a .pt2's weights are already fixed)")
    if mf.methods is not None:
        copies = copy.deepcopy({n: mod for n, (mod, _) in mf.methods.items()})  # one memo: sharing kept
        report = apply_int4_weights(list(copies.values()), group_size)
        methods = {n: (copies[n], inputs) for n, (_, inputs) in mf.methods.items()}
        first = next(iter(methods.values()))[0]
        return dataclasses.replace(mf, module=first, methods=methods), mf.module, report
    module = copy.deepcopy(mf.module)
    report = apply_int4_weights(module, group_size)
    return dataclasses.replace(mf, module=module), mf.module, report


def compile_module(name: str, module: torch.nn.Module, example_inputs, recipe: Optional[Recipe] = None, *,
                   calibration=None, **options) -> Compiled:
    """As compile_model_file for an in-memory eval-mode module (calibration: a list
    of input tuples for a quantizing recipe)."""
    from aot.compiler.model_file import ModelFile
    t0 = time.time()
    recipe = recipe_of(recipe, **options)
    mf = ModelFile(path=Path(name), example_inputs=tuple(example_inputs), module=module,
                   calibration_data=calibration)
    fp32, report = None, None
    if recipe.weight_only_int4:
        mf, fp32, report = _int4_model_file(mf, recipe.int4_weights)
        module = mf.module
    c = _compile(name, module, mf, recipe, calibration)
    c.int4, c.fp32_eager, c.recipe = report, fp32, recipe
    c.seconds = time.time() - t0
    return c


def _ptd_of(external: list, base: Optional[bytes]) -> bytes:
    """.ptd bytes holding `base`'s tensors (a .ptd, or None) and `external`'s new ones, in the byte
    order of their keys: the runtime then finds each by binary search (mote/data_map.h)."""
    from aot.pte.flat_tensor import read_ptd, write_ptd
    tensors = dict(read_ptd(base)) if base else {}
    for t in external:
        tensors.setdefault(t.key, t)
    return write_ptd(sorted(tensors.values(), key=lambda t: t.key.encode()))


def _compile(name, eager, mf, recipe: Recipe, calibration, base_ptd: Optional[bytes] = None) -> Compiled:
    """The compile of model file `mf` (eager: the module it runs) as `recipe` says;
    calibration: the int8 calibration inputs (None: the example inputs alone);
    base_ptd: the bytes of the .ptd the external weights are merged into. A progress
    bar (aot.progress) names the stage on a terminal."""
    import warnings
    from aot.progress import stages
    first = "quantize" if recipe.quantized else "export"
    # warnings (int8 fallbacks, calibration) are held until the compile succeeds: a failed
    # compile is its one error line, not warnings about ops of a program that is not written
    with warnings.catch_warnings(record=True) as held:
        warnings.simplefilter("default")  # as the command line shows them: once per location
        with stages(f"compile {name}", [first, "lower", "emit", "check"]) as st:
            try:
                compiled = _compile_stages(name, eager, mf, recipe, calibration, base_ptd, st)
            except MoteError:
                raise
            except Exception as e:  # noqa: BLE001 - torch's or the compiler's own: one line, not a traceback
                raise compile_error(e, st.current) from e
    for w in held:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return compiled


def compile_error(exc: BaseException, stage: str) -> "CompileError":
    """One CompileError line for an exception that is not a MoteError raised while
    compiling: the stage, the graph node's operator and model file:line (the node the
    failing pass was visiting, aot.compiler.source.failing_node), else the innermost
    line of the model's code on the traceback, then the exception's first line."""
    from aot.compiler.source import failing_node, op_name, raised_at, source_of
    from aot.errors import CompileError
    node = failing_node(exc)
    where = source_of(node) if node is not None else ""
    where = where or raised_at(exc)
    what = f" on {op_name(node)}" if node is not None else ""
    first = (str(exc).strip().splitlines() or [""])[0]
    return CompileError(f"{stage} failed{what}{f' at {where}' if where else ''}: {type(exc).__name__}: {first} "
                        "(aot -v shows the traceback)")


def _compile_stages(name, eager, mf, recipe: Recipe, calibration, base_ptd, st) -> Compiled:
    """_compile's work; st: its aot.progress.Stages."""
    from aot.compiler.accept import check_kernels_accept
    from aot.compiler.emit import build_program
    from aot.compiler.lower import core_program, lower_core
    from aot.compiler.manifest import build_manifest
    example_inputs = tuple(mf.example_inputs)
    int8, int8_io, planner, delegate = recipe.quantized, recipe.int8_io, recipe.planner, recipe.delegate
    external = recipe.external_weights is not None
    if delegate is not None and mf.methods is not None and len(mf.methods) > 1:
        raise MoteError(delegate_refusal(delegate))
    if mf.methods is not None and len(mf.methods) > 1:
        return _compile_methods(name, mf, recipe, base_ptd)
    if int8:
        if mf.module is None:
            raise MoteError("--int8 needs a .py model file (a .pt2 cannot be re-quantized)")
        from aot.compiler.quant.lowering import quantized_program
        from aot.compiler.scratch import scratch_bytes  # int8 kernels' scratch, planned in the arena
        st.enter("quantize")
        ep, info, reference = quantized_program(mf.module, example_inputs, calibration, mf.path,
                                                int8_io=int8_io, int4_linear=recipe.int4_linear,
                                                int16=recipe.int16_activations)
        from aot.compiler.dsp_weights import add_dsp_weights
        core = core_program(ep)
        passes, delegation = _delegation(delegate)
        from aot.compiler.layout import PLANES_GROWTH, layout_pass, planes4_pass
        # --opt size keeps each linear layer's table alone (weights read in place), not its int16 panel
        linear = "table" if recipe.opt == "size" else "panel"
        later = ((lambda sp: add_dsp_weights(sp, linear=linear)),) if recipe.dsp_weights else \
            ((lambda sp: add_dsp_weights(sp, linear="table", conv=False)),) if recipe.linear_tables else ()
        # DSP boards: depthwise calls' scratch for four (or two) int16 planes where the arena
        # grows by at most PLANES_GROWTH at --opt speed, not at all at --opt size
        growth = PLANES_GROWTH if recipe.opt == "speed" else 0.0
        planes4 = (planes4_pass(scratch_fn=scratch_bytes, planner=planner, growth=growth),) \
            if recipe.dsp_weights else ()
        # streaming windows updated in place (mote::window_push); an fp32 program keeps
        # cat + slice + copy_, ExecuTorch's portable ops, so ExecuTorch runs it too
        from aot.compiler.windows import fuse_windows
        st.enter("lower")
        spec = lower_core(core, planner=planner, scratch_fn=scratch_bytes,
                          spec_passes=(fuse_windows,) + passes + (layout_pass(recipe.layout, scratch_fn=scratch_bytes, planner=planner,
                                                            then=later, dsp_weights=recipe.dsp_weights),) + later
                          + planes4)
    else:
        info = None
        reference = eager
        st.enter("export")
        core = core_program(mf.exported if mf.exported is not None else mf.module, example_inputs)
        passes, delegation = _delegation(delegate)
        st.enter("lower")
        spec = lower_core(core, planner=planner, spec_passes=passes)
    if delegation:
        spec.plan_info["delegation"] = delegation
    if mf.methods is not None:  # methods() with one method: its name
        spec.method_name = next(iter(mf.methods))
    st.enter("emit")
    program = build_program(spec, external=external)  # the one serialisation of this compile
    ptd = _ptd_of(program.external, base_ptd) if external else None
    st.enter("check")
    # refused calls fail here, before any write (a delegated program's kernel
    # calls are checked by the runtime that runs it: Mote's host library has
    # no backend linked yet)
    if not any(isinstance(c, ir.DelegateCall) for c in spec.instructions):
        check_kernels_accept(spec, program.data, example_inputs, data_map=ptd)
    manifest = build_manifest(spec, program=program)
    return Compiled(name=name, spec=spec, pte=program.data, example_inputs=example_inputs,
                    external=program.external, ptd=ptd,
                    eager=eager, reference=reference, int8=int8, int16=recipe.int16_activations, int8_info=info,
                    calibration_data=mf.calibration_data, manifest=manifest, program=core,
                    methods=[MethodProgram(spec.method_name, spec, example_inputs, eager)],
                    method_name=spec.method_name)


def _delegation(delegate: Optional[str]) -> tuple:
    """(spec passes, report dict the delegation pass fills) for --delegate (none without)."""
    if delegate is None:
        return (), {}
    from aot.compiler.partition import delegate_pass, partitioner
    partitioner(delegate)               # an unknown name fails before lowering
    delegation: dict = {}
    return (delegate_pass(delegate, delegation),), delegation


def _compile_methods(name, mf, recipe: Recipe, base_ptd=None) -> Compiled:
    """A program of several methods (a model file's methods()): each exported
    and lowered on its own, a buffer several of them update named once and
    placed once in the shared mutable-buffer arena, constants stored once."""
    from aot.compiler.accept import check_kernels_accept
    from aot.compiler.emit import build_program
    from aot.compiler.lower import core_program, lower_core
    from aot.compiler.manifest import build_manifest
    from aot.compiler.passes import mutable_buffer_keys
    from aot.compiler.plan import share_mutable
    planner, external = recipe.planner, recipe.external_weights is not None
    if recipe.quantized:
        raise MoteError(f"{mf.path.name}: --int8 for a program of several methods (methods()) is not "
                        "supported yet; export each method's model on its own")
    names, methods, cores = {}, [], []
    for mname, (module, inputs) in mf.methods.items():
        core = core_program(module, inputs)
        for fqn, key in mutable_buffer_keys(core).items():
            names.setdefault(key, fqn)  # the first method to update a buffer names it
        spec = lower_core(core, planner=planner, method_name=mname, buffer_names=names)
        methods.append(MethodProgram(mname, spec, tuple(inputs), module))
        cores.append(core)
    share_mutable([m.spec for m in methods])
    # one arena 1 serves every method (they never run at once): each plan
    # declares the largest, so the firmware's one buffer fits all
    widest = max(m.spec.arena_sizes[1] for m in methods)
    for m in methods:
        m.spec.arena_sizes[1] = widest
    program = build_program([m.spec for m in methods], external=external)
    ptd = _ptd_of(program.external, base_ptd) if external else None
    for m in methods:
        check_kernels_accept(m.spec, program.data, m.example_inputs, method=m.name, data_map=ptd)
    first = methods[0]
    manifest = build_manifest(first.spec, program=program, others=[m.spec for m in methods[1:]])
    manifest["methods"] = [m.name for m in methods]
    return Compiled(name=name, spec=first.spec, pte=program.data, example_inputs=first.example_inputs,
                    eager=first.eager, reference=first.eager, manifest=manifest, program=cores[0],
                    methods=methods, method_name=first.name, external=program.external, ptd=ptd)


def write_outputs(compiled: Compiled, pte_path: Path, ptd_path: Optional[Path] = None) -> list:
    """Write the .pte, its ops.json and its debug record (aot.compiler.debug_record),
    and with external weights the .ptd (`ptd_path`, default beside the .pte),
    each atomically: a reader never sees a partial file. Returns the paths written."""
    from aot.compiler.emit import atomic_write
    from aot.compiler.manifest import manifest_path
    from aot.compiler.debug_record import debug_record, debug_record_path
    pte_path = Path(pte_path)
    pte_path.parent.mkdir(parents=True, exist_ok=True)
    ops = manifest_path(pte_path)
    rec = debug_record_path(pte_path)
    written = []
    if compiled.ptd is not None:  # first: a program is never written without its weights
        ptd_path = Path(ptd_path) if ptd_path else pte_path.with_suffix(".ptd")
        ptd_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(ptd_path, compiled.ptd)
        written.append(ptd_path)
    atomic_write(pte_path, compiled.pte)
    atomic_write(ops, (json.dumps(compiled.manifest, indent=2) + "\n").encode())
    atomic_write(rec, (json.dumps(debug_record(compiled), indent=1) + "\n").encode())
    return [pte_path, ops, rec] + written


def program_inputs(compiled: Compiled, inputs) -> list:
    """The program's input arrays for model inputs `inputs` (tensors or
    arrays): with --int8-io, each int8 input quantized with its PT2E input
    qparams (round half to even, as torch.round; clamped to int8)."""
    qps = getattr(compiled.int8_info, "input_qparams", None) or [None] * len(inputs)
    out = []
    for x, qp in zip(inputs, qps):
        a = x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
        if qp is not None:
            a = np.clip(np.round(a / qp[0]) + qp[1], -128, 127).astype(np.int8)
        out.append(a)
    return out


def model_outputs(compiled: Compiled, outputs) -> list:
    """The program's outputs as the model's: with --int8-io each int8 output
    dequantized with its qparams ((q - zero_point) * scale, float32); other
    programs' outputs unchanged."""
    info = compiled.int8_info
    if info is None or not any(np.asarray(o).dtype == np.int8 for o in outputs):
        return list(outputs)
    qps = iter(info.output_qparams)  # one per quantized output, in order: the int8 ones
    out = []
    for o in outputs:
        a = np.asarray(o)
        if a.dtype == np.int8:
            scale, zp = next(qps)
            a = ((a.astype(np.float32) - zp) * np.float32(scale)).astype(np.float32)
        out.append(a)
    return out


def reference_outputs(compiled: Compiled, inputs) -> list:
    """Outputs of the reference (eager fp32 or PT2E int8 reference) as numpy arrays."""
    with torch.no_grad():
        return [t.detach().numpy() for t in outputs_tuple(compiled.reference(*inputs))]


def eager_outputs(compiled: Compiled, inputs) -> list:
    """Outputs of the eager fp32 model as numpy arrays."""
    with torch.no_grad():
        return [t.detach().numpy() for t in outputs_tuple(compiled.eager(*inputs))]
