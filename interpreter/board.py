"""The board: a scenario's map compiled once per ruleset into index tables.

Locations are numbered in declaration order; the game state holds only these numbers. The
networkx graph is built once per set of usable paths and frozen; what the hot path needs
(distances, the next step along a shortest path, panic destinations) is precomputed into
tuples. Dynamic facts (paths opened by effects, links switched on by a condition, paths that
enemies may not cross) select one of the cached tables rather than special-casing movement.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Optional

from lastbreath.dsl import nodes as n

INF = 1 << 20
MAX_TABLE_BYTES = 1 << 22  # a kept table file larger is not read (hundreds of locations need far less)


class Board:
    """Static tables for one scenario."""

    def __init__(self, scenario: n.Scenario):
        self.scenario = scenario
        self.ids: tuple[str, ...] = tuple(loc.id for loc in scenario.locations)
        self.index: dict[str, int] = {lid: i for i, lid in enumerate(self.ids)}
        self.names: tuple[str, ...] = tuple(loc.name for loc in scenario.locations)
        self.tags: tuple[frozenset[str], ...] = tuple(frozenset(loc.tags) for loc in scenario.locations)
        self.exits: frozenset[int] = frozenset(i for i, loc in enumerate(scenario.locations) if loc.exit)
        search = [i for i, loc in enumerate(scenario.locations) if loc.search]
        self.search_locs: tuple[int, ...] = tuple(search)
        self.pile_of: dict[int, int] = {loc: k for k, loc in enumerate(search)}
        # paths: (a, b, a_panic, b_panic, tags, closed)
        self.paths = tuple(
            (self.index[p.a], self.index[p.b], p.a_panic, p.b_panic, frozenset(p.tags), p.closed)
            for p in scenario.paths
        )
        self.n = len(self.ids)
        # the tags of the path between two locations (the first declared, either way): what a piece
        # walking from one to the other crosses (engine/moves.py)
        self.between: dict[tuple[int, int], frozenset[str]] = {}
        for a, b, _ap, _bp, tags, _closed in self.paths:
            self.between.setdefault((a, b), tags)
            self.between.setdefault((b, a), tags)
        self._tables: dict = {}
        self._with_tag: dict[str, tuple[int, ...]] = {}
        # exits only while a condition holds ('exit while …'), and the numbers locations declare
        self.exit_when = {i: loc.exit_when for i, loc in enumerate(scenario.locations) if loc.exit_when is not None}
        self.numbers: dict[tuple[int, str], int] = {(i, name): v for i, loc in enumerate(scenario.locations)
                                                     for name, v in loc.numbers}

    def usable(self, opened: frozenset[int], forbidden: frozenset[str] = frozenset(),
               shut: frozenset[int] = frozenset()) -> tuple[int, ...]:
        """Indices of the paths that can be used: open or opened, not carrying a forbidden tag, and
        not shut (closed by an effect for the mover asking)."""
        return tuple(
            k for k, p in enumerate(self.paths)
            if (not p[5] or k in opened) and not (p[4] & forbidden) and k not in shut
        )

    def tables(self, opened: frozenset[int], forbidden: frozenset[str] = frozenset(),
               shut: frozenset[int] = frozenset()):
        """(adjacency, distance, next_hop, panic) for a set of usable paths; cached."""
        key = (opened, forbidden, shut)
        got = self._tables.get(key)
        if got is None:
            got = self._compile(self.usable(opened, forbidden, shut))
            self._tables[key] = got
        return got

    def _compile(self, usable: Iterable[int]):
        """The tables for these usable paths: kept in the cache folder once computed (networkx costs
        ~65 ms of every start-up to import; a kept table needs none of it)."""
        usable = tuple(usable)
        key = _table_key(self.n, [self.paths[k][:4] + (k,) for k in usable])
        got = _load_tables(key, self.n, len(self.paths))
        if got is None:
            got = self._compute(usable)
            _store_tables(key, got)
        return got

    def _compute(self, usable: Iterable[int]):
        import networkx as nx  # imported lazily: it costs ~65 ms of start-up

        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        adj: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        panic: list[dict[int, int]] = [{} for _ in range(self.n)]
        for k in usable:
            a, b, ap, bp, _tags, _closed = self.paths[k]
            g.add_edge(a, b)
            adj[a].append((b, k))
            adj[b].append((a, k))
            for f in ap:
                panic[a][f] = b
            for f in bp:
                panic[b][f] = a
        g = nx.freeze(g)
        dist = [[INF] * self.n for _ in range(self.n)]
        for src, lengths in nx.all_pairs_shortest_path_length(g):
            row = dist[src]
            for dst, d in lengths.items():
                row[dst] = d
        # next_hop[u][t]: the first neighbour of u on a shortest path to t (declaration order on ties)
        nxt = [[-1] * self.n for _ in range(self.n)]
        for u in range(self.n):
            for t in range(self.n):
                if u == t or dist[u][t] >= INF:
                    continue
                best = -1
                for v, _k in sorted(adj[u]):
                    if dist[v][t] == dist[u][t] - 1:
                        best = v
                        break
                nxt[u][t] = best
        return (
            tuple(tuple(sorted(a)) for a in adj),
            tuple(tuple(r) for r in dist),
            tuple(tuple(r) for r in nxt),
            tuple(panic),
        )

    def with_tag(self, tag: str) -> tuple[int, ...]:
        """The locations with a tag, in board order (found once per tag: the tags never change)."""
        got = self._with_tag.get(tag)
        if got is None:
            got = self._with_tag[tag] = tuple(i for i, t in enumerate(self.tags) if tag in t)
        return got


# --- tables kept in the cache folder ------------------------------------------------------------
# A table set depends only on the number of locations, the usable paths (their ends, panic faces and
# indices) and this file's code: its name is a hash of those. It is kept as JSON (data, not code),
# written whole or not at all, and read back only if every number in it is in range; anything wrong
# means computing it again (dsl/cache.py's folder: LASTBREATH_CACHE, off keeps nothing).
@functools.lru_cache(maxsize=1)
def _code_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _table_key(size: int, paths: list) -> str:
    text = json.dumps([_code_version(), size, [[a, b, sorted(ap), sorted(bp), k] for a, b, ap, bp, k in paths]])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _table_file(key: str, create: bool = False) -> Optional[Path]:
    from lastbreath.dsl.cache import folder, location

    base = folder() if create else location()
    return None if base is None else base / "boards" / f"{key}.json"


def _load_tables(key: str, size: int, path_count: int) -> Optional[tuple]:
    f = _table_file(key)
    if f is None:
        return None
    try:
        if f.stat().st_size > MAX_TABLE_BYTES:
            return None
        data = json.loads(f.read_text(encoding="utf-8"))
        return _from_json(data, size, path_count)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def _from_json(data: Any, size: int, path_count: int) -> Optional[tuple]:
    """The tables of a kept file, or None if anything in it is not what ``_compute`` makes."""
    def index(v: Any, top: int) -> bool:
        return type(v) is int and 0 <= v < top

    adj, dist, nxt, panic = data["adjacency"], data["distance"], data["next"], data["panic"]
    if not all(type(t) is list and len(t) == size for t in (adj, dist, nxt, panic)):
        return None
    for row in adj:
        if type(row) is not list or not all(type(e) is list and len(e) == 2 and index(e[0], size)
                                            and index(e[1], path_count) for e in row):
            return None
    for d_row, n_row in zip(dist, nxt):
        if not (type(d_row) is list and len(d_row) == size and all(type(d) is int and 0 <= d <= INF for d in d_row)):
            return None
        if not (type(n_row) is list and len(n_row) == size and all(index(v, size) or (type(v) is int and v == -1)
                                                                          for v in n_row)):
            return None
    for faces in panic:
        if type(faces) is not dict or not all(k.isascii() and k.isdigit() and len(k) < 4 and k == str(int(k))
                                              and index(v, size) for k, v in faces.items()):
            return None
    return (
        tuple(tuple((a, k) for a, k in row) for row in adj),
        tuple(tuple(r) for r in dist),
        tuple(tuple(r) for r in nxt),
        tuple({int(k): v for k, v in faces.items()} for faces in panic),
    )


def _store_tables(key: str, tables: tuple) -> None:
    f = _table_file(key, create=True)
    if f is None:
        return
    adj, dist, nxt, panic = tables
    text = json.dumps({"adjacency": [[list(e) for e in row] for row in adj], "distance": [list(r) for r in dist],
                       "next": [list(r) for r in nxt], "panic": [{str(k): v for k, v in p.items()} for p in panic]},
                      separators=(",", ":"))
    try:
        f.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=f.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, f)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # a cache only saves time
