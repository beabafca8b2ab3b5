"""Task 2-5: every check of the report says exactly what the world makes true."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given, note
from hypothesis import strategies as st

from strategies.build import materialise
from strategies.facts import World, describe, truth
from strategies.lessons import call_target, fail, report_view
from strategies.verdicts import assert_truth, rows_without_tree, shown_row
from strategies.worlds import EXAMPLE_WORLDS, examples, log_facts, worlds

EVALUATE = "evaluate_run(run, workspace, receipts, case)"


@pytest.mark.invariant("truth")
@examples()
@given(world=worlds())
def test_every_check_says_what_the_world_makes_true(target, world: World) -> None:
    """Every check passes or fails exactly as the world's facts say, with the
    contract's detail.

    Tasks 2-5 (final answer, workspace state, result evidence, receipts): a
    final substring in a completed run, exact file bytes, one event holding
    both tool and substring, and a stored receipt's four facts. The world was
    drawn knowing each verdict, so a check that disagrees is the evaluator's
    mistake, never the oracle's.
    """
    note(describe(world))
    with materialise(world, target) as built:
        report = call_target(EVALUATE, target.evaluate_run, *built.args)
        assert_truth(report, truth(world), world=describe(world))


def _as_path_store(world: World, location: str) -> tuple[World, World]:
    log = replace(world.log, store="path", location=location)
    return world, replace(world, log=log)


_STORE_PAIRS = st.builds(
    _as_path_store,
    worlds(
        max_files=1,
        stored=("put", "absent"),
        logs=log_facts(stores=("memory",), get_errors=(None,)),
    ),
    st.sampled_from(("inside", "beside")),
)


def _in_memory(name: str, location: str) -> tuple[World, World]:
    world = EXAMPLE_WORLDS[name]
    memory = replace(world, log=replace(world.log, store="memory", tamper="none"))
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
    rows = []
    for world in pair:
        with materialise(world, target) as built:
            report = call_target(EVALUATE, target.evaluate_run, *built.args)
            rows.append(rows_without_tree(report_view(report), built.tree))
    if rows[0] != rows[1]:
        for in_memory, over_log in zip(rows[0], rows[1], strict=False):
            if in_memory != over_log:
                fail(
                    world=describe(memory_world),
                    expected=f"with a path store too: {shown_row(in_memory)}",
                    observed=f"with a path store: {shown_row(over_log)}",
                    hint="reload a path store with ReceiptStore(receipts.path) and"
                    " ask an in-memory one directly; the same receipts give the"
                    " same verdicts",
                )
        fail(
            world=describe(memory_world),
            expected=f"{len(rows[0])} checks with either store",
            observed=f"{len(rows[0])} with a memory store, {len(rows[1])} with a path"
            " store",
        )
