"""Task 7: evaluation is read-only: it changes nothing it is shown and calls no tool."""

from __future__ import annotations

import pytest
from _written_worlds import examples
from hypothesis import given, note

from judge import (
    call_target,
    evaluate,
    fail,
    judging,
    materialise,
    object_state,
    report_view,
    spy_on,
    tree_changes,
    tree_snapshot,
)
from judge.compared import read_only_test
from judge.fixes import placed
from judge.verdicts import evaluated_twice
from strategies import World, describe, worlds


@pytest.mark.invariant("read-only")
@examples(
    "everything at once",
    "receipt log missing",
    "receipts in memory",
    "receipt appended after the store was built",
    "receipt log stale_digest",
    "file exact_large",
    "file symlink_inside",
    "events handed over as a list",
    # A mismatching write's receipt: its arguments popped in place shows.
    "receipt of a write mismatching, in memory",
    # A final substring with spaces at its ends: trimming it in place shows.
    "final padded_edges",
)
@given(world=worlds())
def test_evaluation_changes_nothing_and_calls_no_tool(target, world: World) -> None:
    """Evaluating leaves every byte and path of the tree, the run, the workspace,
    the store and the approvals as they were, calls no tool, and gives the same
    report twice.

    Task 7 (keep evaluation read-only): the evaluator judges evidence; it must
    not sort the run's events (handed over as a list, numbered downwards),
    replace a field of the run, the case or the store, change the process's
    working directory or environment, create the receipt log
    (a missing log stays missing), append to it, put a receipt, touch a file,
    or call workspace.read_file, whose remembered read would let a later edit
    through, nor execute, write_file, edit_file, run_command, list_files or
    the approval callback.
    """
    note(describe(world))
    _read_only(target, world)


def _read_only(target, world: World) -> None:
    """The property on one world: its lesson, told again on a smaller world
    that gives the same one (judging's `again`)."""
    words = describe(world)

    def plain(folder: str, lesson) -> str | None:
        return read_only_test(world, lesson, folder=folder)

    def again(smaller: World) -> None:
        _read_only(target, smaller)

    with (
        judging(world, target, body=evaluated_twice, plain=plain, again=again),
        materialise(world, target) as built,
    ):
        calls = spy_on(built)
        tree_before = tree_snapshot(built.tree)
        state_before = object_state(built)
        first = evaluate(target, built)
        first_rows = report_view(first)
        first_text = call_target("report.render()", first.render)
        second = evaluate(target, built)
        second_rows = report_view(second)
        second_text = call_target("report.render()", second.render)
        changes = tree_changes(
            tree_before, tree_snapshot(built.tree), root=built.root.name
        )
        state_after = object_state(built)
        _judge(words, calls, changes, state_before, state_after)
        if first_rows != second_rows or first_text != second_text:
            fail(
                world=words,
                expected=f"the same report twice: {first_text!r:.300}",
                observed=f"the second time: {second_text!r:.300}",
                hint=placed(
                    "evaluation must not depend on (or leave behind) state of its own",
                    "evaluate_run",
                ),
            )


def _judge(words, calls, changes, state_before, state_after) -> None:
    __tracebackhide__ = True
    if calls:
        fail(
            world=words,
            expected="no call of a workspace tool or of the store's put",
            observed=f"evaluate_run called {'; '.join(calls[:3])}",
            hint=placed(
                "read evidence with workspace.resolve_path and plain bytes; reload"
                " receipts with a fresh ReceiptStore(path); never use the tools"
                " (read_file remembers what it read) or put()",
                "evaluate_run",
            ),
        )
    if changes:
        fail(
            world=words,
            expected="the temporary tree unchanged (workspace, log and siblings)",
            observed="; ".join(changes[:4]),
            hint=placed(
                "open evidence read-only; a missing log must stay missing (do not"
                " open it with 'a' or create it to read it)",
                "evaluate_run",
            ),
        )
    for what, before in state_before.items():
        if state_after[what] != before:
            difference = _difference(before, state_after[what])
            # Plain values and mappings say in a few words what changed; a
            # whole run or case does not, so its headline only names it.
            plain = isinstance(before, (dict, str, int, tuple))
            shown = f" ({difference})" if plain else ""
            fail(
                world=words,
                expected=f"{what} unchanged by evaluation",
                observed=difference,
                headline=f"evaluate_run changed {what}{shown}, which it should"
                " leave as it was",
                hint=placed(
                    "evaluation only reads: it must not mutate the run (no"
                    " events.sort(), no replaced field), the case, the workspace or"
                    " the store, nor ask for approval, nor change the process's"
                    " directory (os.chdir) or environment",
                    "evaluate_run",
                ),
            )


def _difference(before: object, after: object) -> str:
    """What changed, readably: for a mapping (the environment, an object's
    attributes) only the keys whose values differ."""
    if isinstance(before, dict) and isinstance(after, dict):
        changed = sorted(
            {*before, *after} - {k for k in before if after.get(k, _GONE) == before[k]},
            key=str,
        )
        return "; ".join(
            f"{key!s}: before {before.get(key, _GONE)!r:.80}, after"
            f" {after.get(key, _GONE)!r:.80}"
            for key in changed[:4]
        )
    return f"before: {before!r:.200}; after: {after!r:.200}"


class _Gone:
    def __repr__(self) -> str:
        return "(not set)"


_GONE = _Gone()
