"""The rules engine: core rules C1–C18 over generic effect primitives.

How a transition works. The engine is written as ordinary straight-line code over a mutable
working copy (``Work``) of an immutable ``GameState``. The game advances in *steps* (one
top-level decision of the Action phase with everything it causes, one purchase, a whole
Killer phase, …). After each step the work is frozen into a new state: a checkpoint. When code
inside a step needs a decision it calls ``ask``; if the answer is not known yet, a
``NeedChoice`` unwinds the step and the state returned holds the checkpoint, the answers given
so far in this step and the pending ``Choice``. ``apply`` appends the new answer and replays
the step from its checkpoint; since all randomness comes from the state's (seed, counter), the
replay is exact. So ``apply`` is a pure function, states are plain data (a checkpoint plus
answers), and a game can be saved in the middle of a card.

Replay is the meaning; a greenlet makes it cheap (docs/decisions/0005). ``advance`` runs in a
greenlet, and ``ask`` pauses it there instead of unwinding. The first ``apply`` to the paused
state resumes that run with the answer, which gives exactly what the replay would; any other
answer to it (a second one, a loaded save, another thread) replays.

This module knows the core rules and the language's primitives; it names no killer, scenario,
card or scenario mechanic (the purity rule, DESIGN.md).
"""

from __future__ import annotations

import threading
import weakref
from typing import Optional

from lastbreath.dsl import nodes as n
from lastbreath.dsl.diagnostics import IllegalChoice, RulesError

from . import rng
from .board import INF, Board
from .state import Choice, Event, GameState, HeldItem, KillerState, MinionState, Option

try:  # a run paused at a choice is kept suspended in a greenlet, and resumed instead of replayed
    import greenlet as _greenlet
except ImportError:  # pragma: no cover - without it every answer replays its step (same results)
    _greenlet = None  # type: ignore[assignment]

PHASE_ORDER = ("action", "planning", "killer", "panic", "upkeep")
MAX_EFFECT_DEPTH = 60  # effects resolving inside effects; deeper means content that feeds itself
TIE_POLICIES = ("harder", "realistic", "easier", "ask")


class NeedChoice(Exception):
    """Unwinds a step that needs an answer. Its one argument is the Choice: without an ``__init__``
    of its own it is raised without a Python call (once a transition)."""

    @property
    def choice(self) -> Choice:
        return self.args[0]


class GameOver(Exception):
    pass


class PhaseEnd(Exception):
    pass


class Game:
    """Static facts of one game: the content chosen and the tables compiled from it."""

    def __init__(self, ruleset, killer: n.Killer, scenario: n.Scenario, final_girl: n.FinalGirl,
                 difficulty: str = "normal", legendary: bool = False, tie_policy: str = "harder"):
        self.ruleset = ruleset
        self.killer = killer
        self.scenario = scenario
        self.fg = final_girl
        self.difficulty = difficulty
        self.legendary = legendary
        self.tie_policy = tie_policy
        pb = ruleset.player_board()
        self.player_board = pb
        sides = {s.id: s for s in pb.sides}
        if difficulty not in sides:
            raise RulesError(f"unknown difficulty '{difficulty}' (the player board has: {', '.join(sides)})")
        self.side: n.Side = sides[difficulty]
        self.dice_by_fear = {f: z.dice for z in self.side.zones for f in range(z.low, z.high + 1)}
        cache = ruleset.cache.setdefault("boards", {})
        if scenario.id not in cache:
            cache[scenario.id] = Board(scenario)
        self.board: Board = cache[scenario.id]
        self.cards: dict[str, n.Card] = {cid: c for cid, c in ruleset.cards.items() if c.owner in ("", killer.id, scenario.id)}
        self.items = ruleset.items
        self.terror = {t.id: t for t in (*killer.terror, *scenario.terror)}
        self.finales = {f.id: f for f in killer.finales}
        self.dark_powers = {d.id: d for d in killer.dark_powers}
        self.events = {e.id: e for e in scenario.events}
        self.minions = dict(ruleset.minions)
        self.tokens = {t.id: t for t in (*killer.tokens, *scenario.tokens)}
        self.actions = (*killer.actions, *scenario.actions)
        self.decks = {d.id: d for d in (*killer.decks, *scenario.decks)}
        self.deck_cards = {f"{d.id}/{c.id}": c for d in self.decks.values() for c in d.cards}
        self.levels = killer.bloodlust
        self.abilities_cache: dict = {}
        self.statics_cache: dict[tuple[int, type], tuple] = {}  # (id of the abilities in play, rule class) -> (them, rules)
        self.option_cache: dict[tuple[str, str], Option] = {}
        # menu options that recur in every round, built once
        self.play_opts = {cid: Option(f"play:{cid}", f"play {c.name}") for cid, c in self.cards.items()}
        self.discard_opts = {cid: Option(f"discard:{cid}", f"discard {c.name} for 1 time") for cid, c in self.cards.items()}
        self.buy_opts = {cid: Option(f"buy:{cid}", f"buy {c.name} ({c.cost} time)") for cid, c in self.cards.items()}
        self.costs = {cid: c.cost for cid, c in self.cards.items()}
        self.action_opts = tuple(  # the Action menu's option for each of self.actions
            Option(f"action:{a.id}", f"{a.name} ({'free' if a.free or not a.time else f'{a.time} time'})")
            for a in self.actions)
        # items whose abilities matter while held (a 'gained' trigger runs from the item itself)
        self.item_abilities = frozenset(
            i for i, it in self.items.items()
            if it.abilities.rules or it.abilities.replacements or it.abilities.ends
            or any(t.event != "gained" for t in it.abilities.triggers))
        self.reroll_cards = frozenset(cid for cid, c in self.cards.items() if c.kind == "reroll")
        sources = [killer.abilities, scenario.abilities, final_girl.flipped,
                   *(f.abilities for f in killer.finales), *(d.abilities for d in killer.dark_powers),
                   *(t.abilities for t in self.terror.values()), *(e.abilities for e in scenario.events),
                   *(it.abilities for it in self.items.values()),
                   *(c.abilities for c in self.deck_cards.values())]
        self.has_ends = any(a.ends for a in sources)
        self.trigger_events = frozenset(t.event for a in sources for t in a.triggers)
        self.rule_kinds = frozenset(type(r) for a in sources for r in a.rules)
        self.has_replacements = frozenset(r.event for a in sources for r in a.replacements)
        self.no_board = not killer.board  # K6.1: bodies only form during the game; content decides the win
        self.absorbing = n.KillersAbsorb in self.rule_kinds
        self.setup_killer = {su.id: self.board.index.get(su.killer_at, -1) for su in scenario.setups}
        self.body_name = killer.body or killer.name

    @property
    def ids(self) -> dict:
        return {"killer": self.killer.id, "scenario": self.scenario.id, "final_girl": self.fg.id,
                "difficulty": self.difficulty, "legendary": self.legendary, "tie_policy": self.tie_policy}


class Ctl:
    """Replay bookkeeping for one run of the engine."""

    __slots__ = ("answers", "pos", "count", "skip", "events", "complete", "node", "depth", "it",
                 "run", "checkpoint", "cp", "base", "steps", "policy", "budget", "hook", "given")

    def __init__(self, answers: tuple[str, ...], skip: int, complete: bool = True):
        self.complete = complete  # answers record every ask of the step (see ``ask``)
        self.answers = answers
        self.pos = 0
        self.count = 0
        self.skip = skip
        self.events: list[Event] = []
        self.node = None  # the content node being resolved, for event sources
        self.depth = 0  # nesting of effect lists being resolved (bounded: MAX_EFFECT_DEPTH)
        self.it = -1  # the location 'it' of the innermost 'for each'
        self.run = False  # running in advance()'s greenlet: ask() pauses it (see _pause)
        self.policy = None  # answering inside the run, for play_out


class Work:
    """A mutable working copy of a GameState; fields are rebound, never mutated in place.

    ``ctl`` lives in a slot, so ``__dict__`` holds the state's fields and nothing else: a copy of
    it is a whole state, and a plain ``dict.copy`` (which clones the key table at once) makes it.
    """

    __slots__ = ("ctl", "__dict__")

    def __init__(self, state: GameState, ctl: Ctl):
        self.__dict__ = state.__dict__.copy()
        self.ctl = ctl

    def freeze(self, **extra) -> GameState:
        d = self.__dict__.copy()
        if extra:
            d.update(extra)
        return _state_of(d)

    def release(self, **extra) -> GameState:
        """``freeze`` for the last use of this Work: the state takes the fields without a copy."""
        d = self.__dict__
        self.__dict__ = {}  # the Work is spent: nothing written to it can reach the state
        d.update(extra)
        return _state_of(d)


class Ctx:
    """What an effect needs to know about where it is resolving."""

    __slots__ = ("source", "attack", "that", "killer", "spent", "spent_token")

    def __init__(self, source: str = "", attack: Optional["Attack"] = None, that: int = 0, killer: int = -1,
                 spent: tuple[str, ...] = (), spent_token: str = ""):
        self.source = source
        self.attack = attack
        self.that = that
        self.killer = killer  # the killer body a trigger is about ('when killer forms / kills'), or -1
        self.spent = spent  # kinds of the tokens spent, inside a spend block
        self.spent_token = spent_token


class Attack:
    """An attack on the Final Girl in progress: reactions may lower its damage or hit back."""

    __slots__ = ("damage", "attacker", "minion_index")

    def __init__(self, damage: int, attacker: str, minion_index: int = -1):
        self.damage = damage
        self.attacker = attacker  # "killer:<index>" or "minion"
        self.minion_index = minion_index


# --- asking and telling ---------------------------------------------------------------------
def ask(w: Work, kind: str, prompt, options) -> str:
    """The player's answer to a choice; a choice with one option is not asked.

    ``prompt`` and ``options`` may be callables, evaluated only when the options are needed:
    when the engine replays a step from a complete answer trace (every ask of the step, the
    one-option ones included, recorded in ``state.answers``) no menu is rebuilt.
    """
    ctl = w.ctl
    if ctl.complete and ctl.pos < len(ctl.answers):
        key = ctl.answers[ctl.pos]
        ctl.pos += 1
        return key
    opts = options() if callable(options) else options
    if not opts:
        raise AssertionError(f"choice {kind} with no options")
    if len(opts) == 1:
        if ctl.complete:
            ctl.answers += (opts[0].key,)
            ctl.pos += 1
        return opts[0].key
    if ctl.pos < len(ctl.answers):
        key = ctl.answers[ctl.pos]
        ctl.pos += 1
        return key
    choice = _choice(kind, prompt() if callable(prompt) else prompt, tuple(opts))
    if ctl.run:
        return _pause(w, choice)
    raise NeedChoice(choice)


def _pause(w: Work, choice: Choice) -> str:
    """Inside advance's greenlet: hand the paused state to apply's caller and wait for the answer.

    The state is exactly the one the replay would build (the same checkpoint, answers and events
    seen), so a state whose run is gone (answered once already, loaded from a save, another
    thread) is answered by replaying its step, with the same result.
    """
    ctl = w.ctl
    base = ctl.base
    if base is None:
        base = ctl.base = ctl.checkpoint if ctl.cp is None else _state_of(ctl.cp)
    # Neither the greenlet nor the paused state may be held by the suspended frames: a greenlet's
    # frames are invisible to the garbage collector, so such a cycle (the state keys the run in
    # _RUNS) would never be freed. The state goes out through an attribute of the greenlet.
    run = _greenlet.getcurrent()
    d = w.__dict__.copy()  # w.freeze(choice=…, answers=…, checkpoint=…, events_seen=…), written out
    d["choice"], d["answers"], d["checkpoint"], d["events_seen"] = choice, ctl.answers, base, ctl.count
    if ctl.policy is not None and ctl.budget > 0:
        del run
        return _answer_here(w, choice, _state_of(d))
    run.out = (_state_of(d), ctl.events)
    del d
    parent = run.parent
    del run
    key = parent.switch()
    ctl.events = []
    ctl.steps = 0
    ctl.answers += (key,)
    ctl.pos += 1
    return key


def _answer_here(w: Work, choice: Choice, state: GameState) -> str:
    """play_out's answer inside the run: what ``apply(state, policy(state, choice))`` does from
    the caller, without leaving the run (the same state, events, checks and answer trace)."""
    ctl = w.ctl
    ctl.hook(state, ctl.events)
    ctl.budget -= 1
    ctl.given += 1
    key = ctl.policy(state, choice)
    for o in choice.options:
        if o.key == key:
            break
    else:
        raise IllegalChoice(f"'{key}' is not an option here; options: {', '.join(choice.keys())}")
    ctl.events = []
    ctl.steps = 0
    ctl.answers += (key,)
    ctl.pos += 1
    return key


def _choice(kind: str, prompt: str, options: tuple[Option, ...]) -> Choice:
    """``Choice(kind, prompt, options)`` without the frozen class's attribute-by-attribute ``__init__``."""
    c = _new_object(Choice)
    _set_dict(c, "__dict__", {"kind": kind, "prompt": prompt, "options": options})
    return c


_new_object = object.__new__

# options that never change, made once (what ``opt`` would return for them)
_ACCEPT = Option("accept", "accept the roll")
_CONVERT = Option("convert", "discard two cards to turn a 3–4 into a success")
_END_ACTION = Option("end", "end the Action phase")
_STOP_BUYING = Option("done", "stop buying")
_DONE_SWAPPING = Option("done", "done rearranging")


def opt(w: Work, key: str, label: str) -> Option:
    """An Option, shared across states when its key and label recur (they are immutable)."""
    cache = w.game.option_cache
    got = cache.get((key, label))
    if got is None:
        got = cache[(key, label)] = Option(key, label)
    return got


def emit(w: Work, kind: str, text: str, rule: str = "", source: str = "", data: tuple = ()) -> None:
    """Report what happened; ``source`` defaults to the content line being resolved, if any."""
    ctl = w.ctl
    ctl.count += 1
    if ctl.count > ctl.skip:
        if not source and ctl.node is not None:
            sp = ctl.node.span
            if sp is not None:
                source = _source(sp)
        ctl.events.append(_new_tuple(Event, (kind, text, rule, source, data)))  # Event(...) without its Python __new__


_new_tuple = tuple.__new__
_SOURCES: dict[int, tuple] = {}  # id(span) -> (span, "file:line:col"); the span is kept so that its id stays its own


def _source(sp) -> str:
    """An event's source text for a span, formatted once per span."""
    got = _SOURCES.get(id(sp))
    if got is not None and got[0] is sp:
        return got[1]
    if len(_SOURCES) > 100_000:  # content loaded again and again (tests, a server): start afresh
        _SOURCES.clear()
    text = f"{sp.path}:{sp.line}:{sp.col}"
    _SOURCES[id(sp)] = (sp, text)
    return text


def roll_die(w: Work) -> int:
    v = rng.draw(w.seed, w.rng, 6) + 1
    w.rng += 1
    return v


def rand(w: Work, k: int) -> int:
    v = rng.draw(w.seed, w.rng, k)
    w.rng += 1
    return v


def shuffled(w: Work, items) -> tuple:
    out = list(items)
    # the draws of rand(): rng.draw written out, without a call per draw (setup shuffles ~70 times)
    c = w.rng
    base = w.seed * 0x100000001B3 + 0x9E3779B97F4A7C15
    mask = rng.MASK
    for i in range(len(out) - 1, 0, -1):
        z = (base + c) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        j = ((z ^ (z >> 31)) >> 11) % (i + 1)
        c += 1
        out[i], out[j] = out[j], out[i]
    w.rng = c
    return tuple(out)


def loc_name(w: Work, i: int) -> str:
    return w.game.board.names[i] if 0 <= i < w.game.board.n else "off the board"


# --- what is in play ------------------------------------------------------------------------
def abilities(w: Work) -> tuple[n.Abilities, ...]:
    """Every source of triggers, replacements and statics now in play."""
    g: Game = w.game
    ia = g.item_abilities
    key = (w.dark_power if w.dark_revealed else "", w.finale if w.finale_revealed else "", w.events_active,
           w.secondary, w.flipped, w.kept,
           tuple(h.id for h in (*w.held, *w.pack) if h.id in ia) if ia and (w.held or w.pack) else ())
    got = g.abilities_cache.get(key)
    if got is None:
        srcs = [g.killer.abilities, g.scenario.abilities]
        if w.dark_revealed:
            srcs.append(g.dark_powers[w.dark_power].abilities)
        if w.finale_revealed:
            srcs.append(g.finales[w.finale].abilities)
        srcs.extend(g.events[e].abilities for e in w.events_active)
        if w.secondary:
            srcs.append(g.terror[w.secondary].abilities)
        if w.flipped:
            srcs.append(g.fg.flipped)
        srcs.extend(g.items[h.id].abilities for h in (*w.held, *w.pack))
        srcs.extend(g.deck_cards[c].abilities for c in w.kept)
        got = tuple(s for s in srcs if s)
        g.abilities_cache[key] = got
    return got


def statics(w: Work, cls: type) -> tuple:
    g: Game = w.game
    if cls not in g.rule_kinds:
        return ()
    srcs = abilities(w)  # one tuple per set of sources in play (abilities_cache), so its id names that set
    got = g.statics_cache.get((id(srcs), cls))
    if got is None or got[0] is not srcs:
        got = g.statics_cache[(id(srcs), cls)] = (srcs, tuple(r for a in srcs for r in a.rules if type(r) is cls))
    return got[1]


def fire(w: Work, event: str, arg: str = "", body: int = -1) -> None:
    """Run every active trigger on this event (``body``: the killer body it is about, if any)."""
    if event not in w.game.trigger_events:
        return
    for a in abilities(w):
        for t in a.triggers:
            if t.event == event and (not t.arg or t.arg == arg):
                run(w, t.body, Ctx(source=event, killer=body))


def replacement(w: Work, event: str) -> Optional[n.Replacement]:
    if event not in w.game.has_replacements:
        return None
    for a in abilities(w):
        for r in a.replacements:
            if r.event == event:
                return r
    return None


def replaced(w: Work, event: str, amount: int, what: str) -> bool:
    """Run the replacement for this event if one is in play (its ``that`` is the amount); True if it ran."""
    rep = replacement(w, event)
    if rep is None:
        return False
    emit(w, "replace", f"instead of {what}", "", "replacement")
    run(w, rep.body, Ctx(that=amount))
    return True


def enemy_tables(w: Work):
    bans = statics(w, n.EnemiesCannotCross)
    forbidden = frozenset(r.tag for r in bans) if bans else _NO_TAGS
    return w.game.board.tables(w.opened, forbidden)


_NO_TAGS: frozenset[str] = frozenset()


def fg_tables(w: Work):
    return w.game.board.tables(w.opened)


# --- the Final Girl's numbers ---------------------------------------------------------------
def gain_time(w: Work, k: int) -> None:
    """C3.7: time stays on the track; while below 0 it cannot be gained."""
    if k <= 0:
        return
    if w.time < 0:
        emit(w, "time", "time is below 0 and cannot be gained", "C3.7")
        return
    new = min(w.game.side.time_max, w.time + k)
    if new != w.time:
        emit(w, "time", f"gains {new - w.time} time (now {new})", "C3.4")
    w.time = new


def lose_time(w: Work, k: int) -> None:
    if k <= 0:
        return
    if replaced(w, "fg-loses-time", k, f"losing {k} time"):
        return
    new = max(w.game.side.time_min, w.time - k)
    emit(w, "time", f"loses {w.time - new} time (now {new})", "C3.4")
    w.time = new
    if new < 0 and w.phase != "action" and not w.skip_action:
        w.skip_action = True
        emit(w, "time", "time fell below 0 outside the Action phase: the next Action phase is skipped", "C11.4")


def heal(w: Work, k: int) -> None:
    new = min(w.game.fg.health, w.fg_health + max(0, k))
    if new != w.fg_health:
        emit(w, "health", f"heals {new - w.fg_health} (health {new})", "C3.5")
    w.fg_health = new


def raise_fear(w: Work, k: int) -> None:
    for _ in range(max(0, k)):
        if w.fear >= w.game.side.fear_max:
            emit(w, "fear", "fear is at its maximum: bloodlust rises instead", "C3.6")
            raise_bloodlust(w, 1)
        else:
            w.fear += 1
            emit(w, "fear", f"fear rises to {w.fear}", "C3.4")


def lower_fear(w: Work, k: int) -> None:
    for _ in range(max(0, k)):
        if w.fear <= w.game.side.fear_min:
            emit(w, "fear", "fear is at its minimum: gains 1 time instead", "C3.6")
            gain_time(w, 1)
        else:
            w.fear -= 1
            emit(w, "fear", f"fear falls to {w.fear}", "C3.4")


def fg_damage(w: Work, k: int, rule: str = "C9.6") -> None:
    """Damage to the Final Girl, with her last-breath token (C14.1–C14.2)."""
    if k <= 0 or w.result:
        return
    if k <= w.fg_health:
        w.fg_health -= k
        emit(w, "damage", f"the Final Girl takes {k} damage (health {w.fg_health})", rule)
        if w.fg_health == 0:
            emit(w, "breath", "the Final Girl is down to her last breath: +1 die", "C14.2")
        return
    emit(w, "damage", f"the Final Girl takes {k} damage: her last-breath token is lost", rule)
    w.fg_health = 0
    if w.fg_breath == 2 and w.fg_breath_value > 0:
        w.fg_breath = 1
        w.fg_health = w.fg_breath_value
        emit(w, "breath", f"her black token shows {w.fg_breath_value}: it turns white and she restores "
                          f"{w.fg_breath_value} health; the phase ends", "C14.2")
        raise PhaseEnd()
    w.fg_breath = 0
    emit(w, "breath", "her last breath is gone: the Final Girl is defeated", "C14.2")
    end_game(w, "killer", "the Final Girl was defeated")


def end_game(w: Work, winner: str, reason: str) -> None:
    if winner == "killer" and not any(k.alive for k in w.killers) and w.killers and not w.game.no_board:
        winner, reason = "fg", "both sides fell at once: her sacrifice counts as a win"
    w.result = winner
    w.end_reason = reason
    w.phase = "over"
    emit(w, "end", f"{'the Final Girl' if winner == 'fg' else 'the killer'} wins: {reason}", "C13.1" if "both" not in reason else "C13.2")
    raise GameOver()


# --- bloodlust and victims ------------------------------------------------------------------
def raise_bloodlust(w: Work, k: int) -> None:
    if k <= 0:
        return
    if replaced(w, "bloodlust-rises", k, f"bloodlust rising by {k}"):
        return
    levels = w.game.levels
    for _ in range(k):
        if w.bloodlust >= len(levels) - 1:
            emit(w, "bloodlust", "bloodlust is at its maximum: the top effect resolves", "C17.2")
            run(w, w.game.killer.at_max, Ctx(source="bloodlust"))
            continue
        w.bloodlust += 1
        emit(w, "bloodlust", f"bloodlust rises to {w.bloodlust + 1}", "C17.2")
        if w.bloodlust not in w.lust_fired and levels[w.bloodlust].effects:
            w.lust_fired = w.lust_fired | {w.bloodlust}
            run(w, levels[w.bloodlust].effects, Ctx(source="bloodlust"))


def lower_bloodlust(w: Work, k: int) -> None:
    new = max(0, w.bloodlust - max(0, k))
    if new != w.bloodlust:
        emit(w, "bloodlust", f"bloodlust falls to {new + 1}", "C17.2")
    w.bloodlust = new


def set_victims(w: Work, loc: int, count: int) -> None:
    v = list(w.victims)
    v[loc] = count
    w.victims = tuple(v)


def kill_victim(w: Work, loc: int, cause: str, by: int = -1) -> None:
    """A victim dies: it is counted and raises bloodlust (C9.7); ``by``: the killer body that killed it."""
    if w.victims[loc] <= 0:
        return
    if replaced(w, "victim-dies", 1, "a victim dying"):
        return
    set_victims(w, loc, w.victims[loc] - 1)
    w.dead += 1
    w.deaths_round += 1
    emit(w, "death", f"a victim dies at {loc_name(w, loc)} ({cause})", "C9.7")
    raise_bloodlust(w, 1)
    fire(w, "victim-dies")
    if by >= 0:
        fire(w, "killer-kills", body=by)


# --- the killer's health --------------------------------------------------------------------
def killer_last_breath_dice(w: Work) -> int:
    return 1 if any(k.alive and k.loc >= 0 and k.health == 0 for k in w.killers) else 0


def damage_killer(w: Work, idx: int, k: int, rule: str = "C3.8") -> None:
    if k <= 0 or w.result:
        return
    for r in statics(w, n.DamageTaken):
        k += r.n
    if k <= 0:
        emit(w, "damage", "the damage is reduced to nothing", "C17.4")
        return
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
            ks[idx] = _evolve_killer(kil, health=kil.health - k)
            w.killers = tuple(ks)
            emit(w, "damage", f"{kil.label} takes {k} damage (health {kil.health - k})", rule)
            return
        del ks[idx]
        w.killers = tuple(ks)
        emit(w, "damage", f"{kil.label} takes {k} damage and is destroyed", rule)
        return
    if k <= kil.health:
        kil = _evolve_killer(kil, health=kil.health - k)
        ks[idx] = kil
        w.killers = tuple(ks)
        emit(w, "damage", f"the killer takes {k} damage (health {kil.health})", rule)
        if kil.health == 0:
            emit(w, "breath", "the killer is down to its last breath: +1 die", "C2.5")
        return
    emit(w, "damage", "the killer takes damage: its last-breath token is lost", rule)
    if kil.breath == 2 and kil.breath_value > 0:
        kil = _evolve_killer(kil, breath=1, health=kil.breath_value)
        ks[idx] = kil
        w.killers = tuple(ks)
        emit(w, "breath", f"its black token shows {kil.breath_value}: it turns white and the killer restores "
                          f"{kil.breath_value} health; the phase ends", "C17.1")
        raise PhaseEnd()
    kil = _evolve_killer(kil, breath=0, health=0, alive=False)
    ks[idx] = kil
    w.killers = tuple(ks)
    emit(w, "breath", "the killer's last breath is gone: the killer is defeated", "C17.1")
    if not any(x.alive for x in w.killers) and not w.game.no_board:
        end_game(w, "fg", "the killer was defeated")


def _evolve_killer(k: KillerState, **kw) -> KillerState:
    d = dict(k.__dict__)
    d.update(kw)
    return KillerState(**d)


def heal_killer(w: Work, k: int, idx: int = -1) -> None:
    """Heal the body ``idx`` (default: the killer, see ``the_killer``)."""
    if idx < 0:
        idx = the_killer(w)
    if idx < 0:
        return
    ks = list(w.killers)
    kil = ks[idx]
    new = kil.health + k
    if not statics(w, n.NoHealthCap):  # K5.1 lifts the cap
        new = min(w.game.killer.health, new)  # C17.1: as the FG (C3.5), up to its starting health
    ks[idx] = _evolve_killer(kil, health=new)
    w.killers = tuple(ks)
    emit(w, "health", f"{body_name(w, idx)} heals to {new}", "")


def body_name(w: Work, i: int) -> str:
    return w.killers[i].label or "the killer"


def the_killer(w: Work, near: int = -1) -> int:
    """The body an effect on "the killer" means: the only living one; with several on the board
    (K6.7) the one nearest to ``near`` (default: the Final Girl), ties to the first; -1 if none."""
    ks = w.killers
    if len(ks) == 1:
        return 0 if ks[0].alive else -1
    dist = enemy_tables(w)[1][near if near >= 0 else w.fg_loc]
    best, best_d = -1, INF + 1
    for i, kil in enumerate(ks):
        if kil.alive and kil.loc >= 0 and dist[kil.loc] < best_d:
            best, best_d = i, dist[kil.loc]
    if best < 0:  # none on the board: the first living one (it may be off the board)
        best = next((i for i, kil in enumerate(ks) if kil.alive), -1)
    return best


def ctx_body(w: Work, ctx: Ctx) -> int:
    """The body a trigger is about, if it is still in play; else -1."""
    i = ctx.killer
    return i if 0 <= i < len(w.killers) and w.killers[i].alive else -1


# --- effects --------------------------------------------------------------------------------
def amount(w: Work, a, ctx: Ctx) -> int:
    if isinstance(a, int):
        return a
    if isinstance(a, n.That):
        return ctx.that
    if isinstance(a, n.LevelStat):
        for name, v in w.game.levels[w.bloodlust].stats:
            if name == a.stat:
                return v
        return 0
    if isinstance(a, n.Count):
        loc = resolve_loc(w, a.loc)
        if a.what == "victims":
            v = w.victims[loc] if loc >= 0 else 0
        elif a.what == "minions":
            v = sum(1 for m in w.minions if m.loc == loc)
        elif a.what == "dead":
            v = w.dead
        else:
            v = w.rescued
        return max(0, v - a.minus)
    raise AssertionError(a)


def resolve_loc(w: Work, name) -> int:
    if name.__class__ is not str:
        return pick_place(w, name)
    if name == "here":
        return w.fg_loc
    if name == "killer-location":
        i = the_killer(w)
        return w.killers[i].loc if i >= 0 else -1
    if name == "killer-start":
        return w.game.setup_killer.get(w.setup_card, -1)
    if name == "it":
        return w.ctl.it
    return w.game.board.index.get(name, -1)


def place_set(w: Work, among: str) -> list[int]:
    """The locations of a set, in board order: exit, search, any, or those with a tag."""
    b = w.game.board
    if among == "exit":
        return sorted(b.exits)
    if among == "search":
        return list(b.search_locs)
    if among == "any":
        return list(range(b.n))
    return [i for i in range(b.n) if among in b.tags[i]]


def pick_place(w: Work, p: n.Place) -> int:
    """Resolve a place selector (K6.1 the player's pick, K6.3 fewest minions, ties by distance to the FG)."""
    cands = place_set(w, p.among)
    if not cands:
        return -1
    if p.how == "chosen":
        if len(cands) == 1:
            return cands[0]
        b = w.game.board
        key = ask(w, "place", "Choose a location", [Option(f"place:{b.ids[c]}", b.names[c]) for c in cands])
        return b.index[key[6:]]
    counts = {c: 0 for c in cands}
    for m in w.minions:
        if m.kind == p.minion and m.loc in counts:
            counts[m.loc] += 1
    low = min(counts.values())
    cands = [c for c in cands if counts[c] == low]
    if len(cands) > 1 and p.tie:
        fgd = fg_tables(w)[1][w.fg_loc]
        if p.tie == "farthest":
            top = max(fgd[c] for c in cands)
        else:
            top = min(fgd[c] for c in cands)
        cands = [c for c in cands if fgd[c] == top]
    return cands[0]


COVERAGE: Optional[set] = None
"""A coverage recorder (``lastbreath coverage``, interpreter/coverage.py): while it is a set,
``run`` adds the span of every effect it resolves and ``play_card`` the span of the outcome it
picks. Off (None, the default) it costs one global lookup per ``run``."""


def run(w: Work, effects, ctx: Ctx) -> None:
    """Resolve effects top to bottom; events they cause name the effect's file:line:col as source."""
    ctl = w.ctl
    outer = ctl.node
    ctl.depth += 1
    if ctl.depth > MAX_EFFECT_DEPTH:  # content whose effects set each other off without end
        sp = getattr(effects[0], "span", None) if effects else None
        where = f"{sp.path}:{sp.line}:{sp.col}" if sp is not None else "content"
        raise RulesError(f"{where}: effects set each other off more than {MAX_EFFECT_DEPTH} deep "
                         "(a rule that triggers itself?)")
    if COVERAGE is None:
        for e in effects:
            ctl.node = e
            EXEC[type(e)](w, e, ctx)
    else:
        for e in effects:
            ctl.node = e
            COVERAGE.add(e.span)
            EXEC[type(e)](w, e, ctx)
    ctl.node = outer
    ctl.depth -= 1


def _compare(value: int, c) -> bool:
    """An "at least N" / "at most N" condition on a value."""
    return value >= c.n if c.op == "at-least" else value <= c.n


def condition(w: Work, c, ctx: Ctx) -> bool:
    t = type(c)
    if t is n.Compare:
        v = {"fear": w.fear, "time": w.time, "health": w.fg_health, "bloodlust": w.bloodlust + 1}[c.quantity]
        return _compare(v, c)
    if t is n.FgAt:
        return w.fg_loc == resolve_loc(w, c.loc)
    if t is n.FgAtTag:
        return c.tag in w.game.board.tags[w.fg_loc]
    if t is n.VictimsAt:
        loc = resolve_loc(w, c.loc)
        return loc >= 0 and w.victims[loc] > 0
    if t is n.KillerAt:
        loc = resolve_loc(w, c.loc)
        return any(k.alive and k.loc == loc for k in w.killers)
    if t is n.FlagSet:
        return c.flag in w.flags
    if t is n.InMode:
        return mode_active(w, c.mode)
    if t is n.HasItem:
        return any(h.id == c.item for h in (*w.held, *w.pack))
    if t is n.TokenAt:
        loc = resolve_loc(w, c.loc)
        return any(tok == c.token and at == loc for tok, _k, at in w.tokens)
    if t is n.CollectedAtLeast:
        return sum(1 for tok, _k in w.collected if tok == c.token) >= c.n
    if t is n.SpentAtLeast:
        return len(ctx.spent) >= c.n
    if t is n.SpentCovers:
        return covers(w, ctx.spent, c.kinds, ctx.spent_token)
    if t is n.KillerHealth:
        i = the_killer(w)
        return i >= 0 and _compare(w.killers[i].health, c)
    if t is n.PiecesCount:
        if c.what == "exits":
            v = len(w.game.board.exits)
        else:
            v = sum(1 for k in w.killers if k.alive and k.loc >= 0)
            if c.what == "enemies":
                v += sum(1 for m in w.minions if m.loc >= 0)
        return _compare(v, c)
    if t is n.VictimsLeft:
        left = sum(w.victims)
        return _compare(left, c)
    if t is n.MinionsAt:
        loc = resolve_loc(w, c.loc)
        return any(m.loc == loc for m in w.minions)
    if t is n.Not:
        return not condition(w, c.cond, ctx)
    raise AssertionError(t)


def covers(w: Work, spent: tuple[str, ...], kinds: tuple[str, ...], token: str) -> bool:
    """Can the spent kinds be matched one-to-one to the listed kinds, the token's wild kind standing in for any?"""
    wild = w.game.tokens[token].wild if token in w.game.tokens else ""
    pool = list(spent)
    for k in kinds:
        if k in pool:
            pool.remove(k)
        elif wild and wild in pool:
            pool.remove(wild)
        else:
            return False
    return True


def mode_active(w: Work, mode: str) -> bool:
    """K4.1–K4.2: the mode in force this Killer phase, or every mode under 'rule all modes'."""
    return mode == w.mode_active or bool(statics(w, n.AllModes))


def _x_gain_time(w, e, ctx):  # gain N time
    gain_time(w, amount(w, e.n, ctx))


def _x_lose_time(w, e, ctx):  # lose N time
    lose_time(w, amount(w, e.n, ctx))


def _x_heal(w, e, ctx):  # heal N
    heal(w, amount(w, e.n, ctx))


def _x_lose_health(w, e, ctx):  # lose N health
    fg_damage(w, amount(w, e.n, ctx), "C3.4")


def _x_raise_fear(w, e, ctx):  # raise fear N
    raise_fear(w, amount(w, e.n, ctx))


def _x_lower_fear(w, e, ctx):  # lower fear N
    lower_fear(w, amount(w, e.n, ctx))


def _x_move(w, e, ctx):  # move up to N
    move_fg(w, amount(w, e.n, ctx))


def _x_deal_damage(w, e, ctx):  # deal N damage
    fg_attack(w, amount(w, e.n, ctx), ctx)


def _x_prevent(w, e, ctx):  # prevent N damage (in a reaction)
    if ctx.attack is not None:
        k = amount(w, e.n, ctx)
        ctx.attack.damage = max(0, ctx.attack.damage - k)
        emit(w, "react", f"prevents {k} damage (the attack now deals {ctx.attack.damage})", "C9.6")


def _x_search_take(w, e, ctx):  # search take N
    search(w, e.n, e.n, look_mode=False)


def _x_search_look(w, e, ctx):  # search look N keep K
    search(w, e.n, e.keep, look_mode=True)


def _x_end_action(w, e, ctx):  # end action phase
    if w.phase == "action":
        w.action_over = True
        emit(w, "phase", "the Action phase ends", "C4.1")


def _x_draw_event(w, e, ctx):  # draw event
    draw_event(w)


def _x_gain_item(w, e, ctx):  # gain item ID
    gain_item(w, e.item, "")


def _x_discard_item(w, e, ctx):  # discard item ID
    for attr in ("held", "pack"):
        items = getattr(w, attr)
        for i, h in enumerate(items):
            if h.id == e.item and not w.game.items[h.id].keep:
                setattr(w, attr, items[:i] + items[i + 1:])
                emit(w, "item", f"discards {w.game.items[h.id].name}", "C6.4")
                return


def _x_raise_bloodlust(w, e, ctx):  # raise bloodlust N
    raise_bloodlust(w, amount(w, e.n, ctx))


def _x_lower_bloodlust(w, e, ctx):  # lower bloodlust N
    lower_bloodlust(w, amount(w, e.n, ctx))


def _x_hunt(w, e, ctx):  # killer hunts / minions hunt / enemies hunt TARGET moves N attacks N
    hunt(w, e.who, e.target, e.moves, e.attacks)


def _x_kill(w, e, ctx):  # kill N victims at LOC
    loc = resolve_loc(w, e.loc)
    if loc >= 0:
        for _ in range(amount(w, e.n, ctx)):
            kill_victim(w, loc, "an effect")


def _x_place(w, e, ctx):  # place N victims at LOC
    loc = resolve_loc(w, e.loc)
    k = amount(w, e.n, ctx)
    if loc >= 0 and k > 0:
        set_victims(w, loc, w.victims[loc] + k)
        emit(w, "victims", f"{k} victim(s) appear at {loc_name(w, loc)}", "")


def _x_spawn(w, e, ctx):  # spawn N MINION at LOC
    fixed = e.loc.__class__ is str  # a place selector is resolved again for each minion (K6.3)
    loc = resolve_loc(w, e.loc) if fixed else -1
    m = w.game.minions[e.minion]
    for _ in range(amount(w, e.n, ctx)):
        if sum(1 for x in w.minions if x.kind == m.id) >= m.limit:
            emit(w, "minion", f"no {m.name} token is left: the spawn is ignored", "C15.1")
            break
        if not fixed:
            loc = resolve_loc(w, e.loc)
        if loc < 0:
            emit(w, "minion", f"no {m.name} token is left: the spawn is ignored", "C15.1")
            break
        w.minion_seq += 1
        w.minions = w.minions + (MinionState(m.id, loc, m.health, frozenset(), w.minion_seq),)
        emit(w, "minion", f"a {m.name} appears at {loc_name(w, loc)}", "C15.1")
        if w.game.absorbing:
            absorb(w)


def _x_move_killer(w, e, ctx):  # move killer to LOC
    loc = resolve_loc(w, e.loc)
    if loc < 0:
        return
    i = the_killer(w, near=loc)  # (open) K6.7: with several bodies, the one nearest the destination
    if i < 0:
        return
    update_piece(w, ("killer", i), loc=loc)
    emit(w, "move", f"{body_name(w, i)} moves to {loc_name(w, loc)}", "")
    if w.game.absorbing:
        absorb(w)


def _x_heal_killer(w, e, ctx):  # heal killer N
    heal_killer(w, amount(w, e.n, ctx), ctx_body(w, ctx))


def _x_damage_killer(w, e, ctx):  # damage killer N
    i = ctx_body(w, ctx)
    if i < 0:
        i = the_killer(w)
    if i >= 0:
        damage_killer(w, i, amount(w, e.n, ctx), "")


def absorb(w: Work) -> None:
    """K6.7 as a rule: a killer body sharing a location with absorbable minions takes them in, +1 health each."""
    kinds = {r.minion for r in statics(w, n.KillersAbsorb)}
    if not kinds:
        return
    for i, kil in enumerate(w.killers):
        if not (kil.alive and kil.loc >= 0):
            continue
        here = [m for m in w.minions if m.loc == kil.loc and m.kind in kinds]
        if here:
            w.minions = tuple(m for m in w.minions if not (m.loc == kil.loc and m.kind in kinds))
            update_piece(w, ("killer", i), health=kil.health + len(here))
            emit(w, "absorb", f"{body_name(w, i)} takes in {len(here)} {w.game.minions[here[0].kind].name}(s) at "
                              f"{loc_name(w, kil.loc)} (health {kil.health + len(here)})", "")


def _x_form_killers(w, e, ctx):  # turn groups of N MINION into killers
    g = w.game
    for loc in range(g.board.n):
        group = [m for m in w.minions if m.kind == e.minion and m.loc == loc]
        if len(group) < e.n:
            continue
        w.minions = tuple(m for m in w.minions if not (m.kind == e.minion and m.loc == loc))
        used = {k.label for k in w.killers}
        num = next(j for j in range(1, len(w.killers) + 2) if f"{g.body_name} {j}" not in used)
        label = f"{g.body_name} {num}"
        w.killers = w.killers + (KillerState(g.killer.id, loc, len(group), 0, 0, True, frozenset(), label),)
        emit(w, "form", f"{len(group)} {g.minions[e.minion].name}s at {loc_name(w, loc)} become {label} "
                        f"(health {len(group)})", "")
        fire(w, "killer-forms", body=len(w.killers) - 1)
        if w.result:
            return


def _x_kill_minions(w, e, ctx):  # kill N MINION at LOC
    loc = resolve_loc(w, e.loc)
    k = amount(w, e.n, ctx)
    if loc < 0 or k <= 0:
        return
    g = w.game
    name = g.minions[e.minion].name
    if any(r.minion == e.minion for r in statics(w, n.KillsMayHitKillers)):
        bodies = [i for i, kil in enumerate(w.killers) if kil.alive and kil.loc == loc]
        if bodies:
            key = ask(w, "kill-or-damage", f"Kill {k} {name}(s), or deal {k} damage to a killer there?",
                      [Option("kill", f"kill {k} {name}(s)")] +
                      [Option(f"killer:{i}", f"deal {k} damage to {body_name(w, i)}") for i in bodies])
            if key != "kill":
                damage_killer(w, int(key[7:]), k, "")
                return
    for _ in range(k):
        idx = next((i for i, m in enumerate(w.minions) if m.kind == e.minion and m.loc == loc), -1)
        if idx < 0:
            break
        w.minions = w.minions[:idx] + w.minions[idx + 1:]
        emit(w, "minion", f"a {name} is killed", "C15.2")


def _x_reveal_dark(w, e, ctx):  # reveal dark power
    reveal_dark_power(w)


def _x_reveal_finale(w, e, ctx):  # reveal finale
    reveal_finale(w)


def _x_set_mode(w, e, ctx):  # set mode NAME
    if w.mode != e.mode:
        w.mode = e.mode
        emit(w, "mode", f"the killer turns to {e.mode} (from the next Killer phase)", "K4.1")


def _x_set_flag(w, e, ctx):  # set flag NAME
    w.flags = w.flags | {e.flag}


def _x_clear_flag(w, e, ctx):  # clear flag NAME
    w.flags = w.flags - {e.flag}


def _x_open_path(w, e, ctx):  # open path A B
    b: Board = w.game.board
    a, z = b.index[e.a], b.index[e.b]
    for k, p in enumerate(b.paths):
        if {p[0], p[1]} == {a, z} and p[5] and k not in w.opened:
            w.opened = w.opened | {k}
            emit(w, "board", f"a path opens between {loc_name(w, a)} and {loc_name(w, z)}", "")


def _x_panic_at(w, e, ctx):  # panic at LOC
    loc = resolve_loc(w, e.loc)
    if loc >= 0:
        panic_location(w, loc)


def _x_collect_token(w, e, ctx):  # collect token TOKEN at LOC
    loc = resolve_loc(w, e.loc)
    here = [(i, k) for i, (tok, k, at) in enumerate(w.tokens) if tok == e.token and at == loc]
    if not here:
        return
    if len(here) > 1:
        key = ask(w, "collect", "Collect which token?", [opt(w, f"token:{k}", k) for k in dict.fromkeys(k for _i, k in here)])
        here = [(i, k) for i, k in here if k == key[6:]]
    i, kind = here[0]
    w.tokens = w.tokens[:i] + w.tokens[i + 1:]
    w.collected = tuple(sorted(w.collected + ((e.token, kind),)))
    emit(w, "token", f"collects a {kind} {w.game.tokens[e.token].name.lower()}", "")


def place_token(w: Work, token: str, loc: int) -> None:
    """Put a random token of this type from the supply at a location (the supply is shuffled)."""
    for i, (tok, kind) in enumerate(w.supply):
        if tok == token:
            w.supply = w.supply[:i] + w.supply[i + 1:]
            w.tokens = w.tokens + ((token, kind, loc),)
            emit(w, "token", f"a {w.game.tokens[token].name.lower()} token is placed at {loc_name(w, loc)}", "")
            return
    emit(w, "token", f"no {w.game.tokens[token].name.lower()} token is left in the supply", "")


def _x_place_token(w, e, ctx):  # place token TOKEN at LOC
    loc = resolve_loc(w, e.loc)
    if loc >= 0:
        place_token(w, e.token, loc)


def _x_draw_card(w, e, ctx):  # draw card DECK
    decks = dict(w.decks)
    cards = decks.get(e.deck, ())
    deck = w.game.decks[e.deck]
    if not cards:
        emit(w, "deck", f"the {deck.name} deck is empty", "")
        return
    cid = cards[0]
    decks[e.deck] = cards[1:]
    w.decks = tuple(decks.items())
    card = w.game.deck_cards[f"{e.deck}/{cid}"]
    emit(w, "deck", f"draws {card.name} from {deck.name}", "")
    if card.keep:
        w.kept = w.kept + (f"{e.deck}/{cid}",)
    run(w, card.effects, Ctx(source=cid))


def _pieces_with(w: Work, who: str, loc: int):
    if who == "killer":
        i = the_killer(w)
        return [("killer", i)] if i >= 0 and w.killers[i].loc >= 0 else []
    return ([("killer", i) for i, k in enumerate(w.killers) if k.alive and k.loc == loc]
            + [("minion", i) for i, m in enumerate(w.minions) if m.loc == loc])


def update_piece(w: Work, piece, **changes) -> None:
    """Replace one killer or minion with a copy that has some fields changed."""
    kind, i = piece
    if kind == "killer":
        ks = list(w.killers)
        ks[i] = _evolve_killer(ks[i], **changes)
        w.killers = tuple(ks)
    else:
        ms = list(w.minions)
        d = dict(ms[i].__dict__)
        d.update(changes)
        ms[i] = MinionState(**d)
        w.minions = tuple(ms)


def _set_status(w: Work, piece, status: frozenset) -> None:
    update_piece(w, piece, status=status)


def _piece_status(w: Work, piece) -> frozenset:
    kind, i = piece
    return w.killers[i].status if kind == "killer" else w.minions[i].status


def _x_add_status(w, e, ctx):  # add status S to killer | to enemies at LOC | to an enemy at LOC
    loc = resolve_loc(w, e.loc) if e.loc else -1
    pieces = _pieces_with(w, e.who, loc)
    if e.who == "one" and len(pieces) > 1:
        key = ask(w, "status-target", f"Which enemy is {e.status}?",
                  [opt(w, f"{k}:{i}", "the killer" if k == "killer" else
                       f"a {w.game.minions[w.minions[i].kind].name}") for k, i in pieces])
        kind, i = key.split(":")
        pieces = [(kind, int(i))]
    for piece in pieces[:1] if e.who == "one" else pieces:
        _set_status(w, piece, _piece_status(w, piece) | {e.status})
        emit(w, "status", f"{'the killer' if piece[0] == 'killer' else 'a minion'} is {e.status}", "")


def _x_clear_status(w, e, ctx):  # clear status S
    pieces = [("killer", i) for i in range(len(w.killers))] + [("minion", i) for i in range(len(w.minions))]
    for piece in pieces:
        st = _piece_status(w, piece)
        if e.status in st:
            _set_status(w, piece, st - {e.status})


def _x_turn_victims(w, e, ctx):  # turn N victims at LOC into MINION
    loc = resolve_loc(w, e.loc)
    m = w.game.minions[e.minion]
    for _ in range(amount(w, e.n, ctx)):
        if loc < 0 or w.victims[loc] <= 0:
            return
        if sum(1 for x in w.minions if x.kind == m.id) >= m.limit:
            emit(w, "minion", f"no {m.name} token is left: the change is ignored", "C15.1")
            return
        set_victims(w, loc, w.victims[loc] - 1)
        w.minion_seq += 1
        w.minions = w.minions + (MinionState(m.id, loc, m.health, frozenset(), w.minion_seq),)
        emit(w, "minion", f"a victim at {loc_name(w, loc)} turns into a {m.name} (not a death)", "C15.1")


def _x_turn_minions(w, e, ctx):  # turn N MINION at LOC into victims
    loc = resolve_loc(w, e.loc)
    for _ in range(amount(w, e.n, ctx)):
        idx = next((i for i, x in enumerate(w.minions) if x.kind == e.minion and x.loc == loc), -1)
        if idx < 0:
            return
        w.minions = w.minions[:idx] + w.minions[idx + 1:]
        set_victims(w, loc, w.victims[loc] + 1)
        emit(w, "minion", f"a {w.game.minions[e.minion].name} at {loc_name(w, loc)} becomes a victim again", "")


def _sub_multisets(kinds: tuple[str, ...], low: int, high: int) -> list[tuple[str, ...]]:
    from itertools import combinations
    out: dict[tuple[str, ...], None] = {}
    for size in range(low, min(high, len(kinds)) + 1):
        for combo in combinations(kinds, size):
            out[tuple(sorted(combo))] = None
    return list(out)


def _x_spend(w, e, ctx):  # spend collected TOKEN LOW to HIGH { … }
    have = tuple(sorted(k for tok, k in w.collected if tok == e.token))
    choices = _sub_multisets(have, e.low, e.high)
    if not choices:
        emit(w, "token", "not enough tokens collected", "")
        return
    key = ask(w, "spend", "Spend which tokens?",
              lambda: [opt(w, "spend:" + "+".join(c), ", ".join(c)) for c in choices])
    spent = tuple(key[6:].split("+"))
    col = list(w.collected)
    for k in spent:
        col.remove((e.token, k))
    w.collected = tuple(col)
    emit(w, "token", f"spends {', '.join(spent)}", "")
    # spent tokens are discarded; while the supply has none of this type, the discards go back to it (S5.3)
    w.token_discard = w.token_discard + tuple((e.token, k) for k in spent)
    if not any(tok == e.token for tok, _k in w.supply):
        back = [t for t in w.token_discard if t[0] == e.token]
        w.token_discard = tuple(t for t in w.token_discard if t[0] != e.token)
        w.supply = w.supply + shuffled(w, back)
        emit(w, "token", f"the supply had none left: {len(back)} discarded token(s) return to it", "S5.3")
    run(w, e.body, Ctx(ctx.source, ctx.attack, ctx.that, ctx.killer, spent, e.token))


def _x_each(w, e, ctx):  # each KIND { … } inside a spend block
    for k in ctx.spent:
        if k == e.kind:
            run(w, e.body, ctx)


def _x_for_each(w, e, ctx):  # for each SET [except LOC] { … }
    skip = resolve_loc(w, e.skip) if e.skip else -1
    ctl = w.ctl
    saved = ctl.it
    for loc in place_set(w, e.among):
        if loc != skip:
            ctl.it = loc
            run(w, e.body, ctx)
    ctl.it = saved


def _x_if(w, e, ctx):  # if COND { … } else { … }
    run(w, e.then if condition(w, e.cond, ctx) else e.otherwise, ctx)


def _x_mode(w, e, ctx):  # mode NAME { … }
    if mode_active(w, e.mode):
        run(w, e.body, ctx)


def _x_repeat(w, e, ctx):  # repeat N { … }
    for _ in range(min(50, amount(w, e.n, ctx))):
        run(w, e.body, ctx)


def _x_choose(w, e, ctx):  # choose { "A" { … } "B" { … } }
    opts = [Option(f"option:{i}", o.label) for i, o in enumerate(e.options)]
    key = ask(w, "effect-choice", "Choose one", opts)
    run(w, e.options[int(key.split(":")[1])].body, ctx)


def _x_roll(w, e, ctx):  # roll { on 1 2 { … } … }
    face = roll_die(w)
    emit(w, "roll", f"rolls {face}", "")
    for row in e.rows:
        if face in row.faces:
            run(w, row.body, ctx)
            return


EXEC = {
    n.GainTime: _x_gain_time, n.LoseTime: _x_lose_time, n.Heal: _x_heal, n.LoseHealth: _x_lose_health,
    n.RaiseFear: _x_raise_fear, n.LowerFear: _x_lower_fear, n.MoveUpTo: _x_move, n.DealDamage: _x_deal_damage,
    n.PreventDamage: _x_prevent, n.SearchTake: _x_search_take, n.SearchLook: _x_search_look,
    n.EndActionPhase: _x_end_action, n.DrawEvent: _x_draw_event, n.GainItem: _x_gain_item,
    n.DiscardItem: _x_discard_item, n.RaiseBloodlust: _x_raise_bloodlust, n.LowerBloodlust: _x_lower_bloodlust,
    n.Hunt: _x_hunt, n.KillVictims: _x_kill, n.PlaceVictims: _x_place, n.SpawnMinions: _x_spawn,
    n.MoveKillerTo: _x_move_killer, n.HealKiller: _x_heal_killer, n.DamageKiller: _x_damage_killer,
    n.RevealDarkPower: _x_reveal_dark, n.RevealFinale: _x_reveal_finale, n.SetMode: _x_set_mode,
    n.SetFlag: _x_set_flag, n.ClearFlag: _x_clear_flag, n.OpenPath: _x_open_path, n.PanicAt: _x_panic_at,
    n.If: _x_if, n.ModeBlock: _x_mode, n.Repeat: _x_repeat, n.Choose: _x_choose, n.Roll: _x_roll,
    n.CollectToken: _x_collect_token, n.PlaceToken: _x_place_token, n.DrawCard: _x_draw_card,
    n.AddStatus: _x_add_status, n.ClearStatus: _x_clear_status, n.TurnVictims: _x_turn_victims,
    n.TurnMinions: _x_turn_minions, n.SpendTokens: _x_spend, n.Each: _x_each,
    n.KillMinions: _x_kill_minions, n.FormKillers: _x_form_killers, n.ForEach: _x_for_each,
}


# --- cards revealed -------------------------------------------------------------------------
def reveal_dark_power(w: Work) -> None:
    if w.dark_revealed or not w.dark_power:
        return
    w.dark_revealed = True
    dp = w.game.dark_powers[w.dark_power]
    emit(w, "reveal", f"the dark power is revealed: {dp.name}", "C17.3")
    run(w, dp.on_reveal, Ctx(source=dp.id))


def reveal_finale(w: Work) -> None:
    if w.finale_revealed:
        return
    w.finale_revealed = True
    f = w.game.finales[w.finale]
    emit(w, "reveal", f"the finale is revealed: {f.name}", "C11.1")
    run(w, f.on_reveal, Ctx(source=f.id))


def draw_event(w: Work) -> None:
    if not w.events:
        emit(w, "event", "the event deck is empty", "C18.5")
        return
    eid = w.events[0]
    w.events = w.events[1:]
    ev = w.game.events[eid]
    emit(w, "event", f"event: {ev.name}", "C18.5")
    if ev.lasting:
        w.events_active = w.events_active + (eid,)
    run(w, ev.effects, Ctx(source=eid))


# --- items and search -----------------------------------------------------------------------
def hands_used(w: Work) -> int:
    return sum(w.game.items[h.id].weapon.hands for h in w.held if w.game.items[h.id].weapon)


def gain_item(w: Work, iid: str, how: str) -> None:
    """C6.5: a weapon may go to the hands (room permitting, or swapping one out) or the backpack."""
    item = w.game.items[iid]
    new = HeldItem(iid, item.uses)
    emit(w, "item", f"gains {item.name}" + (f" ({how})" if how else ""), "C6")
    if item.weapon is None:
        w.pack = w.pack + (new,)
    else:
        opts = [Option("pack", "put it in the backpack")]
        if hands_used(w) + item.weapon.hands <= 2:
            opts.insert(0, Option("hand", "hold it in hand"))
        for h in w.held:
            if hands_used(w) - w.game.items[h.id].weapon.hands + item.weapon.hands <= 2:
                opts.append(Option(f"swap:{h.id}", f"hold it, put {w.game.items[h.id].name} in the backpack"))
        key = ask(w, "item-place", f"Where does {item.name} go?", opts)
        if key == "hand":
            w.held = w.held + (new,)
        elif key == "pack":
            w.pack = w.pack + (new,)
        else:
            out = key.split(":", 1)[1]
            i = next(i for i, h in enumerate(w.held) if h.id == out)
            w.pack = w.pack + (w.held[i],)
            w.held = w.held[:i] + w.held[i + 1:] + (new,)
    fire_item(w, item, "gained")


def fire_item(w: Work, item: n.Item, event: str) -> None:
    for t in item.abilities.triggers:
        if t.event == event:
            run(w, t.body, Ctx(source=item.id))


def search(w: Work, look: int, keep: int, look_mode: bool) -> None:
    """C6.1–C6.3: act on the pile of the search location the Final Girl stands in."""
    b: Board = w.game.board
    if w.fg_loc not in b.pile_of:
        emit(w, "search", "this is not a search location: nothing is found", "C6.1")
        return
    k = b.pile_of[w.fg_loc]
    pile = w.piles[k]
    if not pile:
        emit(w, "search", "the pile is empty: nothing more is found", "C6.3")
        return
    top = pile[:look]
    rest = pile[look:]
    if not look_mode:
        taken = [c for c, _ in top]
        _set_pile(w, k, _turn_top(rest))
        for c in taken:
            gain_item(w, c, "search")
        return
    opts = [Option(f"keep:{c}", w.game.items[c].name) for c, _ in dict.fromkeys(top)]
    kept: list[str] = []
    others = [c for c, _ in top]
    for _ in range(min(keep, len(others))):
        key = ask(w, "search-keep", "Keep which item?", [o for o in opts if o.key[5:] in others])
        c = key[5:]
        kept.append(c)
        others.remove(c)
    new_top: list[tuple[str, bool]] = []
    bottom: list[tuple[str, bool]] = []
    for c in others:
        key = ask(w, "search-return", f"Return {w.game.items[c].name} where?",
                  [Option("top", "on top, face up"), Option("bottom", "on the bottom, face down")])
        if key == "top":
            new_top.append((c, True))
        else:
            bottom.append((c, False))
    if new_top:
        rest_t = tuple(new_top) + tuple(rest)
    else:
        rest_t = tuple(rest)  # C6.2: a face-down top card stays face down
    _set_pile(w, k, rest_t + tuple(bottom))
    if bottom and not new_top:
        emit(w, "search", "returned to the bottom face down; the new top card is not turned up", "C6.2")
    for c in kept:
        gain_item(w, c, "search")


def _turn_top(pile):
    if pile and not pile[0][1]:
        return ((pile[0][0], True),) + tuple(pile[1:])
    return tuple(pile)


def _set_pile(w: Work, k: int, pile) -> None:
    piles = list(w.piles)
    piles[k] = tuple(pile)
    w.piles = tuple(piles)


def use_uses(w: Work, iid: str) -> None:
    """C6.4: spend one use; the last use discards the item."""
    for attr in ("held", "pack"):
        items = getattr(w, attr)
        for i, h in enumerate(items):
            if h.id == iid:
                if h.uses <= 0:
                    return
                if h.uses == 1:
                    setattr(w, attr, items[:i] + items[i + 1:])
                    emit(w, "item", f"{w.game.items[iid].name} is used up and discarded", "C6.4")
                else:
                    setattr(w, attr, items[:i] + (HeldItem(iid, h.uses - 1),) + items[i + 1:])
                return


# --- the Final Girl moves -------------------------------------------------------------------
def fg_moves(w: Work) -> list[tuple[int, int, str]]:
    """(destination, follower limit, how) for one move from the FG's location (C5.1, S-links)."""
    adj = fg_tables(w)[0]
    b: Board = w.game.board
    limits = statics(w, n.FollowerLimit)
    out: dict[int, tuple[int, str]] = {}
    for dest, k in adj[w.fg_loc]:
        lim = 2
        for r in limits:
            if r.tag in b.paths[k][4]:
                lim = min(lim, r.n)
        out[dest] = (lim, "path")
    for link in w.game.scenario.links:
        members = b.with_tag(link.tag)
        if w.fg_loc in members and (link.cond is None or condition(w, link.cond, Ctx())):
            for dest in members:
                if dest != w.fg_loc and dest not in out:
                    out[dest] = (2 if link.followers < 0 else link.followers, "link")
    return [(d, lim, how) for d, (lim, how) in sorted(out.items())]


def killer_at(w: Work, loc: int) -> bool:
    return any(k.alive and k.loc == loc for k in w.killers)


def move_fg(w: Work, steps: int) -> None:
    for _ in range(steps):
        moves = fg_moves(w)
        opts = [opt(w, "stop", "stop moving")] + [
            opt(w, f"move:{w.game.board.ids[d]}", f"move to {loc_name(w, d)}" + (" (link)" if how == "link" else ""))
            for d, _lim, how in moves]
        key = ask(w, "move", "Move where?", opts)
        if key == "stop":
            return
        dest = w.game.board.index[key[5:]]
        lim = next(lim for d, lim, _ in moves if d == dest)
        here = w.fg_loc
        follow = 0
        if w.victims[here] > 0 and lim > 0 and not killer_at(w, dest):  # C5.3
            top = min(lim, w.victims[here])
            fopts = [opt(w, f"follow:{i}", f"{i} victim(s) follow") for i in range(top, -1, -1)]
            follow = int(ask(w, "follow", "How many victims follow?", fopts).split(":")[1])
        fire(w, "fg-leaves")  # 'here' is still the location she leaves
        w.fg_loc = dest
        emit(w, "move", f"the Final Girl moves to {loc_name(w, dest)}" + (f" with {follow} victim(s)" if follow else ""),
             "C5.1")
        if follow:
            set_victims(w, here, w.victims[here] - follow)
            set_victims(w, dest, w.victims[dest] + follow)
            emit(w, "follow", f"{follow} victim(s) follow (at most {lim})", "C5.3")
        fire(w, "fg-enters", w.game.board.ids[dest])
        if dest in w.game.board.exits and w.victims[dest] > 0:
            key = ask(w, "rescue", f"Let the {w.victims[dest]} victim(s) here escape?",
                      [Option("rescue", "they escape"), Option("stay", "not now")])
            if key == "rescue":
                rescue_here(w)


def rescue_here(w: Work) -> None:
    """C5.4–C5.6: every victim at the FG's exit escapes; each fills a slot and gives its reward."""
    count = w.victims[w.fg_loc]
    fg = w.game.fg
    for _ in range(count):
        set_victims(w, w.fg_loc, w.victims[w.fg_loc] - 1)  # one at a time: a paused state shows the rest
        w.rescued += 1
        emit(w, "rescue", f"a victim escapes (rescued: {w.rescued})", "C5.4")
        if w.flipped:
            run(w, fg.flipped_reward, Ctx(source=fg.id))
            continue
        free = [i for i, f in enumerate(w.slots) if not f]
        key = ask(w, "slot", "Place the rescued victim on which slot?",
                  [Option(f"slot:{i + 1}", f"slot {i + 1}") for i in free])
        i = int(key.split(":")[1]) - 1
        w.slots = w.slots[:i] + (True,) + w.slots[i + 1:]
        emit(w, "reward", f"slot {i + 1} reward", "C5.5")
        run(w, fg.slots[i], Ctx(source=fg.id))
        if sum(w.slots) >= fg.rescues and not w.flipped:
            w.flipped = True
            w.slots = (False,) * len(w.slots)
            emit(w, "flip", "the Final Girl card is flipped: her ability is unlocked", "C5.6")


# --- the Final Girl attacks -----------------------------------------------------------------
def fg_attack(w: Work, dmg: int, ctx: Ctx) -> None:
    """C3.8, C15.2: choose a target in reach; one weapon may add its bonus."""
    dist = fg_tables(w)[1][w.fg_loc]
    weapons = [(h, w.game.items[h.id].weapon) for h in w.held if w.game.items[h.id].weapon]
    opts: list[Option] = []
    targets: dict[str, tuple] = {}

    def add(tkey: str, label: str, d: int, what: tuple) -> None:
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
        total += w.game.items[weapon].weapon.bonus
        use_uses(w, weapon)
    if kind == "killer":
        damage_killer(w, ref, total, "C3.8")
    else:
        damage_minions(w, ref, total)


def damage_minions(w: Work, loc: int, dmg: int) -> None:
    """C15.2: damage split among the minions in one location, weakest first; no bloodlust (C15)."""
    ms = list(w.minions)
    order = sorted((m.health, i) for i, m in enumerate(ms) if m.loc == loc)
    dead: set[int] = set()
    for _h, i in order:
        if dmg <= 0:
            break
        m = ms[i]
        hit = min(dmg, m.health)
        dmg -= hit
        if hit >= m.health:
            dead.add(i)
            emit(w, "minion", f"a {w.game.minions[m.kind].name} is killed", "C15.2")
        else:
            ms[i] = MinionState(m.kind, m.loc, m.health - hit, m.status, m.uid)
    w.minions = tuple(m for i, m in enumerate(ms) if i not in dead)


# --- fear checks ----------------------------------------------------------------------------
def dice_for(w: Work, card: n.Card) -> int:
    """C2.1, C2.4, C2.5: dice by fear zone, card and statics, adrenaline; at least one."""
    k = w.game.dice_by_fear.get(w.fear, 1) + card.dice
    k += sum(r.n for r in statics(w, n.DiceModifier))
    if w.fg_health == 0 and w.fg_breath > 0:
        k += 1
    k += killer_last_breath_dice(w)
    return max(1, k)


def fear_check(w: Work, card: n.Card) -> int:
    """Roll, then convert 3–4s by discarding two cards each or play reroll cards (C2.2, C2.6)."""
    faces = [roll_die(w) for _ in range(dice_for(w, card))]
    emit(w, "roll", f"fear check for {card.name}: rolls {faces}", "C2.1")
    converted = 0
    while True:
        def menu() -> list[Option]:
            open34 = sum(1 for f in faces if f in (3, 4)) - converted
            opts = [_ACCEPT]
            if open34 > 0 and len(w.hand) >= 2:
                opts.append(_CONVERT)
            for cid in dict.fromkeys(w.hand):
                if cid not in w.game.reroll_cards:
                    continue
                c = w.game.cards[cid]
                if _reroll(list(faces), c, converted) != faces:
                    opts.append(opt(w, f"reroll:{cid}", f"play {c.name} to reroll"))
            return opts

        key = ask(w, "check", lambda: f"Rolled {faces}: {sum(1 for f in faces if f >= 5) + converted} success(es)",
                  menu)
        if key == "accept":
            break
        if key == "convert":
            for i in range(2):
                dk = ask(w, "convert-discard", f"Discard which card ({i + 1} of 2)?",
                         [opt(w, f"discard:{c}", w.game.cards[c].name) for c in dict.fromkeys(w.hand)])
                discard_card(w, dk[8:], "C2.2")
            converted += 1
            emit(w, "convert", "a 3–4 becomes a success", "C2.2")
            continue
        cid = key[7:]
        rc = w.game.cards[cid]
        _remove_from_hand(w, cid)
        w.spent = w.spent + (cid,)
        faces_before = faces
        faces = _reroll_live(w, faces, rc, converted)
        emit(w, "reroll", f"plays {rc.name}: {faces_before} -> {faces}", "C2.6")
    succ = sum(1 for f in faces if f >= 5) + converted
    return succ


def _reroll_targets(faces: list[int], card: n.Card, converted: int) -> list[int]:
    if card.reroll == "fails":
        return [i for i, f in enumerate(faces) if f <= 2]
    k = int(card.reroll)
    # lowest non-successes first, but never the 3–4s already turned into successes
    protected = converted
    cands = sorted((f, i) for i, f in enumerate(faces) if f < 5)
    out = []
    for f, i in cands:
        if f in (3, 4) and protected > 0 and sum(1 for g in faces if g in (3, 4)) - len([j for j in out if faces[j] in (3, 4)]) <= protected:
            continue
        out.append(i)
    return out[:k]


def _reroll(faces: list[int], card: n.Card, converted: int) -> list[int]:
    idx = _reroll_targets(faces, card, converted)
    return faces if not idx else [0 if i in idx else f for i, f in enumerate(faces)]


def _reroll_live(w: Work, faces: list[int], card: n.Card, converted: int) -> list[int]:
    idx = set(_reroll_targets(faces, card, converted))
    return [roll_die(w) if i in idx else f for i, f in enumerate(faces)]


def outcome_for(card: n.Card, successes: int) -> Optional[n.Outcome]:
    best = None
    for o in card.outcomes:
        if o.min_successes <= successes:
            best = o
    return best


def _remove_from_hand(w: Work, cid: str) -> None:
    h = list(w.hand)
    h.remove(cid)
    w.hand = tuple(h)


def discard_card(w: Work, cid: str, rule: str) -> None:
    _remove_from_hand(w, cid)
    w.spent = w.spent + (cid,)
    emit(w, "discard", f"discards {w.game.cards[cid].name}", rule)


_TIERS = {0: "failure", 1: "success", 2: "great success"}


def play_card(w: Work, cid: str, ctx: Ctx) -> None:
    card = w.game.cards[cid]
    _remove_from_hand(w, cid)
    w.spent = w.spent + (cid,)
    emit(w, "play", f"plays {card.name}", "C2.1")
    succ = fear_check(w, card)
    out = outcome_for(card, succ)
    tier = _TIERS.get(out.min_successes if out else 0) or f"{succ}+ successes"
    emit(w, "outcome", f"{succ} success(es): {tier}", "C2.3")
    if out is not None:
        if COVERAGE is not None:
            COVERAGE.add(out.span)
        run(w, out.effects, ctx)


# --- enemies --------------------------------------------------------------------------------
def hunt(w: Work, who: str, target: str, moves: int, attacks: int) -> None:
    """C8.3, C9: minions act first (in order), then the killer. Minions that attack together
    (K6.5) all move first; then each group attacks from its location."""
    if who in ("minions", "enemies"):
        g = w.game
        order = [m.uid for m in w.minions]
        stable = len(set(order)) == len(order) and 0 not in order
        groups: list[tuple[str, int]] = []  # (kind, uid of its first piece) of minions that attack together
        for k, uid in enumerate(order):
            # by uid, so that a minion killed meanwhile (a reaction hitting back) costs no other its turn
            i = next((j for j, m in enumerate(w.minions) if m.uid == uid), -1) if stable else k
            if 0 <= i < len(w.minions):
                stats = g.minions[w.minions[i].kind]
                if stats.together:
                    enemy_act(w, ("minion", i), target, moves, 0, stats.move, stats.damage)
                    groups.append((stats.id, uid))
                else:
                    enemy_act(w, ("minion", i), target, moves, attacks, stats.move, stats.damage)
            if w.result:
                return
        if groups and attacks > 0:
            group_attacks(w, target, attacks, groups)
    if who in ("killer", "enemies"):
        for i, k in enumerate(w.killers):
            if i < len(w.killers) and k is w.killers[i] and k.alive and k.loc >= 0:
                lvl = w.game.levels[w.bloodlust]
                enemy_act(w, ("killer", i), target, moves, attacks, lvl.move, lvl.damage)
            if w.result:
                return


def group_attacks(w: Work, target: str, attacks: int, groups: list[tuple[str, int]]) -> None:
    """K6.5: the minions of a kind in one location attack as one: each attack hits one target for
    their number × their damage; victims there before the Final Girl."""
    done: set[tuple[str, int]] = set()
    for kind, uid in groups:
        first = next((m for m in w.minions if m.uid == uid), None)
        if first is None or (kind, first.loc) in done:
            continue
        loc = first.loc
        done.add((kind, loc))
        stats = w.game.minions[kind]
        for _ in range(attacks):
            if w.result:
                return
            here = [i for i, m in enumerate(w.minions) if m.kind == kind and m.loc == loc]
            if not here:
                break
            name = f"{len(here)} {stats.name}(s)"
            fg_here = w.fg_loc == loc
            if w.victims[loc] > 0 and (stats.victims_first or target != "fg" or not fg_here):
                kill_victim(w, loc, f"killed by {name}")
            elif fg_here:
                dmg = len(here) * stats.damage
                emit(w, "attack", f"{name} attack the Final Girl together for {dmg}", "C9.5")
                attack_fg(w, dmg, ("minion", here[0]))
            else:
                break


def _piece_loc(w: Work, piece) -> int:
    kind, i = piece
    if kind == "killer":
        return w.killers[i].loc
    return w.minions[i].loc if i < len(w.minions) else -1


def _set_piece_loc(w: Work, piece, loc: int) -> None:
    update_piece(w, piece, loc=loc)


def choose_target(w: Work, at: int, target: str) -> int:
    """C9.2–C9.3: the nearest location holding a target; ties by victims, then the tie policy."""
    dist = enemy_tables(w)[1][at]
    victims = w.victims
    cands: list[int] = []
    if target in ("fg", "fg-or-victims"):
        cands.append(w.fg_loc)
    if target in ("victims", "fg-or-victims"):
        cands.extend([i for i, v in enumerate(victims) if v > 0 and i not in cands])
    if not cands and target == "victims":
        # (open) C9.1 is silent on a target type with nothing on the board; default, as published:
        # with no victims left, an action aimed at victims aims at the Final Girl
        emit(w, "target", "no victims are left: the action aims at the Final Girl", "C9.1")
        cands.append(w.fg_loc)
    cands = [c for c in cands if dist[c] < INF]
    if not cands:
        return -1
    if len(cands) == 1:
        near = cands
    else:
        best_d = min([dist[c] for c in cands])
        near = [c for c in cands if dist[c] == best_d]
    # (location id, distance, victims) of every candidate, for "why did it go there?" (explain);
    # list comprehensions and the board's names read directly: this runs at every enemy move
    board = w.game.board
    ids, names, nloc = board.ids, board.names, board.n
    data = tuple([(ids[c], dist[c], victims[c]) for c in cands])
    listing = ", ".join([f"{names[c] if 0 <= c < nloc else 'off the board'} ({dist[c]} away, {victims[c]} victim(s))"
                         for c in cands])
    if len(near) == 1:
        emit(w, "target", f"target {loc_name(w, near[0])}: the nearest of {listing}", "C9.2", data=data)
    else:
        most = max(w.victims[c] for c in near)
        near = [c for c in near if w.victims[c] == most]
        if len(near) > 1:
            tied = ", ".join(loc_name(w, c) for c in near)
            near = [tie_break(w, near)]
            emit(w, "target", f"target {loc_name(w, near[0])}: {tied} tie in distance and victims; the "
                              f"{w.game.tie_policy} tie-break decides (candidates: {listing})", "C9.3", data=data)
        else:
            emit(w, "target", f"target {loc_name(w, near[0])}: tie in distance broken by victim count "
                              f"(candidates: {listing})", "C9.3", data=data)
    return near[0]


def tie_break(w: Work, cands: list[int]) -> int:
    """C9.3's last tie: harder (nearest the FG), realistic (at random), easier (farthest), or ask."""
    policy = w.game.tie_policy
    fgd = fg_tables(w)[1][w.fg_loc]
    if policy == "harder":
        return min(cands, key=lambda c: (fgd[c], c))
    if policy == "easier":
        return max(cands, key=lambda c: (fgd[c], -c))
    if policy == "realistic":
        return cands[rand(w, len(cands))]
    key = ask(w, "tie-break", "The killer's targets are tied: choose its target",
              [Option(f"target:{w.game.board.ids[c]}", loc_name(w, c)) for c in cands])
    return w.game.board.index[key[7:]]


def enemy_act(w: Work, piece, target: str, moves: int, attacks: int, movement: int, damage: int) -> None:
    at = _piece_loc(w, piece)
    if at < 0:
        return
    is_killer = piece[0] == "killer"
    stats = None if is_killer else w.game.minions[w.minions[piece[1]].kind]
    name = body_name(w, piece[1]) if is_killer else f"a {stats.name}"
    tloc = choose_target(w, at, target)
    stopped = any(r.status in _piece_status(w, piece) for r in statics(w, n.StatusStopsMoves))
    steps = moves * movement
    if stopped and tloc >= 0 and at != tloc:
        emit(w, "enemy-move", f"{name} does not move (its status stops it)", "")
    elif tloc >= 0 and moves > 0 and at != tloc:
        nxt = enemy_tables(w)[2]
        loc = at
        left = steps
        while left > 0 and loc != tloc:
            hop = nxt[loc][tloc]
            if hop < 0:
                break
            loc = hop
            left -= 1
        if loc != at:
            piece = _move_piece(w, piece, loc)
            if piece is None:
                return
            where = "its target" if loc == tloc else f"on the way to {loc_name(w, tloc)}"
            emit(w, "enemy-move", f"{name} moves to {loc_name(w, loc)}, {where}", "C9.4")
    if stats is not None and stats.wanders and not stopped and moves > 0 and (
            tloc < 0 or enemy_tables(w)[1][at][tloc] > steps):
        piece = wander(w, piece, name)  # K6.4: no target within its move range
        if piece is None:
            return
    loc = _piece_loc(w, piece)
    if attacks <= 0:
        return
    has_target = w.victims[loc] > 0 or w.fg_loc == loc
    if loc != tloc and not has_target:
        return
    victims_first = stats is not None and stats.victims_first
    for _ in range(attacks):
        if w.result:
            return
        fg_here = w.fg_loc == loc
        if w.victims[loc] > 0 and (target != "fg" or not fg_here or victims_first):
            kill_victim(w, loc, f"killed by {name}", piece[1] if is_killer else -1)
        elif fg_here:
            emit(w, "attack", f"{name} attacks the Final Girl for {damage}", "C9.5")
            attack_fg(w, damage, piece)
        else:
            return
        if not is_killer and not (piece[1] < len(w.minions)):
            return


def _move_piece(w: Work, piece, loc: int):
    """Move a piece; returns its (possibly new) index, or None if it left play (absorbed, K6.7)."""
    if not w.game.absorbing or piece[0] == "killer":
        _set_piece_loc(w, piece, loc)
        if w.game.absorbing:
            absorb(w)
        return piece
    uid = w.minions[piece[1]].uid
    _set_piece_loc(w, piece, loc)
    absorb(w)
    i = next((j for j, m in enumerate(w.minions) if m.uid == uid), -1)
    return ("minion", i) if i >= 0 else None


def wander(w: Work, piece, name: str):
    """K6.4: like a panicking victim (C10.2), roll a die and take the path with that number, if an
    enemy may use it."""
    at = _piece_loc(w, piece)
    face = roll_die(w)
    dest = fg_tables(w)[3][at].get(face, -1)
    if dest < 0 or enemy_tables(w)[1][at][dest] != 1:
        emit(w, "enemy-move", f"{name} wanders: rolls {face} and stays", "")
        return piece
    emit(w, "enemy-move", f"{name} wanders: rolls {face} and shambles to {loc_name(w, dest)}", "")
    return _move_piece(w, piece, dest)


def attack_fg(w: Work, damage: int, piece) -> None:
    """C9.6: before each attack lands the player may play reaction cards, each against this attack."""
    att = Attack(damage, f"killer:{piece[1]}" if piece[0] == "killer" else "minion",
                 piece[1] if piece[0] == "minion" else -1)
    while True:
        reacts = [c for c in dict.fromkeys(w.hand) if w.game.cards[c].kind == "reaction"]
        if not reacts or att.damage <= 0:
            break
        key = ask(w, "reaction", lambda: f"An attack for {att.damage} damage: react?",
                  lambda: [opt(w, "take", f"take {att.damage} damage")] + [
                      opt(w, f"react:{c}", f"play {w.game.cards[c].name}") for c in reacts])
        if key == "take":
            break
        play_card(w, key[6:], Ctx(source=key[6:], attack=att))
        if w.result:
            return
    fg_damage(w, att.damage, "C9.6")


def panic_location(w: Work, loc: int, count: int = -1) -> None:
    """C10.2: each panicking victim rolls a die and flees along the path with that number."""
    panic = fg_tables(w)[3][loc]
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


# --- phases ---------------------------------------------------------------------------------
def step(w: Work) -> None:
    STEPS[w.phase](w)


def next_phase(w: Work) -> None:
    i = PHASE_ORDER.index(w.phase)
    if i == len(PHASE_ORDER) - 1:
        w.round += 1
        w.phase = "action"
    else:
        w.phase = PHASE_ORDER[i + 1]
    w.sub = 0


def step_setup(w: Work) -> None:
    w.phase = "action"
    w.sub = 0
    fire(w, "game-starts")
    draw_event(w)  # C18.5 default: the first event is drawn at setup


def step_action(w: Work) -> None:
    if w.sub == 0:
        w.deaths_round = 0
        w.action_over = False
        w.sub = 1
        emit(w, "phase", f"round {w.round}: Action phase", "C1.1")
        if w.skip_action:
            w.skip_action = False
            emit(w, "phase", "the Action phase is skipped", "C11.4")
            next_phase(w)
            return
        fire(w, "start:action")
        return
    if w.action_over or w.time < 0 or not w.hand:  # C4.1
        if not w.action_over:
            emit(w, "phase", "the Action phase ends" + (" (time below 0)" if w.time < 0 else " (hand empty)"), "C4.1")
        fire(w, "end:action")
        next_phase(w)
        return
    g: Game = w.game

    def menu() -> list[Option]:
        opts: list[Option] = []
        distinct = dict.fromkeys(w.hand)
        cards = g.cards
        for cid in distinct:
            if cards[cid].kind == "action":
                opts.append(g.play_opts[cid])
        for h in (*w.held, *w.pack):
            it = g.items[h.id]
            if it.use is not None:
                opts.append(Option(f"use:{h.id}", f"use {it.name} ({it.use.time} time)"))
        # S1.2, S3.3, S5.2–S5.3: actions the content offers where their condition holds
        for a, o in zip(g.actions, g.action_opts):
            if a.cond is None or condition(w, a.cond, Ctx()):
                opts.append(o)
        if w.fg_loc in g.board.exits and w.victims[w.fg_loc] > 0:
            opts.append(Option("rescue", "let the victims here escape"))
        for cid in distinct:
            opts.append(g.discard_opts[cid])
        opts.append(_END_ACTION)
        return opts

    key = ask(w, "action", "Your action", menu)
    if key == "end":
        w.action_over = True
        emit(w, "phase", "the player ends the Action phase", "C4.1")
    elif key.startswith("play:"):
        play_card(w, key[5:], Ctx(source=key[5:]))
    elif key.startswith("discard:"):
        discard_card(w, key[8:], "C3.2")
        gain_time(w, 1)
    elif key.startswith("use:"):
        it = g.items[key[4:]]
        emit(w, "use", f"uses {it.name}", "C6.4")
        lose_time(w, it.use.time)
        run(w, it.use.effects, Ctx(source=it.id))
        use_uses(w, it.id)
    elif key.startswith("action:"):
        a = next(x for x in g.actions if x.id == key[7:])
        emit(w, "action", f"{a.name}", "")
        if a.time and not a.free:
            lose_time(w, a.time)
        run(w, a.effects, Ctx(source=a.id))
    elif key == "rescue":
        rescue_here(w)


def step_planning(w: Work) -> None:
    g: Game = w.game
    if w.sub == 0:
        w.sub = 1
        emit(w, "phase", "Planning phase", "C1.1")
        fire(w, "start:planning")
        return
    def menu() -> list[Option]:
        limit = g.player_board.hand_limit
        opts = [_STOP_BUYING]
        if len(w.hand) < limit:  # C7.3
            costs, buy, time = g.costs, g.buy_opts, w.time
            # the market is kept sorted; C7.3, C7.4: affordable, or free
            opts += [buy[cid] for cid in dict.fromkeys(w.market) if costs[cid] <= time or costs[cid] == 0]
        return opts

    key = ask(w, "buy", lambda: f"Buy cards (time {w.time}, hand {len(w.hand)})", menu)
    if key != "done":
        cid = key[4:]
        m = list(w.market)
        m.remove(cid)
        w.market = tuple(m)
        w.hand = tuple(sorted(w.hand + (cid,)))
        w.time -= g.cards[cid].cost
        emit(w, "buy", f"buys {g.cards[cid].name} (time {w.time})", "C7.1")
        return
    w.time = g.side.time_reset  # C7.5
    emit(w, "time", f"time resets to {w.time}", "C7.5")
    if w.spent:
        w.market = tuple(sorted(w.market + w.spent))  # C7.6
        emit(w, "market", f"{len(w.spent)} played or discarded card(s) return to the market", "C7.6")
        w.spent = ()
    fire(w, "end:planning")
    next_phase(w)


def step_killer(w: Work) -> None:
    """C8: the killer action (or the finale's), then a terror card; each part is its own step."""
    g: Game = w.game
    try:
        if w.sub == 0:
            emit(w, "phase", "Killer phase", "C1.1")
            w.mode_active = w.mode  # K4.1: a switch takes effect from the next Killer phase
            w.sub = 1
            fire(w, "start:killer")
        elif w.sub == 1:
            w.sub = 2
            f = g.finales[w.finale]
            if not w.finale_revealed:
                emit(w, "killer-action", "the killer action on the back of the finale card", "C8.1")
                run(w, f.back, Ctx(source=f.id))
            else:
                emit(w, "killer-action", f"the finale's action: {f.name}", "C8.2")
                run(w, f.face, Ctx(source=f.id))
        elif w.sub == 2:
            w.sub = 3
            if not w.finale_revealed and w.terror:  # C8.2: no terror card once the finale is revealed
                tid = w.terror[0]
                w.terror = w.terror[1:]
                t = g.terror[tid]
                emit(w, "terror", f"terror card: {t.name}", "C8.1")
                if t.secondary_health > 0:
                    w.secondary = tid
                    w.secondary_health = t.secondary_health
                    emit(w, "secondary", f"{t.name} takes the secondary dark power slot ({t.secondary_health} health)",
                         "C17.4")
                run(w, t.effects, Ctx(source=tid))
        else:
            fire(w, "end:killer")
            next_phase(w)
    except PhaseEnd:
        emit(w, "phase", "the Killer phase ends at once", "C14.2")
        next_phase(w)


def step_panic(w: Work) -> None:
    if w.deaths_round > 0:  # C10.1, C15.4
        emit(w, "phase", "Panic phase: a victim died this round", "C10.1")
        locs = sorted({k.loc for k in w.killers if k.alive and k.loc >= 0} | {m.loc for m in w.minions})
        panicking = [(loc, w.victims[loc]) for loc in locs if w.victims[loc] > 0]
        for loc, count in panicking:  # counted first: a victim who flees does not panic again
            panic_location(w, loc, count)
    fire(w, "start:panic")
    next_phase(w)


def step_upkeep(w: Work) -> None:
    if w.sub == 0:
        w.sub = 1
        emit(w, "phase", "Upkeep phase", "C1.1")
        if not w.terror and not w.finale_revealed:  # C11.1
            reveal_finale(w)
        fire(w, "start:upkeep")  # C11.2
        return
    g: Game = w.game
    opts = [_DONE_SWAPPING]
    for h in w.held:
        opts.append(Option(f"to-pack:{h.id}", f"put {g.items[h.id].name} in the backpack"))
    for h in w.pack:
        it = g.items[h.id]
        if it.weapon and hands_used(w) + it.weapon.hands <= 2:
            opts.append(Option(f"to-hand:{h.id}", f"hold {it.name}"))
    key = ask(w, "swap", "Rearrange hands and backpack (C11.3)", opts)
    if key == "done":
        fire(w, "end:upkeep")
        next_phase(w)
        return
    iid = key.split(":", 1)[1]
    src, dst = ("held", "pack") if key.startswith("to-pack") else ("pack", "held")
    items = getattr(w, src)
    i = next(i for i, h in enumerate(items) if h.id == iid)
    setattr(w, dst, getattr(w, dst) + (items[i],))
    setattr(w, src, items[:i] + items[i + 1:])
    emit(w, "swap", f"moves {g.items[iid].name}", "C11.3")


STEPS = {"setup": step_setup, "action": step_action, "planning": step_planning, "killer": step_killer,
         "panic": step_panic, "upkeep": step_upkeep}


def check_ends(w: Work) -> None:
    """State-based checks: content's win/lose conditions, whenever the game settles."""
    if not w.game.has_ends:
        return
    for a in abilities(w):
        for e in a.ends:
            if condition(w, e.cond, Ctx()):
                end_game(w, "fg" if e.side == "win" else "killer", e.reason or "a scenario or killer condition was met")


# --- driving --------------------------------------------------------------------------------
MAX_STEPS = 5000


def _state_of(d: dict) -> GameState:
    """A GameState whose fields are the dict ``d`` itself (the caller hands it over: no copy)."""
    s = object.__new__(GameState)
    _set_dict(s, "__dict__", d)
    return s


_set_dict = object.__setattr__  # a frozen class refuses ``s.__dict__ = d``; object's own setter does not


_RUNS: dict[int, tuple] = {}
"""id(paused state) -> (a weak reference to it, the greenlet suspended at its choice, its thread);
used once, by apply, which checks that the reference still names the state (an id is reused
once its state is gone). Entries of states dropped unanswered are purged when 64 pile up
(more if that many states are alive; a WeakKeyDictionary, or a callback per reference, cost
three times as much)."""


def advance(checkpoint: GameState, answers: tuple[str, ...], skip: int) -> tuple[GameState, list[Event]]:
    """Replay the current step from its checkpoint with the answers, then run on to the next choice."""
    if _greenlet is None:
        return _advance(checkpoint, answers, skip, False)
    run = _greenlet.greenlet(_advance)
    return _settle(run, run.switch(checkpoint, answers, skip, True))


def _settle(run, out) -> tuple[GameState, list[Event]]:
    """What a switch into ``run`` gave back: the game's end, or a pause (kept for apply)."""
    if run.dead:
        return out
    out, run.out = run.out, None
    if len(_RUNS) >= _PURGE[0]:  # states paused and dropped unanswered: free their runs
        for k in [k for k, v in _RUNS.items() if v[0]() is None]:
            del _RUNS[k]
        _PURGE[0] = max(64, 2 * len(_RUNS))  # many live paused states (a search tree): purge less often
    _RUNS[id(out[0])] = (_weak(out[0]), run, _thread())
    return out


_PURGE = [64]


_weak, _thread = weakref.ref, threading.get_ident


def _advance(checkpoint: GameState, answers: tuple[str, ...], skip: int, run: bool) -> tuple[GameState, list[Event]]:
    ctl = Ctl(answers, skip)
    ctl.run, ctl.checkpoint, ctl.cp, ctl.base, ctl.steps = run, checkpoint, None, None, 0
    if run:
        _greenlet.getcurrent().ctl = ctl  # for play_out (the run holds ctl; ctl does not hold the run)
    w = Work(checkpoint, ctl)
    steps = STEPS
    ends = w.game.has_ends
    cp: Optional[dict] = None  # the checkpoint as fields; made a GameState only if the step pauses
    while ctl.steps < MAX_STEPS:  # steps since the last answer (_pause resets the count)
        ctl.steps += 1
        if w.result:
            return w.release(choice=None, answers=(), checkpoint=None, events_seen=0), ctl.events
        try:
            steps[w.phase](w)
            if ends:
                check_ends(w)
        except NeedChoice as nc:
            if ctl.pos != len(ctl.answers):
                raise AssertionError("an answer was not used by the step it was given to")
            base = checkpoint if cp is None else _state_of(cp)
            st = w.release(choice=nc.args[0], answers=ctl.answers, checkpoint=base, events_seen=ctl.count)
            return st, ctl.events
        except PhaseEnd:
            if w.phase in PHASE_ORDER:
                emit(w, "phase", "the phase ends at once", "C14.2")
                if w.phase == "action":
                    w.action_over = True
                    w.sub = 1
                else:
                    next_phase(w)
        except GameOver:
            pass
        cp = ctl.cp = w.__dict__.copy()
        ctl.base = None
        ctl.answers = ()
        ctl.pos = 0
        ctl.count = 0
        ctl.skip = 0
        ctl.depth = 0  # an exception may have left run() without unwinding its count
        ctl.node = None  # … or its node: a step's own events name no content line
        ctl.it = -1  # … or a 'for each' location
    raise RulesError("the game did not reach a decision within the step limit")


def apply(state: GameState, key: str) -> tuple[GameState, list[Event]]:
    """Answer the pending choice; returns the new state and what happened. The old state is untouched."""
    if state.result:
        raise IllegalChoice("the game is over")
    if state.choice is None or state.checkpoint is None:
        raise IllegalChoice("there is no pending choice")
    for o in state.choice.options:
        if o.key == key:
            break
    else:
        raise IllegalChoice(f"'{key}' is not an option here; options: {', '.join(state.choice.keys())}")
    got = _RUNS.pop(id(state), None)
    if got is not None and got[0]() is state and got[2] == _thread() and not got[1].dead:
        run = got[1]
        run.parent = _greenlet.getcurrent()
        return _settle(run, run.switch(key))
    return advance(state.checkpoint, state.answers + (key,), state.events_seen)


def play_out(state: GameState, policy, limit: int, on_transition) -> GameState:
    """Answer with ``policy`` until the game is over or ``limit`` answers were given; returns the
    last state. The same states, events and results as the loop
    ``state, events = apply(state, policy(state, state.choice)); on_transition(state, events)``,
    but a run kept for ``state`` answers inside itself: no switch, no lookup per answer."""
    given = 0
    while given < limit and not state.result:
        key = policy(state, state.choice)
        got = _RUNS.get(id(state))
        ctl = getattr(got[1], "ctl", None) if got is not None and got[0]() is state else None
        if ctl is not None:
            ctl.policy, ctl.hook, ctl.budget, ctl.given = policy, on_transition, limit - given - 1, 0
        try:
            state, events = apply(state, key)
        finally:
            if ctl is not None:
                given += ctl.given
                ctl.policy = ctl.hook = None
        given += 1
        on_transition(state, events)
    return state


def replace(state: GameState, **fields) -> GameState:
    """A copy of a settled state with some fields changed (for tests and tools; no rules applied)."""
    d = dict(state.__dict__)
    unknown = set(fields) - set(d)
    if unknown:
        raise TypeError(f"GameState has no fields {sorted(unknown)}")
    d.update(fields)
    s = object.__new__(GameState)
    s.__dict__.update(d)
    return s


def work(state: GameState, answers: tuple[str, ...] = ()) -> Work:
    """A working copy on which engine functions can be called directly, answering choices from ``answers``."""
    return Work(state, Ctl(tuple(answers), 0, complete=False))
