"""A wrong verdict's hint names evaluate_run, whoever built the check.

evaluate_run is the one function that makes every check the report holds;
which of the learner's helpers built a check is theirs to find (the worker
does not watch the learner's functions: it stays small). A wrong verdict
ends its hint "change evaluate_run in evaluation.py" and its cause is the
check's group: one mistake, one lesson.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import learner_folder
from _written_worlds import EXAMPLE_WORLDS

from judge import judging, load_target, materialise
from judge.lessons import InvariantFailure
from judge.target import Target
from judge.verdicts import assert_truth, evaluate
from strategies import truth

# The bundled _result_check, and a learner's that reads only the last result
# of the tool (a result that came earlier is missed).
_RESULT_FOUND = (
    "    found = _result_found(\n"
    "        gathered[expected.tool], joined[expected.tool], expected.contains\n"
    "    )\n"
)
_LAST_ONLY = "    found = expected.contains in (gathered[expected.tool] or [''])[-1]\n"

# evaluate_run rebuilt: every check made anew in evaluate_run, its verdict
# flipped (the helpers' checks never reach the report).
_FLIPPED = (
    "\n\ndef evaluate_run(run, workspace, receipts, case):\n"
    "    report = _evaluate_run(run, workspace, receipts, case)\n"
    "    return EvaluationReport(tuple(\n"
    "        EvaluationCheck(c.name, not c.passed, c.detail) for c in report.checks\n"
    "    ))\n"
)


def _folder(parent: Path, name: str, change: tuple[str, str], tail: str = "") -> Path:
    folder = learner_folder(parent, name)
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    old, new = change
    assert source.count(old) == 1, f"{old!r} moved: update this test"
    module.write_text(source.replace(old, new) + tail, encoding="utf-8")
    return folder


@pytest.fixture
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    change, tail = request.param
    loaded = load_target(impl_path=_folder(tmp_path, "learner", change, tail))
    assert loaded.remote
    try:
        yield loaded
    finally:
        loaded.client.stop()


def _lessons(target: Target, prefix: str) -> list[InvariantFailure]:
    """The truth lessons of the written worlds named `prefix`..."""
    lessons = []
    for label, world in EXAMPLE_WORLDS.items():
        if not label.startswith(prefix):
            continue
        with materialise(world, target) as built:
            try:
                with judging(world, target):
                    assert_truth(evaluate(target, built), truth(world), level="course")
            except InvariantFailure as failure:
                lessons.append(failure)
    return lessons


@pytest.mark.parametrize("target", [((_RESULT_FOUND, _LAST_ONLY), "")], indirect=True)
def test_a_wrong_result_verdict_built_in_a_helper_names_evaluate_run(target) -> None:
    """A result check built wrong in the learner's _result_check: its lesson
    says to change evaluate_run, under the result group's cause."""
    lessons = _lessons(target, "result")
    assert lessons, "the planted _result_check was never wrong"
    for lesson in lessons:
        assert lesson.cause == "check:result", lesson.cause
        assert lesson.hint.endswith("; change evaluate_run in evaluation.py"), (
            lesson.hint
        )


_RENAMED = ("def evaluate_run(", "def _evaluate_run(")


@pytest.mark.parametrize("target", [(_RENAMED, _FLIPPED)], indirect=True)
def test_a_check_evaluate_run_rebuilt_names_evaluate_run(target) -> None:
    """A check evaluate_run made anew (from a helper's) is evaluate_run's: its
    lesson says to change evaluate_run."""
    lessons = _lessons(target, "final")
    assert lessons
    for lesson in lessons:
        assert lesson.hint.endswith("; change evaluate_run in evaluation.py"), (
            lesson.hint
        )
