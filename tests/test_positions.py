"""Positions: forced dice in the state, position files checked like content, states built from them.

Rules cited: C2.1 (a fear check rolls the dice of the fear zone; forced dice are those dice).
"""

from __future__ import annotations

import json

import pytest
from conftest import make_work, settle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lastbreath.dsl import SaveError
from lastbreath.interpreter import engine, serialize


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
    monkeypatch.setattr(engine.driver, "GREENLET", None)
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


# --- the public API -------------------------------------------------------------------------------
def test_c3_8_a_position_through_the_public_api_with_fixed_dice_and_a_card_played():
    """C3.8, C2.3: built with the public API only: the wolf in her location, fixed dice, Weak
    Attack played; its great success deals 2 damage."""
    from lastbreath.dsl import load_ruleset
    from lastbreath.interpreter.api import apply, position

    rs = load_ruleset()
    text = """
    position {
      killer big-bad-wolf; scenario storybook-woods; final_girl nell-arden
      fg at millpond; killer at millpond; killer health 7
      fear 1; hand weak-attack focus; dice 6 5 2
    }"""
    state = position(rs, text, path="wolf.position")
    assert state.choice.kind == "action" and state.dice == (6, 5, 2)
    state, events = apply(state, "play:weak-attack")
    assert [e.render() for e in events][:3] == [
        "plays Weak Attack [C2.1]", "fear check for Weak Attack: rolls [6, 5, 2] [C2.1]",
        "2 successes: great success [C2.3]"]
    assert state.killer.health == 5 and state.dice == ()
    assert "the killer takes 2 damage (health 5) [C3.8]" in [e.render() for e in events]


def test_unset_facts_are_those_of_a_fresh_game_of_that_setup(rs):
    from lastbreath.interpreter.api import new_game
    from lastbreath.interpreter.position import start_position

    fresh, _ = new_game(rs, killer="ratchet-lady", scenario="wolfe-asylum", seed=4)
    state, events = start_position(rs, "position { killer ratchet-lady; scenario wolfe-asylum; seed 4; fear 5 }")
    ours, theirs = dict(state.checkpoint.__dict__), dict(fresh.checkpoint.__dict__)
    assert ours.pop("fear") == 5 and theirs.pop("fear") != 5
    assert ours == theirs  # the same settled state, but for the line given
    assert state.choice == fresh.choice and events == []


def test_every_line_sets_its_fact(rs):
    from lastbreath.interpreter.position import start_position

    text = """position {
      killer big-bad-wolf; scenario storybook-woods; final_girl ruth-okafor; seed 3; setup misty-dawn
      fg at willow-ford; health 5; fear 6; time 2; last_breath white
      hand walk focus guard; spent sprint; hands hearth-poker; backpack okafor-medic-bag; uses okafor-medic-bag 1
      rescued 2; flipped
      killer at wishing-well; killer health 3; killer last_breath black 2
      victims at millpond 2; victims at spindle-tower 1; dead 4; dead this round 1
      bloodlust 5; finale at-your-door revealed; dark_power matted-pelt revealed; mode slaughter
      secondary burr-knotted-coat health 1
      terror top ravenous torn-hem; events left 3; events active
      pile wishing-well top hay-pitchfork; deck
      round 4; dice 2 3
      phase planning
    }""".replace("; deck\n", "\n")
    state, _ = start_position(rs, text)
    st = state.checkpoint
    b = st.game.board
    assert (st.fg_loc, st.fg_health, st.fear, st.time, st.fg_breath) == (b.index["willow-ford"], 5, 6, 2, 1)
    assert st.hand == ("focus", "guard", "walk") and st.spent == ("sprint",)
    assert [(h.id, h.uses) for h in st.held] == [("hearth-poker", 0)]
    assert [(h.id, h.uses) for h in st.pack] == [("okafor-medic-bag", 1)]
    assert st.rescued == 2 and not any(st.slots) and st.flipped  # C5.6: a flipped card is cleared
    k = st.killers[0]
    assert (k.loc, k.health, k.breath, k.breath_value) == (b.index["wishing-well"], 3, 2, 2)
    assert st.victims[b.index["millpond"]] == 2 and sum(st.victims) == 3
    assert (st.dead, st.deaths_round, st.bloodlust) == (4, 1, 4)
    assert st.lust_fired == frozenset({2, 4})  # the levels passed with an effect (raise fear; reveal)
    assert (st.finale, st.finale_revealed, st.dark_power, st.dark_revealed) == ("at-your-door", True, "matted-pelt", True)
    assert (st.mode, st.mode_active, st.secondary, st.secondary_health) == ("slaughter", "slaughter", "burr-knotted-coat", 1)
    assert st.terror[:2] == ("ravenous", "torn-hem") and len(st.terror) == 8 and "burr-knotted-coat" not in st.terror
    assert len(st.events) == 3 and st.events_active == ()
    pile = st.piles[b.pile_of[b.index["wishing-well"]]]
    assert pile[0] == ("hay-pitchfork", True) and all(not up for _c, up in pile[1:])
    assert all("hay-pitchfork" not in [c for c, _ in p] for p in st.piles if p is not pile)
    assert (st.round, st.dice, st.setup_card, st.phase) == (4, (2, 3), "misty-dawn", "planning")
    assert state.choice.kind == "buy"
    # the cards of the game are all still there: hand, spent and market make the deck
    from collections import Counter
    assert Counter(st.hand) + Counter(st.spent) + Counter(st.market) == \
        Counter(c for c, card in st.game.cards.items() for _ in range(card.copies))


def test_phase_start_runs_the_phase_start_and_the_decision_does_not(rs):
    """C1.1: 'phase action start' begins the Action phase (Ruth's flipped side heals at its start);
    'phase action' stops at the decision, after the start."""
    from lastbreath.interpreter.position import start_position

    base = "position { final_girl ruth-okafor; flipped; health 3; %s }"
    started, events = start_position(rs, base % "phase action start")
    assert started.fg_health == 4 and "round 1: Action phase [C1.1]" in [e.render() for e in events]
    at_decision, events = start_position(rs, base % "phase action")
    assert at_decision.fg_health == 3 and events == []
    killer, events = start_position(rs, "position { phase killer }")
    assert events[0].render() == "Killer phase [C1.1]" and killer.phase == "action" and killer.round == 2


def test_a_session_from_a_position_undoes_saves_and_loads(rs):
    from lastbreath.interpreter.session import Session

    text = "position { fear 1; hand walk focus; dice 6 6 1 }"
    game = Session.from_position(rs, text, "p.position")
    game.apply("play:walk")
    assert game.choice.kind == "move"
    data = json.loads(json.dumps(game.save()))
    assert data["position"] == {"text": text, "path": "p.position"}
    again = Session.load(rs, data)
    assert again.log == game.log and again.state.choice == game.state.choice and again.position == game.position
    game.undo()
    assert game.state.dice == (6, 6, 1) and game.choice.kind == "action"
    data["position"]["text"] = text.replace("fear 1", "fear 2")
    with pytest.raises(SaveError):
        Session.load(rs, data)
    data["position"] = {"text": 3}
    with pytest.raises(SaveError, match="position"):
        Session.load(rs, data)


def test_serve_starts_a_game_from_a_position(rs):
    from lastbreath.interpreter.serve import BAD_POSITION, Server

    server = Server(rs)

    def call(params):
        return json.loads(server.handle_line(json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "game.position", "params": params})))

    ok = call({"text": "position { fear 1; hand walk focus; dice 6 1 1 }"})["result"]
    assert ok["choice"]["kind"] == "action" and ok["setup"]["killer"]
    bad = call({"text": "position { fera 1 }", "path": "x.position"})["error"]
    assert bad["code"] == BAD_POSITION
    assert bad["data"]["diagnostics"][0] == {"path": "x.position", "line": 1, "col": 12, "code": "E401",
                                             "severity": "error", "message": "unknown line 'fera' in a position",
                                             "hint": "did you mean 'fear'?"}


# --- what apply raises ----------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["", "play:nothing", "END", "end ", None, 5, ["end"], ("end",), b"end"])
def test_apply_raises_only_illegal_choice_for_a_bad_key(rs, key):
    from lastbreath.dsl import IllegalChoice
    from lastbreath.interpreter.position import position

    for state in (position(rs, "position { hand walk focus }"), engine.apply(
            position(rs, "position { hand walk focus; fear 1; dice 6 6 1 }"), "play:walk")[0]):
        with pytest.raises(IllegalChoice):
            engine.apply(state, key)


def test_apply_to_a_finished_game_is_an_illegal_choice(rs):
    from lastbreath.dsl import IllegalChoice
    from lastbreath.interpreter.position import position

    won, _ = engine.apply(position(rs, "position { killer big-bad-wolf; fg at millpond; killer at millpond; "
                                       "killer health 0; killer last_breath black 0; fear 1; hand weak-attack focus; "
                                       "dice 6 1 1 1 }"), "play:weak-attack")
    assert won.result == "fg"
    with pytest.raises(IllegalChoice, match="over"):
        engine.apply(won, "end")


# --- checked like content -------------------------------------------------------------------------
def _codes(rs, body: str) -> list[tuple[str, str, int, int]]:
    from lastbreath.interpreter.position import parse_position

    pos, diags = parse_position(rs, "position {\n" + body + "\n}\n", "t.position")
    assert (pos is None) == bool(diags)
    return [(d.code, d.message + (f" ({d.hint})" if d.hint else ""), d.span.line, d.span.col) for d in diags]


@pytest.mark.parametrize("body, code, text", [
    ("helth 2", "E401", "unknown line 'helth' in a position (did you mean 'health'?)"),
    ("fg sits", "E401", "unknown line 'fg sits'"),
    ("killer big-bad-wolfe", "E402", "unknown killer 'big-bad-wolfe' (did you mean 'big-bad-wolf'?)"),
    ("scenario storybook-woods\nfg at milpond", "E402", "unknown location 'milpond' (did you mean 'millpond'?)"),
    ("hand walk sprnt", "E402", "unknown card in this game 'sprnt' (did you mean 'sprint'?)"),
    ("killer big-bad-wolf\nterror top they-keep-coming", "E402", "unknown terror card of this game"),
    ("flags raft-fond", "E402", "unknown flag (content never names it) 'raft-fond' (did you mean 'raft-found'?)"),
    ("final_girl nell-arden\nhealth 7", "E403", "her health (C3.5: at most her starting health) 7 is out of range (it is 0 to 6)"),
    ("fear 10", "E403", "fear 10 is out of range (it is 0 to 9)"),
    ("difficulty extreme\nfear 8", "E403", "fear 8 is out of range (it is 0 to 7)"),
    ("time -2", "E403", "time -2 is out of range (it is -1 to 10)"),
    ("dice 0", "E403", "a die's face 0 is out of range (it is 1 to 6)"),
    ("dice " + " ".join(["6"] * 101), "E403", "101 forced dice are out of range (it is 0 to 100)"),
    ("hand " + " ".join(["walk", "walk", "focus", "focus", "search", "search", "sprint", "sprint", "guard", "guard",
                         "improvise"]), "E403", "a hand of 11 cards is out of range (it is 0 to 10 (C7.3))"),
    ("killer ratchet-lady\nminions maniac at spindle-tower 7", "E403", "the number of maniacs (its limit) 7"),
    ("bloodlust 10", "E403", "the bloodlust level 10 is out of range (it is 1 to 8)"),
    ("round 0", "E403", "the round 0 is out of range"),
    ("victims millpond 2", "E404", "'at' is needed here, not millpond"),
    ("fear four", "E404", "a number is needed here, not four"),
    ("fear", "E404", "the line ends too soon"),
    ("fear 3 4", "E404", "unexpected 4 at the end of the line"),
    ("fear 3 { lose 1 time }", "E404", "a block cannot stand in this line"),
    ("fear 3\nfear 4", "E405", "her fear is given twice (the first is at line 2; keep one)"),
    ("hand walk walk walk", "E406", "3 copies of walk are named, but this game has 2"),
    ("hands woodcutters-axe hearth-poker", "E406", "her hands hold more than two hands' worth of weapons"),
    ("hands okafor-medic-bag", "E406", "okafor-medic-bag is not a weapon"),
    ("killer zombies\nkiller at millpond", "E406", "The Zombies has no killer board"),
    ("killer ratchet-lady\nminions maniac at millpond 4\nminions maniac at spindle-tower 3", "E406",
     "7 maniacs are on the board, more than their 6 tokens"),
    ("scenario wolfe-asylum\ncollected pill pink pink pink", "E406", "no pink pill token is left"),
    ("pile millpond left 0", "E406", "millpond is not a search location: it has no pile"),
    ("opened hollow-gate -- millpond", "E406", "no closed path joins hollow-gate and millpond"),
    ("victims none\nvictims at millpond 1", "E406", "'victims none' and a victims line together"),
    ("uses arden-billhook 1", "E406", "arden-billhook has no uses to count"),
    ("final_girl nell-arden\nrescued 4", "E406", "4 rescues would have flipped her card at 4 (C5.6)"),
    # issue #34: the lines a rule checker needs, and the states play cannot reach
    ("finale at-your-door revealed\ndark_power matted-pelt", "E406",
     "a face-up finale with a face-down dark power: revealing the finale turns the dark power up too (C11.1)"),
    ("killer intruders\nkiller grey aside\nphase killer", "E406", "a killer set aside at the start of the killer phase"),
    ("killer intruders\nkiller red aside\nkiller grey aside\nkiller black aside", "E406",
     "every killer still in the game is set aside"),
    ("killer intruders\nkiller grey aside\nkiller grey health 2", "E406", "grey is set aside with health 2"),
    ("killer intruders\nkiller red defeated\nactive red", "E406", "red is defeated: the marker skips killers not in play"),
    ("killer intruders\nkiller blue at porch", "E402", "unknown body of The Intruders 'blue'"),
    ("killer intruders\nactive \"Horde 1\"", "E402", "no killer 'Horde 1' is on the board of this position"),
    ("final_girl nell-arden\nslots 1 2 3 4", "E406", "4 filled slots would have flipped her card at 4 (C5.6)"),
    ("slots 1 2\nrescued 3", "E406", "2 slots are filled but 3 victims rescued"),
    ("slots 5", "E403", "a slot of her card 5 is out of range"),
    ("scenario wolfe-asylum\ntokens pill red on killer", "E402", "unknown kind of pill 'red'"),
    ("scenario wolfe-asylum\nvictims none\ntokens pill pink on victim at kitchens", "E406",
     "no victim of no kind is at kitchens to hold it"),
    ("uses arden-billhook 0", "E406", "arden-billhook has no uses to count"),
    ("scenario wingard-cottage\nbackpack med-kit\nuses med-kit 0", "E403", "the uses left of med-kit 0 is out of range"),
    ("victim supply 31", "E403", "the victims left in the supply 31 is out of range (it is 0 to 30)"),
])
def test_position_mistakes_are_diagnostics_with_codes(rs, body, code, text):
    got = _codes(rs, body)
    assert any(c == code and text in m for c, m, _l, _c in got), got


def test_diagnostics_point_at_the_word_and_come_in_text_order(rs):
    got = _codes(rs, "fg at milpond; helth 2; fear 40\nhand walk walk walk")
    assert [(c, line, col) for c, _m, line, col in got] == [("E402", 2, 7), ("E401", 2, 16), ("E403", 2, 30)]


def test_not_one_position_block(rs):
    from lastbreath.interpreter.position import parse_position

    for text, message in [("", "no 'position { … }' block"), ("fear 3", "'fear 3' line outside the position block"),
                          ("position { }\nposition { }", "a second line outside the position block"),
                          ("position { fear 3", "missing '}'")]:
        pos, diags = parse_position(rs, text, "t.position")
        assert pos is None and message in diags[0].message, (text, diags)


def test_a_bad_position_raises_content_error_from_the_api(rs):
    from lastbreath.dsl import ContentError
    from lastbreath.interpreter.api import position

    with pytest.raises(ContentError) as err:
        position(rs, "position { fear 40 }", path="t.position")
    assert err.value.code == "E303" and [d.code for d in err.value.diagnostics] == ["E403"]
    assert str(err.value).startswith("t.position:1:17: error[E403]: fear 40 is out of range")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(st.sampled_from(
    ["fear", "health", "time", "hand", "walk", "killer", "at", "millpond", "victims", "none", "dice", "6", "-3",
     "99999999999999999999", "phase", "action", "start", "pile", "top", "left", "0", "minions", "maniac", "body",
     '"Horde 1"', "opened", "--", "terror", "events", "active", "deck", "kept", "tokens", "collected", "flags",
     "secondary", "last_breath", "black", "white", "uses", "(", ")", "{", "}", ";", "\n", "fg", "seed", "forced",
     "log", "zombies", "ratchet-lady", "wolfe-asylum", "scenario", "mode", "slaughter", "bloodlust"]),
    max_size=14))
def test_no_position_text_raises_or_hangs(rs, body):
    """Bad input never crashes: any text gives a state or diagnostics (or, once built, a rules error)."""
    from lastbreath.dsl import ContentError, RulesError
    from lastbreath.interpreter.position import parse_position, run_position

    pos, _diags = parse_position(rs, "position {\n" + " ".join(body) + "\n}", "f.position")
    if pos is not None:
        try:
            run_position(pos)
        except ContentError as err:  # E407: the engine stopped on facts no game reaches
            assert err.diagnostics[0].code == "E407"
        except RulesError:
            pass


def test_K1_6_killer_off_board_sets_a_vanished_killer(rs):
    """'killer off board': the killer alive and away from the map (K1.6), as a vanished creature
    stands; given with 'killer at' it is the same fact twice (E405)."""
    from lastbreath.dsl import ContentError
    from lastbreath.interpreter.position import position

    state = position(rs, "position { killer big-bad-wolf; fg at millpond; killer off board }")
    assert state.killers[0].loc == -1 and state.killers[0].alive
    with pytest.raises(ContentError) as ei:
        position(rs, "position { killer big-bad-wolf; fg at millpond; killer off board; killer at millpond }")
    assert [d.code for d in ei.value.diagnostics] == ["E405"]
