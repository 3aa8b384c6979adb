"""Where the language keeps what it computed once: the parser's tables and built content files.

Both live in the user's cache folder: ``LASTBREATH_CACHE`` if set (``off`` turns caching off),
else ``$XDG_CACHE_HOME/lastbreath``, else ``~/.cache/lastbreath``. A cache only ever saves time:
an entry is named by a hash of everything its value depends on (the file's path and text, and
the source of the language itself), is written whole or not at all, and anything wrong with it
(missing, unreadable, from another version) means computing afresh. Only clean files (no
diagnostic at all) are kept, so every message a file gives is always produced anew.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pickle
import re
import sys
import tempfile
from pathlib import Path
from typing import Optional

_HERE = Path(__file__).resolve().parent


def location() -> Optional[Path]:
    """Where the cache folder is (made or not); None when caching is off."""
    where = os.environ.get("LASTBREATH_CACHE", "")
    if where.lower() in ("off", "0", "no", "false"):
        return None
    return Path(where) if where else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lastbreath"


def folder() -> Optional[Path]:
    """The cache folder, made if needed; None when caching is off or the folder cannot be made."""
    base = location()
    if base is None:
        return None
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return base


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the language's own source (its Python modules and grammar): what a built file
    depends on besides its text."""
    h = hashlib.sha256()
    for f in sorted(_HERE.glob("*.py")) + [_HERE / "grammar.lark"]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    h.update(_lark_version().encode())
    return h.hexdigest()[:20]


def _lark_version() -> str:
    """lark's version, read from its package without importing it when it is not loaded yet
    (content found in the cache is not parsed: loading it need not load the parser)."""
    got = sys.modules.get("lark")
    if got is not None:
        return str(getattr(got, "__version__", ""))
    try:
        spec = importlib.util.find_spec("lark")
        if spec is not None and spec.origin:
            m = re.search(r"""^__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']""",
                          Path(spec.origin).read_text(encoding="utf-8"), re.M)
            if m:
                return m.group(1)
        import lark
    except (ImportError, OSError, ValueError):  # pragma: no cover - lark is a dependency
        return ""
    return str(lark.__version__)


def _entry(path: str, text: str) -> Optional[Path]:
    base = folder()
    if base is None:
        return None
    key = hashlib.sha256(f"{code_version()}\0{path}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return base / "built" / f"{key}.pickle"


def load_built(path: str, text: str) -> Optional[tuple[list, list]]:
    """The declarations and references a clean file built to, if a cache entry holds them."""
    entry = _entry(path, text)
    if entry is None or not entry.is_file():
        return None
    try:
        with entry.open("rb") as f:
            got = pickle.load(f)
    except Exception:
        return None
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], list) and isinstance(got[1], list)):
        return None
    return got


def store_built(path: str, text: str, decls: list, refs: list) -> None:
    """Keep what a clean file built to (written to a temporary file, then moved into place)."""
    entry = _entry(path, text)
    if entry is None:
        return
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump((decls, refs), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass


def parser_file(grammar: str, variant: str = "") -> Optional[str]:
    """Where Lark keeps a parser's tables for this grammar (it checks the hash as it loads); each
    variant (a parser with other start rules or options) has a file of its own."""
    base = folder()
    if base is None:
        return None
    try:
        import lark

        version = lark.__version__
    except ImportError:  # pragma: no cover
        version = ""
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    return str(base / f"grammar-{digest}{'-' + variant if variant else ''}-lark{version}.cache")


__all__ = ["code_version", "folder", "load_built", "location", "parser_file", "store_built"]
