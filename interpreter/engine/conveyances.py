"""Pieces that travel with her (issue #33 item 2; V4, V5, V7–V9, S1.7; dsl/LANGUAGE.md section 6i).

A scenario declares its conveyances (a vehicle, a cart, a boat: the content names them, the engine
none): where each starts, whether it goes with her whenever it may (``goes always``) or when she
takes it (``goes when taken``), the location tags it may enter, the path tags it never crosses, how
victims come along with it and the item that works it. The state keeps where each stands
(``GameState.conveyances``, in ``Game.conveyances`` order; -1 off the board), and nothing at all
in a game whose scenario declares none: her moves then read one empty tuple.

When she moves away from a conveyance's location holding the item it needs, the conveyance may go
with her if her destination has one of the tags it may enter and the path she takes has none of
the tags it never crosses (a link is no path: it has no tags). The move menu (movement.move_fg)
offers "move to X with the Y" only where it may go: for one that goes when taken, beside the
move without it, which leaves it behind; for one that goes always, the move to X takes it along
wherever it may go, and says where it stays. Its move is a move of a piece like any other
(moves.py): ``moves``, ``leaves``, ``crosses`` and ``enters`` for its id, which content may
prevent or replace; a conveyance stopped so stays where it was, and she goes on without it.
Victims follow her as on foot (C5.3) unless the conveyance says how many ride with it: up to N,
or any number, whatever the path lets follow, never into a killer's location (C5.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n

from ..state import Option
from .moves import NO_TAGS, Hop, arrived, how_far, jump, leaving
from .resolve import loc
from .tables import EXEC, Ctx
from .telling import emit
from .triggers import Piece
from .words import loc_name

if TYPE_CHECKING:
    from .working import Work


def piece_of(w: Work, i: int) -> Piece:
    """The conveyance as events name it: ``("conveyance", ID, its index)``."""
    return ("conveyance", w.game.conveyances[i].id, i)


def worked(w: Work, i: int) -> bool:
    """Whether she holds what the conveyance needs (in hand or backpack), if it needs anything."""
    need = w.game.conveyances[i].needs
    return not need or any(h.id == need for h in w.held) or any(h.id == need for h in w.pack)


def may_go(w: Work, i: int, dest: int, tags: frozenset[str]) -> bool:
    """Whether the conveyance may go to ``dest`` along a path with these tags (none: a link)."""
    g = w.game
    return dest in g.conveyance_enters[i] and not (tags & g.conveyance_never[i])


def along(w: Work, here: int, dest: int, how: str) -> frozenset[str]:
    """The tags of her way from ``here`` to ``dest``: the path's (the first open one), none for a link."""
    if how != "path":
        return NO_TAGS
    return w.game.board.between.get((here, dest), NO_TAGS)


def with_her(w: Work, here: int) -> list[int]:
    """The conveyances standing where she stands that she works (in ``Game.conveyances`` order)."""
    return [i for i, at in enumerate(w.conveyances) if at == here and worked(w, i)]


def the(w: Work, i: int) -> str:
    """The conveyance as the log and the menu say it: "the Handcart" ("The Ark" as it is)."""
    name = w.game.conveyances[i].name
    return name if name[:4].lower() == "the " else f"the {name}"


def _names(w: Work, taking: list[int]) -> str:
    names = [the(w, i) for i in taking]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def move_options(w: Work, moves: list[tuple[int, int, str]]) -> list[Option]:
    """Her move menu with the conveyances at her location (movement.move_fg): for each destination
    the move (with those that go always and may go there; saying which stay), then for each that
    goes when taken and may go there, the move with it (``move:DEST:ID``)."""
    g = w.game
    here = w.fg_loc
    mine = with_her(w, here)
    made = g.ride_opts
    out: list[Option] = []
    for d, _lim, how in moves:
        tags = along(w, here, d, how)
        always = [i for i in mine if g.conveyances[i].taken == "always"]
        going = tuple(i for i in always if may_go(w, i, d, tags))
        staying = tuple(i for i in always if i not in going)
        key: tuple[object, ...] = ("move", d, how, going, staying)
        o = made.get(key)
        if o is None:
            label = f"move to {loc_name(w, d)}" + (" (link)" if how == "link" else "")
            if going:
                label += f" with {_names(w, list(going))}"
            if staying:
                label += f" ({_names(w, list(staying))} {'stays' if len(staying) == 1 else 'stay'} here)"
            o = made[key] = Option(f"move:{g.board.ids[d]}", label)
        out.append(o)
        for i in mine:
            if g.conveyances[i].taken == "chosen" and may_go(w, i, d, tags):
                ck = ("with", d, how, i, going)
                o = made.get(ck)
                if o is None:
                    o = made[ck] = Option(f"move:{g.board.ids[d]}:{g.conveyances[i].id}",
                                          f"move to {loc_name(w, d)}" + (" (link)" if how == "link" else "")
                                          + f" with {_names(w, [i] + list(going))}")
                out.append(o)
    return out


def taken(w: Work, key: str, here: int, dest: int, how: str) -> list[int]:
    """The conveyances that set out with her on the move ``key`` (``move:DEST`` or ``move:DEST:ID``):
    those that go always and may go there, and the one she chose."""
    g = w.game
    tags = along(w, here, dest, how)
    out = [i for i in with_her(w, here) if g.conveyances[i].taken == "always" and may_go(w, i, dest, tags)]
    parts = key.split(":")
    if len(parts) > 2:
        i = g.conveyance_index[parts[2]]
        if i not in out:
            out.append(i)
    return out


def set_out(w: Work, taking: list[int], hops: list[Hop]) -> list[int]:
    """Those of ``taking`` that content lets go (moves.py: a prevented or replaced move stays)."""
    if not taking or "conveyance" not in w.game.movers_watched:
        return taking
    return [i for i in taking if how_far(w, piece_of(w, i), hops, the(w, i))]


def riders(w: Work, taking: list[int], lim: int, here: int, dest: int, how: str) -> int:
    """How many victims may follow her as she moves with these conveyances: the most any of them
    lets (one whose victims follow on foot lets what the path lets, ``lim``); a path closed to
    victims lets none (S1.4)."""
    if not taking:
        return lim
    if how == "path" and w.barred:
        b = w.game.board
        k = next((k for k, p in enumerate(b.paths) if {p[0], p[1]} == {here, dest}
                  and (not p[5] or k in w.opened)), -1)
        if (k, "victims") in w.barred:
            return 0
    most = -1
    for i in taking:
        r = w.game.conveyances[i].riders
        most = max(most, lim if r == n.ON_FOOT else w.victims[here] if r == n.ANY_RIDERS else r)
    return most


def leave_with(w: Work, taking: list[int], hops: list[Hop]) -> None:
    """``leaves`` for each conveyance setting out, before it goes (moves.py)."""
    if "conveyance" in w.game.movers_watched:
        for i in taking:
            leaving(w, piece_of(w, i), hops)


def go_with(w: Work, taking: list[int], dest: int) -> None:
    """V4: the conveyances go with her to ``dest``."""
    if not taking:
        return
    places = list(w.conveyances)
    for i in taking:
        places[i] = dest
    w.conveyances = tuple(places)
    emit(w, "move", lambda: f"{_names(w, taking)} {'goes' if len(taking) == 1 else 'go'} with her", "V4")


def arrive_with(w: Work, taking: list[int], hops: list[Hop]) -> None:
    """``crosses``, ``enters`` and ``moves`` for each conveyance that went with her (moves.py)."""
    if "conveyance" in w.game.movers_watched:
        for i in taking:
            arrived(w, piece_of(w, i), hops)


def exec_move_conveyance(w: Work, e: n.MoveConveyance, ctx: Ctx) -> None:  # move ID to PLACE
    g = w.game
    i = g.conveyance_index.get(e.conveyance, -1)
    if i < 0:  # (a conveyance of another scenario, named outside one: none in this game)
        return
    to = loc(w, e.loc, ctx)
    if to < 0:  # a place that names no location: it stays (LANGUAGE.md 4.3)
        return
    at = w.conveyances[i]
    name = the(w, i)
    if at == to:
        emit(w, "move", f"{name} is at {loc_name(w, to)} already", "C1.2")
        return
    piece = piece_of(w, i)
    hops = jump(at, to)
    watched = "conveyance" in g.movers_watched
    if watched and not how_far(w, piece, hops, name):
        return
    if watched:
        leaving(w, piece, hops)
    places = list(w.conveyances)
    places[i] = to
    w.conveyances = tuple(places)
    emit(w, "move", f"{name} is moved to {loc_name(w, to)}", "C1.2")
    if watched:
        arrived(w, piece, hops)


def conveyance_at(w: Work, conveyance: str, where: int) -> bool:
    """``ID at PLACE`` for a conveyance (pieces.eval_kind_at): it stands there."""
    i = w.game.conveyance_index.get(conveyance, -1)
    return i >= 0 and where >= 0 and w.conveyances[i] == where


EXEC.update(n.functions(n.Effect, globals(), "exec_"))

__all__ = ["arrive_with", "conveyance_at", "go_with", "leave_with", "move_options", "piece_of", "riders",
           "set_out", "taken", "with_her"]
