"""`aot demo` (`make demo`): the digits example of a Mote checkout, end to end.

The demo is an example (examples/digits/demo.py: train, compile fp32 and int8,
build for the Pico 2 and QEMU's mps2-an505, run every held-out image, check);
this command runs it as ``python -m examples.digits.demo`` from the checkout, so
the aot package never imports examples/.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

from aot.errors import MoteError
from aot.paths import ROOT

#: the example `aot demo` runs, as a module of the checkout
DEMO_MODULE = "examples.digits.demo"


def add_demo_arguments(ap) -> None:
    """The options of `aot demo` (argparse parser `ap`); examples/digits/demo.py reads the same."""
    ap.add_argument("--images", type=int, default=None,
                    help="run only the first N held-out images (default: all 450)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")


def demo_argv(args) -> list:
    """The command line of the example for the parsed `aot demo` options."""
    argv = [] if args.images is None else ["--images", str(args.images)]
    return argv + (["--no-progress"] if args.no_progress else [])


def demo_command(args) -> int:
    """Run examples/digits/demo.py with `args`' options; its exit status (1: a check failed).
    Raises MoteError when the checkout has no digits example."""
    script = ROOT.joinpath(*DEMO_MODULE.split(".")).with_suffix(".py")
    if not script.is_file():
        raise MoteError(f"the demo is {script.relative_to(ROOT)} of a Mote checkout, and it is not there")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    return subprocess.call([sys.executable, "-m", DEMO_MODULE, *demo_argv(args)], cwd=ROOT, env=env)


def main(argv=None) -> int:
    """`python -m aot.tools.demo`: the old form of `aot demo` (kept one release)."""
    ap = argparse.ArgumentParser(prog="python -m aot.tools.demo", description=__doc__.splitlines()[0])
    add_demo_arguments(ap)
    try:
        return demo_command(ap.parse_args(argv))
    except MoteError as exc:
        print(f"demo: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.tools.demo", "aot demo")
    sys.exit(main())
