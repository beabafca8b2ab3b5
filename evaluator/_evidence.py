"""Read one evidence file inside a workspace root: bounded, regular files only.

The evaluator's file checks come here after ``Workspace.resolve_path`` has
accepted the path.  Between that check and the read, the tree can change
(another process can swap a directory for a symlink, or a file for a FIFO), so
the read does not trust the resolved path string.  It starts from the root and
opens every component relative to its parent's descriptor with ``O_NOFOLLOW``:
a symlink anywhere on the way is refused rather than followed.  The last
component is inspected with ``lstat`` before it is opened, so a FIFO, socket or
device is never opened at all; it is then opened with ``O_NONBLOCK`` (a FIFO
swapped in at that instant cannot block the open) and its ``fstat`` must show
the same regular file that was inspected.

How much is read.  A file longer than the expected content can never match it,
so reading all of it is pointless and, for a multi-GiB sparse file, harmful.
But an invalid UTF-8 file is *unavailable* evidence rather than a mismatch, and
a short whole-file read would see invalid bytes anywhere in it.  The budget is
therefore ``max(expected byte length, 64 KiB)`` and at most one byte more is
read.  Within the budget the whole file is decoded strictly, so the verdict is
exactly that of a whole-file read.  Beyond it the file is a mismatch unless its
first budget-plus-one bytes already contain invalid UTF-8 (checked with an
incremental decoder, so a character cut at the edge is not an error); invalid
bytes further on go unseen there, which is the one, bounded, difference from a
whole-file read.

POSIX only: it relies on ``dir_fd``, ``O_NOFOLLOW`` and ``O_DIRECTORY``.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import PurePath

from ._bounded import read_at_most

#: Smallest read budget; the same figure as the default ``max_file_bytes``.
WINDOW_BYTES = 64 * 1024

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


_KINDS = {
    stat.S_IFREG: "a regular file",
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symlink",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class EvidenceUnavailable(Exception):
    """The file cannot serve as evidence; the message says why."""


def describe_kind(mode: int) -> str:
    """Name the kind of filesystem object ``mode`` describes, with an article."""
    return _KINDS.get(stat.S_IFMT(mode), "an unknown kind of file")


def read_budget(expected_bytes: int) -> int:
    """How many bytes decide the verdict for content of ``expected_bytes``."""
    return max(expected_bytes, WINDOW_BYTES)


def observe_text(root: PurePath, target: PurePath, expected_bytes: int) -> str | None:
    """Return the whole text of ``target``, or ``None`` when it is too long.

    ``target`` must be a path below ``root`` as ``resolve_path`` returns it.
    ``None`` means the file holds more than ``read_budget(expected_bytes)``
    bytes, so it cannot equal the expected content, and the bytes read are
    valid UTF-8 (a character cut off at their end aside).  Anything that stops
    the file serving as evidence, invalid UTF-8 included, raises
    ``EvidenceUnavailable``.
    """
    parts = _relative_parts(root, target)
    budget = read_budget(expected_bytes)
    descriptor = _open_regular(root, parts)
    try:
        data = read_at_most(descriptor, budget + 1)
    except OSError as error:
        raise EvidenceUnavailable(f"could not read {_shown(parts)}: {error}") from error
    finally:
        os.close(descriptor)
    if len(data) <= budget:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise EvidenceUnavailable(_not_utf8(parts, error)) from error
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        decoder.decode(data, final=False)
    except UnicodeDecodeError as error:
        raise EvidenceUnavailable(_not_utf8(parts, error)) from error
    return None


def _shown(parts: tuple[str, ...]) -> str:
    return "/".join(parts)


def _not_utf8(parts: tuple[str, ...], error: UnicodeDecodeError) -> str:
    return f"{_shown(parts)} is not valid UTF-8 (byte offset {error.start})"


def _relative_parts(root: PurePath, target: PurePath) -> tuple[str, ...]:
    # What target.relative_to(root).parts gives (POSIX parts compare exactly),
    # without building two path objects on the way.
    prefix, whole = root.parts, target.parts
    if whole[: len(prefix)] != prefix:
        raise EvidenceUnavailable("path resolves outside the workspace root")
    parts = whole[len(prefix) :]
    # resolve_path returns a resolved path, so these never occur; refusing them
    # keeps a faulty or substituted resolve_path from steering the walk.
    if not parts or any(part in ("", ".", "..") for part in parts):
        raise EvidenceUnavailable("path does not name a file below the root")
    return parts


def _open_regular(root: PurePath, parts: tuple[str, ...]) -> int:
    """Open ``root/parts`` for reading without following any symlink."""
    try:
        directory = os.open(root, _DIRECTORY_FLAGS)
    except OSError as error:
        raise EvidenceUnavailable(
            f"could not open the workspace root: {error}"
        ) from error
    try:
        for index, part in enumerate(parts[:-1]):
            try:
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=directory)
            except OSError as error:
                shown = _shown(parts[: index + 1])
                raise EvidenceUnavailable(
                    f"could not open directory {shown} without following links: {error}"
                ) from error
            os.close(directory)
            directory = child
        return _open_last(directory, parts)
    finally:
        os.close(directory)


def _open_last(directory: int, parts: tuple[str, ...]) -> int:
    name = parts[-1]
    try:
        inspected = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except OSError as error:
        raise EvidenceUnavailable(
            f"could not inspect {_shown(parts)}: {error}"
        ) from error
    if not stat.S_ISREG(inspected.st_mode):
        kind = describe_kind(inspected.st_mode)
        raise EvidenceUnavailable(f"{_shown(parts)} is {kind}, not a regular file")
    try:
        descriptor = os.open(name, _FILE_FLAGS, dir_fd=directory)
    except OSError as error:
        raise EvidenceUnavailable(f"could not open {_shown(parts)}: {error}") from error
    handed_over = False
    try:
        # An fstat failure on a fresh descriptor leaves as OSError, which the
        # caller also treats as unavailable evidence.
        opened = os.fstat(descriptor)
        same = (opened.st_dev, opened.st_ino) == (inspected.st_dev, inspected.st_ino)
        if not stat.S_ISREG(opened.st_mode) or not same:
            raise EvidenceUnavailable(
                f"{_shown(parts)} was replaced while it was opened"
            )
        handed_over = True
        return descriptor
    finally:
        if not handed_over:
            os.close(descriptor)
