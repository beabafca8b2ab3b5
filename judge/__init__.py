"""The judge: a drawn world made real, the target called, its report judged.

The names the suite's tests (and a lesson's snippet) import, re-exported
lazily so that importing the package runs nothing: the command's child
imports only what one learner's run needs.

The way of one world: `judge.evidence` works out, in one pure step,
what the world is as evidence; `materialise` (build.py) makes that real in a
fresh tree through the target's own names (layout.py, steps.py, store.py,
play.py); `evaluate` and `judging` (verdicts.py)
call `evaluate_run` through `call_target` (calls.py) and compare the report
with `truth(world)`; a difference is a lesson (lessons.py, its cause from
causes.py). The target is
loaded by `load_target` (target.py): the bundled evaluator here, any other in
a worker (`worker/`) reached through `remote.py`.
"""

from __future__ import annotations

import importlib
from typing import Any

# Each module, and the names it lends the package.
_HOMES = {
    "judge.build": "build_in materialise",
    "judge.built": "evidence_bytes rewrite_evidence rewrite_in_root scratch_parent",
    "judge.steps": "make_case",
    "judge.verdicts": "assert_names assert_truth evaluate judged judging"
    " rows_without_tree seen_wrong shown_names shown_row told_smaller verdict_cause",
    "judge.hardened": "judge_access judge_hostile",
    "judge.snapshot": "object_state spy_on tree_changes tree_snapshot",
    "judge.watch": "Figures reported_figures short_unless_thorough watched",
    "judge.lessons": "CallAborted InvariantFailure fail",
    "judge.calls": "call_target expect_error report_view timed_out",
    "judge.target": "REQUIRED_NAMES Target load_target",
    "judge.remote": "recast remote_replace",
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names.split()}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> Any:
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module 'judge' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
