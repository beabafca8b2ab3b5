"""Task 7: each wrong fact fails its own named check and no other."""

from __future__ import annotations

import pytest
from hypothesis import example, given, note

from strategies.build import materialise
from strategies.facts import (
    FileFact,
    FinalFact,
    LogFact,
    ReceiptFact,
    ResultFact,
    World,
    describe,
    truth,
)
from strategies.lessons import call_target, fail, report_view
from strategies.perturb import Perturbation, perturbations, perturbed_worlds
from strategies.verdicts import rows_without_tree, shown_row
from strategies.worlds import marker, passing_worlds

EVALUATE = "evaluate_run(run, workspace, receipts, case)"

# A small world whose every check passes, with a fact of each group: each of
# its perturbations is kept as an explicit example.
_BASE = World(
    final=FinalFact("embedded", marker(0)),
    files=(
        FileFact(0, ("src", "app0.py"), "exact", "answer = 2\n"),
        FileFact(1, ("docs", "b1.md"), "exact_crlf", "one\ntwo\n", "dot_slash"),
    ),
    results=(
        ResultFact("run_command", "after_decoy", marker(1), "edit_file", repeat=True),
    ),
    receipts=(
        ReceiptFact(
            "call-1", "edit_file", "ok", ("src/app.py", "docs/b.md"), "match", marker(2)
        ),
        ReceiptFact("call-2", "run_command", "error", (), "match", marker(3)),
    ),
    log=LogFact(location="beside"),
)


def _with_examples(test):
    for perturbation in reversed(perturbations(_BASE)):
        test = example(pair=(_BASE, perturbation))(test)
    return test


def _rows(target, world: World):
    with materialise(world, target) as built:
        report = call_target(EVALUATE, target.evaluate_run, *built.args)
        return rows_without_tree(report_view(report), built.tree)


@pytest.mark.invariant("independence")
@_with_examples
@given(pair=perturbed_worlds(passing_worlds(max_files=2, max_results=2)))
def test_one_changed_fact_flips_its_own_check_and_no_other(target, pair) -> None:
    """Changing one fact of a passing world, in the case or in the world, flips
    exactly that fact's check and leaves every other check as it was.

    Task 7 (keep evaluation honest): a wrong final, file, result or receipt
    fails its own named check. An evaluator whose checks leak into one
    another (a shared flag, a file read reused for the next path, a receipt
    compared with the wrong expectation) blames the wrong fact.
    """
    world, perturbation = pair
    assert isinstance(perturbation, Perturbation)
    words = describe(world)
    note(words)
    note(f"perturbation: {perturbation}")
    before = _rows(target, world)
    after = _rows(target, perturbation.world)
    context = f"{words}\nperturbation: {perturbation}"
    if [row[0] for row in before] != [row[0] for row in after]:
        fail(
            world=context,
            expected=f"the same checks: {[row[0] for row in before]}",
            observed=f"{[row[0] for row in after]}",
            hint="a check's name comes from the declared fact, not from what was"
            " observed",
        )
    expected_before = truth(world)
    expected_after = truth(perturbation.world)
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if index in perturbation.checks:
            # A base check that is already wrong is the truth invariant's
            # lesson; a flip is only owed by a check that was right.
            if old[1] is expected_before[index].passed and old[1] is new[1]:
                fail(
                    world=context,
                    expected=f"{old[0]} to flip: {expected_after[index].shown()}",
                    observed=f"before: {shown_row(old)}; after: {shown_row(new)}",
                    hint=expected_after[index].hint,
                )
        elif old != new:
            fail(
                world=context,
                expected=f"{old[0]} unchanged: {shown_row(old)}",
                observed=f"after the change: {shown_row(new)}",
                hint="each check looks only at its own fact: one wrong fact must"
                " not change another check's verdict or detail",
            )
