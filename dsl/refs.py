"""What the checker reads of a built file besides its declarations: the names it uses (``Ref``)
and the location names every slot takes. Kept apart from the builder so that loading content
whose files are all in the cache imports neither the builder nor the parser."""

from __future__ import annotations

import attrs

from .diagnostics import Span

SPECIAL_PLACES = ("here", "fg", "it", "killer-location", "killer-start")  # what a place slot takes besides location ids


# every kind of name content uses, each resolved by one checker (dsl/check.py REF_CHECKS; a test checks
# both ways): a Ref of another kind is refused when it is made
REF_KINDS = frozenset({
    "item", "minion", "pack", "body", "mode", "loc", "tag", "pathtag", "token", "deck", "track", "holding", "pile",
    "fear", "path", "level-stat", "location-number", "deck-card", "recipe-makes", "kind", "victim-kind",
    "token-kind", "card-of-deck", "scenario", "killer", "card", "action", "event", "terror", "hand-card",
    "piece", "conveyance", "card-place", "body-deck", "minion-deck",
})


def _known_kind(_ref: object, _attribute: object, kind: str) -> None:
    if kind not in REF_KINDS:
        raise ValueError(f"{kind!r} is no kind of reference: add it to refs.REF_KINDS with its checker in dsl/check.py")


@attrs.frozen
class Ref:
    """A name used by content, resolved by the checker."""

    kind: str = attrs.field(validator=_known_kind)  # one of REF_KINDS
    name: str
    span: Span
    scope: str  # id of the declaration it stands in (scenario or killer id), or ""


__all__ = ["REF_KINDS", "SPECIAL_PLACES", "Ref"]
