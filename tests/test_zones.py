"""Item and card zones (issue #16 item 6): items on the table, set aside, held, on the item piles
and in named piles with a face-up row; copies; items that return to the table; recipes; items
that cannot be discarded; 'usable while' on cards, items and actions; deck fates, reshuffling,
numbered and two-sided cards. The engine is tested on the test pack tests/packs/zones, which
also plays full games under 'lastbreath simulate' and 'lastbreath fuzz'.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from conftest import make_work, need
from lastbreath.dsl import bundled_paths, load_content, load_ruleset, parse_text
from lastbreath.dsl import nodes as n
from lastbreath.dsl.build import build_file
from lastbreath.dsl.render import Names, render
from lastbreath.interpreter import engine, serialize
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.state import HeldItem

PACK = Path(__file__).resolve().parent / "packs" / "zones"
SETUP = {"killer": "zt-lurker", "scenario": "zt-workshop"}


@pytest.fixture(scope="module")
def rs():
    return load_ruleset([*bundled_paths(), PACK])


@pytest.fixture(scope="module")
def start(rs):
    """A new game of the test pack (seed 1), paused at its first Action-phase choice."""
    state, events = new_game(rs, seed=1, **SETUP)
    return state, events


def at(state, **fields):
    """The game's first checkpoint (the Action phase, before its first choice) with fields replaced."""
    return engine.replace(state.checkpoint, **fields)


def action_menu(s) -> list[str]:
    return need(make_work(s), engine.step_action).keys()


def loc(rs, name: str) -> int:
    return rs.scenarios["zt-workshop"].locations.index(
        next(x for x in rs.scenarios["zt-workshop"].locations if x.id == name))


def ids(items) -> list[str]:
    return [h.id for h in items]


def texts(w) -> list[str]:
    return [e.text for e in w.ctl.events]


# --- the language: building and checking ---------------------------------------------------------
def build(text: str):
    lines, diags = parse_text(text, "<test>")
    assert diags == []
    return build_file(lines, "<test>", text)


def check(tmp_path: Path, text: str) -> list[str]:
    folder = tmp_path / "pack"
    folder.mkdir(exist_ok=True)
    (folder / "x.fg").write_text(text, encoding="utf-8")
    _rs, diags = load_content([*bundled_paths(), folder])
    return [d.code for d in diags]


HOST = """\
scenario zx-host {{
  name "Host"
  tags lab
  location zx-a {{ name "A"; exit }}
  location zx-b {{ name "B"; search; tags lab }}
  path zx-a (1 2 3) -- (1 2 3) zx-b
  setup zx-s {{ killer at zx-b; fg at zx-a; victims at zx-b 1 }}
{body}
}}
"""


def test_item_start_lines_build_their_zones():
    """S1.1, S2.1, S3.1, K2.2: where an item's cards start, and how many there are."""
    decls, refs, diags = build(HOST.format(body="""\
  pile zx-p { name "P"; row 1 }
  item zx-t { name "T"; copies 3; start table; returns to the table when discarded }
  item zx-s2 { name "S"; start aside }
  item zx-h { name "H"; start held; cannot be discarded while flag x }
  item zx-o { name "O"; start on piles; usable while fg at tag lab; use time 0 { heal 1 } }
  item zx-q { name "Q"; start pile zx-p; keep }
"""))
    assert diags == []
    items = {it.id: it for it in decls[0].items}
    assert (items["zx-t"].copies, items["zx-t"].start, items["zx-t"].returns) == (3, "table", True)
    assert items["zx-s2"].start == "aside"
    assert items["zx-h"].start == "held" and items["zx-h"].keep and isinstance(items["zx-h"].keep_cond, n.FlagSet)
    assert items["zx-o"].start == "on-piles" and isinstance(items["zx-o"].usable, n.FgAtTag)
    assert (items["zx-q"].start, items["zx-q"].pile, items["zx-q"].keep, items["zx-q"].keep_cond) == ("pile", "zx-p",
                                                                                                         True, None)
    assert decls[0].piles == (n.ItemPile(decls[0].piles[0].span, "zx-p", "P", 1),)
    assert ("pile", "zx-p") in [(r.kind, r.name) for r in refs]


@pytest.mark.parametrize("line, code", [
    ("start shelf", "E205"), ("start pile", "E205"), ("copies 21", "E209"), ("copies 0", "E209"),
    ("returns to the table", "E205"), ("cannot be discarded if flag x", "E205"), ("usable when flag x", "E205"),
])
def test_bad_item_zone_lines_are_reported(line, code):
    _decls, _refs, diags = build(f'item zx-i {{ name "I"; {line} }}\n')
    assert [d.code for d in diags] == [code], [d.message for d in diags]


def test_a_row_larger_than_its_pile_is_refused(tmp_path):
    """S3.1: the row is laid from the pile: it cannot hold more cards than the pile (E210)."""
    body = '  pile zx-p { name "P"; row 3 }\n  item zx-q { name "Q"; copies 2; start pile zx-p }\n'
    assert check(tmp_path, HOST.format(body=body)) == ["E210"]
    assert check(tmp_path, HOST.format(body=body.replace("row 3", "row 2"))) == []


def test_a_pile_no_item_starts_in_is_refused(tmp_path):
    assert check(tmp_path, HOST.format(body='  pile zx-p { name "P"; row 0 }\n')) == ["E210"]


def test_an_item_in_an_undeclared_pile_is_refused(tmp_path):
    body = '  pile zx-p { name "P" }\n  item zx-q { name "Q"; start pile zx-bin }\n'
    assert sorted(check(tmp_path, HOST.format(body=body))) == ["E204", "E210"]
    assert check(tmp_path, 'item zx-q { name "Q"; start pile zx-p }\n') == ["E204"]  # outside a scenario or killer


def test_a_recipe_needing_an_item_that_does_not_exist_is_refused(tmp_path):
    body = ('  item zx-t { name "T"; start table }\n'
            '  recipe zx-r { name "R"; needs zx-nothing; time 1; makes zx-t }\n')
    assert check(tmp_path, HOST.format(body=body)) == ["E204"]


def test_a_recipe_whose_item_never_lies_on_the_table_is_refused(tmp_path):
    """S3.4: a recipe takes the item it makes from the table (E210 when it can never be there)."""
    body = ('  item zx-t { name "T"; start table }\n  item zx-m { name "M" }\n'
            '  recipe zx-r { name "R"; needs zx-t; time 1; makes zx-m }\n')
    assert check(tmp_path, HOST.format(body=body)) == ["E210"]
    assert check(tmp_path, HOST.format(body=body.replace('name "M" }', 'name "M"; start table }'))) == []


def test_a_recipe_needs_its_lines(tmp_path):
    assert check(tmp_path, HOST.format(body='  recipe zx-r { name "R"; time 1 }\n')) == ["E202", "E202"]


DECK = """\
  deck zx-d {{
    name "D"
{body}
  }}
"""


@pytest.mark.parametrize("body, codes", [
    ('    half a\n    card zx-c { name "C"; half b { effect { heal 1 } } }', ["E204"]),
    ('    after discard\n    after keep\n    card zx-c { name "C" }', ["E206"]),
    ('    after burn\n    card zx-c { name "C" }', ["E204"]),
    ('    card zx-c { name "C"; start hand }', ["E204"]),
    ('    half a\n    half a while flag x\n    card zx-c { name "C" }', ["E206"]),
    ('    reshuffle when it is empty\n    card zx-c { name "C" }', ["E205"]),
    ('    card zx-c { name "C"; number 101 }', ["E209"]),
    ('    card zx-c { name "C"; effect { shuffle card zx-nope into zx-d } }', ["E204"]),
])
def test_bad_deck_lines_are_reported(tmp_path, body, codes):
    assert check(tmp_path, HOST.format(body=DECK.format(body=body))) == codes


def test_deck_options_build():
    """K1.6: reshuffle when empty, fates, numbers, halves chosen by a condition; cards set aside or on
    the table."""
    decls, _refs, diags = build(HOST.format(body=DECK.format(body="""\
    reshuffle when empty
    after return
    half a
    half b while flag late
    card zx-c { name "C"; number 3; copies 2; after remove; half a { effect { heal 1 } }; half b { number 5 } }
    card zx-e { name "E"; start aside; effect { shuffle card zx-c into zx-d } }""")))
    assert diags == []
    d = decls[0].decks[0]
    assert (d.reshuffle, d.after, [h.name for h in d.halves]) == (True, "return", ["a", "b"])
    assert d.halves[0].cond is None and isinstance(d.halves[1].cond, n.FlagSet)
    c, e = d.cards
    assert (c.number, c.copies, c.after, [h.name for h in c.halves], c.halves[1].number) == (3, 2, "remove",
                                                                                              ["a", "b"], 5)
    assert e.start == "aside" and isinstance(e.effects[0], n.ShuffleCardInto)


def test_the_test_pack_checks_clean_and_is_in_canonical_form():
    _rs, diags = load_content([*bundled_paths(), PACK])
    assert [d.format() for d in diags] == []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["fmt", "--check", str(PACK)]) == 0


def test_zones_in_english(rs):
    names = Names.from_ruleset(rs)
    scenario = render(rs.scenarios["zt-workshop"], names)
    killer = render(rs.killers["zt-lurker"], names)
    assert "Twine (item): goes in the backpack · 2 copies · starts face up on the table · returns to the table " \
           "when discarded" in scenario
    assert "Bench [zt-bench] (item pile; shuffled at setup, its top 2 laid face up on the table)" in scenario
    assert ("Make a club (recipe, Action phase): discard Twine and Plank, and spend 1 time, to take Club from the "
            "table"
            in scenario)
    assert "Badge (item): goes in the backpack · cannot be discarded while the flag unpinned is not set" in scenario
    assert "Gather twine (Action phase action: spend 1 time, while you are at a yard location, while Twine is on " \
           "the table): Take Twine from the table (if it is there)." in scenario
    assert "Play it only while the killer is in lurk mode." in killer
    assert "Use it only while you are at a lab location." in killer
    assert "When it is empty, its discards are shuffled into a new deck." in killer
    assert "Its cards' late half is read while the killer is in prowl mode." in killer
    assert "Late half (number 2): The killer hunts" in killer
    assert "Omen (once resolved: removed from the game)" in killer
    assert "Relic (starts set aside): Heal 1." in killer
    assert "Readings [zt-readings] (deck of 2 cards)\n    A card drawn is shuffled back into its deck once resolved." \
        in killer
    assert "Watchful (starts face up on the table, in play)\n" in killer


# --- setup ---------------------------------------------------------------------------------------
def test_S1_1_items_start_on_the_table_and_set_aside(start):
    """S1.1: item cards lie on the table (each copy) or set aside from the start; one that returns to the
    table when discarded is laid out as S3.1's raw materials are, and cites S3.1 (issue #34)."""
    state, events = start
    assert state.table.count("zt-twine") == 2 and "zt-plank" in state.table
    assert any(e.rule == "S3.1" and "Twine lies face up on the table (2 copies)" in e.text for e in events)
    assert any(e.rule == "S1.1" and e.text == "Spare Key is set aside" for e in events)


def test_S2_1_items_held_from_the_start(start):
    """S2.1: she starts with an item: a weapon in her hands, the others in the backpack."""
    state, _ = start
    assert ids(state.held) == ["zt-pocketknife"] and "zt-badge" in ids(state.pack)


def test_S3_1_a_row_from_a_named_pile_lies_face_up_on_the_table(start):
    """S3.1: the pile is shuffled; its top two go face up on the table, the third stays in the pile."""
    state, events = start
    bench = {"zt-club", "zt-lantern", "zt-splint"}
    row = [i for i in state.table if i in bench]
    assert len(row) == 2 and state.item_piles == (("zt-bench", tuple(bench - set(row))),)
    assert any(e.rule == "S3.1" for e in events)
    rs = state.game.ruleset
    rows = {tuple(i for i in new_game(rs, seed=seed, **SETUP)[0].table if i in bench) for seed in range(12)}
    assert len(rows) > 2  # at random


def test_K2_2_an_item_lies_face_up_on_each_item_pile(start):
    """K2.2: one copy on each pile (two search locations here); the copies beyond are set aside."""
    state, _ = start
    assert state.on_piles == ((0, "zt-field-kit"), (1, "zt-field-kit"))
    assert state.aside.count("zt-field-kit") == 2


def test_items_with_a_start_line_stay_out_of_the_item_piles_and_copies_are_dealt(start):
    """C18.4: the piles are dealt from the items without a start line, each copy a card."""
    state, _ = start
    dealt = [c for pile in state.piles for c, _up in pile]
    assert not {"zt-twine", "zt-club", "zt-field-kit", "zt-pocketknife"} & set(dealt)
    assert dealt.count("zt-rope-ladder") <= 2 and len(dealt) == 7  # 6 cards of the pool + the signature item


def test_deck_cards_start_set_aside_or_on_the_table_with_copies(start):
    state, _ = start
    deck = dict(state.decks)["zt-signs"]
    assert sorted(deck) == sorted(["zt-scratch", "zt-breath", "zt-silence", "zt-silence", "zt-omen", "zt-echo"])
    assert state.cards_aside == ("zt-signs/zt-relic",) and state.kept == ("zt-signs/zt-watch",)


def test_a_card_on_the_table_is_in_play(start):
    """'start table' on a deck card: its rules are in play from the start (+1 die while it lurks)."""
    state, _ = start
    card = state.game.cards["walk"]
    w = make_work(at(state, fear=0, mode_active="lurk"))
    dice = engine.dice_for(w, card)
    assert dice == engine.dice_for(make_work(at(state, fear=0, mode_active="lurk", kept=())), card) + 1
    assert dice == engine.dice_for(make_work(at(state, fear=0, mode_active="prowl")), card) + 1


def test_bundled_games_use_no_zones(game):
    assert (game.table, game.aside, game.item_piles, game.on_piles, game.cards_aside) == ((), (), (), (), ())


# --- the table, set-aside cards and discards -------------------------------------------------------------
def test_S3_3_an_action_takes_an_item_from_the_table(rs, start):
    """S3.3: in the yard she may spend time to take twine from the table, while some lies there."""
    state, _ = start
    yard = loc(rs, "zt-yard")
    assert "action:zt-gather-twine" in action_menu(at(state, fg_loc=yard))
    assert "action:zt-gather-twine" not in action_menu(at(state, fg_loc=yard, table=("zt-plank",)))
    assert "action:zt-gather-twine" not in action_menu(at(state, fg_loc=loc(rs, "zt-shed")))
    w = make_work(at(state, fg_loc=yard, time=3), ["action:zt-gather-twine"])
    engine.step_action(w)
    assert w.table.count("zt-twine") == 1 and "zt-twine" in ids(w.pack) and w.time == 2


def test_taking_an_item_that_is_not_there_takes_nothing(start):
    state, _ = start
    w = make_work(at(state, table=()))
    engine.run(w, (n.TakeItem(None, "zt-twine", "table"),), engine.Ctx())
    assert "zt-twine" not in ids(w.pack) and "Twine is not on the table: nothing is taken" in texts(w)


def test_S3_3_a_discarded_item_returns_to_the_table(start):
    """S3.3–S3.4: discarded, it goes back to the table; the discard triggers still fire."""
    state, _ = start
    w = make_work(at(state, table=(), pack=(HeldItem("zt-twine", 0),)))
    engine.run(w, (n.DiscardItem(None, "zt-twine"),), engine.Ctx())
    assert w.table == ("zt-twine",) and w.pack == ()
    assert "Twine returns to the table" in texts(w)


def test_S3_4_an_item_returning_to_the_table_comes_back_fresh(start):
    """S3.4 (open, default): used up (C6.4) or discarded half used, it returns with all its uses."""
    state, _ = start
    w = make_work(at(state, table=(), pack=(HeldItem("zt-lantern", 1),)))
    engine.use_uses(w, "zt-lantern")  # its last use: discarded (C6.4), back to the table
    assert w.table == ("zt-lantern",) and w.pack == ()
    engine.run(w, (n.TakeItem(None, "zt-lantern", "table"),), engine.Ctx())
    assert w.pack == (HeldItem("zt-lantern", 2),) and w.table == ()


def test_S1_3_an_item_that_cannot_be_discarded_is_left_alone_by_every_discard(start):
    """S1.3: by name, by the player's choice or at random, the badge stays while it is pinned."""
    state, _ = start
    s = at(state, held=(), pack=(HeldItem("zt-badge", 0),))
    for effect in (n.DiscardItem(None, "zt-badge"), n.DiscardChosenItem(None), n.DiscardRandomItem(None)):
        w = make_work(s)
        engine.run(w, (effect,), engine.Ctx())
        assert ids(w.pack) == ["zt-badge"]
    w = make_work(s)
    engine.run(w, (n.DiscardRandomItem(None),), engine.Ctx())
    assert "no item can be discarded" in texts(w)
    w = make_work(at(state, held=(), pack=(HeldItem("zt-badge", 0),), flags=frozenset({"unpinned"})))
    engine.run(w, (n.DiscardItem(None, "zt-badge"),), engine.Ctx())
    assert w.pack == ()  # while its condition does not hold, it can be discarded


def test_S1_3_a_chosen_discard_offers_only_what_can_be_discarded(start):
    state, _ = start
    s = at(state, held=(HeldItem("zt-pocketknife", 0),), pack=(HeldItem("zt-badge", 0), HeldItem("zt-twine", 0)))
    choice = need(make_work(s), engine.run, (n.DiscardChosenItem(None),), engine.Ctx())
    assert choice.keys() == ["discard-item:zt-pocketknife", "discard-item:zt-twine"]
    w = make_work(s, ["discard-item:zt-twine"])
    engine.run(w, (n.DiscardChosenItem(None),), engine.Ctx())
    assert ids(w.pack) == ["zt-badge"] and "zt-twine" in w.table


def test_a_random_discard_draws_from_the_generator(start):
    state, _ = start
    s = at(state, held=(HeldItem("zt-pocketknife", 0),), pack=(HeldItem("zt-badge", 0), HeldItem("zt-twine", 0)))
    gone = set()
    for seed in range(12):
        w = make_work(engine.replace(s, seed=seed))
        engine.run(w, (n.DiscardRandomItem(None),), engine.Ctx())
        assert w.rng == s.rng + 1
        gone |= {"zt-pocketknife", "zt-twine"} - set(ids((*w.held, *w.pack)))
    assert gone == {"zt-pocketknife", "zt-twine"}


def test_S1_7_putting_an_item_on_the_table_is_not_a_discard(start):
    """S1.7: its card goes back to the table; the item is not discarded (no discard trigger)."""
    state, _ = start
    w = make_work(at(state, table=()))
    engine.run(w, (n.PutItemOnTable(None, "zt-pocketknife"),), engine.Ctx())
    assert w.held == () and w.table == ("zt-pocketknife",)
    assert not any("discards" in t for t in texts(w))


def test_an_item_is_set_aside_from_her_items_or_the_table(start):
    state, _ = start
    w = make_work(at(state, aside=()))
    engine.run(w, (n.SetAsideItem(None, "zt-pocketknife"), n.SetAsideItem(None, "zt-plank")), engine.Ctx())
    assert w.aside == ("zt-pocketknife", "zt-plank") and "zt-plank" not in w.table and w.held == ()
    assert engine.condition(w, n.ItemIn(None, "zt-plank", "aside"), engine.Ctx())
    assert not engine.condition(w, n.ItemIn(None, "zt-plank", "table"), engine.Ctx())


# --- the item piles: items lying on them (K2.2, K2.5) ------------------------------------------------------
def test_K2_5_a_search_that_gains_an_item_offers_the_one_lying_on_the_pile(rs, start):
    state, _ = start
    s = at(state, fg_loc=loc(rs, "zt-shed"))
    w = make_work(s, ["take"])
    engine.search(w, 1, 1, look_mode=False)
    assert w.on_piles == ((1, "zt-field-kit"),) and "zt-field-kit" in ids((*w.held, *w.pack))
    w = make_work(s, ["leave"])
    engine.search(w, 1, 1, look_mode=False)
    assert w.on_piles == s.on_piles and "zt-field-kit" not in ids((*w.held, *w.pack))
    w = make_work(at(state, fg_loc=loc(rs, "zt-shed"), piles=((), s.piles[1])))  # nothing gained: no offer
    engine.search(w, 1, 1, look_mode=False)
    assert w.on_piles == s.on_piles


def test_K2_5_an_item_is_usable_only_while_its_condition_holds(rs, start):
    """K2.5: the kit's use is offered in a lab only."""
    state, _ = start
    kit = (HeldItem("zt-field-kit", 1),)
    assert "use:zt-field-kit" in action_menu(at(state, pack=kit, fg_loc=loc(rs, "zt-shed")))
    assert "use:zt-field-kit" not in action_menu(at(state, pack=kit, fg_loc=loc(rs, "zt-loft")))


def test_K1_7_a_card_is_playable_only_while_its_condition_holds(start):
    """K1.7: a card usable only while a condition holds is not offered otherwise."""
    state, _ = start
    hand = tuple(sorted(state.hand + ("zt-listen",)))
    assert "play:zt-listen" in action_menu(at(state, hand=hand, mode_active="lurk"))
    assert "play:zt-listen" not in action_menu(at(state, hand=hand, mode_active="prowl"))


# --- recipes (S3.4) ------------------------------------------------------------------------------------
def test_S3_4_a_recipe_is_offered_with_its_items_held_and_its_item_on_the_table(rs, start):
    state, _ = start
    both = (HeldItem("zt-twine", 0), HeldItem("zt-plank", 0))
    assert "recipe:zt-make-club" in action_menu(at(state, pack=both, table=("zt-club",)))
    assert "recipe:zt-make-club" not in action_menu(at(state, pack=both[:1], table=("zt-club",)))  # no plank
    assert "recipe:zt-make-club" not in action_menu(at(state, pack=both, table=()))  # no club on the table
    two = (HeldItem("zt-twine", 0),) * 2
    shed, porch = loc(rs, "zt-shed"), loc(rs, "zt-porch")
    assert "recipe:zt-make-splint" in action_menu(at(state, pack=two, table=("zt-splint",), fg_loc=shed))
    assert "recipe:zt-make-splint" not in action_menu(at(state, pack=two[:1], table=("zt-splint",), fg_loc=shed))
    assert "recipe:zt-make-splint" not in action_menu(at(state, pack=two, table=("zt-splint",), fg_loc=porch))


def test_S3_4_a_recipe_discards_its_items_spends_time_and_takes_its_item_from_the_table(start):
    state, _ = start
    s = at(state, held=(), pack=(HeldItem("zt-twine", 0), HeldItem("zt-plank", 0)), table=("zt-club",), time=4)
    w = make_work(s, ["recipe:zt-make-club", "hand"])
    engine.step_action(w)
    assert ids(w.held) == ["zt-club"] and w.pack == () and w.time == 3
    assert sorted(w.table) == ["zt-plank", "zt-twine"]  # the ingredients return to the table (S3.3)
    assert [e.rule for e in w.ctl.events][:1] == ["S3.4"]


def test_a_recipe_cannot_use_an_item_that_cannot_be_discarded(start):
    state, _ = start
    w = make_work(at(state))
    recipe = n.Recipe(None, "r", "R", ("zt-badge",), 0, "zt-plank")
    assert not engine.zones.can_make(w, recipe)
    w = make_work(at(state, flags=frozenset({"unpinned"})))
    assert engine.zones.can_make(w, recipe)


# --- decks: fates, reshuffles, halves, numbers (K1.6) ---------------------------------------------------------
def draw(s, deck="zt-signs"):
    w = make_work(s)
    engine.draw_card(w, deck)
    return w


def test_a_resolved_card_is_discarded_by_default(start):
    state, _ = start
    w = draw(at(state, decks=(("zt-signs", ("zt-silence", "zt-echo")),)))
    assert dict(w.decks)["zt-signs"] == ("zt-echo",) and w.deck_discards == (("zt-signs", ("zt-silence",)),)


def test_K1_6_a_deck_reshuffles_its_discards_when_empty(start):
    state, _ = start
    s = at(state, decks=(("zt-signs", ()),), deck_discards=(("zt-signs", ("zt-silence", "zt-echo", "zt-breath")),))
    w = draw(s)
    left = dict(w.decks)["zt-signs"]
    drawn = {"zt-silence", "zt-echo", "zt-breath"} - set(left)
    assert len(left) == 2 and len(drawn) == 1 and "discards are shuffled into a new one" in " ".join(texts(w))
    assert w.deck_discards == (("zt-signs", tuple(drawn)),)  # the drawn card starts the new discards
    assert w.ctl.events[0].rule == "K1.6"


def test_a_deck_that_does_not_reshuffle_stays_empty(start):
    state, _ = start
    s = at(state, decks=(("zt-signs", ()), ("zt-readings", ())), deck_discards=(("zt-readings", ("zt-taint",)),))
    w = draw(s, "zt-readings")
    assert dict(w.decks)["zt-readings"] == () and w.deck_discards == s.deck_discards
    assert texts(w) == ["the Readings deck is empty"]


def test_K1_6_the_half_read_follows_the_condition_and_the_card_number_is_read(start):
    """K1.6: early half while it lurks, late half (which prints its own number) once it prowls."""
    state, _ = start
    s = at(state, decks=(("zt-signs", ("zt-scratch",)),), time=5, mode_active="lurk")
    w = draw(s)
    assert w.time == 4 and w.card_number == 1  # early: lose (card number) time
    assert "Scratches: its early half (number 1)" in texts(w)
    w = draw(engine.replace(s, mode_active="prowl"))
    assert w.time == 5 and w.card_number == 2 and "Scratches: its late half (number 2)" in texts(w)
    w = draw(at(state, decks=(("zt-signs", ("zt-breath",)),), time=5, mode_active="prowl"))
    assert w.time == 3  # the card's own number, 2, where the half prints none


def test_card_number_reads_the_last_card_drawn(start):
    state, _ = start
    w = draw(at(state, decks=(("zt-signs", ("zt-breath",)),)))
    assert engine.amount(w, n.CardNumber(None), engine.Ctx()) == 2
    w = draw(at(state, decks=(("zt-signs", ("zt-silence",)),)))
    assert engine.amount(w, n.CardNumber(None), engine.Ctx()) == 0


def test_K2_7_a_card_returned_is_shuffled_back_and_K2_6_a_card_removed_is_gone(start):
    """K2.6-K2.7 as data: the deck returns its cards ('after return'); one card says 'after remove'."""
    state, _ = start
    w = draw(at(state, decks=(("zt-signs", ()), ("zt-readings", ("zt-taint", "zt-clear"))), deck_discards=()),
             "zt-readings")
    assert sorted(dict(w.decks)["zt-readings"]) == ["zt-clear", "zt-taint"] and w.deck_discards == ()
    assert "Taint is shuffled back into the Readings deck" in texts(w)
    w = draw(at(state, decks=(("zt-signs", ()), ("zt-readings", ("zt-clear", "zt-taint"))), bloodlust=1),
             "zt-readings")
    assert "Clear is removed from the game" in texts(w) and dict(w.decks)["zt-readings"] == ("zt-taint",)
    assert w.deck_discards == () and w.bloodlust == 0


def test_a_card_set_aside_is_shuffled_into_its_deck(start):
    """'shuffle card CARD into DECK': the relic, set aside at setup, joins the deck (the omen does it)."""
    state, _ = start
    w = draw(at(state, decks=(("zt-signs", ("zt-omen", "zt-silence")),), deck_discards=()))
    assert w.cards_aside == () and sorted(dict(w.decks)["zt-signs"]) == ["zt-relic", "zt-silence"]
    w = make_work(at(state, cards_aside=(), kept=()))
    engine.run(w, (n.ShuffleCardInto(None, "zt-watch", "zt-signs"),), engine.Ctx())
    assert "Watchful is not set aside, discarded or in play: nothing is shuffled in" in texts(w)
    w = make_work(at(state))
    engine.run(w, (n.ShuffleCardInto(None, "zt-watch", "zt-signs"),), engine.Ctx())
    assert w.kept == () and "zt-watch" in dict(w.decks)["zt-signs"]  # a card in play leaves play


# --- saves ------------------------------------------------------------------------------------------
def test_zones_survive_a_save(start):
    state, _ = start
    s = at(state, deck_discards=(("zt-signs", ("zt-echo",)),), card_number=2)
    again = serialize.from_json(state.game.ruleset, json.loads(json.dumps(serialize.to_json(state))))
    assert (again.table, again.aside, again.item_piles, again.on_piles, again.cards_aside) == (
        state.table, state.aside, state.item_piles, state.on_piles, state.cards_aside)
    data = json.loads(json.dumps(serialize._state_data(s)))
    assert data["deck_discards"] == [["zt-signs", ["zt-echo"]]] and data["card_number"] == 2
    assert "table" not in serialize._state_data(at(state, table=()))  # saved only when not empty


def test_a_save_with_an_unknown_item_on_the_table_is_refused(start):
    state, _ = start
    data = json.loads(json.dumps(serialize.to_json(state)))
    data["state"]["table"] = ["no-such-item"]
    with pytest.raises(Exception, match="table"):
        serialize.from_json(state.game.ruleset, data)


# --- the test pack plays -------------------------------------------------------------------------------
def _cli(args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    return code, out.getvalue()


def test_the_zones_pack_plays_full_games_under_simulate_and_fuzz():
    """The test pack plays full games with no error under 'simulate' and with every invariant held
    under 'fuzz' (a few games, one process: deterministic and quick)."""
    pair = ["--content", str(PACK), "--killer", "zt-lurker", "--scenario", "zt-workshop"]
    code, out = _cli(["simulate", *pair, "--games", "12", "--seed", "1", "--jobs", "1", "--json", "--no-progress"])
    got = json.loads(out)
    assert code == 0 and got["errors"] == 0 and got["games"] == 12 and got["wins"] + got["losses"] == 12
    code, out = _cli(["fuzz", *pair, "--games", "6", "--seed", "1", "--jobs", "1", "--json", "--no-progress"])
    got = json.loads(out)
    assert code == 0 and got["clean"] and got["games"] == 6, got.get("violations")


def test_the_zones_pack_games_reach_every_zone_form():
    """Played by the random bot, the pack's games make recipes, take items from the table and the
    piles' tops, discard items back to the table and reshuffle the deck."""
    from lastbreath.interpreter.api import apply, random_policy

    rs = load_ruleset([*bundled_paths(), PACK])
    seen: set[str] = set()
    for seed in range(12):
        state, events = new_game(rs, seed=seed, **SETUP)
        bot = random_policy(seed)
        log = list(events)
        while not state.over:
            state, events = apply(state, bot(state, state.choice))
            log += events
        seen |= {e.rule for e in log}
        seen |= {word for e in log for word in ("from the top of the pile", "shuffled back", "removed from the game",
                                                "discards are shuffled") if word in e.text}
    assert {"S3.4", "S3.3", "K1.6", "S3.1", "K2.2", "from the top of the pile", "shuffled back",
            "removed from the game", "discards are shuffled"} <= seen


def test_the_screen_shows_the_zones(start):
    from lastbreath.interpreter.screen import status_facts

    state, _ = start
    facts = dict(status_facts(at(state, deck_discards=(("zt-signs", ("zt-echo",)),))))
    assert facts["On the table"].startswith("Twine x2, Plank")
    assert facts["Set aside"] == "Field Kit x2" and facts["Pile"] == "Bench: 1 card face down"
    assert facts["On the item piles"] == "Field Kit on Shed, Field Kit on Loft"
    assert facts["Cards set aside"] == "Relic"
    assert "Signs: 6 cards left, 1 discarded" in [v for k, v in status_facts(at(state, deck_discards=(
        ("zt-signs", ("zt-echo",)),))) if k == "Deck"]
