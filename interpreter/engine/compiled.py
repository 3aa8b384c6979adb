"""Conditions and amounts compiled into closures, for the places that read the same ones again and
again (the win and lose lines after every step, the Action menu's conditions at every decision).

``compile_condition(c)`` gives a function ``f(w, ctx) -> bool`` that answers exactly what
``resolve.condition(w, c, ctx)`` answers, and ``compile_amount(a)`` one that gives what
``resolve.amount`` gives. A form with a compiler here becomes one closure over its parts, already
compiled (no lookup of the node's evaluator, no walk down the node at each reading); every other
form calls its evaluator, so a form added to the language works here at once, compiled or not.
Amounts call their evaluators, except a whole-board count, which calls its entry of
``amounts.BOARD_COUNTS`` (the evaluator's own table) directly.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

from lastbreath.dsl import nodes as n

from .amounts import BOARD_COUNTS, BOARD_READS
from .copies import in_zone
from .tables import AMOUNT, EVAL, Ctx

if TYPE_CHECKING:
    from .working import Work

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
    if a.__class__ is n.Count and not a.where:  # over the whole board: the count itself, at once
        whole = BOARD_COUNTS.get(a.what)
        if whole is not None:
            kind = a.kind
            return lambda w, ctx: whole(w, kind)
    ev = AMOUNT[type(a)]
    return lambda w, ctx: ev(w, a, ctx)


def reads_of(c: n.Condition | n.Num) -> tuple[str, ...] | None:
    """The fields of the state a condition or amount reads, when they are known (comparisons,
    all/any/not of known parts, numbers, whole-board counts); None when they are not (it may read
    anything)."""
    if isinstance(c, int):
        return ()
    if isinstance(c, n.Count):
        return BOARD_READS.get(c.what) if not c.where else None
    parts: tuple[Any, ...]
    if isinstance(c, n.Compare):
        parts = (c.left, c.right)
    elif isinstance(c, (n.AllOf, n.AnyOf)):
        parts = tuple(c.conds)
    elif isinstance(c, n.Not):
        parts = (c.cond,)
    else:
        return None
    out: list[str] = []
    for p in parts:
        got = reads_of(p)
        if got is None:
            return None
        out.extend(f for f in got if f not in out)
    return tuple(out)


def compile_optional(c: n.Condition | None) -> CondFn | None:
    """``compile_condition`` for a slot that may be empty (None: no condition, always holds)."""
    return None if c is None else compile_condition(c)


# --- conditions ---------------------------------------------------------------------------------
def _compare(c: n.Compare) -> CondFn:
    a, right, op = c.left, c.right, _OPS[c.op]
    if right.__class__ is int:  # the usual shape: a count against a number (its reading folded in)
        k = right
        if a.__class__ is n.Count and not a.where:
            whole = BOARD_COUNTS.get(a.what)
            if whole is not None:
                kind = a.kind
                return lambda w, ctx: op(whole(w, kind), k)
        if a.__class__ is not int:
            ev = AMOUNT[type(a)]
            return lambda w, ctx: op(ev(w, a, ctx), k)
    left = compile_amount(a)
    if right.__class__ is int:
        k = right
        return lambda w, ctx: op(left(w, ctx), k)
    r = compile_amount(right)
    return lambda w, ctx: op(left(w, ctx), r(w, ctx))


def _all_of(c: n.AllOf) -> CondFn:
    parts = tuple(compile_condition(x) for x in c.conds)
    if len(parts) == 2:  # the usual shape ('all { fg at …; item … on table }'): no generator
        a, b = parts
        return lambda w, ctx: a(w, ctx) and b(w, ctx)
    return lambda w, ctx: all(p(w, ctx) for p in parts)


def _any_of(c: n.AnyOf) -> CondFn:
    parts = tuple(compile_condition(x) for x in c.conds)
    if len(parts) == 2:
        a, b = parts
        return lambda w, ctx: a(w, ctx) or b(w, ctx)
    return lambda w, ctx: any(p(w, ctx) for p in parts)


def _not(c: n.Not) -> CondFn:
    inner = compile_condition(c.cond)
    return lambda w, ctx: not inner(w, ctx)


def _fg_at_tag(c: n.FgAtTag) -> CondFn:  # read by the Action menu's conditions at every decision
    tag = c.tag
    return lambda w, ctx: tag in w.game.board.tags[w.fg_loc]


def _token_at(c: n.TokenAt) -> CondFn:  # read by the Action menu's conditions at every decision
    token = c.token
    if (c.loc == "here" or c.loc == "fg") and not c.kind and not c.face:  # her location, read without the call
        hers = c.loc == "fg"  # ('here' in a card drawn at a place: that place, Ctx.here)

        def holds(w: Work, ctx: Ctx) -> bool:
            where = w.fg_loc if hers or ctx.here < 0 else ctx.here
            for tok, _k, at in w.tokens:
                if at == where and tok == token:
                    return True
            if w.tokens_down:  # face down there (issue #33 item 4)
                for tok, _k, at in w.tokens_down:
                    if at == where and tok == token:
                        return True
            return False

        return holds
    ev = EVAL[n.TokenAt]
    return lambda w, ctx: ev(w, c, ctx)


def _item_in(c: n.ItemIn) -> CondFn:
    item = c.item  # a card of an item whose cards carry tokens apart lies there as 'ID#N' (engine/copies.py)
    if c.zone == "table":
        return lambda w, ctx: item in w.table or (item in w.game.copy_items and in_zone(w, item, w.table))
    return lambda w, ctx: item in w.aside or (item in w.game.copy_items and in_zone(w, item, w.aside))


_COND: dict[type, Callable[[Any], CondFn]] = {n.Compare: _compare, n.AllOf: _all_of, n.AnyOf: _any_of,
                                               n.Not: _not, n.FgAtTag: _fg_at_tag, n.ItemIn: _item_in,
                                               n.TokenAt: _token_at}
