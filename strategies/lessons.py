"""Failures that read as lessons: the minimal world, what should hold, what did.

Every invariant test reports a broken fact through `InvariantFailure`, so the
end-of-run summary can tell a learner, in plain words, which world broke
which rule and what the usual mistake is, instead of opening with a
traceback. The helpers hide their own frames (`__tracebackhide__`) so
pytest points at the test line that asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from strategies.target import MissingNameError

__all__ = [
    "InvariantFailure",
    "assert_checks",
    "call_target",
    "expect_error",
    "fail",
    "report_view",
]

#: One check of a report as plain data: (name, passed, detail).
CheckRow = tuple[str, bool, str]


class InvariantFailure(AssertionError):
    """A broken invariant, told as a lesson.

    `world` is the minimal world in words, `expected` and `observed` what
    should have happened and what did, `hint` the usual mistake behind it.
    `invariant` may stay empty: the summary takes the name from the test's
    `invariant` marker.
    """

    def __init__(
        self,
        *,
        world: str,
        expected: str,
        observed: str,
        hint: str = "",
        invariant: str = "",
        headline: str | None = None,
    ) -> None:
        self.invariant = invariant
        self.world = world
        self.expected = expected
        self.observed = observed
        self.hint = hint
        # The first line of the lesson; by default "got X, but should be Y".
        self.headline = (
            headline if headline is not None else _headline(observed, expected)
        )
        super().__init__(self._render())

    def _render(self) -> str:
        lines = [self.headline]
        if self.world:
            lines.append(_field("world", self.world))
        if self.hint:
            lines.append(_field("hint", self.hint))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only construction would defeat the default pickling, which
        # replays positional args (xdist and multiprocessing pickle errors).
        return (_rebuild, (self.as_dict(),))

    def as_dict(self) -> dict[str, str]:
        """The lesson as plain strings, for the summary and its JSON form."""
        return {
            "invariant": self.invariant,
            "headline": self.headline,
            "world": self.world,
            "expected": self.expected,
            "observed": self.observed,
            "hint": self.hint,
        }


def _rebuild(fields: dict[str, str]) -> InvariantFailure:
    return InvariantFailure(**fields)


def _headline(observed: str, expected: str) -> str:
    if "\n" in observed or "\n" in expected:
        return f"got:\n{_indent(observed)}\nbut should be:\n{_indent(expected)}"
    return f"got {observed}, but should be {expected}"


def _field(label: str, text: str) -> str:
    if "\n" in text:
        return f"  {label}:\n{_indent(text, '    ')}"
    return f"  {label}: {text}"


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def fail(
    *,
    world: str,
    expected: str,
    observed: str,
    hint: str = "",
    invariant: str = "",
) -> NoReturn:
    """Raise an InvariantFailure: "got <observed>, but should be <expected>"."""
    __tracebackhide__ = True
    raise InvariantFailure(
        world=world,
        expected=expected,
        observed=observed,
        hint=hint,
        invariant=invariant,
    )


# What a call into the target must return, by the name of what is called.
# A learner's unfinished function returns None; that is a failed invariant
# with a sentence, not an AttributeError three frames later.
_RETURNS: dict[str, str] = {
    "evaluate_run": "an EvaluationReport",
    "run_agent": "an AgentRun",
    "render": "a string",
}

_RAISE_HINTS: dict[str, str] = {
    "evaluate_run": "unavailable evidence is a failed check with its detail,"
    " never an exception",
}


def call_target(what: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Call `fn(*args, **kwargs)`, a function of the target, and return its result.

    `what` names the call for a learner, e.g. "evaluate_run(run, workspace,
    receipts, case)" or "report.render()". An exception from the call, a
    missing name, or a result of the wrong shape (None from an unfinished
    function) becomes an InvariantFailure naming the call. Keyword arguments
    all go to `fn`; describe the world with Hypothesis's `note()`.
    """
    __tracebackhide__ = True
    short = what.split("(", 1)[0].rsplit(".", 1)[-1]
    should = _RETURNS.get(short)
    try:
        result = fn(*args, **kwargs)
    except InvariantFailure:
        raise
    except MissingNameError as error:
        raise InvariantFailure(
            world="",
            expected=f"{short} to be defined",
            observed=str(error),
            headline=f"{what} cannot run: {error}",
            hint="define every name of the Day 7 surface in the folder's modules",
        ) from error
    except Exception as error:
        raised = f"{what} raised {_one_line(error)}"
        should_do = f"return {should}" if should else "return normally"
        raise InvariantFailure(
            world="",
            expected=f"to {should_do}",
            observed=raised,
            headline=f"{raised}, but should {should_do}",
            hint=_RAISE_HINTS.get(short, ""),
        ) from error
    if should is not None:
        _check_shape(what, short, should, result)
    return result


def _check_shape(what: str, short: str, should: str, result: Any) -> None:
    __tracebackhide__ = True
    if short == "evaluate_run":
        problem = _report_problem(result)
    elif result is None:
        problem = "None"
    elif short == "run_agent":
        absent = [
            f
            for f in ("completed", "reason", "final", "events")
            if not hasattr(result, f)
        ]
        problem = (
            f"{_short_repr(result)} without {', '.join(absent)}" if absent else None
        )
    elif short == "render" and not isinstance(result, str):
        problem = _short_repr(result)
    else:
        problem = None
    if problem is not None:
        raise InvariantFailure(
            world="",
            expected=should,
            observed=f"{what} returned {problem}",
            headline=f"{what} returned {problem}, but should return {should}",
            hint="an unfinished function (a TODO body) returns None"
            if result is None
            else "",
        )


def _report_problem(report: Any) -> str | None:
    """How `report` is not shaped like an EvaluationReport (a noun phrase), or None."""
    if report is None:
        return "None"
    checks = getattr(report, "checks", None)
    if not isinstance(checks, tuple):
        shown = _short_repr(checks)
        return f"{_short_repr(report)}, whose .checks is {shown}, not a tuple"
    for index, check in enumerate(checks):
        for field, kind in (("name", str), ("passed", bool), ("detail", str)):
            value = getattr(check, field, None)
            if not isinstance(value, kind):
                return (
                    f"a report whose check {index} has {field}={_short_repr(value)},"
                    f" not a {kind.__name__}"
                )
    passed = getattr(report, "passed", None)
    if not isinstance(passed, bool):
        return f"a report whose .passed is {_short_repr(passed)}, not a bool"
    if not callable(getattr(report, "render", None)):
        return "a report without a render() method"
    return None


def report_view(report: Any) -> tuple[CheckRow, ...]:
    """The report's checks as plain (name, passed, detail) rows, shape checked."""
    __tracebackhide__ = True
    problem = _report_problem(report)
    if problem is not None:
        should = "an EvaluationReport with a tuple of (name, passed, detail) checks"
        raise InvariantFailure(
            world="",
            expected=should,
            observed=problem,
            hint="an unfinished function (a TODO body) returns None"
            if report is None
            else "",
        )
    return tuple((check.name, check.passed, check.detail) for check in report.checks)


#: An expected row: (name, passed) or (name, passed, detail). A detail ending
#: in ":" matches any observed detail starting with it ("evidence unavailable:").
ExpectedRow = tuple[str, bool] | tuple[str, bool, str]


def assert_checks(
    report: Any,
    expected_rows: Sequence[ExpectedRow],
    *,
    world: str,
    hint: str = "",
) -> tuple[CheckRow, ...]:
    """Assert the report's checks are exactly `expected_rows`, in order.

    Fails on the first difference: the list of names and their order, then
    the first check whose verdict or detail differs. Returns the rows.
    """
    __tracebackhide__ = True
    rows = report_view(report)
    names = [row[0] for row in rows]
    want = [row[0] for row in expected_rows]
    if names != want:
        fail(
            world=world,
            expected=f"checks {_names(want)}",
            observed=f"checks {_names(names)}",
            hint=hint
            or "one check per fact: final, then files, results and receipts,"
            " each in case order",
        )
    for (name, passed, detail), expected in zip(rows, expected_rows, strict=True):
        want_passed = expected[1]
        want_detail = expected[2] if len(expected) == 3 else None
        if passed != want_passed or not _detail_matches(detail, want_detail):
            shown = (
                _verdict(want_passed, want_detail)
                if want_detail
                else _verdict(want_passed)
            )
            fail(
                world=world,
                expected=f"{name}: {shown}",
                observed=f"{name}: {_verdict(passed, detail)}",
                hint=hint,
            )
    return rows


def expect_error(
    what: str,
    thunk: Callable[[], object],
    error: type[BaseException] = ValueError,
    *,
    world: str,
    mentions: str | None = None,
    hint: str = "",
) -> BaseException:
    """Assert `thunk()` raises `error` (whose message contains `mentions`).

    Returns the exception. `what` names the call, e.g.
    "FileExpectation(path='/etc/passwd', content='x')".
    """
    __tracebackhide__ = True
    try:
        result = thunk()
    except MissingNameError as missing:
        fail(
            world=world,
            expected=f"{what} to raise {error.__name__}",
            observed=str(missing),
            hint=hint,
        )
    except error as raised:
        if mentions is not None and mentions not in str(raised):
            fail(
                world=world,
                expected=f"{what} to raise {error.__name__} naming {mentions!r}",
                observed=f"{error.__name__}: {str(raised)!r}",
                hint=hint or "say which field is wrong, in the field's own words",
            )
        return raised
    except Exception as other:
        fail(
            world=world,
            expected=f"{what} to raise {error.__name__}",
            observed=f"{what} raised {_one_line(other)}",
            hint=hint,
        )
    fail(
        world=world,
        expected=f"{what} to raise {error.__name__}",
        observed=f"{what} returned {_short_repr(result)}",
        hint=hint,
    )


def _detail_matches(observed: str, expected: str | None) -> bool:
    if expected is None:
        return True
    if expected.endswith(":"):
        return observed.startswith(expected)
    return observed == expected


def _verdict(passed: bool, detail: str | None = None) -> str:
    word = "PASS" if passed else "FAIL"
    return f"{word} ({detail})" if detail is not None else word


def _names(names: Sequence[str]) -> str:
    return "[" + ", ".join(names) + "]"


def _short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
