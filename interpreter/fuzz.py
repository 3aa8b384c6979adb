"""Fuzzing whole games: bots play, and every transition is checked (``lastbreath fuzz``).

    rs = load_ruleset()
    report = run_fuzz(rs, games=200, seed=0, bot="both")
    report["clean"]            # True, or report["violations"]: each with its setup, seed and a
                               # short choice list that reproduces it

After every transition (``check_transition``):

- ``victims``: every victim is on the board, held off it, dead or rescued: their number is the setup's, plus
  the victims ``place N victims`` added, less the victims turned into minions, plus the minions
  turned back into victims; exactly so where the game is between steps (an action, buy or swap
  choice, or the end), at most so while a step is paused half-way; the dead stay dead, the
  rescued stay rescued, no location holds fewer than 0;
- ``bounds``: the Final Girl's health within 0..her health, time and fear within the player
  board side's ranges, bloodlust a level the killer has, each killer's health at least 0 (and at
  most its starting health unless a rule lifts the cap);
- ``hand``: the hand holds at most the player board's hand limit;
- ``events``: every event has a kind and renders to a non-empty string;
- ``choice``: a choice with two or more options, unique keys and labels, is pending unless the
  game is over; a game over has a result;
- ``save``: ``to_json`` → JSON text → ``from_json`` → ``to_json`` gives the same save;
- ``determinism``: applying the same key twice to the same state gives the same events and state;
- ``purity``: ``apply`` leaves the state it was given untouched;
- ``exception:TYPE``: ``apply`` raised.

A violation is shrunk (``shrink``): the failing game's choices are replayed, then choices are
deleted (chunks, then single ones) as long as the same check still fails; while replaying a
candidate, a choice that is no longer offered is dropped, so the list kept is always legal.
"""

from __future__ import annotations

import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, Optional, Sequence

import attrs
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.dsl.ruleset import Ruleset

from . import api, engine, serialize, validate
from .bots import BOTS, bot_flags
from .state import Event, GameState

MAX_CHOICES = 20_000
STEP_BOUNDARY_KINDS = validate.STEP_BOUNDARY_KINDS  # asked first thing in a step: no half-done work
EXPENSIVE = ("save", "determinism")  # checks skipped while shrinking another check's violation
CHECKS = ("victims", "bounds", "hand", "events", "choice", "save", "determinism", "purity", "exception")

_COUNTED = frozenset({"victims", "minion", "victim-leaves"})  # kinds whose data may change the victims in play


class Violation(Exception):
    """An invariant that did not hold: ``check`` names it (stable, for shrinking), ``message`` says how."""

    def __init__(self, check: str, message: str):
        super().__init__(f"{check}: {message}")
        self.check = check
        self.message = message


# --- the checks ---------------------------------------------------------------------------------
@attrs.define
class Tracker:
    """What the checks carry from one transition to the next: the victims there should be."""

    expected: int

    @classmethod
    def start(cls, state: GameState, events: Sequence[Event] = ()) -> Tracker:
        """For the first state of a game and its events (``check_state`` then counts the events)."""
        return cls(accounted_victims(state) - victims_moved(events))


accounted_victims = validate.accounted_victims  # the victims on the board, held off it, dead or rescued


def victims_moved(events: Sequence[Event]) -> int:
    """Victims these events add to the game: placed, less turned into minions or replaced by a killer
    body (K2.7), plus turned back; read from the events' data (state.Event), never their text."""
    delta = 0
    for e in events:
        if e.kind in _COUNTED and e.data:
            got = e.data[0]
            if type(got) is not int:
                raise Violation("events", f"a '{e.kind}' event whose data is not a count: {e!r}")
            delta += got
    return delta


def check_events(events: Sequence[Event]) -> None:
    for e in events:
        if not e.kind:
            raise Violation("events", f"an event without a kind: {e!r}")
        text = e.render()
        if not isinstance(text, str) or not text.strip():
            raise Violation("events", f"an event renders empty: {e!r}")


def check_state(state: GameState, events: Sequence[Event], tracker: Tracker,
                before: Optional[GameState] = None) -> None:
    """The invariants of one state reached with these events (``before``: the state before)."""
    check_events(events)
    # victims
    tracker.expected += victims_moved(events)
    if min(state.victims, default=0) < 0:
        raise Violation("victims", f"a location holds fewer than 0 victims: {state.victims}")
    if before is not None and (state.dead < before.dead or state.rescued < before.rescued):
        raise Violation("victims", f"dead {before.dead} -> {state.dead}, rescued {before.rescued} -> {state.rescued}: "
                                   "the dead stay dead and the rescued stay rescued")
    accounted = accounted_victims(state)
    if accounted > tracker.expected:
        raise Violation("victims", f"victims appeared from nowhere: {accounted} on the board, held, dead or rescued, "
                                   f"{tracker.expected} expected")
    if (state.choice is None or state.choice.kind in STEP_BOUNDARY_KINDS) and accounted != tracker.expected:
        raise Violation("victims", f"victims vanished: {accounted} on the board, held, dead or rescued, "
                                   f"{tracker.expected} expected")
    # bounds, the hand, the choice: what one state shows, as a save's load checks it (validate.py)
    # (and the victims against the count the state keeps, victims_in: the engine keeps it as the tracker)
    got = validate.breach(state)
    if got is not None:
        raise Violation(*got)


def _snapshot(state: GameState) -> dict:
    snap = dict(state.__dict__)
    if state.checkpoint is not None:
        snap["checkpoint fields"] = dict(state.checkpoint.__dict__)
    return snap


def _unchanged(state: GameState, snap: dict) -> bool:
    now = _snapshot(state)
    if now.keys() != snap.keys():
        return False
    for key, old in snap.items():
        if key == "checkpoint fields":
            if now[key].keys() != old.keys() or any(now[key][k] is not v for k, v in old.items()):
                return False
        elif now[key] is not old:
            return False
    return True


def _save_text(state: GameState) -> str:
    return json.dumps(serialize.to_json(state), sort_keys=True)


def check_save(rs: Ruleset, state: GameState, saved: Optional[dict[str, Any]] = None) -> None:
    """The state survives a save/load round trip through JSON text: the state loaded saves as it
    did (``saved``: ``to_json(state)``, if made already). The two saves are compared as the data
    ``to_json`` makes (the same encoder, the same shapes; JSON text of equal data is equal, since
    from_json refuses a value of another type)."""
    saved = saved if saved is not None else serialize.to_json(state)
    try:
        again = serialize.to_json(serialize.from_json(rs, json.loads(json.dumps(saved))))
    except Exception as err:
        raise Violation("save", f"a save of this state does not load: {type(err).__name__}: {err}") from None
    if again != saved:
        raise Violation("save", "the state saved, loaded and saved again differs from the first save: "
                                + _first_difference(json.loads(json.dumps(saved)), json.loads(json.dumps(again))))


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or 'the save'}: {a!r:.80} != {b!r:.80}"


def check_transition(rs: Ruleset, state: GameState, key: str, tracker: Tracker,
                     expensive: bool = True) -> tuple[GameState, list[Event]]:
    """Apply ``key`` to ``state`` and check everything; returns what ``apply`` returned. Raises
    ``Violation``. Without ``expensive`` the save round trip and the second apply are skipped."""
    snap = _snapshot(state)
    try:
        new, events = engine.apply(state, key)
    except Exception as err:
        raise Violation(f"exception:{type(err).__name__}", f"apply({key!r}) raised {type(err).__name__}: {err}") \
            from None
    saved = None
    if expensive:
        try:
            again, events2 = engine.apply(state, key)
        except Exception as err:
            raise Violation("determinism", f"apply({key!r}) raised the second time: {type(err).__name__}: {err}") \
                from None
        if events2 != events:
            raise Violation("determinism", f"apply({key!r}) twice to the same state gave other events")
        saved = serialize.to_json(new)  # (compared as data: the same encoder, the same shapes)
        if serialize.to_json(again) != saved:
            raise Violation("determinism", f"apply({key!r}) twice to the same state gave other states: "
                            + _first_difference(json.loads(_save_text(new)), json.loads(_save_text(again))))
    if not _unchanged(state, snap):
        raise Violation("purity", f"apply({key!r}) changed the state it was given")
    check_state(new, events, tracker, before=state)
    if expensive:
        check_save(rs, new, saved)
    return new, events


def start(rs: Ruleset, setup: dict, expensive: bool = True) -> tuple[GameState, Tracker]:
    """A new game of ``setup`` (new_game's keyword arguments, seed included), checked."""
    try:
        state, events = api.new_game(rs, **setup)
    except Exception as err:
        raise Violation(f"exception:{type(err).__name__}", f"new_game raised {type(err).__name__}: {err}") from None
    try:
        tracker = Tracker.start(state, events)
    except Violation:
        tracker = Tracker(0)  # check_state reports the event
    check_state(state, events, tracker)
    if expensive:
        check_save(rs, state)
    return state, tracker


# --- one game -----------------------------------------------------------------------------------
@attrs.frozen
class GameResult:
    index: int
    setup: dict  # new_game's keyword arguments, seed included
    bot: str
    transitions: int
    result: str  # fg | killer | "" (a violation)
    check: str = ""  # the violation's check, or ""
    message: str = ""
    choices: tuple[str, ...] = ()  # the choices up to and including the one that failed
    shrinkable: bool = True


def play_checked(rs: Ruleset, setup: dict, bot: str, index: int = 0, max_choices: int = MAX_CHOICES) -> GameResult:
    """One game by a bot with every transition checked."""
    choices: list[str] = []
    try:
        state, tracker = start(rs, setup)
    except Violation as v:
        return GameResult(index, setup, bot, 0, "", v.check, v.message, ())
    policy = BOTS[bot](setup["seed"])
    for _ in range(max_choices):
        if state.choice is None:
            return GameResult(index, setup, bot, len(choices), state.result)
        try:
            key = policy(state, state.choice)
        except Exception as err:
            return GameResult(index, setup, bot, len(choices), "", f"bot:{type(err).__name__}",
                              f"the {bot} bot raised {type(err).__name__}: {err}", tuple(choices), False)
        if key not in state.choice.keys():  # noqa: SIM118 (Choice.keys(): the option keys)
            return GameResult(index, setup, bot, len(choices), "", "bot", f"the {bot} bot answered {key!r}, "
                              f"not an option of {state.choice.keys()}", tuple(choices), False)
        choices.append(key)
        try:
            state, _ = check_transition(rs, state, key, tracker)
        except Violation as v:
            return GameResult(index, setup, bot, len(choices), "", v.check, v.message, tuple(choices))
    return GameResult(index, setup, bot, len(choices), "", "no-end",
                      f"the game did not end within {max_choices} choices (round {state.round}, {state.phase} "
                      f"phase)", tuple(choices), False)


# --- shrinking ----------------------------------------------------------------------------------
def reproduce(rs: Ruleset, setup: dict, choices: Sequence[str], check: str,
              expensive: bool = True) -> Optional[tuple[list[str], Violation]]:
    """Replay ``choices`` (dropping any not offered at its point) until a violation: the choices
    used and the violation when it is of ``check``; None when another check fails first or none."""
    try:
        state, tracker = start(rs, setup, expensive)
    except Violation as v:
        return ([], v) if v.check == check else None
    used: list[str] = []
    for key in choices:
        if state.choice is None:
            return None
        if key not in state.choice.keys():  # noqa: SIM118 (Choice.keys(): the option keys)
            continue
        used.append(key)
        try:
            state, _ = check_transition(rs, state, key, tracker, expensive)
        except Violation as v:
            return (used, v) if v.check == check else None
    return None


def shrink(rs: Ruleset, setup: dict, choices: Sequence[str], check: str, max_replays: int = 3000,
           max_seconds: float = 120.0) -> tuple[list[str], Optional[Violation], int]:
    """The shortest choice list found that still fails ``check``: (choices, violation, replays).
    Delta debugging: delete chunks of the list, halving their size down to single choices."""
    expensive = check in EXPENSIVE or check.split(":")[0] not in CHECKS
    deadline = time.perf_counter() + max_seconds
    replays = 1
    got = reproduce(rs, setup, choices, check, expensive)
    if got is None:
        return list(choices), None, replays
    cur, viol = got
    parts = 2
    while len(cur) >= 1 and replays < max_replays and time.perf_counter() < deadline:
        size = math.ceil(len(cur) / parts)
        smaller = False
        for startat in range(0, len(cur), size):
            if replays >= max_replays or time.perf_counter() >= deadline:
                break
            cand = cur[:startat] + cur[startat + size:]
            replays += 1
            r = reproduce(rs, setup, cand, check, expensive)
            if r is not None and len(r[0]) < len(cur):
                cur, viol = r
                parts = max(parts - 1, 2)
                smaller = True
                break
        if not smaller:
            if size <= 1:
                break
            parts = min(len(cur), parts * 2)
    if not expensive:  # confirm with every check on: another check may fail first
        r = reproduce(rs, setup, cur, check, True)
        if r is None:
            r = reproduce(rs, setup, choices, check, True)
            if r is None:
                return list(choices), viol, replays
        cur, viol = r
    return cur, viol, replays


# --- many games ---------------------------------------------------------------------------------
def plan(rs: Ruleset, games: int, seed: int = 0, bot: str = "both", killers: Optional[Sequence[str]] = None,
         scenarios: Optional[Sequence[str]] = None, final_girls: Optional[Sequence[str]] = None,
         modules: Sequence[str] = ()) -> list[tuple[dict, str]]:
    """(setup, bot) of each game: the killer × scenario pairs in turn; the Final Girl, the side of
    the player board, legendary or not and the tie policy drawn from the game's index; game i has
    seed ``seed + i``; with ``both`` the bots take turns by round of pairs. ``modules`` are switched
    on in every game (and named in its setup)."""
    ks = sorted(killers or rs.killers)
    ss = sorted(scenarios or rs.scenarios)
    fs = sorted(final_girls or rs.final_girls)
    sides = [s.id for s in rs.player_board().sides]
    pairs = [(k, s) for k in ks for s in ss]
    bots = ["random", "greedy"] if bot == "both" else [bot]
    out = []
    for i in range(games):
        k, s = pairs[i % len(pairs)]
        r = random.Random(f"fuzz {seed} {i}")
        setup = {"killer": k, "scenario": s, "final_girl": r.choice(fs), "difficulty": r.choice(sides),
                 "legendary": r.random() < 0.5, "tie_policy": r.choice(engine.TIE_POLICIES), "seed": seed + i}
        if modules:
            setup["modules"] = sorted(set(modules))
        out.append((setup, bots[(i // len(pairs)) % len(bots)]))
    return out


_WORKER: dict[str, Ruleset] = {}


def _init_worker(content: tuple[str, ...], digest: str) -> None:
    rs = load_ruleset([*bundled_paths(), *(Path(p) for p in content)])
    if serialize.content_hash(rs) != digest:
        raise RuntimeError("a fuzz worker loaded other content than the caller's")
    _WORKER["rs"] = rs


def _run_batch(batch: list[tuple[int, dict, str]], max_choices: int) -> list[GameResult]:
    rs = _WORKER["rs"]
    return [play_checked(rs, setup, bot, i, max_choices) for i, setup, bot in batch]


def run_fuzz(rs: Ruleset, games: int = 100, seed: int = 0, bot: str = "both",
             killers: Optional[Sequence[str]] = None, scenarios: Optional[Sequence[str]] = None,
             final_girls: Optional[Sequence[str]] = None, jobs: int = 1, content: Sequence = (),
             max_choices: int = MAX_CHOICES, shrink_seconds: float = 120.0, progress=None,
             modules: Sequence[str] = (), stop_after: Optional[float] = None) -> dict:
    """Play and check ``games`` games; shrink the first (shortest) failing game of each check.
    With ``jobs`` > 1 the games run in a process pool whose workers load the bundled content plus
    ``content`` (the paths ``rs`` was loaded from).

    Stopped before the end, it reports what it checked: past ``stop_after`` seconds of play it
    plays no more games, and a ``KeyboardInterrupt`` (Ctrl-C; ``lastbreath fuzz`` raises one on
    SIGTERM, as ``timeout`` sends) ends the play at once; ``stopped`` then says why, ``played``
    how many games were checked, and the violations found are reported unshrunk."""
    todo = [(i, setup, b) for i, (setup, b) in
            enumerate(plan(rs, games, seed, bot, killers, scenarios, final_girls, modules))]
    t0 = time.perf_counter()
    deadline = t0 + stop_after if stop_after is not None else None
    results: list[GameResult] = []
    stopped = ""
    try:
        if jobs <= 1 or games < 8:
            for i, setup, b in todo:
                if deadline is not None and time.perf_counter() > deadline:
                    stopped = "time"
                    break
                results.append(play_checked(rs, setup, b, i, max_choices))
                if progress is not None:
                    progress(len(results), games)
        else:
            stopped = _run_pool(rs, todo, jobs, content, max_choices, deadline, results, progress, games)
    except KeyboardInterrupt as stop:
        stopped = str(stop) or "interrupted"
    play_seconds = time.perf_counter() - t0
    by_check: dict[str, list[GameResult]] = {}
    for r in results:
        if r.check:
            by_check.setdefault(r.check, []).append(r)
    violations = []
    t1 = time.perf_counter()
    for check, rs_list in sorted(by_check.items()):
        first = min(rs_list, key=lambda r: (len(r.choices), r.index))
        v = {"check": check, "message": first.message, "games": len(rs_list), "seed": first.setup["seed"],
             "bot": first.bot, "setup": {k: v for k, v in first.setup.items() if k != "seed"},
             "choices_played": len(first.choices), "choices": list(first.choices), "shrunk": False,
             "reproduced": False, "replays": 0}
        if first.shrinkable and not stopped:
            cur, viol, replays = shrink(rs, first.setup, first.choices, check, max_seconds=shrink_seconds)
            v.update(choices=cur, reproduced=viol is not None, shrunk=len(cur) < len(first.choices),
                     replays=replays, message=viol.message if viol is not None else first.message)
        violations.append(v)
    counts = {"fg": 0, "killer": 0}
    for r in results:
        if r.result in counts:
            counts[r.result] += 1
    bots: dict[str, int] = {}
    for _, _, b in todo:
        bots[b] = bots.get(b, 0) + 1
    pairs = sorted({(s["killer"], s["scenario"]) for _, s, _ in todo})
    return {"games": games, "seed": seed, "bots": bots, "pairs": [list(p) for p in pairs],
            "final_girls": sorted({s["final_girl"] for _, s, _ in todo}),
            "transitions": sum(r.transitions for r in results), "results": counts,
            "seconds": round(play_seconds, 1), "shrink_seconds": round(time.perf_counter() - t1, 1),
            "jobs": jobs, "checks": list(CHECKS), "clean": not violations, "violations": violations,
            "modules": sorted(set(modules)), "played": len(results), "stopped": stopped}


def _run_pool(rs: Ruleset, todo: list, jobs: int, content: Sequence, max_choices: int, deadline: Optional[float],
              results: list[GameResult], progress: Any, games: int) -> str:
    """The games on ``jobs`` worker processes, their results put in ``results`` in order; "time"
    when ``deadline`` passed first (the batches not yet done are cancelled and the workers ended)."""
    size = max(1, min(8, math.ceil(len(todo) / (jobs * 8))))  # (small: a stop loses the batches under way)
    batches = [todo[j:j + size] for j in range(0, len(todo), size)]
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                               initargs=(tuple(str(p) for p in content), serialize.content_hash(rs)))
    done = False
    try:
        futures = [pool.submit(_run_batch, batch, max_choices) for batch in batches]
        for fut in futures:  # in order: the results are those of games 0, 1, 2, …
            try:
                got = fut.result(timeout=None if deadline is None else max(0.0, deadline - time.perf_counter()))
            except FutureTimeout:
                return "time"
            results.extend(got)
            if progress is not None:
                progress(len(results), games)
        done = True
        return ""
    finally:
        if done:
            pool.shutdown()
        else:  # stopped: no waiting for the batches under way (the pool's own processes, by their handle)
            workers = list(getattr(pool, "_processes", {}).values())
            pool.shutdown(wait=False)
            for proc in workers:
                if proc.is_alive():
                    proc.kill()


def format_report(data: dict) -> list[str]:
    bots = ", ".join(f"{k} {v}" for k, v in data["bots"].items())
    head = (f"fuzz: {data['games']} games ({bots}; seeds {data['seed']}–{data['seed'] + data['games'] - 1}) over "
            f"{len(data['pairs'])} killer × scenario pair(s), {data['transitions']} transitions checked in "
            f"{data['seconds']} s")
    lines = [head]
    stopped = data.get("stopped", "")
    if stopped:
        why = {"time": "at the time limit (--stop-after)", "interrupted": "by an interrupt (Ctrl-C)"}.get(
            stopped, f"by {stopped}")
        lines.append(f"stopped {why}: {data['played']} of the {data['games']} games were played and checked; "
                     "the report is theirs")
    if data["clean"]:
        lines.append(f"clean{' so far' if stopped else ''}: every check held after every transition "
                     f"({', '.join(data['checks'])}); "
                     f"{data['results']['fg']} Final Girl wins, {data['results']['killer']} killer wins")
        return lines
    lines.append(f"{len(data['violations'])} kind(s) of violation:")
    for v in data["violations"]:
        lines.append("")
        lines.append(f"VIOLATION {v['check']} in {v['games']} game(s): {v['message']}")
        setup = " ".join(f"--{k.replace('_', '-')} {val}" for k, val in v["setup"].items()
                         if k in ("killer", "scenario", "final_girl", "difficulty"))
        extra = (" --legendary" if v["setup"].get("legendary") else "") + f" --tie {v['setup'].get('tie_policy')}" \
            + "".join(f" --module {m}" for m in v["setup"].get("modules", ()))
        lines.append(f"  setup: {setup}{extra}")
        at = f"after choice {v['choices_played']}" if v["choices_played"] else "at the setup"
        lines.append(f"  seed {v['seed']}, bot {v['bot']}: failed {at} "
                     f"(lastbreath play {bot_flags(v['bot'])} --seed {v['seed']} {setup}{extra})")
        if v["reproduced"]:
            how = (f"shrunk from {v['choices_played']} in {v['replays']} replays" if v["shrunk"]
                   else "as played: no shorter list found")
            lines.append(f"  shortest choice list that reproduces it ({len(v['choices'])} choices, {how}):")
            lines.append(f"    {json.dumps(v['choices'])}")
        elif v["check"] == "no-end":
            lines.append(f"  not shrunk (a game that does not end has no shorter witness): the bot and seed above "
                         f"replay it; --save-repro writes its {len(v['choices'])} choices")
        elif v["choices"] or v["choices_played"]:
            lines.append("  (the choices alone do not reproduce it: replay the bot with the seed above)")
    return lines


def repro_save(rs: Ruleset, violation: dict) -> dict:
    """A save of the violation's setup, seed and choices, for ``lastbreath replay``."""
    from . import replay

    return replay.save((dict(violation["setup"]), violation["seed"], list(violation["choices"])), rs, snapshot=False)


__all__ = [
    "CHECKS",
    "GameResult",
    "Tracker",
    "Violation",
    "check_events",
    "check_save",
    "check_state",
    "check_transition",
    "format_report",
    "plan",
    "play_checked",
    "repro_save",
    "reproduce",
    "run_fuzz",
    "shrink",
    "start",
]

