"""One way in for a saved state (issue 42; docs/decisions/0022, interpreter/validate.py).

A saved state comes in by several doors: ``serialize.from_json`` (a snapshot), and a save file's
snapshot checked against its replayed choices (``replay``, behind ``Session.load``, ``lastbreath
replay``, ``play --load`` and the protocol's ``game.load``). Each refused what the other took: a
snapshot with ``0.0`` for false and ``3.0`` for 3 loaded by the second (Python's ``==`` says they
are equal), and neither checked the game's invariants, so a state and its checkpoint edited alike
(the checkpoint then resumes to the state) loaded. Both now go through ``from_json``, which checks
the invariants ``lastbreath fuzz`` checks after every transition, where one state shows them.
"""

from __future__ import annotations

import json

import pytest
from lastbreath.dsl import SaveError, load_ruleset
from lastbreath.interpreter import api, bots, replay, serialize, validate
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.serve import Server
from lastbreath.interpreter.session import Session


@pytest.fixture(scope="module")
def rs():
    return load_ruleset()


@pytest.fixture(scope="module")
def played(rs):
    """A session 30 choices into a game (the wolf in the woods, seed 3), paused at a choice."""
    s = Session(rs, seed=3)
    bot = bots.random_policy(3)
    for _ in range(30):
        s.apply(bot(s.state, s.state.choice))
    assert not s.state.over
    return s


def _json(data):
    return json.loads(json.dumps(data))


def _loosened(value, flags: list):
    """The JSON with every false written 0.0 and every integer 3 written 3.0 (``flags`` counts them)."""
    if isinstance(value, dict):
        return {k: _loosened(v, flags) for k, v in value.items()}
    if isinstance(value, list):
        return [_loosened(v, flags) for v in value]
    if value is False or (type(value) is int and value == 3):
        flags.append(value)
        return 0.0 if value is False else 3.0
    return value


def test_a_snapshot_with_0_0_for_false_and_3_0_for_3_is_refused_by_every_door(rs, played, tmp_path, capsys):
    """Issue 42: refused by from_json, taken by Session.load, game.load and lastbreath replay.
    Now each door refuses it, with a SaveError (an exit 1, a 1003) naming the fields."""
    data = _json(played.save())
    changed: list = []
    data["snapshot"] = _loosened(data["snapshot"], changed)
    assert any(v is False for v in changed) and 3 in changed
    with pytest.raises(SaveError):
        serialize.from_json(rs, data["snapshot"])
    with pytest.raises(SaveError, match="does not reach the saved snapshot"):
        Session.load(rs, data)
    reply = Server(rs).handle({"jsonrpc": "2.0", "id": 1, "method": "game.load", "params": {"save": data}})
    assert reply["error"]["code"] == 1003 and "snapshot" in reply["error"]["message"]
    f = tmp_path / "loose.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    assert main(["replay", str(f)]) == 1
    assert "does not reach the saved snapshot" in capsys.readouterr().err
    from lastbreath.interpreter.screen import load_session  # play --load's door
    with pytest.raises(SaveError, match="does not reach the saved snapshot"):
        load_session(rs, str(f))


def test_the_save_as_written_still_loads_by_every_door(rs, played):
    data = _json(played.save())
    assert serialize.to_json(Session.load(rs, data).state) == data["snapshot"]
    assert serialize.to_json(serialize.from_json(rs, data["snapshot"])) == data["snapshot"]


def _forged(snapshot: dict, **change) -> dict:
    """The snapshot with the same edit in the state and its checkpoint (so it resumes to itself)."""
    data = _json(snapshot)
    for part in (data["state"], data["state"]["checkpoint"]):
        if part is None:
            continue
        for key, edit in change.items():
            part[key] = edit(part[key])
    return data


def test_victims_added_alike_in_a_state_and_its_checkpoint_are_refused(rs, played):
    """Issue 42: nine victims added at the Final Girl's location, in the state and its checkpoint:
    the checkpoint resumes to the state, every number is in range, and it loaded. The victims on
    the board, held, dead and rescued now add up to more than came into play."""
    snap = serialize.to_json(played.state)
    here = played.state.fg_loc
    forged = _forged(snap, victims=lambda v: [k + 9 if i == here else k for i, k in enumerate(v)])
    with pytest.raises(SaveError, match=r"invariant of the game \(victims\).*more than the \d+ that came into play"):
        serialize.from_json(rs, forged)


def test_any_in_range_edit_to_a_finished_game_that_breaks_an_invariant_is_refused(rs):
    """A finished game has no checkpoint to resume from: its invariants are what is left to check."""
    state = api.play(api.new_game(rs, seed=5)[0], api.random_policy(5))
    snap = _json(serialize.to_json(state))
    serialize.from_json(rs, snap)  # as written: loads
    every_card = sorted(snap["state"]["hand"] + snap["state"].get("spent", []) + snap["state"].get("market", []))
    for edit, check in (({"dead": snap["state"]["dead"] + 3}, "victims"),  # three more dead than ever lived
                        ({"hand": every_card, "spent": [], "market": []}, "hand")):  # every card in her hand
        edited = _json(snap)
        edited["state"].update(edit)
        with pytest.raises(SaveError, match=rf"invariant of the game \({check}\)"):
            serialize.from_json(rs, edited)


def test_a_snapshot_with_a_key_to_json_never_writes_is_refused(rs, played):
    snap = _json(serialize.to_json(played.state))
    with pytest.raises(SaveError, match="unknown fields: comment"):
        serialize.from_json(rs, {**snap, "comment": "hand-edited"})


def test_a_killer_healed_past_its_maximum_alike_in_state_and_checkpoint_is_refused(rs, played):
    snap = serialize.to_json(played.state)
    forged = _forged(snap, killers=lambda ks: [{**k, "health": k["health"] + 10} for k in ks])
    with pytest.raises(SaveError, match="killer's health"):
        serialize.from_json(rs, forged)


def test_load_and_the_fuzzer_check_the_same_invariants(rs, played):
    """One function says what a state must keep (validate.breach): the fuzzer's single-state checks
    and a load's are the same, so what the fuzzer holds after every transition, a load holds."""
    from lastbreath.interpreter import fuzz
    from lastbreath.interpreter.engine import replace

    state = played.state
    assert validate.breach(state) is None and validate.breach(state.checkpoint) is None
    bad = replace(state, hand=state.hand + ("walk",) * 9)
    assert validate.breach(bad)[0] == "hand"
    tracker = fuzz.Tracker(validate.accounted_victims(bad))
    with pytest.raises(fuzz.Violation) as v:
        fuzz.check_state(bad, [], tracker)
    assert v.value.check == "hand"


def test_a_save_file_whose_snapshot_predates_victims_in_loads_but_a_bare_one_does_not(rs, played):
    """Saves written before the count of victims in play: a save file's choices are replayed (the
    replay is the game, and gives the count); a bare snapshot without it is not taken on trust."""
    data = _json(played.save())
    for part in (data["snapshot"]["state"], data["snapshot"]["state"]["checkpoint"]):
        del part["victims_in"]
    assert Session.load(rs, data).state.round == played.state.round
    with pytest.raises(SaveError, match="no victims_in"):
        serialize.from_json(rs, data["snapshot"])


def test_a_game_from_a_position_counts_the_victims_it_places(rs):
    """A position puts its own victims in play: its state, saved, loads by both doors."""
    text = "position {\n  victims at willow-ford 3\n  victims at heron-reeds 2\n}\n"
    s = Session.from_position(rs, text)
    assert s.state.victims_in == validate.accounted_victims(s.state) >= 5
    assert serialize.from_json(rs, _json(serialize.to_json(s.state))).victims_in == s.state.victims_in
    assert Session.load(rs, _json(s.save())).state.victims_in == s.state.victims_in


def test_replay_save_file_round_trip_keeps_every_door_the_same(rs, played, tmp_path):
    f = tmp_path / "game.json"
    replay.write(str(f), played.save())
    assert main(["replay", str(f)]) == 0
