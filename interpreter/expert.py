"""The expert bot: determinized Monte Carlo over the options of each decision (docs/decisions/0024).

At a decision with more than one option the expert samples worlds the player cannot tell from the
real one (the information set): every hidden deck and pile order, the face-down items, tokens and
last-breath values, a finale and dark power not yet revealed, and the generator of the dice, all
redrawn by a generator of its own, seeded from the bot's seed and the decision's public facts. In
each world it answers an option and plays on with a rollout policy (the greedy bot) to the end of
the game or a cap of answers, where a heuristic scores the position. The options are compared on
the same worlds (common random numbers) and halved round by round (sequential halving) until the
budget of rollouts per decision is spent; the best mean wins, ties going to the greedy bot's pick.

It never reads what a player could not see: a world is made from the multisets of the hidden
cards (sorted, then shuffled), never from their order, and the game's own seed is replaced, not
read (tests/test_expert.py: the same choice whatever order the hidden decks are in).
"""

from __future__ import annotations

import hashlib
import math
import random as _random
from typing import Callable, Optional

from lastbreath.dsl import RulesError

from .engine import advance, play_out
from .state import Choice, GameState, evolved

Policy = Callable[[GameState, Choice], str]

DEFAULT_BUDGET = 64  # rollouts per decision (docs/decisions/0024: measured)
MIN_BUDGET, MAX_BUDGET = 1, 10_000
DEPTH = 3  # rounds a rollout plays on (to the first decision of the round DEPTH after the decision's)
MAX_ANSWERS = 400  # answers in one rollout, at most (a guard: a round takes about ten)
MAX_STRAYS = 24  # answers unlike greedy's in one phase of a round, at most (a guard against a game going round)
MARGIN = 0.03  # what another option's mean must beat the greedy pick's by, on the same worlds
TRIES = 3  # worlds drawn in turn when one does not reach the same choice (a card drawn in the step)
_QUIET: frozenset[str] = frozenset()  # no events made in the rollouts: nobody reads them


def check_budget(budget: int) -> int:
    """The budget, or ValueError when it lies outside MIN_BUDGET..MAX_BUDGET."""
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ValueError(f"the expert's budget must be a whole number of rollouts within {MIN_BUDGET}..{MAX_BUDGET}"
                         f" (got {budget!r})")
    return budget


# --- the information set ------------------------------------------------------------------------
def _shuffled(r: _random.Random, items) -> tuple:
    out = sorted(items)  # the multiset, whatever order it came in: the order is what is hidden
    r.shuffle(out)
    return tuple(out)


def determinize(state: GameState, r: _random.Random, seed: Optional[int] = None) -> GameState:
    """A copy of ``state`` (a state, or a checkpoint) with everything hidden from the player drawn
    anew by ``r``: the terror and event decks, the content's decks and item piles, the face-down
    items of the search piles (dealt anew among the face-down places of every pile), the face-down
    last-breath values and the bag (drawn anew from all of them), a finale and a dark power not yet
    revealed (from the ones setup draws from), the kinds of face-down tokens (per token type, with
    the supply's), and the generator's seed (``seed``; None keeps it). The result depends on the
    hidden cards' multisets only, never on their order."""
    g = state.game
    ch: dict = {"terror": _shuffled(r, state.terror), "events": _shuffled(r, state.events)}
    if seed is not None:
        ch["seed"] = seed
    if state.decks:
        ch["decks"] = tuple((d, _shuffled(r, cards)) for d, cards in state.decks)
    if state.item_piles:
        ch["item_piles"] = tuple((p, _shuffled(r, cards)) for p, cards in state.item_piles)
    down = [c for pile in state.piles for c, up in pile if not up]
    if down:
        deal = list(_shuffled(r, down))
        ch["piles"] = tuple(tuple((c, True) if up else (deal.pop(), False) for c, up in pile) for pile in state.piles)
    # last-breath tokens: the black ones still face down (C14.2, C17.1) and the bag, drawn anew
    hidden_k = [i for i, k in enumerate(state.killers) if k.breath == 2]
    values = [*state.breath_bag, *(state.killers[i].breath_value for i in hidden_k)]
    if state.fg_breath == 2:
        values.append(state.fg_breath_value)
    if values:
        bag = list(_shuffled(r, values))
        if state.fg_breath == 2:
            ch["fg_breath_value"] = bag.pop()
        if hidden_k:
            ks = list(state.killers)
            for i in hidden_k:
                ks[i] = evolved(ks[i], breath_value=bag.pop())
            ch["killers"] = tuple(ks)
        ch["breath_bag"] = tuple(bag)
    plan = g.setup_lists
    if plan is not None:
        if not state.finale_revealed and state.finale and plan[3]:
            ch["finale"] = r.choice(sorted(plan[3]))
        if not state.dark_revealed and state.dark_power and plan[4]:
            ch["dark_power"] = r.choice(sorted(plan[4]))
    if state.supply or state.tokens_down or any(not up for *_x, up in state.token_on):
        ch.update(_tokens(state, r))
    return evolved(state, **ch)


def _tokens(state: GameState, r: _random.Random) -> dict:
    """The kinds of the face-down tokens (the supply's, the board's, the ones on cards and pieces)
    dealt anew among them, per token type; where each lies and its type stay."""
    pools: dict[str, list[str]] = {}
    for t, k in state.supply:
        pools.setdefault(t, []).append(k)
    for t, k, _at in state.tokens_down:
        pools.setdefault(t, []).append(k)
    for _h, t, k, up in state.token_on:
        if not up:
            pools.setdefault(t, []).append(k)
    deal = {t: list(_shuffled(r, ks)) for t, ks in sorted(pools.items())}
    supply = tuple((t, deal[t].pop()) for t, _k in state.supply)
    down = tuple((t, deal[t].pop(), at) for t, _k, at in state.tokens_down)
    on = tuple((h, t, k, up) if up else (h, t, deal[t].pop(), up) for h, t, k, up in state.token_on)
    out: dict = {"supply": _shuffled(r, supply)} if supply else {}
    if down:
        out["tokens_down"] = down
    if on:
        out["token_on"] = on
    return out


# --- scoring ------------------------------------------------------------------------------------
def _enemy(state: GameState) -> int:
    return (sum(k.health + (1 if k.breath > 0 else 0) for k in state.killers if k.alive)
            + len(state.minions) + state.secondary_health)


def evaluate(state: GameState, root: GameState) -> float:
    """1 for her win, 0 for a loss; a game not over yet, by what changed since the decision: her
    health and last breath, the enemies' health and numbers, victims rescued and dead, bloodlust
    (weights by hand, docs/decisions/0024), kept within 0.05..0.95."""
    if state.result:
        return 1.0 if state.result == "fg" else 0.0
    v = (0.5 + 0.05 * (state.fg_health - root.fg_health) + 0.08 * (state.fg_breath - root.fg_breath)
         - 0.05 * (_enemy(state) - _enemy(root)) + 0.04 * (state.rescued - root.rescued)
         - 0.03 * (state.dead - root.dead) - 0.03 * (state.bloodlust - root.bloodlust))
    return min(0.95, max(0.05, v))


def decision_seed(seed: int, state: GameState, choice: Choice, again: bool = False) -> int:
    """A seed for one decision's worlds: the bot's seed and what the player sees of the decision
    (hashed: the same on every machine and process, unlike ``hash``). ``again``: the facts that say
    the same decision came back in a step (her items instead of the step's answers so far)."""
    facts = (seed, state.round, state.phase, state.sub, (state.held, state.pack) if again else state.answers,
             choice.kind, choice.prompt, tuple(o.key for o in choice.options), state.fg_loc, state.fg_health,
             state.fear, state.time, state.hand, state.victims, tuple((k.loc, k.health) for k in state.killers),
             tuple((m.kind, m.loc) for m in state.minions))
    return int.from_bytes(hashlib.blake2b(repr(facts).encode(), digest_size=8).digest(), "little")


# --- the search ---------------------------------------------------------------------------------
class Expert:
    """Determinized flat Monte Carlo with sequential halving over the root's options; ``rollout``
    answers every decision after the first (the greedy bot), ``budget`` rollouts per decision."""

    def __init__(self, seed: int, budget: int, rollout: Policy, depth: int = DEPTH):
        self.seed = seed
        self.budget = check_budget(budget)
        self.rollout = rollout
        self.depth = depth
        self.searched = self.delegated = 0  # decisions searched, and those left to the rollout policy
        self.strayed: set[int] = set()  # the decisions (public facts) at which it answered unlike greedy
        self.phase: tuple = ()  # (round, phase) and how often it answered unlike greedy in it
        self.strays = 0

    def __call__(self, state: GameState, choice: Choice) -> str:
        keys = [o.key for o in choice.options]
        if len(keys) == 1:
            return keys[0]
        pick = self.rollout(state, choice)
        ck = state.checkpoint
        # a decision after a draw in its step: the engine replays the step from its checkpoint, and a
        # world with another generator would roll those dice again (decision 0024): greedy answers
        if self.budget < 2 or ck is None or state.rng != ck.rng or state.dice != ck.dice:
            self.delegated += 1
            return pick
        cands = [pick, *(k for k in keys if k != pick)][:self.budget]
        got = self.search(state, choice, cands)
        if got is None:
            self.delegated += 1
            return pick
        self.searched += 1
        if got != pick:
            # the same decision again (answers that undo each other, e.g. an item to the pack and back,
            # each looking better by a rollout's cap): greedy's pick this time, so no game goes round;
            # and past MAX_STRAYS answers unlike greedy's in one phase of a round, greedy's for the rest
            here = (state.round, state.phase)
            if here != self.phase:
                self.phase, self.strays = here, 0
            seen = decision_seed(0, state, choice, again=True)
            if seen in self.strayed or self.strays >= MAX_STRAYS:
                return pick
            self.strayed.add(seen)
            self.strays += 1
        return got

    def worlds(self, state: GameState, choice: Choice):
        """Worlds for this decision, one at a time: (checkpoint, answers) that replay to the same
        choice; None when TRIES draws in a row do not (a card drawn in the step, say)."""
        base = decision_seed(self.seed, state, choice)
        ck = state.checkpoint
        assert ck is not None
        want = (choice.kind, choice.prompt, choice.options)
        i = 0
        while True:
            for _ in range(TRIES):
                r = _random.Random(base + 7919 * i)
                i += 1
                world = determinize(ck, r, r.getrandbits(63))
                try:
                    st, _ = advance(world, state.answers, state.events_seen, _QUIET)
                except RulesError:
                    continue
                c = st.choice
                if c is not None and (c.kind, c.prompt, c.options) == want:
                    yield world
                    break
            else:
                yield None
                return

    def play(self, world: GameState, answers: tuple[str, ...], skip: int, key: str, root: GameState) -> float:
        try:
            st, _ = advance(world, answers + (key,), skip, _QUIET)
            # every option scored at the same point of the game (a cap in answers would favour the
            # options that take fewer of them): the first decision of the round DEPTH rounds on
            stop, given = root.round + self.depth, 0
            while not st.result and st.round < stop and given < MAX_ANSWERS:
                st = play_out(st, self.rollout, 1, kinds=_QUIET)
                given += 1
        except RulesError:
            return 0.5
        return evaluate(st, root)

    def search(self, state: GameState, choice: Choice, cands: list[str]) -> Optional[str]:
        sums = dict.fromkeys(cands, 0.0)
        counts = dict.fromkeys(cands, 0)
        order = {k: i for i, k in enumerate(cands)}
        alive = list(cands)
        left = self.budget
        worlds = self.worlds(state, choice)
        while len(alive) > 1:
            rounds = math.ceil(math.log2(len(alive)))
            per = max(1, left // (len(alive) * rounds))
            if per * len(alive) > left:
                break
            for _ in range(per):
                world = next(worlds)
                if world is None:
                    return None
                for k in alive:
                    sums[k] += self.play(world, state.answers, state.events_seen, k, state)
                    counts[k] += 1
                left -= len(alive)
            # the better half goes on, and the greedy pick always (it is what the others must beat)
            others = sorted(alive[1:], key=lambda k: (-sums[k] / counts[k], order[k]))
            alive = [alive[0], *others[:max(1, len(alive) // 2)]] if len(alive) > 2 else alive[:1] + others[:1]
            if len(alive) == 2 and len(others) == 1:
                break
        pick = cands[0]
        if not counts[pick]:
            return None
        # the survivors and the pick were measured on the same worlds: another wins only by MARGIN
        best = min(alive, key=lambda k: (-sums[k] / counts[k], order[k]))
        if best != pick and sums[best] / counts[best] >= sums[pick] / counts[pick] + MARGIN:
            return best
        return pick


def expert_maker(rollout: Callable[[], Policy]) -> Callable[..., Policy]:
    """The expert's maker for bots.BOTS: ``maker(seed, budget=DEFAULT_BUDGET)``."""
    def make(seed: int = 0, budget: int = DEFAULT_BUDGET) -> Policy:
        return Expert(seed, budget, rollout())
    return make
