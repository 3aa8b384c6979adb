"""Rule-level tests of the first film: the forest scenario (S4, Storybook Woods) and the wolf
(K4, the Big Bad Wolf) (docs/rules.md)."""

from __future__ import annotations

import attrs
import pytest
from conftest import L, make_work, need, settle, victims_at

from lastbreath.dsl import nodes as n
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import MinionState

victims = victims_at  # the victims tuple for named locations



@pytest.fixture()
def st(game):
    """Seed-1 wolf game in Storybook Woods, settled: no victims, no lasting events, fear 4, time 6,
    the killer far away at Ferryman's Landing."""
    b = game.game.board
    return settle(game, victims=(0,) * b.n, fear=4, time=6, events_active=(), phase="action", sub=1,
                  killers=(attrs.evolve(game.killers[0], loc=b.index["ferrymans-landing"]),))


# === S4 the fairy-tale forest ================================================================
def test_forest_is_a_small_map(st):
    """S4.1"""
    b = st.game.board
    assert b.n == 12
    assert len(b.search_locs) == 3 and len(b.exits) == 2 and len(b.with_tag("river")) == 4
    assert not (set(b.with_tag("river")) & b.exits)  # the river locations are all non-exits (S4.3)


def test_only_one_victim_follows_across_a_bridge(st):
    """S4.2, C5.3"""
    s = settle(st, fg_loc=L(st, "heron-reeds"), victims=victims(st, heron_reeds=3))
    c = need(make_work(s, ["move:millpond"]), engine.move_fg, 1)
    assert c.kind == "follow" and c.keys() == ["follow:1", "follow:0"]
    c = need(make_work(s, ["move:willow-ford"]), engine.move_fg, 1)
    assert c.keys() == ["follow:2", "follow:1", "follow:0"]
    w = make_work(s, ["move:millpond", "follow:1"])
    engine.move_fg(w, 1)
    assert w.victims[L(st, "millpond")] == 1 and w.victims[L(st, "heron-reeds")] == 2


def test_three_old_bridges(st):
    """S4.2"""
    b = st.game.board
    bridges = [p for p in b.paths if "bridge" in p[4]]
    assert sum(1 for p in bridges if not p[5]) == 3
    assert sum(1 for p in bridges if p[5]) == 2  # more, revealed by events


def test_bridge_opened_by_event_has_the_same_limit(st):
    """S4.2"""
    s = settle(st, fg_loc=L(st, "bramble-thicket"), victims=victims(st, bramble_thicket=2))
    c = need(make_work(s), engine.move_fg, 1)
    assert "move:toadstool-ring" not in c.keys()  # a closed bridge
    w = make_work(s)
    engine.run(w, st.game.events["fallen-oak"].effects, Ctx())
    opened = w.freeze()
    c = need(make_work(opened), engine.move_fg, 1)
    assert "move:toadstool-ring" in c.keys()
    c = need(make_work(opened, ["move:toadstool-ring"]), engine.move_fg, 1)
    assert c.keys() == ["follow:1", "follow:0"]


def test_raft_lets_fg_move_between_river_locations(st):
    """S4.3"""
    s = settle(st, fg_loc=L(st, "heron-reeds"))
    c = need(make_work(s), engine.move_fg, 1)
    assert "move:ferrymans-landing" not in c.keys()
    w = make_work(s)
    engine.gain_item(w, "raft", "search")
    assert "raft-found" in w.flags
    found = w.freeze()
    c = need(make_work(found), engine.move_fg, 1)
    assert "move:ferrymans-landing" in c.keys() and "move:millpond" in c.keys()
    w = make_work(found, ["move:ferrymans-landing"])
    engine.move_fg(w, 1)
    assert w.fg_loc == L(st, "ferrymans-landing")
    # from willow-ford the raft reaches the millpond, whose bridge is still closed
    c = need(make_work(settle(found, fg_loc=L(st, "willow-ford"))), engine.move_fg, 1)
    assert "move:millpond" in c.keys()
    # not from a location away from the river
    c = need(make_work(settle(found, fg_loc=L(st, "sugar-roof-cottage"))), engine.move_fg, 1)
    assert set(c.keys()) == {"stop", "move:hollow-gate", "move:woodcutters-camp", "move:heron-reeds"}


def test_S4_3_victims_follow_by_raft_as_on_any_move(st):
    """S4.3 with C5.3: the base scenario puts no limit on followers by raft (only the Vehicles
    module's raft, V8, leaves them behind, and the module is not played), so up to two victims
    may follow her across the river by raft, where a bridge lets only one (S4.2)."""
    s = settle(st, fg_loc=L(st, "heron-reeds"), victims=victims(st, heron_reeds=3), flags=frozenset({"raft-found"}),
               killers=(attrs.evolve(st.killers[0], loc=L(st, "lantern-road")),))
    c = need(make_work(s, ["move:ferrymans-landing"]), engine.move_fg, 1)
    assert c.kind == "follow" and c.keys() == ["follow:2", "follow:1", "follow:0"]
    w = make_work(s, ["move:ferrymans-landing", "follow:2"])
    engine.move_fg(w, 1)
    assert w.fg_loc == L(st, "ferrymans-landing")
    assert w.victims[L(st, "heron-reeds")] == 1 and w.victims[L(st, "ferrymans-landing")] == 2


# === K4 the big bad wolf =====================================================================
def test_wolf_starts_blood_seeking(rs):
    """K4.1"""
    for seed in range(3):
        s, _ = api.new_game(rs, seed=seed)
        assert s.game.killer.modes == ("blood-seeking", "slaughter")
        assert s.mode == s.mode_active == "blood-seeking"


@pytest.mark.parametrize("dp", ["scent-of-blood", "matted-pelt", "lamp-yellow-eyes", "hunger-without-bottom"])
def test_dark_power_turns_wolf_to_slaughter(st, dp):
    """K4.1"""
    w = make_work(settle(st, dark_power=dp))
    engine.reveal_dark_power(w)
    assert w.dark_revealed and w.mode == "slaughter"
    assert "K4.1" in [e.rule for e in w.ctl.events]


def test_mode_switch_waits_for_next_killer_phase(st):
    """K4.1"""
    # Nose to the Wind in blood-seeking: raise bloodlust 1 reaches the dark power (level 5);
    # its slaughter half (hunt victims, 2 attacks) must not resolve in this Killer phase.
    fl = L(st, "ferrymans-landing")
    s = settle(st, phase="killer", bloodlust=3, dark_power="lamp-yellow-eyes", mode="blood-seeking",
               mode_active="blood-seeking", victims=victims(st, ferrymans_landing=2))
    w = make_work(s)
    engine.run(w, st.game.terror["nose-to-the-wind"].effects, Ctx())
    assert w.bloodlust == 4 and w.dark_revealed
    assert w.mode == "slaughter" and w.mode_active == "blood-seeking"
    assert w.victims[fl] == 2 and w.dead == 0
    # the next Killer phase starts in slaughter
    w2 = make_work(settle(w.freeze(), phase="killer", sub=0))
    engine.step_killer(w2)  # the first step of the phase
    assert w2.mode_active == "slaughter"
    engine.run(w2, st.game.terror["nose-to-the-wind"].effects, Ctx())
    assert w2.victims[fl] == 0 and w2.dead == 2


def test_always_exactly_one_mode(st):
    """K4.1"""
    w = make_work(settle(st, mode_active="blood-seeking", time=6, fear=4))
    engine.run(w, st.game.terror["patient-hunter"].effects, Ctx())  # lose 2 time; slaughter: raise fear 1
    assert (w.time, w.fear) == (4, 4)
    w = make_work(settle(st, mode="slaughter", mode_active="slaughter", time=6, fear=4))
    engine.run(w, st.game.terror["patient-hunter"].effects, Ctx())
    assert (w.time, w.fear) == (4, 5)
    w = make_work(settle(st, mode_active="slaughter", time=6, fear=4))
    engine.run(w, st.game.terror["held-breath"].effects[:1], Ctx())  # blood-seeking: lose 2 time
    assert w.time == 6


@pytest.mark.parametrize("mode", ["blood-seeking", "slaughter"])
def test_killing_machine_resolves_both_modes(st, mode):
    """K4.2"""
    s = settle(st, dark_power="hunger-without-bottom", dark_revealed=True, mode=mode, mode_active=mode,
               time=6, fear=4)
    w = make_work(s)
    # A Familiar Voice: blood-seeking { lose 1 time; hunt victims } slaughter { raise fear 2 }
    engine.run(w, st.game.terror["familiar-voice"].effects, Ctx())
    assert (w.time, w.fear) == (5, 6)


def test_without_killing_machine_only_one_mode_resolves(st):
    """K4.2"""
    s = settle(st, dark_power="lamp-yellow-eyes", dark_revealed=True, mode="slaughter", mode_active="slaughter",
               time=6, fear=4)
    w = make_work(s)
    engine.run(w, st.game.terror["familiar-voice"].effects, Ctx())
    assert (w.time, w.fear) == (6, 6)


@pytest.mark.parametrize("mode", ["blood-seeking", "slaughter"])
def test_effects_naming_no_mode_always_resolve(st, mode):
    """K4.3"""
    w = make_work(settle(st, mode=mode, mode_active=mode, time=6, fear=4))
    engine.run(w, st.game.terror["torn-hem"].effects, Ctx())  # lose 1 time; raise fear 1
    assert (w.time, w.fear) == (5, 5)
    w = make_work(settle(st, mode=mode, mode_active=mode, fear=4))
    engine.run(w, st.game.terror["distant-howl"].effects, Ctx())  # raise fear 1 outside any mode block
    assert w.fear == 5
    # a scenario terror card has no mode blocks and resolves whatever the wolf's mode
    w = make_work(settle(st, mode=mode, mode_active=mode, time=6))
    engine.run(w, st.game.terror["snagging-briars"].effects, Ctx())
    assert w.time == 4


# === C8.3 the forest's terror cards with a killer that has minions ===========================
def _hunts(effects):
    """Every hunt line in a block, inside if/else and mode blocks too."""
    for e in effects:
        if isinstance(e, n.Hunt):
            yield e
        for sub in ("then", "otherwise", "body"):
            yield from _hunts(getattr(e, sub, None) or ())


def test_C8_3_every_forest_terror_hunt_moves_the_minions_too(rs):
    """C8.3: on a terror card all minions act, then the killer: a scenario terror card hunts with
    'enemies', so that any killer's minions (zombies, maniacs) act on it."""
    hunts = [(t.id, h.who) for t in rs.scenarios["storybook-woods"].terror for h in _hunts(t.effects)]
    assert len(hunts) >= 6
    assert [(tid, who) for tid, who in hunts if who != "enemies"] == []


@pytest.fixture()
def zombie_woods(rs):
    """The zombies in Storybook Woods, seed 1, settled: no victims, no lasting events, no zombie
    and no horde on the board, the Final Girl at the Hollow Gate, bloodlust level 1."""
    state, _ = api.new_game(rs, killer="zombies", scenario="storybook-woods", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, minions=(), killers=(), fear=4, time=6,
                  events_active=(), phase="killer", sub=1, fg_loc=L(state, "hollow-gate"), bloodlust=0,
                  dark_revealed=False, fg_health=6, hand=())


def test_C8_3_zombies_move_on_the_canopy_closes(zombie_woods):
    """C8.3 (issue #13: zombies, seed 1, round 2, no zombie moved on 'The Canopy Closes'): on a
    forest terror card the minions act; a zombie next to the Final Girl steps onto her and bites."""
    st = settle(zombie_woods, minions=(MinionState("zombie", L(zombie_woods, "sugar-roof-cottage"), 1,
                                                   frozenset(), 1),))
    w = make_work(st)
    engine.run(w, st.game.terror["canopy-closes"].effects, Ctx())
    assert [m.loc for m in w.minions] == [L(st, "hollow-gate")]
    assert w.fg_health == 6 - 1


def test_C8_3_maniacs_act_on_a_forest_terror_card_before_her(rs):
    """C8.3: the Ratchet Lady's maniacs act on a forest terror card, and she acts after them: on
    'Slamming Shutters' (hunt victims) a maniac next to a victim kills it before she arrives."""
    state, _ = api.new_game(rs, killer="ratchet-lady", scenario="storybook-woods", seed=1)
    b = state.game.board
    st = settle(state.checkpoint, phase="killer", sub=1, events_active=(), fg_loc=b.index["lantern-road"],
                victims=victims(state, woodcutters_camp=1),
                killers=(attrs.evolve(state.killers[0], loc=b.index["ferrymans-landing"]),),
                minions=(MinionState("maniac", b.index["bramble-thicket"], 1),))
    w = make_work(st)
    engine.run(w, st.game.terror["slamming-shutters"].effects, Ctx())
    assert w.minions[0].loc == b.index["woodcutters-camp"]
    assert w.dead == 1 and w.victims[b.index["woodcutters-camp"]] == 0
    hits = [e.text for e in w.ctl.events if e.kind in ("death", "victim-death", "attack")]
    assert hits and "Maniac" in hits[0]
