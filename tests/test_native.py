"""The engine compiled with mypyc (interpreter/native.py, `lastbreath native`): found only for the
very source it was built from, never by a process that asked for the plain modules, and playing
every bundled game exactly as the plain modules do (C1, C18: the same games from the same seeds)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from lastbreath.interpreter import native
from lastbreath.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_the_compiled_modules_are_the_engines_rules_modules_less_those_left_out():
    names = native.compiled_modules()
    assert names and all(n.startswith(native.ENGINE + ".") for n in names)
    stems = {n.rsplit(".", 1)[1] for n in names}
    assert "phases" in stems and "enemies" in stems
    assert not stems & set(native._LEFT_OUT) and "__init__" not in stems
    assert stems | set(native._LEFT_OUT) == {p.stem for p in (ROOT / "interpreter" / "engine").glob("*.py")} - {"__init__"}


def test_the_key_names_the_source(tmp_path, monkeypatch):
    """A build is found by a hash of the source it depends on: the compiled modules and every module
    they import, followed from module to module (native.depends_on). One byte changed there is
    another key (the stale build is never loaded); a change in a module the engine does not import
    (the command line) or a new file nobody imports leaves the key, and the build in use."""
    copy = tmp_path / "pkg"
    for sub in ("dsl", "interpreter"):
        shutil.copytree(ROOT / sub, copy / sub, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(native, "_ROOT", copy)
    before = native.key()
    assert before == native.key() and len(before) == 24
    rel = {p.relative_to(copy).as_posix() for p in native.depends_on()}
    assert {"interpreter/engine/words.py", "interpreter/state.py", "dsl/nodes.py", "interpreter/__init__.py",
            "interpreter/engine/__init__.py", "interpreter/native.py"} <= rel
    assert not rel & {"interpreter/cli.py", "interpreter/serve.py", "interpreter/simulate.py", "interpreter/bots.py"}

    def append(path: str, text: str) -> None:
        f = copy / path
        f.write_text(f.read_text(encoding="utf-8") + text, encoding="utf-8")

    append("interpreter/cli.py", "\n# a comment\n")
    (copy / "dsl" / "extra.py").write_text("", encoding="utf-8")
    assert native.key() == before
    append("dsl/nodes.py", "\n")  # imported by the engine: another key
    assert native.key() != before
    after_nodes = native.key()
    append("interpreter/engine/words.py", "\n\ndef _later():\n    from ...dsl import extra  # noqa\n")
    assert "dsl/extra.py" in {p.relative_to(copy).as_posix() for p in native.depends_on()}  # imports in functions too
    assert native.key() != after_nodes
    now = native.key()
    (copy / "dsl" / "extra.py").write_text("X = 1\n", encoding="utf-8")  # now imported: it counts
    assert native.key() != now


def test_the_import_scan_reads_every_form_of_import(tmp_path):
    """What a module imports of this package, in each way Python lets it be written (a module's
    name says where its relative imports lead): a missed import would leave a build in use after
    a file it depends on changed."""
    f = tmp_path / "m.py"
    f.write_bytes(("\ufeff"  # a byte-order mark
                   "import lastbreath.dsl.syntax as s, os\n"
                   "from lastbreath.dsl import (nodes as n,  # a comment (with brackets)\n    limits)  # another\n"
                   "def f():\n    from ..state import GameState\n"
                   "from . import words, triggers\n"
                   "from .working import Work\n"
                   "from ... import dsl\n"
                   "from networkx import Graph\n"
                   "import sys; from .tokens import place_token\n"
                   "from lastbreath.interpreter import \\\n    rng\n"
                   "if sys: from lastbreath.interpreter import board  # a comment ending in \\\n"
                   "from .import items\n"
                   "from..import api\n"
                   "from lastbreath . interpreter import serialize\n"
                   "try: import lastbreath.interpreter.bots\nexcept ImportError: pass\n"
                   "\f\n"
                   '"""from nothing import (a docstring\n"""\n'
                   "from lastbreath.interpreter import session\n").encode("utf-8"))
    found = native._imports("lastbreath.interpreter.engine.m", f)
    for name in ("lastbreath.dsl.syntax", "lastbreath.dsl.nodes", "lastbreath.dsl.limits", "lastbreath.interpreter.state",
                 "lastbreath.interpreter.engine.words", "lastbreath.interpreter.engine.triggers",
                 "lastbreath.interpreter.engine.working", "lastbreath.dsl", "lastbreath.interpreter.engine.tokens",
                 "lastbreath.interpreter.rng", "lastbreath.interpreter.board", "lastbreath.interpreter.engine.items",
                 "lastbreath.interpreter.api", "lastbreath.interpreter.serialize", "lastbreath.interpreter.bots",
                 "lastbreath.interpreter.session"):
        assert name in found, name
    assert not any(n.startswith(("os", "networkx")) for n in found)
    f.write_text("def broken(:\n", encoding="utf-8")  # a file that does not parse may import anything
    assert "lastbreath.interpreter.cli" in native._imports("lastbreath.interpreter.engine.m", f)


def test_a_build_depends_on_what_it_compiles_whatever_its_manifest_says(tmp_path, monkeypatch):
    """A manifest naming fewer files than the compiled modules and native.py is no build for this
    source, even in a folder named by their hash."""
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    sources = ["interpreter/native.py"]
    where = tmp_path / "native" / native._digest(sources)
    where.mkdir(parents=True)
    (where / "m.so").write_text("", encoding="utf-8")
    (where / native.MANIFEST).write_text(json.dumps({"files": {"some.module": "m.so"}, "sources": sources}),
                                         encoding="utf-8")
    assert native._current(tmp_path / "native") is None
    full = [p.relative_to(native._ROOT).as_posix() for p in native.depends_on()]
    (where / native.MANIFEST).write_text(json.dumps({"files": {"some.module": "m.so"}, "sources": full}),
                                         encoding="utf-8")
    where.rename(where.parent / native._digest(full))
    assert native._current(tmp_path / "native") == where.parent / native._digest(full)


def test_no_build_means_the_plain_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    monkeypatch.setattr(native, "_installed", None)
    assert native.install() is None
    (tmp_path / "native" / native.key()).mkdir(parents=True)  # a folder without a manifest: not a build
    assert native.install() is None
    info = native.status()
    assert info["built"] is False and info["folder"] == str(tmp_path / "native" / native.key())


@pytest.mark.parametrize("manifest", ["", "{", '{"files": {}}', '{"files": {"a.b": "../x.so"}}', '{"files": 3}',
                                      '{"files": {"a.b": "missing.so"}}', "[]"])
def test_a_broken_manifest_is_no_build(tmp_path, manifest):
    (tmp_path / native.MANIFEST).write_text(manifest, encoding="utf-8")
    (tmp_path.parent / "x.so").write_text("", encoding="utf-8")
    assert native._manifest_files(tmp_path) is None


def test_off_means_the_plain_modules_even_with_a_build(tmp_path, monkeypatch):
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    monkeypatch.setattr(native, "_installed", None)
    where = tmp_path / "native" / native.key()
    where.mkdir(parents=True)
    (where / "m.so").write_text("", encoding="utf-8")
    sources = [p.relative_to(native._ROOT).as_posix() for p in native.depends_on()]
    (where / native.MANIFEST).write_text(json.dumps({"files": {"some.module": "m.so"}, "sources": sources}),
                                         encoding="utf-8")
    assert native._manifest_files(where) == {"some.module": where / "m.so"}
    for off in ("off", "0", "no", "FALSE"):
        monkeypatch.setenv("LASTBREATH_NATIVE", off)
        assert not native.enabled() and native.install() is None
    monkeypatch.setenv("LASTBREATH_NATIVE", "on")
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # the finder goes away with the test
    assert native.install() == where  # a build for this source, modules not loaded yet: its finder is put first
    spec = sys.meta_path[0].find_spec("some.module")
    assert spec is not None and spec.origin == str(where / "m.so")
    assert sys.meta_path[0].find_spec("other.module") is None


def test_cli_status_and_clean(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    assert main(["native", "status", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["built"] is False and info["key"] == native.key() and info["compiled"] == native.compiled_modules()
    assert info["sources"] == [p.relative_to(native._ROOT).as_posix() for p in native.depends_on()]
    assert main(["native"]) == 0
    out = capsys.readouterr().out
    assert "not built for this source" in out and f"depends on {len(info['sources'])} source files" in out
    (tmp_path / "native" / "old").mkdir(parents=True)
    (tmp_path / "native" / native.key()).mkdir()
    assert main(["native", "clean", "--keep-current", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["removed"] == [str(tmp_path / "native" / "old")]
    assert (tmp_path / "native" / native.key()).is_dir()
    assert main(["native", "clean"]) == 0
    assert "removed 1 build" in capsys.readouterr().out


def test_a_build_without_mypyc_is_a_clear_error(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mypyc" else real(name, *a))
    assert main(["native", "build"]) == 1
    err = capsys.readouterr().err
    assert "native build failed: mypyc is not installed" in err and "Traceback" not in err


def test_a_build_refuses_stale_working_copy_fields(monkeypatch, tmp_path, capsys):
    """A compiled Work declares the state's fields generated from GameState (interpreter/fieldgen.py):
    a build from stale ones would lack a field, so it stops and names the command that mends them."""
    from lastbreath.interpreter import fieldgen

    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    fields = fieldgen.state_fields()
    monkeypatch.setattr(fieldgen, "state_fields", lambda: [*fields, ("lanterns", "int")])
    assert main(["native", "build"]) == 1
    err = capsys.readouterr().err
    assert "differ from GameState's fields: run python -m lastbreath.interpreter.fieldgen" in err
    assert "Traceback" not in err and not list(tmp_path.glob("native/*"))


# --- the same games, compiled and plain ------------------------------------------------------------
_PLAY = r"""
import hashlib, json, os, sys
from lastbreath.dsl import load_ruleset
from lastbreath.interpreter import api, native
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.serialize import to_json
from lastbreath.interpreter.simulate import run_games
rs = load_ruleset()
out = {"loaded": native.loaded()}
for k in sorted(rs.killers):
    for s in sorted(rs.scenarios):
        for bot in ("random", "greedy"):
            for seed in range(2):
                h = hashlib.sha256()
                st, ev = api.new_game(rs, killer=k, scenario=s, seed=seed)
                h.update(repr(ev).encode())
                policy = BOTS[bot](seed)
                while not st.over:
                    h.update(repr((st.choice.kind, st.choice.prompt, st.choice.options)).encode())
                    st, ev = api.apply(st, policy(st, st.choice))
                    h.update(repr(ev).encode())
                h.update(json.dumps(to_json(st), sort_keys=True).encode())
                out[f"{k}/{s}/{bot}/{seed}"] = h.hexdigest()
        recs = run_games(rs, {"killer": k, "scenario": s}, games=12, seed=5, bot="random", jobs=1)
        out[f"{k}/{s}/simulated"] = repr([(r.seed, r.result, r.end_reason, r.rounds, r.rescued, r.dead, r.bloodlust,
                                          r.error, r.transitions) for r in recs])
from lastbreath.dsl.diagnostics import IllegalChoice
from lastbreath.interpreter.cli import main as cli
st, _ = api.new_game(rs, seed=1)
bad = []
for key in (None, 5, ["x"], ("x",), b"x", "nope"):  # a bad answer is E301, compiled or not
    try:
        api.apply(st, key)
    except IllegalChoice:
        bad.append("IllegalChoice")
    except Exception as err:
        bad.append(type(err).__name__)
out["bad keys"] = bad
from lastbreath.interpreter import engine
def wrong_policy(st, choice):
    return choice.options[0].key
bad = []
for wrong in (99, -1, "0", None, 1.0):  # a policy's bad index is E301 too
    wrong_policy.choose_index = lambda options, wrong=wrong: wrong
    st, _ = api.new_game(rs, seed=5)
    try:
        engine.play_out(st, wrong_policy, 50, None, None, lambda ev: None)
    except IllegalChoice:
        bad.append("IllegalChoice")
    except Exception as err:
        bad.append(type(err).__name__)
out["bad policies"] = bad
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):  # the fuzzer's checks read states with the rules modules
    out["fuzz"] = cli(["fuzz", "--games", "3", "--jobs", "1", "--no-progress"])
print(json.dumps(out))
"""


def _compiler() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None and Path(sysconfig.get_paths()["include"], "Python.h").is_file()


@pytest.mark.skipif(importlib.util.find_spec("mypyc") is None or not _compiler(),
                    reason="a native build needs mypyc (mypy, in the test extra) and a C compiler with Python's headers")
def test_the_compiled_engine_plays_every_bundled_game_as_the_plain_one(tmp_path):
    """Builds the engine into a fresh cache folder (about a minute and a half; a copy of the build
    for this source in the user's cache folder where there is one, as after the README's set-up and
    in CI, whose `lastbreath native build` then stands for the build), then plays every bundled
    killer × scenario with the random and the greedy bots, every choice, event and state compared,
    and the simulator's records, in a process running the compiled modules and in one running the
    plain ones; and bad answers and the fuzzer's checks, which hand the rules modules what the games
    do not (a compiled function checks its arguments' types)."""
    env = {**os.environ, "LASTBREATH_CACHE": str(tmp_path), "PYTHONHASHSEED": "0"}
    env.pop("LASTBREATH_NATIVE", None)
    made = native._folder()
    made = made / native.key() if made is not None else None
    if made is not None and native._manifest_files(made) is not None:
        shutil.copytree(made, tmp_path / "native" / made.name)
    else:
        done = subprocess.run([sys.executable, "-m", "lastbreath.interpreter.cli", "native", "build", "--json"],
                              env=env, capture_output=True, text=True, timeout=native.BUILD_TIMEOUT)
        assert done.returncode == 0, done.stderr
        built = json.loads(done.stdout)
        assert built["built"] is True and built["modules"] == native.compiled_modules()
    again = subprocess.run([sys.executable, "-m", "lastbreath.interpreter.cli", "native", "build", "--json"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and json.loads(again.stdout)["built"] is False  # kept by key: not built twice

    def play(native_on: bool) -> dict:
        e = dict(env, LASTBREATH_NATIVE="on" if native_on else "off")
        got = subprocess.run([sys.executable, "-c", _PLAY], env=e, capture_output=True, text=True, timeout=900)
        assert got.returncode == 0, got.stderr[-3000:]
        return json.loads(got.stdout)

    compiled, plain = play(True), play(False)
    assert compiled.pop("loaded") == native.compiled_modules()  # the games below did run compiled
    assert plain.pop("loaded") == []
    assert len(compiled) >= 12 * 5
    assert plain["bad keys"] == ["IllegalChoice"] * 6 and plain["bad policies"] == ["IllegalChoice"] * 5
    assert plain["fuzz"] == 0
    assert compiled == plain


def test_a_build_keeps_the_newest_few_others(tmp_path):
    """Each source built is a build of its own: after a build, those of older sources beyond the
    newest KEEP_BUILDS (this one included) are removed, so the cache folder does not grow without end."""
    import time

    now = time.time()  # file ages set by hand (no time is measured)
    olds = []
    for i in range(6):
        d = tmp_path / f"old{i}"
        d.mkdir()
        os.utime(d, (now - 100 + i, now - 100 + i))
        olds.append(d)
    current = tmp_path / "current"
    current.mkdir()
    running = tmp_path / ".abc-123"  # another build being put in place: left alone
    running.mkdir()
    stopped = tmp_path / ".def-456"  # the leftover of a build stopped long ago: removed
    stopped.mkdir()
    old = now - native.BUILD_TIMEOUT - 10
    os.utime(stopped, (old, old))
    gone = native._prune(tmp_path, current)
    assert gone == [stopped, *olds[:6 - native.KEEP_BUILDS + 1]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["current", ".abc-123",
                                                                 *(d.name for d in olds[-(native.KEEP_BUILDS - 1):])])
    assert native._prune(tmp_path, current) == []


def test_a_build_refuses_a_source_changed_while_it_is_copied(tmp_path, monkeypatch):
    """What a build compiles is the source its key names: a file changed between the key and the
    copy that is compiled is a BuildError, not a build filed under the old key."""
    if importlib.util.find_spec("mypyc") is None:
        pytest.skip("needs mypyc")
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    real = native._digest
    calls = []

    def digest(sources, root=None):
        calls.append(root)
        got = real(sources, root)
        return got if root is None else "0" * 24  # the staged copy hashes otherwise
    monkeypatch.setattr(native, "_digest", digest)
    with pytest.raises(native.BuildError, match="changed while it was being copied"):
        native.build()
    assert calls[0] is None and calls[1] is not None
    assert not any((tmp_path / "native").iterdir())


def test_an_unreadable_cache_folder_means_the_plain_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path))
    monkeypatch.setattr(native, "_installed", None)
    (tmp_path / "native").mkdir()

    def refuse(*_a, **_k):
        raise PermissionError("no")
    monkeypatch.setattr(Path, "iterdir", refuse)
    assert native.install() is None


def test_simulate_says_which_engine_played_and_how_to_get_the_compiled_one(capsys):
    """`simulate` names the engine that played (JSON: engine), and a person running the plain one
    is told how to compile it (the suite runs the plain modules: conftest)."""
    assert native.engine_kind() == "plain"
    assert main(["simulate", "--games", "3", "--jobs", "1", "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "plain"
    assert main(["simulate", "--games", "3", "--jobs", "1", "--no-progress"]) == 0
    assert "plain engine: `lastbreath native build`" in capsys.readouterr().out.splitlines()[-1]
    assert main(["simulate", "--games", "2", "--matrix", "--killer", "zombies", "--jobs", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"]["engine"] == "plain"


def test_a_build_is_found_while_the_source_it_depends_on_is_unchanged(tmp_path, monkeypatch):
    """Importing the engine finds a build by the files its manifest names, hashed again: a change to
    the command line keeps it; a change to an engine module (or a manifest without its sources, as
    builds made before) means the plain modules."""
    copy = tmp_path / "pkg"
    for sub in ("dsl", "interpreter"):
        shutil.copytree(ROOT / sub, copy / sub, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(native, "_ROOT", copy)
    monkeypatch.setenv("LASTBREATH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LASTBREATH_NATIVE", "on")
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # the finders go away with the test
    where = tmp_path / "cache" / "native" / native.key()
    where.mkdir(parents=True)
    (where / "m.so").write_text("", encoding="utf-8")
    sources = [p.relative_to(copy).as_posix() for p in native.depends_on()]

    def found(manifest: dict) -> bool:
        (where / native.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        monkeypatch.setattr(native, "_installed", None)
        return native.install() == where

    assert found({"files": {"some.module": "m.so"}, "sources": sources})
    cli = copy / "interpreter" / "cli.py"
    cli.write_text(cli.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert found({"files": {"some.module": "m.so"}, "sources": sources})
    assert native.status()["built"] is True
    assert not found({"files": {"some.module": "m.so"}})  # no sources named
    assert not found({"files": {"some.module": "m.so"}, "sources": ["../../etc/passwd.py"]})
    words = copy / "interpreter" / "engine" / "words.py"
    words.write_text(words.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert not found({"files": {"some.module": "m.so"}, "sources": sources})
    assert native.status()["built"] is False
