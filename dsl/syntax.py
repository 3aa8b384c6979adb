"""Stage one of the language: text -> a syntax tree of lines, atoms and blocks, with spans.

The grammar (grammar.lark) is deliberately tiny: a file is lines; a line is atoms and blocks.
Meaning is given to lines by ``build.py``. This keeps syntax errors few and simple, and lets
the checker say "unknown effect 'loose 1 time' (did you mean 'lose N time'?)" with the whole
vocabulary in hand, instead of a parser's "unexpected token".
"""

from __future__ import annotations

import re
import stat
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import attrs

from .diagnostics import Diagnostic, Span
from .limits import MAX_NUMBER  # the largest number (and, negated, the smallest); slots have smaller limits

if TYPE_CHECKING:  # lark loads with the first file parsed (content found in the cache is not parsed)
    from lark import Tree
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput

MAX_BYTES = 2_000_000  # bytes in a file
MAX_DEPTH = 64  # blocks and groups inside each other
MAX_LINE = 10_000  # characters in a line
MAX_TOKENS = 50_000  # words, symbols and line ends in a file: the parser takes ~20 µs a token
MAX_PACK_TOKENS = 200_000  # … in all the files of one pack (four files at the limit: a few seconds to check)
MAX_DIGITS = 9  # digits in a number: a longer one is refused before it is converted


@attrs.frozen
class Atom:
    span: Span
    kind: str  # name | number | string | join | group
    value: Union[str, int, tuple[Union[Atom, Block], ...]]  # a name, string or '--' | a number | a group's parts

    @property
    def num(self) -> int:
        """The value of a number atom."""
        if not isinstance(self.value, int):
            raise TypeError(f"not a number: {self.text()}")
        return self.value

    @property
    def items(self) -> tuple[Union[Atom, Block], ...]:
        """The parts of a group: atoms, and the one-line blocks of a condition (``all { … }``)."""
        if not isinstance(self.value, tuple):
            raise TypeError(f"not a group: {self.text()}")
        return self.value

    def text(self) -> str:
        if self.kind == "group":
            return "(" + " ".join(a.text() if isinstance(a, Atom) else "{…}" for a in self.items) + ")"
        if self.kind == "string":
            return '"' + str(self.value) + '"'
        return str(self.value)


@attrs.frozen
class Block:
    span: Span
    lines: tuple[Line, ...]


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


class _FileParser:
    """The parser of whole files (expr.file_parser: the start rule, no position tracking)."""

    def parse(self, text: str) -> Tree:
        from .expr import file_parser
        return file_parser().parse(text)


def _parser() -> _FileParser:
    return _FileParser()


def _span(path: str, first, last=None) -> Span:
    """A token's span, or from the start of token ``first`` to the end of token ``last`` (files are
    parsed without Lark's position tracking: every span is read from tokens)."""
    last = first if last is None else last
    return Span(path, first.line or 0, first.column or 0, last.end_line or 0, last.end_column or 0)


def unescape(raw: str) -> str:
    body = raw[1:-1]
    return body.replace('\\"', '"').replace("\\\\", "\\")


def _number(path: str, span: Span, raw: str, bad: list[Diagnostic]) -> int:
    """A number token as an int, bounded: one beyond ±MAX_NUMBER (or longer than MAX_DIGITS digits,
    which is never converted: Python refuses to convert more than 4 300 digits) is an E209, and
    reads as 0 so that parsing can go on."""
    digits = raw.lstrip("+-").lstrip("0") or "0"  # '007' is 7
    value = int(raw[0] + digits if raw[0] in "+-" else digits) if len(digits) <= MAX_DIGITS else None
    if value is not None and -MAX_NUMBER <= value <= MAX_NUMBER:
        return value
    shown = raw if len(raw) <= 16 else f"{raw[:12]}… ({len(digits)} digits)"
    bad.append(Diagnostic(span, "E209", f"the number {shown} is out of range: numbers in content lie between "
                          f"-{MAX_NUMBER} and {MAX_NUMBER}", "each kind of value has a smaller limit "
                          "(dsl/LANGUAGE.md, 'Limits')"))
    return 0


def _part(path: str, node: Tree, bad: list[Diagnostic]) -> Union[Atom, Block]:
    """A part of a line: a block, or an atom (a name, number, string, '--' or group); numbers out of
    range go to ``bad``."""
    if node.data in ("block", "iblock"):  # (an iblock: a block inside a group, on one line)
        kids = node.children  # LBRACE, the lines, RBRACE
        return Block(_span(path, kids[0], kids[-1]), tuple(_line(path, c, bad) for c in kids[1:-1]))
    return _atom(path, node, bad)


def _line(path: str, node: Tree, bad: list[Diagnostic]) -> Line:
    parts = tuple(_part(path, c, bad) for c in node.children)
    first, last = parts[0].span, parts[-1].span
    return Line(Span(path, first.line, first.col, last.end_line, last.end_col), parts)


def _atom(path: str, node: Tree, bad: list[Diagnostic]) -> Atom:
    data = node.data
    if data == "group":
        kids = node.children  # LPAR, the atoms, RPAR
        return Atom(_span(path, kids[0], kids[-1]), "group", tuple(_part(path, c, bad) for c in kids[1:-1]))
    tok = node.children[0]
    span = _span(path, tok)
    if data == "name":
        return Atom(span, "name", str(tok))
    if data == "number":
        return Atom(span, "number", _number(path, span, str(tok), bad))
    if data == "string":
        return Atom(span, "string", unescape(str(tok)))
    if data == "join":
        return Atom(span, "join", "--")
    raise AssertionError(data)


# The lexical skeleton of a file as the grammar reads it: strings (with their escapes; an
# unterminated one runs to the end of its line), comments, newlines, brackets, and the other
# tokens (names, numbers, '--', ';', any other character). One match is about one parser token.
SCAN = re.compile(r'(?P<s>"(?:[^"\\\n]|\\.)*"?)|(?P<c>#[^\n]*)|(?P<n>\n)|(?P<o>[{(])|(?P<x>[})])'
                  r'|(?P<w>[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*|[+-]?[0-9]+|--|[^\s"#{}()])')
_LONG_LINE = re.compile(rf"^[^\n]{{{MAX_LINE + 1}}}", re.M)  # anchored: linear time


def count_tokens(text: str, stop: int) -> int:
    """The words, symbols and line ends of a text as the limits count them (comments aside), counted
    no further than ``stop`` + 1 (~0.4 µs a token: 1 % of parsing them)."""
    tokens = 0
    for m in SCAN.finditer(text):
        if m.lastgroup != "c":
            tokens += 1
            if tokens > stop:
                break
    return tokens


def _prescan(text: str, path: str) -> Optional[Diagnostic]:
    """The limits checked before parsing (E105), so that no input makes the parser slow or
    deep: line length, the number of tokens, and nesting (strings and comments skipped, with
    their escapes honoured as the grammar does)."""
    long = _LONG_LINE.search(text)
    if long:
        n = text.count("\n", 0, long.start()) + 1
        return Diagnostic(Span(path, n, 1, n, 2), "E105", f"line {n} is longer than {MAX_LINE} characters",
                          "break it into several lines")
    depth = tokens = 0
    line, line_start = 1, 0
    for m in SCAN.finditer(text):
        kind = m.lastgroup
        if kind == "c":
            continue
        tokens += 1
        col = m.start() - line_start + 1
        if tokens > MAX_TOKENS:  # line ends count too: blank lines are no way around the limit
            return Diagnostic(Span(path, line, col, line, col + 1), "E105",
                              f"the file has more than {MAX_TOKENS} words, symbols and line ends",
                              "split it into several files")
        if kind == "n":
            line, line_start = line + 1, m.end()
            continue
        if kind == "o":
            depth += 1
            if depth > MAX_DEPTH:
                return Diagnostic(Span(path, line, col, line, col + 1), "E105",
                                  f"blocks nested more than {MAX_DEPTH} deep", "flatten the content")
        elif kind == "x":
            depth = max(0, depth - 1)
    return None


@attrs.frozen
class _Opened:
    char: str  # '{' or '('
    line: int
    col: int


def _brackets(text: str, upto: int) -> tuple[list[_Opened], list[tuple[_Opened, _Opened]], tuple[int, int]]:
    """Up to offset ``upto``: the brackets still open (innermost last), the pairs closed, and the
    line and column just after the last token."""
    stack: list[_Opened] = []
    pairs: list[tuple[_Opened, _Opened]] = []
    line, line_start = 1, 0
    last = (1, 1)
    for m in SCAN.finditer(text, 0, upto):
        kind = m.lastgroup
        if kind == "n":
            line, line_start = line + 1, m.end()
            continue
        if kind == "c":
            continue
        last = (line, m.end() - line_start + 1)
        here = _Opened(m.group(), line, m.start() - line_start + 1)
        if kind == "o":
            stack.append(here)
        elif kind == "x" and stack:
            pairs.append((stack.pop(), here))
    return stack, pairs, last


def _indent(lines: list[str], n: int) -> int:
    text = lines[n - 1] if 1 <= n <= len(lines) else ""
    return len(text) - len(text.lstrip(" \t"))


def _missing_brace_hint(text: str, opened: _Opened, pairs: list[tuple[_Opened, _Opened]]) -> str:
    """Where a '}' is probably missing: the first block whose '}' starts a line indented less than
    the line of its '{' (that '}' was meant for an outer block); else the block still open."""
    lines = text.split("\n")
    for a, z in sorted(pairs, key=lambda p: (p[0].line, p[0].col)):
        if a.char != "{" or z.line == a.line:
            continue
        closer_line = lines[z.line - 1] if z.line <= len(lines) else ""
        if closer_line.strip().startswith("}") and _indent(lines, z.line) < _indent(lines, a.line):
            return (f"the '{{' at line {a.line}, column {a.col} is probably not closed: the '}}' at line {z.line} "
                    f"is indented like an outer block")
    what = lines[opened.line - 1].strip() if opened.line <= len(lines) else ""
    if len(what) > 40:
        what = what[:39] + "…"
    return f"the '{{' at line {opened.line}, column {opened.col} ('{what}') is never closed"


QUOTES = "'`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb"


def _bad_character(path: str, text: str, err: UnexpectedCharacters) -> Diagnostic:
    line, col = err.line or 1, err.column or 1
    pos = err.pos_in_stream or 0
    ch = text[pos] if pos < len(text) else ""
    span = Span(path, line, col, line, col + 1)
    if ch == '"':
        rest = text[pos:].split("\n", 1)[0]
        span = Span(path, line, col, line, col + len(rest.rstrip("\r")))
        return Diagnostic(span, "E104", "unterminated string",
                          'close it with " on the same line; a " inside a string is written \\"')
    if ch in QUOTES:
        return Diagnostic(span, "E101", f"unexpected {ch!r}: text must be in double quotes",
                          'write text between straight double quotes: name "The Hook\'s Edge"')
    if ch == "\ufeff":
        return Diagnostic(span, "E101", "a byte-order mark (U+FEFF) inside the text",
                          "only the very start of a file may hold one; delete it")
    if ch.isalpha() or ch.isdigit():  # letters and digits beyond ASCII
        return Diagnostic(span, "E101", f"unexpected {ch!r}: names use only the letters a-z, digits, '-' and '_'",
                          'spell the id in ASCII (cafe-du-lac) and write other text in double quotes: '
                          'name "Café du Lac"')
    if ch == "-":
        return Diagnostic(span, "E101", "unexpected '-'",
                          "a negative number is written -1 with no space; the two ends of a path are joined "
                          "by '--'; a name cannot start or end with '-'")
    if ch == "\\":
        return Diagnostic(span, "E101", "unexpected '\\'", 'a backslash escapes " and \\ inside a string only')
    if not ch.isprintable():
        return Diagnostic(span, "E101", f"unexpected control character U+{ord(ch):04X}",
                          "content files are plain text")
    return Diagnostic(span, "E101", f"unexpected character {ch!r}",
                      "names use letters, digits, '-' and '_'; text goes in double quotes")


def _syntax_diagnostic(path: str, text: str, err: UnexpectedInput) -> Diagnostic:
    """A parser error as a person would put it, from the token the parser could not take and
    the brackets open where it stands."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF

    if isinstance(err, UnexpectedCharacters):
        return _bad_character(path, text, err)
    tok: Any = getattr(err, "token", None)
    eof = isinstance(err, UnexpectedEOF) or tok is None or tok.type == "$END"
    pos = len(text) if eof else tok.start_pos
    stack, pairs, last = _brackets(text, pos)
    inner = stack[-1] if stack else None
    if inner is not None and inner.char == "(" and (eof or tok.type in ("_NL", "SEMICOLON", "RBRACE")):
        what = "the file ends" if eof else ("the line ends" if tok.type == "_NL" else f"'{tok}' comes")
        return Diagnostic(Span(path, inner.line, inner.col, inner.line, inner.col + 1), "E103",
                          f"unclosed '(': {what} before its ')'", "a '( )' group closes on its own line")
    if eof:
        line, col = last
        opened = inner or _Opened("{", line, col)
        return Diagnostic(Span(path, line, col, line, col + 1), "E103",
                          "missing '}': the file ends inside a block", _missing_brace_hint(text, opened, pairs))
    assert tok is not None
    span = Span(path, tok.line or 1, tok.column or 1, tok.end_line or tok.line or 1,
                tok.end_column or (tok.column or 1) + 1)
    if tok.type == "RBRACE":
        return Diagnostic(span, "E103", "unexpected '}': no block is open here",
                          "delete it, or look above for a block closed too early")
    if tok.type == "RPAR":
        return Diagnostic(span, "E103", "unexpected ')': no '(' is open here", "delete it, or add the '(' it closes")
    if tok.type == "_NL" and inner is not None and inner.char == "{" and any(o.char == "(" for o in stack):
        return Diagnostic(span, "E102", "a block inside '( )' stands on one line",
                          "separate its parts with ';': (any where all { it is exit; it has tag river } random)")
    return Diagnostic(span, "E102", f"unexpected {str(tok)!r}", "check the line above for a missing '}' or ')'")


def _glued_numbers(path: str, text: str, lines: tuple[Line, ...]) -> list[Diagnostic]:
    """A number glued to a name ('3rd-wind' reads as 3 and 'rd-wind'): the grammar accepts it,
    but no content means it (and formatting would split it)."""
    out: list[Diagnostic] = []
    source_lines: list[str] = []

    def atoms(parts) -> None:
        for a, b in pairwise(parts):
            if (isinstance(a, Atom) and isinstance(b, Atom) and a.kind == "number" and b.kind == "name"
                    and a.span.end_line == b.span.line and a.span.end_col == b.span.col):
                if not source_lines:
                    source_lines.extend(text.split("\n"))
                source = source_lines[a.span.line - 1][a.span.col - 1:b.span.end_col - 1]
                out.append(Diagnostic(Span(path, a.span.line, a.span.col, b.span.end_line, b.span.end_col), "E107",
                                      f"a number cannot start a name: '{source}'",
                                      "a name starts with a letter: spell the number out ('third-wind') or put it "
                                      "after a letter ('wind-3')"))
        for p in parts:
            if isinstance(p, Atom) and p.kind == "group":
                atoms(p.value)
            elif isinstance(p, Block):
                for ln in p.lines:
                    atoms(ln.parts)

    for ln in lines:
        atoms(ln.parts)
    return out


def whole_file_problem(text: str, path: str) -> Optional[Diagnostic]:
    """What stops a file from being parsed at all: its size, binary data, a limit (``_prescan``)."""
    if len(text) > MAX_BYTES:
        return Diagnostic(Span(path, 1, 1, 1, 2), "E105", f"file is larger than {MAX_BYTES} characters",
                          "split it into several files")
    if "\x00" in text:
        n = text[: text.index("\x00")].count("\n") + 1
        return Diagnostic(Span(path, n, 1, n, 2), "E100", "the file holds binary data", "content files are UTF-8 text")
    return _prescan(text, path)


def parse_text(text: str, path: str = "<string>", limits: bool = True) -> tuple[tuple[Line, ...], list[Diagnostic]]:
    """Parse content text into lines; never raises for bad input. ``limits=False``: the size, bytes
    and limits of the whole file were checked already (an editor parses a part of a checked file)."""
    if limits:
        early = whole_file_problem(text, path)
        if early is not None:
            return (), [early]
    from lark.exceptions import UnexpectedInput

    try:
        tree: Tree = _parser().parse(text)
    except UnexpectedInput as err:
        return (), [_syntax_diagnostic(path, text, err)]
    bad: list[Diagnostic] = []
    lines = tuple(_line(path, c, bad) for c in tree.children)
    problems = bad + _glued_numbers(path, text, lines)
    if problems:
        return (), problems
    return lines, []


def parse_file(path: Path | str) -> tuple[tuple[Line, ...], list[Diagnostic], str]:
    """Parse a file; returns lines, diagnostics and the source text (for carets)."""
    text, diags = read_file(path)
    if diags:
        return (), diags, ""
    lines, diags = parse_text(text, str(path))
    return lines, diags, text


def read_file(path: Path | str) -> tuple[str, list[Diagnostic]]:
    """A content file's text: a regular file of at most MAX_BYTES, UTF-8 (a byte-order mark
    dropped); else a diagnostic (E100, E105) and no text."""
    p = Path(path)
    try:
        if not stat.S_ISREG(p.stat().st_mode):  # a pipe or a device could be endless, or never end
            return "", [Diagnostic(Span(str(p), 1, 1, 1, 2), "E100", "cannot read the file: not a regular file")]
        with p.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)  # a larger file is never read whole
    except OSError as err:
        return "", [Diagnostic(Span(str(p), 1, 1, 1, 2), "E100", f"cannot read the file: {err.strerror}")]
    if len(raw) > MAX_BYTES:
        return "", [Diagnostic(Span(str(p), 1, 1, 1, 2), "E105", f"file is larger than {MAX_BYTES} bytes",
                               "split it into several files")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        n = raw[: err.start].count(b"\n") + 1
        return "", [Diagnostic(Span(str(p), n, 1, n, 2), "E100", "the file is not UTF-8 text")]
    return text.removeprefix("\ufeff"), []  # a UTF-8 byte-order mark, as some editors save it
