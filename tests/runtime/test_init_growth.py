"""Init's work on lists is bounded by the file (issue 34): a tensor-list out argument is proven
writable by its place (lists naming a constant are laid out last), and the repeated return list
ExecuTorch appends is compared with the out list within a budget of the method's list items.
The programs are benchmarks/bench_init_growth.py's (timed there, counted here by outcome)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_init_growth import list_program, stage_times  # noqa: E402


@pytest.fixture(scope="module")
def libpath(host_build):
    return host_build / "ports" / "linux" / "libmote.so"


def test_many_calls_share_one_out_list(libpath):
    pte, _ = list_program(500)  # 500 calls, one 500-tensor out list
    assert set(stage_times(pte, None, libpath)) == {"load", "requirements", "init"}


def test_a_repeated_return_list_is_compared_within_the_budget(libpath):
    """Two lists of 400 tensors (800 items): two calls comparing them read 800 items and init;
    a third would read more than the lists hold and is refused (UNSUPPORTED, -217)."""
    for calls in (1, 2):
        pte, _ = list_program(400, calls=calls, repeat=True)
        stage_times(pte, None, libpath)
    pte, _ = list_program(400, calls=3, repeat=True)
    with pytest.raises(RuntimeError, match="init: mote error -217"):
        stage_times(pte, None, libpath)
