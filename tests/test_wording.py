"""The words a player reads (issue #18): nouns plural by count, never "(s)"; no "at most 0"; no
word doubled from a token's name; a flag set or cleared is said in the log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import apply, new_game, random_policy

RS = load_ruleset()
DOUBLED = re.compile(r"\b(\w+) \1\b", re.IGNORECASE)


def _texts(killer: str, scenario: str, seed: int) -> list[str]:
    state, events = new_game(RS, killer=killer, scenario=scenario, seed=seed)
    out = [e.text for e in events]
    bot = random_policy(seed)
    while not state.over:
        out.append(state.choice.prompt)
        out.extend(o.label for o in state.choice.options)
        state, events = apply(state, bot(state, state.choice))
        out.extend(e.text for e in events)
    return out


@pytest.mark.parametrize(("killer", "scenario"), [(k, s) for k in sorted(RS.killers) for s in sorted(RS.scenarios)])
def test_what_the_player_reads_is_counted_in_english(killer, scenario):
    for seed in range(3):
        for text in _texts(killer, scenario, seed):
            assert "(s)" not in text and "(es)" not in text, text
            assert "at most 0" not in text, text
            assert not DOUBLED.search(text), text


def test_a_flag_set_or_cleared_is_said_in_the_log(tmp_path):
    from conftest import make_work
    from lastbreath.dsl import nodes as n
    from lastbreath.interpreter import engine

    state, _ = new_game(RS, seed=1)
    w = make_work(engine.replace(state.checkpoint, flags=frozenset()))
    engine.run(w, (n.SetFlag(None, "lamp-lit"), n.SetFlag(None, "lamp-lit"), n.ClearFlag(None, "lamp-lit")),
               engine.Ctx())
    assert [e.text for e in w.ctl.events] == ["the flag lamp-lit is set", "the flag lamp-lit is cleared"]


def test_issue_34_texts_say_what_play_does():
    """Issue #34 item 6: a ranged weapon reaches exactly its range (C3.8), never "up to"; raw
    materials laid on the table at setup cite S3.1, not S1.1; the daze menu names each of the
    Intruders (not "the killer" three times)."""
    from conftest import L, make_work, need, settle

    from lastbreath.dsl.render import Names, render
    from lastbreath.interpreter import engine

    names = Names.from_ruleset(RS)
    sling = render(next(i for i in RS.scenarios["storybook-woods"].items if i.id == "shepherds-sling"), names)
    assert "exactly 1 location away" in sling and "up to 1 location" not in sling
    _state, events = new_game(RS, killer="big-bad-wolf", scenario="wingard-cottage", seed=0)
    table = {e.text: e.rule for e in events if "lies face up on the table" in e.text}
    assert table and set(table.values()) == {"S3.1"}, table
    state, _ = new_game(RS, killer="intruders", scenario="wolfe-asylum", seed=1)
    here = L(state, "day-room")
    s = settle(state.checkpoint, phase="action", sub=1, fg_loc=here,
               killers=tuple(engine.evolve_killer(k, loc=here) for k in state.killers))
    fuse = next(e for e in RS.scenarios["wolfe-asylum"].events if e.id == "sparking-fuse-box")
    choice = need(make_work(s), engine.run, fuse.effects, engine.Ctx())
    labels = [o.label for o in choice.options]
    assert labels == ["Vera in Red", "The Sackcloth Man", "Little Abel"], labels


PACKS = Path(__file__).resolve().parent / "packs"


def _pack_games():
    """(ruleset, killer, scenario) of every bundled pair and of each test pack's own killers and
    scenarios (which use tokens, tracks, decks, statuses, bodies, board changes: section 6 of
    dsl/LANGUAGE.md)."""
    from lastbreath.dsl import bundled_paths, load_content

    out = [(RS, k, s) for k in sorted(RS.killers) for s in sorted(RS.scenarios)]
    for folder in sorted(p for p in PACKS.iterdir() if p.is_dir()):
        rs, diags = load_content([*bundled_paths(), folder])
        assert rs is not None, diags
        new_k = sorted(set(rs.killers) - set(RS.killers)) or sorted(RS.killers)[:1]
        new_s = sorted(set(rs.scenarios) - set(RS.scenarios)) or sorted(RS.scenarios)[:1]
        out += [(rs, k, s) for k in new_k for s in new_s]
    return out


def test_every_engine_line_cites_its_rule():
    """C1.2 (issue 35: 'the killer heals to 7' and a move to where it already stood had no rule id):
    every event of every game cites a rule id; an effect that is its text alone cites C1.2, one a
    rule of the game shapes cites that rule (a killer healing: C17.1; a move it is told to make: C9.1)."""
    from lastbreath.interpreter.bots import Greedy

    missing: dict[str, str] = {}
    for rs, killer, scenario in _pack_games():
        for seed in range(2):
            state, events = new_game(rs, killer=killer, scenario=scenario, seed=seed)
            bot = random_policy(seed) if seed else Greedy()
            seen = list(events)
            while not state.over and len(seen) < 20_000:
                state, events = apply(state, bot(state, state.choice))
                seen.extend(events)
            for e in seen:
                if not e.rule:
                    missing.setdefault(f"{e.kind}: {re.sub(r'[0-9]+', 'N', e.text)}", f"{killer} {scenario} {seed}")
    assert missing == {}
