"""The code of the language and the engine stays clean: ruff (pyproject's [tool.ruff]) and mypy
([tool.mypy]) on dsl/ and interpreter/, run by the suite so that CI holds every commit to it.

mypy checks the package by its installed name (``lastbreath.dsl``, ``lastbreath.interpreter``),
through the links in .typecheck/lastbreath/, so that a bare ``python -m mypy`` in the checkout is
the same check. Each tool is skipped, saying so, where it is missing (it is in the ``test`` extra)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(module: str) -> list[str]:
    try:
        __import__(module)
    except ImportError:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")
    return [sys.executable, "-m", module]


def test_ruff_finds_nothing_in_the_language_and_the_engine():
    cmd = _tool("ruff")
    done = subprocess.run([*cmd, "check", "--no-cache", "dsl", "interpreter"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing_in_the_language_and_the_engine(tmp_path):
    """``python -m mypy`` as a contributor runs it, bare, from the checkout: pyproject's [tool.mypy]
    checks lastbreath.dsl and lastbreath.interpreter through .typecheck/'s links."""
    cmd = _tool("mypy")
    done = subprocess.run([*cmd, "--no-incremental", "--cache-dir", str(tmp_path / ".mypy_cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def test_every_type_ignore_names_its_error_code_and_why():
    """A ``type: ignore`` silences one error code, says why on its line, and there are few of them."""
    found = []
    for p in sorted([*(ROOT / "dsl").rglob("*.py"), *(ROOT / "interpreter").rglob("*.py")]):
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if "type: ignore" in line:
                found.append((f"{p.relative_to(ROOT)}:{i}", line))
    bare = [where for where, line in found if not re.search(r"type: ignore\[[a-z-]+(, [a-z-]+)*\]\s+#\s*\S", line)]
    assert bare == [], "each needs [code] and a '# reason' after it"
    assert len(found) <= 15, [where for where, _ in found]


def test_the_readmes_two_commands_are_ci_s_install_and_test_command():
    """Issue 35: the README's set-up is one command that installs (with the extras CI installs) and
    plays, and its test command is the one .ci/run runs, so a newcomer's suite is CI's suite."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up and play\n", 1)[1].split("\n## ", 1)[0]
    tests = readme.split("## Run the tests\n", 1)[1].split("\n## ", 1)[0]
    commands = [ln.strip() for ln in setup.splitlines() if ln.startswith("    ")]
    assert len(commands) == 1 and commands[0].endswith("&& lastbreath play"), commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extras = re.findall(r"pip install (?:--quiet )?-e '\.\[([a-z,]+)\]'", commands[0] + "\n" + ci)
    assert len(extras) == 2 and extras[0] == extras[1], extras
    run = [ln.strip() for ln in tests.splitlines() if ln.startswith("    ")]
    assert run == [". .venv/bin/activate && python -m pytest"]
    assert ci.rstrip().splitlines()[-1] == "python -m pytest"
