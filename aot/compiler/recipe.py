"""A Recipe: every option of one compile, and of the generated program around it, in one
immutable object that is checked once.

The `aot` commands parse their arguments into a Recipe (:meth:`Recipe.from_args`), the
build integrations (CMake's ``mote_add_model(... OPTIONS ...)``, Zephyr's
``CONFIG_MOTE_AOT_OPTIONS``, PlatformIO's ``custom_mote_options``) hand their option
strings to ``aot generate``, whose parser is built from the same definitions
(:func:`add_recipe_arguments`; :meth:`Recipe.from_options` parses a list of them), and
the compiler (``aot.compiler.pipeline.compile_model_file``) takes the Recipe: nothing
below the command line sees an argparse namespace.

This module does not import torch, so a build system can check options (and
learn which files ``aot generate`` writes) at configure time.
"""
from __future__ import annotations

import argparse
import dataclasses
import shlex
from dataclasses import dataclass
from typing import Optional, Sequence, Union

from aot.errors import MoteError

#: self-test cases --selftest embeds when it is given without a count
DEFAULT_CASES = 4
#: weights per int4 scale --int4-weights uses without --group-size, and the ones it takes
DEFAULT_GROUP_SIZE = 32
GROUP_SIZES = (32, 64, 128)
#: --dsp-weights: where a DSP board's int8 conv weights are widened to int16
DSP_WEIGHTS = ("flash", "arena")


@dataclass(frozen=True)
class Recipe:
    """Every option of one compile. Construction checks how the options combine and
    raises MoteError with the one-line message the command prints.

    int8: PT2E int8 quantization (torchao), calibrated with ``calib`` (an .npz path)
    or the model file's calibration_data(); int8_io: the program's inputs and
    outputs stay int8 (needs int8). int4_weights: a group size (32, 64, 128): Linear
    and Embedding weights in symmetric int4 groups of that many, fp32 activations;
    with int8: Linear weights int4 per output channel with int8 activations
    (mote::linear_s4; the group size does not apply). int16_activations: quantize
    (implies int8) with int16 activations for conv / linear (mote::*_s16).
    dsp_weights: int8 convs carry their weights pre-widened to int16 for the
    Cortex-M DSP kernels (more flash, no widening scratch), resolved for a target by
    :meth:`from_args` (``--dsp-weights flash|arena`` on a board whose int8 kernels are
    the DSP ones). linear_tables: int8 linear layers carry their requantization
    table (linear_s8's argument 9, the input zero point folded into the bias offline)
    for the MVE kernels, resolved by :meth:`from_args` on a board whose int8 kernels
    are the MVE ones (unless ``--dsp-weights arena``). external_weights: None, True (a .ptd beside the program) or a
    .ptd path (its tensors are kept and the new ones added): the constants go to a
    .ptd the program names by key. delegate: a backend name (``--delegate``).
    planner: the memory planner ("best", "greedy"). layout: int8 only: where a pointwise
    conv hands a depthwise conv its input planar int16 ("auto": where it pays and costs
    no arena; "planar": everywhere; "nhwc": nowhere; aot.compiler.layout).

    The generated program around the model (aot build / aot generate): selftest:
    cases to embed (None: none); method: the method the firmware app runs (None:
    the first); verify_checksum: check the program's CRC-32 at init; opt: the
    flash/speed trade, "size" or "speed" (aot build also takes a GCC flag for the runtime,
    port and app); kernel_opt: the kernels' flag (aot build; "auto": the opt profile's);
    code_in_sram: the kernels' code copied to SRAM at boot (aot build; None: the board's
    default); weights_in_sram: the program read from SRAM, copied at boot (aot build).
    """
    int8: bool = False
    calib: Optional[str] = None
    int8_io: bool = False
    int4_weights: Optional[int] = None
    int16_activations: bool = False
    dsp_weights: bool = False
    linear_tables: bool = False
    external_weights: Union[None, bool, str] = None
    delegate: Optional[str] = None
    planner: str = "best"
    layout: str = "auto"
    selftest: Optional[int] = None
    method: Optional[str] = None
    verify_checksum: bool = False
    opt: str = "speed"
    kernel_opt: str = "auto"
    code_in_sram: Optional[bool] = None
    weights_in_sram: bool = False

    def __post_init__(self):
        # the checks (and their order) of the options' combinations; each message is the line
        # the command prints
        if self.int16_activations:
            if self.int8_io:
                raise MoteError("--int16-activations keeps fp32 program inputs and outputs: drop --int8-io")
            if self.int4_weights is not None:
                raise MoteError("--int16-activations takes int8 weights: drop --int4-weights")
        elif self.int8_io and not self.int8:
            raise MoteError("--int8-io keeps an int8 program's inputs and outputs int8: add --int8")
        if self.calib and not self.quantized:
            raise MoteError("--calib is the int8 calibration data: it needs --int8")
        if self.delegate is not None and self.int16_activations:
            raise MoteError(delegate_refusal(self.delegate))
        if self.delegate is not None and self.external_weights is not None:
            raise MoteError(f"--delegate {self.delegate} keeps the delegated weights inside its payloads: "
                            "--external-weights does not apply (drop one of the two)")
        if self.selftest is not None and self.selftest < 1:
            raise MoteError(f"--selftest: must be at least 1, got {self.selftest}")

    # ------------------------------------------------------------------ derived

    @property
    def quantized(self) -> bool:
        """The compile quantizes (--int8, or --int16-activations, which implies it)."""
        return self.int8 or self.int16_activations

    @property
    def int4_linear(self) -> bool:
        """--int8 --int4-weights: Linear weights int4 per channel, int8 activations (mote::linear_s4)."""
        return self.quantized and self.int4_weights is not None

    @property
    def weight_only_int4(self) -> bool:
        """--int4-weights alone: int4 weight groups, fp32 activations (aot.compiler.weights4)."""
        return self.int4_weights is not None and not self.quantized

    @property
    def scheme(self) -> str:
        """"int16" (int16 activations), "int8" or "fp32": the activations' type."""
        return "int16" if self.int16_activations else "int8" if self.quantized else "fp32"

    def replace(self, **changes) -> "Recipe":
        """This recipe with `changes` (field names), checked again."""
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ from the command line

    @classmethod
    def from_args(cls, args: argparse.Namespace, target=None, **changes) -> "Recipe":
        """The Recipe of a parsed ``aot`` command line (any sub-command: options it does
        not offer keep their defaults). `target`: what the program is built for (an
        object with ``dsp_kernels``, e.g. aot.deploy's Target or Board; None: no board),
        which resolves --dsp-weights. `changes`: fields the command resolved itself
        (e.g. aot export's .ptd path)."""
        get = lambda name, default=None: getattr(args, name, default)  # noqa: E731
        group = get("group_size")
        if not get("int4_weights", False):
            if group is not None:
                raise MoteError("--group-size sets the int4 weights' group: add --int4-weights "
                                "(or drop --group-size)")
            int4 = None
        else:
            int4 = DEFAULT_GROUP_SIZE if group is None else group
        external = get("external_weights")
        fields = dict(
            int8=bool(get("int8", False)), calib=get("calib"), int8_io=bool(get("int8_io", False)),
            int4_weights=int4, int16_activations=bool(get("int16_activations", False)),
            # the program aot build ships for that board: pre-widened DSP weights unless --dsp-weights arena
            dsp_weights=bool(get("int8", False)) and target is not None and bool(target.dsp_kernels)
            and get("dsp_weights", "flash") == "flash",
            # MVE boards (Cortex-M55): the linear layers' tables alone (16 bytes per four features)
            linear_tables=bool(get("int8", False)) and target is not None
            and bool(getattr(getattr(target, "board", target), "mve", False))
            and get("dsp_weights", "flash") == "flash",
            external_weights=None if external in (None, False) else True if external in (True, "") else external,
            delegate=get("delegate"), layout=get("layout", "auto"), selftest=get("selftest"), method=get("method"),
            verify_checksum=bool(get("verify_checksum", False)),
            opt=get("opt", "speed"), kernel_opt=get("kernel_opt", "auto"),
            code_in_sram=get("code_in_sram"), weights_in_sram=bool(get("weights_in_sram", False)))
        fields.update(changes)
        return cls(**fields)

    @classmethod
    def from_options(cls, options: Union[str, Sequence[str]], target=None) -> "Recipe":
        """The Recipe of ``aot generate`` options (a list, or one string split as a shell
        would): what CMake's OPTIONS, Zephyr's CONFIG_MOTE_AOT_OPTIONS and PlatformIO's
        custom_mote_options hand to ``aot generate``. An unknown or malformed option is a
        MoteError naming it."""
        if isinstance(options, str):
            options = shlex.split(options)
        parser = _OptionParser(prog="aot generate", add_help=False)
        add_recipe_arguments(parser, model=False)
        try:
            args = parser.parse_args(list(options))
        except _ParseError as e:
            raise MoteError(str(e)) from None
        return cls.from_args(args, target)


def delegate_refusal(delegate: str) -> str:
    """The one line refusing --delegate for an int16 or a several-method program."""
    return (f"--delegate {delegate}: fp32 and int8 programs of one method only for now "
            "(drop --int16-activations; a methods() file is not delegated yet)")


class _ParseError(Exception):
    pass


class _OptionParser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting (Recipe.from_options)."""

    def error(self, message):
        raise _ParseError(f"options: {message}")


# ---------------------------------------------------------------------- the options' definitions


def count_type(what: str):
    """An argparse type: an integer >= 1 of `what` ("cases", "steps")."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
        return value
    return parse


def add_model_options(p: argparse.ArgumentParser, model: bool = True, several: bool = False) -> None:
    """The model file and how it is quantized (every command that compiles one). several:
    the command takes one or more MODEL arguments, each path.py or NAME=path.py, and
    --memory (aot generate, aot build: aot.deploy.multimodel)."""
    if model and several:
        p.add_argument("model", nargs="+", metavar="MODEL",
                       help="model file: a .py defining model()/example_inputs() or a .pt2; several (each "
                            "path.py or NAME=path.py, NAME a lowercase C identifier) build one firmware with "
                            "every model, its C API prefixed mote_model_NAME_ (the options apply to each)")
        p.add_argument("--memory", choices=("shared", "separate"),
                       help="with several models: shared (default) runs them one at a time in one activation "
                            "arena sized by the largest plan, each keeping its own state; separate gives each "
                            "its own arena (they may run at once, from two threads)")
    elif model:
        p.add_argument("model", help="model file: a .py defining model()/example_inputs() or a .pt2")
    p.add_argument("--int8", action="store_true", help="quantize to int8 (torchao PT2E) first")
    p.add_argument("--calib", metavar="FILE.npz",
                   help="calibration inputs for --int8: one array per model input, in order "
                        "(np.savez(f, x0, x1, ...)) or named like forward()'s parameters; each "
                        "array is one sample shaped like the example input, or [S, *shape] for "
                        "S samples (default: the model file's calibration_data())")
    p.add_argument("--int8-io", action="store_true",
                   help="with --int8: keep the program's inputs and outputs int8")
    p.add_argument("--int4-weights", action="store_true",
                   help="symmetric int4 group-wise weights for Linear and Embedding layers (torchao "
                        "IntxWeightOnlyConfig; packed two per byte), fp32 activations")
    p.add_argument("--group-size", type=int, choices=GROUP_SIZES,
                   help="with --int4-weights: weights per scale (default 32)")
    p.add_argument("--int16-activations", action="store_true",
                   help="quantize (implies --int8) with int16 activations and int8 weights for conv and "
                        "linear layers (the int16x8 scheme of CMSIS-NN's s16 kernels), for models that lose "
                        "accuracy at int8; other ops run in fp32")


def add_dsp_weights_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dsp-weights", choices=DSP_WEIGHTS, default="flash",
                   help="with --int8 on a board whose int8 kernels are the DSP ones (Cortex-M4/M7/M33): "
                        "flash (default) stores each conv's weights pre-widened to int16 in the "
                        "program (2 more flash bytes per weight, no widening scratch in RAM); arena "
                        "widens them at run time into up to 16 KiB of scratch per conv")
    add_layout_option(p)


def add_layout_option(p: argparse.ArgumentParser) -> None:
    from aot.compiler.layout import MODES
    p.add_argument("--layout", choices=MODES, default="auto",
                   help="with --int8: where a pointwise conv hands a depthwise conv its input planar "
                        "(channel-major int16, zero point subtracted, zero border: the depthwise's "
                        "fast layout, about 2.4x the bytes of the int8 tensor). auto (default): "
                        "where it is faster on the board's kernels and the arena does not grow; "
                        "planar: every such pair (speed over RAM); nhwc: none. ops.json \"layouts\" "
                        "lists each pair and why")


def add_opt_option(p: argparse.ArgumentParser, generate: bool = False) -> None:
    """--opt size|speed (aot.deploy.build.OPT_PROFILES); aot build also takes a GCC flag."""
    extra = "" if generate else "; or a GCC flag (-Os, -O2, ...) for the runtime, port and app"
    p.add_argument("--opt", default="speed", metavar="size|speed" if generate else "OPT",
                   choices=("size", "speed") if generate else None,
                   help="flash/speed trade (default speed: hot kernel loops at -O2 and kernel variants "
                        "specialised for speed; size: everything -Os, general kernels)" + extra)


def add_delegate_option(p: argparse.ArgumentParser) -> None:
    from aot.compiler.partition import backend_names
    p.add_argument("--delegate", metavar="NAME", choices=backend_names(),
                   help=f"hand the subgraphs a backend takes to it (ExecuTorch's delegation; one of: "
                        f"{', '.join(backend_names())}; fp32 or --int8, one method; runs on Linux hosts); the rest "
                        "runs on Mote's kernels")


def add_selftest_option(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--selftest", nargs="?", type=count_type("cases"), const=DEFAULT_CASES, metavar="N",
                   help=help)


def add_recipe_arguments(p: argparse.ArgumentParser, model: bool = True, several: bool = False) -> None:
    """The options of ``aot generate`` that make its Recipe (before its own: --board, -o,
    --json), which :meth:`Recipe.from_options` parses too: every one of them is reachable
    from the build integrations."""
    add_model_options(p, model, several)
    add_dsp_weights_option(p)
    add_selftest_option(p, f"embed N self-test cases (default {DEFAULT_CASES}) for mote_model_selftest(), "
                           "which prints MOTE SELFTEST PASS|FAIL; also writes model.bpte")
    p.add_argument("--verify-checksum", action="store_true",
                   help="mote_model_init() checks the program's CRC-32 first (MOTE_VERIFY_CHECKSUM)")
    p.add_argument("--external-weights", action="store_true",
                   help="keep the constants in a .ptd (ExecuTorch's flat-tensor format) written as its own "
                        "flash region (model_ptd.c), which mote_model_init() attaches to the program")
    add_opt_option(p, generate=True)
