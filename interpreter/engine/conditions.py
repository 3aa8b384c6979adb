"""Conditions: whether a condition holds now (``if``, ``win when``, actions, links).

One function per condition node, ``eval_<snake_case_class_name>``, found by name
(``resolve.condition``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n

from .killers import the_killer
from .resolve import EVAL, Ctx, condition, loc
from .statics import mode_active

if TYPE_CHECKING:
    from .continuation import Work


def _compare(value: int, c: n.Compare | n.VictimsLeft | n.KillerHealth | n.PiecesCount) -> bool:
    """An "at least N" / "at most N" condition on a value."""
    return value >= c.n if c.op == "at-least" else value <= c.n


def eval_compare(w: Work, c: n.Compare, ctx: Ctx) -> bool:  # fear|time|health|bloodlust at least/at most N
    v = {"fear": w.fear, "time": w.time, "health": w.fg_health, "bloodlust": w.bloodlust + 1}[c.quantity]
    return _compare(v, c)


def eval_fg_at(w: Work, c: n.FgAt, ctx: Ctx) -> bool:  # fg at LOC
    return w.fg_loc == loc(w, c.loc)


def eval_fg_at_tag(w: Work, c: n.FgAtTag, ctx: Ctx) -> bool:  # fg at tag TAG
    return c.tag in w.game.board.tags[w.fg_loc]


def eval_victims_at(w: Work, c: n.VictimsAt, ctx: Ctx) -> bool:  # victims at LOC
    where = loc(w, c.loc)
    return where >= 0 and w.victims[where] > 0


def eval_killer_at(w: Work, c: n.KillerAt, ctx: Ctx) -> bool:  # killer at LOC
    where = loc(w, c.loc)
    return any(k.alive and k.loc == where for k in w.killers)


def eval_flag_set(w: Work, c: n.FlagSet, ctx: Ctx) -> bool:  # flag NAME
    return c.flag in w.flags


def eval_in_mode(w: Work, c: n.InMode, ctx: Ctx) -> bool:  # mode NAME
    return mode_active(w, c.mode)


def eval_has_item(w: Work, c: n.HasItem, ctx: Ctx) -> bool:  # has item ID
    return any(h.id == c.item for h in (*w.held, *w.pack))


def eval_token_at(w: Work, c: n.TokenAt, ctx: Ctx) -> bool:  # token TOKEN at LOC
    where = loc(w, c.loc)
    return any(tok == c.token and at == where for tok, _k, at in w.tokens)


def eval_collected_at_least(w: Work, c: n.CollectedAtLeast, ctx: Ctx) -> bool:  # collected TOKEN at least N
    return sum(1 for tok, _k in w.collected if tok == c.token) >= c.n


def eval_spent_at_least(w: Work, c: n.SpentAtLeast, ctx: Ctx) -> bool:  # spent at least N
    return len(ctx.spent) >= c.n


def eval_spent_covers(w: Work, c: n.SpentCovers, ctx: Ctx) -> bool:  # spent covers KIND …
    return covers(w, ctx.spent, c.kinds, ctx.spent_token)


def eval_killer_health(w: Work, c: n.KillerHealth, ctx: Ctx) -> bool:  # killer health at least/at most N
    i = the_killer(w)
    return i >= 0 and _compare(w.killers[i].health, c)


def eval_pieces_count(w: Work, c: n.PiecesCount, ctx: Ctx) -> bool:  # enemies|killers|exits at least/at most N
    if c.what == "exits":
        v = len(w.game.board.exits)
    else:
        v = sum(1 for k in w.killers if k.alive and k.loc >= 0)
        if c.what == "enemies":
            v += sum(1 for m in w.minions if m.loc >= 0)
    return _compare(v, c)


def eval_victims_left(w: Work, c: n.VictimsLeft, ctx: Ctx) -> bool:  # victims left at least/at most N
    return _compare(sum(w.victims), c)


def eval_minions_at(w: Work, c: n.MinionsAt, ctx: Ctx) -> bool:  # minions at LOC
    where = loc(w, c.loc)
    return any(m.loc == where for m in w.minions)


def eval_not(w: Work, c: n.Not, ctx: Ctx) -> bool:  # not CONDITION
    return not condition(w, c.cond, ctx)


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
