"""One world made real: what the judge holds of it, and its files read or
rewritten afterwards without following a link.

`Built` is what `judge.build.build_in` returns: the target's four arguments of
`evaluate_run`, where the tree and the log are, and what a real run left
(its model, approvals and replayed plan). The rest reads or rewrites the
tree's files for the properties that judge a built world, each through the
tree's descriptors, since learner code may still be running in it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import safefs
from judge.evidence import Evidence, Outcome
from judge.fixes import placed
from judge.lessons import InvariantFailure

__all__ = [
    "Built",
    "evidence_bytes",
    "refusing",
    "rewrite_evidence",
    "rewrite_in_root",
    "scratch_parent",
]


@dataclass
class Built:
    """One world made real: the target's objects and where they live."""

    evidence: Evidence
    tree: Path  # the whole temporary tree: snapshot this
    root: Path  # the workspace root
    log_path: Path | None = None
    run: Any = None
    workspace: Any = None
    receipts: Any = None
    case: Any = None
    approvals: list[Any] = field(default_factory=list)
    secrets: list[Path] = field(default_factory=list)  # outside the root
    model: Any = None  # a real run's model (judge.play.ScriptedModel)
    outcome: Outcome | None = None  # a real run's replayed plan
    #: Where the log really is, as names under `tree`, past the judge's own
    #: links: the judge reaches it so, never through a link (judge.safefs).
    log_at: tuple[str, ...] = ()

    @property
    def args(self) -> tuple[Any, Any, Any, Any]:
        """The four arguments of evaluate_run, in order."""
        return self.run, self.workspace, self.receipts, self.case


def refusing(approvals: list[Any]) -> Callable[[Any], bool]:
    """A drawn world's confirm_tool: it records each action it is shown in
    `approvals` and approves none (evaluation must never ask)."""

    def confirm_tool(action: Any) -> bool:
        approvals.append(action)
        return False

    return confirm_tool


def scratch_parent() -> str | None:
    """Where fresh trees go: $DAY7_SCRATCH, else /dev/shm when usable, else $TMPDIR.

    A world is a few dozen tiny files made and removed per example; on a
    disk-backed /tmp that costs ~15 ms a tree, in memory (tmpfs) ~0.4 ms.
    Symlinks, FIFOs and modes behave the same on both.
    """
    chosen = os.environ.get("DAY7_SCRATCH")
    if chosen:
        return chosen
    shm = "/dev/shm"
    if os.path.isdir(shm) and not os.path.islink(shm) and os.access(shm, os.W_OK):
        return shm
    return None


def rewrite_in_root(built: Built, path: str, data: bytes) -> None:
    """Put `data` at the root's `path` after a run, never through a link.

    The root is the worker's and learner code may still be running: a file
    or folder on the way swapped for a link (or anything but what the run
    left) fails the world as a lesson, never written through.
    """
    parts = tuple(path.split("/"))
    try:
        with safefs.opened(built.tree, (built.root.name, *parts[:-1])) as folder:
            safefs.replace(folder, parts[-1], data)
    except safefs.Unexpected as error:
        raise InvariantFailure(
            world="",
            expected=f"{path} to stay the regular file the run left",
            observed=f"learner code replaced it: {error}",
            hint=placed(
                "the judge never follows a link: code that turns a workspace"
                " file or folder into a link, FIFO or device (in any thread, at"
                " any time) fails the world",
                "run_agent",
            ),
            cause="substrate:run_agent",
        ) from None


def rewrite_evidence(built: Built, parts: Sequence[str], data: bytes, way: str) -> None:
    """Give the tree's regular file at `parts` (names under the tree) the bytes
    `data`, the way `way` says (`strategies.rewrites.REWRITE_WAYS`: in the same
    inode, or as a new inode), its modification and access times put back.

    The bytes a cache keyed by what a stat shows cannot see changing. Never
    through a link: learner code that left anything but the regular file of
    one link there fails the world as a lesson.
    """
    try:
        with safefs.opened(built.tree, parts[:-1]) as folder:
            old = safefs.read_regular(folder, parts[-1])
            if old is None:
                raise safefs.Unexpected(parts[-1], "missing", "a regular file")
            if way == "new_inode":
                info = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
                times = (info.st_atime_ns, info.st_mtime_ns)
                safefs.replace(folder, parts[-1], data, times_ns=times)
            else:
                safefs.rewrite_in_place(folder, parts[-1], old, data, way)
    except safefs.Unexpected as error:
        raise InvariantFailure(
            world="",
            expected=f"{'/'.join(parts)} to stay the regular file the world put there",
            observed=f"learner code changed it: {error}",
            hint=placed(
                "evaluation and the Day 1-6 tools must not replace, remove or link"
                " the workspace's files and the receipt log, nor keep writing them"
                " after the call returns",
                "evaluate_run",
            ),
        ) from None


def evidence_bytes(built: Built, parts: Sequence[str]) -> bytes | str | None:
    """The tree's file at `parts` (names under the tree), read without
    following links: its bytes, None if missing, or what stands there."""
    try:
        with safefs.opened(built.tree, parts[:-1]) as folder:
            return safefs.read_regular(folder, parts[-1])
    except safefs.Unexpected as error:
        return str(error)
