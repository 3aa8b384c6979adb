"""GameState's field list is the only one: the working copy's fields (engine/working.py), its copies in
and out and the setters of the fields that decide the sources in play (engine/fields.py) are
generated from it (interpreter/fieldgen.py), and nothing writes such a field behind its setter."""

from __future__ import annotations

import ast
from pathlib import Path

import attrs
import pytest
from lastbreath.interpreter import fieldgen
from lastbreath.interpreter.engine import fields, working
from lastbreath.interpreter.state import GameState

ROOT = Path(__file__).resolve().parent.parent
NAMES = [f.name for f in attrs.fields(GameState)]


def test_the_generated_fields_are_gamestates():
    """The generated regions are what GameState's fields give today (else: python -m
    lastbreath.interpreter.fieldgen, which `--check` tells too)."""
    assert fieldgen.stale() == []
    assert fieldgen.main(["--check"]) == 0


def test_the_working_copy_declares_every_field_of_the_state_then_its_own():
    declared = list(working.Work.__annotations__)
    assert declared[:len(NAMES)] == NAMES
    assert set(declared[len(NAMES):]) == {"ctl", "scope", "sources", "found", "ends_read", "enemy_memo", "fg_memo"}


def test_the_copies_in_and_out_move_every_field_as_it_is(game):
    """A compiled Work copies the state's fields one by one: every field, in GameState's order, the
    very objects (the plain Work copies its __dict__ and checks the same here)."""
    w = working.work(game)
    got = fields.copy_out(w)
    assert list(got) == NAMES
    assert all(got[k] is game.__dict__[k] for k in NAMES)
    blank = working.Work.__new__(working.Work)
    fields.copy_in(blank, game.__dict__)
    assert all(working.field(blank, k) is game.__dict__[k] for k in NAMES)
    assert working.snapshot(w) == game.__dict__


def test_a_new_state_field_changes_both_generated_files(monkeypatch):
    """Adding a field is one edit to state.py: the generator then writes the working copy's
    annotation, its copy in and out (and a setter, if it decides the sources in play)."""
    monkeypatch.setattr(fieldgen, "state_fields", lambda: [*fieldgen_fields(), ("lanterns", "tuple[str, ...]")])
    assert sorted(p.name for p in fieldgen.stale()) == ["fields.py", "working.py"]
    want = fieldgen.expected()
    assert "    lanterns: tuple[str, ...]\n" in want[fieldgen.WORK]
    assert '    w.lanterns = d["lanterns"]' in want[fieldgen.FIELDS]
    assert '        "lanterns": w.lanterns,' in want[fieldgen.FIELDS]
    with pytest.raises(ValueError, match="GameState does not declare"):
        fieldgen.fields_module(("no_such_field",))


def fieldgen_fields() -> list[tuple[str, str]]:
    return [(f.name, str(f.type)) for f in attrs.fields(GameState)]


def test_the_check_names_a_stale_file_and_the_command(tmp_path, monkeypatch, capsys):
    copy = tmp_path / "fields.py"
    copy.write_text(fieldgen.FIELDS.read_text(encoding="utf-8").replace('    w.seed = d["seed"]\n', ""),
                    encoding="utf-8")
    monkeypatch.setattr(fieldgen, "FIELDS", copy)
    assert fieldgen.main(["--check"]) == 1
    assert "fields.py: differs from GameState's fields: run python -m lastbreath.interpreter.fieldgen" \
        in capsys.readouterr().err
    assert fieldgen.main([]) == 0  # rewritten
    assert fieldgen.stale() == []


def _writes(tree: ast.AST) -> list[tuple[int, str]]:
    """Assignments to an attribute named in SOURCE_FIELDS, and every setattr call."""
    out = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for x in ast.walk(t):
                if isinstance(x, ast.Attribute) and x.attr in working.SOURCE_FIELDS:
                    out.append((node.lineno, f"{ast.unparse(x)} ="))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_rules_module_writes_a_source_field_behind_its_setter():
    """A compiled Work forgets the sources in play only where a setter says so: every write of a
    field of SOURCE_FIELDS goes through fields.set_<field> (or fields.SETTERS), never ``w.held = …``
    or ``setattr``, so that no write can forget to forget (statics.abilities)."""
    found = []
    for p in sorted((ROOT / "interpreter" / "engine").glob("*.py")):
        if p.name == "fields.py":  # the setters themselves (generated)
            continue
        found += [f"{p.name}:{line}: {what}" for line, what in _writes(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []


def test_the_scan_sees_a_write_behind_a_setter():
    """The scan above finds each way such a write could be written."""
    text = "w.held = ()\nw.kept += ('x',)\nsetattr(w, 'pack', ())\nw.fear = 1\na.b.flipped = True\n"
    assert sorted(line for line, _ in _writes(ast.parse(text))) == [1, 2, 3, 5]
