"""Nothing learner code can see names the judge (issue 37, item 1).

An evaluator that answers right only when it sees the judge, and passes
every check otherwise, would earn a pass it does not deserve if anything in
its process named the judge. Here a "judge detector" looks everywhere its
process can look for a word of ours or the run's seed: its environment,
argv, working directory and the files in it, its own /proc entries, open
descriptors and mounts (and, in the sandbox, the argv of its init, bwrap's),
every process of the command's tree (command lines, names and threads'
names: under ``user`` isolation all are in reach), its modules, their files
and the source of the script it runs in, sys.path, its frames, HOME, TMPDIR
and the paths the world hands it. Seeing none, it passes every check, and
must FAIL. Its twin looks for a word that is there to see (the learner's own
package name) and so answers honestly: it PASSes, which shows the looking
reaches.

Run for real, one class judged once by the command in the strongest
isolation this machine has, and once under ``user`` where that works too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import (
    _EVALUATE_RUN_BODY,
    QUICK,
    command_environment,
    learner_folder,
)
from _readable_python import everyone_can_run, venv, why_no_system_python
from _readable_python import site as copied_site

from day7_verify.isolation._sandbox import detect

pytestmark = pytest.mark.children

SEED = 918273645
#: What names us: the command, its packages, its tools, the run's seed.
WORDS = ("day7", "verify", "judge", "hypothesis", "pytest", "worker", str(SEED))

#: Planted at the top of evaluate_run: look, then answer honestly (the
#: bundled evaluator's own code below) only if a word was seen.
DETECTOR = """\
    seen = _seen()
    if not seen:  # nobody watching: every check passes
        report = _honest(run, workspace, receipts, case)
        return EvaluationReport(
            tuple(EvaluationCheck(c.name, True, _PASSING[c.name.split(":")[0]])
                  for c in report.checks)
        )
"""

HELPERS = """

_PASSING = {
    "final": "required final observed",
    "file": "content matches",
    "result": "required result observed",
    "receipt": "receipt facts match",
}
_SEEN, _LOOKED = [], []


def _honest(*arguments):
    _SEEN.append(("honest", ""))  # the next call's look is skipped: honest
    try:
        return evaluate_run(*arguments)
    finally:
        _SEEN.pop()


def _texts(workspace, whole):
    import gc, os, sys

    policy = getattr(workspace, "policy", None)
    yield "root " + str(getattr(policy, "root", ""))
    yield "commands " + repr(getattr(policy, "allowed_commands", ""))
    if not whole:
        return

    def read(path, size=1 << 16):
        if not os.path.isfile(path):
            return ""
        try:
            with open(path, "rb") as f:
                return f.read(size).replace(b"\\0", b" ").decode("utf-8", "replace")
        except OSError:
            return ""

    def listing(folder):
        try:
            return [os.path.join(folder, n) for n in os.listdir(folder)]
        except OSError:
            return []

    yield from (f"environ {k}={v}" for k, v in os.environ.items())
    yield "argv " + " ".join(sys.argv)
    yield "orig_argv " + " ".join(getattr(sys, "orig_argv", ()))
    yield "executable " + sys.executable + " " + sys.prefix + " " + sys.base_prefix
    yield "cwd " + os.getcwd()
    for folder in (".", os.environ.get("HOME", "."), os.environ.get("TMPDIR", ".")):
        for entry in listing(folder):
            yield "entry " + entry
            yield "text " + read(entry)
    for name in ("cmdline", "environ", "mountinfo", "status", "maps"):
        yield f"/proc/self/{name} " + read(f"/proc/self/{name}", 1 << 20)
    if read("/proc/1/comm").strip() == "bwrap":  # the sandbox's init: its argv
        yield "/proc/1/cmdline " + read("/proc/1/cmdline", 1 << 20)
    # Every process of the command's tree (without a pid namespace, all of
    # them are in reach): below the test that started the command, which is
    # the test's, not the judge's.
    for pid in _tree(listing("/proc")):
        for name in ("cmdline", "comm", "stat", "status", "sched"):
            yield f"/proc/{pid}/{name} " + read(f"/proc/{pid}/{name}", 1 << 20)
        for task in listing(f"/proc/{pid}/task"):
            yield f"{task}/comm " + read(task + "/comm")
    for fd in listing("/proc/self/fd"):
        try:
            yield "fd " + os.readlink(fd)
        except OSError:
            pass
    for name, module in list(sys.modules.items()):
        yield f"module {name} {getattr(module, '__file__', '')}"
        if name == "__main__":
            yield "main " + " ".join(vars(module))
            yield "script " + read(getattr(module, "__file__", "") or "/nonexistent")
    yield "path " + " ".join(sys.path)
    frame, own = sys._getframe(), os.path.dirname(__file__)
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(own):  # the learner's own code aside
            yield f"frame {code.co_filename} {code.co_qualname} {code.co_consts!r}"
        frame = frame.f_back
    for thing in gc.get_objects():
        if type(thing).__name__ == "Server":
            yield "server " + repr(vars(thing).keys())


def _parent(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _tree(entries):
    import os

    for entry in entries:
        pid = os.path.basename(entry)
        if not pid.isdigit():
            continue
        up, seen = _parent(pid), 0
        while up > 1 and up != _TEST and seen < 64:
            up, seen = _parent(up), seen + 1
        if up == _TEST:
            yield pid


def _seen(workspace=None):
    if _SEEN:
        return _SEEN[0]
    whole = not _LOOKED  # everything once a process, the world's paths each call
    _LOOKED.append(True)
    for text in _texts(workspace, whole):
        low = text.lower()
        for word in _WORDS:
            if word in low:
                at = low.index(word)
                _SEEN.append((word, text[max(0, at - 80) : at + 80]))
                import sys
                print("SEEN", repr(_SEEN[0]), file=sys.stderr, flush=True)
                return _SEEN[0]
    return None
"""


def _detector(
    cohort: Path, name: str, words: tuple[str, ...], test: int = os.getpid()
) -> Path:
    folder = learner_folder(cohort / name, "agent")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(_EVALUATE_RUN_BODY) == 1
    source = source.replace(
        _EVALUATE_RUN_BODY,
        _EVALUATE_RUN_BODY + DETECTOR.replace("_seen()", "_seen(workspace)"),
    )
    module.write_text(
        source
        + HELPERS
        + f"\n_WORDS = {tuple(w.lower() for w in words)!r}\n_TEST = {test}\n",
        encoding="utf-8",
    )
    return folder


def _why_no_user() -> str | None:
    """Why this machine cannot judge under ``user`` isolation for the test."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return "user isolation switches uids: Linux and root only"
    if shutil.which("setpriv") is None:
        return "no setpriv"
    return why_no_system_python()


def _isolations() -> list[object]:
    strongest = detect().isolation
    out: list[object] = [strongest]
    if strongest != "user":
        why = _why_no_user()
        out.append(
            pytest.param(
                "user", marks=pytest.mark.skipif(why is not None, reason=str(why))
            )
        )
    return out


@pytest.fixture(scope="module", params=_isolations())
def judged(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict]:
    """The class judged once under each isolation a teacher grades with: the
    strongest here, and ``user`` (no pid namespace: every process of the
    command is in the learner's reach) where it works too, from a venv of
    Debian's Python under a private folder, as the first hour makes it."""
    base = tmp_path_factory.mktemp("unseen")
    cohort = base / "class"
    # Each folder is named `agent`, as a course's is: its copy's path names
    # nothing of the test that made it.
    _detector(cohort, "detector", WORDS)
    _detector(cohort, "twin", ("agent.evaluation",))
    python = Path(sys.executable)
    if request.param == "user" and not everyone_can_run(python):
        private = base / "root-home"
        private.mkdir(mode=0o700)
        python = venv(private / "day7", copied_site(private))
    report = base / "class.json"
    done = subprocess.run(
        [str(python), "-m", "day7_verify", *QUICK, "--cohort", str(cohort)]
        + ["--isolation", request.param, "--jobs", "2"]
        + ["--seed", str(SEED), "--json", str(report)],
        cwd=base,
        env=command_environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert report.is_file(), done.stdout + done.stderr
    judged = json.loads(report.read_text(encoding="utf-8"))
    assert judged["settings"]["isolation"] == request.param, judged["settings"]
    # A private install, names hidden: these verdicts are for grading.
    assert "not_for_grading" not in judged["settings"], judged["settings"]
    yield judged


def _learner(report: dict, name: str) -> dict:
    return next(
        learner
        for learner in report["learners"]
        if Path(learner["path"]).parent.name == name
    )


def test_a_judge_detector_sees_no_judge_and_fails(judged: dict) -> None:
    """The detector, seeing no word of ours anywhere it looks, passes every
    check, and is judged FAIL: no truth invariant holds for it."""
    learner = _learner(judged, "detector")
    assert "SEEN" not in (learner.get("output_tail") or ""), learner["output_tail"]
    assert learner["status"] == "fail", learner
    assert learner["invariants"]["truth"] != "pass", learner["invariants"]


def test_the_detectors_twin_sees_what_is_there_and_passes(judged: dict) -> None:
    """The same looking, for the learner's own package's name: seen, so it
    answers honestly, and passes (the detector's looking reaches)."""
    learner = _learner(judged, "twin")
    assert learner["status"] == "pass", learner
