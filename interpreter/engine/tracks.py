"""Counters and tracks, holding areas, delayed effects, and a board that changes.

- Tracks (``track ID { spaces 0 to 3; at 3 { … } }``): a marker on numbered spaces; moving it up
  resolves the ``at N`` steps it reaches or passes, lowest first, and fires ``track T reaches N``
  (K1.2 stages, S2.4 spaces a piece moves along). Its space reads as the amount ``track T``.
- Holding areas (``holding ID { capacity 3 }``): victims loaded there are off the board, so no enemy
  targets, attacks or kills them; they are rescued from there with the rescue rewards (S2.3, S2.5;
  C5.4–C5.6) or unloaded back onto the board. ``count victims on H`` reads how many wait there.
- Delayed effects (``at start of next PHASE { … }`` inside an effect): kept in the state and
  resolved once, at that moment (triggers.fire_delayed; S2.5).
- The board: paths closed and opened for every mover or for some (fg, victims, enemies: S1.4),
  exits that are exits only while a condition holds, numbers declared per location
  (``number NAME of PLACE``), victims moved between locations with or without the follow rules
  (C5.3), and victims enemies leave alone while a rule says so (statics.rule_victims_hidden).

The package names no film, killer or scenario (the purity rule): these are general forms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastbreath.dsl import nodes as n
from lastbreath.dsl.limits import MAX_KEPT

from .asking import ask, opt
from .bloodlust import set_victims
from .bodies import killer_at
from .movement import reward_rescue
from .moves import PLAIN_VICTIM, arrived, hops_along, how_far, jump, leaving
from .places import candidates
from .resolve import amount, loc, run
from .statics import modified, victim_tables
from .tables import AMOUNT, EVAL, EXEC, NO_CTX, Ctx
from .telling import emit
from .triggers import fire
from .victims import NONE, describe, kind_of, marks_at, move, pick, rescuable, take, victim_piece
from .words import count_of, loc_name
from .working import over_budget

if TYPE_CHECKING:
    from .working import Work

MAX_DELAYED = MAX_KEPT  # blocks kept for a coming phase at once; more is content that keeps them in a loop


# --- tracks ---------------------------------------------------------------------------------------
def track_value(w: Work, track: str) -> int:
    for tid, v in w.tracks:
        if tid == track:
            return v
    return 0


def _space(t: n.Track, k: int) -> str:
    label = dict(t.labels).get(k)
    return f"{k} ({label})" if label else str(k)


def move_track(w: Work, track: str, to: int) -> None:
    """Put a track's marker on space ``to`` (kept within the track). Moving up, the ``at N`` steps
    reached or passed resolve, lowest first, then ``track T reaches N`` fires."""
    t = w.game.tracks.get(track)
    if t is None:
        return
    old = track_value(w, track)
    new = max(t.low, min(t.high, to))
    if new == old:
        emit(w, "track", f"the {t.name} track stays on {_space(t, old)}", "C1.2")
        return
    w.tracks = tuple((tid, new if tid == track else v) for tid, v in w.tracks)
    emit(w, "track", f"the {t.name} track moves {'up' if new > old else 'back'} to {_space(t, new)}", "C1.2")
    if new < old:
        return
    for step in t.steps:
        if old < step.at <= new:
            run(w, step.effects, Ctx(t.id))
            if w.result:
                return
    fire(w, "track-reaches", None, new, extra=(track, old, new))


def exec_advance_track(w: Work, e: n.AdvanceTrack, ctx: Ctx) -> None:  # advance track T N
    move_track(w, e.track, track_value(w, e.track) + amount(w, e.n, ctx))


def exec_retreat_track(w: Work, e: n.RetreatTrack, ctx: Ctx) -> None:  # retreat track T N
    move_track(w, e.track, track_value(w, e.track) - amount(w, e.n, ctx))


def exec_set_track(w: Work, e: n.SetTrack, ctx: Ctx) -> None:  # set track T to N
    move_track(w, e.track, amount(w, e.n, ctx))


def amount_track_value(w: Work, a: n.TrackValue, ctx: Ctx) -> int:  # track T
    return track_value(w, a.track)


# --- holding areas ----------------------------------------------------------------------------------
def held(w: Work, holding: str) -> int:
    for hid, k in w.holding:
        if hid == holding:
            return k
    return 0


def _set_held(w: Work, holding: str, k: int) -> None:
    w.holding = tuple((hid, k if hid == holding else v) for hid, v in w.holding)


def _room(w: Work, holding: str) -> int:
    h = w.game.holdings.get(holding)
    return max(0, h.capacity - held(w, holding)) if h is not None else 0


def load(w: Work, holding: str, where: int, k: int) -> None:
    """S2.3: k victims at ``where`` leave the board onto a holding area (the caller keeps k within
    the victims there and the room left)."""
    if k <= 0:
        return
    if w.marked and marks_at(w, where):
        k = _take_marked(w, holding, where, k)
        if k <= 0:
            return
    else:
        set_victims(w, where, w.victims[where] - k)
    _set_held(w, holding, held(w, holding) + k)
    h = w.game.holdings[holding]
    emit(w, "hold", f"{count_of(k, 'victim')} at {loc_name(w, where)} go{'es' if k == 1 else ''} onto {h.name} "
                    f"({held(w, holding)} of {h.capacity} held; off the board, no enemy can reach them)", "S2.3")


def _loadable(w: Work, where: int) -> int:
    """The victims at a location that may board a holding area: held victims are rescued from it,
    so not those of a kind that cannot be rescued (K2.4)."""
    return rescuable(w, where) if w.marked else w.victims[where]


def _take_marked(w: Work, holding: str, where: int, k: int) -> int:
    """k victims at a location where some are not plain board a holding area: the player picks each
    among those she can tell apart that may board (K2.4). A holding area holds victims, nothing
    more: their kinds, statuses and tokens stay behind with the board (tokens go out of the game)."""
    name = w.game.holdings[holding].name
    done = 0
    for _ in range(k):
        m = pick(w, where, f"Which victim goes onto {name}?", "victim-boards",
                 eligible=lambda m: (kd := kind_of(w, m)) is None or not kd.unrescuable)
        if m is NONE:
            break
        take(w, where, m)
        done += 1
    return done


def exec_load_victims(w: Work, e: n.LoadVictims, ctx: Ctx) -> None:  # load N victims at PLACE onto H
    where = loc(w, e.loc, ctx)
    if where >= 0:
        load(w, e.holding, where, min(amount(w, e.n, ctx), _loadable(w, where), _room(w, e.holding)))


def exec_load_victims_up_to(w: Work, e: n.LoadVictimsUpTo, ctx: Ctx) -> None:
    # load up to N victims at PLACE onto H: the player picks how many
    where = loc(w, e.loc, ctx)
    if where < 0:
        return
    top = min(amount(w, e.n, ctx), _loadable(w, where), _room(w, e.holding))
    if top <= 0:
        return
    name = w.game.holdings[e.holding].name
    key = ask(w, "load", f"How many victims go onto {name}?",
              [opt(w, f"load:{i}", f"{count_of(i, 'victim')} onto {name}" if i else "none")
               for i in range(top, -1, -1)])
    load(w, e.holding, where, int(key.split(":")[1]))


def rescue_victim(w: Work, whence: str) -> None:
    """C5.4–C5.6 for one victim rescued away from the board: the rescue count, a slot of the Final
    Girl card chosen by the player and its reward, the flip (as movement.rescue_here does at an exit)."""
    w.rescued += 1
    emit(w, "rescue", f"a victim on {whence} is rescued (rescued: {w.rescued})", "C5.4")
    reward_rescue(w)


def exec_rescue_held(w: Work, e: n.RescueHeld, ctx: Ctx) -> None:  # rescue [N] victims from H
    have = held(w, e.holding)
    k = have if e.n == -1 else min(have, amount(w, e.n, ctx))
    name = w.game.holdings[e.holding].name
    for _ in range(k):
        if w.result or held(w, e.holding) <= 0:
            return
        _set_held(w, e.holding, held(w, e.holding) - 1)  # one at a time: a paused state shows the rest
        rescue_victim(w, name)


def exec_unload_victims(w: Work, e: n.UnloadVictims, ctx: Ctx) -> None:  # unload N victims from H at PLACE
    where = loc(w, e.loc, ctx)
    k = min(amount(w, e.n, ctx), held(w, e.holding))
    if where < 0 or k <= 0:
        return
    _set_held(w, e.holding, held(w, e.holding) - k)
    set_victims(w, where, w.victims[where] + k)
    emit(w, "hold", f"{count_of(k, 'victim')} on {w.game.holdings[e.holding].name} go{'es' if k == 1 else ''} back "
                    f"to {loc_name(w, where)}", "C1.2")


def amount_held_victims(w: Work, a: n.HeldVictims, ctx: Ctx) -> int:  # count victims on H
    return held(w, a.holding)


# --- delayed effects ---------------------------------------------------------------------------------
def exec_delayed_trigger(w: Work, e: n.DelayedTrigger, ctx: Ctx) -> None:  # at start of next PHASE { … }
    index = w.game.delayed_index.get(e.span, -1)
    if index < 0:  # pragma: no cover - every such block of the game's content is in its table
        return
    if len(w.delayed) >= MAX_DELAYED:
        over_budget(w, "effects kept for a coming phase", len(w.delayed) + 1, MAX_DELAYED)
    w.delayed = w.delayed + ((index, w.scope.it, ctx.that),)
    emit(w, "delayed", f"kept for the {e.edge} of the next {e.phase.capitalize()} phase", "C1.2")


def eval_in_phase(w: Work, c: n.InPhase, ctx: Ctx) -> bool:  # phase PHASE
    return w.phase == c.phase


# --- paths closed and opened ----------------------------------------------------------------------
def _path(w: Work, a: int, z: int) -> int:
    if a < 0 or z < 0 or a == z:
        return -1
    return next((k for k, p in enumerate(w.game.board.paths) if {p[0], p[1]} == {a, z}), -1)


_FOR = {"": "", "fg": " for the Final Girl", "victims": " for victims", "enemies": " for enemies"}


def close_path(w: Work, a: int, z: int, who: str = "") -> None:
    """The path between a and z closes for everyone, or for one kind of mover (S1.4)."""
    k = _path(w, a, z)
    if k < 0:
        return
    barred = set(w.barred)
    add = {(k, m) for m in (n.MOVERS if not who else (who,))} - barred
    if add:
        w.barred = tuple(sorted(barred | add))
        emit(w, "board", f"the path between {loc_name(w, a)} and {loc_name(w, z)} closes{_FOR[who]}", "C18.1")


def open_path(w: Work, a: int, z: int, who: str = "") -> None:
    """The path between a and z opens for everyone, or for one kind of mover: a path declared
    ``closed`` opened for one stays closed for the others (S1.4: enemies never pass)."""
    k = _path(w, a, z)
    if k < 0:
        return
    barred = set(w.barred)
    changed = False
    if w.game.board.paths[k][5] and k not in w.opened:  # declared closed and never opened yet
        w.opened = w.opened | {k}
        barred |= {(k, m) for m in n.MOVERS if who and m != who}
        changed = True
    drop = {(k, m) for m in (n.MOVERS if not who else (who,))} & barred
    if drop:
        barred -= drop
        changed = True
    if changed:
        w.barred = tuple(sorted(barred))
        emit(w, "board", f"a path opens between {loc_name(w, a)} and {loc_name(w, z)}{_FOR[who]}", "C18.1")


def exec_close_path(w: Work, e: n.ClosePath, ctx: Ctx) -> None:  # close path A B [for fg|victims|enemies]
    close_path(w, loc(w, e.a, ctx), loc(w, e.b, ctx), e.who)


# --- numbers of locations (exits while a condition holds: places.is_exit) ------------------------
def amount_location_number(w: Work, a: n.LocationNumber, ctx: Ctx) -> int:  # number NAME of PLACE
    where = loc(w, a.place, ctx)
    return w.game.board.numbers.get((where, a.name), 0)


# --- victims moved, victims left alone ---------------------------------------------------------------
def exec_move_victims(w: Work, e: n.MoveVictims, ctx: Ctx) -> None:
    # move N victims from A to B [as followers]
    src, dst = loc(w, e.src, ctx), loc(w, e.dst, ctx)
    k = amount(w, e.n, ctx)
    if src < 0 or dst < 0 or src == dst:
        return
    k = min(k, w.victims[src])
    if k <= 0:
        return
    if e.follow:  # C5.3: along one path open to victims, within its follower limit, never into a killer
        path = next((p for d, p in victim_tables(w)[0][src] if d == dst), -1)
        if path < 0 or killer_at(w, dst):
            why = "no path open to victims leads there" if path < 0 else "a killer is there"
            emit(w, "victims-move", f"no victim at {loc_name(w, src)} can follow to {loc_name(w, dst)}: {why}", "C5.3")
            return
        k = min(k, max(0, modified(w, "followers", 2, w.game.board.paths[path][4])))
        if k <= 0:
            return
    # the events of a move (moves.py): along the path as followers, else at once; content may stop them
    hops = ((hops_along(w, [src, dst]) if e.follow else jump(src, dst)) if "victim" in w.game.movers_watched
            else [])
    if w.marked and marks_at(w, src):  # victims she can tell apart: she picks each that goes
        said = []
        for _ in range(k):
            m = pick(w, src, f"Which victim goes to {loc_name(w, dst)}?", "victim-moves")
            if m is NONE:
                break
            piece = victim_piece(w, m, src)
            if hops and not how_far(w, piece, hops, describe(w, m)):
                continue
            leaving(w, piece, hops)
            said.append(describe(w, m))
            move(w, src, dst, m)
            arrived(w, piece, hops)
        if said:
            emit(w, "victims-move", f"{' and '.join(said)} move{'s' if len(said) == 1 else ''} from "
                                    f"{loc_name(w, src)} to {loc_name(w, dst)}", "C5.3" if e.follow else "C1.2")
        return
    if hops:
        if not how_far(w, PLAIN_VICTIM, hops, "a victim"):
            return
        for _ in range(k):
            leaving(w, PLAIN_VICTIM, hops)
    set_victims(w, src, w.victims[src] - k)
    set_victims(w, dst, w.victims[dst] + k)
    emit(w, "victims-move", f"{count_of(k, 'victim')} move{'s' if k == 1 else ''} from {loc_name(w, src)} to "
                            f"{loc_name(w, dst)}", "C5.3" if e.follow else "C1.2")
    for _ in range(k if hops else 0):
        arrived(w, PLAIN_VICTIM, hops)


def hidden_victims(w: Work) -> frozenset[int]:
    """The locations whose victims enemies neither target nor attack now (``rule victims at PLACE
    cannot be targeted``)."""
    if "hidden-victims" not in w.game.rule_queries:
        return _NONE_HIDDEN
    places = modified(w, "hidden-victims", _NO_PLACES)
    if not places:
        return _NONE_HIDDEN
    where = [x for p in places for x in (candidates(w, p, NO_CTX) if isinstance(p, n.Selector) else (loc(w, p),))]
    return frozenset(x for x in where if x >= 0)


_NONE_HIDDEN: frozenset[int] = frozenset()
_NO_PLACES: tuple[n.Loc, ...] = ()


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
EVAL.update(n.functions(n.Condition, globals(), "eval_"))
AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))
