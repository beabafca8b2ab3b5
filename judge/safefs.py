"""The judge's hands in places learner code could write: never following a link.

The worlds' trees are given to the worker (judge.remote.give_to_worker),
and learner code runs between the judge's steps, maybe still running in a
background thread or process while the judge works. The judge often runs as
root. So every file or directory the judge touches in such a tree is reached
from a directory descriptor it holds, one component at a time with
O_NOFOLLOW, and must be what the judge expects: a regular file with one link,
a directory. Anything else raises `Unexpected`, which the caller turns into
the lesson of the invariant it was checking, never following it.

Writes never open an existing file for writing: a fresh name is created with
O_EXCL in the directory and renamed over the old one (a rename replaces a
link, never what it points to). Appending is reading, then replacing. The
one exception is `rewrite_in_place`, which must keep the inode (a cache by
inode is what it tests): it opens without following, refuses anything but a
regular file of one link, and checks it opened what it looked at.

This module stands on its own (only the standard library), so it moves with
the judge wherever the judge lives.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator, Sequence

__all__ = [
    "IN_PLACE_WAYS",
    "LIMIT",
    "Unexpected",
    "append",
    "chown_tree",
    "create_sparse",
    "kind_at",
    "link_in",
    "make_dir",
    "make_fifo",
    "make_symlink",
    "opened",
    "read_regular",
    "remove",
    "remove_path",
    "remove_tree",
    "rename",
    "replace",
    "rewrite_in_place",
    "walk",
    "write_at",
]

#: The most bytes read back from a file learner code could write.
LIMIT = 64 << 20

# O_DIRECTORY fails a FIFO or device with ENOTDIR before its open runs (so
# nothing blocks and no driver is touched), O_NOFOLLOW a link with ELOOP;
# O_NONBLOCK is kept for a kernel that checked the type later.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

_KINDS = {
    stat.S_IFREG: "a regular file",
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class Unexpected(Exception):
    """A path the judge touches is not what the judge left there."""

    def __init__(self, name: str, found: str, wanted: str) -> None:
        self.name = name
        self.found = found
        self.wanted = wanted
        super().__init__(f"{name} is {found}, not {wanted} (not followed)")


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "a special file")


def kind_at(dir_fd: int, name: str) -> str | None:
    """What `name` in the directory is (never followed); None if missing."""
    try:
        return _kind(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def _open_dir(name: str, dir_fd: int | None) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        found = kind_at(dir_fd, name) if dir_fd is not None else None
        raise Unexpected(name, found or "missing", "a directory") from None


@contextlib.contextmanager
def opened(top: str | os.PathLike[str], parts: Sequence[str] = ()) -> Iterator[int]:
    """A descriptor of the directory `top`/`parts`, closed afterwards.

    `top` is a path the judge owns the parent of (a world's tree); its last
    component and every one of `parts` are opened without following links.
    """
    fd = _open_dir(os.fspath(top), None)
    try:
        for part in parts:
            inner = _open_dir(part, fd)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def read_regular(dir_fd: int, name: str, limit: int = LIMIT) -> bytes | None:
    """The bytes of regular file `name` (one link only); None if it is missing.

    Raises Unexpected for anything else (a link, a FIFO, a directory, a hard
    link to a file elsewhere) or a file larger than `limit`. Opened with
    O_NONBLOCK, so a FIFO swapped in after any check is never waited on.
    """
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError:
        raise Unexpected(
            name, kind_at(dir_fd, name) or "gone", "a regular file"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unexpected(name, _kind(info.st_mode), "a regular file")
        if info.st_nlink != 1:
            raise Unexpected(
                name, f"a file with {info.st_nlink} hard links", "a file of its own"
            )
        chunks: list[bytes] = []
        size = 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise Unexpected(name, f"larger than {limit} bytes", "a log of that size")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _fresh(dir_fd: int, mode: int) -> tuple[str, int]:
    """A new, empty file of a name nobody chose, and its descriptor."""
    name = f".tmp-{secrets.token_hex(8)}"
    return name, os.open(name, _NEW_FLAGS, mode, dir_fd=dir_fd)


def _settle(dir_fd: int, fd: int, name: str, mode: int | None) -> None:
    """Give the new file `fd` to the directory's owner, with the mode of the
    regular file `name` it replaces (else `mode`, else 0644).

    The judge (root) writing in the worker's folder must not leave a file
    only root may write: learner code repairing the log in place would be
    refused and so change nothing, and a read-only invariant would pass that
    should fail.
    """
    if mode is None:
        try:
            before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            before = None
        regular = before is not None and stat.S_ISREG(before.st_mode)
        mode = stat.S_IMODE(before.st_mode) if before and regular else 0o644
    folder = os.fstat(dir_fd)
    made = os.fstat(fd)
    if (made.st_uid, made.st_gid) != (folder.st_uid, folder.st_gid):
        # Not root: the file stays the judge's, the one uid the worker runs as.
        with contextlib.suppress(PermissionError):
            os.fchown(fd, folder.st_uid, folder.st_gid)
    os.fchmod(fd, mode)


def replace(
    dir_fd: int,
    name: str,
    data: bytes,
    mode: int | None = None,
    *,
    times_ns: tuple[int, int] | None = None,
) -> None:
    """Make `name` a new regular file holding `data` (what stood there is unlinked
    by the rename, a link included, and never written through), owned by the
    directory's owner, with the old file's mode unless `mode` is given, and
    with (atime, mtime) `times_ns` when given."""
    fresh, fd = _fresh(dir_fd, 0o600)
    try:
        write_at(fd, 0, data)
        _settle(dir_fd, fd, name, mode)
        if times_ns is not None:
            os.utime(fd, ns=times_ns)
    finally:
        os.close(fd)
    rename(dir_fd, fresh, name, expected="a regular file")


def write_at(fd: int, offset: int, data: bytes) -> None:
    """All of `data` into the open file `fd` from `offset` (the file it was
    given is the caller's to have opened safely): a short write goes on."""
    view = memoryview(data)
    while view:
        offset += (done := os.pwrite(fd, view, offset))
        view = view[done:]


#: How `rewrite_in_place` brings the new bytes into the old inode: only the
#: bytes that differ written over; cut at the first difference and the rest
#: written after (a log truncated, then appended to); or the rest written past
#: the end first and the file cut back to its length (a log appended to, then
#: truncated back).
IN_PLACE_WAYS = ("overwritten", "truncated_then_appended", "appended_then_truncated")

_WRITE_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def rewrite_in_place(
    dir_fd: int, name: str, old: bytes, new: bytes, way: str
) -> tuple[int, int]:
    """Make the regular file `name`, which holds `old`, hold `new` in the same
    inode, its access and modification times put back; returns (atime, mtime).

    The open never follows a link (O_NOFOLLOW), never blocks on a FIFO
    (O_NONBLOCK), and what it opened must be the regular file of one link
    that lstat saw (a hard link to a file elsewhere has two): anything else
    is Unexpected and nothing is written. `old` is what the caller read from
    it, so only the bytes from the first difference on are written.
    """
    if way not in IN_PLACE_WAYS:
        raise ValueError(f"rewrite_in_place: way {way!r}")
    try:
        seen = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise Unexpected(name, "missing", "a regular file") from None
    if not stat.S_ISREG(seen.st_mode):
        raise Unexpected(name, _kind(seen.st_mode), "a regular file")
    try:
        fd = os.open(name, _WRITE_FLAGS, dir_fd=dir_fd)
    except OSError:
        raise Unexpected(
            name, kind_at(dir_fd, name) or "gone", "a regular file"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unexpected(name, _kind(info.st_mode), "a regular file")
        if info.st_nlink != 1:
            raise Unexpected(
                name, f"a file with {info.st_nlink} hard links", "a file of its own"
            )
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            raise Unexpected(name, "another file than the one looked at", "the same")
        first = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        if way == "overwritten":
            last = len(new)
            if len(old) == len(new):
                while last > first and old[last - 1] == new[last - 1]:
                    last -= 1
            write_at(fd, first, new[first:last])
        elif way == "truncated_then_appended":
            os.ftruncate(fd, first)
            write_at(fd, first, new[first:])
        else:
            write_at(fd, max(info.st_size, len(old)), new[first:])
            write_at(fd, first, new[first:])
        os.ftruncate(fd, len(new))
        times = (info.st_atime_ns, info.st_mtime_ns)
        os.utime(fd, ns=times)
        return times
    finally:
        os.close(fd)


def append(dir_fd: int, name: str, data: bytes, limit: int = LIMIT) -> None:
    """`name`'s bytes (none if missing), then `data`, as a new file in its place."""
    replace(dir_fd, name, (read_regular(dir_fd, name, limit) or b"") + data)


def rename(
    dir_fd: int, old: str, new: str, *, expected: str = "a directory entry"
) -> None:
    """Rename within one directory; a directory in the way is Unexpected."""
    try:
        os.replace(old, new, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(old, dir_fd=dir_fd)
        raise Unexpected(new, kind_at(dir_fd, new) or "gone", expected) from None


def create_sparse(dir_fd: int, name: str, size: int) -> None:
    """A new file `name` of `size` bytes, all holes."""
    fresh, fd = _fresh(dir_fd, 0o600)
    try:
        os.ftruncate(fd, size)
        _settle(dir_fd, fd, name, None)
    finally:
        os.close(fd)
    rename(dir_fd, fresh, name, expected="a regular file")


def remove(dir_fd: int, name: str) -> None:
    """Remove `name` if it is there and not a directory (a link is removed itself)."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError:
        raise Unexpected(name, kind_at(dir_fd, name) or "gone", "a file") from None


def remove_tree(dir_fd: int, name: str) -> None:
    """Remove `name` and all under it, never following a link (missing is fine)."""
    found = kind_at(dir_fd, name)
    if found is None:
        return
    if found != "a directory":
        remove(dir_fd, name)
        return
    with contextlib.suppress(OSError):
        for _, folders, others, inner in walk(name, dir_fd=dir_fd, topdown=False):
            for entry in others:
                with contextlib.suppress(OSError):
                    os.unlink(entry, dir_fd=inner)
            for entry in folders:
                try:
                    os.rmdir(entry, dir_fd=inner)
                except NotADirectoryError:  # swapped for a file or link since listed
                    with contextlib.suppress(OSError):
                        os.unlink(entry, dir_fd=inner)
                except OSError:
                    pass
        os.rmdir(name, dir_fd=dir_fd)


def remove_path(path: str | os.PathLike[str]) -> None:
    """Remove the tree at `path`, whose parent is the judge's (missing is fine).

    The parent is opened without following a link, then `remove_tree`:
    learner processes may still be writing in the tree meanwhile.
    """
    parent, name = os.path.split(os.path.abspath(path))
    try:
        with opened(parent) as dir_fd:
            remove_tree(dir_fd, name)
    except Unexpected:
        pass


def make_dir(dir_fd: int, name: str, mode: int = 0o755) -> None:
    """A new directory `name`; anything already there is Unexpected."""
    try:
        os.mkdir(name, mode, dir_fd=dir_fd)
    except FileExistsError:
        raise Unexpected(name, kind_at(dir_fd, name) or "gone", "absent") from None


def make_fifo(dir_fd: int, name: str) -> None:
    try:
        os.mkfifo(name, dir_fd=dir_fd)
    except FileExistsError:
        raise Unexpected(name, kind_at(dir_fd, name) or "gone", "absent") from None


def make_symlink(dir_fd: int, target: str, name: str) -> None:
    try:
        os.symlink(target, name, dir_fd=dir_fd)
    except FileExistsError:
        raise Unexpected(name, kind_at(dir_fd, name) or "gone", "absent") from None


def link_in(source: str | os.PathLike[str], dir_fd: int, name: str) -> None:
    """Hard-link the judge's own file `source` as `name` (absent before)."""
    try:
        os.link(source, name, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        raise Unexpected(name, kind_at(dir_fd, name) or "gone", "absent") from None


def chown_tree(dir_fd: int, name: str, uid: int, gid: int) -> None:
    """Give `name` and all under it to `uid`:`gid`, never following a link.

    A link is given itself; a directory is walked by `walk` (descriptors only).
    """
    os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)
    if kind_at(dir_fd, name) != "a directory":
        return
    for _, folders, others, inner in walk(name, dir_fd=dir_fd):
        for entry in (*folders, *others):
            with contextlib.suppress(OSError):
                os.chown(entry, uid, gid, dir_fd=inner, follow_symlinks=False)


Level = tuple[str, list[str], list[str], int]


def _listed(fd: int) -> tuple[list[str], list[str]]:
    """The folders and the other entries (links included) of an open directory."""
    folders: list[str] = []
    others: list[str] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            (folders if is_folder else others).append(entry.name)
    return folders, others


def _open_inner(name: str, dir_fd: int) -> int | None:
    """`name` in the directory, opened only if it is a directory now; else None."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:  # ENOTDIR (a FIFO, a device, a file), ELOOP (a link), gone
        return None
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def walk(
    name: str | os.PathLike[str], *, dir_fd: int | None = None, topdown: bool = True
) -> Iterator[Level]:
    """(path, folders, others, descriptor) of `name` and of every folder under it.

    Unlike os.fwalk and shutil.rmtree, which open each listed folder with a
    bare O_RDONLY and compare only afterwards (a folder learner code swaps
    for a FIFO blocks the judge forever; for a link to a device, root opens
    the device), every folder is opened from its parent's descriptor with
    O_DIRECTORY and O_NOFOLLOW and fstat-checked: one swapped since it was
    listed is skipped, never opened. A link is listed among `others`, never
    entered. The top is "" ; top-down, the caller may prune `folders` in
    place. Descriptors are the walk's, closed when it moves on. Iterative, so
    a deep tree costs descriptors (one per level), not the interpreter's stack.
    """
    top = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    if not stat.S_ISDIR(os.fstat(top).st_mode):
        os.close(top)
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", os.fspath(name))
    # Each frame: a directory's descriptor, its path, its listing, the
    # folders still to enter.
    stack: list[tuple[int, str, Level, Iterator[str]]] = []
    try:
        stack.append(_frame(top, ""))
        if topdown:
            yield stack[-1][2]
        while stack:
            fd, here, level, pending = stack[-1]
            folder = next(pending, None)
            if folder is None:
                stack.pop()
                try:
                    if not topdown:
                        yield level
                finally:
                    os.close(fd)
                continue
            inner = _open_inner(folder, fd)
            if inner is None:
                continue
            stack.append(_frame(inner, f"{here}/{folder}" if here else folder))
            if topdown:
                yield stack[-1][2]
    finally:
        for fd, *_ in stack:
            os.close(fd)


def _frame(fd: int, here: str) -> tuple[int, str, Level, Iterator[str]]:
    try:
        folders, others = _listed(fd)
    except OSError:
        folders, others = [], []
    # A list's iterator reads it as it goes: top-down, the caller's pruning
    # (folders[:] = ...) before the first folder is entered is seen.
    return fd, here, (here, folders, others, fd), iter(folders)
