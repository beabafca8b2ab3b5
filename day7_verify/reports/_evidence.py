"""What a child left behind, read without trusting it: its result and its progress.

The result is the only source of a verdict. It is accepted only when it is a
regular file (not a symlink), within a size bound, valid JSON of the
expected shape, and carries the nonce the child was given on standard input.
The progress file only ever explains a verdict that is not a pass (what was
running when time ran out); a forged one can say nothing better than that.
"""

from __future__ import annotations

import hmac
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PROTOCOL", "Progress", "Untrusted", "read_progress", "read_result"]

#: The child's result format (day7_verify/cohort/_child.py says the same).
PROTOCOL = 1

MAX_RESULT_BYTES = 32 << 20
MAX_PROGRESS_BYTES = 8 << 20


class Untrusted(Exception):
    """A result file exists but cannot be believed; one line saying why."""


def _read_bounded(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file no larger than `limit`; None if absent."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Untrusted(f"it cannot be examined: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise Untrusted("it is not a regular file")
    if info.st_size > limit:
        raise Untrusted(f"it is larger than {limit} bytes")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise Untrusted(f"it cannot be opened: {error.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Untrusted("it is not a regular file")
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                raise Untrusted(f"it is larger than {limit} bytes")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


_RESULT_TYPES: dict[str, tuple[type, ...]] = {
    "phase": (str,),
    "load_error": (str, type(None)),
    "exit_code": (int, type(None)),
    "complete": (bool,),
    "stopped": (str, type(None)),
    "collected": (int,),
    "finished": (int,),
    "unfinished": (list,),
    "memory_error": (dict, type(None)),
    "outside_writes": (dict, type(None)),
    "summary": (dict, type(None)),
}


def read_result(path: Path, nonce: str) -> dict[str, Any] | None:
    """The child's result, or None when it wrote none; Untrusted when it is bad."""
    data = _read_bounded(path, MAX_RESULT_BYTES)
    if data is None:
        return None
    try:
        result = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Untrusted("it is not JSON") from None
    if not isinstance(result, dict):
        raise Untrusted("it is not a JSON object")
    given = result.get("nonce")
    if not isinstance(given, str) or not hmac.compare_digest(given, nonce):
        raise Untrusted("it does not carry the nonce its judge was given")
    if result.get("protocol") != PROTOCOL:
        raise Untrusted(f"its protocol is {result.get('protocol')!r}, not {PROTOCOL}")
    for name, types in _RESULT_TYPES.items():
        if name in result and not isinstance(result[name], types):
            raise Untrusted(
                f"its {name!r} is not {' or '.join(t.__name__ for t in types)}"
            )
    if result.get("phase") not in ("load", "suite"):
        raise Untrusted("it names no phase")
    if result["phase"] == "suite" and not {"complete", "exit_code", "summary"} <= set(
        result
    ):
        raise Untrusted("it lacks the suite's outcome")
    summary = result.get("summary")
    if summary is not None and not (
        isinstance(summary.get("verification"), str)
        and isinstance(summary.get("invariants"), list)
        and isinstance(summary.get("lessons", []), list)
    ):
        raise Untrusted("its summary is not the suite's summary")
    return result


@dataclass
class Progress:
    """What the child said it was doing, as far as it said."""

    phase: str = ""
    collected: list[tuple[str, str]] = field(
        default_factory=list
    )  # (nodeid, invariant)
    started: list[str] = field(default_factory=list)
    done: set[str] = field(default_factory=set)
    outcomes: dict[str, str] = field(default_factory=dict)  # nodeid -> failed/skipped
    memory_error: str | None = None  # the first test a MemoryError reached the judge in

    @property
    def running(self) -> str | None:
        """The test that started last of those that did not finish, if any
        (the parts of a split run each have one running)."""
        for nodeid in reversed(self.started):
            if nodeid not in self.done:
                return nodeid
        return None

    def invariant_of(self, nodeid: str) -> str:
        return dict(self.collected).get(nodeid, "")


def read_progress(path: Path) -> Progress:
    """Whatever can be read of the progress file; never raises."""
    progress = Progress()
    try:
        data = _read_bounded(path, MAX_PROGRESS_BYTES)
    except Untrusted:
        return progress
    for line in (data or b"").decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        _apply(progress, event)
    return progress


def _apply(progress: Progress, event: dict[str, Any]) -> None:
    if isinstance(event.get("phase"), str):
        progress.phase = event["phase"]
    collected = event.get("collected")
    if isinstance(collected, list):
        # One line per part of a split run: together they are the suite.
        known = {nodeid for nodeid, _ in progress.collected}
        progress.collected += [
            (str(pair[0]), str(pair[1]))
            for pair in collected
            if isinstance(pair, list) and len(pair) == 2 and str(pair[0]) not in known
        ]
        progress.phase = "tests"
    if isinstance(event.get("start"), str):
        progress.started.append(event["start"])
    if isinstance(event.get("done"), str):
        progress.done.add(event["done"])
    if isinstance(event.get("memory_error"), str) and progress.memory_error is None:
        progress.memory_error = event["memory_error"]
    report = event.get("report")
    outcome = event.get("outcome")
    if isinstance(report, str) and outcome in ("failed", "skipped"):
        if progress.outcomes.get(report) != "failed":
            progress.outcomes[report] = str(outcome)
