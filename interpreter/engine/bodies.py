"""Which piece an effect means: the killer body that "the killer" names, the body an event is
about, where a piece stands (K6.7: with several bodies, "the killer" is the nearest one, the open
default in docs/decisions/0004)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..board import INF
from .statics import enemy_tables

if TYPE_CHECKING:
    from .continuation import Work
    from .resolve import Ctx

Piece = tuple[str, int]  # ("killer", index) or ("minion", index)


def body_name(w: Work, i: int) -> str:
    return w.killers[i].label or "the killer"


def the_killer(w: Work, near: int = -1) -> int:
    """The body an effect on "the killer" means: the only living one; with several on the board
    (K6.7) the one nearest to ``near`` (default: the Final Girl), ties to the first; -1 if none."""
    ks = w.killers
    if len(ks) == 1:
        return 0 if ks[0].alive else -1
    dist = enemy_tables(w)[1][near if near >= 0 else w.fg_loc]
    best, best_d = -1, INF + 1
    for i, kil in enumerate(ks):
        if kil.alive and kil.loc >= 0 and dist[kil.loc] < best_d:
            best, best_d = i, dist[kil.loc]
    if best < 0:  # none on the board: the first living one (it may be off the board)
        best = next((i for i, kil in enumerate(ks) if kil.alive), -1)
    return best


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
