"""A world as evidence: everything the builder makes, read in one pure step.

    made = evidence(world, tree)   # then judge.build makes `made` real

`evidence` reads the world's facts and its blueprint (`World.blueprint`,
worked out by strategies/ when the world was made) once, calls no function
of strategies/, and says, as frozen plain data, what the judge's builder
(judge/build.py) must put where: the workspace root's name, every file
(`Node`s), the receipts to put through the target's store and the lines to
append after it, the log's damage or what replaces it, the events and fields
of the run, the case, and for a real run the plan's script, approvals and
what its replay implies. The builder then needs no other strategy module:
the way from a drawn world to the target's calls is this module, then
`build_in` there.

Only `Evidence.description`, the world in words, asks strategies/ (its
`describe`), and only when a lesson about a world that could not be built
needs it. Nothing here touches the disk, a target or a clock. Two things are
left to the builder because only the target makes them: a log line (the
target's store writes it; `Damage` works on those bytes) and the run itself.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from judge.nodes import Node, file_nodes
from strategies.files import ROOT_BYTES, SPARSE_SIZES
from strategies.logs import LOG_KINDS, LogDamage, call_id_of, tamper
from strategies.outcome import Outcome
from strategies.plan_steps import (
    Denied,
    EditFile,
    Invalid,
    ListFiles,
    Plan,
    ReadFile,
    Refused,
    RunCommand,
    Step,
    WriteFile,
)
from strategies.plans import MARKER, SENTINEL
from strategies.receipts import Stored
from strategies.results import EventSpec
from strategies.vocabulary import LOG_NAME, NAME_MAX
from strategies.world import CaseSpec, World, describe

__all__ = [
    "CaseSpec",
    "Damage",
    "EventSpec",
    "Evidence",
    "Kept",
    "Log",
    "Node",
    "Outcome",
    "Play",
    "Played",
    "Replacement",
    "Run",
    "Stored",
    "World",
    "evidence",
]


# --- the receipt store and its log ------------------------------------------------


@dataclass(frozen=True)
class Damage:
    """What the drawn damage does to the bytes the target's store wrote:
    pure, on bytes only known once the target has written them."""

    damage: LogDamage

    def conflicting(self, data: bytes) -> Stored | None:
        """The receipt whose line (written by the target) the damage needs:
        for a conflicting repeat, a different receipt under the line's call id."""
        if self.damage.op != "repeat" or not self.damage.arg:
            return None
        lines = data.splitlines(keepends=True)
        return _conflicting(call_id_of(lines[self.damage.line % len(lines)]))

    def applied(self, data: bytes, conflict: bytes) -> bytes:
        """`data` damaged; `conflict` is the line of `conflicting(data)`."""
        return tamper(data, self.damage, conflict)


@dataclass(frozen=True)
class Replacement:
    """What stands at the log's name instead of the log: `what` is one of
    "directory", "fifo", "symlink_to_fifo" (a link to the FIFO `name`),
    "sparse" (one line of `size` NUL bytes), "million_lines", "long_line",
    "unreadable" (the store is pointed at `name`, too long to exist)."""

    what: str
    name: str = ""
    size: int = 0


@dataclass(frozen=True)
class Log:
    """The store evaluation is handed, and what its log holds.

    `store` is "path", "memory" or "missing". `path` is the log's path as the
    store is given it and `at` where it really is (past the folder's link),
    both as names under the tree; `folder` is the log's own folder beside
    the root ("" when the log sits in the root) and `link` the link that
    reaches it ("" when none), both laid out with the world's files
    (`nodes`). The `put` receipts go through the target's
    store in order; when `finish`, the log then holds one line per put, each
    `appended` receipt is a line the target's store writes elsewhere,
    appended to it, and last comes `damage` or `replacement`.
    """

    store: str = "memory"
    path: tuple[str, ...] = ()
    at: tuple[str, ...] = ()
    folder: str = ""
    link: str = ""
    put: tuple[Stored, ...] = ()
    finish: bool = False
    appended: tuple[Stored, ...] = ()
    damage: Damage | None = None
    replacement: Replacement | None = None
    workspace_store: str = "same"
    get: str | None = None  # what the handed store's get raises ("junk": returns)

    @property
    def nodes(self) -> tuple[Node, ...]:
        """The log's own folder beside the root, and the link that reaches it."""
        if not self.folder:
            return ()
        folder = Node((self.folder,), what="folder")
        if not self.link:
            return (folder,)
        return (folder, Node((self.link,), what="link", to=self.folder))


def _conflicting(call_id: str) -> Stored:
    return Stored(
        call_id,
        "write_file",
        {"path": "conflict.txt", "content": "other"},
        "ok",
        "wrote conflict.txt",
        ("conflict.txt",),
    )


def _log(world: World, root: str) -> Log:
    fact = world.log
    where: dict[str, Any] = {}
    if fact.store != "memory":
        if fact.location == "inside":
            where = {"path": (root, LOG_NAME), "at": (root, LOG_NAME)}
        else:
            linked = fact.location == "linked"
            folder = "logs-real" if linked else "logs"
            where = {
                "path": ("logs", LOG_NAME),
                "at": (folder, LOG_NAME),
                "folder": folder,
                "link": "logs" if linked else "",
            }
    log = Log(fact.store, workspace_store=fact.workspace_store, get=fact.get, **where)
    if world.plan is not None or fact.store == "missing":
        return log
    put = world.blueprint.put
    if fact.store == "memory":
        return replace(log, put=put)
    kind = LOG_KINDS[fact.kind]
    replacement = None
    if kind.replace == "symlink_to_fifo":
        replacement = Replacement(kind.replace, name="pipe")
    elif kind.replace == "sparse":
        replacement = Replacement(kind.replace, size=SPARSE_SIZES[-1])
    elif kind.replace == "unreadable":
        # The store keeps its valid log; only the path it is asked to reload
        # is too long to exist, so loading raises OSError (ENAMETOOLONG).
        replacement = Replacement(kind.replace, name="x" * (NAME_MAX + 1) + ".jsonl")
    elif kind.replace:
        replacement = Replacement(kind.replace)
    damage = None
    if not kind.replace and fact.damage.op != "kept":
        damage = Damage(fact.damage)
    return replace(
        log,
        put=put,
        finish=True,
        appended=world.blueprint.appended,
        damage=damage,
        replacement=replacement,
    )


# --- the run, and a real run's plan -------------------------------------------------


@dataclass(frozen=True)
class Run:
    """The AgentRun's fields; `final` may be no string at all (then set past
    the constructor's validation, like `events` as a list)."""

    completed: object
    reason: object
    final: object
    events: tuple[EventSpec, ...]
    modified_files: tuple[str, ...]
    as_list: bool

    @property
    def odd_final(self) -> bool:
        return not (self.final is None or isinstance(self.final, str))


@dataclass(frozen=True)
class Kept:
    """A file the real run must leave holding exactly `text`."""

    parts: tuple[str, ...]
    text: str

    @property
    def path(self) -> str:
        return "/".join(self.parts)


@dataclass(frozen=True)
class Played:
    """One step of a real run's plan, as the builder checks the run: its
    `kind` ("read", "list", "invalid", an effect "approved" or "denied" by
    the callback, or an edit the workspace "refused" before asking, `why`),
    the `path` it names, and `what` it is in a few words."""

    kind: str
    what: str
    path: str = ""
    why: str = ""

    @property
    def decision(self) -> bool | None:
        """The approval callback's answer at this step: plain True approves,
        False denies (Day 3's rule, kept by every later day; Day 8's
        ApprovalDecision is no Day 7 name), None where none is asked."""
        return {"approved": True, "denied": False}.get(self.kind)


@dataclass(frozen=True)
class Play:
    """A real run: the target's own run_agent plays the plan's `script`.

    `outcome` is what the plan implies (its events, approvals, files and
    receipts); an event whose result is not known exactly holds none of
    `forbidden`. `final` is the final reply's text, or no string when the
    run stops at its step limit before it. `steps` are the plan's steps,
    one per reply before the final.
    """

    task: str
    script: tuple[str, ...]
    commands: tuple[tuple[str, ...], ...]
    steps: tuple[Played, ...]
    invalid: int
    outcome: Outcome
    final: object
    kept: tuple[Kept, ...]
    forbidden: tuple[str, ...] = (SENTINEL, MARKER)

    @property
    def complete(self) -> bool:
        return isinstance(self.final, str)

    @property
    def decisions(self) -> tuple[bool | None, ...]:
        return tuple(step.decision for step in self.steps)


def _played(step: Step) -> Played:
    if isinstance(step, Denied):
        effect = _played(step.effect)
        return Played("denied", effect.what, effect.path)
    if isinstance(step, EditFile):
        return Played("approved", f"edit_file {step.path}", step.path)
    if isinstance(step, WriteFile):
        return Played("approved", f"write_file {step.path}", step.path)
    if isinstance(step, RunCommand):
        words = f"run_command (an allowed command printing {step.output!r})"
        return Played("approved", words)
    if isinstance(step, Refused):
        return Played("refused", f"edit_file {step.path}", step.path, step.why)
    if isinstance(step, ReadFile):
        return Played("read", f"read_file {step.path}", step.path)
    if isinstance(step, ListFiles):
        return Played("list", f"list_files {step.path}", step.path)
    assert isinstance(step, Invalid)
    return Played("invalid", "an invalid reply")


def _seeds(plan: Plan, root: str) -> tuple[Node, ...]:
    """The files a real run's plan starts from, under the root."""
    return tuple(
        Node((root, *seed.path.split("/")), data=seed.content.encode("utf-8"))
        for seed in plan.files
    )


def _play(world: World, plan: Plan) -> Play:
    made = world.blueprint
    assert made.outcome is not None  # worked out for every plan
    return Play(
        task=plan.task,
        script=made.script,
        commands=made.commands,
        steps=tuple(_played(step) for step in plan.steps),
        invalid=sum(isinstance(step, Invalid) for step in plan.steps),
        outcome=made.outcome,
        final=made.final,
        kept=tuple(Kept(f.parts, f.text) for f in world.files if f.kind == "exact"),
    )


# --- the whole world ---------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """Everything the builder makes of one world, as data.

    `root` is the workspace root's name under the tree, `files` what goes on
    disk before the target is called, in order (the drawn world's files, or
    the files a real run's plan starts from, then the log's folder), `run`
    the run to construct
    (None for a real run, which `play` makes). `description` is the world in
    words, for a lesson about a world that could not be built.
    """

    root: str
    files: tuple[Node, ...]
    log: Log
    run: Run | None
    case: CaseSpec
    play: Play | None
    # Only for `description`: worded when a lesson needs it (a tenth of a
    # millisecond a world, and almost every world builds).
    source: World = field(repr=False, compare=False)

    @functools.cached_property
    def description(self) -> str:
        return describe(self.source)


#: File kinds whose path is laid out for a root of exactly ROOT_BYTES.
_LENGTH_KINDS = ("long_path", "beyond_path_max")


def _root(tree: str, world: World) -> str:
    """The workspace root's name: the root exactly ROOT_BYTES long when the
    tree's path allows, so paths at the length limit are known before the
    world is built."""
    base = os.fsencode(tree)
    pad = ROOT_BYTES - len(base) - len(b"/ws")
    if pad >= 0:
        return "ws" + "-" * pad
    if any(fact.kind in _LENGTH_KINDS for fact in world.files):
        raise RuntimeError(
            f"the scratch directory {os.fsdecode(base)!r} is too long for a path at"
            f" the length limit (the workspace root must be {ROOT_BYTES} bytes);"
            " set DAY7_SCRATCH to a shorter directory"
        )
    return "ws"


def _run(world: World, events: Sequence[EventSpec] | None) -> Run:
    made = world.blueprint
    specs = made.events if events is None else tuple(events)
    if world.events_as_list:  # numbered in descending order
        specs = tuple(replace(e, step=len(specs) + 1 - e.step) for e in specs)
    return Run(
        world.final.completed,
        world.final.run_reason,
        made.final,
        specs,
        world.modified_files,
        world.events_as_list,
    )


def evidence(
    world: World,
    tree: str | os.PathLike[str],
    events: Sequence[EventSpec] | None = None,
) -> Evidence:
    """What the builder makes of `world` in the tree at path `tree`.

    `events` replaces the world's canonical events (a reordering, say).
    Raises RuntimeError when `tree` is too long for the world's paths.
    """
    tree = os.fspath(tree)
    root = _root(tree, world)
    plan = world.plan
    log = _log(world, root)
    run = None if plan is not None else _run(world, events)
    play = None if plan is None else _play(world, plan)
    files = (
        _seeds(plan, root)
        if plan is not None
        else tuple(
            node
            for fact, laid in zip(world.files, world.blueprint.files, strict=True)
            for node in file_nodes(fact, laid, root, tree)
        )
    )
    return Evidence(
        root=root,
        files=(*files, *log.nodes),
        log=log,
        run=run,
        case=world.blueprint.case,
        play=play,
        source=world,
    )
