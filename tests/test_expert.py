"""The expert bot (interpreter/expert.py, docs/decisions/0024): deterministic for a seed and a budget,
blind to what the player cannot see, whole games on every killer at small budgets, its budget on the
command line. No clock: a budget is counted in rollouts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import api
from lastbreath.interpreter.bots import BOTS, Greedy, bot_flags, bot_name
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.expert import DEFAULT_BUDGET, Expert, determinize
from lastbreath.interpreter.simulate import Simulator
from lastbreath.interpreter.state import evolved

PACKS = Path(__file__).resolve().parent / "packs"
HIDDEN = ("terror", "events", "piles", "breath_bag", "fg_breath_value", "killers", "finale", "dark_power", "decks",
          "item_piles", "supply", "tokens_down", "token_on")


@pytest.fixture(scope="module")
def prs():
    """The bundled content with the token and piece packs (face-down tokens, hidden kinds)."""
    return load_ruleset([*bundled_paths(), PACKS / "tokens", PACKS / "pieces"])


def keys_of_game(rs, setup: dict, seed: int, bot: str, limit: int = 3000) -> tuple[list[str], object]:
    policy = BOTS[bot](seed)
    state, _ = api.new_game(rs, seed=seed, **setup)
    keys: list[str] = []
    while not state.over:
        assert len(keys) < limit, "the game did not end"
        key = policy(state, state.choice)
        keys.append(key)
        state, _ = api.apply(state, key)
    return keys, state


# --- a state's hidden parts, permuted as a player could not tell ----------------------------------
def permuted(state, r: random.Random):
    """``state`` with every hidden order shuffled by ``r`` (the decks, the face-down pile items, the
    last-breath values with the bag, the face-down tokens' kinds), a finale and dark power not yet
    revealed swapped for another, and another seed for the generator: what a player sees is the same."""
    def mix(xs):
        xs = list(xs)
        r.shuffle(xs)
        return tuple(xs)
    ch = {"terror": mix(state.terror), "events": mix(state.events), "seed": r.getrandbits(40),
          "decks": tuple((d, mix(c)) for d, c in state.decks),
          "item_piles": tuple((p, mix(c)) for p, c in state.item_piles)}
    down = mix(c for pile in state.piles for c, up in pile if not up)
    it = iter(down)
    ch["piles"] = tuple(tuple((c, up) if up else (next(it), up) for c, up in pile) for pile in state.piles)
    ks = [i for i, k in enumerate(state.killers) if k.breath == 2]
    vals = list(mix([*state.breath_bag, *(state.killers[i].breath_value for i in ks),
                     *([state.fg_breath_value] if state.fg_breath == 2 else [])]))
    if state.fg_breath == 2:
        ch["fg_breath_value"] = vals.pop()
    killers = list(state.killers)
    for i in ks:
        killers[i] = evolved(killers[i], breath_value=vals.pop())
    ch["killers"], ch["breath_bag"] = tuple(killers), tuple(vals)
    plan = state.game.setup_lists
    if not state.finale_revealed:
        ch["finale"] = r.choice(plan[3])
    if not state.dark_revealed and plan[4]:
        ch["dark_power"] = r.choice(plan[4])
    kinds = mix(k for _t, k in state.supply)
    ch["supply"] = tuple((t, k) for (t, _k), k in zip(state.supply, kinds))  # (one token type in the packs used)
    return evolved(state, **ch)


def both_permuted(state, seed: int):
    """The state and its checkpoint permuted alike (at a step's start their hidden parts are the same)."""
    ck = permuted(state.checkpoint, random.Random(seed))
    st = permuted(state, random.Random(seed))
    assert all(getattr(ck, f) == getattr(st, f) for f in HIDDEN)
    return evolved(st, checkpoint=ck)


def mid_game(rs, setup: dict, seed: int, round_at: int = 2):
    """A state of a greedy game at round ``round_at`` or later, at a decision that starts its step with
    more than one option (one the expert searches)."""
    greedy = Greedy()
    state, _ = api.new_game(rs, seed=seed, **setup)
    while not state.over:
        c, ck = state.choice, state.checkpoint
        if (state.round >= round_at and len(c.options) > 2 and not state.answers and ck is not None
                and state.rng == ck.rng and c.kind == "action"):
            return state
        state, _ = api.apply(state, greedy(state, c))
    pytest.skip("the game ended before such a decision")


@pytest.mark.parametrize("setup,seed", [
    ({"killer": "big-bad-wolf", "scenario": "storybook-woods"}, 3),
    ({"killer": "zombies", "scenario": "wolfe-asylum"}, 4),
    ({"killer": "big-bad-wolf", "scenario": "tk-station"}, 5),
])
def test_the_same_choice_whatever_order_the_hidden_parts_are_in(prs, setup, seed):
    state = mid_game(prs, setup, seed)
    one, two = both_permuted(state, 1), both_permuted(state, 2)
    assert one.terror != state.terror or one.events != state.events  # the permutations change something
    assert one.seed != state.seed != two.seed  # and the generator: the future dice are hidden too
    picks = []
    for st in (state, one, two):
        bot = Expert(seed=11, budget=8, rollout=Greedy())
        picks.append(bot(st, st.choice))
        assert bot.searched == 1  # searched, not left to the greedy bot
    assert picks[0] == picks[1] == picks[2]


def test_a_world_depends_on_the_hidden_multisets_only(prs):
    state = mid_game(prs, {"killer": "big-bad-wolf", "scenario": "tk-station"}, 5)
    a = determinize(both_permuted(state, 1).checkpoint, random.Random(9), 77)
    b = determinize(both_permuted(state, 2).checkpoint, random.Random(9), 77)
    assert all(getattr(a, f) == getattr(b, f) for f in (*HIDDEN, "seed"))
    assert a.seed == 77


# --- whole games, determinism, the simulator ------------------------------------------------------
PAIRS = [
    ({"killer": "big-bad-wolf", "scenario": "storybook-woods"}, 2),
    ({"killer": "zombies", "scenario": "wolfe-asylum"}, 3),
    ({"killer": "ratchet-lady", "scenario": "wingard-cottage"}, 4),
    ({"killer": "intruders", "scenario": "uss-konrad"}, 2),
    ({"killer": "evomorph", "scenario": "station-2891"}, 3),
    ({"killer": "big-bad-wolf", "scenario": "tk-station"}, 2),
    ({"killer": "pc-changeling", "scenario": "pc-station"}, 1),
]


@pytest.mark.parametrize("setup,budget", PAIRS, ids=lambda p: p["killer"] if isinstance(p, dict) else str(p))
def test_a_small_budget_plays_a_whole_game(prs, setup, budget):
    keys, state = keys_of_game(prs, setup, 7, bot_name("expert", budget))
    assert state.result in ("fg", "killer")
    assert keys


def test_answers_that_undo_each_other_do_not_go_round(rs):
    """Seed 1004 once moved an item to the pack and back without end (each looked better by the
    rollouts' cap): a decision that comes back is greedy's the second time, and the game ends."""
    _keys, state = keys_of_game(rs, {"killer": "zombies", "scenario": "wolfe-asylum"}, 1004, "expert:16", limit=1000)
    assert state.over


def test_the_same_seed_and_budget_play_the_same_game(rs):
    setup = {"killer": "big-bad-wolf", "scenario": "storybook-woods"}
    first, end = keys_of_game(rs, setup, 21, "expert:3")
    again, _ = keys_of_game(rs, setup, 21, "expert:3")
    assert first == again and end.over


def test_parallel_jobs_give_the_same_records(rs):
    setups = [{"killer": "zombies", "scenario": "wolfe-asylum"}]
    with Simulator(rs, jobs=1) as sim:
        alone = sim.run(setups, 2, 40, "expert:2")
    with Simulator(rs, jobs=2, min_parallel=0) as sim:
        split = sim.run(setups, 2, 40, "expert:2")
    assert alone == split and all(not r.error for r in alone[0])


def test_the_bot_names_carry_the_budget():
    assert "expert" in BOTS and "expert:200" in BOTS and "expert:10000" in BOTS
    assert "expert:0" not in BOTS and "expert:10001" not in BOTS and "greedy:3" not in BOTS
    assert BOTS["expert:7"](1).budget == 7 and BOTS["expert"](1).budget == DEFAULT_BUDGET
    assert bot_name("expert", 5) == "expert:5" and bot_name("greedy") == "greedy"
    for bad in ((("greedy", 5)), ("expert", 0), ("expert", 10_001)):
        with pytest.raises(ValueError):
            bot_name(*bad)


# --- the command line -----------------------------------------------------------------------------
def test_play_simulate_and_fuzz_take_the_expert_and_its_budget(capsys):
    assert main(["play", "--bot", "expert", "--budget", "2", "--seed", "3", "--killer", "zombies",
                 "--scenario", "wolfe-asylum", "--json"]) == 0
    capsys.readouterr()
    assert main(["simulate", "--bot", "expert", "--budget", "1", "--games", "1", "--jobs", "1", "--json",
                 "--killer", "big-bad-wolf", "--scenario", "storybook-woods", "--no-progress"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["bot"] == "expert:1" and got["games"] == 1 and got["errors"] == 0
    assert main(["fuzz", "--bot", "expert", "--budget", "2", "--games", "1", "--jobs", "1", "--json", "--killer",
                 "zombies", "--scenario", "wolfe-asylum", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["bots"] == {"expert:2": 1}


@pytest.mark.parametrize("argv,said", [
    (["play", "--bot", "expert", "--budget", "0"], "within 1..10000"),
    (["simulate", "--bot", "expert", "--budget", "10001"], "within 1..10000"),
    (["simulate", "--bot", "greedy", "--budget", "5"], "for the expert bot, not 'greedy'"),
    (["play", "--budget", "5"], "for the expert bot"),
    (["fuzz", "--budget", "5"], "not 'both'"),
    (["report", "--bot", "expert", "--budget", "-3"], "within 1..10000"),
])
def test_a_budget_out_of_bounds_or_without_the_expert_is_refused(capsys, argv, said):
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_the_api_names_the_expert_and_a_fuzz_report_replays_its_budget():
    assert api.expert_policy(3, 5).budget == 5
    assert bot_flags("expert:5") == "--bot expert --budget 5" and bot_flags("greedy") == "--bot greedy"
