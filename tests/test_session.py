"""Session: history, undo, save/load through the session; the CLI's 'u' (undo)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from lastbreath.dsl import IllegalChoice, SaveError
from lastbreath.interpreter import cli, serialize
from lastbreath.interpreter.api import random_policy
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.session import Session


def _play(s: Session, n: int, seed: int = 0) -> None:
    bot = random_policy(seed)
    for _ in range(n):
        if s.over:
            return
        s.apply(bot(s.state, s.choice))


def test_apply_and_undo_walk_the_history(rs):
    s = Session(rs, seed=4)
    first = s.state
    assert s.choice is first.choice and s.history == [(first, None)] and s.events
    _play(s, 5, seed=4)
    assert len(s.history) == 6 and len(s.choices) == 5
    third = s.history[3][0]
    assert s.undo(2) is third and len(s.choices) == 3
    assert s.undo() is s.history[2][0]
    assert s.undo(2) is first and s.choices == [] and s.state is first


def test_undo_refuses_more_than_was_played_and_changes_nothing(rs):
    s = Session(rs, seed=4)
    with pytest.raises(ValueError, match="0 choices made"):
        s.undo()
    _play(s, 2)
    with pytest.raises(ValueError, match="cannot undo 3 choices: 2 choices made"):
        s.undo(3)
    with pytest.raises(ValueError):
        s.undo(0)
    assert len(s.choices) == 2


def test_an_illegal_option_leaves_the_session_as_it_was(rs):
    s = Session(rs, seed=4)
    before = list(s.history)
    with pytest.raises(IllegalChoice):
        s.apply("no-such-option")
    assert s.history == before


def test_events_follow_undo_and_the_log_is_the_concatenation(rs):
    s = Session(rs, seed=2)
    setup_events = s.events
    key = s.choice.options[0].key
    evs = s.apply(key)
    assert s.events == evs and s.log == setup_events + evs
    s.undo()
    assert s.events == setup_events and s.log == setup_events


def test_save_and_load_keep_history_so_undo_works_after_a_load(rs):
    s = Session(rs, seed=12, difficulty="extreme", tie_policy="easier")
    _play(s, 8, seed=12)
    data = json.loads(json.dumps(s.save()))
    t = Session.load(rs, data)
    assert t.options == s.options and t.seed == 12 and t.choices == s.choices
    assert serialize.to_json(t.state) == serialize.to_json(s.state)
    assert [e.text for e in t.log] == [e.text for e in s.log]
    t.undo(3)
    s.undo(3)
    assert serialize.to_json(t.state) == serialize.to_json(s.state)
    data["choices"][0] = "bogus"
    with pytest.raises(SaveError, match="choice 0 \\('bogus'\\)"):
        Session.load(rs, data)


def test_a_whole_game_with_undo_ends_like_the_same_game_without(rs):
    bot = random_policy(21)
    s = Session(rs, seed=21)
    t = Session(rs, seed=21)
    while not s.over:
        key = bot(s.state, s.choice)
        s.apply(key)
        if len(s.choices) % 4 == 0 and not s.over:  # a detour, taken back
            s.apply(s.choice.options[-1].key)
            s.undo()
        t.apply(key)
    assert s.choices == t.choices and s.state.result == t.state.result


def test_cli_interactive_undo(rs, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "load_rules", lambda extra=(): rs)
    f = tmp_path / "u.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("u\n1\n1\nu\nq\n"))
    assert main(["play", "--seed", "5", "--save", str(f)]) == 0
    out = capsys.readouterr().out
    assert "'u' to undo" in out and ", u, q] > " in out
    assert "nothing to undo: no choice made yet" in out
    assert "undone: back to round 1" in out
    assert len(json.loads(f.read_text(encoding="utf-8"))["choices"]) == 1
