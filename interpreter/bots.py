"""Bots: plain policies ``(state, choice) -> option key``.

- ``random``: uniform among the options (its own generator, seeded).
- ``first``: always the first option (deterministic; can stall a game that never asks it to act).
- ``greedy``: a hand-written heuristic that plays like a sensible person: leads victims to the
  exits, rescues them, searches for weapons, fights when the killer is in reach, rests when hurt,
  keeps away from the killer when weak, buys cards by what their outcomes do.

Bots read only what a player may see: their own hand and items, the board, the pieces on it and
the face-up cards. They judge cards by the effects in the content (node types), never by name, so
they play any killer and scenario.
"""

from __future__ import annotations

import random as _random
from typing import Callable

from lastbreath.dsl import nodes as n

from .board import INF
from .state import Choice, GameState

Policy = Callable[[GameState, Choice], str]


def random_policy(seed: int = 0) -> Policy:
    draw = _random.Random(seed).random  # random() is ~3x cheaper than randrange() on the hot path

    def policy(state: GameState, choice: Choice) -> str:
        options = choice.options
        return options[int(draw() * len(options))].key
    return policy


def first_policy(state: GameState, choice: Choice) -> str:
    return choice.options[0].key


# --- what cards do ------------------------------------------------------------------------------
def _walk(effects):
    for e in effects:
        yield e
        for attr in ("then", "otherwise", "body"):
            sub = getattr(e, attr, None)
            if sub:
                yield from _walk(sub)
        if isinstance(e, n.Choose):
            for o in e.options:
                yield from _walk(o.body)
        if isinstance(e, n.Roll):
            for r in e.rows:
                yield from _walk(r.body)


def _amount(a) -> int:
    return a if isinstance(a, int) else 1


_CARD_PROFILE: dict[int, dict[str, float]] = {}


def card_profile(card: n.Card) -> dict[str, float]:
    """What a card does, weighted by the chance of each tier with about two dice."""
    key = id(card)
    got = _CARD_PROFILE.get(key)
    if got is not None:
        return got
    weight = {0: 0.45, 1: 0.40, 2: 0.15, 3: 0.03}
    prof = {"move": 0.0, "damage": 0.0, "heal": 0.0, "fear": 0.0, "time": 0.0, "search": 0.0, "prevent": 0.0}
    for o in card.outcomes:
        wgt = weight.get(o.min_successes, 0.05)
        for e in _walk(o.effects):
            t = type(e)
            if t is n.MoveUpTo:
                prof["move"] += wgt * _amount(e.n)
            elif t is n.DealDamage:
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
    _CARD_PROFILE[key] = prof
    return prof


def card_value(card: n.Card) -> float:
    p = card_profile(card)
    return (1.2 * p["move"] + 2.0 * p["damage"] + 1.2 * p["heal"] + 0.8 * p["fear"] + 0.5 * p["time"]
            + 1.5 * p["search"] + 1.3 * p["prevent"] + (1.0 if card.kind == "reroll" else 0.0))


# --- the greedy bot -----------------------------------------------------------------------------
class Greedy:
    """A sensible-person heuristic. Deterministic: the same state and choice give the same answer."""

    def __call__(self, state: GameState, choice: Choice) -> str:
        handler = getattr(self, "on_" + choice.kind.replace("-", "_"), None)
        keys = [o.key for o in choice.options]
        if handler is not None:
            key = handler(state, choice, keys)
            if key in keys:
                return key
        return keys[0]

    # -- helpers ---------------------------------------------------------------------------------
    @staticmethod
    def dist(state: GameState):
        return state.game.board.tables(state.opened)[1]

    @staticmethod
    def killer_locs(state: GameState) -> set[int]:
        return {k.loc for k in state.killers if k.alive and k.loc >= 0}

    def weak(self, state: GameState) -> bool:
        return state.fg_health <= max(2, state.game.fg.health // 3)

    def goal(self, state: GameState) -> int:
        """Where the Final Girl wants to be: an exit when victims are with her, else the nearest victims."""
        d = self.dist(state)[state.fg_loc]
        board = state.game.board
        danger = self.killer_locs(state)
        if state.victims[state.fg_loc] > 0 and state.fg_loc not in board.exits:
            exits = sorted(board.exits, key=lambda e: (d[e], e))
            return exits[0] if exits else state.fg_loc
        if self.hunting(state) and danger:  # strong enough, or nobody left to save: go after the killer
            return min(danger, key=lambda i: (d[i], i))
        crowded = {m.loc for m in state.minions}
        spots = [i for i, v in enumerate(state.victims) if v > 0 and i not in danger and i not in crowded]
        if not spots:
            spots = [i for i, v in enumerate(state.victims) if v > 0]
        if spots:
            return min(spots, key=lambda i: (d[i], -state.victims[i], i))
        if board.search_locs and not state.held and state.round < 4:
            return min(board.search_locs, key=lambda i: (d[i], i))
        if danger:  # nobody left to save: the only way out is to fight
            return min(danger, key=lambda i: (d[i], i))
        return state.fg_loc

    def hunting(self, state: GameState) -> bool:
        """Go after the killer: nobody is left to save, or she is armed and well and the killer is worn."""
        if not any(state.victims):
            return True
        g = state.game
        bonus = max((g.items[h.id].weapon.bonus for h in state.held if g.items[h.id].weapon), default=0)
        killer_hp = min((k.health for k in state.killers if k.alive), default=99)
        return bonus >= 1 and state.fg_health >= max(3, g.fg.health // 2) and killer_hp <= 3 + 2 * bonus

    def playable(self, state: GameState, keys: list[str], prefix: str = "play:") -> dict[str, n.Card]:
        cards = state.game.cards
        return {k: cards[k[len(prefix):]] for k in keys if k.startswith(prefix)}

    # -- Action phase ----------------------------------------------------------------------------
    def on_action(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """Score every option by what it would do here and now; end the phase when nothing is worth it."""
        if "rescue" in keys:
            return "rescue"
        g = state.game
        d = self.dist(state)[state.fg_loc]
        danger = self.killer_locs(state)
        killer_here = state.fg_loc in danger
        minions_here = sum(1 for m in state.minions if m.loc == state.fg_loc)
        weapons = [g.items[h.id].weapon for h in state.held if g.items[h.id].weapon]
        in_reach = killer_here or any(w.range >= 1 and any(d[k] == w.range for k in danger) for w in weapons)
        goal = self.goal(state)
        steps_to_goal = d[goal] if goal != state.fg_loc else 0
        missing = g.fg.health - state.fg_health
        dice = g.dice_by_fear.get(state.fear, 1)
        hunting = self.hunting(state)
        at_pile = state.fg_loc in g.board.pile_of and bool(state.piles[g.board.pile_of[state.fg_loc]])
        reactions = sum(1 for c in state.hand if g.cards[c].kind == "reaction")

        scores: dict[str, float] = {"end": 0.35}
        for k in keys:
            if k.startswith("play:"):
                card = g.cards[k[5:]]
                p = card_profile(card)
                v = 0.0
                v += p["move"] * (1.0 if steps_to_goal else 0.0) * (1.6 if killer_here and self.weak(state) else 1.0)
                v += p["damage"] * (2.5 if in_reach and (hunting or not self.weak(state) or weapons) else 0.0)
                v += p["damage"] * (1.8 if minions_here and not in_reach else 0.0)  # clear the minions around her
                v += p["heal"] * min(missing, 3) * 0.9
                v += p["fear"] * (1.0 if dice <= 2 else 0.25) * (1 if state.fear > g.side.fear_min else 0)
                v += p["search"] * (2.0 if at_pile and len(state.held) + len(state.pack) < 4 else 0.0)
                v += p["time"] * (0.3 if state.time <= 2 else 0.1)
                v -= 0.2 if card.kind == "action" and reactions == 0 and card_profile(card)["prevent"] else 0.0
                scores[k] = v
            elif k.startswith("use:"):
                it = g.items[k[4:]]
                heals = sum(_amount(e.n) for e in _walk(it.use.effects) if type(e) is n.Heal)
                scores[k] = 1.0 * min(missing, heals) + 0.3 if heals else 0.4
            elif k.startswith("action:"):
                free = "(free)" in next(o.label for o in choice.options if o.key == k)
                scores[k] = 0.6 if free else (0.8 if state.time >= 2 else 0.2)
        best = max(scores, key=lambda k: (scores[k], k))
        return best

    def on_move(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        goal = self.goal(state)
        fleeing = self.weak(state) and state.fg_loc in self.killer_locs(state) and not self.hunting(state)
        if goal == state.fg_loc and not fleeing:
            return "stop"
        board = state.game.board
        d = self.dist(state)
        danger = self.killer_locs(state)
        best_key, best_score = "stop", (d[state.fg_loc][goal], 1)
        for k in keys:
            if not k.startswith("move:"):
                continue
            loc = board.index[k[5:]]
            crowd = sum(1 for m in state.minions if m.loc == loc)
            score = (d[loc][goal], (1 if loc in danger and not self.hunting(state) else 0) + crowd)
            if score < best_score:
                best_key, best_score = k, score
        return best_key

    def on_follow(self, state, choice, keys):
        return keys[0]  # the most followers

    def on_rescue(self, state, choice, keys):
        return "rescue"

    def on_check(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """Convert a 3–4 only when it turns a failure into a success and the hand can spare two cards."""
        rerolls = [k for k in keys if k.startswith("reroll:")]
        failing = " 0 success" in choice.prompt
        if failing and rerolls:
            return rerolls[0]
        if "convert" in keys and failing and len(state.hand) >= 5:
            return "convert"
        return "accept"

    def on_convert_discard(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        cards = state.game.cards
        return min(keys, key=lambda k: (card_value(cards[k[8:]]), k))

    def on_buy(self, state: GameState, choice: Choice, keys: list[str]) -> str:
        """Keep a full hand: free basics first, then the best value for the time, never rerolls first."""
        cards = state.game.cards
        if len(state.hand) >= 7:
            return "done"
        counts: dict[str, int] = {}
        for c in state.hand:
            counts[c] = counts.get(c, 0) + 1

        hunting = self.hunting(state)

        def score(k: str) -> float:
            c = cards[k[4:]]
            v = card_value(c) - 0.6 * counts.get(c.id, 0)
            if hunting:  # the fight is all that is left: arm for it
                v += 2.5 * card_profile(c)["damage"]
            if c.kind == "reroll":
                v -= 1.0
            if c.cost == 0:
                v += 0.8
            return v / (1 + 0.35 * c.cost)

        buys = [k for k in keys if k.startswith("buy:") and score(k) > 0.25]
        return max(buys, key=lambda k: (score(k), k)) if buys else "done"

    def on_reaction(self, state, choice, keys):
        reacts = [k for k in keys if k.startswith("react:")]
        return reacts[0] if reacts else "take"

    def on_attack_target(self, state, choice, keys):
        """The killer before minions (its death ends the game), with a weapon when one is in reach."""
        return max(keys, key=lambda k: (k.startswith("killer"), "+" in k, k))

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


BOTS: dict[str, Callable[[int], Policy]] = {
    "random": random_policy,
    "first": lambda seed=0: first_policy,
    "greedy": greedy_policy,
}
