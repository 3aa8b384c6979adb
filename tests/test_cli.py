"""The command line: lastbreath play / check / content / simulate."""

from __future__ import annotations

import re
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lastbreath.dsl import RulesError
from lastbreath.interpreter.cli import main

BAD = 'killer oops {\n  name "Oops"\n  health seven\n}\n'


def test_content_json(capsys):
    assert main(["content", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"killers", "scenarios", "final_girls", "modules"}
    assert "big-bad-wolf" in [k["id"] for k in data["killers"]]
    assert "storybook-woods" in [s["id"] for s in data["scenarios"]]
    assert all(set(r) == {"id", "name", "pack"} for r in data["final_girls"])
    assert {r["pack"] for key in ("killers", "scenarios", "final_girls") for r in data[key]} == {"core"}
    # the Vehicles module ships (docs/rules.md V1-V9), off unless switched on
    assert [(m["id"], m["pack"]) for m in data["modules"]] == [("vehicles", "core")]


def test_content_table(capsys):
    assert main(["content"]) == 0
    out = capsys.readouterr().out
    assert "big-bad-wolf" in out and "storybook-woods" in out


def test_check_bundled_is_clean(capsys):
    assert main(["check"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("ok:") and re.search(r"\b\d+ killers?\b", err)


def test_check_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.fg"
    bad.write_text(BAD, encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # diagnostics and the summary share stderr, in order
    assert f"{bad}:3:3: error[E205]" in err
    assert "    health seven\n" in err and "^" in err  # the source line and a caret
    assert re.match(r"\d+ errors? \(", err.rstrip().splitlines()[-1])


def test_check_bad_file_json(tmp_path, capsys):
    bad = tmp_path / "bad.fg"
    bad.write_text(BAD, encoding="utf-8")
    assert main(["check", str(bad), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["diagnostics"]
    assert {"path", "line", "col", "code", "message"} <= set(data["diagnostics"][0])


def test_bad_extra_content_prints_diagnostics(tmp_path, capsys):
    bad = tmp_path / "bad.fg"
    bad.write_text(BAD, encoding="utf-8")
    assert main(["content", "--content", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "error[E205]" in err and "Traceback" not in err


def test_simulate_json(capsys):
    assert main(["simulate", "--games", "20", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 20 and data["errors"] == 0
    assert data["wins"] + data["losses"] == 20
    assert {"win_rate", "mean_rounds", "games_per_second"} <= set(data)


def test_play_bot(capsys):
    assert main(["play", "--bot", "random", "--seed", "3"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "seed: 3"
    assert not any("seed" in line for line in out[1:])  # the seed is printed once
    assert out[-1].startswith("result: ")


def test_play_interactive_until_eof(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n?\nnonsense\n99\n1\n1\n"))
    assert main(["play", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "seed: 5" in out and "Hand:" in out and "1) " in out


def test_play_interactive_quit(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert main(["play", "--seed", "5"]) == 0
    assert "unfinished" in capsys.readouterr().out


def test_unknown_killer(capsys):
    assert main(["play", "--killer", "big-bad-wolfe", "--bot", "first"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'big-bad-wolf'" in err and "Traceback" not in err


def test_missing_path(capsys):
    assert main(["check", "/no/such/file.fg"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_installed_script():
    exe = Path(sys.executable).with_name("lastbreath")
    if not exe.exists():
        exe = Path("/tmp/venv/bin/lastbreath")
    if not exe.exists():
        pytest.skip("the lastbreath script is not installed")
    ok = subprocess.run([str(exe), "content", "--json"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "big-bad-wolf" in json.loads(ok.stdout)["killers"][0]["id"]
    bad = subprocess.run([str(exe), "simulate", "--killer", "nobody"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "unknown killer" in bad.stderr


def test_a_game_stopped_by_content_that_feeds_itself_shows_the_line_with_a_caret(tmp_path, capsys):
    """E310: a runtime rules error carries its span and code, printed like a content diagnostic."""
    pack = tmp_path / "loop"
    pack.mkdir()
    (pack / "loop.fg").write_text('''killer loop-test {
  name "Loop Test"
  health 5
  fear 7
  bloodlust { level move 1 damage 1; at max { raise fear 1 } }
  finale f { name "F"; back { raise fear 1 }; face { raise fear 1 } }
  dark_power d { name "D" }
}
''', encoding="utf-8")
    code = main(["play", "--content", str(pack), "--killer", "loop-test", "--bot", "random", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "loop.fg:5:47: error[E310]: effects set each other off more than 60 deep" in err
    assert "at max { raise fear 1 }" in err and "^~~~" in err


def test_the_step_limit_is_a_rules_error_with_its_own_code(monkeypatch):
    """E311: steps that run on without a decision stop with a RulesError that says so, with its code."""
    from lastbreath.dsl import load_ruleset
    from lastbreath.interpreter.api import new_game
    from lastbreath.interpreter.engine import steps
    monkeypatch.setattr(steps, "MAX_STEPS", 1)  # the setup step alone, then no decision yet
    with pytest.raises(RulesError, match="did not reach a decision") as info:
        new_game(load_ruleset(), seed=1)
    assert info.value.code == "E311" and info.value.diagnostic.code == "E311"
    assert "error[E311]" in info.value.format()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_command(shell, capsys):
    assert main(["--completion", shell]) == 0
    out = capsys.readouterr().out
    for command in ("play", "check", "simulate", "render", "fuzz"):
        assert command in out
    assert ("-l no-color" if shell == "fish" else "--no-color") in out  # options…
    assert "random first greedy" in out  # …and an option's choices


def test_bash_completion_completes_commands_options_and_choices(tmp_path, capsys):
    import shutil

    if shutil.which("bash") is None:
        pytest.skip("no bash")
    assert main(["--completion", "bash"]) == 0
    script = tmp_path / "lastbreath.bash"
    script.write_text(capsys.readouterr().out, encoding="utf-8")

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def complete(*words: str) -> list[str]:
        arr = " ".join(f"'{w}'" for w in ("lastbreath", *words))
        run = subprocess.run(["bash", "-c", f"source {script}; COMP_WORDS=({arr}); COMP_CWORD={len(words)}; "
                              '_lastbreath; printf "%s\\n" "${COMPREPLY[@]}"'], capture_output=True, text=True,
                             timeout=120, env=env)  # a hang guard
        assert run.returncode == 0, run.stderr
        return run.stdout.split()

    assert complete("pl") == ["play"]
    assert complete("play", "--no-c") == ["--no-color"]
    assert complete("play", "--bot", "") == ["random", "first", "greedy", "expert"]
    assert complete("--completion", "f") == ["fish"]
    if not Path(sys.executable).with_name("lastbreath").exists():
        pytest.skip("the lastbreath script is not installed: the content ids are asked of it")
    # content ids (issue 35: '--killer <Tab>' completed file names), fan packs on the line included
    assert complete("play", "--killer", "") == ["big-bad-wolf", "evomorph", "intruders", "organism", "ratchet-lady",
                                                "zombies"]
    assert complete("play", "--killer", "r") == ["ratchet-lady"]
    fan = str(Path(__file__).resolve().parent.parent / "examples" / "fan_killer")
    assert "tallow-man" in complete("simulate", "--content", fan, "--killer", "")
    assert complete("play", "--scenario", "wol") == ["wolfe-asylum"]
    assert complete("play", "--final-girl", "n") == ["nell-arden"]
    modules = str(Path(__file__).resolve().parent / "packs" / "modules")
    assert complete("play", "--content", modules, "--module", "") != []
    assert complete("odds", "spr") == ["sprint"]
    assert "storybook-woods" in complete("render", "s")


def test_version_is_printed_on_stdout_and_looked_up_only_when_asked(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("lastbreath ") and out.strip() != "lastbreath"
    code = ("import sys; from lastbreath.interpreter.cli import main; main(['render', 'big-bad-wolf']); "
            "print('importlib.metadata' in sys.modules, file=sys.stderr)")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert got.stderr.strip().splitlines()[-1] == "False"
