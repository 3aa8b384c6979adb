"""``lastbreath coverage`` and ``lastbreath fuzz``: the coverage hook and report, the checked
playouts and the shrinking of a violation to a short choice list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import coverage, engine, fuzz
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.cli import main

from conftest import patch_engine

PAIR = {"killers": ["big-bad-wolf"], "scenarios": ["storybook-woods"]}

PACK = """\
card lucky-break {
  name "Lucky Break"
  cost 0
  copies 2
  start hand
  fail { lose 1 time }
  success { lose 1 time }
  great {
    lose 1 time
    if fear at least 99 {
      raise fear 1
    } else {
      lower fear 1
    }
  }
}

item lucky-charm {
  name "Lucky Charm"
  instead of victim dies { raise fear 1 }
}
"""


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lucky-pack")
    (folder / "lucky.fg").write_text(PACK, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def packed(pack):
    return load_ruleset([*bundled_paths(), pack])


def _line(text: str) -> int:
    return next(i for i, line in enumerate(PACK.splitlines(), 1) if line.strip() == text)


# --- coverage -------------------------------------------------------------------------------------
def test_coverage_reports_the_branch_never_taken_and_not_the_taken_one(packed, pack):
    data = coverage.run_coverage(packed, games=40, **PAIR)
    (mine,) = [f for f in data["files"] if Path(f["file"]).resolve() == (pack / "lucky.fg").resolve()]
    unreached = {(u["kind"], u["line"]) for u in mine["unreached"]}
    never = _line("raise fear 1")
    assert ("branch", never) in unreached, mine["unreached"]
    (branch,) = [u for u in mine["unreached"] if u["line"] == never]
    assert "then block of 'if fear at least 99'" in branch["label"] and branch["where"] == "card lucky-break"
    assert branch["inside"] == 1  # the effect inside it is folded into it, not listed again
    # the great outcome was picked and its else block taken: neither is listed
    for text in ("lower fear 1", "great {", "if fear at least 99 {", "} else {"):
        assert all(line != _line(text) for _, line in unreached), (text, mine["unreached"])
    assert mine["by_kind"]["outcome"] == {"reached": 3, "total": 3}
    # no scenario deals the charm: its replacement is never reached (its line folded into it)
    assert ("replacement", _line("instead of victim dies { raise fear 1 }")) in unreached
    assert mine["by_kind"]["replacement"] == {"reached": 0, "total": 1}
    assert mine["total"] - mine["reached"] == 4  # the then block and its line, the replacement and its line
    text = "\n".join(coverage.format_report(data))
    assert f"lucky.fg:{never}:" in text and "then block of 'if fear at least 99'" in text


def test_the_coverage_hook_is_off_outside_a_recording(packed):
    assert engine.recorded() is None
    with coverage.recording() as got:
        assert engine.recorded() is got
        state, _ = new_game(packed, killer="big-bad-wolf", scenario="storybook-woods", seed=3)
    assert engine.recorded() is None
    assert got, "the setup fires game-start content and draws the first event"


def test_coverable_items_see_every_kind_in_the_bundled_content():
    rs = load_ruleset()
    items = coverage.coverable(rs, sorted(rs.killers), sorted(rs.scenarios), sorted(rs.final_girls))
    kinds = {it.kind for it in items}
    assert kinds == set(coverage.KINDS)  # the organism's 'instead of exposed dies' is a replacement
    spans = [(it.kind, it.span) for it in items]
    assert len(spans) == len(set(spans)), "an item is counted twice"
    # a killer's filter keeps the other killer's file out
    only = coverage.coverable(rs, ["big-bad-wolf"], sorted(rs.scenarios), sorted(rs.final_girls))
    assert not any("ratchet-lady" in it.span.path for it in only)


def test_coverage_cli_json(pack, capsys):
    code = main(["coverage", "--games", "8", "--killer", "big-bad-wolf", "--scenario", "storybook-woods",
                 "--content", str(pack), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["games"] == 8 and out["killers"] == ["big-bad-wolf"] and 0 < out["reached"] <= out["total"]


def test_coverage_cli_unknown_killer(capsys):
    assert main(["coverage", "--killer", "no-such-killer"]) == 2
    assert "unknown killer" in capsys.readouterr().err


# --- fuzz -------------------------------------------------------------------------------------------
RS = load_ruleset()


def test_fuzz_of_20_games_is_clean():
    data = fuzz.run_fuzz(RS, games=20, seed=0, bot="both")
    assert data["clean"], fuzz.format_report(data)
    assert data["bots"] == {"random": 15, "greedy": 5}  # (turns by round of the 15 pairs)
    assert len(data["pairs"]) == len(RS.killers) * len(RS.scenarios)
    assert data["transitions"] > 20
    assert data["results"]["fg"] + data["results"]["killer"] == 20


def test_an_injected_violation_is_found_and_shrunk(monkeypatch):
    real = engine.lose_time

    def broken(w, k):  # from round 3 on, losing time also breaks the health bounds
        real(w, k)
        if w.round >= 3:
            w.fg_health = -1

    patch_engine(monkeypatch, "lose_time", broken)
    data = fuzz.run_fuzz(RS, games=4, seed=0, bot="random")
    assert not data["clean"]
    (v,) = data["violations"]
    assert v["check"] == "bounds" and "health -1" in v["message"]
    assert v["reproduced"]
    assert len(v["choices"]) <= v["choices_played"] and len(v["choices"]) <= 20
    # the list replays with plain apply: every key legal, the last one breaks the bounds
    state, _ = new_game(RS, **v["setup"], seed=v["seed"])
    for i, key in enumerate(v["choices"]):
        assert state.fg_health >= 0, f"broken before choice {i}"
        assert key in state.choice.keys()
        state, _ = engine.apply(state, key)
    assert state.fg_health == -1
    text = "\n".join(fuzz.format_report(data))
    assert "VIOLATION bounds" in text and json.dumps(v["choices"]) in text and f"seed {v['seed']}" in text


def test_shrink_deletes_choices_that_do_not_matter(monkeypatch):
    real = engine.lose_time

    def broken(w, k):
        real(w, k)
        if w.round >= 2:
            w.fg_health = -1

    patch_engine(monkeypatch, "lose_time", broken)
    setup = {"killer": "big-bad-wolf", "scenario": "storybook-woods", "seed": 5}
    game = fuzz.play_checked(RS, setup, "random")
    assert game.check == "bounds"
    padded = list(game.choices)
    cur, viol, _ = fuzz.shrink(RS, setup, padded, "bounds")
    assert viol is not None and viol.check == "bounds"
    assert len(cur) <= len(padded)
    assert fuzz.reproduce(RS, setup, cur, "bounds")[0] == cur


def test_the_checks_catch_a_bad_state():
    state, _ = new_game(RS, seed=1)
    tracker = fuzz.Tracker.start(state)
    fuzz.check_state(state, [], tracker)
    with pytest.raises(fuzz.Violation) as err:
        fuzz.check_state(engine.replace(state, fear=99), [], tracker)
    assert err.value.check == "bounds"
    with pytest.raises(fuzz.Violation) as err:
        fuzz.check_state(engine.replace(state, hand=state.hand * 3), [], tracker)
    assert err.value.check == "hand"
    victims = list(state.victims)
    victims[victims.index(max(victims))] -= 1
    with pytest.raises(fuzz.Violation) as err:
        fuzz.check_state(engine.replace(state, victims=tuple(victims)), [], fuzz.Tracker.start(state))
    assert err.value.check == "victims"
    fuzz.check_save(RS, state)


def test_fuzz_cli(tmp_path, capsys, monkeypatch):
    assert main(["fuzz", "--games", "4", "--jobs", "1", "--no-progress"]) == 0
    assert "clean" in capsys.readouterr().out
    real = engine.heal

    def broken(w, k):
        real(w, k)
        w.fg_health = 99

    patch_engine(monkeypatch, "heal", broken)
    repro = tmp_path / "repro.json"
    assert main(["fuzz", "--games", "8", "--jobs", "1", "--no-progress", "--bot", "random",
                 "--save-repro", str(repro)]) == 1
    out = capsys.readouterr().out
    assert "VIOLATION bounds" in out and "shortest choice list" in out
    saved = json.loads(repro.read_text())
    assert saved["choices"] and saved["seed"] >= 0


def test_coverage_looks_inside_for_each_blocks(packed):
    """Issue #13 (9): the effects inside a 'for each' (the zombies' setup spawns) are coverable items."""
    items = coverage.coverable(packed, ["zombies"], ["storybook-woods"], ["nell-arden"])
    loop_blocks = [i for i in items if i.kind == "branch" and i.label.startswith("for each")]
    assert loop_blocks, "no 'for each' block is listed"
    inside = [i for i in items if i.kind == "effect" and i.parent in {items.index(b) for b in loop_blocks}]
    assert inside and all("spawn" in i.label for i in inside)
