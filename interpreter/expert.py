"""The expert bot: determinized Monte Carlo over the options of each decision (docs/decisions/0024).

At a decision with more than one option the expert samples worlds the player cannot tell from the
real one (the information set): every hidden deck and pile order, the face-down items, tokens and
last-breath values, a finale and dark power not yet revealed, and the generator of the dice, all
redrawn by a generator of its own, seeded from the bot's seed and the decision's public facts. A
world replays the decision's step with the dice the player saw rolled in it, and is kept only if
it comes to the same choice and shows her what she sees (``public``). In each world it answers an
option and plays on with a rollout policy (the greedy bot) to the first decision of the next round
(DEPTH), where an evaluation fitted to greedy games (WEIGHTS) gives her chance of a win. The
options are compared on the same worlds (common random numbers) and halved round by round
(sequential halving) until the budget of rollouts per decision is spent; another option than the
greedy bot's pick wins only by a lead clear of the noise, world by world (MARGIN, Z).

It never reads what a player could not see: a world is made from the multisets of the hidden
cards (sorted, then shuffled), never from their order, and the game's own generator is replaced;
of its draws, only those already made in the decision's step are read, as the dice she saw
(``seen_dice``) (tests/test_expert.py: the same choice whatever order the hidden decks are in).
"""

from __future__ import annotations

import hashlib
import math
import random as _random
from typing import Callable, Optional

from lastbreath.dsl import RulesError

from . import rng
from .engine import advance, play_out
from .state import Choice, GameState, evolved
from .visible import VIEWED, hidden_kind, seen

Policy = Callable[[GameState, Choice], str]

DEFAULT_BUDGET = 16  # rollouts per decision (docs/decisions/0024: measured)
MIN_BUDGET, MAX_BUDGET = 1, 10_000
DEPTH = 1  # rounds a rollout plays on (to the first decision of the round DEPTH after the decision's)
MAX_ANSWERS = 400  # answers in one rollout, at most (a guard: a round takes about ten)
MAX_STRAYS = 24  # answers unlike greedy's in one phase of a round, at most (a guard against a game going round)
MARGIN = 0.01  # what another option's mean must beat the greedy pick's by, on the same worlds
Z = 1.5  # and by how many standard errors of the difference (the options' scores world by world)
MAX_SEEN = 64  # draws made in a step before a decision, at most, for the decision to be searched
GOING_ROUND = 3  # a situation met this often before (but for the round): the game is going round (situation())
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
    the supply's), the hidden kinds of victims not yet revealed (among them), and the generator's
    seed (``seed``; None keeps it). The result depends on the hidden cards' multisets only, never on
    their order (visible.HIDDEN lists what is hidden)."""
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
    hid = [i for i, m in enumerate(state.marked) if hidden_kind(state, m)]
    if len(hid) > 1:  # victims of hidden kinds not yet revealed (K2.1): their kinds dealt anew among them
        kinds = list(_shuffled(r, [state.marked[i].kind for i in hid]))
        marked = list(state.marked)
        for i in hid:
            marked[i] = evolved(marked[i], kind=kinds.pop())
        ch["marked"] = tuple(marked)
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
FEATURES = ("health", "health_low", "breath", "fear", "killer_health", "killer_breath", "minions", "secondary",
            "victims", "dead", "rescued", "bloodlust", "round", "finale", "items", "hand")


def features(state: GameState) -> list[float]:
    """What the evaluation reads of a state, in FEATURES' order: plain fields every game has."""
    alive = [k for k in state.killers if k.alive]
    return [state.fg_health, max(0, 3 - state.fg_health), state.fg_breath, state.fear,
            sum(k.health for k in alive), sum(1 for k in alive if k.breath > 0), len(state.minions),
            state.secondary_health, len(state.victims), state.dead, state.rescued, state.bloodlust, state.round,
            1 if state.finale_revealed else 0, len(state.held) + len(state.pack), len(state.hand)]


# fitted by `python examples/fit_evaluation.py --games 300 --seed 1` (logistic regression of her win on
# FEATURES at each round's first decision, 300 greedy games on each bundled killer x scenario pair, the
# Final Girls in turn; docs/decisions/0024)
WEIGHTS = {"bias": -2.0598, "health": 0.0645, "health_low": -0.3524, "breath": 0.8451, "fear": -0.1792,
           "killer_health": -0.1897, "killer_breath": 0.3985, "minions": -0.5061, "secondary": -0.2761,
           "victims": 0.0392, "dead": -0.1421, "rescued": 0.05, "bloodlust": -0.2396, "round": 0.0348,
           "finale": 0.8925, "items": -0.0021, "hand": 0.0932}
_W = tuple(WEIGHTS[f] for f in FEATURES)


def evaluate(state: GameState, root: GameState) -> float:
    """1 for her win, 0 for a loss; a game not over yet, the chance of her win that WEIGHTS
    give its FEATURES (``root``, the decision's state, is not read: kept for other evaluations)."""
    if state.result:
        return 1.0 if state.result == "fg" else 0.0
    z = WEIGHTS["bias"] + sum(w * x for w, x in zip(_W, features(state)))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def decision_seed(seed: int, state: GameState, choice: Choice, again: bool = False) -> int:
    """A seed for one decision's worlds: the bot's seed and what the player sees of the decision
    (hashed: the same on every machine and process, unlike ``hash``). ``again``: the facts that say
    the same decision came back in a step (her items instead of the step's answers so far)."""
    facts = (seed, state.round, state.phase, state.sub, (state.held, state.pack) if again else state.answers,
             choice.kind, choice.prompt, tuple(o.key for o in choice.options), state.fg_loc, state.fg_health,
             state.fear, state.time, state.hand, state.victims, tuple((k.loc, k.health) for k in state.killers),
             tuple((m.kind, m.loc) for m in state.minions))
    return int.from_bytes(hashlib.blake2b(repr(facts).encode(), digest_size=8).digest(), "little")


def seen_dice(state: GameState, ck: GameState) -> Optional[tuple[int, ...]]:
    """The dice a world's replay of the step shows before this decision: the forced faces the step
    used, the faces she saw rolled in it, then the forced faces left; None when the step made a draw
    that was not a die (a shuffle, a random pick: its result may be hidden), made more than MAX_SEEN,
    or used forced faces out of their order.

    The step's draws are read as dice, then the step is replayed from its own checkpoint with those
    faces forced: it draws nothing of its own and comes to the same choice only if every draw of
    the step was a die (at the first draw that was not, the replay, the same until then, draws).
    What a world keeps of the real generator is thus only the dice she saw."""
    if state.rng == ck.rng:
        return ck.dice if state.dice == ck.dice else None
    used = len(ck.dice) - len(state.dice)
    if used < 0 or ck.dice[used:] != state.dice or state.rng - ck.rng > MAX_SEEN:
        return None
    faces = (*ck.dice[:used], *(rng.draw(state.seed, c, 6) + 1 for c in range(ck.rng, state.rng)), *state.dice)
    try:
        st, _ = advance(evolved(ck, dice=faces), state.answers, state.events_seen, _QUIET)
    except RulesError:
        return None
    if st.rng != ck.rng or st.dice != state.dice or st.choice != state.choice:
        return None
    return faces


def public(state: GameState) -> tuple:
    """What the player sees of a state, which a world must show alike: every field of the state but
    the replay's bookkeeping, with the hidden orders and faces counted or blanked (visible.py, the
    account serve.public_state shows a client too)."""
    return tuple(seen(state, name) for name in VIEWED)


_SITUATION = tuple(name for name in VIEWED if name != "round")


def situation(state: GameState, choice: Choice) -> tuple:
    """What the player sees at a decision, but the round: the same at two decisions of a game only
    when the game has come back to where it was (her, the enemies, the cards and decks alike)."""
    return (tuple(seen(state, name) for name in _SITUATION), choice.kind, choice.prompt, choice.options)


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
        self.situations: dict[tuple, int] = {}  # what she saw at each decision, but the round: how often
        self.unstuck = 0  # decisions answered otherwise because the game was going round (situation())

    def __call__(self, state: GameState, choice: Choice) -> str:
        keys = [o.key for o in choice.options]
        if len(keys) == 1:
            return keys[0]
        pick = self.rollout(state, choice)
        sig = situation(state, choice)
        again = self.situations.get(sig, 0)
        self.situations[sig] = again + 1
        if again >= GOING_ROUND:
            # all she sees is as it was at GOING_ROUND earlier decisions of the game but for the round:
            # the game is going round (nothing she or the rollouts do changes it, a stall no game may
            # end in), so each time an answer other than the last, in the options' order
            self.unstuck += 1
            return keys[(keys.index(pick) + again - GOING_ROUND + 1) % len(keys)]
        ck = state.checkpoint
        dice = None if ck is None or self.budget < 2 else seen_dice(state, ck)
        if dice is None:
            self.delegated += 1
            return pick
        cands = [pick, *(k for k in keys if k != pick)][:self.budget]
        got = self.search(state, choice, cands, dice)
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

    def worlds(self, state: GameState, choice: Choice, seen: tuple[int, ...] = ()):
        """Worlds for this decision, one at a time: checkpoints that, with the step's answers and the
        dice ``seen`` in the step so far, replay to the same choice and show the player what she
        sees (``public``); None when TRIES draws in a row do not (a card drawn in the step, say)."""
        base = decision_seed(self.seed, state, choice)
        ck = state.checkpoint
        assert ck is not None
        want = (choice.kind, choice.prompt, choice.options)
        shown = public(state)
        i = 0
        while True:
            for _ in range(TRIES):
                r = _random.Random(base + 7919 * i)
                i += 1
                world = determinize(ck, r, r.getrandbits(63))
                if seen != world.dice:
                    world = evolved(world, dice=seen)
                try:
                    st, _ = advance(world, state.answers, state.events_seen, _QUIET)
                except Exception:
                    # the step's answers replayed in a world they were not given in: the engine trusts
                    # a replayed answer (engine/asking.py), so one the world never offered (an item
                    # kept from a search that found others there) may fail anywhere: the world misfits
                    continue
                c = st.choice
                if (c is not None and (c.kind, c.prompt, c.options) == want and st.dice == state.dice
                        and st.rng == world.rng and public(st) == shown):
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

    def search(self, state: GameState, choice: Choice, cands: list[str], seen: tuple[int, ...] = ()) -> Optional[str]:
        vals: dict[str, list[float]] = {k: [] for k in cands}  # each option's scores, world by world
        order = {k: i for i, k in enumerate(cands)}
        alive = list(cands)
        left = self.budget
        worlds = self.worlds(state, choice, seen)
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
                    vals[k].append(self.play(world, state.answers, state.events_seen, k, state))
                left -= len(alive)
            # the better half goes on, and the greedy pick always (it is what the others must beat)
            others = sorted(alive[1:], key=lambda k: (-sum(vals[k]) / len(vals[k]), order[k]))
            alive = [alive[0], *others[:max(1, len(alive) // 2)]] if len(alive) > 2 else alive[:1] + others[:1]
            if len(alive) == 2 and len(others) == 1:
                break
        pick = cands[0]
        if not vals[pick]:
            return None
        # the survivors were scored on every world the pick was (common worlds): another wins only when
        # its lead over the pick, world by world, is MARGIN or more and Z standard errors from nothing
        best = min(alive, key=lambda k: (-sum(vals[k]) / len(vals[k]), order[k]))
        if best == pick:
            return pick
        d = [b - p for b, p in zip(vals[best], vals[pick])]
        n = len(d)
        mean = sum(d) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
        if mean >= MARGIN and (n > 1 and mean * math.sqrt(n) >= Z * sd):
            return best
        return pick


def expert_maker(rollout: Callable[[], Policy]) -> Callable[..., Policy]:
    """The expert's maker for bots.BOTS: ``maker(seed, budget=DEFAULT_BUDGET)``."""
    def make(seed: int = 0, budget: int = DEFAULT_BUDGET) -> Policy:
        return Expert(seed, budget, rollout())
    return make
