"""Playing cards: the fear check, its dice, conversions and rerolls, and the outcome (C2, C3).

A card's fear check rolls the dice of the Final Girl's fear zone, plus the card's own and the
rules' modifiers and adrenaline, at least one (C2.1, C2.4, C2.5); 5–6 succeed, a 3–4 may be
turned into a success by discarding two cards, reroll cards reroll some dice (C2.2, C2.6); the
number of successes picks the outcome (C2.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from lastbreath.dsl import nodes as n

from ..state import Option
from .asking import ask, opt
from .draws import roll_die
from .killers import killer_last_breath_dice
from .resolve import cover, run
from .statics import modified
from .tables import Ctx
from .telling import emit, told
from .zones import usable

if TYPE_CHECKING:
    from .working import Work

# options that never change, made once
_ACCEPT = Option("accept", "accept the roll")
_CONVERT = Option("convert", "discard two cards to turn a 3–4 into a success")
_ACCEPT_ONLY = (_ACCEPT,)
_TIERS = {0: "failure", 1: "success", 2: "great success"}


def _successes(k: int) -> str:
    return "no successes" if k == 0 else "1 success" if k == 1 else f"{k} successes"


MAX_DICE = 20  # the dice of one fear check, at most (rules that add dice add up without end)


def dice_for(w: Work, card: n.Card) -> int:
    """C2.1, C2.4, C2.5: dice by fear zone, card and statics, adrenaline; at least one."""
    k = w.game.dice_by_fear.get(w.fear, 1) + card.dice
    if "dice" in w.game.rule_queries:  # modified(…), its kept answer read without the call where kept
        got = w.found.get(("dice", k)) if w.sources is not None else None
        k = got[0] if got is not None else modified(w, "dice", k)
    if w.fg_health == 0 and w.fg_breath > 0:
        k += 1
    k += killer_last_breath_dice(w)
    if k > MAX_DICE:
        emit(w, "roll", f"{k} dice would be rolled: {MAX_DICE} are (the most a fear check rolls)", "C2.1")
        return MAX_DICE
    return max(1, k)


def fear_check(w: Work, card: n.Card) -> int:
    """Roll, then convert 3–4s by discarding two cards each or play reroll cards (C2.2, C2.6)."""
    faces = []
    for _ in range(dice_for(w, card)):
        faces.append(roll_die(w))
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("roll" in said) if said is not None else told(w, "roll"):
        emit(w, "roll", f"fear check for {card.name}: rolls {faces}", "C2.1")
    converted = 0
    rerolls = w.game.reroll_cards
    while True:
        # C2.2: a 3–4 not yet turned into a success, and two cards to discard (faces are 1 to 6)
        convertible = faces.count(3) + faces.count(4) > converted and len(w.hand) >= 2

        def menu() -> list[Option]:
            opts = [_ACCEPT]
            if convertible:
                opts.append(_CONVERT)
            for cid in dict.fromkeys(w.hand):
                if cid not in rerolls:
                    continue
                c = w.game.cards[cid]
                if c.usable is not None and not usable(w, c.usable):  # K1.7: 'usable while'
                    continue
                if _reroll(list(faces), c, converted) != faces:
                    opts.append(opt(w, f"reroll:{cid}", f"play {c.name} to reroll"))
            return opts

        # nothing to convert and no reroll card in the hand: the menu is the roll accepted, built once
        plain = not convertible and rerolls.isdisjoint(w.hand)
        key = ask(w, "check", lambda: f"Rolled {faces}: {_successes(faces.count(5) + faces.count(6) + converted)}",
                  _ACCEPT_ONLY if plain else menu)
        if key == "accept":
            break
        if key == "convert":
            for i in range(2):
                convert = w.game.convert_opts
                cards = []
                for c in dict.fromkeys(w.hand):
                    cards.append(convert[c])
                dk = ask(w, "convert-discard", f"Discard which card ({i + 1} of 2)?", cards)
                discard_card(w, dk[8:], "C2.2")
            converted += 1
            if ("convert" in said) if (said := w.ctl.said) is not None else told(w, "convert"):  # (Replay.said)
                emit(w, "convert", "a 3–4 becomes a success", "C2.2")
            continue
        cid = key[7:]
        rc = w.game.cards[cid]
        _remove_from_hand(w, cid)
        w.spent = w.spent + (cid,)
        faces_before = faces
        faces = _reroll_live(w, faces, rc, converted)
        if ("reroll" in said) if (said := w.ctl.said) is not None else told(w, "reroll"):  # (Replay.said)
            emit(w, "reroll", f"plays {rc.name}: {faces_before} -> {faces}", "C2.6")
    return faces.count(5) + faces.count(6) + converted


def _reroll_targets(faces: list[int], card: n.Card, converted: int) -> list[int]:
    if card.reroll == "fails":
        return [i for i, f in enumerate(faces) if f <= 2]
    k = int(card.reroll)
    # lowest non-successes first, but never the 3–4s already turned into successes
    protected = converted
    cands = sorted((f, i) for i, f in enumerate(faces) if f < 5)
    out: list[int] = []
    for f, i in cands:
        taken34 = len([j for j in out if faces[j] in (3, 4)])
        if f in (3, 4) and protected > 0 and sum(1 for g in faces if g in (3, 4)) - taken34 <= protected:
            continue
        out.append(i)
    return out[:k]


def _reroll(faces: list[int], card: n.Card, converted: int) -> list[int]:
    idx = _reroll_targets(faces, card, converted)
    return faces if not idx else [0 if i in idx else f for i, f in enumerate(faces)]


def _reroll_live(w: Work, faces: list[int], card: n.Card, converted: int) -> list[int]:
    idx = set(_reroll_targets(faces, card, converted))
    return [roll_die(w) if i in idx else f for i, f in enumerate(faces)]


def outcome_for(card: n.Card, successes: int) -> Optional[n.Outcome]:
    best = None
    for o in card.outcomes:
        if o.min_successes <= successes:
            best = o
    return best


def _remove_from_hand(w: Work, cid: str) -> None:
    h = list(w.hand)
    h.remove(cid)
    w.hand = tuple(h)


def discard_card(w: Work, cid: str, rule: str) -> None:
    h = list(w.hand)  # _remove_from_hand, written out (cards are played and discarded often)
    h.remove(cid)
    w.hand = tuple(h)
    w.spent = w.spent + (cid,)
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("discard" in said) if said is not None else told(w, "discard"):
        emit(w, "discard", f"discards {w.game.cards[cid].name}", rule)


def play_card(w: Work, cid: str, ctx: Ctx) -> None:
    """C2.1, C2.3: play a card from the hand: its fear check picks the outcome that resolves."""
    card = w.game.cards[cid]
    h = list(w.hand)  # _remove_from_hand, written out
    h.remove(cid)
    w.hand = tuple(h)
    w.spent = w.spent + (cid,)
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("play" in said) if said is not None else told(w, "play"):
        emit(w, "play", f"plays {card.name}", "C2.1", data=(cid,))
    succ = fear_check(w, card)
    out = outcome_for(card, succ)
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("outcome" in said) if said is not None else told(w, "outcome"):
        tier = _TIERS.get(out.min_successes if out else 0) or f"{succ}+ successes"
        emit(w, "outcome", f"{_successes(succ)}: {tier}", "C2.3")
    if out is not None:
        cover(out.span)
        run(w, out.effects, ctx)
