"""Item and card zones (issue #16 item 6): where item cards and deck cards lie out of play, recipes,
play and use conditions, and what becomes of a deck card once it has resolved.

Item cards of the scenario and the killer start where their ``start`` line says (S1.1, S2.1, S3.1,
K2.2): dealt into the item piles (C18.4, the default), face up on the table, set aside, in the
Final Girl's hands or backpack, face up on top of each item pile, or in a named pile, whose top
cards a ``row N`` lays face up on the table at setup. Items on the table are taken by effects
(``take item … from table``) and by recipes (S3.4); items that return to the table when
discarded do so from ``items.discard_item`` (S3.3). A ``usable while`` condition keeps a card, an
item's use, an action or a recipe out of the menus while it does not hold (K1.7, K2.5).

Named decks (``draw card DECK``, ``draw_card``) may reshuffle their discards when empty, give
each resolved card a fate (discard, return, remove), print a number on each card (``card number``)
and read one of two halves of each card by a condition (K1.5–K1.6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from lastbreath.dsl import nodes as n

from ..state import HeldItem
from .asking import ask
from .copies import base, entry_of, in_zone, key_of, new_number, number, pick
from .draws import rand, shuffled
from .fields import SETTERS, set_held, set_kept, set_pack
from .final_girl import lose_time
from .items import card_options, discard_item, discardable, gain_item, hands_of, hands_used
from .resolve import condition, run
from .statics import came_into_play
from .steps import PhaseEnd
from .tables import AMOUNT, EVAL, EXEC, NO_CTX, Ctx
from .telling import emit
from .triggers import fire
from .words import loc_name

if TYPE_CHECKING:
    from .working import Work


# --- setup ---------------------------------------------------------------------------------------
def set_up_zones(w: Work) -> None:
    """S1.1, S2.1, S3.1, K2.2: the scenario's and the killer's items that do not go into the item
    piles, and the deck cards set aside or on the table. Draws from the generator only for named
    piles (their shuffle), so content without zones sets up as it always did."""
    g = w.game
    table: list[str] = []
    aside: list[str] = []
    on_piles: list[tuple[int, str]] = []
    piles = len(g.board.search_locs)
    laid = g.own_items  # the items that start out of the piles: the same for every seed, found once
    if laid is None:
        own = [it for it in g.items.values() if it.owner == g.fg.id and it.id != g.fg.signature]  # her other items
        laid = g.own_items = tuple(it for it in (*g.scenario.items, *g.killer.items, *own)
                                   if it.start in ("table", "aside", "held", "on-piles") or it.starts)
    for it in laid:
        for zone, copies in it.starts or ((it.start, it.copies),):  # (counted starts: each zone its copies)
            _lay(w, it, zone, copies, table, aside, on_piles, piles)
    named: list[tuple[str, tuple[str, ...]]] = []
    for p in (*g.scenario.piles, *g.killer.piles):
        cards = [it.id for it in (*g.scenario.items, *g.killer.items) if it.start == "pile" and it.pile == p.id
                 for _ in range(it.copies)]
        deck = shuffled(w, cards)
        row = deck[:p.row]
        table.extend(entry_of(i, new_number(w, i)) for i in row)
        named.append((p.id, deck[p.row:]))
        if row:
            emit(w, "setup", f"from the {p.name} pile, face up on the table: "
                 + ", ".join(g.items[i].name for i in row), "S3.1")
    w.table = tuple(table)
    w.aside = tuple(aside)
    w.on_piles = tuple(on_piles)
    w.item_piles = tuple(named)
    for d in g.decks.values():
        for c in d.cards:
            if c.start == "aside":
                w.cards_aside = w.cards_aside + (f"{d.id}/{c.id}",) * c.copies
            elif c.start == "table":  # face up in play from the start: like a kept card
                set_kept(w, w.kept + (f"{d.id}/{c.id}",) * c.copies)
                emit(w, "setup", f"{c.name} lies face up on the table, in play", "C1.2")


def deck_cards_at_setup(d: n.Deck) -> list[str]:
    """The cards shuffled into a named deck at setup: each copy, less those starting elsewhere."""
    return [c.id for c in d.cards if not c.start for _ in range(c.copies)]


def _lay(w: Work, it: n.Item, zone: str, copies: int, table: list[str], aside: list[str],
         on_piles: list[tuple[int, str]], piles: int) -> None:
    """``copies`` cards of an item laid out at setup in ``zone`` (S1.1, S2.1, S3.1, K2.2)."""
    if zone in ("table", "aside"):  # (a card of an item whose cards carry tokens apart is numbered)
        (table if zone == "table" else aside).extend(entry_of(it.id, new_number(w, it.id)) for _ in range(copies))
        # the rule cited: an item that returns to the table when discarded is of the kind S3.1 lays
        # out (S3.3); any other one lying on the table or set aside at setup, as S1.1's
        emit(w, "setup", f"{it.name} {'lies face up on the table' if zone == 'table' else 'is set aside'}"
             + (f" ({copies} copies)" if copies > 1 else ""), "S3.1" if it.returns else "S1.1")
    elif zone == "held":
        for _ in range(copies):
            _hold(w, it)
        emit(w, "setup", f"the Final Girl starts with {it.name}", "S2.1")
    elif zone == "on-piles":  # one copy face up on each pile; copies beyond the piles are set aside
        on_piles.extend((p, it.id) for p in range(min(piles, copies)))
        aside.extend([it.id] * max(0, copies - piles))
        emit(w, "setup", f"{it.name} lies face up on each item pile", "K2.2")


def _hold(w: Work, it: n.Item) -> None:
    """An item she starts with: a weapon in her hands while they have room, else the backpack; one
    held only in hand in her hands (S1.7: it never goes to the backpack, whatever the room)."""
    new = HeldItem(it.id, it.uses, new_number(w, it.id))
    hands = hands_of(it)
    if it.hand_only or (hands and hands_used(w) + hands <= 2):
        set_held(w, w.held + (new,))
    else:
        set_pack(w, w.pack + (new,))


# --- usable while ---------------------------------------------------------------------------------
def usable(w: Work, cond: Optional[n.Condition]) -> bool:
    """K1.7, K2.5: a card, an item's use, an action or a recipe with ``usable while C`` only while C holds."""
    return cond is None or condition(w, cond, NO_CTX)


# --- the table and the set-aside cards ---------------------------------------------------------------
def _take_from(w: Work, zone: str, iid: str) -> str:
    """Take a card of the item from the table (or the set-aside cards): its entry there ("" if none lies
    there). Of cards that carry tokens apart and differ, the player picks (S1.2: token and all)."""
    cards = w.table if zone == "table" else w.aside
    if iid in w.game.copy_items:
        there = [e for e in cards if base(e) == iid]
        if not there:
            return ""
        got = pick(w, ["item:" + e for e in there], f"Which card of {w.game.items[iid].name}?")[5:]
    elif iid in cards:
        got = iid
    else:
        return ""
    i = cards.index(got)
    rest = cards[:i] + cards[i + 1:]
    if zone == "table":
        w.table = rest
    else:
        w.aside = rest
    return got


def _held_copy(w: Work, iid: str) -> str:
    """Remove one card she holds (hands first; of cards that carry tokens apart and differ, her pick),
    without discarding it: its entry for the table or the set-aside cards ("" if she holds none)."""
    found = [(attr, i, h) for attr in ("held", "pack") for i, h in enumerate(getattr(w, attr)) if h.id == iid]
    if not found:
        return ""
    if len(found) > 1 and found[0][2].copy:
        got = pick(w, [key_of(iid, h.copy) for _a, _i, h in found], f"Which card of {w.game.items[iid].name}?")
        found = [f for f in found if key_of(iid, f[2].copy) == got]
    attr, i, h = found[0]
    items = getattr(w, attr)
    SETTERS[attr](w, items[:i] + items[i + 1:])
    return entry_of(iid, h.copy)


def exec_take_item(w: Work, e: n.TakeItem, ctx: Ctx) -> None:  # take item ID from table|aside
    name = w.game.items[e.item].name
    got = _take_from(w, e.zone, e.item)
    if not got:
        emit(w, "item", f"{name} is not {'on the table' if e.zone == 'table' else 'set aside'}: nothing is taken",
             "S1.2")
        return
    gain_item(w, e.item, "from the table" if e.zone == "table" else "from the set-aside cards", number(got))


def exec_put_item_on_table(w: Work, e: n.PutItemOnTable, ctx: Ctx) -> None:  # put item ID on table
    got = _held_copy(w, e.item)
    if got:  # (its tokens go with it: engine/copies.py)
        w.table = w.table + (got,)
        emit(w, "item", f"{w.game.items[e.item].name} goes back to the table", "S1.7")


def exec_set_aside_item(w: Work, e: n.SetAsideItem, ctx: Ctx) -> None:  # set aside item ID
    got = _held_copy(w, e.item) or _take_from(w, "table", e.item)
    if got:
        w.aside = w.aside + (got,)
        emit(w, "item", f"{w.game.items[e.item].name} is set aside", "C1.2")


def exec_discard_chosen_item(w: Work, e: n.DiscardChosenItem, ctx: Ctx) -> None:  # discard an item
    cards = [h for h in (*w.held, *w.pack) if discardable(w, h.id, h)]
    if not cards:
        emit(w, "item", "no item can be discarded", "S1.3")
        return
    offered = card_options(w, cards, "discard-item")
    key = ask(w, "discard-item", "Discard which item?", [o for o, _h in offered])
    card = next(h for o, h in offered if o.key == key)
    discard_item(w, card.id, card if card.copy else None)


def exec_discard_random_item(w: Work, e: n.DiscardRandomItem, ctx: Ctx) -> None:  # discard a random item
    held = [h for h in (*w.held, *w.pack) if discardable(w, h.id, h)]  # each copy as likely as any other
    if not held:
        emit(w, "item", "no item can be discarded", "S1.3")
        return
    card = held[rand(w, len(held))]
    discard_item(w, card.id, card if card.copy else None)


def eval_item_in(w: Work, c: n.ItemIn, ctx: Ctx) -> bool:  # item ID on table / on piles / aside
    if c.zone == "piles":  # K2.2: face up on top of an item pile
        return any(iid == c.item for _, iid in w.on_piles)
    return in_zone(w, c.item, w.table if c.zone == "table" else w.aside)


# --- recipes (S3.4) --------------------------------------------------------------------------------
def can_make(w: Work, r: n.Recipe, held: Optional[list[str]] = None) -> bool:
    """She holds every item it needs (as many copies as it lists), each one she may discard, and the
    item it makes lies on the table. The Action menu passes what she holds (the same for every recipe)."""
    if held is None:
        held = [h.id for h in (*w.held, *w.pack)]
    needs = r.needs
    for iid in needs:  # the cheapest test first (the menu asks of every recipe at every action)
        if iid not in held:
            return False
    if not in_zone(w, r.makes, w.table) or not usable(w, r.usable):
        return False
    if w.game.copy_items:  # (a card that carries tokens apart may go or not on its own: each is read)
        cards = (*w.held, *w.pack)
        return all(sum(1 for h in cards if h.id == iid and discardable(w, iid, h)) >= needs.count(iid)
                   for iid in dict.fromkeys(needs))
    return all(held.count(iid) >= needs.count(iid) and discardable(w, iid) for iid in dict.fromkeys(needs))


def make(w: Work, r: n.Recipe) -> None:
    """S3.4: discard what it needs, spend its time, take the item it makes from the table."""
    g = w.game
    emit(w, "recipe", f"makes {g.items[r.makes].name} from {', '.join(g.items[i].name for i in r.needs)}", "S3.4")
    for iid in r.needs:
        discard_item(w, iid)
    if r.time:
        lose_time(w, r.time)
    got = _take_from(w, "table", r.makes)
    if got:
        gain_item(w, r.makes, "made", number(got))


# --- named decks: fates, halves, numbers -------------------------------------------------------------
def card_half(w: Work, deck: n.Deck, card: n.DeckCard) -> Optional[n.CardHalf]:
    """K1.5–K1.6: the half of a two-sided card its deck reads now: the first of the deck's halves whose
    condition holds, else its first half without one."""
    if not card.halves:
        return None
    name = next((h.name for h in deck.halves if h.cond is not None and condition(w, h.cond, NO_CTX)), None)
    if name is None:
        name = next((h.name for h in deck.halves if h.cond is None), None)
    return next((h for h in card.halves if h.name == name), None)


def _discards(w: Work, deck_id: str) -> tuple[str, ...]:
    return next((cards for d, cards in w.deck_discards if d == deck_id), ())


def _set_discards(w: Work, deck_id: str, cards: tuple[str, ...]) -> None:
    rest = tuple((d, c) for d, c in w.deck_discards if d != deck_id)
    w.deck_discards = rest + ((deck_id, cards),) if cards else rest


def _set_deck(w: Work, deck_id: str, cards: tuple[str, ...]) -> None:
    w.decks = tuple((d, cards if d == deck_id else c) for d, c in w.decks)


def reshuffle_if_empty(w: Work, deck: n.Deck) -> None:
    """K1.6: a deck that reshuffles when empty takes its discards back, shuffled."""
    if not deck.reshuffle or any(cards for d, cards in w.decks if d == deck.id):
        return
    discards = _discards(w, deck.id)
    if discards:
        _set_deck(w, deck.id, shuffled(w, discards))
        _set_discards(w, deck.id, ())
        emit(w, "deck", f"the {deck.name} deck is empty: its discards are shuffled into a new one", "K1.6")


def after_resolving(w: Work, deck: n.Deck, card: n.DeckCard) -> None:
    """What becomes of a resolved card that is not kept: discarded (the deck's default), shuffled back
    into its deck, or removed from the game."""
    fate = card.after or deck.after
    if fate == "discard":
        _set_discards(w, deck.id, _discards(w, deck.id) + (card.id,))
    elif fate == "return":
        left = next((cards for d, cards in w.decks if d == deck.id), ())
        _set_deck(w, deck.id, shuffled(w, left + (card.id,)))
        emit(w, "deck", f"{card.name} is shuffled back into the {deck.name} deck", "C1.2")
    else:
        emit(w, "deck", f"{card.name} is removed from the game", "C1.2")


def exec_shuffle_card_into(w: Work, e: n.ShuffleCardInto, ctx: Ctx) -> None:  # shuffle card CARD into DECK
    deck = w.game.decks[e.deck]
    key = f"{e.deck}/{e.card}"
    card = w.game.deck_cards[key]
    if key in w.cards_aside:
        i = w.cards_aside.index(key)
        w.cards_aside = w.cards_aside[:i] + w.cards_aside[i + 1:]
    elif e.card in _discards(w, e.deck):
        d = list(_discards(w, e.deck))
        d.remove(e.card)
        _set_discards(w, e.deck, tuple(d))
    elif key in w.kept:
        i = w.kept.index(key)
        set_kept(w, w.kept[:i] + w.kept[i + 1:])
    else:
        emit(w, "deck", f"{card.name} is not set aside, discarded or in play: nothing is shuffled in", "C1.2")
        return
    left = next((cards for d, cards in w.decks if d == e.deck), ())
    _set_deck(w, e.deck, shuffled(w, left + (e.card,)))
    emit(w, "deck", f"{card.name} is shuffled into the {deck.name} deck", "C1.2")


def amount_card_number(w: Work, a: n.CardNumber, ctx: Ctx) -> int:  # card number (K1.6)
    return w.card_number


def resolve_deck_card(w: Work, deck: n.Deck, card: n.DeckCard, cid: str, at: int = -1, body: int = -1) -> None:
    """Resolve a drawn card: its own effect, then the half its deck reads; then its fate. ``at``: the
    place it resolves at ('here' and 'it' in its effects, issue #33 item 7); ``body``: the killer body
    it names ('the killer' in its effects, K2.7)."""
    half = card_half(w, deck, card)
    w.card_number = (half.number if half is not None and half.number else card.number)
    if half is not None:
        emit(w, "deck", f"{card.name}: its {half.name} half" + (f" (number {w.card_number})" if w.card_number else ""),
             "K1.6")
    effects = card.effects + (half.effects if half is not None else ())
    scope = w.scope
    saved = scope.it, scope.body
    if at >= 0:
        scope.it = at
    if body >= 0:
        scope.body = body
    try:
        run(w, effects, Ctx(cid) if at < 0 and body < 0 else Ctx(cid, None, 0, body, here=at))
    except PhaseEnd:  # a last breath ended the phase in the middle of the card: it still meets its fate
        if not card.keep:
            after_resolving(w, deck, card)
        raise
    finally:
        scope.it, scope.body = saved
    if not card.keep:
        after_resolving(w, deck, card)


def take_top(w: Work, deck_id: str, at: int = -1) -> Optional[tuple[n.Deck, n.DeckCard, str]]:
    """Draw the top card of a named deck (a deck that reshuffles its discards when empty does so
    first), saying what was drawn and, for a card drawn at a place, where; None when it is empty."""
    deck = w.game.decks[deck_id]
    reshuffle_if_empty(w, deck)
    decks = dict(w.decks)
    cards = decks.get(deck_id, ())
    if not cards:
        emit(w, "deck", f"the {deck.name} deck is empty", "C18.5")
        return None
    cid = cards[0]
    decks[deck_id] = cards[1:]
    w.decks = tuple(decks.items())
    card = w.game.deck_cards[f"{deck_id}/{cid}"]
    emit(w, "deck", f"draws {card.name} from {deck.name}" + (f" at {loc_name(w, at)}" if at >= 0 else ""), "C18.5")
    return deck, card, cid


def play_drawn(w: Work, deck: n.Deck, card: n.DeckCard, cid: str, at: int = -1, body: int = -1) -> None:
    """A card drawn: a ``keep`` card comes into play; it resolves (at ``at``, ``the killer`` being
    ``body``: resolve_deck_card) and, unless kept, meets its fate; then 'card DECK is drawn' is told."""
    if card.keep:
        came_into_play(w)
        set_kept(w, w.kept + (f"{deck.id}/{cid}",))
        came_into_play(w)
    resolve_deck_card(w, deck, card, cid, at, body)
    fire(w, "card-drawn", None, 1, extra=deck.id)


def draw_card(w: Work, deck_id: str, at: int = -1) -> None:
    """Draw the top card of a named deck and resolve it (at ``at``, a place handed to it: its 'here'
    and 'it'); a ``keep`` card stays in play, any other meets its fate (zones.py: discarded, shuffled
    back, removed; a deck may reshuffle its discards). A card naming a body (a deck of bodies, K2.7)
    resolves with 'the killer' that body, while it is in the game."""
    got = take_top(w, deck_id, at)
    if got is None:
        return
    deck, card, cid = got
    body = -1
    if card.body:
        body = next((i for i, k in enumerate(w.killers) if k.body == card.body and k.alive), -1)
    play_drawn(w, deck, card, cid, at, body)


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
EVAL.update(n.functions(n.Condition, globals(), "eval_"))
AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))
