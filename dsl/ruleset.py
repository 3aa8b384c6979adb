"""Loading content: every .fg file under the given folders -> one immutable, checked Ruleset.

The loader reads everything and reports every problem at once (diagnostics from parsing,
building and checking); ``load_ruleset`` refuses content with errors by raising
``ContentError``, while ``load_content`` returns the diagnostics for tools such as ``check``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Iterable, Optional

import attrs

from . import nodes as n
from .build import Ref, build_file
from .check import check_content
from .diagnostics import ContentError, Diagnostic
from .syntax import parse_file

CONTENT_PACKAGES = ("cards", "killers", "scenarios")


def bundled_paths() -> list[Path]:
    """The folders of bundled content, found from an editable or a normal install."""
    out: list[Path] = []
    for name in CONTENT_PACKAGES:
        try:
            out.append(Path(str(resources.files(f"lastbreath.{name}"))))
        except (ModuleNotFoundError, TypeError, NotADirectoryError):
            out.append(Path(__file__).resolve().parent.parent / name)
    return out


@attrs.frozen(eq=False)
class Ruleset:
    """All loaded content, indexed by id. Built once, shared by every game."""

    cards: dict[str, n.Card]
    items: dict[str, n.Item]
    final_girls: dict[str, n.FinalGirl]
    killers: dict[str, n.Killer]
    scenarios: dict[str, n.Scenario]
    player_boards: dict[str, n.PlayerBoard]
    minions: dict[str, n.Minion]
    sources: dict[str, str]  # path -> text, for diagnostics with carets
    cache: dict = attrs.field(factory=dict)  # compiled boards and other derived tables

    def player_board(self) -> n.PlayerBoard:
        return next(iter(self.player_boards.values()))


def _files(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.fg") if q.is_file()))
        else:
            out.append(p)
    return out


def load_content(paths: Optional[Iterable[Path | str]] = None) -> tuple[Optional[Ruleset], list[Diagnostic]]:
    """Parse, build and check all content; the Ruleset is None when there are errors."""
    files = _files([Path(p) for p in paths] if paths is not None else bundled_paths())
    decls: list = []
    refs: list[Ref] = []
    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    for f in files:
        lines, d, text = parse_file(f)
        sources[str(f)] = text
        diags.extend(d)
        if d:
            continue
        got, r, d2 = build_file(lines, str(f))
        decls.extend(got)
        refs.extend(r)
        diags.extend(d2)
    tables, d3 = check_content(decls, refs)
    diags.extend(d3)
    diags.sort(key=lambda d: (d.span.path, d.span.line, d.span.col))
    if any(d.severity == "error" for d in diags):
        return None, diags
    return Ruleset(sources=sources, **tables), diags


def load_ruleset(paths: Optional[Iterable[Path | str]] = None) -> Ruleset:
    """Load content or raise ContentError with every diagnostic."""
    rs, diags = load_content(paths)
    if rs is None:
        raise ContentError([d for d in diags if d.severity == "error"])
    return rs
