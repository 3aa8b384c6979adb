"""Saving and loading game states as plain JSON-ready data.

A saved state names its content (killer, scenario, Final Girl, difficulty, …) and carries a
hash of the loaded content, so a save made with other content is refused with a reason rather
than half-loaded. Records are (un)structured with cattrs; the static ``Game`` is rebuilt from
the ids. A state paused at a choice saves its checkpoint and answers, so it resumes exactly.

A save is data from anywhere, so ``from_json`` checks values as well as shapes (validate.py):
against the content and the rules' bounds, written as ``to_json`` writes it (no key it does not
write), keeping the game's invariants, and resuming from its checkpoint to exactly itself. It
raises ``SaveError`` and nothing else. It is the one way in for a saved state: the snapshot of a
save file is loaded through it too (replay.py).
"""

from __future__ import annotations

import hashlib
import typing
from typing import Any, Callable

import attrs
import cattrs
import cattrs.gen
from lastbreath.dsl import RulesError, SaveError

from . import validate
from .engine import FORCED_POLICIES, TIE_POLICIES, Game
from .games import game_for
from .state import Choice, GameState, HeldItem, KillerState, MarkedVictim, MinionState, Option

FORMAT = "lastbreath-save"
VERSION = 1
TOP_KEYS = frozenset({"format", "version", "content", "game", "state"})  # what to_json writes, and nothing else

_conv = cattrs.Converter(forbid_extra_keys=True)
# sets inside records (e.g. a killer's status) save as sorted lists: JSON has no sets
_conv.register_unstructure_hook_func(lambda t: t is frozenset or typing.get_origin(t) is frozenset,
                                     lambda v: sorted(v))


def _exactly(kind: type) -> Any:
    """A structure hook that takes a value of exactly ``kind`` as it is and refuses any other (a
    save holds what to_json writes: not 1.0 or true for 1, nor "5" for 5)."""
    def take(v: Any, _cls: Any) -> Any:
        if type(v) is not kind:
            raise TypeError(f"{v!r:.40} is not {kind.__name__}")
        return v
    return take


for _kind in (int, str, bool):  # records are built of these values as they are: nothing is converted
    _conv.register_structure_hook(_kind, _exactly(_kind))
_FIELDS = [f.name for f in attrs.fields(GameState) if f.name not in ("game", "checkpoint", "choice")]
STATE_FIELDS: tuple[str, ...] = tuple(_FIELDS)  # the state's fields a save holds (all but game, checkpoint, choice)
_RECORDS = {"held": HeldItem, "pack": HeldItem, "killers": KillerState, "minions": MinionState,
            "marked": MarkedVictim}
_SETS = {"lust_fired", "flags", "opened", "fg_status"}
MAX_MODULES = 100  # modules named in a save
_NOT_OPTIONAL = object()
# fields saved only when set (saves made before them load unchanged)
_OPTIONAL: dict[str, Any] = {"dice": (),
                             "table": (), "aside": (), "item_piles": (), "on_piles": (), "deck_discards": (),
                             "cards_aside": (), "card_number": 0,
                             "tracks": (), "holding": (), "delayed": (), "barred": (),
                             # victim kinds, statuses, tokens on things (issue #16 items 3-5)
                             "marked": (), "victim_seq": 0, "fg_status": frozenset(), "token_on": (),
                             "victims_taken": 0,  # the victim supply (C5.7, issue #34)
                             "arrivals": (), "cards_gone": (),
                             "conveyances": (),  # pieces that travel with her (issue #33 item 2)
                             # item cards that carry tokens apart, tokens face down on the board (issue #33)
                             "item_seq": 0, "tokens_down": ()}
# a held item's card number is saved only when it has one (saves made before numbers stay equal)
_conv.register_unstructure_hook(HeldItem, cattrs.gen.make_dict_unstructure_fn(
    HeldItem, _conv, copy=cattrs.gen.override(omit_if_default=True)))
# cattrs' generated functions for the records, found once (a call through the converter dispatches each time)
_UNSTRUCTURE = {cls: _conv.get_unstructure_hook(cls) for cls in (*_RECORDS.values(), Choice)}
_STRUCTURE = {cls: _conv.get_structure_hook(cls) for cls in (*_RECORDS.values(), Choice)}
def _no_record(x: Any) -> Any:  # (the _PLAN entry of a field of no records)
    raise AssertionError("not a field of records")


# how each field is written: a set, records, the item piles, tuples of tuples, or as it is (a tuple as a list)
_NESTED = {f.name for f in attrs.fields(GameState) if str(f.type).count("tuple[") > 1}
_PLAN: tuple[tuple[str, str, Any, Callable[[Any], Any]], ...] = tuple(
    (name, "set" if name in _SETS else "records" if name in _RECORDS else "piles" if name == "piles"
     else "nested" if name in _NESTED else "value", _OPTIONAL.get(name, _NOT_OPTIONAL),
     _UNSTRUCTURE[_RECORDS[name]] if name in _RECORDS else _no_record) for name in _FIELDS)


def content_hash(ruleset) -> str:
    """A short hash of all loaded content text, in path order (computed once per ruleset)."""
    caches = getattr(ruleset, "caches", None)
    if caches is not None and caches.content_hash:
        return caches.content_hash
    h = hashlib.sha256()
    for path in sorted(ruleset.sources):
        h.update(ruleset.sources[path].encode("utf-8"))
    got = h.hexdigest()[:16]
    if caches is not None:
        caches.content_hash = got
    return got


def modules_loaded(ruleset: Any, game: Any) -> None:
    """A save's game names its modules (``modules``: a list of ids, written only when some were
    switched on): each must be a loaded module, in id order, once; ``SaveError`` says which is not
    (before the content hash, which then differs too, so that the reason is the one to act on)."""
    if not isinstance(game, dict) or "modules" not in game:
        return
    mods = game["modules"]
    if not isinstance(mods, list) or not mods or not all(isinstance(m, str) for m in mods) \
            or len(mods) > MAX_MODULES:
        raise SaveError(f"the save's game.modules is not a list of 1 to {MAX_MODULES} module ids")
    missing = [m for m in mods if m not in getattr(ruleset, "modules", {})]
    if missing:
        shown = ", ".join(repr(m[:60]) for m in missing[:4])
        raise SaveError(f"the save was played with the module{'s' if len(missing) > 1 else ''} {shown}, which "
                        f"{'are' if len(missing) > 1 else 'is'} not loaded: load the pack that declares "
                        f"{'them' if len(missing) > 1 else 'it'} (--content PACK)")
    if mods != sorted(set(mods)):
        raise SaveError("the save's game.modules are not in id order, each once (as a save writes them)")


def _state_data(state: GameState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    fields = state.__dict__
    for name, kind, default, record in _PLAN:
        v = fields[name]
        if default is not _NOT_OPTIONAL and v == default:
            continue
        if kind == "value":
            out[name] = list(v) if v.__class__ is tuple else v
        elif kind == "nested":
            out[name] = _lists(v)
        elif kind == "set":
            out[name] = sorted(v)
        elif kind == "records":
            out[name] = [record(x) for x in v]
        else:  # the item piles
            out[name] = [[[c, up] for c, up in pile] for pile in v]
    out["choice"] = None if state.choice is None else _UNSTRUCTURE[Choice](state.choice)
    out["checkpoint"] = None if state.checkpoint is None else _state_data(state.checkpoint)
    return out


def to_json(state: GameState) -> dict[str, Any]:
    """A JSON-ready save of the state."""
    game: Game = state.game
    return {"format": FORMAT, "version": VERSION, "content": content_hash(game.ruleset), "game": game.ids,
            "state": _state_data(state)}


def _build_state(game: Game, data: dict[str, Any], where: str = "") -> GameState:
    if not isinstance(data, dict):
        raise SaveError(f"the saved {(where or 'state.').rstrip('.')} is not an object")
    missing = [f for f in _FIELDS if f not in data and f not in _OPTIONAL]
    if missing == ["victims_in"]:  # the one field added since (issue 42): not taken on trust (validate.py)
        raise SaveError(f"the saved {(where or 'state.').rstrip('.')} has no victims_in: it was made before saves "
                        "counted the victims in play; load the save file it belongs to (replayed from its choices)")
    extra = set(data) - set(_FIELDS) - {"choice", "checkpoint"}
    if missing or extra:
        unknown = sorted(str(k)[:40] for k in extra)
        raise SaveError(f"the saved {(where or 'state.').rstrip('.')} has missing fields {missing[:6]}"
                        f"{' …' if len(missing) > 6 else ''} or unknown fields {unknown[:6]}")
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
                cls = _RECORDS[name]
                make = _STRUCTURE[cls]
                kw[name] = tuple([make(x, cls) for x in v])
            elif name == "piles":  # (each card's id and face as they are: check_values checks them)
                kw[name] = tuple([tuple([tuple(card) for card in pile]) for pile in v])
            elif name == "dice":  # forced faces: each a die's face
                if not isinstance(v, list) or not all(type(f) is int and 1 <= f <= 6 for f in v):
                    raise SaveError("the saved state's forced dice are not a list of faces 1 to 6")
                kw[name] = tuple(v)
            elif isinstance(v, list):
                kw[name] = _tuples(v)
            else:
                kw[name] = v
        kw["choice"] = None if data["choice"] is None else _STRUCTURE[Choice](data["choice"], Choice)
        kw["checkpoint"] = (None if data["checkpoint"] is None else
                            _build_state(game, data["checkpoint"], f"{where}checkpoint."))
    except SaveError:
        raise
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError, AttributeError, OverflowError,
            RecursionError) as err:
        raise SaveError(f"the saved {(where or 'state.').rstrip('.')} is malformed: {str(err)[:200]}") from None
    state = GameState(**kw)
    validate.check_values(state, where)
    return state


def _lists(v: tuple[Any, ...]) -> list[Any]:
    """The state's nested tuples as the lists JSON reads back."""
    return [_lists(x) if x.__class__ is tuple else x for x in v]


def _tuples(v: list[Any]) -> tuple[Any, ...]:
    """JSON lists back to the state's nested tuples."""
    return tuple([_tuples(x) if x.__class__ is list else x for x in v])


def from_json(ruleset: Any, data: Any) -> GameState:
    """Load a save made by ``to_json`` with the same content; refuse anything else with a
    ``SaveError`` that says why (the first field at fault): shapes, values, and the story (see
    the module's docstring). Raises nothing else."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError("this is not a lastbreath save")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise SaveError(f"the snapshot has unknown fields: {', '.join(sorted(str(k)[:40] for k in unknown)[:6])} "
                        f"(a snapshot holds {', '.join(sorted(TOP_KEYS))})")
    if data.get("version") != VERSION:
        raise SaveError(f"save version {data.get('version')} is not supported (this build reads {VERSION})")
    modules_loaded(ruleset, data.get("game"))
    if data.get("content") != content_hash(ruleset):
        raise SaveError("the save was made with different content (the content hash differs)")
    ids = data.get("game")
    if not isinstance(ids, dict):
        raise SaveError("the save names no game")
    keys = {"killer", "scenario", "final_girl", "difficulty", "legendary", "tie_policy"}
    if not keys <= set(ids) <= keys | {"forced", "modules"} or not all(
            type(ids[k]) is (bool if k == "legendary" else list if k == "modules" else str) for k in ids):
        raise SaveError("the save's game is not {killer, scenario, final_girl, difficulty: strings, legendary: "
                        "true or false, tie_policy: a string, forced: a string if saved, modules: a list if saved}")
    if ids["tie_policy"] not in TIE_POLICIES:
        raise SaveError(f"the save's tie policy {ids['tie_policy'][:40]!r} is none of {', '.join(TIE_POLICIES)}")
    if ids.get("forced", "auto") not in FORCED_POLICIES:
        raise SaveError(f"the save's forced setting {ids['forced'][:40]!r} is none of {', '.join(FORCED_POLICIES)}")
    try:  # the setup's static tables, shared with its games (built at the first load or game only)
        game = game_for(ruleset, ids["killer"], ids["scenario"], ids["final_girl"], ids["difficulty"],
                        ids["legendary"], ids["tie_policy"], ids.get("forced", "auto"), tuple(ids.get("modules", ())))
    except KeyError as err:
        raise SaveError(f"the save names content that is not loaded: {str(err)[:80]}") from None
    except RulesError as err:
        raise SaveError(f"the save's game cannot be set up: {str(err)[:200]}") from None
    raw: Any = data.get("state")
    state = _build_state(game, raw)
    data = _state_data(state)
    validate.check_canonical(raw, data)
    validate.check_invariants(state)
    validate.check_resumes(state, data, _state_data)
    return state


__all__ = ["Option", "content_hash", "from_json", "to_json"]
