"""Rulings that run: a position, the choices made from it, and the facts expected (issue #15).

A rulings file (``*.ruling``) holds ``ruling ID { … }`` blocks in the content language's syntax::

    ruling two-victims-follow-at-most {
      says "Leaving a location, she takes at most two of its victims along."
      rules "C5.3"
      position {
        scenario SCENARIO-ID; fg at PLACE; victims at PLACE 3
        hand walk; dice 6 6 1; phase action
      }
      play walk
      answer move NEXT-PLACE
      answer follow 2
      expect victims at NEXT-PLACE 2
      expect log "2 victims follow"
    }

``play CARD`` answers ``play:CARD``; ``answer WORD…`` answers the key its words make joined by
':' (``answer move NEXT-PLACE`` is ``move:NEXT-PLACE``; a key in double quotes is taken as
written); ``expect FACT`` (or ``expect not FACT``) checks a fact of the game at that
point (FACTS lists them; ``log "…"`` looks for the text in the log so far, each event written
with its rule id as ``text [C5.3]``). ``run`` plays a ruling and reports the first step that
does not hold, with the log; ``verify`` runs files and folders of them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import attrs
from lastbreath.dsl import ContentError, Diagnostic, IllegalChoice, RulesError, Span, parse_text
from lastbreath.dsl.diagnostics import cap_per_file
from lastbreath.dsl.ruleset import Ruleset
from lastbreath.dsl.syntax import MAX_BYTES, Atom, Block, Line

from . import engine
from .position import (
    MAX_COUNT,
    PHASES,
    LineStop,
    Position,
    Reader,
    check_position,
    close_hint,
    content_names,
    run_position,
    sorted_diags,
)
from .state import Event, GameState

__all__ = ["FACTS", "STOPS", "SUFFIX", "Outcome", "Ruling", "Step", "check_text", "expect", "find_files",
           "parse_rulings", "run", "verify"]

SUFFIX = ".ruling"
MAX_STEPS = 500  # steps in one ruling
MAX_FILES = 2000  # files in one verify

# what 'expect' can check: the fact's first words and its shape (for hints and docs)
FACTS: dict[str, str] = {
    "fg": "fg at LOCATION | fg health N | fg fear N | fg time N | fg last_breath black|white|gone | fg status NAME",
    "health": "health N", "fear": "fear N", "time": "time N",
    "last_breath": "last_breath black|white|gone",
    "hand": "hand CARD… | hand has CARD", "market": "market has CARD | market CARD N", "spent": "spent CARD…",
    "hands": "hands ITEM…", "backpack": "backpack ITEM…", "uses": "uses ITEM N",
    "rescued": "rescued N", "flipped": "flipped",
    "killer": "killer at LOCATION | killer health N | killer last_breath black|white|gone | "
              "killer status NAME | killer defeated | killer BODY at LOCATION | killer BODY health N | "
              "killer BODY last_breath black|white|gone | killer BODY status NAME | killer BODY aside | "
              "killer BODY defeated",
    "active": 'active BODY | active "LABEL"',
    "body": 'body "LABEL" at LOCATION | body "LABEL" health N', "bodies": "bodies N",
    "victims": "victims at LOCATION N | victims N", "dead": "dead N",
    "victim": "victim KIND at LOCATION N | victim status NAME at LOCATION N | victim supply N",
    "status": "status NAME",
    "minions": "minions N | minions at LOCATION N | minions KIND at LOCATION N | minions status NAME at LOCATION N",
    "tokens": "tokens TOKEN at LOCATION N | tokens TOKEN on item ITEM N | tokens TOKEN on killer [BODY] N | "
              "tokens TOKEN on victims at LOCATION N | tokens TOKEN on minions at LOCATION N",
    "collected": "collected TOKEN N",
    "bloodlust": "bloodlust LEVEL", "mode": "mode ID", "flag": "flag NAME",
    "finale": "finale revealed", "dark_power": "dark_power revealed",
    "secondary": "secondary ID | secondary none | secondary health N",
    "event": "event ID in play | event ID lasting | event ID one-off",
    "track": "track TRACK N", "slots": "slots N… | slots none",
    "terror": "terror left N", "events": "events left N", "deck": "deck DECK left N", "kept": "kept DECK CARD",
    "dice": "dice left N",
    "phase": "phase NAME", "round": "round N", "result": "result fg|killer|none",
    "choice": "choice KIND|none", "option": "option WORD…", "options": 'options "KEY"… | options none',
    "log": 'log "TEXT"…',
    "conveyance": "conveyance ID at LOCATION | conveyance ID off board",
}
STEPS = {"play": "play CARD", "answer": 'answer WORD… | answer "KEY"', "expect": "expect [not] FACT",
         "stop": "stop after killer-start|killer-action|terror-card|killer-phase|panic-phase"}
# where 'stop after NAME' stops the game, between two steps: (phase, its step); the game stops there
# or at the first step boundary past it this round (the Killer phase's parts, C8.1-C8.2; C10)
STOPS: dict[str, tuple[str, int]] = {"killer-start": ("killer", 1), "killer-action": ("killer", 2),
                                     "terror-card": ("killer", 3), "killer-phase": ("panic", 0),
                                     "panic-phase": ("upkeep", 0)}
HEADS = {"says": 'says "TEXT"', "rules": 'rules "ID"…', "position": "position { … }", **STEPS}

Check = Callable[[GameState, list[Event]], tuple[bool, str]]


@attrs.frozen
class Step:
    """One step of a ruling: an answer (``key``) or an expected fact (``check``)."""

    span: Span
    text: str  # the line as written
    key: str = ""
    check: Optional[Check] = None
    negate: bool = False
    stop: str = ""  # 'stop after NAME': a name of STOPS


@attrs.frozen
class Ruling:
    id: str
    path: str
    span: Span
    says: str
    rules: tuple[str, ...]
    position: Position
    steps: tuple[Step, ...]


@attrs.frozen
class Outcome:
    """A ruling run: ``ok``, or the step that did not hold (``step``) and why (``message``); the
    log of the run (every event from the position on, and each answer as a ``choice`` event)."""

    ruling: Ruling
    ok: bool
    step: Optional[Step]
    message: str
    log: tuple[Event, ...]
    state: Optional[GameState]

    def to_json(self) -> dict[str, Any]:
        r = self.ruling
        out: dict[str, Any] = {"path": r.path, "line": r.span.line, "id": r.id, "rules": list(r.rules),
                               "says": r.says, "ok": self.ok}
        if not self.ok:
            s = self.step
            out["failure"] = {"line": s.span.line if s else r.span.line, "col": s.span.col if s else r.span.col,
                              "step": s.text if s else "", "message": self.message}
        out["log"] = [{"kind": e.kind, "text": e.text, "rule": e.rule} for e in self.log]
        return out


# --- reading ------------------------------------------------------------------------------------
def parse_rulings(rs: Ruleset, text: str, path: str = "<rulings>") -> tuple[list[Ruling], list[Diagnostic]]:
    """The rulings of a file's text, checked; never raises for bad input."""
    lines, diags = parse_text(text, path)
    if diags:
        return [], cap_per_file(diags, complete=True)
    reader = Reader(path)
    out: list[Ruling] = []
    for ln in lines:
        try:
            out.append(_ruling(rs, reader, ln))
        except LineStop:
            continue
    if not lines:
        reader.error(Span(path, 1, 1, 1, 2), "E400", "no 'ruling ID { … }' block", "a rulings file holds rulings")
    return (out if not reader.diags else []), cap_per_file(sorted_diags(reader.diags), complete=True)


def check_text(rs: Ruleset, text: str, path: str = "<text>") -> list[Diagnostic]:
    """The diagnostics of a position or a rulings file (a file whose first block is 'ruling' is one)."""
    lines, diags = parse_text(text, path)
    if diags:
        return cap_per_file(diags, complete=True)
    if any(ln.head() == "ruling" for ln in lines):
        return parse_rulings(rs, text, path)[1]
    from .position import parse_position
    return parse_position(rs, text, path)[1]


def _ruling(rs: Ruleset, r: Reader, ln: Line) -> Ruling:
    words = ln.words()
    if ln.head() != "ruling" or len(ln.parts) != 3 or not isinstance(ln.parts[2], Block) \
            or words[1].kind != "name":
        raise r.error(ln.span, "E400", f"'{ln.text()[:40]}' is not a ruling",
                      "a rulings file holds 'ruling ID { … }' blocks")
    rid = str(words[1].value)
    r.once(f"ruling:{rid}", ln, f"ruling {rid}")
    block = ln.parts[2]
    says, pos = "", None
    rules: tuple[str, ...] = ()
    raw_steps: list[tuple[Line, list[Atom]]] = []
    seen: set[str] = set()
    ok = True
    for sl in block.lines:
        head = sl.head()
        try:
            if head not in HEADS:
                first = sl.parts[0] if sl.parts else None
                word = first.text() if isinstance(first, Atom) else ("{ … }" if first is not None else "")
                raise r.error(sl.span, "E401", f"unknown line '{word}' in a ruling", close_hint(word, list(HEADS)))
            if head in ("says", "rules", "position"):
                if head in seen:
                    raise r.error(sl.span, "E405", f"'{head}' is given twice in ruling {rid}", "keep one")
                seen.add(head)
            if head == "position":
                if len(sl.parts) != 2 or not isinstance(sl.parts[1], Block):
                    raise r.error(sl.span, "E404", "a position is 'position { … }'", HEADS["position"])
                got, _ = check_position(rs, sl.parts[1], r.child())
                if got is None:
                    ok = False
                pos = got
                continue
            atoms = r.atoms_only(sl)
            if head == "says":
                says = r.string(atoms, 1, sl, HEADS["says"])
                r.end(atoms, 2, HEADS["says"])
            elif head == "rules":
                rules = tuple(_rule_ids(r, atoms, sl))
            else:
                if len(raw_steps) >= MAX_STEPS:
                    raise r.error(sl.span, "E403", f"more than {MAX_STEPS} steps in one ruling", "split it")
                raw_steps.append((sl, atoms))
        except LineStop:
            ok = False
    missing = [w for w in ("rules", "position") if w not in seen]
    if missing:
        raise r.error(ln.span, "E400", f"ruling {rid} has no '{missing[0]}' line",
                      'a ruling cites its rule ids (rules "C5.3") and sets its position { … }')
    if pos is None:  # no game to check the steps against
        raise LineStop()
    steps = []
    for sl, atoms in raw_steps:
        try:
            steps.append(_step(rs, r, pos, sl, atoms))
        except LineStop:
            ok = False
    if not ok:
        raise LineStop()
    return Ruling(rid, r.path, ln.span, says, rules, pos, tuple(steps))


def _rule_ids(r: Reader, atoms: list[Atom], ln: Line) -> list[str]:
    from . import rules_reference as rr

    if len(atoms) < 2:
        raise r.error(ln.span, "E404", "a ruling cites at least one rule id", HEADS["rules"])
    try:
        ref = rr.load_reference()
    except (OSError, rr.RulesPageError):  # no rules page to check against: take the ids as written
        ref = None
    out = []
    for a in atoms[1:]:
        if a.kind != "string":
            raise r.error(a.span, "E404", f"a rule id is written in double quotes: \"{a.text()}\"", HEADS["rules"])
        rid = rr.normalize(str(a.value))
        if ref is not None and ref.find(rid) is None:
            close = ref.suggestions(rid)
            raise r.error(a.span, "E402", f"unknown rule id '{rid}'",
                          f"did you mean {' or '.join(close)}?" if close else "'lastbreath rule' lists every id")
        out.append(rid)
    return out


def _key(r: Reader, atoms: list[Atom], i: int, ln: Line, usage: str) -> str:
    """An answer's key: a string as written, or words and numbers joined by ':'."""
    if i >= len(atoms):
        raise r.error(ln.span, "E404", "the line ends too soon", usage)
    if atoms[i].kind == "string":
        r.end(atoms, i + 1, usage)
        return str(atoms[i].value)
    parts = []
    for a in atoms[i:]:
        if a.kind not in ("name", "number"):
            raise r.error(a.span, "E404", f"unexpected {a.text()} in a key", usage)
        parts.append(str(a.value))
    return ":".join(parts)


def _step(rs: Ruleset, r: Reader, pos: Position, ln: Line, atoms: list[Atom]) -> Step:
    head = ln.head()
    text = ln.text()
    game = pos.settled.game
    if head == "play":
        cid = r.ref(atoms, 1, ln, STEPS["play"], game.cards, "card in this game")
        r.end(atoms, 2, STEPS["play"])
        return Step(ln.span, text, key=f"play:{cid}")
    if head == "answer":
        return Step(ln.span, text, key=_key(r, atoms, 1, ln, STEPS["answer"]))
    if head == "stop":
        if r.name(atoms, 1, ln, STEPS["stop"]) != "after":
            raise r.error(atoms[1].span, "E404", f"'after' is needed here, not {atoms[1].text()}", STEPS["stop"])
        where = r.ref(atoms, 2, ln, STEPS["stop"], STOPS, "place to stop")
        r.end(atoms, 3, STEPS["stop"])
        return Step(ln.span, text, stop=where)
    i = 1
    negate = False
    if len(atoms) > 1 and atoms[1].kind == "name" and atoms[1].value == "not":
        negate, i = True, 2
    return Step(ln.span, text, check=_Facts(rs, r, pos, ln, atoms).fact(i), negate=negate)


# --- the facts ----------------------------------------------------------------------------------
def _loc_name(state: GameState, i: int) -> str:
    return state.game.board.ids[i] if 0 <= i < state.game.board.n else "off the board"


def _breath(breath: int) -> str:
    return {2: "black", 1: "white"}.get(breath, "gone")


class _Facts:
    """Reads the words of one 'expect' line into a check."""

    def __init__(self, rs: Ruleset, r: Reader, pos: Any, ln: Line, atoms: list[Atom]) -> None:
        self.rs, self.r, self.ln, self.a = rs, r, ln, atoms
        self.game = pos.settled.game if isinstance(pos, Position) else pos  # a position, or a state's Game
        self.board = self.game.board

    def name(self, i: int, usage: str) -> str:
        return self.r.name(self.a, i, self.ln, usage)

    def word(self, i: int, usage: str, words: Sequence[str], what: str = "word") -> str:
        return self.r.ref(self.a, i, self.ln, usage, words, what)

    def num(self, i: int, usage: str, low: int = 0, high: int = MAX_COUNT, what: str = "the number") -> int:
        return self.r.number(self.a, i, self.ln, usage, low, high, what)

    def end(self, i: int, usage: str) -> None:
        self.r.end(self.a, i, usage)

    def loc(self, i: int, usage: str) -> int:
        return self.board.index[self.r.ref(self.a, i, self.ln, usage, self.board.index, "location")]

    def ref(self, i: int, usage: str, known: Any, what: str) -> str:
        return self.r.ref(self.a, i, self.ln, usage, known, what)

    def refs(self, i: int, usage: str, known: Any, what: str) -> list[str]:
        return self.r.refs(self.a, i, self.ln, usage, known, what)

    def fact(self, i: int) -> Check:
        head = self.name(i, STEPS["expect"])
        if head not in FACTS:
            raise self.r.error(self.a[i].span, "E401", f"unknown fact '{head}' to expect",
                               close_hint(head, list(FACTS)))
        if head == "fg":
            word = self.word(i + 1, FACTS["fg"], ("at", "health", "fear", "time", "last_breath", "status"))
            if word != "at":
                return self.read(word, i + 1)
        return self.read(head, i)

    def read(self, head: str, i: int) -> Check:
        u = FACTS[head]
        g = self.game

        def number(get: Callable[[GameState], int], shown: Callable[[int], str] = str,
                   low: int = -MAX_COUNT, high: int = MAX_COUNT, at: int = i + 1) -> Check:
            want = self.num(at, u, low, high)
            self.end(at + 1, u)
            return lambda st, log: (get(st) == want, shown(get(st)))

        if head == "fg":  # fg at LOC
            where = self.loc(i + 2, u)
            self.end(i + 3, u)
            return lambda st, log: (st.fg_loc == where, f"she is at {_loc_name(st, st.fg_loc)}")
        if head == "health":
            return number(lambda st: st.fg_health, lambda v: f"her health is {v}")
        if head == "fear":
            return number(lambda st: st.fear, lambda v: f"her fear is {v}")
        if head == "time":
            return number(lambda st: st.time, lambda v: f"her time is {v}")
        if head == "last_breath":
            want = self.word(i + 1, u, ("black", "white", "gone"), "last-breath token")
            self.end(i + 2, u)
            return lambda st, log: (_breath(st.fg_breath) == want, f"her token is {_breath(st.fg_breath)}")
        if head in ("hand", "market"):
            if len(self.a) > i + 1 and self.a[i + 1].kind == "name" and self.a[i + 1].value == "has":
                cid = self.ref(i + 2, u, g.cards, "card in this game")
                self.end(i + 3, u)
                return lambda st, log: (cid in getattr(st, head),
                                        f"the {head} is {' '.join(getattr(st, head)) or 'empty'}")
            if head == "market":  # market CARD N: the copies of a card in the market
                cid = self.ref(i + 1, u, g.cards, "card in this game")
                return number(lambda st: st.market.count(cid), lambda v: f"the market holds {v} of {cid}", 0,
                              MAX_COUNT, at=i + 2)
        if head in ("hand", "spent"):
            want_cards = sorted(self.refs(i + 1, u, g.cards, "card in this game"))
            return lambda st, log: (sorted(getattr(st, head)) == want_cards,
                                    f"the {head} is {' '.join(sorted(getattr(st, head))) or 'empty'}")
        if head in ("hands", "backpack"):
            want_items = sorted(self.refs(i + 1, u, g.items, "item"))
            attr = "held" if head == "hands" else "pack"
            return lambda st, log: (sorted(h.id for h in getattr(st, attr)) == want_items,
                                    f"the {head} hold {' '.join(h.id for h in getattr(st, attr)) or 'nothing'}")
        if head == "uses":
            iid = self.ref(i + 1, u, g.items, "item")
            left = self.num(i + 2, u)
            self.end(i + 3, u)

            def uses(st: GameState, log: list[Event]) -> tuple[bool, str]:
                got = next((h.uses for h in (*st.held, *st.pack) if h.id == iid), None)
                return got == left, f"{iid} has {got} uses left" if got is not None else f"she has no {iid}"
            return uses
        if head == "rescued":
            return number(lambda st: st.rescued, lambda v: f"{v} rescued")
        if head in ("flipped",):
            self.end(i + 1, u)
            return lambda st, log: (st.flipped, "her card is flipped" if st.flipped else "her card is not flipped")
        if head == "killer":
            return self.killer(i, u)
        if head == "active":  # active BODY | active "LABEL" (K3.2)
            if len(self.a) > i + 1 and self.a[i + 1].kind == "string":
                who = self.r.string(self.a, i + 1, self.ln, u)
            else:
                who = self.ref(i + 1, u, [b.id for b in g.killer.bodies if not b.formed], f"body of {g.killer.name}")
            self.end(i + 2, u)

            def active(st: GameState, log: list[Event]) -> tuple[bool, str]:
                ks = st.killers
                k = ks[st.active] if 0 <= st.active < len(ks) else None
                name = (k.label or k.body or "the killer") if k is not None else "none"
                return k is not None and (k.label == who or (k.body == who and not k.label)), f"{name} is active"
            return active
        if head == "conveyance":  # conveyance ID at LOCATION | conveyance ID off board
            cid = self.ref(i + 1, u, g.conveyance_index, f"conveyance of {g.scenario.name}")
            k = g.conveyance_index[cid]
            if self.word(i + 2, u, ("at", "off")) == "at":
                where = self.loc(i + 3, u)
            else:
                self.word(i + 3, u, ("board",))
                where = -1
            self.end(i + 4, u)
            return lambda st, log: (st.conveyances[k] == where,
                                    f"the {g.conveyances[k].name} is {_where(st, st.conveyances[k])}")
        if head == "track":  # track TRACK N
            tid = self.ref(i + 1, u, g.tracks, "track")
            return number(lambda st: dict(st.tracks).get(tid, 0), lambda v: f"the {tid} track is on {v}", at=i + 2)
        if head == "slots":  # slots N… | slots none: exactly these slots of her card filled
            if len(self.a) == i + 2 and self.a[i + 1].kind == "name" and self.a[i + 1].value == "none":
                want_slots: list[int] = []
            else:
                want_slots = sorted({self.num(j, u, 1, len(g.fg.slots)) for j in range(i + 1, max(i + 2, len(self.a)))})
            return lambda st, log: ([j + 1 for j, f in enumerate(st.slots) if f] == want_slots,
                                    "slots filled: " + (" ".join(str(j + 1) for j, f in enumerate(st.slots) if f)
                                                        or "none"))
        if head == "event":  # event ID in play | lasting | one-off (C18.5)
            eid = self.ref(i + 1, u, g.events, "event of this scenario")
            what = self.word(i + 2, u, ("in", "lasting", "one-off"))
            if what == "in":
                self.word(i + 3, u, ("play",))
                self.end(i + 4, u)
                return lambda st, log: (eid in st.events_active, "in play: " + (" ".join(st.events_active) or "none"))
            self.end(i + 3, u)
            lasting = g.events[eid].lasting
            return lambda st, log: (lasting == (what == "lasting"), f"{eid} is {'lasting' if lasting else 'one-off'}")
        if head == "options":  # options "KEY"… | options none: exactly the keys offered, in order
            if len(self.a) == i + 2 and self.a[i + 1].kind == "name" and self.a[i + 1].value == "none":
                keys: list[str] = []
            else:
                keys = [self.r.string(self.a, j, self.ln, u) for j in range(i + 1, max(i + 2, len(self.a)))]
            return lambda st, log: ((st.choice.keys() if st.choice is not None else []) == keys,
                                    f"the options are {', '.join(st.choice.keys()) if st.choice else 'none'}")
        if head == "body":
            return self.body(i, u)
        if head == "bodies":
            return number(lambda st: sum(1 for k in st.killers if k.alive and k.loc >= 0),
                          lambda v: f"{v} bodies on the board")
        if head == "victims":
            if len(self.a) > i + 1 and self.a[i + 1].kind == "number":
                return number(lambda st: sum(st.victims), lambda v: f"{v} victims on the board")
            if self.name(i + 1, u) != "at":
                raise self.r.error(self.a[i + 1].span, "E404", f"'at' is needed here, not {self.a[i + 1].text()}", u)
            where = self.loc(i + 2, u)
            return number(lambda st: st.victims[where], lambda v: f"{v} victims there", at=i + 3)
        if head == "dead":
            return number(lambda st: st.dead, lambda v: f"{v} dead")
        if head == "status":  # fg status NAME (issue #16 item 4)
            name = self.name(i + 1, u)
            self.end(i + 2, u)
            return lambda st, log: (name in st.fg_status,
                                    f"her statuses are {' '.join(sorted(st.fg_status)) or 'none'}")
        if head == "victim":  # victim KIND at LOC N / victim status NAME at LOC N (issue #16 items 3-4)
            if self.name(i + 1, u) == "supply":  # victim supply N: the victims left in it (C5.7)
                return number(lambda st: max(0, st.game.victim_supply - st.victims_taken),
                              lambda v: f"{v} victims left in the supply", at=i + 2)
            if self.name(i + 1, u) == "status":
                name, at = self.name(i + 2, u), i + 3
                test: Callable[[Any], bool] = lambda m: name in m.status  # noqa: E731
            else:
                kind, at = self.ref(i + 1, u, g.victim_kinds, "victim kind"), i + 2
                test = lambda m: m.kind == kind  # noqa: E731
            if self.name(at, u) != "at":
                raise self.r.error(self.a[at].span, "E404", f"'at' is needed here, not {self.a[at].text()}", u)
            where = self.loc(at + 1, u)
            return number(lambda st: sum(1 for m in st.marked if m.loc == where and test(m)),
                          lambda v: f"{v} such victims there", at=at + 2)
        if head == "minions":
            return self.minions(i, u)
        if head == "tokens" and len(self.a) > i + 2 and self.a[i + 2].value == "on":
            return self.tokens_on(i, u)
        if head == "tokens":
            token = self.ref(i + 1, u, g.tokens, "token")
            if self.name(i + 2, u) != "at":
                raise self.r.error(self.a[i + 2].span, "E404", f"'at' is needed here, not {self.a[i + 2].text()}", u)
            where = self.loc(i + 3, u)
            return number(lambda st: sum(1 for t, _k, at in (*st.tokens, *st.tokens_down)  # face down too
                                         if t == token and at == where), lambda v: f"{v} there", at=i + 4)
        if head == "collected":
            token = self.ref(i + 1, u, g.tokens, "token")
            return number(lambda st: sum(1 for t, _k in st.collected if t == token),
                          lambda v: f"she has {v}", at=i + 2)
        if head == "bloodlust":
            return number(lambda st: st.bloodlust + 1, lambda v: f"bloodlust is at level {v}")
        if head == "mode":
            mode = self.ref(i + 1, u, g.killer.modes, f"mode of {g.killer.name}")
            self.end(i + 2, u)
            return lambda st, log: (st.mode == mode, f"the mode is {st.mode or 'none'}")
        if head == "flag":
            flag = self.ref(i + 1, u, content_names(self.rs, "flag"), "flag (content never names it)")
            self.end(i + 2, u)
            return lambda st, log: (flag in st.flags, f"the flags are {' '.join(sorted(st.flags)) or 'none'}")
        if head in ("finale", "dark_power"):
            self.word(i + 1, u, ("revealed",))
            self.end(i + 2, u)
            attr = "finale_revealed" if head == "finale" else "dark_revealed"
            return lambda st, log: (getattr(st, attr), f"the {head.replace('_', ' ')} is "
                                                       f"{'revealed' if getattr(st, attr) else 'face down'}")
        if head == "secondary" and len(self.a) > i + 1 and self.a[i + 1].value == "health":
            return number(lambda st: st.secondary_health if st.secondary else 0,
                          lambda v: f"the secondary dark power has {v} health", at=i + 2)
        if head == "secondary":
            known = ["none", *(t for t, c in g.terror.items() if c.secondary_health > 0)]
            sid = self.ref(i + 1, u, known, "secondary dark power")
            self.end(i + 2, u)
            want_sid = "" if sid == "none" else sid
            return lambda st, log: (st.secondary == want_sid, f"the secondary dark power is {st.secondary or 'none'}")
        if head in ("terror", "events"):
            self.word(i + 1, u, ("left",))
            return number(lambda st: len(getattr(st, head)), lambda v: f"{v} cards left", at=i + 2)
        if head == "deck":
            did = self.ref(i + 1, u, g.decks, "deck of this game")
            self.word(i + 2, u, ("left",))
            return number(lambda st: len(dict(st.decks).get(did, ())), lambda v: f"{v} cards left", at=i + 3)
        if head == "kept":
            did = self.ref(i + 1, u, g.decks, "deck of this game")
            cid = self.ref(i + 2, u, [c.id for c in g.decks[did].cards], f"card of {did}")
            self.end(i + 3, u)
            return lambda st, log: (f"{did}/{cid}" in st.kept, f"kept: {' '.join(st.kept) or 'nothing'}")
        if head == "dice":
            self.word(i + 1, u, ("left",))
            return number(lambda st: len(st.dice), lambda v: f"{v} forced dice left", at=i + 2)
        if head == "phase":
            ph = self.ref(i + 1, u, (*PHASES, "over"), "phase")
            self.end(i + 2, u)
            return lambda st, log: (st.phase == ph, f"the phase is {st.phase}")
        if head == "round":
            return number(lambda st: st.round, lambda v: f"it is round {v}")
        if head == "result":
            want_r = self.word(i + 1, u, ("fg", "killer", "none"), "result")
            self.end(i + 2, u)
            return lambda st, log: ((st.result or "none") == want_r, f"the result is {st.result or 'none'}"
                                    + (f" ({st.end_reason})" if st.end_reason else ""))
        if head == "choice":
            kind = self.name(i + 1, u)
            self.end(i + 2, u)
            return lambda st, log: ((st.choice.kind if st.choice else "none") == kind,
                                    f"the choice is {_choice_text(st)}")
        if head == "option":
            key = _key(self.r, self.a, i + 1, self.ln, u)
            return lambda st, log: (st.choice is not None and any(o.key == key for o in st.choice.options),
                                    f"the choice is {_choice_text(st)}")
        # log "TEXT"…: events that say each text, in this order
        texts = [self.r.string(self.a, j, self.ln, u) for j in range(i + 1, max(i + 2, len(self.a)))]
        return lambda st, log: _in_order(texts, log)

    def killer(self, i: int, u: str) -> Check:
        g = self.game
        if g.no_board:
            raise self.r.error(self.a[i].span, "E406", f"{g.killer.name} has no killer board",
                               "its bodies are checked with 'body \"LABEL\" …' or 'bodies N'")
        bodies = [b.id for b in g.killer.bodies if not b.formed]
        first = self.name(i + 1, u)
        if first in bodies:  # killer BODY …: that declared body
            return self.body_of(first, i + 1, u)
        word = self.word(i + 1, u, ("at", "health", "last_breath", "status", "defeated", *bodies))

        def k0(st: GameState):
            return st.killers[0] if st.killers else None
        if word == "at":
            where = self.loc(i + 2, u)
            self.end(i + 3, u)
            return lambda st, log: (k0(st) is not None and k0(st).loc == where,
                                    f"the killer is at {_loc_name(st, k0(st).loc) if k0(st) else 'nowhere'}")
        if word == "health":
            want = self.num(i + 2, u)
            self.end(i + 3, u)
            return lambda st, log: (k0(st) is not None and k0(st).health == want,
                                    f"the killer's health is {k0(st).health if k0(st) else 'gone'}")
        if word == "last_breath":
            want_b = self.word(i + 2, u, ("black", "white", "gone"), "last-breath token")
            self.end(i + 3, u)
            return lambda st, log: (k0(st) is not None and _breath(k0(st).breath) == want_b,
                                    f"the killer's token is {_breath(k0(st).breath) if k0(st) else 'gone'}")
        if word == "status":
            status = self.ref(i + 2, u, content_names(self.rs, "status"), "status")
            self.end(i + 3, u)
            return lambda st, log: (k0(st) is not None and status in k0(st).status,
                                    f"the killer's statuses are {' '.join(sorted(k0(st).status)) if k0(st) else ''}"
                                    .rstrip() or "the killer has no status")
        self.end(i + 2, u)  # defeated
        return lambda st, log: (k0(st) is None or not k0(st).alive,
                                "the killer is defeated" if k0(st) is None or not k0(st).alive else
                                "the killer is not defeated")

    def body_of(self, bid: str, i: int, u: str) -> Check:
        """killer BODY at LOC | health N | last_breath … | status NAME | aside | defeated (K2.7, K3.1)."""
        word = self.word(i + 1, u, ("at", "health", "last_breath", "status", "aside", "defeated"))

        def find(st: GameState):
            return next((k for k in st.killers if k.body == bid and not k.label), None)
        if word == "at":
            where = self.loc(i + 2, u)
            self.end(i + 3, u)
            return lambda st, log: (find(st) is not None and find(st).alive and find(st).loc == where,
                                    f"{bid} is at {_loc_name(st, find(st).loc)}" if find(st) else f"no {bid}")
        if word == "health":
            want = self.num(i + 2, u)
            self.end(i + 3, u)
            return lambda st, log: (find(st) is not None and find(st).health == want,
                                    f"{bid}'s health is {find(st).health}" if find(st) else f"no {bid}")
        if word == "last_breath":
            want_b = self.word(i + 2, u, ("black", "white", "gone"), "last-breath token")
            self.end(i + 3, u)
            return lambda st, log: (find(st) is not None and _breath(find(st).breath) == want_b,
                                    f"{bid}'s token is {_breath(find(st).breath)}" if find(st) else f"no {bid}")
        if word == "status":
            status = self.ref(i + 2, u, content_names(self.rs, "status"), "status")
            self.end(i + 3, u)
            return lambda st, log: (find(st) is not None and status in find(st).status,
                                    f"{bid}'s statuses are {' '.join(sorted(find(st).status)) or 'none'}"
                                    if find(st) else f"no {bid}")
        self.end(i + 2, u)
        if word == "aside":
            return lambda st, log: (find(st) is not None and find(st).aside,
                                    f"{bid} is {'set aside' if find(st) and find(st).aside else 'not set aside'}")
        return lambda st, log: (find(st) is None or not find(st).alive,
                                f"{bid} is {'defeated' if find(st) is None or not find(st).alive else 'not defeated'}")

    def tokens_on(self, i: int, u: str) -> Check:
        """tokens TOKEN on item ITEM N | on killer [BODY] N | on victims at LOC N | on minions at LOC N."""
        g = self.game
        token = self.ref(i + 1, u, g.tokens, "token")
        what = self.word(i + 3, u, ("item", "killer", "victims", "minions"), "holder")
        j = i + 4
        if what == "item":
            iid = self.ref(j, u, g.items, "item")
            j += 1
            # every card of the item in play (engine/copies.py: 'item:ID#N')
            holders: Callable[[GameState], set[str]] = lambda st: (  # noqa: E731
                {f"item:{iid}#{h.copy}" for h in (*st.held, *st.pack) if h.id == iid}
                | {f"item:{x}" for x in (*st.table, *st.aside) if x.partition("#")[0] == iid})
        elif what == "killer":
            bodies = [b.id for b in g.killer.bodies if not b.formed]
            body = ""
            if j < len(self.a) and self.a[j].kind == "name":
                body = self.ref(j, u, bodies, f"body of {g.killer.name}")
                j += 1
            holders = lambda st: {f"killer:{k.body or k.label}" for k in st.killers  # noqa: E731
                                  if k.alive and (not body or k.body == body)}
        else:
            if self.name(j, u) != "at":
                raise self.r.error(self.a[j].span, "E404", f"'at' is needed here, not {self.a[j].text()}", u)
            where = self.loc(j + 1, u)
            j += 2
            if what == "victims":
                holders = lambda st: {f"victim:{m.uid}" for m in st.marked if m.loc == where}  # noqa: E731
            else:
                holders = lambda st: {f"minion:{m.uid}" for m in st.minions if m.loc == where}  # noqa: E731
        return self._count_on(token, holders, j, u)

    def _count_on(self, token: str, holders: Callable[[GameState], set[str]], at: int, u: str) -> Check:
        want = self.num(at, u)
        self.end(at + 1, u)

        def count(st: GameState) -> int:
            hs = holders(st)
            return sum(1 for h, t, _k, _up in st.token_on if h in hs and t == token)
        return lambda st, log: (count(st) == want, f"{count(st)} there")

    def body(self, i: int, u: str) -> Check:
        label = self.r.string(self.a, i + 1, self.ln, u)
        word = self.word(i + 2, u, ("at", "health"))

        def find(st: GameState):
            return next((k for k in st.killers if k.label == label and k.alive), None)
        if word == "at":
            where = self.loc(i + 3, u)
            self.end(i + 4, u)
            return lambda st, log: (find(st) is not None and find(st).loc == where,
                                    f"{label} is at {_loc_name(st, find(st).loc)}" if find(st) else f"no {label}")
        want = self.num(i + 3, u)
        self.end(i + 4, u)
        return lambda st, log: (find(st) is not None and find(st).health == want,
                                f"{label}'s health is {find(st).health}" if find(st) else f"no {label}")

    def minions(self, i: int, u: str) -> Check:
        kinds = [m.id for m in self.game.killer.minions]
        a = self.a
        if len(a) > i + 1 and a[i + 1].kind == "number":
            want = self.num(i + 1, u)
            self.end(i + 2, u)
            return lambda st, log: (len(st.minions) == want, f"{len(st.minions)} minions on the board")
        if self.name(i + 1, u) == "status":  # minions status NAME at LOC N
            status = self.ref(i + 2, u, content_names(self.rs, "status"), "status")
            if self.name(i + 3, u) != "at":
                raise self.r.error(a[i + 3].span, "E404", f"'at' is needed here, not {a[i + 3].text()}", u)
            where_s = self.loc(i + 4, u)
            return self._minion_count(lambda m: m.loc == where_s and status in m.status, i + 5, u)
        kind = None
        j = i + 1
        if self.name(j, u) != "at":
            kind = self.ref(j, u, kinds, f"minion of {self.game.killer.name}")
            j += 1
        if self.name(j, u) != "at":
            raise self.r.error(a[j].span, "E404", f"'at' is needed here, not {a[j].text()}", u)
        where = self.loc(j + 1, u)
        want = self.num(j + 2, u)
        self.end(j + 3, u)

        def count(st: GameState) -> int:
            return sum(1 for m in st.minions if m.loc == where and (kind is None or m.kind == kind))
        return lambda st, log: (count(st) == want, f"{count(st)} there")


    def _minion_count(self, test: Callable[[Any], bool], at: int, u: str) -> Check:
        want = self.num(at, u)
        self.end(at + 1, u)
        return lambda st, log: (sum(1 for m in st.minions if test(m)) == want,
                                f"{sum(1 for m in st.minions if test(m))} there")


def _in_order(texts: Sequence[str], log: Sequence[Event]) -> tuple[bool, str]:
    """Whether events of the log say each text, one after another (each in a later event)."""
    i = 0
    for n, text in enumerate(texts):
        while i < len(log) and text not in log[i].render():
            i += 1
        if i == len(log):
            before = f" after the event saying \"{texts[n - 1]}\"" if n else ""
            return False, f"no event says \"{text}\"{before}"
        i += 1
    return True, "the log says " + " then ".join(f'"{t}"' for t in texts)


def _choice_text(st: GameState) -> str:
    if st.choice is None:
        return "none (the game is over)" if st.over else "none"
    return f"{st.choice.kind} ({', '.join(st.choice.keys()[:10])}{', …' if len(st.choice.options) > 10 else ''})"


def expect(state: GameState, fact: str, log: Sequence[Event] = ()) -> tuple[bool, str]:
    """One fact as a ruling's 'expect' line states it (without the word: ``"killer at millpond"``,
    ``"not option end"``, ``'log "moves to"'``), checked against a state, say one ``api.apply``
    reached: (whether it holds, what the game shows). ``log``: the events so far, for 'log' facts.
    The same words check the same thing in a ruling file. Raises ``ContentError`` (E40x) for a
    fact that does not read."""
    text = f"expect {fact}"
    lines, diags = parse_text(text, "<expect>")
    if diags or len(lines) != 1:
        raise ContentError(diags or [Diagnostic(Span("<expect>", 1, 1, 1, 2), "E404", "one fact is expected")])
    reader = Reader("<expect>")
    try:
        atoms = reader.atoms_only(lines[0])
        i, negate = 1, False
        if len(atoms) > 1 and atoms[1].kind == "name" and atoms[1].value == "not":
            negate, i = True, 2
        check = _Facts(state.game.ruleset, reader, state.game, lines[0], atoms).fact(i)
    except LineStop:
        raise ContentError(reader.diags) from None
    held, shown = check(state, list(log))
    return held != negate, shown


# --- running ------------------------------------------------------------------------------------
def run(ruling: Ruling) -> Outcome:
    """Play a ruling: its position, then each step in order, stopping at the first that does not
    hold. Never raises for a ruling's mistakes (an answer that is not an option is a failure).

    The position runs on to its first decision, unless the first steps say 'stop after NAME': then
    the game stops between two steps at NAME (STOPS), its facts can be expected there, a further
    'stop after' runs on to the next such place, and an answer runs on to the next decision first."""
    state: Optional[GameState] = None
    log: list[Event] = []
    for step in ruling.steps:
        try:
            if step.stop:
                if state is not None and (state.choice is not None or state.over):
                    return Outcome(ruling, False, step, "'stop after' runs on from the position or from another stop, "
                                                        "not from a decision", tuple(log), state)
                state, events = _run_on(ruling.position, state, STOPS[step.stop])
                log += events
                log.append(Event("stop", f"> stop after {step.stop}", "", "", ()))
                if state.choice is not None:
                    return Outcome(ruling, False, step, f"the game came to a decision before {step.stop}: "
                                                        f"{_choice_text(state)}", tuple(log), state)
                continue
            if state is None or (state.choice is None and not state.over and step.check is None):
                state, events = _run_on(ruling.position, state, None)  # on to the next decision
                log += events
        except RulesError as err:
            return Outcome(ruling, False, step if state is not None else None, f"the game stopped: {err}", tuple(log),
                           state)
        if step.check is None:
            if state.over or state.choice is None:
                return Outcome(ruling, False, step, "the game is over: there is no choice to answer", tuple(log), state)
            label = next((o.label for o in state.choice.options if o.key == step.key), None)
            if label is None:
                shown = ", ".join(state.choice.keys())
                return Outcome(ruling, False, step, f"'{step.key}' is not an option of the choice "
                                                    f"'{state.choice.prompt}' (options: {shown})", tuple(log), state)
            try:
                state, events = engine.apply(state, step.key)
            except IllegalChoice as err:  # pragma: no cover - the key was checked above
                return Outcome(ruling, False, step, str(err), tuple(log), state)
            except RulesError as err:
                return Outcome(ruling, False, step, f"the game stopped: {err}", tuple(log), state)
            log.append(Event("choice", f"> {label}", "", "", (step.key,)))
            log += events
            continue
        held, got = step.check(state, log)
        if held == step.negate:
            message = got if not step.negate else f"it holds: {got}" if held else got
            return Outcome(ruling, False, step, message, tuple(log), state)
    if state is None:  # a ruling of no steps: the position runs all the same
        try:
            state, events = _run_on(ruling.position, None, None)
        except RulesError as err:
            return Outcome(ruling, False, None, f"the game stopped: {err}", (), None)
        log += events
    return Outcome(ruling, True, None, "", tuple(log), state)


def _run_on(pos: Position, state: Optional[GameState], stop: Optional[tuple[str, int]]
            ) -> tuple[GameState, list[Event]]:
    """From the position (``state`` None) or a state stopped between two steps, run on to the next
    decision, or to ``stop``; an engine failure from an unusual position is E407 (run_position)."""
    if state is None and stop is None:
        return run_position(pos)
    try:
        return engine.advance(state if state is not None else pos.settled, (), 0, stop=stop)
    except RulesError:
        raise
    except Exception as err:
        span = Span(pos.path, 1, 1, 1, 2)
        raise ContentError([Diagnostic(span, "E407", f"the game cannot go on from this position "
                                                     f"({type(err).__name__}: {err})",
                                       "change the facts the engine stopped at")]) from None


def find_files(paths: Sequence[str]) -> tuple[list[Path], list[str]]:
    """The rulings files of files and folders (a folder: every ``*.ruling`` under it, in path
    order), and the paths that do not exist."""
    out: list[Path] = []
    missing: list[str] = []
    seen: set[Path] = set()
    for p in paths:
        q = Path(p)
        if not q.exists():
            missing.append(p)
            continue
        files = sorted(f for f in q.rglob("*" + SUFFIX) if f.is_file()) if q.is_dir() else [q]
        for f in files:
            if f.resolve() not in seen and len(out) < MAX_FILES:
                seen.add(f.resolve())
                out.append(f)
    return out, missing


def read_file(path: Path) -> tuple[Optional[str], list[Diagnostic]]:
    """A rulings file's text, or a diagnostic (E100/E105) when it cannot be read as text."""
    span = Span(str(path), 1, 1, 1, 2)
    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, [Diagnostic(span, "E100", f"cannot read the file: {err.strerror or err}")]
    if len(raw) > MAX_BYTES:
        return None, [Diagnostic(span, "E105", f"file is larger than {MAX_BYTES} bytes", "split it")]
    try:
        return raw.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError:
        return None, [Diagnostic(span, "E100", "the file is not UTF-8 text")]


def verify(rs: Ruleset, files: Sequence[Path]) -> tuple[list[Outcome], list[Diagnostic], dict[str, str]]:
    """Run every ruling of the files: the outcomes in file order, the diagnostics of files that do
    not check, and the text of each file read (for carets)."""
    outcomes: list[Outcome] = []
    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    for f in files:
        text, bad = read_file(f)
        if text is None:
            diags += bad
            continue
        sources[str(f)] = text
        rulings, bad = parse_rulings(rs, text, str(f))
        diags += bad
        outcomes += [run(r) for r in rulings]
    return outcomes, cap_per_file(diags), sources


def counts(outcomes: Sequence[Outcome]) -> Counter[str]:
    return Counter("passed" if o.ok else "failed" for o in outcomes)


def _where(st: GameState, at: int) -> str:
    """A piece's place in a fact's answer: "at Yard", or "off the board"."""
    return f"at {_loc_name(st, at)}" if at >= 0 else "off the board"
