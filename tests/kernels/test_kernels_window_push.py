"""mote::window_push (kernels/op_mote_window_push.c) through ctypes: the window after
the push equals torch's cat(state, new, dim)[n:] along every dim of 1- to 4-D
windows, for 1, 2, ... L new frames and every element size; every malformed call
is refused with its error code before anything is written."""
import pytest
import torch

from tests.kernels.kernels_ffi import ERR

OP = "mote::window_push.default"


def _push(K, state, new, dim):
    return K.call(OP, state, new, dim, state)


@pytest.mark.parametrize("shape, dim", [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 4, 6), 2), ((2, 4, 6), 1),
                                        ((1, 9, 3), 1), ((2, 3, 4, 5), 2), ((1, 1, 97, 64), 2)])
@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.float32, torch.float64])
def test_window_after_a_push_equals_torch(K, shape, dim, dtype):
    g = torch.Generator().manual_seed(len(shape) * 10 + dim)
    length = shape[dim]
    for n in sorted({1, 2, length // 2 or 1, length}):
        state = (torch.randn(shape, generator=g) * 50).to(dtype)
        new_shape = list(shape)
        new_shape[dim] = n
        new = (torch.randn(new_shape, generator=g) * 50).to(dtype)
        want = torch.cat([state, new], dim).narrow(dim, n, length)
        assert _push(K, state, new, dim) == ERR["OK"]
        assert torch.equal(state, want), (shape, dim, n)
        # a negative dim names the same one
        state2 = want.clone()
        assert _push(K, state2, new, dim - len(shape)) == ERR["OK"]
        assert torch.equal(state2, torch.cat([want, new], dim).narrow(dim, n, length))


def test_many_pushes_keep_the_newest_frames(K):
    state = torch.zeros(1, 5, 3, dtype=torch.int8)
    frames = [torch.full((1, 1, 3), i, dtype=torch.int8) for i in range(1, 9)]
    for f in frames:
        assert _push(K, state, f, 1) == ERR["OK"]
    assert state[0, :, 0].tolist() == [4, 5, 6, 7, 8]


@pytest.mark.parametrize("case, err", [
    ("other_return", "ARGS"), ("three_args", "ARGS"), ("dim_out_of_range", "ARGS"), ("dim_not_int", "ARGS"),
    ("dtypes_differ", "DTYPE"), ("ranks_differ", "SHAPE"), ("size_outside_dim", "SHAPE"),
    ("no_new_frames", "SHAPE"), ("more_new_than_window", "SHAPE")])
def test_malformed_calls_are_refused_before_any_write(K, case, err):
    state = torch.arange(24, dtype=torch.int16).reshape(2, 3, 4)
    before = state.clone()
    new = torch.full((2, 3, 1), -1, dtype=torch.int16)
    args = {
        "other_return": (state, new, 2, state.clone()),
        "three_args": (state, new, 2),
        "dim_out_of_range": (state, new, 3, state),
        "dim_not_int": (state, new, 2.0, state),
        "dtypes_differ": (state, new.to(torch.int8), 2, state),
        "ranks_differ": (state, new.reshape(2, 3), 2, state),
        "size_outside_dim": (state, torch.zeros(2, 2, 1, dtype=torch.int16), 2, state),
        "no_new_frames": (state, torch.zeros(2, 3, 0, dtype=torch.int16), 2, state),
        "more_new_than_window": (state, torch.zeros(2, 3, 5, dtype=torch.int16), 2, state),
    }[case]
    assert K.call(OP, *args) == ERR[err]
    assert torch.equal(state, before)
