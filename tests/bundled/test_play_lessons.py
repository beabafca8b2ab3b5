"""A real run that is not the plan's: the lesson says what went wrong, and where.

Each test plants one Day 1-3 mistake in the bundled evaluator's substrate
(a Workspace or run_agent replaced), plays a written-out plan through it, and
checks the lesson's words: the event it names, what the plan expected and
what came back, and the place it tells the learner to change, which is never
a file the mistake is not in (judge/play.py).
"""

from __future__ import annotations

import dataclasses
import re
import types
from typing import Any

import pytest

from evaluator import AgentError, ApprovalDecision, ToolAction
from judge.build import materialise
from judge.lessons import InvariantFailure
from judge.target import load_target
from strategies import CHAPTER_WORLD, EFFECTS_WORLD, World

_PLACE = re.compile(r"change (?P<name>[A-Za-z_][\w.]*) in (?P<file>\w+\.py)$")


def _with(target: Any, **names: object) -> Any:
    return dataclasses.replace(
        target, names=types.MappingProxyType({**target.names, **names})
    )


def _lesson(target: Any, world: World) -> InvariantFailure:
    with pytest.raises(InvariantFailure) as raised:
        with materialise(world, target):
            pass
    return raised.value


def _place(lesson: InvariantFailure) -> tuple[str, str] | None:
    match = _PLACE.search(lesson.hint)
    return None if match is None else (match["name"], match["file"])


@pytest.fixture(scope="module")
def bundled() -> Any:
    return load_target()


def test_an_approval_the_workspace_refuses_is_named_as_its_refusal(bundled) -> None:
    """A workspace that honours only Day 8's ApprovalDecision refuses the
    plain True a Day 7 callback answers: the lesson says the callback's
    decision was refused by Workspace.execute at the event of the edit, quotes
    both results, and sends the learner to workspace.py, not loop.py."""

    class OnlyDecisions(bundled.Workspace):  # type: ignore[misc, name-defined]
        def _approve(self, action: ToolAction) -> None:
            decision = self.confirm_tool(action)
            if not (isinstance(decision, ApprovalDecision) and decision.approved):
                raise AgentError("operator denied the tool action")

    lesson = _lesson(_with(bundled, Workspace=OnlyDecisions), CHAPTER_WORLD)
    assert lesson.topic == "substrate"
    assert lesson.headline.startswith(
        "could not build the world through the target: the approval callback's"
        " decision (True) at event 2 (edit_file app.py) was refused by"
        " Workspace.execute: it answered 'error: operator denied the tool action'"
        " instead of 'edited app.py'"
    )
    assert _place(lesson) == ("Workspace.execute", "workspace.py")
    assert lesson.cause == "substrate:Workspace.execute"
    assert "loop.py" not in lesson.hint
    assert "exactly True" in lesson.hint


def test_a_wrong_read_result_names_the_event_and_both_texts(bundled) -> None:
    """A read_file that answers other text than the file's: the tool result
    at event 1 differed, expected and got quoted, Workspace.read_file named."""

    class Garbling(bundled.Workspace):  # type: ignore[misc, name-defined]
        def read_file(self, path: str) -> str:
            return super().read_file(path) + "!"

    lesson = _lesson(_with(bundled, Workspace=Garbling), CHAPTER_WORLD)
    assert lesson.observed.startswith(
        "the tool result at event 1 (read_file app.py) differed:"
        " expected 'answer = 1\\n', got 'answer = 1\\n!'"
    )
    assert _place(lesson) == ("Workspace.read_file", "workspace.py")


def test_a_denied_effect_that_runs_is_the_workspaces(bundled) -> None:
    """A workspace that never denies runs the command the callback denied:
    the lesson names that event, the callback's False, and Workspace.execute."""

    class Approving(bundled.Workspace):  # type: ignore[misc, name-defined]
        def _approve(self, action: ToolAction) -> None:
            self.confirm_tool(action)  # asked, and never obeyed

    lesson = _lesson(_with(bundled, Workspace=Approving), EFFECTS_WORLD)
    assert lesson.observed.startswith(
        "Workspace.execute ran event 3 (run_command (an allowed command printing"
        " '@no')) though the approval callback denied it (returned False): it"
        " answered 'status: 0\\noutput:\\n@no\\n' instead of 'error: ...'"
    )
    assert _place(lesson) == ("Workspace.execute", "workspace.py")


def test_a_run_that_ends_early_is_the_loops(bundled) -> None:
    """A run_agent that drops its last event: the lesson counts the events
    and sends the learner to run_agent in loop.py."""

    def dropping(*args: Any, **kwargs: Any) -> Any:
        run = bundled.run_agent(*args, **kwargs)
        return dataclasses.replace(run, events=run.events[:-1])

    lesson = _lesson(_with(bundled, run_agent=dropping), CHAPTER_WORLD)
    assert lesson.observed.startswith("the run has 3 events instead of 4")
    assert _place(lesson) == ("run_agent", "loop.py")


def test_a_misread_reply_names_no_single_file(bundled) -> None:
    """An invalid reply recorded as an action may be the parser's or the
    loop's doing: the lesson quotes the reply and the action, names both
    functions, and claims no one file to change."""

    def misreading(*args: Any, **kwargs: Any) -> Any:
        run = bundled.run_agent(*args, **kwargs)
        first = dataclasses.replace(
            run.events[0], action=ToolAction("read_file", {"path": "a.txt"})
        )
        return dataclasses.replace(run, events=(first, *run.events[1:]))

    lesson = _lesson(_with(bundled, run_agent=misreading), EFFECTS_WORLD)
    assert lesson.observed.startswith(
        "event 1: the invalid reply 'I will edit the file now.' was recorded as"
        " the action ToolAction(tool='read_file'"
    )
    assert _place(lesson) is None
    assert "parse_action (protocol.py)" in lesson.hint
    assert "run_agent (loop.py)" in lesson.hint


def test_a_workspace_that_asks_twice_is_told_so(bundled) -> None:
    """A workspace that asks the callback twice for one effect gets False the
    second time (the plan approves each effect once): the lesson counts the
    asks at that event instead of blaming the refusal that followed."""

    class AskingTwice(bundled.Workspace):  # type: ignore[misc, name-defined]
        def _approve(self, action: ToolAction) -> None:
            self.confirm_tool(action)
            super()._approve(action)

    lesson = _lesson(_with(bundled, Workspace=AskingTwice), CHAPTER_WORLD)
    assert lesson.observed.startswith(
        "the approval callback was asked 2 time(s) at event 2 (edit_file app.py),"
        " instead of 1"
    )
    assert _place(lesson) == ("Workspace.execute", "workspace.py")
