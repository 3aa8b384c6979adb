"""``lastbreath lsp``: a language server for content files, over stdin and stdout.

Built on pygls and lsprotocol (``pip install 'lastbreath[lsp]'``), and a thin layer over
dsl/editing.py, which does the work and knows nothing of the protocol: this module turns its answers
into the protocol's types, lines and columns from 0 and columns in UTF-16 units as the protocol
counts them.

What it offers: diagnostics as a file is typed (the checker's, with their codes; hovering one shows
the catalogue's explanation, and a code action runs ``lastbreath explain-error``), completion,
hover, go to definition, find references, the outline of a file, formatting (``lastbreath fmt``),
rename of an id across a pack, and a code action for each diagnostic whose hint spells out a fix.
A file is checked with the content it belongs to: the bundled content, its pack and the packs that
pack depends on. Nothing a client sends stops the server: a request that fails answers with
nothing, and the failure is logged.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

from lastbreath.dsl import editing as ed
from lastbreath.dsl.diagnostics import Diagnostic, Span, lookup
from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

NAME = "lastbreath"
DEBOUNCE = 0.15  # seconds of quiet after an edit before the content is checked again
EXPLAIN = "lastbreath.explainError"  # the command of the 'explain' code action (a client may bind it)
SERVER_EXPLAIN = "lastbreath.server.explainError"  # the server's command: the text of a code's entry
log = logging.getLogger("lastbreath.lsp")
R = TypeVar("R")


class ContentServer(LanguageServer):
    """The language server, with the editor's project (dsl/editing.Project)."""

    def __init__(self) -> None:
        super().__init__(NAME, _version())
        self.project = ed.Project()
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.published: dict[tuple[Path, ...], set[str]] = {}  # content set -> files given diagnostics
        self.generation = 0  # counts edits: a check made before the last edit is checked again
        self.checks: dict[str, tuple[int, ed.Checked]] = {}  # path -> (generation, its check)

    # checking ----------------------------------------------------------------------------------
    def checked(self, path: str) -> ed.Checked:
        got = self.checks.get(path)
        if got is not None and got[0] == self.generation:
            return got[1]
        checked = self.project.check(path)
        for p in checked.analysis.sources:
            self.checks[p] = (self.generation, checked)
        self.checks[path] = (self.generation, checked)
        return checked

    def publish(self, path: str) -> None:
        checked = self.checked(path)
        seen = self.published.setdefault(checked.content, set())
        found = checked.diagnostics(also=self.project.texts)
        for p in seen - set(found):
            found[p] = []
        for p, diags in found.items():
            text = self.text_of(p, checked)
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=from_fs_path(p) or p, diagnostics=[_diagnostic(d, text) for d in diags]))
        seen.clear()
        seen.update(p for p, diags in found.items() if diags)

    def text_of(self, path: str, checked: Optional[ed.Checked] = None) -> str:
        if path in self.project.texts:
            return self.project.texts[path]
        if checked is not None and path in checked.analysis.sources:
            return checked.analysis.sources[path]
        return ""

    def edited(self, path: str, text: str) -> None:
        self.project.change(path, text)
        self.generation += 1
        old = self.pending.pop(path, None)
        if old is not None:
            old.cancel()
        self.pending[path] = asyncio.get_running_loop().create_task(self._publish_later(path))

    async def _publish_later(self, path: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        self.pending.pop(path, None)
        _safe(lambda: self.publish(path), None, "checking " + path)


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("lastbreath")
    except Exception:  # not installed: a checkout
        return "unknown"


def _safe(fn: Callable[[], R], default: R, what: str) -> R:
    """Answer with ``default`` when the work fails (logged): bad input never stops the server."""
    try:
        return fn()
    except Exception:
        log.error("lastbreath lsp: %s failed:\n%s", what, traceback.format_exc())
        return default


# --- positions: the parser's (from 1, characters) and the protocol's (from 0, UTF-16 units) ------------
def _line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1].removesuffix("\r") if 1 <= line <= len(lines) else ""


def _units(line: str, col: int) -> int:
    """The UTF-16 column (from 0) of a character column (from 1)."""
    head = line[:max(0, col - 1)]
    return len(head) + sum(1 for c in head if ord(c) > 0xFFFF)


def _column(line: str, units: int) -> int:
    """The character column (from 1) of a UTF-16 column (from 0)."""
    count = 0
    for i, c in enumerate(line):
        if count >= units:
            return i + 1
        count += 2 if ord(c) > 0xFFFF else 1
    return len(line) + 1


def _range(span: Span, text: str) -> t.Range:
    if span.line < 1:
        return t.Range(t.Position(0, 0), t.Position(0, 0))
    first = _line_text(text, span.line)
    last = first if span.end_line == span.line else _line_text(text, span.end_line)
    end_line, end_col = (span.end_line, span.end_col) if span.end_line >= span.line else (span.line, span.col + 1)
    return t.Range(t.Position(span.line - 1, _units(first, span.col)),
                   t.Position(end_line - 1, _units(last, end_col)))


def _at(text: str, pos: t.Position) -> tuple[int, int]:
    return pos.line + 1, _column(_line_text(text, pos.line + 1), pos.character)


def _path(uri: str) -> str:
    p = to_fs_path(uri)
    return str(Path(p).resolve()) if p else uri


def _location(span: Span, server: ContentServer) -> t.Location:
    return t.Location(uri=from_fs_path(span.path) or span.path, range=_range(span, server.text_of(span.path)))


def _diagnostic(d: Diagnostic, text: str) -> t.Diagnostic:
    message = d.message + (f" ({d.hint})" if d.hint else "")
    severity = t.DiagnosticSeverity.Warning if d.severity == "warning" else t.DiagnosticSeverity.Error
    docs = _errors_page()
    return t.Diagnostic(range=_range(d.span, text), message=message, severity=severity, code=d.code, source=NAME,
                        code_description=t.CodeDescription(href=f"{docs}#{d.code.lower()}") if docs else None)


def _errors_page() -> str:
    """docs/errors.md of a checkout (or an editable install), as a file URI; "" when there is none."""
    page = Path(__file__).resolve().parent.parent / "docs" / "errors.md"
    return (from_fs_path(str(page)) or "") if page.is_file() else ""


# --- the server ---------------------------------------------------------------------------------
def make_server() -> ContentServer:
    server = ContentServer()

    @server.feature(t.INITIALIZED)
    def initialized(ls: ContentServer, params: t.InitializedParams) -> None:
        roots = [to_fs_path(f.uri) for f in (ls.workspace.folders or {}).values()]
        if not roots and ls.workspace.root_path:
            roots = [ls.workspace.root_path]
        ls.project.roots = [Path(r).resolve() for r in roots if r]

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ContentServer, params: t.DidOpenTextDocumentParams) -> None:
        ls.edited(_path(params.text_document.uri), params.text_document.text)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ContentServer, params: t.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        ls.edited(_path(params.text_document.uri), doc.source)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ContentServer, params: t.DidSaveTextDocumentParams) -> None:
        ls.generation += 1  # files not open are read again (a pack.fg saved changes what is loaded)

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(ls: ContentServer, params: t.DidChangeWatchedFilesParams) -> None:
        ls.generation += 1  # a file not open changed on disk (a checkout, another editor): check the open ones again
        for path in list(ls.project.texts):
            ls.edited(path, ls.project.texts[path])

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ContentServer, params: t.DidCloseTextDocumentParams) -> None:
        ls.project.close(_path(params.text_document.uri))
        ls.generation += 1

    @server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=["("]))
    def completion(ls: ContentServer, params: t.CompletionParams) -> t.CompletionList:
        path = _path(params.text_document.uri)

        def work() -> t.CompletionList:
            text = ls.text_of(path)
            line, col = _at(text, params.position)
            checked = _safe(lambda: ls.checked(path), None, "checking " + path)
            items = [_completion_item(c) for c in ed.completions(checked, text, line, col)]
            return t.CompletionList(is_incomplete=False, items=items)
        return _safe(work, t.CompletionList(is_incomplete=False, items=[]), "completion")

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: ContentServer, params: t.HoverParams) -> Optional[t.Hover]:
        path = _path(params.text_document.uri)

        def work() -> Optional[t.Hover]:
            text = ls.text_of(path)
            line, col = _at(text, params.position)
            got = ed.hover(ls.checked(path), path, line, col)
            if not got:
                return None
            return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=got))
        return _safe(work, None, "hover")

    @server.feature(t.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: ContentServer, params: t.DefinitionParams) -> list[t.Location]:
        path = _path(params.text_document.uri)

        def work() -> list[t.Location]:
            line, col = _at(ls.text_of(path), params.position)
            return [_location(s, ls) for s in ed.definition_spans(ls.checked(path), path, line, col)]
        return _safe(work, [], "definition")

    @server.feature(t.TEXT_DOCUMENT_REFERENCES)
    def references(ls: ContentServer, params: t.ReferenceParams) -> list[t.Location]:
        path = _path(params.text_document.uri)

        def work() -> list[t.Location]:
            line, col = _at(ls.text_of(path), params.position)
            spans = ed.reference_spans(ls.checked(path), path, line, col, params.context.include_declaration)
            return [_location(s, ls) for s in spans]
        return _safe(work, [], "references")

    @server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: ContentServer, params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
        path = _path(params.text_document.uri)

        def work() -> list[t.DocumentSymbol]:
            checked = ls.checked(path)
            text = ls.text_of(path, checked)
            return [_symbol(s, text) for s in checked.outline(path)]
        return _safe(work, [], "document symbols")

    @server.feature(t.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: ContentServer, params: t.DocumentFormattingParams) -> list[t.TextEdit]:
        path = _path(params.text_document.uri)

        def work() -> list[t.TextEdit]:
            text = ls.text_of(path)
            got = ed.format_document(text, path)
            if got is None or got == text:
                return []
            lines = text.split("\n")
            end = t.Position(len(lines) - 1, _units(lines[-1], len(lines[-1]) + 1))
            return [t.TextEdit(range=t.Range(t.Position(0, 0), end), new_text=got)]
        return _safe(work, [], "formatting")

    @server.feature(t.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: ContentServer, params: t.PrepareRenameParams) -> Optional[t.Range]:
        path = _path(params.text_document.uri)

        def work() -> Optional[t.Range]:
            text = ls.text_of(path)
            line, col = _at(text, params.position)
            checked = ls.checked(path)
            here = ed.definition_spans(checked, path, line, col)
            if not here or any(checked.is_bundled(s.path) for s in here):
                return None
            sym = checked.symbol_at(path, line, col)
            ref = checked.ref_at(path, line, col) if sym is None else None
            span = sym.at if sym is not None else (ref.span if ref is not None else None)
            return _range(span, text) if span is not None else None
        return _safe(work, None, "prepare rename")

    @server.feature(t.TEXT_DOCUMENT_RENAME)
    def rename(ls: ContentServer, params: t.RenameParams) -> Optional[t.WorkspaceEdit]:
        from pygls.exceptions import JsonRpcInvalidParams

        path = _path(params.text_document.uri)
        text = ls.text_of(path)
        line, col = _at(text, params.position)
        try:
            edits = ed.rename(ls.checked(path), path, line, col, params.new_name)
        except ed.RenameError as err:
            raise JsonRpcInvalidParams(str(err)) from None
        except Exception:
            log.error("lastbreath lsp: rename failed:\n%s", traceback.format_exc())
            return None
        return _workspace_edit(edits, ls)

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
    def code_action(ls: ContentServer, params: t.CodeActionParams) -> list[t.CodeAction]:
        path = _path(params.text_document.uri)

        def work() -> list[t.CodeAction]:
            checked = ls.checked(path)
            text = ls.text_of(path, checked)
            out: list[t.CodeAction] = []
            first = params.range.start.line + 1, params.range.end.line + 1
            sources = {**checked.analysis.sources, **ls.project.texts}
            explained: set[str] = set()
            for d in checked.analysis.diags:
                if d.span.path != path or d.span.end_line < first[0] or d.span.line > first[1]:
                    continue
                lsp_diag = _diagnostic(d, text)
                for fix in ed.fixes(d, sources):
                    out.append(t.CodeAction(title=fix.title, kind=t.CodeActionKind.QuickFix, diagnostics=[lsp_diag],
                                            is_preferred=len(out) == 0, edit=_workspace_edit(list(fix.edits), ls)))
                if d.code not in explained and lookup(d.code) is not None:
                    explained.add(d.code)
                    out.append(t.CodeAction(title=f"Explain {d.code} (lastbreath explain-error {d.code})",
                                            kind=t.CodeActionKind.QuickFix, diagnostics=[lsp_diag],
                                            command=t.Command(title=f"Explain {d.code}", command=EXPLAIN,
                                                              arguments=[d.code])))
            return out
        return _safe(work, [], "code actions")

    @server.command(SERVER_EXPLAIN)
    def explain(ls: ContentServer, *args: Any) -> str:
        """The text ``lastbreath explain-error CODE`` prints (the code: the first argument)."""
        code = args[0] if args and isinstance(args[0], str) else (
            args[0][0] if args and isinstance(args[0], list) and args[0] else "")
        entry = lookup(str(code))
        return entry.explain() if entry is not None else f"unknown error code '{code}'"

    return server


def _completion_item(c: ed.Completion) -> t.CompletionItem:
    kind = {"keyword": t.CompletionItemKind.Keyword, "phrase": t.CompletionItemKind.Snippet,
            "id": t.CompletionItemKind.Reference, "form": t.CompletionItemKind.Operator}.get(c.kind)
    insert = c.insert if c.insert else c.label
    return t.CompletionItem(label=c.label, kind=kind, detail=c.detail or None,
                            insert_text=insert if insert != c.label else None,
                            filter_text=c.label, sort_text=("0" if c.kind == "id" else "1") + c.label)


_SYMBOL_KINDS = {"killer": t.SymbolKind.Class, "scenario": t.SymbolKind.Namespace, "card": t.SymbolKind.Function,
                 "item": t.SymbolKind.Object, "final_girl": t.SymbolKind.Class, "minion": t.SymbolKind.Class,
                 "location": t.SymbolKind.Field, "token": t.SymbolKind.Constant, "deck": t.SymbolKind.Array,
                 "tag": t.SymbolKind.Key, "mode": t.SymbolKind.EnumMember, "pack": t.SymbolKind.Package,
                 "module": t.SymbolKind.Module, "finale": t.SymbolKind.Method, "dark_power": t.SymbolKind.Method,
                 "terror": t.SymbolKind.Method, "event": t.SymbolKind.Event, "track": t.SymbolKind.Enum}


def _symbol(s: ed.Symbol, text: str) -> t.DocumentSymbol:
    whole = _range(s.span, text)
    at = _range(s.at, text)
    return t.DocumentSymbol(name=f"{s.kind.replace('_', ' ')} {s.id}", detail=s.name if s.name != s.id else None,
                            kind=_SYMBOL_KINDS.get(s.kind, t.SymbolKind.Struct), range=whole, selection_range=at,
                            children=[_symbol(p, text) for p in s.parts if p.kind not in ("tag", "mode")] or None)


def _workspace_edit(edits: list[ed.Edit], server: ContentServer) -> t.WorkspaceEdit:
    changes: dict[str, list[t.TextEdit]] = {}
    for e in edits:
        uri = from_fs_path(e.span.path) or e.span.path
        changes.setdefault(uri, []).append(t.TextEdit(range=_range(e.span, server.text_of(e.span.path)),
                                                      new_text=e.text))
    return t.WorkspaceEdit(changes=changes)


def serve_stdio() -> int:
    """Run the server on stdin and stdout until the client says exit."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(message)s")
    make_server().start_io()
    return 0
