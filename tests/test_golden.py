"""Golden playthroughs: a seed and a deterministic bot give a readable log, kept as a syrupy snapshot.

One log for the default game and one for every bundled killer × scenario pair: a new killer or
scenario has no snapshot, so its test fails until `pytest --snapshot-update` writes one (review
it like code). Any change to the rules, the content or the wording of events shows up as a
snapshot diff (tests/__snapshots__/test_golden.ambr).
"""

from __future__ import annotations

import pytest

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import apply, defaults, new_game, random_policy

SEED = 7
MAX_CHOICES = 5_000
RS = load_ruleset()
PAIRS = [pytest.param(k, s, id=f"{k}-in-{s}") for k in sorted(RS.killers) for s in sorted(RS.scenarios)]


def playthrough(rs, seed: int = SEED, **setup) -> str:
    """The whole game as text: every event rendered, and each choice as '> kind: key taken'."""
    state, events = new_game(rs, seed=seed, **setup)
    g = state.game
    lines = [f"# {g.killer.id} in {g.scenario.id}, final girl {g.fg.id}, {g.difficulty}, seed {seed}, "
             f"bot random_policy({seed})"]
    lines += [e.render() for e in events]
    policy = random_policy(seed)
    for _ in range(MAX_CHOICES):
        if state.over:
            break
        key = policy(state, state.choice)
        lines.append(f"> {state.choice.kind}: {key}")
        state, events = apply(state, key)
        lines += [e.render() for e in events]
    assert state.over, f"the golden game did not end within {MAX_CHOICES} choices"
    lines.append(f"= {state.result} wins in round {state.round}: {state.end_reason}")
    return "\n".join(lines) + "\n"


def test_golden_default_game(snapshot):
    d = defaults(RS)
    log = playthrough(RS, killer=d["killer"], scenario=d["scenario"], final_girl=d["final_girl"])
    assert log == snapshot


@pytest.mark.parametrize(("killer", "scenario"), PAIRS)
def test_golden_film(snapshot, killer, scenario):
    log = playthrough(RS, killer=killer, scenario=scenario)
    assert log == snapshot


def test_golden_log_is_reproducible():
    assert playthrough(RS) == playthrough(load_ruleset())
