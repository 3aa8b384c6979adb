"""The engine's rules modules compiled to C with mypyc: the same code, faster, where it was built.

``lastbreath native build`` compiles the rules modules of ``interpreter/engine`` (those of
``compiled_modules()``) with mypyc, the compiler that ships with mypy, into the cache folder (dsl/cache.py:
``LASTBREATH_CACHE``, else ``~/.cache/lastbreath``), under a key made of the source it depends on (the
compiled modules and every module they import, followed from module to module: ``depends_on``) and the
Python that built it.
From then on, importing the engine (``install``, called first thing by ``interpreter/engine``)
loads the compiled modules in place of their source, as long as the key still matches: a source
it depends on changed by one byte, another Python, or ``LASTBREATH_NATIVE=off`` means the plain modules, as
without a build. Nothing else changes: the compiled modules are the same source, so games, events,
saves and replays are the same (tests/test_native.py plays games both ways and compares them).

Every module of ``interpreter/engine`` is compiled. The working copy (working.Work) is then a
class with a slot per field rather than a ``__dict__`` handed to the state and back: see its docstring.
Those fields are generated from GameState's (interpreter/fieldgen.py): a build refuses stale ones.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

_ROOT = Path(__file__).resolve().parent.parent  # the package's folder (dsl/, interpreter/)
_PACKAGE = __name__.split(".")[0]  # "lastbreath"
ENGINE = f"{_PACKAGE}.interpreter.engine"

# the engine's modules compiled: every rules module of interpreter/engine but those named in _LEFT_OUT
_LEFT_OUT: dict[str, str] = {}  # none now (a module left out would be named here, with why)
MANIFEST = "manifest.json"
KEEP_BUILDS = 3  # builds kept in the cache folder, this one included (one per source built: they pile up)
BUILD_TIMEOUT = 1800  # seconds: a build that takes longer is stopped (a normal one takes a minute or two)


def compiled_modules() -> list[str]:
    """The names of the engine modules a build compiles, in file order."""
    return [f"{ENGINE}.{p.stem}" for p in sorted((_ROOT / "interpreter" / "engine").glob("*.py"))
            if p.stem != "__init__" and p.stem not in _LEFT_OUT]


def _sources() -> list[Path]:
    return sorted([*(_ROOT / "dsl").rglob("*.py"), *(_ROOT / "interpreter").rglob("*.py")])


def _module_file(name: str) -> Optional[Path]:
    """The source file of a module of this package (``lastbreath.x.y``), or None: a package's
    ``__init__.py`` before a module file of the same name, as Python loads them."""
    parts = name.split(".")[1:]
    if not parts:
        return None
    folder = _ROOT.joinpath(*parts)
    for f in (folder / "__init__.py", folder.with_suffix(".py")):
        if f.is_file():
            return f
    return None


def _imports(module: str, f: Path) -> set[str]:
    """The modules of this package that the source of ``module`` (file ``f``) imports, anywhere in
    it (in functions, under ``if TYPE_CHECKING``, in ``try``): absolute (``lastbreath.…``) and
    relative ones, and names imported from a package that may be modules of their own. Read from
    Python's own syntax tree, so every way of writing an import is read (the cost, ~3 ms a file,
    falls on building and on ``status``: importing the engine reads a build's manifest instead)."""
    import ast

    package = module if f.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    try:
        tree = ast.parse(f.read_bytes(), filename=str(f))
    except (SyntaxError, ValueError):  # a file that does not parse: it may import anything of the package
        return {".".join((_PACKAGE, *p.relative_to(_ROOT).with_suffix("").parts)) for p in _sources()}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                if node.level - 1 >= len(up):
                    continue
                base = ".".join([*up[:len(up) - node.level + 1], *filter(None, [base])])
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    return {n for n in found if n.split(".")[0] == _PACKAGE}


def depends_on() -> list[Path]:
    """The source files a build depends on: the compiled modules, what they import (following
    imports from module to module), the packages' ``__init__`` files on the way, and this file
    (how a build is made). A change elsewhere (the command line, the server, the simulator) leaves
    a build in use."""
    todo = [*compiled_modules(), ENGINE, __name__]
    seen: set[str] = set()
    files: set[Path] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(2, len(parts)))  # the packages on the way
        f = _module_file(name)
        if f is None:
            continue  # a name imported from a module, not a module
        files.add(f)
        todo.extend(_imports(name, f))
    return sorted(files)


def _source_names() -> list[str]:
    """``depends_on()`` as paths under the package's folder (as a manifest names them)."""
    return [p.relative_to(_ROOT).as_posix() for p in depends_on()]


def key() -> str:
    """What a build depends on: the source it compiles and what that imports (``depends_on``), and
    the Python running."""
    return _digest(_source_names())


def _digest(sources: list[str], root: Optional[Path] = None) -> str:
    """A hash of the Python running and of these source files (paths under the package's folder,
    or under ``root``)."""
    root = _ROOT if root is None else root
    h = hashlib.sha256()
    h.update(f"{sys.implementation.cache_tag} {sys.version} {importlib.machinery.EXTENSION_SUFFIXES[0]}".encode())
    for rel in sources:
        h.update(rel.encode())
        h.update((root / rel).read_bytes())
    return h.hexdigest()[:24]


MAX_SOURCES = 1000  # source files a build's manifest may name (a manifest is read from outside)


def _current(base: Path) -> Optional[Path]:
    """The build in ``base`` for this very source, or None: one whose manifest names the files it
    was built from and whose name is still their hash. (Cheaper than ``key()``, which follows the
    imports: importing the engine reads the few builds kept and hashes the files each names.)"""
    def newest_first(d: Path) -> float:
        try:
            return -d.stat().st_mtime
        except OSError:  # (removed meanwhile: tried last, and then not found)
            return 0.0

    # a build depends at least on the files it compiles and on how it was made
    need = {"interpreter/native.py", *(f"interpreter/engine/{m.rsplit('.', 1)[1]}.py" for m in compiled_modules())}
    for d in sorted((d for d in base.iterdir() if d.is_dir() and not d.name.startswith(".")), key=newest_first):
        try:
            sources = json.loads((d / MANIFEST).read_text(encoding="utf-8"))["sources"]
            if not (isinstance(sources, list) and 0 < len(sources) <= MAX_SOURCES and all(
                    isinstance(r, str) and r.endswith(".py") and ".." not in r.split("/") and not r.startswith("/")
                    for r in sources) and need <= set(sources)):
                continue
            if _digest(sources) == d.name and _manifest_files(d) is not None:
                return d
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return None


def _folder(create: bool = False) -> Optional[Path]:
    """The builds' folder in the language's cache folder (LASTBREATH_CACHE); made only to build
    (importing the engine writes nothing)."""
    from ..dsl.cache import folder, location

    base = folder() if create else location()
    return None if base is None else base / "native"


def enabled() -> bool:
    """``LASTBREATH_NATIVE`` is not off (off, 0, no, false: the plain modules, built or not)."""
    return os.environ.get("LASTBREATH_NATIVE", "").lower() not in ("off", "0", "no", "false")


# --- loading --------------------------------------------------------------------------------------
class _Finder:
    """Finds the compiled engine modules of one build (and the library they share) by name (a meta
    path finder: ``find_spec`` is all it needs; importlib.abc costs ~10 ms of every start-up)."""

    def __init__(self, files: dict[str, Path]):
        self.files = files

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        f = self.files.get(fullname)
        if f is None:
            return None
        return importlib.util.spec_from_file_location(fullname, f)


_installed: Optional[_Finder] = None


def install() -> Optional[Path]:
    """Load the compiled modules from here on, if a build for this very source and Python exists
    (and ``LASTBREATH_NATIVE`` is not off); the build's folder, or None (the plain modules)."""
    global _installed
    if _installed is not None:
        return next(iter(_installed.files.values())).parent if _installed.files else None
    if not enabled():
        return None
    try:
        base = _folder()
        if base is None or not base.is_dir():
            return None  # (no build at all: the source is not even read)
        where = _current(base)
    except OSError:  # an unreadable cache folder or source: the plain modules (importing never fails here)
        return None
    if where is None:
        return None
    files = _manifest_files(where)
    if files is None:
        return None
    if any(name in sys.modules for name in files):  # too late for this process: keep what is loaded
        return None
    _installed = _Finder(files)
    sys.meta_path.insert(0, _installed)
    return where


def _manifest_files(where: Path) -> Optional[dict[str, Path]]:
    try:
        data = json.loads((where / MANIFEST).read_text(encoding="utf-8"))
        files = {str(name): where / str(rel) for name, rel in data["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not files or not all(f.is_file() and f.parent == where for f in files.values()):
        return None
    return files


def engine_kind() -> str:
    """Which engine this process runs: "compiled" (a build's modules loaded) or "plain"."""
    return "compiled" if loaded() else "plain"


def loaded() -> list[str]:
    """The engine modules running compiled in this process."""
    got = []
    for name, m in list(sys.modules.items()):
        spec = getattr(m, "__spec__", None)
        loader = getattr(spec, "loader", None)
        if name.startswith(ENGINE + ".") and isinstance(loader, importlib.machinery.ExtensionFileLoader):
            got.append(name)
    return sorted(got)


def status() -> dict[str, Any]:
    """What ``lastbreath native status`` reports."""
    base = _folder()
    sources = _source_names()
    k = _digest(sources)
    where = base / k if base is not None else None
    built = where is not None and _manifest_files(where) is not None
    return {"enabled": enabled(), "key": k, "folder": str(where) if where is not None else None,
            "built": built, "loaded": loaded(), "compiled": compiled_modules(), "left_out": dict(_LEFT_OUT),
            "sources": sources, "mypyc": importlib.util.find_spec("mypyc") is not None}


OFFERED = "native-offered"  # a file in the cache folder: 'play' has told the player a build is possible
BUILD_MINUTES = "about 1.5 minutes"  # 'lastbreath native build' on a two-core machine (measured; README)


def can_build() -> bool:
    """mypyc, setuptools, a C compiler and Python's headers are here: a build could be made."""
    import shutil
    import sysconfig

    if importlib.util.find_spec("mypyc") is None or importlib.util.find_spec("setuptools") is None:
        return False
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None and Path(sysconfig.get_paths()["include"], "Python.h").is_file()


def offer() -> str:
    """What ``play`` tells the player, once per cache folder: this process runs the plain engine
    while a compiled one could be built here (README, 'Set up and play'). "" when it is compiled,
    ``LASTBREATH_NATIVE`` is off, no build is possible, there is no cache folder, or it was said."""
    if not enabled() or loaded():
        return ""
    from ..dsl.cache import folder

    root = folder()
    if root is None or (root / OFFERED).exists() or not can_build():
        return ""
    try:
        (root / OFFERED).write_text("play has said once that 'lastbreath native build' makes a faster engine\n",
                                    encoding="utf-8")
    except OSError:
        return ""
    return (f"a faster engine can be built here: 'lastbreath native build' compiles it once ({BUILD_MINUTES} on a "
            "two-core machine), and games then run about 1.8× as fast (this note is shown once)")


# --- building -------------------------------------------------------------------------------------
class BuildError(Exception):
    """A build that could not be made (no mypyc, no C compiler, a compile error): the plain modules stay."""


_MYPY_INI = "[mypy]\nignore_missing_imports = True\n"
_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
paths = sys.argv[1:]
setup(name="lastbreath-native", ext_modules=mypycify(paths, opt_level="3"),
      script_args=["build_ext", "--build-lib", "out", "--build-temp", "tmp"])
"""


def build(progress: Callable[[str], None] = lambda _msg: None, timeout: float = BUILD_TIMEOUT) -> dict[str, Any]:
    """Compile the modules of ``compiled_modules`` into the cache folder (kept by key: a build for
    the same source is not made again). Raises BuildError with what went wrong."""
    import shutil
    import subprocess
    import tempfile
    import time
    if importlib.util.find_spec("mypyc") is None:
        raise BuildError("mypyc is not installed: it comes with mypy (pip install mypy)")
    if importlib.util.find_spec("setuptools") is None:
        raise BuildError("setuptools is not installed (pip install setuptools)")
    from . import fieldgen

    try:
        stale = fieldgen.stale()
    except (OSError, ValueError, SyntaxError) as err:
        raise BuildError(f"the working copy's generated fields cannot be checked: {err}") from None
    if stale:  # a compiled Work would lack a field of the state (or copy one that is gone)
        raise BuildError(f"{', '.join(p.name for p in stale)} differ from GameState's fields: "
                         "run python -m lastbreath.interpreter.fieldgen, then build")
    base = _folder(create=True)
    if base is None:
        raise BuildError("no cache folder to build into (LASTBREATH_CACHE is off, or the folder cannot be made)")
    sources = _source_names()
    k = _digest(sources)
    where = base / k
    if _manifest_files(where) is not None:
        progress(f"already built for this source: {where}")
        return {"folder": str(where), "key": k, "built": False, "modules": compiled_modules(), "seconds": 0.0}
    t0 = time.monotonic()
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lastbreath-native-") as tmp:
        stage = Path(tmp) / "src"
        pkg = stage / _PACKAGE
        for p in _sources():  # the package's Python source, as a package of its own (mypyc names modules by folder)
            dest = pkg / p.relative_to(_ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
        if _digest(sources, pkg) != k:  # what is compiled is what the key names
            raise BuildError("the source changed while it was being copied for the build: build again")
        for d in [pkg, *(q for q in pkg.rglob("*") if q.is_dir())]:
            (d / "__init__.py").touch(exist_ok=True)
        (stage / "mypy.ini").write_text(_MYPY_INI, encoding="utf-8")  # libraries without type information
        names = compiled_modules()
        paths = [str(Path(*name.split(".")).with_suffix(".py")) for name in names]
        progress(f"compiling {len(names)} modules with mypyc (a minute or two)")
        try:
            done = subprocess.run([sys.executable, "-c", _SETUP, *paths], cwd=stage, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            raise BuildError(f"the build took more than {timeout:.0f} s and was stopped") from None
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise BuildError(f"mypyc failed (exit {done.returncode}):\n{tail}")
        out = stage / "out"
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        built: dict[str, Path] = {}  # module name -> the file made for it
        for p in out.rglob("*"):
            if p.is_file() and p.name.endswith(suffixes):
                rel = p.relative_to(out)
                built[".".join((*rel.parent.parts, rel.name.split(".")[0]))] = p
        # one flat folder: a module's file named by its whole name (the library they share keeps its own)
        files = {name: p.name if p.parent == out else f"{name}{''.join(p.suffixes)}" for name, p in built.items()}
        missing = [n for n in names if n not in files]
        if missing:
            raise BuildError(f"the build made no module for {', '.join(missing)}")
        ready = Path(tempfile.mkdtemp(prefix=f".{k}-", dir=base))
        for name, p in built.items():
            shutil.copyfile(p, ready / files[name])
        (ready / MANIFEST).write_text(json.dumps({"key": k, "python": sys.version, "files": files,
                                                  "sources": sources}, indent=1), encoding="utf-8")
        try:
            ready.rename(where)  # whole or not at all (another build of the same key may have won the race)
        except OSError:
            shutil.rmtree(ready, ignore_errors=True)
    _prune(base, where)
    progress(f"built in {time.monotonic() - t0:.0f} s: {where}")
    return {"folder": str(where), "key": k, "built": True, "modules": names, "seconds": round(time.monotonic() - t0, 1)}


def _prune(base: Path, current: Path) -> list[Path]:
    """Remove the builds of older sources but the newest few (KEEP_BUILDS, ``current`` included)."""
    import shutil
    import time

    now = time.time()
    dirs = [(d, d.stat().st_mtime) for d in base.iterdir() if d.is_dir() and d != current]
    # a build being put in place (".KEY-…") is left alone, unless it is older than any build takes
    # (the leftover of a build that was stopped)
    stale = [d for d, t in dirs if d.name.startswith(".") and now - t > BUILD_TIMEOUT]
    others = [d for d, t in sorted(dirs, key=lambda e: e[1]) if not d.name.startswith(".")]
    gone = stale + others[:-KEEP_BUILDS + 1 or None]
    for d in gone:
        shutil.rmtree(d, ignore_errors=True)
    return gone


def clean(keep_current: bool = False) -> list[str]:
    """Remove the builds in the cache folder (all, or all but the one for this source)."""
    import shutil

    base = _folder()
    if base is None or not base.is_dir():
        return []
    k = key()
    gone = []
    for d in sorted(base.iterdir()):
        if d.is_dir() and not (keep_current and d.name == k):
            shutil.rmtree(d, ignore_errors=True)
            gone.append(str(d))
    return gone


def describe(info: dict[str, Any]) -> str:
    lines = [f"native engine: {'built' if info['built'] else 'not built'} for this source (key {info['key']})"]
    if info["folder"]:
        lines.append(f"  folder: {info['folder']}")
    if not info["enabled"]:
        lines.append("  LASTBREATH_NATIVE is off: the plain modules are used")
    lines.append(f"  running compiled in this process: {len(info['loaded'])} of {len(info['compiled'])} modules")
    lines.append(f"  depends on {len(info['sources'])} source files (a change to one needs a new build; "
                 "--json lists them)")
    if not info["mypyc"]:
        lines.append("  mypyc is not installed (it comes with mypy): `lastbreath native build` needs it")
    elif not info["built"]:
        lines.append("  `lastbreath native build` compiles them (a minute or two)")
    return "\n".join(lines)

