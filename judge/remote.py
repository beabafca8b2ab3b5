"""The judge's half of the worker protocol: a target whose code runs elsewhere.

A course folder, or a module named with `--impl`, is never imported into the
judge: `judge.target.load_target` starts a worker process
(`worker/serve.py`) that imports it, and hands the suite a `Target`
whose names are `RemoteName`s. Calling one, or anything it returned, is a
request to the worker; what comes back is data, or a `Remote` handle on an
object that stays in the worker. The suite's code is the same for both
kinds of target: it calls names, reads attributes and compares data.

Bounds come from here, outside the learner's process. Every request is
read with a deadline: the earliest of the bounds on (`bounded`, which
`call_target` sets for one call and the suite's conftest for one test) or
`REQUEST_SECONDS`. A request that outlives it, or is interrupted (the
person pressed Ctrl-C), ends the worker, whole, and the next request starts
a new one; the person's Ctrl-C never reaches the worker (its own session). A worker
that dies in a call is a `WorkerDied`; its handles are stale from then on.
Replies are untrusted: one JSON line each, at most `MAX_LINE` bytes, every
object tagged (see worker/serve.py), never unpickled.

`DAY7_WORKER` (JSON, set by the day7-verify command) says how to start the
worker: a `prefix` (the sandbox's argv), a `uid` to run as, the `memory`
limit, `nproc`, `fsize` and the `scratch` directory the worlds are built in.
Without it the worker is a plain child process of the judge.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import itertools
import json
import os
import re
import resource
import select
import signal
import stat
import subprocess
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from judge import safefs
from judge.errors import ProtocolError, RemoteError, rebuilt
from judge.script import INTERPRETER, own_script
from worker.serve import PACKAGE as LEARNER_PACKAGE

__all__ = [
    "MAX_LINE",
    "REQUEST_SECONDS",
    "Bound",
    "Client",
    "Memory",
    "OutOfTime",
    "Remote",
    "RemoteError",
    "RemoteName",
    "WorkerDied",
    "WorkerHung",
    "Ref",
    "bounded",
    "force",
    "give_to_worker",
    "is_remote",
    "read_remote",
    "recast",
    "remote_replace",
]

MAX_LINE = 8 << 20
#: The bound of a request made outside any `bounded` block (a repr, an
#: attribute read by the suite's own code): a correct target answers in
#: microseconds.
REQUEST_SECONDS = 30.0
#: How long the worker may take to start and import the target.
LOAD_SECONDS = 20.0
_FRAME = re.compile(r'^\s*File "(?P<file>.+)", line (?P<line>\d+) in (?P<function>.+)$')


class WorkerDied(Exception):
    """The worker ended in the middle of a request (its exit status in the message)."""


class WorkerHung(Exception):
    """The worker did not answer within the request's own bound; it was ended."""

    def __init__(self, message: str, where: tuple[tuple[str, int, str], ...]) -> None:
        super().__init__(message)
        self.where = where


class Bound:
    """A wall-clock bound on every request made while it is on (`bounded`).

    `due` is time.monotonic() when it runs out; it moves on by the time the
    judge spends starting a new worker, which no call is charged for.
    """

    __slots__ = ("due", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.due = time.monotonic() + seconds

    def __repr__(self) -> str:
        return f"Bound({self.seconds:g} s)"


# The bounds on now, outermost first: a context variable, so a bound set
# around one call never outlives it, whatever the call raised.
_BOUNDS: ContextVar[tuple[Bound, ...]] = ContextVar("day7_bounds", default=())


@contextlib.contextmanager
def bounded(seconds: float | None) -> Iterator[Bound | None]:
    """Every request made in the block is answered within `seconds` from now,
    or its worker is ended and `OutOfTime` raised; None or 0: no bound.

    Bounds nest: the earliest rings (the outermost of equal ones), so a
    test's bound ends the test even inside a call with a later bound of its
    own. Code that runs here, not in a worker (the bundled evaluator, which
    is ours), is not bounded by it.
    """
    if not seconds:
        yield None
        return
    bound = Bound(seconds)
    token = _BOUNDS.set((*_BOUNDS.get(), bound))
    try:
        yield bound
    finally:
        _BOUNDS.reset(token)


def _due() -> tuple[float, Bound | None]:
    """When a request made now must be answered, and the bound that says so
    (None: `REQUEST_SECONDS`, no bound on)."""
    due, which = time.monotonic() + REQUEST_SECONDS, None
    for bound in _BOUNDS.get():
        if bound.due < due:
            due, which = bound.due, bound
    return due, which


class OutOfTime(BaseException):
    """A request outlived the `bound` it was made under; the worker was ended.

    A BaseException, as a hang is never an ordinary failure: Hypothesis
    neither shrinks nor replays it (it would only hang again), and the
    `bounded` block that set `bound` makes it a lesson. `where` is the
    worker's stack as it was ended, innermost first; `memory` the worker's
    peak address space then and its limit, in bytes (`Memory`), where known.
    """

    def __init__(
        self,
        bound: Bound,
        where: tuple[tuple[str, int, str], ...],
        memory: Memory | None = None,
    ) -> None:
        super().__init__(f"did not finish within {bound.seconds:g} s")
        self.bound = bound
        self.where = where
        self.memory = memory


@dataclass(frozen=True)
class Memory:
    """A worker's peak address space (VmPeak) as it was ended, and the limit
    (RLIMIT_AS) it ran under, in bytes: read by the judge from /proc, never
    the worker's word."""

    peak: int
    limit: int

    @property
    def exhausted(self) -> bool:
        """Whether the worker had used most of what it may (more than half:
        a correct evaluator needs a few tens of MiB of a limit of GiB), so a
        call that ran out of time was filling memory, not only looping."""
        return self.limit > 0 and self.peak * 2 > self.limit


class _Dead:
    pass


class Client:
    """One worker process at a time for one target, started again after a hang."""

    def __init__(self, config: dict[str, Any], label: str) -> None:
        self.config = config
        self.label = label
        self.settings = _settings()
        self.process: subprocess.Popen[bytes] | None = None
        self.generation = 0
        self.numbers = itertools.count(1)
        self.callbacks: dict[int, Callable[..., Any]] = {}
        self.callback_numbers = itertools.count(1)
        self.released: list[int] = []
        self.names: dict[str, bool] = {}
        self.hang_read: int | None = None
        self.starts = 0
        self.load_seconds = LOAD_SECONDS
        self.ours = _ours(self.settings)
        self.borrowed: str | None = None

    # --- the process ---------------------------------------------------------------

    def start(self) -> dict[str, Any]:
        """Start a worker; its first line (names, or why it cannot load)."""
        self.stop()
        self.generation += 1
        self.starts += 1
        self.callbacks.clear()
        self.released.clear()
        settings = self.settings
        hang_read, hang_write = os.pipe()
        os.set_blocking(hang_read, False)
        # Started as a learner would run a script of their own: one neutrally
        # named file, by the base interpreter (judge/script.py).
        script = settings.get("script") or str(own_script())
        argv = [*settings.get("prefix", ()), INTERPRETER, "-I", "-S", "-B", script]
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,
                pass_fds=(hang_write,),
                start_new_session=True,
                preexec_fn=_preexec(settings),
                cwd=settings.get("cwd") or os.path.dirname(script),
                env=_environment(settings, os.path.dirname(script)),
            )
        finally:
            os.close(hang_write)
        self.hang_read = hang_read
        config = {
            **self.config,
            "hang_fd": hang_write,
            "load_seconds": max(self.load_seconds - 0.2, 0.1),
        }
        self._write(config)
        first = self._read(
            time.monotonic() + self.load_seconds + 5, "starting the worker"
        )
        if not isinstance(first, dict) or first.get("protocol") != 1:
            raise ProtocolError("the worker's first line is not the protocol's")
        if "load_error" in first:  # the worker's error as data; said here in a line
            first["load_error"] = _load_problem(first["load_error"], self.config)
        else:
            names = first.get("names")
            if not isinstance(names, dict):
                raise ProtocolError("the worker sent no names")
            self.names = {str(k): bool(v) for k, v in names.items()}
        return first

    def stop(self) -> None:
        """End the worker, every process it started in its session too."""
        process, self.process = self.process, None
        if self.hang_read is not None:
            with contextlib.suppress(OSError):
                os.close(self.hang_read)
            self.hang_read = None
        if process is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            process.kill()
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)

    def ensure(self) -> None:
        if self.process is None:
            # Starting again is the judge's own work: the call that asked is
            # not charged for it.
            started = time.monotonic()
            try:
                first = self.start()
            finally:
                spent = time.monotonic() - started
                for bound in _BOUNDS.get():
                    bound.due += spent
            if "load_error" in first:
                raise WorkerDied(f"the target no longer loads: {first['load_error']}")

    # --- the channel ---------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode(
            "utf-8", "surrogatepass"
        )
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._died("writing to it")

    def _read(self, due: float, what: str, bound: Bound | None = None) -> Any:
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout
        while True:
            left = due - time.monotonic()
            if left <= 0:
                where = self.hang_where()
                memory = self.worker_memory()
                self.stop()
                if bound is not None:
                    raise OutOfTime(bound, where, memory)
                raise WorkerHung(f"{what} did not answer within its bound", where)
            ready, _, _ = select.select([stream], [], [], left)
            if ready:
                break
        line = stream.readline(MAX_LINE + 1)
        if not line:
            self._died(what)
        if len(line) > MAX_LINE or not line.endswith(b"\n"):
            self.stop()
            raise ProtocolError(f"the worker sent a line over {MAX_LINE} bytes")
        try:
            return json.loads(line.decode("utf-8", "surrogatepass"))
        except ValueError:
            self.stop()
            raise ProtocolError("the worker sent a line that is not JSON") from None

    def _died(self, what: str) -> None:
        process = self.process
        code = None
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = process.wait(timeout=2)
        self.stop()
        if code is not None and code < 0:
            how = f"was killed by signal {-code} ({_signal_name(-code)})"
        elif code is not None and code >= 128 + 1 and self.settings.get("prefix"):
            how = f"was killed by signal {code - 128} ({_signal_name(code - 128)})"
        elif code is not None:
            how = f"exited with status {code}"
        else:
            how = "stopped answering"
        raise WorkerDied(f"the process running the target {how} while {what}")

    def hang_where(self) -> tuple[tuple[str, int, str], ...]:
        """The worker's stack, asked for (SIGUSR1: faulthandler) as it is ended."""
        if self.hang_read is None:
            return ()
        pid = self._worker_pid()
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGUSR1)
            select.select([self.hang_read], [], [], 0.5)
            time.sleep(0.02)  # the rest of the dump
        chunks = []
        with contextlib.suppress(OSError):
            while len(chunks) < 16 and (chunk := os.read(self.hang_read, 1 << 16)):
                chunks.append(chunk)
        text = b"".join(chunks).decode("utf-8", "replace")
        frames = []
        for line in text.splitlines():
            if line.startswith("Thread") and frames:
                break  # the first thread is the one that was running
            match = _FRAME.match(line)
            if match:
                frames.append((match["file"], int(match["line"]), match["function"]))
        return tuple(frames)

    def worker_memory(self) -> Memory | None:
        """The worker's peak address space and its limit, read from /proc as
        it is ended; None without a limit or where /proc does not say."""
        limit = self.settings.get("memory")
        pid = self._worker_pid()
        if not isinstance(limit, int) or pid is None:
            return None
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("VmPeak:"):
                        return Memory(int(line.split()[1]) * 1024, limit)
        except (OSError, ValueError, IndexError):
            pass
        return None

    def _worker_pid(self) -> int | None:
        """The interpreter's pid as the judge sees it: below bwrap's two
        processes in the sandbox, the child itself otherwise."""
        process = self.process
        if process is None or process.poll() is not None:
            return None
        pid = process.pid
        for _ in range(4):
            try:
                with open(f"/proc/{pid}/comm", encoding="ascii", errors="replace") as f:
                    name = f.read().strip()
                if name != "bwrap":
                    return pid
                with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
                    children = f.read().split()
            except OSError:
                return None
            if not children:
                return None
            pid = int(children[0])
        return None

    def ask(self, what: str, name: str, *args: Any, **kwargs: Any) -> Any:
        """A call of one of the worker's own functions (`Worker.own`: getattr,
        setattr, force, special, items, repr, replace, report, describe,
        state, environ, getcwd, audit)."""
        message = {"op": "call", "fn": {"$w": name}, "args": self.encode(list(args))}
        return self.request({**message, "kwargs": self.encode(kwargs)}, what)

    def request(self, message: dict[str, Any], what: str = "a request") -> Any:
        """One request, answered; callbacks the worker makes meanwhile are served."""
        self.ensure()
        number = next(self.numbers)
        message["id"] = number
        if self.released:
            message["release"], self.released = (
                self.released[:1000],
                self.released[1000:],
            )
        due, bound = _due()
        generation = self.generation
        try:
            self._write(message)
            while True:
                reply = self._read(due, what, bound)
                if not isinstance(reply, dict):
                    raise ProtocolError("the worker sent a reply that is not an object")
                if "cb" in reply:
                    self._serve_callback(reply)
                    continue
                if reply.get("id") != number:
                    raise ProtocolError("the worker answered another request")
                break
        except (WorkerDied, WorkerHung, ProtocolError, OutOfTime):
            raise
        except BaseException:
            # Interrupted mid-request (Ctrl-C): what the worker does now is unknown.
            self.stop()
            raise
        if reply.get("fatal"):
            self.stop()
        if "raised" in reply:
            raise rebuilt(reply["raised"])
        return self.decode(reply.get("ok"), generation)

    def _serve_callback(self, message: dict[str, Any]) -> None:
        ask = message.get("cb")
        fn = self.callbacks.get(message.get("fn"))  # type: ignore[arg-type]
        answer: dict[str, Any] = {"cb": ask}
        try:
            if fn is None:
                raise ProtocolError(
                    "the worker called back a function it was never given"
                )
            args = self.decode(message.get("args", []), self.generation)
            kwargs = self.decode(message.get("kwargs", {"$d": []}), self.generation)
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise ProtocolError("a callback's arguments are malformed")
            answer["ok"] = self.encode(
                fn(*args, **{str(k): v for k, v in kwargs.items()})
            )
        except Exception as error:  # the judge's callback raised: the target sees it
            # Its one text argument as it is (str(KeyError) would add quotes
            # the error made again in the worker would quote once more).
            text = error.args[0] if len(error.args) == 1 else None
            answer["raise"] = {
                "fn": self._raised_as(type(error).__name__, _builtin_of(error)),
                "args": [(text if isinstance(text, str) else str(error))[:4000]],
            }
        self._write(answer)

    def _raised_as(self, name: str, builtin: str) -> dict[str, Any]:
        """The class a callback's error is raised as in the worker: the target's
        own for a Day 7 class (AgentError), the builtin itself for a builtin's
        name, else a class of that name deriving from the builtin."""
        if self.names.get(name):
            return {"$n": name}
        if name == builtin:
            return {"$bi": name}
        return {"$sub": [name, {"$bi": builtin}]}

    # --- values ----------------------------------------------------------------------

    def encode(self, value: Any, depth: int = 0) -> Any:
        kind = type(value)
        if kind in _PLAIN:  # most values: tested by exact type first, it is cheap
            return value
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if depth > 40:
            raise TypeError("a value nested too deep to send to the worker")
        if kind is tuple:
            return {"$t": [self.encode(item, depth + 1) for item in value]}
        if isinstance(value, Remote):
            if value._generation != self.generation:
                raise WorkerDied("an object of a worker that has since been ended")
            return {"$h": value._number}
        if isinstance(value, RemoteName):
            return {"$n": value._name}
        if isinstance(value, Ref):
            return {"$r": value.index}
        if isinstance(value, tuple):
            return {"$t": [self.encode(item, depth + 1) for item in value]}
        if isinstance(value, list):
            return [self.encode(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return {
                "$d": [
                    [self.encode(k, depth + 1), self.encode(v, depth + 1)]
                    for k, v in value.items()
                ]
            }
        if isinstance(value, (bytes, bytearray)):
            return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
        if isinstance(value, PurePath):
            return {"$p": os.fspath(value)}
        if isinstance(value, frozenset):
            return {"$fs": [self.encode(item, depth + 1) for item in value]}
        if isinstance(value, set):
            return {"$set": [self.encode(item, depth + 1) for item in value]}
        if isinstance(value, types.SimpleNamespace):
            return {"$ns": self.encode(vars(value), depth + 1)}
        if isinstance(value, Subclass):
            return {"$sub": [value.name, {"$n": value.base}]}
        if callable(value):
            number = next(self.callback_numbers)
            self.callbacks[number] = value
            return {"$cb": number}
        # A value the target is only to hold or refuse (object(), a stranger):
        # the worker makes a stand-in of the same type name.
        return {"$opaque": type(value).__name__}

    def decode(self, value: Any, generation: int) -> Any:
        if type(value) in _PLAIN:
            return value
        if isinstance(value, list):
            return [self.decode(item, generation) for item in value]
        if not isinstance(value, dict):
            if value is None or isinstance(value, (bool, int, float, str)):
                return value
            raise ProtocolError("the worker sent a value of no known kind")
        if "$h" in value and isinstance(value["$h"], int):
            return Remote(
                self, value["$h"], generation, str(value.get("type", ""))[:80]
            )
        if "$t" in value and isinstance(value["$t"], list):
            return tuple(self.decode(item, generation) for item in value["$t"])
        if "$d" in value and isinstance(value["$d"], list):
            pairs = {}
            for pair in value["$d"]:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise ProtocolError("the worker sent a malformed dict")
                key = self.decode(pair[0], generation)
                try:
                    pairs[key] = self.decode(pair[1], generation)
                except TypeError:
                    raise ProtocolError("the worker sent an unhashable key") from None
            return pairs
        if "$b" in value and isinstance(value["$b"], str):
            return base64.b64decode(value["$b"])
        if "$p" in value and isinstance(value["$p"], str):
            return Path(value["$p"])
        if "$fs" in value and isinstance(value["$fs"], list):
            return frozenset(self._hashable(value["$fs"], generation))
        if "$set" in value and isinstance(value["$set"], list):
            return set(self._hashable(value["$set"], generation))
        raise ProtocolError("the worker sent an untagged object")

    def _hashable(self, items: list[Any], generation: int) -> list[Any]:
        decoded = [self.decode(item, generation) for item in items]
        for item in decoded:
            try:
                hash(item)
            except TypeError:
                raise ProtocolError("the worker sent an unhashable set item") from None
        return decoded

    def release(self, number: int, generation: int) -> None:
        if generation == self.generation and self.process is not None:
            self.released.append(number)

    def note_files(self, files: Any) -> None:
        """Keep the first module file of the judge's own the worker names
        (`borrowed`): once loaded, every later report is built on it."""
        if self.borrowed is None:
            from judge.reading import borrowed

            own = self.config.get("folder")
            self.borrowed = borrowed(files, self.ours, own)


def _load_problem(said: Any, config: dict[str, Any]) -> str:
    """Why the target cannot be loaded, in one line, from the worker's data:
    where its import failed, and the error (its package's name left out)."""
    if not isinstance(said, dict):
        raise ProtocolError("the worker's load error is malformed")
    kind, missing = str(said.get("type")), said.get("name")
    module = config.get("module")
    if kind == "ModuleNotFoundError" and isinstance(missing, str) and module:
        if module.startswith(missing):
            why = f"no module named {missing!r} is importable"
            return f"{why} (is it installed, or on sys.path?)"
    # The folder's package name, never a longer dotted name ending in it.
    own = re.compile(rf"(?<![\w.]){re.escape(LEARNER_PACKAGE)}\.")
    message = own.sub("", str(said.get("message") or ""))
    line = f"importing {said.get('at')} failed: {kind}"
    line += f": {message}" if message.strip() else ""
    # Every part is the worker's word (its code may be the learner's): one line.
    return " ".join(line.split())[:2000]


def _builtin_of(error: BaseException) -> str:
    for klass in type(error).__mro__:
        if klass.__module__ == "builtins":
            return klass.__name__
    return "Exception"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"


def give_to_worker(path: Path) -> None:
    """Make the worker's uid the owner of `path` and all under it, where the
    worker runs as another user than the judge (DAY7_WORKER's `owner`): the
    target writes its logs and edits its files in the trees the judge built.

    `path`'s parent must be the judge's (a world's tree, or the directory
    holding it): `path` is reached from it without following a link, and
    nothing under it is followed either (judge.safefs), since learner
    code may have had a go at it already. The ancestors inside the worlds'
    directory stay the judge's: they are only made passable to the worker's
    group, so the worker can never swap a tree for a link.
    """
    owner = _settings().get("owner")
    if owner is None or not os.path.lexists(path):
        return
    # A test's own fresh directory (mode 0700) must be passable.
    worlds = os.environ.get("DAY7_SCRATCH")
    if worlds:
        top = Path(worlds).resolve()
        for parent in Path(path).parent.resolve(strict=False).joinpath("x").parents:
            if parent == top or top not in parent.parents:
                break
            _passable(parent, owner)
    with safefs.opened(path.parent) as parent_fd:
        safefs.chown_tree(parent_fd, path.name, owner, owner)


def _passable(directory: Path, group: int) -> None:
    """The judge's `directory`, traversable (not listable) by `group`."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            return  # not the judge's: leave it as it is
        os.fchown(fd, -1, group)
        os.fchmod(fd, (stat.S_IMODE(info.st_mode) & 0o700) | 0o010)
    finally:
        os.close(fd)


@functools.cache
def _settings() -> dict[str, Any]:
    said = os.environ.get("DAY7_WORKER")
    if not said:
        return {}
    try:
        settings = json.loads(said)
    except ValueError:
        raise ValueError("DAY7_WORKER is not JSON") from None
    if not isinstance(settings, dict):
        raise ValueError("DAY7_WORKER is not a JSON object")
    return settings


#: The worker's PATH: a system's own, never the judge's (a venv's bin/ named
#: for the judge would say who is asking).
WORKER_PATH = "/usr/local/bin:/usr/bin:/bin"


def _environment(settings: dict[str, Any], home: str) -> dict[str, str]:
    """All the worker's environment: what a shell gives a learner's own
    script, built from nothing. Not a variable of the judge's (its scratch,
    Hypothesis's storage, pytest's, the seed) reaches the target."""
    given = settings.get("env", {})
    environment = {"PATH": WORKER_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    environment["HOME"] = given.get("HOME") or home
    environment["TMPDIR"] = given.get("TMPDIR") or tempfile.gettempdir()
    return environment


def _preexec(settings: dict[str, Any]) -> Callable[[], None]:
    fsize = settings.get("fsize")
    nproc = settings.get("nproc")
    cpu = settings.get("cpu")
    uid = settings.get("uid")
    memory = settings.get("memory")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory:  # the sandbox's and the worker's address space, each
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if fsize:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if cpu:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        if nproc:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    return limit


def read_if_remote(value: Any, view: Any) -> Any:
    """`value`, a report the worker read (`view`) made a `ReadReport`."""
    from judge.reading import read_report

    if not isinstance(value, Remote):
        return value
    client = value._client
    client.note_files(view.get("files") if isinstance(view, dict) else None)
    return read_report(view, value._type, client.borrowed)


def _ours(settings: dict[str, Any]) -> list[str]:
    """The folders of the judge's own packages: as the command installed them
    (DAY7_WORKER's `ours`), and as this process imports them."""
    import importlib.util

    places = [str(place) for place in settings.get("ours", ())]
    for name in ("evaluator", "judge", "strategies", "day7_verify"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            places.append(os.path.dirname(os.path.realpath(spec.origin)))
    return [os.path.normpath(place) for place in dict.fromkeys(places)]


#: The names whose result the worker reads as a report when it returns.
READ_NAMES = frozenset({"evaluate_run", "EvaluationReport"})

#: JSON's own scalars, sent as they are.
_PLAIN = frozenset({str, int, float, bool, type(None)})


# --- the proxies ---------------------------------------------------------------


class RemoteName:
    """A Day 7 name of a remote target: calling it builds an object in the worker."""

    __slots__ = ("_client", "_name")

    def __init__(self, client: Client, name: str) -> None:
        object.__setattr__(self, "_client", client)
        object.__setattr__(self, "_name", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        client = self._client
        client.ensure()
        view = self._name in READ_NAMES
        said = client.request(
            {
                "op": "call",
                "fn": {"$n": self._name},
                "args": client.encode(list(args)),
                "kwargs": client.encode(kwargs),
                "view": view,
            },
            f"{self._name}(...)",
        )
        if not view:
            return said
        if not isinstance(said, dict) or "value" not in said:
            raise ProtocolError("the worker's evaluation came without its report")
        # The report as the worker read it when the call returned: judged on
        # that one reading, never read again (judge/reading.py).
        return read_if_remote(said["value"], said.get("view"))

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return self._client.ask(f"{self._name}.{attribute}", "getattr", self, attribute)

    def __repr__(self) -> str:
        return f"<{self._name} of {self._client.label}>"


class Remote:
    """An object that lives in the worker; what the suite does with it is a request."""

    __slots__ = ("__weakref__", "_client", "_generation", "_number", "_type")

    def __init__(self, client: Client, number: int, generation: int, kind: str) -> None:
        object.__setattr__(self, "_client", client)
        object.__setattr__(self, "_number", number)
        object.__setattr__(self, "_generation", generation)
        object.__setattr__(self, "_type", kind)

    def _ref(self) -> dict[str, Any]:
        return self._client.encode(self)  # type: ignore[no-any-return]

    def _special(self, name: str, *args: Any, what: str = "") -> Any:
        what = what or f"{name} of a {self._type}"
        return self._client.ask(what, "special", self, name, *args)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        what = f"reading .{attribute} of a {self._type}"
        return self._client.ask(what, "getattr", self, attribute)

    def __setattr__(self, attribute: str, value: Any) -> None:
        what = f"setting .{attribute} of a {self._type}"
        self._client.ask(what, "setattr", self, attribute, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        client = self._client
        return client.request(
            {
                "op": "call",
                "fn": self._ref(),
                "args": client.encode(list(args)),
                "kwargs": client.encode(kwargs),
            },
            f"calling a {self._type}",
        )

    def __iter__(self) -> Iterator[Any]:
        return iter(self._client.ask(f"iterating a {self._type}", "items", self))

    def __len__(self) -> int:
        return int(self._special("__len__"))

    def __getitem__(self, key: Any) -> Any:
        return self._special("__getitem__", key)

    def __contains__(self, item: Any) -> bool:
        return bool(self._special("__contains__", item))

    def __bool__(self) -> bool:
        try:
            return bool(self._special("__bool__"))
        except AttributeError:
            try:
                return bool(self._special("__len__"))
            except AttributeError:
                return True

    def __str__(self) -> str:
        return str(self._special("__str__"))

    def __repr__(self) -> str:
        try:
            return str(self._client.ask(f"repr of a {self._type}", "repr", self))
        except Exception:
            return f"<remote {self._type}>"

    def __eq__(self, other: object) -> bool:
        return other is self or (
            isinstance(other, Remote)
            and other._client is self._client
            and other._number == self._number
            and other._generation == self._generation
        )

    def __hash__(self) -> int:
        return hash((id(self._client), self._generation, self._number))

    def __del__(self) -> None:
        try:
            self._client.release(self._number, self._generation)
        except Exception:
            pass

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"<remote {self._type}>")


def is_remote(value: object) -> bool:
    return isinstance(value, (Remote, RemoteName))


def force(instance: Any, **values: Any) -> Any:
    """Set fields of a (frozen) dataclass instance past its validation,
    wherever it lives."""
    if isinstance(instance, Remote):
        for name, value in values.items():
            instance._client.ask(f"setting .{name}", "force", instance, name, value)
        return instance
    for name, value in values.items():
        object.__setattr__(instance, name, value)
    return instance


@dataclass(frozen=True)
class Subclass:
    """A class the worker makes (tag `$sub`): named `name`, deriving from its
    Day 7 class `base` and adding nothing, not even slots."""

    name: str
    base: str


def recast(instance: Any, base: str, name: str) -> Any:
    """`instance`, where it lives, made an instance of a subclass of `base`
    (in-process: of its own class) named `name` that adds nothing.

    Its class is swapped, its state kept (a store's receipts, a workspace's
    reads): a new instance built from its fields would lose them. With no
    slots of its own, the subclass has its base's layout, slotted or not.
    """
    if isinstance(instance, Remote):
        return force(instance, __class__=Subclass(name, base))
    return force(instance, __class__=_subclass(type(instance), name))


@functools.cache
def _subclass(base: type, name: str) -> type:
    # One class per base and name: two objects recast alike compare equal.
    return type(name, (base,), {"__slots__": ()})


def remote_replace(instance: Any, **changes: Any) -> Any:
    """`dataclasses.replace(instance, **changes)`, done where `instance` lives."""
    if isinstance(instance, Remote):
        return instance._client.ask(
            "dataclasses.replace", "replace", instance, **changes
        )
    import dataclasses

    return dataclasses.replace(instance, **changes)


def read_remote(report: Remote) -> Any:
    """A report no call read (`ReadReport`), read now, once, in one request."""
    from judge.reading import read_report

    said = report._client.ask("reading the report", "report", report)
    return read_report(said, report._type)


# --- a batch's earlier result -----------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """The result of an earlier step of the same batch."""

    index: int
