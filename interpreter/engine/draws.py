"""Draws: all randomness comes from the state's (seed, counter), so a step replays exactly.

A die shows the state's forced faces first (``state.dice``, set by a position), then draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import rng

if TYPE_CHECKING:
    from .working import Work


def roll_die(w: Work) -> int:
    """A die: the first of the state's forced faces (``state.dice``, set by a position), else a draw."""
    forced = w.dice
    if forced:
        w.dice = forced[1:]
        return forced[0]
    # rng.draw(w.seed, w.rng, 6) + 1, written out: a die is rolled ~55 times a game (a crowd wandering)
    # and the call cost as much as the draw; tests/test_properties.py checks the two stay equal
    z = ((w.seed * 0x100000001B3 + w.rng) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    w.rng += 1
    return ((z ^ (z >> 31)) >> 11) % 6 + 1


_MASK = rng.MASK


def rand(w: Work, k: int) -> int:
    v = rng.draw(w.seed, w.rng, k)
    w.rng += 1
    return v


def shuffled(w: Work, items: Any) -> tuple[Any, ...]:
    """Fisher–Yates from the last card down, with the draws of rand() (rng.draw for counters
    w.rng, w.rng+1, …), made all at once (rng.raw_draws)."""
    out = list(items)
    n = len(out)
    if n < 2:
        return tuple(out)
    raw = rng.raw_draws(w.seed, w.rng, n - 1)
    w.rng += n - 1
    for i, r in zip(range(n - 1, 0, -1), raw):
        j = r % (i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)

