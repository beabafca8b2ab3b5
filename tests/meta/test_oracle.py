"""The oracle itself: every kind is drawn, the truth covers it, its layout agrees with
its verdict, and each perturbation flips exactly the check it names.

The invariants are only as good as the worlds' truth. These tests judge that
truth without any target: if one of them fails, the suite (not an evaluator)
is wrong.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from strategies import (
    EXAMPLE_WORLDS,
    FILE_KINDS,
    FINAL_KINDS,
    LOG_KINDS,
    PASSING_WORLD,
    RECEIPT_KINDS,
    RESULT_KINDS,
    TEXTS,
    TRAP_WORLDS,
    FileFact,
    FinalFact,
    LogFact,
    ReceiptFact,
    ResultFact,
    UnknownKindError,
    World,
    devices_available,
    file_layout,
    final_text,
    hostile_worlds,
    passing_worlds,
    perturbations,
    played_worlds,
    truth,
    worlds,
)
from strategies.draw import final_facts
from strategies.finals import FINAL_EXAMPLES, hits, layout

GROUPS = {
    "final": (FINAL_KINDS, lambda world: [world.final.kind]),
    "file": (FILE_KINDS, lambda world: [fact.kind for fact in world.files]),
    "result": (RESULT_KINDS, lambda world: [fact.kind for fact in world.results]),
    "receipt": (RECEIPT_KINDS, lambda world: [fact.kind for fact in world.receipts]),
    "log": (LOG_KINDS, lambda world: [world.log.kind]),
}
# Kinds no drawn world holds: a real run's own (its events come from its loop).
PLAYED_ONLY = {("result", "observed"), ("result", "unobserved")}


def _every_kind() -> list[tuple[str, str]]:
    return [(group, name) for group, (kinds, _) in GROUPS.items() for name in kinds]


def _drawn(
    strategy: st.SearchStrategy[World], count: int = 2500
) -> set[tuple[str, str]]:
    """Every (group, kind) among `count` worlds the strategy draws."""
    seen: set[tuple[str, str]] = set()

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(world: World) -> None:
        for group, (_, kinds_of) in GROUPS.items():
            seen.update((group, kind) for kind in kinds_of(world))

    collect()
    return seen


@pytest.mark.parametrize(
    "name, strategy, level",
    [
        ("worlds()", worlds(), "course"),
        ("hostile_worlds()", hostile_worlds(), "hardened"),
    ],
)
def test_every_kind_is_drawn(name: str, strategy, level: str) -> None:
    """Every kind of every group is drawn by the strategy that should draw it:
    course kinds by `worlds()`, hardened ones by `hostile_worlds()`; a kind no
    strategy draws tests nothing."""
    wanted = {
        (group, kind)
        for group, kind in _every_kind()
        if (group, kind) not in PLAYED_ONLY
        and (GROUPS[group][0][kind].level == level)
        and not (kind == "device" and not devices_available())
    }
    missing = sorted(wanted - _drawn(strategy))
    assert not missing, f"{name} never drew: {missing}"


def test_every_kind_has_a_written_example() -> None:
    """Every kind appears in an explicit example (EXAMPLE_WORLDS for course
    kinds, TRAP_WORLDS for hardened ones), so it is met under any seed."""
    written = [*EXAMPLE_WORLDS.values(), *TRAP_WORLDS.values()]
    missing = [
        f"{group} {kind}"
        for group, kind in _every_kind()
        if (group, kind) not in PLAYED_ONLY
        and not any(kind in GROUPS[group][1](world) for world in written)
    ]
    assert not missing, f"kinds without a written example: {missing}"


@pytest.mark.parametrize("world", [*EXAMPLE_WORLDS.values(), *TRAP_WORLDS.values()])
def test_truth_covers_every_written_world(world: World) -> None:
    """Truth gives one check per declared fact, named as the contract says,
    for every written world (every kind among them)."""
    checks = truth(world)
    repeated = sum(fact.repeat for fact in world.results)
    assert len(checks) == 1 + len(world.files) + len(world.results) + repeated + len(
        world.receipts
    )
    assert checks[0].name == "final"
    assert [c.name for c in checks[1 : 1 + len(world.files)]] == [
        f"file:{fact.path}" for fact in world.files
    ]


@pytest.mark.parametrize("kind", list(FILE_KINDS))
@pytest.mark.parametrize("text", TEXTS)
def test_a_file_kind_lays_out_what_its_verdict_says(kind: str, text: str) -> None:
    """A passing file kind puts exactly the expected content's UTF-8 on disk, a
    mismatching one puts decodable bytes that differ, an invalid-UTF-8 one
    bytes that do not decode, and a kind that changes only the case keeps the
    base text on disk (so it applies to a real run's files)."""
    file_kind = FILE_KINDS[kind]
    expected, disk = file_layout(FileFact(0, ("a0",), kind, text))
    if file_kind.verdict == "pass":
        assert disk == expected.encode()
    elif file_kind.verdict == "fail" and file_kind.place.__name__ == "_regular":
        assert disk.decode() != expected
    elif kind.startswith("invalid_utf8"):
        with pytest.raises(UnicodeDecodeError):
            disk.decode()
    if file_kind.changes == "case":
        assert disk == text.encode()


@pytest.mark.parametrize(
    "make",
    [
        lambda: FinalFact(value="nope"),
        lambda: FileFact(0, ("a0",), "nope"),
        lambda: ResultFact(kind="nope"),
        lambda: ReceiptFact(kind="nope"),
        lambda: LogFact(kind="nope"),
    ],
    ids=["final", "file", "result", "receipt", "log"],
)
def test_an_unknown_kind_is_refused_at_once(make) -> None:
    """A fact of an unknown kind is refused when it is made, naming the kind
    and the ones that exist, rather than silently standing for another."""
    with pytest.raises(UnknownKindError, match="unknown .* kind 'nope'; the .* are:"):
        make()


def _occurrences(text: str, asked: str) -> int:
    """Occurrences of `asked` in `text`, overlapping ones too."""
    return sum(text.startswith(asked, at) for at in range(len(text)))


@settings(max_examples=300, database=None, deadline=None)
@given(fact=final_facts())
@example(fact=FINAL_EXAMPLES["overlapping"])
def test_a_final_holds_the_substring_as_often_as_it_was_placed(fact) -> None:
    """The final's truth by construction is the text's: the asked substring
    occurs (overlapping occurrences counted) exactly as often as the layout
    placed it, so the filler and the look-alikes never hold it by accident,
    and the check's verdict is completed, text and at least one occurrence."""
    text, asked = layout(fact), final_text(fact)[1]
    assert _occurrences(text, asked) == hits(fact)
    passes = fact.completed and fact.value == "text" and asked in text
    assert FINAL_KINDS[fact.kind].passes == passes


def test_the_final_examples_keep_every_old_final_kind() -> None:
    """Every final the old kind table wrote out is still a written example
    (one world per mistake, met under any seed), with the verdict it had."""
    passing = {
        "embedded", "exact", "padded_edges", "final_event_differs",
        "completed_reason_limit", "completed_without_final_event", "repeated",
        "overlapping", "past_the_first_line", "far_from_the_start",
        "look_alike_then_it",
    }  # fmt: skip
    for name, fact in FINAL_EXAMPLES.items():
        assert FINAL_KINDS[fact.kind].passes == (name in passing), name
        assert f"final {name}" in EXAMPLE_WORLDS


def _flips_exactly(world: World) -> None:
    base = truth(world)
    assert all(check.passed for check in base), "the base world must pass"
    for perturbation in perturbations(world):
        after = truth(perturbation.world)
        assert len(after) == len(base), perturbation.name
        changed = {
            i for i, (a, b) in enumerate(zip(base, after, strict=False)) if a != b
        }
        flipped = {
            i
            for i, (a, b) in enumerate(zip(base, after, strict=False))
            if a.passed != b.passed
        }
        # A change of the case may rename its own check (another tool, a call
        # id without a receipt); it never touches another.
        assert flipped == set(perturbation.checks) >= changed, perturbation.name


def test_each_perturbation_of_the_written_base_flips_its_own_check() -> None:
    """Every single-fact perturbation of the written passing world changes the
    truth of exactly the checks it names."""
    _flips_exactly(PASSING_WORLD)


@settings(max_examples=60, database=None, deadline=None)
@given(world=passing_worlds())
def test_each_perturbation_flips_its_own_check(world: World) -> None:
    """Every single-fact perturbation of any drawn passing world changes the
    truth of exactly the checks it names, and nothing else."""
    _flips_exactly(world)


@settings(max_examples=20, database=None, deadline=None)
@given(world=played_worlds())
def test_each_wrong_fact_of_a_real_run_flips_its_own_check(world: World) -> None:
    """A played world's facts are all true, and each wrong fact the plan knows
    of changes the truth of exactly its own check."""
    _flips_exactly(world)
