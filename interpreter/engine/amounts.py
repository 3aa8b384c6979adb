"""Amounts: what a number worked out as its effect resolves comes to (grammar: amount).

One function per amount node, ``amount_<snake_case_class_name>``, found by name; a plain number
is itself (``resolve.amount``). Counts and subtractions are never below 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from lastbreath.dsl import nodes as n

from ..board import INF
from .bodies import ctx_body, the_killer
from .index import bodies_on_board, minions_on_board
from .places import exits_now, is_exit
from .resolve import amount, loc
from .statics import fg_tables
from .tables import AMOUNT, Ctx

if TYPE_CHECKING:
    from .working import Work


def amount_that(w: Work, a: n.That, ctx: Ctx) -> int:  # that: the number of the event being answered
    return ctx.that


def amount_level_stat(w: Work, a: n.LevelStat, ctx: Ctx) -> int:  # bloodlust STAT: a number the level prints
    level = w.game.levels[w.bloodlust]
    if a.stat == "move":
        return level.move
    if a.stat == "damage":
        return level.damage
    for name, v in level.stats:
        if name == a.stat:
            return v
    return 0


def amount_quantity(w: Work, a: n.Quantity, ctx: Ctx) -> int:  # fear | time | health | bloodlust | killer health
    what = a.what
    if what == "fear":
        return w.fear
    if what == "time":
        return w.time
    if what == "health":
        return w.fg_health
    if what == "bloodlust":
        return w.bloodlust + 1
    i = ctx_body(w, ctx)
    if i < 0:
        i = the_killer(w)
    return w.killers[i].health if i >= 0 else 0


def _minions_whole(w: Work, kind: str) -> int:
    if kind and kind in w.game.victim_kinds:  # count KIND of a victim kind (issue #16 item 3)
        return sum(1 for m in w.marked if m.kind == kind)
    return minions_on_board(w, kind)


# the fields of the state each whole-board count reads (engine/compiled.py: a win or lose line
# whose fields are all unchanged since it was last read is not read again)
BOARD_READS: dict[str, tuple[str, ...]] = {
    "victims": ("victims",), "dead": ("dead",), "rescued": ("rescued",), "minions": ("marked", "minions"),
    "minion": ("marked", "minions"), "killers": ("killers",), "enemies": ("killers", "minions"),
    "tokens": ("tokens",), "collected": ("collected",)}


def _enemies_whole(w: Work, kind: str) -> int:
    """The killer bodies and the minions on the board (the minions counted here, not by building
    their index: a crowd's win line reads this whenever the minions tuple changed)."""
    k = bodies_on_board(w)
    for m in w.minions:
        if m.loc >= 0:
            k += 1
    return k


def _tokens_whole(w: Work, kind: str) -> int:
    k = 0
    for tok, _k, _at in w.tokens:  # (a loop: a generator is a call of its own)
        if tok == kind:
            k += 1
    if w.tokens_down:  # face down on the board (issue #33 item 4)
        for tok, _k, _at in w.tokens_down:
            if tok == kind:
                k += 1
    return k


def _collected_whole(w: Work, kind: str) -> int:
    k = 0
    for tok, _k in w.collected:
        if tok == kind:
            k += 1
    return k

# count WHAT over the whole board, by WHAT, from the kind it names (engine/compiled.py reads it too)
BOARD_COUNTS: dict[str, Callable[[Work, str], int]] = {
    "victims": lambda w, kind: sum(w.victims),
    "dead": lambda w, kind: w.dead,
    "rescued": lambda w, kind: w.rescued,
    "minions": _minions_whole,
    "minion": _minions_whole,
    "tokens": _tokens_whole,
    "collected": _collected_whole,
    "killers": bodies_on_board,
    "enemies": _enemies_whole,
}


def amount_count(w: Work, a: n.Count, ctx: Ctx) -> int:  # count WHAT [at PLACE]
    what = a.what
    if not a.where:
        whole = BOARD_COUNTS.get(what)
        if whole is not None:
            return whole(w, a.kind)
    place = a.where  # loc(…) without the call for 'it' and her location (counts at a candidate: selectors)
    where = -2 if not place else w.scope.it if place == "it" else w.fg_loc if place == "fg" or (
        place == "here" and ctx.here < 0) else loc(w, place, ctx)  # -2: the whole board
    if what == "victims":
        return w.victims[where] if where >= 0 else 0
    if what == "dead":
        return w.dead
    if what == "rescued":
        return w.rescued
    if what in ("minions", "minion"):
        kind = a.kind
        if kind and kind in w.game.victim_kinds:
            return sum(1 for m in w.marked if m.kind == kind and m.loc == where)
        if where < 0:  # a place that names no location
            return 0
        k = 0
        for m in w.minions:
            if m.loc == where and (not kind or m.kind == kind):
                k += 1
        return k
    if what in ("killers", "enemies"):
        if where < 0:
            return 0
        k = sum(1 for b in w.killers if b.alive and b.loc == where)
        if what == "enemies":
            k += sum(1 for m in w.minions if m.loc == where)
        return k
    if what == "exits":
        return len(exits_now(w)) if where == -2 else int(is_exit(w, where))
    if what == "items":
        return len(w.held) + len(w.pack)
    if what == "spent":
        return len(ctx.spent)
    if what == "tokens":  # (over the whole board: BOARD_COUNTS); face down too (issue #33 item 4)
        return (sum(1 for tok, _k, at in w.tokens if tok == a.kind and at == where)
                + (sum(1 for tok, _k, at in w.tokens_down if tok == a.kind and at == where) if w.tokens_down else 0))
    if what == "collected":  # (not on the board: the place is not read)
        return _collected_whole(w, a.kind)
    if what == "cards":
        return next((len(cards) for d, cards in w.decks if d == a.kind), 0)
    raise AssertionError(what)


def amount_distance(w: Work, a: n.Distance, ctx: Ctx) -> int:  # distance from PLACE to PLACE
    x, y = loc(w, a.a, ctx), loc(w, a.b, ctx)
    if x < 0 or y < 0:
        return 0
    d = fg_tables(w)[1][x][y]
    return d if d < INF else 0


def amount_arith(w: Work, a: n.Arith, ctx: Ctx) -> int:  # A plus B / A minus B (never below 0)
    x, y = amount(w, a.a, ctx), amount(w, a.b, ctx)
    return x + y if a.op == "plus" else max(0, x - y)


def amount_min_max(w: Work, a: n.MinMax, ctx: Ctx) -> int:  # min of A and B / max of A and B
    x, y = amount(w, a.a, ctx), amount(w, a.b, ctx)
    return min(x, y) if a.fn == "min" else max(x, y)


AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))
