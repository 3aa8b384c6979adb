"""Rule-level tests of the fifth film's killer: the Organism (docs/rules.md K2), on the bundled content
(killers/organism.fg): no killer on the board at setup, three exposed victims among the others, test
kits on the item piles, test results that clear a victim or turn up a mutant drawn from the
exposed-victim cards, mutants that act as killers, several killers on their last breath, the win,
and no game that stalls; with the general forms it needed ('item ID on piles', 'kill N VKIND at
PLACE', a body off the board neither moved nor hurt) and the Organism in every bundled scenario."""

from __future__ import annotations

import pytest
from conftest import L, run_effects, settle
from lastbreath.interpreter import api, engine
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.simulate import run_games, summarize

SCENARIOS = ("storybook-woods", "wingard-cottage", "wolfe-asylum")
MUTANTS = ("red-mutant", "black-mutant", "grey-mutant")


def pos(rs, *lines: str, seed: int = 0):
    """The Organism in Wolfe Asylum (night shift: the killer would start in the Padded Cells, where
    the lab token lies), at her first decision, with the given position lines."""
    body = "\n  ".join(lines)
    return api.position(rs, "position {\n  killer organism; scenario wolfe-asylum; setup night-shift; "
                            f"final_girl nell-arden; seed {seed}\n  {body}\n}}")


def exposed(state) -> dict[str, int]:
    """Where the exposed victims stand: location id -> how many."""
    ids = state.game.board.ids
    out: dict[str, int] = {}
    for m in state.marked:
        if m.kind == "exposed":
            out[ids[m.loc]] = out.get(ids[m.loc], 0) + 1
    return out


def body(state, bid: str):
    return next(k for k in state.killers if k.body == bid)


def texts(events) -> list[str]:
    return [e.text for e in events]


def play(state, *keys):
    events = []
    for k in keys:
        state, ev = api.apply(state, k)
        events += ev
    return state, texts(events)


# === K2.1 setup ==================================================================================
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_K2_1_no_killer_on_the_board_three_exposed_victims_in_addition_and_a_lab_token(rs, scenario):
    """K2.1: nothing of it stands on the map; three exposed victims come in addition to the setup
    card's victims, each on a different location that got victims, drawn at random (over a few
    seeds, not always the same three); a lab token lies at the setup card's killer location."""
    seen = set()
    for seed in range(8):
        state, events = api.new_game(rs, killer="organism", scenario=scenario, seed=seed)
        g = state.game
        su = next(x for x in g.scenario.setups if x.id == state.setup_card)
        given = dict(su.victims)
        assert all(k.loc < 0 and k.alive for k in state.killers)
        where = exposed(state)
        assert sum(where.values()) == 3 and len(where) == 3  # each on a different location
        assert set(where) <= set(given)  # where the setup card put victims
        said = texts(events)
        a = said.index("Test Kit lies face up on each item pile")  # the killer's setup lines (K2.2, K2.1)
        b = next(i for i, t in enumerate(said) if t.startswith("a lab token is placed"))
        assert [t for t in said[a:b] if t.startswith("1 victim appears at")] == [
            f"1 victim appears at {g.board.names[g.board.index[lid]]}" for lid in sorted(
                where, key=lambda lid: said.index(f"1 victim appears at {g.board.names[g.board.index[lid]]}", a))]
        start = g.setup_killer[state.setup_card]
        assert ("lab", "lab", start) in state.tokens
        seen.add(frozenset(where))
    assert len(seen) > 1


def test_K2_1_a_map_with_a_lab_of_its_own_gets_no_lab_token(rs, tmp_path):
    """K2.1: the lab token stands in for a lab only on a map that has none ('board has tag lab')."""
    from conftest import load_with

    rs2 = load_with(tmp_path, """
scenario lab-base {
  name "Lab Base"
  tags lab
  location gate { name "Gate"; exit }
  location lab { name "Lab"; search; tags lab }
  location mess { name "Mess"; search }
  location store { name "Store"; search }
  path gate (1 2 3) -- (1 2 3) lab
  path lab (4 5 6) -- (1 2 3) mess
  path mess (4 5 6) -- (1 2 3) store
  setup night { killer at mess; fg at gate; victims at lab 2; victims at mess 2; victims at store 2 }
}
""")
    state, events = api.new_game(rs2, killer="organism", scenario="lab-base", seed=1)
    assert not any(t[0] == "lab" for t in state.tokens)
    assert "a lab token is placed" not in " ".join(texts(events))


# === K2.2 kits and decks =========================================================================
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_K2_2_a_test_kit_face_up_on_every_pile_and_two_decks_face_down(rs, scenario):
    """K2.2: a kit on each item pile (copies beyond the piles set aside); the test results (three
    cards) and the exposed-victim cards (three) are decks of their own."""
    state, events = api.new_game(rs, killer="organism", scenario=scenario, seed=2)
    piles = len(state.game.board.search_locs)
    assert sorted(state.on_piles) == [(k, "test-kit") for k in range(piles)]
    assert "Test Kit lies face up on each item pile" in texts(events)
    decks = dict(state.decks)
    assert sorted(decks["test-results"]) == ["assimilated", "clean", "clean"]
    assert sorted(decks["exposed-cards"]) == ["black-card", "grey-card", "red-card"]


def test_K2_2_item_on_piles_reads_the_kits_lying_there(rs):
    """'item ID on piles' (a general form, dsl/LANGUAGE.md 6d): true while a card of it lies on a pile."""
    st = pos(rs, "hand walk")
    w = engine.work(st, ())
    from lastbreath.dsl import nodes as n

    assert engine.condition(w, n.ItemIn(None, "test-kit", "piles"), Ctx())
    w2 = engine.work(settle(st, on_piles=()), ())
    assert not engine.condition(w2, n.ItemIn(None, "test-kit", "piles"), Ctx())


# === K2.3 winning ================================================================================
def test_K2_3_every_exposed_victim_tested_and_every_mutant_dead_wins(rs):
    """K2.3: the last test comes back clean with no mutant on the map: she wins."""
    st = pos(rs, "fg at padded-cells; victims none", "victim exposed at padded-cells", "backpack test-kit",
             "deck test-results top clean", "hand walk")
    st, _said = play(st, "use:test-kit")
    assert st.result == "fg" and st.end_reason == "every exposed victim is tested and every mutant is dead"


def test_K2_3_a_mutant_still_standing_keeps_the_game_going(rs):
    """K2.3: every exposed victim tested is not enough while a mutant stands; killing the last mutant on
    the board is not enough while exposed victims remain (its mates off the board are no defeat)."""
    st = pos(rs, "fg at padded-cells; victims none", "victim exposed at padded-cells", "backpack test-kit",
             "deck test-results top clean", "killer red-mutant at morgue", "hand walk")
    st, _ = play(st, "use:test-kit")
    assert not st.result
    st2 = pos(rs, "fg at morgue; fear 2; victims none", "victim exposed at day-room", "killer red-mutant at morgue",
              "killer red-mutant health 0", "killer red-mutant last_breath white", "hand weak-attack walk",
              "dice 6 6 6")
    st2, _said = play(st2, "play:weak-attack", "end")  # set aside (K2.9), its white token flipped at the phase's end
    assert not body(st2, "red-mutant").alive and not st2.result


# === K2.4 exposed victims ========================================================================
def test_K2_4_mutants_neither_target_nor_kill_exposed_victims(rs):
    """K2.4: a mutant beside an exposed victim alone goes for her; the exposed victim stays alive."""
    st = pos(rs, "fg at east-ward; victims none", "victim exposed at padded-cells", "killer grey-mutant at padded-cells",
             "finale one-of-us; terror top feeding-time", "hand walk", "phase killer")
    assert exposed(st) == {"padded-cells": 1}
    assert st.dead == 0


def test_K2_4_exposed_victims_cannot_be_rescued_and_always_panic(rs):
    """K2.4: the kind says so: never rescued, panics every round, never targeted by killers."""
    k = rs.killers["organism"].victim_kinds[0]
    assert (k.id, k.unrescuable, k.panics, k.untargeted) == ("exposed", True, True, ("killers",))
    st = pos(rs, "fg at front-gate", "victims at front-gate 1", "victim exposed at front-gate", "hand walk")
    st, _ = play(st, "rescue")
    assert st.rescued == 1 and exposed(st) == {"front-gate": 1}


def test_K2_4_no_effect_turns_an_exposed_victim_into_a_special_one(rs):
    """K2.4: turning victims into a kind (or into minions) takes victims of no kind only."""
    st = pos(rs, "fg at front-gate; victims none", "victim exposed at morgue", "hand walk")
    w = run_effects(st, "turn 1 victims at morgue into exposed")
    assert [m.kind for m in w.marked] == ["exposed"] and w.victims[L(st, "morgue")] == 1


def test_K2_4_K2_6_an_exposed_victim_killed_and_clean_dies_all_the_same(rs):
    """K2.4, K2.6: killed by an effect, it is tested there and then; a clean result: it dies after
    all (bloodlust rises, a death counted) and the result leaves the game."""
    st = pos(rs, "fg at front-gate; victims none", "victim exposed at morgue", "victim exposed at day-room",
             "deck test-results top clean", "bloodlust 1", "hand walk")
    w = run_effects(st, "kill 1 victims at morgue")
    said = [e.text for e in w.ctl.events]
    assert "draws Clean from Test Results at The Morgue" in said
    assert w.dead == 1 and w.bloodlust == st.bloodlust + 1
    assert w.victims[L(st, "morgue")] == 0 and len(w.marked) == 1
    assert "tested-for-a-death" not in w.flags


def test_K2_4_K2_7_an_exposed_victim_killed_and_assimilated_becomes_a_mutant(rs):
    """K2.4, K2.7: killed and assimilated, nobody dies: the mutant stands where the victim fell."""
    st = pos(rs, "fg at front-gate; victims none", "victim exposed at morgue", "deck test-results top assimilated",
             "deck exposed-cards top black-card", "hand walk")
    w = run_effects(st, "kill 1 victims at morgue")
    assert w.dead == 0 and w.marked == ()
    assert body(w, "black-mutant").loc == L(st, "morgue")


def test_kill_n_of_a_victim_kind_kills_only_that_kind(rs):
    """'kill N VKIND at PLACE' (a general form, dsl/LANGUAGE.md 6h): an ordinary victim there is left
    alone; the death of the exposed one is answered by its replacement (here: tested, clean, so it dies)."""
    st = pos(rs, "fg at front-gate", "victims at morgue 1", "victim exposed at morgue", "deck test-results top clean",
             "hand walk")
    w = run_effects(st, "kill 1 exposed at morgue")
    assert w.marked == () and w.victims[L(st, "morgue")] == 1 and w.dead == 1


# === K2.5 testing ================================================================================
def test_K2_5_a_search_offers_the_kit_on_its_pile(rs):
    """K2.5: an item gained from a pile with a kit on it: the kit may be taken too."""
    st = pos(rs, "fg at pharmacy; victims none", "pile pharmacy top orderly-baton", "hand search", "dice 6 1 1")
    st, _ = play(st, "play:search", "hand")
    assert st.choice.kind == "take-on-pile" and set(st.choice.keys()) == {"take", "leave"}
    st, _ = play(st, "take")
    assert [h.id for h in st.pack] == ["test-kit"]


def test_K2_5_the_kit_tests_only_in_a_lab_with_an_exposed_victim_there_at_no_time(rs):
    """K2.5: offered in the lab (the token) with an exposed victim there; not elsewhere, not without one."""
    here = pos(rs, "fg at padded-cells; time 4; victims none", "victim exposed at padded-cells", "backpack test-kit",
               "hand walk")
    assert "use:test-kit" in set(here.choice.keys())
    away = pos(rs, "fg at morgue; victims none", "victim exposed at morgue", "backpack test-kit", "hand walk")
    assert "use:test-kit" not in set(away.choice.keys())
    empty = pos(rs, "fg at padded-cells; victims none", "victim exposed at morgue", "backpack test-kit", "hand walk")
    assert "use:test-kit" not in set(empty.choice.keys())
    st, said = play(here, "use:test-kit")
    assert st.time == 4 and "Test Kit is used up and discarded" in said


# === K2.6 a safe result ==========================================================================
def test_K2_6_clean_an_ordinary_victim_takes_its_place_and_the_card_leaves(rs):
    """K2.6: tested clean, it is a victim of no kind; the result card is removed from the game."""
    st = pos(rs, "fg at padded-cells; victims none", "victim exposed at padded-cells", "victim exposed at morgue",
             "backpack test-kit", "deck test-results top clean", "hand walk")
    st, said = play(st, "use:test-kit")
    assert st.victims[L(st, "padded-cells")] == 1 and exposed(st) == {"morgue": 1}
    assert "Clean is removed from the game" in said and st.dead == 0


# === K2.7 an assimilated result ==================================================================
def test_K2_7_assimilated_the_drawn_mutant_stands_in_its_place_and_catches_up(rs):
    """K2.7: the next exposed-victim card names the mutant; it stands where the victim stood, with its
    own health and black token; every one-off bloodlust effect so far happens again for it; the result
    is shuffled back."""
    st = pos(rs, "fg at padded-cells; fear 2; victims none", "victim exposed at padded-cells",
             "victim exposed at morgue", "backpack test-kit", "deck test-results top assimilated",
             "deck exposed-cards top grey-card", "bloodlust 4", "hand walk")
    st, said = play(st, "use:test-kit")
    grey = body(st, "grey-mutant")
    assert grey.loc == L(st, "padded-cells") and grey.health == 4 and grey.breath == 2
    assert "The Grey Mutant catches up with bloodlust (level 4), lowest first" in said
    assert "the one-time effect of bloodlust level 2 resolves again for The Grey Mutant" in said
    assert "the one-time effect of bloodlust level 4 resolves again for The Grey Mutant" in said
    assert st.fear == 3 and st.bloodlust == 3  # the marker does not move
    assert "Assimilated is shuffled back into the Test Results deck" in said
    decks = dict(st.decks)
    assert "assimilated" in decks["test-results"]
    assert len(decks["exposed-cards"]) == 2 and "grey-card" not in decks["exposed-cards"]


def test_K2_7_which_mutant_turns_up_is_left_to_the_shuffled_cards(rs):
    """K2.7: the exposed-victim cards are shuffled: over a few games the first mutant differs."""
    firsts = {dict(api.new_game(rs, killer="organism", scenario="wolfe-asylum", seed=s)[0].decks)["exposed-cards"][0]
              for s in range(12)}
    assert len(firsts) > 1


def test_K2_7_no_dark_power(rs):
    """K2.7: no dark power cards: none drawn at setup."""
    k = rs.killers["organism"]
    assert not k.dark_powers and not k.dark
    state, _ = api.new_game(rs, killer="organism", scenario="wolfe-asylum", seed=1)
    assert not state.dark_power


# === K2.8 mutants are killers ====================================================================
def test_K2_8_each_mutant_acts_in_turn_and_takes_the_finales_further_action(rs):
    """K2.8: the finale face gives each mutant the killer action, then its further mutant action."""
    st = pos(rs, "fg at front-gate", "victims at morgue 1", "killer red-mutant at day-room",
             "killer grey-mutant at padded-cells", "finale nothing-left-to-hide revealed", "hand walk", "phase killer")
    assert body(st, "red-mutant").loc == L(st, "day-room")  # both went for her, then for the victims
    assert body(st, "grey-mutant").loc == L(st, "day-room")


def test_K2_8_with_no_mutant_on_the_board_a_hunt_moves_nobody(rs):
    """K2.8, K2.1: the killer actions move no mutant while none is on the map; a scenario card that moves
    'the killer' leaves the mutants off the board (a body off the board is not moved, nor hurt)."""
    st = pos(rs, "fg at front-gate", "hand walk")
    w = run_effects(st, "all killers { killer hunts fg moves 2 attacks 1 }; move killer to morgue; damage killer 2")
    assert all(k.loc < 0 for k in w.killers) and [k.health for k in w.killers] == [5, 5, 4]
    said = [e.text for e in w.ctl.events]
    assert "The Red Mutant is off the board: it does not move to The Morgue" in said
    assert "The Red Mutant is off the board: it takes no damage" in said


# === K2.9 several killers on their last breath ===================================================
def test_K2_9_a_mutant_losing_its_last_breath_beside_others_is_set_aside(rs):
    """K2.9: with another mutant still in the game, one that loses its last-breath token is set aside
    until the phase ends, then its token is flipped."""
    st = pos(rs, "fg at day-room; fear 2; victims none", "killer red-mutant at day-room", "killer red-mutant health 0",
             "killer black-mutant at morgue", "hand weak-attack walk", "dice 6 6 6")
    st, said = play(st, "play:weak-attack")
    assert body(st, "red-mutant").aside and not st.result
    assert "The Red Mutant is set aside until the phase ends, when its token is flipped" in said


# === K2.10 no game may stall =====================================================================
def test_K2_10_no_kit_left_each_exposed_victim_is_tested_as_the_killer_phase_starts(rs):
    """K2.10: no kit on the piles nor in her hands, exposed victims untested: each is tested at the
    start of the next Killer phase."""
    st = pos(rs, "fg at front-gate; victims none", "victim exposed at morgue", "victim exposed at day-room",
             "on_piles none", "deck test-results top clean assimilated", "deck exposed-cards top black-card",
             "hand walk")
    st, said = play(st, "end")
    while st.phase != "action" and not st.over:
        st, ev = api.apply(st, st.choice.keys()[0])
        said += texts(ev)
    assert exposed(st) == {} and body(st, "black-mutant").alive
    assert "draws Clean from Test Results at The Day Room" in said


def test_K2_10_a_kit_in_hand_or_on_a_pile_holds_the_tests_back(rs):
    """K2.10: while a kit is in her hands (or on a pile) nothing is tested at the start of the Killer phase."""
    st = pos(rs, "fg at front-gate; victims none", "victim exposed at morgue", "on_piles none", "backpack test-kit",
             "hand walk")
    st, said = play(st, "end")
    assert not any(t.startswith("draws") and "Test Results" in t for t in said)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_K2_10_no_game_runs_into_the_step_limit(rs, scenario):
    """K2.10: every game ends: greedy and random games in every bundled scenario, none in error."""
    for bot in ("greedy", "random"):
        records = run_games(rs, {"killer": "organism", "scenario": scenario}, games=12, seed=100, bot=bot, jobs=1)
        s = summarize(records)
        assert s["errors"] == 0, s.get("error_samples")


# === a whole game: a test turns up a mutant, and she wins ========================================
def test_K2_7_K2_3_a_test_turns_up_a_mutant_and_the_final_girl_then_wins(rs):
    """K2.5, K2.7, K2.3: in the lab she tests the last exposed victim: assimilated, the Grey Mutant
    stands in its place; the greedy bot plays on, kills it, and she wins."""
    st = pos(rs, "fg at padded-cells; health 6; fear 1; victims none", "victim exposed at padded-cells",
             "hands fire-axe", "backpack test-kit", "deck test-results top assimilated",
             "deck exposed-cards top grey-card", "hand weak-attack furious-attack walk", seed=19)
    st, said = play(st, "use:test-kit")
    assert "The Grey Mutant appears at The Padded Cells" in said and exposed(st) == {}
    bot = BOTS["greedy"](0)
    for _ in range(3000):
        if st.over:
            break
        st, _ = api.apply(st, bot(st, st.choice))
    assert st.result == "fg" and st.end_reason == "every exposed victim is tested and every mutant is dead"
    assert not body(st, "grey-mutant").alive


# === the Final Girls of this film ================================================================
@pytest.mark.parametrize("fg", ["signe-solberg", "petra-quist"])
def test_the_films_final_girls_play_whole_games(rs, fg):
    """C16: the two Final Girls of this film, each with a signature item, play whole games against it."""
    assert rs.final_girls[fg].signature in rs.items
    records = run_games(rs, {"killer": "organism", "scenario": "wingard-cottage", "final_girl": fg}, games=6,
                        seed=3, bot="greedy", jobs=1)
    assert summarize(records)["errors"] == 0
