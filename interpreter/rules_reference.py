"""The rules reference (docs/rules.md): parsed into rules and families, and looked up by id with
the content lines and the tests that cite a rule.

docs/rules.md is the one copy of the rules text. An install ships it as package data of
``lastbreath.docs`` (pyproject.toml maps that package to the docs folder), so ``lastbreath rule``
works from a checkout, an editable install and a wheel alike.

Format: a family is a ``## ID Title`` heading (``C9``, ``S4``, ``K6``, ``V``) followed by an
optional introduction; a rule is a ``### ID Title`` heading (``C9.4``, ``V3``), its title ending
in ``(open)`` when the source leaves something open, followed by its paragraphs (an open rule has
one starting ``**Default:**``). Everything above the first family heading is the page's preamble.

Citations are whole ids: ``C9.4`` in ``[C9.4]`` or ``C9.4,`` but not in ``C9.41``, and ``C9``
not in ``C9.4`` (nor in ``C9_4``). Content lines cite an id anywhere in their text (mostly comments); a test cites
it in its function name (``test_c9_4_…``), its docstring, or a parametrize id.
"""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Optional

import attrs

__all__ = [
    "Family",
    "Reference",
    "Rule",
    "RulesPageError",
    "cite_pattern",
    "content_citing",
    "listing_data",
    "listing_text",
    "load_reference",
    "lookup_data",
    "normalize",
    "parse",
    "render_text",
    "rules_text",
    "rulings_citing",
    "rulings_dir",
    "tests_citing",
    "tests_dir",
]

RULES_PACKAGE = "lastbreath.docs"
RULES_FILE = "rules.md"
RULE_ID = re.compile(r"(?:[CSK]\d+\.\d+|V\d+)")
FAMILY_ID = re.compile(r"(?:[CSK]\d+|V)")
ANY_ID = re.compile(r"[CSKV]\d+(?:\.\d+)?")  # the shape of the ids events carry
_FAMILY_HEAD = re.compile(r"##\s+(\S+)\s+(.+?)\s*")
_RULE_HEAD = re.compile(r"###\s+(\S+)\s+(.+?)\s*")
_OPEN = "(open)"
_DEFAULT = "**Default:**"
MAX_TEST_FILES = 2000
MAX_FILE_CHARS = 2_000_000
MAX_LINE_SHOWN = 160
WIDTH = 100


class RulesPageError(ValueError):
    """docs/rules.md does not follow its format (a bad heading, a repeated id, a rule without text)."""


@attrs.frozen
class Rule:
    id: str
    family: str
    title: str
    text: str  # paragraphs separated by blank lines, Markdown bold markers removed
    open: bool = False
    default: str = ""  # the Default paragraph of an open rule, without its label
    line: int = 0  # of its heading in rules.md


@attrs.frozen
class Family:
    id: str
    title: str
    text: str  # the introduction under the heading ("" if none)
    rules: tuple[str, ...] = ()
    line: int = 0


@attrs.frozen
class Reference:
    families: dict[str, Family]
    rules: dict[str, Rule]
    source: str = RULES_FILE  # where the text was read from

    def ids(self) -> list[str]:
        """Every family and rule id, in page order (a family before its rules)."""
        out: list[str] = []
        for f in self.families.values():
            out.append(f.id)
            out.extend(f.rules)
        return out

    def find(self, query: str) -> Rule | Family | None:
        key = normalize(query)
        return self.rules.get(key) or self.families.get(key)

    def suggestions(self, query: str) -> list[str]:
        """Ids near an unknown query, the closest first: for an id-shaped query, the rules of the same
        family (or the families of the same letter) nearest in number (``C9.9`` -> ``C9.7``; ``C12``
        -> ``C11``, ``C13``); otherwise ids spelled alike."""
        key = normalize(query)
        m = re.fullmatch(r"([CSKV])(\d{1,6})(?:\.(\d{1,6}))?", key)  # (a 5 000-digit number is no rule's)
        if m:
            letter, num, sub = m.group(1), int(m.group(2)), m.group(3)
            if letter == "V" or sub is None:  # V3 and C9 are numbered within their letter
                pool = [(int(i[1:]), i) for i in (self.rules if letter == "V" else self.families)
                        if i[0] == letter and i[1:].isdigit()]
                want = num
            else:
                fam = self.families.get(f"{letter}{num}")
                pool = [(int(r.split(".")[1]), r) for r in fam.rules] if fam else []
                want = int(sub)
            if pool:
                best = min(abs(n - want) for n, _ in pool)
                return [i for n, i in sorted(pool) if abs(n - want) == best]
        return difflib.get_close_matches(key[:100], self.ids(), n=3, cutoff=0.6)

    def cited_ids(self, item: Rule | Family) -> list[str]:
        """The ids whose citations count for a rule (itself) or a family (its own id, if it has a
        number, and each of its rules)."""
        if isinstance(item, Rule):
            return [item.id]
        own = [item.id] if any(ch.isdigit() for ch in item.id) else []
        return own + list(item.rules)


def _clean(text: str) -> str:
    return text.replace("**", "")


def _paragraphs(lines: list[str]) -> list[str]:
    """Blank-line separated paragraphs, each on one line; a table (lines starting with ``|``) keeps
    its lines."""
    out: list[str] = []
    cur: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            out.append("\n".join(cur) if cur[0].startswith("|") else " ".join(cur))
            cur = []
    return out


def parse(text: str, source: str = RULES_FILE) -> Reference:
    """docs/rules.md -> a Reference; raises RulesPageError saying which line breaks the format."""
    families: dict[str, Family] = {}
    rules: dict[str, Rule] = {}
    fam: Optional[dict[str, Any]] = None
    rule: Optional[dict[str, Any]] = None
    seen: set[str] = set()

    def fail(i: int, msg: str) -> RulesPageError:
        return RulesPageError(f"{source}:{i}: {msg}")

    def close_rule() -> None:
        nonlocal rule
        if rule is None:
            return
        paras = _paragraphs(rule["body"])
        if not paras:
            raise fail(rule["line"], f"rule {rule['id']} has no text")
        default = next((p[len(_DEFAULT):].strip() for p in paras if p.startswith(_DEFAULT)), "")
        if rule["open"] != bool(default):
            raise fail(rule["line"], f"rule {rule['id']}: a heading marked {_OPEN} and a {_DEFAULT} "
                                     "paragraph go together")
        assert fam is not None  # a rule heading outside a family is refused where it is read
        rules[rule["id"]] = Rule(rule["id"], fam["id"], rule["title"], _clean("\n\n".join(paras)),
                                 rule["open"], _clean(default), rule["line"])
        fam["rules"].append(rule["id"])
        rule = None

    def close_family() -> None:
        nonlocal fam
        close_rule()
        if fam is not None:
            families[fam["id"]] = Family(fam["id"], fam["title"], _clean("\n\n".join(_paragraphs(fam["body"]))),
                                         tuple(fam["rules"]), fam["line"])
        fam = None

    in_code = False
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            (rule or fam or {"body": []})["body"].append(line)
            continue
        m = _RULE_HEAD.fullmatch(line)
        if m:
            rid, title = m.groups()
            if fam is None:
                raise fail(i, f"rule {rid} comes before any family heading")
            if not RULE_ID.fullmatch(rid) or not _belongs(rid, fam["id"]):
                raise fail(i, f"'{rid}' is not a rule id of family {fam['id']}")
            if rid in seen:
                raise fail(i, f"{rid} is given twice")
            seen.add(rid)
            close_rule()
            is_open = title.endswith(_OPEN)
            title = title[: -len(_OPEN)].rstrip() if is_open else title
            rule = {"id": rid, "title": title, "open": is_open, "line": i, "body": []}
            continue
        m = _FAMILY_HEAD.fullmatch(line)
        if m:
            fid, title = m.groups()
            if not FAMILY_ID.fullmatch(fid):
                raise fail(i, f"'{fid}' is not a family id (C1, S4, K6, V)")
            if fid in seen:
                raise fail(i, f"{fid} is given twice")
            seen.add(fid)
            close_family()
            fam = {"id": fid, "title": title, "line": i, "body": [], "rules": []}
            continue
        if line.startswith("#") and fam is not None:
            raise fail(i, f"unexpected heading inside family {fam['id']}: {line.strip()}")
        if rule is not None:
            rule["body"].append(line)
        elif fam is not None:
            fam["body"].append(line)
    close_family()
    if not rules:
        raise RulesPageError(f"{source}: no rules found")
    return Reference(families, rules, source)


def _belongs(rid: str, fid: str) -> bool:
    return rid.startswith(fid + ".") if fid != "V" else rid.startswith("V") and "." not in rid


def rules_text() -> tuple[str, str]:
    """(the text of rules.md, where it was read from): the installed package data, or, when the
    package cannot be found (running from a checkout without an install), the docs folder."""
    try:
        res = resources.files(RULES_PACKAGE) / RULES_FILE
        if res.is_file():
            return res.read_text(encoding="utf-8"), str(res)
    except (ModuleNotFoundError, TypeError, NotADirectoryError, FileNotFoundError):
        pass
    path = Path(__file__).resolve().parent.parent / "docs" / RULES_FILE
    return path.read_text(encoding="utf-8"), str(path)


@lru_cache(maxsize=1)
def load_reference() -> Reference:
    text, where = rules_text()
    return parse(text, where)


def normalize(query: str) -> str:
    """``c9.4``, `` [C9.4] ``, ``C9.4:``, ``C 9.4`` -> ``C9.4``."""
    return re.sub(r"\s+", "", query).strip("[]()`'\"").rstrip(".:,;").upper()


def cite_pattern(ids: Iterable[str]) -> re.Pattern:
    """Whole-id citations of any of ``ids`` (case as written: ids are upper case)."""
    alts = "|".join(re.escape(i) for i in sorted(set(ids), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_.])({alts})(?![0-9]|[._][0-9])")


def _name_pattern(ids: Iterable[str]) -> re.Pattern:
    """Citations in a function name: ``C9.4`` as ``c9_4`` (lower case, between underscores)."""
    alts = "|".join(re.escape(i.lower().replace(".", "_")) for i in sorted(set(ids), key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9])({alts})(?![0-9])(?!_[0-9])")


# --- content ------------------------------------------------------------------------------------
def content_citing(sources: dict[str, str], ids: Iterable[str]) -> list[dict[str, Any]]:
    """Every line of the loaded content (path -> text) that cites one of ``ids``, in path order:
    ``{"source": "killers/x.fg:12", "path", "line", "text", "ids"}``."""
    from .explain import short_source

    pat = cite_pattern(ids)
    out: list[dict[str, Any]] = []
    for path in sorted(sources, key=lambda p: short_source(p)):
        text = sources[path]
        if not pat.search(text):
            continue
        short = short_source(path)
        for i, line in enumerate(text.splitlines(), 1):
            found = _unique(m.group(1) for m in pat.finditer(line))
            if found:
                out.append({"source": f"{short}:{i}", "path": short, "line": i, "text": _shown(line),
                            "ids": found})
    return out


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _shown(line: str) -> str:
    s = line.strip()
    return s if len(s) <= MAX_LINE_SHOWN else s[: MAX_LINE_SHOWN - 1] + "…"


# --- rulings -----------------------------------------------------------------------------------------
_RULING_HEAD = re.compile(r"\s*ruling\s+([A-Za-z0-9_-]+)")
_RULES_LINE = re.compile(r"\s*rules\s+(.*)")
_QUOTED = re.compile(r'"([^"\n]*)"')


def rulings_dir() -> Optional[Path]:
    """The bundled rulings (docs/rulings): the installed package data, or the checkout's."""
    try:
        res = resources.files(RULES_PACKAGE) / "rulings"
        if res.is_dir():
            return Path(str(res))
    except (ModuleNotFoundError, TypeError, NotADirectoryError, FileNotFoundError):
        pass
    here = Path(__file__).resolve().parent.parent / "docs" / "rulings"
    return here if here.is_dir() else None


def rulings_citing(folder: Path, ids: Iterable[str]) -> list[dict[str, Any]]:
    """The rulings whose 'rules' line cites one of ``ids``: ``{"ruling", "path", "line", "ids"}``,
    in file and line order (read as text: a ruling's rule ids are quoted on its 'rules' line)."""
    want = set(ids)
    out: list[dict[str, Any]] = []
    for f in sorted(folder.rglob("*.ruling"))[:MAX_TEST_FILES]:
        try:
            text = f.read_text(encoding="utf-8")[:MAX_FILE_CHARS]
        except (OSError, UnicodeDecodeError):
            continue
        current, start = "", 0
        for n, line in enumerate(text.splitlines(), 1):
            head = _RULING_HEAD.match(line)
            if head:
                current, start = head.group(1), n
                continue
            m = _RULES_LINE.match(line)
            if m and current:
                hit = _unique(i for i in (normalize(q) for q in _QUOTED.findall(m.group(1))) if i in want)
                if hit:
                    out.append({"ruling": current, "path": f"{folder.name}/{f.relative_to(folder).as_posix()}",
                                "line": start, "ids": hit})
    return out


# --- tests ----------------------------------------------------------------------------------------
def tests_dir() -> Optional[Path]:
    """The tests folder of the checkout this code runs from; None for an installed package."""
    root = Path(__file__).resolve().parent.parent
    tests = root / "tests"
    return tests if tests.is_dir() and (root / "pyproject.toml").is_file() else None


def _is_parametrize(dec: ast.expr) -> bool:
    fn = dec.func if isinstance(dec, ast.Call) else None
    return isinstance(fn, ast.Attribute) and fn.attr == "parametrize"


def _param_ids(dec: ast.Call) -> list[str]:
    """The literal ids of a ``parametrize`` decorator: ``ids=[...]`` strings and ``pytest.param(…, id=…)``."""
    out: list[str] = []
    for kw in dec.keywords:
        if kw.arg == "ids" and isinstance(kw.value, (ast.List, ast.Tuple)):
            out.extend(e.value for e in kw.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    values = dec.args[1] if len(dec.args) > 1 else next((k.value for k in dec.keywords if k.arg == "argvalues"), None)
    if isinstance(values, (ast.List, ast.Tuple)):
        for e in values.elts:
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "param":
                for kw in e.keywords:
                    if kw.arg == "id" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        out.append(kw.value.value)
    return out


def _test_functions(tree: ast.Module) -> Iterable[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of the test functions of a module: top level and in Test classes."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                    yield f"{node.name}::{sub.name}", sub


def tests_citing(folder: Path, ids: Iterable[str]) -> list[dict[str, Any]]:
    """The test functions under ``folder`` that name one of ``ids`` in their name, docstring or a
    parametrize id: ``{"test": "tests/test_x.py::test_y", "path", "line", "ids", "via"}``; a match
    by parametrize id names the case (``…::test_y[C9.4]``)."""
    ids = list(ids)
    cite = cite_pattern(ids)
    by_name = _name_pattern(ids)
    base = folder.parent
    out: list[dict[str, Any]] = []
    files = sorted(folder.rglob("test_*.py"))[:MAX_TEST_FILES]
    for f in files:
        try:
            src = f.read_text(encoding="utf-8", errors="replace")
            if len(src) > MAX_FILE_CHARS:
                continue
            tree = ast.parse(src, filename=str(f))
        except (OSError, SyntaxError, ValueError):
            continue
        rel = f.relative_to(base).as_posix()
        for qual, node in _test_functions(tree):
            where = f"{rel}::{qual}"
            found: list[str] = []
            via: list[str] = []
            names = [_upper_id(m.group(1)) for m in by_name.finditer(node.name.lower())]
            if names:
                found += names
                via.append("name")
            doc = ast.get_docstring(node) or ""
            docs = [m.group(1) for m in cite.finditer(doc)]
            if docs:
                found += docs
                via.append("docstring")
            cases: list[tuple[str, list[str]]] = []
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and _is_parametrize(dec):
                    for pid in _param_ids(dec):
                        hit = [m.group(1) for m in cite.finditer(pid)]
                        if hit:
                            cases.append((pid, hit))
            if found:
                out.append({"test": where, "path": rel, "line": node.lineno, "ids": _unique(found), "via": via})
            for pid, hit in cases:
                out.append({"test": f"{where}[{pid}]", "path": rel, "line": node.lineno, "ids": _unique(hit),
                            "via": ["param"]})
    return out


def _upper_id(name_part: str) -> str:
    """``c9_4`` -> ``C9.4``."""
    return name_part.upper().replace("_", ".")


# --- lookup, as data and as text ------------------------------------------------------------------
def lookup_data(ref: Reference, item: Rule | Family, sources: dict[str, str],
                tests: Optional[Path], rulings: Optional[Path] = None) -> dict[str, Any]:
    """A rule or a family with what cites it, as JSON-ready data (``tests`` None: not available;
    ``rulings``: the folder of rulings that run, docs/rulings)."""
    ids = ref.cited_ids(item)
    data: dict[str, Any]
    if isinstance(item, Rule):
        fam = ref.families[item.family]
        data = {"id": item.id, "kind": "rule", "title": item.title, "family": fam.id, "family_title": fam.title,
                "open": item.open, "text": item.text, "default": item.default}
    else:
        data = {"id": item.id, "kind": "family", "title": item.title, "text": item.text,
                "rules": [_rule_json(ref.rules[r]) for r in item.rules]}
    data["content"] = content_citing(sources, ids) if ids else []
    data["tests_available"] = tests is not None
    data["tests"] = tests_citing(tests, ids) if tests is not None and ids else ([] if tests is not None else None)
    data["rulings"] = rulings_citing(rulings, ids) if rulings is not None and ids else []
    return data


def _rule_json(r: Rule) -> dict[str, Any]:
    return {"id": r.id, "title": r.title, "open": r.open, "text": r.text, "default": r.default}


def _wrap(text: str, indent: str = "") -> list[str]:
    out: list[str] = []
    for i, para in enumerate(text.split("\n\n")):
        if i:
            out.append("")
        if para.startswith("|"):  # a table: as written
            out.extend(indent + row for row in para.split("\n"))
        else:
            out.extend(textwrap.wrap(para, WIDTH, initial_indent=indent, subsequent_indent=indent,
                                     break_on_hyphens=False) or [indent])
    return out


def _heading(item: dict[str, Any]) -> str:
    return f"{item['id']} {item['title']}" + (f" {_OPEN}" if item.get("open") else "")


def render_text(data: dict[str, Any]) -> str:
    """``lastbreath rule ID`` for people: the rule (or each rule of a family), then its citations."""
    lines: list[str] = [_heading(data)]
    several = data["kind"] == "family"
    if several:
        lines[0] += f" · {len(data['rules'])} rule{'s' if len(data['rules']) != 1 else ''}"
        if data["text"]:
            lines += [""] + _wrap(data["text"])
        for r in data["rules"]:
            lines += ["", _heading(r)] + _wrap(r["text"], "  ")
    else:
        lines.append(f"in {data['family']} {data['family_title']}")
        lines += [""] + _wrap(data["text"])
    lines.append("")
    content = data["content"]
    if content:
        lines.append(f"content ({len(content)} line{'s' if len(content) != 1 else ''}):")
        for c in content:
            tag = f" [{', '.join(c['ids'])}]" if several else ""
            lines.append(f"  {c['source']}{tag}: {c['text']}")
    else:
        lines.append("content: none cites it")
    tests = data["tests"]
    if tests is None:
        lines.append("tests: not available (installed package)")
    elif tests:
        lines.append(f"tests ({len(tests)}):")
        for t in tests:
            tag = f" [{', '.join(t['ids'])}]" if several else ""
            lines.append(f"  {t['test']}{tag}")
    else:
        lines.append("tests: none names it")
    rulings = data.get("rulings") or []
    if rulings:
        lines.append(f"rulings ({len(rulings)}; 'lastbreath verify' runs them):")
        for r in rulings:
            tag = f" [{', '.join(r['ids'])}]" if several else ""
            lines.append(f"  {r['path']}:{r['line']} {r['ruling']}{tag}")
    return "\n".join(lines)


def listing_data(ref: Reference) -> list[dict[str, Any]]:
    return [{"id": f.id, "title": f.title, "rules": [{"id": r, "title": ref.rules[r].title, "open": ref.rules[r].open}
                                                     for r in f.rules]}
            for f in ref.families.values()]


def listing_text(ref: Reference) -> str:
    width = max(len(i) for i in ref.ids())
    lines: list[str] = []
    for f in ref.families.values():
        lines.append(f"{f.id:<{width + 3}}{f.title}")
        for rid in f.rules:
            r = ref.rules[rid]
            lines.append(f"  {rid:<{width}} {r.title}" + (f" {_OPEN}" if r.open else ""))
    return "\n".join(lines)
