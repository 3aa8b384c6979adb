"""Hostile content the engine must survive: the engine-side half of issue 14
(interpreter/engine/, interpreter/api.py).

Literal numbers are bounded when content is
loaded (dsl/limits.py), but amounts computed in play (``that``, ``(count …)``), rules that add
up, and effects that run every round are not: the engine is O(1) in an amount (clamp, then
apply) and a game has a budget of pieces and tokens that ends it with a RulesError (E312) naming
the content line, never a MemoryError or a hang.
"""

from __future__ import annotations

import pytest
from conftest import load_with, make_work
from lastbreath.dsl import RulesError
from lastbreath.dsl import nodes as n
from lastbreath.dsl.diagnostics import Span
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game

SPAN = Span("hostile.fg", 1, 1, 1, 2)

KILLER = '''
killer budget-test {{
  name "Budget Test"
  health 5
  fear 2
  {bloodlust}
  finale f {{ name "F"; back {{ killer hunts fg moves 1 attacks 1 }}; face {{ killer hunts fg moves 1 attacks 1 }} }}
  dark_power d {{ name "D" }}
{body}
}}
'''


def calls_during(fn) -> int:
    """How many Python and built-in functions ``fn()`` calls in all (a measure of work that does
    not depend on the names of the engine's functions, nor on the machine's speed)."""
    import sys
    count = [0]

    def profile(frame, event, arg):
        if event in ("call", "c_call"):
            count[0] += 1
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count[0]


def killer_game(tmp_path, body: str, seed: int = 1, bloodlust: str = "bloodlust { level move 1 damage 1 }"):
    rs = load_with(tmp_path, KILLER.format(body=body, bloodlust=bloodlust))
    return rs, new_game(rs, killer="budget-test", seed=seed)


def test_lowering_fear_far_below_its_minimum_costs_a_few_events(game):
    """C3.6: each point below the minimum is a time gained instead. engine.lower_fear(w, k) loops
    once a point (k events); it should lower fear by min(k, fear - minimum) in one event, then gain
    the rest as time in one call to gain_time (which caps it at the track): the same end state."""
    side = game.game.side
    w = make_work(engine.replace(game.checkpoint, fear=side.fear_min + 2, time=0))
    engine.lower_fear(w, 100_000)
    assert (w.fear, w.time) == (side.fear_min, side.time_max)  # the semantics stay
    # a step of the track each (2), then the rest as time at once (2: the reason, the time gained)
    assert len(w.ctl.events) <= 4, f"{len(w.ctl.events)} events for one effect"


def test_raising_fear_far_above_its_maximum_costs_a_bounded_number_of_events(tmp_path):
    """C3.6, C17.2: each point above the maximum raises bloodlust instead, and at the top of the
    track the top effect resolves. engine.raise_fear(w, k) loops once a point (2 events each,
    and the top effect k times); it should raise fear to the maximum, then call raise_bloodlust
    once with the rest, which climbs the levels left and resolves the top effect at most
    MAX_AMOUNT (100) times, with one event naming how many more were dropped."""
    _rs, (game, _) = killer_game(tmp_path, "", bloodlust="bloodlust { level move 1 damage 1; level move 1 damage 1; "
                                                          "at max { set flag top } }")
    side = game.game.side
    top = len(game.game.levels) - 1
    w = make_work(engine.replace(game.checkpoint, fear=side.fear_max, bloodlust=top))
    engine.raise_fear(w, 1000)
    few = len(w.ctl.events)
    w = make_work(engine.replace(game.checkpoint, fear=side.fear_max, bloodlust=top))
    engine.raise_fear(w, 100_000)
    assert len(w.ctl.events) <= few, f"{len(w.ctl.events)} events for 100 000 points, {few} for 1 000"


def test_killing_far_more_victims_than_there_are_stops_when_none_is_left(game):
    """C9.7: 'kill N victims at LOC' with N computed in play (a count) far above the victims
    there: engine/effects.py exec_kill_victims calls kill_victim N times, N - victims of them
    doing nothing (10**9 hangs); it should loop min(N, victims at LOC) times (each death can still
    trigger abilities)."""
    victims = list(game.checkpoint.victims)
    here = game.checkpoint.fg_loc
    victims[here] = 3
    w = make_work(engine.replace(game.checkpoint, victims=tuple(victims)))
    calls = calls_during(lambda: engine.run(w, (n.KillVictims(SPAN, 100_000, "here"),), engine.Ctx()))
    assert w.victims[here] == 0  # already true
    assert calls < 5_000, f"{calls} function calls to kill 3 victims"


def test_spending_from_many_collected_tokens_does_not_enumerate_combinations(rs):
    """S5.3: 'spend collected TOKEN LOW to HIGH' offers each multiset of kinds once, but
    engine/tokens.py _sub_multisets enumerates every combination of the collected tokens first (C(24, ≤8), a
    million, for 24 pills; C(60, ≤10) never ends). It should count the tokens of each kind and
    build the multisets from the counts (a product over the kinds), and cap the options offered."""
    state, _ = new_game(rs, scenario="wolfe-asylum", seed=1)
    kinds = ("yellow", "blue", "pink", "wild")
    many = tuple(("pill", kinds[i % 4]) for i in range(20))
    w = make_work(engine.replace(state.checkpoint, collected=many))
    action = next(a for a in w.game.actions if a.id == "take-pills")
    spend = n.SpendTokens(SPAN, "pill", 1, 8, next(e for e in action.effects if isinstance(e, n.SpendTokens)).body)
    asked: list = []

    def spend_them() -> None:
        try:
            engine.run(w, (spend,), engine.Ctx())
        except engine.NeedChoice as need:
            asked.append(need.choice)
    calls = calls_during(spend_them)
    assert asked and 100 < len(asked[0].options) < 1000  # already true: the multisets of 1 to 8 of 4 kinds
    assert calls < 50_000, f"{calls} function calls to list the ways to spend 20 tokens"


def test_a_fear_check_rolls_a_bounded_number_of_dice(tmp_path):
    """C2.1: the dice of a fear check add up (zone, card, 'dice N' rules, last breaths). Each rule
    is at most 10 (dsl/limits.py), but rules add up: 12 'rule dice 10' roll 120+ dice, and
    fear_check draws a die each. dice_for should clamp the total at a documented maximum (20,
    say), with an event when it does."""
    _rs, (state, _) = killer_game(tmp_path, "\n".join(["  rule dice 10"] * 12))
    w = make_work(state.checkpoint)
    card = w.game.cards[sorted(w.game.cards)[0]]
    assert engine.dice_for(w, card) <= 20


def test_new_game_with_content_lacking_a_killer_is_a_rules_error(tmp_path):
    """E300: content that loads clean but declares no killer (a partial pack loaded alone) makes
    api.new_game index an empty table (api._pick: sorted(table)[0]) and raise IndexError; it
    should raise RulesError('no killer is loaded'), as it does for a missing player board.
    (lastbreath fuzz-input reports this as its one known engine issue.)"""
    from lastbreath.dsl import bundled_paths, load_ruleset
    rs = load_ruleset([p for p in bundled_paths() if p.name == "cards"])
    assert not rs.killers and rs.player_boards
    with pytest.raises(RulesError, match="killer"):
        new_game(rs)


MINIONS = "\n".join(f'  minion swarm-{i} {{ name "Swarm {i}"; health 1; move 0; damage 0; limit 100 }}'
                    for i in range(20))


def test_more_minions_than_the_game_budget_end_it_with_a_rules_error_naming_the_line(tmp_path):
    """C15.1 and a resource budget: each minion kind is at most 100 (its limit), but 20 kinds
    make 2 000 pieces, and each spawn copies the tuple of minions (quadratic). A game should have
    a budget of pieces on the board (1 000, say) and stop, past it, with a RulesError naming the
    content line that went past it."""
    spawns = "; ".join(f"spawn 100 swarm-{i} at killer-location" for i in range(20))
    with pytest.raises(RulesError, match=r"extra\.fg:\d+"):
        killer_game(tmp_path, MINIONS + f"\n  when game starts {{ {spawns} }}")


def test_victims_placed_without_end_stop_at_the_victim_supply(tmp_path):
    """A resource budget, and C5.7 (issue #34): 'place 100 victims' repeated (a repeat of 20, nested
    in one of 5: 10 000 victims) once made the game stop past its budget of pieces; victims now come
    from the limited supply, so no more than it holds (30) are ever on the board, in one event
    saying none are left."""
    _rs, (state, _) = killer_game(tmp_path, "  when game starts { repeat 20 { repeat 5 { place 100 victims at "
                                            "killer-location } } }")
    assert sum(state.victims) <= state.game.victim_supply == 30


def test_token_supplies_past_the_budget_are_a_rules_error_naming_the_line(tmp_path):
    """A resource budget: each kind of a supply is at most 100 (dsl/limits.py), but 30 kinds make
    3 000 tokens, shuffled at setup and carried in every state. new_game should refuse, past a
    budget of tokens in play (1 000, say), with a RulesError naming the token's line."""
    kinds = " ".join(f"k{i}" for i in range(30))
    supply = " ".join(f"k{i} 100" for i in range(30))
    with pytest.raises(RulesError, match=r"extra\.fg:\d+"):
        killer_game(tmp_path, f'  token heap {{ name "Heap"; kinds {kinds}; supply {supply} }}')


def test_the_step_limit_names_the_content_line_that_loops(tmp_path, capsys):
    """Issue #14 (a game's step budget ends it with a rules error naming the content line): every
    phase replaced by 'end this phase' never reaches a decision; E311 points at the last line resolved."""
    from lastbreath.interpreter.cli import main

    pack = tmp_path / "loop"
    pack.mkdir()
    (pack / "loop.fg").write_text('''killer loop-test {
  name "Loop Test"
  health 5
  fear 2
  bloodlust { level move 1 damage 1; at max { raise fear 1 } }
  instead of action phase { end this phase }
  instead of planning phase { end this phase }
  instead of killer phase { end this phase }
  finale f { name "F"; back { raise fear 1 }; face { raise fear 1 } }
  dark_power d { name "D" }
}
''', encoding="utf-8")
    code = main(["play", "--content", str(pack), "--killer", "loop-test", "--bot", "random", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "error[E311]" in err and "Traceback" not in err
    assert any(f"loop.fg:{line}:" in err for line in (6, 7, 8)), err
    assert "end this phase" in err and "^~~~" in err


def test_a_bloodlust_level_that_raises_bloodlust_again_never_climbs_past_the_top(tmp_path):
    """C17.2 (found by `lastbreath fuzz-input`, content case 645): a level's own effect raises
    bloodlust while a rise of several levels is under way; the climb looks at the top again before
    each step instead of counting the levels left once (an IndexError past the last level)."""
    lust = ("bloodlust { level move 1 damage 1; level move 1 damage 1 { raise bloodlust 1 }; "
            "level move 1 damage 1; at max { raise fear 1 } }")
    rs, (state, _) = killer_game(tmp_path, "", bloodlust=lust)
    w = make_work(state)
    engine.raise_bloodlust(w, 2)
    assert w.bloodlust == len(w.game.levels) - 1
    rises = [e.text for e in w.ctl.events if e.kind == "bloodlust"]
    # 1 -> 2, whose effect climbs 2 -> 3; the outer rise's second point finds the top: its effect once
    assert rises == ["bloodlust rises to 2", "bloodlust rises to 3",
                     "bloodlust is at its maximum: the top effect resolves"], rises


def test_a_save_whose_arrivals_name_no_source_is_refused(rs, game):
    """LANGUAGE.md 5 (modifications apply in the order their sources came into play): the order is
    saved as 'arrivals'; a save that names something that is no source is refused with the field."""
    from lastbreath.dsl import SaveError
    from lastbreath.interpreter.serialize import from_json, to_json

    data = to_json(game)
    data["state"]["arrivals"] = ["item:x", "the moon"]
    with pytest.raises(SaveError, match=r"arrivals\[1\]"):
        from_json(rs, data)
    data["state"]["arrivals"] = ["item:x"]  # well formed, but not what the game's own choices lead to
    with pytest.raises(SaveError, match="differs from the state its checkpoint and answers lead to"):
        from_json(rs, data)
