"""The language reference is tested documentation.

Every example block of dsl/LANGUAGE.md (indented four spaces, or fenced with no language or
``fg``) is checked with the bundled content, from a pack folder of its own, and must give no
diagnostics:

- a block of complete top-level declarations (``card``, ``killer``, ``pack``…) is loaded as it is;
- a block of killer parts (``finale``, ``dark_power``, ``terror``, ``minion``) stands in a small
  killer with the modes ``hunting feeding`` (the modes of the reference's killer);
- a block of scenario parts (``location``, ``path``, ``setup``, ``event``, ``token``, ``action``,
  ``deck``…) or of triggers, replacements and statics (``when``, ``at``, ``instead``, ``rule``,
  ``win``, ``lose``) stands in a small scenario with the map of the reference's scenario
  (``cottage``, ``old-mill``, ``north-gate``; tags ``indoor river``, a path tagged ``bridge``);
- any other block is effect lines: they stand in a terror card of that scenario;
- a block of modules without a scenario or a killer of its own is loaded with the reference's
  killer and scenario of section 2 (``grey-wolf``, ``hollow-woods``), which its sections change.

A block right after the line ``<!-- not checked -->`` is skipped (the syntax sketch and the few
deliberately partial ``…`` sketches). docs/first-killer.md is checked by its own test below:
its files, in their last version, are a pack that loads clean and plays a game.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import attrs
import pytest

from lastbreath.dsl import bundled_paths, load_content, parse_text
from lastbreath.dsl.build import TOP_LEVEL

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE = ROOT / "dsl" / "LANGUAGE.md"
FIRST_KILLER = ROOT / "docs" / "first-killer.md"
NOT_CHECKED = "<!-- not checked -->"

KILLER_PARTS = {"finale", "dark_power", "terror", "minion"}
SCENARIO_PARTS = {"name", "tags", "location", "path", "link", "setup", "item", "event", "terror", "card", "token",
                  "action", "deck", "when", "at", "instead", "rule", "win", "lose", "reduce", "increase", "limit",
                  "prevent", "pile", "recipe", "rules", "track", "holding", "conveyance"}

HOST = """\
killer doc-host-killer {
  name "Doc Host Killer"
  health 5
  fear 1
  modes hunting feeding
  bloodlust { level move 1 damage 1 }
  finale doc-host-finale {
    name "F"; back { killer hunts fg moves 1 attacks 1 }; face { killer hunts fg moves 1 attacks 1 }
  }
  dark_power doc-host-power { name "D" }
@KILLER@
}

scenario doc-host-scenario {
  name "Doc Host Scenario"
  tags indoor river
  location cottage { name "Cottage"; tags indoor }
  location old-mill { name "Old Mill"; search; tags river }
  location north-gate { name "North Gate"; exit }
  path cottage (1 2) -- (3) old-mill
  path old-mill (4) -- (5 6) north-gate { tags bridge }
  setup doc-host-setup { killer at old-mill; fg at north-gate; victims at cottage 2 }
@SCENARIO@
}
"""


@attrs.frozen
class Example:
    path: Path
    line: int  # 1-based line of the block's first line in the document
    text: str  # dedented
    checked: bool
    info: str = ""  # a fenced block's info string
    note: str = ""  # the HTML comment right before it, if any

    @property
    def id(self) -> str:
        return f"{self.path.name}:{self.line}"


def examples(path: Path) -> list[Example]:
    """The indented and fenced code blocks of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Example] = []

    def before(i: int) -> str:
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        return lines[j].strip() if j >= 0 else ""

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(\s*)(```+|~~~+)\s*([\w-]*)", line)
        if fence:
            indent, mark, info = fence.groups()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(mark):
                j += 1
            body = [ln[len(indent):] if ln.startswith(indent) else ln.lstrip() for ln in lines[i + 1:j]]
            note = before(i)
            out.append(Example(path, i + 2, "\n".join(body) + "\n", note != NOT_CHECKED, info,
                               note if note.startswith("<!--") else ""))
            i = j + 1
            continue
        if line.startswith("    ") and line.strip() and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            while not lines[j - 1].strip():
                j -= 1
            note = before(i)
            out.append(Example(path, i + 1, textwrap.dedent("\n".join(lines[i:j])) + "\n", note != NOT_CHECKED,
                               "", note if note.startswith("<!--") else ""))
            i = j
            continue
        i += 1
    return out


def heads(text: str) -> list[str]:
    lines, diags = parse_text(text, "<example>")
    return [ln.head() for ln in lines] if not diags else []


def placed(text: str) -> tuple[str, str]:
    """What the file holding a block looks like, and where the block went."""
    hs = heads(text)
    if hs and all(h in TOP_LEVEL for h in hs):
        if "module" in hs and not {"scenario", "killer"} & set(hs):
            hosts = [e.text for e in DOC if e.text.startswith(("killer grey-wolf {", "scenario hollow-woods {"))]
            assert len(hosts) == 2, "the reference's killer and scenario of section 2"
            return "\n".join([*hosts, text]), "with the reference's killer and scenario"
        return text, "top level"
    body = textwrap.indent(text, "  ")
    if hs and all(h in KILLER_PARTS for h in hs):
        return HOST.replace("@KILLER@", body).replace("@SCENARIO@", ""), "in a killer"
    if hs and all(h in SCENARIO_PARTS for h in hs):
        return HOST.replace("@KILLER@", "").replace("@SCENARIO@", body), "in a scenario"
    effects = textwrap.indent(text, "      ")
    card = f'  terror doc-effects {{\n    name "Effects"\n    effect {{\n{effects}    }}\n  }}\n'
    return HOST.replace("@KILLER@", "").replace("@SCENARIO@", card), "as effect lines"


def check_text(tmp_path: Path, text: str, name: str = "example.fg"):
    """Load a text as a pack of its own (its pack.fg when it declares a pack) with the bundled content."""
    folder = tmp_path / "doc-example"
    folder.mkdir(exist_ok=True)
    if heads(text) == ["pack"]:
        name = "pack.fg"
    f = folder / name
    f.write_text(text, encoding="utf-8")
    return load_content([*bundled_paths(), folder])


def _content_blocks(path: Path) -> list[Example]:
    return [e for e in examples(path) if e.info in ("", "fg")]


DOC = _content_blocks(LANGUAGE)


def test_the_reference_has_examples_and_few_unchecked_ones():
    assert len(DOC) > 12
    skipped = [e for e in DOC if not e.checked]
    assert len(skipped) <= 4, [e.id for e in skipped]  # only the few deliberate sketches
    assert "card" in DOC[0].text or not DOC[0].checked  # the syntax sketch is the first block


@pytest.mark.parametrize("example", [e for e in DOC if e.checked], ids=lambda e: e.id)
def test_language_example_is_accepted(tmp_path, example):
    text, where = placed(example.text)
    rs, diags = check_text(tmp_path, text)
    shown = "\n".join(d.format(text if d.span.path.startswith(str(tmp_path)) else None) for d in diags)
    assert diags == [], f"LANGUAGE.md line {example.line} ({where}) does not check:\n{shown}\n---\n{example.text}"
    assert rs is not None


# --- the tables of forms, one per slot type ------------------------------------------------------
PLACEHOLDERS = {"N": "1", "TARGET": "fg-or-victims", "TAG": "river", "ID": "doc-thing", "MINION": "doc-thing",
                "NAME": "hunting", "TOKEN": "pill", "DECK": "side-effects", "KIND": "yellow", "…": "",
                "CONDITION": "fear at least 1", "SET": "exit", "AMOUNT": "fear", "PIECE": "victim",
                "PHASE": "killer", "cub": "doc-thing", "PATHTAG": "bridge", "EVENT": "victim dies", "BODY": "doc-body",
                "REASON": "the reason", "{ … }": "{ heal 1 }", "CARD": "shakes", "TRACK": "doc-track",
                "HOLDING": "doc-hold", "VKIND": "doc-victim", "ACTION": "doc-action", "EVENTCARD": "doc-event",
                "TERRORCARD": "doc-terror", "ACTIONCARD": "walk", "CONVEYANCE": "doc-cart"}
PHRASE_HOST_KILLER = ('  minion doc-thing { name "Thing"; health 1; move 1; damage 1; limit 2 }\n'
                      '  body doc-body { name "Doc Body"; health 3 }\n')
PHRASE_HOST_SCENARIO = """\
  item doc-thing { name "Thing" }
  action doc-action { name "Doc Action"; time 1; effect { heal 1 } }
  event doc-event { name "Doc Event"; effect { heal 1 } }
  terror doc-terror { name "Doc Terror"; effect { heal 1 } }
  token pill { name "Pill"; kinds yellow blue; supply yellow 2 blue 2 }
  deck side-effects { name "Side Effects"; card shakes { name "Shakes"; effect { lose 1 time } } }
  track doc-track { name "Doc Track"; spaces 0 to 3; at 2 { heal 1 } }
  deck doc-shapes { name "Doc Shapes"; card doc-shape { name "Doc Shape"; body doc-body } }
  deck doc-broods { name "Doc Broods"; card doc-brood { name "Doc Brood"; minion doc-thing } }
  holding doc-hold { name "Doc Hold"; capacity 2 }
  location doc-place { name "Doc Place"; number hunting 1 }
  path cottage (4) -- () doc-place
  victim doc-victim { name "Doc Victim" }
  conveyance doc-cart { name "Doc Cart"; start at cottage }
  when game starts { turn 1 random victims into doc-victim; gain 1 token pill at cottage }
"""
SLOT = re.compile(r"<!-- slot: (\w+) -->")


def concrete(phrase: str) -> str:
    """A form of the reference with its placeholders filled in (PLACE: old-mill, then north-gate)."""
    places = iter(["old-mill", "north-gate"])
    # a deck an identity is drawn from: of bodies, of minion kinds (issue #33 item 8)
    phrase = phrase.replace("killer drawn from DECK", "killer drawn from doc-shapes").replace(
        "kind drawn from DECK", "kind drawn from doc-broods")

    def fill(m: re.Match) -> str:
        return next(places, "cottage") if m.group(0) == "PLACE" else PLACEHOLDERS[m.group(0)]

    keys = "|".join(re.escape(k) for k in ("PLACE", *PLACEHOLDERS))
    return " ".join(re.sub(rf"(?<![\w-])({keys})(?![\w-])", fill, phrase).split())


def phrases() -> list[tuple[int, str, str]]:
    """(line, form, slot type) for every form in the first column of a table marked
    ``<!-- slot: TYPE -->`` in LANGUAGE.md."""
    out = []
    lines = LANGUAGE.read_text(encoding="utf-8").splitlines()
    slot = ""
    for i, line in enumerate(lines, 1):
        m = SLOT.match(line.strip())
        if m:
            slot = m.group(1)
            continue
        if not line.startswith("|"):
            if line.strip():
                slot = ""
            continue
        if slot and line.startswith("| `"):
            for code in re.findall(r"`([^`]+)`", line.split("|")[1]):
                out.append((i, code, "rule" if code.startswith("rule ") else slot))
    return out


PHRASES = phrases()


def phrase_file(phrase: str, what: str) -> str:
    line = concrete(phrase)
    scenario = PHRASE_HOST_SCENARIO
    if what in ("rule", "ability"):
        scenario += f"  {line}\n"
    elif what == "event":
        if phrase.startswith("PIECE "):  # a piece the event happens to (E215): she alone gains time, …
            line = ("fg" if "time" in phrase.split() else "killer") + line[len(concrete("PIECE")):]
        head = (f"at {line}" if line.startswith(("start of", "end of")) else
                f"instead of {line}" if line.endswith((" phase", " would be defeated")) else f"when {line}")
        scenario += f"  {head} {{ heal 1 }}\n"
    elif what == "piece":
        scenario += f"  when {line} moves {{ heal 1 }}\n"  # (every piece moves)
    else:  # effects, conditions, amounts and places stand in a 'for each' ('it' means something there)
        effect = {"effect": line, "condition": f"if {line} {{ heal 1 }}",
                  "amount": f"lose ({line}) time", "place": f"move killer to {line}"}[what]
        if "spent" in line.split():
            effect = f"spend collected pill 1 to 2 {{ {effect} }}"
        scenario += f'  terror doc-phrase {{ name "Phrase"; effect {{ for each any {{ {effect} }} }} }}\n'
    return HOST.replace("@KILLER@", PHRASE_HOST_KILLER).replace("@SCENARIO@", scenario)


def test_the_reference_lists_the_forms_of_every_slot_type():
    kinds = {what for _, _, what in PHRASES}
    assert {"effect", "condition", "amount", "place", "event", "piece", "rule"} <= kinds
    assert len([p for p in PHRASES if p[2] == "effect"]) > 35
    assert len([p for p in PHRASES if p[2] == "condition"]) > 20


@pytest.mark.parametrize("line, phrase, what", PHRASES, ids=[f"{p[0]}:{p[1]}" for p in PHRASES])
def test_language_phrase_is_accepted(tmp_path, line, phrase, what):
    text = phrase_file(phrase, what)
    rs, diags = check_text(tmp_path, text)
    shown = "\n".join(d.format(text) for d in diags)
    assert diags == [], f"LANGUAGE.md line {line}: the {what} '{phrase}' does not check:\n{shown}"


def test_the_extractor_finds_indented_and_fenced_blocks(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("text\n\n    card a { }\n\n    more\ntext\n\n<!-- not checked -->\n\n    sketch …\n\n"
                  "```fg\nheal 1\n```\n\n- item\n\n      nested\n\n```sh\nlastbreath check\n```\n", encoding="utf-8")
    got = [(e.line, e.text, e.checked, e.info) for e in examples(md)]
    assert got == [(3, "card a { }\n\nmore\n", True, ""), (10, "sketch …\n", False, ""),
                   (13, "heal 1\n", True, "fg"), (18, "nested\n", True, ""), (21, "lastbreath check\n", True, "sh")]


def test_a_wrong_example_would_be_caught(tmp_path):
    text, where = placed("loose 1 time\n")
    assert where == "as effect lines"
    rs, diags = check_text(tmp_path, text)
    assert rs is None and [d.code for d in diags] == ["E207"]
    text, where = placed('finale f { name "F"; back { }; face { }; legendery }\n')
    assert where == "in a killer"
    assert [d.code for d in check_text(tmp_path, text)[1]] == ["E201"]


# --- docs/first-killer.md ---------------------------------------------------------------------
FILE_NOTE = re.compile(r"<!--\s*file:\s*([\w.-]+)\s*-->")


def first_killer_files() -> list[tuple[str, Example]]:
    """(file name, block) for every fg block marked ``<!-- file: NAME -->``, in order."""
    out = []
    for e in examples(FIRST_KILLER):
        m = FILE_NOTE.fullmatch(e.note) if e.note else None
        if m and e.info == "fg":
            out.append((m.group(1), e))
    return out


def test_first_killer_walkthrough_final_files_make_a_clean_playable_pack(tmp_path):
    from lastbreath.interpreter import api

    files = first_killer_files()
    assert {name for name, _ in files} >= {"pack.fg"}
    folder = tmp_path / "my-killer"
    folder.mkdir()
    final = {}
    for name, e in files:
        final[name] = e.text  # the last version of each file wins
    for name, text in final.items():
        (folder / name).write_text(text, encoding="utf-8")
    rs, diags = load_content([*bundled_paths(), folder])
    assert [d.format() for d in diags] == []
    mine = [k for k in rs.killers if rs.pack("killers", k) != "core"]
    assert len(mine) == 1
    for scenario in sorted(rs.scenarios):
        state, _ = api.new_game(rs, seed=1, killer=mine[0], scenario=scenario)
        assert api.play(state, api.random_policy(1), max_choices=20000).over


def test_first_killer_walkthrough_shows_the_diagnostic_its_mistake_gives(tmp_path):
    """The walk-through's first version of the killer file has a mistake; the check output it
    shows next (a ``text`` block starting with ``$ lastbreath check``) is what check prints."""
    from lastbreath.interpreter.cli import main

    files = first_killer_files()
    blocks = examples(FIRST_KILLER)
    shown = [e for e in blocks if e.info == "text" and e.text.startswith("$ lastbreath check") and "error[" in e.text]
    assert shown, "the walk-through shows a failing check"
    out_block = shown[0]
    folder = tmp_path / "my-killer"
    folder.mkdir()
    for name, e in files:  # every file as it stands before that output
        if e.line < out_block.line:
            (folder / name).write_text(e.text, encoding="utf-8")
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(buf):
        code = main(["check", "--content", str(folder)])
    assert code == 1
    got = buf.getvalue().replace(str(folder), "my-killer")
    expected = out_block.text.split("\n", 1)[1].strip()
    error_lines = [ln for ln in expected.splitlines() if "error[" in ln]
    assert error_lines and all(ln in got for ln in error_lines), got


def test_every_phrase_of_the_language_is_documented():
    """Each effect and rule phrase appears in LANGUAGE.md (its words, in order, on one line), and every
    keyword of the expression grammar (conditions, amounts, places, events, pieces) in its tables."""
    import re as _re

    from lastbreath.dsl import nodes as _n
    from lastbreath.dsl.build import Pattern

    doc = (Path(__file__).resolve().parent.parent / "dsl" / "LANGUAGE.md").read_text(encoding="utf-8")
    missing = []
    for cls in (*_n.EFFECT_NODES, *_n.RULE_NODES):
        for phrase in cls.PHRASES:
            words = [p for p in Pattern.compile(cls, phrase).parts if isinstance(p, str)]
            if words and not _re.search(r"\b" + r"\b[^\n]*?\b".join(map(_re.escape, words)) + r"\b", doc):
                missing.append(phrase)
    assert missing == []
    grammar = (Path(_n.__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    expressions = grammar[grammar.index("// ===== conditions"):]
    tables = " ".join(code for _, code, _ in PHRASES)
    keywords = set(_re.findall(r'"([a-z]+)"', expressions))
    undocumented = sorted(k for k in keywords if not _re.search(rf"(?<![\w-]){k}(?![\w-])", tables))
    assert undocumented == []
