"""Asking, pausing and resuming: how a transition runs, stops at a choice and goes on.

The engine is written as ordinary straight-line code over a mutable working copy (``Work``) of
an immutable ``GameState``. The game advances in *steps* (one top-level decision of the Action
phase with everything it causes, one purchase, a part of the Killer phase, …). After each step
the work is frozen into a new state: a checkpoint. When code inside a step needs a decision it
calls ``ask``; if the answer is not known yet, a ``NeedChoice`` unwinds the step and the state
returned holds the checkpoint, the answers given so far in this step and the pending
``Choice``. ``apply`` appends the new answer and replays the step from its checkpoint; since
all randomness comes from the state's (seed, counter), the replay is exact. So ``apply`` is a
pure function, states are plain data (a checkpoint plus answers), and a game can be saved in
the middle of a card (docs/decisions/0002).

Replay is the meaning; a greenlet makes it cheap (docs/decisions/0005). ``advance`` runs in a
greenlet, and ``ask`` pauses it there instead of unwinding. The first ``apply`` to the paused
state resumes that run with the answer, which gives exactly what the replay would; any other
answer to it (a second one, a loaded save, another thread) replays.

The rules modules know this module through three doors only: ``ask`` (a decision), ``emit``
(what happened) and the draws (``roll_die``, ``rand``, ``shuffled``). What the steps are is
the phases module's business (``phases.STEPS``); this module only drives them.
"""

from __future__ import annotations

import threading
import types
import weakref
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from lastbreath.dsl.diagnostics import IllegalChoice, runtime_error

from .. import rng
from ..state import Choice, Event, GameState, Option

if TYPE_CHECKING:
    from ..state import HeldItem, KillerState, MarkedVictim, MinionState
    from .game import Game

try:  # a run paused at a choice is kept suspended in a greenlet, and resumed instead of replayed
    import greenlet as _greenlet_module
except ImportError:  # pragma: no cover - without it every answer replays its step (same results)
    _greenlet_module = None

def _probe() -> None:
    """A function of this module: a plain one unless the module runs compiled (COMPILED)."""


# whether this module runs compiled (native.py): a compiled Work keeps each field in a slot
COMPILED = not isinstance(_probe, types.FunctionType)

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


class _Rewind(Exception):
    """A run answering a lean policy reached play_out's limit inside a step whose checkpoint it
    did not keep: play_out plays the answers given again with apply, to the same paused state."""


class PhaseEnd(Exception):
    """Unwinds the rest of a phase that a last breath ended at once (C14.2, C17.1)."""


# --- the two halves of a run's bookkeeping ----------------------------------------------------
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
        self.keys: list[str] = []  # … and those answers, for a policy choosing by index (see _Rewind)
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
                raise _Rewind()
            self.start = _state_of(self.start_fields)
        return self.start


_NOT_ASKING: frozenset[str] = frozenset()


class Scope:
    """What scopes: the content node being resolved (events name its line), how deeply effects
    are nested, and the location ``it`` of the innermost ``for each``."""

    __slots__ = ("asking", "body", "defeat", "depth", "it", "node", "piece")

    def __init__(self) -> None:
        self.node: Any = None
        self.depth = 0
        self.it = -1
        self.defeat = False  # a side was defeated in the resolution under way (C13.2: settle at its end)
        self.asking: frozenset[str] = frozenset()  # the rules' questions whose 'while' conditions are being read
        self.body = -1  # inside 'all killers { … }': the body 'the killer' means there
        self.piece: Any = None  # inside 'for each victim …': the piece 'it' is (engine/pieces.py)


# a step starts with no content node (an exception may have left a resolution midway): _advance
# sets node, depth, it, defeat, asking, body, piece to these after a step cut short
_SCOPE_START = (None, 0, -1, False, _NOT_ASKING, -1, None)


def reset_scope(scope: Scope) -> None:
    """The scope as a step starts: no content node, depth 0, no 'it', no defeat, no questions, …"""
    scope.node, scope.depth, scope.it, scope.defeat, scope.asking, scope.body, scope.piece = _SCOPE_START


class _Sources:
    """A field of ``Work`` that says which sources of abilities are in play: writing it forgets
    the sources found (``Work.sources``, see statics.abilities). It defines no ``__get__``, so a
    read finds the field in the instance's ``__dict__`` as any other; only writes pass here."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __set__(self, w: Work, value: Any) -> None:
        w.__dict__[self.name] = value
        w.sources = None


class Work:
    """A mutable working copy of a GameState; fields are rebound, never mutated in place.

    ``ctl``, ``scope`` and ``sources`` live in slots, so ``__dict__`` holds the state's fields
    and nothing else: a copy of it is a whole state, and a plain ``dict.copy`` (which clones the
    key table at once) makes it. ``sources``: the sources of abilities in play, once found, until
    a field they depend on is written (SOURCE_FIELDS, watched by ``_Sources``); ``found``: what
    was looked up among them (the rules answering a question, the triggers of a happening).

    Compiled (native.py, decision 0015) a Work has no ``__dict__``: each field has a slot of its
    own, read and written without a lookup, and the state's fields are copied in and out one by
    one (``_fill``, ``_fields``); the rules modules reset ``sources`` themselves where they write
    a field of SOURCE_FIELDS, as ``_Sources`` does for the plain Work.
    """

    __slots__ = ("__dict__", "ctl", "ends_read", "enemy_memo", "fg_memo", "found", "scope", "sources")

    # the fields of GameState, as the engine reads and rebinds them (a compiled Work: each a slot)
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
    choice: Optional[Choice]
    answers: tuple[str, ...]
    checkpoint: Optional[GameState]
    events_seen: int
    ctl: Replay
    scope: Scope
    sources: Optional[tuple[Any, ...]]
    found: dict[Any, tuple[Any, ...]]
    ends_read: Optional[tuple[Any, ...]]
    enemy_memo: Optional[tuple[Any, ...]]
    fg_memo: Optional[tuple[Any, ...]]

    def __init__(self, state: GameState, ctl: Replay):
        if COMPILED:
            _fill(self, state.__dict__)
        else:
            self.__dict__ = state.__dict__.copy()
        self.ctl = ctl
        self.scope = Scope()
        self.sources = None
        self.found = {}  # lookups among the sources (reset with them: statics.abilities)
        self.ends_read = None  # phases.check_ends: what the lines last read (see there)
        self.enemy_memo = None  # statics.enemy_tables, fg_tables: the last tables
        self.fg_memo = None

    def freeze(self, **extra: Any) -> GameState:
        d = _fields(self) if COMPILED else self.__dict__.copy()
        if extra:
            d.update(extra)
        return _state_of(d)

    def release(self, **extra: Any) -> GameState:
        """``freeze`` for the last use of this Work: the state takes the fields without a copy."""
        if COMPILED:
            d = _fields(self)
        else:
            d = self.__dict__
            self.__dict__ = {}  # the Work is spent: nothing written to it can reach the state
        d.update(extra)
        return _state_of(d)


def _fill(w: Work, d: dict[str, Any]) -> None:
    """A compiled Work's fields from a state's (GameState's fields, in its order: a test checks it)."""
    w.game = d["game"]
    w.seed = d["seed"]
    w.rng = d["rng"]
    w.round = d["round"]
    w.phase = d["phase"]
    w.sub = d["sub"]
    w.result = d["result"]
    w.end_reason = d["end_reason"]
    w.fg_loc = d["fg_loc"]
    w.fg_health = d["fg_health"]
    w.fg_breath = d["fg_breath"]
    w.fg_breath_value = d["fg_breath_value"]
    w.fear = d["fear"]
    w.time = d["time"]
    w.hand = d["hand"]
    w.spent = d["spent"]
    w.market = d["market"]
    w.held = d["held"]
    w.pack = d["pack"]
    w.rescued = d["rescued"]
    w.slots = d["slots"]
    w.flipped = d["flipped"]
    w.skip_action = d["skip_action"]
    w.action_over = d["action_over"]
    w.victims = d["victims"]
    w.killers = d["killers"]
    w.minions = d["minions"]
    w.bloodlust = d["bloodlust"]
    w.lust_fired = d["lust_fired"]
    w.dead = d["dead"]
    w.deaths_round = d["deaths_round"]
    w.terror = d["terror"]
    w.finale = d["finale"]
    w.finale_revealed = d["finale_revealed"]
    w.dark_power = d["dark_power"]
    w.dark_revealed = d["dark_revealed"]
    w.secondary = d["secondary"]
    w.secondary_health = d["secondary_health"]
    w.events = d["events"]
    w.events_active = d["events_active"]
    w.piles = d["piles"]
    w.breath_bag = d["breath_bag"]
    w.setup_card = d["setup_card"]
    w.mode = d["mode"]
    w.mode_active = d["mode_active"]
    w.flags = d["flags"]
    w.opened = d["opened"]
    w.tokens = d["tokens"]
    w.supply = d["supply"]
    w.collected = d["collected"]
    w.token_discard = d["token_discard"]
    w.decks = d["decks"]
    w.kept = d["kept"]
    w.minion_seq = d["minion_seq"]
    w.active = d["active"]
    w.dice = d["dice"]
    w.marked = d["marked"]
    w.victim_seq = d["victim_seq"]
    w.fg_status = d["fg_status"]
    w.token_on = d["token_on"]
    w.arrivals = d["arrivals"]
    w.table = d["table"]
    w.aside = d["aside"]
    w.item_piles = d["item_piles"]
    w.on_piles = d["on_piles"]
    w.deck_discards = d["deck_discards"]
    w.cards_aside = d["cards_aside"]
    w.card_number = d["card_number"]
    w.tracks = d["tracks"]
    w.holding = d["holding"]
    w.delayed = d["delayed"]
    w.barred = d["barred"]
    w.choice = d["choice"]
    w.answers = d["answers"]
    w.checkpoint = d["checkpoint"]
    w.events_seen = d["events_seen"]


def _fields(w: Work) -> dict[str, Any]:
    """A compiled Work's fields, as a state's (GameState's fields, in its order: a test checks it)."""
    return {"game": w.game, "seed": w.seed, "rng": w.rng, "round": w.round, "phase": w.phase, "sub": w.sub,
            "result": w.result, "end_reason": w.end_reason, "fg_loc": w.fg_loc, "fg_health": w.fg_health,
            "fg_breath": w.fg_breath, "fg_breath_value": w.fg_breath_value, "fear": w.fear, "time": w.time, "hand":
            w.hand, "spent": w.spent, "market": w.market, "held": w.held, "pack": w.pack, "rescued": w.rescued,
            "slots": w.slots, "flipped": w.flipped, "skip_action": w.skip_action, "action_over": w.action_over,
            "victims": w.victims, "killers": w.killers, "minions": w.minions, "bloodlust": w.bloodlust,
            "lust_fired": w.lust_fired, "dead": w.dead, "deaths_round": w.deaths_round, "terror": w.terror,
            "finale": w.finale, "finale_revealed": w.finale_revealed, "dark_power": w.dark_power, "dark_revealed":
            w.dark_revealed, "secondary": w.secondary, "secondary_health": w.secondary_health, "events": w.events,
            "events_active": w.events_active, "piles": w.piles, "breath_bag": w.breath_bag, "setup_card":
            w.setup_card, "mode": w.mode, "mode_active": w.mode_active, "flags": w.flags, "opened": w.opened,
            "tokens": w.tokens, "supply": w.supply, "collected": w.collected, "token_discard": w.token_discard,
            "decks": w.decks, "kept": w.kept, "minion_seq": w.minion_seq, "active": w.active, "dice": w.dice,
            "marked": w.marked, "victim_seq": w.victim_seq, "fg_status": w.fg_status, "token_on": w.token_on,
            "arrivals": w.arrivals, "table": w.table, "aside": w.aside, "item_piles": w.item_piles, "on_piles":
            w.on_piles, "deck_discards": w.deck_discards, "cards_aside": w.cards_aside, "card_number":
            w.card_number, "tracks": w.tracks, "holding": w.holding, "delayed": w.delayed, "barred": w.barred,
            "choice": w.choice, "answers": w.answers, "checkpoint": w.checkpoint, "events_seen": w.events_seen}


def field(w: Work, name: str) -> Any:
    """A field of the Work by name (the plain Work's ``__dict__``; a compiled one has none)."""
    return getattr(w, name) if COMPILED else w.__dict__[name]


# the fields that decide which sources of abilities are in play (statics.abilities): writes watched
SOURCE_FIELDS = ("dark_power", "dark_revealed", "finale", "finale_revealed", "events_active", "secondary",
                 "flipped", "kept", "held", "pack")
if not COMPILED:  # (a compiled class takes no descriptors: its writers reset ``sources`` themselves)
    for _name in SOURCE_FIELDS:
        setattr(Work, _name, _Sources(_name))


def _state_of(d: dict[str, Any]) -> GameState:
    """A GameState whose fields are the dict ``d`` itself (the caller hands it over: no copy)."""
    s = _new_object(GameState)
    _set_dict(s, "__dict__", d)
    return s


_new_object = object.__new__
_set_dict = object.__setattr__  # a frozen class refuses ``s.__dict__ = d``; object's own setter does not
state_of = _state_of  # for the engine's modules (setup.blank: a state copied from a template's fields)


# --- asking ---------------------------------------------------------------------------------
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
            i: Any = ctl.choose(opts)  # type: ignore[misc]  # (Any: the policy's, checked below)
            if i.__class__ is not int or not 0 <= i < n:
                raise IllegalChoice(f"option {i!r} is not an option here; there are {n}")
            key = opts[i].key
            ctl.keys.append(key)
            ctl.steps = 0
            return key
    elif ctl.complete and ctl.pos < len(ctl.answers):
        key = ctl.answers[ctl.pos]
        ctl.pos += 1
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
    d = _fields(w) if COMPILED else w.__dict__.copy()  # w.freeze(choice=…, answers=…, checkpoint=…, events_seen=…)
    start = ctl.start
    d["choice"], d["answers"], d["events_seen"] = choice, ctl.answers, ctl.count
    d["checkpoint"] = start if start is not None else ctl.start_state()
    if ctl.policy is not None and ctl.budget > 0:
        return _answer_here(ctl, choice.options, _state_of(d), choice)
    # Neither the greenlet nor the paused state may be held by the suspended frames: a greenlet's
    # frames are invisible to the garbage collector, so such a cycle (the state keys the run in
    # RUNS) would never be freed. The state goes out through an attribute of the greenlet.
    run = _greenlet_module.getcurrent()
    run.out = (_state_of(d), ctl.events)
    del d
    parent = run.parent
    del run
    ctl.kinds = None  # the kinds advance was given covered the events up to here; play_out sets its own
    key = parent.switch()
    ctl.events = []
    ctl.steps = 0
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
        _check_option(choice, got)
        key = got
    ctl.events = []
    ctl.steps = 0
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


def _check_option(choice: Choice, key: Any) -> None:
    for o in choice.options:
        if o.key == key:
            return
    raise IllegalChoice(f"'{key}' is not an option here; options: {', '.join(choice.keys())}")


# --- telling --------------------------------------------------------------------------------
def emit(w: Work, kind: str, text: str | Callable[[], str], rule: str = "", source: str = "",
         data: tuple[Any, ...] | Callable[[], tuple[Any, ...]] = ()) -> None:
    """Report what happened; ``source`` defaults to the content line being resolved, if any.

    ``text`` and ``data`` may be functions giving them, called here and now (so they read the
    values of this moment) and only if the event is made: a text that is costly to write (a
    list of candidates) costs nothing when play_out's caller does not read that kind of event."""
    ctl = w.ctl
    if ctl.lean:  # a step nobody replays: not counted
        kinds = ctl.kinds
        if kinds is not None and kind not in kinds:
            return
    else:
        ctl.count += 1
        if ctl.count <= ctl.skip:
            return
        kinds = ctl.kinds
        if kinds is not None and kind not in kinds:  # counted (a replay skips it alike), not made
            return
    if not source:
        node = w.scope.node
        if node is not None:
            sp = node.span
            if sp is not None:
                got = ctl.sources.get(id(sp))
                source = got[1] if got is not None and got[0] is sp else _source(ctl.sources, sp)
    if text.__class__ is not str:
        text = text()  # type: ignore[operator]
    if data.__class__ is not tuple:
        data = data()  # type: ignore[operator]
    ctl.events.append(_new_tuple(Event, (kind, text, rule, source, data)))  # Event(...) without its Python __new__


_new_tuple = tuple.__new__


def told(w: Work, kind: str) -> bool:
    """Whether an event of ``kind`` would be made now (play_out may read only some kinds, and a
    replay skips the events seen). If not, it is counted here as ``emit`` counts it, and the
    caller does not build it at all: ``if told(w, kind): emit(w, kind, …)``. For events whose
    text or data cost more to describe than a function to write them (targeting, on every move)."""
    ctl = w.ctl
    kinds = ctl.kinds
    if ctl.lean:  # a step nobody replays: not counted
        return kinds is None or kind in kinds
    if ctl.count < ctl.skip or (kinds is not None and kind not in kinds):
        ctl.count += 1
        return False
    return True


def _source(table: dict[int, tuple[Any, str]], sp: Any) -> str:
    """An event's source text for a span, formatted once per span (the table keeps the span, so
    that its id stays its own; it belongs to the game, see Game.span_text)."""
    text = f"{sp.path}:{sp.line}:{sp.col}"
    table[id(sp)] = (sp, text)
    return text


# --- draws: all randomness comes from the state's (seed, counter) ------------------------------
def roll_die(w: Work) -> int:
    """A die: the first of the state's forced faces (``state.dice``, set by a position), else a draw."""
    forced = w.dice
    if forced:
        w.dice = forced[1:]
        return forced[0]
    # rng.draw(w.seed, w.rng, 6) + 1, written out: a die is rolled ~55 times a game (a crowd wandering)
    # and the call cost as much as the draw; tests/test_properties.py checks the two stay equal
    z = ((w.seed * 0x100000001B3 + w.rng) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    w.rng += 1
    return ((z ^ (z >> 31)) >> 11) % 6 + 1


_MASK = rng.MASK


def rand(w: Work, k: int) -> int:
    v = rng.draw(w.seed, w.rng, k)
    w.rng += 1
    return v


def shuffled(w: Work, items: Any) -> tuple[Any, ...]:
    """Fisher–Yates from the last card down, with the draws of rand() (rng.draw for counters
    w.rng, w.rng+1, …), made all at once (rng.raw_draws)."""
    out = list(items)
    n = len(out)
    if n < 2:
        return tuple(out)
    raw = rng.raw_draws(w.seed, w.rng, n - 1)
    w.rng += n - 1
    for i, r in zip(range(n - 1, 0, -1), raw):
        j = r % (i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


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
GREENLET = _greenlet_module  # None: every answer replays its step (tests switch it off to check that)
_weak, _thread = weakref.ref, threading.get_ident


def over_budget(w: Work, what: str, count: int, budget: int) -> None:
    """Content put more in play than a game's budget (dsl/limits.py): E312 naming its line."""
    raise runtime_error("E312", f"{count} {what} would be in play, past the game's budget of {budget}",
                        "each number is within its limit, but they add up: spawns or victims every round?",
                        getattr(w.scope.node, "span", None))


# --- driving --------------------------------------------------------------------------------
def advance(checkpoint: GameState, answers: tuple[str, ...], skip: int,
            kinds: Optional[frozenset[str]] = None) -> tuple[GameState, list[Event]]:
    """Replay the current step from its checkpoint with the answers, then run on to the next choice.
    ``kinds``: the kinds of event made (None: all); the others are counted alike, not made."""
    if GREENLET is None:
        return _advance(checkpoint, answers, skip, False, kinds)
    run = GREENLET.greenlet(_advance)
    return _settle(run, run.switch(checkpoint, answers, skip, True, kinds))


def _settle(run: Any, out: Any) -> tuple[GameState, list[Event]]:
    """What a switch into ``run`` gave back: the game's end, or a pause (kept for apply)."""
    if run.dead:
        return out
    out, run.out = run.out, None
    RUNS.keep(out[0], run)
    return out


def _advance(checkpoint: GameState, answers: tuple[str, ...], skip: int, run: bool,
             kinds: Optional[frozenset[str]] = None) -> tuple[GameState, list[Event]]:
    from .ending import settle
    from .phases import STEPS, check_ends  # the steps are the phases module's (imported once it is loaded)

    # a game that logs its forced choices rebuilds every menu on a replay, so that the log is the same
    ctl = Replay(answers, skip, complete=checkpoint.game.forced != "log", start=checkpoint, run=run)
    ctl.kinds = kinds
    if run:
        GREENLET.getcurrent().ctl = ctl  # for play_out (the run holds ctl; ctl does not hold the run)
    w = Work(checkpoint, ctl)
    scope = w.scope
    ends = w.game.has_ends
    while ctl.steps < MAX_STEPS:  # steps since the last answer (_pause resets the count)
        ctl.steps += 1
        if w.result:
            return w.release(choice=None, answers=(), checkpoint=None, events_seen=0), ctl.events
        try:
            STEPS[w.phase](w)
            if scope.defeat:  # C13.2: a defeat during the step, not yet settled
                settle(w)
            if ends:
                last = w.ends_read  # check_ends' first test, without the call (nothing read changed: none holds)
                if last is None or last[0] is not w.sources or ((  # (the plain Work: its __dict__, without a call)
                        field(w, last[1]) is not last[2] or field(w, last[3]) is not last[4]) if COMPILED else (
                        (d := w.__dict__)[last[1]] is not last[2] or d[last[3]] is not last[4])):
                    check_ends(w)
        except NeedChoice as nc:
            if ctl.pos != len(ctl.answers):
                raise AssertionError("an answer was not used by the step it was given to") from None
            st = w.release(choice=nc.args[0], answers=ctl.answers, checkpoint=ctl.start_state(),
                           events_seen=ctl.count)
            return st, ctl.events
        except PhaseEnd:
            from .phases import phase_ended
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
            if ctl.lean and ctl.budget > LEAN_RESERVE:
                continue  # another step without a checkpoint, its answers or its events counted (see ask)
            _next_step(w, ctl)
            continue
        reset_scope(scope)  # the step was cut short (its scope is left as it was): a fresh scope
        _next_step(w, ctl)
    span = getattr(ctl.last[0], "span", None) if ctl.last else None  # (not ``last``: a compiled local keeps one type)
    raise runtime_error("E311", "the game did not reach a decision within the step limit",
                        f"{MAX_STEPS} steps ran without a choice: content that loops through phases without end?"
                        + (" The line named is the last one resolved" if span is not None else ""), span)


def _next_step(w: Work, ctl: Replay) -> None:
    """The next step starts: its checkpoint (the fields, copied), no answers yet, no events counted;
    while play_out answers a lean policy with answers to spare, no checkpoint (nobody would read it)
    and the step is lean (see ask)."""
    ctl.start, ctl.answers = None, ()
    ctl.lean = ctl.choose is not None and ctl.budget > LEAN_RESERVE
    ctl.said = ctl.kinds if ctl.lean else None
    ctl.start_fields = None if ctl.lean else _fields(w) if COMPILED else w.__dict__.copy()
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
    _check_option(state.choice, key)
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
        key: Any = policy(state, state.choice)  # type: ignore[arg-type]  # (Any: checked by apply)
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
        except _Rewind:  # a step without its checkpoint reached the limit: the same answers, with states
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
    def both(state: GameState, events: list[Event]) -> None:
        on_transition(state, events)  # type: ignore[misc]
        on_events(events)  # type: ignore[misc]

    def events_only(state: GameState, events: list[Event]) -> None:
        on_events(events)  # type: ignore[misc]

    if on_transition is None:
        return events_only if on_events is not None else _no_hook
    return both if on_events is not None else on_transition


def _no_hook(state: GameState, events: list[Event]) -> None:
    pass


def replace(state: GameState, **fields: Any) -> GameState:
    """A copy of a settled state with some fields changed (for tests and tools; no rules applied)."""
    d = dict(state.__dict__)
    unknown = set(fields) - set(d)
    if unknown:
        raise TypeError(f"GameState has no fields {sorted(unknown)}")
    d.update(fields)
    return _state_of(d)


def work(state: GameState, answers: tuple[str, ...] = ()) -> Work:
    """A working copy on which engine functions can be called directly, answering choices from ``answers``."""
    return Work(state, Replay(tuple(answers), 0, complete=False, start=state))


__all__ = [
    "MAX_STEPS",
    "RUNS",
    "GameOver",
    "NeedChoice",
    "PhaseEnd",
    "Replay",
    "Scope",
    "Work",
    "advance",
    "apply",
    "ask",
    "emit",
    "opt",
    "play_out",
    "rand",
    "replace",
    "reset_scope",
    "roll_die",
    "shuffled",
    "state_of",
    "told",
    "work",
]
