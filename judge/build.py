"""The way of one world: drawn, worked out, made real for one target.

    with materialise(world, target) as built:
        report = evaluate(target, built)

The one builder of the suite (drawn, hostile and real-run worlds alike), and
the one module where a world's way to the target's calls reads whole, step by
step in `build_in`:

    1. judge.evidence  what to make of the world, worked out in one pure step
    2. judge.layout    its files (or a real run's first files) and the log's
                       folder, laid out under a fresh tree, never a link followed
    3. judge.store     the policy and the target's store in one request (the
                       store writes the log); the judge then checks the log, and
                       damages or replaces it
    4. judge.steps     the workspace, the run and the case, as the target's own
                       objects, in one request; or, for a real run, judge.play:
                       the target's run_agent plays the plan, then the case

Every call into the target goes through `call_target`, so a Day 1-6 name
that is missing, raises or hangs becomes a lesson about the substrate, said
once, instead of an internal error. Only the target's own names are used:
`ToolPolicy`, `Workspace`, `ReceiptStore`, `EffectReceipt`, `AgentEvent`,
`AgentRun`, `ToolAction`, `FinalAction`, the case types and, for real runs,
`AgentLimits`, `ApprovalDecision` and `run_agent`.

The tree, under one fresh directory:

    ws--.../           the workspace root, ROOT_BYTES long (file facts; maybe the log)
    ws--.../_real/     targets of symlinks that stay inside the root
    outside/           targets of symlinks that leave the root (secrets)
    logs/receipts.jsonl  the log when it sits beside the root
    _scratch/          where single log lines are written by the target's store
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judge import remote, safefs
from judge.built import Built, refusing, scratch_parent
from judge.evidence import EventSpec, World, evidence
from judge.fixes import change_for, placed
from judge.layout import lay_out
from judge.lessons import InvariantFailure, called
from judge.play import play_plan
from judge.remote import Ref
from judge.steps import (
    add_case,
    add_run,
    add_workspace,
    make_case,
    policy_step,
    results,
)
from judge.store import add_store, finish_log, raising_get

__all__ = ["build_in", "materialise"]


def build_in(
    world: World, target: Any, tree: Path, *, events: Sequence[EventSpec] | None = None
) -> Built:
    """Build `world` for `target` in the empty (or absent) directory `tree`.

    `events` replaces the world's canonical events (a reordering, say).
    Raises InvariantFailure, about the substrate, when the target cannot
    build it.
    """
    made = evidence(world, tree, events)
    root = tree / made.root
    root.mkdir(parents=True)
    built = Built(made, tree, root)
    log, play = made.log, made.play
    try:
        built.secrets.extend(lay_out(tree, made.files).secrets)
        remote.give_to_worker(tree)
        # Two requests a world, not one per constructor: the policy, the
        # store and its receipts first, since the log they write is checked
        # (and damaged, or replaced) before anything else is built; then the
        # rest: the workspace, the run and the case, or a real run played.
        steps = [policy_step(target, root, play)]
        store = add_store(log, target, built, steps)
        policy, built.receipts = results(steps, [Ref(0), store])
        finish_log(log, target, built)
        if play is not None:
            play_plan(play, target, built, policy)
            built.case = make_case(target, made.case)
        else:
            steps = []
            same = log.workspace_store == "same"
            workspace = add_workspace(
                target,
                (policy, refusing(built.approvals), built.receipts if same else None),
                steps,
            )
            assert made.run is not None
            run = add_run(target, made.run, steps)
            case = add_case(target, made.case, steps)
            built.workspace, built.run, built.case = results(
                steps, [workspace, run, case]
            )
        if log.get is not None:
            built.receipts.get = raising_get(target, log.get)
    except InvariantFailure as failure:
        raise _substrate_lesson(made.description, failure) from failure
    return built


_CASE_STEPS = (
    "EvaluationCase",
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
)


def _substrate_lesson(world: str, failure: InvariantFailure) -> InvariantFailure:
    """The lesson of a world (`world`: in words) the target could not build."""
    if failure.topic == "surface":
        return failure  # a missing name says so itself
    if failure.observed.split("(", 1)[0].startswith(_CASE_STEPS):
        hint = placed(
            "a valid case must be accepted: only blank required strings, bad"
            " paths, bad exit states, wrong group types and duplicates are refused",
            change_for(failure.observed),
        )
        topic = "day7"
        cause = failure.cause
    else:
        hint = failure.hint or placed(
            "the Day 1-6 names (ToolPolicy, Workspace, ReceiptStore, EffectReceipt,"
            " AgentEvent, AgentRun, ToolAction, FinalAction) must work before Day 7"
            " can be judged",
            change_for(failure.observed),
        )
        topic = "substrate"
        # The broken Day 1-6 name, whatever it did wrong and in whichever
        # invariant: the learner fixes that name, once.
        cause = (
            failure.cause
            if failure.cause.startswith("substrate:")
            else f"substrate:{called(failure.observed)}"
        )
    return InvariantFailure(
        world=world,
        expected=f"{failure.expected} to build the world",
        observed=failure.observed,
        headline=f"could not build the world through the target: {failure.observed}",
        hint=hint,
        topic=topic,
        cause=cause,
    )


@contextmanager
def materialise(
    world: World, target: Any, *, events: Sequence[EventSpec] | None = None
) -> Iterator[Built]:
    """Build `world` for `target` in a fresh temporary directory, removed after.

    The process's working directory is put back afterwards: a target that
    changed into the tree (the read-only invariant says so) must not leave the
    next world in a directory that no longer exists.
    """
    directory = os.getcwd()
    try:
        # The directory holding the tree stays the judge's (the worker can
        # pass it, not change it): the tree can never be swapped for a link.
        with tempfile.TemporaryDirectory(prefix="day7-", dir=scratch_parent()) as tree:
            try:
                yield build_in(world, target, Path(tree) / "w", events=events)
            finally:
                # The worker may still be changing the tree: removed through
                # descriptors (shutil.rmtree, TemporaryDirectory's own, opens
                # a folder swapped for a FIFO or a device before checking);
                # the cleanup then finds an empty directory.
                with safefs.opened(tree) as tree_fd:
                    for name in os.listdir(tree_fd):
                        safefs.remove_tree(tree_fd, name)
    finally:
        os.chdir(directory)
