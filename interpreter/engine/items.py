"""Items and search (C6): piles, gaining, hands and backpack, uses.

A search acts on the pile of the search location the Final Girl stands in (C6.1–C6.3); a
gained weapon may go to the hands, room permitting, or the backpack (C6.5); an item's last use
discards it (C6.4), unless a recipe needs it: then it stays, used up, as an ingredient (S3.4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..state import HeldItem, Option, evolved
from .asking import ask, opt
from .copies import as_card, describe, discard_tokens, entry_of, key_of, new_number, pick, signature
from .fields import SETTERS, set_held, set_pack
from .resolve import condition
from .statics import came_into_play
from .tables import NO_CTX
from .telling import emit
from .triggers import fire, fire_item

if TYPE_CHECKING:
    from lastbreath.dsl import nodes as n

    from .working import Work


def hands_of(item: n.Item) -> int:
    """The hands an item in hand takes (C6.5): a weapon's, one for another item held only in hand
    (S1.7); none for the others, which go in the backpack."""
    return item.weapon.hands if item.weapon is not None else 1 if item.hand_only else 0


def hands_used(w: Work) -> int:
    items = w.game.items
    return sum(hands_of(items[h.id]) for h in w.held)


def weapon_of(w: Work, iid: str) -> n.Weapon:
    """The weapon an item held in hand is (only weapons are held in hand: C6.5)."""
    wp = w.game.items[iid].weapon
    if wp is None:
        raise AssertionError(f"{iid} is held in hand, yet is no weapon")
    return wp


def gain_item(w: Work, iid: str, how: str, copy: int = 0) -> None:
    """C6.5: a weapon may go to the hands (room permitting, or swapping one out) or the backpack.
    ``copy``: the number of the card taken, for an item whose cards carry tokens apart (engine/copies.py;
    a card new to play is numbered here)."""
    item = w.game.items[iid]
    new = HeldItem(iid, item.uses, copy or new_number(w, iid))
    came_into_play(w)  # those already in play are noted first (a position or an old save)
    emit(w, "item", f"gains {item.name}" + (f" ({how})" if how else ""), "C6")
    hands = hands_of(item)
    if hands == 0:
        set_pack(w, w.pack + (new,))
    else:
        items = w.game.items
        opts = [] if item.hand_only else [Option("pack", "put it in the backpack")]
        if hands_used(w) + hands <= 2:
            opts.insert(0, Option("hand", "hold it in hand"))
        for h in w.held:  # (one held only in hand never goes to the backpack: S1.7)
            if not items[h.id].hand_only and hands_used(w) - hands_of(items[h.id]) + hands <= 2:
                opts.append(Option(f"swap:{h.id}", f"hold it, put {items[h.id].name} in the backpack"))
        if not opts:  # held only in hand, and her hands hold only such items: she leaves it (S1.7)
            opts.append(Option("leave", "leave it: her hands are full"))
        key = ask(w, "item-place", f"Where does {item.name} go?", opts)
        if key == "hand":
            set_held(w, w.held + (new,))
        elif key == "pack":
            set_pack(w, w.pack + (new,))
        elif key == "leave":
            emit(w, "item", f"leaves {item.name}: it is held only in hand, and her hands are full", "C6.5")
            _to_the_table(w, iid, new.copy)
            return
        else:
            out = key.split(":", 1)[1]
            i = next(i for i, h in enumerate(w.held) if h.id == out)
            set_pack(w, w.pack + (w.held[i],))
            set_held(w, w.held[:i] + w.held[i + 1:] + (new,))
    came_into_play(w)
    if new.copy:  # its own 'when gained' lines are about this card
        as_card(w, key_of(iid, new.copy), fire_item, w, item, "gained")
    else:
        fire_item(w, item, "gained")
    fire(w, "item-gained", None, 1, extra=iid)


def discardable(w: Work, iid: str, card: HeldItem | None = None) -> bool:
    """S1.3: an item marked ``cannot be discarded`` (``keep``) is not, while its condition holds (read of
    this card, for an item whose cards carry tokens apart)."""
    item = w.game.items[iid]
    if not item.keep:
        return True
    if item.keep_cond is None:
        return False
    if card is not None and card.copy:
        return not as_card(w, key_of(iid, card.copy), condition, w, item.keep_cond, NO_CTX)
    return not condition(w, item.keep_cond, NO_CTX)


def discard_item(w: Work, iid: str, card: HeldItem | None = None) -> None:
    """Discard a held card of this item (``card``: that one; of cards that carry tokens apart and
    differ, the player picks); a card that cannot be discarded now is left alone (S1.3)."""
    found = [(attr, i, h) for attr in ("held", "pack") for i, h in enumerate(getattr(w, attr))
             if h.id == iid and (card is None or h is card)]
    if card is None and found and found[0][2].copy:  # numbered cards: those that may go, then her pick
        found = [f for f in found if discardable(w, iid, f[2])]
        if len(found) > 1:
            got = pick(w, [key_of(iid, h.copy) for _a, _i, h in found], f"Discard which card of "
                                                                          f"{w.game.items[iid].name}?")
            found = [f for f in found if key_of(iid, f[2].copy) == got]
    for attr, i, h in found:
        if discardable(w, iid, h):
            items = getattr(w, attr)
            SETTERS[attr](w, items[:i] + items[i + 1:])
            if spent(w, h):  # S3.4: an ingredient used up has its uses restored as it is discarded
                emit(w, "item", f"discards {w.game.items[h.id].name}, used up: its uses are restored", "S3.4")
            else:
                emit(w, "item", f"discards {w.game.items[h.id].name}", "C6.4")
            discard_tokens(w, iid, h.copy, w.game.items[iid].returns)
            _to_the_table(w, iid, h.copy)
            fire(w, "item-discarded", None, 1, extra=iid)
            return


def _to_the_table(w: Work, iid: str, copy: int = 0) -> None:
    """S3.3–S3.4: an item that returns to the table when discarded does, with all its uses (fresh)."""
    item = w.game.items[iid]
    if item.returns:
        w.table = w.table + (entry_of(iid, copy),)
        emit(w, "item", f"{item.name} returns to the table", "S3.3")


def card_use(w: Work, h: HeldItem, opts: list[Option]) -> None:
    """The Action menu's use of a card that carries tokens apart (engine/copies.py): offered while its
    'usable while' holds of it (K2.5) and it has a use left; one option for cards alike."""
    it = w.game.items[h.id]
    if it.use is None or (it.uses and h.uses <= 0):
        return
    key = key_of(h.id, h.copy)
    if it.usable is not None and not as_card(w, key, condition, w, it.usable, NO_CTX):
        return
    label = f"use {it.name} ({it.use.time} time; {describe(w, key)})"
    if not any(o.label == label and o.key.startswith(f"use:{h.id}#") for o in opts):
        opts.append(opt(w, f"use:{h.id}#{h.copy}", label))


def card_options(w: Work, cards: list[HeldItem], prefix: str) -> list[tuple[Option, HeldItem]]:
    """One option for each item among these cards, and, of an item whose cards carry tokens apart, for
    each card that differs from the others (``prefix:ID#N``, labelled with its tokens)."""
    out: list[tuple[Option, HeldItem]] = []
    seen: set[object] = set()
    items = w.game.items
    for h in cards:
        if h.copy:
            key = key_of(h.id, h.copy)
            alike = (h.id, signature(w, key))
            if alike not in seen:
                seen.add(alike)
                out.append((opt(w, f"{prefix}:{h.id}#{h.copy}", f"{items[h.id].name} ({describe(w, key)})"), h))
        elif h.id not in seen:
            seen.add(h.id)
            out.append((opt(w, f"{prefix}:{h.id}", items[h.id].name), h))
    return out


def search(w: Work, look: int, keep: int, look_mode: bool) -> None:
    """C6.1–C6.3: act on the pile of the search location the Final Girl stands in."""
    b = w.game.board
    if w.fg_loc not in b.pile_of:
        emit(w, "search", "this is not a search location: nothing is found", "C6.1")
        return
    k = b.pile_of[w.fg_loc]
    pile = w.piles[k]
    if not pile:
        emit(w, "search", "the pile is empty: nothing more is found", "C6.3")
        return
    top = pile[:look]
    rest = pile[look:]
    if not look_mode:
        taken = [c for c, _ in top]
        _set_pile(w, k, _turn_top(rest))
        for c in taken:
            gain_item(w, c, "search")
        if taken:
            _offer_on_pile(w, k)
        return
    opts = [Option(f"keep:{c}", w.game.items[c].name) for c in dict.fromkeys(c for c, _ in top)]  # one per item
    kept: list[str] = []
    others = [c for c, _ in top]
    for _ in range(min(keep, len(others))):
        key = ask(w, "search-keep", "Keep which item?", [o for o in opts if o.key[5:] in others])
        c = key[5:]
        kept.append(c)
        others.remove(c)
    new_top: list[tuple[str, bool]] = []
    bottom: list[tuple[str, bool]] = []
    for c in others:
        key = ask(w, "search-return", f"Return {w.game.items[c].name} where?",
                  [Option("top", "on top, face up"), Option("bottom", "on the bottom, face down")])
        if key == "top":
            new_top.append((c, True))
        else:
            bottom.append((c, False))
    if new_top:
        rest_t = tuple(new_top) + tuple(rest)
    else:
        rest_t = tuple(rest)  # C6.2: a face-down top card stays face down
    _set_pile(w, k, rest_t + tuple(bottom))
    if bottom and not new_top:
        emit(w, "search", "returned to the bottom face down; the new top card is not turned up", "C6.2")
    for c in kept:
        gain_item(w, c, "search")
    if kept:
        _offer_on_pile(w, k)


def _offer_on_pile(w: Work, k: int) -> None:
    """K2.5: with an item gained from a pile, each item lying face up on that pile may be taken too."""
    for pile, iid in w.on_piles:
        if pile != k:
            continue
        name = w.game.items[iid].name
        key = ask(w, "take-on-pile", f"{name} lies on this pile: take it too?",
                  [Option("take", f"take {name} too"), Option("leave", f"leave {name} on the pile")])
        if key == "take":
            i = w.on_piles.index((pile, iid))
            w.on_piles = w.on_piles[:i] + w.on_piles[i + 1:]
            gain_item(w, iid, "from the top of the pile")


def _turn_top(pile: Any) -> tuple[tuple[str, bool], ...]:
    if pile and not pile[0][1]:
        return ((pile[0][0], True),) + tuple(pile[1:])
    return tuple(pile)


def _set_pile(w: Work, k: int, pile: Any) -> None:
    piles = list(w.piles)
    piles[k] = tuple(pile)
    w.piles = tuple(piles)


def spent(w: Work, h: HeldItem) -> bool:
    """S3.4: an item kept with its uses spent (an ingredient): no use, no weapon's bonus."""
    return h.uses <= 0 and w.game.items[h.id].uses > 0


def use_uses(w: Work, iid: str, copy: int = 0) -> None:
    """C6.4: spend one use (of card number ``copy``, for an item whose cards carry tokens apart); the
    last use discards the item, unless a recipe needs it (S3.4): it stays with her used up, to be
    discarded as an ingredient (its uses then restored)."""
    for attr in ("held", "pack"):
        items = getattr(w, attr)
        for i, h in enumerate(items):
            if h.id == iid and (not copy or h.copy == copy):
                if h.uses <= 0:  # no uses to count, or a copy kept used up (S3.4): another copy may have some
                    continue
                if h.uses == 1 and iid in w.game.ingredients:
                    SETTERS[attr](w, items[:i] + (evolved(h, uses=0),) + items[i + 1:])
                    emit(w, "item", f"{w.game.items[iid].name} is used up: she keeps it, as a recipe may still "
                                    "use it", "S3.4")
                elif h.uses == 1:
                    SETTERS[attr](w, items[:i] + items[i + 1:])
                    emit(w, "item", f"{w.game.items[iid].name} is used up and discarded", "C6.4")
                    discard_tokens(w, iid, h.copy, w.game.items[iid].returns)
                    _to_the_table(w, iid, h.copy)
                    fire(w, "item-discarded", None, 1, extra=iid)
                else:
                    SETTERS[attr](w, items[:i] + (evolved(h, uses=h.uses - 1),) + items[i + 1:])
                return
