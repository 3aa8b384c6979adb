"""Before and after: the same games on two versions of a content pack (``lastbreath compare``).

    a = load_rules(["pack-v1"]); b = load_rules(["pack-v2"])
    out = compare(a, b, setups, games=200, seed=0, bot="greedy", content_a=["pack-v1"], content_b=["pack-v2"])
    out["pairs"][0]["change"], out["pairs"][0]["p_value"]

Both versions play the same setups with the same seeds and the same bot (game i: seed S+i), so a
difference is the content's, not the dice's alone. For each pair, the Final Girl's win rate on A
and on B and a **two-proportion z-test** of the difference (two-sided, the pooled proportion's
standard error; ``z_test``, pure Python: the p-value is ``erfc(|z| / √2)``). The test treats the
two runs as independent samples, which errs on the careful side: the shared seeds only make the
runs more alike where the content is alike.

Reach: with engine coverage on (interpreter/coverage.py), every coverable line of the content
(effect lines, branches, triggers, replacements, outcomes) gets the share of games that resolved
it, on A and on B, tested in the same way. A line is matched across the versions by its file
(relative to its pack, or to the bundled content), its declaration, its kind, its words and its
rank among equals, not by its line number: a line moved by an edit is the same line. Lines only in
A are 'removed', only in B 'added'.
"""

from __future__ import annotations

import math
import os
import subprocess
import tarfile
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from lastbreath.dsl import bundled_paths
from lastbreath.dsl.ruleset import Ruleset

from .coverage import Item, coverable
from .simulate import GameRecord, Simulator, wilson

ALPHA = 0.05  # a change is called significant below this p-value


class CompareError(Exception):
    """Bad input for a comparison (a revision git does not know, a path that is not a pack)."""


# --- the statistics -------------------------------------------------------------------------------
def z_test(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p-value) of the difference of two proportions k1/n1 and k2/n2, with the pooled
    proportion's standard error; (0, 1) when either sample is empty or the pooled proportion is 0 or 1
    (no variance: nothing to tell apart). z > 0: the second proportion is the larger."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0
    pooled = (k1 + k2) / (n1 + n2)
    var = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if var <= 0:
        return 0.0, 1.0
    z = (k2 / n2 - k1 / n1) / math.sqrt(var)
    return z, math.erfc(abs(z) / math.sqrt(2))


# --- lines across versions ------------------------------------------------------------------------
def _roots(content: Sequence) -> list[tuple[str, str]]:
    """(root folder, the name a line's file is shown under) of the content paths, then the bundled ones."""
    out = []
    for p in content:
        path = Path(p).resolve()
        out.append((str(path.parent if path.is_file() else path), "pack"))
    for p in bundled_paths():
        out.append((str(Path(p).resolve().parent), ""))
    return out


def shown_path(path: str, roots: Sequence[tuple[str, str]]) -> str:
    """A content file as the same name in both versions: ``pack/FILE`` for the pack's own files,
    ``killers/x.fg`` for bundled ones."""
    real = str(Path(path).resolve())
    for root, name in roots:
        if real.startswith(root.rstrip(os.sep) + os.sep):
            rel = os.path.relpath(real, root).replace(os.sep, "/")
            return f"{name}/{rel}" if name else rel
    return real


def _span_text(sp) -> str:
    return f"{sp.path}:{sp.line}:{sp.col}"


def keyed_items(rs: Ruleset, setups: Sequence[Mapping], content: Sequence) -> dict[tuple, Item]:
    """The coverable items of the setups' content, by a key that survives an edit elsewhere:
    (file, declaration, kind, words, rank among items with the same four)."""
    ks = sorted({s["killer"] for s in setups})
    ss = sorted({s["scenario"] for s in setups})
    fs = sorted({s["final_girl"] for s in setups})
    roots = _roots(content)
    seen: Counter = Counter()
    out: dict[tuple, Item] = {}
    for it in coverable(rs, ks, ss, fs):
        base = (shown_path(it.span.path, roots), it.where, it.kind, it.label)
        seen[base] += 1
        out[(*base, seen[base])] = it
    return out


def reach(items: Mapping[tuple, Item], records: Sequence[GameRecord]) -> dict[tuple, int]:
    """Per item key, the games (of ``records``, finished or not) whose resolved spans hold its key span."""
    counts: Counter = Counter()
    for r in records:
        counts.update(r.reached)
    return {key: counts.get(_span_text(it.key), 0) for key, it in items.items()}


# --- a pack at a git revision ---------------------------------------------------------------------
def checkout(path: str, rev: str, into: str) -> str:
    """The pack ``path`` (a folder or a .fg file inside a git work tree) as it was at ``rev``,
    written under the folder ``into`` (``git archive``); returns its path there."""
    src = Path(path).resolve()
    where = src if src.is_dir() else src.parent
    try:
        top = subprocess.run(["git", "-C", str(where), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except FileNotFoundError as err:
        raise CompareError("--rev needs git, which is not installed") from err
    except subprocess.CalledProcessError as err:
        raise CompareError(f"'{path}' is not inside a git work tree: {err.stderr.strip()}") from err
    rel = os.path.relpath(src, top).replace(os.sep, "/")
    dest = Path(into) / rev.replace("/", "_")
    dest.mkdir(parents=True, exist_ok=True)
    tar_path = dest / "pack.tar"
    with open(tar_path, "wb") as out:
        got = subprocess.run(["git", "-C", top, "archive", "--format=tar", rev, "--", rel], stdout=out,
                             stderr=subprocess.PIPE, text=False)
    if got.returncode != 0:
        raise CompareError(f"git cannot give '{rel}' at revision '{rev}': "
                           f"{got.stderr.decode('utf-8', 'replace').strip()}")
    with tarfile.open(tar_path) as tar:
        tar.extractall(dest / "tree", filter="data")
    tar_path.unlink()
    return str(dest / "tree" / rel)


def temp_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="lastbreath-compare-")


# --- the comparison -------------------------------------------------------------------------------
def _pair_row(setup: Mapping, a: Sequence[GameRecord], b: Sequence[GameRecord], alpha: float) -> dict:
    fa = [r for r in a if not r.error]
    fb = [r for r in b if not r.error]
    wa, wb = sum(r.result == "fg" for r in fa), sum(r.result == "fg" for r in fb)
    ra = wa / len(fa) if fa else 0.0
    rb = wb / len(fb) if fb else 0.0
    z, p = z_test(wa, len(fa), wb, len(fb))
    direction = "same" if p >= alpha else ("easier" if rb > ra else "harder")

    def mean(recs: Sequence[GameRecord]) -> float:
        return round(sum(r.rounds for r in recs) / len(recs), 3) if recs else 0.0

    return {"killer": setup["killer"], "scenario": setup["scenario"], "final_girl": setup["final_girl"],
            "a": {"games": len(a), "finished": len(fa), "wins": wa, "win_rate": round(ra, 4),
                  "win_rate_ci": [round(x, 4) for x in wilson(wa, len(fa))], "mean_rounds": mean(fa),
                  "errors": len(a) - len(fa)},
            "b": {"games": len(b), "finished": len(fb), "wins": wb, "win_rate": round(rb, 4),
                  "win_rate_ci": [round(x, 4) for x in wilson(wb, len(fb))], "mean_rounds": mean(fb),
                  "errors": len(b) - len(fb)},
            "change": round(rb - ra, 4), "z": round(z, 3), "p_value": round(p, 6),
            "significant": p < alpha, "direction": direction}


def compare(rs_a: Ruleset, rs_b: Ruleset, setups: Sequence[Mapping], games: int, seed: int, bot: str, *,
            content_a: Sequence = (), content_b: Sequence = (), jobs: Optional[int] = 1,
            max_choices: int = 20_000, alpha: float = ALPHA,
            progress: Optional[Callable[[str, list[GameRecord]], None]] = None) -> dict:
    """Play ``games`` games of each setup on A and on B (the same seeds, the same bot) and compare:
    each pair's win rate with its z-test, and the content lines whose reach changed."""
    runs = []
    for name, rs, content in (("A", rs_a, content_a), ("B", rs_b, content_b)):
        tell = (lambda recs, _n=name: progress(_n, recs)) if progress is not None else None
        with Simulator(rs, jobs, content) as sim:
            runs.append(sim.run(setups, games, seed, bot, max_choices, tell, detail=True, reach=True))
    rec_a, rec_b = runs
    pairs = [_pair_row(s, a, b, alpha) for s, a, b in zip(setups, rec_a, rec_b)]
    all_a = [r for recs in rec_a for r in recs]
    all_b = [r for recs in rec_b for r in recs]
    total = _pair_row({"killer": "", "scenario": "", "final_girl": ""}, all_a, all_b, alpha)
    items_a = keyed_items(rs_a, setups, content_a)
    items_b = keyed_items(rs_b, setups, content_b)
    got_a, got_b = reach(items_a, all_a), reach(items_b, all_b)
    na, nb = len(all_a), len(all_b)
    lines = []
    for key in sorted(set(items_a) | set(items_b)):
        ia, ib = items_a.get(key), items_b.get(key)
        ka, kb = got_a.get(key, 0), got_b.get(key, 0)
        if ia is not None and ib is not None:
            z, p = z_test(ka, na, kb, nb)
            if p >= alpha:
                continue
            change = "more" if kb / nb > ka / na else "less"
        elif ia is not None:
            change, z, p = "removed", 0.0, 0.0
        else:
            change, z, p = "added", 0.0, 0.0
        it = ib if ib is not None else ia
        assert it is not None
        lines.append({"file": key[0], "where": key[1], "kind": key[2], "label": key[3],
                      "line_a": ia.span.line if ia is not None else None,
                      "line_b": ib.span.line if ib is not None else None,
                      "reach_a": round(ka / na, 4) if na and ia is not None else None,
                      "reach_b": round(kb / nb, 4) if nb and ib is not None else None,
                      "change": change, "z": round(z, 3), "p_value": round(p, 6)})
    order = {"added": 2, "removed": 2, "more": 0, "less": 0}
    lines.sort(key=lambda d: (order[d["change"]], -abs((d["reach_b"] or 0) - (d["reach_a"] or 0)), d["file"],
                              d["line_b"] or d["line_a"] or 0))
    return {"games": games, "seed": seed, "bot": bot, "alpha": alpha, "test": "two-proportion z-test, two-sided",
            "pairs": pairs, "total": total, "lines": lines}


def _pct(x: Optional[float]) -> str:
    return "—" if x is None else f"{x * 100:.1f}%"


def format_compare(data: Mapping, name_a: str, name_b: str, top: int = 30) -> list[str]:
    """The comparison as text lines: a row per pair, then the lines whose reach changed."""
    last = data["seed"] + data["games"] - 1
    out = [f"{data['games']} games per pair, {data['bot']} bot, seeds {data['seed']}..{last}: "
           f"A = {name_a}, B = {name_b}",
           f"win rate change per pair ({data['test']}; significant: p < {data['alpha']})", ""]
    rows = [("final girl", "killer", "scenario", "A", "B", "change", "p", "")]
    for p in data["pairs"]:
        rows.append((p["final_girl"], p["killer"], p["scenario"], _pct(p["a"]["win_rate"]), _pct(p["b"]["win_rate"]),
                     f"{p['change'] * 100:+.1f} pts", f"{p['p_value']:.3g}",
                     p["direction"] if p["significant"] else "no significant change"))
    t = data["total"]
    rows.append(("all pairs", "", "", _pct(t["a"]["win_rate"]), _pct(t["b"]["win_rate"]),
                 f"{t['change'] * 100:+.1f} pts", f"{t['p_value']:.3g}",
                 t["direction"] if t["significant"] else "no significant change"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.append("  ".join(c.ljust(w) if i < 3 or i == 7 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    out.append("")
    lines = data["lines"]
    if not lines:
        out.append("no content line's reach changed significantly")
        return out
    out.append(f"content lines whose reach changed (share of games that resolved them, A → B): {len(lines)}")
    for d in lines[:top]:
        where = f"{d['file']}:{d['line_b'] or d['line_a']}"
        tail = f" [{d['where']}]" if d["where"] else ""
        out.append(f"  {where}  {d['kind']}  '{d['label']}'{tail}: {_pct(d['reach_a'])} → {_pct(d['reach_b'])}"
                   f" ({d['change']})")
    if len(lines) > top:
        out.append(f"  … {len(lines) - top} more (--json lists them all)")
    return out
