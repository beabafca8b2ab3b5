"""Judge many learners, a few at a time, each in its own child.

Each worker thread only waits on its child process, so `--jobs N` children
run at once and one learner's hang or crash costs the others nothing beyond
its own limits. The bundle's file list is made once; the private work
directory holding every scratch directory is removed at the end, also when
the command is interrupted (then every running child's group is killed).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from day7_verify.cohort._bundle import manifest
from day7_verify.cohort._discover import Learner
from day7_verify.cohort._judge import Judged, Settings, judge
from day7_verify.cohort._supervise import stop_all
from day7_verify.isolation._cleanup import remove_scratch
from day7_verify.isolation._preflight import check_worker
from day7_verify.isolation._sandbox import NOBODY
from day7_verify.isolation._uids import Uids
from day7_verify.isolation._unicode import unicode_tables

__all__ = ["default_jobs", "judge_all", "parts_per_learner", "scratch_base"]

# Memory-backed scratch is used when it has this much room: creating the
# bundle's 700 files there takes a tenth of the time it takes on a busy disk.
_SHM = Path("/dev/shm")
_SHM_ROOM = 2 << 30


def scratch_base() -> Path:
    """Where scratch directories go: /dev/shm when roomy, else the temp dir."""
    try:
        info = os.statvfs(_SHM)
    except OSError:
        return Path(tempfile.gettempdir())
    if info.f_bavail * info.f_frsize >= _SHM_ROOM and os.access(
        _SHM, os.W_OK | os.X_OK
    ):
        return _SHM
    return Path(tempfile.gettempdir())


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def parts_per_learner(jobs: int, learners: int) -> int:
    """How many processes one learner's suite is split across: the cores
    left to each of the learners judged at once (1 to 4)."""
    at_once = max(1, min(jobs, learners))
    return max(1, min(4, default_jobs() // at_once))


def judge_all(
    learners: Sequence[Learner],
    settings: Settings,
    jobs: int,
    done: Callable[[Judged], None] | None = None,
    scratch: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[Judged]:
    """Every learner's verdict, in the order given; `done` hears each as it ends.

    Run as root under sandbox or user isolation, each running learner's worker
    gets a uid of its own (day7_verify.isolation._uids); UidError, in one line, when the
    block cannot give `jobs` of them. JudgeCannotRun (day7_verify.isolation._preflight),
    before any learner, when a worker cannot run here as asked. Whatever
    fails with one learner is that learner's `error` verdict; what could not
    be cleaned up afterwards is said to `warn`, in one line.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    uids = None
    if settings.isolation != "process" and os.geteuid() == 0:
        uids = Uids()
        uids.check(jobs)
    files = manifest()
    base = scratch if scratch is not None else scratch_base()
    workroot = Path(tempfile.mkdtemp(dir=base))
    results: dict[int, Judged] = {}
    try:
        if uids is None:
            check_worker(settings.isolation, workroot, NOBODY, settings.memory)
        else:
            with uids.lease() as uid:
                check_worker(settings.isolation, workroot, uid, settings.memory)
        tables = unicode_tables(workroot)
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="judge") as pool:
            pending: dict[Future[Judged], int] = {
                pool.submit(
                    judge, learner, settings, files, workroot, uids, tables
                ): index
                for index, learner in enumerate(learners)
            }
            try:
                while pending:
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        index = pending.pop(future)
                        results[index] = future.result()
                        if done is not None:
                            done(results[index])
            except BaseException:
                for future in pending:
                    future.cancel()
                stop_all()
                raise
    finally:
        # Never raises: a tree a learner left that cannot be removed is a
        # warning, never the class's reports (day7_verify.isolation._cleanup).
        left = remove_scratch(workroot)
        if left is not None and warn is not None:
            warn(f"scratch not cleaned up: {left}")
    return [results[index] for index in range(len(learners))]
