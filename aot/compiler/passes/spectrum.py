"""The complex spectrum never reaches the runtime: ``rfft`` followed by ``abs`` (and ``** 2``)
becomes one ``mote::rfft_mag`` call that writes the magnitude (or power) spectrum.

torch.export decomposes ``torch.fft.rfft(x).abs()`` to ``abs(_fft_r2c(x, [dim], norm, True))``
and ``torch.stft(x, n_fft, hop, window=w, return_complex=True).abs()`` to the framing
(reflect padding as an index, ``unfold``, ``mul`` by the window) followed by
``abs(permute(_fft_r2c(frames, [2], norm, True), [0, 2, 1]))``; ``.abs() ** 2`` /
``.abs().pow(2)`` add ``pow.Tensor_Scalar(., 2)``. Layout ops between the transform and
``abs`` (permute, view, squeeze, unsqueeze, slice, select, transpose, clone) commute with
the elementwise ``abs``: they are replayed on the real spectrum. The transform of a dim
other than the last is permuted there and back. ``norm`` ("ortho": by sqrt(N), "forward":
by N) becomes the op's scale (squared for the power). ``torch.fft.fft`` of a real signal
(``_fft_r2c`` with onesided False) is the same op, its bins 1..N/2-1 mirrored after it
(a slice, a flip and a cat).

The twiddle table of each length is a program constant (aot.compiler.fftref.twiddles:
4N bytes in flash, computed in float64), shared by every transform of that length.
An ``_fft_r2c`` used any other way (``view_as_real``, ``.real``, an inverse FFT) stays,
and the lowering refuses it with kernels/excluded.json's reason.
"""
from __future__ import annotations

import math

import torch

from aot.compiler.fftref import MAX_N, twiddles, valid_length
from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.source import copy_source_meta, fused_nodes, set_fused, source_of
from aot.errors import UnsupportedOpError

aten = torch.ops.aten

#: layout ops that commute with an elementwise op (first argument: the tensor)
LAYOUT_OPS = frozenset({
    aten.permute.default, aten.view.default, aten._unsafe_view.default, aten.reshape.default,
    aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.unsqueeze.default,
    aten.slice.Tensor, aten.select.int, aten.transpose.int, aten.clone.default, aten.alias.default,
})
#: torch's fft_norm_mode codes (_fft_r2c's normalization): none, by_root_n, by_n
_NORM_EXPONENT = {0: 0.0, 1: 0.5, 2: 1.0}


def _is_square(n: torch.fx.Node) -> bool:
    """``n`` is ``pow(a, 2)`` or ``a * a`` of its first argument."""
    if n.op != "call_function":
        return False
    if n.target == aten.pow.Tensor_Scalar:
        return n.args[1] == 2
    return n.target == aten.mul.Tensor and len(n.args) == 2 and n.args[0] is n.args[1]


def _real_val(val: torch.Tensor, dtype=torch.float32) -> torch.Tensor:
    return torch.empty_strided(tuple(val.shape), tuple(val.stride()), dtype=dtype, device="meta")


def _call(graph, target, args, like: torch.fx.Node, val) -> torch.fx.Node:
    n = graph.call_function(target, tuple(args))
    copy_source_meta(n, like)
    n.meta["val"] = val
    return n


def _uses(fft: torch.fx.Node):
    """(layout nodes in graph order, abs nodes) reached from ``fft`` through layout ops,
    or None when some use is anything else."""
    layout, leaves, todo = [], [], [fft]
    while todo:
        for u in todo.pop().users:
            if u.op == "call_function" and u.target in LAYOUT_OPS and u.args[0] is not None:
                layout.append(u)
                todo.append(u)
            elif u.op == "call_function" and u.target == aten.abs.default:
                leaves.append(u)
            else:
                return None
    return layout, leaves


def fuse_spectrum(prog: EdgeProgram) -> int:
    """Rewrite every ``abs(layout*(_fft_r2c(x)))`` [``** 2``] into ``mote::rfft_mag`` (see the
    module docstring). Returns how many transforms were rewritten. Raises
    UnsupportedOpError for a transform length the kernels do not take."""
    from aot.compiler.mote_ops import op as mote_op
    graph = prog.graph
    tables = {}
    done = 0
    for fft in list(graph.nodes):
        if fft.op != "call_function" or fft.target != aten._fft_r2c.default:
            continue
        found = _uses(fft)
        if found is None or not found[1]:
            continue  # used as a complex value: the lowering names it
        layout, leaves = found
        x, dims, norm, onesided = fft.args[:4]
        xval = x.meta["val"]
        rank = xval.dim()
        if len(dims) != 1:
            continue
        dim = dims[0] % rank
        n = int(xval.shape[dim])
        if not valid_length(n):
            raise UnsupportedOpError(
                "aten::_fft_r2c.out", source_of(fft),
                f"a real FFT of {n} samples: Mote's FFT takes a power of two from 2 to {MAX_N}; "
                f"pad or crop the signal to one (torch.fft.rfft(x, n={1 << max(1, (n - 1).bit_length())}), "
                f"or n_fft={1 << max(1, (n - 1).bit_length())} for torch.stft)")
        power = 2 if all(len(a.users) == 1 and _is_square(next(iter(a.users))) for a in leaves) else 1
        scale = float(n ** (-_NORM_EXPONENT[int(norm)] * power))
        if n not in tables:
            tables[n] = prog.add_constant(f"fft_twiddles_{n}", torch.from_numpy(twiddles(n, "float32")))
        out_val = fft.meta["val"]
        with graph.inserting_before(fft):
            src = x
            if dim != rank - 1:
                perm = [d for d in range(rank) if d != dim] + [dim]
                src = _call(graph, aten.permute.default, (x, perm), fft,
                            torch.empty([int(xval.shape[d]) for d in perm], dtype=xval.dtype, device="meta"))
            shape = list(src.meta["val"].shape)
            shape[-1] = n // 2 + 1
            real = _call(graph, mote_op("rfft_mag"), (src, tables[n], power, scale), fft,
                         torch.empty(shape, dtype=torch.float32, device="meta"))
            if not onesided and n > 2:  # the full spectrum of a real signal: |X[n-k]| = |X[k]|
                inner = shape[:-1] + [n // 2 - 1]
                mid = _call(graph, aten.slice.Tensor, (real, -1, 1, n // 2), fft,
                            torch.empty(inner, dtype=torch.float32, device="meta"))
                mirror = _call(graph, aten.flip.default, (mid, [-1]), fft,
                               torch.empty(inner, dtype=torch.float32, device="meta"))
                real = _call(graph, aten.cat.default, ([real, mirror], -1), fft,
                             torch.empty(shape[:-1] + [n], dtype=torch.float32, device="meta"))
            if dim != rank - 1:
                inv = [perm.index(d) for d in range(rank)]
                real = _call(graph, aten.permute.default, (real, inv), fft, _real_val(out_val))
        mapped = {fft: real}
        for node in layout:
            with graph.inserting_after(mapped[node.args[0]]):
                mapped[node] = _call(graph, node.target, (mapped[node.args[0]],) + tuple(node.args[1:]), node,
                                     _real_val(node.meta["val"]))
        for a in leaves:
            end = next(iter(a.users)) if power == 2 else a
            end.replace_all_uses_with(mapped[a.args[0]])
        graph.eliminate_dead_code()
        done += 1
    return done


def _window_operands(prog: EdgeProgram, mul: torch.fx.Node, n: int):
    """(signal, window) of ``mul(signal, window)`` (either order) whose window is a
    float32 constant [n] and signal a float32 tensor, else None."""
    if mul.op != "call_function" or mul.target != aten.mul.Tensor or mul.kwargs or len(mul.args) != 2:
        return None
    for signal, window in (mul.args, mul.args[::-1]):
        if isinstance(window, torch.fx.Node) and prog.is_const(window) and isinstance(signal, torch.fx.Node):
            w, x = prog.constants[window.name], signal.meta.get("val")
            if w.dtype == torch.float32 and tuple(w.shape) == (n,) and isinstance(x, torch.Tensor) \
                    and x.dtype == torch.float32 and x.shape[-1] == n:
                return signal, window
    return None


def _int16_source(node: torch.fx.Node):
    """x when ``node`` is ``x.to(float32)`` of an int16 x read by nothing else, else None."""
    if node.op != "call_function" or node.target != aten._to_copy.default or len(node.users) != 1:
        return None
    src = node.args[0]
    val = src.meta.get("val") if isinstance(src, torch.fx.Node) else None
    ok = isinstance(val, torch.Tensor) and val.dtype == torch.int16 and set(node.kwargs) <= {"dtype"} \
        and node.kwargs.get("dtype") == torch.float32 and len(node.args) == 1
    return src if ok else None


def fuse_window(prog: EdgeProgram) -> int:
    """Rewrite ``rfft_mag(signal * window)`` (window a float32 constant [N], the product
    read by nothing else) into ``mote::rfft_mag_window(signal, ..., window)``, and take
    an int16 signal's ``.to(float32)`` in too: the kernel forms float(x) * window, the
    same float32 products, while it fills the transform's input
    (kernels/op_mote_rfft_mag_window.c). Run after fold_scale, so a power-of-two
    scale before the window is in it. Returns how many."""
    from aot.compiler.mote_ops import op as mote_op
    done = 0
    for n in list(prog.graph.nodes):
        if n.op != "call_function" or n.target != mote_op("rfft_mag"):
            continue
        mul = n.args[0]
        if not isinstance(mul, torch.fx.Node) or len(mul.users) != 1:
            continue
        found = _window_operands(prog, mul, int(mul.meta["val"].shape[-1]))
        if found is None:
            continue
        signal, window = found
        cast = _int16_source(signal)
        with prog.graph.inserting_before(n):
            new = prog.graph.call_function(mote_op("rfft_mag_window"),
                                           (cast if cast is not None else signal,) + tuple(n.args[1:]) + (window,))
        copy_source_meta(new, n)
        new.meta["val"] = n.meta["val"]
        fused = ([signal] if cast is not None else []) + [mul, n]
        set_fused(new, [name for x in fused for name in fused_nodes(x)])
        n.replace_all_uses_with(new)
        for dead in (n, mul) + ((signal,) if cast is not None else ()):
            prog.graph.erase_node(dead)
        done += 1
    return done
