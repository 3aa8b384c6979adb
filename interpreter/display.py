"""What a graphical front end draws: the board with its coordinates, and the screen of a state.

``board_json(game)`` is the map as data: every location (name, exit, search pile, tags, and a
position in the unit square) and every path (its ends, the panic faces along it from each end,
its tags, closed or not). A location's position is the one its content declares (``at X Y``),
else a layout computed from the paths (``layout``): a stress layout over the graph's distances,
pure Python and deterministic, so the same map is drawn the same way everywhere.

``screen_json(state, before, events)`` is what the terminal screen shows (interpreter/screen.py),
as data: the tracks (and their lines of text, the same as the terminal's), every piece on each
location, the hand with each card's text, the items, the market, the rescue slots, the revealed
finale and dark power, every other fact in play, the locations the pending choice can be answered
at, and the steps of the last transition with the killer's target, why and path before each move
(``screen.killer_steps``, the code the terminal pauses by).

Both read the state generically: no killer, scenario or mechanic is named.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Optional, Sequence

from lastbreath.dsl.render import render, render_effects

from . import explain, screen
from .state import Event, GameState

__all__ = ["board_json", "layout", "screen_json"]


def layout(n: int, edges: Sequence[tuple[int, int]], rounds: int = 300) -> list[tuple[float, float]]:
    """Positions in the unit square for ``n`` nodes joined by ``edges``: stress majorization over
    the shortest-path distances (networkx), started on a circle in declaration order. Locations in
    different parts of a map (no path between them) are kept one step farther apart than the farthest
    joined pair. Deterministic: plain float arithmetic in a fixed order."""
    if n == 0:
        return []
    if n == 1:
        return [(0.5, 0.5)]
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from((a, b) for a, b in edges if a != b)
    lengths = dict(nx.all_pairs_shortest_path_length(graph))
    far = max((d for row in lengths.values() for d in row.values()), default=1) + 1
    dist = [[float(lengths[i].get(j, far)) for j in range(n)] for i in range(n)]
    pos = [[math.cos(2 * math.pi * i / n) * far / 2, math.sin(2 * math.pi * i / n) * far / 2] for i in range(n)]
    for _ in range(rounds):
        for i in range(n):  # each node in turn to the place its distances to the others ask for
            sx = sy = sw = 0.0
            xi, yi = pos[i]
            for j in range(n):
                if j == i:
                    continue
                d = dist[i][j]
                w = 1.0 / (d * d)
                dx, dy = xi - pos[j][0], yi - pos[j][1]
                norm = math.hypot(dx, dy) or 1e-9
                sx += w * (pos[j][0] + d * dx / norm)
                sy += w * (pos[j][1] + d * dy / norm)
                sw += w
            pos[i] = [sx / sw, sy / sw]
    xs, ys = [p[0] for p in pos], [p[1] for p in pos]
    if max(ys) - min(ys) > max(xs) - min(xs):  # wider than tall: a page is
        xs, ys = ys, xs
    out = []
    for x, y in zip(xs, ys):
        fx = (x - min(xs)) / ((max(xs) - min(xs)) or 1.0)
        fy = (y - min(ys)) / ((max(ys) - min(ys)) or 1.0)
        out.append((round(fx, 4), round(fy, 4)))
    return out


def board_json(game: Any) -> dict[str, Any]:
    """The map of a game's scenario as data (see the module's text); kept with the game."""
    got = game.derived.get("display:board")
    if got is not None:
        return got
    board = game.board
    locs = game.scenario.locations
    declared = [loc.at for loc in locs]  # 'at X Y' (dsl/LANGUAGE.md): all or none, else computed (W250)
    points = [d for d in declared if d is not None]
    if points and len(points) == len(declared):
        xs = [float(d[0]) for d in points]
        ys = [float(d[1]) for d in points]
        w, h = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
        pos = [(round((x - min(xs)) / w, 4), round((y - min(ys)) / h, 4)) for x, y in zip(xs, ys)]
        how = "content"
    else:
        pos = layout(board.n, [(p[0], p[1]) for p in board.paths])
        how = "computed"
    got = {
        "scenario": {"id": game.scenario.id, "name": game.scenario.name},
        "layout": how,
        "locations": [{"id": board.ids[i], "name": board.names[i], "exit": i in board.exits,
                       "search": i in board.pile_of, "tags": sorted(board.tags[i]), "x": pos[i][0], "y": pos[i][1]}
                      for i in range(board.n)],
        "paths": [{"a": board.ids[a], "b": board.ids[b], "a_panic": list(ap), "b_panic": list(bp),
                   "tags": sorted(tags), "closed": bool(closed)} for a, b, ap, bp, tags, closed in board.paths],
    }
    game.derived["display:board"] = got
    return got


def _events(events: Sequence[Event], game: Any) -> list[dict[str, Any]]:
    return [{"kind": e.kind, "text": e.text, "rule": e.rule, "source": e.source,
             "where": explain.short_source(e.source)} for e in events]


def _text_of(decl: Any, names: Any) -> list[str]:
    try:
        return render(decl, names).splitlines()
    except Exception:  # a display aid: a declaration the renderer cannot say is shown by name
        return [getattr(decl, "name", "")]


def _path_ids(note: list[str], board: Any) -> list[str]:
    """The locations of a targeting note's 'path: A → B' line, by id."""
    for line in note:
        if line.startswith("path: "):
            names = line[len("path: "):].split(" → ")
            if all(nm in board.names for nm in names):
                return [board.ids[board.names.index(nm)] for nm in names]
    return []


def screen_json(state: GameState, before: Optional[GameState] = None,
                events: Sequence[Event] = ()) -> dict[str, Any]:
    """The screen of ``state`` as data (see the module's text); ``before`` is the state the last
    transition started from and ``events`` its events (for the Killer phase's steps)."""
    g = state.game
    board = g.board
    names = screen._names(state)
    side = g.side
    rows = screen.map_rows(state)
    here: list[dict[str, Any]] = [{"id": board.ids[i], "victims": state.victims[i] if i < len(state.victims) else 0,
                                   "killers": [], "minions": [], "tokens": [], "pieces": [],
                                   "text": rows[i].here, "facts": rows[i].facts} for i in range(board.n)]
    killers = []
    for i, ks in enumerate(state.killers):
        kname, kmax = screen._body(state, i)
        row = {"name": kname, "health": ks.health, "max_health": kmax if isinstance(kmax, int) else None,
               "breath": ks.breath, "alive": ks.alive, "status": sorted(ks.status),
               "location": board.ids[ks.loc] if 0 <= ks.loc < board.n else None,
               "active": len(state.killers) > 1 and i == state.active, "aside": ks.aside}
        killers.append(row)
        if ks.alive and 0 <= ks.loc < board.n:
            here[ks.loc]["killers"].append(kname)
    minions: dict[int, Counter] = {}
    for m in state.minions:
        if 0 <= m.loc < board.n:
            minions.setdefault(m.loc, Counter())[screen._name(g.minions, m.kind)] += 1
    for loc, counted in minions.items():
        here[loc]["minions"] = [{"name": nm, "count": k} for nm, k in counted.items()]
    for what, loc in screen._board_tokens(state):
        if 0 <= loc < board.n:
            here[loc]["tokens"].append(what)
    for c, at in zip(g.conveyances, state.conveyances):
        if 0 <= at < board.n:
            here[at]["pieces"].append(c.name)
    piles = {board.ids[loc]: len(state.piles[k]) for k, loc in enumerate(board.search_locs) if k < len(state.piles)}
    level = None
    if g.levels:
        lvl = g.levels[min(state.bloodlust, len(g.levels) - 1)]
        level = {"level": state.bloodlust + 1, "levels": len(g.levels), "move": lvl.move, "damage": lvl.damage}
    hand = [{"name": nm, "copies": k, "text": body} for nm, k, body in screen.hand_rows(state)]
    hand_ids = list(dict.fromkeys(state.hand))
    for row, cid in zip(hand, hand_ids):
        row["id"] = cid
    market = []
    for cid, k in Counter(state.market).items():
        card = g.cards.get(cid)
        market.append({"id": cid, "name": card.name if card is not None else cid, "copies": k,
                       "text": _text_of(card, names)[2:] if card is not None else []})
    items = [{"name": nm, "where": where, "text": text} for nm, where, text in screen.item_rows(state)]
    slots = [{"full": bool(full), "reward": render_effects(fx, names)} for full, fx in zip(state.slots, g.fg.slots)]
    reveal: dict[str, Any] = {}
    for key, table, shown in (("finale", g.finales, state.finale_revealed), ("dark_power", g.dark_powers,
                                                                              state.dark_revealed)):
        cid = getattr(state, key)
        decl = table.get(cid) if cid else None
        reveal[key] = None if not cid else ({"hidden": True} if not shown else {
            "hidden": False, "name": getattr(decl, "name", cid), "text": _text_of(decl, names) if decl else []})
    at_location: dict[str, list[str]] = {}
    notes: dict[str, str] = {}
    if state.choice is not None:
        for o in state.choice.options:
            _verb, _, arg = o.key.partition(":")
            if arg in board.index:
                at_location.setdefault(arg, []).append(o.key)
            note = screen.option_note(state, o)
            if note:
                notes[o.key] = note
    steps = []
    if before is not None and events:
        for step in screen.killer_steps(list(events), before, state):
            steps.append({"note": step.note, "path": _path_ids(step.note, board), "events": _events(step.events, g)})
    fg = g.fg
    return {
        "round": state.round, "phase": state.phase, "over": state.over, "result": state.result or None,
        "lines": screen.tracks_lines(state),
        "facts": [{"label": a, "text": b} for a, b in screen.status_facts(state)],
        "fg": {"name": fg.name, "health": state.fg_health, "max_health": fg.health, "breath": state.fg_breath,
               "location": board.ids[state.fg_loc] if 0 <= state.fg_loc < board.n else None,
               "status": sorted(state.fg_status), "flipped": state.flipped},
        "fear": {"value": state.fear, "max": side.fear_max,
                 "dice": [g.dice_by_fear.get(f) for f in range(side.fear_max + 1)]},
        "time": {"value": state.time, "max": side.time_max},
        "bloodlust": level,
        "killers": killers,
        "victims": {"board": sum(state.victims), "rescued": state.rescued, "dead": state.dead},
        "slots": slots,
        "locations": here,
        "piles": piles,
        "opened": [k for k in sorted(state.opened)],
        "hand": hand, "items": items, "market": market,
        "finale": reveal["finale"], "dark_power": reveal["dark_power"],
        "at_location": at_location, "notes": notes,
        "steps": steps,
    }
