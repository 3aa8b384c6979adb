"""The Final Girl's numbers: time, health, fear, damage and her last breath (C3.4–C3.7, C14).

Time stays on its track and cannot be gained below 0 (C3.7); her health never exceeds her
starting health (C3.5); fear at its ends turns into time or bloodlust (C3.6); damage past her
health takes her last-breath token, which may turn white and end the phase (C14.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bloodlust import raise_bloodlust
from .ending import defeated
from .steps import PhaseEnd
from .telling import emit, told
from .triggers import FG, fire, would

if TYPE_CHECKING:
    from .working import Work


def gain_time(w: Work, k: int) -> None:
    """C3.7: time stays on the track; while below 0 it cannot be gained."""
    if k <= 0:
        return
    if w.time < 0:
        emit(w, "time", "time is below 0 and cannot be gained", "C3.7")
        return
    got = would(w, "gains-time", k, f"gaining {k} time", FG) if "gains-time" in w.game.listens else k
    if not got:
        return
    new = min(w.game.side.time_max, w.time + got)
    if new != w.time:
        said = w.ctl.said  # told without the call, in a lean step (Replay.said)
        if ("time" in said) if said is not None else told(w, "time"):
            emit(w, "time", f"gains {new - w.time} time (now {new})", "C3.4")
        gained, w.time = new - w.time, new
        if "gains-time" in w.game.listens:
            fire(w, "gains-time", FG, gained)


def lose_time(w: Work, k: int) -> None:
    if k <= 0:
        return
    got = would(w, "loses-time", k, f"losing {k} time", FG) if "loses-time" in w.game.listens else k
    if not got:
        return
    new = max(w.game.side.time_min, w.time - got)
    lost = w.time - new
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("time" in said) if said is not None else told(w, "time"):
        emit(w, "time", f"loses {lost} time (now {new})", "C3.4")
    w.time = new
    if "loses-time" in w.game.listens:
        fire(w, "loses-time", FG, lost)
    if new < 0 and w.phase != "action" and not w.skip_action:
        w.skip_action = True
        emit(w, "time", "time fell below 0 outside the Action phase: the next Action phase is skipped", "C11.4")


def heal(w: Work, k: int) -> None:
    new = min(w.game.fg.health, w.fg_health + max(0, k))
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if new != w.fg_health and (("health" in said) if said is not None else told(w, "health")):
        emit(w, "health", f"heals {new - w.fg_health} (health {new})", "C3.5")
    w.fg_health = new


def raise_fear(w: Work, k: int) -> None:
    if k <= 0:
        return
    got = would(w, "fear-rises", k, f"fear rising by {k}") if "fear-rises" in w.game.listens else k
    if not got:
        return
    before = w.fear
    room = max(0, min(got, w.game.side.fear_max - w.fear))  # the track's steps: a few, never more
    for _ in range(room):
        w.fear += 1
        said = w.ctl.said  # told without the call, in a lean step (Replay.said)
        if ("fear" in said) if said is not None else told(w, "fear"):
            emit(w, "fear", f"fear rises to {w.fear}", "C3.4")
    if got > room:  # the rest at once (a count computed in play may be huge: O(1) in it)
        emit(w, "fear", "fear is at its maximum: bloodlust rises instead" if got - room == 1 else
             f"fear is at its maximum: bloodlust rises by {got - room} instead", "C3.6")
        raise_bloodlust(w, got - room)
    if w.fear > before and "fear-rises" in w.game.listens:
        fire(w, "fear-rises", None, w.fear - before)


def lower_fear(w: Work, k: int) -> None:
    if k <= 0:
        return
    got = would(w, "fear-falls", k, f"fear falling by {k}") if "fear-falls" in w.game.listens else k
    if not got:
        return
    before = w.fear
    room = max(0, min(got, w.fear - w.game.side.fear_min))
    for _ in range(room):
        w.fear -= 1
        said = w.ctl.said  # told without the call, in a lean step (Replay.said)
        if ("fear" in said) if said is not None else told(w, "fear"):
            emit(w, "fear", f"fear falls to {w.fear}", "C3.4")
    if got > room:  # the rest as time, at once
        if ("fear" in said) if (said := w.ctl.said) is not None else told(w, "fear"):  # (Replay.said)
            emit(w, "fear", f"fear is at its minimum: gains {got - room} time instead", "C3.6")
        gain_time(w, got - room)
    if w.fear < before and "fear-falls" in w.game.listens:
        fire(w, "fear-falls", None, before - w.fear)


def fg_damage(w: Work, k: int, rule: str = "C9.6", damage: bool = True) -> None:
    """Damage to the Final Girl (``damage``; else a loss of health, ``lose N health``), with her
    last-breath token (C14.1–C14.2). Once defeated she takes no more (C13.2: the game ends when
    what defeated her has resolved)."""
    if k <= 0 or w.result or w.fg_breath == 0:
        return
    if damage:
        got = (would(w, "takes-damage", k, f"{k} damage to the Final Girl", FG, w.fg_loc)
               if "takes-damage" in w.game.listens else k)
        if not got:
            return
        k = got
    got = (would(w, "loses-health", k, f"the Final Girl losing {k} health", FG, w.fg_loc)
           if "loses-health" in w.game.listens else k)
    if not got:
        return
    k = got
    _lose_health(w, k, rule)
    listens = w.game.listens
    if damage and "takes-damage" in listens:
        fire(w, "takes-damage", FG, k, w.fg_loc)
    if "loses-health" in listens:
        fire(w, "loses-health", FG, k, w.fg_loc)


def _lose_health(w: Work, k: int, rule: str) -> None:
    if k <= w.fg_health:
        w.fg_health -= k
        if ("damage" in said) if (said := w.ctl.said) is not None else told(w, "damage"):  # (Replay.said)
            emit(w, "damage", f"the Final Girl takes {k} damage (health {w.fg_health})", rule, data=("fg", k))
        if w.fg_health == 0:
            emit(w, "breath", "the Final Girl is down to her last breath: +1 die", "C14.2")
        return
    if ("damage" in said) if (said := w.ctl.said) is not None else told(w, "damage"):  # (Replay.said)
        emit(w, "damage", f"the Final Girl takes {k} damage: her last-breath token is lost", rule, data=("fg", k))
    w.fg_health = 0
    if w.fg_breath == 2 and w.fg_breath_value > 0:
        w.fg_breath = 1
        w.fg_health = w.fg_breath_value
        emit(w, "breath", f"her black token shows {w.fg_breath_value}: it turns white and she restores "
                          f"{w.fg_breath_value} health; the phase ends", "C14.2")
        raise PhaseEnd()
    if would(w, "would-be-defeated", 0, "the Final Girl being defeated", FG, w.fg_loc) is None:
        return  # replaced: the block decides what becomes of her
    w.fg_breath = 0
    emit(w, "breath", "her last breath is gone: the Final Girl is defeated", "C14.2")
    defeated(w)
