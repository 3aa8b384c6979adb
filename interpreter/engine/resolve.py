"""Resolving content: one dispatch for every node family.

Each family of content nodes (dsl/nodes.py) has one table here, filled with the functions
found by name in the module of that family: ``exec_<snake>`` in effects.py (what an effect
does), ``eval_<snake>`` in conditions.py (whether a condition holds), ``amount_<snake>`` in
amounts.py (what an amount comes to) and ``place_<snake>`` in places.py (which location a
place picks). Rules modules resolve content through ``run``, ``condition``, ``amount`` and
``loc`` only, so no module needs another to know a node kind.

``run`` also bounds how deep effects may set each other off (E310), counts each block and effect
against the work budget between two decisions (E313; docs/decisions/0022), names the content line
being resolved (events take it as their source) and, while coverage is being recorded
(``recording``), notes every effect it resolves.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

from lastbreath.dsl import nodes as n
from lastbreath.dsl.diagnostics import runtime_error

from .bodies import the_killer
from .ending import settle
from .tables import AMOUNT, EVAL, EXEC, NO_CTX, PLACE, Ctx
from .working import out_of_work

if TYPE_CHECKING:
    from .working import Work

MAX_EFFECT_DEPTH = 60  # effects resolving inside effects; deeper means content that feeds itself

# --- coverage: the one switch, owned here -------------------------------------------------------
_coverage: Optional[set[Any]] = None


@contextmanager
def recording() -> Iterator[set[Any]]:
    """Record the span of every effect resolved and every outcome picked, for the block."""
    global _coverage
    previous = _coverage
    got: set[Any] = set()
    _coverage = got
    try:
        yield got
    finally:
        _coverage = previous


def cover(span: Any) -> None:
    """Note that a piece of content was reached (an outcome picked), if coverage is recorded."""
    if _coverage is not None:
        _coverage.add(span)


def recorded() -> Optional[set[Any]]:
    """The set coverage is recorded into, or None."""
    return _coverage


# --- effects ----------------------------------------------------------------------------------
def run(w: Work, effects: Sequence[n.Effect], ctx: Ctx) -> None:
    """Resolve effects top to bottom; events they cause name the effect's file:line:col as source."""
    scope = w.scope
    outer = scope.node
    scope.depth += 1
    if scope.depth > MAX_EFFECT_DEPTH:  # content whose effects set each other off without end
        sp = getattr(effects[0], "span", None) if effects else None
        raise runtime_error("E310", f"effects set each other off more than {MAX_EFFECT_DEPTH} deep",
                            "a rule that triggers itself?", sp)
    ctl = w.ctl
    ctl.last = effects  # E311 names the last content resolved
    left = ctl.work - 1 - len(effects)  # the work budget (E313): the block and each of its effects
    ctl.work = left
    if left < 0:
        out_of_work(w, getattr(effects[0], "span", None) if effects else None)
    reads_cause = w.game.causes_read
    outer_source = ""
    if reads_cause:  # the source of these effects, for 'the cause is …' of what they make happen
        outer_source = scope.source
        scope.source = ctx.by or ctx.source
    table = EXEC
    if _coverage is None:
        for e in effects:
            scope.node = e
            table[type(e)](w, e, ctx)
    else:
        for e in effects:
            scope.node = e
            _coverage.add(e.span)
            table[type(e)](w, e, ctx)
    scope.node = outer
    scope.depth -= 1
    if reads_cause:
        scope.source = outer_source
    if scope.defeat and not scope.depth:  # C13.2: the outermost resolution is over
        settle(w)


# --- conditions, amounts, places ----------------------------------------------------------------
def condition(w: Work, c: n.Condition, ctx: Ctx) -> bool:
    """Whether a condition holds now."""
    return EVAL[type(c)](w, c, ctx)


def amount(w: Work, a: n.Num, ctx: Ctx) -> int:
    """What an amount comes to now (a number is itself)."""
    if a.__class__ is int:
        return a
    return AMOUNT[type(a)](w, a, ctx)


def loc(w: Work, name: n.Loc, ctx: Optional[Ctx] = None) -> int:
    """The location (board index) a location slot names now; -1 for none."""
    if name.__class__ is not str:
        return PLACE[type(name)](w, name, ctx or NO_CTX)
    if name == "here":  # her location, or the place a card drawn at one resolves at (Ctx.here)
        return w.fg_loc if ctx is None or ctx.here < 0 else ctx.here
    if name == "fg":
        return w.fg_loc
    if name == "killer-location":
        i = the_killer(w)
        return w.killers[i].loc if i >= 0 else -1
    if name == "killer-start":
        return w.game.setup_killer.get(w.setup_card, -1)
    if name == "it":
        return w.scope.it
    return w.game.board.index.get(name, -1)
