"""Task 5: a damaged receipt log is evidence of nothing: every receipt check fails."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from _written_worlds import EXAMPLE_WORLDS, LOG_EXAMPLES
from hypothesis import given, note
from hypothesis import strategies as st

from judge import (
    InvariantFailure,
    assert_truth,
    evaluate,
    evidence_bytes,
    fail,
    judging,
    materialise,
    report_view,
    rewrite_evidence,
    rows_without_tree,
    seen_wrong,
    shown_row,
    verdict_cause,
)
from judge.compared import tampered_test
from judge.fixes import hint_for, placed
from strategies import (
    LogDamage,
    World,
    describe,
    examples_of,
    log_damages,
    log_facts,
    passing_worlds,
    truth,
)
from strategies.logs import KEYS, damage_effect
from strategies.rewrites import REWRITE_WAYS


@dataclass(frozen=True)
class Tampering:
    """A passing world over a log, the same world with its log damaged, and
    the way the damaged bytes are also written over the clean log."""

    clean: World
    tampered: World
    way: str = "overwritten"


def _tampered(world: World, damage: LogDamage, way: str = "overwritten") -> Tampering:
    return Tampering(world, replace(world, log=replace(world.log, damage=damage)), way)


_CLEAN = passing_worlds(
    max_files=1,
    min_receipts=1,
    logs=log_facts(
        stores=("path",), damages=st.just(LogDamage()), traps=(), gets=(None,)
    ),
)
_TAMPERINGS = st.builds(
    _tampered,
    _CLEAN,
    log_damages(("unavailable",)),
    st.sampled_from(list(REWRITE_WAYS)),
)


def _example(damage: LogDamage) -> Tampering:
    # Line 0 is the unrelated receipt's: the declared ones sit on intact lines.
    clean = EXAMPLE_WORLDS["receipt log non_json"]
    return _tampered(replace(clean, log=replace(clean.log, damage=LogDamage())), damage)


def _with_examples(test):
    everything = EXAMPLE_WORLDS["everything at once"]
    broken = [d for d in LOG_EXAMPLES.values() if damage_effect(d) == "unavailable"]
    cases = [
        _tampered(everything, LOG_EXAMPLES[k]) for k in ("stale_digest", "non_json")
    ]
    cases += [_example(damage) for damage in broken]
    cases += [_example(LogDamage("key", arg=key)) for key in KEYS]
    cases += [_example(LogDamage("field", arg=key)) for key in KEYS]
    return examples_of(cases, "case")(test)


@pytest.mark.invariant("tampered-log")
@_with_examples
@given(case=_TAMPERINGS)
def test_a_tampered_log_fails_every_receipt_check_and_nothing_else(
    target, case: Tampering
) -> None:
    """The same log that passes every receipt check untouched fails all of them,
    with 'receipt evidence unavailable: ...', once any line of it is damaged.

    Task 5 (receipts): a log is trusted whole or not at all, so evaluation
    reloads it through a fresh ReceiptStore(path) instead of trusting the store
    it was handed (which loaded the log before it changed). A damaged line of
    another receipt still makes every receipt unavailable; the final, file and
    result checks do not change. The damaged bytes are also written over the
    clean log after its evaluation (in the same inode or a new one, the times
    put back) and evaluated again with the same store: a log parsed once and
    kept by its path, size or time would still pass.
    """
    words = describe(case.tampered)
    note(words)
    with judging(case.tampered, target), materialise(case.tampered, target) as built:
        tampered = evaluate(target, built)
        rows = rows_without_tree(report_view(tampered), built.tree)
        damaged = evidence_bytes(built, built.log_at) if built.log_at else None
    with judging(case.clean, target), materialise(case.clean, target) as built:
        clean = evaluate(target, built)
        clean_rows = rows_without_tree(report_view(clean), built.tree)
        _assert_receipts(clean, case.clean, target.level)
        if isinstance(damaged, bytes) and _receipts_right(tampered, case, target):
            _damaged_in_place(target, case, built, damaged)
    # Both worlds rebuilt: the report on the damaged log, then on the same
    # log untouched, for the checks that should not have changed.
    untouched = ("the same world with its log untouched", case.clean, None)

    def plain(folder: str, lesson) -> str:
        return tampered_test(
            case.clean, case.tampered, truth(case.tampered), target.level, folder=folder
        )

    with judging(case.tampered, target, then=untouched, plain=plain):
        if len(rows) != len(clean_rows):
            fail(
                world=words,
                expected=f"{len(clean_rows)} checks, as with the log untouched",
                observed=f"{len(rows)} checks",
                hint=placed(
                    "damage to the log fails receipt checks; it removes none",
                    "evaluate_run",
                ),
            )
        for before, after, check in zip(
            clean_rows, rows, truth(case.tampered), strict=True
        ):
            if not before[0].startswith("receipt:") and not check.same(
                before, after, target.level
            ):
                fail(
                    world=words,
                    expected=f"{before[0]} unchanged: {shown_row(before)}",
                    observed=f"with the log damaged: {shown_row(after)}",
                    hint=placed(
                        "only receipt checks depend on the receipt log", "evaluate_run"
                    ),
                )
    with judging(case.tampered, target):
        _assert_receipts(tampered, case.tampered, target.level)


def _receipts_right(tampered, case: Tampering, target) -> bool:
    """Whether the damaged log built afresh got its receipt checks right: only
    then is a wrong verdict on it rewritten in place a matter of state (else
    the lesson is this invariant's own, told below)."""
    try:
        _assert_receipts(tampered, case.tampered, target.level)
    except InvariantFailure:
        return False
    return True


def _damaged_in_place(target, case: Tampering, built, damaged: bytes) -> None:
    """The clean log, just evaluated, given the damaged log's bytes (times put
    back) must fail every receipt check when evaluated again."""
    again = (
        f"evaluated after the same world with its log untouched, whose bytes were"
        f" then replaced by the damaged log's ({REWRITE_WAYS[case.way]}), its"
        " modification and access times put back"
    )
    # Its test evaluates the clean world, then writes the damaged log's
    # bytes over the clean one as here (judge/snippets.py).
    way = (("log", 0), case.way)
    with judging(case.tampered, target, again, before=case.clean, rewrite=way):
        rewrite_evidence(built, built.log_at, damaged, case.way)
        try:
            _assert_receipts(evaluate(target, built), case.tampered, target.level)
        except InvariantFailure as wrong:
            wrong.cause = "stateless:kept-evidence"
            wrong.hint = (
                "a log kept by its path, size, inode or modification time cannot"
                f" see it rewritten in place with its times put back; {wrong.hint}"
            )
            raise


def _assert_receipts(report, world: World, level: str) -> None:
    """The receipt checks agree with the truth; the others are not judged here."""
    __tracebackhide__ = True
    rows = report_view(report)
    expected = truth(world)
    if [row[0] for row in rows] != [check.name for check in expected]:
        # Checks missing, misnamed or out of order: told as the names
        # lesson every invariant gives (its cause, its plain test).
        assert_truth(report, expected, level=level)
    for row, check in zip(rows, expected, strict=True):
        if check.name.startswith("receipt:") and (
            row[0] != check.name or not check.accepts(row[1], row[2], level)
        ):
            try:
                behind = f"the fact behind {check.name}: {check.fact}"
                fail(
                    world=f"{describe(world)}\n{behind}",
                    expected=check.shown(level),
                    observed=shown_row(row),
                    hint=hint_for(check, row[1], level),
                    cause=verdict_cause(check, row[1]),
                )
            except InvariantFailure as failure:
                if row[0] == check.name:
                    seen_wrong(failure, check, row, level)  # told small, as truth's
                raise
