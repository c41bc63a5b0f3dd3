"""The int8 keyword spotter (examples/kws) as --uart-inputs firmware on mps2-an505 (QEMU
Cortex-M33), fed hop by hop as `make kws-demo` feeds it: held-out clips with "R" (reset the
state, mote_model_reset_state) before each, every hop's output bytes equal to the host
runtime's with its state reset the same way, and a clip run again after a reset gives its
first run's bytes. A clip here is its first HOPS hops (the UART feed costs ~30 ms of wall
time a hop): every state buffer reaches the scores from the first hop (the window of
embeddings is averaged each hop; a dirty state changes hop 0's scores, asserted below), so a
reset that misses any shows at once. Whole clips go through the firmware in
tests/e2e/test_kws_demo.py. Uses the cached trained weights (examples.kws.train.load)."""
import numpy as np
import pytest
import torch

from aot.compiler.pipeline import compile_module
from aot.deploy.build import build_compiled
from aot.deploy.protocol import QUIT_LINE, RESET_LINE, input_line, parse_line
from aot.deploy.qemu import run_firmware_streaming
from aot.host.runtime import Program
from examples.kws import dataset as ds
from examples.kws import model as km
from examples.kws import train as kt

pytestmark = [pytest.mark.sim, pytest.mark.slow, pytest.mark.usefixtures("need_qemu")]

#: hops fed of each clip (of km.HOPS = 100)
HOPS = 30


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    data = ds.load()
    train = (data["split"] == 0).nonzero()[0]
    test = (data["split"] == 2).nonzero()[0]
    calib = km.stream_input(torch.from_numpy(data["audio"][train[[0, len(train) // 2]]]))
    c = compile_module("kws_stream", km.KwsStream(kt.load()).eval(), (torch.zeros(1, km.HOP, dtype=torch.int16),),
                       int8=True, calibration=[(h,) for h in calib.reshape(-1, 1, km.HOP)])
    art = build_compiled(c, "mps2-an505", tmp_path_factory.mktemp("kws") / "fw", uart_inputs=True)
    # two held-out clips of different voices and words
    pick = test[[0, len(test) // 2]]
    clips = km.stream_input(torch.from_numpy(data["audio"][pick])).numpy().reshape(len(pick), km.HOPS, 1, km.HOP)
    return c, art, clips[:, :HOPS]


def test_clips_with_resets_equal_the_host_runtime_byte_for_byte(kws):
    c, art, clips = kws
    order = [0, 1, 0]                 # the first clip again after a reset: the same bytes

    def lines():
        for k in order:
            yield RESET_LINE
            for hop in clips[k]:
                yield input_line([hop])
        yield QUIT_LINE
    code, text = run_firmware_streaming(art.elf, "mps2-an505", timeout_s=600, stdin_bytes=lines())
    events = [parse_line(ln) for ln in text.splitlines()]
    assert code == 0, text[-500:]
    kinds = [e["event"] for e in events if e["event"] in ("ready", "reset", "out", "done")]
    assert kinds[0] == "ready" and kinds[-1] == "done"
    # a reset acknowledged before each clip's first OUT line, none in between
    resets = [i for i, k in enumerate(kinds) if k == "reset"]
    assert resets == [1 + j * (HOPS + 1) for j in range(len(order))], resets
    fw = [bytes.fromhex(e["outputs_hex"][0]) for e in events if e["event"] == "out"]
    counts = [e["count"] for e in events if e["event"] == "out"]
    assert len(fw) == len(order) * HOPS

    method = Program(c.pte).method()
    host = []
    for k in order:
        method.reset_state()
        host += [np.asarray(method.run([hop])[0]).tobytes() for hop in clips[k]]
    same = [a == b for a, b in zip(fw, host)]
    assert all(same), f"hop {same.index(False)} differs"
    assert fw[:HOPS] == fw[2 * HOPS:]            # the reset brought the clip's first run back
    assert fw[:HOPS] != fw[HOPS:2 * HOPS]        # the two clips do differ
    # without a reset the state carries on: the clip's first hop scores otherwise
    assert np.asarray(method.run([clips[0][0]])[0]).tobytes() != fw[0]
    assert min(counts) > 100_000          # a hop is real work (the whole network, each hop)


def test_reset_on_a_fresh_state_and_an_empty_run(kws):
    """"R" with nothing run yet, twice in a row, then "Q": two acknowledgements, no output."""
    _, art, _ = kws
    code, text = run_firmware_streaming(art.elf, "mps2-an505", timeout_s=60,
                                        stdin_bytes=RESET_LINE + RESET_LINE + QUIT_LINE)
    assert code == 0 and text.count("MOTE RESET\n") == 2 and "OUT " not in text and "MOTE DONE 0" in text
