"""What each file fact puts on disk, as data: the builder only writes it.

A fact's kind is what sits at its path (a regular file, a FIFO, a symlink
out of the root, a sparse file...); `file_nodes` says so as `Node`s, in the
order they are made, each at names under the world's tree, its folders made
as needed. A kind not named in `_NODES` is a regular file holding the
fact's bytes. Nothing here touches the disk: `judge.layout` makes the nodes.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from strategies.files import SPARSE_SIZES, FileFact
from strategies.world import Laid

__all__ = ["Node", "file_nodes"]


@dataclass(frozen=True)
class Node:
    """One thing on disk at `parts` (names under the tree; folders on the
    way are made as needed).

    `what` is "file" (holding `data`, made with `mode`), "folder", "link"
    (pointing `to`, as os.symlink is given it), "fifo", "socket" (bound,
    then closed; a FIFO where the path is too long for one), "device" (a
    /dev/null twin) or "sparse" (`size` bytes of hole). `secret`: outside
    the root, a file evaluation must never open.
    """

    parts: tuple[str, ...]
    what: str = "file"
    data: bytes = b""
    to: str = ""
    size: int = 0
    mode: int = 0o666
    secret: bool = False


@dataclass(frozen=True)
class _Where:
    """A fact as laid out (text, bytes, converted spellings), its path, and
    the tree's places (as names and as a path)."""

    fact: FileFact
    laid: Laid
    path: tuple[str, ...]  # (root, *fact.parts)
    root: tuple[str, ...]
    outside: tuple[str, ...]  # beside the root, never inside it
    tree: str  # the tree's own path, for links that point by absolute path

    def absolute(self, parts: tuple[str, ...]) -> str:
        return os.path.join(self.tree, *parts)


_Nodes = Callable[[_Where], "tuple[Node, ...]"]


def _regular(where: _Where) -> tuple[Node, ...]:
    return (Node(where.path, data=where.laid.data),)


def _missing(where: _Where) -> tuple[Node, ...]:
    return (Node(where.path[:-1], "folder"),)


def _directory(where: _Where) -> tuple[Node, ...]:
    return (Node((*where.path, "inside.txt"), data=where.laid.data),)


def _special(what: str) -> _Nodes:
    return lambda where: (Node(where.path, what),)


def _link_to(real: tuple[str, ...], where: _Where, secret: bool) -> tuple[Node, ...]:
    return (
        Node(real, data=where.laid.data, secret=secret),
        Node(where.path, "link", to=where.absolute(real)),
    )


def _symlink_inside(where: _Where) -> tuple[Node, ...]:
    return _link_to((*where.root, "_real", f"f{where.fact.index}"), where, False)


def _symlink_outside(where: _Where) -> tuple[Node, ...]:
    return _link_to((*where.outside, f"f{where.fact.index}"), where, True)


def _symlinked_parent(where: _Where) -> tuple[Node, ...]:
    real_dir = (*where.root, "_real", f"d{where.fact.index}")
    return (
        Node((*real_dir, where.path[-1]), data=where.laid.data),
        Node(where.path[:-1], "link", to=where.absolute(real_dir)),
    )


def _symlink_loop(where: _Where) -> tuple[Node, ...]:
    path, fact = where.path, where.fact
    shape = fact.variant % 3
    if shape == 2:  # the top directory is a link to itself
        return (Node((*where.root, fact.parts[0]), "link", to=fact.parts[0]),)
    name = path[-1]
    if shape == 0:  # the file is a link to itself
        return (Node(path, "link", to=name),)
    return (  # two links pointing at each other
        Node(path, "link", to=f"loop_{name}"),
        Node((*path[:-1], f"loop_{name}"), "link", to=name),
    )


def _symlink_chain(where: _Where) -> tuple[Node, ...]:
    path = where.path
    previous = f"real_{path[-1]}"
    nodes = [Node((*path[:-1], previous), data=where.laid.data)]
    for link in range(where.fact.variant % 3, 0, -1):
        name = f"link{link}_{path[-1]}"
        nodes.append(Node((*path[:-1], name), "link", to=previous))
        previous = name
    nodes.append(Node(path, "link", to=previous))
    return tuple(nodes)


def _symlink_out_at(where: _Where) -> tuple[Node, ...]:
    """Component `at` of the path is a link to a mirror outside holding the text."""
    parts = where.fact.parts
    at = where.fact.variant % len(parts)
    mirror = (*where.outside, f"s{where.fact.index}")
    link = (*where.root, *parts[: at + 1])
    pointee = where.absolute((*mirror, parts[at]))
    absolute = where.fact.variant // 8 % 2 == 1
    to = pointee if absolute else os.path.relpath(pointee, where.absolute(link[:-1]))
    return (
        Node((*mirror, *parts[at:]), data=where.laid.data, secret=True),
        Node(link, "link", to=to),
    )


def _sparse(where: _Where) -> tuple[Node, ...]:
    return (Node(where.path, "sparse", size=SPARSE_SIZES[where.fact.variant % 2]),)


def _deep(where: _Where) -> tuple[Node, ...]:
    """A tree deeper than PATH_MAX: the builder makes every node descriptor
    by descriptor, so it is reached like any other."""
    return (Node(where.path, data=where.laid.data, mode=0o644),)


def _twin(rename: Callable[[str], str], *, keep: bool) -> _Nodes:
    """A file under `rename(leaf)` with other bytes; the expected one too if `keep`."""

    def nodes(where: _Where) -> tuple[Node, ...]:
        twin = (*where.path[:-1], rename(where.path[-1]))
        if keep:
            return (
                Node(where.path, data=where.laid.data),
                Node(twin, data=b"a twin with other content\n"),
            )
        return (Node(twin, data=where.laid.data), Node(where.path[:-1], "folder"))

    return nodes


def _foreign_twins(real: str) -> _Nodes:
    """Decoys at every `foreign_readings` of the path.

    `real` says what the real path holds: "expected" (the decoys other
    text), "other" (other text; the decoys the expected content) or
    "nothing" (missing; the decoys the expected content). An evaluator that
    converts the path judges a decoy and gets the verdict wrong.
    """

    def nodes(where: _Where) -> tuple[Node, ...]:
        content = where.laid.expected
        decoy = (
            b"a decoy with other content\n" if real == "expected" else content.encode()
        )
        made = [
            Node((*where.root, *PurePosixPath(reading).parts), data=decoy)
            for reading in where.laid.readings
        ]
        if real == "nothing":
            made.append(Node(where.path[:-1], "folder"))
        else:
            made.append(Node(where.path, data=where.laid.data))
        return tuple(made)

    return nodes


def _as_nfd(name: str) -> str:
    return unicodedata.normalize("NFD", name)


def _stripped(name: str) -> str:
    return name.strip()


def _other_case(name: str) -> str:
    return name.swapcase()


_NODES: dict[str, _Nodes] = {
    "missing": _missing,
    "name_too_long": _missing,  # its folders exist: the walk meets the long name
    "directory": _directory,
    "fifo": _special("fifo"),
    "socket": _special("socket"),
    "device": _special("device"),
    "symlink_inside": _symlink_inside,
    "symlink_outside": _symlink_outside,
    "symlinked_parent": _symlinked_parent,
    "symlink_loop": _symlink_loop,
    "symlink_chain": _symlink_chain,
    "symlink_out_at": _symlink_out_at,
    "sparse": _sparse,
    "beyond_path_max": _deep,
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


def file_nodes(fact: FileFact, laid: Laid, root: str, tree: str) -> tuple[Node, ...]:
    """What `fact`, laid out as `laid`, puts on disk below the root named
    `root` (and, for links out of it, below `outside` beside it) in the tree
    at path `tree`."""
    where = _Where(fact, laid, (root, *fact.parts), (root,), ("outside",), tree)
    return _NODES.get(fact.kind, _regular)(where)
