"""Streaming windows updated in place (aot/compiler/windows.py): an int8 program's
``cat([buf, new]) -> slice -> copy_(buf)`` (and ``buf[n:] -> cat -> copy_``) is one
mote::window_push when nothing else reads the cat, the slice or the buffer's old
value; the program then equals the integer reference step by step with its state
carried. A model that reads the cat itself, and every fp32 program (which ExecuTorch
runs too), keep cat + slice_copy + copy_."""
import copy

import numpy as np
import torch
from torch import nn

from aot.compiler.pipeline import compile_module
from aot.host.runtime import Program

STEPS = 6


class ReadsWindow(nn.Module):
    """A 1-D conv over the last 5 frames, kept whole in the buffer (form A)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv1d(4, 6, 5)
        self.register_buffer("win", torch.zeros(1, 4, 5))

    def forward(self, x):
        w = torch.cat([self.win, x], dim=-1)[..., 1:]
        self.win.copy_(w)
        return self.conv(w)


class ReadsBuffer(ReadsWindow):
    """The conv reads the buffer itself after its write-back (form A as well)."""

    def forward(self, x):
        self.win.copy_(torch.cat([self.win, x], dim=-1)[..., 1:])
        return self.conv(self.win)


class ReadsCat(ReadsWindow):
    """The same conv over the cat (the buffer keeps 4 frames): not an in-place window."""

    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.zeros(1, 4, 4))

    def forward(self, x):
        full = torch.cat([self.win, x], dim=-1)
        self.win.copy_(full[..., 1:])
        return self.conv(full)


class ShiftsThenCats(ReadsWindow):
    """buf[..., 2:] then cat (form B), two frames a call."""

    def forward(self, x):
        w = torch.cat([self.win[..., 2:], x], dim=-1)
        self.win.copy_(w)
        return self.conv(w)


def _calls(model, frames=1):
    return [(torch.randn(1, 4, frames, generator=torch.Generator().manual_seed(i)),) for i in range(16)]


def _compile(model, frames=1, int8=True):
    calib = _calls(model, frames)
    return compile_module(type(model).__name__, model.eval(), calib[0], int8=int8, calibration=calib)


def _ops(c):
    return [f"{i.op}" for i in c.spec.instructions]


def _steps_equal_integer_reference(c, frames=1):
    method = Program(c.pte).method()
    lowered = copy.deepcopy(c.program).module()     # the integer reference, its own state
    with torch.no_grad():
        for k in range(STEPS):
            x = torch.randn(1, 4, frames, generator=torch.Generator().manual_seed(100 + k))
            got = method.run([x.numpy()])[0]
            assert np.array_equal(got, lowered(x).numpy()), k


def test_window_read_whole_is_one_in_place_push():
    c = _compile(ReadsWindow())
    ops = _ops(c)
    assert ops.count("mote::window_push") == 1, ops
    assert not {"aten::cat", "aten::slice_copy", "aten::copy_"} & set(ops), ops
    # the buffer, stored int8 channels-last [1, frames, channels], is what the conv reads
    state = [v for v in c.spec.values if getattr(v, "is_mutable", False)]
    assert [(v.fqn, v.sizes) for v in state] == [("win", [1, 5, 4])]
    push = next(i for i in c.spec.instructions if i.op == "mote::window_push")
    assert push.args[0] == push.args[-1] == c.spec.values.index(state[0])
    _steps_equal_integer_reference(c)


def test_reading_the_buffer_after_its_write_is_one_in_place_push():
    c = _compile(ReadsBuffer())
    ops = _ops(c)
    assert ops.count("mote::window_push") == 1 and "aten::cat" not in ops, ops
    _steps_equal_integer_reference(c)


def test_shift_then_cat_is_one_in_place_push():
    c = _compile(ShiftsThenCats(), frames=2)
    ops = _ops(c)
    assert ops.count("mote::window_push") == 1 and "aten::cat" not in ops, ops
    _steps_equal_integer_reference(c, frames=2)


def test_a_model_reading_the_cat_keeps_cat_slice_and_copy():
    c = _compile(ReadsCat())
    ops = _ops(c)
    assert "mote::window_push" not in ops and {"aten::cat", "aten::slice_copy", "aten::copy_"} <= set(ops), ops
    _steps_equal_integer_reference(c)


def test_fp32_programs_keep_executorchs_portable_ops():
    c = _compile(ReadsWindow(), int8=False)
    assert "mote::window_push" not in _ops(c) and "aten::cat" in _ops(c)
