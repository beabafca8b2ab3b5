"""Which learner folders the command judges, from the paths it is given.

A PATH is a course checkout (its `src/tiny_llm/agent` is judged), or an agent
folder itself (one holding any of the Day 7 modules). `--cohort ROOT` finds
every learner under ROOT: each folder below it that is a checkout or an agent
folder is one learner, and the search does not go inside a learner or
deeper than four levels. A learner is named by the path as the user wrote it
(so reports made on different machines with the same layout agree), and
judged once however many times it is named.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from strategies.target import DAY7_MODULES

__all__ = ["COURSE_AGENT", "Learner", "UsageError", "cohort", "learner_at"]

#: Where a course checkout keeps the learner's agent folder.
COURSE_AGENT = Path("src", "tiny_llm", "agent")

# Levels below a cohort root searched for learners: ROOT/name/src/tiny_llm/agent.
_COHORT_DEPTH = 4
_NEVER_SEARCHED = frozenset({"__pycache__", "node_modules", "site-packages"})


class UsageError(Exception):
    """The command was asked something it cannot do; one line saying what."""


@dataclass(frozen=True, order=True)
class Learner:
    """One learner: its name in reports, and the folder judged."""

    path: str
    folder: Path

    def __post_init__(self) -> None:
        if not self.path:
            raise ValueError("a learner needs a non-empty path")


def _is_agent_folder(folder: Path) -> bool:
    return any((folder / f"{name}.py").is_file() for name in DAY7_MODULES)


def _is_checkout(folder: Path) -> bool:
    return (folder / COURSE_AGENT).is_dir()


def learner_at(raw: str) -> Learner:
    """The learner a PATH names; UsageError when nothing is there.

    A PATH that exists but is neither a checkout nor an agent folder is still
    a learner: the judge then says why it cannot be loaded (status `error`).
    """
    path = Path(raw)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{raw}: no such file or directory")
    if path.is_dir() and not _is_agent_folder(path) and _is_checkout(path):
        return Learner(
            os.path.normpath(os.path.join(raw, COURSE_AGENT)), path / COURSE_AGENT
        )
    return Learner(os.path.normpath(raw), path)


def cohort(raw_root: str) -> list[Learner]:
    """Every learner under ROOT, sorted by path; UsageError when there is none."""
    root = Path(raw_root)
    if not root.is_dir():
        raise UsageError(f"--cohort {raw_root}: not a directory")
    if _is_agent_folder(root) or _is_checkout(root):
        return [learner_at(raw_root)]
    found: list[Learner] = []
    seen: set[Path] = set()

    def search(folder: Path, written: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _NEVER_SEARCHED:
                continue
            if not entry.is_dir():
                continue
            child = Path(entry.path)
            real = child.resolve()
            if real in seen:
                continue
            seen.add(real)
            child_written = os.path.join(written, entry.name)
            if _is_agent_folder(child) or _is_checkout(child):
                found.append(learner_at(child_written))
            elif depth < _COHORT_DEPTH:
                search(child, child_written, depth + 1)

    search(root, raw_root, 1)
    if not found:
        raise UsageError(
            f"--cohort {raw_root}: no learner folder under it (a course checkout,"
            " or a folder holding evaluation.py and the other Day 7 modules)"
        )
    return sorted(found)


def unique(learners: list[Learner]) -> list[Learner]:
    """Each folder once (the first name given wins), sorted by path."""
    kept: dict[Path, Learner] = {}
    for learner in learners:
        kept.setdefault(learner.folder.resolve(), learner)
    by_path: dict[str, Learner] = {}
    for learner in kept.values():
        if learner.path in by_path:
            raise UsageError(
                f"two different folders would both be reported as {learner.path}"
            )
        by_path[learner.path] = learner
    return sorted(by_path.values())
