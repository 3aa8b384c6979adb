"""Loading content: every .fg file under the given folders -> one immutable, checked Ruleset.

The loader reads everything and reports every problem at once (diagnostics from parsing,
building and checking); ``load_ruleset`` refuses content with errors by raising
``ContentError``, while ``load_content`` returns the diagnostics for tools such as ``check``.

Content comes in packs. The bundled folders are the pack ``core``; any other .fg file belongs to
the pack of the nearest folder above it holding a ``pack.fg`` (``pack ID { … }``), or else to a
pack named after the folder it was loaded from (or, for a file given alone, its own folder),
depending on ``core`` only. The checker uses the packs for the rules on shared ids and
``depends``; the Ruleset keeps the pack of every declaration (``pack_of``).
"""

from __future__ import annotations

import re
import stat
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, cast

import attrs

from . import nodes as n
from .cache import load_built, store_built
from .check import CORE, check_content
from .diagnostics import ContentError, Diagnostic, Span, cap_per_file
from .refs import Ref
from .syntax import MAX_PACK_TOKENS, count_tokens, parse_text, read_file

CONTENT_PACKAGES = ("cards", "killers", "scenarios")
PACK_FILE = "pack.fg"


def bundled_paths() -> list[Path]:
    """The folders of bundled content, found from an editable or a normal install."""
    out: list[Path] = []
    for name in CONTENT_PACKAGES:
        try:
            out.append(Path(str(resources.files(f"lastbreath.{name}"))))
        except (ModuleNotFoundError, TypeError, NotADirectoryError):
            out.append(Path(__file__).resolve().parent.parent / name)
    return out


@attrs.define(eq=False)
class Caches:
    """Tables derived from the content, built on first use and shared by every game of a ruleset:
    the compiled board of each scenario (by id), the static tables of each setup (by its
    options) and the hash of the content's text that saves carry. The only mutable part of a
    Ruleset; nothing in it changes what a game does."""

    boards: dict[str, Any] = attrs.field(factory=dict)
    games: dict[tuple[Any, ...], Any] = attrs.field(factory=dict)
    content_hash: str = ""  # serialize.content_hash, once computed


@attrs.frozen(eq=False)
class Ruleset:
    """All loaded content, indexed by id. Built once, shared by every game."""

    cards: dict[str, n.Card]
    items: dict[str, n.Item]
    final_girls: dict[str, n.FinalGirl]
    killers: dict[str, n.Killer]
    scenarios: dict[str, n.Scenario]
    player_boards: dict[str, n.PlayerBoard]
    minions: dict[str, n.Minion]
    sources: dict[str, str]  # path -> text, for diagnostics with carets
    packs: dict[str, n.Pack] = attrs.field(factory=dict)  # pack id -> its declaration ("core": the bundled set)
    pack_of: dict[str, dict[str, str]] = attrs.field(factory=dict)  # table -> id -> pack id ("killers" -> …)
    caches: Caches = attrs.field(factory=Caches)  # compiled boards and setups (see Caches)
    modules: dict[str, n.Module] = attrs.field(factory=dict)  # switched on per game (LANGUAGE.md section 10)
    victim_kinds: dict[str, n.VictimKind] = attrs.field(factory=dict)  # declared in scenarios, killers, modules
    conveyances: dict[str, n.Conveyance] = attrs.field(factory=dict)  # pieces that travel with her, by id

    def player_board(self) -> n.PlayerBoard:
        return next(iter(self.player_boards.values()))

    def pack(self, table: str, id: str) -> str:
        """The pack that declares ``id`` in a table (``rs.pack("killers", k)``); "" if unknown."""
        return self.pack_of.get(table, {}).get(id, "")


def _files(paths: Iterable[Path]) -> list[Path]:
    """The .fg files under folders (links included, to be refused by ``refusal``), and files given."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.fg") if q.is_symlink() or not q.is_dir()))
        else:
            out.append(p)
    return out


def refusal(f: Path, root: Path) -> Optional[str]:
    """Why the file ``f`` found under the folder ``root`` is not read, or None to read it. Content
    is read only from regular files inside the folder it is loaded from: a link that leads out of
    it (to a system file, another user's pack), a device or a pipe is refused unread, so that no
    diagnostic can show a line from outside the folder."""
    try:
        real = f.resolve(strict=True)
        mode = real.stat().st_mode
    except (OSError, RuntimeError):  # a dangling link, a loop of links, no permission
        return "it cannot be opened (a broken link?)"
    if not _inside(real, [root.resolve()]):
        return f"it is a link to a file outside the folder {root}: content is read only from inside it"
    if not stat.S_ISREG(mode):
        return "it is not a regular file"
    return None


def content_files(paths: Iterable[Path]) -> tuple[list[Path], list[Diagnostic]]:
    """The .fg files of folders and files (folders searched), each once, and an E100 for each one
    refused (``refusal``); for ``lastbreath fmt``, which reads and writes files but loads no packs."""
    out: list[Path] = []
    refused: list[Diagnostic] = []
    seen: set[Path] = set()
    for p in paths:
        p = Path(p)
        for f in _files([p]):
            why = refusal(f, p if p.is_dir() else p.parent)
            if why is not None:
                refused.append(_refused(f, why))
                continue
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out, refused


def _refused(f: Path, why: str) -> Diagnostic:
    return Diagnostic(Span(str(f), 1, 1, 1, 2), "E100", f"the file is not read: {why}")


def pack_id_for(folder: Path) -> str:
    """The pack id of a folder without pack.fg: its name in kebab-case (``Fan_Killer`` -> ``fan-killer``)."""
    word = re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")
    return word if word[:1].isalpha() else f"pack-{word}".rstrip("-")


def _inside(path: Path, folders: list[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def _pack_folder(f: Path, root: Path) -> tuple[Path, bool]:
    """The folder a file's pack stands in, and whether it holds a pack.fg."""
    for d in f.parents:
        if (d / PACK_FILE).is_file():
            return d, True
    return root, False


def _assign_packs(paths: list[Path], texts: Optional[Mapping[str, str]] = None,
                  ) -> tuple[list[Path], dict[Path, Optional[Path]], list[Diagnostic]]:
    """Every file to load (without repeats, each pack's pack.fg included), the folder of its
    pack (resolved; None: the bundled pack), and an E100 for each file refused unread (``refusal``).
    A file whose text is given (``texts``: an editor's) is not read, and so never refused."""
    given_texts = texts or {}

    def refused_why(f: Path, root: Path) -> Optional[str]:
        return None if str(f) in given_texts else refusal(f, root)

    bundled = [Path(p).resolve() for p in bundled_paths()]
    files: list[Path] = []
    folder_of: dict[Path, Optional[Path]] = {}
    seen: set[Path] = set()
    refused: list[Diagnostic] = []

    def add(f: Path, folder: Optional[Path], root: Path) -> bool:
        """Add the file unless it was added before; False if it is refused (not read)."""
        why = refused_why(f, root)
        if why is not None:
            if f not in seen:
                seen.add(f)
                refused.append(_refused(f, why))
            return False
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            files.append(f)
            folder_of[f] = folder
        return True

    for p in paths:
        given = p if p.is_dir() else p.parent
        root = given.resolve()
        for f in _files([p]):
            if refused_why(f, given) is not None:
                add(f, None, given)  # reported
                continue
            if _inside(f.resolve(), bundled):
                add(f, None, given)
                continue
            folder, declared = _pack_folder(f.resolve(), root)
            add(f, folder, given)
            if declared:  # the pack.fg too, named from the path given when it is inside it
                add(given / folder.relative_to(root) / PACK_FILE if _inside(folder, [root]) else folder / PACK_FILE,
                    folder, folder)
    return files, folder_of, refused


@attrs.frozen(eq=False)
class BuiltFile:
    """A file built: its declarations, the names they use, its diagnostics; ``parsed``: whether the
    text read as lines at all (when not, its diagnostics are the syntax errors, and nothing else)."""

    decls: list
    refs: list[Ref]
    diags: list[Diagnostic]
    parsed: bool


# builds a file's text another way (an editor: a part at a time, kept between edits); None: as usual
FileBuilder = Callable[[str, str], Optional[BuiltFile]]


@attrs.frozen(eq=False)
class Analysis:
    """What loading content found, errors or not: the declarations of every file, the names they
    use, the tables of the checker (``check_content``), the packs and every diagnostic. ``load_content``
    makes a Ruleset of it when there is no error; editors read it as it is (dsl/editing.py)."""

    decls: list  # the declarations of every file (packs aside), in the order loaded
    refs: list[Ref]
    diags: list[Diagnostic]  # sorted by place, capped per file (cap_per_file)
    tables: dict  # the checker's tables (table -> id -> declaration): "cards", "killers", … and "pack_of"
    packs: dict[str, n.Pack]
    file_pack: dict[str, str]  # path -> pack id
    sources: dict[str, str]  # path -> text of every file read
    file_decls: dict[str, list]  # path -> the declarations built from it (its pack declaration too)


def load_content(paths: Optional[Iterable[Path | str]] = None,
                 sources: Optional[dict[str, str]] = None) -> tuple[Optional[Ruleset], list[Diagnostic]]:
    """Parse, build and check all content; the Ruleset is None when there are errors. ``sources``,
    if given, is filled with the text of every file read (path -> text): the lines diagnostics
    may show, and the only ones (a file refused unread has none)."""
    got = analyse(paths, sources)
    if any(d.severity == "error" for d in got.diags):
        return None, got.diags
    return Ruleset(sources=got.sources, packs=got.packs, **got.tables), got.diags


def analyse(paths: Optional[Iterable[Path | str]] = None, sources: Optional[dict[str, str]] = None,
            texts: Optional[Mapping[str, str]] = None, builder: Optional[FileBuilder] = None) -> Analysis:
    """Parse, build and check all content (``load_content``), keeping all that was found. ``texts``:
    path -> the text to read for that file instead of the file's (an editor's unsaved changes);
    ``builder``: builds a file's text instead of the cache and the builder, where it gives a result
    (an editor keeps the parts of open files between edits). Files so built or read are not put in
    the cache."""
    files, folder_of, refused = _assign_packs([Path(p) for p in paths] if paths is not None else bundled_paths(),
                                              texts)
    decls: list = []
    refs: list[Ref] = []
    diags: list[Diagnostic] = list(refused)
    sources_: dict[str, str] = {} if sources is None else sources
    declared: dict[Path, list[n.Pack]] = {}
    parsed: set[str] = set()
    file_decls: dict[str, list] = {}
    spent: dict[Path, int] = {}  # words, symbols and line ends read in each pack's files (MAX_PACK_TOKENS)
    for f in files:
        given = texts.get(str(f)) if texts is not None else None
        text, d = (given, []) if given is not None else read_file(f)
        folder = folder_of.get(f)
        if not d and folder is not None:  # a pack from anyone (the bundled content is none): bounded in all
            used = spent[folder] = spent.get(folder, 0) + count_tokens(text, MAX_PACK_TOKENS)
            if used > MAX_PACK_TOKENS:
                d = [Diagnostic(Span(str(f), 1, 1, 1, 2), "E105", f"the pack has more than {MAX_PACK_TOKENS} words, "
                                "symbols and line ends in all its files: this file is not read",
                                "split it into several packs")]
        built = builder(str(f), text) if builder is not None and not d else None
        cached = load_built(str(f), text) if not d and built is None and given is None else None
        if built is not None:  # built by the editor
            got, r, d2 = built.decls, built.refs, built.diags
            if not built.parsed:
                sources_[str(f)] = text
                diags.extend(d2)
                continue
        elif cached is not None:  # a clean file built before, from the same text and the same language
            got, r, d2 = cached[0], cached[1], cast("list[Diagnostic]", [])
        else:
            from .build import build_file  # (a file not in the cache: the builder loads now)

            if not d:
                lines, d = parse_text(text, str(f))
            if d:
                sources_[str(f)] = text  # "" for a file that could not be read
                diags.extend(d)
                continue
            got, r, d2 = build_file(lines, str(f), text)
            if not d2 and given is None:
                store_built(str(f), text, list(got), list(r))
        sources_[str(f)] = text
        parsed.add(str(f))
        file_decls[str(f)] = list(got)
        for decl in got:
            if not isinstance(decl, n.Pack):
                decls.append(decl)
            elif f.name != PACK_FILE or (folder := folder_of[f]) is None:
                diags.append(Diagnostic(decl.span, "E210", f"the pack '{decl.id}' is declared outside a pack.fg",
                                        "a pack is declared in the file pack.fg at the top of its folder"))
            else:
                declared.setdefault(folder, []).append(decl)
        refs.extend(r)
        diags.extend(d2)
    packs, file_pack, d4 = _packs(files, folder_of, declared, parsed)
    diags.extend(d4)
    tables, d3 = check_content(decls, refs, packs, file_pack)
    diags.extend(d3)
    diags.sort(key=lambda d: (d.span.path, d.span.line, d.span.col))
    return Analysis(decls, refs, cap_per_file(diags), tables, packs, file_pack, sources_, file_decls)


def _packs(files: list[Path], folder_of: dict[Path, Optional[Path]], declared: dict[Path, list[n.Pack]],
           parsed: set[str]):
    """Pack id of every file, the pack declarations, and the problems with them (``parsed``: the
    files without syntax errors)."""
    diags: list[Diagnostic] = []
    packs: dict[str, n.Pack] = {}
    where: dict[str, Path] = {}  # pack id -> its folder
    file_pack: dict[str, str] = {}
    id_of: dict[Path, str] = {}
    for f in files:
        folder = folder_of[f]
        if folder is None:
            if CORE not in packs:
                packs[CORE] = n.Pack(Span("<bundled>", 0, 0, 0, 0), CORE, "Final Girl core (bundled)", "", "", ())
            file_pack[str(f)] = CORE
            continue
        if folder not in id_of:
            decls = declared.get(folder, [])
            pack_fg = next((str(g) for g in files if g.name == PACK_FILE and folder_of[g] == folder), "")
            if not decls and pack_fg in parsed:
                diags.append(Diagnostic(Span(pack_fg, 1, 1, 1, 2), "E202", "this pack.fg declares no pack",
                                        f"add 'pack {pack_id_for(folder)} {{ name \"…\" }}'"))
            for extra in decls[1:]:
                diags.append(Diagnostic(extra.span, "E206", "a pack.fg declares one pack",
                                        f"the first is at line {decls[0].span.line}"))
            decl = decls[0] if decls else n.Pack(Span(str(folder), 0, 0, 0, 0), pack_id_for(folder), folder.name,
                                                 "", "", (CORE,))
            span = decl.span if decls else Span(str(f), 1, 1, 1, 2)
            if decl.id == CORE:
                diags.append(Diagnostic(span, "E203", f"the pack id '{CORE}' belongs to the bundled content",
                                        "choose another id" + ("" if decls else f": add a {PACK_FILE}")))
            elif decl.id in where:
                diags.append(Diagnostic(span, "E203", f"two folders are the pack '{decl.id}': {where[decl.id]} and "
                                        f"{folder}", f"give one a {PACK_FILE} with another id"))
            else:
                packs[decl.id] = decl
                where[decl.id] = folder
            id_of[folder] = decl.id
        file_pack[str(f)] = id_of[folder]
    return packs, file_pack, diags


def load_ruleset(paths: Optional[Iterable[Path | str]] = None) -> Ruleset:
    """Load content or raise ContentError with every diagnostic."""
    rs, diags = load_content(paths)
    if rs is None:
        raise ContentError([d for d in diags if d.severity == "error"])
    return rs
