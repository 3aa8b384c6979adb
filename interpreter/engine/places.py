"""Places: which location a place in parentheses picks as its effect resolves (grammar: place).

A location slot holds a location id or a special name (``here``/``fg``, ``it``, ``killer-location``,
``killer-start``: ``resolve.loc``) or a selector, picked here by ``place_<snake_case_class_name>``.
A selector takes its set (every location, the exits, the search locations, a tag, those adjacent
to or within N of a place), keeps those holding what it asks for and those its ``where``
condition holds for (``it`` is the candidate), and picks by its picks in turn, each breaking the
ties of the one before; board order last (K6.1, K6.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n

from ..board import INF
from ..state import Option
from .asking import ask
from .draws import rand
from .resolve import amount, condition, loc
from .statics import fg_tables, modified
from .tables import AMOUNT, NO_CTX, PLACE, Ctx
from .working import out_of_work

if TYPE_CHECKING:
    from .working import Work


def _base(w: Work, among: n.Locations, ctx: Ctx) -> list[int]:
    """The locations of a set, in board order."""
    b = w.game.board
    kind = among.kind
    if kind == "exit":
        return exits_now(w)
    if kind == "search":
        return list(b.search_locs)
    if kind == "any":
        return list(range(b.n))
    if kind == "tag":
        return [i for i in range(b.n) if among.tag in b.tags[i]]
    near = loc(w, among.near, ctx)
    if near < 0:
        return []
    dist = fg_tables(w)[1][near]
    reach = 1 if kind == "adjacent" else amount(w, among.n, ctx)
    return [i for i in range(b.n) if i != near and dist[i] <= reach] if kind == "adjacent" else [
        i for i in range(b.n) if dist[i] <= reach]


def is_exit(w: Work, where: int) -> bool:
    """Whether a location is an exit now: marked ``exit``, and its ``while`` condition (if any) holds,
    with ``it`` that location."""
    b = w.game.board
    if where not in b.exits:
        return False
    cond = b.exit_when.get(where)
    if cond is None:
        return True
    scope = w.scope
    saved = scope.it
    scope.it = where
    try:
        return condition(w, cond, NO_CTX)
    finally:
        scope.it = saved


def escape_offered(w: Work, where: int) -> bool:
    """C5.4: whether victims at this location may escape on foot now: it is an exit now, and no
    ``rule victims at PLACE cannot escape`` in force names it (a selector: any of its locations)."""
    if not is_exit(w, where):
        return False
    if "no-escape" not in w.game.rule_queries:
        return True
    for p in modified(w, "no-escape", _NO_PLACES):
        if isinstance(p, n.Selector):
            if where in candidates(w, p, NO_CTX):
                return False
        elif loc(w, p, NO_CTX) == where:
            return False
    return True


_NO_PLACES: tuple[n.Loc, ...] = ()


def exits_now(w: Work) -> list[int]:
    """The exits of the map now, in board order."""
    b = w.game.board
    if not b.exit_when:
        return sorted(b.exits)
    return [i for i in sorted(b.exits) if is_exit(w, i)]


def _holds(w: Work, h: n.Holding, where: int) -> bool:
    what = h.what
    if what == "victims":
        return w.victims[where] > 0
    if what == "minions":
        return any(m.loc == where for m in w.minions)
    if what == "killer":
        return any(k.alive and k.loc == where for k in w.killers)
    if what == "enemies":
        return any(m.loc == where for m in w.minions) or any(k.alive and k.loc == where for k in w.killers)
    return any(tok == h.token and at == where for tok, _k, at in w.tokens) or (
        bool(w.tokens_down) and any(tok == h.token and at == where for tok, _k, at in w.tokens_down))


def candidates(w: Work, sel: n.Selector, ctx: Ctx) -> list[int]:
    """The locations a selector may pick, in board order: its set, less what its ``with``, ``where``
    and ``except`` parts leave out (``for each`` goes over them all)."""
    cands = _base(w, sel.among, ctx)
    ctl = w.ctl
    left = ctl.work - len(cands) - 1  # the work budget (E313): each location looked at
    ctl.work = left
    if left < 0:
        out_of_work(w, sel.span)
    for h in sel.holding:
        cands = [c for c in cands if _holds(w, h, c)]
    if sel.skip:
        skip = loc(w, sel.skip, ctx)
        cands = [c for c in cands if c != skip]
    if sel.where is not None and cands:
        scope = w.scope
        saved = scope.it
        kept = []
        for c in cands:
            scope.it = c
            if condition(w, sel.where, ctx):
                kept.append(c)
        scope.it = saved
        cands = kept
    return cands


def _scores(w: Work, p: n.Pick, cands: list[int], ctx: Ctx) -> list[int]:
    """A pick's number for each candidate, the least best: a distance (the place it is measured
    from read once: ``it`` is not the candidate there) or an amount (``it`` is the candidate)."""
    how = p.how
    out = []
    if how == "nearest" or how == "farthest":
        there = loc(w, p.place, ctx)
        if there < 0:
            return [INF] * len(cands)
        dist = fg_tables(w)[1]
        sign = -1 if how == "farthest" else 1
        for c in cands:
            out.append(sign * dist[c][there])
        return out
    sign = -1 if how == "most" else 1
    scope = w.scope
    saved = scope.it
    a = p.n
    if a.__class__ is int:
        return [sign * a] * len(cands)
    ev = AMOUNT[type(a)]  # amount(…)'s evaluator, read once (one call a candidate, not two)
    for c in cands:
        scope.it = c
        out.append(sign * ev(w, a, ctx))
    scope.it = saved
    return out


def place_selector(w: Work, sel: n.Selector, ctx: Ctx) -> int:
    """The location a selector picks now; -1 if it has none."""
    cands = candidates(w, sel, ctx)
    if not cands:
        return -1
    return pick_among(w, sel, cands, ctx)


def pick_among(w: Work, sel: n.Selector, cands: list[int], ctx: Ctx) -> int:
    """The location the selector's picks take among these candidates (not empty)."""
    for p in sel.picks:
        if len(cands) == 1:
            break
        if p.how == "random":
            cands = [cands[rand(w, len(cands))]]
        elif p.how == "chosen":
            b = w.game.board
            key = ask(w, "place", "Choose a location", [Option(f"place:{b.ids[c]}", b.names[c]) for c in cands])
            cands = [b.index[key[6:]]]
        else:
            scores = _scores(w, p, cands, ctx)
            best = min(scores)
            kept = []
            for c, v in zip(cands, scores):
                if v == best:
                    kept.append(c)
            cands = kept
    return cands[0]


def locations_of(w: Work, sel: n.Selector, ctx: Ctx, count: int = 0) -> list[int]:
    """Every location of a selector, in board order (``for each``); with ``count``, that many
    different ones, each picked by its picks among those left (fewer if it has fewer)."""
    cands = candidates(w, sel, ctx)
    if count <= 0:
        return cands
    out: list[int] = []
    while cands and len(out) < count:
        got = pick_among(w, sel, cands, ctx)
        out.append(got)
        cands = [c for c in cands if c != got]
    return out


PLACE.update(n.functions(n.Place, globals(), "place_"))
