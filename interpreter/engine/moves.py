"""Every piece moves through the same events: it leaves, crosses, enters and moves (C5.1, C5.3,
C9.4, C10.2, K6.4; dsl/LANGUAGE.md section 5).

Whatever moves a piece (the Final Girl's move and her followers, an enemy's move toward its
target or its wander, a victim's panic, an effect that moves the killer or victims), the move goes
through the same events:

- before it, ``moves``: a replacement in play resolves instead and the piece stays; a
  prevention keeps it where it is;
- before each location it goes to, ``leaves`` (the location it is at), ``crosses`` (the tags of
  the path, when it goes along one) and ``enters`` (the next location): a replacement or a
  prevention stops it where it is (an enemy's move of several locations goes as far as it may);
- after it: ``leaves`` for the location it started from (said before it goes: it is still there),
  then for each location it went to, ``crosses`` and ``enters`` (and ``leaves`` for each it went
  through); last, ``moves`` once, ``it`` the location where the move ended.

A move is a list of hops (from, to, the tags of the path taken; none for a move that is no walk
along a path: an effect's, a link's). A piece is ``("fg", "", -1)``, ``("killer", BODY, index)``,
``("minion", KIND, index)``, ``("victim", KIND, -1)`` or ``("conveyance", ID, index)`` (a piece
that travels with her, engine/conveyances.py; put on the board from off it, it leaves nothing).
When no content of the game answers any of these events for a kind of piece
(``Game.movers_watched``), the moves of that kind ask nothing and make nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .triggers import Piece, fire, would
from .words import loc_name

if TYPE_CHECKING:
    from .working import Work

MOVE_EVENTS = frozenset({"moves", "leaves", "crosses", "enters"})
PLAIN_VICTIM: Piece = ("victim", "", -1)  # a victim with no kind
Hop = tuple[int, int, frozenset[str]]  # (from, to, the tags of the path taken: none for no path)
NO_TAGS: frozenset[str] = frozenset()


def hops_along(w: Work, route: list[int]) -> list[Hop]:
    """The hops of a walk along paths through these locations, in order (the first is where it
    starts): each with the tags of the path between the two."""
    between = w.game.board.between
    return [(route[i], route[i + 1], between.get((route[i], route[i + 1]), NO_TAGS)) for i in range(len(route) - 1)]


def jump(at: int, to: int) -> list[Hop]:
    """A move at once, along no path (an effect's, a link's)."""
    return [(at, to, NO_TAGS)]


def how_far(w: Work, piece: Piece, hops: list[Hop], what: str) -> int:
    """How many of its hops a piece may take: none if its move is replaced or prevented, else up to
    the first hop whose leaving, crossing or entering is."""
    if not hops:
        return 0
    listens = w.game.listens
    if "moves" in listens and would(w, "moves", 0, f"{what} moving", piece, hops[0][0]) is None:
        return 0
    for i, (a, b, tags) in enumerate(hops):
        if a >= 0 and "leaves" in listens and would(w, "leaves", 0, f"{what} leaving {loc_name(w, a)}", piece,
                                                     a) is None:  # (a < 0: off the board, it leaves nothing)
            return i
        if tags and "crosses" in listens and would(w, "crosses", 0, f"{what} crossing to {loc_name(w, b)}", piece, b,
                                                   extra=tags) is None:
            return i
        if "enters" in listens and would(w, "enters", 0, f"{what} entering {loc_name(w, b)}", piece, b) is None:
            return i
    return len(hops)


def leaving(w: Work, piece: Piece, hops: list[Hop]) -> None:
    """Before the piece goes: ``leaves`` for the location it starts from (it is still there)."""
    if hops and hops[0][0] >= 0 and "leaves" in w.game.listens:  # (off the board: it leaves nothing)
        fire(w, "leaves", piece, 0, hops[0][0])


def arrived(w: Work, piece: Optional[Piece], hops: list[Hop]) -> None:
    """After the piece went: ``crosses`` and ``enters`` for each hop (``leaves`` for each location
    it went through), then ``moves`` at the location it ended."""
    if not hops or piece is None:
        return
    listens = w.game.listens
    last = len(hops) - 1
    for i, (_a, b, tags) in enumerate(hops):
        if tags and "crosses" in listens:
            fire(w, "crosses", piece, 0, b, extra=tags)
        if "enters" in listens:
            fire(w, "enters", piece, 0, b)
        if i < last and "leaves" in listens:
            fire(w, "leaves", piece, 0, b)
    if "moves" in listens:
        fire(w, "moves", piece, 0, hops[-1][1])
