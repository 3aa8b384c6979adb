"""Tokens everywhere (issue #16 item 5; S1.1–S1.6, K1.7, S5.1–S5.3).

A token lies somewhere: on the board (``tokens``: type, kind, location), in the Final Girl's
collection (``collected``), face down in the supply (``supply``, in random order) or its discard
(``token_discard``), or on an item card, a deck card or a piece (``token_on``: holder, type, kind,
face up). The holder of a piece is ``victim:UID``, ``minion:UID`` or ``killer:BODY``; tokens on a
piece leave the game with it (it dies, escapes or turns into another piece).

``gain`` takes tokens from the supply, ``remove`` returns them to it (shuffled in), ``move`` takes
them from one holder to another, ``spend`` is a move she pays: all of them or none, the block
resolving only when paid. Placed on a card or the board, spent tokens stay there (S1.3): nothing
brings them back but an effect that moves or removes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lastbreath.dsl import nodes as n
from lastbreath.dsl.limits import MAX_TOKENS_IN_PLAY

from ..state import MarkedVictim
from .asking import ask, opt
from .draws import shuffled
from .resolve import amount, loc, run
from .tables import AMOUNT, EVAL, EXEC, Ctx
from .telling import emit
from .triggers import fire
from .victims import find, plain_at
from .words import loc_name
from .working import over_budget

if TYPE_CHECKING:
    from .working import Work

Token = tuple[str, bool]  # (kind, face up)


# --- where a holder is --------------------------------------------------------------------------------
def where_of(w: Work, h: n.TokenHolder, ctx: Ctx) -> tuple[str, Any]:
    """(place, detail) of a holder now: ("board", location), ("collection", ""), ("supply", ""),
    ("discard", ""), ("items", ""), ("on", holder key); ("none", "") when it names nothing."""
    kind = h.kind
    if kind == "at":
        if h.loc == "it" and w.scope.piece is not None:
            return _piece_holder(w, w.scope.piece)
        at = loc(w, h.loc, ctx)
        return ("board", at) if at >= 0 else ("none", "")
    if kind in ("item", "card"):
        return ("on", f"{kind}:{h.name}")
    return (kind, "")


def _piece_holder(w: Work, p: Any) -> tuple[str, Any]:
    """The holder of the piece ``it`` (a plain victim is marked first: it keeps the tokens)."""
    kind = p[0]
    if kind == "fg":
        return ("collection", "")
    if kind == "victim":
        uid = p[1]
        if not uid:
            if plain_at(w, p[2]) <= 0:
                return ("none", "")
            w.victim_seq += 1
            uid = w.victim_seq
            w.marked = w.marked + (MarkedVictim(uid, p[2]),)
            w.scope.piece = ("victim", uid, p[2])
        return ("on", f"victim:{uid}")
    if kind == "minion":
        m = next((x for x in w.minions if x.uid == p[1]), None)
        return ("on", f"minion:{p[1]}") if m is not None and p[1] else ("none", "")
    if 0 <= p[1] < len(w.killers):
        k = w.killers[p[1]]
        return ("on", f"killer:{k.body or k.label}")
    return ("none", "")


def _name(w: Work, place: str, detail: Any) -> str:
    if place == "board":
        return loc_name(w, detail)
    if place == "on":
        what, _sep, ident = detail.partition(":")
        if what == "item":
            return w.game.items[ident].name if ident in w.game.items else ident
        if what == "card":
            return next((c.name for cid, c in w.game.deck_cards.items() if cid.split("/", 1)[1] == ident), ident)
        if what == "victim":
            return "a victim"
        if what == "minion":
            m = next((x for x in w.minions if x.uid == int(ident)), None)
            return f"a {w.game.minions[m.kind].name}" if m is not None else "a minion"
        return next((k.label or (w.game.bodies[k.body].name if k.body in w.game.bodies else "the killer")
                     for k in w.killers if (k.body or k.label) == ident), "the killer")
    return {"collection": "her collection", "supply": "the supply", "discard": "the token discard",
            "items": "her items"}.get(place, place)


# --- what lies where ------------------------------------------------------------------------------------
def lying(w: Work, place: str, detail: Any, token: str, kind: str = "") -> list[Token]:
    """The tokens of a type (and kind) a holder has, as (kind, face up)."""
    if place == "board":
        return [(k, True) for t, k, at in w.tokens if t == token and at == detail and (not kind or k == kind)]
    if place == "collection":
        return [(k, True) for t, k in w.collected if t == token and (not kind or k == kind)]
    if place in ("supply", "discard"):
        pile = w.supply if place == "supply" else w.token_discard
        return [(k, False) for t, k in pile if t == token and (not kind or k == kind)]
    if place == "items":
        keys = {f"item:{h.id}" for h in (*w.held, *w.pack)}
        return [(k, up) for hold, t, k, up in w.token_on if hold in keys and t == token and (not kind or k == kind)]
    if place == "on":
        return [(k, up) for hold, t, k, up in w.token_on if hold == detail and t == token and (not kind or k == kind)]
    return []


def _take_one(w: Work, place: str, detail: Any, token: str, kind: str) -> Any:
    """Take one token of a type (and kind) from a holder: (kind, face up), or None. Among face-up
    tokens of several kinds the player picks the kind; face-down ones come in their order."""
    here = lying(w, place, detail, token, kind)
    if not here:
        return None
    if place == "items":  # several of her items hold some: she picks the item
        held = list(dict.fromkeys(h.id for h in (*w.held, *w.pack)
                                  if any(hold == f"item:{h.id}" and t == token and (not kind or k == kind)
                                         for hold, t, k, _up in w.token_on)))
        if len(held) > 1:
            key = ask(w, "token-from", "Take the token from which item?",
                      [opt(w, f"item:{i}", w.game.items[i].name) for i in held])
            held = [key[5:]]
        return _take_one(w, "on", f"item:{held[0]}", token, kind)
    up_kinds = list(dict.fromkeys(k for k, up in here if up))
    if len(up_kinds) > 1:
        key = ask(w, "token-kind", "Which token?", [opt(w, f"token:{k}", k) for k in up_kinds])
        kind = key[6:]
    elif up_kinds and len(up_kinds) == len(here):
        kind = up_kinds[0]
    if place == "board":
        i = next(j for j, (t, k, at) in enumerate(w.tokens) if t == token and at == detail and (not kind or k == kind))
        got = (w.tokens[i][1], True)
        w.tokens = w.tokens[:i] + w.tokens[i + 1:]
        return got
    if place == "collection":
        i = next(j for j, (t, k) in enumerate(w.collected) if t == token and (not kind or k == kind))
        got = (w.collected[i][1], True)
        w.collected = w.collected[:i] + w.collected[i + 1:]
        return got
    if place in ("supply", "discard"):
        pile = w.supply if place == "supply" else w.token_discard
        i = next(j for j, (t, k) in enumerate(pile) if t == token and (not kind or k == kind))
        got = (pile[i][1], False)
        rest = pile[:i] + pile[i + 1:]
        if place == "supply":
            w.supply = rest
        else:
            w.token_discard = rest
        return got
    i = next(j for j, (hold, t, k, _up) in enumerate(w.token_on) if hold == detail and t == token
             and (not kind or k == kind))
    got = (w.token_on[i][2], w.token_on[i][3])
    w.token_on = w.token_on[:i] + w.token_on[i + 1:]
    return got


def _put(w: Work, place: str, detail: Any, token: str, got: list[Token], face: str = "") -> None:
    """Tokens onto a holder (``face``: up | down | "" as they were; the supply takes them face down,
    shuffled in; the board and her collection show them)."""
    if not got:
        return
    if place == "board":
        w.tokens = w.tokens + tuple((token, k, detail) for k, _up in got)
    elif place == "collection":
        w.collected = tuple(sorted(w.collected + tuple((token, k) for k, _up in got)))
    elif place == "supply":
        w.supply = shuffled(w, w.supply + tuple((token, k) for k, _up in got))
    elif place == "discard":
        w.token_discard = w.token_discard + tuple((token, k) for k, _up in got)
    elif place == "on":
        up = {"up": True, "down": False}
        w.token_on = _purged(w) + tuple((detail, token, k, up.get(face, u)) for k, u in got)
        if len(w.token_on) > MAX_TOKENS_IN_PLAY:
            over_budget(w, "tokens on cards and pieces", len(w.token_on), MAX_TOKENS_IN_PLAY)


def _purged(w: Work) -> tuple[tuple[str, str, str, bool], ...]:
    """``token_on`` without the tokens of pieces no longer in play (they left the game with them)."""
    def alive(hold: str) -> bool:
        what, _sep, ident = hold.partition(":")
        if what == "victim":
            return find(w, int(ident)) is not None
        if what == "minion":
            return any(m.uid == int(ident) for m in w.minions)
        if what == "killer":
            return any(k.alive and (k.body or k.label) == ident for k in w.killers)
        return True
    return tuple(t for t in w.token_on if alive(t[0]))


def _words(k: int, token: str, w: Work, kinds: list[Token]) -> str:
    name = w.game.tokens[token].name.lower()
    shown = [kd for kd, up in kinds if up]
    what = f"{name} token" if k == 1 else f"{name} tokens"
    if shown and len(shown) == len(kinds) and len(set(shown)) == 1 and shown[0] != name:
        what = f"{shown[0]} {what}"
    return f"{k} {what}" if k != 1 else f"a {what}"


# --- the effects --------------------------------------------------------------------------------------
def _event(w: Work, place: str, detail: Any, how: str, k: int, token: str) -> None:
    fire(w, f"token-{how}", None, k, detail if place == "board" else -1, extra=token)


def exec_gain_tokens(w: Work, e: n.GainTokens, ctx: Ctx) -> None:  # gain N token T [KIND] on|at HOLDER
    if not lying(w, "supply", "", e.token, e.kind):
        emit(w, "token", f"no {w.game.tokens[e.token].name.lower()} token is left in the supply", "C1.2")
        return
    place, detail = where_of(w, e.to, ctx)
    if place == "none":
        return
    got: list[Token] = []
    for _ in range(amount(w, e.n, ctx)):
        one = _take_one(w, "supply", "", e.token, e.kind)
        if one is None:
            emit(w, "token", f"no {w.game.tokens[e.token].name.lower()} token is left in the supply", "C1.2")
            break
        got.append((one[0], e.face != "down"))
    if not got:
        return
    _put(w, place, detail, e.token, got, e.face)
    emit(w, "token", f"{_words(len(got), e.token, w, got if e.face != 'down' else [])} "
                     f"{'goes' if len(got) == 1 else 'go'} from the supply to {_name(w, place, detail)}", "C1.2")
    _event(w, place, detail, "placed", len(got), e.token)


def _take(w: Work, place: str, detail: Any, token: str, kind: str, k: int) -> list[Token]:
    got: list[Token] = []
    for _ in range(k):
        one = _take_one(w, place, detail, token, kind)
        if one is None:
            break
        got.append(one)
    return got


def exec_remove_tokens(w: Work, e: n.RemoveTokens, ctx: Ctx) -> None:  # remove N token T [KIND] from HOLDER
    place, detail = where_of(w, e.src, ctx)
    got = _take(w, place, detail, e.token, e.kind, amount(w, e.n, ctx))
    if not got:
        return
    emit(w, "token", f"{_words(len(got), e.token, w, got)} {'returns' if len(got) == 1 else 'return'} from "
                     f"{_name(w, place, detail)} to the supply", "S1.6")
    _put(w, "supply", "", e.token, got)
    _event(w, place, detail, "removed", len(got), e.token)


def exec_move_tokens(w: Work, e: n.MoveTokens, ctx: Ctx) -> None:  # move N token T [KIND] from H to H
    place, detail = where_of(w, e.src, ctx)
    if not lying(w, place, detail, e.token, e.kind):
        return
    dest, there = where_of(w, e.to, ctx)
    if dest == "none":
        return
    got = _take(w, place, detail, e.token, e.kind, amount(w, e.n, ctx))
    if not got:
        return
    emit(w, "token", f"{_words(len(got), e.token, w, got)} {'moves' if len(got) == 1 else 'move'} from "
                     f"{_name(w, place, detail)} to {_name(w, dest, there)}", "C1.2")
    _put(w, dest, there, e.token, got)
    _event(w, place, detail, "removed", len(got), e.token)
    _event(w, dest, there, "placed", len(got), e.token)


def exec_spend_to(w: Work, e: n.SpendTo, ctx: Ctx) -> None:  # spend N token T [KIND] from H to|onto H { … }
    place, detail = where_of(w, e.src, ctx)
    k = amount(w, e.n, ctx)
    if len(lying(w, place, detail, e.token, e.kind)) < k:
        emit(w, "token", f"not enough {w.game.tokens[e.token].name.lower()} tokens to spend", "C1.2")
        return
    dest, there = where_of(w, e.to, ctx)
    if dest == "none":
        return
    got = _take(w, place, detail, e.token, e.kind, k)
    _put(w, dest, there, e.token, got)
    if got:
        prep = {"supply": "back to", "discard": "to", "collection": "to"}.get(dest, "onto")
        emit(w, "token", f"spends {_words(len(got), e.token, w, got)} from {_name(w, place, detail)}, "
                         f"{prep} {_name(w, dest, there)}", "S1.3")
        fire(w, "token-spent", None, len(got), extra=e.token)
    if e.body:
        run(w, e.body, ctx)


def amount_token_count(w: Work, a: n.TokenCount, ctx: Ctx) -> int:  # count tokens T on HOLDER
    place, detail = _peek(w, a.on, ctx)
    return len(lying(w, place, detail, a.token))


def eval_token_on(w: Work, c: n.TokenOn, ctx: Ctx) -> bool:  # token T on HOLDER
    place, detail = _peek(w, c.on, ctx)
    return bool(lying(w, place, detail, c.token))


def _peek(w: Work, h: n.TokenHolder, ctx: Ctx) -> tuple[str, Any]:
    """A holder read without changing anything (a plain victim holds no token)."""
    p = w.scope.piece
    if h.kind == "at" and h.loc == "it" and p is not None and p[0] == "victim" and not p[1]:
        return ("none", "")
    return where_of(w, h, ctx)


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
EVAL.update(n.functions(n.Condition, globals(), "eval_"))
AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))
