"""The end of the game (C13): who wins, and why.

A side's defeat is a mark on the state (her last breath gone: ``fg_breath`` 0; every killer body
down), not the end of the game: whether the game is over is looked at once the effect, card,
attack or item use that caused it has fully resolved (C13.2, a state-based check). ``defeated``
notes a defeat and settles at once when nothing is resolving; ``resolve.run`` settles when the
outermost resolution ends, and every step ends with a settle. ``end_game`` records the result and
unwinds the step (``GameOver``). The content's own win and lose lines are state-based checks too,
looked at whenever the game settles (ends.check_ends).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .steps import GameOver
from .telling import emit, source_of

if TYPE_CHECKING:
    from .working import Work


def end_game(w: Work, winner: str, reason: str, rule: str = "C13.1", source: str = "") -> None:
    """The game is over: ``winner`` ("fg" or "killer") wins, for ``reason``. The event's source is
    the content line that ended it (``source``, else the line resolving: an 'end game' line); its
    data is ``(winner,)``."""
    w.result = winner
    w.end_reason = reason
    w.phase = "over"
    emit(w, "end", f"{'the Final Girl' if winner == 'fg' else 'the killer'} wins: {reason}", rule, source,
         (winner,))
    raise GameOver()


def fg_defeated(w: Work) -> bool:
    return w.fg_breath == 0


def killer_defeated(w: Work) -> bool:
    """Every killer body is down (a game whose bodies only form in play has no such defeat, K6.1)."""
    return bool(w.killers) and not w.game.no_board and not any(k.alive for k in w.killers)


def defeated(w: Work) -> None:
    """A side was just defeated: the game ends once what caused it has fully resolved (C13.2)."""
    scope = w.scope
    if scope.fell is None:  # the line that caused the first defeat: the end names it (C13.2 settles later)
        scope.fell = scope.node
    if scope.depth:
        scope.defeat = True
    else:
        settle(w)


def settle(w: Work) -> None:
    """C13.1/C13.2, looked at after a resolution: one side down, the other wins; both, she wins."""
    scope = w.scope
    scope.defeat = False
    fell, scope.fell = scope.fell, None
    if w.result:
        return
    fg, killer = fg_defeated(w), killer_defeated(w)
    if not (fg or killer):
        return
    source = source_of(w, fell)
    if fg and killer:
        end_game(w, "fg", "both sides fell at once: her sacrifice counts as a win", "C13.2", source)
    elif fg:
        end_game(w, "killer", "the Final Girl was defeated", "C13.1", source)
    else:
        end_game(w, "fg", "the killer was defeated", "C13.1", source)
