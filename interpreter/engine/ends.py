"""The content's win and lose lines (C13): state-based checks, read after every step.

``win when …`` and ``lose when …`` lines of the sources in play are looked at whenever the game
settles: after every step (driver.py) and between the parts of a phase played in one call
(phases._between_steps). Each line's condition is compiled once (compiled.py). Lines whose fields
are all known (compiled.reads_of), two at most, are not read again while those fields are the
same objects as when they were last read and held none (fields are rebound, never changed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .compiled import compile_condition, reads_of
from .ending import end_game
from .statics import abilities
from .tables import NO_CTX
from .telling import source_of
from .working import COMPILED, field

if TYPE_CHECKING:
    from .working import Work


def check_ends(w: Work) -> None:
    """C13: the win and lose lines in play, unless nothing they read has changed since they were
    last read and held none (``Work.ends_read``: the sources, then two (field, value) pairs; a
    field read twice for one, ``game`` for none)."""
    last = w.ends_read
    if last is not None and last[0] is w.sources and ((
            field(w, last[1]) is last[2] and field(w, last[3]) is last[4]) if COMPILED else (
            (d := w.__dict__)[last[1]] is last[2] and d[last[3]] is last[4])):  # (the plain Work: its __dict__)
        return
    read_ends(w)


def read_ends(w: Work) -> None:
    """Read every win and lose line in play (the first to hold ends the game), and note what they
    read for ``check_ends``."""
    g = w.game
    if not g.has_ends:
        return
    srcs = w.sources  # one tuple per set of sources in play: its id keys the win and lose lines in it
    if srcs is None:
        srcs = abilities(w)
    last = w.ends_read
    if last is not None and last[0] is srcs and field(w, last[1]) is last[2] and field(w, last[3]) is last[4]:
        return  # nothing they read has changed: none holds
    got = g.ends_cache.get(id(srcs))
    if got is None or got[0] is not srcs:  # the lines in play, each with its condition compiled
        every = [reads_of(e.cond) for a in srcs for e in a.ends]
        known = [r for r in every if r is not None]  # (None: a line that reads what cannot be listed)
        got = g.ends_cache[id(srcs)] = (
            srcs, tuple((compile_condition(e.cond), e) for a in srcs for e in a.ends),
            None if len(known) < len(every) else tuple(dict.fromkeys(f for r in known for f in r)))
    lines, reads = got[1], got[2]
    ctx = NO_CTX
    for holds, e in lines:
        if holds(w, ctx):
            end_game(w, "fg" if e.side == "win" else "killer", e.reason or "a scenario or killer condition was met",
                     "C13.1", source_of(w, e))  # the win or lose line that holds: what ended the game
    if reads is not None and len(reads) <= 2:
        fa, fb = (reads + reads + ("game", "game"))[:2]  # one field read twice; none: game (never rebound)
        w.ends_read = (srcs, fa, field(w, fa), fb, field(w, fb))
    else:
        w.ends_read = None
