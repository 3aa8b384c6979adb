"""Rule-level tests of the fifth film's scenario: Station 2891 (docs/rules.md S2), on the bundled
content (scenarios/station-2891.fg): the helicopter's token on the exit, the two-way radio and the
snowplow at setup, the main building indoors and outdoors, boarding the helicopter, its flight along
its card to the arctic airport and back, the rescue on landing, and frostbite; every killer playing
there."""

from __future__ import annotations

import pytest
from conftest import L, fx, make_work, need, settle
from conftest import run_effects as run
from lastbreath.dsl import nodes as n
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import HeldItem, MarkedVictim

SID = "station-2891"
INDOOR = {"airlock", "long-corridor", "mess-hall", "laboratory", "infirmary", "bunk-room", "generator-room"}
MAIN_BUILDING = INDOOR | {"commanders-cabin", "tool-shed"}
PLOW_SPOTS = {"snowfield", "kennels", "fuel-depot"}
CABIN = "helicopter-cabin"


def started(rs, killer="big-bad-wolf", seed=1, plow="place:snowfield"):
    """A new game in the station, the snowplow placed (the first choice of its setup, S2.1)."""
    state, events = api.new_game(rs, killer=killer, scenario=SID, seed=seed)
    assert state.choice.kind == "place"
    state, more = api.apply(state, plow)
    return state, events + more


@pytest.fixture(scope="module")
def st(rs):
    """The Big Bad Wolf in Station 2891, seed 1, settled in the Action phase: no victims, no lasting
    event, fear 2, time 6, the Final Girl on the helipad with the radio, the wolf in the laboratory,
    the helicopter on the pad (its marker on 0, its cabin empty)."""
    state, _ = started(rs)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, fear=2, time=6, events_active=(),
                  phase="action", sub=1, fg_loc=L(state, "helipad"), held=(), pack=(HeldItem("two-way-radio", 0),),
                  killers=(engine.evolve_killer(state.killers[0], loc=L(state, "laboratory")),),
                  tracks=(("helicopter", 0),), holding=((CABIN, 0),), delayed=())


def at(state, **where) -> tuple:
    v = [0] * state.game.board.n
    for lid, k in where.items():
        v[L(state, lid.replace("_", "-"))] = k
    return tuple(v)


def menu(s) -> list[str]:
    return need(make_work(s), engine.step_action).keys()


def flying(s, space: int, aboard: int = 0, **fields):
    """The helicopter's marker on a space, with passengers; off the pad once it has lifted off."""
    if space:  # lifted off: its token back in the supply (the track's first step)
        s = run(s, "remove 1 token helicopter from helipad").freeze()
    return settle(s, tracks=(("helicopter", space),), holding=((CABIN, aboard),), **fields)


def card(rs, cid):
    return rs.cards[cid]


# === the box ======================================================================================
def test_station_components(rs):
    """S2: 10 events, 8 terror cards, 18 items dealt into the piles (C18.4) and the two-way radio she
    starts with, 5 setup cards, one exit, three search locations; the helicopter's card (a track and
    the cabin it holds victims in) and its action card, Fly Faster."""
    s = rs.scenarios[SID]
    assert (len(s.events), len(s.terror), len(s.setups)) == (10, 8, 5)
    assert len([i for i in s.items if not i.start]) == 18
    assert [(i.id, i.start) for i in s.items if i.start] == [("two-way-radio", "held")]
    assert sum(loc.exit for loc in s.locations) == 1 and sum(loc.search for loc in s.locations) == 3
    assert [t.id for t in s.tracks] == ["helicopter"] and [(h.id, h.capacity) for h in s.holdings] == [(CABIN, 3)]
    assert [c.id for c in s.cards] == ["fly-faster"] and s.cards[0].kind == "action"


def test_every_station_terror_card_works_with_any_killer(rs):
    """C8.3: the station's terror cards hunt with 'enemies' and name no body or mode."""
    hunts = 0
    for t in rs.scenarios[SID].terror:
        for e in n.walk(t.effects):
            assert not isinstance(e, (n.ModeBlock, n.AllKillers, n.SwitchActive, n.MakeActive)), t.id
            if isinstance(e, n.Hunt):
                hunts += 1
                assert e.who == "enemies", t.id
    assert hunts >= 5


# === S2.1 setup ===================================================================================
def test_S2_1_the_helicopter_token_goes_on_the_exit_and_she_starts_with_the_radio(rs):
    """S2.1: the helicopter's token on the exit, its marker at the helipad; the two-way radio is hers
    from the start and is not dealt into the item piles (C18.4: the piles hold the others)."""
    state, events = started(rs, seed=3)
    assert ("helicopter", "helicopter", L(state, "helipad")) in state.tokens
    assert state.tracks == (("helicopter", 0),) and state.holding == ((CABIN, 0),)
    assert "two-way-radio" in [h.id for h in (*state.held, *state.pack)]
    assert not any(c == "two-way-radio" for p in state.piles for c, _up in p)
    assert any(e.rule == "S2.1" and "Two-Way Radio" in e.text for e in events)


@pytest.mark.parametrize("seed", [1, 2])
def test_S2_1_the_snowplow_goes_outdoors_beside_a_search_location_of_her_choice(rs, seed):
    """S2.1 (default): the player picks an outdoor location that borders a search location; the
    snowplow's token goes there."""
    state, _ = api.new_game(rs, killer="big-bad-wolf", scenario=SID, seed=seed)
    keys = {k.removeprefix("place:") for k in state.choice.keys()}
    assert keys == PLOW_SPOTS
    b = state.game.board
    adjacent = {(b.ids[p[0]], b.ids[p[1]]) for p in b.paths} | {(b.ids[p[1]], b.ids[p[0]]) for p in b.paths}
    search = {b.ids[i] for i in b.search_locs}
    outdoor_by_search = {lid for lid in b.ids if "outdoor" in b.tags[b.index[lid]]
                         and any((lid, x) in adjacent for x in search)}
    assert keys == outdoor_by_search
    for lid in sorted(keys):
        after, _ = api.apply(state, f"place:{lid}")
        assert ("snowplow", "snowplow", L(after, lid)) in after.tokens


def test_S2_1_the_snowplow_does_nothing_without_the_vehicles_module(rs):
    """S2.1, V6: no action, trigger or rule of the station reads the snowplow; only its placement names it."""
    s = rs.scenarios[SID]
    assert not any("snowplow" in repr(x) for x in (*s.actions, *s.abilities.rules, *s.items, *s.cards))
    naming = [t for t in s.abilities.triggers if "snowplow" in repr(t)]
    assert [type(t.event) for t in naming] == [n.GameStarts]
    assert [type(e).__name__ for e in naming[0].body if "snowplow" in repr(e)] == ["PlaceToken"]


# === S2.2 indoors and outdoors =====================================================================
def test_S2_2_indoors_is_the_main_building_less_the_cabin_and_the_shed_outdoors_is_the_rest(rs):
    """S2.2: indoors = the main building apart from the commander's cabin and the tool shed; outdoors
    = everything not in the main building; so the cabin and the shed are neither."""
    s = rs.scenarios[SID]
    tagged = {t: {loc.id for loc in s.locations if t in loc.tags} for t in ("main-building", "indoor", "outdoor")}
    every = {loc.id for loc in s.locations}
    assert tagged["main-building"] == MAIN_BUILDING
    assert tagged["indoor"] == MAIN_BUILDING - {"commanders-cabin", "tool-shed"}
    assert tagged["outdoor"] == every - MAIN_BUILDING


def test_S2_2_the_long_corridor_holds_the_victim_cluster_on_every_setup_card(rs):
    """S2.2: victims in the long corridor sit on the victim-cluster board: every setup card puts its
    largest group there (the board itself is bookkeeping)."""
    for setup in rs.scenarios[SID].setups:
        counts = dict(setup.victims)
        assert counts["long-corridor"] == max(counts.values()) >= 3, setup.id


# === S2.3 boarding ================================================================================
def test_S2_3_she_puts_up_to_three_victims_aboard_at_the_exit(st):
    """S2.3: with the helicopter on the exit, up to three victims there go aboard (its card), the
    player picking how many; a fourth stays on the helipad."""
    s = settle(st, victims=at(st, helipad=4))
    assert "action:board-helicopter" in menu(s)
    w = make_work(s, ["action:board-helicopter", "load:3"])
    engine.step_action(w)
    assert w.holding == ((CABIN, 3),) and w.victims[L(st, "helipad")] == 1 and w.time == 5
    assert "action:board-helicopter" not in menu(w.freeze()), "full: three at most"


def test_S2_3_boarding_only_with_the_helicopter_on_the_exit_and_only_there(st):
    """S2.3: no boarding away from the helipad, nor while the helicopter is away."""
    assert "action:board-helicopter" not in menu(settle(st, victims=at(st, airlock=2), fg_loc=L(st, "airlock")))
    assert "action:board-helicopter" not in menu(flying(st, 4, victims=at(st, helipad=2)))
    assert "action:board-helicopter" not in menu(st), "no victims there"


def test_S2_3_victims_leave_the_station_only_by_air(st):
    """S2.3 (C5.4): the helipad is the exit, but victims there do not walk out: no escape is offered,
    neither in the Action phase nor as she comes in with them; they wait for the helicopter."""
    s = settle(st, victims=at(st, helipad=2))
    assert "rescue" not in menu(s)
    w = make_work(settle(st, fg_loc=L(st, "airlock"), victims=at(st, airlock=2)), ["move:helipad", "follow:2", "stop"])
    engine.move_fg(w, 1)
    assert w.fg_loc == L(st, "helipad") and w.victims[L(st, "helipad")] == 2 and w.rescued == 0
    assert [loc.id for loc in st.game.scenario.locations if loc.exit] == ["helipad"]


def test_S2_3_nothing_attacks_or_kills_a_victim_aboard(st):
    """S2.3: victims aboard are off the board: an enemy hunting victims on the helipad finds none
    there, and an effect killing victims on the board does not reach them."""
    s = settle(st, holding=((CABIN, 3),), victims=at(st, kennels=1), phase="killer",
               killers=(engine.evolve_killer(st.killers[0], loc=L(st, "helipad")),))
    w = make_work(s)
    engine.hunt(w, "killer", "victims", 1, 1)
    assert w.holding == ((CABIN, 3),) and w.dead == 0
    w = run(s, "kill 3 victims at helipad; for each piece at tag outdoor { damage it 1 }")
    assert w.holding == ((CABIN, 3),)


def test_S2_3_a_loaded_helicopter_reaches_the_airport_before_it_comes_back(st, rs):
    """S2.3: with passengers it flies only onward: every move of its marker goes up, through the
    airport (space 3, where they are rescued) before the station again (space 6, back to 0)."""
    s = flying(st, 0, aboard=2)
    w = run(s, "advance track helicopter 6", ["slot:1", "slot:2"])
    assert w.rescued == 2 and w.holding == ((CABIN, 0),)
    assert w.tracks == (("helicopter", 0),) and ("helicopter", "helicopter", L(st, "helipad")) in w.tokens
    downs = [e for t in rs.scenarios[SID].terror for e in n.walk(t.effects) if isinstance(e, n.RetreatTrack)]
    assert downs, "the one card that sets it back (Fuel Stop) does so only between the pad and the airport"
    fuel = next(t for t in rs.scenarios[SID].terror if t.id == "fuel-stop")
    for space in range(7):
        w = make_work(flying(st, space, aboard=1))
        engine.run(w, fuel.effects[:1], Ctx())
        assert w.tracks[0][1] == (1 if space == 2 else space)


def test_S2_3_an_empty_helicopter_does_not_lift_off(st, rs):
    """S2.3: on the pad with nobody aboard, neither Fly Faster nor the radio moves it."""
    fly = card(rs, "fly-faster")
    for o in fly.outcomes:
        w = make_work(st)
        engine.run(w, o.effects, Ctx())
        assert w.tracks == (("helicopter", 0),)
    assert "use:two-way-radio" not in menu(st)
    assert "use:two-way-radio" in menu(flying(st, 0, aboard=1))


# === S2.4 flying ==================================================================================
def test_S2_4_fly_faster_moves_it_along_its_card(st, rs):
    """S2.4: Fly Faster, a film action card in the market: a success moves it one space, a great
    success two; a failure not at all."""
    fly = card(rs, "fly-faster")
    assert "fly-faster" in st.market or "fly-faster" in st.hand
    by = {o.min_successes: o for o in fly.outcomes}
    for succ, space in ((0, 1), (1, 2), (2, 3)):
        w = make_work(flying(st, 1, aboard=1), ["slot:1"])
        engine.run(w, by[succ].effects, Ctx())
        assert w.tracks[0][1] == space


def test_S2_4_the_radio_calls_it_on_one_space_for_one_time(st):
    """S2.4: the two-way radio: 1 time, the helicopter one space on (in the air, or loaded)."""
    w = make_work(flying(st, 4), ["use:two-way-radio"])
    engine.step_action(w)
    assert w.tracks == (("helicopter", 5),) and w.time == st.time - 1


def test_S2_4_terror_cards_move_it(st, rs):
    """S2.4: 'A Tailwind' carries it one space on while it is in the air; on the pad it does not."""
    tail = next(t for t in rs.scenarios[SID].terror if t.id == "tailwind")
    w = make_work(flying(st, 1, aboard=2, phase="killer", sub=2))
    engine.run(w, tail.effects[:1], Ctx())
    assert w.tracks == (("helicopter", 2),)
    w = make_work(settle(st, phase="killer", sub=2))
    engine.run(w, tail.effects[:1], Ctx())
    assert w.tracks == (("helicopter", 0),) and w.time == st.time - 1


# === S2.5 landing =================================================================================
def test_S2_5_landing_in_the_action_phase_rescues_them_with_their_rewards(st):
    """S2.5: arriving at the airport, the passengers are rescued, each on a slot of her card with its
    reward (C5.5)."""
    w = run(flying(st, 2, aboard=2), "advance track helicopter 1", ["slot:1", "slot:2"])
    assert w.rescued == 2 and w.holding == ((CABIN, 0),) and w.slots[:2] == (True, True)
    assert any("is rescued" in e.text for e in w.ctl.events)


def test_S2_5_landing_outside_the_action_phase_pays_at_the_start_of_the_next(st):
    """S2.5: landing in the Killer phase, the rewards come as the next Action phase begins."""
    w = make_work(flying(st, 2, aboard=3, phase="killer", sub=2))
    engine.run(w, fx("advance track helicopter 1"), Ctx())
    assert w.rescued == 0 and w.holding == ((CABIN, 3),) and len(w.delayed) == 1
    w2 = make_work(settle(w.freeze(), phase="action"), ["slot:1", "slot:2", "slot:3"])
    engine.fire(w2, "start:action")
    assert w2.rescued == 3 and w2.holding == ((CABIN, 0),) and w2.delayed == ()


def test_S2_5_then_it_may_fly_back_and_lands_on_the_helipad(st):
    """S2.5: empty after the airport, it flies back along the rest of its card; on space 6 it lands:
    its token is on the exit again, its marker on 0, and victims may board."""
    s = flying(st, 5, victims=at(st, helipad=2))
    assert "action:board-helicopter" not in menu(s)
    w = make_work(s, ["use:two-way-radio"])
    engine.step_action(w)
    assert w.tracks == (("helicopter", 0),) and ("helicopter", "helicopter", L(st, "helipad")) in w.tokens
    assert "action:board-helicopter" in menu(w.freeze())


# === S2.6 frostbite ===============================================================================
def _frost(s):
    return next(g for g in s.game.scenario.groups if g.id == "frostbite")


def test_S2_6_frostbite_strikes_at_the_end_of_the_killer_phase_by_default_as_data(st):
    """S2.6 (open, default): when frostbite strikes is the content's `at end of killer` line, in a
    rules group a module may replace."""
    group = _frost(st)
    phases = [(t.event.edge, t.event.phase) for t in group.abilities.triggers if isinstance(t.event, n.PhaseEvent)]
    assert ("end", "killer") in phases and ("start", "upkeep") in phases


def test_S2_6_outdoors_every_piece_gets_frostbite_then_loses_health_and_a_victim_dies(st):
    """S2.6: at the end of the Killer phase, she, each victim and each enemy outdoors gets frostbite;
    one who has it already loses 1 health (a victim dies, bloodlust rises for it, C9.7); indoors, and
    in the cabin and the shed (neither), nothing happens."""
    kennels = L(st, "kennels")
    s = settle(st, fg_loc=kennels, fg_health=5, victims=at(st, kennels=1, airlock=1, tool_shed=1),
               killers=(engine.evolve_killer(st.killers[0], loc=L(st, "snowfield")),))
    w = make_work(s)
    engine.fire(w, "end:killer")
    assert w.fg_status == {"frostbitten"} and w.fg_health == 5 and w.killers[0].status == {"frostbitten"}
    assert [(m.loc, m.status) for m in w.marked] == [(kennels, {"frostbitten"})]
    hp, bl = w.killers[0].health, w.bloodlust
    engine.fire(w, "end:killer")
    assert w.fg_health == 4 and w.dead == 1 and w.victims[kennels] == 0
    assert w.killers[0].health == hp - 1 and w.bloodlust >= bl
    assert w.victims[L(st, "airlock")] == 1 and w.victims[L(st, "tool-shed")] == 1 and w.dead == 1


def test_S2_6_indoors_in_upkeep_frostbite_is_shed_outdoors_and_in_the_cabin_it_stays(st):
    """S2.6: at the start of Upkeep those indoors lose their frostbite; outdoors, and in the
    commander's cabin (not indoors), they keep it."""
    marks = (MarkedVictim(1, L(st, "mess-hall"), "", frozenset({"frostbitten"})),
             MarkedVictim(2, L(st, "commanders-cabin"), "", frozenset({"frostbitten"})),
             MarkedVictim(3, L(st, "kennels"), "", frozenset({"frostbitten"})))
    s = settle(st, fg_loc=L(st, "infirmary"), fg_status=frozenset({"frostbitten"}), phase="upkeep", sub=0,
               victims=at(st, mess_hall=1, commanders_cabin=1, kennels=1), marked=marks, victim_seq=3)
    w = make_work(s)
    engine.fire(w, "start:upkeep")
    assert w.fg_status == frozenset()
    assert sorted(m.loc for m in w.marked) == sorted([L(st, "commanders-cabin"), L(st, "kennels")])


def test_S2_6_a_thermos_of_cocoa_warms_her(st):
    """S2.6: the station's items that warm her take her frostbite off."""
    s = settle(st, fg_status=frozenset({"frostbitten"}), fg_health=4, pack=(HeldItem("thermos-of-cocoa", 2),))
    w = make_work(s, ["use:thermos-of-cocoa"])
    engine.step_action(w)
    assert w.fg_status == frozenset() and w.fg_health == 5


def test_S2_6_the_greedy_bot_reads_frostbite_as_a_hazard_of_the_outdoor_locations(st):
    """S2.6 as the greedy bot sees it: the standing lines that hurt whatever stands on a tagged
    location (here frostbite, a mark first, then the blow: half a health a round) weigh on where it
    goes; indoors weighs nothing. Read from the content's forms, not from any name."""
    from lastbreath.interpreter.bots import Greedy

    hz = Greedy.hazard(st)
    board = st.game.board
    outdoor, indoor = board.with_tag("outdoor"), board.with_tag("indoor")
    assert outdoor and indoor
    assert all(hz[i] == 0.5 for i in outdoor) and all(hz[i] == 0 for i in indoor)
    # the same bot in a map without such a line sees no hazard anywhere
    other, _ = api.new_game(st.game.ruleset, killer="big-bad-wolf", scenario="storybook-woods", seed=1)
    assert not any(Greedy.hazard(other))


# === every killer at the station ===================================================================
@pytest.mark.parametrize("killer", ["big-bad-wolf", "intruders", "ratchet-lady", "zombies"])
def test_every_killer_plays_a_whole_game_at_the_station(rs, killer):
    """S2 with every bundled killer: greedy and random games end, without errors."""
    from lastbreath.interpreter.bots import BOTS

    for bot in ("greedy", "random"):
        for seed in range(2):
            state, _ = api.new_game(rs, killer=killer, scenario=SID, seed=seed)
            state = api.play(state, BOTS[bot](seed))
            assert state.over and state.result in ("fg", "killer")


def test_S2_3_S2_5_the_greedy_bot_flies_victims_out(rs):
    """S2.3–S2.5 in play: over a few greedy games she puts victims aboard and the helicopter brings
    some of them to the airport, rescued."""
    from lastbreath.interpreter.bots import BOTS

    boarded = rescued = 0
    for seed in range(8):
        state, events = api.new_game(rs, killer="ratchet-lady", scenario=SID, seed=seed)
        bot = BOTS["greedy"](seed)
        while not state.over:
            state, more = api.apply(state, bot(state, state.choice))
            events += more
        boarded += sum(1 for e in events if e.rule == "S2.3")
        rescued += sum(1 for e in events if "on the helicopter's cabin is rescued" in e.text)
    assert boarded >= 1 and rescued >= 1



# === a scenario added later does not become the default game =======================================
def test_the_default_scenario_is_the_one_marked_default_else_the_first_in_id_order(rs):
    """'default' on a scenario: station-2891 sorts before storybook-woods, yet a game with no
    scenario named still plays the woods, which carry the line; with none marked, the first in id
    order (games.defaults_of)."""
    from types import SimpleNamespace

    from lastbreath.interpreter.games import defaults_of

    assert rs.scenarios["storybook-woods"].default and not rs.scenarios[SID].default
    assert sorted(rs.scenarios)[0] == SID and api.defaults(rs)["scenario"] == "storybook-woods"
    state, _ = api.new_game(rs, seed=1)
    assert state.game.scenario.id == "storybook-woods"
    plain = SimpleNamespace(default=False)
    assert defaults_of({"b": plain, "a": plain}) == "a"
    assert defaults_of({"b": SimpleNamespace(default=True), "a": plain}) == "b"
