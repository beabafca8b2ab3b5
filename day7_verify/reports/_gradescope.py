"""One submission as Gradescope's autograder `results.json`.

Gradescope runs an autograder once per submission, so this form holds
exactly one learner (the command refuses `--gradescope` with more). Each
invariant judged at the level is a test whose `max_score` is its weight and
whose `score` its credit in the score model (docs/score.md): `passed` when it
holds, with its statement (and, where it holds only over some of the check
groups it protects, which), `failed` with its lessons as text. The top-level
`score` is the sum of the tests' scores, the learner's `earned` points; the
assignment's points are the `possible` ones (the verdict line says both).
A learner that timed out or crashed keeps the credit of what it proved
before it stopped; without the probe (which runs after the last test) that
is only the invariants that protect no check group. The full verdict is in
`output`, and the day7-verify status and score in `extra_data`.
"""

from __future__ import annotations

from typing import Any

from day7_verify.reports._report import (
    SCHEMA,
    LearnerVerdict,
    lesson_text,
    lessons_by_invariant,
)
from day7_verify.reports._score import GROUPS, UNKNOWN, WEIGHTS, scored

__all__ = ["gradescope_results"]


def gradescope_results(
    learner: LearnerVerdict,
    summary_text: str,
    isolation: str = "process",
    seed: int | None = None,
    not_for_grading: str | None = None,
) -> dict[str, Any]:
    """Gradescope's results.json for one learner, its verdict in words beside
    (`seed`: the run's, so the verdict can be reproduced; `not_for_grading`:
    why its score should not count, said first in its output)."""
    if learner.score is None:
        learner = scored(learner)  # a verdict from before scores: score it here
    judged_to_end = learner.status in ("pass", "fail")
    lessons = lessons_by_invariant(learner.lessons)
    credits = {name: (earned, weight) for name, earned, weight in learner.credits}
    tests: list[dict[str, Any]] = []
    for number, (name, status) in enumerate(learner.invariants, start=1):
        if status == "skip":
            continue
        earned, weight = credits.get(name, (0.0, 0.0))
        passed = status == "pass"
        if passed:
            output = learner.statements.get(name, "")
            if earned < weight:
                output = f"{output}\n\n{_partial(name, earned, weight, learner)}"
        else:
            output = "\n\n".join(
                lesson_text(lesson) for lesson in lessons.get(name, ())
            )
        if not judged_to_end:
            output = f"not judged to the end: {learner.detail}\n\n{output}".rstrip()
        tests.append(
            {
                "name": name,
                "number": str(number),
                "score": earned,
                "max_score": weight,
                "status": "passed" if passed else "failed",
                "output": output.strip() or status,
                "visibility": "visible",
            }
        )
    if not tests:
        # Nothing judged (the folder does not load): one test, the error,
        # worth every point the invariants would have been.
        tests.append(
            {
                "name": "load",
                "score": 0.0,
                "max_score": float((learner.score or {}).get("possible", 0.0)),
                "status": "failed",
                "output": learner.detail,
                "visibility": "visible",
            }
        )
    return {
        # The tests' points, summed: what Gradescope shows as the score.
        "score": round(sum(test["score"] for test in tests), 4),
        "execution_time": int(round(learner.seconds)),
        "output": (
            summary_text
            if not_for_grading is None
            else f"Not for grading: {not_for_grading}\n\n{summary_text}"
        ),
        "output_format": "text",
        "test_output_format": "text",
        "stdout_visibility": "hidden",
        "visibility": "visible",
        "tests": tests,
        "extra_data": {
            "day7_verify": {
                "schema": SCHEMA,
                "status": learner.status,
                "isolation": isolation,
                "seed": seed,
                **(
                    {}
                    if not_for_grading is None
                    else {"not_for_grading": not_for_grading}
                ),
                "score": dict(learner.score or {}),
                "checks_made": (
                    None if learner.checks_made is None else list(learner.checks_made)
                ),
            }
        },
    }


def _partial(name: str, earned: float, weight: float, learner: LearnerVerdict) -> str:
    """Why an invariant that holds earns less than its weight."""
    protects = WEIGHTS.get(name, UNKNOWN).protects
    if learner.checks_made is None:
        return (
            f"credit {earned:g} of {weight:g}: the probe of which checks the"
            " evaluator makes did not run, so a hold over checks it may not"
            " make earns nothing (docs/score.md)"
        )
    missing = [g for g in GROUPS if g in protects and g not in learner.checks_made]
    return (
        f"credit {earned:g} of {weight:g}: it holds, but the evaluator makes no"
        f" working {', '.join(missing)} check, and for those it holds for free"
        " (docs/score.md)"
    )
