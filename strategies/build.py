"""Make a neutral world real for one target, inside a fresh temporary directory.

    with materialise(world, target) as built:
        report = call_target("evaluate_run(...)", target.evaluate_run,
                             built.run, built.workspace, built.receipts, built.case)

Only the target's own Day 1-7 names are used: `ToolPolicy`, `Workspace`,
`ReceiptStore`, `EffectReceipt`, `AgentEvent`, `AgentRun`, `ToolAction`,
`FinalAction` and the case types. The receipt log is written by the target's
`ReceiptStore(path).put(...)` and only then damaged, as bytes.

The tree, under one fresh directory:

    ws/                the workspace root (file facts; maybe receipts.jsonl)
    ws/_real/          targets of symlinks that stay inside the root
    outside/           targets of symlinks that leave the root
    logs/receipts.jsonl  the log when it sits beside the root

If the target cannot even build the world (an unfinished Day 1-6 name, a
valid case refused), that is reported as a lesson, not an internal error.
"""

from __future__ import annotations

import builtins
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from strategies.facts import (
    CaseSpec,
    EventSpec,
    FileFact,
    ReceiptFact,
    World,
    case_spec,
    describe,
    extra_receipts,
    file_layout,
    final_text,
    receipt_arguments,
    receipt_result,
    stored_artifacts,
    stored_as,
    world_events,
)
from strategies.lessons import InvariantFailure
from strategies.logs import call_id_of, line_through_store, tamper

__all__ = [
    "Built",
    "build_in",
    "make_case",
    "make_events",
    "materialise",
    "scratch_parent",
]

LOG_NAME = "receipts.jsonl"


@dataclass
class Built:
    """One world made real: the target's objects and where they live."""

    world: World
    tree: Path  # the whole temporary tree: snapshot this
    root: Path  # the workspace root
    log_path: Path | None
    run: Any
    workspace: Any
    receipts: Any
    case: Any
    approvals: list[Any] = field(default_factory=list)

    @property
    def args(self) -> tuple[Any, Any, Any, Any]:
        """The four arguments of evaluate_run, in order."""
        return self.run, self.workspace, self.receipts, self.case


class _BuildFailure(Exception):
    """The target failed while the world was being built."""

    def __init__(self, step: str, error: BaseException | None, why: str = "") -> None:
        self.step = step
        self.error = error
        self.why = why
        super().__init__(step)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _call(step: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except Exception as error:
        raise _BuildFailure(step, error) from error


# --- files -----------------------------------------------------------------------


def _place(fact: FileFact, root: Path, tree: Path) -> None:
    _, data = file_layout(fact)
    path = root.joinpath(*fact.parts)
    kind = fact.kind
    if kind == "symlinked_parent":
        real_dir = root / "_real" / f"d{fact.index}"
        real_dir.mkdir(parents=True)
        (real_dir / fact.parts[-1]).write_bytes(data)
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.symlink_to(real_dir, target_is_directory=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "missing":
        return
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind in ("symlink_inside", "symlink_outside"):
        real = (
            root / "_real" / f"f{fact.index}"
            if kind == "symlink_inside"
            else tree / "outside" / f"f{fact.index}"
        )
        real.parent.mkdir(parents=True, exist_ok=True)
        real.write_bytes(data)
        path.symlink_to(real)
    else:
        path.write_bytes(data)


# --- events, run and case --------------------------------------------------------


def make_events(target: Any, specs: Sequence[EventSpec]) -> tuple[Any, ...]:
    """The target's AgentEvents for neutral event specs, in the given order."""
    events = []
    for spec in specs:
        if spec.action == "tool":
            action = _call(
                "ToolAction(tool, arguments)",
                target.ToolAction,
                spec.tool,
                json.loads(spec.arguments_json),
            )
        elif spec.action == "final":
            action = _call("FinalAction(final)", target.FinalAction, spec.final)
        else:
            action = None
        events.append(
            _call(
                "AgentEvent(step, response, action, result)",
                target.AgentEvent,
                spec.step,
                spec.response,
                action,
                spec.result,
            )
        )
    return tuple(events)


def make_case(target: Any, spec: CaseSpec) -> Any:
    """The target's EvaluationCase for a neutral case spec."""
    files = tuple(
        _call("FileExpectation(path, content)", target.FileExpectation, path, content)
        for path, content in spec.files
    )
    results = tuple(
        _call("ResultExpectation(tool, contains)", target.ResultExpectation, t, c)
        for t, c in spec.results
    )
    receipts = tuple(
        _call(
            "ReceiptExpectation(call id, tool, exit state, substring, artifacts)",
            target.ReceiptExpectation,
            call_id,
            tool,
            exit_state,
            contains,
            artifacts,
        )
        for call_id, tool, exit_state, contains, artifacts in spec.receipts
    )
    return _call(
        "EvaluationCase(final_contains, files, results, receipts)",
        target.EvaluationCase,
        spec.final_contains,
        files=files,
        results=results,
        receipts=receipts,
    )


# --- receipts ---------------------------------------------------------------------


def _receipt(target: Any, fact: ReceiptFact) -> Any:
    return _call(
        "EffectReceipt(...)",
        target.EffectReceipt,
        fact.call_id,
        fact.tool,
        receipt_arguments(fact),
        fact.exit_state,
        receipt_result(fact),
        stored_artifacts(fact),
    )


def _extra_receipt(target: Any, number: int) -> Any:
    return _call(
        "EffectReceipt(...)",
        target.EffectReceipt,
        f"extra-{number}",
        "run_command",
        {"argv": ["python", "-c", "print('extra')"]},
        "ok",
        f"status: 0\noutput:\nextra {number}\n",
        (),
    )


def _conflicting(target: Any, call_id: str) -> Any:
    return _call(
        "EffectReceipt(...)",
        target.EffectReceipt,
        call_id,
        "write_file",
        {"path": "conflict.txt", "content": "other"},
        "ok",
        "wrote conflict.txt",
        ("conflict.txt",),
    )


def _put(store: Any, receipt: Any) -> None:
    _call("ReceiptStore.put(receipt)", store.put, receipt)


def _raising_get(target: Any, name: str) -> Any:
    if name == "AgentError":
        error_type: type[BaseException] = target.AgentError
    elif name == "LookupFailure":
        error_type = type("LookupFailure", (Exception,), {})
    else:
        error_type = getattr(builtins, name)

    def get(call_id: str) -> Any:
        raise error_type(f"lookup of {call_id} broke")

    return get


def _store(
    world: World, target: Any, tree: Path, root: Path
) -> tuple[Any, Path | None]:
    log = world.log
    stored = [f for f in world.receipts if stored_as(f, log) == "put"]
    extras = [_extra_receipt(target, n) for n in range(extra_receipts(world))]
    if log.store == "memory":
        store = _call("ReceiptStore()", target.ReceiptStore)
        for receipt in [*extras, *(_receipt(target, f) for f in stored)]:
            _put(store, receipt)
        return store, None

    if log.location == "inside":
        log_path = root / LOG_NAME
    else:
        (tree / "logs").mkdir()
        log_path = tree / "logs" / LOG_NAME
    store = _call("ReceiptStore(path)", target.ReceiptStore, log_path)
    if log.store == "missing":
        return store, log_path

    receipts = [*extras, *(_receipt(target, f) for f in stored)]
    for receipt in receipts:
        _put(store, receipt)
    written = log_path.read_bytes() if log_path.is_file() else b""
    if len(written.splitlines()) != len(receipts):
        raise _BuildFailure(
            "ReceiptStore(path).put(receipt)",
            None,
            f"after {len(receipts)} put(s) the log holds"
            f" {len(written.splitlines())} line(s); each put of a new receipt"
            " appends one JSON line",
        )
    for fact in world.receipts:
        if stored_as(fact, log) == "appended":
            line = _line(target, _receipt(target, fact), tree)
            with log_path.open("ab") as output:
                output.write(line)
    if log.tamper == "directory":
        log_path.unlink(missing_ok=True)
        log_path.mkdir()
    elif log.tamper != "none":
        # No receipt was put: the log is created by the damage itself.
        data = log_path.read_bytes() if log_path.exists() else b""
        conflict = b""
        if log.tamper == "conflict":
            lines = data.splitlines(keepends=True)
            call_id = call_id_of(lines[log.tamper_line % len(lines)])
            conflict = _line(target, _conflicting(target, call_id), tree)
        log_path.write_bytes(
            tamper(data, log.tamper, log.tamper_line, log.tamper_variant, conflict)
        )
    return store, log_path


def _line(target: Any, receipt: Any, tree: Path) -> bytes:
    try:
        return line_through_store(target, receipt, tree / "_scratch")
    except Exception as error:
        raise _BuildFailure("ReceiptStore(path).put(receipt)", error) from error


# --- the whole world ---------------------------------------------------------------


def build_in(
    world: World,
    target: Any,
    tree: Path,
    *,
    events: Sequence[EventSpec] | None = None,
) -> Built:
    """Build `world` for `target` in the empty (or absent) directory `tree`.

    `events` replaces the world's canonical events (a reordering, say).
    Raises InvariantFailure when the target cannot build it.
    """
    try:
        return _build(world, target, tree, events)
    except _BuildFailure as failure:
        raise _lesson(world, failure) from failure.error


def _build(
    world: World, target: Any, tree: Path, events: Sequence[EventSpec] | None
) -> Built:
    root = tree / "ws"
    root.mkdir(parents=True)
    for fact in world.files:
        _place(fact, root, tree)
    policy = _call("ToolPolicy(root)", target.ToolPolicy, root)
    approvals: list[Any] = []

    def confirm_tool(action: Any) -> bool:
        approvals.append(action)
        return False

    store, log_path = _store(world, target, tree, root)
    if world.log.workspace_store == "same":
        workspace_store = store
    else:
        workspace_store = _call("ReceiptStore()", target.ReceiptStore)
    workspace = _call(
        "Workspace(policy, confirm_tool, receipt_store)",
        target.Workspace,
        policy,
        confirm_tool,
        workspace_store,
    )
    if world.log.get_raises is not None:
        store.get = _raising_get(target, world.log.get_raises)
    final, _ = final_text(world.final)
    run = _call(
        "AgentRun(completed, reason, final, events, modified_files)",
        target.AgentRun,
        world.final.completed,
        world.final.run_reason,
        final,
        make_events(target, world_events(world) if events is None else events),
        world.modified_files,
    )
    case = make_case(target, case_spec(world))
    return Built(world, tree, root, log_path, run, workspace, store, case, approvals)


_CASE_STEPS = (
    "EvaluationCase",
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
)


def _lesson(world: World, failure: _BuildFailure) -> InvariantFailure:
    observed = failure.why or (
        f"{failure.step} raised {_one_line(failure.error)}"
        if failure.error is not None
        else f"{failure.step} failed"
    )
    if failure.step.startswith(_CASE_STEPS):
        hint = (
            "a valid case must be accepted: only blank required strings, bad"
            " paths, bad exit states, wrong group types and duplicates are refused"
        )
    else:
        hint = (
            "the Day 1-6 names (ToolPolicy, Workspace, ReceiptStore, EffectReceipt,"
            " AgentEvent, AgentRun, ToolAction, FinalAction) must work before Day 7"
            " can be judged"
        )
    return InvariantFailure(
        world=describe(world),
        expected=f"{failure.step} to build the world",
        observed=observed,
        headline=f"could not build the world through the target: {observed}",
        hint=hint,
    )


def scratch_parent() -> str | None:
    """Where fresh trees go: $DAY7_SCRATCH, else /dev/shm when usable, else $TMPDIR.

    A world is a few dozen tiny files made and removed per example; on a
    disk-backed /tmp that costs ~15 ms a tree, in memory (tmpfs) ~0.4 ms.
    Symlinks, FIFOs and modes behave the same on both.
    """
    chosen = os.environ.get("DAY7_SCRATCH")
    if chosen:
        return chosen
    shm = "/dev/shm"
    if os.path.isdir(shm) and not os.path.islink(shm) and os.access(shm, os.W_OK):
        return shm
    return None


@contextmanager
def materialise(
    world: World, target: Any, *, events: Sequence[EventSpec] | None = None
) -> Iterator[Built]:
    """Build `world` for `target` in a fresh temporary directory, removed after."""
    with tempfile.TemporaryDirectory(
        prefix="day7-world-", dir=scratch_parent()
    ) as directory:
        yield build_in(world, target, Path(directory) / "w", events=events)
