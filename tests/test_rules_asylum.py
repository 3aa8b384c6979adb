"""Rule-level tests of the second film: the asylum scenario (S5, Wolfe Asylum) and the ratchet
lady (K5, the Ratchet Lady) (docs/rules.md), on the bundled content, plus both killers playing in
the other film's scenario."""

from __future__ import annotations

from collections import Counter

import attrs
import pytest
from conftest import L, make_work, settle, victims_at

from lastbreath.dsl import nodes as n
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import MinionState

at = victims_at  # the victims tuple for named locations



def maniacs(state, *locs):
    return tuple(MinionState("maniac", L(state, loc), 1) for loc in locs)


def killer_at(state, lid):
    return (attrs.evolve(state.killers[0], loc=L(state, lid)),)


def action(state, aid):
    return next(a for a in state.game.actions if a.id == aid).effects


def menu(state):
    """The Action-phase options of a settled state."""
    s, _ = engine.advance(state, (), 0)
    assert s.choice is not None and s.choice.kind == "action"
    return s


@pytest.fixture(scope="module")
def asy(rs):
    """The Ratchet Lady in Wolfe Asylum, seed 1, settled in the Action phase: no victims, no minions,
    no tokens, no lasting events, nothing dazed, fear 3, time 6, the killer in the Padded Cells."""
    state, _ = api.new_game(rs, killer="ratchet-lady", scenario="wolfe-asylum", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, minions=(), tokens=(), collected=(),
                  fear=3, time=6, events_active=(), phase="action", sub=1, fg_loc=L(state, "admissions"),
                  killers=(attrs.evolve(state.killers[0], loc=L(state, "padded-cells"), status=frozenset()),))


@pytest.fixture(scope="module")
def wolf_asy(rs):
    """The Big Bad Wolf in Wolfe Asylum (a killer without minions), settled like ``asy``."""
    state, _ = api.new_game(rs, killer="big-bad-wolf", scenario="wolfe-asylum", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, tokens=(), collected=(), fear=3, time=6,
                  events_active=(), phase="action", sub=1, fg_loc=L(state, "admissions"),
                  killers=(attrs.evolve(state.killers[0], loc=L(state, "padded-cells"), status=frozenset()),))


def with_decks(state, side=(), highs=()):
    """Put these cards on top of the side-effect and high decks (the rest follow)."""
    decks = dict(state.decks)
    decks["side-effects"] = tuple(side) + tuple(c for c in decks["side-effects"] if c not in side)
    decks["highs"] = tuple(highs) + tuple(c for c in decks["highs"] if c not in highs)
    return tuple(decks.items())


# === S5 the asylum ===========================================================================
def test_asylum_components(rs):
    """S5.1: 10 events, 8 terror, 18 items, 5 setup cards, 9 pills + a daze, 10 side effects, 5 highs."""
    s = rs.scenarios["wolfe-asylum"]
    assert (len(s.events), len(s.terror), len(s.items), len(s.setups)) == (10, 8, 18, 5)
    assert 12 <= len(s.locations) <= 14
    assert sum(loc.search for loc in s.locations) == 3 and 1 <= sum(loc.exit for loc in s.locations) <= 2
    (pill,) = s.tokens
    assert pill.kinds == ("yellow", "blue", "pink", "wild") and pill.wild == "wild"
    assert sum(c for _k, c in pill.supply) == 9
    decks = {d.id: d for d in s.decks}
    assert len(decks["side-effects"].cards) == 10 and len(decks["highs"].cards) == 5
    # every scenario terror card works with any killer: no mode blocks; its hunts are 'enemies hunt'
    for t in s.terror:
        assert not any(isinstance(e, n.ModeBlock) for e in t.effects)
        assert all(e.who == "enemies" for e in t.effects if isinstance(e, n.Hunt))


def test_each_setup_card_names_four_pill_locations(rs):
    """S5.1"""
    s = rs.scenarios["wolfe-asylum"]
    for su in s.setups:
        places = [loc for tok, loc in su.tokens if tok == "pill"]
        assert len(places) == len(set(places)) == 4, su.id


def test_setup_places_four_pills_and_leaves_five_on_the_table(rs):
    """S5.1: one random pill at each of the setup card's four places, the other five face down
    on the table, shuffled; the side-effect and high decks shuffled; the daze token unused."""
    supplies, side_orders = set(), set()
    for seed in range(8):
        state, events = api.new_game(rs, killer="big-bad-wolf", scenario="wolfe-asylum", seed=seed)
        g = state.game
        setup = next(su for su in g.scenario.setups if su.id == state.setup_card)
        placed = [e for e in events if e.kind == "token" and "placed" in e.text]
        assert len(placed) >= 4
        first_four = [e.text.rsplit(" at ", 1)[1] for e in placed[:4]]
        assert sorted(first_four) == sorted(g.board.names[L(state, loc)] for _t, loc in setup.tokens)
        everything = Counter(k for _t, k in state.supply) + Counter(k for _t, k, _l in state.tokens)
        assert everything == Counter({"yellow": 3, "blue": 2, "pink": 2, "wild": 2})
        drawn = set(g.events) - set(state.events)
        if drawn != {"medication-cart"}:  # the one event that puts two more pills out
            assert len(state.tokens) == 4 and len(state.supply) == 5
            assert sorted(loc for _t, _k, loc in state.tokens) == sorted(L(state, loc) for _t, loc in setup.tokens)
        if drawn != {"sparking-fuse-box"}:  # the one event that dazes
            assert all(not k.status for k in state.killers)
        supplies.add(tuple(state.supply))
        decks = dict(state.decks)
        assert sorted(decks["side-effects"]) == sorted(c.id for c in g.decks["side-effects"].cards)
        assert sorted(decks["highs"]) == sorted(c.id for c in g.decks["highs"].cards)
        side_orders.add(decks["side-effects"])
    assert len(supplies) > 1 and len(side_orders) > 1


def test_collect_a_pill_spends_time_and_keeps_it_face_up(asy):
    """S5.2"""
    dr = L(asy, "day-room")
    s = settle(asy, fg_loc=dr, tokens=(("pill", "pink", dr),))
    m = menu(s)
    assert "action:collect-pill" in m.choice.keys() and "action:take-pills" not in m.choice.keys()
    s2, _ = engine.apply(m, "action:collect-pill")
    assert s2.collected == (("pill", "pink"),) and s2.tokens == ()
    assert s2.time == 6 - 1
    assert "action:take-pills" in s2.choice.keys() and "action:collect-pill" not in s2.choice.keys()
    # not where there is no pill
    assert "action:collect-pill" not in menu(settle(asy, tokens=(("pill", "pink", dr),))).choice.keys()


def test_pill_kinds_and_the_wild(asy):
    """S5.2: yellow, blue, pink, and a wild that counts as any colour."""
    w = make_work(asy)
    assert engine.covers(w, ("blue", "pink", "wild"), ("yellow", "blue", "pink"), "pill")
    assert not engine.covers(w, ("blue", "blue", "pink"), ("yellow", "blue", "pink"), "pill")
    # a wild taken alone resolves as the colour the player picks
    for pick, check in (("option:0", lambda w: w.fg_health == 3), ("option:1", lambda w: w.time == 4),
                        ("option:2", lambda w: w.fear == 3)):
        w = make_work(settle(asy, collected=(("pill", "wild"),), fg_health=2, time=2, fear=5), [pick])
        engine.run(w, action(asy, "take-pills"), Ctx())
        assert check(w), pick


def test_taking_one_pill_draws_no_side_effect(asy):
    """S5.3"""
    s = settle(asy, collected=(("pill", "yellow"), ("pill", "blue")), fg_health=3, decks=with_decks(asy, ["dry-mouth"]))
    w = make_work(s, ["spend:yellow"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert w.fg_health == 4 and w.collected == (("pill", "blue"),)
    assert dict(w.decks) == dict(s.decks) and w.kept == ()


def test_taking_two_pills_draws_a_side_effect_after_resolving(asy):
    """S5.3: the pill-effect card first, then a side effect for a dose of two."""
    s = settle(asy, collected=(("pill", "blue"), ("pill", "yellow")), fg_health=3, time=2,
               decks=with_decks(asy, ["dry-mouth"]))
    w = make_work(s, ["spend:blue+yellow"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert w.fg_health == 4
    assert w.time == 2 + 2 - 1  # blue gains 2, then Dry Mouth loses 1
    assert "dry-mouth" not in dict(w.decks)["side-effects"]
    kinds = [e.kind for e in w.ctl.events]
    assert kinds.index("deck") > kinds.index("health") and kinds.index("deck") > kinds.index("time")
    assert w.collected == ()


def test_taking_three_pills_draws_a_side_effect_and_kept_ones_stay(asy):
    """S5.3: a kept side effect stays in play with its rule."""
    s = settle(asy, collected=(("pill", "blue"),) * 3, decks=with_decks(asy, ["double-vision"]))
    walk = asy.game.cards["walk"]
    base = engine.dice_for(make_work(s), walk)
    w = make_work(s, ["spend:blue+blue+blue"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert w.kept == ("side-effects/double-vision",)
    assert engine.dice_for(w, walk) == base - 1


def test_pills_may_be_taken_again_in_the_same_round(asy):
    """S5.3: any number of times per round, any number each time."""
    m = menu(settle(asy, collected=(("pill", "blue"), ("pill", "pink"))))
    s2, _ = engine.apply(m, "action:take-pills")
    assert s2.choice.kind == "spend" and {"spend:blue", "spend:pink", "spend:blue+pink"} <= set(s2.choice.keys())
    s3, _ = engine.apply(s2, "spend:blue")
    assert s3.choice.kind == "action" and "action:take-pills" in s3.choice.keys()
    assert s3.time == 6 + 2  # a free action


def test_S5_3_any_number_and_mix_of_pills_at_once(asy):
    """S5.3 (issue #34): any number and mix at once: with four pills collected every dose of one
    to four is offered, and a dose of four draws one side effect (after a high, S5.4)."""
    four = (("pill", "yellow"), ("pill", "blue"), ("pill", "pink"), ("pill", "wild"))
    m = menu(settle(asy, collected=four))
    s2, _ = engine.apply(m, "action:take-pills")
    assert s2.choice.kind == "spend"
    sizes = Counter(len(k.removeprefix("spend:").split("+")) for k in s2.choice.keys() if k.startswith("spend:"))
    assert sizes == Counter({1: 4, 2: 6, 3: 4, 4: 1})
    s = settle(asy, collected=four, decks=with_decks(asy, ["dry-mouth", "nausea"], ["euphoria"]))
    w = make_work(s, ["spend:blue+pink+wild+yellow", "option:0"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert w.collected == () and w.kept == ("highs/euphoria",)
    assert dict(w.decks)["side-effects"][0] == "nausea", "one side effect drawn, Dry Mouth"


def test_spent_pills_return_to_the_table_only_when_it_is_empty(asy):
    """S5.3"""
    s = settle(asy, collected=(("pill", "pink"),), supply=(("pill", "blue"),), token_discard=())
    w = make_work(s, ["spend:pink"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert w.supply == (("pill", "blue"),) and w.token_discard == (("pill", "pink"),)
    s = settle(asy, collected=(("pill", "pink"),), supply=(), token_discard=(("pill", "wild"),))
    w = make_work(s, ["spend:pink"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert sorted(k for _t, k in w.supply) == ["pink", "wild"] and w.token_discard == ()


def test_one_of_each_colour_gains_a_high(asy):
    """S5.4: yellow + blue + pink gains a high card (then, a dose of three, a side effect)."""
    s = settle(asy, collected=(("pill", "blue"), ("pill", "pink"), ("pill", "yellow")), fear=0,
               decks=with_decks(asy, ["dry-mouth"], ["steady-hands"]))
    walk = asy.game.cards["walk"]
    base = engine.dice_for(make_work(s), walk)
    w = make_work(s, ["spend:blue+pink+yellow"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert w.kept == ("highs/steady-hands",)
    assert engine.dice_for(w, walk) == base + 1
    assert "dry-mouth" not in dict(w.decks)["side-effects"]
    draws = [e.text for e in w.ctl.events if e.kind == "deck"]
    assert draws == ["draws Steady Hands from Highs", "draws Dry Mouth from Side Effects"]


def test_a_wild_stands_in_for_a_missing_colour(asy):
    """S5.4"""
    s = settle(asy, collected=(("pill", "blue"), ("pill", "pink"), ("pill", "wild")), fg_health=3,
               decks=with_decks(asy, ["dry-mouth"], ["second-wind"]))
    w = make_work(s, ["spend:blue+pink+wild", "option:0"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert "second-wind" not in dict(w.decks)["highs"]
    assert w.fg_health == 6  # wild as yellow (+1), Second Wind (+3, capped at 6)


def test_no_high_without_every_colour(asy):
    """S5.4"""
    s = settle(asy, collected=(("pill", "blue"), ("pill", "yellow"), ("pill", "yellow")),
               decks=with_decks(asy, ["dry-mouth"], ["steady-hands"]))
    w = make_work(s, ["spend:blue+yellow+yellow"])
    engine.run(w, action(asy, "take-pills"), Ctx())
    assert dict(w.decks)["highs"] == dict(s.decks)["highs"] and w.kept == ()


def test_dazed_enemies_do_not_move_but_still_attack(asy):
    """S5.5"""
    dr, adm = L(asy, "day-room"), L(asy, "admissions")
    s = settle(asy, fg_loc=dr, killers=killer_at(asy, "day-room"), minions=maniacs(asy, "day-room"),
               victims=at(asy, admissions=2), fg_health=6)
    w = make_work(s, ["killer:0"])  # the one daze token goes under the enemy the player picks
    engine.run(w, asy.game.items["chloroform-rag"].use.effects, Ctx())
    assert w.killers[0].status == {"dazed"} and not w.minions[0].status
    w.fg_loc = L(asy, "kitchens")
    w.phase = "killer"  # the daze holds it in the Killer phase
    engine.hunt(w, "killer", "victims", 2, 1)
    assert w.killers[0].loc == dr and w.victims[adm] == 2 and w.dead == 0
    w.fg_loc = dr
    engine.hunt(w, "killer", "fg", 1, 1)  # still attacks where it stands
    assert w.fg_health == 6 - 1


def test_daze_token_is_removed_in_upkeep(asy):
    """S5.5"""
    s = settle(asy, phase="upkeep", sub=0, killers=killer_at(asy, "day-room"), minions=maniacs(asy, "day-room"))
    w = make_work(s, ["killer:0"])
    engine.run(w, asy.game.events["sparking-fuse-box"].effects, Ctx())  # an event that dazes
    assert w.killers[0].status == {"dazed"}
    engine.step_upkeep(w)
    assert w.killers[0].status == frozenset() and all(not m.status for m in w.minions)


def test_there_is_one_daze_token(asy):
    """S5.5: dazing again moves the token."""
    s = settle(asy, fg_loc=L(asy, "kitchens"), killers=killer_at(asy, "day-room"),
               minions=maniacs(asy, "kitchens"))
    w = make_work(s)
    engine.run(w, asy.game.items["tranquilizer-rifle"].use.effects, Ctx())
    assert w.killers[0].status == {"dazed"} and not w.minions[0].status
    engine.run(w, asy.game.items["fire-extinguisher"].use.effects, Ctx())
    assert not w.killers[0].status and w.minions[0].status == {"dazed"}


def test_items_and_events_that_daze(rs):
    """S5.5"""
    s = rs.scenarios["wolfe-asylum"]

    def dazes(effects):
        for e in effects:
            if isinstance(e, n.AddStatus) and e.status == "dazed":
                return True
            if isinstance(e, n.If) and (dazes(e.then) or dazes(e.otherwise)):
                return True
        return False
    items = [i.id for i in s.items if i.use and dazes(i.use.effects)]
    assert len(items) >= 3
    assert any(dazes(e.effects) for e in s.events)


# === K5 the ratchet lady =====================================================================
def test_ratchet_lady_components(rs):
    """K5.1: 3 finales + 1 legendary, 3 dark powers + 1 legendary, 16 terror, 2 action cards, 6 maniacs."""
    k = rs.killers["ratchet-lady"]
    assert sum(not f.legendary for f in k.finales) == 3 and sum(f.legendary for f in k.finales) == 1
    assert sum(not d.legendary for d in k.dark_powers) == 3 and sum(d.legendary for d in k.dark_powers) == 1
    assert len(k.terror) == 16
    assert [(c.id, c.copies) for c in k.cards] == [("calm", 2)]
    assert rs.minions["maniac"].limit == 6
    assert 7 <= len(k.bloodlust) <= 9
    assert sum(any(isinstance(e, n.RevealDarkPower) for e in lvl.effects) for lvl in k.bloodlust) == 1


def test_starts_with_six_health_and_no_cap(asy):
    """K5.1"""
    assert asy.game.killer.health == 6 and asy.killers[0].health == 6
    w = make_work(asy)
    engine.heal_killer(w, 5)
    assert w.killers[0].health == 11


def test_regenerates_every_killer_phase(asy):
    """K5.1"""
    w = make_work(settle(asy, phase="killer", sub=0, killers=(attrs.evolve(asy.killers[0], health=6),)))
    engine.step_killer(w)
    assert w.killers[0].health == 7
    w = make_work(settle(asy, phase="killer", sub=0, killers=(attrs.evolve(asy.killers[0], health=9),)))
    engine.step_killer(w)
    assert w.killers[0].health == 10  # past her starting health


def test_K5_1_she_mends_even_with_the_final_girl_at_her_side(asy):
    """K5.1: she regenerates strongly, with no condition: the Final Girl standing with her (among
    her maniacs or alone) does not stop it (0004: +1 health at the start of each Killer phase)."""
    for minions in ((), maniacs(asy, "padded-cells", "padded-cells")):
        s = settle(asy, phase="killer", sub=0, fg_loc=L(asy, "padded-cells"), minions=minions,
                   killers=(attrs.evolve(asy.killers[0], health=6),))
        w = make_work(s)
        engine.step_killer(w)
        assert w.killers[0].health == 7
        assert "the killer heals to 7" in [e.text for e in w.ctl.events]


def test_other_killers_keep_their_cap(wolf_asy):
    """K5.1: the lifted cap is hers alone."""
    w = make_work(wolf_asy)
    engine.heal_killer(w, 5)
    assert w.killers[0].health == wolf_asy.game.killer.health


@pytest.mark.parametrize("scenario", ["wolfe-asylum", "storybook-woods"])
def test_two_maniacs_start_with_her(rs, scenario):
    """K5.2"""
    for seed in range(4):
        state, _ = api.new_game(rs, killer="ratchet-lady", scenario=scenario, seed=seed)
        assert [m.kind for m in state.minions] == ["maniac", "maniac"]
        assert {m.loc for m in state.minions} == {state.killers[0].loc}
        assert state.dead == 0 and state.bloodlust == 0


def test_maniacs_are_one_one_one_minions(rs, asy):
    """K5.3"""
    m = rs.minions["maniac"]
    assert (m.health, m.move, m.damage) == (1, 1, 1)
    # they move one location per move, and attack for 1
    s = settle(asy, killers=killer_at(asy, "morgue"), minions=maniacs(asy, "admissions"),
               fg_loc=L(asy, "pharmacy"), fg_health=6)
    w = make_work(s)
    engine.hunt(w, "minions", "fg", 1, 1)
    assert w.minions[0].loc == L(asy, "day-room") and w.fg_health == 6
    engine.hunt(w, "minions", "fg", 1, 1)
    assert w.minions[0].loc == L(asy, "pharmacy") and w.fg_health == 5


def test_maniacs_never_follow_and_cannot_be_rescued(asy):
    """K5.3"""
    dr = L(asy, "day-room")
    s = settle(asy, fg_loc=dr, minions=maniacs(asy, "day-room", "day-room"), victims=at(asy, day_room=1))
    w = make_work(s, ["move:kitchens"])
    with pytest.raises(engine.NeedChoice) as ei:
        engine.move_fg(w, 1)
    assert ei.value.choice.kind == "follow" and ei.value.choice.keys() == ["follow:1", "follow:0"]
    w = make_work(s, ["move:kitchens", "follow:1"])
    engine.move_fg(w, 1)
    assert [m.loc for m in w.minions] == [dr, dr] and w.victims[L(asy, "kitchens")] == 1
    # at an exit with maniacs and no victims there is nothing to rescue
    fg_ = L(asy, "front-gate")
    m = menu(settle(asy, fg_loc=fg_, minions=maniacs(asy, "front-gate", "front-gate")))
    assert "rescue" not in m.choice.keys()


def test_finale_backs_list_her_action_then_the_maniacs(rs):
    """K5.3, C8.3: killer action, then minion action, as printed; terror cards: 'enemies hunt'."""
    k = rs.killers["ratchet-lady"]
    for f in k.finales:
        hunts = [e.who for e in f.back if isinstance(e, n.Hunt)]
        assert hunts == ["killer", "minions"], f.id
    for t in k.terror:
        assert all(e.who == "enemies" for e in t.effects if isinstance(e, n.Hunt)), t.id


@pytest.mark.parametrize(("count", "lost"), [(0, 0), (1, 0), (2, 1), (3, 2), (5, 4)])
def test_leaving_maniacs_costs_their_number_minus_one(asy, count, lost):
    """K5.4"""
    s = settle(asy, fg_loc=L(asy, "day-room"), fg_health=6, minions=maniacs(asy, *["day-room"] * count))
    w = make_work(s, ["move:kitchens"])
    engine.move_fg(w, 1)
    assert w.fg_loc == L(asy, "kitchens") and w.fg_health == 6 - lost


def test_entering_a_crowd_of_maniacs_costs_nothing(asy):
    """K5.4"""
    s = settle(asy, fg_loc=L(asy, "kitchens"), fg_health=6, minions=maniacs(asy, "day-room", "day-room", "day-room"))
    w = make_work(s, ["move:day-room"])
    engine.move_fg(w, 1)
    assert w.fg_health == 6


def test_turning_a_victim_into_a_maniac_is_not_a_death(asy):
    """K5.5"""
    s = settle(asy, killers=killer_at(asy, "east-ward"), victims=at(asy, east_ward=2), fg_loc=L(asy, "front-gate"))
    w = make_work(s)
    engine.run(w, asy.game.terror["dosage-increased"].effects, Ctx())  # turn 1 victim; lose 1 time
    assert w.victims[L(asy, "east-ward")] == 1 and [m.loc for m in w.minions] == [L(asy, "east-ward")]
    assert w.dead == 0 and w.bloodlust == 0 and w.deaths_round == 0


def test_at_most_six_maniacs(asy):
    """K5.5: further spawns and turnings are ignored."""
    six = maniacs(asy, *["morgue"] * 6)
    s = settle(asy, killers=killer_at(asy, "east-ward"), victims=at(asy, east_ward=2), minions=six,
               fg_loc=L(asy, "front-gate"))
    w = make_work(s)
    engine.run(w, asy.game.terror["treatment-room"].effects, Ctx())
    engine.run(w, [e for e in asy.game.terror["escaped-patient"].effects if isinstance(e, n.SpawnMinions)], Ctx())
    assert len(w.minions) == 6 and w.victims[L(asy, "east-ward")] == 2


def test_killing_a_maniac_raises_no_bloodlust(asy):
    """K5.5"""
    s = settle(asy, minions=maniacs(asy, "admissions", "admissions"), bloodlust=2)
    w = make_work(s, ["minions:admissions"])
    engine.fg_attack(w, 1, Ctx())
    assert len(w.minions) == 1 and w.bloodlust == 2 and w.dead == 0


def test_calm_joins_the_market_with_her_only(rs, asy, wolf_asy):
    """K5.6"""
    assert asy.market.count("calm") + asy.hand.count("calm") == 2 and "calm" not in asy.hand
    assert "calm" not in wolf_asy.market
    state, _ = api.new_game(rs, killer="ratchet-lady", scenario="storybook-woods", seed=2)
    assert state.market.count("calm") == 2


def test_calm_outcomes_spend_time(rs):
    """K5.6, C3.1"""
    calm = rs.cards["calm"]
    assert [o.min_successes for o in calm.outcomes] == [0, 1, 2]
    for o in calm.outcomes:
        assert any(isinstance(e, (n.LoseTime, n.GainTime)) for e in o.effects)


def test_calm_turns_a_maniac_back_into_a_victim(asy):
    """K5.6: the victim follows, can be rescued and can be killed."""
    calm = asy.game.cards["calm"]
    dr = L(asy, "day-room")
    s = settle(asy, fg_loc=dr, minions=maniacs(asy, "day-room", "day-room"), time=6)
    w = make_work(s)
    engine.run(w, engine.outcome_for(calm, 1).effects, Ctx())
    assert w.victims[dr] == 1 and len(w.minions) == 1 and w.time == 5 and w.dead == 0
    # it follows her (the other maniac does not)
    calmed = w.freeze()
    w = make_work(calmed, ["move:admissions", "follow:1", "slot:1"])
    engine.move_fg(w, 1)
    assert w.victims[L(asy, "admissions")] == 1 and w.minions[0].loc == dr
    # and escapes by an exit
    w.fg_loc = L(asy, "front-gate")
    w.victims = at(asy, front_gate=1)
    engine.rescue_here(w)
    assert w.rescued == 1
    # or dies like any victim
    w = make_work(calmed)
    engine.kill_victim(w, dr, "test")
    assert w.dead == 1 and w.bloodlust == 1


def test_calm_with_no_maniac_here_does_nothing_more(asy):
    """K5.6"""
    calm = asy.game.cards["calm"]
    s = settle(asy, fg_loc=L(asy, "day-room"), minions=maniacs(asy, "kitchens"))
    w = make_work(s)
    engine.run(w, engine.outcome_for(calm, 2).effects, Ctx())
    assert len(w.minions) == 1 and sum(w.victims) == 0


# === cross-play: each killer in the other film's scenario ====================================
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("killer", "scenario"), [("ratchet-lady", "storybook-woods"), ("big-bad-wolf", "wolfe-asylum"),
                                                  ("ratchet-lady", "wolfe-asylum")])
def test_killer_plays_to_the_end_in_any_scenario(rs, killer, scenario, seed):
    """K5.1, S5.1: a killer names no location, so it plays in any scenario."""
    state, _ = api.new_game(rs, killer=killer, scenario=scenario, seed=seed)
    end = api.play(state, api.random_policy(seed))
    assert end.result in ("fg", "killer") and end.end_reason
