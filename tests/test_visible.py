"""What the player sees of a state (interpreter/visible.py, docs/decisions/0025): every field of the
state is classified; the protocol's view (serve.public_state) and the expert's (expert.public) do
not change when everything hidden is drawn anew, on states of real games of every bundled killer
and scenario and the test packs; the named item piles (S3.1) and hidden victim kinds (K2.1) are
counted and blanked."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import api, visible
from lastbreath.interpreter.bots import Greedy
from lastbreath.interpreter.expert import determinize, public
from lastbreath.interpreter.serialize import STATE_FIELDS
from lastbreath.interpreter.serve import public_state
from lastbreath.interpreter.state import MarkedVictim, evolved

PACKS = Path(__file__).resolve().parent / "packs"


@pytest.fixture(scope="module")
def prs():
    """The bundled content with the token and piece packs (face-down tokens, a hidden kind)."""
    return load_ruleset([*bundled_paths(), PACKS / "tokens", PACKS / "pieces"])


def test_every_field_of_the_state_is_bookkeeping_public_or_hidden_in_part():
    assert visible.BOOKKEEPING <= set(STATE_FIELDS)
    assert set(visible.HIDDEN) <= set(visible.VIEWED)
    assert set(visible.VIEWED) | visible.BOOKKEEPING == set(STATE_FIELDS)


def test_every_hidden_field_is_masked(prs):
    state, _ = api.new_game(prs, seed=1, killer="big-bad-wolf", scenario="storybook-woods")
    for name in visible.HIDDEN:
        visible.seen(state, name)  # raises for a field HIDDEN names and seen() leaves unmasked


def states(rs, setup: dict, seed: int, every: int = 7, limit: int = 400):
    """States along a greedy game: every ``every``-th decision, at most ``limit`` decisions."""
    greedy = Greedy()
    state, _ = api.new_game(rs, seed=seed, **setup)
    for i in range(limit):
        if state.over:
            return
        if i % every == 0:
            yield state
        state, _ = api.apply(state, greedy(state, state.choice))


SETUPS = [(k, s) for k in ("big-bad-wolf", "ratchet-lady", "zombies", "intruders", "evomorph", "organism")
          for s in ("storybook-woods", "wolfe-asylum", "wingard-cottage", "uss-konrad", "station-2891")]
SETUPS += [("pc-changeling", "pc-station"), ("big-bad-wolf", "tk-station")]


def test_neither_view_changes_when_the_hidden_parts_are_drawn_anew(prs):
    """On states of real games: what determinize draws anew (every hidden order and face) is never
    shown, by the protocol or to the expert's worlds."""
    reached = {"item_piles": 0, "decks": 0, "piles": 0, "tokens_down": 0, "hidden kinds": 0}
    for n, (killer, scenario) in enumerate(SETUPS):
        for st in states(prs, {"killer": killer, "scenario": scenario}, seed=100 + n):
            shown, view = public_state(st), public(st)
            for i in range(2):
                world = determinize(st, random.Random(i), seed=st.seed)
                assert public_state(world) == shown, (killer, scenario, st.round)
                assert public(world) == view, (killer, scenario, st.round)
            reached["item_piles"] += any(len(items) > 1 for _p, items in st.item_piles)
            reached["decks"] += any(len(cards) > 1 for _d, cards in st.decks)
            reached["piles"] += sum(1 for pile in st.piles for _c, up in pile if not up) > 1
            reached["tokens_down"] += len(st.tokens_down) > 1
            reached["hidden kinds"] += sum(visible.hidden_kind(st, m) for m in st.marked) > 0
    assert all(reached.values()), reached  # each hidden part was there to be drawn anew


def test_a_named_item_piles_order_is_not_shown_only_how_many_are_left(prs):
    """S3.1: a named pile is face down (the protocol used to show its order)."""
    state, _ = api.new_game(prs, seed=3, killer="big-bad-wolf", scenario="wingard-cottage")
    pile, items = next((p, c) for p, c in state.item_piles if len(set(c)) > 1)
    other = evolved(state, item_piles=tuple((p, tuple(reversed(c))) for p, c in state.item_piles))
    assert public_state(other) == public_state(state)
    assert public_state(state)["item_piles"][pile] == len(items)
    assert public(other) == public(state)


@pytest.fixture(scope="module")
def two_hidden(tmp_path_factory):
    """The piece pack with a second hidden victim kind in its scenario."""
    folder = tmp_path_factory.mktemp("pack") / "pieces"
    shutil.copytree(PACKS / "pieces", folder)
    f = folder / "station.fg"
    text = f.read_text(encoding="utf-8")
    line = '  victim pc-stranger { name "Stranger"; hidden; not targeted by minions }\n'
    assert line in text
    f.write_text(text.replace(line, line + '  victim pc-ghost { name "Ghost"; hidden }\n'), encoding="utf-8")
    return load_ruleset([*bundled_paths(), folder])


def test_a_hidden_kind_is_blanked_until_revealed_and_dealt_anew_among_the_hidden(two_hidden):
    """K2.1: a victim of a hidden kind shows as a victim of some kind; revealed, its kind; a kind that
    is not hidden always shows. A world deals the hidden kinds anew among the unrevealed."""
    state, _ = api.new_game(two_hidden, seed=1, killer="pc-changeling", scenario="pc-station")
    a, b = 0, 1
    victims = [0] * state.game.board.n
    victims[a], victims[b] = 2, 1
    marked = (MarkedVictim(1, a, "pc-stranger"), MarkedVictim(2, a, "pc-ghost"),
              MarkedVictim(3, b, "pc-ghost", revealed=True))
    st = evolved(state, victims=tuple(victims), marked=marked, victim_seq=3)
    swapped = evolved(st, marked=(evolved(marked[0], kind="pc-ghost"), evolved(marked[1], kind="pc-stranger"),
                                  marked[2]))
    assert [m["kind"] for m in public_state(st)["marked"]] == [None, None, "pc-ghost"]
    assert public_state(swapped) == public_state(st)
    assert public(swapped) == public(st)
    shown = evolved(st, marked=(evolved(marked[0], revealed=True), *marked[1:]))
    assert [m["kind"] for m in public_state(shown)["marked"]] == ["pc-stranger", None, "pc-ghost"]
    assert public(shown) != public(st)
    dealt = {tuple(m.kind for m in determinize(st, random.Random(i)).marked) for i in range(40)}
    assert dealt == {("pc-stranger", "pc-ghost", "pc-ghost"), ("pc-ghost", "pc-stranger", "pc-ghost")}
    exposed = evolved(st, marked=(*marked[:2], evolved(marked[2], kind="pc-exposed", revealed=False)))
    assert public_state(exposed)["marked"][2]["kind"] == "pc-exposed"  # a kind not hidden always shows
