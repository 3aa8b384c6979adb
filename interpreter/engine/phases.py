"""The round and its phases (C1, C4, C7, C8, C10, C11), and the state-based checks (C13).

Each phase is a step function over the working copy, run by the driver (driver.py) one
step at a time (``STEPS``); ``sub`` counts the progress inside a phase, so that every step ends
at a checkpoint. The content's win and lose lines are checked after every step (ends.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..state import Option
from . import steps
from .asking import ask
from .bloodlust import panic_location
from .cards import draw_event, reveal_finale
from .copies import as_card, key_of
from .ending import settle
from .ends import check_ends
from .fear_checks import discard_card, play_card
from .fields import SETTERS, set_secondary
from .final_girl import gain_time, lose_time
from .items import card_use, hands_used, use_uses
from .killers import flip_aside
from .movement import rescue_here
from .places import escape_offered
from .resolve import run
from .statics import came_into_play
from .steps import PhaseEnd, reset_scope
from .tables import NO_CTX
from .telling import emit, told
from .triggers import fire, would
from .victims import always_panicking, marks_at, rescuable
from .words import count_of
from .zones import can_make, make, usable

if TYPE_CHECKING:
    from .working import Work

PHASE_ORDER = ("action", "planning", "killer", "panic", "upkeep")
_END_OF = {p: f"end:{p}" for p in PHASE_ORDER}  # the happening at the end of each phase
_NEXT_PHASE = dict(zip(PHASE_ORDER, (*PHASE_ORDER[1:], PHASE_ORDER[0])))
END_DUE = 98  # ``sub`` of a phase ended at once (C14.2): its next step is its end, with its end triggers (K6.6)
ENDING = 99  # ``sub`` while a phase's end triggers resolve: ending it at once now goes straight on

# options that never change, made once
_END_ACTION = Option("end", "end the Action phase")
_STOP_BUYING = Option("done", "stop buying")
_DONE_SWAPPING = Option("done", "done rearranging")


def next_phase(w: Work) -> None:
    if w.game.bodies:
        for k in w.killers:
            if k.aside:  # K2.9: bodies set aside flip their tokens now
                flip_aside(w)
                if w.result:
                    return
                break
    nxt = _NEXT_PHASE[w.phase]
    if nxt == "action":  # after the last phase: a new round
        w.round += 1
    w.phase = nxt
    w.sub = 0


def phase_ended(w: Work, text: str = "the phase ends at once") -> None:
    """C14.2, C17.1: a last breath ended the phase at once. Its end still comes, with the triggers
    at the end of the phase (K6.6: crowds still gather at the end of a Killer phase cut short), as
    the next step; a phase ended again while its end triggers resolve goes straight on."""
    if w.phase not in PHASE_ORDER:
        return
    emit(w, "phase", text, "C14.2")
    if w.sub == ENDING:
        next_phase(w)
    elif w.phase == "action":
        w.action_over = True  # the next step ends the Action phase (C4.1), end triggers and all
        w.sub = 1
    else:
        w.sub = END_DUE


def replaced(w: Work, phase: str) -> bool:
    """A replacement of the whole phase ('instead of killer phase { … }'): its block is the phase
    (K1.6: a vanished killer's phase is replaced by other cards); then the next phase."""
    if phase not in w.game.whole_phases:
        return False
    if would(w, f"whole:{phase}", 0, f"the {phase.capitalize()} phase") is not None:
        return False
    next_phase(w)
    return True


def end_phase(w: Work) -> None:
    """The end of a phase: its end triggers, then the next phase."""
    w.sub = ENDING
    end = _END_OF[w.phase]  # (a step function's phase: one of PHASE_ORDER)
    if end in w.game.listens:  # (fire's own first test, without the call: every phase ends)
        fire(w, end)
    if w.game.bodies:
        for k in w.killers:
            if k.aside:  # K2.9: bodies set aside flip their tokens (next_phase)
                next_phase(w)
                return
    nxt = _NEXT_PHASE[w.phase]  # next_phase, written out (every phase ends here)
    if nxt == "action":  # after the last phase: a new round
        w.round += 1
    w.phase = nxt
    w.sub = 0


def step_setup(w: Work) -> None:
    w.phase = "action"
    w.sub = 0
    fire(w, "game-starts")
    draw_event(w)  # C18.5 default: the first event is drawn at setup


def step_action(w: Work) -> None:
    """C4: one decision of the Action phase: play a card, use an item or an action, rescue,
    discard a card for time, or end the phase; the phase ends by itself when C4.1 says so."""
    if w.sub == 0:
        w.deaths_round = 0
        w.action_over = False
        w.sub = 1
        if ("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase"):  # (Replay.said; told counts it)
            emit(w, "phase", f"round {w.round}: Action phase", "C1.1",
                 data=(w.round, w.bloodlust + 1, w.fg_health, w.fear, w.time))
        ctl = w.ctl
        if ctl.on_round is not None and (ctl.lean or ctl.count > ctl.skip):  # (the event just counted is new)
            ctl.on_round(w.round, w.bloodlust + 1)
        if w.skip_action:
            w.skip_action = False
            emit(w, "phase", "the Action phase is skipped", "C11.4")
            next_phase(w)
            return
        if w.game.whole_phases and replaced(w, "action"):
            return
        if "start:action" in w.game.listens:
            fire(w, "start:action")
        if not _chained(w):
            return
    g = w.game

    def menu() -> list[Option]:
        opts: list[Option] = []
        distinct = dict.fromkeys(w.hand)
        if g.usable_cards:
            cards = g.cards
            for cid in distinct:
                c = cards[cid]
                if c.kind == "action" and (c.usable is None or usable(w, c.usable)):  # K1.7
                    opts.append(g.play_opts[cid])
        else:  # no card of the game has 'usable while': every action card in the hand
            plays = g.plain_plays
            for cid in distinct:
                if cid in plays:
                    opts.append(plays[cid])
        if w.held or w.pack:
            for h in (*w.held, *w.pack):
                it = g.items[h.id]
                if h.copy:  # a card that carries tokens apart: its own use, read of it (engine/copies.py)
                    card_use(w, h, opts)
                elif it.use is not None and (it.usable is None or usable(w, it.usable)) and (  # K2.5
                        h.uses > 0 or not it.uses):  # S3.4: an ingredient used up has no use left
                    opts.append(g.use_opts[h.id])
        # S1.2, S3.3, S5.2–S5.3: actions the content offers where their condition holds (compiled: Game)
        if g.actions:
            ctx = NO_CTX  # conditions read a Ctx, never write it
            for cond, use, o in g.actions_at[w.fg_loc]:  # those whose 'fg at tag' parts hold here
                if (cond is None or cond(w, ctx)) and (use is None or use(w, ctx)):
                    opts.append(o)
        if g.recipes and (w.held or w.pack or g.free_recipes):  # S3.4 (empty-handed, only one of no needs)
            held = [h.id for h in (*w.held, *w.pack)]
            have = set(held)
            for r, needs, o in zip(g.recipes, g.recipe_needs, g.recipe_opts):
                if needs <= have and can_make(w, r, held):  # she holds an item of each kind it needs, first
                    opts.append(o)
        if w.victims[w.fg_loc] > 0 and escape_offered(w, w.fg_loc) and (not w.marked or rescuable(w, w.fg_loc)):
            opts.append(Option("rescue", "let the victims here escape"))
        for cid in distinct:
            opts.append(g.discard_opts[cid])
        opts.append(_END_ACTION)
        return opts

    while True:
        if w.action_over or w.time < 0 or not w.hand:  # C4.1
            if not w.action_over and (("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase")):
                emit(w, "phase", "the Action phase ends" + (" (time below 0)" if w.time < 0 else " (hand empty)"),
                     "C4.1")
            end_phase(w)
            return
        key = ask(w, "action", "Your action", menu)
        if key == "end":
            w.action_over = True
            if ("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase"):
                emit(w, "phase", "the player ends the Action phase", "C4.1")
        elif key.startswith("play:"):
            play_card(w, key[5:], g.source_ctx[key[5:]])
        elif key.startswith("discard:"):
            discard_card(w, key[8:], "C3.2")
            gain_time(w, 1)
        elif key.startswith("use:"):
            iid, _sep, k = key[4:].partition("#")  # 'use:ID#N': that card (engine/copies.py)
            it = g.items[iid]
            assert it.use is not None
            emit(w, "use", f"uses {it.name}", "C6.4", data=(iid,))
            lose_time(w, it.use.time)
            if k:
                as_card(w, key_of(iid, int(k)), run, w, it.use.effects, g.source_ctx[iid])
            else:
                run(w, it.use.effects, g.source_ctx[iid])
            fire(w, "item-used", None, 1, extra=iid)
            use_uses(w, iid, int(k or 0))
        elif key.startswith("action:"):
            a = next(x for x in g.actions if x.id == key[7:])
            if ("action" in said) if (said := w.ctl.said) is not None else told(w, "action"):  # (Replay.said)
                emit(w, "action", f"{a.name}", "C1.2")
            if a.time and not a.free:
                lose_time(w, a.time)
            run(w, a.effects, g.source_ctx[a.id])
        elif key.startswith("recipe:"):
            make(w, next(x for x in g.recipes if x.id == key[7:]))
        elif key == "rescue":
            rescue_here(w)

        # in a lean step the phase goes on to its next decision itself (see _between_steps); else
        # each decision is a step: the next one starts from this checkpoint
        ctl = w.ctl
        if not (ctl.lean and ctl.budget > steps.LEAN_RESERVE):
            return
        if w.scope.defeat or w.scope.depth or g.has_ends:
            _between_steps(w)


def _between_steps(w: Work) -> None:
    """After a decision or a part of a phase in a lean step (no checkpoint kept, answers to spare:
    asking.ask; the Planning and Action loops and _chained test that themselves), the phase
    goes on itself, after what the driver does between two steps: C13.2, a defeat settled; C13,
    the win and lose lines; a scope cut short freshened (called only where one of them is to be done)."""
    scope = w.scope
    if scope.defeat:
        settle(w)
    if w.game.has_ends:
        check_ends(w)
    if scope.depth:  # a resolution cut short inside the step (a phase ended at once, caught there)
        reset_scope(scope)


def _chained(w: Work) -> bool:
    """Whether the phase's next part follows at once, in this call: in a lean step (no checkpoint
    kept, answers to spare: asking.ask) nobody sees the step between its parts. What the
    driver does between two steps is done first (_between_steps), and the part counts as a step
    of its own (MAX_STEPS); otherwise the caller returns and the driver takes the next part."""
    ctl = w.ctl
    if not (ctl.lean and ctl.budget > steps.LEAN_RESERVE) or ctl.steps >= steps.MAX_STEPS:
        return False
    if w.scope.defeat or w.scope.depth or w.game.has_ends:
        _between_steps(w)
    if w.result:
        return False
    ctl.steps += 1
    return True


def step_planning(w: Work) -> None:
    """C7: one purchase, or stop buying: then time resets and the spent cards join the market."""
    g = w.game
    if w.sub == END_DUE:
        end_phase(w)
        return
    if w.sub == 0:
        w.sub = 1
        if ("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase"):  # (Replay.said)
            emit(w, "phase", "Planning phase", "C1.1")
        if w.game.whole_phases and replaced(w, "planning"):
            return
        if "start:planning" in w.game.listens:
            fire(w, "start:planning")
        if not _chained(w):
            return

    # the market's cards, each once in its order, and the market they were listed for: a purchase
    # below keeps the list in step where that is sure (dict.fromkeys is most of a menu's cost)
    listed: list[Any] = [None, []]

    def menu() -> list[Option]:
        if len(w.hand) >= g.player_board.hand_limit:  # C7.3
            return [_STOP_BUYING]
        # C7.3, C7.4: each card of the market once, in its order, if affordable or free (the cards of
        # each cost within the time, listed once per Game: Game.affordable)
        time = w.time
        ok = g.affordable[0 if time < 0 else time if time < g.top_cost else g.top_cost]
        buy = g.buy_opts
        market = w.market
        if listed[0] is not market:
            listed[0], listed[1] = market, list(dict.fromkeys(market))
        opts = [_STOP_BUYING]
        for c in listed[1]:  # (a loop: a list comprehension is a call of its own)
            if c in ok:
                opts.append(buy[c])
        return opts

    def prompt() -> str:
        return f"Buy cards (time {w.time}, hand {len(w.hand)})"

    while True:
        key = ask(w, "buy", prompt, menu)
        if key == "done":
            break
        cid = key[4:]
        old = w.market
        m = list(old)
        at = m.index(cid)
        del m[at]
        w.market = tuple(m)
        if listed[0] is old:  # the same cards in the same order, unless the last copy went or a later one leads
            if at < len(m) and m[at] == cid:  # its next copy stood right after it: the order holds
                listed[0] = w.market
            elif cid not in m:
                listed[1].remove(cid)
                listed[0] = w.market
        w.hand = tuple(sorted(w.hand + (cid,)))
        w.time -= g.cards[cid].cost
        said = w.ctl.said  # told without the call, in a lean step (Replay.said)
        if ("buy" in said) if said is not None else told(w, "buy"):
            emit(w, "buy", f"buys {g.cards[cid].name} (time {w.time})", "C7.1", data=(cid,))
        ctl = w.ctl  # each purchase is a step, but in a lean one (as in step_action, _between_steps)
        if not (ctl.lean and ctl.budget > steps.LEAN_RESERVE):
            return
        if w.scope.defeat or w.scope.depth or g.has_ends:
            _between_steps(w)
    w.time = g.side.time_reset  # C7.5
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if ("time" in said) if said is not None else told(w, "time"):
        emit(w, "time", f"time resets to {w.time}", "C7.5")
    if w.spent:
        w.market = tuple(sorted(w.market + w.spent))  # C7.6
        k = len(w.spent)
        if ("market" in said) if (said := w.ctl.said) is not None else told(w, "market"):  # (Replay.said)
            emit(w, "market", f"{count_of(k, 'played or discarded card')} return{'s' if k == 1 else ''} to the "
                 "market", "C7.6")
        w.spent = ()
    end_phase(w)


def step_killer(w: Work) -> None:
    """C8: the killer action (or the finale's), then a terror card; each part is its own step."""
    g = w.game
    while True:
        try:
            if w.sub == 0:
                if ("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase"):  # (Replay.said)
                    emit(w, "phase", "Killer phase", "C1.1")
                w.mode_active = w.mode  # K4.1: a switch takes effect from the next Killer phase
                w.sub = 1
                if w.game.whole_phases and replaced(w, "killer"):
                    return
                if "start:killer" in w.game.listens:
                    fire(w, "start:killer")
            elif w.sub == 1:
                w.sub = 2
                f = g.finales[w.finale]
                said = w.ctl.said  # told without the call, in a lean step (Replay.said)
                if not w.finale_revealed:
                    if ("killer-action" in said) if said is not None else told(w, "killer-action"):
                        emit(w, "killer-action", "the killer action on the back of the finale card", "C8.1")
                    run(w, f.back, g.source_ctx[f.id])
                else:
                    if ("killer-action" in said) if said is not None else told(w, "killer-action"):
                        emit(w, "killer-action", f"the finale's action: {f.name}", "C8.2")
                    run(w, f.face, g.source_ctx[f.id])
            elif w.sub == 2:
                w.sub = 3
                if not w.finale_revealed and w.terror:  # C8.2: no terror card once the finale is revealed
                    tid = w.terror[0]
                    w.terror = w.terror[1:]
                    t = g.terror[tid]
                    if ("terror" in said) if (said := w.ctl.said) is not None else told(w, "terror"):  # (Replay.said)
                        emit(w, "terror", f"terror card: {t.name}", "C8.1")
                    if t.secondary_health > 0:
                        came_into_play(w)
                        set_secondary(w, tid)
                        w.secondary_health = t.secondary_health
                        came_into_play(w)
                        emit(w, "secondary", f"{t.name} takes the secondary dark power slot "
                                             f"({t.secondary_health} health)", "C17.4")
                    run(w, t.effects, g.source_ctx[tid])
                    if "card-drawn" in g.listens:
                        fire(w, "card-drawn", None, 1)
            else:  # sub 3, or END_DUE: the end of the phase
                end_phase(w)
                return
        except PhaseEnd:
            phase_ended(w, "the Killer phase ends at once")
            return
        if not _chained(w):  # a lean step: its next part follows at once
            return


def step_panic(w: Work) -> None:
    """C10: after a round with a death, victims sharing a location with an enemy panic."""
    if w.sub == END_DUE:
        next_phase(w)  # the Panic phase has no end triggers
        return
    if w.game.whole_phases and replaced(w, "panic"):
        return
    if w.marked:
        _panic_marked(w)
    elif w.deaths_round > 0:  # C10.1, C15.4
        if ("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase"):  # (Replay.said)
            emit(w, "phase", "Panic phase: a victim died this round", "C10.1")
        locs = sorted({k.loc for k in w.killers if k.alive and k.loc >= 0} | {m.loc for m in w.minions})
        panicking = [(loc, w.victims[loc]) for loc in locs if w.victims[loc] > 0]
        for loc, count in panicking:  # counted first: a victim who flees does not panic again
            panic_location(w, loc, count)
    if "start:panic" in w.game.listens:
        fire(w, "start:panic")
    next_phase(w)


def _panic_marked(w: Work) -> None:
    """C10 with victims that are not plain: as above, each counted first with what it carries; and
    K2.4: a victim of a kind that always panics panics wherever it is, a death this round or not."""
    locs: list[int] = []
    if w.deaths_round > 0:  # C10.1, C15.4
        emit(w, "phase", "Panic phase: a victim died this round", "C10.1")
        locs = sorted({k.loc for k in w.killers if k.alive and k.loc >= 0} | {m.loc for m in w.minions})
    always = [m for m in always_panicking(w) if m.loc not in locs]
    if always and not locs:
        emit(w, "phase", "Panic phase: the victims who always panic do so", "C10.1")
    panicking = [(loc, w.victims[loc] - len(marks_at(w, loc)), [m.uid for m in marks_at(w, loc)])
                 for loc in locs if w.victims[loc] > 0]
    for loc in sorted({m.loc for m in always}):
        panicking.append((loc, 0, [m.uid for m in always if m.loc == loc]))
    for loc, plain, uids in sorted(panicking, key=lambda p: p[0]):  # counted first: none panics twice
        panic_location(w, loc, plain, uids)


def step_upkeep(w: Work) -> None:
    """C11: the finale is revealed once the terror deck is empty; upkeep effects; hands and backpack."""
    if w.sub == END_DUE:
        end_phase(w)
        return
    if w.sub == 0:
        w.sub = 1
        if ("phase" in said) if (said := w.ctl.said) is not None else told(w, "phase"):  # (Replay.said)
            emit(w, "phase", "Upkeep phase", "C1.1")
        if w.game.whole_phases and replaced(w, "upkeep"):
            return
        if not w.terror and not w.finale_revealed:  # C11.1
            reveal_finale(w)
        if "start:upkeep" in w.game.listens:
            fire(w, "start:upkeep")  # C11.2
        if not _chained(w):
            return
    g = w.game
    opts = [_DONE_SWAPPING]
    for h in w.held:  # an item's options are the same in every Upkeep phase: made once per Game
        if not g.items[h.id].hand_only:  # (never to the backpack: S1.7)
            opts.append(g.to_pack_opts[h.id])
    for h in w.pack:
        it = g.items[h.id]
        if it.weapon and hands_used(w) + it.weapon.hands <= 2:
            opts.append(g.to_hand_opts[h.id])
    key = ask(w, "swap", "Rearrange hands and backpack (C11.3)", opts)
    if key == "done":
        end_phase(w)
        return
    iid = key.split(":", 1)[1]
    src, dst = ("held", "pack") if key.startswith("to-pack") else ("pack", "held")
    items = getattr(w, src)
    i = next(i for i, h in enumerate(items) if h.id == iid)
    SETTERS[dst](w, getattr(w, dst) + (items[i],))
    SETTERS[src](w, items[:i] + items[i + 1:])
    emit(w, "swap", f"moves {g.items[iid].name}", "C11.3")


STEPS: dict[str, Callable[[Work], None]] = {
    "setup": step_setup, "action": step_action, "planning": step_planning, "killer": step_killer,
    "panic": step_panic, "upkeep": step_upkeep}
