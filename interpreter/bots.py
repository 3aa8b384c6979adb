"""Bots: plain policies ``(state, choice) -> option key``.

- ``random``: uniform among the options (its own generator, seeded).
- ``first``: always the first option (deterministic; can stall a game that never asks it to act).
- ``expert``: determinized Monte Carlo over each decision's options with greedy rollouts, N rollouts
  per decision (``'expert:N'``; interpreter/expert.py, docs/decisions/0024).
- ``greedy``: a hand-written heuristic: leads victims it meets to the exits, then stays on the killer
  and fights (measured to win more than waiting for a perfect hand), thins crowds of minions, picks
  each card's 'choose' option by its effects, rests when hurt until the night goes long, keeps out of
  the enemies' reach when no killer is on the board, buys cards by what their outcomes do.

Bots read only what a player may see: their own hand and items, the board, the pieces on it and
the face-up cards. They judge cards by the effects in the content (node types), never by name, so
they play any killer and scenario.
"""

from __future__ import annotations

import random as _random
from typing import Callable, Sequence

from lastbreath.dsl import nodes as n

from .expert import check_budget, expert_maker
from .state import Choice, GameState, Option

Policy = Callable[[GameState, Choice], str]


def random_policy(seed: int = 0) -> Policy:
    draw = _random.Random(seed).random  # random() is ~3x cheaper than randrange() on the hot path

    def choose(options: Sequence[Option]) -> int:
        return int(draw() * len(options))

    def policy(state: GameState, choice: Choice) -> str:
        return choice.options[choose(choice.options)].key
    policy.choose_index = choose  # type: ignore[attr-defined]  # it reads only the options (engine.play_out)
    return policy


def first_policy(state: GameState, choice: Choice) -> str:
    return choice.options[0].key


def _first_index(options: Sequence[Option]) -> int:
    return 0


first_policy.choose_index = _first_index  # type: ignore[attr-defined]  # reads only the options (play_out)


# --- what cards do ------------------------------------------------------------------------------
_walk = n.walk  # every node inside effects: the one walker of the content tree


def _amount(a) -> int:
    return a if isinstance(a, int) else 1


_CARD_PROFILE: dict[int, dict[str, float]] = {}

# effects that move the content on without healing, hurting or moving anyone: a track advanced (S2.4),
# a token placed or revealed (K1.7), a vehicle brought (V4), victims put aboard (S2.3). The content
# hands her these on her own cards, items and actions: they are her progress (a 'mark' on the game)
_MARKS = (n.AdvanceTrack, n.PlaceToken, n.RevealTokens, n.MoveConveyance, n.LoadVictims, n.LoadVictimsUpTo,
          n.RescueHeld)


def card_profile(card: n.Card) -> dict[str, float]:
    """What a card does, weighted by the chance of each tier with about two dice."""
    key = id(card)
    got = _CARD_PROFILE.get(key)
    if got is not None:
        return got
    weight = {0: 0.45, 1: 0.40, 2: 0.15, 3: 0.03}
    prof = {"move": 0.0, "damage": 0.0, "heal": 0.0, "fear": 0.0, "time": 0.0, "search": 0.0, "prevent": 0.0,
            "mark": 0.0}
    for o in card.outcomes:
        wgt = weight.get(o.min_successes, 0.05)
        for e in _walk(o.effects):
            t = type(e)
            if t is n.MoveUpTo:
                prof["move"] += wgt * _amount(e.n)
            elif t is n.DealDamage or t is n.KillMinions:  # killing N minions is worth N damage
                prof["damage"] += wgt * _amount(e.n)
            elif t is n.Heal:
                prof["heal"] += wgt * _amount(e.n)
            elif t is n.LowerFear:
                prof["fear"] += wgt * _amount(e.n)
            elif t is n.RaiseFear:
                prof["fear"] -= wgt * _amount(e.n)
            elif t is n.GainTime:
                prof["time"] += wgt * _amount(e.n)
            elif t is n.LoseTime:
                prof["time"] -= wgt * _amount(e.n)
            elif t in (n.SearchTake, n.SearchLook):
                prof["search"] += wgt
            elif t is n.PreventDamage:
                prof["prevent"] += wgt * _amount(e.n)
            elif t in _MARKS:
                prof["mark"] += wgt * (_amount(e.n) if t is n.AdvanceTrack else 1)
    _CARD_PROFILE[key] = prof
    return prof


def card_value(card: n.Card) -> float:
    p = card_profile(card)
    return (1.2 * p["move"] + 2.0 * p["damage"] + 1.2 * p["heal"] + 0.8 * p["fear"] + 0.5 * p["time"]
            + 1.5 * p["search"] + 1.3 * p["prevent"] + 1.0 * p["mark"] + (1.0 if card.kind == "reroll" else 0.0))


# --- the greedy bot -----------------------------------------------------------------------------
_TIERS: dict[int, tuple[float, ...]] = {}


def success_odds(k: int) -> tuple[float, ...]:
    """P(exactly s successes) for s = 0..k with k dice (a 5 or 6 succeeds; 3–4s are not counted)."""
    got = _TIERS.get(k)
    if got is None:
        from math import comb
        got = _TIERS[k] = tuple(comb(k, s) * (1 / 3) ** s * (2 / 3) ** (k - s) for s in range(k + 1))
    return got


def _outcome(card: n.Card, succ: int):
    best = None
    for o in card.outcomes:
        if o.min_successes <= succ and (best is None or o.min_successes > best.min_successes):
            best = o
    return best


_EXPECT: dict[tuple[int, int], dict[str, float]] = {}


def expect(card: n.Card, k: int) -> dict[str, float]:
    """What a card does on average with k dice: each effect summed, and 'hit', the chance that it
    deals damage at all (a weapon's bonus needs it, C3.8). A choice counts as its best option for
    each effect: the choice is made once the roll is known."""
    key = (id(card), k)
    got = _EXPECT.get(key)
    if got is not None:
        return got
    out = {"move": 0.0, "damage": 0.0, "heal": 0.0, "fear": 0.0, "time": 0.0, "hit": 0.0, "cost": 0.0}
    for s, p in enumerate(success_odds(max(1, k))):
        o = _outcome(card, s)
        if o is None:
            continue
        got_one = {"move": 0.0, "damage": 0.0, "heal": 0.0, "fear": 0.0, "time": 0.0}

        def add(effects, into):
            for e in effects:
                t = type(e)
                if t is n.MoveUpTo:
                    into["move"] += _amount(e.n)
                elif t is n.DealDamage or t is n.KillMinions:
                    into["damage"] += _amount(e.n)
                elif t is n.Heal:
                    into["heal"] += _amount(e.n)
                elif t is n.LowerFear:
                    into["fear"] += _amount(e.n)
                elif t is n.RaiseFear:
                    into["fear"] -= _amount(e.n)
                elif t is n.GainTime:
                    into["time"] += _amount(e.n)
                elif t is n.LoseTime:
                    into["time"] -= _amount(e.n)
                elif t is n.Choose:
                    best: dict[str, float] = {}
                    for opt_ in e.options:
                        sub = dict.fromkeys(into, 0.0)
                        add(opt_.body, sub)
                        for kk, vv in sub.items():
                            best[kk] = max(best.get(kk, 0.0), vv)
                    for kk, vv in best.items():
                        into[kk] += vv
        add(o.effects, got_one)
        for kk, vv in got_one.items():
            out[kk] += p * vv
        if got_one["damage"] > 0:
            out["hit"] += p
        if s == 0:
            out["cost"] = -got_one["time"]
    _EXPECT[key] = out
    return out


def _placed_only(cond: n.Condition, ids: frozenset[str]) -> bool:
    """Whether a condition reads nothing but her place and the board's tokens (so its answer at a
    location is the same in every state with those tokens and opened paths): 'fg at' a location
    named by its id or 'here', 'fg at tag', a token at such a location, and all / any / not of these.
    ``ids``: the board's location ids."""
    if isinstance(cond, (n.AllOf, n.AnyOf)):
        return all(_placed_only(c, ids) for c in cond.conds)
    if isinstance(cond, n.Not):
        return _placed_only(cond.cond, ids)
    if isinstance(cond, n.FgAtTag):
        return True
    if isinstance(cond, (n.FgAt, n.TokenAt)):
        return isinstance(cond.loc, str) and (cond.loc == "here" or cond.loc in ids)
    return False


class Greedy:
    """A sensible-person heuristic. Deterministic: the same state and choice give the same answer.

    It reads only what a player sees: the board, the pieces and their health, the bloodlust track,
    her hand, items and the face-up cards; never a face-down card, a deck's order or a hidden
    last-breath value. Its plan: lead victims out while they live, arm itself (weapon, attack cards),
    keep out of the enemies' reach, clear crowds of minions, and strike the killer once the hand
    can take down what health it shows (at once against a killer that heals every round)."""

    def __call__(self, state: GameState, choice: Choice) -> str:
        handler = getattr(self, "on_" + choice.kind.replace("-", "_"), None)
        keys = [o.key for o in choice.options]
        if handler is not None:
            key = handler(state, choice, keys)
            if key in keys:
                return key
        return keys[0]

    # -- what the content's own forms offer: conditions read as the engine reads them ----------------
    @staticmethod
    def holds(state: GameState, cond: n.Condition | None, loc: int | None = None) -> bool:
        """Whether a condition of the content holds now (with her at ``loc``, if given): the engine's
        own reading (engine/zones.usable) on a working copy, which a condition never writes."""
        if cond is None:
            return True
        from .engine.working import replace, work
        from .engine.zones import usable
        if loc is not None and loc != state.fg_loc:
            state = replace(state, fg_loc=loc)
        return usable(work(state), cond)

    def live(self, state: GameState, effects) -> list:
        """The effects that would resolve now: an 'if' read (its 'then' or its 'else'), the rest
        walked as they stand (a choice with every option, a repeat once)."""
        out: list = []
        for e in effects:
            if type(e) is n.If:
                out += self.live(state, e.then if self.holds(state, e.cond) else e.otherwise)
            else:
                out.extend(_walk((e,)))
        return out

    def gain(self, state: GameState, effects) -> tuple[float, bool]:
        """What effects would do for her here and now, and whether any of them is of a kind this
        reading does not value (a card drawn, a status, a token spent: worth something, unknown).
        Healing at full health and lowering fear at its lowest count nothing (C3.5, C3.6), as do
        setting a flag already set and clearing one not set: an item or action whose every effect is
        such does nothing, and is not worth its time."""
        g = state.game
        missing = g.fg.health - state.fg_health
        fear_room = max(0, state.fear - g.side.fear_min)
        v, unknown = 0.0, False
        for e in self.live(state, effects):
            t = type(e)
            if t is n.Heal:
                got = min(missing, _amount(e.n))
                missing -= got
                v += 1.0 * got
            elif t is n.LowerFear:
                got = min(fear_room, _amount(e.n))
                fear_room -= got
                v += 0.4 * got
            elif t is n.RaiseFear:
                v -= 0.4 * _amount(e.n)
            elif t is n.GainTime:
                v += 0.25 * _amount(e.n)
            elif t is n.LoseTime or t is n.LoseHealth:
                v -= 0.3 * _amount(e.n)
            elif t in _MARKS:
                v += 0.6 * (_amount(e.n) if t is n.AdvanceTrack else 1)
            elif t is n.SetFlag or t is n.ClearFlag:
                if (e.flag in state.flags) is (t is n.ClearFlag):
                    unknown = True  # a flag changed: worth something to the content, unknown
            elif isinstance(e, (n.Control, n.Decl)):
                continue  # a choice, a repeat, a spend: the effects inside are walked with it
            else:
                unknown = True
        return v, unknown

    def item_worth(self, state: GameState, iid: str, uses: int | None = None) -> float:
        """What an item is worth to her, whatever the moment: a weapon by the bonus it adds to the
        best she holds (C3.8), a use by its effects' kinds, times the uses left (C6.4)."""
        g = state.game
        it = g.items[iid]
        w = 0.0
        if it.weapon is not None:
            best = max((wp.bonus for h in state.held if (wp := g.items[h.id].weapon) is not None
                        and wp.range == it.weapon.range and h.id != iid), default=0)
            w += 1.5 * max(0, it.weapon.bonus - best) + 0.3 * it.weapon.range
        if it.use is not None:
            one = 0.0
            for e in _walk(it.use.effects):
                t = type(e)
                if t is n.DealDamage or t is n.KillMinions:
                    one += 1.2 * _amount(e.n)
                elif t is n.Heal:
                    one += 0.8 * _amount(e.n)
                elif t is n.LowerFear or t is n.GainTime or t is n.MoveUpTo:
                    one += 0.3 * _amount(e.n)
                elif isinstance(e, n.Effect) and not isinstance(e, n.Control):
                    one += 0.3
            left = it.uses if uses is None else uses
            w += one * (min(left, 3) if it.uses else 2)
        return w

    def recipe_gain(self, state: GameState, r: n.Recipe) -> float:
        """S3.4: the item made, less the items given up for it and the time it takes."""
        held = {h.id: h for h in (*state.held, *state.pack)}
        lost = sum(self.item_worth(state, i, held[i].uses) for i in r.needs if i in held)
        return self.item_worth(state, r.makes) - lost - 0.3 * r.time

    def errand(self, state: GameState) -> int:
        """K2.5 and the like: an item she holds whose use needs her at some kind of place (a tag, a
        token there) and, perhaps, some kind of victim there with her. The place to take it to, or
        the victims of that kind to fetch first (they follow her, C5.3); -1 when there is none."""
        g = state.game
        d = self.dist(state)[state.fg_loc]
        for h in (*state.held, *state.pack):
            it = g.items[h.id]
            if it.use is None or it.usable is None or (it.uses and h.uses <= 0):
                continue
            kinds = [c.kind for c in _walk((it.usable,)) if type(c) is n.KindAt and c.loc == "here"]
            places = self.places_for(state, h.id)
            if not places:
                continue
            if kinds:
                with_her = any(m.loc == state.fg_loc and m.kind in kinds for m in state.marked)
                if not with_her:
                    spots = {m.loc for m in state.marked if m.kind in kinds and m.loc >= 0}
                    if not spots:
                        continue
                    return min(spots, key=lambda i: (d[i], i))
            return min(places, key=lambda i: (d[i], i))
        return -1

    def places_for(self, state: GameState, iid: str) -> tuple[int, ...]:
        """The locations where an item's 'usable while' holds as far as the place goes: its parts about
        victims of a kind there left out (she brings them along). A condition that reads only where
        she is and the board's tokens is read once for each arrangement of the tokens and opened paths
        (kept with the game's tables); any other is read afresh, so the answer never depends on what
        was read before in the process."""
        g = state.game
        cond = g.items[iid].usable
        if type(cond) is n.AllOf:
            parts = tuple(c for c in cond.conds if type(c) not in (n.KindAt, n.VictimsAt))
            cond = n.AllOf(cond.span, parts) if parts else None
        elif type(cond) in (n.KindAt, n.VictimsAt):
            cond = None
        if cond is None:
            return ()
        key = (("bot:places", iid, state.tokens, state.tokens_down, state.opened)
               if _placed_only(cond, frozenset(g.board.index)) else None)
        got = g.derived.get(key) if key is not None else None
        if got is None:
            got = tuple(i for i in range(len(g.board.names)) if self.holds(state, cond, i))
            if key is not None:
                g.derived[key] = got
        return got

    # -- what the board shows --------------------------------------------------------------------
    @staticmethod
    def dist(state: GameState):
        return state.game.board.tables(state.opened)[1]

    @staticmethod
    def killer_locs(state: GameState) -> set[int]:
        return {k.loc for k in state.killers if k.alive and k.loc >= 0}

    @staticmethod
    def live_killers(state: GameState):
        return [k for k in state.killers if k.alive and k.loc >= 0]

    def weak(self, state: GameState) -> bool:
        return state.fg_health <= max(2, state.game.fg.health // 3)

    @staticmethod
    def regen(state: GameState) -> int:
        """How much the killer heals by itself each round (its printed abilities, public)."""
        g = state.game
        got = g.derived.get("bot:regen")
        if got is None:
            got = sum(_amount(e.n) for t in g.killer.abilities.triggers for e in _walk(t.body)
                      if type(e) is n.HealKiller)
            g.derived["bot:regen"] = got
        return got

    @staticmethod
    def leave_cost(state: GameState, loc: int) -> int:
        """Health lost for leaving loc, by the killer's printed 'when fg leaves' abilities (K5.4)."""
        def value(a: object) -> int:  # the amounts such a line uses, at the location she would leave
            if isinstance(a, int):
                return a
            if isinstance(a, n.Count) and a.what in ("minions", "minion"):
                return sum(1 for m in state.minions if m.loc == loc and (not a.kind or m.kind == a.kind))
            if isinstance(a, n.Arith):
                x, y = value(a.a), value(a.b)
                return x + y if a.op == "plus" else max(0, x - y)
            return 0

        total = 0
        for t in state.game.killer.abilities.triggers:
            ev = t.event
            if not (isinstance(ev, n.PieceEvent) and ev.what == "leaves" and ev.piece.kind == "fg"):
                continue
            for e in _walk(t.body):
                if isinstance(e, n.LoseHealth):
                    total += value(e.n)
        return total

    @staticmethod
    def hazard(state: GameState) -> tuple[float, ...]:
        """Health a piece standing on each location loses to the standing lines of the killer and
        the scenario that hurt whatever stands there at a phase's start or end (``for each piece at
        tag T { … damage it N … }``, ``damage (pieces at PLACE) N``): public, read once a game."""
        g = state.game
        got = g.derived.get("bot:hazard")
        if got is None:
            board = g.board
            per = [0.0] * len(board.names)

            def mark(pieces: n.PieceSet, amount: float) -> None:
                if pieces.what not in ("pieces", "fg"):
                    return
                if pieces.tag:
                    for i in board.with_tag(pieces.tag):
                        per[i] += amount
                elif isinstance(pieces.loc, str) and pieces.loc in board.index:
                    per[board.index[pieces.loc]] += amount

            for t in (*g.killer.abilities.triggers, *g.scenario.abilities.triggers):
                if not isinstance(t.event, n.PhaseEvent):
                    continue
                for e in _walk(t.body):
                    if isinstance(e, n.ForEachPiece):
                        hurt = [x for x in _walk(e.body) if isinstance(x, n.DamagePieces) and x.pieces.what == "it"]
                        # a blow struck only on some rounds (a first mark, then the blow) counts half
                        mark(e.among, sum(_amount(x.n) for x in hurt) * (0.5 if any(
                            isinstance(x, n.If) for x in e.body) else 1.0))
                    elif isinstance(e, n.DamagePieces):
                        mark(e.pieces, _amount(e.n))
            got = g.derived["bot:hazard"] = tuple(per)
        return got

    @staticmethod
    def reduction(state: GameState) -> int:
        """How much each blow on the killer is reduced, by the face-up cards and the killer board."""
        g = state.game
        sources = [g.killer.abilities]
        if state.dark_revealed and state.dark_power in g.dark_powers:
            sources.append(g.dark_powers[state.dark_power].abilities)
        if state.finale_revealed and state.finale in g.finales:
            sources.append(g.finales[state.finale].abilities)
        if state.secondary and state.secondary in g.terror:
            sources.append(g.terror[state.secondary].abilities)
        return max(0, -sum(r.n for a in sources for r in a.rules if type(r) is n.DamageTaken))

    def dice(self, state: GameState, card: n.Card | None = None) -> int:
        g = state.game
        k = g.dice_by_fear.get(state.fear, 1) + (card.dice if card is not None else 0)
        if state.fg_health == 0 and state.fg_breath > 0:
            k += 1
        if any(kil.health == 0 and kil.breath > 0 for kil in self.live_killers(state)):
            k += 1
        return max(1, k)

    def weapon_bonus(self, state: GameState, rng: int = 0) -> int:
        g = state.game
        return max((wp.bonus for h in state.held
                    if (wp := g.items[h.id].weapon) is not None and wp.range == rng), default=0)

    def burst(self, state: GameState, with_time: int | None = None) -> float:
        """The damage the hand can be expected to deal in one Action phase at the killer's side."""
        g = state.game
        bonus = self.weapon_bonus(state)
        red = self.reduction(state)
        vals = []
        for c in state.hand:
            card = g.cards[c]
            if card.kind != "action":
                continue
            ex = expect(card, self.dice(state, card))
            if ex["damage"] > 0:
                hit = ex["damage"] + (bonus - red) * ex["hit"]
                if hit > 0:
                    vals.append((hit, max(1.0, ex["cost"])))
        vals.sort(reverse=True)
        time: float = state.time if with_time is None else with_time
        total = 0.0
        for v, cost in vals:
            if time < 0:
                break
            total += v
            time -= cost
        return total

    @staticmethod
    def killer_hp(state: GameState) -> int:
        """Health shown plus the last-breath token on top, which counts as one (C14.1, C17.1)."""
        ks = [k for k in state.killers if k.alive]
        if not ks:
            return 0
        k = min(ks, key=lambda x: x.health)
        return k.health + (1 if k.breath > 0 else 0) + state.secondary_health

    def threat(self, state: GameState, loc: int) -> float:
        """A rough count of the hits waiting for her at loc in the next Killer phase."""
        g = state.game
        d = self.dist(state)
        lvl = g.levels[min(state.bloodlust, len(g.levels) - 1)]
        victims_left = any(state.victims)
        t = 0.0
        for k in self.live_killers(state):
            dk = d[k.loc][loc]
            near_victims = victims_left and any(v and d[k.loc][i] < dk for i, v in enumerate(state.victims))
            w = 0.45 if near_victims else 1.0
            if dk <= lvl.move:
                t += w * lvl.damage
            elif dk <= 2 * lvl.move:
                t += 0.5 * w * lvl.damage
        for m in state.minions:
            stats = g.minions[m.kind]
            dm = d[m.loc][loc]
            if dm <= stats.move * 2:
                near_victims = victims_left and any(v and d[m.loc][i] < dm for i, v in enumerate(state.victims))
                base = 0.7 if dm == 0 else (0.4 if dm <= stats.move else 0.2)
                t += base * stats.damage * (0.4 if near_victims else 1.0)
        return t

    def goal(self, state: GameState) -> int:
        """Where the Final Girl wants to be: an exit when victims are with her, the killer when it is
        time to fight, else the nearest victims out of the enemies' way, or an item to search."""
        d = self.dist(state)[state.fg_loc]
        board = state.game.board
        danger = self.killer_locs(state)
        errand = self.errand(state) if state.marked or state.tokens else -1
        if errand >= 0 and (not danger or not self.hunting(state)):
            return errand  # an item to take where it works, with whom it needs (K2.5)
        if state.victims[state.fg_loc] > 0 and state.fg_loc not in board.exits:
            exits = sorted(board.exits, key=lambda e: (d[e], e))
            return exits[0] if exits else state.fg_loc
        spot = self.search_spot(state)
        if spot >= 0:  # a search close by while she has no weapon (C6.1)
            return spot
        if self.hunting(state) and danger:
            return min(danger, key=lambda i: (d[i], i))
        crowded = {m.loc for m in state.minions}
        spots = [i for i, v in enumerate(state.victims) if v > 0 and i not in danger and i not in crowded]
        if not spots:
            spots = [i for i, v in enumerate(state.victims) if v > 0]
        if spots:
            return min(spots, key=lambda i: (d[i], -state.victims[i], i))
        if crowded and not danger:  # no killer on the board (K6: not yet) and nobody to save: thin its minions
            return min(crowded, key=lambda i: (d[i], i))
        piles = [i for i in board.search_locs if state.piles[board.pile_of[i]]]
        if piles and not self.armed(state):
            return min(piles, key=lambda i: (d[i], i))
        if danger:  # nobody left to save: the only way out is to fight
            return min(danger, key=lambda i: (d[i], i))
        return state.fg_loc

    SEARCH_REACH = 2  # how far she turns aside to search a pile (moves)
    SEARCH_WORTH = 3.0  # what a card that searches is worth more while she wants items (bought, C7)

    def searching_cards(self, state: GameState) -> int:
        """How many cards in her hand search (C6.1)."""
        cards = state.game.cards
        return sum(1 for c in state.hand if card_profile(cards[c])["search"] > 0)

    ITEMS_WANTED = 4  # items she carries before a search is worth no more

    def has_room(self, state: GameState) -> bool:
        """Fewer than ITEMS_WANTED items in her hands and backpack."""
        return len(state.held) + len(state.pack) < self.ITEMS_WANTED

    def wants_items(self, state: GameState) -> bool:
        """No weapon yet and room for more items: what a pile may hold is worth a search."""
        return not self.armed(state) and self.has_room(state)

    def search_spot(self, state: GameState) -> int:
        """A pile with items within SEARCH_REACH that she could search with a card in her hand, while
        she wants items; the nearest, -1 when there is none."""
        if not self.wants_items(state) or not self.searching_cards(state):
            return -1
        board = state.game.board
        d = self.dist(state)[state.fg_loc]
        piles = [i for i in board.search_locs if state.piles[board.pile_of[i]] and d[i] <= self.SEARCH_REACH]
        return min(piles, key=lambda i: (d[i], i)) if piles else -1

    def armed(self, state: GameState) -> bool:
        g = state.game
        return any(g.items[h.id].weapon for h in state.held)

    LATE_ROUND = 25

    def late(self, state: GameState) -> bool:
        """The night has gone on long (a Final Girl who heals as fast as she is hit could go on for
        ever): stop turtling and fight it out."""
        return state.round >= self.LATE_ROUND

    def hunting(self, state: GameState) -> bool:
        """Go after the killer whenever it is on the board. Measured against waiting until she is armed,
        well or holding a hand that can bring it down: staying on the killer wins more often against
        both bundled killers (a killer that mends when left alone most of all), and it ends the game."""
        return bool(self.live_killers(state))

    def wanted_buy(self, state: GameState) -> int:
        """The cost of the attack card in the market worth saving time for (0: none), while the hand
        cannot yet bring the killer down."""
        g = state.game
        if not self.live_killers(state) or len(state.hand) >= g.player_board.hand_limit - 1:
            return 0
        if self.burst(state, g.side.time_reset) >= self.killer_hp(state) + 1:
            return 0
        best, cost = 0.0, 0
        for cid in dict.fromkeys(state.market):
            c = g.cards[cid]
            if c.kind != "action" or c.cost == 0:
                continue
            dmg = expect(c, self.dice(state, c))["damage"]
            if dmg > best:
                best, cost = dmg, c.cost
        return cost

    # -- Action phase ----------------------------------------------------------------------------
    def on_action(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """Score every option by what it would do here and now; end the phase when nothing is worth it."""
        if "rescue" in keys:
            return "rescue"
        g = state.game
        d = self.dist(state)[state.fg_loc]
        here = state.fg_loc
        danger = self.killer_locs(state)
        killer_here = here in danger
        minions_here = sum(1 for m in state.minions if m.loc == here)
        weapons = [wp for h in state.held if (wp := g.items[h.id].weapon) is not None]
        in_reach = killer_here or any(w.range >= 1 and any(d[k] == w.range for k in danger) for w in weapons)
        hunting = self.hunting(state)
        missing = g.fg.health - state.fg_health
        dice = g.dice_by_fear.get(state.fear, 1)
        at_pile = here in g.board.pile_of and bool(state.piles[g.board.pile_of[here]])
        reactions = sum(1 for c in state.hand if g.cards[c].kind == "reaction")
        hp = self.killer_hp(state)
        regen = self.regen(state)
        # damage to the killer counts in full when it will not simply heal it back
        finishing = self.burst(state) >= hp - 0.5
        to_killer = 2.5 if (hunting or finishing or not regen) and (hunting or not self.weak(state) or weapons) else 0.6
        bonus = self.weapon_bonus(state)
        red = self.reduction(state)
        gain = self.move_gain(state)
        mend = 0.0 if self.late(state) else 1.0  # a night gone long: no more patching up, fight it out
        # saving time for an attack card in the market, unless the fight is on now
        saving = self.wanted_buy(state) > 0 and not hunting and not (in_reach and finishing)
        scores: dict[str, float] = {"end": 0.35}
        for k in keys:
            if k.startswith("discard:"):
                card = g.cards[k[8:]]
                ex = expect(card, self.dice(state, card))
                if saving and card.cost == 0 and card.kind == "action" and not ex["damage"] and state.time < 10:
                    keep = 0.0
                    if ex["move"] and gain > 0:
                        keep += 0.6
                    if ex["heal"] and missing:
                        keep += 0.6
                    if ex["fear"] and dice <= 2 and state.fear > g.side.fear_min:
                        keep += 0.4
                    scores[k] = 0.75 - keep
                continue
            if k.startswith("play:"):
                card = g.cards[k[5:]]
                p = card_profile(card)
                ex = expect(card, self.dice(state, card))
                v = 0.0
                # a night gone long (late): any step toward the goal is worth the try, however poor the
                # odds, rather than waiting on a board where nothing comes to her (a stalled game)
                v += ex["move"] * min(gain, 2.5) * (2.4 if self.late(state) else 0.8)
                hit = ex["damage"] + bonus * ex["hit"]
                if in_reach:
                    v += max(0.0, hit - red * ex["hit"]) * to_killer
                if minions_here and (not in_reach or to_killer < 1.0 or red >= 1):
                    v += min(hit, minions_here) * 1.8  # clear the crowd around her
                v += ex["heal"] * min(missing, 3) * 0.9 * mend
                v += ex["fear"] * (1.0 if dice <= 2 else 0.25) * (1 if state.fear > g.side.fear_min else 0)
                v += p["search"] * (2.0 if at_pile and self.has_room(state) else 0.0)
                v += ex["time"] * (0.3 if state.time <= 2 else 0.1)
                if p["mark"]:  # a track moved on, a token placed (S2.4, K1.7): only what would happen now
                    marks = sum(1 for o in card.outcomes if o.min_successes >= 1
                                for e in self.live(state, o.effects) if type(e) in _MARKS)
                    v += 0.5 * min(marks, 3)
                v -= 0.2 if card.kind == "action" and reactions == 0 and p["prevent"] else 0.0
                if saving:
                    v -= 0.4 * max(1.0, ex["cost"])
                scores[k] = v
            elif k.startswith("use:"):
                it = g.items[k[4:].partition("#")[0]]  # ('use:ID#N': a card that carries tokens apart)
                effects = it.use.effects if it.use else ()
                worth, unknown = self.gain(state, effects)
                worth -= 0.3 * (it.use.time if it.use else 0)  # its time as spent time (a use for a time back: nothing)
                if not unknown and worth <= 0:
                    continue  # it would change nothing (full health, fear at its lowest): not worth a use
                heals = sum(_amount(e.n) for e in _walk(effects) if isinstance(e, n.Heal))
                scores[k] = (1.0 * min(missing, heals) + 0.3) * mend if heals and missing else 0.4
            elif k.startswith("action:"):
                a = next(x for x in g.actions if x.id == k[7:])
                worth, unknown = self.gain(state, a.effects)
                if not unknown and worth <= 0:
                    continue  # nothing it does helps here and now
                free = "(free)" in next(o.label for o in choice.options if o.key == k)
                scores[k] = 0.6 if free else (0.8 if state.time >= 2 else 0.2)
            elif k.startswith("recipe:"):  # S3.4: make an item worth more than what it takes
                r = next(x for x in g.recipes if x.id == k[7:])
                v = self.recipe_gain(state, r)
                if v > 0 and state.time >= r.time:
                    scores[k] = 0.5 + min(v, 2.0) * 0.3
        best = max(scores, key=lambda k: (scores[k], k))
        return best

    def place_score(self, state: GameState, loc: int, leaving: bool, goal: int, hunting: bool) -> float:
        """Lower is better: steps still to go, the hits waiting there, the price of leaving here."""
        s = self.dist(state)[loc][goal]
        if not hunting:
            s += 1.5 * self.threat(state, loc)
        s += 1.5 * self.hazard(state)[loc]
        if leaving:
            s += (0.5 if hunting else 1.5) * self.leave_cost(state, state.fg_loc)
        return s

    def closing_in(self, state: GameState, goal: int) -> bool:
        """Going for the enemies (the killer, or its minions when nothing else is left): their
        threat is what she is after, not what she avoids."""
        return self.hunting(state) or (not any(state.victims) and any(m.loc == goal for m in state.minions))

    def move_gain(self, state: GameState) -> float:
        """How much one step improves her place (0 when no step does)."""
        goal = self.goal(state)
        hunting = self.closing_in(state, goal)
        here = self.place_score(state, state.fg_loc, False, goal, hunting)
        adj = state.game.board.tables(state.opened)[0][state.fg_loc]
        best = min((self.place_score(state, v, True, goal, hunting) for v, _k in adj), default=here)
        return max(0.0, here - best)

    def on_move(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        goal = self.goal(state)
        hunting = self.closing_in(state, goal)
        board = state.game.board
        best_key, best_score = "stop", self.place_score(state, state.fg_loc, False, goal, hunting)
        for k in keys:
            if not k.startswith("move:"):
                continue
            dest, _, piece = k[5:].partition(":")  # move:DEST, or move:DEST:ID with a conveyance she takes along
            sc = self.place_score(state, board.index[dest], True, goal, hunting)
            if piece:
                sc -= 0.01  # the same place, and the piece with her (victims may ride with it): taken along
            if sc < best_score - 1e-9:
                best_key, best_score = k, sc
        return best_key

    def on_kill_or_damage(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """'kill N minions' or N damage to a killer body there (K6.7): finish a body that low, else
        thin the minions before they gather into another."""
        k = next((int(w) for w in choice.prompt.split() if w.isdigit()), 1)
        bodies = [key for key in keys if key.startswith("killer:")]
        for key in bodies:
            i = int(key[7:])
            if i < len(state.killers) and state.killers[i].health <= k:
                return key
        here = sum(1 for m in state.minions if m.loc == state.fg_loc)
        return "kill" if here else (bodies[0] if bodies else keys[0])

    def on_place(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """A location of her choice for something the killer places (K6.1): the one farthest from her."""
        d = self.dist(state)[state.fg_loc]
        board = state.game.board
        return max(keys, key=lambda k: (d[board.index[k[6:]]], k))

    def on_follow(self, state, choice, keys):
        return keys[0]  # the most followers

    def on_rescue(self, state, choice, keys):
        return "rescue"

    def on_effect_choice(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """A card's 'choose': find the choice among the cards she holds or just played, by its labels,
        and take the option whose effects help most here."""
        labels = tuple(o.label for o in choice.options)
        node = self._find_choose(state, labels)
        if node is None:
            return keys[0]
        g = state.game
        d = self.dist(state)[state.fg_loc]
        danger = self.killer_locs(state)
        in_reach = state.fg_loc in danger or any(
            (wp := g.items[h.id].weapon) is not None and wp.range >= 1 and any(d[k] == wp.range for k in danger)
            for h in state.held)
        minions_here = sum(1 for m in state.minions if m.loc == state.fg_loc)
        missing = g.fg.health - state.fg_health
        hunting = self.hunting(state)
        gain = self.move_gain(state)
        bonus = self.weapon_bonus(state)

        def value(body) -> float:
            v = 0.0
            for e in _walk(body):
                t = type(e)
                if t is n.DealDamage:
                    a = _amount(e.n) + bonus
                    red = self.reduction(state)
                    if in_reach and a > red and (hunting or not self.regen(state) or not self.weak(state)):
                        v += 2.0 * (a - red)
                    elif minions_here:
                        v += 1.8 * min(a, minions_here)
                elif t is n.Heal and not self.late(state):
                    v += 1.2 * min(missing, _amount(e.n)) + (0.8 if self.weak(state) and missing else 0.0)
                elif t is n.MoveUpTo:
                    v += _amount(e.n) * 0.8 * min(gain, 2.5)
                elif t is n.LowerFear:
                    v += 0.6 * _amount(e.n)
                elif t is n.GainTime:
                    v += 0.3 * _amount(e.n)
            return v
        vals = [value(o.body) for o in node.options]
        i = max(range(len(vals)), key=lambda j: (vals[j], -j))
        return keys[i] if i < len(keys) else keys[0]

    @staticmethod
    def _find_choose(state: GameState, labels: tuple):
        g = state.game
        cache = g.derived.setdefault("bot:choose", {})
        if labels in cache:
            return cache[labels]
        found = None
        sources = [o.effects for c in g.cards.values() for o in c.outcomes]
        sources += [it.use.effects for it in g.items.values() if it.use]
        sources += [a.effects for a in g.actions]
        for effects in sources:
            for e in _walk(effects):
                if type(e) is n.Choose and tuple(o.label for o in e.options) == labels:
                    found = e
                    break
            if found is not None:
                break
        cache[labels] = found
        return found

    def on_check(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """Convert a 3–4 only when it turns a failure into a success and the hand can spare two cards."""
        rerolls = [k for k in keys if k.startswith("reroll:")]
        failing = choice.prompt.endswith(": no successes")  # the check's prompt: "Rolled [..]: no successes"
        if failing and rerolls:
            return rerolls[0]
        if "convert" in keys and failing and len(state.hand) >= 5:
            return "convert"
        return "accept"

    def on_convert_discard(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        cards = state.game.cards
        return min(keys, key=lambda k: (card_value(cards[k[8:]]) + 1.5 * card_profile(cards[k[8:]])["damage"], k))

    def on_buy(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """Keep a full hand: free basics first, then the best value for the time, never rerolls first;
        against a killer that heals or brings minions, attack cards weigh more (the fight must be won)."""
        cards = state.game.cards
        if len(state.hand) >= 8:
            return "done"
        counts: dict[str, int] = {}
        for c in state.hand:
            counts[c] = counts.get(c, 0) + 1
        hunting = self.hunting(state)
        fighty = bool(self.regen(state) or state.minions)
        damage_in_hand = sum(card_profile(cards[c])["damage"] for c in state.hand)
        searching = self.searching_cards(state)
        board = state.game.board
        piles = any(state.piles[board.pile_of[i]] for i in board.search_locs)

        def score(k: str) -> float:
            c = cards[k[4:]]
            prof = card_profile(c)
            v = card_value(c) - 0.6 * counts.get(c.id, 0)
            if hunting:  # the fight is all that is left: arm for it
                v += 2.5 * prof["damage"]
            if self.late(state):
                v -= 1.2 * prof["heal"]
            elif fighty:
                v += (2.0 if damage_in_hand < 4 else 1.0) * prof["damage"]
            if c.kind == "reroll":
                v -= 1.0
            if c.cost == 0:
                v += 0.8
            if prof["search"] and not searching and piles and self.wants_items(state):
                v += self.SEARCH_WORTH * prof["search"]  # a weapon or item from a pile (C6.1)
            if prof["mark"] and c.usable is not None and not self.holds(state, c.usable):
                v -= 1.0 * prof["mark"]  # it marks the game only at times (K1.7): not now
            return v / (1 + 0.35 * c.cost)

        buys = [k for k in keys if k.startswith("buy:") and score(k) > 0.25]
        return max(buys, key=lambda k: (score(k), k)) if buys else "done"

    def on_reaction(self, state, choice, keys):
        reacts = [k for k in keys if k.startswith("react:")]
        return reacts[0] if reacts else "take"

    def on_attack_target(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """The killer when the blow counts (it can fall, or it does not heal it back), else the biggest
        crowd of minions the damage can thin; a weapon whenever one is in reach."""
        import re
        g = state.game
        m = re.search(r"Deal (\d+) damage", choice.prompt)
        dmg = int(m.group(1)) if m else 1
        hp = self.killer_hp(state)
        regen = self.regen(state)
        hunting = self.hunting(state)

        def total(k: str) -> int:
            if "+" in k:
                it = g.items.get(k.split("+", 1)[1])
                return dmg + (it.weapon.bonus if it and it.weapon and dmg >= 1 else 0)
            return dmg

        def value(k: str) -> float:
            t = total(k)
            if k.startswith("killer"):
                t -= self.reduction(state)
                if t <= 0:
                    return 0.0
                if t >= hp:
                    return 100.0 + t
                return t * (1.0 if (hunting or not regen) else 0.5) + 0.01
            loc = g.board.index.get(k.split(":", 1)[1].split("+", 1)[0], -1)
            crowd = sum(1 for mm in state.minions if mm.loc == loc)
            return min(t, crowd) * (1.2 if loc == state.fg_loc else 0.9)
        return max(keys, key=lambda k: (value(k), "+" in k, k))

    def on_weapon(self, state, choice, keys):
        return keys[0]

    def on_item_place(self, state, choice, keys):
        return "hand" if "hand" in keys else keys[0]

    def on_search_keep(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        items = state.game.items

        def score(k: str) -> tuple:
            it = items[k[5:]]
            return (it.weapon.bonus if it.weapon else 0, it.use is not None, k)
        return max(keys, key=score)

    def on_search_return(self, state, choice, keys):
        return "top"

    def on_swap(self, state, choice, keys):
        hands = [k for k in keys if k.startswith("to-hand:")]
        return hands[0] if hands and not state.held else "done"

    def on_spend(self, state, choice, keys):
        return max(keys, key=lambda k: (k.count("+"), k))

    def on_slot(self, state, choice, keys):
        return keys[0]


def greedy_policy(seed: int = 0) -> Policy:
    """The greedy bot (the seed is accepted for a uniform interface; the bot is deterministic)."""
    return Greedy()


def _first(seed: int = 0) -> Policy:
    return first_policy


class BotTable(dict):
    """The bots' makers by name (``BOTS[name](seed)``). A bot with a budget is named with it too:
    ``'expert:N'`` is the expert with N rollouts per decision (``bot_name``), so that a name alone,
    handed to worker processes, says everything a game needs (the same results on any number)."""

    budgeted = ("expert",)

    def _split(self, key: object) -> tuple[object, int | None]:
        if isinstance(key, str) and ":" in key:
            name, _, n = key.partition(":")
            if name in self.budgeted and n.isdigit():
                return name, int(n)
        return key, None

    def __contains__(self, key: object) -> bool:
        name, budget = self._split(key)
        if budget is not None:
            try:
                check_budget(budget)
            except ValueError:
                return False
        return dict.__contains__(self, name)

    def __getitem__(self, key: str) -> Callable[[int], Policy]:
        name, budget = self._split(key)
        maker = dict.__getitem__(self, name)
        if budget is None:
            return maker
        check_budget(budget)

        def make(seed: int = 0) -> Policy:
            return maker(seed, budget)
        return make

    def get(self, key, default=None):
        try:
            return self[key]
        except (KeyError, ValueError):
            return default


def bot_name(bot: str, budget: int | None = None) -> str:
    """The name a bot with this budget goes by (``'expert:200'``); ValueError for a budget out of
    bounds or given to a bot that takes none."""
    if budget is None:
        return bot
    if bot not in BotTable.budgeted:
        raise ValueError(f"--budget is for the {' and '.join(BotTable.budgeted)} bot"
                         + (f", not '{bot}'" if bot else " (--bot expert)"))
    return f"{bot}:{check_budget(budget)}"


def bot_flags(bot: str) -> str:
    """The command line's options for a bot's name: ``'expert:200'`` is ``--bot expert --budget 200``."""
    name, _, budget = bot.partition(":")
    return f"--bot {name}" + (f" --budget {budget}" if budget else "")


BOTS: dict[str, Callable[..., Policy]] = BotTable({
    "random": random_policy,
    "first": _first,
    "greedy": greedy_policy,
    "expert": expert_maker(Greedy),
})
expert_policy = BOTS["expert"]  # expert_policy(seed, budget=DEFAULT_BUDGET): interpreter/expert.py
