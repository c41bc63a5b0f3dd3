"""Progress bars for the steps that can take more than a few seconds (a slow model's
export and quantization, calibration, the traced run of --estimate-cycles): tqdm on
stderr, so stdout (tables, --json) stays clean.

Bars show on a terminal only; ``MOTE_PROGRESS=0`` hides them and ``MOTE_PROGRESS=1``
shows them anywhere (a CI log). Nothing here imports torch.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterable, Optional, Sequence


def enabled() -> bool:
    """Bars are drawn: MOTE_PROGRESS=1, or stderr is a terminal and MOTE_PROGRESS is not 0."""
    flag = os.environ.get("MOTE_PROGRESS", "")
    if flag in ("0", "1"):
        return flag == "1"
    return sys.stderr.isatty()


def bar(desc: str, total: Optional[float] = None, unit: str = "it", unit_scale: bool = False):
    """A tqdm bar on stderr (disabled unless enabled()); total None: a counter without estimate."""
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit_scale, file=sys.stderr,
                leave=False, dynamic_ncols=True, disable=not enabled())


def iterate(items: Iterable, desc: str, unit: str = "it", total: Optional[int] = None):
    """`items` with a bar advancing per item (total: len(items) when it has one)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with bar(desc, total, unit) as b:
        for item in items:
            yield item
            b.update(1)


class Stages:
    """One bar over the named stages of a step ("compile: export, quantize, lower, ...");
    :meth:`enter` moves to the next stage and shows its name."""

    def __init__(self, desc: str, names: Sequence[str]):
        self.desc, self.names, self.done = desc, list(names), 0
        self.current = self.names[0] if self.names else ""  # the stage under way (for an error's message)
        self._bar = bar(desc, total=len(self.names), unit="stage")

    def enter(self, name: str) -> None:
        """Start stage `name` (the stages before it count as done)."""
        self.current = name
        if name in self.names:
            self.done_to(self.names.index(name))
        self._bar.set_description_str(f"{self.desc}: {name}")

    def done_to(self, index: int) -> None:
        self._bar.update(max(0, index - self.done))
        self.done = max(self.done, index)

    def close(self) -> None:
        self.done_to(len(self.names))
        self._bar.close()


@contextlib.contextmanager
def stages(desc: str, names: Sequence[str]):
    """``with stages("compile", [...]) as st: st.enter("lower")``; the bar is removed at the end."""
    st = Stages(desc, names)
    try:
        yield st
    finally:
        st.close()
