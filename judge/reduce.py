"""A wrong verdict's world made small: facts dropped while the same mistake stays.

Hypothesis shrinks a drawn world, but not a written one (`@example`,
`examples_of`): a mistake met first on "everything at once" would be told
on a world of a hundred facts, twenty correct checks around the one wrong.
And a drawn world that a second mistake kept from shrinking is large too.
So a lesson about one check's verdict on one world is reduced, once, when
the test has failed (tests/conftest.py): a deterministic delta-debugging
pass over the world's facts, each smaller world built afresh and evaluated,
kept only when the same check still gets the same verdict and the truth of
that smaller world still refuses it. The same misjudgement, honestly: the
verdict is observed again on the world the lesson then shows.

A lesson that evaluate_run raised on one world is reduced the same way
(`reduced_raise`): kept while evaluate_run raises the same exception from
the same function of the learner's (the lesson's cause), the smaller
world's own lesson then told, its message as raised there.

Bounded: at most `MAX_TRIES` evaluations and `MAX_SECONDS` seconds; a call
that hangs or crashes ends the reduction where it stands (the lesson keeps
the smallest world found so far, which did show the mistake).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from judge.lessons import CallAborted, InvariantFailure
from strategies.finals import FinalFact
from strategies.receipts import receipt_expectation
from strategies.world import ExpectedCheck, World, truth

__all__ = [
    "MAX_SECONDS",
    "MAX_TRIES",
    "Misjudged",
    "misjudges",
    "raises_alike",
    "reduced",
    "reduced_raise",
    "smallest",
]

#: The most smaller worlds one reduction evaluates, and its wall-clock bound.
MAX_TRIES = 48
MAX_SECONDS = 12.0


@dataclass(frozen=True)
class Misjudged:
    """What a lesson about one check's verdict saw: the world, the check's
    name, the verdict observed (its row), and the level judged."""

    world: World
    name: str
    row: tuple[str, Any, Any]
    level: str


def _own(world: World, name: str) -> World:
    """`world` with only the facts check `name` depends on (and a plain
    final, unless the check is the final's)."""
    group, _, _ = name.partition(":")
    return replace(
        world,
        final=world.final if group == "final" else FinalFact(),
        files=tuple(f for f in world.files if f"file:{f.path}" == name),
        results=tuple(r for r in world.results if f"result:{r.tool}" == name),
        receipts=tuple(
            r
            for r in world.receipts
            if f"receipt:{receipt_expectation(r).call_id}" == name
        ),
        log=replace(world.log, extra=0),
        noise=(),
        modified_files=(),
        events_as_list=False,
        crossed=False,
    )


def _smaller(world: World, name: str) -> Iterator[World]:
    """Worlds with one fact (or one feature) less than `world`, keeping
    every fact of check `name`, simplest change first."""
    group, _, _ = name.partition(":")
    # The other facts of each group at once first: most of a written world.
    own = _own(world, name)
    for facts in ("files", "results", "receipts"):
        if getattr(own, facts) != getattr(world, facts):
            yield replace(world, **{facts: getattr(own, facts)})
    if world.noise:
        yield replace(world, noise=())
    if world.crossed:
        yield replace(world, crossed=False)
    if world.events_as_list:
        yield replace(world, events_as_list=False)
    if world.modified_files:
        yield replace(world, modified_files=())
    if world.log.extra:
        yield replace(world, log=replace(world.log, extra=0))
    if group != "final" and world.final != FinalFact():
        yield replace(world, final=FinalFact())
    # Half a group at once, then one fact: a written world's thirty files
    # go in a few tries, not thirty.
    for facts in ("files", "results", "receipts"):
        held = getattr(world, facts)
        if len(held) >= 4:
            half = len(held) // 2
            for kept in (held[half:], held[:half]):
                if all(fact in kept for fact in getattr(own, facts)):
                    yield replace(world, **{facts: kept})
    for at, fact in enumerate(world.files):
        if f"file:{fact.path}" != name:
            yield replace(world, files=world.files[:at] + world.files[at + 1 :])
    for at, fact in enumerate(world.results):
        if f"result:{fact.tool}" != name:
            yield replace(world, results=world.results[:at] + world.results[at + 1 :])
    for at, fact in enumerate(world.receipts):
        if f"receipt:{receipt_expectation(fact).call_id}" != name:
            yield replace(
                world, receipts=world.receipts[:at] + world.receipts[at + 1 :]
            )


Found = tuple[ExpectedCheck, tuple[str, Any, Any]]


def misjudges(
    target: Any, world: World, seen: Misjudged, rows_of: RowsOf
) -> Found | None:
    """The truth's check `seen.name` of `world` and the row observed, when
    the target gives it the verdict seen and the truth refuses it (the same
    mistake), else None."""
    try:
        expected = truth(world)
        rows = rows_of(target, world)
    except (InvariantFailure, ValueError, RuntimeError):
        return None  # not built, or not the same mistake: not this world
    if len(rows) != len(expected):
        return None
    for row, check in zip(rows, expected, strict=True):
        if (
            check.name == seen.name
            and row[0] == seen.name
            and row[1] is seen.row[1]
            and not check.accepts(row[1], row[2], seen.level)
        ):
            return check, row
    return None


def _made(make: Any) -> World | None:
    try:
        return make()
    except (ValueError, TypeError, KeyError, IndexError):
        return None  # a combination the world refuses: not a candidate


#: The report's rows for a world, made afresh and evaluated by the target
#: (judge.verdicts gives it: this module is below the verdicts, never above).
RowsOf = Callable[[Any, World], Sequence[Any]]


def reduced(
    target: Any,
    seen: Misjudged,
    rows_of: RowsOf,
    *,
    tries: int = MAX_TRIES,
    seconds: float = MAX_SECONDS,
) -> tuple[World, Found] | None:
    """The smallest world found, within the bounds, on which the target makes
    the same mistake as `seen` (and its check and row), or None when none smaller
    than `seen.world` was found (or the mistake was not seen again)."""
    return smallest(
        seen.world,
        seen.name,
        lambda world: misjudges(target, world, seen, rows_of),
        tries,
        seconds,
    )


def raises_alike(
    target: Any, world: World, seen: InvariantFailure, rows_of: RowsOf
) -> InvariantFailure | None:
    """The lesson evaluate_run's raise on `world` makes, when it is the one
    `seen` tells (the same cause: the exception's type, escaped from the
    same function of the learner's), else None."""
    try:
        truth(world)  # a world the contract takes: else no candidate
        rows_of(target, world)
    except InvariantFailure as failure:
        same = failure.cause == seen.cause and _raised(failure) == _raised(seen)
        return failure if same else None
    except (ValueError, RuntimeError):
        return None
    return None


def _raised(failure: InvariantFailure) -> str:
    """What a raise lesson's observed part says before the message: the
    call and the exception's type ("evaluate_run(...) raised KeyError")."""
    head, sep, rest = failure.observed.partition(" raised ")
    return head + sep + rest.split(":", 1)[0] if sep else ""


def reduced_raise(
    target: Any,
    world: World,
    seen: InvariantFailure,
    rows_of: RowsOf,
    *,
    tries: int = MAX_TRIES,
    seconds: float = MAX_SECONDS,
) -> tuple[World, InvariantFailure] | None:
    """The smallest world found, within the bounds, on which evaluate_run
    raises as `seen` says it did on `world` (and the lesson it raised
    there), or None when none smaller than `world` was found."""
    if not _raised(seen):
        return None
    return smallest(
        world,
        "",
        lambda small: raises_alike(target, small, seen, rows_of),
        tries,
        seconds,
    )


def smallest(
    world: World,
    name: str,
    shows: Callable[[World], Any],
    tries: int = MAX_TRIES,
    seconds: float = MAX_SECONDS,
) -> tuple[World, Any] | None:
    """Delta debugging over `world`'s facts (keeping check `name`'s, or none
    for ""): the smallest world found on which `shows` gives something
    (what it gave with it), or None. A call that hung, crashed or ran out
    of memory (CallAborted) ends the search where it stands."""
    deadline = time.monotonic() + seconds
    left = tries

    def same(candidate: World | None) -> Any:
        nonlocal left
        if candidate is None or left <= 0 or time.monotonic() > deadline:
            return None
        left -= 1
        return shows(candidate)

    best: tuple[World, Any] | None = None
    try:
        own = _made(lambda: _own(world, name))
        found = same(own) if own != world else None
        current = own if found is not None else world
        if found is not None:
            assert own is not None
            best = (own, found)
        changed = True
        while changed and left > 0 and time.monotonic() <= deadline:
            changed = False
            for smaller in _smaller(current, name):
                found = same(smaller)
                if found is not None:
                    current, best, changed = smaller, (smaller, found), True
                    break
    except CallAborted:
        pass
    return best
