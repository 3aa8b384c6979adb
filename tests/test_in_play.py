"""The sources of abilities in play, kept by the working copy (engine/statics.abilities).

A working copy keeps the sources it found, and what it looked up among them (the rules answering
a question, the triggers of a happening), until one of the fields that decide them is written
(continuation.SOURCE_FIELDS). Games played with that memory and without it are the same, event
for event (K1.6, C11.1: cards revealed, dark powers and items coming into play mid-step)."""

from __future__ import annotations

import pytest
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.engine import continuation, statics

SETUPS = [("big-bad-wolf", "storybook-woods"), ("zombies", "wolfe-asylum"), ("ratchet-lady", "wolfe-asylum"),
          ("intruders", "wingard-cottage"), ("ratchet-lady", "storybook-woods")]


def _played(rs, killer, scenario, seed):
    policy = BOTS["random"](seed)
    st, events = new_game(rs, killer=killer, scenario=scenario, seed=seed)
    seen = [list(events)]
    while not st.result and len(seen) < 600:
        st, events = engine.apply(engine.replace(st), policy(st, st.choice))  # a copy: every step replays
        seen.append(list(events))
    return seen, st.result, st.end_reason


@pytest.mark.parametrize("killer,scenario", SETUPS)
def test_games_are_the_same_without_the_kept_sources(rs, killer, scenario, monkeypatch):
    kept = [_played(rs, killer, scenario, seed) for seed in range(4)]
    # a working copy that never keeps them: every lookup finds the sources again
    monkeypatch.setattr(continuation.Work, "sources", property(lambda w: None, lambda w, v: None))
    fresh = [_played(rs, killer, scenario, seed) for seed in range(4)]
    assert kept == fresh
    assert all(result for _ev, result, _why in kept)


def test_writing_a_field_that_decides_the_sources_forgets_them(rs):
    state, _ = new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=3)
    for field in continuation.SOURCE_FIELDS:
        w = engine.work(state)
        found = statics.abilities(w)
        assert w.sources is found and statics.abilities(w) is found
        statics.rules_in_play(w, next(iter(w.game.rule_queries), "dice"))
        setattr(w, field, getattr(w, field))  # the same value, written: the sources are found again
        assert w.sources is None
        assert statics.abilities(w) == found and w.found == {}


def test_the_sources_follow_a_revealed_dark_power(rs):
    """C11.1: the dark power revealed with the finale brings its abilities into play at once."""
    state, _ = new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=5)
    w = engine.work(state)
    before = statics.abilities(w)
    assert w.dark_power and not w.dark_revealed
    w.dark_revealed = True
    after = statics.abilities(w)
    dark = w.game.dark_powers[w.dark_power].abilities
    assert (dark in after) == bool(dark) and (dark not in before or not dark)
    assert after == statics._abilities(w)
