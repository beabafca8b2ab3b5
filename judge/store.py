"""The world's log, once the target's store has written it: the judge's to damage.

The target's own `ReceiptStore(path).put(...)` writes the log (the steps are
judge.steps'), and only then does the judge check that it holds a line a
put, append the lines the target's store writes elsewhere, and damage it or
put something else at its name, as the evidence's `Log` says. Learner code
ran just before and may run still: the log is reached through the tree's
descriptors, never through a link, and a log that is no longer the file the
store wrote fails the world as a lesson.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

from judge import remote, safefs
from judge.built import Built, scratch_parent
from judge.calls import call_target
from judge.evidence import Log, Replacement, Stored
from judge.fixes import placed
from judge.lessons import InvariantFailure
from judge.steps import receipt

__all__ = ["finish_log"]

MILLION = 1_000_000
LONG_LINE_BYTES = 2 * (1 << 20)


def finish_log(log: Log, target: Any, built: Built) -> None:
    """Check the log the puts wrote, then append, damage or replace it as the
    world says; nothing to do for a store in memory or a real run's.

    Learner code ran just before (and may run still): the log is reached
    through the tree's descriptor and never followed; a log that is no longer
    the file the store wrote fails the world as a lesson.
    """
    if not log.finish:
        return
    try:
        with safefs.opened(built.tree, built.log_at[:-1]) as log_fd:
            _finish_log_in(log, target, built, log_fd)
    except safefs.Unexpected as error:
        raise _swapped(error, "the log ReceiptStore.put wrote") from None


def _finish_log_in(log: Log, target: Any, built: Built, log_fd: int) -> None:
    name = built.log_at[-1]
    receipts = log.put
    written = safefs.read_regular(log_fd, name) or b""
    if len(written.splitlines()) != len(receipts):
        # Name the method and its module: the learner's Day 1-6 code in
        # receipts.py is what to open, not the evaluator.
        raise InvariantFailure(
            world="",
            expected="each ReceiptStore.put of a new receipt to append one JSON"
            " line to the log",
            observed=f"after {len(receipts)} call(s) of ReceiptStore.put"
            f" (receipts.py) the log holds {len(written.splitlines())} line(s)",
            hint=placed(
                "ReceiptStore.put must append one JSON line per new receipt to the"
                " log file it was given (open it in append mode, write the line,"
                " end it with a newline); a TODO body writes nothing",
                "ReceiptStore.put",
            ),
            cause="substrate:ReceiptStore.put",
        )
    for stored in log.appended:
        safefs.append(log_fd, name, _line(target, stored, built.tree))
    if log.replacement is not None:
        _replace_log(log.replacement, log_fd, built)
    elif log.damage is not None:
        # No receipt was put: the log is created by the damage itself.
        data = safefs.read_regular(log_fd, name) or b""
        other = log.damage.conflicting(data)
        conflict = b"" if other is None else _line(target, other, built.tree)
        safefs.replace(log_fd, name, log.damage.applied(data, conflict))


_SCRATCH = "_scratch"
_SCRATCH_LOG = "scratch.jsonl"


def _line(target: Any, stored: Stored, tree: Path) -> bytes:
    """The log line the target's own store writes for one receipt, in a
    directory of its own under `tree`, read back without following links."""
    with safefs.opened(tree) as tree_fd:
        safefs.remove_tree(tree_fd, _SCRATCH)
        safefs.make_dir(tree_fd, _SCRATCH)
    scratch = tree / _SCRATCH
    remote.give_to_worker(scratch)
    try:
        log = scratch / _SCRATCH_LOG
        store = call_target("ReceiptStore(path)", target.ReceiptStore, log)
        call_target("ReceiptStore.put(receipt)", store.put, receipt(target, stored))
        with safefs.opened(tree, (_SCRATCH,)) as scratch_fd:
            line = safefs.read_regular(scratch_fd, _SCRATCH_LOG)
        if line is None:
            raise InvariantFailure(
                world="",
                expected="ReceiptStore(path).put(receipt) to append a line to the log",
                observed="the log file was never created",
                hint=placed(
                    "a store with a path appends one JSON line per new receipt",
                    "ReceiptStore.put",
                ),
                cause="substrate:ReceiptStore.put",
            )
        return line
    except safefs.Unexpected as error:
        raise _swapped(error, "the scratch log ReceiptStore.put wrote") from None
    finally:
        with safefs.opened(tree) as tree_fd:
            safefs.remove_tree(tree_fd, _SCRATCH)


def _swapped(error: safefs.Unexpected, what: str) -> InvariantFailure:
    """The lesson for a judge's path that learner code made something else."""
    return InvariantFailure(
        world="",
        expected=f"{what} to stay what the judge left there",
        observed=f"learner code replaced it: {error}",
        hint=placed(
            "the judge never follows a link: code that turns the log or the"
            " world's files into links, FIFOs or directories (in any thread,"
            " at any time) fails the world; write the log with plain appends",
            "ReceiptStore.put",
        ),
        cause="substrate:ReceiptStore.put",
    )


@functools.cache
def _assets() -> tuple[Path, Path]:
    """The million-line and long-line logs, written once per process and
    hard-linked into worlds (same file system as the worlds)."""
    directory = Path(tempfile.mkdtemp(prefix="assets-", dir=scratch_parent()))
    import atexit

    atexit.register(shutil.rmtree, directory, True)
    million = directory / "million-short-lines.jsonl"
    million.write_bytes(b"{}\n" * MILLION)  # JSON, but not one receipt among them
    long_line = directory / "one-long-line.jsonl"
    long_line.write_bytes(b'{"receipt_id": "' + b"f" * LONG_LINE_BYTES + b'"}')
    return million, long_line


def _replace_log(replacement: Replacement, log_fd: int, built: Built) -> None:
    """Put what stands there instead of the log file (in the log's
    directory, `log_fd`)."""
    assert built.log_path is not None
    path = built.log_path
    name = path.name
    kind = replacement.what
    safefs.remove(log_fd, name)
    if kind == "directory":
        safefs.make_dir(log_fd, name)
    elif kind == "fifo":
        safefs.make_fifo(log_fd, name)
    elif kind == "symlink_to_fifo":
        safefs.make_fifo(log_fd, replacement.name)
        safefs.make_symlink(log_fd, replacement.name, name)
    elif kind == "sparse":
        safefs.create_sparse(log_fd, name, replacement.size)
    elif kind in ("million_lines", "long_line"):
        million, long_line = _assets()
        safefs.link_in(million if kind == "million_lines" else long_line, log_fd, name)
    elif kind == "unreadable":
        built.receipts.path = path.with_name(replacement.name)
    else:  # pragma: no cover - judge.evidence and this function move together
        raise ValueError(f"unknown log replacement {kind!r}")
