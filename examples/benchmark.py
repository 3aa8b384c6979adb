"""Benchmark: games per second with a bot, in one process and on every core.

    python examples/benchmark.py [--games 300] [--jobs N] [--bot random] [--killer ID] [--scenario ID] [--json]
    python examples/benchmark.py --pairs [--toy DIR] [--rounds 3] [--json]

``--pairs``: for every bundled killer × scenario pair, games per second with the random bot in
one process, and when a rules-free toy engine is given (``--toy DIR``: a folder with its
``engine.py`` and ``play_game``; by default a ``shared/bench/toy`` folder beside the checkout, where
the project's benchmark harness keeps one), its games per second in the same run and the ratio of
the two. Toy and engine rounds alternate and the medians are compared, so that load on the machine
hits both alike.

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
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

from lastbreath.dsl import load_ruleset
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.serialize import to_json
from lastbreath.interpreter.simulate import Simulator, run_games

DEFAULT_TOY = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "toy"
TOY_GAMES = 150  # toy games a round (as ratio.py)
MAX_ROUNDS = 50
MAX_GAMES = 100_000


def load_toy(folder: Path) -> Optional[Callable[[int], Any]]:
    """The toy engine's ``play_game`` set up as ratio.py sets it up, or None if it is not there."""
    if not (folder / "engine.py").is_file():
        return None
    import attrs

    spec = importlib.util.spec_from_file_location(f"toy_engine_{abs(hash(str(folder)))}", folder / "engine.py")
    if spec is None or spec.loader is None:
        return None
    toy = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(folder))  # the toy imports its neighbours (its card language)
    try:
        spec.loader.exec_module(toy)
    finally:
        sys.path.remove(str(folder))
    toy.PATHS, toy.RNG, toy.EVOLVE = "pre", "splitmix", attrs.evolve
    toy.play_game(0)
    return toy.play_game


def pairs_report(rs: Any, games: int, rounds: int, toy_dir: Path) -> dict[str, Any]:
    """Games per second for every bundled killer × scenario pair, and the ratio to the toy."""
    play_toy = load_toy(toy_dir)
    pairs = [(k, s) for k in sorted(rs.killers) for s in sorted(rs.scenarios)]
    rows = []
    for n, (killer, scenario) in enumerate(pairs, 1):
        setup = {"killer": killer, "scenario": scenario}
        run_games(rs, setup, games=5, seed=0, bot="random", jobs=1)  # the board compiled, caches warm
        toy_rates, rates = [], []
        for r in range(rounds):
            if play_toy is not None:
                c = time.process_time()
                for seed in range(TOY_GAMES):
                    play_toy(seed)
                toy_rates.append(TOY_GAMES / (time.process_time() - c))
            c = time.process_time()
            run_games(rs, setup, games=games, seed=r * games, bot="random", jobs=1)
            rates.append(games / (time.process_time() - c))
        row: dict[str, Any] = {"killer": killer, "scenario": scenario,
                               "games_per_second": round(statistics.median(rates), 1)}
        if toy_rates:
            row["toy_games_per_second"] = round(statistics.median(toy_rates), 1)
            row["ratio"] = round(statistics.median(rates) / statistics.median(toy_rates), 2)
        rows.append(row)
        print(f"[{n}/{len(pairs)}] {killer} / {scenario}: {row['games_per_second']} games/s"
              + (f", ratio {row['ratio']}" if "ratio" in row else ""), file=sys.stderr, flush=True)
    return {"games": games, "rounds": rounds, "bot": "random", "toy": str(toy_dir) if play_toy else None,
            "engine": engine_kind(), "pairs": rows}


def engine_kind() -> str:
    """Which engine ran: "compiled" (``lastbreath native build`` for this source) or "plain"."""
    from lastbreath.interpreter import native

    return native.engine_kind()


def print_pairs(out: dict[str, Any]) -> None:
    if out["toy"] is None:
        print("the toy engine was not found (--toy DIR): games per second only, no ratio")
    print(f"engine: {out['engine']} (lastbreath native status)")
    print(f"{'killer':<16} {'scenario':<20} {'games/s':>9} {'toy/s':>7} {'ratio':>6}")
    for row in out["pairs"]:
        print(f"{row['killer']:<16} {row['scenario']:<20} {row['games_per_second']:>9} "
              f"{row.get('toy_games_per_second', '-'):>7} {row.get('ratio', '-'):>6}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="worker processes for the parallel run (default: every core)")
    ap.add_argument("--bot", choices=tuple(BOTS), default="random")
    ap.add_argument("--killer")
    ap.add_argument("--scenario")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--pairs", action="store_true",
                    help="every bundled killer × scenario pair, with the ratio to the toy engine")
    ap.add_argument("--toy", type=Path, default=DEFAULT_TOY,
                    help=f"the toy engine's folder for --pairs (default: {DEFAULT_TOY})")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds for --pairs (median taken)")
    args = ap.parse_args()
    if not 1 <= args.games <= MAX_GAMES:
        ap.error(f"--games must be 1..{MAX_GAMES}")
    if not 1 <= args.rounds <= MAX_ROUNDS:
        ap.error(f"--rounds must be 1..{MAX_ROUNDS}")
    setup = {k: v for k, v in (("killer", args.killer), ("scenario", args.scenario)) if v}
    if args.pairs:
        rs = load_ruleset()
        gc.freeze()
        out = pairs_report(rs, args.games, args.rounds, args.toy)
        if args.json:
            print(json.dumps(out))
        else:
            print_pairs(out)
        return

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
        "engine": engine_kind(),
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.games} games, {args.bot} bot, {out['transitions_per_game']} transitions a game, "
          f"{out['engine']} engine (lastbreath native status)")
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
