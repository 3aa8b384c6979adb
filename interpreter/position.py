"""Positions: a moment of a game written as a readable file, checked like content (issue #15).

A position is one ``position { … }`` block in the content language's own syntax (so it is parsed
by ``dsl.parse_text`` and its mistakes are ``file:line:col`` diagnostics with catalogue codes,
E400–E407)::

    position {
      killer KILLER-ID; scenario SCENARIO-ID; final_girl FINAL-GIRL-ID; difficulty normal
      fg at LOCATION; health 2; fear 4; time 3
      killer at LOCATION; victims at LOCATION 2
      hand walk focus weak-attack
      dice 4 1 1
      phase action
    }

The setup lines (killer, scenario, Final Girl, difficulty, …, seed) pick a fresh game, made with
``api.new_game``; every other line overrides one fact of that game, and whatever a position
leaves out keeps the fresh game's value. A position sets facts: it runs no effects (revealing a
dark power here does not run its 'when revealed'). ``phase`` says whose decision comes next: the
state is settled at the start of that step and the engine runs on from there to the first choice,
so the state returned is one that ``apply`` accepts. ``dice`` fixes the next dice rolled
(``GameState.dice``). LINES below lists every line; docs/positions.md explains them.

    state = position(rs, text, path="my.position")          # ContentError with diagnostics if bad
    state, events = start_position(rs, text, path="my.position")
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from typing import Any, Optional, Sequence

import attrs
from lastbreath.dsl import ContentError, Diagnostic, RulesError, Span, parse_text
from lastbreath.dsl.diagnostics import cap_per_file
from lastbreath.dsl.ruleset import Ruleset
from lastbreath.dsl.syntax import Atom, Block, Line

from . import engine
from .engine.items import hands_of
from .games import new_game
from .state import Event, GameState, HeldItem, KillerState, MarkedVictim, MinionState

__all__ = ["LINES", "PHASES", "Position", "check_position", "parse_position", "position", "start_position"]

MAX_DICE = 100  # forced dice in one position
MAX_COUNT = 99  # victims in a location, dead victims, a killer's health, uses, …
MAX_ROUND = 999
MAX_SEED = (1 << 63) - 1
# the phases a position may stop at; "decision" is the step at which the player is asked (the
# action menu, a purchase, rearranging items), "start" the step that begins the phase
PHASES = ("action", "planning", "killer", "panic", "upkeep")
DECISION_PHASES = ("action", "planning", "upkeep")

# every line of a position, as a reader sees it: the head and its shape (for hints and docs)
LINES: dict[str, str] = {
    "killer": "killer ID | killer at LOCATION | killer off board | killer health N | killer last_breath black [N] | "
              "killer last_breath white | killer status NAME… | killer BODY at LOCATION | killer BODY health N | "
              "killer BODY last_breath black [N]|white | killer BODY status NAME… | killer BODY aside | "
              "killer BODY defeated",
    "active": 'active BODY | active "LABEL"',
    "track": "track TRACK N",
    "slots": "slots N… | slots none",
    "scenario": "scenario ID",
    "final_girl": "final_girl ID",
    "difficulty": "difficulty SIDE",
    "legendary": "legendary",
    "tie_policy": "tie_policy harder|realistic|easier|ask",
    "forced": "forced auto|log|ask",
    "modules": "modules MODULE…",
    "seed": "seed N",
    "setup": "setup SETUP-CARD",
    "fg": "fg at LOCATION (also: fg health N, fg fear N, fg time N, fg last_breath …, fg status NAME…)",
    "health": "health N",
    "fear": "fear N",
    "time": "time N",
    "last_breath": "last_breath black [N] | last_breath white",
    "hand": "hand CARD…",
    "market": "market CARD…",
    "spent": "spent CARD…",
    "hands": "hands ITEM…",
    "backpack": "backpack ITEM…",
    "uses": "uses ITEM N",
    "rescued": "rescued N",
    "flipped": "flipped",
    "skip_action": "skip_action",
    "collected": "collected TOKEN KIND…",
    "body": 'body "LABEL" at LOCATION health N [status NAME…]',
    "minions": "minions KIND at LOCATION N [status NAME…] | minions none",
    "victims": "victims at LOCATION N | victims none",
    "victim": "victim [KIND] at LOCATION [status NAME…] | victim supply N",
    "dead": "dead N | dead this round N",
    "tokens": "tokens TOKEN KIND at LOCATION [face down] | tokens TOKEN KIND on item ITEM [copy N]|killer [BODY]|"
              "victim at LOCATION|minion KIND at LOCATION [face down] | tokens none",
    "bloodlust": "bloodlust LEVEL",
    "finale": "finale ID [revealed]",
    "dark_power": "dark_power ID [revealed]",
    "secondary": "secondary TERROR-CARD health N | secondary none",
    "terror": "terror top CARD… | terror left N",
    "events": "events top CARD… | events left N | events active CARD…",
    "pile": "pile LOCATION top ITEM… | pile LOCATION left N",
    "on_piles": "on_piles ITEM… | on_piles none",
    "deck": "deck DECK top CARD… | deck DECK left N",
    "kept": "kept DECK CARD…",
    "mode": "mode ID",
    "flags": "flags NAME…",
    "opened": "opened LOCATION -- LOCATION | opened none",
    "round": "round N",
    "dice": "dice FACE…",
    "phase": "phase action|planning|killer|panic|upkeep [start]",
    "conveyance": "conveyance ID at LOCATION | conveyance ID off board",
}
SETUP_LINES = ("killer", "scenario", "final_girl", "difficulty", "legendary", "tie_policy", "forced", "seed",
               "modules")
_SETUP_KILLER_WORDS = ("at", "off", "health", "last_breath", "status")  # 'killer WORD …' is a state line
_FG_WORDS = ("health", "fear", "time", "last_breath", "status")


class LineStop(Exception):
    """A line that cannot be read further (its diagnostic is recorded)."""


def close_hint(word: str, known: Sequence[str]) -> str:
    """'did you mean', else the known names: worked out once per distinct word and names (a file of
    16 000 lines misspelled alike asks difflib once)."""
    return _closest(word[:MAX_WORD], tuple(known))


MAX_WORD = 100  # characters of an unknown word looked up (a longer one is nothing a name is close to)


@functools.lru_cache(maxsize=1024)
def _closest(word: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    shown = sorted(known)
    if not shown:
        return "there are none in this game"
    more = f", … ({len(shown)} in all)" if len(shown) > 12 else ""
    return "known: " + ", ".join(shown[:12]) + more


def content_names(rs: Ruleset, word: str) -> set[str]:
    """The names content gives after ``word`` (flag, status): what a position may set."""
    pat = re.compile(r"\b" + word + r"\s+([a-z_][a-z0-9_]*(?:-[a-z0-9_]+)*)")
    out: set[str] = set()
    for text in rs.sources.values():
        out.update(pat.findall(text))
    return out


class Reader:
    """Reads the words of one block's lines, recording diagnostics (shared with rulings)."""

    def __init__(self, path: str, diags: Optional[list[Diagnostic]] = None) -> None:
        self.path = path
        self.diags: list[Diagnostic] = diags if diags is not None else []
        self.seen: dict[str, Span] = {}

    def child(self) -> Reader:
        """A reader of a nested block: lines given twice are counted apart, diagnostics together."""
        return Reader(self.path, self.diags)

    def error(self, span: Span, code: str, message: str, hint: str = "") -> LineStop:
        self.diags.append(Diagnostic(span, code, message, hint))
        return LineStop()

    def once(self, key: str, line: Line, what: str) -> None:
        if key in self.seen:
            first = self.seen[key]
            raise self.error(line.span, "E405", f"{what} is given twice",
                             f"the first is at line {first.line}; keep one")
        self.seen[key] = line.span

    @staticmethod
    def words(line: Line) -> list[Atom]:
        return line.words()

    def atoms_only(self, line: Line) -> list[Atom]:
        for p in line.parts:
            if isinstance(p, Block):
                raise self.error(p.span, "E404", "a block cannot stand in this line", "write the line's words only")
        return line.words()

    def name(self, atoms: list[Atom], i: int, line: Line, usage: str) -> str:
        if i >= len(atoms):
            end = atoms[-1].span if atoms else line.span
            raise self.error(Span(end.path, end.end_line, end.end_col, end.end_line, end.end_col + 1), "E404",
                             f"the line ends too soon: {usage}")
        a = atoms[i]
        if a.kind != "name":
            raise self.error(a.span, "E404", f"a name is needed here, not {a.text()}", usage)
        return str(a.value)

    def number(self, atoms: list[Atom], i: int, line: Line, usage: str, low: int, high: int, what: str) -> int:
        if i >= len(atoms):
            end = atoms[-1].span if atoms else line.span
            raise self.error(Span(end.path, end.end_line, end.end_col, end.end_line, end.end_col + 1), "E404",
                             f"the line ends too soon: {usage}")
        a = atoms[i]
        if a.kind != "number":
            raise self.error(a.span, "E404", f"a number is needed here, not {a.text()}", usage)
        v = a.num
        if not low <= v <= high:
            raise self.error(a.span, "E403", f"{what} {v} is out of range", f"it is {low} to {high}")
        return v

    def string(self, atoms: list[Atom], i: int, line: Line, usage: str) -> str:
        if i >= len(atoms) or atoms[i].kind != "string":
            span = atoms[i].span if i < len(atoms) else line.span
            raise self.error(span, "E404", "a string in double quotes is needed here", usage)
        return str(atoms[i].value)

    def end(self, atoms: list[Atom], i: int, usage: str) -> None:
        if i < len(atoms):
            raise self.error(atoms[i].span, "E404", f"unexpected {atoms[i].text()} at the end of the line", usage)

    def ref(self, atoms: list[Atom], i: int, line: Line, usage: str, known: Any, what: str) -> str:
        word = self.name(atoms, i, line, usage)
        if word not in known:
            raise self.error(atoms[i].span, "E402", f"unknown {what} '{word}'", close_hint(word, list(known)))
        return word

    def refs(self, atoms: list[Atom], i: int, line: Line, usage: str, known: Any, what: str) -> list[str]:
        return [self.ref(atoms, j, line, usage, known, what) for j in range(i, len(atoms))]


# --- the parsed position ------------------------------------------------------------------------
@attrs.frozen
class Position:
    """A checked position: its setup (``new_game``'s options), and the settled state the game
    goes on from (``start`` runs the engine on to the first choice)."""

    setup: dict[str, Any]
    settled: GameState
    path: str

    def start(self) -> tuple[GameState, list[Event]]:
        """The game from this position: run on to the first decision (or the end of the game).
        Raises ``RulesError`` when content loops (E310, E311)."""
        return engine.advance(self.settled, (), 0)


def _block_of(reader: Reader, lines: Sequence[Line], head: str, path: str) -> Optional[Block]:
    """The one ``HEAD { … }`` line of a file (E400 otherwise)."""
    found: Optional[Block] = None
    for ln in lines:
        if ln.head() == head and len(ln.parts) == 2 and isinstance(ln.parts[1], Block) and found is None:
            found = ln.parts[1]
            continue
        what = "a second" if ln.head() == head else f"'{ln.text()[:40]}'"
        reader.error(ln.span, "E400", f"{what} line outside the {head} block",
                     f"a {head} file is one '{head} {{ … }}' block")
    if found is None and not reader.diags:
        reader.error(Span(path, 1, 1, 1, 2), "E400", f"no '{head} {{ … }}' block",
                     f"write the {head} as '{head} {{ … }}'")
    return found


def parse_position(rs: Ruleset, text: str, path: str = "<position>") -> tuple[Optional[Position], list[Diagnostic]]:
    """Parse and check a position file; never raises for bad input. At most MAX_REPORTED
    diagnostics come back, then a note of how many more (``cap_per_file``)."""
    lines, diags = parse_text(text, path)
    if diags:
        return None, cap_per_file(diags, complete=True)
    reader = Reader(path)
    block = _block_of(reader, lines, "position", path)
    if block is None:
        return None, cap_per_file(sorted_diags(reader.diags), complete=True)
    pos, diags = check_position(rs, block, reader)
    return (pos if not diags else None), cap_per_file(diags, complete=True)


def sorted_diags(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics in the order of the text."""
    return sorted(diags, key=lambda d: (d.span.path, d.span.line, d.span.col))


def check_position(rs: Ruleset, block: Block, reader: Reader) -> tuple[Optional[Position], list[Diagnostic]]:
    """Check the lines of a ``position { … }`` block (for rulings, which hold one)."""
    before = len(reader.diags)
    pos = _PositionReader(rs, reader).read(block)
    return (pos if len(reader.diags) == before else None), sorted_diags(reader.diags)


def start_position(rs: Ruleset, text: str, path: str = "<position>") -> tuple[GameState, list[Event]]:
    """The game from a position, run on to its first decision, and the events on the way.

    Raises ``ContentError`` (E303, carrying E400–E407 diagnostics) for a bad position, and
    ``RulesError`` when content loops from it (E310, E311)."""
    pos, diags = parse_position(rs, text, path)
    if pos is None:
        raise ContentError(diags)
    return run_position(pos)


def run_position(pos: Position) -> tuple[GameState, list[Event]]:
    """``pos.start()``, with an engine failure from an unusual position as a diagnostic (E407)."""
    try:
        return pos.start()
    except RulesError:
        raise
    except Exception as err:  # a combination of facts the rules never reach: say so, do not crash
        span = Span(pos.path, 1, 1, 1, 2)
        raise ContentError([Diagnostic(span, "E407", f"the game cannot go on from this position "
                                                     f"({type(err).__name__}: {err})",
                                       "change the facts the engine stopped at")]) from None


def position(ruleset: Ruleset, text: str, path: str = "<position>") -> GameState:
    """The state of a position (a file's text), at its first decision: ``apply`` accepts it.

    Raises ``ContentError`` with file:line:col diagnostics (E400–E407) for a bad position, and
    ``RulesError`` when content loops from it (E310, E311)."""
    return start_position(ruleset, text, path)[0]


# --- reading the lines --------------------------------------------------------------------------
class _PositionReader:
    def __init__(self, rs: Ruleset, reader: Reader) -> None:
        self.rs = rs
        self.r = reader
        self.spec: dict[str, Any] = {}
        self.spans: dict[str, Span] = {}

    # the setup ------------------------------------------------------------------------------
    def read(self, block: Block) -> Optional[Position]:
        r = self.r
        start = len(r.diags)
        setup_lines: list[tuple[Line, list[Atom]]] = []
        state_lines: list[tuple[Line, list[Atom]]] = []
        for ln in block.lines:
            try:
                atoms = r.atoms_only(ln)
                head = ln.head()
                if not head:
                    first = ln.parts[0]
                    shown = first.text() if isinstance(first, Atom) else "a block"
                    raise r.error(ln.span, "E401", f"a position line starts with a word, not {shown}",
                                  "see docs/positions.md for the lines")
                if head not in LINES:
                    raise r.error(atoms[0].span, "E401", f"unknown line '{head}' in a position",
                                  close_hint(head, list(LINES)))
                is_setup = head in SETUP_LINES and not (  # 'killer WORD …' and 'killer BODY WORD …': the board
                    head == "killer" and len(atoms) > 1 and atoms[1].kind == "name"
                    and (atoms[1].value in _SETUP_KILLER_WORDS or len(atoms) > 2))
                (setup_lines if is_setup else state_lines).append((ln, atoms))
            except LineStop:
                continue
        setup: dict[str, Any] = {}
        before_setup = len(r.diags)
        for ln, atoms in setup_lines:
            try:
                self.setup_line(ln, atoms, setup)
            except LineStop:
                continue
        if len(r.diags) > before_setup:  # no game to check the other lines against
            return None
        try:
            fresh, _ = new_game(self.rs, **setup)
        except RulesError as err:
            r.error(block.span, "E402", f"the position's game cannot be set up: {err}")
            return None
        self.fresh = fresh
        self.game = fresh.game
        for ln, atoms in state_lines:
            try:
                self.state_line(ln, atoms)
            except LineStop:
                continue
        if len(r.diags) > start:
            return None
        try:
            settled = self.compose()
        except LineStop:
            return None
        return Position(setup, settled, r.path)

    def setup_line(self, ln: Line, atoms: list[Atom], setup: dict[str, Any]) -> None:
        r, rs = self.r, self.rs
        head = str(atoms[0].value)
        usage = LINES[head] if head != "killer" else "killer ID"
        r.once(f"setup:{head}", ln, f"'{head}'")
        if head == "legendary":
            r.end(atoms, 1, usage)
            setup["legendary"] = True
            return
        if head == "seed":
            setup["seed"] = r.number(atoms, 1, ln, usage, 0, MAX_SEED, "the seed")
            r.end(atoms, 2, usage)
            return
        if head == "modules":  # switched on (dsl/LANGUAGE.md section 10)
            r.name(atoms, 1, ln, usage)
            setup["modules"] = sorted(set(r.refs(atoms, 1, ln, usage, rs.modules, "module")))
            return
        known: Any = {
            "killer": rs.killers, "scenario": rs.scenarios, "final_girl": rs.final_girls,
            "difficulty": [s.id for s in rs.player_board().sides] if rs.player_boards else [],
            "tie_policy": engine.TIE_POLICIES, "forced": engine.FORCED_POLICIES}[head]
        what = {"final_girl": "Final Girl", "tie_policy": "tie policy",
                "forced": "forced-choice setting"}.get(head, head)
        setup[head] = r.ref(atoms, 1, ln, usage, known, what)
        r.end(atoms, 2, usage)

    # one state line -------------------------------------------------------------------------
    def state_line(self, ln: Line, atoms: list[Atom]) -> None:
        head = str(atoms[0].value)
        args = atoms[1:]
        if head == "fg":
            word = self.r.name(atoms, 1, ln, LINES["fg"])
            if word in _FG_WORDS:
                head, args = word, atoms[2:]
            elif word != "at":
                raise self.r.error(atoms[1].span, "E401", f"unknown line 'fg {word}' in a position",
                                   close_hint(word, ["at", *_FG_WORDS]))
        getattr(self, "line_" + head)(ln, [atoms[0], *args])

    def _set(self, key: str, value: Any, ln: Line, what: str) -> None:
        self.r.once(key, ln, what)
        self.spec[key] = value
        self.spans[key] = ln.span

    @property
    def board(self):
        return self.game.board

    def loc(self, atoms: list[Atom], i: int, ln: Line, usage: str) -> int:
        return self.board.index[self.r.ref(atoms, i, ln, usage, self.board.index, "location")]

    def line_setup(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["setup"]
        sid = self.r.ref(a, 1, ln, u, [s.id for s in self.game.scenario.setups], "setup card")
        self.r.end(a, 2, u)
        self._set("setup_card", sid, ln, "the setup card")

    def line_fg(self, ln: Line, a: list[Atom]) -> None:  # fg at LOC
        u = "fg at LOCATION"
        where = self.loc(a, 2, ln, u)
        self.r.end(a, 3, u)
        self._set("fg_loc", where, ln, "where the Final Girl stands")

    def line_health(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["health"]
        v = self.r.number(a, 1, ln, u, 0, self.game.fg.health, "her health (C3.5: at most her starting health)")
        self.r.end(a, 2, u)
        self._set("fg_health", v, ln, "her health")

    def line_fear(self, ln: Line, a: list[Atom]) -> None:
        side = self.game.side
        v = self.r.number(a, 1, ln, LINES["fear"], side.fear_min, side.fear_max, "fear")
        self.r.end(a, 2, LINES["fear"])
        self._set("fear", v, ln, "her fear")

    def line_time(self, ln: Line, a: list[Atom]) -> None:
        side = self.game.side
        v = self.r.number(a, 1, ln, LINES["time"], side.time_min, side.time_max, "time")
        self.r.end(a, 2, LINES["time"])
        self._set("time", v, ln, "her time")

    def _breath(self, a: list[Atom], i: int, ln: Line, u: str) -> tuple[int, Optional[int]]:
        colour = self.r.ref(a, i, ln, u, ("black", "white"), "last-breath token")
        if colour == "white":
            self.r.end(a, i + 1, u)
            return 1, None
        if i + 1 < len(a):
            values = self.game.player_board.last_breath or (0,)
            v = self.r.number(a, i + 1, ln, u, 0, max(values), "the value on the black token's back")
            self.r.end(a, i + 2, u)
            return 2, v
        return 2, None

    def line_last_breath(self, ln: Line, a: list[Atom]) -> None:
        self._set("fg_breath", self._breath(a, 1, ln, LINES["last_breath"]), ln, "her last-breath token")

    def _cards(self, ln: Line, a: list[Atom], key: str, what: str) -> None:
        cards = self.r.refs(a, 1, ln, LINES[key], self.game.cards, "card in this game")
        if key == "hand" and len(cards) > self.game.player_board.hand_limit:
            raise self.r.error(ln.span, "E403", f"a hand of {len(cards)} cards is out of range",
                               f"it is 0 to {self.game.player_board.hand_limit} (C7.3)")
        self._set(key, tuple(sorted(cards)), ln, what)

    def line_hand(self, ln: Line, a: list[Atom]) -> None:
        self._cards(ln, a, "hand", "her hand")

    def line_market(self, ln: Line, a: list[Atom]) -> None:
        self._cards(ln, a, "market", "the market")

    def line_spent(self, ln: Line, a: list[Atom]) -> None:
        self._cards(ln, a, "spent", "the cards spent this round")

    def _items(self, ln: Line, a: list[Atom], key: str, what: str) -> None:
        items = self.r.refs(a, 1, ln, LINES[key], self.game.items, "item")
        if key == "hands":
            for atom, iid in zip(a[1:], items):
                it = self.game.items[iid]
                if it.weapon is None and not it.hand_only:
                    raise self.r.error(atom.span, "E406", f"{iid} is not a weapon: only weapons (and items held only "
                                       "in hand) are held in hand", "put it in the backpack (C6.5)")
            if sum(hands_of(self.game.items[i]) for i in items) > 2:
                raise self.r.error(ln.span, "E406", "her hands hold more than two hands' worth of weapons",
                                   "two one-handed weapons or one two-handed weapon (C6.5)")
        self._set(key, tuple(items), ln, what)

    def line_hands(self, ln: Line, a: list[Atom]) -> None:
        self._items(ln, a, "hands", "what she holds in hand")

    def line_backpack(self, ln: Line, a: list[Atom]) -> None:
        self._items(ln, a, "backpack", "her backpack")

    def line_uses(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["uses"]
        iid = self.r.ref(a, 1, ln, u, self.game.items, "item")
        item = self.game.items[iid]
        if not item.uses:
            raise self.r.error(a[1].span, "E406", f"{iid} has no uses to count", "leave the line out")
        # 0 only for an ingredient, kept used up (S3.4); any other item is discarded at its last use (C6.4)
        v = self.r.number(a, 2, ln, u, 0 if iid in self.game.ingredients else 1, item.uses, f"the uses left of {iid}")
        self.r.end(a, 3, u)
        self.r.once(f"uses:{iid}", ln, f"the uses of {iid}")
        self.spec.setdefault("uses", {})[iid] = (v, a[1].span)

    def line_rescued(self, ln: Line, a: list[Atom]) -> None:
        v = self.r.number(a, 1, ln, LINES["rescued"], 0, MAX_COUNT, "victims rescued")
        self.r.end(a, 2, LINES["rescued"])
        self._set("rescued", v, ln, "the victims rescued")

    def line_flipped(self, ln: Line, a: list[Atom]) -> None:
        self.r.end(a, 1, LINES["flipped"])
        self._set("flipped", True, ln, "'flipped'")

    def line_skip_action(self, ln: Line, a: list[Atom]) -> None:
        self.r.end(a, 1, LINES["skip_action"])
        self._set("skip_action", True, ln, "'skip_action'")

    def _token_kind(self, a: list[Atom], i: int, ln: Line, u: str, token: str) -> str:
        return self.r.ref(a, i, ln, u, self.game.tokens[token].kinds, f"kind of {token}")

    def line_collected(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["collected"]
        token = self.r.ref(a, 1, ln, u, self.game.tokens, "token")
        kinds = [self._token_kind(a, j, ln, u, token) for j in range(2, len(a))]
        self.r.once(f"collected:{token}", ln, f"the collected {token} tokens")
        self.spec.setdefault("collected", []).extend((token, k, ln.span) for k in kinds)

    def line_killer(self, ln: Line, a: list[Atom]) -> None:
        r, g = self.r, self.game
        word = str(a[1].value)
        if g.no_board:
            raise r.error(a[0].span, "E406", f"{g.killer.name} has no killer board: nothing stands for 'killer'",
                          "write the bodies formed in play as 'body \"LABEL\" at LOCATION health N' (K6.6)")
        u = LINES["killer"]
        if word not in _SETUP_KILLER_WORDS:  # killer BODY …: one of the killer's declared bodies (K2.7, K3.1)
            self._body_line(ln, a, u)
            return
        if word == "at":
            where = self.loc(a, 2, ln, u)
            r.end(a, 3, u)
            self._set("killer_loc", where, ln, "where the killer stands")
        elif word == "off":  # killer off board: away from the board, alive (K1.6: vanished)
            r.ref(a, 2, ln, u, ("board",), "word")
            r.end(a, 3, u)
            self._set("killer_loc", -1, ln, "where the killer stands")
        elif word == "health":
            v = r.number(a, 2, ln, u, 0, MAX_COUNT, "the killer's health")
            r.end(a, 3, u)
            self._set("killer_health", v, ln, "the killer's health")
        elif word == "last_breath":
            self._set("killer_breath", self._breath(a, 2, ln, u), ln, "the killer's last-breath token")
        else:  # status
            names = r.refs(a, 2, ln, u, content_names(self.rs, "status"), "status")
            self._set("killer_status", frozenset(names), ln, "the killer's statuses")

    def _body_line(self, ln: Line, a: list[Atom], u: str) -> None:
        """killer BODY at LOCATION | health N | last_breath … | status NAME… | aside | defeated."""
        r, g = self.r, self.game
        declared = [b for b in g.killer.bodies if not b.formed]
        bid = r.ref(a, 1, ln, u, [b.id for b in declared] or ["at", "health", "last_breath", "status"],
                    f"body of {g.killer.name}" if declared else "word")
        word = r.ref(a, 2, ln, u, ("at", "health", "last_breath", "status", "aside", "defeated"), "word")
        facts = self.spec.setdefault("body_facts", {}).setdefault(bid, {})
        key = "loc" if word == "at" else word
        if key in facts:
            raise r.error(ln.span, "E405", f"the {word} line of {bid} is given twice", "keep one")
        self.spans[f"body:{bid}:{key}"] = ln.span
        if word == "at":
            facts["loc"] = self.loc(a, 3, ln, u)
            r.end(a, 4, u)
        elif word == "health":
            facts["health"] = r.number(a, 3, ln, u, 0, MAX_COUNT, f"the health of {bid}")
            r.end(a, 4, u)
        elif word == "last_breath":
            facts["last_breath"] = self._breath(a, 3, ln, u)
        elif word == "status":
            facts["status"] = frozenset(r.refs(a, 3, ln, u, content_names(self.rs, "status"), "status"))
        else:  # aside | defeated
            r.end(a, 3, u)
            facts[word] = True

    def line_active(self, ln: Line, a: list[Atom]) -> None:  # active BODY | active "LABEL"
        u = LINES["active"]
        if len(a) > 1 and a[1].kind == "string":
            who = self.r.string(a, 1, ln, u)
        else:
            who = self.r.ref(a, 1, ln, u, [b.id for b in self.game.killer.bodies if not b.formed],
                             f"body of {self.game.killer.name}")
        self.r.end(a, 2, u)
        self._set("active", (who, a[1].span), ln, "the active killer")

    def line_track(self, ln: Line, a: list[Atom]) -> None:  # track TRACK N
        u = LINES["track"]
        tid = self.r.ref(a, 1, ln, u, self.game.tracks, "track")
        t = self.game.tracks[tid]
        v = self.r.number(a, 2, ln, u, t.low, t.high, f"the space of {tid}")
        self.r.end(a, 3, u)
        self.r.once(f"track:{tid}", ln, f"the track {tid}")
        self.spec.setdefault("tracks", {})[tid] = v

    def line_conveyance(self, ln: Line, a: list[Atom]) -> None:  # conveyance ID at LOCATION | … off board
        u = LINES["conveyance"]
        cid = self.r.ref(a, 1, ln, u, self.game.conveyance_index, f"conveyance of {self.game.scenario.name}")
        if self.r.ref(a, 2, ln, u, ("at", "off"), "word") == "at":
            where = self.loc(a, 3, ln, u)
        else:
            self.r.ref(a, 3, ln, u, ("board",), "word")
            where = -1
        self.r.end(a, 4, u)
        self.r.once(f"conveyance:{cid}", ln, f"the place of {cid}")
        self.spec.setdefault("conveyances", {})[cid] = where

    def line_slots(self, ln: Line, a: list[Atom]) -> None:  # slots N… | slots none
        u = LINES["slots"]
        n_slots = len(self.fresh.slots)
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            filled: frozenset[int] = frozenset()
        else:
            filled = frozenset(self.r.number(a, j, ln, u, 1, n_slots, "a slot of her card")
                               for j in range(1, max(2, len(a))))
        self._set("slots", filled, ln, "the slots filled")

    def _status(self, a: list[Atom], i: int, ln: Line, u: str) -> frozenset[str]:
        if i >= len(a):
            return frozenset()
        if a[i].kind != "name" or a[i].value != "status":
            raise self.r.error(a[i].span, "E404", f"unexpected {a[i].text()}", u)
        return frozenset(self.r.refs(a, i + 1, ln, u, content_names(self.rs, "status"), "status"))

    def line_body(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["body"]
        label = r.string(a, 1, ln, u)
        if not label.strip() or len(label) > 40:
            raise r.error(a[1].span, "E404", "a body's label is 1 to 40 characters", u)
        if r.name(a, 2, ln, u) != "at":
            raise r.error(a[2].span, "E404", f"'at' is needed here, not {a[2].text()}", u)
        where = self.loc(a, 3, ln, u)
        if r.name(a, 4, ln, u) != "health":
            raise r.error(a[4].span, "E404", f"'health' is needed here, not {a[4].text()}", u)
        hp = r.number(a, 5, ln, u, 0, MAX_COUNT, "a body's health")
        status = self._status(a, 6, ln, u)
        r.once(f"body:{label}", ln, f"body \"{label}\"")
        self.spec.setdefault("bodies", []).append((label, where, hp, status))

    def line_minions(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["minions"]
        kinds = {m.id: m for m in self.game.killer.minions}
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            self._set("minions_none", True, ln, "'minions none'")
            return
        kind = r.ref(a, 1, ln, u, kinds, f"minion of {self.game.killer.name}")
        if r.name(a, 2, ln, u) != "at":
            raise r.error(a[2].span, "E404", f"'at' is needed here, not {a[2].text()}", u)
        where = self.loc(a, 3, ln, u)
        count = r.number(a, 4, ln, u, 1, kinds[kind].limit, f"the number of {kind}s (its limit)")
        status = self._status(a, 5, ln, u)
        self.spec.setdefault("minion_lines", []).append((kind, where, count, status, ln.span))

    def line_victims(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["victims"]
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            self._set("victims_none", True, ln, "'victims none'")
            return
        if r.name(a, 1, ln, u) != "at":
            raise r.error(a[1].span, "E404", f"'at' is needed here, not {a[1].text()}", u)
        where = self.loc(a, 2, ln, u)
        count = r.number(a, 3, ln, u, 0, MAX_COUNT, "victims in a location")
        r.end(a, 4, u)
        r.once(f"victims:{where}", ln, f"the victims at {self.board.ids[where]}")
        self.spec.setdefault("victims", {})[where] = count

    def line_victim(self, ln: Line, a: list[Atom]) -> None:  # victim [KIND] at LOCATION [status NAME…]
        r = self.r
        u = LINES["victim"]
        if len(a) > 1 and a[1].kind == "name" and a[1].value == "supply":  # victim supply N (C5.7)
            v = r.number(a, 2, ln, u, 0, self.game.victim_supply, "the victims left in the supply")
            r.end(a, 3, u)
            self._set("victim_supply", v, ln, "the victim supply")
            return
        i, kind = 1, ""
        if r.name(a, 1, ln, u) != "at":
            kind = r.ref(a, 1, ln, u, self.game.victim_kinds, "victim kind")
            i = 2
        if r.name(a, i, ln, u) != "at":
            raise r.error(a[i].span, "E404", f"'at' is needed here, not {a[i].text()}", u)
        where = self.loc(a, i + 1, ln, u)
        status = self._status(a, i + 2, ln, u)
        if not kind and not status:
            raise r.error(ln.span, "E404", "a victim of no kind and no status is counted by a 'victims' line", u)
        self.spec.setdefault("victim_lines", []).append((kind, where, status))

    def line_status(self, ln: Line, a: list[Atom]) -> None:  # fg status NAME…
        u = "fg status NAME…"
        names = self.r.refs(a, 1, ln, u, content_names(self.rs, "status"), "status")
        self._set("fg_status", frozenset(names), ln, "her statuses")

    def line_dead(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["dead"]
        if len(a) > 1 and a[1].kind == "name":
            if r.name(a, 1, ln, u) != "this" or r.name(a, 2, ln, u) != "round":
                raise r.error(a[1].span, "E404", f"unexpected {a[1].text()}", u)
            v = r.number(a, 3, ln, u, 0, MAX_COUNT, "victims dead this round")
            r.end(a, 4, u)
            self._set("deaths_round", v, ln, "the deaths this round")
            return
        v = r.number(a, 1, ln, u, 0, MAX_COUNT, "dead victims")
        r.end(a, 2, u)
        self._set("dead", v, ln, "the dead victims")

    def line_tokens(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["tokens"]
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            self._set("tokens_none", True, ln, "'tokens none'")
            return
        token = r.ref(a, 1, ln, u, self.game.tokens, "token")
        kind = self._token_kind(a, 2, ln, u, token)
        if r.name(a, 3, ln, u) == "on":  # on a holder: an item, a killer, a victim or a minion (issue #16 item 5)
            self._token_on(ln, a, u, token, kind)
            return
        if r.name(a, 3, ln, u) != "at":
            raise r.error(a[3].span, "E404", f"'at' or 'on' is needed here, not {a[3].text()}", u)
        where = self.loc(a, 4, ln, u)
        down = False
        if len(a) > 5:  # face down on the board (issue #33 item 4)
            if r.name(a, 5, ln, u) != "face" or r.ref(a, 6, ln, u, ("down", "up"), "face") == "":
                raise r.error(a[5].span, "E404", f"unexpected {a[5].text()}", u)
            down = a[6].value == "down"
            r.end(a, 7, u)
        self.spec.setdefault("tokens", []).append((token, kind, where, down, ln.span))

    def _token_on(self, ln: Line, a: list[Atom], u: str, token: str, kind: str) -> None:
        r, g = self.r, self.game
        what = r.ref(a, 4, ln, u, ("item", "killer", "victim", "minion"), "holder")
        i = 5
        if what == "item":  # the first card of it in play, or 'copy N': the Nth (hands, backpack, table, aside)
            holder: tuple[Any, ...] = ("item", r.ref(a, 5, ln, u, g.items, "item"), 1)
            i = 6
            if i < len(a) and a[i].kind == "name" and a[i].value == "copy":
                holder = (*holder[:2], r.number(a, i + 1, ln, u, 1, MAX_COUNT, "the card's place among hers"))
                i += 2
        elif what == "killer":
            bodies = [b.id for b in g.killer.bodies if not b.formed]
            body = ""
            if i < len(a) and a[i].kind == "name" and a[i].value != "face":
                body = r.ref(a, i, ln, u, bodies, f"body of {g.killer.name}")
                i += 1
            holder = ("killer", body)
        else:
            mkind = ""
            if what == "minion":
                mkind = r.ref(a, 5, ln, u, {m.id for m in g.killer.minions}, f"minion of {g.killer.name}")
                i = 6
            if r.name(a, i, ln, u) != "at":
                raise r.error(a[i].span, "E404", f"'at' is needed here, not {a[i].text()}", u)
            holder = (what, mkind, self.loc(a, i + 1, ln, u))
            i += 2
        up = True
        if i < len(a):
            if r.name(a, i, ln, u) != "face" or r.ref(a, i + 1, ln, u, ("down", "up"), "face") == "":
                raise r.error(a[i].span, "E404", f"unexpected {a[i].text()}", u)
            up = a[i + 1].value == "up"
            r.end(a, i + 2, u)
        self.spec.setdefault("tokens_on", []).append((token, kind, holder, up, ln.span))

    def line_bloodlust(self, ln: Line, a: list[Atom]) -> None:
        levels = len(self.game.levels)
        v = self.r.number(a, 1, ln, LINES["bloodlust"], 1, max(1, levels), "the bloodlust level")
        self.r.end(a, 2, LINES["bloodlust"])
        self._set("bloodlust", v - 1, ln, "the bloodlust level")

    def _revealable(self, ln: Line, a: list[Atom], key: str, table: Any, what: str) -> None:
        u = LINES[key]
        cid = self.r.ref(a, 1, ln, u, table, what)
        revealed = False
        if len(a) > 2:
            self.r.ref(a, 2, ln, u, ("revealed",), "word")
            revealed = True
            self.r.end(a, 3, u)
        self._set(key, (cid, revealed), ln, f"the {what}")

    def line_finale(self, ln: Line, a: list[Atom]) -> None:
        self._revealable(ln, a, "finale", self.game.finales, f"finale of {self.game.killer.name}")

    def line_dark_power(self, ln: Line, a: list[Atom]) -> None:
        self._revealable(ln, a, "dark_power", self.game.dark_powers, f"dark power of {self.game.killer.name}")

    def line_secondary(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["secondary"]
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            self._set("secondary", ("", 0), ln, "the secondary dark power")
            return
        secs = {t: c for t, c in self.game.terror.items() if c.secondary_health > 0}
        tid = r.ref(a, 1, ln, u, secs, "secondary dark power (a terror card with health)")
        if r.name(a, 2, ln, u) != "health":
            raise r.error(a[2].span, "E404", f"'health' is needed here, not {a[2].text()}", u)
        hp = r.number(a, 3, ln, u, 1, MAX_COUNT, "the secondary dark power's health")
        r.end(a, 4, u)
        self._set("secondary", (tid, hp), ln, "the secondary dark power")

    def _top_or_left(self, ln: Line, a: list[Atom], key: str, first: int, known: Any, what: str,
                     name: str) -> None:
        r = self.r
        u = LINES[key.split(":")[0]]
        word = r.ref(a, first, ln, u, ("top", "left") if key != "events" else ("top", "left", "active"), "word")
        if word == "left":
            v = r.number(a, first + 1, ln, u, 0, MAX_COUNT, f"the cards left in {name}")
            r.end(a, first + 2, u)
            self._set(f"{key}:left", v, ln, f"the cards left in {name}")
        else:
            cards = r.refs(a, first + 1, ln, u, known, what)
            dup = [c for c, k in Counter(cards).items() if k > 1]
            if dup and word != "active":
                raise r.error(ln.span, "E406", f"{dup[0]} is named twice: a deck holds one copy", "name it once")
            self._set(f"{key}:{word}", tuple(cards), ln, f"the {word} of {name}")

    def line_terror(self, ln: Line, a: list[Atom]) -> None:
        self._top_or_left(ln, a, "terror", 1, self.game.terror, "terror card of this game", "the terror deck")

    def line_events(self, ln: Line, a: list[Atom]) -> None:
        self._top_or_left(ln, a, "events", 1, self.game.events, "event of this scenario", "the event deck")

    def line_pile(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["pile"]
        where = self.loc(a, 1, ln, u)
        if where not in self.board.pile_of:
            raise self.r.error(a[1].span, "E406", f"{self.board.ids[where]} is not a search location: it has no pile",
                               close_hint(self.board.ids[where], [self.board.ids[i] for i in self.board.search_locs]))
        self._top_or_left(ln, a, f"pile:{where}", 2, self.game.items, "item", f"the pile at {self.board.ids[where]}")

    def line_on_piles(self, ln: Line, a: list[Atom]) -> None:
        """on_piles ITEM… | on_piles none: the items lying face up on top of the item piles (K2.2), the
        first on the first pile, and so on."""
        u = LINES["on_piles"]
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            self._set("on_piles", (), ln, "the items on the piles")
            return
        items = self.r.refs(a, 1, ln, u, self.game.items, "item")
        if len(items) > len(self.board.search_locs):
            raise self.r.error(ln.span, "E406", f"{len(items)} items for {len(self.board.search_locs)} item piles",
                               "one item lies on each pile at most")
        self._set("on_piles", tuple(enumerate(items)), ln, "the items on the piles")

    def line_deck(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["deck"]
        did = self.r.ref(a, 1, ln, u, self.game.decks, "deck of this game")
        cards = [c.id for c in self.game.decks[did].cards]
        self._top_or_left(ln, a, f"deck:{did}", 2, cards, f"card of {did}", f"the deck {did}")

    def line_kept(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["kept"]
        did = self.r.ref(a, 1, ln, u, self.game.decks, "deck of this game")
        cards = self.r.refs(a, 2, ln, u, [c.id for c in self.game.decks[did].cards], f"card of {did}")
        self.r.once(f"kept:{did}", ln, f"the kept cards of {did}")
        self.spec.setdefault("kept", {})[did] = tuple(dict.fromkeys(cards))

    def line_mode(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["mode"]
        m = self.r.ref(a, 1, ln, u, self.game.killer.modes, f"mode of {self.game.killer.name}")
        self.r.end(a, 2, u)
        self._set("mode", m, ln, "the mode")

    def line_flags(self, ln: Line, a: list[Atom]) -> None:
        flags = self.r.refs(a, 1, ln, LINES["flags"], content_names(self.rs, "flag"), "flag (content never names it)")
        self._set("flags", frozenset(flags), ln, "the flags")

    def line_opened(self, ln: Line, a: list[Atom]) -> None:
        r = self.r
        u = LINES["opened"]
        if len(a) == 2 and a[1].kind == "name" and a[1].value == "none":
            self._set("opened_none", True, ln, "'opened none'")
            return
        x = self.loc(a, 1, ln, u)
        if len(a) < 3 or a[2].kind != "join":
            raise r.error(a[2].span if len(a) > 2 else ln.span, "E404", "'--' joins the two ends of a path", u)
        y = self.loc(a, 3, ln, u)
        r.end(a, 4, u)
        closed = [k for k, p in enumerate(self.board.paths) if p[5] and {p[0], p[1]} == {x, y}]
        if not closed:
            raise r.error(ln.span, "E406", f"no closed path joins {self.board.ids[x]} and {self.board.ids[y]}",
                          "only a path declared 'closed' can be opened")
        self.spec.setdefault("opened", set()).update(closed)

    def line_round(self, ln: Line, a: list[Atom]) -> None:
        v = self.r.number(a, 1, ln, LINES["round"], 1, MAX_ROUND, "the round")
        self.r.end(a, 2, LINES["round"])
        self._set("round", v, ln, "the round")

    def line_dice(self, ln: Line, a: list[Atom]) -> None:
        if len(a) - 1 > MAX_DICE:
            raise self.r.error(ln.span, "E403", f"{len(a) - 1} forced dice are out of range", f"it is 0 to {MAX_DICE}")
        faces = tuple(self.r.number(a, j, ln, LINES["dice"], 1, 6, "a die's face") for j in range(1, len(a)))
        self._set("dice", faces, ln, "the dice")

    def line_phase(self, ln: Line, a: list[Atom]) -> None:
        u = LINES["phase"]
        ph = self.r.ref(a, 1, ln, u, PHASES, "phase")
        start = False
        if len(a) > 2:
            self.r.ref(a, 2, ln, u, ("start",), "word")
            self.r.end(a, 3, u)
            start = True
        self._set("phase", (ph, start), ln, "the phase")

    # composing the state --------------------------------------------------------------------
    def fail(self, key: str, message: str, hint: str = "") -> LineStop:
        return self.r.error(self.spans.get(key, Span(self.r.path, 1, 1, 1, 2)), "E406", message, hint)

    def compose(self) -> GameState:
        s, g, fresh = self.spec, self.game, self.fresh
        base = _settled_start(fresh)
        f: dict[str, Any] = {}
        for key in ("fg_loc", "fg_health", "fear", "time", "rescued", "flipped", "skip_action", "dead",
                    "deaths_round", "bloodlust", "round", "dice", "setup_card", "flags", "fg_status"):
            if key in s:
                f[key] = s[key]
        if "fg_breath" in s:
            breath, value = s["fg_breath"]
            f["fg_breath"] = breath
            if value is not None:
                f["fg_breath_value"] = value
        if "rescued" in s or "flipped" in s:
            rescued = s.get("rescued", base.rescued)
            flipped = s.get("flipped", base.flipped)
            if not flipped and rescued >= g.fg.rescues:
                raise self.fail("rescued", f"{rescued} rescues would have flipped her card at {g.fg.rescues} (C5.6)",
                                "add 'flipped', or fewer rescues")
            # C5.6: a flipped card is cleared; on the start side the first slots hold the rescued
            f["slots"] = tuple(not flipped and i < rescued for i in range(len(base.slots)))
        if "bloodlust" in s:
            f["lust_fired"] = frozenset(i for i in range(1, s["bloodlust"] + 1) if g.levels[i].effects)
        if "mode" in s:
            f["mode"] = f["mode_active"] = s["mode"]
        if "opened_none" in s and "opened" in s:
            raise self.fail("opened_none", "'opened none' and an opened line together", "keep one")
        if "opened" in s or "opened_none" in s:
            f["opened"] = frozenset(s.get("opened", ()))
        self._compose_cards(f, base)
        self._compose_items(f, base)
        self._compose_board(f, base)
        self._compose_decks(f, base)
        ph, start = s.get("phase", ("action", False))
        f["phase"] = ph
        f["sub"] = 1 if ph in DECISION_PHASES and not start else 0
        f["action_over"] = False
        f.update(choice=None, answers=(), checkpoint=None, events_seen=0, result="", end_reason="")
        # the victims a position puts in play are those it accounts for (validate.py holds a state to it)
        f["victims_in"] = (sum(f.get("victims", base.victims)) + sum(k for _h, k in f.get("holding", base.holding))
                           + f.get("dead", base.dead) + f.get("rescued", base.rescued))
        return engine.replace(base, **f)

    def _compose_cards(self, f: dict[str, Any], base: GameState) -> None:
        s = self.spec
        pool = Counter(base.hand) + Counter(base.market) + Counter(base.spent)
        # the copies of a card set aside ('start aside', V3) may be named too: those not named stay aside
        aside = Counter({cid: left for cid, c in self.game.cards.items() if c.start_aside and (
            left := c.copies - pool[cid] - base.cards_gone.count(cid)) > 0})
        dealt = Counter(pool)
        pool += aside
        hand = s.get("hand", base.hand)
        spent = s.get("spent", base.spent if "hand" not in s else ())
        used = Counter(hand) + Counter(spent)
        if "market" in s:
            used += Counter(s["market"])
        for cid, k in used.items():
            if k > pool[cid]:
                key = next((x for x in ("hand", "spent", "market") if x in s and cid in s[x]), "hand")
                raise self.fail(key, f"{k} copies of {cid} are named, but this game has {pool[cid]}",
                                "hand, market and spent cards come from one deck")
        f["hand"], f["spent"] = tuple(sorted(hand)), tuple(spent)
        f["market"] = tuple(sorted(s["market"])) if "market" in s else \
            tuple(sorted((dealt - Counter(hand) - Counter(spent)).elements()))

    def _compose_items(self, f: dict[str, Any], base: GameState) -> None:
        s, g = self.spec, self.game
        uses = s.get("uses", {})
        held = s.get("hands")
        pack = s.get("backpack")
        if held is None and pack is None:
            if uses:  # uses of items she has in the fresh game
                have = {h.id for h in (*base.held, *base.pack)}
                for iid, (_v, span) in uses.items():
                    if iid not in have:
                        raise self.r.error(span, "E406", f"she has no {iid}",
                                           "give it to her with 'hands' or 'backpack'")
                f["held"] = tuple(HeldItem(h.id, uses.get(h.id, (h.uses,))[0], h.copy) for h in base.held)
                f["pack"] = tuple(HeldItem(h.id, uses.get(h.id, (h.uses,))[0], h.copy) for h in base.pack)
            return
        held = held if held is not None else tuple(h.id for h in base.held)
        pack = pack if pack is not None else tuple(h.id for h in base.pack)
        for iid, (_v, span) in uses.items():
            if iid not in held and iid not in pack:
                raise self.r.error(span, "E406", f"she has no {iid}", "give it to her with 'hands' or 'backpack'")
        # a card of an item whose cards carry tokens apart keeps the number of a card of it she had in the
        # fresh game, in order, else takes a new one; tokens on a card of hers she no longer has go back
        # to the supply (engine/copies.py)
        numbers = {iid: [h.copy for h in (*base.held, *base.pack) if h.id == iid and h.copy] for iid in g.items}
        seq = base.item_seq

        def card(i: str) -> HeldItem:
            nonlocal seq
            k = numbers[i].pop(0) if numbers[i] else 0
            if not k and i in g.copy_items:
                seq += 1
                k = seq
            return HeldItem(i, uses.get(i, (g.items[i].uses,))[0], k)

        f["held"] = tuple(card(i) for i in held)
        f["pack"] = tuple(card(i) for i in pack)
        f["item_seq"] = seq
        gone = {f"item:{iid}#{k}" for iid, ks in numbers.items() for k in ks}
        if gone and any(t[0] in gone for t in base.token_on):
            f["supply"] = base.supply + tuple((t, k) for h, t, k, _up in base.token_on if h in gone)
            f["token_on"] = tuple(t for t in base.token_on if t[0] not in gone)
        # items she has are taken out of the piles (one copy each)
        piles = [list(p) for p in base.piles]
        touched: set[int] = set()
        for iid in (*held, *pack):
            for k, pile in enumerate(piles):
                j = next((j for j, (c, _up) in enumerate(pile) if c == iid), -1)
                if j >= 0:
                    del pile[j]
                    touched.add(k)
                    break
        f["piles"] = tuple(_faced(p) if k in touched else tuple(p) for k, p in enumerate(piles))

    def _compose_board(self, f: dict[str, Any], base: GameState) -> None:
        s, g = self.spec, self.game
        n = g.board.n
        if "victims_none" in s and "victims" in s:
            raise self.fail("victims_none", "'victims none' and a victims line together", "keep one")
        if "victims" in s or "victims_none" in s:
            v = [0] * n
            for where, k in s.get("victims", {}).items():
                v[where] = k
            f["victims"] = tuple(v)
            f["marked"] = ()  # the fresh game's victims are gone, those of a kind with them
        if "victim_lines" in s:  # victims of a kind or with statuses, besides the others (issue #16)
            v = list(f.get("victims", base.victims))
            marked = list(f.get("marked", base.marked))
            seq = base.victim_seq
            for kind, where, status in s["victim_lines"]:
                seq += 1
                v[where] += 1
                marked.append(MarkedVictim(seq, where, kind, status))
            f["victims"], f["marked"], f["victim_seq"] = tuple(v), tuple(marked), seq
        # C5.7: the victims left in the supply; unset, the fresh game's, less any victims the
        # position has on the board, held, dead or rescued beyond what the fresh game took
        if "victim_supply" in s:
            f["victims_taken"] = g.victim_supply - s["victim_supply"]
        else:
            out = sum(f.get("victims", base.victims)) + sum(k for _h, k in base.holding) + \
                f.get("dead", base.dead) + f.get("rescued", base.rescued)
            f["victims_taken"] = max(base.victims_taken, out)
        # the killer's board body
        if base.killers and any(k in s for k in ("killer_loc", "killer_health", "killer_breath", "killer_status")):
            k0 = base.killers[0]
            d = dict(k0.__dict__)
            if "killer_loc" in s:
                d["loc"] = s["killer_loc"]
            if "killer_health" in s:
                d["health"] = s["killer_health"]
            if "killer_breath" in s:
                breath, value = s["killer_breath"]
                d["breath"] = breath
                if value is not None:
                    d["breath_value"] = value
            if "killer_status" in s:
                d["status"] = s["killer_status"]
            f["killers"] = (KillerState(**d), *base.killers[1:])
        if "body_facts" in s:  # killer BODY …: the declared bodies, each by its id
            f["killers"] = self._compose_bodies(list(f.get("killers", base.killers)))
        if "bodies" in s:
            kid = g.killer.id
            kept = f.get("killers", base.killers)[:1] if not g.no_board else ()
            if "body_facts" in s:  # the declared bodies stay, each as its lines set it
                kept = tuple(k for k in f["killers"] if k.body and not k.label)
            f["killers"] = (*kept, *(KillerState(kid, where, hp, 0, 0, True, status, label)
                                     for label, where, hp, status in s["bodies"]))
        self._compose_active(f, base)
        if "minions_none" in s and "minion_lines" in s:
            raise self.fail("minions_none", "'minions none' and a minions line together", "keep one")
        if "minion_lines" in s or "minions_none" in s:
            ms: list[MinionState] = []
            count: Counter[str] = Counter()
            for kind, where, k, status, span in s.get("minion_lines", []):
                m = g.minions[kind]
                count[kind] += k
                if count[kind] > m.limit:
                    raise self.r.error(span, "E406", f"{count[kind]} {kind}s are on the board, more than their "
                                                     f"{m.limit} tokens", "C15.1: the tokens limit the minions")
                for _ in range(k):
                    ms.append(MinionState(kind, where, m.health, status, len(ms) + 1))
            f["minions"] = tuple(ms)
            f["minion_seq"] = max(base.minion_seq, len(ms))
        # tokens: the board's and her collection come from the supply
        if "tokens_none" in s and "tokens" in s:
            raise self.fail("tokens_none", "'tokens none' and a tokens line together", "keep one")
        if "tokens" in s or "tokens_none" in s or "collected" in s:
            supply = list(f.get("supply", base.supply))
            board = list(base.tokens)
            down = list(base.tokens_down)
            collected = list(base.collected)
            if "tokens" in s or "tokens_none" in s:
                supply += [(t, k) for t, k, _loc in (*board, *down)]
                board, down = [], []
            if "collected" in s:
                supply += collected
                collected = []
            for token, kind, where, face_down, span in s.get("tokens", []):
                self._take(supply, token, kind, span)
                (down if face_down else board).append((token, kind, where))
            for token, kind, span in s.get("collected", []):
                self._take(supply, token, kind, span)
                collected.append((token, kind))
            f["supply"], f["tokens"], f["collected"] = tuple(supply), tuple(board), tuple(sorted(collected))
            f["tokens_down"] = tuple(down)

        if "tokens_on" in s:
            self._compose_tokens_on(f, base)
        if "tracks" in s:  # track TRACK N
            f["tracks"] = tuple((tid, s["tracks"].get(tid, v)) for tid, v in base.tracks)
        if "conveyances" in s:  # conveyance ID at LOCATION | conveyance ID off board
            f["conveyances"] = tuple(s["conveyances"].get(c.id, at) for c, at in zip(g.conveyances, base.conveyances))
        if "slots" in s:  # slots N…: the slots of her card's start side filled (C5.5)
            filled = s["slots"]
            flipped = s.get("flipped", base.flipped)
            if flipped and filled:
                raise self.fail("slots", "her card is flipped: its slots are cleared (C5.6)", "write 'slots none'")
            if not flipped and len(filled) >= g.fg.rescues:
                raise self.fail("slots", f"{len(filled)} filled slots would have flipped her card at "
                                         f"{g.fg.rescues} (C5.6)", "fewer slots, or 'flipped'")
            if "rescued" in s and not flipped and s["rescued"] != len(filled):
                raise self.fail("slots", f"{len(filled)} slots are filled but {s['rescued']} victims rescued",
                                "on the start side each rescue fills one slot (C5.5)")
            f["slots"] = tuple(i + 1 in filled for i in range(len(base.slots)))
            if "rescued" not in s and not flipped:
                f["rescued"] = len(filled)

    def _compose_bodies(self, ks: list[KillerState]) -> tuple[KillerState, ...]:
        """The declared bodies as their 'killer BODY …' lines set them."""
        s = self.spec
        for bid, facts in s["body_facts"].items():
            i = next((j for j, k in enumerate(ks) if k.body == bid and not k.label), -1)
            if i < 0:
                raise self.fail(f"body:{bid}:{next(iter(facts))}", f"{bid} is not on the killer board of this game")
            d = dict(ks[i].__dict__)
            for key in ("loc", "health", "status"):
                if key in facts:
                    d[key] = facts[key]
            if "last_breath" in facts:
                d["breath"], value = facts["last_breath"]
                if value is not None:
                    d["breath_value"] = value
            if facts.get("aside"):  # K2.9, K3.6: its last breath is gone while others remain
                if facts.get("health", 0) != 0:
                    raise self.fail(f"body:{bid}:aside", f"{bid} is set aside with health {facts['health']}",
                                    "a killer is set aside when its last-breath token is lost: its health is 0")
                if d["loc"] < 0:
                    raise self.fail(f"body:{bid}:aside", f"{bid} is set aside off the board", "give it a location")
                ph, start = s.get("phase", ("action", False))
                if ph not in DECISION_PHASES or start:
                    raise self.fail(f"body:{bid}:aside", f"a killer set aside at the start of the {ph} phase",
                                    "a killer set aside comes back or dies when the phase it was set aside in ends "
                                    "(K2.9): only a position at a decision inside a phase has one")
                d["health"], d["aside"] = 0, True
            if facts.get("defeated"):
                if len(facts) > 1:
                    raise self.fail(f"body:{bid}:defeated", f"{bid} is defeated: it has no place, health or token",
                                    "leave its other lines out")
                d.update(alive=False, health=0, breath=0, loc=-1, aside=False)
            ks[i] = KillerState(**d)
        living = [k for k in ks if k.alive]
        if living and all(k.aside for k in living):
            first = next(iter(s["body_facts"]))
            raise self.fail(f"body:{first}:aside", "every killer still in the game is set aside",
                            "the last one standing is never set aside (K2.9)")
        return tuple(ks)

    def _compose_active(self, f: dict[str, Any], base: GameState) -> None:
        """K3.2: the active marker: as the position says, on a killer in play; unsaid, the fresh
        game's, or (that one gone or set aside) the topmost killer in play."""
        ks = f.get("killers", base.killers)
        if not ks:
            return
        if "active" in self.spec:
            who, span = self.spec["active"]
            i = next((j for j, k in enumerate(ks) if (k.label == who) or (k.body == who and not k.label)), -1)
            if i < 0:
                raise self.r.error(span, "E402", f"no killer '{who}' is on the board of this position",
                                   close_hint(who, [k.label or k.body for k in ks]))
            if not ks[i].alive or ks[i].aside:
                raise self.fail("active", f"{who} is {'defeated' if not ks[i].alive else 'set aside'}: the marker "
                                          "skips killers not in play (K3.2)")
            f["active"] = i
            return
        a = base.active
        if not (0 <= a < len(ks) and ks[a].alive and not ks[a].aside):
            f["active"] = next((j for j, k in enumerate(ks) if k.alive and not k.aside), 0)

    def _compose_tokens_on(self, f: dict[str, Any], base: GameState) -> None:
        """tokens TOKEN KIND on …: from the supply (after the board's and her collection's)."""
        g = self.game
        supply = list(f.get("supply", base.supply))
        token_on = list(f.get("token_on", base.token_on))
        marked = list(f.get("marked", base.marked))
        seq = f.get("victim_seq", base.victim_seq)
        victims = f.get("victims", base.victims)
        minions = f.get("minions", base.minions)
        ks = f.get("killers", base.killers)
        for token, kind, holder, up, span in self.spec["tokens_on"]:
            self._take(supply, token, kind, span)
            what = holder[0]
            if what == "item":
                key = self._card(f, base, holder[1], holder[2], span)
            elif what == "killer":
                body = holder[1]
                k = next((k for k in ks if k.alive and (k.body == body or not body)), None)
                if k is None:
                    raise self.r.error(span, "E406", f"no killer {body} is in play to hold it".replace("  ", " "))
                key = f"killer:{k.body or k.label}"
            elif what == "victim":
                where = holder[2]
                plain = victims[where] - sum(1 for m in marked if m.loc == where)
                if plain <= 0:
                    raise self.r.error(span, "E406", f"no victim of no kind is at {g.board.ids[where]} to hold it",
                                       "add one with a 'victims' line")
                seq += 1
                marked.append(MarkedVictim(seq, where))
                key = f"victim:{seq}"
            else:
                m = next((m for m in minions if m.kind == holder[1] and m.loc == holder[2]), None)
                if m is None:
                    raise self.r.error(span, "E406", f"no {holder[1]} is at {g.board.ids[holder[2]]} to hold it",
                                       "add one with a 'minions' line")
                key = f"minion:{m.uid}"
            token_on.append((key, token, kind, up))
        f["supply"], f["token_on"] = tuple(supply), tuple(token_on)
        f["marked"], f["victim_seq"] = tuple(marked), seq

    def _card(self, f: dict[str, Any], base: GameState, iid: str, nth: int, span: Span) -> str:
        """The holder of the nth card of an item in play (hands, backpack, table, aside), numbered now if
        it has no number yet (engine/copies.py)."""
        g = self.game
        places: list[tuple[str, int, int]] = []  # (field, index, number)
        for name in ("held", "pack"):
            places += [(name, i, h.copy) for i, h in enumerate(f.get(name, getattr(base, name))) if h.id == iid]
        for name in ("table", "aside"):
            places += [(name, i, int(x.partition("#")[2] or 0)) for i, x in enumerate(getattr(base, name))
                       if x.partition("#")[0] == iid]
        if len(places) < nth:
            raise self.r.error(span, "E406", f"no card {nth} of {g.items[iid].name} is in play to hold it"
                               if nth > 1 else f"no card of {g.items[iid].name} is in play to hold it",
                               "give her one with 'hands' or 'backpack'")
        name, i, k = places[nth - 1]
        if not k:
            k = f["item_seq"] = f.get("item_seq", base.item_seq) + 1
            if name in ("held", "pack"):
                cards = list(f.get(name, getattr(base, name)))
                cards[i] = HeldItem(cards[i].id, cards[i].uses, k)
                f[name] = tuple(cards)
            else:
                cards = list(f.get(name, getattr(base, name)))
                cards[i] = f"{iid}#{k}"
                f[name] = tuple(cards)
        return f"item:{iid}#{k}"

    def _take(self, supply: list[tuple[str, str]], token: str, kind: str, span: Span) -> None:
        if (token, kind) not in supply:
            raise self.r.error(span, "E406", f"no {kind} {token} token is left for this line",
                               "the supply, the board and her collection share the tokens the content declares")
        supply.remove((token, kind))

    def _compose_decks(self, f: dict[str, Any], base: GameState) -> None:
        s, g = self.spec, self.game
        f["terror"] = _topped(base.terror, s.get("terror:top"), s.get("terror:left"))
        f["events"] = _topped(base.events, s.get("events:top"), s.get("events:left"))
        if "events:active" in s:
            f["events_active"] = s["events:active"]
        if "finale" in s:
            f["finale"], f["finale_revealed"] = s["finale"]
        if "dark_power" in s:
            f["dark_power"], f["dark_revealed"] = s["dark_power"]
        if f.get("finale_revealed", base.finale_revealed) and f.get("dark_power", base.dark_power) and \
                not f.get("dark_revealed", base.dark_revealed):
            if "dark_power" in s:  # C11.1: revealing the finale turns a face-down dark power up too
                raise self.fail("dark_power", "a face-up finale with a face-down dark power: revealing the finale "
                                              "turns the dark power up too (C11.1)", "write 'dark_power ID revealed'")
            f["dark_revealed"] = True  # unsaid: face up, as play leaves it
        if "secondary" in s:
            tid, hp = s["secondary"]
            f["secondary"], f["secondary_health"] = tid, hp
            f["terror"] = tuple(c for c in f["terror"] if c != tid)  # in its slot, not in the deck
        piles = [list(p) for p in f.get("piles", base.piles)]
        for k, where in enumerate(g.board.search_locs):
            top, left = s.get(f"pile:{where}:top"), s.get(f"pile:{where}:left")
            if top is None and left is None:
                continue
            if top is not None:
                for other in piles:  # the named items come from wherever they were
                    other[:] = [(c, up) for c, up in other if c not in top]
                piles[k] = [(c, False) for c in top] + piles[k]
            if left is not None:
                piles[k] = piles[k][:left]
            piles[k] = list(_faced(piles[k]))
        f["piles"] = tuple(tuple(p) for p in piles)
        if "on_piles" in s:  # K2.2: the items face up on top of the piles
            f["on_piles"] = s["on_piles"]
        decks = dict(base.decks)
        kept = list(base.kept)
        for did, cards in s.get("kept", {}).items():
            kept = [k for k in kept if not k.startswith(did + "/")] + [f"{did}/{c}" for c in cards]
            decks[did] = tuple(c for c in decks[did] if c not in cards)
        for did in list(decks):
            top, left = s.get(f"deck:{did}:top"), s.get(f"deck:{did}:left")
            for c in top or ():
                if c in s.get("kept", {}).get(did, ()):
                    raise self.fail(f"deck:{did}:top", f"{c} is kept in front of her: it is not in the deck",
                                    "leave it out of one of the two lines")
            decks[did] = _topped(decks[did], top, left)
        f["decks"] = tuple((did, decks[did]) for did, _ in base.decks)
        f["kept"] = tuple(kept)


def _faced(pile: Sequence[tuple[str, bool]]) -> tuple[tuple[str, bool], ...]:
    """A pile laid out as at setup (C18.4): the top card face up, the others face down."""
    return tuple((c, j == 0) for j, (c, _up) in enumerate(pile))


def _topped(deck: tuple[str, ...], top: Optional[Sequence[str]], left: Optional[int]) -> tuple[str, ...]:
    """A deck with ``top`` on top (taken from wherever they were; the deck keeps its size unless it
    was smaller than ``top``), then cut to its first ``left`` cards."""
    out = tuple(deck)
    if top:
        rest = tuple(c for c in out if c not in top)
        out = (tuple(top) + rest)[:max(len(out), len(top))]
    if left is not None:
        out = out[:left]
    return out


def _settled_start(fresh: GameState) -> GameState:
    """The settled state a position starts from: the checkpoint of the fresh game's first decision
    after its setup (a choice during setup, which content may ask, takes its first option)."""
    state = fresh
    for _ in range(50):
        if state.over or state.phase != "setup":
            break
        assert state.choice is not None
        state, _ = engine.apply(state, state.choice.options[0].key)
    return state.checkpoint if state.checkpoint is not None else state
