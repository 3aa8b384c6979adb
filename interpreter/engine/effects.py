"""Effects: what each effect line does (C3.4 and the language's primitives).

One function per effect node, ``exec_<snake_case_class_name>``, found by name and registered
in ``resolve.EXEC``; each is a thin line from the DSL form (in its comment) to the rules module
that does the work. Control lines (``if``, ``repeat``, ``choose``, ``roll``, ``for each``, …)
resolve their blocks through ``resolve.run``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lastbreath.dsl import nodes as n
from lastbreath.dsl.limits import MAX_PIECES_IN_PLAY

from ..state import MinionState, Option
from .asking import ask, opt
from .attacks import fg_attack
from .bloodlust import kill_victim, lower_bloodlust, panic_location, raise_bloodlust, set_victims
from .bodies import body_name, piece_status
from .cards import draw_event, gain_card, remove_card, reveal_dark_power, reveal_finale
from .draws import roll_die
from .ending import end_game
from .enemies import hunt
from .final_girl import fg_damage, gain_time, heal, lose_time, lower_fear, raise_fear
from .items import discard_item, gain_item, search
from .killers import absorb, damage_killer, enemies_at, update_piece
from .movement import move_fg
from .pieces import clear_everywhere, turn_back, turn_victims
from .places import locations_of
from .resolve import amount, condition, loc, run
from .statics import mode_active, modified
from .steps import PhaseEnd
from .tables import EXEC, Ctx
from .telling import emit, told
from .tokens import collect_token, place_token, spend_tokens
from .tracks import open_path
from .triggers import fire
from .victims import NONE, pick
from .words import count_of, loc_name
from .working import over_budget
from .zones import draw_card

if TYPE_CHECKING:
    from .working import Work

MAX_REPEAT = 50  # 'repeat N' runs its block at most this many times


# --- the Final Girl's numbers ---------------------------------------------------------------
def exec_gain_time(w: Work, e: n.GainTime, ctx: Ctx) -> None:  # gain N time
    gain_time(w, amount(w, e.n, ctx))


def exec_lose_time(w: Work, e: n.LoseTime, ctx: Ctx) -> None:  # lose N time
    k = e.n  # amount(…), without the call for a number (the usual 'lose 1 time')
    lose_time(w, k if k.__class__ is int else amount(w, k, ctx))


def exec_heal(w: Work, e: n.Heal, ctx: Ctx) -> None:  # heal N
    heal(w, amount(w, e.n, ctx))


def exec_lose_health(w: Work, e: n.LoseHealth, ctx: Ctx) -> None:  # lose N health
    fg_damage(w, amount(w, e.n, ctx), "C3.4", damage=False)  # a loss of health, not damage


def exec_raise_fear(w: Work, e: n.RaiseFear, ctx: Ctx) -> None:  # raise fear N
    raise_fear(w, amount(w, e.n, ctx))


def exec_lower_fear(w: Work, e: n.LowerFear, ctx: Ctx) -> None:  # lower fear N
    lower_fear(w, amount(w, e.n, ctx))


# --- moving, fighting, searching --------------------------------------------------------------
def exec_move_up_to(w: Work, e: n.MoveUpTo, ctx: Ctx) -> None:  # move up to N
    move_fg(w, amount(w, e.n, ctx))


def exec_deal_damage(w: Work, e: n.DealDamage, ctx: Ctx) -> None:  # deal N damage
    fg_attack(w, amount(w, e.n, ctx), ctx)


def exec_prevent_damage(w: Work, e: n.PreventDamage, ctx: Ctx) -> None:  # prevent N damage (in a reaction)
    if ctx.attack is not None:
        k = amount(w, e.n, ctx)
        ctx.attack.damage = max(0, ctx.attack.damage - k)
        if ("react" in said) if (said := w.ctl.said) is not None else told(w, "react"):  # (Replay.said)
            emit(w, "react", f"prevents {k} damage (the attack now deals {ctx.attack.damage})", "C9.6")


def exec_search_take(w: Work, e: n.SearchTake, ctx: Ctx) -> None:  # search take N
    k = amount(w, e.n, ctx)
    search(w, k, k, look_mode=False)


def exec_search_look(w: Work, e: n.SearchLook, ctx: Ctx) -> None:  # search look N keep K
    search(w, amount(w, e.n, ctx), amount(w, e.keep, ctx), look_mode=True)


def exec_end_action_phase(w: Work, e: n.EndActionPhase, ctx: Ctx) -> None:  # end action phase
    if w.phase == "action":
        w.action_over = True
        emit(w, "phase", "the Action phase ends", "C4.1")


def exec_draw_event(w: Work, e: n.DrawEvent, ctx: Ctx) -> None:  # draw event
    draw_event(w)


def exec_gain_card(w: Work, e: n.GainCard, ctx: Ctx) -> None:  # gain card CARD (V3)
    gain_card(w, e.card)


def exec_remove_card(w: Work, e: n.RemoveCard, ctx: Ctx) -> None:  # remove card CARD
    remove_card(w, e.card)


def exec_gain_item(w: Work, e: n.GainItem, ctx: Ctx) -> None:  # gain item ID
    gain_item(w, e.item, "")


def exec_discard_item(w: Work, e: n.DiscardItem, ctx: Ctx) -> None:  # discard item ID
    discard_item(w, e.item)


# --- bloodlust, victims, enemies --------------------------------------------------------------
def exec_raise_bloodlust(w: Work, e: n.RaiseBloodlust, ctx: Ctx) -> None:  # raise bloodlust N
    raise_bloodlust(w, amount(w, e.n, ctx))


def exec_lower_bloodlust(w: Work, e: n.LowerBloodlust, ctx: Ctx) -> None:  # lower bloodlust N
    lower_bloodlust(w, amount(w, e.n, ctx))


def exec_hunt(w: Work, e: n.Hunt, ctx: Ctx) -> None:
    # killer hunts / minions hunt / enemies hunt TARGET moves N attacks N
    moves, attacks = e.moves, e.attacks
    hunt(w, e.who, e.target, moves if isinstance(moves, int) else amount(w, moves, ctx),
         attacks if isinstance(attacks, int) else amount(w, attacks, ctx))


def exec_kill_victims(w: Work, e: n.KillVictims, ctx: Ctx) -> None:  # kill N victims at LOC
    where = loc(w, e.loc, ctx)
    if where >= 0:
        for _ in range(min(amount(w, e.n, ctx), w.victims[where])):  # no more than are there
            kill_victim(w, where, "an effect")


def exec_place_victims(w: Work, e: n.PlaceVictims, ctx: Ctx) -> None:  # place N victims at LOC
    where = loc(w, e.loc, ctx)
    k = amount(w, e.n, ctx)
    if where >= 0 and k > 0:
        left = max(0, w.game.victim_supply - w.victims_taken)  # C5.7: from a limited supply
        if k > left:
            emit(w, "victims", f"the victim supply has {count_of(left, 'victim', 'none')} left: "
                               f"{'none appear' if not left else f'only {left} of {k} appear'}", "C5.7")
            k = left
            if not k:
                return
        w.victims_taken += k
        total = len(w.minions) + sum(w.victims) + k
        if total > MAX_PIECES_IN_PLAY:
            over_budget(w, "minions and victims", total, MAX_PIECES_IN_PLAY)
        set_victims(w, where, w.victims[where] + k)
        w.victims_in += k
        emit(w, "victims", f"{count_of(k, 'victim')} appear{'s' if k == 1 else ''} at {loc_name(w, where)}", "C1.2",
             data=(k,))


def _minions_of(w: Work, kind: str) -> int:
    """How many minions of a kind are in play (a loop: cheaper than a generator, decision 0012)."""
    k = 0
    for x in w.minions:
        if x.kind == kind:
            k += 1
    return k


def exec_spawn_minions(w: Work, e: n.SpawnMinions, ctx: Ctx) -> None:  # spawn N MINION at LOC
    fixed = e.loc.__class__ is str  # a place is picked again for each minion (K6.3)
    where = loc(w, e.loc, ctx) if fixed else -1
    m = w.game.minions[e.minion]
    for _ in range(amount(w, e.n, ctx)):
        if _minions_of(w, m.id) >= m.limit:
            emit(w, "minion", f"no {m.name} token is left: the spawn is ignored", "C15.1")
            break
        if not fixed:
            where = loc(w, e.loc, ctx)
        if where < 0:  # the place names no location: nothing to place there (tokens are not the reason)
            break
        if len(w.minions) + sum(w.victims) >= MAX_PIECES_IN_PLAY:
            over_budget(w, "minions and victims", len(w.minions) + sum(w.victims) + 1, MAX_PIECES_IN_PLAY)
        w.minion_seq += 1
        w.minions = w.minions + (MinionState(m.id, where, m.health, frozenset(), w.minion_seq),)
        if ("minion" in said) if (said := w.ctl.said) is not None else told(w, "minion"):  # (Replay.said)
            emit(w, "minion", f"a {m.name} appears at {loc_name(w, where)}", "C15.1")
        if w.game.absorbing:
            absorb(w)


def exec_kill_minions(w: Work, e: n.KillMinions, ctx: Ctx) -> None:  # kill N MINION at LOC
    where = loc(w, e.loc, ctx)
    k = amount(w, e.n, ctx)
    if where < 0 or k <= 0:
        return
    g = w.game
    if e.minion in g.victim_kinds:  # victims of a kind: each dies as 'kill N victims' kills one (C9.7)
        for _ in range(k):
            m = pick(w, where, "Which victim dies?", "victim-dies", eligible=lambda x: x is not None
                     and x.kind == e.minion)
            if m is NONE or m is None:
                return
            kill_victim(w, where, "an effect", which=m)
            if w.result:
                return
        return
    name = g.minions[e.minion].name
    if modified(w, "kill-may-damage", False, e.minion):
        bodies = [i for i, kil in enumerate(w.killers) if kil.alive and kil.loc == where]
        if bodies:
            key = ask(w, "kill-or-damage", f"Kill {count_of(k, name)}, or deal {k} damage to a killer there?",
                      [Option("kill", f"kill {count_of(k, name)}")] +
                      [Option(f"killer:{i}", f"deal {k} damage to {body_name(w, i)}") for i in bodies])
            if key != "kill":
                damage_killer(w, int(key[7:]), k, "C3.8")
                return
    for _ in range(k):
        idx = next((i for i, m in enumerate(w.minions) if m.kind == e.minion and m.loc == where), -1)
        if idx < 0:
            break
        w.minions = w.minions[:idx] + w.minions[idx + 1:]
        emit(w, "minion", f"a {name} is killed", "C15.2")
        fire(w, "dies", ("minion", e.minion, -1), 1, where)


def exec_turn_victims(w: Work, e: n.TurnVictims, ctx: Ctx) -> None:  # turn N victims at LOC into MINION
    where = loc(w, e.loc, ctx)
    if e.minion in w.game.victim_kinds or w.marked:  # a victim kind, or victims she can tell apart
        turn_victims(w, where, amount(w, e.n, ctx), e.minion)
        return
    m = w.game.minions[e.minion]
    for _ in range(amount(w, e.n, ctx)):
        if where < 0 or w.victims[where] <= 0:
            return
        if _minions_of(w, m.id) >= m.limit:
            emit(w, "minion", f"no {m.name} token is left: the change is ignored", "C15.1")
            return
        set_victims(w, where, w.victims[where] - 1)
        w.victims_in -= 1
        w.minion_seq += 1
        w.minions = w.minions + (MinionState(m.id, where, m.health, frozenset(), w.minion_seq),)
        if ("minion" in said) if (said := w.ctl.said) is not None else told(w, "minion"):  # (Replay.said)
            emit(w, "minion", f"a victim at {loc_name(w, where)} turns into a {m.name} (not a death)", "C15.1",
                 data=(-1,))


def exec_turn_minions(w: Work, e: n.TurnMinions, ctx: Ctx) -> None:  # turn N MINION at LOC into victims
    where = loc(w, e.loc, ctx)
    if e.minion in w.game.victim_kinds or any(x.status for x in w.minions):  # K2.6; statuses carried over
        turn_back(w, where, amount(w, e.n, ctx), e.minion)
        return
    for _ in range(amount(w, e.n, ctx)):
        idx = next((i for i, x in enumerate(w.minions) if x.kind == e.minion and x.loc == where), -1)
        if idx < 0:
            return
        w.minions = w.minions[:idx] + w.minions[idx + 1:]
        set_victims(w, where, w.victims[where] + 1)
        w.victims_in += 1
        emit(w, "minion", f"a {w.game.minions[e.minion].name} at {loc_name(w, where)} becomes a victim again", "C1.2",
             data=(1,))


def exec_panic_at(w: Work, e: n.PanicAt, ctx: Ctx) -> None:  # panic at LOC
    where = loc(w, e.loc, ctx)
    if where >= 0:
        panic_location(w, where)


def exec_add_status(w: Work, e: n.AddStatus, ctx: Ctx) -> None:
    # add status S to killer | to enemies at LOC | to an enemy at LOC
    where = loc(w, e.loc, ctx) if e.loc else -1
    pieces = enemies_at(w, e.who, where)
    if e.who == "one" and len(pieces) > 1:
        key = ask(w, "status-target", f"Which enemy is {e.status}?",
                  [opt(w, f"{k}:{i}", body_name(w, i) if k == "killer" else  # each body by its name (K3)
                       f"a {w.game.minions[w.minions[i].kind].name}") for k, i in pieces])
        kind, i = key.split(":")
        pieces = [(kind, int(i))]
    for piece in pieces[:1] if e.who == "one" else pieces:
        update_piece(w, piece, status=piece_status(w, piece) | {e.status})
        who = body_name(w, piece[1]) if piece[0] == "killer" else f"a {w.game.minions[w.minions[piece[1]].kind].name}"
        emit(w, "status", f"{who} is {e.status}", "C1.2")


def exec_clear_status(w: Work, e: n.ClearStatus, ctx: Ctx) -> None:  # clear status S
    status = e.status
    groups: tuple[tuple[str, tuple[Any, ...]], ...] = (("killer", w.killers), ("minion", w.minions))
    for kind, pieces in groups:
        for i, p in enumerate(pieces):  # (their statuses read without piece_status: ~17 calls a game)
            st = p.status
            if status in st:
                update_piece(w, (kind, i), status=st - {status})
    if w.marked or w.fg_status:  # the Final Girl and victims have statuses too (issue #16 item 4)
        clear_everywhere(w, e.status)


# --- cards, modes, flags, the board -----------------------------------------------------------
def exec_reveal_dark_power(w: Work, e: n.RevealDarkPower, ctx: Ctx) -> None:  # reveal dark power
    reveal_dark_power(w)


def exec_reveal_finale(w: Work, e: n.RevealFinale, ctx: Ctx) -> None:  # reveal finale
    reveal_finale(w)


def exec_draw_card(w: Work, e: n.DrawCard, ctx: Ctx) -> None:  # draw card DECK [at PLACE]
    if not e.loc:
        draw_card(w, e.deck)
        return
    at = loc(w, e.loc, ctx)  # a card drawn at a place: 'here' and 'it' in it are that place (issue #33 item 7)
    if at >= 0:  # no such place (a selector that matches nothing): nothing is drawn
        draw_card(w, e.deck, at)


def exec_set_mode(w: Work, e: n.SetMode, ctx: Ctx) -> None:  # set mode NAME
    if w.mode != e.mode:
        w.mode = e.mode
        emit(w, "mode", f"the killer turns to {e.mode} (from the next Killer phase)", "K4.1")


def exec_set_flag(w: Work, e: n.SetFlag, ctx: Ctx) -> None:  # set flag NAME
    if e.flag not in w.flags:
        w.flags = w.flags | {e.flag}
        emit(w, "flag", f"the flag {e.flag} is set", "C1.2")


def exec_clear_flag(w: Work, e: n.ClearFlag, ctx: Ctx) -> None:  # clear flag NAME
    if e.flag in w.flags:
        w.flags = w.flags - {e.flag}
        emit(w, "flag", f"the flag {e.flag} is cleared", "C1.2")


def exec_open_path(w: Work, e: n.OpenPath, ctx: Ctx) -> None:  # open path A B [for fg|victims|enemies]
    open_path(w, loc(w, e.a, ctx), loc(w, e.b, ctx), e.who)


def exec_collect_token(w: Work, e: n.CollectToken, ctx: Ctx) -> None:  # collect token TOKEN at LOC
    collect_token(w, e.token, loc(w, e.loc, ctx))


def exec_place_token(w: Work, e: n.PlaceToken, ctx: Ctx) -> None:  # place token TOKEN at LOC
    where = loc(w, e.loc, ctx)
    if where >= 0:
        place_token(w, e.token, where)


# --- control lines ----------------------------------------------------------------------------
def exec_spend_tokens(w: Work, e: n.SpendTokens, ctx: Ctx) -> None:  # spend collected TOKEN LOW to HIGH { … }
    spent = spend_tokens(w, e.token, e.low, e.high)
    if spent:
        run(w, e.body, Ctx(ctx.source, ctx.attack, ctx.that, ctx.killer, spent, e.token, ctx.cause, ctx.by, ctx.here))


def exec_each(w: Work, e: n.Each, ctx: Ctx) -> None:  # each KIND { … } inside a spend block
    for k in ctx.spent:
        if k == e.kind:
            run(w, e.body, ctx)


def exec_for_each(w: Work, e: n.ForEach, ctx: Ctx) -> None:  # for each SELECTOR { … }
    scope = w.scope
    saved = scope.it
    for where in locations_of(w, e.among, ctx, amount(w, e.count, ctx) if e.count else 0):
        scope.it = where
        run(w, e.body, ctx)
    scope.it = saved


def exec_if(w: Work, e: n.If, ctx: Ctx) -> None:  # if COND { … } else { … }
    run(w, e.then if condition(w, e.cond, ctx) else e.otherwise, ctx)


def exec_mode_block(w: Work, e: n.ModeBlock, ctx: Ctx) -> None:  # mode NAME { … }
    if mode_active(w, e.mode):
        run(w, e.body, ctx)


def exec_repeat(w: Work, e: n.Repeat, ctx: Ctx) -> None:  # repeat N { … }
    for _ in range(min(MAX_REPEAT, amount(w, e.n, ctx))):
        run(w, e.body, ctx)


def exec_choose(w: Work, e: n.Choose, ctx: Ctx) -> None:  # choose { "A" { … } "B" { … } }
    opts = [Option(f"option:{i}", o.label) for i, o in enumerate(e.options)]
    key = ask(w, "effect-choice", "Choose one", opts)
    run(w, e.options[int(key.split(":")[1])].body, ctx)


def exec_roll(w: Work, e: n.Roll, ctx: Ctx) -> None:  # roll { on 1 2 { … } … }
    face = roll_die(w)
    if ("roll" in said) if (said := w.ctl.said) is not None else told(w, "roll"):  # (Replay.said)
        emit(w, "roll", f"rolls {face}", "C1.2")
    for row in e.rows:
        if face in row.faces:
            run(w, row.body, ctx)
            return


def exec_end_this_phase(w: Work, e: n.EndThisPhase, ctx: Ctx) -> None:  # end this phase
    raise PhaseEnd()


def exec_set_mode_now(w: Work, e: n.SetModeNow, ctx: Ctx) -> None:  # set mode NAME now
    if w.mode != e.mode or w.mode_active != e.mode:
        w.mode = w.mode_active = e.mode
        emit(w, "mode", f"the killer turns to {e.mode} at once", "K4.1")


def exec_end_game(w: Work, e: n.EndGame, ctx: Ctx) -> None:  # end game win|lose "REASON"
    end_game(w, "fg" if e.side == "win" else "killer", e.reason, "C13.1")


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
