"""Rulings that run (issue #15): every file of docs/rulings passes, a broken rule makes one fail
with a readable first differing fact, and the rulings format is checked like content.

Each ruling cites the rule ids it checks (C1.1 … C18.2, K4–K6, S4–S5); the test ids are the
files' names, which say what they check.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import patch_engine
from lastbreath.interpreter import rules_reference as rr
from lastbreath.interpreter import rulings

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "rulings"
FILES = sorted(FOLDER.glob("*.ruling"))


def _report(outcome: rulings.Outcome) -> str:
    r = outcome.ruling
    where = outcome.step.span if outcome.step is not None else r.span
    log = "\n".join("    " + (e.text if e.kind == "choice" else e.render()) for e in outcome.log)
    return (f"{r.path}:{where.line}:{where.col}: {r.id}: "
            f"{outcome.step.text if outcome.step else 'the position'}: {outcome.message}\n{log}")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_ruling_file_passes(rs, path):
    """Every ruling of the file holds: its position, its choices, its expected facts."""
    outcomes, diags, sources = rulings.verify(rs, [path])
    assert diags == [], "\n".join(d.format(sources.get(d.span.path)) for d in diags)
    assert outcomes, f"{path.name} holds no ruling"
    failed = [o for o in outcomes if not o.ok]
    assert not failed, "\n\n".join(_report(o) for o in failed)


def test_forty_rulings_at_least_across_the_core_rules_and_the_bundled_films(rs):
    all_rulings = [r for f in FILES for r in rulings.parse_rulings(rs, f.read_text(encoding="utf-8"), str(f))[0]]
    assert len(all_rulings) >= 40
    ids = [r.id for r in all_rulings]
    assert len(ids) == len(set(ids)), "two rulings share an id"
    cited = {rid for r in all_rulings for rid in r.rules}
    families = {re.match(r"[CSKV]\d*", rid).group(0) for rid in cited}
    core = {f"C{n}" for n in range(1, 19) if n != 12}  # there is no C12
    assert core <= families, sorted(core - families)
    assert {"K4", "K5", "K6", "S4", "S5"} <= families  # the wolf, the Ratchet Lady, the Zombies; both scenarios
    ref = rr.load_reference()
    assert all(ref.find(rid) is not None for rid in cited)
    killers = {r.position.settled.game.killer.id for r in all_rulings}
    scenarios = {r.position.settled.game.scenario.id for r in all_rulings}
    assert killers == set(rs.killers) and scenarios == set(rs.scenarios)  # every bundled film is played


def test_a_broken_rule_fails_a_ruling_with_its_first_differing_fact(rs, monkeypatch):
    """C9.7 broken (a death no longer raises bloodlust): the rulings that see a death fail, each at
    the first fact that differs, with the game's log."""
    patch_engine(monkeypatch, "raise_bloodlust", lambda w, k, cause="": None)
    outcomes, diags, _ = rulings.verify(rs, FILES)
    assert diags == []
    failed = {o.ruling.id: o for o in outcomes if not o.ok}
    assert failed, "no ruling noticed the broken rule"
    o = failed["the-killer-goes-to-the-nearest-target"]
    assert o.step is not None and o.step.text.startswith("expect log")
    assert o.message == ('no event says "bloodlust rises to 2 [C17.2]" after the event saying '
                         '"a victim dies at Wishing Well (killed by the killer) [C9.7]"')
    assert any("a victim dies at Wishing Well" in e.text for e in o.log)  # the log comes with it
    assert failed["a-bloodlust-level-effect-fires-as-the-marker-arrives"].ok is False
    assert len(failed) < len(outcomes)  # the rest still pass: the failure points at the rule


# --- the format -----------------------------------------------------------------------------------
GOOD = """\
ruling walk-once {
  says "One success moves her one location."
  rules "C5.1"
  position { scenario storybook-woods; fg at hollow-gate; victims none; fear 1; hand walk focus; dice 6 1 1 }
  play walk
  expect choice move
  answer move sugar-roof-cottage
  expect fg at sugar-roof-cottage
}
"""


def _diags(rs, text: str) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.message, d.span.line, d.span.col) for d in rulings.parse_rulings(rs, text, "t.ruling")[1]]


def test_a_ruling_reads_and_runs(rs):
    got, diags = rulings.parse_rulings(rs, GOOD, "t.ruling")
    assert diags == [] and [r.id for r in got] == ["walk-once"]
    r = got[0]
    assert r.rules == ("C5.1",) and r.says.startswith("One success")
    assert [s.key for s in r.steps if s.key] == ["play:walk", "move:sugar-roof-cottage"]
    out = rulings.run(r)
    assert out.ok and out.state.fg_loc == out.state.game.board.index["sugar-roof-cottage"]
    assert out.to_json()["ok"] is True and out.to_json()["log"][0] == {"kind": "choice", "text": "> play Walk",
                                                                        "rule": ""}


@pytest.mark.parametrize("change, code, message", [
    ('rules "C5.1"', "E400", "has no 'rules' line"),
    ('position {', "E400", "has no 'position' line"),
    ('rules "C5.1"', "E402", "unknown rule id 'C5.9'"),
    ("expect fg at", "E401", "unknown fact 'fgg'"),
    ("play walk", "E401", "unknown line 'plya'"),
    ("play walk", "E402", "unknown card in this game 'walkk'"),
    ("expect fg at sugar-roof-cottage", "E402", "unknown location 'sugar-roof'"),
    ('says "One', "E404", "a string in double quotes is needed here"),
])
def test_ruling_mistakes_are_diagnostics_with_codes(rs, change, code, message):
    text = {
        ("rules", "E400"): GOOD.replace('  rules "C5.1"\n', ""),
        ("position", "E400"): re.sub(r"  position \{.*\}\n", "", GOOD),
        ("rules", "E402"): GOOD.replace('"C5.1"', '"C5.9"'),
        ("expect", "E401"): GOOD.replace("expect fg at", "expect fgg at"),
        ("play", "E401"): GOOD.replace("play walk", "plya walk"),
        ("play", "E402"): GOOD.replace("play walk", "play walkk"),
        ("expect", "E402"): GOOD.replace("expect fg at sugar-roof-cottage", "expect fg at sugar-roof"),
        ("says", "E404"): GOOD.replace('says "One success moves her one location."', "says one"),
    }[(change.split()[0], code)]
    got = _diags(rs, text)
    assert any(c == code and message in m for c, m, _line, _col in got), got


def test_unknown_ids_and_facts_say_what_was_meant(rs):
    got = rulings.parse_rulings(rs, GOOD.replace("expect fg at", "expect fg att").replace('"C5.1"', '"C5.11"'),
                                "t.ruling")[1]
    assert [(d.code, d.span.line) for d in got] == [("E402", 3), ("E402", 8)]
    assert got[0].message == "unknown rule id 'C5.11'" and got[0].hint == "did you mean C5.7?"
    assert got[1].message == "unknown word 'att'" and got[1].hint == "did you mean 'at'?"


def test_a_bad_file_never_raises(rs):
    for text in ["", "ruling", "ruling x", "ruling x { }", "position { }", "ruling x { rules C5.1 }",
                 'ruling x { rules "C5.1"; position { } ; expect }', 'ruling x { rules "C5.1"; position { } ; '
                 'answer }', "ruling x { position { } position { } }", "{", "ruling x { rules \"C5.1\" } ruling x {}"]:
        got, diags = rulings.parse_rulings(rs, text, "t.ruling")
        assert got == [] and diags, text
        assert all(re.fullmatch(r"E[14]\d\d", d.code) for d in diags), (text, diags)


def test_an_answer_that_is_not_an_option_fails_and_lists_the_options(rs):
    r = rulings.parse_rulings(rs, GOOD.replace("answer move sugar-roof-cottage", "answer move millpond"),
                              "t.ruling")[0][0]
    out = rulings.run(r)
    assert not out.ok and out.step.text == "answer move millpond"
    assert out.message.startswith("'move:millpond' is not an option of the choice 'Move where?' (options: stop, ")


def test_expect_not_and_the_log_in_order(rs):
    text = GOOD.replace("  expect fg at sugar-roof-cottage\n",
                        '  expect not fg at hollow-gate\n  expect log "plays Walk" "moves to Sugar-Roof"\n'
                        '  expect not log "moves to Sugar-Roof" "plays Walk"\n')
    assert rulings.run(rulings.parse_rulings(rs, text, "t.ruling")[0][0]).ok
    wrong = GOOD.replace("  expect fg at sugar-roof-cottage\n", '  expect not fg at sugar-roof-cottage\n')
    out = rulings.run(rulings.parse_rulings(rs, wrong, "t.ruling")[0][0])
    assert not out.ok and out.message == "it holds: she is at sugar-roof-cottage"


def test_answering_after_the_end_of_the_game_fails(rs):
    text = """\
ruling over {
  rules "C13.1"
  position {
    killer big-bad-wolf; scenario storybook-woods
    fg at millpond; killer at millpond; killer health 0; killer last_breath black 0
    fear 1; hand weak-attack focus; dice 6 1 1 1
  }
  play weak-attack
  expect result fg
  expect choice none
  answer end
}
"""
    out = rulings.run(rulings.parse_rulings(rs, text, "t.ruling")[0][0])
    assert not out.ok and out.step.text == "answer end"
    assert out.message == "the game is over: there is no choice to answer"


def test_find_files_takes_files_and_folders(tmp_path):
    (tmp_path / "a.ruling").write_text(GOOD, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.ruling").write_text(GOOD, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    files, missing = rulings.find_files([str(tmp_path), str(tmp_path / "a.ruling"), str(tmp_path / "nope")])
    assert [f.name for f in files] == ["a.ruling", "b.ruling"] and missing == [str(tmp_path / "nope")]


def test_the_rules_reference_lists_the_rulings_that_cite_a_rule(capsys):
    """`lastbreath rule C5.3` names the rulings that check it, with their file and line."""
    from lastbreath.interpreter.cli import main

    got = rr.rulings_citing(FOLDER, ["C5.3"])
    assert {"ruling": "two-victims-follow-at-most", "path": "rulings/moving-and-followers.ruling",
            "ids": ["C5.3"], "line": got[[g["ruling"] for g in got].index("two-victims-follow-at-most")]["line"]} in got
    text = (FOLDER / "moving-and-followers.ruling").read_text(encoding="utf-8").splitlines()
    assert all(text[g["line"] - 1].startswith(f"ruling {g['ruling']} ")
               for g in got if g["path"].endswith("moving-and-followers.ruling"))
    assert rr.rulings_citing(FOLDER, ["C9.41"]) == []
    assert main(["rule", "C5.3"]) == 0
    out = capsys.readouterr().out
    assert "'lastbreath verify' runs them):" in out and "rulings/moving-and-followers.ruling:" in out


# --- the rule checker's reach (issue #34) ------------------------------------------------------------
PACKS = Path(__file__).resolve().parent / "packs"


@pytest.mark.parametrize("pack", ["tracks", "pieces"])
def test_a_packs_rulings_pass_with_its_content(pack):
    """Lines and facts the bundled content cannot show (a track's space, tokens on pieces) have
    their rulings in the test packs (docs/positions.md names them)."""
    from lastbreath.dsl import bundled_paths, load_ruleset

    rs = load_ruleset([*bundled_paths(), PACKS / pack])
    outcomes, diags, sources = rulings.verify(rs, sorted((PACKS / pack / "rulings").glob("*.ruling")))
    assert diags == [], "\n".join(d.format(sources.get(d.span.path)) for d in diags)
    assert outcomes and all(o.ok for o in outcomes), "\n\n".join(_report(o) for o in outcomes if not o.ok)


STOPPED = """\
ruling stops {
  rules "C8.1"
  position {
    killer big-bad-wolf; scenario storybook-woods
    fg at hollow-gate; killer at millpond; victims none
    finale at-your-door; terror top snapping-jaws
    phase killer
  }
  stop after killer-action
  expect killer at heron-reeds
  expect choice none
  stop after terror-card
  expect killer at sugar-roof-cottage
  expect options none
  play walk
}
"""


def test_a_ruling_stops_between_the_steps_of_the_killer_phase_and_answers_after(rs):
    """Issue #34: 'stop after NAME' stops the game between two steps (no choice pending); an answer
    after a stop runs on to the next decision first (here the Action menu of round 2)."""
    (r,), diags = rulings.parse_rulings(rs, STOPPED.replace("  play walk\n", ""), "t.ruling")
    assert diags == []
    out = rulings.run(r)
    assert out.ok, _report(out)
    assert [e.text for e in out.log if e.kind == "stop"] == ["> stop after killer-action", "> stop after terror-card"]
    text = STOPPED.replace("  play walk\n", "  answer end\n  expect round 2\n  expect phase planning\n")
    (r,), diags = rulings.parse_rulings(rs, text.replace("hollow-gate; killer", "hollow-gate; hand walk; killer"), "t")
    assert diags == []
    out = rulings.run(r)
    assert out.ok, _report(out)


def test_a_stop_after_a_decision_is_a_failure_that_says_why(rs):
    text = STOPPED.replace("  stop after killer-action\n", "  stop after killer-action\n  expect phase killer\n")
    text = text.replace("phase killer\n  }", "phase action\n    hand walk\n  }").replace(
        "  stop after killer-action\n", "  play walk\n  stop after killer-action\n", 1)
    (r,), diags = rulings.parse_rulings(rs, text, "t.ruling")
    assert diags == []
    out = rulings.run(r)
    assert not out.ok and "not from a decision" in out.message


def test_a_stop_reached_only_past_a_decision_fails(rs):
    """The Action phase asks her first: 'stop after killer-action' cannot stop the game before it."""
    text = STOPPED.replace("phase killer\n  }", "hand walk\n  }")
    (r,), diags = rulings.parse_rulings(rs, text, "t.ruling")
    assert diags == []
    out = rulings.run(r)
    assert not out.ok and "came to a decision before killer-action" in out.message


@pytest.mark.parametrize("fact", ["killer at millpond", "not killer at heron-reeds", "phase action", "round 1",
                                  "choice action", "option end", "not option move", 'not log "terror card"',
                                  "victim supply 23", "market has sprint", "active", "hand has walk"])
def test_expect_in_python_says_what_the_ruling_says(rs, fact):
    """Issue #34: rulings.expect checks one 'expect' fact against a state reached by apply, with the
    same words and the same answer as a ruling file."""
    from lastbreath.interpreter import api

    state, events = api.new_game(rs, seed=7)
    if fact == "active":
        with pytest.raises(rulings.ContentError):
            rulings.expect(state, fact)
        return
    held, shown = rulings.expect(state, fact, events)
    text = GOOD.replace("  play walk\n  expect choice move\n  answer move sugar-roof-cottage\n  expect fg at sugar-roof-"
                        "cottage\n", f"  expect {fact}\n").replace(
        "position { scenario storybook-woods; fg at hollow-gate; victims none; fear 1; hand walk focus; dice 6 1 1 }",
        "position { seed 7 }")
    (r,), diags = rulings.parse_rulings(rs, text, "t.ruling")
    assert diags == []
    assert rulings.run(r).ok == held, shown


def test_positions_md_documents_every_line_fact_and_stop():
    """docs/positions.md has a row (or a bullet) for every position line, expect fact and stop."""
    from lastbreath.interpreter.position import LINES

    doc = (FOLDER.parent / "positions.md").read_text(encoding="utf-8")
    for head in (*LINES, *rulings.FACTS, *rulings.STOPS):
        assert f"`{head}" in doc or f" {head}`" in doc or f"`{head} " in doc, head
    for words in ("killer BODY aside", "active BODY", "tokens TOKEN KIND on item ITEM", "track TRACK N", "slots N…",
                  "victim supply N", 'options "KEY"…', "secondary health N", "event ID lasting", "market CARD N",
                  "minions status NAME", "stop after NAME", "rulings.expect("):
        assert words in doc, words
