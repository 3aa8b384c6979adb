"""Exact odds of a fear check (docs/rules.md C2), by counting, never by sampling.

Each die is one of three kinds, each with chance 1/3: a fail (1–2), a 3–4 that may be turned into a
success by discarding two cards from hand (C2.2), or a success (5–6). For ``k`` dice the number of
rolls with ``f`` fails, ``m`` 3–4s and ``s`` successes is the multinomial ``k!/(f! m! s!) · 2^k`` out of
``6^k``, so a check of any size is summed exactly in O(k²) with ``fractions.Fraction``.

With ``hand`` cards left in hand the player may convert up to ``hand // 2`` of the 3–4s; she converts
as many as she needs to reach the best tier she can (C2.2), so the tier reached is the highest one
not above ``s + min(m, hand // 2)``. ``hand=0`` gives the odds without converting.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

__all__ = ["DEFAULT_TIERS", "check_dice", "expected_discards", "outcome_odds", "success_odds"]

DEFAULT_TIERS = (0, 1, 2)


def check_dice(zone_dice: int, card_dice: int = 0, modifiers: int = 0, fg_last_breath: bool = False,
               killer_last_breath: bool = False) -> int:
    """Dice for one check: fear zone + card + statics + adrenaline (C2.1, C2.4, C2.5), at least one."""
    return max(1, zone_dice + card_dice + modifiers + int(fg_last_breath) + int(killer_last_breath))


@lru_cache(maxsize=256)
def _rolls(dice: int) -> tuple[tuple[int, int, Fraction], ...]:
    """(successes, 3–4s, probability) for every split of ``dice`` dice into the three kinds."""
    if dice < 0:
        raise ValueError("the number of dice cannot be negative")
    total = Fraction(1, 3 ** dice)
    out = []
    for s in range(dice + 1):
        for m in range(dice - s + 1):
            ways = comb(dice, s) * comb(dice - s, m)  # the fails take the remaining dice
            out.append((s, m, ways * total))
    return tuple(out)


def _tiers(tiers: tuple[int, ...]) -> tuple[int, ...]:
    if any(t < 0 for t in tiers):
        raise ValueError("tiers are numbers of successes, 0 or more")
    return tuple(sorted(set(tiers) | {0}))


def _tier_of(successes: int, tiers: tuple[int, ...]) -> int:
    best = tiers[0]
    for t in tiers:
        if t <= successes:
            best = t
    return best


def success_odds(dice: int, hand: int = 0) -> dict[int, Fraction]:
    """P(exactly j successes) after converting every 3–4 the hand allows, for j = 0..dice."""
    if hand < 0:
        raise ValueError("the hand size cannot be negative")
    out = {j: Fraction(0) for j in range(dice + 1)}
    for s, m, p in _rolls(dice):
        out[s + min(m, hand // 2)] += p
    return out


def outcome_odds(dice: int, hand: int = 0, tiers: tuple[int, ...] = DEFAULT_TIERS) -> dict[int, Fraction]:
    """P(each outcome tier) of a check with ``dice`` dice and ``hand`` cards left to discard.

    ``tiers`` are the cards' outcome thresholds in successes (0 failure, 1 success, 2 great,
    3 best); the failure tier 0 is always included. Keys come back in ascending order and the
    probabilities sum to exactly 1.
    """
    ts = _tiers(tuple(tiers))
    out = {t: Fraction(0) for t in ts}
    for j, p in success_odds(dice, hand).items():
        out[_tier_of(j, ts)] += p
    return out


def expected_discards(dice: int, hand: int, tiers: tuple[int, ...] = DEFAULT_TIERS) -> Fraction:
    """Mean number of cards discarded when converting only as many 3–4s as the best reachable tier needs."""
    ts = _tiers(tuple(tiers))
    if hand < 0:
        raise ValueError("the hand size cannot be negative")
    mean = Fraction(0)
    for s, m, p in _rolls(dice):
        reached = _tier_of(s + min(m, hand // 2), ts)
        mean += p * 2 * max(0, reached - s)
    return mean
