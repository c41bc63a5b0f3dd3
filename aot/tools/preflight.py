"""The checks of an `aot` command line that need no model, made before torch is imported.

A missing file, an unknown board or target, an option combination the Recipe refuses or
an output folder that cannot be written is a user's mistake that no compile is needed to
find; importing torch and torchao alone takes seconds (tens of seconds on a loaded
machine). aot.cli runs :func:`preflight` between parsing the arguments and the command,
so those mistakes are one line in well under a second. The commands keep their own checks
(they are also called as functions); this module only moves the refusal earlier, with the
same message, by calling the same checks: it restates none of them.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from aot.errors import MoteError, RunError

#: the commands that compile a model file (their first argument is MODEL)
COMPILING = ("export", "build", "generate", "compare", "profile", "debug")
#: the marker file of the folder each command writes with -o (aot.deploy.generate.check_output_folder)
OUTPUT_MARKERS = {"build": "build.json", "generate": "mote_sources.json"}


def preflight(args) -> None:
    """Refuse what `args` (an aot.cli namespace) gets wrong that needs no model. Raises
    MoteError with the line the command itself would print, later."""
    cmd = args.command
    target = None
    if cmd in COMPILING:
        if isinstance(getattr(args, "model", None), list):  # generate, build: MODEL [MODEL ...]
            from aot.deploy.multimodel import split_model_args
            split_model_args(args)
        for model in [args.model] + [m.path for m in (getattr(args, "models", None) or [])[1:]]:
            _check_model(cmd, model)
        target = _board_or_target(cmd, args)
        _check_recipe(args, target)
    elif cmd in ("run", "test"):
        _run_target(cmd, args.target)  # the target first, as the commands check it
        _exists(args.program, "", "a .pte or a build folder" if cmd == "run" else "a build folder or a .bpte")
    elif cmd in ("qemu", "board-sources", "uf2"):
        from aot.deploy.target import build_target
        build_target(args.board)
    for option in ("inputs", "calib", "ptd"):
        if getattr(args, option, None):
            _exists(getattr(args, option), f"--{option} ", "a file")
    out = getattr(args, "output_dir", None) or (getattr(args, "output", None) if cmd == "export" else None)
    if out:
        _check_output(cmd, Path(out))


def _check_model(cmd: str, model: str) -> None:
    if cmd == "debug":
        from aot.tools.debug import check_debug_model
        check_debug_model(model)
    if cmd == "profile" and (Path(model).is_dir() or Path(model).suffix == ".pte"):
        _exists(model, "", "a model file, a .pte or a build folder")  # profile also takes programs
        return
    from aot.compiler.model_path import model_path
    model_path(model)


def _board_or_target(cmd: str, args):
    """The Target of --board (what is built) or --target (where it runs), checked."""
    if getattr(args, "board", None):
        from aot.deploy.target import build_target
        return build_target(args.board)
    if getattr(args, "target", None):
        return _run_target(cmd, args.target)
    return None


def _run_target(cmd: str, name: str):
    from aot.deploy.target import run_target
    if name.startswith("serial:"):
        return run_target(name) if cmd == "run" else None  # the other commands read serial their own way
    return run_target(name, serial=False, linux=cmd == "compare")


def _check_recipe(args, target) -> None:
    """The Recipe's option combinations (aot.compiler.recipe) and --opt / --kernel-opt."""
    from aot.compiler.recipe import Recipe
    Recipe.from_args(args, target)
    if getattr(args, "opt", None) is not None or getattr(args, "kernel_opt", None) is not None:
        from aot.deploy.generate import KERNEL_OPT_AUTO, check_opt
        check_opt(getattr(args, "opt", None) or "speed", getattr(args, "kernel_opt", None) or KERNEL_OPT_AUTO)


def _exists(path, option: str, what: str) -> None:
    if not Path(path).exists():
        raise RunError(f"{option}{path}: no such file or folder (expected {what})")


def _check_output(cmd: str, out: Path) -> None:
    """-o names a folder (or for export a .pte) Mote may write: not a file where a folder
    is meant, not a folder of someone else's files, and under a folder this user can write."""
    out = out.resolve()
    if cmd in OUTPUT_MARKERS:
        from aot.deploy.generate import check_output_folder
        check_output_folder(out, OUTPUT_MARKERS[cmd], cmd)
    parent = out if out.is_dir() else out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise MoteError(f"-o {out}: cannot write there ({parent} is not a folder)")
    try:  # a real write, not os.access: root passes every permission check, not /proc or /sys
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        raise MoteError(f"-o {out}: cannot write there ({parent}: {e.strerror or e})") from None
