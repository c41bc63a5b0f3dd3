"""examples/kws/model.py: the streaming form equals the training form, and the front end equals
a float64 numpy log-mel of the same frames."""
import numpy as np
import torch

from examples.kws import model as km


def _stream(net, clips):
    scores = []
    with torch.no_grad():
        for clip in km.stream_input(clips):
            st = km.KwsStream(net).eval()                 # a fresh state per clip
            for hop in clip.reshape(km.HOPS, km.HOP):
                y = st(hop[None])
            scores.append(y)
    return torch.cat(scores)


def test_stream_hop_by_hop_equals_the_whole_clip():
    torch.manual_seed(0)
    net = km.KwsNet().eval()
    for bn in [net.bn0, *net.bn]:                        # non-trivial folded BN statistics
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    clips = torch.randint(-3000, 3000, (3, 16000), dtype=torch.int16)
    with torch.no_grad():
        whole = km.KwsModel(net).eval()(clips)
    assert whole.shape == (3, len(km.LABELS))
    np.testing.assert_allclose(_stream(net, clips), whole, rtol=1e-4, atol=1e-4 * float(whole.abs().max()))


def test_log_mel_frame_is_the_textbook_formula():
    rng = np.random.default_rng(0)
    pcm = rng.integers(-20000, 20000, (1, km.N_FFT)).astype(np.int16)
    x = pcm[0] / 32768.0
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(km.N_FFT) / km.N_FFT)   # periodic Hann
    power = np.abs(np.fft.rfft(x * window)) ** 2
    mel = km.mel_filterbank().double().numpy()
    assert mel.shape == (km.N_FFT // 2 + 1, km.N_MELS)
    assert (mel >= 0).all() and mel.max() <= 1.0 and mel.max(0).min() > 0.7   # no empty filter at 512 bins
    want = np.log(power @ mel + km.LOG_FLOOR)
    got = km.LogMel().frame(torch.from_numpy(pcm).float() / 32768.0)[0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert km.WINDOW == 97 and km.ALIGN == 128 and km.HOPS == 100
