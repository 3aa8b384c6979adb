"""Saving and loading game states as plain JSON-ready data.

A saved state names its content (killer, scenario, Final Girl, difficulty, …) and carries a
hash of the loaded content, so a save made with other content is refused with a reason rather
than half-loaded. Records are (un)structured with cattrs; the static ``Game`` is rebuilt from
the ids. A state paused at a choice saves its checkpoint and answers, so it resumes exactly.
"""

from __future__ import annotations

import hashlib
import typing
from typing import Any

import attrs
import cattrs
from lastbreath.dsl import SaveError

from .engine import Game
from .state import Choice, GameState, HeldItem, KillerState, MinionState, Option

FORMAT = "lastbreath-save"
VERSION = 1

_conv = cattrs.Converter(forbid_extra_keys=True)
# sets inside records (e.g. a killer's status) save as sorted lists: JSON has no sets
_conv.register_unstructure_hook_func(lambda t: t is frozenset or typing.get_origin(t) is frozenset,
                                     lambda v: sorted(v))
_FIELDS = [f.name for f in attrs.fields(GameState) if f.name not in ("game", "checkpoint", "choice")]
_RECORDS = {"held": HeldItem, "pack": HeldItem, "killers": KillerState, "minions": MinionState}
_SETS = {"lust_fired", "flags", "opened"}
_OPTIONAL = {"dice": ()}  # fields saved only when set (saves made before them load unchanged)


def content_hash(ruleset) -> str:
    """A short hash of all loaded content text, in path order."""
    h = hashlib.sha256()
    for path in sorted(ruleset.sources):
        h.update(ruleset.sources[path].encode("utf-8"))
    return h.hexdigest()[:16]


def _state_data(state: GameState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _FIELDS:
        v = getattr(state, name)
        if name in _OPTIONAL and v == _OPTIONAL[name]:
            continue
        if name in _SETS:
            out[name] = sorted(v)
        elif name in _RECORDS:
            out[name] = [_conv.unstructure(x) for x in v]
        elif name == "piles":
            out[name] = [[[c, up] for c, up in pile] for pile in v]
        elif isinstance(v, tuple):
            out[name] = list(v)
        else:
            out[name] = v
    out["choice"] = None if state.choice is None else _conv.unstructure(state.choice)
    out["checkpoint"] = None if state.checkpoint is None else _state_data(state.checkpoint)
    return out


def to_json(state: GameState) -> dict[str, Any]:
    """A JSON-ready save of the state."""
    game: Game = state.game
    return {"format": FORMAT, "version": VERSION, "content": content_hash(game.ruleset), "game": game.ids,
            "state": _state_data(state)}


def _build_state(game: Game, data: dict[str, Any]) -> GameState:
    if not isinstance(data, dict):
        raise SaveError("the saved state is not an object")
    missing = [f for f in _FIELDS if f not in data and f not in _OPTIONAL]
    extra = set(data) - set(_FIELDS) - {"choice", "checkpoint"}
    if missing or extra:
        raise SaveError(f"the saved state has missing fields {missing} or unknown fields {sorted(extra)}")
    kw: dict[str, Any] = {"game": game}
    try:
        for name in _FIELDS:
            if name not in data:  # an optional field left out: its default
                kw[name] = _OPTIONAL[name]
                continue
            v = data[name]
            if name in _SETS:
                kw[name] = frozenset(v)
            elif name in _RECORDS:
                kw[name] = tuple(_conv.structure(x, _RECORDS[name]) for x in v)
            elif name == "piles":
                kw[name] = tuple(tuple((str(c), bool(up)) for c, up in pile) for pile in v)
            elif name == "dice":  # forced faces: each a die's face
                if not isinstance(v, list) or not all(type(f) is int and 1 <= f <= 6 for f in v):
                    raise SaveError("the saved state's forced dice are not a list of faces 1 to 6")
                kw[name] = tuple(v)
            elif isinstance(v, list):
                kw[name] = _tuples(v)
            else:
                kw[name] = v
        kw["choice"] = None if data["choice"] is None else _conv.structure(data["choice"], Choice)
        kw["checkpoint"] = None if data["checkpoint"] is None else _build_state(game, data["checkpoint"])
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError) as err:
        raise SaveError(f"the saved state is malformed: {err}") from None
    return GameState(**kw)


def _tuples(v: Any) -> Any:
    """JSON lists back to the state's nested tuples."""
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def from_json(ruleset, data: dict[str, Any]) -> GameState:
    """Load a save made by ``to_json`` with the same content; refuse anything else with a reason."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError("this is not a lastbreath save")
    if data.get("version") != VERSION:
        raise SaveError(f"save version {data.get('version')} is not supported (this build reads {VERSION})")
    if data.get("content") != content_hash(ruleset):
        raise SaveError("the save was made with different content (the content hash differs)")
    ids = data.get("game")
    if not isinstance(ids, dict):
        raise SaveError("the save names no game")
    try:
        k = ruleset.killers[ids["killer"]]
        s = ruleset.scenarios[ids["scenario"]]
        fg = ruleset.final_girls[ids["final_girl"]]
        game = Game(ruleset, k, s, fg, ids["difficulty"], bool(ids["legendary"]), ids["tie_policy"],
                    ids.get("forced", "auto"))
    except KeyError as err:
        raise SaveError(f"the save names content that is not loaded: {err}") from None
    return _build_state(game, data.get("state"))  # type: ignore[arg-type]  # _build_state refuses a non-object


__all__ = ["Option", "content_hash", "from_json", "to_json"]
