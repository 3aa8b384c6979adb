"""What the commands share: content loaded with its diagnostics printed, a user's mistake as one
line, a game's log as ``play --bot`` and ``replay`` print it, and the options every command takes.

The command line (cli.py) and the rule checker's workbench (workbench.py) stand on this module;
it imports neither.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import Iterable, Optional, Sequence

from lastbreath.dsl import Diagnostic, bundled_paths, load_content
from lastbreath.dsl.ruleset import Ruleset

from .state import Event, GameState

PROG = "lastbreath"


class CliError(Exception):
    """A mistake the user can fix: printed as one line, with an exit code."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class ContentFailed(Exception):
    """Content did not load: the diagnostics were printed already."""


# --- loading content --------------------------------------------------------------------------
def existing(paths: Iterable[str], what: str) -> list[Path]:
    out = []
    for p in paths:
        q = Path(p)
        if not q.exists():
            raise CliError(f"{what} '{p}' does not exist")
        out.append(q)
    return out


def format_diags(diags: Sequence[Diagnostic], sources: Optional[dict[str, str]] = None) -> list[str]:
    """Diagnostics as text, with the source line of each whose file is in ``sources`` (the text
    the loader read): a file is never read again here, so no line from a file that was refused
    unread (a link out of its pack) is ever shown."""
    sources = sources or {}
    return [d.format(sources.get(d.span.path)) for d in diags]


def summary_line(diags: Sequence[Diagnostic]) -> str:
    errors = sum(d.severity == "error" for d in diags)
    warnings = len(diags) - errors
    parts = [f"{errors} error{'s' if errors != 1 else ''}"]
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)


def load_rules(extra: Sequence[str] = ()) -> Ruleset:
    """The bundled content plus ``--content`` paths; prints diagnostics and raises ContentFailed on errors."""
    paths = [*bundled_paths(), *existing(extra, "content path")]
    sources: dict[str, str] = {}
    rs, diags = load_content(paths, sources)  # folders stay whole: each is a pack (files given twice load once)
    if rs is None:
        for text in format_diags(diags, sources):
            print(text, file=sys.stderr)
        print(f"{PROG}: the content has {summary_line(diags)}", file=sys.stderr)
        raise ContentFailed()
    # The loaded content lives as long as the process: move it out of the garbage collector's
    # scans (about +20% games per second in long simulations).
    gc.freeze()
    return rs


# --- a game's log -------------------------------------------------------------------------------
def event_line(e: Event) -> str:
    return e.render() if e.kind == "phase" else "  " + e.render()


def result_line(state: GameState) -> str:
    who = "the Final Girl wins" if state.result == "fg" else "the killer wins"
    return f"result: {who} ({state.end_reason}) in round {state.round}"


def title(state: GameState) -> str:
    """The game's line under ``seed: N`` (the seed is printed once, on its own line)."""
    g = state.game
    mode = g.difficulty + (", legendary" if g.legendary else "")
    if g.modules:
        mode += f", module{'s' if len(g.modules) > 1 else ''} {', '.join(g.modules)}"
    return f"{g.fg.name} vs {g.killer.name} in {g.scenario.name} ({mode})"


# --- commands ---------------------------------------------------------------------------------


class GameLog:
    """A game's log as ``play --bot`` prints it, shared with ``replay``: text lines (or, with
    ``as_json``, records printed at the end); with ``explain`` every event also shows its rule and
    source, and the targeting table follows each enemy move."""

    def __init__(self, as_json: bool, explain: bool = False):
        self.as_json = as_json
        self.explain = explain
        self.records: list[dict] = []
        self.game: object = None

    def start(self, state: GameState, events: list[Event], seed: int) -> None:
        self.game = state.game
        if not self.as_json:
            print(title(state))
        self.events(events)

    def events(self, events: list[Event]) -> None:
        from . import explain

        if self.as_json:
            if self.explain:
                self.records.extend(explain.event_json(e, self.game) for e in events)
            else:
                self.records.extend({"kind": e.kind, "text": e.text, "rule": e.rule} for e in events)
        elif self.explain:
            for line in explain.event_lines(events, self.game, event_line):
                print(line)
        else:
            for e in events:
                print(event_line(e))

    def choice(self, label: str, key: str, events: list[Event]) -> None:
        if self.as_json:
            self.records.append({"kind": "choice", "text": label, "key": key, "rule": ""})
        else:
            print(f"  > {label}")
        self.events(events)

    def finish(self, state: GameState, seed: int, choices: int, bot: Optional[str]) -> None:
        if self.as_json:
            print(json.dumps({"seed": seed, **state.game.ids, "bot": bot, "result": state.result,
                              "end_reason": state.end_reason, "rounds": state.round, "choices": choices,
                              "log": self.records}, indent=2))
        elif state.over:
            print(result_line(state))
        else:
            print(f"game left unfinished after {choices} choice{'s' if choices != 1 else ''}, "
                  f"in round {state.round}")


# --- options ------------------------------------------------------------------------------------
def add_content(p: argparse.ArgumentParser) -> None:
    p.add_argument("--content", metavar="PATH", action="append", default=[],
                   help="a content pack to load next to the bundled content: a folder (with an optional "
                        "pack.fg) or a .fg file (repeatable)")
