"""How long the language server takes to check a long file again after an edit (issue 40).

Makes a pack in a temporary folder with one file of about ``--lines`` lines (the fan killer of
examples/fan_killer written out again and again under new ids), opens it as the server does
(dsl/editing.Project: the bundled content, the pack, every open file from its text), checks it
once, then makes ``--edits`` edits of each kind and times the check that follows each one, the work
``lastbreath lsp`` does before it publishes the diagnostics again:

- ``in-line``: a number changed inside a line (one declaration built again);
- ``new-line``: a line added in the middle of the file (the declarations below it move down);
- ``error``: a phrase misspelled, then the diagnostic it gives.

It prints the median and the slowest of each, in wall-clock and CPU milliseconds (on a machine busy
with other work the CPU time is the steadier measure), or JSON with ``--json``. Nothing in the test
suite depends on these numbers; tests/test_benchmark_script.py only runs it small.

    python examples/lsp_benchmark.py                 # a 2,000-line file, 10 edits of each kind
    python examples/lsp_benchmark.py --lines 500 --edits 3 --json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lastbreath.dsl.editing import Project

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "fan_killer" / "tallow-man.fg"
RENAMED = ("tallow-man", "snuff-the-wick", "wax-moth")  # the ids its copies rename (shared by every pack)


def long_file(lines: int) -> str:
    src = SOURCE.read_text(encoding="utf-8")
    out: list[str] = []
    i = 0
    while sum(t.count("\n") for t in out) < lines:
        text = src
        for word in RENAMED:
            text = re.sub(rf"(?<![\w-]){word}(?![\w-])", f"{word}-{i}", text)
        out.append(text)
        i += 1
    return "".join(out)


def _timed(project: Project, path: str) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    checked = project.check(path)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, len(checked.analysis.diags)


def run(lines: int, edits: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "long-pack"
        folder.mkdir()
        (folder / "pack.fg").write_text('pack long-pack {\n  name "A long file"\n  depends core\n}\n', encoding="utf-8")
        text = long_file(lines)
        f = folder / "long.fg"
        f.write_text(text, encoding="utf-8")
        path = str(f.resolve())
        project = Project([folder])
        project.open(path, text)
        first = _timed(project, path)
        assert first[2] == 0, "the long file should check clean"
        times: dict[str, list[tuple[float, float]]] = {"in-line": [], "new-line": [], "error": []}
        numbers = [m.start() for m in re.finditer(r"lose 1 time", text)]
        for k in range(edits):
            at = numbers[(len(numbers) // 2 + k) % len(numbers)]
            text = text[:at] + f"lose {2 + k % 5} time" + text[at + len("lose 1 time"):]
            project.change(path, text)
            wall, cpu, _n = _timed(project, path)
            times["in-line"].append((wall, cpu))

            mid = text.index("\n", len(text) // 2 + k * 37) + 1
            text = text[:mid] + f"# note {k}\n" + text[mid:]
            project.change(path, text)
            wall, cpu, _n = _timed(project, path)
            times["new-line"].append((wall, cpu))

            bad = text.replace("lower fear 1", "lowr fear 1", 1)
            project.change(path, bad)
            wall, cpu, found = _timed(project, path)
            assert found >= 1
            times["error"].append((wall, cpu))
        total = text.count("\n")

    def summary(values: list[tuple[float, float]]) -> dict:
        return {"wall_ms_median": round(statistics.median(v[0] for v in values), 1),
                "wall_ms_max": round(max(v[0] for v in values), 1),
                "cpu_ms_median": round(statistics.median(v[1] for v in values), 1),
                "cpu_ms_max": round(max(v[1] for v in values), 1)}

    return {"lines": total, "edits": edits, "first_check": {"wall_ms": round(first[0], 1), "cpu_ms": round(first[1], 1)},
            **{kind: summary(v) for kind, v in times.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=2000, help="lines of the long file (default 2000)")
    p.add_argument("--edits", type=int, default=10, help="edits of each kind (default 10)")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = p.parse_args(argv)
    got = run(max(1, args.lines), max(1, args.edits))
    if args.json:
        print(json.dumps(got, indent=2))
        return 0
    print(f"a file of {got['lines']} lines, {got['edits']} edits of each kind; first check "
          f"{got['first_check']['wall_ms']} ms ({got['first_check']['cpu_ms']} ms CPU)")
    for kind in ("in-line", "new-line", "error"):
        s = got[kind]
        print(f"  re-check after an {kind} edit: median {s['wall_ms_median']} ms (CPU {s['cpu_ms_median']} ms), "
              f"slowest {s['wall_ms_max']} ms (CPU {s['cpu_ms_max']} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
