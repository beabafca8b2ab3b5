"""Placing a file fact's evidence: what each kind of file is, made real on disk.

`strategies.files` says what a file fact is (its kind, its path, its
expected content and the bytes the file holds); this module makes it: a
regular file, a FIFO, a symlink out of the root, a sparse file. A kind not
named in `_PLACES` is a regular file holding the fact's bytes.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from strategies.files import SPARSE_SIZES, FileFact, file_layout, foreign_readings

__all__ = ["Placed", "place_file"]


@dataclass(frozen=True)
class Placed:
    """What placing one fact left that a judge must know about."""

    fifos: tuple[Path, ...] = ()  # opened for writing to unblock a hung reader
    secrets: tuple[Path, ...] = ()  # outside the root: must never be opened


@dataclass(frozen=True)
class Where:
    """Everything a placement needs: the fact's path and the tree's places."""

    fact: FileFact
    data: bytes
    path: Path  # root.joinpath(*fact.parts)
    root: Path
    outside: Path  # beside the root, never inside it


Place = Callable[[Where], Placed]


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _regular(where: Where) -> Placed:
    _write(where.path, where.data)
    return Placed()


def _missing(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    return Placed()


def _directory(where: Where) -> Placed:
    _write(where.path / "inside.txt", where.data)
    return Placed()


def _fifo(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(where.path)
    return Placed(fifos=(where.path,))


def _bound_socket(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
        try:
            bound.bind(os.fspath(where.path))
        except OSError as error:  # an unusually long scratch path: a FIFO then
            if error.errno not in (errno.ENAMETOOLONG, errno.EINVAL):
                raise
            return _fifo(where)
    return Placed()  # closed: the socket file stays, and opening it fails


def _device(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    os.mknod(where.path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null twin
    return Placed()


def _link_to(real: Path, where: Where) -> None:
    _write(real, where.data)
    where.path.parent.mkdir(parents=True, exist_ok=True)
    where.path.symlink_to(real)


def _symlink_inside(where: Where) -> Placed:
    _link_to(where.root / "_real" / f"f{where.fact.index}", where)
    return Placed()


def _symlink_outside(where: Where) -> Placed:
    secret = where.outside / f"f{where.fact.index}"
    _link_to(secret, where)
    return Placed(secrets=(secret,))


def _symlinked_parent_place(where: Where) -> Placed:
    real_dir = where.root / "_real" / f"d{where.fact.index}"
    _write(real_dir / where.path.name, where.data)
    where.path.parent.parent.mkdir(parents=True, exist_ok=True)
    where.path.parent.symlink_to(real_dir, target_is_directory=True)
    return Placed()


def _symlink_loop(where: Where) -> Placed:
    path, fact = where.path, where.fact
    shape = fact.variant % 3
    if shape == 2:  # the top directory is a link to itself
        top = where.root / fact.parts[0]
        os.symlink(fact.parts[0], top)
        return Placed()
    path.parent.mkdir(parents=True, exist_ok=True)
    if shape == 0:  # the file is a link to itself
        os.symlink(path.name, path)
    else:  # two links pointing at each other
        os.symlink(f"loop_{path.name}", path)
        os.symlink(path.name, path.with_name(f"loop_{path.name}"))
    return Placed()


def _symlink_chain(where: Where) -> Placed:
    path = where.path
    real = path.with_name(f"real_{path.name}")
    _write(real, where.data)
    previous = real.name
    for link in range(where.fact.variant % 3, 0, -1):
        name = f"link{link}_{path.name}"
        os.symlink(previous, path.with_name(name))
        previous = name
    os.symlink(previous, path)
    return Placed()


def _symlink_out_at(where: Where) -> Placed:
    """Component `at` of the path is a link to a mirror outside holding the text."""
    parts = where.fact.parts
    at = where.fact.variant % len(parts)
    mirror = where.outside / f"s{where.fact.index}"
    secret = mirror.joinpath(*parts[at:])
    _write(secret, where.data)
    link = where.root.joinpath(*parts[: at + 1])
    link.parent.mkdir(parents=True, exist_ok=True)  # real directories up to it
    pointee = mirror / parts[at]
    absolute = where.fact.variant // 8 % 2 == 1
    os.symlink(pointee if absolute else os.path.relpath(pointee, link.parent), link)
    return Placed(secrets=(secret,))


def _sparse(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    with open(where.path, "wb") as handle:
        handle.truncate(SPARSE_SIZES[where.fact.variant % 2])  # a hole, no block
    return Placed()


def _deep_place(where: Where) -> Placed:
    """A tree deeper than PATH_MAX: only descriptor-relative calls reach it."""
    parts = where.fact.parts
    top = where.root / parts[0]
    top.mkdir(parents=True)
    directory = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[1:-1]:
            os.mkdir(part, dir_fd=directory)
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=directory)
            os.close(directory)
            directory = child
        handle = os.open(parts[-1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=directory)
        try:
            os.write(handle, where.data)
        finally:
            os.close(handle)
    finally:
        os.close(directory)
    return Placed()


def _twin(rename: Callable[[str], str], *, keep: bool) -> Place:
    """A file under `rename(leaf)` with other bytes; the expected one too if `keep`."""

    def place(where: Where) -> Placed:
        twin = where.path.with_name(rename(where.path.name))
        if keep:
            _write(where.path, where.data)
            _write(twin, b"a twin with other content\n")
        else:
            _write(twin, where.data)
            where.path.parent.mkdir(parents=True, exist_ok=True)
        return Placed()

    return place


def _foreign_twins(real: str) -> Place:
    """Decoys at every `foreign_readings` of the path.

    `real` says what the real path holds: "expected" (the decoys other
    text), "other" (other text; the decoys the expected content) or
    "nothing" (missing; the decoys the expected content). An evaluator that
    converts the path judges a decoy and gets the verdict wrong.
    """

    def place(where: Where) -> Placed:
        content, _ = file_layout(where.fact)
        decoy = (
            b"a decoy with other content\n" if real == "expected" else content.encode()
        )
        for reading in foreign_readings(where.fact.parts):
            _write(where.root / reading, decoy)
        if real == "nothing":
            where.path.parent.mkdir(parents=True, exist_ok=True)
        else:
            _write(where.path, where.data)
        return Placed()

    return place


def _as_nfd(name: str) -> str:
    return unicodedata.normalize("NFD", name)


def _stripped(name: str) -> str:
    return name.strip()


def _other_case(name: str) -> str:
    return name.swapcase()


_PLACES: dict[str, Place] = {
    "missing": _missing,
    "name_too_long": _missing,  # its directories exist: the walk meets the long name
    "directory": _directory,
    "fifo": _fifo,
    "socket": _bound_socket,
    "device": _device,
    "symlink_inside": _symlink_inside,
    "symlink_outside": _symlink_outside,
    "symlinked_parent": _symlinked_parent_place,
    "symlink_loop": _symlink_loop,
    "symlink_chain": _symlink_chain,
    "symlink_out_at": _symlink_out_at,
    "sparse": _sparse,
    "beyond_path_max": _deep_place,
    "name_nfc_beside_nfd": _twin(_as_nfd, keep=True),
    "name_nfc_only_nfd": _twin(_as_nfd, keep=False),
    "name_spaced_beside_stripped": _twin(_stripped, keep=True),
    "name_spaced_only_stripped": _twin(_stripped, keep=False),
    "name_cased_beside_other_case": _twin(_other_case, keep=True),
    "name_cased_only_other_case": _twin(_other_case, keep=False),
    "name_foreign_beside_converted": _foreign_twins("expected"),
    "name_foreign_converted_matches": _foreign_twins("other"),
    "name_foreign_only_converted": _foreign_twins("nothing"),
}


def place_file(fact: FileFact, root: Path, outside: Path) -> Placed:
    """Put the fact's evidence below `root` (and, for links out, below `outside`)."""
    _, data = file_layout(fact)
    where = Where(fact, data, root.joinpath(*fact.parts), root, outside)
    return _PLACES.get(fact.kind, _regular)(where)
