"""What a line may cost in play, seen before play: W203 for a line whose nesting multiplies past
the game's work budget (dsl/limits.py ``MAX_WORK``; docs/decisions/0022).

The engine counts the work content asks of it between two decisions and stops past the budget with
E313 (interpreter/engine: one unit for each block run and each effect in it, each location a
selector looks at, each piece a set goes over). Some of that is visible in the text: a selector
inside a selector's ``where`` or ``with most``, ``for each`` inside ``for each``, ``repeat`` around
them. The estimate here counts the same units, each set of locations or pieces as ``RANGE`` (the
smallest bundled board), each computed repeat as the engine's cap; a line estimated past the budget
is a warning naming the estimate. Triggers that set each other off are not seen here (which trigger
a line sets off depends on the game): the budget in play catches them.

One pass over a file's nodes, each estimated once (linear in the file).
"""

from __future__ import annotations

from typing import Any

from . import nodes as n
from .diagnostics import Diagnostic
from .limits import DYNAMIC_REPEAT, MAX_WORK

RANGE = 12  # the locations (or pieces) a set is counted as: the smallest bundled board has 12
BODIES = 4  # the killer bodies 'all killers { … }' is counted as
_CAP = 10 ** 12  # an estimate is held below this (a number, not a bignum, however deep the nesting)


class _Estimate:
    """Each node's estimated units, once (by identity: equal nodes at two places are two nodes)."""

    def __init__(self) -> None:
        self.memo: dict[int, int] = {}

    def of(self, value: Any) -> int:
        if isinstance(value, tuple):
            return min(_CAP, sum(self.of(v) for v in value))
        if not isinstance(value, n.Node):
            return 0
        key = id(value)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = min(_CAP, self._node(value))
        return got

    def block(self, body: Any) -> int:
        """A block run once: the block, each of its effects (``resolve.run``), and what they cost."""
        return 1 + len(body) + self.of(body)

    def _node(self, x: Any) -> int:
        if isinstance(x, n.Selector):  # the set, then its where and amount picks once per location
            per = self.of(x.where) + sum(self.of(p.n) + self.of(p.place) for p in x.picks)
            return 1 + RANGE + self.of(x.among) + self.of(x.skip) + RANGE * per
        if isinstance(x, n.ForEach):
            return self.of(x.among) + RANGE * self.block(x.body)
        if isinstance(x, n.ForEachPiece):
            return 1 + RANGE + self.of(x.among.loc) + RANGE * (self.of(x.among.where) + self.block(x.body))
        if isinstance(x, n.PieceSet):
            return 1 + RANGE + self.of(x.loc) + RANGE * self.of(x.where)
        if isinstance(x, n.Repeat):
            times = x.n if isinstance(x.n, int) else DYNAMIC_REPEAT
            return self.of(x.n) + times * self.block(x.body)
        if isinstance(x, n.AllKillers):
            return BODIES * self.block(x.body)
        total = 0
        for _name, value in n.fields(x):
            total += self.of(value)
        if isinstance(x, n.Control):  # its blocks are run: count them as blocks
            total += sum(1 + len(v) for _name, v in n.fields(x) if _is_block(v))
        return total


def _is_block(value: Any) -> bool:
    return isinstance(value, tuple) and bool(value) and isinstance(value[0], n.Effect)


def costly_lines(decls: list, budget: int = MAX_WORK) -> list[Diagnostic]:
    """W203 for each outermost effect line, or selector outside any effect (a condition's, a
    rule's), estimated to cost more than ``budget`` units each time it is read."""
    est = _Estimate()
    out: list[Diagnostic] = []
    stack: list[Any] = list(reversed(decls))
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(reversed(x))
            continue
        if not isinstance(x, n.Node):
            continue
        if isinstance(x, (n.Effect, n.Selector)):
            units = est.of(x)
            if units > budget:
                out.append(Diagnostic(
                    x.span, "W203",
                    f"this line may ask the engine for {_about(units)} units of work each time it resolves, past "
                    f"the game's budget of {_spaced(budget)} between two decisions",
                    f"counting each set of locations or pieces as {RANGE}: nested selectors and 'for each' "
                    "blocks multiply (in play, past the budget the game stops with E313)", severity="warning"))
                continue
        stack.extend(reversed([v for _name, v in n.fields(x)]))
    return out


def _about(units: int) -> str:
    return f"more than {_spaced(_CAP)}" if units >= _CAP else f"about {_spaced(units)}"


def _spaced(number: int) -> str:
    """12 345 678: thousands set apart by a space, as the rest of the project writes them."""
    return f"{number:,}".replace(",", " ")
