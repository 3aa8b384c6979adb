"""Tokens: a supply on the table, tokens on the board, the Final Girl's collection (S5.1–S5.3).

A token type declares its kinds (faces) and its supply, shuffled face down at setup. Tokens
are placed from the supply at random, collected by the Final Girl, and spent from her
collection; spent tokens are discarded and return to the supply once it runs dry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .asking import ask, opt
from .draws import shuffled
from .telling import emit, told
from .triggers import fire
from .words import a_or_an, count_of, loc_name

if TYPE_CHECKING:
    from .working import Work


def place_token(w: Work, token: str, loc: int, down: bool = False) -> None:
    """Put a random token of this type from the supply at a location (the supply is shuffled); ``down``:
    face down (a setup card's 'tokens T face down at …': issue #33 item 4)."""
    for i, (tok, kind) in enumerate(w.supply):
        if tok == token:
            w.supply = w.supply[:i] + w.supply[i + 1:]
            if down:
                w.tokens_down = w.tokens_down + ((token, kind, loc),)
            else:
                w.tokens = w.tokens + ((token, kind, loc),)
            if ("token" in said) if (said := w.ctl.said) is not None else told(w, "token"):  # (Replay.said)
                emit(w, "token", f"a {w.game.tokens[token].name.lower()} token is placed at {loc_name(w, loc)}", "C1.2")
            fire(w, "token-placed", None, 1, loc, extra=token)
            return
    emit(w, "token", f"no {w.game.tokens[token].name.lower()} token is left in the supply", "C1.2")


def collect_token(w: Work, token: str, loc: int) -> None:
    """The Final Girl takes a token of this type from a location (the player picks the kind, or a
    face-down one: the first put there)."""
    here = [(i, k) for i, (tok, k, at) in enumerate(w.tokens) if tok == token and at == loc]
    down = [(i, k) for i, (tok, k, at) in enumerate(w.tokens_down) if tok == token and at == loc] \
        if w.tokens_down else []
    if not here and not down:
        return
    if len(here) + bool(down) > 1:
        kinds = dict.fromkeys(k for _i, k in here)
        key = ask(w, "collect", "Collect which token?", [opt(w, f"token:{k}", k) for k in kinds]
                  + ([opt(w, "token-down", "a face-down one")] if down else []))
        if key == "token-down":
            here = []
        else:
            here = [(i, k) for i, k in here if k == key[6:]]
    if here:
        i, kind = here[0]
        w.tokens = w.tokens[:i] + w.tokens[i + 1:]
    else:  # a face-down one: she turns it up as she takes it
        i, kind = down[0]
        w.tokens_down = w.tokens_down[:i] + w.tokens_down[i + 1:]
    w.collected = tuple(sorted(w.collected + ((token, kind),)))
    if ("token" in said) if (said := w.ctl.said) is not None else told(w, "token"):  # (Replay.said)
        name = w.game.tokens[token].name.lower()
        what = kind if kind == name or name.startswith(kind + " ") else f"{kind} {name}"  # not "a pass pass"
        emit(w, "token", f"collects {a_or_an(what)} {what}", "C1.2")
    fire(w, "token-removed", None, 1, loc, extra=token)


MAX_SPEND_OPTIONS = 1000  # the ways to spend offered at most (the first, smallest first)


def _sub_multisets(kinds: tuple[str, ...], low: int, high: int,
                   limit: int = MAX_SPEND_OPTIONS) -> list[tuple[str, ...]]:
    """The distinct multisets of LOW..HIGH of the (sorted) ``kinds``, by size, then in order:
    built from the count of each kind, never from the combinations of the tokens."""
    distinct = sorted(set(kinds))
    have = [kinds.count(k) for k in distinct]
    out: list[tuple[str, ...]] = []

    def grow(i: int, left: int, acc: list[str]) -> None:
        if len(out) >= limit:
            return
        if left == 0:
            out.append(tuple(acc))
            return
        for j in range(i, len(distinct)):
            if have[j] == 0:
                continue
            have[j] -= 1
            acc.append(distinct[j])
            grow(j, left - 1, acc)
            acc.pop()
            have[j] += 1
            if len(out) >= limit:
                return

    for size in range(max(low, 0), min(high, len(kinds)) + 1):
        grow(0, size, [])
    return out


def spend_tokens(w: Work, token: str, low: int, high: int) -> tuple[str, ...]:
    """The player picks LOW..HIGH of her collected tokens of a type; they are discarded, and return
    to the supply while it has none of that type left (S5.3). The kinds spent; () if she has too few."""
    have = tuple(sorted(k for tok, k in w.collected if tok == token))
    choices = _sub_multisets(have, low, high)
    if not choices:
        emit(w, "token", "not enough tokens collected", "C1.2")
        return ()
    if len(choices) >= MAX_SPEND_OPTIONS:
        emit(w, "token", f"too many ways to spend them: the first {MAX_SPEND_OPTIONS} (fewest first) are offered",
             "C1.2")
    key = ask(w, "spend", "Spend which tokens?",
              lambda: [opt(w, "spend:" + "+".join(c), ", ".join(c)) for c in choices])
    spent = tuple(key[6:].split("+"))
    col = list(w.collected)
    for k in spent:
        col.remove((token, k))
    w.collected = tuple(col)
    if ("token" in said) if (said := w.ctl.said) is not None else told(w, "token"):  # (Replay.said)
        emit(w, "token", f"spends {', '.join(spent)}", "C1.2")
    w.token_discard = w.token_discard + tuple((token, k) for k in spent)
    if not any(tok == token for tok, _k in w.supply):
        back = [t for t in w.token_discard if t[0] == token]
        w.token_discard = tuple(t for t in w.token_discard if t[0] != token)
        w.supply = w.supply + shuffled(w, back)
        back_n = len(back)
        emit(w, "token", f"the supply had none left: {count_of(back_n, 'discarded token')} "
                         f"return{'s' if back_n == 1 else ''} "
                         "to it", "S5.3")
    fire(w, "token-spent", None, len(spent), extra=token)
    return spent
