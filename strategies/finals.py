"""The final answer, drawn from the space of texts, its truth by construction.

A final fact lays the run's final answer out as filler `pieces` with a
placement between each two: the case's substring itself ("it") or a
look-alike of it (the other letter case, a zero-width space inside, ...).
The run's `completed`, `reason`, closing event and the type of its final
are drawn apart from the text. The `final` check passes exactly when the
run completed, its final is text and one placement at least is what the
case asks for: known from the layout, never by searching the text.

Why that holds: filler never holds "[", "]" or "|", and every marker a
drawn world uses has exactly one "[" and one "]", so the asked substring
can only occur where a placement put its brackets; a placement differs from
the asked text inside or right beside its brackets, so only a placement
equal to it is an occurrence. (A played run's marker is a plain word; its
wrong facts check their own absence, see `strategies.plans.wrong_facts`.)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

from strategies.kinds import FAIL, PASS, Kind, Kinds, UnknownKindError
from strategies.vocabulary import INCOMPLETE_REASONS

__all__ = [
    "ASKS",
    "CLOSINGS",
    "FILLER_EXCLUDED",
    "FINAL_KINDS",
    "LOOKALIKES",
    "REASONS",
    "VALUES",
    "FinalFact",
    "final_changes",
    "final_hint",
    "final_said",
    "final_text",
    "final_words",
    "hits",
]

#: What filler never holds: the brackets of a marker and the bar of an
#: unpadded look-alike.
FILLER_EXCLUDED = "[]|"
_EXCLUDED = frozenset(FILLER_EXCLUDED)
REASONS = ("completed", *INCOMPLETE_REASONS)
#: What the run's closing FinalAction event says: run.final, other words,
#: the asked substring (whatever run.final holds), or no closing event.
CLOSINGS = ("final", "other", "asked", "none")
#: The type of run.final: text, None, and (hardened) values of other types.
VALUES = ("text", "none", "int", "bytes", "list", "dict")

_ZW = "\u200b"
Change = Callable[[str], "str | None"]

#: Look-alikes of a marker: what an evaluator that normalises would confuse
#: with it, and the hint for one that does. None: no look-alike of this
#: marker (NFD of a marker with nothing to decompose). Truly a list: the ways
#: text can be normalised.
LOOKALIKES: dict[str, tuple[Change, str]] = {
    "other_case": (
        lambda m: m.swapcase() if m.swapcase() != m else None,
        "the substring test is case-sensitive (whatever the case of the"
        " substring): no lower(), casefold() or 'smart case'",
    ),
    "zero_width": (
        lambda m: m[:1] + _ZW + m[1:],
        "an invisible character is still a character: search run.final as it"
        " is, without removing zero-width characters from either side",
    ),
    "decomposed": (
        lambda m: d if (d := unicodedata.normalize("NFD", m)) != m else None,
        "NFC and NFD are different text: search run.final as it is, no"
        " unicodedata.normalize",
    ),
    "ligature": (
        lambda m: m.replace("fi", "\ufb01") if "fi" in m else None,
        "a ligature is another character: no NFKC or NFKD normalisation",
    ),
    "prefix": (
        lambda m: m[:-1],
        "the whole substring must occur in run.final, not a prefix of it",
    ),
}
#: The look-alikes a case may ask for: those that keep both brackets.
ASKS = ("other_case", "zero_width", "decomposed", "ligature")
_UNPADDED = "do not strip final_contains: its spaces and edges are part of it"


@dataclass(frozen=True)
class FinalFact:
    """How the run ended, its final laid out, and what `final_contains` asks.

    The final is `pieces[0] + placed[0] + pieces[1] + ...`; a placement is
    "it" (the asked substring `head + marker + tail`), a look-alike name (the
    marker changed, head and tail kept) or "unpadded" (`|marker|`, head and
    tail gone: only where head or tail is not empty). `asked` is what the
    case asks: "it", or a look-alike of it (the case, not the run, changed).
    `overlap`: an "it" right after an "it" (no filler between) shares its
    head with the other's tail, which equals it.
    """

    pieces: tuple[str, ...] = ("done:", ".done")
    placed: tuple[str, ...] = ("it",)
    marker: str = "[A]"
    head: str = ""
    tail: str = ""
    completed: bool = True
    reason: str = "completed"
    closing: str = "final"
    value: str = "text"
    asked: str = "it"
    overlap: bool = False

    def __post_init__(self) -> None:
        for name, value, known in (
            ("value", self.value, VALUES),
            ("closing", self.closing, CLOSINGS),
            ("reason", self.reason, REASONS),
            ("asked", self.asked, ("it", *ASKS)),
            *(("placement", p, ("it", "unpadded", *LOOKALIKES)) for p in self.placed),
        ):
            if value not in known:
                raise UnknownKindError(
                    f"unknown final {name} kind {value!r}; the final {name}"
                    f" kinds are: {', '.join(known)}"
                )
        if len(self.pieces) != len(self.placed) + 1:
            raise ValueError("final: one more piece than placements")
        if not _EXCLUDED.isdisjoint("".join((*self.pieces, self.head))):
            raise ValueError(f"final: filler holds one of {FILLER_EXCLUDED!r}")
        if "unpadded" in self.placed and not (self.head or self.tail):
            raise ValueError("final: an unpadded placement needs a head or tail")
        if self.overlap and not (self.head and self.head == self.tail):
            raise ValueError("final: overlap needs head == tail, not empty")

    @property
    def kind(self) -> str:
        """The outcome of the final rule for this fact (a FINAL_KINDS name)."""
        if self.value not in ("text", "none"):
            return "not_text"
        if not self.completed:
            return "incomplete"
        if self.value == "none":
            return "no_final"
        return "found" if hits(self) else "absent"

    @property
    def run_reason(self) -> str:
        return self.reason


def _placement(fact: FinalFact, placed: str) -> str:
    if placed == "it":
        return fact.head + fact.marker + fact.tail
    if placed == "unpadded":
        return f"|{fact.marker}|"
    changed = LOOKALIKES[placed][0](fact.marker)
    return fact.head + (fact.marker if changed is None else changed) + fact.tail


def asked_text(fact: FinalFact) -> str:
    """The case's final_contains."""
    return _placement(fact, fact.asked)


def hits(fact: FinalFact) -> int:
    """How many times the asked substring occurs in the final text, from
    the layout alone (see the module's docstring)."""
    asked = asked_text(fact)
    return sum(_placement(fact, placed) == asked for placed in fact.placed)


def layout(fact: FinalFact) -> str:
    """The final text: filler and placements, an overlap sharing its head."""
    text = fact.pieces[0]
    for i, placed in enumerate(fact.placed):
        shown = _placement(fact, placed)
        shared = fact.overlap and i and placed == fact.placed[i - 1] == "it"
        if shared and not fact.pieces[i]:
            shown = shown[len(fact.head) :]
        text += shown + fact.pieces[i + 1]
    return text


def final_text(fact: FinalFact) -> tuple[object, str]:
    """The run's final answer and the case's `final_contains`, in that order."""
    text = layout(fact)
    value: object = {
        "text": text,
        "none": None,
        "int": 42,
        "bytes": text.encode(),
        "list": [text],
        "dict": {asked_text(fact): text},
    }[fact.value]
    return value, asked_text(fact)


def final_said(fact: FinalFact) -> str | None:
    """The text of the run's closing FinalAction event; None: no such event."""
    if fact.closing == "asked":
        return asked_text(fact)
    if fact.closing == "other":
        return "".join(fact.pieces) + "."
    return layout(fact) if fact.closing == "final" and fact.value == "text" else None


def final_words(fact: FinalFact) -> str:
    """The fact in words, for a lesson."""
    run = "a completed run" if fact.completed else "an incomplete run"
    if fact.value == "none":
        holds = "whose final is None"
    elif fact.value != "text":
        holds = f"whose final is not text but a {fact.value}"
    else:
        text, count = layout(fact), hits(fact)
        asked = asked_text(fact)
        if count:
            at = text.find(asked)
            holds = (
                f"whose final holds the substring {count} time(s), first at"
                f" character {at} (line {text.count(chr(10), 0, at) + 1})"
            )
        else:
            holds = "whose final does not hold the substring"
        others = sorted({p for p in fact.placed if _placement(fact, p) != asked})
        if others:
            holds += f"; it holds look-alikes of it ({', '.join(others)})"
    closing = {
        "final": "its closing FinalAction event says the final",
        "other": "its closing FinalAction event says something else",
        "asked": "its closing FinalAction event holds the substring",
    }.get(fact.closing if final_said(fact) is not None else "", "no closing event")
    return f"{run} (reason {fact.reason!r}) {holds}; {closing}"


def final_hint(fact: FinalFact) -> str:
    """The usual mistake behind a wrong verdict of this fact's check."""
    kind = FINAL_KINDS[fact.kind]
    if fact.kind == "incomplete" and fact.reason == "completed":
        return "read run.completed, not run.reason: an incomplete run fails"
    if fact.kind == "found":
        text = layout(fact)
        at = text.find(asked_text(fact))
        if hits(fact) > 1:
            return "the substring may occur more than once: `in`, not a count of 1"
        if at >= 80 or "\n" in text[:at]:
            return "search the whole final, not its first line or characters"
        if fact.reason != "completed":
            return "read run.completed, not run.reason: completed decides"
        if fact.closing != "final":
            return "judge run.final, the run's answer, not the last event"
    if fact.kind == "absent":
        if "unpadded" in fact.placed:
            return _UNPADDED
        if fact.asked != "it":
            return LOOKALIKES[fact.asked][1]
        for placed in fact.placed:
            if placed in LOOKALIKES:
                return LOOKALIKES[placed][1]
        if fact.closing == "asked":
            return "judge run.final, the run's answer, not the last event"
    return kind.hint


FINAL_KINDS: Kinds[Kind] = Kinds(
    "final",
    [
        Kind(
            "found",
            PASS,
            "a completed run whose final holds the substring",
            "final_contains is a substring test (`in`) on run.final as it is",
        ),
        Kind(
            "absent",
            FAIL,
            "a completed run whose final does not hold the substring",
            "the substring must occur in run.final, exactly",
        ),
        Kind(
            "incomplete",
            FAIL,
            "an incomplete run",
            "an incomplete run never passes the final check, whatever its text:"
            " test run.completed first",
        ),
        Kind(
            "no_final",
            FAIL,
            "a completed run with final=None",
            "a completed run may still have final=None: check that final is a"
            " string before searching it (never str(run.final)); a failed"
            " check, never an exception",
        ),
        Kind(
            "not_text",
            FAIL,
            "a completed run whose final is not a string",
            "final passes only for a completed run whose final is a string"
            " holding the substring; any other value fails the check (or the"
            " run is refused with a ValueError), never an exception",
            level="hardened",
            malformed=True,
        ),
    ],
)


def final_changes(fact: FinalFact) -> list[tuple[str, str, FinalFact]]:
    """Single changes of a passing final that fail it: (words, "case" or
    "world", the changed fact); the rest of the fact stays as it was."""
    gone = "other_case" if LOOKALIKES["other_case"][0](fact.marker) else "prefix"
    found = [
        (
            "the final answer no longer holds the substring",
            "world",
            replace(fact, placed=tuple(gone if p == "it" else p for p in fact.placed)),
        ),
        (
            "run left incomplete, final text kept",
            "world",
            replace(fact, completed=False),
        ),
        (
            "run left incomplete with final=None",
            "world",
            replace(fact, completed=False, value="none"),
        ),
        ("run completed with final=None", "world", replace(fact, value="none")),
    ]
    for asked in ASKS:
        changed = replace(fact, asked=asked)
        if LOOKALIKES[asked][0](fact.marker) is not None and not hits(changed):
            words = f"final substring asked as a look-alike ({asked})"
            found.append((words, "case", changed))
    return found
