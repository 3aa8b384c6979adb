"""Which piece an effect means: the killer body that "the killer" names, the body an event is
about, where a piece stands, and the active body (K3.2).

With several bodies, "the killer" is, in order: the body of an 'all killers' block being
resolved (K3.3); the active body while 'rule only the active killer acts' is in force (K3.2);
else the nearest one to the Final Girl (K6.7, the open default in docs/decisions/0004)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..board import INF
from .statics import enemy_tables, modified

if TYPE_CHECKING:
    from .tables import Ctx
    from .working import Work

Piece = tuple[str, int]  # ("killer", index) or ("minion", index)


def body_name(w: Work, i: int) -> str:
    k = w.killers[i]
    if k.label:
        return k.label
    decl = w.game.bodies.get(k.body) if k.body else None
    return decl.name if decl is not None else "the killer"


def active_only(w: Work) -> bool:
    """K3.2: only the active body moves and attacks ('rule only the active killer acts')."""
    return "active-only" in w.game.rule_queries and bool(modified(w, "active-only", False))


def fix_active(w: Work) -> None:
    """K3.2: when the active body is gone, the marker goes to the topmost living one in play,
    skipping those set aside (K3.6); only while every living one is set aside, to the topmost of
    those (the end of the phase brings it back or takes it away)."""
    ks = w.killers
    a = w.active
    if 0 <= a < len(ks) and ks[a].alive and not ks[a].aside:
        return
    w.active = next((i for i, k in enumerate(ks) if k.alive and not k.aside),
                    next((i for i, k in enumerate(ks) if k.alive), 0))


def the_killer(w: Work, near: int = -1) -> int:
    """The body an effect on "the killer" means: the only living one; inside 'all killers' that
    body; the active one (K3.2); with several on the board (K6.7) the one nearest to ``near``
    (default: the Final Girl), ties to the first; -1 if none."""
    ks = w.killers
    if len(ks) == 1:
        return 0 if ks[0].alive else -1
    b = w.scope.body
    if 0 <= b < len(ks) and ks[b].alive:
        return b
    if active_only(w):
        a = w.active
        return a if 0 <= a < len(ks) and ks[a].alive else next((i for i, k in enumerate(ks) if k.alive), -1)
    dist = enemy_tables(w)[1][near if near >= 0 else w.fg_loc]
    best, best_d = -1, INF + 1
    for i, kil in enumerate(ks):
        if kil.alive and kil.loc >= 0 and not kil.aside and dist[kil.loc] < best_d:
            best, best_d = i, dist[kil.loc]
    if best < 0:  # none on the board: the first living one (it may be off the board)
        best = next((i for i, kil in enumerate(ks) if kil.alive), -1)
    return best


def body_index(w: Work, body: str) -> int:
    """The body an effect names ("" = the killer); -1 if it is not in the game (or dead)."""
    if not body:
        return the_killer(w)
    return next((i for i, k in enumerate(w.killers) if k.body == body and k.alive), -1)


def ctx_body(w: Work, ctx: Ctx) -> int:
    """The body a trigger is about, if it is still in play; else -1."""
    i = ctx.killer
    return i if 0 <= i < len(w.killers) and w.killers[i].alive else -1


def killer_at(w: Work, loc: int) -> bool:
    return any(k.alive and k.loc == loc for k in w.killers)


def piece_status(w: Work, piece: Piece) -> frozenset[str]:
    kind, i = piece
    return w.killers[i].status if kind == "killer" else w.minions[i].status


def piece_loc(w: Work, piece: Piece) -> int:
    kind, i = piece
    if kind == "killer":
        return w.killers[i].loc
    return w.minions[i].loc if i < len(w.minions) else -1
