"""A board's tables (distances, next steps, panic destinations: C9.4, C10.2) kept in the cache folder
once computed with networkx, and read back only when every number in them is in range: the same
tables either way, and a start-up that need not import networkx."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from lastbreath.dsl import load_ruleset
from lastbreath.interpreter import board as b


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    return tmp_path


def _table_sets(bd: b.Board) -> list[tuple[frozenset, frozenset, frozenset]]:
    """The default paths, every closed path opened, a tag forbidden, a path shut: what games ask for."""
    closed = frozenset(k for k, p in enumerate(bd.paths) if p[5])
    tags = sorted({t for p in bd.paths for t in p[4]})
    sets = [(frozenset(), frozenset(), frozenset()), (closed, frozenset(), frozenset()),
            (frozenset(), frozenset(), frozenset({0}))]
    sets += [(frozenset(), frozenset({t}), frozenset()) for t in tags[:2]]
    return sets


def test_C9_4_kept_tables_are_the_tables_computed_for_every_bundled_board(cache):
    rs = load_ruleset()
    assert rs.scenarios
    for scenario in rs.scenarios.values():
        for opened, forbidden, shut in _table_sets(b.Board(scenario)):
            fresh = b.Board(scenario)
            usable = fresh.usable(opened, forbidden, shut)
            computed = fresh._compute(usable)
            first = fresh.tables(opened, forbidden, shut)  # computed and kept
            again = b.Board(scenario).tables(opened, forbidden, shut)  # read back from the file
            assert first == computed and again == computed, scenario.id
    assert len(list((cache / "boards").glob("*.json"))) >= len(rs.scenarios)


@pytest.mark.parametrize("damage", [
    "", "{", "[]", '{"adjacency": []}', "null",
    "distance-out-of-range", "next-out-of-range", "panic-bad-face", "adjacency-bad-path",
    "next-float", "next-bool", "panic-padded-face",
])
def test_a_kept_table_that_is_not_right_is_computed_again(cache, damage):
    rs = load_ruleset()
    scenario = next(iter(rs.scenarios.values()))
    bd = b.Board(scenario)
    want = bd._compute(bd.usable(frozenset()))
    bd.tables(frozenset())
    (f,) = list((cache / "boards").glob("*.json"))
    data = json.loads(f.read_text(encoding="utf-8"))
    if damage == "distance-out-of-range":
        data["distance"][0][1] = -3
        text = json.dumps(data)
    elif damage == "next-out-of-range":
        data["next"][0][1] = bd.n + 5
        text = json.dumps(data)
    elif damage == "panic-bad-face":
        data["panic"][0] = {"x": 0}
        text = json.dumps(data)
    elif damage in ("next-float", "next-bool"):
        data["next"][0][0] = -1.0 if damage == "next-float" else True
        text = json.dumps(data)
    elif damage == "panic-padded-face":
        data["panic"][0] = {"01": 0}
        text = json.dumps(data)
    elif damage == "adjacency-bad-path":
        data["adjacency"][0] = [[0, 10_000]]
        text = json.dumps(data)
    else:
        text = damage
    f.write_text(text, encoding="utf-8")
    key = b._table_key(bd.n, [bd.paths[k][:4] + (k,) for k in bd.usable(frozenset())])
    assert f.name == f"{key}.json" and b._load_tables(key, bd.n, len(bd.paths)) is None  # refused
    assert b.Board(scenario).tables(frozenset()) == want
    assert b._from_json(json.loads(f.read_text(encoding="utf-8")), bd.n, len(bd.paths)) is not None  # written anew


def test_an_oversized_kept_table_is_not_read(cache, monkeypatch):
    rs = load_ruleset()
    scenario = next(iter(rs.scenarios.values()))
    b.Board(scenario).tables(frozenset())
    monkeypatch.setattr(b, "MAX_TABLE_BYTES", 10)
    bd = b.Board(scenario)
    assert b._load_tables(b._table_key(bd.n, [bd.paths[k][:4] + (k,) for k in bd.usable(frozenset())]),
                          bd.n, len(bd.paths)) is None
    assert bd.tables(frozenset()) == bd._compute(bd.usable(frozenset()))


def test_with_caching_off_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("LASTBREATH_CACHE", "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    rs = load_ruleset()
    bd = b.Board(next(iter(rs.scenarios.values())))
    assert bd.tables(frozenset()) == bd._compute(bd.usable(frozenset()))
    assert not any(tmp_path.rglob("*.json"))


def test_a_game_with_its_boards_kept_does_not_import_networkx(cache):
    """The second process to play a setup reads its board's tables: networkx (~65 ms of start-up) is
    not imported at all."""
    code = ("import sys; from lastbreath.interpreter.cli import main; "
            "main(['simulate', '--games', '3', '--jobs', '1', '--json']); "
            "print('networkx' in sys.modules, file=sys.stderr)")
    env = {**os.environ, "LASTBREATH_CACHE": str(cache)}
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["True", "False"]
    assert json.loads(runs[0].stdout)["wins"] == json.loads(runs[1].stdout)["wins"]
    assert json.loads(runs[0].stdout)["rounds"] == json.loads(runs[1].stdout)["rounds"]
