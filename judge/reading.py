"""A target's report, read once, as data: the only report the judge judges.

A report is the learner's object; its `checks`, `passed` and `render()` are
the learner's code, and may answer otherwise each time they are asked (a
property that flips, checks made anew on every read). So the worker reads
the report once, the moment the call that made it returns (worker/serve.py
`view`: the rows, `.passed`, `render()`'s text), and the judge builds a
`ReadReport` from that reading alone: every invariant judges the same
reading, never a later one. The worker reads it a second time too: a report
that reads otherwise is `unstable`, not a stable report (Task 6), and
`judge.calls.report_view` fails it. With the reading come the files of the
modules the worker loaded since the last: one of the judge's own (its
`evaluator`, imported from the judge's installation and re-exported) makes
the report `borrowed`, and a verdict built on it is refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.errors import ProtocolError, rebuilt
from judge.shape import Shown, report_problem, viewed_report

__all__ = ["ReadReport", "borrowed", "read_report"]

Row = tuple[str, bool, str]


@dataclass(frozen=True)
class ReadReport:
    """What one reading of a report held: its shape's problem (None: a
    report's shape), its rows, `.passed`, `render()`'s text (a str, or the
    repr of what it returned), or what reading it raised, as data."""

    kind: str
    shown: str
    problem: str | None = None
    rows: tuple[Row, ...] = ()
    passed: Any = None
    text: Any = None
    raised: Any = None  # reading .checks or .passed raised: the error's data
    render_raised: Any = None  # render() raised: the error's data
    unstable: bool = False
    #: A module of the judge's own the worker had loaded (a borrowed evaluator).
    borrowed: str | None = None

    @property
    def checks(self) -> tuple[Any, ...]:
        from types import SimpleNamespace

        return tuple(
            SimpleNamespace(name=n, passed=p, detail=d) for n, p, d in self.rows
        )

    def error(self) -> BaseException | None:
        """What reading its checks or .passed raised, made again, or None."""
        return None if self.raised is None else rebuilt(self.raised)

    def render(self) -> Any:
        """The text render() gave when the report was read (or its error, again)."""
        if self.render_raised is not None:
            raise rebuilt(self.render_raised)
        return self.text

    def __repr__(self) -> str:
        return self.shown


def borrowed(files: Any, ours: Sequence[str], own: str | None) -> str | None:
    """The first of `files` (the worker's module files) inside one of the
    judge's own package folders `ours` and not in the learner's folder
    `own`, or None. Lexical: the worker's word, never opened here."""
    if not isinstance(files, list):
        return None
    for file in files:
        if not isinstance(file, str) or not os.path.isabs(file):
            continue
        file = os.path.normpath(file)
        if own and file.startswith(os.path.join(own, "")):
            continue
        if any(file.startswith(os.path.join(place, "")) for place in ours):
            return file
    return None


def read_report(said: Any, kind: str, borrowed: str | None = None) -> ReadReport:
    """The `ReadReport` of what the worker read of a report (its `view`);
    `borrowed`, a module of the judge's the worker had loaded by then."""
    if not isinstance(said, dict):
        raise ProtocolError("the worker's report view is not an object")
    base = {
        "kind": kind,
        "shown": str(said.get("repr", f"<{kind}>"))[:400],
        "borrowed": borrowed,
    }
    unstable = said.get("unstable") is True
    if "raised" in said:
        return ReadReport(**base, raised=said["raised"], unstable=unstable)
    problem = report_problem(viewed_report(said))
    if problem is not None:
        return ReadReport(**base, problem=problem, unstable=unstable)
    rows = said.get("rows")
    if not isinstance(rows, list):
        raise ProtocolError("the worker's report view has no rows")
    checked = []
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 3
            and isinstance(row[0], str)
            and isinstance(row[1], bool)
            and isinstance(row[2], str)
        ):
            raise ProtocolError("the worker's report rows are malformed")
        checked.append((row[0], row[1], row[2]))
    text = said.get("text")
    if isinstance(text, list):  # not a str: its repr
        text = Shown(text[0] if text else "")
    elif not isinstance(text, str):
        text = None
    return ReadReport(
        **base,
        rows=tuple(checked),
        passed=said.get("passed"),
        text=text,
        render_raised=said.get("text_raised"),
        unstable=unstable,
    )
