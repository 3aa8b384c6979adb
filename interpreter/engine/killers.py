"""The killers' health and bodies (C17.1, C17.4, C2.5, K6.6–K6.7).

A killer board's body has health and a black last-breath token, as the Final Girl (C17.1); a
secondary dark power absorbs damage first (C17.4). Bodies formed in play from minions (K6.6)
have no last-breath token: at 0 health they are gone. With several bodies on the board, an
effect on "the killer" means one of them (``the_killer``, the open K6.7 default in
docs/decisions/0004).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..state import GameState, KillerState, evolved
from .bodies import Piece, active_only, body_name, fix_active, the_killer
from .ending import defeated, killer_defeated
from .fields import set_secondary
from .index import minion_of_uid
from .statics import NO_CAP, modified
from .steps import PhaseEnd
from .telling import emit, told
from .triggers import fire, would
from .words import count_of, loc_name

if TYPE_CHECKING:
    from .working import Work

Piece3 = tuple[str, str, int]  # a piece as events carry it: (kind, kind of minion or body, index)


def killer_last_breath_dice(w: Work) -> int:
    """C2.5, K2.9: one extra die while any killer on the board is down to its last breath (one set
    aside has lost that token: it gives none, K3.6)."""
    for k in w.killers:  # (a loop: a generator costs more, and this is read at every fear check)
        if k.health == 0 and k.alive and k.loc >= 0 and not k.aside:
            return 1
    return 0


def damage_killer(w: Work, idx: int, k: int, rule: str = "C3.8", by_fg: bool = True) -> None:
    """Damage to a body: the secondary dark power first (C17.4), then health and last breath (C17.1).
    A body already defeated takes no more (C13.2: the game may not have ended yet). The body hit
    becomes the active one when the Final Girl dealt it (``by_fg``: her attack, her card or item,
    K3.2), even when the damage is then reduced to nothing. With other bodies still in the game, a
    body whose last breath is gone is set aside until the phase ends (K2.9, K3.6); damage to it
    then changes nothing."""
    if k <= 0 or w.result or not w.killers[idx].alive:
        return
    if by_fg and w.active != idx and len(w.killers) > 1 and not w.killers[idx].aside and active_only(w):
        w.active = idx  # K3.2: the one she strikes becomes active, whatever damage gets through
        emit(w, "active", f"{body_name(w, idx)} is now the active killer", "K3.2")
    k = modified(w, "damage-to-killer", k)
    if k <= 0:
        emit(w, "damage", "the damage is reduced to nothing", "C3.8")
        return
    kil = w.killers[idx]
    body = ("killer", kil.body, idx)
    got = would(w, "takes-damage", k, f"{k} damage to {body_name(w, idx)}", body, kil.loc)
    if not got:
        return
    k = got
    if kil.aside:
        emit(w, "damage", f"{body_name(w, idx)} is set aside: the damage changes nothing", "K2.9")
        fire(w, "takes-damage", body, k, kil.loc)
        return
    if w.secondary:
        absorbed = min(k, w.secondary_health)
        w.secondary_health -= absorbed
        k -= absorbed
        emit(w, "damage", f"the secondary dark power absorbs {absorbed} damage", "C17.4")
        if w.secondary_health <= 0:
            emit(w, "secondary", "the secondary dark power's health is gone: it is removed", "C17.4")
            set_secondary(w, "")
            w.secondary_health = 0
        if k <= 0:
            return
    got = would(w, "loses-health", k, f"{body_name(w, idx)} losing {k} health", body, kil.loc)
    if not got:
        return
    k = got
    ks = list(w.killers)
    kil = ks[idx]
    name = body_name(w, idx)
    if kil.label:  # a body formed during the game has no last-breath token (K6.6): at 0 health it is gone
        if k < kil.health:
            ks[idx] = evolve_killer(kil, health=kil.health - k)
            w.killers = tuple(ks)
            emit(w, "damage", f"{kil.label} takes {k} damage (health {kil.health - k})", rule, data=("killer", k))
            _hurt(w, body, k, kil.loc)
            return
        del ks[idx]
        w.killers = tuple(ks)
        if w.active > idx:
            w.active -= 1
        fix_active(w)
        emit(w, "damage", f"{kil.label} takes {k} damage and is destroyed", rule, data=("killer", k))
        _hurt(w, ("killer", kil.body, -1), k, kil.loc)
        fire(w, "dies", ("killer", kil.body, -1), k, kil.loc)
        return
    if k <= kil.health:
        kil = evolve_killer(kil, health=kil.health - k)
        ks[idx] = kil
        w.killers = tuple(ks)
        if ("damage" in said) if (said := w.ctl.said) is not None else told(w, "damage"):  # (Replay.said)
            emit(w, "damage", f"{name} takes {k} damage (health {kil.health})", rule, data=("killer", k))
        if kil.health == 0:
            emit(w, "breath", f"{name} is down to its last breath: +1 die", "C2.5")
        _hurt(w, body, k, kil.loc)
        return
    emit(w, "damage", f"{name} takes damage: its last-breath token is lost", rule, data=("killer", k))
    kil = ks[idx] = evolve_killer(kil, health=0)
    w.killers = tuple(ks)
    _hurt(w, body, k, kil.loc)
    others = any(x.alive and not x.aside for i, x in enumerate(w.killers) if i != idx)
    if others and w.game.bodies:  # K2.9, K3.6: set aside; its token is flipped when the phase ends
        update_piece(w, ("killer", idx), aside=True)
        emit(w, "breath", f"{name} is set aside until the phase ends, when its token is flipped", "K2.9")
        if w.active == idx and active_only(w):
            _pass_on(w, idx)
        return
    if kil.breath == 2 and kil.breath_value > 0:
        back = min(kil.breath_value, max_health(w, kil))  # never above its health (as C3.5 for her)
        kil = evolve_killer(kil, breath=1, health=back)
        ks = list(w.killers)
        ks[idx] = kil
        w.killers = tuple(ks)
        emit(w, "breath", f"its black token shows {kil.breath_value}: it turns white and {name} restores "
                          f"{back} health; the phase ends", "C17.1")
        raise PhaseEnd()
    update_piece(w, ("killer", idx), breath=0)  # the token is lost even if the defeat is replaced (C17.1)
    _defeat(w, idx)


def _hurt(w: Work, body: Piece3, k: int, where: int) -> None:
    fire(w, "takes-damage", body, k, where)
    fire(w, "loses-health", body, k, where)


def _pass_on(w: Work, idx: int) -> None:
    """K3.6: the active body is out: the marker goes to the next living body not set aside."""
    ks = w.killers
    nxt = next((i for i, x in enumerate(ks) if x.alive and not x.aside and i != idx), -1)
    if nxt >= 0:
        w.active = nxt
        emit(w, "active", f"{body_name(w, nxt)} is now the active killer", "K3.6")


def _defeat(w: Work, idx: int, rule: str = "C17.1") -> None:
    """A body's last breath is gone (a replacement may stop it): it is defeated."""
    kil = w.killers[idx]
    body = ("killer", kil.body, idx)
    if would(w, "would-be-defeated", 0, f"{body_name(w, idx)} being defeated", body, kil.loc) is None:
        return  # replaced: the block decides what becomes of it
    ks = list(w.killers)
    kil = evolve_killer(ks[idx], breath=0, health=0, alive=False, aside=False)
    ks[idx] = kil
    w.killers = tuple(ks)
    name = body_name(w, idx)
    emit(w, "breath", f"{name}'s last breath is gone: {name} is defeated" if kil.body else
         "the killer's last breath is gone: the killer is defeated", rule)
    fix_active(w)
    fire(w, "dies", body, 0, kil.loc)
    if killer_defeated(w):
        defeated(w)


def defeat_killer(w: Work, idx: int) -> None:
    """'defeat killer': defeated outright, no token flipped."""
    if 0 <= idx < len(w.killers) and w.killers[idx].alive:
        _defeat(w, idx, "C1.2")


def flip_aside(w: Work) -> None:
    """K2.9, K3.6: at the end of the phase each body set aside flips its black token: a number, it
    turns white and restores that much health; blank or white, it dies and leaves the board."""
    for idx, kil in enumerate(w.killers):
        if not (kil.aside and kil.alive):
            continue
        name = body_name(w, idx)
        if kil.breath == 2 and kil.breath_value > 0:
            back = min(kil.breath_value, max_health(w, kil))  # never above its health (as C3.5 for her)
            update_piece(w, ("killer", idx), aside=False, breath=1, health=back)
            emit(w, "breath", f"{name}'s black token shows {kil.breath_value}: it turns white and {name} restores "
                              f"{back} health", "K2.9")
            continue
        emit(w, "breath", f"{name}'s token is {'white' if kil.breath == 1 else 'blank'}: {name} dies and leaves "
                          "the board", "K2.9")
        update_piece(w, ("killer", idx), aside=False, loc=-1)
        _defeat(w, idx, "K2.9")
        if w.result:
            return


def evolve_killer(k: KillerState, **kw: Any) -> KillerState:
    """A copy of a body with some fields changed."""
    return evolved(k, **kw)


def max_health(w: Work | GameState, kil: KillerState) -> int:  # (a state too: the fuzzer)
    """What healing restores a body to (C17.1): its own maximum if set (K1.5), else its declared
    health, else the killer's board health. A body formed in play declares no health (K6.6): no
    maximum, like a killer with no board."""
    if kil.max_health:
        return kil.max_health
    decl = w.game.bodies.get(kil.body) if kil.body else None
    if decl is not None:
        return NO_CAP if decl.formed else decl.health
    return w.game.killer.health if w.game.killer.board else NO_CAP


def heal_killer(w: Work, k: int, idx: int = -1) -> None:
    """Heal the body ``idx`` (default: the killer, see ``the_killer``); up to its maximum health
    (C17.1), never below what it has."""
    if idx < 0:
        idx = the_killer(w)
    if idx < 0:
        return
    ks = list(w.killers)
    kil = ks[idx]
    cap = modified(w, "killer-cap", max_health(w, kil))  # K5.1 may lift the cap
    new = max(kil.health, min(cap, kil.health + k))
    ks[idx] = evolve_killer(kil, health=new)
    w.killers = tuple(ks)
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("health" in said) if said is not None else told(w, "health"):
        emit(w, "health", f"{body_name(w, idx)} heals to {new}", "C17.1", data=("killer", new))


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
        ms[i] = evolved(ms[i], **changes)
        w.minions = tuple(ms)


_new_object = object.__new__
_set_dict = object.__setattr__  # as state.evolved: the frozen records have no validators or converters


def enemies_at(w: Work, who: str, loc: int) -> list[Piece]:
    """The pieces an effect on enemies means: the killer (``who`` = killer), or every enemy at LOC."""
    if who == "killer":
        i = the_killer(w)
        return [("killer", i)] if i >= 0 and w.killers[i].loc >= 0 else []
    return ([("killer", i) for i, k in enumerate(w.killers) if k.alive and k.loc == loc]
            + [("minion", i) for i, m in enumerate(w.minions) if m.loc == loc])


_NO_KINDS: frozenset[str] = frozenset()
_ABSORBS = ("absorbs", _NO_KINDS)  # modified's key for that question (no arguments)


def absorb(w: Work) -> None:
    """K6.7 as a rule: a killer body sharing a location with absorbable minions takes them in, +1 health each."""
    # modified(w, "absorbs", _NO_KINDS), its kept answer read without the call (absorb follows every move)
    got = w.found.get(_ABSORBS) if w.sources is not None else None
    kinds = got[0] if got is not None else modified(w, "absorbs", _NO_KINDS)
    if not kinds:
        return
    for i, kil in enumerate(w.killers):
        at = kil.loc
        if not (kil.alive and at >= 0):
            continue
        here = []
        for m in w.minions:
            if m.loc == at and m.kind in kinds:
                here.append(m)
        if here:
            w.minions = tuple(m for m in w.minions if not (m.loc == at and m.kind in kinds))
            update_piece(w, ("killer", i), health=kil.health + len(here))
            if ("absorb" in said) if (said := w.ctl.said) is not None else told(w, "absorb"):  # (Replay.said)
                name = count_of(len(here), w.game.minions[here[0].kind].name)
                emit(w, "absorb", f"{body_name(w, i)} takes in {name} at {loc_name(w, kil.loc)} "
                                  f"(health {kil.health + len(here)})", "K6.7")


def move_piece(w: Work, piece: Piece, loc: int) -> Piece | None:
    """Move a piece; returns its (possibly new) index, or None if it left play (absorbed, K6.7)."""
    kind, i = piece  # _relocate(w, piece, loc), written out: a piece moves at every enemy act
    is_killer = kind == "killer"
    pieces: list[Any] = list(w.killers if is_killer else w.minions)
    old = pieces[i]
    d = old.__dict__.copy()
    d["loc"] = loc
    new = _new_object(old.__class__)
    _set_dict(new, "__dict__", d)
    pieces[i] = new
    moved = tuple(pieces)
    if is_killer:
        w.killers = moved
    else:
        w.minions = moved
    if not w.game.absorbing:
        return piece
    absorb(w)
    if is_killer or w.minions is moved:  # none taken in: the piece keeps its index
        return piece
    i = minion_of_uid(w, old.uid)
    return ("minion", i) if i >= 0 else None


def appear(w: Work, i: int, where: int, rule: str) -> bool:
    """Body ``i``, off the board, comes onto it at ``where`` (K2.7, C1.2): told as 'appearing' first,
    so a replacement or prevention of 'killer appears' may keep it off (False); then placed, told,
    answered by 'when killer appears', and bodies that absorb one another do so."""
    piece = ("killer", w.killers[i].body, i)
    if would(w, "appears", 0, f"{body_name(w, i)} appearing at {loc_name(w, where)}", piece, where) is None:
        return False
    update_piece(w, ("killer", i), loc=where)
    emit(w, "presence", f"{body_name(w, i)} appears at {loc_name(w, where)}", rule)
    fire(w, "appears", piece, 0, where)
    if w.game.absorbing:
        absorb(w)
    return True
