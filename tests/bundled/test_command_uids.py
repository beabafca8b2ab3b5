"""Learners judged at once under ``--isolation user`` cannot touch each other.

No namespaces hide one learner from another there, so one learner's code can
find the other's scratch directory by name (its worker's command line is in
/proc for everyone) and try to write into its worlds, delete the decoys in
its working directory, read its code and kill its worker. Each learner runs
as a uid of its own, so every try fails and the victim's verdict is the one
an identical learner judged untouched gets.

A class of three, two at a time: ``a-victim`` and ``b-attacker`` run
together; the attacker, at import, attacks for as long as it may load (and
stops early once the victim is gone), then fails to load; ``c-control``, the
victim's twin, starts after the attacker has stopped.

The workers' uids must run the command's Python: where this one is under
``/root`` (pyenv), the class is judged with a venv of ``/usr/bin/python3``
(tests/bundled/_readable_python.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import QUICK, learner_folder
from _readable_python import everyone_can_run, site, venv, why_no_system_python

from day7_verify.isolation._uids import COUNT, FIRST

_RUNNABLE = everyone_can_run(sys.executable)
_WHY_NOT = None if _RUNNABLE else why_no_system_python()

pytestmark = [
    pytest.mark.children,
    pytest.mark.skipif(os.geteuid() != 0, reason="--isolation user needs root"),
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="/proc and uid switches: Linux"
    ),
    pytest.mark.skipif(
        _WHY_NOT is not None,
        reason=f"{sys.executable} is not readable by every user, as --isolation"
        f" user needs, and {_WHY_NOT}",
    ),
]


@pytest.fixture(scope="module")
def python() -> Iterator[str]:
    """This interpreter if every uid can run it, else a venv of /usr/bin/python3."""
    if _RUNNABLE:
        yield sys.executable
        return
    base = Path(tempfile.mkdtemp(prefix="day7-uids-"))
    os.chmod(base, 0o755)
    try:
        yield str(venv(base / "venv", site(base)))
    finally:
        shutil.rmtree(base, ignore_errors=True)


# At the top of the attacker's evaluation.py: runs in its worker, as the
# worker's uid. Its own scratch directory is the parent of its working
# directory; the victim's is found in /proc, where every user reads every
# command line.
ATTACK = r"""
import json as _json, os as _os, signal as _signal, time as _time

def _attack():
    mine = _os.path.dirname(_os.getcwd())
    seen = {"me": [_os.getuid(), _os.getgid()], "found": False, "tries": 0,
            "listed": None, "done": {}}
    try:
        seen["listed"] = len(_os.listdir(_os.path.dirname(mine)))
    except OSError as error:
        seen["listed"] = type(error).__name__

    def note(what, how):
        seen["done"].setdefault(what, []).append(how)
        if len(seen["done"][what]) > 3:
            seen["done"][what] = sorted(set(seen["done"][what]))

    def attempt(what, action):
        try:
            action()
            note(what, "done")
        except OSError as error:
            note(what, type(error).__name__)

    def theirs():
        found = {}
        for pid in _os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == _os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().decode(errors="replace").split("\0")
            except OSError:
                continue
            for arg in argv:
                # A worker runs its scratch's lib/main.py.
                if not arg.endswith("/lib/main.py"):
                    continue
                scratch = _os.path.dirname(_os.path.dirname(arg))
                # A classmate: judged by this command (its work directory),
                # not by another command running on the machine.
                ours = _os.path.dirname(scratch) == _os.path.dirname(mine)
                if scratch != mine and ours:
                    found[int(pid)] = scratch
        return found

    def write(path):
        with open(path, "w") as f:
            f.write("owned")

    def evaluation(scratch):
        for folder, _, files in _os.walk(_os.path.join(scratch, "folder")):
            if "evaluation.py" in files:
                return _os.path.join(folder, "evaluation.py")
        return _os.path.join(scratch, "folder", "a-victim", "evaluation.py")

    # The folder must load within 10 s: stop before, and say what was done
    # after every round, in case the clock wins anyway.
    ends = _time.monotonic() + 8
    gone = 0
    victim = None
    while _time.monotonic() < ends:
        found = theirs()
        # The first learner found is the victim: its twin, started later, is
        # left alone.
        victim = victim if seen["found"] else next(iter(found.values()), None)
        found = {pid: scratch for pid, scratch in found.items() if scratch == victim}
        if not found:
            gone += 1
            if seen["found"] and gone > 25:
                break  # the victim is judged: nothing left to attack
            _time.sleep(0.2)
            continue
        gone = 0
        seen["found"] = True
        seen["tries"] += 1
        for pid, scratch in found.items():
            worlds = _os.path.join(scratch, "work")
            cwd = _os.path.join(scratch, "cwd")
            attempt("write-worlds", lambda: write(_os.path.join(worlds, "OWNED")))
            attempt("list-worlds", lambda: _os.listdir(worlds))
            attempt("write-home", lambda: write(_os.path.join(scratch, "home", "x")))
            attempt("write-tmp", lambda: write(_os.path.join(scratch, "tmp", "x")))
            attempt("delete-decoy", lambda: _os.unlink(_os.path.join(cwd, "README.md")))
            attempt("read-code", lambda: open(evaluation(scratch)).read())
            attempt("kill-worker", lambda: _os.kill(pid, _signal.SIGKILL))
        print("ATTACK " + _json.dumps(seen, sort_keys=True), flush=True)
        _time.sleep(0.2)
    print("ATTACK " + _json.dumps(seen, sort_keys=True), flush=True)

_attack()
raise ImportError("attacked, now failing to load")
"""


def _plant(folder: Path, code: str) -> None:
    module = folder / "evaluation.py"
    future = "from __future__ import annotations\n"
    source = module.read_text(encoding="utf-8")
    assert source.count(future) == 1, "evaluation.py's first import moved"
    module.write_text(source.replace(future, future + code), encoding="utf-8")


def _compared(learner: dict) -> dict:
    """What a verdict is, without where or how long."""
    return {
        "status": learner["status"],
        "invariants": learner["invariants"],
        "causes": [lesson.get("cause") for lesson in learner["lessons"]],
        "score": learner.get("score"),
    }


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory, python: str) -> dict:
    base = tmp_path_factory.mktemp("uids")
    cohort = base / "class"
    cohort.mkdir()
    # Slow enough to be found running, fast enough for a test: every
    # invariant fails, at worlds the worker builds.
    learner_folder(cohort, "a-victim", "returns-none")
    _plant(learner_folder(cohort, "b-attacker"), ATTACK)
    learner_folder(cohort, "c-control", "returns-none")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    report_path = base / "class.json"
    finished = subprocess.run(
        [python, "-m", "day7_verify", *QUICK, "--cohort", str(cohort)]
        + ["--isolation", "user", "--jobs", "2", "--timeout", "150"]
        + ["--json", str(report_path)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert report_path.exists(), finished.stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    learners = {Path(lr["path"]).name: lr for lr in report["learners"]}
    said = [
        json.loads(line[len("ATTACK ") :])
        for line in (learners["b-attacker"].get("output_tail") or "").splitlines()
        if line.startswith("ATTACK ")
    ]
    return {"finished": finished, "learners": learners, "seen": said}


def test_the_attacker_found_the_victim_running_and_every_try_failed(judged):
    assert judged["learners"]["b-attacker"]["status"] == "error"
    assert judged["seen"], judged["learners"]["b-attacker"]
    seen = judged["seen"][-1]
    assert seen["found"], seen  # else the class ran one at a time: no test
    assert seen["listed"] == "PermissionError", seen  # the work directory: 0711
    assert set(seen["done"]) == {
        "write-worlds",
        "list-worlds",
        "write-home",
        "write-tmp",
        "delete-decoy",
        "read-code",
        "kill-worker",
    }, seen
    for what, results in seen["done"].items():
        assert "done" not in results, (what, seen)
    # It ran as a uid of its own, from the block.
    assert FIRST <= seen["me"][0] < FIRST + COUNT and seen["me"][1] == seen["me"][0]


def test_the_victims_verdict_is_its_untouched_twins(judged):
    victim = _compared(judged["learners"]["a-victim"])
    control = _compared(judged["learners"]["c-control"])
    assert victim["status"] == "fail"
    assert not any(str(cause).startswith("crash:") for cause in victim["causes"])
    assert victim == control
