"""No behaviour change hidden in a refactoring: every program of the zoo, the
garden, the stateful models, the digits demo and the option variants compiles
to the .pte / ops.json / .ptd bytes recorded in program_digests.json.
On an intended change, regenerate: `.venv/bin/python tests/compiler/program_digests.py`."""
import pytest

import program_digests as D

pytestmark = pytest.mark.slow

REGENERATE = ".venv/bin/python tests/compiler/program_digests.py"
CASES = D.all_cases()
#: constants a program may hold beyond the model's weights: small tables folded from no
#: weight (aot.compiler.passes.const_fold.FREE_FOLD_BYTES each; gru_kws: 896 B of zero states)
FOLD_SLACK = 1024


def test_digest_file_lists_every_case():
    assert sorted(D.load()) == sorted(k for k, _, _ in CASES), f"cases changed: run {REGENERATE}"


@pytest.mark.parametrize("key,path,kwargs", CASES, ids=[k for k, _, _ in CASES])
def test_program_bytes_unchanged(key, path, kwargs):
    expected = D.load().get(key, {})
    compiled = D.compile_case(path, kwargs)
    got = D.file_digests(compiled)
    assert set(got) >= {"pte", "ops.json"}
    changed = D.differences(expected, got)
    assert not changed, (f"{key}: the bytes of {', '.join(changed)} changed; if intended, run {REGENERATE} "
                         "and commit program_digests.json with the change")
    # issue 39: no pass makes the program larger than the weights it starts from (constant
    # folding stores nothing bigger than its sources; tables of zeros/aranges up to 1 KiB)
    weights = D.weight_bytes(compiled)
    assert weights > 0
    assert D.constant_bytes(compiled) <= weights + FOLD_SLACK, key


def test_one_changed_byte_is_a_difference():
    """The comparison sees a single byte: the digest of a .pte with one byte flipped differs."""
    from aot.compiler.pipeline import compile_model_file
    import zoo
    import dataclasses
    c = compile_model_file(zoo.path("small_cnn"))
    flipped = bytearray(c.pte)
    flipped[len(flipped) // 2] ^= 1
    assert D.differences(D.file_digests(c), D.file_digests(dataclasses.replace(c, pte=bytes(flipped)))) == ["pte"]
    assert D.differences(D.file_digests(c), D.file_digests(c)) == []
