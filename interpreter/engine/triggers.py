"""Events: what triggers, replacements and modifications answer (dsl/LANGUAGE.md sections 4–5).

An event point of the rules calls ``would`` before the event happens (a replacement in play
stops it and resolves its block instead; modifications change its number, or prevent it) and
``fire`` after it happened (every trigger in play on it resolves). Both first look whether any
content in the game listens to that kind of event at all (``Game.listens``), so an event nobody
answers costs one set lookup.

An event node of the content matches a happening by its kind (``event_kind``) and by its own
function, ``match_<snake_case_class_name>``, found by name (which piece, which place, which cause).
Inside the block that answers an event, ``that`` is the event's number, ``it`` the location
where it happened, ``the cause`` why (bloodlust: a kill, the killer, a minion, another cause).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from lastbreath.dsl import nodes as n

from .places import candidates
from .resolve import amount, condition, loc, run
from .statics import abilities, in_arrival_order
from .tables import NO_CTX, Ctx
from .telling import emit
from .working import out_of_work

if TYPE_CHECKING:
    from .working import Work

Piece = tuple[str, str, int]  # (fg | killer | victim | minion | conveyance, its kind or id, index or location)
FG: Piece = ("fg", "", -1)


class Happening:
    """One event as the content sees it; made only when some content listens to its kind."""

    __slots__ = ("by", "cause", "extra", "kind", "number", "piece", "place")

    def __init__(self, kind: str, piece: Optional[Piece], number: int, place: int, cause: str, extra: Any,
                 by: str = ""):
        self.by = by  # the source whose effect made it happen (Scope.source), when content reads it
        self.kind = kind
        self.piece = piece
        self.number = number
        self.place = place
        self.cause = cause
        self.extra = extra  # token type, item id, deck id, or the tags of a path crossed


# --- which kind of happening an event node answers, and whether it matches one -------------------
_KIND_PREFIX: dict[type, str] = {n.TokenEvent: "token", n.ItemEvent: "item", n.CardEvent: "card", n.OwnEvent: "own"}


def event_kind(e: n.Event) -> str:
    """The kind of happening an event node answers."""
    if isinstance(e, n.PieceEvent):
        return e.what
    if isinstance(e, n.PhaseEvent):
        return f"{e.edge}:{e.phase}"
    if isinstance(e, n.BloodlustRises):
        return "bloodlust-rises"
    if isinstance(e, n.FearChanges):
        return f"fear-{e.how}"
    if isinstance(e, (n.TokenEvent, n.ItemEvent, n.CardEvent, n.OwnEvent)):
        return f"{_KIND_PREFIX[type(e)]}-{e.how}"
    if isinstance(e, n.TrackReaches):
        return "track-reaches"
    return "game-starts"


def match_piece_ref(ref: n.PieceRef, piece: Optional[Piece]) -> bool:  # fg | killer | victim | minion | KIND | enemy
    if piece is None:
        return False
    kind = ref.kind
    if kind == "enemy":
        return piece[0] in ("killer", "minion")
    if kind == "minion" and ref.minion:  # a kind of minion, or of victim, or a conveyance (their ids differ)
        return piece[1] == ref.minion and piece[0] in ("minion", "victim", "conveyance")
    if ref.body:
        return piece[0] == "killer" and piece[1] == ref.body
    return piece[0] == kind


_EVERY: list[Callable[..., bool]] = []  # the matchers marked below (a list: a compiled function takes no attribute)


def _matches_every(fn: Callable[..., bool]) -> Callable[..., bool]:
    """A matcher whose event answers every happening of its kind (fire does not call it: MATCHES_EVERY)."""
    _EVERY.append(fn)
    return fn


def match_piece_event(e: n.PieceEvent, w: Work, h: Happening) -> bool:  # PIECE takes damage / enters PLACE / …
    if not match_piece_ref(e.piece, h.piece):
        return False
    if e.what == "crosses":
        return e.tag in h.extra
    if e.place and e.what in ("enters", "leaves"):
        if isinstance(e.place, n.Selector):
            return h.place in candidates(w, e.place, NO_CTX)
        return h.place == loc(w, e.place)
    return True


@_matches_every
def match_phase_event(e: n.PhaseEvent, w: Work, h: Happening) -> bool:  # start|end of PHASE
    return True


def match_bloodlust_rises(e: n.BloodlustRises, w: Work, h: Happening) -> bool:  # bloodlust rises [from …]
    if not e.cause:
        return True
    if e.cause == "kill":
        return h.cause in ("kill", "killer", "minion")
    return h.cause == e.cause


@_matches_every
def match_fear_changes(e: n.FearChanges, w: Work, h: Happening) -> bool:  # fear rises|falls
    return True


def match_token_event(e: n.TokenEvent, w: Work, h: Happening) -> bool:  # token T is placed|removed|spent
    return bool(h.extra == e.token)


def match_item_event(e: n.ItemEvent, w: Work, h: Happening) -> bool:  # item ID is … / an item is …
    return not e.item or h.extra == e.item


def match_card_event(e: n.CardEvent, w: Work, h: Happening) -> bool:  # card [DECK] is drawn|revealed
    return not e.deck or h.extra == e.deck


@_matches_every
def match_own_event(e: n.OwnEvent, w: Work, h: Happening) -> bool:  # revealed | drawn | gained (this card)
    return True


@_matches_every
def match_game_starts(e: n.GameStarts, w: Work, h: Happening) -> bool:  # game starts
    return True


def match_track_reaches(e: n.TrackReaches, w: Work, h: Happening) -> bool:  # track T reaches N
    track, old, new = h.extra
    return track == e.track and old < amount(w, e.n, NO_CTX) <= new


MATCH: dict[type, Callable[..., bool]] = {**n.functions(n.Event, globals(), "match_"),
                                          **n.functions(n.Piece, globals(), "match_")}
MATCHES_EVERY = frozenset(cls for cls, fn in MATCH.items() if any(fn is f for f in _EVERY))


# --- answering ------------------------------------------------------------------------------------
def _ctx(w: Work, h: Happening) -> Ctx:
    """The context of a trigger, replacement or modification answering ``h``: made once per what
    it is made of (a Ctx is never written; ``Game.trigger_ctx``; fire writes this out)."""
    piece = h.piece
    return w.game.trigger_ctx[(h.kind, h.number, piece[2] if piece is not None and piece[0] == "killer" else -1,
                               h.cause, h.by)]


def _in_play(w: Work, field: str, kind: str) -> tuple[Any, ...]:
    """The triggers (replacements, modifications) in play that answer a kind of happening."""
    srcs = w.sources  # abilities(w), without the call when they are kept
    if srcs is None:
        srcs = abilities(w)
    found = w.found.get((field, kind))  # looked up once while these sources are in play …
    if found is None:
        g = w.game
        key = (id(srcs), field, kind)
        got = g.events_cache.get(key)  # … and once per set of sources in the game
        if got is None or got[0] is not srcs:
            got = g.events_cache[key] = (srcs, tuple(x for a in srcs for x in getattr(a, field)
                                                     if event_kind(x.event) == kind))
        found = w.found[(field, kind)] = got[1]
    return found


def _modifications(w: Work, kind: str) -> tuple[Any, ...]:
    """The modifications in play that answer a kind of happening, in the order their sources came
    into play (LANGUAGE.md 5); one or none needs no order."""
    mods = _in_play(w, "modifications", kind)
    if len(mods) < 2 or not w.game.ordered_mods:
        return mods
    ordered = in_arrival_order(w)
    key = (id(ordered), "modifications-in-order", kind)
    got = w.game.events_cache.get(key)
    if got is None or got[0] is not ordered:
        found = tuple(x for a in ordered for x in a.modifications if event_kind(x.event) == kind)
        got = w.game.events_cache[key] = (ordered, found)
    return got[1]


def _with_it(w: Work, h: Happening, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with ``it`` the location of the happening (when it has one)."""
    if h.place < 0:
        return fn(*args)
    scope = w.scope
    saved = scope.it
    scope.it = h.place
    try:
        return fn(*args)
    finally:
        scope.it = saved


def fire(w: Work, kind: str, piece: Optional[Piece] = None, number: int = 0, place: int = -1, cause: str = "",
         extra: Any = "", body: int = -1) -> None:
    """After a happening: run every trigger in play that answers it (``body``: a killer body it is about)."""
    if kind not in w.game.listens:
        return
    found = w.found.get(("triggers", kind)) if w.sources is not None else None  # _in_play's kept answer
    triggers = found if found is not None else _in_play(w, "triggers", kind)
    if not triggers:  # none in play (often): no happening to make
        if w.delayed:
            fire_delayed(w, kind)
        return
    ctl = w.ctl
    left = ctl.work - len(triggers)  # the work budget (E313): each trigger looked at
    ctl.work = left
    if left < 0:
        out_of_work(w, None)
    if body >= 0 and piece is None:
        piece = ("killer", w.killers[body].body if body < len(w.killers) else "", body)
    by = w.scope.source if w.game.causes_read else ""
    h = Happening(kind, piece, number, place, cause, extra, by)
    for t in triggers:
        ev = t.event  # _holds, written out: a context only for a match (no call where every one matches)
        if ev.__class__ not in MATCHES_EVERY and not MATCH[ev.__class__](ev, w, h):
            continue
        # _ctx(w, h), written out
        ctx = w.game.trigger_ctx[(kind, number, piece[2] if piece is not None and piece[0] == "killer" else -1, cause,
                                  by)]
        if t.cond is None or _with_it(w, h, condition, w, t.cond, ctx):
            if place < 0:  # _with_it(w, h, run, …), written out: 'it' is the happening's location, if it has one
                run(w, t.body, ctx)
            else:
                scope = w.scope
                saved = scope.it
                scope.it = place
                try:
                    run(w, t.body, ctx)
                finally:
                    scope.it = saved
    if w.delayed:
        fire_delayed(w, kind)


def fire_delayed(w: Work, kind: str) -> None:
    """The blocks kept by ``at start of next PHASE { … }`` for this happening: each resolves once,
    with the ``it`` and ``that`` it was kept with, in the order they were kept."""
    g = w.game
    kinds = g.delayed_kinds
    due = [d for d in w.delayed if kinds[d[0]] == kind]  # kept before this happening: the ones it answers
    scope = w.scope
    for d in due:
        if d not in w.delayed:  # resolved meanwhile (a kept block that set this happening off again)
            continue
        index, it, that = d
        at = w.delayed.index(d)
        w.delayed = w.delayed[:at] + w.delayed[at + 1:]  # once: gone before it resolves
        node = g.delayed[index]
        emit(w, "delayed", f"an effect kept for the {node.edge} of this {node.phase.capitalize()} phase resolves",
             "C1.2")
        saved = scope.it
        scope.it = it
        try:
            run(w, node.body, Ctx(kind, None, that))
        finally:
            scope.it = saved
        if w.result:
            return


def fire_item(w: Work, item: n.Item, how: str) -> None:
    """Run an item's own triggers on an event (``when gained`` runs from the item itself)."""
    for t in item.abilities.triggers:
        if isinstance(t.event, n.OwnEvent) and t.event.how == how:
            run(w, t.body, Ctx(item.id))


def would(w: Work, kind: str, number: int, what: str, piece: Optional[Piece] = None, place: int = -1,
          cause: str = "", extra: Any = "") -> Optional[int]:
    """Before a happening: a replacement in play that answers it resolves instead (None: the event
    does not happen); else the modifications in play change its number (None: prevented)."""
    if kind not in w.game.listens:
        return number
    found = w.found.get(("replacements", kind)) if w.sources is not None else None  # _in_play's kept answer
    replacements = found if found is not None else _in_play(w, "replacements", kind)
    mods = _modifications(w, kind)
    if not replacements and not mods:  # none in play (often): no happening to make
        return number
    ctl = w.ctl
    left = ctl.work - len(replacements) - len(mods)  # the work budget (E313): each one looked at
    ctl.work = left
    if left < 0:
        out_of_work(w, None)
    h = Happening(kind, piece, number, place, cause, extra, w.scope.source if w.game.causes_read else "")
    for rep in replacements:
        if not MATCH[type(rep.event)](rep.event, w, h):  # _holds, written out: a context only for a match
            continue
        ctx = _ctx(w, h)
        if rep.cond is None or _with_it(w, h, condition, w, rep.cond, ctx):
            emit(w, "replace", f"instead of {what}", "C1.2", "replacement")
            _with_it(w, h, run, w, rep.body, ctx)
            return None
    for mod in mods:
        if not MATCH[type(mod.event)](mod.event, w, h):
            continue
        ctx = _ctx(w, h)
        if mod.cond is not None and not _with_it(w, h, condition, w, mod.cond, ctx):
            continue
        scope = w.scope
        outer, scope.node = scope.node, mod
        if mod.how == "prevent":
            emit(w, "modify", f"{what} is prevented", "C1.2")
            scope.node = outer
            return None
        k = _with_it(w, h, amount, w, mod.n, ctx)
        new = {"reduce": max(0, h.number - k), "increase": h.number + k, "at-most": min(h.number, k),
               "at-least": max(h.number, k)}[mod.how]
        if new != h.number:
            emit(w, "modify", f"{what}: {h.number} becomes {new}", "C1.2")
            h.number = new
        scope.node = outer
    return h.number
