"""mote::lstm_cell_s8 / gru_cell_s8 on Cortex-M in QEMU: the kernels built for
mps2-an505 (Cortex-M33, DSP) and mps3-an547 (Cortex-M55, MVE) by the bare-metal
harness of test_int8_kernels_qemu.py (tests/kernels/int8_harness/) give every
output byte of aot/compiler/quant/recurrentref.py, the cases of the host test
(tests/kernels/test_rnn_kernels.py) included. Instructions per call are printed
(-icount shift=0)."""
import shutil

import numpy as np
import pytest

from aot.compiler.quant import recurrentref as R
from tests.e2e.test_int8_kernels_qemu import TARGETS, build, parse, run_qemu
from tests.kernels.test_rnn_kernels import CASES, _args

pytestmark = pytest.mark.sim

#: the garden's cells: lstm_sensor's step (I 6, H 32) and gru_kws's two layers (10 -> 32, 32 -> 32)
GARDEN = [(True, (1, 6, 32, 15, 1.0)), (False, (1, 10, 32, 0, 1.0)), (False, (1, 32, 32, 0, 1.0))]


def _cases():
    out = []
    for lstm, case in [(lstm, c) for lstm in (True, False) for c in CASES] + GARDEN:
        rng = np.random.default_rng(hash((lstm,) + case) % 2 ** 32)
        args = _args(rng, lstm, *case)
        exp = R.lstm_cell_s8(*args) if lstm else (R.gru_cell_s8(*args),)
        name = f"{'lstm' if lstm else 'gru'}_{'_'.join(str(v) for v in case[:4])}_{len(out)}"
        b, i, h = case[:3]
        out.append(dict(name=name, op="lstm_cell_s8" if lstm else "gru_cell_s8", args=args, outs=list(exp),
                        macs=b * (4 if lstm else 3) * h * (i + h)))
    return out


def _write(path, cases):
    """vectors.h for the harness: one harness case per output of a call (the LSTM's
    hidden and cell outputs are two cases over the same arguments)."""
    ct = {np.dtype(np.int8): ("int8_t", 1), np.dtype(np.int16): ("int16_t", 2),
          np.dtype(np.int32): ("int32_t", 3)}
    L = ['#include <stdbool.h>', '#include "mote/kernel.h"',
         "typedef struct { const char *name; mote_kernel_fn_t fn; mote_value_t *const *args;",
         "  uint32_t nargs; mote_tensor_t *out; void *scratch; size_t scratch_size; } harness_case_t;",
         "static uint8_t harness_scratch[16];"]
    for op in sorted({c["op"] for c in cases}):
        L.append(f"mote_err_t mote_kernel_mote_{op}_out(mote_kernel_ctx_t *, mote_value_t *const *, uint32_t);")
    entries = []
    for i, c in enumerate(cases):
        vals, outs = [], []
        items = list(c["args"]) + [np.zeros_like(o) for o in c["outs"]]
        for j, a in enumerate(items):
            pre = f"c{i}_a{j}"
            if isinstance(a, np.ndarray):
                t, code = ct[a.dtype]
                body = ",".join(str(int(v)) for v in a.ravel())
                const = "" if j >= len(c["args"]) else "const "
                L.append(f"static {const}{t} {pre}_d[] __attribute__((aligned(4))) = {{{body}}};")
                L.append(f"static const int32_t {pre}_s[] = {{{','.join(str(d) for d in a.shape)}}};")
                L.append(f"static mote_tensor_t {pre}_t = {{(void *){pre}_d, {pre}_s, NULL, {a.size}u, "
                         f"{a.nbytes}u, {a.ndim}, {code}}};")
                vals.append(f"{{MOTE_TAG_TENSOR, {{.t = &{pre}_t}}}}")
                if j >= len(c["args"]):
                    outs.append(f"&{pre}_t")
            else:
                vals.append(f"{{MOTE_TAG_INT, {{.i = {int(a)}LL}}}}")
        L.append(f"static mote_value_t c{i}_v[] = {{{', '.join(vals)}}};")
        L.append(f"static mote_value_t *const c{i}_p[] = {{{', '.join(f'&c{i}_v[{k}]' for k in range(len(vals)))}}};")
        for k, o in enumerate(outs):
            entries.append(f'  {{"{c["name"]}_o{k}", mote_kernel_mote_{c["op"]}_out, c{i}_p, {len(vals)}u, {o}, '
                           "harness_scratch, sizeof(harness_scratch)},")
    L.append(f"#define HARNESS_CASES {len(entries)}u")
    L += ["static const harness_case_t harness_cases[] = {", *entries, "};"]
    path.write_text("\n".join(L) + "\n")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    for tool in ("arm-none-eabi-gcc", "qemu-system-arm"):
        assert shutil.which(tool), f"{tool} is required"
    cases = _cases()
    tmp = tmp_path_factory.mktemp("rnnfw")
    _write(tmp / "vectors.h", cases)
    out = {}
    for target in ("m33-dsp", "m55-mve"):
        machine = TARGETS[target][0]
        rc, text = run_qemu(machine, build(tmp, target, cases))
        assert rc == 0, f"{target}: exit {rc}\n{text[-2000:]}"
        out[target] = parse(text)
    return cases, out


@pytest.mark.parametrize("target", ["m33-dsp", "m55-mve"])
def test_cells_match_reference_on_cortex_m(results, target):
    cases, out = results
    res, ipt = out[target]
    assert ipt and ipt > 0
    for c in cases:
        for k, o in enumerate(c["outs"]):
            rc, ticks, got = res[f"{c['name']}_o{k}"]
            assert rc == 0 and got == o.tobytes(), (target, c["name"], k)
        instr = res[f"{c['name']}_o0"][1] * ipt
        print(f"{target} {c['name']}: {instr:,.0f} instructions, {c['macs'] / instr:.3f} MACs/instruction")
