"""The play screen: what a player at the table sees at each decision, and the interactive loop.

``lastbreath play`` on a terminal draws one screen per decision with rich (the well-kept
standard for terminal output): the tracks and every counter, flag, status and token in play,
a map of the scenario (one row per location: what stands there, its paths with the panic
faces that lead along them, closed paths), the hand with each card's text, the items, what
just happened, and the choice with its keys. The screen is fitted to the terminal: at 80×24
the map and the hand fold to one line per row and the log to its last lines, never the
tracks or the choice. The Killer phase plays step by step: before the killer moves, its
target, the reason (the targeting table of ``explain``) and its path are shown, and the
screen waits for Enter.

Off a terminal (pipes, scripts, tests) the same loop prints the plain text log as before:
every event's line, then the status block and the numbered options.

What the player types is the same in both: an option's key (a number that an option keeps
while its menu changes: after buying a card the others keep theirs), a prefix of an option's
words (``wa`` or ``play wa``), or a command: ``help`` / ``?``, ``rule C9.4``, ``card walk``,
``map``, ``hand``, ``log``, ``undo``, ``save FILE``, ``quit``.

Everything here reads the state generically (flags, tokens, statuses, modes, decks…): no
killer, scenario or mechanic is named.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from typing import Any, Callable, Iterable, NamedTuple, Optional, Sequence, TextIO

from lastbreath.dsl import RulesError
from lastbreath.dsl import nodes as dsl_nodes
from lastbreath.dsl.render import Names, count_of, render, render_effects

from .state import Choice, Event, GameState, Option

__all__ = ["HELP", "GameStopped", "Keys", "MenuEntry", "Parts", "Plain", "Step", "Terminal", "View", "board_summary",
           "card_text", "choice_text", "fit_screen", "hand_rows", "item_rows", "killer_steps", "load_session",
           "map_rows", "map_text", "option_note", "pick", "play", "render_screen", "rule_text", "screen_text",
           "status_facts", "targeting_note", "token_label", "tracks_lines", "use_color"]

COMMANDS = (
    ("NUMBER or NAME", "choose an option: its key, or the first letters of its words ('wa', 'play wa')"),
    ("help, ?", "this list"),
    ("map", "the map with every path and panic number"),
    ("hand", "the cards in your hand and your items, in full"),
    ("card NAME", "a card, item or other piece of content in full ('card walk')"),
    ("rule ID", "a rule of the game by its id ('rule C9.4')"),
    ("log", "what happened this round"),
    ("status", "show the screen (the status block) again"),
    ("undo, u", "take back your last choice"),
    ("save FILE", "save the game ('lastbreath play --load FILE' resumes it)"),
    ("quit, q", "leave the game (with --save, it is saved first; else it offers to save it)"),
)
COMMAND_WORDS = ("help", "map", "hand", "card", "rule", "log", "status", "undo", "save", "quit")
ASK_SAVE = "Save the game before leaving? A file name, or Enter to leave it unsaved: "
HELP = "Commands:\n" + "\n".join(f"  {k:<15} {v}" for k, v in COMMANDS)


# --- showing a game as text (the plain log's status block) --------------------------------------

def _body(state: GameState, i: int) -> tuple[str, Any]:
    """A killer body's name and its maximum health, as the screen shows them."""
    g = state.game
    ks = state.killers[i]
    decl = g.bodies.get(ks.body) if ks.body else None
    name = ks.label or (decl.name if decl is not None else _name(g.ruleset.killers, ks.id))
    top: Any = ks.max_health or (decl.health if decl is not None and not decl.formed else
                                 getattr(g.ruleset.killers.get(ks.id), "health", None) or "?")
    return name, top


def health_of(health: int, top: Any) -> str:
    """Health against its start value: "4/6", or "12 (start 6)" once it has grown past it (a
    killer that heals without a cap, K5.1), never a fraction above one."""
    if isinstance(top, int) and health > top:
        return f"{health} (start {top})"
    return f"{health}/{top}"


def _marks(state: GameState, i: int) -> str:
    """K3.2, K2.9: the active marker (several declared bodies) and a body set aside."""
    ks = state.killers[i]
    marks = []
    if len(state.killers) > 1 and state.game.bodies and i == state.active:
        marks.append("active")
    if ks.aside:
        marks.append("set aside")
    return f" ({', '.join(marks)})" if marks else ""

def _name(table: dict, key: str) -> str:
    obj = table.get(key)
    return getattr(obj, "name", key) if obj is not None else key


def _breath(b: int) -> str:
    return {2: "black token", 1: "white token"}.get(b, "gone")


def _counted(names: Iterable[str]) -> str:
    c = Counter(names)
    return ", ".join(f"{n} x{k}" if k > 1 else n for n, k in c.items()) or "(none)"


_plural = count_of


def _where(state: GameState, loc: int) -> str:
    board = state.game.board
    return board.names[loc] if 0 <= loc < board.n else "off the board"


def board_summary(state: GameState) -> str:
    """A readable picture of the state for a person at the table (the plain log's status block)."""
    g = state.game
    board = g.board
    side = g.side
    lines = []
    title = f" Round {state.round} · {state.phase.capitalize()} phase "
    lines.append(f"──{title}" + "─" * max(4, 60 - len(title)))
    dice = g.dice_by_fear.get(state.fear)
    fg_hp = f"health {health_of(state.fg_health, g.fg.health)}"
    if state.fg_health == 0 and state.fg_breath:
        fg_hp += " (last breath: +1 die)"
    lines.append(f"{g.fg.name} at {board.names[state.fg_loc]}: {fg_hp}, last-breath {_breath(state.fg_breath)}")
    lines.append(f"Fear {state.fear}/{side.fear_max}" + (f" ({dice} dice)" if dice is not None else "")
                 + f" · Time {state.time}/{side.time_max}")
    if not state.killers and not g.killer.board:
        lines.append(f"{g.killer.name}: no killer board; no body on the map yet")
    for i, ks in enumerate(state.killers):
        kname, kmax = _body(state, i)
        if not ks.alive:
            lines.append(f"{kname}: defeated")
            continue
        where = _where(state, ks.loc)
        if ks.label:  # a body formed in play (K6.6): no cap shown, no last-breath token
            lines.append(f"{ks.label} at {where}: health {ks.health}, no last-breath token")
            continue
        lines.append(f"{kname} at {where}: health {health_of(ks.health, kmax)}, "
                     f"last-breath {_breath(ks.breath)}"
                     + _marks(state, i))
    if g.levels:
        lvl = g.levels[min(state.bloodlust, len(g.levels) - 1)]
        lines.append(f"Bloodlust level {state.bloodlust + 1}/{len(g.levels)} (move {lvl.move}, damage {lvl.damage})")
    victims = [f"{board.names[i]} {v}" for i, v in enumerate(state.victims) if v]
    left = max(0, g.victim_supply - state.victims_taken)  # C5.7
    lines.append(f"Victims: {', '.join(victims) or 'none on the board'} · rescued {state.rescued} · dead {state.dead}"
                 f" · {left} left in the supply")
    if state.minions:
        lines.append("Minions: " + ", ".join(
            f"{_name(g.minions, m.kind)} at {_where(state, m.loc)}"
            f" (health {m.health})" for m in state.minions))
    lines.append("Hand: " + _counted(_name(g.cards, c) for c in state.hand))
    items = [f"{_name(g.items, h.id)}{_uses(g, h)} [in hand]" for h in state.held]
    items += [f"{_name(g.items, h.id)}{_uses(g, h)} [backpack]" for h in state.pack]
    lines.append("Items: " + (", ".join(items) or "(none)"))
    extra = []
    if state.dark_power:
        extra.append("dark power: " + (_name(g.dark_powers, state.dark_power) if state.dark_revealed else "hidden"))
    if state.finale:
        extra.append("finale: " + (_name(g.finales, state.finale) if state.finale_revealed else "hidden"))
    if state.events_active:
        extra.append("events in play: " + ", ".join(_name(g.events, e) for e in state.events_active))
    if extra:
        text = "; ".join(extra)
        lines.append(text[:1].upper() + text[1:])
    # what the lines above do not cover: flags, modes, statuses, tokens, decks, kept cards…
    for label, text in status_facts(state, extras_only=True):
        lines.append(f"{label}: {text}")
    return "\n".join(lines)


def choice_text(choice: Choice, menu: Optional[Sequence[MenuEntry]] = None) -> str:
    """The prompt and the options, each with its key (``menu``; by default numbered in order)."""
    lines = [f"{choice.prompt}:" if not choice.prompt.endswith(("?", ":")) else choice.prompt]
    entries = menu if menu is not None else [MenuEntry(str(i), o, "") for i, o in enumerate(choice.options, 1)]
    width = max(len(e.key) for e in entries)
    for e in entries:
        lines.append(f"  {e.key:>{width}}) {e.option.label}")
    return "\n".join(lines)


# --- every fact in play, read generically from the state ----------------------------------------
def _names(state: GameState) -> Names:
    g = state.game
    got = g.derived.get("screen:names")
    if got is None:
        got = g.derived["screen:names"] = Names.from_ruleset(g.ruleset).within(g.killer).within(g.scenario)
    return got


def _token_name(state: GameState, token: str) -> str:
    return _name(state.game.tokens, token)


def _faced(state: GameState) -> frozenset[str]:
    """The token types the game's content turns face down or up on the board, or reads the kinds of
    there (issue #33 item 4): their face-up tokens on the map show their kinds. Any other type lies
    on the map as the supply gave it, shown by its type alone (S5.1)."""
    g = state.game
    got = g.derived.get("screen:faced")
    if got is None:
        got = frozenset(t for su in g.scenario.setups for t, _loc in su.tokens_down) | frozenset(
            x.token for x in dsl_nodes.walk((g.killer, g.scenario, *g.items.values(), *g.cards.values()))
            if (type(x) is dsl_nodes.GainTokens and x.face and x.to.kind == "at")
            or type(x) is dsl_nodes.RevealTokens
            or (type(x) in (dsl_nodes.TokenAt, dsl_nodes.TokenOn, dsl_nodes.TokenCount) and (x.kind or x.face)))
        g.derived["screen:faced"] = got
    return got


def board_token(state: GameState, token: str, kind: str, up: bool) -> str:
    """A token on the board as the player sees it: its type, its kind if it lies face up (a type the
    content turns face up or down), 'face down' if it lies so."""
    name = _token_name(state, token)
    if not up:
        return f"{name} (face down)"
    return token_label(kind, name) if token in _faced(state) else name


def _board_tokens(state: GameState) -> list[tuple[str, int]]:
    """(label, location) of every token on the board, face up then face down."""
    return ([(board_token(state, t, k, True), at) for t, k, at in state.tokens]
            + [(board_token(state, t, k, False), at) for t, k, at in state.tokens_down])


def token_label(kind: str, name: str) -> str:
    """A token of a kind: "blue Chip"; a kind named like its token is not said twice ("Pass", not "pass Pass")."""
    if kind.lower() == name.lower() or name.lower().startswith(kind.lower() + " "):
        return name
    return f"{kind} {name}"


def _statuses(status: frozenset) -> str:
    return f" [{', '.join(sorted(status))}]" if status else ""


def _deck_card(state: GameState, key: str) -> str:
    g = state.game
    card = g.deck_cards.get(key)
    return card.name if card is not None else key


def _piece_facts(state: GameState) -> list[tuple[str, str]]:
    """Her statuses, the victims that are not plain (a kind she can see, statuses, tokens) and the
    tokens on items, cards and pieces (issue #16 items 3-5; face down: the kind is hidden)."""
    from .engine import work
    from .engine.victims import describe

    out: list[tuple[str, str]] = []
    g = state.game
    if state.fg_status:
        out.append(("Status", f"{g.fg.name}{_statuses(state.fg_status)}"))
    if state.marked:
        w = work(state)  # (the rules modules read a working copy: a compiled one takes nothing else)
        at = Counter((m.loc, describe(w, m)) for m in state.marked)
        out.append(("Victims", "; ".join(f"{_where(state, loc)}: {what}{' x' + str(k) if k > 1 else ''}"
                                         for (loc, what), k in sorted(at.items()))))
    if state.token_on:
        names = {f"item:{i}": it.name for i, it in g.items.items()}
        names.update({f"card:{c.split('/', 1)[1]}": card.name for c, card in g.deck_cards.items()})
        for h, *_rest in state.token_on:  # a card of an item whose cards carry tokens apart: 'item:ID#N'
            iid, sep, k = h.partition("#")
            if sep and iid in names:  # (its number said where the item has several cards)
                names[h] = f"{names[iid]} (card {k})" if g.items[iid[5:]].copies > 1 else names[iid]
        on = Counter((names.get(h, "a " + h.split(":", 1)[0]),
                      token_label(kind, _token_name(state, t)) if up else _token_name(state, t))
                     for h, t, kind, up in state.token_on)
        out.append(("Tokens on", "; ".join(f"{where}: {what}{' x' + str(k) if k > 1 else ''}"
                                           for (where, what), k in on.items())))
    return out


def _tracks_and_paths(state: GameState) -> list[tuple[str, str]]:
    """Tracks, holding areas, blocks kept for a coming phase, paths closed by effects."""
    g = state.game
    board = g.board
    out: list[tuple[str, str]] = []
    for tid, v in state.tracks:
        t = g.tracks.get(tid)
        if t is not None:
            label = dict(t.labels).get(v)
            out.append(("Track", f"{t.name}: space {v}" + (f" ({label})" if label else "") + f" of {t.low}–{t.high}"))
    for hid, k in state.holding:
        h = g.holdings.get(hid)
        if h is not None:
            out.append(("Held", f"{h.name}: {_plural(k, 'victim')} of {h.capacity} (off the board)"))
    if state.delayed:
        kept = Counter(f"{g.delayed[i].edge} of the next {g.delayed[i].phase.capitalize()} phase"
                       for i, _it, _that in state.delayed if 0 <= i < len(g.delayed))
        out.append(("Kept for later", ", ".join(f"{k} at the {when}" if k > 1 else f"one at the {when}"
                                                for when, k in kept.items())))
    for c, at in zip(g.conveyances, state.conveyances):  # pieces that travel with her (issue #33 item 2)
        how = "goes with you always" if c.taken == "always" else "goes with you when you take it"
        needs = f"; needs {_name(g.items, c.needs)}" if c.needs else ""
        out.append((c.name, f"{'at ' if at >= 0 else ''}{_where(state, at)} ({how}{needs})"))
    if state.barred:
        closed: dict[int, list[str]] = {}
        for k, who in state.barred:
            if 0 <= k < len(board.paths):
                closed.setdefault(k, []).append(who)
        parts = []
        for k, movers in closed.items():
            a, b = board.paths[k][0], board.paths[k][1]
            whom = "everyone" if len(movers) == 3 else " and ".join("her" if x == "fg" else x for x in movers)
            parts.append(f"{board.names[a]}–{board.names[b]} (for {whom})")
        out.append(("Closed paths", "; ".join(parts)))
    return out


def status_facts(state: GameState, extras_only: bool = False) -> list[tuple[str, str]]:
    """Every counter, flag, status and token in play as ``(label, text)`` rows, read generically.

    With ``extras_only``, only what ``board_summary`` does not already show (flags, modes,
    statuses, tokens, decks, kept cards, the secondary dark power, piles…)."""
    g = state.game
    board = g.board
    out: list[tuple[str, str]] = []
    if not extras_only:
        side = g.side
        dice = g.dice_by_fear.get(state.fear)
        hp = health_of(state.fg_health, g.fg.health)
        out.append((g.fg.name, f"at {_where(state, state.fg_loc)} · health {hp} · last breath "
                               f"{_breath(state.fg_breath)}" + (" · flipped" if state.flipped else "")))
        out.append(("Fear", f"{state.fear}/{side.fear_max}" + (f" → {_plural(dice, 'die', 'dice')}" if dice else "")
                    + " (5–6 succeed; a 3–4 for two cards from hand)"))
        out.append(("Time", f"{state.time}/{side.time_max}"))
    if state.mode or state.mode_active:
        mode = state.mode_active or state.mode
        text = f"{mode}" + (f" (next Killer phase: {state.mode})" if state.mode != mode and state.mode else "")
        out.append(("Mode", text))
    if state.flags:
        out.append(("Flags", ", ".join(sorted(state.flags))))
    for ks in state.killers:
        if ks.status and ks.alive:
            out.append(("Status", f"{ks.label or _name(g.ruleset.killers, ks.id)}{_statuses(ks.status)}"))
    for m in state.minions:
        if m.status:
            out.append(("Status", f"{_name(g.minions, m.kind)} at {_where(state, m.loc)}{_statuses(m.status)}"))
    out += _piece_facts(state)
    if state.secondary:
        name = _name(g.terror, state.secondary) if state.secondary in g.terror else \
            _name(g.dark_powers, state.secondary)
        out.append(("Second dark power", name + (f" (health {state.secondary_health})"
                                                  if state.secondary_health else "")))
    if state.tokens or state.tokens_down:
        here = Counter(_board_tokens(state))  # a kind shown only face up (board_token)
        out.append(("Tokens", ", ".join(f"{what}{' x' + str(k) if k > 1 else ''} at "
                                        f"{_where(state, loc)}" for (what, loc), k in here.items())))
    if state.collected:
        out.append(("Collected", _counted(token_label(kind, _token_name(state, t)) for t, kind in state.collected)))
    if state.supply or state.token_discard:
        types = dict.fromkeys([t for t, _ in state.supply] + [t for t, _ in state.token_discard])
        parts = []
        for t in types:
            left = sum(1 for x, _ in state.supply if x == t)
            spent = sum(1 for x, _ in state.token_discard if x == t)
            parts.append(f"{_token_name(state, t)}: {left} in the supply" + (f", {spent} spent" if spent else ""))
        out.append(("Token supply", "; ".join(parts)))
    if state.kept:
        out.append(("Kept cards", ", ".join(_deck_card(state, k) for k in state.kept)))
    out += _tracks_and_paths(state)
    for deck, cards in state.decks:
        out.append(("Deck", f"{_name(g.decks, deck)}: {_plural(len(cards), 'card')} left"
                    + _discards_text(state, deck)))
    out += _zone_facts(state)
    if state.deaths_round:
        out.append(("Killed this round", str(state.deaths_round)))
    if state.skip_action:
        out.append(("Next Action phase", "skipped"))
    if state.dice:
        out.append(("Next dice", " ".join(map(str, state.dice)) + " (fixed by the position)"))
    if not extras_only:
        if state.terror or state.events:
            out.append(("Decks", f"terror {len(state.terror)} · events {len(state.events)}"))
        if state.setup_card:
            out.append(("Setup card", state.setup_card))
        piles = [f"{board.names[loc]} {len(state.piles[k])}" for k, loc in enumerate(board.search_locs)
                 if k < len(state.piles)]
        if piles:
            out.append(("Item piles", ", ".join(piles)))
    return out


def _discards_text(state: GameState, deck: str) -> str:
    """The discards of a deck that shuffles them back when empty (K1.6)."""
    d = state.game.decks.get(deck)
    if d is None or not d.reshuffle:
        return ""
    k = sum(len(cards) for x, cards in state.deck_discards if x == deck)
    return f", {k} discarded"


def _zone_facts(state: GameState) -> list[tuple[str, str]]:
    """Item and card zones: the table, the set-aside cards, named piles, items lying on the item piles."""
    g = state.game
    out: list[tuple[str, str]] = []
    if state.table:
        out.append(("On the table", _counted(_name(g.items, i.partition("#")[0]) for i in state.table)))
    if state.aside:
        out.append(("Set aside", _counted(_name(g.items, i.partition("#")[0]) for i in state.aside)))
    for pid, cards in state.item_piles:
        pile = next((p for p in (*g.scenario.piles, *g.killer.piles) if p.id == pid), None)
        out.append(("Pile", f"{pile.name if pile else pid}: {_plural(len(cards), 'card')} face down"))
    if state.on_piles:
        locs = state.game.board.search_locs
        out.append(("On the item piles", ", ".join(f"{_name(g.items, i)} on {_where(state, locs[k])}"
                                                   for k, i in state.on_piles if k < len(locs))))
    if state.cards_aside:
        out.append(("Cards set aside", ", ".join(_deck_card(state, k) for k in state.cards_aside)))
    if state.cards_gone:
        out.append(("Cards out of the game", _counted(_name(g.cards, c) for c in state.cards_gone)))
    return out


def tracks_lines(state: GameState, width: int = 0) -> list[str]:
    """The tracks in a few lines: the Final Girl, the enemies, victims and rescue slots, then every
    other fact in play. With ``width``, a line too long gives its parts' shorter forms (no dice
    faces, no location, slots without their rewards) before it wraps."""
    g = state.game
    side = g.side
    dice = g.dice_by_fear.get(state.fear)
    fg = g.fg
    names = _names(state)
    breath = {2: "●", 1: "○"}.get(state.fg_breath, "✗")
    # each line is parts joined with " · ", each part its forms from the longest ("" drops it)
    you = [(f"{fg.name} health {health_of(state.fg_health, fg.health)} {breath}"
            + (" (last breath: +1 die)" if state.fg_health == 0 and state.fg_breath else ""), None),
           (f"fear {state.fear}/{side.fear_max}" + (f" → {_plural(dice, 'die', 'dice')}" if dice else ""), None),
           ("5–6 succeed, 3–4 for 2 cards", "5–6 succeed"),
           (f"time {state.time}/{side.time_max}", None),
           (f"at {_where(state, state.fg_loc)}", "")]
    enemies: list[tuple[str, Optional[str]]] = []
    if not state.killers and not g.killer.board:
        enemies.append((f"{g.killer.name}: no body on the map yet", None))
    for i, ks in enumerate(state.killers):
        kname, kmax = _body(state, i)
        if not ks.alive:
            enemies.append((f"{kname} defeated", None))
            continue
        mark = {2: "●", 1: "○"}.get(ks.breath, "✗")
        hp = f"{ks.health}" if ks.label else f"{health_of(ks.health, kmax)} {mark}"
        enemies.append((f"{kname} health {hp}{_statuses(ks.status)} at {_where(state, ks.loc)}{_marks(state, i)}",
                        None))
    if g.levels:
        lvl = g.levels[min(state.bloodlust, len(g.levels) - 1)]
        enemies.append((f"bloodlust {state.bloodlust + 1}/{len(g.levels)}", None))
        enemies.append((f"move {lvl.move}, damage {lvl.damage}", ""))
    if state.minions:
        enemies.append((_plural(len(state.minions), "minion"), None))
    victims: list[tuple[str, Optional[str]]] = [
        (f"victims {sum(state.victims)} on the board, {state.rescued} rescued, {state.dead} dead", None)]
    if state.flipped and fg.flipped_reward:
        victims.append((f"each rescue: {_short(render_effects(fg.flipped_reward, names))}", ""))
    slots: list[tuple[str, Optional[str]]] = []
    if not state.flipped:
        marks = ["■" if full else "□" for full in state.slots]
        rewards = [_short(render_effects(fx, names)) for fx in fg.slots]
        full_form = "slots " + " ".join(f"{m}{i} {r}" for i, (m, r) in enumerate(zip(marks, rewards), 1))
        if not width or len(" · ".join([victims[0][0], full_form])) <= width:
            victims.append((full_form, "slots " + "".join(marks)))
        else:  # the rewards on a line of their own rather than dropped
            slots.append((full_form, "slots " + "".join(marks)))
    extra: list[tuple[str, Optional[str]]] = []
    if state.dark_power:
        extra.append(("dark power " + (_name(g.dark_powers, state.dark_power) if state.dark_revealed
                                       else "hidden"), None))
    if state.finale:
        extra.append(("finale " + (_name(g.finales, state.finale) if state.finale_revealed
                                   else "hidden"), None))
    if state.events_active:
        extra.append(("events: " + ", ".join(_name(g.events, e) for e in state.events_active), None))
    for label, text in status_facts(state, extras_only=True):
        if label == "Status":
            continue  # shown with each killer above, and with each minion on the map
        if label == "Tokens":  # where they lie is on the map: here, how many of each
            count = Counter(_token_name(state, t) for t, _kind, _loc in (*state.tokens, *state.tokens_down))
            extra.append((f"tokens on the map: {', '.join(f'{k} {n}' for n, k in count.items())}", None))
        elif label == "Token supply":
            extra.append(("supply: " + text.replace(" in the supply", ""), None))
        elif label == "Deck":  # the decks on one part: "decks: A 10, B 5"
            name, _, left = text.rpartition(": ")
            short = f"{name} {left.split()[0]}"
            if extra and extra[-1][0].startswith("decks: "):
                extra[-1] = (extra[-1][0] + f", {short}", None)
            else:
                extra.append((f"decks: {short}", None))
        else:
            extra.append((f"{label.lower()}: {text}", None))
    out = []
    for parts in (you, enemies, victims, slots, extra):
        forms = [t for t, _short_form in parts]
        # the shorter forms are taken from the last part backwards until the line fits
        for i in range(len(parts) - 1, -1, -1):
            if not width or len(" · ".join(f for f in forms if f)) <= width:
                break
            short_form = parts[i][1]
            if short_form is not None:
                forms[i] = short_form
        line = " · ".join(f for f in forms if f)
        if line:
            out.append(line)
    return out


_TIER = re.compile(r"\b(?:Failure|Success|Great success|Best success|\d+ successes) \((\d\+?)\): ")


def _short(text: str) -> str:
    """Card text made shorter for one line: "Failure (0): Lose 1 time. Heal 1." -> "0: -1 time, +1 health"."""
    parts = []
    for piece in text.split(" │ "):
        piece = _TIER.sub(r"\1: ", piece.strip())
        piece = re.sub(r"\bLose (\d+) time\b", r"-\1 time", piece)
        piece = re.sub(r"\bGain (\d+) time\b", r"+\1 time", piece)
        piece = re.sub(r"\bLower fear by (\d+)\b", r"-\1 fear", piece)
        piece = re.sub(r"\bRaise fear by (\d+)\b", r"+\1 fear", piece)
        piece = re.sub(r"\bHeal (\d+)\b", r"+\1 health", piece)
        piece = re.sub(r"\. ([A-Z](?=[a-z])|[-+])", lambda m: ", " + m.group(1).lower(), piece.removesuffix("."))
        parts.append(piece)
    return " │ ".join(parts)


# --- the map ------------------------------------------------------------------------------------
class MapRow(NamedTuple):
    """One location: its number on the map, name, facts (exit, search pile, tags), what stands
    there, and its paths as ``(neighbour number, panic faces from here, closed, path tags)``."""

    number: int
    name: str
    facts: str
    here: str
    paths: tuple[tuple[int, tuple[int, ...], bool, tuple[str, ...]], ...]
    fg: bool
    enemy: bool


def map_rows(state: GameState) -> list[MapRow]:
    """An adjacency view of the board, one row per location, from the board's paths."""
    g = state.game
    board = g.board
    killers: dict[int, list[str]] = {}
    for ks in state.killers:
        if ks.alive and 0 <= ks.loc < board.n:
            killers.setdefault(ks.loc, []).append((ks.label or _name(g.ruleset.killers, ks.id))
                                                  + _statuses(ks.status))
    minions: dict[int, Counter] = {}
    for m in state.minions:
        if 0 <= m.loc < board.n:
            minions.setdefault(m.loc, Counter())[_name(g.minions, m.kind) + _statuses(m.status)] += 1
    tokens: dict[int, Counter] = {}
    for what, loc in _board_tokens(state):
        tokens.setdefault(loc, Counter())[what] += 1
    riding: dict[int, list[str]] = {}  # pieces that travel with her, where they stand
    for c, at in zip(g.conveyances, state.conveyances):
        riding.setdefault(at, []).append(c.name)
    rows = []
    for i in range(board.n):
        facts = []
        if i in board.exits:
            facts.append("exit" if i not in board.exit_when or _exit_now(state, i) else "exit (not now)")
        if i in board.pile_of:
            k = board.pile_of[i]
            left = len(state.piles[k]) if k < len(state.piles) else 0
            facts.append(f"search {left}")
        facts += sorted(board.tags[i])
        here = []
        if state.fg_loc == i:
            here.append("YOU")
        here += killers.get(i, [])
        for name, k in minions.get(i, Counter()).items():
            here.append(f"{k} {name}")
        if state.victims[i]:
            here.append(_plural(state.victims[i], "victim"))
        here += riding.get(i, [])
        for name, k in tokens.get(i, Counter()).items():
            here.append(f"{name}" + (f" x{k}" if k > 1 else ""))
        paths = []
        for k, (a, b, ap, bp, tags, closed) in enumerate(board.paths):
            if i not in (a, b):
                continue
            other, faces = (b, ap) if a == i else (a, bp)
            shut = (closed and k not in state.opened) or (k, "fg") in state.barred
            paths.append((other + 1, tuple(faces), bool(shut), tuple(sorted(tags))))
        rows.append(MapRow(i + 1, board.names[i], " ".join(facts), ", ".join(here), tuple(sorted(paths)),
                           state.fg_loc == i, i in killers or i in minions))
    return rows


def _faces(faces: tuple[int, ...]) -> str:
    if not faces:
        return ""
    fs = sorted(faces)
    if len(fs) >= 3 and fs == list(range(fs[0], fs[-1] + 1)):
        return f"{fs[0]}-{fs[-1]}"
    return ",".join(map(str, fs))


def path_text(path: tuple[int, tuple[int, ...], bool, tuple[str, ...]], tag_marks: dict[str, str]) -> str:
    """A path as the map shows it: ``4(3-4)``, closed ``10(6)✗``, a tagged path marked."""
    number, faces, closed, tags = path
    text = f"{number}" + (f"({_faces(faces)})" if faces else "")
    text += "".join(tag_marks.get(t, "") for t in tags)
    return text + ("✗" if closed else "")


def tag_marks(state: GameState) -> dict[str, str]:
    """A mark per path tag of the scenario (*, +, ^, …), for the map and its legend."""
    board = state.game.board
    tags = sorted({t for p in board.paths for t in p[4]})
    marks = "*+^~=#"
    return {t: marks[i % len(marks)] * (1 + i // len(marks)) for i, t in enumerate(tags)}


def map_legend(state: GameState) -> str:
    marks = tag_marks(state)
    parts = ["N(faces): a path to location N, taken on those panic faces"]
    parts += [f"{m} {t} path" for t, m in marks.items()]
    if any(p[5] for p in state.game.board.paths):
        parts.append("✗ closed")
    return " · ".join(parts)


def map_text(state: GameState) -> str:
    """The map as plain text (the ``map`` command off a terminal)."""
    marks = tag_marks(state)
    rows = map_rows(state)
    w = max(len(r.name) for r in rows)
    lines = [f"Map of {state.game.scenario.name} ({map_legend(state)}):"]
    for r in rows:
        paths = " ".join(path_text(p, marks) for p in r.paths)
        facts = f" [{r.facts}]" if r.facts else ""
        lines.append(f"  {r.number:>2} {r.name:<{w}}{facts}  → {paths}" + (f"  · {r.here}" if r.here else ""))
    return "\n".join(lines)


# --- cards and items ----------------------------------------------------------------------------
def _card_body(decl: Any, names: Names) -> list[str]:
    """The lines of a card's rendered text after its name and kind line."""
    return render(decl, names).splitlines()[2:]


def hand_rows(state: GameState) -> list[tuple[str, int, list[str]]]:
    """The hand: ``(name, copies in hand, text lines)`` per card, in hand order."""
    g = state.game
    names = _names(state)
    out: list[tuple[str, int, list[str]]] = []
    for cid, k in Counter(state.hand).items():
        card = g.cards.get(cid)
        if card is None:
            out.append((cid, k, []))
            continue
        out.append((card.name, k, _card_body(card, names)))
    return out


def item_rows(state: GameState) -> list[tuple[str, str, str]]:
    """Items held: ``(name, where, text)``; where is "in hand" or "backpack", with uses left."""
    g = state.game
    names = _names(state)
    out = []
    for where, held in (("in hand", state.held), ("backpack", state.pack)):
        for h in held:
            item = g.items.get(h.id)
            if item is None:
                out.append((h.id, where, ""))
                continue
            lines = render(item, names).splitlines()
            head = lines[0].split(": ", 1)[1] if ": " in lines[0] else ""
            text = " ".join([head, *(ln.strip() for ln in lines[1:])]).strip()
            left = f", {_plural(h.uses, 'use')} left" if h.uses else ", used up" if item.uses else ""  # S3.4
            out.append((item.name, where + left, text))
    return out


def _uses(g: Any, h: Any) -> str:
    """An item's uses left as the screen shows them: "(2 uses)", "(used up)" for an ingredient kept
    with none (S3.4), nothing for an item without uses."""
    item = g.items.get(h.id)
    if h.uses:
        return f" ({h.uses} uses)"
    return " (used up)" if item is not None and item.uses else ""


def option_note(state: GameState, option: Option) -> str:
    """What an option does, in a few words, from the content (the card, slot, item, place)."""
    g = state.game
    names = _names(state)
    verb, _, arg = option.key.partition(":")
    try:
        if verb in ("buy", "react", "reroll") and arg in g.cards:
            return _short(" │ ".join(_card_body(g.cards[arg], names)))
        if verb == "slot" and arg.isdigit() and 1 <= int(arg) <= len(g.fg.slots):
            return render_effects(g.fg.slots[int(arg) - 1], names)
        if verb in ("use", "keep") and arg in g.items:
            item = g.items[arg]
            if verb == "use" and item.use is not None:
                return render_effects(item.use.effects, names)
            return " ".join(ln.strip() for ln in render(item, names).splitlines()).split(": ", 1)[-1]
        if verb == "action":
            act = next((a for a in g.actions if a.id == arg), None)
            if act is not None:
                return render_effects(act.effects, names)
        if verb in ("move", "place", "target") and arg in g.board.index:
            row = map_rows(state)[g.board.index[arg]]
            return ", ".join(x for x in (row.facts, row.here) if x)
    except (KeyError, IndexError, TypeError):
        return ""
    return ""


# --- commands: rules and cards ------------------------------------------------------------------
def rule_text(rule_id: str) -> str:
    """The text of a rule (or a family's rule list) by its id, from the rules reference (docs/rules.md)."""
    from .rules_reference import Rule, RulesPageError, load_reference

    try:
        ref = load_reference()
    except (OSError, RulesPageError) as err:
        return f"the rules reference cannot be read: {err}"
    item = ref.find(rule_id)
    if item is None:
        near = ref.suggestions(rule_id)
        hint = f" (did you mean {' or '.join(near)}?)" if near else " (rule ids look like C9.4)"
        return f"'{rule_id.strip()}' is not a rule id{hint}"
    if isinstance(item, Rule):
        return f"{item.id} {item.title}{' (open)' if item.open else ''}\n{item.text}"
    return f"{item.id} {item.title}\n" + "\n".join(f"  {r} {ref.rules[r].title}" for r in item.rules)


def _lookup_table(state: GameState) -> list[tuple[str, Any]]:
    """(name or id, declaration) of everything this game's ``card`` command can show."""
    g = state.game
    decls: list[Any] = [*g.cards.values(), *g.items.values(), *g.terror.values(),
                        *g.events.values(), *g.minions.values(), *g.deck_cards.values(),
                        g.fg, g.killer, g.scenario, g.player_board]
    if state.dark_revealed and state.dark_power:
        decls.append(g.dark_powers[state.dark_power])
    if state.finale_revealed and state.finale:
        decls.append(g.finales[state.finale])
    out = []
    for d in decls:
        for label in {getattr(d, "id", ""), getattr(d, "name", "")}:
            if label:
                out.append((label, d))
    return out


def card_text(state: GameState, query: str) -> str:
    """A card, item or other declaration of this game in full, by id or a prefix of its name."""
    q = " ".join(query.lower().split())
    if not q:
        return "card needs a name: 'card walk'"
    table = _lookup_table(state)
    exact = [d for label, d in table if label.lower() == q]
    found = exact or [d for label, d in table if label.lower().startswith(q)]
    found = list({id(d): d for d in found}.values())
    if not found:
        import difflib
        close = difflib.get_close_matches(q, [label.lower() for label, _ in table], n=3)
        return f"no card or item named '{query}'" + (f" (did you mean {', '.join(close)}?)" if close else "")
    if len(found) > 1:
        return f"'{query}' could be: " + ", ".join(sorted({getattr(d, 'name', d.id) for d in found}))
    return render(found[0], _names(state))


# --- stable keys ----------------------------------------------------------------------------------
class MenuEntry(NamedTuple):
    key: str  # what the player types: a number kept while the menu changes
    option: Option
    note: str  # what the option does, when the content says (a card's text, a slot's reward…)


class Keys:
    """Numbers for options that never change in a game: the same action, the same number.

    Each kind of choice (the action menu, the buying menu…) numbers an option the first time it is
    offered, with the next number of that kind, and keeps the number for the whole game ("end the
    Action phase" is the same number every round), so a number typed from habit never picks
    something else. The numbers depend only on the decisions of the game's history: ``replay``
    gives a loaded game (whose history is replayed) the numbers it had when it was saved, and
    ``forget_after`` takes back the numbers first given after an undone decision."""

    def __init__(self) -> None:
        self._menus: dict[str, dict[str, int]] = {}
        self._given: list[tuple[int, str, str]] = []  # (decision, kind, option key) in the order given

    def menu(self, state: GameState, notes: bool = True, at: int = -1) -> list[MenuEntry]:
        """The numbered menu of ``state``'s choice; ``at``: the decision's place in the history."""
        choice = state.choice
        if choice is None:
            return []
        mem = self._menus.setdefault(choice.kind, {})
        nxt = max(mem.values(), default=0) + 1
        for o in choice.options:
            if o.key not in mem:
                mem[o.key] = nxt
                self._given.append((at, choice.kind, o.key))
                nxt += 1
        entries = [MenuEntry(str(mem[o.key]), o, option_note(state, o) if notes else "") for o in choice.options]
        return sorted(entries, key=lambda e: int(e.key))

    def replay(self, states: Sequence[GameState]) -> None:
        """Number the decisions of a history in order (a loaded game: the numbers it was saved with)."""
        for i, st in enumerate(states):
            self.menu(st, notes=False, at=i)

    def forget_after(self, at: int) -> None:
        """Undo: the numbers first given at decisions after ``at`` are free again."""
        while self._given and self._given[-1][0] > at:
            _at, kind, key = self._given.pop()
            self._menus[kind].pop(key, None)


def pick(text: str, menu: Sequence[MenuEntry]) -> tuple[Optional[str], str]:
    """The option key that ``text`` names in ``menu`` (its number, its engine key, or a prefix of
    its words), or None and why not."""
    t = " ".join(text.lower().split())
    if not t:
        return None, ""
    for e in menu:
        if t == e.key or t == e.option.key.lower():
            return e.option.key, ""
    if t.isdigit():
        return None, f"no option {t} here: type one of {', '.join(e.key for e in menu)}"
    words = t.split()
    scored: list[tuple[int, MenuEntry]] = []
    for e in menu:
        label = e.option.label.lower().split()
        for start in range(len(label) - len(words) + 1):
            if all(label[start + j].startswith(w) for j, w in enumerate(words)):
                scored.append((start, e))
                break
    if not scored:
        return None, f"no option matches '{text}': type its number, or 'help'"
    best = min(s for s, _ in scored)
    top = [e for s, e in scored if s == best]
    if len(top) == 1:
        return top[0].option.key, ""
    shown = ", ".join(f"{e.key} {e.option.label}" for e in top[:6])
    return None, f"'{text}' could be {shown}: type more of it, or the number"


def _exit_now(state: GameState, i: int) -> bool:
    """Whether a location that is an exit only while a condition holds is one now."""
    try:
        from . import engine
        from .engine.places import is_exit
        return is_exit(engine.work(state), i)
    except Exception:  # a state the engine cannot read (a front end's own): show it as printed
        return True


# --- the Killer phase, step by step ---------------------------------------------------------------
def _enemy_tables(state: GameState):
    """The distance and next-step tables enemies move by (paths they may not cross left out)."""
    try:
        from . import engine
        return engine.enemy_tables(engine.work(state))
    except Exception:  # a display aid only: fall back to every open path
        return state.game.board.tables(state.opened)


def targeting_note(event: Event, before: GameState, known: Iterable[int]) -> list[str]:
    """Why an enemy goes where it goes, before it moves: the target, the reason (explain's
    targeting table) and the path it will take from its location (found among ``known``
    locations of enemies, by the distances the event records)."""
    from . import explain

    g = before.game
    table = explain.targeting(event, g)
    if table is None:
        return []
    lines = [ln.strip() for ln in explain.table_lines(table)]
    target = table.get("target")
    board = g.board
    if target is None or target not in board.index:
        return lines
    _adj, dist, nxt, _panic = _enemy_tables(before)
    cands = [(board.index[c["location"]], c["distance"]) for c in table["candidates"] if c["location"] in board.index]
    starts = {loc for loc in known if 0 <= loc < board.n and all(dist[loc][c] == d for c, d in cands)}
    if len(starts) != 1:
        return lines
    loc = starts.pop()
    goal = board.index[target]
    path = [loc]
    while path[-1] != goal and len(path) <= board.n:
        hop = nxt[path[-1]][goal]
        if hop < 0:
            break
        path.append(hop)
    if len(path) > 1:
        lines.append("path: " + " → ".join(board.names[p] for p in path))
    return lines


class Step(NamedTuple):
    """A part of a transition shown at once: its events, and for a targeting event the note
    shown before it resolves (the step then waits before its remaining events)."""

    events: list[Event]
    note: list[str]


_MOVED_TO = re.compile(r"\b(?:moves|wanders|is moved) to ([^,\[]+?)(?:,| \[|$)")


def killer_steps(events: Sequence[Event], before: GameState, after: Optional[GameState] = None) -> list[Step]:
    """Split a transition's events into the steps the screen pauses between: a step starts at
    each phase, killer action, terror card and targeting; a targeting step carries its note."""
    g = before.game
    board = g.board
    known = {k.loc for k in before.killers} | {m.loc for m in before.minions}
    if after is not None:
        known |= {k.loc for k in after.killers} | {m.loc for m in after.minions}
    steps: list[Step] = []
    cur: list[Event] = []
    note: list[str] = []
    for e in events:
        if e.kind in ("phase", "killer-action", "terror", "target") and cur:
            steps.append(Step(cur, note))
            cur, note = [], []
        if e.kind == "target":
            note = targeting_note(e, before, known)
        if e.kind == "enemy-move":  # the location it names is where an enemy now stands
            m = _MOVED_TO.search(e.text)
            if m and m.group(1) in board.names:
                known.add(board.names.index(m.group(1)))
        cur.append(e)
    if cur:
        steps.append(Step(cur, note))
    return steps


# --- the screen (rich) --------------------------------------------------------------------------
class Parts(NamedTuple):
    """What one screen shows; ``render_screen`` lays it out."""

    state: GameState
    title: str
    events: list[str]
    menu: list[MenuEntry]
    notice: str


def _rich():
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text
    return Group, Table, Text


STYLE = {"fg": "bold green", "enemy": "bold red", "victim": "yellow", "head": "bold", "dim": "dim",
         "key": "bold cyan", "note": "dim", "event": "", "phase": "bold magenta", "warn": "bold yellow"}


def _head(text: str, width: int):
    _G, _T, Text = _rich()
    t = Text(f"── {text} ", style=STYLE["head"])
    t.append("─" * max(0, width - len(t.plain)), style=STYLE["dim"])
    return t


def _map_table(state: GameState, full: bool):
    """One row per location: number, name, facts, its paths (with panic faces), what stands there."""
    _G, Table, Text = _rich()
    marks = tag_marks(state)
    table = Table(box=None, padding=(0, 1), show_header=False, pad_edge=False)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(no_wrap=True, overflow="ellipsis", max_width=None if full else 20)
    table.add_column(no_wrap=True, overflow="ellipsis", max_width=None if full else 10)
    table.add_column(no_wrap=not full, overflow="fold" if full else "ellipsis", ratio=1)
    table.add_column(no_wrap=not full, overflow="fold" if full else "ellipsis", ratio=1)
    for r in map_rows(state):
        style = STYLE["fg"] if r.fg else (STYLE["enemy"] if r.enemy else "")
        here = Text(r.here, style=style or STYLE["victim"])
        paths = Text("→ " + " ".join(path_text(p, marks) for p in r.paths), style=STYLE["dim"])
        table.add_row(Text(str(r.number), style=STYLE["dim"]), Text(r.name, style=style), Text(r.facts),
                      paths, here)
    return table


def _short_here(state: GameState, r: MapRow) -> str:
    """What stands at a location in a few letters: YOU, K (killer), 2v (victims), 3m (minions), 1t (tokens)."""
    i = r.number - 1
    parts = []
    if state.fg_loc == i:
        parts.append("YOU")
    k = sum(1 for ks in state.killers if ks.alive and ks.loc == i)
    if k:
        parts.append("K" if k == 1 else f"{k}K")
    m = sum(1 for x in state.minions if x.loc == i)
    if m:
        parts.append(f"{m}m")
    if state.victims[i]:
        parts.append(f"{state.victims[i]}v")
    t = sum(1 for _tok, _kind, loc in (*state.tokens, *state.tokens_down) if loc == i)
    if t:
        parts.append(f"{t}t")
    c = sum(1 for at in state.conveyances if at == i)
    if c:
        parts.append(f"{c}c")
    return " ".join(parts)


def _map_grid(state: GameState, width: int, occupied_only: bool = False):
    """The map folded into columns of cells: number, name, what stands there, neighbours."""
    _G, Table, Text = _rich()
    marks = tag_marks(state)
    rows = [r for r in map_rows(state) if r.here or not occupied_only]
    cells = []
    for r in rows:
        style = STYLE["fg"] if r.fg else (STYLE["enemy"] if r.enemy else "")
        t = Text(f"{r.number:>2} ", style=STYLE["dim"])
        t.append(r.name if len(r.name) <= 17 else r.name[:16] + "…", style=style)
        here = _short_here(state, r)
        if here:
            t.append(" " + here, style=style or STYLE["victim"])
        if not occupied_only:
            t.append(" →" + " ".join(f"{p[0]}" + "".join(marks.get(x, "") for x in p[3]) + ("✗" if p[2] else "")
                                     for p in r.paths), style=STYLE["dim"])
        cells.append(t)
    cols = 2 if width >= 72 else 1
    if occupied_only:
        cols = max(1, width // (max((len(c.plain) for c in cells), default=10) + 2))
    nrows = -(-len(cells) // cols)
    grid = Table.grid(padding=(0, 2), pad_edge=False)
    for _ in range(cols):
        grid.add_column(no_wrap=True, overflow="ellipsis", ratio=1)
    for i in range(nrows):
        grid.add_row(*[cells[c * nrows + i] if c * nrows + i < len(cells) else Text("") for c in range(cols)])
    legend = ["YOU you"] + [word for word, there in (("K killer", state.killers), ("v victims", any(state.victims)),
                                                     ("m minions", state.minions),
                                                     ("t tokens", state.tokens or state.tokens_down),
                                                     ("c " + ", ".join(c.name for c in state.game.conveyances),
                                                      state.conveyances)) if there]
    if not occupied_only:
        legend += [f"{m} {t}" for t, m in marks.items()] + (["✗ closed"] if any(
            p[5] for p in state.game.board.paths) else [])
    legend.append("'map': paths and panic faces")
    return [grid, Text(" · ".join(legend), style=STYLE["dim"], no_wrap=True, overflow="ellipsis")]


def _hand_lines(state: GameState, detail: str) -> list:
    """The hand and items: ``full`` card text, one ``line`` per card, two cards a line in their
    short form (``pairs``), or only the ``names``."""
    _G, Table, Text = _rich()
    out = []
    rows = hand_rows(state)
    if detail == "pairs" and rows:
        grid = Table.grid(padding=(0, 2, 0, 0), pad_edge=False, expand=True)
        grid.add_column(no_wrap=True, overflow="ellipsis", ratio=1)
        grid.add_column(no_wrap=True, overflow="ellipsis", ratio=1)
        cells = []
        for name, k, body in rows:
            t = Text(name + (f" x{k}" if k > 1 else ""), style="bold")
            tiers = _short(" │ ".join(body)).split(" │ ")
            kept = [x for x in tiers if not x.startswith("0: ")] or tiers  # a failure costs the same mostly
            t.append("  " + " │ ".join(kept), style=STYLE["note"])
            cells.append(t)
        for i in range(0, len(cells), 2):
            grid.add_row(cells[i], cells[i + 1] if i + 1 < len(cells) else Text(""))
        out.append(grid)
    elif detail == "names" or detail == "pairs":
        t = Text("Hand: ", style="bold")
        t.append(", ".join(f"{n}{f' x{k}' if k > 1 else ''}" for n, k, _ in rows) or "no cards")
        out.append(t)
    else:
        if not rows:
            out.append(Text("Hand: no cards", style=STYLE["dim"]))
        for name, k, body in rows:
            head = Text(name + (f" x{k}" if k > 1 else ""), style="bold")
            if detail == "full":
                out.append(head)
                out.extend(Text("    " + ln) for ln in body)
            else:
                head.append("  " + _short(" │ ".join(body)), style=STYLE["note"])
                head.no_wrap = True
                head.overflow = "ellipsis"
                out.append(head)
    items = item_rows(state)
    if items and detail in ("names", "pairs"):
        t = Text("Items: ", style="bold")
        t.append(", ".join(f"{name} ({where})" for name, where, _ in items))
        t.no_wrap = True
        t.overflow = "ellipsis"
        out.append(t)
    elif items:
        for name, where, text in items:
            t = Text(f"{name} ({where})", style="bold")
            t.append("  " + (text if detail == "full" else _short(text)), style=STYLE["note"])
            t.no_wrap = detail != "full"
            t.overflow = "ellipsis"
            out.append(t)
    elif detail == "full":
        out.append(Text("Items: none", style=STYLE["dim"]))
    return out


def _menu_block(parts: Parts, mode: str, width: int) -> list:
    """The prompt and options: one per line with what each does (``notes``), or in columns
    (``cols``; ``tight`` cuts long labels to fit more columns)."""
    _G, Table, Text = _rich()
    choice = parts.state.choice
    if choice is None or not parts.menu:
        return []
    out: list = [Text(choice.prompt if choice.prompt.endswith(("?", ":")) else choice.prompt + ":", style="bold")]
    if mode == "notes" and not any(e.note for e in parts.menu):
        mode = "cols"  # nothing to say beside the options: columns take fewer lines
    kw = max(len(e.key) for e in parts.menu)
    cells = []
    for e in parts.menu:
        t = Text(f"  {e.key:>{kw}} ", style=STYLE["key"])
        t.append(e.option.label)
        if e.note and mode == "notes":
            t.append("  " + e.note, style=STYLE["note"])
        elif e.note and len(_short(e.note)) <= SHORT_NOTE:  # in columns, a note short enough (a slot's reward)
            t.append(" " + _short(e.note), style=STYLE["note"])
        t.no_wrap = True
        t.overflow = "ellipsis"
        cells.append(t)
    if mode == "notes":
        out.extend(cells)
        return out
    cap = 26 if mode == "tight" else width
    gap = 2
    room = width
    ncols, widths = 1, [min(room, max(len(t.plain) for t in cells))]
    for n in range(min(len(cells), 6), 1, -1):  # the most columns whose widest cells fit side by side
        rows = -(-len(cells) // n)
        ws = [min(cap, max(len(t.plain) for t in cells[c * rows:(c + 1) * rows])) for c in range(n)
              if cells[c * rows:(c + 1) * rows]]
        if sum(ws) + gap * (len(ws) - 1) <= room:
            ncols, widths = len(ws), ws
            break
    nrows = -(-len(cells) // ncols)
    grid = Table.grid(padding=(0, gap, 0, 0), pad_edge=False)
    for w in widths:
        grid.add_column(no_wrap=True, overflow="ellipsis", width=w)
    for r in range(nrows):
        grid.add_row(*[cells[c * nrows + r] if c * nrows + r < len(cells) else Text("") for c in range(ncols)])
    out.append(grid)
    return out


# The layouts tried from the fullest down until one fits the terminal's height: the map (full,
# rows, grid, occupied locations only, or a line), the hand (full text, a line per card, two cards
# a line in short form, names: the cards' text is kept before the map's detail), how many of the
# last events, and the options (one per line with notes, or columns).
LAYOUTS = (
    ("full", "full", 12, "notes"),
    ("rows", "line", 6, "notes"),
    ("rows", "line", 3, "cols"),
    ("grid", "line", 3, "notes"),
    ("grid", "line", 2, "cols"),
    ("grid", "line", 1, "cols"),
    ("grid", "pairs", 1, "cols"),
    ("occupied", "line", 1, "cols"),
    ("occupied", "pairs", 1, "cols"),
    ("occupied", "pairs", 0, "tight"),
    ("line", "line", 0, "tight"),
    ("line", "pairs", 0, "tight"),
    ("line", "names", 0, "tight"),
)
SHORT_NOTE = 24  # a note at most this long stays beside its option in columns


def render_screen(parts: Parts, width: int, layout: int = 0):
    """The screen in one of the ``LAYOUTS``, as a rich renderable."""
    Group, _T, Text = _rich()
    map_mode, hand_mode, keep, menu_mode = LAYOUTS[layout]
    state = parts.state
    g = state.game
    full = map_mode == "full"
    rows: list = []
    names, sep, seed = parts.title.rpartition(" · seed ")
    head = Text(f"Round {state.round} · {state.phase.capitalize()} phase" + (f" · seed {seed}" if sep else ""),
                style=STYLE["phase"])
    head.append("  " + (names if sep else parts.title), style=STYLE["dim"])
    head.no_wrap = True
    head.overflow = "ellipsis"
    rows.append(head)
    for i, line in enumerate(tracks_lines(state, width)):
        rows.append(Text(line, style=STYLE["fg"] if i == 0 else (STYLE["enemy"] if i == 1 else "")))
    if full:
        rows.append(_head(f"Map of {g.scenario.name} · {map_legend(state)}", width))
    if map_mode in ("full", "rows"):
        rows.append(_map_table(state, full))
        if not full:
            rows.append(Text(map_legend(state), style=STYLE["dim"], no_wrap=True, overflow="ellipsis"))
    elif map_mode == "line":
        rows.append(Text(f"Map: you are at {_where(state, state.fg_loc)} ('map' shows it)", style=STYLE["dim"],
                         no_wrap=True, overflow="ellipsis"))
    else:
        rows.extend(_map_grid(state, width, occupied_only=map_mode == "occupied"))
    if full:
        rows.append(_head("Hand and items", width))
    rows.extend(_hand_lines(state, hand_mode))
    if parts.events and keep:
        if full:
            rows.append(_head("What happened", width))
        shown = parts.events[-keep:]
        if len(parts.events) > keep > 2:
            rows.append(Text(f"  … {len(parts.events) - keep} more above ('log' shows them)", style=STYLE["dim"]))
        for line in shown:
            rows.append(Text(line, style=STYLE["phase"] if not line.startswith(" ") else STYLE["event"],
                             no_wrap=not full, overflow="ellipsis"))
    if parts.notice:
        rows.append(Text(parts.notice, style=STYLE["warn"]))
    if state.over:
        rows.append(Text(_result_line(state), style="bold"))
    else:
        rows.extend(_menu_block(parts, menu_mode, width))
    return Group(*rows)


def fit_screen(console, parts: Parts, height: int):
    """The fullest of the ``LAYOUTS`` that fits ``height`` lines (the tightest if none does)."""
    width = console.size.width
    best = None
    for layout in range(len(LAYOUTS)):
        best = render_screen(parts, width, layout)
        lines = console.render_lines(best, console.options.update(width=width), pad=False, new_lines=False)
        if len(lines) <= height:
            return best
    return best


def _result_line(state: GameState) -> str:
    who = "the Final Girl wins" if state.result == "fg" else "the killer wins"
    return f"result: {who} ({state.end_reason}) in round {state.round}"


def screen_text(parts: Parts, width: int = 80, height: int = 24) -> str:
    """The screen as plain text at a fixed size, without colour (snapshots, tests)."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, height=height, color_system=None, force_terminal=False,
                      no_color=True, legacy_windows=False, _environ={})
    console.print(fit_screen(console, parts, height - 1))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())


# --- the interactive loop -----------------------------------------------------------------------
class LineEditor:
    """The prompt as a shell's, on a terminal: line editing and history (Python's readline, in the
    standard library on POSIX), and Tab completing the words of the options shown and the commands.
    Nothing is done off a terminal, or where readline is missing (the plain ``input``)."""

    def __init__(self) -> None:
        self.words: list[str] = list(COMMAND_WORDS)
        self.readline: Any = None
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return
        try:
            import readline
        except ImportError:  # pragma: no cover - (no readline: Windows)
            return
        self.readline = readline
        for setting in ("set enable-bracketed-paste off",  # no escape codes around the prompt
                        "tab: complete"):
            try:
                readline.parse_and_bind(setting)
            except Exception:  # pragma: no cover - (libedit reads other settings)
                pass
        readline.set_completer_delims(" \t")
        readline.set_completer(self.complete)

    def menu(self, menu: Sequence[MenuEntry]) -> None:
        """The words Tab completes: those of the options' labels, then the commands'."""
        seen: dict[str, None] = {}
        for e in menu:
            for w in e.option.label.lower().split():
                w = w.strip("(),.:;'\"")
                if len(w) > 1:
                    seen[w] = None
        self.words = [*seen, *COMMAND_WORDS]

    def complete(self, text: str, state: int) -> Optional[str]:
        low = text.lower()
        found = [w for w in self.words if w.startswith(low)]
        return found[state] if state < len(found) else None


class View:
    """Where a game is shown: ``Plain`` (the text log) or ``Terminal`` (the screen)."""

    def __init__(self, out: TextIO, explain: bool):
        self.out = out
        self.explain = explain
        self.editor = LineEditor()

    def event_lines(self, events: Sequence[Event], game: Any) -> list[str]:
        from . import explain

        def line(e: Event) -> str:
            return e.render() if e.kind == "phase" else "  " + e.render()

        return explain.event_lines(list(events), game, line) if self.explain else [line(e) for e in events]

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    # what each view does at the points of a game (Plain and Terminal below)
    def start(self, state: GameState, title: str, events: Sequence[Event]) -> None:
        raise NotImplementedError

    def events(self, state: GameState, events: Sequence[Event], before: Optional[GameState]) -> None:
        raise NotImplementedError

    def decision(self, state: GameState, menu: list[MenuEntry], notice: str) -> None:
        raise NotImplementedError

    def read(self, menu: list[MenuEntry]) -> Optional[str]:
        raise NotImplementedError

    def show(self, text: str) -> None:
        raise NotImplementedError

    def finish(self, state: GameState) -> None:
        raise NotImplementedError

    def can_ask(self) -> bool:
        """A person answers at a terminal (not piped answers): questions may be asked."""
        return sys.stdin.isatty()

    def ask(self, prompt: str) -> Optional[str]:
        try:
            return input(prompt)
        except EOFError:
            return None


class Plain(View):
    """The plain text log: events as lines, the status block and numbered options at each choice."""

    def start(self, state: GameState, title: str, events: Sequence[Event]) -> None:
        self.say(title)
        self.say("Type an option's number or name, 'help' for the commands, 'u' to undo, 'q' to quit.")
        self.events(state, events, None)

    def events(self, state: GameState, events: Sequence[Event], before: Optional[GameState]) -> None:
        for line in self.event_lines(events, state.game):
            self.say(line)

    def decision(self, state: GameState, menu: list[MenuEntry], notice: str) -> None:
        if notice:
            self.say(notice)
        self.say()
        self.say(board_summary(state))
        if state.choice is not None:
            self.say(choice_text(state.choice, menu))

    def read(self, menu: list[MenuEntry]) -> Optional[str]:
        self.editor.menu(menu)
        keys = [int(e.key) for e in menu]
        span = f"{min(keys)}-{max(keys)}" if keys == list(range(min(keys), max(keys) + 1)) else \
            ",".join(map(str, keys))
        try:
            line = input(f"[{span}, ?, u, q] > ")
        except EOFError:
            return None
        if not sys.stdin.isatty():  # piped answers: echo them so the transcript reads like a session
            self.say(line)
        return line

    def show(self, text: str) -> None:
        self.say(text)

    def finish(self, state: GameState) -> None:
        self.say(_result_line(state))


PAUSE_GO_ON = "  ▸ Enter: go on "
PAUSE_MOVE = "  ▸ Enter: the enemy moves "


class Terminal(View):
    """The screen on a terminal: redrawn at each decision, the Killer phase step by step."""

    def __init__(self, out: TextIO, explain: bool, color: bool, title: str, size: Optional[tuple[int, int]] = None):
        super().__init__(out, explain)
        from rich.console import Console

        self.console = Console(file=out, force_terminal=True, no_color=not color, highlight=False,
                               color_system="auto" if color else None, emoji=False,
                               width=size[0] if size else None, height=size[1] if size else None)
        self.title = title
        self.recent: list[str] = []  # what happened since the last decision (this round's log)
        self.round_log: list[str] = []

    def start(self, state: GameState, title: str, events: Sequence[Event]) -> None:
        self.recent = self.event_lines(events, state.game)
        self.round_log = list(self.recent)

    def _pause(self, prompt: str) -> bool:
        try:
            input(prompt)
        except EOFError:
            return False
        return True

    def events(self, state: GameState, events: Sequence[Event], before: Optional[GameState]) -> None:
        lines = self.event_lines(events, state.game)
        if any(e.kind == "phase" and e.text.startswith("round ") for e in events):
            self.round_log = []
        self.round_log.extend(lines)
        self.recent = lines
        if before is None or not any(e.kind in ("target", "terror", "killer-action") for e in events):
            return
        from rich.text import Text

        def put(evs: Sequence[Event]) -> None:
            for line in self.event_lines(evs, state.game):
                self.console.print(Text(line, style=STYLE["phase"] if not line.startswith(" ") else ""))

        self.console.print()
        for step in killer_steps(events, before, state):
            if step.note:  # a target: why, and the path, before the enemy moves
                put(step.events[:1])
                for ln in step.note:
                    self.console.print(Text("      " + ln, style=STYLE["warn"]))
                if not self._pause(PAUSE_MOVE):
                    return
                put(step.events[1:])
            else:
                put(step.events)
                if step.events[0].kind in ("killer-action", "terror") and not self._pause(PAUSE_GO_ON):
                    return

    def decision(self, state: GameState, menu: list[MenuEntry], notice: str) -> None:
        parts = Parts(state, self.title, self.recent, menu, notice)
        self.console.clear()
        height = self.console.size.height - 1
        self.console.print(fit_screen(self.console, parts, height))

    def read(self, menu: list[MenuEntry]) -> Optional[str]:
        self.editor.menu(menu)
        try:
            return input("> ")
        except EOFError:
            return None

    def show(self, text: str) -> None:
        from rich.text import Text

        self.console.print(Text(text))

    def finish(self, state: GameState) -> None:
        parts = Parts(state, self.title, self.recent, [], "")
        self.console.clear()
        self.console.print(fit_screen(self.console, parts, self.console.size.height - 1))


def _map_or_hand(state: GameState, what: str) -> str:
    if what == "map":
        return map_text(state)
    lines = ["Hand:"]
    for name, k, body in hand_rows(state):
        lines.append(f"  {name}" + (f" x{k}" if k > 1 else ""))
        lines += [f"    {ln}" for ln in body]
    items = item_rows(state)
    lines.append("Items:" + ("" if items else " none"))
    lines += [f"  {name} ({where}): {text}" for name, where, text in items]
    return "\n".join(lines)


def play(session, view: View, save: Callable[[Optional[str]], str], title: str, notice: str = "") -> int:
    """The interactive game: show, read, answer, until the game ends, the input ends or the player
    quits. ``save(path)`` writes the game (None: the --save path) and returns a note; ``notice`` is
    shown with the first decision."""
    keys = Keys()
    keys.replay([st for st, _key in session.history[:-1]])  # a loaded game: its numbers as saved
    view.start(session.state, title, session.events)
    show = True
    menu: list[MenuEntry] = []
    while not session.over:
        state = session.state
        if show:
            menu = keys.menu(state, notes=isinstance(view, Terminal), at=len(session.history) - 1)
            view.decision(state, menu, notice)
            notice = ""
            show = False
        raw = view.read(menu)
        if raw is None:
            view.say("\nend of input: game left unfinished")
            note = save(None)
            if note:
                view.say(note)
            return 0
        text = raw.strip()
        word, _, rest = text.partition(" ")
        low = word.lower()
        if not text:
            show = isinstance(view, Terminal)
            continue
        if low in ("q", "quit", "exit") and not rest:
            note = save(None)  # --save FILE: saved there
            while not note and view.can_ask():  # else the game is offered to be saved (a file name, or Enter)
                path = (view.ask(ASK_SAVE) or "").strip()
                if not path:
                    break
                note = save(path)
                if note.startswith("cannot"):
                    view.show(note)
                    note = ""
            view.say("game left unfinished")
            if note:
                view.say(note)
            return 0
        if low in ("?", "h", "help") and not rest:
            view.show(HELP)
            continue
        if low in ("status", "look") and not rest:
            show = True
            continue
        if low in ("u", "undo") and not rest:
            if len(session.history) < 2:
                view.show("nothing to undo: no choice made yet")
                continue
            state = session.undo()
            keys.forget_after(len(session.history) - 1)
            notice = f"undone: back to round {state.round}, {state.phase} phase"
            if isinstance(view, Plain):
                view.say(notice)
                notice = ""
            show = True
            continue
        if low == "save":
            view.show(save(rest.strip() or None) or "no file to save to: type 'save FILE'")
            continue
        if low == "rule":
            view.show(rule_text(rest) if rest.strip() else "rule needs an id: 'rule C9.4'")
            continue
        if low == "card":
            view.show(card_text(state, rest))
            continue
        if low in ("map", "hand") and not rest:
            view.show(_map_or_hand(state, low))
            continue
        if low == "log" and not rest:
            lines = getattr(view, "round_log", None) or view.event_lines(session.events, state.game)
            view.show("\n".join(lines))
            continue
        key, why = pick(text, menu)
        if key is None:
            view.show(why)
            continue
        before = state
        try:
            events = session.apply(key)
        except RulesError as err:
            raise GameStopped(str(err)) from err
        view.events(session.state, events, before)
        show = True
    view.finish(session.state)
    note = save(None)
    if note:
        view.say(note)
    return 0


class GameStopped(Exception):
    """The engine refused to go on (a content error met in play)."""


def use_color(no_color_flag: bool, environ: Optional[dict] = None) -> bool:
    """Colours unless --no-color or NO_COLOR (any non-empty value, no-color.org) says no."""
    env = os.environ if environ is None else environ
    return not no_color_flag and not env.get("NO_COLOR")


def load_session(rs, path: str):
    """A saved game resumed at its decision point (``lastbreath.dsl.SaveError`` with the reason
    otherwise, ``OSError`` when the file cannot be read)."""
    from . import replay
    from .session import Session

    return Session.load(rs, replay.read(path))
