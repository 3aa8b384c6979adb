"""The design page's methods (``lastbreath web`` only): edit a content file, check it, render it, play it, simulate it.

The page asks for the content files it may open (``design.files``: the bundled ones and those of
the packs given with ``--content``, nothing else on the machine), one file's text
(``design.open``), and, as its text is edited, the checker's diagnostics for it with the English
rendering of what it declares (``design.check``). ``design.play`` opens a game with the edited
content in the connection's server (then played with ``game.*`` as any other), and
``design.simulate`` plays a batch of bot games with it; the page asks batch after batch to show
its progress, and gives the totals back so that the reply has the win rate's 95% Wilson interval
over all of them.

The edited text is checked as the file it replaces: a bundled file's text is loaded with the rest
of the bundled content as a pack of its own (``design``); a pack's file with a copy of its pack.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

from lastbreath.dsl import ContentError, RulesError, bundled_paths
from lastbreath.dsl.ruleset import Analysis, Ruleset, analyse, content_files, load_content
from lastbreath.dsl.syntax import MAX_BYTES

from .serve import BAD_POSITION, INVALID_PARAMS, MAX_SEED, RpcError, Server
from .serve import check_params as _params
from .serve import game_view as _view
from .serve import start_error as _stopped
from .session import Session

__all__ = ["NAMES", "Design", "methods", "render_index"]

NAMES = ("design.files", "design.open", "design.check", "design.play", "design.simulate")  # the methods
MAX_BATCH_GAMES = 500  # games one design.simulate plays
MAX_DIAGNOSTICS = 200  # diagnostics of the file in one reply


class Design:
    """The content files a page may open, and a scratch folder where edited texts are checked."""

    def __init__(self, packs: list[Path], scratch: Optional[Path] = None) -> None:
        self.roots: list[tuple[str, Path, bool]] = [(p.name, p.resolve(), True) for p in bundled_paths()]
        self.roots += [(p.name, p.resolve(), False) for p in packs]
        if scratch is not None:  # a folder of the caller's, removed by it (the input fuzzer's)
            scratch.mkdir(parents=True, exist_ok=True)
        self.scratch = scratch if scratch is not None else Path(tempfile.mkdtemp(prefix="lastbreath-design-"))
        self._last: Optional[tuple[str, str, Optional[Ruleset], list]] = None

    def files(self) -> list[dict[str, Any]]:
        out = []
        for label, root, bundled in self.roots:
            for f in content_files([root])[0] if root.is_dir() else [root]:
                rel = f.resolve().relative_to(root) if root.is_dir() else Path(f.name)
                out.append({"file": f"{label}/{rel.as_posix()}" if root.is_dir() else label,
                            "bundled": bundled})
        return out

    def _find(self, name: str) -> tuple[Path, Path, bool]:
        """(the file, its root, bundled) of a name ``design.files`` gave."""
        for label, root, bundled in self.roots:
            if root.is_dir() and name.startswith(label + "/"):
                f = (root / name[len(label) + 1:]).resolve()
                if root in f.parents and f.is_file() and f.suffix == ".fg":
                    return f, root, bundled
            elif not root.is_dir() and name == label:
                return root, root.parent, bundled
        raise RpcError(INVALID_PARAMS, f"no content file '{name}' (design.files lists them)", {"param": "file"})

    def load(self, name: str, text: str) -> tuple[Optional[Ruleset], list, Path]:
        """The content loaded with ``text`` in place of the file ``name``: (ruleset or None, diagnostics,
        the path the text was checked under)."""
        if len(text) > MAX_BYTES:
            raise RpcError(INVALID_PARAMS, f"param 'text' is longer than {MAX_BYTES} characters (a content file's "
                           "limit)", {"param": "text"})
        if self._last is not None and self._last[:2] == (name, text):
            return self._last[2], self._last[3], self._path(name)
        f, root, bundled = self._find(name)
        work = self.scratch / "design"
        if work.exists():
            shutil.rmtree(work)
        if bundled:  # read in place of the file, which stays in the bundled pack (the Vehicles module names
            # the bundled scenarios: from a pack of its own, an edited scenario was refused with E212)
            target = self._path(name)
            rs, diags = _loaded(analyse(bundled_paths(), texts={str(target): text}))
            self._last = (name, text, rs, diags)
            return rs, diags, target
        else:
            if root.is_dir() and f.parent != root.parent:
                shutil.copytree(root if root.is_dir() else root.parent, work)
                target = work / f.relative_to(root)
            else:
                work.mkdir(parents=True)
                target = work / f.name
            paths: list[Path] = [*bundled_paths(), *[r for _lbl, r, b in self.roots if not b and r != root], work]
        target.write_text(text, encoding="utf-8")
        rs, diags = load_content(paths)
        self._last = (name, text, rs, diags)
        return rs, diags, target

    def _path(self, name: str) -> Path:
        """The path the text of ``name`` is checked under: a bundled file's own (as the loader lists it),
        else its copy in the scratch folder."""
        f, root, bundled = self._find(name)
        if bundled:
            return next(p for p in content_files(bundled_paths())[0] if p.resolve() == f)
        work = self.scratch / "design"
        return work / f.name if not root.is_dir() else work / f.relative_to(root)

    def check(self, name: str, text: str) -> dict[str, Any]:
        rs, diags, target = self.load(name, text)
        here = str(target)
        mine = [d for d in diags if d.span.path == here]
        elsewhere = [d for d in diags if d.span.path != here and d.severity == "error"]
        rows = []
        for d in mine[:MAX_DIAGNOSTICS]:
            row = d.to_json()
            row["path"] = name
            rows.append(row)
        rendered = []
        if rs is not None:
            from lastbreath.dsl.render import Names, render

            names = Names.from_ruleset(rs)
            for kind, eid, decl in render_index(rs):
                span = getattr(decl, "span", None)
                if span is not None and span.path == here:
                    try:
                        text_of = render(decl, names)
                    except Exception:  # a declaration the renderer cannot say: named only
                        text_of = getattr(decl, "name", eid)
                    rendered.append({"kind": kind, "id": eid, "name": getattr(decl, "name", eid), "text": text_of})
        return {"file": name, "ok": rs is not None, "diagnostics": rows, "errors_elsewhere": len(elsewhere),
                "render": rendered,
                "content": _content_rows(rs) if rs is not None else None}

    def ruleset(self, name: str, text: str) -> Ruleset:
        rs, diags, _target = self.load(name, text)
        if rs is None:
            raise RpcError(BAD_POSITION, "the content does not check: fix its errors first",
                           {"diagnostics": [d.to_json() for d in diags if d.severity == "error"][:100]})
        return rs


def _loaded(got: Analysis) -> tuple[Optional[Ruleset], list]:
    """The ruleset of an analysis (None where it has errors) and its diagnostics, as ``load_content``."""
    if any(d.severity == "error" for d in got.diags):
        return None, got.diags
    return Ruleset(sources=got.sources, packs=got.packs, **got.tables), got.diags


def render_index(rs: Ruleset, top_level: bool = False) -> list[tuple[str, str, object]]:
    """(kind, id, declaration) of everything ``render`` shows, in content order.

    Top level: cards (not owned by a killer or scenario), items (not inside a scenario), Final Girls,
    killers, scenarios, player boards and minions (not inside a killer). Unless ``top_level``, also
    the nested ones: each killer's finales, dark powers, terror cards, minions, cards, decks and deck
    cards, tokens and actions; each scenario's setup cards, items, events, terror cards, cards, decks
    and deck cards, tokens and actions.
    """
    from lastbreath.dsl.render import KIND_NAMES

    nested = {id(x) for s in (*rs.scenarios.values(), *rs.killers.values()) for x in getattr(s, "items", ())}
    nested |= {id(x) for k in rs.killers.values() for x in k.minions}
    nested |= {id(x) for o in (*rs.killers.values(), *rs.scenarios.values()) for x in getattr(o, "cards", ())}
    out: list[tuple[str, str, object]] = []
    for table in (rs.cards, rs.items, rs.final_girls, rs.killers, rs.scenarios, rs.player_boards, rs.minions,
                  rs.modules):
        out += [(KIND_NAMES[type(d)], d.id, d) for d in table.values() if id(d) not in nested]
    if top_level:
        return out
    parts = {"killer": ("finales", "dark_powers", "terror", "minions", "cards", "decks", "tokens", "actions", "items",
                        "recipes", "piles"),
             "scenario": ("setups", "items", "events", "terror", "cards", "decks", "tokens", "actions", "recipes",
                          "piles")}
    for owner in (*rs.killers.values(), *rs.scenarios.values()):
        for attr in parts[KIND_NAMES[type(owner)]]:
            for d in getattr(owner, attr, ()):
                out.append((KIND_NAMES[type(d)], d.id, d))
                out += [(KIND_NAMES[type(c)], c.id, c) for c in getattr(d, "cards", ())]  # a deck's cards
    return out


def _content_rows(rs: Ruleset) -> dict[str, list[dict[str, str]]]:
    return {t: [{"id": k, "name": getattr(getattr(rs, t)[k], "name", k)} for k in sorted(getattr(rs, t))]
            for t in ("killers", "scenarios", "final_girls")}


SETUP = {"killer": (str, False), "scenario": (str, False), "final_girl": (str, False), "difficulty": (str, False),
         "seed": (int, False)}


def methods(packs: list[Path], scratch: Optional[Path] = None) -> dict[str, Callable[[Server], Callable[[Any], Any]]]:
    """The design methods, each made for a connection's server (``scratch``: the folder edited texts
    are checked in; a temporary one by default)."""
    design = Design(packs, scratch)

    def files(server: Server) -> Callable[[Any], Any]:
        def run(params: Any) -> Any:
            _params(params, {})
            return {"files": design.files()}
        return run

    def open_(server: Server) -> Callable[[Any], Any]:
        def run(params: Any) -> Any:
            p = _params(params, {"file": (str, True)})
            f, _root, _b = design._find(p["file"])
            return {"file": p["file"], "text": f.read_text(encoding="utf-8")}
        return run

    def check(server: Server) -> Callable[[Any], Any]:
        def run(params: Any) -> Any:
            p = _params(params, {"file": (str, True), "text": (str, True)})
            return design.check(p["file"], p["text"])
        return run

    def play(server: Server) -> Callable[[Any], Any]:
        def run(params: Any) -> Any:
            p = _params(params, {"file": (str, True), "text": (str, True), **SETUP})
            rs = design.ruleset(p["file"], p["text"])
            seed = p.get("seed", 1)
            if not -MAX_SEED <= seed <= MAX_SEED:
                raise RpcError(INVALID_PARAMS, "param 'seed' is out of range", {"param": "seed"})
            server._room()
            try:
                s = Session(rs, killer=p.get("killer"), scenario=p.get("scenario"), final_girl=p.get("final_girl"),
                            difficulty=p.get("difficulty", "normal"), seed=seed)
            except RulesError as err:
                raise _stopped(err) from None
            gid = server._add(s)
            return {**_view(gid, s), "seed": s.seed, "setup": s.options}
        return run

    def simulate(server: Server) -> Callable[[Any], Any]:
        def run(params: Any) -> Any:
            from .simulate import play_one, wilson

            p = _params(params, {"file": (str, True), "text": (str, True), **SETUP, "games": (int, False),
                                 "bot": (str, False), "wins_before": (int, False), "games_before": (int, False)})
            games = p.get("games", 50)
            if not 1 <= games <= MAX_BATCH_GAMES:
                raise RpcError(INVALID_PARAMS, f"param 'games' must lie within 1..{MAX_BATCH_GAMES}",
                               {"param": "games"})
            bot = p.get("bot", "random")
            if bot not in ("random", "greedy", "first"):
                raise RpcError(INVALID_PARAMS, f"unknown bot '{bot}'", {"param": "bot"})
            rs = design.ruleset(p["file"], p["text"])
            seed = p.get("seed", 1)
            if not 0 <= seed <= MAX_SEED - MAX_BATCH_GAMES:
                raise RpcError(INVALID_PARAMS, "param 'seed' is out of range", {"param": "seed"})
            setup = {k: p[k] for k in ("killer", "scenario", "final_girl", "difficulty") if k in p}
            try:
                Session(rs, seed=seed, **setup)  # an unknown id: said once, not per game
            except (RulesError, ContentError) as err:
                raise _stopped(err) from None
            wins = errors = 0
            for i in range(games):
                rec = play_one(rs, setup, seed + i, bot)
                wins += rec.result == "fg"
                errors += rec.error != ""
            total_w = wins + max(0, p.get("wins_before", 0))
            total_n = games + max(0, p.get("games_before", 0))
            low, high = wilson(total_w, total_n)
            return {"games": games, "wins": wins, "errors": errors, "total_games": total_n, "total_wins": total_w,
                    "win_rate": total_w / total_n, "interval": [low, high]}
        return run

    return dict(zip(NAMES, (files, open_, check, play, simulate)))
