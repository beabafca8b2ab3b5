"""Hypothesis's Unicode tables, made once, given to each judge.

(day7_verify.isolation._unicode)

Made on the first text drawn, they are most of a fresh judge's start; the
command makes them once per machine and copies them into each judge's
private storage. These tests check they are made once, reused, copied, and
made somewhere even where the cache cannot be written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from day7_verify.isolation import _unicode
from day7_verify.isolation._unicode import give_tables, unicode_tables

# The table of what UTF-8 encodes: Hypothesis 6.165.0 renamed it from
# "codec-utf-8" to "codec-v2-utf-8" when it began to record, beside it, what
# does not round-trip. Either is the table the first text needs.
UTF8_TABLES = {"codec-utf-8.json.gz", "codec-v2-utf-8.json.gz"}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _tables(root: Path) -> set[str]:
    return {p.name for p in (root / "unicode_data").rglob("*.json.gz")}


def test_the_tables_are_made_once_then_reused(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = unicode_tables(tmp_path / "run")
    assert made is not None and made.is_relative_to(cache)
    # Both tables the first text needs: categories, and what UTF-8 encodes.
    tables = _tables(made)
    assert "charmap.json.gz" in tables and tables & UTF8_TABLES
    calls = []
    monkeypatch.setattr(_unicode, "_make", lambda into: calls.append(into) or False)
    assert unicode_tables(tmp_path / "run") == made
    assert calls == []  # the second run makes nothing


def test_where_the_cache_cannot_be_written_they_are_made_for_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory would be", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    run = tmp_path / "run"
    run.mkdir()
    made = unicode_tables(run)
    assert made is not None and made.is_relative_to(run)
    assert "charmap.json.gz" in _tables(made)


def test_a_judge_gets_its_own_copy(cache: Path, tmp_path: Path) -> None:
    made = unicode_tables(tmp_path / "run")
    storage = tmp_path / "judge" / "hypothesis"
    storage.parent.mkdir()
    give_tables(made, storage)
    assert _tables(storage) == _tables(made)
    assert storage.stat().st_mode & 0o777 == 0o700
    for table in (storage / "unicode_data").rglob("*.json.gz"):
        original = made / table.relative_to(storage)
        assert table.read_bytes() == original.read_bytes()
        assert not table.samefile(original)  # a copy: the judge cannot change ours


def test_without_tables_a_judge_still_gets_its_storage(tmp_path: Path) -> None:
    storage = tmp_path / "hypothesis"
    give_tables(None, storage)
    assert storage.is_dir() and not any(storage.iterdir())
