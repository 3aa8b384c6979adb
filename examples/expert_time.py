"""The expert bot's time per decision (interpreter/expert.py, docs/decisions/0024).

Plays ``--games`` games of each killer x scenario pair asked (default: two pairs; ``--all``: every
bundled pair) with the expert at ``--budget`` rollouts, timing every decision it is asked in CPU
seconds (``time.process_time``: what other work on the machine disturbs least), and prints the
median, 95th percentile and largest, over the decisions with more than one option (those it
searches or leaves to greedy) and over all, with CPU seconds per game.

    python examples/expert_time.py --budget 16 --games 5 --seed 500 [--all] [--json]

Numbers read from outside are bounded (--games 1..1000, --budget as the bot's, --seed 0..2^63-1
less the games); progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import api
from lastbreath.interpreter.bots import BOTS, bot_name
from lastbreath.interpreter.replay import MAX_SEED

PAIRS = [("big-bad-wolf", "storybook-woods"), ("zombies", "wolfe-asylum")]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=16, help="the expert's rollouts per decision")
    ap.add_argument("--games", type=int, default=5, help="games per pair (1..1000)")
    ap.add_argument("--seed", type=int, default=500, help="the first game's seed (game i: seed + i)")
    ap.add_argument("--all", action="store_true", help="every bundled killer x scenario pair")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args(argv)
    if not 1 <= a.games <= 1000:
        ap.error("--games must lie within 1..1000")
    if not 0 <= a.seed <= MAX_SEED - a.games:
        ap.error(f"--seed must lie within 0..{MAX_SEED - a.games}")
    try:
        name = bot_name("expert", a.budget)
    except ValueError as e:
        ap.error(str(e))
    rs = load_ruleset(bundled_paths())
    pairs = [(k, s) for k in sorted(rs.killers) for s in sorted(rs.scenarios)] if a.all else PAIRS
    out = []
    for k, s in pairs:
        many: list[float] = []
        every: list[float] = []
        games: list[float] = []
        for i in range(a.games):
            print(f"{k} / {s}: game {i + 1} of {a.games}", file=sys.stderr)
            bot = BOTS[name](a.seed + i)
            state, _ = api.new_game(rs, killer=k, scenario=s, seed=a.seed + i, kinds=frozenset())
            spent = 0.0
            while not state.over:
                t = time.process_time()
                key = bot(state, state.choice)
                dt = time.process_time() - t
                spent += dt
                every.append(dt)
                if len(state.choice.options) > 1:
                    many.append(dt)
                state, _ = api.apply(state, key)
            games.append(spent)
        out.append({"killer": k, "scenario": s, "budget": a.budget, "games": a.games, "decisions": len(every),
                    "with_options": len(many), "median_ms": round(1000 * statistics.median(many), 1),
                    "p95_ms": round(1000 * pct(many, 0.95), 1), "max_ms": round(1000 * max(many), 1),
                    "all_median_ms": round(1000 * statistics.median(every), 2),
                    "cpu_s_per_game": round(statistics.mean(games), 2)})
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        for r in out:
            print(f"{r['killer']} / {r['scenario']}, budget {r['budget']}: {r['with_options']} decisions with options"
                  f" of {r['decisions']}; median {r['median_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms;"
                  f" {r['cpu_s_per_game']} CPU s a game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
