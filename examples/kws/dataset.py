"""A keyword-spotting dataset made on this machine with espeak-ng.

No speech dataset can be downloaded here, so the clips are synthesised: every
English voice espeak-ng ships (accents such as en-us, en-gb-scotland, en-029)
combined with its voice variants (male/female/whisper/... timbres), at random
speeds and pitches, placed at a random offset in a one-second window, with
added noise and a random gain.

Classes (LABELS): twelve keywords, "unknown" (other words) and "silence"
(noise alone). Clips: int16 PCM, 16 kHz, one second (16,000 samples).

The split is by voice variant, the speaker identity: a variant is in exactly
one of train / val / test (chosen by a hash of its name, so adding a variant to
espeak-ng moves no other), so no test voice is heard in training, in any accent.

    python -m examples.kws.dataset [-o build/kws/dataset.npz]

The .npz holds ``audio`` (int16 [N, 16000]), ``label`` (int64 [N], an index into
LABELS), ``split`` (int64 [N]: 0 train, 1 val, 2 test) and ``voice`` (str [N],
"accent+variant"). It is cached under the recipe's hash: a second call loads it.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import shutil
import subprocess
import sys
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

KEYWORDS = ("yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "zero", "one")
#: Words that must score as "unknown" (none is, or sounds much like, a keyword).
UNKNOWN_WORDS = ("bed", "bird", "cat", "dog", "happy", "house", "tree", "wow", "learn", "follow",
                 "forward", "backward", "visual", "sheila", "marvin", "two", "three", "four", "five",
                 "six", "seven", "eight", "nine", "yellow", "table", "window", "river", "music")
LABELS = KEYWORDS + ("unknown", "silence")
UNKNOWN = LABELS.index("unknown")
SILENCE = LABELS.index("silence")

SAMPLE_RATE = 16_000         # Hz
CLIP_SAMPLES = SAMPLE_RATE   # one second
ESPEAK_RATE = 22_050         # Hz: espeak-ng's fixed output rate

#: espeak-ng's English voices (accents). MBROLA voices are left out: they need
#: the separate mbrola package and its voice data.
ACCENTS = ("en", "en-us", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd",
           "en-029", "en-us-nyc")
#: Variants that are not a speaker (a test of speed, an effect voice).
SKIP_VARIANTS = frozenset({"fast", "Demonic", "announcer"})

#: Synthesis ranges: words per minute, pitch (espeak-ng 0-99) and the spread of
#: the random augmentation (gain in dB, signal-to-noise ratio in dB).
SPEED_WPM = (110, 220)
PITCH = (20, 80)
GAIN_DB = (-18.0, 6.0)
SNR_DB = (5.0, 35.0)
#: Per voice variant and word: how many accents say it (of ACCENTS, at random).
ACCENTS_PER_WORD = 2
#: Unknown words per voice variant and accent pick; silence clips per variant.
UNKNOWN_PER_VARIANT = 6
SILENCE_PER_VARIANT = 4
#: Share of variants held out for validation and test (by hash, not by order).
VAL_SHARE, TEST_SHARE = 0.1, 0.2
SEED = 0

SPLITS = ("train", "val", "test")


class DatasetError(RuntimeError):
    """espeak-ng missing or failing: one line for the user."""


def espeak() -> str:
    path = shutil.which("espeak-ng")
    if path is None:
        raise DatasetError("espeak-ng is not installed: `apt-get install espeak-ng` "
                           "(make bootstrap installs it)")
    return path


def variants() -> list:
    """espeak-ng's voice variants (file names under !v/), sorted, minus SKIP_VARIANTS."""
    out = subprocess.run([espeak(), "--voices=variant"], capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1].split("/")[-1] for line in out.splitlines()[1:] if "!v/" in line}
    return sorted(names - SKIP_VARIANTS)


def split_of(variant: str) -> int:
    """0 train, 1 val, 2 test: a stable hash of the variant's name."""
    u = int.from_bytes(hashlib.sha256(variant.encode()).digest()[:4], "little") / 2**32
    return 2 if u < TEST_SHARE else 1 if u < TEST_SHARE + VAL_SHARE else 0


def synthesize(word: str, voice: str, speed: int, pitch: int) -> np.ndarray:
    """`word` spoken by espeak-ng `voice` ("en-us+m3"): float32 samples at SAMPLE_RATE, peak 1."""
    proc = subprocess.run([espeak(), "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", word],
                          capture_output=True, check=False)
    if proc.returncode != 0 or len(proc.stdout) < 44:
        raise DatasetError(f"espeak-ng -v {voice} failed on {word!r}: "
                           f"{proc.stderr.decode(errors='replace').strip()[:200]}")
    with wave.open(io.BytesIO(proc.stdout)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")  # --stdout leaves nframes huge
    from scipy.signal import resample_poly
    g = np.gcd(SAMPLE_RATE, rate)
    x = resample_poly(pcm.astype(np.float64), SAMPLE_RATE // g, rate // g)
    x = _trim(x)
    peak = np.max(np.abs(x)) if x.size else 0.0
    return (x / peak).astype(np.float32) if peak > 0 else x.astype(np.float32)


def _trim(x: np.ndarray, floor: float = 0.02) -> np.ndarray:
    """Cut the leading and trailing silence espeak-ng pads a word with."""
    loud = np.flatnonzero(np.abs(x) > floor * (np.max(np.abs(x)) or 1.0))
    return x[loud[0]:loud[-1] + 1] if loud.size else x[:0]


def noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """Unit-RMS noise of a random colour: white, pink (1/f) or brown (1/f^2)."""
    white = rng.standard_normal(n)
    colour = rng.integers(3)
    if colour:
        spec = np.fft.rfft(white)
        f = np.arange(spec.size, dtype=np.float64)
        f[0] = 1.0
        spec /= f ** (0.5 * colour)
        white = np.fft.irfft(spec, n)
    return (white / (np.sqrt(np.mean(white ** 2)) or 1.0)).astype(np.float32)


def place(word: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The word at a random offset in a one-second clip (cut to fit if longer)."""
    clip = np.zeros(CLIP_SAMPLES, np.float32)
    w = word[:CLIP_SAMPLES]
    start = int(rng.integers(0, CLIP_SAMPLES - w.size + 1))
    clip[start:start + w.size] = w
    return clip


def augment(clip: np.ndarray, rng: np.random.Generator, speech: bool) -> np.ndarray:
    """Gain, then noise at a random SNR (silence clips: noise alone at a random level); int16."""
    gain = 10 ** (rng.uniform(*GAIN_DB) / 20) * 0.5   # peak 0.5 of full scale at 0 dB
    x = clip * gain
    if speech:
        rms = np.sqrt(np.mean(x[np.abs(x) > 0] ** 2)) if np.any(x) else 0.0
        level = rms / 10 ** (rng.uniform(*SNR_DB) / 20)
    else:
        level = 10 ** (rng.uniform(-70, -25) / 20)
    x = x + level * noise(rng, x.size)
    return np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)


def recipe() -> dict:
    """Everything the clips depend on (the cache key)."""
    return {"keywords": KEYWORDS, "unknown": UNKNOWN_WORDS, "accents": ACCENTS, "variants": variants(),
            "speed": SPEED_WPM, "pitch": PITCH, "gain": GAIN_DB, "snr": SNR_DB,
            "accents_per_word": ACCENTS_PER_WORD, "unknown_per_variant": UNKNOWN_PER_VARIANT,
            "silence_per_variant": SILENCE_PER_VARIANT, "val": VAL_SHARE, "test": TEST_SHARE,
            "seed": SEED, "rate": SAMPLE_RATE, "version": 1}


def plan(rng: np.random.Generator) -> list:
    """(label, word or None, voice, speed, pitch, split) for every clip, in a fixed order."""
    jobs = []
    for variant in variants():
        split = split_of(variant)
        for k, word in enumerate(KEYWORDS):
            for accent in rng.choice(ACCENTS, ACCENTS_PER_WORD, replace=False):
                jobs.append((k, word, f"{accent}+{variant}", int(rng.integers(*SPEED_WPM)),
                             int(rng.integers(*PITCH)), split))
        for word in rng.choice(UNKNOWN_WORDS, UNKNOWN_PER_VARIANT, replace=False):
            jobs.append((UNKNOWN, str(word), f"{rng.choice(ACCENTS)}+{variant}", int(rng.integers(*SPEED_WPM)),
                         int(rng.integers(*PITCH)), split))
        for _ in range(SILENCE_PER_VARIANT):
            jobs.append((SILENCE, None, f"none+{variant}", 0, 0, split))
    return jobs


def make(progress: bool = True) -> dict:
    """Synthesise every clip (espeak-ng runs on two threads); the arrays of the .npz."""
    rng = np.random.default_rng(SEED)
    jobs = plan(rng)
    words = [(w, v.replace("none+", ""), s, p) for _, w, v, s, p, _ in jobs if w is not None]
    with ThreadPoolExecutor(max_workers=2) as pool:
        it = pool.map(lambda j: synthesize(*j), words)
        if progress and sys.stderr.isatty():
            from tqdm import tqdm
            it = tqdm(it, total=len(words), desc="espeak-ng", unit="clip")
        spoken = iter(list(it))
    audio = np.empty((len(jobs), CLIP_SAMPLES), np.int16)
    for i, (label, word, _, _, _, _) in enumerate(jobs):
        if word is None:
            audio[i] = augment(np.zeros(CLIP_SAMPLES, np.float32), rng, speech=False)
        else:
            audio[i] = augment(place(next(spoken), rng), rng, speech=True)
    return {"audio": audio,
            "label": np.array([j[0] for j in jobs], np.int64),
            "split": np.array([j[5] for j in jobs], np.int64),
            "voice": np.array([j[2] for j in jobs])}


def load(path: Path = Path("build/kws/dataset.npz"), progress: bool = True) -> dict:
    """The dataset at `path`, made first if missing or made by another recipe."""
    key = hashlib.sha256(json.dumps(recipe(), sort_keys=True).encode()).hexdigest()[:16]
    if path.is_file():
        with np.load(path) as z:
            if str(z["recipe"]) == key:
                return {k: z[k] for k in ("audio", "label", "split", "voice")}
    data = make(progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, recipe=np.array(key), **data)
    tmp.replace(path)  # whole or not at all
    return data


def summary(data: dict) -> str:
    lines = []
    for s, name in enumerate(SPLITS):
        m = data["split"] == s
        voices = {v.split("+")[1] for v in data["voice"][m]}
        lines.append(f"{name}: {int(m.sum())} clips, {len(voices)} voice variants, "
                     + " ".join(f"{LABELS[k]}={int((data['label'][m] == k).sum())}" for k in range(len(LABELS))))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", default="build/kws/dataset.npz")
    args = ap.parse_args(argv)
    try:
        data = load(Path(args.output))
    except DatasetError as e:
        print(f"kws dataset: {e}", file=sys.stderr)
        return 1
    print(summary(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
