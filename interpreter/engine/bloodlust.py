"""Bloodlust and victims: deaths, the bloodlust track, panic (C9.7, C10, C17.2).

Every victim death raises the killer's bloodlust (C9.7); the track's levels give movement and
damage and may carry a one-time effect, and raising it at the top resolves the top effect
instead (C17.2). Victims sharing a location with an enemy panic after a round with a death,
fleeing along the path marked with the die they roll (C10).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .continuation import emit, roll_die
from .resolve import Ctx, run
from .statics import victim_tables
from .triggers import fire, would
from .words import loc_name

if TYPE_CHECKING:
    from .continuation import Work

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
        emit(w, "bloodlust", f"bloodlust rises to {w.bloodlust + 1}", "C17.2")
        if w.bloodlust not in w.lust_fired and levels[w.bloodlust].effects:
            w.lust_fired = w.lust_fired | {w.bloodlust}
            run(w, levels[w.bloodlust].effects, Ctx(source="bloodlust"))
    if top > MAX_TOP_EFFECTS:  # a rise computed in play may be huge: the top effect runs a bounded number of times
        emit(w, "bloodlust", f"bloodlust is at its maximum {top} times: the top effect resolves "
                             f"{MAX_TOP_EFFECTS} times (the limit), {top - MAX_TOP_EFFECTS} are dropped", "C17.2")
        top = MAX_TOP_EFFECTS
    for _ in range(top):
        emit(w, "bloodlust", "bloodlust is at its maximum: the top effect resolves", "C17.2")
        run(w, w.game.killer.at_max, Ctx(source="bloodlust"))
    fire(w, "bloodlust-rises", None, k, cause=cause)


def lower_bloodlust(w: Work, k: int) -> None:
    new = max(0, w.bloodlust - max(0, k))
    if new != w.bloodlust:
        emit(w, "bloodlust", f"bloodlust falls to {new + 1}", "C17.2")
    w.bloodlust = new


def set_victims(w: Work, loc: int, count: int) -> None:
    v = list(w.victims)
    v[loc] = count
    w.victims = tuple(v)


def kill_victim(w: Work, loc: int, cause: str, by: int = -1, minion: str = "") -> None:
    """A victim dies: it is counted and raises bloodlust (C9.7); ``by``: the killer body that killed
    it, ``minion``: the kind of minion that did."""
    if w.victims[loc] <= 0:
        return
    victim = ("victim", "", loc)
    if "dies" in w.game.listens and would(w, "dies", 1, "a victim dying", victim, loc) is None:
        return
    set_victims(w, loc, w.victims[loc] - 1)
    w.dead += 1
    w.deaths_round += 1
    emit(w, "death", f"a victim dies at {loc_name(w, loc)} ({cause})", "C9.7")
    raise_bloodlust(w, 1, "killer" if by >= 0 else "minion" if minion else "kill")
    fire(w, "dies", victim, 1, loc)
    if by >= 0:
        fire(w, "kills", ("killer", w.killers[by].body if 0 <= by < len(w.killers) else "", by), 1, loc)
    elif minion:
        fire(w, "kills", ("minion", minion, -1), 1, loc)


def panic_location(w: Work, loc: int, count: int = -1) -> None:
    """C10.2: each panicking victim rolls a die and flees along the path with that number."""
    panic = victim_tables(w)[3][loc]  # the paths victims may use
    if count < 0:
        count = w.victims[loc]
    for _ in range(min(count, w.victims[loc])):
        face = roll_die(w)
        dest = panic.get(face, -1)
        if dest < 0:
            emit(w, "panic", f"a victim at {loc_name(w, loc)} rolls {face} and stays", "C10.2")
            continue
        set_victims(w, loc, w.victims[loc] - 1)
        set_victims(w, dest, w.victims[dest] + 1)
        emit(w, "panic", f"a victim at {loc_name(w, loc)} rolls {face} and flees to {loc_name(w, dest)}", "C10.2")
