"""Streaming windows updated in place: a pass over an unplanned
:class:`aot.ir.ProgramSpec`.

A streaming model keeps its last L frames in a mutable buffer and, each call,
appends the n new ones and keeps the newest L::

    full = torch.cat([buf, new], dim)
    buf.copy_(full[..., n:])      # slice along dim
    y = f(buf)                    # reads the window's new value

which lowers to three calls: ``cat`` (L + n frames into a temporary),
``slice_copy`` (L frames into another) and, at the end of the method, the
write-back ``copy_``. When nothing but that slice reads ``full``, and nothing
but ``cat`` reads the buffer's old value, the three are one
``mote::window_push(buf, new, dim)`` (kernels/op_mote_window_push.c): the
buffer moves n frames toward its start in place and takes ``new`` at its end,
and the slice's readers read the buffer. Two temporaries leave the arena and 3L
frames of copying become L - n.

A model that reads ``full`` itself (a convolution over the L + n frames) keeps
the three calls; written so that the buffer holds the whole window it reads
(``buf`` of L + n frames, the model reading its new value), it gets the one call.
"""
from __future__ import annotations

from aot import ir
from aot.compiler.liveness import call_tensors
from aot.compiler.share_values import remap_values

#: the kernel the rewrite calls (kernels/op_mote_window_push.c)
WINDOW_PUSH = ("mote::window_push", "default")


def _name(call) -> str:
    return f"{call.op}.{call.overload}"


def _int(spec: ir.ProgramSpec, idx: int):
    v = spec.values[idx]
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _cat2(spec: ir.ProgramSpec, call):
    """(first, second, dim, out) of a cat.out of two tensors, else None."""
    if _name(call) != "aten::cat.out" or len(call.args) != 4:
        return None
    items, dim = spec.values[call.args[0]], _int(spec, call.args[1])
    if not isinstance(items, ir.TensorListValue) or len(items.items) != 2 or dim is None:
        return None
    return items.items[0], items.items[1], dim, call.args[2]


def _drops_front(spec: ir.ProgramSpec, call, src: int, dim: int, n: int, length: int) -> bool:
    """True if ``call`` is slice_copy(src, dim, n, >= length, 1): all but the first n frames."""
    if _name(call) != "aten::slice_copy.Tensor_out" or len(call.args) != 7 or call.args[0] != src:
        return False
    rank = len(spec.values[src].sizes)
    sdim, start, end, step = (_int(spec, a) for a in call.args[1:5])
    open_end = spec.values[call.args[3]] is None
    return sdim is not None and sdim % rank == dim and start == n and step == 1 \
        and (open_end or (end is not None and end >= length))


def _window(spec: ir.ProgramSpec, calls: list, readers: dict, k: int):
    """(buffer, new, dim, cat step, dropped steps, value the buffer now holds, call
    whose record the push keeps) when call k is the cat of a window update, else None.

    A: full = cat([buf, new]); win = full[n:]; ...win...; copy_(buf, win)
    B: win = buf[n:]; full = cat([win, new]); ...full...; copy_(buf, full)
    Either way: the cat's and slice's results have no other reader, the buffer no
    other reader than the first of them and the write-back, which is the
    method's last word on it."""
    cat = _cat2(spec, calls[k])
    if cat is None:
        return None
    first, new, dim, full = cat
    nv = spec.values[new]
    if not isinstance(nv, ir.TensorValue) or not nv.sizes:
        return None
    dim %= len(nv.sizes)
    n = nv.sizes[dim]
    fv = spec.values[first]
    if isinstance(fv, ir.TensorValue) and fv.is_mutable:               # form A
        buf, rs = first, readers.get(full, [])
        if len(rs) != 2 or rs[0] != k or not _drops_front(spec, calls[rs[1]], full, dim, n,
                                                          fv.sizes[dim] + n):
            return None
        slice_step, holds, record = rs[1], calls[rs[1]].args[5], calls[rs[1]]
    else:                                                               # form B
        made = [j for j in readers.get(first, []) if j < k and calls[j].args[-1] == first]
        if len(made) != 1 or readers.get(first, []) != [made[0], k]:
            return None
        slice_step = made[0]
        buf = calls[slice_step].args[0]
        bv = spec.values[buf]
        if not (isinstance(bv, ir.TensorValue) and bv.is_mutable) \
                or not _drops_front(spec, calls[slice_step], buf, dim, n, bv.sizes[dim]):
            return None
        holds, record = full, calls[k]
    bv = spec.values[buf]
    if buf == new or len(bv.sizes) != len(nv.sizes) or bv.dtype != nv.dtype or not 1 <= n <= bv.sizes[dim] \
            or any(a != b for d, (a, b) in enumerate(zip(bv.sizes, nv.sizes)) if d != dim):
        return None
    # the buffer: read by the first call of the update, then written back by copy_(buf, holds) last
    first_read = k if holds != full else slice_step
    rb = readers.get(buf, [])
    if len(rb) != 2 or rb[0] != first_read:
        return None
    wb = calls[rb[1]]
    if _name(wb) != "aten::copy_.default" or wb.args[:2] != [buf, holds] or holds in spec.outputs:
        return None
    return buf, new, dim, k, (slice_step, rb[1]), holds, record


def fuse_windows(spec: ir.ProgramSpec) -> int:
    """Rewrite every window update of unplanned ``spec`` (above) into one
    ``mote::window_push``, in place. The call keeps the record (node, source, int8
    value) of the call whose value the buffer now holds. Returns how many."""
    calls = spec.instructions
    if not all(isinstance(c, ir.KernelCall) for c in calls):
        return 0  # a delegate's arguments are not read here: leave the chain as it is
    readers = {}
    for k, c in enumerate(calls):
        for t in dict.fromkeys(call_tensors(spec, c)):
            readers.setdefault(t, []).append(k)
    found = [w for w in (_window(spec, calls, readers, k) for k in range(len(calls))) if w]
    if not found:
        return 0
    drop, renamed = set(), {}
    for buf, new, dim, k, dropped, holds, record in found:
        push = calls[k]
        push.op, push.overload = WINDOW_PUSH
        push.args = [buf, new, _int_value(spec, dim), buf]
        push.node, push.nodes, push.module, push.q, push.qparams = (record.node, record.nodes, record.module,
                                                                    record.q, record.qparams)
        push.source = record.source or push.source
        renamed[holds] = buf
        drop.update(dropped)
    spec.instructions = [c for k, c in enumerate(calls) if k not in drop]
    for c in spec.instructions:
        c.args = [renamed.get(a, a) for a in c.args]
    for v in spec.values:
        if isinstance(v, ir.TensorListValue):
            v.items = [renamed.get(a, a) for a in v.items]
    _drop_unused_tensors(spec)
    return len(found)


def _int_value(spec: ir.ProgramSpec, value: int) -> int:
    """Index of a new Int value."""
    spec.values.append(int(value))
    return len(spec.values) - 1


def _drop_unused_tensors(spec: ir.ProgramSpec) -> None:
    """Remove the tensor (and tensor list) values no call, input or output refers to
    any more (the cat's and the slice's results, the cat's list): init refuses a
    planned-size tensor with no storage."""
    used = set(spec.inputs) | set(spec.outputs)
    for c in spec.instructions:
        used.update(c.args)
        used.update(call_tensors(spec, c))
    kept, remap = [], {}
    for i, v in enumerate(spec.values):
        if i not in used and (isinstance(v, ir.TensorListValue) or (
                isinstance(v, ir.TensorValue) and not v.is_mutable and v.constant is None)):
            continue
        remap[i] = len(kept)
        kept.append(v)
    if len(kept) != len(spec.values):
        remap_values(spec, kept, remap)
