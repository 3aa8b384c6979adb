"""The ``lastbreath`` command line: play, check content, list content, simulate games, format content.

    lastbreath play                      # an interactive game of the default killer and scenario
    lastbreath play --bot random --seed 3
    lastbreath check my-killer.fg --with-bundled
    lastbreath explain-error E207         # what an error code means, a bad example and its fix
    lastbreath rule C9.4                 # a rule's text, the content lines and tests that cite it
    lastbreath try my.position --play walk   # play from a position: what happens, with rule ids
    lastbreath verify docs/rulings       # run rulings: each passes, or the first fact that differs
    lastbreath content --json
    lastbreath simulate --games 1000 --seed 1 --json
    lastbreath simulate --matrix --games 500 --csv   # every killer × scenario × Final Girl (--jobs N: processes)
    lastbreath report --out report --games 500       # report.md and plots (pip install 'lastbreath[report]')
    lastbreath fmt --check my-killer.fg
    lastbreath render ID …               # any card, killer, scenario… as English (or --all)
    lastbreath odds CARD --fear 4 --hand 3   # exact odds of each outcome of a card's fear check
    lastbreath play --bot random --seed 3 --save game.json --explain
    lastbreath replay game.json          # the saved game's log, replayed from its choices
    lastbreath serve                     # JSON-RPC 2.0 over stdin/stdout (docs/protocol.md)
    lastbreath lsp                       # a language server for editors (pip install 'lastbreath[lsp]')
    lastbreath coverage --games 200      # the content lines bot games never reach
    lastbreath fuzz --games 2000         # invariants checked after every transition
    lastbreath fuzz-input --content 2000 --protocol 2000 --saves 2000   # mutated inputs: crashes, hangs, memory

``main(argv)`` returns the exit code and never raises for a user mistake: 0 success, 1 content
errors or a failed game, 2 a usage mistake (unknown id, missing file, bad option).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from lastbreath.dsl import Diagnostic, RulesError, Span, bundled_paths, load_content
from lastbreath.dsl.ruleset import Ruleset, content_files

from . import api, engine
from .bots import BOTS, bot_name
from .console import (
    PROG,
    CliError,
    ContentFailed,
    GameLog,
    add_content,
    existing,
    format_diags,
    load_rules,
    summary_line,
    title,
)
from .expert import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("lastbreath")
    except Exception:  # not installed (running from a checkout)
        return "unknown"


class _VersionAction(argparse.Action):
    """--version: the installed version, looked up only when asked (importlib.metadata and the
    lookup cost ~20 ms of every command's start-up)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any,
                 option_string: Optional[str] = None) -> None:
        print(f"{PROG} {_version()}")
        parser.exit()


# --- loading content --------------------------------------------------------------------------
def _unknown(word: str, known: Iterable[str], what: str, flag: str) -> CliError:
    known = sorted(known)
    close = difflib.get_close_matches(word, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return CliError(f"unknown {what} '{word}' for {flag} ({hint}known: {', '.join(known) or 'none'})")


def resolve_setup(rs: Ruleset, args: argparse.Namespace) -> dict:
    """Validate --killer/--scenario/--final-girl/--difficulty against the content; fill in defaults."""
    if not rs.killers or not rs.scenarios or not rs.final_girls:
        raise CliError("the content needs at least one killer, one scenario and one final girl", 1)
    if not rs.player_boards:
        raise CliError("the content has no player_board", 1)
    dflt = api.defaults(rs)
    out = {}
    for key, flag, table, what in (("killer", "--killer", rs.killers, "killer"),
                                   ("scenario", "--scenario", rs.scenarios, "scenario"),
                                   ("final_girl", "--final-girl", rs.final_girls, "final girl")):
        value = getattr(args, key) or dflt[key]
        if value not in table:
            raise _unknown(value, table, what, flag)
        out[key] = value
    sides = [s.id for s in rs.player_board().sides]
    if args.difficulty not in sides:
        raise _unknown(args.difficulty, sides, "difficulty", "--difficulty")
    out["difficulty"] = args.difficulty
    out["legendary"] = bool(args.legendary)
    out["tie_policy"] = args.tie
    if getattr(args, "forced", "auto") != "auto":
        out["forced"] = args.forced
    mods = resolve_modules(rs, getattr(args, "modules", None), out["killer"], out["scenario"])
    if mods:
        out["modules"] = mods
    return out


def resolve_modules(rs: Ruleset, given: Optional[Sequence[str]], killer: Optional[str] = None,
                    scenario: Optional[str] = None) -> list[str]:
    """The --module ids, checked against the loaded modules (in id order, each once); with a killer
    and a scenario, also that no two of them replace or remove the same thing in that game."""
    from lastbreath.dsl.modules import game_content

    mods = sorted(set(given or ()))
    for m in mods:
        if m not in rs.modules:
            raise _unknown(m, rs.modules, "module", "--module")
    if mods and killer in rs.killers and scenario in rs.scenarios:
        try:
            game_content(rs, rs.killers[killer], rs.scenarios[scenario], mods)
        except RulesError as err:
            raise CliError(str(err)) from err
    return mods


# --- showing a game ---------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace) -> int:
    from lastbreath.dsl import SaveError

    from . import screen
    from .session import Session

    if args.json and not args.bot:
        raise CliError("--json needs --bot (an interactive game has no data to print)")
    if args.save:
        folder = Path(args.save).resolve().parent
        if not folder.is_dir():
            raise CliError(f"cannot save to '{args.save}': the folder does not exist")
    if args.load:
        given = [flag for flag, v in (("--killer", args.killer), ("--scenario", args.scenario),
                                      ("--final-girl", args.final_girl), ("--seed", args.seed),
                                      ("--legendary", args.legendary),
                                      ("--forced", args.forced != "auto"), ("--module", bool(args.modules)))
                 if v not in (None, False)]
        if given:
            raise CliError(f"--load resumes a game with its own setup and seed: leave out {', '.join(given)}")
        if not Path(args.load).is_file():
            raise CliError(f"save file '{args.load}' does not exist")
    rs = load_rules(args.content)
    if args.load:
        try:
            session = screen.load_session(rs, args.load)
        except OSError as err:
            raise CliError(f"cannot read '{args.load}': {err.strerror or err}") from err
        except SaveError as err:
            raise CliError(f"cannot load '{args.load}': {err}", 1) from err
        seed = session.seed
    else:
        setup = resolve_setup(rs, args)
        seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
        try:
            session = Session(rs, seed=seed, **setup)
        except RulesError as err:
            d = err.diagnostic
            if d is not None and d.span.line > 0:  # content at fault while setting up (E31x)
                raise CliError(f"the game stopped (seed {seed}):\n{err.format(rs.sources)}", 1) from err
            raise CliError(str(err), 1) from err
    if not args.json:
        print(f"seed: {seed}")
    if args.bot:
        return _play_bot(session, seed, args)
    return _play_interactive(session, seed, args)


def _save_game(session, args: argparse.Namespace) -> None:
    """``--save FILE``: write the session's save; a note on stderr (stdout is the game log)."""
    if not getattr(args, "save", None):
        return
    from . import replay

    try:
        replay.write(args.save, session.save())
    except OSError as err:
        raise CliError(f"cannot save to '{args.save}': {err.strerror or err}", 1) from err
    print(f"{PROG}: saved the game to {args.save}", file=sys.stderr)


def _stopped(err: RulesError, session, seed: int) -> CliError:
    """A game that stopped with a rules error: with the content line at fault and a caret (E31x)."""
    d = err.diagnostic
    if d is not None and d.span.line > 0:
        return CliError(f"the game stopped (seed {seed}):\n{err.format(session.ruleset.sources)}", 1)
    return CliError(f"the game stopped: {err} (seed {seed})", 1)


def _play_bot(session, seed: int, args: argparse.Namespace) -> int:
    policy = BOTS[args.bot](seed)
    log = GameLog(args.json, args.explain)
    log.start(session.state, session.events, seed)
    choices = 0
    try:
        while not session.over:
            if choices >= args.max_choices:
                raise RulesError(f"the game did not end within {args.max_choices} choices")
            state = session.state
            key = policy(state, state.choice)
            label = next(o.label for o in state.choice.options if o.key == key)
            choices += 1
            events = session.apply(key)
            log.choice(label, key, events)
    except RulesError as err:
        raise _stopped(err, session, seed) from err
    log.finish(session.state, seed, choices, args.bot)
    _save_game(session, args)
    return 0


def _play_interactive(session, seed: int, args: argparse.Namespace) -> int:
    """A game answered by a person: the screen on a terminal, the plain text log otherwise."""
    from . import native, replay, screen

    heading = title(session.state)
    view: screen.View
    if sys.stdout.isatty() and sys.stdin.isatty():
        view = screen.Terminal(sys.stdout, args.explain, screen.use_color(args.no_color), f"{heading} · seed {seed}")
    else:
        view = screen.Plain(sys.stdout, args.explain)

    def save(path: Optional[str]) -> str:
        if path is None:  # leaving the game: --save FILE, if given (its note on stderr, as before)
            _save_game(session, args)
            return ""
        if not Path(path).resolve().parent.is_dir():
            return f"cannot save to '{path}': the folder does not exist"
        try:
            replay.write(path, session.save())
        except OSError as err:
            return f"cannot save to '{path}': {err.strerror or err}"
        return f"saved the game to {path} ('{PROG} play --load {path}' resumes it)"

    try:
        return screen.play(session, view, save, heading, native.offer())
    except screen.GameStopped as err:
        cause = err.__cause__
        if isinstance(cause, RulesError):
            raise _stopped(cause, session, seed) from err
        raise CliError(f"the game stopped: {err} (seed {seed})", 1) from err


def cmd_replay(args: argparse.Namespace) -> int:
    from lastbreath.dsl import SaveError

    from . import replay

    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"save file '{args.file}' does not exist")
    rs = load_rules(args.content)
    try:
        data = replay.read(str(path))
        saved = data.get("game", {}).get("modules", []) if isinstance(data, dict) and \
            isinstance(data.get("game"), dict) else []
        if args.modules and sorted(set(args.modules)) != saved:
            named = ", ".join(map(str, saved)) if isinstance(saved, list) and saved else "none"
            raise CliError(f"the save names the modules of its game ({named[:200]}): --module may only repeat "
                           "them, or be left out")
        steps = replay.replay(rs, data)
    except OSError as err:
        raise CliError(f"cannot read '{args.file}': {err.strerror or err}") from err
    except SaveError as err:
        raise CliError(f"cannot replay '{args.file}': {err}", 1) from err
    seed = data["seed"]
    if not args.json:
        print(f"seed: {seed}")
        if data.get("position"):
            print(f"position: {data['position']['path']}")
    log = GameLog(args.json, args.explain)
    log.start(steps[0].state, steps[0].events, seed)
    for st in steps[1:]:
        log.choice(st.label or "", st.key or "", st.events)
    log.finish(steps[-1].state, seed, len(steps) - 1, None)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import MAX_MESSAGE_LIMIT, serve
    if not 1 <= args.max_message <= MAX_MESSAGE_LIMIT:
        raise CliError(f"--max-message must be 1 to {MAX_MESSAGE_LIMIT} bytes (16 MiB)")
    if args.max_games < 1:
        raise CliError("--max-games must be at least 1")
    rs = load_rules(args.content)
    return serve(rs, sys.stdin.buffer, sys.stdout.buffer, args.max_message, args.max_games)


def cmd_web(args: argparse.Namespace) -> int:
    from .serve import MAX_MESSAGE_LIMIT
    from .web import missing, run
    why = missing()
    if why:
        raise CliError(why)
    if not 1 <= args.max_message <= MAX_MESSAGE_LIMIT:
        raise CliError(f"--max-message must be 1 to {MAX_MESSAGE_LIMIT} bytes (16 MiB)")
    if not 0 <= args.port <= 65535:
        raise CliError("--port must be 0 to 65535 (0: a free one)")
    rs = load_rules(args.content)
    from .design import methods
    return run(rs, args.host, args.port, args.open, args.max_message, args.max_games,
               methods([Path(p) for p in args.content]))


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from .lsp import serve_stdio
    except ImportError as err:
        raise CliError(f"the language server needs pygls and lsprotocol ({err.name} is missing): "
                       "pip install 'lastbreath[lsp]'", 1) from None
    return serve_stdio()


def cmd_check(args: argparse.Namespace) -> int:
    paths = existing(args.paths, "path")
    packs = existing(args.content, "content path")
    if not paths and not packs:
        targets = None  # all bundled content
    elif args.with_bundled or packs:  # --content PACK: the pack checked with the bundled content
        targets = [*bundled_paths(), *paths, *packs]
    else:
        targets = paths
    sources: dict[str, str] = {}
    rs, diags = load_content(targets, sources)
    ok = rs is not None
    counts = _counts(rs) if rs is not None else {}
    if args.json:
        print(json.dumps({"ok": ok, "diagnostics": [d.to_json() for d in diags], "counts": counts}, indent=2))
        return 0 if ok else 1
    # diagnostics and the summary go to one stream (stderr, as compilers do), in the order written
    for text in format_diags(diags, sources):
        print(text, file=sys.stderr)
    if ok:
        assert rs is not None
        summary = ", ".join(_plural(v, k) for k, v in counts.items())
        fan = [p for p in rs.packs if p != "core"]
        summary += f"; packs: {', '.join(['core', *fan] if 'core' in rs.packs else fan)}" if fan else ""
        tail = f" ({summary_line(diags)})" if diags else ""
        print(f"ok: {summary}{tail}", file=sys.stderr)
        return 0
    first = next(d.code for d in diags if d.severity == "error")
    print(f"{summary_line(diags)} ('{PROG} explain-error {first}' explains a code)", file=sys.stderr)
    return 1


def cmd_explain_error(args: argparse.Namespace) -> int:
    import attrs
    from lastbreath.dsl.diagnostics import CATALOGUE, errors_markdown, lookup

    if args.markdown:
        sys.stdout.write(errors_markdown())
        return 0
    if not args.code:
        if args.json:
            print(json.dumps([attrs.asdict(e) for e in CATALOGUE], indent=2))
        else:
            for e in CATALOGUE:
                print(f"{e.code}  {e.severity:<7}  {e.title}")
        return 0
    entry = lookup(args.code)
    if entry is None:
        raise _unknown(args.code.strip().upper(), [e.code for e in CATALOGUE], "error code", "explain-error")
    print(json.dumps(attrs.asdict(entry), indent=2) if args.json else entry.explain(), end="\n" if args.json else "")
    return 0


def cmd_rule(args: argparse.Namespace) -> int:
    from . import rules_reference as rr

    try:
        ref = rr.load_reference()
    except (OSError, rr.RulesPageError) as err:
        raise CliError(f"the rules reference cannot be read: {err}", 1) from None
    if not args.id:
        print(json.dumps(rr.listing_data(ref), indent=2) if args.json else rr.listing_text(ref))
        return 0
    item = ref.find(args.id)
    if item is None:
        word = args.id.strip()
        close = ref.suggestions(word) if len(word) <= 40 else []
        names = [f"'{c}'" for c in close]
        hint = f"'{PROG} rule' lists every id"
        if names:
            hint = f"did you mean {', '.join(names[:-1]) + ' or ' if len(names) > 1 else ''}{names[-1]}?"
        raise CliError(f"unknown rule id '{word if len(word) <= 40 else word[:40] + '…'}' ({hint})")
    rs = load_rules(args.content)
    data = rr.lookup_data(ref, item, rs.sources, rr.tests_dir(), rr.rulings_dir())
    print(json.dumps(data, indent=2) if args.json else rr.render_text(data))
    return 0


def _counts(rs: Ruleset) -> dict[str, int]:
    out = {"cards": len(rs.cards), "items": len(rs.items), "killers": len(rs.killers),
           "scenarios": len(rs.scenarios), "final_girls": len(rs.final_girls),
           "minions": len(rs.minions), "player_boards": len(rs.player_boards)}
    if rs.modules:  # only when there are some (the bundled content has none)
        out["modules"] = len(rs.modules)
    return out


def _plural(count: int, key: str) -> str:
    word = key.replace("_", " ")
    return f"{count} {word if count != 1 else word[:-1]}"


def cmd_content(args: argparse.Namespace) -> int:
    rs = load_rules(args.content)

    def rows(key: str) -> list[dict]:
        table = getattr(rs, key)
        return [{"id": k, "name": table[k].name, "pack": rs.pack(key, k)} for k in sorted(table)]

    from .serve import module_rows

    data = {"killers": rows("killers"), "scenarios": rows("scenarios"),
            "final_girls": rows("final_girls"), "modules": module_rows(rs)}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    table = [("KIND", "ID", "PACK", "NAME")]
    for key, kind in (("killers", "killer"), ("scenarios", "scenario"), ("final_girls", "final girl"),
                      ("modules", "module")):
        table.extend((kind, r["id"], r.get("pack", ""), r["name"]) for r in data[key])
    w0 = max(len(r[0]) for r in table)
    w1 = max(len(r[1]) for r in table)
    w2 = max(len(r[2]) for r in table)
    changes = {m["id"]: m["changes"] for m in data["modules"]}
    for r in table:
        print(f"{r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]:<{w2}}  {r[3]}".rstrip())
        if r[0] == "module":
            for line in changes[r[1]]:
                print(f"{'':<{w0}}    {line}")
    if not data["modules"]:
        print("(no modules)")
    return 0


# --- simulate and report ------------------------------------------------------------------------
_SETUP_FLAGS = (("killer", "--killer", "killers", "killer"), ("scenario", "--scenario", "scenarios", "scenario"),
                ("final_girl", "--final-girl", "final_girls", "final girl"))


def _sim_setups(rs: Ruleset, args: argparse.Namespace, matrix: bool) -> list[dict]:
    """The setups to simulate: one (the ids given, or the defaults) or, with ``matrix``, every
    killer × scenario × Final Girl kept by the repeatable --killer/--scenario/--final-girl filters."""
    picked: dict[str, list[str]] = {}
    for key, flag, table, what in _SETUP_FLAGS:
        values = list(dict.fromkeys(getattr(args, key) or []))
        for v in values:
            if v not in getattr(rs, table):
                raise _unknown(v, getattr(rs, table), what, flag)
        picked[key] = values
    if not matrix:
        for key, flag, _, _ in _SETUP_FLAGS:
            if len(picked[key]) > 1:
                raise CliError(f"{flag} given more than once: add --matrix to simulate every combination")
        one = argparse.Namespace(**{**vars(args), **{k: (v[0] if v else None) for k, v in picked.items()}})
        return [resolve_setup(rs, one)]
    return _matrix_of(rs, args, picked)


def _matrix_of(rs: Ruleset, args: argparse.Namespace, picked: dict[str, list[str]],
               default_final_girl: bool = False) -> list[dict]:
    """Every killer × scenario × Final Girl of ``picked`` (an empty list: all of that kind; with
    ``default_final_girl``: the default Final Girl instead), with the side, tie policy and modules of
    ``args`` (each setup's modules resolved for its killer and scenario)."""
    from . import simulate

    base = resolve_setup(rs, argparse.Namespace(**{**vars(args), "killer": None, "scenario": None,
                                                    "final_girl": None}))
    if default_final_girl and not picked["final_girl"]:
        picked = {**picked, "final_girl": [base["final_girl"]]}
    common = {k: base[k] for k in ("difficulty", "legendary", "tie_policy")}
    setups = simulate.matrix_setups(rs, picked["killer"], picked["scenario"], picked["final_girl"], **common)
    if base.get("modules"):
        for setup in setups:
            setup["modules"] = resolve_modules(rs, base["modules"], setup["killer"], setup["scenario"])
    return setups


def _run_sim(rs: Ruleset, args: argparse.Namespace, setups: list[dict], detail: bool = False, reach: bool = False,
             label: str = ""):
    """Play ``--games`` games of each setup (on ``--jobs`` processes or a dask ``--scheduler``) with
    a progress bar on a terminal; the records of each setup and the wall time (``detail``,
    ``reach``: simulate.play_one; ``label``: said before the bar)."""
    from . import simulate

    if args.games < 1:
        raise CliError("--games must be at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    jobs = args.jobs or os.cpu_count() or 1
    progress = None
    if sys.stderr.isatty() and not args.no_progress:
        if label:
            print(label, file=sys.stderr)
        progress = simulate.Progress(args.games * len(setups))
    t0 = time.perf_counter()
    try:
        with simulate.Simulator(rs, jobs, args.content, getattr(args, "scheduler", None)) as sim:
            out = sim.run(setups, args.games, args.seed, args.bot, args.max_choices, progress, detail, reach)
    except simulate.SimulationError as err:
        code = 2 if "pip install" in str(err) else 1
        raise CliError(str(err), code) from err
    finally:
        if progress is not None:
            progress.clear()
    return out, time.perf_counter() - t0, jobs


def _engine_kind() -> str:
    from . import native

    return native.engine_kind()


def _engine_note() -> str:
    """The engine that played, for a person: the plain one says how to get the compiled one."""
    if _engine_kind() == "compiled":
        return "compiled engine"
    return "plain engine: `lastbreath native build` makes games about twice as fast"


def cmd_simulate(args: argparse.Namespace) -> int:
    from . import simulate

    if args.json and args.csv:
        raise CliError("give --json or --csv, not both")
    rs = load_rules(args.content)
    setups = _sim_setups(rs, args, args.matrix)
    records, elapsed, jobs = _run_sim(rs, args, setups, detail=args.full)
    run = {"seed": args.seed, "bot": args.bot, "jobs": jobs if args.scheduler is None else None,
           "scheduler": args.scheduler, "engine": _engine_kind() if args.scheduler is None else None}
    # one pair: its games per second are the run's (wall clock); in a matrix each pair's are one
    # process's (the games' own times) and the total is the run's
    rows = [{**setup, **simulate.summarize(recs, elapsed if len(setups) == 1 else None)}
            for setup, recs in zip(setups, records)]
    total = simulate.summarize([r for recs in records for r in recs], elapsed)
    failed = total["errors"]
    if args.csv:
        print(simulate.csv_text(rows), end="")
    elif args.json:
        if not args.full:  # compact: the per-round series only on request
            rows = [simulate.compact(r) for r in rows]
            total = simulate.compact(total)
        if args.matrix:
            print(json.dumps({"pairs": rows, "total": {**total, **run}}))
        else:
            print(json.dumps({**rows[0], **run}))
    elif not args.matrix:
        r, setup = rows[0], setups[0]
        g = f"{setup['final_girl']} vs {setup['killer']} in {setup['scenario']} ({setup['difficulty']}" \
            + (", legendary" if setup["legendary"] else "") \
            + (f", modules {', '.join(setup['modules'])}" if setup.get("modules") else "") + ")"
        lo, hi = r["win_rate_ci"]
        print(f"{args.games} games of {g}, {args.bot} bot, seeds {args.seed}..{args.seed + args.games - 1}")
        print(f"wins {r['wins']} · losses {r['losses']} · errors {r['errors']} · win rate {r['win_rate']:.1%} "
              f"(95% CI {lo:.1%}–{hi:.1%})")
        print(f"mean rounds {r['mean_rounds']:.2f} (median {r['rounds']['median']:g}) · rescued "
              f"{r['mean_rescued']:.2f} · killed {r['mean_killed']:.2f} per game")
        if r["end_reasons"]:
            print("ends: " + " · ".join(f"{why} {n}" for why, n in r["end_reasons"].items()))
        where = f"{jobs} job{'s' if jobs != 1 else ''}" if args.scheduler is None else f"dask {args.scheduler}"
        engine = f", {_engine_note()}" if args.scheduler is None else ""
        print(f"{r['games_per_second']:.0f} games/s ({where}{engine})")
        for s in r["error_samples"]:
            print(f"error: {s}")
    else:
        head = ("final girl", "killer", "scenario", "games", "win rate", "95% CI", "rounds", "rescued", "killed",
                "errors")
        table = [head] + [(r["final_girl"], r["killer"], r["scenario"], str(r["games"]), f"{r['win_rate']:.1%}",
                           f"{r['win_rate_ci'][0]:.1%}–{r['win_rate_ci'][1]:.1%}", f"{r['mean_rounds']:.2f}",
                           f"{r['mean_rescued']:.2f}", f"{r['mean_killed']:.2f}", str(r["errors"])) for r in rows]
        widths = [max(len(t[i]) for t in table) for i in range(len(head))]
        for t in table:
            print("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))).rstrip())
        lo, hi = total["win_rate_ci"]
        print(f"total: {total['games']} games · {total['wins']} won · {total['errors']} errors · win rate "
              f"{total['win_rate']:.1%} (95% CI {lo:.1%}–{hi:.1%}) · {total['games_per_second']:.0f} games/s"
              + (f" ({_engine_note()})" if args.scheduler is None else ""))
        for r in rows:
            for s in r["error_samples"]:
                print(f"error: {r['final_girl']} vs {r['killer']} in {r['scenario']}: {s}")
    return 0 if failed == 0 else 1


def cmd_report(args: argparse.Namespace) -> int:
    from . import report
    from .serialize import content_hash

    try:
        report._pyplot()
    except report.MissingMatplotlib as err:
        raise CliError(str(err), 2) from err
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out '{args.out}' is a file, not a folder")
    rs = load_rules(args.content)
    setups = _sim_setups(rs, args, matrix=True)
    records, elapsed, jobs = _run_sim(rs, args, setups, detail=True)
    settings = {"bot": args.bot, "games": args.games, "seed": args.seed, "jobs": jobs,
                "content": content_hash(rs), "version": _version()}
    try:
        files = report.write_report(out, rs, setups, records, settings, elapsed, html=args.html)
    except OSError as err:
        raise CliError(f"cannot write the report to '{args.out}': {err.strerror or err}", 1) from err
    failed = sum(bool(r.error) for recs in records for r in recs)
    if args.json:
        print((out / "report.json").read_text(encoding="utf-8"))
    else:
        plots = [f for f in files if f.suffix == ".png"]
        also = ", report.html" if args.html else ""
        print(f"wrote {files[0]} ({len(setups)} pair{'s' if len(setups) != 1 else ''}, "
              f"{args.games * len(setups)} games, {args.bot} bot), report.json{also} and {len(plots)} plots in {out}")
    if failed:
        print(f"{PROG}: {failed} game{'s' if failed != 1 else ''} failed (listed in the report)", file=sys.stderr)
    return 0 if failed == 0 else 1


# --- compare ------------------------------------------------------------------------------------
def _declared_in(table: Mapping, content: Sequence[str]) -> list[str]:
    """The ids of ``table`` whose declaration lies in one of the content paths (a folder or a file)."""
    roots = [Path(c).resolve() for c in content]
    out = []
    for key, node in table.items():
        span = getattr(node, "span", None)
        if span is None:
            continue
        real = Path(span.path).resolve()
        if any(real == r or r in real.parents for r in roots):
            out.append(key)
    return sorted(out)


def _compare_setups(rs_a: Ruleset, rs_b: Ruleset, args: argparse.Namespace, packs: Sequence[str]) -> list[dict]:
    """The pairs compare plays: the ids given (each known to both versions), else the pack's own killers
    and scenarios (every one where the pack has none), with the default Final Girl unless some are given."""
    picked: dict[str, list[str]] = {}
    for key, flag, table, what in _SETUP_FLAGS:
        values = list(dict.fromkeys(getattr(args, key) or []))
        both = set(getattr(rs_a, table)) & set(getattr(rs_b, table))
        for v in values:
            if v not in both:
                raise _unknown(v, sorted(both), f"{what} (of both versions)", flag)
        if not values and key != "final_girl":
            own = set(_declared_in(getattr(rs_a, table), packs[:1])) | set(_declared_in(getattr(rs_b, table),
                                                                                        packs[1:]))
            values = sorted(own & both)
        picked[key] = values
    return _matrix_of(rs_b, args, picked, default_final_girl=True)


def cmd_compare(args: argparse.Namespace) -> int:
    from . import compare, simulate

    if args.games < 1:
        raise CliError("--games must be at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    if not 0 < args.alpha < 1:
        raise CliError("--alpha must be between 0 and 1")
    revs = args.rev or []
    if revs:
        if len(revs) != 2 or len(args.content) != 1:
            raise CliError("--rev takes two revisions (--rev A --rev B) and one --content PATH: the pack in "
                           "this git work tree")
    elif len(args.content) != 2:
        raise CliError("give two versions of a pack: --content A --content B (folders or .fg files), or "
                       "--content PATH --rev A --rev B")
    for c in args.content:
        if not Path(c).exists():
            raise CliError(f"content path '{c}' does not exist")
    tmp = compare.temp_folder() if revs else None
    try:
        if tmp is not None:
            try:
                packs = [compare.checkout(args.content[0], r, tmp.name) for r in revs]
            except compare.CompareError as err:
                raise CliError(str(err)) from err
            names = [f"{args.content[0]} at {r}" for r in revs]
        else:
            packs = list(args.content)
            names = packs
        versions = []
        for name, pack in zip(("A", "B"), packs):
            try:
                versions.append(load_rules([pack]))
            except ContentFailed:
                print(f"{PROG}: version {name} ({pack}) does not load", file=sys.stderr)
                raise
        rs_a, rs_b = versions
        setups = _compare_setups(rs_a, rs_b, args, packs)
        if not setups:
            raise CliError("no pair to compare: name one with --killer and --scenario")
        jobs = args.jobs or os.cpu_count() or 1
        total = args.games * len(setups)
        show = sys.stderr.isatty() and not args.no_progress
        bars: dict[str, simulate.Progress] = {}

        def progress(name: str, recs: list) -> None:
            bar = bars.get(name)
            if bar is None:
                if bars:
                    next(iter(bars.values())).clear()
                print(f"version {name}: {len(setups)} pair{'s' if len(setups) != 1 else ''} × {args.games} games",
                      file=sys.stderr)
                bar = bars[name] = simulate.Progress(total)
            bar(recs)

        try:
            data = compare.compare(rs_a, rs_b, setups, args.games, args.seed, args.bot, content_a=[packs[0]],
                                   content_b=[packs[1]], jobs=jobs, max_choices=args.max_choices, alpha=args.alpha,
                                   progress=progress if show else None)
        except simulate.SimulationError as err:
            raise CliError(str(err)) from err
        finally:
            for bar in bars.values():
                bar.clear()
    finally:
        if tmp is not None:
            tmp.cleanup()
    data["a"], data["b"] = names
    if args.json:
        print(json.dumps(data))
    else:
        for line in compare.format_compare(data, names[0], names[1]):
            print(line)
    failed = data["total"]["a"]["errors"] + data["total"]["b"]["errors"]
    return 0 if failed == 0 else 1


# --- coverage and fuzz -----------------------------------------------------------------------
def _filters(rs: Ruleset, args: argparse.Namespace) -> dict[str, Optional[list[str]]]:
    """The repeatable --killer/--scenario/--final-girl filters, checked against the content (None: all)."""
    out: dict[str, Optional[list[str]]] = {}
    for key, flag, table, what in (("killer", "--killer", rs.killers, "killer"),
                                   ("scenario", "--scenario", rs.scenarios, "scenario"),
                                   ("final_girl", "--final-girl", rs.final_girls, "final girl")):
        values = list(dict.fromkeys(getattr(args, key) or []))
        for v in values:
            if v not in table:
                raise _unknown(v, table, what, flag)
        if not table:
            raise CliError("the content needs at least one killer, one scenario and one final girl", 1)
        out[key] = values or None
    if not rs.player_boards:
        raise CliError("the content has no player_board", 1)
    return out


def cmd_coverage(args: argparse.Namespace) -> int:
    from . import coverage

    if args.games < 1:
        raise CliError("--games must be at least 1")
    rs = load_rules(args.content)
    picked = _filters(rs, args)
    sides = [s.id for s in rs.player_board().sides]
    if args.difficulty not in sides:
        raise _unknown(args.difficulty, sides, "difficulty", "--difficulty")
    data = coverage.run_coverage(rs, args.games, args.bot, args.seed, picked["killer"], picked["scenario"],
                                 picked["final_girl"], args.difficulty, args.max_choices, not args.all)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        for line in coverage.format_report(data):
            print(line)
    return 1 if data["errors"] else 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from . import fuzz, replay

    if args.games < 1:
        raise CliError("--games must be at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    if args.save_repro and not Path(args.save_repro).resolve().parent.is_dir():
        raise CliError(f"cannot write '{args.save_repro}': the folder does not exist")
    rs = load_rules(args.content)
    picked = _filters(rs, args)
    jobs = args.jobs or os.cpu_count() or 1
    progress = None
    if sys.stderr.isatty() and not args.no_progress:
        def progress(done: int, total: int) -> None:
            print(f"\r{PROG} fuzz: {done}/{total} games", end="" if done < total else "\n", file=sys.stderr,
                  flush=True)
    mods = resolve_modules(rs, args.modules)
    for k in picked["killer"] or rs.killers:  # two modules that clash in a game: said before any is played
        for sc in picked["scenario"] or rs.scenarios:
            resolve_modules(rs, mods, k, sc)
    if args.stop_after is not None and args.stop_after <= 0:
        raise CliError("--stop-after must be more than 0")

    def on_term(signum: int, frame: Any) -> None:  # timeout's SIGTERM: report what was checked, as Ctrl-C does
        raise KeyboardInterrupt("SIGTERM")
    import signal
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        data = fuzz.run_fuzz(rs, args.games, args.seed, args.bot, picked["killer"], picked["scenario"],
                             picked["final_girl"], jobs=jobs, content=args.content, max_choices=args.max_choices,
                             progress=progress, modules=mods, stop_after=args.stop_after)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.save_repro and data["violations"]:
        try:
            replay.write(args.save_repro, fuzz.repro_save(rs, data["violations"][0]))
        except OSError as err:
            raise CliError(f"cannot write '{args.save_repro}': {err.strerror or err}", 1) from err
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        for line in fuzz.format_report(data):
            print(line)
        if args.save_repro and data["violations"]:
            print(f"wrote the first violation's setup, seed and choices to {args.save_repro} "
                  f"('{PROG} replay {args.save_repro}' replays them)")
    sys.stdout.flush()
    if not data["clean"]:
        return 1
    return {"SIGTERM": 143, "interrupted": 130}.get(data["stopped"], 0)  # (128 + the signal; 0 at --stop-after)


def cmd_fuzz_input(args: argparse.Namespace) -> int:
    from . import fuzzinput

    counts = {"content": args.content_cases, "protocol": args.protocol, "saves": args.saves,
              "positions": args.positions}
    if all(v is None for v in counts.values()):
        counts = {k: 200 for k in counts}
    counts = {k: v or 0 for k, v in counts.items()}
    for k, v in counts.items():
        if v < 0:
            raise CliError(f"--{k} must be 0 or more")
    if sum(counts.values()) == 0:
        raise CliError("nothing to do: give --content N, --protocol N, --saves N or --positions N")
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    if args.time_limit <= 0:
        raise CliError("--time-limit must be more than 0")
    if args.max_memory < 256:
        raise CliError("--max-memory must be at least 256 (MB)")
    if args.out and not Path(args.out).resolve().parent.is_dir():
        raise CliError(f"cannot write to '{args.out}': the folder above it does not exist")
    rs = load_rules()
    jobs = args.jobs or os.cpu_count() or 1
    progress = None
    if not args.no_progress:
        tty = sys.stderr.isatty()
        shown: dict[str, int] = {}

        def progress(kind: str, done: int, total: int) -> None:
            if tty:
                print(f"\r{PROG} fuzz-input: {kind} {done}/{total}", end="" if done < total else "\n",
                      file=sys.stderr, flush=True)
            elif done * 10 // total != shown.get(kind, -1):  # a line every tenth
                shown[kind] = done * 10 // total
                print(f"{PROG} fuzz-input: {kind} {done}/{total}", file=sys.stderr, flush=True)
    data = fuzzinput.run(rs, counts["content"], counts["protocol"], counts["saves"], seed=args.seed, jobs=jobs,
                         time_limit=args.time_limit, memory_mb=args.max_memory, progress=progress,
                         positions=counts["positions"])
    if args.out and data["failures"]:
        out = Path(args.out)
        made = fuzzinput.corpora(rs)
        try:
            out.mkdir(exist_ok=True)
            for f in data["failures"]:
                suffix, raw = fuzzinput.case_input(fuzzinput.make_case(f["kind"], args.seed, f["index"], made))
                (out / f"{f['kind']}-{f['index']}{suffix}").write_bytes(raw)
        except OSError as err:
            raise CliError(f"cannot write to '{args.out}': {err.strerror or err}", 1) from err
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        for line in fuzzinput.format_report(data):
            print(line)
        if args.out and data["failures"]:
            print(f"wrote the input of each failure to {args.out}")
    return 0 if data["clean"] else 1


def _unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file (``patch -p0`` applies it); marks a missing final newline."""
    def lines(text: str) -> list[str]:
        parts = text.split("\n")
        out = [p + "\n" for p in parts[:-1]]
        return out + [parts[-1]] if parts[-1] else out

    diff = difflib.unified_diff(lines(before), lines(after), f"{path}\t(original)", f"{path}\t(formatted)")
    return "".join(d if d.endswith("\n") else d + "\n\\ No newline at end of file\n" for d in diff)


def cmd_fmt(args: argparse.Namespace) -> int:
    from lastbreath.dsl.format import format_file

    paths = existing(args.paths, "path") if args.paths else bundled_paths()
    write = not (args.check or args.diff)
    changed: list[str] = []
    unchanged = 0
    errors: list[Diagnostic] = []
    sources: dict[str, str] = {}
    diffs: dict[str, str] = {}
    files, refused = content_files(paths)
    errors.extend(refused)
    for f in files:
        name = str(f)
        text, formatted, diags = format_file(f)
        if formatted is None:
            errors.extend(diags)
            sources[name] = text
            continue
        if formatted == text:
            unchanged += 1
            continue
        if write:
            try:
                f.write_bytes(formatted.encode("utf-8"))
            except OSError as err:
                errors.append(Diagnostic(Span(name, 1, 1, 1, 2), "E100", f"cannot write the file: {err.strerror}"))
                continue
        changed.append(name)
        if args.diff:
            diffs[name] = _unified_diff(text, formatted, name)
    code = 1 if errors or (args.check and changed) else 0
    if args.json:
        data: dict = {"changed": changed, "unchanged": unchanged, "errors": [d.to_json() for d in errors]}
        if args.diff:
            data["diffs"] = diffs
        print(json.dumps(data, indent=2))
        return code
    listing = sys.stderr if args.diff else sys.stdout  # with --diff, stdout is a clean patch
    for name in changed:
        print(f"{'reformatted' if write else 'would reformat'} {name}", file=listing)
        if args.diff:
            print(diffs[name], end="")
    for text in format_diags(errors, sources):
        print(text, file=sys.stderr)
    done = "reformatted" if write else "would be reformatted"
    summary = [f"{len(changed)} file{'s' if len(changed) != 1 else ''} {done}",
               f"{unchanged} file{'s' if unchanged != 1 else ''} already formatted"]
    failed = len({d.span.path for d in errors})
    if failed:
        summary.append(f"{failed} file{'s' if failed != 1 else ''} could not be formatted")
    print(", ".join(summary), file=sys.stderr)
    return code


# --- render and odds: authoring tools -----------------------------------------------------------
def render_index(rs: Ruleset, top_level: bool = False) -> list[tuple[str, str, object]]:
    """(kind, id, declaration) of everything ``render`` shows, in content order (design.render_index)."""
    from .design import render_index as index

    return index(rs, top_level)


def cmd_render(args: argparse.Namespace) -> int:
    from lastbreath.dsl.render import Names, render

    if args.all == bool(args.ids):
        raise CliError("give one or more ids to render, or --all (not both)")
    rs = load_rules(args.content)
    index = render_index(rs, top_level=args.all)
    if args.all:
        chosen = index
    else:
        chosen = []
        for want in args.ids:
            found = [e for e in index if e[1] == want]
            if not found:
                known = sorted({e[1] for e in index})
                close = difflib.get_close_matches(want, known, n=1)
                hint = f"did you mean '{close[0]}'?" if close else "see 'lastbreath render --all'"
                raise CliError(f"unknown id '{want}' ({hint})")
            chosen += found
    names = Names.from_ruleset(rs)
    rows = [{"kind": kind, "id": eid, "name": getattr(d, "name", eid), "text": render(d, names)}
            for kind, eid, d in chosen]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(r["text"] for r in rows))
    return 0


def _fraction_json(p) -> dict:
    return {"p": float(p), "fraction": str(p)}


def cmd_native(args: argparse.Namespace) -> int:
    """lastbreath native [status|build|clean]: the engine's rules modules compiled with mypyc."""
    from . import native

    if args.action == "build":
        say = (lambda msg: print(f"{PROG}: {msg}", file=sys.stderr)) if not args.quiet else (lambda msg: None)
        try:
            got = native.build(say)
        except (native.BuildError, OSError) as err:  # (OSError: the cache folder full or unwritable)
            raise CliError(f"native build failed: {err}", 1) from None
        if args.json:
            print(json.dumps(got, indent=2))
        else:
            print(f"{'built' if got['built'] else 'already built'}: {len(got['modules'])} modules in {got['folder']}"
                  " (used by every process started from now on; LASTBREATH_NATIVE=off for the plain modules)")
        return 0
    if args.action == "clean":
        gone = native.clean(keep_current=args.keep_current)
        if args.json:
            print(json.dumps({"removed": gone}, indent=2))
        else:
            print(f"removed {len(gone)} build{'s' if len(gone) != 1 else ''}" + "".join(f"\n  {g}" for g in gone))
        return 0
    info = native.status()
    print(json.dumps(info, indent=2) if args.json else native.describe(info))
    return 0


def cmd_odds(args: argparse.Namespace) -> int:
    from lastbreath.dsl.build import TIERS
    from lastbreath.dsl.render import TIER_NAMES, render_effects

    from .odds import check_dice, expected_discards, outcome_odds

    rs = load_rules(args.content)
    card = rs.cards.get(args.card)
    if card is None:
        raise _unknown(args.card, rs.cards, "card", "lastbreath odds")
    if card.kind == "reroll" or not card.outcomes:
        raise CliError(f"{card.name} is a reroll card: it makes no fear check of its own (C2.6)")
    if not rs.player_boards:
        raise CliError("the content has no player_board", 1)
    sides = {s.id: s for s in rs.player_board().sides}
    side = sides.get(args.difficulty)
    if side is None:
        raise _unknown(args.difficulty, sides, "difficulty", "--difficulty")
    start_hand = sum(c.copies for c in rs.cards.values() if c.start_in_hand and not c.owner)
    hand = args.hand if args.hand is not None else max(0, start_hand - 1)
    if hand < 0:
        raise CliError("--hand must be 0 or more")
    if args.dice is not None and args.dice < 0:
        raise CliError("--dice must be 0 or more")
    checks: list[tuple[Optional[int], Optional[int], int]]
    if args.dice is not None:
        checks = [(None, None, args.dice)]
    elif args.fear is not None:
        zone = next((z for z in side.zones if z.low <= args.fear <= z.high), None)
        if zone is None:
            raise CliError(f"--fear {args.fear} is off the {side.id} side's fear track "
                           f"({side.fear_min} to {side.fear_max})")
        checks = [(args.fear, args.fear, zone.dice)]
    else:
        checks = [(z.low, z.high, z.dice) for z in side.zones]
    tiers = tuple(sorted({o.min_successes for o in card.outcomes} | {0}))
    top = tiers[-1]
    effects = {o.min_successes: render_effects(o.effects) for o in card.outcomes}
    words = {v: k for k, v in TIERS.items()}
    result = []
    for low, high, base in checks:
        dice = check_dice(base, card.dice, 0, args.fg_last_breath, args.killer_last_breath)
        plain, conv = outcome_odds(dice, 0, tiers), outcome_odds(dice, hand, tiers)
        result.append({
            "fear_low": low, "fear_high": high, "base_dice": base, "card_dice": card.dice,
            "fg_last_breath": args.fg_last_breath, "killer_last_breath": args.killer_last_breath, "dice": dice,
            "outcomes": [{"tier": words.get(t, str(t)), "name": TIER_NAMES.get(t, f"{t} successes"),
                          "min_successes": t, "effects": effects.get(t, "No outcome."),
                          "without_converting": _fraction_json(plain[t]),
                          "with_converting": _fraction_json(conv[t])} for t in tiers],
            "at_least_success": {"without_converting": _fraction_json(1 - plain[0]),
                                 "with_converting": _fraction_json(1 - conv[0])},
            "expected_discards": float(expected_discards(dice, hand, tiers)),
            "_plain": plain, "_conv": conv,
        })
    if args.json:
        for r in result:
            del r["_plain"], r["_conv"]
        print(json.dumps({"card": card.id, "name": card.name, "difficulty": side.id, "hand": hand,
                          "checks": result}, indent=2, ensure_ascii=False))
        return 0
    print(f"{card.name}: fear check odds ({side.id} side; {hand} card{'s' if hand != 1 else ''} left in hand, "
          f"two discarded per 3–4 turned into a success)")
    for r in result:
        dice_text = f"{r['base_dice']} {'die' if r['base_dice'] == 1 else 'dice'}"
        if r["fear_low"] is None:
            head = f"{dice_text} (--dice)"
        elif r["fear_low"] == r["fear_high"]:
            head = f"Fear {r['fear_low']}: {dice_text}"
        else:
            head = f"Fear {r['fear_low']}–{r['fear_high']}: {dice_text}"
        extra = [(card.dice, "card"), (int(args.fg_last_breath), "your last breath"),
                 (int(args.killer_last_breath), "the killer's last breath")]
        head += "".join(f" {'+' if k > 0 else '-'} {abs(k)} ({why})" for k, why in extra if k)
        rolled = r["base_dice"] + sum(k for k, _ in extra)
        if rolled != r["dice"] or any(k for k, _ in extra):
            head += f" = {r['dice']} {'die' if r['dice'] == 1 else 'dice'}"
            head += " (at least one, C2.4)" if rolled < 1 else ""
        print()
        print(head)
        def cell(p) -> str:
            return f"{float(p):6.1%}  {p}"

        table = [["Outcome", "Rolled", "Converting 3–4s", "Effects"]]
        for o, t in zip(r["outcomes"], tiers):
            label = f"{o['name']} ({t}+)" if t == top and t > 0 else f"{o['name']} ({t})"
            table.append([label, cell(r["_plain"][t]), cell(r["_conv"][t]), o["effects"]])
        table.append(["At least a success", cell(1 - r["_plain"][0]), cell(1 - r["_conv"][0]), ""])
        widths = [max(len(row[i]) for row in table) for i in range(3)]
        for row in table:
            print(("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[3]).rstrip())
        if hand >= 2:
            print(f"  Converting discards {r['expected_discards']:.2f} cards on average (only as many as the "
                  f"best reachable outcome needs).")
    return 0


# --- the parser -------------------------------------------------------------------------------
def _add_setup(p: argparse.ArgumentParser, repeatable: bool = False) -> None:
    many: dict[str, Any] = {"action": "append"} if repeatable else {}
    again = " (repeatable)" if repeatable else ""
    p.add_argument("--killer", metavar="ID", **many,
                   help=f"the killer's id (default: the first killer in id order){again}")
    p.add_argument("--scenario", metavar="ID", **many,
                   help=f"the scenario's id (default: the one marked 'default', else the first in id order){again}")
    p.add_argument("--final-girl", metavar="ID", dest="final_girl", **many,
                   help=f"the Final Girl's id (default: the first Final Girl in id order){again}")
    p.add_argument("--difficulty", metavar="SIDE", default="normal",
                   help="side of the player board: normal or extreme (default: normal)")
    p.add_argument("--legendary", action="store_true",
                   help="include the killer's legendary finales and dark powers in the draw")
    p.add_argument("--tie", choices=engine.TIE_POLICIES, default="harder",
                   help="how enemy movement ties are broken: harder, realistic, easier, or ask the player "
                        "(default: harder)")
    p.add_argument("--max-choices", type=int, default=20000, metavar="N", help=argparse.SUPPRESS)
    add_content(p)
    _add_modules(p)


def _add_modules(p: argparse.ArgumentParser, replaying: bool = False) -> None:
    p.add_argument("--module", metavar="ID", action="append", dest="modules", default=[],
                   help="the save names the modules of its game and they are switched on by themselves; "
                        "--module may repeat them (anything else is an error)" if replaying else
                        "switch a module on: content declared with 'module ID { … }' that adds to, replaces "
                        "and removes parts of the game; off unless given (repeatable; 'lastbreath content' "
                        "lists them)")


def _add_forced(p: argparse.ArgumentParser) -> None:
    p.add_argument("--forced", choices=engine.FORCED_POLICIES, default="auto",
                   help="choices with one option: answer them at once (auto, the default), answer them and say "
                        "so in the log (log), or ask them like any other (ask)")


DEFAULT_SIM_BOT = "greedy"  # simulate, report, compare: the bot that plays toward the goal (random: the baseline)


def _add_sim_options(p: argparse.ArgumentParser, games: int) -> None:
    p.add_argument("--games", type=int, default=games, metavar="N",
                   help=f"how many games (of each pair) (default: {games})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the first game's seed (default: 0)")
    p.add_argument("--bot", choices=tuple(BOTS), default=DEFAULT_SIM_BOT,
                   help=f"the bot that plays: {', '.join(BOTS)} (default: {DEFAULT_SIM_BOT}, which plays toward "
                        f"the goal; random is the baseline)")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="worker processes (default: every core); the results do not depend on it")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr even on a terminal")
    _add_budget(p)


def _add_budget(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=int, metavar="N",
                   help=f"with --bot expert: rollouts per decision, within {MIN_BUDGET}..{MAX_BUDGET} "
                        f"(default: {DEFAULT_BUDGET}; docs/decisions/0024)")


def _add_server_limits(p: argparse.ArgumentParser, where: str) -> None:
    """The limits of a JSON-RPC server ('serve', 'web'): the largest message, the games open at once."""
    p.add_argument("--max-message", type=int, default=1 << 20, metavar="BYTES",
                   help="the largest message accepted; larger ones get error 1005 (default: 1048576)")
    p.add_argument("--max-games", type=int, default=100, metavar="N",
                   help=f"games open at once{where}; game.new and game.load beyond it get error 1007 (default: 100)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="lastbreath: a rules-as-data engine for the solo board game Final Girl.",
        epilog=f"Run '{PROG} COMMAND --help' for a command's options.")
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    parser.add_argument("--debug", action="store_true", help="show a Python traceback on internal errors")
    parser.add_argument("--completion", choices=("bash", "zsh", "fish"), metavar="SHELL",
                        help="print a shell completion script for bash, zsh or fish and exit "
                             "(bash: eval \"$(lastbreath --completion bash)\")")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("play", help="play a game, interactively or with a bot",
                       description="Play a game. Without --bot you answer each choice by typing its number "
                                   "(an option keeps its number for the whole game, after --load too) or the "
                                   "first letters of its words; 'help' lists the commands (rule, card, map, undo, "
                                   "save, quit); 'q' or end of input quits ('q' at a terminal offers to save first). "
                                   "On a terminal each decision shows a screen: tracks, map, hand, what happened, "
                                   "the choice; the prompt edits lines (arrow keys, history, Tab completes an "
                                   "option's words); the Killer phase waits for Enter at each step. Off a "
                                   "terminal the plain text log is printed. "
                                   "With --bot the game plays itself and prints its log.")
    _add_setup(p)
    _add_forced(p)
    p.add_argument("--seed", type=int, metavar="N", help="the game's seed (default: a random seed, printed)")
    p.add_argument("--bot", choices=tuple(BOTS),
                   help="let a bot play: random picks uniformly (seeded by the game seed), first always "
                        "takes the first option, greedy by a heuristic, expert searches (--budget)")
    _add_budget(p)
    p.add_argument("--json", action="store_true", help="with --bot: print the game log as JSON")
    p.add_argument("--save", metavar="FILE",
                   help="write a save of the game to FILE when it ends (and when you quit an interactive "
                        "game); 'lastbreath replay FILE' replays it")
    p.add_argument("--explain", action="store_true",
                   help="print under each event its rule id and its source (file:line), and after each "
                        "enemy move the targeting table that decided it")
    p.add_argument("--load", metavar="FILE",
                   help="resume a game saved with --save or the 'save FILE' command, at its decision point "
                        "(its setup and seed come from the save)")
    p.add_argument("--no-color", action="store_true",
                   help="no colours on the terminal screen (so does the NO_COLOR environment variable)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="replay a saved game and print its log",
                       description="Replay a save made by 'play --save' (or the API) from its seed and choices "
                                   "and print the game log, the same lines 'play --bot' prints. A save made with "
                                   "other content, another format version, an illegal choice or a truncated or "
                                   "corrupt file is refused with the reason (exit 1).")
    p.add_argument("file", metavar="FILE", help="the save file (JSON)")
    p.add_argument("--json", action="store_true",
                   help='print the log as JSON, as "play --bot --json" does ("bot" is null)')
    p.add_argument("--explain", action="store_true", help="show each event's rule and source, and targeting tables")
    add_content(p)
    _add_modules(p, replaying=True)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("serve", help="serve games over JSON-RPC 2.0 on stdin/stdout",
                       description="Answer JSON-RPC 2.0 requests, one JSON message per line on stdin, one reply "
                                   "per line on stdout, until the end of input. Methods, params, results and "
                                   "error codes: docs/protocol.md.")
    _add_server_limits(p, "")
    add_content(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("web", help="play, referee and design in the browser: a local server and its page",
                       description="Serve a single-page app on this machine: the board drawn from the content, "
                                   "play with undo, save and load, a debug panel with the state and its history, "
                                   "the bots, the killer's intent; a companion for the table (a position set by "
                                   "clicking, then what the killer does); a design page (edit a content file "
                                   "with live diagnostics, its English rendering, play it, simulate it). The page "
                                   "speaks the JSON-RPC protocol of 'serve' over a WebSocket at /rpc "
                                   "(docs/protocol.md). Needs the web extra: pip install 'lastbreath[web]'.")
    p.add_argument("--port", type=int, default=8765, help="the port to listen on (default: 8765; 0: a free one)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1, this machine)")
    p.add_argument("--open", action="store_true", help="open the page in the browser")
    _add_server_limits(p, " on one page")
    add_content(p)
    p.set_defaults(func=cmd_web)

    p = sub.add_parser("check", help="check content files for errors",
                       description="Parse, build and cross-check .fg content; print each problem with its "
                                   "code, its source line and a caret, then a summary, all on stderr (--json: "
                                   "on stdout). Warnings (W2xx) are printed but do not "
                                   "fail. Exit 0 when there are no errors, 1 otherwise. "
                                   f"'{PROG} explain-error CODE' explains a code.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders to check (default: all bundled content)")
    p.add_argument("--with-bundled", action="store_true",
                   help="check PATHs together with the bundled content, so their references to bundled "
                        "cards, items and killers resolve")
    p.add_argument("--json", action="store_true",
                   help='print {"ok": ..., "diagnostics": [...], "counts": {...}} (counts are empty on errors)')
    p.add_argument("--content", metavar="PATH", action="append", default=[],
                   help="a content pack (folder) to check together with the bundled content (repeatable)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("explain-error", help="explain an error code (E207, W201…): its meaning, an example, the fix",
                       description="Print the catalogue entry of a diagnostic or engine error code: what it "
                                   "means, a short bad example and its fix. E1xx syntax, E2xx checking, W2xx "
                                   "warnings, E3xx while playing; docs/errors.md lists them all. Without CODE, "
                                   "list every code. Exit 2 on an unknown code.")
    p.add_argument("code", nargs="?", metavar="CODE",
                   help="the code as a diagnostic prints it: E207 (e207 and 207 work too)")
    p.add_argument("--json", action="store_true",
                   help='print {"code", "title", "explanation", "example", "fix", "severity", "lang"} '
                        "(without CODE: a list of them)")
    p.add_argument("--markdown", action="store_true",
                   help="print the whole catalogue as Markdown (docs/errors.md is this output)")
    p.set_defaults(func=cmd_explain_error)

    p = sub.add_parser("rule", help="print a rule by id (C9.4, c9.4, or a family: C9) and what cites it",
                       description="Print a rule of the rules reference (docs/rules.md) by the id a game log "
                                   "shows in brackets ([C9.4]; case does not matter), then the content lines "
                                   "that cite it and, in a checkout, the tests that name it (in their name, "
                                   "docstring or a parametrize id). A family id (C9, K6, V) prints each of its "
                                   "rules and everything that cites any of them. Without ID, list every id. "
                                   "Exit 2 on an unknown id.")
    p.add_argument("id", nargs="?", metavar="ID", help="a rule id (C9.4, S5.3, V2) or a family id (C9, K6, V)")
    p.add_argument("--json", action="store_true",
                   help='print {"id", "kind", "title", "text", "open", "default", "content": [{"source", '
                        '"text", "ids", …}], "tests": [{"test", "ids", "via", …}] or null when not '
                        'available, …} (without ID: the families and their rules)')
    add_content(p)
    p.set_defaults(func=cmd_rule)

    from . import workbench  # try and verify: positions and rulings

    workbench.add_parsers(sub)

    p = sub.add_parser("content", help="list the killers, scenarios, Final Girls and modules",
                       description="List the loaded killers, scenarios, Final Girls and modules with their "
                                   "ids and names; under each module, a line for each thing it adds, replaces "
                                   "or removes. A module is off unless a game switches it on (--module ID on "
                                   "play, simulate, report and fuzz).")
    p.add_argument("--json", action="store_true",
                   help='print {"killers": [{"id", "name", "pack"}], "scenarios": [...], "final_girls": [...], '
                        '"modules": [{"id", "name", "pack", "about", "changes": [...]}]}')
    add_content(p)
    p.set_defaults(func=cmd_content)

    p = sub.add_parser("simulate", help="play many games with a bot and report the win rate",
                       description="Play N games with a bot; game i uses seed S+i for both the game and the "
                                   "bot, so any game replays alone with 'play --bot BOT --seed S+i'. Games run "
                                   "on --jobs processes (default: every core) with the same results as one. "
                                   "Games that raise an error are counted, never fatal. Exit 1 when any "
                                   "game failed.")
    _add_setup(p, repeatable=True)
    _add_sim_options(p, games=100)
    p.add_argument("--matrix", action="store_true",
                   help="simulate every killer × scenario × Final Girl (only those given with --killer, "
                        "--scenario, --final-girl, each repeatable)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="print the results as JSON: games, wins, losses, errors, win_rate (wins per "
                          "finished game), win_rate_ci (95%% Wilson), mean_rounds, rounds (mean, median, "
                          "distribution), mean_rescued, mean_killed, end_reasons, mean_bloodlust, "
                          "games_per_second, error_samples, engine (compiled or plain, lastbreath native; null on a "
                          "dask cluster, whose workers may run either), …; "
                          "with --matrix {\"pairs\": [...], \"total\": {...}}; "
                          "on one line, without the per-round series (see --full)")
    out.add_argument("--csv", action="store_true",
                     help="print a CSV line per pair (only figures that a rerun reproduces: no timings)")
    p.add_argument("--full", action="store_true",
                   help="record each game in detail and, with --json, give the per-round series too "
                        "(mean_bloodlust: the mean bloodlust level at the start of each round; series: her "
                        "health, fear, time and the bloodlust level per round, as [round, lower quartile, "
                        "median, upper quartile, games]) and the detail: rounds_by_result, causes (the "
                        "content lines that ended the games), cards_bought, cards_played, items_used (each "
                        "with the win rate with and without it), deaths (per location)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the games on a dask.distributed cluster at ADDRESS, or 'local' for a cluster of "
                        "--jobs processes on this machine (needs: pip install 'lastbreath[dask]')")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("report", help="simulate pairs and write a balance report with plots",
                       description="Simulate every killer × scenario × Final Girl pair (or those kept by "
                                   "--killer, --scenario, --final-girl, each repeatable) and write a balance "
                                   "report to a folder: report.md (a killer × scenario table and heatmap of "
                                   "win rates with 95% intervals; a row per pair; rounds until the end by "
                                   "outcome; the content lines that ended the games; cards bought and played "
                                   "and items used, with the win rate with and without each; where victims "
                                   "die), report.json, and plots as PNG and SVG (heatmap, win rate per pair, "
                                   "rounds, health, fear, time and bloodlust over rounds, cards). "
                                   "Needs matplotlib: pip install 'lastbreath[report]'. Exit 1 when any game "
                                   "failed (the report lists them), 2 without matplotlib.")
    _add_setup(p, repeatable=True)
    _add_sim_options(p, games=200)
    p.add_argument("--out", metavar="DIR", default="report", help="the folder to write (default: report)")
    p.add_argument("--html", action="store_true",
                   help="also write report.html: the report as one self-contained page (the plots inlined)")
    p.add_argument("--json", action="store_true",
                   help="print report.json (the report's numbers: settings, pairs, killer_scenario, total, "
                        "lines) instead of the line that says what was written")
    p.set_defaults(func=cmd_report, scheduler=None)

    p = sub.add_parser("compare", help="before and after: the same games on two versions of a pack",
                       description="Play the same games (the same pairs, seeds and bot) on two versions of a "
                                   "content pack, A and B: --content A --content B (folders or .fg files), or "
                                   "--content PATH --rev A --rev B (the pack at two git revisions of this work "
                                   "tree, taken with git archive). For each pair: the Final Girl's win rate on "
                                   "A and on B, the change, and a two-proportion z-test (two-sided, pooled "
                                   "standard error; 'easier' or 'harder' when p < --alpha). Then the content "
                                   "lines whose reach changed: the share of games that resolved each line "
                                   "(engine coverage), tested alike; a line is matched across the versions by "
                                   "its file, declaration and words, not its line number. The pairs: the "
                                   "pack's own killers and scenarios (every one where it has none), with the "
                                   "default Final Girl, unless --killer, --scenario, --final-girl (repeatable) "
                                   "say others. Progress on stderr. Exit 1 when any game failed.")
    _add_setup(p, repeatable=True)
    _add_sim_options(p, games=200)
    p.add_argument("--rev", metavar="REV", action="append",
                   help="a git revision of the pack given with --content (give two: --rev A --rev B)")
    p.add_argument("--alpha", type=float, default=0.05, metavar="P",
                   help="the significance level of the tests (default: 0.05)")
    p.add_argument("--json", action="store_true",
                   help='print the comparison as JSON: {"games", "seed", "bot", "alpha", "test", "a", "b", '
                        '"pairs": [{killer, scenario, final_girl, a: {games, wins, win_rate, win_rate_ci, …}, '
                        'b: {…}, change, z, p_value, significant, direction}], "total": {…}, "lines": [{file, '
                        'where, kind, label, line_a, line_b, reach_a, reach_b, change, z, p_value}]}')
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("coverage", help="list the content lines bot games never reach",
                       description="Play N games with a bot over every killer × scenario pair (or those kept by "
                                   "--killer, --scenario, --final-girl, each repeatable; the Final Girls in "
                                   "turn, half the games with the legendary cards) and list every effect line, "
                                   "control branch (if/else blocks, mode blocks, choose options, roll rows, "
                                   "each/repeat/spend blocks), trigger, replacement and card outcome that no "
                                   "game reached, with its file:line:col, by file, then reached/total per file. "
                                   "Lines inside an unreached block are folded into it. Game i has seed S+i. "
                                   "Exit 1 when a game failed.")
    for flag, what in (("--killer", "killer"), ("--scenario", "scenario"), ("--final-girl", "Final Girl")):
        p.add_argument(flag, metavar="ID", action="append", dest=flag[2:].replace("-", "_"),
                       help=f"only this {what} (repeatable; default: all)")
    p.add_argument("--games", type=int, default=200, metavar="N", help="how many games in all (default: 200)")
    p.add_argument("--bot", choices=("random", "greedy", "both"), default="random",
                   help="the bot that plays; both: the two take turns (default: random)")
    p.add_argument("--all", action="store_true",
                   help="list every unreached item, also those inside an unreached block")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the first game's seed (default: 0)")
    p.add_argument("--difficulty", metavar="SIDE", default="normal",
                   help="side of the player board (default: normal)")
    p.add_argument("--json", action="store_true",
                   help='print {"reached", "total", "percent", "files": [{"file", "reached", "total", "by_kind", '
                        '"unreached": [{"kind", "line", "col", "label", "where", "inside", "folded"}]}], …}')
    p.add_argument("--max-choices", type=int, default=20000, metavar="N", help=argparse.SUPPRESS)
    add_content(p)
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("fuzz", help="play bot games and check the rules' invariants after every transition",
                       description="Play N games with the random and greedy bots over every killer × scenario "
                                   "pair (or those kept by --killer, --scenario, --final-girl, each repeatable; "
                                   "Final Girl, difficulty, legendary cards and tie policy drawn per game) and "
                                   "check after every transition: victims conserved, health, time, fear and "
                                   "bloodlust within bounds, the hand limit, every event renders, a valid "
                                   "choice pending, the state survives a save/load round trip, apply is "
                                   "deterministic and leaves its input untouched. On a violation print the "
                                   "setup, seed and the shortest choice list found that reproduces it, exit 1; "
                                   "clean: a summary, exit 0. Game i has seed S+i.")
    for flag, what in (("--killer", "killer"), ("--scenario", "scenario"), ("--final-girl", "Final Girl")):
        p.add_argument(flag, metavar="ID", action="append", dest=flag[2:].replace("-", "_"),
                       help=f"only this {what} (repeatable; default: all)")
    p.add_argument("--games", type=int, default=200, metavar="N", help="how many games in all (default: 200)")
    p.add_argument("--bot", choices=("random", "greedy", "expert", "both"), default="both",
                   help="the bot that plays; both: random and greedy take turns (default: both)")
    _add_budget(p)
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the first game's seed (default: 0)")
    p.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: every core)")
    p.add_argument("--json", action="store_true",
                   help='print {"clean", "games", "transitions", "violations": [{"check", "message", "setup", '
                        '"seed", "bot", "choices", …}], …}')
    p.add_argument("--save-repro", metavar="FILE",
                   help="write the first violation's setup, seed and shrunk choices as a save that "
                        "'lastbreath replay FILE' replays")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr even on a terminal")
    p.add_argument("--stop-after", type=float, metavar="SECONDS",
                   help="play no more games after this long, and report the games checked (exit 0 if clean); "
                        "Ctrl-C or SIGTERM (timeout) also stop it with the report, exit 130 or 143")
    p.add_argument("--max-choices", type=int, default=20000, metavar="N", help=argparse.SUPPRESS)
    add_content(p)
    _add_modules(p)
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser("fuzz-input", help="feed mutated content, protocol messages, saves and positions to the engine",
                       description="Mutate the bundled content files, protocol messages, saves and the rulings "
                                   "of docs/rulings (numbers changed to hostile ones, lines repeated or cut, "
                                   "values of the wrong type, NaN, lone surrogates, huge batches; costly but "
                                   "valid content, storms of bad lines, files past their size, saves edited "
                                   "alike in state and checkpoint…) and run each case in a worker process "
                                   "with a memory limit: content is checked and, if it loads, one bot game is "
                                   "played; protocol lines are answered by a server with an open game; saves "
                                   "are loaded (replayed, and their snapshot restored) and played on; positions "
                                   "and rulings are checked, played and run. Anything but a documented error is "
                                   "a crash, a case over the time limit of CPU time a hang. Prints the counts "
                                   "per kind (crashes, hangs, worst memory) and each failure; exit 0 when clean, "
                                   "1 otherwise. Case i of a seed is always the same. Without counts: 200 of "
                                   "each.")
    p.add_argument("--content", type=int, metavar="N", dest="content_cases", help="content cases")
    p.add_argument("--protocol", type=int, metavar="N", help="protocol cases (one to four messages each)")
    p.add_argument("--saves", type=int, metavar="N", help="save cases")
    p.add_argument("--positions", type=int, metavar="N", help="position and rulings cases")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the mutations (default: 0)")
    p.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: every core)")
    p.add_argument("--time-limit", type=float, default=5.0, metavar="SECONDS",
                   help="a case taking more CPU time is a hang (default: 5)")
    p.add_argument("--max-memory", type=int, default=2048, metavar="MB",
                   help="address space of each worker (RLIMIT_AS); a case that needs more is a crash "
                        "(MemoryError) (default: 2048)")
    p.add_argument("--out", metavar="DIR", help="write the whole input of each failing case to DIR")
    p.add_argument("--json", action="store_true",
                   help='print {"clean", "cases", "crashes", "hangs", "known", "worst_memory_mb", "seconds", '
                        '"kinds": {KIND: {"cases", "crashes", "hangs", "worst_memory_mb", "slowest_s", "reached"}}, '
                        '"failures": [{"kind", "index", "outcome", "detail", "case"}]}')
    p.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_fuzz_input)

    p = sub.add_parser("fmt", help="rewrite content files in the canonical style",
                       description="Format .fg content in the canonical style (dsl/LANGUAGE.md, 'Formatting'), "
                                   "keeping comments. Without --check or --diff, files are rewritten in place "
                                   "and the changed ones are listed. Exit 0 when done (or, with --check, when "
                                   "every file is already formatted), 1 when a file would change (--check) or "
                                   "does not parse (its errors are printed), 2 on a usage mistake.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders to format; folders are searched for *.fg (default: the bundled "
                        "content folders)")
    p.add_argument("--check", action="store_true",
                   help="do not rewrite files: list the files that would change and exit 1 if there are any")
    p.add_argument("--diff", action="store_true",
                   help="do not rewrite files: print a unified diff of each change (exit 0 unless --check "
                        "is given too)")
    p.add_argument("--json", action="store_true",
                   help='print {"changed": [...], "unchanged": N, "errors": [...]} (with --diff also '
                        '"diffs": {path: diff})')
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser("render", help="print cards, items, Final Girls, killers, scenarios as English",
                       description="Print the English text of content, generated from its rules: any card, "
                                   "item, Final Girl, killer, scenario or player board by id, and nested ones "
                                   "too (a killer's finales, dark powers and terror cards; a scenario's setup "
                                   "cards, items, events and terror cards). Exit 2 on an unknown id.")
    p.add_argument("ids", nargs="*", metavar="ID", help="ids to render (every declaration with that id is shown)")
    p.add_argument("--all", action="store_true",
                   help="render every top-level card, item, Final Girl, killer, scenario, player board and minion")
    p.add_argument("--json", action="store_true", help='print [{"kind", "id", "name", "text"}]')
    add_content(p)
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("lsp", help="a language server for content files, on stdin and stdout (editors start it)",
                       description="Speak the Language Server Protocol on stdin and stdout, for an editor (the "
                                   "VS Code extension in editors/vscode starts it): diagnostics as you type, "
                                   "completion, hover, go to definition, references, outline, formatting, "
                                   "rename and quick fixes for .fg files, each checked with the bundled content, "
                                   "its pack and the packs that pack depends on. Needs pip install "
                                   "'lastbreath[lsp]' (pygls and lsprotocol).")
    p.add_argument("--stdio", action="store_true", help="talk on stdin and stdout (the only way; editors pass it)")
    p.set_defaults(func=cmd_lsp)

    p = sub.add_parser("native", help="compile the rules engine with mypyc for speed, or say whether it is",
                       description="Compile the engine's rules modules to C with mypyc (it comes with mypy) into the "
                                   "cache folder (LASTBREATH_CACHE, else ~/.cache/lastbreath). Every process started "
                                   "afterwards runs them compiled while the source is the one built (any change: the "
                                   "plain modules again, until built anew). The same code: the same games, events and "
                                   "saves. LASTBREATH_NATIVE=off runs the plain modules even where a build exists.",
                       epilog="examples:\n  lastbreath native build\n  lastbreath native status --json\n"
                              "  lastbreath native clean --keep-current",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", nargs="?", choices=("status", "build", "clean"), default="status",
                   help="status (default): built for this source? running compiled? build: compile (a minute "
                        "or two; needs mypy and a C compiler). clean: remove the builds")
    p.add_argument("--keep-current", action="store_true", help="clean: keep the build for this source")
    p.add_argument("--quiet", action="store_true", help="build: no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_native)

    p = sub.add_parser("odds", help="exact odds of each outcome of a card's fear check",
                       description="The exact probability of each outcome of CARD's fear check (failure, "
                                   "success, great success and, if the card has one, its best outcome at 3+), "
                                   "counted over every roll, without converting 3–4s and converting them by "
                                   "discarding two cards per die from the hand (C2.2). Dice: the fear zone's "
                                   "(or --dice), plus the card's, plus one for each last breath (C2.5), at "
                                   "least one (C2.4). Without --fear or --dice, every fear zone is shown.")
    p.add_argument("card", metavar="CARD", help="the card's id")
    dice = p.add_mutually_exclusive_group()
    dice.add_argument("--fear", type=int, metavar="N", help="the Final Girl's fear: its zone gives the dice")
    dice.add_argument("--dice", type=int, metavar="N", help="dice before the card's modifier, instead of a fear zone")
    p.add_argument("--hand", type=int, metavar="N",
                   help="cards left in hand after playing this one, to discard two per converted 3–4 "
                        "(default: the starting hand less this card)")
    p.add_argument("--difficulty", metavar="SIDE", default="normal",
                   help="side of the player board: normal or extreme (default: normal)")
    p.add_argument("--fg-last-breath", action="store_true",
                   help="the Final Girl is down to her last-breath token: one more die")
    p.add_argument("--killer-last-breath", action="store_true",
                   help="the killer is down to its last-breath token: one more die")
    p.add_argument("--json", action="store_true",
                   help="print the odds as JSON, each as a float (p) and an exact fraction string")
    add_content(p)
    p.set_defaults(func=cmd_odds)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["--complete-ids"]:  # the completion scripts' call back: ids, one a line (completion.py)
        from .completion import print_ids

        return print_ids(words[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors: argparse already printed
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.completion:
        from .completion import script

        sys.stdout.write(script(args.completion, parser))
        return 0
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "budget", None) is not None:  # the expert's budget travels in its name ('expert:N')
        try:
            args.bot = bot_name(args.bot, args.budget)
        except ValueError as err:
            print(f"{PROG}: error: {err}", file=sys.stderr)
            return 2
    try:
        return args.func(args)
    except CliError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return err.code
    except ContentFailed:
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except Exception as err:
        if args.debug:
            raise
        print(f"{PROG}: internal error: {type(err).__name__}: {err} (rerun with --debug for a traceback)",
              file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
