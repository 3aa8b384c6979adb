"""A board that changes (issue #16, item 8; docs/rules.md S1.4, C5.3, C5.4, C9, C10.2, S2.3).

Paths closed and opened for everyone or for one kind of mover (the Final Girl, victims, enemies),
exits that are exits only while a condition holds, numbers declared per location and read as
amounts, victims moved between locations with or without the follow rules, and victims the
enemies leave alone while a rule says so. The content is the test pack tests/packs/tracks
(scenario ``stormy-harbour``: a service tunnel declared closed, a jetty that needs fuel, a loft
whose victims are hidden while the lights are out).
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from conftest import L, fx, make_work, need, run_effects as run, settle
from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.dsl.render import render_effects
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.engine.statics import victim_tables

PACK = Path(__file__).resolve().parent / "packs" / "tracks"


@pytest.fixture(scope="module")
def trs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def harbour(trs):
    """The Tide Brood in the Stormy Harbour (seed 1), settled in the Action phase: no victims, the
    Final Girl in the hall, the killer at the quay, no flag, no event in play, no path closed."""
    state, _ = api.new_game(trs, killer="tide-brood", scenario="stormy-harbour", final_girl="nell-arden", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, fear=2, time=6, events_active=(),
                  phase="action", sub=1, fg_loc=L(state, "hall"), flags=frozenset(), delayed=(), barred=(),
                  opened=frozenset(), killers=(attrs.evolve(state.killers[0], loc=L(state, "quay")),))






def victims(state, **where):
    v = [0] * state.game.board.n
    for lid, k in where.items():
        v[L(state, lid.replace("_", "-"))] = k
    return tuple(v)


def dist(tables, a: int, b: int) -> int:
    return tables[1][a][b]


def adjacent(tables, a: int, b: int) -> bool:
    return any(d == b for d, _k in tables[0][a])


# === paths closed and opened (S1.4) ==============================================================
def test_a_path_declared_closed_is_closed_for_every_mover(harbour):
    """S1.4: nobody passes a duct before it is activated."""
    w = make_work(harbour)
    hall, slip = L(harbour, "hall"), L(harbour, "slipway")
    for tables in (engine.fg_tables(w), victim_tables(w), engine.enemy_tables(w)):
        assert not adjacent(tables, hall, slip)


def test_opening_a_closed_path_for_her_and_her_victims_keeps_it_closed_for_enemies(harbour):
    """S1.4: once activated, the Final Girl and her following victims pass; enemies never do."""
    w = run(harbour, "open path hall slipway for fg")
    hall, slip = L(harbour, "hall"), L(harbour, "slipway")
    assert adjacent(engine.fg_tables(w), hall, slip)
    assert not adjacent(victim_tables(w), hall, slip) and not adjacent(engine.enemy_tables(w), hall, slip)
    engine.run(w, fx("open path hall slipway for victims"), Ctx())
    assert adjacent(victim_tables(w), hall, slip) and not adjacent(engine.enemy_tables(w), hall, slip)
    assert w.barred == ((w.game.board.paths.index(next(p for p in w.game.board.paths
                                                        if {p[0], p[1]} == {hall, slip})), "enemies"),)
    engine.run(w, fx("open path hall slipway"), Ctx())  # for everyone
    assert adjacent(engine.enemy_tables(w), hall, slip) and w.barred == ()


def test_the_scenarios_tunnel_action_opens_it_for_her_and_her_victims_only(harbour):
    """S1.4 through the pack's action 'Force the tunnel hatch'."""
    action = next(a for a in harbour.game.actions if a.id == "open-tunnel")
    w = make_work(harbour)
    engine.run(w, action.effects, Ctx())
    texts = [e.text for e in w.ctl.events]
    assert texts[:2] == ["a path opens between Harbour Hall and Slipway for the Final Girl",
                         "a path opens between Harbour Hall and Slipway for victims"]
    hall, slip = L(harbour, "hall"), L(harbour, "slipway")
    assert dist(engine.enemy_tables(w), L(harbour, "quay"), hall) == 1
    assert not adjacent(engine.enemy_tables(w), hall, slip)


def test_closing_a_path_for_enemies_leaves_it_open_for_her(harbour):
    """S1.4 (enemies never pass): a closed path changes the enemies' shortest way."""
    pad, quay = L(harbour, "pad"), L(harbour, "quay")
    w = run(harbour, "close path pad quay for enemies")
    assert adjacent(engine.fg_tables(w), pad, quay) and adjacent(victim_tables(w), pad, quay)
    assert not adjacent(engine.enemy_tables(w), pad, quay) and dist(engine.enemy_tables(w), quay, pad) == 2


def test_closing_a_path_for_everyone_and_opening_it_again(harbour):
    pad, quay = L(harbour, "pad"), L(harbour, "quay")
    w = run(harbour, "close path pad quay")
    assert [e.text for e in w.ctl.events] == ["the path between Flight Pad and Quay closes"]
    for tables in (engine.fg_tables(w), victim_tables(w), engine.enemy_tables(w)):
        assert not adjacent(tables, pad, quay)
    engine.run(w, fx("close path pad quay"), Ctx())
    assert len(w.ctl.events) == 1  # closed already: nothing happens
    engine.run(w, fx("open path pad quay"), Ctx())
    for tables in (engine.fg_tables(w), victim_tables(w), engine.enemy_tables(w)):
        assert adjacent(tables, pad, quay)
    assert w.barred == ()


def test_closing_a_path_for_her_takes_it_off_her_moves(harbour):
    """C5.1: each move goes to an adjacent location along a path she may use."""
    w = run(settle(harbour, fg_loc=L(harbour, "pad")), "close path pad hall for fg")
    dests = {d for d, _lim, _how in engine.fg_moves(w)}
    assert L(harbour, "hall") not in dests and L(harbour, "quay") in dests
    assert dist(engine.fg_tables(w), L(harbour, "pad"), L(harbour, "hall")) == 2


def test_victims_do_not_follow_along_a_path_closed_for_them(harbour):
    """C5.3: followers go with her along the path she takes; closed for victims, none may follow."""
    st = settle(harbour, fg_loc=L(harbour, "pad"))
    w = run(st, "close path pad hall for victims")
    limits = {d: lim for d, lim, _how in engine.fg_moves(w)}
    assert limits[L(st, "hall")] == 0 and limits[L(st, "quay")] == 2


def test_panicking_victims_do_not_flee_along_a_path_closed_for_them(harbour):
    """C10.2: a panicking victim flees along the path with its number, if victims may use it."""
    pad = L(harbour, "pad")
    w = run(settle(harbour, victims=victims(harbour, pad=1)), "close path pad hall for victims")
    assert victim_tables(w)[3][pad].get(1) is None and engine.fg_tables(w)[3][pad].get(1) == L(harbour, "hall")


def test_closing_or_opening_a_path_that_does_not_exist_does_nothing_in_play(harbour):
    w = run(harbour, "close path pad slipway; open path pad (exit farthest from fg) for fg")
    assert w.barred == () and w.opened == frozenset() and not w.ctl.events


def test_K6_3_a_pick_reads_the_place_it_measures_from_once(harbour):
    """K6.3: ``farthest from PLACE`` measures every candidate from one place, read once: a place
    picked at random there is one draw, not one per candidate."""
    w = run(harbour, "move killer to (any farthest from (any random))")
    assert w.rng == harbour.rng + 1
    w = run(harbour, "move killer to (any with most (count victims at it) then nearest to (any random))")
    assert w.rng == harbour.rng + 1  # every candidate ties on the first pick (no victims): the second reads once


# === exits while a condition holds (C5.4) ========================================================
def test_an_exit_while_a_condition_is_an_exit_only_while_it_holds(harbour):
    """C5.4: victims escape at an exit: the jetty is one only once the boat is fuelled."""
    jetty = L(harbour, "jetty")
    st = settle(harbour, fg_loc=jetty, victims=victims(harbour, jetty=2))
    s, _ = engine.advance(st, (), 0)
    assert "rescue" not in s.choice.keys()
    w = run(st, "gain (count exits) time")
    assert w.time == st.time + 1  # the pad only
    fuelled = settle(st, flags=frozenset({"fuelled"}))
    s, _ = engine.advance(fuelled, (), 0)
    assert "rescue" in s.choice.keys()
    w = run(fuelled, "gain (count exits) time; if here is exit { raise fear 1 }; for each exit { lower fear 1 }")
    assert w.time == st.time + 2 and w.fear == st.fear + 1 - 2


def test_she_lets_victims_escape_at_a_conditional_exit_after_a_move(harbour):
    """C5.4 after a move: at the jetty, fuelled, the victims there may escape."""
    store, jetty = L(harbour, "fuel-store"), L(harbour, "jetty")
    st = settle(harbour, fg_loc=store, victims=victims(harbour, jetty=1), flags=frozenset({"fuelled"}))
    w = make_work(st, ["move:jetty"])
    choice = need(w, engine.move_fg, 1)
    assert choice.kind == "rescue"
    st2 = settle(st, flags=frozenset())
    w = make_work(st2, ["move:jetty", "stop"])
    engine.move_fg(w, 1)  # not an exit now: nothing to ask
    assert w.fg_loc == jetty and w.victims[jetty] == 1


def test_victims_do_not_escape_where_a_rule_says_they_cannot_while_it_holds(harbour):
    """C5.4, S2.3: 'rule victims at pad cannot escape while flag pad-iced': with the flag set no
    escape is offered at the pad, neither as she comes in nor in the Action phase, while it is
    still an exit for selectors and counts; the flight still rescues its passengers."""
    pad, hall = L(harbour, "pad"), L(harbour, "hall")
    iced = settle(harbour, fg_loc=pad, victims=victims(harbour, pad=2), flags=frozenset({"pad-iced"}))
    s, _ = engine.advance(iced, (), 0)
    assert "rescue" not in s.choice.keys() and "action:board-flight" in s.choice.keys()
    w = run(iced, "gain (count exits) time; if here is exit { raise fear 1 }")
    assert w.time == iced.time + 1 and w.fear == iced.fear + 1
    w = make_work(settle(iced, fg_loc=hall, victims=victims(harbour, hall=1)), ["move:pad", "follow:1", "stop"])
    engine.move_fg(w, 1)  # no escape to ask about on arrival
    assert w.fg_loc == pad and w.victims[pad] == 1
    w = run(iced, "load 2 victims at here onto cabin; rescue victims from cabin", ["slot:1", "slot:2"])
    assert w.rescued == iced.rescued + 2
    thawed = settle(iced, flags=frozenset())
    s, _ = engine.advance(thawed, (), 0)
    assert "rescue" in s.choice.keys()


def test_the_fuel_action_reads_the_repair_number_of_its_location(harbour):
    """A number declared per location, read as an amount: fuelling costs the store's repair number."""
    store = L(harbour, "fuel-store")
    action = next(a for a in harbour.game.actions if a.id == "fuel-boat")
    w = make_work(settle(harbour, fg_loc=store))
    assert engine.condition(w, action.cond, Ctx())
    engine.run(w, action.effects, Ctx())
    assert w.time == harbour.time - 2 and "fuelled" in w.flags
    assert not engine.condition(w, action.cond, Ctx())


def test_location_numbers_read_as_amounts_and_default_to_zero(harbour):
    w = run(settle(harbour, time=0), "gain (number beam of hall) time; gain (number beam of quay) time; "
                                     "gain (number beam of (any with most (number beam of it))) time")
    assert w.time == 2 + 0 + 3


# === victims moved (C5.3) ========================================================================
def test_moving_victims_without_the_follow_rules_goes_any_distance(harbour):
    st = settle(harbour, victims=victims(harbour, jetty=3), killers=(attrs.evolve(harbour.killers[0],
                                                                                   loc=L(harbour, "pad")),))
    w = run(st, "move 5 victims from jetty to pad")
    assert w.victims[L(st, "jetty")] == 0 and w.victims[L(st, "pad")] == 3
    assert [e.text for e in w.ctl.events] == ["3 victims move from The Jetty to Flight Pad"]


def test_moving_victims_as_followers_keeps_the_follow_rules(harbour):
    """C5.3: up to two follow, along one path open to victims, never into a killer's location."""
    st = settle(harbour, victims=victims(harbour, hall=3))
    w = run(st, "move 3 victims from hall to pad as followers")
    assert w.victims[L(st, "hall")] == 1 and w.victims[L(st, "pad")] == 2
    w = run(st, "move 3 victims from hall to quay as followers")  # the killer is at the quay
    assert w.victims[L(st, "hall")] == 3 and "a killer is there" in w.ctl.events[0].text
    w = run(st, "move 1 victims from hall to jetty as followers")  # not adjacent
    assert w.victims[L(st, "hall")] == 3 and "no path open to victims" in w.ctl.events[0].text
    w = run(st, "close path hall pad for victims; move 1 victims from hall to pad as followers")
    assert w.victims[L(st, "hall")] == 3


def test_moving_victims_as_followers_keeps_the_path_limits(harbour):
    """C5.3 with S4.2's kind of limit: the pack's 'rule followers at most 1 across tunnel'."""
    st = settle(harbour, victims=victims(harbour, hall=3), opened=frozenset(
        {k for k, p in enumerate(harbour.game.board.paths) if p[5]}))
    w = make_work(st)
    assert engine.modified(w, "followers", 2, frozenset({"tunnel"})) == 1
    engine.run(w, fx("move 3 victims from hall to slipway as followers"), Ctx())
    assert w.victims[L(st, "slipway")] == 1 and w.victims[L(st, "hall")] == 2


# === victims enemies leave alone (C9) ============================================================
def test_hidden_victims_are_neither_targeted_nor_attacked_while_the_rule_holds(harbour):
    """C9.2, C9.6: 'rule victims at loft cannot be targeted while flag lights-out': the killer
    goes for the other victims, and standing among hidden ones it does not attack them."""
    loft, pad = L(harbour, "loft"), L(harbour, "pad")
    hall_killer = (attrs.evolve(harbour.killers[0], loc=L(harbour, "hall")),)
    st = settle(harbour, victims=victims(harbour, loft=2, jetty=1), fg_loc=pad, killers=hall_killer)
    w = make_work(st)
    assert engine.choose_target(w, L(st, "hall"), "victims") == loft
    dark = settle(st, flags=frozenset({"lights-out"}))
    w = make_work(dark)
    assert engine.choose_target(w, L(st, "hall"), "victims") == L(st, "jetty")
    w = make_work(settle(dark, killers=(attrs.evolve(harbour.killers[0], loc=loft),)))
    engine.hunt(w, "killer", "victims", 0, 2)
    assert w.victims[loft] == 2 and w.dead == 0
    w = make_work(settle(st, killers=(attrs.evolve(harbour.killers[0], loc=loft),)))
    engine.hunt(w, "killer", "victims", 0, 1)
    assert w.victims[loft] == 1 and w.dead == 1


def test_a_selector_hides_the_victims_of_every_location_it_names(harbour):
    """The pack's second rule: victims at (sheltered where it is not killer-location) — the loft
    only while the killer is elsewhere."""
    loft = L(harbour, "loft")
    st = settle(harbour, victims=victims(harbour, loft=1), flags=frozenset({"lights-out"}))
    w = make_work(st)
    from lastbreath.interpreter.engine.tracks import hidden_victims

    assert loft in hidden_victims(w)
    assert engine.choose_target(w, L(st, "quay"), "victims") == st.fg_loc  # none to target: at her (C9.1)


def test_effects_still_reach_hidden_victims(harbour):
    st = settle(harbour, victims=victims(harbour, loft=2), flags=frozenset({"lights-out"}))
    w = run(st, "kill 1 victims at loft")
    assert w.victims[L(st, "loft")] == 1 and w.dead == 1


# === the checker and the language ================================================================
SCENARIO = """\
scenario t-board-check {{
  name "Check"
  location a {{ name "A"; exit }}
  location b {{ name "B"; search; number cost 2 }}
  location c {{ name "C" }}
  path a (1) -- (1) b
  path b (2) -- (1) c
  setup s {{ killer at b; fg at a; victims at b 1 }}
{body}
}}
"""


@pytest.mark.parametrize("body, code, says", [
    ("  when game starts { close path a c }", "E210", "no path between 'a' and 'c'"),
    ("  when game starts { open path c a for enemies }", "E210", "no path between 'c' and 'a'"),
    ("  when game starts { lose (number costs of b) time }", "E204", "declares the number 'costs'"),
    ("  location d { name \"D\"; number cost -1 }\n  path c (2) -- (1) d", "E209", "cannot be -1"),
    ("  location d { name \"D\"; number cost 101 }\n  path c (2) -- (1) d", "E209", "above the limit of 100"),
    ("  location d { name \"D\"; number cost 1; number cost 2 }\n  path c (2) -- (1) d", "E206", "given twice"),
    ("  location d { name \"D\"; exit when flag x }\n  path c (2) -- (1) d", "E205", "exit while CONDITION"),
    ("  location d { name \"D\"; exit while flag }\n  path c (2) -- (1) d", "E208", ""),
    ("  when game starts { close path a b for killers }", "E207", "unknown effect"),
])
def test_the_checker_reports_board_changes_it_cannot_use(tmp_path, body, code, says):
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "x.fg").write_text(SCENARIO.format(body=body), encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), folder])
    assert rs is None and [d.code for d in diags] == [code], [d.format() for d in diags]
    assert says in diags[0].message + diags[0].hint


def test_an_exit_condition_may_name_the_location_as_it(tmp_path):
    folder = tmp_path / "pack"
    folder.mkdir()
    body = "  location d { name \"D\"; exit while victims at it }\n  path c (2) -- (1) d"
    (folder / "x.fg").write_text(SCENARIO.format(body=body), encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), folder])
    assert diags == [] and rs.scenarios["t-board-check"].locations[3].exit_when is not None


def test_board_changes_read_as_english():
    assert render_effects(fx("close path a b for enemies; open path a b for victims; move 2 victims from a to b "
                             "as followers; move 1 victims from a to b")) == (
        "Close the path between a and b for enemies. Open the path between a and b for victims. Move 2 victims "
        "of your choice from a to b as if they followed you (along one path, never into a killer's location). "
        "Move 1 victim of your choice from a to b.")


def test_the_jetty_reads_as_an_exit_while_fuelled(trs):
    from lastbreath.dsl.render import Names, render

    text = render(trs.scenarios["stormy-harbour"], Names.from_ruleset(trs))
    assert "The Jetty [jetty]: an exit while the flag fuelled is set" in text
    assert "Slipway [slipway]: search location (it has an item pile); beam 3" in text
    assert "Enemies neither target nor attack the victims at Net Loft while the flag lights-out is set." in text


def test_bundled_games_are_unchanged_by_the_new_tables(rs):
    """The bundled scenarios declare no such paths, exits or numbers: their tables are as before."""
    state, _ = api.new_game(rs, seed=3)
    w = make_work(state)
    assert w.barred == () and engine.fg_tables(w) is victim_tables(w)
    assert engine.enemy_tables(w) is w.game.board.tables(w.opened)
