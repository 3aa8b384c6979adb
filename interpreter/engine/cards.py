"""Cards that come into play: the dark power and the finale (C17.3, C11.1), events (C18.5) and
the content's named decks (``draw card DECK``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .continuation import emit, told
from .resolve import Ctx, run
from .statics import came_into_play
from .triggers import fire

if TYPE_CHECKING:
    from .continuation import Work


def reveal_dark_power(w: Work, rule: str = "C17.3") -> None:
    if w.dark_revealed or not w.dark_power:
        return
    came_into_play(w)  # those already in play are noted first (a position or an old save)
    w.dark_revealed = True
    w.sources = None  # (a source of abilities changed: statics.abilities; see Work)
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
    w.finale_revealed = True
    w.sources = None  # (a source of abilities changed: statics.abilities; see Work)
    came_into_play(w)
    f = w.game.finales[w.finale]
    if ("reveal" in said) if (said := w.ctl.said) is not None else told(w, "reveal"):  # (Replay.said)
        emit(w, "reveal", f"the finale is revealed: {f.name}", "C11.1")
    run(w, f.on_reveal, Ctx(f.id))
    fire(w, "card-revealed", None, 1)
    reveal_dark_power(w, "C11.1")  # a dark power still face down is revealed with the finale


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
        w.events_active = w.events_active + (eid,)
        w.sources = None  # (a source of abilities changed: statics.abilities; see Work)
        came_into_play(w)
    run(w, ev.effects, w.game.source_ctx[eid])
    fire(w, "card-drawn", None, 1)


def draw_card(w: Work, deck_id: str) -> None:
    """Draw the top card of a named deck and resolve it; a ``keep`` card stays in play, any other
    meets its fate (zones.py: discarded, shuffled back, removed; a deck may reshuffle its discards)."""
    from .zones import reshuffle_if_empty, resolve_deck_card  # zones builds on items, which imports this module's peers

    deck = w.game.decks[deck_id]
    reshuffle_if_empty(w, deck)
    decks = dict(w.decks)
    cards = decks.get(deck_id, ())
    if not cards:
        emit(w, "deck", f"the {deck.name} deck is empty", "C18.5")
        return
    cid = cards[0]
    decks[deck_id] = cards[1:]
    w.decks = tuple(decks.items())
    card = w.game.deck_cards[f"{deck_id}/{cid}"]
    emit(w, "deck", f"draws {card.name} from {deck.name}", "C18.5")
    if card.keep:
        came_into_play(w)
        w.kept = w.kept + (f"{deck_id}/{cid}",)
        w.sources = None  # (a source of abilities changed: statics.abilities; see Work)
        came_into_play(w)
    resolve_deck_card(w, deck, card, cid)
    fire(w, "card-drawn", None, 1, extra=deck_id)
