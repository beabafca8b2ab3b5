"""Make a world real for one target, inside a fresh temporary directory.

    with materialise(world, target) as built:
        report = evaluate(target, built)

The one builder of the suite: drawn, hostile and real-run worlds alike.
What to build is worked out first, in one pure step, by
`judge.evidence`; this module only makes that evidence real, and is
the one way from it to the target's calls.
Every call into the target goes through `call_target`, so a Day 1-6 name
that is missing, raises or hangs becomes a lesson about the substrate, said
once, instead of an internal error. Only the target's own names are used:
`ToolPolicy`, `Workspace`, `ReceiptStore`, `EffectReceipt`, `AgentEvent`,
`AgentRun`, `ToolAction`, `FinalAction`, the case types and, for real runs,
`AgentLimits`, `ApprovalDecision` and `run_agent`. The receipt log is written
by the target's `ReceiptStore(path).put(...)` and only then damaged.

The tree, under one fresh directory:

    ws--.../           the workspace root, ROOT_BYTES long (file facts; maybe the log)
    ws--.../_real/     targets of symlinks that stay inside the root
    outside/           targets of symlinks that leave the root (secrets)
    logs/receipts.jsonl  the log when it sits beside the root
    _scratch/          where single log lines are written by the target's store
"""

from __future__ import annotations

import builtins
import functools
import json
import os
import shutil
import tempfile
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import remote, safefs
from judge.evidence import (
    CaseSpec,
    EventSpec,
    Evidence,
    Log,
    Outcome,
    Play,
    Replacement,
    Run,
    Stored,
    World,
    evidence,
)
from judge.fixes import change_for, placed
from judge.layout import lay_out
from judge.lessons import InvariantFailure, call_target, called
from judge.remote import Ref, Step

__all__ = [
    "Built",
    "build_in",
    "evidence_bytes",
    "make_case",
    "make_events",
    "materialise",
    "rewrite_evidence",
    "rewrite_in_root",
    "scratch_parent",
]

MILLION = 1_000_000
LONG_LINE_BYTES = 2 * (1 << 20)


@dataclass
class Built:
    """One world made real: the target's objects and where they live."""

    evidence: Evidence
    tree: Path  # the whole temporary tree: snapshot this
    root: Path  # the workspace root
    log_path: Path | None
    run: Any
    workspace: Any
    receipts: Any
    case: Any
    approvals: list[Any] = field(default_factory=list)
    secrets: list[Path] = field(default_factory=list)  # outside the root
    model: ScriptedModel | None = None  # a real run's model
    outcome: Outcome | None = None  # a real run's replayed plan
    #: Where the log really is, as names under `tree`, past the judge's own
    #: links: the judge reaches it so, never through a link (judge.safefs).
    log_at: tuple[str, ...] = ()

    @property
    def args(self) -> tuple[Any, Any, Any, Any]:
        """The four arguments of evaluate_run, in order."""
        return self.run, self.workspace, self.receipts, self.case


def _force(instance: Any, **values: Any) -> Any:
    """Set fields of a (frozen) dataclass instance past its validation."""
    return remote.force(instance, **values)


def _added(steps: list[Step], step: Step) -> Ref:
    """Append `step` to the batch; the Ref of what it makes."""
    steps.append(step)
    return Ref(len(steps) - 1)


# --- events, run and case ---------------------------------------------------------


def _event(target: Any, spec: EventSpec, steps: list[Step]) -> Any:
    """The steps that make one event; its Ref (or the odd item itself)."""
    if spec.action == "item":
        return spec.item
    action: object = None
    if spec.action in ("tool", "dict", "lookalike"):
        action = _added(
            steps,
            Step(
                "ToolAction(tool, arguments)",
                target.ToolAction,
                (spec.tool, json.loads(spec.arguments_json)),
            ),
        )
    elif spec.action in ("final", "final_with_result"):
        action = _added(
            steps, Step("FinalAction(final)", target.FinalAction, (spec.final,))
        )
    plain = spec.result is None or isinstance(spec.result, str)
    event = _added(
        steps,
        Step(
            "AgentEvent(step, response, action, result)",
            target.AgentEvent,
            (spec.step, spec.response, action, spec.result if plain else ""),
        ),
    )
    if not plain:
        steps.append(Step("", event, (spec.result,), force="result"))
    if spec.action == "dict":
        steps.append(
            Step("", event, ({"tool": spec.tool, "arguments": {}},), force="action")
        )
    elif spec.action == "lookalike":
        lookalike = types.SimpleNamespace(tool=spec.tool, arguments={})
        steps.append(Step("", event, (lookalike,), force="action"))
    return event


def _results(steps: list[Step], made: Sequence[Any]) -> list[Any]:
    results = remote.run_steps(steps, call_target)
    return [results[m.index] if isinstance(m, Ref) else m for m in made]


def make_events(target: Any, specs: Sequence[EventSpec]) -> tuple[Any, ...]:
    """The target's AgentEvents (or odd items) for neutral specs, in order."""
    steps: list[Step] = []
    made = [_event(target, spec, steps) for spec in specs]
    return tuple(_results(steps, made))


def _run_steps(target: Any, spec: Run, steps: list[Step]) -> Ref:
    """The steps that make the run (its events first); the run's Ref."""
    made: list[Any] = [_event(target, event, steps) for event in spec.events]
    run = _added(
        steps,
        Step(
            "AgentRun(completed, reason, final, events, modified_files)",
            target.AgentRun,
            (
                spec.completed,
                spec.reason,
                "" if spec.odd_final else spec.final,
                tuple(made),
                spec.modified_files,
            ),
        ),
    )
    if spec.odd_final:
        steps.append(Step("", run, (spec.final,), force="final"))
    if spec.as_list:
        steps.append(Step("", run, (list(made),), force="events"))
    return run


def make_case(target: Any, spec: CaseSpec) -> Any:
    """The target's EvaluationCase for a neutral case spec."""
    steps: list[Step] = []
    return _results(steps, [_case_steps(target, spec, steps)])[0]


def _case_steps(target: Any, spec: CaseSpec, steps: list[Step]) -> Ref:
    """The steps that make the case (its expectations first); the case's Ref."""

    def each(
        make: Any, rows: Sequence[tuple[Any, ...]], what: Callable[..., str]
    ) -> tuple[Ref, ...]:
        # One expectation a row, its fields the row; `what` words the call.
        return tuple(_added(steps, Step(what(*row), make, row)) for row in rows)

    files = each(
        target.FileExpectation,
        spec.files,
        lambda path, content: f"FileExpectation({path!r}, {content!r:.40})",
    )
    results = each(
        target.ResultExpectation,
        spec.results,
        lambda tool, contains: f"ResultExpectation({tool!r}, {contains!r})",
    )
    receipts = each(
        target.ReceiptExpectation,
        spec.receipts,
        lambda call_id, tool, exit_state, contains, artifacts: (
            f"ReceiptExpectation({call_id!r}, {tool!r}, {exit_state!r},"
            f" {contains!r}, {artifacts!r})"
        ),
    )
    return _added(
        steps,
        Step(
            f"EvaluationCase({spec.final_contains!r}, files, results, receipts)",
            target.EvaluationCase,
            (spec.final_contains,),
            {"files": files, "results": results, "receipts": receipts},
        ),
    )


# --- receipts ---------------------------------------------------------------------


def _receipt_step(target: Any, stored: Stored) -> Step:
    return Step(
        "EffectReceipt(tool_call_id, tool, arguments, exit_state, result, artifacts)",
        target.EffectReceipt,
        (
            stored.call_id,
            stored.tool,
            stored.arguments,
            stored.exit_state,
            stored.result,
            stored.artifacts,
        ),
    )


def _receipt(target: Any, stored: Stored) -> Any:
    return remote.run_steps([_receipt_step(target, stored)], call_target)[0]


def _put_steps(
    target: Any, store: Any, stored: Sequence[Stored], steps: list[Step]
) -> None:
    """The steps that make each receipt and put it into `store`, in order."""
    for one in stored:
        receipt = _added(steps, _receipt_step(target, one))
        steps.append(Step("ReceiptStore.put(receipt)", store, (receipt,), method="put"))


def _raising_get(target: Any, name: str) -> Callable[[str], Any]:
    # For a worker's target this is a judge callback: an AgentError it raises
    # is raised in the worker as the target's own AgentError (Client._raised_as).
    if name == "junk":
        return lambda call_id: {"tool_call_id": call_id, "tool": "write_file"}
    if name == "AgentError" and not getattr(target, "remote", False):
        error_type: type[BaseException] = target.AgentError
    elif name in ("AgentError", "LookupFailure"):
        error_type = type(name, (Exception,), {})
    else:
        error_type = getattr(builtins, name)

    def get(call_id: str) -> Any:
        raise error_type(f"lookup of {call_id} broke")

    return get


_SCRATCH = "_scratch"
_SCRATCH_LOG = "scratch.jsonl"


def _line(target: Any, stored: Stored, tree: Path) -> bytes:
    """The log line the target's own store writes for one receipt, in a
    directory of its own under `tree`, read back without following links."""
    with safefs.opened(tree) as tree_fd:
        safefs.remove_tree(tree_fd, _SCRATCH)
        safefs.make_dir(tree_fd, _SCRATCH)
    scratch = tree / _SCRATCH
    remote.give_to_worker(scratch)
    try:
        log = scratch / _SCRATCH_LOG
        store = call_target("ReceiptStore(path)", target.ReceiptStore, log)
        call_target("ReceiptStore.put(receipt)", store.put, _receipt(target, stored))
        with safefs.opened(tree, (_SCRATCH,)) as scratch_fd:
            line = safefs.read_regular(scratch_fd, _SCRATCH_LOG)
        if line is None:
            raise InvariantFailure(
                world="",
                expected="ReceiptStore(path).put(receipt) to append a line to the log",
                observed="the log file was never created",
                hint=placed(
                    "a store with a path appends one JSON line per new receipt",
                    "ReceiptStore.put",
                ),
                cause="substrate:ReceiptStore.put",
            )
        return line
    except safefs.Unexpected as error:
        raise _swapped(error, "the scratch log ReceiptStore.put wrote") from None
    finally:
        with safefs.opened(tree) as tree_fd:
            safefs.remove_tree(tree_fd, _SCRATCH)


def _swapped(error: safefs.Unexpected, what: str) -> InvariantFailure:
    """The lesson for a judge's path that learner code made something else."""
    return InvariantFailure(
        world="",
        expected=f"{what} to stay what the judge left there",
        observed=f"learner code replaced it: {error}",
        hint=placed(
            "the judge never follows a link: code that turns the log or the"
            " world's files into links, FIFOs or directories (in any thread,"
            " at any time) fails the world; write the log with plain appends",
            "ReceiptStore.put",
        ),
        cause="substrate:ReceiptStore.put",
    )


@functools.cache
def _assets() -> tuple[Path, Path]:
    """The million-line and long-line logs, written once per process and
    hard-linked into worlds (same file system as the worlds)."""
    directory = Path(tempfile.mkdtemp(prefix="day7-assets-", dir=scratch_parent()))
    import atexit

    atexit.register(shutil.rmtree, directory, True)
    million = directory / "million-short-lines.jsonl"
    million.write_bytes(b"{}\n" * MILLION)  # JSON, but not one receipt among them
    long_line = directory / "one-long-line.jsonl"
    long_line.write_bytes(b'{"receipt_id": "' + b"f" * LONG_LINE_BYTES + b'"}')
    return million, long_line


def _replace_log(replacement: Replacement, log_fd: int, built: Built) -> None:
    """Put what stands there instead of the log file (in the log's
    directory, `log_fd`)."""
    assert built.log_path is not None
    path = built.log_path
    name = path.name
    kind = replacement.what
    safefs.remove(log_fd, name)
    if kind == "directory":
        safefs.make_dir(log_fd, name)
    elif kind == "fifo":
        safefs.make_fifo(log_fd, name)
    elif kind == "symlink_to_fifo":
        safefs.make_fifo(log_fd, replacement.name)
        safefs.make_symlink(log_fd, replacement.name, name)
    elif kind == "sparse":
        safefs.create_sparse(log_fd, name, replacement.size)
    elif kind in ("million_lines", "long_line"):
        million, long_line = _assets()
        safefs.link_in(million if kind == "million_lines" else long_line, log_fd, name)
    elif kind == "unreadable":
        built.receipts.path = path.with_name(replacement.name)
    else:  # pragma: no cover - judge.evidence and this function move together
        raise ValueError(f"unknown log replacement {kind!r}")


def _store(log: Log, target: Any, built: Built) -> None:
    """The world's receipt store (and its log), made by the target, on its own."""
    steps: list[Step] = []
    store = _store_steps(log, target, built, steps)
    built.receipts = _results(steps, [store])[0]
    _finish_log(log, target, built)


def _store_steps(log: Log, target: Any, built: Built, steps: list[Step]) -> Ref:
    """The steps that make the world's store and put its receipts into it;
    the store's Ref. The log directory is laid out here, before any step runs.
    """
    if log.store == "memory":
        store = _added(steps, Step("ReceiptStore()", target.ReceiptStore))
        built.log_path = None
    else:
        if log.folder:
            _log_directory(built, log)
        built.log_path = built.tree.joinpath(*log.path)
        built.log_at = log.at
        store = _added(
            steps, Step("ReceiptStore(path)", target.ReceiptStore, (built.log_path,))
        )
    _put_steps(target, store, log.put, steps)
    return store


def _log_directory(built: Built, log: Log) -> None:
    """The log's directory beside the root (`logs`, or `logs` a symlink to
    `logs-real`), laid out through the tree's descriptor: the tree is the
    worker's already."""
    try:
        with safefs.opened(built.tree) as tree_fd:
            safefs.make_dir(tree_fd, log.folder)
            if log.link:  # the log's directory is a symlink
                safefs.make_symlink(tree_fd, log.folder, log.link)
    except safefs.Unexpected as error:
        raise _swapped(error, "the log's directory") from None
    remote.give_to_worker(built.tree / log.folder)
    if log.link:
        remote.give_to_worker(built.tree / log.link)


def _finish_log(log: Log, target: Any, built: Built) -> None:
    """Check the log the puts wrote, then append, damage or replace it as the
    world says; nothing to do for a store in memory or a real run's.

    Learner code ran just before (and may run still): the log is reached
    through the tree's descriptor and never followed; a log that is no longer
    the file the store wrote fails the world as a lesson.
    """
    if not log.finish:
        return
    try:
        with safefs.opened(built.tree, built.log_at[:-1]) as log_fd:
            _finish_log_in(log, target, built, log_fd)
    except safefs.Unexpected as error:
        raise _swapped(error, "the log ReceiptStore.put wrote") from None


def _finish_log_in(log: Log, target: Any, built: Built, log_fd: int) -> None:
    name = built.log_at[-1]
    receipts = log.put
    written = safefs.read_regular(log_fd, name) or b""
    if len(written.splitlines()) != len(receipts):
        # Name the method and its module: the learner's Day 1-6 code in
        # receipts.py is what to open, not the evaluator.
        raise InvariantFailure(
            world="",
            expected="each ReceiptStore.put of a new receipt to append one JSON"
            " line to the log",
            observed=f"after {len(receipts)} call(s) of ReceiptStore.put"
            f" (receipts.py) the log holds {len(written.splitlines())} line(s)",
            hint=placed(
                "ReceiptStore.put must append one JSON line per new receipt to the"
                " log file it was given (open it in append mode, write the line,"
                " end it with a newline); a TODO body writes nothing",
                "ReceiptStore.put",
            ),
            cause="substrate:ReceiptStore.put",
        )
    for stored in log.appended:
        safefs.append(log_fd, name, _line(target, stored, built.tree))
    if log.replacement is not None:
        _replace_log(log.replacement, log_fd, built)
    elif log.damage is not None:
        # No receipt was put: the log is created by the damage itself.
        data = safefs.read_regular(log_fd, name) or b""
        other = log.damage.conflicting(data)
        conflict = b"" if other is None else _line(target, other, built.tree)
        safefs.replace(log_fd, name, log.damage.applied(data, conflict))


# --- real runs --------------------------------------------------------------------


class ScriptedModel:
    """The model: returns the plan's replies in order, counting its calls."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = tuple(replies)
        self.calls = 0

    def __call__(self, messages: object) -> str:
        if self.calls >= len(self.replies):
            raise AssertionError(
                f"the model was asked for reply {self.calls + 1},"
                f" but the plan has {len(self.replies)}"
            )
        self.calls += 1
        return self.replies[self.calls - 1]


class Approver:
    """The approval callback: answers the plan's decisions in order and
    records every action it is shown, as (tool, arguments)."""

    def __init__(self, decisions: Sequence[object]) -> None:
        self.decisions = tuple(decisions)
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, action: Any) -> object:
        self.seen.append((action.tool, dict(action.arguments)))
        if len(self.seen) > len(self.decisions):
            return False  # an action the plan never asked to approve
        return self.decisions[len(self.seen) - 1]


def _decisions(target: Any, play: Play) -> list[object]:
    decisions: list[object] = []
    for decision in play.decisions:
        if not decision.made:
            decisions.append(decision.approve)
        elif decision.approve:
            decisions.append(
                call_target("ApprovalDecision(True)", target.ApprovalDecision, True)
            )
        else:
            decisions.append(
                call_target(
                    "ApprovalDecision(False, reason)",
                    target.ApprovalDecision,
                    False,
                    decision.reason,
                )
            )
    return decisions


def _play(made: Evidence, target: Any, built: Built) -> None:
    """Play the world's plan with the target's own run_agent."""
    play = made.play
    assert play is not None
    lay_out(built.tree, play.seeds)
    remote.give_to_worker(built.tree)
    built.outcome = play.outcome
    script = play.script
    policy = call_target(
        "ToolPolicy(root, allow_writes=True, allowed_commands=...)",
        target.ToolPolicy,
        built.root,
        allow_writes=True,
        allowed_commands=play.commands,
    )
    _store(made.log, target, built)
    approver = Approver(_decisions(target, play))
    built.approvals = approver.seen
    built.workspace = call_target(
        "Workspace(policy, approve, store)",
        target.Workspace,
        policy,
        approver,
        built.receipts,
    )
    limits = call_target(
        "AgentLimits(...)",
        target.AgentLimits,
        max_steps=len(script),
        max_context_chars=1_000_000,
        max_invalid_actions=play.invalid + 1,
        max_identical_actions=len(script) + 1,
    )
    built.model = ScriptedModel(script)
    built.run = call_target(
        "run_agent(task, model, workspace, limits)",
        target.run_agent,
        play.task,
        built.model,
        built.workspace,
        limits,
    )
    _check_follows_plan(play, built, approver)


def _check_follows_plan(play: Play, built: Built, approver: Approver) -> None:
    """Fail, as a lesson about the substrate, if the run is not the plan's."""
    run, outcome = built.run, play.outcome
    final, complete = play.final, play.complete
    planned = (*outcome.events, None) if complete else outcome.events
    problems: list[str] = []
    events = tuple(getattr(run, "events", ()) or ())
    completed = getattr(run, "completed", None)
    if complete and (completed is not True or getattr(run, "final", None) != final):
        problems.append(
            f"completed={completed!r}, reason={getattr(run, 'reason', None)!r},"
            f" final={getattr(run, 'final', None)!r}"
        )
    if not complete and (completed is not False or run.reason != "step_limit"):
        problems.append(f"completed={completed!r}, reason={run.reason!r}")
    if len(events) != len(planned):
        problems.append(f"{len(events)} events instead of {len(planned)}")
    else:
        for number, (event, plan_event) in enumerate(
            zip(events, planned, strict=False), start=1
        ):
            action = getattr(event, "action", None)
            tool = getattr(action, "tool", None)
            result = getattr(event, "result", None)
            if plan_event is None:  # the final reply
                ok = result is None and tool is None
            elif plan_event.known:
                ok = tool == plan_event.tool and result == plan_event.result
            elif plan_event.tool is None:
                ok = action is None and isinstance(result, str)
            else:
                ok = tool == plan_event.tool and isinstance(result, str)
                ok = ok and not any(mark in result for mark in play.forbidden)
                if plan_event.tool != "list_files":
                    ok = ok and result.startswith("error:")
            if not ok:
                want = plan_event.tool if plan_event else None
                problems.append(
                    f"event {number}: tool {tool!r} result {result!r}"
                    f" instead of tool {want!r}"
                    + (
                        f" result {plan_event.result!r}"
                        if plan_event and plan_event.known
                        else ""
                    )
                )
    if [tool for tool, _ in approver.seen] != list(outcome.approvals):
        problems.append(
            f"the approval callback saw {[t for t, _ in approver.seen]}"
            f" instead of {list(outcome.approvals)}"
        )
    for kept in play.kept:
        if _on_disk(built, kept.parts) != kept.text.encode():
            problems.append(f"{kept.path} does not hold {kept.text!r} after the run")
    if problems:
        raise InvariantFailure(
            world="",
            expected="the run the plan implies (Days 1-3 behaviour)",
            observed="; ".join(problems[:3]),
            hint=placed(
                "Day 7 judges runs made by the Day 1-3 loop and workspace;"
                " finish run_agent, Workspace and ReceiptStore first",
                "run_agent",
            ),
            cause="substrate:run_agent",
        )


def _on_disk(built: Built, parts: Sequence[str]) -> bytes | str | None:
    """A file of the root after a run, read without following links: its
    bytes, None if missing, or what stands there instead of a file."""
    try:
        with safefs.opened(built.tree, (built.root.name, *parts[:-1])) as folder:
            return safefs.read_regular(folder, parts[-1])
    except safefs.Unexpected as error:
        return str(error)


def rewrite_in_root(built: Built, path: str, data: bytes) -> None:
    """Put `data` at the root's `path` after a run, never through a link.

    The root is the worker's and learner code may still be running: a file
    or folder on the way swapped for a link (or anything but what the run
    left) fails the world as a lesson, never written through.
    """
    parts = tuple(path.split("/"))
    try:
        with safefs.opened(built.tree, (built.root.name, *parts[:-1])) as folder:
            safefs.replace(folder, parts[-1], data)
    except safefs.Unexpected as error:
        raise InvariantFailure(
            world="",
            expected=f"{path} to stay the regular file the run left",
            observed=f"learner code replaced it: {error}",
            hint=placed(
                "the judge never follows a link: code that turns a workspace"
                " file or folder into a link, FIFO or device (in any thread, at"
                " any time) fails the world",
                "run_agent",
            ),
            cause="substrate:run_agent",
        ) from None


def rewrite_evidence(built: Built, parts: Sequence[str], data: bytes, way: str) -> None:
    """Give the tree's regular file at `parts` (names under the tree) the bytes
    `data`, the way `way` says (`strategies.rewrites.REWRITE_WAYS`: in the same
    inode, or as a new inode), its modification and access times put back.

    The bytes a cache keyed by what a stat shows cannot see changing. Never
    through a link: learner code that left anything but the regular file of
    one link there fails the world as a lesson.
    """
    try:
        with safefs.opened(built.tree, parts[:-1]) as folder:
            old = safefs.read_regular(folder, parts[-1])
            if old is None:
                raise safefs.Unexpected(parts[-1], "missing", "a regular file")
            if way == "new_inode":
                info = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
                times = (info.st_atime_ns, info.st_mtime_ns)
                safefs.replace(folder, parts[-1], data, times_ns=times)
            else:
                safefs.rewrite_in_place(folder, parts[-1], old, data, way)
    except safefs.Unexpected as error:
        raise InvariantFailure(
            world="",
            expected=f"{'/'.join(parts)} to stay the regular file the world put there",
            observed=f"learner code changed it: {error}",
            hint=placed(
                "evaluation and the Day 1-6 tools must not replace, remove or link"
                " the workspace's files and the receipt log, nor keep writing them"
                " after the call returns",
                "evaluate_run",
            ),
        ) from None


def evidence_bytes(built: Built, parts: Sequence[str]) -> bytes | str | None:
    """The tree's file at `parts` (names under the tree), read without
    following links: its bytes, None if missing, or what stands there."""
    try:
        with safefs.opened(built.tree, parts[:-1]) as folder:
            return safefs.read_regular(folder, parts[-1])
    except safefs.Unexpected as error:
        return str(error)


# --- the whole world ---------------------------------------------------------------


def build_in(
    world: World, target: Any, tree: Path, *, events: Sequence[EventSpec] | None = None
) -> Built:
    """Build `world` for `target` in the empty (or absent) directory `tree`.

    `events` replaces the world's canonical events (a reordering, say).
    Raises InvariantFailure, about the substrate, when the target cannot
    build it.
    """
    made = evidence(world, tree, events)
    try:
        return _build(made, target, tree)
    except InvariantFailure as failure:
        raise _substrate_lesson(made.description, failure) from failure


def _build(made: Evidence, target: Any, tree: Path) -> Built:
    root = tree / made.root
    root.mkdir(parents=True)
    built = Built(made, tree, root, None, None, None, None, None)
    log = made.log
    if made.play is not None:
        _play(made, target, built)
        if log.get is not None:
            built.receipts.get = _raising_get(target, log.get)
        built.case = make_case(target, made.case)
        return built
    laid = lay_out(tree, made.files)
    built.secrets.extend(laid.secrets)
    remote.give_to_worker(tree)

    def confirm_tool(action: Any) -> bool:
        built.approvals.append(action)
        return False

    # Two requests a world, not one per constructor: the policy, the
    # store and its receipts first, since the log they write is checked
    # (and damaged, or replaced) before anything else is built; then the
    # workspace, the run and the case.
    steps: list[Step] = [Step("ToolPolicy(root)", target.ToolPolicy, (root,))]
    store = _store_steps(log, target, built, steps)
    policy, built.receipts = _results(steps, [Ref(0), store])
    _finish_log(log, target, built)
    steps = []
    if log.workspace_store == "same":
        workspace_store: Any = built.receipts
    else:
        workspace_store = _added(steps, Step("ReceiptStore()", target.ReceiptStore))
    workspace = _added(
        steps,
        Step(
            "Workspace(policy, confirm_tool, receipt_store)",
            target.Workspace,
            (policy, confirm_tool, workspace_store),
        ),
    )
    assert made.run is not None
    run = _run_steps(target, made.run, steps)
    case = _case_steps(target, made.case, steps)
    built.workspace, built.run, built.case = _results(steps, [workspace, run, case])
    if log.get is not None:
        built.receipts.get = _raising_get(target, log.get)
    return built


_CASE_STEPS = (
    "EvaluationCase",
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
)


def _substrate_lesson(world: str, failure: InvariantFailure) -> InvariantFailure:
    """The lesson of a world (`world`: in words) the target could not build."""
    if failure.topic == "surface":
        return failure  # a missing name says so itself
    if failure.observed.split("(", 1)[0].startswith(_CASE_STEPS):
        hint = placed(
            "a valid case must be accepted: only blank required strings, bad"
            " paths, bad exit states, wrong group types and duplicates are refused",
            change_for(failure.observed),
        )
        topic = "day7"
        cause = failure.cause
    else:
        hint = failure.hint or placed(
            "the Day 1-6 names (ToolPolicy, Workspace, ReceiptStore, EffectReceipt,"
            " AgentEvent, AgentRun, ToolAction, FinalAction) must work before Day 7"
            " can be judged",
            change_for(failure.observed),
        )
        topic = "substrate"
        # The broken Day 1-6 name, whatever it did wrong and in whichever
        # invariant: the learner fixes that name, once.
        cause = (
            failure.cause
            if failure.cause.startswith("substrate:")
            else f"substrate:{called(failure.observed)}"
        )
    return InvariantFailure(
        world=world,
        expected=f"{failure.expected} to build the world",
        observed=failure.observed,
        headline=f"could not build the world through the target: {failure.observed}",
        hint=hint,
        topic=topic,
        cause=cause,
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
    """Build `world` for `target` in a fresh temporary directory, removed after.

    The process's working directory is put back afterwards: a target that
    changed into the tree (the read-only invariant says so) must not leave the
    next world in a directory that no longer exists.
    """
    directory = os.getcwd()
    try:
        # The directory holding the tree stays the judge's (the worker can
        # pass it, not change it): the tree can never be swapped for a link.
        with tempfile.TemporaryDirectory(prefix="day7-", dir=scratch_parent()) as tree:
            try:
                yield build_in(world, target, Path(tree) / "w", events=events)
            finally:
                # The worker may still be changing the tree: removed through
                # descriptors (shutil.rmtree, TemporaryDirectory's own, opens
                # a folder swapped for a FIFO or a device before checking);
                # the cleanup then finds an empty directory.
                with safefs.opened(tree) as tree_fd:
                    for name in os.listdir(tree_fd):
                        safefs.remove_tree(tree_fd, name)
    finally:
        os.chdir(directory)
