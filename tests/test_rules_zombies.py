"""Rule-level tests of the zombies (docs/rules.md K6) on the bundled content, and of the general
language features they are written with (no board, place selectors, for each, group attacks,
wandering, killer bodies formed from minions, absorbing, end conditions with reasons)."""

from __future__ import annotations

from collections import Counter

import attrs
import pytest
from conftest import L, load_with, make_work, need, rig, settle, victims_at

from lastbreath.dsl import nodes as n
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import KillerState, MinionState

EXITS = ("hollow-gate", "lantern-road")  # the woods' two exits


def zombies(state, *locs):
    return tuple(MinionState("zombie", L(state, loc), 1, frozenset(), i + 1) for i, loc in enumerate(locs))


def horde(state, loc, health, num=1):
    return KillerState("zombies", L(state, loc), health, 0, 0, True, frozenset(), f"Horde {num}")


def effects_of(rs, text):
    """Effect lines built inside a card outcome (names are resolved by the engine as it runs)."""
    from lastbreath.dsl.build import build_file
    from lastbreath.dsl.syntax import parse_text

    source = f'card t {{\n  name "T"\n  cost 0\n  fail {{\n{text}\n  }}\n}}\n'
    lines, diags = parse_text(source, "<test>")
    assert not diags
    decls, _refs, diags = build_file(lines, "<test>", source)
    assert not diags, [(d.message, d.hint) for d in diags]
    return decls[0].outcomes[0].effects


@pytest.fixture(scope="module")
def zw(rs):
    """The zombies in Storybook Woods, seed 1, settled in the Action phase: no victims, no zombies,
    no hordes, no lasting events, fear 4, time 6, the Final Girl at the Woodcutter's Camp."""
    state, _ = api.new_game(rs, killer="zombies", scenario="storybook-woods", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, minions=(), killers=(), fear=4, time=6,
                  events_active=(), phase="action", sub=1, fg_loc=L(state, "woodcutters-camp"), dark_revealed=False,
                  bloodlust=0, lust_fired=frozenset())


def run(state, text, answers=()):
    w = make_work(state, answers)
    engine.run(w, effects_of(state.game.ruleset, text), Ctx())
    return w


# === K6.1 setup ==============================================================================
@pytest.mark.parametrize("scenario", ["storybook-woods", "wolfe-asylum"])
def test_K6_1_no_board_zombies_at_the_killer_start_and_every_other_exit(rs, scenario):
    """K6.1: no killer body; starting fear 4; one zombie at the setup card's killer location and
    one at each exit that is not that location; the dark power waits face down."""
    state, events = api.new_game(rs, killer="zombies", scenario=scenario, seed=5)
    start = state.game.setup_killer[state.setup_card]
    exits = [e for e in sorted(state.game.board.exits) if e != start]
    assert state.killers == ()
    assert Counter(m.loc for m in state.minions) == Counter([start, *exits])
    assert all(m.kind == "zombie" for m in state.minions)
    assert not state.dark_revealed
    assert rs.killers["zombies"].fear == 4 and not rs.killers["zombies"].board
    spawned = [e for e in events if e.kind == "minion"]
    assert len(spawned) == 1 + len(exits)


ONE_EXIT = """
scenario one-door {
  name "One Door"
  location porch { name "Porch"; exit }
  location hall { name "Hall"; search }
  location attic { name "Attic"; search }
  location cellar { name "Cellar" }
  path porch (1 2 3) -- (1 2) hall
  path hall (3 4) -- (1 2 3) attic
  path hall (5 6) -- (4 5 6) cellar
  setup only { killer at cellar; fg at porch; victims at attic 1 }
  item lamp { name "Lamp" }
  item rope { name "Rope" }
  item pole { name "Pole" }
  item box { name "Box" }
  item can { name "Can" }
  item jar { name "Jar" }
  item key { name "Key" }
  item map { name "Map" }
}
"""


def test_K6_1_one_exit_variant_two_at_the_start_one_at_the_exit_one_where_she_picks(tmp_path):
    """K6.1: with a single exit: two zombies at the killer location, one at the exit, and one at
    a search location of the player's choice."""
    rs1 = load_with(tmp_path, ONE_EXIT)
    state, _ = api.new_game(rs1, killer="zombies", scenario="one-door", seed=2)
    assert state.choice.kind == "place"
    assert sorted(state.choice.keys()) == ["place:attic", "place:hall"]
    state, _ = api.apply(state, "place:attic")
    got = Counter(state.game.board.ids[m.loc] for m in state.minions)
    assert got == Counter({"cellar": 2, "porch": 1, "attic": 1})


# === K6.2 winning and losing =================================================================
def test_K6_2_win_at_once_when_no_zombie_and_no_horde_is_left(zw):
    """K6.2: the moment the last zombie dies the Final Girl wins (state-based check)."""
    st = settle(zw, minions=zombies(zw, "woodcutters-camp"))
    w = make_work(st)
    engine.damage_minions(w, L(st, "woodcutters-camp"), 1)
    with pytest.raises(engine.GameOver):
        engine.check_ends(w)
    assert w.result == "fg" and w.end_reason == "no zombie and no horde is left"


def test_K6_2_no_win_while_zombies_remain_even_with_every_horde_destroyed(zw):
    """K6.2 (and not C13.1): destroying the last horde is no win while zombies walk."""
    st = settle(zw, minions=zombies(zw, "lantern-road"), killers=(horde(zw, "woodcutters-camp", 2),))
    w = make_work(st)
    engine.damage_killer(w, 0, 5)
    assert w.killers == () and not w.result
    engine.check_ends(w)
    assert not w.result


def test_K6_2_a_fourth_horde_loses(zw):
    """K6.2: three hordes on the board and a fourth would form: the killer wins."""
    st = settle(zw, killers=tuple(horde(zw, loc, 3, i + 1) for i, loc in enumerate(
        ("hollow-gate", "lantern-road", "millpond"))), minions=zombies(zw, *["spindle-tower"] * 3))
    w = run(st, "turn groups of 3 zombie into killers")
    with pytest.raises(engine.GameOver):
        engine.check_ends(w)
    assert w.result == "killer" and w.end_reason == "a fourth horde rises"


def test_K6_2_three_hordes_are_not_yet_a_loss(zw):
    """K6.2: the loss is the fourth horde, not the third."""
    st = settle(zw, killers=tuple(horde(zw, loc, 3, i + 1) for i, loc in enumerate(("hollow-gate", "lantern-road"))),
                minions=zombies(zw, *["spindle-tower"] * 3) + zombies(zw, "millpond"))
    w = run(st, "turn groups of 3 zombie into killers")
    engine.check_ends(w)
    assert not w.result and len(w.killers) == 3


def test_K6_2_the_final_girl_dying_loses_with_or_without_hordes(zw):
    """K6.2: the Final Girl's death is a loss; with no killer board it is never a 'both fell' win."""
    for killers in ((), (horde(zw, "millpond", 3),)):
        st = settle(zw, killers=killers, minions=zombies(zw, "millpond"), fg_health=1, fg_breath=1)
        w = make_work(st)
        with pytest.raises(engine.GameOver):
            engine.fg_damage(w, 5)
        assert w.result == "killer"


# === K6.3 spawning ===========================================================================
def test_K6_3_each_zombie_goes_to_the_exit_with_fewest_ties_farthest_from_the_fg(zw):
    """K6.3: one at a time, each at the exit with the fewest zombies then; ties: farthest from the FG."""
    st = settle(zw, fg_loc=L(zw, "sugar-roof-cottage"))  # next to the Hollow Gate, far from Lantern Road
    w = run(st, "spawn 3 zombie at (exit with fewest zombie farthest from fg)")
    locs = [st.game.board.ids[m.loc] for m in w.minions]
    assert locs == ["lantern-road", "hollow-gate", "lantern-road"]
    st2 = settle(st, minions=zombies(st, "lantern-road", "lantern-road"))
    w = run(st2, "spawn 2 zombie at (exit with fewest zombie farthest from fg)")
    assert [st.game.board.ids[m.loc] for m in w.minions[2:]] == ["hollow-gate", "hollow-gate"]


def test_K6_3_the_bloodlust_card_says_how_many_a_spawn_places(zw):
    """K6.3: the spawn number printed on the current bloodlust level."""
    levels = zw.game.levels
    for lvl in (0, 4, 9):
        k = dict(levels[lvl].stats)["spawn"]
        w = run(settle(zw, bloodlust=lvl), "spawn (bloodlust spawn) zombie at (exit with fewest zombie)")
        assert len(w.minions) == k
    assert dict(levels[0].stats)["spawn"] < dict(levels[-1].stats)["spawn"]


def test_K6_3_zombie_tokens_run_out_at_23(zw):
    """K6.3 with C15.1: a spawn past the 23 zombie tokens is ignored."""
    st = settle(zw, minions=zombies(zw, *["millpond"] * 22))
    w = run(st, "spawn 3 zombie at (exit with fewest zombie)")
    assert len(w.minions) == 23
    assert any("no Zombie token is left" in e.text for e in w.ctl.events)


# === K6.4 wandering ==========================================================================
def _wander_face(st, loc):
    panic = st.game.board.tables(frozenset())[3][loc]
    face, dest = sorted(panic.items())[0]
    return face, dest


def test_K6_4_with_no_target_in_reach_a_zombie_wanders_after_moving(zw):
    """K6.4: the Final Girl (its only target) is 3 away: it moves 1 toward her, then wanders once
    like a panicking victim (the die picks the path)."""
    st = settle(zw, fg_loc=L(zw, "lantern-road"), minions=zombies(zw, "woodcutters-camp"))
    _adj, dist, nxt, _panic = engine.enemy_tables(make_work(st))
    wc, lr = L(st, "woodcutters-camp"), L(st, "lantern-road")
    assert dist[wc][lr] > 2
    first = nxt[wc][lr]  # its one move toward her; she is still out of reach from there
    face, dest = _wander_face(st, first)
    st2 = rig(st, [face])
    w = make_work(st2)
    engine.hunt(w, "minions", "fg", 1, 0)
    assert w.minions[0].loc == dest
    assert any("wanders" in e.text for e in w.ctl.events)


def test_K6_4_with_a_target_in_reach_there_is_no_wander(zw):
    """K6.4: the Final Girl one step away: it moves onto her and stays."""
    st = settle(zw, fg_loc=L(zw, "sugar-roof-cottage"), minions=zombies(zw, "woodcutters-camp"))
    w = make_work(st)
    engine.hunt(w, "minions", "fg", 1, 0)
    assert w.minions[0].loc == L(st, "sugar-roof-cottage")
    assert not any("wanders" in e.text for e in w.ctl.events)


# === K6.5 group attacks ======================================================================
def test_K6_5_zombies_in_one_place_attack_once_for_their_number(zw):
    """K6.5: three zombies with the Final Girl: one attack of 3 damage, not three of 1."""
    st = settle(zw, minions=zombies(zw, *["woodcutters-camp"] * 3), fg_health=6, hand=())
    w = make_work(st)
    engine.hunt(w, "minions", "fg", 1, 1)
    assert w.fg_health == 3
    hits = [e for e in w.ctl.events if e.kind == "attack"]
    assert len(hits) == 1 and "for 3" in hits[0].text


def test_K6_5_victims_are_attacked_before_the_final_girl(zw):
    """K6.5: a victim with her: the group kills the victim, even when hunting her."""
    st = settle(zw, minions=zombies(zw, "woodcutters-camp", "woodcutters-camp"), fg_health=6, hand=(),
                victims=victims_at(zw, woodcutters_camp=1))
    w = make_work(st)
    engine.hunt(w, "minions", "fg", 1, 1)
    assert w.fg_health == 6 and sum(w.victims) == 0 and w.dead == 1


# === K6.6 hordes form ========================================================================
def test_K6_6_three_or_more_zombies_become_a_horde_and_the_first_reveals_the_dark_power(zw):
    """K6.6: at the end of the Killer phase, 4 zombies in one place become a horde with 4 health
    and no last-breath token; 2 elsewhere stay zombies; the first horde reveals the dark power."""
    st = settle(zw, phase="killer", sub=3, minions=zombies(zw, *["millpond"] * 4, "spindle-tower", "spindle-tower"))
    w = make_work(st)
    engine.step_killer(w)
    (h,) = w.killers
    assert (h.loc, h.health, h.breath, h.label) == (L(st, "millpond"), 4, 0, "Horde 1")
    assert sorted(m.loc for m in w.minions) == [L(st, "spindle-tower")] * 2
    assert w.dark_revealed
    # a second horde: the dark power is not revealed again
    st2 = settle(engine.replace(w.freeze(), phase="killer", sub=3),
                 minions=zombies(zw, *["lantern-road"] * 3))
    w2 = make_work(st2)
    engine.step_killer(w2)
    assert [k.label for k in w2.killers] == ["Horde 1", "Horde 2"]
    assert not any(e.kind == "reveal" for e in w2.ctl.events)


def test_K6_6_crowds_in_several_places_form_in_board_order(zw):
    """K6.6: every crowd forms, location by location in board order (the labels follow it)."""
    places = ["spindle-tower", "millpond", "lantern-road"]
    st = settle(zw, phase="killer", sub=3,
                minions=zombies(zw, *[p for p in places for _ in range(3)], "hollow-gate", "hollow-gate"))
    w = make_work(st)
    engine.step_killer(w)
    order = sorted(places, key=lambda p: L(st, p))
    assert [(k.label, k.loc) for k in w.killers] == [(f"Horde {i + 1}", L(st, p)) for i, p in enumerate(order)]
    assert [m.loc for m in w.minions] == [L(st, "hollow-gate")] * 2


def test_K6_6_the_next_crowd_is_the_one_a_scan_of_the_board_finds():
    """The formation looks for the next crowd in one pass over the minions: the same location as
    scanning the board place by place, for any layout."""
    import random
    from lastbreath.interpreter.engine.presence import _next_group

    rnd = random.Random(7)
    for _ in range(400):
        minions = tuple(MinionState(rnd.choice("zx"), rnd.randrange(-1, 8), 1, frozenset(), i + 1)
                        for i in range(rnd.randrange(0, 12)))
        need, after = rnd.randrange(1, 4), rnd.randrange(-1, 8)
        scan = next((loc for loc in range(after + 1, 8)
                     if sum(1 for m in minions if m.kind == "z" and m.loc == loc) >= need), -1)
        assert _next_group(minions, "z", need, after) == scan


# === K6.7 hordes are killers =================================================================
def test_K6_7_hordes_move_and_attack_by_bloodlust(zw):
    """K6.7: a horde hunts as a killer: bloodlust's move and damage (level 9: move 2, damage 2)."""
    st = settle(zw, bloodlust=8, killers=(horde(zw, "hollow-gate", 3),), fg_health=6, hand=(),
                fg_loc=L(zw, "woodcutters-camp"))
    assert st.game.levels[8].move == 2 and st.game.levels[8].damage == 2
    w = make_work(st)
    engine.hunt(w, "killer", "fg", 1, 1)
    assert w.killers[0].loc == L(st, "woodcutters-camp") and w.fg_health == 4


def test_K6_7_moving_the_killer_moves_only_the_nearest_horde(zw):
    """K6.7 (open, default: nearest to the destination): 'move killer to LOC' moves one horde."""
    st = settle(zw, killers=(horde(zw, "lantern-road", 3, 1), horde(zw, "sugar-roof-cottage", 3, 2)))
    w = run(st, "move killer to hollow-gate")
    assert [k.loc for k in w.killers] == [L(st, "lantern-road"), L(st, "hollow-gate")]


def test_K6_7_a_horde_grows_by_one_for_each_victim_it_kills_without_cap(zw):
    """K6.7: a victim killed by a horde gives it +1 health; there is no health cap."""
    st = settle(zw, killers=(horde(zw, "woodcutters-camp", 30),), victims=victims_at(zw, woodcutters_camp=2))
    w = make_work(st)
    engine.hunt(w, "killer", "victims", 1, 2)
    assert w.dead == 2 and w.killers[0].health == 32


def test_K6_7_hordes_take_in_zombies_they_meet_but_never_merge(zw):
    """K6.7: a horde moving onto zombies removes them, +1 health each; a zombie moving onto a horde
    is taken in too; two hordes in one place stay two."""
    st = settle(zw, killers=(horde(zw, "sugar-roof-cottage", 3, 1), horde(zw, "woodcutters-camp", 4, 2)),
                minions=zombies(zw, "woodcutters-camp"), fg_loc=L(zw, "woodcutters-camp"), fg_health=6, hand=())
    # placing the zombie there (the state above) is settled by hand; a spawn onto a horde is taken in at once
    w = run(st, "spawn 1 zombie at woodcutters-camp")
    assert len(w.minions) == 0 and w.killers[1].health == 6  # 4 + the zombie already there + the new one
    w = make_work(settle(st, minions=zombies(zw, "heron-reeds")))
    engine.hunt(w, "enemies", "fg", 1, 0)
    assert len(w.killers) == 2 and {k.loc for k in w.killers} == {L(st, "woodcutters-camp")}
    assert sorted(k.health for k in w.killers) == [4, 4]  # the zombie walked into the first horde


def test_K6_7_a_horde_below_three_stays_a_horde_and_is_gone_at_zero(zw):
    """K6.7: damage to 2 leaves a horde; with no last-breath token (K6.6) it is gone at 0."""
    st = settle(zw, killers=(horde(zw, "woodcutters-camp", 4),))
    w = make_work(st)
    engine.damage_killer(w, 0, 2)
    assert w.killers[0].health == 2 and w.killers[0].alive
    engine.damage_killer(w, 0, 2)
    assert w.killers == ()


def test_K6_7_kill_n_zombies_may_be_n_damage_to_a_horde(zw):
    """K6.7: 'kill 2 zombie at here' with a horde there: the player may deal 2 damage to it instead."""
    st = settle(zw, killers=(horde(zw, "woodcutters-camp", 5),), minions=zombies(zw, "woodcutters-camp"))
    w = make_work(st)
    ch = need(w, engine.run, effects_of(st.game.ruleset, "kill 2 zombie at here"), Ctx())
    assert ch.kind == "kill-or-damage" and ch.keys() == ["kill", "killer:0"]
    w = run(st, "kill 2 zombie at here", ["killer:0"])
    assert w.killers[0].health == 3 and len(w.minions) == 1
    w = run(st, "kill 2 zombie at here", ["kill"])
    assert w.killers[0].health == 5 and len(w.minions) == 0


def test_K6_7_without_a_horde_there_kill_just_kills(zw):
    """K6.7: no horde at the place: no choice, the zombies die (no bloodlust, C15)."""
    st = settle(zw, minions=zombies(zw, "woodcutters-camp", "woodcutters-camp", "woodcutters-camp"))
    w = run(st, "kill 2 zombie at here")
    assert len(w.minions) == 1 and w.bloodlust == 0


# === the language features on their own ======================================================
def test_for_each_visits_the_set_in_map_order_skipping_one(zw):
    """'for each SET except LOC { … it … }' (K6.1's setup as a general loop)."""
    w = run(zw, "for each search except woodcutters-camp { place 1 victims at it }")
    assert [st for st in w.victims] == list(victims_at(zw, spindle_tower=1, wishing_well=1))
    w = run(zw, "for each river { place 2 victims at it }")
    assert sum(w.victims) == 8


def test_place_nearest_tie_and_chosen(zw):
    """A place selector breaks ties nearest to the FG, or asks the player ('chosen')."""
    st = settle(zw, fg_loc=L(zw, "sugar-roof-cottage"))
    w = run(st, "spawn 1 zombie at (exit with fewest zombie nearest to fg)")
    assert w.minions[0].loc == L(st, "hollow-gate")
    ch = need(make_work(st), engine.run, effects_of(st.game.ruleset, "place 1 victims at (chosen river)"), Ctx())
    assert ch.kind == "place" and len(ch.options) == 4


def test_a_killer_with_no_board_needs_no_health_and_its_bodies_are_named(tmp_path):
    """'no board' lifts the health requirement; 'body' names the formed bodies."""
    rs1 = load_with(tmp_path, """
killer crowd {
  name "Crowd"
  no board
  body mob { name "Mob"; formed }
  fear 2
  minion walker { name "Walker"; health 1; move 1; damage 1; limit 9 }
  when game starts { spawn 3 walker at killer-start }
  at end of killer { turn groups of 3 walker into killers }
  win when enemies at most 0
  bloodlust { level move 1 damage 1 }
  finale f { name "F"; back { minions hunt fg moves 1 attacks 0 }; face { killer hunts fg moves 1 attacks 1 } }
  dark_power d { name "D" }
}
""")
    k = rs1.killers["crowd"]
    assert not k.board and [(b.id, b.name, b.formed) for b in k.bodies] == [("mob", "Mob", True)]
    state, _ = api.new_game(rs1, killer="crowd", scenario="storybook-woods", seed=1)
    state = api.play(state, api.random_policy(1))
    assert state.over


def test_zombies_play_every_bundled_scenario_to_an_end(rs):
    """Playable in every bundled scenario: games end, with both bots."""
    for scenario in sorted(rs.scenarios):
        for bot in ("random", "greedy"):
            for seed in range(4):
                state, _ = api.new_game(rs, killer="zombies", scenario=scenario, seed=seed)
                state = api.play(state, api.greedy_policy(seed) if bot == "greedy" else api.random_policy(seed))
                assert state.over and state.result in ("fg", "killer")


def test_no_board_killer_and_rules_are_in_the_tree(rs):
    k = rs.killers["zombies"]
    kinds = {type(r) for r in k.abilities.rules}
    assert {n.KillersAbsorb, n.KillsMayHitKillers, n.NoHealthCap} <= kinds
    assert {e.reason for e in k.abilities.ends} == {"no zombie and no horde is left", "a fourth horde rises"}
    zombie = rs.minions["zombie"]
    assert zombie.together and zombie.victims_first and zombie.wanders and zombie.limit == 23


def test_it_outside_for_each_is_a_diagnostic(tmp_path):
    """The checker: 'it' names a location only inside 'for each'."""
    from lastbreath.dsl import bundled_paths, load_content

    f = tmp_path / "bad.fg"
    f.write_text('card stray { name "Stray"; cost 0; fail { place 1 victims at it } }\n', encoding="utf-8")
    _rs, diags = load_content([*bundled_paths(), f])
    (d,) = diags
    assert d.code == "E204" and "means nothing here" in d.message and "for each" in d.hint and d.span.line == 1


def _nodes(obj, kind):
    """Every node of a kind in a content tree (attrs nodes, tuples)."""
    if isinstance(obj, kind):
        yield obj
    if attrs.has(type(obj)):
        for f in attrs.fields(type(obj)):
            if f.name != "span":
                yield from _nodes(getattr(obj, f.name), kind)
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _nodes(x, kind)


def test_K6_3_every_spawn_in_play_reads_the_bloodlust_card_and_ties_go_farthest(rs):
    """K6.3: a spawn places the number printed on the bloodlust card, each zombie at the exit with
    the fewest zombies then, ties to the exit farthest from the Final Girl. Only the setup (K6.1,
    'when game starts') places fixed numbers at fixed places."""
    k = rs.killers["zombies"]
    in_play = (k.finales, k.dark_powers, k.terror, k.bloodlust, k.at_max,
               tuple(t for t in k.abilities.triggers if not isinstance(t.event, n.GameStarts)))
    spawns = list(_nodes(in_play, n.SpawnMinions))
    assert len(spawns) >= 8
    for s in spawns:
        where = f"{s.span.path}:{s.span.line}"
        assert isinstance(s.n, n.LevelStat) and s.n.stat == "spawn", where
        assert isinstance(s.loc, n.Selector), where
        assert s.loc.among.kind == "exit" and [p.how for p in s.loc.picks] == ["fewest", "farthest"], where
        fewest, farthest = s.loc.picks
        assert isinstance(fewest.n, n.Count) and (fewest.n.what, fewest.n.kind, fewest.n.where) == ("minion", "zombie", "it")
        assert farthest.place == "fg", where


@pytest.mark.parametrize("terror", ["broken-windows", "scratching-at-the-door"])
def test_K6_3_a_terror_spawn_places_the_bloodlust_cards_number(zw, terror):
    """K6.3: the same terror card spawns one zombie on the first bloodlust level and three on the
    last (the numbers printed on the bloodlust card), not a number of its own."""
    card = zw.game.terror[terror]
    for lvl in (0, len(zw.game.levels) - 1):
        k = dict(zw.game.levels[lvl].stats)["spawn"]
        w = make_work(settle(zw, bloodlust=lvl, fg_loc=L(zw, "woodcutters-camp")))
        engine.run(w, card.effects, Ctx())
        spawned = [e for e in w.ctl.events if e.kind == "minion" and "appears" in e.text]
        assert len(spawned) == k, (lvl, [e.text for e in spawned])


def test_K6_3_fresh_dead_rise_at_the_exit_farthest_from_her(zw):
    """K6.3: two exits with no zombie: the new one rises at the exit farthest from the Final Girl
    (she is next to the Hollow Gate, so Lantern Road), never at the one by her side."""
    st = settle(zw, fg_loc=L(zw, "sugar-roof-cottage"))
    w = make_work(st)
    engine.run(w, st.game.terror["fresh-dead"].effects, Ctx())
    assert [m.loc for m in w.minions] == [L(st, "lantern-road")]


# === C8.3 on the zombies' own terror cards ===================================================
def test_C8_3_every_zombie_terror_hunt_moves_the_zombies_then_the_hordes(rs):
    """C8.3: on a terror card all minions act, then the killer: the zombies' terror cards hunt
    with 'enemies' (zombies first, then every horde), never with the zombies or the hordes alone."""
    k = rs.killers["zombies"]
    hunts = [(t.id, h.who) for t in k.terror for h in _nodes(t.effects, n.Hunt)]
    assert len(hunts) >= 8
    assert [(tid, who) for tid, who in hunts if who != "enemies"] == []


def test_C8_3_a_horde_acts_on_grasping_hands_after_the_zombies(zw):
    """C8.3: on 'Grasping Hands' the zombie next to her steps in and bites, then the horde two
    away comes after her too (it would stand still if only the zombies acted)."""
    st = settle(zw, fg_loc=L(zw, "hollow-gate"), fg_health=6, hand=(), minions=zombies(zw, "sugar-roof-cottage"),
                killers=(horde(zw, "willow-ford", 3),))
    w = make_work(st)
    engine.run(w, st.game.terror["grasping-hands"].effects, Ctx())
    assert [m.loc for m in w.minions] == [L(st, "hollow-gate")]
    assert w.killers[0].loc != L(st, "willow-ford")
    moved = [e.text for e in w.ctl.events if e.kind == "enemy-move"]
    assert "Zombie" in moved[0] and "Horde 1" in moved[-1]


# === K6 components ===========================================================================
def test_K6_components_three_finales_three_dark_powers_sixteen_terror_and_no_card(rs):
    """K6 components: 2 bloodlust cards, 3 finales, 3 dark powers, 16 terror cards, the horde and
    zombie tokens; no legendary finale or dark power and no action card of its own."""
    k = rs.killers["zombies"]
    assert len(k.finales) == 3 and not any(f.legendary for f in k.finales)
    assert len(k.dark_powers) == 3 and not any(d.legendary for d in k.dark_powers)
    assert len(k.terror) == 16
    assert k.cards == ()


@pytest.mark.parametrize("legendary", [False, True])
def test_K6_components_no_card_joins_the_market_and_no_legendary_is_drawn(rs, legendary):
    """K6 components: playing 'legendary' (C17.3) with the zombies shuffles in nothing, and the
    market is the core deck's alone."""
    core = Counter({c.id: c.copies for c in rs.cards.values() if c.span.path.endswith("core.fg")})
    assert sum(core.values()) == 23  # C3.9
    finales, powers = set(), set()
    for seed in range(12):
        state, _ = api.new_game(rs, killer="zombies", scenario="wolfe-asylum", seed=seed, legendary=legendary)
        assert Counter(state.market) + Counter(state.hand) == core
        finales.add(state.finale)
        powers.add(state.dark_power)
    assert finales <= {f.id for f in rs.killers["zombies"].finales if not f.legendary}
    assert powers <= {d.id for d in rs.killers["zombies"].dark_powers if not d.legendary}
