"""The embedding examples run: examples/embed.py (Python API) and examples/client.mjs (Node.js over serve)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
