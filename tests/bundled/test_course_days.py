"""The real course at every published day passes the Day 7 verdict.

The course (skyzh/tiny-llm) changes its agent package in place after Day 7:
Day 8 adds `ApprovalDecision` to workspace.py, tests the approval callback by
truth value and skips call ids a loaded log holds; Days 8 and 9 add modules.
A Day 7 verdict must rely only on what every one of those states shares
(../docs/invariants.md, "Which course days a verdict holds for"). So the
reference agent folder at each published commit, and a learner of today's
course who has done Day 7 and not Day 8, are judged here, whole, by the
command, and every invariant must hold.

The course is never part of this repository: its folders are extracted at
test time from a git clone named by `DAY7_COURSE_GIT` (a clone, or a bare
git dir, of skyzh/tiny-llm; `.ci/run` sets it when it finds one) into a
temporary folder. Without one that holds these commits, the test skips and
says why. Marked `children`: it runs whole judgements in child processes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.children

#: The course's published days: Day 7, Day 8, Day 9, and HEAD when this test
#: was written (evaluation.py is byte-identical in all four).
DAYS = {"e4c3a22": "Day 7", "2539f2b": "Day 8", "85d102c": "Day 9", "1078c08": "HEAD"}
TODAY = "1078c08"
REFERENCE = "src/tiny_llm_ref/agent"
STARTER = "src/tiny_llm/agent"
#: The modules of Days 1-7 a Day 7 learner has finished.
DAY_1_TO_7 = (
    "protocol receipts workspace generation checkpoint loop evaluation"
    " compaction steering".split()
)

_APPROVAL_CLASS = re.compile(
    r"@dataclass\(frozen=True\)\nclass ApprovalDecision:.*?\n\n\n", re.DOTALL
)
_POLICY_CLASS = "@dataclass(frozen=True)\nclass ToolPolicy"


def _git_dir() -> str:
    """The course's git dir, from DAY7_COURSE_GIT; skip, saying why, if none."""
    named = os.environ.get("DAY7_COURSE_GIT", "")
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the course is extracted with git archive")
    if not named:
        pytest.skip(
            "DAY7_COURSE_GIT is not set: name a clone (or bare git dir) of"
            " skyzh/tiny-llm to judge the course at each published day"
        )
    path = Path(named)
    git_dir = path / ".git" if (path / ".git").is_dir() else path
    missing = [commit for commit in DAYS if not _holds(str(git_dir), commit)]
    if missing:
        pytest.skip(
            f"DAY7_COURSE_GIT={named} holds no commit {', '.join(missing)} of"
            " skyzh/tiny-llm (not a clone of it, or an older one)"
        )
    return str(git_dir)


def _holds(git_dir: str, commit: str) -> bool:
    """Whether the git dir holds `commit` (git missing: it holds nothing)."""
    try:
        asked = subprocess.run(
            ["git", "--git-dir", git_dir, "cat-file", "-e", f"{commit}^{{commit}}"],
            capture_output=True,
        )
    except OSError:
        return False
    return asked.returncode == 0


def _extract(git_dir: str, commit: str, into: Path) -> Path:
    """The commit's reference and starter agent folders, under `into/commit`."""
    folder = into / commit
    folder.mkdir()
    archive = subprocess.run(
        ["git", "--git-dir", git_dir, "archive", commit, REFERENCE, STARTER],
        capture_output=True,
        check=True,
    ).stdout
    with tempfile.TemporaryFile() as data:
        data.write(archive)
        data.seek(0)
        with tarfile.open(fileobj=data) as tar:
            for member in tar.getmembers():
                # Only plain files and folders under the two agent paths.
                assert member.isfile() or member.isdir(), member.name
                parts = Path(member.name).parts
                assert parts[0] == "src" and ".." not in parts, member.name
            if hasattr(tarfile, "data_filter"):  # Python 3.12, and late 3.10/3.11
                tar.extractall(folder, filter="data")
            else:
                tar.extractall(folder)  # noqa: S202 (its members checked above)
    return folder


def _day7_learner(today: Path, day7: Path, into: Path) -> Path:
    """A learner of today's course at Day 7: today's starter folder with every
    Day 1-7 module finished as today's reference has it, except workspace.py,
    which is the Day 7 reference's plus the starter's `ApprovalDecision` (its
    TODO body, not honoured by execute); branching.py and evidence.py stay
    the starter's, unfinished."""
    learner = into / "day7-learner"
    shutil.copytree(today / STARTER, learner)
    for module in DAY_1_TO_7:
        shutil.copy(today / REFERENCE / f"{module}.py", learner / f"{module}.py")
    starter = (today / STARTER / "workspace.py").read_text(encoding="utf-8")
    approval = _APPROVAL_CLASS.search(starter)
    assert approval is not None, "today's starter has no ApprovalDecision class"
    assert "TODO" in approval.group(0)
    workspace = (day7 / REFERENCE / "workspace.py").read_text(encoding="utf-8")
    assert "ApprovalDecision" not in workspace
    at = workspace.index(_POLICY_CLASS)
    (learner / "workspace.py").write_text(
        workspace[:at] + approval.group(0) + workspace[at:], encoding="utf-8"
    )
    for later in ("branching.py", "evidence.py"):  # the starter's, unfinished
        unfinished = (learner / later).read_text(encoding="utf-8")
        assert unfinished != (today / REFERENCE / later).read_text(encoding="utf-8")
    return learner


def test_the_course_passes_at_every_published_day() -> None:
    """The course reference at Day 7, Day 8, Day 9 and HEAD, and a Day 7
    learner of today's course, each pass every invariant judged at the course
    level (the command, seeded by DAY7_VERIFY_SEED as every command test).

    Why it matters: a class does Day 7 whatever day the course has reached;
    a judge that needs a later day's name or behaviour fails honest work."""
    git_dir = _git_dir()
    with tempfile.TemporaryDirectory(prefix="day7-course-") as scratch:
        root = Path(scratch)
        extracted = {commit: _extract(git_dir, commit, root) for commit in DAYS}
        folders = {
            f"reference at {DAYS[commit]} ({commit})": extracted[commit] / REFERENCE
            for commit in DAYS
        }
        folders["a Day 7 learner of today's course"] = _day7_learner(
            extracted[TODAY], extracted["e4c3a22"], root
        )
        out = root / "report.json"
        environment = {
            k: v for k, v in os.environ.items() if not k.startswith("PYTEST")
        }
        environment.pop("PYTHONPATH", None)
        run = subprocess.run(
            [sys.executable, "-m", "day7_verify", *map(str, folders.values())]
            + ["--jobs", "2", "--json", str(out)],
            cwd=root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert out.is_file(), run.stderr[-2000:]
        judged = {
            learner["path"]: learner
            for learner in json.loads(out.read_text(encoding="utf-8"))["learners"]
        }
        failing = {}
        for label, folder in folders.items():
            learner = judged.get(str(folder))
            assert learner is not None, f"{label} was not judged: {sorted(judged)}"
            bad = {
                name: status
                for name, status in learner["invariants"].items()
                if status not in ("pass", "skip")
            }
            if learner["status"] != "pass" or bad:
                headlines = [lesson.get("headline") for lesson in learner["lessons"]]
                failing[label] = (learner["status"], bad, headlines[:2])
        assert not failing, f"{failing}\n{run.stdout[-3000:]}"
        assert run.returncode == 0, run.stdout[-3000:]
