"""What one call opened, changed, started or connected: an audit of the call.

`AccessRecorder` installs one process-wide audit hook (hooks cannot be
removed) that records only in a thread that armed it: every path opened,
listed or scanned, resolved to what the call would reach (a descriptor-
relative open is resolved through its directory descriptor, read from
/proc/self/fd), and every process start, socket or filesystem change.

Standard library only: the worker (worker/serve.py) records a
learner's call with it in its own process, and the judge records the
bundled evaluator's in the judge's.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Access", "AccessRecorder", "is_module_file"]


# Audit events that touch a path, and where the path is in their arguments.
_PATH_EVENTS = {
    "open": 0,
    "os.listdir": 0,
    "os.scandir": 0,
    "os.walk": 0,
    "os.fwalk": 0,
    "os.chdir": 0,
    "glob.glob": 0,
    "glob.glob/2": 0,
    "pathlib.Path.glob": 0,
    "pathlib.Path.rglob": 0,
}
# Audit events that change the filesystem: never allowed during evaluation.
_CHANGE_EVENTS = frozenset(
    {
        "os.chflags",
        "os.chmod",
        "os.chown",
        "os.link",
        "os.lockf",
        "os.mkdir",
        "os.remove",
        "os.removexattr",
        "os.rename",
        "os.rmdir",
        "os.setxattr",
        "os.symlink",
        "os.truncate",
        "os.utime",
        "shutil.chown",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "shutil.copytree",
        "shutil.make_archive",
        "shutil.move",
        "shutil.rmtree",
        "shutil.unpack_archive",
        "tempfile.mkdtemp",
        "tempfile.mkstemp",
    }
)
# Audit events that start a process.
_PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.startfile",
        "pty.spawn",
    }
)
# Prefixes of audit events that reach the network.
_NETWORK_PREFIXES = (
    "socket.",
    "http.client.",
    "urllib.",
    "ftplib.",
    "smtplib.",
    "poplib.",
    "imaplib.",
    "nntplib.",
    "telnetlib.",
    "webbrowser.",
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Files the import system reads when a call imports a module lazily.
_MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pth", ".zip", ".abi3.so")


@dataclass(frozen=True)
class Access:
    """One audited action of the watched call.

    `kind` is "path" (opened, listed, scanned), "change" (filesystem
    changed), "process" or "network"; `reached` is the real path a path
    event touched (None when it is unknown); `writes` whether an open
    asked for writing.
    """

    kind: str
    event: str
    raw: str
    reached: str | None = None
    writes: bool = False

    def __str__(self) -> str:
        where = (
            f" -> {self.reached}" if self.reached and self.reached != self.raw else ""
        )
        mode = " for writing" if self.writes else ""
        return f"{self.event}({self.raw}){where}{mode}"


class _Armed(threading.local):
    log: list[Access] | None = None
    dir_fd: int | None = None
    busy: bool = False


_ARMED = _Armed()
_INSTALL = threading.Lock()
_installed = False
_real_open = os.open
_open_patches = 0


def _hook(event: str, args: tuple[Any, ...]) -> None:
    log = _ARMED.log
    if log is None or _ARMED.busy:
        return
    if event in _PATH_EVENTS or event in _CHANGE_EVENTS:
        pass
    elif event in _PROCESS_EVENTS:
        log.append(Access("process", event, _shown(args)))
        return
    elif event.startswith(_NETWORK_PREFIXES):
        log.append(Access("network", event, _shown(args)))
        return
    else:
        return
    _ARMED.busy = True  # resolving a path must not record itself
    try:
        _record(log, event, args)
    except Exception as error:  # a hook that raises would fail the audited call
        log.append(Access("path", event, f"(not recorded: {error!r})"))
    finally:
        _ARMED.busy = False


def _record(log: list[Access], event: str, args: tuple[Any, ...]) -> None:
    if event in _CHANGE_EVENTS:
        log.append(Access("change", event, _shown(args)))
        return
    raw = args[_PATH_EVENTS[event]] if args else None
    flags = args[2] if event == "open" and len(args) > 2 else None
    mode = args[1] if event == "open" and len(args) > 1 else None
    writes = bool(
        (isinstance(flags, int) and flags & _WRITE_FLAGS)
        or (isinstance(mode, str) and any(c in mode for c in "wax+"))
    )
    reached = _reach(raw, flags, _ARMED.dir_fd)
    log.append(Access("path", event, _shown((raw,)), reached, writes))


def _shown(args: tuple[Any, ...]) -> str:
    text = ", ".join(
        os.fsdecode(a) if isinstance(a, (str, bytes)) else repr(a) for a in args
    )
    return text if len(text) <= 300 else text[:140] + " ... " + text[-140:]


def _fd_path(fd: int) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _reach(raw: object, flags: int | None, dir_fd: int | None) -> str | None:
    """The real path an open/listing of `raw` reaches, before it happens."""
    if raw is None:
        return os.getcwd()
    if isinstance(raw, int):
        return _fd_path(raw)
    if not isinstance(raw, (str, bytes, os.PathLike)):
        return None
    path = os.fsdecode(os.fspath(raw))
    if not os.path.isabs(path):
        base = _fd_path(dir_fd) if dir_fd is not None else os.getcwd()
        if base is None:
            return None
        path = os.path.join(base, path)
    try:
        if isinstance(flags, int) and flags & os.O_NOFOLLOW:
            # The last component is not followed; the ones before it are.
            head, tail = os.path.split(os.path.normpath(path))
            return os.path.join(os.path.realpath(head), tail)
        return os.path.realpath(path)
    except (OSError, ValueError):  # beyond PATH_MAX, say: keep it lexical
        return os.path.normpath(path)


def _watched_open(
    path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None
) -> int:
    """`os.open`, telling the hook which directory a relative path is in."""
    if _ARMED.log is None:
        return _real_open(path, flags, mode, dir_fd=dir_fd)
    _ARMED.dir_fd = dir_fd
    try:
        fd = _real_open(path, flags, mode, dir_fd=dir_fd)
    finally:
        _ARMED.dir_fd = None
    # What was really opened, from the kernel: sharper than any prediction.
    actual = _fd_path(fd)
    log = _ARMED.log
    if actual is not None and log is not None and log and log[-1].event == "open":
        last = log[-1]
        log[-1] = Access(last.kind, last.event, last.raw, actual, last.writes)
    return fd


class AccessRecorder:
    """Records what one thread's calls open, change, start or connect.

    Use `with recorder.armed():` in the thread that calls the target; the
    accesses are in `recorder.accesses` afterwards.  While armed, `os.open`
    is wrapped process-wide (the wrapper records nothing in other threads),
    so descriptor-relative opens are resolved through their directory.

    Limits: an evaluator that bound `os.open` under another name before
    arming (`from os import open`) bypasses the wrapper, and its relative
    names are then resolved against the working directory (a false alarm,
    never a missed one); `os.stat`, `os.lstat` and `os.readlink` raise no
    audit event and are not recorded (they open nothing).
    """

    def __init__(self) -> None:
        self.accesses: list[Access] = []

    @contextlib.contextmanager
    def armed(self) -> Iterator[AccessRecorder]:
        global _open_patches
        _install()
        with _INSTALL:
            if _open_patches == 0:
                os.open = _watched_open
            _open_patches += 1
        _ARMED.log = self.accesses
        try:
            yield self
        finally:
            _ARMED.log = None
            with _INSTALL:
                _open_patches -= 1
                if _open_patches == 0:
                    os.open = _real_open

    def violations(
        self,
        *,
        root: Path | str,
        log: Path | str | None,
        secrets: Iterable[Path | str] = (),
    ) -> list[str]:
        """Every recorded action outside the allowed ones, one line each.

        Allowed: reading paths inside `root` (the root itself included) and
        the receipt `log` (as given or resolved), and the import system
        reading module files.  Never allowed: writing, changing the
        filesystem, starting a process, using the network.
        """
        root_text = os.path.realpath(root)
        allowed_logs = set()
        if log is not None:
            allowed_logs = {os.path.abspath(log), os.path.realpath(log)}
        secret_paths = {os.path.realpath(secret) for secret in secrets}
        problems = []
        for access in self.accesses:
            if access.kind == "process":
                problems.append(f"started a process: {access}")
            elif access.kind == "network":
                problems.append(f"used the network: {access}")
            elif access.kind == "change":
                problems.append(f"changed the filesystem: {access}")
            elif access.writes:
                problems.append(f"opened for writing: {access}")
            elif access.reached in secret_paths:
                problems.append(f"opened the secret outside the root: {access}")
            elif access.reached is None:
                problems.append(f"opened a path that cannot be placed: {access}")
            elif not (
                _within(access.reached, root_text)
                or access.reached in allowed_logs
                or is_module_file(access)
            ):
                problems.append(f"opened outside the root and the log: {access}")
        return problems


def _install() -> None:
    global _installed
    with _INSTALL:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def is_module_file(access: Access) -> bool:
    """Whether the import system is reading a module (a lazy import in the call)."""
    reached = access.reached or ""
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    places.update(entry for entry in sys.path if entry and os.path.isabs(entry))
    in_place = any(_within(reached, os.path.realpath(place)) for place in places)
    if not in_place:
        return False
    if access.event in ("os.listdir", "os.scandir"):
        return True  # the path finder lists directories of sys.path
    return reached.endswith(_MODULE_SUFFIXES)
