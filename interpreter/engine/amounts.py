"""Amounts: what a number in parentheses comes to when its effect resolves.

One function per amount node, ``amount_<snake_case_class_name>``, found by name; a plain
number is itself (``resolve.amount``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n

from .resolve import AMOUNT, Ctx, loc

if TYPE_CHECKING:
    from .continuation import Work


def amount_that(w: Work, a: n.That, ctx: Ctx) -> int:  # that: the amount of the event replaced
    return ctx.that


def amount_level_stat(w: Work, a: n.LevelStat, ctx: Ctx) -> int:  # (bloodlust NAME): a number the level prints
    for name, v in w.game.levels[w.bloodlust].stats:
        if name == a.stat:
            return v
    return 0


def amount_count(w: Work, a: n.Count, ctx: Ctx) -> int:  # (count victims|minions|dead|rescued at LOC [minus N])
    where = loc(w, a.loc)
    if a.what == "victims":
        v = w.victims[where] if where >= 0 else 0
    elif a.what == "minions":
        v = sum(1 for m in w.minions if m.loc == where)
    elif a.what == "dead":
        v = w.dead
    else:
        v = w.rescued
    return max(0, v - a.minus)


AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))
