"""The code's shape holds: no import cycle outside the engine package and none inside it held
together by an import inside a function, no engine module over 500 lines, no module taking
another's private names, and comments and docs that lead to documents in the repository."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "lastbreath"
SOURCES = sorted([*(ROOT / "dsl").rglob("*.py"), *(ROOT / "interpreter").rglob("*.py")])


def _module(p: Path) -> str:
    parts = p.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


MODULES = {_module(p): p for p in SOURCES}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    base = node.module or ""
    if node.level:
        up = module.split(".") if is_package else module.split(".")[:-1]
        up = up[:len(up) - node.level + 1]
        base = ".".join([*up, *filter(None, [base])])
    out = [base, *(f"{base}.{a.name}" for a in node.names)]
    return [m for m in out if m in MODULES]


def _imports(p: Path, in_functions: bool) -> set[str]:
    """The modules of the package ``p`` imports when it runs: at its top level (not under ``if
    TYPE_CHECKING``), and with ``in_functions`` also inside its functions."""
    module, is_package = _module(p), p.name == "__init__.py"
    tree = ast.parse(p.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            nested = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and (in_functions or not nested):
                found.update(_resolve(module, is_package, child))
            elif isinstance(child, ast.Import) and (in_functions or not nested):
                found.update(a.name for a in child.names if a.name in MODULES)
            visit(child, nested)
    visit(tree, False)
    # a module's own packages are imported before it, whatever it says: no edge to them
    ancestors = {".".join(module.split(".")[:i]) for i in range(1, len(module.split(".")))}
    return found - {module} - ancestors


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


ENGINE = f"{PACKAGE}.interpreter.engine"


def _outside_engine(modules: set[str]) -> set[str]:
    return {m for m in modules if not (m == ENGINE or m.startswith(ENGINE + "."))}


def test_no_import_cycle_outside_the_engine_even_through_imports_in_functions():
    """Imports inside functions (for a shorter start) never close a circle: the graph with them has
    no cycle that leaves the engine package."""
    graph = {m: _imports(p, in_functions=True) for m, p in MODULES.items()}
    # the engine package is one room: its modules may import each other at their top level
    bad = [sorted(_outside_engine(c)) for c in _cycles(graph) if _outside_engine(c)]
    assert bad == []


def test_no_engine_module_imports_inside_a_function():
    """The engine's rooms import each other at their top level only: an import inside a function
    would be a cycle dodged (a narrower module, or a registry, instead)."""
    found = []
    for m, p in MODULES.items():
        if m.startswith(ENGINE + ".") or m == ENGINE:
            inner = _imports(p, in_functions=True) - _imports(p, in_functions=False)
            if inner:
                found.append(f"{p.name}: {sorted(inner)}")
    assert found == []


def test_the_scan_finds_a_cycle_and_an_import_inside_a_function(tmp_path, monkeypatch):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from . import b\n", encoding="utf-8")
    b.write_text("def f():\n    from . import a\n", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path.parent)
    mods = {"lastbreath.x.a": a, "lastbreath.x.b": b}
    monkeypatch.setattr(__import__(__name__), "MODULES", mods)
    monkeypatch.setattr(__import__(__name__), "_module", lambda p: f"lastbreath.x.{p.stem}")
    graph = {m: _imports(p, in_functions=True) for m, p in mods.items()}
    assert _cycles(graph) == [set(mods)]
    assert _imports(b, in_functions=False) == set()


@pytest.mark.parametrize("path", sorted((ROOT / "interpreter" / "engine").glob("*.py")), ids=lambda p: p.name)
def test_no_engine_module_is_over_500_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500


def test_no_module_takes_another_modules_private_names():
    found = []
    for p in SOURCES:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                found += [f"{p.relative_to(ROOT)}: {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []


OUTSIDE = re.compile(r"\b(DESIGN|MECHANICS|STYLE|RULES)\.md\b|\.\./shared|\bseeds/")


def test_comments_and_docs_cite_what_the_repository_holds():
    """Code, content and docs lead to documents in the repository (docs/rules.md for the rules),
    never to files outside it."""
    found = []
    for p in [*SOURCES, *(ROOT / "tests").glob("*.py"), *ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"),
              *(ROOT / "dsl").glob("*.md"), *(ROOT / "examples").rglob("*.py"),
              *(ROOT / "cards").glob("*.fg"), *(ROOT / "killers").glob("*.fg"), *(ROOT / "scenarios").glob("*.fg")]:
        if p.name == "test_structure.py":
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{p.relative_to(ROOT)}:{i}")
    assert found == []
