"""Several killer bodies, the active marker and presence (issue #16, item 1; LANGUAGE.md 6e).

K3.1–K3.3, K3.6 (a trio with an active marker), K2.7–K2.9 (bodies that appear later, last breath
with several bodies), K1.5–K1.6 (vanishing, appearing, a phase replaced, health set), S1.8 (an
effect that ends the game as a loss). The test pack tests/packs/bodies plays whole games.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import L, load_with, make_work, settle

from lastbreath.dsl import bundled_paths, load_content, load_ruleset
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx

PACK = Path(__file__).with_name("packs") / "bodies"

TRIO = """
killer trio {
  name "Trio"
  fear 2
  body red { name "Red"; health 4 }
  body black { name "Black"; health 3 }
  body grey { name "Grey"; health 3; off board }
  rule only the active killer acts
  bloodlust { level move 1 damage 1; level move 1 damage 1; at max { lose 1 time } }
  finale f { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d { name "D" }
  terror t { name "T"; effect { lose 1 time } }
}

killer crowdless {
  name "Crowdless"
  fear 2
  body first { name "First"; health 2 }
  body second { name "Second"; health 2 }
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  instead of killer phase if killer first is off the board { gain 1 time }
  finale f2 { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d2 { name "D" }
}
"""


@pytest.fixture(scope="module")
def brs(tmp_path_factory):
    return load_with(tmp_path_factory.mktemp("bodies"), TRIO, "trio.fg")


def trio(brs, killer="trio", **fields):
    state, _ = api.new_game(brs, killer=killer, scenario="storybook-woods", seed=2)
    return settle(state, **fields)


def run_effects(w, text: str) -> None:
    """Build one effect line in the trio's scope and resolve it."""
    from lastbreath.dsl import parse_text
    from lastbreath.dsl.build import build_file

    src = f'card t {{\n  name "T"\n  cost 0\n  fail {{\n{text}\n  }}\n}}\n'
    lines, _ = parse_text(src, "<t>")
    decls, _r, diags = build_file(lines, "<t>", src)
    assert not diags, [d.message for d in diags]
    engine.run(w, decls[0].outcomes[0].effects, Ctx())


def test_K3_1_each_declared_body_starts_with_its_own_health_and_token(brs):
    """K3.1, K2.7: declared bodies at the setup card's killer location, each with its own health and
    black token; an 'off board' body waits off the map; the marker on the first body."""
    state, _ = api.new_game(brs, killer="trio", scenario="storybook-woods", seed=2)
    ks = state.killers
    assert [(k.body, k.health, k.breath) for k in ks] == [("red", 4, 2), ("black", 3, 2), ("grey", 3, 2)]
    start = L(state, next(c for c in state.game.scenario.setups if c.id == state.setup_card).killer_at)
    assert ks[0].loc == ks[1].loc == start and ks[2].loc == -1
    assert state.active == 0


def test_K3_2_only_the_active_body_moves_and_attacks(brs):
    """K3.2: with 'rule only the active killer acts' the hunt moves the active body only."""
    s = trio(brs)
    before = [k.loc for k in s.killers]
    w = make_work(engine.replace(s, active=1))
    engine.hunt(w, "killer", "fg", 1, 0)
    after = [k.loc for k in w.killers]
    assert after[0] == before[0] and after[2] == before[2]
    assert after[1] != before[1], "the active body (black) moved towards her"


def test_K3_2_the_body_she_damages_becomes_active_and_a_dead_active_passes_the_marker(brs):
    """K3.2: damage makes a body the active one; when the active one dies the marker goes to the
    topmost living body."""
    s = trio(brs)
    w = make_work(s)
    engine.damage_killer(w, 1, 1)
    assert w.active == 1
    assert any(e.rule == "K3.2" and "Black is now the active killer" in e.text for e in w.ctl.events)
    run_effects(w, "defeat killer black")
    assert not w.killers[1].alive and w.active == 0


def test_K3_2_the_marker_moves_up_and_down_skipping_the_dead_and_wrapping(brs):
    """K3.2: 'active killer moves down/up' skips dead bodies and wraps around."""
    s = trio(brs)
    ks = list(s.killers)
    ks[1] = engine.evolve_killer(ks[1], alive=False, health=0, breath=0)
    w = make_work(engine.replace(s, killers=tuple(ks), active=0))
    run_effects(w, "active killer moves down")
    assert w.active == 2, "black is dead: down from red is grey"
    run_effects(w, "active killer moves down")
    assert w.active == 0, "wraps from the bottom to the top"
    run_effects(w, "active killer moves up")
    assert w.active == 2, "wraps from the top to the bottom"


def test_K3_3_all_killers_resolves_for_each_body_on_the_board_top_to_bottom(brs):
    """K3.3: 'all killers { … }' ignores the marker: each living body on the board, top to bottom,
    with 'the killer' meaning that body."""
    s = trio(brs)
    w = make_work(s)
    run_effects(w, "all killers { damage killer 1 }")
    assert [k.health for k in w.killers] == [3, 2, 3], "grey is off the board"
    assert [e.text for e in w.ctl.events if e.kind == "damage"] == [
        "Red takes 1 damage (health 3)", "Black takes 1 damage (health 2)"]


def test_K2_9_a_body_whose_last_breath_goes_while_others_remain_is_set_aside_then_flipped(brs):
    """K2.9, K3.6: the body is set aside (out of the phase, the marker passes on); when the phase
    ends its black token is flipped: a number, it turns white and restores that much."""
    s = trio(brs, phase="killer", sub=3)
    ks = list(s.killers)
    ks[0] = engine.evolve_killer(ks[0], health=0, breath=2, breath_value=2)
    w = make_work(engine.replace(s, killers=tuple(ks), active=0))
    engine.damage_killer(w, 0, 1)
    assert w.killers[0].aside and w.killers[0].alive and w.active == 1
    assert any(e.rule == "K2.9" for e in w.ctl.events)
    engine.hunt(w, "killer", "fg", 1, 1)  # red takes no part
    assert w.killers[0].loc == s.killers[0].loc
    engine.STEPS["killer"](w)  # the end of the Killer phase
    red = w.killers[0]
    assert (red.aside, red.alive, red.breath, red.health) == (False, True, 1, 2)


def test_K2_9_a_blank_token_flipped_at_the_end_of_the_phase_kills_the_body(brs):
    """K2.9: blank (or white) token: the body dies and leaves the board; the others play on."""
    s = trio(brs, phase="killer", sub=3)
    ks = list(s.killers)
    ks[0] = engine.evolve_killer(ks[0], health=0, breath=2, breath_value=0)
    w = make_work(engine.replace(s, killers=tuple(ks)))
    engine.damage_killer(w, 0, 3)
    engine.STEPS["killer"](w)
    assert not w.killers[0].alive and w.killers[0].loc == -1 and not w.result
    assert any("dies and leaves the board" in e.text for e in w.ctl.events)


def test_K1_6_a_body_that_vanishes_in_the_killer_phase_ends_it_and_comes_back(brs):
    """K1.6: vanishing takes the body off the board and ends the Killer phase at once; 'appears
    at' brings it back."""
    s = trio(brs, phase="killer", sub=1)
    w = make_work(s)
    with pytest.raises(engine.PhaseEnd):
        run_effects(w, "killer vanishes")
    assert w.killers[0].loc == -1 and w.killers[0].alive
    w = make_work(engine.replace(w.freeze(), phase="action"))
    run_effects(w, "killer red appears at here")
    assert w.killers[0].loc == w.fg_loc


def test_K1_6_a_whole_killer_phase_is_replaced_while_the_body_is_off_the_board(brs):
    """K1.6: 'instead of killer phase if …': the block is the phase; then the Panic phase."""
    s = trio(brs, killer="crowdless", phase="killer", sub=0, time=3)
    ks = list(s.killers)
    ks[0] = engine.evolve_killer(ks[0], loc=-1)
    w = make_work(engine.replace(s, killers=tuple(ks)))
    engine.STEPS["killer"](w)
    assert w.phase == "panic" and w.time == 4
    w = make_work(trio(brs, killer="crowdless", phase="killer", sub=0, time=3))
    engine.STEPS["killer"](w)
    assert w.phase == "killer" and w.time == 3, "on the board: the phase is played"


def test_K1_5_health_and_maximum_health_are_set(brs):
    """K1.5: 'set killer max health 10; set killer health 10': healing then goes up to 10."""
    w = make_work(trio(brs))
    run_effects(w, "set killer max health 6")
    run_effects(w, "heal killer 5")
    assert w.killers[0].health == 6
    run_effects(w, "set killer black health 7")
    assert w.killers[1].health == 7 and w.killers[1].max_health == 7


def test_S1_8_an_effect_may_end_the_game_as_a_loss(brs):
    """S1.8: 'end game lose "…"' ends the game at once, the killer winning, whatever else holds."""
    w = make_work(trio(brs))
    with pytest.raises(engine.GameOver):
        run_effects(w, 'end game lose "the ship takes her with it"')
    assert w.result == "killer" and w.end_reason == "the ship takes her with it"


def test_a_body_named_but_not_declared_is_a_content_error(tmp_path):
    """The checker: 'killer BODY' names a declared body (E204 with did-you-mean)."""
    bad = TRIO.replace("terror t { name \"T\"; effect { lose 1 time } }",
                       "terror t { name \"T\"; effect { killer blak becomes active } }")
    f = tmp_path / "bad.fg"
    f.write_text(bad, encoding="utf-8")
    _rs, diags = load_content([*bundled_paths(), f])
    assert [(d.code, d.hint) for d in diags if d.code == "E204"] == [("E204", "did you mean 'black'?")]


def test_when_a_whole_phase_is_an_error_only_instead_takes_it(tmp_path):
    f = tmp_path / "bad.fg"
    f.write_text(TRIO.replace("  rule only the active killer acts\n", "  when killer phase { heal 1 }\n"),
                 encoding="utf-8")
    _rs, diags = load_content([*bundled_paths(), f])
    assert [d.code for d in diags] == ["E201"] and "instead of killer phase" in diags[0].hint


def test_the_bodies_pack_plays_whole_games_without_errors():
    """The test pack uses every form of section 6d; bots play it to the end in both scenarios."""
    rs = load_ruleset([*bundled_paths(), PACK])
    from lastbreath.interpreter.simulate import run_games

    for scenario in ("storybook-woods", "wolfe-asylum"):
        records = run_games(rs, {"killer": "test-trio", "scenario": scenario, "legendary": True}, 12, 0, "random")
        assert all(not r.error for r in records), [r.error for r in records if r.error]
        assert all(r.result in ("fg", "killer") for r in records)


def test_the_bodies_pack_passes_the_fuzzer():
    """Every transition of a few fuzzed games keeps the invariants (saves, bounds, determinism)."""
    from lastbreath.interpreter.fuzz import run_fuzz

    rs = load_ruleset([*bundled_paths(), PACK])
    report = run_fuzz(rs, games=4, seed=3, bot="both", killers=["test-trio"])
    assert report["clean"], report.get("violations")


SHY = """
killer shy {
  name "Shy"
  fear 2
  health 4
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  when killer appears { gain 2 time }
  instead of killer appears if flag barred { lose 1 time }
  finale f3 { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d3 { name "D" }
}
"""


def test_K1_6_move_killer_to_leaves_a_body_off_the_board_where_it_is(tmp_path):
    """K1.6, K2.1: 'move killer to' moves a body on the map; one off the board stays off (the log
    says so): only 'killer appears at' brings one on, which 'when killer appears' answers."""
    rs = load_with(tmp_path, SHY, "shy.fg")
    state, _ = api.new_game(rs, killer="shy", scenario="storybook-woods", seed=2)
    ks = (engine.evolve_killer(state.killers[0], loc=-1),)
    w = make_work(settle(state, killers=ks, time=3, phase="action"))
    run_effects(w, "move killer to here")
    assert w.killers[0].loc == -1 and w.time == 3
    assert any("is off the board: it does not move" in e.text for e in w.ctl.events)
    run_effects(w, "killer appears at here")
    assert w.killers[0].loc == w.fg_loc and w.time == 5
