"""What the player sees of a game state: one account of its hidden parts (docs/decisions/0025).

Every field of the state (``serialize.STATE_FIELDS``) is replay bookkeeping (``BOOKKEEPING``: how
the state was reached, not the game), hidden in part (``HIDDEN``: what of it the player cannot
see), or public (all the others). Two readers show a state as the player sees it: the protocol
(``serve.public_state``, as JSON) and the expert bot (``expert.public``: its worlds must look
alike). Both mask by ``seen`` and ``hidden_kind``; the tests hold them to it: every field is
classified, and neither view changes when everything hidden is drawn anew (tests/test_visible.py).
"""

from __future__ import annotations

from typing import Any

from .serialize import STATE_FIELDS
from .state import GameState, MarkedVictim, evolved

# the replay's bookkeeping: the seed and generator position, the forced dice, the answers and events
# of the step so far (a state's checkpoint and pending choice are not among its saved fields)
BOOKKEEPING = frozenset({"seed", "rng", "dice", "answers", "events_seen"})

# what of each field is hidden (the rule that makes it so)
HIDDEN: dict[str, str] = {
    "terror": "the terror deck, face down: how many cards are left (C8)",
    "events": "the event deck, face down: how many cards are left (C9)",
    "breath_bag": "the last-breath tokens in the bag: how many (C14.2)",
    "supply": "content tokens face down on the table: how many (S5.1)",
    "decks": "content decks, face down: how many cards each has left",
    "item_piles": "named item piles, face down: how many items each has left (S3.1)",
    "piles": "search piles: the face-down items' names (C6.2)",
    "tokens_down": "face-down tokens on the board: their kinds (S5.1)",
    "token_on": "face-down tokens on cards and pieces: their kinds (S1.3)",
    "killers": "a killer's black last-breath token, face down: its value (C14.2)",
    "fg_breath_value": "her black last-breath token, face down: its value (C17.1)",
    "marked": "a victim of a hidden kind not yet revealed: its kind (K2.1)",
    "finale": "the finale, until revealed (C11.1)",
    "dark_power": "the dark power, until revealed (C11.1)",
}

# the fields a view shows (masked by ``seen`` where HIDDEN names them)
VIEWED: tuple[str, ...] = tuple(name for name in STATE_FIELDS if name not in BOOKKEEPING)


def hidden_kind(state: GameState, m: MarkedVictim) -> bool:
    """Whether the victim's kind is hidden from her: a kind declared ``hidden``, not yet revealed."""
    k = state.game.victim_kinds.get(m.kind) if m.kind else None
    return k is not None and k.hidden and not m.revealed


def seen(state: GameState, name: str) -> Any:
    """A field of the state as the player sees it (hidden orders and faces counted or blanked), as
    values that compare alike exactly when she cannot tell two states apart there."""
    v = getattr(state, name)
    if name not in HIDDEN:
        return v
    if name in ("terror", "events", "breath_bag", "supply"):
        return len(v)
    if name in ("decks", "item_piles"):
        return tuple((d, len(cards)) for d, cards in v)
    if name == "piles":
        return tuple(tuple((c if up else None, up) for c, up in pile) for pile in v)
    if name == "tokens_down":
        return tuple((t, at) for t, _k, at in v)
    if name == "token_on":
        return tuple((h, t, k if up else None, up) for h, t, k, up in v)
    if name == "killers":
        return tuple(evolved(k, breath_value=-1) if k.breath == 2 else k for k in v)
    if name == "marked":
        return tuple(evolved(m, kind="?") if hidden_kind(state, m) else m for m in v)
    if name == "fg_breath_value":
        return None if state.fg_breath == 2 else v
    if name == "finale":
        return v if state.finale_revealed else None
    if name == "dark_power":
        return v if state.dark_revealed else None
    raise AssertionError(f"HIDDEN names {name!r} but seen() does not mask it")  # tests/test_visible.py
