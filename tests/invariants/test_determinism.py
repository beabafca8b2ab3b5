"""Task 6: equal inputs give equal reports: a function of the evidence alone."""

from __future__ import annotations

import pytest
from hypothesis import given, note

from strategies.build import materialise
from strategies.facts import World, describe
from strategies.lessons import call_target, fail, report_view
from strategies.verdicts import rows_without_tree
from strategies.worlds import examples, worlds

EVALUATE = "evaluate_run(run, workspace, receipts, case)"


def _evaluated(target, world: World) -> tuple[tuple, str]:
    with materialise(world, target) as built:
        report = call_target(EVALUATE, target.evaluate_run, *built.args)
        rows = report_view(report)
        text = call_target("report.render()", report.render)
        # Details may quote the tree's absolute path; the two trees differ
        # only there.
        rows = rows_without_tree(rows, built.tree)
        for spelling in sorted({str(built.tree), str(built.tree.resolve())}, key=len)[
            ::-1
        ]:
            text = text.replace(spelling, "<tree>")
    return rows, text


@pytest.mark.invariant("determinism")
@examples("everything at once", "file directory", "receipt log conflict")
@given(world=worlds())
def test_equal_inputs_built_afresh_give_equal_reports(target, world: World) -> None:
    """The same world built afresh in two new directories gives equal reports
    and renderings.

    Task 6 (a stable report): the report is a function of the declared case
    and the observed evidence only: no clock, no randomness, no hash order, no
    memory of an earlier evaluation. Otherwise a passing case could fail on a
    re-run and a diff of two reports would mean nothing.
    """
    note(describe(world))
    first_rows, first_text = _evaluated(target, world)
    second_rows, second_text = _evaluated(target, world)
    if first_rows != second_rows or first_text != second_text:
        fail(
            world=describe(world),
            expected=f"the same report again: {first_text!r:.400}",
            observed=f"{second_text!r:.400}",
            hint="build the report only from the case and the evidence; iterate"
            " the case's tuples in order, never a set",
        )
