"""'Why did that happen?': events with their rule and content source, and the killer's targeting table.

Every event names the rule behind it (``rule``, a docs/rules.md id) and, when content caused it, the
effect's ``source`` (``file:line:col``). A targeting event (kind ``target``) carries the
candidates it weighed as ``(location id, distance, victims)``; C9.2 when distance alone decided,
C9.3 when the nearest were tied and victim count, then the tie policy, decided. This module
turns both into JSON-ready data (``event_json``, ``targeting``) and text (``event_lines``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from lastbreath.dsl import bundled_paths

from .state import Event

__all__ = ["event_json", "event_lines", "short_source", "table_lines", "targeting"]


@lru_cache(maxsize=1)
def _roots() -> tuple[str, ...]:
    return tuple(str(p.resolve().parent) + "/" for p in bundled_paths())


def short_source(source: str) -> str:
    """``file:line`` for people: bundled files relative to their package (``killers/x.fg:12``)."""
    if not source:
        return ""
    parts = source.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        path, line = parts[0], parts[1]
    else:
        path, line = source, ""
    for root in _roots():
        if path.startswith(root):
            path = path[len(root):]
            break
    else:
        try:
            rel = Path(path).resolve().relative_to(Path.cwd())
            path = str(rel)
        except (ValueError, OSError):
            pass
    return f"{path}:{line}" if line else path


def _names(game: Any) -> tuple[dict[str, int], list[str]]:
    board = getattr(game, "board", None)
    if board is None:
        return {}, []
    return board.index, list(board.names)


def targeting(event: Event, game: Any = None) -> Optional[dict[str, Any]]:
    """The targeting table of a ``target`` event: every candidate, the one chosen and the step that
    decided (``nearest`` C9.2, ``victim-count`` or ``tie-policy`` C9.3). None for other events."""
    if event.kind != "target" or not event.data:
        return None
    index, names = _names(game)
    rows = []
    for loc, dist, victims in event.data:
        name = names[index[loc]] if loc in index else loc
        rows.append({"location": loc, "name": name, "distance": dist, "victims": victims})
    best = min(r["distance"] for r in rows)
    near = [r for r in rows if r["distance"] == best]
    if len(near) == 1:
        decided, chosen = "nearest", near[0]
    else:
        most = max(r["victims"] for r in near)
        top = [r for r in near if r["victims"] == most]
        if len(top) == 1:
            decided, chosen = "victim-count", top[0]
        else:
            decided = "tie-policy"
            # the data does not name the winner of a tie-break; the event's text does ("target NAME: …")
            chosen = next((r for r in top if event.text.startswith(f"target {r['name']}:")), {})
    for r in rows:
        if r is chosen:
            r["outcome"] = "target"
        elif r["distance"] > best:
            r["outcome"] = "farther"
        elif decided == "tie-policy" and r["victims"] == max(x["victims"] for x in near):
            r["outcome"] = "lost the tie-break"
        else:
            r["outcome"] = "fewer victims"
    out: dict[str, Any] = {
        "rule": event.rule, "text": event.text, "source": event.source,
        "target": chosen["location"] if chosen else None,
        "decided_by": decided, "candidates": rows,
    }
    if decided == "tie-policy":
        out["tie_policy"] = getattr(game, "tie_policy", None)
    return out


def event_json(event: Event, game: Any = None) -> dict[str, Any]:
    """An event as JSON-ready data, with its rule, its source (full and short) and its data."""
    out: dict[str, Any] = {"kind": event.kind, "text": event.text, "rule": event.rule,
                           "source": event.source, "where": short_source(event.source),
                           "data": _plain(event.data)}
    table = targeting(event, game)
    if table is not None:
        out["targeting"] = table
    return out


def _plain(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return v


_DECIDED = {"nearest": "the nearest", "victim-count": "victim count", "tie-policy": "tie policy"}


def why_line(event: Event) -> str:
    """The line printed under an event with --explain: its rule and where it comes from."""
    rule = f"rule {event.rule}" if event.rule else "no rule id"
    where = short_source(event.source) or "core rules"
    return f"      why: {rule} · {where}"


def table_lines(table: dict[str, Any]) -> list[str]:
    """The targeting table as text, the chosen location marked with '>'."""
    decided = _DECIDED.get(table["decided_by"], table["decided_by"])
    if table["decided_by"] == "tie-policy" and table.get("tie_policy"):
        decided += f" ({table['tie_policy']})"
    rows = table["candidates"]
    w = max([len("location")] + [len(r["name"]) for r in rows])
    lines = [f"      targeting [{table['rule']}], decided by {decided}:",
             f"          {'location':<{w}}  distance  victims"]
    for r in rows:
        mark = ">" if r["outcome"] == "target" else " "
        lines.append(f"        {mark} {r['name']:<{w}}  {r['distance']:>8}  {r['victims']:>7}  {r['outcome']}")
    return lines


def event_lines(events: list[Event], game: Any, line_of) -> list[str]:
    """Each event's log line (``line_of(event)``) with its rule and source under it; the targeting
    table follows the killer's (or minion's) move it decided, or its target event when it did not move."""
    out: list[str] = []
    pending: Optional[list[str]] = None
    for e in events:
        if pending is not None and e.kind != "enemy-move":
            out.extend(pending)
            pending = None
        out.append(line_of(e))
        out.append(why_line(e))
        table = targeting(e, game)
        if table is not None:
            pending = table_lines(table)
        elif e.kind == "enemy-move" and pending is not None:
            out.extend(pending)
            pending = None
    if pending is not None:
        out.extend(pending)
    return out
