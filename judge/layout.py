"""A world's files made real: the nodes its evidence names, written under its tree.

Nodes are laid out in a fresh tree, before it is given to the worker, so no
learner code has touched it yet; still, each is reached descriptor by
descriptor from the tree, its folders made on the way and never a link
followed, which is also how a path deeper than PATH_MAX is made like any
other.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from judge.evidence import Node
from judge.safefs import write_at

__all__ = ["Laid", "lay_out"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Laid:
    """What the judge must know of the nodes laid out."""

    secrets: tuple[Path, ...] = ()  # outside the root: must never be opened


def _folder(folders: dict[tuple[str, ...], int], parts: tuple[str, ...]) -> int:
    """The folder at `parts` under the tree, made where missing; a descriptor
    kept in `folders` (which holds the tree's own under ())."""
    fd = folders.get(parts)
    if fd is None:
        parent = _folder(folders, parts[:-1])
        try:
            os.mkdir(parts[-1], dir_fd=parent)
        except FileExistsError:
            pass
        fd = folders[parts] = os.open(parts[-1], _DIR_FLAGS, dir_fd=parent)
    return fd


def _write(fd: int, name: str, data: bytes, mode: int) -> None:
    handle = os.open(name, _FILE_FLAGS, mode, dir_fd=fd)
    try:
        write_at(handle, 0, data)
    finally:
        os.close(handle)


def _bound_socket(path: Path) -> None:
    """A socket file at `path` (bound, then closed: opening it fails), or a
    FIFO where the path is too long for a socket."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
        try:
            bound.bind(os.fspath(path))
        except OSError as error:  # an unusually long scratch path: a FIFO then
            if error.errno not in (errno.ENAMETOOLONG, errno.EINVAL):
                raise
            os.mkfifo(path)


def _make(tree: Path, folders: dict[tuple[str, ...], int], node: Node) -> None:
    """Make one node."""
    if node.what == "folder":
        _folder(folders, node.parts)
        return
    fd = _folder(folders, node.parts[:-1])
    name = node.parts[-1]
    if node.what == "socket":  # bound by path: sockets have no dir_fd
        _bound_socket(tree.joinpath(*node.parts))
    elif node.what == "file":
        _write(fd, name, node.data, node.mode)
    elif node.what == "link":
        os.symlink(node.to, name, dir_fd=fd)
    elif node.what == "fifo":
        os.mkfifo(name, dir_fd=fd)
    elif node.what == "device":  # a /dev/null twin
        os.mknod(name, stat.S_IFCHR | 0o666, os.makedev(1, 3), dir_fd=fd)
    elif node.what == "sparse":
        handle = os.open(name, _FILE_FLAGS, node.mode, dir_fd=fd)
        try:
            os.ftruncate(handle, node.size)  # a hole, no block
        finally:
            os.close(handle)
    else:  # pragma: no cover - judge.nodes and this move together
        raise ValueError(f"unknown node {node.what!r}")


def lay_out(tree: Path, nodes: Iterable[Node]) -> Laid:
    """Make `nodes` under the existing, fresh `tree`, in order."""
    secrets: list[Path] = []
    # Each folder is opened once, from its parent's descriptor.
    folders = {(): os.open(tree, _DIR_FLAGS)}
    try:
        for node in nodes:
            _make(tree, folders, node)
            if node.secret:
                secrets.append(tree.joinpath(*node.parts))
    finally:
        for fd in folders.values():
            os.close(fd)
    return Laid(tuple(secrets))
