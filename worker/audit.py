"""What one call opened, changed, started or connected, recorded as raw data.

One process-wide audit hook (hooks cannot be removed) records while a call
is armed: the worker records a learner's call in every thread (a call may
start threads), the judge the bundled evaluator's in its own thread only;
judge/access.py judges the records. Limits: `from os import open` bound
before arming bypasses the os.open wrapper (its relative names are then
resolved against the working directory: a false alarm, never a missed one);
os.stat, os.lstat and os.readlink raise no audit event.
"""

import contextlib
import os
import sys
import threading
from typing import Any

# A record: [kind ("path", "change", "process", "network"), event, the
# arguments shown, the real path reached or None, whether it opens to write].
Record = list[Any]

# The audit events recorded, by the kind of action each is (a path event's
# first argument is its path; a network module's every event is recorded).
_TABLE = """
path open os.listdir os.scandir os.walk os.fwalk os.chdir glob.glob glob.glob/2
path pathlib.Path.glob pathlib.Path.rglob
change os.chflags os.chmod os.chown os.link os.lockf os.mkdir os.remove os.rename
change os.removexattr os.rmdir os.setxattr os.symlink os.truncate os.utime
change shutil.chown shutil.copyfile shutil.copymode shutil.copystat shutil.copytree
change shutil.make_archive shutil.move shutil.rmtree shutil.unpack_archive
change tempfile.mkdtemp tempfile.mkstemp
process subprocess.Popen os.system os.exec os.posix_spawn os.spawn os.fork
process os.forkpty os.startfile pty.spawn
network socket http urllib ftplib smtplib poplib imaplib nntplib telnetlib webbrowser
"""
_KINDS = {e: row.split()[0] for row in _TABLE.splitlines() for e in row.split()[1:]}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class _Armed(threading.local):
    log: list[Record] | None = None  # the thread's own armed call's
    dir_fd: int | None = None  # the directory a relative os.open is in
    busy = False  # showing or resolving a path must not record itself


# What this thread records, and the log of a call armed for every thread (the
# worker's: a learner's call may start threads; the judge's own must not be).
_ARMED, _EVERY, _INSTALLED, _real_open = _Armed(), [], [], os.open


def _log() -> list[Record] | None:
    return _ARMED.log if _ARMED.log is not None else next(iter(_EVERY), None)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    log = _log()  # first: the hook sees every event of the process
    if log is None or _ARMED.busy:
        return
    if (kind := _KINDS.get(event) or _KINDS.get(event.split(".", 1)[0])) is None:
        return
    _ARMED.busy = True
    try:
        if kind != "path":
            log.append([kind, event, _shown(args), None, False])
            return
        raw = args[0] if args else None
        mode, flags = (*args[1:3], None, None)[:2] if event == "open" else (None,) * 2
        writes = (isinstance(flags, int) and flags & _WRITE_FLAGS) or (
            isinstance(mode, str) and any(c in mode for c in "wax+")
        )
        log.append([kind, event, _shown((raw,)), _reach(raw, flags), bool(writes)])
    except Exception as error:  # a hook that raises would fail the audited call
        log.append([kind, event, f"(not recorded: {error!r})", None, False])
    finally:
        _ARMED.busy = False


def _shown(args: tuple[Any, ...]) -> str:
    shown = [os.fsdecode(a) if isinstance(a, str | bytes) else repr(a) for a in args]
    text = ", ".join(shown)
    return text if len(text) <= 300 else text[:140] + " ... " + text[-140:]


def _place(fd: int | None) -> str | None:
    """The real path of descriptor `fd` (None: the working directory), or None."""
    try:
        return os.getcwd() if fd is None else os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _reach(raw: object, flags: int | None) -> str | None:
    """The real path an open or listing of `raw` reaches, before it happens."""
    if raw is None or isinstance(raw, int):
        return _place(raw)
    if not isinstance(raw, (str, bytes, os.PathLike)):
        return None
    path = os.fsdecode(os.fspath(raw))
    if not os.path.isabs(path):  # relative to a directory descriptor, or the cwd
        if (base := _place(_ARMED.dir_fd)) is None:
            return None
        path = os.path.join(base, path)
    head, tail = os.path.split(os.path.normpath(path))
    try:  # with O_NOFOLLOW the last component is not followed, the others are
        if isinstance(flags, int) and flags & os.O_NOFOLLOW:
            return os.path.join(os.path.realpath(head), tail)
        return os.path.realpath(path)
    except (OSError, ValueError):  # beyond PATH_MAX, say: keep it lexical
        return os.path.join(head, tail)


def _watched_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None):
    """`os.open`, telling the hook which directory a relative path is in."""
    _ARMED.dir_fd = dir_fd
    try:
        fd = _real_open(path, flags, mode, dir_fd=dir_fd)
    finally:
        _ARMED.dir_fd = None
    # What was really opened, from the kernel: sharper than any prediction.
    if (log := _log()) and log[-1][1] == "open" and (actual := _place(fd)) is not None:
        log[-1][3] = actual
    return fd


class AccessRecorder:
    """One armed call's records (`with recorder.armed():`, one at a time), and
    `places`, where this process imports from, resolved here: a sandboxed
    worker sees other paths than the judge."""

    def __init__(self) -> None:
        self.accesses: list[Record] = []
        self.places: list[str] = []

    @contextlib.contextmanager
    def armed(self, every_thread: bool = False) -> Any:
        # Taken before the call: a call that widens sys.path widens nothing.
        places = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path}
        self.places = sorted({os.path.realpath(p) for p in places if os.path.isabs(p)})
        if not _INSTALLED:  # hooks cannot be removed: once a process
            sys.addaudithook(_hook)
            _INSTALLED.append(_hook)
        _ARMED.log, os.open = self.accesses, _watched_open
        _EVERY[:] = [self.accesses] if every_thread else []
        try:
            yield self
        finally:
            _ARMED.log, os.open, _EVERY[:] = None, _real_open, []
