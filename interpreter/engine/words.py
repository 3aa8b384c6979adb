"""Words for the log: locations by name, counts with their nouns."""

from __future__ import annotations

from typing import Any


def count_of(k: int, word: str, none: str = "") -> str:
    """A count with its noun, plural by count ("1 victim", "2 victims"); ``none`` for 0 if given
    ("no victims")."""
    if k == 0 and none:
        return none
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def a_or_an(word: str) -> str:
    """The indefinite article for a word, by its first letter."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def loc_name(w: Any, i: int) -> str:
    """The name of a location of the board, or 'off the board'."""
    b = w.game.board
    return b.names[i] if 0 <= i < b.n else "off the board"
