"""Where learner code could borrow the judge's own evaluator, every report says
its verdicts are not for grading (issue 37, item 2).

A learner's `evaluation.py` that puts the judge's installed `evaluator` on
`sys.path` and re-exports its names passes as its own. The worker runs on
the base interpreter with no site-packages (judge/script.py), so only a
path the learner's uid can read lets it: `process` isolation always (the
learner runs as the judge's user), `user` when the judge's packages are
readable by every uid, `sandbox` when the system's Python holds them
unmasked. Then `settings.not_for_grading` says why, in every report.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from _command_learners import QUICK, command_environment, learner_folder

from day7_verify.isolation._sandbox import (
    _python_paths,
    judge_packages,
    not_for_grading,
)


def _package(where: Path, mode: int = 0o755) -> Path:
    package = where / "evaluator"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for folder in (where, package):
        os.chmod(folder, mode)
    return package


def test_process_isolation_is_never_for_grading() -> None:
    """Under process isolation learner code runs as the judge's user."""
    why = not_for_grading("process", [])
    assert why is not None and "process isolation" in why


@pytest.mark.skipif(os.geteuid() != 0, reason="the modes are root's to choose")
def test_user_isolation_is_for_grading_only_when_the_judge_is_private() -> None:
    """Under user isolation: a package every uid can read is named, with
    what to do; one under a folder only root can enter is not."""
    # Outside pytest's own temporary folder, which only root can enter.
    with tempfile.TemporaryDirectory() as made:
        os.chmod(made, 0o755)
        _user_cases(Path(made))


def _user_cases(tmp_path: Path) -> None:
    shared = _package(tmp_path / "shared")
    why = not_for_grading("user", [shared])
    assert why is not None and str(shared) in why and "/root" in why
    private = _package(tmp_path / "private")
    os.chmod(private.parent, 0o700)
    assert not_for_grading("user", [private]) is None
    unreadable = _package(tmp_path / "unreadable")
    os.chmod(unreadable / "__init__.py", 0o600)
    assert not_for_grading("user", [unreadable]) is None


def test_sandbox_isolation_names_a_package_the_sandbox_shows() -> None:
    """Under sandbox isolation: a package in the system's Python (bound into
    the sandbox, not masked) is named; one in a masked site-packages or
    outside every bound folder is not."""
    shown, masked = _python_paths()
    visible = Path("/usr/lib/python3/dist-packages/evaluator")
    if any(visible.is_relative_to(place) for place in masked):
        pytest.skip("this Python masks /usr/lib/python3/dist-packages")
    why = not_for_grading("sandbox", [visible])
    assert why is not None and str(visible) in why
    assert not_for_grading("sandbox", [masked[0] / "evaluator"]) is None
    assert not_for_grading("sandbox", [Path("/opt/day7/evaluator")]) is None


def test_the_judges_packages_are_where_this_command_imports_them() -> None:
    """`judge_packages` finds the evaluator the command would lend."""
    import evaluator

    found = judge_packages()
    assert Path(evaluator.__file__).resolve().parent in found


@pytest.mark.children
def test_every_report_says_a_process_run_is_not_for_grading(tmp_path: Path) -> None:
    """Judged under process isolation, the terminal, JSON, JUnit, HTML and
    Gradescope reports each say the verdict is not for grading, and why."""
    folder = learner_folder(tmp_path, "agent", "import-fails")
    out = {kind: tmp_path / f"r.{kind}" for kind in ("json", "xml", "html", "g")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            str(folder),
            "--isolation",
            "process",
        ]
        + ["--json", str(out["json"]), "--junit", str(out["xml"])]
        + ["--html", str(out["html"]), "--gradescope", str(out["g"])],
        cwd=tmp_path,
        env=command_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    why = not_for_grading("process")
    assert f"\n  not for grading: {why}\n" in done.stdout, done.stdout
    report = json.loads(out["json"].read_text(encoding="utf-8"))
    assert report["settings"]["not_for_grading"] == why
    assert f'name="not_for_grading" value="{why}"' in out["xml"].read_text("utf-8")
    page = out["html"].read_text("utf-8")
    assert f"not for grading: {html.escape(why)}" in page
    gradescope = json.loads(out["g"].read_text(encoding="utf-8"))
    assert gradescope["output"].startswith(f"Not for grading: {why}\n")
    assert gradescope["extra_data"]["day7_verify"]["not_for_grading"] == why


def test_a_report_built_on_the_judges_own_evaluator_is_refused(
    tmp_path: Path,
) -> None:
    """A learner whose modules re-export the judge's installed evaluator (here
    the checkout's) gets no verdict from it: the report names the module of
    ours its worker loaded, and fails as borrowed."""
    from _command_learners import ROOT, borrowing_folder

    from judge import load_target, materialise
    from judge.lessons import InvariantFailure
    from judge.verdicts import evaluate
    from strategies import PASSING_WORLD

    target = load_target(impl_path=borrowing_folder(tmp_path, "agent", ROOT))
    try:
        with pytest.raises(InvariantFailure) as failed:
            with materialise(PASSING_WORLD, target) as built:
                evaluate(target, built)
    finally:
        target.client.stop()
    lesson = failed.value
    assert lesson.cause == "borrowed:evaluator", lesson.cause
    assert str(ROOT / "evaluator") in str(lesson), str(lesson)


def test_a_copy_of_the_evaluator_as_the_learners_own_is_judged(tmp_path: Path) -> None:
    """The same evaluator, copied into the learner's folder (the command's own
    tests judge such copies), loads nothing of the judge's: it is judged as
    it is (copying public code is a matter of plagiarism, not of the judge)."""
    from judge import load_target, materialise, report_view
    from judge.verdicts import evaluate
    from strategies import PASSING_WORLD

    target = load_target(impl_path=learner_folder(tmp_path, "agent"))
    try:
        with materialise(PASSING_WORLD, target) as built:
            rows = report_view(evaluate(target, built))
    finally:
        target.client.stop()
    assert rows and all(passed for _, passed, _ in rows)


@pytest.mark.children
def test_a_borrower_judged_by_the_command_is_refused(tmp_path: Path) -> None:
    """Judged by the command under process isolation (where the judge's
    installation is in reach), a learner re-exporting the judge's evaluator
    fails: its reports are refused as borrowed, and the report says the run
    is not for grading anyway."""
    from _command_learners import borrowing_folder

    # Where the command itself imports the evaluator from: the checkout in a
    # development venv, the installed wheel under tox. A learner borrows
    # from the judge's own installation, wherever it is.
    where = subprocess.run(
        [sys.executable, "-c", "import evaluator; print(evaluator.__file__)"],
        cwd=tmp_path,
        env=command_environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    site = Path(where.stdout.strip()).parent.parent
    folder = borrowing_folder(tmp_path, "agent", site)
    out = tmp_path / "r.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            str(folder),
            "--isolation",
            "process",
        ]
        + ["--json", str(out)],
        cwd=tmp_path,
        env=command_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    report = json.loads(out.read_text(encoding="utf-8"))
    [learner] = report["learners"]
    assert learner["status"] == "fail", learner
    causes = {lesson.get("cause") for lesson in learner["lessons"]}
    assert "borrowed:evaluator" in causes, causes
    assert report["settings"]["not_for_grading"]
