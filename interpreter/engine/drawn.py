"""Identities drawn or picked at random, and pieces that catch up with a track (issue #33 item 8; K2.7).

Which piece enters play, and where, may be left to chance or to a deck (K2.7: a test result turns up
the exposed-victim card furthest right, and the card under it names the body that appears):

- ``a random killer appears at PLACE`` / ``a killer drawn from DECK appears at PLACE``: a living body
  off the board, picked at random; or the body named by the top card of a deck of bodies (its cards'
  ``body BODY`` lines);
- ``replace KIND at PLACE with a random killer`` / ``… with a killer drawn from DECK``: the same body
  takes the place of a victim of a kind there (pieces.exec_replace_victim, with a body of its own);
- ``spawn N minions of a random kind at PLACE`` / ``… of a kind drawn from DECK at PLACE``: minions of
  one kind of the killer's, picked at random among those with a token left, or named by the top card
  of a deck of minion kinds (``minion MINION``), spawned as ``spawn N MINION at PLACE`` does.

The place is picked once; a card drawn for an identity then resolves there, ``here`` and ``it`` that
place and ``the killer`` the body it names (zones.play_drawn), and meets its fate like any drawn card.

``killer catches up with bloodlust`` runs again the one-time effects of the bloodlust levels above
the first, up to the current one, lowest first, with ``the killer`` that body (K2.7: a body that
comes late gets every one-off bloodlust effect up to the present level); ``… with track TRACK`` the
``at N`` steps of a track above its start space, up to the space its marker is on. Nothing moves: no
``track T reaches N`` and no rise of bloodlust is told.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from lastbreath.dsl import nodes as n

from .bodies import body_index, body_name, ctx_body, the_killer
from .draws import rand
from .killers import appear
from .resolve import loc, run
from .tables import EXEC, Ctx
from .telling import emit
from .tracks import track_value
from .victims import NONE, describe, pick, take
from .words import loc_name
from .zones import play_drawn, take_top

if TYPE_CHECKING:
    from .working import Work

Drawn = tuple[n.Deck, n.DeckCard, str]  # a card drawn (zones.take_top): its deck, the card, its id


# --- which body -----------------------------------------------------------------------------------
def _random_body(w: Work) -> int:
    """A living body off the board, picked at random (none: -1, said)."""
    off = [i for i, k in enumerate(w.killers) if k.alive and k.loc < 0]
    if not off:
        emit(w, "presence", "no killer is off the board: none appears", "K2.7")
        return -1
    i = off[rand(w, len(off))] if len(off) > 1 else off[0]
    emit(w, "presence", f"{body_name(w, i)} is picked at random among the killers off the board", "K2.7")
    return i


def _drawn_body(w: Work, deck: str, at: int) -> tuple[Optional[Drawn], int]:
    """The top card of a deck of bodies, drawn at a place, and the body it names (-1: not in the game)."""
    got = take_top(w, deck, at)
    if got is None:
        return None, -1
    card = got[1]
    i = next((j for j, k in enumerate(w.killers) if k.body == card.body and k.alive), -1)
    if i < 0:
        name = w.game.bodies[card.body].name if card.body in w.game.bodies else card.body
        emit(w, "presence", f"{card.name} names {name}, who is out of the game: none appears", "K2.7")
    elif w.killers[i].loc >= 0:
        emit(w, "presence", f"{card.name} names {body_name(w, i)}, who is on the board already", "K2.7")
    else:
        emit(w, "presence", f"{card.name} names {body_name(w, i)}", "K2.7")
    return got, i


def exec_drawn_killer_appears(w: Work, e: n.DrawnKillerAppears, ctx: Ctx) -> None:
    # a random killer appears at PLACE / a killer drawn from DECK appears at PLACE
    where = loc(w, e.loc, ctx)
    if where < 0:
        return
    if not e.deck:
        i = _random_body(w)
        if i >= 0:
            appear(w, i, where, "K2.7")
        return
    got, i = _drawn_body(w, e.deck, where)
    if got is None:
        return
    if i >= 0 and w.killers[i].loc < 0:
        appear(w, i, where, "K2.7")
    if not w.result:
        play_drawn(w, *got, where, i)


def exec_replace_victim_drawn(w: Work, e: n.ReplaceVictimDrawn, ctx: Ctx) -> None:
    # replace KIND at PLACE with a random killer / with a killer drawn from DECK
    where = loc(w, e.loc, ctx)
    if where < 0:
        return
    m = pick(w, where, "Which victim is replaced?", "victim-turns",
             eligible=lambda x: x is not None and x.kind == e.kind)
    if m is NONE or m is None:  # no such victim there: nothing is drawn, nobody appears
        return
    got: Optional[Drawn] = None
    if e.deck:
        got, i = _drawn_body(w, e.deck, where)
        if got is None:
            return
    else:
        i = _random_body(w)
    if i >= 0 and w.killers[i].loc < 0:
        name = describe(w, m)
        take(w, where, m)
        w.victims_in -= 1  # out of play: no longer counted (validate.py)
        emit(w, "victim-leaves", f"{name} at {loc_name(w, where)} leaves the board: {body_name(w, i)} stands in its "
                                 "place", "K2.7", data=(-1,))
        appear(w, i, where, "K2.7")
    if got is not None and not w.result:
        play_drawn(w, *got, where, i)


# --- which minion kind -------------------------------------------------------------------------------
def exec_spawn_drawn(w: Work, e: n.SpawnDrawn, ctx: Ctx) -> None:
    # spawn N minions of a random kind at PLACE / of a kind drawn from DECK at PLACE
    where = loc(w, e.loc, ctx)
    if where < 0:
        return
    g = w.game
    got: Optional[Drawn] = None
    if e.deck:
        got = take_top(w, e.deck, where)
        if got is None:
            return
        kind = got[1].minion
        emit(w, "minion", f"{got[1].name} names the {g.minions[kind].name} minions", "C15.1")
    else:
        kinds = [m.id for m in g.killer.minions if sum(1 for x in w.minions if x.kind == m.id) < m.limit]
        if not kinds:
            emit(w, "minion", "no minion token of any kind is left: none is spawned", "C15.1")
            return
        kind = kinds[rand(w, len(kinds))] if len(kinds) > 1 else kinds[0]
        emit(w, "minion", f"the {g.minions[kind].name} kind is picked at random", "C15.1")
    EXEC[n.SpawnMinions](w, n.SpawnMinions(e.span, e.n, kind, g.board.ids[where]), ctx)
    if got is not None and not w.result:
        play_drawn(w, *got, where)


# --- catching up with a track ------------------------------------------------------------------------
def exec_catch_up(w: Work, e: n.CatchUp, ctx: Ctx) -> None:
    # killer [BODY] catches up with bloodlust / with track TRACK
    i = body_index(w, e.body) if e.body else (ctx_body(w, ctx) if ctx_body(w, ctx) >= 0 else the_killer(w))
    if i < 0:
        return
    name = body_name(w, i)
    if e.track:
        t = w.game.tracks[e.track]
        now = track_value(w, t.id)
        due = [(st.at, st.effects) for st in sorted(t.steps, key=lambda st: st.at) if t.start < st.at <= now]
        said = [f"the {t.name} track's step at space {k} resolves again for {name}" for k, _fx in due]
        source, what = t.id, f"the {t.name} track (space {now})"
    else:
        levels = w.game.levels
        due = [(k + 1, levels[k].effects) for k in range(1, min(w.bloodlust, len(levels) - 1) + 1)
               if levels[k].effects]
        said = [f"the one-time effect of bloodlust level {k} resolves again for {name}" for k, _fx in due]
        source, what = "bloodlust", f"bloodlust (level {w.bloodlust + 1})"
    if not due:
        emit(w, "catch-up", f"{name} catches up with {what}: no one-time effect up to there", "K2.7")
        return
    emit(w, "catch-up", f"{name} catches up with {what}, lowest first", "K2.7")
    scope = w.scope
    saved = scope.body
    scope.body = i  # 'the killer' in those effects is that body (as in 'all killers', K3.3)
    try:
        for text, (_k, effects) in zip(said, due):
            emit(w, "catch-up", text, "K2.7")
            run(w, effects, Ctx(source, None, 0, i))
            if w.result or not w.killers[i].alive:
                break
    finally:
        scope.body = saved


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
