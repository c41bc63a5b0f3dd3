"""int8 recurrent cells (aot.compiler.quant.recurrent): nn.LSTM / nn.GRU (one and two
layers) and nn.LSTMCell / nn.GRUCell lower to one mote::lstm_cell_s8 / gru_cell_s8 per
step; the host runtime equals the integer reference (the lowered graph) byte for byte
and stays within the measured number of output quanta of PT2E's reference."""
import numpy as np
import pytest
import torch

from aot.compiler.macs import int8_mac_share
from aot.compiler.pipeline import compile_model_file, program_inputs
from aot.host.runtime import Program
from aot.tools.compare import compare, random_inputs

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
CELL_OPS = {"mote::lstm_cell_s8", "mote::gru_cell_s8"}

#: two-layer LSTM returning the whole output sequence, and a loop of LSTMCell + GRUCell
LAYERS = '''
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.lstm = torch.nn.LSTM(5, 16, num_layers=2)
        self.cell = torch.nn.LSTMCell(16, 12)
        self.gru = torch.nn.GRUCell(12, 8)
    def forward(self, x):
        y, _ = self.lstm(x)
        h = c = torch.zeros(1, 12)
        g = torch.zeros(1, 8)
        for t in range(y.shape[0]):
            h, c = self.cell(y[t], (h, c))
            g = self.gru(h, g)
        return g
def model():
    return Net().eval()
def example_inputs():
    return (torch.randn(12, 1, 5, generator=torch.Generator().manual_seed(2)),)
def calibration_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(12, 1, 5, generator=g),) for _ in range(8)]
'''

BIDIRECTIONAL = '''
import torch
def model():
    torch.manual_seed(0)
    return torch.nn.LSTM(4, 8, bidirectional=True).eval()
def example_inputs():
    return (torch.randn(6, 1, 4),)
'''


def _compile(tmp_path_factory, name, text):
    p = tmp_path_factory.mktemp("rnn") / f"{name}.py"
    p.write_text(text)
    return compile_model_file(p, int8=True)


@pytest.fixture(scope="module")
def garden():
    return {n: compile_model_file(ROOT / f"zoo/garden/{n}.py", int8=True) for n in ("lstm_sensor", "gru_kws")}


@pytest.fixture(scope="module")
def layers(tmp_path_factory):
    return _compile(tmp_path_factory, "layers", LAYERS)


def _cells(c):
    return [k for k in c.spec.instructions if k.op in CELL_OPS]


#: measured int8 MAC shares: every product runs in the cells or linear_s8
#: (lstm_sensor 311,488 MACs, gru_kws 499,008: 100.0 %; fp32 before: 0.1 %)
@pytest.mark.parametrize("name, op, steps", [("lstm_sensor", "mote::lstm_cell_s8", 64),
                                             ("gru_kws", "mote::gru_cell_s8", 98)])
def test_garden_recurrent_models_run_every_mac_in_int8(garden, name, op, steps):
    c = garden[name]
    assert [k.op for k in _cells(c)] == [op] * steps  # one op per step (gru_kws: 2 layers x 49)
    int8, total = int8_mac_share(c.spec)
    assert int8 == total and total > 290_000
    assert "int8: 100.0% of" in c.summary()
    # int8 input / hidden / weights, int16 cell state
    first = _cells(c)[0]
    dt = [c.spec.values[first.args[i]].dtype for i in range(5)]
    assert dt == ([1, 1, 2, 1, 1] if name == "lstm_sensor" else [1, 1, 1, 1, 3])  # ScalarType codes


#: measured bounds vs PT2E's reference over seeds 0..2 (output quanta): lstm_sensor 1, gru_kws 2
#: (two GRU layers: the interpolated tanh / sigmoid and 2^-20 products round apart from
#: PT2E's float ops now and then), the two-layer LSTM + cells 0
PT2E_QUANTA = {"lstm_sensor": 1.0, "gru_kws": 2.0, "layers": 0.0}


@pytest.mark.parametrize("name", ["lstm_sensor", "gru_kws", "layers"])
def test_host_equals_the_integer_reference_and_stays_near_pt2e(garden, layers, name):
    c = layers if name == "layers" else garden[name]
    ref = c.program.module()  # the lowered graph: the cells run aot/compiler/quant/recurrentref.py
    m = Program(c.pte).method()
    worst = 0.0
    for seed in range(3):
        inputs = random_inputs(c.example_inputs, seed)
        got = m.run(program_inputs(c, inputs))[0]
        with torch.no_grad():
            want = ref(*inputs)
        assert np.array_equal(got, want.numpy()), seed
        r = compare(c, "host", seed=seed)
        worst = max(worst, r["pt2e_max_quanta"])
    print(f"\n{name}: {worst:.3f} output quanta from PT2E")
    assert worst <= PT2E_QUANTA[name] + 0.001, worst


def test_two_layer_lstm_and_user_cells_lower_to_cells(layers):
    ops = [k.op for k in _cells(layers)]
    # 2 layers x 12 steps of nn.LSTM, then 12 LSTMCell and 12 GRUCell calls, interleaved
    assert ops.count("mote::lstm_cell_s8") == 36 and ops.count("mote::gru_cell_s8") == 12
    int8, total = int8_mac_share(layers.spec)
    assert int8 == total


def test_bidirectional_lstm_stays_fp32_and_says_why(tmp_path_factory):
    with pytest.warns(UserWarning, match="int8 recurrent cells take unidirectional"):
        c = _compile(tmp_path_factory, "bidir", BIDIRECTIONAL)
    assert not _cells(c)
    int8, total = int8_mac_share(c.spec)
    assert int8 == 0 < total


def test_debug_record_maps_each_cell_to_its_pt2e_hidden_state(garden):
    """aot debug compares a cell's first output (the int8 hidden state) with PT2E's:
    each cell instruction names the quantize node of its step's hidden state; the
    LSTM's instruction writes two tensors (hidden int8, cell int16)."""
    from aot.compiler.debug_record import debug_record
    for name, n_out, dtypes in (("lstm_sensor", 2, ["int8", "int16"]), ("gru_kws", 1, ["int8"])):
        rows = [r for r in debug_record(garden[name])["instructions"] if r["op"].endswith("cell_s8.out")]
        assert rows and all(r["q"] is not None and len(r["outputs"]) == n_out and r["output_dtypes"] == dtypes
                            for r in rows), name
        assert len({r["q"]["node"] for r in rows}) == len(rows)  # one PT2E hidden state per step
