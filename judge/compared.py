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

import io
import re
import tokenize
from collections.abc import Sequence
from typing import Any

from judge.helpers import HELPERS
from judge.snippets import (
    WRITE,
    build_lines,
    case_of,
    literal,
    plain_code,
    program,
    refusal_steps,
    verdict_lines,
)
from strategies.world import ExpectedCheck, World

__all__ = [
    "argument_test",
    "case_test",
    "determinism_test",
    "independence_test",
    "normalisation_test",
    "order_test",
    "pair_test",
    "passed_test",
    "raise_test",
    "read_only_test",
    "render_test",
    "repeat_test",
    "said_around",
    "shape_test",
    "store_kinds_test",
    "subclass_test",
    "substrate_test",
    "tampered_test",
    "verdict_test",
]

#: The call every world's lesson makes, as the lessons name it.
_EVALUATE = "evaluate_run(run, workspace, receipts, case)"


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
        part
        for part in (
            repr(before) if before else "",
            observed,
            repr(after) if after else "",
        )
        if part
    )


def _defs(
    worlds: Sequence[tuple[str, World, Sequence[Any] | None]],
    steps,
    *,
    named: bool = False,
) -> list:
    """The helpers `steps` use, then one build function per world (`named`:
    its Day 1-6 calls made through `_step`, `_named_calls`)."""
    builds = [build_lines(world, name, events) for name, world, events in worlds]
    if named:
        builds = [_named_calls(lines) for lines in builds]
    used = "\n".join([*steps, *(line for lines in builds if named for line in lines)])
    wanted: set[str] = set()
    while True:  # a helper another helper uses is wanted too
        more = {
            name
            for name, lines in HELPERS.items()
            if name not in wanted and re.search(rf"\b{name}\(", used)
        }
        if not more:
            break
        wanted |= more
        used += "\n" + "\n".join(line for name in more for line in HELPERS[name])
    defs: list[str] = []
    for name, lines in HELPERS.items():
        if name in wanted:
            defs += [*lines, "", ""]
    if worlds:
        defs += [*WRITE, "", ""]
    for number, lines in enumerate(builds):
        defs += [*(["", ""] if number else []), *lines]
    return defs


#: The Day 1-6 names a world's build calls, and how the judge names each
#: call (judge.steps); a store is "ReceiptStore()" without arguments.
_SUBSTRATE_CALLS = {
    "ToolPolicy": "ToolPolicy(root)",
    "ReceiptStore": "ReceiptStore(path)",
    "Workspace": "Workspace(policy, confirm_tool, receipt_store)",
    "EffectReceipt": "EffectReceipt(tool_call_id, tool, arguments, exit_state,"
    " result, artifacts)",
    "ToolAction": "ToolAction(tool, arguments)",
    "FinalAction": "FinalAction(final)",
    "AgentEvent": "AgentEvent(step, response, action, result)",
    "AgentRun": "AgentRun(completed, reason, final, events, modified_files)",
}


def _named_calls(lines: Sequence[str]) -> list[str]:
    """`lines` (a build function) with each Day 1-6 call (`_SUBSTRATE_CALLS`,
    and a store's `.put`) made through `_step`, which says a raise in it as
    the judge does; its arguments are worked out before, so a raise there
    is told as its own. Found as tokens: text in a string is never one."""
    tokens = list(tokenize.generate_tokens(io.StringIO("\n".join(lines)).readline))
    edits: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    for at in range(2, len(tokens) - 2):
        token, opening, first = tokens[at], tokens[at + 1], tokens[at + 2]
        if token.type != tokenize.NAME or opening.string != "(":
            continue
        before = tokens[at - 1].string
        if (
            token.string == "put"
            and before == "."
            and tokens[at - 2].type == (tokenize.NAME)
        ):
            start, what = tokens[at - 2].start, "ReceiptStore.put(receipt)"
            callee = f"{tokens[at - 2].string}.put"
        elif token.string in _SUBSTRATE_CALLS and before != ".":
            start, callee = token.start, token.string
            what = _SUBSTRATE_CALLS[callee]
            if token.string == "ReceiptStore" and first.string == ")":
                what = "ReceiptStore()"
        else:
            continue
        if first.string == ")":  # no arguments
            edits.append((start, first.end, f"_step({what!r}, {callee})"))
        else:
            edits.append((start, opening.end, f"_step({what!r}, {callee}, "))
    out = list(lines)
    for (row, column), (end_row, end), text in sorted(edits, reverse=True):
        assert row == end_row  # a name and its parenthesis: one line
        line = out[row - 1]
        out[row - 1] = line[:column] + text + line[end:]
    return out


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


#: How the problems `_problem` finds begin: a lesson about another (the
#: judge's own evaluator loaded) gets no test.
_PROBLEMS = (
    "None",
    "a report whose .checks is ",
    "a report whose check ",
    "a report whose .passed is ",
    "a report whose checks or .passed raise ",
    "a report without a render() method",
    "a report whose checks, .passed or render() read otherwise the second time",
)


def substrate_test(world: World, lesson: Any, *, folder: str) -> str | None:
    """`world` is built by the learner's Day 1-6 names and evaluated (the
    lesson: one of them raised while the judge built it), each of those
    calls named as the judge names it; None for a lesson about anything
    else."""
    if lesson.topic != "substrate" or not lesson.headline.startswith(_NOT_BUILT):
        return None
    if " raised " not in lesson.observed:
        return None
    steps = [*_evaluated(), "print(report.render())"]
    body = _in_folders(["build"], steps)
    return program(
        "test_your_day_1_to_6_names_build_the_world",
        "your Day 1-6 names (ToolPolicy, ReceiptStore and its put, EffectReceipt,"
        " Workspace, the actions, AgentEvent, AgentRun) build this world without"
        " raising, and evaluate_run judges it",
        folder,
        _defs([("build", world, None)], body, named=True),
        body,
    )


def shape_test(world: World, lesson: Any, *, folder: str) -> str | None:
    """evaluate_run on `world` returns a report of the contract's shape (the
    lesson: it returned None, or a report whose checks or .passed are of the
    wrong type); None for a lesson about anything else."""
    said = f"{_EVALUATE} returned "
    problem = lesson.observed.removeprefix(said)
    if not lesson.observed.startswith(said) or not problem.startswith(_PROBLEMS):
        return None
    seen = "f'" + said + "{problem}'"
    steps = [
        *_evaluated(),
        "problem = _problem(report)",
        f"assert problem is None, {_said(lesson, seen)}",
        "print(report.render())",
    ]
    return _test(
        "test_evaluate_run_returns_a_report",
        "evaluate_run returns an EvaluationReport: a tuple of checks of"
        " (name: str, passed: bool, detail: str), .passed a bool, render()",
        folder,
        [("build", world, None)],
        steps,
    )


#: A report's rows as the determinism invariant words them: one line each.
_ROWS_TEXT = "'\\n'.join(f'{name} {passed} {detail}' for name, passed, detail in ROWS)"


def determinism_test(world: World, lesson: Any, *, folder: str) -> str:
    """`world` built afresh in two folders gives the same report twice (the
    tree's path in a detail as <tree>), as the determinism invariant says."""
    steps = [
        *_evaluated("first", "one"),
        *_evaluated("second", "two"),
        "before = _rows(one, Path(folder, 'first'))",
        "after = _rows(two, Path(folder, 'second'))",
        f"first_text = {_ROWS_TEXT.replace('ROWS', 'before')}",
        f"second_text = {_ROWS_TEXT.replace('ROWS', 'after')}",
        "print(first_text)",
        "assert after == before, (",
        "    f'got {second_text!r:.400}, but should be the same report again:'",
        "    f' {first_text!r:.400}'",
        ")",
    ]
    body = _in_folders(["build", "build"], steps)
    return program(
        "test_the_same_world_twice_gives_one_report",
        "one world built afresh twice gives the same report",
        folder,
        _defs([("build", world, None)], body),
        body,
    )


def repeat_test(
    world: World, before: World | None, repeats: int, lesson: Any, *, folder: str
) -> str | None:
    """stateless: `world`, evaluated `repeats` times in one process (after
    the world `before` it, evaluated as often, at the same paths), gives one
    report; None for a lesson about anything else."""
    said = f"one report for one world, {repeats} times over"
    if lesson.expected != said:
        return None
    steps = ["tree = Path(folder, 'w')", "tree.mkdir()"]
    if before is not None:
        steps += [
            "earlier = build_before(tree)",
            f"for _ in range({repeats}):  # the world before, as often as this one",
            "    evaluate_run(*earlier)",
            "shutil.rmtree(tree)  # this world at the very same paths",
            "tree.mkdir()",
        ]
    steps += [
        "made = build(tree)",
        "rows = []",
        f"for _ in range({repeats}):",
        *(f"    {line}" for line in _evaluated("made")),
        "    rows.append(tuple(_rows(report, tree)))",
        "print(rows[0])",
        "changed = [other for other in rows[1:] if other != rows[0]]",
        "assert not changed, (",
        "    f'got {rows[0]} the first time, then {changed[0]}, but should be'",
        f"    {' ' + said!r}",
        ")",
    ]
    body = [
        "with tempfile.TemporaryDirectory() as folder:",
        *(f"    {line}" for line in steps),
    ]
    worlds = [("build", world, None)]
    if before is not None:
        worlds.insert(0, ("build_before", before, None))
    return program(
        "test_one_world_gives_one_report",
        f"one world evaluated {repeats} times in one process gives one report",
        folder,
        _defs(worlds, body),
        body,
    )


#: How a lesson about a world the learner's names could not build begins
#: (judge.calls `substrate_lesson`), and the case's calls it may name.
_NOT_BUILT = "could not build the world through the target: "
_CASE_CALLS = (
    "FileExpectation(",
    "ResultExpectation(",
    "ReceiptExpectation(",
    "EvaluationCase(",
)


def case_test(world: World, lesson: Any, *, folder: str) -> str | None:
    """`world`'s case, a valid one, is built: each expectation, then the
    case, in the judge's order and named as the judge names each call
    (judge.steps `add_case`); None for a lesson about anything else."""
    if not lesson.headline.startswith(_NOT_BUILT):
        return None
    if not lesson.observed.startswith(_CASE_CALLS):
        return None
    case = case_of(world)
    # Each group: its rows, the fields they give, how the judge names a call.
    groups = (
        (
            "files",
            [f"({literal(p)}, {literal(c)})" for p, c in case.files],
            "path, content",
            "f'FileExpectation({path!r}, {content!r:.40})'",
            "FileExpectation(path, content)",
        ),
        (
            "results",
            [repr(row) for row in case.results],
            "tool, contains",
            "f'ResultExpectation({tool!r}, {contains!r})'",
            "ResultExpectation(tool, contains)",
        ),
        (
            "receipts",
            [repr(row) for row in case.receipts],
            "row",
            "f\"ReceiptExpectation({', '.join(map(repr, row))})\"",
            "ReceiptExpectation(*row)",
        ),
    )
    steps: list[str] = []
    for group, rows, fields, what, call in groups:
        if not rows:
            steps.append(f"{group} = ()")
            continue
        steps += [
            f"{group} = []",
            f"for {fields} in [",
            *(f"    {row}," for row in rows),
            "]:",
            f"    what = {what}",
            *(
                f"    {line}"
                for line in _called(f"{_NOT_BUILT!r} + what", "made", call, "")
            ),
            f"    {group}.append(made)",
        ]
    final = case.final_contains
    steps += [
        *_called(
            repr(_NOT_BUILT + f"EvaluationCase({final!r}, files, results, receipts)"),
            "case",
            f"EvaluationCase({final!r}, files=tuple(files), results=tuple(results),"
            " receipts=tuple(receipts))",
            "",
        ),
        "print(case)",
    ]
    return _test(
        "test_the_case_is_accepted",
        "the world's case, a valid one, is built as declared",
        folder,
        [],
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


def _called(what: str, into: str, call: str, should: str) -> list[str]:
    """Lines that set `into` to `call`, which the judge's lessons name `what`
    (a Python expression giving that name): a raise said as the judge says it
    (call_target: `<what> raised <error>, but should <should>`)."""
    tail = f", but should {should}" if should else ""
    return [
        "try:",
        f"    {into} = {call}",
        "except Exception as error:",
        f"    said = {what} + ' raised ' + _one_line(error)"
        + (f" + {tail!r}" if tail else ""),
        "    raise AssertionError(said) from error",
    ]


def _built_directly(rows: Sequence[tuple]) -> list[str]:
    """Lines that build the report of `rows` directly, as the report's
    properties do (test_report `_report`), a raise said as the judge does."""
    return [
        f"rows = {list(rows)!r}",
        *_called(
            repr("EvaluationCheck(name, passed, detail)"),
            "checks",
            "tuple(EvaluationCheck(*row) for row in rows)",
            "return normally",
        ),
        *_called(
            repr("EvaluationReport(checks)"),
            "report",
            "EvaluationReport(checks)",
            "return normally",
        ),
    ]


#: The lines that read report.passed into `own`, as the judge does.
_PASSED = _called(repr("report.passed"), "own", "report.passed", "return normally")

#: The calls a lesson about the report's own code names, as its observed
#: part begins: the report built, rendered or its verdict read.
_REPORT_CALLS = (
    "EvaluationCheck(name, passed, detail) ",
    "EvaluationReport(checks) ",
    "report.render() ",
    "report.passed ",
)


def argument_test(
    world: World, what: str, made: Sequence[str], named: str, *, folder: str
) -> str:
    """evaluate_run, given `world`'s arguments with one replaced by `made`
    (lines setting `arguments[p]`), raises ValueError naming `named`; the
    call is `what`, as the judge's lesson names it (expect_error's words)."""
    should = f", but should raise ValueError naming {named!r}"
    steps = [
        "arguments = list(first)",
        *made,
        "try:",
        "    returned = evaluate_run(*arguments)",
        "except ValueError as error:",
        "    message = str(error)",
        "except Exception as error:",
        f"    said = {what!r} + ' raised ' + _one_line(error) + {should!r}",
        "    raise AssertionError(said) from error",
        "else:",
        f"    raise AssertionError({what!r} + ' returned ' + _short(returned) +"
        f" {should!r})",
        f"assert {named!r} in message, (",
        f"    {what!r} + f' raised ValueError: {{message!r}}, which does not name'",
        f"    ' ' + {named!r}",
        ")",
    ]
    return _test(
        "test_a_wrong_argument_is_refused",
        f"{what} raises ValueError naming {named}",
        folder,
        [("build", world, None)],
        steps,
    )


def normalisation_test(
    written: str, normal: str, duplicate: Any, *, binding: bool, folder: str
) -> str:
    """path-normalisation: `written` is stored as `normal` (a file path and a
    changed artifact), normalising it again changes nothing, and a case
    declaring both spellings (`duplicate`, a case specification) is refused."""
    code = plain_code(duplicate.code)
    file = f"FileExpectation({written!r}, 'x')"
    receipt = f"ReceiptExpectation('call-1', 'edit_file', 'ok', 'x', ({written!r},))"
    steps = [
        *_called(repr(file), "stored", f"{file}.path", "return normally"),
        f"assert stored == {normal!r}, (",
        f"    '.path == ' + repr(stored) + ', but should be ' + {repr(normal)!r}",
        ")",
        *_called(
            "'FileExpectation(' + repr(stored) + \", 'x')\"",
            "again",
            "FileExpectation(stored, 'x').path",
            "return normally",
        ),
        "assert again == stored, (",
        "    'got ' + repr(again) + ', but normalising ' + repr(stored)",
        "    + ' again should give ' + repr(stored)",
        ")",
        *_called(
            repr(receipt),
            "artifacts",
            f"{receipt}.changed_artifacts",
            "return normally",
        ),
        f"assert tuple(artifacts) == ({normal!r},), (",
        "    '.changed_artifacts == ' + repr(artifacts) + ', but should be '",
        f"    + {repr((normal,))!r}",
        ")",
        "# Two spellings of one path in one case: a duplicate, refused.",
        *refusal_steps(code, duplicate.names, binding=binding),
    ]
    return program(
        "test_paths_are_stored_normalised",
        f"{written!r} is stored as {normal!r}, and a case naming both is refused",
        folder,
        [*_defs([], steps), f"WHAT = {duplicate.what!r}"],
        steps,
    )


#: The lines that work out what render() should give for `rows`, as the
#: render-grammar invariant does: the report's own verdict when its first
#: line tells it (a wrong `passed` is report-verdict's lesson, not render's).
_RENDER_WANTED = [
    *_called(repr("report.render()"), "text", "report.render()", "return a string"),
    "assert isinstance(text, str), (",
    "    f'report.render() returned {_short(text)}, but should return a string'",
    ")",
    "print(repr(text))",
    "lines = text.split('\\n')",
    "passed = bool(rows) and all(row[1] for row in rows)",
    *_PASSED,
    "if isinstance(own, bool) and lines[0] == f\"evaluation: {'PASS' if own else"
    " 'FAIL'}\":",
    "    passed = own",
    "want = [f\"evaluation: {'PASS' if passed else 'FAIL'}\"] + [",
    "    f\"- {name}: {'PASS' if ok else 'FAIL'} ({detail})\" for name, ok, detail"
    " in rows",
    "]",
]

#: The grammar's first broken rule, in the judge's words (test_report
#: `_render_lines`), for a test written for a lesson about a call.
_RENDER_SAID = [
    "joined = '\\n'.join(want)",
    "if lines[:-1] == want and lines[-1] == '':",
    "    said = (",
    "        f'render() == {text!r}, one newline too many at the end, but should be'",
    "        f' {joined!r}'",
    "    )",
    "else:",
    "    wrong = [n for n, (a, b) in enumerate(zip(lines, want), 1) if a != b]",
    "    number = (wrong or [0])[0]",
    "    said = (",
    "        f'got line {number}: {lines[number - 1]!r}, but should be line {number}'",
    "        f' of render(): {want[number - 1]!r}'",
    "        if wrong",
    "        else f'got {len(lines)} lines: {text!r}, but should be {len(want)} lines'",
    "        ' from render()'",
    "    )",
    "assert text == joined, said",
]


def render_test(
    lesson: Any, *, folder: str, rows: Sequence[tuple] = (), world: World | None = None
) -> str | None:
    """render() of a report (built directly from `rows`, or evaluate_run's
    on `world`) is the grammar's lines joined by newlines, every call on
    the way returning (the lesson: a mistake of the grammar, or one of
    those calls raised or returned what it should not); None for a lesson
    about anything else."""
    grammar = lesson.cause == "render:grammar"
    if not grammar and not lesson.observed.startswith(_REPORT_CALLS):
        return None
    if world is None:
        steps = _built_directly(rows)
    else:
        steps = [*_evaluated(), "rows = _rows(report)"]
    steps += _RENDER_WANTED
    if not grammar:
        steps += _RENDER_SAID
        return _render_program(folder, world, steps)
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
    return _render_program(folder, world, steps)


def _render_program(folder: str, world: World | None, steps: list[str]) -> str:
    return _test(
        "test_render",
        "render() gives 'evaluation: PASS|FAIL' then '- <name>: PASS|FAIL"
        " (<detail>)' for each check, joined by newlines",
        folder,
        [("build", world, None)] if world is not None else [],
        steps,
    )


def passed_test(rows: Sequence[tuple], lesson: Any, *, folder: str) -> str:
    """A report built directly from `rows` passes exactly when it has a check
    and every check passed (report-verdict's lesson, or a call on the way
    that raised)."""
    seen = "f'report.passed is {own!r}'"
    steps = [
        *_built_directly(rows),
        *_PASSED,
        "should = bool(rows) and all(row[1] for row in rows)",
        f"assert own is should, {_said(lesson, seen)}",
        "print('report.passed is', repr(own))",
    ]
    return _test(
        "test_report_passed_built_directly",
        "report.passed is true exactly when there is a check and every check passed",
        folder,
        [],
        steps,
    )


#: Stands for the observed part while a headline is worked out.
_MARK = "\x00observed\x00"


def _around(expected: str) -> tuple[str, str]:
    """The headline the judge makes of `expected` (judge.lessons.headline_of)
    around an observed part that does not open with its subject, as
    (before, after)."""
    from judge.lessons import headline_of

    before, _, after = headline_of(_MARK, expected).partition(_MARK)
    return before, after


#: How a pair test judges one check's two rows `old` and `new`: the same
#: rows; the same, or (at the course level, for a detail that does not bind)
#: both failing alike; or the verdict flipped.
_RELATIONS = {
    "same": "old == new",
    "loose": "old == new or (old[:2] == new[:2] and old[1] is False)",
    "flip": "old[1] is not new[1]",
}


def _relation(check: ExpectedCheck, level: str) -> str:
    """How `check`'s two rows must compare to say the same thing
    (`ExpectedCheck.same`)."""
    return "loose" if level == "course" and not check.course_binding else "same"


def _pair_steps(
    table: Sequence[tuple[str, str, str]],
    observed: dict[str, str],
    count: tuple[str, str, bool],
) -> list[str]:
    """Lines that evaluate both worlds (`first`, `second`) into `before` and
    `after` rows (the tree's path in a detail as <tree>, as the judge shows
    it), then assert, check by check in order, its relation (`table`: the
    relation's name, "" for a check not judged, and words `head` and
    `tail` of the lesson's), its message `observed[relation]` (Python over
    `old`, `new`, `head` and `tail`), as the invariant does. `count` is (condition,
    message, first): how many checks there are, judged before the checks
    or after them."""
    counted = [f"assert {count[0]}, {count[1]}"]
    lines = [
        *_evaluated("first", "one"),
        *_evaluated("second", "two"),
        "print(one.render())",
        "print(two.render())",
        "before = _rows(one, Path(folder, 'first'))",
        "after = _rows(two, Path(folder, 'second'))",
        *(counted if count[2] else []),
        "# Per check: how its two rows must compare, and the words around",
        "# what was seen when they do not.",
        "said = [",
        *(f"    {row!r}," for row in table),
        "]",
        "for (old, new), (how, head, tail) in zip(zip(before, after), said):",
    ]
    used = [how for how in _RELATIONS if any(row[0] == how for row in table)]
    for number, how in enumerate(used):
        lines += [
            f"    {'if' if number == 0 else 'elif'} how == {how!r}:",
            f"        assert {_RELATIONS[how]}, {observed[how]}",
        ]
    return lines + ([] if count[2] else counted)


def pair_test(
    world: World,
    other: World,
    events: Sequence[Any] | None,
    table: Sequence[tuple[str, str, str]],
    observed: dict[str, str],
    count: tuple[str, str, bool],
    *,
    name: str,
    says: str,
    folder: str,
) -> str:
    """Both worlds built in folders of their own (the second's run holding
    `events`, when given), evaluated, and compared check by check
    (`_pair_steps`)."""
    return _test(
        name,
        says,
        folder,
        [("build", world, None), ("build_second", other, events)],
        _pair_steps(table, observed, count),
    )


def order_test(
    world: World,
    events: Sequence[Any],
    checks: Sequence[ExpectedCheck],
    level: str,
    *,
    folder: str,
) -> str:
    """order-insensitivity: the world's run, and the same run holding
    `events` (reordered, repeated, added to), give every check alike."""
    seen = (
        "head + f'in the canonical order: {_shown(old)}; after reordering:"
        " {_shown(new)}' + tail"
    )
    table = [
        (_relation(check, level), *_around(f"in any event order: {check.shown(level)}"))
        for check in checks
    ]
    count = (
        "len(after) == len(before)",
        "f'got {len(after)} checks after reordering, but should be"
        " {len(before)} checks in any event order'",
        False,
    )
    return pair_test(
        world,
        world,
        events,
        table,
        {"same": seen, "loose": seen},
        count,
        name="test_any_event_order",
        says="reordering, repeating or adding events changes no check",
        folder=folder,
    )


def independence_test(
    world: World,
    other: World,
    flips: Sequence[int],
    checks: Sequence[ExpectedCheck],
    level: str,
    *,
    folder: str,
) -> str:
    """independence: one fact changed (`other`) flips its own checks
    (`flips`, indices) and leaves every other check as it was; `checks` are
    the changed world's."""
    # The words name each check as the learner's report does (its row's
    # name), as the property's lesson does: head and tail are worked out
    # in the test, headline_of's own forms for these expectations.
    # The words end with what the world says of the check.
    table = [
        ("flip" if index in flips else _relation(check, level), "", check.shown(level))
        for index, check in enumerate(checks)
    ]
    unmoved = (
        "f'got before the change: {_shown(old)}; after: {_shown(new)}, but should"
        " be {old[0]} left as the world says, before and after: ' + tail"
    )
    observed = {
        "flip": "f'got before: {_shown(old)}; after: {_shown(new)}, but {old[0]}"
        " should flip: ' + tail",
        "same": unmoved,
        "loose": unmoved,
    }
    count = (
        "[row[0] for row in after] == [row[0] for row in before]",
        "f'got {[row[0] for row in after]}, but should be the same checks:"
        " {[row[0] for row in before]}'",
        True,
    )
    return pair_test(
        world,
        other,
        None,
        table,
        observed,
        count,
        name="test_one_changed_fact",
        says="one changed fact flips its own check and no other",
        folder=folder,
    )


def store_kinds_test(
    memory: World,
    over_log: World,
    checks: Sequence[ExpectedCheck],
    level: str,
    *,
    folder: str,
) -> str:
    """store-kinds: the same receipts in an in-memory store (`memory`) and in
    a store over a log (`over_log`) give every check alike; `checks` are the
    path store's world's."""
    seen = (
        "f'got with a path store: {_shown(new)}, but should be with a path"
        " store too: {_shown(old)}'"
    )
    table = [(_relation(check, level), "", "") for check in checks]
    count = (
        "len(after) == len(before)",
        "f'got {len(before)} with a memory store, {len(after)} with a path"
        " store, but should be {len(before)} checks with either store'",
        False,
    )
    return pair_test(
        memory,
        over_log,
        None,
        table,
        {"same": seen, "loose": seen},
        count,
        name="test_either_store_gives_one_report",
        says="the same receipts give the same report from either store",
        folder=folder,
    )


def tampered_test(
    clean: World,
    tampered: World,
    checks: Sequence[ExpectedCheck],
    level: str,
    *,
    folder: str,
) -> str:
    """tampered-log: the log damaged changes no check but the receipts' (the
    same world with its log untouched built beside it); `checks` are the
    tampered world's."""
    seen = (
        "f'got with the log damaged: {_shown(new)}, but should be"
        " {old[0]} unchanged: {_shown(old)}'"
    )
    table = [
        ("" if check.name.startswith("receipt:") else _relation(check, level), "", "")
        for check in checks
    ]
    count = (
        "len(after) == len(before)",
        "f'got {len(after)} checks, but should be {len(before)} checks, as with"
        " the log untouched'",
        True,
    )
    return pair_test(
        clean,
        tampered,
        None,
        table,
        {"same": seen, "loose": seen},
        count,
        name="test_a_damaged_log_changes_only_receipts",
        says="a damaged log fails receipt checks and changes no other",
        folder=folder,
    )


#: What of the process read-only's lessons name, and how a test sees it.
_PROCESS = {
    "the process's working directory": "os.getcwd()",
    "the process's environment": "dict(os.environ)",
}


def read_only_test(world: World, lesson: Any, *, folder: str) -> str | None:
    """read-only, for a lesson about the process's working directory or
    environment: evaluating `world` leaves them as they were; for one about
    a tool called, the tree changed or a second report, `_unchanged_test`
    (None for a lesson about anything else)."""
    said = lesson.expected
    what = next((w for w in _PROCESS if said == f"{w} unchanged by evaluation"), "")
    if not what:
        return _unchanged_test(world, lesson, folder=folder)
    head, tail = said_around(lesson)
    if lesson.observed not in lesson.headline:
        head, tail = lesson.headline, ""  # the lesson names it, no values
        seen = ""
    elif what.endswith("directory"):
        seen = "f'before: {was!r:.200}; after: {now!r:.200}'"
    else:
        seen = (
            "'; '.join(f'{key!s}: before {was.get(key, gone)!r:.80}, after"
            " {now.get(key, gone)!r:.80}' for key in changed[:4])"
        )
    steps = [
        f"was = {_PROCESS[what]}",
        *_evaluated(),
        f"now = {_PROCESS[what]}",
    ]
    if what.endswith("directory"):
        steps += ["os.chdir(was)  # back where it was, for what runs next"]
    else:
        steps += [
            "os.environ.clear()",
            "os.environ.update(was)  # back as it was, for what runs next",
            "gone = type('NotSet', (), {'__repr__': lambda self: '(not set)'})()",
            "same = {k for k in was if now.get(k, gone) == was[k]}",
            "changed = sorted({*was, *now} - same, key=str)",
        ]
    parts = (repr(head) if head else "", seen, repr(tail) if tail else "")
    steps.append("assert now == was, " + " + ".join(p for p in parts if p))
    return _test(
        "test_evaluation_leaves_the_process_as_it_was",
        f"evaluate_run leaves {what} as it was",
        folder,
        [("build", world, None)],
        steps,
    )


#: What a read-only lesson about an object's state says it should do, and
#: which of evaluate_run's arguments each names (as the judge's worker
#: compares them: judge.snapshot `_remote_state`).
_LEAVE = "which it should leave as it was"
_STATE = {
    "the run": 0,
    "the case": 3,
    "the workspace's state": 1,
    "the receipt store's state": 2,
}

#: What read-only's lessons expect, for the calls made and the tree.
_NO_CALL = "no call of a workspace tool or of the store's put"
_SAME_TREE = "the temporary tree unchanged (workspace, log and siblings)"
_TWICE = "the same report twice: "


def _unchanged_test(world: World, lesson: Any, *, folder: str) -> str | None:
    """read-only, evaluating `world` twice: for a lesson about a tool or put
    called, none is; about the tree, every path is as it was (judge.snapshot's
    words); about the report, it is the same twice. Each test asserts its
    lesson's rule only (the judge found the rules before it held), so it
    stays short enough to keep; None for a lesson about anything else (the
    run's or the store's state)."""
    said = lesson.expected
    tree = "Path(folder, 'first')"
    changed = next(
        (
            (what, held)
            for what, held in _STATE.items()
            if lesson.headline == f"evaluate_run changed {what}, {_LEAVE}"
        ),
        None,
    )
    if changed is not None:
        what, held = changed
        before = [f"was = _canon(first[{held}])"]
        after = [
            f"assert _canon(first[{held}]) == was, (",
            f"    {f'evaluate_run changed {what}, {_LEAVE}'!r}",
            ")",
        ]
        name, says = "test_evaluation_changes_no_object", f"nothing of {what}"
    elif said == _NO_CALL:
        before = ["calls = _spy(*first)"]
        after = [
            "assert not calls, (",
            "    'got evaluate_run called ' + '; '.join(calls[:3]) + ', but should'",
            f"    {' be ' + _NO_CALL!r}",
            ")",
        ]
        name, says = "test_evaluation_calls_no_tool", "no workspace tool or put"
    elif said == _SAME_TREE:
        before = [f"was = _snapshot({tree})"]
        after = [
            f"changes = _changes(was, _snapshot({tree}))",
            "assert not changes, (",
            "    'got ' + '; '.join(changes[:4]) + ', but should be'",
            f"    {' ' + _SAME_TREE!r}",
            ")",
        ]
        name, says = "test_evaluation_changes_no_path", "no path of the tree"
    elif said.startswith(_TWICE):
        before = []
        after = [
            *_called(
                repr("report.render()"), "one_text", "one.render()", "return a string"
            ),
            *_called(
                repr("report.render()"), "two_text", "two.render()", "return a string"
            ),
            "assert (_rows(one), one_text) == (_rows(two), two_text), (",
            "    f'got the second time: {two_text!r:.300}, but should be the same"
            " report'",
            "    f' twice: {one_text!r:.300}'",
            ")",
        ]
        name, says = "test_evaluation_gives_one_report", "the same report twice"
    else:
        return None
    steps = [
        *before,
        *_evaluated("first", "one"),
        *_evaluated("first", "two"),
        *after,
    ]
    return _test(
        name,
        f"evaluate_run, called twice, gives {says}"
        if name.endswith("report")
        else f"evaluate_run, called twice, touches {says}",
        folder,
        [("build", world, None)],
        steps,
    )
