"""The registry of node families: every node of every family has each of its functions, found by
name, and no module walks the content tree by itself (dsl/nodes.py: members, functions, walk).

A new node is one class in dsl/nodes.py plus its functions: these tests name the ones missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lastbreath.dsl import nodes as n
from lastbreath.dsl.render import dsl_writer_for, renderer_for
from lastbreath.interpreter import engine
from lastbreath.interpreter.engine import amounts, conditions, effects, places, statics, tables, triggers

ROOT = Path(__file__).resolve().parent.parent

# family -> (the engine's table of its functions, the module that defines them, their prefix)
ENGINE_FUNCTIONS = {
    n.Effect: (tables.EXEC, effects, "exec_"),
    n.Condition: (tables.EVAL, conditions, "eval_"),
    n.Amount: (tables.AMOUNT, amounts, "amount_"),
    n.Place: (tables.PLACE, places, "place_"),
    n.Rule: (statics.RULE_FUNCTIONS, statics, "rule_"),
    n.Event: (triggers.MATCH, triggers, "match_"),
    n.Piece: (triggers.MATCH, triggers, "match_"),
}


def _family_params():
    for fam in n.FAMILIES:
        for cls in n.members(fam):
            yield pytest.param(fam, cls, id=f"{fam.__name__}-{cls.__name__}")


@pytest.mark.parametrize(("family", "cls"), list(_family_params()))
def test_every_node_of_every_family_has_its_functions(family, cls):
    assert renderer_for(cls) is not None, f"dsl/render.py has no _render_{n.snake(cls.__name__)} for {cls.__name__}"
    if family is n.Decl:
        return  # declarations and their parts: English only (they are written, not resolved)
    assert dsl_writer_for(cls) is not None, (f"{cls.__name__} has neither PHRASES nor a "
                                             f"_dsl_{n.snake(cls.__name__)} in dsl/render.py")
    table, module, prefix = ENGINE_FUNCTIONS[family]
    assert cls in table, f"{module.__name__} has no {prefix}{n.snake(cls.__name__)} for {cls.__name__}"


def test_the_families_cover_every_node_class():
    nodes = [c for c in vars(n).values() if isinstance(c, type) and issubclass(c, n.Node) and c.__module__ == n.__name__]
    concrete = [c for c in nodes if c not in (n.Node, n.Control, *n.FAMILIES)]
    covered = {c for f in n.FAMILIES for c in n.members(f)}
    assert set(concrete) == covered
    assert all(sum(issubclass(c, f) for f in n.FAMILIES) == 1 for c in concrete), "each node is in one family"


def test_the_families_are_sealed():
    with pytest.raises(TypeError, match="sealed"):
        type("Stray", (n.Effect,), {"__module__": "elsewhere"})


def test_every_function_found_by_name_belongs_to_a_node():
    """A function named like a node's (exec_x, eval_x, …) with no node class x is a typo or a leftover."""
    for family, (_table, module, prefix) in ENGINE_FUNCTIONS.items():
        names = {n.snake(c.__name__) for f, (_t, m, _p) in ENGINE_FUNCTIONS.items() if m is module
                 for c in n.members(f)}
        stray = [f for f in vars(module) if f.startswith(prefix) and callable(getattr(module, f))
                 and f[len(prefix):] not in names]
        assert not stray, f"{module.__name__}: {stray} match no {family.__name__} node"


def test_the_dispatch_tables_are_the_engines():
    assert engine.EXEC is tables.EXEC and engine.EVAL is tables.EVAL


# --- one walker ----------------------------------------------------------------------------
# A module that walks the content tree itself reads the fields of nodes (attrs.fields / attrs.has)
# or defines a walker; only dsl/nodes.py may. serialize.py and fieldgen.py read the fields of the
# game state, which is not content.
WALKING = re.compile(r"\battrs\.(fields|has)\(|^\s*def \w*walk\w*\(", re.M)
ALLOWED = {"dsl/nodes.py": "the walker itself", "interpreter/serialize.py": "the state's fields, not content",
           "interpreter/fieldgen.py": "the state's fields, not content"}


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for d in ("dsl", "interpreter")
                                         for p in (ROOT / d).rglob("*.py")))
def test_no_module_walks_the_content_tree_by_itself(path):
    if path in ALLOWED:
        return
    text = (ROOT / path).read_text(encoding="utf-8")
    hits = [m.group(0).strip() for m in WALKING.finditer(text)]
    assert not hits, f"{path} walks nodes itself ({hits}): use nodes.walk / children / fields"


def test_walk_visits_every_node_once_per_parent_in_field_order():
    inner = n.Not(None, n.FlagSet(None, "a"))
    tree = n.If(None, inner, (n.SetFlag(None, "b"),), (n.ClearFlag(None, "c"),))
    assert [type(x).__name__ for x in n.walk(tree)] == ["If", "Not", "FlagSet", "SetFlag", "ClearFlag"]
    assert [type(x).__name__ for x in n.children(tree)] == ["Not", "SetFlag", "ClearFlag"]
