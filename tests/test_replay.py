"""Save files and replays (interpreter/replay.py, `lastbreath replay`, `play --save`)."""

from __future__ import annotations

import copy
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from lastbreath.dsl import SaveError, bundled_paths, load_ruleset
from lastbreath.interpreter import cli, replay, serialize
from lastbreath.interpreter.api import apply, new_game, random_policy
from lastbreath.interpreter.cli import main


@pytest.fixture()
def fast_cli(rs, monkeypatch):
    """The CLI with the session's ruleset (no content load per command)."""
    monkeypatch.setattr(cli, "load_rules", lambda extra=(): rs)


def _random_game(rs, seed: int):
    state, events = new_game(rs, seed=seed)
    history = [(state, None)]
    bot = random_policy(seed)
    while not state.over:
        key = bot(state, state.choice)
        state, events = apply(state, key)
        history.append((state, key))
    return history


def test_replaying_100_saved_random_games_reproduces_their_logs(fast_cli, tmp_path, capsys):
    for seed in range(100):
        f = tmp_path / f"g{seed}.json"
        assert main(["play", "--bot", "random", "--seed", str(seed), "--save", str(f)]) == 0
        played = capsys.readouterr().out
        assert main(["replay", str(f)]) == 0
        replayed = capsys.readouterr().out
        assert replayed == played, f"seed {seed}"
        assert played.startswith(f"seed: {seed}\n") and "result: " in played


def test_replay_json_log_matches_play_json(fast_cli, tmp_path, capsys):
    f = tmp_path / "g.json"
    assert main(["play", "--bot", "random", "--seed", "11", "--json", "--save", str(f)]) == 0
    played = json.loads(capsys.readouterr().out)
    assert main(["replay", str(f), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["bot"] is None
    assert {**replayed, "bot": "random"} == played


def test_save_forms_agree_and_load_gives_the_state_and_whole_log(rs):
    history = _random_game(rs, 5)
    a = replay.save(history)
    keys = [k for _, k in history[1:]]
    b = replay.save(({"killer": "big-bad-wolf"}, 5, keys), rs)
    assert a == b
    assert a["format"] == "lastbreath-save" and a["version"] == 1
    assert a["content"] == serialize.content_hash(rs)
    assert set(a["game"]) == set(replay.GAME_KEYS) and a["choices"] == keys
    data = json.loads(replay.dumps(a))  # through text, as a file would be
    state, log = replay.load(rs, data)
    assert serialize.to_json(state) == serialize.to_json(history[-1][0])
    assert log[0].kind == "setup" and log[-1].kind == "end"
    nosnap = replay.save(history, snapshot=False)
    assert "snapshot" not in nosnap and replay.load(rs, nosnap)[0].result == state.result


def test_a_save_in_the_middle_of_a_game_resumes_there(rs):
    history = _random_game(rs, 8)[:7]
    state, _ = replay.load(rs, replay.save(history))
    assert not state.over and state.choice == history[-1][0].choice
    assert serialize.to_json(state) == serialize.to_json(history[-1][0])


def _copy_content(src: list[Path], dst: Path) -> list[Path]:
    out = []
    for p in src:
        target = dst / p.name
        shutil.copytree(p, target, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
        out.append(target)
    return out


def test_a_save_after_a_content_change_is_refused_with_the_reason(tmp_path):
    # two copies of the bundled content in other places (copied once, so edits to the
    # checkout while the test runs do not matter): the save is made with the first
    first = load_ruleset(a := _copy_content(bundled_paths(), tmp_path / "a"))
    b = _copy_content(a, tmp_path / "b")
    data = replay.save(_random_game(first, 2))
    same = load_ruleset(b)  # unchanged content elsewhere: the same hash, the save loads
    assert serialize.content_hash(same) == data["content"]
    assert replay.load(same, data)[0].over
    wolf = next((tmp_path / "b").rglob("big-bad-wolf.fg"))
    text = wolf.read_text(encoding="utf-8")
    assert "  health 7\n" in text
    wolf.write_text(text.replace("  health 7\n", "  health 8\n", 1), encoding="utf-8")  # one number
    changed = load_ruleset(b)
    with pytest.raises(SaveError) as err:
        replay.load(changed, data)
    msg = str(err.value)
    assert f"made with content hash {data['content']}, this content is {serialize.content_hash(changed)}" in msg


def test_an_illegal_choice_is_refused_naming_its_index_and_key(rs):
    data = replay.save(_random_game(rs, 4), snapshot=False)
    data["choices"][3] = "play:no-such-card"
    with pytest.raises(SaveError, match=r"choice 3 \('play:no-such-card'\) is not an option"):
        replay.load(rs, data)
    data = replay.save(_random_game(rs, 4), snapshot=False)
    data["choices"].append("end")
    with pytest.raises(SaveError, match=rf"choice {len(data['choices']) - 1} \('end'\) comes after the end"):
        replay.load(rs, data)


def test_a_snapshot_that_the_replay_does_not_reach_is_refused(rs):
    data = replay.save(_random_game(rs, 6)[:5])
    data["snapshot"]["state"]["fear"] += 1
    with pytest.raises(SaveError, match="does not reach the saved snapshot.*fear"):
        replay.load(rs, data)


@pytest.mark.parametrize("change, reason", [
    (lambda d: d.update(version=2), "version 2 is not supported"),
    (lambda d: d.update(format="other"), "not a lastbreath save"),
    (lambda d: d.pop("choices"), "missing choices"),
    (lambda d: d.pop("game"), "missing game"),
    (lambda d: d.update(seed="7"), "seed is not an integer"),
    (lambda d: d.update(seed=True), "seed is not an integer"),
    (lambda d: d.update(choices="end"), "choices are not a list"),
    (lambda d: d["choices"].append(3), "is not a key string"),
    (lambda d: d["game"].update(legendary="no"), "legendary is not a bool"),
    (lambda d: d["game"].pop("killer"), "missing keys ['killer']"),
    (lambda d: d["game"].update(killer="nobody"), "cannot be set up with this content"),
    (lambda d: d.update(extra=1), "unknown fields: extra"),
    (lambda d: d.update(snapshot=[]), "snapshot is not an object"),
    (lambda d: d.update(content=None), "content hash"),
])
def test_malformed_saves_are_refused(rs, change, reason):
    data = replay.save(_random_game(rs, 1))
    bad = copy.deepcopy(data)
    change(bad)
    with pytest.raises(SaveError) as err:
        replay.load(rs, bad)
    assert reason in str(err.value)
    for not_a_save in (None, [], "save", 3):
        with pytest.raises(SaveError, match="not a lastbreath save"):
            replay.load(rs, not_a_save)


def test_truncated_and_corrupt_files_are_refused(rs, tmp_path):
    text = replay.dumps(replay.save(_random_game(rs, 9)))
    f = tmp_path / "cut.json"
    for cut in (0, 1, len(text) // 3, len(text) // 2, len(text) - 3):
        f.write_text(text[:cut], encoding="utf-8")
        with pytest.raises(SaveError, match="truncated or corrupt"):
            replay.read(str(f))
    f.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SaveError, match="not UTF-8"):
        replay.read(str(f))
    f.write_text(text, encoding="utf-8")
    assert replay.load(rs, replay.read(str(f)))[0].over


def test_cli_refuses_bad_saves_with_the_reason(fast_cli, rs, tmp_path, capsys):
    data = replay.save(_random_game(rs, 3))
    f = tmp_path / "stale.json"
    f.write_text(replay.dumps({**data, "content": "0000000000000000"}), encoding="utf-8")
    assert main(["replay", str(f)]) == 1
    err = capsys.readouterr().err
    assert "made with content hash 0000000000000000" in err and "Traceback" not in err
    f.write_text(replay.dumps(data)[:100], encoding="utf-8")
    assert main(["replay", str(f)]) == 1
    assert "truncated or corrupt" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["play", "--bot", "first", "--save", str(tmp_path / "no" / "dir.json")]) == 2
    assert "folder does not exist" in capsys.readouterr().err


def test_interactive_play_saves_on_quit_and_replay_shows_it_unfinished(fast_cli, tmp_path, monkeypatch, capsys):
    f = tmp_path / "quit.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n1\nq\n"))
    assert main(["play", "--seed", "5", "--save", str(f)]) == 0
    assert "saved the game" in capsys.readouterr().err
    data = json.loads(f.read_text(encoding="utf-8"))
    assert len(data["choices"]) == 2 and data["seed"] == 5
    assert main(["replay", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "seed: 5" and out[-1].startswith("game left unfinished after 2 choices")


def test_a_save_made_before_language_v2_loads_or_is_refused_clearly():
    """A save written by the engine before language v2 (same format version): it loads and plays
    on while the bundled content is unchanged; once the content changes it is refused with a
    SaveError that says why, never anything else."""
    import json
    from pathlib import Path

    from lastbreath.dsl import load_ruleset
    from lastbreath.dsl.diagnostics import SaveError
    from lastbreath.interpreter import api, serialize

    rs = load_ruleset()
    data = json.loads((Path(__file__).with_name("data") / "save-before-language-v2.json").read_text(encoding="utf-8"))
    try:
        state = serialize.from_json(rs, data)
    except SaveError as err:
        assert "content" in str(err), str(err)
        return
    assert state.choice is not None and state.round == 1
    after, _ = api.apply(state, state.choice.options[0].key)
    assert after is not state
