"""The tables of content resolution, and the contexts effects resolve in: the ground floor that
every rules module may import.

Each family of content nodes (dsl/nodes.py) has one table here, filled as the family modules
load (resolve.py says which function each holds, found by name): ``EXEC`` for effects, ``EVAL``
for conditions, ``AMOUNT`` for amounts, ``PLACE`` for places. A module that must read a
condition but stands below resolve.py (statics.py: a rule's ``while``) reads ``EVAL`` here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

if TYPE_CHECKING:
    from .attacks import Attack


# the tables, filled by the family modules as they are imported (see the package's __init__)
EXEC: dict[type, Callable[..., None]] = {}
EVAL: dict[type, Callable[..., bool]] = {}
AMOUNT: dict[type, Callable[..., int]] = {}
PLACE: dict[type, Callable[..., int]] = {}


class Ctx:
    """What an effect needs to know about where it is resolving."""

    __slots__ = ("attack", "by", "cause", "here", "killer", "source", "spent", "spent_token", "that")

    def __init__(self, source: str = "", attack: Optional[Attack] = None, that: int = 0, killer: int = -1,
                 spent: tuple[str, ...] = (), spent_token: str = "", cause: str = "", by: str = "", here: int = -1):
        self.source = source
        self.attack = attack
        self.that = that  # the number of the event being answered
        self.killer = killer  # the killer body an event is about ('when killer forms / kills'), or -1
        self.spent = spent  # kinds of the tokens spent, inside a spend block
        self.spent_token = spent_token
        self.cause = cause  # why the event being answered happened (kill | killer | minion | other)
        self.by = by  # the source (a card, item, action, event, terror card …) whose effect made it happen, or ""
        self.here = here  # the place a drawn card resolves at ('draw card DECK at PLACE'): 'here'; -1: hers


NO_CTX = _NO_CTX = Ctx()  # the context of a condition read outside any effect (a Ctx is never written)


class SourceContexts(dict[str, "Ctx"]):
    """``Ctx(source)``, the context of a source's effects with nothing more to say, made once per
    source and shared (a Ctx is never written): ``game.source_ctx[source]`` is a lookup where the
    constructor was a Python call (a card played, a killer or terror card, a bloodlust level)."""

    def __missing__(self, source: str) -> Ctx:
        got = self[source] = Ctx(source)
        return got


class TriggerContexts(dict[tuple[str, int, int, str, str], "Ctx"]):
    """The contexts of triggers answering a happening, by (source, number, killer body, cause, the
    source whose effect made it happen), made once and shared; at most ``limit`` kept (a number is
    any amount: cleared when full)."""

    def __init__(self) -> None:
        super().__init__()
        self.limit = 4096

    def __missing__(self, key: tuple[str, int, int, str, str]) -> Ctx:
        if len(self) >= self.limit:
            self.clear()
        got = self[key] = Ctx(key[0], None, key[1], key[2], (), "", key[3], key[4])
        return got
