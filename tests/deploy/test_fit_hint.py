"""Issue 36: when the int8 weights pre-widened for the DSP kernels are what overflows a
board's flash, the "does not fit" error says that --dsp-weights arena fits."""
import dataclasses

import pytest

import zoo
from aot.compiler.pipeline import compile_model_file
from aot.deploy.boards import Region, load_board
from aot.deploy.generate import check_fits
from aot.errors import BuildError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ds_cnn():
    """DS-CNN in int8 as aot build ships it for the M33: pre-widened DSP weights."""
    return compile_model_file(zoo.path("ds_cnn"), int8=True, dsp_weights=True)


def _board(flash_bytes: int):
    b = load_board("mps2-an505")
    return dataclasses.replace(b, flash=Region(b.flash.origin, flash_bytes))


def test_flash_overflow_by_the_widened_weights_names_dsp_weights_arena(ds_cnn):
    spec, pte = ds_cnn.spec, len(ds_cnn.pte)
    dsp = spec.plan_info["dsp_weights_bytes"]
    assert 0 < dsp < pte  # measured: 56,256 B of DS-CNN's 92,624-B program
    board = _board(pte - dsp // 2)  # the program without its widened weights fits, with them not
    with pytest.raises(BuildError) as e:
        check_fits(spec, board, 0, 0, pte)
    msg = str(e.value)
    assert msg.startswith(f"model does not fit mps2-an505: the program needs {pte:,} B of flash")
    assert msg.endswith(f"B. {dsp:,} B of the program are the int8 weights pre-widened to int16 for the DSP "
                        f"kernels: --dsp-weights arena fits the flash (program {pte - dsp:,} B; the convolutions "
                        "then widen their weights at run time in RAM scratch: more RAM, which that build's size "
                        "table shows, and slower)")


def test_no_hint_when_arena_would_not_fit_either(ds_cnn):
    spec, pte = ds_cnn.spec, len(ds_cnn.pte)
    dsp = spec.plan_info["dsp_weights_bytes"]
    with pytest.raises(BuildError) as e:
        check_fits(spec, _board(pte - dsp - 1), 0, 0, pte)
    assert "--dsp-weights arena" not in str(e.value)
    # and none for a program without widened weights
    plain = compile_model_file(zoo.path("ds_cnn"), int8=True)
    with pytest.raises(BuildError) as e:
        check_fits(plain.spec, _board(len(plain.pte) - 1), 0, 0, len(plain.pte))
    assert "--dsp-weights" not in str(e.value)
