"""The cache folder (dsl/cache.py): built content files and the parser's tables, kept between runs.

A cache only saves time: the same declarations come back, a changed file or a changed language
builds afresh, a broken entry is ignored, files with any diagnostic are never kept, and
LASTBREATH_CACHE=off keeps nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lastbreath.dsl import bundled_paths, load_content
from lastbreath.dsl import build as build_module
from lastbreath.dsl import cache

CARD = 'card spark {\n  name "Spark"\n  cost 1\n  success { gain 1 time }\n}\n'


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv("LASTBREATH_CACHE", str(where))
    return where


def entries(folder: Path) -> list[Path]:
    return sorted((folder / "built").glob("*.pickle")) if (folder / "built").is_dir() else []


def test_a_clean_file_is_built_once_and_comes_back_equal(folder, tmp_path, monkeypatch):
    f = tmp_path / "spark.fg"
    f.write_text(CARD, encoding="utf-8")
    rs1, d1 = load_content([f])
    assert d1 == [] and len(entries(folder)) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("built again")
    monkeypatch.setattr(build_module, "build_file", refuse)
    rs2, d2 = load_content([f])
    assert d2 == [] and rs2.cards["spark"] == rs1.cards["spark"]


def test_a_changed_file_or_a_changed_language_builds_afresh(folder, tmp_path, monkeypatch):
    f = tmp_path / "spark.fg"
    f.write_text(CARD, encoding="utf-8")
    load_content([f])
    f.write_text(CARD.replace("gain 1 time", "gain 2 time"), encoding="utf-8")
    rs, _ = load_content([f])
    assert rs.cards["spark"].outcomes[0].effects[0].n == 2
    monkeypatch.setattr(cache, "code_version", lambda: "another-version")
    calls = []
    real = build_module.build_file
    monkeypatch.setattr(build_module, "build_file", lambda *a, **k: calls.append(1) or real(*a, **k))
    load_content([f])
    assert calls == [1]


def test_a_broken_entry_is_ignored(folder, tmp_path):
    f = tmp_path / "spark.fg"
    f.write_text(CARD, encoding="utf-8")
    load_content([f])
    (entry,) = entries(folder)
    entry.write_bytes(b"not a pickle at all")
    rs, diags = load_content([f])
    assert diags == [] and "spark" in rs.cards


def test_files_with_diagnostics_are_never_kept(folder, tmp_path):
    f = tmp_path / "bad.fg"
    f.write_text(CARD.replace("gain 1 time", "gane 1 time"), encoding="utf-8")
    for _ in range(2):  # the diagnostic is produced both times, by building
        _rs, diags = load_content([f])
        assert [d.code for d in diags] == ["E207"] and diags[0].hint
    assert entries(folder) == []


def test_caching_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("LASTBREATH_CACHE", "off")
    assert cache.folder() is None and cache.parser_file("grammar") is None
    f = tmp_path / "spark.fg"
    f.write_text(CARD, encoding="utf-8")
    rs, diags = load_content([f])
    assert diags == [] and "spark" in rs.cards


def test_the_bundled_content_loads_the_same_from_the_cache(folder):
    rs1, _ = load_content(bundled_paths())
    rs2, _ = load_content(bundled_paths())
    assert rs1 is not None and rs2 is not None
    assert rs1.killers == rs2.killers and rs1.scenarios == rs2.scenarios and rs1.cards == rs2.cards


def test_content_in_the_cache_loads_without_the_builder_or_the_parser(folder):
    """Content whose files are all in the cache loads without importing the builder or lark: every
    command starts sooner (``simulate --jobs 2`` pays its start-up once, before the workers)."""
    code = ("import sys; from lastbreath.dsl import load_ruleset; load_ruleset(); "
            "print(sorted(m for m in ('lark', 'lastbreath.dsl.build', 'lastbreath.dsl.expr') if m in sys.modules))")
    env = {**os.environ, "LASTBREATH_CACHE": str(folder)}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "lastbreath.dsl.build" in first.stdout  # an empty cache: every file built (and kept)
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "[]"
