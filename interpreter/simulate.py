"""Many games with a bot: the simulation core behind ``lastbreath simulate`` and ``lastbreath report``.

    rs = load_ruleset()
    records = run_games(rs, {"killer": KILLER_ID}, games=1000, seed=1, bot="random", jobs=2)
    print(summarize(records)["win_rate_ci"])

Game i plays with seed ``seed + i``, for the game and for the bot, so every game replays alone
(``lastbreath play --bot BOT --seed SEED``). A game is a pure function of its setup, seed and bot:
``jobs=N`` (a process pool) and a dask cluster give the same records as ``jobs=1``, in seed order.

Workers load the content themselves, once each, from paths (the bundled content plus
``content``), never from a pickled Ruleset, and check that it hashes like the caller's.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import sys
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Callable, Iterable, Mapping, Optional, Sequence

import attrs
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.dsl.ruleset import Ruleset

from . import api
from .bots import BOTS
from .engine import play_out
from .serialize import content_hash
from .state import Event

__all__ = [
    "SERIES",
    "GameRecord",
    "Progress",
    "SimulationError",
    "Simulator",
    "compact",
    "content_line",
    "csv_text",
    "detail_summary",
    "matrix_setups",
    "play_one",
    "quartiles",
    "run_games",
    "run_matrix",
    "summarize",
    "wilson",
]

Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval
MAX_CHOICES = 20000
MIN_PARALLEL = 64  # fewer games than this run in this process: starting workers would cost more


class SimulationError(Exception):
    """The simulation could not run (not a game's failure: those are recorded per game)."""


@attrs.frozen
class GameRecord:
    """One simulated game. ``result`` is "fg", "killer" or "" (the game raised: see ``error``);
    ``bloodlust[r]`` is the bloodlust level (1-based) at the start of round r+1's Action phase.
    ``seconds`` (its wall time) is left out of comparisons: two runs of the same seeds are equal.

    The fields after ``seconds`` are filled only in a detailed run (``detail=True``: the report,
    compare, ``simulate --full``), from the events' data (state.Event), never their text; a plain
    run leaves them empty, as records made before they existed have them:

    - ``cause``: the content line that ended the game, ``file:line:col`` (the end event's source;
      "" when the core rules alone did);
    - ``health``, ``fear``, ``time``: hers at the start of each round's Action phase, as ``bloodlust``;
    - ``bought``, ``played``: the action cards bought and played, by id, in order; ``used``: the
      items used (their use action), by id;
    - ``deaths``: the location (its name) where each victim died, in order;
    - ``reached``: with ``reach=True`` only, the content spans the game resolved (``file:line:col``,
      sorted; engine coverage, interpreter/coverage.py)."""

    seed: int
    result: str
    end_reason: str
    rounds: int
    rescued: int
    dead: int
    bloodlust: tuple[int, ...]
    error: str = ""
    transitions: int = 0
    seconds: float = attrs.field(default=0.0, eq=False, repr=False)
    cause: str = ""
    health: tuple[int, ...] = ()
    fear: tuple[int, ...] = ()
    time: tuple[int, ...] = ()
    bought: tuple[str, ...] = ()
    played: tuple[str, ...] = ()
    used: tuple[str, ...] = ()
    deaths: tuple[str, ...] = ()
    reached: tuple[str, ...] = ()

    @property
    def detailed(self) -> bool:
        """Whether the game was recorded in detail (every game that started has a round 1)."""
        return bool(self.health)


# --- one game -----------------------------------------------------------------------------------
# A record reads no event while a run is kept: play_out's on_round tells each round's start and
# its bloodlust level. The events _track reads come only from a transition apply replays (no run
# kept: greenlet off), which gives every event: there the round starts are read from them.
_NO_EVENTS: frozenset[str] = frozenset()
_SETUP_EVENTS = frozenset({"phase", "bloodlust"})  # all the record reads of the events up to the first choice


def _track(events, level: int, lust: list[int]) -> int:
    """Walk a step's events: the level (1-based) moves with each bloodlust event that sets one; a
    round's start (the "phase" event with data, state.Event) records the level then. Returns the
    level after the events. Reads the events' data, never their text."""
    for e in events:
        kind = e[0]  # e.kind, by index: a named tuple's field by name costs a descriptor call
        if kind == "phase":
            if e[4]:  # (round, level, health, fear, time): only a round's start carries data
                level = e[4][1]
                lust.append(level)
        elif kind == "bloodlust" and e[4]:
            level = e[4][0]
    return level


def play_one(rs: Ruleset, setup: Mapping, seed: int, bot: str, max_choices: int = MAX_CHOICES,
             detail: bool = False, reach: bool = False) -> GameRecord:
    """Play one game to its end; any exception becomes the record's ``error``. ``detail``: fill the
    record's detailed fields (``_play_detail``); ``reach``: also the content spans it resolved.

    A bot that reads only the options (``random``, ``first``) is answered without the states
    between its answers (engine.play_out); the record reads the events and the last state. A game
    that raises is played again with every state, so that its record names the last state
    reached, as with any bot (a game is a pure function of its seed: the same game)."""
    maker = BOTS.get(bot)
    policy = maker(seed) if maker is not None else None
    if policy is not None and (detail or reach):
        got = _play_detail(rs, setup, seed, policy, max_choices, reach)
        if got is not None:
            return got
    elif policy is not None and getattr(policy, "choose_index", None) is not None:
        got = _play_lean(rs, setup, seed, policy, max_choices)
        if got is not None:
            return got
    return _play(rs, setup, seed, bot, max_choices)


def _play_lean(rs: Ruleset, setup: Mapping, seed: int, policy: Callable, max_choices: int) -> Optional[GameRecord]:
    """``_play`` without the states between answers (None: the game raised, or did not end)."""
    t0 = time.perf_counter()
    lust: list[int] = []
    given = [0]
    try:
        state, events = api.new_game(rs, seed=seed, kinds=_SETUP_EVENTS, **setup)
        _track(events, 1, lust)
        level = state.bloodlust + 1
        # each round's start told by on_round; events come only where apply replayed (see _NO_EVENTS),
        # gathered by the list's own extend (no Python call per answer) and walked once at the end
        seen: list[Event] = []
        state = play_out(state, policy, max_choices, None, _NO_EVENTS, seen.extend, quiet=True,
                         on_answers=given.append, on_round=lambda _round, lv: lust.append(lv))
        _track(seen, level, lust)
        transitions = sum(given)
        if transitions >= max_choices:
            return None
    except Exception:
        return None
    return GameRecord(seed, state.result, state.end_reason, state.round, state.rescued, state.dead, tuple(lust),
                      "", transitions, time.perf_counter() - t0)


# the kinds of event a detailed record reads (their data: state.Event)
DETAIL_KINDS = frozenset({"phase", "bloodlust", "end", "buy", "play", "use", "death"})


def _play_detail(rs: Ruleset, setup: Mapping, seed: int, policy: Callable, max_choices: int,
                 reach: bool) -> Optional[GameRecord]:
    """A detailed record (see GameRecord), from the data of the events of ``DETAIL_KINDS`` (None: the
    game raised or did not end; ``_play`` then records it as any other)."""
    from .engine import recording

    t0 = time.perf_counter()
    given = [0]
    seen: list[Event] = []
    spans: set = set()
    try:
        with recording() if reach else _nothing() as got:
            state, events = api.new_game(rs, seed=seed, kinds=DETAIL_KINDS, **setup)
            seen.extend(events)
            state = play_out(state, policy, max_choices, None, DETAIL_KINDS, seen.extend, quiet=True,
                             on_answers=given.append)
            if got is not None:
                spans = got
        transitions = sum(given)
        if transitions >= max_choices or not state.result:
            return None
    except Exception:
        return None
    lust: list[int] = []
    health: list[int] = []
    fear: list[int] = []
    tm: list[int] = []
    bought: list[str] = []
    played: list[str] = []
    used: list[str] = []
    deaths: list[str] = []
    cause = ""
    names = state.game.loc_name
    for e in seen:
        kind, data = e[0], e[4]
        if not data:
            continue
        if kind == "phase":  # a round's start: (round, bloodlust level, health, fear, time)
            lust.append(data[1])
            health.append(data[2])
            fear.append(data[3])
            tm.append(data[4])
        elif kind == "buy":
            bought.append(data[0])
        elif kind == "play":
            played.append(data[0])
        elif kind == "use":
            used.append(data[0])
        elif kind == "death":
            deaths.append(names(data[0]))
        elif kind == "end":
            cause = e[3]
    reached = tuple(sorted({f"{sp.path}:{sp.line}:{sp.col}" for sp in spans if getattr(sp, "path", None)}))
    return GameRecord(seed, state.result, state.end_reason, state.round, state.rescued, state.dead, tuple(lust),
                      "", transitions, time.perf_counter() - t0, cause, tuple(health), tuple(fear), tuple(tm),
                      tuple(bought), tuple(played), tuple(used), tuple(deaths), reached)


class _nothing:
    """A context that gives None (``recording()`` when the spans are not wanted)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        return None


def _play(rs: Ruleset, setup: Mapping, seed: int, bot: str, max_choices: int) -> GameRecord:
    t0 = time.perf_counter()
    lust: list[int] = []
    state = None
    transitions = 0
    told = 0  # the rounds told by the answers that ended (one that raised is not recorded, as its events were not)
    try:
        policy = BOTS[bot](seed)
        state, events = api.new_game(rs, seed=seed, kinds=_SETUP_EVENTS, **setup)
        _track(events, 1, lust)
        told = len(lust)
        level = state.bloodlust + 1

        def seen(st, evs) -> None:  # after each answer (engine.play_out: apply in a loop, answered in the run)
            nonlocal state, transitions, level, told
            state = st
            transitions += 1
            if evs:  # only where apply replayed the transition (see _NO_EVENTS)
                _track(evs, level, lust)
            level = st.bloodlust + 1  # resynchronise (a change without an event would drift otherwise)
            told = len(lust)

        play_out(state, policy, max_choices, seen, _NO_EVENTS, on_round=lambda _round, lv: lust.append(lv))
        if transitions >= max_choices:  # as before: max_choices answers without seeing the end is an error
            raise api.RulesError(f"the game did not end within {max_choices} choices")
    except Exception as err:
        del lust[told:]
        return GameRecord(seed, "", "", state.round if state is not None else 0,
                          state.rescued if state is not None else 0, state.dead if state is not None else 0,
                          tuple(lust), f"{type(err).__name__}: {err}", transitions, time.perf_counter() - t0)
    return GameRecord(seed, state.result, state.end_reason, state.round, state.rescued, state.dead, tuple(lust),
                      "", transitions, time.perf_counter() - t0)


# --- workers ------------------------------------------------------------------------------------
_WORKER_RS: dict[tuple, Ruleset] = {}
# the Rulesets of this process's live pools, by (content, digest): a worker forked from it (the
# start method on Linux) finds its content here, loaded and checked already, shared with the parent
_FORKED: dict[tuple, Ruleset] = {}
_WORKER_LOCK = threading.Lock()


def _content_paths(content: Sequence) -> list[Path]:
    return [*bundled_paths(), *(Path(p) for p in content)]


def _worker_ruleset(content: tuple[str, ...], digest: str) -> Ruleset:
    """The content, loaded once per worker process (and shared by a worker's threads)."""
    key = (content, digest)
    rs = _WORKER_RS.get(key)
    if rs is not None:
        return rs
    with _WORKER_LOCK:
        rs = _WORKER_RS.get(key)
        if rs is None:
            rs = _FORKED.get(key)
            if rs is None:  # a worker started afresh (spawn, a dask worker): it loads the content itself
                rs = load_ruleset(_content_paths(content))
                got = content_hash(rs)
                if got != digest:
                    raise SimulationError(
                        f"a worker loaded other content (hash {got}) than the caller's (hash {digest}): pass "
                        f"the paths the Ruleset was loaded from as content=, and install the same lastbreath "
                        f"on every worker")
            gc.freeze()  # the content lives as long as the worker: keep it out of the collector's scans
            _WORKER_RS[key] = rs
    return rs


def _loaded_from(rs: Ruleset, paths: Sequence[Path]) -> bool:
    """Whether every file of ``rs`` lies in one of ``paths`` (a file, or a folder it is under): a
    worker that loads them would find that content (a worker forked from here is handed ``rs``
    itself only then, so that a pack missing from ``content=`` is refused on every platform)."""
    roots = [str(p.resolve()) for p in paths]
    for f in rs.sources:
        real = str(Path(f).resolve())
        if not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            return False
    return True


def _set_up(rs: Ruleset, setup: Mapping, seed: int = 0) -> None:
    """Set a setup up once, outside any game's time: its Game made, its board's tables compiled,
    networkx imported (a setup that fails is the games' to report, one by one)."""
    try:
        api.new_game(rs, seed=seed, **setup)
    except Exception:
        pass


def _init_worker(content: tuple[str, ...], digest: str) -> None:
    try:  # load before the first task; a failure is raised again by the task (a failing initializer
        _worker_ruleset(content, digest)  # would only break the pool, without the reason)
    except Exception:
        pass


def _warm_worker(content: tuple[str, ...], digest: str, setups: tuple[dict, ...], barrier) -> None:
    """A ``warm`` task: load the content and set up each setup once (compiling its board, importing
    networkx: ~70 ms), then wait at the barrier until every worker has done the same (so each
    worker gets one of these tasks)."""
    rs = _worker_ruleset(content, digest)
    for setup in setups:
        _set_up(rs, setup)
    try:
        barrier.wait()
    except Exception:
        pass


def _run_batch(content: tuple[str, ...], digest: str, index: int, setup: dict, seeds: tuple[int, ...],
               bot: str, max_choices: int, detail: bool = False, reach: bool = False) -> tuple[int, list[GameRecord]]:
    """A worker's task: the games of some seeds of one setup (``index`` names the setup)."""
    rs = _worker_ruleset(content, digest)
    return index, [play_one(rs, setup, s, bot, max_choices, detail, reach) for s in seeds]


# --- runs ---------------------------------------------------------------------------------------
def _batches(count: int, games: int, seed: int, workers: int) -> list[tuple[int, tuple[int, ...]]]:
    """Per setup, runs of consecutive seeds, in order, each a quarter of what is left per worker
    (4 to 200 games): large batches first, then smaller and smaller ones, so that the workers
    finish together (the last batches are a few games) and the progress moves."""
    out = []
    left = count * games
    share = max(1, workers * 4)
    for i in range(count):
        start = 0
        while start < games:
            size = min(games - start, max(4, min(200, math.ceil(left / share))))
            out.append((i, tuple(range(seed + start, seed + start + size))))
            start += size
            left -= size
    return out


class Simulator:
    """Runs games for one Ruleset, in this process (``jobs=1``), in a pool of worker processes
    (``jobs=N``), or on a dask.distributed cluster (``scheduler="ADDRESS"`` or ``"local"``).
    A context manager: the pool or cluster is started on first use and kept until ``close()``,
    so several runs (a matrix, a benchmark) pay for the workers' start once. A run of fewer than
    ``min_parallel`` games stays in this process (the records are the same either way)."""

    def __init__(self, rs: Ruleset, jobs: Optional[int] = 1, content: Sequence = (),
                 scheduler: Optional[str] = None, min_parallel: int = MIN_PARALLEL):
        self.rs = rs
        self.min_parallel = min_parallel
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.content = tuple(str(p) for p in content)
        self.scheduler = scheduler
        self.digest = content_hash(rs)
        self._pool: Optional[ProcessPoolExecutor] = None
        self._pool_size = 0
        self._client = None
        self._cluster = None

    def __enter__(self) -> Simulator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            if _FORKED.get((self.content, self.digest)) is self.rs:
                del _FORKED[(self.content, self.digest)]
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    @property
    def parallel(self) -> bool:
        return self.scheduler is not None or self.jobs > 1

    def run(self, setups: Sequence[Mapping], games: int, seed: int, bot: str, max_choices: int = MAX_CHOICES,
            progress: Optional[Callable[[list[GameRecord]], None]] = None, detail: bool = False,
            reach: bool = False) -> list[list[GameRecord]]:
        """The records of ``games`` games of each setup (seeds seed..seed+games-1), in seed order
        (``detail``, ``reach``: see ``play_one``)."""
        if bot not in BOTS:
            raise SimulationError(f"unknown bot '{bot}' (one of {', '.join(BOTS)})")
        if games < 1 or not setups:
            return [[] for _ in setups]
        setups = [dict(s) for s in setups]
        if not self.parallel or (self.scheduler is None and games * len(setups) < self.min_parallel):
            out = []
            for setup in setups:
                _set_up(self.rs, setup, seed)  # the board compiled and the caches warm outside the games' time
                recs = []
                for s in range(seed, seed + games):
                    rec = play_one(self.rs, setup, s, bot, max_choices, detail, reach)
                    recs.append(rec)
                    if progress is not None:
                        progress([rec])
                out.append(recs)
            return out
        workers = self.jobs
        if self.scheduler is not None:
            workers = max(workers, self._dask_workers())
        tasks = _batches(len(setups), games, seed, workers)
        if self.scheduler is not None:
            done = self._run_dask(setups, tasks, bot, max_choices, progress, detail, reach)
        else:
            done = self._run_pool(setups, tasks, bot, max_choices, progress, detail, reach)
        out = [[] for _ in setups]
        for index, recs in done:
            out[index].extend(recs)
        for recs in out:
            recs.sort(key=lambda r: r.seed)
        return out

    # -- a process pool --------------------------------------------------------------------------
    def _executor(self, wanted: int) -> ProcessPoolExecutor:
        if self._pool is None or self._pool_size < wanted:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
            # the platform's start method (fork on Linux before Python 3.14): forked workers take this
            # process's Ruleset (_FORKED) and what it has compiled; others load the content themselves
            if _loaded_from(self.rs, _content_paths(self.content)):  # else they load it, and refuse it (the hash)
                _FORKED[(self.content, self.digest)] = self.rs
            self._pool = ProcessPoolExecutor(max_workers=wanted, initializer=_init_worker,
                                             initargs=(self.content, self.digest))
            self._pool_size = wanted
        return self._pool

    def warm(self, setups: Sequence[Mapping] = ()) -> None:
        """Start the workers, load the content in each and set up each of ``setups`` once there
        (for benchmarks: no start-up, and no board compiled by a first game, in timings)."""
        if self.scheduler is None and self.jobs > 1:
            pool = self._executor(self.jobs)
            with multiprocessing.Manager() as manager:
                barrier = manager.Barrier(self.jobs, timeout=120)
                n = self.jobs
                list(pool.map(_warm_worker, [self.content] * n, [self.digest] * n,
                              [tuple(dict(s) for s in setups)] * n, [barrier] * n))
        elif self.scheduler is not None:
            self._dask_client()

    def _run_pool(self, setups, tasks, bot, max_choices, progress, detail=False, reach=False):
        if self._pool is None and multiprocessing.get_start_method() == "fork":
            # before the workers fork from here: each setup's tables made once, here, for all of them
            for setup in setups:
                _set_up(self.rs, setup)
        pool = self._executor(min(self.jobs, len(tasks)))
        pending = {pool.submit(_run_batch, self.content, self.digest, i, setups[i], seeds, bot, max_choices,
                               detail, reach) for i, seeds in tasks}
        done = []
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    index, recs = f.result()
                    done.append((index, recs))
                    if progress is not None:
                        progress(recs)
        except BrokenProcessPool as err:
            self._pool = None
            raise SimulationError("a worker process died (out of memory? a script that starts workers needs "
                                  "an 'if __name__ == \"__main__\":' guard)") from err
        except BaseException:
            for f in pending:
                f.cancel()
            raise
        return done

    # -- dask ------------------------------------------------------------------------------------
    def _dask_client(self):
        if self._client is not None:
            return self._client
        try:
            from distributed import Client, LocalCluster
        except ImportError as err:
            raise SimulationError("running on a dask cluster needs dask.distributed: "
                                  "pip install 'lastbreath[dask]'") from err
        if self.scheduler == "local":
            self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=self.jobs > 1,
                                         dashboard_address=None)
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.scheduler, timeout="20s")
            except OSError as err:
                raise SimulationError(f"cannot reach the dask scheduler at '{self.scheduler}': {err}") from err
        return self._client

    def _dask_workers(self) -> int:
        client = self._dask_client()
        info = client.scheduler_info()
        return max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def _run_dask(self, setups, tasks, bot, max_choices, progress, detail=False, reach=False):
        from distributed import as_completed

        client = self._dask_client()
        futures = [client.submit(_run_batch, self.content, self.digest, i, setups[i], seeds, bot, max_choices,
                                 detail, reach, pure=False) for i, seeds in tasks]
        done = []
        try:
            for f in as_completed(futures):
                index, recs = f.result()
                done.append((index, recs))
                if progress is not None:
                    progress(recs)
        except BaseException:
            client.cancel(futures)
            raise
        return done


def run_games(rs: Ruleset, setup: Mapping, games: int, seed: int, bot: str, jobs: Optional[int] = 1, *,
              content: Sequence = (), scheduler: Optional[str] = None, max_choices: int = MAX_CHOICES,
              progress: Optional[Callable[[list[GameRecord]], None]] = None, detail: bool = False,
              reach: bool = False) -> list[GameRecord]:
    """``games`` games of one setup (``new_game`` keywords: killer, scenario, final_girl, …) with
    seeds seed..seed+games-1, in seed order. ``jobs`` > 1 plays them in that many worker processes
    (None: all cores), which load the bundled content plus ``content`` (the paths ``rs`` was
    loaded from beyond the bundled set); ``scheduler`` runs them on a dask cluster instead."""
    return run_matrix(rs, [setup], games, seed, bot, jobs, content=content, scheduler=scheduler,
                      max_choices=max_choices, progress=progress, detail=detail, reach=reach)[0]


def run_matrix(rs: Ruleset, setups: Sequence[Mapping], games: int, seed: int, bot: str, jobs: Optional[int] = 1, *,
               content: Sequence = (), scheduler: Optional[str] = None, max_choices: int = MAX_CHOICES,
               progress: Optional[Callable[[list[GameRecord]], None]] = None, detail: bool = False,
               reach: bool = False) -> list[list[GameRecord]]:
    """``run_games`` for several setups at once, sharing one pool of workers; a list per setup."""
    with Simulator(rs, jobs, content, scheduler) as sim:
        return sim.run(setups, games, seed, bot, max_choices, progress, detail, reach)


def matrix_setups(rs: Ruleset, killers: Iterable[str] = (), scenarios: Iterable[str] = (),
                  final_girls: Iterable[str] = (), **common) -> list[dict]:
    """Every killer × scenario × Final Girl (each list, when not empty, keeps only those ids), in id order."""
    ks = sorted(set(killers) or rs.killers)
    ss = sorted(set(scenarios) or rs.scenarios)
    fs = sorted(set(final_girls) or rs.final_girls)
    return [{"killer": k, "scenario": s, "final_girl": f, **common} for k in ks for s in ss for f in fs]


# --- statistics ---------------------------------------------------------------------------------
def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _median(xs: Sequence[float]) -> float:
    xs = sorted(xs)
    if not xs:
        return 0.0
    m = len(xs) // 2
    return float(xs[m]) if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def quartiles(xs: Sequence[float]) -> tuple[float, float, float]:
    """(lower quartile, median, upper quartile) of some numbers, by linear interpolation between the
    sorted values (the "inclusive" method of ``statistics.quantiles``); (0, 0, 0) when empty."""
    s = sorted(xs)
    if not s:
        return 0.0, 0.0, 0.0

    def at(q: float) -> float:
        pos = q * (len(s) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(s) - 1)
        return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))

    return at(0.25), at(0.5), at(0.75)


def content_line(source: str) -> str:
    """A content line as people read it: ``file:line`` (bundled files relative to their package,
    explain.short_source); "core rules" when no content line caused it."""
    from .explain import short_source

    return short_source(source) if source else "core rules"


SERIES_FIELDS = ("health", "fear", "time", "bloodlust")  # a detailed record's per-round columns


def _rate(wins: int, n: int) -> Optional[float]:
    return round(wins / n, 4) if n else None


def _uses(finished: Sequence[GameRecord], field: str) -> dict:
    """Per id in the records' ``field`` (bought, played, used): how many times in all, in how many
    games, and the win rate of the games with it and of those without it (None: no such game)."""
    times: Counter = Counter()
    games: Counter = Counter()
    wins: Counter = Counter()
    for r in finished:
        ids = getattr(r, field)
        times.update(ids)
        for i in set(ids):
            games[i] += 1
            wins[i] += r.result == "fg"
    n = len(finished)
    all_wins = sum(r.result == "fg" for r in finished)
    out = {}
    for i in sorted(times, key=lambda k: (-games[k], k)):
        g, w = games[i], wins[i]
        out[i] = {"times": times[i], "games": g, "win_rate_with": _rate(w, g),
                  "win_rate_without": _rate(all_wins - w, n - g)}
    return out


def detail_summary(finished: Sequence[GameRecord]) -> dict:
    """What the detailed records of finished games say (GameRecord): rounds by result, the content
    lines that ended the games (by winner), the series per round (quartiles), the cards bought and
    played and the items used (with the win rate with and without each), where victims died."""
    by_result = {}
    for side in ("fg", "killer"):
        rs_ = [r.rounds for r in finished if r.result == side]
        q1, med, q3 = quartiles(rs_)
        by_result[side] = {"games": len(rs_), "mean": round(sum(rs_) / len(rs_), 3) if rs_ else 0.0,
                           "median": med, "quartiles": [q1, q3], "distribution": dict(sorted(Counter(rs_).items()))}
    causes = {side: dict(Counter(content_line(r.cause) for r in finished if r.result == side).most_common())
              for side in ("fg", "killer")}
    series: dict[str, list] = {}
    for field in SERIES_FIELDS:
        rows = []
        longest = max((len(getattr(r, field)) for r in finished), default=0)
        for i in range(longest):
            vals = [getattr(r, field)[i] for r in finished if len(getattr(r, field)) > i]
            q1, med, q3 = quartiles(vals)
            rows.append([i + 1, q1, med, q3, len(vals)])
        series[field] = rows
    deaths = Counter(loc for r in finished for loc in r.deaths)
    return {"rounds_by_result": by_result, "causes": causes, "series": series,
            "cards_bought": _uses(finished, "bought"), "cards_played": _uses(finished, "played"),
            "items_used": _uses(finished, "used"),
            "deaths": dict(sorted(deaths.items(), key=lambda kv: (-kv[1], kv[0])))}


def summarize(records: Sequence[GameRecord], seconds: Optional[float] = None) -> dict:
    """Totals and statistics of some games. ``win_rate`` is wins per finished game (errors left
    out), with its 95% Wilson interval; rounds, victims and end reasons are of finished games;
    ``mean_bloodlust[r]`` is the mean level at the start of round r+1 over the games that reached it.
    ``games_per_second`` uses ``seconds`` (wall time of the run) or else the games' own times.
    Detailed records (GameRecord) add ``detail_summary``'s keys."""
    finished = [r for r in records if not r.error]
    failed = [r for r in records if r.error]
    n = len(finished)
    wins = sum(r.result == "fg" for r in finished)
    losses = sum(r.result == "killer" for r in finished)
    lo, hi = wilson(wins, n)
    rounds = [r.rounds for r in finished]
    mean_rounds = sum(rounds) / n if n else 0.0
    sums: list[int] = []  # per round: the levels summed and the games that reached it, in one pass
    reached: list[int] = []  # (not a pass over every game per round: one long game made that n × rounds)
    for r in finished:
        b = r.bloodlust
        if len(b) > len(sums):
            sums.extend([0] * (len(b) - len(sums)))
            reached.extend([0] * (len(b) - len(reached)))
        for i, level in enumerate(b):
            sums[i] += level
            reached[i] += 1
    lust = [round(t / k, 3) for t, k in zip(sums, reached)]
    elapsed = seconds if seconds is not None else sum(r.seconds for r in records)
    transitions = sum(r.transitions for r in records)
    out = {
        "games": len(records), "wins": wins, "losses": losses, "errors": len(failed),
        "win_rate": round(wins / n, 4) if n else 0.0,
        "win_rate_ci": [round(lo, 4), round(hi, 4)],
        "mean_rounds": round(mean_rounds, 3),
        "rounds": {"mean": round(mean_rounds, 3), "median": _median(rounds),
                   "distribution": dict(sorted(Counter(rounds).items()))},
        "mean_rescued": round(sum(r.rescued for r in finished) / n, 3) if n else 0.0,
        "mean_killed": round(sum(r.dead for r in finished) / n, 3) if n else 0.0,
        "end_reasons": dict(Counter(r.end_reason for r in finished).most_common()),
        "mean_bloodlust": lust,
        "transitions_per_game": round(transitions / len(records), 1) if records else 0.0,
        "games_per_second": round(len(records) / elapsed, 1) if elapsed > 0 else 0.0,
        "seconds": round(elapsed, 3),
        "error_samples": [f"seed {r.seed}: {r.error}" for r in failed[:5]],
    }
    if any(r.detailed for r in finished):
        out.update(detail_summary([r for r in finished if r.detailed]))
    return out


# --- output -------------------------------------------------------------------------------------
# only figures that a rerun with the same seeds reproduces: timings (games per second) stay out,
# so two runs' CSV files compare equal
CSV_COLUMNS = ("killer", "scenario", "final_girl", "difficulty", "legendary", "games", "wins", "losses", "errors",
               "win_rate", "win_rate_lower", "win_rate_upper", "mean_rounds", "median_rounds", "rounds_distribution",
               "mean_rescued", "mean_killed", "end_reasons")
SERIES = ("mean_bloodlust", "series")  # per-round series: in ``simulate --json --full`` only


def compact(summary: Mapping) -> dict:
    """A summary without its per-round series (``SERIES``)."""
    return {k: v for k, v in summary.items() if k not in SERIES}


def csv_text(rows: Sequence[Mapping]) -> str:
    """One CSV line per pair (rows: a setup's keys plus its summary); the distributions as
    ``key:count`` joined by ``;``."""
    import csv
    import io

    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(CSV_COLUMNS)
    for r in rows:
        out.writerow([r.get("killer", ""), r.get("scenario", ""), r.get("final_girl", ""), r.get("difficulty", ""),
                      str(bool(r.get("legendary", False))).lower(), r["games"], r["wins"], r["losses"], r["errors"],
                      r["win_rate"], r["win_rate_ci"][0], r["win_rate_ci"][1], r["mean_rounds"],
                      r["rounds"]["median"], ";".join(f"{k}:{v}" for k, v in r["rounds"]["distribution"].items()),
                      r["mean_rescued"], r["mean_killed"], ";".join(f"{k}:{v}" for k, v in r["end_reasons"].items())])
    return buf.getvalue()


class Progress:
    """A progress bar on a terminal (stderr): games done, won, errors, rate; redrawn at most 10 times a second."""

    def __init__(self, total: int, stream=None, width: int = 28):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = self.wins = self.errors = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def __call__(self, records: list[GameRecord]) -> None:
        self.done += len(records)
        self.wins += sum(r.result == "fg" for r in records)
        self.errors += sum(bool(r.error) for r in records)
        now = time.perf_counter()
        if now - self.last > 0.1 or self.done >= self.total:
            self.last = now
            self.draw(now)

    def draw(self, now: float) -> None:
        frac = self.done / self.total if self.total else 1.0
        fill = int(frac * self.width)
        rate = self.done / (now - self.t0) if now > self.t0 else 0.0
        bar = "█" * fill + "░" * (self.width - fill)
        print(f"\r{bar} {self.done}/{self.total} games · {self.wins} won · {self.errors} errors · "
              f"{rate:.0f} games/s ", end="", file=self.stream, flush=True)

    def clear(self) -> None:
        print("\r" + " " * (self.width + 80) + "\r", end="", file=self.stream, flush=True)
