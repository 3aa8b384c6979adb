"""Paused runs kept in greenlets (engine.advance, asking._pause, apply): an answer resumes the suspended
step instead of replaying it from its checkpoint, and must give exactly what the replay gives."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest
from lastbreath.interpreter import engine
from lastbreath.interpreter.engine import asking, driver, steps, telling
from lastbreath.interpreter.api import RulesError, new_game, random_policy
from lastbreath.interpreter.engine import apply

FILM = {"killer": "big-bad-wolf", "scenario": "storybook-woods"}


def _fields(s):
    return {k: v for k, v in s.__dict__.items() if k not in ("game", "checkpoint")}


def _log(rs, seed):
    state, events = new_game(rs, seed=seed, **FILM)
    policy = random_policy(seed)
    log = list(events)
    while not state.over:
        state, events = apply(state, policy(state, state.choice))
        log.extend(events)
    return log, _fields(state)


@pytest.mark.skipif(driver.GREENLET is None, reason="greenlet is not installed")
def test_resumed_runs_equal_replays_event_for_event(rs):
    for seed in range(12):
        state, _ = new_game(rs, seed=seed, **FILM)
        policy = random_policy(seed)
        while not state.over:
            key = policy(state, state.choice)
            replayed = engine.advance(state.checkpoint, state.answers + (key,), state.events_seen)
            assert state in engine.RUNS
            resumed = apply(state, key)
            assert state not in engine.RUNS  # a run is resumed once
            assert resumed[1] == replayed[1]  # kinds, texts, rules, sources, data
            assert _fields(resumed[0]) == _fields(replayed[0])
            assert _fields(resumed[0].checkpoint or resumed[0]) == _fields(replayed[0].checkpoint or replayed[0])
            state = resumed[0]


def test_without_greenlet_every_answer_replays_with_the_same_game(rs, monkeypatch):
    with_runs = [_log(rs, seed) for seed in range(5)]
    monkeypatch.setattr(driver, "GREENLET", None)
    assert [_log(rs, seed) for seed in range(5)] == with_runs


@pytest.mark.skipif(driver.GREENLET is None, reason="greenlet is not installed")
def test_an_abandoned_paused_state_frees_its_run(rs):
    state, _ = new_game(rs, seed=3, **FILM)
    state, _ = apply(state, random_policy(3)(state, state.choice))
    ref = weakref.ref(state)
    run = weakref.ref(engine.RUNS.peek(state))
    del state
    gc.collect()
    assert ref() is None
    for seed in range(engine.RUNS.purge_at + 1):  # more paused states dropped: a purge frees the runs
        new_game(rs, seed=seed, **FILM)
    assert run() is None
    assert len(engine.RUNS) <= engine.RUNS.purge_at


@pytest.mark.skipif(driver.GREENLET is None, reason="greenlet is not installed")
def test_a_state_answered_in_another_thread_is_replayed_there(rs):
    state, _ = new_game(rs, seed=4, **FILM)
    key = state.choice.options[-1].key
    here = engine.advance(state.checkpoint, state.answers + (key,), state.events_seen)
    there = []
    t = threading.Thread(target=lambda: there.append(apply(state, key)))
    t.start()
    t.join()
    assert there[0][1] == here[1] and _fields(there[0][0]) == _fields(here[0])


def _looped(state, policy, limit):
    seen = []
    for _ in range(limit):
        if state.over:
            break
        state, events = apply(state, policy(state, state.choice))
        seen.append((_fields(state), list(events)))
    return seen


@pytest.mark.parametrize("kinds", [frozenset({"phase", "bloodlust"}), frozenset()])
@pytest.mark.parametrize("film", [FILM, {"killer": "zombies", "scenario": "wolfe-asylum"}])
def test_new_game_makes_only_the_kinds_of_event_asked_for(rs, kinds, film):
    """C18.3–C18.5: ``new_game(kinds=…)`` sets up the same state (its events counted alike) and
    gives only its events of those kinds; the run it leaves paused answers with every event."""
    for seed in range(3):
        full, events = new_game(rs, seed=seed, **film)
        some, picked = new_game(rs, seed=seed, kinds=kinds, **film)
        assert _fields(some) == _fields(full) and some.events_seen == full.events_seen
        assert picked == [e for e in events if e.kind in kinds] and len(picked) < len(events)
        key = full.choice.options[-1].key
        assert apply(some, key)[1] == apply(full, key)[1]  # both runs resumed: every event of the answer
    with pytest.raises(RulesError, match="kinds of event"):
        new_game(rs, seed=0, kinds={"phase"}, **FILM)


@pytest.mark.parametrize("max_steps", [6, 8, 10, 12])
def test_a_lean_run_counts_each_part_of_a_phase_as_a_step(rs, monkeypatch, max_steps):
    """C8 (each part of the Killer phase is a step), E311: in a lean run the parts of a phase follow
    in one call, each still counted against the step limit: the limit stops it as it stops the
    apply loop (the same answers given first; the loop is the reference)."""
    monkeypatch.setattr(steps, "MAX_STEPS", max_steps)
    for seed in range(3):
        state, _ = new_game(rs, seed=seed, **FILM)
        looped, policy, given, failed = state, random_policy(seed), 0, False
        try:
            while not looped.over and given < 300:
                looped, _ = apply(looped, policy(looped, looped.choice))
                given += 1
        except RulesError as err:
            failed = err.code == "E311"
        state, _ = new_game(rs, seed=seed, **FILM)
        if failed:
            with pytest.raises(RulesError, match="did not reach a decision"):
                engine.play_out(state, random_policy(seed), given + 50, None, frozenset())  # lean where it fails
        else:
            assert _fields(engine.play_out(state, random_policy(seed), given, None, frozenset())) == _fields(looped)


@pytest.mark.parametrize("limit", [20_000, 37])
def test_play_out_equals_apply_in_a_loop(rs, limit):
    for seed in range(8):
        state, _ = new_game(rs, seed=seed, **FILM)
        expected = _looped(state, random_policy(seed), limit)
        state, _ = new_game(rs, seed=seed, **FILM)
        seen = []
        last = engine.play_out(state, random_policy(seed), limit,
                               lambda st, ev, seen=seen: seen.append((_fields(st), list(ev))))
        assert seen == expected
        assert _fields(last) == seen[-1][0]


@pytest.mark.parametrize("kinds", [frozenset({"phase", "bloodlust"}), frozenset({"attack"}), frozenset()])
def test_play_out_makes_only_the_kinds_of_event_asked_for(rs, kinds):
    """With ``kinds`` the states are the same and each transition gives exactly its events of
    those kinds, in order; after play_out the run it leaves paused gives every event again."""
    later = []
    for seed in range(4):
        state, _ = new_game(rs, seed=seed, **FILM)
        expected = _looped(state, random_policy(seed), 40)
        state, _ = new_game(rs, seed=seed, **FILM)
        seen = []
        last = engine.play_out(state, random_policy(seed), 40,
                               lambda st, ev, seen=seen: seen.append((_fields(st), list(ev))), kinds)
        assert seen == [(f, [e for e in ev if e.kind in kinds]) for f, ev in expected]
        if last.result:
            continue
        # the run left paused at the last state answers a later apply with all its events
        assert engine.RUNS.peek(last) is not None
        key = last.choice.options[0].key
        replayed = apply(engine.replace(last), key)  # a copy of the state has no run: its step replays
        resumed = apply(last, key)
        assert resumed[1] == replayed[1]
        later += resumed[1]
    assert later and any(e.kind not in kinds for e in later)


@pytest.mark.parametrize("limit", [20_000, 37])
def test_play_out_without_states_gives_the_same_events_and_last_state(rs, limit):
    """A policy that reads only the options (``choose_index``) and a caller reading only events:
    the run answers without making the states between, with the same events and last state."""
    assert getattr(random_policy(0), "choose_index", None) is not None
    for seed in range(6):
        state, _ = new_game(rs, seed=seed, **FILM)
        expected = _looped(state, random_policy(seed), limit)
        state, _ = new_game(rs, seed=seed, **FILM)
        made = []
        states_made = engine.working.state_of
        calls = []

        def counting(d, calls=calls):
            calls.append(1)
            return states_made(d)

        with pytest.MonkeyPatch.context() as mp:  # every module of the engine that makes a state from fields
            for module in (engine.asking, engine.steps, engine.working):
                mp.setattr(module, "state_of", counting)
            last = engine.play_out(state, random_policy(seed), limit, None, None,
                                   lambda ev, made=made: made.append(list(ev)))
        assert made == [ev for _f, ev in expected]
        assert _fields(last) == expected[-1][0]
        assert len(calls) < len(expected) / 4  # the states between answers were not made
        if not last.result:  # left paused: a later answer goes on as after apply in a loop
            key = last.choice.options[0].key
            assert apply(last, key)[1] == apply(engine.replace(last), key)[1]


def test_a_choose_index_policy_answers_as_its_full_form_and_is_checked(rs):
    """``choose_index`` reads only the options and gives the index of the answer: the bundled bots'
    forms answer as the bots do, and an index that names no option is an illegal choice (E301)."""
    from lastbreath.interpreter.bots import first_policy
    state, _ = new_game(rs, seed=5, **FILM)
    opts = state.choice.options
    assert len(opts) > 1
    assert opts[first_policy.choose_index(opts)].key == first_policy(state, state.choice)
    a, b = random_policy(9), random_policy(9)
    assert [opts[a.choose_index(opts)].key for _ in range(20)] == [b(state, state.choice) for _ in range(20)]

    def bad(st, choice):
        return choice.options[0].key
    for wrong in (len(opts) + 5, -1, "0"):
        bad.choose_index = lambda options, wrong=wrong: wrong
        state, _ = new_game(rs, seed=5, **FILM)
        with pytest.raises(asking.IllegalChoice, match="not an option"):
            engine.play_out(state, bad, 50, None, None, lambda ev: None)


def test_play_out_with_a_policy_reading_states_gives_them_all(rs):
    """A policy without ``choose_index`` reads every state: on_events alone changes nothing else."""
    inner = random_policy(3)
    looked = []

    def policy(st, choice):
        looked.append(_fields(st))
        return inner(st, choice)

    state, _ = new_game(rs, seed=3, **FILM)
    expected = _looped(state, random_policy(3), 20_000)
    made = []
    engine.play_out(state, policy, 20_000, None, None, made.append)
    assert [list(ev) for ev in made] == [ev for _f, ev in expected]
    assert looked[1:] == [f for f, _ev in expected][:-1]


def test_play_out_from_a_state_without_its_run_replays(rs):
    state, _ = new_game(rs, seed=2, **FILM)
    apply(state, state.choice.options[0].key)  # the run is used: play_out must replay the first answer
    expected = _looped(state, random_policy(2), 20_000)
    seen = []
    engine.play_out(state, random_policy(2), 20_000, lambda st, ev: seen.append((_fields(st), list(ev))))
    assert seen == expected


def test_play_out_refuses_an_illegal_answer_from_the_policy(rs):
    from lastbreath.dsl import IllegalChoice

    state, _ = new_game(rs, seed=6, **FILM)
    calls = []

    def policy(st, choice):
        calls.append(choice.kind)
        return choice.options[0].key if len(calls) < 5 else "no-such-option"

    with pytest.raises(IllegalChoice):
        engine.play_out(state, policy, 20_000, lambda st, ev: None)
    assert len(calls) == 5


def test_told_agrees_with_emit_and_counts_alike(rs):
    """``told(w, kind)`` is true exactly when ``emit`` would make the event; when false it counts
    the event as emit does (a replay skips the events seen by their count)."""
    state, _ = new_game(rs, seed=2, **FILM)
    for kinds in (None, frozenset({"target"})):
        for skip in (0, 1, 3):
            told_w, emit_w = engine.work(state), engine.work(state)
            for w in (told_w, emit_w):
                w.ctl.kinds, w.ctl.skip = kinds, skip
            for i, kind in enumerate(["target", "enemy-move", "target", "target", "phase", "target"]):
                before = len(emit_w.ctl.events)
                telling.emit(emit_w, kind, f"e{i}")
                made = len(emit_w.ctl.events) > before
                assert telling.told(told_w, kind) is made
                if made:
                    telling.emit(told_w, kind, f"e{i}")
                assert told_w.ctl.count == emit_w.ctl.count
            assert told_w.ctl.events == emit_w.ctl.events
            expected = 6 - skip if kinds is None else {0: 4, 1: 3, 3: 2}[skip]
            assert len(told_w.ctl.events) == expected


@pytest.mark.parametrize("reserve", [0, 2])
def test_a_lean_run_that_reaches_its_limit_without_a_checkpoint_is_rewound(rs, monkeypatch, reserve):
    """play_out answering a lean policy keeps no checkpoint of a step while it has answers to spare
    (LEAN_RESERVE); a step that reaches the limit anyway is played again from the answers given:
    the same last state (checkpoint and all) and the same events as apply in a loop."""
    monkeypatch.setattr(steps, "LEAN_RESERVE", reserve)
    rewinds = []
    real = driver._rewound
    monkeypatch.setattr(driver, "_rewound", lambda *a: rewinds.append(1) or real(*a))
    for seed, limit in [(0, 9), (1, 23), (2, 40), (3, 61), (4, 88), (5, 130), (6, 14), (7, 57)]:
        state, _ = new_game(rs, seed=seed, **FILM)
        expected = _looped(state, random_policy(seed), limit)
        state, _ = new_game(rs, seed=seed, **FILM)
        made = []
        kinds = frozenset({"phase", "bloodlust"}) if reserve == 0 else None
        last = engine.play_out(state, random_policy(seed), limit, None, kinds,
                               lambda ev, made=made: made.append(list(ev)))
        assert made == [[e for e in ev if kinds is None or e.kind in kinds] for _f, ev in expected]
        assert _fields(last) == expected[-1][0]
        if not last.result:
            st, _ = new_game(rs, seed=seed, **FILM)
            policy = random_policy(seed)
            for _ in range(limit):
                st, _ev = apply(st, policy(st, st.choice))
            assert _fields(last.checkpoint) == _fields(st.checkpoint)
            key = last.choice.options[-1].key
            assert apply(last, key)[1] == apply(engine.replace(last), key)[1]
    assert rewinds or reserve  # with none in reserve, the limit fell inside a step at least once


def test_play_out_in_another_thread_leaves_the_paused_run_alone(rs):
    """A run paused in one thread is that thread's: play_out elsewhere replays the step instead of
    setting the run to answer (RUNS.peek finds no run of another thread), with the same results."""
    state, _ = new_game(rs, seed=4, **FILM)
    assert engine.RUNS.peek(state) is not None
    seen = []

    def elsewhere():
        seen.append(engine.RUNS.peek(state))
        made = []
        last = engine.play_out(state, random_policy(4), 60, None, None, made.append)
        seen.append((_fields(last), [list(ev) for ev in made]))

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    made = []
    last = engine.play_out(state, random_policy(4), 60, None, None, made.append)
    assert seen[0] is None and seen[1] == (_fields(last), [list(ev) for ev in made])


def test_a_lean_policy_that_raises_leaves_the_state_it_started_from_playable(rs):
    """An error inside the run (here the policy's) reaches play_out's caller; the state play_out
    was given still plays on as a fresh one does."""
    state, _ = new_game(rs, seed=6, **FILM)
    inner = random_policy(1)
    calls = []

    def failing(options):
        calls.append(1)
        if len(calls) == 25:
            raise RuntimeError("the policy broke")
        return inner.choose_index(options)

    def policy(st, choice):
        return choice.options[failing(choice.options)].key
    policy.choose_index = failing
    with pytest.raises(RuntimeError, match="the policy broke"):
        engine.play_out(state, policy, 500, None, None, lambda ev: None)
    fresh, _ = new_game(rs, seed=6, **FILM)
    again = engine.play_out(state, random_policy(6), 300, None, None, lambda ev: None)
    expected = engine.play_out(fresh, random_policy(6), 300, None, None, lambda ev: None)
    assert _fields(again) == _fields(expected)


_PAIRS = [(k, s) for k in ("big-bad-wolf", "ratchet-lady", "zombies", "intruders", "evomorph", "organism")
          for s in ("storybook-woods", "wolfe-asylum", "wingard-cottage", "uss-konrad", "station-2891")]


# the simulator's kinds, and the kinds the hot sites tell without calling told (Replay.said)
_LEAN_KINDS = [frozenset({"phase", "bloodlust", "death"}),
               frozenset({"time", "target", "enemy-move", "buy", "discard", "play", "outcome", "fear", "health", "roll",
                          "killer-action", "market", "terror", "attack", "damage", "minion", "active", "move"})]


@pytest.mark.parametrize("kinds", _LEAN_KINDS)
@pytest.mark.parametrize("killer,scenario", _PAIRS)
def test_lean_steps_give_every_pair_the_game_of_apply_in_a_loop(rs, killer, scenario, kinds):
    """Lean steps (play_out answering by index with answers to spare: no checkpoint, no answer
    trace, no event count) play every bundled pair as apply in a loop does: the same events of
    the kinds asked for and the same last state, to the end or to a limit inside the game."""
    setup = {"killer": killer, "scenario": scenario}
    for seed, limit in [(0, 5000), (1, 5000), (2, 33)]:
        state, _ = new_game(rs, seed=seed, **setup)
        expected = _looped(state, random_policy(seed), limit)
        state, _ = new_game(rs, seed=seed, **setup)
        made = []
        last = engine.play_out(state, random_policy(seed), limit, None, kinds,
                               lambda ev, made=made: made.append(list(ev)))
        assert made == [[e for e in ev if e.kind in kinds] for _f, ev in expected]
        assert _fields(last) == expected[-1][0]


def test_every_step_starts_with_a_fresh_scope(rs, monkeypatch):
    """The driver resets the scope only after a step cut short (an exception, or a resolution a
    last breath ended and the step caught): every step, of every bundled pair, still starts with
    no content node, depth 0, no 'it', no defeat, no questions asked, no body and no piece."""
    from lastbreath.interpreter.engine import phases
    starts = []

    def checked(step):
        def run(w):
            s = w.scope
            starts.append((s.node, s.depth, s.it, s.defeat, s.asking, s.body, s.piece, s.source, s.copy, s.fell))
            return step(w)
        return run

    monkeypatch.setattr(driver, "STEPS", {k: checked(f) for k, f in phases.STEPS.items()})
    for killer, scenario in _PAIRS:
        for seed in range(4):
            state, _ = new_game(rs, seed=seed, killer=killer, scenario=scenario)
            engine.play_out(state, random_policy(seed), 5000, None, frozenset(), lambda ev: None)
    assert len(starts) > 1000 and set(starts) == {steps._SCOPE_START}


@pytest.mark.parametrize("lean", [True, False])
def test_play_out_quiet_skips_only_transitions_without_events_and_counts_answers(rs, lean):
    """``quiet``: on_events is not called for an answer that made no events (of the kinds asked
    for); the others come as without it, in order. ``on_answers`` gets the number of answers given
    (the calls on_events has without ``quiet``), for a policy answering by index or with states."""
    kinds = frozenset({"phase", "bloodlust"})
    for seed, limit in [(0, 5000), (3, 41)]:
        every, quiet, counts = [], [], []
        policy = random_policy(seed)
        if not lean:  # the same answers, without choose_index: the run makes every state
            policy = (lambda p: lambda st, ch: p(st, ch))(policy)
        state, _ = new_game(rs, seed=seed, **FILM)
        engine.play_out(state, random_policy(seed), limit, None, kinds, lambda ev: every.append(list(ev)))
        state, _ = new_game(rs, seed=seed, **FILM)
        engine.play_out(state, policy, limit, None, kinds, lambda ev: quiet.append(list(ev)), quiet=True,
                        on_answers=counts.append)
        assert quiet == [ev for ev in every if ev] and len(quiet) < len(every)
        assert counts == [len(every)]
