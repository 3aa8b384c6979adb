"""The working copy: a mutable ``Work`` over an immutable ``GameState``, which the rules modules read
and rebind as ordinary straight-line code; frozen back into a state at every checkpoint.

The state's fields are declared once, in ``GameState`` (interpreter/state.py). What the working
copy needs of them is derived from that list by ``python -m lastbreath.interpreter.fieldgen``
and kept in generated regions (here, the annotations of ``Work``; in fields.py, the copies in
and out and the setters): tests/test_fields.py fails when they differ from GameState's fields,
and ``lastbreath native build`` refuses to compile them stale. Adding a field to the state is one
edit to state.py, then that command.

The plain Work keeps the fields in its ``__dict__``, which a ``dict.copy`` turns into a state's.
Compiled (interpreter/native.py; docs/decisions/0015) a Work has no ``__dict__``: each field has a
slot of its own, read and written without a lookup, copied in and out one by one
(``fields.copy_in``, ``fields.copy_out``).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, Optional

from lastbreath.dsl.diagnostics import runtime_error

from ..state import GameState, state_of
from .fields import copy_in, copy_out
from .steps import Replay, Scope

if TYPE_CHECKING:
    from ..state import Choice, HeldItem, KillerState, MarkedVictim, MinionState
    from .game import Game


def _probe() -> None:
    """A function of this module: a plain one unless the module runs compiled (COMPILED)."""


# whether this module runs compiled (native.py): a compiled Work keeps each field in a slot
COMPILED = not isinstance(_probe, types.FunctionType)

# the fields that decide which sources of abilities are in play (statics.abilities): the rules
# modules write them only through their setters in fields.py (``set_held(w, …)``), which forget
# the sources found; tests/test_fields.py refuses any other write
SOURCE_FIELDS = ("dark_power", "dark_revealed", "finale", "finale_revealed", "events_active", "secondary",
                 "flipped", "kept", "held", "pack")


class Work:
    """A mutable working copy of a GameState; fields are rebound, never mutated in place.

    ``ctl``, ``scope`` and the memos live in slots, so a plain Work's ``__dict__`` holds the
    state's fields and nothing else: a copy of it is a whole state. ``sources``: the sources of
    abilities in play, once found, until a field of SOURCE_FIELDS is written (by its setter);
    ``found``: what was looked up among them (the rules answering a question, the triggers of a
    happening).
    """

    __slots__ = ("__dict__", "ctl", "ends_read", "enemy_memo", "fg_memo", "found", "scope", "sources")

    # BEGIN GENERATED: GameState's fields (python -m lastbreath.interpreter.fieldgen)
    game: Game
    seed: int
    rng: int
    round: int
    phase: str
    sub: int
    result: str
    end_reason: str
    fg_loc: int
    fg_health: int
    fg_breath: int
    fg_breath_value: int
    fear: int
    time: int
    hand: tuple[str, ...]
    spent: tuple[str, ...]
    market: tuple[str, ...]
    held: tuple[HeldItem, ...]
    pack: tuple[HeldItem, ...]
    rescued: int
    slots: tuple[bool, ...]
    flipped: bool
    skip_action: bool
    action_over: bool
    victims: tuple[int, ...]
    killers: tuple[KillerState, ...]
    minions: tuple[MinionState, ...]
    bloodlust: int
    lust_fired: frozenset[int]
    dead: int
    deaths_round: int
    terror: tuple[str, ...]
    finale: str
    finale_revealed: bool
    dark_power: str
    dark_revealed: bool
    secondary: str
    secondary_health: int
    events: tuple[str, ...]
    events_active: tuple[str, ...]
    piles: tuple[tuple[tuple[str, bool], ...], ...]
    breath_bag: tuple[int, ...]
    setup_card: str
    mode: str
    mode_active: str
    flags: frozenset[str]
    opened: frozenset[int]
    tokens: tuple[tuple[str, str, int], ...]
    supply: tuple[tuple[str, str], ...]
    collected: tuple[tuple[str, str], ...]
    token_discard: tuple[tuple[str, str], ...]
    decks: tuple[tuple[str, tuple[str, ...]], ...]
    kept: tuple[str, ...]
    minion_seq: int
    active: int
    dice: tuple[int, ...]
    marked: tuple[MarkedVictim, ...]
    victim_seq: int
    victims_taken: int
    victims_in: int
    fg_status: frozenset[str]
    token_on: tuple[tuple[str, str, str, bool], ...]
    arrivals: tuple[str, ...]
    table: tuple[str, ...]
    aside: tuple[str, ...]
    item_piles: tuple[tuple[str, tuple[str, ...]], ...]
    on_piles: tuple[tuple[int, str], ...]
    deck_discards: tuple[tuple[str, tuple[str, ...]], ...]
    cards_aside: tuple[str, ...]
    card_number: int
    tracks: tuple[tuple[str, int], ...]
    holding: tuple[tuple[str, int], ...]
    delayed: tuple[tuple[int, int, int], ...]
    barred: tuple[tuple[int, str], ...]
    cards_gone: tuple[str, ...]
    conveyances: tuple[int, ...]
    item_seq: int
    tokens_down: tuple[tuple[str, str, int], ...]
    choice: Optional[Choice]
    answers: tuple[str, ...]
    checkpoint: Optional[GameState]
    events_seen: int
    # END GENERATED
    ctl: Replay
    scope: Scope
    sources: Optional[tuple[Any, ...]]
    found: dict[Any, tuple[Any, ...]]
    ends_read: Optional[tuple[Any, ...]]
    enemy_memo: Optional[tuple[Any, ...]]
    fg_memo: Optional[tuple[Any, ...]]

    def __init__(self, state: GameState, ctl: Replay):
        if COMPILED:
            copy_in(self, state.__dict__)
        else:
            self.__dict__ = state.__dict__.copy()
        self.ctl = ctl
        self.scope = Scope()
        self.sources = None
        self.found = {}  # lookups among the sources (reset with them: statics.abilities)
        self.ends_read = None  # ends.check_ends: what the win and lose lines last read (see there)
        self.enemy_memo = None  # statics.enemy_tables, fg_tables: the last tables
        self.fg_memo = None

    def freeze(self, **extra: Any) -> GameState:
        d = copy_out(self) if COMPILED else self.__dict__.copy()
        if extra:
            d.update(extra)
        return state_of(d)

    def release(self, **extra: Any) -> GameState:
        """``freeze`` for the last use of this Work: the state takes the fields without a copy."""
        if COMPILED:
            d = copy_out(self)
        else:
            d = self.__dict__
            self.__dict__ = {}  # the Work is spent: nothing written to it can reach the state
        d.update(extra)
        return state_of(d)


def snapshot(w: Work) -> dict[str, Any]:
    """The Work's fields as a new dict of a state's (a checkpoint's, or a paused state's)."""
    return copy_out(w) if COMPILED else w.__dict__.copy()


def field(w: Work, name: str) -> Any:
    """A field of the Work by name (the plain Work's ``__dict__``; a compiled one has none)."""
    return getattr(w, name) if COMPILED else w.__dict__[name]


def over_budget(w: Work, what: str, count: int, budget: int) -> None:
    """Content put more in play than a game's budget (dsl/limits.py): E312 naming its line."""
    raise runtime_error("E312", f"{count} {what} would be in play, past the game's budget of {budget}",
                        "each number is within its limit, but they add up: spawns or victims every round?",
                        getattr(w.scope.node, "span", None))


def out_of_work(w: Work, span: Any) -> None:
    """Content asked more work of the engine between two decisions than its budget (``MAX_WORK``
    units: dsl/limits.py, docs/decisions/0022): E313 naming the line (``span``, else the node
    being resolved). The count is left below 0, so that whatever catches this does not go on."""
    from . import steps  # (the budget as the step module holds it: a test may set it)
    if span is None:
        span = getattr(w.scope.node, "span", None)
    raise runtime_error("E313", f"the game went past its work budget of {steps.MAX_WORK} units before the next "
                                "decision",
                        "selectors nested in selectors, 'for each' in 'for each', or a trigger that sets itself "
                        "off many times: each is fine, together they multiply", span)


def replace(state: GameState, **changes: Any) -> GameState:
    """A copy of a settled state with some fields changed (for tests and tools; no rules applied)."""
    d = dict(state.__dict__)
    unknown = set(changes) - set(d)
    if unknown:
        raise TypeError(f"GameState has no fields {sorted(unknown)}")
    d.update(changes)
    return state_of(d)


def work(state: GameState, answers: tuple[str, ...] = ()) -> Work:
    """A working copy on which engine functions can be called directly, answering choices from ``answers``."""
    return Work(state, Replay(tuple(answers), 0, complete=False, start=state))
