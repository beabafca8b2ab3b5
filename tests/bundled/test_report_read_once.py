"""A report is read once, as data, and judged on that one reading (issue 37, 3).

A learner's report is the learner's object: its `checks`, `.passed` and
`render()` may answer otherwise each time they are asked. The worker reads
it the moment the call returns (`worker/serve.py` `view`), twice, and the
judge judges only the first reading (`judge/reading.py`): a report that
reads otherwise the second time fails as unstable, and one that changes only
later is judged as it first read, however often the judge looks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import QUICK, command_environment, learner_folder
from _written_worlds import EXAMPLE_WORLDS
from hypothesis import assume, given, settings

from day7_verify.isolation._sandbox import detect
from judge import load_target, materialise, report_view
from judge.lessons import InvariantFailure
from judge.reading import ReadReport
from judge.verdicts import evaluate
from strategies import truth, worlds

#: A world one of whose checks fails: a report that shifts to true shows.
WORLD = EXAMPLE_WORLDS["final absent"]


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("shifting")
    loaded = {
        name: load_target(impl_path=learner_folder(base, name, *plants))
        for name, plants in {
            "shifting": ("shifting-report",),
            "late": ("shifting-late", "shifting-report"),
        }.items()
    }
    yield loaded
    for target in loaded.values():
        target.client.stop()


def _evaluated(target):
    with materialise(WORLD, target) as built:
        return evaluate(target, built)


def test_a_report_that_reads_otherwise_the_second_time_is_unstable(targets) -> None:
    """Checks that turn true on their second read, a .passed that alternates:
    the report fails as unstable, naming EvaluationReport."""
    with pytest.raises(InvariantFailure) as failed:
        _evaluated(targets["shifting"])
    lesson = failed.value
    assert lesson.cause == "shape:EvaluationReport.unstable", lesson.cause
    assert "read otherwise the second time" in str(lesson)
    assert "change EvaluationReport in evaluation.py" in str(lesson)


def test_a_report_is_judged_on_its_first_reading_however_often_read(targets) -> None:
    """A report that changes only from its third read on is judged as it read
    first: its rows, .passed and render() the same on every look, and no
    request made to the worker for them."""
    target = targets["late"]
    report = _evaluated(target)
    assert isinstance(report, ReadReport)
    rows = report_view(report)
    want = [(check.name, check.passed) for check in truth(WORLD)]
    assert [(name, passed) for name, passed, _ in rows] == want
    requests = next(target.client.numbers)
    for _ in range(3):
        assert report_view(report) == rows
        assert report.passed is False
        assert report.render().splitlines()[0] == "evaluation: FAIL"
    assert next(target.client.numbers) == requests + 1


@settings(max_examples=25, deadline=None)
@given(world=worlds())
def test_a_shifting_report_never_passes_a_world_with_a_failed_fact(
    targets, world
) -> None:
    """A report whose checks turn true and whose .passed alternates from
    their second read is, on any world with a fact that fails, refused as
    unstable.

    Task 6 (a stable report): the judge reads a report once and the worker
    a second time; a report that answers otherwise on the second read is
    never judged on a reading that suits it, whichever world is drawn.
    """
    assume(not all(check.passed for check in truth(world)))
    with pytest.raises(InvariantFailure) as failed:
        with materialise(world, targets["shifting"]) as built:
            report_view(evaluate(targets["shifting"], built))
    assert failed.value.cause == "shape:EvaluationReport.unstable"


@pytest.mark.children
@pytest.mark.parametrize("seed", [1, 7])
def test_the_command_fails_a_shifting_report_under_any_seed(
    tmp_path: Path, seed: int
) -> None:
    """Judged by the command (set 2's s3d: checks all true from their second
    read, .passed alternating), the learner FAILs, told once as an unstable
    report, whatever the seed."""
    folder = learner_folder(tmp_path, "agent", "shifting-report")
    out = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-m", "day7_verify", *QUICK, str(folder), "--seed", str(seed)]
        + ["--isolation", detect().isolation, "--json", str(out)],
        cwd=tmp_path,
        env=command_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    [learner] = json.loads(out.read_text(encoding="utf-8"))["learners"]
    assert learner["status"] == "fail", learner
    causes = {lesson.get("cause") for lesson in learner["lessons"]}
    assert "shape:EvaluationReport.unstable" in causes, causes
