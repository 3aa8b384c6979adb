"""Checking a loaded state against its content and the rules' bounds (``serialize.from_json``).

A save is data from anywhere: a snapshot with the Final Girl's health at 999, a finished result in
the middle of a game, or a checkpoint edited by hand would load and then make ``apply`` raise
IndexError or KeyError, or play on with impossible numbers. So a loaded state is refused, with a
``SaveError`` that names the first field at fault, unless:

1. every field holds what the content and the rules allow (``check_values``): ids of this game's
   cards, items, terror cards, events, minions, tokens and decks; locations on this board;
   numbers within their bounds (health within 0..her health, fear and time on the player
   board's tracks, bloodlust a level the killer has…); lists of the right length;
2. it is written as ``to_json`` writes it (``check_canonical``): no value that only converts to
   the right type ("5" for 5, 1.0 for 1, true for 1), sets sorted and without repeats;
3. it keeps the game's invariants (``breach``, for the state and its checkpoint): those
   ``lastbreath fuzz`` checks after every transition that one state can show. The victims on the
   board, held, dead and rescued are never more than came into play (``victims_in``), and as many
   between two steps; health, time, fear and bloodlust within their tracks, a killer's health
   within its maximum; the hand within its limit; a pending choice of two options or more, each
   with a key of its own and a label. So a state and its checkpoint edited alike (the checkpoint
   then resumes to the state) are refused too, where the edit breaks one of them;
4. its story holds together (``check_resumes``): a game over has a result, no choice and no
   checkpoint; a game in play has a choice and the checkpoint it resumes from, and replaying
   that checkpoint with the answers given since, through the engine's public ``advance``,
   reaches exactly this state (else the first field that differs is named).

The same checks stand behind every way a saved state comes in: ``serialize.from_json``, and the
snapshot in a save file (``replay``: ``Session.load``, ``lastbreath replay``, ``play --load``, the
protocol's ``game.load``) (docs/decisions/0022).

Only ``SaveError`` leaves this module.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Optional

from lastbreath.dsl import SaveError
from lastbreath.dsl.limits import MAX_AMOUNT, MAX_HEALTH
from lastbreath.dsl.nodes import MOVERS

from . import engine
from .engine.killers import max_health
from .engine.tracks import MAX_DELAYED
from .state import GameState

MAX_COUNT = 1_000_000  # counters the rules do not bound (rounds, draws, the dead…): far above any game
MAX_SEED = (1 << 63) - 1
MAX_TEXT = 10_000  # characters in a string of a state (a reason, a prompt, a flag)
MAX_ITEMS = 100_000  # elements of a list in a state
PHASES = frozenset({*engine.STEPS, "over"})
STEP_BOUNDARY_KINDS = frozenset({"action", "buy", "swap"})  # asked first thing in a step: no half-done work


def _fail(field: str, why: str) -> SaveError:
    return SaveError(f"the saved state's {field} {why}")


def _int(field: str, v: Any, low: int, high: int) -> None:
    if type(v) is not int:
        raise _fail(field, f"is not an integer (got {type(v).__name__})")
    if not low <= v <= high:
        raise _fail(field, f"is {v}, outside {low}..{high}")


def _bool(field: str, v: Any) -> None:
    if type(v) is not bool:
        raise _fail(field, f"is not true or false (got {type(v).__name__})")


def _str(field: str, v: Any, allowed: Optional[Iterable[str]] = None, what: str = "") -> None:
    if type(v) is not str:
        raise _fail(field, f"is not a string (got {type(v).__name__})")
    if len(v) > MAX_TEXT:
        raise _fail(field, f"is longer than {MAX_TEXT} characters")
    if allowed is not None and v not in allowed:
        raise _fail(field, f"is {v[:60]!r}, which is not {what or 'known here'}")


def _seq(field: str, v: Any, length: int = -1) -> None:
    if not isinstance(v, tuple):
        raise _fail(field, f"is not a list (got {type(v).__name__})")
    if len(v) > MAX_ITEMS:
        raise _fail(field, f"has more than {MAX_ITEMS} elements")
    if length >= 0 and len(v) != length:
        raise _fail(field, f"has {len(v)} elements, not {length}")


def _ids(field: str, v: Any, allowed, what: str) -> None:
    if type(v) is tuple and len(v) <= MAX_ITEMS and all(type(x) is str and x in allowed for x in v):
        return  # (every id allowed: short, as content ids are; else the element at fault is named below)
    _seq(field, v)
    for i, x in enumerate(v):
        _str(f"{field}[{i}]", x, allowed, what)


def _ints(field: str, v: Any, low: int, high: int, length: int = -1) -> None:
    """A list of integers within low..high (of ``length`` elements, if given)."""
    if type(v) is tuple and len(v) <= MAX_ITEMS and (length < 0 or len(v) == length) and all(
            type(x) is int and low <= x <= high for x in v):
        return
    _seq(field, v, length)
    for i, x in enumerate(v):
        _int(f"{field}[{i}]", x, low, high)


def check_values(state: GameState, where: str = "") -> None:
    """Every field of ``state`` holds what its game's content and the rules allow (see the module)."""
    g = state.game
    board = g.board
    side = g.side

    def f(name: str) -> str:
        return f"{where}{name}"
    locs = board.n
    _int(f("seed"), state.seed, -MAX_SEED, MAX_SEED)
    _int(f("rng"), state.rng, 0, MAX_COUNT)
    _int(f("round"), state.round, 1, MAX_COUNT)
    _str(f("phase"), state.phase, PHASES, f"a phase ({', '.join(sorted(PHASES))})")
    _int(f("sub"), state.sub, 0, MAX_COUNT)
    _str(f("result"), state.result, ("", "fg", "killer"), "'', 'fg' or 'killer'")
    _str(f("end_reason"), state.end_reason)
    _int(f("fg_loc"), state.fg_loc, 0, locs - 1)
    _int(f("fg_health"), state.fg_health, 0, g.fg.health)
    _int(f("fg_breath"), state.fg_breath, 0, 2)
    breath = set(g.player_board.last_breath) | {0}
    _int(f("fg_breath_value"), state.fg_breath_value, 0, MAX_AMOUNT)
    if state.fg_breath_value not in breath:
        raise _fail(f("fg_breath_value"), f"is {state.fg_breath_value}, which no last-breath token shows")
    _int(f("fear"), state.fear, side.fear_min, side.fear_max)
    _int(f("time"), state.time, side.time_min, side.time_max)
    copies: dict[str, int] = {}
    for name in ("hand", "spent", "market", "cards_gone"):
        _ids(f(name), getattr(state, name), g.cards, "a card of this game")
        for cid in getattr(state, name):
            copies[cid] = copies.get(cid, 0) + 1
    for cid, count in copies.items():
        if count > g.cards[cid].copies:
            raise _fail(f("hand, spent, market and cards_gone"), f"hold {count} copies of '{cid}', which has "
                        f"{g.cards[cid].copies}")
    for name in ("held", "pack"):
        items = getattr(state, name)
        _seq(f(name), items)
        for i, h in enumerate(items):
            _str(f(f"{name}[{i}].id"), h.id, g.items, "an item")
            _int(f(f"{name}[{i}].uses"), h.uses, 0, max(g.items[h.id].uses, 0))
            if h.uses == 0 and g.items[h.id].uses > 0 and h.id not in g.ingredients:
                raise _fail(f(f"{name}[{i}].uses"), f"is 0, but no recipe needs '{h.id}': its last use "
                                                    "discards it (C6.4, S3.4)")
    _int(f("rescued"), state.rescued, 0, MAX_COUNT)
    _seq(f("slots"), state.slots, max(g.fg.rescues, len(g.fg.slots)))
    if not all(type(s) is bool for s in state.slots):
        for i, s in enumerate(state.slots):
            _bool(f(f"slots[{i}]"), s)
    for name in ("flipped", "skip_action", "action_over", "finale_revealed", "dark_revealed"):
        _bool(f(name), getattr(state, name))
    _ints(f("victims"), state.victims, 0, MAX_COUNT, locs)
    capped = "killer-cap" not in g.rule_queries  # no "rule no health cap" anywhere in play (as fuzz.py)
    _seq(f("killers"), state.killers)
    for i, k in enumerate(state.killers):
        kf = f(f"killers[{i}]")
        _str(f"{kf}.id", k.id, (g.killer.id,), f"the killer of this game ('{g.killer.id}')")
        _int(f"{kf}.loc", k.loc, -1, locs - 1)
        _int(f"{kf}.health", k.health, 0, max(g.killer.health, MAX_HEALTH) if capped else MAX_COUNT)
        _int(f"{kf}.breath", k.breath, 0, 2)
        _int(f"{kf}.breath_value", k.breath_value, 0, MAX_AMOUNT)
        if k.breath_value not in breath:
            raise _fail(f"{kf}.breath_value", f"is {k.breath_value}, which no last-breath token shows")
        _bool(f"{kf}.alive", k.alive)
        _statuses(f"{kf}.status", k.status)
        _str(f"{kf}.label", k.label)
        _str(f"{kf}.body", k.body, ("", *g.bodies), f"a body of '{g.killer.id}'")
        _bool(f"{kf}.aside", k.aside)
        _int(f"{kf}.max_health", k.max_health, 0, MAX_COUNT)
    _int(f("active"), state.active, 0, max(0, len(state.killers) - 1))
    _seq(f("minions"), state.minions)
    _int(f("minion_seq"), state.minion_seq, 0, MAX_COUNT)
    for i, m in enumerate(state.minions):
        mf = f(f"minions[{i}]")
        _str(f"{mf}.kind", m.kind, g.minions, "a minion")
        _int(f"{mf}.loc", m.loc, 0, locs - 1)
        _int(f"{mf}.health", m.health, 0, MAX_HEALTH)
        _statuses(f"{mf}.status", m.status)
        _int(f"{mf}.uid", m.uid, 0, state.minion_seq)
    levels = max(1, len(g.levels))
    _int(f("bloodlust"), state.bloodlust, 0, levels - 1)
    _frozen(f("lust_fired"), state.lust_fired)
    for level in state.lust_fired:
        _int(f("lust_fired[]"), level, 0, levels - 1)
    _int(f("dead"), state.dead, 0, MAX_COUNT)
    _int(f("victims_in"), state.victims_in, 0, MAX_COUNT)
    _int(f("deaths_round"), state.deaths_round, 0, MAX_COUNT)
    _ids(f("terror"), state.terror, g.terror, "a terror card of this game")
    _str(f("finale"), state.finale, ("", *g.finales), "a finale of this killer")
    _str(f("dark_power"), state.dark_power, ("", *g.dark_powers), "a dark power of this killer")
    _str(f("secondary"), state.secondary, ("", *g.terror), "a terror card of this game")
    _int(f("secondary_health"), state.secondary_health, 0, MAX_HEALTH)
    _ids(f("events"), state.events, g.events, "an event of this scenario")
    _ids(f("events_active"), state.events_active, g.events, "an event of this scenario")
    _seq(f("piles"), state.piles, len(board.search_locs))
    for i, pile in enumerate(state.piles):
        _seq(f(f"piles[{i}]"), pile)
        if all(type(card) is tuple and len(card) == 2 and type(card[0]) is str and card[0] in g.items
               and type(card[1]) is bool for card in pile):
            continue  # (else the card at fault is named below)
        for j, card in enumerate(pile):
            _seq(f(f"piles[{i}][{j}]"), card, 2)
            _str(f(f"piles[{i}][{j}]"), card[0], g.items, "an item")
            _bool(f(f"piles[{i}][{j}]"), card[1])
    _ints(f("breath_bag"), state.breath_bag, 0, MAX_AMOUNT)
    _str(f("setup_card"), state.setup_card, ("", *(s.id for s in g.scenario.setups)), "a setup card of this scenario")
    modes = ("", *g.killer.modes)
    _str(f("mode"), state.mode, modes, "a mode of this killer")
    _str(f("mode_active"), state.mode_active, modes, "a mode of this killer")
    _frozen(f("flags"), state.flags)
    for flag in state.flags:
        _str(f("flags[]"), flag)
    _frozen(f("opened"), state.opened)
    for path in state.opened:
        _int(f("opened[]"), path, 0, len(board.paths) - 1)
    _seq(f("tokens"), state.tokens)
    tokens = g.tokens
    if not all(type(t) is tuple and len(t) == 3 and type(t[0]) is str and t[0] in tokens
               and type(t[1]) is str and t[1] in tokens[t[0]].kinds
               and type(t[2]) is int and 0 <= t[2] < locs for t in state.tokens):
        for i, t in enumerate(state.tokens):
            _seq(f(f"tokens[{i}]"), t, 3)
            _token(f(f"tokens[{i}]"), g, t[0], t[1])
            _int(f(f"tokens[{i}]"), t[2], 0, locs - 1)
    for name in ("supply", "collected", "token_discard"):
        pairs = getattr(state, name)
        _seq(f(name), pairs)
        if all(type(t) is tuple and len(t) == 2 and type(t[0]) is str and t[0] in tokens  # (str: a dict is unhashable)
               and type(t[1]) is str and t[1] in tokens[t[0]].kinds for t in pairs):
            continue  # (else the pair at fault is named below)
        for i, t in enumerate(pairs):
            _seq(f(f"{name}[{i}]"), t, 2)
            _token(f(f"{name}[{i}]"), g, t[0], t[1])
    _seq(f("decks"), state.decks)
    for i, d in enumerate(state.decks):
        _seq(f(f"decks[{i}]"), d, 2)
        _str(f(f"decks[{i}]"), d[0], g.decks, "a deck of this game")
        _ids(f(f"decks[{i}]"), d[1], {c.id for c in g.decks[d[0]].cards}, f"a card of the deck '{d[0]}'")
    _ids(f("kept"), state.kept, g.deck_cards, "a card of a deck of this game ('deck/card')")
    _check_zones(state, f)
    _check_pieces(state, f)
    _check_copies(state, f)
    _tracks_and_paths(state, f)
    _seq(f("answers"), state.answers)
    if not all(type(a) is str and len(a) <= MAX_TEXT for a in state.answers):
        for i, a in enumerate(state.answers):
            _str(f(f"answers[{i}]"), a)
    _int(f("events_seen"), state.events_seen, 0, MAX_COUNT)
    c = state.choice
    if c is not None:
        _str(f("choice.kind"), c.kind)
        _str(f("choice.prompt"), c.prompt)
        _seq(f("choice.options"), c.options)
        if not all(type(o.key) is str and type(o.label) is str and len(o.key) <= MAX_TEXT
                   and len(o.label) <= MAX_TEXT for o in c.options):
            for i, o in enumerate(c.options):
                _str(f(f"choice.options[{i}].key"), o.key)
                _str(f(f"choice.options[{i}].label"), o.label)


def accounted_victims(state: GameState) -> int:
    """The victims on the board, held off it (a holding area), dead or rescued."""
    return sum(state.victims) + sum(k for _h, k in state.holding) + state.dead + state.rescued


def breach(state: GameState) -> Optional[tuple[str, str]]:
    """The first invariant of the game that ``state`` breaks, as (the check, how), or None: those
    ``lastbreath fuzz`` checks after every transition (interpreter/fuzz.py) that one state can show."""
    g = state.game
    side = g.side
    # victims (between two steps none is half moved: as many as came into play; else never more)
    if min(state.victims, default=0) < 0:
        return "victims", f"a location holds fewer than 0 victims: {list(state.victims)[:20]}"
    accounted = accounted_victims(state)
    if accounted > state.victims_in:
        return "victims", (f"{accounted} victims are on the board, held, dead or rescued, more than the "
                           f"{state.victims_in} that came into play")
    if (state.choice is None or state.choice.kind in STEP_BOUNDARY_KINDS) and accounted != state.victims_in:
        return "victims", (f"{accounted} victims are on the board, held, dead or rescued between two steps, not "
                           f"the {state.victims_in} that came into play")
    # bounds
    if not 0 <= state.fg_health <= g.fg.health:
        return "bounds", f"the Final Girl's health {state.fg_health} is outside 0..{g.fg.health}"
    if not side.time_min <= state.time <= side.time_max:
        return "bounds", f"time {state.time} is outside {side.time_min}..{side.time_max}"
    if not side.fear_min <= state.fear <= side.fear_max:
        return "bounds", f"fear {state.fear} is outside {side.fear_min}..{side.fear_max}"
    if not 0 <= state.bloodlust < max(1, len(g.levels)):
        return "bounds", f"bloodlust level {state.bloodlust + 1} is outside 1..{len(g.levels)}"
    capped = "killer-cap" not in g.rule_queries  # no "rule no health cap" anywhere in play
    for k in state.killers:
        top = max_health(state, k)
        if k.health < 0 or (capped and not k.label and k.health > top):
            return "bounds", f"the killer's health {k.health} is outside 0..{top}"
    if state.secondary_health < 0 or any(m.health < 0 for m in state.minions):
        return "bounds", "a secondary dark power or a minion has health below 0"
    # hand
    limit = g.player_board.hand_limit
    if len(state.hand) > limit:
        return "hand", f"the hand holds {len(state.hand)} cards, more than the hand limit {limit}"
    # the choice
    if state.over:
        if state.choice is not None or state.result not in ("fg", "killer") or state.phase != "over":
            return "choice", (f"a game over with result {state.result!r:.20}, phase {state.phase!r:.20} and "
                              f"{'a choice pending' if state.choice is not None else 'no choice'}")
    elif state.choice is not None:
        c = state.choice
        keys = c.keys()
        if len(keys) < (1 if g.forced == "ask" else 2):
            return "choice", f"a {c.kind!r:.40} choice with {len(keys)} option(s) is asked"
        if len(set(keys)) != len(keys):
            return "choice", f"a {c.kind!r:.40} choice has two options with one key"
        if not all(k and o.label for k, o in zip(keys, c.options)):
            return "choice", f"an option without a key or a label in a {c.kind!r:.40} choice"
    return None


def check_invariants(state: GameState) -> None:
    """``breach`` of the state and of its checkpoint, as the ``SaveError`` naming it."""
    for where, st in (("", state), ("checkpoint.", state.checkpoint)):
        if st is None:
            continue
        got = breach(st)
        if got is not None:
            raise SaveError(f"the saved {where}state breaks an invariant of the game ({got[0]}): {got[1]}")
    cp = state.checkpoint
    if cp is not None and (state.dead < cp.dead or state.rescued < cp.rescued):
        raise SaveError(f"the saved state breaks an invariant of the game (victims): dead {cp.dead} -> {state.dead}, "
                        f"rescued {cp.rescued} -> {state.rescued} since its checkpoint: the dead stay dead and the "
                        "rescued stay rescued")


def _tracks_and_paths(state: GameState, f: Any) -> None:
    """Tracks on spaces they have, holding areas within their capacity, kept blocks of this game,
    paths closed for known movers (engine/tracks.py)."""
    g = state.game
    bounds = {"tracks": [(t.id, t.low, t.high) for t in g.tracks.values()],
              "holding": [(h.id, 0, h.capacity) for h in g.holdings.values()]}
    for name, table in bounds.items():
        pairs = getattr(state, name)
        _seq(f(name), pairs, len(table))
        for i, (pair, (ident, low, high)) in enumerate(zip(pairs, table)):
            _seq(f(f"{name}[{i}]"), pair, 2)
            _str(f(f"{name}[{i}]"), pair[0], (ident,), f"'{ident}' (this game's {name}, in their order)")
            _int(f(f"{name}[{i}]"), pair[1], low, high)
    _seq(f("delayed"), state.delayed)
    if len(state.delayed) > MAX_DELAYED:
        raise _fail(f("delayed"), f"holds more than {MAX_DELAYED} kept blocks")
    for i, d in enumerate(state.delayed):
        _seq(f(f"delayed[{i}]"), d, 3)
        _int(f(f"delayed[{i}]"), d[0], 0, len(g.delayed) - 1)
        _int(f(f"delayed[{i}]"), d[1], -1, g.board.n - 1)
        _int(f(f"delayed[{i}]"), d[2], 0, MAX_COUNT)
    _seq(f("barred"), state.barred)
    for i, b in enumerate(state.barred):
        _seq(f(f"barred[{i}]"), b, 2)
        _int(f(f"barred[{i}]"), b[0], 0, len(g.board.paths) - 1)
        _str(f(f"barred[{i}]"), b[1], MOVERS, "fg, victims or enemies")
    if list(state.barred) != sorted(set(state.barred)):
        raise _fail(f("barred"), "is not sorted, or has repeats")
    # pieces that travel with her (issue #33 item 2): one place for each of the game's, on the board or off (-1)
    _ints(f("conveyances"), state.conveyances, -1, g.board.n - 1, len(g.conveyances))


def _statuses(field: str, v: Any) -> None:
    _frozen(field, v)
    for x in v:
        _str(f"{field}[]", x)


def _frozen(field: str, v: Any) -> None:
    if not isinstance(v, frozenset):
        raise _fail(field, f"is not a set (got {type(v).__name__})")
    if len(v) > MAX_ITEMS:
        raise _fail(field, f"has more than {MAX_ITEMS} elements")


def _token(field: str, g: Any, token: Any, kind: Any) -> None:
    _str(field, token, g.tokens, "a token of this game")
    _str(field, kind, g.tokens[token].kinds, f"a kind of the token '{token}'")


def check_canonical(data: dict[str, Any], again: dict[str, Any], where: str = "") -> None:
    """The state's data is written as ``to_json`` writes it: the first field where ``data`` and the
    data of the state built from it (``again``) differ is named.

    The state is built of the saved values themselves, none converted (serialize: records take
    each value of exactly its type, and ``check_values`` checks the type of every other one), so
    ``again`` holds ``data``'s own values, sets sorted and the defaults left out: equal data is
    the same JSON text. (Compared as text, 1, 1.0 and true would differ too.)"""
    if data == again:
        return
    for k in again:
        a, b = data.get(k), again[k]
        if k == "checkpoint" and isinstance(a, dict) and isinstance(b, dict):
            check_canonical(a, b, f"{where}checkpoint.")
        elif json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            raise _fail(f"{where}{k}", "is not written as a save writes it (a value of another type, or a set "
                        "unsorted or with repeats)")


def check_resumes(state: GameState, state_data: dict[str, Any], encode: Callable[[GameState], dict[str, Any]]) -> None:
    """A game over is over; a game in play resumes from its checkpoint to exactly this state:
    ``state_data`` is ``encode(state)``, compared with the resumed state as ``encode`` writes it
    (the loaded state's data is canonical by then: ``check_canonical``, ``check_values``)."""
    if state.result:
        if state.phase != "over" or state.choice is not None or state.checkpoint is not None or state.answers:
            raise _fail("result", f"is {state.result!r}, yet the game is not over (phase {state.phase!r}, "
                        f"{'a choice pending' if state.choice is not None else 'no choice'})")
        return
    if state.phase == "over":
        raise _fail("phase", "is 'over', yet the game has no result")
    if state.choice is None or state.checkpoint is None:
        raise _fail("choice", "is missing: a game in play waits for a choice, with the checkpoint it resumes from")
    cp = state.checkpoint
    if cp.checkpoint is not None or cp.choice is not None or cp.answers or cp.events_seen or cp.result:
        raise _fail("checkpoint", "is not a state between two steps (it has a choice, answers or a checkpoint)")
    try:
        again, _events = engine.advance(cp, state.answers, state.events_seen)
    except Exception as err:  # whatever the engine makes of a bad checkpoint, it is a bad save
        raise SaveError(f"the saved state does not resume from its checkpoint: replaying it with its answers "
                        f"raised {type(err).__name__}") from None
    mine = encode(again)
    if mine == state_data:
        return
    for k in mine:
        if mine[k] != state_data.get(k):
            raise _fail(k, "differs from the state its checkpoint and answers lead to: the state or its checkpoint "
                        "was edited")
    raise _fail("state", "differs from the state its checkpoint and answers lead to")  # pragma: no cover


def _check_zones(state: GameState, f: Any) -> None:
    """Item and card zones (issue #16 item 6): items of this game on the table, set aside, in named
    piles and on the item piles; the discards of its decks; cards set aside; the last card's number."""
    g = state.game
    for name in ("table", "aside"):  # an item's id, or 'ID#N': a card of an item whose cards carry tokens apart
        cards = getattr(state, name)
        if type(cards) is tuple and all(type(x) is str and x in g.items for x in cards):
            continue
        _seq(f(name), cards)
        for i, x in enumerate(cards):
            _str(f(f"{name}[{i}]"), x)
            _str(f(f"{name}[{i}]"), x.partition("#")[0], g.items, "an item")
    _seq(f("item_piles"), state.item_piles)
    piles = {p.id for p in (*g.scenario.piles, *g.killer.piles)}
    for i, pile in enumerate(state.item_piles):
        _seq(f(f"item_piles[{i}]"), pile, 2)
        _str(f(f"item_piles[{i}]"), pile[0], piles, "a pile of this game")
        _ids(f(f"item_piles[{i}]"), pile[1], g.items, "an item")
    _seq(f("on_piles"), state.on_piles)
    for i, pair in enumerate(state.on_piles):
        _seq(f(f"on_piles[{i}]"), pair, 2)
        _int(f(f"on_piles[{i}]"), pair[0], 0, len(g.board.search_locs) - 1)
        _str(f(f"on_piles[{i}]"), pair[1], g.items, "an item")
    _seq(f("deck_discards"), state.deck_discards)
    for i, d in enumerate(state.deck_discards):
        _seq(f(f"deck_discards[{i}]"), d, 2)
        _str(f(f"deck_discards[{i}]"), d[0], g.decks, "a deck of this game")
        _ids(f(f"deck_discards[{i}]"), d[1], {c.id for c in g.decks[d[0]].cards}, f"a card of the deck '{d[0]}'")
    _ids(f("cards_aside"), state.cards_aside, g.deck_cards, "a card of a deck of this game ('deck/card')")
    _int(f("card_number"), state.card_number, 0, MAX_AMOUNT)


def _check_copies(state: GameState, f: Any) -> None:
    """Item cards that carry tokens apart, tokens face down on the board (issue #33 items 3-4): each
    card of such an item in play has a number, given out and its own (a card of another item has one
    only where a position put tokens on it); tokens lie on a numbered card in play; face-down tokens on
    the board are of this game."""
    g = state.game
    _int(f("item_seq"), state.item_seq, 0, MAX_COUNT)
    seen: set[int] = set()

    def card(field: str, iid: str, k: int) -> None:
        if type(k) is not int or isinstance(k, bool):
            raise _fail(field, f"is not a whole number (got {type(k).__name__})")
        if iid in g.copy_items and k == 0:
            raise _fail(field, f"is 0, but the cards of '{iid}' carry tokens apart: each in play has a number")
        if k:
            _int(field, k, 1, state.item_seq)
            if k in seen:
                raise _fail(field, f"is {k}, which another card has")
            seen.add(k)

    for name in ("held", "pack"):
        for i, h in enumerate(getattr(state, name)):
            card(f(f"{name}[{i}].copy"), h.id, h.copy)
    for name in ("table", "aside"):
        for i, x in enumerate(getattr(state, name)):
            iid, sep, k = x.partition("#")
            if sep and (not k.isdigit() or len(k) > 9 or k.startswith("0")):
                raise _fail(f(f"{name}[{i}]"), f"is {x[:60]!r}: a card's number is written 'ID#N' (N from 1)")
            card(f(f"{name}[{i}]"), iid, int(k) if sep else 0)
    in_play = {f"item:{h.id}#{h.copy}" for h in (*state.held, *state.pack) if h.copy}
    in_play |= {f"item:{x}" for x in (*state.table, *state.aside) if "#" in x}
    for i, on in enumerate(state.token_on):
        if on[0].startswith("item:") and on[0] not in in_play:
            raise _fail(f(f"token_on[{i}]"), f"lies on {on[0][:60]!r}, which is no card in play (a card of an item "
                                             "is 'item:ID#N': one she holds, on the table or set aside)")
    _seq(f("tokens_down"), state.tokens_down)
    locs = g.board.n
    for i, down in enumerate(state.tokens_down):
        _seq(f(f"tokens_down[{i}]"), down, 3)
        _token(f(f"tokens_down[{i}]"), g, down[0], down[1])
        _int(f(f"tokens_down[{i}]"), down[2], 0, locs - 1)


def _check_pieces(state: GameState, f: Any) -> None:
    """Victims that are not plain, the Final Girl's statuses, tokens on cards and pieces (issue #16
    items 3-5): kinds of this game, locations on the board, each location holding at least as many
    victims as marked ones, uids unique and given out, holders and tokens of this game."""
    g = state.game
    locs = g.board.n
    _int(f("victim_seq"), state.victim_seq, 0, MAX_COUNT)
    _int(f("victims_taken"), state.victims_taken, 0, MAX_COUNT)
    _seq(f("marked"), state.marked)
    seen: set[int] = set()
    per_loc = [0] * locs
    for i, m in enumerate(state.marked):
        mf = f(f"marked[{i}]")
        _int(f"{mf}.uid", m.uid, 1, state.victim_seq)
        if m.uid in seen:
            raise _fail(f"{mf}.uid", f"is {m.uid}, which another marked victim has")
        seen.add(m.uid)
        _int(f"{mf}.loc", m.loc, 0, locs - 1)
        _str(f"{mf}.kind", m.kind, ("", *g.victim_kinds), "a victim kind of this game")
        _statuses(f"{mf}.status", m.status)
        _bool(f"{mf}.revealed", m.revealed)
        per_loc[m.loc] += 1
    for loc, k in enumerate(per_loc):
        if k > state.victims[loc]:
            raise _fail(f("marked"), f"has {k} victims at {g.board.ids[loc]}, which holds {state.victims[loc]}")
    _statuses(f("fg_status"), state.fg_status)
    _seq(f("token_on"), state.token_on)
    holders = ("item:", "card:", "victim:", "minion:", "killer:")
    for i, t in enumerate(state.token_on):
        tf = f(f"token_on[{i}]")
        _seq(tf, t, 4)
        _str(tf, t[0])
        if not t[0].startswith(holders):
            raise _fail(tf, f"lies on {t[0][:40]!r}, which is no holder (item:, card:, victim:, minion:, killer:)")
        _token(tf, g, t[1], t[2])
        _bool(tf, t[3])
    _seq(f("arrivals"), state.arrivals)
    sources = ("dark:", "finale:", "event:", "secondary:", "flipped", "item:", "kept:")
    for i, key in enumerate(state.arrivals):
        _str(f(f"arrivals[{i}]"), key)
        if not key.startswith(sources):
            raise _fail(f(f"arrivals[{i}]"), f"is {key[:40]!r}, which names no source (dark:, finale:, event:, "
                                              "secondary:, flipped, item:, kept:)")
