"""The bundled agent loop: what the model sees, what a step records, why a run ends."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator import (
    AgentEvent,
    AgentLimits,
    AgentRun,
    FinalAction,
    ReceiptStore,
    ToolAction,
    ToolPolicy,
    Workspace,
    run_agent,
)

READ_A = '{"tool": "read_file", "path": "a"}'
READ_B = '{"tool": "read_file", "path": "b"}'
DONE = '{"final": "done"}'


class Tools:
    """A stand-in workspace: enables reads and answers each call by echoing it."""

    available_tools = frozenset({"list_files", "read_file"})

    def __init__(self) -> None:
        self.executed: list[ToolAction] = []

    def execute(self, action: ToolAction) -> str:
        self.executed.append(action)
        return f"contents of {action.arguments.get('path')}"


class Script:
    """A scripted model that records every message list it is shown."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict[str, str]]] = []

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.seen.append([dict(message) for message in messages])
        return self.replies.pop(0)


def run(
    *replies: str, tools: Tools | None = None, **limits: int
) -> tuple[AgentRun, Script, Tools]:
    model, workspace = Script(*replies), tools or Tools()
    return (
        run_agent("inspect", model, workspace, AgentLimits(**limits)),
        model,
        workspace,
    )


def test_limits_default_and_refuse_anything_but_positive_integers() -> None:
    assert AgentLimits() == AgentLimits(8, 48_000, 3, 2)
    for field in (
        "max_steps",
        "max_context_chars",
        "max_invalid_actions",
        "max_identical_actions",
    ):
        for value in (0, -1, True, 1.5, "3"):
            with pytest.raises(ValueError, match=f"positive integers: {field}="):
                AgentLimits(**{field: value})  # type: ignore[arg-type]


def test_a_run_observes_then_finishes_with_the_exact_transcript() -> None:
    result, model, workspace = run(READ_A, DONE)
    assert result == AgentRun(
        True,
        "completed",
        "done",
        (
            AgentEvent(
                1, READ_A, ToolAction("read_file", {"path": "a"}), "contents of a"
            ),
            AgentEvent(2, DONE, FinalAction("done"), None),
        ),
    )
    first, second = model.seen
    assert [message["role"] for message in first] == ["system", "user"]
    assert first[1] == {"role": "user", "content": "inspect"}
    assert second == [
        *first,
        {"role": "assistant", "content": READ_A},
        {"role": "user", "content": "Tool result:\ncontents of a"},
    ]
    assert workspace.executed == [ToolAction("read_file", {"path": "a"})]


def test_the_system_prompt_describes_the_workspace_tools(tmp_path: Path) -> None:
    model = Script(DONE)
    run_agent("inspect", model, Workspace(ToolPolicy(tmp_path)))
    prompt = model.seen[0][0]["content"]
    assert '"tool":"read_file"' in prompt
    assert "write_file" not in prompt


def test_every_event_reaches_on_event_as_it_happens() -> None:
    seen: list[AgentEvent] = []
    result = run_agent(
        "inspect", Script(READ_A, "oops", DONE), Tools(), None, seen.append
    )
    assert tuple(seen) == result.events
    assert [event.step for event in seen] == [1, 2, 3]


def test_an_invalid_reply_is_shown_to_the_model_and_the_run_goes_on() -> None:
    result, model, workspace = run("not json", '{"tool": "write_file"}', DONE)
    assert result.completed and result.final == "done"
    bad_json, disabled, _final = result.events
    assert (bad_json.action, disabled.action) == (None, None)
    assert bad_json.result is not None and bad_json.result.startswith("error: ")
    assert disabled.result == "error: tool is not enabled: write_file"
    assert model.seen[1][-1] == {
        "role": "user",
        "content": f"Tool result:\n{bad_json.result}",
    }
    assert workspace.executed == []


def test_too_many_invalid_replies_end_the_run() -> None:
    result, _, _ = run("a", "b", READ_A, "c", max_invalid_actions=3)
    assert (result.completed, result.reason, result.final) == (
        False,
        "invalid_action_limit",
        None,
    )
    assert [event.response for event in result.events] == ["a", "b", READ_A, "c"]


def test_the_step_budget_ends_the_run() -> None:
    result, _, workspace = run(READ_A, READ_B, READ_A, max_steps=2)
    assert (result.completed, result.reason) == (False, "step_limit")
    assert len(result.events) == len(workspace.executed) == 2


def test_the_context_budget_is_checked_before_every_model_call() -> None:
    result, model, _ = run(READ_A, max_context_chars=10)
    assert (result.reason, result.events, model.seen) == ("context_limit", (), [])
    # Room for the prompt and task, but not for the first observation too.
    _, finished, _ = run(DONE)
    prompt_and_task = sum(len(message["content"]) for message in finished.seen[0])
    result, model, _ = run(READ_A, READ_B, max_context_chars=prompt_and_task)
    assert (result.reason, len(result.events), len(model.seen)) == (
        "context_limit",
        1,
        1,
    )


def test_identical_consecutive_calls_beyond_the_limit_end_the_run() -> None:
    result, _, workspace = run(READ_A, READ_A, READ_A, max_identical_actions=2)
    assert (result.completed, result.reason) == (False, "repeated_action_limit")
    last = result.events[-1]
    assert last == AgentEvent(
        3,
        READ_A,
        ToolAction("read_file", {"path": "a"}),
        "error: identical action loop detected",
    )
    assert len(workspace.executed) == 2


@pytest.mark.parametrize(
    "between",
    [READ_B, "not json", '{"path": "a", "tool": "read_file"}'],
    ids=["another call", "an invalid reply", "the same call spelled differently"],
)
def test_what_breaks_or_continues_a_run_of_identical_calls(between: str) -> None:
    result, _, _ = run(READ_A, READ_A, between, READ_A, READ_A, DONE, max_steps=6)
    if between.startswith('{"path"'):
        # Same tool and arguments in another key order is the same call.
        assert result.reason == "repeated_action_limit"
        assert len(result.events) == 3
    else:
        assert result.reason == "completed"


def test_the_run_does_not_report_the_workspace_changes(tmp_path: Path) -> None:
    # As in the course: modified_files lives on the workspace, not the run.
    model = Script('{"tool": "write_file", "path": "a.txt", "content": "x"}', DONE)
    workspace = Workspace(ToolPolicy(tmp_path, allow_writes=True), lambda action: True)
    result = run_agent("write", model, workspace)
    assert workspace.modified_files == ("a.txt",)
    assert result.modified_files == ()


def test_a_model_cannot_rewrite_the_transcript() -> None:
    sizes: list[int] = []

    def vandal(messages: list[dict[str, str]]) -> str:
        sizes.append(len(messages))
        messages[0]["content"] = "x" * 100_000  # would break the context budget
        messages.clear()
        return READ_A if len(sizes) == 1 else DONE

    result = run_agent("inspect", vandal, Tools())
    assert result.reason == "completed"
    assert sizes == [2, 4]


@pytest.mark.parametrize(
    ("task", "generate", "limits", "message"),
    [
        (None, lambda messages: DONE, None, "task must be a string"),
        ("   ", lambda messages: DONE, None, "task must not be empty"),
        ("go", "model", None, "generate must be callable"),
        ("go", lambda messages: DONE, {"max_steps": 1}, "limits must be AgentLimits"),
        ("go", lambda messages: None, None, "generate must return a string"),
    ],
)
def test_run_agent_refuses_bad_arguments_with_one_clear_line(
    task: Any, generate: Callable[..., Any], limits: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        run_agent(task, generate, Tools(), limits)


def test_an_agent_reads_edits_validates_and_finishes(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("answer = 1\n")
    check = (
        sys.executable,
        "-c",
        "import pathlib; assert pathlib.Path('app.py').read_text() == 'answer = 2\\n'",
    )
    store = ReceiptStore(tmp_path / "receipts.jsonl")
    approved: list[str] = []
    workspace = Workspace(
        ToolPolicy(tmp_path, allow_writes=True, allowed_commands=(check,)),
        lambda action: approved.append(action.tool) or True,
        store,
    )
    model = Script(
        '{"tool": "read_file", "path": "app.py"}',
        '{"tool": "edit_file", "path": "app.py", "old": "1", "new": "2"}',
        json.dumps({"tool": "run_command", "argv": list(check)}),
        '{"final": "answer is 2"}',
    )
    result = run_agent("set answer to 2", model, workspace)
    assert (result.completed, result.final) == (True, "answer is 2")
    assert [event.result for event in result.events] == [
        "answer = 1\n",
        "edited app.py",
        "status: 0\noutput:\n",
        None,
    ]
    assert approved == ["edit_file", "run_command"]
    reloaded = ReceiptStore(tmp_path / "receipts.jsonl")
    edit, command = reloaded.get("call-1"), reloaded.get("call-2")
    assert edit is not None and edit.changed_artifacts == ("app.py",)
    assert command is not None and command.exit_state == "ok"
