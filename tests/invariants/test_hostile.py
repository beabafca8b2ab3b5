"""Hostile worlds (hardened): no booby-trapped world crashes, hangs or changes a byte.

The worlds are ordinary worlds whose facts are of hardened kinds: FIFOs,
sockets, devices, symlink loops, chains and escapes, paths at the length
limits, sparse GiB files, logs that are directories, FIFOs, a million short
lines or one long line, stores whose `get` raises or returns junk, and runs
whose events, results or final break the contract's types; plain facts beside
them are the controls. The figures (worlds tried, exceptions, hangs, bytes
changed, wrong verdicts) are printed at the end of the run under "hardened
figures". tests/meta shows this property failing on a planted bug of each
kind it exists for.
"""

from __future__ import annotations

import pytest
from _written_worlds import TRAP_WORLDS
from hypothesis import example, given, note

from judge import Figures, judge_hostile, reported_figures, short_unless_thorough
from strategies import World, describe, hostile_worlds


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


def every_trap(test):
    """Run `test` on one small world per trap before any drawn one, so every
    trap is met in every run, whatever the draws, and a failing trap is
    reported in a world holding only it."""
    for world in reversed(TRAP_WORLDS.values()):
        test = example(world=world)(test)
    return test


@pytest.mark.hardened
@pytest.mark.invariant("hostile-worlds")
@every_trap
@short_unless_thorough()
@given(world=hostile_worlds())
def test_hostile_worlds_are_judged_without_crash_hang_or_change(
    target, hostile_figures: Figures, world: World
) -> None:
    """On a booby-trapped world evaluate_run returns within seconds, changes no
    byte, raises nothing but a documented ValueError, and passes no trap.

    Tasks 3-5 and 7 (file facts, result evidence, receipts, read-only): the
    evidence an evaluator judges is whatever the agent left behind, and an
    agent (or a careless test) can leave a FIFO, a socket, a symlink out of
    the root, a GiB sparse file or a garbage log there. An evaluator that
    hangs, crashes or reads through such a trap cannot be trusted to grade
    anything; one that passes a trap grades a lie.
    """
    note(describe(world))
    judge_hostile(target, world, hostile_figures)
