"""A balance report: simulated games of some killer × scenario × Final Girl pairs written to a folder.

    report.md         the settings, a table with a row per pair (win rate and its 95% interval,
                      mean rounds, victims rescued and killed, end reasons, errors), the longest
                      games and what kept them going (each replayed with every event), the plots
    winrate.png/.svg  win rate per pair with its 95% Wilson interval as error bars
    rounds.png/.svg   a histogram of game length in rounds (all games; a line per pair when few)
    bloodlust.png/.svg  mean bloodlust level at the start of each round, a line per pair

The plots need matplotlib (``pip install 'lastbreath[report]'``); it is imported only here and
drawn with the Agg backend (no display needed). ``lastbreath report`` runs the games and calls
``write_report``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Mapping, Optional, Sequence

from lastbreath.dsl.ruleset import Ruleset

from .simulate import GameRecord, summarize

PLOTS = ("winrate", "rounds", "bloodlust")


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


def _plot_winrate(plt, folder: Path, labels: list[str], summaries: list[dict]) -> list[Path]:
    n = len(labels)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.42 * n))
    rates = [s["win_rate"] * 100 for s in summaries]
    lo = [max(0.0, (s["win_rate"] - s["win_rate_ci"][0]) * 100) for s in summaries]
    hi = [max(0.0, (s["win_rate_ci"][1] - s["win_rate"]) * 100) for s in summaries]
    ys = list(range(n))[::-1]
    ax.barh(ys, rates, xerr=[lo, hi], color="#b03a2e", ecolor="#333333", capsize=3, height=0.6)
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


def _plot_rounds(plt, folder: Path, labels: list[str], records: list[list[GameRecord]]) -> list[Path]:
    fig, ax = plt.subplots(figsize=(8, 4.2))
    every = Counter(r.rounds for recs in records for r in recs if not r.error)
    if every:
        xs = list(range(min(every), max(every) + 1))
        ax.bar(xs, [every.get(x, 0) for x in xs], color="#888888", width=0.85,
               label="all games" if len(records) > 1 else None)
        if 1 < len(records) <= 8:
            for label, recs in zip(labels, records):
                c = Counter(r.rounds for r in recs if not r.error)
                ax.step(xs, [c.get(x, 0) for x in xs], where="mid", linewidth=1.2, label=label)
        if len(records) > 1:
            ax.legend(fontsize=7)
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    ax.grid(axis="y", alpha=0.3)
    return _save(plt, fig, folder, "rounds")


def lust_curve(records: Sequence[GameRecord], min_share: float = 0.1) -> list[tuple[int, float, int]]:
    """(round, mean bloodlust level at its start, games that reached it), for the rounds that at
    least ``min_share`` of the finished games reached (the long tail is a handful of games)."""
    finished = [r for r in records if not r.error]
    if not finished:
        return []
    need = max(1, int(min_share * len(finished)))
    out = []
    for i in range(max(len(r.bloodlust) for r in finished)):
        vals = [r.bloodlust[i] for r in finished if len(r.bloodlust) > i]
        if len(vals) < need:
            break
        out.append((i + 1, sum(vals) / len(vals), len(vals)))
    return out


def _plot_bloodlust(plt, folder: Path, labels: list[str], records: list[list[GameRecord]]) -> list[Path]:
    fig, ax = plt.subplots(figsize=(8, 4.6))
    cmap = plt.get_cmap("tab20" if len(records) > 10 else "tab10")
    for i, (label, recs) in enumerate(zip(labels, records)):
        curve = lust_curve(recs)
        if curve:
            ax.plot([c[0] for c in curve], [c[1] for c in curve], marker="o", markersize=3, linewidth=1.3,
                    color=cmap(i % cmap.N), label=label)
    ax.set_xlabel("round")
    ax.set_ylabel("mean bloodlust level at the start of the round")
    ax.set_title("Bloodlust over rounds (rounds reached by at least 10% of the games)")
    ax.grid(alpha=0.3)
    if records:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0) if len(records) > 6 else None)
    return _save(plt, fig, folder, "bloodlust")


def write_report(folder: Path | str, rs: Ruleset, setups: Sequence[Mapping], records: Sequence[Sequence[GameRecord]],
                 settings: Optional[Mapping] = None, seconds: Optional[float] = None) -> list[Path]:
    """Write report.md and the plots into ``folder`` (made if missing); returns the files written.
    ``settings``: bot, games, seed, jobs, difficulty, content (hash), version — shown at the top."""
    plt = _pyplot()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    settings = dict(settings or {})
    lists: list[list[GameRecord]] = [list(r) for r in records]
    labels = [pair_label(rs, s) for s in setups]
    summaries = [summarize(r) for r in lists]
    total = summarize([r for recs in lists for r in recs], seconds)

    files = []
    files += _plot_winrate(plt, folder, labels, summaries)
    files += _plot_rounds(plt, folder, labels, lists)
    files += _plot_bloodlust(plt, folder, labels, lists)

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
    lines += ["## Plots", "",
              "### Win rate per pair", "",
              "![Win rate per pair with 95% intervals](winrate.png)", "", "[SVG](winrate.svg)", "",
              "### Game length", "",
              "![Histogram of game length in rounds](rounds.png)", "", "[SVG](rounds.svg)", "",
              "### Bloodlust over rounds", "",
              "![Mean bloodlust level at the start of each round](bloodlust.png)", "", "[SVG](bloodlust.svg)", ""]
    failed = [(label, r) for label, recs in zip(labels, records) for r in recs if r.error]
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
    md.write_text("\n".join(lines), encoding="utf-8")
    return [md, *files]
