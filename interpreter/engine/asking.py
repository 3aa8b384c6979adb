"""Asking: the player's answer to a choice, a run paused until it comes, and play_out's answers
given inside the run.

Code inside a step that needs a decision calls ``ask``. When the step replays from a complete
answer trace, the answer is read from it; else the run stops at the choice: a ``NeedChoice``
unwinds the step (the state returned holds the checkpoint, the answers given so far and the
``Choice``), or, inside advance's greenlet, ``_pause`` suspends the run there until ``apply``
resumes it with the answer (docs/decisions/0002, 0005). Either way the state is the same, so a
paused state whose run is gone is answered by replaying its step.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, cast

from lastbreath.dsl.diagnostics import IllegalChoice

from ..state import Choice, GameState, Option, state_of
from . import steps
from .steps import NeedChoice, Replay
from .telling import emit
from .working import snapshot

if TYPE_CHECKING:
    from .working import Work

try:  # a run paused at a choice is kept suspended in a greenlet, and resumed instead of replayed
    import greenlet as greenlet_module
except ImportError:  # pragma: no cover - without it every answer replays its step (same results)
    greenlet_module = None


def ask(w: Work, kind: str, prompt: Any, options: Any) -> str:
    """The player's answer to a choice; a choice with one option is not asked (unless the game's
    ``forced`` setting is "ask"; with "log" an event says which option was taken).

    ``prompt`` and ``options`` may be callables, evaluated only when the options are needed:
    when the engine replays a step from a complete answer trace (every ask of the step, the
    one-option ones included, recorded in ``state.answers``) no menu is rebuilt.
    """
    ctl = w.ctl
    if ctl.lean:  # play_out's policy answers by index in a step with no checkpoint (see _advance)
        opts = options() if callable(options) else options
        n = len(opts)
        if n > 1 and ctl.budget > 0:  # _answer_here without the trace: nobody replays this step
            ctl.budget -= 1
            if ctl.events:
                if ctl.on_events is not None:
                    ctl.on_events(ctl.events)
                ctl.events = []
            elif ctl.on_events is not None and not ctl.quiet:
                ctl.on_events([])
            i: Any = cast(Callable[[Sequence[Option]], Any], ctl.choose)(opts)  # (set while lean; Any: checked below)
            if i.__class__ is not int or not 0 <= i < n:
                raise IllegalChoice(f"option {i!r} is not an option here; there are {n}")
            key = opts[i].key
            ctl.keys.append(key)
            ctl.steps, ctl.work = 0, steps.MAX_WORK
            return key
    elif ctl.complete and ctl.pos < len(ctl.answers):
        key = ctl.answers[ctl.pos]
        ctl.pos += 1
        if ctl.pos == len(ctl.answers):  # the answer just given (the others replay): as _pause
            ctl.steps, ctl.work = 0, steps.MAX_WORK
        return key
    else:
        opts = options() if callable(options) else options
    if not opts:
        raise AssertionError(f"choice {kind} with no options")
    if len(opts) == 1:
        forced = w.game.forced
        if forced != "ask":  # the game's setting: a forced choice is answered at once, or asked (below)
            if forced == "log":  # said in the log (such a game replays without a complete trace: see _advance)
                said = prompt() if callable(prompt) else prompt
                emit(w, "forced", f"{said}: {opts[0].label} (forced: the only option)")
            if ctl.complete and not ctl.lean:
                ctl.answers += (opts[0].key,)
                ctl.pos += 1
            return opts[0].key
    if ctl.pos < len(ctl.answers):
        key = ctl.answers[ctl.pos]
        ctl.pos += 1
        if ctl.pos == len(ctl.answers):  # the answer just given (the others replay): as _pause
            ctl.steps, ctl.work = 0, steps.MAX_WORK
        return key
    if ctl.choose is not None and ctl.budget > 0 and ctl.run:
        # play_out where nobody reads the states nor the prompts: the policy picks among the options
        return _answer_here(ctl, opts, None, None)
    choice = _new_object(Choice)  # Choice(kind, prompt, options), without its field-by-field __init__
    _set_dict(choice, "__dict__", {"kind": kind, "prompt": prompt() if callable(prompt) else prompt,
                                   "options": tuple(opts)})
    if ctl.run:
        return _pause(w, choice)
    raise NeedChoice(choice)


def _pause(w: Work, choice: Choice) -> str:
    """Inside advance's greenlet: hand the paused state to apply's caller and wait for the answer.

    The state is exactly the one the replay would build (the same checkpoint, answers and events
    seen), so a state whose run is gone (answered once already, loaded from a save, another
    thread) is answered by replaying its step, with the same result.
    """
    ctl = w.ctl
    d = snapshot(w)  # w.freeze(choice=…, answers=…, checkpoint=…, events_seen=…)
    start = ctl.start
    d["choice"], d["answers"], d["events_seen"] = choice, ctl.answers, ctl.count
    d["checkpoint"] = start if start is not None else ctl.start_state()
    if ctl.policy is not None and ctl.budget > 0:
        return _answer_here(ctl, choice.options, state_of(d), choice)
    # Neither the greenlet nor the paused state may be held by the suspended frames: a greenlet's
    # frames are invisible to the garbage collector, so such a cycle (the state keys the run in
    # RUNS) would never be freed. The state goes out through an attribute of the greenlet.
    run = greenlet_module.getcurrent()
    run.out = (state_of(d), ctl.events)
    del d
    parent = run.parent
    del run
    ctl.kinds = None  # the kinds advance was given covered the events up to here; play_out sets its own
    key = parent.switch()
    ctl.events = []
    ctl.steps, ctl.work = 0, steps.MAX_WORK  # counted since the last answer (the same when replayed: see ask)
    ctl.answers += (key,)
    ctl.pos += 1
    return key


def _answer_here(ctl: Replay, options: Sequence[Option], state: Optional[GameState], choice: Optional[Choice]) -> str:
    """play_out's answer inside the run: what ``apply(state, policy(state, choice))`` does from
    the caller, without leaving the run (the same state, events, checks and answer trace).
    ``state`` None: the policy reads only the options (its ``choose_index`` form, given the menu's
    own sequence: it must not change it) and the caller only the events (``on_events``), so
    neither the state nor the choice was made."""
    ctl.budget -= 1
    if state is None:
        assert ctl.choose is not None
        if ctl.on_events is not None and (ctl.events or not ctl.quiet):
            ctl.on_events(ctl.events)
        i: Any = ctl.choose(options)  # (Any: the policy's, checked below)
        if i.__class__ is not int or not 0 <= i < len(options):
            raise IllegalChoice(f"option {i!r} is not an option here; there are {len(options)}")
        key = options[i].key
        ctl.keys.append(key)
    else:
        assert ctl.hook is not None and ctl.policy is not None and choice is not None
        ctl.hook(state, ctl.events)
        got: Any = ctl.policy(state, choice)  # (Any: the policy's, checked as apply checks it)
        check_option(choice, got)
        key = got
    ctl.events = []
    ctl.steps, ctl.work = 0, steps.MAX_WORK
    if not ctl.lean:
        ctl.answers += (key,)
        ctl.pos += 1
    return key


def opt(w: Work, key: str, label: str) -> Option:
    """An Option, shared across states when its key and label recur (they are immutable)."""
    cache = w.game.option_cache
    got = cache.get((key, label))
    if got is None:
        got = cache[(key, label)] = Option(key, label)
    return got


def check_option(choice: Choice, key: Any) -> None:
    for o in choice.options:
        if o.key == key:
            return
    raise IllegalChoice(f"'{key}' is not an option here; options: {', '.join(choice.keys())}")


# --- paused runs ----------------------------------------------------------------------------
class PausedRuns:
    """The runs suspended at a choice, by the id of the state they paused with: (a weak reference
    to that state, the greenlet, its thread). Used once, by apply, which checks that the
    reference still names the state (an id is reused once its state is gone). Entries of states
    dropped unanswered are purged when ``purge_at`` pile up (more if that many states are alive;
    a WeakKeyDictionary, or a callback per reference, cost three times as much)."""

    def __init__(self) -> None:
        self.runs: dict[int, tuple[Any, Any, int]] = {}
        self.purge_at = 64

    def keep(self, state: GameState, run: Any) -> None:
        runs = self.runs
        if len(runs) >= self.purge_at:  # states paused and dropped unanswered: free their runs
            for k in [k for k, v in runs.items() if v[0]() is None]:
                del runs[k]
            self.purge_at = max(64, 2 * len(runs))  # many live paused states (a search tree): purge less often
        runs[id(state)] = (_weak(state), run, _thread())

    def take(self, state: GameState) -> Any:
        """The live run paused with this state in this thread (forgotten: a run resumes once), or None."""
        got = self.runs.pop(id(state), None)
        if got is not None and got[0]() is state and got[2] == _thread() and not got[1].dead:
            return got[1]
        return None

    def peek(self, state: GameState) -> Any:
        """The live run paused with this state in this thread, left in place (a run of another
        thread is that thread's: play_out must not set it to answer leanly), or None."""
        got = self.runs.get(id(state))
        return got[1] if got is not None and got[0]() is state and got[2] == _thread() and not got[1].dead else None

    def __len__(self) -> int:
        return len(self.runs)

    def __contains__(self, state: object) -> bool:
        return id(state) in self.runs


RUNS = PausedRuns()
_weak, _thread = weakref.ref, threading.get_ident


_new_object = object.__new__
_set_dict = object.__setattr__
