"""The Final Girl moves, victims follow and escape (C5).

A move goes to an adjacent location (or along a link the scenario switches on); up to two
victims may follow, never into a killer's location (C5.3, with limits per path from the rules
in play); at an exit the victims there may escape: each is rescued onto a slot of the Final
Girl card and gives its reward, and enough rescues flip the card (C5.4–C5.6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..state import Option
from .asking import ask, opt
from .bloodlust import set_victims
from .bodies import killer_at
from .conveyances import arrive_with, go_with, leave_with, move_options, riders, set_out, taken, with_her
from .fields import set_flipped
from .moves import NO_TAGS, PLAIN_VICTIM, Hop, arrived, how_far, leaving
from .places import escape_offered
from .resolve import condition, run
from .statics import came_into_play, fg_tables, modified
from .tables import NO_CTX, Ctx
from .telling import emit, told
from .triggers import FG, Piece
from .victims import NONE, describe, marks_at, move, pick, rescuable, take, victim_piece
from .words import count_of, loc_name

if TYPE_CHECKING:
    from .working import Work

_FOLLOW = ("no victim follows", "1 victim follows", "2 victims follow")
_STOP = Option("stop", "stop moving")


def fg_moves(w: Work) -> list[tuple[int, int, str]]:
    """(destination, follower limit, how) for one move from the FG's location (C5.1, S-links)."""
    adj = fg_tables(w)[0]
    b = w.game.board
    out: dict[int, tuple[int, str]] = {}
    # modified(w, "followers", 2, tags), its kept answers read without the call where they are kept
    rules = "followers" in w.game.rule_queries
    found = w.found if rules and w.sources is not None else None
    for dest, k in adj[w.fg_loc]:
        if (k, "victims") in w.barred:
            out[dest] = (0, "path")
        elif not rules:
            out[dest] = (2, "path")
        else:
            tags = b.paths[k][4]
            got = found.get(("followers", 2, tags)) if found is not None else None
            out[dest] = (got[0] if got is not None else modified(w, "followers", 2, tags), "path")
    for link in w.game.scenario.links:
        members = b.with_tag(link.tag)
        if w.fg_loc in members and (link.cond is None or condition(w, link.cond, NO_CTX)):
            for dest in members:
                if dest != w.fg_loc and dest not in out:
                    out[dest] = (2 if link.followers < 0 else link.followers, "link")
    return [(d, lim, how) for d, (lim, how) in sorted(out.items())]


def move_fg(w: Work, steps: int) -> None:
    """C5.1–C5.4: up to ``steps`` moves, each with its followers, triggers and a chance to rescue."""
    for _ in range(steps):
        moves = fg_moves(w)
        riding = bool(w.conveyances) and bool(with_her(w, w.fg_loc))  # pieces that may go with her (conveyances.py)
        if riding:
            opts = [_STOP, *move_options(w, moves)]
        else:
            made = w.game.move_opts  # the option of a destination is the same at every move: made once
            opts = [_STOP]
            for d, _lim, how in moves:
                o = made.get((d, how))
                if o is None:
                    o = made[(d, how)] = Option(f"move:{w.game.board.ids[d]}",
                                                f"move to {loc_name(w, d)}" + (" (link)" if how == "link" else ""))
                opts.append(o)
        key = ask(w, "move", "Move where?", opts)
        if key == "stop":
            return
        dest = w.game.board.index[key[5:].split(":", 1)[0] if riding else key[5:]]
        lim, how = next((lim, how) for d, lim, how in moves if d == dest)
        here = w.fg_loc
        hops: list[Hop] = []
        watched = w.game.movers_watched
        if watched:  # the events of a move (moves.py), hers or her followers': content may stop them
            path = next((k for d, k in fg_tables(w)[0][here] if d == dest), -1) if how == "path" else -1
            hops = [(here, dest, w.game.board.paths[path][4] if path >= 0 else NO_TAGS)]
            if "fg" in watched and not how_far(w, FG, hops, "the Final Girl"):
                continue  # (the move is spent)
        taking: list[int] = []
        if riding:  # V4: the conveyances that go with her, and the victims that may come along with them
            taking = set_out(w, taken(w, key, here, dest, how), hops)
            lim = riders(w, taking, lim, here, dest, how)
        follow = 0
        if w.victims[here] > 0 and lim > 0 and not killer_at(w, dest):  # C5.3
            top = min(lim, w.victims[here])
            fopts = [opt(w, f"follow:{i}", _FOLLOW[i] if i < 3 else f"{i} victims follow") for i in range(top, -1, -1)]
            follow = int(ask(w, "follow", "How many victims follow?", fopts).split(":")[1])
        if "fg" in watched:
            leaving(w, FG, hops)  # 'here' is still the location she leaves
        if taking:
            leave_with(w, taking, hops)
        w.fg_loc = dest
        followers: list[Piece] = []
        names: list[str] = []
        if follow and w.marked and marks_at(w, here):
            followers, names = _follow_marked(w, here, dest, follow, hops)
        elif follow:
            if "victim" in watched:  # each follower may be stopped on the way (moves.py), one by one
                follow = sum(1 for _ in range(follow) if how_far(w, PLAIN_VICTIM, hops, "a victim"))
                for _ in range(follow):
                    leaving(w, PLAIN_VICTIM, hops)
            if follow:
                set_victims(w, here, w.victims[here] - follow)
                set_victims(w, dest, w.victims[dest] + follow)
                followers = [PLAIN_VICTIM] * follow
                names = [count_of(follow, "victim")]
        if ("move" in said) if (said := w.ctl.said) is not None else told(w, "move"):  # (Replay.said)
            with_them = f" with {count_of(len(followers), 'victim')}" if followers else ""
            emit(w, "move", f"the Final Girl moves to {loc_name(w, dest)}{with_them}", "C5.1")
        if taking:
            go_with(w, taking, dest)
        if names:
            emit(w, "follow", f"{' and '.join(names)} follow{'s' if len(followers) == 1 else ''} (up to {lim} may)",
                 "C5.3")
        if "fg" in watched:
            arrived(w, FG, hops)
        if taking:
            arrive_with(w, taking, hops)
        if "victim" in watched:
            for piece in followers:
                arrived(w, piece, hops)
        if w.victims[dest] > 0 and escape_offered(w, dest) and (not w.marked or rescuable(w, dest) > 0):
            here_now = "the victim" if w.victims[dest] == 1 else f"the {w.victims[dest]} victims"
            key = ask(w, "rescue", f"Let {here_now} here escape?",
                      [Option("rescue", "they escape"), Option("stay", "not now")])
            if key == "rescue":
                rescue_here(w)


def rescue_here(w: Work) -> None:
    """C5.4–C5.6: every victim at the FG's exit escapes; each fills a slot and gives its reward
    (K2.4: not those of a kind that cannot be rescued)."""
    count = rescuable(w, w.fg_loc)
    for _ in range(count):
        if w.marked:  # one that may escape: a plain one first, then the others in turn
            m = _next_escaping(w, w.fg_loc)
            if m is NONE:
                break
            take(w, w.fg_loc, m)
        else:
            set_victims(w, w.fg_loc, w.victims[w.fg_loc] - 1)  # one at a time: a paused state shows the rest
        w.rescued += 1
        emit(w, "rescue", f"a victim escapes (rescued: {w.rescued})", "C5.4")
        reward_rescue(w)


def reward_rescue(w: Work) -> None:
    """C5.5–C5.6 for a victim just rescued: flipped, her card's reward; else a slot of the player's
    choice and its reward, and the flip once enough slots are filled."""
    fg = w.game.fg
    if w.flipped:
        run(w, fg.flipped_reward, Ctx(fg.id))
        return
    free = [i for i, f in enumerate(w.slots) if not f]
    if not free:
        return
    key = ask(w, "slot", "Place the rescued victim on which slot?",
              [Option(f"slot:{i + 1}", f"slot {i + 1}") for i in free])
    i = int(key.split(":")[1]) - 1
    w.slots = w.slots[:i] + (True,) + w.slots[i + 1:]
    emit(w, "reward", f"slot {i + 1} reward", "C5.5")
    run(w, fg.slots[i], Ctx(fg.id))
    if sum(w.slots) >= fg.rescues:
        came_into_play(w)  # those already in play are noted before the flipped side comes in
        set_flipped(w, True)
        came_into_play(w)
        w.slots = (False,) * len(w.slots)
        emit(w, "flip", "the Final Girl card is flipped: her ability is unlocked", "C5.6")


def _next_escaping(w: Work, loc: int):
    """The next victim at an exit to escape (C5.4): a plain one, else the first that may (K2.4)."""
    marks = marks_at(w, loc)
    if w.victims[loc] > len(marks):
        return None
    for m in marks:
        k = w.game.victim_kinds.get(m.kind) if m.kind else None
        if k is None or not k.unrescuable:
            return m
    return NONE


def _follow_marked(w: Work, here: int, dest: int, follow: int, hops: list[Hop]) -> tuple[list[Piece], list[str]]:
    """C5.3 with victims she can tell apart: she picks each follower in turn, among those left; a
    follower content stops on the way (moves.py) stays. Returns the followers, as events name them,
    and their names for the log."""
    names = []
    moved: list[Piece] = []
    for _ in range(follow):
        m = pick(w, here, "Which victim follows?", "follower")
        if m is NONE:
            break
        piece = victim_piece(w, m, here)
        watched = "victim" in w.game.movers_watched
        if watched and not how_far(w, piece, hops, describe(w, m)):
            continue
        if watched:
            leaving(w, piece, hops)
        names.append(describe(w, m))
        move(w, here, dest, m)
        moved.append(piece)
    return moved, names
