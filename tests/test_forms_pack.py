"""The forms of issue #33 items 5, 6 and 9 in whole games: the test pack tests/packs/forms.

The Lamplighter (``fm-lamplighter``) has no dark power (K2.7); damage from its Sweeping Beam terror
card raises her fear (a trigger on 'the cause is terror …', S1.8, K1.7); A Dark Corner sends it to a
location near her picked by a selector filtered with 'where all { … }'; Lost Campers places victims at two
different random locations ('for each 2 of … random', K2.1); on a map with a shore it keeps to the
water's edge at the start of each Killer phase ('board has tag', K2.1). The Lakehouse
(``fm-lakehouse``) sets its oars card aside; two events give her a copy and a third takes one out of
the game (V3, C3.9); her boat key and a storm lantern are held in hand only (S1.7, C11.3).

The pack loads clean, plays whole games under ``run_games`` (simulate) and ``run_fuzz``, and each
form is seen to happen in the games played: a form that never fires proves nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_content
from lastbreath.dsl.format import format_text
from lastbreath.interpreter.api import apply, new_game, random_policy
from lastbreath.interpreter.bots import Greedy
from lastbreath.interpreter.fuzz import run_fuzz
from lastbreath.interpreter.simulate import run_games

PACK = Path(__file__).resolve().parent / "packs" / "forms"
KILLER, SCENARIO = "fm-lamplighter", "fm-lakehouse"
HAND_ONLY = ("fm-boat-key", "fm-storm-lantern")
OARS = "Pull for the Far Shore"


@pytest.fixture(scope="module")
def prs():
    rs, diags = load_content([*bundled_paths(), PACK])
    assert rs is not None and diags == [], [d.message for d in diags]
    return rs


def _line(name: str, text: str) -> str:
    """'FILE:LINE' of the pack line holding ``text`` (events name their content line as the source)."""
    lines = (PACK / name).read_text(encoding="utf-8").splitlines()
    found = [i for i, ln in enumerate(lines, 1) if text in ln]
    assert len(found) == 1, (name, text, found)
    return f"{name}:{found[0]}"


def _from(e, where: str) -> bool:
    """Whether the event came from that pack line (its source is 'path/FILE:LINE:COL')."""
    return e.source.rsplit("/", 1)[-1].rsplit(":", 1)[0] == where


def _play(rs, scenario: str, seed: int, bot):
    """One whole game: its first state, every state after a choice, every event, and how many of
    them setup made."""
    state, events = new_game(rs, killer=KILLER, scenario=scenario, seed=seed)
    states, seen, setup = [state], list(events), len(events)
    while not state.over and len(states) < 20_000:
        state, events = apply(state, bot(state, state.choice))
        states.append(state)
        seen.extend(events)
    assert state.over, (scenario, seed)
    return states, seen, setup


@pytest.fixture(scope="module")
def games(prs):
    """24 games on the pack's scenario and 8 on a bundled one, each bot half of them."""
    out = {}
    for scenario, n in ((SCENARIO, 24), ("storybook-woods", 8)):
        out[scenario] = [_play(prs, scenario, seed, random_policy(seed) if seed % 2 else Greedy())
                         for seed in range(n)]
    return out


def test_the_forms_pack_loads_clean_and_is_formatted(prs):
    assert KILLER in prs.killers and SCENARIO in prs.scenarios
    assert not prs.killers[KILLER].dark  # K2.7: declared, not an empty card
    for f in sorted(PACK.glob("*.fg")):
        text = f.read_text(encoding="utf-8")
        formatted, diags = format_text(text)
        assert diags == [] and formatted == text, f.name


def test_the_forms_pack_plays_whole_games_and_passes_the_fuzzer(prs):
    """Its killer on its scenario and on a bundled one, a bundled killer on its scenario, both bots,
    to the end with no error; the fuzzer checks every transition of its pair."""
    for killer, scenario in ((KILLER, SCENARIO), (KILLER, "storybook-woods"), ("big-bad-wolf", SCENARIO)):
        for bot in ("random", "greedy"):
            records = run_games(prs, {"killer": killer, "scenario": scenario}, 8, 0, bot)
            assert all(not r.error for r in records), [r.error for r in records if r.error]
            assert all(r.result in ("fg", "killer") for r in records), (killer, scenario, bot)
    report = run_fuzz(prs, games=6, seed=5, bot="both", killers=[KILLER], scenarios=[SCENARIO])
    assert report["clean"], report.get("violations")


def test_V3_the_oars_start_aside_and_events_give_and_take_them(prs, games):
    """V3: the card starts neither in the market nor in her hand; the two events that find an oar
    give her a copy (C3.9: at most the two copies, and only those lines do), she plays it, and the
    cracked oar takes one out of the game for good."""
    text = (PACK / "lakehouse.fg").read_text(encoding="utf-8").splitlines()
    finders = {f"lakehouse.fg:{i}" for i, ln in enumerate(text, 1) if "gain card fm-oars" in ln}
    assert len(finders) == 2
    gained = removed = played = 0
    for states, events, setup in games[SCENARIO]:
        first = states[0]  # set aside: in none of her cards, unless the event drawn at setup (C18.5) gave one
        at_setup = sum(e.text == f"takes {OARS} into her hand" for e in events[:setup])
        assert first.hand.count("fm-oars") == at_setup and "fm-oars" not in (*first.market, *first.spent)
        for e in events:
            if e.text == f"takes {OARS} into her hand":
                assert e.rule == "C3.9" and any(_from(e, where) for where in finders), e
                gained += 1
        removed += sum(e.text.startswith(f"{OARS} leaves the game") for e in events)
        played += sum(e.text == f"plays {OARS}" for e in events)
        for st in states:  # never more copies in play than the card has, removed ones counted
            copies = (*st.hand, *st.spent, *st.market).count("fm-oars") + st.cards_gone.count("fm-oars")
            assert copies <= 2
    assert gained >= 3 and removed >= 1 and played >= 1, (gained, removed, played)


def test_S1_7_items_held_only_in_hand_never_reach_the_backpack(prs, games):
    """S1.7: the boat key (held from the start) and the storm lantern (which an event gives her while
    her hands hold the key and a knife) are held in hand in every state of every game, never in the
    backpack: gaining the lantern puts the knife away instead (C6.5), and the Upkeep rearranging
    (C11.3), offered while she holds one, never offers to pack it."""
    held = upkeeps = lanterns = 0
    for states, events, _setup in [*games[SCENARIO], *games["storybook-woods"]]:
        for st in states:
            assert not set(HAND_ONLY) & {p.id for p in st.pack}
            in_hand = set(HAND_ONLY) & {h.id for h in st.held}
            held += bool(in_hand)
            if st.choice is not None and st.phase == "upkeep" and in_hand:
                keys = [o.key for o in st.choice.options]
                assert not any(k == f"to-pack:{i}" for i in in_hand for k in keys), keys
                upkeeps += 1
        gained = sum(e.text == "gains Storm Lantern" for e in events)
        if gained:
            assert any("fm-storm-lantern" in {h.id for h in st.held} for st in states)
        lanterns += gained
    assert held > 100 and upkeeps >= 5 and lanterns >= 2, (held, upkeeps, lanterns)


def test_K2_7_the_lamplighter_has_no_dark_power_in_any_game(prs, games):
    """K2.7: none is drawn at setup, none is revealed, not even with the finale (C11.1), which is
    revealed in some of the games played."""
    finales = 0
    for states, events, _setup in [*games[SCENARIO], *games["storybook-woods"]]:
        assert all(st.dark_power == "" and not st.dark_revealed for st in states)
        assert not any("dark power" in e.text for e in events)
        finales += any(e.text.startswith("the finale is revealed") for e in events)
    assert finales >= 2, finales


def test_S1_8_the_beam_raises_fear_only_for_damage_its_terror_card_caused(prs, games):
    """'when fg loses health if the cause is terror fm-sweeping-beam': each fear rise of that line
    comes in a Killer phase after the Sweeping Beam card was turned up (C8.1), never after another
    card; the line fires in the games played."""
    where = _line("lamplighter.fg", "the cause is terror fm-sweeping-beam")
    fired = 0
    for states, events, _setup in [*games[SCENARIO], *games["storybook-woods"]]:
        card = ""
        for e in events:
            if e.text.startswith("terror card: "):
                card = e.text[len("terror card: "):]
            elif e.text.startswith(("Panic phase", "Upkeep phase")):
                card = ""
            if _from(e, where):
                assert e.text.startswith("fear rises") and card == "Sweeping Beam", (e, card)
                fired += 1
    assert fired >= 2, fired


def _names(rs, scenario: str, keep) -> set[str]:
    return {loc.name for loc in rs.scenarios[scenario].locations if keep(loc)}


def _places(rs, states, events):
    """Each event with where she and the killer stood just before it, followed through the log from
    the first state: her moves (C5.1) and the killer's (C9.1, C9.4) say where they go."""
    names = {loc.id: loc.name for loc in rs.scenarios[SCENARIO].locations}
    board = states[0].game.board
    fg, killer = names[board.ids[states[0].fg_loc]], names[board.ids[states[0].killers[0].loc]]
    for e in events:
        yield e, fg, killer
        m = re.match(r"the Final Girl moves to (.+?)(?: with .*)?$", e.text)
        if m:
            fg = m.group(1)
        m = re.match(r"the killer moves to ([^,]+)", e.text)
        if m:
            killer = m.group(1)


def test_K2_1_a_dark_corner_picks_by_where_all(prs, games):
    """'(any where all { it is not here; it is not killer-location; any { it is search; it is exit } }
    nearest to fg)': the killer goes to a search location or an exit where neither she nor it
    stands, near her."""
    where = _line("lamplighter.fg", "any { it is search; it is exit }")
    allowed = _names(prs, SCENARIO, lambda loc: loc.search or loc.exit)
    moves = Counter()
    for states, events, _setup in games[SCENARIO]:
        for e, fg, killer in _places(prs, states, events):
            if _from(e, where):
                m = re.fullmatch(r"the killer moves to (.+)", e.text)
                assert m and m.group(1) in allowed and m.group(1) not in (fg, killer), (e.text, fg, killer)
                moves[m.group(1)] += 1
    assert sum(moves.values()) >= 3 and len(moves) >= 2, moves


def test_K2_1_lost_campers_appear_at_two_different_random_places(prs, games):
    """'for each 2 of any where it is not killer-location random': each time the card resolves, its
    victims appear at two different locations (one, if the supply runs short), never where the
    killer stands."""
    where = _line("lamplighter.fg", "for each 2 of any")
    runs: list[list[str]] = []
    places = set()
    for states, events, _setup in [*games[SCENARIO], *games["storybook-woods"]]:
        current: list[str] = []
        for e in events:
            if _from(e, where):
                m = re.fullmatch(r"1 victim appears at (.+)", e.text)
                assert m, e.text
                current.append(m.group(1))
            elif current:
                runs.append(current)
                current = []
        if current:
            runs.append(current)
    for run in runs:
        assert len(run) <= 2 and len(set(run)) == len(run), run
        places.update(run)
    assert sum(len(run) == 2 for run in runs) >= 3 and len(places) >= 4, runs


def test_K2_1_board_has_tag_moves_it_to_the_shore_only_on_a_map_with_one(prs, games):
    """'at start of killer { if board has tag shore { … } else { … } }': on the Lakehouse (shore
    locations) the killer goes to a shore location other than its own at the start of the Killer
    phase, and the other branch never runs; on the Storybook Woods (no shore) only the other does."""
    shore_line = _line("lamplighter.fg", "move killer to (shore where all {")
    other_line = _line("lamplighter.fg", "move killer to (any where all { it is not here; it is not killer-location } nearest")
    shore = _names(prs, SCENARIO, lambda loc: "shore" in loc.tags)
    seen = Counter()
    for scenario in (SCENARIO, "storybook-woods"):
        for states, events, _setup in games[scenario]:
            for e in events:
                if _from(e, shore_line):
                    m = re.fullmatch(r"the killer moves to (.+)", e.text)
                    assert m and m.group(1) in shore, e.text
                    seen[scenario, "shore"] += 1
                elif _from(e, other_line):
                    assert e.text.startswith("the killer moves to "), e.text
                    seen[scenario, "other"] += 1
    assert seen[SCENARIO, "shore"] >= 5 and seen["storybook-woods", "other"] >= 5, seen
    assert seen[SCENARIO, "other"] == 0 and seen["storybook-woods", "shore"] == 0, seen
