"""Compare a target's report with what a world makes true, and say why it differs.

Every property that judges a report against the world's truth comes here,
so every broken check reads the same way: the world in words, the one fact
behind the check, the check expected and the check observed, and the usual
mistake behind that difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from strategies.facts import ExpectedCheck
from strategies.lessons import fail, report_view

__all__ = ["Row", "assert_truth", "rows_without_tree", "shown_row"]

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


def assert_truth(
    report: Any,
    expected: Sequence[ExpectedCheck],
    *,
    world: str,
    context: str = "",
    only: Callable[[ExpectedCheck], bool] | None = None,
) -> tuple[Row, ...]:
    """Assert `report` holds exactly the `expected` checks; return its rows.

    `context` is added to the world's words (a reordering, a perturbation).
    `only` narrows which checks' verdicts and details are judged (the names
    and their order always are), so a property about one kind of evidence
    fails only for that kind.
    """
    __tracebackhide__ = True
    rows = report_view(report)
    words = f"{world}\n{context}" if context else world
    names = [row[0] for row in rows]
    want = [check.name for check in expected]
    if names != want:
        fail(
            world=words,
            expected=f"checks [{', '.join(want)}]",
            observed=f"checks [{', '.join(names)}]",
            hint=_names_hint(names, want),
        )
    for row, check in zip(rows, expected, strict=True):
        if only is not None and not only(check):
            continue
        if not check.accepts(row[1], row[2]):
            fail(
                world=f"{words}\nthe fact behind {check.name}: {check.fact}",
                expected=check.shown(),
                observed=shown_row(row),
                hint=check.hint,
            )
    return rows
