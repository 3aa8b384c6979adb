"""Conditions: whether a condition holds now (``if``, ``win when``, ``while``, ``where``, actions,
links; grammar: condition).

One function per condition node, ``eval_<snake_case_class_name>``, found by name
(``resolve.condition``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n

from ..board import INF
from .bodies import body_index, ctx_body, the_killer
from .places import is_exit
from .resolve import amount, condition, loc
from .statics import enemy_tables, fg_tables, mode_active
from .tables import EVAL, Ctx

if TYPE_CHECKING:
    from .working import Work


def eval_all_of(w: Work, c: n.AllOf, ctx: Ctx) -> bool:  # all { … }
    return all(condition(w, x, ctx) for x in c.conds)


def eval_any_of(w: Work, c: n.AnyOf, ctx: Ctx) -> bool:  # any { … }
    return any(condition(w, x, ctx) for x in c.conds)


def eval_not(w: Work, c: n.Not, ctx: Ctx) -> bool:  # not CONDITION
    return not condition(w, c.cond, ctx)


def eval_compare(w: Work, c: n.Compare, ctx: Ctx) -> bool:  # AMOUNT at least|at most|is|more than|less than AMOUNT
    a, b = amount(w, c.left, ctx), amount(w, c.right, ctx)
    op = c.op
    if op == "at-least":
        return a >= b
    if op == "at-most":
        return a <= b
    if op == "is":
        return a == b
    if op == "more-than":
        return a > b
    return a < b


def eval_fg_at(w: Work, c: n.FgAt, ctx: Ctx) -> bool:  # fg at PLACE
    return w.fg_loc == loc(w, c.loc, ctx)


def eval_fg_at_tag(w: Work, c: n.FgAtTag, ctx: Ctx) -> bool:  # fg at tag TAG
    return c.tag in w.game.board.tags[w.fg_loc]


def eval_victims_at(w: Work, c: n.VictimsAt, ctx: Ctx) -> bool:  # victims at PLACE
    where = loc(w, c.loc, ctx)
    return where >= 0 and w.victims[where] > 0


def eval_killer_at(w: Work, c: n.KillerAt, ctx: Ctx) -> bool:  # killer [BODY] at PLACE
    where = loc(w, c.loc, ctx)
    return any(k.alive and k.loc == where and (not c.body or k.body == c.body) for k in w.killers)


def eval_killer_is(w: Work, c: n.KillerIs, ctx: Ctx) -> bool:  # killer [BODY] is on/off the board / active / set aside
    i = body_index(w, c.body) if c.body else (ctx_body(w, ctx) if ctx_body(w, ctx) >= 0 else the_killer(w))
    if i < 0:
        return c.what == "off-board" and not any(k.alive and k.loc >= 0 for k in w.killers)
    k = w.killers[i]
    if c.what == "on-board":
        return k.loc >= 0
    if c.what == "off-board":
        return k.loc < 0
    if c.what == "aside":
        return k.aside
    return i == w.active


def eval_minions_at(w: Work, c: n.MinionsAt, ctx: Ctx) -> bool:  # minions at PLACE
    where = loc(w, c.loc, ctx)
    return any(m.loc == where for m in w.minions)


def eval_token_at(w: Work, c: n.TokenAt, ctx: Ctx) -> bool:  # token TOKEN [KIND | face up|down] at PLACE
    where = loc(w, c.loc, ctx)
    token = c.token
    kind = c.kind  # a kind is read face up only (issue #33 item 4)
    if c.face != "down":
        for tok, k, at in w.tokens:  # (a loop: read by menus at every decision, any() costs more)
            if at == where and tok == token and (not kind or k == kind):
                return True
    if w.tokens_down and not kind and c.face != "up":
        for tok, _k, at in w.tokens_down:
            if at == where and tok == token:
                return True
    return False


def eval_flag_set(w: Work, c: n.FlagSet, ctx: Ctx) -> bool:  # flag NAME
    return c.flag in w.flags


def eval_in_mode(w: Work, c: n.InMode, ctx: Ctx) -> bool:  # mode NAME
    return mode_active(w, c.mode)


def eval_has_item(w: Work, c: n.HasItem, ctx: Ctx) -> bool:  # has item ID
    return any(h.id == c.item for h in (*w.held, *w.pack))


def eval_spent_covers(w: Work, c: n.SpentCovers, ctx: Ctx) -> bool:  # spent covers KIND …
    return covers(w, ctx.spent, c.kinds, ctx.spent_token)


def eval_place_is(w: Work, c: n.PlaceIs, ctx: Ctx) -> bool:  # PLACE is exit|search
    where = loc(w, c.place, ctx)
    b = w.game.board
    return where >= 0 and (is_exit(w, where) if c.kind == "exit" else where in b.pile_of)


def eval_has_tag(w: Work, c: n.HasTag, ctx: Ctx) -> bool:  # PLACE has tag TAG
    where = loc(w, c.place, ctx)
    return where >= 0 and c.tag in w.game.board.tags[where]


def eval_board_has_tag(w: Work, c: n.BoardHasTag, ctx: Ctx) -> bool:  # board has tag TAG (K2.1)
    return bool(w.game.board.with_tag(c.tag))


def eval_same_place(w: Work, c: n.SamePlace, ctx: Ctx) -> bool:  # PLACE is PLACE
    a = loc(w, c.a, ctx)
    return a >= 0 and a == loc(w, c.b, ctx)


def eval_within(w: Work, c: n.Within, ctx: Ctx) -> bool:  # fg|killer within N of PLACE
    where = loc(w, c.place, ctx)
    if where < 0:
        return False
    k = amount(w, c.n, ctx)
    if c.mover == "fg":
        return fg_tables(w)[1][w.fg_loc][where] <= k
    dist = enemy_tables(w)[1][where]
    return any(b.alive and b.loc >= 0 and dist[b.loc] <= k < INF for b in w.killers)


def eval_caused_by(w: Work, c: n.CausedBy, ctx: Ctx) -> bool:  # the cause is card|item|action|event|terror|deck ID
    if c.what == "deck":  # any card of the deck (a card drawn resolves with its own id as the source)
        return bool(ctx.by) and w.game.deck_of_card.get(ctx.by) == c.id
    return ctx.by == c.id


def eval_cause_is(w: Work, c: n.CauseIs, ctx: Ctx) -> bool:  # the cause is a kill | the killer | a minion | …
    cause = ctx.cause
    if c.cause == "kill":
        return cause in ("killer", "minion", "kill")
    return cause == c.cause


def covers(w: Work, spent: tuple[str, ...], kinds: tuple[str, ...], token: str) -> bool:
    """Can the spent kinds be matched one-to-one to the listed kinds, the token's wild kind standing in for any?"""
    wild = w.game.tokens[token].wild if token in w.game.tokens else ""
    pool = list(spent)
    for k in kinds:
        if k in pool:
            pool.remove(k)
        elif wild and wild in pool:
            pool.remove(wild)
        else:
            return False
    return True


EVAL.update(n.functions(n.Condition, globals(), "eval_"))
