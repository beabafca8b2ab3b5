"""Read-only evaluation of real runs: nothing the run left behind changes.

Day 7 task 7: "Calling evaluate_run must leave the run, workspace bytes,
modified-file list, approval history, and receipt bytes unchanged. It invokes
no model, tool, or approval callback." These properties need runs made by
the target's own loop (a live workspace with its read state, an approval
history, a model that was called); properties over drawn worlds cover the
rest of read-only behaviour.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, note

from judge import (
    InvariantFailure,
    call_target,
    evaluate,
    fail,
    judging,
    materialise,
    object_state,
    report_view,
    rewrite_in_root,
    shown_row,
    spy_on,
    tree_changes,
    tree_snapshot,
)
from judge.fixes import placed
from judge.verdicts import calling, evaluated_twice
from strategies import (
    CHAPTER_WORLD,
    EFFECTS_WORLD,
    RICH_WORLD,
    FileFact,
    FinalFact,
    LogFact,
    Plan,
    ReadFile,
    ReceiptFact,
    SeedFile,
    World,
    describe,
    played_world,
    played_worlds,
    real_runs,
    with_written_worlds,
)
from strategies.vocabulary import EVALUATE

#: A read-only plan with the log beside the root: no effect is approved, so
#: the log must still not exist after evaluation.
NO_LOG_WORLD = played_world(
    Plan(files=(SeedFile("a.txt", "one\n"),), steps=(ReadFile("a.txt"),)),
    FinalFact(marker="@a"),
    LogFact("path", "beside"),
)

#: A file the run never reads beside one it reads: the smallest world where
#: evaluation could hand the workspace a read it never made.
UNREAD_WORLD = played_world(
    Plan(
        files=(SeedFile("a.txt", "one\n"), SeedFile("b.md", "two\n")),
        steps=(ReadFile("a.txt"),),
    ),
    FinalFact(marker="@u"),
    LogFact("path", "beside"),
)


def _probing(world: World) -> World:
    """The world plus two facts that make the evaluator look for evidence that
    is not there: a file never created and a receipt never written."""
    unused = sum(
        type(step).__name__
        in ("EditFile", "WriteFile", "RunCommand", "Denied", "Refused")
        for step in world.plan.steps
    )
    missing = FileFact(len(world.files), ("missing.txt",), "missing", "absent\n")
    absent = ReceiptFact(
        f"call-{unused + 1}", "edit_file", "ok", (), "edited", "absent"
    )
    return replace(
        world, files=(*world.files, missing), receipts=(*world.receipts, absent)
    )


def _state(built) -> dict[str, object]:
    """Everything evaluation is handed or could reach, as comparable copies."""
    return {
        **object_state(built),
        "the approvals asked for": list(built.approvals),
        "the model's calls": built.model.calls,
    }


def _evaluate_spied(target, built):
    """Evaluate with the workspace's tools and the store's `put` spied on (the
    calls still happen); fail if any was called."""
    calls = spy_on(built)
    failure: InvariantFailure | None = None
    report = None
    try:
        report = evaluate(target, built)
    except InvariantFailure as raised:
        failure = raised
    if calls:
        fail(
            world="",
            expected="no call to a workspace tool or to receipts.put",
            observed="calls to " + ", ".join(dict.fromkeys(calls)),
            headline="evaluate_run called "
            + ", ".join(dict.fromkeys(calls))
            + ", but should call no tool and no put",
            hint=placed(
                "read file evidence through workspace.resolve_path and the bytes"
                " on disk, never through the stateful read_file tool; look receipts up"
                " (a fresh ReceiptStore(path) for a log), never put or execute",
                "evaluate_run",
            ),
        )
    if failure is not None:
        raise failure
    return report_view(report)


@pytest.mark.invariant("read-only-real-runs")
@real_runs()
@given(world=played_worlds())
@with_written_worlds(NO_LOG_WORLD, CHAPTER_WORLD, EFFECTS_WORLD, RICH_WORLD)
def test_evaluating_a_real_run_changes_nothing(target, world: World):
    """Evaluating a real run changes no byte or path of its directory, the
    run, the store, the approvals or the model's calls, and calls no tool.

    Day 7 task 7: evaluation is read-only. The whole temporary tree (root,
    log and siblings: bytes, which paths exist, modification times) is
    compared before and after, with the workspace's tools and the store's
    `put` replaced by recording wrappers; the case also names a missing file
    and a receipt never written, so the evaluator looks for both. Evaluating
    twice gives the same report. Why it matters: a judge that edits, touches,
    creates the log, re-runs a tool or appends a receipt changes the evidence
    it judges and the next evaluation with it.
    """
    world = _probing(world)
    note(describe(world))
    with (
        judging(world, target, body=evaluated_twice),
        materialise(world, target) as built,
    ):
        tree = tree_snapshot(built.tree)
        before = _state(built)
        first = _evaluate_spied(target, built)
        changes = tree_changes(tree, tree_snapshot(built.tree), root=built.root.name)
        if changes:
            fail(
                world="",
                expected="no change to any byte, time or path of the temporary tree",
                observed="; ".join(changes),
                headline="evaluate_run changed the tree: " + "; ".join(changes[:3]),
                hint=placed(
                    "open evidence for reading only; a missing receipt log is an"
                    " empty store, never a file to create (no open(..., 'a'), no"
                    " touch)",
                    "evaluate_run",
                ),
            )
        after = _state(built)
        for name, value in before.items():
            if after[name] != value:
                fail(
                    world="",
                    expected=f"{name} unchanged: {value!r:.300}",
                    observed=f"{name} now {after[name]!r:.300}",
                    headline=f"evaluate_run changed {name}, which it should leave"
                    " as it was",
                    hint=placed(
                        "evaluation reads the run and the store; it never calls the"
                        " model or the approval callback and never rewrites anything",
                        "evaluate_run",
                    ),
                )
        second = _evaluate_spied(target, built)
        if second != first:
            fail(
                world="",
                expected="the same report again:\n"
                + "\n".join(shown_row(row) for row in first),
                observed="\n".join(shown_row(row) for row in second),
                hint=placed(
                    "evaluation must depend only on the run, the files, the log and"
                    " the case, all unchanged between the two calls",
                    "evaluate_run",
                ),
            )


def _attempt_edits(target, built, probes: dict[str, str]) -> dict[str, object]:
    """What `workspace.execute` answers to an approved edit of each probed file
    (replacing its whole current text, which occurs exactly once)."""
    workspace = built.workspace
    approver = workspace.confirm_tool
    workspace.confirm_tool = lambda action: True
    try:
        answers = {}
        for path, text in probes.items():
            action = call_target(
                f"ToolAction('edit_file', {{'path': {path!r}, ...}})",
                target.ToolAction,
                "edit_file",
                {"path": path, "old": text, "new": text + "!"},
            )
            answers[path] = call_target(
                "workspace.execute(edit)", workspace.execute, action
            )
        return answers
    finally:
        workspace.confirm_tool = approver


def _edits_around_evaluation(topic: str) -> list[str]:
    """A snippet's lines, as the test: the files probed (the run's read ones
    changed on disk), an approved edit of each tried before and after
    evaluate_run, and what the workspace answered after it."""
    evaluated = calling(EVALUATE, "target.evaluate_run", "*built.args", topic)
    return [
        "probes = {}",
        "for path, text in built.outcome.files:",
        "    if path not in built.outcome.observed and text:",
        "        probes[path] = text",
        "    elif path in built.outcome.observed:",
        "        probes[path] = text + '~'  # changed behind the workspace's back",
        "        rewrite_in_root(built, path, probes[path].encode('utf-8'))",
        "built.workspace.confirm_tool = lambda action: True",
        "def edits():",
        "    return {",
        "        path: built.workspace.execute(target.ToolAction(",
        "            'edit_file', {'path': path, 'old': text, 'new': text + '!'}",
        "        ))",
        "        for path, text in probes.items()",
        "    }",
        "print('before evaluate_run:', edits())",
        f"report = {evaluated}",
        "for path, answer in edits().items():",
        "    if not str(answer).startswith('error:'):",
        "        print(f'the workspace accepting it after evaluate_run: {answer!r}')",
    ]


def _refused(answer: object) -> bool:
    return isinstance(answer, str) and answer.startswith("error:")


@pytest.mark.invariant("read-state-kept")
@real_runs()
@given(world=played_worlds(min_steps=1, untouched_files=1))
@with_written_worlds(UNREAD_WORLD, RICH_WORLD)
def test_evaluation_keeps_the_workspace_read_state(target, world: World):
    """An edit the workspace refuses before evaluation (a file never read, or
    changed on disk since it was read) is still refused after it.

    Day 7 tasks 3 and 7: file evidence is resolved through the workspace
    boundary (`resolve_path`) and read from disk, "never through the
    stateful read_file tool". The case checks a file the run never read and
    every file the run read, each rewritten on disk after the run; an
    approved edit of each is refused before evaluation and must still be
    refused after it. Why it matters: `read_file` records what was read, so
    an evaluator that calls it quietly authorises the next edit of a file
    nobody looked at, or of one changed behind the agent's back.
    """
    note(describe(world))
    with (
        judging(world, target, body=_edits_around_evaluation),
        materialise(world, target) as built,
    ):
        outcome = built.outcome
        probes: dict[str, str] = {}
        for path, text in outcome.files:
            if path not in outcome.observed and text:
                probes[path] = text
            elif path in outcome.observed:
                probes[path] = text + "~"  # changed behind the workspace's back
                # Through the judge's descriptors: the root is the worker's.
                rewrite_in_root(built, path, probes[path].encode("utf-8"))
        context = "after the run, on disk: " + ", ".join(
            f"{path} = {text!r}" for path, text in probes.items()
        )
        before = _attempt_edits(target, built, probes)
        accepted = [path for path, answer in before.items() if not _refused(answer)]
        if accepted:
            fail(
                world=context,
                expected="a refusal from the workspace (error: ...) for an edit of a"
                " file it never read or that changed since it was read",
                headline=f"the workspace accepted an edit of {accepted[0]} before any"
                " evaluation, but should refuse it (never read, or changed since)",
                observed=f"the workspace accepting an edit of {accepted[0]} before any"
                f" evaluation: {before[accepted[0]]!r}",
                hint=placed(
                    "Day 3: write_file and edit_file refuse a file not read before"
                    " or changed since; finish the workspace before Day 7",
                    "Workspace.edit_file",
                ),
            )
        evaluate(target, built)
        after = _attempt_edits(target, built, probes)
        accepted = [path for path, answer in after.items() if not _refused(answer)]
        if accepted:
            fail(
                world=context,
                expected=f"the edit of {accepted[0]} refused after evaluate_run, as"
                " it was before",
                headline=f"after evaluate_run the workspace accepted an edit of"
                f" {accepted[0]} it refused before, but should still refuse it",
                observed=f"the workspace accepting it after evaluate_run:"
                f" {after[accepted[0]]!r}",
                hint=placed(
                    "evaluation read the file through the stateful"
                    " workspace.read_file, which records it as read; resolve the path"
                    " with workspace.resolve_path and read the bytes instead",
                    "evaluate_run",
                ),
            )
