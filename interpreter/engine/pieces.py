"""Victim kinds and statuses on every piece (issue #16 items 3-4; K2.1, K2.4, K2.6, K2.7, S2.6).

The effects, conditions and amounts of the language that turn victims into a kind and back,
replace a victim by a killer body, reveal hidden kinds, go over pieces (``for each victim at tag T
where … { … }``, ``it`` the piece), give and clear statuses on any piece (the Final Girl, victims,
minions, killer bodies), hurt and kill pieces. Victims themselves (plain counts and the marked
ones) are victims.py; tokens on pieces and cards are holders.py.

A piece, as ``it`` holds it (``Scope.piece``): (fg, 0, -1), (victim, uid, location) with uid 0
for a plain victim, (minion, uid, index), (killer, index, -1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from lastbreath.dsl import nodes as n

from ..state import MinionState
from .bloodlust import kill_victim
from .bodies import body_index, body_name, piece_status, the_killer
from .conveyances import conveyance_at
from .draws import rand
from .final_girl import fg_damage
from .index import minion_of_uid
from .killers import appear, damage_killer, defeat_killer, update_piece
from .resolve import amount, condition, loc, run
from .tables import AMOUNT, EVAL, EXEC, Ctx
from .telling import emit
from .triggers import fire
from .victims import NONE, add, change, describe, find, kind_of, marks_at, pick, plain_at, take
from .words import a_or_an, loc_name
from .working import out_of_work

if TYPE_CHECKING:
    from ..state import MarkedVictim
    from .working import Work

PieceRef = tuple[str, int, int]
FG_PIECE: PieceRef = ("fg", 0, -1)


# --- victims of a kind (K2.1, K2.4, K2.6, K2.7) ------------------------------------------------------
def _no_kind(m: Optional[MarkedVictim]) -> bool:
    return m is None or not m.kind


def turn_victims(w: Work, where: int, k: int, kind: str) -> None:
    """``turn N victims at PLACE into KIND``: victims of no kind there become victims of a kind
    (K2.1), or minions of a kind (K5.5: not a death; past the minion's limit the change is ignored).
    Among victims she can tell apart she picks which."""
    g = w.game
    for _ in range(k):
        if where < 0 or w.victims[where] <= 0:
            return
        if kind not in g.victim_kinds and sum(1 for x in w.minions if x.kind == kind) >= g.minions[kind].limit:
            emit(w, "minion", f"no {g.minions[kind].name} token is left: the change is ignored", "C15.1")
            return
        m = pick(w, where, "Which victim turns?", "victim-turns", eligible=_no_kind)
        if m is NONE:
            return
        _turn_one(w, where, m, kind)


def _turn_one(w: Work, where: int, m: Optional[MarkedVictim], kind: str) -> None:
    g = w.game
    before = describe(w, m)
    if kind in g.victim_kinds:
        new = change(w, where, m, kind=kind)
        if g.victim_kinds[kind].hidden and not new.revealed:
            emit(w, "kind", f"{before} at {loc_name(w, where)} takes a hidden kind", "K2.1")
        else:
            emit(w, "kind", f"{before} at {loc_name(w, where)} becomes {describe(w, new)}", "K2.1")
        return
    stats = g.minions[kind]
    take(w, where, m)
    w.victims_in -= 1
    w.minion_seq += 1
    w.minions = w.minions + (MinionState(stats.id, where, stats.health, frozenset(), w.minion_seq),)
    emit(w, "minion", f"{before} at {loc_name(w, where)} turns into {a_or_an(stats.name)} {stats.name} (not a death)",
         "C15.1", data=(-1,))


def turn_back(w: Work, where: int, k: int, kind: str) -> None:
    """``turn N KIND at PLACE into victims``: victims of a kind there become victims of no kind (K2.6:
    a victim of a kind found safe), keeping their statuses; or minions of a kind become victims."""
    g = w.game
    for _ in range(k):
        if where < 0:
            return
        if kind in g.victim_kinds:
            m = pick(w, where, "Which victim turns back?", "victim-turns", eligible=lambda x: x is not None
                     and x.kind == kind)
            if m is NONE or m is None:
                return
            before = describe(w, m)
            change(w, where, m, kind="", revealed=False)
            emit(w, "kind", f"{before} at {loc_name(w, where)} is a victim of no kind again", "K2.6")
            continue
        idx = next((i for i, x in enumerate(w.minions) if x.kind == kind and x.loc == where), -1)
        if idx < 0:
            return
        w.minions = w.minions[:idx] + w.minions[idx + 1:]
        add(w, where)
        w.victims_in += 1
        emit(w, "minion", f"a {g.minions[kind].name} at {loc_name(w, where)} becomes a victim again", "C1.2",
             data=(1,))


def exec_turn_random_victims(w: Work, e: n.TurnRandomVictims, ctx: Ctx) -> None:
    # turn N random victims into KIND
    g = w.game
    for _ in range(amount(w, e.n, ctx)):
        if e.kind not in g.victim_kinds and sum(1 for x in w.minions if x.kind == e.kind) >= g.minions[e.kind].limit:
            emit(w, "minion", f"no {g.minions[e.kind].name} token is left: the change is ignored", "C15.1")
            return
        pool: list[tuple[int, Optional[MarkedVictim]]] = []  # every victim of no kind, in board order
        for where, count in enumerate(w.victims):
            if count:
                marks = marks_at(w, where)
                pool.extend([(where, None)] * (count - len(marks)))
                pool.extend((where, m) for m in marks if not m.kind)
        if not pool:
            return
        where, m = pool[rand(w, len(pool))]
        _turn_one(w, where, m, e.kind)


def exec_replace_victim(w: Work, e: n.ReplaceVictim, ctx: Ctx) -> None:
    # replace KIND at PLACE with a killer / with killer BODY
    where = loc(w, e.loc, ctx)
    if where < 0:
        return
    if e.body:
        i = body_index(w, e.body)
    else:
        i = next((j for j, k in enumerate(w.killers) if k.alive and k.loc < 0), -1)
    m = pick(w, where, "Which victim is replaced?", "victim-turns",
             eligible=lambda x: x is not None and x.kind == e.kind)
    if m is NONE or m is None or i < 0:
        return
    name = describe(w, m)
    take(w, where, m)
    w.victims_in -= 1
    emit(w, "victim-leaves", f"{name} at {loc_name(w, where)} leaves the board: {body_name(w, i)} stands in its place",
         "K2.7", data=(-1,))
    appear(w, i, where, "K2.7")


def exec_reveal_victims(w: Work, e: n.RevealVictims, ctx: Ctx) -> None:  # reveal victims at PLACE
    where = loc(w, e.loc, ctx)
    for m in marks_at(w, where):
        k = kind_of(w, m)
        if k is not None and k.hidden and not m.revealed:
            new = change(w, where, m, revealed=True)
            emit(w, "kind", f"a victim at {loc_name(w, where)} is revealed: {describe(w, new)}", "C1.2")


def eval_kind_at(w: Work, c: n.KindAt, ctx: Ctx) -> bool:  # KIND at PLACE (a conveyance: ID at PLACE)
    where = loc(w, c.loc, ctx)
    if c.kind in w.game.conveyance_index:
        return conveyance_at(w, c.kind, where)
    if c.kind in w.game.victim_kinds:
        return any(m.loc == where and m.kind == c.kind for m in w.marked)
    return any(m.loc == where and m.kind == c.kind for m in w.minions)


def count_kind(w: Work, kind: str, where: int) -> int:
    """``count KIND [at PLACE]`` for a victim kind (``where`` -2: the whole board)."""
    return sum(1 for m in w.marked if m.kind == kind and (where == -2 or m.loc == where))


# --- pieces: which, where, their statuses ----------------------------------------------------------
def pieces_of(w: Work, ps: n.PieceSet, ctx: Ctx) -> list[PieceRef]:
    """The pieces of a set now, in order: the Final Girl, victims (by location; plain ones, then the
    others by uid), minions, killer bodies on the board. Its ``where`` is not read here."""
    what = ps.what
    if what == "it":
        p = w.scope.piece
        return [p] if p is not None else []
    out: list[PieceRef] = []
    if what in ("fg", "pieces") and w.fg_breath > 0:
        out.append(FG_PIECE)
    if what in ("victims", "pieces"):
        for where, count in enumerate(w.victims):
            if count:
                marks = marks_at(w, where)
                out.extend([("victim", 0, where)] * (count - len(marks)))
                out.extend(("victim", m.uid, where) for m in sorted(marks, key=lambda m: m.uid))
    if what in ("minions", "enemies", "pieces"):
        out.extend(("minion", m.uid, i) for i, m in enumerate(w.minions) if m.loc >= 0)
    if what in ("killers", "enemies", "pieces"):
        out.extend(("killer", i, -1) for i, k in enumerate(w.killers) if k.alive and k.loc >= 0)
    if ps.loc or ps.tag:
        there = loc(w, ps.loc, ctx) if ps.loc else -1
        tags = w.game.board.tags
        out = [p for p in out if (at := piece_loc(w, p)) >= 0 and (at == there if ps.loc else ps.tag in tags[at])]
    ctl = w.ctl
    left = ctl.work - len(out) - 1  # the work budget (E313): each piece gone over
    ctl.work = left
    if left < 0:
        out_of_work(w, ps.span)
    return out


def _minion_index(w: Work, p: PieceRef) -> int:
    uid, i = p[1], p[2]
    if uid:
        return minion_of_uid(w, uid)
    return i if 0 <= i < len(w.minions) else -1


def present(w: Work, p: PieceRef) -> bool:
    """Whether a piece is still in play (it may have died, or been turned, since the set was read)."""
    kind = p[0]
    if kind == "fg":
        return w.fg_breath > 0
    if kind == "victim":
        return find(w, p[1]) is not None if p[1] else plain_at(w, p[2]) > 0
    if kind == "minion":
        return _minion_index(w, p) >= 0
    return 0 <= p[1] < len(w.killers) and w.killers[p[1]].alive and w.killers[p[1]].loc >= 0


def piece_loc(w: Work, p: PieceRef) -> int:
    kind = p[0]
    if kind == "fg":
        return w.fg_loc
    if kind == "victim":
        if p[1]:
            m = find(w, p[1])
            return m.loc if m is not None else -1
        return p[2]
    if kind == "minion":
        i = _minion_index(w, p)
        return w.minions[i].loc if i >= 0 else -1
    return w.killers[p[1]].loc if 0 <= p[1] < len(w.killers) else -1


def statuses(w: Work, p: PieceRef) -> frozenset[str]:
    kind = p[0]
    if kind == "fg":
        return w.fg_status
    if kind == "victim":
        m = find(w, p[1]) if p[1] else None
        return m.status if m is not None else frozenset()
    if kind == "minion":
        i = _minion_index(w, p)
        return w.minions[i].status if i >= 0 else frozenset()
    return piece_status(w, ("killer", p[1])) if 0 <= p[1] < len(w.killers) else frozenset()


def _name(w: Work, p: PieceRef) -> str:
    kind = p[0]
    if kind == "fg":
        return "the Final Girl"
    if kind == "victim":
        return describe(w, find(w, p[1]) if p[1] else None)
    if kind == "minion":
        i = _minion_index(w, p)
        name = w.game.minions[w.minions[i].kind].name if i >= 0 else "minion"
        return f"{a_or_an(name)} {name}"
    return body_name(w, p[1])


def set_status(w: Work, p: PieceRef, new: frozenset[str]) -> PieceRef:
    """A piece with these statuses (a plain victim becomes marked: ``it`` follows it)."""
    kind = p[0]
    if kind == "fg":
        w.fg_status = new
    elif kind == "victim":
        m = find(w, p[1]) if p[1] else None
        if m is None and not new:
            return p
        got = change(w, p[2] if m is None else m.loc, m, status=new)
        p = ("victim", got.uid, got.loc) if (got.kind or got.status) else ("victim", 0, got.loc)
    elif kind == "minion":
        i = _minion_index(w, p)
        if i >= 0:
            update_piece(w, ("minion", i), status=new)
    else:
        update_piece(w, ("killer", p[1]), status=new)
    return p


def _follow(w: Work, old: PieceRef, new: PieceRef) -> None:
    """``it`` goes on meaning the piece after it changed (a plain victim given a status)."""
    if w.scope.piece == old and new != old:
        w.scope.piece = new


def clear_everywhere(w: Work, status: str) -> None:
    """``clear status S`` on the Final Girl and on victims (minions and killers: effects.py)."""
    if status in w.fg_status:
        w.fg_status = w.fg_status - {status}
    for m in [x for x in w.marked if status in x.status]:
        change(w, m.loc, m, status=m.status - {status})


# --- for each piece; effects on pieces -----------------------------------------------------------------
def _chosen(w: Work, ps: n.PieceSet, ctx: Ctx) -> list[PieceRef]:
    """The pieces of a set its ``where`` holds for now (``it`` the piece)."""
    got = pieces_of(w, ps, ctx)
    if ps.where is None or not got:
        return got
    scope = w.scope
    saved = scope.piece, scope.it
    out = []
    try:
        for p in got:
            scope.piece, scope.it = p, piece_loc(w, p)
            if condition(w, ps.where, ctx):
                out.append(p)
    finally:
        scope.piece, scope.it = saved
    return out


def exec_for_each_piece(w: Work, e: n.ForEachPiece, ctx: Ctx) -> None:  # for each PIECE … { … }
    scope = w.scope
    saved = scope.piece, scope.it
    try:
        for p in pieces_of(w, e.among, ctx):
            if not present(w, p):
                continue  # gone (or no longer plain) since the set was read
            scope.piece, scope.it = p, piece_loc(w, p)
            if e.among.where is not None and not condition(w, e.among.where, ctx):
                continue
            run(w, e.body, ctx)
            if w.result:
                break
    finally:
        scope.piece, scope.it = saved


def exec_add_status_to(w: Work, e: n.AddStatusTo, ctx: Ctx) -> None:  # add status S to PIECES
    for p in _chosen(w, e.pieces, ctx):
        st = statuses(w, p)
        if e.status not in st:
            name = _name(w, p)
            new = set_status(w, p, st | {e.status})
            _follow(w, p, new)
            emit(w, "status", f"{name} is {e.status}", "C1.2")


def exec_clear_status_from(w: Work, e: n.ClearStatusFrom, ctx: Ctx) -> None:  # clear status S from PIECES
    for p in _chosen(w, e.pieces, ctx):
        st = statuses(w, p)
        if e.status in st:
            name = _name(w, p)
            new = set_status(w, p, st - {e.status})
            _follow(w, p, new)
            emit(w, "status", f"{name} is no longer {e.status}", "C1.2")


def exec_damage_pieces(w: Work, e: n.DamagePieces, ctx: Ctx) -> None:  # damage PIECES N
    k = amount(w, e.n, ctx)
    if k <= 0:
        return
    for p in _chosen(w, e.pieces, ctx):
        if present(w, p):
            hurt(w, p, k)
        if w.result:
            return


def exec_kill_pieces(w: Work, e: n.KillPieces, ctx: Ctx) -> None:  # kill PIECES
    for p in _chosen(w, e.pieces, ctx):
        if present(w, p):
            _kill(w, p)
        if w.result:
            return


def hurt(w: Work, p: PieceRef, k: int) -> None:
    """A piece loses k health (S2.6): the Final Girl as 'lose N health'; a victim (1 health) dies; a
    minion at 0 health is killed (no bloodlust, C15); a killer body as 'damage killer N'."""
    kind = p[0]
    if kind == "fg":
        fg_damage(w, k, "C3.4", damage=False)
    elif kind == "victim":
        kill_victim(w, piece_loc(w, p), "it loses its health", which=find(w, p[1]) if p[1] else None)
    elif kind == "minion":
        i = _minion_index(w, p)
        m = w.minions[i]
        if m.health > k:
            update_piece(w, ("minion", i), health=m.health - k)
            emit(w, "minion", f"{_name(w, p)} loses {k} health (health {m.health - k})", "C15.2")
        else:
            _kill(w, p)
    else:
        damage_killer(w, p[1], k, "C3.8", by_fg=False)  # as 'damage killer N' (C3.8), which cites its rule too


def _kill(w: Work, p: PieceRef) -> None:
    kind = p[0]
    if kind == "victim":
        kill_victim(w, piece_loc(w, p), "an effect", which=find(w, p[1]) if p[1] else None)
    elif kind == "minion":
        i = _minion_index(w, p)
        m = w.minions[i]
        name = _name(w, p)
        w.minions = w.minions[:i] + w.minions[i + 1:]
        emit(w, "minion", f"{name} is killed", "C15.2")
        fire(w, "dies", ("minion", m.kind, -1), 1, m.loc)
    elif kind == "killer":
        defeat_killer(w, p[1])


def eval_has_status(w: Work, c: n.HasStatus, ctx: Ctx) -> bool:  # it|fg|killer [BODY] has status S
    if c.who == "fg":
        return c.status in w.fg_status
    if c.who == "it":
        p = w.scope.piece
        return p is not None and c.status in statuses(w, p)
    i = body_index(w, c.body) if c.body else the_killer(w)
    return i >= 0 and c.status in w.killers[i].status


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
EVAL.update(n.functions(n.Condition, globals(), "eval_"))
AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))

__all__ = ["clear_everywhere", "count_kind", "piece_loc", "pieces_of", "present", "turn_back", "turn_victims"]
