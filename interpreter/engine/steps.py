"""What a step keeps while it runs: its replay bookkeeping (``Replay``), its scope (``Scope``), and
the exceptions that unwind it.

A transition replays the current step from its checkpoint with the answers given so far, and runs
on to the next choice (engine/driver.py; docs/decisions/0002 and 0005). ``Replay`` is what replays:
the step's answers and how far the run has used them, the events already seen, the checkpoint;
``Scope`` is what scopes: the content node being resolved, how deeply effects nest, ``it``. A step
is unwound by ``NeedChoice`` (an answer is needed), ``GameOver`` (C13), ``PhaseEnd`` (a last breath
ends the phase at once: C14.2, C17.1) or ``Rewind`` (play_out reached its limit in a step it kept
no checkpoint of).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from lastbreath.dsl.limits import MAX_WORK as _MAX_WORK

from ..state import Choice, Event, GameState, Option, state_of

# the work content may ask between two decisions (dsl/limits.py; docs/decisions/0022): blocks run and
# their effects, locations a selector looks at, pieces a set goes over, triggers looked at; past it, E313
MAX_WORK = _MAX_WORK
MAX_STEPS = 5000  # steps without a decision: content that never asks (a loop of phases) ends with E311
# play_out with a policy choosing by index keeps no checkpoint of a step while it may give this
# many more answers inside the run: a step asking more than that before the limit is rewound
LEAN_RESERVE = 8


class NeedChoice(Exception):
    """Unwinds a step that needs an answer. Its one argument is the Choice: without an ``__init__``
    of its own it is raised without a Python call (once a transition)."""

    @property
    def choice(self) -> Choice:
        return self.args[0]


class GameOver(Exception):
    """Unwinds the step in which the game ended (C13)."""


class Rewind(Exception):
    """A run answering a lean policy reached play_out's limit inside a step whose checkpoint it
    did not keep: play_out plays the answers given again with apply, to the same paused state."""


class PhaseEnd(Exception):
    """Unwinds the rest of a phase that a last breath ended at once (C14.2, C17.1)."""


class Replay:
    """What replays: the answers of the step and where the run stands in them, the events seen,
    the step's starting point, and (in a greenlet) how the run is answered."""

    __slots__ = (
        "answers",
        "budget",
        "choose",
        "complete",
        "count",
        "events",
        "hook",
        "keys",
        "kinds",
        "last",
        "lean",
        "on_events",
        "on_round",
        "policy",
        "pos",
        "quiet",
        "run",
        "said",
        "skip",
        "sources",
        "start",
        "start_fields",
        "steps",
        "work",
    )

    def __init__(self, answers: tuple[str, ...], skip: int, complete: bool = True,
                 start: Optional[GameState] = None, run: bool = False):
        self.answers = answers  # the answers of this step, in the order they are asked
        self.pos = 0  # how many of them were used
        self.complete = complete  # the answers record every ask of the step, one-option ones too (see ask)
        self.count = 0  # events emitted in this step so far
        self.skip = skip  # events of this step already seen by the caller (not emitted again)
        self.events: list[Event] = []
        self.sources: dict[int, tuple[Any, str]] = start.game.span_text if start is not None else {}
        self.start = start  # the checkpoint the step resumes from, as a state …
        self.start_fields: Optional[dict[str, Any]] = None  # … or as the fields of one (made a state on need)
        self.steps = 0  # steps run since the last answer (bounded: MAX_STEPS)
        # the work content may still ask before the next answer (counted down from MAX_WORK by
        # resolve.run, places.candidates, pieces.pieces_of, triggers.fire and would; refilled at each
        # answer, see asking.ask; below 0: E313, working.out_of_work)
        self.work = MAX_WORK
        self.run = run  # running in advance()'s greenlet: ask() pauses it (see _pause)
        self.policy: Optional[Callable[[GameState, Choice], Any]] = None  # answering in the run (play_out; checked)
        self.hook: Optional[Callable[[GameState, list[Event]], None]] = None
        self.choose: Optional[Callable[[Sequence[Option]], Any]] = None  # play_out, no states: choose_index
        self.on_events: Optional[Callable[[list[Event]], None]] = None  # … and its caller reading the events only
        self.kinds: Optional[frozenset[str]] = None  # play_out: the kinds of event made (None: all)
        self.quiet = False  # … and on_events is not called for an answer that made none
        self.on_round: Optional[Callable[[int, int], None]] = None  # play_out: told each round's start
        self.budget = 0  # answers play_out may still give inside the run
        self.last: Sequence[Any] = ()  # the content block resolved last (E311 names its line)
        self.keys: list[str] = []  # … and those answers, for a policy choosing by index (see Rewind)
        # a step of such a play_out kept without its checkpoint (answers to spare): no trace of its
        # answers or events is kept either, nobody could replay it (a rewind replays from the last state)
        self.lean = False
        # in a lean step whose kinds are given, those kinds (``told`` without the call, at the hot
        # sites: ``(K in said) if said is not None else told(w, K)``); else None
        self.said: Optional[frozenset[str]] = None

    def start_state(self) -> GameState:
        """The checkpoint the step resumes from, as a state (made from its fields once)."""
        if self.start is None:
            if self.start_fields is None:  # not kept: play_out answering a lean policy
                raise Rewind()
            self.start = state_of(self.start_fields)
        return self.start


_NOT_ASKING: frozenset[str] = frozenset()


class Scope:
    """What scopes: the content node being resolved (events name its line), how deeply effects
    are nested, and the location ``it`` of the innermost ``for each``."""

    __slots__ = ("asking", "body", "copy", "defeat", "depth", "fell", "it", "node", "piece", "source")

    def __init__(self) -> None:
        self.node: Any = None
        self.depth = 0
        self.it = -1
        self.defeat = False  # a side was defeated in the resolution under way (C13.2: settle at its end)
        self.fell: Any = None  # the content node resolving when it was: the end event names its line
        self.asking: frozenset[str] = frozenset()  # the rules' questions whose 'while' conditions are being read
        self.body = -1  # inside 'all killers { … }': the body 'the killer' means there
        self.piece: Any = None  # inside 'for each victim …': the piece 'it' is (engine/pieces.py)
        # the source (a card, item, action, event, terror card …) whose effects are resolving, kept only
        # where content reads the cause of what they make happen ('the cause is card ID': Game.causes_read)
        self.source = ""
        # inside an item's own lines (its use, 'when gained', …): the card they are about, as its token
        # holder ('item:ID#N', engine/copies.py), for an item whose cards carry tokens apart; else ""
        self.copy = ""


# a step starts with no content node (an exception may have left a resolution midway): _advance
# sets node, depth, it, defeat, asking, body, piece, source, copy, fell to these after a step cut short
_SCOPE_START = (None, 0, -1, False, _NOT_ASKING, -1, None, "", "", None)


def reset_scope(scope: Scope) -> None:
    """The scope as a step starts: no content node, depth 0, no 'it', no defeat, no questions, …"""
    (scope.node, scope.depth, scope.it, scope.defeat, scope.asking, scope.body, scope.piece,
     scope.source, scope.copy, scope.fell) = _SCOPE_START

