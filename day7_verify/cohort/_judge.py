"""Judge one learner: a scratch directory, a private bundle, one bounded child.

Per learner, under the command's private work directory:

    tmpXXXX/        the scratch directory, removed afterwards
      bundle/       a private copy of everything that judges (see _bundle.py)
      folder/NAME/  a copy of the learner's folder: the original is never written
      lib/main.py   the worker, as one script (judge/script.py)
      cwd/          the child's working directory, with three decoy files
      tmp/ home/    its TMPDIR and HOME
      work/         where the worlds are built
    tmpXXXX/        the result and progress files, outside the scratch directory

Nothing the worker can see names the judge (issue 37): not these names,
not the decoys' text, not its environment (judge.remote builds it from
nothing), argv or modules (judge/script.py).

The child gets an environment built from nothing (PATH, a UTF-8 locale,
TMPDIR and DAY7_SCRATCH, HOME, PYTHONHASHSEED=0,
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1) and is
started as `python -S -s -B`, so neither site-packages nor the user's
environment reaches it. `-I` is not used because it would also ignore
PYTHONHASHSEED, and the same folder must get the same verdicts twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from day7_verify.cohort._bundle import CHILD_SCRIPT, Manifest
from day7_verify.cohort._discover import Learner, shown
from day7_verify.cohort._supervise import Finished, Stopped, run_bounded
from day7_verify.isolation._cleanup import remove_scratch
from day7_verify.isolation._preflight import JudgeCannotRun
from day7_verify.isolation._sandbox import (
    ISOLATIONS,
    JUDGE_FSIZE,
    NOBODY,
    give_to,
    judge_packages,
    worker_settings,
    wrap,
)
from day7_verify.isolation._space import DEFAULT_SPACE, bounded, why_unbounded
from day7_verify.isolation._uids import UidError, Uids
from day7_verify.isolation._unicode import give_tables
from day7_verify.reports._evidence import Untrusted, read_progress, read_result
from day7_verify.reports._report import LearnerVerdict
from day7_verify.reports._score import scored
from day7_verify.reports._verdict import Limits, at_level, classify, counted
from judge import safefs
from judge.lessons import folder_line
from judge.script import write_script
from judge.target import DAY7_MODULES, LEVELS
from judge.title import TITLE

__all__ = [
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_MEMORY",
    "DEFAULT_TIMEOUT",
    "PROFILES",
    "SEED_LIMIT",
    "Settings",
    "fresh_seed",
    "judge",
]

#: Seconds a learner may take. The course reference takes 15 s of CPU in a
#: child (bundle copy included) and took 30 to 55 s on a 2-core machine three
#: times oversubscribed: twelve times the first, over three times the last.
DEFAULT_TIMEOUT = 180.0
#: Address space of a child. A passing run peaks at 262 MiB of it at the
#: course level (271 MiB at hardened): eight times that, rounded.
DEFAULT_MEMORY = 2 << 30
#: Bytes of a child's output kept (its first quarter and its last).
DEFAULT_MAX_OUTPUT = 1 << 20
#: Seconds the folder may take to import, before any test runs.
LOAD_TIMEOUT = 30.0

PROFILES: tuple[str, ...] = ("ci", "dev", "thorough", "quick")
#: Seeds are below this: 64 bits, as a JSON reader in any language keeps them
#: (those in a report are drawn below 2**32, short enough to type).
SEED_LIMIT = 1 << 64

# A learner's folder is small source code; anything larger is not what the
# command was pointed at.
_MAX_FOLDER_FILES = 2_000
_MAX_FOLDER_BYTES = 64 << 20
_MAX_FOLDER_DEPTH = 32
_NOT_COPIED = frozenset({"__pycache__", ".git", ".hg", ".venv", "node_modules"})
_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Non-blocking: a FIFO swapped in for a file must not stop the judge.
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

# Left in the child's working directory, where a checkout's own files would
# be: code that rewrites or deletes what it finds there is seen doing so.
# Their text is a checkout's, naming nothing of the judge.
DECOYS = {
    "README.md": "# agent\n",
    "pyproject.toml": '[project]\nname = "agent"\n',
    "tox.ini": "[tox]\nenvlist = py3\n",
}


def fresh_seed() -> int:
    """A run's seed when none is given: drawn anew, so never known beforehand."""
    return secrets.randbits(32)


@dataclass(frozen=True)
class Settings:
    """How every learner of one run is judged."""

    level: str = "course"
    profile: str = "ci"
    timeout: float = DEFAULT_TIMEOUT
    memory: int = DEFAULT_MEMORY
    max_output: int = DEFAULT_MAX_OUTPUT
    load_timeout: float = LOAD_TIMEOUT
    isolation: str = "process"
    #: Processes one learner's suite is split across (judge/parts.py).
    parts: int = 1
    #: Bytes a learner may write in its scratch, on a tmpfs of its own
    #: (day7_verify.isolation._space); None where that cannot be done.
    space: int | None = DEFAULT_SPACE
    #: The run's seed: every learner's examples and the score's probe are
    #: drawn from it, so a verdict is reproduced with `--seed`; None (only
    #: for callers other than the command) leaves the profile to decide.
    seed: int | None = None
    #: Why the verdicts are not for grading (learner code could reach the
    #: judge's own evaluator: _sandbox.not_for_grading), said in every
    #: report; None: they are.
    not_for_grading: str | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level {self.level!r} is not one of {', '.join(LEVELS)}")
        if self.profile not in PROFILES:
            raise ValueError(
                f"profile {self.profile!r} is not one of {', '.join(PROFILES)}"
            )
        if not 0 < self.timeout < 1e6:
            raise ValueError(f"a timeout must be positive seconds, got {self.timeout}")
        if self.memory < 256 << 20:
            raise ValueError(
                f"a memory limit below 256 MiB cannot start Python: {self.memory}"
            )
        if self.isolation not in ISOLATIONS:
            raise ValueError(
                f"isolation {self.isolation!r} is not one of {', '.join(ISOLATIONS)}"
            )
        if not 1 <= self.parts <= 8:
            raise ValueError(f"parts must be between 1 and 8, got {self.parts}")
        if self.space is not None and self.space < 64 << 20:
            raise ValueError(
                f"a scratch below 64 MiB cannot hold a learner's worlds: {self.space}"
            )
        if self.seed is not None and not 0 <= self.seed < SEED_LIMIT:
            raise ValueError(
                f"a seed is a whole number from 0 to {SEED_LIMIT - 1}, got {self.seed}"
            )
        if self.max_output < 1024:
            raise ValueError(
                f"an output limit must be at least 1 KiB, got {self.max_output}"
            )

    def to_json(self) -> dict[str, Any]:
        # No seed (a caller other than the command): none said, not null.
        seeded = {} if self.seed is None else {"seed": self.seed}
        return {
            "level": self.level,
            "profile": self.profile,
            "timeout": self.timeout,
            "memory_mib": self.memory >> 20,
            "max_output_bytes": self.max_output,
            "isolation": self.isolation,
            # null: the scratch is shared, bounded per file only.
            "scratch_mib": None if self.space is None else self.space >> 20,
            **seeded,
            **(
                {}
                if self.not_for_grading is None
                else {"not_for_grading": self.not_for_grading}
            ),
        }


@dataclass(frozen=True)
class Judged:
    """A verdict, and what judging it cost (not part of any report)."""

    verdict: LearnerVerdict
    copy_seconds: float
    peak_rss_kib: int
    vm_peak_kib: int = 0  # as the child said: measured, never trusted


def judge(
    learner: Learner,
    settings: Settings,
    manifest: Manifest,
    workroot: Path,
    uids: Uids | None = None,
    tables: Path | None = None,
) -> Judged:
    """Judge one learner in its own child; never raises for anything the learner did.

    Its verdict lists exactly the level's invariants, whatever its run reached,
    and it passes only when every one of them holds; its score is made from
    that list (docs/score.md). With `uids` (run as root under sandbox or
    user), its worker runs as a uid leased from them for the whole run.
    `tables` are Hypothesis's Unicode tables (day7_verify.isolation._unicode), copied
    into the judge's private storage.
    """
    clock = time.monotonic()
    try:
        with _uid(uids) as uid:
            judged = _judge(learner, settings, manifest, workroot, uid, tables)
        return replace(judged, verdict=_leveled(judged.verdict, settings.level))
    except _CLASS_ERRORS:
        raise
    except Exception as error:  # noqa: BLE001  one learner never takes the class
        # Whatever the judge met in this folder (a tree it could not copy,
        # a child it could not start, a verdict it could not score) is this
        # learner's row, saying why; every classmate is judged as usual.
        failed = LearnerVerdict(
            learner.path,
            "error",
            time.monotonic() - clock,
            f"the judge could not handle this folder: {_one_line(error)}",
        )
        with contextlib.suppress(Exception):
            failed = _leveled(failed, settings.level)
        return Judged(failed, 0.0, 0)


#: What stops the whole run, not one learner: the judge cannot run here, or
#: the command is ending.
_CLASS_ERRORS = (UidError, JudgeCannotRun, Stopped)


def _leveled(verdict: LearnerVerdict, level: str) -> LearnerVerdict:
    """The verdict with exactly the level's invariants, counted and scored."""
    verdict = scored(counted(at_level(verdict, level), level))
    if verdict.status == "error":
        # Scored as nothing run (0 of every point), but told as what it is:
        # the folder's error, not a row per invariant that never ran.
        verdict = replace(verdict, invariants=())
    return verdict


def _one_line(error: BaseException) -> str:
    """An exception as one line of a row (a verdict's detail is one line)."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:400] if text else type(error).__name__


@contextlib.contextmanager
def _uid(uids: Uids | None) -> Iterator[int]:
    if uids is None:
        yield NOBODY
    else:
        with uids.lease() as uid:
            yield uid


def _judge(
    learner: Learner,
    settings: Settings,
    manifest: Manifest,
    workroot: Path,
    uid: int,
    tables: Path | None = None,
) -> Judged:
    clock = time.monotonic()
    problem = learner.problem or _unloadable(learner.folder)
    if problem is not None:
        return Judged(
            LearnerVerdict(learner.path, "error", time.monotonic() - clock, problem),
            0.0,
            0,
        )
    scratch = Path(tempfile.mkdtemp(dir=workroot))
    private = Path(tempfile.mkdtemp(dir=workroot))
    try:
        copied = time.monotonic()
        manifest.copy_into(scratch / "bundle")
        # The judge's code is root's alone: the worker runs from lib/ and never
        # needs it (under user isolation it could otherwise read it by name).
        os.chmod(scratch / "bundle", 0o700)
        copy_seconds = time.monotonic() - copied
        folder = scratch / "folder" / (learner.folder.resolve().name or "agent")
        problem = _copy_folder(learner.folder, folder)
        if problem is not None:
            return Judged(
                LearnerVerdict(
                    learner.path, "error", time.monotonic() - clock, problem
                ),
                copy_seconds,
                0,
            )
        cwd, tmp, home = scratch / "cwd", scratch / "tmp", scratch / "home"
        worlds, lib = scratch / "work", scratch / "lib"
        for made in (cwd, tmp, home, worlds, lib):
            made.mkdir()
        script = write_script(lib)
        for name, text in DECOYS.items():
            (cwd / name).write_text(text, encoding="utf-8")
        token = secrets.token_hex(16)
        result_path = private / f"{token}.json"
        progress_path = private / f"{token}.progress"
        nonce = secrets.token_hex(32)
        config = {
            "nonce": nonce,
            "result": str(result_path),
            "progress": str(progress_path),
            "folder": str(folder),
            "level": settings.level,
            "profile": settings.profile,
            "memory": settings.memory,
            "timeout": settings.timeout,
            "parent": os.getpid(),
            "load_timeout": min(settings.load_timeout, settings.timeout),
            "parts": settings.parts,
            "seed": settings.seed,
        }
        if settings.isolation == "user":
            # Other processes' names are in reach without a pid namespace:
            # the child takes a plain interpreter's before any learner code
            # runs (judge.title).
            config["title"] = TITLE
        cpu_seconds = int(settings.timeout * 1.5) + 10
        if settings.isolation != "process":
            # The worker, as its own uid, writes only its worlds, its working
            # directory, HOME and /tmp; it reads its copy of the folder.
            # Another learner judged at once (another uid) can do neither:
            # without a sandbox it may still find these paths by name.
            give_to(uid, cwd, tmp, home)
            if settings.isolation == "user":
                # In the sandbox no other learner sees them, and bwrap,
                # still root but without capabilities, must enter the cwd.
                for private_place in (cwd, tmp, home):
                    os.chmod(private_place, 0o700)
            # The worlds' folder stays the judge's, passable by this worker's
            # group only: the worker owns the trees inside, never the folders
            # holding them, so it cannot swap a tree for a link
            # (judge.remote.give_to_worker).
            if os.geteuid() == 0:
                os.chown(worlds, 0, uid, follow_symlinks=False)
                os.chmod(worlds, 0o710)
            _share_with_group(uid, scratch / "folder")
            os.chmod(scratch, 0o711)
            os.chmod(workroot, 0o711)
        # The judge (the child: pytest, Hypothesis, the suite, every world's
        # truth) runs the learner's code nowhere in its own process: each
        # call goes to a worker, started by the child in this isolation.
        worker = worker_settings(
            settings.isolation,
            scratch=scratch,
            worlds=worlds,
            writable=[cwd, tmp, home],
            readonly=[folder, lib],
            cpu_seconds=cpu_seconds,
            memory=settings.memory,
            cwd=cwd,
            uid=uid,
            env={
                "HOME": str(home),
                "TMPDIR": "/tmp" if settings.isolation == "sandbox" else str(tmp),
            },
        )
        worker["script"] = str(script)
        # Where the judge's own packages are installed: a report built on a
        # module loaded from there is refused (judge/reading.py).
        worker["ours"] = [str(place) for place in judge_packages()]
        argv = [
            sys.executable,
            "-S",
            "-s",
            "-B",
            str(scratch / "bundle" / CHILD_SCRIPT),
        ]
        if settings.space is not None and why_unbounded() is None:
            # Everything the learner may write on one tmpfs of its own: its
            # full disk is its own failure, never a classmate's.
            space = scratch / "space"
            space.mkdir()
            argv = bounded(
                argv,
                size=settings.space,
                space=space,
                places=[cwd, tmp, home, worlds],
                cwd=cwd,
            )
        wrapped = wrap(
            "process",
            argv,
            scratch=scratch,
            cpu_seconds=cpu_seconds,
            cwd=cwd,
            # The judge builds the hardened level's 4 GiB sparse worlds.
            fsize=JUDGE_FSIZE,
        )
        environment = _environment(tmp, home)
        environment["DAY7_SCRATCH"] = str(worlds)
        # Hypothesis's own files in the judge's private folder, out of the
        # learner's reach (day7_verify.isolation._unicode), its tables already made.
        storage = private / "hypothesis"
        give_tables(tables, storage)
        environment["HYPOTHESIS_STORAGE_DIRECTORY"] = str(storage)
        environment["DAY7_WORKER"] = json.dumps(worker)
        finished = run_bounded(
            wrapped.argv,
            preexec=wrapped.preexec,
            cwd=cwd,
            env=environment,
            stdin_data=(json.dumps(config) + "\n").encode("utf-8"),
            timeout=settings.timeout,
            max_output=settings.max_output,
        )
        finished = replace(finished, returncode=wrapped.returncode(finished.returncode))
        untrusted = None
        try:
            result = read_result(result_path, nonce)
        except Untrusted as error:
            result, untrusted = None, str(error)
        clean = _Normaliser(folder, learner.path, scratch, tmp, learner.folder)
        verdict = classify(
            path=learner.path,
            limits=Limits(settings.timeout, settings.memory),
            finished=clean.finished(finished),
            result=clean(result),
            untrusted=untrusted,
            progress=read_progress(progress_path),
            seconds=time.monotonic() - clock,
        )
        said = (result or {}).get("vm_peak_kib")
        vm_peak = said if isinstance(said, int) else 0
        return Judged(verdict, copy_seconds, finished.peak_rss_kib, vm_peak)
    finally:
        # Learner processes may still live (under --isolation user, until the
        # uid is returned): removed through descriptors, never opening a
        # folder swapped for a FIFO or a link to a device, iteratively however
        # deep. What stays is removed again with the work directory, and
        # only that says what is left (day7_verify.isolation._cleanup never raises).
        remove_scratch(scratch)
        remove_scratch(private)


def _share_with_group(gid: int, top: Path) -> None:
    """Readable by group `gid` only, writable by nobody but root (as root only).

    A classmate's worker could otherwise read, or run, this learner's code.
    Walked through descriptors (safefs.walk): no path is longer than a name.
    """
    if os.geteuid() != 0:
        os.chmod(top, 0o755)
        return
    for _, _, others, folder in safefs.walk(top):
        os.fchown(folder, 0, gid)
        os.fchmod(folder, 0o750)
        for name in others:
            os.chown(name, 0, gid, dir_fd=folder, follow_symlinks=False)
            found = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISREG(found.st_mode):
                # Our own copy, not yet seen by any learner code: no race.
                os.chmod(name, 0o640, dir_fd=folder)


def _unloadable(folder: Path) -> str | None:
    """Why `folder` cannot be a learner's agent folder, in one line; None if it can."""
    try:
        return _not_agent_folder(folder)
    except OSError as error:
        return f"the folder cannot be loaded: it cannot be read ({error.strerror})"


def _not_agent_folder(folder: Path) -> str | None:
    if folder.is_symlink():
        return (
            "the folder cannot be loaded: it is a symbolic link;"
            " judge the folder itself"
        )
    if not folder.exists():
        return "the folder cannot be loaded: it does not exist"
    if not folder.is_dir():
        return "the folder cannot be loaded: it is not a folder"
    if not any((folder / f"{name}.py").is_file() for name in DAY7_MODULES):
        names = ", ".join(f"{name}.py" for name in DAY7_MODULES)
        return (
            f"the folder cannot be loaded: it holds none of {names};"
            " point at a course checkout or its src/tiny_llm/agent"
        )
    if not os.path.lexists(folder / "evaluation.py"):
        # Every Day 7 name lives there: judged without it, each would be a
        # lesson "X is not defined", seven of them for one missing file.
        return (
            "the folder cannot be loaded: it has no evaluation.py, the module"
            " that defines evaluate_run and the other Day 7 names"
        )
    return None


@dataclass
class _Budget:
    """What a copy may still hold: a learner's folder is small source code."""

    files: int = _MAX_FOLDER_FILES
    size: int = _MAX_FOLDER_BYTES

    def too_much(self) -> str:
        return (
            "the folder cannot be loaded: it holds more than"
            f" {_MAX_FOLDER_FILES} files or {_MAX_FOLDER_BYTES >> 20} MiB,"
            f" or folders more than {_MAX_FOLDER_DEPTH} deep;"
            " point at the agent folder itself"
        )


def _copy_folder(source: Path, target: Path) -> str | None:
    """Copy the learner's folder into `target`; None, or why it cannot be.

    The judge runs as root: it reads nothing that is not the folder's own.
    Every folder and file is opened relative to its parent without following
    a link (one swapped in after the listing is refused, not read), and every
    copy is made relative to its own parent's descriptor, so no path is ever
    longer than one name (a tree deeper than PATH_MAX copies like any other);
    links are copied as links and may lead only inside the copy; and a file
    with more than one name (a hard link, perhaps to a file of the teacher's)
    is refused, since its content need not be the learner's.
    """
    try:
        top = os.open(source, _OPEN_FOLDER)
    except OSError as error:
        return f"the folder cannot be loaded: it cannot be opened ({error.strerror})"
    tree = _Tree()
    try:
        target.mkdir(parents=True)
        out = os.open(target, _OPEN_FOLDER)
        try:
            problem = _copy_tree(top, out, PurePosixPath(), _Budget(), tree)
        finally:
            os.close(out)
    finally:
        os.close(top)
    return problem or tree.link_out()


def _copy_tree(
    folder: int, there: int, inside: PurePosixPath, budget: _Budget, tree: _Tree
) -> str | None:
    """Copy the open folder `folder` into the open folder `there`."""
    if len(inside.parts) > _MAX_FOLDER_DEPTH:
        return budget.too_much()
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError as error:
        return (
            f"the folder cannot be loaded: {shown(str(inside))} cannot be read"
            f" ({error.strerror})"
        )
    for entry in entries:
        if entry.name in _NOT_COPIED:
            continue
        name = inside / entry.name
        problem = None
        if entry.is_symlink():
            budget.files -= 1
            if budget.files < 0:
                return budget.too_much()
            text = os.readlink(entry.name, dir_fd=folder)
            os.symlink(text, entry.name, dir_fd=there)
            tree.links[name.parts] = text
        elif entry.is_dir(follow_symlinks=False):
            try:
                below = os.open(entry.name, _OPEN_FOLDER, dir_fd=folder)
            except OSError as error:
                return (
                    f"the folder cannot be loaded: {shown(str(name))}: {error.strerror}"
                )
            try:
                os.mkdir(entry.name, 0o755, dir_fd=there)
                made = os.open(entry.name, _OPEN_FOLDER, dir_fd=there)
                try:
                    problem = _copy_tree(below, made, name, budget, tree)
                finally:
                    os.close(made)
            finally:
                os.close(below)
        elif entry.is_file(follow_symlinks=False):
            problem = _copy_file(folder, entry.name, there, name, budget)
        # FIFOs, sockets and devices are not source code: left out.
        if problem is not None:
            return problem
    return None


_MAKE_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _copy_file(
    folder: int, entry: str, there: int, name: PurePosixPath, budget: _Budget
) -> str | None:
    try:
        source = os.open(entry, _OPEN_FILE, dir_fd=folder)
    except OSError as error:
        return f"the folder cannot be loaded: {shown(str(name))}: {error.strerror}"
    try:
        found = os.fstat(source)
        if not stat.S_ISREG(found.st_mode):
            return None  # swapped for something that is not source code: left out
        if found.st_nlink > 1:
            return (
                f"the folder cannot be loaded: {shown(str(name))} is a hard link"
                f" (one file with {found.st_nlink} names); copy it in as a file"
                " of its own"
            )
        budget.files -= 1
        if budget.files < 0:
            return budget.too_much()
        with open(os.open(entry, _MAKE_FILE, 0o644, dir_fd=there), "wb") as copy:
            while chunk := os.read(source, 1 << 16):
                budget.size -= len(chunk)
                if budget.size < 0:
                    return budget.too_much()
                copy.write(chunk)
    except OSError as error:
        return f"the folder cannot be loaded: {shown(str(name))}: {error.strerror}"
    finally:
        os.close(source)
    return None


#: Links one lookup follows before the kernel gives up (ELOOP): a longer
#: chain leads nowhere, in or out.
_MAX_LINKS = 40


@dataclass
class _Tree:
    """The links a copy holds, by their parts below the top, with their
    text. They are judged here, in memory, never by following them on disk
    (a chain of a thousand made realpath recurse)."""

    links: dict[tuple[str, ...], str] = field(default_factory=dict)

    def link_out(self) -> str | None:
        """Why a link in the copy leads out of it (where the worker could
        read what the learner did not write, under user or process isolation)."""
        for where in sorted(self.links):
            text = self.links[where]
            if self._leads_out(where, text):
                return (
                    "the folder cannot be loaded:"
                    f" {shown('/'.join(where))} is a symbolic link out of the"
                    f" folder (to {shown(text)}); copy the file in"
                )
        return None

    def _leads_out(self, where: tuple[str, ...], text: str) -> bool:
        """Whether the link at `where` reaches outside the top, resolved as
        the kernel would: component by component, each link's text in its
        place, `..` from where a link led."""
        here = list(where[:-1])
        pending = text.split("/")
        if text.startswith("/"):
            return True
        followed = 1
        while pending:
            part = pending.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not here:
                    return True
                here.pop()
                continue
            step = (*here, part)
            if step in self.links:
                followed += 1
                if followed > _MAX_LINKS:
                    return False
                inner = self.links[step]
                if inner.startswith("/"):
                    return True
                pending = inner.split("/") + pending
                continue
            here.append(part)
        return False


def _environment(tmp: Path, home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH") or os.defpath,
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "TMP": str(tmp),
        "TEMP": str(tmp),
        # Where the suite builds its worlds (judge/build.py): inside this
        # learner's scratch too, so a child killed mid-test leaves none behind.
        "DAY7_SCRATCH": str(tmp),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


def _literally(text: str) -> Callable[[re.Match[str]], str]:
    # A function replacement: backslashes in a path are not escapes.
    return lambda _: text


class _Normaliser:
    """Scratch paths in what a child said, rewritten to what a reader knows.

    The copy of the folder becomes the learner's own path; a temporary
    directory the suite made becomes `$TMPDIR/...`; anything else in the
    scratch directory `$SCRATCH`. So the same folder judged twice reads the
    same, and a learner reads its own path.
    """

    def __init__(
        self, folder: Path, path: str, scratch: Path, tmp: Path, real: Path
    ) -> None:
        self._rules = [
            # A plain test's FOLDER line (judge/snippets.py) names the folder
            # as the learner's checkout does, relative to its root.
            (
                re.compile("^FOLDER = " + re.escape(repr(str(folder))), re.M),
                "FOLDER = " + repr(folder_line(os.path.abspath(real))),
            ),
            # In code (a reproduction snippet's `impl_path=...`) the folder is
            # a Python literal: it becomes the literal of the learner's
            # absolute path, never the path as typed pasted into the quotes
            # (a name with a quote in it would end the literal and run code;
            # a relative one would fail from any other directory).
            (
                re.compile(re.escape(repr(str(folder)))),
                repr(os.path.abspath(real)),
            ),
            (re.compile(re.escape(str(folder))), path),
            (re.compile(re.escape(str(tmp)) + r"/[^/\s'\"]+"), "$TMPDIR/…"),
            (re.compile(re.escape(str(tmp))), "$TMPDIR"),
            (re.compile(re.escape(str(scratch))), "$SCRATCH"),
        ]

    def text(self, value: str) -> str:
        for pattern, replacement in self._rules:
            value = pattern.sub(_literally(replacement), value)
        return value

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self(item) for item in value]
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        return value

    def finished(self, finished: Finished) -> Finished:
        return replace(finished, output=self.text(finished.output))
