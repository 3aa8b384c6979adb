"""The board: a scenario's map compiled once per ruleset into index tables.

Locations are numbered in declaration order; the game state holds only these numbers. The
networkx graph is built once per set of usable paths and frozen; what the hot path needs
(distances, the next step along a shortest path, panic destinations) is precomputed into
tuples. Dynamic facts (paths opened by effects, links switched on by a condition, paths that
enemies may not cross) select one of the cached tables rather than special-casing movement.
"""

from __future__ import annotations

from typing import Iterable

from lastbreath.dsl import nodes as n

INF = 1 << 20


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
        import networkx as nx  # imported lazily: it costs ~120 ms of start-up

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
