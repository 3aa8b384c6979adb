"""A balance report: simulated games of some killer × scenario × Final Girl pairs written to a folder.

    report.md          the settings; a table with a row per pair (win rate and its 95% interval, rounds,
                       victims, end reasons, errors); rounds until the end by outcome; the content lines
                       that ended the games (losses and wins); cards bought and played and items used,
                       with the win rate of the games with and without each; where victims died; the
                       longest games and what kept them going; the plots
    report.html        with ``html=True``: the same as one self-contained page (the PNGs inlined)
    report.json        the same numbers for machines (``report_data``)
    heatmap.png/.svg   win rate per killer × scenario (Final Girls pooled), its 95% Wilson interval in each cell
    winrate.png/.svg   win rate per pair with its 95% Wilson interval as error bars
    rounds.png/.svg    rounds until the game ended, wins and losses apart: median and interquartile range
    health, fear, time, bloodlust .png/.svg   the value at the start of each round: median and interquartile
                       band, a small plot per killer × scenario
    cards.png/.svg     per card bought and item used: the win rate of the games with it and without it

Every number comes from detailed records (simulate.GameRecord, read from the events' data). The plots
need matplotlib (``pip install 'lastbreath[report]'``); it is imported only here and drawn with the
Agg backend (no display needed). One colour per meaning and no colour cycle: many pairs become small
multiples or a sequential colormap. ``lastbreath report`` runs the games and calls ``write_report``.
"""

from __future__ import annotations

import base64
import html as htmllib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Mapping, Optional, Sequence

from lastbreath.dsl.ruleset import Ruleset

from .simulate import SERIES_FIELDS, GameRecord, content_line, summarize, wilson

PLOTS = ("heatmap", "winrate", "rounds", *SERIES_FIELDS, "cards")
WIN, LOSS = "#1f6f8b", "#b03a2e"  # the two outcomes' colours, the same in every plot
MIN_SHARE = 0.1  # a round is drawn when at least this share of a group's games reached it


class MissingMatplotlib(ImportError):
    """matplotlib is not installed."""


INSTALL_HINT = "pip install 'lastbreath[report]'"


def _pyplot():
    try:
        import matplotlib
    except ImportError as err:
        raise MissingMatplotlib(f"the report draws its plots with matplotlib, which is not installed: "
                                f"{INSTALL_HINT}") from err
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "lastbreath"  # the same SVG for the same numbers
    return plt


def _name(table: Mapping, key: str) -> str:
    obj = table.get(key)
    return getattr(obj, "name", key) if obj is not None else key


def pair_label(rs: Ruleset, setup: Mapping) -> str:
    """'FINAL GIRL vs KILLER · SCENARIO', by their names."""
    return (f"{_name(rs.final_girls, setup['final_girl'])} vs {_name(rs.killers, setup['killer'])} · "
            f"{_name(rs.scenarios, setup['scenario'])}")


LONGEST = 5  # the longest games listed in the report, each replayed to say why it went on


def why_long(rs: Ruleset, setup: Mapping, seed: int, bot: str, max_choices: int = 20_000) -> str:
    """What kept one game going, from its replay with every event (a game is a pure function of its
    seed and the bot): the rounds in which an enemy had no target in its reach (C9.8), the killer's
    healing against the hits it took, the victims saved and lost."""
    from .api import apply, new_game
    from .bots import BOTS

    policy = BOTS[bot](seed)
    state, events = new_game(rs, seed=seed, **setup)
    stalled: set[int] = set()
    heals = hits = 0
    answers = 0
    while True:
        for e in events:
            if e.rule == "C9.8":
                stalled.add(state.round)
            elif e.kind == "health" and e.data[:1] == ("killer",):
                heals += 1
            elif e.kind == "damage" and e.data[:1] == ("killer",):
                hits += 1
        choice = state.choice
        if state.over or choice is None or answers >= max_choices:
            break
        state, events = apply(state, policy(state, choice))
        answers += 1
    parts = []
    if stalled:
        parts.append(f"no target in an enemy's reach in {len(stalled)} of {state.round} rounds (C9.8)")
    parts.append(f"the killer healed {heals} time{'s' if heals != 1 else ''} and was hit {hits} "
                 f"time{'s' if hits != 1 else ''}")
    parts.append(f"{state.rescued} rescued, {state.dead} dead")
    return "; ".join(parts)


def longest_games(rs: Ruleset, setups: Sequence[Mapping], records: Sequence[Sequence[GameRecord]], bot: str,
                  n: int = LONGEST) -> list[dict]:
    """The ``n`` longest finished games of all pairs (most rounds first, then by pair and seed),
    each with its pair, seed, result and ``why_long``."""
    games = [(r.rounds, i, r) for i, recs in enumerate(records) for r in recs if not r.error]
    games.sort(key=lambda t: (-t[0], t[1], t[2].seed))
    out = []
    for rounds, i, r in games[:n]:
        out.append({"pair": pair_label(rs, setups[i]), "setup": dict(setups[i]), "seed": r.seed, "rounds": rounds,
                    "result": r.result, "end_reason": r.end_reason, "why": why_long(rs, setups[i], r.seed, bot)})
    return out


def _bots() -> dict:
    from .bots import BOTS

    return BOTS


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _save(plt, fig, folder: Path, stem: str) -> list[Path]:
    out = []
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
        path = folder / f"{stem}.{ext}"
        fig.savefig(path, format=ext, dpi=110, bbox_inches="tight", metadata=meta)
        out.append(path)
    plt.close(fig)
    return out


def _integer_ticks(ax, axis: str = "x") -> None:
    from matplotlib.ticker import MaxNLocator

    (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))


def groups(setups: Sequence[Mapping], records: Sequence[Sequence[GameRecord]]
           ) -> list[tuple[str, str, list[GameRecord]]]:
    """(killer, scenario, the records of every pair of them pooled: the Final Girls taken together),
    killers and scenarios in the order the pairs come."""
    pooled: dict[tuple[str, str], list[GameRecord]] = {}
    for setup, recs in zip(setups, records):
        pooled.setdefault((setup["killer"], setup["scenario"]), []).extend(recs)
    return [(k, s, recs) for (k, s), recs in pooled.items()]


def _grid(rs: Ruleset, grouped) -> tuple[list[str], list[str]]:
    ks = list(dict.fromkeys(k for k, _, _ in grouped))
    ss = list(dict.fromkeys(s for _, s, _ in grouped))
    return ks, ss


def _plot_heatmap(plt, folder: Path, rs: Ruleset, grouped, final_girls: int = 1) -> list[Path]:
    ks, ss = _grid(rs, grouped)
    cells = {(k, s): recs for k, s, recs in grouped}
    fig, ax = plt.subplots(figsize=(1.2 + 1.9 * len(ss), 1.0 + 0.75 * len(ks)))
    grid = []
    for k in ks:
        row = []
        for s in ss:
            fin = [r for r in cells.get((k, s), []) if not r.error]
            row.append(sum(r.result == "fg" for r in fin) / len(fin) * 100 if fin else float("nan"))
        grid.append(row)
    im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    for i, k in enumerate(ks):
        for j, s in enumerate(ss):
            fin = [r for r in cells.get((k, s), []) if not r.error]
            if not fin:
                continue
            wins = sum(r.result == "fg" for r in fin)
            lo, hi = wilson(wins, len(fin))
            val = grid[i][j]
            ax.text(j, i, f"{val:.0f}%\n{lo * 100:.0f}–{hi * 100:.0f}\nn={len(fin)}", ha="center", va="center",
                    fontsize=7, color="white" if val < 60 else "black")
    ax.set_xticks(range(len(ss)), [_name(rs.scenarios, s) for s in ss], fontsize=8, rotation=20, ha="right")
    ax.set_yticks(range(len(ks)), [_name(rs.killers, k) for k in ks], fontsize=8)
    fig.colorbar(im, ax=ax, label="Final Girl win rate (%)")
    pooled = f"; {final_girls} Final Girls pooled" if final_girls > 1 else ""
    ax.set_title(f"Final Girl win rate per killer × scenario (95% Wilson interval{pooled})", fontsize=9)
    return _save(plt, fig, folder, "heatmap")


def _plot_winrate(plt, folder: Path, labels: list[str], summaries: list[dict]) -> list[Path]:
    n = len(labels)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.42 * n))
    rates = [s["win_rate"] * 100 for s in summaries]
    lo = [max(0.0, (s["win_rate"] - s["win_rate_ci"][0]) * 100) for s in summaries]
    hi = [max(0.0, (s["win_rate_ci"][1] - s["win_rate"]) * 100) for s in summaries]
    ys = list(range(n))[::-1]
    ax.barh(ys, rates, xerr=[lo, hi], color=WIN, ecolor="#333333", capsize=3, height=0.6)
    ax.set_yticks(ys, labels, fontsize=8)
    ax.set_xlabel("Final Girl win rate (%) with 95% Wilson interval")
    top = max([s["win_rate_ci"][1] * 100 for s in summaries] + [5.0])
    ax.set_xlim(0, min(100.0, top * 1.25 + 3))
    for y, s in zip(ys, summaries):
        ax.text(s["win_rate_ci"][1] * 100 + 0.4, y, f"{s['win_rate'] * 100:.1f}%  (n={s['games'] - s['errors']})",
                va="center", fontsize=7)
    ax.set_title("Win rate per pair")
    ax.grid(axis="x", alpha=0.3)
    return _save(plt, fig, folder, "winrate")


def _plot_rounds(plt, folder: Path, rs: Ruleset, grouped) -> list[Path]:
    """Rounds until the end per killer × scenario: wins and losses apart, each a median dot on its
    interquartile bar (the colours named in the title, no legend to look up)."""
    from .simulate import quartiles

    n = len(grouped)
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.5 * n))
    ys = list(range(n))[::-1]
    for y, (_k, _s, recs) in zip(ys, grouped):
        for side, colour, dy in (("fg", WIN, 0.15), ("killer", LOSS, -0.15)):
            vals = [r.rounds for r in recs if not r.error and r.result == side]
            if not vals:
                continue
            q1, med, q3 = quartiles(vals)
            ax.plot([q1, q3], [y + dy, y + dy], color=colour, linewidth=3, solid_capstyle="butt")
            ax.plot([med], [y + dy], "o", color=colour, markersize=6, markeredgecolor="white")
            ax.text(q3 + 0.3, y + dy, f"{med:g} (n={len(vals)})", va="center", fontsize=6, color=colour)
    ax.set_yticks(ys, [f"{_name(rs.killers, k)} · {_name(rs.scenarios, s)}" for k, s, _ in grouped], fontsize=8)
    ax.set_xlabel("rounds until the game ended (dot: median; bar: interquartile range)")
    _integer_ticks(ax, "x")
    ax.set_title("Rounds until the end: wins (blue, above) and losses (red, below)", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return _save(plt, fig, folder, "rounds")


def series_rows(recs: Sequence[GameRecord], field: str, min_share: float = MIN_SHARE) -> list[list[float]]:
    """[round, lower quartile, median, upper quartile, games] of one per-round field of the finished
    detailed games, for the rounds at least ``min_share`` of them reached."""
    fin = [r for r in recs if not r.error and r.detailed]
    if not fin:
        return []
    rows = summarize(fin)["series"][field]
    need = max(1, int(min_share * len(fin)))
    out = []
    for row in rows:
        if row[4] < need:
            break
        out.append(row)
    return out


_SERIES_WORDS = {"health": "her health", "fear": "her fear", "time": "her time",
                 "bloodlust": "the bloodlust level (1-based)"}


def _plot_series(plt, folder: Path, rs: Ruleset, grouped, field: str) -> list[Path]:
    """A small plot per killer × scenario (rows: killers, columns: scenarios): the median value at
    each round's start, its interquartile band; one colour, shared axes."""
    ks, ss = _grid(rs, grouped)
    cells = {(k, s): recs for k, s, recs in grouped}
    fig, axes = plt.subplots(len(ks), len(ss), figsize=(1.2 + 2.4 * len(ss), 0.9 + 1.8 * len(ks)),
                             sharex=True, sharey=True, squeeze=False)
    for i, k in enumerate(ks):
        for j, s in enumerate(ss):
            ax = axes[i][j]
            rows = series_rows(cells.get((k, s), []), field)
            if rows:
                xs = [r[0] for r in rows]
                ax.fill_between(xs, [r[1] for r in rows], [r[3] for r in rows], color=WIN, alpha=0.25, linewidth=0)
                ax.plot(xs, [r[2] for r in rows], color=WIN, linewidth=1.4)
            ax.grid(alpha=0.3)
            _integer_ticks(ax, "x")
            _integer_ticks(ax, "y")
            if i == 0:
                ax.set_title(_name(rs.scenarios, s), fontsize=8)
            if j == 0:
                ax.set_ylabel(_name(rs.killers, k), fontsize=8)
            if i == len(ks) - 1:
                ax.set_xlabel("round", fontsize=8)
            ax.tick_params(labelsize=7)
    fig.suptitle(f"{_SERIES_WORDS[field].capitalize()} at the start of each round: median (line) and "
                 f"interquartile band (rounds reached by at least {MIN_SHARE:.0%} of the games)", fontsize=9)
    return _save(plt, fig, folder, field)


def _plot_uses(plt, folder: Path, rs: Ruleset, total: dict) -> list[Path]:
    """Per card bought and item used: the win rate of the games with it (filled dot) and without it
    (open dot), joined by a line; only those both sides of which have games."""
    panels = []
    for key, what, table in (("cards_bought", "card bought", rs.cards), ("items_used", "item used", rs.items)):
        rows = [(i, d) for i, d in total.get(key, {}).items()
                if d["win_rate_with"] is not None and d["win_rate_without"] is not None]
        panels.append((what, table, rows))
    height = sum(max(1, len(rows)) for _, _, rows in panels)
    fig, axes = plt.subplots(2, 1, figsize=(8, 1.8 + 0.3 * height), squeeze=False,
                             gridspec_kw={"height_ratios": [max(1, len(r)) for _, _, r in panels]})
    for ax, (what, table, rows) in zip([a[0] for a in axes], panels):
        ys = list(range(len(rows)))[::-1]
        for y, (_id, d) in zip(ys, rows):
            w, wo = d["win_rate_with"] * 100, d["win_rate_without"] * 100
            ax.plot([wo, w], [y, y], color="#999999", linewidth=1)
            ax.plot([w], [y], "o", color=WIN, markersize=6)
            ax.plot([wo], [y], "o", color=WIN, markerfacecolor="white", markersize=6)
        ax.set_yticks(ys, [f"{_name(table, i)} ({d['games']} games)" for i, d in rows], fontsize=7)
        ax.set_xlim(-2, 102)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"Win rate with the {what} (filled dot) and without it (open dot)" if rows else
                     f"No {what} split the games into some with it and some without", fontsize=9)
    axes[-1][0].set_xlabel("Final Girl win rate (%)")
    return _save(plt, fig, folder, "cards")


# --- the numbers ------------------------------------------------------------------------------
def line_text(rs: Ruleset, source: str, limit: int = 60) -> str:
    """The content text of a source ``file:line:col`` (its line, stripped, shortened); "" for none."""
    parts = source.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return ""
    lines = rs.sources.get(parts[0], "").splitlines()
    n = int(parts[1])
    if not 1 <= n <= len(lines):
        return ""
    text = lines[n - 1].strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def report_data(rs: Ruleset, setups: Sequence[Mapping], records: Sequence[Sequence[GameRecord]],
                settings: Optional[Mapping] = None, seconds: Optional[float] = None) -> dict:
    """The report's numbers: the settings, each pair's summary (simulate.summarize: win rate and its
    interval, rounds by result, causes, series, cards, items, deaths), each killer × scenario's
    pooled over Final Girls, the total, and the text of each content line that ended a game."""
    lists = [list(r) for r in records]
    pairs = [{"setup": dict(s), "label": pair_label(rs, s), **summarize(r)} for s, r in zip(setups, lists)]
    grouped = [{"killer": k, "scenario": s, **summarize(recs)} for k, s, recs in groups(setups, lists)]
    total = summarize([r for recs in lists for r in recs], seconds)
    lines: dict[str, str] = {}
    for recs in lists:
        for r in recs:
            key = content_line(r.cause)
            if r.cause and key not in lines:
                lines[key] = line_text(rs, r.cause)
    return {"settings": dict(settings or {}), "pairs": pairs, "killer_scenario": grouped, "total": total,
            "lines": dict(sorted(lines.items()))}


def _share(k: int, n: int) -> str:
    return f"{k / n * 100:.1f}%" if n else "—"


def _rate_cell(x: Optional[float]) -> str:
    return "—" if x is None else _pct(x)


TOP = 12  # the content lines listed per outcome


def write_report(folder: Path | str, rs: Ruleset, setups: Sequence[Mapping], records: Sequence[Sequence[GameRecord]],
                 settings: Optional[Mapping] = None, seconds: Optional[float] = None, html: bool = False) -> list[Path]:
    """Write report.md, report.json, the plots and (``html``) report.html into ``folder`` (made if
    missing); returns the files written, report.md first. ``settings``: bot, games, seed, jobs,
    difficulty, content (hash), version — shown at the top."""
    plt = _pyplot()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    settings = dict(settings or {})
    lists: list[list[GameRecord]] = [list(r) for r in records]
    labels = [pair_label(rs, s) for s in setups]
    data = report_data(rs, setups, lists, settings, seconds)
    summaries = data["pairs"]
    total = data["total"]
    grouped = groups(setups, lists)

    files = []
    if grouped:
        files += _plot_heatmap(plt, folder, rs, grouped, len({s["final_girl"] for s in setups}))
    files += _plot_winrate(plt, folder, labels, summaries)
    if grouped:
        files += _plot_rounds(plt, folder, rs, grouped)
        for field in SERIES_FIELDS:
            files += _plot_series(plt, folder, rs, grouped, field)
    files += _plot_uses(plt, folder, rs, total)

    games = settings.get("games", summaries[0]["games"] if summaries else 0)
    seed = settings.get("seed", 0)
    bot = settings.get("bot", "?")
    lines = ["# Balance report", ""]
    head = [f"bot `{bot}`", f"{games} games per pair (seeds {seed}–{seed + games - 1})"]
    if setups:
        s0 = setups[0]
        head.append(f"difficulty {s0.get('difficulty', 'normal')}" + (", legendary" if s0.get("legendary") else ""))
        if s0.get("modules"):
            head.append("modules " + ", ".join(s0["modules"]))
    if settings.get("content"):
        head.append(f"content {settings['content']}")
    if settings.get("version"):
        head.append(f"lastbreath {settings['version']}")
    lines.append(" · ".join(head))
    lines.append("")
    run = f"{len(setups)} pair{'s' if len(setups) != 1 else ''}, {total['games']} games"
    if seconds:
        run += f" in {seconds:.1f} s ({total['games_per_second']:.0f} games/s"
        run += f", {settings['jobs']} jobs)" if settings.get("jobs") else ")"
    lines += [run + ".", ""]

    # the heatmap and its table
    ks = list(dict.fromkeys(g["killer"] for g in data["killer_scenario"]))
    ss = list(dict.fromkeys(g["scenario"] for g in data["killer_scenario"]))
    cell = {(g["killer"], g["scenario"]): g for g in data["killer_scenario"]}
    fgs = sorted({s["final_girl"] for s in setups})
    lines += ["## Win rate by killer and scenario", "",
              "Wins per finished game with the 95% Wilson interval"
              + (f", the {len(fgs)} Final Girls' games pooled" if len(fgs) > 1 else "") + ".", "",
              "| Killer | " + " | ".join(_cell(_name(rs.scenarios, s)) for s in ss) + " |",
              "|---|" + "--:|" * len(ss)]
    for k in ks:
        shown = []
        for s in ss:
            g = cell.get((k, s))
            shown.append("—" if g is None else f"{_pct(g['win_rate'])} ({_pct(g['win_rate_ci'][0])}–"
                                               f"{_pct(g['win_rate_ci'][1])})")
        lines.append(f"| {_cell(_name(rs.killers, k))} | " + " | ".join(shown) + " |")
    lines += ["", "![Win rate per killer and scenario](heatmap.png)", "", "[SVG](heatmap.svg)", ""]

    lines += ["## Pairs", "",
              "Win rate is wins per finished game, with its 95% Wilson interval; rounds, victims and end "
              "reasons are of finished games; errors are games that raised (listed below).", ""]
    lines.append("| Final Girl | Killer | Scenario | Games | Win rate | 95% CI | Mean rounds | Rescued | Killed "
                 "| End reasons | Errors |")
    lines.append("|---|---|---|--:|--:|--:|--:|--:|--:|---|--:|")

    def row(fg: str, k: str, sc: str, s: dict) -> str:
        reasons = ", ".join(f"{why} {count}" for why, count in s["end_reasons"].items()) or "—"
        lo, hi = s["win_rate_ci"]
        return (f"| {_cell(fg)} | {_cell(k)} | {_cell(sc)} | {s['games']} | {_pct(s['win_rate'])} | "
                f"{_pct(lo)}–{_pct(hi)} | {s['mean_rounds']:.2f} | {s['mean_rescued']:.2f} | "
                f"{s['mean_killed']:.2f} | {_cell(reasons)} | {s['errors']} |")

    for setup, s in zip(setups, summaries):
        lines.append(row(_name(rs.final_girls, setup["final_girl"]), _name(rs.killers, setup["killer"]),
                         _name(rs.scenarios, setup["scenario"]), s))
    if len(setups) > 1:
        lines.append(row("**all pairs**", "", "", total))
    lines += ["", "![Win rate per pair with 95% intervals](winrate.png)", "", "[SVG](winrate.svg)", ""]

    # rounds by outcome
    lines += ["## Rounds until the end", "",
              "Finished games by outcome: how many, the median round the game ended in and the interquartile "
              "range (lower–upper quartile).", "",
              "| Killer | Scenario | Wins | Median | IQR | Losses | Median | IQR |",
              "|---|---|--:|--:|--:|--:|--:|--:|"]

    def rounds_cells(d: dict) -> str:
        if not d["games"]:
            return f"{d['games']} | — | —"
        return f"{d['games']} | {d['median']:g} | {d['quartiles'][0]:g}–{d['quartiles'][1]:g}"

    for g in data["killer_scenario"]:
        rb = g.get("rounds_by_result")
        if rb is None:
            continue
        lines.append(f"| {_cell(_name(rs.killers, g['killer']))} | {_cell(_name(rs.scenarios, g['scenario']))} | "
                     f"{rounds_cells(rb['fg'])} | {rounds_cells(rb['killer'])} |")
    lines += ["", "![Rounds until the end, wins and losses](rounds.png)", "", "[SVG](rounds.svg)", ""]

    # causes
    lines += ["## What ended the games", "",
              "The content line that ended each finished game (the end event's source: the line whose "
              "effect defeated a side, or an 'end game' line); \"core rules\" when no content line did.", ""]
    for side, title, of in (("killer", "Losses", "losses"), ("fg", "Wins", "wins")):
        causes = total.get("causes", {}).get(side, {})
        n = sum(causes.values())
        lines += [f"### {title}", ""]
        if not causes:
            lines += [f"No {of}.", ""]
            continue
        lines += [f"| Line | Text | Games | Share of {of} |", "|---|---|--:|--:|"]
        for where, count in list(causes.items())[:TOP]:
            said = data["lines"].get(where, "")
            quoted = f"`{_cell(said)}`" if said else "—"
            lines.append(f"| `{_cell(where)}` | {quoted} | {count} | {_share(count, n)} |")
        if len(causes) > TOP:
            lines.append(f"| … {len(causes) - TOP} more lines | | {sum(list(causes.values())[TOP:])} | |")
        lines.append("")

    # the rounds' values
    lines += ["## Over the rounds", "",
              "Her health, fear and time and the bloodlust level at the start of each round's Action phase: "
              "the median and the interquartile band, a small plot per killer × scenario (Final Girls pooled; "
              f"the rounds at least {MIN_SHARE:.0%} of the games reached).", ""]
    for field in SERIES_FIELDS:
        words = _SERIES_WORDS[field]
        lines += [f"### {words.capitalize()}", "", f"![{words} over rounds]({field}.png)", "",
                  f"[SVG]({field}.svg)", ""]

    # cards and items
    lines += ["## Cards and items", "",
              "All pairs together: how many times each card was bought and played and each item used, in how "
              "many games, and the win rate of the games with it against those without it (— : no such game).",
              ""]
    for key, what, col, table in (("cards_bought", "Cards bought", "Card", rs.cards),
                                  ("cards_played", "Cards played", "Card", rs.cards),
                                  ("items_used", "Items used", "Item", rs.items)):
        uses = total.get(key, {})
        lines += [f"### {what}", ""]
        if not uses:
            lines += ["None.", ""]
            continue
        lines += [f"| {col} | Times | Games | Win rate with | Win rate without |", "|---|--:|--:|--:|--:|"]
        for i, d in uses.items():
            lines.append(f"| {_cell(_name(table, i))} | {d['times']} | {d['games']} | {_rate_cell(d['win_rate_with'])} "
                         f"| {_rate_cell(d['win_rate_without'])} |")
        lines.append("")
    lines += ["![Win rate with and without each card and item](cards.png)", "", "[SVG](cards.svg)", ""]

    # where victims die
    lines += ["## Where victims die", "", "Deaths per location, each scenario's games together.", ""]
    by_scenario: dict[str, Counter] = {}
    for setup, recs in zip(setups, lists):
        c = by_scenario.setdefault(setup["scenario"], Counter())
        c.update(loc for r in recs if not r.error for loc in r.deaths)
    for s, c in by_scenario.items():
        n = sum(c.values())
        lines += [f"### {_name(rs.scenarios, s)}", ""]
        if not n:
            lines += ["No victim died.", ""]
            continue
        lines += ["| Location | Deaths | Share |", "|---|--:|--:|"]
        for loc, count in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"| {_cell(loc)} | {count} | {_share(count, n)} |")
        lines.append("")

    longest = longest_games(rs, setups, lists, bot) if bot in _bots() else []
    if longest:
        lines += ["## Longest games", "",
                  f"The {len(longest)} longest games of all pairs, each replayed with every event to say what kept "
                  f"it going (`lastbreath play --bot {bot} --seed SEED` and the pair's ids shows its log).", "",
                  "| Pair | Seed | Rounds | Result | Why so long |", "|---|--:|--:|---|---|"]
        for g in longest:
            who = "Final Girl" if g["result"] == "fg" else "killer"
            lines.append(f"| {_cell(g['pair'])} | {g['seed']} | {g['rounds']} | {who} ({_cell(g['end_reason'])}) "
                         f"| {_cell(g['why'])} |")
        lines.append("")
    failed = [(label, r) for label, recs in zip(labels, lists) for r in recs if r.error]
    if failed:
        lines += ["## Errors", "", f"{len(failed)} game{'s' if len(failed) != 1 else ''} raised; replay one with "
                  f"`lastbreath play --bot {bot} --seed SEED` and the pair's ids.", ""]
        for label, r in failed[:20]:
            lines.append(f"- {_cell(label)}, seed {r.seed}: {_cell(r.error)}")
        if len(failed) > 20:
            lines.append(f"- … and {len(failed) - 20} more")
        lines.append("")
    lines += ["## Ids", "", "| Pair | --final-girl | --killer | --scenario |", "|---|---|---|---|"]
    for label, setup in zip(labels, setups):
        lines.append(f"| {_cell(label)} | `{setup['final_girl']}` | `{setup['killer']}` | `{setup['scenario']}` |")
    lines.append("")
    md = folder / "report.md"
    text = "\n".join(lines)
    md.write_text(text, encoding="utf-8")
    js = folder / "report.json"
    js.write_text(json.dumps(data, indent=1), encoding="utf-8")
    out = [md, js]
    if html:
        page = folder / "report.html"
        page.write_text(markdown_html(text, folder, "Balance report"), encoding="utf-8")
        out.append(page)
    return [*out, *files]


# --- one self-contained page ------------------------------------------------------------------
_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+)\)$")
_LINK_ONLY = re.compile(r"^\[[^\]]*\]\([^)]+\)$")


def _inline(text: str) -> str:
    """Inline Markdown of the report's own text: `code` and **bold** (everything else escaped)."""
    out = []
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            out.append(f"<code>{htmllib.escape(part[1:-1])}</code>")
        else:
            esc = htmllib.escape(part.replace("\\|", "|"))
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", esc))
    return "".join(out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def markdown_html(text: str, folder: Path, title: str) -> str:
    """The report's Markdown (its own subset: headings, paragraphs, tables, lists, images) as one
    HTML page, each PNG image inlined as base64 data; links to the SVG files are left out."""
    body: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or _LINK_ONLY.match(line.strip()):
            i += 1
            continue
        m = re.match(r"^(#{1,6}) (.*)$", line)
        if m:
            level = len(m.group(1))
            body.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
            i += 1
            continue
        m = _IMAGE.match(line.strip())
        if m:
            path = folder / m.group(2)
            if path.exists():
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                body.append(f'<p><img alt="{htmllib.escape(m.group(1))}" src="data:image/png;base64,{data}"></p>')
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            aligns = ["right" if c.endswith(":") else "left" for c in rows[1]] if len(rows) > 1 else []
            table = ["<table>", "<tr>" + "".join(f"<th>{_inline(c)}</th>" for c in rows[0]) + "</tr>"]
            for r in rows[2:]:
                table.append("<tr>" + "".join(
                    f'<td style="text-align:{aligns[j] if j < len(aligns) else "left"}">{_inline(c)}</td>'
                    for j, c in enumerate(r)) + "</tr>")
            table.append("</table>")
            body.append("\n".join(table))
            continue
        if line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            body.append("<ul>" + "".join(items) + "</ul>")
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "- ", "![")):
            para.append(lines[i])
            i += 1
        body.append(f"<p>{_inline(' '.join(para))}</p>")
    style = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
             "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}"
             "th,td{border:1px solid #ccc;padding:0.25em 0.6em}th{background:#f3f3f3}"
             "img{max-width:100%}code{background:#f3f3f3;padding:0 0.2em}")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{htmllib.escape(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
