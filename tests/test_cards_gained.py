"""Cards set aside and gained (issue #33 item 5; V3: a vehicle's action card taken into the hand):
an action card may start aside, out of the market and the hand; 'gain card CARD' gives her a copy,
'remove card CARD' takes one out of the game for good."""

from __future__ import annotations

import pytest
from conftest import fx, load_with, make_work
from lastbreath.dsl import SaveError
from lastbreath.interpreter import engine, serialize, validate
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.screen import status_facts

ASIDE = """
card ga-wheel {
  name "Take the Wheel"
  cost 2
  copies 2
  start aside
  fail { lose 1 time }
  success { move up to 2 }
  great { move up to 3 }
}
"""


def test_V3_a_card_set_aside_is_in_play_only_once_gained(tmp_path):
    rs = load_with(tmp_path, ASIDE)
    state, _ = new_game(rs, seed=1)
    assert "ga-wheel" not in (*state.hand, *state.market, *state.spent)
    w = make_work(state)
    engine.run(w, fx("gain card ga-wheel\ngain card ga-wheel\ngain card ga-wheel"), Ctx())
    assert w.hand.count("ga-wheel") == 2  # two copies: the third gain finds none aside
    assert any("no copy of Take the Wheel is left aside" in e.text for e in w.ctl.events)
    engine.run(w, fx("remove card ga-wheel"), Ctx())
    assert w.hand.count("ga-wheel") == 1 and w.cards_gone == ("ga-wheel",)
    engine.run(w, fx("gain card ga-wheel"), Ctx())  # a copy removed never comes back
    assert w.hand.count("ga-wheel") == 1
    s = w.freeze()
    validate.check_values(s)  # a removed copy is counted with the others (two copies in all)
    assert serialize.to_json(s)["state"]["cards_gone"] == ["ga-wheel"]
    assert ("Cards out of the game", "Take the Wheel") in status_facts(s)  # the screen says what left
    with pytest.raises(SaveError, match="cards_gone"):
        validate.check_values(engine.replace(s, cards_gone=("ga-wheel", "ga-wheel")))


def test_a_gained_card_is_played_like_any(tmp_path):
    rs = load_with(tmp_path, ASIDE)
    state, _ = new_game(rs, seed=1)
    w = make_work(state)
    engine.run(w, fx("gain card ga-wheel"), Ctx())
    st = w.freeze()
    assert "ga-wheel" in st.hand
