"""Save files and replays: a game is its setup, its seed and the keys of the choices made.

A save is plain JSON::

    {"format": "lastbreath-save", "version": 1, "content": "<content hash>",
     "game": {"killer", "scenario", "final_girl", "difficulty", "legendary", "tie_policy",
              "forced", "modules"},                              # the last two only when set
     "seed": 7, "choices": ["play:walk", "end", ...],
     "snapshot": <serialize.to_json(state) of the last state>,         # optional
     "position": {"text", "path"}}    # optional: a game started from a position (Session.from_position)

Loading replays the choices from ``new_game`` (or from the position a game started at): every
randomness comes from the seed, so the replay is the game. Each key is checked against the
options offered at that point; a save made with other content (another content hash), another
format version, or a file that is truncated or corrupt is refused with a ``SaveError`` that says
why, never half-loaded. When a snapshot is present the replayed state must equal it, so a save
whose replay would tell a different story (the rules engine changed since) is refused too.

    data = save(history)                    # history: [(state, key that led to it), ...]
    data = save((setup, seed, choices), ruleset)
    state, log = load(ruleset, data)        # log: every event of the game, in order
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple, Optional, Sequence, Union

from lastbreath.dsl import RulesError, SaveError
from lastbreath.dsl.modules import pick as pick_modules
from lastbreath.dsl.ruleset import Ruleset

from . import api, engine, serialize
from .jsontext import loads, lone_surrogate
from .state import Event, GameState

FORMAT = "lastbreath-save"
VERSION = 1
GAME_KEYS = ("killer", "scenario", "final_girl", "difficulty", "legendary", "tie_policy")
OPTIONAL_GAME_KEYS = ("forced", "modules")  # saved only when not the default ("auto"; none switched on)
TOP_KEYS = ("format", "version", "content", "game", "seed", "choices", "snapshot", "position")
MAX_POSITION = 200_000  # characters of a saved position's text
REQUIRED = ("format", "version", "content", "game", "seed", "choices")
MAX_SEED = (1 << 63) - 1  # a seed lies within ±MAX_SEED
MAX_CHOICES = 100_000  # choices in a save (a game takes a few hundred)
MAX_FILE = 4 << 20  # bytes of a save file (or a save given as text): read no further, parsed only within it
# (a game's save is a few kB; 100 000 choices and a position's text fit; 63 MiB of JSON took 1.5 GB)

History = Sequence[tuple[GameState, Optional[str]]]
Setup = tuple[dict[str, Any], int, Sequence[str]]

__all__ = ["FORMAT", "VERSION", "Step", "dumps", "load", "read", "replay", "save", "setup_of", "write"]


class Step(NamedTuple):
    """One transition of a replayed game: the choice made (None for the setup), the state it led to
    and the events it caused."""

    key: Optional[str]
    label: Optional[str]
    state: GameState
    events: list[Event]


def setup_of(rs: Ruleset, setup: dict[str, Any]) -> dict[str, Any]:
    """The full game setup (every key of a save's ``game``), defaults filled in as ``new_game`` does."""
    unknown = set(setup) - set(GAME_KEYS) - set(OPTIONAL_GAME_KEYS)
    if unknown:
        raise RulesError(f"unknown setup keys {sorted(unknown)} "
                         f"(known: {', '.join(GAME_KEYS + OPTIONAL_GAME_KEYS)})")
    dflt = api.defaults(rs) if rs.killers and rs.scenarios and rs.final_girls else {}
    out = {k: setup.get(k) or dflt.get(k) for k in ("killer", "scenario", "final_girl")}
    out["difficulty"] = setup.get("difficulty") or "normal"
    out["legendary"] = bool(setup.get("legendary", False))
    out["tie_policy"] = setup.get("tie_policy") or "harder"
    if setup.get("forced", "auto") != "auto":
        out["forced"] = setup["forced"]
    if setup.get("modules"):
        out["modules"] = [m.id for m in pick_modules(rs, setup["modules"])]
    return out


def save(source: Union[History, Setup], ruleset: Optional[Ruleset] = None, *,
         snapshot: bool = True) -> dict[str, Any]:
    """A save of a game, JSON-ready.

    ``source`` is either a history — the ``(state, key)`` pairs of a game from its first state
    (key ``None``) on, each key being the choice that led to that state (``Session.history``) — or
    a tuple ``(setup, seed, choices)``, for which ``ruleset`` is needed. With ``snapshot`` the save
    also holds ``serialize.to_json`` of the last state (replayed from the choices if need be).
    """
    if isinstance(source, tuple) and len(source) == 3 and isinstance(source[0], dict):
        setup, seed, choices = source
        if ruleset is None:
            raise TypeError("save((setup, seed, choices)) needs the ruleset")
        game = setup_of(ruleset, setup)
        data = _envelope(serialize.content_hash(ruleset), game, int(seed), list(choices))
        if snapshot:
            last, _ = load(ruleset, data)
            data["snapshot"] = serialize.to_json(last)
        return data
    history = list(source)
    if not history:
        raise ValueError("an empty history has no game to save")
    first, last = history[0][0], history[-1][0]
    keys = [k for _, k in history[1:]]
    if any(not isinstance(k, str) for k in keys):
        raise ValueError("every state of a history after the first needs the key that led to it")
    g = first.game
    data = _envelope(serialize.content_hash(g.ruleset), dict(g.ids), first.seed, keys)
    if snapshot:
        data["snapshot"] = serialize.to_json(last)
    return data


def _envelope(content: str, game: dict[str, Any], seed: int, choices: list[str]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "content": content, "game": game, "seed": seed,
            "choices": choices}


def _check(rs: Ruleset, data: Any) -> None:
    """Refuse anything that is not a well-formed save of this content, with the reason."""
    if not isinstance(data, dict):
        raise SaveError(f"this is not a lastbreath save (a JSON object was expected, got {_kind(data)})")
    bad = lone_surrogate(data)
    if bad is not None:
        raise SaveError(f"this is not a lastbreath save: {bad!r} holds a lone surrogate, which is not text")
    if data.get("format") != FORMAT:
        raise SaveError(f"this is not a lastbreath save (format {data.get('format')!r}, expected {FORMAT!r})")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise SaveError(f"save format version {version!r} is not supported (this build reads version {VERSION})")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise SaveError(f"the save is incomplete: missing {', '.join(missing)}")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise SaveError(f"the save has unknown fields: {', '.join(unknown)}")
    serialize.modules_loaded(rs, data.get("game"))
    content = data["content"]
    here = serialize.content_hash(rs)
    if not isinstance(content, str):
        raise SaveError(f"the save's content hash is not a string (got {_kind(content)})")
    if content != here:
        shown = content if content.isalnum() and content.isascii() and len(content) <= 64 else repr(content[:40])
        raise SaveError(f"the save was made with content hash {shown}, this content is {here}: "
                        f"load it with the content it was made with")
    game = data["game"]
    if not isinstance(game, dict):
        raise SaveError(f"the save's game is not an object (got {_kind(game)})")
    if not set(GAME_KEYS) <= set(game) <= set(GAME_KEYS + OPTIONAL_GAME_KEYS):
        missing = [k for k in GAME_KEYS if k not in game]
        extra = sorted(set(game) - set(GAME_KEYS) - set(OPTIONAL_GAME_KEYS))
        raise SaveError(f"the save's game has missing keys {missing} or unknown keys {extra}")
    for k in (*GAME_KEYS, *(k for k in OPTIONAL_GAME_KEYS if k in game)):
        want = bool if k == "legendary" else list if k == "modules" else str
        if type(game[k]) is not want:
            raise SaveError(f"the save's game.{k} is not a {want.__name__} (got {_kind(game[k])})")
    if type(data["seed"]) is not int:
        raise SaveError(f"the save's seed is not an integer (got {_kind(data['seed'])})")
    if not -MAX_SEED <= data["seed"] <= MAX_SEED:
        raise SaveError(f"the save's seed lies beyond ±{MAX_SEED} (2**63 - 1)")
    choices = data["choices"]
    if not isinstance(choices, list):
        raise SaveError(f"the save's choices are not a list (got {_kind(choices)})")
    if len(choices) > MAX_CHOICES:
        raise SaveError(f"the save has {len(choices)} choices, more than the limit of {MAX_CHOICES}")
    for i, k in enumerate(choices):
        if not isinstance(k, str):
            raise SaveError(f"choice {i} is not a key string (got {_kind(k)})")
    snap = data.get("snapshot")
    if snap is not None and not isinstance(snap, dict):
        raise SaveError(f"the save's snapshot is not an object (got {_kind(snap)})")
    pos = data.get("position")
    if pos is not None:
        if not isinstance(pos, dict) or set(pos) != {"text", "path"} or \
                not all(isinstance(v, str) for v in pos.values()):
            raise SaveError('the save\'s position is not {"text": string, "path": string}')
        if len(pos["text"]) > MAX_POSITION or len(pos["path"]) > 1000:
            raise SaveError(f"the save's position is longer than {MAX_POSITION} characters")


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def replay(rs: Ruleset, data: Any) -> list[Step]:
    """Every step of a saved game, replayed and checked; all or nothing (``SaveError``)."""
    _check(rs, data)
    game = data["game"]
    if data.get("position") is not None:
        state, events = _from_position(rs, data)
        return _replayed(rs, data, state, events)
    try:
        state, events = api.new_game(rs, killer=game["killer"], scenario=game["scenario"],
                                     final_girl=game["final_girl"], difficulty=game["difficulty"],
                                     legendary=game["legendary"], seed=data["seed"], tie_policy=game["tie_policy"],
                                     forced=game.get("forced", "auto"), modules=game.get("modules", ()))
    except SaveError:
        raise
    except RulesError as err:
        raise SaveError(f"the save's game cannot be set up with this content: {err}") from None
    return _replayed(rs, data, state, events)


def _from_position(rs: Ruleset, data: dict[str, Any]) -> tuple[GameState, list[Event]]:
    """The first state of a game started from a position (``Session.from_position``)."""
    from .position import start_position

    pos = data["position"]
    try:
        state, events = start_position(rs, pos["text"], pos["path"])
    except RulesError as err:
        raise SaveError(f"the save's position cannot be set up with this content: {err}") from None
    if state.game.ids != data["game"] or state.seed != data["seed"]:
        raise SaveError("the save's game and seed are not those of its position")
    return state, events


def _replayed(rs: Ruleset, data: dict[str, Any], state: GameState, events: list[Event]) -> list[Step]:
    """The steps of a save from its first state: each choice checked and applied."""
    steps = [Step(None, None, state, events)]
    for i, key in enumerate(data["choices"]):
        if state.over:
            raise SaveError(f"choice {i} ({key!r}) comes after the end of the game "
                            f"(the game ended after {i} choices)")
        choice = state.choice
        assert choice is not None
        label = next((o.label for o in choice.options if o.key == key), None)
        if label is None:
            shown = ", ".join(choice.keys()[:12]) + (", …" if len(choice.options) > 12 else "")
            raise SaveError(f"choice {i} ({key!r}) is not an option at that point "
                            f"({choice.prompt!r}, round {state.round}; options: {shown})")
        try:
            state, events = engine.apply(state, key)
        except RulesError as err:
            raise SaveError(f"choice {i} ({key!r}): the game stopped: {err}") from None
        steps.append(Step(key, label, state, events))
    snap = data.get("snapshot")
    if snap is not None:
        _match_snapshot(rs, state, snap)
    return steps


def _match_snapshot(rs: Ruleset, state: GameState, snap: dict[str, Any]) -> None:
    """The save's snapshot is loaded as any saved state is (``serialize.from_json``: strict types, the
    game's invariants, resumed from its checkpoint) and is the replayed state: one way in for a
    saved state, whichever door it comes by (docs/decisions/0022)."""
    mine = serialize.to_json(state)
    for k in ("format", "version", "content", "game"):
        if snap.get(k) != mine[k] or type(snap.get(k)) is not type(mine[k]):
            raise SaveError(f"the save's snapshot does not match its game ({k} differs)")
    theirs = snap.get("state")
    if not isinstance(theirs, dict):
        raise SaveError("the save's snapshot has no state")
    snap = _with_victims_in(snap, mine["state"])
    theirs, ours = snap["state"], mine["state"]
    if _text(theirs) != _text(ours):  # as JSON text: 0.0 is not false, nor 3.0 3 (Python's == says they are)
        diff = sorted(str(k)[:40] for k in set(theirs) | set(ours) if _text(theirs.get(k)) != _text(ours.get(k)))
        raise SaveError(f"replaying the saved choices does not reach the saved snapshot (it differs in "
                        f"{', '.join(diff[:6])}): the rules engine has changed since the save was made")
    try:
        serialize.from_json(rs, snap)
    except SaveError as err:  # (the replayed state's own save: only an engine that breaks its invariants)
        raise SaveError(f"the save's snapshot cannot be loaded: {err}") from None


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _with_victims_in(snap: dict[str, Any], mine: dict[str, Any]) -> dict[str, Any]:
    """A snapshot written before saves counted the victims in play (no ``victims_in``) takes the
    replayed game's count: the replay, not the snapshot, is the game here."""
    theirs = snap["state"]
    if "victims_in" in theirs or "victims_in" not in mine:
        return snap
    theirs = {**theirs, "victims_in": mine["victims_in"]}
    cp, mine_cp = theirs.get("checkpoint"), mine.get("checkpoint")
    if isinstance(cp, dict) and "victims_in" not in cp and isinstance(mine_cp, dict):
        theirs["checkpoint"] = {**cp, "victims_in": mine_cp.get("victims_in")}
    return {**snap, "state": theirs}


def load(rs: Ruleset, data: Any) -> tuple[GameState, list[Event]]:
    """The saved game's last state and its whole log (every event from the setup on, in order)."""
    steps = replay(rs, data)
    return steps[-1].state, [e for s in steps for e in s.events]


def dumps(data: dict[str, Any]) -> str:
    """A save as text (compact, one line, UTF-8 safe)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def write(path: str, data: dict[str, Any]) -> None:
    """Write a save atomically: a crash mid-write leaves the old file, never half a save."""
    import os
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".lastbreath-save-", dir=folder)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(dumps(data))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read(path: str) -> Any:
    """The JSON of a save file; ``SaveError`` when it is not JSON (truncated, corrupt, not UTF-8,
    larger than MAX_FILE, or with NaN, Infinity, 1e400 or an integer of more than 4 300 digits)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE + 1)
    except IsADirectoryError:
        raise SaveError(f"{path}: not a lastbreath save (a folder)") from None
    if len(raw) > MAX_FILE:
        raise SaveError(f"{path}: not a lastbreath save (larger than {MAX_FILE} bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveError(f"{path}: not a lastbreath save (not UTF-8 text)") from None
    try:
        return loads(text)
    except json.JSONDecodeError as err:
        raise SaveError(f"{path}: not a lastbreath save (truncated or corrupt JSON: {err})") from None
    except ValueError as err:  # NaN, 1e400, a 5 000-digit number
        raise SaveError(f"{path}: not a lastbreath save ({str(err)[:120]})") from None
    except RecursionError:
        raise SaveError(f"{path}: not a lastbreath save (JSON nested too deeply)") from None
