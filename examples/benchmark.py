"""Benchmark: games per second with the random bot, on one core, through the public API.

    python examples/benchmark.py [--games 300] [--killer ID] [--scenario ID]

Times CPU seconds of this process (``time.process_time``), so other work on the machine
disturbs it less than wall-clock time; also reports load time and per-transition cost.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import apply, new_game, random_policy
from lastbreath.interpreter.serialize import to_json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--killer")
    ap.add_argument("--scenario")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    t0 = time.process_time()
    rs = load_ruleset()
    load_s = time.process_time() - t0
    gc.freeze()  # the content lives as long as the process: keep it out of the collector's scans
    new_game(rs, killer=args.killer, scenario=args.scenario, seed=0)  # compile the board once

    per_game: list[float] = []
    transitions = 0
    for seed in range(args.games):
        t = time.process_time()
        state, _ = new_game(rs, killer=args.killer, scenario=args.scenario, seed=seed)
        bot = random_policy(seed)
        while not state.over:
            state, _ = apply(state, bot(state, state.choice))
            transitions += 1
        per_game.append(time.process_time() - t)
    total = sum(per_game)
    # serialization of a mid-game state
    state, _ = new_game(rs, killer=args.killer, scenario=args.scenario, seed=1)
    t = time.process_time()
    for _ in range(200):
        to_json(state)
    ser_ms = (time.process_time() - t) / 200 * 1000
    out = {
        "games": args.games,
        "games_per_second": round(args.games / total, 1),
        "median_game_ms": round(statistics.median(per_game) * 1000, 2),
        "transitions_per_game": round(transitions / args.games, 1),
        "us_per_transition": round(total / transitions * 1e6, 1),
        "load_and_check_ms": round(load_s * 1000, 1),
        "to_json_ms": round(ser_ms, 3),
    }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:>22}: {v}")


if __name__ == "__main__":
    main()
