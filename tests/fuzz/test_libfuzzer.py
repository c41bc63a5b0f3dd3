"""libFuzzer over load + requirements + init + execute, seeded with zoo programs
and with programs that read their inputs and a .ptd.

Builds tests/fuzz/fuzz_loader.c as the libFuzzer target `fuzz_mote` (clang,
-fsanitize=fuzzer,address,undefined, every kernel of kernels/) into
build/fuzz. Two seed corpora, each cached under build/fuzz/ by content hash:
fp32 and int8 zoo programs (`aot export`), and containers (fuzz_loader.c's
layout: program, .ptd, input bytes) of small programs whose kernels index by
their inputs (embedding, gather, index, index_put, scatter) or whose weights sit
in a .ptd (tests/fuzz/_seeds.py). Checks that every seed runs to the end of
execute, that the zoo seeds reach far more code than the loader alone and that
the input bytes reach the index kernels, then fuzzes each corpus for
FUZZ_SECONDS with a fixed seed: no crash, no sanitizer report, no timeout
(-timeout=TIMEOUT_S) and no slow unit (-report_slow_units=SLOW_UNIT_S: a slow
input is a bug like a crash; the failure names the input libFuzzer saved), and
enough executions. How to fuzz for hours: runtime/README.md, "Fuzzing".
"""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from shared_build import build_lock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _seeds import with_input_bytes  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "fuzz"
FUZZ_SECONDS = 20
FUZZ_SEED = 20260607
MIN_EXECS = 2000  # ~1200 exec/s on one core of the CI machine: 20 s gives ~25000
#: libFuzzer's per-input limits (seconds): an input running TIMEOUT_S is a timeout (libFuzzer
#: stops and saves it as timeout-*), one running SLOW_UNIT_S a slow unit (saved as slow-unit-*);
#: either fails the test. The slowest seed runs in milliseconds under ASan.
TIMEOUT_S = 10
SLOW_UNIT_S = 2
# (zoo model, aot export flags): small programs (<= 115 KB) covering every kernel family of the
# zoo, and delegated ones for the XNNPACK backend's payload reader, quantized values and shape proof
INT8, XNN = ("--int8",), ("--delegate", "xnnpack")
SEED_MODELS = [("cov_activations", ()), ("cov_activations", INT8), ("cov_batchnorm", ()),
               ("cov_batchnorm", INT8), ("cov_pooling", ()), ("cov_pooling", INT8),
               ("cov_residual_cat", ()), ("cov_residual_cat", INT8), ("small_cnn", ()),
               ("small_cnn", INT8), ("ds_cnn", ()), ("ds_cnn", INT8), ("mlp", INT8),
               ("small_cnn", XNN), ("cov_pooling", INT8 + XNN)]

STATS_RE = re.compile(r"mote_fuzz: inputs (\d+) load (\d+)/(\d+) requirements (\d+)/(\d+) init (\d+)/(\d+) "
                      r"input (\d+)/(\d+) execute (\d+)/(\d+) too_big (\d+) ptd (\d+)/(\d+) input_bytes (\d+) "
                      r"index (\d+)")


def _clang() -> str:
    cc = shutil.which("clang")
    if cc is None:
        pytest.fail("clang not found: the libFuzzer target needs clang and libclang-rt-14-dev "
                    "(scripts/bootstrap.sh installs them)")
    return cc


def _run(cmd, timeout, env=None):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=env)
    return r


@pytest.fixture(scope="session")
def fuzz_mote():
    cc = _clang()
    cfg = ["cmake", "-S", ROOT, "-B", BUILD, f"-DCMAKE_C_COMPILER={cc}", "-DMOTE_LIBFUZZER=ON",
           "-DMOTE_SANITIZE=ON", "-DMOTE_BUILD_TESTS=ON"]
    with build_lock(BUILD):
        for cmd in (cfg, ["cmake", "--build", BUILD, "--target", "fuzz_mote", "-j2"]):
            r = _run(cmd, 900)
            assert r.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    exe = BUILD / "tests" / "fuzz" / "fuzz_mote"
    assert exe.is_file()
    return exe


def _seed_key() -> str:
    """Hash of everything the seed programs depend on: the zoo, the aot package, the pinned versions."""
    h = hashlib.sha256(repr(SEED_MODELS).encode())
    files = sorted((ROOT / "aot").rglob("*.py")) + sorted((ROOT / "zoo").glob("*.py")) + [ROOT / "pyproject.toml"]
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def seed_corpus():
    """Directory of zoo .pte programs (fp32 and int8), exported once per content key."""
    d = BUILD / f"seeds-{_seed_key()}"
    if d.is_dir():
        return d
    aot = Path(sys.executable).parent / "aot"
    assert aot.is_file(), f"{aot} missing: run scripts/bootstrap.sh"
    tmp = BUILD / "seeds-tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    jobs = []
    for model, flags in SEED_MODELS:
        name = "_".join([model] + [f.lstrip("-") for f in flags if f != "--delegate"]) if flags else f"{model}_fp32"
        out = tmp / name  # own directory: export also writes ops.json beside the program
        out.mkdir()
        jobs.append((name, out, [aot, "export", ROOT / "zoo" / f"{model}.py", "-o", out / f"{name}.pte", *flags]))
    for k in range(0, len(jobs), 2):  # two at a time (2 cores)
        procs = [(name, out, subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE,
                                              stderr=subprocess.STDOUT, text=True, cwd=ROOT))
                 for name, out, cmd in jobs[k:k + 2]]
        for name, out, p in procs:
            log, _ = p.communicate(timeout=600)
            assert p.returncode == 0, f"aot export {name} failed:\n{log[-4000:]}"
    final = BUILD / "seeds-new"
    shutil.rmtree(final, ignore_errors=True)
    final.mkdir()
    for name, out, _ in jobs:
        (out / f"{name}.pte").rename(final / f"{name}.pte")
    shutil.rmtree(tmp)
    for old in BUILD.glob("seeds-*"):  # stale keys
        if old != final:
            shutil.rmtree(old)
    final.rename(d)
    return d


@pytest.fixture(scope="session")
def io_seeds(host_build):
    """(corpus directory, {file name: has an integer-index input}) of tests/fuzz/_seeds.py's
    containers, made once per content key (the compiler checks them on the host library)."""
    h = hashlib.sha256()
    files = sorted((ROOT / "aot").rglob("*.py")) + [Path(__file__).parent / "_seeds.py", ROOT / "pyproject.toml"]
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    d = BUILD / f"ioseeds-{h.hexdigest()[:16]}"
    if not (d / "seeds.json").is_file():
        tmp = BUILD / "ioseeds-tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        r = subprocess.run([sys.executable, Path(__file__).parent / "_seeds.py", tmp], capture_output=True,
                           text=True, timeout=900, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert r.returncode == 0, f"tests/fuzz/_seeds.py failed:\n{r.stderr[-4000:]}"
        for old in BUILD.glob("ioseeds-*"):
            if old != tmp:
                shutil.rmtree(old)
        tmp.rename(d)
    return d / "corpus", json.loads((d / "seeds.json").read_text())


def _env(**extra):
    env = dict(os.environ, MOTE_FUZZ_STATS="1", UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    env.pop("MOTE_FUZZ_STOP", None)
    env.update(extra)
    return env


def _stats(log: str) -> dict:
    m = STATS_RE.search(log)
    assert m, f"no mote_fuzz stats line:\n{log[-3000:]}"
    v = list(map(int, m.groups()))
    return dict(inputs=v[0], load=(v[1], v[2]), requirements=(v[3], v[4]), init=(v[5], v[6]), input=(v[7], v[8]),
                execute=(v[9], v[10]), too_big=v[11], ptd=(v[12], v[13]), input_bytes=v[14],
                index=v[15])


def _cov(log: str, what: str):
    """(runs, cov, ft) of libFuzzer's last '#N <what> cov: X ft: Y' line."""
    m = re.findall(rf"^#(\d+)\s+{what}\s+cov: (\d+) ft: (\d+)", log, re.M)
    assert m, f"no '{what}' line in libFuzzer's output:\n{log[-3000:]}"
    return tuple(map(int, m[-1]))


def _fuzz(fuzz_mote, tmp_path, name, seeds, seconds=FUZZ_SECONDS):
    """libFuzzer for `seconds` (fixed seed) from the corpus `seeds`: (libFuzzer's log, runs, cov, ft, stats).
    Fails on a crash, a sanitizer report, a timeout or a slow unit, naming the input libFuzzer saved."""
    corpus = tmp_path / f"{name}-corpus"
    corpus.mkdir()
    art = tmp_path / f"{name}-artifacts"
    art.mkdir()
    cmd = [fuzz_mote, f"-max_total_time={seconds}", f"-seed={FUZZ_SEED}", f"-timeout={TIMEOUT_S}",
           f"-report_slow_units={SLOW_UNIT_S}", "-rss_limit_mb=2048", f"-artifact_prefix={art}/",
           "-print_final_stats=1", corpus, seeds]
    r = _run(cmd, seconds + 120, _env())
    log = r.stderr
    found = sorted(p.name for p in art.iterdir())  # crash-*, leak-*, oom-*, timeout-*, slow-unit-*
    slow = re.findall(r"^Slowest unit: (\d+) s:", log, re.M)
    assert r.returncode == 0 and not found and not slow, (
        f"fuzz_mote ({name}) found a problem (rc={r.returncode}; saved inputs {found} in {art}"
        f"{'; slow units of ' + ', '.join(slow) + ' s' if slow else ''}; reproduce with `{fuzz_mote} <input>`):\n"
        f"{log[-6000:]}")
    assert "ERROR:" not in log and "runtime error" not in log, log[-6000:]
    runs, cov, ft = _cov(log, "DONE")
    st = _stats(log)
    m = re.search(r"exec/s: (\d+)", log.split("DONE", 1)[1])
    print(f"fuzz_mote {name} {seconds}s seed {FUZZ_SEED}: {runs} runs ({m.group(1) if m else '?'} exec/s), "
          f"cov {cov} ft {ft}, corpus {len(list(corpus.iterdir()))} new units; stages (ok/reached) {st}")
    assert runs > MIN_EXECS
    assert st["inputs"] == runs  # every run went through the harness
    return log, runs, cov, ft, st


def _verdicts(fuzz_mote, files) -> list:
    """fuzz_mote's "<code> <NAME> <stage>" of each file, run one by one (MOTE_FUZZ_VERBOSE;
    libFuzzer may run a file twice: both runs must agree)."""
    r = _run([fuzz_mote, f"-timeout={TIMEOUT_S}", *files], 300, _env(MOTE_FUZZ_VERBOSE="1"))
    assert r.returncode == 0, r.stderr[-4000:]
    blocks = r.stderr.split("\nRunning: ")[1:]
    assert len(blocks) == len(files), r.stderr[-4000:]
    got = []
    for f, b in zip(files, blocks):
        assert b.startswith(str(f)), (f, b[:200])
        v = set(re.findall(r"^mote_fuzz: (-?\d+ \S+ \S+)$", b, re.M))
        assert len(v) == 1, (f, b[-2000:])
        got.append(v.pop())
    return got


def test_libfuzzer_regressions(fuzz_mote):
    """Inputs libFuzzer once crashed on (tests/fuzz/regressions/) run to an error code now, e.g.
    mutated int8 delegated programs whose delegate argument has no storage at init
    (xnnpack_unbound_view_argument.pte: Debian's XNNPACK asserted on the NULL pointer in
    xnn_setup_runtime) or is not a tensor at all (xnnpack_argument_not_a_tensor.pte: the
    backend read its storage; UBSan)."""
    reg = sorted((Path(__file__).resolve().parent / "regressions").iterdir())
    assert {"xnnpack_argument_not_a_tensor.pte", "xnnpack_unbound_view_argument.pte"} <= {p.name for p in reg}
    verdicts = dict(zip((p.name for p in reg), _verdicts(fuzz_mote, reg)))
    for name in ("xnnpack_argument_not_a_tensor.pte", "xnnpack_unbound_view_argument.pte"):
        assert verdicts[name].endswith(" init") and not verdicts[name].startswith("0 "), verdicts  # refused at init


def test_libfuzzer_reproducers(fuzz_mote):
    """The reproducers of tests/runtime/repro (programs that once escaped their memory or time)
    go through the whole fuzz target, every kernel and the XNNPACK backend under ASan/UBSan, none
    skipped: each is refused at init; the backward jump (execute ran forever) by its own code."""
    repro = sorted((ROOT / "tests" / "runtime" / "repro").glob("*.pte"))
    verdicts = dict(zip((p.name for p in repro), _verdicts(fuzz_mote, repro)))
    assert len(verdicts) >= 7 and all(v.endswith(" init") and not v.startswith("0 ") for v in verdicts.values()), \
        verdicts
    assert verdicts["jump_self_forever.pte"] == "-222 MOTE_ERR_BACKWARD_JUMP init"


def test_libfuzzer_io_seeds(fuzz_mote, io_seeds, tmp_path):
    """The containers' input bytes reach the kernels that index by them, and their .ptd the init:
    every seed runs to the end of execute with its example inputs; with every input byte 0x7f
    (indices far out of range), each seed with an integer-index input is refused by its kernel
    at execute (zeros would have run); then libFuzzer mutates programs, .ptd files and inputs."""
    corpus, seeds = io_seeds
    files = sorted(corpus.iterdir())
    assert sorted(p.name for p in files) == sorted(seeds)
    assert sum(seeds.values()) >= 12 and sum(n.startswith("ptd-") for n in seeds) >= 4
    assert _verdicts(fuzz_mote, files) == ["0 MOTE_OK done"] * len(files)
    bad = tmp_path / "out-of-range"
    bad.mkdir()
    for f in files:
        d = f.read_bytes()
        p, t = struct.unpack_from("<II", d, len(d) - 12)
        n_in = len(d) - 12 - p - t
        assert n_in > 0 and d[-4:] == b"MFZ1", f.name
        (bad / f.name).write_bytes(d[:p + t] + b"\x7f" * n_in + d[-12:])
    got = dict(zip((f.name for f in files), _verdicts(fuzz_mote, [bad / f.name for f in files])))
    want = {n: "-400 MOTE_ERR_KERNEL_ARGS execute" if idx else "0 MOTE_OK done" for n, idx in seeds.items()}
    assert got == want

    r = _run([fuzz_mote, "-runs=0", corpus], 300, _env())
    assert r.returncode == 0, r.stderr[-4000:]
    st = _stats(r.stderr)
    n_ptd = sum(n.startswith("ptd-") for n in seeds)
    assert st["ptd"][0] == st["ptd"][1] >= n_ptd and st["execute"][0] == st["execute"][1] >= len(files), st
    assert st["index"] >= len(files) + n_ptd, st  # each program's named-data index and each .ptd's

    log, runs, cov, ft, st = _fuzz(fuzz_mote, tmp_path, "io", corpus)
    assert st["input_bytes"] > runs // 100  # mutants ran with mutated input bytes
    assert st["ptd"][1] > runs // 100 and 0 < st["ptd"][0] < st["ptd"][1]  # .ptd files loaded and refused
    assert st["execute"][1] > runs // 100 and 0 < st["execute"][0] < st["execute"][1]


def test_libfuzzer_zoo_seeds(fuzz_mote, seed_corpus, tmp_path):
    seeds = sorted(seed_corpus.glob("*.pte"))
    assert len(seeds) == len(SEED_MODELS)

    # every seed is a valid program the full kernel set runs to the end
    r = _run([fuzz_mote, "-runs=0", seed_corpus], 300, _env())
    assert r.returncode == 0, r.stderr[-4000:]
    full = _cov(r.stderr, "INITED")
    st = _stats(r.stderr)
    # every execute succeeds; libFuzzer may run an input twice (the delegated seed's first run
    # initialises XNNPACK, so its second run differs), hence >=
    assert st["execute"][0] == st["execute"][1] >= len(seeds), st
    # loader-only baseline: same seeds, every input stopped after mote_program_load
    r = _run([fuzz_mote, "-runs=0", seed_corpus], 300, _env(MOTE_FUZZ_STOP="load"))
    assert r.returncode == 0, r.stderr[-4000:]
    load_only = _cov(r.stderr, "INITED")
    assert _stats(r.stderr)["load"] == (len(seeds), len(seeds) + 1)  # + libFuzzer's empty input
    print(f"\nseed corpus {seed_corpus.name}: {len(seeds)} programs; cov loader-only {load_only[1]}, "
          f"load..execute {full[1]} (ft {load_only[2]} -> {full[2]})")
    assert full[1] > 4 * load_only[1]

    # the fuzzed seeds carry input bytes (random floats, NaN and inf among them): still run to the end
    wrapped = with_input_bytes(seed_corpus, tmp_path / "zoo-seeds", FUZZ_SEED)
    assert _verdicts(fuzz_mote, wrapped) == ["0 MOTE_OK done"] * len(seeds)

    log, runs, cov, ft, st = _fuzz(fuzz_mote, tmp_path, "zoo", tmp_path / "zoo-seeds")
    assert cov >= full[1] and ft > full[2]  # mutation found new features beyond the seeds
    assert st["input_bytes"] > runs // 100
    # mutants get all the way through: loaded, verified, executed
    assert st["load"][0] > runs // 10 and st["init"][0] > runs // 100
    assert st["execute"][1] > runs // 100 and st["execute"][0] > 0
