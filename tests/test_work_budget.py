"""The work budget of a game in play (issue 42; docs/decisions/0022, dsl/LANGUAGE.md section 9).

Content that checks clean may still ask the engine for work that multiplies: selectors nested in
selectors, ``for each`` in ``for each``, a trigger whose block sets it off again many times. Each
costs units (a block run and each effect in it, each location a selector looks at, each piece a set
goes over, each trigger looked at), counted down from ``steps.MAX_WORK`` and refilled at each answer
of the player; past it the game stops with E313 naming the content line. The tests set the budget
themselves (a count, never a time), so what they check does not depend on the machine.
"""

from __future__ import annotations

import itertools

import pytest
from conftest import load_with
from lastbreath.dsl import RulesError
from lastbreath.dsl.limits import MAX_WORK
from lastbreath.interpreter import bots
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.engine import apply, driver, play_out, steps

KILLER = '''killer budget-test {{
  name "Budget Test"
  health 5
  fear 2
  bloodlust {{ level move 1 damage 1; level move 1 damage 1 }}
  finale f {{ name "F"; back {{ killer hunts fg moves 1 attacks 1 }}; face {{ killer hunts fg moves 1 attacks 1 }} }}
  dark_power d {{ name "D" }}
  {line}
}}
'''
LINE = 8  # the line of KILLER that {line} stands on


def _nested(template: str, depth: int, inner: str) -> str:
    s = inner
    for _ in range(depth):
        s = template.format(s)
    return s


# each of the probe's repros of issue 42, one line changed
COSTLY = {
    "selectors nested 5 deep": "at start of upkeep { move killer to "
                               + _nested("(any with most (count victims at {}))", 5, "here") + " }",
    "where nested 6 deep": "at start of upkeep { move killer to "
                           + _nested("(any where count victims at {} at least 0)", 6, "here") + " }",
    "for each nested 5 deep": "at start of upkeep { " + _nested("for each any {{ {} }}", 5, "lose 0 time") + " }",
    "a trigger that fans out": "when fear rises if fear at most 8 { repeat 20 { raise fear 1; lower fear 1 } }",
    "for each victim in for each": "at start of upkeep { "
                                   + _nested("for each any {{ {} }}", 3, "for each victim { lose 0 time }") + " }",
}


@pytest.fixture()
def budget(monkeypatch):
    """Set the work budget between two decisions (``steps.MAX_WORK``) for the test."""
    def set_to(units: int) -> None:
        monkeypatch.setattr(steps, "MAX_WORK", units)
    return set_to


def _play(rs, killer: str, seed: int, limit: int = 400, scenario: str = "storybook-woods"):
    state, _ = new_game(rs, killer=killer, scenario=scenario, seed=seed)
    return play_out(state, bots.random_policy(seed), limit)


@pytest.mark.parametrize("what", list(COSTLY))
def test_costly_content_ends_with_e313_naming_its_line(tmp_path, budget, what):
    """Issue 42's repros: each ended in a hang, a MemoryError or a crash of the compiled engine.
    With a budget of 20 000 units (the bundled films never use 100 between two decisions) each
    ends with E313, naming the line of the killer that asked for the work."""
    budget(20_000)
    rs = load_with(tmp_path, KILLER.format(line=COSTLY[what]))
    with pytest.raises(RulesError) as err:
        for seed in range(1, 4):
            _play(rs, "budget-test", seed)
    assert err.value.code == "E313"
    assert err.value.diagnostic.span.path.endswith("extra.fg")
    assert err.value.diagnostic.span.line == LINE
    assert "work budget of 20000 units" in str(err.value)


MODEST = {
    "selectors nested 3 deep": "at start of upkeep { move killer to "
                               + _nested("(any with most (count victims at {}))", 3, "here") + " }",
    "for each nested 3 deep": "at start of upkeep { " + _nested("for each any {{ {} }}", 3, "lose 0 time") + " }",
}


@pytest.mark.parametrize("what", list(MODEST))
def test_the_budget_refilled_at_each_answer_is_what_a_game_may_ask_between_two(tmp_path, budget, what):
    """Content under a budget above what it asks between two decisions plays on, round after
    round: the budget is not one of the whole game (it is refilled at each answer)."""
    rs = load_with(tmp_path, KILLER.format(line=MODEST[what]))
    budget(10 ** 9)
    low = _least_work(rs, "budget-test", seed=1)
    budget(2 * low)
    end = _play(rs, "budget-test", seed=1)
    assert end.round > 2  # several upkeeps, each asking for the same work


def _least_work(rs, killer: str, seed: int, scenario: str = "storybook-woods") -> int:
    """The most work asked between two decisions in one game: the least budget it plays under
    (found by halving; each trial plays the game again)."""
    lo, hi = 1, 10 ** 6
    while lo < hi:
        mid = (lo + hi) // 2
        steps.MAX_WORK = mid
        try:
            _play(rs, killer, seed, scenario=scenario)
        except RulesError as e:
            if e.code != "E313":
                raise
            lo = mid + 1
        else:
            hi = mid
    return lo


@pytest.mark.parametrize("killer,scenario", [("zombies", "storybook-woods"), ("intruders", "wolfe-asylum"),
                                             ("big-bad-wolf", "wingard-cottage"),
                                             ("ratchet-lady", "storybook-woods"),
                                             ("evomorph", "wingard-cottage")])
def test_the_bundled_films_play_under_a_hundredth_of_the_budget(rs, budget, killer, scenario):
    """The budget is generous: every bundled film's game, with either bot, plays whole under a
    hundredth of it (the peak measured for the record: under 100 units between two decisions)."""
    budget(MAX_WORK // 100)
    for seed, bot in itertools.product(range(3), ("random", "greedy")):
        state, _ = new_game(rs, killer=killer, scenario=scenario, seed=seed)
        policy = bots.random_policy(seed) if bot == "random" else bots.greedy_policy(seed)
        assert play_out(state, policy, 5000).over


STEP_WITH_AN_ANSWER = ('at start of upkeep { for each any { lose 0 time }; '
                       'choose { "A" { for each any { for each any { lose 0 time } } }; "B" { lose 0 time } } }')


def _answers(rs, seed: int, limit: int = 300):
    """A game answered one apply at a time (a paused run resumed, or a step replayed): its
    states' answers and results, or the error it ended with and after how many answers."""
    state, _ = new_game(rs, killer="budget-test", scenario="storybook-woods", seed=seed)
    policy = bots.random_policy(seed)
    trail = []
    try:
        for _ in range(limit):
            if state.over:
                break
            state, _ = apply(state, policy(state, state.choice))
            trail.append((state.answers, state.result))
    except RulesError as e:
        return trail, e.code
    return trail, None


def test_a_step_replayed_counts_from_the_answer_just_given_as_a_resumed_run_does(tmp_path, budget, monkeypatch):
    """A step that works, asks, and works again: resumed, the budget is refilled at the answer;
    replayed from its checkpoint, the work before the answer is done again, and the budget must
    be refilled at the same point (the answer just given), else a game that played fine resumed
    would stop with E313 once its save is loaded. At the least budget the game plays under, and
    one unit below it, the two ways give the same game."""
    rs = load_with(tmp_path, KILLER.format(line=STEP_WITH_AN_ANSWER))
    budget(10 ** 9)
    low = _least_work(rs, "budget-test", seed=2)
    for units in (low, low - 1):
        budget(units)
        resumed = _answers(rs, seed=2)
        monkeypatch.setattr(driver, "GREENLET", None)
        replayed = _answers(rs, seed=2)
        monkeypatch.undo()
        budget(units)
        assert replayed == resumed, units
    budget(low - 1)
    assert _answers(rs, seed=2)[1] == "E313"


def test_the_catalogue_explains_e313():
    from lastbreath.dsl.diagnostics import lookup

    entry = lookup("E313")
    assert entry.severity == "error" and "50 000" in entry.explanation
    assert f"{MAX_WORK:,}".replace(",", " ") == "50 000"


# --- what the checker sees of it (W203, dsl/cost.py) ----------------------------------------------
def _warnings(tmp_path, line: str) -> list:
    from lastbreath.dsl import load_content
    from lastbreath.dsl.ruleset import bundled_paths

    f = tmp_path / "extra.fg"
    f.write_text(KILLER.format(line=line), encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), f])
    assert rs is not None  # a warning: the content still loads
    return [d for d in diags if d.code == "W203"]


@pytest.mark.parametrize("what", ["selectors nested 5 deep", "where nested 6 deep", "for each nested 5 deep"])
def test_the_checker_warns_of_nesting_that_multiplies_past_the_budget(tmp_path, what):
    """Where the cost is in the text (each level ranging over the board), the checker says so
    before play: W203 on the line, with its estimate and the budget."""
    got = _warnings(tmp_path, COSTLY[what])
    assert len(got) == 1 and got[0].span.line == LINE
    assert "50 000" in got[0].message and got[0].severity == "warning"


@pytest.mark.parametrize("what", list(MODEST))
def test_the_checker_is_quiet_about_nesting_well_within_the_budget(tmp_path, what):
    assert _warnings(tmp_path, MODEST[what]) == []


def test_the_estimate_counts_each_shared_part_once_and_stays_a_small_number():
    """Linear in the file: a selector nested 20 deep is estimated in one pass (each node once),
    held below a cap rather than grown into a number of 22 digits."""
    from lastbreath.dsl import parse_text
    from lastbreath.dsl.build import build_file
    from lastbreath.dsl.cost import _CAP, costly_lines

    line = "move killer to " + _nested("(any with most (count victims at {}))", 20, "here")
    text = f'card deep {{ name "Deep"; cost 1; fail {{ {line} }} }}\n'
    lines, diags = parse_text(text, "deep.fg")
    decls, _refs, diags = build_file(lines, "deep.fg", text)
    assert [d.code for d in diags] == ["W203"]
    assert f"more than {_CAP:,}".replace(",", " ") in diags[0].message
    assert len(costly_lines(decls)) == 1  # the outermost line only, not each selector inside it
