"""Diagnostics: what the parser and checker report, and how a person reads it.

Codes are stable and kept in one catalogue (``CODES``); tests assert codes and positions, not
prose. E1xx are syntax errors, E2xx checking errors, E3xx runtime and choice errors.
"""

from __future__ import annotations

import attrs

CODES: dict[str, str] = {
    "E100": "the file cannot be read as text",
    "E101": "unexpected character",
    "E102": "unexpected token",
    "E103": "unbalanced brace or parenthesis",
    "E104": "unterminated string",
    "E105": "file too large or nested too deep",
    "E200": "unknown declaration",
    "E201": "unknown line in this block",
    "E202": "missing required line",
    "E203": "duplicate id",
    "E204": "unknown name",
    "E205": "wrong value type",
    "E206": "line given twice",
    "E207": "unknown effect phrase",
    "E208": "unknown condition",
    "E209": "value out of range",
    "E210": "inconsistent content",
    "E211": "unknown location tag",
    "E212": "a name from a pack that is not in 'depends'",
}


@attrs.frozen
class Span:
    """Where a piece of content came from: file, 1-based line and column, end line and column."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NO_SPAN = Span("<engine>", 0, 0, 0, 0)


@attrs.frozen
class Diagnostic:
    """One problem in content, with a stable code and an optional hint."""

    span: Span
    code: str
    message: str
    hint: str = ""
    severity: str = "error"

    def format(self, source: str | None = None) -> str:
        """Render as ``path:line:col: error[CODE]: message`` with the line and a caret."""
        head = f"{self.span}: {self.severity}[{self.code}]: {self.message}"
        if self.hint:
            head += f" ({self.hint})"
        if source is None:
            return head
        lines = source.splitlines()
        if not 1 <= self.span.line <= len(lines):
            return head
        text = lines[self.span.line - 1]
        width = 1
        if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
            width = self.span.end_col - self.span.col
        caret = " " * (self.span.col - 1) + "^" + "~" * (width - 1)
        return f"{head}\n    {text}\n    {caret}"

    def to_json(self) -> dict:
        return {
            "path": self.span.path,
            "line": self.span.line,
            "col": self.span.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


class RulesError(Exception):
    """Base of every error the engine raises on purpose."""


class ContentError(RulesError):
    """Content with errors: carries the diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        first = self.diagnostics[0].format() if self.diagnostics else "content error"
        more = len(self.diagnostics) - 1
        super().__init__(first + (f" (and {more} more)" if more > 0 else ""))


class IllegalChoice(RulesError, ValueError):
    """An option that the pending choice does not offer; the state is untouched."""


class SaveError(RulesError):
    """A save or protocol message that cannot be loaded."""
