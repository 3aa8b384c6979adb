"""Cards that come into play: the dark power and the finale (C17.3, C11.1), events (C18.5) and
the content's named decks (``draw card DECK``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fields import set_dark_revealed, set_events_active, set_finale_revealed
from .resolve import run
from .statics import came_into_play
from .tables import Ctx
from .telling import emit, told
from .triggers import fire

if TYPE_CHECKING:
    from .working import Work


def reveal_dark_power(w: Work, rule: str = "C17.3") -> None:
    if w.dark_revealed or not w.dark_power:
        return
    came_into_play(w)  # those already in play are noted first (a position or an old save)
    set_dark_revealed(w, True)
    came_into_play(w)
    dp = w.game.dark_powers[w.dark_power]
    if ("reveal" in said) if (said := w.ctl.said) is not None else told(w, "reveal"):  # (Replay.said)
        emit(w, "reveal", f"the dark power is revealed: {dp.name}", rule)
    run(w, dp.on_reveal, Ctx(dp.id))
    fire(w, "card-revealed", None, 1)


def reveal_finale(w: Work) -> None:
    if w.finale_revealed:
        return
    came_into_play(w)
    set_finale_revealed(w, True)
    came_into_play(w)
    f = w.game.finales[w.finale]
    if ("reveal" in said) if (said := w.ctl.said) is not None else told(w, "reveal"):  # (Replay.said)
        emit(w, "reveal", f"the finale is revealed: {f.name}", "C11.1")
    run(w, f.on_reveal, Ctx(f.id))
    fire(w, "card-revealed", None, 1)
    reveal_dark_power(w, "C11.1")  # a dark power still face down is revealed with the finale


def gain_card(w: Work, cid: str) -> None:
    """V3: a copy of an action card set aside goes to her hand (none left aside: nothing happens)."""
    c = w.game.cards[cid]
    in_play = w.hand.count(cid) + w.spent.count(cid) + w.market.count(cid) + w.cards_gone.count(cid)
    if in_play >= c.copies:
        emit(w, "card", f"no copy of {c.name} is left aside to take", "C3.9")
        return
    w.hand = tuple(sorted(w.hand + (cid,)))
    emit(w, "card", f"takes {c.name} into her hand", "C3.9")


_ZONE_NAMES = {"hand": "her hand", "spent": "her spent cards", "market": "the market"}


def remove_card(w: Work, cid: str) -> None:
    """A copy of an action card leaves the game: from her hand, else the cards spent this round,
    else the market (it never comes back)."""
    c = w.game.cards[cid]
    for zone in ("hand", "spent", "market"):
        cards: tuple[str, ...] = getattr(w, zone)
        if cid in cards:
            i = cards.index(cid)
            left = cards[:i] + cards[i + 1:]
            if zone == "hand":
                w.hand = left
            elif zone == "spent":
                w.spent = left
            else:
                w.market = left
            w.cards_gone = w.cards_gone + (cid,)
            emit(w, "card", f"{c.name} leaves the game (from {_ZONE_NAMES[zone]})",
                 "C3.9")
            return
    emit(w, "card", f"no copy of {c.name} is in play to remove", "C3.9")


def draw_event(w: Work) -> None:
    if not w.events:
        emit(w, "event", "the event deck is empty", "C18.5")
        return
    eid = w.events[0]
    w.events = w.events[1:]
    ev = w.game.events[eid]
    emit(w, "event", f"event: {ev.name}", "C18.5")
    if ev.lasting:
        came_into_play(w)
        set_events_active(w, w.events_active + (eid,))
        came_into_play(w)
    run(w, ev.effects, w.game.source_ctx[eid])
    fire(w, "card-drawn", None, 1)
