"""Tasks 3 and 5: unavailable evidence is a failed check with a reason, not a crash."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from strategies.build import materialise
from strategies.facts import (
    FILE_UNAVAILABLE_KINDS,
    LOG_TAMPER_KINDS,
    ExpectedCheck,
    FileFact,
    World,
    describe,
    truth,
)
from strategies.lessons import call_target, fail
from strategies.verdicts import assert_truth
from strategies.watch import call_with_deadline
from strategies.worlds import (
    EXAMPLE_WORLDS,
    HARDENED_GET_ERRORS,
    examples,
    unavailable_worlds,
    worlds,
)

EVALUATE = "evaluate_run(run, workspace, receipts, case)"

_UNAVAILABLE_EXAMPLES = (
    *(f"file {kind}" for kind in FILE_UNAVAILABLE_KINDS),
    *(f"receipt log {kind}" for kind in LOG_TAMPER_KINDS),
    "memory store whose get raises AgentError",
    "memory store whose get raises OSError",
    "receipt absent",
    "final incomplete_without_final",
)


@pytest.mark.invariant("unavailable-evidence")
@examples(*_UNAVAILABLE_EXAMPLES)
@given(world=unavailable_worlds())
def test_unavailable_evidence_is_a_failed_check_not_an_exception(
    target, world: World
) -> None:
    """Missing, refused, unreadable or untrustworthy evidence is a failed check
    whose detail gives the reason, never an exception.

    Tasks 3 and 5 (workspace state, receipts): a missing file, a directory, a
    symlink, a protected name, invalid UTF-8, an unloadable log, a lookup
    that raises, an absent receipt and a run without a final are observed
    facts that failed; one of them must not abort the whole report (that is
    reserved for an invalid case). Details: 'evidence unavailable: ...',
    'receipt evidence unavailable: ...', 'receipt lookup failed: ...',
    'receipt is absent'.
    """
    note(describe(world))
    with materialise(world, target) as built:
        report = call_target(EVALUATE, target.evaluate_run, *built.args)
        assert_truth(
            report, truth(world), world=describe(world), only=_unavailable(world)
        )


def _unavailable(world: World):
    # The checks this invariant is about: evidence that cannot be had (and a
    # final that is None). The other checks of these worlds are the truth
    # invariant's.
    no_final = world.final.kind == "incomplete_without_final"

    def judged(check: ExpectedCheck) -> bool:
        if check.name == "final":
            return no_final
        return check.detail_is_prefix or check.detail == "receipt is absent"

    return judged


_FIFO_WORLD = World(
    files=(
        FileFact(0, ("src", "app0.py"), "fifo", "answer = 2\n"),
        FileFact(1, ("src", "ok1.py"), "exact", "answer = 2\n"),
    )
)


def _with_fifo(world: World, text: str) -> World:
    # The FIFO's index is past every drawn file's, so its path is its own.
    index = len(world.files)
    fifo = FileFact(index, ("pipes", f"pipe{index}"), "fifo", text)
    return replace(world, files=(*world.files, fifo))


_FIFO_WORLDS = st.builds(
    _with_fifo,
    worlds(file_kinds=("exact", "missing", "directory"), max_files=2, max_receipts=1),
    st.sampled_from(("", "answer = 2\n")),
)


@pytest.mark.invariant("unavailable-evidence")
@pytest.mark.hardened
@given(world=st.just(_FIFO_WORLD) | _FIFO_WORLDS)
def test_a_fifo_at_an_expected_path_is_unavailable_without_blocking(
    target, world: World
) -> None:
    """Missing, refused, unreadable or untrustworthy evidence is a failed check
    whose detail gives the reason, never an exception.

    Hardened: a FIFO at an expected path is not a regular file; opening it
    for reading would block for ever, so it must be refused unopened.
    """
    note(describe(world))
    with materialise(world, target) as built:
        fifos = [built.root.joinpath(*f.parts) for f in world.files if f.kind == "fifo"]
        outcome = call_with_deadline(
            lambda: target.evaluate_run(*built.args), fifos=fifos
        )
        if outcome.hung:
            fail(
                world=describe(world),
                expected="evaluate_run to return within a few seconds",
                observed=f"it blocked for {outcome.seconds:.0f} s on"
                f" {', '.join(os.fspath(p) for p in fifos)}",
                hint="lstat the path and refuse anything but a regular file"
                " before opening it (or open with O_NONBLOCK)",
            )
        report = call_target(EVALUATE, lambda: _reraise(outcome))
        assert_truth(report, truth(world), world=describe(world))


def _reraise(outcome):
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


@pytest.mark.invariant("unavailable-evidence")
@pytest.mark.hardened
@given(
    error=st.sampled_from(HARDENED_GET_ERRORS),
    world=st.just(EXAMPLE_WORLDS["receipts in memory"]),
)
def test_any_exception_from_a_lookup_is_a_failed_check(
    target, error: str, world: World
) -> None:
    """Missing, refused, unreadable or untrustworthy evidence is a failed check
    whose detail gives the reason, never an exception.

    Hardened: a store's get may raise anything (a learner's store, a broken
    backend); every receipt check then fails with 'receipt lookup failed:
    ...'.
    """
    world = replace(world, log=replace(world.log, get_raises=error))
    note(describe(world))
    with materialise(world, target) as built:
        report = call_target(EVALUATE, target.evaluate_run, *built.args)
        assert_truth(report, truth(world), world=describe(world))


_ODD_RUNS = (
    ("a final that is not a string", "final"),
    ("events holding None and a string", "events"),
    ("an event whose result is not a string", "result"),
)


@pytest.mark.invariant("malformed-run")
@pytest.mark.hardened
@given(odd=st.sampled_from(_ODD_RUNS))
def test_a_malformed_run_gives_failed_checks_not_an_exception(target, odd) -> None:
    """A run whose final is not a string or whose events hold things that are not
    events gives failed checks, never an exception.

    Hardened: runs come from outside (a saved JSON run, a learner's loop);
    evaluation judges what it can and fails the rest.
    """
    words, what = odd
    world = EXAMPLE_WORLDS["result embedded"]
    note(f"{describe(world)}\n{words}")
    with materialise(world, target) as built:
        run = built.run
        events = tuple(run.events)
        final = run.final
        if what == "final":
            final = 42
        elif what == "events":
            events = (None, "not an event", *events)
        else:
            events = tuple(
                replace(event, result=b"ok [B] done")
                if getattr(event.action, "tool", None) == "run_command"
                else event
                for event in events
            )
        odd_run = replace(run, final=final, events=events)
        report = call_target(
            EVALUATE,
            target.evaluate_run,
            odd_run,
            built.workspace,
            built.receipts,
            built.case,
        )
        want = truth(world)
        if what == "final":
            want = (
                replace(want[0], passed=False, detail="required final not observed"),
                *want[1:],
            )
        elif what == "result":
            want = (
                want[0],
                replace(want[1], passed=False, detail="required result not observed"),
                *want[2:],
            )
        assert_truth(report, want, world=f"{describe(world)}\n{words}")
