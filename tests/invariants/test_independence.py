"""Task 7: each wrong fact fails its own named check and no other."""

from __future__ import annotations

import pytest
from hypothesis import given, note

from judge import assert_names, fail, judged, judging, shown_row, verdict_cause
from judge.compared import independence_test
from judge.fixes import hint_for, placed
from strategies import (
    PASSING_WORLD,
    Perturbation,
    describe,
    passing_worlds,
    perturbed_worlds,
    truth,
    with_perturbations,
)


@pytest.mark.invariant("independence")
@with_perturbations(PASSING_WORLD)
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
    note(describe(world))
    note(f"perturbation: {perturbation}")
    before = judged(target, world)
    after = judged(target, perturbation.world)
    context = f"{describe(world)}\nperturbation: {perturbation}"
    # The snippet rebuilds both worlds and prints both reports.
    changed = (f"after the change: {perturbation}", perturbation.world, None)

    def plain(folder: str, lesson) -> str:
        return independence_test(
            world,
            perturbation.world,
            perturbation.checks,
            truth(perturbation.world),
            target.level,
            folder=folder,
        )

    # A report whose checks are not the case's is the names lesson, told
    # once with report-shape's: compared position by position, a misordered
    # report would pair other checks and blame a leak between them.
    for rows, each in ((before, world), (after, perturbation.world)):
        with judging(each, target):
            want = [check.name for check in truth(each)]
            assert_names(rows, want, world=describe(each), level=target.level)
    with judging(
        world, target, f"perturbation: {perturbation}", then=changed, plain=plain
    ):
        if [row[0] for row in before] != [row[0] for row in after]:
            fail(
                world=context,
                expected=f"the same checks: {[row[0] for row in before]}",
                observed=f"{[row[0] for row in after]}",
                hint=placed(
                    "a check's name comes from the declared fact, not from what was"
                    " observed",
                    "evaluate_run",
                ),
            )
        was, now = truth(world), truth(perturbation.world)
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if index in perturbation.checks:
                # A base check that is already wrong is the truth invariant's
                # lesson; a flip is only owed by a check that was right.
                if was[index].accepts(*old[1:], target.level) and old[1] is new[1]:
                    # The changed fact's verdict is wrong against its own truth:
                    # the same mistake the truth invariant reports for that kind
                    # of fact, so it carries the truth's cause and is told there.
                    fail(
                        world=context,
                        expected=f"{old[0]} to flip: {now[index].shown(target.level)}",
                        observed=f"before: {shown_row(old)}; after: {shown_row(new)}",
                        hint=hint_for(now[index], new[1], target.level),
                        cause=verdict_cause(now[index], None),
                    )
            elif not now[index].same(old, new, target.level):
                fail(
                    world=context,
                    expected=f"{old[0]} left as the world says, before and after:"
                    f" {now[index].shown(target.level)}",
                    observed=f"before the change: {shown_row(old)}; after:"
                    f" {shown_row(new)}",
                    hint=placed(
                        "each check looks only at its own fact: one wrong fact must"
                        " not change another check's verdict or detail",
                        "evaluate_run",
                    ),
                    # The check that changed is the one whose code is wrong.
                    cause=verdict_cause(now[index], None),
                )
