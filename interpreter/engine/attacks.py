"""Attacks: the Final Girl's (C3.8, C15.2) and on her, with reaction cards (C9.6).

Her damage goes to an enemy in reach: in her location, or at exactly a held weapon's range,
which adds its bonus (C3.8); damage against minions is split among those in one location
(C15.2). When an enemy attacks her she may play reaction cards against that attack (C9.6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..state import MinionState, Option
from .asking import ask, opt
from .bodies import Piece, body_name
from .fear_checks import play_card
from .final_girl import fg_damage
from .items import spent, use_uses, weapon_of
from .killers import damage_killer
from .statics import fg_tables
from .tables import Ctx
from .telling import emit, told
from .triggers import fire
from .words import loc_name
from .zones import usable

if TYPE_CHECKING:
    from .working import Work


class Attack:
    """An attack on the Final Girl in progress: reactions may lower its damage or hit back."""

    __slots__ = ("attacker", "damage", "minion_index")

    def __init__(self, damage: int, attacker: str, minion_index: int = -1):
        self.damage = damage
        self.attacker = attacker  # "killer:<index>" or "minion"
        self.minion_index = minion_index


def fg_attack(w: Work, dmg: int, ctx: Ctx) -> None:
    """C3.8, C15.2: choose a target in reach; one weapon may add its bonus."""
    dist = fg_tables(w)[1][w.fg_loc]
    weapons = [(h, wp) for h in w.held if (wp := w.game.items[h.id].weapon) is not None
               and not spent(w, h)]  # S3.4: a weapon kept used up adds nothing
    opts: list[Option] = []
    targets: dict[str, tuple[Any, ...]] = {}

    def add(tkey: str, label: str, d: int, what: tuple[Any, ...]) -> None:
        if d == 0:
            targets[tkey] = what + ("",)
            opts.append(Option(tkey, label))
        for h, wp in weapons:
            if wp.range == d:
                k = f"{tkey}+{h.id}"
                targets[k] = what + (h.id,)
                bonus = wp.bonus if dmg >= 1 else 0
                opts.append(Option(k, f"{label} with {w.game.items[h.id].name} (+{bonus})"))

    att = ctx.attack
    if att is not None:  # C9.6: a reaction hits back at the attacker, who stands with her
        if att.attacker.startswith("killer"):
            i = int(att.attacker.split(":")[1])
            add(f"killer:{i}", f"hit back at {body_name(w, i)}", 0, ("killer", i))
        elif 0 <= att.minion_index < len(w.minions):
            loc = w.minions[att.minion_index].loc
            add(f"minions:{w.game.board.ids[loc]}", "hit back at the minions", 0, ("minions", loc))
    else:
        for i, kil in enumerate(w.killers):
            if kil.alive and kil.loc >= 0:
                add(f"killer:{i}", f"attack {body_name(w, i)}", dist[kil.loc], ("killer", i))
        for loc in sorted({m.loc for m in w.minions}):
            add(f"minions:{w.game.board.ids[loc]}", f"attack the minions at {loc_name(w, loc)}", dist[loc],
                ("minions", loc))
    if not opts:
        emit(w, "attack", "no enemy is within reach: the damage is lost", "C3.8")
        return
    key = ask(w, "attack-target", f"Deal {dmg} damage to whom?", opts)
    kind, ref, weapon = targets[key]
    total = dmg
    if weapon and dmg >= 1:
        total += weapon_of(w, weapon).bonus
        use_uses(w, weapon)
    if kind == "killer":
        damage_killer(w, ref, total, "C3.8")
    else:
        damage_minions(w, ref, total)


def damage_minions(w: Work, loc: int, dmg: int) -> None:
    """C15.2: damage split among the minions in one location, weakest first; no bloodlust (C15).
    Then each minion hit takes damage and loses health, and each killed dies (the events of the
    content's triggers, after the damage is dealt)."""
    ms = list(w.minions)
    order = sorted((m.health, i) for i, m in enumerate(ms) if m.loc == loc)
    dead: set[int] = set()
    hits: list[tuple[str, int, bool]] = []  # (kind, damage, killed) of each minion hit, in turn
    for _h, i in order:
        if dmg <= 0:
            break
        m = ms[i]
        hit = min(dmg, m.health)
        dmg -= hit
        hits.append((m.kind, hit, hit >= m.health))
        if hit >= m.health:
            dead.add(i)
            if ("minion" in said) if (said := w.ctl.said) is not None else told(w, "minion"):  # (Replay.said)
                emit(w, "minion", f"a {w.game.minions[m.kind].name} is killed", "C15.2")
        else:
            ms[i] = MinionState(m.kind, m.loc, m.health - hit, m.status, m.uid)
    w.minions = tuple(m for i, m in enumerate(ms) if i not in dead)
    listens = w.game.listens
    if "takes-damage" in listens or "loses-health" in listens or "dies" in listens:
        for kind, hit, killed in hits:
            piece = ("minion", kind, -1)
            fire(w, "takes-damage", piece, hit, loc)
            fire(w, "loses-health", piece, hit, loc)
            if killed:
                fire(w, "dies", piece, 1, loc)


def attack_fg(w: Work, damage: int, piece: Piece) -> None:
    """C9.6: before each attack lands the player may play reaction cards, each against this attack."""
    att = Attack(damage, f"killer:{piece[1]}" if piece[0] == "killer" else "minion",
                 piece[1] if piece[0] == "minion" else -1)
    while True:
        reacts = []
        cards = w.game.cards
        for c in dict.fromkeys(w.hand):  # a loop: cheaper than a comprehension (decision 0012)
            if cards[c].kind == "reaction" and usable(w, cards[c].usable):  # K1.7: 'usable while'
                reacts.append(c)
        if not reacts or att.damage <= 0:
            break
        key = ask(w, "reaction", lambda: f"An attack for {att.damage} damage: react?",
                  lambda: [opt(w, "take", f"take {att.damage} damage")] + [
                      opt(w, f"react:{c}", f"play {w.game.cards[c].name}") for c in reacts])
        if key == "take":
            break
        play_card(w, key[6:], Ctx(key[6:], att))
        if w.result:
            return
    fg_damage(w, att.damage, "C9.6")
