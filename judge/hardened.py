"""The two hardened judgements of one evaluation: it survives, and it stays inside.

`judge_hostile` builds a world (of any kinds, traps included), evaluates it
(a remote target within its worker's bound) with the tree snapshotted around
the call, and fails as a
lesson on a hang, a changed byte, an exception (a ValueError is fair only for
a run that breaks the contract's types) or a wrong verdict. `judge_access`
evaluates with the audit recorder armed and fails on any path opened outside
the root and the log, any process, socket or filesystem change, and any
symlink out of the root that passed. Both count what they saw in `Figures`.

They live here, not in a test, because two kinds of test call them: the
hardened invariants, and the meta-tests that plant a bug of each kind and
show the judgement failing on it.
"""

from __future__ import annotations

from typing import Any

from judge.access import accesses, violations
from judge.build import materialise
from judge.calls import raise_hint, report_view, timed_out
from judge.causes import raised_cause
from judge.fixes import placed
from judge.lessons import fail
from judge.remote import (
    OutOfTime,
    WorkerDied,
    WorkerHung,
    bounded,
    read_if_remote,
    rebuilt,
)
from judge.snapshot import tree_changes, tree_snapshot
from judge.verdicts import assert_truth, judging
from judge.watch import HANG_SECONDS, Figures, Outcome, watched
from strategies.vocabulary import EVALUATE
from strategies.world import World, describe, truth
from worker.audit import AccessRecorder

__all__ = ["judge_access", "judge_hostile"]


def judge_hostile(
    target: Any,
    world: World,
    figures: Figures | None = None,
    *,
    seconds: float = HANG_SECONDS,
) -> None:
    """Build `world`, evaluate it (a remote target within `seconds`), and fail
    as a lesson if harmed."""
    __tracebackhide__ = True
    figures = figures or Figures("unreported")
    figures.add("tried")
    for kind in world.kinds():
        if kind.level == "hardened":
            figures.saw(kind.name)
    with judging(world, target), materialise(world, target) as built:
        before = tree_snapshot(built.tree)
        outcome = watched(lambda: target.evaluate_run(*built.args), seconds=seconds)
        changes = tree_changes(before, tree_snapshot(built.tree))
        if outcome.hung:
            figures.add("hangs")
            # Raised, not failed: Hypothesis would shrink a hang by hanging again.
            raise timed_out(
                EVALUATE,
                seconds,
                world=describe(world),
                hint="a FIFO or device at an expected path, or a FIFO as the log,"
                " blocks open() for reading: lstat it first, refuse anything but a"
                " regular file, open with O_NONBLOCK and read at most what can match",
            )
        if changes:
            figures.add("bytes changed")
            fail(
                world="",
                expected="no byte changed in the workspace, the log or beside them",
                observed="; ".join(changes[:5]),
                hint=placed(
                    "evaluation is read-only: open for reading only, create nothing",
                    "evaluate_run",
                ),
            )
        error = outcome.error
        if error is not None:
            if isinstance(error, ValueError) and world.malformed:
                figures.add("documented ValueErrors")
                return
            figures.add("exceptions")
            raised = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
            fair = " (a ValueError would be fair here)" if world.malformed else ""
            fail(
                world="",
                expected=f"{EVALUATE} to return a report{fair}",
                observed=f"{EVALUATE} raised {raised}",
                hint=raise_hint(EVALUATE, error),
                # The same error escaping the same function is one lesson,
                # whichever invariant met it (a uid lookup that raises
                # everywhere was told here and under argument-types apart).
                cause=raised_cause(EVALUATE, error),
            )
        try:
            assert_truth(outcome.value, truth(world), level="hardened")
        except AssertionError:
            figures.add("wrong verdicts")
            raise


def judge_access(
    target: Any,
    world: World,
    figures: Figures | None = None,
    *,
    seconds: float = HANG_SECONDS,
) -> None:
    """Evaluate `world` with the recorder armed; fail as a lesson on a stray access."""
    __tracebackhide__ = True
    figures = figures or Figures("unreported")
    figures.add("worlds")
    recorder = AccessRecorder()
    with judging(world, target), materialise(world, target) as built:
        if getattr(target, "remote", False):
            outcome = _audited_remotely(target, built, recorder, seconds)
        else:
            outcome = watched(
                lambda: target.evaluate_run(*built.args),
                seconds=seconds,
                inside=recorder.armed,
            )
        seen = accesses(recorder.accesses)
        problems = violations(
            seen,
            root=built.root,
            log=built.log_path,
            secrets=built.secrets,
            places=recorder.places,
        )
        figures.add("paths opened", sum(a.kind == "path" for a in seen))
        figures.add("processes", sum(a.kind == "process" for a in seen))
        figures.add("network uses", sum(a.kind == "network" for a in seen))
        figures.add("filesystem changes", sum(a.kind == "change" for a in seen))
        figures.add("secrets opened", sum("the secret" in p for p in problems))
        figures.add(
            "opened outside root and log", sum("outside" in p for p in problems)
        )
        if problems:
            fail(
                world="",
                expected="evaluate_run opens only paths inside the root and the"
                " receipt log, for reading, and starts no process and no socket",
                observed="\n".join(problems[:6]),
                hint=placed(
                    "resolve every path through workspace.resolve_path, open without"
                    " following links (or open nothing the boundary refused), and"
                    " judge only from the run, the root and the log",
                    "evaluate_run",
                ),
            )
        if outcome.hung or outcome.error is not None:
            # A hang or a crash is the hostile-worlds invariant's lesson; here
            # only what was touched until then counts, and that was checked.
            figures.add("hangs or exceptions (judged elsewhere)")
            return
        links = {
            f"file:{fact.path}"
            for fact in world.files
            if fact.kind in ("symlink_out_at", "symlink_outside")
        }
        for name, passed, detail in report_view(outcome.value):
            if name in links and passed:
                figures.add("secret links passed")
                fail(
                    world="",
                    expected=f"{name}: FAIL (a link out of the root is not evidence)",
                    observed=f"{name}: PASS ({detail})",
                    hint=placed(
                        "a symlink at any component of the path makes the evidence"
                        " unavailable, even when the text it leads to matches",
                        "evaluate_run",
                    ),
                )


def _audited_remotely(
    target: Any, built: Any, recorder: AccessRecorder, seconds: float
) -> Outcome:
    """The audited call made in the worker, where the target's code runs: the
    worker arms the same recorder there and sends its records as data."""
    client = target.client
    outcome = Outcome()
    try:
        with bounded(seconds) as bound:
            said = client.ask(EVALUATE, "audit", target.evaluate_run, list(built.args))
    except OutOfTime as late:
        if late.bound is not bound:
            raise
        outcome.hung = True
        return outcome
    except (WorkerDied, WorkerHung) as error:
        outcome.error = error
        return outcome
    if "raised" in said:
        outcome.error = rebuilt(said["raised"])
    else:
        outcome.value = read_if_remote(said.get("value"), said.get("view"))
    # Raw records and the worker's own import places: judged here (judge.access).
    records, places = said.get("accesses"), said.get("places")
    recorder.accesses = list(records) if isinstance(records, list) else [records]
    if isinstance(places, list):
        recorder.places = [place for place in places if isinstance(place, str)]
    return outcome
