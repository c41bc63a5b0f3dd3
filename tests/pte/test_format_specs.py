"""Hand-built ProgramSpecs shared by the .pte format tests (and sanity tests of them).

Each builder returns (spec, reference) where ``reference(*inputs)`` computes the
expected outputs with numpy. KernelCall args follow ExecuTorch's convention:
schema args (out included), then the returned tensor again.
"""
import numpy as np

from aot import ir

F32 = 6
I8 = 1


def linear_relu_spec(seed: int = 0):
    """x[2,3] -> addmm(bias, x, W^T) -> relu, one arena (64 bytes)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    values = [
        ir.TensorValue([2, 3], F32, mem_id=1, mem_offset=0, name="x"),             # 0 input
        ir.TensorValue([4], F32, constant=b.tobytes(), name="fc.bias"),            # 1
        ir.TensorValue([3, 4], F32, constant=np.ascontiguousarray(w.T).tobytes(),  # 2
                       name="fc.weight_t"),
        1,                                                                         # 3 beta
        1,                                                                         # 4 alpha
        ir.TensorValue([2, 4], F32, mem_id=1, mem_offset=32, name="addmm"),        # 5
        ir.TensorValue([2, 4], F32, mem_id=1, mem_offset=0, name="relu"),          # 6 output
    ]
    instructions = [
        ir.KernelCall("aten::addmm", "out", [1, 0, 2, 3, 4, 5, 5], source="model.py:12 (forward)"),
        ir.KernelCall("aten::relu", "out", [5, 6, 6], source="model.py:13 (forward)"),
    ]
    spec = ir.ProgramSpec(values=values, inputs=[0], outputs=[6], instructions=instructions,
                          arena_sizes=[0, 64])

    def reference(x):
        return [np.maximum(x @ w.T + b, 0).astype(np.float32)]
    return spec, reference


def view_cat_permute_spec(seed: int = 1):
    """x[2,3], y[2,3] -> cat([x, c, y], 0) [6,3] -> et_view [3,6] (alias, unplanned)
    -> permute_copy(dims=[1,0]) [6,3] -> relu; also returns the cat result.
    Two arenas (mem_id 1 and 2); IntLists [3, 6] and [1, 0]."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((2, 3)).astype(np.float32)
    values = [
        ir.TensorValue([2, 3], F32, mem_id=1, mem_offset=0, name="x"),      # 0
        ir.TensorValue([2, 3], F32, mem_id=1, mem_offset=32, name="y"),     # 1
        ir.TensorValue([2, 3], F32, constant=c.tobytes(), name="c"),        # 2
        ir.TensorListValue([0, 2, 1]),                                      # 3
        0,                                                                  # 4 dim
        ir.TensorValue([6, 3], F32, mem_id=2, mem_offset=0, name="cat"),    # 5 output 1
        ir.IntListValue([3, 6]),                                            # 6
        ir.TensorValue([3, 6], F32, name="view"),                           # 7 unplanned alias
        ir.IntListValue([1, 0]),                                            # 8
        ir.TensorValue([6, 3], F32, mem_id=1, mem_offset=72, name="perm"),  # 9
        ir.TensorValue([6, 3], F32, mem_id=1, mem_offset=0, name="relu"),   # 10 output 0
    ]
    instructions = [
        ir.KernelCall("aten::cat", "out", [3, 4, 5, 5], source="model.py:20"),
        ir.KernelCall("executorch_prim::et_view", "default", [5, 6, 7], source="model.py:21"),
        ir.KernelCall("aten::permute_copy", "out", [7, 8, 9, 9], source="model.py:22"),
        ir.KernelCall("aten::relu", "out", [9, 10, 10], source="model.py:23"),
    ]
    spec = ir.ProgramSpec(values=values, inputs=[0, 1], outputs=[10, 5], instructions=instructions,
                          arena_sizes=[0, 144, 72])

    def reference(x, y):
        cat = np.concatenate([x, c, y], 0)
        return [np.maximum(cat.reshape(3, 6).T, 0).astype(np.float32), cat]
    return spec, reference


def relu_only_spec():
    """No constants at all: x[4] -> relu (empty constant segment)."""
    values = [ir.TensorValue([4], F32, mem_id=1, mem_offset=0),
              ir.TensorValue([4], F32, mem_id=1, mem_offset=16)]
    spec = ir.ProgramSpec(values=values, inputs=[0], outputs=[1],
                          instructions=[ir.KernelCall("aten::relu", "out", [0, 1, 1])],
                          arena_sizes=[0, 32])
    return spec, lambda x: [np.maximum(x, 0)]


def scalars_spec():
    """Every EValue kind the emitter supports, plus an int8 constant; no instructions
    beyond one clone (inputs/outputs must be tensors)."""
    q = np.arange(-8, 8, dtype=np.int8)
    values = [
        ir.TensorValue([16], I8, mem_id=1, mem_offset=0),                   # 0
        ir.TensorValue([16], I8, constant=q.tobytes()),                     # 1
        None, True, False, -(2 ** 40), 2.5, "hello",                        # 2..7
        ir.DoubleListValue([0.5, -1.25]), ir.BoolListValue([True, False, True]),  # 8, 9
        ir.TensorListValue([0, -1, 1], optional=True),                      # 10
        ir.IntListValue([7, -(2 ** 40), 7]),                                # 11
        ir.TensorValue([16], I8, mem_id=1, mem_offset=16),                  # 12
        ir.TensorValue([16], I8, constant=q.tobytes()),                     # 13 same bytes as 1
    ]
    spec = ir.ProgramSpec(values=values, inputs=[0], outputs=[12],
                          instructions=[ir.KernelCall("aten::clone", "out", [0, 2, 12, 12])],
                          arena_sizes=[0, 32])
    return spec


def test_builders_are_consistent():
    for spec in (linear_relu_spec()[0], view_cat_permute_spec()[0], relu_only_spec()[0], scalars_spec()):
        for v in spec.values:
            if isinstance(v, ir.TensorValue) and v.mem_id is not None:
                assert v.mem_offset + v.nbytes <= spec.arena_sizes[v.mem_id]
            if isinstance(v, ir.TensorValue) and v.constant is not None:
                assert len(v.constant) == v.nbytes


def test_references_shapes():
    spec, ref = view_cat_permute_spec()
    x = np.ones((2, 3), np.float32)
    outs = ref(x, x)
    assert [list(o.shape) for o in outs] == [spec.values[i].sizes for i in spec.outputs]
