"""The child: judge one learner's folder in this process, and say so in a file.

The command copies this file into a learner's private bundle and starts it as
`python -S -s -B <bundle>/day7_child.py` in a fresh scratch directory. With
`-S` no site-packages is on `sys.path`: everything that judges (the suite,
the strategies, pytest, Hypothesis) is imported from the bundle, so a learner
that rewrites what it can find damages only its own copy.

Standard input carries one JSON line: the folder, the level, the profile, the
run's seed, the memory limit, a progress path, a result path and a nonce. The verdict is
written only to the result path, as JSON carrying the nonce; the command
trusts nothing else (not this process's exit status). The progress file, one
JSON object a line, says what is running, so a crash or a hang can be told.

Nothing here may import from the command's own package: it is not on the path.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

PROTOCOL = 1
BUNDLE = Path(__file__).resolve().parent
SUITE = BUNDLE / "suite"

# What the learner's code may not change while it is judged: the working
# directory (the command leaves decoys there, where a checkout's own files
# would be), HOME, its own folder and this bundle, the judge itself.
# Evaluation is read-only; code that rewrites or deletes what it finds around
# it is caught doing so. Hypothesis keeps its own files in `.hypothesis`.
_JUDGE_OWNED = frozenset({".hypothesis"})
# Files up to this size are compared by content; larger ones, and every file
# of the bundle (700 of them, after each test), by size, time and inode.
_WHOLE_FILE = 1 << 20


def main() -> None:
    config = json.loads(sys.stdin.readline())
    _close_stdin()
    _die_with(int(config["parent"]))
    _limit(int(config["memory"]), float(config["timeout"]))
    # The bundle first, then its third-party packages, then the standard
    # library; `-S` left no site-packages to remove.
    rest = [p for p in sys.path if p not in ("", str(BUNDLE))]
    # (_bundle.THIRD_PARTY: the name tells Hypothesis it is not the user's code.)
    sys.path[:] = [str(BUNDLE), str(BUNDLE / "site-packages"), *rest]
    if "title" in config:
        # No pid namespace: learner code could read this process's name and
        # command line, which name the judge; the command's own took the
        # same title, on the same kernel, before this child was started.
        from judge.title import disguise

        disguise(config["title"])
    progress = _Progress(config["progress"])
    watched = _Watched(Path(config["folder"]))
    outcome: dict[str, Any] = {"phase": "load"}
    progress.write({"phase": "load"})
    started = time.monotonic()
    problem = _load(config["folder"], config["level"], float(config["load_timeout"]))
    outcome["load_seconds"] = round(time.monotonic() - started, 3)
    changes = watched.changes(deep=True)
    if problem is not None:
        outcome["load_error"] = problem
    else:
        outcome["phase"] = "suite"
        progress.write({"phase": "suite"})
        outcome.update(_run_suite(config, progress, watched))
    if changes:
        # What the import changed, before any test: it stands over whatever
        # a test changed later, which the suite's outcome may also name.
        outcome["outside_writes"] = {
            "test": "",
            "invariant": "",
            "when": "import",
            "changes": changes,
        }
    outcome.update(protocol=PROTOCOL, nonce=config["nonce"], vm_peak_kib=_vm_peak())
    _write_result(Path(config["result"]), outcome)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    # Leave now: a learner's atexit hook or lingering thread must not hold
    # the verdict back.
    os._exit(0)


def _vm_peak() -> int:
    """This process's peak address space in KiB (what --memory bounds); 0 if unknown."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _close_stdin() -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def _die_with(parent: int) -> None:
    """Be killed when the command dies (Linux), even by SIGKILL: no orphan judge."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    # 0: in a sandbox of its own, where the command's pid is not seen.
    if parent and os.getppid() != parent:  # it died before the line above
        os._exit(70)


def _limit(memory: int, timeout: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # A backstop only: the command's wall clock comes first, and a process
    # cannot use more CPU time than wall time on one core.
    cpu = int(timeout * 1.5) + 10
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


class _Progress:
    """What the child is doing, one JSON object a line, flushed at once."""

    def __init__(self, path: str) -> None:
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def write(self, event: dict[str, Any]) -> None:
        try:
            self._handle.write(json.dumps(event) + "\n")
            self._handle.flush()
        except (OSError, ValueError):
            pass  # the learner closed it: the command then knows less


def _load(folder: str, level: str, seconds: float) -> str | None:
    """Import the folder once, in a worker ended after `seconds` at most (the
    worker's own load bound, IMPORT_SECONDS, if sooner): None, or one line
    saying why it cannot load."""
    from judge.target import IMPORT_SECONDS, TargetError, load_target

    try:
        loaded = load_target(
            impl_path=folder, level=level, import_seconds=min(seconds, IMPORT_SECONDS)
        )
        if loaded.client is not None:
            loaded.client.stop()  # the suite starts its own worker
    except TargetError as error:
        message = str(error)
        prefix = f"--impl-path {folder}: "
        return message[len(prefix) :] if message.startswith(prefix) else message
    except BaseException as error:  # KeyboardInterrupt and the like
        return f"importing the folder raised {type(error).__name__}"
    return None


def _run_suite(
    config: dict[str, Any], progress: _Progress, watched: _Watched
) -> dict[str, Any]:
    """The suite's outcome; split into `parts` pytest sessions run at once
    (judge/parts.py), one per core the command gave this learner."""
    parts = max(1, min(int(config.get("parts", 1)), 8))
    _warm_up()
    if parts == 1 or threading.active_count() > 1:
        # One part; or not forked at all where another thread runs, since a
        # fork copies the locks that thread may hold, and none would release.
        return _run_part(config, progress, watched, 1, 1)
    me = os.getpid()
    started: dict[int, int] = {}
    for part in range(2, parts + 1):
        pid = os.fork()
        if pid == 0:  # the part's own process: it runs, says, and leaves
            _part_process(config, progress, watched, part, parts, me)
        started[part] = pid
    outcomes = [_run_part(config, progress, watched, 1, parts)]
    for part, pid in started.items():
        _, status = os.waitpid(pid, 0)
        said = _read_json(Path(f"{config['result']}.part-{part}.json"))
        if not isinstance(said, dict):
            code = os.waitstatus_to_exitcode(status)
            said = {
                "exit_code": 3,
                "complete": False,
                "stopped": f"part {part} of {parts} of the suite ended without"
                f" its outcome (exit status {code})",
                "collected": 0,
                "finished": 0,
                "unfinished": [],
                "memory_error": None,
                "outside_writes": None,
                "summary": None,
            }
        outcomes.append(said)
    return _joined(outcomes)


def _warm_up() -> None:
    """What every part would do first, done once before they fork from here:
    import the judge, and let Hypothesis load (or, without the command's
    copy, make) its Unicode tables, which it does on the first text drawn."""
    import importlib
    import pkgutil

    import pytest  # noqa: F401
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st

    import judge
    import strategies

    # Every module of the judge now, and their constants read (below):
    # Hypothesis reads the constants of each module it takes for the user's
    # own, once a process; done here, before the parts fork, it is done once.
    for package in (judge, strategies):
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    # The suite's written worlds (hundreds, each working out its blueprint
    # when made), made once here rather than once a part: the test modules
    # import them by this name from their own folder, as pytest puts it first
    # on the path.
    sys.path.insert(0, str(SUITE / "invariants"))
    try:
        importlib.import_module("_written_worlds")
    except Exception:  # collection imports it again and says what is wrong
        sys.modules.pop("_written_worlds", None)
    finally:
        sys.path.remove(str(SUITE / "invariants"))

    once = settings(
        database=None,
        max_examples=1,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    find(st.text(min_size=1), lambda text: True, settings=once)
    try:  # what Hypothesis's pytest plugin asks for at collection, in every part
        from hypothesis.internal.conjecture.providers import _get_local_constants
    except ImportError:  # a Hypothesis without it reads no constants
        return
    _get_local_constants()


def _part_process(
    config: dict[str, Any],
    progress: _Progress,
    watched: _Watched,
    part: int,
    parts: int,
    parent: int,
) -> None:
    """Run one part in this forked process, write its outcome, and exit."""
    _die_with(parent)  # a part never outlives the child that judges with it
    try:
        outcome = _run_part(config, progress, watched, part, parts)
    except BaseException as error:  # the judge's own failure: an honest not-complete
        outcome = {"complete": False, "stopped": f"part {part} failed: {error!r}"}
    try:
        _write_result(Path(f"{config['result']}.part-{part}.json"), outcome)
    finally:
        os._exit(0)


def _joined(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """The parts' outcomes as one: complete only when every part is."""
    from judge.parts import join_summaries

    summaries = [o.get("summary") for o in outcomes]
    present = [s for s in summaries if isinstance(s, dict)]
    summary = join_summaries(present) if present else None
    stopped = next((o.get("stopped") for o in outcomes if o.get("stopped")), None)
    if summary is not None and len(present) < len(summaries):
        summary.update(complete=False, verification="INCOMPLETE")
    codes = [int(o.get("exit_code", 3)) for o in outcomes]
    unusual = [c for c in codes if c not in (0, 1)]
    return {
        "exit_code": unusual[0] if unusual else max(codes),
        "complete": stopped is None and all(o.get("complete") for o in outcomes),
        "stopped": stopped,
        "collected": sum(int(o.get("collected", 0)) for o in outcomes),
        "finished": sum(int(o.get("finished", 0)) for o in outcomes),
        "unfinished": [n for o in outcomes for n in o.get("unfinished") or []][:5],
        "memory_error": next(
            (o["memory_error"] for o in outcomes if o.get("memory_error")), None
        ),
        "outside_writes": next(
            (o["outside_writes"] for o in outcomes if o.get("outside_writes")), None
        ),
        "summary": summary,
    }


def _run_part(
    config: dict[str, Any],
    progress: _Progress,
    watched: _Watched,
    part: int,
    parts: int,
) -> dict[str, Any]:
    import pytest

    summary_path = Path(config["result"] + f".suite-{part}.json")
    watcher = _Watcher(progress, watched)
    args = [
        str(SUITE / "invariants"),
        "-c",
        str(SUITE / "pytest.ini"),
        "--rootdir",
        str(SUITE),
        "--confcutdir",
        str(SUITE),
        "-p",
        "no:cacheprovider",
        "-p",
        "_hypothesis_pytestplugin",
        # The verdict is the summary file; pytest's own report would only be
        # noise beside the learner's output, which is what a crash is told by.
        "-p",
        "no:terminal",
        "--capture=no",
        "--strict-markers",
        "--impl-path",
        config["folder"],
        "--level",
        config["level"],
        "--hypothesis-profile",
        config["profile"],
        "--verification-json",
        str(summary_path),
        "--part",
        f"{part}/{parts}",
    ]
    if config.get("seed") is not None:
        # Every part draws from the run's one seed (tests/conftest.py makes
        # the profile obey it): same folder, same seed, same verdicts.
        args += ["--hypothesis-seed", str(int(config["seed"]))]
    exit_code = int(pytest.main(args, plugins=[watcher]))
    watcher.note_changes("", watched.changes(deep=True))
    summary = _read_json(summary_path)
    suite_says = summary.get("complete", True) if isinstance(summary, dict) else False
    unfinished = [
        nodeid for nodeid in watcher.collected if nodeid not in watcher.finished
    ]
    stopped = watcher.stopped
    if stopped is None and exit_code not in (0, 1):
        stopped = f"pytest ended with exit status {exit_code}"
    if stopped is None and not watcher.collected:
        stopped = "no test was collected"
    if stopped is None and unfinished:
        stopped = f"{len(unfinished)} test(s) never finished"
    if stopped is None and suite_says is not True:
        stopped = "the suite's summary says the run was not complete"
    return {
        "exit_code": exit_code,
        "complete": stopped is None,
        "stopped": stopped,
        "collected": len(watcher.collected),
        "finished": len(watcher.finished),
        "unfinished": unfinished[:5],
        "memory_error": watcher.memory_error,
        "outside_writes": watcher.outside_writes,
        "summary": summary if isinstance(summary, dict) else None,
    }


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_result(path: Path, outcome: dict[str, Any]) -> None:
    # From the bundle, as in _tree_state (imported there already, at the start).
    from judge.safefs import write_at

    data = json.dumps(outcome).encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        write_at(fd, 0, data)
    finally:
        os.close(fd)


def _invariant_of(item: Any) -> str:
    # The suite's own rule (tests/conftest.py): the marker, or the module name.
    marker = item.get_closest_marker("invariant")
    if marker is not None and marker.args:
        return str(marker.args[0])
    return Path(str(item.path)).stem.removeprefix("test_")


def _memory_error_in(error: BaseException | None) -> bool:
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen or len(seen) > 1000:
            continue
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return True
        pending.append(current.__cause__)
        pending.append(current.__context__)
        members = getattr(current, "exceptions", None)
        if isinstance(members, (tuple, list)):
            pending.extend(m for m in members if isinstance(m, BaseException))
    return False


def _tree_state(folder: Path, contents: bool) -> dict[str, tuple[Any, ...]]:
    """Every entry under `folder` (but .hypothesis at its top): what it is and holds.

    Walked by safefs.walk: a folder learner code swaps for a link, a FIFO or
    a device while it is read is never opened (os.fwalk would follow the
    link to a device, or block on the FIFO, before checking).
    """
    # From the bundle (on the path by now), never from the command's package.
    from judge.safefs import walk

    state: dict[str, tuple[Any, ...]] = {}
    try:
        for here, folders, files, dir_fd in walk(folder):
            prefix = here + "/" if here else ""
            if not prefix:
                folders[:] = [name for name in folders if name not in _JUDGE_OWNED]
            for name in (*folders, *files):
                if not prefix and name in _JUDGE_OWNED:
                    continue
                relative = prefix + name
                try:
                    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    if stat.S_ISLNK(info.st_mode):
                        state[relative] = ("link", os.readlink(name, dir_fd=dir_fd))
                    elif stat.S_ISDIR(info.st_mode):
                        state[relative] = ("folder",)
                    elif (
                        contents
                        and info.st_size <= _WHOLE_FILE
                        and stat.S_ISREG(info.st_mode)
                    ):
                        state[relative] = ("file", _small_file(name, dir_fd))
                    else:
                        state[relative] = (
                            "file",
                            info.st_size,
                            info.st_mtime_ns,
                            info.st_ino,
                        )
                except OSError:
                    state[relative] = ("unreadable",)
    except OSError:  # the folder itself gone, or swapped for a link
        pass
    return state


def _small_file(name: str, dir_fd: int) -> bytes:
    # Never blocks: a FIFO swapped in after the check is not read.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(name, flags, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b"(not a regular file)"
        return os.read(fd, _WHOLE_FILE + 1)
    finally:
        os.close(fd)


def _changes(
    before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]
) -> list[str]:
    said = [f"created {p}" for p in sorted(after.keys() - before.keys())]
    said += [f"deleted {p}" for p in sorted(before.keys() - after.keys())]
    said += [
        f"changed {p}"
        for p in sorted(before.keys() & after.keys())
        if before[p] != after[p]
    ]
    return said


class _Watched:
    """The folders the learner's code may not change, and how they were.

    The small ones are compared after every test, so a change is told with
    the test that made it; the bundle (700 files) after the import and at the
    end of the run.
    """

    def __init__(self, learner_folder: Path) -> None:
        self._folders = {
            "the working directory": (Path.cwd(), True, False),
            "HOME": (Path(os.environ.get("HOME") or os.getcwd()), True, False),
            "its own folder": (learner_folder, True, False),
            "the judge's files": (BUNDLE, False, True),
        }
        self._states = {
            label: _tree_state(folder, contents)
            for label, (folder, contents, _) in self._folders.items()
        }

    def changes(self, deep: bool = False) -> list[str]:
        """What changed since last compared (at most 20 lines); [] when nothing."""
        said: list[str] = []
        for label, (folder, contents, large) in self._folders.items():
            if large and not deep:
                continue
            now = _tree_state(folder, contents)
            said += [f"{label}: {c}" for c in _changes(self._states[label], now)]
            self._states[label] = now
        return said[:20]


class _Watcher:
    """A pytest plugin: what ran, what finished, and what the learner touched."""

    def __init__(self, progress: _Progress, watched: _Watched) -> None:
        self._progress = progress
        self._watched = watched
        self.collected: list[str] = []
        self.finished: set[str] = set()
        self.invariants: dict[str, str] = {}
        self.stopped: str | None = None
        self.memory_error: dict[str, str] | None = None
        self.outside_writes: dict[str, Any] | None = None

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and self.stopped is None:
            self.stopped = (
                f"a module of the suite could not be collected: {report.nodeid}"
            )

    def pytest_collection_finish(self, session: Any) -> None:
        self.collected = [item.nodeid for item in session.items]
        self.invariants = {item.nodeid: _invariant_of(item) for item in session.items}
        self._progress.write(
            {"collected": [[n, self.invariants[n]] for n in self.collected]}
        )

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._progress.write({"start": nodeid})

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.outcome != "passed":
            self._progress.write(
                {
                    "report": report.nodeid,
                    "when": report.when,
                    "outcome": report.outcome,
                }
            )

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        error = call.excinfo.value if call.excinfo is not None else None
        if self.memory_error is None and _memory_error_in(error):
            self.memory_error = {
                "test": node.nodeid,
                "invariant": self.invariants.get(node.nodeid, ""),
            }
            self._progress.write({"memory_error": node.nodeid})
            # Out of memory is the verdict now; the rest would only repeat it.
            node.session.shouldstop = "a MemoryError reached the judge"

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        # Before the suite's own (trylast) one, which runs the score's probe:
        # a clock that stops the run there is told where it did.
        self._progress.write({"phase": "finishing"})

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.finished.add(nodeid)
        self._progress.write({"done": nodeid})
        self.note_changes(nodeid, self._watched.changes())

    def note_changes(self, nodeid: str, changes: list[str]) -> None:
        """Keep the first test that changed something, and every change (20 at most)."""
        if not changes:
            return
        if self.outside_writes is None:
            self.outside_writes = {
                "test": nodeid,
                "invariant": self.invariants.get(nodeid, ""),
                "when": "test" if nodeid else "run",
                "changes": changes,
            }
            self._progress.write({"outside_writes": nodeid})
        else:
            self.outside_writes["changes"] = (self.outside_writes["changes"] + changes)[
                :20
            ]

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        self.stopped = f"interrupted by {excinfo.typename}"

    def pytest_internalerror(self, excrepr: Any, excinfo: Any) -> None:
        if self.stopped is None:
            self.stopped = f"pytest failed inside: {excinfo.typename}"


if __name__ == "__main__":
    main()
