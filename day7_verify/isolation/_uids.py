"""One unprivileged uid (and gid of the same number) per learner judged at once.

Run as root under ``sandbox`` or ``user`` isolation, each learner's worker
drops to a uid of its own, leased from a fixed block for as long as that
learner is judged. Learners judged at the same time (``--jobs``) then cannot
write into each other's worlds, signal each other's processes or use up each
other's ``RLIMIT_NPROC``, which counts processes per uid.

The block is 60928-61183 (256 ids, ``0xEE00``-``0xEEFF``):

- below 65534, so a container whose user namespace maps only 0-65535 (Docker,
  rootless podman, Gradescope) can still switch to it;
- above ``UID_MAX`` (60000) of login.defs, so ``useradd`` never hands it out;
- outside systemd's reserved ranges (homed 60001-60513, container
  bind-users 60514-60577, DynamicUser 61184-65519; systemd.io/UIDS-GIDS).

An id that the user or group database names anyway is skipped; the command
refuses, in one line, when fewer free ids remain than learners judged at
once, or when the ids are not mapped in this user namespace.

A lease is also held across processes (an ``flock`` on a file per id, in
``/run/day7-verify``), so two commands on one machine never hand out the
same id; the kernel drops it if the command dies. Before an id is handed
out, and again when it is given back, every process still running as it (a
daemon the previous learner left behind) is killed, so a learner never
shares its uid with what an earlier one started.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import grp
import os
import pwd
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["COUNT", "FIRST", "UidError", "Uids", "accounts", "end_processes"]

FIRST = 60928
COUNT = 256

# How long a lease waits for an id another command holds, between tries.
_RETRY_SECONDS = 0.2


class UidError(ValueError):
    """The block cannot give the learners judged at once an id each (one line)."""


def accounts() -> set[int]:
    """Every uid and gid the user and group databases name."""
    taken = {entry.pw_uid for entry in pwd.getpwall()}
    taken |= {entry.pw_gid for entry in pwd.getpwall()}
    taken |= {entry.gr_gid for entry in grp.getgrall()}
    return taken


def _mapped(first: int, count: int) -> bool:
    """Whether every id of the block is a uid and a gid in this user namespace."""
    for name in ("uid_map", "gid_map"):
        try:
            lines = Path("/proc/self", name).read_text(encoding="ascii").splitlines()
        except OSError:
            return True  # not Linux, or no /proc: nothing says otherwise
        covered = False
        for line in lines:
            inside, _, length = (int(part) for part in line.split())
            if inside <= first and first + count <= inside + length:
                covered = True
        if not covered:
            return False
    return True


def _lock_directory() -> Path:
    # /run is root's and cleared at boot; a world-writable /tmp would let any
    # user plant the directory first.
    for base in (Path("/run"), Path(tempfile.gettempdir())):
        if base.is_dir() and os.access(base, os.W_OK | os.X_OK):
            return base / "day7-verify"
    return Path(tempfile.gettempdir()) / "day7-verify"


class Uids:
    """A block of ids, leased one per running job (thread-safe, and across
    processes through lock files)."""

    def __init__(
        self,
        first: int = FIRST,
        count: int = COUNT,
        *,
        locks: Path | None = None,
        taken: Callable[[], set[int]] = accounts,
        sweep: Callable[[int], None] | None = None,
    ) -> None:
        self.first = first
        self.count = count
        self._locks = locks if locks is not None else _lock_directory()
        self._taken = taken
        self._sweep = sweep if sweep is not None else end_processes
        self._held: set[int] = set()
        self._guard = threading.Lock()

    def free(self) -> list[int]:
        """The block's ids no account uses, in order."""
        taken = self._taken()
        return [
            number
            for number in range(self.first, self.first + self.count)
            if number not in taken
        ]

    def check(self, jobs: int) -> None:
        """Raise UidError, in one line, unless `jobs` learners can each get an id."""
        last = self.first + self.count - 1
        if not _mapped(self.first, self.count):
            raise UidError(
                f"uids {self.first}-{last} (one per learner judged at once) are not"
                " mapped in this user namespace; map them, or use --jobs 1"
                " --isolation process"
            )
        free = len(self.free())
        if free < jobs:
            raise UidError(
                f"uids {self.first}-{last} (one per learner judged at once) are"
                f" used by accounts of this machine: {free} free for --jobs {jobs};"
                " lower --jobs or free the range"
            )
        self._directory()

    def _directory(self) -> Path:
        try:
            self._locks.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(self._locks)
        except OSError as error:
            raise UidError(
                f"cannot make {self._locks} for the uid leases: {error.strerror}"
            ) from None
        if (
            not stat.S_ISDIR(info.st_mode)
            or info.st_uid != os.geteuid()
            or info.st_mode & 0o022
        ):
            raise UidError(
                f"{self._locks} (the uid leases) is not a directory of this user"
                " that others cannot write; remove it"
            )
        return self._locks

    def _try(self, number: int) -> int | None:
        """An open, locked lease file for `number`, or None if another holds it."""
        path = self._directory() / f"uid-{number}.lock"
        descriptor = os.open(
            path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None
            raise
        return descriptor

    def _acquire(self) -> tuple[int, int]:
        while True:
            with self._guard:
                for number in self.free():
                    if number in self._held:
                        continue
                    descriptor = self._try(number)
                    if descriptor is not None:
                        self._held.add(number)
                        return number, descriptor
            # Every free id is leased by another command on this machine.
            time.sleep(_RETRY_SECONDS)

    @contextlib.contextmanager
    def lease(self) -> Iterator[int]:
        """An id no other running job has, given back (processes ended) on exit."""
        number, descriptor = self._acquire()
        try:
            self._sweep(number)
            yield number
        finally:
            try:
                self._sweep(number)
            finally:
                with self._guard:
                    self._held.discard(number)
                os.close(descriptor)


def _running_as(number: int) -> bool:
    """Whether a live process (not a zombie) runs as uid `number`, as /proc
    shows to root: every pid namespace's processes are in it too. True where
    /proc cannot say, so the shell's `kill -1` is tried anyway.

    `kill -1` itself cannot say: it succeeds whenever any other process
    exists, signalled or not, so its status never told an empty uid.
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    wanted = str(number).encode()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as status:
                lines = status.read().splitlines()
        except OSError:
            continue  # it ended while we looked
        fields = dict(line.partition(b":")[::2] for line in lines)
        if fields.get(b"State", b"").split()[:1] == [b"Z"]:
            continue  # dead already: only its parent's wait is left
        if wanted in fields.get(b"Uid", b"").split():
            return True
    return False


def end_processes(number: int) -> None:
    """Kill every process running as uid `number` (root only; never uid 0).

    The signal is sent by a shell that has itself become `number` first:
    ``kill -1`` then reaches exactly that uid's processes, however many
    there are and wherever they hide (another session, a pid namespace).
    """
    if number <= 0 or os.geteuid() != 0:
        return
    # The shell checks its own uid again: were the switch ever skipped,
    # `kill -1` as root would end every process of the machine.
    script = f'[ "$(id -u)" = {number} ] || exit 3; kill -KILL -1 2>/dev/null'
    for _ in range(20):
        if not _running_as(number):
            return  # nothing (left) to signal: no switch, no shell
        done = subprocess.run(
            ["/bin/sh", "-c", script],
            user=number,
            group=number,
            extra_groups=[],
            env={"PATH": "/usr/bin:/bin"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
            timeout=30,
        )
        if done.returncode == 3:
            raise UidError(f"cannot switch to uid {number} to end its processes")
        if done.returncode != 0:
            return  # nothing left to signal
        # Something was killed: a fork made during the sweep may have missed it.
