"""Driving a game: how a transition runs, stops at a choice and goes on.

The engine is written as ordinary straight-line code over a mutable working copy (``Work``,
working.py) of an immutable ``GameState``. The game advances in *steps* (one top-level decision of
the Action phase with everything it causes, one purchase, a part of the Killer phase, …). After
each step the work is frozen into a new state: a checkpoint. When code inside a step needs a
decision it calls ``ask`` (asking.py); if the answer is not known yet, the state returned holds
the checkpoint, the answers given so far in this step and the pending ``Choice``. ``apply``
appends the new answer and replays the step from its checkpoint; since all randomness comes from
the state's (seed, counter) (draws.py), the replay is exact. So ``apply`` is a pure function,
states are plain data (a checkpoint plus answers), and a game can be saved in the middle of a
card (docs/decisions/0002).

Replay is the meaning; a greenlet makes it cheap (docs/decisions/0005). ``advance`` runs in a
greenlet, and ``ask`` pauses it there instead of unwinding. The first ``apply`` to the paused
state resumes that run with the answer, which gives exactly what the replay would; any other
answer to it (a second one, a loaded save, another thread) replays.

The rules modules know the driver through three doors only: ``ask`` (a decision), ``emit``
(what happened, telling.py) and the draws. What the steps are is the phases module's business
(``phases.STEPS``); this module only drives them, and stands above every rules module.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, cast

from lastbreath.dsl.diagnostics import IllegalChoice, runtime_error

from ..state import Choice, Event, GameState
from . import steps
from .asking import RUNS, check_option, greenlet_module
from .ending import settle
from .ends import check_ends
from .phases import PHASE_ORDER, STEPS, phase_ended
from .steps import GameOver, NeedChoice, PhaseEnd, Replay, Rewind, reset_scope
from .working import Work, snapshot

GREENLET = greenlet_module  # None: every answer replays its step (tests switch it off to check that)


def advance(checkpoint: GameState, answers: tuple[str, ...], skip: int,
            kinds: Optional[frozenset[str]] = None, stop: Optional[tuple[str, int]] = None
            ) -> tuple[GameState, list[Event]]:
    """Replay the current step from its checkpoint with the answers, then run on to the next choice.
    ``kinds``: the kinds of event made (None: all); the others are counted alike, not made.
    ``stop`` (phase, sub): stop sooner, between two steps, once the game stands there or past it
    this round, with no choice pending (the rulings' 'stop after'; ``advance`` goes on from it)."""
    if GREENLET is None:
        return _advance(checkpoint, answers, skip, False, kinds, stop)
    run = GREENLET.greenlet(_advance)
    return _settle(run, run.switch(checkpoint, answers, skip, True, kinds, stop))


def _settle(run: Any, out: Any) -> tuple[GameState, list[Event]]:
    """What a switch into ``run`` gave back: the game's end, or a pause (kept for apply)."""
    if run.dead:
        return out
    out, run.out = run.out, None
    RUNS.keep(out[0], run)
    return out


def _advance(checkpoint: GameState, answers: tuple[str, ...], skip: int, run: bool,
             kinds: Optional[frozenset[str]] = None, stop: Optional[tuple[str, int]] = None
             ) -> tuple[GameState, list[Event]]:
    # a game that logs its forced choices rebuilds every menu on a replay, so that the log is the same
    ctl = Replay(answers, skip, complete=checkpoint.game.forced != "log", start=checkpoint, run=run)
    ctl.kinds = kinds
    if run:
        GREENLET.getcurrent().ctl = ctl  # for play_out (the run holds ctl; ctl does not hold the run)
    w = Work(checkpoint, ctl)
    scope = w.scope
    ends = w.game.has_ends
    round_at = checkpoint.round
    while ctl.steps < steps.MAX_STEPS:  # steps since the last answer (_pause resets the count)
        ctl.steps += 1
        if w.result:
            return w.release(choice=None, answers=(), checkpoint=None, events_seen=0), ctl.events
        try:
            STEPS[w.phase](w)
            if scope.defeat:  # C13.2: a defeat during the step, not yet settled
                settle(w)
            if ends:
                check_ends(w)
        except NeedChoice as nc:
            if ctl.pos != len(ctl.answers):
                raise AssertionError("an answer was not used by the step it was given to") from None
            st = w.release(choice=nc.args[0], answers=ctl.answers, checkpoint=ctl.start_state(),
                           events_seen=ctl.count)
            return st, ctl.events
        except PhaseEnd:
            try:
                if scope.defeat:  # a defeat earlier in the resolution that a last breath cut short
                    settle(w)
                phase_ended(w)
            except GameOver:
                pass
        except GameOver:
            pass
        else:
            if scope.depth:  # a resolution cut short inside the step (a phase ended at once, caught there)
                reset_scope(scope)
            if ctl.lean and ctl.budget > steps.LEAN_RESERVE:
                continue  # another step without a checkpoint, its answers or its events counted (see ask)
            if stop is not None and _stopped(w, stop, round_at):
                return w.release(choice=None, answers=(), checkpoint=None, events_seen=0), ctl.events
            _next_step(w, ctl)
            continue
        reset_scope(scope)  # the step was cut short (its scope is left as it was): a fresh scope
        _next_step(w, ctl)
    span = getattr(ctl.last[0], "span", None) if ctl.last else None  # (not ``last``: a compiled local keeps one type)
    raise runtime_error("E311", "the game did not reach a decision within the step limit",
                        f"{steps.MAX_STEPS} steps ran without a choice: content that loops through phases without end?"
                        + (" The line named is the last one resolved" if span is not None else ""), span)


def _stopped(w: Work, stop: tuple[str, int], round_at: int) -> bool:
    """Whether the game stands at ``stop`` (phase, sub) or past it in the round it started in."""
    if w.round != round_at or w.phase not in PHASE_ORDER or stop[0] not in PHASE_ORDER:
        return w.round != round_at
    here, there = PHASE_ORDER.index(w.phase), PHASE_ORDER.index(stop[0])
    return here > there or (here == there and w.sub >= stop[1])


def _next_step(w: Work, ctl: Replay) -> None:
    """The next step starts: its checkpoint (the fields, copied), no answers yet, no events counted;
    while play_out answers a lean policy with answers to spare, no checkpoint (nobody would read it)
    and the step is lean (see ask)."""
    ctl.start, ctl.answers = None, ()
    ctl.lean = ctl.choose is not None and ctl.budget > steps.LEAN_RESERVE
    ctl.said = ctl.kinds if ctl.lean else None
    ctl.start_fields = None if ctl.lean else snapshot(w)
    ctl.pos = ctl.count = ctl.skip = 0


def apply(state: GameState, key: Any) -> tuple[GameState, list[Event]]:  # (Any: a bad key is E301)
    """Answer the pending choice; returns the new state and what happened. The old state is untouched.

    Raises ``IllegalChoice`` (E301) for a key that is not an option of the pending choice (of any
    type), or when the game is over or nothing is pending; otherwise only ``RulesError`` (E310,
    E311) for content that sets itself off without end or never reaches a decision."""
    if state.result:
        raise IllegalChoice("the game is over")
    if state.choice is None or state.checkpoint is None:
        raise IllegalChoice("there is no pending choice")
    check_option(state.choice, key)
    run = RUNS.take(state)
    if run is not None:
        run.parent = GREENLET.getcurrent()
        return _settle(run, run.switch(key))
    return advance(state.checkpoint, state.answers + (key,), state.events_seen)


def play_out(state: GameState, policy: Callable[[GameState, Choice], Any], limit: int,
             on_transition: Optional[Callable[[GameState, list[Event]], None]] = None,
             kinds: Optional[frozenset[str]] = None,
             on_events: Optional[Callable[[list[Event]], None]] = None, *, quiet: bool = False,
             on_answers: Optional[Callable[[int], None]] = None,
             on_round: Optional[Callable[[int, int], None]] = None) -> GameState:
    """Answer with ``policy`` until the game is over or ``limit`` answers were given; returns the
    last state. The same states, events and results as the loop
    ``state, events = apply(state, policy(state, state.choice)); on_transition(state, events)``,
    but a run kept for ``state`` answers inside itself: no switch, no lookup per answer.

    ``kinds``: the kinds of event ``on_transition`` reads. Events of other kinds are then not made
    at all while the run answers (the engine's most frequent work after the rules themselves); the
    ones it is given are exactly as ``apply`` gives them (a transition replayed from its checkpoint
    may give the others too).

    ``on_events``: called with the events of each transition (after ``on_transition``, if both
    are given). Without ``on_transition``, a policy that reads only the options (one with a
    ``choose_index`` attribute: a function of the options alone giving the index of the one the
    policy would answer) is answered inside the run without the states between its answers, or
    the choices' prompts, being made at all: nobody would read them. The answers, events and the
    last state are the same.

    ``quiet``: ``on_events`` is not called for a transition that made no events (of ``kinds``).
    ``on_answers``: called once, when play_out returns, with the number of answers it gave.
    ``on_round``: called as each round's Action phase starts, with the round and the bloodlust
    level then (1-based), once each, whatever ``kinds`` says (the simulator's record reads only
    that, and makes no event at all). A transition that ``apply`` replays from its checkpoint
    (no run was kept for the state: ``GREENLET`` off) does not call it: its events say it."""
    given = 0
    choose = getattr(policy, "choose_index", None) if on_transition is None else None
    each = on_events  # what is told the events of each transition (quiet: only of those that made some)
    if quiet and on_events is not None:
        loud = on_events

        def told_some(events: list[Event]) -> None:
            if events:
                loud(events)
        each = told_some
    hook = _hook(on_transition, each)  # what the run calls after each answer it gives itself
    while given < limit and not state.result:
        key: Any = policy(state, cast(Choice, state.choice))  # (not over: a choice; Any: apply checks it)
        run = RUNS.peek(state)
        ctl = getattr(run, "ctl", None) if run is not None else None
        budget = limit - given - 1  # answers the run may give itself; those it gave: what it spent of it
        if ctl is not None:
            ctl.policy, ctl.budget = policy, budget
            ctl.hook, ctl.kinds, ctl.choose = hook, kinds, choose
            ctl.on_events, ctl.quiet = on_events, quiet
            ctl.on_round = on_round
        before = state
        try:
            state, events = apply(state, key)
        except Rewind:  # a step without its checkpoint reached the limit: the same answers, with states
            assert ctl is not None
            state, events = _rewound(before, key, ctl.keys, kinds)
        finally:
            if ctl is not None:
                given += budget - ctl.budget
                ctl.policy = ctl.hook = ctl.kinds = ctl.choose = ctl.on_events = ctl.on_round = None
                ctl.quiet = False
                ctl.keys = []
                ctl.budget, ctl.lean, ctl.said = 0, False, None
        given += 1
        if on_transition is not None:
            on_transition(state, events)
        if each is not None:
            each(events)
    if on_answers is not None:
        on_answers(given)
    return state


def _rewound(state: GameState, key: str, keys: list[str], kinds: Optional[frozenset[str]]
             ) -> tuple[GameState, list[Event]]:
    """apply(state, key), then the answers ``keys`` given inside the run: the state the run would
    have paused with, and the events of its last transition (the others were told already)."""
    state, events = apply(state, key)  # state's run is gone (taken by the first apply): its step replays
    for k in keys:
        state, events = apply(state, k)
    return state, events if kinds is None else [e for e in events if e.kind in kinds]


def _hook(on_transition: Optional[Callable[[GameState, list[Event]], None]],
          on_events: Optional[Callable[[list[Event]], None]]) -> Callable[[GameState, list[Event]], None]:
    """play_out's callbacks as one, called with each transition's state and events."""
    if on_transition is None:
        if on_events is None:
            return _no_hook
        tell = on_events

        def events_only(state: GameState, events: list[Event]) -> None:
            tell(events)
        return events_only
    if on_events is None:
        return on_transition
    step, told = on_transition, on_events

    def both(state: GameState, events: list[Event]) -> None:
        step(state, events)
        told(events)
    return both


def _no_hook(state: GameState, events: list[Event]) -> None:
    pass
