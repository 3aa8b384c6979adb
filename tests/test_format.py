"""The canonical formatter (dsl/format.py) and ``lastbreath fmt``.

Every bundled file is already canonical; formatting never changes the syntax tree, keeps every
comment in order and is idempotent, on a messy sample and on generated text (hypothesis).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from lastbreath.dsl import bundled_paths, load_content, parse_text
from lastbreath.dsl.format import MAX_WIDTH, comments, format_text, syntax_shape
from lastbreath.interpreter.cli import main

BUNDLED = sorted(f for p in bundled_paths() for f in p.rglob("*.fg"))


def shape(text: str) -> tuple:
    lines, diags = parse_text(text)
    assert diags == []
    return syntax_shape(lines, text)


def fmt(text: str) -> str:
    out, diags = format_text(text)
    assert diags == [] and out is not None
    return out


# --- the bundled content ------------------------------------------------------------------------
def test_bundled_files_found():
    assert {f.name for f in BUNDLED} >= {"core.fg", "big-bad-wolf.fg", "storybook-woods.fg"}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_file_round_trips(path):
    text = path.read_text(encoding="utf-8")
    assert format_text(text, str(path)) == (text, [])


_TOKENS = re.compile(r'("(?:[^"\\\n]|\\.)*"|#[^\n]*)')  # strings and comments: left alone


def _unformat(text: str) -> str:
    """The same content badly written: every block broken, odd indentation, spaces, CRLF."""
    pieces = _TOKENS.split(text)
    for i in range(0, len(pieces), 2):
        code = pieces[i].replace("{ ", "{\n").replace(" }", "\n}").replace("; ", " ;\n")
        code = code.replace(" ", "   ").replace("(", "( ").replace(")", " )")
        pieces[i] = code
    lines = "".join(pieces).split("\n")
    return "\r\n".join(("\t" * (n % 3) + " " * (n % 2)) + ln.strip(" ") + " " for n, ln in enumerate(lines))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_file_restored_from_a_mess(path):
    text = path.read_text(encoding="utf-8")
    messy = _unformat(text)
    assert messy != text
    assert shape(messy) == shape(text)
    assert fmt(messy) == fmt(text)


def test_bundled_content_loads_clean_and_is_canonical(capsys):
    rs, diags = load_content()
    assert rs is not None and diags == []
    assert main(["fmt", "--check"]) == 0


# --- a messy sample -----------------------------------------------------------------------------
MESSY = '''\


# header comment
   card   messy-card{name   "Messy \\"quoted\\" \\\\ card"   ;cost +003;copies 2 # eol on copies
\tfail {lose 1 time}   # eol after a block
success {   # after an open brace
      lose 1 time ;  move up to 1


      # alone in a block
      deal 1 damage

   # last in success
}
   great { lose 1 time; move up to 2; lower fear 1; raise fear 1; lose 1 time; move up to 2; lower fear 1 }
if fear at least 5 {lower fear 1}else{ gain 1 time }
    path a (1   2) --(3 ) b { tags bridge; closed }
   choose { "A" { heal 1 }
  "B" { }   }
   }



# between declarations
{ a } ( )   x -0 +0 -5 007
z ; # after a semicolon
;
  # the end
'''

MESSY_FORMATTED = '''\
# header comment
card messy-card {
  name "Messy \\"quoted\\" \\\\ card"
  cost +3
  copies 2  # eol on copies
  fail { lose 1 time }  # eol after a block
  success {  # after an open brace
    lose 1 time
    move up to 1

    # alone in a block
    deal 1 damage

    # last in success
  }
  great {
    lose 1 time
    move up to 2
    lower fear 1
    raise fear 1
    lose 1 time
    move up to 2
    lower fear 1
  }
  if fear at least 5 { lower fear 1 } else { gain 1 time }
  path a (1 2) -- (3) b { tags bridge; closed }
  choose {
    "A" { heal 1 }
    "B" { }
  }
}

# between declarations
{ a } () x 0 +0 -5 7
z  # after a semicolon

# the end
'''


def test_messy_sample_canonical_form():
    assert fmt(MESSY) == MESSY_FORMATTED


def test_messy_sample_idempotent_and_same_tree():
    once = fmt(MESSY)
    assert fmt(once) == once
    assert shape(once) == shape(MESSY)


def test_comments_preserved_in_count_and_order():
    want = ["# header comment", "# eol on copies", "# eol after a block", "# after an open brace",
            "# alone in a block", "# last in success", "# between declarations", "# after a semicolon",
            "# the end"]
    assert comments(MESSY) == want
    out = fmt(MESSY)
    assert comments(out) == want
    assert [m.group(0) for m in re.finditer(r"#[^\n]*", out)] == want  # no string holds a '#' here


def test_style_rules():
    out = fmt(MESSY)
    lines = out.split("\n")
    assert lines[-1] == "" and lines[-2] != ""  # exactly one final newline
    assert all(ln == ln.rstrip() for ln in lines)
    assert all((len(ln) - len(ln.lstrip(" "))) % 2 == 0 and "\t" not in ln for ln in lines)
    assert all(len(ln) <= MAX_WIDTH for ln in lines)
    assert "\n\n\n" not in out and not out.startswith("\n")
    assert "}\n\n# between declarations\n" in out  # the blank run before it is kept, as one line


def test_inline_blocks_break_at_the_width_limit():
    def line(width: int) -> str:  # "a { lose 1 time; …; set flag x…x }" exactly `width` columns
        head = "a { " + "; ".join(["lose 1 time"] * 6) + "; set flag "
        return head + "x" * (width - len(head) - 2) + " }\n"

    assert len(line(MAX_WIDTH)) == MAX_WIDTH + 1
    assert fmt(line(MAX_WIDTH)) == line(MAX_WIDTH)
    out = fmt(line(MAX_WIDTH + 1))
    assert out.startswith("a {\n  lose 1 time\n") and out.endswith("x\n}\n") and out.count("\n") == 9
    assert fmt("  " + line(MAX_WIDTH)) == line(MAX_WIDTH)  # measured after re-indentation
    assert fmt("b {\n" + line(MAX_WIDTH - 2) + "}").startswith("b {\n  a { lose")
    assert fmt("b {\n" + line(MAX_WIDTH - 1) + "}").startswith("b {\n  a {\n")
    # a block inside another is never inline, but its own inner block may be
    assert fmt("a { b { c } }") == "a {\n  b { c }\n}\n"
    # decided left to right: the else block stays inline after a broken first block
    first = "; ".join(["lose 1 time"] * 9)
    assert fmt(f"if x {{ {first} }} else {{ heal 1 }}").endswith("} else { heal 1 }\n")


def test_strings_numbers_and_empty_text():
    assert fmt('name "a\\qb" +0 -0 +12 0012\n') == 'name "a\\\\qb" +0 0 +12 12\n'
    assert fmt("") == "" and fmt("\n\n ; \n") == ""
    assert fmt("# only\n\n\n# comments") == "# only\n\n# comments\n"


def test_unparsable_text_gives_diagnostics():
    out, diags = format_text("card x {\n  name 'x'\n}\n", "bad.fg")
    assert out is None and diags and diags[0].code == "E101" and diags[0].span.path == "bad.fg"
    out, diags = format_text("card x {\n", "bad.fg")
    assert out is None and diags[0].code == "E103"


# --- generated text (hypothesis) ----------------------------------------------------------------
_names = st.sampled_from(["a", "kill", "fg-or-victims", "Big-Bad", "a_b", "x-1", "else", "z9"])
_numbers = st.sampled_from(["0", "-1", "+3", "12", "007", "+0", "-0", "-007"])
_string_bodies = st.lists(st.one_of(st.sampled_from(['\\"', "\\\\", "\\n", "\\q", "#", "{", ";", " "]),
                                    st.characters(blacklist_characters='"\\\n', blacklist_categories=("Cs",))),
                          max_size=5)
_strings = _string_bodies.map(lambda xs: '"' + "".join(xs) + '"')
_space = st.sampled_from([" ", " ", "  ", "\t", " \f", " \r "])
_comment = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=8).map(
    lambda s: "#" + s)
_sep = st.lists(st.one_of(st.sampled_from(["\n", "\n", ";", "\n\n", "\r\n", " ; ", "\n\n\n"]),
                          _comment.map(lambda c: " " + c + "\n")), min_size=1, max_size=3).map("".join)
_opt_sep = st.one_of(st.just(""), _sep, _space)
_scalar = st.one_of(_names, _numbers, _strings, st.just("--"))
_group = st.lists(_scalar, max_size=3).flatmap(
    lambda xs: st.tuples(*[_space for _ in xs], _space).map(
        lambda sp: "(" + sp[-1] + "".join(x + s for x, s in zip(xs, sp)) + ")"))
_atom = st.one_of(_scalar, _scalar, _group)


def _line(part):
    return st.lists(st.tuples(part, _space), min_size=1, max_size=5).map(lambda ps: "".join(p + s for p, s in ps))


def _body(line):
    return st.tuples(_opt_sep, st.lists(st.tuples(line, _sep), max_size=4), st.one_of(st.just(""), line),
                     _opt_sep).map(lambda t: t[0] + "".join(a + b for a, b in t[1]) + t[2] + t[3])


def _extend(lines):
    return _line(st.one_of(_atom, _atom, _body(lines).map(lambda b: "{" + b + "}")))


_block_lines = st.recursive(_line(_atom), _extend, max_leaves=30)
_documents = _body(_block_lines)

_grammar_text = from_lark(
    Lark((Path(__file__).parent.parent / "dsl" / "grammar.lark").read_text(encoding="utf-8"), parser="lalr"),
    explicit={"NAME": _names, "NUMBER": _numbers, "STRING": _strings, "COMMENT": _comment,
              "_NL": st.sampled_from(["\n", "\r\n", "\n\n", "\n\n\n"]),
              "__IGNORE_0": st.sampled_from([" ", "\t", "  "])},
)


def _check_formatting(text: str) -> None:
    lines, diags = parse_text(text)
    assume(diags == [])
    out = fmt(text)
    assert shape(out) == syntax_shape(lines, text)
    assert comments(out) == comments(text)
    assert fmt(out) == out
    assert all(ln == ln.rstrip(" \t") for ln in out.split("\n"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=_documents)
def test_formatting_generated_documents(text):
    _check_formatting(text)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=_grammar_text)
def test_formatting_grammar_strings(text):
    _check_formatting(text)


# --- the command --------------------------------------------------------------------------------
GOOD = 'card walk {\n  name "Walk"\n  fail { lose 1 time }\n}\n'
UGLY = 'card walk{ name "Walk"\n    fail {\n lose 1 time\n } }'
BROKEN = "card walk {\n  name \"Walk\"\n"


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "good.fg").write_text(GOOD, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "ugly.fg").write_text(UGLY, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(UGLY, encoding="utf-8")  # not a .fg file: ignored
    return tmp_path


def test_fmt_check_lists_files_and_exits_1(folder, capsys):
    assert main(["fmt", "--check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert out == f"would reformat {folder / 'sub' / 'ugly.fg'}\n"
    assert (folder / "sub" / "ugly.fg").read_text(encoding="utf-8") == UGLY  # untouched


def test_fmt_rewrites_then_check_passes(folder, capsys):
    assert main(["fmt", str(folder)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"reformatted {folder / 'sub' / 'ugly.fg'}\n"
    assert "1 file reformatted, 1 file already formatted" in captured.err
    assert (folder / "sub" / "ugly.fg").read_text(encoding="utf-8") == GOOD
    assert (folder / "notes.txt").read_text(encoding="utf-8") == UGLY
    assert main(["fmt", "--check", str(folder)]) == 0
    assert capsys.readouterr().out == ""


def test_fmt_diff_does_not_write(folder, capsys):
    ugly = folder / "sub" / "ugly.fg"
    assert main(["fmt", "--diff", str(ugly)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {ugly}\t(original)\n+++ {ugly}\t(formatted)\n@@")
    assert "+  fail { lose 1 time }\n" in out and "\\ No newline at end of file" in out
    assert ugly.read_text(encoding="utf-8") == UGLY
    assert main(["fmt", "--diff", "--check", str(ugly)]) == 1


def test_fmt_parse_error_exits_1(folder, capsys):
    (folder / "broken.fg").write_text(BROKEN, encoding="utf-8")
    assert main(["fmt", "--check", str(folder / "broken.fg"), str(folder / "good.fg")]) == 1
    err = capsys.readouterr().err
    assert "error[E103]" in err and "1 file could not be formatted" in err
    assert main(["fmt", str(folder / "broken.fg")]) == 1
    assert (folder / "broken.fg").read_text(encoding="utf-8") == BROKEN


def test_fmt_json(folder, capsys):
    (folder / "broken.fg").write_text(BROKEN, encoding="utf-8")
    assert main(["fmt", "--check", "--json", str(folder)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"changed", "unchanged", "errors"}
    assert data["changed"] == [str(folder / "sub" / "ugly.fg")] and data["unchanged"] == 1
    assert [e["code"] for e in data["errors"]] == ["E103"] and data["errors"][0]["path"] == str(folder / "broken.fg")
    (folder / "broken.fg").unlink()
    assert main(["fmt", "--json", "--diff", str(folder)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["diffs"]) == data["changed"] == [str(folder / "sub" / "ugly.fg")]


def test_fmt_usage_errors(tmp_path, capsys):
    assert main(["fmt", str(tmp_path / "missing.fg")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["fmt", "--bogus"]) == 2
