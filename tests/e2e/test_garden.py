"""The model garden (zoo/garden/): the architectures users bring compile and run in
fp32 on the host runtime and in firmware on the default simulated board, within 1e-5
relative of eager PyTorch, with the arena at or below the tensor-level lower bound."""
import pytest

from aot.compiler.pipeline import compile_model_file
from aot.tools.compare import compare
from zoo.garden import GARDEN, path

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = compile_model_file(path(name))
        return cache[name]
    return get


@pytest.mark.parametrize("name", sorted(GARDEN))
def test_garden_fp32_on_host(compiled, name):
    c = compiled(name)
    r = compare(c, "host", seed=1)
    print(f"\n{name}: max rel error {r['max_rel_error']:.2e}, arena {r['arena_bytes']} B "
          f"(bound {r['arena_lower_bound_bytes']} B), .pte {r['pte_bytes']} B")
    assert r["max_rel_error"] <= 1e-5
    assert r["arena_bytes"] <= r["arena_lower_bound_bytes"]


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("name", sorted(GARDEN))
def test_garden_fp32_on_mps2_an505(compiled, name, tmp_path):
    r = compare(compiled(name), "mps2-an505", seed=2, out_dir=tmp_path / name)
    print(f"\n{name} on mps2-an505: max rel error {r['max_rel_error']:.2e}, "
          f"{r['instructions']:,} instructions, RAM {r['ram_bytes']:,} B")
    assert r["max_rel_error"] <= 1e-5
    assert r["instructions"] > 0
