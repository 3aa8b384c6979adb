"""Shared fixtures: the bundled ruleset, fresh games, and working copies for rule-level tests."""

from __future__ import annotations

import os

# the suite runs the plain modules, built or not (tests patch module functions; test_native.py
# builds the compiled engine itself and compares its games with these): LASTBREATH_NATIVE=on to run it compiled
os.environ.setdefault("LASTBREATH_NATIVE", "off")

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# no test depends on the machine's load: hypothesis's per-example deadline and its 'too slow'
# check are wall-clock measures, so they are off for every property test (a speed budget belongs
# in examples/benchmark.py)
settings.register_profile("load-independent", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("load-independent")
from lastbreath.dsl import bundled_paths, load_ruleset
from lastbreath.interpreter import engine, rng
from lastbreath.interpreter.api import new_game


@pytest.fixture(scope="session")
def rs():
    return load_ruleset()


@pytest.fixture()
def game(rs):
    """A fresh game (seed 1) of the default killer, scenario and Final Girl, paused at its first choice."""
    state, _events = new_game(rs, seed=1)
    return state


def make_work(state, answers=()):
    """A mutable working copy: call engine functions on it; choices are answered from ``answers``."""
    return engine.work(state, tuple(answers))


def fx(text: str) -> tuple:
    """Effect lines built on their own, as a card's outcome (their names are the loaded packs')."""
    from lastbreath.dsl import parse_text
    from lastbreath.dsl.build import build_file

    src = f'card t {{\n  name "T"\n  cost 0\n  fail {{\n{text}\n  }}\n}}\n'
    lines, diags = parse_text(src, "<test>")
    assert not diags
    decls, _refs, diags = build_file(lines, "<test>", src)
    assert not diags, [d.message for d in diags]
    return decls[0].outcomes[0].effects


def run_effects(state, text: str, answers=()):
    """The effect lines ``text`` resolved on a working copy of ``state``; the copy is returned."""
    from lastbreath.interpreter.engine import Ctx

    w = make_work(state, answers)
    engine.run(w, fx(text), Ctx())
    return w


def texts(w) -> list[str]:
    """The texts of the events a working copy has told so far."""
    return [e.text for e in w.ctl.events]


def load_with(tmp_path: Path, text: str, name: str = "extra.fg"):
    """The bundled content plus one extra file (a test killer, scenario, card…)."""
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return load_ruleset([*bundled_paths(), f])


def need(w, fn, *args):
    """The choice ``fn`` stops at (it must need one)."""
    with pytest.raises(engine.NeedChoice) as ei:
        fn(w, *args)
    return ei.value.choice


def finish_phase(w, limit: int = 20) -> None:
    """Run the steps of the current phase until it ends (a phase may take several steps)."""
    ph = w.phase
    for _ in range(limit):
        if w.phase != ph:
            return
        engine.STEPS[ph](w)
    raise AssertionError(f"the {ph} phase did not end")


def rules_of(w):
    return [e.rule for e in w.ctl.events]


@pytest.fixture(scope="module")
def bundled_parse_cache():
    """Kept for the modules that ask for it: loading content many times is cheap now that clean
    files are built once and kept in the cache folder (dsl/cache.py)."""
    yield


def settle(state, **fields):
    """A settled copy (no pending choice) with some fields changed. Between two steps the victims
    on the board, held, dead and rescued are those that came into play (validate.py): a copy whose
    victims are set by hand has them come into play so, unless ``victims_in`` is given."""
    st = engine.replace(state, choice=None, answers=(), checkpoint=None, events_seen=0, **fields)
    if "victims_in" not in fields and {"victims", "holding", "dead", "rescued"} & set(fields):
        from lastbreath.interpreter.validate import accounted_victims

        st = engine.replace(st, victims_in=accounted_victims(st))
    return st


def counter_for(seed: int, faces, start: int = 0) -> int:
    """The rng counter from which the next dice show exactly ``faces``."""
    c = start
    while True:
        if all(rng.draw(seed, c + i, 6) + 1 == f for i, f in enumerate(faces)):
            return c
        c += 1


def rig(state, faces, **fields):
    """A settled copy whose next dice show ``faces``."""
    return settle(state, rng=counter_for(state.seed, faces), **fields)


def L(state, lid: str) -> int:
    """A location's index on the state's board."""
    return state.game.board.index[lid]


def victims_at(state, **where) -> tuple:
    """A victims tuple: victims_at(st, day_room=2) puts two victims in the Day Room, none elsewhere."""
    v = [0] * state.game.board.n
    for k, count in where.items():
        v[L(state, k.replace("_", "-"))] = count
    return tuple(v)


def patch_engine(monkeypatch, name: str, fn) -> None:
    """Replace an engine function in every module of the engine package that names it (to inject
    a fault: a module calls what it imported, so patching the package alone reaches nobody)."""
    import importlib
    import pkgutil

    modules = [engine] + [importlib.import_module(f"{engine.__name__}.{m.name}")
                          for m in pkgutil.iter_modules(engine.__path__)]
    for mod in modules:
        if hasattr(mod, name):
            monkeypatch.setattr(mod, name, fn)


def pytest_terminal_summary(terminalreporter):
    """Where the browser tests (tests/test_web.py) left their screenshots of the board."""
    import sys

    web = sys.modules.get("test_web") or sys.modules.get("tests.test_web")
    shots = getattr(web, "SHOTS", None)
    if shots:
        terminalreporter.write_line(f"web: {len(shots)} screenshots of the board in {Path(shots[0]).parent}")
