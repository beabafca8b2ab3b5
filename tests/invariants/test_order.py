"""Task 4: events are a set of facts; order, repeats and neighbours do not count."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from _written_worlds import EXAMPLE_WORLDS
from hypothesis import example, given, note
from hypothesis import strategies as st

from judge import fail, judged, judging, shown_row, verdict_cause
from judge.compared import order_test
from judge.fixes import placed
from strategies import (
    EventSpec,
    World,
    describe,
    noise_events,
    truth,
    world_events,
    worlds,
)


@dataclass(frozen=True)
class Reordering:
    """A world and the events its run holds instead of the canonical ones."""

    world: World
    events: tuple[EventSpec, ...]
    how: str


def _reorder(
    world: World,
    order: list[int],
    duplicated: list[int],
    noise: list[EventSpec],
    positions: list[int],
) -> Reordering:
    canonical = world_events(world)
    events = [canonical[i] for i in order]
    # Duplicates and unrelated events go in at drawn positions (modulo length).
    inserts = [canonical[i] for i in duplicated] + list(noise)
    for event, at in zip(inserts, positions, strict=False):
        events.insert(at % (len(events) + 1), event)
    events += inserts[len(positions) :]
    how = f"the run's events reordered as {order} (canonical positions)"
    if duplicated:
        how += f", events {duplicated} duplicated"
    if noise:
        how += f", {len(noise)} unrelated event(s) inserted"
    return Reordering(world, tuple(events), how)


def _shuffled(
    world: World,
    keys: list[int],
    duplicated: list[int],
    noise: list[EventSpec],
    positions: list[int],
) -> Reordering:
    # Sorting by drawn keys is a permutation that shrinks to the identity
    # (all keys equal); drawn indices are taken modulo the number of events.
    size = len(world_events(world))
    order = sorted(range(size), key=lambda i: (keys[i % len(keys)], i))
    doubles = [i % size for i in duplicated] if size else []
    return _reorder(world, order, doubles, noise, positions)


#: A world (one file at most: files do not depend on events) and a
#: permutation of its events, with duplicates and unrelated events added.
REORDERINGS = st.builds(
    _shuffled,
    worlds(max_files=1),
    st.lists(st.integers(0, 15), min_size=12, max_size=12),
    st.lists(st.integers(0, 15), max_size=2),
    st.lists(noise_events(), max_size=2),
    st.lists(st.integers(0, 8), max_size=4),
)


def _reversed(name: str) -> Reordering:
    world = EXAMPLE_WORLDS[name]
    size = len(world_events(world))
    return _reorder(world, list(reversed(range(size))), [], [], [])


def _duplicated_first(name: str) -> Reordering:
    world = EXAMPLE_WORLDS[name]
    size = len(world_events(world))
    return _reorder(world, list(range(size)), [0, size - 1], [], [size])


@pytest.mark.invariant("order-insensitivity")
@example(case=_reversed("result after_decoy"))
@example(case=_reversed("result before_decoy"))
@example(case=_reversed("result split"))
@example(case=_reversed("everything at once"))
@example(case=_duplicated_first("result embedded"))
@example(case=_duplicated_first("everything at once"))
@example(case=_reversed("receipt log non_json"))
@example(case=_reversed("memory store whose get raises AgentError"))
@example(case=_reversed("receipt log missing"))
@example(case=_reversed("final incomplete_without_final"))
@given(case=REORDERINGS)
def test_reordering_duplicating_or_adding_events_changes_nothing(
    target, case: Reordering
) -> None:
    """Permuting the run's events, duplicating some or inserting unrelated ones
    leaves every check as it was.

    Task 4 (result evidence): results are searched as a set of observable
    facts, not a transcript; two useful runs may take their steps in another
    order or repeat a read. An evaluator that looks only at the first or last
    event, stops at the first event with the tool, or counts events judges the
    transcript's shape instead.
    """
    world = case.world
    note(describe(world))
    note(case.how)
    canonical = judged(target, world)
    reordered = judged(target, world, events=case.events)
    context = f"{describe(world)}\n{case.how}"

    # A lesson about two evaluations rebuilds both: the snippet prints the
    # report in the canonical order, then after the reordering.
    def plain(folder: str, lesson) -> str:
        return order_test(world, case.events, truth(world), target.level, folder=folder)

    then = (case.how, world, case.events)
    with judging(world, target, case.how, then=then, plain=plain):
        for before, after, check in zip(
            canonical, reordered, truth(world), strict=False
        ):
            if not check.same(before, after, target.level):
                # What the world says, not what the first evaluation said: that
                # one may be the wrong one.
                fail(
                    world=context,
                    expected=f"in any event order: {check.shown(target.level)}",
                    observed=f"in the canonical order: {shown_row(before)}; after"
                    f" reordering: {shown_row(after)}",
                    hint=placed(
                        "search every event for one with the tool whose result"
                        " holds the substring; do not depend on position, first or"
                        " last event, or the number of events",
                        "evaluate_run",
                    ),
                    # The check's own code depends on the order: its truth
                    # lesson's cause (a verdict that changes, never only words).
                    cause=verdict_cause(check, None),
                )
        if len(canonical) != len(reordered):
            fail(
                world=context,
                expected=f"{len(canonical)} checks in any event order",
                observed=f"{len(reordered)} checks after reordering",
                hint=placed(
                    "the checks come from the case, not from the events", "evaluate_run"
                ),
            )
