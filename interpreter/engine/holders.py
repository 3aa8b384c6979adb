"""Tokens everywhere (issue #16 item 5; S1.1–S1.6, K1.7, S5.1–S5.3).

A token lies somewhere: on the board (``tokens``: type, kind, location; face down there:
``tokens_down``), in the Final Girl's collection (``collected``), face down in the supply
(``supply``, in random order) or its discard (``token_discard``), or on an item card, a deck card or
a piece (``token_on``: holder, type, kind, face up). The holder of a piece is ``victim:UID``,
``minion:UID`` or ``killer:BODY``; tokens on a piece leave the game with it (it dies, escapes or
turns into another piece). The holder of an item card is the card itself, ``item:ID#N``
(engine/copies.py): ``item ID`` names the card of the item's own lines, else the cards of it in play
(read together; taken from, the one she picks; put on, one she holds, else one on the table, else
one set aside).

A face-down token's kind is read by nothing (issue #33 item 4): a kind named in a condition, an
amount or a take reads the face-up tokens only; taking a token where some lie face down offers "a
face-down one", taken in the order they were put there (the order of a shuffled supply).

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
from .copies import cards, held_cards, item_of, pick, receiving
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
    if kind == "item":  # this card in its own lines; else the cards of the item in play (engine/copies.py)
        own = w.scope.copy
        if own and item_of(own) == h.name:
            return ("on", own)
        return ("cards", h.name)
    if kind == "card":
        return ("on", f"card:{h.name}")
    return (kind, "")


def receiver(w: Work, place: str, detail: Any) -> tuple[str, Any]:
    """Where tokens put on a holder go: the cards of an item named from outside its own lines are one
    card of it, she holds it (she picks among cards that differ), else one on the table, else one
    set aside; none in play: ("none", "")."""
    if place != "cards":
        return place, detail
    keys = receiving(w, detail)
    if not keys:
        emit(w, "token", f"no card of {w.game.items[detail].name} is in play to take them", "C1.2")
        return ("none", "")
    return ("on", pick(w, keys, f"Onto which card of {w.game.items[detail].name}?"))


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
            iid = ident.partition("#")[0]
            return w.game.items[iid].name if iid in w.game.items else iid
        if what == "card":
            return next((c.name for cid, c in w.game.deck_cards.items() if cid.split("/", 1)[1] == ident), ident)
        if what == "victim":
            return "a victim"
        if what == "minion":
            m = next((x for x in w.minions if x.uid == int(ident)), None)
            return f"a {w.game.minions[m.kind].name}" if m is not None else "a minion"
        return next((k.label or (w.game.bodies[k.body].name if k.body in w.game.bodies else "the killer")
                     for k in w.killers if (k.body or k.label) == ident), "the killer")
    if place == "cards":
        return w.game.items[detail].name if detail in w.game.items else detail
    return {"collection": "her collection", "supply": "the supply", "discard": "the token discard",
            "items": "her items"}.get(place, place)


# --- what lies where ------------------------------------------------------------------------------------
def lying(w: Work, place: str, detail: Any, token: str, kind: str = "", face: str = "") -> list[Token]:
    """The tokens of a type a holder has, as (kind, face up): of a kind, the face-up ones of it (the
    supply's and the discard's of it: a line takes a kind from there); of a face, those lying so."""
    if place == "board":
        got = [(k, True) for t, k, at in w.tokens if t == token and at == detail and (not kind or k == kind)]
        if w.tokens_down and not kind:
            got += [(k, False) for t, k, at in w.tokens_down if t == token and at == detail]
        return _faced(got, face)
    if place == "collection":
        return [] if face == "down" else [(k, True) for t, k in w.collected if t == token and (not kind or k == kind)]
    if place in ("supply", "discard"):
        pile = w.supply if place == "supply" else w.token_discard
        return [(k, False) for t, k in pile if t == token and (not kind or k == kind)]
    if place in ("items", "cards"):
        keys = set(held_cards(w) if place == "items" else cards(w, detail))
        return _faced([(k, up) for hold, t, k, up in w.token_on if hold in keys and t == token
                       and (not kind or (up and k == kind))], face)
    if place == "on":
        return _faced([(k, up) for hold, t, k, up in w.token_on if hold == detail and t == token
                       and (not kind or (up and k == kind))], face)
    return []


def _faced(got: list[Token], face: str) -> list[Token]:
    if face == "up":
        return [t for t in got if t[1]]
    if face == "down":
        return [t for t in got if not t[1]]
    return got


def _take_one(w: Work, place: str, detail: Any, token: str, kind: str) -> Any:
    """Take one token of a type (and kind) from a holder: (kind, face up), or None. Among face-up
    tokens of several kinds the player picks the kind; face-down ones come in their order."""
    here = lying(w, place, detail, token, kind)
    if not here:
        return None
    if place in ("items", "cards"):  # several cards hold some: she picks the card (of cards alike, the first)
        keys = held_cards(w) if place == "items" else cards(w, detail)
        keys = [key for key in keys if lying(w, "on", key, token, kind)]
        return _take_one(w, "on", pick(w, keys, "Take the token from which card?"), token, kind)
    up_kinds = list(dict.fromkeys(k for k, up in here if up))
    down = not kind and any(not up for _k, up in here)
    if place == "board" and w.tokens_down:  # face-down ones too: she picks a kind she sees, or one of them
        if len(up_kinds) + down > 1:
            key = ask(w, "token-kind", "Which token?", [opt(w, f"token:{k}", k) for k in up_kinds]
                      + ([opt(w, "token-down", "a face-down one")] if down else []))
            if key == "token-down":
                up_kinds = []
            else:
                kind = key[6:]
        elif up_kinds:
            kind = up_kinds[0]
        if not kind:
            i = next(j for j, (t, _k, at) in enumerate(w.tokens_down) if t == token and at == detail)
            got = (w.tokens_down[i][1], False)
            w.tokens_down = w.tokens_down[:i] + w.tokens_down[i + 1:]
            return got
    elif len(up_kinds) > 1:
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
    i = next(j for j, (hold, t, k, up) in enumerate(w.token_on) if hold == detail and t == token
             and (not kind or (up and k == kind)))
    got = (w.token_on[i][2], w.token_on[i][3])
    w.token_on = w.token_on[:i] + w.token_on[i + 1:]
    return got


def _put(w: Work, place: str, detail: Any, token: str, got: list[Token], face: str = "") -> None:
    """Tokens onto a holder (``face``: up | down | "" as they were; the supply takes them face down,
    shuffled in; the board and her collection show them)."""
    if not got:
        return
    if place == "board":
        up = {"up": True, "down": False}
        faced = [(k, up.get(face, u)) for k, u in got]
        if any(u for _k, u in faced):
            w.tokens = w.tokens + tuple((token, k, detail) for k, u in faced if u)
        if not all(u for _k, u in faced):
            w.tokens_down = w.tokens_down + tuple((token, k, detail) for k, u in faced if not u)
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
    place, detail = receiver(w, *where_of(w, e.to, ctx))
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
    dest, there = receiver(w, *where_of(w, e.to, ctx))
    if dest == "none":
        return
    got = _take(w, place, detail, e.token, e.kind, amount(w, e.n, ctx))
    if not got:
        return
    shown = [(k, True) for k, _up in got] if dest == "collection" else got  # her collection shows them
    emit(w, "token", f"{_words(len(got), e.token, w, shown)} {'moves' if len(got) == 1 else 'move'} from "
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
    dest, there = receiver(w, *where_of(w, e.to, ctx))
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


def amount_token_count(w: Work, a: n.TokenCount, ctx: Ctx) -> int:  # count tokens T [KIND | face …] on HOLDER
    place, detail = _peek(w, a.on, ctx)
    return len(lying(w, place, detail, a.token, a.kind, a.face))


def eval_token_on(w: Work, c: n.TokenOn, ctx: Ctx) -> bool:  # token T [KIND | face …] on HOLDER
    place, detail = _peek(w, c.on, ctx)
    return bool(lying(w, place, detail, c.token, c.kind, c.face))


def exec_reveal_tokens(w: Work, e: n.RevealTokens, ctx: Ctx) -> None:  # reveal tokens T at|on HOLDER
    """The face-down tokens of the type there turn face up, their kinds said (issue #33 item 4)."""
    place, detail = where_of(w, e.at, ctx)
    kinds: list[str] = []
    if place == "board":
        if not w.tokens_down:
            return
        kinds = [k for t, k, at in w.tokens_down if t == e.token and at == detail]
        if not kinds:
            return
        w.tokens_down = tuple(x for x in w.tokens_down if not (x[0] == e.token and x[2] == detail))
        w.tokens = w.tokens + tuple((e.token, k, detail) for k in kinds)
    elif place in ("on", "items", "cards"):
        keys = {detail} if place == "on" else set(held_cards(w) if place == "items" else cards(w, detail))
        kinds = [k for hold, t, k, up in w.token_on if hold in keys and t == e.token and not up]
        if not kinds:
            return
        w.token_on = tuple((hold, t, k, True) if hold in keys and t == e.token else (hold, t, k, up)
                           for hold, t, k, up in w.token_on)
    else:
        return
    name = w.game.tokens[e.token].name.lower()
    shown = ", ".join(k for k in kinds)
    where = f"{'at' if place == 'board' else 'on'} {_name(w, place, detail)}"
    emit(w, "token", f"the {name} token {where} is turned face up: {shown}" if len(kinds) == 1 else
         f"the {len(kinds)} {name} tokens {where} are turned face up: {shown}", "C1.2")
    fire(w, "token-revealed", None, len(kinds), detail if place == "board" else -1, extra=e.token)


def _peek(w: Work, h: n.TokenHolder, ctx: Ctx) -> tuple[str, Any]:
    """A holder read without changing anything (a plain victim holds no token)."""
    p = w.scope.piece
    if h.kind == "at" and h.loc == "it" and p is not None and p[0] == "victim" and not p[1]:
        return ("none", "")
    return where_of(w, h, ctx)


EXEC.update(n.functions(n.Effect, globals(), "exec_"))
EVAL.update(n.functions(n.Condition, globals(), "eval_"))
AMOUNT.update(n.functions(n.Amount, globals(), "amount_"))
