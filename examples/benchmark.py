"""Benchmark: games per second with a bot, in one process and on every core.

    python examples/benchmark.py [--games 300] [--jobs N] [--bot random] [--killer ID] [--scenario ID] [--json]

One process: the games played in this process; its CPU seconds (``time.process_time``) give the
figures that other work on the machine disturbs least, and its wall time the base of the speed-up.
All cores: the same games on ``--jobs`` worker processes (default: every core) through
``lastbreath.interpreter.simulate``, timed on the wall clock after the workers have started and
loaded the content; the records are checked to equal the one-process run. Per-game and
per-transition times of the parallel run are wall time divided by games (transitions), i.e. the
cost seen by the whole machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.serialize import to_json
from lastbreath.interpreter.simulate import Simulator


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="worker processes for the parallel run (default: every core)")
    ap.add_argument("--bot", choices=tuple(BOTS), default="random")
    ap.add_argument("--killer")
    ap.add_argument("--scenario")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    setup = {k: v for k, v in (("killer", args.killer), ("scenario", args.scenario)) if v}

    t0 = time.process_time()
    rs = load_ruleset()
    load_s = time.process_time() - t0
    gc.freeze()  # the content lives as long as the process: keep it out of the collector's scans
    new_game(rs, seed=0, **setup)  # compile the board once

    # one process
    with Simulator(rs, jobs=1) as sim:
        c0, w0 = time.process_time(), time.perf_counter()
        one = sim.run([setup], args.games, 0, args.bot)[0]
        cpu1, wall1 = time.process_time() - c0, time.perf_counter() - w0
    transitions = sum(r.transitions for r in one)

    # every core: workers started and warm before the clock starts
    with Simulator(rs, jobs=args.jobs, min_parallel=0) as sim:
        sim.warm([setup])  # every worker has loaded the content and compiled the board
        w0 = time.perf_counter()
        many = sim.run([setup], args.games, 0, args.bot)[0]
        wall_n = time.perf_counter() - w0
    same = many == one

    # serialization of a mid-game state
    state, _ = new_game(rs, seed=1, **setup)
    t = time.process_time()
    for _ in range(200):
        to_json(state)
    ser_ms = (time.process_time() - t) / 200 * 1000

    out = {
        "games": args.games,
        "bot": args.bot,
        "transitions_per_game": round(transitions / args.games, 1),
        "one_process": {
            "games_per_second": round(args.games / cpu1, 1),
            "ms_per_game": round(cpu1 / args.games * 1000, 3),
            "median_game_ms": round(statistics.median(r.seconds for r in one) * 1000, 2),
            "us_per_transition": round(cpu1 / transitions * 1e6, 1),
            "wall_games_per_second": round(args.games / wall1, 1),
        },
        "all_cores": {
            "jobs": args.jobs,
            "games_per_second": round(args.games / wall_n, 1),
            "ms_per_game": round(wall_n / args.games * 1000, 3),
            "us_per_transition": round(wall_n / transitions * 1e6, 1),
            "speed_up": round(wall1 / wall_n, 2),
            "same_results": same,
        },
        "load_and_check_ms": round(load_s * 1000, 1),
        "to_json_ms": round(ser_ms, 3),
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.games} games, {args.bot} bot, {out['transitions_per_game']} transitions a game")
    for title, key in (("one process (CPU time)", "one_process"), (f"{args.jobs} processes (wall time)", "all_cores")):
        part = out[key]
        print(f"{title}:")
        print(f"  {part['games_per_second']:>10} games/s  {part['ms_per_game']:>8} ms/game  "
              f"{part['us_per_transition']:>7} µs/transition")
    print(f"speed-up: x{out['all_cores']['speed_up']} (wall time, {args.jobs} processes vs one)"
          f"{'' if same else '  RESULTS DIFFER'}")
    print(f"load and check the content: {out['load_and_check_ms']} ms · to_json: {out['to_json_ms']} ms")


if __name__ == "__main__":
    main()
