"""Task 7: evaluation is read-only: it changes nothing it is shown and calls no tool."""

from __future__ import annotations

import pytest
from hypothesis import given, note

from strategies.build import materialise
from strategies.facts import World, describe
from strategies.lessons import call_target, fail, report_view
from strategies.snapshot import object_state, spy_on, tree_changes, tree_snapshot
from strategies.worlds import examples, worlds

EVALUATE = "evaluate_run(run, workspace, receipts, case)"


@pytest.mark.invariant("read-only")
@examples(
    "everything at once",
    "receipt log missing",
    "receipts in memory",
    "receipt appended after the store was built",
    "receipt log stale_digest",
    "file exact_large",
    "file symlink_inside",
)
@given(world=worlds())
def test_evaluation_changes_nothing_and_calls_no_tool(target, world: World) -> None:
    """Evaluating leaves every byte and path of the tree, the run, the workspace,
    the store and the approvals as they were, calls no tool, and gives the same
    report twice.

    Task 7 (keep evaluation read-only): the evaluator judges evidence; it must
    not create the receipt log (a missing log stays missing), append to it, put
    a receipt, touch a file, or call workspace.read_file, whose remembered read
    would let a later edit through, nor execute, write_file, edit_file,
    run_command, list_files or the approval callback.
    """
    words = describe(world)
    note(words)
    with materialise(world, target) as built:
        calls = spy_on(built)
        tree_before = tree_snapshot(built.tree)
        state_before = object_state(built)
        first = call_target(EVALUATE, target.evaluate_run, *built.args)
        first_rows = report_view(first)
        first_text = call_target("report.render()", first.render)
        second = call_target(EVALUATE, target.evaluate_run, *built.args)
        second_rows = report_view(second)
        second_text = call_target("report.render()", second.render)
        changes = tree_changes(tree_before, tree_snapshot(built.tree))
        state_after = object_state(built)
    if calls:
        fail(
            world=words,
            expected="no call of a workspace tool or of the store's put",
            observed=f"evaluate_run called {'; '.join(calls[:3])}",
            hint="read evidence with workspace.resolve_path and plain bytes; reload"
            " receipts with a fresh ReceiptStore(path); never use the tools"
            " (read_file remembers what it read) or put()",
        )
    if changes:
        fail(
            world=words,
            expected="the temporary tree unchanged (workspace, log and siblings)",
            observed="; ".join(changes[:4]),
            hint="open evidence read-only; a missing log must stay missing (do not"
            " open it with 'a' or create it to read it)",
        )
    for what, before in state_before.items():
        if state_after[what] != before:
            fail(
                world=words,
                expected=f"{what} unchanged by evaluation",
                observed=f"before: {before!r:.200}; after: {state_after[what]!r:.200}",
                hint="evaluation only reads: it must not mutate the run, the"
                " workspace, the store or ask for approval",
            )
    if first_rows != second_rows or first_text != second_text:
        fail(
            world=words,
            expected=f"the same report twice: {first_text!r:.300}",
            observed=f"the second time: {second_text!r:.300}",
            hint="evaluation must not depend on (or leave behind) state of its own",
        )
