"""Enemies: who acts, targeting, movement and attacks (C8.3, C9, K6.4–K6.5).

On an enemy action the minions act first, in order, then the killer bodies (C8.3). Each picks
the nearest location holding a target, ties broken by victims and then the tie policy (C9.2,
C9.3), moves along a shortest path by its movement value (C9.4) and attacks there, or where it
stands if that holds a target (C9.5); victims are attacked before the Final Girl unless she is
the target (C9.6). Minions that attack together do so as one, for their number (K6.5); minions
that wander take one more step like a panicking victim when nothing was in reach (K6.4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..board import INF
from ..state import Option
from .asking import ask
from .attacks import attack_fg
from .bloodlust import kill_victim
from .bodies import Piece, body_name, piece_status
from .draws import rand, roll_die
from .index import minion_of_uid, still_there
from .killers import move_piece
from .moves import Hop, arrived, hops_along, how_far, leaving
from .statics import enemy_tables, fg_tables, held_in_place, modified, names_answering, shut_for
from .telling import emit, told
from .tracks import hidden_victims
from .triggers import Piece as TriggerPiece
from .victims import pick, shielded, targetable, targetable_counts
from .words import count_of, loc_name

if TYPE_CHECKING:
    from .working import Work

_VICTIMS = tuple(count_of(k, "victim", "no victims") for k in range(10))  # made once: targeting runs at every move


def hunt(w: Work, who: str, target: str, moves: int, attacks: int) -> None:
    """C8.3, C9: minions act first (in order), then the killer. Minions that attack together
    (K6.5) all move first; then each group attacks from its location. Rules may add moves and
    attacks to the action's own numbers (``rule killer moves 1 more``)."""
    own_moves, own_attacks = moves, attacks
    extra = "extra-moves" in w.game.rule_queries or "extra-attacks" in w.game.rule_queries
    if who in ("minions", "enemies"):
        g = w.game
        if extra:
            moves = max(0, modified(w, "extra-moves", own_moves, "minions"))
            attacks = max(0, modified(w, "extra-attacks", own_attacks, "minions"))
        order = []
        for m in w.minions:
            order.append(m.uid)
        stable = len(set(order)) == len(order) and 0 not in order
        groups: list[tuple[str, int]] = []  # (kind, uid of its first piece) of minions that attack together
        for k, uid in enumerate(order):
            # by uid, so that a minion killed meanwhile (a reaction hitting back) costs no other its turn
            ms = w.minions
            i = k if not stable or (k < len(ms) and ms[k].uid == uid) else minion_of_uid(w, uid)
            if 0 <= i < len(ms):
                stats = g.minions[ms[i].kind]
                if stats.together:
                    enemy_act(w, ("minion", i), target, moves, 0, stats.move, stats.damage)
                    groups.append((stats.id, uid))
                else:
                    enemy_act(w, ("minion", i), target, moves, attacks, stats.move, stats.damage)
            if w.result:
                return
        if groups and attacks > 0:
            group_attacks(w, target, attacks, groups)
    if who in ("killer", "enemies"):
        moves, attacks = own_moves, own_attacks
        rq = w.game.rule_queries  # modified(…) below, its kept answers read without the call where kept
        found = w.found if w.sources is not None else _NO_FOUND
        if extra:
            if "extra-moves" in rq:
                got = found.get(("extra-moves", own_moves, "killer"))
                moves = max(0, got[0] if got is not None else modified(w, "extra-moves", own_moves, "killer"))
            if "extra-attacks" in rq:
                got = found.get(("extra-attacks", own_attacks, "killer"))
                attacks = max(0, got[0] if got is not None else modified(w, "extra-attacks", own_attacks, "killer"))
        only = w.scope.body  # K3.3: inside 'all killers { … }' the killer is the block's body
        if only < 0 and len(w.killers) > 1 and "active-only" in rq:  # K3.2: only the active one acts (active_only)
            got = found.get(("active-only", False))
            if got[0] if got is not None else modified(w, "active-only", False):
                only = w.active
        for i, body in enumerate(w.killers):
            if only >= 0 and i != only:
                continue
            if i < len(w.killers) and body is w.killers[i] and body.alive and body.loc >= 0 and not body.aside:
                # C9.4, C9.5: its movement is read as it moves; each attack reads the damage as it lands
                enemy_act(w, ("killer", i), target, moves, attacks, w.game.levels[w.bloodlust].move, -1)
            if w.result:
                return


def group_attacks(w: Work, target: str, attacks: int, groups: list[tuple[str, int]]) -> None:
    """K6.5: the minions of a kind in one location attack as one: each attack hits one target for
    their number × their damage; victims there before the Final Girl."""
    done: set[tuple[str, int]] = set()
    for kind, uid in groups:
        j = minion_of_uid(w, uid)
        first = w.minions[j] if j >= 0 else None
        if first is None or (kind, first.loc) in done:
            continue
        loc = first.loc
        done.add((kind, loc))
        stats = w.game.minions[kind]
        for _ in range(attacks):
            if w.result:
                return
            here = []
            for i, m in enumerate(w.minions):
                if m.kind == kind and m.loc == loc:
                    here.append(i)
            if not here:
                break
            name = count_of(len(here), stats.name)
            fg_here = w.fg_loc == loc and w.fg_breath > 0
            attacker = ("minion", here[0])
            if targetable(w, loc, attacker) > 0 and loc not in hidden_victims(w) and (
                    stats.victims_first or target != "fg" or not fg_here):
                kill_victim(w, loc, f"killed by {name}", minion=kind, which=_victim(w, loc, attacker, name))
            elif fg_here:
                dmg = len(here) * stats.damage
                verb = "attacks the Final Girl" if len(here) == 1 else "attack the Final Girl together"
                emit(w, "attack", f"{name} {verb} for {dmg}", "C9.5")
                attack_fg(w, dmg, ("minion", here[0]))
            else:
                break


def choose_target(w: Work, at: int, target: str, attacker: tuple[str, int] = ("", -1), tables: Any = None) -> int:
    """C9.2–C9.3: the nearest location holding a target; ties by victims, then the tie policy. A
    defeated Final Girl is no target (C13.2: the effect that defeated her goes on resolving). The
    victims counted are those the enemy may target (K2.4). ``tables``: the enemies' board tables,
    if the caller has them (they change only when a path opens, closes or is barred)."""
    dist = (tables or enemy_tables(w))[1][at]
    fg_up = w.fg_breath > 0
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if said is not None and "target" not in said:
        if target == "fg":  # the Final Girl alone, and no event to describe the choice: the answer at once
            return w.fg_loc if fg_up and dist[w.fg_loc] < INF else -1
        cands: list[int] | None = None  # the candidates are listed only for the event, which is not made
    else:
        cands = []
    best_d = INF
    near: list[int] = []  # the reachable candidates at the least distance, in candidate order
    some = False  # a candidate at all, reachable or not
    fg = -2  # the Final Girl's location if she is a candidate (no location is -2)
    if fg_up and (target == "fg" or target == "fg-or-victims"):
        fg = w.fg_loc
        some = True
        if cands is not None:
            cands.append(fg)
        d = dist[fg]
        if d < INF:
            best_d, near = d, [fg]
    victims = None
    if target == "victims" or target == "fg-or-victims":
        g = w.game
        victims = targetable_counts(w, attacker) if w.marked else w.victims
        # rule victims at PLACE cannot be targeted (hidden_victims, read only where such a rule is)
        hidden = hidden_victims(w) if "hidden-victims" in g.rule_queries else _NO_LOCS
        memo = g.occupied_memo  # _occupied's first test, written out: the same victims tuple as last time
        for i in (memo[1] if memo[0] is victims else _occupied(g, victims)):
            if i != fg and i not in hidden:
                some = True
                if cands is not None:
                    cands.append(i)
                d = dist[i]
                if d < best_d:
                    best_d, near = d, [i]
                elif d == best_d and d < INF:
                    near.append(i)
        if not some and target == "victims" and fg_up:
            # (open) C9.1 is silent on a target type with nothing on the board; default, as published:
            # with no victims left, an action aimed at victims aims at the Final Girl
            if ("target" in said) if said is not None else told(w, "target"):  # (Replay.said)
                emit(w, "target", "no victims are left: the action aims at the Final Girl", "C9.1")
            if cands is not None:
                cands.append(w.fg_loc)
            if dist[w.fg_loc] < INF:
                near = [w.fg_loc]
    if not near:
        if not some:
            return -1
        # (open) C9.8, a project default (the published rules are silent): every target is out of the
        # enemy's reach. The player board says what then happens (its 'out of reach' line): an action
        # aimed at victims aims at the Final Girl if she is in reach ('out of reach hunt fg'), as
        # when no victims are left (C9.1); else the enemy stays where it is (C9.5: it attacks only
        # what stands with it). The log says which targets there are and what bars the way.
        hunt_fg = target == "victims" and fg_up and w.game.player_board.out_of_reach == "fg" and dist[w.fg_loc] < INF
        if cands is not None and (("target" in said) if said is not None else told(w, "target")):  # (Replay.said)
            out = cands
            if hunt_fg:
                emit(w, "target", lambda: f"no victim is in reach: {_out_of_reach(w, at, out, attacker)}; the action "
                                          f"aims at the Final Girl, at {loc_name(w, w.fg_loc)}", "C9.8")
            else:
                emit(w, "target", lambda: f"no target is in reach: {_out_of_reach(w, at, out, attacker)}; "
                                          f"{_who(w, attacker)} stays at {loc_name(w, at)}", "C9.8")
        return w.fg_loc if hunt_fg else -1
    if cands is None and len(near) == 1:
        return near[0]  # no tie, and no event
    counts = victims if victims is not None else targetable_counts(w, attacker) if w.marked else w.victims
    tied: list[int] = []  # the candidates tied in distance and victims, if the tie policy decided
    by_victims = len(near) > 1
    if by_victims:  # C9.3: ties by victims, then the tie policy
        most = -1
        for c in near:
            if counts[c] > most:
                most = counts[c]
        near = [c for c in near if counts[c] == most]
        if len(near) > 1:
            tied = near
            near = [tie_break(w, near)]
    if cands is None or not (("target" in said) if said is not None else told(w, "target")):
        return near[0]  # the event is not made: nothing to describe
    cands = [c for c in cands if dist[c] < INF]
    # (location id, distance, victims) of every candidate, for "why did it go there?" (explain);
    # written only if the event is made: this runs at every enemy move
    board = w.game.board

    def data() -> tuple[Any, ...]:
        ids = board.ids
        return tuple([(ids[c], dist[c], counts[c]) for c in cands])

    def listing() -> str:
        names, nloc = board.names, board.n
        return ", ".join([f"{names[c] if 0 <= c < nloc else 'off the board'} ({dist[c]} away, "
                          f"{_VICTIMS[counts[c]] if counts[c] < 10 else f'{counts[c]} victims'})" for c in cands])

    if tied:
        emit(w, "target", f"target {loc_name(w, near[0])}: {', '.join(loc_name(w, c) for c in tied)} tie in distance "
                          f"and victims; the {w.game.tie_policy} tie-break decides (candidates: {listing()})", "C9.3",
             data=data)
    elif by_victims:
        emit(w, "target", f"target {loc_name(w, near[0])}: tie in distance broken by victim count "
                          f"(candidates: {listing()})", "C9.3", data=data)
    else:
        emit(w, "target", f"target {loc_name(w, near[0])}: the nearest of {listing()}", "C9.2", data=data)
    return near[0]


def _who(w: Work, attacker: tuple[str, int]) -> str:
    """The enemy acting, as the log names it."""
    kind, i = attacker
    if kind == "killer" and 0 <= i < len(w.killers):
        return body_name(w, i)
    if kind == "minion" and 0 <= i < len(w.minions):
        return w.game.a_minion[w.minions[i].kind]
    return "the enemy"


def _out_of_reach(w: Work, at: int, locs: list[int], attacker: tuple[str, int]) -> str:
    """C9.8: the targets an enemy at ``at`` cannot reach, and why: a rule in play bars enemies from
    paths of a kind (naming the paths and the rule's source), a path is closed to enemies, or no
    path leads there at all. Written only when the event is made."""
    g = w.game
    board = g.board
    counts = targetable_counts(w, attacker) if w.marked else w.victims
    free = board.tables(w.opened, _NO_TAGS, shut_for(w, "enemies"))[1][at]  # without the rules' bans
    open_ = board.tables(w.opened)[1][at]  # without the paths closed to enemies either
    barred: list[int] = []
    shut: list[int] = []
    none: list[int] = []
    for c in locs:
        (barred if free[c] < INF else shut if open_[c] < INF else none).append(c)

    def names(cs: list[int]) -> str:
        return ", ".join(f"{loc_name(w, c)} ({_VICTIMS[counts[c]] if counts[c] < 10 else f'{counts[c]} victims'})"
                         if counts[c] > 0 else f"{loc_name(w, c)} (the Final Girl)" for c in cs)

    parts = []
    if barred:
        tags = sorted(modified(w, "enemy-bans", _NO_TAGS))
        by = names_answering(w, "enemy-bans")
        parts.append(f"{names(barred)}: enemies cannot cross {' or '.join(tags)} paths"
                     + (f" ({', '.join(by)})" if by else ""))
    if shut:
        parts.append(f"{names(shut)}: the paths there are closed to enemies")
    if none:
        parts.append(f"{names(none)}: no path leads there")
    return "; ".join(parts)


_NO_LOCS: frozenset[int] = frozenset()
_NO_TAGS: frozenset[str] = frozenset()
_NO_FOUND: dict[Any, Any] = {}  # no kept answers (the sources in play not yet found again): never written


def _occupied(g: Any, victims: tuple[int, ...]) -> list[int]:
    """The locations holding victims, in board order: found once per victims tuple (a step's
    enemies, one after another, mostly see the same one; the game keeps the last)."""
    memo = g.occupied_memo
    if memo[0] is victims:
        return memo[1]
    got = []
    for i, v in enumerate(victims):
        if v > 0:
            got.append(i)
    g.occupied_memo = (victims, got)
    return got


def tie_break(w: Work, cands: list[int]) -> int:
    """C9.3's last tie: harder (nearest the FG), realistic (at random), easier (farthest), or ask."""
    policy = w.game.tie_policy
    fgd = fg_tables(w)[1][w.fg_loc]
    if policy == "harder":
        return min(cands, key=lambda c: (fgd[c], c))
    if policy == "easier":
        return max(cands, key=lambda c: (fgd[c], -c))
    if policy == "realistic":
        return cands[rand(w, len(cands))]
    key = ask(w, "tie-break", "The killer's targets are tied: choose its target",
              [Option(f"target:{w.game.board.ids[c]}", loc_name(w, c)) for c in cands])
    return w.game.board.index[key[7:]]


def enemy_act(w: Work, piece: Piece, target: str, moves: int, attacks: int, movement: int, damage: int) -> None:
    """C9.2–C9.6 for one enemy: target, move along a shortest path, attack. ``damage`` -1: each
    attack deals the bloodlust track's damage at the moment it lands (the open C9.5 default)."""
    g = w.game
    is_killer = piece[0] == "killer"
    if is_killer:
        body: Any = w.killers[piece[1]]
        stats = None
        name = body.label  # body_name, written out (a killer acts at every enemy action)
        if not name:
            decl = g.bodies.get(body.body) if body.body else None
            name = decl.name if decl is not None else "the killer"
    else:
        ms = w.minions
        if piece[1] >= len(ms):
            return
        body = ms[piece[1]]
        stats = g.minions[body.kind]
        name = g.a_minion[body.kind]
    at = body.loc
    if at < 0:
        return
    # read once for the target and the move (choosing and stopping open no path); enemy_tables' first
    # test written out: the tables kept, with no rule barring enemies from paths or the same sources
    # in play (whose bans are lasting: a key of None or of sources, never _NEVER)
    memo = w.enemy_memo
    if memo is not None and memo[0] is w.opened and memo[1] is w.barred and (memo[2] is None or memo[2] is w.sources):
        tables = memo[3]
    else:
        tables = enemy_tables(w)
    tloc = choose_target(w, at, target, piece, tables)
    steps = moves * movement
    # S5.5: read only where it matters (a move toward a target; a wanderer's step, below), and
    # only in the Killer phase (held_in_place)
    may_stop = "stops-moves" in g.rule_queries and w.phase == "killer"
    stopped = False
    if may_stop and tloc >= 0 and at != tloc:
        stopped = held_in_place(w, body.status)
    if stopped:
        emit(w, "enemy-move", f"{name} does not move (its status stops it)", "S5.5")
    elif tloc >= 0 and moves > 0 and at != tloc:
        nxt = tables[2]
        loc = at
        left = steps
        # the locations it goes through, for the events of a move (moves.py), if content answers them
        route = [at] if ("killer" if is_killer else "minion") in g.movers_watched else None
        while left > 0 and loc != tloc:
            hop = nxt[loc][tloc]
            if hop < 0:
                break
            loc = hop
            left -= 1
            if route is not None:
                route.append(loc)
        hops: list[Hop] = []
        if route is not None and loc != at:  # content answers moves: it may stop this one on the way
            mover = _mover(w, piece)
            hops = hops_along(w, route)
            hops = hops[:how_far(w, mover, hops, name)]
            loc = hops[-1][1] if hops else at
            leaving(w, mover, hops)
            still = still_there(w, piece, body)  # an answer may have killed it, or another minion
            if still is None:
                return
            piece = still
        if loc != at:
            moved = move_piece(w, piece, loc)
            if moved is None:  # taken into a body there (K6.7): out of play, it enters nothing
                return
            piece = moved
            said = w.ctl.said  # told without the call, in a lean step (Replay.said)
            if ("enemy-move" in said) if said is not None else told(w, "enemy-move"):
                emit(w, "enemy-move", f"{name} moves to {loc_name(w, loc)}, "
                     + ("its target" if loc == tloc else f"on the way to {loc_name(w, tloc)}"), "C9.4")
            if hops:
                arrived(w, _mover(w, piece), hops)
                still = still_there(w, piece, body)
                if still is None:
                    return
                piece = still
    if stats is not None and stats.wanders and not stopped and moves > 0 and (
            tloc < 0 or tables[1][at][tloc] > steps) and not (
            may_stop and (tloc < 0 or at == tloc) and held_in_place(w, piece_status(w, piece))):
        wandered = wander(w, piece, name, tables)  # K6.4: no target within its move range
        if wandered is None:
            return
        piece = wandered
    if attacks <= 0:
        return
    i = piece[1]  # piece_loc, written out
    loc = w.killers[i].loc if is_killer else w.minions[i].loc if i < len(w.minions) else -1
    hidden = hidden_victims(w) if "hidden-victims" in g.rule_queries else _NO_LOCS
    shielding = g.shielding  # targetable(w, loc, piece), written out: the victims there unless some are shielded
    if loc != tloc:
        here = w.victims[loc]
        if here and shielding and w.marked:
            here = targetable(w, loc, piece)
        if not ((here > 0 and loc not in hidden) or (w.fg_loc == loc and w.fg_breath > 0)):
            return
    victims_first = stats is not None and stats.victims_first
    for _ in range(attacks):
        if w.result:
            return
        fg_here = w.fg_loc == loc and w.fg_breath > 0
        here = w.victims[loc]
        if here and shielding and w.marked:
            here = targetable(w, loc, piece)
        if here > 0 and loc not in hidden and (target != "fg" or not fg_here or victims_first):
            kill_victim(w, loc, f"killed by {name}", piece[1] if is_killer else -1,
                        "" if is_killer or stats is None else stats.id, _victim(w, loc, piece, name))
        elif fg_here:
            dmg = damage if damage >= 0 else g.levels[w.bloodlust].damage
            if ("attack" in said) if (said := w.ctl.said) is not None else told(w, "attack"):  # (Replay.said)
                emit(w, "attack", f"{name} attacks the Final Girl for {dmg}", "C9.5")
            attack_fg(w, dmg, piece)
        else:
            return
        if not is_killer and not (piece[1] < len(w.minions)):
            return


def _mover(w: Work, piece: Piece) -> TriggerPiece:
    """An enemy as the events of a move name it: ("killer", its body, index) or ("minion", kind, index)."""
    kind, i = piece
    if kind == "killer":
        return ("killer", w.killers[i].body, i)
    return ("minion", w.minions[i].kind if i < len(w.minions) else "", i)


def wander(w: Work, piece: Piece, name: str, tables: Any = None) -> Piece | None:
    """K6.4: like a panicking victim (C10.2), roll a die and take the path with that number, if an
    enemy may use it."""
    kind, i = piece  # piece_loc, written out (a minion wanders at most enemy acts of a crowd)
    was = w.killers[i] if kind == "killer" else w.minions[i] if i < len(w.minions) else None
    if was is None:
        return None
    at = was.loc
    face = roll_die(w)
    memo = w.fg_memo  # fg_tables' first test, written out: the tables kept for these paths
    panic = (memo[2] if memo is not None and memo[0] is w.opened and memo[1] is w.barred else fg_tables(w))[3]
    dest = panic[at].get(face, -1)
    said = w.ctl.said  # told without the call, in a lean step (Replay.said)
    if dest < 0 or (tables or enemy_tables(w))[1][at][dest] != 1:
        if ("enemy-move" in said) if said is not None else told(w, "enemy-move"):
            emit(w, "enemy-move", f"{name} wanders: rolls {face} and stays", "K6.4")
        return piece
    hops: list[Hop] = []
    if kind in w.game.movers_watched:  # content answers moves: it may stop this one
        mover = _mover(w, piece)
        hops = hops_along(w, [at, dest])
        if not how_far(w, mover, hops, name):
            return piece
        leaving(w, mover, hops)
        still = still_there(w, piece, was)  # an answer may have killed it, or another minion
        if still is None:
            return None
        piece = still
    if ("enemy-move" in said) if said is not None else told(w, "enemy-move"):
        emit(w, "enemy-move", f"{name} wanders: rolls {face} and shambles to {loc_name(w, dest)}", "K6.4")
    moved = move_piece(w, piece, dest)
    if hops and moved is not None:
        arrived(w, _mover(w, moved), hops)
    return moved


def _victim(w: Work, loc: int, attacker: tuple[str, int], name: str):
    """The victim an attack kills (C9.6): one the enemy may target (K2.4), the player picking among
    those she can tell apart."""
    if not w.marked:
        return None
    return pick(w, loc, f"Which victim does {name} kill?", "victim-dies",
                eligible=lambda m: m is None or not shielded(w, m, attacker))
