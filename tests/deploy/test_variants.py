"""Per-program kernel variants (MOTE_S8_USE_* in cmsis/mote_s8_arm.h,
aot.deploy.generate.kernel_variant_defines): a firmware compiles in only the DSP
kernel variants its program runs; the compiler is the one home of which those are,
by the kernels' own dispatch rules (kernels/requant.h through kernels/int8_scratch.c)."""
import subprocess
from pathlib import Path
import warnings

import pytest

import zoo
from aot.deploy.boards import load_board
from aot.deploy.generate import VARIANTS_HEADER, _variant_rules, kernel_variant_defines, kernel_variant_names
from aot.paths import CMSIS_DIR, KERNELS_DIR, RUNTIME_DIR

#: the variants each MLPerf Tiny model runs on the M33 (aot build's program: pre-widened
#: DSP weights), at --opt speed and --opt size
EXPECTED = {
    # every pointwise layer of stride 1 with the program's table: no column builder;
    # the 25x5 depthwise maps: transposed planes, four channels at a time, the E-form alone,
    # its 1x8 block at --opt speed; every conv with the E-form table (full range, out_zp -128):
    # no store core of the fast form
    "ds_cnn": ({"CONV_STEM", "CONV_E", "DW_PLANAR", "DW_PLANAR_T", "DW_PLANAR_E", "DW_PLANAR_X8", "LINEAR_PANEL"},
               {"CONV_STEM", "CONV_E", "DW_PLANAR", "DW_PLANAR_T", "DW_PLANAR_E", "LINEAR_TABLE"}),
    # (every depthwise layer through the planes in the E-form; its 6x6 and 3x3 maps: the 1x6 and 1x3 blocks, C blocks;
    # at --opt speed every one widens four channels at once)
    # (every conv in the E-form; its pointwise layers of K <= 32 conv_rows_pwe, K = 8 its core;
    # its stem reads the NCHW input)
    "mobilenet_v1_025": ({"CONV_STEM3X3C3", "CONV_STEM3_NCHW", "CONV_E", "CONV_EK64", "CONV_PWE", "CONV_PW8", "CONV_PWU", "DW_PLANAR", "DW_PLANAR_S2", "DW_PLANAR_N",
                          "DW_PLANAR_X6", "DW_PLANAR_X6S2", "DW_PLANAR_X3", "DW_PLANAR_X3S2", "DW_PLANAR_C",
                          "DW_PLANAR_E", "DW_PLANAR_X8", "LINEAR_PANEL"},
                         {"CONV_STEM3X3C3", "CONV_STEM3_NCHW", "CONV_E", "CONV_EK64", "CONV_PWE", "CONV_PW8", "CONV_PWU", "DW_PLANAR", "DW_PLANAR_S2", "DW_PLANAR_N",
                          "DW_PLANAR_ONE", "DW_PLANAR_TWO", "DW_PLANAR_X6", "DW_PLANAR_X6S2", "DW_PLANAR_X3", "DW_PLANAR_X3S2", "DW_PLANAR_C",
                          "DW_PLANAR_E", "LINEAR_ROWS"}),
    # strided 1x1 shortcuts; its 3x3 convs planned in place need the row ring
    # (its stem and 3x3 convs with a fused ReLU and K <= 256: the E-form; its stem reads
    # the NCHW input)
    "resnet8": ({"CONV_POINTWISE", "CONV_WINDOW", "CONV_STEM3X3C3", "CONV_STEM3_NCHW", "CONV_FULL", "CONV_E", "LINEAR_PANEL",
                 "ROWS_RING"},
                {"CONV_POINTWISE", "CONV_WINDOW", "CONV_STEM3X3C3", "CONV_STEM3_NCHW", "CONV_CLAMP", "CONV_E", "LINEAR_TABLE",
                 "ROWS_RING"}),
    # the 640->128 layer's panel does not fit (K > 256): its table alone
    "autoencoder": ({"LINEAR_TABLE", "LINEAR_PANEL"}, {"LINEAR_TABLE"}),
}


def _compiled(name, **kw):
    from aot.compiler.pipeline import compile_model_file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_model_file(zoo.path(name), int8=True, int8_io=True, **kw)


def test_the_rules_cover_the_header_list():
    names = kernel_variant_names()
    assert len(names) == len(set(names)) >= 12
    assert "DW_PLANAR" in names and "CONV_GENERAL" in names
    c = _compiled("ds_cnn", dsp_weights=True)
    assert set(_variant_rules(c.spec, False)) == set(names)
    # each one documented where it is defined
    text = VARIANTS_HEADER.read_text()
    for n in names:
        assert f"#define MOTE_S8_USE_{n} 1" in text


@pytest.mark.parametrize("model", sorted(EXPECTED))
def test_a_program_builds_with_the_variants_it_runs(model):
    board = load_board("mps2-an505")
    for size, want in zip((False, True), EXPECTED[model]):
        # the program aot build ships at that profile (--opt size: linear tables alone)
        c = _compiled(model, dsp_weights=True, opt="size" if size else "speed")
        d = kernel_variant_defines(c, board, size)
        assert set(d) == {f"MOTE_S8_USE_{n}" for n in kernel_variant_names()}
        assert {k[len("MOTE_S8_USE_"):] for k, v in d.items() if v == 1} == want, (model, size)


def test_variants_follow_the_program_not_the_model():
    """The same model without pre-widened weights runs the general conv path and the
    linear rows: the program, not the model name, decides."""
    board = load_board("mps2-an505")
    d = kernel_variant_defines(_compiled("ds_cnn"), board, False)
    assert d["MOTE_S8_USE_CONV_GENERAL"] == 1 and d["MOTE_S8_USE_LINEAR_ROWS"] == 1
    assert d["MOTE_S8_USE_LINEAR_PANEL"] == 0
    assert d["MOTE_S8_USE_CONV_POINTWISE"] == 1  # the general path builds every column


def test_mve_builds_leave_out_the_linear_forms_they_do_not_run():
    """On the M55 only the linear table path is a variant (the other rules are the
    DSP kernels'; the row ring, for one, serves MVE calls): AD's program (tables
    alone) keeps it, a program without tables leaves it out; a core with neither
    DSP nor MVE defines nothing."""
    mve = load_board("mps3-an547")
    assert kernel_variant_defines(_compiled("autoencoder", linear_tables=True), mve, False) == \
        {"MOTE_S8_USE_LINEAR_TABLE": 1}
    assert kernel_variant_defines(_compiled("autoencoder"), mve, False) == {"MOTE_S8_USE_LINEAR_TABLE": 0}
    assert kernel_variant_defines(_compiled("autoencoder"), load_board("mps2-an385"), False) == {}


FILES = ["op_mote_conv2d_s8.c", "op_mote_depthwise_conv2d_s8.c", "op_mote_linear_s8.c", "op_mote_mean_s8.c",
         "../kernels/s8_rows.c"]


@pytest.mark.parametrize("off", ["all"] + kernel_variant_names())
def test_kernels_compile_with_a_variant_left_out(tmp_path, off):
    """Every variant can be compiled out alone (or all together) at both profiles,
    warning-free: C99, -Wall -Wextra -Wpedantic -Werror."""
    names = kernel_variant_names()
    defs = [f"-DMOTE_S8_USE_{n}={0 if off in ('all', n) else 1}" for n in names]
    for size in (0, 1):
        for f in FILES:
            cmd = ["arm-none-eabi-gcc", "-mthumb", "-mcpu=cortex-m33", "-mfloat-abi=hard", "-Os", "-std=c99",
                   "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror",
                   "-I", str(RUNTIME_DIR / "include"), "-I", str(KERNELS_DIR), f"-DMOTE_OPT_SIZE={size}",
                   *defs, "-c", str(CMSIS_DIR / f), "-o", str(tmp_path / (Path(f).name + ".o"))]
            r = subprocess.run(cmd, capture_output=True, text=True)
            assert r.returncode == 0, (off, size, f, r.stderr[-2000:])


@pytest.mark.parametrize("cc,flags", [("arm-none-eabi-gcc", ["-mthumb", "-mcpu=cortex-m55", "-mfloat-abi=hard"]),
                                      ("gcc", [])])
def test_other_paths_ignore_the_variants(tmp_path, cc, flags):
    """The MVE and plain paths compile with every variant left out (they have none)."""
    defs = [f"-DMOTE_S8_USE_{n}=0" for n in kernel_variant_names()]
    for f in FILES:
        cmd = [cc, *flags, "-O2", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
               "-I", str(RUNTIME_DIR / "include"), "-I", str(KERNELS_DIR), *defs,
               "-c", str(CMSIS_DIR / f), "-o", str(tmp_path / (Path(f).name + ".o"))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, (cc, f, r.stderr[-2000:])
