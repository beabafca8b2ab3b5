"""Read-only evaluation of real runs: nothing the run left behind changes.

Day 7 task 7: "Calling evaluate_run must leave the run, workspace bytes,
modified-file list, approval history, and receipt bytes unchanged. It invokes
no model, tool, or approval callback." These properties need runs made by
the target's own loop (a live workspace with its read state, an approval
history, a model that was called); properties over drawn worlds cover the
rest of read-only behaviour.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, note, settings

from strategies.lessons import InvariantFailure, call_target, fail, report_view
from strategies.runs import (
    CHAPTER_PLAN,
    EFFECTS_PLAN,
    RICH_PLAN,
    CaseFacts,
    FileFact,
    Plan,
    ReadFile,
    ReceiptFact,
    SeedFile,
    case_facts,
    describe_plan,
    describe_world,
    judge,
    materialise_run,
    plans,
    verdicts,
    with_written_plans,
)
from strategies.snapshot import object_state, spy_on, tree_changes, tree_snapshot

# Every example starts the target's loop and up to two interpreter processes
# (about 20 ms each), so these properties draw a quarter of the profile's
# examples (25 under `ci`); the written-out plans hold every step kind and
# every kind of store, so finding a mistake does not hinge on the count.
RUNS = settings(max_examples=max(10, settings.default.max_examples // 4))

#: A file no plan ever creates: its expectation makes the evaluator look for
#: a missing file, which it must not create.
MISSING = "missing.txt"

#: A read-only plan with the log beside the root: no effect is approved, so
#: the log must still not exist after evaluation.
NO_LOG_PLAN = Plan(
    files=(SeedFile("a.txt", "one\n"),),
    steps=(ReadFile("a.txt"),),
    final="done:@a.",
    marker="@a",
)


#: A file the run never reads beside one it reads: the smallest world where
#: evaluation could hand the workspace a read it never made.
UNREAD_PLAN = Plan(
    files=(SeedFile("a.txt", "one\n"), SeedFile("b.md", "two\n")),
    steps=(ReadFile("a.txt"),),
    final="done:@u.",
    marker="@u",
)


def _probing_facts(facts: CaseFacts, real) -> CaseFacts:
    """The plan's case plus two facts that make the evaluator look for
    evidence that is not there: a missing file and a receipt never written."""
    unused = len(real.outcome.receipts) + len(real.outcome.unused_call_ids) + 1
    return CaseFacts(
        facts.final_contains,
        (*facts.files, FileFact(MISSING, "absent\n")),
        facts.results,
        (*facts.receipts, ReceiptFact(f"call-{unused}", "edit_file", "ok", "edited")),
    )


def _state(real) -> dict[str, object]:
    """Everything evaluation is handed or could reach, as comparable copies."""
    return {
        **object_state(real),
        "the approvals asked for": list(real.approver.seen),
        "the model's calls": real.model.calls,
    }


def _evaluate_spied(target, real, facts: CaseFacts):
    """Evaluate with the workspace's tools and the store's `put` spied on
    (the calls still happen); fail if any was called."""
    calls = spy_on(real)
    failure: InvariantFailure | None = None
    report = None
    try:
        report = judge(target, real, facts)
    except InvariantFailure as raised:
        failure = raised
    if calls:
        fail(
            world=describe_world(real, facts),
            expected="no call to a workspace tool or to receipts.put",
            observed="calls to " + ", ".join(dict.fromkeys(calls)),
            hint="read file evidence through workspace.resolve_path and the bytes"
            " on disk, never through the stateful read_file tool; look receipts up"
            " (a fresh ReceiptStore(path) for a log), never put or execute",
        )
    if failure is not None:
        raise failure
    return report


@pytest.mark.invariant("read-only-real-runs")
@RUNS
@given(plan=plans())
@with_written_plans(NO_LOG_PLAN, CHAPTER_PLAN, EFFECTS_PLAN, RICH_PLAN)
def test_evaluating_a_real_run_changes_nothing(target, plan):
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
    note(describe_plan(plan))
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, plan, Path(directory))
        facts = _probing_facts(case_facts(plan, real.outcome), real)
        world = describe_world(real, facts)
        tree = tree_snapshot(real.top)
        before = _state(real)
        first = report_view(_evaluate_spied(target, real, facts))
        changes = tree_changes(tree, tree_snapshot(real.top))
        if changes:
            fail(
                world=world,
                expected="no change to any byte, time or path of the temporary tree",
                observed="; ".join(changes),
                hint="open evidence for reading only; a missing receipt log is an"
                " empty store, never a file to create (no open(..., 'a'), no touch)",
            )
        after = _state(real)
        for name, value in before.items():
            if after[name] != value:
                fail(
                    world=world,
                    expected=f"{name} unchanged: {value!r}",
                    observed=f"{name} now {after[name]!r}",
                    hint="evaluation reads the run and the store; it never calls the"
                    " model or the approval callback and never rewrites anything",
                )
        second = report_view(_evaluate_spied(target, real, facts))
        if second != first:
            fail(
                world=world,
                expected=f"the same report again:\n{verdicts(first)}",
                observed=verdicts(second),
                hint="evaluation must depend only on the run, the files, the log and"
                " the case, all unchanged between the two calls",
            )


def _edit_probe(target, path: str, text: str):
    return call_target(
        f"ToolAction('edit_file', {{'path': {path!r}, ...}})",
        target.ToolAction,
        "edit_file",
        {"path": path, "old": text, "new": text + "!"},
    )


def _attempt_edits(target, real, probes: dict[str, str]) -> dict[str, str]:
    """What `workspace.execute` answers to an approved edit of each probed
    file (replacing its whole current text, which occurs exactly once)."""
    workspace = real.workspace
    approver = workspace.confirm_tool
    workspace.confirm_tool = lambda action: True
    try:
        return {
            path: call_target(
                "workspace.execute(edit)",
                workspace.execute,
                _edit_probe(target, path, text),
            )
            for path, text in probes.items()
        }
    finally:
        workspace.confirm_tool = approver


def _refused(answer: object) -> bool:
    return isinstance(answer, str) and answer.startswith("error:")


@pytest.mark.invariant("read-state-kept")
@RUNS
@given(plan=plans(min_steps=1, untouched_files=1))
@with_written_plans(UNREAD_PLAN, RICH_PLAN)
def test_evaluation_keeps_the_workspace_read_state(target, plan):
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
    note(describe_plan(plan))
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, plan, Path(directory))
        files = dict(real.outcome.files)
        probes: dict[str, str] = {}
        for path, text in files.items():
            if path not in real.outcome.observed and text:
                probes[path] = text
            elif path in real.outcome.observed:
                probes[path] = text + "~"  # changed behind the workspace's back
                (real.root / path).write_bytes(probes[path].encode("utf-8"))
        facts = case_facts(plan, real.outcome)
        facts = CaseFacts(
            facts.final_contains,
            tuple(FileFact(f.path, probes.get(f.path, f.content)) for f in facts.files),
            facts.results,
            facts.receipts,
        )
        world = describe_world(real, facts) + "\nafter the run, on disk: "
        world += ", ".join(f"{path} = {text!r}" for path, text in probes.items())
        before = _attempt_edits(target, real, probes)
        accepted = [path for path, answer in before.items() if not _refused(answer)]
        if accepted:
            fail(
                world=world,
                expected="a refusal from the workspace (error: ...) for an edit of a"
                " file it never read or that changed since it was read",
                observed=f"the workspace accepting an edit of {accepted[0]} before any"
                f" evaluation: {before[accepted[0]]!r}",
                hint="Day 3: write_file and edit_file refuse a file not read before"
                " or changed since; finish the workspace before Day 7",
            )
        report_view(judge(target, real, facts))
        after = _attempt_edits(target, real, probes)
        accepted = [path for path, answer in after.items() if not _refused(answer)]
        if accepted:
            fail(
                world=world,
                expected=f"the edit of {accepted[0]} refused after evaluate_run, as"
                " it was before",
                observed=f"the workspace accepting it after evaluate_run:"
                f" {after[accepted[0]]!r}",
                hint="evaluation read the file through the stateful"
                " workspace.read_file, which records it as read; resolve the path"
                " with workspace.resolve_path and read the bytes instead",
            )
