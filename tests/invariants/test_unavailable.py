"""Tasks 3 and 5: unavailable evidence is a failed check with a reason, not a crash."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _written_worlds import CONTENT_EXAMPLES, LOG_EXAMPLES, TRAP_WORLDS, examples
from hypothesis import given, note
from hypothesis import strategies as st

from judge import (
    assert_truth,
    call_target,
    evaluate,
    judging,
    materialise,
    timed_out,
    watched,
)
from strategies import (
    EVALUATE,
    FILE_KINDS,
    ExpectedCheck,
    FileFact,
    World,
    describe,
    truth,
    unavailable_worlds,
    worlds,
)
from strategies.logs import damage_effect

_UNAVAILABLE_EXAMPLES = (
    *(f"file {kind}" for kind in FILE_KINDS.names(verdicts=("unavailable",))),
    *(f"file {kind}" for kind in CONTENT_EXAMPLES if kind.startswith("invalid_utf8")),
    "file utf16",
    *(
        f"receipt log {k}"
        for k, d in LOG_EXAMPLES.items()
        if damage_effect(d) != "valid"
    ),
    "receipt log directory",
    "receipt log unreadable",
    "memory store whose get raises AgentError",
    "memory store whose get raises OSError",
    "receipt absent",
    "final incomplete_without_final",
    "final completed_without_final",
    "result result_none",
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
    symlink, a protected name, invalid UTF-8, a log that cannot be loaded (a
    damaged line, a directory, a name the system refuses with OSError), a
    lookup that raises, an absent receipt, a final or a result that is None:
    each is an observed fact that failed, and must not abort the whole report
    (that is reserved for an invalid case). Details: 'evidence unavailable:
    ...', 'receipt evidence unavailable: ...', 'receipt lookup failed: ...',
    'receipt is absent'.
    """
    note(describe(world))
    with judging(world, target), materialise(world, target) as built:
        assert_truth(
            evaluate(target, built),
            truth(world),
            level=target.level,
            only=_unavailable(world),
        )


def _unavailable(world: World):
    # The checks this invariant is about: evidence that cannot be had (and a
    # final or result that is None). The other checks of these worlds are the
    # truth invariant's.
    no_final = world.final.value == "none"
    none_results = {
        f"result:{fact.tool}" for fact in world.results if "none" in fact.placed
    }

    def judged(check: ExpectedCheck) -> bool:
        if check.name == "final":
            return no_final
        return (
            check.prefix
            or check.detail == "receipt is absent"
            or check.name in none_results
        )

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
    with judging(world, target), materialise(world, target) as built:
        outcome = watched(lambda: target.evaluate_run(*built.args))
        if outcome.hung:
            raise timed_out(
                EVALUATE,
                outcome.seconds,
                world=describe(world),
                hint="lstat the path and refuse anything but a regular file"
                " before opening it (or open with O_NONBLOCK)",
            )
        report = call_target("evaluate_run(...)", lambda: _reraise(outcome))
        assert_truth(report, truth(world), level=target.level)


def _reraise(outcome):
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


_MALFORMED = {name: world for name, world in TRAP_WORLDS.items() if world.malformed}


@pytest.mark.invariant("malformed-run")
@pytest.mark.hardened
@pytest.mark.parametrize("name", sorted(_MALFORMED))
def test_a_malformed_run_gives_failed_checks_not_an_exception(target, name) -> None:
    """A run whose final is not a string or whose events hold things that are not
    events gives failed checks, never an exception.

    Hardened: runs come from outside (a saved JSON run, a learner's loop);
    evaluation judges what it can and fails the rest.
    """
    world = _MALFORMED[name]
    with judging(world, target), materialise(world, target) as built:
        assert_truth(evaluate(target, built), truth(world), level=target.level)
