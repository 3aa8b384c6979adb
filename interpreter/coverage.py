"""Content coverage: what in the loaded content bot games never reach (``lastbreath coverage``).

Coverable items, found by walking the declarations of the killers, scenarios, Final Girls, cards
and items in play:

- ``effect``: every effect line (an effect node; one line may hold several, told apart by column);
- ``branch``: every block a control effect may or may not enter: the two blocks of an ``if … else``,
  a ``mode`` block, each ``choose`` option, each ``roll`` row, ``each``, ``repeat`` and ``spend``
  blocks;
- ``trigger`` and ``replacement``: reached when their block runs;
- ``outcome``: a card's fail / success / great / best, reached when a fear check picks it.

While games play, the engine records coverage (``engine.recording()``): the effect runner adds
the span of each effect it resolves and a card's play the span of the outcome it picks. A block
is reached when its first effect is. Off (the default) the hook costs one global lookup per
effect list.

The report lists the unreached items by file and line; an unreached item inside an unreached
one (the lines of a branch never taken, the rest of a block never entered) is folded into it and
only counted, so the list names the places to look at.
"""

from __future__ import annotations

import os
import time
from typing import Any, Optional, Sequence

import attrs
from lastbreath.dsl import nodes as n
from lastbreath.dsl.diagnostics import Span
from lastbreath.dsl.render import to_dsl
from lastbreath.dsl.ruleset import Ruleset

from . import api, engine
from .bots import BOTS

KINDS = ("effect", "branch", "trigger", "replacement", "outcome")
TIERS = {0: "fail", 1: "success", 2: "great", 3: "best"}


@attrs.frozen
class Item:
    """One coverable piece of content."""

    kind: str  # effect | branch | trigger | replacement | outcome
    span: Span  # where it is shown
    key: Span  # the span whose recording means it was reached
    label: str  # what it is, in content words
    where: str  # the declaration it belongs to ("terror howl", "card walk")
    parent: int  # index of the enclosing item it folds into when both are unreached; -1: none


# --- finding what can be covered ----------------------------------------------------------------
def _snippet(sources: dict[str, str], span: Span, limit: int = 72) -> str:
    """The content text of a span (its first line only), shortened."""
    text = sources.get(span.path)
    if text is None:
        return ""
    lines = text.splitlines()
    if not 1 <= span.line <= len(lines):
        return ""
    line = lines[span.line - 1]
    end = span.end_col - 1 if span.end_line == span.line and span.end_col > span.col else len(line)
    out = line[span.col - 1:end].strip()
    if span.end_line != span.line:
        out += " …"
    return out if len(out) <= limit else out[:limit - 1] + "…"


# parts of a declaration worth naming in the report
_PARTS = {"back": "killer action (back)", "face": "finale action (face)", "on_reveal": "when revealed",
          "flipped_reward": "flipped reward", "at_max": "at max bloodlust", "on_start": "at game start",
          "use": "use"}
_NUMBERED = {"slots": "rescue slot", "bloodlust": "bloodlust level"}


class _Walker:
    def __init__(self, sources: dict[str, str]):
        self.sources = sources
        self.items: list[Item] = []
        self.index: dict[tuple[str, Span], int] = {}
        self.seen: set[int] = set()

    def add(self, kind: str, span: Span, key: Span, label: str, where: str, parent: int) -> int:
        k = (kind, span)
        got = self.index.get(k)
        if got is not None:
            return got
        self.items.append(Item(kind, span, key, label, where, parent))
        self.index[k] = len(self.items) - 1
        return self.index[k]

    def node(self, x: Any, where: str) -> None:
        """Any content node: find the effect blocks, triggers, replacements and outcomes in it."""
        if isinstance(x, (tuple, list)):
            if x and all(isinstance(e, n.Effect) for e in x):
                self.body(x, where, -1)
            else:
                for y in x:
                    self.node(y, where)
            return
        if not isinstance(x, n.Node) or id(x) in self.seen:
            return
        self.seen.add(id(x))
        t = type(x)
        if isinstance(x, n.Trigger):
            what = to_dsl(x.event)
            label = _snippet(self.sources, x.span) or what
            if x.body:
                i = self.add("trigger", x.span, x.body[0].span, label, where, -1)
                self.body(x.body, where, i)
            return
        if isinstance(x, n.Replacement):
            if x.body:
                i = self.add("replacement", x.span, x.body[0].span,
                             _snippet(self.sources, x.span) or to_dsl(x.event), where, -1)
                self.body(x.body, where, i)
            return
        if isinstance(x, n.Outcome):
            i = self.add("outcome", x.span, x.span, f"{TIERS.get(x.min_successes, str(x.min_successes) + '+')} outcome",
                         where, -1)
            if x.effects:
                self.body(x.effects, where, i)
            return
        ident = getattr(x, "id", None)
        if isinstance(ident, str) and ident:
            kind = "event" if t is n.EventCard else n.snake(t.__name__)
            where = f"{kind.replace('_', ' ')} {ident}"
        for name, v in n.fields(x):
            if name in _NUMBERED and isinstance(v, tuple):  # rescue slots, bloodlust levels
                for i, y in enumerate(v, 1):
                    self.node(y, f"{where} · {_NUMBERED[name]} {i}")
            elif isinstance(v, (tuple, list, n.Node)):
                self.node(v, f"{where} · {_PARTS[name]}" if name in _PARTS and v else where)

    def body(self, effects: Sequence, where: str, parent: int) -> None:
        """An effect block: every effect, folded into the first one (the block was never entered)
        or, for the first, into the enclosing item."""
        first = -1
        for e in effects:
            i = self.add("effect", e.span, e.span, _snippet(self.sources, e.span) or type(e).__name__, where,
                         parent if first < 0 else first)
            if first < 0:
                first = i
            self.control(e, where, i)

    def block(self, label: str, span: Span, effects: Sequence, where: str, parent: int) -> None:
        if not effects:
            return
        i = self.add("branch", span, effects[0].span, label, where, parent)
        self.body(effects, where, i)

    def control(self, e: Any, where: str, me: int) -> None:
        t = type(e)
        head = _snippet(self.sources, e.span, 48)
        if t is n.If:
            cond = head.split("{", 1)[0].strip()
            self.block(f"then block of '{cond}'", e.then[0].span if e.then else e.span, e.then, where, me)
            self.block(f"else block of '{cond}'", e.otherwise[0].span if e.otherwise else e.span, e.otherwise,
                       where, me)
        elif t is n.Choose:
            for o in e.options:
                self.block(f'choose option "{o.label}"', o.span, o.body, where, me)
        elif t is n.Roll:
            for r in e.rows:
                self.block(f"roll row on {' '.join(map(str, r.faces))}", r.span, r.body, where, me)
        elif t is n.ModeBlock:
            self.block(f"mode {e.mode} block", e.span, e.body, where, me)
        elif t is n.Each:
            self.block(f"each {e.kind} block", e.span, e.body, where, me)
        elif t is n.Repeat:
            self.block("repeat block", e.span, e.body, where, me)
        elif t is n.SpendTokens:
            self.block(f"spend {e.token} block", e.span, e.body, where, me)
        else:  # any other line with a block ('for each', …): its blocks, named after its first words
            words = head.split("{", 1)[0].strip() or n.snake(t.__name__).replace("_", " ")
            for _name, value in n.fields(e):
                if isinstance(value, tuple) and value and all(isinstance(x, n.Effect) for x in value):
                    self.block(f"{words} block", value[0].span, value, where, me)


def coverable(rs: Ruleset, killers: Sequence[str], scenarios: Sequence[str],
              final_girls: Sequence[str]) -> list[Item]:
    """Every coverable item of the content that games of these killers, scenarios and Final Girls
    can meet: theirs, the cards of the core deck and of these killers and scenarios, the items of
    these scenarios, these Final Girls' signature items and items that belong to no one."""
    ks, ss, fs = set(killers), set(scenarios), set(final_girls)
    signatures = {fg.signature for fg in rs.final_girls.values() if fg.signature}
    own = {fg.signature for f, fg in rs.final_girls.items() if f in fs and fg.signature}
    w = _Walker(rs.sources)
    for k in sorted(ks):
        w.node(rs.killers[k], "")
    for s in sorted(ss):
        w.node(rs.scenarios[s], "")
    for f in sorted(fs):
        w.node(rs.final_girls[f], "")
    for cid in sorted(rs.cards):
        if rs.cards[cid].owner in ("", *ks, *ss):
            w.node(rs.cards[cid], "")
    for iid in sorted(rs.items):
        it = rs.items[iid]
        if it.owner in (*ks, *ss) or iid in own or (it.owner == "" and iid not in signatures):
            w.node(it, "")
    return w.items


# --- recording --------------------------------------------------------------------------------
recording = engine.recording  # turn the engine's coverage hook on for a block; yields the set of spans reached


def plan(rs: Ruleset, games: int, seed: int = 0, bot: str = "random", killers: Optional[Sequence[str]] = None,
         scenarios: Optional[Sequence[str]] = None, final_girls: Optional[Sequence[str]] = None,
         difficulty: str = "normal") -> list[tuple[dict, str]]:
    """(setup, bot) of each of ``games`` games: killer × scenario pairs in turn, then each Final
    Girl, with and without the legendary cards (legendary finales and dark powers are only drawn
    then); game i has seed ``seed + i``; with bot ``both`` the random and greedy bots take turns."""
    ks = sorted(killers or rs.killers)
    ss = sorted(scenarios or rs.scenarios)
    fs = sorted(final_girls or rs.final_girls)
    pairs = [(k, s) for k in ks for s in ss]
    bots = ["random", "greedy"] if bot == "both" else [bot]
    out = []
    for i in range(games):
        k, s = pairs[i % len(pairs)]
        r = i // len(pairs)
        setup = {"killer": k, "scenario": s, "final_girl": fs[r % len(fs)], "difficulty": difficulty,
                 "legendary": bool((r // len(fs)) % 2), "seed": seed + i}
        out.append((setup, bots[(r // len(fs) // 2) % len(bots)]))
    return out


def play_games(rs: Ruleset, games: Sequence[tuple[dict, str]], max_choices: int = 20000) -> dict:
    """Play the games (setup, bot) with the hook on; the spans reached and the games that failed."""
    errors: list[str] = []
    with recording() as reached:
        for setup, bot in games:
            try:
                state, _ = api.new_game(rs, **setup)
                api.play(state, BOTS[bot](setup["seed"]), max_choices=max_choices)
            except Exception as err:
                errors.append(f"seed {setup['seed']} ({setup['killer']} / {setup['scenario']}, {bot} bot): "
                              f"{type(err).__name__}: {err}")
    return {"reached": reached, "errors": errors}


# --- the report -------------------------------------------------------------------------------
def _shown(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def report(items: Sequence[Item], reached: set, fold: bool = True) -> dict:
    """Per file: reached/total and the unreached items; with ``fold`` an unreached item inside an
    unreached one is not listed itself but under it (``inside``: how many, ``folded``: which)."""
    hit = [it.key in reached for it in items]
    folded: list[list[int]] = [[] for _ in items]
    listed = []
    for i, _it in enumerate(items):
        if hit[i]:
            continue
        top = i  # fold into the outermost unreached ancestor whose parent is reached
        while fold and items[top].parent >= 0 and not hit[items[top].parent]:
            top = items[top].parent
        if top == i:
            listed.append(i)
        else:
            folded[top].append(i)
    files: dict[str, dict] = {}
    for i, it in enumerate(items):
        f = files.setdefault(it.span.path, {"file": _shown(it.span.path), "reached": 0, "total": 0,
                                            "by_kind": {k: [0, 0] for k in KINDS}, "unreached": []})
        f["total"] += 1
        f["reached"] += hit[i]
        f["by_kind"][it.kind][1] += 1
        f["by_kind"][it.kind][0] += hit[i]
    for i in listed:
        it = items[i]
        files[it.span.path]["unreached"].append(
            {"kind": it.kind, "line": it.span.line, "col": it.span.col, "label": it.label, "where": it.where,
             "inside": len(folded[i]),
             "folded": [{"kind": items[j].kind, "line": items[j].span.line, "col": items[j].span.col,
                         "label": items[j].label} for j in folded[i]]})
    out = []
    for path in sorted(files, key=lambda p: files[p]["file"]):
        f = files[path]
        f["unreached"].sort(key=lambda u: (u["line"], u["col"]))
        f["by_kind"] = {k: {"reached": v[0], "total": v[1]} for k, v in f["by_kind"].items() if v[1]}
        out.append(f)
    total = len(items)
    got = sum(hit)
    return {"reached": got, "total": total, "percent": round(100 * got / total, 1) if total else 100.0,
            "files": out}


def run_coverage(rs: Ruleset, games: int = 200, bot: str = "random", seed: int = 0,
                 killers: Optional[Sequence[str]] = None, scenarios: Optional[Sequence[str]] = None,
                 final_girls: Optional[Sequence[str]] = None, difficulty: str = "normal",
                 max_choices: int = 20000, fold: bool = True) -> dict:
    """Play the games and report what was never reached (``fold``: see ``report``)."""
    todo = plan(rs, games, seed, bot, killers, scenarios, final_girls, difficulty)
    t0 = time.perf_counter()
    played = play_games(rs, todo, max_choices)
    seconds = time.perf_counter() - t0
    setups = [s for s, _ in todo]
    ks = sorted({s["killer"] for s in setups})
    ss = sorted({s["scenario"] for s in setups})
    fs = sorted({s["final_girl"] for s in setups})
    items = coverable(rs, ks, ss, fs)
    out = report(items, played["reached"], fold)
    return {"games": games, "bot": bot, "seed": seed, "killers": ks, "scenarios": ss, "final_girls": fs,
            "legendary_games": sum(s["legendary"] for s in setups), "seconds": round(seconds, 2),
            "errors": played["errors"], **out}


def format_report(data: dict) -> list[str]:
    """The report as text lines: the unreached items by file, then the summary."""
    lines = [f"coverage: {data['games']} games ({data['bot']} bot, seeds {data['seed']}–"
             f"{data['seed'] + data['games'] - 1}) over {len(data['killers'])} killer(s) × "
             f"{len(data['scenarios'])} scenario(s), {len(data['final_girls'])} Final Girl(s), "
             f"{data['legendary_games']} with legendary cards, in {data['seconds']} s"]
    width = max((len(f"{u['line']}:{u['col']}") for f in data["files"] for u in f["unreached"]), default=4)
    kw = max(len(k) for k in KINDS)
    for f in data["files"]:
        if not f["unreached"]:
            continue
        lines.append("")
        lines.append(f"{f['file']}: {f['total'] - f['reached']} of {f['total']} never reached")
        for u in f["unreached"]:
            pos = f"{u['line']}:{u['col']}"
            tail = f"  [{u['where']}]" if u["where"] else ""
            more = f"  (+{u['inside']} inside)" if u["inside"] else ""
            label = u["label"]
            if u["kind"] in ("effect", "trigger", "replacement"):
                label = f"'{label}'"
            lines.append(f"  {f['file']}:{pos:<{width}}  {u['kind']:<{kw}}  {label}{tail}{more}")
    lines.append("")
    lines.append("summary (reached/total):")
    fw = max((len(f["file"]) for f in data["files"]), default=5)
    for f in data["files"]:
        pct = 100 * f["reached"] / f["total"] if f["total"] else 100.0
        kinds = ", ".join(f"{k} {v['reached']}/{v['total']}" for k, v in f["by_kind"].items())
        lines.append(f"  {f['file']:<{fw}}  {f['reached']:>4}/{f['total']:<4} {pct:5.1f}%   {kinds}")
    lines.append(f"  {'total':<{fw}}  {data['reached']:>4}/{data['total']:<4} {data['percent']:5.1f}%")
    if data["errors"]:
        lines.append("")
        lines.append(f"{len(data['errors'])} game(s) stopped with an error (their coverage up to it counts):")
        lines.extend(f"  {e}" for e in data["errors"][:10])
    return lines
