"""Structured (flatbuffer-aware) mutation of real XNNPACK payloads (issue 34): byte mutation
rarely gets a payload past its flatbuffer checks, so these edits work on the decoded XNNGraph
(aot/backends/xnnpack/schema.py) -- value ids of nodes, datatypes, dims, quantization, flags
and external ids, node kinds, order and parameters -- and re-serialize it into the program.
A child process inits every mutant with the ASan + UBSan build of the host library (and
executes the ones init accepts); each must end in success or a Mote error code, never a
signal or a sanitizer report. 2,000 mutants, about 40 s; a campaign of 20,000 release and
10,000 sanitized mutants (other seeds) found nothing either."""
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aot.backends.xnnpack import schema as xs
from aot.compiler.pipeline import compile_model_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_delegate_xnnpack as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: mutants per base payload, and edits per mutant (1..MAX_EDITS)
PER_BASE, MAX_EDITS = 400, 3
ID_FIELDS = ("input_id", "input1_id", "input2_id", "filter_id", "bias_id", "output_id")
DTYPES = (xs.FP32, xs.QINT8, xs.QINT32, xs.QCINT8, xs.QCINT32, 0, 2, 4, 99)
#: node kinds by arity: an edit may swap a node for another of the same fields
UNARY = ("XNNClamp", "XNNSigmoid", "XNNSoftmax", "XNNFloor", "XNNCeiling", "XNNSquareRoot", "XNNHardswish",
         "XNNConvert", "XNNGlobalAvgPooling2d")
BINARY = ("XNNAdd", "XNNMultiply", "XNNSubtract", "XNNDiv", "XNNMinimum")


def _odd_u32(rng, n):
    """A value id or size near the edges: valid ones, n, INVALID, 0, large."""
    return rng.choice([rng.randrange(max(n, 1)), rng.randrange(max(n, 1)), n, n + 1, xs.INVALID_ID, 0,
                       0x7FFFFFFF, 0xFFFFFFFE])


def _odd_dim(rng, d):
    return rng.choice([0, 1, 2, d + 1, max(d - 1, 0), 2 * d, 3, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF])


def _odd_scale(rng, s):
    return rng.choice([0.0, -s, float("nan"), float("inf"), 1e-40, 1 / 256, s * 2, 1e30])


def _mutate(rng: random.Random, g) -> str:
    """One structured edit of graph g; returns what it did."""
    while True:
        done = _edit(rng, g, rng.randrange(11))
        if done:
            return done


def _edit(rng: random.Random, g, kind: int):
    """Edit `kind` of graph g (what it did), or None when g has nothing it applies to."""
    values, nodes = g.xvalues, g.xnodes
    if kind == 0 and nodes:                          # a node's value id
        u = rng.choice(nodes).xnode_union
        fields = [f for f in ID_FIELDS if hasattr(u, f)]
        if fields:
            f = rng.choice(fields)
            setattr(u, f, _odd_u32(rng, len(values)))
            return f"node {type(u).__name__}.{f}"
    if kind == 1 and values:                         # a value's datatype (quantization kept)
        t = xs.tensor_of(rng.choice(values))
        t.datatype = rng.choice(DTYPES)
        return f"value {t.id_out} datatype {t.datatype}"
    if kind == 2 and values:                         # a value's dims
        t = xs.tensor_of(rng.choice(values))
        dims = list(t.dims)
        r = rng.randrange(4)
        if r == 0 and dims:
            k = rng.randrange(len(dims))
            dims[k] = _odd_dim(rng, dims[k])
        elif r == 1:
            dims.insert(rng.randrange(len(dims) + 1), rng.choice([1, 2]))
        elif r == 2 and dims:
            dims.pop(rng.randrange(len(dims)))
        else:
            dims = dims[::-1]
        t.dims = dims
        t.num_dims = len(dims) if rng.random() < 0.9 else rng.choice([0, 7, len(dims) + 1])
        return f"value {t.id_out} dims {dims}"
    if kind == 3 and values:                         # flags, external id, constant entry, id_out
        t = xs.tensor_of(rng.choice(values))
        f = rng.choice(["flags", "external_id", "constant_buffer_idx", "id_out"])
        setattr(t, f, rng.choice([0, 1, 2, 3, 4, xs.INVALID_ID, len(values), len(g.constant_data)]))
        return f"value {f}"
    if kind == 4 and values:                         # quantization
        v = rng.choice(values)
        u = v.xvalue_union
        if isinstance(u, xs.XNNQuantizedTensorValue):
            q = u.quant_params
            if isinstance(q, xs.PerTensorQuant):
                if rng.random() < 0.5:
                    q.scale = _odd_scale(rng, q.scale)
                else:
                    q.zero_point = rng.choice([-129, 128, -128, 127, 0, 1 << 20])
            elif isinstance(q, xs.PerChannelQuant):
                r = rng.randrange(3)
                if r == 0:
                    q.channel_dim = rng.choice([-1, 0, 1, 3, 5, 6])
                elif r == 1 and q.scale:
                    q.scale = list(q.scale)[:rng.randrange(len(q.scale) + 1)]
                elif q.scale:
                    s = list(q.scale)
                    s[rng.randrange(len(s))] = _odd_scale(rng, s[0])
                    q.scale = s
            return "quantization"
        t = xs.tensor_of(v)                          # quantize a plain value
        v.xvalue_union = xs.XNNQuantizedTensorValue(t, xs.PerTensorQuant(scale=0.05, zero_point=0))
        return "quantized a plain value"
    if kind == 5 and nodes:                          # swap a node's kind for one with the same fields
        i = rng.randrange(len(nodes))
        u = nodes[i].xnode_union
        name = type(u).__name__
        for group in (UNARY, BINARY):
            if name in group:
                new = xs.NODE_TYPES[rng.choice(group)](**vars(u))
                nodes[i] = xs.XNode(xnode_union=new, output_min_max=nodes[i].output_min_max)
                return f"node {name} -> {type(new).__name__}"
    if kind == 6 and nodes:                          # order: swap, duplicate, drop
        r = rng.randrange(3)
        i, j = rng.randrange(len(nodes)), rng.randrange(len(nodes))
        if r == 0:
            nodes[i], nodes[j] = nodes[j], nodes[i]
        elif r == 1:
            nodes.insert(j, nodes[i])
        else:
            nodes.pop(i)
        return "node order"
    if kind == 7 and nodes:                          # a scalar parameter of a node
        u = rng.choice(nodes).xnode_union
        fields = [f for f, v in vars(u).items() if isinstance(v, int) and f not in ID_FIELDS]
        if fields:
            f = rng.choice(fields)
            setattr(u, f, rng.choice([0, 1, 2, 3, 7, 0x40, 0x10000, xs.INVALID_ID]))
            return f"node {type(u).__name__}.{f}"
        lists = [f for f, v in vars(u).items() if isinstance(v, list)]
        if lists:
            f = rng.choice(lists)
            lst = list(getattr(u, f))
            setattr(u, f, lst[::-1] if rng.random() < 0.5 else lst + [rng.choice([0, 1, 9])])
            return f"node {type(u).__name__}.{f} list"
    if kind == 8 and nodes:                          # the fused clamp
        n = rng.choice(nodes)
        n.output_min_max = xs.OutputMinMax(output_min=rng.choice([0.0, 1.0, float("nan"), -float("inf")]),
                                           output_max=rng.choice([0.0, -1.0, 6.0, float("nan")]))
        return "output_min_max"
    if kind == 9 and len(values) > 1:                # a value takes another's dims and datatype
        src, dst = xs.tensor_of(rng.choice(values)), xs.tensor_of(rng.choice(values))
        dst.dims, dst.num_dims, dst.datatype = list(src.dims), src.num_dims, src.datatype
        return f"value {dst.id_out} as value {src.id_out}"
    if kind == 10 and rng.random() < 0.2:            # the graph's own counts
        g.num_externs = rng.choice([0, 1, 2, 3, 0xFFFFFFFF])
        return f"num_externs {g.num_externs}"
    return None


CHILD = textwrap.dedent("""\
    import sys
    from aot.host.runtime import MoteError, Program
    for path in sys.argv[1:]:
        print("start", path, flush=True)
        try:
            m = Program(open(path, "rb").read()).method()
            m.execute()
            verdict = "MOTE_OK"
        except MoteError as e:
            verdict = e.name
        print("end", path, verdict, flush=True)
    """)


def _sanitized_env() -> dict:
    """The environment that runs aot.host.runtime on build/host-asan's libmote.so: its
    compiler's ASan and UBSan runtimes preloaded into Python, stopping at the first report."""
    from shared_build import ASAN, cmake_build
    build = cmake_build(ASAN, sanitize=True)
    cache = (build / "CMakeCache.txt").read_text()
    cc = next(ln.split("=", 1)[1] for ln in cache.splitlines() if ln.startswith("CMAKE_C_COMPILER:"))
    pre = [subprocess.run([cc, f"-print-file-name={n}"], capture_output=True, text=True, check=True).stdout.strip()
           for n in ("libasan.so", "libubsan.so")]
    assert all(Path(p).is_file() for p in pre), pre
    return dict(os.environ, LD_PRELOAD=" ".join(pre), MOTE_LIB=str(build / "ports" / "linux" / "libmote.so"),
                ASAN_OPTIONS="detect_leaks=0:halt_on_error=1", UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """program(edit) for each real payload (edit(graph) changes it): the fp32 mixed model's three
    delegates (conv; depthwise conv + add; fully connected + softmax), the int8 ds_cnn's (qs8/qc8
    convolutions, reshapes, global pooling, qc8 fully connected) and ExecuTorch's int8 input
    pattern (Convert, staged transpose)."""
    d = tmp_path_factory.mktemp("bases")
    (d / "mixed.py").write_text(T.MIXED)
    (d / "conv1x1.py").write_text(T.CONV1X1)
    mixed = compile_model_file(d / "mixed.py", delegate="xnnpack")
    conv1x1 = compile_model_file(d / "conv1x1.py", delegate="xnnpack")
    return [lambda e: T._with_payload(mixed, e, 0), lambda e: T._with_payload(mixed, e, 1),
            lambda e: T._with_payload(mixed, e, 2), lambda e: T._with_payload(T._delegated8("ds_cnn"), e, 0),
            lambda e: T._many_nodes(conv1x1, 7, edit=e)]


def test_structured_mutants_end_in_a_code_never_a_signal(bases, tmp_path):
    rng = random.Random(34)
    files, what = [], {}
    for b, program in enumerate(bases):
        for i in range(PER_BASE):
            edits = []

            def edit(g, edits=edits):
                for _ in range(rng.randint(1, MAX_EDITS)):
                    edits.append(_mutate(rng, g))
            pte = program(edit)
            f = tmp_path / f"m{b}_{i}.pte"
            f.write_bytes(pte)
            files.append(f)
            what[str(f)] = edits
    r = subprocess.run([sys.executable, "-c", CHILD, *map(str, files)], capture_output=True, text=True,
                       timeout=600, cwd=ROOT, env=_sanitized_env())
    started = [ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("start ")]
    ended = {ln.split()[1]: ln.split()[2] for ln in r.stdout.splitlines() if ln.startswith("end ")}
    if r.returncode != 0:   # a signal, a sanitizer report (or a Python error): name the mutant
        last = started[-1] if started else None
        pytest.fail(f"child exited {r.returncode} on {last} ({what.get(last)}):\n{r.stderr[-3000:]}")
    assert len(ended) == len(files)
    verdicts = list(ended.values())
    assert all(v == "MOTE_OK" or v.startswith("MOTE_ERR_") for v in verdicts), set(verdicts)
    ok = verdicts.count("MOTE_OK")
    # the edits are neither all fatal nor all harmless: both outcomes occur often
    assert 0.02 * len(files) < ok < 0.9 * len(files), (ok, len(files))
    assert verdicts.count("MOTE_ERR_BACKEND_PAYLOAD") > 0.3 * len(files)
