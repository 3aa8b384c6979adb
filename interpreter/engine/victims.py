"""Victims that are not plain: of a kind, with statuses, carrying tokens (issue #16 items 3-4;
K2.1, K2.4, C5.3, C5.4, C9, C10).

Victims are a count per location (``victims``). A victim that carries a kind, a status or a token
is also a ``MarkedVictim`` in ``marked`` (with a uid that never changes), counted in ``victims``
like the others. So a game in which no victim is ever marked keeps ``marked`` empty, and every
function here answers from the counts at once: the plain game pays nothing for kinds.

When victims that can be told apart could follow, die, be turned or be rescued, the player picks
which by what she can see (C5.3): their kind (unless it is hidden and not yet revealed), their
statuses and the tokens on them. Victims she cannot tell apart but that differ (a hidden kind among
plain victims) are picked among at random.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from ..state import MarkedVictim
from .asking import ask, opt
from .draws import rand
from .telling import emit
from .words import a_or_an, loc_name

if TYPE_CHECKING:
    from lastbreath.dsl import nodes as n

    from .working import Work

Eligible = Optional[Callable[[Optional[MarkedVictim]], bool]]  # which victims may be picked (None: a plain one)


# --- counts --------------------------------------------------------------------------------------
def set_count(w: Work, loc: int, count: int) -> None:
    v = list(w.victims)
    v[loc] = count
    w.victims = tuple(v)


def marks_at(w: Work, loc: int) -> list[MarkedVictim]:
    return [m for m in w.marked if m.loc == loc] if w.marked else []


def plain_at(w: Work, loc: int) -> int:
    """The victims at a location that carry nothing: no kind, no status, no token."""
    return w.victims[loc] - len(marks_at(w, loc))


def kind_of(w: Work, m: Optional[MarkedVictim]) -> Optional[n.VictimKind]:
    return w.game.victim_kinds.get(m.kind) if m is not None and m.kind else None


def find(w: Work, uid: int) -> Optional[MarkedVictim]:
    return next((m for m in w.marked if m.uid == uid), None)


# --- what the player sees ----------------------------------------------------------------------------
def shown_kind(w: Work, m: Optional[MarkedVictim]) -> str:
    """The kind she can see: '' for a plain victim or a hidden kind not yet revealed."""
    k = kind_of(w, m)
    if k is None or m is None or (k.hidden and not m.revealed):
        return ""
    return k.name


def _tokens_on(w: Work, uid: int) -> tuple[str, ...]:
    holder = f"victim:{uid}"
    return tuple(sorted(t for h, t, _k, _up in w.token_on if h == holder)) if w.token_on else ()


def describe(w: Work, m: Optional[MarkedVictim]) -> str:
    """'a victim', 'a Stray victim', 'a victim (cold)': as the log and the choices say it."""
    if m is None:
        return "a victim"
    kind = shown_kind(w, m)
    noun = f"{kind} victim" if kind else "victim"
    extra = [*sorted(m.status), *(f"a {t} token" for t in _tokens_on(w, m.uid))]
    return f"{a_or_an(noun)} {noun}" + (f" ({', '.join(extra)})" if extra else "")


def _seen(w: Work, m: Optional[MarkedVictim]) -> str:
    """A key for what she can see of a victim: those with the same key are the same to her."""
    if m is None:
        return "victim"
    kind = m.kind if shown_kind(w, m) else ""
    return (kind or "victim") + "".join(f"/{s}" for s in sorted(m.status)) + "".join(
        f"~{t}" for t in _tokens_on(w, m.uid))


def _truth(w: Work, m: Optional[MarkedVictim]) -> tuple[Any, ...]:
    if m is None:
        return ("", frozenset(), ())
    return (m.kind, m.status, _tokens_on(w, m.uid))


# --- picking --------------------------------------------------------------------------------------
def groups(w: Work, loc: int, eligible: Eligible = None) -> list[tuple[str, str, list[Optional[MarkedVictim]]]]:
    """(key, label, members) of the victims at a location that ``eligible`` admits, by what she can
    tell apart: plain victims first, then by key. A plain victim is the member None."""
    marks = marks_at(w, loc)
    out: dict[str, tuple[str, list[Optional[MarkedVictim]]]] = {}
    if eligible is None or eligible(None):
        plain = w.victims[loc] - len(marks)
        if plain > 0:
            out["victim"] = ("a victim", [None] * plain)
    for m in marks:
        if eligible is not None and not eligible(m):
            continue
        key = _seen(w, m)
        if key not in out:
            out[key] = (describe(w, m), [])
        out[key][1].append(m)
    first = [("victim", *out.pop("victim"))] if "victim" in out else []
    return first + [(k, label, ms) for k, (label, ms) in sorted(out.items())]


def _member(w: Work, members: list[Optional[MarkedVictim]]) -> Optional[MarkedVictim]:
    """One of victims she cannot tell apart: the first if they are the same, else one at random."""
    first = _truth(w, members[0])
    if all(_truth(w, m) == first for m in members[1:]):
        return members[0]
    return members[rand(w, len(members))]


NONE = MarkedVictim(-1, -1)  # pick() found no victim


def pick(w: Work, loc: int, prompt: str, kind: str = "victim", eligible: Eligible = None) -> Optional[MarkedVictim]:
    """One victim at a location: None for a plain one, ``NONE`` if there is none to pick. The
    player picks among those she can tell apart; a plain one needs no choice."""
    if loc < 0 or w.victims[loc] <= 0:
        return NONE
    if not w.marked:
        return None if eligible is None or eligible(None) else NONE
    gs = groups(w, loc, eligible)
    if not gs:
        return NONE
    if len(gs) > 1:
        key = ask(w, kind, prompt, [opt(w, f"victim:{k}", label) for k, label, _ms in gs])
        members = next(ms for k, _label, ms in gs if f"victim:{k}" == key)
    else:
        members = gs[0][2]
    return _member(w, members)


# --- moving victims ---------------------------------------------------------------------------------
def take(w: Work, loc: int, m: Optional[MarkedVictim]) -> None:
    """A victim leaves a location (dies, escapes, turns into a minion, leaves the board); the tokens
    on it go with it (out of the game)."""
    set_count(w, loc, w.victims[loc] - 1)
    if m is not None:
        w.marked = tuple(x for x in w.marked if x.uid != m.uid)
        if w.token_on:
            holder = f"victim:{m.uid}"
            w.token_on = tuple(t for t in w.token_on if t[0] != holder)


def move(w: Work, src: int, dst: int, m: Optional[MarkedVictim]) -> None:
    """A victim goes from one location to another (follows, panics), all it carries with it."""
    set_count(w, src, w.victims[src] - 1)
    set_count(w, dst, w.victims[dst] + 1)
    if m is not None:
        w.marked = tuple(_at(x, dst) if x.uid == m.uid else x for x in w.marked)


def _at(m: MarkedVictim, loc: int) -> MarkedVictim:
    return MarkedVictim(m.uid, loc, m.kind, m.status, m.revealed)


def change(w: Work, loc: int, m: Optional[MarkedVictim], kind: Optional[str] = None,
           status: Optional[frozenset[str]] = None, revealed: Optional[bool] = None) -> MarkedVictim:
    """A victim at a location with its kind, statuses or revealed flag changed (a plain one becomes
    marked); one left with nothing on it becomes plain again. Returns it as it now is."""
    if m is None:
        w.victim_seq += 1
        m = MarkedVictim(w.victim_seq, loc)
        w.marked = w.marked + (m,)
    new = MarkedVictim(m.uid, m.loc, m.kind if kind is None else kind, m.status if status is None else status,
                       m.revealed if revealed is None else revealed)
    if new.kind == "" and not new.status and not _tokens_on(w, new.uid):
        w.marked = tuple(x for x in w.marked if x.uid != m.uid)
    else:
        w.marked = tuple(new if x.uid == m.uid else x for x in w.marked)
    return new


def add(w: Work, loc: int, kind: str = "", status: frozenset[str] = frozenset()) -> Optional[MarkedVictim]:
    """A victim appears at a location (plain unless it has a kind or statuses)."""
    set_count(w, loc, w.victims[loc] + 1)
    if not kind and not status:
        return None
    w.victim_seq += 1
    m = MarkedVictim(w.victim_seq, loc, kind, status)
    w.marked = w.marked + (m,)
    return m


# --- rules about kinds ------------------------------------------------------------------------------
def shielded(w: Work, m: Optional[MarkedVictim], attacker: tuple[str, int]) -> bool:
    """C9, K2.4: an enemy never targets nor kills a victim of a kind shielded from it."""
    k = kind_of(w, m)
    if k is None or not k.untargeted:
        return False
    is_killer = attacker[0] == "killer"
    if is_killer:
        own = f"killer:{w.killers[attacker[1]].body}" if 0 <= attacker[1] < len(w.killers) else ""
    else:
        own = f"minion:{w.minions[attacker[1]].kind}" if 0 <= attacker[1] < len(w.minions) else ""
    mine = "killers" if is_killer else "minions"
    return any(who in ("enemies", own, mine) for who in k.untargeted)


def targetable(w: Work, loc: int, attacker: tuple[str, int]) -> int:
    """The victims at a location an enemy may target and kill (all but those shielded from it)."""
    count = w.victims[loc]
    if not count or not w.marked or not w.game.shielding:
        return count
    return count - sum(1 for m in w.marked if m.loc == loc and shielded(w, m, attacker))


def targetable_counts(w: Work, attacker: tuple[str, int]) -> tuple[int, ...]:
    """``targetable`` at every location (the plain game: the victims themselves)."""
    if not w.marked or not w.game.shielding:
        return w.victims
    return tuple(targetable(w, loc, attacker) for loc in range(len(w.victims)))


def rescuable(w: Work, loc: int) -> int:
    """C5.4: the victims at an exit that may escape (not those of a kind that cannot be rescued)."""
    count = w.victims[loc]
    if not count or not w.marked:
        return count
    return count - sum(1 for m in w.marked if m.loc == loc and (k := kind_of(w, m)) is not None and k.unrescuable)


def always_panicking(w: Work) -> list[MarkedVictim]:
    """C10, K2.4: the victims of a kind that panics in every Panic phase."""
    if not w.marked:
        return []
    return [m for m in w.marked if (k := kind_of(w, m)) is not None and k.panics]


def victim_piece(w: Work, m: Optional[MarkedVictim], loc: int) -> tuple[str, str, int]:
    """A victim as events carry it: (victim, its kind, its location)."""
    return ("victim", m.kind if m is not None else "", loc)


def where(w: Work, loc: int) -> str:
    return loc_name(w, loc)


def say(w: Work, text: str, rule: str = "") -> None:
    emit(w, "victims", text, rule)
