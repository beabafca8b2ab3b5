"""The way of one world: drawn, worked out, made real for one target.

    with materialise(world, target) as built:
        report = evaluate(target, built)

The one builder of the suite (drawn, hostile and real-run worlds alike), and
the one module where a world's way to the target's calls reads whole, step by
step in `build_in`:

    1. judge.evidence  what to make of the world, read in one pure step from
                       the world and its blueprint (worked out when it was made)
    2. judge.layout    its files (or a real run's first files) and the log's
                       folder, laid out under a fresh tree, never a link followed
    3. judge.steps     the policy, the target's store and its receipts (the
                       store writes the log), the workspace, the run and the
                       case, as the target's own objects, in one request, the
                       store's raising `get` last
    4. judge.store     the judge checks the log, and damages or replaces it
       or, for a real run, the policy, the store and the case in one request,
       then judge.play: the target's run_agent plays the plan

Every call into the target goes through `call_target`, so a Day 1-6 name
that is missing, raises or hangs becomes a lesson about the substrate, said
once, instead of an internal error. Only the target's own names are used:
`ToolPolicy`, `Workspace`, `ReceiptStore`, `EffectReceipt`, `AgentEvent`,
`AgentRun`, `ToolAction`, `FinalAction`, the case types and, for real runs,
`AgentLimits` and `run_agent` (approvals are plain True and False: Day 8's
`ApprovalDecision` is not a Day 7 name).

The tree, under one fresh directory:

    ws--.../           the workspace root, ROOT_BYTES long (file facts; maybe the log)
    ws--.../_real/     targets of symlinks that stay inside the root
    outside/           targets of symlinks that leave the root (secrets)
    logs/receipts.jsonl  the log when it sits beside the root
    _scratch/          where single log lines are written by the target's store
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judge import remote, safefs
from judge.batches import Ref
from judge.built import Built, refusing, scratch_parent
from judge.calls import substrate_lesson
from judge.evidence import EventSpec, World, evidence
from judge.layout import lay_out
from judge.lessons import InvariantFailure, JudgeFault
from judge.play import play_plan
from judge.steps import (
    add_case,
    add_get,
    add_run,
    add_store,
    add_workspace,
    policy_step,
    results,
)
from judge.store import finish_log

__all__ = ["build_in", "materialise"]

# A full scratch: its space is shared with the folder's code, which may fill it.
_FULL = (errno.ENOSPC, errno.EDQUOT)


def build_in(
    world: World, target: Any, tree: Path, *, events: Sequence[EventSpec] | None = None
) -> Built:
    """Build `world` for `target` in the empty (or absent) directory `tree`.

    `events` replaces the world's canonical events (a reordering, say).
    Raises InvariantFailure, about the substrate, when the target cannot
    build it.
    """
    try:
        made = evidence(world, tree, events)
        root = tree / made.root
        root.mkdir(parents=True)
        built = Built(made, tree, root)
        built.secrets.extend(lay_out(tree, made.files).secrets)
    except Exception as error:
        if isinstance(error, OSError) and error.errno in _FULL:
            raise  # the scratch the folder's code shares is full: not the judge's
        # Nothing of the folder has run on this world yet: a world the judge
        # cannot make is its own fault, never the folder's FAIL.
        raise JudgeFault("lay out this world's files", error) from error
    log, play = made.log, made.play
    try:
        remote.give_to_worker(tree)
        # A drawn world is one request, not one per constructor: the policy,
        # the store and its receipts (the store writes the log), the
        # workspace, the run, the case, and last the store's raising get;
        # the judge then checks the log and damages or replaces it. A real
        # run's policy and store (its case with them) come first: the
        # target's run_agent plays the plan with them.
        steps = [policy_step(target, root, play)]
        store = add_store(log, target, built, steps)
        if play is None:
            workspace = add_workspace(
                target,
                (
                    Ref(0),
                    refusing(built.approvals),
                    store if log.workspace_store == "same" else None,
                ),
                steps,
            )
            assert made.run is not None
            run = add_run(target, made.run, steps)
            case = add_case(target, made.case, steps)
            if log.get is not None:
                add_get(target, store, log.get, steps)
            made_here = results(steps, [store, workspace, run, case])
            built.receipts, built.workspace, built.run, built.case = made_here
            finish_log(log, target, built)
        else:
            case = add_case(target, made.case, steps)
            policy, built.receipts, built.case = results(steps, [Ref(0), store, case])
            play_plan(play, target, built, policy)  # its own requests
            if log.get is not None:  # after the run, which may look receipts up
                steps = []
                add_get(target, built.receipts, log.get, steps)
                results(steps, [])
    except InvariantFailure as failure:
        raise substrate_lesson(made.description, failure) from failure
    return built


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
        with tempfile.TemporaryDirectory(dir=scratch_parent()) as tree:
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
