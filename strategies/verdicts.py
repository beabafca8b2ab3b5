"""Evaluate a built world, and compare the report with what the world makes true.

The one place a property calls `evaluate_run` and the one place it judges a
report against the truth, so every broken check reads the same way: the world
in words, the one fact behind the check, the check expected and the check
observed, the usual mistake behind that difference, and a few lines of Python
that rebuild the world and show the report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from strategies.fixes import placed
from strategies.lessons import (
    CallAborted,
    InvariantFailure,
    call_target,
    describing,
    fail,
    report_view,
)
from strategies.vocabulary import EVALUATE
from strategies.world import ExpectedCheck, World, about_check, describe

__all__ = [
    "Row",
    "assert_truth",
    "evaluate",
    "judged",
    "judging",
    "reproduction",
    "rows_without_tree",
    "shown_row",
    "verdict_cause",
]

Row = tuple[str, bool, str]


def shown_row(row: Row) -> str:
    name, passed, detail = row
    return f"{name}: {'PASS' if passed else 'FAIL'} ({detail})"


def rows_without_tree(rows: Sequence[Row], tree: Path) -> tuple[Row, ...]:
    """`rows` with the tree's absolute path in any detail replaced by <tree>.

    An unavailable check's detail may quote the absolute path of the file
    (an OSError's message does); two builds of one world differ only there.
    """
    spellings = sorted({str(tree), str(tree.resolve())}, key=len, reverse=True)
    cleaned = []
    for name, passed, detail in rows:
        for spelling in spellings:
            detail = detail.replace(spelling, "<tree>")
        cleaned.append((name, passed, detail))
    return tuple(cleaned)


def evaluate(target: Any, built: Any, *, run: Any = None, case: Any = None) -> Any:
    """The target's report on a built world (or on `run`/`case` instead of its own)."""
    __tracebackhide__ = True
    return call_target(
        EVALUATE,
        target.evaluate_run,
        built.run if run is None else run,
        built.workspace,
        built.receipts,
        built.case if case is None else case,
    )


# --- reproduction -------------------------------------------------------------------

_NAMES = re.compile(r"\b([A-Z][A-Za-z]+)\(")


def reproduction(
    world: World,
    target: Any,
    *,
    then: tuple[str, World, Sequence[Any] | None] | None = None,
) -> str:
    """A few lines of Python that rebuild `world` and print the target's report.

    `then` is (what changed, the world, the run's events or None) for a
    lesson about two evaluations (the world reordered, changed, its log
    damaged): the snippet prints the second report after the first, each
    under a line saying which it is, so the two can be compared.
    """
    label = getattr(target, "label", "")
    if label.startswith("folder "):
        load = f"load_target(impl_path={label.removeprefix('folder ')!r})"
    else:
        load = f"load_target(impl={label.removeprefix('module ') or 'evaluator'!r})"
    import strategies

    shown = repr(world)
    lines = [f"world = {shown}"]
    if then is None:
        lines += [
            "with materialise(world, target) as built:",
            "    print(target.evaluate_run(*built.args).render())",
        ]
    else:
        what, other, events = then
        other_shown = "world" if other == world else repr(other)
        shown += other_shown + repr(events)
        lines += [
            f"other = {other_shown}",
            f"events = {events!r}",
            "print('# world')",
            "with materialise(world, target) as built:",
            "    print(target.evaluate_run(*built.args).render())",
            f"print({'# ' + what!r})",
            "with materialise(other, target, events=events) as built:",
            "    print(target.evaluate_run(*built.args).render())",
        ]
    found = {name for name in _NAMES.findall(shown) if name in strategies.__all__}
    names = sorted({"materialise", "load_target", *found})
    return "\n".join(
        [f"from strategies import {', '.join(names)}", f"target = {load}", *lines]
    )


@contextmanager
def judging(
    world: World,
    target: Any,
    context: str = "",
    *,
    then: tuple[str, World, Sequence[Any] | None] | None = None,
) -> Iterator[None]:
    """Lessons raised inside say which world broke them, and how to rebuild it
    (and, with `then`, the second world they compare it with: `reproduction`)."""
    words = "\n".join(part for part in (describe(world), context) if part)
    try:
        with describing(words):  # a hang ends the test before Hypothesis prints
            yield
    except (InvariantFailure, CallAborted) as failure:
        # A wrong verdict of one check is told with that check's facts only.
        about = getattr(failure, "about", "")
        shown = about_check(words, about) if about else words
        if not failure.whole_world.startswith(shown):
            if shown != words:
                failure.unnarrowed = "\n".join(
                    part for part in (words, failure.whole_world) if part
                )
            failure.world = "\n".join(
                part for part in (shown, failure.whole_world) if part
            )
        if not failure.reproduce:
            failure.reproduce = reproduction(world, target, then=then)
        raise


# --- comparing with the truth --------------------------------------------------------


def _names_hint(observed: Sequence[str], expected: Sequence[str]) -> str:
    if sorted(observed) == sorted(expected):
        return (
            "checks come in the contract's order: final, then files, results and"
            " receipts, each group in case order (not sorted)"
        )
    if len(observed) == len(expected):
        return (
            "a file check is named file:<normalised path>, a result check"
            " result:<tool>, a receipt check receipt:<call id>"
        )
    return (
        "one check per declared fact: the final, every file, every result (a"
        " repeated one too) and every receipt"
    )


def _names_cause(observed: Sequence[str], expected: Sequence[str]) -> str:
    """The cause of a report whose checks are not the case's: their order,
    their names, or how many there are (as `_names_hint` tells them apart)."""
    if sorted(observed) == sorted(expected):
        return "names:order"
    if len(observed) == len(expected):
        return "names:spelling"
    return "names:one-per-fact"


def verdict_cause(check: ExpectedCheck, passed: object) -> str:
    """The cause of a check the truth does not accept: the check's group
    (final, file, result or receipt).

    Every invariant that meets a wrong verdict on this group (truth,
    independence, order-insensitivity, a real run) makes the same key, so
    the reports tell the mistake once, as a truth lesson naming them all.
    The group, not the fact's kind: one mistake in a check's code is wrong
    on many kinds of fact (a result check that wants results in order fails
    a repeated result, a reordered run and a real run's), and a learner
    should read it once. The right verdict in the wrong words is a mistake
    of its own. `passed` None: a verdict that changed where it should not
    (which side is wrong aside), a wrong verdict of the group.
    """
    group = (check.kind or check.name).split(":", 1)[0]
    if isinstance(passed, bool) and passed is check.passed:
        return f"detail:{group}"
    return f"check:{group}"


def assert_truth(
    report: Any,
    expected: Sequence[ExpectedCheck],
    *,
    world: str = "",
    level: str = "hardened",
    context: str = "",
    only: Callable[[ExpectedCheck], bool] | None = None,
) -> tuple[Row, ...]:
    """Assert `report` holds exactly the `expected` checks; return its rows.

    `level` is the target's: at the course level a failing check's wording
    is the learner's choice except for the prefixes the course relies on.
    `context` is added to the world's words (a reordering, a perturbation).
    `only` narrows which checks' verdicts and details are judged (the names
    and their order always are), so a property about one kind of evidence
    fails only for that kind.
    """
    __tracebackhide__ = True
    rows = report_view(report)
    words = "\n".join(part for part in (world, context) if part)
    names = [row[0] for row in rows]
    want = [check.name for check in expected]
    if names != want:
        fail(
            world=words,
            expected=f"checks [{', '.join(want)}]",
            observed=f"checks [{', '.join(names)}]",
            hint=placed(_names_hint(names, want), "evaluate_run"),
            cause=_names_cause(names, want),
        )
    for row, check in zip(rows, expected, strict=True):
        if only is not None and not only(check):
            continue
        if not check.accepts(row[1], row[2], level):
            about = "\n".join(
                part for part in (about_check(world, check.name), context) if part
            )
            behind = f"the fact behind {check.name}: {check.fact}"
            try:
                fail(
                    world=f"{about}\n{behind}".lstrip(),
                    expected=check.shown(level),
                    observed=shown_row(row),
                    hint=check.hint_for(row[1], level),
                    cause=verdict_cause(check, row[1]),
                )
            except InvariantFailure as failure:
                failure.about = check.name  # judging() shows only its facts
                raise
    return rows


def judged(target: Any, world: World, **build: Any) -> tuple[Row, ...]:
    """Build `world` afresh, evaluate it, and return its rows (the tree's path
    in any detail replaced by <tree>)."""
    __tracebackhide__ = True
    from strategies.build import materialise

    with judging(world, target), materialise(world, target, **build) as built:
        return rows_without_tree(report_view(evaluate(target, built)), built.tree)
