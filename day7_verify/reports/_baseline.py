"""Regressions: each learner and invariant compared with an earlier report.

A learner (or one of its invariants) is `newly failing` when it passed
before and does not now, `fixed` when the reverse, `still failing` or
`still passing` otherwise, and `new` when the earlier report does not have
it. A learner the earlier report has, this run did not judge, and whose
folder is no longer there is `gone` (a folder removed or renamed since); one
this run simply did not ask for (another folder, another shard) is not. An
invariant skipped in either report (a level's rule) gets no mark.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from day7_verify.reports._report import ClassReport, LearnerVerdict, SchemaError

__all__ = ["change", "compare"]


def change(passed_before: bool, passes_now: bool) -> str:
    if passed_before:
        return "still passing" if passes_now else "newly failing"
    return "fixed" if passes_now else "still failing"


def _marked(learner: LearnerVerdict, old: LearnerVerdict | None) -> LearnerVerdict:
    if old is None:
        invariants = {
            name: "new" for name, status in learner.invariants if status != "skip"
        }
        return replace(
            learner,
            baseline={"status": None, "change": "new", "invariants": invariants},
        )
    marks: dict[str, str] = {}
    for name, status in learner.invariants:
        before = old.invariant_status(name)
        if status == "skip" or before == "skip":
            continue
        marks[name] = (
            "new" if before is None else change(before == "pass", status == "pass")
        )
    return replace(
        learner,
        baseline={
            "status": old.status,
            "change": change(old.passed, learner.passed),
            "invariants": marks,
        },
    )


def compare(
    report: ClassReport,
    old: ClassReport,
    present: Callable[[str], bool] = os.path.lexists,
) -> ClassReport:
    """`report` with every learner marked against `old`, and the learners of
    `old` whose folder is not `present` any more as gone; SchemaError if
    incomparable."""
    level, old_level = report.settings.get("level"), old.settings.get("level")
    if level != old_level:
        raise SchemaError(
            f"the baseline was judged at the {old_level} level, this run at the {level}"
            " level; judge both at one level"
        )
    before = {learner.identity: learner for learner in old.learners}
    now = {learner.identity for learner in report.learners}
    # A learner the baseline judged and this run did not is told as gone,
    # never dropped: a folder that vanished is a change a teacher must see.
    gone = tuple(
        (learner.path, learner.status)
        for learner in old.learners
        if learner.identity not in now and not present(os.fsdecode(learner.identity))
    )
    marked = report.with_learners(
        [_marked(learner, before.get(learner.identity)) for learner in report.learners]
    )
    return replace(marked, gone=gone)
