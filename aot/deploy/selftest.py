"""The self-test a firmware runs at boot (`aot build --selftest [N]`) and
`aot test`: its cases, their tolerance, the bundle files, the host run.

Cases: the model's example inputs, then its calibration inputs, up to N
(DEFAULT_CASES), each cast to the program's input dtypes. Expected outputs
come from the host runtime (libmote.so, aot.host.runtime) running the same
program, so the firmware is checked against the exact computation it should
reproduce, not against eager PyTorch.

Tolerance (`tolerance`): every output that is not floating point (int8,
int32, int64, bool, ...) must match byte for byte. A float output may differ
by at most RTOL x max|expected| of that output (absolute, per element): the
host build (x86-64, glibc libm, compiler-chosen FMA contraction) and the
Cortex-M build (newlib-nano libm's expf/tanhf, the M33/M55 FPU, vectorised
MVE sums in another order) round differently in the last bits of a long sum
or a transcendental. Measured with 4 cases each on mps2-an505 (M33) and
mps3-an547 (M55): small_cnn, ds_cnn, gru_kws, lstm_sensor, cov_activations,
tiny_decoder and tiny_vit differ from the host by at most 4.8e-7 absolute and
4.2e-7 of the output's max|expected| (tiny_vit on the M33: softmax, GELU,
LayerNorm); several are bit-exact. RTOL = 1e-5 leaves a margin of ~24x over
that while still catching a wrong kernel, a wrong constant or a corrupted
byte, which move outputs by far more. A float output whose expected values
are all zero must be zero.

Files: the build folder's `model.bpte` (ExecuTorch's BundledProgram, aot.pte.bundled)
holds the program and the cases; the firmware gets the cases' inputs
(generated model_selftest_inputs.c) and the expected outputs + tolerances as
one blob (`selftest_blob` in model_selftest.c, layout in
runtime/embed/mote_selftest.h, whose checker the firmware app and
mote_model_selftest() share). The UART lines the firmware prints are read by
aot.deploy.protocol.read_selftest; `run_host` makes the same report on the host.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from aot import ir
from aot.compiler.recipe import DEFAULT_CASES  # noqa: F401 (`aot build --selftest` without a number)
from aot.errors import MoteError, RunError

#: float outputs: allowed |got - expected| per element, relative to max|expected| of the output
RTOL = 1e-5
#: the method a Mote bundle's test suite names
METHOD = "forward"


@dataclass
class SelfTest:
    """inputs[k]: case k's input arrays (program dtypes); expected[k]: its outputs."""
    inputs: list
    expected: list = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.inputs)

    def tolerances(self) -> list:
        """tolerances()[k][o]: case k, output o (see `tolerance`)."""
        return [[tolerance(a) for a in outs] for outs in self.expected]


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def tolerance(expected) -> float:
    """Allowed absolute error per element of output `expected` (0 = exact)."""
    a = np.asarray(expected)
    if not is_float(a.dtype) or a.size == 0:
        return 0.0
    finite = np.abs(a[np.isfinite(a)])
    peak = float(finite.max()) if finite.size else 0.0
    return float(np.float32(RTOL * peak))


# --------------------------------------------------------------------------- cases


def case_inputs(compiled, n: int = DEFAULT_CASES) -> list:
    """Up to `n` input sets: the example inputs, then the calibration inputs,
    each cast to the program's input dtypes."""
    if n < 1:
        raise MoteError(f"--selftest needs at least 1 case, got {n}")
    spec = compiled.spec
    sets = [tuple(compiled.example_inputs)]
    for c in compiled.calibration_data or []:
        sets.append(tuple(c) if isinstance(c, (tuple, list)) else (c,))
    out = []
    for k, s in enumerate(sets[:n]):
        if len(s) != len(spec.inputs):
            raise MoteError(f"self-test case {k}: {len(s)} inputs, the program takes {len(spec.inputs)}")
        arrays = []
        for i, (a, vi) in enumerate(zip(s, spec.inputs)):
            t = spec.values[vi]
            a = np.asarray(a.detach().cpu().numpy() if hasattr(a, "detach") else a)
            if tuple(a.shape) != tuple(t.sizes):
                raise MoteError(f"self-test case {k}, input {i}: shape {tuple(a.shape)} != "
                                f"program {tuple(t.sizes)}")
            arrays.append(np.ascontiguousarray(a.astype(ir.DTYPE_NUMPY[t.dtype])))
        out.append(arrays)
    return out


def make_selftest(pte: bytes, inputs: list, ptd: Optional[bytes] = None) -> SelfTest:
    """The cases `inputs` with their expected outputs from the host runtime (ptd: the .ptd
    bytes of a program with external weights)."""
    from aot.host.runtime import Program
    method = Program(bytes(pte), data_map=ptd).method()
    expected = [[np.array(o, copy=True) for o in method.run(arrays)] for arrays in inputs]
    return SelfTest(inputs=[list(a) for a in inputs], expected=expected)


def selftest_for(compiled, n: int = DEFAULT_CASES) -> SelfTest:
    """`aot build --selftest n`: the cases of `compiled` and their expected outputs."""
    return make_selftest(compiled.pte, case_inputs(compiled, n), compiled.ptd)


# --------------------------------------------------------------------------- files


def bpte_bytes(pte: bytes, st: SelfTest) -> bytes:
    """The .bpte (BundledProgram) of `pte` with the cases of `st`."""
    from aot.pte.bundled import serialize_bundled
    return serialize_bundled(pte, {METHOD: list(zip(st.inputs, st.expected))})


def read_bpte(path) -> tuple:
    """(program bytes, method name, SelfTest) of a .bpte file (Mote's or
    ExecuTorch's). Raises RunError with one line for a file that is not one."""
    from aot.errors import FlatbufferError
    from aot.pte.bundled import bundled_suites, read_bundled
    path = Path(path)
    try:
        bp = read_bundled(path.read_bytes())
        suites = bundled_suites(bp)
    except FlatbufferError as e:
        raise RunError(f"{path} is not a bundled program (.bpte): {e}") from None
    if not bp.program:
        raise RunError(f"{path}: the bundle holds no program")
    if not suites or not any(suites.values()):
        raise RunError(f"{path}: the bundle holds no test cases")
    name = METHOD if suites.get(METHOD) else next(n for n, c in suites.items() if c)
    cases = suites[name]
    return bp.program, name, SelfTest(inputs=[c[0] for c in cases], expected=[c[1] for c in cases])


def selftest_blob(st: SelfTest) -> bytes:
    """The firmware's expected-output blob: for case 0, 1, ...: one float32
    tolerance per output (padded to 8 bytes), then each output's bytes
    (each padded to 8 bytes), so every element read is aligned."""
    blob = bytearray()
    for outs, tols in zip(st.expected, st.tolerances()):
        blob += np.asarray(tols, dtype="<f4").tobytes()
        blob += bytes(-len(blob) % 8)
        for a in outs:
            blob += np.ascontiguousarray(a).tobytes()
            blob += bytes(-len(blob) % 8)
    return bytes(blob)


# --------------------------------------------------------------------------- host


def compare(got, want, tol: float) -> dict:
    """One output of one case: max_abs_err, the first bad element (or None),
    and the verdict, by the firmware's rule (equal bytes, else |g - w| <= tol
    for floats; anything else fails)."""
    g = np.ascontiguousarray(got).reshape(-1)
    w = np.ascontiguousarray(want).reshape(-1)
    if g.dtype != w.dtype or g.size != w.size:
        return {"max_abs_err": float("inf"), "element": 0, "got": None, "want": None,
                "verdict": "FAIL", "note": f"got {g.dtype} x{g.size}, want {w.dtype} x{w.size}"}
    same = g.view(np.uint8).reshape(g.size, -1) == w.view(np.uint8).reshape(w.size, -1)
    same = same.all(axis=1) if g.size else same.reshape(0)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(g.astype(np.float64) - w.astype(np.float64))
    err = np.where(same, 0.0, err)
    bad = ~same if not is_float(w.dtype) else ~(err <= tol)
    first = int(np.argmax(bad)) if bad.any() else None
    top = float(np.max(np.where(np.isnan(err), np.inf, err))) if err.size else 0.0
    return {"max_abs_err": top, "element": first,
            "got": None if first is None else g[first].item(),
            "want": None if first is None else w[first].item(),
            "verdict": "FAIL" if first is not None else "PASS"}


def run_host(pte: bytes, st: SelfTest, method: str = METHOD, source: str = "") -> dict:
    """Run every case of `st` on the host runtime; the report of
    aot.deploy.protocol.read_selftest. source: the file the cases came from, named by
    every error."""
    from aot.host.runtime import Program
    from aot.errors import RuntimeCallError
    where = f"{source}: " if source else ""
    try:
        m = Program(bytes(pte)).method(method)
    except RuntimeCallError as e:
        raise RunError(f"{where}the host runtime cannot load method {method!r}: {e}") from None
    rows, fail = [], None
    for k, (ins, outs) in enumerate(zip(st.inputs, st.expected)):
        if len(ins) != m.num_inputs or len(outs) != m.num_outputs:
            raise RunError(f"case {k}: {len(ins)} inputs / {len(outs)} expected outputs, method "
                           f"{method!r} has {m.num_inputs} / {m.num_outputs}")
        try:
            got = m.run(ins)
        except RuntimeCallError as e:
            raise RunError(f"{where}case {k}: {e}") from None
        for o, (g, w) in enumerate(zip(got, outs)):
            tol = tolerance(w)
            r = compare(g, w, tol)
            rows.append({"case": k, "output": o, "max_abs_err": r["max_abs_err"], "tol": tol,
                         "verdict": r["verdict"]})
            if r["verdict"] == "FAIL" and fail is None:
                fail = {"case": k, "output": o, "element": r["element"], "got": r["got"],
                        "want": r["want"], "tol": tol}
    return report(rows, fail)


def report(rows: list, fail: Optional[dict]) -> dict:
    """The self-test report: verdict, n (cases), max_abs_err, rows (case,
    output, max_abs_err, tol, verdict), fail (first failing element)."""
    return {"verdict": "FAIL" if fail is not None else "PASS",
            "n": len({r["case"] for r in rows}),
            "max_abs_err": max([r["max_abs_err"] for r in rows] or [0.0]),
            "rows": rows, "fail": fail}
