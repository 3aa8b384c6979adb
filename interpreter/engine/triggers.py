"""Triggers and replacements: content that answers what happens (MECHANICS.md sections 4–5).

``fire`` runs every trigger in play on an event (``when …`` / ``at start of …``); ``replaced``
runs the replacement in play for an event, if any (``instead of …``), in which case the event
itself does not happen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from lastbreath.dsl import nodes as n

from .continuation import emit
from .resolve import Ctx, run
from .statics import abilities

if TYPE_CHECKING:
    from .continuation import Work


def fire(w: Work, event: str, arg: str = "", body: int = -1) -> None:
    """Run every active trigger on this event (``body``: the killer body it is about, if any)."""
    if event not in w.game.trigger_events:
        return
    for a in abilities(w):
        for t in a.triggers:
            if t.event == event and (not t.arg or t.arg == arg):
                run(w, t.body, Ctx(source=event, killer=body))


def fire_item(w: Work, item: n.Item, event: str) -> None:
    """Run an item's own triggers on an event (``when gained`` runs from the item itself)."""
    for t in item.abilities.triggers:
        if t.event == event:
            run(w, t.body, Ctx(source=item.id))


def replacement(w: Work, event: str) -> Optional[n.Replacement]:
    if event not in w.game.has_replacements:
        return None
    for a in abilities(w):
        for r in a.replacements:
            if r.event == event:
                return r
    return None


def replaced(w: Work, event: str, amount: int, what: str) -> bool:
    """Run the replacement for this event if one is in play (its ``that`` is the amount); True if it ran."""
    rep = replacement(w, event)
    if rep is None:
        return False
    emit(w, "replace", f"instead of {what}", "", "replacement")
    run(w, rep.body, Ctx(that=amount))
    return True
