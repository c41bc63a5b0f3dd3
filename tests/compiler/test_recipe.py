"""The Recipe (aot.compiler.recipe): every compile option in one frozen object, checked
once, built by one parser for the command line and the build integrations."""
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from aot.cli import build_parser, main
from aot.compiler.recipe import DEFAULT_CASES, Recipe
from aot.deploy.boards import load_board
from aot.errors import MoteError

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "zoo" / "mlp.py")


def test_importing_the_recipe_and_parsing_options_does_not_load_torch():
    code = ("import sys; from aot.compiler.recipe import Recipe; Recipe.from_options('--int8 --selftest'); "
            "print(sorted(m for m in ('torch',) if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("options,message", [
    ("--int8-io", "--int8-io keeps an int8 program's inputs and outputs int8: add --int8"),
    ("--group-size 64", "--group-size sets the int4 weights' group: add --int4-weights (or drop --group-size)"),
    ("--int16-activations --int8-io",
     "--int16-activations keeps fp32 program inputs and outputs: drop --int8-io"),
    ("--int16-activations --int4-weights", "--int16-activations takes int8 weights: drop --int4-weights"),
    ("--calib c.npz", "--calib is the int8 calibration data: it needs --int8"),
    ("--int8 --bogus", "options: unrecognized arguments: --bogus"),
    ("--selftest 0", "options: argument --selftest: must be at least 1, got 0"),
    ("--int4-weights --group-size 48", "options: argument --group-size: invalid choice: 48 (choose from 32, 64, 128)"),
])
def test_a_bad_combination_is_one_line(options, message):
    with pytest.raises(MoteError) as e:
        Recipe.from_options(options)
    assert str(e.value) == message


def test_the_python_api_checks_the_same_combinations():
    with pytest.raises(MoteError, match="^--int8-io keeps an int8 program's inputs"):
        Recipe(int8_io=True)
    with pytest.raises(MoteError, match=r"^--delegate xnnpack keeps the delegated weights inside its payloads"):
        Recipe(delegate="xnnpack", external_weights=True)
    with pytest.raises(MoteError, match=r"^--delegate xnnpack: fp32 and int8 programs of one method only"):
        Recipe(delegate="xnnpack", int16_activations=True)
    assert Recipe(int16_activations=True, calib="c.npz").quantized   # int16 implies int8: --calib applies
    with pytest.raises(MoteError, match="^--int8-io keeps"):
        Recipe(int8=True).replace(int8=False, int8_io=True)          # replace() checks again


def test_a_recipe_is_immutable_and_derives_the_scheme():
    r = Recipe.from_options("--int8 --int4-weights --group-size 64 --selftest --external-weights")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.int8 = False
    assert (r.int4_weights, r.selftest, r.external_weights) == (64, DEFAULT_CASES, True)
    assert (r.quantized, r.int4_linear, r.weight_only_int4, r.scheme) == (True, True, False, "int8")
    w = Recipe.from_options(["--int4-weights"])
    assert (w.int4_weights, w.int4_linear, w.weight_only_int4, w.scheme) == (32, False, True, "fp32")
    assert Recipe.from_options("--int16-activations").scheme == "int16"


def test_dsp_weights_resolve_against_the_board():
    dsp, plain = load_board("mps2-an505"), load_board("mps2-an385")
    assert dsp.dsp_kernels and not plain.dsp_kernels
    assert Recipe.from_options("--int8", dsp).dsp_weights is True
    assert Recipe.from_options("--int8 --dsp-weights arena", dsp).dsp_weights is False
    assert Recipe.from_options("--int8", plain).dsp_weights is False
    assert Recipe.from_options("--int8").dsp_weights is False            # no board: no DSP kernels
    assert Recipe.from_options("", dsp).dsp_weights is False              # fp32 has no int8 convs
    # MVE boards: the linear layers' tables alone (no conv panels)
    mve = load_board("mps3-an547")
    r = Recipe.from_options("--int8", mve)
    assert (r.dsp_weights, r.linear_tables) == (False, True)
    assert Recipe.from_options("--int8 --dsp-weights arena", mve).linear_tables is False
    assert not any(Recipe.from_options(o, b).linear_tables
                   for o, b in (("--int8", dsp), ("--int8", plain), ("", mve), ("--int8", None)))


@pytest.mark.parametrize("options", [
    "--int8 --int8-io --selftest 3 --verify-checksum",
    "--int8 --dsp-weights arena --calib c.npz",
    "--int4-weights --group-size 128 --external-weights",
    "--int16-activations --selftest",
])
def test_aot_generate_and_the_integrations_parse_one_way(options):
    """What CMake / Zephyr / PlatformIO hand to aot generate gives the Recipe the command builds."""
    board = load_board("mps2-an505")
    args = build_parser().parse_args(["generate", MLP, "--board", board.name] + options.split())
    assert Recipe.from_args(args, board) == Recipe.from_options(options, board)


def test_every_compiling_command_builds_its_recipe_the_same_way():
    board = load_board("mps2-an505")
    want = Recipe(int8=True, int4_weights=64, dsp_weights=True)
    for command in (["export"], ["compare", "--target", "mps2-an505"], ["build", "--board", "mps2-an505"],
                    ["profile", "--target", "mps2-an505"], ["debug", "--target", "mps2-an505"],
                    ["generate", "--board", "mps2-an505"]):
        args = build_parser().parse_args([command[0], MLP, "--int8", "--int4-weights", "--group-size", "64"]
                                         + command[1:])
        assert Recipe.from_args(args, board) == want, command[0]


def test_a_recipe_and_keywords_compile_the_same_program():
    from aot.compiler.pipeline import compile_model_file
    by_recipe = compile_model_file(MLP, Recipe.from_options("--int4-weights --external-weights"))
    by_keywords = compile_model_file(MLP, int4_weights=32, external_weights=True)
    assert by_recipe.pte == by_keywords.pte and by_recipe.ptd == by_keywords.ptd
    assert by_recipe.recipe == by_keywords.recipe == Recipe(int4_weights=32, external_weights=True)


def test_the_command_prints_a_recipe_error_on_one_line(tmp_path, capsys):
    assert main(["generate", MLP, "--board", "mps2-an505", "--int8-io", "-o", str(tmp_path / "g")]) == 1
    err = capsys.readouterr().err
    assert err == "aot generate: error: --int8-io keeps an int8 program's inputs and outputs int8: add --int8\n"
    assert not (tmp_path / "g").exists()
