"""Model file (`aot export examples/kws/kws_stream.py`): the trained keyword spotter
in its device form, one 10 ms hop in (int16 [1, 160]), the keyword scores of the
newest second out (float32 [1, 14]); the front end's and network's history are
the program's mutable buffers (examples/kws/model.py).

Calibration (--int8): the hops of CALIB_CLIPS training clips, in stream order,
so the observers see the features and embeddings a running stream has."""
import torch

from examples.kws import dataset as ds
from examples.kws import model as km
from examples.kws import train as kt

#: Training clips whose hops calibrate --int8 (each class, several voices).
CALIB_CLIPS = 8


def model():
    return km.KwsStream(kt.load()).eval()


def example_inputs():
    return (torch.zeros(1, km.HOP, dtype=torch.int16),)


def calibration_data():
    data = ds.load()
    train = (data["split"] == 0).nonzero()[0]
    pick = train[torch.linspace(0, len(train) - 1, CALIB_CLIPS).long().numpy()]
    hops = km.stream_input(torch.from_numpy(data["audio"][pick])).reshape(-1, 1, km.HOP)
    return [(h,) for h in hops]
