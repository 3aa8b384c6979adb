"""Effects on the killer's bodies: moved, healed and hurt, formed from minions, each in turn, the
active marker, vanishing and appearing, health set and defeat (C17, K1.5–K1.6, K2.7–K2.9, K3,
K6.6–K6.7).

One function per effect node, ``exec_<snake_case_class_name>``, registered in ``tables.EXEC``
as effects.py's are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lastbreath.dsl import nodes as n

from ..state import KillerState
from .bodies import body_index, body_name, ctx_body, the_killer
from .killers import absorb, appear, damage_killer, defeat_killer, heal_killer, max_health, update_piece
from .moves import Hop, arrived, how_far, jump, leaving
from .resolve import amount, loc, run
from .statics import held_in_place
from .steps import PhaseEnd
from .tables import EXEC, Ctx
from .telling import emit, told
from .triggers import fire, would
from .words import loc_name

if TYPE_CHECKING:
    from .working import Work


def exec_move_killer_to(w: Work, e: n.MoveKillerTo, ctx: Ctx) -> None:  # move killer to LOC
    where = loc(w, e.loc, ctx)
    if where < 0:
        return
    i = the_killer(w, near=where)  # (open) K6.7: with several bodies, the one nearest the destination
    if i < 0:
        return
    if w.killers[i].loc < 0:  # off the board (K2.1, K1.6): no body on the map to move; 'appears' brings one
        emit(w, "presence", f"{body_name(w, i)} is off the board: it does not move to {loc_name(w, where)}", "C9.1")
        return
    if held_in_place(w, w.killers[i].status):  # S5.5: no move in the Killer phase moves it
        emit(w, "move", f"{body_name(w, i)} does not move to {loc_name(w, where)} (its status stops it)", "S5.5")
        return
    at = w.killers[i].loc
    hops: list[Hop] = []
    mover = ("killer", w.killers[i].body, i)
    if "killer" in w.game.movers_watched and at >= 0 and at != where:  # a move's events (moves.py): it may stop
        hops = jump(at, where)
        if not how_far(w, mover, hops, body_name(w, i)):
            return
        leaving(w, mover, hops)
    update_piece(w, ("killer", i), loc=where)
    if ("move" in said) if (said := w.ctl.said) is not None else told(w, "move"):  # (Replay.said)
        emit(w, "move", f"{body_name(w, i)} moves to {loc_name(w, where)}" if at != where
             else f"{body_name(w, i)} is at {loc_name(w, where)} already", "C9.1")
    if w.game.absorbing:
        absorb(w)
    arrived(w, mover, hops)


def exec_heal_killer(w: Work, e: n.HealKiller, ctx: Ctx) -> None:  # heal killer N
    heal_killer(w, amount(w, e.n, ctx), ctx_body(w, ctx))


def exec_damage_killer(w: Work, e: n.DamageKiller, ctx: Ctx) -> None:  # damage killer N
    i = ctx_body(w, ctx)
    if i < 0:
        i = the_killer(w)
    if i >= 0 and w.killers[i].loc < 0:  # off the board (K2.1, K1.6): nothing on the map to hurt
        emit(w, "presence", f"{body_name(w, i)} is off the board: it takes no damage", "C3.8")
    elif i >= 0:  # K3.2: her cards and items make the body they damage the active one
        g = w.game
        damage_killer(w, i, amount(w, e.n, ctx), "C3.8", by_fg=ctx.source in g.cards or ctx.source in g.items)


def exec_form_killers(w: Work, e: n.FormKillers, ctx: Ctx) -> None:  # turn groups of N MINION into killers
    """K6.6: every location with at least N such minions, in board order, until none is left: a
    formation that brings more minions (a dark power revealed by it) is followed by another pass."""
    g = w.game
    need = max(1, e.n)
    formed = True
    while formed:  # each formation removes at least N minions: it ends
        formed = False
        where = -1
        while True:
            where = _next_group(w.minions, e.minion, need, where)  # as a scan of the board in order would find
            if where < 0:
                break
            group = [m for m in w.minions if m.kind == e.minion and m.loc == where]
            formed = True
            w.minions = tuple(m for m in w.minions if not (m.kind == e.minion and m.loc == where))
            used = {k.label for k in w.killers}
            num = next(j for j in range(1, len(w.killers) + 2) if f"{g.body_name} {j}" not in used)
            label = f"{g.body_name} {num}"
            w.killers = w.killers + (KillerState(g.killer.id, where, len(group), 0, 0, True, frozenset(), label,
                                                 g.formed_body),)
            emit(w, "form", f"{len(group)} {g.minions[e.minion].name}s at {loc_name(w, where)} become {label} "
                            f"(health {len(group)})", "K6.6")
            fire(w, "forms", ("killer", g.formed_body, len(w.killers) - 1), len(group), where)
            if w.result:
                return


def _next_group(minions: tuple[Any, ...], kind: str, need: int, after: int) -> int:
    """The first location past ``after``, in board order, where ``need`` minions of ``kind`` stand
    (-1: none): one pass over the minions instead of one per location."""
    counts: dict[int, int] = {}
    for m in minions:
        if m.kind == kind and m.loc > after:
            counts[m.loc] = counts.get(m.loc, 0) + 1
    return min((loc for loc, c in counts.items() if c >= need), default=-1)


def exec_all_killers(w: Work, e: n.AllKillers, ctx: Ctx) -> None:  # all killers { … }
    """K3.3: the block for each living body on the board, top to bottom; 'the killer' is that body."""
    scope = w.scope
    saved = scope.body
    for i in range(len(w.killers)):
        if i >= len(w.killers):
            break
        kil = w.killers[i]
        if not kil.alive or kil.loc < 0 or kil.aside:
            continue
        scope.body = i
        run(w, e.body, Ctx(ctx.source, ctx.attack, ctx.that, i, ctx.spent, ctx.spent_token, ctx.cause, ctx.by,
                           ctx.here))
        if w.result:
            break
    scope.body = saved


def exec_switch_active(w: Work, e: n.SwitchActive, ctx: Ctx) -> None:  # active killer moves up|down
    """K3.2: the marker moves one living body up or down the list, wrapping."""
    ks = w.killers
    living = []
    for i, k in enumerate(ks):
        if k.alive and not k.aside:
            living.append(i)
    if len(living) < 2:
        return
    at = living.index(w.active) if w.active in living else 0
    w.active = living[(at + (-1 if e.way == "up" else 1)) % len(living)]
    if ("active" in said) if (said := w.ctl.said) is not None else told(w, "active"):  # (Replay.said)
        emit(w, "active", f"the active marker moves {e.way}: {body_name(w, w.active)} is now the active killer",
             "K3.2")


def exec_make_active(w: Work, e: n.MakeActive, ctx: Ctx) -> None:  # killer BODY becomes active
    i = body_index(w, e.body)
    if i >= 0 and w.killers[i].aside:  # K3.2: the marker skips a killer not in play (set aside, K3.6)
        emit(w, "active", f"{body_name(w, i)} is set aside: the marker stays on {body_name(w, w.active)}", "K3.2")
    elif i >= 0 and i != w.active:
        w.active = i
        emit(w, "active", f"{body_name(w, i)} is now the active killer", "K3.2")


def exec_killer_vanishes(w: Work, e: n.KillerVanishes, ctx: Ctx) -> None:  # killer [BODY] vanishes
    """K1.6: the body leaves the board and stays in the game; a Killer phase under way ends at once."""
    i = body_index(w, e.body) if e.body else the_killer(w)
    if i < 0 or w.killers[i].loc < 0:
        return
    was = w.killers[i].loc
    piece = ("killer", w.killers[i].body, i)
    if would(w, "vanishes", 0, f"{body_name(w, i)} vanishing", piece, was) is None:
        return
    update_piece(w, ("killer", i), loc=-1)
    emit(w, "presence", f"{body_name(w, i)} vanishes from {loc_name(w, was)} (off the board)", "C1.2")
    fire(w, "vanishes", piece, 0, was)
    if w.phase == "killer":
        raise PhaseEnd()


def exec_killer_appears(w: Work, e: n.KillerAppears, ctx: Ctx) -> None:  # killer [BODY] appears at PLACE
    i = body_index(w, e.body) if e.body else the_killer(w)
    where = loc(w, e.loc, ctx)
    if i < 0 or where < 0:
        return
    appear(w, i, where, "C1.2")


def exec_set_killer_health(w: Work, e: n.SetKillerHealth, ctx: Ctx) -> None:  # set killer [BODY] health N
    i = body_index(w, e.body) if e.body else (ctx_body(w, ctx) if ctx_body(w, ctx) >= 0 else the_killer(w))
    if i < 0:
        return
    k = max(0, amount(w, e.n, ctx))
    kil = w.killers[i]
    top = k if k > max_health(w, kil) else kil.max_health  # above its maximum: that is its maximum now
    update_piece(w, ("killer", i), health=k, max_health=top)
    emit(w, "health", f"{body_name(w, i)} now has {k} health", "C17.1")


def exec_set_killer_max_health(w: Work, e: n.SetKillerMaxHealth, ctx: Ctx) -> None:  # set killer max health N
    i = body_index(w, e.body) if e.body else (ctx_body(w, ctx) if ctx_body(w, ctx) >= 0 else the_killer(w))
    if i < 0:
        return
    k = max(1, amount(w, e.n, ctx))
    update_piece(w, ("killer", i), max_health=k)
    emit(w, "health", f"{body_name(w, i)} may now have up to {k} health", "C17.1")


def exec_defeat_killer(w: Work, e: n.DefeatKiller, ctx: Ctx) -> None:  # defeat killer [BODY]
    i = body_index(w, e.body) if e.body else (ctx_body(w, ctx) if ctx_body(w, ctx) >= 0 else the_killer(w))
    defeat_killer(w, i)


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
