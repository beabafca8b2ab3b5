"""The agent loop: ask the model, check its reply, run one tool, repeat, within budgets.

Every way a run can end is a named reason, so a run always stops: the model
finished (``completed``), or it used up its steps, its context, its invalid
replies, or repeated the same tool call too often.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol

from .protocol import AgentError, FinalAction, ToolAction, _system_prompt, parse_action

Message = dict[str, str]


class _ToolRunner(Protocol):
    """What the loop needs from a workspace; the course's fakes provide just this."""

    @property
    def available_tools(self) -> Collection[str]: ...

    def execute(self, action: ToolAction) -> str: ...


@dataclass(frozen=True)
class AgentLimits:
    """The budgets that make every run stop."""

    max_steps: int = 8
    max_context_chars: int = 48_000
    max_invalid_actions: int = 3
    max_identical_actions: int = 2

    def __post_init__(self) -> None:
        for name in (
            "max_steps",
            "max_context_chars",
            "max_invalid_actions",
            "max_identical_actions",
        ):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise ValueError(
                    f"agent limits must be positive integers: {name}={value!r}"
                )


# Events and runs are records of what happened, and the evaluator must judge
# any record it is given (tests build odd ones on purpose), so they take their
# fields as they come.


@dataclass(frozen=True)
class AgentEvent:
    """One step: the model's reply, the action it parsed to, and what came back.

    An unparseable reply has ``action=None`` and an ``"error: ..."`` result; a
    final has ``result=None``.
    """

    step: int
    response: str
    action: FinalAction | ToolAction | None
    result: str | None


@dataclass(frozen=True)
class AgentRun:
    """How a run ended, its final answer if it completed, and every step."""

    completed: bool
    reason: str
    final: str | None
    events: tuple[AgentEvent, ...]
    modified_files: tuple[str, ...] = ()


def run_agent(
    task: str,
    generate: Callable[[list[Message]], str],
    workspace: _ToolRunner,
    limits: AgentLimits | None = None,
    on_event: Callable[[AgentEvent], None] | None = None,
) -> AgentRun:
    """Run the model on ``task`` until it finishes or a budget runs out.

    ``generate(messages)`` is the model: it sees the system prompt, the task,
    then each reply with the tool result that followed it, and answers with
    one JSON action.  ``on_event`` sees each event as it happens.
    """
    if not isinstance(task, str):
        raise ValueError(f"task must be a string, not {type(task).__name__}")
    if not task.strip():
        raise ValueError("task must not be empty")
    if not callable(generate):
        raise ValueError("generate must be callable")
    limits = AgentLimits() if limits is None else limits
    if not isinstance(limits, AgentLimits):
        raise ValueError(f"limits must be AgentLimits, not {type(limits).__name__}")
    messages: list[Message] = [
        {"role": "system", "content": _system_prompt(workspace)},
        {"role": "user", "content": task},
    ]
    events: list[AgentEvent] = []

    def record(event: AgentEvent) -> None:
        events.append(event)
        if on_event is not None:
            on_event(event)

    def ended(reason: str) -> AgentRun:
        return AgentRun(False, reason, None, tuple(events))

    invalid_replies = 0
    previous_call: str | None = None
    repeats = 0
    for step in range(1, limits.max_steps + 1):
        if (
            sum(len(message["content"]) for message in messages)
            > limits.max_context_chars
        ):
            return ended("context_limit")
        # A copy: the model must not be able to rewrite the transcript.
        response = generate([dict(message) for message in messages])
        if not isinstance(response, str):
            raise ValueError(
                f"generate must return a string, not {type(response).__name__}"
            )
        try:
            action = parse_action(response, workspace.available_tools)
        except AgentError as error:
            result = f"error: {error}"
            record(AgentEvent(step, response, None, result))
            invalid_replies += 1
            if invalid_replies >= limits.max_invalid_actions:
                return ended("invalid_action_limit")
            # An invalid reply breaks a run of identical calls.
            previous_call, repeats = None, 0
            messages += _observation(response, result)
            continue
        if isinstance(action, FinalAction):
            record(AgentEvent(step, response, action, None))
            return AgentRun(True, "completed", action.final, tuple(events))
        call = json.dumps([action.tool, action.arguments], sort_keys=True)
        repeats = repeats + 1 if call == previous_call else 1
        previous_call = call
        if repeats > limits.max_identical_actions:
            record(
                AgentEvent(
                    step, response, action, "error: identical action loop detected"
                )
            )
            return ended("repeated_action_limit")
        result = workspace.execute(action)
        record(AgentEvent(step, response, action, result))
        messages += _observation(response, result)
    return ended("step_limit")


def _observation(response: str, result: str) -> list[Message]:
    """The model's reply and the tool result it led to, as two messages."""
    return [
        {"role": "assistant", "content": response},
        {"role": "user", "content": f"Tool result:\n{result}"},
    ]
