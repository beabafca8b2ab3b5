"""The oracle itself: every kind is drawn, the truth covers it, a file's verdict
follows from its bytes, and each perturbation flips exactly the check it names.

The invariants are only as good as the worlds' truth. These tests judge that
truth without any target: if one of them fails, the suite (not an evaluator)
is wrong.
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata

import pytest
from _written_worlds import EXAMPLE_WORLDS, FINAL_EXAMPLES, TRAP_WORLDS
from hypothesis import HealthCheck, Phase, example, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from strategies import (
    FILE_KINDS,
    FINAL_KINDS,
    LOG_KINDS,
    PASSING_WORLD,
    RECEIPT_KINDS,
    RESULT_KINDS,
    FileFact,
    FinalFact,
    LogFact,
    ReceiptFact,
    ResultFact,
    UnknownKindError,
    World,
    describe,
    devices_available,
    file_layout,
    final_text,
    hostile_worlds,
    passing_worlds,
    perturbations,
    played_worlds,
    truth,
    world_events,
    worlds,
)
from strategies.draw import contents, edits, final_facts, log_damages, receipt_facts
from strategies.edits import EDITS, Edit
from strategies.files import file_kind
from strategies.finals import hits, layout
from strategies.logs import damage_effect, tamper
from strategies.receipts import receipt_expectation, stored_receipt
from strategies.receipts import result_hits as receipt_result_hits
from strategies.results import (
    HARDENED,
    RESULT_EXAMPLES,
    RESULT_TRAPS,
    result_asks,
    result_events,
)
from strategies.results import hits as result_hits

# Meta-tests of the suite's own strategies and oracle: the invariants draw
# from the same strategies on every interpreter; their distribution is
# checked once (tox: py311), since it is minutes and interpreter-neutral.
pytestmark = pytest.mark.once

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
    strategy: st.SearchStrategy[World],
    wanted: set[tuple[str, str]],
    count: int = 2500,
) -> set[tuple[str, str]]:
    """Every (group, kind) among the worlds the strategy draws, up to `count`
    of them, the drawing stopped once every `wanted` kind is among them
    (derandomized: the same worlds, and the same stop, on every run)."""
    seen: set[tuple[str, str]] = set()

    def every_one_seen(world: World) -> bool:
        for group, (_, kinds_of) in GROUPS.items():
            seen.update((group, kind) for kind in kinds_of(world))
        return wanted <= seen

    with contextlib.suppress(NoSuchExample):
        find(
            strategy,
            every_one_seen,
            settings=settings(
                max_examples=count,
                database=None,
                derandomize=True,
                phases=[Phase.generate],
                suppress_health_check=list(HealthCheck),
                deadline=None,
            ),
        )
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
    missing = sorted(wanted - _drawn(strategy, wanted))
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


# A few fixed texts: empty, one letter, lines of every ending, non-ASCII, blanks.
TEXTS = ("", "a", "answer = 2\n", "x = 1\r\ny = 2", "é 日本 ß\n", "  spaced out  ")


@pytest.mark.parametrize("kind", list(FILE_KINDS))
@pytest.mark.parametrize("text", TEXTS)
def test_a_file_kind_keeps_its_verdict(kind: str, text: str) -> None:
    """What a file is decides its verdict, except a readable file, whose
    verdict its bytes decide: kept as it is, it passes."""
    fact = FileFact(0, ("a0",), kind, text)
    expected, disk = file_layout(fact)
    assert file_kind(fact).verdict == FILE_KINDS[kind].verdict
    if FILE_KINDS[kind].verdict == "pass":
        assert disk == expected.encode()


def _changed(text: str, edit: Edit) -> bool:
    """Whether the edit changed anything, said without the edit's code: the
    operators' meaning written again in plain Python."""
    data, arg, op = text.encode(), edit.arg, edit.op
    n = len(data)
    if op == "byte":
        return bool(data) and data[edit.at % n] != arg.encode("latin-1")[0]
    if op == "truncate":
        return edit.at % (n + 1) < n
    if op == "endings":
        return any(e != arg for e in re.findall(r"\r\n|\r|\n", text))
    if op == "encode":
        return text.encode(arg, "replace") != data
    if op == "normalise":
        return not unicodedata.is_normalized(arg, text)
    if op == "strip":
        return text != text.strip()
    if op == "case":
        return getattr(text, arg)() != text
    # kept changes nothing; a BOM always adds; the rest add `arg`.
    return op == "bom" or (op != "kept" and arg != "")


@settings(max_examples=400, database=None, deadline=None)
@given(text=contents(), edit=edits())
def test_an_edit_passes_exactly_when_it_changed_nothing(text: str, edit: Edit) -> None:
    """A plain file's check passes exactly when its edit changed no byte of it
    (nor of what is expected), fails when it changed them into other UTF-8, and
    is unavailable exactly when the file is not UTF-8; the operator's own
    words say what it did, and the file's bytes are in the world's words."""
    fact = FileFact(0, ("a0",), "exact", text, edit=edit)
    expected, disk = file_layout(fact)
    verdict = file_kind(fact).verdict
    valid = disk.decode("utf-8", "replace").encode() == disk
    if not valid:
        assert verdict == "unavailable"
    elif edit.reading and edit.side == "world":
        # The expected text is the file read leniently: so equal to it.
        assert verdict == ("pass" if expected == disk.decode() else "fail")
    else:
        assert verdict == ("fail" if _changed(text, edit) else "pass")
    if verdict != "pass":
        words = describe(World(files=(fact,)))
        assert f", on disk {repr(disk)[:40]}" in words or len(repr(disk)) > 60


def test_edits_reach_every_verdict_of_their_own() -> None:
    """The drawn space holds, for every operator, a change (a failing or an
    unavailable check) and, where the operator can leave the bytes as they
    are (NFC of NFC text, Latin-1 of ASCII), a passing one."""
    seen: set[tuple[str, str]] = set()

    @settings(
        max_examples=1500,
        database=None,
        derandomize=True,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(text=contents(), edit=edits())
    def collect(text: str, edit: Edit) -> None:
        seen.add(
            (edit.op, file_kind(FileFact(0, ("a0",), "exact", text, edit=edit)).verdict)
        )

    collect()
    for op in EDITS:
        wanted = (
            {"pass"}
            if op == "kept"
            else {"fail", "pass"} - ({"pass"} if op == "bom" else set())
        )
        assert wanted <= {v for o, v in seen if o == op}, op
    assert any(v == "unavailable" for _, v in seen)


@pytest.mark.parametrize(
    "make",
    [
        lambda: FinalFact(value="nope"),
        lambda: FileFact(0, ("a0",), "nope"),
        lambda: ResultFact(placed=("nope",)),
        lambda: ReceiptFact(elsewhere=("nope",)),
        lambda: LogFact(trap="nope"),
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


def _holds(event, tool: str, asked: str) -> bool:
    """The contract's result rule, said again plainly over one neutral event."""
    return (
        event.action == "tool"
        and event.tool == tool
        and isinstance(event.result, str)
        and asked in event.result
    )


@settings(max_examples=300, database=None, deadline=None)
@given(world=worlds() | hostile_worlds())
@example(world=EXAMPLE_WORLDS["everything at once"])
def test_a_result_passes_exactly_when_an_event_of_its_tool_holds_it(world) -> None:
    """A result fact's truth by construction is the contract's rule over the
    whole run's events (other facts', noise, crossed ones): it passes exactly
    when an event whose action is a call of that tool has a string result
    holding what the case asks, and its own events hold that as often as it
    was placed."""
    events = world_events(world)
    for fact in world.results:
        asked = result_asks(fact)
        passes = any(_holds(event, fact.tool, asked) for event in events)
        assert RESULT_KINDS[fact.kind].passes == passes, describe(world)
        own = sum(_holds(event, fact.tool, asked) for event in result_events(fact))
        assert own == result_hits(fact), describe(world)


def test_the_result_examples_keep_every_old_result_kind() -> None:
    """Every result the old kind table named is still a written example (one
    world per mistake, met under any seed), with the verdict it had."""
    passing = {
        "embedded", "exact", "after_decoy", "before_decoy", "error_result",
        "failed_status", "among_many", "repeated", "look_alike_then_it",
    }  # fmt: skip
    for name, fact in RESULT_EXAMPLES.items():
        assert RESULT_KINDS[fact.kind].passes == (name in passing), name
        assert f"result {name}" in EXAMPLE_WORLDS
    for name, fact in RESULT_TRAPS.items():
        assert fact.kind == ("trap" if name in HARDENED else name), name
        assert f"trap result {name}" in TRAP_WORLDS


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


@settings(max_examples=200, database=None, deadline=None)
@given(fact=receipt_facts().map(lambda drawn: drawn[1]))
def test_a_receipt_result_holds_the_substring_as_often_as_it_was_placed(fact) -> None:
    """A drawn receipt's result holds the asked substring exactly as often as
    its layout placed it, so its `result` verdict is the construction's."""
    stored, expected = stored_receipt(fact), receipt_expectation(fact)
    assert _occurrences(stored.result, expected.contains) == receipt_result_hits(fact)


@settings(max_examples=200, database=None, deadline=None)
@given(damage=log_damages(), count=st.integers(1, 3))
def test_a_damaged_log_loads_as_its_effect_says(damage, count: int) -> None:
    """The bundled store loads a log of `count` receipts with the drawn damage
    done exactly as `damage_effect` says: every receipt, those before the
    cut, or an error."""
    import tempfile
    from pathlib import Path

    import evaluator

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        store = evaluator.ReceiptStore(path)
        for n in range(count):
            store.put(
                evaluator.EffectReceipt(f"c{n}", "write_file", {"p": n}, "ok", "é")
            )
        other = evaluator.EffectReceipt("c0", "edit_file", {}, "error", "x")
        conflict = (json.dumps(other.to_dict(), sort_keys=True) + "\n").encode()
        path.write_bytes(tamper(path.read_bytes(), damage, conflict))
        effect = damage_effect(damage)
        if effect == "unavailable":
            with pytest.raises((evaluator.AgentError, UnicodeError)):
                evaluator.ReceiptStore(path)
            return
        loaded = evaluator.ReceiptStore(path)
        kept = count
        if effect == "shortened":
            kept = damage.line % count + (damage.at == -1)
        assert [loaded.get(f"c{n}") is not None for n in range(count)] == [
            n < kept for n in range(count)
        ]
