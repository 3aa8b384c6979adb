"""The examples run: examples/embed.py (Python API), examples/client.mjs (Node.js over serve), and the
second fan killer pack examples/fan_killer_v2 (the Corn Warden, written in language v2): it loads
clean, is formatted, its rulings pass, its README's commands and snippets hold, and bots play it
to the end in every bundled scenario with every distinctive ability firing."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from lastbreath.dsl import bundled_paths, load_content
from lastbreath.interpreter import api, rulings
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_embed_example_plays_a_whole_game():
    run = subprocess.run([sys.executable, str(EXAMPLES / "embed.py"), "3"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "undo" in out and "saved and loaded" in out and "\nresult: " in out


def _lastbreath() -> Path | None:
    for exe in (Path(sys.executable).with_name("lastbreath"), Path("/tmp/venv/bin/lastbreath")):
        if exe.exists():
            return exe
    found = shutil.which("lastbreath")
    return Path(found) if found else None


@pytest.mark.parametrize("client_seed", ["1"])
def test_node_client_plays_a_whole_game_over_serve(client_seed):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    exe = _lastbreath()
    if exe is None:
        pytest.skip("the lastbreath script is not installed")
    env = {**os.environ, "LASTBREATH": str(exe), "CLIENT_SEED": client_seed}
    run = subprocess.run([node, str(EXAMPLES / "client.mjs")], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "result: " in run.stdout


def test_readme_session_example_runs(capsys):
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    code = next(b for b in blocks if "Session" in b and "undo" in b)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.split()[0] in ("fg", "killer")


# --- the second fan killer: the Corn Warden (examples/fan_killer_v2, issue #12) -------------------
FAN2 = EXAMPLES / "fan_killer_v2"
FAN2_ID = "corn-warden"
FAN2_FILE = FAN2 / "corn-warden.fg"
FAN2_README = FAN2 / "README.md"


@lru_cache(maxsize=1)
def _fan2():
    return load_content([*bundled_paths(), FAN2])


def test_the_v2_fan_killer_loads_with_no_warnings():
    rs, diags = _fan2()
    assert [d.format() for d in diags] == []
    assert rs.pack("killers", FAN2_ID) == FAN2_ID and rs.packs[FAN2_ID].depends == ("core",)
    k = rs.killers[FAN2_ID]
    assert (len(k.finales), len(k.dark_powers), len(k.terror)) == (3, 3, 10)


def test_the_v2_fan_killer_is_in_canonical_format(capsys):
    assert main(["fmt", "--check", str(FAN2)]) == 0, capsys.readouterr().out


def test_the_v2_fan_killer_rulings_pass():
    """Each ability at one moment of a game, with fixed dice (rulings/corn-warden.ruling)."""
    rs, _ = _fan2()
    outcomes, diags, _sources = rulings.verify(rs, sorted((FAN2 / "rulings").glob("*.ruling")))
    assert diags == []
    assert len(outcomes) >= 13
    assert [o.ruling.id for o in outcomes if not o.ok] == []


def _readme_commands() -> list[list[str]]:
    """The commands of the README's ```sh block: every line, comments cut."""
    text = FAN2_README.read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_v2_fan_killer_readme_commands_run_as_written(capsys):
    cmds = _readme_commands()
    assert {c[1] for c in cmds} >= {"check", "fmt", "verify", "render", "play", "simulate", "coverage"}
    for cmd in cmds:
        assert cmd[0] == "lastbreath"
        code = main(cmd[1:])
        out, err = capsys.readouterr()
        assert code == 0, f"{shlex.join(cmd)} exited {code}\n{out}\n{err}"
        if cmd[1] == "check":
            assert err.startswith("ok:") and f"packs: core, {FAN2_ID}" in err
        if cmd[1] == "verify":
            assert re.search(r"(\d+) rulings: \1 passed, 0 failed", out), out
        if cmd[1] == "play":
            assert out.splitlines()[-1].startswith("result: ")
        if cmd[1] == "simulate":
            assert " errors 0 " in out, out
        if cmd[1] == "coverage":
            assert re.search(r"fan_killer_v2/corn-warden\.fg +(\d+)/\1 +100\.0%", out), out


def test_the_v2_fan_killer_readme_shows_lines_of_the_killer():
    """Every ```fg snippet of the README is lines of corn-warden.fg as they stand, one after the
    other (indents, blank lines and comments aside)."""
    readme = FAN2_README.read_text(encoding="utf-8")
    killer = [s for line in FAN2_FILE.read_text(encoding="utf-8").splitlines()
              if (s := line.strip()) and not s.startswith("#")]
    snippets = [b.split("```", 1)[0] for b in readme.split("```fg\n")[1:]]
    assert len(snippets) >= 8
    for snip in snippets:
        lines = [line.strip() for line in snip.splitlines() if line.strip()]
        starts = [i for i, line in enumerate(killer) if line == lines[0]]
        assert any(killer[i:i + len(lines)] == lines for i in starts), f"not in {FAN2_FILE.name}:\n{snip}"


# each distinctive ability and the content line whose effect (or modification) shows it in the log
ABILITIES = {
    "Planted Deep: two scarecrows at setup, fewest then farthest": "place token scarecrow at (any with fewest "
                                                                   "tokens scarecrow then farthest from fg)",
    "Straw Skin: damage reduced while a scarecrow stands": "reduce killer takes damage by 1 while count tokens "
                                                           "scarecrow at least 1",
    "Not While the Field Stands: the defeat replaced": "set flag risen",
    "Rooted: no blow below 1 health": "limit killer takes damage to at most (killer health minus 1) while count "
                                      "tokens scarecrow at least 1",
    "Fresh Straw: a trigger with a condition": "when start of killer if count tokens scarecrow at least 3 "
                                               "{ heal killer 1 }",
    "Crows in the Corn: a scarecrow where a victim dies": "when victim dies { place token scarecrow at it }",
    "Reaping Time: to the most victims, then farthest": "move killer to (any with most victims then farthest "
                                                        "from fg)",
    "The Burning Field: fear by scarecrows standing": "when revealed { raise fear (count tokens scarecrow) }",
}
GAMES_PER_SCENARIO = 50


def _play_fan2(scenario: str, seed: int, bot: str):
    """One bot game against the Corn Warden."""
    rs, _ = _fan2()
    state, events = api.new_game(rs, seed=seed, killer=FAN2_ID, scenario=scenario)
    log = list(events)
    state = api.play(state, BOTS[bot](seed), max_choices=20000, on_events=log.extend)
    return state, log


def test_bots_play_the_v2_fan_killer_and_every_ability_fires():
    """50 games per bundled scenario for each of the random and the greedy bot: every game ends without
    an error; each distinctive ability shows in the log of at least one game; she burns a scarecrow
    and wins at least once; a game played again gives the same log."""
    rs, _ = _fan2()
    lines = FAN2_FILE.read_text(encoding="utf-8").splitlines()
    path = str(FAN2_FILE)
    seen: set[str] = set()
    burned = wins = 0
    for scenario in sorted(rs.scenarios):
        for seed in range(1, GAMES_PER_SCENARIO + 1):
            for bot in ("random", "greedy"):
                state, log = _play_fan2(scenario, seed, bot)
                assert state.over and state.result in ("fg", "killer"), (scenario, seed, bot)
                wins += state.result == "fg"
                burned += any(e.kind == "action" and e.text == "Burn the scarecrow here" for e in log)
                for e in log:
                    src, _, _col = e.source.rpartition(":")
                    file, _, line = src.rpartition(":")
                    if file == path:
                        seen.add(lines[int(line) - 1].strip())
        for bot in ("random", "greedy"):
            assert _play_fan2(scenario, 2, bot)[1] == _play_fan2(scenario, 2, bot)[1]
    missing = [name for name, line in ABILITIES.items() if line not in seen]
    assert missing == [], f"never fired in {4 * GAMES_PER_SCENARIO} games: {missing}"
    assert burned > 0 and wins > 0


def test_a_replaced_defeat_leaves_log_and_token_agreeing():
    """C17.1: the log and the state say the same of the killer's last-breath token after the Corn
    Warden's defeat is replaced: lost (gone) in both, or not lost in either."""
    rs, _ = _fan2()
    text = """ruling rises {
  rules "C17.1"
  position {
    killer corn-warden; scenario storybook-woods
    fg at millpond; fear 0; killer at millpond; killer health 0; killer last_breath white
    tokens scarecrow scarecrow at hollow-gate
    hand critical-blow; dice 6 6 6 6 6
  }
  play critical-blow
  expect log "instead of the killer being defeated"
}
"""
    parsed, diags = rulings.parse_rulings(rs, text, "rises.ruling")
    assert diags == []
    outcome = rulings.run(parsed[0])
    assert outcome.ok, outcome.message
    said_lost = any("last-breath token is lost" in e.text for e in outcome.log)
    token = outcome.state.killers[0].breath
    assert said_lost == (token == 0), (said_lost, token)
