"""What evaluation may not change: the bytes of a tree, and the objects it is given.

`tree_snapshot` records every path under a directory without following
symlinks: its kind, mode and modification time, a regular file's bytes, a
symlink's target. Two snapshots are equal exactly when nothing was created,
removed, written, touched or re-pointed (access times are left out: reading
is allowed to change them). It serves the hostile worlds too: it opens
nothing but regular files, compares a sparse file larger than 64 MiB by size
and blocks instead of reading it, and walks through directory descriptors,
so trees deeper than PATH_MAX stay in reach.

`object_state` records the run (its events in the order and container they
came in), the case, the workspace's modified files and state, the store's
state and the approvals asked for, as deep copies compared with ==.
`spy_on` wraps the stateful tools and the store's `put` on one built world
so that any call is recorded (and still carried out).
"""

from __future__ import annotations

import copy
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judge import safefs
from judge.fixes import placed
from judge.remote import ProtocolError, Ref, is_remote, rebuilt

__all__ = [
    "SPIED_STORE_METHODS",
    "SPIED_WORKSPACE_METHODS",
    "object_state",
    "spy_on",
    "tree_changes",
    "tree_snapshot",
]

Entry = tuple[object, ...]

#: The workspace's tools and the store methods evaluation must never call
#: (read_file also changes what the workspace lets the agent edit afterwards).
SPIED_WORKSPACE_METHODS = tuple(
    "read_file execute write_file edit_file run_command list_files".split()
)
SPIED_STORE_METHODS = ("put",)


#: Regular files up to this size are kept whole; larger ones (the sparse GiB
#: files of hostile worlds) are compared by size, allocated blocks and
#: modification time, which a write or a truncation changes.
_WHOLE_LIMIT = 64 * 1024 * 1024
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

_SPECIAL_KINDS = {
    stat.S_IFIFO: "FIFO",
    stat.S_IFSOCK: "socket",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
}


def _entry(name: str, dir_fd: int | None) -> Entry:
    """One entry, read through its directory's descriptor and never followed.

    Only regular files are opened: a FIFO, socket or device is stat'ed, so
    the snapshot itself cannot block, and descriptor-relative names keep
    trees deeper than PATH_MAX within reach.
    """
    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    mode = info.st_mode
    # Modification times catch a write that restores the bytes and (for a
    # directory) an entry created and removed again; access times are left
    # out, since reading is allowed to change them.
    changed = info.st_mtime_ns
    if stat.S_ISLNK(mode):
        return ("symlink", os.readlink(name, dir_fd=dir_fd))
    if stat.S_ISDIR(mode):
        return ("directory", stat.S_IMODE(mode), changed)
    if not stat.S_ISREG(mode):
        kind = _SPECIAL_KINDS.get(stat.S_IFMT(mode), "special file")
        return (kind, stat.S_IMODE(mode), changed, info.st_rdev)
    if info.st_size > _WHOLE_LIMIT:
        return ("large file", stat.S_IMODE(mode), changed, info.st_size, info.st_blocks)
    # Learner code may still be running: what is opened must be the file
    # just stat'ed (never a link, FIFO or device swapped in since), and no
    # more than the limit is read, however fast it grows.
    try:
        handle = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        return ("swapped while read", error.errno)
    try:
        opened = os.fstat(handle)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            return ("swapped while read", stat.S_IFMT(opened.st_mode))
        chunks = []
        size = 0
        while size <= _WHOLE_LIMIT and (chunk := os.read(handle, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(handle)
    if size > _WHOLE_LIMIT:
        return ("grew while read", stat.S_IMODE(mode), changed, size)
    return ("file", stat.S_IMODE(mode), changed, b"".join(chunks))


def tree_snapshot(top: Path | str) -> dict[str, Entry]:
    """Every path under `top` (and `top` itself, as "."), never following links."""
    top = os.fspath(top)
    entries = {".": _entry(top, None)}
    # safefs.walk, not os.fwalk: a folder learner code swaps for a FIFO or a
    # link to a device is never opened (os.fwalk would block, or open it).
    if entries["."][0] != "directory":  # a link or a file: itself only
        return entries
    for relative, folders, others, dir_fd in safefs.walk(top):
        for name in (*folders, *others):
            key = os.path.join(relative, name) if relative else name
            entries[key] = _entry(name, dir_fd)
    return entries


def _what_changed(before: Entry, after: Entry) -> str:
    if before[0] != after[0]:
        return f"was a {before[0]}, now a {after[0]}"
    if before[0] == "symlink":
        return f"re-pointed from {before[1]!r} to {after[1]!r}"
    if before[0] == "file" and before[3] != after[3]:
        return f"bytes changed from {_bytes(before[3])} to {_bytes(after[3])}"
    if before[0] == "large file" and before[3:] != after[3:]:
        return f"size or blocks changed from {before[3:]} to {after[3:]}"
    if before[1] != after[1]:
        return "mode changed"
    if before[0] == "directory":
        return "modification time changed (an entry was created or removed in it)"
    return "modification time changed (it was written or touched)"


def _bytes(data: object) -> str:
    text = repr(data)
    return text if len(text) <= 60 else text[:56] + "...'"


def tree_changes(
    before: dict[str, Entry], after: dict[str, Entry], root: str = ""
) -> list[str]:
    """What differs between two snapshots, one sentence per path; `root`,
    the workspace root's name in the tree, said as "ws", the name a plain
    test gives it (the judge pads it to a fixed length: judge.evidence)."""
    changes = []
    for path in sorted(before.keys() | after.keys()):
        said = path
        if root and (path == root or path.startswith(root + os.sep)):
            said = "ws" + path[len(root) :]
        if path not in after:
            changes.append(f"{said} was removed")
        elif path not in before:
            changes.append(f"{said} was created")
        elif before[path] != after[path]:
            changes.append(f"{said}: {_what_changed(before[path], after[path])}")
    return changes


def _fields(obj: object) -> dict[str, Any]:
    # Instance attributes minus callables: the spies and monkeypatched
    # methods are ours, not the object's state.
    try:
        attributes = vars(obj)
    except TypeError:
        return {"repr": repr(obj)}
    return {
        name: copy.deepcopy(value)
        for name, value in attributes.items()
        if not callable(value) or isinstance(value, type)
    }


def _working_directory() -> str:
    try:
        return os.getcwd()
    except OSError as error:  # changed into a directory since removed
        return f"<unavailable: {error}>"


def object_state(built: Any) -> dict[str, Any]:
    """The state of everything evaluation is handed, as comparable copies,
    and of the process it runs in (its working directory and environment:
    a later relative path would resolve elsewhere)."""
    workspace = built.workspace
    if is_remote(built.run) or is_remote(workspace):
        return _remote_state(built)
    return {
        "the run": copy.deepcopy(built.run),
        # == on a dataclass compares its fields only: an attribute added by
        # force (an index cached on the run) shows in its instance dict.
        "the run's attributes": _fields(built.run),
        "the case": copy.deepcopy(built.case),
        "the case's attributes": _fields(built.case),
        "workspace.modified_files": _modified_files(workspace),
        "the workspace's state": _fields(workspace),
        "the receipt store's state": _fields(built.receipts),
        "the approval callback's calls": len(built.approvals),
        "the process's working directory": _working_directory(),
        "the process's environment": dict(os.environ),
    }


def _modified_files(workspace: Any) -> tuple[Any, ...]:
    """The workspace's modified files: a Day 1-6 property the judge reads, so
    a TODO body (None) is a substrate lesson naming it, not a TypeError."""
    from judge.calls import call_target
    from judge.lessons import InvariantFailure

    files = call_target(
        "workspace.modified_files",
        lambda: workspace.modified_files,
        topic="substrate",
    )
    if not isinstance(files, (tuple, list)):
        raise InvariantFailure(
            world="",
            expected="workspace.modified_files to be a tuple of the files the"
            " workspace changed",
            observed=f"workspace.modified_files is {files!r:.80}",
            hint=placed(
                "Workspace.modified_files returns the files this workspace"
                " changed, sorted, as a tuple; a TODO body returns None",
                "Workspace.modified_files",
            ),
            topic="substrate",
            cause="substrate:Workspace.modified_files",
        )
    return tuple(files)


def _remote_state(built: Any) -> dict[str, Any]:
    """`object_state` of objects that live in a worker: compared there as data
    (worker.serve.canon), with the worker's working directory and
    environment, where the target's code runs."""
    client = built.workspace._client
    objects = {
        "the run": built.run,
        "the case": built.case,
        "the workspace's state": built.workspace,
        "the receipt store's state": built.receipts,
    }
    steps = [{"fn": {"$w": name}} for name in ("state", "environ", "getcwd")]
    steps[0]["args"] = client.encode([objects])
    said = client.request({"op": "batch", "steps": steps}, "recording the state")
    results = said.get("results") if isinstance(said, dict) else None
    if not isinstance(results, list) or not all(
        isinstance(r, dict) for r in results[:2]
    ):
        raise ProtocolError("the worker's state answer is malformed")
    if len(results) < 2:  # the objects or the environment could not be read
        raise rebuilt(said.get("raised"))
    state = {**results[0], "the process's environment": results[1]}
    # A working directory removed under the process has no path to show.
    where = (
        results[2]
        if len(results) > 2
        else f"<unavailable: {rebuilt(said.get('raised'))}>"
    )
    state["the process's working directory"] = where
    state["workspace.modified_files"] = _modified_files(built.workspace)
    state["the approval callback's calls"] = len(built.approvals)
    return state  # type: ignore[no-any-return]


def _recording(calls: list[str], label: str, original: Callable[..., Any]) -> Any:
    def spy(*args: Any, **kwargs: Any) -> Any:
        shown = ", ".join(
            [*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())]
        )
        calls.append(f"{label}({shown})")
        return original(*args, **kwargs)

    return spy


def spy_on(built: Any) -> list[str]:
    """Record every call of the workspace's tools and the stores' put.

    The calls still happen (so a learner's evaluator behaves as it would),
    but each is listed in the returned list, which must stay empty.
    """
    workspace = built.workspace
    if is_remote(workspace):
        return _spy_on_remote(workspace, built.receipts)
    calls: list[str] = []
    for name in SPIED_WORKSPACE_METHODS:
        original = getattr(workspace, name, None)
        if callable(original):
            setattr(workspace, name, _recording(calls, f"workspace.{name}", original))
    stores = {id(built.receipts): built.receipts}
    store = getattr(workspace, "receipt_store", None)
    if store is not None:
        stores[id(store)] = store
    for store in stores.values():
        for name in SPIED_STORE_METHODS:
            original = getattr(store, name, None)
            if callable(original):
                setattr(store, name, _recording(calls, f"receipts.{name}", original))
    return calls


def _spy_on_remote(workspace: Any, receipts: Any) -> list[str]:
    """`spy_on` for objects in a worker, with its generic batch: the judge's
    own callables are set on them, each noting its call here and forwarding
    it to the original (a request made while serving the callback). Two
    requests: which of the names each object has, then every original read
    before any spy is set (so a store reached twice is spied on once)."""
    client = workspace._client

    def batch(*steps: tuple[Any, str, tuple[Any, ...]], whole: bool) -> list[Any]:
        said = client.request(
            {
                "op": "batch",
                "steps": [
                    {"fn": client.encode(owner), "method": method}
                    | {"args": client.encode(list(args)), "kwargs": {"$d": []}}
                    for owner, method, args in steps
                ],
            },
            "spying on the workspace's tools",
        )
        if not isinstance(said, dict) or not isinstance(said.get("results"), list):
            raise ProtocolError("the worker's batch answer is malformed")
        if whole and "failed" in said:  # a spy not set would hide every call
            raise rebuilt(said.get("raised"))
        return said["results"]  # type: ignore[no-any-return]

    # The workspace's own store (getattr's default: its absence stops the batch).
    found = batch(
        (workspace, "__dir__", ()),
        (receipts, "__dir__", ()),
        (workspace, "__getattribute__", ("receipt_store",)),
        (Ref(2), "__dir__", ()),
        whole=False,
    )
    owners = [(workspace, SPIED_WORKSPACE_METHODS, "workspace")]
    owners += [(receipts, SPIED_STORE_METHODS, "receipts")]
    owners += [(found[2], SPIED_STORE_METHODS, "receipts")] if len(found) == 4 else []
    spied = [
        (owner, name, f"{label}.{name}")
        for (owner, names, label), has in zip(
            owners, found[:2] + found[3:], strict=False
        )
        if isinstance(has, list)
        for name in names
        if name in has
    ]
    calls: list[str] = []
    originals: list[Any] = []

    def forwarding(index: int, label: str) -> Callable[..., Any]:
        return _recording(calls, label, lambda *a, **k: originals[index](*a, **k))

    originals += batch(
        *[(owner, "__getattribute__", (name,)) for owner, name, _ in spied],
        *[
            (owner, "__setattr__", (name, forwarding(index, label)))
            for index, (owner, name, label) in enumerate(spied)
        ],
        whole=True,
    )
    return calls
