"""The language as an editor sees it: content checked as it is typed, and what is at a place in a file.

The language server (``lastbreath lsp``, interpreter/lsp.py) is a thin layer over this module, which
knows nothing of the protocol and is tested on its own:

- ``Project``: the files open in an editor and the content each belongs to (the bundled content,
  the pack of its folder, and the packs that pack depends on, found beside it and in the editor's
  folders), checked with ``ruleset.analyse`` as ``lastbreath check --content PACK`` checks it.
- ``FileParts``: an open file built a top-level declaration at a time: after an edit only the
  declarations whose text changed are parsed and built again (a declaration only moved by lines
  added above it is moved, not built), so that a long file re-checks quickly.
- ``Checked``: one check of a content set, with an index of what declares and uses each id: the
  answers to go to definition, find references, rename, hover, the outline and completion.
- ``completions``: what may be written at a place, from the builder's own tables (the leading
  words of each block, ``build.BLOCK_WORDS``; the phrases of effects and rules and the forms of
  each expression slot) and the ids in scope.
- ``fixes``: the edits that a diagnostic's hint spells out ('did you mean …', 'add …').

Positions are the parser's: lines and columns from 1, columns counted in characters.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Union

import attrs

from . import nodes as n
from .diagnostics import Diagnostic, Span, lookup
from .refs import SPECIAL_PLACES, Ref
from .ruleset import PACK_FILE, Analysis, BuiltFile, analyse, bundled_paths
from .syntax import SCAN, parse_text, read_file

MAX_PACK_SEARCH = 400  # folders looked at for packs a pack depends on, in each folder of the editor
NAME = re.compile(r"[a-z_][a-z0-9_]*(-[a-z0-9_]+)*", re.I)  # an id, as the grammar reads a name (NAME)


# --- an open file, built a declaration at a time -------------------------------------------------
@attrs.frozen
class _Part:
    """A top-level declaration (with the comments and blank lines before it) of an open file."""

    start: int  # offset of its first character in the file
    line: int  # the line it starts on (1-based)
    text: str


def split_parts(text: str) -> list[_Part]:
    """The file cut before every line that starts a new top-level line: at a line end outside every
    block and group, unless the next line starts with '{' or 'else' (the builder joins those to the
    line above, and reports them)."""
    parts: list[_Part] = []
    depth = 0
    start, start_line, line = 0, 1, 1
    cut: Optional[int] = None  # offset of a line start where a part may begin
    for m in SCAN.finditer(text):
        kind = m.lastgroup
        if kind == "n":
            line += 1
            if depth == 0:
                cut = m.end()
                cut_line = line
            continue
        if kind == "c":
            continue
        if cut is not None:
            word = m.group()
            if word not in ("{", "else") and cut > start:
                parts.append(_Part(start, start_line, text[start:cut]))
                start, start_line = cut, cut_line
            cut = None
        if kind == "o":
            depth += 1
        elif kind == "x":
            depth = max(0, depth - 1)
    parts.append(_Part(start, start_line, text[start:]))
    return parts


@attrs.frozen
class _BuiltPart:
    line: int  # the line it was built at
    decls: tuple
    refs: tuple
    diags: tuple
    costly: tuple  # its W203 warnings (dsl/cost.py), shown when no part of the file has an error


class FileParts:
    """The declarations of one file, built a part at a time and kept between versions of its text."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.parts: dict[str, _BuiltPart] = {}  # a part's text -> what it built
        self.last: Optional[tuple[str, BuiltFile]] = None
        self.rebuilt = 0  # parts parsed and built by the last ``build`` (the rest were kept or moved)

    def build(self, text: str) -> BuiltFile:
        """The file built as ``build_file`` builds it (the same declarations, names and diagnostics)."""
        if self.last is not None and self.last[0] == text:
            return self.last[1]
        from .build import build_file
        from .cost import costly_lines
        from .syntax import whole_file_problem

        early = whole_file_problem(text, self.path)
        if early is not None:
            got = BuiltFile([], [], [early], False)
            self.last = (text, got)
            return got
        kept: dict[str, _BuiltPart] = {}
        decls: list = []
        refs: list[Ref] = []
        diags: list[Diagnostic] = []
        costly: list[Diagnostic] = []
        self.rebuilt = 0
        syntax: list[Diagnostic] = []
        for part in split_parts(text):
            have = kept.get(part.text) or self.parts.get(part.text)
            if have is not None and have.line != part.line:
                have = self._moved(have, part.line)
            if have is None:
                self.rebuilt += 1
                source = "\n" * (part.line - 1) + part.text  # lines and columns as in the file
                lines, bad = parse_text(source, self.path, limits=False)
                if bad:
                    syntax.extend(bad)
                    have = _BuiltPart(part.line, (), (), tuple(bad), ())
                else:
                    d, r, dg = build_file(lines, self.path, source, costs=False)
                    cost = costly_lines(d) if not any(x.severity == "error" for x in dg) else []
                    have = _BuiltPart(part.line, tuple(d), tuple(r), tuple(dg), tuple(cost))
            kept[part.text] = have
            decls.extend(have.decls)
            refs.extend(have.refs)
            diags.extend(have.diags)
            costly.extend(have.costly)
        self.parts = kept
        if syntax:  # the file does not read: its syntax errors alone, as parse_text gives them
            got = BuiltFile([], [], syntax, False)
        else:
            if not any(d.severity == "error" for d in diags):
                diags.extend(costly)
            got = BuiltFile(decls, refs, diags, True)
        self.last = (text, got)
        return got

    @staticmethod
    def _moved(have: _BuiltPart, line: int) -> Optional[_BuiltPart]:
        """A part built at another line, moved to ``line``; None when it must be built again (its
        diagnostics may name lines in their text)."""
        if have.diags or have.costly:
            return None
        k = line - have.line
        return _BuiltPart(line, n.moved_down(have.decls, k), n.moved_down(have.refs, k), (), ())


# --- the content of a file: its pack, the packs that pack depends on ------------------------------
def pack_folder(path: Path) -> Optional[Path]:
    """The folder of the pack a file belongs to (the nearest above it holding a pack.fg), or None."""
    for d in path.parents:
        try:
            if (d / PACK_FILE).is_file():
                return d
        except OSError:
            return None
    return None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _pack_of_folder(folder: Path, texts: dict[str, str]) -> Optional[n.Pack]:
    """The pack declared by the pack.fg of a folder (an open file's text if it is open)."""
    f = folder / PACK_FILE
    text = texts.get(str(f))
    if text is None:
        text, bad = read_file(f)
        if bad:
            return None
    from .build import build_file

    lines, bad = parse_text(text, str(f))
    if bad:
        return None
    decls, _refs, _diags = build_file(lines, str(f), text, costs=False)
    return next((d for d in decls if isinstance(d, n.Pack)), None)


def _pack_folders(around: Iterable[Path]) -> Iterator[Path]:
    """Folders holding a pack.fg: in and below each folder given (breadth first, a bounded number of
    folders looked at, hidden ones skipped)."""
    for root in around:
        todo, seen = [root], 0
        while todo and seen < MAX_PACK_SEARCH:
            d = todo.pop(0)
            seen += 1
            try:
                if (d / PACK_FILE).is_file():
                    yield d
                todo.extend(sorted(c for c in d.iterdir() if c.is_dir() and not c.name.startswith(".")
                                   and not c.is_symlink()))
            except OSError:
                continue


def content_of(path: Path, roots: Iterable[Path], texts: dict[str, str]) -> tuple[Path, ...]:
    """What a file is checked with, as ``lastbreath check --content`` checks a pack: the bundled
    content; the pack folder of the file (or the file alone, outside a pack); and every pack its pack
    depends on, found in the folder above its pack, below it, and in the editor's folders."""
    bundled = tuple(Path(p).resolve() for p in bundled_paths())
    if any(_inside(path, b) for b in bundled):
        return bundled
    folder = pack_folder(path)
    if folder is None:
        return (*bundled, path)
    chosen = [folder]
    pack = _pack_of_folder(folder, texts)
    wanted = [d for d in (pack.depends if pack is not None else ()) if d != "core"]
    if wanted:
        found: dict[str, Path] = {}
        for d in _pack_folders([folder.parent, *roots]):
            if d in chosen or any(_inside(d, c) for c in chosen):
                continue
            other = _pack_of_folder(d, texts)
            if other is not None and other.id not in found:
                found[other.id] = d
        todo = list(wanted)
        done: set[str] = set()
        while todo:
            pid = todo.pop(0)
            if pid in done or pid not in found:
                continue
            done.add(pid)
            chosen.append(found[pid])
            other = _pack_of_folder(found[pid], texts)
            todo.extend(d for d in (other.depends if other is not None else ()) if d != "core")
    return (*bundled, *chosen)


class Project:
    """The files open in an editor, and the checks of the content they belong to."""

    def __init__(self, roots: Iterable[Path] = ()) -> None:
        self.roots = [Path(r).resolve() for r in roots]
        self.texts: dict[str, str] = {}  # path -> the text of an open file
        self.files: dict[str, FileParts] = {}  # path -> its parts (open files)
        self.built: dict[tuple[str, str], BuiltFile] = {}  # (path, text) -> files not open, as built
        self.checked: dict[tuple[Path, ...], Checked] = {}  # content set -> its last check

    def open(self, path: str, text: str) -> None:
        self.texts[path] = text
        self.files.setdefault(path, FileParts(path))

    change = open

    def close(self, path: str) -> None:
        self.texts.pop(path, None)
        self.files.pop(path, None)

    def _build(self, path: str, text: str) -> BuiltFile:
        parts = self.files.get(path)
        if parts is not None and self.texts.get(path) == text:
            return parts.build(text)
        got = self.built.get((path, text))
        if got is None:
            from .cache import load_built

            cached = load_built(path, text)
            if cached is not None:
                got = BuiltFile(list(cached[0]), list(cached[1]), [], True)
            else:
                got = FileParts(path).build(text)
            if len(self.built) > 500:
                self.built.clear()
            self.built[(path, text)] = got
        return got

    def content(self, path: str) -> tuple[Path, ...]:
        return content_of(Path(path), self.roots, self.texts)

    def check(self, path: str) -> Checked:
        """The check of the content a file belongs to, with every open file as it is now."""
        key = self.content(path)
        # the open files of those folders too: a file not saved yet is not found in its folder
        bundled = {Path(b).resolve() for b in bundled_paths()}
        opened = [Path(p) for p in self.texts
                  if p == path or any(_inside(Path(p), k) for k in key if k not in bundled and k.is_dir())]
        got = analyse([*key, *opened], texts=self.texts, builder=self._build)
        checked = Checked(got, key)
        self.checked[key] = checked
        return checked


# --- an index of one check: what declares and what uses each id ----------------------------------
# the kinds of declaration (render.KIND_NAMES, and the parts it leaves out) that a kind of reference names
REF_TARGETS: dict[str, tuple[str, ...]] = {
    "item": ("item",), "minion": ("minion",), "loc": ("location",), "token": ("token",), "deck": ("deck",),
    "track": ("track",), "holding": ("holding",), "pile": ("pile",), "body": ("body",),
    "kind": ("minion", "victim kind", "conveyance"), "victim-kind": ("victim kind",), "conveyance": ("conveyance",),
    "piece": ("minion", "victim kind", "conveyance"), "hand-card": ("card",), "card": ("card", "deck_card"),
    "action": ("action",), "event": ("event",), "terror": ("terror",), "killer": ("killer",),
    "scenario": ("scenario",), "pack": ("pack",), "body-deck": ("deck",), "minion-deck": ("deck",),
    "card-place": ("deck",), "recipe-makes": ("item",), "tag": ("tag",), "pathtag": ("tag",), "mode": ("mode",),
}
_KINDS: dict[type, str] = {
    n.Card: "card", n.Item: "item", n.FinalGirl: "final_girl", n.Killer: "killer", n.Scenario: "scenario",
    n.PlayerBoard: "player_board", n.Minion: "minion", n.Finale: "finale", n.DarkPower: "dark_power",
    n.Terror: "terror", n.EventCard: "event", n.SetupCard: "setup", n.Deck: "deck", n.DeckCard: "deck_card",
    n.Token: "token", n.Action: "action", n.Recipe: "recipe", n.ItemPile: "pile", n.Module: "module",
    n.Location: "location", n.Body: "body", n.Track: "track", n.HoldingArea: "holding", n.Pack: "pack",
    n.VictimKind: "victim kind", n.Conveyance: "conveyance", n.Side: "side", n.RuleGroup: "rules",
}


@attrs.frozen
class Symbol:
    """A declaration with an id (or a tag or mode named where it is declared): where its id stands."""

    kind: str
    id: str
    name: str
    span: Span  # the whole declaration
    at: Span  # its id
    scope: str  # the id of the top-level declaration it stands in ("" at the top level)
    node: Any = attrs.field(eq=False, repr=False)
    parts: tuple[Symbol, ...] = ()


def _lines(sources: dict[str, str], path: str) -> list[str]:
    return sources.get(path, "").split("\n")


def _word_at(text: str, word: str, start: int = 0) -> int:
    """The index of ``word`` as a whole name in ``text`` from ``start``, or -1."""
    for m in re.finditer(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text[start:]):
        return start + m.start()
    return -1


class Checked:
    """One check of a content set, and an index of it (built when first asked)."""

    def __init__(self, analysis: Analysis, content: tuple[Path, ...]) -> None:
        self.analysis = analysis
        self.content = content
        self.bundled = tuple(Path(p).resolve() for p in bundled_paths())
        self._symbols: Optional[dict[str, list[Symbol]]] = None
        self._refs: Optional[dict[str, list[Ref]]] = None

    # diagnostics -------------------------------------------------------------------------------
    def diagnostics(self, also: Iterable[str] = ()) -> dict[str, list[Diagnostic]]:
        """The diagnostics of every file of the content but the bundled files, and of the files ``also``
        (open in the editor: a bundled file being edited too); each such file once, with an empty list
        when it has none."""
        wanted = set(also)
        out: dict[str, list[Diagnostic]] = {p: [] for p in self.analysis.sources
                                            if p in wanted or not self.is_bundled(p)}
        for d in self.analysis.diags:
            if d.span.path in out or not self.is_bundled(d.span.path):
                out.setdefault(d.span.path, []).append(d)
        return out

    def is_bundled(self, path: str) -> bool:
        p = Path(path)
        return any(_inside(p, b) for b in self.bundled)

    # the index ---------------------------------------------------------------------------------
    def symbols(self) -> dict[str, list[Symbol]]:
        """Every declaration by id."""
        if self._symbols is None:
            out: dict[str, list[Symbol]] = {}
            for path in self.analysis.file_decls:
                for s in self.outline(path):
                    for x in _flat(s):
                        out.setdefault(x.id, []).append(x)
            self._symbols = out
        return self._symbols

    def refs(self) -> dict[str, list[Ref]]:
        if self._refs is None:
            out: dict[str, list[Ref]] = {}
            for r in self.analysis.refs:
                out.setdefault(r.name, []).append(r)
            self._refs = out
        return self._refs

    def outline(self, path: str) -> list[Symbol]:
        """The declarations of a file as a tree (killers with their finales, cards, minions…)."""
        lines = _lines(self.analysis.sources, path)
        return [s for d in self.analysis.file_decls.get(path, ()) for s in self._symbol(d, lines, "")]

    def _symbol(self, node: Any, lines: list[str], scope: str) -> list[Symbol]:
        kind = _KINDS.get(type(node))
        ident = getattr(node, "id", None)
        if kind is None or not isinstance(ident, str) or not NAME.fullmatch(ident) or node.span.line < 1:
            inner: list[Symbol] = []
            for c in n.children(node):
                inner.extend(self._symbol(c, lines, scope))
            return inner
        at = _id_span(node.span, ident, lines)
        inner_scope = scope or ident
        parts: list[Symbol] = []
        for c in n.children(node):
            parts.extend(self._symbol(c, lines, inner_scope))
        for word, what in (("tags", "tag"), ("modes", "mode")):
            values = getattr(node, word, ())
            if isinstance(values, tuple) and values and all(isinstance(v, str) for v in values):
                parts.extend(_named_in_line(node.span, word, values, what, lines, inner_scope, node))
        name = getattr(node, "name", "")
        return [Symbol(kind, ident, name if isinstance(name, str) else "", node.span, at, scope, node,
                       tuple(parts))]

    # what is at a place ------------------------------------------------------------------------
    def ref_at(self, path: str, line: int, col: int) -> Optional[Ref]:
        best = None
        for r in self.analysis.refs:
            if (r.span.path == path and _contains(r.span, line, col) and NAME.fullmatch(r.name)
                    and (best is None or _size(r.span) < _size(best.span))):
                best = r
        return best

    def symbol_at(self, path: str, line: int, col: int) -> Optional[Symbol]:
        for syms in self.symbols().values():
            for s in syms:
                if s.at.path == path and _contains(s.at, line, col):
                    return s
        return None

    def targets(self, ref: Ref) -> list[Symbol]:
        """The declarations a reference names: of its kind, those of its scope first."""
        kinds = REF_TARGETS.get(ref.kind)
        found = [s for s in self.symbols().get(ref.name, ()) if kinds is None or s.kind in kinds]
        mine = [s for s in found if s.scope == ref.scope or s.id == ref.scope]
        return mine or found

    def occurrences(self, path: str, line: int, col: int) -> Optional[tuple[list[Symbol], list[Ref]]]:
        """The declarations of the id at a place and every use of it; None if no id is there."""
        sym = self.symbol_at(path, line, col)
        if sym is not None:
            decls = [sym]
        else:
            ref = self.ref_at(path, line, col)
            if ref is None:
                return None
            decls = self.targets(ref)
            if not decls:
                return [], [ref]
            sym = decls[0]
        same = [s for s in self.symbols().get(sym.id, ()) if s.kind == sym.kind]
        scoped = sym.kind in ("location", "token", "deck", "track", "holding", "pile", "body", "tag", "mode",
                              "finale", "dark_power", "terror", "event", "action", "setup", "deck_card")
        if scoped:  # ids of parts of a killer or a scenario: those of its scope
            same = [s for s in same if s.scope == sym.scope]
        uses = []
        for r in self.refs().get(sym.id, ()):
            kinds = REF_TARGETS.get(r.kind)
            if kinds is not None and sym.kind not in kinds:
                continue
            if scoped and r.scope and sym.scope and r.scope != sym.scope:
                continue
            uses.append(r)
        return same, uses


def _flat(s: Symbol) -> Iterator[Symbol]:
    yield s
    for p in s.parts:
        yield from _flat(p)


def _contains(span: Span, line: int, col: int) -> bool:
    if line < span.line or line > span.end_line:
        return False
    if line == span.line and col < span.col:
        return False
    return not (line == span.end_line and col > span.end_col)


def _size(span: Span) -> tuple[int, int]:
    return (span.end_line - span.line, span.end_col - span.col if span.end_line == span.line else 0)


def _id_span(span: Span, ident: str, lines: list[str]) -> Span:
    """Where the id of a declaration stands: the first whole word equal to it on its first line (after
    the leading word), or the start of the declaration."""
    if 1 <= span.line <= len(lines):
        text = lines[span.line - 1]
        i = _word_at(text, ident, max(0, span.col - 1))
        if i >= 0:
            return Span(span.path, span.line, i + 1, span.line, i + 1 + len(ident))
    return Span(span.path, span.line, span.col, span.line, span.col)


def _named_in_line(span: Span, word: str, values: tuple[str, ...], kind: str, lines: list[str], scope: str,
                   node: Any) -> list[Symbol]:
    """Names declared on a line of a declaration that leads with ``word`` (``tags a b``, ``modes x y``)."""
    out: list[Symbol] = []
    for ln in range(span.line, min(span.end_line, len(lines)) + 1):
        text = lines[ln - 1]
        start = span.col - 1 if ln == span.line else 0
        at = _word_at(text, word, start)
        if at < 0 or (ln != span.line and text[:at].strip() != ""):  # (on a line of its own, the word first)
            continue
        for v in values:
            i = _word_at(text, v, at + len(word))
            if i >= 0:
                here = Span(span.path, ln, i + 1, ln, i + 1 + len(v))
                out.append(Symbol(kind, v, v, here, here, scope, node))
        if out:
            break
    return out


# --- hover ----------------------------------------------------------------------------------------
def _names(checked: Checked, top: Any) -> Any:
    from types import SimpleNamespace

    from .render import Names

    t = checked.analysis.tables
    names = Names.from_ruleset(SimpleNamespace(scenarios=t.get("scenarios", {}), killers=t.get("killers", {}),
                                               items=t.get("items", {}), minions=t.get("minions", {})))
    return names.within(top) if top is not None else names


def _render(checked: Checked, node: Any, top: Any) -> str:
    from .render import render

    try:
        return render(node, _names(checked, top))
    except Exception:  # a node half built from text being typed: no English for it
        return ""


def hover(checked: Checked, path: str, line: int, col: int) -> Optional[str]:
    """What to show at a place, in Markdown: the text of a rule cited there; the English of the
    declaration an id there names; else the English of the innermost line (and the card it is on);
    the explanation of a diagnostic there."""
    out: list[str] = []
    text = _lines(checked.analysis.sources, path)
    rule = _rule_at(text[line - 1] if 1 <= line <= len(text) else "", col)
    if rule:
        out.append(rule)
    decls = checked.analysis.file_decls.get(path, [])
    top = next((d for d in decls if _contains(d.span, line, col)), None)
    sym = checked.symbol_at(path, line, col)
    ref = checked.ref_at(path, line, col) if sym is None else None
    named = [sym] if sym is not None else (checked.targets(ref) if ref is not None else [])
    if named:
        s = named[0]
        owner = _top_of(checked, s)
        english = _render(checked, s.node, owner)
        head = f"**{s.kind.replace('_', ' ')} `{s.id}`**" + (f" ({s.name})" if s.name and s.name != s.id else "")
        where = "" if s.span.path == path else f" — {Path(s.span.path).name}:{s.span.line}"
        out.append(head + where + ("\n\n```text\n" + english.strip() + "\n```" if english.strip() else ""))
    elif top is not None:
        node = _innermost(top, line, col)
        if node is not None:
            english = _render(checked, node, top)
            if english.strip():
                out.append("```text\n" + english.strip() + "\n```")
        card = _innermost_decl(top, line, col)
        if card is not None:
            english = _render(checked, card, top)
            if english.strip():
                ident = getattr(card, "id", "")
                out.append(f"**{_KINDS.get(type(card), 'declaration').replace('_', ' ')} `{ident}`**\n\n```text\n"
                           + english.strip() + "\n```")
    for d in checked.analysis.diags:
        if d.span.path == path and _contains(d.span, line, col):
            info = lookup(d.code)
            if info is not None:
                out.append(f"**{d.code}** — {info.title}\n\n{info.explanation}\n\n"
                           f"`lastbreath explain-error {d.code}` shows an example and its fix.")
            break
    return "\n\n---\n\n".join(out) if out else None


def _top_of(checked: Checked, s: Symbol) -> Any:
    for d in checked.analysis.file_decls.get(s.span.path, []):
        if _contains(d.span, s.span.line, s.span.col):
            return d
    return None


def _innermost(top: Any, line: int, col: int) -> Any:
    """The smallest node at a place that has English of its own (an effect, a trigger, a condition…),
    declarations with an id aside (``_innermost_decl``)."""
    from .render import renderer_for

    best = None
    for x in n.walk(top):
        sp = getattr(x, "span", None)
        if (isinstance(sp, Span) and type(x) not in _KINDS and _contains(sp, line, col)
                and renderer_for(type(x)) is not None and (best is None or _size(sp) <= _size(best.span))):
            best = x
    return best


def _innermost_decl(top: Any, line: int, col: int) -> Any:
    """The smallest declaration with an id at a place (a card, a finale, a location…)."""
    best = None
    for x in n.walk(top):
        sp = getattr(x, "span", None)
        if (isinstance(sp, Span) and type(x) in _KINDS and _contains(sp, line, col)
                and (best is None or _size(sp) <= _size(best.span))):
            best = x
    return best


def _rule_at(text: str, col: int) -> Optional[str]:
    """The rule cited by the id under a column of a line (docs/rules.md), in Markdown."""
    for m in re.finditer(r"(?<![\w.])[CSKV]\d+(?:\.\d+)?(?![\w])", text):
        if m.start() < col <= m.end() + 1:
            try:
                from lastbreath.interpreter import rules_reference as rr

                item = rr.load_reference().find(m.group())
            except Exception:  # the page missing or out of form: no text to show
                return None
            if item is None:
                return None
            body = getattr(item, "text", "") or getattr(item, "intro", "")
            return f"**{item.id}** {item.title}\n\n{body}"
    return None


# --- completion -----------------------------------------------------------------------------------
@attrs.frozen
class Completion:
    label: str
    kind: str  # keyword | phrase | id | form
    detail: str = ""
    insert: str = ""  # the text to insert, if not the label


@attrs.frozen
class Place:
    """Where the cursor stands: the blocks around it and the words of its line before it."""

    blocks: tuple[str, ...]  # the kinds of the blocks around it, outermost first ("?" for one not known)
    words: tuple[str, ...]  # the words of its line before it (at its own level)
    prefix: str  # the part of a word before the cursor
    group: tuple[str, ...]  # inside '( … )': the words of the line before the '(' (else empty)
    scope: str  # the id of the top-level declaration it stands in
    top: str  # the leading word of that declaration (killer, scenario…)


_REFERENCE: Optional[tuple[dict[str, tuple[str, ...]], dict[tuple[str, str], str]]] = None


def reference_tables() -> tuple[dict[str, tuple[str, ...]], dict[tuple[str, str], str]]:
    """The builder's tables of blocks (build.BLOCK_WORDS, BLOCK_OF) as the examples of the language
    reference (dsl/LANGUAGE.md) fill them, built as they stand and inside a killer, a scenario and an
    effect block, in fresh tables: the same whatever else this process has built (the grammar of
    editors is made from them). Worked out once; they join the builder's own tables, so that the
    blocks of content not built yet are known to completion too."""
    global _REFERENCE
    if _REFERENCE is not None:
        return _REFERENCE
    from . import build

    kept = build.BLOCK_WORDS, build.BLOCK_OF
    build.BLOCK_WORDS, build.BLOCK_OF = {"file": build.TOP_LEVEL}, {}
    try:
        try:
            doc = Path(__file__).with_name("LANGUAGE.md").read_text(encoding="utf-8")
        except OSError:
            doc = ""
        for m in re.finditer(r"(?:^    .*\n)+", doc, re.M):
            block = textwrap.dedent(m.group(0))
            for wrap in ("{}", "killer k {{\n{}\n}}", "scenario s {{\n{}\n}}", "card c {{\n fail {{\n{}\n}}\n}}"):
                text = wrap.format(block)
                lines, bad = parse_text(text, "<reference>")
                if not bad:
                    build.build_file(lines, "<reference>", text, costs=False)
        _REFERENCE = build.BLOCK_WORDS, build.BLOCK_OF
    finally:
        build.BLOCK_WORDS, build.BLOCK_OF = kept
    words, inner = _REFERENCE
    for kind, ws in words.items():
        known = build.BLOCK_WORDS.get(kind, ())
        build.BLOCK_WORDS[kind] = tuple(dict.fromkeys((*known, *ws)))
    for key, kind in inner.items():
        build.BLOCK_OF.setdefault(key, kind)
    return _REFERENCE


def _warm() -> None:
    reference_tables()


def place_at(text: str, line: int, col: int) -> Optional[Place]:
    """The blocks and words around a place of a text (None in a comment or a string)."""
    from .build import BLOCK_OF

    offset = _offset(text, line, col)
    start = text.rfind("\n", 0, offset) + 1
    before = text[start:offset]
    if _in_string_or_comment(before):
        return None
    m = re.search(r"[A-Za-z0-9_-]*$", before)
    prefix = m.group() if m else ""
    upto = offset - len(prefix)
    frames: list[tuple[str, list[str]]] = []
    words: list[str] = []
    for t in SCAN.finditer(text, 0, upto):
        kind = t.lastgroup
        if kind == "c":
            continue
        if kind == "n" or t.group() == ";":
            if not frames or frames[-1][0] == "{":
                words = []
            continue
        if kind == "o":
            frames.append((t.group(), words))
            words = []
        elif kind == "x":
            if frames:
                char, outer = frames.pop()
                words = [*outer, "{…}" if char == "{" else "(…)"]
        else:
            words.append(t.group())
    kinds: list[str] = []
    group: list[str] = []
    kind_ = "file"
    scope = top = ""
    for i, (char, w) in enumerate(frames):
        if char == "(":
            group = w
            break
        head = w[0] if w else ""
        if i == 0:
            top = head
            scope = w[1] if len(w) > 1 else ""
        key = (kind_, "" if head.startswith('"') else head)
        kind_ = BLOCK_OF.get(key, "?")
        kinds.append(kind_)
    return Place(tuple(kinds), tuple(words), prefix, tuple(group), scope, top)


def _offset(text: str, line: int, col: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    return min(pos + col - 1, end)


def _in_string_or_comment(before: str) -> bool:
    quoted = False
    i = 0
    while i < len(before):
        c = before[i]
        if quoted and c == "\\":
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c == "#" and not quoted:
            return True
        i += 1
    return quoted


# what fills each kind of slot of a phrase (build._slot), when it is an id
SLOT_IDS: dict[str, tuple[str, ...]] = {
    "loc": ("location",), "item": ("item",), "minion": ("minion",), "kind": ("minion", "victim kind", "conveyance"),
    "victimkind": ("victim kind",), "token": ("token",), "tag": ("tag",), "pathtag": ("tag",), "deck": ("deck",),
    "bodydeck": ("deck",), "miniondeck": ("deck",), "track": ("track",), "holding": ("holding",), "card": ("card",),
    "conveyance": ("conveyance",), "body": ("body",), "mode": ("mode",),
}
# the expression forms (expr.FORMS) a kind of slot takes
SLOT_FORMS = {"loc": "place", "amount": "amount", "cond": "condition"}


def _ids(checked: Optional[Checked], kinds: tuple[str, ...], scope: str) -> list[Completion]:
    """The ids of these kinds of declaration, those of the scope first (sorted by the client)."""
    if checked is None:
        return []
    out: dict[str, Completion] = {}
    for ident, syms in checked.symbols().items():
        for s in syms:
            if s.kind in kinds and ident not in out:
                detail = s.kind + (f" of {s.scope}" if s.scope else "") + (f": {s.name}" if s.name != s.id else "")
                out[ident] = Completion(ident, "id", detail)
    if "mode" in kinds and checked is not None:
        for k in checked.analysis.tables.get("killers", {}).values():
            for m in k.modes:
                out.setdefault(m, Completion(m, "id", f"mode of {k.id}"))
    if "pack" in kinds and checked is not None:
        for p in checked.analysis.packs:
            out.setdefault(p, Completion(p, "id", "pack"))
    return list(out.values())


def _slot_items(slot: str, checked: Optional[Checked], scope: str) -> list[Completion]:
    from .build import TARGETS
    from .expr import FORMS
    from .nodes import LITERAL_SLOTS, ZONES

    out: list[Completion] = []
    if slot in SLOT_IDS:
        out.extend(_ids(checked, SLOT_IDS[slot], scope))
    if slot == "loc":
        out.extend(Completion(w, "keyword", "a place") for w in SPECIAL_PLACES)
    if slot in SLOT_FORMS:
        out.extend(Completion(f, "form", f"{SLOT_FORMS[slot]}", "") for f in FORMS[SLOT_FORMS[slot]]
                   if f not in SPECIAL_PLACES and f != "LOCATION")
    if slot == "target":
        out.extend(Completion(w, "keyword") for w in TARGETS)
    if slot in LITERAL_SLOTS:
        out.append(Completion(slot, "keyword"))
    words = {"way": ("up", "down"), "side": ("win", "lose"), "zone": ZONES, "pieces": ("it", "fg")}.get(slot, ())
    out.extend(Completion(w, "keyword") for w in words)
    if slot == "pieces":
        out.append(Completion("(PIECES at PLACE where CONDITION)", "form", "pieces"))
    if slot == "string":
        out.append(Completion('"…"', "form", "text", '""'))
    return out


def _after_words(patterns: Any, words: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """What may follow these words in a line of the phrases: literal words, and kinds of slot."""
    literals: list[str] = []
    slots: list[str] = []
    for pat in patterns:
        i = 0
        ok = True
        for w in words:
            if i >= len(pat.parts):
                ok = False
                break
            part = pat.parts[i]
            if isinstance(part, str):
                if part != w:
                    ok = False
                    break
                i += 1
            elif part[1] in ("cond", "names"):  # takes the rest of the line
                break
            else:
                i += 1
        else:
            if ok and i < len(pat.parts):
                part = pat.parts[i]
                if isinstance(part, str):
                    literals.append(part)
                else:
                    slots.append(part[1])
            continue
        if ok and i < len(pat.parts) and not isinstance(pat.parts[i], str) and pat.parts[i][1] == "cond":
            slots.append("cond")
    return list(dict.fromkeys(literals)), list(dict.fromkeys(slots))


def completions(checked: Optional[Checked], text: str, line: int, col: int) -> list[Completion]:
    """What may be written at a place: a block's leading words at the start of a line; in an effect
    block, its phrases and the words and ids each slot takes; in a '( … )', the forms of a place,
    an amount or a condition and the ids."""
    from .build import ABILITY_WORDS, BLOCK_WORDS, CONTROL_FORMS, EFFECT_PATTERNS, RULE_PATTERNS
    from .expr import FORMS

    _warm()
    at = place_at(text, line, col)
    if at is None:
        return []
    kind = at.blocks[-1] if at.blocks else "file"
    out: list[Completion] = []
    if at.group:  # inside ( … ): an expression
        for form in ("place", "amount", "condition"):
            out.extend(Completion(f, "form", form) for f in FORMS[form] if f != "LOCATION")
        out.extend(_ids(checked, ("location", "tag", "token", "minion", "victim kind", "item", "track", "deck"),
                        at.scope))
        out.extend(Completion(w, "keyword", "a place") for w in SPECIAL_PLACES)
        return _unique(out)
    words = at.words
    if kind == "effects":
        if not words:
            seen: set[str] = set()
            for pat in EFFECT_PATTERNS:
                if pat.display not in seen:
                    seen.add(pat.display)
                    out.append(Completion(pat.display, "phrase", "effect", _first_word(pat.display)))
            out.extend(Completion(f, "phrase", "effect", f.split()[0]) for f in CONTROL_FORMS)
            return _unique(out)
        if words[0] == "if":
            return _unique(_condition_items(checked, at.scope))
        literals, slots = _after_words(EFFECT_PATTERNS, words)
        out.extend(Completion(w, "keyword") for w in literals)
        for slot in slots:
            out.extend(_condition_items(checked, at.scope) if slot == "cond" else _slot_items(slot, checked, at.scope))
        return _unique(out)
    if not words:  # the start of a line of a declaration block
        out.extend(Completion(w, "keyword", f"a line of a {kind.replace('_', ' ')}" if kind != "file" else
                              "a declaration") for w in BLOCK_WORDS.get(kind, ()))
        return _unique(out)
    head = words[0]
    if head == "rule" and head in ABILITY_WORDS:
        literals, slots = _after_words(RULE_PATTERNS, words[1:])
        if len(words) == 1:
            out.extend(Completion(p.display, "phrase", "rule", _first_word(p.display)) for p in RULE_PATTERNS)
        else:
            out.extend(Completion(w, "keyword") for w in literals)
            for slot in slots:
                out.extend(_slot_items(slot, checked, at.scope))
        return _unique(out)
    if kind == "location" and head == "at":  # at X Y: where it is drawn, two numbers (no event)
        return []
    if head in ("when", "instead", "at") or words[:2] == ("instead", "of"):
        out.extend(Completion(f, "form", "event", _first_word(f)) for f in FORMS["event"])
        out.extend(_ids(checked, ("minion", "victim kind", "conveyance", "item", "token", "track", "deck"),
                        at.scope))
        return _unique(out)
    if head in ("win", "lose") or "while" in words or "if" in words:
        return _unique(_condition_items(checked, at.scope))
    if head == "depends":
        return _unique(_ids(checked, ("pack",), at.scope))
    if head == "for" and kind.startswith("module"):  # a module's section: for killer|scenario ID { … }
        if len(words) == 1:
            return [Completion("killer", "keyword"), Completion("scenario", "keyword")]
        return _unique(_ids(checked, (words[1],), at.scope)) if words[1] in ("killer", "scenario") else []
    if head in ("tags",):
        return _unique(_ids(checked, ("tag",), at.scope))
    if kind in ("setup", "path") or head == "path":
        return _unique(_ids(checked, ("location",), at.scope) + _ids(checked, ("token",), at.scope))
    return []


def _first_word(display: str) -> str:
    return display.split()[0] if display.split() and display.split()[0].islower() else ""


def _condition_items(checked: Optional[Checked], scope: str) -> list[Completion]:
    from .expr import FORMS

    out = [Completion(f, "form", "condition", _first_word(f)) for f in FORMS["condition"]]
    out.extend(_ids(checked, ("location", "tag", "item", "token", "minion", "victim kind"), scope))
    return out


def _unique(items: list[Completion]) -> list[Completion]:
    seen: set[str] = set()
    out = []
    for c in items:
        if c.label not in seen:
            seen.add(c.label)
            out.append(c)
    return out


# --- fixes: the edits a diagnostic's hint spells out -----------------------------------------------
@attrs.frozen
class Edit:
    span: Span  # the text replaced (an empty span: an insertion)
    text: str


@attrs.frozen
class Fix:
    title: str
    edits: tuple[Edit, ...]


_MEAN = re.compile(r"did you mean '([^']+)'(?: or '([^']+)')?\?")
_ADD = re.compile(r"^add '([^']+)'$")
_DEPENDS = re.compile(r"add '([^']+)' to the 'depends' line of pack '[^']+' in (.+?\.fg)")
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z|…]*$|^N$|^\"TEXT\"$")


def fixes(d: Diagnostic, sources: dict[str, str]) -> list[Fix]:
    """The edits a diagnostic's hint spells out: each 'did you mean X' (the words it names in place of
    those written; placeholders such as N filled from the line), a missing line to 'add', a pack to add
    to 'depends'."""
    text = sources.get(d.span.path)
    if text is None or d.span.line < 1:
        return []
    lines = text.split("\n")
    if d.span.line > len(lines):
        return []
    out: list[Fix] = []
    for m in _MEAN.finditer(d.hint):
        for want in (g for g in m.groups() if g):
            edit = _replacement(d.span, want, lines)
            if edit is not None:
                out.append(Fix(f"Change to '{edit.text}'", (edit,)))
    add = _ADD.match(d.hint)
    if add and d.code == "E202" and "…" not in add.group(1):
        first = lines[d.span.line - 1]
        if first.rstrip().endswith("{") and d.span.end_line > d.span.line:
            indent = len(first) - len(first.lstrip()) + 2
            at = Span(d.span.path, d.span.line + 1, 1, d.span.line + 1, 1)
            out.append(Fix(f"Add '{add.group(1)}'", (Edit(at, " " * indent + add.group(1) + "\n"),)))
    dep = _DEPENDS.search(d.hint)
    if dep and dep.group(2) in sources:
        pack_lines = sources[dep.group(2)].split("\n")
        for i, ln in enumerate(pack_lines, 1):
            if re.match(r"\s*depends\b", ln):
                end = len(ln.split("#", 1)[0].rstrip()) + 1
                at = Span(dep.group(2), i, end, i, end)
                out.append(Fix(f"Add '{dep.group(1)}' to the pack's 'depends'", (Edit(at, " " + dep.group(1)),)))
                break
    return out


def _replacement(span: Span, want: str, lines: list[str]) -> Optional[Edit]:
    """The edit that writes ``want`` where the diagnostic points: in place of the words there, or of a
    run of the line's words of the same length around them that differs in one word; placeholders of
    a phrase (N, PLACE…) are filled with the words written in their place."""
    line = lines[span.line - 1]
    end_col = span.end_col if span.end_line == span.line else len(line) + 1
    written = line[span.col - 1:end_col - 1]
    wanted = want.split()
    toks = [(m.start(), m.end(), m.group()) for m in re.finditer(r'"(?:[^"\\]|\\.)*"|\([^()]*\)|[^\s{}();#]+', line)]
    inside = [t for t in toks if t[0] >= span.col - 1 and t[1] <= end_col - 1]
    if len(inside) == len(wanted) and inside:
        filled = _fill(wanted, [t[2] for t in inside])
        if filled is None:
            return None
        a, z = inside[0][0], inside[-1][1]
        if line[a:z] == filled:
            return None
        return Edit(Span(span.path, span.line, a + 1, span.line, z + 1), filled)
    if not inside or any(_PLACEHOLDER.match(w) for w in wanted):
        return None
    first = toks.index(inside[0])
    for s in range(max(0, first - len(wanted) + 1), first + 1):
        window = toks[s:s + len(wanted)]
        if len(window) != len(wanted):
            continue
        differ = sum(1 for t, w in zip(window, wanted) if t[2] != w)
        if differ == 1:
            a, z = window[0][0], window[-1][1]
            return Edit(Span(span.path, span.line, a + 1, span.line, z + 1), want)
    del written
    return None


def _fill(wanted: list[str], written: list[str]) -> Optional[str]:
    out = []
    for w, have in zip(wanted, written):
        if _PLACEHOLDER.match(w):
            if "|" in w and have not in w.split("|"):  # up|down: the one written, if it is one of them
                return None
            out.append(have)
        else:
            out.append(w)
    return " ".join(out)


# --- rename ---------------------------------------------------------------------------------------
class RenameError(ValueError):
    """Why an id cannot be renamed here."""


def rename(checked: Checked, path: str, line: int, col: int, new: str) -> list[Edit]:
    """The edits that rename the id at a place, where it is declared and wherever it is used, in every
    file of the content but the bundled ones (an id the bundled content declares is not renamed)."""
    if not NAME.fullmatch(new):
        raise RenameError(f"'{new}' is not an id: ids are words of letters, digits, '-' and '_' ('night-watch')")
    got = checked.occurrences(path, line, col)
    if got is None:
        raise RenameError("no id declared or used here")
    decls, uses = got
    if not decls:
        raise RenameError("nothing declares this id: rename it where it is declared")
    if any(checked.is_bundled(s.at.path) for s in decls):
        raise RenameError(f"'{decls[0].id}' is declared by the bundled content, which is not renamed")
    old = decls[0].id
    edits: dict[tuple, Edit] = {}
    for sp in [*(s.at for s in decls), *(r.span for r in uses)]:
        if checked.is_bundled(sp.path):
            continue
        src = _lines(checked.analysis.sources, sp.path)
        if not 1 <= sp.line <= len(src) or src[sp.line - 1][sp.col - 1:sp.end_col - 1] != old:
            continue
        edits[(sp.path, sp.line, sp.col)] = Edit(sp, new)
    return list(edits.values())


def reference_spans(checked: Checked, path: str, line: int, col: int, declaration: bool = True) -> list[Span]:
    got = checked.occurrences(path, line, col)
    if got is None:
        return []
    decls, uses = got
    spans = [s.at for s in decls] if declaration else []
    return [*spans, *(r.span for r in uses)]


def definition_spans(checked: Checked, path: str, line: int, col: int) -> list[Span]:
    sym = checked.symbol_at(path, line, col)
    if sym is not None:
        return [sym.at]
    ref = checked.ref_at(path, line, col)
    if ref is None:
        return []
    return [s.at for s in checked.targets(ref)]


def format_document(text: str, path: str) -> Union[str, None]:
    """The text in canonical form (``lastbreath fmt``), or None when it does not parse."""
    from .format import format_text

    got, _diags = format_text(text, path)
    return got


# --- the TextMate grammar of editors (editors/vscode/syntaxes/fg.tmLanguage.json) ---------------------
GRAMMAR_FILE = "editors/vscode/syntaxes/fg.tmLanguage.json"
# the scopes a word is given, in the order they are tried (a word in two lists takes the first)
TOKEN_CLASSES = ("comment.line.number-sign.fg", "string.quoted.double.fg", "constant.character.escape.fg",
                 "storage.type.declaration.fg", "entity.name.type.fg", "keyword.control.fg", "keyword.other.line.fg",
                 "support.function.effect.fg", "keyword.operator.word.fg", "variable.language.place.fg",
                 "constant.numeric.fg", "punctuation.section.block.fg", "punctuation.section.group.fg",
                 "punctuation.separator.fg", "keyword.operator.path.fg", "variable.other.id.fg")


def _words(words: Iterable[str]) -> str:
    ordered = sorted(set(words), key=lambda w: (-len(w), w))  # longer first: 'killer-location' before 'killer'
    return "(?<![\\w-])(?:" + "|".join(re.escape(w) for w in ordered) + ")(?![\\w-])"


def textmate_grammar() -> dict[str, Any]:
    """The TextMate grammar of .fg files, made from the builder's own tables: the words that lead a
    declaration (a line whose block is a declaration block), the other leading words of each block,
    the words of control lines and abilities, the first words of effect and rule phrases, and the words
    of the expression grammar. ``python -m lastbreath.dsl.editing`` prints it (a test keeps the file in
    editors/vscode the same)."""
    from .build import ABILITY_WORDS, CONTROL_FORMS, EFFECT_PATTERNS, RULE_PATTERNS, TOP_LEVEL
    from .expr import keywords

    BLOCK_WORDS, BLOCK_OF = reference_tables()
    declaring = {w for (_kind, w), inner in BLOCK_OF.items() if inner not in ("effects", "choose", "roll", "bloodlust")
                 and w}
    declaring |= set(TOP_LEVEL)
    leading = {w for words in BLOCK_WORDS.values() for w in words} - declaring
    control = {*ABILITY_WORDS, "if", "else", "of", "while", "next", *(f.split()[0] for f in CONTROL_FORMS)}
    control -= {"gain", "remove", "move", "spend", "reveal"}  # (token lines: effects)
    effects = {p.parts[0] for p in (*EFFECT_PATTERNS, *RULE_PATTERNS) if isinstance(p.parts[0], str)}
    effects |= {"gain", "remove", "move", "spend", "reveal"}
    places = {*SPECIAL_PLACES, "that"}
    operators = set(keywords()) - places
    ident = "[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*"
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "lastbreath content",
        "scopeName": "source.fg",
        "fileTypes": ["fg"],
        "comment": "generated by python -m lastbreath.dsl.editing (dsl/editing.py, textmate_grammar): do not edit",
        "patterns": [{"include": "#comment"}, {"include": "#string"}, {"include": "#declaration"},
                     {"include": "#words"}, {"include": "#number"}, {"include": "#punctuation"},
                     {"include": "#name"}, {"include": "#invalid"}],
        "repository": {
            "comment": {"match": "#.*$", "name": "comment.line.number-sign.fg"},
            "string": {"begin": '"', "end": '"|$', "name": "string.quoted.double.fg",
                       "patterns": [{"match": "\\\\.", "name": "constant.character.escape.fg"}]},
            "declaration": {"match": f"(?:^|(?<=[{{;]))\\s*({_words(declaring)})\\s+({ident})(?=\\s*(?:\\{{|--|$))",
                            "captures": {"1": {"name": "storage.type.declaration.fg"},
                                         "2": {"name": "entity.name.type.fg"}}},
            "words": {"patterns": [
                {"match": _words(control), "name": "keyword.control.fg"},
                {"match": _words(leading | declaring), "name": "keyword.other.line.fg"},
                {"match": _words(effects), "name": "support.function.effect.fg"},
                {"match": _words(operators), "name": "keyword.operator.word.fg"},
                {"match": _words(places), "name": "variable.language.place.fg"},
            ]},
            "number": {"match": "(?<![\\w-])[+-]?[0-9]+(?![\\w-])", "name": "constant.numeric.fg"},
            "punctuation": {"patterns": [
                {"match": "--", "name": "keyword.operator.path.fg"},
                {"match": "[{}]", "name": "punctuation.section.block.fg"},
                {"match": "[()]", "name": "punctuation.section.group.fg"},
                {"match": ";", "name": "punctuation.separator.fg"},
            ]},
            "name": {"match": ident, "name": "variable.other.id.fg"},
            "invalid": {"match": "[^\\s]", "name": "invalid.illegal.fg"},
        },
    }


if __name__ == "__main__":
    import json
    import sys

    sys.stdout.write(json.dumps(textmate_grammar(), indent=2) + "\n")
