"""One submission as Gradescope's autograder `results.json`.

Gradescope runs an autograder once per submission, so this form holds
exactly one learner (the command refuses `--gradescope` with more). Each
invariant judged at the level is a test worth one point: `passed` with its
statement, or `failed` with its lessons as text. The score is the number that
hold. A learner that could not be judged to the end (timeout, crash, out of
memory, load error) scores 0: whatever its child said about the invariants
it reached is not trusted for points. The full verdict is in `output`, and
the day7-verify status in `extra_data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from day7_verify._report import SCHEMA, LearnerVerdict, lesson_text

__all__ = ["gradescope_results"]


def gradescope_results(
    learner: LearnerVerdict, summary_text: str, isolation: str = "process"
) -> dict[str, Any]:
    """Gradescope's results.json for one learner, its verdict in words beside."""
    judged_to_end = learner.status in ("pass", "fail")
    lessons: dict[str, list[Mapping[str, Any]]] = {}
    for lesson in learner.lessons:
        lessons.setdefault(str(lesson.get("invariant", "")), []).append(lesson)
    tests: list[dict[str, Any]] = []
    for number, (name, status) in enumerate(learner.invariants, start=1):
        if status == "skip":
            continue
        passed = judged_to_end and status == "pass"
        if passed:
            output = learner.statements.get(name, "")
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
                "score": 1.0 if passed else 0.0,
                "max_score": 1.0,
                "status": "passed" if passed else "failed",
                "output": output or status,
                "visibility": "visible",
            }
        )
    if not tests:
        tests.append(
            {
                "name": "load",
                "score": 0.0,
                "max_score": 0.0,
                "status": "failed",
                "output": learner.detail,
                "visibility": "visible",
            }
        )
    return {
        "score": float(sum(test["score"] for test in tests)),
        "execution_time": int(round(learner.seconds)),
        "output": summary_text,
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
            }
        },
    }
