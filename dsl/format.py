"""The canonical formatter of the content language (``lastbreath fmt``), keeping comments.

Canonical style (also in LANGUAGE.md, "Formatting"):

- 2-space indentation per block level; no tabs, no trailing whitespace; ``\\n`` line ends; the
  file ends with exactly one newline (an empty file stays empty).
- One space between the parts of a line: atoms, ``--`` and blocks (``a { … }``, ``} else {``).
- ``( … )`` groups without inner padding: ``(1 2)``, ``()``.
- Strings re-escaped: only ``\\`` and ``"`` are escaped (``\\\\``, ``\\"``); numbers as the parser
  reads them (``007`` -> ``7``, ``-0`` -> ``0``), with an explicit ``+`` kept only where it was
  written (``dice +1``).
- A block is written inline, ``{ a; b }`` (``{ }`` when empty), when its lines hold no nested
  blocks and no comments and the physical line it sits on, up to the next block's ``{``, fits
  in 100 columns. Otherwise it is broken: ``{`` ends the line, one line per line inside (a ``;``
  between lines becomes a newline), ``}`` on its own line at the owner's indentation, followed
  by the rest of the owner's line (``} else {``). Blocks are decided left to right.
- Full-line comments stay on their own lines, indented like the line that follows them (or,
  before a ``}`` or the end of the file, like the lines of that block); end-of-line comments
  stay at the end of their line, after two spaces. Comment text is kept as written, minus
  trailing whitespace. A comment with only a ``;`` before it on its line becomes a full-line
  comment.
- Blank lines: a run of blank lines between two lines or comments of the same block (or of the
  file) becomes one blank line; blank lines right after ``{``, right before ``}`` and at the
  start or end of the file are dropped.

The result is a function of the syntax tree, the comments and where blank lines were, so it is
idempotent: ``format_text(format_text(x)) == format_text(x)``; and it parses to the same tree as
its input (checked on every call, see ``syntax_shape``).

Comments are collected by a second Lark parser built from the same grammar, with
``keep_all_tokens`` (so braces carry positions) and a lexer callback for ``COMMENT``; the
loader's fast path (``syntax._parser``) is not touched.
"""

from __future__ import annotations

import bisect
import functools
import threading
from pathlib import Path
from typing import Optional, Union, cast

import attrs
from lark import Lark, Token, Tree

from .diagnostics import Diagnostic
from .syntax import Atom, Block, Line, parse_text, unescape

INDENT = "  "
MAX_WIDTH = 100
COMMENT_GAP = "  "
_WS = " \t\f\r"  # what the grammar ignores between tokens (besides newlines)


# --- a layout tree: the syntax tree plus comments and source lines ---------------------------
@attrs.define(eq=False)
class _Comment:
    line: int
    col: int
    text: str


@attrs.define(eq=False)
class _FBlock:
    open_pos: tuple[int, int]
    close_pos: tuple[int, int]
    lines: list[_FLine] = attrs.field(factory=list)
    open_comment: Optional[str] = None  # end-of-line comment after '{'
    trailing: list[_Comment] = attrs.field(factory=list)  # full-line comments before '}'

    def inline_ok(self) -> bool:
        if self.open_comment is not None or self.trailing:
            return False
        return all(ln.lead == [] and ln.eol is None and all(isinstance(p, str) for p in ln.parts)
                   for ln in self.lines)

    def inline(self) -> str:
        if not self.lines:
            return "{ }"
        # (called once inline_ok holds: every part is a plain word)
        return "{ " + "; ".join(" ".join(cast("list[str]", ln.parts)) for ln in self.lines) + " }"


@attrs.define(eq=False)
class _FLine:
    start: tuple[int, int]
    end: tuple[int, int]  # position of the line's last character
    parts: list[Union[str, _FBlock]] = attrs.field(factory=list)  # atoms already rendered
    lead: list[_Comment] = attrs.field(factory=list)  # full-line comments before the line
    eol: Optional[str] = None  # end-of-line comment


class _Sink:
    """Where the comment callback of the shared parser puts tokens (one parse at a time)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: list[Token] = []

    def add(self, tok: Token) -> None:
        self.tokens.append(tok)


_SINK = _Sink()


@functools.lru_cache(maxsize=1)
def _comment_parser() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False,
                keep_all_tokens=True, lexer_callbacks={"COMMENT": _SINK.add})


def escape_string(value: str) -> str:
    """A string value as canonical source text, quotes included."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(raw: str) -> str:
    value = int(raw)
    return ("+" if raw.startswith("+") and value >= 0 else "") + str(value)


def _atom_text(node: Tree) -> str:
    if node.data == "group":
        return "(" + " ".join(_atom_text(c) for c in node.children if isinstance(c, Tree)) + ")"
    if node.data == "iblock":  # a block inside a group: on one line, '{ a b; c }'
        lines = [" ".join(_atom_text(p) for p in ln.children) for ln in node.children if isinstance(ln, Tree)]
        return "{ " + "; ".join(lines) + " }" if lines else "{ }"
    raw = str(node.children[0])
    if node.data == "number":
        return _number(raw)
    if node.data == "string":
        return escape_string(unescape(raw))
    return raw  # name, join


class _Builder:
    """Lark tree (keep_all_tokens) -> layout tree, with anchors for comments."""

    def __init__(self) -> None:
        self.anchors: dict[int, list[tuple[int, Union[_FLine, _FBlock]]]] = {}  # line -> (col, line-end or block-open)
        self.slots: list[tuple[tuple[int, int], Union[_FLine, _FBlock]]] = []  # (position, line-start or block-close)

    def lines(self, children) -> list[_FLine]:
        return [self.line(c) for c in children if isinstance(c, Tree) and c.data == "line"]

    def line(self, node: Tree) -> _FLine:
        m = node.meta
        ln = _FLine(start=(m.line, m.column), end=(m.end_line, m.end_column - 1))
        self.slots.append((ln.start, ln))
        for c in node.children:
            if c.data == "block":
                ln.parts.append(self.block(c))
            else:
                ln.parts.append(_atom_text(c))
        self.anchors.setdefault(ln.end[0], []).append((ln.end[1], ln))
        return ln

    def block(self, node: Tree) -> _FBlock:
        first, last = node.children[0], node.children[-1]
        assert isinstance(first, Token) and first == "{" and isinstance(last, Token) and last == "}"
        b = _FBlock(open_pos=(first.line or 0, first.column or 0), close_pos=(last.line or 0, last.column or 0))
        self.anchors.setdefault(first.line or 0, []).append((first.column or 0, b))
        b.lines = self.lines(node.children)
        self.slots.append((b.close_pos, b))
        return b


@attrs.define(eq=False)
class _Doc:
    lines: list[_FLine]
    trailing: list[_Comment]


def _layout(text: str) -> _Doc:
    """Parse ``text`` (known to be valid) into a layout tree with every comment attached."""
    parser = _comment_parser()
    with _SINK.lock:
        _SINK.tokens = []
        tree = parser.parse(text)
        tokens, _SINK.tokens = _SINK.tokens, []
    b = _Builder()
    doc = _Doc(b.lines(tree.children), [])
    slot_keys = [pos for pos, _ in b.slots]  # document order = sorted order
    for tok in tokens:
        c = _Comment(tok.line or 0, tok.column or 0, str(tok).rstrip(_WS))
        before = [a for a in b.anchors.get(c.line, []) if a[0] < c.col]
        if before:  # an end-of-line comment: after a line's last part, or after a block's '{'
            anchor = max(before, key=lambda a: a[0])[1]
            if isinstance(anchor, _FBlock):
                anchor.open_comment = c.text
            else:
                anchor.eol = c.text
            continue
        i = bisect.bisect_right(slot_keys, (c.line, c.col))
        slot: Union[_FLine, _FBlock, _Doc] = b.slots[i][1] if i < len(b.slots) else doc
        if isinstance(slot, _FLine):
            slot.lead.append(c)
        else:
            slot.trailing.append(c)
    return doc


# --- rendering ----------------------------------------------------------------------------------
def _render_items(lines: list[_FLine], trailing: list[_Comment], depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    prev_end: Optional[int] = None

    def gap(start: int) -> None:
        if prev_end is not None and start - prev_end > 1:
            out.append("")

    for ln in lines:
        for c in ln.lead:
            gap(c.line)
            out.append(pad + c.text)
            prev_end = c.line
        gap(ln.start[0])
        _render_line(ln, depth, out)
        prev_end = ln.end[0]
    for c in trailing:
        gap(c.line)
        out.append(pad + c.text)
        prev_end = c.line


def _tail_width(parts: list[Union[str, _FBlock]], i: int) -> int:
    """Width that must follow part i on its physical line: atoms up to the next block's '{'."""
    width = 0
    for p in parts[i + 1:]:
        if isinstance(p, _FBlock):
            return width + 2  # " {"
        width += 1 + len(p)
    return width


def _render_line(ln: _FLine, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    cur = pad
    for i, part in enumerate(ln.parts):
        sep = " " if i else ""
        if isinstance(part, str):
            cur += sep + part
            continue
        if part.inline_ok():
            text = part.inline()
            if len(cur) + len(sep) + len(text) + _tail_width(ln.parts, i) <= MAX_WIDTH:
                cur += sep + text
                continue
        cur += sep + "{"
        if part.open_comment is not None:
            cur += COMMENT_GAP + part.open_comment
        out.append(cur)
        _render_items(part.lines, part.trailing, depth + 1, out)
        cur = pad + "}"
    if ln.eol is not None:
        cur += COMMENT_GAP + ln.eol
    out.append(cur)


# --- the public interface -----------------------------------------------------------------------
def syntax_shape(lines: tuple[Line, ...], text: str) -> tuple:
    """The syntax tree without spans, for comparing two texts; a number keeps whether it was
    written with an explicit '+' (read from ``text`` at the atom's span)."""
    src = text.split("\n")

    def atom(a: Atom):
        if a.kind == "group":
            return ("group", tuple(part(x) for x in a.items))
        if a.kind == "number":
            plus = src[a.span.line - 1][a.span.col - 1] == "+"
            return ("number", a.value, plus)
        return (a.kind, a.value)

    def part(p: Union[Atom, Block]):
        if isinstance(p, Block):
            return ("block", tuple(line(x) for x in p.lines))
        return atom(p)

    def line(ln: Line):
        return tuple(part(p) for p in ln.parts)

    return tuple(line(ln) for ln in lines)


def comments(text: str) -> list[str]:
    """The comments of valid content text, in order, without trailing whitespace."""
    parser = _comment_parser()
    with _SINK.lock:
        _SINK.tokens = []
        parser.parse(text)
        tokens, _SINK.tokens = _SINK.tokens, []
    return [str(t).rstrip(_WS) for t in tokens]


def format_text(text: str, path: str = "<string>") -> tuple[Optional[str], list[Diagnostic]]:
    """Canonical text for content ``text``; ``(None, diagnostics)`` when it does not parse."""
    lines, diags = parse_text(text, path)
    if diags:
        return None, diags
    doc = _layout(text)
    out: list[str] = []
    _render_items(doc.lines, doc.trailing, 0, out)
    result = "\n".join(out) + "\n" if out else ""
    again, diags2 = parse_text(result, path)
    if diags2 or syntax_shape(again, result) != syntax_shape(lines, text):  # pragma: no cover - a bug
        raise AssertionError(f"the formatter changed the meaning of {path}")
    return result, []


def format_file(path: Union[str, Path]) -> tuple[str, Optional[str], list[Diagnostic]]:
    """Read and format one file: (source text, canonical text or None, diagnostics)."""
    from .syntax import parse_file

    _lines, diags, text = parse_file(path)
    if diags:
        return text, None, diags
    formatted, diags = format_text(text, str(path))
    return text, formatted, diags
