"""Item cards that carry tokens apart (issue #33 item 3; S1.1–S1.3, S3.3).

Tokens on an item card belong to that card: two cards of a pass item hold their passes apart. An
item whose cards some line of the game's content names as a token holder (``item ID``:
``Game.copy_items``) numbers each of its cards as the card comes into play (``GameState.item_seq``):
a card she holds is a ``HeldItem`` with its number (``copy``), a card on the table or set aside is
written ``ID#N`` there, and the tokens on it lie on the holder ``item:ID#N``. The tokens go where
the card goes: between her hands and her backpack, to the table, aside and back; when the card is
discarded they go where its item says (S1.3, open: back to the supply by default, to the token
discard, or they stay on the card, back to the table with it or out of the game with it). The cards
of any other item are never numbered (a game of them reads and writes nothing here).

Inside an item's own lines (its use, ``when gained``, ``cannot be discarded while``, ``usable
while``) ``item ID`` of its own id is the card they are about (``Scope.copy``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

from .asking import ask, opt
from .draws import shuffled
from .telling import emit
from .triggers import fire

if TYPE_CHECKING:
    from .working import Work

_T = TypeVar("_T")


# --- a card's number and its holder -------------------------------------------------------------------
def base(entry: str) -> str:
    """The item of a card lying on the table or set aside (``ID`` or ``ID#N``)."""
    return entry.partition("#")[0]


def number(entry: str) -> int:
    """The number of a card lying on the table or set aside (0: not numbered)."""
    _iid, sep, k = entry.partition("#")
    return int(k) if sep else 0


def entry_of(iid: str, k: int) -> str:
    return f"{iid}#{k}" if k else iid


def key_of(iid: str, k: int) -> str:
    """The holder of the tokens on card number k of the item."""
    return f"item:{iid}#{k}"


def item_of(key: str) -> str:
    """The item of a card's holder (``item:ID#N``)."""
    return key[5:].partition("#")[0]


def new_number(w: Work, iid: str) -> int:
    """The number of a card of the item coming into play: the next one if its cards carry tokens
    apart, else 0."""
    if iid not in w.game.copy_items:
        return 0
    w.item_seq += 1
    return w.item_seq


def in_zone(w: Work, iid: str, entries: tuple[str, ...]) -> bool:
    """Whether a card of the item lies among the table's (or the set-aside) cards."""
    if iid in entries:
        return True
    if iid in w.game.copy_items:
        head = iid + "#"
        for e in entries:
            if e.startswith(head):
                return True
    return False


# --- the cards in play ----------------------------------------------------------------------------
def cards(w: Work, iid: str) -> list[str]:
    """The holders of the numbered cards of the item in play: in her hands, her backpack, on the
    table, set aside, in that order."""
    out = [key_of(iid, h.copy) for h in (*w.held, *w.pack) if h.id == iid and h.copy]
    head = iid + "#"
    out += ["item:" + e for e in (*w.table, *w.aside) if e.startswith(head)]
    return out


def held_cards(w: Work) -> list[str]:
    """The holders of the numbered cards she holds (hands, then backpack)."""
    return [key_of(h.id, h.copy) for h in (*w.held, *w.pack) if h.copy]


def receiving(w: Work, iid: str) -> list[str]:
    """The cards of the item that tokens put 'on item ID' may go to: those she holds; else those on
    the table; else those set aside."""
    mine = [key_of(iid, h.copy) for h in (*w.held, *w.pack) if h.id == iid and h.copy]
    if mine:
        return mine
    head = iid + "#"
    for zone in (w.table, w.aside):
        there = ["item:" + e for e in zone if e.startswith(head)]
        if there:
            return there
    return []


def signature(w: Work, key: str) -> tuple[tuple[str, str, bool], ...]:
    """What a card shows of its tokens: each token's type, its kind if face up, its face."""
    return tuple(sorted((t, k if up else "", up) for hold, t, k, up in w.token_on if hold == key))


def describe(w: Work, key: str) -> str:
    """The tokens a card shows, for a label: '2 pass tokens', 'a red flare token, a flare token face
    down', 'no tokens'."""
    shown = Counter((t, k, up) for t, k, up in signature(w, key))
    if not shown:
        return "no tokens"
    parts = []
    for (t, k, up), count in shown.items():
        name = w.game.tokens[t].name.lower() if t in w.game.tokens else t
        what = f"{k} {name}" if up and k and k != name else name
        parts.append(f"{count} {what} token{'s' if count > 1 else ''}" + ("" if up else " face down"))
    return ", ".join(parts)


def pick(w: Work, keys: list[str], prompt: str) -> str:
    """One card among these holders: of cards alike (the same item, showing the same tokens), the
    first; the player picks among those that differ."""
    distinct: dict[Any, str] = {}
    for key in keys:
        distinct.setdefault((item_of(key), signature(w, key)), key)
    if len(distinct) == 1:
        return keys[0]
    items = w.game.items
    got = ask(w, "item-card", prompt,
              lambda: [opt(w, f"copy:{key}", f"{items[item_of(key)].name} ({describe(w, key)})")
                       for key in distinct.values()])
    return got[5:]


def as_card(w: Work, key: str, fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` with ``item ID`` of the card's own item meaning this card (its own lines)."""
    scope = w.scope
    saved = scope.copy
    scope.copy = key
    try:
        return fn(*args)
    finally:
        scope.copy = saved


# --- a card discarded (S1.3, open) ------------------------------------------------------------------
def discard_tokens(w: Work, iid: str, k: int, to_table: bool) -> None:
    """The tokens on a discarded card go where its item says: back to the supply (the default), to
    the token discard, or they stay on the card (back to the table with it, else out of the game)."""
    if not k or not w.token_on:
        return
    key = key_of(iid, k)
    here = [t for t in w.token_on if t[0] == key]
    if not here:
        return
    fate = w.game.items[iid].discarded_tokens
    if fate == "stay" and to_table:
        return
    w.token_on = tuple(t for t in w.token_on if t[0] != key)
    name = w.game.items[iid].name
    for token in dict.fromkeys(t for _h, t, _k, _up in here):
        got = [(kind, up) for _h, t, kind, up in here if t == token]
        what = _words(w, token, got)
        if fate == "stay":
            emit(w, "token", f"{what} on {name} leave{'s' if len(got) == 1 else ''} the game with it", "S1.3")
        elif fate == "discard":
            w.token_discard = w.token_discard + tuple((token, kind) for kind, _up in got)
            emit(w, "token", f"{what} on {name} go{'es' if len(got) == 1 else ''} to the token discard", "S1.3")
        else:
            w.supply = shuffled(w, w.supply + tuple((token, kind) for kind, _up in got))
            emit(w, "token", f"{what} on {name} return{'s' if len(got) == 1 else ''} to the supply", "S1.3")
        fire(w, "token-removed", None, len(got), extra=token)


def _words(w: Work, token: str, got: list[tuple[str, bool]]) -> str:
    name = w.game.tokens[token].name.lower() if token in w.game.tokens else token
    kinds = {k for k, up in got if up}
    one = len(kinds) == 1 and all(up for _k, up in got) and next(iter(kinds)) != name
    what = f"{next(iter(kinds))} {name}" if one else name
    return f"a {what} token" if len(got) == 1 else f"{len(got)} {what} tokens"


def first_card(w: Work, iid: str, keys: Optional[list[str]] = None) -> str:
    """The holder of the first numbered card of the item in play, or ""."""
    got = keys if keys is not None else cards(w, iid)
    return got[0] if got else ""
