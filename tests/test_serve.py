"""`lastbreath serve`: JSON-RPC 2.0 over stdin/stdout, in process and as a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lastbreath.interpreter import serve as rpc
from lastbreath.interpreter.serve import Server, serve


def req(method: str, params=None, id=1) -> str:
    msg = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg)


@pytest.fixture()
def server(rs):
    return Server(rs)


def call(server: Server, method: str, params=None, id=1) -> dict:
    reply = json.loads(server.handle_line(req(method, params, id)))
    assert reply["jsonrpc"] == "2.0" and reply["id"] == id
    assert ("result" in reply) != ("error" in reply)
    return reply


def ok(server: Server, method: str, params=None) -> dict:
    reply = call(server, method, params)
    assert "result" in reply, reply
    return reply["result"]


def err(server: Server, method: str, params=None) -> dict:
    reply = call(server, method, params)
    assert "error" in reply, reply
    e = reply["error"]
    assert isinstance(e["code"], int) and isinstance(e["message"], str) and e["message"]
    return e


def still_serving(server: Server) -> None:
    assert ok(server, "content.list")["killers"]


def test_content_list(server):
    got = ok(server, "content.list")
    assert {"id": "big-bad-wolf", "name": "The Big Bad Wolf"} in got["killers"]
    assert "storybook-woods" in [s["id"] for s in got["scenarios"]]
    assert got["difficulties"] and got["tie_policies"] and len(got["content"]) == 16


def test_a_whole_game(server):
    g = ok(server, "game.new", {"seed": 3, "difficulty": "normal", "legendary": False, "tie_policy": "harder",
                                "killer": "big-bad-wolf", "scenario": "storybook-woods"})
    gid = g["game"]
    assert g["seed"] == 3 and g["setup"]["killer"] == "big-bad-wolf" and g["choice"]["options"]
    assert g["events"][0]["kind"] == "setup"
    view = g
    n = 0
    while not view["over"]:
        key = view["choice"]["options"][n % len(view["choice"]["options"])]["key"]
        view = ok(server, "game.apply", {"game": gid, "key": key})
        n += 1
    assert view["result"] in ("fg", "killer") and view["choice"] is None and view["choices"] == n
    st = ok(server, "game.state", {"game": gid})
    assert st["over"] and st["state"]["result"] == view["result"] and st["locations"]
    assert ok(server, "game.close", {"game": gid}) == {"game": gid, "closed": True}
    assert err(server, "game.state", {"game": gid})["code"] == rpc.UNKNOWN_GAME


def test_state_hides_face_down_information(server):
    gid = ok(server, "game.new", {"seed": 1})["game"]
    st = ok(server, "game.state", {"game": gid})["state"]
    assert st["fg_breath_value"] is None and st["killers"][0]["breath_value"] is None
    assert isinstance(st["terror"], int) and isinstance(st["breath_bag"], int) and st["finale"] is None
    assert "checkpoint" not in st and "answers" not in st
    assert any(None in pile for pile in st["piles"])


def test_illegal_option_leaves_the_game_as_it_was(server):
    g = ok(server, "game.new", {"seed": 2})
    e = err(server, "game.apply", {"game": g["game"], "key": "no-such-option"})
    assert e["code"] == rpc.ILLEGAL_OPTION and e["data"]["options"] == [o["key"] for o in g["choice"]["options"]]
    st = ok(server, "game.state", {"game": g["game"]})
    assert st["choices"] == 0 and st["choice"] == g["choice"]


def test_undo_save_load_explain(server):
    g = ok(server, "game.new", {"seed": 5})
    gid = g["game"]
    assert err(server, "game.undo", {"game": gid})["code"] == rpc.CANNOT_UNDO
    view = g
    for _ in range(12):
        if view["over"]:
            break
        view = ok(server, "game.apply", {"game": gid, "key": view["choice"]["options"][-1]["key"]})
    before = ok(server, "game.state", {"game": gid})
    undone = ok(server, "game.undo", {"game": gid, "n": 2})
    assert undone["choices"] == before["choices"] - 2
    assert err(server, "game.undo", {"game": gid, "n": 0})["code"] == rpc.INVALID_PARAMS
    save = ok(server, "game.save", {"game": gid})["save"]
    assert save["format"] == "lastbreath-save" and len(save["choices"]) == undone["choices"]
    loaded = ok(server, "game.load", {"save": save})
    assert loaded["game"] != gid and loaded["choices"] == undone["choices"] and loaded["choice"] == undone["choice"]
    again = ok(server, "game.load", {"save": json.dumps(save)})  # a save as text works too
    assert again["choices"] == undone["choices"]
    ok(server, "game.undo", {"game": loaded["game"]})  # history survives the load
    x = ok(server, "game.explain", {"game": gid})
    assert x["game"] == gid and x["choices"] == undone["choices"]
    assert all({"kind", "text", "rule", "source", "where", "data"} <= set(e) for e in x["events"])
    assert x["target"] is None or x["target"]["decided_by"] in ("nearest", "victim-count", "tie-policy")


def test_stale_and_truncated_saves(server, rs):
    gid = ok(server, "game.new", {"seed": 6})["game"]
    save = ok(server, "game.save", {"game": gid})["save"]
    stale = {**save, "content": "0123456789abcdef"}
    e = err(server, "game.load", {"save": stale})
    assert e["code"] == rpc.BAD_SAVE and "made with content hash 0123456789abcdef" in e["message"]
    text = json.dumps(save)
    e = err(server, "game.load", {"save": text[: len(text) // 2]})
    assert e["code"] == rpc.BAD_SAVE and "truncated or corrupt" in e["message"]
    partial = {k: v for k, v in save.items() if k != "choices"}
    assert err(server, "game.load", {"save": partial})["code"] == rpc.BAD_SAVE
    still_serving(server)


def test_protocol_errors(server):
    def raw(line):
        return json.loads(server.handle_line(line))

    r = raw('{"jsonrpc": "2.0", "id": 1, "method": ')
    assert r["error"]["code"] == rpc.PARSE_ERROR and r["id"] is None
    assert raw("\xff not json")["error"]["code"] == rpc.PARSE_ERROR
    assert raw(b"\xff\xfe")["error"]["code"] == rpc.PARSE_ERROR
    assert raw("[" * 100000)["error"]["code"] == rpc.PARSE_ERROR
    for bad in ('"hello"', "3", "[]", "[1]", '{"id": 4, "method": "content.list"}',
                '{"jsonrpc": "2.0", "id": 5, "method": 7}', '{"jsonrpc": "2.0", "id": {}, "method": "content.list"}',
                '{"jsonrpc": "2.0", "id": 6, "method": "content.list", "params": 3}'):
        r = raw(bad)
        r = r[0] if isinstance(r, list) else r
        assert r["error"]["code"] == rpc.INVALID_REQUEST, bad
    assert raw('{"jsonrpc": "2.0", "id": 5, "method": 7}')["id"] == 5  # the id is echoed when it can be
    e = err(server, "game.neww")
    assert e["code"] == rpc.METHOD_NOT_FOUND and "game.new" in e["message"]
    assert err(server, "game.new", {"seed": "x"})["code"] == rpc.INVALID_PARAMS
    assert err(server, "game.new", {"seed": True})["code"] == rpc.INVALID_PARAMS
    e = err(server, "game.new", {"finalgirl": "nell-arden"})
    assert e["code"] == rpc.INVALID_PARAMS and "final_girl" in e["message"]
    assert err(server, "game.new", [3])["code"] == rpc.INVALID_PARAMS
    assert err(server, "game.new", {"tie_policy": "coin"})["code"] == rpc.INVALID_PARAMS
    e = err(server, "game.new", {"killer": "big-bad-wolfe"})
    assert e["code"] == rpc.UNKNOWN_CONTENT and "big-bad-wolf" in e["message"]
    assert err(server, "game.new", {"difficulty": "nightmare"})["code"] == rpc.UNKNOWN_CONTENT
    assert err(server, "game.apply", {"game": "g999", "key": "end"})["code"] == rpc.UNKNOWN_GAME
    assert err(server, "game.apply", {"game": "g999"})["code"] == rpc.INVALID_PARAMS
    r = raw('{"jsonrpc": "2.0", "id": "x", "method": "content.list", "extra": 1}')  # unknown envelope fields: ignored
    assert r["id"] == "x" and "result" in r
    big = json.loads(server.handle_line(req("content.list", {"pad": "x" * (rpc.MAX_MESSAGE + 1)})))
    assert big["error"]["code"] == rpc.TOO_LARGE and big["id"] is None
    assert server.handle_line("") is None and server.handle_line("   ") is None
    still_serving(server)


def test_notifications_get_no_reply_but_are_carried_out(server):
    gid = ok(server, "game.new", {"seed": 7})["game"]
    key = ok(server, "game.state", {"game": gid})["choice"]["options"][0]["key"]
    assert server.handle_line(json.dumps({"jsonrpc": "2.0", "method": "game.apply",
                                          "params": {"game": gid, "key": key}})) is None
    assert ok(server, "game.state", {"game": gid})["choices"] == 1
    assert server.handle_line(json.dumps({"jsonrpc": "2.0", "method": "no.such"})) is None
    assert server.handle_line(json.dumps({"jsonrpc": "2.0", "method": "game.apply", "params": {"game": 1}})) is None


def test_batches(server):
    out = json.loads(server.handle_line("[" + ",".join([
        req("content.list", id=1), json.dumps({"jsonrpc": "2.0", "method": "content.list"}),
        req("nope", id=2)]) + "]"))
    assert [r["id"] for r in out] == [1, 2] and "result" in out[0] and out[1]["error"]["code"] == rpc.METHOD_NOT_FOUND
    assert server.handle_line(json.dumps([{"jsonrpc": "2.0", "method": "content.list"}])) is None


def test_the_stream_loop_skips_a_5_mb_line_and_goes_on(rs):
    huge = req("content.list", {"pad": "x" * (5 << 20)}, id=2)
    lines = [req("content.list", id=1), huge, "{oops", req("game.new", {"seed": 1}, id=3),
             json.dumps({"jsonrpc": "2.0", "method": "content.list"}), req("content.list", id=4)]
    inp = io.BytesIO(("\r\n".join(lines[:2]) + "\n" + "\n".join(lines[2:])).encode("utf-8"))  # last: no newline
    out = io.BytesIO()
    assert serve(rs, inp, out) == 0
    replies = [json.loads(x) for x in out.getvalue().decode("utf-8").splitlines()]
    assert [r.get("id") for r in replies] == [1, None, None, 3, 4]
    assert replies[1]["error"]["code"] == rpc.TOO_LARGE and replies[2]["error"]["code"] == rpc.PARSE_ERROR
    assert "result" in replies[3] and "result" in replies[4]


def _command() -> list[str]:
    exe = Path(sys.executable).with_name("lastbreath")
    return [str(exe), "serve"] if exe.exists() else [sys.executable, "-m", "lastbreath.interpreter", "serve"]


def test_subprocess_serves_through_bad_input():
    proc = subprocess.Popen(_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(line: str) -> None:
        proc.stdin.write(line.encode("utf-8") + b"\n")
        proc.stdin.flush()

    def recv() -> dict:
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode()
        return json.loads(line)

    try:
        send('{"jsonrpc": "2.0", "id": 1, "method": ')
        assert recv()["error"]["code"] == rpc.PARSE_ERROR
        send(req("content.list", id=2))
        assert recv()["id"] == 2
        send(req("no.such.method", id=3))
        assert recv()["error"]["code"] == rpc.METHOD_NOT_FOUND
        send(req("game.new", {"seed": 4}, id=4))
        g = recv()["result"]
        send(req("game.apply", {"game": g["game"], "key": "nope"}, id=5))
        r = recv()
        assert r["id"] == 5 and r["error"]["code"] == rpc.ILLEGAL_OPTION
        send(req("game.save", {"game": g["game"]}, id=6))
        save = recv()["result"]["save"]
        send(req("game.load", {"save": {**save, "content": "ffffffffffffffff"}}, id=7))
        r = recv()
        assert r["error"]["code"] == rpc.BAD_SAVE and "content hash" in r["error"]["message"]
        send(req("game.load", {"save": json.dumps(save)[:40]}, id=8))
        assert recv()["error"]["code"] == rpc.BAD_SAVE
        send(req("content.list", {"pad": "y" * (5 << 20)}, id=9))
        r = recv()
        assert r["error"]["code"] == rpc.TOO_LARGE and r["id"] is None
        send(json.dumps({"jsonrpc": "2.0", "method": "content.list"}))  # a notification: no reply
        key = g["choice"]["options"][0]["key"]
        send(req("game.apply", {"game": g["game"], "key": key}, id=10))
        r = recv()
        assert r["id"] == 10 and r["result"]["choices"] == 1
    finally:
        proc.stdin.close()
        code = proc.wait(timeout=120)  # a hang guard
        rest = proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()
    assert code == 0 and rest == b""


# --- what a graphical front end needs (issue #39): the map, the screen, bots, the log, past states ---
def test_game_board_gives_every_location_with_a_position_and_every_path(server, rs):
    for scenario in sorted(rs.scenarios):
        g = ok(server, "game.new", {"seed": 1, "scenario": scenario})["game"]
        b = ok(server, "game.board", {"game": g})
        sc = rs.scenarios[scenario]
        assert b["scenario"]["id"] == scenario and b["layout"] in ("content", "computed")
        assert [loc["id"] for loc in b["locations"]] == [loc.id for loc in sc.locations]
        assert all(0 <= loc["x"] <= 1 and 0 <= loc["y"] <= 1 for loc in b["locations"])
        assert len({(loc["x"], loc["y"]) for loc in b["locations"]}) == len(b["locations"])  # no two on one spot
        assert len(b["paths"]) == len(sc.paths)
        for p, decl in zip(b["paths"], sc.paths):
            assert (p["a"], p["b"], p["a_panic"], p["b_panic"], p["closed"]) == (
                decl.a, decl.b, list(decl.a_panic), list(decl.b_panic), decl.closed)
            assert p["tags"] == sorted(decl.tags)
        assert [loc["exit"] for loc in b["locations"]] == [loc.exit for loc in sc.locations]
        assert [loc["search"] for loc in b["locations"]] == [loc.search for loc in sc.locations]
        assert ok(server, "game.board", {"game": g}) == b  # the same every time (a deterministic layout)


def test_game_screen_shows_what_the_terminal_screen_shows(server):
    from lastbreath.interpreter import screen

    g = ok(server, "game.new", {"seed": 7})["game"]
    sc = ok(server, "game.screen", {"game": g})
    s = server.games[g]
    assert sc["lines"] == screen.tracks_lines(s.state)  # the terminal's track lines, every one
    assert [r["text"] for r in sc["locations"]] == [r.here for r in screen.map_rows(s.state)]
    assert [c["name"] for c in sc["hand"]] == [name for name, _k, _t in screen.hand_rows(s.state)]
    assert all(c["text"] for c in sc["hand"])  # each card's text, rendered from its content
    assert sc["market"] and all(c["text"] for c in sc["market"])
    assert sc["fg"]["location"] in [r["id"] for r in sc["locations"]]
    assert sc["choice"]["options"] and sc["at"] == 0 and sc["choices"] == 0
    assert len(sc["fear"]["dice"]) == sc["fear"]["max"] + 1
    moves = [o["key"] for o in sc["choice"]["options"] if o["key"].startswith("move:")]
    assert all(k in sum(sc["at_location"].values(), []) for k in moves)


def test_game_screen_gives_the_killer_phase_with_its_target_why_and_path(server):
    g = ok(server, "game.new", {"seed": 7})["game"]
    for _ in range(300):
        sc = ok(server, "game.screen", {"game": g})
        notes = [s for s in sc["steps"] if s["note"]]
        if notes:
            break
        ok(server, "game.bot", {"game": g})
    assert notes, "no Killer phase reached"
    assert notes[0]["note"][0].startswith("targeting [C9.")
    assert any(e["rule"] for s in sc["steps"] for e in s["events"])
    if notes[0]["path"]:
        ids = [loc["id"] for loc in ok(server, "game.board", {"game": g})["locations"]]
        assert all(p in ids for p in notes[0]["path"])


def test_game_bot_plays_and_past_states_can_be_looked_at(server):
    g = ok(server, "game.new", {"seed": 3})["game"]
    v = ok(server, "game.bot", {"game": g, "n": 3, "policy": "greedy"})
    assert v["moved"] == 3 and v["choices"] == 3
    first = ok(server, "game.screen", {"game": g, "at": 0})
    assert first["at"] == 0 and first["key"] is None and first["choices"] == 3
    assert ok(server, "game.screen", {"game": g, "at": -1})["at"] == 2
    assert ok(server, "game.state", {"game": g, "at": 1})["at"] == 1
    assert err(server, "game.screen", {"game": g, "at": 4})["code"] == rpc.INVALID_PARAMS
    assert err(server, "game.bot", {"game": g, "policy": "nope"})["data"] == {"param": "policy"}
    assert err(server, "game.bot", {"game": g, "n": 0})["code"] == rpc.INVALID_PARAMS
    end = ok(server, "game.bot", {"game": g, "n": 20000})
    assert end["over"] and end["choice"] is None
    assert ok(server, "game.bot", {"game": g})["moved"] == 0  # over: nothing to do, no error
    log = ok(server, "game.log", {"game": g})
    assert log["choices"] == end["choices"] and len(log["keys"]) == end["choices"]
    assert {e["choice"] for e in log["events"]} <= set(range(end["choices"] + 1))
    tail = ok(server, "game.log", {"game": g, "since": end["choices"]})
    assert tail["keys"] == [] and all(e["choice"] == end["choices"] for e in tail["events"])
    assert err(server, "game.log", {"game": g, "since": -1})["code"] == rpc.INVALID_PARAMS
    for method in ("game.board", "game.screen", "game.bot", "game.log"):
        assert err(server, method, {"game": "g999"})["code"] == rpc.UNKNOWN_GAME
    still_serving(server)


def test_game_bot_is_the_same_game_for_the_same_seed(rs):
    a, b = Server(rs), Server(rs)
    for s in (a, b):
        ok(s, "game.new", {"seed": 5})
        ok(s, "game.bot", {"game": "g1", "n": 40, "seed": 9})
    assert ok(a, "game.save", {"game": "g1"}) == ok(b, "game.save", {"game": "g1"})
