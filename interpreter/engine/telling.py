"""Telling: what happened, as events with the rule behind each and the content line that caused it.

A step's events are counted as they are told, so that a replay skips those its caller has seen
(``Replay.skip``), and made only when someone reads their kind (``Replay.kinds``: play_out's
caller may read a few kinds only; docs/decisions/0008–0010).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..state import Event

if TYPE_CHECKING:
    from .working import Work


def emit(w: Work, kind: str, text: str | Callable[[], str], rule: str = "", source: str = "",
         data: tuple[Any, ...] | Callable[[], tuple[Any, ...]] = ()) -> None:
    """Report what happened; ``source`` defaults to the content line being resolved, if any.

    ``text`` and ``data`` may be functions giving them, called here and now (so they read the
    values of this moment) and only if the event is made: a text that is costly to write (a
    list of candidates) costs nothing when play_out's caller does not read that kind of event."""
    ctl = w.ctl
    if ctl.lean:  # a step nobody replays: not counted
        kinds = ctl.kinds
        if kinds is not None and kind not in kinds:
            return
    else:
        ctl.count += 1
        if ctl.count <= ctl.skip:
            return
        kinds = ctl.kinds
        if kinds is not None and kind not in kinds:  # counted (a replay skips it alike), not made
            return
    if not source:
        node = w.scope.node
        if node is not None:
            sp = node.span
            if sp is not None:
                got = ctl.sources.get(id(sp))
                source = got[1] if got is not None and got[0] is sp else _source(ctl.sources, sp)
    if not isinstance(text, str):
        text = text()
    if not isinstance(data, tuple):
        data = data()
    ctl.events.append(_new_tuple(Event, (kind, text, rule, source, data)))  # Event(...) without its Python __new__


_new_tuple = tuple.__new__


def source_of(w: Work, node: Any) -> str:
    """The file:line:col of a content node (as events name it), or "" for none."""
    sp = getattr(node, "span", None) if node is not None else None
    if sp is None:
        return ""
    table = w.ctl.sources
    got = table.get(id(sp))
    return got[1] if got is not None and got[0] is sp else _source(table, sp)


def told(w: Work, kind: str) -> bool:
    """Whether an event of ``kind`` would be made now (play_out may read only some kinds, and a
    replay skips the events seen). If not, it is counted here as ``emit`` counts it, and the
    caller does not build it at all: ``if told(w, kind): emit(w, kind, …)``. For events whose
    text or data cost more to describe than a function to write them (targeting, on every move)."""
    ctl = w.ctl
    kinds = ctl.kinds
    if ctl.lean:  # a step nobody replays: not counted
        return kinds is None or kind in kinds
    if ctl.count < ctl.skip or (kinds is not None and kind not in kinds):
        ctl.count += 1
        return False
    return True


def _source(table: dict[int, tuple[Any, str]], sp: Any) -> str:
    """An event's source text for a span, formatted once per span (the table keeps the span, so
    that its id stays its own; it belongs to the game, see Game.span_text)."""
    text = f"{sp.path}:{sp.line}:{sp.col}"
    table[id(sp)] = (sp, text)
    return text

