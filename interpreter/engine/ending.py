"""The end of the game (C13): who wins, and why.

``end_game`` records the result and unwinds the step (``GameOver``). The content's own win and
lose lines are state-based checks, looked at whenever the game settles (phases.check_ends).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .continuation import GameOver, emit

if TYPE_CHECKING:
    from .continuation import Work


def end_game(w: Work, winner: str, reason: str) -> None:
    """C13.1: the other side wins; C13.2: both defeated at once, the Final Girl wins."""
    if winner == "killer" and not any(k.alive for k in w.killers) and w.killers and not w.game.no_board:
        winner, reason = "fg", "both sides fell at once: her sacrifice counts as a win"
    w.result = winner
    w.end_reason = reason
    w.phase = "over"
    emit(w, "end", f"{'the Final Girl' if winner == 'fg' else 'the killer'} wins: {reason}",
         "C13.1" if "both" not in reason else "C13.2")
    raise GameOver()
