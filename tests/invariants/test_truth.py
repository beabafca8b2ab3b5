"""Task 2-5: every check of the report says exactly what the world makes true."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _written_worlds import EXAMPLE_WORLDS, examples
from hypothesis import example, given, note
from hypothesis import strategies as st

from judge import (
    assert_truth,
    evaluate,
    fail,
    judged,
    judging,
    materialise,
    shown_row,
    verdict_cause,
)
from judge.compared import store_kinds_test
from judge.fixes import placed
from strategies import World, describe, log_facts, truth, worlds


@pytest.mark.invariant("truth")
@examples()
@given(world=worlds(long_runs=True))
def test_every_check_says_what_the_world_makes_true(target, world: World) -> None:
    """Every check passes or fails exactly as the world's facts say, with the
    contract's detail.

    Tasks 2-5 (final answer, workspace state, result evidence, receipts): a
    final substring in a completed run, exact file bytes, one event holding
    both tool and substring, and a stored receipt's four facts. The world was
    drawn knowing each verdict, so a check that disagrees is the evaluator's
    mistake, never the oracle's. At the course level a failing check's words
    are the learner's own, except the prefixes the course relies on.
    """
    note(describe(world))
    with judging(world, target), materialise(world, target) as built:
        assert_truth(evaluate(target, built), truth(world), level=target.level)


def _as_path_store(world: World, location: str) -> tuple[World, World]:
    log = replace(world.log, store="path", location=location)
    return world, replace(world, log=log)


_STORE_PAIRS = st.builds(
    _as_path_store,
    worlds(
        max_files=1,
        stored=("put", "absent"),
        logs=log_facts(stores=("memory",), gets=(None,)),
    ),
    st.sampled_from(("inside", "beside")),
)


def _in_memory(name: str, location: str) -> tuple[World, World]:
    world = EXAMPLE_WORLDS[name]
    memory = replace(world, log=replace(world.log, store="memory"))
    return _as_path_store(memory, location)


@pytest.mark.invariant("store-kinds")
@example(pair=_in_memory("everything at once", "beside"))
@example(pair=_in_memory("final incomplete_without_final", "inside"))
@example(pair=_in_memory("receipt absent", "inside"))
@given(pair=_STORE_PAIRS)
def test_memory_and_path_stores_give_the_same_report(target, pair) -> None:
    """The same receipts give the same report whether the store is in memory or
    over a log.

    Task 5 (receipts): evaluation asks an in-memory store directly and reloads
    a path store from its log; both hold the same receipts here, so no check
    may tell them apart.
    """
    memory_world, path_world = pair
    note(describe(path_world))
    _same_stores(target, memory_world, path_world.log.location)


def _same_stores(target, memory_world: World, location: str) -> None:
    """The property on one world: its lesson, told again on a smaller world
    that gives the same one, from a fresh process (judging's `again`)."""
    _, path_world = _as_path_store(memory_world, location)
    in_memory, over_log = (judged(target, w) for w in (memory_world, path_world))
    over = ("the same world with its receipts over a log", path_world, None)

    def plain(folder: str, lesson) -> str:
        return store_kinds_test(
            memory_world, path_world, truth(path_world), target.level, folder=folder
        )

    def again(smaller: World) -> None:
        _same_stores(target, smaller, location)

    with judging(memory_world, target, then=over, plain=plain, again=again):
        _assert_same_reports(in_memory, over_log, memory_world, path_world, target)


def _assert_same_reports(in_memory, over_log, memory_world, path_world, target):
    """Every check of the two reports alike, and as many of them."""
    rows = zip(in_memory, over_log, truth(path_world), strict=False)
    for memory_row, log_row, check in rows:
        if not check.same(memory_row, log_row, target.level):
            fail(
                world=describe(memory_world),
                expected=f"with a path store too: {shown_row(memory_row)}",
                observed=f"with a path store: {shown_row(log_row)}",
                hint=placed(
                    "reload a path store with ReceiptStore(receipts.path) and"
                    " ask an in-memory one directly; the same receipts give the"
                    " same verdicts",
                    "evaluate_run",
                ),
                # Which side is wrong aside: a wrong verdict of the group,
                # told once with truth's and independence's.
                cause=verdict_cause(check, None),
            )
    if len(in_memory) != len(over_log):
        fail(
            world=describe(memory_world),
            expected=f"{len(in_memory)} checks with either store",
            observed=f"{len(in_memory)} with a memory store, {len(over_log)} with"
            " a path store",
            hint=placed(
                "one check per declared fact, whichever store holds the receipts",
                "evaluate_run",
            ),
        )
