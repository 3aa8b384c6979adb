"""The killers' health and bodies (C17.1, C17.4, C2.5, K6.6–K6.7).

A killer board's body has health and a black last-breath token, as the Final Girl (C17.1); a
secondary dark power absorbs damage first (C17.4). Bodies formed in play from minions (K6.6)
have no last-breath token: at 0 health they are gone. With several bodies on the board, an
effect on "the killer" means one of them (``the_killer``, the open K6.7 default in
docs/decisions/0004).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..state import KillerState, MinionState
from .bodies import Piece, body_name, the_killer
from .continuation import PhaseEnd, emit
from .ending import defeated, killer_defeated
from .statics import modified
from .triggers import fire, would
from .words import count_of, loc_name

if TYPE_CHECKING:
    from .continuation import Work


def killer_last_breath_dice(w: Work) -> int:
    """C2.5, K2.9: one extra die while any killer on the board is down to its last breath."""
    return 1 if any(k.alive and k.loc >= 0 and k.health == 0 for k in w.killers) else 0


def damage_killer(w: Work, idx: int, k: int, rule: str = "C3.8") -> None:
    """Damage to a body: the secondary dark power first (C17.4), then health and last breath (C17.1).
    A body already defeated takes no more (C13.2: the game may not have ended yet)."""
    if k <= 0 or w.result or not w.killers[idx].alive:
        return
    k = modified(w, "damage-to-killer", k)
    if k <= 0:
        emit(w, "damage", "the damage is reduced to nothing", "C17.4")
        return
    body = ("killer", "", idx)
    got = would(w, "takes-damage", k, f"{k} damage to {body_name(w, idx)}", body, w.killers[idx].loc)
    if not got:
        return
    k = got
    if w.secondary:
        absorbed = min(k, w.secondary_health)
        w.secondary_health -= absorbed
        k -= absorbed
        emit(w, "damage", f"the secondary dark power absorbs {absorbed} damage", "C17.4")
        if w.secondary_health <= 0:
            emit(w, "secondary", "the secondary dark power's health is gone: it is removed", "C17.4")
            w.secondary = ""
            w.secondary_health = 0
        if k <= 0:
            return
    ks = list(w.killers)
    kil = ks[idx]
    if kil.label:  # a body formed during the game has no last-breath token (K6.6): at 0 health it is gone
        if k < kil.health:
            ks[idx] = evolve_killer(kil, health=kil.health - k)
            w.killers = tuple(ks)
            emit(w, "damage", f"{kil.label} takes {k} damage (health {kil.health - k})", rule)
            return
        del ks[idx]
        w.killers = tuple(ks)
        emit(w, "damage", f"{kil.label} takes {k} damage and is destroyed", rule)
        fire(w, "dies", ("killer", "", -1), k, kil.loc)
        return
    if k <= kil.health:
        kil = evolve_killer(kil, health=kil.health - k)
        ks[idx] = kil
        w.killers = tuple(ks)
        emit(w, "damage", f"the killer takes {k} damage (health {kil.health})", rule)
        if kil.health == 0:
            emit(w, "breath", "the killer is down to its last breath: +1 die", "C2.5")
        fire(w, "takes-damage", body, k, kil.loc)
        return
    emit(w, "damage", "the killer takes damage: its last-breath token is lost", rule)
    if kil.breath == 2 and kil.breath_value > 0:
        kil = evolve_killer(kil, breath=1, health=kil.breath_value)
        ks[idx] = kil
        w.killers = tuple(ks)
        emit(w, "breath", f"its black token shows {kil.breath_value}: it turns white and the killer restores "
                          f"{kil.breath_value} health; the phase ends", "C17.1")
        raise PhaseEnd()
    if would(w, "would-be-defeated", 0, f"{body_name(w, idx)} being defeated", body, kil.loc) is None:
        return  # replaced: the block decides what becomes of it
    ks = list(w.killers)
    kil = evolve_killer(ks[idx], breath=0, health=0, alive=False)
    ks[idx] = kil
    w.killers = tuple(ks)
    emit(w, "breath", "the killer's last breath is gone: the killer is defeated", "C17.1")
    fire(w, "dies", body, 0, kil.loc)
    if killer_defeated(w):
        defeated(w)


def evolve_killer(k: KillerState, **kw: Any) -> KillerState:
    """A copy of a body with some fields changed."""
    d = dict(k.__dict__)
    d.update(kw)
    return KillerState(**d)


def heal_killer(w: Work, k: int, idx: int = -1) -> None:
    """Heal the body ``idx`` (default: the killer, see ``the_killer``); up to its starting health (C17.1)."""
    if idx < 0:
        idx = the_killer(w)
    if idx < 0:
        return
    ks = list(w.killers)
    kil = ks[idx]
    new = min(modified(w, "killer-cap", w.game.killer.health), kil.health + k)  # K5.1 may lift the cap
    ks[idx] = evolve_killer(kil, health=new)
    w.killers = tuple(ks)
    emit(w, "health", f"{body_name(w, idx)} heals to {new}", "")


# --- pieces: killer bodies and minions ------------------------------------------------------
def update_piece(w: Work, piece: Piece, **changes: Any) -> None:
    """Replace one killer or minion with a copy that has some fields changed."""
    kind, i = piece
    if kind == "killer":
        ks = list(w.killers)
        ks[i] = evolve_killer(ks[i], **changes)
        w.killers = tuple(ks)
    else:
        ms = list(w.minions)
        d = dict(ms[i].__dict__)
        d.update(changes)
        ms[i] = MinionState(**d)
        w.minions = tuple(ms)


def enemies_at(w: Work, who: str, loc: int) -> list[Piece]:
    """The pieces an effect on enemies means: the killer (``who`` = killer), or every enemy at LOC."""
    if who == "killer":
        i = the_killer(w)
        return [("killer", i)] if i >= 0 and w.killers[i].loc >= 0 else []
    return ([("killer", i) for i, k in enumerate(w.killers) if k.alive and k.loc == loc]
            + [("minion", i) for i, m in enumerate(w.minions) if m.loc == loc])


def absorb(w: Work) -> None:
    """K6.7 as a rule: a killer body sharing a location with absorbable minions takes them in, +1 health each."""
    kinds = modified(w, "absorbs", frozenset())
    if not kinds:
        return
    for i, kil in enumerate(w.killers):
        if not (kil.alive and kil.loc >= 0):
            continue
        here = [m for m in w.minions if m.loc == kil.loc and m.kind in kinds]
        if here:
            w.minions = tuple(m for m in w.minions if not (m.loc == kil.loc and m.kind in kinds))
            update_piece(w, ("killer", i), health=kil.health + len(here))
            emit(w, "absorb", f"{body_name(w, i)} takes in {count_of(len(here), w.game.minions[here[0].kind].name)} at "
                              f"{loc_name(w, kil.loc)} (health {kil.health + len(here)})", "")


def move_piece(w: Work, piece: Piece, loc: int) -> Piece | None:
    """Move a piece; returns its (possibly new) index, or None if it left play (absorbed, K6.7)."""
    if not w.game.absorbing or piece[0] == "killer":
        update_piece(w, piece, loc=loc)
        if w.game.absorbing:
            absorb(w)
        return piece
    uid = w.minions[piece[1]].uid
    update_piece(w, piece, loc=loc)
    absorb(w)
    i = next((j for j, m in enumerate(w.minions) if m.uid == uid), -1)
    return ("minion", i) if i >= 0 else None
