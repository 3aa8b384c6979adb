"""Fuzzing the inputs: content, protocol messages and saves, mutated (``lastbreath fuzz-input``).

``fuzz.py`` plays legal games and checks the rules; this module feeds the three doors through
which anyone's data comes in with mutations of good data, and checks that nothing but the
documented errors comes out, quickly and in bounded memory::

    report = run(content=2000, protocol=2000, saves=2000, seed=0, jobs=2)
    report["crashes"], report["hangs"], report["worst_memory_mb"], report["failures"]

A case is a bundled content file, a protocol exchange or a save, mutated by a few operations
(``content_case``, ``protocol_case``, ``save_case``: pure functions of a ``random.Random``, so
case i of a seed is always the same; tests/test_hostile_fuzz.py draws the same operations with
Hypothesis). It runs in a worker process under a memory limit (RLIMIT_AS) and a time limit:

- content: the bundled content with the file replaced by its mutation is loaded
  (``load_content``: diagnostics, never an exception) and, if it loads, one game with a bot is
  played with the killer, scenario or Final Girl the file declares (a ``RulesError`` (E300) is a
  documented end);
- protocol: a ``Server`` with one open game and every method ``lastbreath web`` answers (``serve``'s
  and the design page's; ``messages`` has a good request of each) answers each line: a reply must be JSON text in UTF-8
  (no NaN, no lone surrogate), with a ``result`` or an ``error`` whose code docs/protocol.md
  documents, and never -32603 (an internal error is a bug);
- save: ``Session.load`` (replayed from the seed) and ``serialize.from_json`` of its snapshot may
  only raise ``SaveError``; a state that loads plays on with a bot for a few choices.

Anything else raised is a crash; a case that takes more than the time limit of CPU time (its own:
a loaded machine does not make hangs of slow cases) is a hang, and one still running after twice
the limit of CPU time, or ten times it of wall-clock time (a case blocked, not computing), is
killed and its worker replaced by one warmed up first (content loaded and built once, a game
played, a save loaded: a fresh worker's first case is not slower than the others). The peak
memory of the workers is reported (``ru_maxrss``), and a case that goes past the memory limit
dies of MemoryError: a crash.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import random
import shutil
import sys
import tempfile
import time
import traceback
from multiprocessing.connection import wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, cast

if TYPE_CHECKING:
    from .state import Choice

KINDS = ("content", "protocol", "saves", "positions")
# Crashes whose fix waits for an engine change (each has a strict xfail test in
# tests/test_hostile_engine.py): reported as "known", apart from the crashes. Remove an entry when
# its test passes.
KNOWN_ENGINE_ISSUES: tuple[tuple[str, str], ...] = ()
TIME_LIMIT = 5.0  # seconds of CPU time a case may take before it counts as a hang
WALL_FACTOR = 10  # … and of wall-clock time, this many times that (a case blocked without computing)
MEMORY_LIMIT_MB = 2048  # address space of a worker (RLIMIT_AS)

# --- hostile values ---------------------------------------------------------------------------------
NUMBERS = ("0", "-1", "1", "2", "6", "7", "20", "21", "50", "99", "100", "101", "1000", "999999", "1000000",
           "-999999", "2147483648", "9223372036854775808", "9" * 5000, "007", "+5", "-0")
SNIPPETS = ("{", "}", "(", ")", '"', "'", "\\", "\x00", "\ufeff", "é", "\u2019", "--", ";", "\n", "\r", "\t", "#",
            "repeat 20 { ", "repeat that { ", " lose 100 time ", " spawn 100 ", "} else { ", "if fear at least 3 { ",
            "when victim dies { ", "at start of upkeep { ", "0", "-", "3rd", "x" * 20_000, "{ " * 70, "( " * 70,
            " copies 20 ", " supply a 100 ", " health 100 ", " limit 100 ", " rule dice 10 ", " raise fear 100 ",
            " lower fear 100 ", " repeat 20 { repeat 5 { raise bloodlust 100 } } ", "\n" * 3000, "# " + "#" * 9000,
            "\ud800", " place 100 victims at here ", " kill 100 victims at here ", " turn 100 victims at here into ")


class Raw:
    """JSON text written as it is (NaN, 1e400, a 5 000-digit number, a lone-surrogate escape)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:40]!r})"


VALUES: tuple = (0, -1, 1, 2, 3, 5, 100, 2 ** 31, 2 ** 63, -(2 ** 63), 2 ** 64, 10 ** 100, 1.5, -0.0, 1e308, True,
                 False, None, "", "x" * 10_000, "g1", "g999", "end", "\x00", "é", "\U0001d11e", [], {}, [[[[[]]]]],
                 {"a": {"b": {"c": {}}}}, [0] * 1000, Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e400"),
                 Raw("-1e400"), Raw("9" * 5000), Raw('"\\ud800"'), Raw('"\\udfff"'), Raw('"\\ud800\\udc00"'),
                 Raw("[" * 3000 + "]" * 3000))
KEYS: tuple = ("id", "jsonrpc", "method", "params", "game", "key", "seed", "n", "save", "snapshot", "killer", "x",
               "", Raw('"\\ud800"'), "é")
TEXT_SNIPPETS = ("NaN", "Infinity", "1e400", "9" * 5000, '"\\ud800"', "\\", "[", "{", "]", "}", ",", ":", '"', "\x00",
                 "\u2028", "-", "0", "true", "null", '"\\u0000"')


def dump(v: Any) -> str:
    """JSON text of ``v``, with ``Raw`` values written as they are."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, dict):
        return "{" + ",".join(f"{dump(k) if isinstance(k, Raw) else json.dumps(k)}:{dump(x)}"
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x) for x in v) + "]"
    return json.dumps(v)


# --- mutations of text ---------------------------------------------------------------------------------
def mutate_text(text: str, ops: Sequence[tuple[str, float, int]], numbers: Sequence[str] = NUMBERS,
                snippets: Sequence[str] = SNIPPETS) -> str:
    """``text`` with each operation applied in turn: (name, where in [0, 1), a choice as an int).
    Names: number (the number nearest ``where`` becomes numbers[choice]), insert (snippets[choice]
    at ``where``), dup-line (the line repeated 1 + choice % 2000 times), delete-line, swap-lines,
    truncate, dup-block (a block of lines copied elsewhere), word (a word replaced by another of
    the text)."""
    import re
    for name, where, choice in ops:
        where = min(max(where, 0.0), 0.999999)
        if name == "number":
            found = list(re.finditer(r"(?<![\w-])[+-]?\d+(?![\w-])", text))
            if found:
                m = found[int(where * len(found))]
                text = text[:m.start()] + numbers[choice % len(numbers)] + text[m.end():]
        elif name == "insert":
            at = int(where * (len(text) + 1))
            text = text[:at] + snippets[choice % len(snippets)] + text[at:]
        elif name in ("dup-line", "delete-line", "swap-lines", "dup-block"):
            lines = text.split("\n")
            i = int(where * len(lines))
            if name == "dup-line":
                lines[i:i + 1] = [lines[i]] * (1 + choice % 2000)
            elif name == "delete-line":
                del lines[i]
            elif name == "swap-lines" and i + 1 < len(lines):
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
            elif name == "dup-block":
                block = lines[i:i + 1 + choice % 40]
                at = (i * 7 + choice) % (len(lines) + 1)
                lines[at:at] = block
            text = "\n".join(lines)
        elif name == "costly":  # a costly line right inside the first killer (a file without one: unchanged)
            lines = text.split("\n")
            at = next((i + 1 for i, ln in enumerate(lines) if re.match(r"killer [\w-]+ \{\s*$", ln)), -1)
            if at > 0:
                lines.insert(at, "  " + costly_line(choice))
            text = "\n".join(lines)
        elif name == "storm":
            text = storm(text, choice)
        elif name == "oversized":
            text = oversized(text, choice)
        elif name == "truncate":
            text = text[:int(where * len(text))]
        elif name == "word":
            words = list(re.finditer(r"[a-z][a-z0-9_-]*", text))
            if words:
                m = words[int(where * len(words))]
                other = words[choice % len(words)].group()
                text = text[:m.start()] + other + text[m.end():]
    return text


TEXT_OPS = ("number", "number", "number", "insert", "insert", "dup-line", "delete-line", "swap-lines", "truncate",
            "dup-block", "word", "word")


# --- work the language allows but nothing bounds (issue 42): costly content, storms, oversized files ------
def _nested(template: str, depth: int, inner: str) -> str:
    for _ in range(depth):
        inner = template.format(inner)
    return inner


def costly_line(choice: int) -> str:
    """A line of a killer that checks clean (a W203 at most) but asks for work that multiplies in play:
    selectors in selectors, 'where' in 'where', 'for each' in 'for each', triggers that fan out."""
    kind, depth = choice % 7, 2 + (choice // 7) % 7  # 2 to 8 deep
    if kind == 0:
        return "at start of upkeep { move killer to " + _nested("(any with most (count victims at {}))", depth,
                                                                "here") + " }"
    if kind == 1:
        return "at start of upkeep { move killer to " + _nested("(any where count victims at {} at least 0)", depth,
                                                                "here") + " }"
    if kind == 2:
        return "at start of upkeep { " + _nested("for each any {{ {} }}", depth, "lose 0 time") + " }"
    if kind == 3:
        return (f"when fear rises if fear at most {2 + depth} {{ repeat {min(20, 2 * depth + 4)} "
                "{ raise fear 1; lower fear 1 } }")
    if kind == 4:
        inner = _nested("for each any {{ {} }}", depth - 1, "for each victim { lose 0 time }")
        return "at start of upkeep { " + inner + " }"
    if kind == 5:
        place = _nested("(any with most (count victims at {}))", depth - 1, "it")
        return ("when fg moves { repeat 20 { repeat 5 { for each any { if (count victims at " + place
                + ") at least 0 { lose 0 time } } } } }")
    return ("at start of killer { for each any where count victims at "
            + _nested("(any where count victims at {} at least 0)", depth - 1, "it")
            + " at least 0 { move killer to (any with fewest victims farthest from fg) } }")


STORM_LINES = ("helth 1", "loose 1 time", "gain item no-such-item", "frobnicate 3 widgets",
               "when victm dies { heal 1 }", "x" * 9000, '"unterminated', "}{",
               "raise fear (count victims at (any with most victims) plus)",
               "spawn 1 nobody at nowhere", "rule dice 99", "fear 1 fear 2 fear 3")


STORM_BYTES = 2_200_000  # a storm is at most this long: past a file's 2 000 000 bytes, not a hundred times past


def storm(text: str, choice: int) -> str:
    """``text`` with one bad line repeated 1 000 to 16 000 times inside its first block (fewer for a
    long line: STORM_BYTES in all): a storm of diagnostics, each of which could carry a suggestion
    and quote the line."""
    lines = text.split("\n")
    at = next((i + 1 for i, ln in enumerate(lines) if ln.rstrip().endswith("{")), len(lines))
    bad = "  " + STORM_LINES[choice % len(STORM_LINES)]
    lines[at:at] = [bad] * min(1000 + (choice * 7919) % 15_001, STORM_BYTES // (len(bad) + 1))
    return "\n".join(lines)


def oversized(text: str, choice: int) -> str:
    """``text`` past one of the limits of a file: bytes, words, a line's length, nesting (or just under)."""
    kind, under = choice % 4, (choice // 4) % 2 == 1
    if kind == 0:  # bytes (comments: no words)
        return text + ("#" + "x" * 99 + "\n") * ((2_000_000 if not under else 1_900_000) // 100)
    if kind == 1:  # words, symbols and line ends
        return text + "\n" + "# words\n" + ("x " * (50_001 if not under else 40_000)) + "\n"
    if kind == 2:  # a line
        return text + "\n# " + "y" * (10_001 if not under else 9_990) + "\n"
    return text + "\n" + "{ " * (65 if not under else 63) + "} " * (65 if not under else 63) + "\n"


GENTLE_OPS = ("number", "number", "dup-line", "dup-line", "swap-lines")  # that often keep the content valid


COSTLY_OPS = ("costly", "storm", "oversized")  # work the language allows but nothing bounded (issue 42)


def costly_ops(r: random.Random) -> list[tuple[str, float, int]]:
    """One of the issue 42 classes: a costly line in a killer (most often), a storm of bad lines, a
    file past (or just under) a limit."""
    name = r.choice(("costly", "costly", "costly", "storm", "oversized"))
    return [(name, r.random(), r.randrange(1 << 16))]


def random_text_ops(r: random.Random, count: Optional[int] = None) -> list[tuple[str, float, int]]:
    """One to four operations; half the time only those that often keep the content valid (a
    number changed, a line repeated), so that many cases load and play a game."""
    ops = GENTLE_OPS if r.random() < 0.5 else TEXT_OPS
    return [(r.choice(ops), r.random(), r.randrange(1 << 16) if ops is TEXT_OPS else r.randrange(60))
            for _ in range(count or r.randint(1, 4))]


# --- mutations of JSON values ---------------------------------------------------------------------------
def _nodes(v: Any, path: tuple = ()) -> list[tuple]:
    """Every path into ``v`` (the root first), depth first."""
    out = [path]
    if isinstance(v, dict):
        for k, x in v.items():
            out.extend(_nodes(x, path + (k,)))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.extend(_nodes(x, path + (i,)))
    return out


def _get(v: Any, path: tuple) -> Any:
    for p in path:
        v = v[p]
    return v


def _strings(v: Any) -> list[str]:
    out: list[str] = []
    todo = [v]
    while todo:
        x = todo.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return sorted(set(out))


def mutate_json(value: Any, ops: Sequence[tuple[str, float, int]], values: Sequence = VALUES,
                keys: Sequence = KEYS) -> Any:
    """A copy of ``value`` with each operation applied: (name, which node in [0, 1), a choice).
    Names: set (the node becomes values[choice]), nudge (an integer node moves by -2, -1, 1, 2
    or 100), like (a string node becomes another string of the value: a plausible id), flip (a
    boolean), drop (the node leaves its list or object), dup (a list element twice), key (a key
    renamed to keys[choice]), add (a key keys[choice] with values[choice] in an object), batch
    (the value repeated 1 + choice % 150 times in a list)."""
    value = copy.deepcopy(value)
    for name, where, choice in ops:
        paths = _nodes(value)
        path = paths[int(min(max(where, 0.0), 0.999999) * len(paths))]
        node = _get(value, path)
        parent: Any = _get(value, path[:-1]) if path else None  # (a list or an object, where there is a path)

        def put(new: Any) -> None:
            nonlocal value
            if not path:
                value = new
            else:
                parent[path[-1]] = new
        if name == "set":
            put(copy.deepcopy(values[choice % len(values)]))  # a copy: later operations may change it
        elif name == "nudge" and type(node) is int:
            put(node + (-2, -1, 1, 2, 100)[choice % 5])
        elif name == "like" and isinstance(node, str):
            pool = _strings(value)
            put(pool[choice % len(pool)])
        elif name == "flip" and type(node) is bool:
            put(not node)
        elif name == "drop" and path:
            del parent[path[-1]]
        elif name == "dup" and path and isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(node))
        elif name == "key" and path and isinstance(parent, dict):
            new_key = keys[choice % len(keys)]
            items = [(new_key if k == path[-1] else k, x) for k, x in parent.items()]
            parent.clear()
            for k, x in items:
                parent[k] = x
        elif name == "add" and isinstance(node, dict):
            node[keys[choice % len(keys)]] = copy.deepcopy(values[choice % len(values)])
        elif name == "batch":
            value = [value] * (1 + choice % 150)
    return value


JSON_OPS = ("set", "set", "set", "nudge", "nudge", "like", "like", "flip", "drop", "dup", "key", "add", "batch")


def random_json_ops(r: random.Random, count: Optional[int] = None) -> list[tuple[str, float, int]]:
    ops = [(r.choice(JSON_OPS), r.random(), r.randrange(1 << 16)) for _ in range(count or r.randint(1, 3))]
    batch = [op for op in ops if op[0] == "batch"][:1]  # one at most, last: a batch of batches blows up the fuzzer
    return [op for op in ops if op[0] != "batch"] + (batch if batch and r.random() < 0.3 else [])


# --- the corpora: good data to start from -----------------------------------------------------------------
def bundled_files() -> list[Path]:
    from lastbreath.dsl import bundled_paths
    return sorted(f for root in bundled_paths() for f in Path(root).rglob("*.fg"))


def _keys_path(rs) -> tuple[list[str], dict]:
    """The option keys of the first choice of game seed 1, and a save of that game a few choices on."""
    from . import api
    from .session import Session
    s = Session(rs, seed=1)
    first = cast("Choice", s.choice).keys()  # (a new game waits for a choice)
    bot = api.random_policy(1)
    for _ in range(6):
        if s.over:
            break
        s.apply(bot(s.state, cast("Choice", s.state.choice)))  # (a game not over has a choice)
    return first, s.save()


def _design_file(rs) -> tuple[str, str]:
    """A content file the design methods may open (as ``design.files`` names it), and its text."""
    f = Path(rs.killers[sorted(rs.killers)[0]].span.path)
    return f"{f.parent.name}/{f.name}", f.read_text(encoding="utf-8")


def messages(rs) -> list[dict]:
    """Good protocol requests, at least one per method either server answers (``serve``'s and the web
    server's design methods: tests/test_hostile_fuzz.py holds the two lists the same), for the game
    g1 that each case opens first."""
    first, save = _keys_path(rs)
    name, text = _design_file(rs)
    setup = {"killer": sorted(rs.killers)[0], "scenario": sorted(rs.scenarios)[0], "seed": 3}
    position = (f"position {{\n  scenario {setup['scenario']}\n  fear 3\n  victims at "
                f"{rs.scenarios[setup['scenario']].locations[0].id} 2\n}}\n")
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "content.list"},
        {"jsonrpc": "2.0", "id": 2, "method": "game.new", "params": {"seed": 7, "killer": sorted(rs.killers)[0],
                                                                       "difficulty": "normal", "legendary": False,
                                                                       "tie_policy": "harder"}},
        {"jsonrpc": "2.0", "id": 3, "method": "game.state", "params": {"game": "g1"}},
        {"jsonrpc": "2.0", "id": 4, "method": "game.apply", "params": {"game": "g1", "key": first[0]}},
        {"jsonrpc": "2.0", "id": "u", "method": "game.undo", "params": {"game": "g1", "n": 1}},
        {"jsonrpc": "2.0", "id": 5, "method": "game.save", "params": {"game": "g1", "snapshot": True}},
        {"jsonrpc": "2.0", "id": 6, "method": "game.load", "params": {"save": save}},
        {"jsonrpc": "2.0", "id": 7, "method": "game.explain", "params": {"game": "g1"}},
        {"jsonrpc": "2.0", "id": None, "method": "game.close", "params": {"game": "g1"}},
        {"jsonrpc": "2.0", "method": "game.apply", "params": {"game": "g1", "key": first[-1]}},
        {"jsonrpc": "2.0", "id": 8, "method": "game.position", "params": {"text": position, "path": "fuzz.position"}},
        {"jsonrpc": "2.0", "id": 9, "method": "game.board", "params": {"game": "g1"}},
        {"jsonrpc": "2.0", "id": 10, "method": "game.screen", "params": {"game": "g1", "at": 0}},
        {"jsonrpc": "2.0", "id": 11, "method": "game.bot", "params": {"game": "g1", "policy": "greedy", "n": 3,
                                                                      "seed": 2}},
        {"jsonrpc": "2.0", "id": 12, "method": "game.log", "params": {"game": "g1", "since": 0}},
        {"jsonrpc": "2.0", "id": 13, "method": "design.files"},
        {"jsonrpc": "2.0", "id": 14, "method": "design.open", "params": {"file": name}},
        {"jsonrpc": "2.0", "id": 15, "method": "design.check", "params": {"file": name, "text": text}},
        {"jsonrpc": "2.0", "id": 16, "method": "design.play", "params": {"file": name, "text": text, **setup}},
        {"jsonrpc": "2.0", "id": 17, "method": "design.simulate",
         "params": {"file": name, "text": text, **setup, "games": 2, "bot": "first", "wins_before": 1,
                    "games_before": 4}},
    ]


def saves(rs) -> list[dict]:
    """Good saves, with their snapshot: games of each killer and scenario, at their start, a
    few choices in, in the middle of a step and at their end."""
    from . import api
    from .session import Session
    out = []
    for i, (k, sc) in enumerate((k, sc) for k in sorted(rs.killers) for sc in sorted(rs.scenarios)):
        s = Session(rs, killer=k, scenario=sc, seed=i)
        bot = api.random_policy(i)
        marks = {0, 5, 40}
        n = 0
        while not s.over and n < 2000:
            if n in marks:
                out.append(s.save())
            s.apply(bot(s.state, cast("Choice", s.state.choice)))  # (a game not over has a choice)
            n += 1
        out.append(s.save())
    return out


# --- the cases: what a worker runs ---------------------------------------------------------------------------
def content_case(r: random.Random, files: Sequence[Path]) -> dict:
    """A bundled file mutated; one case in four a costly, stormy or oversized one (a costly line goes
    into a killer's file)."""
    if r.random() < 0.25:
        ops = costly_ops(r)
        pool = [f for f in files if f.parent.name == "killers"] if ops[0][0] == "costly" else list(files)
        return {"kind": "content", "file": (pool or list(files))[r.randrange(len(pool or files))].name, "ops": ops}
    f = r.randrange(len(files))
    return {"kind": "content", "file": files[f].name, "ops": random_text_ops(r)}


def protocol_storm(r: random.Random) -> dict:
    """The issue 42 classes through the protocol: a position of thousands of bad lines, named by a
    long path; a position or a save text past its size (the server taking messages of up to 16 MiB)."""
    from .replay import MAX_FILE
    from .serve import MAX_MESSAGE_LIMIT

    pick = r.randrange(4)
    msgs: list[Any]
    if pick == 0:
        text = storm("position {\n}\n", r.randrange(1 << 16))
        params: dict = {"text": text}
        if r.random() < 0.5:
            params["path"] = "p" * r.choice((999, 1000, 1001, 500_000))
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "game.position", "params": params}]
    elif pick == 1:
        size = MAX_FILE + r.choice((-100, 1, 1000))
        msgs = [{"jsonrpc": "2.0", "id": 2, "method": "game.load",
                 "params": {"save": '{"format": "lastbreath-save", "pad": "' + "x" * size + '"}'}}]
    elif pick == 2:
        text = oversized("position {\n  fear 3\n}\n", r.randrange(1 << 16))
        msgs = [{"jsonrpc": "2.0", "id": 3, "method": "game.position", "params": {"text": text}}]
    else:  # a batch of storms
        msgs = [[{"jsonrpc": "2.0", "id": i, "method": "game.position",
                  "params": {"text": storm("position {\n}\n", r.randrange(1 << 16))}} for i in range(5)]]
    return {"kind": "protocol", "lines": [json.dumps(m) for m in msgs], "max_message": MAX_MESSAGE_LIMIT}


def protocol_case(r: random.Random, corpus: Sequence[dict]) -> dict:
    if r.random() < 0.2:
        return protocol_storm(r)
    lines = []
    for _ in range(r.randint(1, 4)):
        msg = corpus[r.randrange(len(corpus))]
        text = dump(mutate_json(msg, random_json_ops(r)))
        if r.random() < 0.3:
            text = mutate_text(text, [(r.choice(("insert", "truncate", "insert")), r.random(), r.randrange(1 << 16))],
                               snippets=TEXT_SNIPPETS)
        lines.append(text)
    return {"kind": "protocol", "lines": lines}


def forged(save: dict, r: random.Random) -> dict:
    """A save whose snapshot has one edit made alike in its state and its checkpoint (so that the
    checkpoint resumes to the state): victims added, the dead, her location, her hand, a killer's
    health, fear (issue 42: such a snapshot loaded)."""
    data = copy.deepcopy(save)
    snap = data.get("snapshot")
    if not isinstance(snap, dict):
        return data
    k = r.choice((1, 2, 9, 100))
    which = r.randrange(6)
    for part in (snap["state"], snap["state"].get("checkpoint")):
        if not isinstance(part, dict):
            continue
        if which == 0:
            part["victims"] = [v + k if i == 0 else v for i, v in enumerate(part["victims"])]
        elif which == 1:
            part["dead"] += k
        elif which == 2:
            part["fg_loc"] = (part["fg_loc"] + k) % max(1, len(part["victims"]))
        elif which == 3:
            part["hand"] = sorted(part["hand"] + part.get("spent", [])[:k])
        elif which == 4:
            part["killers"] = [{**x, "health": x["health"] + k} for x in part["killers"]]
        else:
            part["fear"] = max(0, part["fear"] - k)
    if r.random() < 0.5:  # the snapshot alone, as serialize.from_json takes it
        return snap
    return data


def save_case(r: random.Random, corpus: Sequence[dict]) -> dict:
    from .replay import MAX_FILE

    if r.random() < 0.25:
        base = corpus[r.randrange(len(corpus))]
        if r.random() < 0.7:
            return {"kind": "saves", "text": json.dumps(forged(base, r))}
        pad = MAX_FILE + r.choice((-5000, 1, 100_000))  # past a save file's size (or just under)
        return {"kind": "saves", "text": json.dumps({**base, "choices": base["choices"] + ["end"] * (pad // 7)})}
    data = mutate_json(corpus[r.randrange(len(corpus))], random_json_ops(r, r.randint(1, 3)))
    text = dump(data)
    if r.random() < 0.2:
        text = mutate_text(text, [(r.choice(("insert", "truncate")), r.random(), r.randrange(1 << 16))],
                           snippets=TEXT_SNIPPETS)
    return {"kind": "saves", "text": text}


def position_case(r: random.Random, corpus: Sequence[str]) -> dict:
    """A rulings file or a position (docs/rulings), mutated; one case in four a storm of bad lines or
    a file past (or just under) a limit."""
    text = corpus[r.randrange(len(corpus))]
    if r.random() < 0.25:
        ops = [(r.choice(("storm", "oversized")), r.random(), r.randrange(1 << 16))]
    else:
        ops = random_text_ops(r)
    return {"kind": "positions", "text": mutate_text(text, ops)}


def rulings_texts() -> list[str]:
    """The rulings files of docs/rulings, and each position in them as a position file."""
    import re
    folder = Path(__file__).resolve().parents[1] / "docs" / "rulings"
    out: list[str] = []
    for f in sorted(folder.glob("*.ruling")):
        text = f.read_text(encoding="utf-8")
        out.append(text)
        out += ["position {" + m.group(1) + "}\n" for m in re.finditer(r"  position \{(.*?)\n  \}", text, re.S)]
    return out


def make_case(kind: str, seed: int, index: int, corpora: dict) -> dict:
    """Case ``index`` of ``kind`` for ``seed``: always the same."""
    r = random.Random(f"{seed}:{kind}:{index}")
    if kind == "content":
        return content_case(r, corpora["files"])
    if kind == "protocol":
        return protocol_case(r, corpora["messages"])
    if kind == "positions":
        return position_case(r, corpora["positions"])
    return save_case(r, corpora["saves"])


class Runner:
    """What runs cases, in one process: the ruleset, the parsed bundled files, a copy of them to mutate."""

    def __init__(self) -> None:
        import os

        from lastbreath.dsl import load_ruleset

        self.rs = load_ruleset()
        self.folder = Path(tempfile.mkdtemp(prefix="lastbreath-fuzz-input-")) / "fuzz"
        self.folder.mkdir()
        # the content built by this runner (mutated files among it) is cached in its own folder,
        # removed with it: the files not mutated are built once, and the user's cache stays clean
        os.environ["LASTBREATH_CACHE"] = str(self.folder.parent / "cache")
        self.files = {}
        for f in bundled_files():
            target = self.folder / f.parent.name / f.name
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(f, target)
            self.files[f.name] = target
        self.mutated: Optional[Path] = None
        self.design: Optional[dict] = None  # the design page's methods (made on first use)

    def close(self) -> None:
        shutil.rmtree(self.folder.parent, ignore_errors=True)

    def server(self, max_message: Optional[int] = None):
        """A protocol server as ``lastbreath web`` makes one for a connection: ``serve``'s methods and the
        design page's (their scratch folder in this runner's, removed with it)."""
        from . import design
        from .serve import MAX_MESSAGE, Server

        if self.design is None:
            self.design = design.methods([], self.folder.parent / "design")
        server = Server(self.rs, max_message=MAX_MESSAGE if max_message is None else max_message)
        for name, make in self.design.items():
            server.methods[name] = make(server)
        return server

    def warm(self) -> None:
        """What a worker's first case would do for the first time, done before it takes one: the
        content loaded and built into its cache, a game played, a protocol exchange, a save loaded."""
        from lastbreath.dsl import load_content

        from . import api
        from .serve import Server
        from .session import Session

        try:  # (best effort: a case that fails here fails again as itself, and is reported then)
            load_content([self.folder])
            s = Session(self.rs, seed=1)
            bot = api.random_policy(1)
            for _ in range(10):
                if s.over:
                    break
                s.apply(bot(s.state, cast("Choice", s.state.choice)))
            Session.load(self.rs, json.loads(json.dumps(s.save())))
            Server(self.rs).handle({"jsonrpc": "2.0", "id": 0, "method": "content.list"})
            name, text = _design_file(self.rs)  # the content loaded as the design page checks an edited file
            self.server().handle({"jsonrpc": "2.0", "id": 0, "method": "design.check",
                                  "params": {"file": name, "text": text}})
        except Exception:
            pass

    def run(self, case: dict) -> Optional[str]:
        """None when the case ends as documented; else what went wrong (a crash). ``tag`` says how
        far the case went (content: refused, played, stopped; protocol: the replies; saves: refused,
        loaded)."""
        self.tag = ""
        try:
            return getattr(self, "run_" + case["kind"])(case)
        except MemoryError:
            return "MemoryError"
        except RecursionError:
            return "RecursionError"

    # content --------------------------------------------------------------------------------------
    def run_content(self, case: dict) -> Optional[str]:
        from lastbreath.dsl import RulesError, load_content

        from . import api

        target = self.files[case["file"]]
        original = target.read_bytes()
        text = mutate_text(original.decode("utf-8"), case["ops"])
        self.mutated = target
        try:
            target.write_bytes(text.encode("utf-8", "surrogatepass"))
            try:
                rs, _diags = load_content([self.folder])
            except Exception as err:  # load_content reports, it never raises
                return _crash("load_content", err)
            if rs is None:
                self.tag = "refused with diagnostics"
                return None
            mine = str(target)
            setup: dict[str, Any] = {}
            for table, key in ((rs.killers, "killer"), (rs.scenarios, "scenario"), (rs.final_girls, "final_girl")):
                ids = sorted(i for i, d in table.items() if d.span.path == mine)
                if ids:
                    setup[key] = ids[0]
            try:
                state, _events = api.new_game(rs, seed=len(text), **setup)
                api.play(state, api.random_policy(len(text)), max_choices=1500)
            except RulesError:
                self.tag = "loaded, the game stopped with a RulesError"
                return None  # documented (E300): the setup cannot be made, or the content feeds itself
            except Exception as err:
                return _crash("a game of the content", err)
            self.tag = "loaded and played a game"
            return None
        finally:
            target.write_bytes(original)
            self.mutated = None

    # protocol -------------------------------------------------------------------------------------
    def run_protocol(self, case: dict) -> Optional[str]:
        server = self.server(case.get("max_message"))
        server.handle_line(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "game.new", "params": {"seed": 1}}))
        for line in case["lines"]:
            data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
            try:
                reply = server.handle_line(data)
            except Exception as err:
                return _crash("Server.handle_line", err)
            if reply is None:
                continue
            problem = check_reply(reply)
            if problem:
                return problem
            self.tag = "replies with a result" if '"result":' in reply else "error replies only"
        return None

    # saves ----------------------------------------------------------------------------------------
    def run_saves(self, case: dict) -> Optional[str]:
        from lastbreath.dsl import RulesError, SaveError

        from . import api, replay, serialize
        from .session import Session

        self.tag = "refused"
        path = self.folder.parent / "save.json"  # read as a save file is: its size first, then its JSON
        path.write_bytes(case["text"].encode("utf-8", "surrogatepass"))
        try:
            data = replay.read(str(path))
        except SaveError:
            return None
        except Exception as err:
            return _crash("replay.read", err)
        try:
            Session.load(self.rs, data)
            self.tag = "loaded"
        except SaveError:
            pass
        except Exception as err:
            return _crash("Session.load", err)
        snap = data.get("snapshot") if isinstance(data, dict) else None
        try:
            state = serialize.from_json(self.rs, snap)
            self.tag = "loaded"
        except SaveError:
            return None
        except Exception as err:
            return _crash("serialize.from_json", err)
        bot = api.random_policy(len(case["text"]))
        try:
            for _ in range(5):
                if state.over:
                    break
                state, _events = api.apply(state, bot(state, cast("Choice", state.choice)))  # (not over: a choice)
        except RulesError:
            return None
        except Exception as err:
            return _crash("apply after from_json", err)
        return None


    # positions and rulings ---------------------------------------------------------------------------
    def run_positions(self, case: dict) -> Optional[str]:
        from lastbreath.dsl import ContentError, RulesError

        from . import api, rulings
        from .position import start_position

        path = self.folder.parent / "case.ruling"  # read as 'try' and 'verify' read a file: its size first
        path.write_bytes(case["text"].encode("utf-8", "surrogatepass"))
        self.tag = "refused"
        try:
            text, _bad = rulings.read_file(path)
            if text is None:
                return None
            diags = rulings.check_text(self.rs, text, str(path))
        except Exception as err:
            return _crash("rulings.check_text", err)
        if len(diags) > 1001:
            return f"{len(diags)} diagnostics: more than the cap"
        if any(len(d.message) > 400 or len(d.hint) > 400 for d in diags):
            return "a diagnostic quoting more than 400 characters"
        if diags:
            return None
        try:
            if "ruling " in text:
                found, _ = rulings.parse_rulings(self.rs, text, str(path))
                for ruling in found:
                    rulings.run(ruling)
                self.tag = "rulings run"
                return None
            state, _events = start_position(self.rs, text, str(path))
            bot = api.random_policy(len(text))
            for _ in range(5):
                if state.over:
                    break
                state, _events = api.apply(state, bot(state, cast("Choice", state.choice)))
            self.tag = "a position played"
        except (ContentError, RulesError):
            self.tag = "a position stopped with a documented error"
        except Exception as err:
            return _crash("a position played", err)
        return None


def _crash(where: str, err: BaseException) -> str:
    frame = traceback.extract_tb(err.__traceback__)[-1] if err.__traceback__ else None
    at = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return f"{where}: {type(err).__name__}: {str(err)[:160]}{at}"


def documented_codes() -> frozenset[int]:
    from . import serve
    return frozenset(getattr(serve, n) for n in serve.__all__
                     if n.isupper() and not n.startswith("MAX_") and n != "INTERNAL_ERROR")


def check_reply(text: str) -> Optional[str]:
    """What is wrong with a reply line of ``serve``, or None: JSON in UTF-8 without NaN, one reply or
    a list of them, each with a result or an error of a documented code (never -32603)."""
    try:
        text.encode("utf-8")
        data = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (ValueError, UnicodeEncodeError) as err:
        return f"a reply that is not JSON in UTF-8: {type(err).__name__}: {str(err)[:80]}"
    codes = documented_codes()
    for r in data if isinstance(data, list) else [data]:
        if not isinstance(r, dict) or r.get("jsonrpc") != "2.0" or "id" not in r or (("result" in r) == ("error" in r)):
            return f"a reply that is not a JSON-RPC reply: {text[:120]}"
        if "error" in r and r["error"].get("code") not in codes:
            return f"a reply with error {r['error'].get('code')}: {str(r['error'].get('message'))[:160]}"
    return None


# --- workers ------------------------------------------------------------------------------------------------
def _worker(conn, memory_mb: int) -> None:
    try:
        import resource
        limit = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # not POSIX: no memory limit
        pass
    import os
    parent = os.getppid()
    runner = Runner()
    try:
        runner.warm()
        conn.send(("ready", _peak_mb()))
        while True:
            while not conn.poll(1.0):  # a parent gone (killed: its pipe's other copies, in the other
                if os.getppid() != parent:  # workers forked from it, keep the pipe open): end, not wait for ever
                    return
            case = conn.recv()
            if case is None:
                break
            start, cpu = time.perf_counter(), time.process_time()
            try:
                problem = runner.run(case)
            except BaseException as err:  # a worker reports, it does not die
                problem = _crash("the worker", err)
            conn.send((problem, time.process_time() - cpu, time.perf_counter() - start, _peak_mb(), runner.tag))
    finally:
        runner.close()


def cpu_seconds(pid: int) -> Optional[float]:
    """The CPU time a process has used so far (Linux's /proc), or None where it cannot be read."""
    import os
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    except (OSError, ValueError, IndexError):
        return None


def _peak_mb() -> float:
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 1024 if sys.platform != "darwin" else peak / (1 << 20)
    except ImportError:
        return 0.0


class Pool:
    """Worker processes that run one case at a time each, under a memory limit; a case that takes
    more than ``time_limit`` seconds of CPU time counts as a hang, and one that runs on (twice that
    of CPU time, or ten times it of wall-clock time) is killed and its worker replaced."""

    def __init__(self, jobs: int = 1, time_limit: float = TIME_LIMIT, memory_mb: int = MEMORY_LIMIT_MB):
        self.time_limit = time_limit
        self.memory_mb = memory_mb
        methods = multiprocessing.get_all_start_methods()
        self.ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.workers = [self._start() for _ in range(max(1, jobs))]

    def _start(self):
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child, self.memory_mb), daemon=True)
        proc.start()
        child.close()
        if not parent.poll(600):  # (it warms up first: Runner.warm)
            raise RuntimeError("a fuzz-input worker did not start")
        parent.recv()
        return proc, parent

    def run_one(self, case: dict) -> dict:
        """Run one case on the first worker: its outcome (see ``run``)."""
        return self.run([case])[0]

    def run(self, cases: Sequence[dict], on_done: Optional[Callable[[int, dict], None]] = None) -> list[dict]:
        """Every case's outcome, in order: {"outcome": "ok" | "crash" | "hang", "detail", "seconds",
        "peak_mb"}."""
        results: list[Optional[dict]] = [None] * len(cases)
        todo = list(range(len(cases)))[::-1]
        busy: dict[int, tuple[int, float, Optional[float]]] = {}  # worker slot -> (case index, start, its CPU then)
        while todo or busy:
            for slot in range(len(self.workers)):
                if slot not in busy and todo:
                    i = todo.pop()
                    self.workers[slot][1].send(cases[i])
                    busy[slot] = (i, time.perf_counter(), cpu_seconds(self.workers[slot][0].pid))
            conns: dict[Any, int] = {self.workers[s][1]: s for s in busy}
            ready: list[Any] = wait(list(conns), timeout=0.2)
            now = time.perf_counter()
            for conn in ready:
                slot = conns[conn]
                i, start, _cpu = busy.pop(slot)
                problem: Optional[str]
                try:
                    problem, seconds, wall, peak, tag = conn.recv()
                except (EOFError, OSError):  # the worker died (killed by the system?)
                    problem, seconds, wall, peak, tag = "the worker process died", now - start, now - start, 0.0, ""
                    self._replace(slot)
                got = {"outcome": "ok" if problem is None else "crash", "detail": problem or "",
                       "seconds": round(seconds, 3), "wall_s": round(wall, 3), "peak_mb": round(peak, 1), "tag": tag}
                known = next((why for why, needle in KNOWN_ENGINE_ISSUES if problem and needle in problem), None)
                if known is not None:
                    got["outcome"] = "known"
                    got["detail"] = f"{known} ({problem})"
                if seconds > self.time_limit and problem is None:
                    got["outcome"] = "hang"
                    got["detail"] = f"took {seconds:.1f} s of CPU time ({wall:.1f} s in all)"
                results[i] = got
                if on_done is not None:
                    on_done(i, got)
            for slot, (i, start, cpu0) in list(busy.items()):
                cpu1 = cpu_seconds(self.workers[slot][0].pid) if cpu0 is not None else None
                used = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
                if (used is not None and used > self.time_limit * 2 + 1) or \
                        now - start > self.time_limit * WALL_FACTOR:  # stuck: kill it
                    busy.pop(slot)
                    self._replace(slot)
                    spent = f"{used:.1f} s of CPU time, " if used is not None else ""
                    got = {"outcome": "hang",
                           "detail": f"still running after {spent}{now - start:.1f} s in all: killed",
                           "seconds": round(used if used is not None else now - start, 3),
                           "wall_s": round(now - start, 3), "peak_mb": 0.0, "tag": ""}
                    results[i] = got
                    if on_done is not None:
                        on_done(i, got)
        return [r for r in results if r is not None]  # (every case has its outcome once the loop ends)

    def _replace(self, slot: int) -> None:
        proc, conn = self.workers[slot]
        proc.kill()
        proc.join(5)
        conn.close()
        self.workers[slot] = self._start()

    def close(self) -> None:
        for _proc, conn in self.workers:
            try:
                conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        for proc, conn in self.workers:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
            conn.close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# --- the run ------------------------------------------------------------------------------------------------
def corpora(rs) -> dict:
    return {"files": bundled_files(), "messages": messages(rs), "saves": saves(rs), "positions": rulings_texts()}


def run(rs, content: int = 0, protocol: int = 0, saves_: int = 0, seed: int = 0, jobs: int = 1,
        time_limit: float = TIME_LIMIT, memory_mb: int = MEMORY_LIMIT_MB,
        progress: Optional[Callable[[str, int, int], None]] = None, positions: int = 0) -> dict:
    """Run the cases and report: counts per kind, every failure with its kind, index and case."""
    made = corpora(rs)
    counts = {"content": content, "protocol": protocol, "saves": saves_, "positions": positions}
    report: dict[str, Any] = {"seed": seed, "time_limit_s": time_limit, "memory_limit_mb": memory_mb, "kinds": {},
                              "failures": []}
    start = time.perf_counter()
    with Pool(jobs, time_limit, memory_mb) as pool:
        for kind in KINDS:
            total = counts[kind]
            if total <= 0:
                continue
            cases = Cases(kind, seed, total, made)
            done = [0]

            def on_done(i: int, result: dict, kind: str = kind, total: int = total) -> None:
                done[0] += 1
                if progress is not None:
                    progress(kind, done[0], total)
            t0 = time.perf_counter()
            results = pool.run(cases, on_done)
            row: dict[str, Any] = {"cases": total, "crashes": 0, "hangs": 0, "known": 0, "worst_memory_mb": 0.0,
                                   "slowest_s": 0.0, "seconds": round(time.perf_counter() - t0, 1), "reached": {}}
            for i, res in enumerate(results):
                if res["tag"]:
                    row["reached"][res["tag"]] = row["reached"].get(res["tag"], 0) + 1
                if res["peak_mb"] > row["worst_memory_mb"]:
                    row["worst_memory_mb"], row["worst_memory_case"] = res["peak_mb"], i
                if res["seconds"] > row["slowest_s"]:
                    row["slowest_s"], row["slowest_case"] = res["seconds"], i
                if res["outcome"] != "ok":
                    row[{"crash": "crashes", "hang": "hangs", "known": "known"}[res["outcome"]]] += 1
                    report["failures"].append({"kind": kind, "index": i, "outcome": res["outcome"],
                                               "detail": _safe(res["detail"], 400), "case": _shown(cases[i])})
            report["kinds"][kind] = row
    rows = report["kinds"].values()
    report.update(cases=sum(r["cases"] for r in rows), crashes=sum(r["crashes"] for r in rows),
                  hangs=sum(r["hangs"] for r in rows), known=sum(r["known"] for r in rows),
                  worst_memory_mb=max((r["worst_memory_mb"] for r in rows), default=0.0),
                  seconds=round(time.perf_counter() - start, 1))
    report["clean"] = report["crashes"] == 0 and report["hangs"] == 0
    return report


class Cases(Sequence[dict]):
    """The cases of a kind, each made when it is read (``make_case``): a run of 10 000 cases, some of
    them megabytes of text, holds only those under way."""

    def __init__(self, kind: str, seed: int, total: int, made: dict) -> None:
        self.kind, self.seed, self.total, self.made = kind, seed, total, made

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.total))]
        if not 0 <= i < self.total:
            raise IndexError(i)
        return make_case(self.kind, self.seed, i, self.made)


def case_input(case: dict) -> tuple[str, bytes]:
    """The whole input of a case, to keep: (file name suffix, bytes): the mutated content file,
    the protocol lines (one message a line) or the save."""
    if case["kind"] == "content":
        source = next(f for f in bundled_files() if f.name == case["file"])
        text = mutate_text(source.read_text(encoding="utf-8"), case["ops"])
        return "-" + case["file"], text.encode("utf-8", "surrogatepass")
    if case["kind"] == "protocol":
        return ".jsonl", "\n".join(case["lines"]).encode("utf-8", "surrogatepass") + b"\n"
    if case["kind"] == "positions":
        return ".ruling", case["text"].encode("utf-8", "surrogatepass")
    return ".json", case["text"].encode("utf-8", "surrogatepass")


def _safe(text: str, limit: int = 2000) -> str:
    """Text that can be printed and written as UTF-8 (a lone surrogate shown escaped), cut at ``limit``."""
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text)} characters)"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _shown(case: dict) -> dict:
    """A case as JSON-ready data, long texts cut (the seed and index reproduce it whole)."""
    out: dict[str, Any] = {}
    for k, v in case.items():
        if isinstance(v, str):
            v = _safe(v)
        elif isinstance(v, list) and v and isinstance(v[0], str):
            v = [_safe(x) for x in v]
        out[k] = v
    return out


def format_report(data: dict) -> list[str]:
    lines = [f"fuzz-input: {data['cases']} cases (seed {data['seed']}) in {data['seconds']} s; time limit "
             f"{data['time_limit_s']} s of CPU a case, memory limit {data['memory_limit_mb']} MB a worker"]
    for kind, row in data["kinds"].items():
        lines.append(f"  {kind:<9} {row['cases']:>6} cases  {row['crashes']:>3} crashes  {row['hangs']:>3} hangs  "
                     f"worst memory {row['worst_memory_mb']:.0f} MB  slowest {row['slowest_s']:.2f} s"
                     + (f"  ({row['known']} known engine issues)" if row["known"] else ""))
        if row["reached"]:
            lines.append("            " + "; ".join(f"{v} {k}" for k, v in sorted(row["reached"].items())))
    shown = [f for f in data["failures"] if f["outcome"] != "known"]
    for f in shown[:20]:
        lines.append(f"{f['outcome']}: {f['kind']} case {f['index']}: {f['detail']}")
    if len(shown) > 20:
        lines.append(f"… and {len(shown) - 20} more (--json lists them all)")
    if data.get("known"):
        why = sorted({f["detail"].split(" (")[0] for f in data["failures"] if f["outcome"] == "known"})
        lines.append(f"known engine issues ({data['known']} cases; tests/test_hostile_engine.py): " + "; ".join(why))
    lines.append("clean: no crash, no hang" if data["clean"] else
                 f"{data['crashes']} crash(es), {data['hangs']} hang(s)")
    return lines
