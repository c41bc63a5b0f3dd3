"""Several models in one build (aot.deploy.multimodel): the MODEL arguments and their
refusals, the generated files, and two models compiled into one host program through
their prefixed embedding APIs, in both memory modes (tests/deploy/multimodel_main.c:
init a, init b, run a, run b, run a ..., every output checked against the host runtime's
bytes). The runtime's thread safety for --memory separate is proven from the objects:
no writable global in the runtime, the kernels or the self-test checker."""
from __future__ import annotations

import json
import re
import subprocess
import warnings
from pathlib import Path

import pytest

import zoo
from aot.cli import main
from aot.compiler.kernels import RUNTIME_OPS
from aot.errors import BuildError, MoteError
from aot.paths import CMSIS_DIR, KERNELS_DIR, PORTS_DIR, ROOT, RUNTIME_DIR

HOST_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror", "-O1"]
MAIN = Path(__file__).with_name("multimodel_main.c")


# --------------------------------------------------------------------------- arguments


def test_model_arguments_take_a_name_or_the_file_stem():
    from aot.deploy.multimodel import is_multi, parse_model_args
    got = parse_model_args(["kws=zoo/ds_cnn.py", "zoo/DS-CNN.v2.py", "9lives.py"])
    assert [(m.name, m.path, m.named) for m in got] == [
        ("kws", "zoo/ds_cnn.py", True), ("ds_cnn_v2", "zoo/DS-CNN.v2.py", False), ("m9lives", "9lives.py", False)]
    assert is_multi(got) and is_multi(parse_model_args(["a=x.py"])) and not is_multi(parse_model_args(["x.py"]))


@pytest.mark.parametrize("models, message", [
    (["a=x.py", "a=y.py"], "two models are named 'a' (x.py and y.py)"),
    (["x.py", "sub/x.py"], "two models are named 'x'"),
    (["Kws=x.py"], "model name 'Kws'"),
    (["2d=x.py"], "model name '2d'"),
    (["a=x.py", "a_selftest=y.py"], "models 'a' and 'a_selftest' would both define mote_model_a_selftest_inputs"),
])
def test_bad_model_names_are_refused(models, message):
    from aot.deploy.multimodel import parse_model_args
    with pytest.raises(MoteError) as e:
        parse_model_args(models)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("argv, message", [
    (["a=MLP", "a=MLP"], "two models are named 'a'"),
    (["MLP", "MLP"], "name them apart: NAME=path.py (the same name=path in CMake's MODELS or mote_add_model's NAME"),
    (["kws=", "b=MLP"], "model kws=: the path after 'kws=' is missing (NAME=path.py)"),
    (["MLP", "--memory", "shared"], "--memory shared|separate chooses how several models share RAM"),
    (["a=MLP", "b=MLP", "--calib", "c.npz"], "several models: one --calib file"),
    (["a=MLP", "b=MLP", "--memory", "both"], "invalid choice: 'both'"),
])
@pytest.mark.parametrize("command", ["generate", "build"])
def test_command_line_mistakes_are_one_line_and_write_nothing(tmp_path, capsys, command, argv, message):
    out = tmp_path / "out"
    argv = [a.replace("MLP", str(zoo.path("mlp"))) for a in argv]
    with pytest.raises(SystemExit) if "invalid choice" in message else _nothing():
        assert main([command] + argv + ["--board", "mps2-an505", "-o", str(out)]) != 0
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and message in err[0], err  # one line: no usage block before it
    assert not out.exists()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --------------------------------------------------------------------------- generated sources


def _compiled():
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.multimodel import ModelBuild
    from aot.deploy.selftest import case_inputs, make_selftest
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = compile_model_file(zoo.path("small_cnn"), int8=True)
        b = compile_model_file(str(ROOT / "zoo" / "stateful" / "running_stats.py"))  # mutable buffers
    return [ModelBuild(n, c, make_selftest(c.pte, case_inputs(c, 2)), p)
            for n, c, p in (("a", a, zoo.path("small_cnn")), ("b", b, ""))]


@pytest.fixture(scope="module")
def models():
    return _compiled()


@pytest.fixture(scope="module", params=["shared", "separate"])
def generated(request, models, tmp_path_factory):
    from aot.deploy.multimodel import generate_models
    out = tmp_path_factory.mktemp("multi") / f"ab-{request.param}"
    return request.param, generate_models(models, "mps2-an505", out, memory=request.param)


def test_generated_files_and_sources_manifest(generated, models):
    from aot.deploy.multimodel import arena0_bytes, model_api
    memory, gen = generated
    out, src = gen.out_dir, gen.sources
    assert src["memory"] == memory and src["model"] == "a,b" and [m["name"] for m in src["models"]] == ["a", "b"]
    for key in ("board", "sources", "generated_sources", "kernel_sources", "include_dirs", "defines", "cflags",
                "warning_flags", "arch_flags", "port", "pte_bytes", "selftest_bytes", "pte_sha256"):
        assert key in src, key
    assert src["pte_bytes"] == sum(len(m.compiled.pte) for m in models)
    for p in src["sources"] + src["include_dirs"]:
        assert Path(p).exists(), p
    # the one embedding source is compiled per model through its wrapper, never as is
    assert str(RUNTIME_DIR / "embed" / "mote_model.c") not in src["sources"]
    names = [Path(p).relative_to(out).as_posix() for p in src["generated_sources"]]
    assert {"a/mote_embed_a.c", "b/mote_embed_b.c", "a/mote_embed_selftest_a.c", "a/model_pte.c",
            "b/model_image.c", "registry.c"} <= set(names)
    assert ("mote_models.c" in names) == (memory == "shared")
    # the registry is the union of the operators; each model keeps its own program and manifest
    reg = (out / "registry.c").read_text()
    union = {op for m in models for op in m.compiled.op_names if op not in RUNTIME_OPS}
    assert f"Selected operators ({len(union)})." in reg
    for m in models:
        assert (out / m.name / "model.pte").read_bytes() == m.compiled.pte
        assert not (out / m.name / "registry.c").exists()
    # each model's public header: its macros prefixed, mote/model.h's functions with its name
    for m in models:
        header = (out / f"mote_model_{m.name}.h").read_text()
        assert not re.search(r"\bMOTE_MODEL_(?!" + m.name.upper() + r"_)", header)
        assert f"#define MOTE_MODEL_{m.name.upper()}_PTE_BYTES {len(m.compiled.pte)}u" in header
        for decl, fn, params in model_api():
            assert f"{decl}mote_model_{m.name}_{fn}({params});" in header
    assert "#define MOTE_MODELS_EACH(X) X(a, A) X(b, B)" in (out / "mote_models.h").read_text()
    ram = src["planned_ram"]
    arenas = [arena0_bytes(m.compiled) for m in models]
    assert ram["arena"] == (max(arenas) if memory == "shared" else sum(arenas))


def _host_program(gen, exe: Path) -> subprocess.CompletedProcess:
    src = gen.sources
    defines = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in src["defines"].items()]
    cmd = (["cc"] + HOST_FLAGS + [f"-I{d}" for d in src["include_dirs"]] + defines + src["sources"]
           + [str(PORTS_DIR / "linux" / "port_linux.c"), str(MAIN), "-lm", "-o", str(exe)])
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


def test_two_models_run_interleaved_in_one_program(generated, tmp_path):
    """init a, init b, a0, b0, a1, b1, a0: bit-exact in both modes. In shared mode b's runs
    overwrite a's activations (one arena): a passes only if nothing of it stays in the
    arena between runs; b (running statistics, a step counter) only if its state is its own."""
    memory, gen = generated
    r = _host_program(gen, tmp_path / "app")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"MULTI a=PASS b=PASS again=PASS shared={int(memory == 'shared')}" in r.stdout
    lines = [ln[len("mote: "):] for ln in r.stderr.splitlines()]
    # b's second output is its step counter: 2 after its second run, a's runs between
    assert lines.count("MOTE SELFTEST PASS n=2 max_abs_err=0") == 2
    # mote_model_a_selftest(): every line names the model; the checker's own lines (above) do not
    assert lines[-1] == "MOTE SELFTEST PASS n=2 max_abs_err=0 model=a"
    named = [ln for ln in lines if ln.endswith(" model=a")]
    assert [ln.split()[2] for ln in named] == ["CASE", "CASE", "PASS"], named  # a: 2 cases of one output
    assert all(ln[:-len(" model=a")] in lines for ln in named[:2]), named  # the checker's figures for a's cases
    assert "MOTE SELFTEST CASE case=1 output=1 max_abs_err=0 tol=2.000e-5 result=PASS" in lines
    syms = subprocess.run(["nm", str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout
    defined = {ln.split()[-1] for ln in syms.splitlines() if len(ln.split()) == 3}
    if memory == "shared":
        assert "mote_models_arena0" in defined and "mote_model_a_arena0" not in defined
    else:
        assert {"mote_model_a_arena0", "mote_model_b_arena0"} <= defined and "mote_models_arena0" not in defined
    assert "mote_model_b_arena1" in defined and "mote_model_a_init" in defined and "mote_model_init" not in defined


def test_runtime_kernels_and_checker_have_no_writable_globals(tmp_path):
    """--memory separate lets two threads run two models: everything they share (the runtime,
    every kernel a board can link, the self-test checker) has no .data/.bss symbol, static or
    not. Compiled for the M33 (DSP kernels) and the M55 (MVE), at -Os as the firmware (a global nothing uses cannot race)."""
    from aot.deploy.boards import load_board
    from aot.deploy.generate import board_kernel_files, runtime_sources, support_sources
    found = {}
    for board in ("mps2-an505", "mps3-an547"):
        b = load_board(board)
        groups = {}
        for p in runtime_sources() + support_sources() + board_kernel_files(b) + [RUNTIME_DIR / "embed" / "mote_selftest.c"]:
            groups.setdefault(Path(p).parent, []).append(str(p))
        for k, (folder, files) in enumerate(sorted(groups.items())):
            work = tmp_path / board / str(k)
            work.mkdir(parents=True)
            subprocess.run(["arm-none-eabi-gcc"] + list(b.arch_flags) + ["-std=c99", "-Os", "-c",
                            f"-I{RUNTIME_DIR / 'include'}", f"-I{RUNTIME_DIR / 'embed'}", f"-I{KERNELS_DIR}"] + files,
                           cwd=work, check=True, capture_output=True, text=True)
            objs = sorted(work.glob("*.o"))
            assert len(objs) == len(files), folder
            nm = subprocess.run(["arm-none-eabi-nm"] + [str(o) for o in objs], capture_output=True, text=True,
                                check=True).stdout
            obj = None
            for line in nm.splitlines():
                if line.endswith(".o:"):
                    obj = line[:-1]
                parts = line.split()
                if len(parts) == 3 and parts[1] in "bBdDcCgGsS":
                    found.setdefault(f"{folder.name}/{Path(obj).name}", []).append(parts[2])
    assert any(Path(p).parent == CMSIS_DIR for p in board_kernel_files(load_board("mps2-an505")))
    assert found == {}


def test_a_build_that_does_not_fit_names_the_model_and_its_tensors(models):
    """Each model alone first (aot.deploy.generate.check_fits, prefixed with its name), then
    all of them together: one line naming the models, the shortfall and the largest tensors."""
    from types import SimpleNamespace
    from aot.deploy.multimodel import arena0_bytes, check_models_fit, mutable_bytes
    infos = [{"name": m.name, "compiled": m.compiled, "state": 0, "scratch": 0, "flash": len(m.compiled.pte)}
             for m in models]
    a, b = (arena0_bytes(m.compiled) for m in models)
    mutable = sum(mutable_bytes(m.compiled) for m in models)
    region = SimpleNamespace(size=1 << 20)
    board = lambda ram: SimpleNamespace(name="tiny", ram=SimpleNamespace(size=ram), flash=region,  # noqa: E731
                                        model_region=None)
    check_models_fit(infos, board(max(a, b) + mutable), "shared")  # fits: the larger arena once
    with pytest.raises(Exception) as e:
        check_models_fit(infos, board(max(a, b) + mutable), "separate")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("models a, b do not fit tiny together (--memory separate)")
    assert f"{min(a, b):,} B short (--memory shared would need less)" in msg
    assert "Largest tensors of a: " in msg  # small_cnn's arena is the larger
    with pytest.raises(Exception) as e:
        check_models_fit(infos, board(a // 2), "shared")
    assert str(e.value).startswith("model a does not fit tiny: needs") and "Largest tensors:" in str(e.value)


def test_selftest_lines_of_several_models_give_a_verdict_each():
    from aot.deploy.protocol import read_models_selftest
    from aot.errors import ProtocolError
    from aot.tools.selftest import format_report
    lines = ["MOTE BOOT mps2-an505", "MOTE MODEL name=kws pte=10 state=0 arena=16",
             "MOTE MODEL name=nan pte=20 state=0 arena=32",
             "MOTE RUN model=kws", "OUT 0 5 00", "MOTE SELFTEST CASE case=0 output=0 max_abs_err=0 tol=0 result=PASS",
             "MOTE RUN model=nan", "OUT 0 5 01", "MOTE SELFTEST CASE case=0 output=0 max_abs_err=1 tol=0 result=FAIL",
             "MOTE RUN model=kws", "MOTE SELFTEST PASS n=1 max_abs_err=0",
             "MOTE RUN model=nan", "MOTE SELFTEST FAIL case=0 output=0 element=0 got=1 want=0 tol=0 failed=1 n=1 "
             "max_abs_err=1"]
    reps = read_models_selftest(lines)
    assert list(reps) == ["kws", "nan"] and reps["kws"]["verdict"] == "PASS" and reps["nan"]["verdict"] == "FAIL"
    assert reps["nan"]["rows"][0]["max_abs_err"] == 1.0 and reps["nan"]["fail"]["element"] == 0
    text = format_report({"program": "b", "target": "mps2-an505", "verdict": "FAIL", "n": 2, "models": reps})
    assert text.splitlines()[-1] == "FAIL: 2 models, 2 case(s); failed: nan" and "model kws:" in text
    with pytest.raises(ProtocolError, match="no MOTE SELFTEST PASS/FAIL line for model\\(s\\) nan"):
        read_models_selftest(lines[:-1])


def test_dry_run_lists_what_the_generate_writes(tmp_path, capsys):
    args = ["generate", f"a={zoo.path('mlp')}", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--selftest", "1"]
    assert main(args + ["--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["memory"] == "shared" and [m["name"] for m in plan["models"]] == ["a", "small_cnn"]
    out = tmp_path / "g"
    assert main(args + ["-o", str(out)]) == 0
    src = json.loads((out / "mote_sources.json").read_text())
    assert [Path(p).relative_to(out).as_posix() for p in src["generated_sources"]] == plan["generated_sources"]
    assert all((out / h).is_file() for h in plan["generated_headers"])
    assert not (out / "mote_model.h").exists() and not (out / "model_pte.c").exists()


def test_external_weights_and_checksum_work_per_model(tmp_path, capsys):
    """--external-weights: each model's .ptd (a/model_ptd.c, mote_model_a_ptd) attached by its own
    init; --verify-checksum: each init checks its own program's CRC-32 (MOTE_MODEL_CRC32 of its
    mote_model.h). Both models pass interleaved on the host."""
    from aot.deploy.generate import Generated
    out = tmp_path / "g"
    assert main(["generate", f"a={zoo.path('small_cnn')}", f"b={zoo.path('mlp')}", "--board", "mps2-an505", "--int8",
                 "--external-weights", "--verify-checksum", "--selftest", "2", "--memory", "separate",
                 "-o", str(out)]) == 0
    src = json.loads((out / "mote_sources.json").read_text())
    assert src["defines"]["MOTE_RUNTIME_EXTERNAL"] == 1 and "MOTE_VERIFY_CHECKSUM" in src["defines"]
    for n in ("a", "b"):
        assert (out / n / "model.ptd").is_file() and str(out / n / "model_ptd.c") in src["sources"]
    r = _host_program(Generated(out, src), tmp_path / "app")
    assert r.returncode == 0 and "MULTI a=PASS b=PASS again=PASS shared=0" in r.stdout, r.stdout + r.stderr
    syms = subprocess.run(["nm", str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout
    assert " R mote_model_a_ptd" in syms and " R mote_model_b_ptd" in syms


def test_shared_kernel_scratch_is_the_largest_and_defined_once(models, tmp_path, monkeypatch):
    """A model whose kernels need scratch its plan does not cover (MOTE_MODEL_SCRATCH_BYTES > 0;
    here a's need raised to 96 B and b's to 48 B) takes --memory shared's one scratch buffer,
    mote_models_scratch, of the largest need; both still pass interleaved."""
    import aot.deploy.generate as generate
    from aot.deploy.boards import load_board
    from aot.deploy.multimodel import generate_models
    real = generate.target_memory
    need = {id(models[0].compiled): 96, id(models[1].compiled): 48}

    def with_scratch(compiled, board, work):
        state, scratch = real(compiled, board, work)
        compiled.manifest["memory"]["scratch_bytes"] = need[id(compiled)]
        return state, need[id(compiled)]
    monkeypatch.setattr(generate, "target_memory", with_scratch)
    try:
        gen = generate_models(models, "mps2-an505", tmp_path / "g", memory="shared")
    finally:
        for m in models:  # the module's compiled models: their manifests as target_memory leaves them
            real(m.compiled, load_board("mps2-an505"), tmp_path)
    assert "#define MOTE_MODEL_SCRATCH_BYTES 96u" in (gen.out_dir / "a" / "mote_model.h").read_text()
    assert "uint8_t mote_models_scratch[96u]" in (gen.out_dir / "mote_models.c").read_text()
    assert gen.sources["planned_ram"]["scratch"] == 96
    r = _host_program(gen, tmp_path / "app")
    assert r.returncode == 0 and "MULTI a=PASS b=PASS again=PASS shared=1" in r.stdout, r.stdout + r.stderr
    syms = subprocess.run(["nm", "-S", str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout
    scratch = [ln.split() for ln in syms.splitlines() if "scratch" in ln and ln.split()[2] in "bBdD"]
    assert [(int(s[1], 16), s[3]) for s in scratch] == [(96, "mote_models_scratch")], scratch


def test_a_model_without_method_image_keeps_its_state_in_its_own_buffer(models, tmp_path, monkeypatch):
    """b made without a method image (its runtime state in RAM, MOTE_MODEL_STATE_BYTES > 0): its
    wrapper declares its own state buffer; a host build gives b's host-ABI size as
    MOTE_EMBED_B_STATE_BYTES (mote_embed_names.h), a's stays its method image."""
    import aot.deploy.image as image
    from aot.deploy.boards import load_board
    from aot.deploy.generate import target_memory
    from aot.deploy.multimodel import generate_models
    from aot.host.runtime import Program
    real = image.image_source
    monkeypatch.setattr(image, "image_source",
                        lambda compiled, slots, library=None: None if compiled is models[1].compiled
                        else real(compiled, slots, library))
    try:
        gen = generate_models(models, "mps2-an505", tmp_path / "g", memory="shared")
    finally:
        monkeypatch.undo()
        for m in models:  # the module's compiled models: their manifests as target_memory leaves them
            target_memory(m.compiled, load_board("mps2-an505"), tmp_path)
    b_header = (gen.out_dir / "b" / "mote_model.h").read_text()
    state = int(re.search(r"#define MOTE_MODEL_STATE_BYTES (\d+)u", b_header).group(1))
    assert state > 0 and "MOTE_MODEL_IMAGE" not in b_header
    assert "#define MOTE_MODEL_IMAGE 1" in (gen.out_dir / "a" / "mote_model.h").read_text()
    host = Program(models[1].compiled.pte).requirements().state_size
    gen.sources["defines"] = dict(gen.sources["defines"], MOTE_EMBED_B_STATE_BYTES=host)
    r = _host_program(gen, tmp_path / "app")
    assert r.returncode == 0 and "MULTI a=PASS b=PASS again=PASS shared=1" in r.stdout, r.stdout + r.stderr
    syms = subprocess.run(["nm", "-S", str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout
    states = [ln.split() for ln in syms.splitlines() if ln.endswith(" mote_embed_state")]
    assert [int(s[1], 16) for s in states] == [host]  # b's only: a runs from its image


def test_one_model_costs_nothing(tmp_path):
    """One model without NAME=: today's files (no mote_models.h, no per-model folder) and the
    app preprocesses to its one-model code: none of the several-models code (the model table,
    the switch per call, the MOTE RUN line) reaches the compiler."""
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.generate import generate_compiled
    from aot.deploy.build import APP_SOURCE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_model_file(zoo.path("mlp"))
    out = tmp_path / "one"
    gen = generate_compiled(c, "mps2-an505", out)
    assert not (out / "mote_models.h").exists() and (out / "mote_model.h").is_file()
    assert "models" not in gen.sources and isinstance(gen.sources["memory"], dict)
    assert str(RUNTIME_DIR / "embed" / "mote_model.c") in gen.sources["sources"]
    flags = [f"-I{d}" for d in gen.sources["include_dirs"] + [str(PORTS_DIR / "cortex-m")]]
    for extra in ([], ["-DMOTE_APP_SELFTEST", "-DMOTE_MODEL_SELFTEST_CASES=1u"]):
        text = subprocess.run(["arm-none-eabi-gcc", "-E", "-P", "-std=c99"] + flags + extra + [str(APP_SOURCE)],
                              capture_output=True, text=True, check=True).stdout
        assert "mote_model_run()" in text and "int main(void)" in text
        for word in ("app_api_", "app_models", "MOTE RUN", "mote_models_"):
            assert word not in text, word


def test_build_counts_the_smallest_stack_before_linking(models, tmp_path):
    """aot build's fit pre-check counts a one-model build's smallest stack (MIN_STACK_BYTES):
    a board whose RAM holds the plans but not that stack is refused in one line before any
    link, never a link failure with an empty reason."""
    import dataclasses
    from aot.deploy.boards import load_board
    from aot.deploy.build import MIN_STACK_BYTES
    from aot.deploy.multimodel import build_models, planned_ram
    from aot.deploy.generate import target_memory
    an505 = load_board("mps2-an505")
    infos = []
    for m in models:
        (tmp_path / m.name).mkdir()
        state, scratch = target_memory(m.compiled, an505, tmp_path / m.name)
        infos.append({"compiled": m.compiled, "state": state, "scratch": scratch})
    total = planned_ram(infos, "shared")["total"]
    board = dataclasses.replace(an505, ram=dataclasses.replace(an505.ram, size=total + MIN_STACK_BYTES // 2))
    with pytest.raises(BuildError) as e:
        build_models(models, board, tmp_path / "out", memory="shared")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("models a, b do not fit mps2-an505 together (--memory shared)")
    assert f"+ stack {MIN_STACK_BYTES:,}), the board has {total + MIN_STACK_BYTES // 2:,} B: " \
           f"{MIN_STACK_BYTES // 2:,} B short" in msg
    assert not (tmp_path / "out").exists()


def test_a_failed_link_names_the_linker_s_reason():
    """A RAM overflow the linker script's ASSERT reports ends in the linker's words, not in
    the empty line after "... linking firmware.elf failed (1):"."""
    from types import SimpleNamespace
    from aot.deploy.build import _link_error, linker_reason
    text = ("mps2-an505: linking firmware.elf failed (1):\n"
            "arm-none-eabi-ld: RAM overflow: .data + .bss + stack do not fit the board's RAM\n"
            "collect2: error: ld returned 1 exit status\n\ncommand: arm-none-eabi-gcc -o firmware.elf x.o")
    assert linker_reason(text) == ("arm-none-eabi-ld: RAM overflow: .data + .bss + stack do not fit the board's "
                                   "RAM; collect2: error: ld returned 1 exit status")
    spec = SimpleNamespace(arena_sizes=[0, 4000, 96])
    msg = str(_link_error(Exception(text), spec, SimpleNamespace(name="tiny"), 12, 0, 256))
    assert msg.startswith("model does not fit tiny's RAM (arena 4,096 + state 12 + scratch 0 + stack 256 B")
    assert msg.endswith("do not fit the board's RAM; collect2: error: ld returned 1 exit status"), msg
    assert linker_reason("x: linking firmware.elf failed (1):\n\ncommand: gcc") == \
        "x: linking firmware.elf failed (1):"  # nothing from the tool: the line itself, not "...:" + nothing


def test_build_size_table_shows_each_model_s_plan_and_generate_s_figure():
    """aot build's per-model table: the planned arena of every model (--memory shared: the
    one arena, named as the largest plan), the .pte + self-test figure aot generate shows,
    and the linked bytes beside it, labelled."""
    from aot.deploy.multimodel import models_size_table
    model = lambda arena, pte, linked: {  # noqa: E731
        "flash": {"program": linked - 100, "embed": 100},
        "ram": {"arena": 0, "mutable": 0, "runtime_state": 0, "scratch": 0, "runtime": 204},
        "planned": {"arena": arena, "mutable": 16, "runtime_state": 0, "scratch": 0, "pte": pte, "selftest": 40}}
    size = {"memory": "shared", "models": {"kws": model(3812, 10592, 15396), "image": model(3264, 18144, 21732)},
            "shared": {"arena": 3812, "scratch": 0}}
    rows = models_size_table(size).splitlines()
    assert rows[0].split() == ["model", "pte+selftest", "B", "linked", "B", "arena", "B", "mutable", "B",
                               "state", "B", "runtime", "B"]
    assert rows[1].split() == ["kws", "10,632", "15,396", "3,812", "16", "0", "204"]
    assert rows[2].split() == ["image", "18,184", "21,732", "3,264", "16", "0", "204"]
    assert rows[3].startswith("  pte+selftest: as aot generate's table; linked:")
    assert rows[4].startswith("shared by every model (--memory shared): arena 3,812 B (the largest plan, kws's")


def test_selftest_lines_naming_their_model_are_read_without_run_lines():
    """mote_model_<name>_selftest() in a user's firmware: no MOTE RUN lines, each SELFTEST
    line ends with model=<name> and goes to that model; one model's reader takes it too."""
    from aot.deploy.protocol import read_models_selftest, read_selftest
    lines = ["MOTE MODEL name=kws pte=10 state=0 arena=16", "MOTE MODEL name=image pte=20 state=0 arena=32",
             "MOTE SELFTEST CASE case=0 output=0 max_abs_err=0 tol=0 result=PASS model=kws",
             "MOTE SELFTEST PASS n=1 max_abs_err=0 model=kws",
             "MOTE SELFTEST CASE case=0 output=0 max_abs_err=0.5 tol=0 result=FAIL model=image",
             "MOTE SELFTEST FAIL case=0 output=0 element=3 got=1 want=0.5 tol=0 failed=1 n=1 max_abs_err=0.5 model=image"]
    reps = read_models_selftest(lines)
    assert {n: r["verdict"] for n, r in reps.items()} == {"kws": "PASS", "image": "FAIL"}
    assert reps["image"]["fail"]["element"] == 3 and reps["image"]["rows"][0]["max_abs_err"] == 0.5
    one = read_selftest(lines[2:4])
    assert one["verdict"] == "PASS" and one["n"] == 1 and one["rows"][0]["verdict"] == "PASS"
