"""Bloodlust and victims: deaths, the bloodlust track, panic (C9.7, C10, C17.2).

Every victim death raises the killer's bloodlust (C9.7); the track's levels give movement and
damage and may carry a one-time effect, and raising it at the top resolves the top effect
instead (C17.2). Victims sharing a location with an enemy panic after a round with a death,
fleeing along the path marked with the die they roll (C10).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .draws import roll_die
from .moves import PLAIN_VICTIM, Hop, arrived, hops_along, how_far, leaving
from .resolve import run
from .statics import victim_tables
from .tables import Ctx
from .telling import emit, told
from .triggers import fire, would
from .victims import NONE, describe, marks_at, move, pick, take, victim_piece
from .words import loc_name

if TYPE_CHECKING:
    from .working import Work

MAX_TOP_EFFECTS = 100  # the top effect resolves at most this often for one rise (docs/rules.md, C17.2)


def raise_bloodlust(w: Work, k: int, cause: str = "other") -> None:
    """C17.2: one level per point; a level's effect fires once; at the top the top effect resolves.
    ``cause``: kill (a victim's death), killer or minion (a victim they killed), other."""
    if k <= 0:
        return
    got = (would(w, "bloodlust-rises", k, f"bloodlust rising by {k}", cause=cause)
           if "bloodlust-rises" in w.game.listens else k)
    if not got:
        return
    k = got
    levels = w.game.levels
    top = k
    # the levels left, a few, never more; a level's effect may itself raise bloodlust, so the top
    # is looked at again before each step
    while top > 0 and w.bloodlust < len(levels) - 1:
        top -= 1
        w.bloodlust += 1
        if ("bloodlust" in said) if (said := w.ctl.said) is not None else told(w, "bloodlust"):  # (Replay.said)
            emit(w, "bloodlust", f"bloodlust rises to {w.bloodlust + 1}", "C17.2", data=(w.bloodlust + 1,))
        if w.bloodlust not in w.lust_fired and levels[w.bloodlust].effects:
            w.lust_fired = w.lust_fired | {w.bloodlust}
            run(w, levels[w.bloodlust].effects, w.game.source_ctx["bloodlust"])
    if top > MAX_TOP_EFFECTS:  # a rise computed in play may be huge: the top effect runs a bounded number of times
        emit(w, "bloodlust", f"bloodlust is at its maximum {top} times: the top effect resolves "
                             f"{MAX_TOP_EFFECTS} times (the limit), {top - MAX_TOP_EFFECTS} are dropped", "C17.2")
        top = MAX_TOP_EFFECTS
    for _ in range(top):
        emit(w, "bloodlust", "bloodlust is at its maximum: the top effect resolves", "C17.2")
        run(w, w.game.killer.at_max, Ctx("bloodlust"))
    if "bloodlust-rises" in w.game.listens:
        fire(w, "bloodlust-rises", None, k, cause=cause)


def lower_bloodlust(w: Work, k: int) -> None:
    new = max(0, w.bloodlust - max(0, k))
    if new != w.bloodlust and (
            ("bloodlust" in said) if (said := w.ctl.said) is not None else told(w, "bloodlust")):  # (Replay.said)
        emit(w, "bloodlust", f"bloodlust falls to {new + 1}", "C17.2", data=(new + 1,))
    w.bloodlust = new


def set_victims(w: Work, loc: int, count: int) -> None:
    v = list(w.victims)
    v[loc] = count
    w.victims = tuple(v)


def kill_victim(w: Work, loc: int, cause: str, by: int = -1, minion: str = "", which: Any = NONE) -> None:
    """A victim dies: it is counted and raises bloodlust (C9.7); ``by``: the killer body that killed
    it, ``minion``: the kind of minion that did; ``which``: the victim (victims.pick), else the player
    picks among those there she can tell apart."""
    if w.victims[loc] <= 0:
        return
    if which is NONE and w.marked:
        which = pick(w, loc, "Which victim dies?", "victim-dies")
    m = None if which is NONE else which
    victim = victim_piece(w, m, loc)
    if "dies" in w.game.listens and would(w, "dies", 1, f"{describe(w, m)} dying", victim, loc) is None:
        return
    if m is not None and not any(x.uid == m.uid for x in w.marked):
        return  # the replacement took it off the board, or changed it: it did not die
    if w.victims[loc] <= 0:
        return
    take(w, loc, m)
    w.dead += 1
    w.deaths_round += 1
    if ("death" in said) if (said := w.ctl.said) is not None else told(w, "death"):  # (Replay.said)
        emit(w, "death", f"{describe(w, m)} dies at {loc_name(w, loc)} ({cause})", "C9.7", data=(loc,))
    raise_bloodlust(w, 1, "killer" if by >= 0 else "minion" if minion else "kill")
    fire(w, "dies", victim, 1, loc)
    if by >= 0:
        fire(w, "kills", ("killer", w.killers[by].body if 0 <= by < len(w.killers) else "", by), 1, loc)
    elif minion:
        fire(w, "kills", ("minion", minion, -1), 1, loc)


def panic_location(w: Work, loc: int, count: int = -1, marked: Any = None) -> None:
    """C10.2: each panicking victim rolls a die and flees along the path with that number.
    ``count``: how many plain ones panic (-1: all); ``marked``: the uids of those not plain that do
    (None: all there)."""
    panic = victim_tables(w)[3][loc]  # the paths victims may use
    if w.marked and (marked or (marked is None and marks_at(w, loc))):
        _panic_marked(w, loc, count, marked, panic)
        return
    if count < 0:
        count = w.victims[loc]
    for _ in range(min(count, w.victims[loc])):
        face = roll_die(w)
        dest = panic.get(face, -1)
        if dest < 0:
            emit(w, "panic", f"a victim at {loc_name(w, loc)} rolls {face} and stays", "C10.2")
            continue
        hops: list[Hop] = []
        if "victim" in w.game.movers_watched:  # the events of a move (moves.py): it may be stopped
            hops = hops_along(w, [loc, dest])
            if not how_far(w, PLAIN_VICTIM, hops, "a victim"):
                continue
            leaving(w, PLAIN_VICTIM, hops)
        set_victims(w, loc, w.victims[loc] - 1)
        set_victims(w, dest, w.victims[dest] + 1)
        if ("panic" in said) if (said := w.ctl.said) is not None else told(w, "panic"):  # (Replay.said)
            emit(w, "panic", f"a victim at {loc_name(w, loc)} rolls {face} and flees to {loc_name(w, dest)}", "C10.2")
        arrived(w, PLAIN_VICTIM, hops)


def _panic_marked(w: Work, loc: int, count: int, uids: Any, panic: dict[int, int]) -> None:
    """C10.2 at a location with victims that are not plain: the plain ones first, then each other
    one, uid by uid; each who flees takes its kind, statuses and tokens with it."""
    marks = marks_at(w, loc)
    plain = w.victims[loc] - len(marks)
    if uids is None:
        uids = [m.uid for m in marks]
    who: list[Any] = [None] * (plain if count < 0 else min(count, plain)) + sorted(uids)
    for uid in who:
        m = None if uid is None else next((x for x in w.marked if x.uid == uid and x.loc == loc), NONE)
        if m is NONE or (m is None and w.victims[loc] - len(marks_at(w, loc)) <= 0):
            continue  # gone meanwhile
        face = roll_die(w)
        dest = panic.get(face, -1)
        name = describe(w, m)
        if dest < 0:
            emit(w, "panic", f"{name} at {loc_name(w, loc)} rolls {face} and stays", "C10.2")
            continue
        hops: list[Hop] = []
        mover = victim_piece(w, m, loc)
        if "victim" in w.game.movers_watched:  # the events of a move (moves.py): it may be stopped
            hops = hops_along(w, [loc, dest])
            if not how_far(w, mover, hops, name):
                continue
            leaving(w, mover, hops)
        move(w, loc, dest, m)
        emit(w, "panic", f"{name} at {loc_name(w, loc)} rolls {face} and flees to {loc_name(w, dest)}", "C10.2")
        arrived(w, mover, hops)
