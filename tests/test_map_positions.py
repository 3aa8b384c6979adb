"""Where a location is drawn (issue #39): ``at X Y`` in a location, checked and bounded, kept by
the formatter, and read by the board a front end draws (interpreter/display.py, ``game.board``).

The checker takes two whole numbers from 0 to 1000 (dsl/limits.py MAX_COORD), once a location; a map
with points for only some of its locations is a warning naming the others (W250: the board is then
drawn from the computed layout), two locations at one point an error. The bundled scenarios give
every location a point, so their boards come from their content; a pack without any keeps the
computed layout.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.dsl.format import format_text
from lastbreath.dsl.limits import MAX_COORD
from lastbreath.interpreter import api, display
from lastbreath.interpreter.serve import Server

ROOT = Path(__file__).resolve().parent.parent
BUNDLED_SCENARIOS = ("station-2891", "storybook-woods", "uss-konrad", "wingard-cottage", "wolfe-asylum")

CLIFF = """\
scenario cliff-walk {
  name "Cliff Walk"
  location gate { name "Gate"; exit; GATE }
  location shed { name "Shed"; search; SHED }
  location barn { name "Barn"; BARN }
  path gate (1 2 3) -- (1 2 3) shed
  path gate (4 5 6) -- (1 2 3) barn
  setup first { killer at shed; fg at gate; victims at shed 2 }
}
"""


def cliff(gate: str = "at 0 100", shed: str = "at 400 0", barn: str = "at 1000 640") -> str:
    return CLIFF.replace("GATE", gate).replace("SHED", shed).replace("BARN", barn).replace("; }", " }")


def load(tmp_path: Path, text: str):
    f = tmp_path / "cliff.fg"
    f.write_text(text, encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), f])
    return rs, [d for d in diags if d.span.path == str(f)]


def codes(diags) -> list[tuple[str, int]]:
    return [(d.code, d.span.line) for d in diags]


# --- the language ------------------------------------------------------------------------------
def test_a_location_says_where_it_is_drawn(tmp_path):
    rs, diags = load(tmp_path, cliff())
    assert rs is not None and diags == []
    locs = {loc.id: loc.at for loc in rs.scenarios["cliff-walk"].locations}
    assert locs == {"gate": (0, 100), "shed": (400, 0), "barn": (MAX_COORD, 640)}


@pytest.mark.parametrize("gate, code, words", [
    ("at 1001 100", "E209", "the x of 'at' 1001 is above the limit of 1000"),
    ("at 10 -1", "E209", "the y of 'at' -1 is below the limit of 0"),
    ("at 10", "E205", "write 'at X Y'"),
    ("at 10 20 30", "E205", "write 'at X Y'"),
    ("at here 20", "E205", "write 'at X Y'"),
    ("at 10 20; at 30 40", "E206", "'at' is given twice in this location"),
])
def test_a_wrong_at_is_refused_at_its_line(tmp_path, gate, code, words):
    rs, diags = load(tmp_path, cliff(gate=gate))
    assert rs is None
    errors = [d for d in diags if d.severity == "error"]
    assert codes(errors) == [(code, 3)]
    assert words in errors[0].message and errors[0].hint


def test_two_locations_at_one_point_are_an_error(tmp_path):
    rs, diags = load(tmp_path, cliff(barn="at 0 100"))
    assert rs is None and codes(diags) == [("E210", 5)]
    assert "'gate' and 'barn' are drawn at the same point 0 100" in diags[0].message


def test_a_map_drawn_in_part_is_a_warning_naming_the_locations_without_a_point(tmp_path):
    rs, diags = load(tmp_path, cliff(shed="", barn=""))
    assert rs is not None and codes(diags) == [("W250", 4)]  # at the first one without
    d = diags[0]
    assert d.severity == "warning" and "not shed, barn" in d.message and "computed layout" in d.message
    state, _ = api.new_game(rs, scenario="cliff-walk", seed=1)
    assert display.board_json(state.game)["layout"] == "computed"  # … as the warning says


def test_the_formatter_keeps_at(tmp_path):
    text = cliff()
    out, diags = format_text(text)
    assert diags == [] and out == text
    messy = text.replace("; at 0 100 }", ";   at   0    100 }").replace("at 400 0", "at 400 000")
    out, diags = format_text(messy)
    assert diags == [] and out is not None and "at 0 100 }" in out
    rs, diags = load(tmp_path, out)
    assert rs is not None and rs.scenarios["cliff-walk"].locations[0].at == (0, 100)


def test_the_english_of_a_location_does_not_mention_where_it_is_drawn(tmp_path):
    from lastbreath.dsl.render import Names, render

    rs, _ = load(tmp_path, cliff())
    text = render(rs.scenarios["cliff-walk"], Names.from_ruleset(rs))
    assert "Gate [gate]: exit" in text and "100" not in text


# --- the bundled scenarios and the board -------------------------------------------------------
@pytest.fixture(scope="module")
def rs():
    return load_ruleset()


@pytest.mark.parametrize("sid", BUNDLED_SCENARIOS)
def test_each_bundled_scenario_draws_every_location_from_its_content(rs, sid):
    sc = rs.scenarios[sid]
    points = [loc.at for loc in sc.locations]
    assert all(p is not None for p in points) and len(set(points)) == len(points)
    state, _ = api.new_game(rs, scenario=sid, seed=1)
    board = display.board_json(state.game)
    assert board["layout"] == "content"
    xs = [p[0] for p in points if p is not None]
    ys = [p[1] for p in points if p is not None]
    for loc, decl in zip(board["locations"], sc.locations):  # scaled to the unit square, as declared
        assert decl.at is not None
        assert math.isclose(loc["x"], (decl.at[0] - min(xs)) / (max(xs) - min(xs)), abs_tol=1e-4)
        assert math.isclose(loc["y"], (decl.at[1] - min(ys)) / (max(ys) - min(ys)), abs_tol=1e-4)
    assert {loc["x"] for loc in board["locations"]} >= {0.0, 1.0}


def test_a_pack_without_points_keeps_the_computed_layout():
    rs = load_ruleset([*bundled_paths(), ROOT / "tests" / "packs" / "modules"])
    sc = rs.scenarios["lakeside-camp"]
    assert all(loc.at is None for loc in sc.locations)
    state, _ = api.new_game(rs, scenario="lakeside-camp", seed=1)
    board = display.board_json(state.game)
    edges = [(p[0], p[1]) for p in state.game.board.paths]
    assert board["layout"] == "computed"
    assert [(loc["x"], loc["y"]) for loc in board["locations"]] == display.layout(len(sc.locations), edges)


def test_game_board_in_the_protocol_gives_the_content_positions(rs):
    server = Server(rs)
    for sid in BUNDLED_SCENARIOS:
        reply = json.loads(server.handle_line(json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "game.new", "params": {"seed": 1, "scenario": sid}})))
        gid = reply["result"]["game"]
        board = json.loads(server.handle_line(json.dumps(
            {"jsonrpc": "2.0", "id": 2, "method": "game.board", "params": {"game": gid}})))["result"]
        state, _ = api.new_game(rs, scenario=sid, seed=1)
        assert board["layout"] == "content"
        assert board["locations"] == display.board_json(state.game)["locations"]
