"""Hostile input: the corpus of attacks found on content, saves and protocol messages (issue 14).

Each case was found to crash, hang or exhaust memory; each test here failed before its fix. The
Hypothesis mutation suite (tests/test_hostile_fuzz.py) keeps looking for new ones, and the
engine-side cases that wait for the engine package are in tests/test_hostile_engine.py.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lastbreath.dsl import bundled_paths, load_content, parse_text
from lastbreath.dsl import build as build_module
from lastbreath.dsl import limits
from lastbreath.dsl.diagnostics import MAX_REPORTED
from lastbreath.dsl.syntax import MAX_TOKENS
from lastbreath.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.usefixtures("bundled_parse_cache")


def _lastbreath() -> list[str]:
    exe = Path(sys.executable).with_name("lastbreath")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "lastbreath.interpreter"]


def check_text(tmp_path: Path, text: str, name: str = "hostile.fg"):
    """Check a fan file with the bundled content: (ruleset or None, diagnostics of that file)."""
    folder = tmp_path / "pack"
    folder.mkdir(exist_ok=True)
    f = folder / name
    f.write_text(text, encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), folder])
    return rs, [d for d in diags if d.span.path == str(f)]


CARD = 'card hostile-card {{\n  name "Hostile"\n  cost 1\n{extra}  fail {{ {effect} }}\n}}\n'


def card(effect: str = "lose 1 time", extra: str = "") -> str:
    return CARD.format(effect=effect, extra=extra)


# --- case 1: numbers longer than Python converts ------------------------------------------------
@pytest.mark.parametrize("where", ["cost {n}", "copies {n}", "fail {{ lose {n} time }}"])
def test_a_5000_digit_number_in_content_is_a_diagnostic_not_a_crash(tmp_path, where):
    text = 'card big {\n  name "Big"\n  ' + where.format(n="9" * 5000) + "\n  success { lose 1 time }\n}\n"
    if not where.startswith("cost"):
        text = text.replace('name "Big"', 'name "Big"\n  cost 1')
    rs, diags = check_text(tmp_path, text)
    assert rs is None and [d.code for d in diags] == ["E209"]
    assert "5000 digits" in diags[0].message and str(limits.MAX_NUMBER) in diags[0].message
    assert len(diags[0].message) < 200  # the number is not echoed whole


def test_a_5000_digit_number_exits_1_from_check_not_70(tmp_path, capsys):
    f = tmp_path / "big.fg"
    f.write_text(card(f"lose {'1' * 5000} time"), encoding="utf-8")
    assert main(["check", str(f)]) == 1
    out = capsys.readouterr()
    assert "error[E209]" in out.out + out.err


@pytest.mark.parametrize(("raw", "ok"), [("999999", True), ("-999999", True), ("1000000", False),
                                         ("+0000000001", True), ("0" * 5000 + "1", True),
                                         ("-" + "0" * 5000 + "1000000", False)])
def test_the_parser_bounds_every_number(raw, ok):
    _lines, diags = parse_text(f"x {raw}\n")
    assert (diags == []) == ok, diags


# --- case 2: content that checks clean but plays for ever or takes gigabytes --------------------
MINION = 'minion hostile-minion {{ name "Hostile Minion"; health 1; move 1; damage 1; limit {limit} }}\n'


@pytest.mark.parametrize(("effect", "extra", "needle"), [
    pytest.param("lower fear 1000000000", "", "-999999 and 999999", id="lower-fear-1e9"),
    pytest.param("lower fear 101", "", "above the limit of 100", id="lower-fear-101"),
    pytest.param("raise fear 5000", "", "above the limit of 100", id="raise-fear-5000"),
    pytest.param("repeat 50 { lose 1 time }", "", "repeat 50 is above the limit of 20", id="repeat-50"),
    pytest.param("repeat 10 { repeat 10 { repeat 2 { lose 1 time } } }", "", "200 times, above the limit of 100",
                 id="repeat-nested"),
    pytest.param("repeat 5 { repeat 5 { repeat 5 { repeat 5 { repeat 5 { lose 1 time } } } } }", "",
                 "above the limit of 100", id="repeat-5-deep"),
    pytest.param("lose 1 time", "  copies 100000000\n", "-999999 and 999999", id="copies-1e8"),
    pytest.param("lose 1 time", "  copies 9223372036854775808\n", "19 digits", id="copies-2**63"),
    pytest.param("lose 1 time", "  copies 21\n", "copies 21 is above the limit of 20", id="copies-21"),
    pytest.param("lose 1 time", "  dice 11\n", "dice 11 is above the limit of 10", id="card-dice-11"),
])
def test_costly_numbers_in_effects_and_cards_are_refused_naming_the_limit(tmp_path, effect, extra, needle):
    rs, diags = check_text(tmp_path, card(effect, extra))
    assert rs is None and {d.code for d in diags} == {"E209"}, [(d.code, d.message) for d in diags]
    assert any(needle in d.message for d in diags), [d.message for d in diags]


def test_repeats_within_the_limits_and_a_computed_count_inside_a_small_repeat_are_fine(tmp_path):
    rs, diags = check_text(tmp_path, card("repeat 20 { repeat 5 { lose 1 time } }; "
                                          "repeat 2 { repeat that { heal 1 } }"))
    assert diags == [] and rs is not None
    _rs, diags = check_text(tmp_path, card("repeat 3 { repeat that { heal 1 } }"))
    assert [d.code for d in diags] == ["E209"] and "150 times" in diags[0].message


def _killer(body: str) -> str:
    return ('killer hostile-killer {\n  name "Hostile Killer"\n  health 5\n  fear 1\n'
            '  bloodlust { level move 1 damage 1 }\n'
            '  finale hostile-finale { name "F"; back { killer hunts fg moves 1 attacks 1 }; '
            'face { killer hunts fg moves 1 attacks 1 } }\n'
            '  dark_power hostile-power { name "D" }\n' + body + "}\n")


@pytest.mark.parametrize(("body", "needle"), [
    pytest.param('  minion hostile-minion { name "M"; health 1; move 1; damage 1; limit 100000000 }\n'
                 '  terror hostile-terror { name "T"; effect { spawn 100000000 hostile-minion at killer-location } }\n',
                 "-999999 and 999999", id="spawn-1e8-limit-1e8"),
    pytest.param('  minion hostile-minion { name "M"; health 1; move 1; damage 1; limit 101 }\n',
                 "limit 101 is above the limit of 100", id="minion-limit-101"),
    pytest.param('  minion hostile-minion { name "M"; health 101; move 1; damage 1; limit 1 }\n',
                 "health 101 is above the limit of 100", id="minion-health-101"),
    pytest.param('  token hostile-token { name "T"; kinds a b; supply a 2147483648 b 1 }\n',
                 "-999999 and 999999", id="supply-2**31"),
    pytest.param('  token hostile-token { name "T"; kinds a b; supply a 101 b 1 }\n',
                 "a supply of 101 is above the limit of 100", id="supply-101"),
    pytest.param('  terror hostile-terror { name "T"; effect { lower fear 1000 } }\n',
                 "above the limit of 100", id="terror-lower-fear-1000"),
    pytest.param('  rule dice 50\n', "above the limit of 10", id="dice-rule-50"),
])
def test_costly_numbers_in_a_killer_are_refused_naming_the_limit(tmp_path, body, needle):
    rs, diags = check_text(tmp_path, _killer(body))
    assert rs is None and {d.code for d in diags} == {"E209"}, [(d.code, d.message) for d in diags]
    assert any(needle in d.message for d in diags), [d.message for d in diags]


def test_the_limits_table_of_the_language_reference_is_the_code():
    text = (ROOT / "dsl" / "LANGUAGE.md").read_text(encoding="utf-8")
    section = text.split("## 9. Limits", 1)[1]
    rows = re.findall(r"^\| (.+?) \| (-?[\d ]+) \| (-?[\d ]+) \|$", section, re.M)
    table = {what: (int(lo.replace(" ", "")), int(hi.replace(" ", ""))) for what, lo, hi in rows}
    assert table == limits.SLOTS


# --- case 3: files that keep the checker busy -----------------------------------------------------
def test_12000_unknown_effect_lines_compute_suggestions_only_for_the_diagnostics_shown(tmp_path, monkeypatch):
    calls = []
    best = build_module.Builder._best
    monkeypatch.setattr(build_module.Builder, "_best", lambda self, *a: calls.append(1) or best(self, *a))
    lines = [f"    frobnicate {i % 90} widgets" for i in range(12_000)]
    text = card("lose 1 time").replace("  fail {", "  success {\n" + "\n".join(lines) + "\n  }\n  fail {")
    rs, diags = check_text(tmp_path, text)
    assert rs is None and len(diags) == MAX_REPORTED + 1 and diags[-1].code == "E105"
    assert all("did you mean" in d.hint for d in diags[:MAX_REPORTED])
    assert len(calls) <= MAX_REPORTED  # the costly part (suggestions) bounded by count, not by a clock


def test_12000_unknown_items_compute_suggestions_only_for_the_diagnostics_shown(tmp_path, monkeypatch):
    from lastbreath.dsl import check as check_module
    calls = []
    hint = check_module._hint_or_known
    monkeypatch.setattr(check_module, "_hint_or_known", lambda *a: calls.append(1) or hint(*a))
    lines = [f"    gain item no-such-item-{i}" for i in range(12_000)]
    text = card("lose 1 time").replace("  fail {", "  success {\n" + "\n".join(lines) + "\n  }\n  fail {")
    rs, diags = check_text(tmp_path, text)
    assert rs is None and len(diags) == MAX_REPORTED + 1 and "known items" in diags[0].hint
    assert len(calls) <= MAX_REPORTED


@pytest.mark.parametrize("text", [
    pytest.param("\n" * 1_999_000, id="2-MB-of-newlines"),
    pytest.param("#\n" * 999_000, id="2-MB-of-comments"),
    pytest.param("\r\n" * 999_000, id="2-MB-of-CRLF"),
])
def test_blank_lines_and_comments_count_against_the_token_limit(text, monkeypatch):
    from lastbreath.dsl import syntax
    monkeypatch.setattr(syntax, "_parser", lambda: pytest.fail("the parser ran: the pre-scan should refuse it"))
    _lines, diags = parse_text(text, "blank.fg")
    assert [(d.code, d.span.line) for d in diags] == [("E105", MAX_TOKENS + 1)]


@pytest.mark.skipif(sys.platform == "win32", reason="resource limits: POSIX")
def test_2_mb_of_newlines_is_checked_in_little_memory(tmp_path):
    f = tmp_path / "blank.fg"
    f.write_text("\n" * 1_999_000, encoding="utf-8")
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20)); "
            "from lastbreath.interpreter.cli import main; sys.exit(main(['check', sys.argv[1]]))")
    out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "error[E105]" in out.stdout + out.stderr, out.stderr[-500:]


# --- case 6: links out of a pack -------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_a_link_out_of_the_pack_is_refused_unread_and_never_echoed(tmp_path, capsys):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("card hunter2-password-line {\n", encoding="utf-8")
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "evil.fg").symlink_to(secret)
    (pack / "ok.fg").write_text(card(), encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), pack])
    assert rs is None and [(d.code, d.span.path) for d in diags] == [("E100", str(pack / "evil.fg"))]
    assert "outside" in diags[0].message
    for argv in (["check", "--content", str(pack)], ["check", "--json", str(pack)], ["fmt", "--check", str(pack)],
                 ["play", "--bot", "random", "--content", str(pack)]):
        main(argv)
        out = capsys.readouterr()
        assert "hunter2" not in out.out + out.err, argv
        assert "E100" in out.out + out.err


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_links_inside_the_pack_still_load(tmp_path):
    pack = tmp_path / "pack"
    (pack / "real").mkdir(parents=True)
    (pack / "real" / "card.fg").write_text(card(), encoding="utf-8")
    (pack / "alias.fg").symlink_to(pack / "real" / "card.fg")
    rs, diags = load_content([*bundled_paths(), pack])
    assert rs is not None and "hostile-card" in rs.cards


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_named_pipe_in_a_pack_is_refused_without_blocking(tmp_path):
    pack = tmp_path / "pack"
    pack.mkdir()
    os.mkfifo(pack / "pipe.fg")
    code = ("import sys; from lastbreath.interpreter.cli import main; "
            "sys.exit(main(['check', '--content', sys.argv[1]]))")
    out = subprocess.run([sys.executable, "-c", code, str(pack)], capture_output=True, text=True, timeout=120)  # a hang guard
    assert out.returncode == 1 and "E100" in out.stdout + out.stderr


# --- case 4: protocol messages ---------------------------------------------------------------------
from lastbreath.interpreter import serve as rpc  # noqa: E402
from lastbreath.interpreter.serve import Server, serve  # noqa: E402


def strict_json(text: str):
    """JSON as RFC 8259 has it: no NaN or Infinity; the text must be UTF-8 (no lone surrogate)."""
    text.encode("utf-8")

    def refuse(name):
        raise AssertionError(f"{name} in a reply: not JSON")
    return json.loads(text, parse_constant=refuse)


def rpc_line(method: str, params=None, id=1) -> str:
    msg = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg)


@pytest.fixture()
def server(rs):
    return Server(rs)


def reply(server: Server, line) -> dict:
    text = server.handle_line(line)
    assert text is not None
    return strict_json(text)


@pytest.mark.parametrize(("line", "code", "id"), [
    pytest.param('{"jsonrpc":"2.0","id":"\\ud800","method":"content.list"}', rpc.INVALID_REQUEST, None, id="id"),
    pytest.param('{"jsonrpc":"2.0","id":1,"method":"content.\\udfff"}', rpc.INVALID_REQUEST, 1, id="method"),
    pytest.param('{"jsonrpc":"2.0","id":2,"method":"game.new","params":{"\\ud800x":1}}', rpc.INVALID_REQUEST, 2,
                 id="param-name"),
    pytest.param('{"jsonrpc":"2.0","id":3,"method":"game.new","params":{"killer":"a\\udc00"}}', rpc.INVALID_REQUEST,
                 3, id="param-value"),
    pytest.param('{"jsonrpc":"2.0","id":4,"\\ud834":0,"method":"content.list"}', rpc.INVALID_REQUEST, 4,
                 id="envelope-key"),
    pytest.param('{"jsonrpc":"2.0","id":5,"method":"game.load","params":{"save":{"choices":["\\ud800"]}}}',
                 rpc.INVALID_REQUEST, 5, id="deep-in-a-save"),
    pytest.param('{"jsonrpc":"2.0","id":NaN,"method":"content.list"}', rpc.PARSE_ERROR, None, id="NaN-id"),
    pytest.param('{"jsonrpc":"2.0","id":Infinity,"method":"content.list"}', rpc.PARSE_ERROR, None, id="Infinity-id"),
    pytest.param('{"jsonrpc":"2.0","id":-Infinity,"method":"content.list"}', rpc.PARSE_ERROR, None, id="-Inf-id"),
    pytest.param('{"jsonrpc":"2.0","id":1e400,"method":"content.list"}', rpc.PARSE_ERROR, None, id="1e400-id"),
    pytest.param('{"jsonrpc":"2.0","id":6,"method":"game.new","params":{"seed":1e400}}', rpc.PARSE_ERROR, None,
                 id="1e400-seed"),
    pytest.param('{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"content.list"}', rpc.PARSE_ERROR, None,
                 id="5000-digit-id"),
])
def test_messages_json_can_spell_but_utf8_cannot_carry_get_a_json_rpc_error(server, line, code, id):
    r = reply(server, line)
    assert r["error"]["code"] == code and r["id"] == id, r
    assert reply(server, rpc_line("content.list"))["result"]["killers"]  # still serving


def test_a_lone_surrogate_does_not_stop_the_server_nor_lose_open_games(rs):
    lines = [rpc_line("game.new", {"seed": 3}, id=1), '{"jsonrpc":"2.0","id":"\\ud800","method":"game.state"}',
             '{"jsonrpc":"2.0","id":2,"method":"game.state","params":{"game":"g1","\\udfff":1}}',
             '{"jsonrpc":"2.0","id":NaN,"method":"content.list"}', rpc_line("game.state", {"game": "g1"}, id=3)]
    out = subprocess.run([*_lastbreath(), "serve"], input="\n".join(lines).encode("utf-8"), capture_output=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr[-500:]
    replies = [strict_json(x) for x in out.stdout.decode("utf-8").splitlines()]
    assert [r["id"] for r in replies] == [1, None, 2, None, 3]
    assert replies[-1]["result"]["game"] == "g1"  # the game opened before the attack is still there


def test_an_id_that_is_a_finite_number_or_text_is_echoed(server):
    for rid in (0, -5, 1.5, "g\u00e9", "\U0001d11e", 10 ** 100):
        assert reply(server, rpc_line("content.list", id=rid))["id"] == rid
    assert reply(server, '{"jsonrpc":"2.0","id":"\\ud834\\udd1e","method":"content.list"}')["id"] == "\U0001d11e"


def test_open_games_are_limited_and_closing_one_frees_a_place(rs):
    server = Server(rs, max_games=3)
    for i in range(3):
        assert reply(server, rpc_line("game.new", {"seed": i}))["result"]["game"] == f"g{i + 1}"
    r = reply(server, rpc_line("game.new", {"seed": 9}))
    assert r["error"]["code"] == rpc.TOO_MANY_GAMES and r["error"]["data"] == {"limit": 3}
    save = reply(server, rpc_line("game.save", {"game": "g1"}))["result"]["save"]
    assert reply(server, rpc_line("game.load", {"save": save}))["error"]["code"] == rpc.TOO_MANY_GAMES
    reply(server, rpc_line("game.close", {"game": "g2"}))
    assert reply(server, rpc_line("game.load", {"save": save}))["result"]["game"] == "g4"
    assert len(server.games) == 3 and rpc.Server(rs).max_games == rpc.MAX_GAMES == 100


def test_notifications_that_would_open_a_game_are_not_carried_out(server):
    assert server.handle_line(json.dumps({"jsonrpc": "2.0", "method": "game.new", "params": {"seed": 1}})) is None
    gid = reply(server, rpc_line("game.new", {"seed": 1}))["result"]["game"]
    save = reply(server, rpc_line("game.save", {"game": gid}))["result"]["save"]
    assert server.handle_line(json.dumps({"jsonrpc": "2.0", "method": "game.load", "params": {"save": save}})) is None
    assert list(server.games) == [gid]


def test_a_1_mb_batch_of_cheap_calls_is_refused_and_replies_stay_bounded(server):
    one = rpc_line("content.list", id=7)
    batch = "[" + ",".join([one] * ((rpc.MAX_MESSAGE - 2) // (len(one) + 1))) + "]"
    assert len(batch) <= rpc.MAX_MESSAGE
    text = server.handle_line(batch)
    assert len(text) < 1000 and strict_json(text)["error"]["code"] == rpc.BATCH_TOO_LARGE
    gid = reply(server, rpc_line("game.new", {"seed": 1}))["result"]["game"]
    full = "[" + ",".join([rpc_line("game.state", {"game": gid}, id=i) for i in range(rpc.MAX_BATCH)]) + "]"
    text = server.handle_line(full)
    assert len(text.encode("utf-8")) <= rpc.MAX_REPLY and len(strict_json(text)) == rpc.MAX_BATCH


def test_replies_past_the_reply_limit_become_error_1009(rs):
    server = Server(rs, max_reply=1000)
    r = reply(server, rpc_line("game.new", {"seed": 1}, id=1))
    assert r["error"]["code"] == rpc.REPLY_TOO_LARGE and r["id"] == 1
    assert list(server.games) == ["g1"]  # carried out all the same
    text = server.handle_line("[" + ",".join(rpc_line("content.list", id=i) for i in range(10)) + "]")
    out = strict_json(text)
    assert len(text.encode("utf-8")) <= 1000 + 10 * 300
    assert [r["id"] for r in out] == list(range(10)) and out[-1]["error"]["code"] == rpc.REPLY_TOO_LARGE


@pytest.mark.parametrize("seed", [1 << 63, -(1 << 63), 10 ** 300])
def test_a_seed_beyond_63_bits_is_an_invalid_param(server, seed):
    r = reply(server, rpc_line("game.new", {"seed": seed}))
    assert r["error"]["code"] == rpc.INVALID_PARAMS and r["error"]["data"] == {"param": "seed"}


def test_a_save_given_as_text_with_nan_or_a_lone_surrogate_is_a_bad_save(server):
    for text in ('{"format": NaN}', '{"format": "\\ud800"}', '{"seed": 1e999}'):
        assert reply(server, rpc_line("game.load", {"save": text}))["error"]["code"] == rpc.BAD_SAVE


def test_every_error_code_of_the_server_is_in_the_protocol_reference():
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    codes = {getattr(rpc, name) for name in rpc.__all__ if name.isupper() and not name.startswith("MAX_")}
    for code in codes:
        assert re.search(rf"^\| {code} \|", doc, re.M), code


def test_the_stream_loop_answers_every_line_with_valid_json(rs):
    lines = [b'{"jsonrpc":"2.0","id":"\\ud800","method":"x"}', b'{"jsonrpc":"2.0","id":Infinity,"method":"x"}',
             b"\xff\xfe", b'[' + b','.join([b'{"jsonrpc":"2.0","id":1,"method":"content.list"}'] * 101) + b']',
             rpc_line("content.list", id=5).encode()]
    out = io.BytesIO()
    assert serve(rs, io.BytesIO(b"\n".join(lines)), out) == 0
    replies = [strict_json(x) for x in out.getvalue().decode("utf-8").splitlines()]
    assert [r.get("id") for r in replies] == [None, None, None, None, 5]
    assert [r["error"]["code"] for r in replies[:4]] == [rpc.INVALID_REQUEST, rpc.PARSE_ERROR, rpc.PARSE_ERROR,
                                                          rpc.BATCH_TOO_LARGE]


# --- case 5: saves and snapshots ---------------------------------------------------------------------
from lastbreath.dsl import IllegalChoice, SaveError  # noqa: E402
from lastbreath.interpreter import api, replay, serialize  # noqa: E402


@pytest.fixture(scope="module")
def mid_game():
    """A snapshot (JSON data) of a game paused in its fifth round, and its ruleset."""
    from lastbreath.dsl import load_ruleset
    rs = load_ruleset()
    state, _ = api.new_game(rs, seed=3)
    bot = api.random_policy(3)
    while state.round < 5 or state.choice.kind != "action":
        state, _ = api.apply(state, bot(state, state.choice))
    return rs, json.loads(json.dumps(serialize.to_json(state)))


def edited(data: dict, path: str, value) -> dict:
    data = json.loads(json.dumps(data))
    *head, last = path.split(".")
    d = data["state"]
    for k in head:
        d = d[int(k)] if isinstance(d, list) else d[k]
    if isinstance(d, list):
        d[int(last)] = value
    else:
        d[last] = value
    return data


def test_an_unedited_snapshot_loads_and_plays_on(mid_game):
    rs, data = mid_game
    state = serialize.from_json(rs, data)
    assert serialize.to_json(state) == data
    api.apply(state, state.choice.options[0].key)


@pytest.mark.parametrize(("path", "value", "field"), [
    pytest.param("fg_health", 999, "fg_health", id="health-999"),
    pytest.param("fg_health", "3", "fg_health", id="health-as-text"),
    pytest.param("fg_health", 3.0, "fg_health", id="health-as-float"),
    pytest.param("fear", -40, "fear", id="fear-off-the-track"),
    pytest.param("fg_loc", 99, "fg_loc", id="fg-off-the-board"),
    pytest.param("victims", [0, 1], "victims", id="victims-list-too-short"),
    pytest.param("hand", ["no-such-card"], "hand[0]", id="unknown-card"),
    pytest.param("bloodlust", 40, "bloodlust", id="bloodlust-beyond-the-track"),
    pytest.param("killers.0.loc", 500, "killers[0].loc", id="killer-off-the-board"),
    pytest.param("killers.0.id", "someone-else", "killers[0].id", id="another-killer"),
    pytest.param("piles.0.0.0", "no-such-item", "piles[0][0]", id="unknown-item"),
    pytest.param("flags", ["b", "a"], "flags", id="unsorted-set"),
    pytest.param("slots", [True], "slots", id="slots-of-another-length"),
    pytest.param("seed", 1 << 70, "seed", id="seed-beyond-63-bits"),
    pytest.param("result", "fg", "result", id="finished-result-mid-game"),
    pytest.param("result", "nobody", "result", id="unknown-result"),
    pytest.param("choice", None, "choice", id="no-choice-mid-game"),
    pytest.param("checkpoint.fear", 1, "fear", id="edited-checkpoint"),
    pytest.param("checkpoint.hand", [], "", id="checkpoint-with-no-hand"),
    pytest.param("checkpoint.phase", "killer", "", id="checkpoint-in-another-phase"),
    pytest.param("answers", ["play:no-such-card"], "", id="an-answer-never-offered"),
    pytest.param("checkpoint.checkpoint", {}, "checkpoint", id="a-checkpoint-inside-the-checkpoint"),
])
def test_a_snapshot_with_values_the_game_cannot_have_is_refused_naming_the_field(mid_game, path, value, field):
    rs, data = mid_game
    with pytest.raises(SaveError) as err:
        serialize.from_json(rs, edited(data, path, value))
    assert field in str(err.value)


def _leaves(value, path=()):
    """Every scalar of a save's JSON, with its path."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path, value


def _replaced(data, path, value):
    data = json.loads(json.dumps(data))
    d = data
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value
    return data


@pytest.mark.parametrize("killer,scenario", [("zombies", "wolfe-asylum"), ("intruders", "wingard-cottage"),
                                             ("ratchet-lady", "storybook-woods"), ("evomorph", "wolfe-asylum")])
def test_every_number_and_flag_of_a_save_is_refused_in_another_type(killer, scenario):
    """A save holds what to_json writes and nothing that only converts to it: each integer of a
    saved state (the checkpoint and the records included) given as a float or a flag, each flag
    given as a number, and each string given as a number, is refused, wherever it stands."""
    from lastbreath.dsl import load_ruleset

    rs = load_ruleset()
    state, _ = api.new_game(rs, killer=killer, scenario=scenario, seed=4)
    bot = api.random_policy(4)
    for _ in range(40):
        state, _ = api.apply(state, bot(state, state.choice))
    data = json.loads(json.dumps(serialize.to_json(state)))
    checked = 0
    for path, v in _leaves(data["state"]):
        if type(v) is int:
            others = [float(v)] + ([bool(v)] if v in (0, 1) else [])
        elif type(v) is bool:
            others = [int(v)]
        elif type(v) is str:
            others = [1]
        else:
            continue
        for other in others:
            with pytest.raises(SaveError):
                serialize.from_json(rs, {**data, "state": _replaced(data["state"], path, other)})
            checked += 1
    assert checked > 300


def test_a_snapshot_of_a_finished_game_loads_and_refuses_answers(mid_game):
    rs, _ = mid_game
    state, _ = api.new_game(rs, seed=5)
    state = api.play(state, api.random_policy(5))
    again = serialize.from_json(rs, json.loads(json.dumps(serialize.to_json(state))))
    assert again.over
    with pytest.raises(IllegalChoice):
        api.apply(again, "end")


@pytest.mark.parametrize("raw", [
    '{"format": "lastbreath-save", "version": 1, "seed": ' + "7" * 5000 + "}",
    '{"format": "lastbreath-save", "version": 1, "choices": [' + "7" * 5000 + "]}",
    '{"format": "lastbreath-save", "version": 1, "seed": NaN}',
    '{"format": "lastbreath-save", "version": 1, "seed": 1e400}',
    '{"format": "lastbreath-save\\ud800", "version": 1}',
])
def test_a_save_file_with_numbers_or_text_json_cannot_carry_exits_1_not_70(tmp_path, capsys, raw):
    f = tmp_path / "game.json"
    f.write_text(raw, encoding="utf-8")
    assert main(["replay", str(f)]) == 1
    err = capsys.readouterr().err
    assert "cannot replay" in err and "internal error" not in err


def test_a_save_with_a_seed_beyond_63_bits_or_too_many_choices_is_refused(mid_game):
    rs, _ = mid_game
    data = replay.save((({}, 3, [])), rs, snapshot=False)
    with pytest.raises(SaveError, match="seed"):
        replay.replay(rs, {**data, "seed": 1 << 64})
    with pytest.raises(SaveError, match="more than the limit"):
        replay.replay(rs, {**data, "choices": ["end"] * (replay.MAX_CHOICES + 1)})
