"""What an audited call's records mean: which accesses break the read-only rule.

The recorder (worker/audit.py, standard library only) records raw data, in
the worker for a learner's call and in the judge for the bundled
evaluator's; this module, the judge's, reads it. A worker's records are the
learner's word and may be malformed: a record that cannot be read is
judged as a path that cannot be placed, never skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Access", "accesses", "is_module_file", "violations"]

# Files the import system reads when a call imports a module lazily.
_MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pth", ".zip", ".abi3.so")


@dataclass(frozen=True)
class Access:
    """One audited action of the watched call.

    `kind` is "path" (opened, listed, scanned), "change" (filesystem
    changed), "process" or "network"; `reached` is the real path a path
    event touched (None when it is unknown); `writes` whether an open
    asked for writing.
    """

    kind: str
    event: str
    raw: str
    reached: str | None = None
    writes: bool = False

    def __str__(self) -> str:
        where = (
            f" -> {self.reached}" if self.reached and self.reached != self.raw else ""
        )
        mode = " for writing" if self.writes else ""
        return f"{self.event}({self.raw}){where}{mode}"


def accesses(records: Iterable[object]) -> list[Access]:
    """The recorder's records (`[kind, event, raw, reached, writes]`) as accesses."""
    read = []
    for record in records:
        if (
            isinstance(record, (list, tuple))
            and len(record) == 5
            and all(isinstance(text, str) for text in record[:3])
            and (record[3] is None or isinstance(record[3], str))
        ):
            kind, event, raw, reached, writes = record
            read.append(Access(kind, event, raw[:300], reached, bool(writes)))
        else:
            read.append(Access("path", "unreadable record", repr(record)[:300]))
    return read


def violations(
    accesses: Iterable[Access],
    *,
    root: Path | str,
    log: Path | str | None,
    secrets: Iterable[Path | str] = (),
    places: Iterable[str] = (),
) -> list[str]:
    """Every recorded action outside the allowed ones, one line each.

    Allowed: reading paths inside `root` (the root itself included) and the
    receipt `log` (as given or resolved), and the import system reading
    module files in the recording process's import `places`. Never allowed:
    writing, changing the filesystem, starting a process, using the network.
    """
    root_text = os.path.realpath(root)
    allowed_logs = set()
    if log is not None:
        allowed_logs = {os.path.abspath(log), os.path.realpath(log)}
    secret_paths = {os.path.realpath(secret) for secret in secrets}
    places = tuple(places)
    problems = []
    for access in accesses:
        if access.kind == "process":
            problems.append(f"started a process: {access}")
        elif access.kind == "network":
            problems.append(f"used the network: {access}")
        elif access.kind == "change":
            problems.append(f"changed the filesystem: {access}")
        elif access.writes:
            problems.append(f"opened for writing: {access}")
        elif access.reached in secret_paths:
            problems.append(f"opened the secret outside the root: {access}")
        elif access.reached is None:
            problems.append(f"opened a path that cannot be placed: {access}")
        elif not (
            _within(access.reached, root_text)
            or access.reached in allowed_logs
            or is_module_file(access, places)
        ):
            problems.append(f"opened outside the root and the log: {access}")
    return problems


def is_module_file(access: Access, places: Iterable[str]) -> bool:
    """Whether the import system is reading a module (a lazy import in the call).

    `places` are where the recording process imports from, resolved there
    (worker/audit.py's `import_places`): a worker in the sandbox sees other
    paths than the judge does.
    """
    reached = access.reached or ""
    if not any(_within(reached, place) for place in places if place):
        return False
    if access.event in ("os.listdir", "os.scandir"):
        return True  # the path finder lists directories of sys.path
    return reached.endswith(_MODULE_SUFFIXES)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
