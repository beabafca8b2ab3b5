"""A world's objects as the target's own: steps batched into one request.

Each `add_*` appends to a batch the steps that make one object with the
target's own names (`ReceiptStore` and its `put`s, `Workspace`,
`AgentEvent`, `AgentRun`, the case types, `EffectReceipt`) and returns the
`Ref` of what it makes (`policy_step` is the `ToolPolicy` that opens a
world's batch; `add_get` sets the handed store's `get` to one that
raises, last in it);
`results` sends the batch through `call_target`, so a Day 1-6 name that is
missing, raises or hangs is a lesson about the substrate. A worker's target
builds a whole batch in one request; the bundled evaluator runs it
in-process.
"""

from __future__ import annotations

import builtins
import json
import types
from collections.abc import Callable, Sequence
from typing import Any

from judge.batches import Ref, Step, run_steps
from judge.built import Built
from judge.calls import call_target
from judge.evidence import CaseSpec, EventSpec, Log, Play, Run, Stored

__all__ = [
    "add_case",
    "add_get",
    "add_puts",
    "add_run",
    "add_store",
    "add_workspace",
    "added",
    "make_case",
    "policy_step",
    "receipt",
    "results",
]


def added(steps: list[Step], step: Step) -> Ref:
    """Append `step` to the batch; the Ref of what it makes."""
    steps.append(step)
    return Ref(len(steps) - 1)


def _event(target: Any, spec: EventSpec, steps: list[Step]) -> Any:
    """The steps that make one event; its Ref (or the odd item itself)."""
    if spec.action == "item":
        return spec.item
    action: object = None
    if spec.action in ("tool", "dict", "lookalike"):
        action = added(
            steps,
            Step(
                "ToolAction(tool, arguments)",
                target.ToolAction,
                (spec.tool, json.loads(spec.arguments_json)),
            ),
        )
    elif spec.action in ("final", "final_with_result"):
        action = added(
            steps, Step("FinalAction(final)", target.FinalAction, (spec.final,))
        )
    plain = spec.result is None or isinstance(spec.result, str)
    event = added(
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


def results(steps: list[Step], made: Sequence[Any]) -> list[Any]:
    """Run the batch; what each of `made` stands for (a Ref's object, or itself)."""
    answers = run_steps(steps, call_target)
    return [answers[m.index] if isinstance(m, Ref) else m for m in made]


def policy_step(target: Any, root: Any, play: Play | None) -> Step:
    """The step that makes the world's ToolPolicy for the root: a drawn
    world's reads only; a real run's may write and run the plan's commands."""
    if play is None:
        return Step("ToolPolicy(root)", target.ToolPolicy, (root,))
    return Step(
        "ToolPolicy(root, allow_writes=True, allowed_commands=...)",
        target.ToolPolicy,
        (root,),
        {"allow_writes": True, "allowed_commands": play.commands},
    )


def add_workspace(target: Any, made: tuple[Any, Any, Any], steps: list[Step]) -> Ref:
    """The steps that make the Workspace of `made` = (policy, confirm_tool,
    store), with a ReceiptStore of its own when `store` is None; its Ref."""
    policy, confirm_tool, store = made
    if store is None:
        store = added(steps, Step("ReceiptStore()", target.ReceiptStore))
    return added(
        steps,
        Step(
            "Workspace(policy, confirm_tool, receipt_store)",
            target.Workspace,
            (policy, confirm_tool, store),
        ),
    )


def add_run(target: Any, spec: Run, steps: list[Step]) -> Ref:
    """The steps that make the run (its events first); the run's Ref."""
    made: list[Any] = [_event(target, event, steps) for event in spec.events]
    run = added(
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
    return results(steps, [add_case(target, spec, steps)])[0]


def add_case(target: Any, spec: CaseSpec, steps: list[Step]) -> Ref:
    """The steps that make the case (its expectations first); the case's Ref."""

    def each(
        make: Any, rows: Sequence[tuple[Any, ...]], what: Callable[..., str]
    ) -> tuple[Ref, ...]:
        # One expectation a row, its fields the row; `what` words the call.
        return tuple(added(steps, Step(what(*row), make, row)) for row in rows)

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
    return added(
        steps,
        Step(
            f"EvaluationCase({spec.final_contains!r}, files, results, receipts)",
            target.EvaluationCase,
            (spec.final_contains,),
            {"files": files, "results": results, "receipts": receipts},
        ),
    )


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


def receipt(target: Any, stored: Stored) -> Any:
    """The target's EffectReceipt for `stored`, made in a request of its own."""
    return run_steps([_receipt_step(target, stored)], call_target)[0]


def add_store(log: Log, target: Any, built: Built, steps: list[Step]) -> Ref:
    """The steps that make the world's store and put its receipts into it;
    the store's Ref. The log's folder is laid out with the world's files."""
    if log.store == "memory":
        store = added(steps, Step("ReceiptStore()", target.ReceiptStore))
        built.log_path = None
    else:
        built.log_path = built.tree.joinpath(*log.path)
        built.log_at = log.at
        store = added(
            steps, Step("ReceiptStore(path)", target.ReceiptStore, (built.log_path,))
        )
    add_puts(target, store, log.put, steps)
    return store


def add_puts(
    target: Any, store: Any, stored: Sequence[Stored], steps: list[Step]
) -> None:
    """The steps that make each receipt and put it into `store`, in order."""
    for one in stored:
        made = added(steps, _receipt_step(target, one))
        steps.append(Step("ReceiptStore.put(receipt)", store, (made,), method="put"))


def add_get(target: Any, store: Any, name: str, steps: list[Step]) -> None:
    """The step that sets the handed store's `get` to `_raising_get(target,
    name)`: after the workspace, run and case are built (last in their batch,
    or after a real run), so building them never meets it."""
    get = _raising_get(target, name)
    steps.append(
        Step("ReceiptStore.get = ...", store, ("get", get), method="__setattr__")
    )


def _raising_get(target: Any, name: str) -> Callable[[str], Any]:
    """The handed store's `get` as the world says: it raises `name` (the
    target's own AgentError, a class of that name, or a builtin), or for
    "junk" returns a dict that is no receipt."""
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
