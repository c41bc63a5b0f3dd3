"""aot.compiler.liveness's sweeps (live_bytes_lower_bound, plan_conflicts: issue 34, `aot
inspect` linear in the program) give what their rules say, checked against the rules
applied literally (every instruction x every tensor; every pair of tensors) on random plans
with aliases, in-place handoffs, overlaps, several memory ids and empty tensors."""
import random

import pytest

from aot.compiler.liveness import lifetimes, live_bytes_lower_bound, plan_conflicts


def _bound_by_rule(planned, uses, inputs, outputs):
    life = lifetimes(uses, inputs, outputs)
    peak = 0
    for k in range(max(len(uses), 1)):
        per_mem = {}
        for v, (mem, off, nb) in planned.items():
            if v in life and life[v][0] <= k <= life[v][1] and nb > 0:
                per_mem.setdefault(mem, set()).update(range(off, off + nb))
        peak = max(peak, sum(len(b) for b in per_mem.values()))
    return peak


def _conflicts_by_rule(planned, uses, inputs, outputs):
    life = lifetimes(uses, inputs, outputs)
    vs = sorted(v for v, (_, _, nb) in planned.items() if v in life and nb > 0)
    out = []
    for i, a in enumerate(vs):
        for b in vs[i + 1:]:
            (ma, oa, na), (mb, ob, nb) = planned[a], planned[b]
            (fa, la), (fb, lb) = life[a], life[b]
            if ma != mb or (oa, na) == (ob, nb) or not (oa < ob + nb and ob < oa + na):
                continue
            if oa == ob and (la == fb or lb == fa):  # in-place handoff
                continue
            if fa <= lb and fb <= la:
                out.append((a, b))
    return out


def _random_plan(rng):
    n_values, n_instr = rng.randint(1, 40), rng.randint(0, 25)
    planned = {}
    for v in range(n_values):
        if rng.random() < 0.8:
            planned[v] = (rng.choice((1, 1, 2)), rng.choice((0, 0, 8, 16, 24, 40)) + rng.randrange(0, 3) * 4,
                          rng.choice((0, 4, 8, 8, 16, 32)))
    uses = [rng.sample(range(n_values), min(n_values, rng.randint(1, 4))) for _ in range(n_instr)]
    inputs = rng.sample(range(n_values), min(n_values, rng.randint(0, 3)))
    outputs = rng.sample(range(n_values), min(n_values, rng.randint(0, 3)))
    return planned, uses, inputs, outputs


@pytest.mark.parametrize("seed", range(6))
def test_sweeps_match_the_rules(seed):
    rng = random.Random(seed)
    found = {"bound": 0, "conflicts": 0}
    for _ in range(300):
        plan = _random_plan(rng)
        want = _bound_by_rule(*plan)
        assert live_bytes_lower_bound(*plan) == want, plan
        conflicts = _conflicts_by_rule(*plan)
        assert plan_conflicts(*plan) == conflicts, plan
        found["bound"] += want > 0
        found["conflicts"] += bool(conflicts)
    assert found["bound"] > 200 and found["conflicts"] > 50, found  # the cases exercise both


def test_view_chain_plan():
    """The plan of benchmarks/bench_init_growth.py's view_program(n), as aot inspect sees it:
    n + 1 float32 [1] tensors at offset 0, tensor i used by instructions i - 1 and i."""
    n = 3000
    planned = {v: (1, 0, 4) for v in range(n + 1)}
    uses = [[k, k + 1] for k in range(n)]
    assert live_bytes_lower_bound(planned, uses, [0], [n]) == 4
    assert plan_conflicts(planned, uses, [0], [n]) == []  # all exact aliases
    planned[7] = (1, 2, 4)  # now overlaps 6 and 8 (live with it) without being an alias
    assert plan_conflicts(planned, uses, [0], [n]) == [(6, 7), (7, 8)]
