"""Observable choices (issue #15): a setting stops choices with one option being answered unseen.

``forced="auto"`` (the default) answers a one-option choice at once, as always; "log" answers it
and says so in the log; "ask" asks it like any other choice. The default logs do not change
(the golden playthroughs hold them).
"""

from __future__ import annotations

import json

import pytest
from lastbreath.dsl import RulesError
from lastbreath.interpreter import engine, replay, serialize
from lastbreath.interpreter.api import first_policy, new_game, random_policy
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.serve import Server
from lastbreath.interpreter.session import Session


def _play(rs, forced: str, seed: int = 3, limit: int = 60):
    state, events = new_game(rs, seed=seed, forced=forced)
    log = list(events)
    keys: list[str] = []
    bot = random_policy(seed)
    while not state.over and len(keys) < limit:
        key = bot(state, state.choice)
        keys.append(key)
        state, events = engine.apply(state, key)
        log += events
    return state, log, keys


def test_log_mode_plays_the_same_game_and_says_each_forced_choice(rs):
    plain, plain_log, plain_keys = _play(rs, "auto")
    logged, log, keys = _play(rs, "log")
    assert keys == plain_keys  # the same choices are asked: the game is the same game
    forced = [e for e in log if e.kind == "forced"]
    assert forced and all(e.text.endswith("(forced: the only option)") for e in forced)
    assert [e for e in log if e.kind != "forced"] == plain_log
    assert serialize.to_json(logged)["state"]["fear"] == serialize.to_json(plain)["state"]["fear"]


def test_log_mode_replays_a_step_with_the_same_log(rs, monkeypatch):
    """A step replayed from its checkpoint (no greenlet) rebuilds its menus, so it says the same."""
    resumed = _play(rs, "log", limit=25)[1]
    monkeypatch.setattr(engine.driver, "GREENLET", None)
    assert _play(rs, "log", limit=25)[1] == resumed


def test_ask_mode_asks_a_choice_with_one_option(rs):
    state, _ = new_game(rs, seed=3, forced="ask")
    asked_one = 0
    for _ in range(80):
        if state.over:
            break
        if len(state.choice.options) == 1:
            asked_one += 1
        state, _ = engine.apply(state, first_policy(state, state.choice))
    assert asked_one > 0
    auto, _ = new_game(rs, seed=3)
    for _ in range(80):  # the default never stops at one
        if auto.over:
            break
        assert len(auto.choice.options) > 1
        auto, _ = engine.apply(auto, first_policy(auto, auto.choice))


@pytest.mark.parametrize("forced", ["log", "ask"])
def test_the_setting_is_saved_and_a_save_replays_with_it(rs, forced):
    game = Session(rs, seed=5, forced=forced)
    for _ in range(12):
        game.apply(game.choice.options[-1].key)
    data = json.loads(json.dumps(game.save()))
    assert data["game"]["forced"] == forced
    again = Session.load(rs, data)
    assert again.log == game.log and again.state.game.forced == forced
    assert serialize.from_json(rs, serialize.to_json(game.state)).game.forced == forced
    assert "forced" not in Session(rs, seed=5).save()["game"]  # the default is not written: old saves are equal


def test_a_bad_setting_is_a_rules_error_everywhere(rs, capsys):
    with pytest.raises(RulesError, match="forced-choice setting 'sometimes'"):
        new_game(rs, forced="sometimes")
    with pytest.raises(RulesError, match="seed must be an integer"):
        new_game(rs, seed="7")
    for bad in ({"killer": ["x"]}, {"difficulty": {}}, {"scenario": 3}, {"tie_policy": []}, {"final_girl": b"x"}):
        with pytest.raises(RulesError):  # new_game raises nothing but RulesError for a bad option
            new_game(rs, **bad)
    reply = json.loads(Server(rs).handle_line(json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "game.new", "params": {"forced": "never"}})))
    assert reply["error"]["data"] == {"param": "forced"}
    data = Session(rs, seed=1).save()
    data["game"]["forced"] = 3
    with pytest.raises(Exception, match=r"game\.forced is not a str"):
        replay.load(rs, data)
    assert main(["play", "--bot", "first", "--seed", "1", "--forced", "often"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_serve_and_cli_take_the_setting(rs, capsys):
    reply = json.loads(Server(rs).handle_line(json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "game.new", "params": {"seed": 3, "forced": "log"}})))
    assert reply["result"]["setup"]["forced"] == "log"
    assert main(["play", "--bot", "first", "--seed", "3", "--forced", "log"]) == 0
    out = capsys.readouterr().out
    assert "accept the roll (forced: the only option)" in out
    assert main(["play", "--bot", "first", "--seed", "3"]) == 0
    assert "forced" not in capsys.readouterr().out
