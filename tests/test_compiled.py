"""Compiled conditions and amounts (engine/compiled.py) answer exactly what the evaluators answer.

Every condition of the bundled content, and a count of every countable over the whole board and
at a place, is read both ways on states met in real games of every killer (the win and lose lines
after every step read them compiled; C13)."""

from __future__ import annotations

import itertools

import pytest
from lastbreath.dsl import nodes as n
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.engine import Ctx
from lastbreath.interpreter.engine.compiled import compile_amount, compile_condition
from lastbreath.interpreter.engine.resolve import amount, condition

SETUPS = [("big-bad-wolf", "storybook-woods"), ("zombies", "storybook-woods"), ("ratchet-lady", "wolfe-asylum"),
          ("intruders", "wingard-cottage"), ("evomorph", "storybook-woods")]


def _states(rs, killer, scenario, games=3, every=3):
    """States met along a few random games (every ``every``-th one, the last one too)."""
    out = []
    for seed in range(games):
        policy = BOTS["random"](seed)
        st, _ = new_game(rs, killer=killer, scenario=scenario, seed=seed)
        for i in itertools.count():
            if i % every == 0 or st.result:
                out.append(st)
            if st.result or i > 400:
                break
            st, _ = engine.apply(st, policy(st, st.choice))
    return out


def _read(fn):
    try:
        return ("value", fn())
    except Exception as err:  # a condition that cannot be read outside its card must fail alike
        return ("error", type(err).__name__)


def _counts(places):
    kinds = {"minions": ("", "zombie"), "minion": ("",), "tokens": ("", "pill"), "collected": ("", "pill"),
             "cards": ("",)}
    for what in n.COUNTABLES:
        for kind in kinds.get(what, ("",)):
            for where in ("", *places):
                yield n.Count(None, what, kind, where)


@pytest.mark.parametrize("killer,scenario", SETUPS)
def test_compiled_forms_answer_as_the_evaluators_do(rs, killer, scenario):
    conds = [x for x in n.walk(tuple(rs.killers.values()) + tuple(rs.scenarios.values()))
             if isinstance(x, n.Condition)]
    assert any(isinstance(c, n.Compare) for c in conds)
    states = _states(rs, killer, scenario)
    assert len(states) > 20
    amounts = None
    compiled_c = [(c, compile_condition(c)) for c in conds]
    checked = 0
    for st in states:
        w = engine.work(st)
        if amounts is None:
            names = w.game.board.names
            amounts = [(a, compile_amount(a)) for a in _counts(("here", names[0], names[-1], "nowhere-at-all"))]
            # the shapes the compiler takes on: a count against a number, and nested in all/any/not
            shaped = []
            for a, _f in amounts:
                for op in ("at-least", "at-most", "is", "more-than", "less-than"):
                    cmp = n.Compare(None, a, op, 1)
                    shaped += [cmp, n.Compare(None, 2, op, a), n.Not(None, cmp),
                               n.AllOf(None, (cmp, n.Compare(None, a, op, 0))),
                               n.AnyOf(None, (n.Not(None, cmp), cmp))]
            shaped += [n.TokenAt(None, "pill", where) for where in ("here", "fg", names[0], "killer-location")]
            compiled_c += [(c, compile_condition(c)) for c in shaped]
        for c, f in compiled_c:
            assert _read(lambda: f(w, Ctx())) == _read(lambda: condition(w, c, Ctx())), (c, st.round)
            checked += 1
        for a, f in amounts:
            assert _read(lambda: f(w, Ctx())) == _read(lambda: amount(w, a, Ctx())), (a, st.round)
    assert checked > 1000


def test_piece_counts_follow_the_pieces_tuple(rs):
    """The index of minions on the board is rebuilt when the tuple is rebound (K6: hordes and crowds)."""
    from lastbreath.interpreter.engine.index import bodies_on_board, minion_of_uid, minions_on_board

    states = [s for s in _states(rs, "zombies", "storybook-woods", games=2, every=1) if s.minions]
    assert len({s.minions for s in states}) > 5
    for st in states:
        w = engine.work(st)
        assert minions_on_board(w) == sum(1 for m in st.minions if m.loc >= 0)
        for kind in {m.kind for m in st.minions}:
            assert minions_on_board(w, kind) == sum(1 for m in st.minions if m.loc >= 0 and m.kind == kind)
        assert bodies_on_board(w) == sum(1 for b in st.killers if b.alive and b.loc >= 0)
        for j, m in enumerate(st.minions):
            assert minion_of_uid(w, m.uid) == next(i for i, x in enumerate(st.minions) if x.uid == m.uid) == j
        assert minion_of_uid(w, max(m.uid for m in st.minions) + 1) == -1


@pytest.mark.parametrize("killer,scenario", SETUPS)
def test_the_fields_a_condition_reads_are_all_it_reads(rs, killer, scenario):
    """compiled.reads_of: a condition with known fields answers the same on any state whose fields
    of those names are the same (every other field taken from another state of another game). C13:
    the win and lose lines are not read again while their fields are unchanged."""
    from lastbreath.interpreter.engine.compiled import reads_of

    states = _states(rs, killer, scenario)
    others = _states(rs, "zombies", "storybook-woods", games=2, every=2)
    w0 = engine.work(states[0])
    names = w0.game.board.names
    conds = [x for x in n.walk(tuple(rs.killers.values()) + tuple(rs.scenarios.values()))
             if isinstance(x, n.Condition)]
    for a in _counts(("here", names[0])):
        for op in ("at-least", "is", "less-than"):
            cmp = n.Compare(None, a, op, 1)
            conds += [cmp, n.Not(None, cmp), n.AllOf(None, (cmp, n.Compare(None, 2, op, a)))]
    known = [(c, reads_of(c)) for c in conds]
    known = [(c, r) for c, r in known if r is not None]
    assert any(r for _c, r in known) and any(isinstance(c, n.AllOf) for c, _r in known)
    assert reads_of(n.Count(None, "victims", "", "here")) is None  # at a place: it reads where she is
    checked = 0
    for st, other in zip(states, itertools.cycle(others)):
        for c, reads in known:
            mixed = engine.replace(other, game=st.game, **{f: getattr(st, f) for f in reads})
            f = compile_condition(c)
            assert _read(lambda: f(engine.work(st), Ctx())) == _read(lambda: f(engine.work(mixed), Ctx())), c
            checked += 1
    assert checked > 200


def test_win_and_lose_lines_read_again_only_when_their_fields_change(rs, monkeypatch):
    """C13: games of a killer with win and lose lines are the same when every line is read after
    every step (no line skipped), event for event."""
    from lastbreath.interpreter.engine import working as engine_work

    def played():
        out = []
        for seed in range(5):
            policy = BOTS["random"](seed)
            st, ev = new_game(rs, killer="zombies", scenario="storybook-woods", seed=seed)
            seen = [list(ev)]
            while not st.result:
                st, ev = engine.apply(st, policy(st, st.choice))
                seen.append(list(ev))
            out.append((seen, st.result, st.end_reason))
        return out

    def emptied():  # every enemy gone from the board: the win line holds at the end of the next step
        st, _ = new_game(rs, killer="zombies", scenario="storybook-woods", seed=1)
        gone = {"minions": (), "killers": tuple(engine.evolve_killer(k, loc=-1) for k in st.killers)}
        st = engine.replace(st, checkpoint=engine.replace(st.checkpoint, **gone), **gone)  # the step replays from it
        st, _ = engine.apply(st, st.choice.options[-1].key)
        return st.result, st.end_reason

    skipping, won = played(), emptied()
    assert won == ("fg", "no zombie and no horde is left")
    monkeypatch.setattr(engine_work.Work, "ends_read", property(lambda w: None, lambda w, v: None))
    assert played() == skipping
    assert emptied() == won


_STILL = """
scenario still-door {{
  name "Still Door"
  {lines}
  location porch {{ name "Porch"; exit }}
  location hall {{ name "Hall"; search }}
  location attic {{ name "Attic"; search }}
  location cellar {{ name "Cellar" }}
  path porch (1 2 3) -- (1 2) hall
  path hall (3 4) -- (1 2 3) attic
  path hall (5 6) -- (4 5 6) cellar
  setup only {{ killer at cellar; fg at porch; victims at attic 1 }}
  item lamp2 {{ name "Lamp" }}
  item rope2 {{ name "Rope" }}
  item pole2 {{ name "Pole" }}
  item box2 {{ name "Box" }}
  item can2 {{ name "Can" }}
  item jar2 {{ name "Jar" }}
  item key2 {{ name "Key" }}
  item map2 {{ name "Map" }}
}}
"""


@pytest.mark.parametrize("lines", [
    'lose when 1 at least 2 "never"',  # reads no field
    'win when (count dead) at least 99 "not so soon"',  # one field
    'lose when 1 at least 2 "never"\n  win when (count dead) at least 1 "a death"',  # one field, and it holds
    'win when (count victims) at most 0 "none left"\n  lose when (count dead) at least 3 "three dead"',  # two
    'win when all { (count dead) at least 9; (count victims) at least 9; (count rescued) at least 9 } "all"',  # three
])
def test_C13_win_and_lose_lines_reading_any_number_of_fields(tmp_path, lines):
    """C13: win and lose lines reading no field, one, two or more of the state are checked after
    every step as when each is read every time (games played to the end, with a kept run and by
    apply from every state)."""
    from conftest import load_with
    from lastbreath.interpreter.engine import working as engine_work

    rs = load_with(tmp_path, _STILL.format(lines=lines))

    def games():
        out = []
        for seed in range(3):
            st, _ = new_game(rs, killer="big-bad-wolf", scenario="still-door", seed=seed)
            policy = BOTS["random"](seed)
            while not st.result:
                st, _ = engine.apply(st, policy(st, st.choice))
            lean, _ = new_game(rs, killer="big-bad-wolf", scenario="still-door", seed=seed)
            lean = engine.play_out(lean, BOTS["random"](seed), 5000)
            assert (lean.result, lean.end_reason, lean.round) == (st.result, st.end_reason, st.round)
            out.append((st.result, st.end_reason, st.round))
        return out

    kept = games()
    with pytest.MonkeyPatch.context() as mp:  # every line read after every step
        mp.setattr(engine_work.Work, "ends_read", property(lambda w: None, lambda w, v: None))
        assert games() == kept
