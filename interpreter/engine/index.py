"""Indexes of the pieces on the board, built once per pieces tuple.

The state rebinds ``minions`` (``killers``) to a new tuple whenever a piece changes, so the counts
of pieces on the board worked out from one tuple hold for as long as the state keeps that tuple.
Each index is kept for the last tuple seen (one per game; a thread replaces it in one assignment),
so reading it again costs an identity check instead of a scan of every piece.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .working import Work


class MinionIndex:
    """What one minions tuple holds: how many stand on the board, by kind too."""

    __slots__ = ("by_kind", "minions", "on_board")

    def __init__(self, minions: tuple[Any, ...]):
        self.minions = minions
        by_kind: dict[str, int] = {}
        on = 0
        for m in minions:
            if m.loc >= 0:
                on += 1
                by_kind[m.kind] = by_kind.get(m.kind, 0) + 1
        self.on_board, self.by_kind = on, by_kind


EMPTY_INDEX = MinionIndex(())


def minion_index(w: Work) -> MinionIndex:
    """The index of the minions now in play."""
    ms = w.minions
    if not ms:
        return EMPTY_INDEX
    got = w.game.minion_index
    if got.minions is not ms:
        got = w.game.minion_index = MinionIndex(ms)
    return got


def minions_on_board(w: Work, kind: str = "") -> int:
    """How many minions (of ``kind``, or of every kind) stand on the board."""
    idx = minion_index(w)
    return idx.by_kind.get(kind, 0) if kind else idx.on_board


def minion_of_uid(w: Work, uid: int) -> int:
    """Where the minion with this uid stands in ``w.minions``, or -1 (gone). A scan: it is asked
    once per minion as each acts, and each one that moves makes a new tuple (no index would last)."""
    for j, m in enumerate(w.minions):
        if m.uid == uid:
            return j
    return -1


def bodies_on_board(w: Work, kind: str = "") -> int:
    """How many killer bodies, not defeated, stand on the board (``kind`` is not read: so that
    this is a whole-board count of amounts.BOARD_COUNTS itself, with no function between)."""
    ks = w.killers
    memo = w.game.body_counts
    if memo[0] is not ks:
        memo = w.game.body_counts = (ks, sum(1 for b in ks if b.alive and b.loc >= 0))
    return memo[1]


def still_there(w: Work, piece: tuple[str, int], was: Any) -> tuple[str, int] | None:
    """The enemy ``was`` after content answered its move: a trigger may have killed it (None) or
    another minion before it in ``w.minions`` (a new index). A killer's index never changes."""
    if piece[0] == "killer":
        return piece
    i, ms = piece[1], w.minions
    if i < len(ms) and (ms[i].uid == was.uid or not was.uid):
        return piece
    j = minion_of_uid(w, was.uid) if was.uid else -1
    return ("minion", j) if j >= 0 else None
