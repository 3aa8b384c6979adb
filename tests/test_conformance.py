"""The conformance suite of the content language (issue #12): small content snippets, each run in a
tiny scenario, each with the log it must produce. It is the contract of the language: anyone
re-implementing or changing the interpreter runs it.

Every ``tests/conformance/*.case`` file is one case, one test here (its id: the file's name).
tests/conformance/README.md describes the format; in short, a case is sections:

    checks: what the case checks (one line)
    rules: C13.2                        (optional: the docs/rules.md ids it checks)
    xfail: why the engine is wrong      (optional: a strict xfail; the log is the one that SHOULD come)
    killer:   lines added to the host killer        scenario: lines added to the host scenario
    content:  whole declarations added beside the host
    position: a position's lines (docs/positions.md); the host killer, scenario and Final Girl by default
    run:      effect lines, resolved by the host's free action "the case runs", answered first
    steps:    play CARD / answer WORD… / expect [not] FACT (the steps of a ruling)
    log:      the events expected, in order; a line `…` stands for any number of events

A mistake in a case file fails its test with ``file:line:col`` diagnostics. To write the log a
case produces into its file (a failing case's only: a case that passes is never rewritten), run
``CONFORMANCE_UPDATE=1 python -m pytest tests/test_conformance.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Optional

import attrs
import pytest
from lastbreath.dsl import Diagnostic, Span, bundled_paths, load_content, parse_text
from lastbreath.interpreter import rulings
from lastbreath.interpreter.position import Reader, LineStop, parse_position

HERE = Path(__file__).resolve().parent
CASES = HERE / "conformance"
ROOT = HERE.parent
UPDATE = os.environ.get("CONFORMANCE_UPDATE", "") not in ("", "0")
GAP = ("…", "...")  # a log line that stands for any number of events

SECTIONS = ("checks", "rules", "xfail", "killer", "scenario", "content", "position", "run", "steps", "log")
ONE_LINE = ("checks", "rules", "xfail")  # their text follows the colon

# The host: a tiny killer and a five-location scenario every case is played in (README.md draws the map).
# '@KILLER@', '@SCENARIO@', '@RUN@' and '@CONTENT@' mark where a case's sections go.
HOST = """\
killer host-killer {
  name "The Host"
  health 5
  fear 1
  modes hunting feeding
  bloodlust {
    level move 1 damage 1 spawn 1
    level move 1 damage 2 spawn 2
    level move 2 damage 2 spawn 3
    at max { lose 1 time }
  }
  minion cub { name "Cub"; health 1; move 1; damage 1; limit 6 }
  minion rat { name "Rat"; health 1; move 1; damage 1; limit 6 }
  finale host-finale {
    name "Host Finale"
    back { killer hunts fg moves 1 attacks 1 }
    face { killer hunts fg moves 1 attacks 1 }
  }
  dark_power host-power { name "Host Power"; when revealed { if bloodlust spawn at least 9 { heal 1 } } }
  terror host-still { name "Still"; effect { } }
@KILLER@
}

scenario host-woods {
  name "Host Woods"
  tags indoor river
  location gate { name "Gate"; exit }
  location mill { name "Mill"; search; tags river }
  location cabin { name "Cabin"; tags indoor }
  location ford { name "Ford"; search; tags river }
  location dock { name "Dock"; exit }
  path gate (1 2) -- (1 2) mill
  path mill (3 4) -- (1 2) cabin
  path mill (5 6) -- (3 4) ford
  path cabin (3 4) -- (1 2) dock
  path ford (5 6) -- (5 6) dock { tags bridge }
  setup host-setup { killer at dock; fg at gate; victims at cabin 1 }
  item lamp { name "Lamp" }
  item rope { name "Rope" }
  token pill { name "Pill"; kinds red blue; supply red 2 blue 2 }
  event host-calm { name "Calm"; effect { } }
  action case-run {
    name "the case runs"
    free
    effect {
@RUN@
    }
  }
@SCENARIO@
}
@CONTENT@
"""
HOST_SETUP = {"killer": "host-killer", "scenario": "host-woods", "final_girl": "nell-arden"}
RUN_KEY = "action:case-run"


# --- reading a case -------------------------------------------------------------------------------
class CaseError(Exception):
    """A mistake in a case file: its message names file:line."""


class CaseMismatch(AssertionError):
    """A case that plays, but not as its file says (the log, or a step's fact): the only failure an
    xfail case may have (a mistake in an xfail case fails it all the same)."""


@attrs.frozen
class Section:
    name: str
    line: int  # the line of its head
    text: str  # a one-line section's text
    body: tuple[tuple[int, str], ...]  # (line, text) of each line under the head, as written


@attrs.frozen
class Case:
    path: Path
    text: str
    sections: dict[str, Section]

    @property
    def name(self) -> str:
        return self.path.stem

    def has(self, name: str) -> bool:
        return name in self.sections

    def one(self, name: str) -> str:
        return self.sections[name].text if name in self.sections else ""

    @property
    def shown(self) -> str:
        """The file as diagnostics name it (relative to the repository when inside it)."""
        return str(self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path)

    def where(self, line: int) -> str:
        return f"{self.shown}:{line}"


HEAD = re.compile(r"^([a-z_]+):(.*)$")


def read_case(path: Path) -> Case:
    """A case file's sections; raises CaseError naming file:line for a line that is not one."""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CaseError(f"{shown}:1: cannot read the case as UTF-8 text ({err})") from None
    sections: dict[str, Section] = {}
    current: Optional[list] = None
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):  # a comment at the start of a line; indented lines keep theirs
            continue
        if not line.strip() or line[0] in " \t":
            if current is None or current[0] in ONE_LINE:
                if not line.strip():
                    continue
                raise CaseError(f"{shown}:{i}: an indented line outside a section: it belongs under a head "
                                f"({', '.join(s + ':' for s in SECTIONS if s not in ONE_LINE)})")
            current[3].append((i, line))
            continue
        m = HEAD.match(line)
        if not m or m.group(1) not in SECTIONS:
            word = (line.split(":")[0].split() or [""])[0]
            close = difflib.get_close_matches(word, SECTIONS, n=1)
            hint = f" (did you mean '{close[0]}:'?)" if close else f" (one of {', '.join(s + ':' for s in SECTIONS)})"
            raise CaseError(f"{shown}:{i}: '{line.strip()[:40]}' is not a section head{hint}; "
                            f"the lines of a section are indented")
        name, rest = m.group(1), m.group(2).strip()
        if name in sections or (current is not None and current[0] == name):
            raise CaseError(f"{shown}:{i}: the section '{name}:' is given twice")
        if current is not None:
            sections[current[0]] = _section(current)
        if name in ONE_LINE and not rest:
            raise CaseError(f"{shown}:{i}: '{name}:' takes its text on the same line")
        if name not in ONE_LINE and rest:
            raise CaseError(f"{shown}:{i}: the lines of '{name}:' go on the lines below it, indented")
        current = [name, i, rest, []]
    if current is not None:
        sections[current[0]] = _section(current)
    case = Case(path, text, sections)
    if "checks" not in sections:
        raise CaseError(f"{shown}:1: a case says what it checks: 'checks: …'")
    if "log" not in sections or not _log_lines(case):
        raise CaseError(f"{shown}:{sections['log'].line if 'log' in sections else 1}: a case has a 'log:' "
                        f"section with the events it must produce")
    if not any(ln not in GAP for _, ln in _log_lines(case)):
        raise CaseError(f"{shown}:{sections['log'].line}: a log of '…' alone cannot fail: name an event")
    return case


def _section(current: list) -> Section:
    name, line, text, body = current
    while body and not body[-1][1].strip():
        body.pop()
    return Section(name, line, text, tuple(body))


def _log_lines(case: Case) -> list[tuple[int, str]]:
    return [(i, ln.strip()) for i, ln in case.sections["log"].body
            if ln.strip() and not ln.strip().startswith("#")]


# --- the content: the host with the case's lines, diagnostics pointing back into the case --------
_CARDS = [p for p in bundled_paths() if p.name == "cards"]  # the core deck, the player board, the Final Girls


def build_content(case: Case) -> tuple[str, list[Optional[tuple[int, int]]]]:
    """The content file of a case, and for each of its lines where it came from: (case line, how
    far its columns moved) for a line of the case, None for a line of the host."""
    out: list[str] = []
    origin: list[Optional[tuple[int, int]]] = []

    def put(section: str, indent: int) -> None:
        sec = case.sections.get(section)
        if sec is None:
            return
        lines = [(i, ln.expandtabs(2)) for i, ln in sec.body]
        strip = min((len(ln) - len(ln.lstrip()) for _, ln in lines if ln.strip()), default=0)
        for i, ln in lines:
            if not ln.strip():
                continue
            out.append(" " * indent + ln[strip:])
            origin.append((i, strip - indent))

    for line in HOST.splitlines():
        mark = line.strip()
        if mark == "@KILLER@":
            put("killer", 2)
        elif mark == "@SCENARIO@":
            put("scenario", 2)
        elif mark == "@RUN@":
            put("run", 6)
        elif mark == "@CONTENT@":
            put("content", 0)
        else:
            out.append(line)
            origin.append(None)
    return "\n".join(out) + "\n", origin


def _moved(case: Case, d: Diagnostic, origin: list[Optional[tuple[int, int]]], host_file: str) -> Diagnostic:
    """A diagnostic of the generated file, pointing into the case file."""
    if d.span.path != host_file:
        return d
    where = origin[d.span.line - 1] if 0 < d.span.line <= len(origin) else None
    if where is None:  # a host line: the case's content sections are the likely cause
        first = min((s.line for k, s in case.sections.items() if k in ("killer", "scenario", "content", "run")),
                    default=1)
        return attrs.evolve(d, span=Span(case.shown, first, 1, first, 2),
                            message=d.message + " (in the host's lines; the case's content clashes with them)")
    line, shift = where
    end_col = d.span.end_col + shift if d.span.end_line == d.span.line else d.span.end_col
    return attrs.evolve(d, span=Span(case.shown, line, max(1, d.span.col + shift), line, max(1, end_col)))


def load_case_content(case: Case, tmp: Path):
    text, origin = build_content(case)
    f = tmp / f"{case.name}.fg"
    f.write_text(text, encoding="utf-8")
    rs, diags = load_content([*_CARDS, f])  # the core files come built from the cache (dsl/cache.py)
    found = [_moved(case, d, origin, str(f)) for d in diags]  # warnings too: a case's content is clean
    if rs is None or found:
        raise CaseError("the case's content does not check:\n" + "\n".join(d.format(case.text) for d in found))
    return rs


# --- the drive: a position, the run action, the steps ----------------------------------------------
def _blanked(case: Case, section: Optional[Section], first: str = "") -> str:
    """A text with the case's line numbers: the section's lines where they stand, every other line
    blank, the head's line replaced by ``first``."""
    lines = [""] * (len(case.text.splitlines()) + 2)
    if section is None:
        lines[0] = first
        return "\n".join(lines) + "\n"
    lines[section.line - 1] = first
    for i, ln in section.body:
        lines[i - 1] = ln
    return "\n".join(lines) + "\n"


def _setup_heads(section: Optional[Section]) -> set[str]:
    """The setup lines (killer ID, scenario ID, …) a position section gives."""
    heads = set()
    for _, ln in section.body if section else ():
        for part in ln.split("#")[0].split(";"):
            words = part.split()
            if words and words[0] in HOST_SETUP and (words[0] != "killer" or (len(words) == 2 and words[1] not in (
                    "at", "health", "last_breath", "status"))):
                heads.add(words[0])
    return heads


def read_drive(case: Case, rs) -> rulings.Ruling:
    """The case's position and steps, as a ruling (rulings.run plays it)."""
    sec = case.sections.get("position")
    given = _setup_heads(sec)
    defaults = "; ".join(f"{k} {v}" for k, v in HOST_SETUP.items() if k not in given)
    text = _blanked(case, sec, f"position {{ {defaults}" + ("" if sec else " }"))
    if sec:
        text = text.rstrip("\n") + "\n}\n"
    pos, diags = parse_position(rs, text, case.shown)
    if pos is None:
        raise CaseError("the case's position does not check:\n" + "\n".join(d.format(case.text) for d in diags))
    steps: list[rulings.Step] = []
    if case.has("run"):
        head = case.sections["run"]
        steps.append(rulings.Step(Span(case.shown, head.line, 1, head.line, 5), "run", key=RUN_KEY))
    sec = case.sections.get("steps")
    if sec:
        lines, diags = parse_text(_blanked(case, sec), case.shown)
        reader = Reader(case.shown, list(diags))
        for ln in lines:
            try:
                atoms = reader.atoms_only(ln)
                if ln.head() not in rulings.STEPS:
                    word = ln.parts[0].text() if ln.parts else ""
                    raise reader.error(ln.span, "E401", f"unknown step '{word}'",
                                       "one of: " + ", ".join(rulings.STEPS.values()))
                steps.append(rulings._step(rs, reader, pos, ln, atoms))
            except LineStop:
                continue
        if reader.diags:
            raise CaseError("the case's steps do not check:\n" + "\n".join(d.format(case.text) for d in reader.diags))
    span = Span(case.shown, 1, 1, 1, 2)
    return rulings.Ruling(case.name, case.shown, span, case.one("checks"), tuple(case.one("rules").split()),
                          pos, tuple(steps))


def check_rule_ids(case: Case) -> None:
    from lastbreath.interpreter import rules_reference as rr

    if not case.has("rules"):
        return
    ref = rr.load_reference()
    for rid in case.one("rules").split():
        if ref.find(rr.normalize(rid)) is None:
            raise CaseError(f"{case.where(case.sections['rules'].line)}: unknown rule id '{rid}' "
                            f"(did you mean {' or '.join(ref.suggestions(rid)) or 'one of docs/rules.md'}?)")


# --- the log ---------------------------------------------------------------------------------------
def rendered(log) -> list[str]:
    """The log as lines: each event as ``text [RULE]``, each answer as ``> LABEL``."""
    return [e.text if e.kind == "choice" else e.render() for e in log]


def match_log(expected: list[str], got: list[str]) -> Optional[tuple[int, str]]:
    """None when ``got`` is ``expected``, each gap line standing for any number of lines (none
    included); else the index of the first expected line that cannot be matched, and what the log
    shows instead."""
    runs: list[list[tuple[int, str]]] = [[]]  # the literal lines between gaps
    for k, line in enumerate(expected):
        if line in GAP:
            runs.append([])
        else:
            runs[-1].append((k, line))

    def line(i: int) -> str:
        return f'"{got[i]}"' if 0 <= i < len(got) else "(the log has ended)"

    if len(runs) == 1:  # no gap: the whole log, line by line
        for k, t in enumerate(expected):
            if k >= len(got) or got[k] != t:
                return k, f"log line {k + 1} is {line(k)}"
        if len(got) > len(expected):
            return len(expected), f"the log goes on with {line(len(expected))}"
        return None
    head, *middle, tail = runs
    for j, (k, t) in enumerate(head):  # the lines before the first gap open the log
        if j >= len(got) or got[j] != t:
            return k, f"log line {j + 1} is {line(j)}"
    pos = len(head)
    for run in middle:  # each run of lines between gaps: its first place after the one before
        texts = [t for _, t in run]
        best, best_at = -1, pos
        for at in range(pos, len(got) + 1):
            n = 0
            while n < len(texts) and at + n < len(got) and got[at + n] == texts[n]:
                n += 1
            if n == len(texts):
                break
            if n > best:
                best, best_at = n, at
        else:
            if best <= 0:
                after = f" after log line {pos}" if pos else ""
                return run[0][0], f"no event of the log{after} says it"
            return run[best][0], (f"after log line {best_at + best} (\"{got[best_at + best - 1]}\") comes "
                                  f"{line(best_at + best)}")
        pos = at + len(texts)
    start = len(got) - len(tail)  # the lines after the last gap close the log
    for j, (k, t) in enumerate(tail):
        if start + j < pos or got[start + j] != t:
            return k, (f"log line {start + j + 1} of {len(got)} is {line(start + j)} (the lines after the last "
                       f"'…' are the end of the log)")
    return None


def check_log(case: Case, got: list[str]) -> Optional[str]:
    lines = _log_lines(case)
    expected = [t for _, t in lines]
    bad = match_log(expected, got)
    if bad is None:
        return None
    k, why = bad
    where = case.where(lines[k][0] if k < len(lines) else lines[-1][0] + 1)
    wanted = f"expected \"{expected[k]}\"" if k < len(expected) else "expected the log to end here"
    return f"{where}: the log differs: {wanted}; {why}"


def write_log(case: Case, got: list[str]) -> None:
    """Replace the case's log section with the log it produced (CONFORMANCE_UPDATE)."""
    lines = case.text.splitlines()
    sec = case.sections["log"]
    end = sec.body[-1][0] if sec.body else sec.line
    new = lines[:sec.line] + [f"  {ln}" for ln in got] + lines[end:]
    case.path.write_text("\n".join(new) + "\n", encoding="utf-8")


# --- running ---------------------------------------------------------------------------------------
@attrs.frozen
class Result:
    ok: bool
    message: str
    log: tuple[str, ...]


def run_case(case: Case, tmp: Path) -> Result:
    check_rule_ids(case)
    rs = load_case_content(case, tmp)
    ruling = read_drive(case, rs)
    out = rulings.run(ruling)
    got = rendered(out.log)
    if not out.ok:
        step = out.step
        where = case.where(step.span.line) if step else case.where(1)
        return Result(False, f"{where}: {step.text if step else 'the position'}: {out.message}", tuple(got))
    bad = check_log(case, got)
    return Result(bad is None, bad or "", tuple(got))


def show(result: Result) -> str:
    return result.message + "\nthe log the case produced:\n" + "\n".join(f"  {ln}" for ln in result.log)


CASE_FILES = sorted(CASES.glob("*.case"))


def _params():
    out = []
    for f in CASE_FILES:
        marks = []
        try:
            case = read_case(f)
            if case.has("xfail"):
                marks.append(pytest.mark.xfail(strict=True, raises=CaseMismatch, reason=case.one("xfail")))
        except CaseError:
            pass  # the test itself reports it
        out.append(pytest.param(f, id=f.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _params())
def test_case(path, tmp_path):
    try:
        case = read_case(path)
        result = run_case(case, tmp_path)
    except CaseError as err:
        result, case = Result(False, str(err), ()), None
    if case is None:
        pytest.fail(result.message, pytrace=False)
    if not result.ok and UPDATE and not case.has("xfail") and "the log differs" in result.message:
        write_log(case, list(result.log))
        pytest.fail(f"{case.where(case.sections['log'].line)}: the log was rewritten (CONFORMANCE_UPDATE): "
                    f"review the diff", pytrace=False)
    if not result.ok:
        __tracebackhide__ = True
        raise CaseMismatch(show(result))


# --- the suite's own checks ------------------------------------------------------------------------
GOOD_CASES = [f for f in CASE_FILES if "\nxfail:" not in f.read_text(encoding="utf-8")]


def test_the_suite_is_large_and_each_case_checks_its_own_thing():
    cases = [read_case(f) for f in CASE_FILES]
    assert len(cases) >= 60
    checks = [c.one("checks") for c in cases]
    assert len(set(checks)) == len(checks), "two cases say they check the same thing"
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", c.name) for c in cases), "case names are kebab-case"


def _content_text(case: Case) -> str:
    """The content lines of a case (killer, scenario, content and run sections), comments cut."""
    return "\n".join(ln.split("#")[0] for k in ("killer", "scenario", "content", "run") if k in case.sections
                     for _, ln in case.sections[k].body)


def test_every_keyword_of_the_expression_grammar_is_used_by_some_case():
    """The cases cover v2's expressions: every keyword of the grammar's conditions, amounts, places,
    pieces and events (dsl/grammar.lark) stands in the content of at least one case."""
    grammar = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")
    expressions = grammar[grammar.index("// ===== conditions"):grammar.index("// ===== abilities")]
    keywords = set(re.findall(r'"([a-z]+)"', expressions))
    text = "\n".join(_content_text(read_case(f)) for f in CASE_FILES)
    missing = sorted(k for k in keywords if not re.search(rf"(?<![\w-]){k}(?![\w-])", text))
    assert missing == []
    for form in ("at least", "at most", "more than", "less than", "a kill", "the killer", "a minion",
                 "another cause", "plus", "minus"):
        assert form in text, form


def test_the_issue_one_liners_are_cases():
    """Issue #12: 'the killer cannot go below 1 health while a condition holds' and 'damage to the
    killer is reduced by 1 while a condition holds' are each one line of content."""
    text = "\n".join(_content_text(read_case(f)) for f in GOOD_CASES)
    assert "limit killer takes damage to at most (killer health minus 1) while" in text
    assert "reduce killer takes damage by 1 while" in text


def test_the_readme_describes_every_section():
    readme = (CASES / "README.md").read_text(encoding="utf-8")
    assert all(f"`{s}:`" in readme for s in SECTIONS)
    assert "CONFORMANCE_UPDATE" in readme


@pytest.mark.parametrize("expected, got, bad", [
    (["a", "b"], ["a", "b"], None),
    (["a", "b"], ["a", "c"], (1, 'log line 2 is "c"')),
    (["a", "b"], ["a"], (1, "log line 2 is (the log has ended)")),
    (["a"], ["a", "b"], (1, 'the log goes on with "b"')),
    (["…", "b"], ["a", "x", "b"], None),
    (["…", "b"], ["a", "b", "x"], (1, 'log line 3 of 3 is "x" (the lines after the last \'…\' are the end of the log)')),
    (["a", "…"], ["a", "b", "c"], None),
    (["a", "...", "c"], ["a", "c"], None),  # a gap stands for none too
    (["a", "…", "c", "d", "…", "f"], ["a", "b", "c", "x", "c", "d", "e", "f"], None),
    (["a", "…", "c", "d", "…"], ["a", "c", "x"], (3, 'after log line 2 ("c") comes "x"')),
    (["a", "…", "z", "…"], ["a", "b"], (2, "no event of the log after log line 1 says it")),
    (["…", "b", "…", "a", "…"], ["a", "b"], (3, "no event of the log after log line 2 says it")),  # in order
    (["x", "…"], ["a"], (0, 'log line 1 is "a"')),
])
def test_the_log_matcher(expected, got, bad):
    assert match_log(expected, got) == bad


@pytest.mark.parametrize("path", GOOD_CASES, ids=[f.stem for f in GOOD_CASES])
def test_every_case_can_fail(path, tmp_path):
    """Change any one expected line of a case's log and the case fails at that line; a log that
    goes on past a closed end fails too. One changed line is run end to end, from a copy of the file."""
    case = read_case(path)
    result = run_case(case, tmp_path)
    assert result.ok, show(result)
    lines = _log_lines(case)
    expected = [t for _, t in lines]
    for k, t in enumerate(expected):
        if t not in GAP:
            changed = expected[:k] + [t + " (changed)"] + expected[k + 1:]
            assert match_log(changed, list(result.log)) is not None, f"changing '{t}' goes unseen"
    if expected[-1] not in GAP:
        assert match_log(expected, [*result.log, "one more event"]) is not None
    k, (line, text) = next((k, x) for k, x in reversed(list(enumerate(lines))) if x[1] not in GAP)
    copy = tmp_path / path.name
    body = path.read_text(encoding="utf-8").splitlines()
    body[line - 1] = body[line - 1].replace(text, text + " (changed)")
    copy.write_text("\n".join(body) + "\n", encoding="utf-8")
    bad = run_case(read_case(copy), tmp_path)
    assert not bad.ok and f"{copy}:{line}: the log differs: expected \"{text} (changed)\"" in bad.message


BAD_CASES = [  # (the case file, what its failure must say)
    ("checks: x\nrule: C1.1\nlog:\n  a\n", ":2: 'rule: C1.1' is not a section head (did you mean 'rules:'?)"),
    ("checks: x\n  stray\nlog:\n  a\n", ":2: an indented line outside a section"),
    ("checks: x\nrun:\n  heal 1\nrun:\n  heal 1\nlog:\n  a\n", ":4: the section 'run:' is given twice"),
    ("run:\n  heal 1\nlog:\n  a\n", ":1: a case says what it checks"),
    ("checks: x\nrun:\n  heal 1\n", ":1: a case has a 'log:' section"),
    ("checks: x\nlog:\n  …\n", ":2: a log of '…' alone cannot fail"),
    ("checks: x\nlog: a\n", ":2: the lines of 'log:' go on the lines below it"),
    ("checks: x\n: y\nlog:\n  a\n", ":2: ': y' is not a section head"),
    ("checks: x\nlog:\n  a\n\xff\n", ":1: cannot read the case as UTF-8 text"),
    ("checks: x\nrules: C99.1\nlog:\n  a\n", ":2: unknown rule id 'C99.1'"),
    ("checks: x\nkiller:\n  rule dice +1\nrun:\n  heal 1\n  loose 1 time\nlog:\n  a\n",
     ":6:3: error[E207]: unknown effect 'loose 1 time'"),
    ("checks: x\nscenario:\n  when revealed { heal 1 }\nlog:\n  a\n", ":3:3: warning[W201]"),
    ("checks: x\nscenario:\n  item lamp { name \"Lamp\" }\nlog:\n  a\n", ":3:3: error[E203]"),  # the host has a lamp
    ("checks: x\nposition:\n  fear 2\n  helth 3\nlog:\n  a\n",
     ":4:3: error[E401]: unknown line 'helth' in a position (did you mean 'health'?)"),
    ("checks: x\nrun:\n  heal 1\nsteps:\n  answr x\nlog:\n  a\n", ":5:3: error[E401]: unknown step 'answr'"),
    ("checks: x\nrun:\n  heal 1\nsteps:\n  expect fear 999\nlog:\n  a\n", ":5:15: error[E403]: the number 999 is out of range"),
    ("checks: x\nrun:\n  heal 1\nsteps:\n  answer move dock\nlog:\n  a\n",
     ":5: answer move dock: 'move:dock' is not an option of the choice 'Your action'"),
    ("checks: x\nrun:\n  lose 1 time\nsteps:\n  expect time 9\nlog:\n  a\n", ":5: expect time 9: her time is 5"),
    ("checks: x\nrun:\n  lose 1 time\nlog:\n  > the case runs (free)\n  the case runs [C1.2]\n  loses 2 time (now 4) [C3.4]\n",
     ':7: the log differs: expected "loses 2 time (now 4) [C3.4]"; log line 3 is "loses 1 time (now 5) [C3.4]"'),
]


@pytest.mark.parametrize("text, says", BAD_CASES, ids=[f"bad-{i}" for i in range(len(BAD_CASES))])
def test_a_mistaken_case_fails_naming_its_line(tmp_path, text, says):
    path = tmp_path / "bad-case.case"
    path.write_bytes(text.encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    try:
        message = show(run_case(read_case(path), tmp_path))
    except CaseError as err:
        message = str(err)
    assert f"{path}{says}" in message, message


def test_the_update_writes_the_log_produced(tmp_path):
    """CONFORMANCE_UPDATE: the log section is replaced by the log the case produced, the rest kept."""
    path = tmp_path / "draft.case"
    path.write_text("checks: a draft\nrun:\n  lose 1 time\n\nlog:\n  ?\n\n# a comment after it\n", encoding="utf-8")
    case = read_case(path)
    result = run_case(case, tmp_path)
    assert not result.ok
    write_log(case, list(result.log))
    again = read_case(path)
    assert run_case(again, tmp_path).ok
    assert path.read_text(encoding="utf-8").endswith("  loses 1 time (now 5) [C3.4]\n\n# a comment after it\n")
