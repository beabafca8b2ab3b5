"""Receipts: the stored receipt drawn from its space, the expectation derived from it.

A receipt fact is a receipt stored under a call id (through the store,
appended to the log after the store was built, not at all, or recorded by a
real run) and the case's expectation of it. The stored receipt is drawn: its
tool, exit state, changed artifacts, and its result laid out as filler with
the marker placed k >= 0 times (by `strategies.finals`, so the count is
known: `hits`), the marker perhaps also where it must not count (the call
id, an artifact, the arguments). The expectation is the stored facts with
each field changed or not, apart from the others (`ReceiptFact`), and the
check passes exactly when no field is wrong (`mismatches`). A real run's
receipt (`stored="played"`) carries its actual `result`, which the plan's
replay knows: its substring is searched in that text.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

from strategies.finals import LOOKALIKES, FinalFact, asked_text, hits, layout
from strategies.kinds import FAIL, PASS, Kind, Kinds, UnknownKindError
from strategies.paths import SPELLINGS, spelled
from strategies.vocabulary import EFFECT_TOOLS, TOOLS, other

__all__ = [
    "RECEIPT_KINDS",
    "STORED",
    "Expectation",
    "ReceiptFact",
    "Stored",
    "mismatches",
    "receipt_changes",
    "receipt_expectation",
    "receipt_kind",
    "stored_receipt",
]

#: How a receipt is (not) stored: through the store, appended to the log
#: after the store was built (only a reload sees it), absent, or recorded by
#: a real run. Truly a list.
STORED = ("put", "appended", "absent", "played")
#: Where else the marker may sit, where it must not count.
PLACES = ("call_id", "artifact", "arguments")
#: Unicode forms a case may write its artifacts in ("": as stored).
FORMS = ("", "NFC", "NFD")
#: The artifact an expectation may add: pick number len(stored artifacts).
MORE = "out/more0.txt"
_RESULT = FinalFact(("done ", " ok"))


@dataclass(frozen=True)
class ReceiptFact:
    """A stored receipt, drawn, and the expectation's drawn changes to it.

    Stored: `tool`, `exit_state`, `artifacts` (as stored: never normalised),
    the result (`layout`'s text with `marker` as its marker, or `result`
    when given: a real run's), the marker also in each of `elsewhere`.
    Expected: `expected_tool` ("" the stored one), the other exit state
    when `other_exit`, `layout.asked` (the substring or a look-alike), the
    artifacts `picks` (indices into the stored ones, len = MORE; None: each
    once, in order) written with `spellings` (cycled) in Unicode `form`,
    two or more of them `joined` into one artifact by ", " (the same text
    joined, another tuple), and the call id in the other letter case when
    `other_id`.
    """

    call_id: str = "call-1"
    tool: str = "edit_file"
    exit_state: str = "ok"
    artifacts: tuple[str, ...] = ()
    marker: str = "[C]"
    stored: str = "put"
    result: str = ""
    layout: FinalFact = _RESULT
    elsewhere: tuple[str, ...] = ()
    expected_tool: str = ""
    other_exit: bool = False
    picks: tuple[int, ...] | None = None
    spellings: tuple[str, ...] = ()
    form: str = ""
    other_id: bool = False
    joined: bool = False

    def __post_init__(self) -> None:
        for name, values, known in (
            ("stored", (self.stored,), STORED),
            ("place", self.elsewhere, PLACES),
            ("spelling", self.spellings, SPELLINGS),
            ("form", (self.form,), FORMS),
        ):
            for value in values:
                if value not in known:
                    raise UnknownKindError(
                        f"unknown receipt {name} kind {value!r}; the receipt"
                        f" {name} kinds are: {', '.join(known)}"
                    )
        if self.exit_state not in ("ok", "error"):
            raise ValueError(f"receipt: exit_state {self.exit_state!r}")
        pool = len(self.artifacts) + ("artifact" in self.elsewhere)
        if any(not 0 <= p <= pool for p in self.picks or ()):
            raise ValueError(f"receipt: picks {self.picks} of {pool} artifacts")

    @property
    def kind(self) -> str:
        """The first field the expectation gets wrong (a RECEIPT_KINDS name)."""
        return next(iter(mismatches(self)), "match")


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
    """The case's ReceiptExpectation, as plain values (artifacts as written)."""

    call_id: str
    tool: str
    exit_state: str
    contains: str
    artifacts: tuple[str, ...]


# Cached: a world's truth asks for a receipt's text and expectation many
# times over (every check, every description), and each is a new validated
# FinalFact; uncached, they were a tenth of a passing verdict.
@lru_cache(maxsize=1024)
def _text(fact: ReceiptFact) -> FinalFact:
    return replace(fact.layout, marker=fact.marker)


def _arguments(tool: str, artifacts: tuple[str, ...]) -> dict[str, object]:
    path = artifacts[0] if artifacts else "notes.txt"
    if tool == "run_command":
        return {"argv": ["python", "-c", "print('ok')"]}
    if tool == "write_file":
        return {"path": path, "content": "text"}
    return {"path": path, "old": "1", "new": "2"}


def stored_receipt(fact: ReceiptFact) -> Stored:
    """The receipt stored for `fact` (for a real run: the one it recorded)."""
    hide = fact.marker
    call_id = f"{fact.call_id}-{hide}" if "call_id" in fact.elsewhere else fact.call_id
    artifacts = fact.artifacts
    if "artifact" in fact.elsewhere:
        artifacts = (*artifacts, f"out/{hide}.txt")
    arguments = _arguments(fact.tool, fact.artifacts)
    if "arguments" in fact.elsewhere:
        arguments["note"] = hide
    result = fact.result or layout(_text(fact))
    return Stored(call_id, fact.tool, arguments, fact.exit_state, result, artifacts)


def normalised(path: str) -> str:
    """A case's path as the contract stores it: no empty or '.' component."""
    return "/".join(part for part in path.split("/") if part not in ("", "."))


@lru_cache(maxsize=1024)
def receipt_expectation(fact: ReceiptFact) -> Expectation:
    """The case's expectation for `fact`."""
    stored = stored_receipt(fact)
    pool = (*stored.artifacts, MORE)
    picks = range(len(stored.artifacts)) if fact.picks is None else fact.picks
    spellings = fact.spellings or ("plain",)
    artifacts = tuple(
        unicodedata.normalize(fact.form, written) if fact.form else written
        for i, p in enumerate(picks)
        for written in [
            spelled(tuple(pool[p].split("/")), spellings[i % len(spellings)])
        ]
    )
    if fact.joined and len(artifacts) > 1:
        artifacts = (", ".join(artifacts),)
    call_id = stored.call_id
    if fact.other_id:
        swapped = call_id.swapcase()
        call_id = swapped if swapped != call_id else f"X{call_id}"
    return Expectation(
        call_id,
        fact.expected_tool or stored.tool,
        other(("ok", "error"), stored.exit_state)
        if fact.other_exit
        else fact.exit_state,
        asked_text(_text(fact)),
        artifacts,
    )


def result_hits(fact: ReceiptFact) -> int:
    """How often the stored result holds the asked substring: from the layout,
    or (a given result, a real run's) from that known text."""
    if fact.result:
        return fact.result.count(receipt_expectation(fact).contains)
    return hits(_text(fact))


def mismatches(fact: ReceiptFact) -> tuple[str, ...]:
    """The fields the expectation gets wrong, in the contract's order."""
    stored, expected = stored_receipt(fact), receipt_expectation(fact)
    wrong = {
        "call_id": fact.other_id,
        "tool": expected.tool != stored.tool,
        "exit_state": expected.exit_state != stored.exit_state,
        "result": not result_hits(fact),
        "artifacts": tuple(map(normalised, expected.artifacts)) != stored.artifacts,
    }
    return tuple(name for name, is_wrong in wrong.items() if is_wrong)


def _hint(fact: ReceiptFact, field: str) -> str:
    """The usual mistake behind a wrong verdict on this fact."""
    stored, expected = stored_receipt(fact), receipt_expectation(fact)
    text = stored.result
    if field == "match":
        at = text.find(expected.contains)
        if result_hits(fact) > 1:
            return "the substring may occur more than once: `in`, not a count of 1"
        if at >= 80 or "\n" in text[:at]:
            return "search the whole result, not its first line or characters"
        if expected.artifacts != stored.artifacts:
            return (
                "changed artifacts are stored normalised: compare the normalised tuple"
            )
    if field == "tool":
        if expected.tool.lower() == stored.tool.lower():
            return "the receipt's tool must equal the expected tool exactly (case too)"
        if expected.tool in stored.tool or stored.tool in expected.tool:
            return "compare the receipt's tool with ==, not `in` or startswith"
    if field == "result":
        if fact.elsewhere:
            return (
                "search receipt.result only: not the call id, the artifacts or"
                " the arguments (nor the whole receipt serialised)"
            )
        shapes = [fact.layout.asked, *fact.layout.placed]
        for shape in shapes:
            if shape in LOOKALIKES:
                return LOOKALIKES[shape][1].replace("run.final", "receipt.result")
    if field == "artifacts":
        wanted = tuple(map(normalised, expected.artifacts))
        if any(a != normalised(a) for a in stored.artifacts):
            return "compare the receipt's artifacts as stored: do not normalise them"
        if sorted(wanted) == sorted(stored.artifacts):
            return "compare the exact artifact tuple, order included: not as a set"
        if set(wanted) == set(stored.artifacts):
            return "compare changed_artifacts as the exact tuple: repeats count"
        if fact.form:
            return "compare artifacts exactly: 'é' and 'e\u0301' are different names"
        if fact.joined:
            return "compare the artifact tuple item by item, not joined into one string"
    return RECEIPT_KINDS[field].hint


def receipt_kind(fact: ReceiptFact) -> Kind:
    """The fact's kind, its hint fitted to how the expectation is wrong."""
    kind = RECEIPT_KINDS[fact.kind]
    return replace(kind, hint=_hint(fact, kind.name))


def receipt_changes(fact: ReceiptFact) -> list[tuple[str, str, ReceiptFact]]:
    """Single changes of a passing receipt fact that fail it: (words, "case"
    or "world", the changed fact); the ones that change nothing are left out."""
    stored = stored_receipt(fact)
    picks = tuple(range(len(stored.artifacts))) if fact.picks is None else fact.picks
    case = {
        "expected receipt tool changed": {
            "expected_tool": other(EFFECT_TOOLS + TOOLS, stored.tool)
        },
        "expected exit state changed": {"other_exit": not fact.other_exit},
        "expected result substring in the other letter case": {
            "layout": replace(fact.layout, asked="other_case")
        },
        "expected changed artifacts reversed": {"picks": picks[::-1]},
        "last expected changed artifact dropped": {"picks": picks[:-1]},
        "one more changed artifact expected": {
            "picks": (*picks, len(stored.artifacts))
        },
    }
    options = [(words, "case", replace(fact, **new)) for words, new in case.items()]
    if not fact.result:
        gone = tuple("other_case" if p == "it" else p for p in fact.layout.placed)
        changed = replace(fact, layout=replace(fact.layout, placed=gone))
        options.append(
            ("the stored result no longer holds the substring", "world", changed)
        )
    return [option for option in options if mismatches(option[2])]


RECEIPT_KINDS: Kinds[Kind] = Kinds(
    "receipt",
    [
        Kind(
            "match",
            PASS,
            "the expectation states the stored receipt's facts",
            "compare tool, exit_state, the result substring (`in`) and the exact"
            " changed_artifacts tuple",
        ),
        Kind(
            "call_id",
            FAIL,
            "the expectation names the call id in the other letter case; nothing"
            " is stored under it",
            "look the call id up exactly: 'CALL-1' is not 'call-1', so the receipt"
            " is absent",
        ),
        *(
            Kind(name, FAIL, f"the expectation {words}", hint)
            for name, words, hint in (
                ("tool", "names another tool", "the tools must be equal (==)"),
                ("exit_state", "has the other exit state", "exit states must be equal"),
                ("result", "asks what the stored result lacks", "search the result"),
            )
        ),
        Kind(
            "artifacts",
            FAIL,
            "the expected changed artifacts are not the stored tuple",
            "compare changed_artifacts as the exact tuple, not a prefix or subset",
        ),
    ],
)
