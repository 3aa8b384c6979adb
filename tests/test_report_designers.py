"""Issue #41: the report designers read, its numbers checked against the records; compare's tests;
the records read from the events' data; the greedy bot by default."""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from lastbreath.interpreter import api
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.compare import z_test
from lastbreath.interpreter.fuzz import victims_moved
from lastbreath.interpreter.simulate import (content_line, play_one, quartiles, run_games, run_matrix, summarize,
                                             wilson)
from lastbreath.interpreter.state import Event

ROOT = Path(__file__).resolve().parent.parent
FAN = ROOT / "examples" / "fan_killer"
SETUPS = [{"killer": "big-bad-wolf", "scenario": "storybook-woods", "final_girl": "nell-arden"},
          {"killer": "ratchet-lady", "scenario": "storybook-woods", "final_girl": "nell-arden"}]


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _section(md: str, title: str) -> str:
    return md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _rows(section: str) -> list[list[str]]:
    return [[c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in section.splitlines()
            if ln.startswith("|") and not ln.startswith("|---")][1:]


@pytest.fixture(scope="module")
def written(rs, tmp_path_factory):
    pytest.importorskip("matplotlib")
    from lastbreath.interpreter import report

    records = run_matrix(rs, SETUPS, 12, 3, "greedy", jobs=1, detail=True)
    out = tmp_path_factory.mktemp("report")
    report.write_report(out, rs, SETUPS, records, {"bot": "greedy", "games": 12, "seed": 3}, html=True)
    return records, out, (out / "report.md").read_text(encoding="utf-8")


def test_the_heatmap_table_is_the_records_win_rate_and_wilson_interval(written):
    records, _out, md = written
    rows = _rows(_section(md, "Win rate by killer and scenario"))
    assert [r[0] for r in rows] == ["The Big Bad Wolf", "The Ratchet Lady"]
    for row, recs in zip(rows, records):
        fin = [r for r in recs if not r.error]
        wins = sum(r.result == "fg" for r in fin)
        lo, hi = wilson(wins, len(fin))
        assert row[1] == f"{_pct(wins / len(fin))} ({_pct(lo)}–{_pct(hi)})"


def test_rounds_by_outcome_are_the_records_medians_and_quartiles(written):
    records, _out, md = written
    rows = _rows(_section(md, "Rounds until the end"))
    for row, recs in zip(rows, records):
        for side, at in (("fg", 2), ("killer", 5)):
            vals = sorted(r.rounds for r in recs if r.result == side)
            assert int(row[at]) == len(vals)
            if vals:
                q1, med, q3 = quartiles(vals)
                assert row[at + 1] == f"{med:g}" and row[at + 2] == f"{q1:g}–{q3:g}"
                # the quartiles by hand: linear interpolation between the sorted values
                pos = (len(vals) - 1) / 2
                assert med == (vals[math.floor(pos)] + vals[math.ceil(pos)]) / 2


def test_the_causes_are_the_end_events_content_lines(written, rs):
    """Each game's cause is its end event's source, which the game's own replay shows; the table
    counts them by outcome."""
    records, _out, md = written
    flat = [r for recs in records for r in recs]
    for r, setup in [(recs[0], s) for recs, s in zip(records, SETUPS)]:
        policy = BOTS["greedy"](r.seed)
        state, events = api.new_game(rs, seed=r.seed, **setup)
        end = None
        while not state.over:
            state, events = api.apply(state, policy(state, state.choice))
            end = next((e for e in events if e.kind == "end"), end)
        assert end is not None and end.source == r.cause and end.data == (r.result,)
        assert r.cause.endswith(".fg:" + r.cause.rsplit(":", 2)[1] + ":" + r.cause.rsplit(":", 1)[1])
    section = _section(md, "What ended the games")
    for side, title in (("killer", "Losses"), ("fg", "Wins")):
        counts = Counter(content_line(r.cause) for r in flat if r.result == side)
        part = section.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]
        shown = {row[0].strip("`"): int(row[2]) for row in _rows(part) if not row[0].startswith("…")}
        for line, count in shown.items():
            assert counts[line] == count
        total = sum(counts.values())
        for row in _rows(part):
            if not row[0].startswith("…"):
                assert row[3] == _pct(int(row[2]) / total)


def test_cards_and_items_are_counted_from_the_records(written):
    records, _out, md = written
    flat = [r for recs in records for r in recs if not r.error]
    part = _section(md, "Cards and items").split("### Cards bought\n", 1)[1].split("\n### ", 1)[0]
    rows = _rows(part)
    assert rows
    names = {"Walk": "walk", "Weak Attack": "weak-attack", "Improvise": "improvise", "Short Rest": "short-rest",
             "Sprint": "sprint", "Focus": "focus", "Furious Attack": "furious-attack"}
    for row in rows:
        cid = names.get(row[0])
        if cid is None:
            continue
        with_it = [r for r in flat if cid in r.bought]
        without = [r for r in flat if cid not in r.bought]
        assert int(row[1]) == sum(r.bought.count(cid) for r in flat)
        assert int(row[2]) == len(with_it)
        rate = (lambda rs_: "—" if not rs_ else _pct(sum(r.result == "fg" for r in rs_) / len(rs_)))
        assert row[3] == rate(with_it) and row[4] == rate(without)


def test_deaths_per_location_add_up_to_the_dead(written):
    records, _out, md = written
    flat = [r for recs in records for r in recs if not r.error]
    part = _section(md, "Where victims die")
    rows = _rows(part)
    assert sum(int(r[1]) for r in rows) == sum(r.dead for r in flat)
    counts = Counter(loc for r in flat for loc in r.deaths)
    assert {r[0]: int(r[1]) for r in rows} == dict(counts)


def test_the_json_has_the_same_numbers(written):
    records, out, _md = written
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert data["settings"]["bot"] == "greedy"
    for pair, recs in zip(data["pairs"], records):
        assert pair["wins"] == sum(r.result == "fg" for r in recs)
        assert pair["series"]["health"][0][1:4] == list(quartiles([r.health[0] for r in recs]))
        assert pair["series"]["bloodlust"][0][4] == len(recs)


def test_plots_and_the_self_contained_page(written):
    _records, out, md = written
    for stem in ("heatmap", "winrate", "rounds", "health", "fear", "time", "bloodlust", "cards"):
        assert (out / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        assert f"]({stem}.png)" in md
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 8
    assert not re.search(r'src="(?!data:)', page) and ".svg" not in page
    assert "<table>" in page and "<h2>Win rate by killer and scenario</h2>" in page


def test_the_markdown_report(rs, tmp_path, snapshot):
    pytest.importorskip("matplotlib")
    from lastbreath.interpreter import report

    setup = [SETUPS[0]]
    records = run_matrix(rs, setup, 4, 11, "greedy", jobs=1, detail=True)
    report.write_report(tmp_path, rs, setup, records, {"bot": "greedy", "games": 4, "seed": 11})
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == snapshot


# --- the records ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_a_detailed_record_is_the_plain_one_and_more(rs, bot):
    setup = SETUPS[1]
    for seed in (1, 2, 3):
        plain = play_one(rs, setup, seed, bot)
        full = play_one(rs, setup, seed, bot, detail=True)
        assert (full.result, full.rounds, full.dead, full.bloodlust) == \
               (plain.result, plain.rounds, plain.dead, plain.bloodlust)
        assert len(full.health) == len(full.fear) == len(full.time) == len(full.bloodlust) == full.rounds
        assert len(full.deaths) == full.dead
        assert full.played and full.cause
        assert not plain.detailed and full.detailed


def test_records_without_the_detail_keep_their_json_shape(rs):
    """Older readers: a plain run's summary has no detailed keys; a detailed one adds them."""
    recs = run_games(rs, SETUPS[0], 3, 0, "greedy")
    assert "causes" not in summarize(recs) and "rounds_by_result" not in summarize(recs)
    assert {"causes", "rounds_by_result", "series", "cards_bought", "deaths"} <= \
        set(summarize(run_games(rs, SETUPS[0], 3, 0, "greedy", detail=True)))


def test_victims_in_play_are_counted_from_the_events_data():
    """fuzz's accounting reads data, not text: a 'victims' event without a count (the supply ran
    dry) changes nothing, whatever its words."""
    assert victims_moved([Event("victims", "the victim supply has none left: none appear", "C5.7")]) == 0
    assert victims_moved([Event("victims", "whatever it says", "C1.2", "", (3,)),
                          Event("minion", "words", "C15.1", "", (-1,)),
                          Event("victim-leaves", "words", "K2.7", "", (-1,)),
                          Event("minion", "a minion is killed", "C15.2")]) == 1


def test_simulate_plays_the_greedy_bot_by_default_and_says_so(capsys):
    assert main(["simulate", "--games", "2", "--jobs", "1", "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["bot"] == "greedy"
    assert main(["simulate", "--games", "2", "--jobs", "1", "--no-progress"]) == 0
    assert "greedy bot" in capsys.readouterr().out


# --- compare ------------------------------------------------------------------------------------------
def test_the_z_test():
    z, p = z_test(10, 100, 20, 100)
    pooled = 30 / 200
    assert z == pytest.approx(0.1 / math.sqrt(pooled * (1 - pooled) * 0.02))
    assert p == pytest.approx(0.0477, abs=1e-3)  # two-sided: 2 × (1 − Φ(1.98))
    assert z_test(5, 10, 5, 10) == (0.0, 1.0)
    assert z_test(0, 10, 0, 10) == (0.0, 1.0) and z_test(1, 0, 1, 10) == (0.0, 1.0)
    assert z_test(20, 100, 10, 100)[0] == pytest.approx(-z)


@pytest.fixture
def easier(tmp_path):
    """The fan killer with 1 health instead of 6: made easier on purpose."""
    pack = tmp_path / "easier"
    shutil.copytree(FAN, pack)
    f = pack / "tallow-man.fg"
    text = f.read_text(encoding="utf-8")
    assert "\n  health 6\n" in text
    f.write_text(text.replace("\n  health 6\n", "\n  health 1\n", 1), encoding="utf-8")
    return pack


def test_compare_finds_a_pack_made_easier(easier, capsys):
    assert main(["compare", "--content", str(FAN), "--content", str(easier), "--scenario", "storybook-woods",
                 "--games", "30", "--seed", "0", "--jobs", "1", "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bot"] == "greedy" and len(data["pairs"]) == 1
    pair = data["pairs"][0]
    assert pair["killer"] == "tallow-man" and pair["scenario"] == "storybook-woods"
    assert pair["significant"] and pair["direction"] == "easier" and pair["change"] > 0.2
    assert pair["p_value"] < 0.01 and pair["z"] > 0
    a, b = pair["a"], pair["b"]
    assert pair["p_value"] == pytest.approx(z_test(a["wins"], a["finished"], b["wins"], b["finished"])[1], abs=1e-6)
    assert b["mean_rounds"] < a["mean_rounds"]
    # lines are matched across versions by file and words: the pack's lines under 'pack/'
    assert all(ln["change"] in ("more", "less", "added", "removed") for ln in data["lines"])
    assert all(ln["p_value"] < 0.05 for ln in data["lines"] if ln["change"] in ("more", "less"))


def test_the_same_pack_twice_changes_nothing(capsys):
    assert main(["compare", "--content", str(FAN), "--content", str(FAN / "tallow-man.fg"), "--scenario",
                 "storybook-woods", "--games", "8", "--jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "no significant change" in out and "no content line's reach changed significantly" in out


@pytest.mark.parametrize("argv, said", [
    (["--content", str(FAN)], "give two versions of a pack"),
    (["--content", str(FAN), "--content", "/nonexistent/pack"], "does not exist"),
    (["--content", str(FAN), "--rev", "HEAD"], "--rev takes two revisions"),
    (["--content", str(FAN), "--rev", "no-such-rev-xyz", "--rev", "HEAD"], "at revision 'no-such-rev-xyz'"),
    (["--content", str(FAN), "--content", str(FAN), "--killer", "nobody"], "unknown killer (of both versions)"),
])
def test_compare_refuses_bad_input_clearly(argv, said, capsys):
    assert main(["compare", *argv, "--games", "2", "--jobs", "1"]) != 0
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_compare_two_revisions(capsys):
    """--rev: the pack at two git revisions (here the same one: nothing changes)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git work tree")
    assert main(["compare", "--content", str(FAN), "--rev", "HEAD", "--rev", "HEAD", "--scenario",
                 "storybook-woods", "--games", "4", "--jobs", "1", "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"][0]["change"] == 0 and data["lines"] == []
    assert data["a"].endswith("at HEAD")
