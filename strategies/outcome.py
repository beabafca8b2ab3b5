"""What a plan implies, worked out without a target: `replay`.

A real run's plan (strategies.plan_steps) is played by the target's own
`run_agent`; its `Outcome` is what that run must leave behind under the Day
1-3 rules: the events the loop records, each file's final text, the receipts
the store holds, the call ids denied or refused effects use up. A world
works it out when it is made (strategies.world), and real runs are drawn
from it (strategies.plans): the oracle is the plan, never a second evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass

from strategies.plan_steps import (
    Denied,
    EditFile,
    Invalid,
    ListFiles,
    Plan,
    ReadFile,
    Refused,
    RunCommand,
    WriteFile,
    effect_tool,
)

__all__ = ["Outcome", "PlannedEvent", "PlannedReceipt", "replay"]


@dataclass(frozen=True)
class PlannedEvent:
    """One event the loop must record. `result` is the exact result when
    `known`; otherwise only "error: ..." (denials, refusals, invalid replies)
    or a listing is known, and it holds neither SENTINEL nor MARKER."""

    tool: str | None
    result: str | None
    known: bool


@dataclass(frozen=True)
class PlannedReceipt:
    call_id: str
    tool: str
    exit_state: str
    result: str
    changed_artifacts: tuple[str, ...]
    contains: tuple[str, ...]  # the substrings a case may require of `result`


@dataclass(frozen=True)
class Outcome:
    """Everything a plan implies, before any target runs it."""

    events: tuple[PlannedEvent, ...]  # one per step (the final's not included)
    files: tuple[tuple[str, str], ...]  # path -> final text, seeds then new
    receipts: tuple[PlannedReceipt, ...]
    unused_call_ids: tuple[str, ...]  # taken by denied or refused effects
    approvals: tuple[str, ...]  # the tools the approval callback sees
    results: tuple[tuple[str, str], ...]  # (tool, substring) observed
    never_created: tuple[str, ...]  # paths only denied writes named
    observed: tuple[str, ...]  # files the workspace has read or written
    outputs: tuple[str, ...]  # markers of commands, run or denied


def _listing_name(files: dict[str, str], directory: str) -> str | None:
    """One entry a listing of `directory` must show, as its relative path."""
    prefix = "" if directory == "." else directory + "/"
    children = sorted(
        {
            prefix + path[len(prefix) :].split("/", 1)[0]
            for path in files
            if path.startswith(prefix)
        }
    )
    return children[0] if children else None


def replay(plan: Plan) -> Outcome:
    """The outcome of `plan` under the Day 1-3 rules, computed without a target."""
    files = {seed.path: seed.content for seed in plan.files}
    observed: set[str] = set()
    events: list[PlannedEvent] = []
    receipts: list[PlannedReceipt] = []
    unused: list[str] = []
    approvals: list[str] = []
    results: list[tuple[str, str]] = []
    never_created: list[str] = []
    outputs: list[str] = []
    calls = 0

    def next_call() -> str:
        nonlocal calls
        calls += 1
        return f"call-{calls}"

    for step in plan.steps:
        if isinstance(step, ReadFile):
            text = files[step.path]
            observed.add(step.path)
            events.append(PlannedEvent("read_file", text, True))
            if text.strip():
                results.append(("read_file", text))
        elif isinstance(step, ListFiles):
            events.append(PlannedEvent("list_files", None, False))
            name = _listing_name(files, step.path)
            if name is not None:
                results.append(("list_files", name))
        elif isinstance(step, Invalid):
            events.append(PlannedEvent(None, None, False))
        elif isinstance(step, Refused):
            unused.append(next_call())
            events.append(PlannedEvent("edit_file", None, False))
        elif isinstance(step, Denied):
            unused.append(next_call())
            tool = effect_tool(step.effect)
            approvals.append(tool)
            events.append(PlannedEvent(tool, None, False))
            if isinstance(step.effect, WriteFile) and step.effect.path not in files:
                never_created.append(step.effect.path)
            if isinstance(step.effect, RunCommand):
                outputs.append(step.effect.output)
        else:
            call_id = next_call()
            tool = effect_tool(step)
            approvals.append(tool)
            if isinstance(step, RunCommand):
                result = f"status: {step.status}\noutput:\n{step.printed}"
                exit_state = "ok" if step.status == 0 else "error"
                contains: tuple[str, ...] = (step.output, f"status: {step.status}")
                artifacts: tuple[str, ...] = ()
                outputs.append(step.output)
            else:
                if isinstance(step, EditFile):
                    files[step.path] = files[step.path].replace(step.old, step.new, 1)
                    result = f"edited {step.path}"
                else:
                    files[step.path] = step.content
                    result = f"wrote {step.path}"
                observed.add(step.path)
                exit_state = "ok"
                contains = (result,)
                artifacts = (step.path,)
            events.append(PlannedEvent(tool, result, True))
            results.extend((tool, text) for text in contains)
            receipts.append(
                PlannedReceipt(call_id, tool, exit_state, result, artifacts, contains)
            )
    never = tuple(dict.fromkeys(p for p in never_created if p not in files))
    return Outcome(
        events=tuple(events),
        files=tuple(files.items()),
        receipts=tuple(receipts),
        unused_call_ids=tuple(unused),
        approvals=tuple(approvals),
        results=tuple(results),
        never_created=never,
        observed=tuple(sorted(observed)),
        outputs=tuple(outputs),
    )
