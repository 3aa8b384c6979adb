"""Causes as conditions (issue #33 item 6): inside an answer to an event, 'the cause is card|item|
action|event|terror ID' tells which source's effect made it happen (S1.8: the airlock's double
death is a loss; K1.7: a scan's)."""

from __future__ import annotations

from conftest import load_with, make_work
from lastbreath.dsl import bundled_paths, load_content
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game

CAUSES = """
item cz-airlock { name "Airlock Lever"; use time 0 { lose 2 health } }
card cz-sting { name "Sting"; cost 1; fail { lose 1 health }; success { lose 1 health }; great { lose 1 health } }
killer cz-host {
  name "Cause Host"
  health 4
  fear 2
  no dark power
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  finale cz-f { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  terror cz-drain { name "Drain"; effect { lose 1 health } }
  when fg loses health if the cause is item cz-airlock { set flag by-airlock; lose 1 time }
  when fg loses health if the cause is card cz-sting { set flag by-sting }
  when fg loses health if the cause is terror cz-drain { set flag by-drain }
  when fg loses time if the cause is item cz-airlock { set flag time-by-airlock }
  instead of fg would be defeated if the cause is item cz-airlock { end game lose "the airlock took her too" }
}
"""


def _game(tmp_path):
    rs = load_with(tmp_path, CAUSES)
    state, _ = new_game(rs, killer="cz-host", scenario="storybook-woods", seed=1)
    return rs, engine.replace(state, fg_health=5, fg_breath=2, flags=frozenset())


def test_S1_8_a_trigger_reads_which_source_made_the_event(tmp_path):
    """The item's use makes her lose health: the line naming the item fires, not the card's or the
    terror card's; an event its answer makes has the same cause (the time lost in that answer)."""
    rs, state = _game(tmp_path)
    assert state.game.causes_read
    w = make_work(state)
    item = rs.items["cz-airlock"]
    engine.run(w, item.use.effects, w.game.source_ctx[item.id])
    assert {"by-airlock", "time-by-airlock"} <= w.flags and not {"by-sting", "by-drain"} & w.flags
    w = make_work(state)
    engine.run(w, rs.killers["cz-host"].terror[0].effects, w.game.source_ctx["cz-drain"])
    assert "by-drain" in w.flags and "by-airlock" not in w.flags
    w = make_work(state)
    engine.fg_damage(w, 1, damage=False)  # the core rules, no source: none of them
    assert not w.flags


def test_S1_8_the_airlock_defeating_her_is_a_loss(tmp_path):
    rs, state = _game(tmp_path)
    w = make_work(engine.replace(state, fg_health=1, fg_breath=1))
    try:
        engine.run(w, rs.items["cz-airlock"].use.effects, w.game.source_ctx["cz-airlock"])
    except engine.GameOver:
        pass
    assert w.result == "killer" and w.end_reason == "the airlock took her too"


def test_a_cause_names_a_source_that_exists(tmp_path):
    f = tmp_path / "x.fg"
    f.write_text(CAUSES.replace("the cause is item cz-airlock { set flag by-airlock", "the cause is item cz-airlok "
                                "{ set flag by-airlock").replace("is card cz-sting", "is card cz-stin"),
                 encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), f])
    assert rs is None and sorted(d.code for d in diags) == ["E204", "E204"]
    assert any("did you mean 'cz-airlock'" in d.hint for d in diags)


def test_games_where_no_content_reads_a_cause_keep_none(game):
    assert not game.game.causes_read


DECKED = """
killer cz-decked {
  name "Decked Host"
  health 4
  fear 2
  no dark power
  bloodlust { level move 1 damage 1; at max { lose 1 time } }
  finale cz-f2 { name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 } }
  deck cz-ambush {
    name "Ambush"
    card cz-lunge { name "Lunge"; effect { lose 1 health } }
    card cz-claw { name "Claw"; effect { lose 1 health } }
  }
  terror cz-drain2 { name "Drain"; effect { lose 1 health } }
  when fg loses health if the cause is deck cz-ambush { set flag by-ambush }
}
"""


def test_K1_7_the_cause_is_any_card_of_a_deck(tmp_path):
    """K1.7: 'the cause is deck DECK' holds for what any card of the deck makes happen (the ambush
    cards a scan stops), and not for another source's effect."""
    rs = load_with(tmp_path, DECKED)
    state, _ = new_game(rs, killer="cz-decked", scenario="storybook-woods", seed=1)
    state = engine.replace(state, fg_health=5, fg_breath=2, flags=frozenset())
    for card in rs.killers["cz-decked"].decks[0].cards:
        w = make_work(state)
        engine.run(w, card.effects, engine.Ctx(card.id))
        assert "by-ambush" in w.flags
    w = make_work(state)
    engine.run(w, rs.killers["cz-decked"].terror[0].effects, w.game.source_ctx["cz-drain2"])
    assert "by-ambush" not in w.flags
    f = tmp_path / "y.fg"
    f.write_text(DECKED.replace("is deck cz-ambush", "is deck cz-ambsh"), encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), f])
    assert rs is None and [d.code for d in diags] == ["E204"]
