"""Scratch trees removed after judging, whatever a learner left in them.

A learner's code writes where it likes in its scratch: folders nested
thousands deep, folders it made unwritable (0500) or unreadable, names
longer than any path. `shutil.rmtree` recurses (a deep tree raises
RecursionError after everyone was judged, taking every report with it) and,
as an ordinary user, stops at a folder without write permission. Here the
tree is removed iteratively, each entry by its name in its parent's
descriptor, never following a link; a folder of the judge's own uid is made
writable and searchable before it is emptied; and a folder deeper than a few
dozen levels is moved up to the top, so descriptors held stay few however
deep the tree. Nothing here raises: what could not be removed is said in one
line, for the caller to warn about.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

__all__ = ["remove_scratch"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Folders open at once on the way down: deeper ones are moved up to the top.
_MAX_OPEN = 32
# Entries looked at before giving up: a process still writing cannot keep
# the cleanup going for ever.
_MAX_STEPS = 1_000_000


def remove_scratch(path: str | os.PathLike[str]) -> str | None:
    """Remove the tree at `path` (its parent is the judge's); None when it
    is gone (or never was), else one line saying what is left and why."""
    try:
        return _remove(os.fspath(path))
    except Exception as error:  # noqa: BLE001  a cleanup never takes the reports
        return f"{os.fspath(path)} was not removed ({type(error).__name__}: {error})"


def _remove(path: str) -> str | None:
    parent, name = os.path.split(os.path.abspath(path))
    try:
        above = os.open(parent, _DIR_FLAGS)
    except FileNotFoundError:
        return None
    try:
        try:
            top = os.open(name, _DIR_FLAGS, dir_fd=above)
        except FileNotFoundError:
            return None
        except OSError as error:
            if error.errno not in (errno.ENOTDIR, errno.ELOOP):
                raise
            os.unlink(name, dir_fd=above)  # not a folder: removed itself
            return None
        try:
            left = _Cleaner(top).empty()
        finally:
            os.close(top)
        try:
            os.rmdir(name, dir_fd=above)
        except OSError as error:
            return f"{path} was not removed: {left or error.strerror}"
        return None
    finally:
        os.close(above)


def _open_folder(here: int, name: str) -> int:
    """The folder `name` in `here`, opened without following a link; one of
    the judge's own uid it cannot search (a learner's 000) is opened up first.
    As an ordinary user only: the learner's code ran as that same user, so
    the chmod (which follows a link swapped in since) reaches nothing the
    learner could not have changed itself."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=here)
    except PermissionError:
        if os.geteuid() == 0:
            raise
        os.chmod(name, 0o700, dir_fd=here)
        return os.open(name, _DIR_FLAGS, dir_fd=here)


def _writable(fd: int) -> None:
    """A folder of the judge's own uid made writable and searchable by it
    (a learner may have left one 0500); root needs no permission bits."""
    found = os.fstat(fd)
    if found.st_uid == os.geteuid() and os.geteuid() != 0:
        mode = stat.S_IMODE(found.st_mode)
        if mode & 0o700 != 0o700:
            os.fchmod(fd, mode | 0o700)


class _Cleaner:
    """One removal: what stayed, and the folders that could not be emptied."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.left: str | None = None
        self.stuck: set[tuple[int, int]] = set()
        self.steps = 0
        self.moved = 0
        # The names of the folders entered, one per frame below the top.
        self._entered: list[str] = []

    def note(self, name: str, error: OSError) -> None:
        self.left = self.left or f"{name!r}: {error.strerror}"

    def empty(self) -> str | None:
        """Remove everything in the top folder; None, or what stayed."""
        while True:
            self.moved = 0
            self._pass()
            # Folders moved up from deep down are removed by another pass.
            if not self.moved:
                return self.left
            if self.steps > _MAX_STEPS:
                return "it kept changing while it was removed"

    def _pass(self) -> None:
        """Depth first, one listing per folder, each entry by its name in
        its parent's descriptor; a folder is removed as soon as it is empty."""
        frames: list[tuple[int, list[os.DirEntry[str]], list[bool]]] = []
        try:
            frames.append((self.top, self._listing(self.top), [False]))
            while frames:
                here, entries, failed = frames[-1]
                if not entries:
                    frames.pop()
                    if here == self.top:
                        continue
                    if failed[0]:
                        found = os.fstat(here)
                        self.stuck.add((found.st_dev, found.st_ino))
                    os.close(here)
                    parent, _, parent_failed = frames[-1]
                    name = self._entered.pop()
                    try:
                        os.rmdir(name, dir_fd=parent)
                    except FileNotFoundError:
                        pass
                    except OSError as error:
                        parent_failed[0] = True
                        self.note(name, error)
                    continue
                entry = entries.pop()
                self.steps += 1
                if self.steps > _MAX_STEPS:
                    self.left = self.left or "it kept changing while it was removed"
                    return
                inner = self._step(here, entry, failed, deep=len(frames) >= _MAX_OPEN)
                if inner is not None:
                    self._entered.append(entry.name)
                    frames.append((inner, self._listing(inner), [False]))
        finally:
            for fd, _, _ in frames:
                if fd != self.top:
                    os.close(fd)
            self._entered.clear()

    def _listing(self, fd: int) -> list[os.DirEntry[str]]:
        with contextlib.suppress(OSError):
            _writable(fd)
        try:
            with os.scandir(fd) as listing:
                return list(listing)
        except OSError as error:
            self.note("a folder", error)
            return []

    def _step(
        self, here: int, entry: os.DirEntry[str], failed: list[bool], deep: bool
    ) -> int | None:
        """Remove one entry of `here`; the folder to enter, if it must be."""
        try:
            folder = entry.is_dir(follow_symlinks=False)
        except OSError:
            folder = False
        try:
            if not folder:
                os.unlink(entry.name, dir_fd=here)
                return None
            try:
                os.rmdir(entry.name, dir_fd=here)
                return None
            except OSError as error:
                if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
            found = entry.stat(follow_symlinks=False)
            if (found.st_dev, found.st_ino) in self.stuck:
                failed[0] = True
                return None
            inner = _open_folder(here, entry.name)
        except FileNotFoundError:
            return None
        except OSError as error:
            failed[0] = True
            self.note(entry.name, error)
            return None
        if not deep:
            return inner
        # Too deep to hold every folder open: moved up to the top, where
        # the next pass finds it a shallow folder.
        try:
            with contextlib.suppress(OSError):
                _writable(inner)
            os.rename(
                entry.name,
                f".deep-{secrets.token_hex(8)}",
                src_dir_fd=here,
                dst_dir_fd=self.top,
            )
            self.moved += 1
        except OSError as error:
            failed[0] = True
            self.note(entry.name, error)
        finally:
            os.close(inner)
        return None
