"""What the checker reads of a built file besides its declarations: the names it uses (``Ref``)
and the location names every slot takes. Kept apart from the builder so that loading content
whose files are all in the cache imports neither the builder nor the parser."""

from __future__ import annotations

import attrs

from .diagnostics import Span

SPECIAL_PLACES = ("here", "fg", "it", "killer-location", "killer-start")  # what a place slot takes besides location ids


@attrs.frozen
class Ref:
    """A name used by content, resolved by the checker."""

    kind: str  # item | loc | mode | minion | tag | pathtag | token | deck | pack | fear (a killer's)
    name: str
    span: Span
    scope: str  # id of the declaration it stands in (scenario or killer id), or ""


__all__ = ["SPECIAL_PLACES", "Ref"]
