"""The expert bot (interpreter/expert.py, docs/decisions/0024): deterministic for a seed and a budget,
blind to what the player cannot see, whole games on every killer at small budgets, its budget on the
command line. No clock: a budget is counted in rollouts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import api, visible
from lastbreath.interpreter.bots import BOTS, Greedy, bot_flags, bot_name
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.expert import DEFAULT_BUDGET, GOING_ROUND, Expert, determinize, seen_dice
from lastbreath.interpreter.simulate import Simulator
from lastbreath.interpreter.state import evolved

PACKS = Path(__file__).resolve().parent / "packs"
HIDDEN = tuple(visible.HIDDEN)  # the fields hidden in part (interpreter/visible.py)


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
def permuted(state, r: random.Random, keep_seed: bool = False):
    """``state`` with every hidden order shuffled by ``r`` (the decks, the face-down pile items, the
    last-breath values with the bag, the face-down tokens' kinds), a finale and dark power not yet
    revealed swapped for another, and another seed for the generator: what a player sees is the same."""
    def mix(xs):
        xs = list(xs)
        r.shuffle(xs)
        return tuple(xs)
    ch = {"terror": mix(state.terror), "events": mix(state.events), "seed": state.seed if keep_seed else r.getrandbits(40),
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


def after_a_roll(rs, setup: dict, seed: int, kind: str):
    """A state of a greedy game at a decision of ``kind`` with more than one option, made after dice
    were rolled in its step (the step's checkpoint has drawn less)."""
    greedy = Greedy()
    state, _ = api.new_game(rs, seed=seed, **setup)
    while not state.over:
        c, ck = state.choice, state.checkpoint
        if c.kind == kind and len(c.options) > 1 and ck is not None and state.rng != ck.rng:
            return state
        state, _ = api.apply(state, greedy(state, c))
    raise AssertionError(f"the game (seed {seed}) ended before a {kind} decision after a roll")


def test_a_world_rolls_again_the_dice_she_saw_in_the_step(rs):
    """A fear check's choice (C2.2) names the faces rolled: the dice a world replays are those."""
    state = after_a_roll(rs, {"killer": "zombies", "scenario": "wolfe-asylum"}, 4, "check")
    faces = seen_dice(state, state.checkpoint)
    assert faces and list(faces) == json.loads(state.choice.prompt.split(":")[0].removeprefix("Rolled "))


@pytest.mark.parametrize("setup,seed,kind", [
    ({"killer": "zombies", "scenario": "wolfe-asylum"}, 4, "check"),
    ({"killer": "big-bad-wolf", "scenario": "storybook-woods"}, 3, "move"),
])
def test_a_decision_after_a_roll_is_searched_blind_to_the_hidden_order(prs, setup, seed, kind):
    """The dice of the step are what she saw (the seed kept); every hidden order permuted, the
    expert searches the decision and makes the same choice."""
    state = after_a_roll(prs, setup, seed, kind)
    picks = []
    for i in (0, 1, 2):
        st = state
        if i:
            ck = permuted(state.checkpoint, random.Random(i), keep_seed=True)
            st = evolved(permuted(state, random.Random(i), keep_seed=True), checkpoint=ck)
            assert st.terror != state.terror or st.events != state.events
        bot = Expert(seed=11, budget=8, rollout=Greedy())
        picks.append(bot(st, st.choice))
        assert bot.searched == 1 and bot.delegated == 0
    assert picks[0] == picks[1] == picks[2]


def test_a_world_that_shows_her_something_else_is_dropped(rs):
    """A world whose replay of the step does not show her what she saw is not used: with her
    health changed in the real state alone, no world matches, and greedy answers."""
    state = after_a_roll(rs, {"killer": "big-bad-wolf", "scenario": "storybook-woods"}, 3, "move")
    assert seen_dice(state, state.checkpoint) is not None  # the step's dice are read: the worlds are what fails
    odd = evolved(state, fg_health=state.fg_health - 1)
    bot = Expert(seed=11, budget=8, rollout=Greedy())
    assert bot(odd, odd.choice) == Greedy()(odd, odd.choice)
    assert bot.delegated == 1 and bot.searched == 0


def test_a_step_whose_draws_were_not_all_dice_gives_no_faces(rs):
    """A draw of the step that no die used (a shuffle or a random pick, whose result may be hidden)
    is not read as a die: the step replayed with the faces forced does not come out the same, so the
    decision has no dice to show a world and greedy answers it."""
    state = after_a_roll(rs, {"killer": "zombies", "scenario": "wolfe-asylum"}, 4, "check")
    assert seen_dice(state, state.checkpoint) is not None
    odd = evolved(state, rng=state.rng + 1)  # one draw more than the dice she saw
    assert seen_dice(odd, odd.checkpoint) is None
    bot = Expert(seed=11, budget=8, rollout=Greedy())
    assert bot(odd, odd.choice) == Greedy()(odd, odd.choice) and bot.delegated == 1


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


def test_a_world_the_steps_answers_do_not_fit_is_dropped(rs):
    """Seed 83 of the zombies aboard the Konrad once stopped with a ValueError: in a world whose search
    pile held other items, the step's answer (an item kept from the search she made) reached the
    engine, which trusts a replayed answer. Such a world misfits and is dropped; the game ends."""
    _keys, state = keys_of_game(rs, {"killer": "zombies", "scenario": "uss-konrad", "final_girl": "nell-arden"},
                                83, "expert:16", limit=2000)
    assert state.over


def test_a_game_going_round_is_answered_otherwise_and_ends(rs):
    """Seed 12 of the Organism in the woods once went round for ever: her hand held no move, the
    mutants went back and forth, and she ended every Action phase (greedy's pick too, and the
    rollouts saw nothing better). A situation she has seen before, but for the round, gets another
    answer than before; the game ends."""
    bot = BOTS["expert"](12, 16)
    state, _ = api.new_game(rs, seed=12, killer="organism", scenario="storybook-woods", final_girl="nell-arden")
    for _ in range(3000):
        if state.over:
            break
        state, _ = api.apply(state, bot(state, state.choice))
    assert state.over
    assert bot.unstuck > 0


def test_a_situation_seen_before_gets_the_next_answer(prs):
    state = mid_game(prs, {"killer": "big-bad-wolf", "scenario": "storybook-woods"}, 3)
    keys = [o.key for o in state.choice.options]
    bot = Expert(seed=11, budget=8, rollout=Greedy())
    pick = Greedy()(state, state.choice)
    first = bot(state, state.choice)
    for _ in range(GOING_ROUND - 1):  # met again once or twice: a coincidence, searched as before
        assert bot(state, state.choice) == first
    assert bot.unstuck == 0
    assert bot(state, state.choice) == keys[(keys.index(pick) + 1) % len(keys)]
    assert bot(state, state.choice) == keys[(keys.index(pick) + 2) % len(keys)]
    assert bot.unstuck == 2
    later = evolved(state, round=state.round + 5)  # the round is not part of what she compares
    assert bot(later, later.choice) == keys[(keys.index(pick) + 3) % len(keys)]
    moved = evolved(state, fear=state.fear + 1)  # anything else is
    bot(moved, moved.choice)
    assert bot.unstuck == 3


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


# --- the evaluation at the depth cap, and the rule for leaving greedy's pick -----------------------
def test_the_evaluation_reads_what_the_rules_make_of_each_feature(rs):
    """A finished game scores 1 or 0; an unfinished one rises with her health and last breath and a
    revealed finale, and falls with the enemies' health, minions, dead victims and bloodlust (the
    signs of the fitted WEIGHTS, examples/fit_evaluation.py)."""
    from lastbreath.interpreter.expert import FEATURES, WEIGHTS, evaluate, features
    state, _ = api.new_game(rs, killer="big-bad-wolf", scenario="storybook-woods", seed=3)
    assert len(features(state)) == len(FEATURES) and set(WEIGHTS) == {"bias", *FEATURES}
    assert evaluate(evolved(state, result="fg"), state) == 1.0
    assert evaluate(evolved(state, result="killer"), state) == 0.0
    v = evaluate(state, state)
    assert 0.0 < v < 1.0
    k = state.killers[0]
    assert evaluate(evolved(state, fg_health=state.fg_health - 2), state) < v
    assert evaluate(evolved(state, killers=(evolved(k, health=k.health - 2), *state.killers[1:])), state) > v
    assert evaluate(evolved(state, dead=state.dead + 2), state) < v
    assert evaluate(evolved(state, bloodlust=state.bloodlust + 1), state) < v
    assert evaluate(evolved(state, finale_revealed=True), state) > v


class _Scripted(Expert):
    """An expert whose worlds are numbers and whose rollouts score by a table: the search's rule alone."""

    def __init__(self, scores):
        super().__init__(seed=0, budget=64, rollout=Greedy())
        self.scores = scores

    def worlds(self, state, choice, seen=()):
        yield from range(10_000)

    def play(self, world, answers, skip, key, root):
        return self.scores[key](world)


@pytest.mark.parametrize("scores,want", [
    # another option ahead on every world by 0.1: it is taken
    ({"a": lambda i: 0.4, "b": lambda i: 0.5}, "b"),
    # ahead by 0.02 on average, but by +0.5 or -0.46 world by world: noise, greedy's pick stays
    ({"a": lambda i: 0.4, "b": lambda i: 0.9 if i % 2 else -0.06}, "a"),
    # behind: greedy's pick stays
    ({"a": lambda i: 0.5, "b": lambda i: 0.4}, "a"),
    # ahead by less than MARGIN on every world: greedy's pick stays
    ({"a": lambda i: 0.5, "b": lambda i: 0.505}, "a"),
])
def test_another_option_is_taken_only_when_its_lead_is_clear_world_by_world(scores, want):
    state = type("S", (), {"answers": (), "events_seen": 0})()
    assert _Scripted(scores).search(state, None, ["a", "b"]) == want


def test_the_fitting_script_runs_and_names_every_feature(capsys):
    """examples/fit_evaluation.py, as documented (one game a pair): the weights it prints are the
    features expert.WEIGHTS holds."""
    import importlib.util

    from lastbreath.interpreter.expert import WEIGHTS
    pytest.importorskip("numpy")  # the test extra's matplotlib brings it
    path = Path(__file__).resolve().parent.parent / "examples" / "fit_evaluation.py"
    spec = importlib.util.spec_from_file_location("fit_evaluation", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--games", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert set(got["weights"]) == set(WEIGHTS) and got["samples"] > 0
    for bad in (["--games", "0"], ["--seed", "-1"]):
        with pytest.raises(SystemExit):
            mod.main(bad)


def test_the_timing_script_times_every_decision(capsys):
    """examples/expert_time.py, as documented (one game a pair, a budget of 2): one figure a pair,
    as many decisions as the game asked, and a budget out of bounds refused."""
    import importlib.util
    path = Path(__file__).resolve().parent.parent / "examples" / "expert_time.py"
    spec = importlib.util.spec_from_file_location("expert_time", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--games", "1", "--budget", "2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(r["killer"], r["scenario"]) for r in got] == mod.PAIRS
    assert all(r["decisions"] > 0 and r["with_options"] > 0 and r["cpu_s_per_game"] > 0 for r in got)
    for bad in (["--budget", "0"], ["--games", "1001"], ["--seed", "-1"]):
        with pytest.raises(SystemExit):
            mod.main(bad)
