"""``lastbreath try`` and ``lastbreath verify``: the rule checker's workbench (issue #15).

    lastbreath try my.position --play sprint --answer accept     # what happens, with rule ids
    lastbreath verify docs/rulings                               # run rulings; the first fact that differs

Both print diagnostics like ``lastbreath check`` for a position or rulings file that does not
check (exit 1), never a traceback; ``--json`` prints one JSON document instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from lastbreath.dsl import ContentError, RulesError

from . import engine
from .console import PROG, CliError, GameLog, add_content, format_diags, load_rules, result_line, summary_line
from .state import GameState

if TYPE_CHECKING:
    from . import rulings

# the positions, rulings and rules reference are imported by the commands that use them: every
# command line builds this module's parsers, and those modules cost ~35 ms of each start-up

MAX_STEPS = 500  # --play and --answer in one 'try'


class _Step(argparse.Action):
    """--play CARD and --answer KEY, kept in the order given (as ``play:CARD`` and ``KEY``)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Optional[str] = None) -> None:
        steps = list(getattr(namespace, "steps", None) or [])
        steps.append(f"play:{values}" if option_string == "--play" else str(values))
        namespace.steps = steps


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "try", help="play from a position file: what happens, with the rule id of every step",
        description="Set up the game a position file describes (docs/positions.md), answer the choices given "
                    "with --play and --answer in order, and print what happens, each step with its rule id, then "
                    "the choice that comes next (or the result). A position that does not check prints its "
                    "diagnostics (exit 1); an answer that is not an option prints the options (exit 1).")
    p.add_argument("position", metavar="POSITION", help="the position file")
    p.add_argument("--play", metavar="CARD", action=_Step, dest="steps",
                   help="play a card (the answer play:CARD); repeatable, in order with --answer")
    p.add_argument("--answer", metavar="KEY", action=_Step, dest="steps",
                   help="answer the next choice with an option's key (accept, move:millpond, …); repeatable")
    p.add_argument("--explain", action="store_true",
                   help="show each step's rule and content line, and targeting tables")
    p.add_argument("--json", action="store_true",
                   help='print {"position", "setup", "log", "choice", "result", "state"} as JSON')
    add_content(p)
    p.set_defaults(func=cmd_try, steps=[])

    p = sub.add_parser(
        "verify", help="run rulings: a position, choices and the facts expected; report each pass or failure",
        description="Run the rulings of files and folders (*.ruling; without a path: the bundled rulings, "
                    "docs/rulings). Each ruling sets up its position, makes its choices and checks its expected "
                    "facts in order; a failure names the first step that does not hold, what the game shows "
                    "instead, and the log. Exit 0 when every ruling passes, 1 otherwise.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="rulings files or folders (default: the bundled rulings)")
    p.add_argument("--json", action="store_true",
                   help='print {"ok", "passed", "failed", "rulings": [...], "diagnostics": [...]} as JSON')
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    add_content(p)
    p.set_defaults(func=cmd_verify)


# --- try --------------------------------------------------------------------------------------
def _read(path: str) -> str:
    from . import rulings

    p = Path(path)
    if not p.is_file():
        raise CliError(f"position file '{path}' does not exist")
    text, bad = rulings.read_file(p)
    if text is None:
        raise CliError(bad[0].format(), 1)
    return text


def _choice_json(state: GameState) -> Optional[dict[str, Any]]:
    c = state.choice
    if c is None or state.over:
        return None
    return {"kind": c.kind, "prompt": c.prompt, "options": [{"key": o.key, "label": o.label} for o in c.options]}


def cmd_try(args: argparse.Namespace) -> int:
    from .position import parse_position, run_position
    from .serve import public_state

    if len(args.steps) > MAX_STEPS:
        raise CliError(f"more than {MAX_STEPS} --play and --answer")
    text = _read(args.position)
    rs = load_rules(args.content)
    pos, diags = parse_position(rs, text, args.position)
    if pos is None:
        _print_diags(diags, {args.position: text}, args.json)
        return 1
    try:
        state, events = run_position(pos)
    except ContentError as err:
        _print_diags(err.diagnostics, {args.position: text}, args.json)
        return 1
    except RulesError as err:
        raise CliError(f"the game stopped: {err}", 1) from err
    log = GameLog(args.json, args.explain)
    if not args.json:
        print(f"position: {args.position}")
    log.start(state, events, state.seed)
    for key in args.steps:
        if state.over:
            _finish(log, state, args, pos.setup)
            raise CliError(f"'{key}': the game is over, there is no choice to answer", 1)
        assert state.choice is not None
        label = next((o.label for o in state.choice.options if o.key == key), None)
        if label is None:
            shown = ", ".join(state.choice.keys())
            raise CliError(f"'{key}' is not an option of '{state.choice.prompt}' (options: {shown})", 1)
        try:
            state, events = engine.apply(state, key)
        except RulesError as err:
            raise CliError(f"the game stopped: {err}", 1) from err
        log.choice(label, key, events)
    _finish(log, state, args, pos.setup)
    if args.json:
        print(json.dumps({"position": args.position, "setup": state.game.ids, "log": log.records,
                          "choice": _choice_json(state), "result": state.result or None,
                          "end_reason": state.end_reason or None, "state": public_state(state)}, indent=2))
    return 0


def _finish(log: Any, state: GameState, args: argparse.Namespace, setup: dict[str, Any]) -> None:
    if args.json:
        return
    if state.over:
        print(result_line(state))
        return
    assert state.choice is not None
    print(f"next: {state.choice.prompt}")
    width = max(len(o.key) for o in state.choice.options)
    for o in state.choice.options:
        print(f"  {o.key:<{width}}  {o.label}")


def _print_diags(diags: list, sources: dict[str, str], as_json: bool) -> None:
    if as_json:
        print(json.dumps({"ok": False, "diagnostics": [d.to_json() for d in diags]}, indent=2))
        return
    for line in format_diags(diags, sources):
        print(line, file=sys.stderr)
    first = next((d.code for d in diags if d.severity == "error"), "E400")
    print(f"{summary_line(diags)} ('{PROG} explain-error {first}' explains a code)", file=sys.stderr)


# --- verify -----------------------------------------------------------------------------------
def _cites(o: rulings.Outcome) -> str:
    return f" [{', '.join(o.ruling.rules)}]" if o.ruling.rules else ""


def cmd_verify(args: argparse.Namespace) -> int:
    from . import rules_reference, rulings

    paths = list(args.paths)
    if not paths:
        folder = rules_reference.rulings_dir()
        if folder is None:
            raise CliError("no rulings are bundled with this install: give rulings files or folders")
        paths = [str(folder)]
    files, missing = rulings.find_files(paths)
    if missing:
        raise CliError(f"rulings path '{missing[0]}' does not exist")
    if not files:
        raise CliError(f"no rulings files (*{rulings.SUFFIX}) in {', '.join(paths)}")
    rs = load_rules(args.content)
    outcomes, diags, sources = rulings.verify(rs, files)
    n = rulings.counts(outcomes)
    ok = not diags and n["failed"] == 0
    if args.json:
        print(json.dumps({"ok": ok, "passed": n["passed"], "failed": n["failed"],
                          "rulings": [o.to_json() for o in outcomes],
                          "diagnostics": [d.to_json() for d in diags]}, indent=2))
        return 0 if ok else 1
    for o in outcomes:
        r = o.ruling
        if o.ok:
            if not args.quiet:
                print(f"ok    {r.path}:{r.span.line}: {r.id}{_cites(o)}")
            continue
        where = o.step.span if o.step is not None else r.span
        print(f"FAIL  {r.path}:{where.line}:{where.col}: {r.id}{_cites(o)}")
        if r.says:
            print(f"      says: {r.says}")
        print(f"      {o.step.text if o.step else 'the position'}: {o.message}")
        print("      log:")
        for e in o.log or ():
            print("        " + (e.text if e.kind == "choice" else e.render()))
    if diags:
        for line in format_diags(diags, sources):
            print(line, file=sys.stderr)
    files_bad = len({d.span.path for d in diags})
    tail = f"; {files_bad} file{'s' if files_bad != 1 else ''} did not check ({summary_line(diags)})" \
        if diags else ""
    total = len(outcomes)
    print(f"{total} ruling{'s' if total != 1 else ''}: {n['passed']} passed, {n['failed']} failed{tail}")
    return 0 if ok else 1
