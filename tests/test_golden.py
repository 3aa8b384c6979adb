"""Golden playthroughs: a stored list of choices gives a readable log, kept as a syrupy snapshot.

One game for the default setup and one for every bundled killer × scenario pair. The choices of
each are stored in tests/goldens/<name>.json and replayed, so a change to a bot changes no
golden; any change to the rules, the content or the wording of events shows up as a snapshot
diff (tests/__snapshots__/test_golden.ambr), to be reviewed like code.

A new killer or scenario has no golden: its test fails until ``pytest tests/test_golden.py
--snapshot-update`` writes one. When a rule changes so that a stored choice is no longer offered
(or the game now needs more choices), the test says so; ``--snapshot-update`` then keeps the
stored choices as far as they still fit, plays on from there with the random bot, and writes both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import apply, defaults, new_game, random_policy

SEED = 7
MAX_CHOICES = 5_000
GOLDENS = Path(__file__).resolve().parent / "goldens"
RS = load_ruleset()
PAIRS = [pytest.param(k, s, id=f"{k}-in-{s}") for k in sorted(RS.killers) for s in sorted(RS.scenarios)]


class Diverged(Exception):
    """The stored choices no longer fit the game."""


def playthrough(rs, choices, seed: int = SEED, update: bool = False, **setup) -> tuple[str, list[str]]:
    """The game as text (every event rendered, each choice as '> kind: key') and the choices made.

    The stored ``choices`` are made in order; with ``update``, where they stop fitting the random
    bot plays on; otherwise that raises Diverged."""
    state, events = new_game(rs, seed=seed, **setup)
    g = state.game
    lines = [f"# {g.killer.id} in {g.scenario.id}, final girl {g.fg.id}, {g.difficulty}, seed {seed}"]
    lines += [e.render() for e in events]
    made: list[str] = []
    bot = None
    for i in range(MAX_CHOICES):
        if state.over:
            break
        key = choices[i] if bot is None and i < len(choices) else None
        if key is not None and key not in state.choice.keys():
            if not update:
                raise Diverged(f"stored choice {i + 1} '{key}' is not offered any more (offered: "
                               f"{', '.join(state.choice.keys())})")
            key = None
        if key is None:
            if not update:
                raise Diverged(f"the game goes on after the {len(choices)} stored choices")
            bot = bot or random_policy(seed)
            key = bot(state, state.choice)
        made.append(key)
        lines.append(f"> {state.choice.kind}: {key}")
        state, events = apply(state, key)
        lines += [e.render() for e in events]
    assert state.over, f"the golden game did not end within {MAX_CHOICES} choices"
    if len(made) < len(choices) and not update:
        raise Diverged(f"the game ends after {len(made)} of the {len(choices)} stored choices")
    lines.append(f"= {state.result} wins in round {state.round}: {state.end_reason}")
    return "\n".join(lines) + "\n", made


def _golden(request, snapshot, name: str, **setup) -> None:
    path = GOLDENS / f"{name}.json"
    update = bool(request.config.getoption("--snapshot-update", default=False))
    stored = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    if stored is None and not update:
        pytest.fail(f"no stored choices for this golden ({path.name}): run pytest tests/test_golden.py --snapshot-update")
    if stored is not None:
        assert stored["game"] == setup and stored["seed"] == SEED, f"{path.name} is for another game"
    try:
        log, made = playthrough(RS, stored["choices"] if stored else [], update=update, **setup)
    except Diverged as err:
        pytest.fail(f"{path.name}: {err}. If the change is intended: pytest tests/test_golden.py --snapshot-update")
    if update and (stored is None or stored["choices"] != made):
        GOLDENS.mkdir(exist_ok=True)
        body = ",\n".join(f"    {json.dumps(k)}" for k in made)
        path.write_text(f'{{\n  "game": {json.dumps(setup)},\n  "seed": {SEED},\n  "choices": [\n{body}\n  ]\n}}\n',
                        encoding="utf-8")
    assert log == snapshot


def test_golden_default_game(request, snapshot):
    d = defaults(RS)
    _golden(request, snapshot, "default", killer=d["killer"], scenario=d["scenario"], final_girl=d["final_girl"])


@pytest.mark.parametrize(("killer", "scenario"), PAIRS)
def test_golden_film(request, snapshot, killer, scenario):
    _golden(request, snapshot, f"{killer}-in-{scenario}", killer=killer, scenario=scenario)


def test_golden_log_is_reproducible():
    choices = json.loads((GOLDENS / "default.json").read_text(encoding="utf-8"))["choices"]
    d = defaults(RS)
    setup = {"killer": d["killer"], "scenario": d["scenario"], "final_girl": d["final_girl"]}
    assert playthrough(RS, choices, **setup) == playthrough(load_ruleset(), choices, **setup)


def test_a_golden_whose_choices_no_longer_fit_says_so():
    d = defaults(RS)
    with pytest.raises(Diverged, match="stored choice 1 'no-such-key' is not offered"):
        playthrough(RS, ["no-such-key"], killer=d["killer"], scenario=d["scenario"])
    with pytest.raises(Diverged, match="goes on after the 0 stored choices"):
        playthrough(RS, [], killer=d["killer"], scenario=d["scenario"])
