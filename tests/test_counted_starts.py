"""Counted starts of an item's copies (docs/rules.md S1.1; dsl/LANGUAGE.md 6d, 'Where an item
starts'): 'start held 1; start table 2' of an item with 'copies 6' holds one card, lays two on the
table and deals the other three into the item piles (C18.4), as the starship's pass cards begin."""

from __future__ import annotations

from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_content
from lastbreath.dsl.render import Names, render
from lastbreath.interpreter.api import new_game

SCENARIO = """\
scenario flare-deck {
  name "Flare Deck"
  location dock { name "Dock"; exit }
  location hold { name "Hold"; search }
  location bay { name "Bay"; search }
  location mess { name "Mess"; search }
  path dock (1 2 3) -- (1 2 3) hold
  path hold (4 5 6) -- (1 2 3) bay
  path bay (4 5 6) -- (1 2 3) mess
  setup first { killer at mess; fg at dock; victims at hold 2 }
  item flare { name "Flare"; copies 6; start held 1; start table 2; use time 1 { lower fear 1 } }
%s
}
"""
FLARE = '  item flare { name "Flare"; copies 6; start held 1; start table 2; use time 1 { lower fear 1 } }'
FILLER = "\n".join(f'  item crate-{i} {{ name "Crate {i}"; use time 1 {{ heal 1 }} }}' for i in range(12))


def _load(tmp_path: Path, item_line: str = ""):
    f = tmp_path / "flare.fg"
    text = SCENARIO % FILLER
    if item_line:
        text = text.replace(FLARE, item_line)
    f.write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), f])


def test_S1_1_counted_starts_hold_one_lay_two_and_deal_the_rest(tmp_path):
    rs, diags = _load(tmp_path)
    assert diags == [] and rs is not None
    for seed in range(3):
        state, _ = new_game(rs, killer="big-bad-wolf", scenario="flare-deck", final_girl="nell-arden", seed=seed)
        held = [h for h in (*state.held, *state.pack) if h.id == "flare"]
        table = [t for t in state.table if t.split("#")[0] == "flare"]
        assert len(held) == 1 and len(table) == 2
        pool = state.game.setup_lists[0]
        assert pool.count("flare") == 3  # the other three copies go into the item pool (C18.4)


def test_the_rendering_says_where_each_copy_starts(tmp_path):
    rs, _ = _load(tmp_path)
    flare = next(it for it in rs.scenarios["flare-deck"].items if it.id == "flare")
    text = render(flare, Names.from_ruleset(rs))
    assert "1 copy: you start with it" in text and "2 copies: starts face up on the table" in text
    assert "the other copies are dealt into the item piles" in text


@pytest.mark.parametrize("line,code", [
    ('  item flare { name "Flare"; copies 6; start held 1; start held 2 }', "E206"),
    ('  item flare { name "Flare"; copies 6; start held 1; start table }', "E206"),
    ('  item flare { name "Flare"; copies 6; start table; start held 1 }', "E206"),
    ('  item flare { name "Flare"; copies 2; start held 1; start table 2 }', "E209"),
    ('  item flare { name "Flare"; copies 6; start held 0 }', "E209"),
    ('  item flare { name "Flare"; copies 6; start pile 2 }', "E205"),
])
def test_counted_starts_refused_with_a_code(tmp_path, line, code):
    _rs, diags = _load(tmp_path, line)
    assert [d.code for d in diags] == [code], [d.message for d in diags]
