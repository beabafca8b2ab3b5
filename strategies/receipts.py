"""Receipts: each expectation, the receipt stored for it, and every kind.

A receipt fact is a receipt stored under a call id (through the store, or
appended to the log after the store was built, or not at all) and an
expectation of it; the kind says how the expectation differs from what was
stored. A kind changes one thing only: the tool, the exit state, the result
substring, the changed-artifact tuple, or where the marker sits.

Facts of real runs (`stored="played"`) describe a receipt the target's own
workspace recorded: nothing is stored for them, and a kind applies only
where it really makes the expectation false (`applies`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from strategies.files import spelled
from strategies.kinds import FAIL, PASS, Kind, Kinds
from strategies.vocabulary import EFFECT_TOOLS, TOOLS, other

__all__ = [
    "RECEIPT_KINDS",
    "STORED",
    "Expectation",
    "ReceiptFact",
    "ReceiptKind",
    "Stored",
    "receipt_expectation",
    "stored_receipt",
]

#: How a receipt is (not) stored: through the store, appended to the log
#: after the store was built (only a reload sees it), absent, or recorded by
#: a real run.
STORED = ("put", "appended", "absent", "played")

_DEFAULT_ARTIFACTS = ("out/a0.txt", "out/b0.txt")


@dataclass(frozen=True)
class ReceiptFact:
    """One receipt expectation and the receipt stored for it.

    `tool`, `exit_state` and `artifacts` are the stored receipt's; `marker`
    is the substring its result holds (a real run's: a substring of its
    actual `result`).
    """

    call_id: str = "call-1"
    tool: str = "edit_file"
    exit_state: str = "ok"
    artifacts: tuple[str, ...] = ()
    kind: str = "match"
    marker: str = "[C]"
    stored: str = "put"
    result: str = ""  # a real run's actual result; derived from the marker otherwise

    def __post_init__(self) -> None:
        RECEIPT_KINDS[self.kind]  # an unknown kind is refused here, at once
        if self.stored not in STORED:
            raise ValueError(f"receipt: stored {self.stored!r}")
        if self.exit_state not in ("ok", "error"):
            raise ValueError(f"receipt: exit_state {self.exit_state!r}")


@dataclass(frozen=True)
class Stored:
    """The receipt as stored: what the log line or the store holds."""

    call_id: str
    tool: str
    arguments: dict[str, object]
    exit_state: str
    result: str
    artifacts: tuple[str, ...]


@dataclass(frozen=True)
class Expectation:
    """The case's ReceiptExpectation, as plain values."""

    call_id: str
    tool: str
    exit_state: str
    contains: str
    artifacts: tuple[str, ...]


def _artifacts(fact: ReceiptFact, need: int) -> tuple[str, ...]:
    """The fact's artifacts, topped up with fixed paths to `need` of them
    (never for a real run's receipt, which is what it is)."""
    artifacts = fact.artifacts
    if fact.stored == "played":
        return artifacts
    for extra in _DEFAULT_ARTIFACTS:
        if len(artifacts) >= need:
            break
        if extra not in artifacts:
            artifacts = (*artifacts, extra)
    return artifacts


def _arguments(fact: ReceiptFact, artifacts: tuple[str, ...]) -> dict[str, object]:
    path = artifacts[0] if artifacts else "notes.txt"
    if fact.tool == "run_command":
        return {"argv": ["python", "-c", "print('ok')"]}
    if fact.tool == "write_file":
        return {"path": path, "content": "text"}
    return {"path": path, "old": "1", "new": "2"}


Change = Callable[[ReceiptFact, Expectation], Expectation]


@dataclass(frozen=True)
class ReceiptKind(Kind):
    """A kind of receipt fact.

    `need` artifacts must be stored for the kind to mean anything (they are
    topped up for drawn receipts); `expect` changes the matching expectation;
    `hide` moves the marker out of the result: "call_id", "artifact" or
    "arguments" (the result then holds no marker).
    """

    need: int = 0
    expect: Change = lambda fact, matching: matching
    hide: str = ""
    #: The expectation names a call id nothing is stored under.
    absent: bool = False
    no_artifacts: bool = False
    result: str = "done {marker} ok"
    stored_artifacts: Callable[[tuple[str, ...]], tuple[str, ...]] | None = None


def stored_receipt(fact: ReceiptFact) -> Stored:
    """The receipt stored for `fact` (for a real run: the one it recorded)."""
    kind = RECEIPT_KINDS[fact.kind]
    artifacts = () if kind.no_artifacts else _artifacts(fact, kind.need)
    if kind.stored_artifacts is not None:
        artifacts = kind.stored_artifacts(artifacts)
    call_id = fact.call_id
    arguments = _arguments(fact, artifacts)
    result = fact.result or kind.result.format(
        marker=fact.marker, swapped=fact.marker.swapcase()
    )
    if kind.hide:
        result = "done ok"
        if kind.hide == "call_id":
            call_id = f"{fact.call_id}-{fact.marker}"
        elif kind.hide == "artifact":
            artifacts = (*artifacts, f"out/{fact.marker}.txt")
        else:
            arguments = {**arguments, "note": fact.marker}
    return Stored(call_id, fact.tool, arguments, fact.exit_state, result, artifacts)


def receipt_expectation(fact: ReceiptFact) -> Expectation:
    """The case's expectation for `fact`."""
    stored = stored_receipt(fact)
    matching = Expectation(
        stored.call_id, stored.tool, stored.exit_state, fact.marker, stored.artifacts
    )
    return RECEIPT_KINDS[fact.kind].expect(fact, matching)


def applies(fact: ReceiptFact) -> bool:
    """Whether the kind really gives the fact its verdict (a real run's receipt
    may lack what a kind changes: no artifacts to reverse, no letter to swap)."""
    kind = RECEIPT_KINDS[fact.kind]
    stored = stored_receipt(fact)
    expected = receipt_expectation(fact)
    matches = (
        expected.tool == stored.tool
        and expected.exit_state == stored.exit_state
        and expected.contains in stored.result
        and expected.artifacts == stored.artifacts
    )
    return matches == kind.passes


def _with(**changes: Callable[[ReceiptFact, Expectation], object]) -> Change:
    def change(fact: ReceiptFact, matching: Expectation) -> Expectation:
        values = {name: make(fact, matching) for name, make in changes.items()}
        return replace(matching, **values)

    return change


def _respelled(fact: ReceiptFact, matching: Expectation) -> tuple[str, ...]:
    return tuple(
        spelled(tuple(a.split("/")), ("dot_slash", "double_slash")[i % 2])
        for i, a in enumerate(matching.artifacts)
    )


_EXACT_TUPLE = "compare changed_artifacts as the exact tuple"


def _other_id(call_id: str) -> str:
    """The call id in the other letter case (marked when it has no letters)."""
    swapped = call_id.swapcase()
    return swapped if swapped != call_id else f"X{call_id}"


RECEIPT_KINDS: Kinds[ReceiptKind] = Kinds(
    "receipt",
    [
        ReceiptKind(
            "match",
            PASS,
            "the expectation states the stored receipt's facts",
            "compare tool, exit_state, the result substring and the exact"
            " changed_artifacts tuple",
        ),
        ReceiptKind(
            "match_spelled",
            PASS,
            "the expectation states the stored receipt's facts, its changed"
            " artifacts spelled unnormalised (./a, a//b)",
            "changed artifacts are stored normalised; compare the normalised tuple",
            need=1,
            expect=_with(artifacts=_respelled),
        ),
        ReceiptKind(
            "match_error_result",
            PASS,
            "the expectation states the stored receipt's facts; its result is an"
            " error message holding the substring",
            "an error result is still the receipt's result: search it like any other",
            result="error: could not finish near {marker}",
        ),
        ReceiptKind(
            "tool",
            FAIL,
            "the expectation names another tool",
            "the receipt's tool must equal the expected tool",
            perturbation="expected receipt tool changed",
            changes="case",
            expect=_with(tool=lambda f, m: other(EFFECT_TOOLS + TOOLS, m.tool)),
        ),
        ReceiptKind(
            "tool_case",
            FAIL,
            "the expectation names the tool in upper case",
            "the receipt's tool must equal the expected tool exactly",
            changes="case",
            expect=_with(tool=lambda f, m: m.tool.upper()),
        ),
        ReceiptKind(
            "tool_prefix",
            FAIL,
            "the expectation names the receipt's tool without its last letter",
            "compare the receipt's tool with ==, not `in`",
            changes="case",
            expect=_with(tool=lambda f, m: m.tool[:-1]),
        ),
        ReceiptKind(
            "tool_extended",
            FAIL,
            "the expectation names the receipt's tool with an 's' added",
            "compare the receipt's tool with ==, not `in` or startswith",
            changes="case",
            expect=_with(tool=lambda f, m: m.tool + "s"),
        ),
        ReceiptKind(
            "exit_state",
            FAIL,
            "the expectation has the other exit state",
            "the receipt's exit_state must equal the expected one",
            perturbation="expected exit state changed",
            changes="case",
            expect=_with(exit_state=lambda f, m: other(("ok", "error"), m.exit_state)),
        ),
        ReceiptKind(
            "result",
            FAIL,
            "the expectation's result substring is not in the stored result",
            "result_contains must occur in the receipt's result",
            perturbation="expected result substring changed",
            changes="case",
            expect=_with(contains=lambda f, m: f"{m.contains}|"),
        ),
        ReceiptKind(
            "result_case",
            FAIL,
            "the expectation's result substring occurs only in the other letter case",
            "the result substring test is case-sensitive",
            changes="case",
            expect=_with(contains=lambda f, m: m.contains.swapcase()),
        ),
        ReceiptKind(
            "stored_case_changed",
            FAIL,
            "the stored result holds the substring only in the other letter case"
            " (a log line of the same length as the matching one)",
            "the result substring test is case-sensitive; and a log rewritten at"
            " the same path, even to the same length, must be read again",
            perturbation="the stored result rewritten in the other letter case",
            result="done {swapped} ok",
        ),
        ReceiptKind(
            "result_nfd_held",
            FAIL,
            "the stored result holds the substring with a decomposed (NFD)"
            " accent; the expectation asks for it composed (NFC)",
            "NFC and NFD are different text: search the result as it is, no"
            " unicodedata.normalize",
            changes="case",
            result="done {marker}e\u0301 ok",
            expect=_with(contains=lambda f, m: f"{m.contains}\u00e9"),
        ),
        ReceiptKind(
            "result_ligature_held",
            FAIL,
            "the stored result holds the substring with a ligature (ﬁ); the"
            " expectation asks for the two letters (fi)",
            "a ligature is another character: search the result as it is",
            changes="case",
            result="done {marker}\ufb01 ok",
            expect=_with(contains=lambda f, m: f"{m.contains}fi"),
        ),
        ReceiptKind(
            "artifacts_nfd_stored",
            FAIL,
            "the receipt names a changed artifact in decomposed (NFD) form; the"
            " expectation names it composed (NFC)",
            "compare changed_artifacts exactly: the names 'é' and 'e\u0301' are"
            " different files",
            need=1,
            stored_artifacts=lambda arts: (*arts[:-1], "out/cafe\u0301.txt"),
            expect=_with(
                artifacts=lambda f, m: (*m.artifacts[:-1], "out/caf\u00e9.txt")
            ),
        ),
        ReceiptKind(
            "artifacts_unnormalised_stored",
            FAIL,
            "the receipt names its changed artifacts as written ('./a', 'a//b');"
            " the expectation names them normalised",
            "compare the receipt's changed_artifacts as stored: do not normalise"
            " the receipt's side",
            need=1,
            stored_artifacts=lambda arts: tuple(f"./{a}" for a in arts),
            expect=_with(artifacts=lambda f, m: tuple(a[2:] for a in m.artifacts)),
        ),
        ReceiptKind(
            "artifacts_reversed",
            FAIL,
            "the expectation lists the changed artifacts in reverse order",
            f"{_EXACT_TUPLE}, order included: not as a set, not sorted",
            perturbation="expected changed artifacts reversed",
            changes="case",
            need=2,
            expect=_with(artifacts=lambda f, m: m.artifacts[::-1]),
        ),
        ReceiptKind(
            "artifacts_prefix",
            FAIL,
            "the expectation lists the changed artifacts without the last one",
            f"{_EXACT_TUPLE}, not a prefix or subset",
            perturbation="last expected changed artifact dropped",
            changes="case",
            need=1,
            expect=_with(artifacts=lambda f, m: m.artifacts[:-1]),
        ),
        ReceiptKind(
            "artifacts_suffix",
            FAIL,
            "the expectation lists the changed artifacts without the first one",
            f"{_EXACT_TUPLE}, not a subset",
            changes="case",
            need=1,
            expect=_with(artifacts=lambda f, m: m.artifacts[1:]),
        ),
        ReceiptKind(
            "artifacts_superset",
            FAIL,
            "the expectation lists one changed artifact more",
            _EXACT_TUPLE,
            perturbation="one more changed artifact expected",
            changes="case",
            expect=_with(artifacts=lambda f, m: (*m.artifacts, "out/more0.txt")),
        ),
        ReceiptKind(
            "artifacts_twice",
            FAIL,
            "the expectation lists the changed artifacts twice over",
            _EXACT_TUPLE,
            changes="case",
            need=1,
            expect=_with(artifacts=lambda f, m: (*m.artifacts, *m.artifacts)),
        ),
        ReceiptKind(
            "artifacts_missing",
            FAIL,
            "the expectation lists no changed artifacts; the receipt has some",
            "an empty expected tuple must equal the receipt's tuple too",
            changes="case",
            need=1,
            expect=_with(artifacts=lambda f, m: ()),
        ),
        ReceiptKind(
            "artifacts_unexpected",
            FAIL,
            "the expectation lists a changed artifact; the receipt has none",
            "compare changed_artifacts: they are part of the receipt's facts",
            changes="case",
            no_artifacts=True,
            expect=_with(artifacts=lambda f, m: ("out/a0.txt",)),
        ),
        ReceiptKind(
            "call_id_case",
            FAIL,
            "the expectation names the call id in the other letter case; nothing"
            " is stored under that id",
            "look the call id up exactly: 'CALL-1' is not 'call-1', so the receipt"
            " is absent",
            changes="case",
            absent=True,
            expect=_with(call_id=lambda f, m: _other_id(m.call_id)),
        ),
        ReceiptKind(
            "marker_in_call_id",
            FAIL,
            "the substring is in the receipt's call id, not in its result",
            "search receipt.result only: the call id is not evidence of output",
            hide="call_id",
        ),
        ReceiptKind(
            "marker_in_artifact",
            FAIL,
            "the substring is in one of the receipt's changed artifact paths, not"
            " in its result",
            "search receipt.result only, not the artifacts",
            hide="artifact",
        ),
        ReceiptKind(
            "marker_in_arguments",
            FAIL,
            "the substring is in the receipt's arguments (so in its JSON), not in"
            " its result",
            "search receipt.result only, not the arguments or the whole receipt"
            " serialised",
            hide="arguments",
        ),
    ],
)
