"""`lastbreath try` and `lastbreath verify` (issue #15): --help, --json, errors without tracebacks.

Rules cited: C2.1 (the dice of a fear check, fixed by a position), C5.1 (a move answered).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lastbreath.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "docs" / "rulings"

POSITION = """\
# the Final Girl at the Hollow Gate, three dice fixed
position {
  killer big-bad-wolf; scenario storybook-woods; final_girl nell-arden
  fg at hollow-gate; victims none; fear 1; time 4
  hand walk focus
  dice 6 6 1
  phase action
}
"""


@pytest.fixture()
def pos_file(tmp_path):
    f = tmp_path / "walk.position"
    f.write_text(POSITION, encoding="utf-8")
    return f


@pytest.mark.parametrize("command", ["try", "verify"])
def test_help(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "--json" in out and "--content" in out
    assert main(["--help"]) == 0 and command in capsys.readouterr().out


def test_c2_1_try_prints_what_happens_with_rule_ids_and_the_next_choice(pos_file, capsys):
    """C2.1, C5.1: the fixed dice are rolled; the move is answered; the next choice is listed."""
    assert main(["try", str(pos_file), "--play", "walk", "--answer", "move:sugar-roof-cottage"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"position: {pos_file}"
    assert out[1] == "Nell Arden vs The Big Bad Wolf in Storybook Woods (normal)"
    assert "  fear check for Walk: rolls [6, 6, 1] [C2.1]" in out
    assert "  > move to Sugar-Roof Cottage" in out and "  the Final Girl moves to Sugar-Roof Cottage [C5.1]" in out
    assert out[out.index("  > move to Sugar-Roof Cottage") + 2] == "next: Move where?"
    assert any(line.split() == ["stop", "stop", "moving"] for line in out)


def test_try_json(pos_file, capsys):
    assert main(["try", str(pos_file), "--play", "walk", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"position", "setup", "log", "choice", "result", "end_reason", "state"}
    assert data["setup"]["killer"] == "big-bad-wolf" and data["result"] is None
    assert data["log"][0] == {"kind": "choice", "text": "play Walk", "key": "play:walk", "rule": ""}
    assert {"kind": "roll", "text": "fear check for Walk: rolls [6, 6, 1]", "rule": "C2.1"} in data["log"]
    assert data["choice"]["kind"] == "move" and {"key": "stop", "label": "stop moving"} in data["choice"]["options"]
    assert data["state"]["fear"] == 1 and "checkpoint" not in data["state"]


def test_try_explain_shows_each_step_with_its_source(pos_file, capsys):
    assert main(["try", str(pos_file), "--play", "walk", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "cards/core.fg:" in out  # the content line behind the move


def test_try_an_answer_that_is_not_an_option(pos_file, capsys):
    assert main(["try", str(pos_file), "--play", "sprint"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lastbreath: error: 'play:sprint' is not an option of 'Your action' (options: play:focus, ")
    assert "Traceback" not in err


def test_try_after_the_end_of_the_game(tmp_path, capsys):
    f = tmp_path / "won.position"
    f.write_text("position { killer big-bad-wolf; scenario storybook-woods; fg at millpond; killer at millpond\n"
                 "killer health 0; killer last_breath black 0; fear 1; hand weak-attack focus; dice 6 1 1 1 }\n",
                 encoding="utf-8")
    assert main(["try", str(f), "--play", "weak-attack", "--answer", "end"]) == 1
    captured = capsys.readouterr()
    assert "result: the Final Girl wins (the killer was defeated) in round 1" in captured.out
    assert "'end': the game is over, there is no choice to answer" in captured.err


def test_try_a_bad_position_prints_diagnostics_like_check(tmp_path, capsys):
    f = tmp_path / "bad.position"
    f.write_text("position {\n  fg at milpond; helth 2\n}\n", encoding="utf-8")
    assert main(["try", str(f)]) == 1
    err = capsys.readouterr().err
    assert f"{f}:2:9: error[E402]: unknown location 'milpond' (did you mean 'millpond'?)" in err
    assert "      fg at milpond; helth 2\n            ^~~~~~~" in err
    assert f"{f}:2:18: error[E401]" in err and "2 errors ('lastbreath explain-error E402' explains a code)" in err
    assert main(["try", str(f), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and [d["code"] for d in data["diagnostics"]] == ["E402", "E401"]


def test_try_file_mistakes_are_usage_errors(tmp_path, capsys):
    assert main(["try", str(tmp_path / "nope.position")]) == 2
    assert "position file" in capsys.readouterr().err
    binary = tmp_path / "b.position"
    binary.write_bytes(b"\xff\xfe\x00position")
    assert main(["try", str(binary)]) == 1
    assert "not UTF-8" in capsys.readouterr().err


def test_verify_the_bundled_rulings(capsys):
    assert main(["verify", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].endswith("passed, 0 failed") and len(out) == 1
    assert main(["verify", str(RULINGS / "moving-and-followers.ruling")]) == 0
    out = capsys.readouterr().out
    assert f"ok    {RULINGS / 'moving-and-followers.ruling'}:" in out and "two-victims-follow-at-most [C5.3]" in out


FAILING = """\
ruling walk-twice {
  says "A wrong expectation: Walk's one success moves her one location, not two."
  rules "C5.1"
  position { scenario storybook-woods; fg at hollow-gate; victims none; fear 1; hand walk focus; dice 6 1 1 }
  play walk
  answer move sugar-roof-cottage
  expect fg at woodcutters-camp
}
"""


def test_verify_reports_the_first_fact_that_differs_with_the_log(tmp_path, capsys):
    f = tmp_path / "x.ruling"
    f.write_text(FAILING, encoding="utf-8")
    assert main(["verify", str(f)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"FAIL  {f}:7:3: walk-twice [C5.1]"
    assert out[1] == "      says: A wrong expectation: Walk's one success moves her one location, not two."
    assert out[2] == "      expect fg at woodcutters-camp: she is at sugar-roof-cottage"
    assert out[3] == "      log:" and "        > play Walk" in out and "        plays Walk [C2.1]" in out
    assert out[-1] == "1 ruling: 0 passed, 1 failed"
    assert main(["verify", str(f), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["ok"], data["passed"], data["failed"]) == (False, 0, 1)
    r = data["rulings"][0]
    assert r["failure"] == {"line": 7, "col": 3, "step": "expect fg at woodcutters-camp",
                            "message": "she is at sugar-roof-cottage"}
    assert r["rules"] == ["C5.1"] and r["log"][0]["text"] == "> play Walk"


def test_verify_a_ruling_file_that_does_not_check(tmp_path, capsys):
    f = tmp_path / "bad.ruling"
    f.write_text(FAILING.replace('"C5.1"', '"C55.1"'), encoding="utf-8")
    assert main(["verify", str(f)]) == 1
    captured = capsys.readouterr()
    assert f"{f}:3:9: error[E402]: unknown rule id 'C55.1'" in captured.err
    assert captured.out.splitlines()[-1] == "0 rulings: 0 passed, 0 failed; 1 file did not check (1 error)"


def test_verify_usage_mistakes(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "none")]) == 2
    assert "rulings path" in capsys.readouterr().err
    assert main(["verify", str(tmp_path)]) == 2
    assert "no rulings files" in capsys.readouterr().err


def test_a_fan_pack_carries_its_own_rulings(tmp_path, capsys):
    """verify --content: rulings of a fan pack's killer, checked against the pack."""
    pack = ROOT / "examples" / "fan_killer"
    killer = "tallow-man"
    f = tmp_path / "tallow.ruling"
    f.write_text(f"""\
ruling the-fan-killer-walks-the-woods {{
  rules "C9.2"
  position {{
    killer {killer}; scenario storybook-woods; fg at hollow-gate; victims none
    phase killer
  }}
  expect log "Killer phase [C1.1]"
  expect round 2
}}
""", encoding="utf-8")
    assert main(["verify", str(f)]) == 1  # without the pack, its killer is unknown
    assert f"unknown killer '{killer}'" in capsys.readouterr().err
    assert main(["verify", str(f), "--content", str(pack)]) == 0
    assert "1 ruling: 1 passed, 0 failed" in capsys.readouterr().out


def test_readme_lists_the_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "lastbreath try " in readme and "lastbreath verify" in readme
    assert "docs/positions.md" in readme


def test_a_game_saved_from_a_position_replays_from_it(pos_file, tmp_path, capsys):
    from lastbreath.dsl import load_ruleset
    from lastbreath.interpreter import replay
    from lastbreath.interpreter.session import Session

    game = Session.from_position(load_ruleset(), POSITION, str(pos_file))
    game.apply("play:walk")
    save = tmp_path / "game.json"
    replay.write(str(save), game.save())
    assert main(["replay", str(save)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["seed: 0", f"position: {pos_file}"]
    assert "  fear check for Walk: rolls [6, 6, 1] [C2.1]" in out


def test_the_command_line_imports_positions_and_rulings_only_for_try_and_verify():
    """Every command builds the parsers of 'try' and 'verify'; the modules behind them (positions,
    rulings, the rules reference: ~35 ms) are imported only when one of them runs."""
    heavy = ("lastbreath.interpreter.position", "lastbreath.interpreter.rulings",
             "lastbreath.interpreter.rules_reference")
    code = ("import sys; from lastbreath.interpreter.cli import build_parser, main; build_parser(); "
            "main(['simulate', '--games', '1', '--jobs', '1', '--json']); "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
