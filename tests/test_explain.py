"""'Why did that happen?': --explain, targeting tables (C9.2, C9.3) and Session.explain."""

from __future__ import annotations

import json

import pytest

from lastbreath.interpreter import cli, explain
from lastbreath.interpreter.api import random_policy
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.session import Session
from lastbreath.interpreter.state import Event


def _target(rule: str, text: str, *rows) -> Event:
    return Event("target", text, rule, "/x/killers/k.fg:3:5", tuple(rows))


def test_table_nearest_decides():
    t = explain.targeting(_target("C9.2", "target b: …", ("a", 2, 3), ("b", 1, 0)))
    assert t["decided_by"] == "nearest" and t["target"] == "b"
    assert [r["outcome"] for r in t["candidates"]] == ["farther", "target"]


def test_table_victim_count_decides():
    t = explain.targeting(_target("C9.3", "target b: …", ("a", 1, 1), ("b", 1, 2), ("c", 2, 5)))
    assert t["decided_by"] == "victim-count" and t["target"] == "b"
    assert [r["outcome"] for r in t["candidates"]] == ["fewer victims", "target", "farther"]


def test_table_tie_policy_decides():
    class G:
        tie_policy = "easier"
    t = explain.targeting(_target("C9.3", "target c: a, c tie …", ("a", 1, 2), ("b", 1, 0), ("c", 1, 2)), G())
    assert t["decided_by"] == "tie-policy" and t["tie_policy"] == "easier" and t["target"] == "c"
    assert [r["outcome"] for r in t["candidates"]] == ["lost the tie-break", "fewer victims", "target"]
    lines = explain.table_lines(t)
    assert "decided by tie policy (easier)" in lines[0] and lines[-1].lstrip().startswith("> c")


def test_other_events_have_no_table():
    assert explain.targeting(Event("move", "moves", "C5.1")) is None


def test_short_source_of_bundled_content():
    from lastbreath.dsl import bundled_paths
    wolf = next(p for p in bundled_paths() if p.name == "killers") / "big-bad-wolf.fg"
    assert explain.short_source(f"{wolf}:29:12") == "killers/big-bad-wolf.fg:29"
    assert explain.short_source("") == ""


def test_every_target_event_of_many_games_explains_consistently(rs):
    seen = set()
    for seed in range(40):
        s = Session(rs, seed=seed)
        bot = random_policy(seed)
        while not s.over:
            s.apply(bot(s.state, s.choice))
        for e in s.log:
            t = explain.targeting(e, s.state.game)
            if t is None:
                continue
            seen.add(t["decided_by"])
            assert (t["decided_by"] == "nearest") == (e.rule == "C9.2")
            assert t["target"] is not None, e.text
            chosen = [r for r in t["candidates"] if r["outcome"] == "target"]
            assert len(chosen) == 1 and e.text.startswith(f"target {chosen[0]['name']}:")
    assert "nearest" in seen and len(seen) >= 2


def test_play_explain_prints_rule_source_and_tables(rs, monkeypatch, capsys):
    monkeypatch.setattr(cli, "load_rules", lambda extra=(): rs)
    assert main(["play", "--bot", "random", "--seed", "3", "--explain"]) == 0
    out = capsys.readouterr().out.splitlines()
    whys = [i for i, line in enumerate(out) if line.startswith("      why: ")]
    assert any("· killers/big-bad-wolf.fg:" in out[i] for i in whys)
    assert any(out[i] == "      why: rule C1.1 · core rules" for i in whys)
    tables = [i for i, line in enumerate(out) if line.startswith("      targeting [C9.")]
    assert tables
    for i in tables:
        assert out[i + 1].split() == ["location", "distance", "victims"]
        assert sum(line.startswith("        > ") for line in out[i + 2:i + 40]
                   if line.startswith("        ")) >= 1
    # the plain log is the explained one without the added lines
    assert main(["play", "--bot", "random", "--seed", "3"]) == 0
    plain = capsys.readouterr().out.splitlines()
    assert [line for line in out if not line.startswith(("      why:", "      targeting", "          ", "        "))] \
        == plain
    events = [line for line in plain[2:-1] if not line.startswith("  > ")]  # not seed, title, choices, result
    assert len(whys) == len(events)  # one 'why' under every event


def test_play_explain_json_has_sources_and_targeting(rs, monkeypatch, capsys):
    monkeypatch.setattr(cli, "load_rules", lambda extra=(): rs)
    assert main(["play", "--bot", "random", "--seed", "3", "--explain", "--json"]) == 0
    log = json.loads(capsys.readouterr().out)["log"]
    targets = [e for e in log if e["kind"] == "target"]
    assert targets and all(t["targeting"]["candidates"] and t["source"] for t in targets)
    assert all({"rule", "source", "where", "data"} <= set(e) for e in log if e["kind"] != "choice")


def test_session_explain(rs):
    s = Session(rs, seed=3)
    bot = random_policy(3)
    assert s.explain()["target"] is None
    while not s.over and s.explain()["target"] is None:
        s.apply(bot(s.state, s.choice))
    x = s.explain()
    assert x["choices"] == len(s.choices) and x["target"]["transition"] == len(s.choices)
    assert x["target"]["decided_by"] in ("nearest", "victim-count", "tie-policy")
    assert x["events"] and all({"kind", "text", "rule", "source", "where", "data"} <= set(e) for e in x["events"])
    assert any("targeting" in e for e in x["events"])
    json.dumps(x)  # JSON-ready
    if not s.over:
        s.apply(s.choice.options[0].key)
        y = s.explain()
        assert y["target"] is not None  # the last target event of the game, even from an earlier choice


@pytest.mark.parametrize("policy", ["harder", "easier", "realistic"])
def test_tie_policies_are_named_in_their_tables(rs, policy):
    for seed in range(30):
        s = Session(rs, seed=seed, tie_policy=policy)
        bot = random_policy(seed)
        while not s.over:
            s.apply(bot(s.state, s.choice))
        tables = [explain.targeting(e, s.state.game) for e in s.log if e.kind == "target"]
        ties = [t for t in tables if t and t["decided_by"] == "tie-policy"]
        if ties:
            assert all(t["tie_policy"] == policy and t["rule"] == "C9.3" for t in ties)
            return
    pytest.skip(f"no tie-break in 30 games with the {policy} policy")


def test_interactive_play_explain(rs, monkeypatch, capsys):
    import io
    import sys
    monkeypatch.setattr(cli, "load_rules", lambda extra=(): rs)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\nq\n"))
    assert main(["play", "--seed", "3", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "      why: rule C1.1 · core rules" in out and "unfinished" in out
