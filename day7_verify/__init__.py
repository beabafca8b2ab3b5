"""day7-verify: judge learners' Day 7 evaluators, each in its own bounded child.

The command is `day7-verify PATH... [--cohort ROOT] [--json FILE] ...`
(docs/checking-a-class.md). From Python:

- `main(argv)`: the command itself; returns its exit status;
- `judge_all(learners, settings, jobs)`: judge `Learner`s under `Settings`;
- `ClassReport`, `LearnerVerdict`, `SCHEMA`, `STATUSES`: the verdicts and
  their versioned JSON form (`read_report` reads one back);
- `cohort(root)`, `learner_at(path)`: find learners.
"""

from __future__ import annotations

from day7_verify._cli import main
from day7_verify.cohort._discover import Learner, cohort, learner_at
from day7_verify.cohort._judge import Settings
from day7_verify.cohort._pool import judge_all
from day7_verify.reports._report import (
    SCHEMA,
    STATUSES,
    ClassReport,
    LearnerVerdict,
    read_report,
)

__all__ = [
    "SCHEMA",
    "STATUSES",
    "ClassReport",
    "Learner",
    "LearnerVerdict",
    "Settings",
    "cohort",
    "judge_all",
    "learner_at",
    "main",
    "read_report",
]
