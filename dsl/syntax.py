"""Stage one of the language: text -> a syntax tree of lines, atoms and blocks, with spans.

The grammar (grammar.lark) is deliberately tiny: a file is lines; a line is atoms and blocks.
Meaning is given to lines by ``build.py``. This keeps syntax errors few and simple, and lets
the checker say "unknown effect 'loose 1 time' (did you mean 'lose N time'?)" with the whole
vocabulary in hand, instead of a parser's "unexpected token".
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Union

import attrs
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .diagnostics import Diagnostic, Span

MAX_BYTES = 2_000_000
MAX_DEPTH = 64


@attrs.frozen
class Atom:
    span: Span
    kind: str  # name | number | string | join | group
    value: object  # str | int | tuple[Atom, ...]

    def text(self) -> str:
        if self.kind == "group":
            return "(" + " ".join(a.text() for a in self.value) + ")"  # type: ignore[union-attr]
        if self.kind == "string":
            return '"' + str(self.value) + '"'
        return str(self.value)


@attrs.frozen
class Block:
    span: Span
    lines: tuple["Line", ...]


@attrs.frozen
class Line:
    span: Span
    parts: tuple[Union[Atom, Block], ...]

    def words(self) -> list[Atom]:
        return [p for p in self.parts if isinstance(p, Atom)]

    def head(self) -> str:
        first = self.parts[0]
        return str(first.value) if isinstance(first, Atom) and first.kind == "name" else ""

    def text(self) -> str:
        return " ".join(p.text() if isinstance(p, Atom) else "{…}" for p in self.parts)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _span(path: str, meta_or_tok) -> Span:
    if isinstance(meta_or_tok, Token):
        t = meta_or_tok
        return Span(path, t.line or 0, t.column or 0, t.end_line or 0, t.end_column or 0)
    m = meta_or_tok
    if getattr(m, "empty", True):
        return Span(path, 0, 0, 0, 0)
    return Span(path, m.line, m.column, m.end_line, m.end_column)


def _unescape(raw: str) -> str:
    body = raw[1:-1]
    return body.replace('\\"', '"').replace("\\\\", "\\")


def _convert(path: str, node) -> Union[Atom, Block, Line, tuple]:
    if isinstance(node, Token):  # only reached for anonymous tokens, which we drop
        raise AssertionError(node)
    data = node.data
    if data == "start":
        return tuple(_convert(path, c) for c in node.children)
    if data == "line":
        parts = tuple(_convert(path, c) for c in node.children)
        return Line(_span(path, node.meta), parts)  # type: ignore[arg-type]
    if data == "block":
        lines = tuple(_convert(path, c) for c in node.children)
        return Block(_span(path, node.meta), lines)  # type: ignore[arg-type]
    if data == "group":
        atoms = tuple(_convert(path, c) for c in node.children)
        return Atom(_span(path, node.meta), "group", atoms)
    tok = node.children[0]
    span = _span(path, tok)
    if data == "name":
        return Atom(span, "name", str(tok))
    if data == "number":
        return Atom(span, "number", int(str(tok)))
    if data == "string":
        return Atom(span, "string", _unescape(str(tok)))
    if data == "join":
        return Atom(span, "join", "--")
    raise AssertionError(data)


def _depth_problem(text: str) -> int:
    """Line number where nesting passes MAX_DEPTH, or 0."""
    depth = 0
    line = 1
    in_string = False
    in_comment = False
    for ch in text:
        if ch == "\n":
            line += 1
            in_comment = False
            in_string = False
            continue
        if in_comment:
            continue
        if in_string:
            if ch == '"':
                in_string = False
            continue
        if ch == "#":
            in_comment = True
        elif ch == '"':
            in_string = True
        elif ch in "{(":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif ch in "})":
            depth -= 1
    return 0


def _syntax_diagnostic(path: str, text: str, err: UnexpectedInput) -> Diagnostic:
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    span = Span(path, line, col, line, col + 1)
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        if ch == '"':
            return Diagnostic(span, "E104", "unterminated string", 'close it with " on the same line')
        return Diagnostic(span, "E101", f"unexpected character {ch!r}",
                          "names use letters, digits, '-' and '_'; text goes in double quotes")
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        if line == 0:
            lines = text.splitlines() or [""]
            span = Span(path, len(lines), max(1, len(lines[-1])), len(lines), len(lines[-1]) + 1)
        return Diagnostic(span, "E103", "the file ends inside a block", "a '{' or '(' is never closed with '}' or ')'")
    if isinstance(err, UnexpectedToken):
        tok = err.token
        span = Span(path, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)
        if tok.type in ("RBRACE", "RPAR"):
            return Diagnostic(span, "E103", f"unmatched {str(tok)!r}", "there is no block open here to close")
        if tok.type == "LBRACE":
            return Diagnostic(span, "E102", "a block cannot start here", "a block follows words on a line: 'name { … }'")
        return Diagnostic(span, "E102", f"unexpected {str(tok)!r}", "check the line above for a missing '}' or ')'")
    return Diagnostic(span, "E102", "cannot read this", "")


def parse_text(text: str, path: str = "<string>") -> tuple[tuple[Line, ...], list[Diagnostic]]:
    """Parse content text into lines; never raises for bad input."""
    if len(text) > MAX_BYTES:
        return (), [Diagnostic(Span(path, 1, 1, 1, 2), "E105", f"file is larger than {MAX_BYTES} characters",
                               "split it into several files")]
    if "\x00" in text:
        n = text[: text.index("\x00")].count("\n") + 1
        return (), [Diagnostic(Span(path, n, 1, n, 2), "E100", "the file holds binary data", "content files are UTF-8 text")]
    deep = _depth_problem(text)
    if deep:
        return (), [Diagnostic(Span(path, deep, 1, deep, 2), "E105", f"blocks nested more than {MAX_DEPTH} deep",
                               "flatten the content")]
    try:
        tree: Tree = _parser().parse(text)
    except UnexpectedInput as err:
        return (), [_syntax_diagnostic(path, text, err)]
    return _convert(path, tree), []  # type: ignore[return-value]


def parse_file(path: Path | str) -> tuple[tuple[Line, ...], list[Diagnostic], str]:
    """Parse a file; returns lines, diagnostics and the source text (for carets)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as err:
        return (), [Diagnostic(Span(str(p), 1, 1, 1, 2), "E100", f"cannot read the file: {err.strerror}")], ""
    if len(raw) > MAX_BYTES:
        return (), [Diagnostic(Span(str(p), 1, 1, 1, 2), "E105", f"file is larger than {MAX_BYTES} bytes",
                               "split it into several files")], ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        n = raw[: err.start].count(b"\n") + 1
        return (), [Diagnostic(Span(str(p), n, 1, n, 2), "E100", "the file is not UTF-8 text")], ""
    lines, diags = parse_text(text, str(p))
    return lines, diags, text
