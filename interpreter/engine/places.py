"""Places: which location a place in parentheses picks when its effect resolves (K6.1, K6.3).

A location slot holds a location id or a special name (``here``, ``killer-location``, …:
``resolve.loc``) or a place node, picked here by ``place_<snake_case_class_name>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n

from ..state import Option
from .continuation import ask
from .resolve import PLACE
from .statics import fg_tables

if TYPE_CHECKING:
    from .continuation import Work


def locations_of(w: Work, among: str) -> list[int]:
    """The locations of a set, in board order: exit, search, any, or those with a tag."""
    b = w.game.board
    if among == "exit":
        return sorted(b.exits)
    if among == "search":
        return list(b.search_locs)
    if among == "any":
        return list(range(b.n))
    return [i for i in range(b.n) if among in b.tags[i]]


def place_pick_place(w: Work, p: n.PickPlace) -> int:
    """(chosen SET) the player's pick (K6.1); (SET with fewest MINION [farthest from fg | nearest
    to fg]) the one with the fewest of those minions, ties by distance to the FG, then board order (K6.3)."""
    cands = locations_of(w, p.among)
    if not cands:
        return -1
    if p.how == "chosen":
        if len(cands) == 1:
            return cands[0]
        b = w.game.board
        key = ask(w, "place", "Choose a location", [Option(f"place:{b.ids[c]}", b.names[c]) for c in cands])
        return b.index[key[6:]]
    counts = {c: 0 for c in cands}
    for m in w.minions:
        if m.kind == p.minion and m.loc in counts:
            counts[m.loc] += 1
    low = min(counts.values())
    cands = [c for c in cands if counts[c] == low]
    if len(cands) > 1 and p.tie:
        fgd = fg_tables(w)[1][w.fg_loc]
        if p.tie == "farthest":
            top = max(fgd[c] for c in cands)
        else:
            top = min(fgd[c] for c in cands)
        cands = [c for c in cands if fgd[c] == top]
    return cands[0]


PLACE.update(n.functions(n.Place, globals(), "place_"))
