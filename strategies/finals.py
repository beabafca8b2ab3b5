"""The final answer: how a run ended, what the case asks of it, and every kind.

A final fact says whether the run completed, what its final answer is and
what `final_contains` asks; its kind alone decides the `final` check. The
final text is built around the fact's marker (`words:[A].words`), so a
marker occurs only where the kind puts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from strategies.kinds import FAIL, PASS, Kind, Kinds
from strategies.vocabulary import INCOMPLETE_REASONS

__all__ = ["FINAL_KINDS", "FinalFact", "FinalKind", "final_said", "final_text"]


@dataclass(frozen=True)
class FinalFact:
    """How the run ended and what `final_contains` asks of it."""

    kind: str = "embedded"
    marker: str = "[A]"
    words: str = "done"
    reason: str = "step_limit"  # used by the incomplete kinds only

    def __post_init__(self) -> None:
        FINAL_KINDS[self.kind]  # an unknown kind is refused here, at once
        if self.reason not in INCOMPLETE_REASONS:
            raise ValueError(f"final: reason {self.reason!r}")

    @property
    def completed(self) -> bool:
        return FINAL_KINDS[self.kind].completed

    @property
    def run_reason(self) -> str:
        """The run's reason: the one `completed` implies, unless the kind
        makes the two disagree (the types allow it; `completed` decides)."""
        if FINAL_KINDS[self.kind].reason_agrees:
            return "completed" if self.completed else self.reason
        return self.reason if self.completed else "completed"


Texts = Callable[[FinalFact], "tuple[object, str]"]


@dataclass(frozen=True)
class FinalKind(Kind):
    """A kind of final: `texts` gives (run.final, final_contains)."""

    texts: Texts = lambda fact: (_around(fact), fact.marker)
    completed: bool = True
    #: The text of the run's closing FinalAction event, when it is not run.final.
    said: Callable[[FinalFact], str] | None = None
    #: Whether `run.reason` agrees with `run.completed` ("completed" exactly
    #: when completed); a kind that makes them disagree tests which one is read.
    reason_agrees: bool = True
    #: Whether a run with a string final ends with a FinalAction event.
    closing: bool = True


def final_text(fact: FinalFact) -> tuple[object, str]:
    """The run's final answer and the case's `final_contains`, in that order."""
    return FINAL_KINDS[fact.kind].texts(fact)


def final_said(fact: FinalFact) -> object:
    """The text of the run's closing FinalAction event (run.final, by default)."""
    kind = FINAL_KINDS[fact.kind]
    return kind.texts(fact)[0] if kind.said is None else kind.said(fact)


def _around(fact: FinalFact, shown: str | None = None) -> str:
    """The final answer with `shown` (the marker) among the fact's words;
    words holding "{}" are a template for it."""
    shown = fact.marker if shown is None else shown
    if "{}" in fact.words:
        return fact.words.format(shown)
    return f"{fact.words}:{shown}.{fact.words}"


_HARDENED_HINT = (
    "final passes only for a completed run whose final is a string holding the"
    " substring; any other value fails the check (or the run is refused with a"
    " ValueError), never an exception"
)

FINAL_KINDS: Kinds[FinalKind] = Kinds(
    "final",
    [
        FinalKind(
            "embedded",
            PASS,
            "a completed run whose final holds the substring among other words",
            "final_contains is a substring test (`in`), not equality",
        ),
        FinalKind(
            "exact",
            PASS,
            "a completed run whose final is exactly the substring",
            "the final check passes when run.completed and the substring is in"
            " run.final",
            texts=lambda fact: (fact.marker, fact.marker),
        ),
        FinalKind(
            "padded_edges",
            PASS,
            "a completed run whose final is exactly the substring, which starts"
            " with a space and ends with a newline",
            "compare run.final and final_contains as they are; do not strip either",
            texts=lambda fact: (f" {fact.marker}\n", f" {fact.marker}\n"),
        ),
        FinalKind(
            "absent",
            FAIL,
            "a completed run whose final does not hold the substring",
            "the substring must occur in run.final",
            perturbation="the final answer no longer holds the substring",
            texts=lambda fact: (_around(fact, ""), fact.marker),
        ),
        FinalKind(
            "extended",
            FAIL,
            "a completed run whose final holds the substring minus its last character",
            "the whole substring must occur in run.final, not a prefix of it",
            perturbation="final substring one character longer",
            changes="case",
            texts=lambda fact: (_around(fact), f"{fact.marker}|"),
        ),
        FinalKind(
            "case_changed",
            FAIL,
            "a completed run whose final holds the substring only in the other"
            " letter case",
            "the substring test is case-sensitive: no lower() or casefold()",
            perturbation="final holds the substring only in the other letter case",
            texts=lambda fact: (_around(fact, fact.marker.swapcase()), fact.marker),
        ),
        FinalKind(
            "case_asked_other",
            FAIL,
            "a completed run whose final holds the substring, but the case asks"
            " for it in the other letter case (a lower-case substring for an"
            " upper-case answer, or the reverse)",
            "the substring test is case-sensitive whatever the case of the"
            " substring: no 'smart case' that ignores case for lower-case text",
            perturbation="final substring asked in the other letter case",
            changes="case",
            texts=lambda fact: (_around(fact), fact.marker.swapcase()),
        ),
        FinalKind(
            "final_event_differs",
            PASS,
            "a completed run whose final holds the substring, though its closing"
            " FinalAction event says something else",
            "judge run.final, the run's answer, not the text of the last event",
            said=lambda fact: f"{fact.words}.",
        ),
        FinalKind(
            "only_final_event_holds",
            FAIL,
            "a completed run whose final lacks the substring; only its closing"
            " FinalAction event holds it",
            "judge run.final, the run's answer, not the text of the last event",
            texts=lambda fact: (_around(fact, ""), fact.marker),
            said=_around,
        ),
        FinalKind(
            "completed_reason_limit",
            PASS,
            "a completed run (completed=True) whose final holds the substring,"
            " though its reason names a limit",
            "the final check reads run.completed and run.final, not run.reason:"
            " the two fields may disagree, and completed decides",
            reason_agrees=False,
        ),
        FinalKind(
            "incomplete_reason_completed",
            FAIL,
            "an incomplete run (completed=False) whose reason says 'completed'"
            " and whose final holds the substring",
            "the final check reads run.completed, not run.reason: an incomplete"
            " run fails whatever its reason says",
            completed=False,
            reason_agrees=False,
        ),
        FinalKind(
            "completed_without_final_event",
            PASS,
            "a completed run whose final holds the substring, with no FinalAction"
            " event among its events",
            "judge run.completed and run.final, not the events: a run need not"
            " end with a FinalAction event",
            closing=False,
        ),
        FinalKind(
            "nfd_asked_nfc",
            FAIL,
            "a completed run whose final holds the substring with a decomposed"
            " (NFD) accent; the case asks for it composed (NFC)",
            "NFC and NFD are different text: search run.final as it is, no"
            " unicodedata.normalize",
            changes="case",
            texts=lambda fact: (
                _around(fact, fact.marker + "e\u0301"),
                fact.marker + "\u00e9",
            ),
        ),
        FinalKind(
            "ligature_asked_plain",
            FAIL,
            "a completed run whose final holds the substring with a ligature (ﬁ);"
            " the case asks for the two letters (fi)",
            "a ligature is another character: search run.final as it is, no NFKC"
            " or NFKD normalisation",
            changes="case",
            texts=lambda fact: (
                _around(fact, fact.marker + "\ufb01"),
                fact.marker + "fi",
            ),
        ),
        FinalKind(
            "zero_width_inside",
            FAIL,
            "a completed run whose final holds the substring only with a"
            " zero-width space inside it",
            "an invisible character is still a character: search run.final as it"
            " is, without removing zero-width characters from either side",
            texts=lambda fact: (
                _around(fact, f"{fact.marker[:1]}\u200b{fact.marker[1:]}"),
                fact.marker,
            ),
        ),
        FinalKind(
            "none_asked_none",
            FAIL,
            "a completed run with final=None; the case asks for the text 'None'",
            "a final of None holds no text, not even 'None': never search"
            " str(run.final)",
            texts=lambda fact: (None, "None"),
        ),
        FinalKind(
            "padded_absent",
            FAIL,
            "a completed run whose final holds the substring's letters but not"
            " its surrounding spaces",
            "do not strip final_contains: its spaces are part of what must occur",
            perturbation="final substring padded with spaces",
            changes="case",
            texts=lambda fact: (_around(fact), f" {fact.marker} "),
        ),
        FinalKind(
            "incomplete",
            FAIL,
            "an incomplete run whose final text nevertheless holds the substring",
            "an incomplete run never passes the final check, whatever its text:"
            " test run.completed first",
            perturbation="run left incomplete, final text kept",
            completed=False,
        ),
        FinalKind(
            "incomplete_without_final",
            FAIL,
            "an incomplete run with final=None",
            "an incomplete run has final=None: test run.completed (and that final"
            " is a string) before searching it",
            perturbation="run left incomplete with final=None",
            texts=lambda fact: (None, fact.marker),
            completed=False,
        ),
        FinalKind(
            "completed_without_final",
            FAIL,
            "a completed run with final=None (the types allow it)",
            "a completed run may still have final=None: check that final is a"
            " string before searching it; a failed check, never an exception",
            perturbation="run completed with final=None",
            texts=lambda fact: (None, fact.marker),
        ),
        *(
            FinalKind(
                f"final_{name}",
                FAIL,
                f"a completed run whose final is {shown}",
                _HARDENED_HINT,
                level="hardened",
                malformed=True,
                texts=texts,
            )
            for name, shown, texts in (
                ("int", "the int 42", lambda fact: (42, fact.marker)),
                (
                    "bytes",
                    "bytes holding the substring",
                    lambda fact: (_around(fact).encode(), fact.marker),
                ),
                (
                    "list",
                    "a list holding the substring",
                    lambda fact: ([fact.marker], fact.marker),
                ),
                (
                    "dict",
                    "a dict keyed by the substring",
                    lambda fact: ({fact.marker: _around(fact)}, fact.marker),
                ),
            )
        ),
    ],
)
