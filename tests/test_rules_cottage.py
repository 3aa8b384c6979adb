"""Rule-level tests of the third film's scenario: Wingard Cottage (docs/rules.md S3), on the bundled
content (scenarios/wingard-cottage.fg): the crafted-item row and the raw materials on the table,
the cabin, indoors and outdoors, packing raw materials, crafting; and every killer playing there."""

from __future__ import annotations

import pytest
from conftest import L, make_work, need, settle

from lastbreath.interpreter import api, engine
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.state import HeldItem

RAW = {"raw-scrap-tools", "raw-lumber", "raw-nails", "raw-rope"}
CRAFTED = {"nail-bat", "lashed-spear", "chain-flail", "plank-crossbow", "fire-bomb", "board-splint", "rope-snare",
           "tin-can-alarm", "boarded-door", "pitch-torch"}
CABIN = {"kitchen", "master-bedroom", "bunk-room", "bathroom", "family-room", "foyer", "laundry-room", "garage"}
WHERE = {"raw-scrap-tools": "garage", "raw-lumber": "woodpile", "raw-nails": "boathouse", "raw-rope": "dock"}
PACK = {"raw-scrap-tools": "pack-scrap-tools", "raw-lumber": "pack-lumber", "raw-nails": "pack-nails",
        "raw-rope": "pack-rope"}


@pytest.fixture(scope="module")
def cot(rs):
    """The Big Bad Wolf in Wingard Cottage, seed 1, settled in the Action phase: no victims, no lasting
    events, fear 2, time 6, the Final Girl in the kitchen holding nothing, every raw material and
    every crafted item face up on the table."""
    state, _ = api.new_game(rs, killer="big-bad-wolf", scenario="wingard-cottage", seed=1)
    return settle(state.checkpoint, victims=(0,) * state.game.board.n, fear=2, time=6, events_active=(),
                  phase="action", sub=1, fg_loc=L(state, "kitchen"), held=(), pack=(),
                  table=tuple(sorted(RAW)) + tuple(sorted(CRAFTED)), item_piles=(("crafted-items", ()),))


def menu(s) -> list[str]:
    return need(make_work(s), engine.step_action).keys()


def ids(items) -> list[str]:
    return [h.id for h in items]


def texts(w) -> list[str]:
    return [e.text for e in w.ctl.events]


# === the box ======================================================================================
def test_cottage_components(rs):
    """S3: 10 events, 8 terror cards, 16 items, 5 setup cards, 10 crafted-item cards, 4 raw
    materials, 3 search locations (three item piles), two exits."""
    s = rs.scenarios["wingard-cottage"]
    assert (len(s.events), len(s.terror), len(s.setups)) == (10, 8, 5)
    assert len([i for i in s.items if not i.start]) == 16
    assert {i.id for i in s.items if i.start == "table"} == RAW
    assert {i.id for i in s.items if i.start == "pile"} == CRAFTED
    assert sum(loc.search for loc in s.locations) == 3 and sum(loc.exit for loc in s.locations) == 2
    assert {r.makes for r in s.recipes} == CRAFTED  # each crafted-item card lists what makes it


def test_every_scenario_terror_card_works_with_any_killer(rs):
    """C8.3: the cottage's terror cards hunt with 'enemies' and name no body or mode."""
    from lastbreath.dsl import nodes as n

    hunts = 0
    for t in rs.scenarios["wingard-cottage"].terror:
        for e in n.walk(t.effects):
            assert not isinstance(e, (n.ModeBlock, n.AllKillers, n.SwitchActive, n.MakeActive)), t.id
            if isinstance(e, n.Hunt):
                hunts += 1
                assert e.who == "enemies", t.id
    assert hunts >= 5


# === S3.1 setup ===================================================================================
def test_S3_1_four_crafted_items_face_up_and_the_four_raw_materials_on_the_table(rs):
    """S3.1: the ten crafted-item cards are shuffled and four laid face up on the table (the other six
    stay in their pile); the four raw-material cards lie face up on the table too."""
    state, events = api.new_game(rs, killer="intruders", scenario="wingard-cottage", seed=3)
    row = [i for i in state.table if i in CRAFTED]
    assert len(row) == 4 and {i for i in state.table if i in RAW} == RAW and len(state.table) == 8
    (pile,) = state.item_piles
    assert pile[0] == "crafted-items" and len(pile[1]) == 6 and set(pile[1]) | set(row) == CRAFTED
    assert any(e.rule == "S3.1" for e in events)
    dealt = {c for p in state.piles for c, _up in p}
    assert not dealt & (RAW | CRAFTED), "neither raw materials nor crafted items go into the item piles"


def test_S3_1_the_face_up_four_are_chosen_by_shuffling(rs):
    """S3.1: which four lie face up differs from game to game."""
    rows = set()
    for seed in range(10):
        state, _ = api.new_game(rs, killer="big-bad-wolf", scenario="wingard-cottage", seed=seed)
        rows.add(frozenset(i for i in state.table if i in CRAFTED))
    assert len(rows) >= 5


# === S3.2 the cabin, indoors and outdoors ==========================================================
def test_S3_2_the_cabin_is_its_eight_rooms_indoors_adds_the_shed_and_boathouse_outdoors_is_the_rest(rs):
    """S3.2: cabin = kitchen, two bedrooms, bathroom, family room, foyer, laundry room, garage;
    indoors = the cabin + the shed + the boathouse; outdoors = every other location."""
    s = rs.scenarios["wingard-cottage"]
    tagged = {t: {loc.id for loc in s.locations if t in loc.tags} for t in ("cabin", "indoor", "outdoor")}
    every = {loc.id for loc in s.locations}
    assert tagged["cabin"] == CABIN
    assert tagged["indoor"] == CABIN | {"tool-shed", "boathouse"}
    assert tagged["outdoor"] == every - tagged["indoor"] and tagged["outdoor"]


@pytest.mark.parametrize(("where", "fear"), [("lake-lawn", 3), ("dock", 3), ("tool-shed", 2), ("boathouse", 2),
                                             ("kitchen", 2)])
def test_S3_2_a_cold_drizzle_chills_her_only_outdoors(cot, where, fear):
    """S3.2: 'A Cold Drizzle' raises fear at the start of Upkeep while she is outdoors; the shed and
    the boathouse are indoors."""
    s = settle(cot, events_active=("cold-drizzle",), fg_loc=L(cot, where), phase="upkeep", sub=0)
    w = make_work(s)
    engine.STEPS["upkeep"](w)
    assert w.fear == fear


def test_S3_2_the_power_cut_costs_time_only_in_the_cabin(cot):
    """S3.2: the power cut bites in the cabin's rooms, not in the shed (indoors but not the cabin)."""
    for where, time in (("bathroom", 5), ("tool-shed", 6)):
        s = settle(cot, events_active=("power-cut",), fg_loc=L(cot, where), phase="planning", sub=0, time=6)
        w = make_work(s)
        engine.fire(w, "end:planning")
        assert w.time == time, where


# === S3.3 raw materials ============================================================================
@pytest.mark.parametrize("raw", sorted(RAW))
def test_S3_3_a_raw_material_is_packed_where_the_map_pictures_it_for_time(cot, raw):
    """S3.3: at its pictured location she may spend 1 time to put the raw material in her backpack."""
    here = settle(cot, fg_loc=L(cot, WHERE[raw]), time=3)
    assert f"action:{PACK[raw]}" in menu(here)
    w = make_work(here, [f"action:{PACK[raw]}"])
    engine.step_action(w)
    assert ids(w.pack) == [raw] and w.held == () and raw not in w.table and w.time == 2
    others = [a for r, a in PACK.items() if r != raw]
    assert not any(f"action:{a}" in menu(here) for a in others)


def test_S3_3_no_raw_material_where_the_map_shows_none(cot):
    """S3.3: the kitchen pictures no raw material: nothing to pack."""
    assert not any(k.startswith("action:pack-") for k in menu(cot))


def test_S3_3_a_raw_material_not_on_the_table_cannot_be_packed(cot):
    """S3.3: one card of each: once she has the rope, the dock offers no more."""
    s = settle(cot, fg_loc=L(cot, "dock"), table=tuple(i for i in cot.table if i != "raw-rope"),
               pack=(HeldItem("raw-rope", 0),))
    assert "action:pack-rope" not in menu(s)


@pytest.mark.parametrize("how", ["by name", "chosen"])
def test_S3_3_a_discarded_raw_material_returns_to_the_table_to_be_packed_again(cot, how):
    """S3.3: discarded (an event's 'discard an item'), it goes back face up on the table, and the
    dock offers it again."""
    from lastbreath.dsl import nodes as n

    s = settle(cot, fg_loc=L(cot, "dock"), table=tuple(i for i in cot.table if i != "raw-rope"),
               pack=(HeldItem("raw-rope", 0),))
    w = make_work(s, ["discard-item:raw-rope"])
    effect = n.DiscardItem(None, "raw-rope") if how == "by name" else n.DiscardChosenItem(None)
    engine.run(w, (effect,), Ctx())
    assert w.pack == () and "raw-rope" in w.table
    assert "action:pack-rope" in menu(w.freeze())


# === S3.4 crafting =================================================================================
def test_S3_4_a_recipe_is_offered_with_its_ingredients_held_and_its_card_face_up(cot):
    """S3.4: the nail bat is made from lumber and nails, while its card lies face up."""
    both = (HeldItem("raw-lumber", 0), HeldItem("raw-nails", 0))
    table = tuple(i for i in cot.table if i not in ("raw-lumber", "raw-nails"))
    assert "recipe:make-nail-bat" in menu(settle(cot, pack=both, table=table))
    assert "recipe:make-nail-bat" not in menu(settle(cot, pack=both[:1], table=table))
    face_down = tuple(i for i in table if i != "nail-bat")
    assert "recipe:make-nail-bat" not in menu(settle(cot, pack=both, table=face_down)), "not face up: not made"


def test_S3_4_making_discards_the_ingredients_spends_time_and_takes_the_item(cot):
    """S3.4: she discards what the card lists, spends its time and takes the made item into her
    hands (a weapon) or backpack; the raw materials go back to the table (S3.3); an ordinary item
    used as an ingredient is simply discarded."""
    table = tuple(i for i in cot.table if i not in ("raw-lumber", "raw-rope"))
    s = settle(cot, pack=(HeldItem("raw-lumber", 0), HeldItem("raw-rope", 0)), held=(HeldItem("carving-knife", 0),),
               table=table, time=4)
    w = make_work(s, ["recipe:make-lashed-spear", "hand"])
    engine.step_action(w)
    assert ids(w.held) == ["lashed-spear"] and w.pack == () and w.time == 3
    assert {"raw-lumber", "raw-rope"} <= set(w.table) and "lashed-spear" not in w.table
    assert "carving-knife" not in w.table
    assert [e.rule for e in w.ctl.events][:1] == ["S3.4"]


def test_S3_4_a_made_item_may_go_to_the_backpack(cot):
    """S3.4: 'hand or backpack': a made item that is no weapon goes to the backpack."""
    table = tuple(i for i in cot.table if i not in ("raw-lumber",))
    s = settle(cot, pack=(HeldItem("raw-lumber", 0), HeldItem("bedsheets", 1)), table=table)
    w = make_work(s, ["recipe:make-board-splint"])
    engine.step_action(w)
    assert ids(w.pack) == ["board-splint"] and w.time == 6  # no time: 'time 0'


def test_S3_4_a_discarded_crafted_item_returns_to_the_table_and_can_be_made_again(cot):
    """S3.4: discarded, a crafted item goes back face up on the table; the recipe is offered again."""
    from lastbreath.dsl import nodes as n

    table = tuple(i for i in cot.table if i != "chain-flail")
    s = settle(cot, held=(HeldItem("chain-flail", 0),), table=table)
    w = make_work(s)
    engine.run(w, (n.DiscardItem(None, "chain-flail"),), Ctx())
    assert w.held == () and "chain-flail" in w.table
    w.pack = (HeldItem("raw-scrap-tools", 0), HeldItem("raw-rope", 0))
    w.table = tuple(i for i in w.table if i not in ("raw-scrap-tools", "raw-rope"))
    assert "recipe:make-chain-flail" in menu(w.freeze())


def test_S3_4_a_used_up_crafted_item_returns_to_the_table_fresh(cot):
    """S3.4 (open, default): the fire bomb's one use spent, it goes back on the table and is made
    again with its use restored."""
    table = tuple(i for i in cot.table if i != "fire-bomb")
    s = settle(cot, pack=(HeldItem("fire-bomb", 1),), table=table, fg_loc=L(cot, "kitchen"),
               killers=(engine.evolve_killer(cot.killers[0], loc=L(cot, "kitchen")),))
    w = make_work(s, ["use:fire-bomb", "killer:0"])
    engine.step_action(w)
    assert w.pack == () and "fire-bomb" in w.table
    assert w.killers[0].health == cot.killers[0].health - 3
    s2 = settle(w.freeze(), pack=(HeldItem("kerosene-can", 1), HeldItem("bedsheets", 1)))
    w2 = make_work(s2, ["recipe:make-fire-bomb"])
    engine.step_action(w2)
    assert w2.pack == (HeldItem("fire-bomb", 1),)


def test_S3_4_a_crafted_item_discarded_half_used_comes_back_with_every_use(cot):
    """S3.4 (open, default): the plank crossbow discarded with one of its three uses left comes
    back on the table fresh: taken again, it has three."""
    from lastbreath.dsl import nodes as n

    table = tuple(i for i in cot.table if i != "plank-crossbow")
    w = make_work(settle(cot, held=(HeldItem("plank-crossbow", 1),), table=table), ["hand"])
    engine.run(w, (n.DiscardItem(None, "plank-crossbow"),), Ctx())
    engine.run(w, (n.TakeItem(None, "plank-crossbow", "table"),), Ctx())
    assert w.held == (HeldItem("plank-crossbow", 3),)


def test_S3_4_a_used_up_ingredient_stays_usable_as_an_ingredient(cot):
    """S3.4, C6.4 (issue #34): the lamp oil's one use spent, she keeps it (a recipe needs it): no use
    is offered, and with the bedsheets it still makes the fire bomb, its uses restored as it is
    discarded. An item no recipe needs is discarded at its last use (C6.4)."""
    table = tuple(i for i in cot.table if i not in ("raw-lumber",))
    s = settle(cot, pack=(HeldItem("kerosene-can", 1), HeldItem("bedsheets", 1), HeldItem("med-kit", 1)),
               table=table, fear=4)
    w = make_work(s, ["use:kerosene-can"])
    engine.step_action(w)
    assert w.pack[0] == HeldItem("kerosene-can", 0) and w.fear == 3
    assert any(e.rule == "S3.4" and "used up" in e.text for e in w.ctl.events)
    keys = menu(w.freeze())
    assert "use:kerosene-can" not in keys and "use:bedsheets" in keys and "recipe:make-fire-bomb" in keys
    w2 = make_work(w.freeze(), ["recipe:make-fire-bomb"])
    engine.step_action(w2)
    assert sorted(ids(w2.pack)) == ["fire-bomb", "med-kit"]
    assert any(e.rule == "S3.4" and "its uses are restored" in e.text for e in w2.ctl.events)
    w3 = make_work(w2.freeze(), ["use:med-kit"])
    engine.step_action(w3)
    assert "med-kit" not in ids(w3.pack), "no recipe needs it: discarded at its last use (C6.4)"


def test_S3_4_boarding_up_a_door_only_in_the_cabin(cot):
    """S3.4: the boarded door is made only in the cabin's rooms (its recipe's 'usable while')."""
    three = (HeldItem("raw-lumber", 0), HeldItem("raw-nails", 0), HeldItem("raw-scrap-tools", 0))
    table = tuple(i for i in cot.table if i not in RAW)
    assert "recipe:make-boarded-door" in menu(settle(cot, pack=three, table=table, fg_loc=L(cot, "garage")))
    assert "recipe:make-boarded-door" not in menu(settle(cot, pack=three, table=table, fg_loc=L(cot, "tool-shed")))


def test_S3_4_the_snare_holds_an_enemy_until_upkeep(cot):
    """S3.4: the rope snare (a crafted item) snares the killer where she stands: it does not move in
    the Killer phase (it still attacks), and the snare comes off in Upkeep."""
    s = settle(cot, pack=(HeldItem("rope-snare", 1),), fg_loc=L(cot, "kitchen"),
               killers=(engine.evolve_killer(cot.killers[0], loc=L(cot, "kitchen")),))
    w = make_work(s, ["use:rope-snare"])
    engine.step_action(w)
    assert "snared" in w.killers[0].status and "rope-snare" in w.table
    w.fg_loc = L(cot, "foyer")
    w.phase = "killer"  # it holds in the Killer phase (S5.5's rule)
    engine.hunt(w, "killer", "fg", 2, 1)
    assert w.killers[0].loc == L(cot, "kitchen")
    w2 = make_work(settle(w.freeze(), phase="upkeep", sub=0))
    engine.STEPS["upkeep"](w2)
    assert "snared" not in w2.killers[0].status


# === every killer in the cottage ====================================================================
@pytest.mark.parametrize("killer", ["big-bad-wolf", "evomorph", "intruders", "ratchet-lady", "zombies", "organism"])
def test_every_killer_plays_a_whole_game_in_the_cottage(rs, killer):
    """S3 with every bundled killer: greedy and random games end, without errors."""
    from lastbreath.interpreter.bots import BOTS

    for bot in ("greedy", "random"):
        for seed in range(2):
            state, _ = api.new_game(rs, killer=killer, scenario="wingard-cottage", seed=seed)
            state = api.play(state, BOTS[bot](seed))
            assert state.over and state.result in ("fg", "killer")


@pytest.mark.parametrize("table", ["all", "none"])
def test_S3_3_the_action_menu_offers_at_each_location_exactly_the_actions_whose_condition_holds(cot, table):
    """The Action menu reads, at her location, only the actions whose leading 'fg at tag' parts hold
    there (found once per game: a board's tags never change), then the rest of each condition; the
    menu must offer exactly the actions whose whole condition holds, everywhere."""
    from lastbreath.interpreter.engine.resolve import condition
    from lastbreath.interpreter.engine.tables import NO_CTX

    g = cot.game
    assert g.actions and any(a.cond is not None for a in g.actions)
    for here in range(g.board.n):
        s = settle(cot, fg_loc=here, table=cot.table if table == "all" else ())
        offered = {k for k in menu(s) if k.startswith("action:")}
        w = make_work(s)
        holds = {f"action:{a.id}" for a in g.actions if a.cond is None or condition(w, a.cond, NO_CTX)}
        assert offered == holds, g.board.ids[here]


def test_an_actions_leading_fg_at_tag_parts_are_read_from_the_board_the_rest_at_each_decision():
    from lastbreath.dsl import nodes as n
    from lastbreath.interpreter.engine.game import _placed

    sp = n.Span("<t>", 1, 1, 1, 2)
    at_a, at_b, other = n.FgAtTag(sp, "a"), n.FgAtTag(sp, "b"), n.ItemIn(sp, "rope", "table")
    assert _placed(None) == (frozenset(), None)
    assert _placed(at_a) == (frozenset({"a"}), None)
    assert _placed(n.AllOf(sp, (at_a, at_b))) == (frozenset({"a", "b"}), None)
    tags, rest = _placed(n.AllOf(sp, (at_a, other)))
    assert tags == {"a"} and rest is not None
    tags, rest = _placed(n.AllOf(sp, (other, at_a)))  # only the leading parts: the order of reading stays
    assert tags == frozenset() and rest is not None
