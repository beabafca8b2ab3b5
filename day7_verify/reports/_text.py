"""What the command prints: one learner's verdict and lessons, or a class's table.

For one learner the verdict comes first, then the lessons, most basic first
(what to act on, before anything else), then one line per invariant: when
the Day 1-6 names the judge needs are broken that is said once, first,
instead of once per invariant it spoils; every other lesson once per cause
(day7_verify/reports/_causes.py), naming the invariants that cause breaks, with its
reproduction snippet; no traceback. `quiet` keeps the verdict line only.
`verbose` adds what was expected and observed, Hypothesis's example and
every lesson, and the last lines the child printed.

For a class, a table of learner x invariant that stays readable with thirty
invariants: one mark per invariant, numbered columns, and a legend.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from day7_verify.reports._report import ClassReport, LearnerVerdict, short_names
from day7_verify.reports._run import heredoc_end, runnable
from day7_verify.reports._safe import terminal_text
from day7_verify.reports._width import clip_left, pad
from day7_verify.reports._width import width as columns
from judge.lessons import PLAIN_MARK, REDRAW_MARK

__all__ = [
    "MARKS",
    "class_lines",
    "gone_lines",
    "heredoc_end",
    "learner_lines",
    "ordered_lessons",
    "runnable",
    "score_words",
    "seed_line",
    "verdict_line",
]

#: One character per invariant status in the class table.
MARKS: dict[str, str] = {
    "pass": ".",
    "fail": "x",
    "skip": "-",
    "not-run": "?",
    "incomplete": "!",
    "timeout": "T",
    "crashed": "C",
    "out-of-memory": "M",
}
#: With a baseline, these replace the mark of a changed invariant.
CHANGE_MARKS: dict[str, str] = {"newly failing": "X", "fixed": "+"}

_SUBSTRATE = "substrate"
# How judge/build.py words a world the target's Day 1-6 names could not
# build, for suites whose lessons do not carry their topic yet.
_BUILD_FAILED = "could not build the world through the target"
_INDENT = "   "


def _status_word(status: str) -> str:
    return status.upper()


def ordered_lessons(
    lessons: Sequence[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(substrate lessons, the others): each (headline, world) once, in order.

    The suite lists lessons most basic invariant first; that order is kept.
    """
    seen: set[tuple[str, str]] = set()
    substrate: list[Mapping[str, Any]] = []
    others: list[Mapping[str, Any]] = []
    for lesson in lessons:
        key = (str(lesson.get("headline", "")), str(lesson.get("world", "")))
        if key in seen:
            continue
        seen.add(key)
        (substrate if _is_substrate(lesson) else others).append(lesson)
    return substrate, others


def _is_substrate(lesson: Mapping[str, Any]) -> bool:
    topic = lesson.get("topic")
    if topic == _SUBSTRATE:
        return True
    headline = str(lesson.get("headline", ""))
    return topic in (None, "", "day7") and headline.startswith(_BUILD_FAILED)


def _block(label: str, text: str, indent: str = _INDENT) -> list[str]:
    text = text.rstrip()
    if not text:
        return []
    lines = text.splitlines()
    if len(lines) == 1 and len(label) + len(lines[0]) < 90:
        return [f"{indent}{label}: {lines[0]}"]
    return [f"{indent}{label}:"] + [f"{indent}    {line}" for line in lines]


# The suite's note on other failing examples names a pytest option that
# day7-verify does not take (it would refuse it as bad usage).
_OTHERS_FAILED = re.compile(
    r"\(note: (?P<count>\d+) other explicit (?P<noun>examples?) also failed with"
    r" this error; add --hypothesis-verbosity=verbose to see them\)"
)


def _for_the_command(note: str, path: str) -> str:
    """`note` with advice true of day7-verify: the pytest run that shows them."""
    return _OTHERS_FAILED.sub(
        lambda match: (
            f"(note: {match['count']} other explicit {match['noun']} also"
            " failed with this error; day7-verify does not show them:"
            f" `pytest tests --impl-path {shlex.quote(path)}"
            " --hypothesis-verbosity=verbose`"
            " in a clone of day7-verify does)"
        ),
        note,
    )


def _reproduce_block(snippet: str) -> list[str]:
    """The lesson's snippet, as the command that runs it."""
    if not snippet.strip():
        return []
    if snippet.startswith(PLAIN_MARK) or snippet.startswith(REDRAW_MARK):
        # A test the learner keeps (judge/snippets.py): plain Python that
        # says on its first lines where to save it and how to run it; or
        # the day7-verify line that draws a world no test file builds.
        return [f"{_INDENT}reproduce:", *snippet.rstrip().splitlines()]
    # Not indented like the other fields: a heredoc ends at a line that is
    # exactly EOF, and Python refuses an indented first line.
    return [
        f"{_INDENT}reproduce (paste these lines into a shell as they are):",
        *runnable(snippet).splitlines(),
    ]


def _lesson_lines(
    number: int, lesson: Mapping[str, Any], verbose: bool, path: str = "DIR"
) -> list[str]:
    invariant = str(lesson.get("invariant", ""))
    headline = str(lesson.get("headline", "")).strip() or "(no headline)"
    first, *rest = headline.splitlines()
    lines = [f"{number}. {invariant + ': ' if invariant else ''}{first}"]
    lines += [f"{_INDENT}{line}" for line in rest]
    breaks = [str(name) for name in lesson.get("invariants") or ()]
    if len(breaks) > 1:
        lines += textwrap.wrap(
            f"breaks: {', '.join(breaks)}",
            88,
            initial_indent=_INDENT,
            subsequent_indent=_INDENT + "  ",
        )
    whole = str(lesson.get("whole_world", "")) if verbose else ""
    lines += _block("world", whole or str(lesson.get("world", "")))
    if verbose:
        lines += _block("expected", str(lesson.get("expected", "")))
        lines += _block("observed", str(lesson.get("observed", "")))
    lines += _block("hint", str(lesson.get("hint", "")))
    lines += _reproduce_block(str(lesson.get("reproduce", "")))
    if verbose:
        lines += _block("test", str(lesson.get("test", "")))
        notes = [
            _for_the_command(str(n), path)
            for n in lesson.get("example", ())
            if not str(n).startswith("Explanation:")
        ]
        lines += _block("example", "\n".join(str(n) for n in notes))
    return lines


def learner_lines(
    verdict: LearnerVerdict,
    level: str,
    verbose: bool = False,
    quiet: bool = False,
    isolation: str | None = None,
    seed: int | None = None,
    not_for_grading: str | None = None,
    profile: str = "ci",
) -> list[str]:
    """One learner's verdict as the terminal shows it, one string per line.

    The verdict line, then the lessons, then the per-invariant rows: a learner
    reads from the top, so what to fix comes before the table of what holds.
    """
    if quiet:
        # The one line left says the isolation too.
        return [verdict_line(verdict, isolation)]
    lines = [verdict_line(verdict)]
    if isolation is not None:
        lines.append(f"  judged under {isolation} isolation")
    if not_for_grading is not None:
        lines.append(f"  not for grading: {not_for_grading}")
    if verdict.status == "error":
        # Nothing was drawn: no seed to draw again, no invariant to list.
        lines.append("  no invariant was judged: the folder must load first")
    elif seed is not None:
        lines.append(seed_line(verdict.path, seed, level, profile))
    lines += _lessons_section(verdict, verbose)
    lines += _invariant_rows(verdict, level)
    if verdict.output_tail and (verbose or verdict.status not in ("pass", "fail")):
        lines += ["", "last lines it printed:"]
        lines += [f"{_INDENT}{line}" for line in verdict.output_tail.splitlines()]
    # A learner's text is data: no line it wrote reaches the terminal raw.
    return [terminal_text(line) for line in lines]


def seed_line(path: str, seed: int, level: str = "course", profile: str = "ci") -> str:
    """The run's seed, and the command that judges `path` again with it (at
    the level and profile it was judged with: another draws other examples)."""
    at = "" if level == "course" else f" --level {shlex.quote(level)}"
    if profile != "ci":
        at += f" --profile {shlex.quote(profile)}"
    return (
        f"  seed {seed}: `day7-verify {shlex.quote(path)}{at} --seed {seed}`"
        " draws the same examples again"
    )


def verdict_line(verdict: LearnerVerdict, isolation: str | None = None) -> str:
    """The one line that says a learner's status, where, why, its score and how
    long (and, given, the isolation it was judged under)."""
    under = f", {isolation} isolation" if isolation is not None else ""
    return terminal_text(
        f"day7-verify: {_status_word(verdict.status)}  {verdict.path}:"
        f" {verdict.detail}{score_words(verdict)} ({verdict.seconds:.1f} s{under})"
    )


def score_words(verdict: LearnerVerdict) -> str:
    """`; score P% (E of W points)`, or nothing for a verdict without a score."""
    if verdict.score is None:
        return ""
    return (
        f"; score {verdict.score['percent']:.1f}%"
        f" ({_points(verdict.score['earned'])} of"
        f" {_points(verdict.score['possible'])} points)"
    )


def _points(value: float) -> str:
    """A number of points as short as it is exact (12, 12.5, 12.25)."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _invariant_rows(verdict: LearnerVerdict, level: str) -> list[str]:
    """One row per judged invariant (status, name, statement), and the skipped."""
    skipped = [name for name, status in verdict.invariants if status == "skip"]
    shown = [(name, status) for name, status in verdict.invariants if status != "skip"]
    width = max((len(name) for name, _ in shown), default=0)
    status_width = max((len(status) for _, status in shown), default=0)
    lines: list[str] = []
    if verdict.invariants:
        lines.append("")
    for name, status in shown:
        statement = verdict.statements.get(name, "")
        lines.append(
            f"  {status.upper():<{status_width}}  {name:<{width}}  {statement}".rstrip()
        )
    if skipped:
        lines.append(
            f"  not judged at the {level} level: {', '.join(skipped)}"
            + (" (--level hardened adds them)" if level == "course" else "")
        )
    return lines


def _lessons_section(verdict: LearnerVerdict, verbose: bool) -> list[str]:
    substrate, others = ordered_lessons(verdict.lessons)
    if not substrate and not others:
        return []
    lines = ["", "What to fix, most basic first:"]
    number = 0
    if substrate:
        number += 1
        spoiled = sorted(
            {
                str(name)
                for lesson in substrate
                for name in lesson.get("invariants") or [lesson.get("invariant", "")]
            }
            - {""}
        )
        first = substrate[0]
        lines.append("")
        lines.append(
            f"{number}. The Day 1-6 names the judge needs are broken, so"
            f" {len(spoiled)} invariant(s) could not be judged; fix these first."
        )
        lines += textwrap.wrap(
            str(first.get("headline", "")),
            88,
            initial_indent=_INDENT,
            subsequent_indent=_INDENT,
        )
        lines += _block("hint", str(first.get("hint", "")))
        lines += _reproduce_block(str(first.get("reproduce", "")))
        # Every other broken Day 1-6 name, one line each with its place: a
        # learner fixing the first must know the others are broken too.
        told = {_substrate_name(first)}
        for lesson in substrate[1:]:
            if _substrate_name(lesson) in told:
                continue  # the same name, met in another world
            told.add(_substrate_name(lesson))
            place = _place(lesson)
            place = f"; {place}" if place else ""
            lines += textwrap.wrap(
                f"also: {lesson.get('invariant')}: {lesson.get('headline')}{place}",
                88,
                initial_indent=_INDENT,
                subsequent_indent=_INDENT + "  ",
            )
    # One entry per cause: the verdict already holds one lesson per cause,
    # at most a bounded number (day7_verify/reports/_causes.py).
    for lesson in others:
        number += 1
        lines.append("")
        lines += _lesson_lines(number, lesson, verbose, verdict.path)
    return lines


def _place(lesson: Mapping[str, Any]) -> str:
    """The "change <name> in <file>" a lesson's hint ends with, or ""."""
    place = str(lesson.get("hint", "")).rpartition("; ")[2]
    return place if place.startswith("change ") else ""


def _substrate_name(lesson: Mapping[str, Any]) -> str:
    """What a substrate lesson is about: its place, else its headline's start."""
    return _place(lesson) or str(lesson.get("headline", "")).split(":", 1)[0]


def _ellipsised(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _cell(learner: LearnerVerdict, name: str) -> str:
    status = learner.invariant_status(name)
    if status is None:
        return " "
    if learner.baseline is not None:
        change = learner.baseline.get("invariants", {}).get(name)
        if change in CHANGE_MARKS:
            return CHANGE_MARKS[change]
    return MARKS.get(status, "?")


def _grouped(marks: Sequence[str]) -> str:
    return " ".join("".join(marks[i : i + 5]) for i in range(0, len(marks), 5))


def class_lines(report: ClassReport, jobs: int | None = None) -> list[str]:
    """The class's table: learner x invariant, status, seconds, score, and a legend."""
    names = report.invariant_names()
    learners = report.learners
    passed = sum(learner.passed for learner in learners)
    settings = report.settings
    how = f"{settings.get('level')} level, {settings.get('profile')} profile"
    how += f", {settings.get('isolation', 'process')} isolation"
    if settings.get("seed") is not None:
        how += f", seed {settings.get('seed')}"
    if jobs is not None:
        how += f", {jobs} job(s)"
    lines = [
        f"day7-verify: {passed} of {len(learners)} learner(s) pass ({how},"
        f" {report.seconds:.1f} s)",
        "",
    ]
    if settings.get("not_for_grading"):
        lines[1:1] = [f"not for grading: {terminal_text(settings['not_for_grading'])}"]
    with_baseline = any(learner.baseline is not None for learner in learners)
    # A report written before scores has none: no column then.
    with_score = any(learner.score is not None for learner in learners)
    prefix, short = short_names([learner.path for learner in learners])
    short = {path: terminal_text(name) for path, name in short.items()}
    if prefix:
        lines.insert(1, terminal_text(f"learners under {prefix}/"))
    # Terminal columns, not code points: accented, CJK and emoji names too.
    width = min(40, max([len("learner"), *(columns(name) for name in short.values())]))
    change_width = 14 if with_baseline else 0
    numbers = [str(index + 1) for index in range(len(names))]
    header = f"{'learner':<{width}}  {'status':<13} {'seconds':>7}  "
    if with_score:
        header += f"{'score':>6}  "
    if with_baseline:
        header += f"{'change':<{change_width}}  "
    if any(len(number) > 1 for number in numbers):
        tens = [number[-2] if len(number) > 1 else " " for number in numbers]
        lines.append(" " * len(header) + _grouped(tens))
    lines.append((header + _grouped([number[-1] for number in numbers])).rstrip())
    for learner in learners:
        row = (
            f"{pad(clip_left(short[learner.path], width), width)}  {learner.status:<13}"
            f" {learner.seconds:>7.1f}  "
        )
        if with_score:
            percent = "" if learner.score is None else f"{learner.score['percent']:.1f}"
            row += f"{percent:>6}  "
        if with_baseline:
            change = (learner.baseline or {}).get("change", "")
            row += f"{change:<{change_width}}  "
        row += _grouped([_cell(learner, name) for name in names])
        lines.append(row.rstrip())
    if names:
        lines.append("")
        # A no-break space holds each number to its name (and mark to its
        # status) when the legend wraps.
        legend = "  ".join(
            f"{number}\xa0{name}" for number, name in zip(numbers, names, strict=True)
        )
        marks = "  ".join(f"{mark}\xa0{status}" for status, mark in MARKS.items())
        if with_baseline:
            marks += "  X\xa0newly\xa0failing  +\xa0fixed"
        for text in (f"invariants: {legend}", f"marks: {marks}"):
            wrapped = textwrap.wrap(
                text, 100, subsequent_indent="  ", break_on_hyphens=False
            )
            lines += [line.replace("\xa0", " ") for line in wrapped]
    lines += gone_lines(report)
    return [terminal_text(line) for line in lines]


def gone_lines(report: ClassReport) -> list[str]:
    """The learners the baseline judged whose folder is no longer there."""
    if not report.gone:
        return []
    return [
        "",
        f"gone since the baseline ({len(report.gone)}): judged then, their folder"
        " is no longer there",
        *(terminal_text(f"  {path}  (was {status})") for path, status in report.gone),
    ]
