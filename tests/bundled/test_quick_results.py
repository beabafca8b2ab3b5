"""The bundled evaluator gathers a well-formed run's results on its quick pass.

Result gathering has a quick pass (one expected tool, or several) and a careful
pass it falls back to when an item of ``events`` is not a well-formed event.
Both give the same lists, so no verdict can tell them apart: mutation testing
showed the quick pass could break and fall back on every run unnoticed
(docs/mutation.md). These examples pin that a well-formed run never needs
the careful pass, and that the quick pass's lists are the careful pass's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator import (
    AgentEvent,
    AgentRun,
    EvaluationCase,
    FinalAction,
    ReceiptStore,
    ResultExpectation,
    ToolAction,
    ToolPolicy,
    Workspace,
    evaluate_run,
    evaluation,
)

EVENTS = (
    AgentEvent(1, "r", ToolAction("read_file", {"path": "app.py"}), "answer = 1\n"),
    AgentEvent(2, "bad reply", None, "error: response is not valid JSON"),
    AgentEvent(3, "c", ToolAction("run_command", {"argv": ["t"]}), "status: 0\nok"),
    AgentEvent(4, "r", ToolAction("read_file", {"path": "b.py"}), "answer = 2\n"),
    AgentEvent(5, "f", FinalAction("done"), None),
)

EXPECTATIONS = {
    "one tool": (ResultExpectation("read_file", "answer = 2"),),
    "two tools": (
        ResultExpectation("read_file", "answer = 1"),
        ResultExpectation("run_command", "status: 0"),
    ),
    "three tools": (
        ResultExpectation("read_file", "answer"),
        ResultExpectation("run_command", "ok"),
        ResultExpectation("list_files", "app.py"),
    ),
}


def _refuse(*_arguments: Any) -> None:
    raise AssertionError("the careful pass ran for a well-formed run")


@pytest.mark.parametrize("expectations", EXPECTATIONS.values(), ids=EXPECTATIONS)
def test_a_well_formed_run_is_judged_without_the_careful_pass(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    expectations: tuple[ResultExpectation, ...],
) -> None:
    """A run of real events, with one expected tool or several, never falls back."""
    monkeypatch.setattr(evaluation, "_careful_results", _refuse)
    run = AgentRun(True, "completed", "done", EVENTS)
    case = EvaluationCase("done", results=expectations)
    report = evaluate_run(run, Workspace(ToolPolicy(tmp_path)), ReceiptStore(), case)
    verdicts = [check.passed for check in report.checks[1:]]
    assert verdicts == [expected.tool != "list_files" for expected in expectations]


@pytest.mark.parametrize("expectations", EXPECTATIONS.values(), ids=EXPECTATIONS)
def test_the_quick_pass_gathers_what_the_careful_pass_gathers(
    expectations: tuple[ResultExpectation, ...],
) -> None:
    """Both passes give every expected tool the same results, in event order."""
    tools = {expected.tool for expected in expectations}
    quick = evaluation._gather_results(EVENTS, expectations)
    assert quick == evaluation._careful_results(EVENTS, tools)
