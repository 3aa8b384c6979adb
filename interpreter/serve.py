"""``lastbreath serve``: JSON-RPC 2.0 over stdin/stdout, one JSON message per line.

The protocol (methods, params, results, error codes) is documented in docs/protocol.md. The
server never dies on bad input: every malformed, oversized or illegal request gets a JSON-RPC
error object with a stable code and the server reads the next line; a notification (a request
without ``id``) is carried out and gets no reply, except one that would open a game (``game.new``,
``game.load``), which is ignored: nobody would hear of the game. Everything a client can make
grow is bounded: a message's size, a batch's length, a reply's size, the games open at once, the
numbers in params; what cannot be written as JSON text (NaN, Infinity, 1e400, a lone surrogate
such as ``"\\ud800"``) is refused when read, so that every reply is valid JSON in UTF-8.

In process::

    server = Server(load_ruleset())
    reply = server.handle_line('{"jsonrpc": "2.0", "id": 1, "method": "content.list"}')
"""

from __future__ import annotations

import difflib
import json
import math
import secrets
from typing import Any, BinaryIO, Callable, Optional, Union

from lastbreath.dsl import ContentError, IllegalChoice, RulesError, SaveError
from lastbreath.dsl.ruleset import Ruleset
from lastbreath.dsl.syntax import MAX_BYTES

from . import bots, display, engine, explain, serialize, visible
from .jsontext import loads, lone_surrogate
from .replay import MAX_FILE
from .session import Session
from .state import Event, GameState

# --- error codes (stable: clients match on them) ---------------------------------------------
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
ILLEGAL_OPTION = 1001
UNKNOWN_CONTENT = 1002
BAD_SAVE = 1003
UNKNOWN_GAME = 1004
TOO_LARGE = 1005
CANNOT_UNDO = 1006
TOO_MANY_GAMES = 1007
BATCH_TOO_LARGE = 1008
REPLY_TOO_LARGE = 1009
BAD_POSITION = 1010
GAME_STOPPED = 1011  # content went past a limit in play (E310–E313): the game stays as it was

MAX_MESSAGE = 1 << 20  # bytes in one message, its line ending not counted
MAX_GAMES = 100  # games open at once on one connection (a game with its history takes ~20 kB and up)
MAX_BATCH = 100  # requests in one batch
MAX_REPLY = 4 << 20  # bytes of the replies to one message (a game.state is ~10 kB)
MAX_SEED = (1 << 63) - 1  # a seed lies within ±MAX_SEED
MAX_PATH = 1000  # characters of game.position's path (each diagnostic repeats it)
MAX_MESSAGE_LIMIT = 16 << 20  # the most --max-message may allow: a message is parsed whole, in memory
MAX_BOT_MOVES = 20_000  # choices one game.bot may make (a game ends far sooner: the engine's own limit)

__all__ = [
    "BAD_POSITION",
    "BAD_SAVE",
    "BATCH_TOO_LARGE",
    "CANNOT_UNDO",
    "GAME_STOPPED",
    "ILLEGAL_OPTION",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_BATCH",
    "MAX_GAMES",
    "MAX_MESSAGE",
    "MAX_REPLY",
    "MAX_SEED",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "REPLY_TOO_LARGE",
    "TOO_LARGE",
    "TOO_MANY_GAMES",
    "UNKNOWN_CONTENT",
    "UNKNOWN_GAME",
    "RpcError",
    "Server",
    "check_params",
    "game_view",
    "public_state",
    "serve",
    "start_error",
]
CREATES_GAMES = ("game.new", "game.load")  # as notifications they are ignored: nobody would hear of the game


def _stopped(err: RulesError) -> RpcError:
    """A game that could not start: content that went past a limit in play (E310–E313, naming its
    line) stopped it, or the content asked for is not loaded."""
    code = getattr(err, "code", "")
    if code in ("E310", "E311", "E312", "E313"):
        return RpcError(GAME_STOPPED, str(err), {"code": code})
    return RpcError(UNKNOWN_CONTENT, str(err))


class RpcError(Exception):
    """A JSON-RPC error: code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


_NOTHING = object()




def module_rows(rs: Any) -> list[dict[str, Any]]:
    """The loaded modules as ``content.list`` and ``lastbreath content --json`` give them: id, name,
    pack, what it is (about) and what it changes, a line each."""
    from lastbreath.dsl.modules import summary

    return [{"id": m.id, "name": m.name, "pack": rs.pack("modules", m.id), "about": m.about,
             "changes": summary(m)} for m in (rs.modules[k] for k in sorted(rs.modules))]


def _type_name(t: Any) -> str:
    return {str: "a string", int: "an integer", bool: "a boolean", dict: "an object", list: "a list"}.get(t, str(t))


def _is(v: Any, t: Any) -> bool:
    if t is int:
        return type(v) is int
    if t is bool:
        return type(v) is bool
    if isinstance(t, tuple):
        return any(_is(v, x) for x in t)
    return isinstance(v, t)


def _params(params: Any, spec: dict[str, tuple[Any, bool]]) -> dict[str, Any]:
    """Check params by name against ``spec`` (name -> (type, required)); null counts as absent."""
    if params is _NOTHING:
        params = {}
    if isinstance(params, list) and not params:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object (by-name parameters)")
    unknown = [k for k in params if k not in spec]
    if unknown:
        k = unknown[0]
        close = difflib.get_close_matches(k, list(spec), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(spec) or 'none'})"
        raise RpcError(INVALID_PARAMS, f"unknown param '{k}'{hint}", {"param": k})
    out: dict[str, Any] = {}
    for name, (t, required) in spec.items():
        v = params.get(name)
        if v is None:
            if required:
                raise RpcError(INVALID_PARAMS, f"missing param '{name}'", {"param": name})
            continue
        if not _is(v, t):
            want = " or ".join(_type_name(x) for x in t) if isinstance(t, tuple) else _type_name(t)
            raise RpcError(INVALID_PARAMS, f"param '{name}' must be {want}", {"param": name})
        out[name] = v
    return out


# --- what a client sees ------------------------------------------------------------------------
def public_state(state: GameState) -> dict[str, Any]:
    """The state as JSON (``serialize.to_json(state)["state"]``) without what the player cannot see
    (visible.HIDDEN: face-down tokens and cards are null or counted) nor the replay bookkeeping
    (visible.BOOKKEEPING but the seed, which the client chose or was given)."""
    s = serialize.to_json(state)["state"]
    for k in (*(visible.BOOKKEEPING - {"seed", "dice"}), "checkpoint", "choice"):
        s.pop(k, None)
    if state.fg_breath == 2:
        s["fg_breath_value"] = None  # her black token is face down
    s["killers"] = [{**k, "breath_value": k["breath_value"] if k["breath"] != 2 else None} for k in s["killers"]]
    s["breath_bag"] = len(state.breath_bag)
    s["terror"] = len(state.terror)  # the terror deck: how many cards are left
    s["events"] = len(state.events)  # the event deck
    if not state.finale_revealed:
        s["finale"] = None
    if not state.dark_revealed:
        s["dark_power"] = None
    s["piles"] = [[c if up else None for c, up in pile] for pile in state.piles]
    if "supply" in s:  # content tokens face down on the table: how many
        s["supply"] = len(s["supply"])
    if "tokens_down" in s:  # face down on the board: their type and place, not their kind (issue #33 item 4)
        s["tokens_down"] = [[t, None, at] for t, _k, at in s["tokens_down"]]
    if "token_on" in s:  # on cards and pieces: a face-down one's kind is not seen
        s["token_on"] = [[h, t, k if up else None, up] for h, t, k, up in s["token_on"]]
    if "decks" in s:  # content decks: how many cards are left in each
        s["decks"] = {deck: len(cards) for deck, cards in s["decks"]}
    if "item_piles" in s:  # named item piles, face down: how many items are left in each
        s["item_piles"] = {pile: len(items) for pile, items in s["item_piles"]}
    if "marked" in s:  # a hidden kind not yet revealed: null
        s["marked"] = [{**j, "kind": None} if visible.hidden_kind(state, m) else j
                       for j, m in zip(s["marked"], state.marked)]
    return s


def _choice_json(state: GameState) -> Optional[dict[str, Any]]:
    c = state.choice
    if c is None:
        return None
    return {"kind": c.kind, "prompt": c.prompt, "options": [{"key": o.key, "label": o.label} for o in c.options]}


def _events_json(events: list[Event]) -> list[dict[str, Any]]:
    return [{"kind": e.kind, "text": e.text, "rule": e.rule, "source": e.source} for e in events]


def _at(p: dict[str, Any], s: Session) -> int:
    """The state a request looks at: ``at`` choices into the game (0: the first decision), or the
    current one; a negative ``at`` counts back from the current state (-1: the one before it)."""
    made = len(s.history) - 1
    at = p.get("at", made)
    if at < 0:
        at += made
    if not 0 <= at <= made:
        raise RpcError(INVALID_PARAMS, f"param 'at' must lie within 0..{made} (or -{made}..-1): the choices made",
                       {"param": "at"})
    return at


def _view(gid: str, s: Session) -> dict[str, Any]:
    st = s.state
    return {"game": gid, "over": st.over, "result": st.result or None, "end_reason": st.end_reason or None,
            "round": st.round, "phase": st.phase, "choices": len(s.history) - 1,
            "choice": _choice_json(st), "events": _events_json(s.events)}


# the names other protocol servers reuse (the web server's design methods, design.py)
check_params = _params
game_view = _view
start_error = _stopped


# --- the server -------------------------------------------------------------------------------
class Server:
    """The protocol's state: the ruleset and the open games by id."""

    def __init__(self, ruleset: Ruleset, max_message: int = MAX_MESSAGE, max_games: int = MAX_GAMES,
                 max_batch: int = MAX_BATCH, max_reply: int = MAX_REPLY) -> None:
        self.ruleset = ruleset
        self.max_message = max_message
        self.max_games = max_games
        self.max_batch = max_batch
        self.max_reply = max_reply
        self.games: dict[str, Session] = {}
        self._next = 1
        self.methods: dict[str, Callable[[Any], Any]] = {
            "content.list": self.content_list,
            "game.new": self.game_new,
            "game.position": self.game_position,
            "game.state": self.game_state,
            "game.apply": self.game_apply,
            "game.undo": self.game_undo,
            "game.save": self.game_save,
            "game.load": self.game_load,
            "game.explain": self.game_explain,
            "game.close": self.game_close,
            "game.board": self.game_board,
            "game.screen": self.game_screen,
            "game.bot": self.game_bot,
            "game.log": self.game_log,
        }

    # framing ------------------------------------------------------------------------------
    def handle_line(self, line: Union[str, bytes]) -> Optional[str]:
        """The reply (one line of JSON, without the newline) to one message, or None."""
        if isinstance(line, str):
            try:
                line = line.encode("utf-8")
            except UnicodeEncodeError:  # a str holding a lone surrogate: not text
                return self._dump(self._error(None, RpcError(PARSE_ERROR, "parse error: the message is not "
                                                             "Unicode text (it holds a lone surrogate)")))
        size = len(line)
        if size > self.max_message:
            return self._dump(self._error(None, RpcError(
                TOO_LARGE, f"message too large: {size} bytes (the limit is {self.max_message})",
                {"limit": self.max_message})))
        reply = self.handle_text(line)
        if reply is None:
            return None
        if isinstance(reply, list):
            reply = self._fit(reply)
        text = self._dump(reply)
        size = len(text.encode("utf-8"))
        if size > self.max_reply and isinstance(reply, dict):
            text = self._too_large(reply, size)
        return text

    def _too_large(self, reply: dict[str, Any], size: int) -> str:
        return self._dump(self._error(reply.get("id"), RpcError(
            REPLY_TOO_LARGE, f"the reply is too large: {size} bytes (the limit is {self.max_reply}); the request "
            f"was carried out", {"limit": self.max_reply})))

    def _fit(self, replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The replies to a batch within ``max_reply`` bytes in all: a reply that would go past it
        is replaced by error 1009 (its request was carried out all the same)."""
        out = []
        used = 2
        for r in replies:
            size = len(self._dump(r).encode("utf-8")) + 1
            if used + size > self.max_reply:
                r = self._error(r.get("id"), RpcError(
                    REPLY_TOO_LARGE, f"the replies to this batch are too large: this one ({size} bytes) goes past "
                    f"the limit of {self.max_reply} bytes for the batch; the request was carried out",
                    {"limit": self.max_reply}))
                size = len(self._dump(r).encode("utf-8")) + 1
            used += size
            out.append(r)
        return out

    def handle_text(self, line: Union[str, bytes]) -> Any:
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                return self._error(None, RpcError(PARSE_ERROR, "parse error: the message is not UTF-8"))
        if not line.strip():
            return None
        try:
            msg = loads(line)
        except (ValueError, RecursionError) as err:
            return self._error(None, RpcError(PARSE_ERROR, f"parse error: {str(err)[:200]}"))
        return self.handle(msg)

    @staticmethod
    def _dump(reply: Any) -> str:
        """A reply as one line of JSON; NaN and lone surrogates never reach here (refused when
        read), and if a bug let one through the reply is an internal error, still valid JSON."""
        try:
            text = json.dumps(reply, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            text.encode("utf-8")
            return text
        except (ValueError, TypeError, UnicodeEncodeError, RecursionError) as err:
            return json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                "code": INTERNAL_ERROR, "message": f"internal error: the reply cannot be written as JSON "
                f"({type(err).__name__})"}}, ensure_ascii=True)

    # dispatch -----------------------------------------------------------------------------
    def handle(self, msg: Any) -> Any:
        """The reply (a dict, a list for a batch, or None) to a decoded message."""
        if isinstance(msg, list):
            if not msg:
                return self._error(None, RpcError(INVALID_REQUEST, "invalid request: an empty batch"))
            if len(msg) > self.max_batch:
                return self._error(None, RpcError(
                    BATCH_TOO_LARGE, f"batch too large: {len(msg)} requests (the limit is {self.max_batch}); "
                    f"none was carried out", {"limit": self.max_batch}))
            out = [r for r in (self.handle_one(m) for m in msg) if r is not None]
            return out or None
        return self.handle_one(msg)

    def handle_one(self, msg: Any) -> Optional[dict[str, Any]]:
        if not isinstance(msg, dict):
            return self._error(None, RpcError(INVALID_REQUEST, "invalid request: not a JSON object"))
        rid = msg.get("id", _NOTHING)
        valid_id = rid is _NOTHING or rid is None or (isinstance(rid, str) and lone_surrogate(rid) is None) or (
            isinstance(rid, int) and not isinstance(rid, bool)) or (isinstance(rid, float) and math.isfinite(rid))
        echo = rid if valid_id and rid is not _NOTHING else None
        if not valid_id:
            return self._error(None, RpcError(INVALID_REQUEST, "invalid request: id must be a string, a number or "
                                              "null (a finite number; a string of Unicode text)"))
        bad = lone_surrogate(msg)
        if bad is not None:
            return self._error(echo, RpcError(INVALID_REQUEST, f"invalid request: {bad} holds a lone surrogate "
                                              "(such as \\ud800 without its pair), which is not Unicode text"))
        if msg.get("jsonrpc") != "2.0":
            return self._error(echo, RpcError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"'))
        method = msg.get("method")
        if not isinstance(method, str):
            return self._error(echo, RpcError(INVALID_REQUEST, 'invalid request: "method" must be a string'))
        params = msg.get("params", _NOTHING)
        if params is not _NOTHING and not isinstance(params, (dict, list)):
            return self._error(echo, RpcError(INVALID_REQUEST, 'invalid request: "params" must be an object or a list'))
        notification = rid is _NOTHING
        if notification and method in CREATES_GAMES:
            return None  # ignored: a game opened by a notification would be one nobody hears of
        try:
            fn = self.methods.get(method)
            if fn is None:
                close = difflib.get_close_matches(method, list(self.methods), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise RpcError(METHOD_NOT_FOUND, f"unknown method '{method}'{hint}", {"methods": sorted(self.methods)})
            result = fn(params)
        except RpcError as err:
            return None if notification else self._error(echo, err)
        except RulesError as err:  # content that went past a limit in play, naming its line: not a bug of ours
            return None if notification else self._error(
                echo, RpcError(GAME_STOPPED, str(err), {"code": getattr(err, "code", "E300")}))
        except Exception as err:
            return None if notification else self._error(
                echo, RpcError(INTERNAL_ERROR, f"internal error: {type(err).__name__}: {err}"))
        if notification:
            return None
        return {"jsonrpc": "2.0", "id": echo, "result": result}

    @staticmethod
    def _error(rid: Any, err: RpcError) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rid, "error": err.to_json()}

    def _game(self, p: dict[str, Any]) -> tuple[str, Session]:
        gid = p["game"]
        s = self.games.get(gid)
        if s is None:
            raise RpcError(UNKNOWN_GAME, f"unknown game id '{gid}'", {"game": gid})
        return gid, s

    def _room(self) -> None:
        """Refuse a new game when ``max_games`` are open already (error 1007)."""
        if len(self.games) >= self.max_games:
            raise RpcError(TOO_MANY_GAMES, f"too many open games: {len(self.games)} (the limit is {self.max_games}); "
                           f"close one with game.close", {"limit": self.max_games})

    def _add(self, s: Session) -> str:
        gid = f"g{self._next}"
        self._next += 1
        self.games[gid] = s
        return gid

    # methods ------------------------------------------------------------------------------
    def content_list(self, params: Any) -> dict[str, Any]:
        _params(params, {})
        rs = self.ruleset

        def rows(table: dict) -> list[dict[str, str]]:
            return [{"id": k, "name": table[k].name} for k in sorted(table)]

        sides = [s.id for s in rs.player_board().sides] if rs.player_boards else []
        return {"content": serialize.content_hash(rs), "killers": rows(rs.killers), "scenarios": rows(rs.scenarios),
                "final_girls": rows(rs.final_girls), "difficulties": sides, "tie_policies": list(engine.TIE_POLICIES),
                "modules": module_rows(rs)}

    def game_new(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"killer": (str, False), "scenario": (str, False), "final_girl": (str, False),
                             "difficulty": (str, False), "legendary": (bool, False), "seed": (int, False),
                             "tie_policy": (str, False), "forced": (str, False), "modules": (list, False)})
        tie = p.get("tie_policy", "harder")
        if tie not in engine.TIE_POLICIES:
            raise RpcError(INVALID_PARAMS, f"unknown tie_policy '{tie}' (one of {', '.join(engine.TIE_POLICIES)})",
                           {"param": "tie_policy"})
        forced = p.get("forced", "auto")
        if forced not in engine.FORCED_POLICIES:
            raise RpcError(INVALID_PARAMS, f"unknown forced '{forced}' (one of {', '.join(engine.FORCED_POLICIES)})",
                           {"param": "forced"})
        seed = p.get("seed")
        if seed is None:
            seed = secrets.randbelow(1_000_000)
        if not -MAX_SEED <= seed <= MAX_SEED:
            raise RpcError(INVALID_PARAMS, f"param 'seed' must lie within ±{MAX_SEED} (2**63 - 1)", {"param": "seed"})
        self._room()
        try:
            s = Session(self.ruleset, killer=p.get("killer"), scenario=p.get("scenario"),
                        final_girl=p.get("final_girl"), difficulty=p.get("difficulty", "normal"),
                        legendary=p.get("legendary", False), seed=seed, tie_policy=tie, forced=forced,
                        modules=p.get("modules", ()))
        except RulesError as err:
            raise _stopped(err) from None
        gid = self._add(s)
        return {**_view(gid, s), "seed": s.seed, "setup": s.options}

    def game_position(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"text": (str, True), "path": (str, False)})
        if len(p.get("path", "")) > MAX_PATH:  # each diagnostic names it: kept short
            raise RpcError(INVALID_PARAMS, f"param 'path' is longer than {MAX_PATH} characters", {"param": "path"})
        if len(p["text"]) > MAX_BYTES:
            raise RpcError(INVALID_PARAMS, f"param 'text' is longer than {MAX_BYTES} characters (a position file's "
                           "limit)", {"param": "text"})
        self._room()
        try:
            s = Session.from_position(self.ruleset, p["text"], p.get("path", "<position>"))
        except ContentError as err:
            raise RpcError(BAD_POSITION, str(err), {"diagnostics": [d.to_json() for d in err.diagnostics]}) from None
        except RulesError as err:
            raise _stopped(err) from None
        gid = self._add(s)
        return {**_view(gid, s), "seed": s.seed, "setup": s.options}

    def game_state(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "at": (int, False)})
        gid, s = self._game(p)
        at = _at(p, s)
        state = s.history[at][0]
        board = state.game.board
        out = {**_view(gid, s), "seed": s.seed, "setup": s.options, "state": public_state(state),
               "locations": [{"id": i, "name": nm} for i, nm in zip(board.ids, board.names)]}
        if "at" in p:
            out["at"] = at
        return out

    def game_apply(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "key": (str, True)})
        gid, s = self._game(p)
        try:
            s.apply(p["key"])
        except IllegalChoice as err:
            raise RpcError(ILLEGAL_OPTION, str(err),
                           {"key": p["key"], "options": s.choice.keys() if s.choice else []}) from None
        return _view(gid, s)

    def game_undo(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "n": (int, False)})
        gid, s = self._game(p)
        n = p.get("n", 1)
        if n < 1:
            raise RpcError(INVALID_PARAMS, "param 'n' must be at least 1", {"param": "n"})
        try:
            s.undo(n)
        except ValueError as err:
            raise RpcError(CANNOT_UNDO, str(err), {"choices": len(s.history) - 1}) from None
        return _view(gid, s)

    def game_save(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "snapshot": (bool, False)})
        gid, s = self._game(p)
        return {"game": gid, "save": s.save(snapshot=p.get("snapshot", True))}

    def game_load(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"save": ((dict, str), True)})
        data = p["save"]
        self._room()
        if isinstance(data, str):
            if len(data) > MAX_FILE:  # (a save file's limit, before the text is parsed)
                raise RpcError(BAD_SAVE, f"not a lastbreath save (longer than {MAX_FILE} characters, a save "
                               "file's limit)")
            try:
                data = loads(data)
            except (ValueError, RecursionError) as err:
                raise RpcError(BAD_SAVE, f"not a lastbreath save (truncated or corrupt JSON: {str(err)[:200]})") \
                    from None
            bad = lone_surrogate(data)
            if bad is not None:
                raise RpcError(BAD_SAVE, f"not a lastbreath save: {bad} holds a lone surrogate, which is not text")
        try:
            s = Session.load(self.ruleset, data)
        except SaveError as err:
            raise RpcError(BAD_SAVE, str(err)) from None
        gid = self._add(s)
        return {**_view(gid, s), "seed": s.seed, "setup": s.options}

    def game_explain(self, params: Any) -> dict[str, Any]:
        gid, s = self._game(_params(params, {"game": (str, True)}))
        return {"game": gid, **s.explain()}

    def game_board(self, params: Any) -> dict[str, Any]:
        gid, s = self._game(_params(params, {"game": (str, True)}))
        return {"game": gid, **display.board_json(s.state.game)}

    def game_screen(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "at": (int, False)})
        gid, s = self._game(p)
        at = _at(p, s)
        state = s.history[at][0]
        before = s.history[at - 1][0] if at > 0 else None
        return {"game": gid, "at": at, "choices": len(s.history) - 1, "key": s.history[at][1],
                "choice": _choice_json(state), **display.screen_json(state, before, s._events[at])}

    def game_bot(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "policy": (str, False), "n": (int, False), "seed": (int, False)})
        gid, s = self._game(p)
        name = p.get("policy", "random")
        if name not in bots.BOTS:
            raise RpcError(INVALID_PARAMS, f"unknown policy '{name}' (one of {', '.join(bots.BOTS)})",
                           {"param": "policy"})
        n = p.get("n", 1)
        if not 1 <= n <= MAX_BOT_MOVES:
            raise RpcError(INVALID_PARAMS, f"param 'n' must lie within 1..{MAX_BOT_MOVES}", {"param": "n"})
        seed = p.get("seed", len(s.history) + s.seed)
        if not -MAX_SEED <= seed <= MAX_SEED:
            raise RpcError(INVALID_PARAMS, f"param 'seed' must lie within ±{MAX_SEED} (2**63 - 1)", {"param": "seed"})
        policy = bots.BOTS[name](seed)
        made = 0
        while made < n and s.choice is not None and not s.over:
            s.apply(policy(s.state, s.choice))
            made += 1
        return {**_view(gid, s), "moved": made}

    def game_log(self, params: Any) -> dict[str, Any]:
        p = _params(params, {"game": (str, True), "since": (int, False)})
        gid, s = self._game(p)
        since = p.get("since", 0)
        if since < 0:
            raise RpcError(INVALID_PARAMS, "param 'since' must be at least 0", {"param": "since"})
        out = []
        for i in range(min(since, len(s.history)), len(s.history)):
            for e in s._events[i]:
                out.append({"choice": i, "kind": e.kind, "text": e.text, "rule": e.rule, "source": e.source,
                            "where": explain.short_source(e.source)})
        return {"game": gid, "choices": len(s.history) - 1, "since": since,
                "keys": [k for _, k in s.history[since + 1:]], "events": out}

    def game_close(self, params: Any) -> dict[str, Any]:
        gid, _ = self._game(_params(params, {"game": (str, True)}))
        del self.games[gid]
        return {"game": gid, "closed": True}


# --- the loop ---------------------------------------------------------------------------------
def read_message(inp: BinaryIO, limit: int) -> Optional[tuple[bytes, int]]:
    """The next line (without its ending) and its size; an oversized line is read to its end and
    returned empty with its size. None at the end of input."""
    chunk = inp.readline(limit + 1)
    if not chunk:
        return None
    if chunk.endswith(b"\n") or len(chunk) <= limit:
        body = chunk.rstrip(b"\r\n")
        return body, len(body)
    size = len(chunk)
    while True:  # too large: skip the rest of the line without keeping it
        more = inp.readline(1 << 16)
        if not more:
            break
        size += len(more)
        if more.endswith(b"\n"):
            size -= 1
            break
    return b"", size


def serve(ruleset: Ruleset, inp: BinaryIO, out: BinaryIO, max_message: int = MAX_MESSAGE,
          max_games: int = MAX_GAMES) -> int:
    """Answer messages from ``inp`` on ``out`` until the end of input; returns the exit code 0."""
    server = Server(ruleset, max_message, max_games)
    while True:
        got = read_message(inp, max_message)
        if got is None:
            return 0
        body, size = got
        if size > max_message:
            reply: Optional[str] = server._dump(server._error(None, RpcError(
                TOO_LARGE, f"message too large: {size} bytes (the limit is {max_message})", {"limit": max_message})))
        else:
            try:
                reply = server.handle_line(body)
            except Exception as err:  # last line of defence: never die on input
                reply = server._dump(server._error(None, RpcError(INTERNAL_ERROR, f"internal error: "
                                                                  f"{type(err).__name__}")))
        if reply is not None:
            out.write(reply.encode("utf-8") + b"\n")
            out.flush()
