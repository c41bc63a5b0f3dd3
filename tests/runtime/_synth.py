"""A hand-built .pte (flatbuffers Builder, no executorch) exercising what ExecuTorch's
exporter rarely emits: executorch_prim::et_view with an unplanned output,
JumpFalseCall, MoveCall, FreeCall, and every value kind (lists, strings, ...).

Instructions of the default program (values in VALUES below):
  0 et_view(x:[2,3] -> v:[3,2])        v aliases x (unplanned tensor)
  1 relu.out(v, out=y)                 y = relu(v)
  2 JumpFalse(cond=false, dest=4)      skips 3
  3 add.out(y, y, 3, out=z)            (skipped: z stays 0)
  4 Free(v)
  5 Move(y -> w)                       w now names y's tensor
Outputs: [y, z, w].
"""
import flatbuffers

# EValue union tags
NULL, INT, BOOL, DOUBLE, TENSOR, STRING, INT_LIST, DOUBLE_LIST, BOOL_LIST, TENSOR_LIST, OPT_TENSOR_LIST = range(1, 12)
KERNEL, DELEGATE, MOVE, JUMP_FALSE, FREE = range(1, 6)
F32 = 6


def default_spec():
    values = [
        (TENSOR, dict(dtype=F32, sizes=[2, 3], mem=(1, 0))),       # 0 x (input)
        (INT, 3),                                                  # 1
        (INT, 2),                                                  # 2
        (INT_LIST, [1, 2]),                                        # 3 (3, 2)
        (TENSOR, dict(dtype=F32, sizes=[3, 2], mem=None)),         # 4 v: et_view output
        (TENSOR, dict(dtype=F32, sizes=[3, 2], mem=(1, 32))),      # 5 y
        (BOOL, False),                                             # 6 jump condition
        (NULL, None),                                              # 7
        (TENSOR_LIST, [0, 5]),                                     # 8
        (OPT_TENSOR_LIST, [-1, 5, 7]),                             # 9
        (TENSOR, dict(dtype=F32, sizes=[3, 2], mem=(1, 64))),      # 10 z
        (TENSOR, dict(dtype=F32, sizes=[3, 2], mem=(1, 96))),      # 11 w (move target)
        (DOUBLE, 0.5),                                             # 12
        (STRING, "hello"),                                         # 13
        (DOUBLE_LIST, [1.5, -2.0]),                                # 14
        (BOOL_LIST, [True, False]),                                # 15
    ]
    instrs = [
        (KERNEL, dict(op=0, args=[0, 3, 4])),
        (KERNEL, dict(op=1, args=[4, 5, 5])),
        (JUMP_FALSE, dict(cond=6, dest=4)),
        (KERNEL, dict(op=2, args=[5, 5, 1, 10, 10])),
        (FREE, dict(value=4)),
        (MOVE, dict(src=5, dst=11)),
    ]
    ops = [("executorch_prim::et_view", "default"), ("aten::relu", "out"), ("aten::add", "out")]
    return dict(values=values, instrs=instrs, ops=ops, inputs=[0], outputs=[5, 10, 11],
                buffer_sizes=[0, 128], name="forward")


def _vec(b, kind, items):
    size = {"i32": 4, "i64": 8, "u8": 1, "off": 4, "f64": 8}[kind]
    b.StartVector(size, len(items), size)
    for it in reversed(items):
        {"i32": b.PrependInt32, "i64": b.PrependInt64, "u8": b.PrependUint8,
         "off": b.PrependUOffsetTRelative, "f64": b.PrependFloat64}[kind](it)
    return b.EndVector()


def _table(b, nslots, fields):
    b.StartObject(nslots)
    for slot, kind, val in fields:
        {"off": b.PrependUOffsetTRelativeSlot, "u8": b.PrependUint8Slot, "i8": b.PrependInt8Slot,
         "u32": b.PrependUint32Slot, "i32": b.PrependInt32Slot, "i64": b.PrependInt64Slot,
         "f64": b.PrependFloat64Slot, "bool": b.PrependBoolSlot}[kind](slot, val, 0)
    return b.EndObject()


def build(spec=None) -> bytes:
    spec = spec or default_spec()
    b = flatbuffers.Builder(4096)
    b.ForceDefaults(True)
    evals = []
    for tag, val in spec["values"]:
        if tag == NULL:
            inner = _table(b, 0, [])
        elif tag == INT:
            inner = _table(b, 1, [(0, "i64", val)])
        elif tag == BOOL:
            inner = _table(b, 1, [(0, "bool", val)])
        elif tag == DOUBLE:
            inner = _table(b, 1, [(0, "f64", val)])
        elif tag == STRING:
            s = b.CreateString(val)
            inner = _table(b, 1, [(0, "off", s)])
        elif tag == INT_LIST:
            inner = _table(b, 1, [(0, "off", _vec(b, "i64", val))])
        elif tag == DOUBLE_LIST:
            inner = _table(b, 1, [(0, "off", _vec(b, "f64", val))])
        elif tag == BOOL_LIST:
            inner = _table(b, 1, [(0, "off", _vec(b, "u8", [int(x) for x in val]))])
        elif tag in (TENSOR_LIST, OPT_TENSOR_LIST):
            inner = _table(b, 1, [(0, "off", _vec(b, "i32", val))])
        else:
            sizes = _vec(b, "i32", val["sizes"])
            order = _vec(b, "u8", val.get("dim_order", list(range(len(val["sizes"])))))
            alloc = None
            if val.get("mem") is not None:
                mid, off = val["mem"]
                alloc = _table(b, 3, [(0, "u32", mid), (1, "u32", off & 0xFFFFFFFF), (2, "u32", off >> 32)])
            fields = [(0, "i8", val["dtype"]), (2, "off", sizes), (3, "off", order),
                      (5, "u32", val.get("buffer", 0))]
            if alloc is not None:
                fields.append((6, "off", alloc))
            inner = _table(b, 10, fields)
        evals.append(_table(b, 2, [(0, "u8", tag), (1, "off", inner)]))
    values = _vec(b, "off", evals)
    ins_tables = []
    for tag, a in spec["instrs"]:
        if tag in (KERNEL, DELEGATE):
            args = _vec(b, "i32", a["args"])
            inner = _table(b, 2, [(0, "i32", a["op"]), (1, "off", args)])
        elif tag == MOVE:
            inner = _table(b, 2, [(0, "i32", a["src"]), (1, "i32", a["dst"])])
        elif tag == JUMP_FALSE:
            inner = _table(b, 2, [(0, "i32", a["cond"]), (1, "i32", a["dest"])])
        else:
            inner = _table(b, 1, [(0, "i32", a["value"])])
        ins_tables.append(_table(b, 2, [(0, "u8", tag), (1, "off", inner)]))
    instructions = _vec(b, "off", ins_tables)
    chain = _table(b, 4, [(2, "off", instructions)])
    chains = _vec(b, "off", [chain])
    op_tables = []
    for name, overload in spec["ops"]:
        n, o = b.CreateString(name), b.CreateString(overload)
        op_tables.append(_table(b, 2, [(0, "off", n), (1, "off", o)]))
    ops = _vec(b, "off", op_tables)
    inputs = _vec(b, "i32", spec["inputs"])
    outputs = _vec(b, "i32", spec["outputs"])
    sizes = _vec(b, "i64", spec["buffer_sizes"])
    name = b.CreateString(spec["name"])
    plan = _table(b, 10, [(0, "off", name), (2, "off", values), (3, "off", inputs), (4, "off", outputs),
                          (5, "off", chains), (6, "off", ops), (8, "off", sizes)])
    plans = _vec(b, "off", [plan])
    root_fields = [(0, "u32", 0), (1, "off", plans)]
    if spec.get("constant_buffer"):
        bufs = []
        for blob in spec["constant_buffer"]:
            b.StartVector(1, len(blob), 16)  # Buffer.storage is force_align 16
            for byte in reversed(blob):
                b.PrependUint8(byte)
            bufs.append(_table(b, 1, [(0, "off", b.EndVector())]))
        root_fields.append((2, "off", _vec(b, "off", bufs)))
    root = _table(b, 8, root_fields)
    b.Finish(root, file_identifier=b"ET12")
    return bytes(b.Output())
