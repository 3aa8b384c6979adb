"""Editor support (issue 40): the language server ``lastbreath lsp`` driven as a client would, what it
answers with (dsl/editing.py), and the VS Code extension's TextMate grammar on the bundled content.

The end-to-end tests start ``python -m lastbreath.interpreter lsp`` and talk to it with pygls' own
client over stdio: open a document, wait for its diagnostics, ask for completion, hover, definition,
references, symbols, formatting, rename and code actions. Nothing here measures time: each wait
has a generous limit against a hang (examples/lsp_benchmark.py measures re-checking).
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import sys
from pathlib import Path

import pytest

from lastbreath.dsl import bundled_paths, parse_text
from lastbreath.dsl import editing as ed
from lastbreath.dsl.build import BLOCK_WORDS, build_file
from lastbreath.dsl.format import format_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
VSCODE = ROOT / "editors" / "vscode"
WAIT = 120.0  # seconds: a guard against a hang, not a measure

lsp = pytest.importorskip("lsprotocol.types", reason="the lsp extra (pygls, lsprotocol) is not installed")


def _content_files() -> list[Path]:
    return sorted(f for p in bundled_paths() for f in Path(p).rglob("*.fg"))


# --- a file built a declaration at a time: the same as building it whole --------------------------
def _whole(path: str, text: str):
    lines, bad = parse_text(text, path)
    if bad:
        return [], [], bad
    return build_file(lines, path, text)


@pytest.mark.parametrize("f", [*_content_files(), *sorted(EXAMPLES.rglob("*.fg")),
                               *sorted((ROOT / "tests" / "packs").rglob("*.fg"))],
                         ids=lambda f: str(f.relative_to(ROOT)))
def test_file_parts_build_as_the_whole_file(f):
    text = f.read_text(encoding="utf-8")
    parts = ed.FileParts(str(f))
    got = parts.build(text)
    assert (got.decls, got.refs, got.diags) == tuple(list(x) for x in _whole(str(f), text))
    moved = "# two lines\n\n" + text  # every declaration moved down: moved, not built again
    got = parts.build(moved)
    assert parts.rebuilt <= 1  # (the first part gained the comment)
    assert (got.decls, got.refs, got.diags) == tuple(list(x) for x in _whole(str(f), moved))


def test_file_parts_rebuild_only_the_declaration_edited():
    text = (EXAMPLES / "fan_killer" / "tallow-man.fg").read_text(encoding="utf-8")
    text = text + "\n" + text.replace("tallow-man", "tallow-twin").replace("snuff-the-wick", "snuff-twin")
    parts = ed.FileParts("twins.fg")
    parts.build(text)
    edited = text.replace("lose 1 time", "loose 1 time", 1)
    got = parts.build(edited)
    assert parts.rebuilt == 1
    assert (got.decls, got.refs, got.diags) == tuple(list(x) for x in _whole("twins.fg", edited))
    assert [d.code for d in got.diags] == ["E207"]


@pytest.mark.parametrize("text", ["killer k {\n  name \"K\"\n", "card c { name \"C\" }\n}\n", "x\x00y", "a\n{\n}\n",
                                  "card c { cost 99999999999 }\n", "\"open\n", "card c {\n  fail { lose 1 time }\n"
                                  "} else { }\n"])
def test_file_parts_report_what_the_parser_reports(text):
    got = ed.FileParts("bad.fg").build(text)
    assert (got.decls, got.refs, got.diags) == tuple(list(x) for x in _whole("bad.fg", text))


# --- completion, from the builder's tables --------------------------------------------------------
FAN = EXAMPLES / "fan_killer" / "tallow-man.fg"


def _checked(path: Path, text: str | None = None) -> tuple[ed.Checked, str]:
    project = ed.Project([path.parent])
    text = path.read_text(encoding="utf-8") if text is None else text
    project.open(str(path.resolve()), text)
    return project.check(str(path.resolve())), text


def _labels(items) -> list[str]:
    return [c.label for c in items]


def _pos(text: str, needle: str, after: str = "") -> tuple[int, int]:
    """(line, col) from 1 just after ``after`` in the first line holding ``needle``."""
    for i, line in enumerate(text.split("\n"), 1):
        if needle in line:
            at = line.index(needle) + (line[line.index(needle):].index(after) + len(after) if after else 0)
            return i, at + 1
    raise AssertionError(needle)


def test_completion_offers_each_block_its_leading_words():
    checked, text = _checked(FAN)
    line, col = _pos(text, "  health 6")
    got = _labels(ed.completions(checked, text, line, 3))
    assert set(BLOCK_WORDS["killer"]) <= set(got)
    assert "finale" in got and "bloodlust" in got and "cost" not in got
    top = _labels(ed.completions(checked, text + "\n", len(text.split("\n")) + 1, 1))
    assert {"card", "killer", "scenario", "pack", "module"} <= set(top)


def test_completion_in_an_effect_block_offers_its_phrases():
    text = FAN.read_text(encoding="utf-8").replace("fail { lose 1 time }", "fail { lose 1 time; }")
    checked, text = _checked(FAN, text)
    line, col = _pos(text, "fail { lose 1 time; }", "lose 1 time; ")
    got = _labels(ed.completions(checked, text, line, col))
    assert "lose N time" in got and "raise fear N" in got and "spawn N MINION at PLACE" in got
    assert "if CONDITION { … }" in got and "name" not in got


def test_completion_in_a_place_slot_offers_places_and_ids():
    text = FAN.read_text(encoding="utf-8").replace("move killer to here", "move killer to ")
    checked, text = _checked(FAN, text)
    line, col = _pos(text, "move killer to ", "move killer to ")
    got = _labels(ed.completions(checked, text, line, col))
    assert {"here", "fg", "killer-location", "killer-start"} <= set(got)
    bundled_locations = {loc.id for s in checked.analysis.tables["scenarios"].values() for loc in s.locations}
    assert bundled_locations and bundled_locations <= set(got)
    assert any(f.startswith("(") for f in got)  # the selector form


def test_completion_of_a_minion_slot_offers_the_minions_in_scope():
    checked, text = _checked(FAN)
    line, col = _pos(text, "spawn 1 wax-moth", "spawn 1 ")
    got = ed.completions(checked, text, line, col)
    assert "wax-moth" in _labels(got)
    assert next(c for c in got if c.label == "wax-moth").kind == "id"


def test_completion_in_a_location_offers_at_and_no_event_after_it():
    """A location's lines include 'at X Y' (where it is drawn, issue #39); after 'at' come two numbers,
    not the events an 'at start of …' trigger takes elsewhere."""
    path = next(f for f in _content_files() if f.name == "storybook-woods.fg")
    checked, text = _checked(path)
    line, col = _pos(text, "location hollow-gate {", "location hollow-gate { ")
    got = _labels(ed.completions(checked, text, line, col))
    assert {"at", "exit", "search", "tags", "number", "name"} <= set(got)
    line, col = _pos(text, "location hollow-gate {", "; at ")
    assert ed.completions(checked, text, line, col) == []


def test_no_completion_in_a_comment_or_a_string():
    checked, text = _checked(FAN)
    line, col = _pos(text, "# a film action card", "# a film")
    assert ed.completions(checked, text, line, col) == []
    line, col = _pos(text, 'name "Snuff the Wick"', 'name "Snuff')
    assert ed.completions(checked, text, line, col) == []


# --- fixes ----------------------------------------------------------------------------------------
def test_fixes_spell_out_did_you_mean():
    text = FAN.read_text(encoding="utf-8").replace("fail { lose 1 time }", "fail { loose 1 time }")
    checked, text = _checked(FAN, text)
    d = next(d for d in checked.analysis.diags if d.code == "E207")
    fixes = ed.fixes(d, checked.analysis.sources)
    assert [f.edits[0].text for f in fixes] == ["lose 1 time"]
    edit = fixes[0].edits[0]
    line = text.split("\n")[edit.span.line - 1]
    assert line[edit.span.col - 1:edit.span.end_col - 1] == "loose 1 time"


def test_fixes_add_a_pack_to_depends(tmp_path):
    fan = tmp_path / "fan"
    shutil.copytree(EXAMPLES / "fan_killer", fan)
    other = tmp_path / "other"
    other.mkdir()
    (other / "pack.fg").write_text('pack other {\n  name "Other"\n  depends core\n}\n', encoding="utf-8")
    card = 'card moth-call {\n  name "Moth Call"\n  cost 1\n  fail { spawn 1 wax-moth at here }\n}\n'
    (other / "moths.fg").write_text(card, encoding="utf-8")
    project = ed.Project([tmp_path])
    path = str((other / "moths.fg").resolve())
    project.open(path, card)
    project.open(str((other / "pack.fg").resolve()), (other / "pack.fg").read_text(encoding="utf-8"))
    checked = project.check(path)
    assert [d.code for d in checked.analysis.diags if d.span.path == path] == ["E204"]  # not loaded: unknown
    (other / "pack.fg").write_text('pack other {\n  name "Other"\n  depends core tallow-man\n}\n', encoding="utf-8")
    project.open(str((other / "pack.fg").resolve()), (other / "pack.fg").read_text(encoding="utf-8"))
    checked = project.check(path)
    assert not [d for d in checked.analysis.diags if d.severity == "error"]  # the dependency is found and loaded
    target = ed.definition_spans(checked, path, 4, card.split("\n")[3].index("wax-moth") + 2)
    assert [Path(s.path).name for s in target] == ["tallow-man.fg"]


# --- the TextMate grammar -------------------------------------------------------------------------
GRAMMAR = VSCODE / "syntaxes" / "fg.tmLanguage.json"


def test_grammar_file_is_generated_from_the_tables():
    assert json.loads(GRAMMAR.read_text(encoding="utf-8")) == ed.textmate_grammar(), (
        "regenerate it: python -m lastbreath.dsl.editing > editors/vscode/syntaxes/fg.tmLanguage.json")


def test_grammar_scopes_every_line_of_the_bundled_content():
    tm = pytest.importorskip("textmate_grammar.parsers.base", reason="textmate-grammar-python is not installed")
    logging.getLogger("textmate_grammar").setLevel(logging.ERROR)
    parser = tm.LanguageParser(json.loads(GRAMMAR.read_text(encoding="utf-8")))
    seen: set[str] = set()
    bare: list[str] = []
    files = [*_content_files(), *sorted(EXAMPLES.rglob("*.fg"))]
    for f in files:
        text = f.read_text(encoding="utf-8")
        element = parser.parse_string(text)
        assert element is not None, f
        covered: dict[int, set[int]] = {}
        for (line, col), token, scopes in element.flatten():
            inner = [s for s in scopes if s != "source.fg"]
            seen.update(inner)
            if inner:
                covered.setdefault(line, set()).update(range(col, col + len(token)))
        for i, line in enumerate(text.split("\n")):
            missing = [c for c, ch in enumerate(line) if not ch.isspace() and c not in covered.get(i, set())]
            if missing:
                bare.append(f"{f.name}:{i + 1}: {line.strip()}")
    assert not bare, bare[:10]
    # no bundled text escapes a quote: that class is seen on a line of its own
    escaped = parser.parse_string('name "The \\"Hook\\""\n').flatten()
    assert [tok for _at, tok, scopes in escaped if "constant.character.escape.fg" in scopes] == ['\\"', '\\"']
    seen.add("constant.character.escape.fg")
    classes = set(ed.TOKEN_CLASSES)
    assert classes <= seen, f"token classes never seen: {sorted(classes - seen)}"
    assert "invalid.illegal.fg" not in seen


def test_the_extension_declares_what_it_uses():
    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    contributes = pkg["contributes"]
    assert contributes["languages"][0]["extensions"] == [".fg"]
    assert (VSCODE / contributes["languages"][0]["configuration"]).is_file()
    assert (VSCODE / contributes["grammars"][0]["path"]) == GRAMMAR
    assert json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))["comments"] == {
        "lineComment": "#"}
    client = (VSCODE / pkg["main"]).read_text(encoding="utf-8")
    for command in contributes["commands"]:
        assert f'registerCommand("{command["command"]}"' in client
    from lastbreath.interpreter.lsp import EXPLAIN, SERVER_EXPLAIN
    assert EXPLAIN in client and SERVER_EXPLAIN in client


# --- end to end: the server as a client drives it --------------------------------------------------
class Session:
    """A running ``lastbreath lsp`` and pygls' client, collecting the diagnostics it publishes."""

    def __init__(self, root: Path) -> None:
        from pygls.lsp.client import BaseLanguageClient

        self.root = root
        self.client = BaseLanguageClient("lastbreath-tests", "1")
        self.diagnostics: dict[str, list] = {}
        self.versions: dict[str, int] = {}

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

    async def start(self) -> None:
        from pygls.uris import from_fs_path

        await self.client.start_io(sys.executable, "-m", "lastbreath.interpreter", "lsp")
        uri = from_fs_path(str(self.root))
        await asyncio.wait_for(self.client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=uri,
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)])), WAIT)
        self.client.initialized(lsp.InitializedParams())

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), WAIT)
            self.client.exit(None)
        finally:
            await self.client.stop()

    def uri(self, path: Path) -> str:
        from pygls.uris import from_fs_path
        return from_fs_path(str(path.resolve()))

    def open(self, path: Path, text: str) -> str:
        uri = self.uri(path)
        self.versions[uri] = 1
        self.diagnostics.pop(uri, None)
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="fg", version=1, text=text)))
        return uri

    def change(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.diagnostics.pop(uri, None)
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnosed(self, uri: str) -> list:
        async def wait() -> list:
            while uri not in self.diagnostics:
                await asyncio.sleep(0.02)
            return self.diagnostics[uri]
        return await asyncio.wait_for(wait(), WAIT)

    async def ask(self, coro):
        return await asyncio.wait_for(coro, WAIT)


def _run(root: Path, scenario) -> None:
    async def main() -> None:
        session = Session(root)
        await session.start()
        try:
            await scenario(session)
        finally:
            await session.stop()
    asyncio.run(main())


def _p(line: int, col: int):
    """The protocol's position (from 0) of a (line, col) from 1."""
    return lsp.Position(line - 1, col - 1)


@pytest.fixture()
def packs(tmp_path):
    """A copy of the fan killer pack, and a second pack that depends on it."""
    fan = tmp_path / "fan_killer"
    shutil.copytree(EXAMPLES / "fan_killer", fan)
    other = tmp_path / "moth_cards"
    other.mkdir()
    (other / "pack.fg").write_text('pack moth-cards {\n  name "Moth cards"\n  depends core tallow-man\n}\n',
                                   encoding="utf-8")
    (other / "moths.fg").write_text('card moth-call {\n  name "Moth Call"\n  cost 1\n'
                                    '  fail { spawn 1 wax-moth at here }\n}\n', encoding="utf-8")
    return tmp_path


def test_end_to_end_diagnostics_completion_hover_definition(packs):
    fan = packs / "fan_killer" / "tallow-man.fg"
    original = fan.read_text(encoding="utf-8")

    async def scenario(s: Session) -> None:
        text = original.replace("fail { lose 1 time }", "fail { loose 1 time }")
        uri = s.open(fan, text)
        diags = await s.diagnosed(uri)
        line, col = _pos(text, "fail { loose 1 time }", "fail { ")
        assert [(d.code, d.range.start.line, d.range.start.character, d.range.end.character) for d in diags] == [
            ("E207", line - 1, col - 1, col - 1 + len("loose 1 time"))]
        assert diags[0].severity == lsp.DiagnosticSeverity.Error and "lose N time" in diags[0].message

        # the quick fix, and the explanation
        actions = await s.ask(s.client.text_document_code_action_async(lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), diags[0].range, lsp.CodeActionContext(diagnostics=diags))))
        fixes = [a for a in actions if isinstance(a, lsp.CodeAction) and a.edit is not None]
        assert [e.new_text for a in fixes for e in a.edit.changes[uri]] == ["lose 1 time"]
        assert any("E207" in a.title and "explain" in a.title.lower() for a in actions)
        explained = await s.ask(s.client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="lastbreath.server.explainError", arguments=["E207"])))
        assert explained.startswith("E207 (error): unknown effect phrase")

        # fixed: the diagnostics go
        s.change(uri, original)
        assert await s.diagnosed(uri) == []

        # completion in an effect block, and in a place slot
        text = original.replace("fail { lose 1 time }", "fail { lose 1 time; move killer to  }")
        s.change(uri, text)
        line, col = _pos(text, "fail { lose 1 time; move killer to  }", "fail { lose 1 time; ")
        got = await s.ask(s.client.text_document_completion_async(lsp.CompletionParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col))))
        labels = {i.label for i in got.items}
        assert {"lose N time", "spawn N MINION at PLACE", "move killer to PLACE"} <= labels
        line, col = _pos(text, "move killer to  }", "move killer to ")
        got = await s.ask(s.client.text_document_completion_async(lsp.CompletionParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col))))
        labels = {i.label for i in got.items}
        assert {"here", "killer-location", "fg"} <= labels and "lose N time" not in labels
        s.change(uri, original)

        # hover: the declaration an id names, in English; the text of a rule cited in a comment
        line, col = _pos(original, "spawn 1 wax-moth", "spawn 1 w")
        hover = await s.ask(s.client.text_document_hover_async(lsp.HoverParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col))))
        assert "minion `wax-moth`" in hover.contents.value and "Wax Moth" in hover.contents.value
        line, col = _pos(original, "lose 2 time", "lose 2")
        hover = await s.ask(s.client.text_document_hover_async(lsp.HoverParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col))))
        assert "Lose 2 time" in hover.contents.value or "lose 2 time" in hover.contents.value

        # go to definition and find references
        line, col = _pos(original, "spawn 1 wax-moth", "spawn 1 w")
        found = await s.ask(s.client.text_document_definition_async(lsp.DefinitionParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col))))
        dline, dcol = _pos(original, "minion wax-moth", "minion ")
        assert [(d.uri, d.range.start.line, d.range.start.character) for d in found] == [(uri, dline - 1, dcol - 1)]
        refs = await s.ask(s.client.text_document_references_async(lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier(uri), position=_p(line, col),
            context=lsp.ReferenceContext(include_declaration=True))))
        assert len(refs) == original.count("wax-moth")

        # the outline
        symbols = await s.ask(s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
            lsp.TextDocumentIdentifier(uri))))
        assert [x.name for x in symbols] == ["killer tallow-man"]
        inner = [c.name for c in symbols[0].children]
        assert "minion wax-moth" in inner and "card snuff-the-wick" in inner and "finale last-candle" in inner

    _run(packs, scenario)


def test_end_to_end_format_rename_and_a_dependent_pack(packs):
    fan = packs / "fan_killer" / "tallow-man.fg"
    moths = packs / "moth_cards" / "moths.fg"
    original = fan.read_text(encoding="utf-8")

    async def scenario(s: Session) -> None:
        # a pack that depends on another: its names resolve, definition crosses into the other pack
        card = moths.read_text(encoding="utf-8")
        muri = s.open(moths, card)
        assert await s.diagnosed(muri) == []
        line, col = _pos(card, "spawn 1 wax-moth", "spawn 1 w")
        found = await s.ask(s.client.text_document_definition_async(lsp.DefinitionParams(
            lsp.TextDocumentIdentifier(muri), _p(line, col))))
        assert [d.uri for d in found] == [s.uri(fan)]

        # formatting: the canonical form of lastbreath fmt
        messy = original.replace("  health 6\n", "  health    6   \n\n\n")
        uri = s.open(fan, messy)
        await s.diagnosed(uri)
        edits = await s.ask(s.client.text_document_formatting_async(lsp.DocumentFormattingParams(
            lsp.TextDocumentIdentifier(uri), lsp.FormattingOptions(tab_size=2, insert_spaces=True))))
        assert len(edits) == 1 and edits[0].new_text == format_text(messy)[0]
        s.change(uri, original)

        # rename: the declaration and every use in the pack's files; not an id of the bundled content
        line, col = _pos(original, "minion wax-moth", "minion w")
        ready = await s.ask(s.client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col))))
        assert ready is not None
        edit = await s.ask(s.client.text_document_rename_async(lsp.RenameParams(
            lsp.TextDocumentIdentifier(uri), _p(line, col), "tallow-moth")))
        assert set(edit.changes) == {uri}
        assert len(edit.changes[uri]) == original.count("wax-moth")
        assert {e.new_text for e in edit.changes[uri]} == {"tallow-moth"}
        lines = original.split("\n")
        for e in edit.changes[uri]:
            r = e.range
            assert lines[r.start.line][r.start.character:r.end.character] == "wax-moth"
        bad = await s.ask(s.client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
            lsp.TextDocumentIdentifier(muri), _p(*_pos(card, "at here", "at h")))))
        assert bad is None  # 'here' is no id

    _run(packs, scenario)


def test_end_to_end_bad_input_never_stops_the_server(tmp_path):
    async def scenario(s: Session) -> None:
        broken = tmp_path / "broken.fg"
        uri = s.open(broken, 'killer k {\n  name "K\n  finale {\n')
        diags = await s.diagnosed(uri)
        assert diags and diags[0].code in ("E103", "E104")
        huge = tmp_path / "huge.fg"
        huri = s.open(huge, "x " * 60_000)
        assert [d.code for d in await s.diagnosed(huri)] == ["E105"]
        binary = tmp_path / "binary.fg"
        buri = s.open(binary, "card \x00 {")
        assert [d.code for d in await s.diagnosed(buri)] == ["E100"]
        for target in (uri, huri, buri):  # each request still answers
            await s.ask(s.client.text_document_completion_async(lsp.CompletionParams(
                lsp.TextDocumentIdentifier(target), lsp.Position(1, 3))))
            await s.ask(s.client.text_document_hover_async(lsp.HoverParams(
                lsp.TextDocumentIdentifier(target), lsp.Position(0, 1))))
            await s.ask(s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
                lsp.TextDocumentIdentifier(target))))
            await s.ask(s.client.text_document_formatting_async(lsp.DocumentFormattingParams(
                lsp.TextDocumentIdentifier(target), lsp.FormattingOptions(tab_size=2, insert_spaces=True))))
            await s.ask(s.client.text_document_completion_async(lsp.CompletionParams(
                lsp.TextDocumentIdentifier(target), lsp.Position(999, 999))))
        s.change(uri, 'card c {\n  name "C"\n  cost 1\n  fail { lose 1 time }\n}\n')
        assert await s.diagnosed(uri) == []

    _run(tmp_path, scenario)


def test_the_benchmark_script_runs_small():
    """examples/lsp_benchmark.py measures re-checking a long file; run small, only its report is checked."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("lsp_benchmark", EXAMPLES / "lsp_benchmark.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.run(lines=200, edits=1)
    assert got["lines"] >= 200 and got["edits"] == 1
    for kind in ("in-line", "new-line", "error"):
        assert set(got[kind]) == {"wall_ms_median", "wall_ms_max", "cpu_ms_median", "cpu_ms_max"}


def test_completion_of_a_module_section_offers_the_scenarios_and_killers():
    f = ROOT / "tests" / "packs" / "modules" / "motorboat.fg"
    text = f.read_text(encoding="utf-8").replace("  for scenario lakeside-camp {", "  for scenario  lakeside-camp {")
    checked, text = _checked(f, text)
    line, col = _pos(text, "for scenario  lakeside-camp", "for scenario ")
    got = _labels(ed.completions(checked, text, line, col))
    assert "lakeside-camp" in got and set(checked.analysis.tables["scenarios"]) <= set(got)
    assert not any(":" in label for label in got)  # the sections' own hosts are no ids
    outline = checked.outline(str(f.resolve()))
    assert [s.kind for s in outline] == ["module"]
