"""examples/kws/dataset.py: the espeak-ng keyword clips (no full dataset is made here)."""
import numpy as np
import pytest

from examples.kws import dataset as ds

def test_split_is_by_voice_variant_and_covers_every_class():
    jobs = ds.plan(np.random.default_rng(ds.SEED))
    by_variant = {}
    for label, word, voice, speed, pitch, split in jobs:
        by_variant.setdefault(voice.split("+")[1], set()).add(split)
    assert all(len(s) == 1 for s in by_variant.values())       # a variant is in one split only
    splits = [j[5] for j in jobs]
    assert set(splits) == {0, 1, 2}
    for s in (0, 1, 2):
        assert {j[0] for j in jobs if j[5] == s} == set(range(len(ds.LABELS)))
    test_share = np.mean([next(iter(s)) == 2 for s in by_variant.values()])
    assert 0.08 < test_share < 0.35                              # TEST_SHARE = 0.2 of the variants
    assert ds.plan(np.random.default_rng(ds.SEED)) == jobs       # deterministic


def test_a_spoken_keyword_is_a_one_second_int16_clip_at_the_asked_snr():
    word = ds.synthesize("left", "en-us+m3", 160, 50)
    assert 0.15 * ds.SAMPLE_RATE < word.size < 0.8 * ds.SAMPLE_RATE   # a word, trimmed, at 16 kHz
    assert np.max(np.abs(word)) == pytest.approx(1.0)
    rng = np.random.default_rng(1)
    clip = ds.place(word, rng)
    assert clip.shape == (ds.CLIP_SAMPLES,) and np.count_nonzero(clip) > 0.9 * np.count_nonzero(word)
    pcm = ds.augment(clip, rng, speech=True)
    assert pcm.dtype == np.int16 and pcm.shape == (ds.CLIP_SAMPLES,)
    quiet = ds.augment(np.zeros(ds.CLIP_SAMPLES, np.float32), rng, speech=False)
    assert 0 < np.sqrt(np.mean(quiet.astype(np.float64) ** 2)) < 0.06 * 32767   # silence: noise <= -25 dBFS
    with pytest.raises(ds.DatasetError, match="espeak-ng -v nosuchvoice"):
        ds.synthesize("left", "nosuchvoice", 160, 50)
