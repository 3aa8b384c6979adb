"""Stage two: syntax lines -> typed declarations (nodes.py), collecting diagnostics.

Each block kind has a table of the lines it accepts (by leading word); effect blocks match each
line against the phrase patterns declared on the node classes. Nothing here raises for bad
content: every problem becomes a ``Diagnostic`` and building goes on, so one run reports all.
References to other content (items, locations, modes, minions, tags) are recorded as ``Ref``
for ``check.py`` to resolve once everything is loaded.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any, Callable, Optional, Union, cast

import attrs

from . import nodes as n
from .cost import costly_lines
from .diagnostics import MAX_REPORTED, Diagnostic, Span, settle_shown
from .expr import Expressions
from .limits import (
    DYNAMIC_REPEAT,
    MAX_AMOUNT,
    MAX_COORD,
    MAX_COPIES,
    MAX_DICE,
    MAX_HEALTH,
    MAX_PIECES,
    MAX_REPEAT,
    MAX_REPEAT_WORK,
    MAX_SPEND,
    MAX_SUPPLY,
    MAX_TRACK,
)
from .modules import HOST_FIELDS, REMOVABLE, SCOPE, section_scope
from .refs import SPECIAL_PLACES, Ref
from .syntax import Atom, Block, Line


def _is_word(part: Atom | Block, word: str) -> bool:
    return isinstance(part, Atom) and part.value == word


PHASES = ("action", "planning", "killer", "panic", "upkeep")
# triggers that only one kind of source fires: the blocks they may stand in, and where that is (W201)
FIRES_ONLY_IN = {
    "gained": (("item",), "on an item, when the Final Girl gains it"),
    "revealed": (("finale", "dark_power"), "on a finale or a dark power, when it is revealed"),
    "drawn": (("event",), "on an event, when it is drawn"),
}
TARGETS = ("fg", "victims", "fg-or-victims")
SPECIAL_LOCS = SPECIAL_PLACES  # names a location slot takes besides location ids
MODIFIERS = ("reduce", "increase", "limit", "prevent")  # lines that change an event (Modification)
ABILITY_WORDS = ("when", "at", "instead", "rule", "win", "lose", *MODIFIERS)  # lines of a block with abilities
# the lines of an effect block that effect() reads itself (blocks and token lines), besides the phrases
# of EFFECT_PATTERNS, in the words a hint shows (editors offer them: dsl/editing.py)
CONTROL_FORMS = ("if CONDITION { … }", "if CONDITION { … } else { … }", "mode MODE { … }", "repeat N { … }",
                 "choose { … }", "roll { … }", "for each SET { … }", "for each N of SET { … }", "for each PIECES { … }",
                 "each KIND { … }", "all killers { … }", "at start of next PHASE { … }", "at end of next PHASE { … }",
                 "spend collected TOKEN LOW to HIGH { … }", "gain N token TOKEN [KIND] on|at HOLDER [face up|down]",
                 "remove N token TOKEN [KIND] from HOLDER", "move N token TOKEN [KIND] from HOLDER to HOLDER",
                 "spend N token TOKEN [KIND] from HOLDER to HOLDER [{ … }]", "reveal tokens TOKEN at|on|in HOLDER")
# What each kind of block accepts, as the builder reads it: the leading words of the lines of each
# declaration block (its readers, and the ability lines where it takes them), and the kind of the block
# a line holds, ((kind of block, leading word of the line) -> kind; "effects" for an effect block). Filled
# as blocks are built, so they are the builder's own tables; editors read them for completion.
BLOCK_WORDS: dict[str, tuple[str, ...]] = {}
BLOCK_OF: dict[tuple[str, str], str] = {}


# --- phrase patterns ------------------------------------------------------------------------
_SLOT = re.compile(r"\{(\w+):(\w+)\}")


@attrs.frozen
class Pattern:
    cls: type
    parts: tuple  # str literal or (field, type)
    display: str

    @classmethod
    def compile(cls, node_cls: type, text: str) -> Pattern:
        parts: list = []
        display: list[str] = []
        for word in text.split():
            m = _SLOT.fullmatch(word)
            if m:
                parts.append((m.group(1), m.group(2)))
                display.append(_DISPLAY.get(m.group(2), m.group(2).upper()))
            else:
                parts.append(word)
                display.append(word)
        return cls(node_cls, tuple(parts), " ".join(display))


_DISPLAY = {"body": "BODY", "way": "up|down", "side": "win|lose", "string": '"TEXT"', "token": "TOKEN", "deck": "DECK",
            "names": "NAME…", "int": "N", "amount": "N", "loc": "PLACE",
            "item": "ITEM", "mode": "MODE", "name": "NAME", "target": "TARGET", "minion": "MINION", "tag": "TAG",
            "pathtag": "TAG", "cond": "CONDITION", "killer": "killer", "minions": "minions", "enemies": "enemies",
            "track": "TRACK", "holding": "HOLDING", "fg": "fg", "victims": "victims", "followers": "followers",
            "zone": "table|aside", "kind": "KIND", "victimkind": "KIND", "pieces": "PIECES", "card": "CARD",
            "conveyance": "CONVEYANCE", "bodydeck": "DECK", "miniondeck": "DECK"}


def _first_words(pat: Pattern) -> tuple[str, ...]:
    """The words a line matching this pattern can start with."""
    head = pat.parts[0]
    if isinstance(head, str):
        return (head,)
    kind = head[1]
    return {"target": TARGETS, "killer": ("killer",), "minions": ("minions",), "enemies": ("enemies",)}.get(kind, ())


def _patterns(classes) -> tuple[Pattern, ...]:
    return tuple(Pattern.compile(c, p) for c in classes for p in c.PHRASES)


EFFECT_PATTERNS = _patterns(n.EFFECT_NODES)
RULE_PATTERNS = _patterns(n.RULE_NODES)
_BEST: dict[tuple[int, str], str] = {}  # (patterns, a phrase) -> its 'did you mean' (Builder._best)
_STARTING: dict[tuple[int, str], tuple[Pattern, ...]] = {}  # (patterns, a line's first word) -> those it can match


def _starting(patterns: tuple[Pattern, ...], first: str) -> tuple[Pattern, ...]:
    """The patterns a line starting with ``first`` can match, in their order: those whose first
    part is that word, and those that start with a slot (a line is not tried against ninety
    phrases it cannot be; issue 42: checking cost linear and small)."""
    key = (id(patterns), first)
    got = _STARTING.get(key)
    if got is None:
        if len(_STARTING) > 4096:
            _STARTING.clear()
        got = _STARTING[key] = tuple(p for p in patterns if not isinstance(p.parts[0], str) or p.parts[0] == first)
    return got


_PIECE_WORDS = ("piece", "pieces", "victim", "victims", "enemy", "enemies", "minion", "minions", "killer", "killers")


def _did_you_mean(word: str, choices: tuple) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else "expected one of: " + ", ".join(sorted(choices))[:200]


class Builder:
    """Builds the declarations of one file."""

    def __init__(self, path: str, text: str = ""):
        self.slot_problem: Optional[Diagnostic] = None  # why an expression in a phrase's slot did not read
        self.path = path
        self.diags: list[Diagnostic] = []
        self.refs: list[Ref] = []
        self.scope = ""
        self.in_for = 0  # depth of 'for each' blocks and event handlers being built ('it' means something)
        self.in_card = ""  # the deck whose card's effects are being built: 'it' is the place it is drawn at
        self.deck = ""  # the deck whose card is being read
        self.expr = Expressions(path, text)
        self.repeats = 1  # the counts of the 'repeat' blocks being built, multiplied (MAX_REPEAT_WORK)
        self.at: tuple[str, str] = ("file", "")  # the kind of block and leading word of the line being read

    # --- reporting --------------------------------------------------------------------------
    def error(self, span: Span, code: str, message: str, hint: Union[str, Callable[[], str]] = "") -> None:
        """Report a problem; a hint given as a function (a 'did you mean') is worked out only if
        the diagnostic is shown (``settle_shown``)."""
        if callable(hint):
            self.diags.append(Diagnostic(span, code, message, suggest=hint))
        else:
            self.diags.append(Diagnostic(span, code, message, hint))

    def limit(self, span: Span, what: str, value: int, high: int, low: Optional[int] = None) -> bool:
        """E209 when ``value`` is above ``high`` (or below ``low``): the limit named (dsl/limits.py)."""
        if value > high:
            self.error(span, "E209", f"{what} {value} is above the limit of {high}",
                       "dsl/LANGUAGE.md, 'Limits', lists the limit of each kind of number")
            return False
        if low is not None and value < low:
            self.error(span, "E209", f"{what} {value} is below the limit of {low}",
                       "dsl/LANGUAGE.md, 'Limits', lists the limit of each kind of number")
            return False
        return True

    def unknown(self, span: Span, code: str, what: str, word: str, choices) -> None:
        self.error(span, code, f"unknown {what} '{word}'", functools.partial(_did_you_mean, word, tuple(choices)))

    def rejoin(self, lines) -> list[Line]:
        """The lines of a block, with a line that starts with a block (E102) or with 'else' (E106)
        reported and, to go on checking, joined to the line above it ('card x' then '{ … }' on
        the next line reads as 'card x { … }')."""
        out: list[Line] = []
        for line in lines:
            first = line.parts[0]
            prev = out[-1] if out else None
            if isinstance(first, Block):
                joins = prev is not None and not isinstance(prev.parts[-1], Block)
                hint = "a block follows the words of its line: 'success { … }'"
                if joins and prev is not None and prev.span.end_line == first.span.line - 1:
                    hint = f"put the '{{' at the end of line {prev.span.end_line}: '{prev.text()} {{'"
                self.error(Span(self.path, first.span.line, first.span.col, first.span.line, first.span.col + 1),
                           "E102", "a block cannot start a line", hint)
            elif line.head() == "else":
                joins = prev is not None and prev.head() == "if" and isinstance(prev.parts[-1], Block)
                self.error(first.span, "E106", "'else' must follow '}' on the same line",
                           "write '} else {' on one line: a newline ends the 'if' line")
            else:
                out.append(line)
                continue
            if joins:
                assert prev is not None
                out[-1] = Line(Span(self.path, prev.span.line, prev.span.col, line.span.end_line, line.span.end_col),
                               prev.parts + line.parts)
        return out

    # --- expressions (conditions, amounts, places, events: dsl/expr.py) ----------------------
    def expression(self, start: str, parts: list, report: bool = True, refs: Optional[list[Ref]] = None,
                   it_ok: bool = False) -> Any:
        """The node of the expression made of these parts of a line, read with the grammar's start
        rule ``start``; None (and, with ``report``, its diagnostic) when it cannot be read."""
        if not parts:
            return None
        node, diags = self.expr.parse(start, parts[0].span, parts[-1].span)
        found = [Ref(kind, name, span, self.scope) for kind, name, span in self.expr.refs]
        its, self.expr.refs, self.expr.its = self.expr.its, [], []
        if node is None:
            if report:
                self.diags.extend(diags)
            elif diags and self.slot_problem is None:
                self.slot_problem = diags[0]
            return None
        if its and not (self.in_for or it_ok):
            for sp in its:
                if self.in_card:  # the place the card is drawn at: every draw of its deck must give one
                    found.append(Ref("card-place", self.in_card, sp, self.scope))
                    continue
                self.error(sp, "E204", "'it' means nothing here",
                           "'it' is the location of a 'for each', the candidate of a place's 'where' and picks, "
                           "or where the event of a 'when' or 'instead of' line happens")
        (self.refs if refs is None else refs).extend(found)
        return node

    # --- phrase matching --------------------------------------------------------------------
    def _slot(self, kind: str, atom: Atom, refs: list[Ref]) -> tuple[bool, Any]:
        if kind == "int":
            return (atom.kind == "number", atom.value)
        if kind == "amount":
            if atom.kind == "number":
                return True, atom.value
            if atom.kind == "name" and atom.value == "that":
                return True, n.That(atom.span)
            if atom.kind in ("name", "group"):  # fear, (count victims at here), (bloodlust spawn) …
                node = self.expression("amount", [atom], report=False, refs=refs) if atom.kind == "group" else (
                    self._word_amount(atom, refs))
                return node is not None, node
            return False, None
        if kind == "loc" and atom.kind == "group":  # (exit with fewest MINION …), (chosen search) …
            node = self.expression("place", [atom], report=False, refs=refs)
            return node is not None, node
        if kind == "string":
            return (atom.kind == "string", atom.value)
        if kind == "pieces":  # it | fg | (PIECES [at …] [where …]) (issue #16 item 4)
            return self._pieces(atom, refs)
        if atom.kind != "name":
            return False, None
        word = str(atom.value)
        if kind == "target":
            return (word in TARGETS, word)
        if kind in n.LITERAL_SLOTS:
            return (word == kind, word)
        if kind == "way":
            return (word in ("up", "down"), word)
        if kind == "side":
            return (word in ("win", "lose"), word)
        if kind == "body":
            refs.append(Ref("body", word, atom.span, self.scope))
            return True, word
        if kind == "loc":
            if word == "it" and not self.in_for and self.in_card:  # the place the card is drawn at
                refs.append(Ref("card-place", self.in_card, atom.span, self.scope))
            elif word == "it" and not self.in_for:
                self.error(atom.span, "E204", "'it' means nothing here",
                           "'it' is the location of a 'for each' (write 'for each exit { … at it }'), or where "
                           "the event of a 'when' or 'instead of' line happens; or name the location")
            elif word not in SPECIAL_LOCS:
                refs.append(Ref("loc", word, atom.span, self.scope))
            return True, word
        if kind == "card":  # an action card (of the core deck, a killer's or a scenario's)
            refs.append(Ref("hand-card", word, atom.span, self.scope))
            return True, word
        if kind in ("item", "mode", "minion", "tag", "pathtag", "token", "deck", "track", "holding", "conveyance"):
            refs.append(Ref(kind, word, atom.span, self.scope))
            return True, word
        if kind in ("bodydeck", "miniondeck"):  # a deck each card of which names a body / a minion kind
            refs.append(Ref("body-deck" if kind == "bodydeck" else "minion-deck", word, atom.span, self.scope))
            return True, word
        if kind == "name":
            return True, word
        if kind in ("kind", "victimkind"):  # a minion kind or a victim kind / a victim kind (issue #16 item 3)
            refs.append(Ref("kind" if kind == "kind" else "victim-kind", word, atom.span, self.scope))
            return True, word
        if kind == "zone":  # table | aside (item and card zones)
            return (word in n.ZONES, word)
        raise AssertionError(kind)

    def _word_amount(self, atom: Atom, refs: list[Ref]) -> Any:
        """A one-word amount (fear, time, health, bloodlust, enemies …): only words that are one."""
        if str(atom.value) not in ("fear", "time", "health", "bloodlust", "enemies", "killers", "exits", "spent"):
            return None
        return self.expression("amount", [atom], report=False, refs=refs)

    def _match(self, pat: Pattern, atoms: list[Atom], span: Span, out: Optional[list[Ref]] = None) -> Optional[object]:
        """Match atoms against one pattern; on success record its references (in ``out`` or on self)."""
        values: dict[str, Any] = {}
        refs: list[Ref] = []
        i = 0
        for part in pat.parts:
            if isinstance(part, str):
                if i >= len(atoms) or atoms[i].kind != "name" or atoms[i].value != part:
                    return None
                i += 1
                continue
            field, kind = part
            if kind == "names":
                rest = atoms[i:]
                if not rest or any(a.kind != "name" for a in rest):
                    return None
                values[field] = tuple(str(a.value) for a in rest)
                i = len(atoms)
                continue
            if kind == "cond":
                if i >= len(atoms):
                    return None
                cond = self.expression("condition", list(atoms[i:]), report=False, refs=refs)
                if cond is None:
                    return None
                values[field] = cond
                i = len(atoms)
                continue
            if i >= len(atoms):
                return None
            ok, value = self._slot(kind, atoms[i], refs)
            if not ok:
                return None
            values[field] = value
            i += 1
        if i != len(atoms):
            return None
        (self.refs if out is None else out).extend(refs)
        return pat.cls(span, **values)

    def _best(self, patterns, text: str) -> str:
        """'did you mean': among the phrases that can start with the line's first word (a word
        slot such as fear|time|… shown as that word) the closest one, or two when they are about
        as close; else the closest phrase of all. Worked out once per distinct phrase (~10 ms each:
        a file that misspells one line 12 000 times shows a hundred of them, asks once)."""
        key = (id(patterns), text)
        got = _BEST.get(key)
        if got is None:
            if len(_BEST) > 1024:
                _BEST.clear()
            got = _BEST[key] = self._closest_phrase(patterns, text)
        return got

    @staticmethod
    def _closest_phrase(patterns, text: str) -> str:
        first = text.split()[0] if text.split() else ""
        same = []
        for p in patterns:
            if first and first in _first_words(p):
                rest = p.display.split(" ", 1)[1:]
                same.append(" ".join([first, *rest]))
        if same:
            scored = sorted(((difflib.SequenceMatcher(None, text, d).ratio(), d) for d in dict.fromkeys(same)),
                            key=lambda t: -t[0])
            if len(scored) > 1 and scored[0][0] - scored[1][0] < 0.1:
                return f"did you mean '{scored[0][1]}' or '{scored[1][1]}'?"
            return f"did you mean '{scored[0][1]}'?"
        close = difflib.get_close_matches(text, [p.display for p in patterns], n=1, cutoff=0.3)
        return f"did you mean '{close[0]}'?" if close else ""

    @staticmethod
    def _generic(atoms: list[Atom]) -> str:
        return " ".join("N" if a.kind == "number" else a.text() for a in atoms)

    def condition(self, parts: list, report: bool = True, it_ok: bool = False) -> Optional[n.Condition]:
        """A condition made of these parts of a line (atoms, and the blocks of ``all``/``any``)."""
        node = self.expression("condition", parts, report=report, it_ok=it_ok)
        return node if isinstance(node, n.Condition) else None

    def rule(self, line: Line, atoms: list[Atom]) -> Optional[n.Rule]:
        for pat in _starting(RULE_PATTERNS, str(atoms[0].value) if atoms and atoms[0].kind == "name" else ""):
            node = self._match(pat, atoms, line.span)
            if node is not None:
                high = MAX_DICE if isinstance(node, n.DiceModifier) else MAX_AMOUNT
                low = 0 if isinstance(node, n.FollowerLimit) else -high
                for a in atoms:
                    if a.kind == "number":
                        self.limit(a.span, f"'{line.text()}':", a.num, high, low)
                return cast(n.Rule, node)
        self.error(line.span, "E207", f"unknown rule '{' '.join(a.text() for a in atoms)}'",
                   functools.partial(self._best, RULE_PATTERNS, self._generic(atoms)))
        return None

    # --- effect blocks ----------------------------------------------------------------------
    def effects(self, block: Optional[Block]) -> tuple:
        if block is None:
            return ()
        outer = self.at
        _note_block(outer, "effects")
        out = []
        try:
            for line in self.rejoin(block.lines):
                self.at = ("effects", line.head())
                node = self.effect(line)
                if node is not None:
                    out.append(node)
        finally:
            self.at = outer
        return tuple(out)

    def effect(self, line: Line) -> Optional[object]:
        head = line.head()
        parts = line.parts
        atoms = [p for p in parts if isinstance(p, Atom)]
        blocks = [p for p in parts if isinstance(p, Block)]
        if head == "if":
            return self._if(line)
        if head == "mode" and len(atoms) == 2 and len(blocks) == 1:
            self.refs.append(Ref("mode", str(atoms[1].value), atoms[1].span, self.scope))
            return n.ModeBlock(line.span, str(atoms[1].value), self.effects(blocks[0]))
        if head == "repeat" and len(atoms) == 2 and len(blocks) == 1:
            ok, amount = self._slot("amount", atoms[1], [])
            if not ok:
                self.error(atoms[1].span, "E205", "repeat needs a number", "write 'repeat 2 { … }'")
                return None
            if isinstance(amount, int) and amount < 0:
                self.error(atoms[1].span, "E209", f"repeat {amount}: the count cannot be negative", "")
            elif isinstance(amount, int) and not self.limit(atoms[1].span, "repeat", amount, MAX_REPEAT):
                amount = 0
            weight = amount if isinstance(amount, int) else DYNAMIC_REPEAT
            if self.repeats * max(weight, 1) > MAX_REPEAT_WORK:
                self.error(line.span, "E209", f"repeats inside repeats run this block {self.repeats * weight} times, "
                           f"above the limit of {MAX_REPEAT_WORK}",
                           f"the counts are multiplied; a count computed in play counts as {DYNAMIC_REPEAT}")
                weight = 0
            outer, self.repeats = self.repeats, self.repeats * max(weight, 1)
            try:
                body = self.effects(blocks[0])
            finally:
                self.repeats = outer
            return n.Repeat(line.span, amount, body)
        if head == "choose" and len(atoms) == 1 and len(blocks) == 1:
            return self._choose(line, blocks[0])
        if head == "roll" and len(atoms) == 1 and len(blocks) == 1:
            return self._roll(line, blocks[0])
        if head in ("gain", "remove", "move", "spend") and len(atoms) > 2 and atoms[2].value == "token":
            return self._token_line(line, blocks)
        if head == "reveal" and len(atoms) > 1 and atoms[1].value == "tokens":  # reveal tokens T at|on HOLDER
            return self._token_line(line, blocks)
        if head == "spend":
            return self._spend(line, atoms, blocks)
        if head == "for" and len(atoms) > 2 and atoms[2].value in _PIECE_WORDS:
            return self._for_each_piece(line)
        if head == "for":
            return self._for_each(line, atoms, blocks)
        if head == "each" and len(atoms) == 2 and atoms[1].kind == "name" and len(blocks) == 1:
            return n.Each(line.span, str(atoms[1].value), self.effects(blocks[0]))
        if head == "at" and blocks:
            return self._delayed(line, atoms, blocks)
        if head == "all" and [a.value for a in atoms] == ["all", "killers"] and len(blocks) == 1 and len(parts) == 3:
            return n.AllKillers(line.span, self.effects(blocks[0]))
        if blocks:
            self.error(line.span, "E207", f"this effect line does not take a block: '{line.text()}'",
                       "blocks follow if, mode, repeat, choose, roll, spend, for each, all killers and "
                       "at start of next PHASE")
            return None
        self.slot_problem = None
        for pat in _starting(EFFECT_PATTERNS, str(atoms[0].value) if atoms and atoms[0].kind == "name" else ""):
            node = self._match(pat, atoms, line.span)
            if node is not None:
                for a in atoms:  # no effect phrase takes a negative number, nor one above MAX_AMOUNT
                    if a.kind == "number" and a.num < 0:
                        self.error(a.span, "E209", f"'{line.text()}': {a.value} cannot be negative",
                                   "amounts and counts are 0 or more")
                    elif a.kind == "number":
                        self.limit(a.span, f"'{line.text()}':", a.num, MAX_AMOUNT)
                if isinstance(node, (n.OpenPath, n.ClosePath)):
                    self._path_ref(node, line)
                if isinstance(node, n.ShuffleCardInto):  # the card is one of that deck's: checked by check.py
                    self.refs.append(Ref("deck-card", f"{node.deck}/{node.card}", atoms[2].span, self.scope))
                return node
        problem, self.slot_problem = self.slot_problem, None
        if problem is not None:  # the words fit a phrase but the expression in parentheses does not read
            self.diags.append(problem)
            return None
        self.error(line.span, "E207", f"unknown effect '{line.text()}'",
                   functools.partial(self._best, EFFECT_PATTERNS, self._generic(atoms)))
        return None

    def _delayed(self, line: Line, atoms: list[Atom], blocks: list[Block]) -> Optional[n.DelayedTrigger]:
        """at start of next PHASE { … } / at end of next PHASE { … }: kept, and resolved once then."""
        words = [str(a.value) for a in atoms]
        if (len(words) != 5 or words[1] not in ("start", "end") or words[2:4] != ["of", "next"]
                or words[4] not in PHASES or len(blocks) != 1 or not isinstance(line.parts[-1], Block)):
            self.error(line.span, "E207", f"cannot read '{line.text()}'",
                       "inside an effect write 'at start of next PHASE { … }' or 'at end of next PHASE { … }' "
                       f"(PHASE: {', '.join(PHASES)})")
            return None
        return n.DelayedTrigger(line.span, words[1], words[4], self.effects(blocks[0]))

    def _path_ref(self, node: Any, line: Line) -> None:
        """open/close path A B with two location ids: the checker looks for that path in the scenario."""
        a, z = node.a, node.b
        if isinstance(a, str) and isinstance(z, str) and a not in SPECIAL_LOCS and z not in SPECIAL_LOCS:
            self.refs.append(Ref("path", f"{a} {z}", line.span, self.scope))

    def _if(self, line: Line) -> Optional[n.If]:
        """if CONDITION { … } [else { … }]: the condition is everything between 'if' and the block
        before 'else' (or the last block); it may hold blocks of its own (all { … })."""
        parts = list(line.parts)
        else_at = next((i for i in range(len(parts) - 1, 1, -1)
                        if _is_word(parts[i], "else")), -1)
        then_at = else_at - 1 if else_at > 0 else len(parts) - 1
        then_block = parts[then_at] if then_at >= 1 else None
        if not isinstance(then_block, Block) or then_at < 2:
            self.error(line.span, "E202", "an 'if' needs a condition and a block", "write 'if fear at least 5 { … }'")
            return None
        otherwise: tuple[n.Effect, ...] = ()
        if else_at > 0:
            rest = parts[else_at + 1:]
            if len(rest) == 1 and isinstance(rest[0], Block):
                otherwise = self.effects(rest[0])
            else:
                self.error(line.span, "E202", "after an 'if' block only 'else { … }' may follow", "")
        cond = self.condition(parts[1:then_at])
        if cond is None:
            return None
        return n.If(line.span, cond, self.effects(then_block), otherwise)

    def _spend(self, line: Line, atoms: list[Atom], blocks: list[Block]) -> Optional[n.SpendTokens]:
        # spend collected TOKEN LOW to HIGH { … }
        words = [a.value for a in atoms]
        if (len(atoms) != 6 or words[1] != "collected" or atoms[2].kind != "name" or atoms[3].kind != "number"
                or words[4] != "to" or atoms[5].kind != "number" or len(blocks) != 1):
            self.error(line.span, "E207", f"cannot read '{line.text()}'",
                       "write 'spend collected TOKEN 1 to 3 { each KIND { … } }'")
            return None
        low, high = atoms[3].num, atoms[5].num
        if not 1 <= low <= high:
            self.error(line.span, "E209", "the spend range must be 1 ≤ LOW ≤ HIGH", "")
            return None
        if not self.limit(atoms[5].span, "spending", high, MAX_SPEND):
            return None
        self.refs.append(Ref("token", str(words[2]), atoms[2].span, self.scope))
        return n.SpendTokens(line.span, str(words[2]), low, high, self.effects(blocks[0]))

    def _for_each(self, line: Line, atoms: list[Atom], blocks: list[Block]) -> Optional[n.ForEach]:
        """for each SET [with …] [where CONDITION] [except PLACE] { … }: a place's set and filters."""
        parts = list(line.parts)
        if (len(parts) < 4 or not isinstance(parts[1], Atom) or parts[1].value != "each"
                or not isinstance(parts[-1], Block)):
            self.error(line.span, "E207", f"cannot read '{line.text()}'",
                       "write 'for each exit except killer-start { place 1 victims at it }'")
            return None
        head: list = parts[2:-1]
        count: Any = 0
        if len(head) > 2 and isinstance(head[1], Atom) and head[1].value == "of" and isinstance(head[0], Atom):
            # for each N of SET …: N different locations of it, picked by its picks
            ok, count = self._slot("amount", head[0], self.refs)
            if not ok:
                self.error(head[0].span, "E205", f"'{head[0].text()}' is not a number of locations",
                           "write 'for each 3 of any with victims random { … }'")
                return None
            if isinstance(count, int) and not self.limit(head[0].span, "locations of a 'for each'", count,
                                                         MAX_AMOUNT, 1):
                return None
            head = head[2:]
        among = self.expression("selector", head)
        if not isinstance(among, n.Selector):
            return None
        self.in_for += 1
        try:
            body = self.effects(parts[-1])
        finally:
            self.in_for -= 1
        return n.ForEach(line.span, among, body, count)

    # --- victim kinds, statuses on every piece, tokens everywhere (issue #16 items 3-5) -------------
    def _pieces(self, atom: Atom, refs: list[Ref]) -> tuple[bool, Any]:
        """A pieces slot: ``it``, ``fg`` or a piece set in parentheses, ``(victims at tag outdoor)``."""
        if atom.kind == "name" and atom.value in ("it", "fg"):
            if atom.value == "it" and not self.in_for and self.in_card:  # the pieces at the card's place
                refs.append(Ref("card-place", self.in_card, atom.span, self.scope))
            elif atom.value == "it" and not self.in_for:
                self.error(atom.span, "E204", "'it' means nothing here",
                           "'it' is the piece of a 'for each victim …' (or the location of a 'for each')")
            return True, n.PieceSet(atom.span, str(atom.value))
        if atom.kind == "group" and atom.items:
            node = self.expression("piece_set", list(atom.items), report=False, refs=refs)
            return isinstance(node, n.PieceSet), node
        return False, None

    def _for_each_piece(self, line: Line) -> Optional[n.ForEachPiece]:
        """for each PIECE [at PLACE | at tag TAG] [where CONDITION] { … }: 'it' is the piece."""
        parts = list(line.parts)
        if len(parts) < 4 or not isinstance(parts[1], Atom) or parts[1].value != "each" or \
                not isinstance(parts[-1], Block):
            self.error(line.span, "E207", f"cannot read '{line.text()}'",
                       "write 'for each victim at tag outdoor where it has status cold { … }'")
            return None
        among = self.expression("piece_set", parts[2:-1])
        if not isinstance(among, n.PieceSet):
            return None
        if among.what in ("fg", "it"):
            self.error(line.span, "E207", f"'for each {among.what}': {among.what} is one piece",
                       "write the effects on it directly, or 'for each piece …'")
            return None
        self.in_for += 1
        try:
            body = self.effects(parts[-1])
        finally:
            self.in_for -= 1
        return n.ForEachPiece(line.span, among, body)

    def _token_line(self, line: Line, blocks: list[Block]) -> Optional[n.Effect]:
        """gain|remove|move|spend N token T [KIND] … (a spend may take a block)."""
        parts = list(line.parts)
        body: tuple = ()
        if blocks:
            if getattr(parts[0], "value", "") != "spend" or len(blocks) != 1 or not isinstance(parts[-1], Block):
                self.error(line.span, "E207", f"this effect line does not take a block: '{line.text()}'",
                           "only 'spend N token … { … }' takes one: it resolves if the tokens were paid")
                return None
            body = self.effects(parts[-1])
            parts = parts[:-1]
        node = self.expression("token_effect", parts)
        if node is None:
            return None
        for a in line.words():
            if a.kind == "number" and a.num < 0:
                self.error(a.span, "E209", f"'{line.text()}': {a.value} cannot be negative", "amounts are 0 or more")
        if isinstance(node, n.SpendTo):
            node = attrs.evolve(node, body=body)
        dest = getattr(node, "to", None)
        if dest is not None and (dest.kind == "items" or (isinstance(node, n.GainTokens) and
                                                         dest.kind in ("supply", "discard"))):
            self.error(dest.span, "E205", f"tokens cannot be put {'on the items' if dest.kind == 'items' else 'there'}",
                       "put them on one holder: 'item ID', 'card CARD', a place, 'collection', 'it'")
            return None
        if isinstance(node, n.GainTokens) and node.face and dest is not None and dest.kind == "collection":
            self.error(dest.span, "E216", "her collection shows its tokens: they lie there face up",
                       f"leave out 'face {node.face}', or put them on a place, 'item ID' or 'card CARD'")
            return None
        if isinstance(node, n.RevealTokens) and node.at.kind in ("supply", "discard", "collection"):
            lie = "of her collection lie face up" if node.at.kind == "collection" else "there lie face down for good"
            self.error(node.at.span, "E216", f"the tokens {lie}: there is nothing to reveal there",
                       "reveal them where they may lie face down: at a place, on 'item ID', 'card CARD', 'items' "
                       "or 'it'")
            return None
        return node

    def _choose(self, line: Line, block: Block) -> Optional[n.Choose]:
        options = []
        _note_block(self.at, "choose", ())
        self.at = ("choose", "")  # (restored by effects(), which reads the choose line)
        for sub in self.rejoin(block.lines):
            if (len(sub.parts) == 2 and isinstance(sub.parts[0], Atom) and sub.parts[0].kind == "string"
                    and isinstance(sub.parts[1], Block)):
                options.append(n.ChooseOption(sub.span, str(sub.parts[0].value), self.effects(sub.parts[1])))
            else:
                self.error(sub.span, "E201", "each choice is a label and a block", 'write "Rest" { heal 1 }')
        if len(options) < 2:
            self.error(line.span, "E202", "choose needs at least two options", "")
            return None
        return n.Choose(line.span, tuple(options))

    def _roll(self, line: Line, block: Block) -> Optional[n.Roll]:
        rows = []
        seen: set[int] = set()
        _note_block(self.at, "roll", ("on",))
        self.at = ("roll", "on")  # (restored by effects(), which reads the roll line)
        for sub in self.rejoin(block.lines):
            atoms = sub.words()
            blocks = [p for p in sub.parts if isinstance(p, Block)]
            faces = [a.num for a in atoms[1:] if a.kind == "number"]
            if (not atoms or atoms[0].value != "on" or len(faces) != len(atoms) - 1 or not faces or len(blocks) != 1
                    or not isinstance(sub.parts[-1], Block)):
                self.error(sub.span, "E201", "each roll row is 'on FACES { … }'", "write 'on 1 2 3 { lose 1 time }'")
                continue
            for f in faces:
                if not 1 <= f <= 6 or f in seen:
                    self.error(sub.span, "E209", f"die face {f} is not 1–6 or is used twice", "")
                seen.add(f)
            rows.append(n.RollRow(sub.span, tuple(faces), self.effects(blocks[0])))
        return n.Roll(line.span, tuple(rows))

    # --- abilities (when / at / instead / rule / win / lose) --------------------------------
    def ability(self, line: Line, acc: dict, kind: str = "") -> bool:
        """Handle a trigger, replacement, modification, rule or end condition line (in a ``kind``
        block); False if it is none."""
        head = line.head()
        parts = list(line.parts)
        atoms = line.words()
        words = [str(a.value) for a in atoms]
        if head == "rule":
            cut = next((i for i, p in enumerate(parts) if isinstance(p, Atom) and p.value == "while"), len(parts))
            rule_atoms = [p for p in parts[1:cut] if isinstance(p, Atom)]
            node = self.rule(line, rule_atoms)
            if node is not None and cut < len(parts):  # rule … while CONDITION
                cond = self.condition(parts[cut + 1:])
                node = attrs.evolve(cast(Any, node), cond=cond) if cond is not None else None
            if node is not None:
                acc.setdefault("rules", []).append(node)
            return True
        if head in ("win", "lose") and len(words) > 2 and words[1] == "when":
            reason = ""
            if isinstance(parts[-1], Atom) and parts[-1].kind == "string":  # win when … "why, in the end report"
                reason = str(parts[-1].value)
                parts = parts[:-1]
            cond = self.condition(parts[2:]) if len(parts) > 2 else None
            if cond is not None:
                acc.setdefault("ends", []).append(n.EndCondition(line.span, head, cond, reason))
            return True
        if head in MODIFIERS:
            got = self.expression("modification", parts, it_ok=True)
            if got is not None:
                how, event, amount, cond = got
                if isinstance(event, n.PhaseEvent) and event.edge == "whole" and how != "prevent":
                    self.error(event.span, "E201", f"'{event.phase} phase' has no number to change",
                               f"write 'prevent {event.phase} phase', or 'instead of {event.phase} phase {{ … }}'")
                    return True
                acc.setdefault("modifications", []).append(n.Modification(line.span, event, how, amount, cond))
            return True
        body = parts[-1] if isinstance(parts[-1], Block) else None
        if head == "instead" and body is not None and len(parts) > 3 and words[1] == "of":
            got = self.expression("trigger_head", parts[2:-1], it_ok=True)
            if got is not None:
                event, cond = got
                acc.setdefault("replacements", []).append(
                    n.Replacement(line.span, event, cond, self._handler(body)))
            return True
        if head == "at" and body is not None and words[2:4] == ["of", "next"]:
            self.error(line.span, "E201", f"'{' '.join(words)}' keeps a block from inside an effect",
                       f"here write 'at {words[1]} of {words[4] if len(words) > 4 else 'PHASE'} {{ … }}' (every time), "
                       "or put the line inside an effect block (once)")
            return True
        if head in ("when", "at") and body is not None and len(parts) > 2:
            got = self.expression("trigger_head", parts[1:-1], it_ok=True)
            if got is None:
                return True
            event, cond = got
            if head == "at" and not isinstance(event, n.PhaseEvent):
                self.error(parts[1].span, "E201", f"'at {words[1]} …': 'at' takes the start or end of a phase",
                           "write 'at start of upkeep { … }', or 'when EVENT { … }'")
                return True
            if isinstance(event, n.PhaseEvent) and event.edge == "whole":
                self.error(event.span, "E201", f"'{event.phase} phase' is a whole phase: only a replacement takes it",
                           f"write 'instead of {event.phase} phase {{ … }}', or 'at start of {event.phase} {{ … }}'")
                return True
            own = event.how if isinstance(event, n.OwnEvent) else ""
            where = FIRES_ONLY_IN.get(own)
            if where is not None and kind and kind not in where[0]:
                words_span = Span(self.path, atoms[0].span.line, atoms[0].span.col, atoms[-1].span.end_line,
                                  atoms[-1].span.end_col)
                what = kind.replace("_", " ")
                what = ("an " if what[0] in "aeiou" else "a ") + what
                self.diags.append(Diagnostic(words_span, "W201", f"'{' '.join(words)}' never fires in {what}",
                                             f"it fires only {where[1]}", severity="warning"))
            acc.setdefault("triggers", []).append(n.Trigger(line.span, event, cond, self._handler(body)))
            return True
        if head in ("when", "at", "instead"):
            self.error(line.span, "E201", f"'{line.text()}' needs a block", f"write '{line.text()} {{ … }}'")
            return True
        return False

    def _handler(self, block: Block) -> tuple[n.Effect, ...]:
        """The block of a 'when' or 'instead of' line: 'it' is where its event happens."""
        self.in_for += 1
        try:
            return self.effects(block)
        finally:
            self.in_for -= 1

    @staticmethod
    def abilities(acc: dict) -> n.Abilities:
        return n.Abilities(
            tuple(acc.get("triggers", ())), tuple(acc.get("replacements", ())),
            tuple(acc.get("rules", ())), tuple(acc.get("ends", ())), tuple(acc.get("modifications", ())),
        )

    # --- small value readers ----------------------------------------------------------------
    def one(self, line: Line, kind: str, what: str) -> Any:
        """Read 'key VALUE' where VALUE is an int, string or name."""
        atoms = line.words()
        if len(atoms) != 2 or len(line.parts) != 2 or atoms[1].kind != kind:
            example = {"number": "3", "string": '"Some Name"', "name": "some-id"}[kind]
            self.error(line.span, "E205", f"'{line.head()}' takes one {what}", f"write '{line.head()} {example}'")
            return None
        return atoms[1].value

    def ints(self, line: Line, start: int = 1) -> Optional[list[int]]:
        atoms = line.words()[start:]
        if any(a.kind != "number" for a in atoms):
            self.error(line.span, "E205", f"'{line.head()}' takes numbers", "")
            return None
        return [a.num for a in atoms]

    def names(self, line: Line, start: int = 1) -> list[str]:
        out = []
        for a in line.words()[start:]:
            if a.kind != "name":
                self.error(a.span, "E205", f"expected a name, got {a.text()}", "")
            else:
                out.append(str(a.value))
        return out

    def block_of(self, line: Line) -> Optional[Block]:
        blocks = [p for p in line.parts if isinstance(p, Block)]
        if len(blocks) != 1 or not isinstance(line.parts[-1], Block):
            self.error(line.span, "E202", f"'{line.head()}' needs one block", f"write '{line.head()} {{ … }}'")
            return None
        return blocks[0]


def _own(ab: n.Abilities, how: str) -> tuple[tuple[n.Trigger, ...], n.Abilities]:
    """The triggers on the card's own event (``when revealed`` / ``drawn``), and the abilities without them."""
    mine = tuple(t for t in ab.triggers if isinstance(t.event, n.OwnEvent) and t.event.how == how)
    return mine, attrs.evolve(ab, triggers=tuple(t for t in ab.triggers if t not in mine))


# --- declaration readers --------------------------------------------------------------------
Reader = Callable[[Builder, Line, dict], None]


def _decl_header(b: Builder, line: Line) -> Optional[tuple[str, Block]]:
    atoms = line.words()
    block = line.parts[2] if len(line.parts) == 3 else None
    if len(atoms) != 2 or atoms[1].kind != "name" or not isinstance(block, Block):
        b.error(line.span, "E202", f"a {line.head()} is written '{line.head()} ID {{ … }}'", "ids are kebab-case words")
        return None
    return str(atoms[1].value), block


def _note_block(at: tuple[str, str], kind: str, words: Optional[tuple[str, ...]] = None) -> None:
    """Record that the line ``at`` (kind of block, leading word) holds a block of ``kind``, which
    takes lines leading with ``words`` (BLOCK_OF, BLOCK_WORDS)."""
    if BLOCK_OF.get(at) != kind:
        BLOCK_OF[at] = kind
    if words is not None:
        known = BLOCK_WORDS.get(kind, ())
        if any(w not in known for w in words):
            BLOCK_WORDS[kind] = tuple(dict.fromkeys((*known, *words)))


def _read_body(b: Builder, kind: str, block: Block, readers: dict[str, Reader], abilities: bool = False) -> dict:
    outer = b.at
    _note_block(outer, kind, (*readers, *(ABILITY_WORDS if abilities else ())))
    try:
        return _read_lines(b, kind, block, readers, abilities)
    finally:
        b.at = outer


def _read_lines(b: Builder, kind: str, block: Block, readers: dict[str, Reader], abilities: bool) -> dict:
    acc: dict = {}
    seen: dict[str, Span] = {}
    repeatable = {"slot", "body", "level", "location", "path", "link", "setup", "item", "event", "terror", "finale",
                  "dark_power", "minion", "victims", "zone", "side", "rule", "time", "fear", "token", "action", "deck",
                  "card", "tokens", "when", "at", "instead", "win", "lose", *MODIFIERS, "pile", "recipe", "half",
                  "track", "holding", "space", "number", "rules", "replace", "remove", "for", "victim", "not",
                  "conveyance"}
    for line in b.rejoin(block.lines):
        head = line.head()
        if not head:
            b.error(line.span, "E201", f"a line in a {kind} starts with a word", "")
            continue
        b.at = (kind, head)
        if abilities and head in ABILITY_WORDS and b.ability(line, acc, kind):
            continue
        reader = readers.get(head)
        if reader is None:
            allowed = list(readers) + (list(ABILITY_WORDS) if abilities else [])
            b.unknown(line.parts[0].span, "E201", f"line in a {kind}", head, allowed)
            continue
        if head in seen and head not in repeatable and not getattr(reader, "repeatable", False):
            b.error(line.span, "E206", f"'{head}' is given twice in this {kind}",
                    f"the first is at line {seen[head].line}")
            continue
        seen[head] = line.span
        before = len(b.diags)
        reader(b, line, acc)
        if any(d.severity == "error" for d in b.diags[before:]):
            acc.setdefault("_failed", set()).add(head)  # reported here: not 'missing' too
    return acc


def _set(key: str, kind: str, what: str) -> Reader:
    def reader(b: Builder, line: Line, acc: dict) -> None:
        value = b.one(line, kind, what)
        if value is not None:
            acc[key] = value
    return reader


def _count(key: str, minimum: int, maximum: int = MAX_AMOUNT) -> Reader:
    """'key N' with N at least ``minimum`` and at most ``maximum`` (E209 otherwise)."""
    def reader(b: Builder, line: Line, acc: dict) -> None:
        value = b.one(line, "number", "number")
        if value is None:
            return
        if int(value) < minimum:
            b.error(line.words()[1].span, "E209", f"'{line.head()}' must be at least {minimum}, not {value}", "")
            return
        if not b.limit(line.words()[1].span, line.head(), int(value), maximum):
            return
        acc[key] = value
    return reader


def _bounded(key: str, low: Optional[int], high: int) -> Reader:
    """'key N' (a number) with N within ``low``..``high`` (E209 naming the limit otherwise); a lower
    bound that the checker reports with its own message is passed as None."""
    def reader(b: Builder, line: Line, acc: dict) -> None:
        value = b.one(line, "number", "number")
        if value is not None and b.limit(line.words()[1].span, line.head(), int(value), high, low):
            acc[key] = value
    return reader


def _flag(key: str) -> Reader:
    def reader(b: Builder, line: Line, acc: dict) -> None:
        if len(line.parts) != 1:
            b.error(line.span, "E205", f"'{line.head()}' stands alone on its line", "")
        acc[key] = True
    return reader


def _effects(key: str) -> Reader:
    def reader(b: Builder, line: Line, acc: dict) -> None:
        blk = b.block_of(line)
        if blk is not None:
            if len(line.parts) != 2:
                b.error(line.span, "E205", f"'{line.head()}' is followed only by its block", "")
            acc[key] = b.effects(blk)
    return reader


_HEAD_OF = {"reset": "time", "time_range": "time", "fear_range": "fear", "zones": "zone", "sides": "side",
            "last_breath": "last", "locations": "location", "setups": "setup"}  # key in acc -> its line's head


def _require(b: Builder, acc: dict, span: Span, kind: str, keys: dict[str, str]) -> bool:
    ok = True
    failed = acc.get("_failed", ())  # lines given but reported already (a wrong value): not missing too
    for key, example in keys.items():
        if key not in acc:
            ok = False
            if _HEAD_OF.get(key, key) not in failed:
                b.error(span, "E202", f"this {kind} has no '{key.replace('_', ' ')}' line", f"add '{example}'")
    return ok


TIERS = {"fail": 0, "success": 1, "great": 2, "best": 3}


def build_card(b: Builder, line: Line, owner: str = "") -> Optional[n.Card]:
    head = _decl_header(b, line)
    if head is None:
        return None
    cid, block = head

    def outcome(b: Builder, line: Line, acc: dict) -> None:
        blk = b.block_of(line)
        if blk is not None:
            acc.setdefault("outcomes", []).append(n.Outcome(line.span, TIERS[line.head()], b.effects(blk)))

    def kind(b: Builder, line: Line, acc: dict) -> None:
        value = b.one(line, "name", "kind")
        if value is not None and value not in ("action", "reaction", "reroll"):
            b.unknown(line.words()[1].span, "E204", "card kind", value, ("action", "reaction", "reroll"))
        elif value is not None:
            acc["kind"] = value

    def start(b: Builder, line: Line, acc: dict) -> None:
        words = [str(a.value) for a in line.words()]
        if words == ["start", "aside"]:  # V3: out of play until an effect gains it
            acc["aside"] = True
            return
        if words != ["start", "hand"]:
            b.error(line.span, "E205", "write 'start hand' or 'start aside'", "")
        acc["start"] = True

    def reroll(b: Builder, line: Line, acc: dict) -> None:
        atoms = line.words()
        if len(atoms) == 2 and (atoms[1].value == "fails" or (atoms[1].kind == "number" and atoms[1].num > 0)):
            n_rerolls = atoms[1].num if atoms[1].kind == "number" else 0
            if not b.limit(atoms[1].span, "reroll", n_rerolls, MAX_DICE):
                return
            acc["reroll"] = str(atoms[1].value)
        else:
            b.error(line.span, "E205", "write 'reroll fails' or 'reroll N'", "")

    readers: dict[str, Reader] = {
        "name": _set("name", "string", "string"), "kind": kind, "cost": _count("cost", 0),
        "copies": _count("copies", 1, MAX_COPIES), "start": start, "dice": _bounded("dice", -MAX_DICE, MAX_DICE),
        "reroll": reroll, **{t: outcome for t in TIERS}, "usable": _usable,
    }
    acc = _read_body(b, "card", block, readers)
    _require(b, acc, line.span, "card", {"name": 'name "…"', "cost": "cost 2"})
    kind_ = acc.get("kind", "action")
    outcomes = tuple(sorted(acc.get("outcomes", ()), key=lambda o: o.min_successes))
    if kind_ == "reroll" and "reroll" not in acc:
        b.error(line.span, "E202", "a reroll card needs a 'reroll' line", "add 'reroll fails'")
    if kind_ != "reroll" and not outcomes:
        b.error(line.span, "E202", "this card has no outcomes", "add 'fail { … }', 'success { … }' and 'great { … }'")
    tiers = [o.min_successes for o in outcomes]
    if len(set(tiers)) != len(tiers):
        b.error(line.span, "E206", "an outcome is given twice", "")
    return n.Card(line.span, cid, acc.get("name", cid), kind_, acc.get("cost", 0), acc.get("copies", 1),
                  acc.get("start", False), acc.get("dice", 0), outcomes, acc.get("reroll", ""), owner,
                  acc.get("usable"), acc.get("aside", False))


def build_item(b: Builder, line: Line, owner: str = "") -> Optional[n.Item]:
    head = _decl_header(b, line)
    if head is None:
        return None
    iid, block = head

    def weapon(b: Builder, line: Line, acc: dict) -> None:
        atoms = line.words()
        vals: dict[str, int] = {}
        i = 1
        while i + 1 < len(atoms) and atoms[i].kind == "name" and atoms[i + 1].kind == "number":
            vals[str(atoms[i].value)] = atoms[i + 1].num
            i += 2
        if (i != len(atoms) or set(vals) - {"hands", "range", "bonus"} or "hands" not in vals
                or vals["hands"] not in (1, 2)):
            b.error(line.span, "E205", "write 'weapon hands 1 range 0 bonus 1' (hands 1 or 2)", "")
            return
        if vals.get("range", 0) < 0:
            b.error(line.span, "E209", "a weapon's range cannot be negative", "")
        b.limit(line.span, "a weapon's range", vals.get("range", 0), MAX_AMOUNT)
        b.limit(line.span, "a weapon's bonus", vals.get("bonus", 0), MAX_DICE, -MAX_DICE)
        acc["weapon"] = n.Weapon(line.span, vals["hands"], vals.get("range", 0), vals.get("bonus", 0))

    def use(b: Builder, line: Line, acc: dict) -> None:
        atoms = line.words()
        blk = b.block_of(line)
        if len(atoms) != 3 or atoms[1].value != "time" or atoms[2].kind != "number" or blk is None:
            b.error(line.span, "E205", "write 'use time N { … }'", "")
            return
        if atoms[2].num < 0:
            b.error(atoms[2].span, "E209", f"using an item cannot cost {atoms[2].value} time",
                    "write 'use time 0 { … }'")
        b.limit(atoms[2].span, "use time", atoms[2].num, MAX_AMOUNT)
        acc["use"] = n.ItemUse(line.span, atoms[2].num, b.effects(blk))

    def hand(b: Builder, line: Line, acc: dict) -> None:  # hand only (S1.7)
        if [str(a.value) for a in line.words()] != ["hand", "only"] or len(line.parts) != 2:
            b.error(line.span, "E205", "write 'hand only'", "")
            return
        acc["hand_only"] = True

    readers: dict[str, Reader] = {"name": _set("name", "string", "string"), "weapon": weapon,
                                  "uses": _count("uses", 0), "use": use, "keep": _flag("keep"), "hand": hand,
                                  **ITEM_ZONE_PARTS}
    acc = _read_body(b, "item", block, readers, abilities=True)
    _require(b, acc, line.span, "item", {"name": 'name "…"'})
    placed = sum(k for _z, k in acc.get("starts", ()))
    if placed > acc.get("copies", 1):
        b.error(line.span, "E209", f"its counted starts place {placed} copies, but it has {acc.get('copies', 1)}",
                f"write 'copies {placed}' or more (the copies left over are dealt into the item piles)")
    return n.Item(line.span, iid, acc.get("name", iid), acc.get("weapon"), acc.get("uses", 0), acc.get("use"),
                  acc.get("keep", False) or acc.get("cannot", False), b.abilities(acc), owner,
                  acc.get("copies", 1), acc.get("start", ""), acc.get("pile", ""), acc.get("returns", False),
                  acc.get("keep_cond"), acc.get("usable"), acc.get("hand_only", False),
                  acc.get("discarded_tokens", ""), tuple(acc.get("starts", ())))


def build_final_girl(b: Builder, line: Line) -> tuple[Optional[n.FinalGirl], list[n.Item]]:
    head = _decl_header(b, line)
    if head is None:
        return None, []
    fid, block = head
    items: list[n.Item] = []

    def slot(b: Builder, line: Line, acc: dict) -> None:
        blk = b.block_of(line)
        if blk is not None:
            acc.setdefault("slots", []).append(b.effects(blk))

    def flipped(b: Builder, line: Line, acc: dict) -> None:
        blk = b.block_of(line)
        if blk is None:
            return
        sub = _read_body(b, "flipped side", blk, {"reward": _effects("reward")}, abilities=True)
        acc["reward"] = sub.get("reward", ())
        acc["flipped"] = b.abilities(sub)

    def item(b: Builder, line: Line, acc: dict) -> None:
        it = build_item(b, line, owner=fid)
        if it is not None:
            items.append(it)

    def signature(b: Builder, line: Line, acc: dict) -> None:
        value = b.one(line, "name", "item id")
        if value is not None:
            acc["signature"] = value
            b.refs.append(Ref("item", value, line.words()[1].span, fid))

    readers: dict[str, Reader] = {"name": _set("name", "string", "string"),
                                  "health": _bounded("health", None, MAX_HEALTH),
                                  "rescues": _set("rescues", "number", "number"), "slot": slot, "flipped": flipped,
                                  "signature": signature, "item": item}
    acc = _read_body(b, "final_girl", block, readers)
    _require(b, acc, line.span, "final_girl", {"name": 'name "…"', "health": "health 6", "rescues": "rescues 4",
                                               "signature": "signature ITEM"})
    slots = tuple(acc.get("slots", ()))
    if "rescues" in acc and len(slots) < acc["rescues"]:
        b.error(line.span, "E210", f"{acc['rescues']} rescues need {acc['rescues']} slots, found {len(slots)}",
                "add 'slot { … }' lines")
    fg = n.FinalGirl(line.span, fid, acc.get("name", fid), acc.get("health", 1), acc.get("rescues", 4), slots,
                     acc.get("reward", ()), acc.get("flipped", n.NO_ABILITIES), acc.get("signature", ""))
    return fg, items


def _named(b: Builder, line: Line, kind: str, extra: dict[str, Reader],
           abilities: bool = True) -> Optional[tuple[str, dict]]:
    head = _decl_header(b, line)
    if head is None:
        return None
    did, block = head
    readers: dict[str, Reader] = {"name": _set("name", "string", "string"), **extra}
    acc = _read_body(b, kind, block, readers, abilities=abilities)
    _require(b, acc, line.span, kind, {"name": 'name "…"'})
    return did, acc


def build_terror(b: Builder, line: Line, owner: str) -> Optional[n.Terror]:
    def secondary(b: Builder, line: Line, acc: dict) -> None:
        atoms = line.words()
        if len(atoms) == 3 and atoms[1].value == "health" and atoms[2].kind == "number" and atoms[2].num > 0:
            if b.limit(atoms[2].span, "secondary health", atoms[2].num, MAX_HEALTH):
                acc["secondary"] = atoms[2].num
        else:
            b.error(line.span, "E205", "write 'secondary health N'", "")

    got = _named(b, line, "terror", {"effect": _effects("effect"), "secondary": secondary})
    if got is None:
        return None
    tid, acc = got
    return n.Terror(line.span, tid, acc.get("name", tid), acc.get("effect", ()), acc.get("secondary", 0),
                    b.abilities(acc), owner)


def build_minion(b: Builder, line: Line) -> Optional[n.Minion]:
    def words(key: str, text: str) -> Reader:  # a flag written as two words ("attacks together")
        def reader(b: Builder, line: Line, acc: dict) -> None:
            if [str(a.value) for a in line.words()] != text.split() or len(line.parts) != len(text.split()):
                b.error(line.span, "E205", f"write '{text}'", "")
                return
            acc[key] = True
        return reader

    got = _named(b, line, "minion", {"health": _count("health", 1, MAX_HEALTH), "limit": _count("limit", 0, MAX_PIECES),
                                     **{k: _count(k, 0) for k in ("move", "damage")},
                                     "attacks": words("together", "attacks together"),
                                     "victims": words("victims_first", "victims first"), "wanders": _flag("wanders")},
                 abilities=False)
    if got is None:
        return None
    mid, acc = got
    _require(b, acc, line.span, "minion",
             {"health": "health 1", "move": "move 1", "damage": "damage 1", "limit": "limit 6"})
    return n.Minion(line.span, mid, acc.get("name", mid), acc.get("health", 1), acc.get("move", 1),
                    acc.get("damage", 1), acc.get("limit", 0), acc.get("together", False),
                    acc.get("victims_first", False), acc.get("wanders", False))


def build_body(b: Builder, line: Line) -> Optional[n.Body]:
    """body ID { name "…"; health N; off board; formed }"""
    def words(key: str, text: str) -> Reader:
        def reader(b: Builder, line: Line, acc: dict) -> None:
            if [str(a.value) for a in line.words()] != text.split() or len(line.parts) != len(text.split()):
                b.error(line.span, "E205", f"write '{text}'", "")
                return
            acc[key] = True
        return reader

    got = _named(b, line, "body", {"health": _count("health", 1, MAX_HEALTH), "off": words("off_board", "off board"),
                                   "formed": _flag("formed")}, abilities=False)
    if got is None:
        return None
    bid, acc = got
    if not acc.get("formed"):
        _require(b, acc, line.span, "body", {"health": "health 5"})
    return n.Body(line.span, bid, acc.get("name", bid), acc.get("health", 0), acc.get("off_board", False),
                  acc.get("formed", False))


def _read_token(b: Builder, line: Line, acc: dict) -> None:
    """token ID { name "…"; kinds A B C; wild C; supply A 3 B 2 C 1 }"""
    def kinds(b: Builder, l: Line, s: dict) -> None:
        s["kinds"] = tuple(b.names(l))

    def supply(b: Builder, l: Line, s: dict) -> None:
        atoms = l.words()[1:]
        pairs = []
        ok = len(atoms) % 2 == 0 and atoms
        for i in range(0, len(atoms) - 1, 2):
            if atoms[i].kind != "name" or atoms[i + 1].kind != "number":
                ok = False
                break
            pairs.append((str(atoms[i].value), atoms[i + 1].num))
            if atoms[i + 1].num < 0:
                b.error(atoms[i + 1].span, "E209",
                        f"a supply of {atoms[i + 1].value} tokens: it cannot be negative", "")
            elif not b.limit(atoms[i + 1].span, "a supply of", pairs[-1][1], MAX_SUPPLY):
                pairs[-1] = (pairs[-1][0], 0)
        if not ok:
            b.error(l.span, "E205", "write 'supply KIND N KIND N …'", "")
            return
        s["supply"] = tuple(pairs)

    got = _named(b, line, "token", {"kinds": kinds, "wild": _set("wild", "name", "kind"), "supply": supply},
                 abilities=False)
    if got is None:
        return
    tid, sub = got
    kinds_ = sub.get("kinds", ())
    if not kinds_:
        b.error(line.span, "E202", "this token has no 'kinds' line", "add 'kinds red blue'")
    for k, _count in sub.get("supply", ()):
        if k not in kinds_:
            b.unknown(line.span, "E204", "token kind", k, kinds_)
    if sub.get("wild") and sub["wild"] not in kinds_:
        b.unknown(line.span, "E204", "token kind", sub["wild"], kinds_)
    acc.setdefault("tokens", []).append(n.Token(line.span, tid, sub.get("name", tid), kinds_, sub.get("wild", ""),
                                                sub.get("supply", ())))


def _read_action(b: Builder, line: Line, acc: dict) -> None:
    """action ID { name "…"; if CONDITION; time N | free; effect { … } }"""
    def cond(b: Builder, l: Line, s: dict) -> None:
        if len(l.parts) < 2:
            b.error(l.span, "E205", "write 'if CONDITION' in an action", "")
            return
        c = b.condition(list(l.parts[1:]))
        if c is not None:
            s["cond"] = c

    got = _named(b, line, "action", {"if": cond, "time": _count("time", 0), "free": _flag("free"),
                                     "effect": _effects("effect"), "usable": _usable}, abilities=False)
    if got is None:
        return
    aid, sub = got
    if "effect" not in sub:
        b.error(line.span, "E202", "this action has no 'effect' block", "add 'effect { … }'")
    acc.setdefault("actions", []).append(n.Action(line.span, aid, sub.get("name", aid), sub.get("cond"),
                                                  sub.get("time", 0), sub.get("free", False), sub.get("effect", ()),
                                                  sub.get("usable")))


def _read_deck(b: Builder, line: Line, acc: dict) -> None:
    """deck ID { name "…"; card ID { name "…"; effect { … }; keep; rule …; when … } … }"""
    head = _decl_header(b, line)
    if head is None:
        return
    did, block = head
    cards: list[n.DeckCard] = []

    def card(b: Builder, l: Line, s: dict) -> None:
        b.deck = did  # its effects (and its halves'): 'it' is the place it is drawn at
        try:
            got = _named(b, l, "deck card", {"effect": _card_effects, "keep": _flag("keep"), **DECK_CARD_PARTS})
        finally:
            b.deck = ""
        if got is None:
            return
        cid, sub = got
        cards.append(n.DeckCard(l.span, cid, sub.get("name", cid), sub.get("effect", ()), sub.get("keep", False),
                                b.abilities(sub), sub.get("copies", 1), sub.get("number", 0), sub.get("after", ""),
                                tuple(sub.get("halves", ())), sub.get("start", ""), sub.get("body", ""),
                                sub.get("minion", "")))

    sub = _read_body(b, "deck", block, {"name": _set("name", "string", "string"), "card": card, **DECK_PARTS})
    _require(b, sub, line.span, "deck", {"name": 'name "…"'})
    if not cards:
        b.error(line.span, "E202", "this deck has no cards", "add 'card ID { … }'")
    _check_halves(b, sub.get("halves", ()), cards)
    acc.setdefault("decks", []).append(n.Deck(line.span, did, sub.get("name", did), tuple(cards),
                                              sub.get("reshuffle", False), sub.get("after", "discard"),
                                              tuple(sub.get("halves", ()))))


def _owned_card(owner_of: Callable[[], str]) -> Reader:
    def reader(b: Builder, line: Line, acc: dict) -> None:
        c = build_card(b, line, owner=owner_of())
        if c is not None:
            acc.setdefault("cards", []).append(c)
    return reader


def _read_track(b: Builder, line: Line, acc: dict) -> None:
    """track ID { name "…"; spaces LOW to HIGH; start N; space N "Label"; at N { … } } (K1.2, S2.4)"""
    def spaces(b: Builder, l: Line, s: dict) -> None:
        ws = l.words()
        if len(ws) != 4 or ws[1].kind != "number" or ws[2].value != "to" or ws[3].kind != "number":
            b.error(l.span, "E205", "write 'spaces LOW to HIGH'", "e.g. 'spaces 0 to 3': a marker on spaces 0, 1, 2, 3")
            return
        low, high = ws[1].num, ws[3].num
        if low < 0 or low > high:
            b.error(l.span, "E209", f"the spaces {low} to {high} are not 0 ≤ LOW ≤ HIGH", "")
            return
        if b.limit(ws[3].span, "a track's last space", high, MAX_TRACK):
            s["spaces"] = (low, high)

    def space(b: Builder, l: Line, s: dict) -> None:
        ws = l.words()
        if len(ws) != 3 or ws[1].kind != "number" or ws[2].kind != "string":
            b.error(l.span, "E205", 'write \'space N "Label"\'', "")
            return
        s.setdefault("labels", []).append((ws[1].num, str(ws[2].value), ws[1].span))

    def at(b: Builder, l: Line, s: dict) -> None:
        ws = l.words()
        blk = b.block_of(l)
        if len(ws) != 2 or ws[1].kind != "number" or blk is None:
            b.error(l.span, "E205", "write 'at N { … }': what happens when the marker reaches space N", "")
            return
        s.setdefault("steps", []).append((n.TrackStep(l.span, ws[1].num, b.effects(blk)), ws[1].span))

    got = _named(b, line, "track", {"spaces": spaces, "start": _set("start", "number", "number"), "space": space,
                                    "at": at}, abilities=False)
    if got is None:
        return
    tid, sub = got
    _require(b, sub, line.span, "track", {"spaces": "spaces 0 to 3"})
    low, high = sub.get("spaces", (0, 0))
    start = sub.get("start", low)
    if not low <= start <= high and "spaces" in sub:
        b.error(line.span, "E209", f"the track starts on space {start}, outside its spaces {low} to {high}", "")
        start = low
    labels: list[tuple[int, str]] = []
    for k, text, sp in sub.get("labels", ()):
        if not low <= k <= high:
            b.error(sp, "E209", f"space {k} is beyond the track's spaces {low} to {high}", "")
        elif k in dict(labels):
            b.error(sp, "E206", f"space {k} is named twice", "")
        else:
            labels.append((k, text))
    steps = []
    for step, sp in sub.get("steps", ()):
        if not low < step.at <= high and "spaces" in sub:
            b.error(sp, "E209", f"'at {step.at}' is beyond the track's spaces {low} to {high}",
                    f"the marker can reach the spaces {low + 1} to {high} from below" if low < high else "")
        else:
            steps.append(step)
    acc.setdefault("tracks", []).append(n.Track(line.span, tid, sub.get("name", tid), low, high, start,
                                                tuple(sorted(labels)), tuple(sorted(steps, key=lambda t: t.at))))


def _read_holding(b: Builder, line: Line, acc: dict) -> None:
    """holding ID { name "…"; capacity N }: victims wait there off the board (S2.3)"""
    got = _named(b, line, "holding", {"capacity": _count("capacity", 1, MAX_PIECES)}, abilities=False)
    if got is None:
        return
    hid, sub = got
    _require(b, sub, line.span, "holding", {"capacity": "capacity 3"})
    acc.setdefault("holdings", []).append(n.HoldingArea(line.span, hid, sub.get("name", hid), sub.get("capacity", 1)))


SHARED_PARTS: dict[str, Reader] = {"token": _read_token, "action": _read_action, "deck": _read_deck,
                                   "pile": lambda b, line, acc: _read_pile(b, line, acc),
                                   "recipe": lambda b, line, acc: _read_recipe(b, line, acc),
                                   "track": _read_track, "holding": _read_holding,
                                   "victim": lambda b, line, acc: _read_victim_kind(b, line, acc)}


def build_killer(b: Builder, line: Line, part: Optional[Callable[[dict], dict]] = None) -> Optional[n.Killer]:
    """A killer; with ``part`` (a module's section: section 10), the lines a module adds to killers,
    read with the section's own readers ``part(readers)`` and without the lines only a killer has."""
    head = _decl_header(b, line)
    if head is None:
        return None
    kid = head[0]
    b.scope = kid

    def modes(b: Builder, line: Line, acc: dict) -> None:
        acc["modes"] = tuple(b.names(line))

    def bloodlust(b: Builder, line: Line, acc: dict) -> None:
        blk = b.block_of(line)
        if blk is None:
            return
        levels = []
        _note_block(b.at, "bloodlust", ("level", "at"))
        for sub in b.rejoin(blk.lines):
            b.at = ("bloodlust", sub.head())  # (restored by _read_body, which reads the bloodlust line)
            atoms = sub.words()
            blocks = [p for p in sub.parts if isinstance(p, Block)]
            words = [a.value for a in atoms]
            if sub.head() == "at" and words == ["at", "max"] and len(blocks) == 1:
                acc["at_max"] = b.effects(blocks[0])
                continue
            extra = atoms[5:]  # level move 1 damage 1 [NAME N]… : other numbers the level prints
            if (sub.head() == "level" and len(atoms) >= 5 and len(atoms) % 2 == 1 and words[1] == "move"
                    and words[3] == "damage" and atoms[2].kind == "number" and atoms[4].kind == "number"
                    and len(blocks) <= 1
                    and all(a.kind == "name" and v.kind == "number" for a, v in zip(extra[::2], extra[1::2]))):
                stats = tuple((str(a.value), v.num) for a, v in zip(extra[::2], extra[1::2]))
                for a in (atoms[2], atoms[4], *extra[1::2]):
                    b.limit(a.span, "a bloodlust level's", a.num, MAX_AMOUNT)
                levels.append(n.BloodlustLevel(sub.span, atoms[2].num, atoms[4].num,
                                               b.effects(blocks[0]) if blocks else (), stats))
                continue
            b.error(sub.span, "E201", f"unknown bloodlust line '{sub.text()}'",
                    "write 'level move 1 damage 1 { … }', 'level move 1 damage 1 spawn 2' or 'at max { … }'")
        acc["bloodlust"] = tuple(levels)

    def finale(b: Builder, line: Line, acc: dict) -> None:
        got = _named(b, line, "finale", {"legendary": _flag("legendary"), "back": _effects("back"),
                                         "face": _effects("face")})
        if got is None:
            return
        fid, sub = got
        ab = b.abilities(sub)
        on_reveal, ab = _own(ab, "revealed")
        for key in ("back", "face"):
            if key not in sub:
                b.error(line.span, "E202", f"this finale has no '{key}' block",
                        f"add '{key} {{ killer hunts fg moves 1 attacks 1 }}'")
        acc.setdefault("finales", []).append(n.Finale(line.span, fid, sub.get("name", fid), sub.get("legendary", False),
                                                      sub.get("back", ()), tuple(e for t in on_reveal for e in t.body),
                                                      sub.get("face", ()), ab))

    def dark_power(b: Builder, line: Line, acc: dict) -> None:
        got = _named(b, line, "dark_power", {"legendary": _flag("legendary")})
        if got is None:
            return
        did, sub = got
        ab = b.abilities(sub)
        on_reveal, ab = _own(ab, "revealed")
        acc.setdefault("dark_powers", []).append(n.DarkPower(line.span, did, sub.get("name", did),
                                                             sub.get("legendary", False),
                                                             tuple(e for t in on_reveal for e in t.body), ab))

    def terror(b: Builder, line: Line, acc: dict) -> None:
        t = build_terror(b, line, kid)
        if t is not None:
            acc.setdefault("terror", []).append(t)

    def minion(b: Builder, line: Line, acc: dict) -> None:
        m = build_minion(b, line)
        if m is not None:
            acc.setdefault("minions", []).append(m)

    def no_board(b: Builder, line: Line, acc: dict) -> None:
        words = [str(a.value) for a in line.words()]
        if words == ["no", "dark", "power"] and len(line.parts) == 3:  # K2.7: a killer with none
            acc["no_dark"] = line.span
            return
        if words != ["no", "board"] or len(line.parts) != 2:
            b.error(line.span, "E205", "write 'no board' or 'no dark power'", "")
            return
        acc["no_board"] = True

    def body(b: Builder, line: Line, acc: dict) -> None:
        got = build_body(b, line)
        if got is not None:
            acc.setdefault("bodies", []).append(got)

    readers: dict[str, Reader] = {"name": _set("name", "string", "string"),
                                  "health": _bounded("health", None, MAX_HEALTH), "fear": _count("fear", 0, MAX_TRACK),
                                  "no": no_board, "body": body, "modes": modes,
                                  "bloodlust": bloodlust,
                                  "finale": finale, "dark_power": dark_power, "terror": terror, "minion": minion,
                                  "card": _owned_card(lambda: kid), **SHARED_PARTS,
                                  "item": lambda b, line, acc: _read_owned_item(b, line, acc, kid),
                                  "rules": _rules_group({})}
    if part is not None:
        return _part(b, line, n.Killer, readers, part, ("name", "health", "fear", "no", "body", "modes", "bloodlust"))
    acc = _read_body(b, "killer", head[1], readers, abilities=True)
    if "fear" in acc:  # checked against every player board's fear range, once all is loaded
        fear_line = next(ln for ln in head[1].lines if ln.head() == "fear")
        b.refs.append(Ref("fear", str(acc["fear"]), fear_line.words()[1].span, kid))
    needed = {"name": 'name "…"', "health": "health 6", "fear": "fear 2",
              "bloodlust": "bloodlust { level move 1 damage 1 }"}
    bodies = tuple(acc.get("bodies", ()))
    if acc.get("no_board") or any(not x.formed for x in bodies):  # K6.1, K3.1: the bodies have the health
        del needed["health"]
    if sum(1 for x in bodies if x.formed) > 1:
        b.error(line.span, "E203", "more than one body is 'formed'", "bodies formed in play follow one template")
    _require(b, acc, line.span, "killer", needed)
    if "bloodlust" in acc and not acc["bloodlust"]:
        b.error(line.span, "E202", "the bloodlust track has no levels", "add 'level move 1 damage 1'")
    for key, what in (("finales", "finale"), ("dark_powers", "dark_power")):
        if key == "dark_powers" and "no_dark" in acc:
            if acc.get(key):
                b.error(acc["no_dark"], "E210", "this killer has 'no dark power' and declares dark power cards",
                        "drop the line, or the dark_power cards")
            continue
        if not [c for c in acc.get(key, ()) if not c.legendary]:
            hint = f"add '{what} ID {{ … }}'" + (", or write 'no dark power' (K2.7)" if what == "dark_power" else "")
            b.error(line.span, "E202", f"this killer has no normal {what} card", hint)
    b.scope = ""
    return n.Killer(line.span, kid, acc.get("name", kid), acc.get("health", 1), acc.get("fear", 0),
                    acc.get("modes", ()), acc.get("bloodlust", ()), acc.get("at_max", ()),
                    tuple(acc.get("finales", ())), tuple(acc.get("dark_powers", ())), tuple(acc.get("terror", ())),
                    tuple(acc.get("minions", ())), b.abilities(acc), tuple(acc.get("tokens", ())),
                    tuple(acc.get("actions", ())), tuple(acc.get("decks", ())), (), tuple(acc.get("cards", ())),
                    not acc.get("no_board", False), bodies, tuple(acc.get("items", ())),
                    tuple(acc.get("recipes", ())), tuple(acc.get("piles", ())), tuple(acc.get("groups", ())),
                    tracks=tuple(acc.get("tracks", ())), holdings=tuple(acc.get("holdings", ())),
                    victim_kinds=tuple(acc.get("victim_kinds", ())), dark="no_dark" not in acc)


def build_scenario(b: Builder, line: Line, part: Optional[Callable[[dict], dict]] = None) -> Optional[n.Scenario]:
    """A scenario; with ``part``, the lines a module adds to scenarios (see ``build_killer``)."""
    head = _decl_header(b, line)
    if head is None:
        return None
    sid = head[0]
    b.scope = sid

    def tags(b: Builder, line: Line, acc: dict) -> None:
        acc["tags"] = tuple(b.names(line))

    def location(b: Builder, line: Line, acc: dict) -> None:
        def ltags(b: Builder, line: Line, sub: dict) -> None:
            sub["tags"] = tuple(b.names(line))
            for a in line.words()[1:]:
                b.refs.append(Ref("tag", str(a.value), a.span, sid))
        def exit_(b: Builder, line: Line, sub: dict) -> None:  # exit | exit while CONDITION
            sub["exit"] = True
            if len(line.parts) == 1:
                return
            if not _is_word(line.parts[1], "while") or len(line.parts) < 3:
                b.error(line.span, "E205", "write 'exit', or 'exit while CONDITION'", "")
                return
            cond = b.condition(list(line.parts[2:]), it_ok=True)  # 'it': this location
            if cond is not None:
                sub["exit_when"] = cond

        def number(b: Builder, line: Line, sub: dict) -> None:  # number NAME N
            ws = line.words()
            if len(ws) != 3 or len(line.parts) != 3 or ws[1].kind != "name" or ws[2].kind != "number":
                b.error(line.span, "E205", "write 'number NAME N' (read by 'number NAME of PLACE')", "")
                return
            if ws[2].num < 0:
                b.error(ws[2].span, "E209", f"a location's number cannot be {ws[2].value}", "0 or more")
                return
            if not b.limit(ws[2].span, f"number {ws[1].value}", ws[2].num, MAX_AMOUNT):
                return
            if str(ws[1].value) in dict(sub.get("numbers", ())):
                b.error(line.span, "E206", f"the number '{ws[1].value}' is given twice", "")
                return
            sub.setdefault("numbers", []).append((str(ws[1].value), ws[2].num))

        def at(b: Builder, line: Line, sub: dict) -> None:  # at X Y: where a front end draws it
            ws = line.words()
            if len(ws) != 3 or len(line.parts) != 3 or ws[1].kind != "number" or ws[2].kind != "number":
                b.error(line.span, "E205", "write 'at X Y': where the location is drawn, two whole numbers",
                        f"each 0 to {MAX_COORD}; y grows downward")
                return
            if "at_span" in sub:  # ('at' is a repeatable head elsewhere: 'at start of …')
                b.error(line.span, "E206", "'at' is given twice in this location",
                        f"the first is at line {sub['at_span'].line}")
                return
            sub["at_span"] = line.span
            for w, axis in zip(ws[1:], "xy"):
                b.limit(w.span, f"the {axis} of 'at'", w.num, MAX_COORD, 0)
            sub["at"] = (ws[1].num, ws[2].num)  # (past a limit: an error above, the content is refused)

        got = _named(b, line, "location", {"tags": ltags, "search": _flag("search"), "exit": exit_,
                                           "number": number, "at": at}, abilities=False)
        if got is not None:
            lid, sub = got
            acc.setdefault("locations", []).append(
                n.Location(line.span, lid, sub.get("name", lid), sub.get("tags", ()), sub.get("search", False),
                           sub.get("exit", False), sub.get("exit_when"), tuple(sub.get("numbers", ())),
                           sub.get("at")))

    def path(b: Builder, line: Line, acc: dict) -> None:
        parts = line.parts
        atoms = line.words()
        blocks = [p for p in parts if isinstance(p, Block)]
        ok = (len(atoms) == 6 and atoms[1].kind == "name" and atoms[2].kind == "group" and atoms[3].kind == "join"
              and atoms[4].kind == "group" and atoms[5].kind == "name" and len(blocks) <= 1)
        nums: list[tuple[int, ...]] = []
        if ok:
            for g in (atoms[2], atoms[4]):
                vals = [v for v in g.items if isinstance(v, Atom)]
                for blk in (v for v in g.items if isinstance(v, Block)):
                    b.error(blk.span, "E102", "a block cannot stand inside '( )' here: panic numbers are die faces",
                            "write the die faces alone: (1 2 3)")
                if any(v.kind != "number" or not 1 <= v.num <= 6 for v in vals):
                    b.error(g.span, "E209", "panic numbers are die faces 1–6", "")
                nums.append(tuple(v.num for v in vals if v.kind == "number"))
        if not ok:
            b.error(line.span, "E205", "write 'path A (1 2) -- (3) B' with the panic numbers at each end",
                    "an end with no number is written ()")
            return
        sub: dict = {}
        if blocks:
            def ptags(b: Builder, line: Line, s: dict) -> None:
                s["tags"] = tuple(b.names(line))
            sub = _read_body(b, "path", blocks[0], {"tags": ptags, "closed": _flag("closed")})
        a, z = str(atoms[1].value), str(atoms[5].value)
        b.refs.append(Ref("loc", a, atoms[1].span, sid))
        b.refs.append(Ref("loc", z, atoms[5].span, sid))
        acc.setdefault("paths", []).append(n.Path(line.span, a, nums[0], z, nums[1], sub.get("tags", ()),
                                                  sub.get("closed", False)))

    def link(b: Builder, line: Line, acc: dict) -> None:
        atoms = line.words()
        blocks = [p for p in line.parts if isinstance(p, Block)]
        if len(atoms) < 2 or atoms[1].kind != "name":
            b.error(line.span, "E205", "write 'link TAG when CONDITION { followers 0 }'", "")
            return
        cond = None
        if len(atoms) > 2:
            if atoms[2].value != "when" or len(atoms) < 4:
                b.error(line.span, "E205", "write 'link TAG when CONDITION { followers 0 }'", "")
                return
            cond = b.condition(list(line.parts[3:len(line.parts) - (1 if blocks else 0)]))
        b.refs.append(Ref("tag", str(atoms[1].value), atoms[1].span, sid))
        followers = -1
        if blocks:
            sub = _read_body(b, "link", blocks[0], {"followers": _count("followers", 0)})
            followers = sub.get("followers", -1)
        acc.setdefault("links", []).append(n.Link(line.span, str(atoms[1].value), cond, followers))

    def setup(b: Builder, line: Line, acc: dict) -> None:
        head = _decl_header(b, line)
        if head is None:
            return
        cid, blk = head
        sub: dict = {}

        def at(key: str) -> Reader:
            def reader(b: Builder, l: Line, s: dict) -> None:
                atoms = l.words()
                if len(atoms) != 3 or atoms[1].value != "at" or atoms[2].kind != "name":
                    b.error(l.span, "E205", f"write '{key} at LOC'", "")
                    return
                s[key] = str(atoms[2].value)
                b.refs.append(Ref("loc", s[key], atoms[2].span, sid))
            return reader

        def victims(b: Builder, l: Line, s: dict) -> None:
            atoms = l.words()
            if len(atoms) != 4 or atoms[1].value != "at" or atoms[2].kind != "name" or atoms[3].kind != "number":
                b.error(l.span, "E205", "write 'victims at LOC N'", "")
                return
            b.refs.append(Ref("loc", str(atoms[2].value), atoms[2].span, sid))
            if atoms[3].num < 0:
                b.error(atoms[3].span, "E209", f"a setup cannot place {atoms[3].value} victims", "0 or more")
                return
            if not b.limit(atoms[3].span, "victims at a location:", atoms[3].num, MAX_PIECES):
                return
            s.setdefault("victims", []).append((str(atoms[2].value), atoms[3].num))

        def tokens(b: Builder, l: Line, s: dict) -> None:  # tokens TOKEN [face down] at LOC LOC …
            atoms = l.words()
            down = [str(a.value) for a in atoms[2:4]] == ["face", "down"]
            at = 4 if down else 2
            if len(atoms) < at + 2 or atoms[1].kind != "name" or atoms[at].value != "at" or any(
                    a.kind != "name" for a in atoms[at + 1:]):
                b.error(l.span, "E205", "write 'tokens TOKEN at LOC LOC …' or 'tokens TOKEN face down at LOC …'", "")
                return
            b.refs.append(Ref("token", str(atoms[1].value), atoms[1].span, sid))
            for a in atoms[at + 1:]:
                b.refs.append(Ref("loc", str(a.value), a.span, sid))
                s.setdefault("tokens_down" if down else "tokens", []).append((str(atoms[1].value), str(a.value)))

        sub.update(_read_body(b, "setup", blk, {"killer": at("killer"), "fg": at("fg"), "victims": victims,
                                                 "tokens": tokens}))
        sub["victims"] = sub.get("victims", [])
        _require(b, sub, line.span, "setup", {"killer": "killer at LOC", "fg": "fg at LOC"})
        acc.setdefault("setups", []).append(n.SetupCard(line.span, cid, sub.get("killer", ""), sub.get("fg", ""),
                                                        tuple(sub["victims"]), tuple(sub.get("tokens", ())),
                                                        tuple(sub.get("tokens_down", ()))))

    def item(b: Builder, line: Line, acc: dict) -> None:
        it = build_item(b, line, owner=sid)
        if it is not None:
            acc.setdefault("items", []).append(it)

    def event(b: Builder, line: Line, acc: dict) -> None:
        got = _named(b, line, "event", {"lasting": _flag("lasting"), "effect": _effects("effect")})
        if got is None:
            return
        eid, sub = got
        ab = b.abilities(sub)
        drawn_triggers, ab = _own(ab, "drawn")
        drawn = tuple(e for t in drawn_triggers for e in t.body)
        acc.setdefault("events", []).append(n.EventCard(line.span, eid, sub.get("name", eid), sub.get("lasting", False),
                                                    sub.get("effect", ()) + drawn, ab))

    def terror(b: Builder, line: Line, acc: dict) -> None:
        t = build_terror(b, line, sid)
        if t is not None:
            acc.setdefault("terror", []).append(t)

    readers: dict[str, Reader] = {"name": _set("name", "string", "string"), "tags": tags, "location": location,
                                  "path": path, "link": link, "setup": setup, "item": item, "event": event,
                                  "terror": terror, "card": _owned_card(lambda: sid), **SHARED_PARTS,
                                  "rules": _rules_group({"link": link}),
                                  "conveyance": lambda b, line, acc: _read_conveyance(b, line, acc),
                                  "default": _flag("default")}
    if part is not None:
        return _part(b, line, n.Scenario, readers, part, ("name", "default"))
    acc = _read_body(b, "scenario", head[1], readers, abilities=True)
    _require(b, acc, line.span, "scenario", {"name": 'name "…"', "locations": "location ID { … }",
                                             "setups": "setup ID { … }"})
    b.scope = ""
    return n.Scenario(line.span, sid, acc.get("name", sid), acc.get("tags", ()), tuple(acc.get("locations", ())),
                      tuple(acc.get("paths", ())), tuple(acc.get("links", ())), tuple(acc.get("setups", ())),
                      tuple(acc.get("items", ())), tuple(acc.get("events", ())), tuple(acc.get("terror", ())),
                      b.abilities(acc), tuple(acc.get("tokens", ())), tuple(acc.get("actions", ())),
                      tuple(acc.get("decks", ())), (), tuple(acc.get("cards", ())),
                      recipes=tuple(acc.get("recipes", ())), piles=tuple(acc.get("piles", ())),
                      groups=tuple(acc.get("groups", ())),
                      tracks=tuple(acc.get("tracks", ())), holdings=tuple(acc.get("holdings", ())),
                      victim_kinds=tuple(acc.get("victim_kinds", ())),
                      conveyances=tuple(acc.get("conveyances", ())), default=acc.get("default", False))




def _range_ok(b: Builder, line: Line, what: str, bounds: tuple) -> bool:
    low, high = bounds
    if low > high:
        b.error(line.span, "E209", f"the {what} range {low} {high} is reversed", f"write '{what} range {high} {low}'")
        return False
    if high - low > MAX_TRACK:
        b.error(line.span, "E209", f"the {what} range {low} {high} is longer than {MAX_TRACK} steps", "")
        return False
    return True


def build_player_board(b: Builder, line: Line) -> Optional[n.PlayerBoard]:
    head = _decl_header(b, line)
    if head is None:
        return None
    pid, block = head

    def side(b: Builder, line: Line, acc: dict) -> None:
        h = _decl_header(b, line)
        if h is None:
            return
        sid, blk = h
        sub: dict = {}

        def time(b: Builder, l: Line, s: dict) -> None:
            words = [a.value for a in l.words()]
            nums = [a for a in l.words()[2:] if a.kind == "number"]
            if len(words) == 3 and words[1] == "reset" and len(nums) == 1:
                s["reset"] = nums[0].value
            elif len(words) == 4 and words[1] == "range" and len(nums) == 2:
                if _range_ok(b, l, "time", (nums[0].value, nums[1].value)):
                    s["time_range"] = (nums[0].value, nums[1].value)
            else:
                b.error(l.span, "E205", "write 'time reset 6' or 'time range -1 10'", "")

        def fear(b: Builder, l: Line, s: dict) -> None:
            nums = [a.value for a in l.words()[2:] if a.kind == "number"]
            if len(l.words()) == 4 and l.words()[1].value == "range" and len(nums) == 2:
                if _range_ok(b, l, "fear", tuple(nums)):
                    s["fear_range"] = tuple(nums)
            else:
                b.error(l.span, "E205", "write 'fear range 0 9'", "")

        def zone(b: Builder, l: Line, s: dict) -> None:
            ws = l.words()
            if len(ws) == 5 and ws[3].value == "dice" and all(ws[i].kind == "number" for i in (1, 2, 4)):
                low, high, dice = ws[1].num, ws[2].num, ws[4].num
                if low > high:
                    b.error(l.span, "E209", f"the zone {low}–{high} is reversed",
                            f"write 'zone {high} {low} dice {dice}'")
                    return
                if dice < 0:
                    b.error(ws[4].span, "E209", "a zone cannot roll a negative number of dice", "")
                b.limit(ws[4].span, "a zone's dice:", dice, MAX_DICE)
                s.setdefault("zones", []).append(n.Zone(l.span, low, high, dice))
            else:
                b.error(l.span, "E205", "write 'zone LOW HIGH dice N'", "")

        sub = _read_body(b, "side", blk, {"time": time, "fear": fear, "zone": zone})
        _require(b, sub, line.span, "side", {"reset": "time reset 6", "time_range": "time range -1 10",
                                            "fear_range": "fear range 0 9", "zones": "zone 0 2 dice 3"})
        bad = (1, 0)  # a range reported already: an empty one, which the checker skips
        tr = sub.get("time_range", bad if "time" in sub.get("_failed", ()) else (-1, 10))
        fr = sub.get("fear_range", bad if "fear" in sub.get("_failed", ()) else (0, 9))
        acc.setdefault("sides", []).append(n.Side(line.span, sid, sub.get("reset", 6), tr[0], tr[1], fr[0], fr[1],
                                                  tuple(sub.get("zones", ()))))

    def last(b: Builder, line: Line, acc: dict) -> None:
        words = line.words()
        if len(words) > 2 and words[1].value == "breath":
            nums = b.ints(line, 2)
            if nums:
                acc["last_breath"] = tuple(nums)
                if min(nums) < 0:
                    b.error(line.span, "E209", "last-breath tokens cannot be negative", "")
                b.limit(line.span, "a last-breath token of", max(nums), MAX_AMOUNT)
        else:
            b.error(line.span, "E205", "write 'last breath 0 0 0 1 2 3'", "")

    def hand(b: Builder, line: Line, acc: dict) -> None:
        words = line.words()
        if len(words) == 3 and words[1].value == "limit" and words[2].kind == "number":
            acc["hand_limit"] = words[2].num
            if acc["hand_limit"] < 1:
                b.error(words[2].span, "E209", f"the hand limit must be at least 1, not {acc['hand_limit']}", "")
            b.limit(words[2].span, "a hand limit of", acc["hand_limit"], MAX_AMOUNT)
        else:
            b.error(line.span, "E205", "write 'hand limit 10'", "")

    def victim(b: Builder, line: Line, acc: dict) -> None:  # victim supply N (C5.7)
        words = line.words()
        if len(words) == 3 and words[1].value == "supply" and words[2].kind == "number":
            if "victim_supply" in acc:
                b.error(line.span, "E206", "'victim supply' is given twice in this player_board", "keep one")
                return
            acc["victim_supply"] = words[2].num
            if acc["victim_supply"] < 0:
                b.error(words[2].span, "E209", "the victim supply cannot be negative", "")
            b.limit(words[2].span, "a victim supply of", acc["victim_supply"], MAX_PIECES)
        else:
            b.error(line.span, "E205", "write 'victim supply 30'", "")

    def out(b: Builder, line: Line, acc: dict) -> None:
        # C9.8: 'out of reach hunt fg' or 'out of reach stay' (what an enemy does with no target in reach)
        words = [w.value for w in line.words()]
        if "out_of_reach" in acc:
            b.error(line.span, "E206", "'out of reach' is given twice in this player_board", "keep one")
            return
        if words == ["out", "of", "reach", "hunt", "fg"]:
            acc["out_of_reach"] = "fg"
        elif words == ["out", "of", "reach", "stay"]:
            acc["out_of_reach"] = "stay"
        else:
            b.error(line.span, "E205", "write 'out of reach hunt fg' or 'out of reach stay'", "")

    acc = _read_body(b, "player_board", block, {"side": side, "last": last, "hand": hand, "victim": victim, "out": out})
    _require(b, acc, line.span, "player_board", {"sides": "side normal { … }", "last_breath": "last breath 0 0 1 2 3"})
    return n.PlayerBoard(line.span, pid, tuple(acc.get("sides", ())), acc.get("last_breath", (0,)),
                         acc.get("hand_limit", 10), acc.get("victim_supply", 30), acc.get("out_of_reach", "stay"))


def build_pack(b: Builder, line: Line) -> Optional[n.Pack]:
    """pack ID { name "…"; version "1.0"; credit "…"; depends core other-pack }"""
    def depends(b: Builder, l: Line, acc: dict) -> None:
        for a in l.words()[1:]:
            if a.kind != "name":
                b.error(a.span, "E205", f"expected a pack id, got {a.text()}", "write 'depends core other-pack'")
                continue
            acc.setdefault("depends", []).append(str(a.value))
            b.refs.append(Ref("pack", str(a.value), a.span, b.scope))

    atoms = line.words()
    b.scope = str(atoms[1].value) if len(atoms) > 1 and atoms[1].kind == "name" else ""
    got = _named(b, line, "pack", {"version": _set("version", "string", "string"),
                                   "credit": _set("credit", "string", "string"), "depends": depends},
                 abilities=False)
    b.scope = ""
    if got is None:
        return None
    pid, acc = got
    return n.Pack(line.span, pid, acc.get("name", pid), acc.get("version", ""), acc.get("credit", ""),
                  tuple(dict.fromkeys(acc.get("depends", ()))))


TOP_LEVEL = ("card", "item", "final_girl", "killer", "scenario", "player_board", "minion", "pack", "module")
BLOCK_WORDS["file"] = TOP_LEVEL


def build_file(lines, path: str, text: str, costs: bool = True) -> tuple[list, list[Ref], list[Diagnostic]]:
    """Build every declaration in a parsed file (``text``: its source, which expressions are read from).
    ``costs``: the W203 warnings too (dsl/cost.py), when no line has an error; an editor building a file
    a part at a time asks for them apart (``costly_lines``)."""
    b = Builder(path, text)
    decls: list = []
    decl: Optional[n.Decl]
    for line in b.rejoin(lines):
        if len(b.diags) > MAX_REPORTED:
            break  # only the first ones are shown (cap_per_file): stop spending time on the rest
        head = line.head()
        b.at = ("file", head)
        if head == "card":
            decl = build_card(b, line)
        elif head == "item":
            decl = build_item(b, line)
        elif head == "final_girl":
            fg, items = build_final_girl(b, line)
            decls.extend(items)
            decl = fg
        elif head == "killer":
            decl = build_killer(b, line)
        elif head == "scenario":
            decl = build_scenario(b, line)
        elif head == "player_board":
            decl = build_player_board(b, line)
        elif head == "minion":
            decl = build_minion(b, line)
        elif head == "pack":
            decl = build_pack(b, line)
        elif head == "module":
            decl = build_module(b, line)
        else:
            span = line.parts[0].span if line.parts else line.span
            b.unknown(span, "E200", "declaration", head or line.text(), TOP_LEVEL)
            continue
        if decl is not None:
            decls.append(decl)
    if costs and not any(d.severity == "error" for d in b.diags):  # what a line may cost in play (W203: dsl/cost.py)
        b.diags.extend(costly_lines(decls))
    return decls, b.refs, settle_shown(b.diags)


# --- item and card zones (issue #16 item 6) --------------------------------------------------------
def _usable(b: Builder, line: Line, acc: dict) -> None:
    """usable while CONDITION: a card is played, an item used, an action or recipe taken only while it holds."""
    atoms = line.words()
    if len(line.parts) < 3 or len(atoms) < 2 or atoms[1].value != "while":
        b.error(line.span, "E205", "write 'usable while CONDITION'", "e.g. 'usable while fg at tag lab'")
        return
    cond = b.condition(list(line.parts[2:]))
    if cond is not None:
        acc["usable"] = cond


def _words_flag(key: str, text: str) -> Reader:
    """A flag written as several words ('returns to the table when discarded')."""
    def reader(b: Builder, line: Line, acc: dict) -> None:
        if [str(a.value) for a in line.words()] != text.split() or len(line.parts) != len(text.split()):
            b.error(line.span, "E205", f"write '{text}'", "")
            return
        acc[key] = True
    return reader


def _item_start(b: Builder, line: Line, acc: dict) -> None:
    """start table | aside | held | on piles | pile PILE; or counted, once a zone: start table|aside|held N"""
    words = [str(a.value) for a in line.words()]
    atoms = line.words()
    if len(atoms) == len(line.parts) == 3 and atoms[2].kind == "number" and words[1] in ("table", "aside", "held"):
        zone, count = words[1], int(words[2])
        if "start" in acc or any(z == zone for z, _ in acc.get("starts", ())):
            b.error(line.span, "E206", f"'start {zone}' is given twice in this item" if "start" not in acc else
                    "'start' is given twice in this item", "a counted start is given once for each zone")
            return
        if count < 1:
            b.error(atoms[2].span, "E209", f"a counted start places at least 1 copy, not {count}", "")
            return
        if b.limit(atoms[2].span, "start", count, MAX_COPIES):
            acc["starts"] = (*acc.get("starts", ()), (zone, count))
        return
    if acc.get("starts") or "start" in acc:
        b.error(line.span, "E206", "'start' is given twice in this item",
                "only counted starts ('start held 1', 'start table 2') may be given more than once")
        return
    ok = len(line.parts) == len(words) and all(a.kind == "name" for a in line.words())
    if ok and words[1:] in (["table"], ["aside"], ["held"]):
        acc["start"] = words[1]
    elif ok and words[1:] == ["on", "piles"]:
        acc["start"] = "on-piles"
    elif ok and len(words) == 3 and words[1] == "pile":
        acc["start"], acc["pile"] = "pile", words[2]
        b.refs.append(Ref("pile", words[2], line.words()[2].span, b.scope))
    else:
        b.error(line.span, "E205", "write 'start table', 'start aside', 'start held', 'start on piles' or "
                "'start pile PILE' (or 'start table N' …: N of its copies)",
                "without a 'start' line an item is dealt into the item piles (C18.4)")


_item_start.repeatable = True  # type: ignore[attr-defined]  # counted starts, once a zone (checked above)


def _cannot(b: Builder, line: Line, acc: dict) -> None:
    """cannot be discarded [while CONDITION]"""
    words = [str(a.value) for a in line.words()]
    if words[:3] != ["cannot", "be", "discarded"] or (len(line.parts) > 3 and (len(line.parts) < 5 or
                                                                              words[3:4] != ["while"])):
        b.error(line.span, "E205", "write 'cannot be discarded' or 'cannot be discarded while CONDITION'", "")
        return
    acc["cannot"] = True
    if len(line.parts) > 3:
        cond = b.condition(list(line.parts[4:]))
        if cond is not None:
            acc["keep_cond"] = cond


_DISCARDED_TOKENS = {"its tokens go to the supply when discarded": "",
                     "its tokens go to the discard when discarded": "discard",
                     "its tokens stay on it when discarded": "stay"}


def _discarded_tokens(b: Builder, line: Line, acc: dict) -> None:
    """its tokens go to the supply | go to the discard | stay on it, when discarded (S1.3, open)"""
    words = " ".join(str(a.value) for a in line.words())
    if words not in _DISCARDED_TOKENS or len(line.parts) != len(line.words()):
        b.error(line.span, "E205", "write 'its tokens go to the supply when discarded', 'its tokens go to the "
                "discard when discarded' or 'its tokens stay on it when discarded'",
                "without the line a discarded card's tokens go back to the supply (S1.3)")
        return
    acc["discarded_tokens"] = _DISCARDED_TOKENS[words]


ITEM_ZONE_PARTS: dict[str, Reader] = {
    "copies": _count("copies", 1, MAX_COPIES), "start": _item_start, "usable": _usable, "cannot": _cannot,
    "returns": _words_flag("returns", "returns to the table when discarded"), "its": _discarded_tokens}


def _after(b: Builder, line: Line, acc: dict) -> None:
    """after discard | return | remove: what becomes of a deck card once it has resolved"""
    value = b.one(line, "name", "fate")
    if value is None:
        return
    if value not in ("discard", "return", "remove"):
        b.unknown(line.words()[1].span, "E204", "fate of a resolved card", value, ("discard", "return", "remove"))
        return
    acc["after"] = value


def _deck_half(b: Builder, line: Line, acc: dict) -> None:
    """half NAME [while CONDITION] (on a deck)"""
    atoms = line.words()
    if len(atoms) < 2 or atoms[1].kind != "name" or any(isinstance(p, Block) for p in line.parts[:2]) or (
            len(line.parts) > 2 and (len(line.parts) < 4 or atoms[2].value != "while")):
        b.error(line.span, "E205", "write 'half NAME' or 'half NAME while CONDITION'", "")
        return
    cond = b.condition(list(line.parts[3:])) if len(line.parts) > 3 else None
    if len(line.parts) > 3 and cond is None:
        return
    name = str(atoms[1].value)
    if any(h.name == name for h in acc.get("halves", ())):
        b.error(line.span, "E206", f"the half '{name}' is given twice in this deck", "")
        return
    acc.setdefault("halves", []).append(n.DeckHalf(line.span, name, cond))


def _deck_reshuffle(b: Builder, line: Line, acc: dict) -> None:
    _words_flag("reshuffle", "reshuffle when empty")(b, line, acc)


DECK_PARTS: dict[str, Reader] = {"reshuffle": _deck_reshuffle, "after": _after, "half": _deck_half}


def _card_half(b: Builder, line: Line, acc: dict) -> None:
    """half NAME { effect { … }; number N } (on a deck card)"""
    atoms = line.words()
    blk = line.parts[2] if len(line.parts) == 3 else None
    if len(atoms) != 2 or atoms[1].kind != "name" or not isinstance(blk, Block):
        b.error(line.span, "E205", "write 'half NAME { effect { … } }'", "")
        return
    name = str(atoms[1].value)
    sub = _read_body(b, "half", blk, {"effect": _card_effects, "number": _count("number", 0)})
    if any(h.name == name for h in acc.get("halves", ())):
        b.error(line.span, "E206", f"the half '{name}' is given twice on this card", "")
        return
    acc.setdefault("halves", []).append(n.CardHalf(line.span, name, sub.get("effect", ()), sub.get("number", 0)))


def _card_start(b: Builder, line: Line, acc: dict) -> None:
    """start aside | table (on a deck card)"""
    value = b.one(line, "name", "zone")
    if value is not None and value not in n.ZONES:
        b.unknown(line.words()[1].span, "E204", "zone", value, n.ZONES)
    elif value is not None:
        acc["start"] = value


def _card_effects(b: Builder, line: Line, acc: dict) -> None:
    """effect { … } on a deck card or its half: 'it' there is the place the card is drawn at (the
    checker holds every draw of its deck to give one); anywhere else in the card it means nothing."""
    b.in_card = b.deck
    try:
        _effects("effect")(b, line, acc)
    finally:
        b.in_card = ""


def _card_names(kind: str) -> Reader:
    """body BODY | minion MINION (on a deck card): the piece the card names, read by the forms that
    draw an identity (a deck of bodies, of minion kinds: K2.7)."""
    def reader(b: Builder, line: Line, acc: dict) -> None:
        value = b.one(line, "name", "body" if kind == "body" else "minion kind")
        if value is None:
            return
        if "body" in acc or "minion" in acc:
            b.error(line.span, "E206", "a card names one piece: a 'body' or a 'minion' line, once",
                    "a deck of bodies and a deck of minion kinds are two decks")
            return
        b.refs.append(Ref(kind, str(value), line.words()[1].span, b.scope))
        acc[kind] = str(value)
    return reader


DECK_CARD_PARTS: dict[str, Reader] = {"copies": _count("copies", 1, MAX_COPIES), "number": _count("number", 0),
                                      "after": _after, "half": _card_half, "start": _card_start,
                                      "body": _card_names("body"), "minion": _card_names("minion")}


def _check_halves(b: Builder, halves, cards: list) -> None:
    """A card's half must be one its deck names (E204)."""
    names = tuple(h.name for h in halves)
    for c in cards:
        for h in c.halves:
            if h.name not in names:
                b.unknown(h.span, "E204", f"half (deck halves: {', '.join(names) or 'none'})", h.name, names)


def _read_pile(b: Builder, line: Line, acc: dict) -> None:
    """pile ID { name "…"; row N }"""
    got = _named(b, line, "pile", {"row": _count("row", 0, MAX_COPIES)}, abilities=False)
    if got is None:
        return
    pid, sub = got
    acc.setdefault("piles", []).append(n.ItemPile(line.span, pid, sub.get("name", pid), sub.get("row", 0)))


def _read_recipe(b: Builder, line: Line, acc: dict) -> None:
    """recipe ID { name "…"; needs ITEM ITEM …; time N; makes ITEM; usable while CONDITION }"""
    def needs(b: Builder, l: Line, s: dict) -> None:
        words = l.words()[1:]
        if not words or len(l.parts) != len(words) + 1 or any(a.kind != "name" for a in words):
            b.error(l.span, "E205", "write 'needs ITEM ITEM …'", "the items she discards to make it")
            return
        if not b.limit(l.span, "a recipe's items:", len(words), MAX_COPIES):
            return
        for a in words:
            b.refs.append(Ref("item", str(a.value), a.span, b.scope))
        s["needs"] = tuple(str(a.value) for a in words)

    def makes(b: Builder, l: Line, s: dict) -> None:
        value = b.one(l, "name", "item id")
        if value is not None:
            s["makes"] = value
            b.refs.append(Ref("item", value, l.words()[1].span, b.scope))
            b.refs.append(Ref("recipe-makes", value, l.words()[1].span, b.scope))

    got = _named(b, line, "recipe", {"needs": needs, "time": _count("time", 0), "makes": makes, "usable": _usable},
                 abilities=False)
    if got is None:
        return
    rid, sub = got
    if not _require(b, sub, line.span, "recipe", {"needs": "needs ITEM ITEM", "makes": "makes ITEM"}):
        return
    acc.setdefault("recipes", []).append(n.Recipe(line.span, rid, sub.get("name", rid), sub["needs"],
                                                  sub.get("time", 0), sub["makes"], sub.get("usable")))


def _read_owned_item(b: Builder, line: Line, acc: dict, owner: str) -> None:
    it = build_item(b, line, owner=owner)
    if it is not None:
        acc.setdefault("items", []).append(it)


# --- modules (LANGUAGE.md section 10) --------------------------------------------------------------
def _rules_group(extra: dict[str, Reader]) -> Reader:
    """``rules ID { … }``: lines of a scenario or a killer under an id (a RuleGroup), in play as the
    host's own: the same nodes go into the host's lists too (``extra``: the host's own lines a group
    may hold, a scenario's ``link``)."""
    def reader(b: Builder, line: Line, acc: dict) -> None:
        head = _decl_header(b, line)
        if head is None:
            return
        gid, block = head
        sub = _read_body(b, "rules group", block, dict(extra), abilities=True)
        ab = b.abilities(sub)
        links = tuple(sub.get("links", ()))
        if not ab and not links and not sub.get("_failed"):
            b.error(line.span, "E202", "this rules group holds no lines", "add 'rule …' or 'when … { … }' lines")
        for key in ("triggers", "replacements", "rules", "ends", "modifications", "links"):
            acc.setdefault(key, []).extend(sub.get(key, ()))
        acc.setdefault("groups", []).append(n.RuleGroup(line.span, gid, ab, links))
    return reader


def _part(b: Builder, line: Line, cls: type, readers: dict[str, Reader], part: Callable[[dict], dict],
          host_only: tuple[str, ...]) -> Any:
    """A module's section read as a partial host (a node of ``cls`` holding only what it adds): the
    host's readers but ``host_only`` (lines a module cannot change), and the section's own."""
    hid, block = str(line.words()[1].value), line.parts[-1]
    kind = "scenario" if cls is n.Scenario else "killer"

    def refused(word: str) -> Reader:
        def reader(b: Builder, l: Line, acc: dict) -> None:
            b.error(l.span, "E201", f"a module cannot change a {kind}'s '{word}' line",
                    "a module adds, replaces and removes parts: cards, items, actions, rules …")
        return reader

    readers = {k: (refused(k) if k in host_only else v) for k, v in readers.items()}
    readers.update(part(readers))
    assert isinstance(block, Block)
    acc = _read_body(b, f"module's {kind} section", block, readers, abilities=True)

    def got(key: str) -> tuple:
        return tuple(acc.get(key, ()))
    if cls is n.Scenario:
        return n.Scenario(line.span, hid, "", got("tags"), got("locations"), got("paths"), got("links"), got("setups"),
                          got("items"), got("events"), got("terror"), b.abilities(acc), got("tokens"), got("actions"),
                          got("decks"), (), got("cards"), recipes=got("recipes"), piles=got("piles"),
                          groups=got("groups"), tracks=got("tracks"), holdings=got("holdings"),
                          victim_kinds=got("victim_kinds"), conveyances=got("conveyances"))
    return n.Killer(line.span, hid, "", 1, 0, (), (), (), got("finales"), got("dark_powers"), got("terror"),
                    got("minions"), b.abilities(acc), got("tokens"), got("actions"), got("decks"), (), got("cards"),
                    items=got("items"), recipes=got("recipes"), piles=got("piles"), groups=got("groups"),
                    tracks=got("tracks"), holdings=got("holdings"), victim_kinds=got("victim_kinds"))


def _change_readers(readers: dict[str, Reader], where: str, changes: list[n.ModuleChange]) -> dict[str, Reader]:
    """The ``replace KIND ID { … }`` and ``remove KIND ID`` lines of a module (``where``: module,
    scenario or killer); the replacement is read by the reader of its kind (``readers``)."""
    kinds = HOST_FIELDS[where]
    place = "at the top of a module" if where == "module" else f"in a {where}"

    def replace(b: Builder, line: Line, acc: dict) -> None:
        parts, atoms = line.parts, line.words()
        if len(parts) != 4 or len(atoms) != 3 or not isinstance(parts[3], Block) or \
                any(a.kind != "name" for a in atoms):
            b.error(line.span, "E205", "write 'replace KIND ID { … }'",
                    "the block is the declaration that takes the place of the one with that id")
            return
        kind = str(atoms[1].value)
        if kind not in kinds:
            b.unknown(atoms[1].span, "E201", f"kind of declaration to replace {place}", kind, tuple(kinds))
            return
        sub = Line(Span(b.path, atoms[1].span.line, atoms[1].span.col, line.span.end_line, line.span.end_col),
                   parts[1:])
        tmp: dict = {}
        readers[kind](b, sub, tmp)
        new = tmp.get(kinds[kind]) or []
        if new:
            changes.append(n.ModuleChange(line.span, "replace", kind, str(atoms[2].value), new[-1]))

    def remove(b: Builder, line: Line, acc: dict) -> None:
        atoms = line.words()
        words = [str(a.value) for a in atoms]
        deck_ok = where != "module" and len(words) == 5 and words[1] == "card" and words[3] == "from"
        if len(line.parts) != len(atoms) or any(a.kind != "name" for a in atoms) or (len(words) != 3 and not deck_ok):
            b.error(line.span, "E205", "write 'remove KIND ID'" + ("" if where == "module" else
                                                                  " or 'remove card ID from DECK'"), "")
            return
        if words[1] not in REMOVABLE[where]:
            b.unknown(atoms[1].span, "E201", f"kind of declaration to remove {place}", words[1], REMOVABLE[where])
            return
        deck = words[4] if deck_ok else ""
        if deck:
            b.refs.append(Ref("deck", deck, atoms[4].span, b.scope))
        changes.append(n.ModuleChange(line.span, "remove", words[1], words[2], None, deck))

    return {"replace": replace, "remove": remove}


def build_module(b: Builder, line: Line) -> Optional[n.Module]:
    """module ID { name "…"; about "…"; card …; item …; replace …; remove …; for scenario ID { … } }"""
    head = _decl_header(b, line)
    if head is None:
        return None
    mid, block = head
    top = f"{SCOPE}{mid}"
    b.scope = top
    changes: list[n.ModuleChange] = []
    sections: list[n.ModuleSection] = []

    def card(b: Builder, l: Line, acc: dict) -> None:
        c = build_card(b, l)
        if c is not None:
            acc.setdefault("cards", []).append(c)

    def item(b: Builder, l: Line, acc: dict) -> None:
        it = build_item(b, l)
        if it is not None:
            acc.setdefault("items", []).append(it)

    def section(b: Builder, l: Line, acc: dict) -> None:
        atoms = l.words()
        words = [str(a.value) for a in atoms]
        blk = l.parts[-1] if isinstance(l.parts[-1], Block) else None
        every = len(words) > 1 and words[1] == "every"
        host = (words[2] if len(words) > 2 else "") if every else (words[1] if len(words) > 1 else "")
        names = atoms[3:] if every else atoms[2:]
        if blk is None or len(l.parts) != len(atoms) + 1 or host not in ("scenario", "killer") or \
                bool(names) == every or any(a.kind != "name" for a in atoms):
            b.error(l.span, "E205", "write 'for scenario ID { … }' or 'for every scenario { … }' (or killer)",
                    "the ids of the scenarios (killers) the block changes, or 'every'")
            return
        for a in names:
            b.refs.append(Ref(host, str(a.value), a.span, top))
        mine: list[n.ModuleChange] = []
        fake = Line(l.span, (Atom(l.span, "name", host), Atom(l.span, "name", section_scope(mid, len(sections))), blk))
        build = build_scenario if host == "scenario" else build_killer
        node = build(b, fake, part=lambda readers: _change_readers(readers, host, mine))
        b.scope = top
        if node is not None:
            sections.append(n.ModuleSection(l.span, host, tuple(dict.fromkeys(str(a.value) for a in names)), node,
                                            tuple(mine)))

    readers: dict[str, Reader] = {"name": _set("name", "string", "string"), "about": _set("about", "string", "string"),
                                  "card": card, "item": item}
    readers.update(_change_readers(readers, "module", changes))
    readers["for"] = section
    acc = _read_body(b, "module", block, readers)
    b.scope = ""
    _require(b, acc, line.span, "module", {"name": 'name "…"'})
    return n.Module(line.span, mid, acc.get("name", mid), acc.get("about", ""), tuple(acc.get("cards", ())),
                    tuple(acc.get("items", ())), tuple(changes), tuple(sections))


# --- victim kinds (issue #16 item 3) ---------------------------------------------------------------
def _read_victim_kind(b: Builder, line: Line, acc: dict) -> None:
    """victim ID { name "…"; cannot be rescued; always panics; not targeted by WHO; hidden }"""
    def cannot(b: Builder, l: Line, s: dict) -> None:
        _words_flag("unrescuable", "cannot be rescued")(b, l, s)

    def always(b: Builder, l: Line, s: dict) -> None:
        _words_flag("panics", "always panics")(b, l, s)

    def shield(b: Builder, l: Line, s: dict) -> None:
        atoms = l.words()
        words = [str(a.value) for a in atoms]
        ok = len(l.parts) == len(atoms) and all(a.kind == "name" for a in atoms) and words[:3] == \
            ["not", "targeted", "by"] and len(words) in (4, 5)
        who = ""
        if ok and len(words) == 4 and words[3] in n.SHIELDS:
            who = words[3]
        elif ok and len(words) == 4:  # a kind of minion
            who = f"minion:{words[3]}"
            b.refs.append(Ref("minion", words[3], atoms[3].span, b.scope))
        elif ok and words[3] == "killer":  # one body
            who = f"killer:{words[4]}"
            b.refs.append(Ref("body", words[4], atoms[4].span, b.scope))
        if not who:
            b.error(l.span, "E205", "write 'not targeted by killers', '… by minions', '… by enemies', "
                    "'… by killer BODY' or '… by MINION'", "those never target nor kill a victim of this kind (C9)")
            return
        if who in s.get("untargeted", ()):
            b.error(l.span, "E206", f"'{l.text()}' is given twice", "")
            return
        s.setdefault("untargeted", []).append(who)

    got = _named(b, line, "victim kind", {"cannot": cannot, "always": always, "not": shield,
                                          "hidden": _flag("hidden")}, abilities=False)
    if got is None:
        return
    vid, sub = got
    acc.setdefault("victim_kinds", []).append(
        n.VictimKind(line.span, vid, sub.get("name", vid), sub.get("unrescuable", False), sub.get("panics", False),
                     tuple(sub.get("untargeted", ())), sub.get("hidden", False)))


# --- pieces that travel with her (issue #33 item 2; V4–V9, S1.7) ------------------------------------
def _read_conveyance(b: Builder, line: Line, acc: dict) -> None:
    """conveyance ID { name "…"; start at LOC; goes when taken | goes always; enters tag TAG…;
    never crosses PATHTAG…; victims ride N | victims ride any | victims follow on foot;
    needs item ID | needs items ID ID … }"""
    def names(l: Line, lead: list[str]) -> Optional[list[Any]]:
        """The name atoms after the lead words, or None when the line is not written so."""
        atoms = l.words()
        k = len(lead)
        ok = (len(l.parts) == len(atoms) > k and all(a.kind == "name" for a in atoms)
              and [str(a.value) for a in atoms[:k]] == lead)
        return list(atoms[k:]) if ok else None

    def start(b: Builder, l: Line, s: dict) -> None:
        got = names(l, ["start", "at"])
        if got is None or len(got) != 1:
            b.error(l.span, "E205", "write 'start at LOC'", "without it the piece starts off the board, until "
                    "'move ID to PLACE' puts it somewhere")
            return
        s["start"] = str(got[0].value)
        b.refs.append(Ref("loc", s["start"], got[0].span, b.scope))

    def goes(b: Builder, l: Line, s: dict) -> None:
        words = [str(a.value) for a in l.words()]
        if words == ["goes", "always"] and len(l.parts) == 2:
            s["taken"] = "always"
        elif words == ["goes", "when", "taken"] and len(l.parts) == 3:
            s["taken"] = "chosen"
        else:
            b.error(l.span, "E205", "write 'goes when taken' or 'goes always'",
                    "'goes when taken' (the default): she chooses at each move whether to take it; 'goes always': "
                    "it goes with her whenever it may")

    def enters(b: Builder, l: Line, s: dict) -> None:
        got = names(l, ["enters", "tag"])
        if got is None:
            b.error(l.span, "E205", "write 'enters tag TAG …'", "the location tags it may enter, one of them enough")
            return
        for a in got:
            b.refs.append(Ref("tag", str(a.value), a.span, b.scope))
        s["enters"] = tuple(dict.fromkeys(str(a.value) for a in got))

    def never(b: Builder, l: Line, s: dict) -> None:
        got = names(l, ["never", "crosses"])
        if got is None:
            b.error(l.span, "E205", "write 'never crosses PATHTAG …'", "the path tags it never goes along")
            return
        for a in got:
            b.refs.append(Ref("pathtag", str(a.value), a.span, b.scope))
        s["never"] = tuple(dict.fromkeys(str(a.value) for a in got))

    def victims(b: Builder, l: Line, s: dict) -> None:
        atoms = l.words()
        words = [str(a.value) for a in atoms]
        if len(l.parts) != len(atoms):
            words = []
        if words == ["victims", "follow", "on", "foot"]:
            s["riders"] = n.ON_FOOT
        elif words == ["victims", "ride", "any"]:
            s["riders"] = n.ANY_RIDERS
        elif len(atoms) == 3 and words[:2] == ["victims", "ride"] and atoms[2].kind == "number":
            if atoms[2].num < 0:
                b.error(atoms[2].span, "E209", f"'victims ride' must be at least 0, not {atoms[2].value}", "")
            elif b.limit(atoms[2].span, "victims ride", atoms[2].num, MAX_PIECES):
                s["riders"] = atoms[2].num
        else:
            b.error(l.span, "E205", "write 'victims ride N', 'victims ride any' or 'victims follow on foot'",
                    "how victims come along when she moves with it: up to N (or any number) whatever the path lets "
                    "follow, or as they follow her on foot (C5.3, the default)")

    def needs(b: Builder, l: Line, s: dict) -> None:  # needs item ID | needs items ID ID …: all of them
        got = names(l, ["needs", "item"]) or names(l, ["needs", "items"])
        if not got or (len(got) != 1 and str(l.words()[1].value) == "item"):
            b.error(l.span, "E205", "write 'needs item ID' or 'needs items ID ID …'",
                    "she must hold the item (each of the items) to take it along")
            return
        s["needs"] = tuple(str(a.value) for a in got)
        for a in got:
            b.refs.append(Ref("item", str(a.value), a.span, b.scope))

    got = _named(b, line, "conveyance", {"start": start, "goes": goes, "enters": enters, "never": never,
                                         "victims": victims, "needs": needs}, abilities=False)
    if got is None:
        return
    cid, sub = got
    acc.setdefault("conveyances", []).append(
        n.Conveyance(line.span, cid, sub.get("name", cid), sub.get("start", ""), sub.get("taken", "chosen"),
                     sub.get("enters", ()), sub.get("never", ()), sub.get("riders", n.ON_FOOT), sub.get("needs", ())))
