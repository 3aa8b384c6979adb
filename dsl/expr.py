"""The recursive parts of the language: conditions, amounts, places, events and pieces.

They are real grammar (grammar.lark, rules named after the node classes they build). The builder
hands the source text of a slot to ``Expressions.parse`` with the start rule of the slot's type;
Lark's contextual lexer reads a word as a keyword only where the grammar expects that keyword, so
a location or a tag may be called anything. Positions are relative to the slot and turned back
into the file's; a parse error points inside the expression, and text of another slot type is
named as such ("'fg at here' is a condition; a place goes here").
"""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path
from typing import Any, ClassVar, Optional

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import nodes as n
from .cache import parser_file
from .diagnostics import Diagnostic, Span
from .limits import MAX_AMOUNT
from .refs import SPECIAL_PLACES

# the start rules the builder uses, by slot type
SLOT_TYPES = ("condition", "amount", "place", "event", "piece")
STARTS = (*SLOT_TYPES, "selector", "trigger_head", "modification", "piece_set", "token_effect")

# the forms of each node class of an expression slot, in the words a hint shows (LANGUAGE.md has the
# full tables); every such class has its entry (tests/test_forms.py), and FORMS lists them by slot
HINTS: dict[type, tuple[str, ...]] = {
    # conditions
    n.Compare: ("AMOUNT at least AMOUNT", "AMOUNT at most AMOUNT", "AMOUNT is AMOUNT", "AMOUNT more than AMOUNT",
                "AMOUNT less than AMOUNT"),
    n.AllOf: ("all { CONDITION; … }",),
    n.AnyOf: ("any { CONDITION; … }",),
    n.Not: ("not CONDITION", "PLACE is not PLACE", "AMOUNT is not AMOUNT"),
    n.FgAt: ("fg at PLACE",),
    n.FgAtTag: ("fg at tag TAG",),
    n.KillerAt: ("killer at PLACE",),
    n.Within: ("killer within N of PLACE", "fg within N of PLACE"),
    n.KillerIs: ("killer is on|off the board", "killer is active", "killer is set aside"),
    n.VictimsAt: ("victims at PLACE",),
    n.MinionsAt: ("minions at PLACE",),
    n.TokenAt: ("token TOKEN [KIND] at PLACE", "token TOKEN face up|down at PLACE"),
    n.PlaceIs: ("PLACE is exit", "PLACE is search"),
    n.SamePlace: ("PLACE is PLACE",),
    n.HasTag: ("PLACE has tag TAG",),
    n.BoardHasTag: ("board has tag TAG",),
    n.FlagSet: ("flag NAME",),
    n.InMode: ("mode NAME",),
    n.HasItem: ("has item ITEM",),
    n.SpentCovers: ("spent covers KIND …",),
    n.CauseIs: ("the cause is a kill", "the cause is the killer", "the cause is a minion",
                "the cause is another cause"),
    n.CausedBy: ("the cause is card|item|action|event|terror|deck ID",),
    n.ItemIn: ("item ITEM on table", "item ITEM on piles", "item ITEM aside"),
    n.InPhase: ("phase PHASE",),
    n.KindAt: ("KIND at PLACE", "CONVEYANCE at PLACE"),
    n.HasStatus: ("it has status NAME", "fg has status NAME", "killer has status NAME"),
    n.TokenOn: ("token TOKEN [KIND] on HOLDER", "token TOKEN in supply|discard", "token TOKEN face up|down on HOLDER"),
    # amounts
    n.Count: ("count WHAT", "count WHAT at PLACE"),
    n.Quantity: ("fear", "time", "health", "bloodlust", "killer health"),
    n.That: ("that",),
    n.LevelStat: ("bloodlust STAT",),
    n.Distance: ("distance from PLACE to PLACE",),
    n.Arith: ("AMOUNT plus AMOUNT", "AMOUNT minus AMOUNT"),
    n.MinMax: ("min of AMOUNT and AMOUNT", "max of AMOUNT and AMOUNT"),
    n.CardNumber: ("card number",),
    n.TrackValue: ("track TRACK",),
    n.HeldVictims: ("count victims on HOLDING",),
    n.LocationNumber: ("number NAME of PLACE",),
    n.TokenCount: ("count tokens TOKEN [KIND] on HOLDER", "count tokens TOKEN in supply|discard",
                   "count tokens TOKEN KIND at PLACE", "count tokens TOKEN face up|down at|on HOLDER"),
    # places
    n.Selector: ("(SET [with …] [where CONDITION] [PICK …] [except PLACE])",),
    # events
    n.PieceEvent: ("PIECE takes damage", "PIECE loses health", "PIECE would be defeated", "PIECE dies", "PIECE kills",
                   "PIECE forms", "PIECE moves", "PIECE gains time", "PIECE loses time", "PIECE enters PLACE",
                   "PIECE leaves [PLACE]", "PIECE crosses TAG", "PIECE appears", "PIECE vanishes"),
    n.PhaseEvent: ("start of PHASE", "end of PHASE", "PHASE phase"),
    n.BloodlustRises: ("bloodlust rises [from a kill|the killer|a minion|another cause]",),
    n.FearChanges: ("fear rises", "fear falls"),
    n.TokenEvent: ("token TOKEN is placed|removed|spent|revealed",),
    n.ItemEvent: ("item ITEM is gained|used|discarded", "an item is gained|used|discarded"),
    n.CardEvent: ("card [DECK] is drawn|revealed",),
    n.OwnEvent: ("gained", "used", "discarded"),
    n.GameStarts: ("game starts",),
    n.TrackReaches: ("track TRACK reaches N",),
    # pieces
    n.PieceRef: ("fg", "killer", "killer BODY", "victim", "minion", "MINION", "enemy", "CONVEYANCE"),
}
_SLOT_OF = {n.Condition: "condition", n.Amount: "amount", n.Place: "place", n.Event: "event", n.Piece: "piece"}
# what each slot type accepts, for hints: the forms of its node classes, in the table's order
FORMS: dict[str, tuple[str, ...]] = {
    slot: tuple(f for cls, forms in HINTS.items() if issubclass(cls, family) for f in forms)
    for family, slot in _SLOT_OF.items()}
# besides its node classes' forms, a place is a location's id or one of the named places
FORMS["place"] = ("LOCATION", "here", "fg", "it", "killer-location", "killer-start", *FORMS["place"])
TYPE_NAMES = {"condition": "a condition", "amount": "an amount", "place": "a place", "event": "an event",
              "piece": "a piece", "selector": "a set of locations", "trigger_head": "an event",
              "modification": "a modification"}


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The language's parser with positions: files (start) and every expression start rule (whole
    files are parsed by ``file_parser``, without them).

    Building its tables takes ~170 ms; Lark keeps them in a file of the cache folder
    (dsl/cache.py), checks its hash as it loads it, and builds afresh when it does not match or
    cannot be read."""
    return _lark({"parser": "lalr", "propagate_positions": True, "maybe_placeholders": False,
                  "start": ["start", *STARTS]}, "")


@functools.lru_cache(maxsize=1)
def file_parser() -> Lark:
    """The parser of whole files (the start rule only), without Lark's position tracking, which
    takes half of a file's parsing time: syntax.py reads every span from the tokens (a block's and
    a group's brackets are kept for it). Its tables are kept like ``parser()``'s."""
    return _lark({"parser": "lalr", "propagate_positions": False, "maybe_placeholders": False,
                  "start": "start"}, "files")


def _lark(options: dict, variant: str) -> Lark:
    grammar = Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")
    cache = parser_file(grammar, variant)
    if cache is not None:
        try:
            return Lark(grammar, cache=cache, **options)
        except OSError:
            pass
    return Lark(grammar, **options)


class _Error(Exception):
    """A problem found while building nodes from a parse tree."""

    def __init__(self, meta: Any, code: str, message: str, hint: str = ""):
        super().__init__(message)
        self.meta, self.code, self.message, self.hint = meta, code, message, hint


_CMP = {"at least": "at-least", "at most": "at-most", "more than": "more-than", "less than": "less-than",
        "is": "is"}
_CAUSE = {"a kill": "kill", "the killer": "killer", "a minion": "minion", "another cause": "other"}


def _words(tok: Any) -> str:
    return " ".join(str(tok).split())


@v_args(meta=True)
class _Build(Transformer):
    """Parse tree -> nodes, with references recorded for the checker."""

    def __init__(self, ex: Expressions):
        super().__init__()
        self.ex = ex

    def _span(self, meta: Any) -> Span:
        return self.ex.span_of(meta)

    def _ref(self, kind: str, tok: Token) -> None:
        self.ex.ref(kind, str(tok), self.ex.span_of_token(tok))

    # --- conditions -------------------------------------------------------------------------
    def all_of(self, meta: Any, c: list[Any]) -> n.AllOf:
        return n.AllOf(self._span(meta), tuple(c))

    def any_of(self, meta: Any, c: list[Any]) -> n.AnyOf:
        return n.AnyOf(self._span(meta), tuple(c))

    def not_(self, meta: Any, c: list[Any]) -> n.Not:
        return n.Not(self._span(meta), c[0])

    def compare(self, meta: Any, c: list[Any]) -> n.Condition:
        left, op, right = c[0], _words(c[1]), c[-1]
        node = n.Compare(self._span(meta), left, _CMP[op], right)
        return n.Not(self._span(meta), node) if len(c) == 4 else node

    def fg_at(self, meta: Any, c: list[Any]) -> n.FgAt:
        return n.FgAt(self._span(meta), c[0])

    def fg_at_tag(self, meta: Any, c: list[Any]) -> n.FgAtTag:
        self._ref("tag", c[0])
        return n.FgAtTag(self._span(meta), str(c[0]))

    def victims_at(self, meta: Any, c: list[Any]) -> n.VictimsAt:
        return n.VictimsAt(self._span(meta), c[0])

    def killer_at(self, meta: Any, c: list[Any]) -> n.KillerAt:
        if len(c) == 2:  # killer BODY at PLACE
            self._ref("body", c[0])
            return n.KillerAt(self._span(meta), c[1], str(c[0]))
        return n.KillerAt(self._span(meta), c[0])

    def killer_is(self, meta: Any, c: list[Any]) -> n.KillerIs:
        body = ""
        if isinstance(c[1], Token) and c[1].type == "NAME":
            self._ref("body", c[1])
            body = str(c[1])
        words = [str(t) for t in c if not (isinstance(t, Token) and t.type == "NAME")]
        rest = words[2:]  # after 'killer is'
        what = {"on": "on-board", "off": "off-board", "active": "active", "set": "aside"}[rest[0]]
        return n.KillerIs(self._span(meta), what, body)

    def minions_at(self, meta: Any, c: list[Any]) -> n.MinionsAt:
        return n.MinionsAt(self._span(meta), c[0])

    def token_at(self, meta: Any, c: list[Any]) -> n.TokenAt:  # token T [KIND | face up|down] at PLACE
        kind, face = self._kind_face(c)
        return n.TokenAt(self._span(meta), str(c[0]), c[-1], kind, face)

    def _kind_face(self, c: list[Any]) -> tuple[str, str]:
        """The token type c[0] (a reference) and what may follow it: a kind (a reference to one of its
        kinds) or a face (``face up`` / ``face down``, built to "up" / "down")."""
        self._ref("token", c[0])
        x = c[1] if len(c) > 2 else None
        if isinstance(x, Token) and x.type == "NAME":
            self.ex.ref("token-kind", f"{c[0]} {x}", self.ex.span_of_token(x))
            return str(x), ""
        if isinstance(x, str):
            return "", x
        return "", ""

    def flag_set(self, meta: Any, c: list[Any]) -> n.FlagSet:
        return n.FlagSet(self._span(meta), str(c[0]))

    def in_mode(self, meta: Any, c: list[Any]) -> n.InMode:
        self._ref("mode", c[0])
        return n.InMode(self._span(meta), str(c[0]))

    def has_item(self, meta: Any, c: list[Any]) -> n.HasItem:
        self._ref("item", c[0])
        return n.HasItem(self._span(meta), str(c[0]))

    def spent_covers(self, meta: Any, c: list[Any]) -> n.SpentCovers:
        return n.SpentCovers(self._span(meta), tuple(str(t) for t in c))

    def place_is(self, meta: Any, c: list[Any]) -> n.Condition:
        node = n.PlaceIs(self._span(meta), c[0], c[-1])
        return n.Not(self._span(meta), node) if len(c) == 4 else node

    def place_kind(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def has_tag(self, meta: Any, c: list[Any]) -> n.HasTag:
        self._ref("tag", c[1])
        return n.HasTag(self._span(meta), c[0], str(c[1]))

    def board_has_tag(self, meta: Any, c: list[Any]) -> n.BoardHasTag:  # board has tag TAG
        self._ref("tag", c[0])
        return n.BoardHasTag(self._span(meta), str(c[0]))

    def same_place(self, meta: Any, c: list[Any]) -> n.Condition:
        node = n.SamePlace(self._span(meta), c[0], c[-1])
        return n.Not(self._span(meta), node) if len(c) == 4 else node

    def within(self, meta: Any, c: list[Any]) -> n.Within:
        return n.Within(self._span(meta), c[0], c[1], c[2])

    def mover(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def cause_is(self, meta: Any, c: list[Any]) -> n.CauseIs:
        return n.CauseIs(self._span(meta), _CAUSE[_words(c[0])])

    def caused_by(self, meta: Any, c: list[Any]) -> n.CausedBy:  # the cause is card|item|action|event|terror ID
        what = str(c[3])
        self._ref(what, c[4])
        return n.CausedBy(self._span(meta), what, str(c[4]))

    # --- amounts ----------------------------------------------------------------------------
    def number(self, meta: Any, c: list[Any]) -> int:
        text = str(c[0])
        if len(text) > 7 or int(text) > MAX_AMOUNT:
            raise _Error(meta, "E209", f"the number {text[:12]}{'…' if len(text) > 12 else ''} in an expression is "
                         f"above the limit of {MAX_AMOUNT}",
                         "content numbers count cards, moves and points: keep them small")
        return int(text)

    def that(self, meta: Any, c: list[Any]) -> n.That:
        return n.That(self._span(meta))

    def arith(self, meta: Any, c: list[Any]) -> n.Arith:
        return n.Arith(self._span(meta), str(c[1]), c[0], c[2])

    def count(self, meta: Any, c: list[Any]) -> n.Count:
        what, kind = c[0]
        return n.Count(self._span(meta), what, kind, c[1] if len(c) > 1 else "")

    def countable(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        head = str(c[0])
        if len(c) == 1 and isinstance(c[0], Token) and c[0].type == "NAME":
            self._ref("kind", c[0])  # a minion kind or a victim kind
            return "minion", head
        if head == "tokens":
            self._ref("token", c[1])
            return "tokens", str(c[1])
        if head == "collected":
            self._ref("token", c[1])
            return "collected", str(c[1])
        if head == "cards":
            self._ref("deck", c[2])
            return "cards", str(c[2])
        return head, ""

    def quantity(self, meta: Any, c: list[Any]) -> n.Amount:
        words = [str(t) for t in c]
        sp = self._span(meta)
        if words == ["killer", "health"]:
            return n.Quantity(sp, "killer-health")
        if words == ["victims", "left"]:
            return n.Count(sp, "victims")
        if words[0] == "collected":
            self._ref("token", c[1])
            return n.Count(sp, "collected", words[1])
        if words[0] in ("enemies", "killers", "exits", "spent"):
            return n.Count(sp, words[0])
        return n.Quantity(sp, words[0])

    def level_stat(self, meta: Any, c: list[Any]) -> n.LevelStat:
        self._ref("level-stat", c[0])
        return n.LevelStat(self._span(meta), str(c[0]))

    def distance(self, meta: Any, c: list[Any]) -> n.Distance:
        return n.Distance(self._span(meta), c[0], c[1])

    def min_max(self, meta: Any, c: list[Any]) -> n.MinMax:
        return n.MinMax(self._span(meta), str(c[0]), c[2], c[4])

    # --- places -----------------------------------------------------------------------------
    def named_place(self, meta: Any, c: list[Any]) -> str:
        name = str(c[0])
        if name == "it":
            self.ex.its.append(self.ex.span_of_token(c[0]))
        elif name not in SPECIAL_PLACES:
            self._ref("loc", c[0])
        return name

    def fg_place(self, meta: Any, c: list[Any]) -> str:
        return "fg"

    def selector(self, meta: Any, c: list[Any]) -> n.Selector:
        sp = self._span(meta)
        self.ex.bind_its(sp)  # inside a selector 'it' is the candidate
        chosen = False
        among: Optional[n.Locations] = None
        holding: list[n.Holding] = []
        where: Optional[n.Condition] = None
        picks: list[n.Pick] = []
        skip: n.Loc = ""
        for x in c:
            if x == "chosen-first":
                chosen = True
            elif isinstance(x, n.Locations):
                among = x
            elif isinstance(x, str):  # exit | search
                among = n.Locations(sp, x)
            elif isinstance(x, n.Holding):
                holding.append(x)
            elif isinstance(x, n.Pick):
                picks.append(x)
            elif isinstance(x, tuple) and x[0] == "where":
                where = x[1]
            elif isinstance(x, tuple) and x[0] == "except":
                skip = x[1]
        assert among is not None
        if chosen:
            picks.insert(0, n.Pick(sp, "chosen"))
        return n.Selector(sp, among, tuple(holding), where, tuple(picks), skip)

    def chosen(self, meta: Any, c: list[Any]) -> str:
        return "chosen-first"

    def everywhere(self, meta: Any, c: list[Any]) -> n.Locations:
        return n.Locations(self._span(meta), "any")

    def tagged(self, meta: Any, c: list[Any]) -> n.Locations:
        self._ref("tag", c[0])
        return n.Locations(self._span(meta), "tag", tag=str(c[0]))

    def adjacent(self, meta: Any, c: list[Any]) -> n.Locations:
        return n.Locations(self._span(meta), "adjacent", near=c[0])

    def within_of(self, meta: Any, c: list[Any]) -> n.Locations:
        return n.Locations(self._span(meta), "within", near=c[1], n=c[0])

    def holding(self, meta: Any, c: list[Any]) -> n.Holding:
        if str(c[1]) == "token":
            self._ref("token", c[2])
            return n.Holding(self._span(meta), "token", str(c[2]))
        return n.Holding(self._span(meta), str(c[1]))

    def where(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("where", c[0])

    def except_(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("except", c[0])

    def nearest(self, meta: Any, c: list[Any]) -> n.Pick:
        return n.Pick(self._span(meta), "nearest", place=c[0])

    def farthest(self, meta: Any, c: list[Any]) -> n.Pick:
        return n.Pick(self._span(meta), "farthest", place=c[0])

    def most(self, meta: Any, c: list[Any]) -> n.Pick:
        return n.Pick(self._span(meta), c[0], n=c[1])

    def most_count(self, meta: Any, c: list[Any]) -> n.Pick:
        what, kind = c[1]
        sp = self._span(meta)
        return n.Pick(sp, c[0], n=n.Count(sp, what, kind, "it"))

    def most_fewest(self, meta: Any, c: list[Any]) -> str:
        return str(c[1])

    def random(self, meta: Any, c: list[Any]) -> n.Pick:
        return n.Pick(self._span(meta), "random")

    def chosen_pick(self, meta: Any, c: list[Any]) -> n.Pick:
        return n.Pick(self._span(meta), "chosen")

    # --- pieces and events ------------------------------------------------------------------
    def body_piece(self, meta: Any, c: list[Any]) -> n.PieceRef:
        self._ref("body", c[-1])
        return n.PieceRef(self._span(meta), "killer", body=str(c[-1]))

    def piece(self, meta: Any, c: list[Any]) -> n.PieceRef:
        tok = c[-1]
        if tok.type == "NAME":
            self._ref("piece", tok)  # a minion kind, a victim kind or a conveyance
            return n.PieceRef(self._span(meta), "minion", str(tok))
        return n.PieceRef(self._span(meta), str(tok))

    def piece_event(self, meta: Any, c: list[Any]) -> n.PieceEvent:
        piece, rest = c[0], c[1:]
        words = [str(t) for t in rest if isinstance(t, Token) and t.type != "NAME"]
        sp = self._span(meta)
        head = words[0]
        if head in ("takes", "loses") and words[1:] in (["damage"], ["health"]):
            return n.PieceEvent(sp, piece, f"{head}-{words[1]}")
        if head in ("gains", "loses"):
            return n.PieceEvent(sp, piece, f"{head}-time")
        if head == "would":
            return n.PieceEvent(sp, piece, "would-be-defeated")
        if head in ("enters", "leaves"):
            where = rest[1] if len(rest) > 1 else ""
            return n.PieceEvent(sp, piece, head, place=where)
        if head == "crosses":
            self._ref("pathtag", rest[1])
            return n.PieceEvent(sp, piece, "crosses", tag=str(rest[1]))
        return n.PieceEvent(sp, piece, head)

    def phase_event(self, meta: Any, c: list[Any]) -> n.PhaseEvent:
        if str(c[-1]) == "phase":  # PHASE phase: the whole phase (instead of killer phase { … })
            return n.PhaseEvent(self._span(meta), "whole", str(c[0]))
        return n.PhaseEvent(self._span(meta), str(c[0]), str(c[2]))

    def bloodlust_rises(self, meta: Any, c: list[Any]) -> n.BloodlustRises:
        return n.BloodlustRises(self._span(meta), _CAUSE[_words(c[0])] if c else "")

    def fear_changes(self, meta: Any, c: list[Any]) -> n.FearChanges:
        return n.FearChanges(self._span(meta), str(c[1]))

    def token_event(self, meta: Any, c: list[Any]) -> n.TokenEvent:
        self._ref("token", c[1])
        return n.TokenEvent(self._span(meta), str(c[1]), str(c[3]))

    def item_event(self, meta: Any, c: list[Any]) -> n.ItemEvent:
        if str(c[0]) == "an":
            return n.ItemEvent(self._span(meta), "", str(c[3]))
        self._ref("item", c[1])
        return n.ItemEvent(self._span(meta), str(c[1]), str(c[3]))

    def card_event(self, meta: Any, c: list[Any]) -> n.CardEvent:
        deck = ""
        if len(c) == 4:
            self._ref("deck", c[1])
            deck = str(c[1])
        return n.CardEvent(self._span(meta), str(c[-1]), deck)

    def own_event(self, meta: Any, c: list[Any]) -> n.OwnEvent:
        return n.OwnEvent(self._span(meta), str(c[0]))

    def game_starts(self, meta: Any, c: list[Any]) -> n.GameStarts:
        return n.GameStarts(self._span(meta))

    # --- tracks, holding areas, location numbers, phases (issue #16) ------------------------------
    def track_value(self, meta: Any, c: list[Any]) -> n.TrackValue:
        self._ref("track", c[0])
        return n.TrackValue(self._span(meta), str(c[0]))

    def held_victims(self, meta: Any, c: list[Any]) -> n.HeldVictims:
        self._ref("holding", c[0])
        return n.HeldVictims(self._span(meta), str(c[0]))

    def location_number(self, meta: Any, c: list[Any]) -> n.LocationNumber:
        self._ref("location-number", c[0])
        return n.LocationNumber(self._span(meta), str(c[0]), c[1])

    def in_phase(self, meta: Any, c: list[Any]) -> n.InPhase:
        return n.InPhase(self._span(meta), str(c[1]))

    def track_reaches(self, meta: Any, c: list[Any]) -> n.TrackReaches:
        self._ref("track", c[0])
        return n.TrackReaches(self._span(meta), str(c[0]), c[1])

    def trigger_head(self, meta: Any, c: list[Any]) -> tuple[Any, Optional[n.Condition]]:
        return c[0], (c[1] if len(c) > 1 else None)

    def modification(self, meta: Any, c: list[Any]) -> tuple[str, Any, Any, Optional[n.Condition]]:
        head = str(c[0])
        cond = c[-1] if isinstance(c[-2], Token) and str(c[-2]) == "while" else None
        if head in ("reduce", "increase"):
            return head, c[1], c[3], cond
        if head == "limit":
            return _CMP[_words(c[3])], c[1], c[4], cond
        return "prevent", c[1], 0, cond

    # --- item and card zones (issue #16 item 6) -------------------------------------------------
    def item_in(self, meta: Any, c: list[Any]) -> n.ItemIn:  # item ID on table / on piles / aside
        self._ref("item", c[1])
        return n.ItemIn(self._span(meta), str(c[1]), str(c[-1]))

    def card_number(self, meta: Any, c: list[Any]) -> n.CardNumber:  # card number
        return n.CardNumber(self._span(meta))


    # --- victim kinds, statuses on every piece, tokens everywhere (issue #16 items 3-5) -----------
    def kind_at(self, meta: Any, c: list[Any]) -> n.KindAt:  # KIND at PLACE (a conveyance too)
        self._ref("piece", c[0])
        return n.KindAt(self._span(meta), str(c[0]), c[1])

    def has_status(self, meta: Any, c: list[Any]) -> n.HasStatus:  # it has status S / fg has status S
        who = c[0]
        if who not in ("it", "fg"):
            raise _Error(meta, "E204", f"'{who if isinstance(who, str) else 'that place'} has status': a status "
                         "is on a piece", "write 'it has status S' (the piece of a 'for each'), 'fg has status S' "
                         "or 'killer has status S'")
        return n.HasStatus(self._span(meta), who, str(c[1]))

    def killer_has_status(self, meta: Any, c: list[Any]) -> n.HasStatus:  # killer [BODY] has status S
        body = ""
        if len(c) == 2:
            self._ref("body", c[0])
            body = str(c[0])
        return n.HasStatus(self._span(meta), "killer", str(c[-1]), body)

    def token_on(self, meta: Any, c: list[Any]) -> n.TokenOn:  # token T [KIND | face …] on HOLDER
        kind, face = self._kind_face(c)
        self._readable(meta, c[-1], kind, face)
        return n.TokenOn(self._span(meta), str(c[0]), c[-1], kind, face)

    def token_count(self, meta: Any, c: list[Any]) -> n.TokenCount:  # count tokens T [KIND | face …] on HOLDER
        kind, face = self._kind_face(c)
        self._readable(meta, c[-1], kind, face)
        return n.TokenCount(self._span(meta), str(c[0]), c[-1], kind, face)

    @staticmethod
    def _readable(meta: Any, h: n.TokenHolder, kind: str, face: str) -> None:
        """E216: the supply and the token discard lie face down (their kinds are read by nothing); her
        collection lies face up (no token of it is face down)."""
        if (kind or face) and h.kind in ("supply", "discard"):
            raise _Error(meta, "E216", f"the {'supply' if h.kind == 'supply' else 'token discard'} lies face down: "
                         "no line reads the kinds or faces of its tokens",
                         f"count them all: 'count tokens T in {h.kind}'")
        if face == "down" and h.kind == "collection":
            raise _Error(meta, "E216", "her collection lies face up: no token of it is face down",
                         "read its kinds instead: 'token T KIND on collection'")

    def token_count_at(self, meta: Any, c: list[Any]) -> n.TokenCount:  # count tokens T KIND | face … at PLACE
        kind, face = self._kind_face(c)
        return n.TokenCount(self._span(meta), str(c[0]), n.TokenHolder(self._span(meta), "at", loc=c[-1]), kind,
                            face)

    def on_collection(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        return n.TokenHolder(self._span(meta), "collection")

    def on_items(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        return n.TokenHolder(self._span(meta), "items")

    def on_item(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        self._ref("item", c[0])
        return n.TokenHolder(self._span(meta), "item", str(c[0]))

    def on_card(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        self._ref("card-of-deck", c[0])
        return n.TokenHolder(self._span(meta), "card", str(c[0]))

    def in_supply(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        return n.TokenHolder(self._span(meta), "supply")

    def in_discard(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        return n.TokenHolder(self._span(meta), "discard")

    def at_holder(self, meta: Any, c: list[Any]) -> n.TokenHolder:
        return n.TokenHolder(self._span(meta), "at", loc=c[0])

    _PIECE_WORDS: ClassVar = {"piece": "pieces", "victim": "victims", "enemy": "enemies", "minion": "minions",
                    "killer": "killers"}

    def pieces_word(self, meta: Any, c: list[Any]) -> str:
        word = str(c[0])
        return self._PIECE_WORDS.get(word, word)

    def piece_at(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("at", c[0])

    def piece_at_tag(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        self._ref("tag", c[0])
        return ("tag", str(c[0]))

    def piece_set(self, meta: Any, c: list[Any]) -> n.PieceSet:  # PIECES [at PLACE | at tag TAG] [where C]
        what, loc, tag, where = c[0], "", "", None
        for x in c[1:]:
            if x[0] == "at":
                loc = x[1]
            elif x[0] == "tag":
                tag = x[1]
            else:
                where = x[1]
                self.ex.bind_its(where.span)  # inside 'where' 'it' is the piece
        if what in ("fg", "it") and (loc or tag):
            raise _Error(meta, "E205", f"'{what}' is one piece: it takes no 'at'", f"write '{what}', or "
                         f"'{what} where CONDITION'")
        return n.PieceSet(self._span(meta), what, loc, tag, where)

    def face(self, meta: Any, c: list[Any]) -> str:
        return str(c[1])

    def _token_parts(self, c: list[Any]) -> tuple[Any, str, str, list[Any], str]:
        """(amount, token type, kind, holders, face) of a token line."""
        names = [t for t in c[1:] if isinstance(t, Token) and t.type == "NAME"]
        holders = [x for x in c if isinstance(x, n.TokenHolder)]
        face = next((x for x in c if isinstance(x, str) and not isinstance(x, Token)), "")
        self._ref("token", names[0])
        kind = ""
        if len(names) > 1:
            self.ex.ref("token-kind", f"{names[0]} {names[1]}", self.ex.span_of_token(names[1]))
            kind = str(names[1])
        return c[0], str(names[0]), kind, holders, face

    def gain_tokens(self, meta: Any, c: list[Any]) -> n.GainTokens:  # gain N token T [KIND] on|at HOLDER [face …]
        k, token, kind, (to,), face = self._token_parts(c)
        return n.GainTokens(self._span(meta), k, token, kind, to, face)

    def remove_tokens(self, meta: Any, c: list[Any]) -> n.RemoveTokens:  # remove N token T [KIND] from HOLDER
        k, token, kind, (src,), _face = self._token_parts(c)
        return n.RemoveTokens(self._span(meta), k, token, kind, src)

    def move_tokens(self, meta: Any, c: list[Any]) -> n.MoveTokens:  # move N token T [KIND] from H to H
        k, token, kind, (src, to), _face = self._token_parts(c)
        return n.MoveTokens(self._span(meta), k, token, kind, src, to)

    def spend_to(self, meta: Any, c: list[Any]) -> n.SpendTo:  # spend N token T [KIND] from H to|onto H
        k, token, kind, (src, to), _face = self._token_parts(c)
        return n.SpendTo(self._span(meta), k, token, kind, src, to)

    def reveal_tokens(self, meta: Any, c: list[Any]) -> n.RevealTokens:  # reveal tokens T at|on HOLDER
        self._ref("token", c[0])
        return n.RevealTokens(self._span(meta), str(c[0]), c[-1])


# Lark calls rule methods by rule name; 'not' and 'except' are Python keywords
setattr(_Build, "not", _Build.not_)
setattr(_Build, "except", _Build.except_)


class Expressions:
    """Parses the expressions of one file for the builder: text slices by position, references and
    diagnostics collected, the uses of ``it`` checked against where it means something."""

    def __init__(self, path: str, text: str, scope: str = ""):
        self.path = path
        self.text = text
        self.scope = scope
        self.starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(i + 1)
        self.refs: list[tuple[str, str, Span]] = []
        self.its: list[Span] = []
        self.line0 = self.col0 = 1

    # --- positions ----------------------------------------------------------------------------
    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1 if 1 <= line <= len(self.starts) else len(self.text)

    def _pos(self, line: int, col: int) -> tuple[int, int]:
        if line == 1:
            return self.line0, self.col0 + col - 1
        return self.line0 + line - 1, col

    def span_of(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.path, self.line0, self.col0, self.line0, self.col0)
        a = self._pos(meta.line, meta.column)
        b = self._pos(meta.end_line, meta.end_column)
        return Span(self.path, a[0], a[1], b[0], b[1])

    def span_of_token(self, tok: Token) -> Span:
        a = self._pos(tok.line or 1, tok.column or 1)
        b = self._pos(tok.end_line or tok.line or 1, tok.end_column or (tok.column or 1) + len(str(tok)))
        return Span(self.path, a[0], a[1], b[0], b[1])

    def ref(self, kind: str, name: str, span: Span) -> None:
        self.refs.append((kind, name, span))

    def bind_its(self, span: Span) -> None:
        """The uses of ``it`` inside this span mean the candidate of a selector."""
        def inside(s: Span) -> bool:
            return (span.line, span.col) <= (s.line, s.col) and (s.end_line, s.end_col) <= (span.end_line, span.end_col)
        self.its = [s for s in self.its if not inside(s)]

    # --- parsing -------------------------------------------------------------------------------
    def parse(self, start: str, first: Span, last: Span) -> tuple[Any, list[Diagnostic]]:
        """The node of the source text from the start of ``first`` to the end of ``last``, parsed
        with the start rule ``start``; (None, diagnostics) when it cannot be read."""
        a = self.offset(first.line, first.col)
        b = self.offset(last.end_line, last.end_col)
        source = self.text[a:b]
        self.line0, self.col0 = first.line, first.col
        mark_refs, mark_its = len(self.refs), len(self.its)
        try:
            tree = parser().parse(source, start=start)
            return _Build(self).transform(tree), []
        except VisitError as err:
            del self.refs[mark_refs:], self.its[mark_its:]
            inner = err.orig_exc
            if isinstance(inner, _Error):
                return None, [Diagnostic(self.span_of(inner.meta), inner.code, inner.message, inner.hint)]
            raise
        except UnexpectedInput as err:
            del self.refs[mark_refs:], self.its[mark_its:]
            return None, [self._syntax(err, start, source, first, last)]

    def _syntax(self, err: UnexpectedInput, start: str, source: str, first: Span, last: Span) -> Diagnostic:
        whole = Span(self.path, first.line, first.col, last.end_line, last.end_col)
        shown = _shown(source)
        slot = _slot(start)
        code = {"condition": "E208", "event": "E201"}.get(slot, "E214")
        want = TYPE_NAMES.get(start, start)
        forms = f"{want} is one of: " + "; ".join(FORMS.get(slot, ()))
        other = self.kind_of(source, start)
        if other is not None:
            return Diagnostic(whole, "E213", f"'{shown}' is {TYPE_NAMES[other]}; {want} goes here", forms)
        at_end = isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END")
        pos = len(source) if at_end else _offset_in(err, source)
        suggest = functools.partial(_repair, start, source, pos)
        if at_end:
            expected = _expected(err)
            hint = ("it goes on with one of: " + ", ".join(expected)) if 0 < len(expected) <= 8 else forms
            return Diagnostic(whole, code, f"'{shown}' stops before it is {want}", hint, suggest=suggest)
        line = getattr(err, "line", 1) or 1
        col = getattr(err, "column", 1) or 1
        at = self._pos(line, col)
        word = str(err.token) if isinstance(err, UnexpectedToken) else (
            source[err.pos_in_stream or 0] if isinstance(err, UnexpectedCharacters) else "")
        end = (at[0], at[1] + max(1, len(word)))
        head = source.split()[0] if source.split() else ""
        same = [f for f in FORMS.get(slot, ()) if f.split()[0] == head and f != head]
        hint = ("did you mean " + " or ".join(f"'{f}'" for f in same[:3]) + "?") if same else forms
        return Diagnostic(Span(self.path, at[0], at[1], end[0], end[1]), code,
                          f"cannot read {want} '{shown}': '{word}' is not expected here", hint, suggest=suggest)

    def kind_of(self, source: str, but: str) -> Optional[str]:
        """The slot type this text is, if it is another one than ``but`` (parentheses around it
        aside)."""
        text = source.strip()
        while text.startswith("(") and text.endswith(")"):
            text = text[1:-1].strip()
        for start in SLOT_TYPES:
            if start == _slot(but):
                continue
            try:
                parser().parse(text, start=start)
            except UnexpectedInput:
                continue
            if start in ("place", "piece", "amount") and " " not in text:
                continue  # a lone word reads as a location name, a minion kind, a quantity: that says nothing
            return start
        return None


def _shown(source: str) -> str:
    shown = " ".join(source.split())
    return shown if len(shown) <= 60 else shown[:59] + "…"


def _offset_in(err: UnexpectedInput, source: str) -> int:
    if isinstance(err, UnexpectedToken) and err.token.start_pos is not None:
        return int(err.token.start_pos)
    pos = getattr(err, "pos_in_stream", None)
    return int(pos) if pos is not None else 0


@functools.lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """The words of the expression grammar, and its phrases of several words ('at least')."""
    grammar = Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")
    part = grammar[grammar.index("// ===== conditions"):]
    words = set(re.findall(r'"([a-z][a-z-]*)"', part))
    for terms in ("at least|at most|more than|less than", "a kill|the killer|a minion|another cause", "plus|minus"):
        words.update(terms.split("|"))
    words.update(SPECIAL_PLACES)
    return tuple(sorted(words))


_WORD = re.compile(r"[A-Za-z_][\w-]*|\d+|\S")
MAX_REPAIRS = 40  # parses tried for one suggestion


def _repair(start: str, source: str, pos: int) -> str:
    """'did you mean …?': the text with one word near the error (the word there, or the one before)
    replaced by a close word of the grammar, if that reads; '' when no such change reads."""
    toks = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(source)]
    at = next((i for i, (a, b, _w) in enumerate(toks) if a <= pos < b or a >= pos), len(toks) - 1)
    tried = 0
    for i in (at - 1, at) if at > 0 else (at,):
        if not 0 <= i < len(toks):
            continue
        a, b, word = toks[i]
        if not word[0].isalpha():
            continue
        for cand in difflib.get_close_matches(word.lower(), keywords(), n=4, cutoff=0.6):
            if cand == word:
                continue
            fixed = source[:a] + cand + source[b:]
            tried += 1
            if tried > MAX_REPAIRS:
                return ""
            try:
                parser().parse(fixed, start=start)
            except UnexpectedInput:
                continue
            return f"did you mean '{_shown(fixed)}'?"
    return ""


def _slot(start: str) -> str:
    return {"selector": "place", "trigger_head": "event", "modification": "event"}.get(start, start)


_TERMINAL_WORDS = {"CMP": "at least|at most|more than|less than", "CAUSE": "a kill|the killer|a minion|another cause",
                   "NAME": "a name", "INT": "a number", "LPAR": "(", "RPAR": ")", "LBRACE": "{", "RBRACE": "}",
                   "SEMICOLON": ";", "ARITH": "plus|minus", "_NL": "a new line", "$END": "the end"}


def _expected(err: UnexpectedInput) -> list[str]:
    exp = getattr(err, "expected", None) or getattr(err, "allowed", None) or set()
    words = []
    for name in sorted(exp):
        if name in _TERMINAL_WORDS:
            words.append(_TERMINAL_WORDS[name])
        elif name.isupper() and not name.startswith("_"):
            words.append(f"'{name.lower()}'")
    return sorted(set(words))


def lone_word(tree: Any) -> Optional[str]:
    """The word of a one-word parse (for fast paths); None otherwise."""
    if isinstance(tree, Tree) and len(tree.children) == 1 and isinstance(tree.children[0], Token):
        return str(tree.children[0])
    return None
