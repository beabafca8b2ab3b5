"""One pytest run in its own process group, bounded in time, and stoppable;
and the frozen copy of the suite such runs use.

The mutation runner judges many copies at once; a mutant can make evaluation
block for ever, and a user can press Ctrl-C. Every run started here is
remembered until it ends, so ``stop_all`` can end exactly those process
groups (each run is a session of its own) and nothing else.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ROOT",
    "RunResult",
    "pytest_env",
    "run_pytest",
    "snapshot",
    "stop_all",
    "suite_problem",
]

# What a judged run needs of this checkout: the suite, its strategies, the
# judge and the worker, the pytest plugin that selects invariants, the
# bundled package the suite may import, and pytest's settings.
_SUITE = (
    "tests",
    "strategies",
    "judge",
    "worker",
    "planted",
    "evaluator",
    "pyproject.toml",
)

ROOT = Path(__file__).resolve().parent.parent

_live: set[subprocess.Popen[str]] = set()
_lock = threading.Lock()


@dataclass(frozen=True)
class RunResult:
    """How one pytest run ended. ``exit_code`` is None when it timed out."""

    exit_code: int | None
    output: str
    seconds: float


def pytest_env(suite: Path = ROOT) -> dict[str, str]:
    """The environment of a judged run: the suite's checkout first on the path.

    No bytecode is written (not into the judged copy, nor into this
    checkout's tests while runs overlap), and CI is unset: under CI
    Hypothesis would load its own built-in profile over the one asked for.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(suite), env.get("PYTHONPATH", "")) if part
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("CI", None)
    return env


@functools.cache
def _unicode_tables() -> Path | None:
    from day7_verify.isolation._unicode import unicode_tables

    fallback = Path(tempfile.mkdtemp(prefix="planted-tables-"))
    atexit.register(shutil.rmtree, fallback, True)
    return unicode_tables(fallback)


def seed_unicode_tables(cwd: Path) -> None:
    """Give a run's fresh working directory Hypothesis's Unicode tables.

    Hypothesis makes them on the first text drawn (over a second of CPU) and
    keeps them in `.hypothesis/`, beside its example database; each run has
    a directory of its own so that no failure is replayed under another
    seed, and so would make them again. Only the tables are copied (made
    once, day7_verify.isolation._unicode), never a database.
    """
    tables = _unicode_tables()
    if tables is not None:
        shutil.copytree(tables / "unicode_data", cwd / ".hypothesis" / "unicode_data")


def suite_problem(root: Path) -> str | None:
    """Why ``root`` is not a checkout a run can be judged by, or None."""
    missing = [name for name in _SUITE if not (root / name).exists()]
    if missing:
        return f"{root}: not a checkout of this project (no {', '.join(missing)})"
    return None


def snapshot(into: Path, root: Path = ROOT) -> Path:
    """A frozen copy of the suite, so every run is judged by the same tests.

    Others may edit the checkout while a long run goes on; a run judged by
    a half-saved test would be a verdict about the edit, not the mutant.
    """
    suite = into / "suite"
    suite.mkdir()
    ignored = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")
    for name in _SUITE:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, suite / name, ignore=ignored)
        else:
            shutil.copyfile(source, suite / name)
    return suite


def _end(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_pytest(
    args: Sequence[str],
    cwd: Path,
    timeout: float,
    env: Mapping[str, str],
) -> RunResult:
    """``python -m pytest ARGS`` in ``cwd``; killed, group and all, at ``timeout``."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    with _lock:
        _live.add(process)
    try:
        output, _ = process.communicate(timeout=timeout)
        exit_code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        _end(process)
        output, _ = process.communicate()
        exit_code = None
    finally:
        with _lock:
            _live.discard(process)
    return RunResult(exit_code, output, time.monotonic() - started)


def stop_all() -> int:
    """End every run still going (after Ctrl-C); how many were ended."""
    with _lock:
        running = list(_live)
    for process in running:
        _end(process)
    return len(running)
