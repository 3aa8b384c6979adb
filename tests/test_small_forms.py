"""The small forms the films' rules name (issue #33 item 9): a killer with no dark power (K2.7),
items held only in hand (S1.7), a test for a tag on the board (K2.1), conditions with parts inside
a selector, and distinct random picks (K2.1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_with, make_work
from lastbreath.dsl import bundled_paths, load_content
from lastbreath.dsl.render import Names, render
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.simulate import run_games
from lastbreath.interpreter.state import HeldItem

NO_DARK = """
killer nd-host {
  name "No Dark"
  health 4
  fear 2
  no dark power
  bloodlust { level move 1 damage 1; level move 2 damage 1; at max { lose 1 time } }
  finale nd-close { name "Close"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 2 attacks 1 } }
  terror nd-lurk { name "Lurk"; effect { killer hunts fg-or-victims moves 1 attacks 1 } }
  terror nd-rise { name "Rise"; effect { raise bloodlust 1 } }
}
"""


def _diags(tmp_path: Path, text: str):
    f = tmp_path / "x.fg"
    f.write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), f])


def test_K2_7_a_killer_with_no_dark_power_draws_none_and_plays(tmp_path):
    """K2.7: 'no dark power' is declared, not an empty card: none is drawn at setup, none revealed,
    and the killer plays whole games."""
    rs = load_with(tmp_path, NO_DARK)
    state, _ = new_game(rs, killer="nd-host", scenario="storybook-woods", seed=2)
    assert state.dark_power == "" and not state.game.killer.dark
    w = make_work(state)
    engine.reveal_dark_power(w)
    assert not w.dark_revealed
    records = run_games(rs, {"killer": "nd-host", "scenario": "storybook-woods"}, 20, 0, "random")
    assert all(not r.error for r in records) and all(r.result for r in records)
    text = render(rs.killers["nd-host"], Names.from_ruleset(rs))
    assert "No dark power" in text


def test_K2_7_no_dark_power_with_dark_power_cards_or_a_reveal_is_refused(tmp_path):
    rs, diags = _diags(tmp_path, NO_DARK.replace("  no dark power\n", "  no dark power\n  dark_power nd-d { name \"D\" }\n"))
    assert rs is None and [d.code for d in diags] == ["E210"] and "declares dark power cards" in diags[0].message
    rs, diags = _diags(tmp_path, NO_DARK.replace("effect { raise bloodlust 1 }", "effect { reveal dark power }"))
    assert rs is None and [d.code for d in diags] == ["E210"] and "does nothing here" in diags[0].message
    rs, diags = _diags(tmp_path, NO_DARK.replace("  no dark power\n", ""))
    assert rs is None and [d.code for d in diags] == ["E202"] and "no dark power" in diags[0].hint


KEYS = """
item hf-key { name "Freighter Key"; hand only }
item hf-knife { name "Knife"; weapon hands 1 range 0 bonus 1 }
item hf-bat { name "Bat"; weapon hands 1 range 0 bonus 1 }
"""


def _options(w, fn, *args):
    with pytest.raises(engine.NeedChoice) as got:
        fn(w, *args)
    return [o.key for o in got.value.choice.options]


def test_S1_7_an_item_held_only_in_hand_never_goes_to_the_backpack(tmp_path):
    """S1.7 ('holds' is 'in her hand'): an item 'hand only' is offered to her hands alone (one
    hand), or in place of a held item that may go to the backpack; never moved to the backpack in
    Upkeep (C11.3); with no room and nothing to put away she leaves it."""
    rs = load_with(tmp_path, KEYS)
    state, _ = new_game(rs, seed=1)
    s = engine.replace(state, held=(), pack=())
    w = make_work(s)
    engine.gain_item(w, "hf-key", "")  # her hands alone: the one option, taken without asking
    assert [h.id for h in w.held] == ["hf-key"] and w.pack == ()
    full = engine.replace(state, held=(HeldItem("hf-knife", 0), HeldItem("hf-bat", 0)), pack=())
    assert _options(make_work(full), engine.gain_item, "hf-key", "") == ["swap:hf-knife", "swap:hf-bat"]
    keys = engine.replace(state, held=(HeldItem("hf-key", 0), HeldItem("hf-key", 0)), pack=())
    w = make_work(keys)
    engine.gain_item(w, "hf-key", "")  # hands full of keys: it is left (the one option)
    assert [h.id for h in w.held] == ["hf-key", "hf-key"] and w.pack == ()
    up = engine.replace(state, phase="upkeep", sub=1, held=(HeldItem("hf-key", 0), HeldItem("hf-knife", 0)), pack=())
    assert "to-pack:hf-key" not in _options(make_work(up), engine.step_upkeep)
    assert "to-pack:hf-knife" in _options(make_work(up), engine.step_upkeep)
    text = render(rs.items["hf-key"], Names.from_ruleset(rs))
    assert "never in the backpack" in text


def test_K2_1_for_each_n_of_picks_different_locations(game):
    """K2.1 ('each on a different location … chosen at random'): 'for each 3 of SET random' runs for
    three different random locations of the set, the same ones for the same seed; 'nearest to' the
    nearest first; fewer than asked when the set has fewer."""
    from conftest import fx
    from lastbreath.interpreter.engine import Ctx

    def placed(state, line):
        w = make_work(state)
        before = w.victims
        engine.run(w, fx(line), Ctx())
        return [i for i, (a, b) in enumerate(zip(before, w.victims)) if b > a]

    got = placed(game, "for each 3 of any random { place 1 victims at it }")
    assert len(got) == 3 and got == placed(game, "for each 3 of any random { place 1 victims at it }")
    seeds = {tuple(placed(engine.replace(game, seed=s), "for each 3 of any random { place 1 victims at it }"))
             for s in range(8)}
    assert len(seeds) > 1  # the picks are random …
    assert all(len(set(p)) == 3 for p in seeds)  # … and always different
    dist = engine.fg_tables(make_work(game))[1][game.fg_loc]
    near = placed(game, "for each 2 of any nearest to fg { place 1 victims at it }")
    assert sorted(dist[i] for i in near) == sorted(sorted(dist)[:2])
    exits = placed(game, "for each 9 of exit random { place 1 victims at it }")
    assert set(exits) == set(game.game.board.exits)  # fewer than asked: every exit, once


def test_K2_1_board_has_tag_reads_the_map_the_game_is_on(game):
    from conftest import fx
    from lastbreath.interpreter.engine import Ctx

    tags = set().union(*game.game.board.tags)
    there, absent = sorted(tags)[0], "no-such-tag"
    w = make_work(game)
    engine.run(w, fx(f"if board has tag {there} {{ set flag yes }}\nif board has tag {absent} {{ set flag no }}"),
               Ctx())
    assert "yes" in w.flags and "no" not in w.flags


def test_a_selector_that_matches_nothing_and_conditions_read_left_to_right(game):
    """dsl/LANGUAGE.md 4.3: no location matches: the effect does nothing, the condition does not
    hold (its negation does), a distance to it is 0; 'all' stops at the first part that fails and
    'any' at the first that holds (the random pick after it draws nothing)."""
    from conftest import fx
    from lastbreath.interpreter.engine import Ctx

    s = engine.replace(game, victims=(0,) * len(game.victims))
    w = make_work(s)
    at = w.killers[0].loc
    engine.run(w, fx("move killer to (exit with victims)\n"
                     "if (exit with victims) is exit { set flag a }\n"
                     "if (exit with victims) is not exit { set flag b }\n"
                     "if distance from (exit with victims) to here is 0 { set flag c }\n"
                     "for each exit with victims { set flag d }"), Ctx())
    assert w.killers[0].loc == at and w.flags == frozenset({"b", "c"})
    w = make_work(s)
    drawn = w.rng
    engine.run(w, fx("if all { fear at least 99; (any random) is exit } { set flag e }\n"
                     "if any { fear at least 0; (any random) is exit } { set flag f }"), Ctx())
    assert w.flags == frozenset({"f"}) and w.rng == drawn  # neither random pick was read


def test_K2_1_all_and_any_inside_a_selector_filter(game):
    """Issue #33 item 9: 'where all { … }' and 'where any { … }' inside a place in '( )' (a block in
    a group stands on one line, its parts after ';'): the filter keeps the locations every / some
    part holds for, 'it' the candidate; the same set as the 'for each' form."""
    from conftest import fx
    from lastbreath.interpreter.engine import Ctx

    board = game.game.board
    start = game.killers[0].loc
    exits = set(board.exits)

    def placed(line):
        w = make_work(engine.replace(game, victims=(0,) * len(game.victims)))
        engine.run(w, fx(line), Ctx())
        return {i for i, v in enumerate(w.victims) if v}

    both = placed("for each any where all { it is exit; it is not killer-start } { place 1 victims at it }")
    assert both == exits - {start}
    one = placed("place 1 victims at (any where all { it is exit; it is not killer-start } random)")
    assert len(one) == 1 and one <= both
    either = placed("for each 9 of any where any { it is exit; it is killer-start } random { place 1 victims at it }")
    assert either == exits | {start}
    first = placed("place 1 victims at (any where any { it is killer-start; it is exit })")
    assert first == {min(exits | {start})}  # no pick: the first in map order
    nested = placed("place 1 victims at (any where not any { it is exit; all { it is killer-start } } random)")
    assert len(nested) == 1 and not nested & (exits | {start})


def test_a_block_inside_a_group_stays_on_one_line_and_formats(tmp_path):
    """A block inside '( )' is on one line (E102 with the way to write it, at the line end); the
    formatter keeps it on one line in the canonical spacing."""
    from lastbreath.dsl.format import format_text

    card = ('card sel-card {{\n  name "Sel"\n  cost 1\n  success {{ move killer to (any where all {body} random) }}\n}}\n')
    rs, diags = _diags(tmp_path, card.format(body="{it is exit\n it is not killer-start }"))
    assert rs is None and [(d.code, d.span.line) for d in diags] == [("E102", 4)]
    assert "on one line" in diags[0].message and "';'" in diags[0].hint
    text, diags = format_text(card.format(body="{it is exit ;; it is not killer-start}"))
    assert diags == [] and "(any where all { it is exit; it is not killer-start } random)" in text
    rs, diags = _diags(tmp_path, text)
    assert rs is not None and diags == []
