"""Operator cases of the shape family (copies, views, splits, stacking,
creation ops; see op_cases.py for the form), plus the recurrent layers that
lower to them (RECURRENT, run by test_recurrent.py)."""
import torch
from torch import nn

from op_cases import Fn, _r

FP32 = {
    "aten::split_with_sizes_copy.out": (lambda: Fn(lambda x: tuple(t * 1.0 for t in torch.split(x, [1, 3], 2))),
                                        (_r(2, 3, 4),)),
    "aten::flip.out": (lambda: Fn(lambda x: torch.flip(x, [0, 2])), (_r(2, 3, 4),)),
    "aten::repeat.out": (lambda: Fn(lambda x: x.repeat(2, 1, 3)), (_r(3, 4),)),
    "aten::diagonal_copy.out": (lambda: Fn(lambda x: torch.diagonal(x, 1, 1, 2) * 1.0), (_r(2, 3, 4),)),
    "aten::as_strided_copy.out": (lambda: Fn(lambda x: torch.as_strided(x, (2, 3), (1, 2), 1) * 1.0),
                                  (_r(3, 4),)),
    "aten::unfold_copy.out": (lambda: Fn(lambda x: x.unfold(2, 3, 2) * 1.0), (_r(2, 3, 7),)),
    "aten::_to_copy.out": (lambda: Fn(lambda x: (x * 10.0).to(torch.int32)), (_r(3, 4),)),
    "aten::copy.out": (lambda: Fn(lambda x, y: x.clone().copy_(y * 2.0)), (_r(2, 3, 4), _r(3, 4))),
    "aten::full_like.out": (lambda: Fn(lambda x: torch.full_like(x, 2.5) + x), (_r(2, 3),)),
    # a graph output (an arange feeding other ops is folded into a constant)
    "aten::arange.start_out": (lambda: Fn(lambda x: (x * 2.0, torch.arange(0.5, 3.0, 0.5))), (_r(2, 5),)),
    "aten::alias_copy.out": (lambda: Fn(lambda x: x.detach()), (_r(2, 3),)),
}

#: Operators torch.export never produces from a model: decomposed into others
#: (stack -> cat, unbind/narrow -> slice, transpose/t -> permute, roll ->
#: index_select, tril -> where, pixel_(un)shuffle -> view + permute, squeeze ->
#: a view), folded into constants (ones, zeros, empty, scalar_tensor, arange with
#: a constant end), removed as no-ops (detach, lift_fresh_copy), functionalized
#: (copy_, fill_), or emitted by ExecuTorch's own passes (_empty_dim_order).
#: Each has direct kernel tests in tests/kernels/test_kernels_shape.py.
EXECUTORCH_ONLY = {
    "aten::split_copy.Tensor_out", "aten::unbind_copy.int_out", "aten::stack.out",
    "aten::squeeze_copy.dim_out", "aten::t_copy.out", "aten::transpose_copy.int_out",
    "aten::narrow_copy.out", "aten::roll.out", "aten::tril.out",
    "aten::pixel_shuffle.out", "aten::pixel_unshuffle.out",
    "aten::detach_copy.out", "aten::lift_fresh_copy.out", "aten::copy_.default",
    "aten::fill.Scalar_out", "aten::fill.Tensor_out",
    "aten::ones.out", "aten::zeros.out", "aten::empty.out", "dim_order_ops::_empty_dim_order.out",
    "aten::arange.out", "aten::scalar_tensor.out",
}


class _Seq(nn.Module):
    """The output sequence of a recurrent layer (nn.LSTM / nn.GRU), or all its outputs."""

    def __init__(self, rnn, all_outputs=False):
        super().__init__()
        self.rnn = rnn
        self.all_outputs = all_outputs

    def forward(self, *xs):
        out, state = self.rnn(*xs)
        if not self.all_outputs:
            return out
        return (out,) + (tuple(state) if isinstance(state, tuple) else (state,))


def _rnn(cls, *args, all_outputs=False, **kw):
    torch.manual_seed(0)
    return _Seq(cls(*args, **kw), all_outputs).eval()


def _cell(cls, *args):
    torch.manual_seed(0)
    return cls(*args).eval()


#: name -> (module factory, example inputs): recurrent layers that must compile
#: and run fp32 on the host runtime within 1e-5 of eager
RECURRENT = {
    "lstm": (lambda: _rnn(nn.LSTM, 4, 6), (_r(5, 2, 4),)),
    "lstm_batch_first": (lambda: _rnn(nn.LSTM, 4, 6, batch_first=True), (_r(2, 5, 4),)),
    "lstm_2_layers": (lambda: _rnn(nn.LSTM, 4, 6, 2), (_r(5, 2, 4),)),
    "lstm_2_layers_batch_first_state": (lambda: _rnn(nn.LSTM, 4, 6, 2, batch_first=True, all_outputs=True),
                                        (_r(2, 5, 4),)),
    "lstm_given_state": (lambda: _rnn(nn.LSTM, 3, 5, all_outputs=True),
                         (_r(4, 1, 3), (_r(1, 1, 5, seed=1), _r(1, 1, 5, seed=2)))),
    "gru": (lambda: _rnn(nn.GRU, 4, 6), (_r(5, 2, 4),)),
    "gru_batch_first": (lambda: _rnn(nn.GRU, 4, 6, batch_first=True), (_r(2, 5, 4),)),
    "gru_2_layers": (lambda: _rnn(nn.GRU, 4, 6, 2), (_r(5, 2, 4),)),
    "gru_2_layers_batch_first_state": (lambda: _rnn(nn.GRU, 4, 6, 2, batch_first=True, all_outputs=True),
                                       (_r(2, 5, 4),)),
    "lstm_bidirectional": (lambda: _rnn(nn.LSTM, 4, 6, bidirectional=True), (_r(5, 2, 4),)),
    "gru_2_layers_bidirectional_batch_first": (lambda: _rnn(nn.GRU, 4, 6, 2, bidirectional=True, batch_first=True),
                                               (_r(2, 5, 4),)),
    "gru_cell": (lambda: _cell(nn.GRUCell, 4, 6), (_r(3, 4), _r(3, 6, seed=1))),
    "gru_cell_no_state": (lambda: _cell(nn.GRUCell, 4, 6), (_r(3, 4),)),
    "lstm_cell": (lambda: _cell(nn.LSTMCell, 4, 6), (_r(3, 4), (_r(3, 6, seed=1), _r(3, 6, seed=2)))),
    "lstm_cell_no_state": (lambda: _cell(nn.LSTMCell, 4, 6), (_r(3, 4),)),
}
