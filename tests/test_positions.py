"""Positions: forced dice in the state, position files checked like content, states built from them.

Rules cited: C2.1 (a fear check rolls the dice of the fear zone; forced dice are those dice).
"""

from __future__ import annotations

import json

import pytest

from lastbreath.dsl import SaveError
from lastbreath.interpreter import engine, serialize

from conftest import make_work, settle


# --- forced dice: a field of the state, consumed before the generator ----------------------------
def test_c2_1_forced_dice_are_the_next_dice_rolled_and_leave_the_generator_alone(game):
    """C2.1: the dice of a fear check are the state's forced faces first, then the generator's."""
    w = make_work(settle(game, dice=(4, 1, 6)))
    before = w.rng
    assert [engine.roll_die(w) for _ in range(3)] == [4, 1, 6]
    assert w.rng == before and w.dice == ()
    engine.roll_die(w)
    assert w.rng == before + 1  # forced faces used up: the generator again


def test_c2_1_a_fear_check_with_forced_dice_replays_the_same_from_its_checkpoint(game, monkeypatch):
    """C2.1: forced dice live in the checkpoint, so a step replayed (no greenlet) rolls them again."""
    def play() -> tuple[list[str], tuple]:
        state, _ = engine.advance(settle(game, dice=(6, 3, 6, 6)), (), 0)
        state, events = engine.apply(state, "play:walk")
        assert state.choice.kind == "check" and state.checkpoint.dice == (6, 3, 6, 6)
        after, more = engine.apply(state, "accept")
        return [e.text for e in events + more], after.dice

    resumed = play()
    monkeypatch.setattr(engine.continuation, "GREENLET", None)
    assert play() == resumed
    assert "fear check for Walk: rolls [6, 3, 6]" in resumed[0] and resumed[1] == (6,)


def test_forced_dice_survive_a_snapshot_and_old_snapshots_without_them_still_load(rs, game):
    st, _ = engine.advance(settle(game, dice=(3, 5)), (), 0)
    data = json.loads(json.dumps(serialize.to_json(st)))
    assert data["state"]["checkpoint"]["dice"] == [3, 5]
    assert serialize.from_json(rs, data).checkpoint.dice == (3, 5)
    plain = serialize.to_json(game)
    assert "dice" not in plain["state"]  # unset: saved as before, so older saves compare equal
    assert serialize.from_json(rs, plain).dice == ()
    data["state"]["checkpoint"]["dice"] = [7]
    with pytest.raises(SaveError, match="forced dice"):
        serialize.from_json(rs, data)
