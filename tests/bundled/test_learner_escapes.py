"""The real invariants against learner folders whose evaluate_run misbehaves.

Each learner is a copy of the bundled evaluator with code planted at the top
of evaluate_run, judged by tests/invariants in a child pytest (a few
invariants only, so the run stays short): an evaluate_run that loops for ever
fails the invariants that call it with a hang lesson while the others pass;
one that raises KeyboardInterrupt fails them and the run goes on to the end;
and the person's own Ctrl-C, even while the learner's code swallows it,
stops the run at once with "verification: INCOMPLETE".
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
INVARIANTS = ROOT / "tests" / "invariants"

# Two invariants that never call evaluate_run, two that do; only their
# modules are collected, so the child starts quickly.
MODULES = ("test_surface.py", "test_specification.py", "test_report.py")
SELECTED = "surface,path-normalisation,report-shape,report-verdict"

# Where evaluate_run's body starts in the bundled evaluator.
_BODY = (
    '"""Check ``run`` against ``case``: final, files, results, receipts, in order."""\n'
)

PLANTS = {
    "loops": "    while True:\n        pass\n",
    "interrupts": "    raise KeyboardInterrupt\n",
    # Tells the test it is running (at the path the test left beside it: the
    # worker's environment holds nothing of the judge's, the test's neither),
    # then swallows every interruption.
    "swallows": (
        "    import os, time\n"
        "    here = os.path.dirname(__file__)\n"
        "    with open(os.path.join(here, 'marker-path'), encoding='utf-8') as f:\n"
        "        open(f.read(), 'w').close()\n"
        "    while True:\n"
        "        try:\n"
        "            time.sleep(0.05)\n"
        "        except BaseException:\n"
        "            pass\n"
    ),
}


def learner(tmp_path: Path, plant: str) -> Path:
    folder = tmp_path / "agent"
    shutil.copytree(
        ROOT / "evaluator", folder, ignore=shutil.ignore_patterns("__pycache__")
    )
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(_BODY) == 1, "evaluate_run's docstring moved"
    module.write_text(source.replace(_BODY, _BODY + PLANTS[plant]), encoding="utf-8")
    return folder


def command(folder: Path, report: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        *(str(INVARIANTS / module) for module in MODULES),
        "--rootdir",
        str(ROOT),
        "-p",
        "no:cacheprovider",
        "-q",
        "--impl-path",
        str(folder),
        "--hypothesis-profile",
        "ci",
        "-p",
        "planted._select",
        "--planted-invariants",
        SELECTED,
        "--verification-json",
        str(report),
        *extra,
    ]


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    env.pop("CI", None)
    return {**env, **extra}


def judge(tmp_path: Path, plant: str, *extra: str) -> tuple[int, dict[str, Any], float]:
    report = tmp_path / "verification.json"
    started = time.monotonic()
    result = subprocess.run(
        command(learner(tmp_path, plant), report, *extra),
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.monotonic() - started
    assert report.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    return result.returncode, json.loads(report.read_text(encoding="utf-8")), seconds


def statuses(summary: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item["status"] for item in summary["invariants"]}


def test_an_evaluate_run_that_loops_for_ever_fails_as_a_hang(tmp_path: Path) -> None:
    """Every invariant that calls it fails with a hang lesson; the others pass;
    the run ends, complete, in seconds."""
    code, summary, seconds = judge(tmp_path, "loops", "--call-timeout", "0.5")
    assert code == 1
    assert seconds < 120
    assert (summary["verification"], summary["complete"]) == ("FAIL", True)
    assert statuses(summary) == {
        "surface": "PASS",
        "path-normalisation": "PASS",
        "report-shape": "FAIL",
        "report-verdict": "FAIL",
    }
    assert summary["lessons"]
    for lesson in summary["lessons"]:
        assert lesson["topic"] == "hang"
        assert lesson["headline"].startswith(
            "evaluate_run(run, workspace, receipts, case) did not return within 0.5 s"
        )
        assert "evaluation.py, line" in lesson["headline"]


def test_an_evaluate_run_that_raises_keyboard_interrupt_fails_only_itself(
    tmp_path: Path,
) -> None:
    """The learner's KeyboardInterrupt is a lesson; every selected test runs and
    the summary is FAIL, never PASS."""
    code, summary, _ = judge(tmp_path, "interrupts")
    assert code == 1
    assert (summary["verification"], summary["complete"]) == ("FAIL", True)
    assert statuses(summary)["report-shape"] == "FAIL"
    headlines = {lesson["headline"] for lesson in summary["lessons"]}
    assert (
        "evaluate_run(run, workspace, receipts, case) raised KeyboardInterrupt,"
        " but should return an EvaluationReport"
    ) in headlines


def _as_at_a_terminal() -> None:
    # A person's Ctrl-C reaches a run started at a terminal. A command started
    # in the background by a shell without job control (`cmd &` in a script,
    # as CI may start the suite) inherits SIGINT ignored, and so would the run
    # under test: it could not be interrupted at all, whatever the judge does.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs POSIX signals")
def test_the_persons_ctrl_c_stops_the_run_even_when_the_learner_swallows_it(
    tmp_path: Path,
) -> None:
    """A real SIGINT while the learner's loop swallows every interruption: the
    run stops within seconds, exit 2, and says INCOMPLETE, interrupted."""
    marker = tmp_path / "running"
    report = tmp_path / "verification.json"
    folder = learner(tmp_path, "swallows")
    (folder / "marker-path").write_text(str(marker), encoding="utf-8")
    process = subprocess.Popen(
        command(folder, report, "--call-timeout", "120"),
        cwd=tmp_path,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_as_at_a_terminal,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and process.poll() is None:
            assert time.monotonic() < deadline, "the learner's code never ran"
            time.sleep(0.05)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        output, _ = process.communicate(timeout=30)
        stopped_in = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert stopped_in < 10
    summary = json.loads(report.read_text(encoding="utf-8"))
    assert (summary["verification"], summary["complete"]) == ("INCOMPLETE", False)
    assert summary["stopped"] == "interrupted by Ctrl-C"
    assert "verification: INCOMPLETE (interrupted by Ctrl-C" in output
