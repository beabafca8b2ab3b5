"""JSON forms of runs, cases and reports, so a run can be saved and checked later.

A run (``AgentRun``)::

    {"completed": true, "reason": "completed", "final": "text or null",
     "events": [{"step": 1, "response": "raw model reply",
                 "action": null | {"final": "text"}
                         | {"tool": "read_file", "arguments": {"path": "app.py"}},
                 "result": "text or null"}],
     "modified_files": ["app.py"]}

``modified_files`` may be left out (it defaults to none).

A case (``EvaluationCase``)::

    {"final_contains": "validated",
     "files": [{"path": "app.py", "content": "answer = 2\\n"}],
     "results": [{"tool": "run_command", "contains": "validation passed"}],
     "receipts": [{"tool_call_id": "call-1", "tool": "edit_file",
                   "exit_state": "ok", "result_contains": "edited app.py",
                   "changed_artifacts": ["app.py"]}]}

``files``, ``results``, ``receipts`` and ``changed_artifacts`` may be left out
(each defaults to empty).

A report: ``{"passed": bool, "checks": [{"name", "passed", "detail"}]}``.

Every object must have exactly the keys shown (optional ones may be missing).
``FormError`` names the offending place, for example
``run.events[2].action.tool must be a string, got number``; the case's own
rules (blank strings, paths, duplicates) come from the evaluation types as
``ValueError`` naming the field.  ``*_to_json`` followed by ``*_from_json``
gives back an equal object.
"""

from __future__ import annotations

from typing import Any

from .evaluation import (
    EvaluationCase,
    EvaluationReport,
    FileExpectation,
    ReceiptExpectation,
    ResultExpectation,
)
from .loop import AgentEvent, AgentRun
from .protocol import FinalAction, ToolAction

JSON = Any


class FormError(ValueError):
    """A JSON document does not have the shape of a run or a case."""


_JSON_NAMES = (
    (bool, "boolean"),
    (int, "number"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    for kind, name in _JSON_NAMES:  # bool before int: True is an int too
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _object(
    value: JSON, where: str, required: set[str], optional: set[str]
) -> dict[str, JSON]:
    if not isinstance(value, dict):
        raise FormError(f"{where} must be an object, got {_json_type(value)}")
    missing = sorted(required - set(value))
    if missing:
        raise FormError(f"{where} is missing the key {missing[0]!r}")
    unexpected = sorted(set(value) - required - optional)
    if unexpected:
        raise FormError(f"{where} has an unexpected key {unexpected[0]!r}")
    return value


def _string(value: JSON, where: str) -> str:
    if not isinstance(value, str):
        raise FormError(f"{where} must be a string, got {_json_type(value)}")
    return value


def _optional_string(value: JSON, where: str) -> str | None:
    return None if value is None else _string(value, where)


def _array(value: JSON, where: str) -> list[JSON]:
    if not isinstance(value, list):
        raise FormError(f"{where} must be an array, got {_json_type(value)}")
    return value


def _strings(value: JSON, where: str) -> tuple[str, ...]:
    items = _array(value, where)
    return tuple(_string(item, f"{where}[{index}]") for index, item in enumerate(items))


# --- runs ---------------------------------------------------------------------


def _action_to_json(action: object) -> JSON:
    if action is None:
        return None
    if isinstance(action, FinalAction):
        return {"final": action.final}
    if isinstance(action, ToolAction):
        return {"tool": action.tool, "arguments": dict(action.arguments)}
    raise FormError(
        "an event action must be a FinalAction, a ToolAction or None, "
        f"got {type(action).__name__}"
    )


def run_to_json(run: AgentRun) -> dict[str, JSON]:
    """The JSON form of ``run``."""
    events: list[JSON] = []
    for event in run.events:
        if not isinstance(event, AgentEvent):
            raise FormError(
                f"run events must be AgentEvent, got {type(event).__name__}"
            )
        events.append(
            {
                "step": event.step,
                "response": event.response,
                "action": _action_to_json(event.action),
                "result": event.result,
            }
        )
    return {
        "completed": run.completed,
        "reason": run.reason,
        "final": run.final,
        "events": events,
        "modified_files": list(run.modified_files),
    }


def _action_from_json(value: JSON, where: str) -> FinalAction | ToolAction | None:
    if value is None:
        return None
    if isinstance(value, dict) and "final" in value:
        fields = _object(value, where, {"final"}, set())
        return FinalAction(_string(fields["final"], f"{where}.final"))
    fields = _object(value, where, {"tool", "arguments"}, set())
    tool = _string(fields["tool"], f"{where}.tool")
    arguments = fields["arguments"]
    if not isinstance(arguments, dict):
        raise FormError(
            f"{where}.arguments must be an object, got {_json_type(arguments)}"
        )
    return ToolAction(tool, dict(arguments))


def _event_from_json(value: JSON, where: str) -> AgentEvent:
    fields = _object(value, where, {"step", "response", "action", "result"}, set())
    step = fields["step"]
    if type(step) is not int:
        raise FormError(f"{where}.step must be an integer, got {_json_type(step)}")
    return AgentEvent(
        step,
        _string(fields["response"], f"{where}.response"),
        _action_from_json(fields["action"], f"{where}.action"),
        _optional_string(fields["result"], f"{where}.result"),
    )


def run_from_json(value: JSON) -> AgentRun:
    """Build the ``AgentRun`` that ``value`` describes, or raise ``ValueError``."""
    fields = _object(
        value, "run", {"completed", "reason", "final", "events"}, {"modified_files"}
    )
    completed = fields["completed"]
    if not isinstance(completed, bool):
        raise FormError(f"run.completed must be a boolean, got {_json_type(completed)}")
    events = _array(fields["events"], "run.events")
    return AgentRun(
        completed,
        _string(fields["reason"], "run.reason"),
        _optional_string(fields["final"], "run.final"),
        tuple(
            _event_from_json(event, f"run.events[{index}]")
            for index, event in enumerate(events)
        ),
        _strings(fields.get("modified_files", []), "run.modified_files"),
    )


# --- cases ---------------------------------------------------------------------


def case_to_json(case: EvaluationCase) -> dict[str, JSON]:
    """The JSON form of ``case``."""
    return {
        "final_contains": case.final_contains,
        "files": [{"path": item.path, "content": item.content} for item in case.files],
        "results": [
            {"tool": item.tool, "contains": item.contains} for item in case.results
        ],
        "receipts": [
            {
                "tool_call_id": item.tool_call_id,
                "tool": item.tool,
                "exit_state": item.exit_state,
                "result_contains": item.result_contains,
                "changed_artifacts": list(item.changed_artifacts),
            }
            for item in case.receipts
        ],
    }


def _file_from_json(value: JSON, where: str) -> FileExpectation:
    fields = _object(value, where, {"path", "content"}, set())
    return FileExpectation(
        _string(fields["path"], f"{where}.path"),
        _string(fields["content"], f"{where}.content"),
    )


def _result_from_json(value: JSON, where: str) -> ResultExpectation:
    fields = _object(value, where, {"tool", "contains"}, set())
    return ResultExpectation(
        _string(fields["tool"], f"{where}.tool"),
        _string(fields["contains"], f"{where}.contains"),
    )


def _receipt_from_json(value: JSON, where: str) -> ReceiptExpectation:
    fields = _object(
        value,
        where,
        {"tool_call_id", "tool", "exit_state", "result_contains"},
        {"changed_artifacts"},
    )
    return ReceiptExpectation(
        _string(fields["tool_call_id"], f"{where}.tool_call_id"),
        _string(fields["tool"], f"{where}.tool"),
        _string(fields["exit_state"], f"{where}.exit_state"),
        _string(fields["result_contains"], f"{where}.result_contains"),
        _strings(fields.get("changed_artifacts", []), f"{where}.changed_artifacts"),
    )


def case_from_json(value: JSON) -> EvaluationCase:
    """Build the ``EvaluationCase`` ``value`` describes, or raise ``ValueError``."""
    fields = _object(
        value, "case", {"final_contains"}, {"files", "results", "receipts"}
    )
    files = _array(fields.get("files", []), "case.files")
    results = _array(fields.get("results", []), "case.results")
    receipts = _array(fields.get("receipts", []), "case.receipts")
    return EvaluationCase(
        _string(fields["final_contains"], "case.final_contains"),
        tuple(
            _file_from_json(item, f"case.files[{i}]") for i, item in enumerate(files)
        ),
        tuple(
            _result_from_json(item, f"case.results[{i}]")
            for i, item in enumerate(results)
        ),
        tuple(
            _receipt_from_json(item, f"case.receipts[{i}]")
            for i, item in enumerate(receipts)
        ),
    )


# --- reports ---------------------------------------------------------------------


def report_to_json(report: EvaluationReport) -> dict[str, JSON]:
    """The JSON form of ``report``."""
    return {
        "passed": report.passed,
        "checks": [
            {"name": check.name, "passed": check.passed, "detail": check.detail}
            for check in report.checks
        ],
    }
