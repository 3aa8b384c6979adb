"""Rule-level tests of the core rules: C1–C7, C11, C13, C14, C16, C18 (docs/rules.md).

Each test names the rule id(s) it checks in its docstring, so `grep -r C5.3 tests/` finds it.
Dice are controlled by choosing the state's rng counter (see ``rig``); otherwise the tests
assert properties that hold for any roll (how many dice were drawn, …).
"""

from __future__ import annotations

import attrs
import pytest
from conftest import counter_for, finish_phase, load_with, make_work, need, rig, rules_of, settle

from lastbreath.dsl.diagnostics import IllegalChoice
from lastbreath.interpreter import api, engine, rng
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import HeldItem

# --- test content: effect phrases on items (C3.4) and cards for tiers and rerolls ------------
EXTRA = """
card t-tiers {
  name "Tiers"
  cost 9
  fail { lose 1 time }
  success { lose 2 time }
  great { gain 2 time; lose 1 time }
  best { gain 3 time }
}

card t-reroll-one {
  name "Reroll One"
  kind reroll
  cost 9
  reroll 1
}

item t-v-heal { name "V heal"; use time 0 { heal 2 } }
item t-v-hurt { name "V hurt"; use time 0 { lose 2 health } }
item t-v-fear-up { name "V fear up"; use time 0 { raise fear 2 } }
item t-v-fear-down { name "V fear down"; use time 0 { lower fear 2 } }
item t-v-time-up { name "V time up"; use time 0 { gain 2 time } }
item t-v-time-down { name "V time down"; use time 0 { lose 2 time } }
item t-v-end { name "V end"; use time 0 { end action phase } }
item t-v-move { name "V move"; use time 0 { move up to 1 } }
item t-v-hit { name "V hit"; use time 0 { deal 2 damage } }
item t-v-search { name "V search"; use time 0 { search take 1 } }
item t-watch { name "Pocket Watch"; at start of upkeep { gain 2 time } }
"""


@pytest.fixture(scope="module")
def xrs(tmp_path_factory):
    return load_with(tmp_path_factory.mktemp("core"), EXTRA, "core-extra.fg")


# --- helpers ---------------------------------------------------------------------------------
def loc(state, lid: str) -> int:
    return state.game.board.index[lid]


def killer(state, **kw):
    return (attrs.evolve(state.killers[0], **kw),)



@pytest.fixture()
def st(game):
    """Seed-1 wolf game in Storybook Woods, settled in the Action phase: no victims, the FG at
    the Hollow Gate, the killer at Ferryman's Landing, fear 4, time 6, no lasting event."""
    return settle(game, victims=(0,) * game.game.board.n, fear=4, time=6, events_active=(), phase="action", sub=1)


@pytest.fixture()
def xst(xrs):
    state, _ = api.new_game(xrs, killer="big-bad-wolf", scenario="storybook-woods", final_girl="nell-arden", seed=1)
    return settle(state, victims=(0,) * state.game.board.n, fear=4, time=6, events_active=(), phase="action", sub=1)


# === C1 round structure ======================================================================
def test_phases_follow_action_planning_killer_panic_upkeep_then_next_round(st):
    """C1.1"""
    w = make_work(settle(st, phase="action", sub=0, round=1))
    seen = []
    for _ in range(5):
        engine.next_phase(w)
        seen.append((w.phase, w.round))
    assert seen == [("planning", 1), ("killer", 1), ("panic", 1), ("upkeep", 1), ("action", 2)]


def test_whole_round_through_apply_runs_phases_in_order(game):
    """C1.1"""
    s, _ = engine.apply(game, "end")
    assert s.phase == "planning" and s.round == 1
    s2, ev = engine.apply(s, "done")
    phases = [e.text for e in ev if e.rule == "C1.1"]
    assert phases[0] == "Killer phase"
    assert phases[1] == "Upkeep phase"
    assert phases[2].startswith("round 2: Action phase")
    assert s2.round == 2


# === C2 fear check ===========================================================================
@pytest.mark.parametrize("fear,dice", [(0, 3), (2, 3), (3, 2), (6, 2), (7, 1), (9, 1)])
def test_fear_check_rolls_dice_given_by_fear_zone(st, fear, dice):
    """C2.1, C14.3"""
    w = make_work(settle(st, fear=fear, hand=()))
    r0 = w.rng
    engine.fear_check(w, st.game.cards["walk"])
    assert w.rng - r0 == dice
    roll = next(e for e in w.ctl.events if e.rule == "C2.1")
    assert len(roll.text.split("[")[1].split(",")) == dice


@pytest.mark.parametrize("face,succ", [(1, 0), (2, 0), (5, 1), (6, 1)])
def test_die_one_two_fail_five_six_succeed(st, face, succ):
    """C2.2"""
    w = make_work(rig(st, [face], fear=7, hand=("walk", "focus", "focus")))
    assert engine.fear_check(w, st.game.cards["walk"]) == succ


def test_three_or_four_is_a_failure_unless_converted(st):
    """C2.2"""
    w = make_work(rig(st, [3], fear=7, hand=("walk", "focus", "focus")), ["accept"])
    assert engine.fear_check(w, st.game.cards["walk"]) == 0
    assert len(w.hand) == 3


def test_convert_a_three_four_by_discarding_two_cards(st):
    """C2.2, C3.2"""
    state = rig(st, [3], fear=7, hand=("focus", "short-rest", "walk"))
    c = need(make_work(state), engine.fear_check, st.game.cards["walk"])
    assert "convert" in c.keys()
    w = make_work(state, ["convert", "discard:focus", "discard:walk"])
    assert engine.fear_check(w, st.game.cards["walk"]) == 1
    assert w.hand == ("short-rest",)
    assert sorted(w.spent) == ["focus", "walk"]
    assert rules_of(w).count("C2.2") == 3  # two discards and the conversion


def test_converting_costs_two_cards_per_die(st):
    """C2.2"""
    state = rig(st, [4, 3], fear=3, hand=("focus", "focus", "walk", "walk"))
    w = make_work(state, ["convert", "discard:focus", "discard:focus", "convert", "discard:walk", "discard:walk"])
    assert engine.fear_check(w, st.game.cards["short-rest"]) == 2
    assert w.hand == ()
    assert len(w.spent) == 4


def test_conversion_not_offered_with_fewer_than_two_cards_or_no_three_four(st):
    """C2.2"""
    w = make_work(rig(st, [4], fear=7, hand=("walk",)))
    assert engine.fear_check(w, st.game.cards["walk"]) == 0  # no choice was needed
    w = make_work(rig(st, [2], fear=7, hand=("walk", "walk", "focus")))
    assert engine.fear_check(w, st.game.cards["walk"]) == 0
    # a single 3-4 converts once only
    w = make_work(rig(st, [3, 1], fear=3, hand=("walk", "walk", "focus", "focus")),
                  ["convert", "discard:walk", "discard:walk"])
    assert engine.fear_check(w, st.game.cards["walk"]) == 1
    assert len(w.hand) == 2


def test_outcome_tier_by_number_of_successes(rs):
    """C2.3"""
    planning, walk = rs.cards["planning"], rs.cards["walk"]
    assert [engine.outcome_for(planning, k).min_successes for k in range(5)] == [0, 1, 2, 3, 3]
    assert [engine.outcome_for(walk, k).min_successes for k in range(5)] == [0, 1, 2, 2, 2]


@pytest.mark.parametrize("faces,time,fear", [
    ([1, 2, 4], 5, 2),  # failure: lose 1 time
    ([6, 2, 1], 7, 1),  # success: gain 1 time, lower fear 1
    ([6, 5, 1], 8, 1),  # great: gain 2 time, lower fear 1
    ([6, 5, 6], 9, 0),  # 3+: the card's best tier: gain 3 time, lower fear 2
])
def test_played_card_resolves_the_outcome_for_its_successes(st, faces, time, fear):
    """C2.3, C3.9"""
    w = make_work(rig(st, faces, fear=2, time=6, hand=("planning",)), ["accept"])
    engine.play_card(w, "planning", Ctx(source="planning"))
    assert (w.time, w.fear) == (time, fear)


def test_outcome_effects_resolve_left_to_right(xst, xrs):
    """C2.3"""
    # great { gain 2 time; lose 1 time } at time 9 of 10: left to right 10 then 9 (right to left: 8 then 10)
    w = make_work(settle(xst, time=9))
    engine.run(w, xrs.cards["t-tiers"].outcomes[2].effects, Ctx())
    assert w.time == 9


def test_card_dice_modifier_adds_dice(st):
    """C2.4, C3.4"""
    w = make_work(settle(st, fear=7))
    assert engine.dice_for(w, st.game.cards["critical-blow"]) == 2
    assert engine.dice_for(w, st.game.cards["walk"]) == 1


def test_at_least_one_die_and_no_maximum(st):
    """C2.4"""
    w = make_work(settle(st, fear=7, dark_power="lamp-yellow-eyes", dark_revealed=True))
    assert engine.dice_for(w, st.game.cards["walk"]) == 1  # 1 - 1 = 0, but at least one
    w = make_work(settle(st, fear=0, dark_power="lamp-yellow-eyes", dark_revealed=True))
    assert engine.dice_for(w, st.game.cards["walk"]) == 2
    # every bonus together: 3 (zone) + 1 (card) + 1 (flipped FG) + 2 (adrenaline)
    w = make_work(settle(st, fear=0, flipped=True, fg_health=0, killers=killer(st, health=0)))
    assert engine.dice_for(w, st.game.cards["critical-blow"]) == 7


@pytest.mark.parametrize("fg_health,fg_breath,k_health,dice", [
    (2, 2, 3, 1), (0, 2, 3, 2), (0, 1, 3, 2), (2, 2, 0, 2), (0, 2, 0, 3)])
def test_adrenaline_extra_die_on_last_breath(st, fg_health, fg_breath, k_health, dice):
    """C2.5, C14.2"""
    w = make_work(settle(st, fear=7, fg_health=fg_health, fg_breath=fg_breath, killers=killer(st, health=k_health)))
    assert engine.dice_for(w, st.game.cards["walk"]) == dice


def test_reroll_cards_are_not_played_as_actions(st):
    """C2.6, C3.3"""
    c = need(make_work(settle(st, hand=("close-call", "guard", "walk"))), engine.step_action)
    keys = c.keys()
    assert "play:walk" in keys
    assert "play:close-call" not in keys and "play:guard" not in keys
    assert "discard:close-call" in keys and "discard:guard" in keys


def test_reroll_card_rerolls_failed_dice_without_a_check_of_its_own(st):
    """C2.6"""
    state = rig(st, [1, 2, 5], fear=2, hand=("close-call",))
    c = need(make_work(state), engine.fear_check, st.game.cards["walk"])
    assert "reroll:close-call" in c.keys()
    w = make_work(state, ["reroll:close-call"])
    r0 = w.rng
    engine.fear_check(w, st.game.cards["walk"])
    assert w.rng - r0 == 3 + 2  # the check's 3 dice, then only the two fails again
    assert "close-call" not in w.hand and w.spent == ("close-call",)
    rr = next(e for e in w.ctl.events if e.rule == "C2.6")
    assert rr.text.startswith("plays Close Call: [1, 2, 5] -> [") and rr.text.endswith(", 5]")


def test_reroll_fails_card_not_offered_without_failed_dice(st):
    """C2.6"""
    w = make_work(rig(st, [5, 3, 6], fear=2, hand=("close-call",)))
    assert engine.fear_check(w, st.game.cards["walk"]) == 2  # no question: nothing to reroll
    assert w.hand == ("close-call",)


def test_reroll_n_card_rerolls_that_many_non_successes_lowest_first(xst):
    """C2.6"""
    w = make_work(rig(xst, [3, 1, 6], fear=2, hand=("t-reroll-one",)), ["reroll:t-reroll-one"])
    r0 = w.rng
    engine.fear_check(w, xst.game.cards["walk"])
    assert w.rng - r0 == 3 + 1
    rr = next(e for e in w.ctl.events if e.rule == "C2.6")
    after = rr.text.split("-> ")[1]
    assert after.startswith("[3, ") and after.endswith(", 6]")


def test_reaction_cards_make_a_fear_check(st):
    """C2.6, C3.3, C9.6"""
    s = settle(st, fear=7, hand=("guard",), killers=killer(st, loc=st.fg_loc))
    c = need(make_work(s), engine.attack_fg, 1, ("killer", 0))
    assert c.kind == "reaction" and "react:guard" in c.keys()
    w = make_work(s, ["react:guard"])
    r0 = w.rng
    engine.attack_fg(w, 1, ("killer", 0))
    assert w.rng - r0 == 1
    assert any(e.rule == "C2.1" and "Guard" in e.text for e in w.ctl.events)
    assert w.spent == ("guard",)


# === C3 action cards and time ================================================================
def test_buying_pays_the_printed_cost(st):
    """C3.1, C7.1"""
    w = make_work(settle(st, phase="planning", sub=1, time=6), ["buy:search"])
    engine.step_planning(w)
    assert w.time == 4
    assert "search" in w.hand
    assert w.market.count("search") == st.market.count("search") - 1


def test_every_core_outcome_states_its_time(rs):
    """C3.1"""
    from lastbreath.dsl import nodes as n
    for c in rs.cards.values():
        if c.owner or c.kind == "reroll":
            continue
        for o in c.outcomes:
            assert any(isinstance(e, (n.GainTime, n.LoseTime)) for e in o.effects), (c.id, o.min_successes)


def test_discarding_a_card_gains_one_time(game):
    """C3.2"""
    t, hand = game.time, game.hand
    s, ev = engine.apply(game, "discard:walk")
    assert s.time == t + 1
    assert len(s.hand) == len(hand) - 1 and s.hand.count("walk") == hand.count("walk") - 1
    assert s.spent == ("walk",)
    assert any(e.rule == "C3.2" for e in ev)


def test_illegal_choice_leaves_state_untouched(game):
    """C3.2"""
    before = dict(game.__dict__)
    with pytest.raises(IllegalChoice):
        engine.apply(game, "discard:critical-blow")
    assert game.__dict__ == before
    s, _ = engine.apply(game, "discard:walk")  # the untouched state still plays on
    assert s.time == game.time + 1


VOCAB = [
    ("t-v-heal", dict(fg_health=3), [], lambda w: w.fg_health == 5),
    ("t-v-hurt", dict(fg_health=5), [], lambda w: w.fg_health == 3),
    ("t-v-fear-up", dict(fear=4), [], lambda w: w.fear == 6),
    ("t-v-fear-down", dict(fear=4), [], lambda w: w.fear == 2),
    ("t-v-time-up", dict(time=4), [], lambda w: w.time == 6),
    ("t-v-time-down", dict(time=4), [], lambda w: w.time == 2),
    ("t-v-end", dict(), [], lambda w: w.action_over),
    ("t-v-move", dict(), ["move:bramble-thicket"], lambda w: w.fg_loc == 2),
    ("t-v-hit", dict(fg_loc=11), [], lambda w: w.killers[0].health == 5),
    ("t-v-search", dict(fg_loc=3, piles=((("honey-cakes", True),), (), ())), [],
     lambda w: [h.id for h in w.pack] == ["honey-cakes"]),
]


@pytest.mark.parametrize("item,fields,answers,check", VOCAB, ids=[v[0] for v in VOCAB])
def test_effect_vocabulary(xst, xrs, item, fields, answers, check):
    """C3.4"""
    w = make_work(settle(xst, **fields), answers)
    engine.run(w, xrs.items[item].use.effects, Ctx())
    assert check(w)


def test_health_never_exceeds_starting_health(st):
    """C3.5"""
    w = make_work(settle(st, fg_health=5))
    engine.heal(w, 3)
    assert w.fg_health == st.game.fg.health == 6
    engine.heal(w, 1)
    assert w.fg_health == 6


def test_lowering_fear_at_minimum_gains_time(st):
    """C3.6"""
    w = make_work(settle(st, fear=1, time=4))
    engine.lower_fear(w, 3)
    assert (w.fear, w.time) == (0, 6)
    assert [e.text for e in w.ctl.events if e.rule == "C3.6"] == ["fear is at its minimum: gains 2 time instead"]


def test_raising_fear_at_maximum_raises_bloodlust(st):
    """C3.6"""
    w = make_work(settle(st, fear=8, bloodlust=0))
    engine.raise_fear(w, 2)
    assert (w.fear, w.bloodlust) == (9, 1)


def test_time_stays_on_track_and_cannot_be_gained_below_zero(st):
    """C3.7, C14.4"""
    side = st.game.side
    assert (side.time_min, side.time_max) == (-1, 10)
    w = make_work(settle(st, time=9))
    engine.gain_time(w, 3)
    assert w.time == 10
    w = make_work(settle(st, time=0))
    engine.lose_time(w, 3)
    assert w.time == -1
    engine.gain_time(w, 2)
    assert w.time == -1
    engine.lower_fear(w, 10)  # at minimum fear, would gain time: still nothing below 0
    assert w.time == -1 and w.fear == 0


def test_unarmed_damage_needs_the_same_location(st):
    """C3.8"""
    near = make_work(settle(st, killers=killer(st, loc=st.fg_loc, health=7)))
    engine.fg_attack(near, 2, Ctx())
    assert near.killers[0].health == 5
    far = make_work(settle(st, killers=killer(st, loc=loc(st, "sugar-roof-cottage"), health=7)))
    engine.fg_attack(far, 2, Ctx())
    assert far.killers[0].health == 7
    assert "C3.8" in rules_of(far)


def test_weapon_in_hand_adds_its_bonus(st):
    """C3.8"""
    s = settle(st, held=(HeldItem("hearth-poker", 0),), killers=killer(st, loc=st.fg_loc, health=7))
    c = need(make_work(s), engine.fg_attack, 2, Ctx())
    assert set(c.keys()) == {"killer:0", "killer:0+hearth-poker"}
    w = make_work(s, ["killer:0+hearth-poker"])
    engine.fg_attack(w, 2, Ctx())
    assert w.killers[0].health == 4


def test_only_one_weapon_per_instance_of_damage(st):
    """C3.8, C6.5"""
    s = settle(st, held=(HeldItem("hearth-poker", 0), HeldItem("tailors-shears", 2)),
               killers=killer(st, loc=st.fg_loc, health=7))
    c = need(make_work(s), engine.fg_attack, 1, Ctx())
    assert set(c.keys()) == {"killer:0", "killer:0+hearth-poker", "killer:0+tailors-shears"}
    w = make_work(s, ["killer:0+tailors-shears"])
    engine.fg_attack(w, 1, Ctx())
    assert w.killers[0].health == 7 - 3  # 1 + shears 2, not + poker too


def test_weapon_range_is_exact(st):
    """C3.8"""
    sling = (HeldItem("shepherds-sling", 3),)
    one_away = settle(st, held=sling, killers=killer(st, loc=loc(st, "sugar-roof-cottage"), health=7))
    w = make_work(one_away)
    engine.fg_attack(w, 1, Ctx())  # the only option: the sling at range 1
    assert w.killers[0].health == 5
    assert w.held[0].uses == 2  # C6.4: one use spent
    two_away = settle(st, held=sling, killers=killer(st, loc=loc(st, "woodcutters-camp"), health=7))
    w = make_work(two_away)
    engine.fg_attack(w, 1, Ctx())
    assert w.killers[0].health == 7
    same = settle(st, held=sling, killers=killer(st, loc=st.fg_loc, health=7))
    w = make_work(same)
    engine.fg_attack(w, 1, Ctx())  # range 1 does not reach range 0: unarmed only
    assert w.killers[0].health == 6 and w.held[0].uses == 3


def test_weapon_bonus_needs_at_least_one_card_damage(st):
    """C3.8"""
    s = settle(st, held=(HeldItem("hearth-poker", 0),), killers=killer(st, loc=st.fg_loc, health=7))
    w = make_work(s, ["killer:0+hearth-poker"])
    engine.fg_attack(w, 0, Ctx())
    assert w.killers[0].health == 7


def test_weapon_in_backpack_gives_no_bonus(st):
    """C3.8, C6.5"""
    w = make_work(settle(st, pack=(HeldItem("hearth-poker", 0),), killers=killer(st, loc=st.fg_loc, health=7)))
    engine.fg_attack(w, 1, Ctx())  # one option only: unarmed
    assert w.killers[0].health == 6


def test_reaction_damage_adds_weapon_bonus(st):
    """C3.8, C9.6: Retaliate's 'deal 2 damage' with a poker in hand at range 0 deals 3."""
    s = rig(st, [6, 6, 6], fear=2, hand=("retaliate",), held=(HeldItem("hearth-poker", 0),),
            killers=killer(st, loc=st.fg_loc, health=7))
    w = make_work(s, ["react:retaliate", "killer:0+hearth-poker"])
    engine.attack_fg(w, 2, ("killer", 0))
    assert w.fg_health == 6  # 2 prevented
    assert w.killers[0].health == 7 - 3


CORE_DECK = {  # id: (name, cost, copies, starts in hand)
    "walk": ("Walk", 0, 2, True), "focus": ("Focus", 0, 2, True), "weak-attack": ("Weak Attack", 0, 1, True),
    "short-rest": ("Short Rest", 0, 1, True), "close-call": ("Close Call", 1, 2, False),
    "search": ("Search", 2, 2, False), "sprint": ("Sprint", 2, 2, False), "guard": ("Guard", 2, 2, False),
    "improvise": ("Improvise", 3, 2, False), "distraction": ("Distraction", 3, 2, False),
    "planning": ("Planning", 4, 1, False), "furious-attack": ("Furious Attack", 4, 1, False),
    "retaliate": ("Retaliate", 4, 1, False), "long-rest": ("Long Rest", 5, 1, False),
    "critical-blow": ("Critical Blow", 6, 1, False),
}


def test_core_deck_shape(rs, game):
    """C3.9, C3.3"""
    core = {cid: c for cid, c in rs.cards.items() if not c.owner}
    assert {cid: (c.name, c.cost, c.copies, c.start_in_hand) for cid, c in core.items()} == CORE_DECK
    assert sum(c.copies for c in core.values()) == 23
    assert sorted(game.checkpoint.hand) == ["focus", "focus", "short-rest", "walk", "walk", "weak-attack"]
    assert core["close-call"].kind == "reroll"
    assert {cid for cid, c in core.items() if c.kind == "reaction"} == {"guard", "retaliate"}


# === C4 action phase =========================================================================
def test_action_phase_ends_when_time_below_zero(st):
    """C4.1"""
    w = make_work(settle(st, time=-1))
    engine.step_action(w)
    assert w.phase == "planning"
    assert "C4.1" in rules_of(w)


def test_action_phase_goes_on_at_exactly_zero_time(st):
    """C4.1"""
    c = need(make_work(settle(st, time=0)), engine.step_action)
    assert c.kind == "action"


def test_action_phase_ends_when_hand_is_empty(st):
    """C4.1"""
    w = make_work(settle(st, hand=()))
    engine.step_action(w)
    assert w.phase == "planning"


def test_end_action_phase_effect_ends_it(st):
    """C4.1"""
    w = make_work(settle(st))
    engine.run(w, [st.game.items["sleeping-draught"].use.effects[-1]], Ctx())
    assert w.action_over
    engine.step_action(w)
    assert w.phase == "planning"


def test_player_may_end_action_phase(game):
    """C4.1"""
    s, ev = engine.apply(game, "end")
    assert s.phase == "planning"
    assert any(e.rule == "C4.1" for e in ev)


# === C5 movement, victims, rescue ============================================================
def test_move_goes_to_adjacent_locations_up_to_n_times(st):
    """C5.1"""
    c = need(make_work(st), engine.move_fg, 2)
    assert set(c.keys()) == {"stop", "move:sugar-roof-cottage", "move:bramble-thicket"}
    w = make_work(st, ["move:sugar-roof-cottage", "move:woodcutters-camp"])
    engine.move_fg(w, 2)  # a third question would raise NeedChoice
    assert w.fg_loc == loc(st, "woodcutters-camp")
    w = make_work(st, ["stop"])
    engine.move_fg(w, 2)
    assert w.fg_loc == st.fg_loc


def test_fg_may_enter_and_pass_through_killer_location(st):
    """C5.2"""
    s = settle(st, killers=killer(st, loc=loc(st, "sugar-roof-cottage")), fg_health=4)
    w = make_work(s, ["move:sugar-roof-cottage", "move:woodcutters-camp"])
    engine.move_fg(w, 2)
    assert w.fg_loc == loc(st, "woodcutters-camp")
    assert w.fg_health == 4 and w.time == s.time
    w = make_work(s, ["move:sugar-roof-cottage"])
    engine.move_fg(w, 1)
    assert w.fg_loc == loc(st, "sugar-roof-cottage") and w.fg_health == 4


def _victims(st, **at):
    v = [0] * st.game.board.n
    for k, c in at.items():
        v[loc(st, k.replace("_", "-"))] = c
    return tuple(v)


def test_up_to_two_victims_follow(st):
    """C5.3"""
    s = settle(st, fg_loc=loc(st, "bramble-thicket"), victims=_victims(st, bramble_thicket=3))
    c = need(make_work(s, ["move:woodcutters-camp"]), engine.move_fg, 1)
    assert c.kind == "follow" and c.keys() == ["follow:2", "follow:1", "follow:0"]
    w = make_work(s, ["move:woodcutters-camp", "follow:2"])
    engine.move_fg(w, 1)
    assert w.victims[loc(st, "bramble-thicket")] == 1 and w.victims[loc(st, "woodcutters-camp")] == 2


def test_victims_never_follow_into_killer_location(st):
    """C5.3"""
    s = settle(st, fg_loc=loc(st, "bramble-thicket"), victims=_victims(st, bramble_thicket=2),
               killers=killer(st, loc=loc(st, "woodcutters-camp")))
    w = make_work(s, ["move:woodcutters-camp"])
    engine.move_fg(w, 1)  # no follow question
    assert w.fg_loc == loc(st, "woodcutters-camp")
    assert w.victims[loc(st, "bramble-thicket")] == 2 and w.victims[loc(st, "woodcutters-camp")] == 0


def test_victims_never_follow_through_killer_location(st):
    """C5.3"""
    s = settle(st, fg_loc=loc(st, "bramble-thicket"), victims=_victims(st, bramble_thicket=2),
               killers=killer(st, loc=loc(st, "woodcutters-camp")))
    w = make_work(s, ["move:woodcutters-camp", "move:sugar-roof-cottage"])
    engine.move_fg(w, 2)
    assert w.fg_loc == loc(st, "sugar-roof-cottage")
    assert w.victims[loc(st, "bramble-thicket")] == 2 and sum(w.victims) == 2


def test_victims_escape_at_an_exit_and_are_rescued(st):
    """C5.4, C5.5"""
    s = settle(st, fg_loc=loc(st, "sugar-roof-cottage"), victims=_victims(st, sugar_roof_cottage=1), fear=4)
    w = make_work(s, ["move:hollow-gate", "follow:1", "rescue", "slot:2"])
    engine.move_fg(w, 1)
    assert w.rescued == 1 and sum(w.victims) == 0
    assert w.slots == (False, True, False, False)
    assert w.fear == 3  # Nell's slot 2: lower fear 1
    assert "C5.4" in rules_of(w) and "C5.5" in rules_of(w)


def test_rescue_offered_in_action_phase_at_exit(st):
    """C5.4"""
    s = settle(st, victims=_victims(st, hollow_gate=2))
    c = need(make_work(s), engine.step_action)
    assert "rescue" in c.keys()
    c2 = need(make_work(settle(st, victims=_victims(st, sugar_roof_cottage=2))), engine.step_action)
    assert "rescue" not in c2.keys()


def test_rescued_victim_goes_on_an_empty_slot_of_players_choice(st):
    """C5.5, C16.1"""
    s = settle(st, victims=_victims(st, hollow_gate=1), slots=(True, False, False, False), time=5)
    c = need(make_work(s), engine.rescue_here)
    assert c.kind == "slot" and c.keys() == ["slot:2", "slot:3", "slot:4"]
    w = make_work(s, ["slot:4"])
    engine.rescue_here(w)
    assert w.slots == (True, False, False, True) and w.time == 7  # slot 4: gain 2 time


def test_meeting_rescue_count_flips_the_fg_card(st):
    """C5.6, C16.1"""
    s = settle(st, victims=_victims(st, hollow_gate=2), slots=(True, True, True, False), time=5, fear=4)
    w = make_work(s)
    engine.rescue_here(w)  # slot 4 is the only one left: no question
    assert w.flipped and w.slots == (False, False, False, False)
    assert w.rescued == 2
    assert w.time == 5 + 2 + 1 and w.fear == 3  # slot 4 reward, then the flipped reward
    assert "C5.6" in rules_of(w)
    assert engine.dice_for(w, st.game.cards["walk"]) == 3  # fear 3: 2 dice, +1 flipped ability


def test_ruth_flips_after_five_rescues(rs):
    """C16.1, C5.6"""
    state, _ = api.new_game(rs, final_girl="ruth-okafor", seed=2)
    s = settle(state, victims=tuple(1 if i == state.fg_loc else 0 for i in range(state.game.board.n)),
               slots=(True, True, True, False, False), fg_loc=state.game.board.index["hollow-gate"])
    s = settle(s, victims=tuple(1 if i == s.fg_loc else 0 for i in range(s.game.board.n)))
    w = make_work(s, ["slot:4"])
    engine.rescue_here(w)
    assert not w.flipped and w.slots == (True, True, True, True, False)
    assert state.game.fg.rescues == 5 and len(state.game.fg.slots) == 5


def test_C5_7_victims_come_from_a_limited_supply(st):
    """C5.7 (issue #34): setup takes its victims from the supply (30 by default, the player
    board's data); an effect adds only as many victims as are left, none once it is empty; dead and
    rescued victims do not return to it."""
    from lastbreath.dsl import nodes as n

    assert st.game.victim_supply == 30 and st.game.player_board.victim_supply == 30
    place = (n.PlaceVictims(None, 3, "hollow-gate"),)
    w = make_work(settle(st, victims_taken=28, dead=5))
    engine.run(w, place, Ctx())
    assert w.victims[loc(st, "hollow-gate")] == 2 and w.victims_taken == 30
    assert "the victim supply has 2 victims left: only 2 of 3 appear" in [e.text for e in w.ctl.events]
    engine.run(w, place, Ctx())
    assert w.victims[loc(st, "hollow-gate")] == 2
    assert any(e.rule == "C5.7" and "none appear" in e.text for e in w.ctl.events)


def test_C5_7_setup_takes_the_setup_cards_victims_from_the_supply(rs):
    """C5.7: a fresh game has taken the victims its setup card placed (and any its first event
    placed: on the board then, as no victim has died or escaped yet)."""
    for seed in range(6):
        state, _ = api.new_game(rs, seed=seed)
        placed = sum(k for _loc, k in next(su for su in state.game.scenario.setups
                                           if su.id == state.setup_card).victims)
        assert state.victims_taken == sum(state.victims) >= placed


# === C6 search and items =====================================================================
def test_search_takes_from_this_locations_pile(st):
    """C6.1"""
    k = st.game.board.pile_of[loc(st, "woodcutters-camp")]
    piles = list(st.piles)
    piles[k] = (("honey-cakes", True), ("herb-poultice", False))
    s = settle(st, fg_loc=loc(st, "woodcutters-camp"), piles=tuple(piles))
    w = make_work(s)
    engine.search(w, 1, 1, look_mode=False)
    assert [h.id for h in w.pack] == ["honey-cakes"]
    assert w.piles[k] == (("herb-poultice", True),)
    assert all(w.piles[j] == s.piles[j] for j in range(len(piles)) if j != k)


def test_search_away_from_search_location_finds_nothing(st):
    """C6.1, C18.1"""
    w = make_work(st)
    engine.search(w, 1, 1, look_mode=False)
    assert w.pack == () and w.held == () and w.piles == st.piles
    assert "C6.1" in rules_of(w)


def _look_state(st):
    k = st.game.board.pile_of[loc(st, "woodcutters-camp")]
    piles = list(st.piles)
    piles[k] = (("honey-cakes", True), ("herb-poultice", False), ("elderberry-wine", False))
    return settle(st, fg_loc=loc(st, "woodcutters-camp"), piles=tuple(piles)), k


def test_look_two_keep_one_return_on_top_face_up(st):
    """C6.2"""
    s, k = _look_state(st)
    w = make_work(s, ["keep:herb-poultice", "top"])
    engine.search(w, 2, 1, look_mode=True)
    assert [h.id for h in w.pack] == ["herb-poultice"]
    assert w.piles[k] == (("honey-cakes", True), ("elderberry-wine", False))


def test_look_two_return_to_bottom_leaves_new_top_face_down(st):
    """C6.2"""
    s, k = _look_state(st)
    c = need(make_work(s), engine.search, 2, 1, True)
    assert set(c.keys()) == {"keep:honey-cakes", "keep:herb-poultice"}
    w = make_work(s, ["keep:honey-cakes", "bottom"])
    engine.search(w, 2, 1, look_mode=True)
    assert [h.id for h in w.pack] == ["honey-cakes"]
    assert w.piles[k] == (("elderberry-wine", False), ("herb-poultice", False))


def test_empty_pile_yields_nothing(st):
    """C6.3"""
    k = st.game.board.pile_of[loc(st, "woodcutters-camp")]
    piles = list(st.piles)
    piles[k] = ()
    w = make_work(settle(st, fg_loc=loc(st, "woodcutters-camp"), piles=tuple(piles)))
    engine.search(w, 2, 1, look_mode=True)
    assert w.pack == () and w.held == ()
    assert "C6.3" in rules_of(w)


def test_item_uses_run_out_and_discard_it(st):
    """C6.4"""
    s = settle(st, pack=(HeldItem("honey-cakes", 2),), fg_health=3, time=6)
    w = make_work(s, ["use:honey-cakes"])
    engine.step_action(w)
    assert (w.fg_health, w.time, w.pack) == (4, 5, (HeldItem("honey-cakes", 1),))
    w2 = make_work(settle(s, pack=w.pack, fg_health=4, time=5), ["use:honey-cakes"])
    engine.step_action(w2)
    assert w2.fg_health == 5 and w2.pack == ()
    assert "C6.4" in rules_of(w2)


def test_hands_hold_two_one_handed_or_one_two_handed(st):
    """C6.5"""
    c = need(make_work(st), engine.gain_item, "hearth-poker", "")
    assert c.keys() == ["hand", "pack"]
    one = settle(st, held=(HeldItem("hearth-poker", 0),))
    c = need(make_work(one), engine.gain_item, "woodcutters-axe", "")
    assert set(c.keys()) == {"pack", "swap:hearth-poker"}
    w = make_work(one, ["swap:hearth-poker"])
    engine.gain_item(w, "woodcutters-axe", "")
    assert [h.id for h in w.held] == ["woodcutters-axe"] and [h.id for h in w.pack] == ["hearth-poker"]
    two = settle(st, held=(HeldItem("hearth-poker", 0), HeldItem("arden-billhook", 0)))
    c = need(make_work(two), engine.gain_item, "tailors-shears", "")
    assert "hand" not in c.keys() and "pack" in c.keys()
    axe = settle(st, held=(HeldItem("woodcutters-axe", 0),))
    c = need(make_work(axe), engine.gain_item, "hearth-poker", "")
    assert "hand" not in c.keys()


def test_non_weapons_go_to_the_backpack_without_limit(st):
    """C6.5"""
    many = tuple(HeldItem("herb-poultice", 1) for _ in range(6))
    w = make_work(settle(st, pack=many))
    engine.gain_item(w, "honey-cakes", "")  # no question
    assert len(w.pack) == 7 and w.held == ()


def test_hands_and_backpack_rearranged_only_on_gain_and_upkeep(st):
    """C6.5, C11.3"""
    s = settle(st, held=(HeldItem("hearth-poker", 0),), pack=(HeldItem("arden-billhook", 0),))
    c = need(make_work(s), engine.step_action)
    assert not any(k.startswith(("to-pack", "to-hand", "swap")) for k in c.keys())
    c = need(make_work(settle(s, phase="upkeep", sub=1)), engine.step_upkeep)
    assert {"to-pack:hearth-poker", "to-hand:arden-billhook"} <= set(c.keys())


# === C7 planning =============================================================================
def _planning(st, **fields):
    return settle(st, phase="planning", sub=1, **fields)


def test_cards_played_since_last_planning_cannot_be_bought(st):
    """C7.2, C7.6"""
    s = _planning(st, spent=("walk", "sprint"), hand=("focus",), time=6,
                  market=tuple(c for c in st.market if c != "sprint"))
    c = need(make_work(s), engine.step_planning)
    assert "buy:walk" not in c.keys() and "buy:sprint" not in c.keys()
    w = make_work(s, ["done"])
    engine.step_planning(w)
    assert w.spent == () and "walk" in w.market and "sprint" in w.market
    assert "C7.6" in rules_of(w)
    c2 = need(make_work(settle(w.freeze(), phase="planning", sub=1)), engine.step_planning)
    assert "buy:walk" in c2.keys() and "buy:sprint" in c2.keys()


def test_purchases_in_one_lean_step_list_the_market_in_its_order(st):
    """C7.1, C7.3: in a lean step (no checkpoint: the purchases follow one another in one call) each
    menu lists the market's cards once, in the order they first stand in it, after every purchase:
    the last copy bought leaves the menu, and a card whose next copy stands further on moves there."""
    cards = st.game.cards
    a, b = sorted(set(st.market), key=lambda c: (cards[c].cost, c))[:2]  # the two cheapest (time 6 buys a, a, b)
    assert cards[a].copies >= 2 and 2 * cards[a].cost + cards[b].cost <= 6
    seen = []

    def choose(options):  # buy every copy of a, then b, then stop
        keys = [o.key for o in options]
        seen.append(keys)
        for want in (f"buy:{a}", f"buy:{b}", "done"):
            if want in keys:
                return keys.index(want)

    w = make_work(_planning(st, time=6, hand=("walk",), market=(a, b, a)))
    ctl = w.ctl
    ctl.lean, ctl.budget, ctl.choose, ctl.keys = True, 50, choose, []
    engine.step_planning(w)
    assert seen == [["done", f"buy:{a}", f"buy:{b}"], ["done", f"buy:{b}", f"buy:{a}"], ["done", f"buy:{b}"]]
    assert w.phase == "killer" and w.hand.count(a) == 2 and b in w.hand and w.market == ()


def test_purchase_never_takes_time_below_zero(st):
    """C7.3, C7.1"""
    c = need(make_work(_planning(st, time=1)), engine.step_planning)
    assert set(c.keys()) == {"done", "buy:close-call"}
    w = make_work(_planning(st, time=1, hand=("walk",)), ["buy:close-call"])
    engine.step_planning(w)
    assert w.time == 0 and sorted(w.hand) == ["close-call", "walk"]


def test_purchase_never_takes_hand_above_ten(st):
    """C7.3"""
    full = ("walk",) * 2 + ("focus",) * 2 + ("short-rest", "weak-attack") + ("guard",) * 2 + ("sprint",) * 2
    w = make_work(_planning(st, time=6, hand=full, market=st.market + ("walk",)))
    engine.step_planning(w)  # only "stop buying" is offered: no question, the phase ends
    assert len(w.hand) == 10 and w.phase == "killer"
    assert "C7.1" not in rules_of(w)


def test_zero_cost_cards_always_buyable(st):
    """C7.4"""
    s = _planning(st, time=-1, hand=("focus",), market=st.market + ("walk",))
    c = need(make_work(s), engine.step_planning)
    assert "buy:walk" in c.keys() and "buy:close-call" not in c.keys()
    w = make_work(s, ["buy:walk"])
    engine.step_planning(w)
    assert w.time == -1 and "walk" in w.hand


def test_time_resets_after_buying(st, rs):
    """C7.5, C14.6"""
    w = make_work(_planning(st, time=2), ["done"])
    engine.step_planning(w)
    assert w.time == 6 and w.phase == "killer"
    ext, _ = api.new_game(rs, difficulty="extreme", seed=1)
    w = make_work(settle(ext, phase="planning", sub=1, time=1), ["done"])
    engine.step_planning(w)
    assert w.time == 5


# === C11 upkeep ==============================================================================
def test_finale_revealed_in_upkeep_when_terror_deck_empty(st):
    """C11.1, C17.3"""
    w = make_work(settle(st, phase="upkeep", sub=0, terror=(), finale="moon-over-the-pines", fear=4))
    engine.step_upkeep(w)
    assert w.finale_revealed and w.fear == 6  # its 'when revealed': raise fear 2
    assert "C11.1" in rules_of(w)
    w = make_work(settle(st, phase="upkeep", sub=0, terror=("torn-hem",)))
    engine.step_upkeep(w)
    assert not w.finale_revealed


def test_a_face_down_dark_power_is_revealed_with_the_finale(st):
    """C11.1: the terror deck is empty, the finale is revealed, and the dark power still face down
    is revealed with it (its 'when revealed' resolves too)."""
    dark = st.game.killer.dark_powers[0].id
    w = make_work(settle(st, phase="upkeep", sub=0, terror=(), dark_power=dark, dark_revealed=False))
    engine.step_upkeep(w)
    assert w.finale_revealed and w.dark_revealed
    reveals = [(e.text, e.rule) for e in w.ctl.events if e.kind == "reveal"]
    assert reveals[0][1] == "C11.1" and reveals[1] == (f"the dark power is revealed: "
                                                        f"{st.game.dark_powers[dark].name}", "C11.1")
    w = make_work(settle(st, phase="upkeep", sub=0, terror=(), dark_power=dark, dark_revealed=True))
    engine.step_upkeep(w)
    assert [e.text for e in w.ctl.events if e.kind == "reveal"] == [reveals[0][0]], "revealed once only"


def test_upkeep_effects_resolve_in_upkeep(xst):
    """C11.2"""
    s = settle(xst, pack=(HeldItem("t-watch", 0),), time=3)
    w = make_work(settle(s, phase="upkeep", sub=0))
    engine.step_upkeep(w)
    assert w.time == 5
    w = make_work(settle(s, phase="planning", sub=0))
    engine.step_planning(w)
    assert w.time == 3


def test_upkeep_swaps_between_hands_and_backpack(st):
    """C11.3"""
    s = settle(st, phase="upkeep", sub=1, held=(HeldItem("hearth-poker", 0),), pack=(HeldItem("arden-billhook", 0),))
    w = make_work(s, ["to-hand:arden-billhook"])
    engine.step_upkeep(w)
    assert {h.id for h in w.held} == {"hearth-poker", "arden-billhook"} and w.pack == ()
    w = make_work(s, ["to-pack:hearth-poker"])
    engine.step_upkeep(w)
    assert w.held == () and {h.id for h in w.pack} == {"hearth-poker", "arden-billhook"}


def test_time_below_zero_outside_action_skips_next_action_phase(st):
    """C11.4"""
    w = make_work(settle(st, phase="killer", time=1))
    engine.lose_time(w, 2)
    assert w.time == -1 and w.skip_action
    w2 = make_work(settle(w.freeze(), phase="action", sub=0, time=6))
    engine.step_action(w2)
    assert w2.phase == "planning" and not w2.skip_action
    assert any(e.rule == "C11.4" and "skipped" in e.text for e in w2.ctl.events)


def test_time_below_zero_inside_action_phase_skips_nothing(st):
    """C11.4"""
    w = make_work(settle(st, phase="action", time=1))
    engine.lose_time(w, 2)
    assert w.time == -1 and not w.skip_action


# === C13 end of the game =====================================================================
def test_fg_defeated_killer_wins(st):
    """C13.1, C14.2"""
    w = make_work(settle(st, fg_health=0, fg_breath=2, fg_breath_value=0))
    with pytest.raises(engine.GameOver):
        engine.fg_damage(w, 1)
    assert w.result == "killer" and w.phase == "over"


def test_killer_defeated_fg_wins(st):
    """C13.1, C17.1"""
    w = make_work(settle(st, killers=killer(st, health=1, breath=2, breath_value=0)))
    with pytest.raises(engine.GameOver):
        engine.damage_killer(w, 0, 3)
    assert w.result == "fg" and not w.killers[0].alive


def test_no_choice_after_game_over(st):
    """C13.1"""
    s, _ = engine.advance(settle(st, result="killer", phase="over"), (), 0)
    assert s.over and s.choice is None
    with pytest.raises(IllegalChoice):
        engine.apply(s, "end")


def test_both_defeated_at_once_fg_wins(st):
    """C13.2"""
    w = make_work(settle(st, fg_health=0, fg_breath_value=0,
                         killers=killer(st, health=0, breath=0, alive=False)))
    with pytest.raises(engine.GameOver):
        engine.fg_damage(w, 2)
    assert w.result == "fg"
    assert "C13.2" in rules_of(w)


def test_game_end_is_checked_once_the_effect_has_fully_resolved(st):
    """C13.2: the Final Girl is defeated by the first effect of a block, the rest of the block
    still resolves (she gains the time), and only then is the game over."""
    from lastbreath.dsl import nodes as n
    w = make_work(settle(st, fg_health=0, fg_breath=2, fg_breath_value=0, time=2))
    with pytest.raises(engine.GameOver):
        engine.run(w, (n.LoseHealth(None, 3), n.GainTime(None, 1)), Ctx())
    assert w.time == 3, "the effect after her defeat still resolved"
    texts = [e.text for e in w.ctl.events]
    assert texts.index("her last breath is gone: the Final Girl is defeated") < texts.index("gains 1 time (now 3)")
    assert w.result == "killer" and "C13.1" in rules_of(w)


def test_both_sides_defeated_within_one_effect_the_final_girl_wins(st):
    """C13.2: she falls first, the killer later in the same resolution: her sacrifice counts."""
    from lastbreath.dsl import nodes as n
    w = make_work(settle(st, fg_health=0, fg_breath=2, fg_breath_value=0,
                         killers=killer(st, health=1, breath=2, breath_value=0)))
    with pytest.raises(engine.GameOver):
        engine.run(w, (n.LoseHealth(None, 3), n.DamageKiller(None, 5)), Ctx())
    assert w.result == "fg" and "C13.2" in rules_of(w)


def test_a_defeat_in_one_effect_is_not_undone_by_a_later_one(st):
    """C13.2: the check is per resolution: a killer defeated by a later, separate effect does not
    turn her defeat into a win."""
    from lastbreath.dsl import nodes as n
    w = make_work(settle(st, fg_health=0, fg_breath=2, fg_breath_value=0,
                         killers=killer(st, health=1, breath=2, breath_value=0)))
    with pytest.raises(engine.GameOver):
        engine.run(w, (n.LoseHealth(None, 3),), Ctx())
    assert w.result == "killer"


def test_a_defeated_final_girl_is_no_target_for_the_rest_of_the_effect(st):
    """C13.2, C9.1: while the effect that defeated her resolves, enemies do not attack her."""
    w = make_work(settle(st, fg_health=0, fg_breath=0, fg_breath_value=0))
    w.scope.depth = 1  # inside a resolution: the game is not over yet
    engine.hunt(w, "killer", "fg", 9, 2)
    assert not any(e.kind == "attack" for e in w.ctl.events)


# === C14 player board ========================================================================
def test_last_breath_token_counts_as_one_health(st):
    """C14.1"""
    w = make_work(settle(st, fg_health=6, fg_breath=2, fg_breath_value=0))
    engine.fg_damage(w, 6)
    assert w.fg_health == 0 and w.fg_breath == 2 and not w.result
    with pytest.raises(engine.GameOver):
        engine.fg_damage(w, 1)


def test_nine_black_tokens_three_numbered(rs, game):
    """C14.2"""
    assert sorted(rs.player_board().last_breath) == [0, 0, 0, 0, 0, 0, 1, 2, 3]
    drawn = sorted([game.fg_breath_value, game.killers[0].breath_value, *game.breath_bag])
    assert drawn == [0, 0, 0, 0, 0, 0, 1, 2, 3]


def test_numbered_token_turns_white_restores_health_ignores_overflow_and_ends_phase(st):
    """C14.2"""
    w = make_work(settle(st, fg_health=2, fg_breath=2, fg_breath_value=3))
    with pytest.raises(engine.PhaseEnd):
        engine.fg_damage(w, 9)
    assert (w.fg_health, w.fg_breath, w.result) == (3, 1, "")


def test_white_token_is_never_flipped_again(st):
    """C14.2"""
    w = make_work(settle(st, fg_health=1, fg_breath=1, fg_breath_value=3))
    with pytest.raises(engine.GameOver):
        engine.fg_damage(w, 2)
    assert w.fg_breath == 0 and w.result == "killer"


def test_flip_in_killer_phase_ends_the_phase_at_once(st):
    """C14.2"""
    s = settle(st, phase="killer", fg_health=0, fg_breath=2, fg_breath_value=2, hand=(),
               finale="moon-over-the-pines", terror=("torn-hem", "snagging-briars"),
               killers=killer(st, loc=st.fg_loc), fear=4, time=6)
    w = make_work(s)
    finish_phase(w)
    assert (w.fg_health, w.fg_breath) == (2, 1)
    assert w.terror == s.terror and (w.fear, w.time) == (4, 6)  # no terror card was revealed
    assert w.phase == "panic"


def test_flip_in_action_phase_ends_the_action_phase(xst):
    """C14.2, C4.1"""
    s = settle(xst, phase="action", sub=1, pack=(HeldItem("t-v-hurt", 0),), fg_health=1, fg_breath=2,
               fg_breath_value=2, hand=("focus", "walk"))
    s2, ev = engine.advance(s, ("use:t-v-hurt",), 0)
    assert (s2.fg_health, s2.fg_breath) == (2, 1)
    assert s2.phase == "planning" and s2.hand == ("focus", "walk")
    assert any(e.rule == "C14.2" and "phase ends" in e.text for e in ev)


def test_killer_flip_in_action_phase_ends_the_action_phase(xst):
    """C17.1, C14.2"""
    s = settle(xst, phase="action", sub=1, pack=(HeldItem("t-v-hit", 0),), hand=("focus", "walk"),
               killers=killer(xst, loc=xst.fg_loc, health=1, breath=2, breath_value=3))
    s2, _ = engine.advance(s, ("use:t-v-hit",), 0)
    assert (s2.killers[0].health, s2.killers[0].breath) == (3, 1)
    assert s2.phase == "planning"


def test_white_token_fg_heals_up_to_starting_health(st):
    """C14.2, C3.5"""
    w = make_work(settle(st, fg_health=2, fg_breath=1, fg_breath_value=2))
    engine.heal(w, 3)
    assert w.fg_health == 5


def test_extreme_side_fear_zones(rs):
    """C14.3, C14.6"""
    ext = {s.id: s for s in rs.player_board().sides}["extreme"]
    cells = [z.high - z.low + 1 for z in ext.zones]
    assert cells == [1, 4, 3] and [z.dice for z in ext.zones] == [3, 2, 1]
    state, _ = api.new_game(rs, difficulty="extreme", seed=1)
    w = make_work(settle(state, fear=ext.fear_max, bloodlust=0))
    engine.raise_fear(w, 1)
    assert w.fear == 7 and w.bloodlust == 1


def test_dead_victims_are_counted(st):
    """C14.5, C9.7"""
    s = settle(st, victims=_victims(st, bramble_thicket=2), dead=0, bloodlust=0)
    w = make_work(s)
    engine.kill_victim(w, loc(st, "bramble-thicket"), "test")
    engine.kill_victim(w, loc(st, "bramble-thicket"), "test")
    assert w.dead == 2 and w.bloodlust == 2
    engine.raise_bloodlust(w, 1)  # bloodlust also rises for other reasons
    assert w.dead == 2 and w.bloodlust == 3


def test_difficulty_sides(rs):
    """C14.6, C7.5"""
    sides = {s.id: s for s in rs.player_board().sides}
    assert sides["normal"].time_reset == 6 and sides["extreme"].time_reset == 5
    s, _ = api.new_game(rs, difficulty="extreme", seed=3)
    assert s.game.side.id == "extreme"


# === C16 Final Girl card =====================================================================
def test_final_girl_cards(rs):
    """C16.1"""
    for fg in rs.final_girls.values():
        assert fg.rescues in (4, 5, 6) and len(fg.slots) == fg.rescues
        assert fg.name and fg.flipped_reward
    assert rs.final_girls["nell-arden"].rescues == 4


@pytest.mark.parametrize("fg_id", ["nell-arden", "ruth-okafor"])
def test_signature_item_shuffled_into_item_piles(rs, fg_id):
    """C16.2, C18.4"""
    sig = rs.final_girls[fg_id].signature
    positions = set()
    for seed in range(8):
        s, _ = api.new_game(rs, final_girl=fg_id, seed=seed)
        cards = [c for p in s.piles for c, _ in p]
        assert cards.count(sig) == 1
        positions.add(next((i, j) for i, p in enumerate(s.piles) for j, (c, _) in enumerate(p) if c == sig))
    assert len(positions) > 1


# === C18 map board ===========================================================================
def test_map_search_locations_own_piles_and_exits(st):
    """C18.1"""
    b = st.game.board
    assert [b.ids[i] for i in b.search_locs] == ["woodcutters-camp", "spindle-tower", "wishing-well"]
    assert len(st.piles) == 3
    assert {b.ids[i] for i in b.exits} == {"hollow-gate", "lantern-road"}
    w = make_work(st)
    engine.run(w, st.game.terror["tower-bell-tolls"].effects[:1], Ctx())  # a named location
    assert w.killers[0].loc == loc(st, "spindle-tower")


def test_panic_numbers_at_path_ends(st):
    """C18.2"""
    panic = st.game.board.tables(frozenset())[3]
    assert panic[loc(st, "hollow-gate")] == {1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2}
    willow = panic[loc(st, "willow-ford")]
    assert 6 not in willow  # its 6 is on a closed bridge: not every number leads somewhere
    assert willow[4] == loc(st, "ferrymans-landing")


def test_setup_card_places_killer_fg_and_victims(rs):
    """C18.3"""
    seen = set()
    for seed in range(12):
        s, ev = api.new_game(rs, seed=seed)
        sc = s.game.scenario
        card = next(c for c in sc.setups if c.id == s.setup_card)
        b = s.game.board
        assert s.killers[0].loc == b.index[card.killer_at]
        assert s.checkpoint.fg_loc == b.index[card.fg_at]
        expect = [0] * b.n
        for lid, k in card.victims:
            expect[b.index[lid]] += k
        if not any(e.text.startswith("event: Cries") for e in ev):
            assert list(s.victims) == expect
        assert ev[0].rule == "C18.3"
        seen.add(card.id)
    assert len(seen) >= 3


def test_item_piles_three_of_four_top_face_up(rs):
    """C18.4, C6.2"""
    for seed in range(6):
        s, _ = api.new_game(rs, seed=seed)
        assert [len(p) for p in s.piles] == [4, 4, 4]
        assert all(p[0][1] and not any(up for _, up in p[1:]) for p in s.piles)
        cards = [c for p in s.piles for c, _ in p]
        scen = {it.id for it in s.game.scenario.items}
        assert len(set(cards)) == 12
        assert sum(1 for c in cards if c in scen) == 11


def test_terror_deck_of_eight_and_first_event_at_setup(rs):
    """C18.5"""
    s, ev = api.new_game(rs, seed=4)
    pool = {t.id for t in (*s.game.killer.terror, *s.game.scenario.terror)}
    assert len(pool) == 24
    assert len(s.terror) == 8 and len(set(s.terror)) == 8 and set(s.terror) <= pool
    assert len(s.events) == 9
    assert sum(1 for e in ev if e.rule == "C18.5" and e.text.startswith("event:")) == 1
    assert len({frozenset(api.new_game(rs, seed=k)[0].terror) for k in range(4)}) > 1


def test_draw_event_one_off_and_lasting(st):
    """C18.5"""
    w = make_work(settle(st, events=("harvest-moon", "rolling-mist", "fallen-oak"), events_active=(), time=4, fear=4))
    engine.draw_event(w)
    assert (w.time, w.fear) == (6, 3) and w.events_active == ()
    engine.draw_event(w)
    assert w.events_active == ("rolling-mist",) and w.events == ("fallen-oak",)


def _draws_event(effects) -> bool:
    from lastbreath.dsl import nodes as n

    return any(isinstance(x, n.DrawEvent) for x in n.walk(tuple(effects)))


@pytest.mark.parametrize("scenario", ["storybook-woods", "wingard-cottage", "wolfe-asylum", "uss-konrad", "station-2891"])
def test_C18_5_every_film_has_cards_that_draw_an_event(rs, scenario):
    """C18.5 (issue #34): events are drawn at setup and whenever an effect says so; each film's
    terror cards include some that draw one, so a game sees more than its setup event."""
    sc = rs.scenarios[scenario]
    assert sum(_draws_event(t.effects) for t in sc.terror) >= 2
    seen = 0
    for seed in range(12):
        state, events = api.new_game(rs, scenario=scenario, seed=seed)
        drawn = [e for e in events if e.kind == "event" and e.text.startswith("event:")]
        bot = api.random_policy(seed)
        while not state.over:
            state, events = api.apply(state, bot(state, state.choice))
            drawn += [e for e in events if e.kind == "event" and e.text.startswith("event:")]
        seen = max(seen, len(drawn))
    assert seen >= 2, "some game draws an event after its setup one"
