"""The greedy bot uses the mechanics the content offers, read from their forms (issue #41, "bots that
use every mechanic"): it crafts (S3.4), carries an item to the place where it works and brings the
victims it needs there (K2.5), buys and plays the cards that move a track or mark the board (S2.4,
K1.7), takes and collects pills (S5.2, S5.3), searches a pile (C6.1), and never spends its turn on an
item that would change nothing (C3.5, C3.6). Each test builds a position where the mechanic is
clearly right (docs/positions.md) and asks the bot; examples/bot_mechanics.py counts the same over
whole games."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import L
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import api
from lastbreath.interpreter.bots import Greedy

GREEDY = Greedy()


def pos(rs, head: str, *lines: str):
    body = "\n  ".join(lines)
    return api.position(rs, f"position {{\n  {head}\n  {body}\n}}")


def answer(state):
    return GREEDY(state, state.choice)


# --- C3.5, C3.6: an item whose use would change nothing ------------------------------------------
TEA = 'item calm-tea { name "Calm Tea"; use time 0 { lower fear 1 } }\n'


def test_C3_6_greedy_does_not_use_an_item_that_would_lower_fear_at_its_lowest(tmp_path):
    """C3.6: fear cannot go below its lowest space. An item of no uses limit and no time whose only
    effect lowers fear is offered again after every use: at fear 0 greedy must not take it (it would
    loop, each use changing nothing), and the phase ends; above 0 it is worth a use."""
    f = tmp_path / "tea.fg"
    f.write_text(TEA, encoding="utf-8")
    rs = load_ruleset([*bundled_paths(), f])
    head = "killer big-bad-wolf; scenario storybook-woods; final_girl nell-arden; seed 1"
    st = pos(rs, head, "fear 0; time 2; victims none", "backpack calm-tea", "hand guard")
    assert "use:calm-tea" in st.choice.keys() and st.fear == st.game.side.fear_min
    phase = (st.round, st.phase)
    for _ in range(30):  # the Action phase, to its end
        if (st.round, st.phase) != phase or st.over:
            break
        key = answer(st)
        assert key != "use:calm-tea", "a use that changes nothing"
        st, _ = api.apply(st, key)
    assert (st.round, st.phase) != phase, "the Action phase did not end"
    scared = pos(rs, head, "fear 3; time 2; victims none", "backpack calm-tea", "hand walk")
    assert answer(scared) == "use:calm-tea"


def test_C3_5_greedy_does_not_heal_at_full_health(rs):
    """C3.5: health never goes above its start: a healing item at full health is not used."""
    head = "killer big-bad-wolf; scenario wingard-cottage; final_girl nell-arden; seed 0"
    full = pos(rs, head, "time 3; victims none", "backpack med-kit", "hand walk")
    assert "use:med-kit" in full.choice.keys() and full.fg_health == full.game.fg.health
    assert answer(full) != "use:med-kit"
    hurt = pos(rs, head, "health 3; time 3; victims none", "backpack med-kit", "hand walk")
    assert answer(hurt) == "use:med-kit"


# --- S3.4: crafting -------------------------------------------------------------------------------
def test_S3_4_greedy_crafts_a_weapon_from_raw_materials(rs):
    """S3.4: holding the raw materials of a face-up crafted weapon (seed 0 lays the nail bat out),
    greedy makes it: the weapon is worth more than the lumber and nails it takes."""
    st = pos(rs, "killer big-bad-wolf; scenario wingard-cottage; final_girl nell-arden; seed 0",
             "fg at kitchen; time 3; victims none", "backpack raw-lumber raw-nails", "hand walk")
    assert "recipe:make-nail-bat" in st.choice.keys()
    assert answer(st) == "recipe:make-nail-bat"
    st, _ = api.apply(st, "recipe:make-nail-bat")
    while st.choice is not None and st.choice.kind != "action":  # where she keeps it (C6.5)
        st, _ = api.apply(st, answer(st))
    assert "nail-bat" in {h.id for h in (*st.held, *st.pack)}


def test_S3_4_greedy_does_not_trade_a_better_item_for_a_worse_one(rs):
    """S3.4: a recipe that gives up more than it makes (a first-aid kit's uses for a one-use splint
    would be such a trade) is not made: here the carving knife it already holds is as good a weapon as
    the chain flail, so the flail made from scrap is worth no more than its time."""
    st = pos(rs, "killer big-bad-wolf; scenario wingard-cottage; final_girl nell-arden; seed 3",
             "fg at kitchen; time 3; victims none", "hands carving-knife", "backpack raw-scrap-tools raw-rope",
             "hand walk")
    assert "recipe:make-chain-flail" in st.choice.keys()
    assert answer(st) != "recipe:make-chain-flail"


# --- K2.5: an item used at a kind of place ---------------------------------------------------------
ORGANISM = "killer organism; scenario wolfe-asylum; setup night-shift; final_girl nell-arden; seed 3"


def test_K2_5_greedy_takes_a_test_kit_and_an_exposed_victim_to_the_lab(rs):
    """K2.5: a kit tests an exposed victim only in a lab. Holding one, with an exposed victim beside
    her, greedy's goal is the lab (not an exit: exposed victims cannot be rescued, K2.4); it walks
    there, the victim following (C5.3), and uses the kit."""
    st = pos(rs, ORGANISM, "fg at morgue; time 4; victims none", "victim exposed at morgue", "backpack test-kit",
             "hand walk walk")
    lab = next(t[2] for t in st.tokens if t[0] == "lab")
    assert GREEDY.goal(st) == lab and st.fg_loc != lab
    for _ in range(200):
        assert not st.over, "the game ended before the kit was used"
        key = answer(st)
        if key == "use:test-kit":
            assert st.fg_loc == lab
            break
        st, _ = api.apply(st, key)
    else:
        raise AssertionError("the kit was never used")


def test_K2_5_greedy_fetches_the_exposed_victim_first(rs):
    """K2.5: with the kit but no exposed victim beside her, her goal is the nearest exposed victim."""
    st = pos(rs, ORGANISM, "fg at morgue; time 4; victims none", "victim exposed at kitchens",
             "backpack test-kit", "hand walk")
    assert GREEDY.goal(st) == L(st, "kitchens")


# --- S2.4, K1.7: cards valued by a track or a token -------------------------------------------------
STATION = "killer big-bad-wolf; scenario station-2891; final_girl nell-arden; seed 2"


def test_S2_4_greedy_buys_and_plays_the_card_that_flies_the_helicopter(rs):
    """S2.4: Fly Faster does nothing but move the helicopter's track. With the helicopter in the air
    greedy plays it, and buys it in the Planning phase; on the helipad with nobody aboard it would do
    nothing, and greedy leaves it."""
    flying = pos(rs, STATION, "fg at airlock; time 3; victims none; track helicopter 1", "hand fly-faster")
    assert answer(flying) == "play:fly-faster"
    idle = pos(rs, STATION, "fg at airlock; time 3; victims none", "hand fly-faster")
    assert answer(idle) != "play:fly-faster"
    buying = pos(rs, STATION, "fg at airlock; time 2; victims none; track helicopter 1; phase planning",
                 "hand walk", "market fly-faster fly-faster")
    assert buying.choice.kind == "buy" and answer(buying) == "buy:fly-faster"


EVOMORPH = "killer evomorph; scenario storybook-woods; final_girl nell-arden; seed 1"


def test_K1_7_greedy_scans_an_unscanned_location_while_the_creature_is_away(rs):
    """K1.7: Scan marks her location while the creature is away. Greedy plays it where no scanned
    token lies, not where one does (a scan there does nothing)."""
    here = pos(rs, EVOMORPH, "killer off board; time 3; victims none", "hand scan")
    assert "play:scan" in here.choice.keys() and answer(here) == "play:scan"
    marked = pos(rs, EVOMORPH, "killer off board; time 3; victims none", "hand scan",
                 f"tokens scanned scanned at {here.game.board.ids[here.fg_loc]}")
    assert answer(marked) != "play:scan"


# --- S5.2, S5.3: pills; C6.1: searching -----------------------------------------------------------------
ASYLUM = "killer big-bad-wolf; scenario wolfe-asylum; final_girl nell-arden; seed 1"


def test_S5_2_S5_3_greedy_collects_a_pill_and_takes_pills_when_they_help(rs):
    """S5.2: at a location with a pill, time to spare: greedy collects it. S5.3: holding pills while
    hurt and afraid, it takes them (a free action)."""
    st = pos(rs, ASYLUM, "fg at day-room; time 3; victims none", "tokens pill yellow at day-room", "hand walk")
    assert answer(st) == "action:collect-pill"
    hurt = pos(rs, ASYLUM, "fg at day-room; health 3; fear 4; time 3; victims none", "tokens none",
               "collected pill yellow pink", "hand walk")
    assert answer(hurt) == "action:take-pills"


def test_C6_1_greedy_searches_a_pile_when_unarmed(rs):
    """C6.1: unarmed, at a search location with items in its pile and a search card in hand, greedy
    searches."""
    st = pos(rs, "killer big-bad-wolf; scenario wingard-cottage; final_girl nell-arden; seed 0",
             "fg at kitchen; time 3; victims none", "hand search walk")
    assert answer(st) == "play:search"


COTTAGE = "killer big-bad-wolf; scenario wingard-cottage; final_girl nell-arden; seed 0"


def test_C6_1_greedy_turns_aside_to_a_pile_within_reach_while_unarmed(rs):
    """C6.1: a search card in hand, no weapon, a pile with items two moves away (the Kitchen from the
    Porch, by the Foyer): greedy's goal is the pile, though the killer is on the board; armed, or with
    no card that searches, it goes on hunting; a pile farther than SEARCH_REACH is not worth the walk."""
    kitchen = None
    for lines, wants in ((("hand search walk",), True), (("hand search walk", "hands arden-billhook"), False),
                         (("hand walk walk",), False)):
        st = pos(rs, COTTAGE, "fg at porch; time 3; victims none; killer at boathouse", *lines)
        kitchen = L(st, "kitchen")
        assert GREEDY.dist(st)[st.fg_loc][kitchen] == 2 <= Greedy.SEARCH_REACH
        assert (GREEDY.goal(st) == kitchen) is wants, lines
    far = pos(rs, COTTAGE, "fg at dock; time 3; victims none; killer at gravel-drive", "hand search walk")
    assert GREEDY.goal(far) not in {L(far, lid) for lid in ("kitchen", "master-bedroom", "tool-shed")}


def test_C6_1_greedy_buys_a_card_that_searches_while_unarmed(rs):
    """C7 (buying) and C6.1: unarmed, with items left in the piles and no card that searches in hand,
    greedy buys Search; armed, it does not."""
    market = "market search search sprint sprint"
    unarmed = pos(rs, COTTAGE, "fg at porch; time 3; victims none; phase planning", "hand walk", market)
    assert unarmed.choice.kind == "buy" and answer(unarmed) == "buy:search"
    armed = pos(rs, COTTAGE, "fg at porch; time 3; victims none; phase planning", "hand walk",
                "hands arden-billhook", market)
    assert answer(armed) != "buy:search"


def test_where_an_item_works_never_depends_on_what_was_read_before():
    """The greedy bot keeps the places an item works only for conditions that read her place and the
    board's tokens: an item whose 'usable while' reads the tokens on it (tests/packs/tokens) is read
    afresh, so a state read after another gives what it gives alone (a game replays the same in any
    process, whatever it played before)."""
    from lastbreath.interpreter.engine.working import replace
    rs = load_ruleset([*bundled_paths(), Path(__file__).resolve().parent / "packs" / "tokens"])
    st, _ = api.new_game(rs, killer="big-bad-wolf", scenario="tk-ship", final_girl="nell-arden", seed=1)
    bot = Greedy()
    with_pass = bot.places_for(st, "tk-pass-card")
    bare = replace(st, token_on=tuple(t for t in st.token_on if t[1] != "tk-pass"))
    after = bot.places_for(bare, "tk-pass-card")
    st.game.derived.clear()
    assert after == bot.places_for(bare, "tk-pass-card") == ()
    assert with_pass  # with the pass on it, it works somewhere


def test_the_counting_script_counts_and_refuses_what_it_cannot_play(capsys):
    """examples/bot_mechanics.py, as documented, on one pair and one game: a row with every count a
    whole number of uses over the games; a bad number of games, seed, bot or id is refused."""
    import importlib.util
    import json
    path = Path(__file__).resolve().parent.parent / "examples" / "bot_mechanics.py"
    spec = importlib.util.spec_from_file_location("bot_mechanics", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--games", "1", "--killer", "zombies", "--scenario", "wolfe-asylum", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(r["killer"], r["scenario"], r["games"]) for r in got["pairs"]] == [("zombies", "wolfe-asylum", 1)]
    assert got["total"]["games"] == 1 and set(got["total"]["per_game"]) == set(mod.MECHANICS)
    for bad in (["--games", "0"], ["--seed", "-1"], ["--bot", "clever"], ["--killer", "nobody"],
                ["--module", "hovercraft"]):
        with pytest.raises(SystemExit):
            mod.main(bad)
