"""The rules reference (docs/rules.md) and 'lastbreath rule ID'.

docs/rules.md restates every rule of the shared rules page (ids copied below as data, since that
page is not in the repository) and nothing else; every id the engine can put on an event has an
entry there, whether found in the engine's source or in the events of bot games of every bundled
killer × scenario pair. 'lastbreath rule' prints a rule or a family with the content lines and
tests that cite it, and works from an installed wheel too (the rules text is package data).
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from lastbreath.interpreter import api, rules_reference as rr
from lastbreath.interpreter.bots import BOTS
from lastbreath.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = ROOT / "docs" / "rules.md"

# Every id of the shared rules page (docs/rules.md), in its order.
RULES_MD_IDS = """
C1.1 C1.2 C2.1 C2.2 C2.3 C2.4 C2.5 C2.6 C3.1 C3.2 C3.3 C3.4 C3.5 C3.6 C3.7 C3.8 C3.9 C4.1
C5.1 C5.2 C5.3 C5.4 C5.5 C5.6 C5.7 C6.1 C6.2 C6.3 C6.4 C6.5 C7.1 C7.2 C7.3 C7.4 C7.5 C7.6
C8.1 C8.2 C8.3 C9.1 C9.2 C9.3 C9.4 C9.5 C9.6 C9.7 C9.8 C10.1 C10.2 C11.1 C11.2 C11.3 C11.4
C13.1 C13.2 C14.1 C14.2 C14.3 C14.4 C14.5 C14.6 C15.1 C15.2 C15.3 C15.4 C15.5 C16.1 C16.2
C17.1 C17.2 C17.3 C17.4 C18.1 C18.2 C18.3 C18.4 C18.5
S1.1 S1.2 S1.3 S1.4 S1.5 S1.6 S1.7 S1.8 K1.1 K1.2 K1.3 K1.4 K1.5 K1.6 K1.7 K1.8
S2.1 S2.2 S2.3 S2.4 S2.5 S2.6 K2.1 K2.2 K2.3 K2.4 K2.5 K2.6 K2.7 K2.8 K2.9 K2.10
S3.1 S3.2 S3.3 S3.4 K3.1 K3.2 K3.3 K3.4 K3.5 K3.6 S4.1 S4.2 S4.3 K4.1 K4.2 K4.3
S5.1 S5.2 S5.3 S5.4 S5.5 K5.1 K5.2 K5.3 K5.4 K5.5 K5.6 K6.1 K6.2 K6.3 K6.4 K6.5 K6.6 K6.7
V1 V2 V3 V4 V5 V6 V7 V8 V9
""".split()
# The rules that page marks (open).
RULES_MD_OPEN = "C2.5 C3.1 C5.7 C3.6 C14.2 C14.3 C18.3 C18.5 K1.3 K1.6 S2.6 K2.7 S3.4 S4.3 S5.4 K6.7 V2 V6 V8 S1.3 S1.2 S1.4 S1.5 K2.1 K2.10".split()
FAMILIES = [f"C{i}" for i in range(1, 19) if i != 12] + [f"S{i}" for i in range(1, 6)] + \
    [f"K{i}" for i in range(1, 7)] + ["V"]


@pytest.fixture(scope="module")
def ref():
    return rr.parse(RULES_MD.read_text(encoding="utf-8"), str(RULES_MD))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- the page ---------------------------------------------------------------------------------------
def test_rules_md_has_exactly_the_ids_of_the_rules_page(ref):
    assert len(RULES_MD_IDS) == len(set(RULES_MD_IDS)) == 152
    assert sorted(ref.rules) == sorted(RULES_MD_IDS)
    assert sorted(ref.families) == sorted(FAMILIES)
    for rid, rule in ref.rules.items():
        assert rule.family == (rid.split(".")[0] if "." in rid else "V")
        assert rule.title and len(rule.text) > 20, rid


def test_rules_md_keeps_core_ids_in_order_and_families_group_their_rules(ref):
    ids = ref.ids()
    core = [i for i in ids if i.startswith("C") and "." in i]
    assert core == [i for i in RULES_MD_IDS if i.startswith("C")]
    for fam in ref.families.values():
        assert list(fam.rules) == [i for i in RULES_MD_IDS if ref.rules[i].family == fam.id]


def test_open_rules_are_marked_and_say_the_engine_default(ref):
    """Every (open) rule of the rules page, and every rule docs/decisions/0004 gives a default for,
    is marked (open) with a Default paragraph."""
    decided = set(re.findall(r"^\| ([CSKV]\d+(?:\.\d+)?)\b",
                             (ROOT / "docs" / "decisions" / "0004-open-rules.md").read_text(encoding="utf-8"), re.M))
    decided |= set(re.findall(r"^\| [CSKV][\d.]+ / ([CSKV]\d+(?:\.\d+)?)\b",
                              (ROOT / "docs" / "decisions" / "0004-open-rules.md").read_text(encoding="utf-8"), re.M))
    assert {"C9.3", "K6.7", "C17.1"} <= decided
    for rid in sorted({*RULES_MD_OPEN, *decided}):
        rule = ref.rules[rid]
        assert rule.open and rule.default, rid
    for rule in ref.rules.values():
        assert rule.open == bool(rule.default) == ("Default:" in rule.text), rule.id


def test_bundled_lines_name_the_loaded_killers_and_scenarios(ref, rs):
    said = {fid: re.search(r"Bundled: (yes, as `([a-z0-9-]+)`|no)", f.text) for fid, f in ref.families.items()
            if fid[0] in "SKV"}
    assert all(said.values()), [f for f, m in said.items() if not m]
    named = {m.group(2) for m in said.values() if m.group(2)}
    assert named == {*rs.killers, *rs.scenarios, *rs.modules}  # (V: the Vehicles module)


def test_rules_md_is_our_own_wording_not_the_rules_page():
    """No sentence of docs/rules.md is copied from the shared page: spot-check the page's own
    phrasings of a few rules (copied here as data) do not occur."""
    text = " ".join(RULES_MD.read_text(encoding="utf-8").split())
    for phrase in ["A die showing 1 or 2 fails. A die showing 5 or 6 succeeds.",
                   "The target location is the nearest location holding a target",
                   "When the FG leaves a location holding victims, up to two of them may follow",
                   "Exposed victims are victims except: mutants never target or kill them"]:
        assert phrase not in text


# --- the parser -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,message", [
    ("### C1.1 A\ntext\n", "before any family"),
    ("## C1 A\n### C2.1 B\ntext\n", "not a rule id of family C1"),
    ("## C1 A\n### C1.1 B\ntext\n### C1.1 C\ntext\n", "C1.1 is given twice"),
    ("## C1 A\n### C1.1 B\n\n", "has no text"),
    ("## C1 A\n### C1.1 B (open)\ntext\n", "go together"),
    ("## C1 A\n### C1.1 B\ntext\n\n**Default:** x\n", "go together"),
    ("## Q1 A\n", "not a family id"),
    ("## C1 A\n#### note\n", "unexpected heading"),
    ("intro only\n", "no rules"),
])
def test_a_malformed_page_is_refused_with_its_line(text, message):
    with pytest.raises(rr.RulesPageError, match=message):
        rr.parse(text, "x.md")


def test_parser_reads_titles_open_marks_defaults_and_family_text():
    ref = rr.parse("# T\npre\n\n## C2 Fam\nintro **x**\n\n### C2.1 One (open)\nfirst\nline\n\nsecond\n\n"
                   "**Default:** dd\n\n## V Veh\n### V1 Car\nruns\n")
    one = ref.rules["C2.1"]
    assert (one.title, one.open, one.default, one.family) == ("One", True, "dd", "C2")
    assert one.text == "first line\n\nsecond\n\nDefault: dd"
    assert ref.families["C2"].text == "intro x" and ref.families["V"].rules == ("V1",)
    assert ref.ids() == ["C2", "C2.1", "V", "V1"]


@pytest.mark.parametrize("query", ["C9.4", "c9.4", " [C9.4] ", "C9.4:", "c 9.4"])
def test_queries_are_normalized(ref, query):
    assert ref.find(query) is ref.rules["C9.4"]


def test_citation_pattern_matches_whole_ids_only():
    pat = rr.cite_pattern(["C9.4", "C9"])
    hits = lambda s: [m.group(1) for m in pat.finditer(s)]  # noqa: E731
    assert hits("moves [C9.4]; see C9.4, and C9") == ["C9.4", "C9.4", "C9"]
    assert hits("C9.41 XC9.4 C9.4.1 c9.4 C90 C9_4") == []


# --- citations --------------------------------------------------------------------------------------
def test_tests_citing_reads_names_docstrings_and_parametrize_ids(tmp_path):
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "test_a.py").write_text('''
import pytest

def test_c9_4_moves():
    pass

def test_by_docstring():
    """C9.4, C17.2"""

@pytest.mark.parametrize("x", [1, 2], ids=["C9.4-case", "other"])
def test_by_ids(x):
    pass

@pytest.mark.parametrize("x", [pytest.param(1, id="[C9.4]"), pytest.param(2, id="C9.41")])
def test_by_param(x):
    pass

class TestGroup:
    def test_in_class(self):
        """see C9.4"""

def test_not_c9_41_nor_c9_4_1():
    """C9.41 and C9.4.1 are other ids"""

def helper_c9_4():
    """C9.4"""

def test_comment_only():
    # C9.4
    assert "C9.4"
''', encoding="utf-8")
    (folder / "test_broken.py").write_text("def test_(:\n", encoding="utf-8")
    got = rr.tests_citing(folder, ["C9.4"])
    assert [g["test"] for g in got] == [
        "tests/test_a.py::test_c9_4_moves", "tests/test_a.py::test_by_docstring",
        "tests/test_a.py::test_by_ids[C9.4-case]", "tests/test_a.py::test_by_param[[C9.4]]",
        "tests/test_a.py::TestGroup::test_in_class"]
    assert [g["via"] for g in got] == [["name"], ["docstring"], ["param"], ["param"], ["docstring"]]
    assert all(g["ids"] == ["C9.4"] for g in got)
    family = rr.tests_citing(folder, ["C17", "C17.2"])
    assert [(g["test"], g["ids"]) for g in family] == [("tests/test_a.py::test_by_docstring", ["C17.2"])]


def test_content_citing_lists_each_citing_line_with_its_ids():
    sources = {"/x/b.fg": "a\n# C9.4 and K6.7\nC9.41\n", "/x/a.fg": "killer k {  # (C9.4)\n"}
    got = rr.content_citing(sources, ["C9.4", "K6.7"])
    assert [(Path(g["path"]).name, g["line"], g["ids"]) for g in got] == [
        ("a.fg", 1, ["C9.4"]), ("b.fg", 2, ["C9.4", "K6.7"])]
    assert got[1]["text"] == "# C9.4 and K6.7"


# --- every id the engine cites has an entry ---------------------------------------------------------
def _engine_source_ids() -> set[str]:
    """Rule ids in the engine's source: string literals passed as ``rule`` to ``emit(...)`` (4th
    argument or keyword), and any string literal that is a whole rule id (ids handed on to a
    function that emits them, e.g. a discard's reason)."""
    ids: set[str] = set()
    files = sorted((ROOT / "interpreter").rglob("*.py"))
    assert any(f.name == "rules_reference.py" for f in files)
    for f in files:
        if f.name == "rules_reference.py":  # the lookup itself: its literals are examples
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and rr.ANY_ID.fullmatch(node.value):
                ids.add(node.value)
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                if name != "emit":
                    continue
                arg = node.args[3] if len(node.args) > 3 else next(
                    (k.value for k in node.keywords if k.arg == "rule"), None)
                for c in ast.walk(arg) if arg is not None else ():  # "C13.1" if … else "C13.2" gives both
                    if isinstance(c, ast.Constant) and isinstance(c.value, str) and rr.ANY_ID.fullmatch(c.value):
                        ids.add(c.value)
    return ids


def test_every_rule_id_in_the_engine_source_has_an_entry(ref):
    ids = _engine_source_ids()
    assert {"C9.4", "C13.2", "C3.2", "C6", "K4.1"} <= ids and len(ids) >= 40  # the scan finds them
    known = set(ref.ids())
    assert ids <= known, sorted(ids - known)


def test_every_rule_id_on_events_of_bot_games_has_an_entry(ref, rs):
    """300 bot games over every bundled killer × scenario pair, both sides of the player board,
    every Final Girl, the tie policies, legendary draws and both bots."""
    pairs = list(itertools.product(sorted(rs.killers), sorted(rs.scenarios)))
    girls = sorted(rs.final_girls)
    seen: dict[str, int] = {}
    played: set[tuple[str, str]] = set()

    def note(events):
        for e in events:
            seen[e.rule] = seen.get(e.rule, 0) + 1

    for i in range(300):
        killer, scenario = pairs[i % len(pairs)]
        state, events = api.new_game(rs, killer=killer, scenario=scenario, final_girl=girls[(i // 6) % len(girls)],
                                     difficulty=("normal", "extreme")[(i // 2) % 2], legendary=bool((i // 3) % 2),
                                     tie_policy=("harder", "realistic", "easier")[i % 3], seed=i)
        note(events)
        api.play(state, BOTS[("random", "greedy")[(i // 12) % 2]](i), on_events=note)
        played.add((killer, scenario))
    assert played == set(pairs)
    ids = {r for r in seen if r}
    assert len(ids) >= 30 and {"C1.1", "C9.4", "C2.3"} <= ids
    assert all(rr.ANY_ID.fullmatch(r) for r in ids), sorted(ids)
    known = set(ref.ids())
    assert ids <= known, sorted(ids - known)


# --- the command --------------------------------------------------------------------------------------
def test_rule_prints_the_text_then_content_and_tests(capsys, ref):
    code, out, err = run(capsys, "rule", "C9.4")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "C9.4 Moving toward the target (open)"
    assert " ".join(out.split()).count(" ".join(ref.rules["C9.4"].text.split()[:12])) == 1
    tests = rr.tests_citing(ROOT / "tests", ["C9.4"])
    assert tests and f"tests ({len(tests)}):" in lines
    for t in tests:
        assert f"  {t['test']}" in lines
    code2, out2, _ = run(capsys, "rule", "c9.4")
    assert (code2, out2) == (0, out)


def test_rule_lists_the_content_lines_that_cite_it(capsys):
    """The K5.4 lines of the bundled content, found here with a plain search of the files."""
    want = [f"killers/{f.name}:{i}" for f in sorted((ROOT / "killers").glob("*.fg"))
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"\bK5\.4\b", line)]
    assert want
    code, out, _ = run(capsys, "rule", "K5.4", "--json")
    data = json.loads(out)
    assert code == 0 and [c["source"] for c in data["content"]] == want
    assert data["kind"] == "rule" and data["family"] == "K5" and data["tests_available"] is True
    assert isinstance(data["tests"], list) and not data["open"] and data["default"] == ""


def test_rule_content_includes_a_fan_pack(capsys):
    code, out, _ = run(capsys, "rule", "C17.4", "--content", str(ROOT / "examples" / "fan_killer"))
    assert code == 0 and re.search(r"tallow-man\.fg:\d+: ", out)


def test_rule_family_lists_its_rules_and_their_citations(capsys, ref):
    code, out, _ = run(capsys, "rule", "C9")
    assert code == 0
    assert out.splitlines()[0] == "C9 Enemy targeting, movement and attacks · 8 rules"
    heads = [line.split()[0] for line in out.splitlines() if re.match(r"C9\.\d ", line)]
    assert heads == [f"C9.{i}" for i in range(1, 9)]
    code, out, _ = run(capsys, "rule", "c9", "--json")
    data = json.loads(out)
    assert data["kind"] == "family" and [r["id"] for r in data["rules"]] == list(ref.families["C9"].rules)
    cited = {i for t in data["tests"] for i in t["ids"]}
    assert cited and cited <= {"C9", *ref.families["C9"].rules}


def test_rule_without_id_lists_every_id(capsys, ref):
    code, out, _ = run(capsys, "rule")
    listed = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and listed == ref.ids()
    code, out, _ = run(capsys, "rule", "--json")
    data = json.loads(out)
    assert [f["id"] for f in data] == list(ref.families)
    assert sum(len(f["rules"]) for f in data) == len(RULES_MD_IDS)


@pytest.mark.parametrize("query,hint", [("C9.9", "did you mean 'C9.8'?"), ("c12", "did you mean 'C11' or 'C13'?"),
                                        ("V10", "did you mean 'V9'?"), ("nonsense", "'lastbreath rule' lists")])
def test_rule_unknown_id_exits_2_with_a_hint(capsys, query, hint):
    code, out, err = run(capsys, "rule", query)
    assert code == 2 and out == ""
    assert f"unknown rule id '{query}'" in err and hint in err and "Traceback" not in err


def test_rule_unknown_long_query_is_cut_short(capsys):
    code, _, err = run(capsys, "rule", "C9." + "9" * 100_000)
    assert code == 2 and len(err) < 200 and "…" in err


def test_rule_help(capsys):
    code, out, _ = run(capsys, "rule", "--help")
    assert code == 0 and "docs/rules.md" in out and "--json" in out and "--content" in out


def test_readme_names_the_command_and_the_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "lastbreath rule C9.4" in readme and "(docs/rules.md)" in readme


# --- installed --------------------------------------------------------------------------------------
def test_rules_text_is_read_from_the_package_data(ref):
    """In a checkout's editable install the package data is docs/rules.md itself: one file."""
    text, where = rr.rules_text()
    assert Path(where).resolve() == RULES_MD.resolve()
    assert rr.load_reference().rules == ref.rules


def test_rule_works_from_a_built_wheel(tmp_path):
    """Build a wheel from a copy of the project, unpack it and run 'lastbreath rule' from it alone
    (no checkout on the path): the text comes from the package data, the content from the
    installed content, and there are no tests to show."""
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("dsl", "interpreter", "cards", "killers", "scenarios", "docs"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(wheels.glob("lastbreath-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        z.extractall(tmp_path / "site")
    assert "lastbreath/docs/rules.md" in names
    assert not [n for n in names if n.startswith("lastbreath/docs/") and n.endswith(".md") and
                not n.endswith("/rules.md")]  # only the rules ship from docs/
    script = (
        "import json, sys\n"
        "import lastbreath.interpreter as pkg\n"
        "from lastbreath.interpreter import rules_reference as rr\n"
        "from lastbreath.interpreter.cli import main\n"
        "print(json.dumps({'pkg': pkg.__path__[0], 'where': rr.rules_text()[1]}))\n"
        "sys.stdout.flush()\n"
        "sys.exit(main(sys.argv[1:]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), sysconfig.get_paths()["purelib"]])}
    env.pop("PYTHONHOME", None)

    def lastbreath(*argv):
        # -S: no site processing, so the editable install of the checkout is not on the path
        return subprocess.run([sys.executable, "-S", "-c", script, *argv], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=120)

    got = lastbreath("rule", "K5.4")
    assert got.returncode == 0, got.stderr
    first, _, out = got.stdout.partition("\n")
    where = json.loads(first)
    site = (tmp_path / "site").resolve()
    assert Path(where["pkg"]).resolve().is_relative_to(site) and Path(where["where"]).resolve().is_relative_to(site)
    assert out.startswith("K5.4 Leaving psychos behind\n")
    assert re.search(r"^  killers/ratchet-lady\.fg:\d+: ", out, re.M)
    assert "tests: not available (installed package)" in out
    got = lastbreath("rule", "C9", "--json")
    data = json.loads(got.stdout.partition("\n")[2])
    assert got.returncode == 0 and data["tests"] is None and data["tests_available"] is False
    assert len(data["rules"]) == 8
