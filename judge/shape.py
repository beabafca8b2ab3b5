"""A report's shape, judged in the judge whichever route the report came by.

In-process the report itself is read; from a worker, the raw fields the
worker read (`worker.serve.Worker.view`: a str or bool as it is, anything
else as its repr in a one-item list), so a lesson's words are the same.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

#: A check's fields and the type each must have, in the order they are read.
CHECK_FIELDS = (("name", str), ("passed", bool), ("detail", str))


def short_repr(value: object, limit: int = 80) -> str:
    try:
        text = repr(value)
    except Exception as error:  # the target's own __repr__ may raise
        text = f"<{type(value).__name__} whose repr() raised {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def report_problem(report: Any) -> str | None:
    """How `report` is not shaped like an EvaluationReport (a noun phrase), or None."""
    if report is None:
        return "None"
    checks = getattr(report, "checks", None)
    if not isinstance(checks, tuple):
        return f"a report whose .checks is {short_repr(checks)}; it must be a tuple"
    for index, check in enumerate(checks):
        for field, kind in CHECK_FIELDS:
            value = getattr(check, field, None)
            if not isinstance(value, kind):
                what = f"check {index} has {field}={short_repr(value)}"
                return f"a report whose {what}; it must be a {kind.__name__}"
    passed = getattr(report, "passed", None)
    if not isinstance(passed, bool):
        return f"a report whose .passed is {short_repr(passed)}; it must be a bool"
    if not callable(getattr(report, "render", None)):
        return "a report without a render() method"
    return None


class Shown:
    """A value the worker read that is not a str or a bool: only its repr crossed."""

    def __init__(self, text: object) -> None:
        self.text = str(text)

    def __repr__(self) -> str:
        return self.text


def _value(sent: Any) -> Any:
    return Shown(sent[0] if sent else "") if isinstance(sent, list) else sent


def viewed_report(said: dict[str, Any]) -> Any:
    """A stand-in for the report a worker read, for `report_problem` to judge:
    its rows stop at the first field of the wrong type, as the reading did."""
    if said.get("none"):
        return None
    rows = said.get("rows")
    if not isinstance(rows, list):
        return SimpleNamespace(checks=Shown(said.get("checks")))
    checks = tuple(
        SimpleNamespace(
            **{name: _value(v) for (name, _), v in zip(CHECK_FIELDS, row, strict=False)}
        )
        for row in rows
        if isinstance(row, list)
    )
    render = (lambda: None) if said.get("render") is True else None
    return SimpleNamespace(
        checks=checks, passed=_value(said.get("passed")), render=render
    )
