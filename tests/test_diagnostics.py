"""Bad content gives diagnostics with the right code at the right line, never a traceback.

The cases live in files written in the language itself (after starlark-go's resolve/testdata):
tests/data/bad.fg (checking mistakes, mostly) and tests/data/bad_syntax.fg (mistakes in the
shape of the text), cases separated by lines '---', and '### E207' at the end of the line where
a diagnostic with that code must point (optionally followed by a quoted text its message or
hint must contain). Each case is loaded together with the bundled content, which must stay
clean; each also goes through 'lastbreath check' (exit 1, 'path:line:col: error[CODE]' with the
source line and a caret, within 2 s), and, as CRLF, with a byte-order mark and indented with
tabs, must give the same lines and codes. tests/data/warnings.fg holds content that loads but
gets warnings (W2xx), in the same format. Inputs that cannot be written in those files (binary
data, 3 MB and 10 MB files, 10,000-deep nesting, a 1 MB line, an empty file, truncated bundled
files) have their own tests below.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import attrs
import pytest

from lastbreath.dsl import bundled_paths, load_content, parse_text
from lastbreath.dsl.diagnostics import CODES
from lastbreath.dsl import syntax
from lastbreath.dsl.syntax import parse_file
from lastbreath.interpreter.cli import main

HANG_GUARD = 120  # seconds: a command that hangs fails the test; never a measure of speed

DATA = Path(__file__).with_name("data")
BAD = DATA / "bad.fg"
ERROR_FILES = (BAD, DATA / "bad_syntax.fg")
WARNINGS = DATA / "warnings.fg"
MARKER = re.compile(r'###\s+([EW]\d{3})(?:\s+"([^"]*)")?\s*$')


@attrs.frozen
class Case:
    name: str
    text: str
    expect: tuple[tuple[int, str, str], ...]  # (line, code, text the message or hint contains)
    xfail: str


def read_cases(path: Path = BAD) -> list[Case]:
    """The cases of a '---'-separated error file; the part before the first '---' is its preamble."""
    chunks: list[list[str]] = [[]]
    for line in path.read_text(encoding="utf-8").splitlines():
        if line == "---":
            chunks.append([])
        else:
            chunks[-1].append(line)
    cases = []
    for lines in chunks[1:]:
        name, xfail = "", ""
        expect = []
        for i, line in enumerate(lines, 1):
            if line.startswith("# case:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("# xfail:"):
                xfail = line.split(":", 1)[1].strip()
            elif xfail and line.startswith("#   "):
                xfail += " " + line[1:].strip()
            m = MARKER.search(line)
            if m:
                expect.append((i, m.group(1), m.group(2) or ""))
        cases.append(Case(name, "\n".join(lines) + "\n", tuple(expect), xfail))
    return cases


CASES = [c for f in ERROR_FILES for c in read_cases(f)]
WARNING_CASES = read_cases(WARNINGS)


def _params():
    return [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else [])
            for c in CASES]


# each bundled file is parsed once for this module (conftest.bundled_parse_cache)
pytestmark = pytest.mark.usefixtures("bundled_parse_cache")


def load_with_bundled(tmp_path: Path, name: str, data: bytes | str):
    f = tmp_path / name
    if isinstance(data, str):
        f.write_text(data, encoding="utf-8")
    else:
        f.write_bytes(data)
    rs, diags = load_content([*bundled_paths(), f])
    elsewhere = [d.format() for d in diags if d.span.path != str(f)]
    assert elsewhere == [], "the bundled content must stay clean"
    return rs, [d for d in diags if d.span.path == str(f)]


def describe(diags) -> str:
    return "\n".join(d.format() for d in diags) or "(no diagnostics)"


# --- the case file ---------------------------------------------------------------------------
def test_case_files_are_well_formed():
    names = [c.name for c in (*CASES, *WARNING_CASES)]
    assert len(CASES) >= 100 and len(WARNING_CASES) >= 4
    assert all(names) and len(set(names)) == len(names), "every case has a unique '# case:' name"
    assert all(c.expect for c in (*CASES, *WARNING_CASES)), "every case marks at least one line with '### E…'"
    assert all(code in CODES and code.startswith("E") for c in CASES for _, code, _ in c.expect)
    assert all(code in CODES and code.startswith("W") for c in WARNING_CASES for _, code, _ in c.expect)


@pytest.mark.parametrize("case", _params())
def test_bad_content_is_reported_at_the_marked_line(tmp_path, case: Case):
    rs, diags = load_with_bundled(tmp_path, f"{case.name}.fg", case.text)
    assert rs is None, "content with errors must not give a ruleset"
    for d in diags:
        assert d.code in CODES
        assert d.severity == "error"
        assert isinstance(d.format(case.text), str)  # renders with the source line and a caret
    for line, code, needle in case.expect:
        hits = [d for d in diags if d.span.line == line and d.code == code]
        assert hits, f"expected {code} at line {line}; got:\n{describe(diags)}"
        if needle:
            assert any(needle in d.message or needle in d.hint for d in hits), \
                f"expected {needle!r} in the {code} at line {line}; got:\n{describe(hits)}"


@pytest.mark.parametrize("case", WARNING_CASES, ids=lambda c: c.name)
def test_warnings_are_reported_at_the_marked_line_and_do_not_fail(tmp_path, case: Case, capsys):
    rs, diags = load_with_bundled(tmp_path, f"{case.name}.fg", case.text)
    assert rs is not None, describe(diags)
    assert all(d.severity == "warning" for d in diags), describe(diags)
    assert sorted((d.span.line, d.code) for d in diags) == sorted((line, code) for line, code, _ in case.expect)
    for line, code, needle in case.expect:
        assert any(needle in d.message or needle in d.hint for d in diags if d.span.line == line)
    assert main(["check", "--with-bundled", str(tmp_path / f"{case.name}.fg")]) == 0
    out = capsys.readouterr().err
    assert f"warning[{case.expect[0][1]}]" in out and "ok:" in out and "warning" in out.splitlines()[-1]


@pytest.mark.parametrize("case", _params())
def test_check_command_exits_1_with_a_located_diagnostic(tmp_path, case: Case, capsys):
    f = tmp_path / f"{case.name}.fg"
    f.write_text(case.text, encoding="utf-8")
    code = main(["check", "--with-bundled", str(f)])
    out, err = capsys.readouterr()
    assert code == 1, code
    assert "Traceback" not in out + err and "explain-error" in err
    printed = err.splitlines()
    for line, code_, _ in case.expect:
        heads = [i for i, p in enumerate(printed) if re.match(rf"{re.escape(str(f))}:{line}:\d+: error\[{code_}\]", p)]
        assert heads, f"no '{f}:{line}:COL: error[{code_}]' in:\n{err}"
        i = heads[0]  # then the source line and a caret under it
        assert printed[i + 1].startswith("    ") and re.fullmatch(r"    [ \t]*\^~*", printed[i + 2])


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-8")


def _bom(text: str) -> bytes:
    return b"\xef\xbb\xbf" + text.encode("utf-8")


def _tabs(text: str) -> bytes:
    return re.sub(r"(?m)^((?:  )+)", lambda m: "\t" * (len(m.group(1)) // 2), text).encode("utf-8")


@pytest.mark.parametrize("case", _params())
def test_line_ends_byte_order_mark_and_tabs_change_nothing(tmp_path, case: Case):
    """The case alone (no bundled content: fast), as written and as CRLF, with a BOM and with
    tabs: the same codes at the same lines."""
    def found(data: bytes) -> list[tuple[int, str]]:
        f = tmp_path / f"{case.name}.fg"
        f.write_bytes(data)
        return sorted((d.span.line, d.code) for d in load_content([f])[1])

    plain = found(case.text.encode("utf-8"))
    for variant in (_crlf, _bom, _tabs):
        assert found(variant(case.text)) == plain, variant.__name__


def test_wrong_value_type_is_reported_once(tmp_path):
    text = 'card sprint-two {\n  name "Sprint Two"\n  cost "two"\n  fail { lose 1 time }\n}\n'
    _rs, diags = load_with_bundled(tmp_path, "wrong-type.fg", text)
    assert [(d.code, d.span.line) for d in diags] == [("E205", 3)]


# --- inputs the case file cannot hold ---------------------------------------------------------
@pytest.mark.parametrize(("data", "line"), [
    pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\xff\xd8\xff\xe0" * 40, 1, id="png-bytes"),
    pytest.param(bytes(range(256)) * 8, 2, id="every-byte"),  # the first byte that is not UTF-8 follows a '\n'
    pytest.param(b'card x {\n  name "X"\n  cost \xff\xfe\n}\n', 3, id="bad-utf8-on-line-3"),
    pytest.param(b'card x {\n  name "X\x00"\n}\n', 2, id="nul-on-line-2"),
])
def test_binary_garbage_is_E100(tmp_path, data: bytes, line: int):
    rs, diags = load_with_bundled(tmp_path, "garbage.fg", data)
    assert rs is None
    assert [(d.code, d.span.line) for d in diags] == [("E100", line)]


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "  ;;\n; \n", "\r\n", "\ufeff", "\t\n\t# tabs\n"])
def test_empty_file_gives_no_diagnostics(tmp_path, text: str, capsys):
    rs, diags = load_with_bundled(tmp_path, "empty.fg", text)
    assert diags == []
    assert rs is not None and "walk" in rs.cards
    assert main(["check", str(tmp_path / "empty.fg")]) == 0 and capsys.readouterr().err.startswith("ok:")


def test_3mb_file_is_refused_with_E105(tmp_path):
    card = 'card c-{:06d} {{ name "C"; cost 1; fail {{ lose 1 time }} }}\n'
    text = "".join(card.format(i) for i in range(60_000))
    assert len(text.encode("utf-8")) > 3_000_000
    rs, diags = load_with_bundled(tmp_path, "huge.fg", text)
    assert rs is None
    assert [(d.code, d.span.line) for d in diags] == [("E105", 1)]
    assert [d.code for d in parse_text(text)[1]] == ["E105"]


@pytest.mark.parametrize(("depth", "codes"), [(64, []), (65, ["E105"]), (200, ["E105"])])
def test_nesting_limit(depth: int, codes: list[str]):
    text = "x " + "{ " * depth + "}" * depth + "\n"
    assert [d.code for d in parse_text(text)[1]] == codes


def test_deep_nesting_hidden_in_a_string_escape_gives_E105_not_a_crash():
    text = 'card x { name "\\"#" fail ' + "{ " * 3000 + "}" * 3000 + " }\n"
    assert [d.code for d in parse_text(text)[1]] == ["E105"]


def test_braces_inside_a_string_with_an_escaped_quote_are_text(tmp_path):
    name = 'Say \\"hi ' + "{" * 70  # one escaped quote: the pre-check leaves the string there
    text = f'card odd-name {{\n  name "{name}"\n  cost 1\n  fail {{ lose 1 time }}\n}}\n'
    rs, diags = load_with_bundled(tmp_path, "odd-name.fg", text)
    assert diags == []
    assert rs.cards["odd-name"].name == 'Say "hi ' + "{" * 70


def test_utf8_file_with_a_byte_order_mark_loads(tmp_path):
    text = 'card bom-card {\n  name "BOM"\n  cost 1\n  fail { lose 1 time }\n}\n'
    rs, diags = load_with_bundled(tmp_path, "bom.fg", b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert diags == []


@pytest.mark.skipif(sys.platform == "win32", reason="uses resource limits")
def test_huge_numbers_in_a_zone_are_refused_quickly(tmp_path):
    f = tmp_path / "huge-zone.fg"
    f.write_text(textwrap.dedent("""\
        player_board huge-zone {
          side normal {
            time reset 6; time range -1 10
            fear range 0 9
            zone 0 1000000000000 dice 3
          }
          last breath 0 0 1
        }
        """), encoding="utf-8")
    script = textwrap.dedent(f"""\
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GB: fail fast, not swap
        from lastbreath.dsl import load_content
        rs, diags = load_content([{str(f)!r}])
        print(" ".join(f"{{d.code}}:{{d.span.line}}" for d in diags))
        """)
    try:
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the checker did not finish within {HANG_GUARD} s")
    assert out.returncode == 0, out.stderr[-500:]
    assert "E209:5" in out.stdout.split()


# --- big, deep, long, cut and unterminated inputs: 'lastbreath check PATH' in a process ---------
def _no_parser():
    pytest.fail("the grammar's parser ran on an input the pre-scan should refuse")


def _lastbreath() -> list[str]:
    exe = Path(sys.executable).with_name("lastbreath")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "lastbreath.interpreter"]


@pytest.mark.parametrize(("make", "line", "code"), [
    pytest.param(lambda: 'card c {{ name "C"; cost 1; fail {{ lose 1 time }} }}\n' * 200_000, 1, "E105", id="10-MB"),
    pytest.param(lambda: "card deep { " + "{ " * 10_000 + "}" * 10_000 + " }\n", 1, "E105", id="10000-deep"),
    pytest.param(lambda: 'card long {\n  name "' + "a" * 1_000_000 + '"\n}\n', 2, "E105", id="1-MB-line"),
])
def test_huge_inputs_are_refused_by_the_command_before_the_parser(tmp_path, make, line: int, code: str,
                                                                  monkeypatch, capsys):
    # The work is bounded by what is done, not by a clock: the command refuses these inputs in the
    # pre-scan (syntax._prescan, E105), so the grammar's parser is never run on them (in this
    # process); as a command of its own it ends (a generous hang guard, not a speed budget).
    f = tmp_path / "huge.fg"
    f.write_text(make(), encoding="utf-8")
    monkeypatch.setattr(syntax, "_parser", _no_parser)
    assert main(["check", str(f)]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"^{re.escape(str(f))}:{line}:\d+: error\[{code}\]", err, re.M), err[:500]
    try:
        out = subprocess.run([*_lastbreath(), "check", str(f)], capture_output=True, text=True, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"'lastbreath check' did not finish within {HANG_GUARD} s")
    assert out.returncode == 1, out.stderr[-500:]
    assert "Traceback" not in out.stderr
    assert re.search(rf"^{re.escape(str(f))}:{line}:\d+: error\[{code}\]", out.stderr, re.M), out.stderr[:500]
    assert len(out.stderr) < 2000  # a long source line is shown as a window around the column


@pytest.mark.parametrize(("text", "line"), [
    pytest.param("card deep {\n" + "(" * 10_000 + ")" * 10_000 + "\n}\n", 2, id="10000-deep-groups"),
    pytest.param("x " * 500_000 + "\n", 1, id="1-MB-line-of-words"),
    pytest.param("card c\n" * 60_000, 16_667, id="60000-lines"),  # past the token budget (line ends count)
    pytest.param(";" * 9_000 + "\n" + (";" * 9_000 + "\n") * 200, 6, id="1.8-MB-of-semicolons"),
])
def test_inputs_that_would_keep_the_parser_busy_are_refused_before_it(text: str, line: int, monkeypatch):
    monkeypatch.setattr(syntax, "_parser", _no_parser)  # refused by the pre-scan: the parser never runs
    _lines, diags = parse_text(text, "busy.fg")
    assert [(d.code, d.span.line) for d in diags] == [("E105", line)]


def test_10_mb_of_text_is_refused_before_it_is_read_as_text(tmp_path, monkeypatch):
    f = tmp_path / "big.fg"
    f.write_bytes(b"# " + b"x" * 10_000_000 + b"\n")
    monkeypatch.setattr(syntax, "_parser", _no_parser)
    monkeypatch.setattr(syntax, "parse_text", lambda *a, **k: pytest.fail("the text was decoded and scanned"))
    lines, diags, _text = parse_file(f)
    assert [(d.code, d.span.line) for d in diags] == [("E105", 1)]


def test_unterminated_string_at_the_very_end_of_the_file(tmp_path, capsys):
    f = tmp_path / "cut.fg"
    f.write_text('card shout {\n  cost 1\n  name "Shout', encoding="utf-8")  # no closing quote, no newline
    assert main(["check", str(f)]) == 1
    out = capsys.readouterr().err
    assert f"{f}:3:8: error[E104]: unterminated string" in out and '    name "Shout\n' in out


def _cut_in_a_block(text: str) -> str:
    """The text up to the end of the line nearest its middle that ends inside a block."""
    lines = text.splitlines(keepends=True)
    depth, inside = 0, []
    for i, ln in enumerate(lines):
        code = re.sub(r'"(?:[^"\\\n]|\\.)*"|#.*', "", ln)
        depth += code.count("{") - code.count("}")
        if depth > 0 and code.strip():  # a line with code, not only a comment
            inside.append(i)
    i = min(inside, key=lambda k: abs(k - len(lines) // 2))
    return "".join(lines[:i + 1])


@pytest.mark.parametrize("source", sorted(f for root in bundled_paths() for f in Path(root).rglob("*.fg")),
                         ids=lambda p: p.name)
def test_bundled_file_cut_in_the_middle_of_a_block(tmp_path, capsys, source: Path):
    cut = _cut_in_a_block(source.read_text(encoding="utf-8"))
    f = tmp_path / source.name
    f.write_text(cut, encoding="utf-8")
    assert main(["check", str(f)]) == 1
    out = capsys.readouterr().err
    last = len(cut.splitlines())
    assert re.search(rf"^{re.escape(str(f))}:{last}:\d+: error\[E103\]: missing '}}'", out, re.M), out


def test_a_long_line_is_shown_as_a_window_with_the_caret_under_the_column():
    text = "card x { name " + '"' + "a" * 5000 + '" cost @ }\n'
    _lines, diags = parse_text(text, "long.fg")
    shown = diags[0].format(text).splitlines()
    assert diags[0].code == "E101" and len(shown[1]) < 120
    assert shown[2].index("^") == shown[1].index("@")


def test_the_caret_follows_tabs():
    text = "card x {\n\t\tcost @\n}\n"
    _lines, diags = parse_text(text, "tabs.fg")
    assert diags[0].format(text).splitlines()[2] == "    \t\t     ^"


def _meta_span(path: str, meta) -> tuple:
    return (path, meta.line, meta.column, meta.end_line, meta.end_column)


def test_spans_read_from_tokens_are_lark_s_own_positions():
    """Files are parsed without Lark's position tracking (half their parsing time): a line's, a
    block's and a group's span are read from their tokens and kept brackets. They are the spans
    the position-tracking parser gives, for every bundled file and example."""
    from lastbreath.dsl.expr import parser

    root = Path(__file__).resolve().parent.parent
    files = sorted(p for d in ("cards", "killers", "scenarios", "examples") for p in (root / d).rglob("*.fg"))
    assert len(files) > 10
    for f in files:
        text = f.read_text(encoding="utf-8") + "\nlast (a (b) ()) { x { y } }\n"
        lines, diags = parse_text(text, "f")
        assert not diags, f
        want = []

        def walk(node, want=want):
            if node.data in ("line", "block", "group"):
                want.append((node.data, _meta_span("f", node.meta)))
            for c in node.children:
                if hasattr(c, "data"):
                    walk(c)

        for c in parser().parse(text, start="start").children:
            walk(c)
        got = []

        def mine(part, got=got):
            if hasattr(part, "parts"):  # a line
                got.append(("line", attrs.astuple(part.span)))
                for p in part.parts:
                    mine(p)
            elif hasattr(part, "lines"):  # a block
                got.append(("block", attrs.astuple(part.span)))
                for ln in part.lines:
                    mine(ln)
            elif part.kind == "group":
                got.append(("group", attrs.astuple(part.span)))
                for a in part.items:
                    mine(a)

        for ln in lines:
            mine(ln)
        assert got == want, f
