"""Before any learner: a worker starts here, as learners' workers will, and gets
the isolation the reports will name.

A learner's worker is started by its judge from the bundle, as the learner's
leased uid, through `worker_settings` (day7_verify.isolation._sandbox) and the preexec
of judge.remote. When that uid cannot run the interpreter (a venv under
``/root``, mode 0700) or reach the bundle (``--scratch`` in a private
folder), every learner would read as `error`, the reference solution too:
that is the judge's failure, so it is said once, before any learner, with
what to do. And a worker that does not get the isolation asked for (as
measured from inside it: its uid and namespaces) stops the run, so no report
names an isolation its learners did not have.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from day7_verify.isolation._sandbox import (
    MEASURE,
    blocked,
    cannot_run,
    expected_uid,
    give_to,
    got,
    worker_settings,
)
from judge.remote import _preexec as worker_preexec
from judge.script import INTERPRETER, SCRIPT

__all__ = ["JudgeCannotRun", "check_worker"]


class JudgeCannotRun(Exception):
    """Learner code cannot run here as asked (one line: why, and what to do)."""


def check_worker(isolation: str, workroot: Path, uid: int, memory: int) -> None:
    """Start one worker, as the learners' will be, in `workroot` as `uid`;
    JudgeCannotRun unless it runs and gets `isolation`."""
    if isolation == "process":
        return  # the command's own user, who already runs this Python
    scratch = Path(tempfile.mkdtemp(dir=workroot))
    try:
        # The same layout and modes as a learner's scratch (day7_verify.cohort._judge).
        lib = scratch / "lib"
        lib.mkdir()
        probe = lib / SCRIPT
        probe.write_text(MEASURE, encoding="utf-8")
        cwd, tmp, home, worlds = (
            scratch / name for name in ("cwd", "tmp", "home", "work")
        )
        for made in (cwd, tmp, home, worlds):
            made.mkdir()
        give_to(uid, cwd, tmp, home, worlds)
        os.chmod(scratch, 0o711)
        os.chmod(workroot, 0o711)
        settings = worker_settings(
            isolation,
            scratch=scratch,
            worlds=worlds,
            writable=[cwd, tmp, home],
            readonly=[lib],
            cpu_seconds=30,
            memory=memory,
            cwd=cwd,
            uid=uid,
            env={"HOME": str(home), "TMPDIR": str(tmp)},
        )
        argv = [
            *settings.get("prefix", ()),
            INTERPRETER,
            "-I",
            "-S",
            "-B",
            str(probe),
        ]
        try:
            done = subprocess.run(
                argv,
                preexec_fn=worker_preexec(settings),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=60,
                cwd=cwd,
                env={"PATH": os.environ.get("PATH") or os.defpath, "LC_ALL": "C.UTF-8"},
            )
        except PermissionError as error:
            # The exec itself, after the switch to `uid`.
            raise JudgeCannotRun(_why(isolation, uid, probe, str(error))) from None
        except (OSError, subprocess.SubprocessError) as error:
            raise JudgeCannotRun(
                f"the worker that runs learner code cannot start under {isolation}"
                f" isolation: {error}"
            ) from None
        out = done.stdout.decode("utf-8", "replace")
        if done.returncode != 0:
            # Told while the scratch is still there to look at.
            said = (done.stderr.decode("utf-8", "replace") or out).strip()
            said = said.splitlines()[-1] if said else f"exit status {done.returncode}"
            raise JudgeCannotRun(_why(isolation, uid, probe, said))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    measured = got(out, uid=expected_uid(isolation, uid))
    if measured != isolation:
        raise JudgeCannotRun(
            f"asked for {isolation} isolation, a worker got {measured}"
            f" (it ran as uid {out.split()[0] if out.split() else '?'});"
            f" judge with --isolation {measured} if that will do"
        )


def _why(isolation: str, uid: int, probe: Path, said: str) -> str:
    """What kept `uid` from starting the worker (from `probe`, in the bundle of
    a scratch directory in the work directory), and what to do, in one line."""
    umask = _umask()
    if isolation == "sandbox":
        # bwrap shows the interpreter and the bundle through folders of its
        # own making: their modes outside do not matter, but bwrap, without
        # capabilities by then, must enter the worker's working directory.
        advice = "; run the command with umask 022" if umask & 0o055 else ""
        return (
            "the worker that runs learner code cannot start under sandbox"
            f" isolation as uid {uid}: {said}"
            + (f" (made under umask {umask:03o}){advice}" if advice else "")
        )
    for path in (Path(INTERPRETER), Path(INTERPRETER).resolve()):
        if blocked(path, uid) is not None:
            return cannot_run(uid, said)
    found = blocked(probe, uid)
    workroot = probe.parents[2]
    if found is not None and found[0] in probe.parents[:2]:
        return (
            f"the judge's files cannot be read by uid {uid}, an unprivileged uid"
            f" such as learner code runs as ({found[0]} is mode {found[1]:o}, made"
            f" under umask {umask:03o}); run the command with umask 022"
        )
    if found is not None:
        return (
            f"the scratch directory {workroot} cannot be entered by uid {uid}, an"
            f" unprivileged uid such as learner code runs as ({found[0]} is mode"
            f" {found[1]:o}); pass --scratch DIR in a folder every user can enter,"
            " such as /dev/shm or /tmp"
        )
    return cannot_run(uid, said)


def _umask() -> int:
    """This process's umask (set back at once: nothing runs meanwhile)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask
