"""The catalogue of error codes (dsl/diagnostics.py), docs/errors.md and 'lastbreath explain-error'.

Every code a diagnostic or an engine error carries has an entry: a title, an explanation, a
short bad example and its fix. The content examples are checked: the example gives its code,
the fix gives no diagnostic at all. docs/errors.md is the catalogue as Markdown, kept up to date.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest

from lastbreath.dsl import ContentError, IllegalChoice, RulesError, SaveError, bundled_paths, load_content, load_ruleset
from lastbreath.dsl.diagnostics import CATALOGUE, CODES, errors_markdown, lookup
from lastbreath.interpreter import engine
from lastbreath.interpreter.api import new_game
from lastbreath.interpreter.cli import main
from lastbreath.interpreter.session import Session

ROOT = Path(__file__).resolve().parent.parent
ERRORS_MD = ROOT / "docs" / "errors.md"
pytestmark = pytest.mark.usefixtures("bundled_parse_cache")  # each bundled file parsed once here


def test_docs_errors_md_is_generated_from_the_catalogue():
    assert ERRORS_MD.read_text(encoding="utf-8") == errors_markdown(), \
        "docs/errors.md is stale: run 'lastbreath explain-error --markdown > docs/errors.md'"


def test_catalogue_entries_are_complete_and_stable_in_form():
    codes = [e.code for e in CATALOGUE]
    assert len(codes) == len(set(codes)) >= 25
    assert list(CODES) == codes
    for e in CATALOGUE:
        assert re.fullmatch(r"E[1234]\d\d|W2\d\d", e.code), e.code
        assert e.title and e.explanation and e.example.strip() and e.fix.strip() and e.example != e.fix
        assert e.severity == ("warning" if e.code.startswith("W") else "error")
        assert e.lang in ("fg", "text", "position")
        assert e.lang == "fg" or not e.code.startswith(("E2", "W")) or e.code == "E212"  # checking: real examples
        assert (e.lang == "position") == (e.code.startswith("E4") and e.code != "E407")  # positions: real examples
    assert {c[:2] for c in codes} == {"E1", "E2", "W2", "E3", "E4"}


def test_every_code_in_the_sources_is_catalogued_and_every_content_code_is_used():
    used: set[str] = set()
    for f in [*(ROOT / "dsl").glob("*.py"), *(ROOT / "interpreter").glob("*.py")]:
        if f.name != "diagnostics.py":
            used |= set(re.findall(r'"([EW]\d{3})"', f.read_text(encoding="utf-8")))
    assert used <= set(CODES), sorted(used - set(CODES))
    content_codes = {c for c in CODES if c[1] in "124"}
    assert content_codes <= used, f"catalogued but never reported: {sorted(content_codes - used)}"


@pytest.mark.parametrize("entry", [e for e in CATALOGUE if e.lang == "fg"], ids=lambda e: e.code)
def test_the_example_gives_its_code_and_the_fix_gives_nothing(tmp_path, entry):
    def check(text: str) -> list:
        f = tmp_path / f"{entry.code.lower()}.fg"
        f.write_text(text, encoding="utf-8")
        return [d for d in load_content([*bundled_paths(), f])[1]]

    got = check(entry.example)
    assert entry.code in [d.code for d in got], "\n".join(d.format() for d in got)
    assert all(d.severity == entry.severity for d in got if d.code == entry.code)
    fixed = check(entry.fix)
    assert fixed == [], "\n".join(d.format(entry.fix) for d in fixed)


@pytest.mark.parametrize("entry", [e for e in CATALOGUE if e.lang == "position"], ids=lambda e: e.code)
def test_the_position_example_gives_its_code_and_the_fix_gives_nothing(rs, entry):
    from lastbreath.interpreter.rulings import check_text

    got = check_text(rs, entry.example, f"{entry.code.lower()}.position")
    assert entry.code in [d.code for d in got], "\n".join(d.format(entry.example) for d in got)
    fixed = check_text(rs, entry.fix, f"{entry.code.lower()}.position")
    assert fixed == [], "\n".join(d.format(entry.fix) for d in fixed)


def test_engine_errors_carry_their_codes(rs, tmp_path):
    state, _events = new_game(rs, seed=1)
    with pytest.raises(IllegalChoice) as illegal:
        engine.apply(state, "no-such-option")
    with pytest.raises(RulesError) as unknown:
        new_game(rs, killer="big-bad-wolfe")
    with pytest.raises(SaveError) as save:
        Session.load(rs, {"format": "something else"})
    bad = tmp_path / "bad.fg"
    bad.write_text('card shout { name "Shout"; cost 1; fail { loose 1 time } }\n', encoding="utf-8")
    with pytest.raises(ContentError) as content:
        load_ruleset([bad])
    assert (unknown.value.code, illegal.value.code, save.value.code, content.value.code) == \
        ("E300", "E301", "E302", "E303")
    assert all(CATALOGUE[list(CODES).index(c)].lang == "text" for c in ("E300", "E301", "E302", "E303"))


# --- the command ---------------------------------------------------------------------------------
def test_explain_error_prints_the_entry(capsys):
    assert main(["explain-error", "e207"]) == 0
    out = capsys.readouterr().out
    assert out == lookup("E207").explain()
    assert out.startswith("E207 (error): unknown effect phrase")
    assert "Example:" in out and "loose 1 time" in out and "Fix:" in out and "lose 1 time" in out
    assert main(["explain-error", "201"]) == 0 and capsys.readouterr().out.startswith("E201")
    assert main(["explain-error", "w201"]) == 0 and "(warning)" in capsys.readouterr().out


def test_explain_error_lists_every_code_and_speaks_json(capsys):
    assert main(["explain-error"]) == 0
    listed = [ln.split()[0] for ln in capsys.readouterr().out.splitlines()]
    assert listed == list(CODES)
    assert main(["explain-error", "E301", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == attrs.asdict(lookup("E301"))
    assert main(["explain-error", "--markdown"]) == 0
    assert capsys.readouterr().out == errors_markdown()


def test_explain_error_unknown_code_is_a_usage_mistake(capsys):
    assert main(["explain-error", "E2077"]) == 2
    err = capsys.readouterr().err
    assert "unknown error code 'E2077'" in err and "did you mean 'E207'" in err


def test_help_documents_explain_error(capsys):
    assert main(["--help"]) == 0
    assert "explain-error" in capsys.readouterr().out
    assert main(["explain-error", "--help"]) == 0
    out = capsys.readouterr().out
    assert "CODE" in out and "docs/errors.md" in out


def test_a_failed_check_names_the_command_that_explains_its_code(tmp_path, capsys):
    bad = tmp_path / "bad.fg"
    bad.write_text('card shout {\n  name "Shout"\n  cost 1\n  fail { loose 1 time }\n}\n', encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:4:10: error[E207]" in err and "'lastbreath explain-error E207' explains a code" in err
