"""examples/kws under --int8: the whole network int8 (convolutions, the history windows
and their write-backs into the int8 state, the mean and the linear), the front end one
planned fp32 island quantized once after the log; the int8 stream on the host runtime
equals the integer reference byte for byte and PT2E within one quantum, hop by hop with
a reset between clips. Uses the cached trained weights (examples.kws.train.load: a first
run without build/kws/kws.pt trains once, about 2 minutes on 2 cores)."""
import copy

import numpy as np
import pytest
import torch

from aot import ir
from aot.compiler.macs import FP32_MOTE_MAC_OPS, instruction_macs
from aot.compiler.pipeline import compile_module
from aot.host.runtime import Program
from examples.kws import dataset as ds
from examples.kws import model as km
from examples.kws import train as kt

CLIPS = 2           # calibration clips (the model file's calibration takes CALIB_CLIPS)


@pytest.fixture(scope="module")
def kws():
    data = ds.load()
    train = (data["split"] == 0).nonzero()[0]
    test = (data["split"] == 2).nonzero()[0]
    calib = km.stream_input(torch.from_numpy(data["audio"][train[[0, len(train) // 2]]]))
    calibration = [(h,) for h in calib.reshape(-1, 1, km.HOP)]
    c = compile_module("kws_stream", km.KwsStream(kt.load()).eval(), (torch.zeros(1, km.HOP, dtype=torch.int16),),
                       int8=True, calibration=calibration)
    clips = km.stream_input(torch.from_numpy(data["audio"][test[:CLIPS]]))
    return c, clips.reshape(CLIPS, km.HOPS, 1, km.HOP)


def test_network_is_int8_and_front_end_one_fp32_island(kws):
    c, _ = kws
    info = c.program.graph_module.meta["mote_int8"]
    assert info.fallback_sites == [] and [k for k, _ in info.fp32_islands] == ["front_end"]
    ops = [i.op for i in c.spec.instructions]
    # the hop's int16 -> float cast, its 1/32768 and the Hann window run inside the transform
    assert ops.count("mote::rfft_mag_window") == 1 and "aten::log" in " ".join(ops)
    assert not {"aten::_to_copy", "aten::mul", "aten::add"} & set(ops), ops
    # every MAC outside the front end's mel product runs in an int8 kernel; the mel product
    # runs on the filterbank's bands (mote::band_mm: its nonzeros, not 257 x 40)
    fp32 = {i.op: instruction_macs(c.spec, i) for i in c.spec.instructions
            if instruction_macs(c.spec, i) and (not i.op.startswith("mote::") or i.op in FP32_MOTE_MAC_OPS)}
    assert fp32 == {"mote::band_mm": int(np.count_nonzero(km.mel_filterbank().numpy()))}
    # every window (samples, feats, each history, embeds) is updated by one in-place
    # mote::window_push, not cat + slice_copy + copy_
    assert ops.count("mote::window_push") == 3 + len(km.DILATIONS), ops
    assert not {"aten::cat", "aten::slice_copy", "aten::copy_"} & set(ops), ops
    report = c.int8_report()
    assert "fp32 fallback" not in report and "fp32 island: mote::band_mm.out (493 MACs)" in report, report
    # one quantize (after the log), one dequantize (the scores)
    assert ops.count("quantized_decomposed::quantize_per_tensor") == 1
    assert ops.count("quantized_decomposed::dequantize_per_tensor") == 1
    # the int8 windows are stored channels-last ([1, frames, channels]), the layout the
    # 1-D convolutions read: their cat, slice and write-back move whole frames, and no
    # convolution needs a permute
    state = {v.fqn: (v.dtype, v.sizes) for v in c.spec.values if isinstance(v, ir.TensorValue) and v.is_mutable}
    int8, int16 = 1, 2      # ir scalar types (aot.ir.SCALAR_TYPE_NAMES)
    assert state == {"samples": (int16, [1, km.N_FFT]), "feats": (int8, [1, 3, km.N_MELS]),
                     **{f"hist{i}": (int8, [1, 2 * d + 1, km.CHANNELS]) for i, d in enumerate(km.DILATIONS)},
                     "embeds": (int8, [1, km.WINDOW, km.CHANNELS])}
    assert "aten::permute_copy" not in ops, ops


def test_int8_stream_on_host_equals_integer_reference_and_pt2e(kws):
    c, clips = kws
    scale, zp = c.program.graph_module.meta["mote_int8"].output_qparams[0]
    method = Program(c.pte).method()
    quanta = []
    for clip in clips:
        method.reset_state()
        lowered = copy.deepcopy(c.program).module()     # the integer reference, fresh state
        ref = copy.deepcopy(c.reference)                 # PT2E, fresh state
        with torch.no_grad():
            for hop in clip:
                got = method.run([hop.numpy()])[0]
                assert np.array_equal(got, lowered(hop).numpy())
                quanta.append(float(np.abs(got - ref(hop).numpy()).max()) / scale)
    # one step from the same state: within one quantum. Over a stream, a feature that
    # PT2E's torch FFT and mote::rfft_mag (both fp32, ~1e-6 apart) round to neighbouring
    # int8 steps after the log stays in the history (33 frames, the mean's 97), so later
    # scores may differ by one more quantum; rarely.
    assert quanta[0] <= 1.001 and quanta[km.HOPS] <= 1.001, quanta[:1] + quanta[km.HOPS:km.HOPS + 1]
    assert max(quanta) <= 2.001 and np.mean(np.array(quanta) > 1.001) < 0.05, max(quanta)
