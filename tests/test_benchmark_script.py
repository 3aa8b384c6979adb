"""examples/benchmark.py --pairs: every bundled killer × scenario pair, with the ratio to the toy
engine when its folder is there (issue #19). Run with tiny numbers: this checks the report, not
the speed (speed is measured by the script itself, never by a timed test)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lastbreath.dsl import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "benchmark.py"


def _module():
    spec = importlib.util.spec_from_file_location("benchmark_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_pairs_cover_every_bundled_killer_and_scenario_without_a_toy(tmp_path, capsys):
    bench = _module()
    rs = load_ruleset()
    out = bench.pairs_report(rs, games=2, rounds=1, toy_dir=tmp_path / "no-toy-here")
    assert out["toy"] is None
    got = {(r["killer"], r["scenario"]) for r in out["pairs"]}
    assert got == {(k, s) for k in rs.killers for s in rs.scenarios}
    assert all(r["games_per_second"] > 0 and "ratio" not in r for r in out["pairs"])
    assert "[1/" in capsys.readouterr().err, "progress goes to stderr, one line a pair"


def test_pairs_give_the_ratio_to_a_toy_engine_in_the_same_run(tmp_path):
    bench = _module()
    toy = tmp_path / "toy"
    toy.mkdir()
    # a stand-in toy whose games cost a known amount of work: the ratio is engine rate / toy rate
    (toy / "engine.py").write_text("PATHS = RNG = EVOLVE = None\n"
                                   "def play_game(seed):\n    return sum(range(20000))\n")
    rs = load_ruleset()
    out = bench.pairs_report(rs, games=2, rounds=1, toy_dir=toy)
    row = out["pairs"][0]
    assert row["ratio"] == pytest.approx(row["games_per_second"] / row["toy_games_per_second"], abs=0.011)


def test_bad_numbers_are_refused_without_a_traceback():
    run = subprocess.run([sys.executable, str(SCRIPT), "--pairs", "--rounds", "0"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--rounds must be" in run.stderr and "Traceback" not in run.stderr


def test_pairs_json_is_one_object(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--pairs", "--games", "1", "--rounds", "1", "--json",
                          "--toy", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["toy"] is None and len(out["pairs"]) >= 9
    assert out["engine"] in ("plain", "compiled")
    if os.environ.get("LASTBREATH_NATIVE") == "off":  # (the suite's default, conftest)
        assert out["engine"] == "plain"
