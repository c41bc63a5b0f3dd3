"""`aot generate` (aot.deploy.generate): the sources of a model for a user's own
build, and the embedding API (mote/model.h) they are compiled with.

The host tests compile exactly what mote_sources.json lists (minus the
bare-metal port) with the host C compiler, -std=c99 -Wall -Wextra -Wpedantic
-Werror, plus the Linux port hooks and examples/cmake/main.c, and run it: the
self-test cases pass, a wrong expected value fails with the FAIL line."""
from __future__ import annotations

import json
import re
import subprocess
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

import zoo
from aot.cli import main
from aot.compiler.kernels import RUNTIME_OPS
from aot.errors import BuildError
from aot.paths import PORTS_DIR, ROOT

MAIN = ROOT / "examples" / "cmake" / "main.c"
HOST_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror", "-O1"]


def _compiled(name="small_cnn", int8=False):
    from aot.compiler.pipeline import compile_model_file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_model_file(zoo.path(name), int8=int8)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen") / "small_cnn-an505"
    assert main(["generate", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--int8",
                 "--selftest", "3", "-o", str(out)]) == 0
    return out


def test_generated_files_and_sources_manifest(generated):
    out = generated
    for name in ("model_pte.c", "model_pte.h", "mote_model.h", "registry.c", "model_selftest.c",
                 "model_selftest_inputs.c", "model.pte", "ops.json", "model.bpte", "mote_sources.json",
                 "port/firmware.ld", "port/mote_board.h"):
        assert (out / name).is_file(), name
    src = json.loads((out / "mote_sources.json").read_text())
    pte = (out / "model.pte").read_bytes()
    assert src["board"] == "mps2-an505" and src["int8"] is True and src["pte_bytes"] == len(pte)
    for p in src["sources"] + src["include_dirs"] + src["port"]["sources"] + src["port"]["include_dirs"]:
        assert Path(p).exists(), p
    # The kernel files are exactly the program's operators, cmsis/ versions on this DSP core.
    from aot.compiler.kernels import kernel_files
    ops = json.loads((out / "ops.json").read_text())["ops"]
    op_files = sorted(Path(p).name for p in src["kernel_sources"] if Path(p).name.startswith("op_"))
    by_op = kernel_files(ROOT / "kernels")  # op name -> its file (the cmsis/ twins have the same names)
    assert op_files == sorted({by_op[o["name"]].name for o in ops if o["name"] not in RUNTIME_OPS})
    assert any("/cmsis/op_mote_conv2d_s8.c" in p for p in src["kernel_sources"])
    # The program array holds the .pte's bytes; the header its size and CRC-32.
    body = (out / "model_pte.c").read_text()
    values = bytes(int(v, 16) for v in re.findall(r"0x([0-9a-f]{2})", body.split("= {", 1)[1]))
    assert values == pte
    assert f"#define MOTE_MODEL_PTE_SIZE {len(pte)}u" in (out / "model_pte.h").read_text()
    header = (out / "mote_model.h").read_text()
    assert f"#define MOTE_MODEL_CRC32 0x{zlib.crc32(pte):08x}u" in header
    assert "#define MOTE_MODEL_SELFTEST_CASES 3u" in header
    assert "MOTE_MODEL_STACK_RESERVED_BYTES" not in header  # known only after a link
    assert re.search(r"#define MOTE_MODEL_STATE_BYTES (\d+)u", header).group(1) == \
        str(src["memory"]["runtime_state_bytes"])


def test_json_prints_the_sources_manifest(tmp_path, capsys):
    out = tmp_path / "g"
    assert main(["generate", str(zoo.path("mlp")), "--board", "pico2", "-o", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((out / "mote_sources.json").read_text())
    assert "-mcpu=cortex-m33" in printed["arch_flags"]
    assert any(p.endswith("image_def.c") for p in printed["port"]["sources"])  # the RP2350 boot block


def test_unknown_board_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "g"
    assert main(["generate", str(zoo.path("mlp")), "--board", "no-such-board", "-o", str(out)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-board" in err[0]
    assert not out.exists()


def test_failed_generate_leaves_the_old_folder(tmp_path):
    from aot import ir
    from aot.deploy.generate import generate_compiled
    c = _compiled("mlp")
    out = tmp_path / "g"
    generate_compiled(c, "mps2-an505", out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    last = c.spec.instructions[-1]
    c.spec.instructions.append(ir.KernelCall(op="mote::no_such_op", overload="out", args=list(last.args)))
    with pytest.raises(BuildError, match=r"no kernel for operator\(s\) mote::no_such_op\.out"):
        generate_compiled(c, "mps2-an505", out)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["g"]  # no staging folder left behind


def _host_program(out: Path, exe: Path, main_c: Path = MAIN) -> subprocess.CompletedProcess:
    """The generated sources + the Linux port + examples/cmake/main.c, built and run on this
    64-bit host; its runtime state is the host's (MOTE_EMBED_STATE_BYTES), not the board's."""
    from aot.host.runtime import Program
    src = json.loads((out / "mote_sources.json").read_text())
    defines = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in src["defines"].items()]
    defines.append(f"-DMOTE_EMBED_STATE_BYTES={Program((out / 'model.pte').read_bytes()).requirements().state_size}")
    cmd = (["cc"] + HOST_FLAGS + [f"-I{d}" for d in src["include_dirs"]] + defines + src["sources"]
           + [str(PORTS_DIR / "linux" / "port_linux.c"), str(main_c), "-lm", "-o", str(exe)])
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


def test_embedding_api_on_the_host_passes_its_selftest(generated, tmp_path):
    r = _host_program(generated, tmp_path / "app")
    assert r.returncode == 0, r.stderr
    lines = [ln[len("mote: "):] for ln in r.stderr.splitlines()]
    for k in range(3):  # bit-exact on the host: the expected outputs came from the host runtime
        assert re.fullmatch(rf"MOTE SELFTEST CASE case={k} output=0 max_abs_err=0 tol=\S+ result=PASS", lines[k])
    assert "MOTE SELFTEST PASS n=3 max_abs_err=0" in lines
    assert any(re.fullmatch(r"app: class \d \(score -?\d+/1000\)", ln) for ln in lines), lines


def test_dry_run_names_the_files_and_external_weights_pass_their_selftest(tmp_path, capsys):
    """--dry-run (what CMake asks at configure time) names exactly the C files the generate
    writes; with --external-weights the .ptd is model_ptd.c, attached by mote_model_init(), and
    the self-test's expected outputs come from the program with its .ptd."""
    args = ["generate", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--int8", "--external-weights",
            "--selftest", "2"]
    assert main(args + ["--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["recipe"]["external_weights"] is True and plan["recipe"]["selftest"] == 2
    out = tmp_path / "gen"
    assert main(args + ["-o", str(out)]) == 0
    src = json.loads((out / "mote_sources.json").read_text())
    assert [Path(p).name for p in src["generated_sources"]] == plan["generated_sources"]
    assert "model_ptd.c" in plan["generated_sources"] and (out / "model.ptd").is_file()
    assert all((out / h).is_file() for h in plan["generated_headers"])
    r = _host_program(out, tmp_path / "app")
    assert r.returncode == 0 and "mote: MOTE SELFTEST PASS n=2 max_abs_err=0" in r.stderr, r.stderr


def test_embedding_api_reports_a_wrong_expected_value(tmp_path):
    """One expected float changed by 1.0: mote_model_selftest() prints FAIL naming it and fails."""
    from aot.deploy.generate import generate_compiled
    from aot.deploy.selftest import case_inputs, make_selftest
    c = _compiled("small_cnn")
    st = make_selftest(c.pte, case_inputs(c, 2))
    st.expected[1][0] = st.expected[1][0].copy()
    st.expected[1][0].reshape(-1)[7] += 1.0
    out = tmp_path / "g"
    generate_compiled(c, "mps2-an505", out, selftest=st)
    r = _host_program(out, tmp_path / "app")
    assert r.returncode == 1
    fail = [ln for ln in r.stderr.splitlines() if "MOTE SELFTEST FAIL" in ln]
    assert len(fail) == 1 and "case=1 output=0 element=7" in fail[0] and "failed=1 n=2" in fail[0], r.stderr
    assert "MOTE SELFTEST CASE case=0 output=0 max_abs_err=0" in r.stderr


def test_board_sources_lists_every_kernel_once(capsys):
    from aot.deploy.generate import _main
    assert _main(["--board-sources", "mps3-an547"]) == 0
    got = json.loads(capsys.readouterr().out)
    names = [Path(p).name for p in got["kernel_sources"]]
    assert len(names) == len(set(names))  # a cmsis/ kernel replaces its portable twin
    assert any("/cmsis/op_mote_linear_s8.c" in p for p in got["kernel_sources"])
    assert not any(p.endswith("/kernels/op_mote_linear_s8.c") for p in got["kernel_sources"])
    assert got["port"]["linker_script"] == "port/firmware.ld"


def test_board_sources_command_and_its_old_forms_agree(capsys):
    """`aot board-sources BOARD` prints what `python -m aot.deploy.generate --board-sources`
    and `python -m aot.target.generate --board-sources` (kept one release, with a one-line
    pointer on stderr) print; an unknown board is one line."""
    import sys
    assert main(["board-sources", "pico2"]) == 0
    new = json.loads(capsys.readouterr().out)
    assert new["board"] == "pico2" and new["kernel_sources"]
    for mod in ("aot.deploy.generate", "aot.target.generate"):
        r = subprocess.run([sys.executable, "-m", mod, "--board-sources", "pico2"],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == new
        assert r.stderr.strip().splitlines() == [f"mote: `python -m {mod} --board-sources BOARD` is now "
                                                 "`aot board-sources BOARD`; the old form goes in the next release"]
    assert main(["board-sources", "no-such-board"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("aot board-sources: error: ") and "no-such-board" in err[0]


def test_qemu_command_refuses_a_missing_elf_in_one_line(capsys):
    import sys
    assert main(["qemu", "no-such.elf", "--board", "mps2-an505"]) == 2
    assert capsys.readouterr().err.strip() == "aot qemu: no-such.elf: no such firmware file"
    q = subprocess.run([sys.executable, "-m", "aot.target.qemu", "no-such.elf", "--board", "mps2-an505"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert q.returncode == 2 and "mote qemu: no-such.elf: no such firmware file" in q.stderr
    assert "is now `aot qemu ELF --board BOARD`" in q.stderr


def test_readme_embedding_example_compiles_and_runs(tmp_path):
    """The manual's 30-line example (docs/runtime-api.md, "The embedding API") against a
    generated model without --selftest: it builds warning-free and prints a class."""
    from aot.deploy.generate import generate_compiled
    text = (ROOT / "docs" / "runtime-api.md").read_text()
    section = text[text.index("## The embedding API"):]
    code = section[section.index("```c\n") + 5:section.index("```", section.index("```c\n") + 5)]
    assert 25 <= len(code.strip().splitlines()) <= 35
    main_c = tmp_path / "readme_main.c"
    main_c.write_text(code)
    out = tmp_path / "g"
    generate_compiled(_compiled("small_cnn"), "pico2", out)
    r = _host_program(out, tmp_path / "app", main_c)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"mote: class \d", r.stderr.strip()), r.stderr


def test_output_folder_that_mote_did_not_write_is_refused(tmp_path, capsys):
    """-o naming a folder with the user's files (or a file) is refused before anything
    is compiled or written; an empty folder or an earlier generate folder is fine."""
    mine = tmp_path / "src"
    mine.mkdir()
    (mine / "main.c").write_text("int main(void) { return 0; }\n")
    for cmd in (["generate", str(zoo.path("mlp")), "--board", "mps2-an505", "-o", str(mine)],
                ["build", str(zoo.path("mlp")), "--board", "mps2-an505", "-o", str(mine)]):
        assert main(cmd) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "is not empty and is not a folder" in err[0], err
        assert [p.name for p in mine.iterdir()] == ["main.c"]
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["generate", str(zoo.path("mlp")), "--board", "mps2-an505", "-o", str(afile)]) == 1
    assert "is a file, not a folder" in capsys.readouterr().err and afile.read_text() == "x"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["generate", str(zoo.path("mlp")), "--board", "mps2-an505", "-o", str(empty)]) == 0
    assert main(["generate", str(zoo.path("mlp")), "--board", "mps2-an505", "-o", str(empty)]) == 0
    # folders only (Ninja makes a several-models generate's NAME/ folders before it runs): fine;
    # a file deep inside them is the user's
    made = tmp_path / "made"
    (made / "a" / "b").mkdir(parents=True)
    from aot.deploy.generate import check_output_folder
    check_output_folder(made, "mote_sources.json", "generate")
    (made / "a" / "b" / "notes.txt").write_text("mine")
    with pytest.raises(BuildError, match="is not empty and is not a folder"):
        check_output_folder(made, "mote_sources.json", "generate")


def test_model_too_big_for_the_board_flash(tmp_path, capsys):
    out = tmp_path / "g"
    assert main(["generate", str(zoo.path("mlp")), "--board", "microbit", "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(r"the program needs [\d,]+ B of flash, the board has 262,144 B: "
                                       r"[\d,]+ B short\. Largest constants: 0\.weight \[784, 128\]", err[0]), err
    assert not out.exists()


def test_error_in_the_model_files_functions_is_one_line(tmp_path, capsys):
    f = tmp_path / "broken.py"
    f.write_text("import torch\nfrom torch import nn\n\n\ndef model():\n"
                 "    return nn.Linear(3, 4, bad_arg=1)\n\n\ndef example_inputs():\n"
                 "    return (torch.randn(1, 3),)\n")
    assert main(["generate", str(f), "--board", "pico2", "-o", str(tmp_path / "g")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["aot generate: error: broken.py:6: model() failed: TypeError: "
                   "Linear.__init__() got an unexpected keyword argument 'bad_arg'"], err


def test_calib_needs_int8(tmp_path, capsys):
    np.savez(tmp_path / "c.npz", np.zeros((1, 1, 8, 8), np.float32))
    assert main(["generate", str(zoo.path("small_cnn")), "--board", "pico2", "--calib",
                 str(tmp_path / "c.npz"), "-o", str(tmp_path / "g")]) == 1
    assert "--calib is the int8 calibration data: it needs --int8" in capsys.readouterr().err
    assert main(["generate", str(zoo.path("small_cnn")), "--board", "pico2", "--int8", "--calib",
                 str(tmp_path / "nope.npz"), "-o", str(tmp_path / "g")]) == 1
    assert f"--calib {tmp_path / 'nope.npz'}: no such file" in capsys.readouterr().err

