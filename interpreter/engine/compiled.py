"""Conditions and amounts compiled into closures, for the places that read the same ones again and
again (the win and lose lines after every step, a rule's ``while`` at every question).

``compile_condition(c)`` gives a function ``f(w, ctx) -> bool`` that answers exactly what
``resolve.condition(w, c, ctx)`` answers, and ``compile_amount(a)`` one that gives what
``resolve.amount`` gives. A form with a compiler here becomes one closure over its parts, already
compiled (no lookup of the node's evaluator, no walk down the node at each reading); every other
form calls its evaluator, so a form added to the language works here at once, compiled or not.

The counts of pieces on the board are read from an index built once per pieces tuple (the state
rebinds the tuple when a piece changes), not by a scan at each reading.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

from lastbreath.dsl import nodes as n

from .resolve import AMOUNT, EVAL, Ctx

if TYPE_CHECKING:
    from .continuation import Work

CondFn = Callable[["Work", Ctx], bool]
AmountFn = Callable[["Work", Ctx], int]

_OPS: dict[str, Callable[[int, int], bool]] = {
    "at-least": operator.ge, "at-most": operator.le, "is": operator.eq,
    "more-than": operator.gt, "less-than": operator.lt}


def compile_condition(c: n.Condition) -> CondFn:
    """A function of (work, ctx) answering whether ``c`` holds, as ``resolve.condition`` does."""
    make = _COND.get(type(c))
    if make is not None:
        return make(c)
    ev = EVAL[type(c)]
    return lambda w, ctx: ev(w, c, ctx)


def compile_amount(a: n.Num) -> AmountFn:
    """A function of (work, ctx) giving what ``a`` comes to, as ``resolve.amount`` does."""
    if a.__class__ is int:
        return lambda w, ctx: a
    make = _AMOUNT.get(type(a))
    if make is not None:
        got = make(a)
        if got is not None:
            return got
    ev = AMOUNT[type(a)]
    return lambda w, ctx: ev(w, a, ctx)


# --- conditions ---------------------------------------------------------------------------------
def _compare(c: n.Compare) -> CondFn:
    left, right, op = compile_amount(c.left), c.right, _OPS[c.op]
    if right.__class__ is int:  # the usual shape: a count against a number
        k = right
        return lambda w, ctx: op(left(w, ctx), k)
    r = compile_amount(right)
    return lambda w, ctx: op(left(w, ctx), r(w, ctx))


def _all_of(c: n.AllOf) -> CondFn:
    parts = tuple(compile_condition(x) for x in c.conds)
    return lambda w, ctx: all(p(w, ctx) for p in parts)


def _any_of(c: n.AnyOf) -> CondFn:
    parts = tuple(compile_condition(x) for x in c.conds)
    return lambda w, ctx: any(p(w, ctx) for p in parts)


def _not(c: n.Not) -> CondFn:
    inner = compile_condition(c.cond)
    return lambda w, ctx: not inner(w, ctx)


_COND: dict[type, Callable[[Any], CondFn]] = {n.Compare: _compare, n.AllOf: _all_of, n.AnyOf: _any_of,
                                               n.Not: _not}


# --- amounts ------------------------------------------------------------------------------------
def _count(a: n.Count) -> Any:
    """``count WHAT`` over the whole board, for the pieces and numbers the state keeps; other counts
    (at a place, of a victim kind, of tokens, …) use the evaluator (None here)."""
    if a.where:
        return None
    what, kind = a.what, a.kind
    if what == "victims":
        return lambda w, ctx: sum(w.victims)
    if what == "dead":
        return lambda w, ctx: w.dead
    if what == "rescued":
        return lambda w, ctx: w.rescued
    if what in ("minions", "minion"):
        if not kind:
            return lambda w, ctx: minions_on_board(w)
        return lambda w, ctx: (_marked_of_kind(w, kind) if kind in w.game.victim_kinds
                               else minions_on_board(w, kind))
    if what == "killers":
        return lambda w, ctx: bodies_on_board(w)
    if what == "enemies":
        return lambda w, ctx: bodies_on_board(w) + minions_on_board(w)
    return None


def _marked_of_kind(w: Work, kind: str) -> int:
    return sum(1 for m in w.marked if m.kind == kind)


_AMOUNT: dict[type, Callable[[Any], Any]] = {n.Count: _count}


# --- counts of pieces on the board, once per tuple ----------------------------------------------
def minions_on_board(w: Work, kind: str = "") -> int:
    """How many minions (of ``kind``, or of every kind) stand on the board."""
    ms = w.minions
    if not ms:
        return 0
    memo = w.game.minion_counts
    if memo[0] is not ms:
        by_kind: dict[str, int] = {}
        on = 0
        for m in ms:
            if m.loc >= 0:
                on += 1
                by_kind[m.kind] = by_kind.get(m.kind, 0) + 1
        memo = w.game.minion_counts = (ms, on, by_kind)  # one assignment: another thread sees old or new
    return memo[2].get(kind, 0) if kind else memo[1]


def bodies_on_board(w: Work) -> int:
    """How many killer bodies, not defeated, stand on the board."""
    ks = w.killers
    memo = w.game.body_counts
    if memo[0] is not ks:
        memo = w.game.body_counts = (ks, sum(1 for b in ks if b.alive and b.loc >= 0))
    return memo[1]
