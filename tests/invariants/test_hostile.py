"""Hostile worlds (hardened): no booby-trapped world crashes, hangs or changes a byte.

The worlds come from strategies/hostile.py: FIFOs, sockets, devices, symlink
loops, chains and escapes, paths at the length limits, protected names,
sparse GiB files, logs that are directories, FIFOs, empty, a million short
lines or one long line, stores whose `get` raises, and runs whose events,
results or final break the contract's types.  The figures (worlds tried,
exceptions, hangs, bytes changed, wrong verdicts) are printed at the end of
the run under "hardened figures".

The last tests plant a bug of each kind this property exists for in a copy
of the target and show the property failing on it.
"""

from __future__ import annotations

import dataclasses
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, note

from strategies.hostile import (
    EventHazard,
    FileHazard,
    HostileAssets,
    HostileWorld,
    LogHazard,
    build_world,
    hostile_worlds,
    trap_examples,
)
from strategies.lessons import InvariantFailure, fail, report_view
from strategies.snapshot import tree_changes, tree_snapshot
from strategies.target import Target
from strategies.watch import (
    HANG_SECONDS,
    Figures,
    call_with_deadline,
    reported_figures,
    short_unless_thorough,
)

EVALUATE = "evaluate_run(run, workspace, receipts, case)"

# What a wrong verdict on each kind of trap usually means.
HINTS = {
    "regular": "a plain regular file holding exactly the text must pass",
    "long-path": "a path within NAME_MAX and PATH_MAX is ordinary evidence",
    "fifo": "only a regular file is evidence: lstat first, never read a FIFO",
    "socket": "only a regular file is evidence",
    "device": "only a regular file is evidence: a device twin is not a file",
    "directory": "a directory is unavailable evidence",
    "missing": "a missing file is unavailable evidence",
    "symlink-loop": "a symlink on the path makes the evidence unavailable",
    "symlink-chain": "resolve_path refuses a symlink at any component, even inside",
    "symlink-out": "resolve through workspace.resolve_path and never follow a link",
    "protected": "protected names are refused by the boundary, whatever they hold",
    "sparse": "a file longer than the expected text cannot match it",
    "name-too-long": "a component over NAME_MAX cannot exist",
    "final": "final passes only for a completed run whose final string holds it",
    "event": "a result counts only when the item is an event, its action a"
    " ToolAction of that tool and its result a string holding the substring",
    "log": "a log that is not a readable regular file of receipts fails every"
    " receipt check; a store whose get raises or returns junk fails them too",
}


@pytest.fixture(scope="session")
def hostile_figures(pytestconfig: pytest.Config) -> Figures:
    return reported_figures(
        pytestconfig,
        "hostile worlds",
        (
            "tried",
            "exceptions",
            "documented ValueErrors",
            "hangs",
            "bytes changed",
            "wrong verdicts",
        ),
    )


def judge_hostile_world(
    target: Target,
    world: HostileWorld,
    assets: HostileAssets,
    figures: Figures | None = None,
    *,
    seconds: float = HANG_SECONDS,
) -> None:
    """Build `world`, evaluate it under a deadline, and fail as a lesson if harmed."""
    __tracebackhide__ = True
    figures = figures or Figures("unreported")
    described = world.describe()
    figures.add("tried")
    for hazard in world.files:
        figures.saw(f"file:{hazard.kind}")
    figures.saw(f"log:{world.log.kind}")
    with tempfile.TemporaryDirectory(prefix="day7-hostile-") as scratch:
        built = build_world(target, world, Path(scratch), assets)
        before = tree_snapshot(scratch)
        outcome = call_with_deadline(
            lambda: target.evaluate_run(*built.args),
            seconds=seconds,
            fifos=built.fifos,
        )
        changes = tree_changes(before, tree_snapshot(scratch))

    if outcome.hung:
        figures.add("hangs")
        fail(
            world=described,
            expected=f"{EVALUATE} to return within {seconds:g} s",
            observed=f"{EVALUATE} still running after {seconds:g} s",
            hint="a FIFO or device at an expected path, or a FIFO as the log, blocks"
            " open() for reading: lstat it first, refuse anything but a regular"
            " file, open with O_NONBLOCK and read at most what can match",
        )
    if changes:
        figures.add("bytes changed")
        fail(
            world=described,
            expected="no byte changed in the workspace, the log or beside them",
            observed="; ".join(changes[:5]),
            hint="evaluation is read-only: open for reading only, create nothing",
        )
    if outcome.error is not None:
        error = outcome.error
        if isinstance(error, ValueError) and built.malformed_run:
            figures.add("documented ValueErrors")
            return
        figures.add("exceptions")
        raised = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
        fair = " (a ValueError would be fair here)" if built.malformed_run else ""
        fail(
            world=described,
            expected=f"{EVALUATE} to return a report{fair}",
            observed=f"{EVALUATE} raised {raised}",
            hint="unavailable evidence is a failed check, never an exception; a"
            " value of the wrong type is simply not a match",
        )
    rows = report_view(outcome.value)
    names = [row[0] for row in rows]
    wanted = [name for name, _, _ in built.truth]
    if names != wanted:
        figures.add("wrong verdicts")
        fail(
            world=described,
            expected=f"checks {wanted}",
            observed=f"checks {names}",
            hint="one check per fact: final, files, results, receipts, in case order",
        )
    for (name, passed, detail), (_, must, what) in zip(rows, built.truth, strict=True):
        if must is not None and passed != must:
            figures.add("wrong verdicts")
            verdict = "PASS" if must else "FAIL"
            fail(
                world=described,
                expected=f"{_short(name)}: {verdict} ({what})",
                observed=f"{_short(name)}: {'PASS' if passed else 'FAIL'} ({detail})",
                hint=HINTS.get(what, HINTS.get(what.split()[0], "")),
            )


def _short(name: str) -> str:
    return name if len(name) <= 70 else f"{name[:33]}...{name[-30:]}"


def every_trap(test: Callable[..., Any]) -> Callable[..., Any]:
    """Run `test` on one small world per trap before any drawn one.

    So every trap is met in every run, whatever the draws, and a failing
    trap is reported in a world holding only it (explicit examples are not
    shrunk); the simplest traps come first.
    """
    for world in reversed(trap_examples()):
        test = example(world=world)(test)
    return test


@pytest.mark.hardened
@pytest.mark.invariant("hostile-worlds")
@every_trap
@short_unless_thorough()
@given(world=hostile_worlds())
def test_hostile_worlds_are_judged_without_crash_hang_or_change(
    target: Target,
    hostile_assets: HostileAssets,
    hostile_figures: Figures,
    world: HostileWorld,
) -> None:
    """On a booby-trapped world evaluate_run returns within seconds, changes no
    byte, raises nothing but a documented ValueError, and passes no trap.

    Tasks 3-5 and 7 (file facts, result evidence, receipts, read-only): the
    evidence an evaluator judges is whatever the agent left behind, and an
    agent (or a careless test) can leave a FIFO, a socket, a symlink out of
    the root, a GiB sparse file or a garbage log there.  An evaluator that
    hangs, crashes or reads through such a trap cannot be trusted to grade
    anything; one that passes a trap grades a lie.
    """
    note(world.describe())
    judge_hostile_world(target, world, hostile_assets, hostile_figures)


# --- the property fails on planted bugs -------------------------------------------

_FIFO_WORLD = HostileWorld(
    "done", "text", (FileHazard("fifo", ("out.txt",), ""),), (), LogHazard("missing")
)


def _planted(target: Target, evaluate: Callable[..., Any]) -> Target:
    names = types.MappingProxyType({**target.names, "evaluate_run": evaluate})
    return dataclasses.replace(target, names=names)


def _naive_result(target: Target) -> Callable[..., Any]:
    """evaluate_run, but result checks test `contains in event.result` on any item."""

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        report = target.evaluate_run(run, workspace, receipts, case)
        checks = list(report.checks)
        offset = 1 + len(case.files)
        for index, expected in enumerate(case.results):
            found = any(
                event.action.tool == expected.tool and expected.contains in event.result
                for event in run.events
                if event.result is not None
            )
            checks[offset + index] = dataclasses.replace(
                checks[offset + index], passed=found
            )
        return dataclasses.replace(report, checks=tuple(checks))

    return evaluate


def _blocking_read(target: Target) -> Callable[..., Any]:
    """evaluate_run, after reading every expected path with a plain open()."""

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        for expected in case.files:
            try:
                Path(workspace.policy.root, expected.path).read_bytes()
            except OSError:
                pass
        return target.evaluate_run(run, workspace, receipts, case)

    return evaluate


def _touching(target: Target) -> Callable[..., Any]:
    """evaluate_run, leaving a cache file in the workspace root."""

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        Path(workspace.policy.root, ".evaluation-cache").write_text("{}")
        return target.evaluate_run(run, workspace, receipts, case)

    return evaluate


@pytest.mark.hardened
@pytest.mark.invariant("hostile-worlds")
def test_hostile_property_catches_a_hang(target: Target, hostile_assets) -> None:
    """The hostile-worlds property fails, as a hang, on an evaluator that opens
    a FIFO with open().

    Task 3 (file facts): a plain open() of a FIFO blocks until a writer comes.
    """
    planted = _planted(target, _blocking_read(target))
    with pytest.raises(InvariantFailure, match="still running after"):
        judge_hostile_world(planted, _FIFO_WORLD, hostile_assets, seconds=0.5)


@pytest.mark.hardened
@pytest.mark.invariant("hostile-worlds")
def test_hostile_property_catches_a_crash(target: Target, hostile_assets) -> None:
    """The hostile-worlds property fails on an evaluator that assumes every item
    is an event with a string result.

    Task 4 (result evidence): `needle in 7` raises TypeError, `None.action`
    raises AttributeError.
    """
    planted = _planted(target, _naive_result(target))
    for kind in ("result-int", "item-none", "action-dict"):
        world = HostileWorld(
            "done", "text", (), (EventHazard(kind),), LogHazard("missing")
        )
        with pytest.raises(InvariantFailure, match="raised"):
            judge_hostile_world(planted, world, hostile_assets)


@pytest.mark.hardened
@pytest.mark.invariant("hostile-worlds")
def test_hostile_property_catches_a_passed_trap(target: Target, hostile_assets) -> None:
    """The hostile-worlds property fails on an evaluator for which a list result
    holding the substring is a match.

    Task 4 (result evidence): `"needle" in ["needle"]` is True for a list.
    """
    planted = _planted(target, _naive_result(target))
    world = HostileWorld(
        "done", "text", (), (EventHazard("result-list"),), LogHazard("missing")
    )
    with pytest.raises(InvariantFailure, match=r"result:run_command: FAIL"):
        judge_hostile_world(planted, world, hostile_assets)


@pytest.mark.hardened
@pytest.mark.invariant("hostile-worlds")
def test_hostile_property_catches_a_change(target: Target, hostile_assets) -> None:
    """The hostile-worlds property fails on an evaluator that creates a file.

    Task 7 (read-only): evaluation leaves every byte as it found it.
    """
    planted = _planted(target, _touching(target))
    world = HostileWorld("done", "text", (), (), LogHazard("missing"))
    with pytest.raises(InvariantFailure, match="root/.evaluation-cache was created"):
        judge_hostile_world(planted, world, hostile_assets)
