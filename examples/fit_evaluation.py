"""Fit the expert bot's evaluation of an unfinished game (interpreter/expert.py, docs/decisions/0024).

Plays greedy games on every bundled killer x scenario pair (the Final Girls in turn), takes the
state at the first decision of each round, and fits a logistic regression of "she won this game"
on the features ``expert.features`` reads from a state (generic fields: her health and last
breath, fear, the enemies' health and numbers, victims, bloodlust, the round...). Needs numpy
(the test extra's matplotlib brings it). Prints the weights
to paste into ``expert.WEIGHTS``, and how well they predict on games held out.

    python examples/fit_evaluation.py --games 120 --seed 1 [--json]

Numbers read from outside are bounded (--games 1..5000, --seed 0..2^63-1 less the games); a game
that has not ended after 5000 answers is left out (none has); progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import api
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.engine import play_out
from lastbreath.interpreter.expert import FEATURES, features
from lastbreath.interpreter.replay import MAX_SEED


def samples(rs, killer: str, scenario: str, fg: str, seed: int) -> tuple[list[list[float]], int]:
    """The features at the first decision of each round of one greedy game, and 1 if she won (no
    rows for a game cut off unfinished)."""
    policy = BOTS["greedy"](seed)
    state, _ = api.new_game(rs, killer=killer, scenario=scenario, final_girl=fg, seed=seed, kinds=frozenset())
    rows, last = [], -1
    given = 0
    while not state.result and given < 5000:
        if state.round != last:
            rows.append(features(state))
            last = state.round
        state = play_out(state, policy, 1, kinds=frozenset())
        given += 1
    return (rows if state.result else []), 1 if state.result == "fg" else 0


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 60) -> np.ndarray:
    """Logistic regression by Newton's method (a small ridge keeps it defined); x has a 1s column."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        g = x.T @ (p - y) + l2 * w
        h = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(h, g)
        step *= min(1.0, 5.0 / max(1e-12, float(np.abs(step).max())))  # no step longer than 5 (small samples)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=120, help="games per killer x scenario pair (1..5000)")
    ap.add_argument("--seed", type=int, default=1, help="the first game's seed (game i: seed + i)")
    ap.add_argument("--json", action="store_true", help="print the weights and the fit's quality as JSON")
    a = ap.parse_args(argv)
    if not 1 <= a.games <= 5000:
        ap.error("--games must lie within 1..5000")
    if not 0 <= a.seed <= MAX_SEED - a.games:
        ap.error(f"--seed must lie within 0..{MAX_SEED - a.games}")
    rs = load_ruleset(bundled_paths())
    fgs = sorted(rs.final_girls)
    rows, ys, games = [], [], []
    pairs = [(k, s) for k in sorted(rs.killers) for s in sorted(rs.scenarios)]
    for n, (k, s) in enumerate(pairs):
        print(f"[{n + 1}/{len(pairs)}] {k} / {s}", file=sys.stderr)
        for i in range(a.games):
            got, won = samples(rs, k, s, fgs[i % len(fgs)], a.seed + i)
            rows += got
            ys += [won] * len(got)
            games += [i] * len(got)
    x = np.hstack([np.ones((len(rows), 1)), np.array(rows, dtype=float)])
    y = np.array(ys, dtype=float)
    held = np.array(games) % 5 == 4  # every fifth game held out (none with fewer than five a pair)
    w = fit(x, y)  # the weights kept: all the games
    out = {"samples": len(rows), "win_rate": round(float(y.mean()), 4), "held_out_log_loss": None,
           "base_log_loss": None, "weights": {name: round(float(v), 4) for name, v in zip(("bias", *FEATURES), w)}}
    if held.any() and 0 < y[~held].mean() < 1:
        def loss(ww) -> float:
            p = np.clip(1 / (1 + np.exp(-x[held] @ ww)), 1e-9, 1 - 1e-9)
            return float(-np.mean(y[held] * np.log(p) + (1 - y[held]) * np.log(1 - p)))
        base = float(y[~held].mean())
        flat = np.zeros_like(w)
        flat[0] = math.log(base / (1 - base))
        out["held_out_log_loss"] = round(loss(fit(x[~held], y[~held])), 4)  # fitted without the held-out games
        out["base_log_loss"] = round(loss(flat), 4)  # one rate for every state
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        for key, v in out.items():
            print(f"{key}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
