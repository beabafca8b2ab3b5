"""A report file written where its user meant, tried for real before judging.

A report path names one of two things:

- a regular file, or nothing yet: written whole or not at all, a temporary
  file beside it renamed over it, so a failure never leaves half a report;
- anything else (a device such as /dev/null, a FIFO, a symbolic link, say
  /dev/stdout or a link to a file kept elsewhere): written through, opened
  for writing as it is, never created and never renamed over, so a link
  stays a link and /dev/null stays the machine's /dev/null.

`unwritable` tries the very write `write` will make, before anything is
judged (a class's run is never lost to a report path it cannot write): a
file is made and removed in the folder a rename needs, or what is written
through is opened for appending, changing nothing in it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import sys

__all__ = ["unwritable", "write"]

# Non-blocking: a FIFO nobody reads is refused, not waited on; O_NOCTTY: a
# terminal named is written to, never made the command's own.
_THROUGH = os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _replaced(target: str) -> bool:
    """Whether `target` is written by a rename over it (a regular file that
    is not a link, or nothing), rather than through what is there."""
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        return True
    return stat.S_ISREG(found.st_mode)


def _folder(target: str) -> str:
    return os.path.dirname(os.path.abspath(target))


def _temporary(target: str) -> tuple[str, int]:
    """A new file beside `target`, made without following a link."""
    name = os.path.join(
        _folder(target), f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp"
    )
    return name, os.open(name, _NEW, 0o600)


def unwritable(target: str) -> str | None:
    """Why `target` cannot be written, trying the real write; None if it can.

    Nothing at `target` is changed: a file beside it is made and removed,
    or what is there is opened to append and closed.
    """
    try:
        if os.path.isdir(target):
            return "is a directory"
        if not os.path.isdir(_folder(target)):
            return f"no directory {_folder(target)} to write it in"
        if _replaced(target):
            name, fd = _temporary(target)
            os.close(fd)
            os.unlink(name)
            return None
        try:
            fd = os.open(target, _THROUGH | os.O_APPEND)
        except FileNotFoundError:
            return "cannot write it (a symbolic link to nothing)"
        os.close(fd)
    except OSError as error:
        if error.errno == errno.ENXIO:
            return "cannot write it (a FIFO nobody reads)"
        return f"cannot write it ({error.strerror or error})"
    return None


def write(target: str, text: str) -> None:
    """Write `text` to `target`: replaced whole, or written through (see above)."""
    data = text.encode("utf-8")
    if _replaced(target):
        _replace(target, data)
        return
    fd = os.open(target, _THROUGH)
    try:
        # Opened without waiting; written with it, as any writer would.
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        found = os.fstat(fd)
        if stat.S_ISREG(found.st_mode):
            if _is_stdout(found):
                # /dev/stdout sent to a file: written where the command's
                # own output goes on, never over it.
                _write_all(sys.stdout.fileno(), data)
                return
            os.ftruncate(fd, 0)  # a link to a file: the file is the report
        _write_all(fd, data)
    finally:
        os.close(fd)


def _is_stdout(found: os.stat_result) -> bool:
    try:
        out = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (out.st_dev, out.st_ino) == (found.st_dev, found.st_ino)


def _write_all(fd: int, data: bytes) -> None:
    sys.stdout.flush()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _replace(target: str, data: bytes) -> None:
    name, fd = _temporary(target)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        # Made private; a report is as readable as any new file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(name, 0o666 & ~umask)
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
