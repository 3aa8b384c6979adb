"""JSON text as the protocol and save files read it: strict, so that what is read can be written.

Python's ``json`` reads ``NaN``, ``Infinity`` and ``1e400`` (as inf), which no other JSON reader
takes and which ``json.dumps`` then writes back as non-JSON; and a ``"\\ud800"`` escape decodes to
a lone surrogate, a string that cannot be written as UTF-8 (``serve`` died of one). ``loads``
refuses the numbers, ``lone_surrogate`` finds such a string.
"""

from __future__ import annotations

import json
import math
from typing import Any, Optional

__all__ = ["loads", "lone_surrogate"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is too large for a float")
    return value


def loads(text: str) -> Any:
    """JSON as the protocol reads it: NaN, Infinity and numbers beyond a float (1e400) are
    refused, as are integers of more than 4 300 digits (Python's own limit): ``ValueError``."""
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite)


def lone_surrogate(value: Any) -> Optional[str]:
    """Where ``value`` (decoded JSON) holds a string that is not Unicode text (a lone surrogate
    such as ``"\\ud800"``, which JSON can spell but UTF-8 cannot carry): "id", "params.game",
    "a key of params"…; None if nowhere."""
    todo: list[tuple[str, Any]] = [("", value)]
    while todo:
        where, v = todo.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return where or "the message"
        elif isinstance(v, dict):
            for k, x in v.items():
                here = f"{where}.{k}" if where else str(k)
                try:
                    str(k).encode("utf-8")
                except UnicodeEncodeError:
                    return f"a key of {where or 'the request'}"
                todo.append((here, x))
        elif isinstance(v, list):
            todo.extend((f"{where}[{i}]", x) for i, x in enumerate(v))
    return None
