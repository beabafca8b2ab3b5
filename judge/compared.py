"""Plain tests for the lessons that are not one check's verdict on one world.

    source = verdict_test(world, lesson, folder=...)

Each function writes, like `judge.snippets.lesson_test`, a program in plain
Python a learner keeps: the world built in a temporary folder with the
course's names, the calls the invariant makes (one evaluation, two worlds
compared, a report built directly), and an assert of what the invariant
says must hold. Its message is the lesson's own headline: the snippet
works out the observed part as the invariant did, and the words around it
are the lesson's (`_said`), so the test says what the lesson says whenever
the learner's code does what the judge saw.

Every world given must be plain (`snippets.why_not_plain` says "").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from judge.snippets import WRITE, build_lines, program, verdict_lines
from strategies.world import World

__all__ = [
    "raise_test",
    "render_test",
    "said_around",
    "subclass_test",
    "verdict_test",
]

#: The call every world's lesson makes, as the lessons name it.
_EVALUATE = "evaluate_run(run, workspace, receipts, case)"

#: Module-level helpers a test may use: a report's rows, a row as the
#: judge shows it, an exception on one line.
_HELPERS = {
    "_rows": [
        "def _rows(report):",
        "    return [(c.name, c.passed, c.detail) for c in report.checks]",
    ],
    "_shown": [
        "def _shown(row):",
        "    name, passed, detail = row",
        "    return f\"{name}: {'PASS' if passed else 'FAIL'} ({detail})\"",
    ],
    "_one_line": [
        "def _one_line(error):",
        "    text = ' '.join(str(error).split())",
        "    named = type(error).__name__",
        "    return f'{named}: {text}' if text else named",
    ],
}


def said_around(lesson: Any) -> tuple[str, str]:
    """The lesson's headline around its observed part: (before, after), so a
    test that works out the observed part again says the same sentence."""
    headline, observed = lesson.headline, lesson.observed
    if observed and observed in headline:
        before, _, after = headline.partition(observed)
        return before, after
    return "got ", f", but should be {lesson.expected}"


def _said(lesson: Any, observed: str) -> str:
    """A Python expression: the lesson's headline around `observed` (an
    expression the test works out)."""
    before, after = said_around(lesson)
    return " + ".join(
        part for part in (repr(before) if before else "", observed, repr(after)) if part
    )


def _defs(worlds: Sequence[tuple[str, World, Sequence[Any] | None]], steps) -> list:
    """The helpers `steps` use, then one build function per world."""
    used = "\n".join(steps)
    defs: list[str] = []
    for name, lines in _HELPERS.items():
        if re.search(rf"\b{name}\(", used):
            defs += [*lines, "", ""]
    if worlds:
        defs += [*WRITE, "", ""]
    for number, (name, world, events) in enumerate(worlds):
        defs += [*(["", ""] if number else []), *build_lines(world, name, events)]
    return defs


def _in_folders(names: Sequence[str], steps: Sequence[str]) -> list[str]:
    """`steps` inside a temporary folder, each world built in one of its own:
    `first = build(...)` for the first world, `second = ...` for the next."""
    lines = ["with tempfile.TemporaryDirectory() as folder:"]
    for number, name in enumerate(names):
        held = ("first", "second")[number]
        lines += [
            f"    Path(folder, {held!r}).mkdir()",
            f"    {held} = {name}(Path(folder, {held!r}))",
        ]
    return lines + [f"    {line}" for line in steps]


def _test(
    name: str,
    says: str,
    folder: str,
    worlds: Sequence[tuple[str, World, Sequence[Any] | None]],
    steps: Sequence[str],
) -> str:
    body = _in_folders([w[0] for w in worlds], steps) if worlds else list(steps)
    return program(name, says, folder, _defs(worlds, body), body)


def _evaluated(held: str = "first", into: str = "report") -> list[str]:
    """Lines that evaluate a built world, a raise said as the judge says it."""
    return [
        "try:",
        f"    {into} = evaluate_run(*{held})",
        "except Exception as error:",
        f"    raise AssertionError(f'{_EVALUATE} raised {{_one_line(error)}},"
        " but should return an EvaluationReport') from error",
    ]


def raise_test(world: World, lesson: Any, *, folder: str) -> str:
    """evaluate_run on `world` returns a report (the lesson: it raised)."""
    steps = [*_evaluated(), "print(report.render())"]
    return _test(
        "test_evaluate_run_returns_a_report",
        "evaluate_run returns a report on this world, never raises",
        folder,
        [("build", world, None)],
        steps,
    )


def verdict_test(world: World, lesson: Any, *, folder: str) -> str:
    """report.passed on `world` is true exactly when every check passed."""
    steps = [
        *_evaluated(),
        "print(report.render())",
        "rows = _rows(report)",
        "should = bool(rows) and all(row[1] for row in rows)",
        "failed = [_shown(row) for row in rows if not row[1]]",
        "observed = f'report.passed is {report.passed!r}' + (",
        "    f' with failed checks {failed}' if failed else ''",
        ")",
        f"assert report.passed is should, {_said(lesson, 'observed')}",
    ]
    return _test(
        "test_report_passed",
        "report.passed is true exactly when every check passed",
        folder,
        [("build", world, None)],
        steps,
    )


def subclass_test(
    world: World, argument: str, base: str, name: str, lesson: Any, *, folder: str
) -> str:
    """evaluate_run judges `argument` made an instance of `name`, a subclass
    of `base` adding nothing, as the `base` it is: it returns a report (and,
    for a lesson about a verdict, that check's verdict as the world says)."""
    steps = [
        "run, workspace, receipts, case = first",
        f"# Your {argument}, made an instance of a subclass adding nothing.",
        f"subclass = type({name!r}, ({base},), {{'__slots__': ()}})",
        f"object.__setattr__({argument}, '__class__', subclass)",
        "try:",
        "    report = evaluate_run(run, workspace, receipts, case)",
        "except Exception as error:",
        f"    observed = f'{_EVALUATE} raised {{_one_line(error)}}'",
        f"    raise AssertionError({_said(lesson, 'observed')}) from error",
        "print(report.render())",
    ]
    seen = getattr(lesson, "seen", None)
    if seen is not None:
        check, _, level = seen
        steps += verdict_lines(check, level)
    return _test(
        f"test_a_{argument}_of_a_subclass",
        f"evaluate_run judges a {argument} of a subclass of {base} as the {base} it is",
        folder,
        [("build", world, None)],
        steps,
    )


#: The lines that work out what render() should give for `rows`, as the
#: render-grammar invariant does: the report's own verdict when its first
#: line tells it (a wrong `passed` is report-verdict's lesson, not render's).
_RENDER_WANTED = [
    "text = report.render()",
    "print(repr(text))",
    "lines = text.split('\\n')",
    "passed = bool(rows) and all(row[1] for row in rows)",
    "own = report.passed",
    "if isinstance(own, bool) and lines[0] == f\"evaluation: {'PASS' if own else"
    " 'FAIL'}\":",
    "    passed = own",
    "want = [f\"evaluation: {'PASS' if passed else 'FAIL'}\"] + [",
    "    f\"- {name}: {'PASS' if ok else 'FAIL'} ({detail})\" for name, ok, detail"
    " in rows",
    "]",
]


def render_test(
    lesson: Any, *, folder: str, rows: Sequence[tuple] = (), world: World | None = None
) -> str | None:
    """render() of a report (built directly from `rows`, or evaluate_run's
    on `world`) is the grammar's lines joined by newlines; None for a lesson
    that is no mistake of the grammar (a call that raised)."""
    if lesson.cause != "render:grammar":
        return None
    if world is None:
        steps = [
            f"rows = {list(rows)!r}",
            "checks = tuple(EvaluationCheck(*row) for row in rows)",
            "report = EvaluationReport(checks)",
        ]
    else:
        steps = [*_evaluated(), "rows = _rows(report)"]
    steps += _RENDER_WANTED
    observed = lesson.observed
    if observed.endswith(", one newline too many at the end"):
        seen = "f'render() == {text!r}, one newline too many at the end'"
    elif observed.startswith("line "):
        steps += [
            "wrong = [n for n, (a, b) in enumerate(zip(lines, want), 1) if a != b]",
            "number = (wrong or [1])[0]",
        ]
        seen = "f'line {number}: {lines[number - 1]!r}'"
    else:
        seen = "f'{len(lines)} lines: {text!r}'"
    steps.append(f"assert text == '\\n'.join(want), {_said(lesson, seen)}")
    return _test(
        "test_render",
        "render() gives 'evaluation: PASS|FAIL' then '- <name>: PASS|FAIL"
        " (<detail>)' for each check, joined by newlines",
        folder,
        [("build", world, None)] if world is not None else [],
        steps,
    )
