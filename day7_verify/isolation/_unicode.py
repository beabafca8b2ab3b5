"""Hypothesis's Unicode tables: made once, given to every learner's judge.

The first text Hypothesis draws in a process makes two tables and stores
them in its storage directory: the category of every code point, and which
code points UTF-8 encodes (the default alphabet of `st.text()`). Together
they cost about 1.2 s of CPU, in each part of each learner's judge, every
time, since each judge starts with an empty storage directory of its own.

So the command makes them once per machine and Hypothesis version, in the
user's cache directory, and copies them into each judge's storage directory
(`HYPOTHESIS_STORAGE_DIRECTORY`, a directory of the judge's private folder
that no learner code can see or write: a learner that could plant its own
tables would choose what text its judge draws).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["give_tables", "unicode_tables"]

# Run by the command's own interpreter, with the storage directory set.
_MAKE = """\
from hypothesis import HealthCheck, Phase, find, settings, strategies as st
once = settings(database=None, max_examples=1, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))
find(st.text(min_size=1), lambda text: True, settings=once)
"""
_SECONDS = 60


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    version = importlib.metadata.version("hypothesis")
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return Path(base) / "day7-verify" / f"hypothesis-{version}-python-{python}"


def _make(into: Path) -> bool:
    """Make the tables in `into` (a new directory); whether it worked."""
    environment = {
        "PATH": os.environ.get("PATH") or os.defpath,
        "HYPOTHESIS_STORAGE_DIRECTORY": str(into),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", _MAKE],
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and (into / "unicode_data").is_dir()


def unicode_tables(fallback: Path) -> Path | None:
    """A directory holding Hypothesis's `unicode_data`, or None.

    From the user's cache when it is there; else made there (then reused by
    every later run); else, where the cache cannot be written, made once in
    `fallback` (this run's scratch). None when they cannot be made at all:
    each judge then makes its own, only slower.
    """
    cached = _cache_root()
    if (cached / "unicode_data").is_dir():
        return cached
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        making = Path(tempfile.mkdtemp(prefix=".making-", dir=cached.parent))
    except OSError:
        making = None
    if making is not None:
        if _make(making):
            try:
                making.rename(cached)  # whole, or not at all
            except OSError:  # another run got there first: theirs is as good
                shutil.rmtree(making, ignore_errors=True)
            if (cached / "unicode_data").is_dir():
                return cached
        shutil.rmtree(making, ignore_errors=True)
    own = fallback / "unicode-tables"
    if (own / "unicode_data").is_dir():
        return own
    shutil.rmtree(own, ignore_errors=True)
    own.mkdir(parents=True)
    return own if _make(own) else None


def give_tables(tables: Path | None, storage: Path) -> None:
    """Copy the tables into a judge's storage directory (made here)."""
    storage.mkdir(mode=0o700)
    if tables is None:
        return
    try:
        shutil.copytree(tables / "unicode_data", storage / "unicode_data")
    except OSError:
        shutil.rmtree(storage / "unicode_data", ignore_errors=True)
