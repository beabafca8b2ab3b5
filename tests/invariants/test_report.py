"""Task 6: a stable report: one check per fact, in order, a verdict, a rendering."""

from __future__ import annotations

import pytest
from _written_worlds import examples
from hypothesis import example, given, note
from hypothesis import strategies as st

from judge import (
    assert_names,
    call_target,
    evaluate,
    fail,
    judging,
    materialise,
    report_view,
    shown_row,
)
from judge.causes import RENDER_GRAMMAR
from judge.compared import passed_test, render_test, verdict_test
from judge.fixes import placed
from judge.verdicts import calling, reproducing
from strategies import World, describe, truth, worlds
from strategies.vocabulary import EVALUATE

_SHAPE_EXAMPLES = (
    "everything at once",
    "result listed twice",
    "file spelled double_slash",
    "file spelled dot_slash",
    "file spelled trailing_slash",
    "file spelled dot_inside",
    "receipt log missing",
)


@pytest.mark.invariant("report-shape")
@examples(*_SHAPE_EXAMPLES)
@given(world=worlds())
def test_one_check_per_fact_named_and_ordered_by_the_contract(
    target, world: World
) -> None:
    """The report holds one check per declared fact, named and ordered as the
    contract says.

    Task 6 (a stable report): 'final', then 'file:<normalised path>' per file,
    'result:<tool>' per result (a repeated expectation repeats its check) and
    'receipt:<call id>' per receipt, each group in case order. Stable names
    and order are what let a reader (and a diff) find a failed fact.
    """
    note(describe(world))
    # The lesson is made inside `judging`, so it carries the snippet.
    with judging(world, target):
        with materialise(world, target) as built:
            report = evaluate(target, built)
        want = [check.name for check in truth(world)]
        # The names lesson every invariant gives (judge.verdicts): one
        # cause, and its world told small at the end.
        assert_names(
            report_view(report), want, world=describe(world), level=target.level
        )


def _verdict_hint(passed: bool) -> str:
    if passed:
        return (
            "passed is true only when there is at least one check and every"
            " check passed"
        )
    return "passed is all(check.passed for check in checks) (and at least one check)"


def _passed_cause(observed: object) -> str:
    """A .passed of None is the TODO property the report-shape lessons name:
    one cause with them; a wrong bool is this invariant's own."""
    return "unfinished:EvaluationReport.passed" if observed is None else ""


@pytest.mark.invariant("report-verdict")
@examples("everything at once", "final absent", "file crlf_twin", "receipt absent")
@given(world=worlds())
def test_the_report_passes_exactly_when_every_check_passes(
    target, world: World
) -> None:
    """A report passes exactly when it has at least one check and every check
    passes.

    Task 6 (a stable report): one failed fact fails the whole evaluation,
    wherever it sits in the report; a verdict that overlooks a check lets a
    broken run through.
    """
    note(describe(world))

    def body(topic: str) -> list[str]:
        return [
            "report = "
            + calling(EVALUATE, "target.evaluate_run", "*built.args", topic),
            "print('report.passed is', repr(report.passed))",
            "print(report.render())",
        ]

    def plain(folder: str, lesson) -> str:
        return verdict_test(world, lesson, folder=folder)

    with judging(world, target, body=body, plain=plain):
        with materialise(world, target) as built:
            report = evaluate(target, built)
            rows = report_view(report)
        should = bool(rows) and all(row[1] for row in rows)
        if report.passed is not should:
            failed = [shown_row(row) for row in rows if not row[1]]
            fail(
                world=describe(world),
                expected=f"report.passed is {should}",
                observed=f"report.passed is {report.passed!r}"
                + (f" with failed checks {failed}" if failed else ""),
                hint=placed(_verdict_hint(report.passed), "EvaluationReport.passed"),
                cause=_passed_cause(report.passed),
            )


_TEXT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12
)
_CHECK_ROWS = st.lists(st.tuples(_TEXT, st.booleans(), _TEXT), max_size=5)


def _report_lines(rows, topic: str) -> list[str]:
    """Snippet lines that build the report of `rows` directly, as `_report`."""
    check = calling(
        "EvaluationCheck(name, passed, detail)", "target.EvaluationCheck", "*row", topic
    )
    return [
        f"rows = {rows!r}",
        f"checks = tuple({check} for row in rows)",
        "report = "
        + calling(
            "EvaluationReport(checks)", "target.EvaluationReport", "checks", topic
        ),
    ]


def _passed_lines(rows, topic: str) -> list[str]:
    passed = (
        "call_target('report.passed', lambda: report.passed)"
        if topic
        else "report.passed"
    )
    return [*_report_lines(rows, topic), f"print('report.passed is', repr({passed}))"]


def _render_lines_of(rows, topic: str) -> list[str]:
    rendered = calling("report.render()", "report.render", "", topic)
    return [
        *_report_lines(rows, topic),
        f"rendered = {rendered}",
        "print('render() ==', repr(rendered))",
        # Line by line, as the lesson says which line is wrong.
        "for number, line in enumerate(str(rendered).split('\\n'), 1):",
        "    print(f'line {number}: {line!r}')",
    ]


def _report(target, rows):
    checks = tuple(
        call_target(
            "EvaluationCheck(name, passed, detail)", target.EvaluationCheck, *row
        )
        for row in rows
    )
    return call_target("EvaluationReport(checks)", target.EvaluationReport, checks)


@pytest.mark.invariant("report-verdict")
@example(rows=[])
@example(rows=[("final", False, "required final not observed")])
@example(rows=[("a", True, "x"), ("b", False, "y")])
@example(rows=[("a", False, "x"), ("b", True, "y")])
@example(rows=[("a", True, "x"), ("b", True, "y"), ("c", False, "z")])
@example(rows=[("a", True, "x"), ("b", False, "y"), ("c", True, "z")])
@given(rows=_CHECK_ROWS)
def test_a_report_built_directly_passes_exactly_when_every_check_passes(
    target, rows
) -> None:
    """A report passes exactly when it has at least one check and every check
    passes.

    Task 6 (a stable report): EvaluationReport(()) has nothing observed and
    must not pass (evaluate_run always adds the final check, so only a report
    built directly shows this).
    """

    def plain(folder: str, lesson) -> str:
        return passed_test(rows, lesson, folder=folder)

    with reproducing(
        target, lambda topic: _passed_lines(rows, topic), ["call_target"], plain=plain
    ):
        report = _report(target, rows)
        should = bool(rows) and all(row[1] for row in rows)
        observed = call_target("report.passed", lambda: report.passed)
        if observed is not should:
            fail(
                world=f"EvaluationReport of checks {[shown_row(r) for r in rows]}",
                expected=f"report.passed is {should}",
                observed=f"report.passed is {observed!r}",
                hint=placed(_verdict_hint(bool(observed)), "EvaluationReport.passed"),
                cause=_passed_cause(observed),
            )


def _word(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def _render_lines(target, report, rows, world: str) -> None:
    __tracebackhide__ = True
    text = call_target("report.render()", report.render)
    passed = bool(rows) and all(row[1] for row in rows)
    lines = text.split("\n")
    own = call_target("report.passed", lambda: report.passed)
    if isinstance(own, bool) and lines[0] == f"evaluation: {_word(own)}":
        # render() tells the report's own verdict, as the chapter's does: a
        # wrong `passed` is report-verdict's lesson, not a mistake of render.
        passed = own
    want = [f"evaluation: {_word(passed)}"]
    want += [
        f"- {name}: {'PASS' if ok else 'FAIL'} ({detail})" for name, ok, detail in rows
    ]
    hint = (
        "render() is 'evaluation: PASS|FAIL', then one line per check:"
        " '- <name>: PASS|FAIL (<detail>)', joined by newlines"
    )
    if lines[:-1] == want and lines[-1] == "":
        # The chapter's report is the lines joined, as the reference builds
        # it: a trailing newline is an extra empty line to anything that
        # compares or splits on "\n".
        fail(
            world=world,
            expected=f"render() == {chr(10).join(want)!r}",
            observed=f"render() == {text!r}, one newline too many at the end",
            hint=placed(
                hint + ' ("\\n".join(lines), with nothing after the last line)',
                "EvaluationReport.render",
            ),
            cause=RENDER_GRAMMAR,
        )
    for number, (line, should) in enumerate(zip(lines, want, strict=False), start=1):
        if line != should:
            fail(
                world=world,
                expected=f"line {number} of render(): {should!r}",
                observed=f"line {number}: {line!r}",
                hint=placed(hint, "EvaluationReport.render"),
                cause=RENDER_GRAMMAR,
            )
    if len(lines) != len(want):
        fail(
            world=world,
            expected=f"{len(want)} lines from render()",
            observed=f"{len(lines)} lines: {text!r}",
            hint=placed(hint, "EvaluationReport.render"),
            cause=RENDER_GRAMMAR,
        )


@pytest.mark.invariant("render-grammar")
@example(rows=[])
@example(rows=[("final", True, "required final observed")])
@example(rows=[("file:a b/c.txt", False, "evidence unavailable: (x) [y]: z")])
# Names a format string reads: "%" and "{}" must be written as they are.
@example(rows=[("file:100%/{x}, y %s.txt", True, "content matches")])
@example(rows=[("a", True, "x"), ("b", False, "y")])
@given(rows=_CHECK_ROWS)
def test_render_follows_its_grammar_line_by_line(target, rows) -> None:
    """render() gives 'evaluation: PASS|FAIL' then '- <name>: PASS|FAIL (<detail>)'
    for each check, in order.

    Task 6 (a stable report): the rendering is what a learner reads and what
    tools grep; names and details appear verbatim, the verdict words are
    exactly PASS and FAIL.
    """
    lines = _render_lines_of

    def plain(folder: str, lesson) -> str | None:
        return render_test(lesson, folder=folder, rows=rows)

    with reproducing(
        target, lambda topic: lines(rows, topic), ["call_target"], plain=plain
    ):
        report = _report(target, rows)
        _render_lines(
            target,
            report,
            rows,
            world=f"EvaluationReport of checks {[shown_row(r) for r in rows]}",
        )


@pytest.mark.invariant("render-grammar")
@examples(
    "everything at once",
    "file directory",
    "final absent",
    "file names meaningful elsewhere",
)
@given(world=worlds())
def test_an_evaluated_report_renders_its_own_checks(target, world: World) -> None:
    """render() gives 'evaluation: PASS|FAIL' then '- <name>: PASS|FAIL (<detail>)'
    for each check, in order.

    Task 6 (a stable report): the rendering of evaluate_run's own report.
    """
    note(describe(world))

    def plain(folder: str, lesson) -> str | None:
        return render_test(lesson, folder=folder, world=world)

    with judging(world, target, plain=plain), materialise(world, target) as built:
        report = evaluate(target, built)
        _render_lines(target, report, report_view(report), describe(world))
