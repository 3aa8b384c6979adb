"""Rule-level tests of the enemies: the Killer phase (C8), targeting, movement and attacks (C9),
panic (C10), minions (C15) and the killer board (C17) (docs/rules.md).

Most tests play on a tiny test map, a line A - B - C - D - E, so distances are obvious, with a
small test killer that has minions and a secondary dark power.
"""

from __future__ import annotations

import attrs
import pytest
from conftest import counter_for, finish_phase, load_with, make_work, need, patch_engine, rig, rules_of, settle

from lastbreath.dsl import nodes as n
from lastbreath.interpreter import api, engine, rng
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import MinionState

EXTRA = """
scenario test-line {
  name "Test Line"
  location t-a { name "A"; exit }
  location t-b { name "B"; search }
  location t-c { name "C" }
  location t-d { name "D" }
  location t-e { name "E"; exit }
  path t-a (1) -- (1) t-b
  path t-b (2) -- (1) t-c
  path t-c (2) -- (1) t-d
  path t-d (2) -- (1) t-e
  setup t-start {
    killer at t-c
    fg at t-a
    victims at t-e 1
  }
  item t-stick { name "Stick"; weapon hands 1 range 0 bonus 1 }
  terror t-quiet { name "Quiet"; effect { lose 1 time } }
  terror t-leap { name "Leap"; effect { move killer to t-e; killer hunts fg moves 1 attacks 0 } }
}

killer t-pack {
  name "Test Pack"
  health 5
  fear 3
  bloodlust {
    level move 1 damage 1
    level move 2 damage 2 { raise fear 1 }
    level move 3 damage 3 { reveal dark power }
    at max { lose 1 time }
  }
  finale t-howl {
    name "Howl"
    back {
      killer hunts fg moves 1 attacks 0
      minions hunt victims moves 1 attacks 1
    }
    face { killer hunts fg moves 1 attacks 1 }
  }
  finale t-grand {
    name "Grand"
    legendary
    back { killer hunts fg moves 1 attacks 0 }
    face { killer hunts fg moves 1 attacks 1 }
  }
  dark_power t-dark { name "Dark"; when revealed { raise fear 1 } }
  terror t-swarm { name "Swarm"; effect { enemies hunt fg moves 1 attacks 0 } }
  terror t-thorns { name "Thorns"; secondary health 2; rule dice +1 }
  minion t-cub { name "Cub"; health 1; move 1; damage 1; limit 3 }
  minion t-brute { name "Brute"; health 2; move 2; damage 2; limit 1 }
}
"""

A, B, C, D, E = range(5)


@pytest.fixture(scope="module")
def xrs(tmp_path_factory):
    return load_with(tmp_path_factory.mktemp("enemies"), EXTRA, "enemies-extra.fg")


def first(w, rule, text="", kind=""):
    """Index of the first event with this rule (and text fragment, and kind)."""
    return next(i for i, e in enumerate(w.ctl.events)
                if e.rule == rule and text in e.text and (not kind or e.kind == kind))


def vic(**at):
    v = [0] * 5
    for k, c in at.items():
        v["abcde".index(k)] = c
    return tuple(v)


def cubs(*locs, kind="t-cub", health=1):
    return tuple(MinionState(kind, l, health) for l in locs)


def make_base(xrs, tie_policy="harder", seed=1):
    state, _ = api.new_game(xrs, killer="t-pack", scenario="test-line", final_girl="nell-arden", seed=seed,
                            tie_policy=tie_policy)
    return settle(state, victims=vic(), fear=4, time=6, hand=(), phase="killer", sub=0,
                  finale="t-howl", terror=("t-quiet", "t-swarm", "t-thorns"), bloodlust=0)


@pytest.fixture()
def base(xrs):
    """Killer at C, FG at A, no victims, no minions, empty hand, bloodlust level 1."""
    return make_base(xrs)


def at(state, kloc=None, fg=None, **kw):
    fields = dict(kw)
    if kloc is not None:
        fields["killers"] = (attrs.evolve(state.killers[0], loc=kloc),)
    if fg is not None:
        fields["fg_loc"] = fg
    return settle(state, **fields)


def kloc(w):
    return w.killers[0].loc


# === C8 Killer phase =========================================================================
def test_killer_action_on_finale_back_then_top_terror_card(base):
    """C8.1"""
    w = make_work(at(base, kloc=C, fg=A))
    finish_phase(w)
    assert kloc(w) == B  # the back of the finale: killer hunts fg moves 1
    assert w.terror == ("t-swarm", "t-thorns") and w.time == 5  # then Quiet: lose 1 time
    assert (first(w, "C8.1", kind="killer-action") < first(w, "C9.4") < first(w, "C8.1", kind="terror")
            < first(w, "C3.4", kind="time"))


def test_revealed_finale_replaces_killer_action_and_no_terror(base):
    """C8.2"""
    w = make_work(at(base, kloc=C, fg=B, finale_revealed=True, fg_health=6))
    finish_phase(w)
    assert w.terror == base.terror and w.time == 6
    assert kloc(w) == B and w.fg_health == 5  # the face: hunts fg moves 1 attacks 1
    assert "C8.2" in rules_of(w) and "C8.1" not in rules_of(w)


def test_killer_and_minion_actions_from_finale_back_top_to_bottom(base):
    """C8.3"""
    w = make_work(at(base, kloc=C, fg=A, minions=cubs(E), victims=vic(d=1)))
    finish_phase(w)
    assert kloc(w) == B
    assert w.minions[0].loc == D and w.victims == vic() and w.dead == 1
    assert first(w, "C9.4", "the killer") < first(w, "C9.4", "Cub")


def test_minion_line_without_minions_only_killer_acts(base):
    """C8.3"""
    w = make_work(at(base, kloc=C, fg=A, victims=vic(d=1)))
    finish_phase(w)
    assert kloc(w) == B and w.victims == vic(d=1)


def test_on_terror_card_minions_act_before_killer(base):
    """C8.3, C15.5"""
    w = make_work(at(base, kloc=C, fg=A, minions=cubs(E), terror=("t-swarm",), finale_revealed=False))
    engine.run(w, base.game.terror["t-swarm"].effects, Ctx())
    assert w.minions[0].loc == D and kloc(w) == B
    assert first(w, "C9.4", "Cub") < first(w, "C9.4", "the killer")


# === C9 targeting, movement, attacks =========================================================
@pytest.mark.parametrize("target,expect", [("fg", A), ("victims", D), ("fg-or-victims", A)])
def test_target_type_selects_target_location(base, target, expect):
    """C9.1, C9.2"""
    w = make_work(at(base, kloc=B, fg=A, victims=vic(d=2)))
    assert engine.choose_target(w, B, target) == expect


def test_card_text_overrides_targeting(base):
    """C9.1"""
    w = make_work(at(base, kloc=B, fg=A))
    engine.run(w, base.game.terror["t-leap"].effects, Ctx())
    assert kloc(w) == D  # moved to E by the card's text, then one step toward the FG


def test_nearest_target_may_be_own_location(base):
    """C9.2"""
    w = make_work(at(base, kloc=C, fg=A, victims=vic(c=1, e=3)))
    assert engine.choose_target(w, C, "victims") == C
    engine.hunt(w, "killer", "victims", 1, 1)
    assert kloc(w) == C and w.victims == vic(e=3) and w.dead == 1


def test_no_victims_left_aims_at_the_final_girl(base):
    """C9.1 (open, published default): an action aimed at victims with none on the board aims at the FG."""
    w = make_work(at(base, kloc=C, fg=A))
    assert engine.choose_target(w, C, "victims") == A
    engine.hunt(w, "killer", "victims", 1, 1)
    assert kloc(w) != C
    assert "C9.1" in rules_of(w)


def test_victims_out_of_reach_the_action_aims_at_the_final_girl(base):
    """C9.8 (open, the project's default: the player board's 'out of reach hunt fg'): victims all
    out of reach (the path C–D closed to enemies), an action aimed at victims aims at the FG, and
    the log says which victims and what bars the way."""
    assert base.game.player_board.out_of_reach == "fg"
    w = make_work(at(base, kloc=C, fg=A, victims=vic(e=2), barred=((2, "enemies"),)))
    assert engine.choose_target(w, C, "victims") == A
    said = [e.text for e in w.ctl.events if e.rule == "C9.8"]
    assert said == ["no victim is in reach: E (2 victims): the paths there are closed to enemies; "
                    "the action aims at the Final Girl, at A"]


def test_no_target_in_reach_the_enemy_stays_and_says_why(base, monkeypatch):
    """C9.8 (open): with 'out of reach stay', or with her out of reach too, the enemy stays where
    it is, and the log names its targets and what bars the way (not a silent Killer phase)."""
    monkeypatch.setattr(base.game, "player_board", attrs.evolve(base.game.player_board, out_of_reach="stay"))
    w = make_work(at(base, kloc=C, fg=A, victims=vic(e=2), barred=((2, "enemies"),)))
    engine.hunt(w, "killer", "victims", 1, 1)
    assert kloc(w) == C and w.victims == vic(e=2)
    assert [e.text for e in w.ctl.events if e.rule == "C9.8"] == [
        "no target is in reach: E (2 victims): the paths there are closed to enemies; the killer stays at C"]


def test_no_target_in_reach_seed_8_says_the_rule_that_bars_the_killer(rs):
    """C9.8: the game of 'play --killer big-bad-wolf --scenario storybook-woods --bot random --seed 8'
    (issue 35): a lasting event bars enemies from bridges and everyone is across one; the Killer
    phase says why the killer does not move, naming the rule's source, where it printed nothing."""
    state, events = api.new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=8)
    bot = api.random_policy(8)
    said: list[str] = []
    while not state.over and not said and state.round <= 30:
        state, events = api.apply(state, bot(state, state.choice))
        said = [e.text for e in events if e.rule == "C9.8"]
    assert said, "no C9.8 line in 30 rounds"
    assert said[0].startswith("no target is in reach: ")
    assert "enemies cannot cross bridge paths (The Troll under the Bridge)" in said[0]
    assert said[0].endswith("; the killer stays at Willow Ford")


def test_distance_tie_goes_to_more_victims(base):
    """C9.3"""
    w = make_work(at(base, kloc=C, fg=A, victims=vic(b=1, d=2)))
    assert engine.choose_target(w, C, "victims") == D
    assert "C9.3" in rules_of(w)


def test_distance_tie_counts_victims_only_not_the_fg(base):
    """C9.3"""
    # FG and one victim at B, two victims at D: the FG does not count as a victim
    w = make_work(at(base, kloc=C, fg=B, victims=vic(b=1, d=2)))
    assert engine.choose_target(w, C, "fg-or-victims") == D
    # FG alone at B, one victim at D
    w = make_work(at(base, kloc=C, fg=B, victims=vic(d=1)))
    assert engine.choose_target(w, C, "fg-or-victims") == D


@pytest.mark.parametrize("policy,expect", [("harder", B), ("easier", D)])
def test_full_tie_broken_by_tie_policy(xrs, policy, expect):
    """C9.3"""
    b = make_base(xrs, tie_policy=policy)
    w = make_work(at(b, kloc=C, fg=A, victims=vic(b=1, d=1)))
    assert engine.choose_target(w, C, "victims") == expect


def test_full_tie_asks_the_player_under_ask_policy(xrs):
    """C9.3"""
    b = at(make_base(xrs, tie_policy="ask"), kloc=C, fg=A, victims=vic(b=1, d=1))
    c = need(make_work(b), engine.choose_target, C, "victims")
    assert c.kind == "tie-break" and set(c.keys()) == {"target:t-b", "target:t-d"}
    assert engine.choose_target(make_work(b, ["target:t-d"]), C, "victims") == D


def test_full_tie_realistic_policy_is_random(xrs):
    """C9.3"""
    b = at(make_base(xrs, tie_policy="realistic"), kloc=C, fg=A, victims=vic(b=1, d=1))
    got = set()
    for r in range(12):
        w = make_work(settle(b, rng=r))
        got.add(engine.choose_target(w, C, "victims"))
        assert w.rng == r + 1
    assert got == {B, D}


@pytest.mark.parametrize("level,moves,expect", [(0, 1, B), (0, 2, C), (1, 1, C), (1, 2, E), (2, 1, D), (2, 3, E)])
def test_moves_times_movement_value_toward_target(base, level, moves, expect):
    """C9.4, C17.2"""
    w = make_work(at(base, kloc=A, fg=E, bloodlust=level))
    engine.hunt(w, "killer", "fg", moves, 0)
    assert kloc(w) == expect


def test_enemy_passes_through_fg_and_victims(base):
    """C9.4"""
    w = make_work(at(base, kloc=A, fg=E, victims=vic(b=2, c=1), bloodlust=2))
    engine.hunt(w, "killer", "fg", 1, 1)  # 3 steps toward the FG at E, through B and C (victims)
    assert kloc(w) == D and w.victims == vic(b=2, c=1)
    w = make_work(at(base, kloc=A, fg=C, victims=vic(e=1), bloodlust=2))
    engine.hunt(w, "killer", "victims", 1, 0)  # 3 steps toward E, through C (the FG)
    assert kloc(w) == D and w.fg_health == base.fg_health


def test_action_without_move_does_not_move(base):
    """C9.4"""
    w = make_work(at(base, kloc=A, fg=E, victims=vic(e=1)))
    engine.hunt(w, "killer", "fg-or-victims", 0, 1)
    assert kloc(w) == A and w.victims == vic(e=1)


def test_enemy_moves_along_a_shortest_path(game):
    """C9.4"""
    b = game.game.board
    hg, wf = b.index["hollow-gate"], b.index["willow-ford"]
    s = settle(game, victims=(0,) * b.n, fg_loc=wf, killers=(attrs.evolve(game.killers[0], loc=hg),), bloodlust=0)
    w = make_work(s)
    engine.hunt(w, "killer", "fg", 1, 0)
    # Hollow Gate -> Bramble Thicket -> Willow Ford is 2; via the Sugar-Roof Cottage it is 3
    assert kloc(w) == b.index["bramble-thicket"]


def test_each_attack_deals_bloodlust_damage(base):
    """C9.5, C17.2"""
    w = make_work(at(base, kloc=B, fg=B, bloodlust=1, fg_health=6))
    engine.hunt(w, "killer", "fg", 1, 2)
    assert w.fg_health == 6 - 2 * 2


def test_attacks_where_it_stops_if_any_target_there(base):
    """C9.5"""
    w = make_work(at(base, kloc=A, fg=E, victims=vic(b=2), fg_health=6))
    engine.hunt(w, "killer", "fg", 1, 1)
    assert kloc(w) == B and w.victims == vic(b=1) and w.fg_health == 6


def test_fg_attacked_where_it_stops_short_of_victims(base):
    """C9.5, C9.6"""
    w = make_work(at(base, kloc=A, fg=B, victims=vic(e=2), fg_health=6))
    engine.hunt(w, "killer", "victims", 1, 1)
    assert kloc(w) == B and w.fg_health == 5 and w.victims == vic(e=2)


def test_no_attack_short_of_target_without_targets_there(base):
    """C9.5"""
    w = make_work(at(base, kloc=A, fg=E, victims=vic(e=1), fg_health=6))
    engine.hunt(w, "killer", "fg-or-victims", 1, 3)
    assert kloc(w) == B and w.victims == vic(e=1) and w.fg_health == 6 and w.dead == 0


@pytest.mark.parametrize("target", ["victims", "fg-or-victims"])
def test_victims_attacked_before_fg_unless_target_is_fg(base, target):
    """C9.6"""
    w = make_work(at(base, kloc=B, fg=B, victims=vic(b=2), fg_health=6))
    engine.hunt(w, "killer", target, 1, 1)
    assert w.victims == vic(b=1) and w.fg_health == 6


def test_target_fg_attacks_the_fg_not_victims(base):
    """C9.6"""
    w = make_work(at(base, kloc=B, fg=B, victims=vic(b=2), fg_health=6))
    engine.hunt(w, "killer", "fg", 1, 2)
    assert w.victims == vic(b=2) and w.fg_health == 4


def test_each_attack_kills_one_victim_or_hurts_the_fg(base):
    """C9.6"""
    w = make_work(at(base, kloc=B, fg=B, victims=vic(b=1), fg_health=6))
    engine.hunt(w, "killer", "victims", 1, 2)
    # the death raised bloodlust to level 2: the second attack deals its damage, 2 (C9.5 default)
    assert w.victims == vic() and w.dead == 1 and w.fg_health == 4


def test_several_reactions_against_one_attack(base):
    """C9.6, C2.6"""
    s = rig(at(base, kloc=B, fg=B, fg_health=6, fear=7, bloodlust=1, hand=("guard", "guard")), [6, 6])
    w = make_work(s, ["react:guard", "react:guard"])
    engine.hunt(w, "killer", "fg", 1, 1)
    assert w.fg_health == 6 and w.hand == () and w.spent == ("guard", "guard")


def test_a_reaction_counts_against_one_attack_only(base):
    """C9.6"""
    s = rig(at(base, kloc=B, fg=B, fg_health=6, fear=7, bloodlust=0, hand=("guard",)), [6])
    c = need(make_work(s), engine.hunt, "killer", "fg", 1, 2)
    assert c.kind == "reaction" and c.keys() == ["take", "react:guard"]
    w = make_work(s, ["react:guard"])
    engine.hunt(w, "killer", "fg", 1, 2)
    assert w.fg_health == 5  # first attack prevented, second lands


def test_every_victim_death_raises_bloodlust(base):
    """C9.7, C14.5"""
    w = make_work(at(base, kloc=B, fg=A, victims=vic(b=1, e=2), fear=4))
    engine.hunt(w, "killer", "victims", 1, 1)  # an attack kills one
    assert (w.bloodlust, w.dead) == (1, 1)
    engine.run(w, [n.KillVictims(None, 1, "t-e")], Ctx())  # an effect kills one
    assert (w.bloodlust, w.dead, w.deaths_round) == (2, 2, 2)
    assert rules_of(w).count("C9.7") == 2


# === C10 panic ===============================================================================
def _panic(base, **kw):
    return settle(base, phase="panic", **kw)


def test_no_panic_without_a_death_this_round(base):
    """C10.1"""
    w = make_work(_panic(at(base, kloc=B, fg=A), victims=vic(b=3), deaths_round=0))
    r0 = w.rng
    engine.step_panic(w)
    assert w.victims == vic(b=3) and w.rng == r0 and w.phase == "upkeep"


def test_victims_with_killer_panic_after_a_death_anywhere(base):
    """C10.1, C10.2"""
    s = at(base, kloc=B, fg=A, victims=vic(b=3, d=1, e=1))
    w = make_work(settle(s, phase="killer"))
    engine.kill_victim(w, E, "far away")
    w = make_work(settle(w.freeze(), phase="panic"))
    r0 = w.rng
    engine.step_panic(w)
    assert w.rng - r0 == 3  # the three at the killer's location, not the one at D
    assert w.victims[D] == 1
    assert "C10.1" in rules_of(w)


@pytest.mark.parametrize("face,dest", [(1, A), (2, C), (3, B), (4, B), (5, B), (6, B)])
def test_panicking_victim_flees_along_path_with_rolled_number(base, face, dest):
    """C10.2, C18.2"""
    w = make_work(rig(base, [face], victims=vic(b=1)))
    engine.panic_location(w, B)
    assert w.victims[dest] == 1 and sum(w.victims) == 1


def test_victims_panic_with_minions(base):
    """C15.4, C10.1"""
    w = make_work(_panic(at(base, kloc=A, fg=E), victims=vic(d=2), minions=cubs(D), deaths_round=1))
    r0 = w.rng
    engine.step_panic(w)
    assert w.rng - r0 == 2


def test_each_panicking_victim_rolls_only_once(base):
    """C10.2, C15.4: a victim at the killer's B rolls 2 and flees to C, where a cub is; it must not roll again."""
    s = rig(_panic(at(base, kloc=B, fg=E), victims=vic(b=1), minions=cubs(C), deaths_round=1), [2])
    w = make_work(s)
    r0 = w.rng
    engine.step_panic(w)
    assert w.rng - r0 == 1
    assert w.victims == vic(c=1)


# === C15 minions =============================================================================
def test_minion_reference_and_token_limit(base):
    """C15.1"""
    w = make_work(base)
    engine.run(w, [n.SpawnMinions(None, 5, "t-cub", "t-d")], Ctx())
    assert [(m.kind, m.loc, m.health) for m in w.minions] == [(m.kind, m.loc, m.health) for m in cubs(D, D, D)]
    assert [m.uid for m in w.minions] == [1, 2, 3]  # each spawned minion gets its own identity
    assert any(e.rule == "C15.1" and "ignored" in e.text for e in w.ctl.events)


def test_minions_use_their_own_move_and_damage(base):
    """C15.1, C8.3"""
    w = make_work(at(base, kloc=A, fg=E, minions=cubs(A, kind="t-brute", health=2), bloodlust=0, fg_health=6))
    engine.hunt(w, "minions", "fg", 1, 0)
    assert w.minions[0].loc == C and kloc(w) == A  # brute moves 2 per move; the killer stays
    w = make_work(at(base, kloc=A, fg=C, minions=cubs(C, kind="t-brute", health=2), bloodlust=0, fg_health=6))
    engine.hunt(w, "minions", "fg", 1, 1)
    assert w.fg_health == 4  # brute damage 2, not the bloodlust damage 1


def test_fg_attack_chooses_killer_or_minions(base):
    """C15.2"""
    s = at(base, kloc=B, fg=B, minions=cubs(B, B))
    c = need(make_work(s), engine.fg_attack, 2, Ctx())
    assert set(c.keys()) == {"killer:0", "minions:t-b"}
    w = make_work(s, ["killer:0"])
    engine.fg_attack(w, 2, Ctx())
    assert w.killers[0].health == 3 and len(w.minions) == 2


def test_damage_split_among_minions_in_one_location_none_to_killer(base):
    """C15.2"""
    s = at(base, kloc=B, fg=B, minions=cubs(B, B, C))
    w = make_work(s, ["minions:t-b"])
    engine.fg_attack(w, 3, Ctx())
    assert w.minions == cubs(C)
    assert w.killers[0].health == 5


def test_victims_follow_into_location_with_minions_but_no_killer(base):
    """C15.3, C5.3"""
    s = settle(at(base, kloc=E, fg=C, victims=vic(c=2), minions=cubs(D)), phase="action")
    c = need(make_work(s, ["move:t-d"]), engine.move_fg, 1)
    assert c.kind == "follow"
    w = make_work(s, ["move:t-d", "follow:2"])
    engine.move_fg(w, 1)
    assert w.victims == vic(d=2)


def test_enemies_means_killer_and_minions(base):
    """C15.5"""
    s = at(base, kloc=C, fg=A, minions=cubs(E, kind="t-brute", health=2))
    w = make_work(s)
    engine.hunt(w, "enemies", "fg", 1, 0)
    assert kloc(w) == B and w.minions[0].loc == C
    w = make_work(s)
    engine.hunt(w, "killer", "fg", 1, 0)
    assert kloc(w) == B and w.minions[0].loc == E


# === C17 killer board ========================================================================
def test_killer_board_health_and_starting_fear(xrs):
    """C17.1"""
    s, _ = api.new_game(xrs, killer="t-pack", scenario="test-line", seed=5)
    assert s.killers[0].health == 5 and s.killers[0].breath == 2
    assert s.fear == 3  # test-line has no events to change it


def test_killer_last_breath_like_the_fg(base):
    """C17.1, C14.2"""
    w = make_work(settle(base, killers=(attrs.evolve(base.killers[0], health=2, breath=2, breath_value=0),)))
    engine.damage_killer(w, 0, 2)
    assert w.killers[0].health == 0 and w.killers[0].alive and not w.result
    w = make_work(settle(base, killers=(attrs.evolve(base.killers[0], health=1, breath=2, breath_value=2),)))
    with pytest.raises(engine.PhaseEnd):
        engine.damage_killer(w, 0, 5)
    assert (w.killers[0].health, w.killers[0].breath) == (2, 1)
    with pytest.raises(engine.GameOver):
        engine.damage_killer(w, 0, 3)  # a white token never flips again
    assert w.result == "fg" and not w.killers[0].alive


def test_killer_on_white_token_heals_up_to_its_health(base):
    """C17.1, C14.2: the killer's last breath follows the FG's rules; her cap stays her starting health (C3.5)."""
    w = make_work(settle(base, killers=(attrs.evolve(base.killers[0], health=2, breath=1, breath_value=2),)))
    engine.heal_killer(w, 2)
    assert w.killers[0].health == 4


def test_bloodlust_level_effect_fires_once(base):
    """C17.2"""
    w = make_work(settle(base, bloodlust=0, fear=4))
    engine.raise_bloodlust(w, 1)
    assert (w.bloodlust, w.fear) == (1, 5)
    engine.lower_bloodlust(w, 1)
    engine.raise_bloodlust(w, 1)
    assert (w.bloodlust, w.fear) == (1, 5)


def test_bloodlust_at_maximum_resolves_top_effect(base):
    """C17.2"""
    w = make_work(settle(base, bloodlust=2, time=6, dark_revealed=True))
    engine.raise_bloodlust(w, 2)
    assert w.bloodlust == 2 and w.time == 4


def test_dark_power_revealed_when_bloodlust_reaches_its_level(base):
    """C17.3"""
    assert not base.dark_revealed and not base.finale_revealed
    w = make_work(settle(base, bloodlust=1, fear=4))
    engine.raise_bloodlust(w, 1)
    assert w.dark_revealed and w.fear == 5  # t-dark: when revealed, raise fear 1
    assert "C17.3" in rules_of(w)


def test_finale_and_dark_power_drawn_from_normal_cards_unless_legendary(rs):
    """C17.3"""
    normal_f = {f.id for f in rs.killers["big-bad-wolf"].finales if not f.legendary}
    normal_d = {d.id for d in rs.killers["big-bad-wolf"].dark_powers if not d.legendary}
    assert len(normal_f) == 3 and len(normal_d) == 3
    plain = [api.new_game(rs, seed=k)[0] for k in range(16)]
    assert all(s.finale in normal_f and s.dark_power in normal_d for s in plain)
    assert len({s.finale for s in plain}) > 1
    leg = [api.new_game(rs, seed=k, legendary=True)[0] for k in range(24)]
    assert any(s.finale == "night-without-end" for s in leg)
    assert any(s.dark_power == "hunger-without-bottom" for s in leg)


def test_secondary_dark_power_takes_slot_and_grants_ability(base):
    """C17.4"""
    w = make_work(at(base, kloc=C, fg=A, terror=("t-thorns", "t-quiet"), fear=7))
    dice_before = engine.dice_for(w, base.game.cards["walk"])
    finish_phase(w)
    assert w.secondary == "t-thorns" and w.secondary_health == 2
    assert w.terror == ("t-quiet",)
    assert engine.dice_for(w, base.game.cards["walk"]) == dice_before + 1  # its rule dice +1


def test_secondary_dark_power_absorbs_damage_then_is_removed(base):
    """C17.4"""
    s = settle(base, secondary="t-thorns", secondary_health=2, fear=7)
    w = make_work(s)
    engine.damage_killer(w, 0, 1)
    assert w.secondary_health == 1 and w.killers[0].health == 5
    engine.damage_killer(w, 0, 3)
    assert w.secondary == "" and w.killers[0].health == 3  # 1 absorbed, 2 through
    assert engine.dice_for(w, base.game.cards["walk"]) == 1  # the ability is gone


def test_wolf_secondary_dark_power(game):
    """C17.4"""
    s = settle(game, secondary="burr-knotted-coat", secondary_health=2,
               killers=(attrs.evolve(game.killers[0], health=7),))
    w = make_work(s)
    engine.damage_killer(w, 0, 3)  # -1 from its rule, the other 2 absorbed
    assert w.killers[0].health == 7 and w.secondary == ""
    engine.damage_killer(w, 0, 3)
    assert w.killers[0].health == 4


def test_every_minion_keeps_its_turn_when_another_dies(base):
    """C8.3: minions act in order; one removed during the action does not cost the next its turn."""
    m = base.game.minions
    kind = next(iter(m))
    s = settle(base, minions=(MinionState(kind, A, 1, frozenset(), 1), MinionState(kind, E, 1, frozenset(), 2)),
               minion_seq=2)
    w = make_work(s)
    acted = []
    real = engine.enemy_act

    def spy(w_, piece, *a):
        acted.append(w_.minions[piece[1]].uid)
        if piece[1] == 0:  # the first minion's action removes it (as a reaction hitting back would)
            w_.minions = w_.minions[1:]
            return
        return real(w_, piece, *a)

    with pytest.MonkeyPatch.context() as mp:
        patch_engine(mp, "enemy_act", spy)
        engine.hunt(w, "minions", "fg", 1, 0)
    assert acted == [1, 2]


@pytest.mark.parametrize("lines, code, needle", [
    ("out of reach stay\n  out of reach hunt fg", "E206", "given twice"),
    ("out of reach wander", "E205", "out of reach stay"),
])
def test_C9_8_the_player_boards_out_of_reach_line_is_checked(tmp_path, lines, code, needle):
    """C9.8: the player board says once, in one of two ways, what an enemy with no target in reach
    does; anything else is a located diagnostic, and 'stay' is read as written."""
    from lastbreath.dsl import load_content

    board = ('player_board other-board {\n  side normal {\n    time reset 6\n    time range -1 10\n'
             '    fear range 0 9\n    zone 0 9 dice 2\n  }\n  last breath 0 0 1\n  ' + lines + '\n}\n')
    f = tmp_path / "board.fg"
    f.write_text(board, encoding="utf-8")
    rs, diags = load_content([f])
    assert rs is None and [d.code for d in diags] == [code] and needle in diags[0].message + diags[0].hint
    f.write_text(board.replace(lines, "out of reach stay"), encoding="utf-8")
    rs, diags = load_content([f])
    assert diags == [] and rs.player_boards["other-board"].out_of_reach == "stay"
