"""The register of equivalent mutants: survivors explained, per implementation.

``python -m planted.mutate`` fails on a surviving mutant unless it is listed
here for that exact ``evaluation.py`` (its SHA-256) at that level, with the
reason no test of the chapter's contract can kill it. A mutant is
equivalent in one of two ways:

- ``same-behaviour``: the mutated module behaves exactly as the original
  for every input (``Path("")`` is ``Path(".")``);
- ``contract-free``: behaviour changes only where the Day 7 contract leaves
  the choice to the implementation at that level (a failing check's wording
  at the course level), so the chapter cannot observe it.

Course code is never stored: an entry holds the mutant's id (line, column
and operator) and a paraphrased reason, not the mutated text. A changed
``evaluation.py`` has a new digest and no entry, so every survivor is
unexplained again until someone re-judges it: a register cannot silently go
stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["KINDS", "REGISTERS", "Equivalent", "Register", "lookup"]

KINDS = ("same-behaviour", "contract-free")
_LEVELS = ("course", "hardened")
_ID = re.compile(r"^\d+:\d+:[A-Za-z0-9_-]+(~\d+)?$")
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Equivalent:
    """One mutant judged equivalent, and why."""

    mutant: str
    kind: str
    reason: str

    def __post_init__(self) -> None:
        if not _ID.match(self.mutant):
            raise ValueError(f"equivalent mutant id {self.mutant!r} is not LINE:COL:OP")
        if self.kind not in KINDS:
            raise ValueError(
                f"{self.mutant}: kind {self.kind!r} is not one of {', '.join(KINDS)}"
            )
        if not self.reason.strip():
            raise ValueError(f"{self.mutant}: an equivalent mutant needs a reason")


@dataclass(frozen=True)
class Register:
    """The equivalent mutants of one evaluation.py, judged at one level."""

    name: str
    sha256: str
    level: str
    equivalents: tuple[Equivalent, ...]

    def __post_init__(self) -> None:
        if not _DIGEST.match(self.sha256):
            raise ValueError(f"{self.name}: sha256 must be 64 lowercase hex digits")
        if self.level not in _LEVELS:
            raise ValueError(
                f"{self.name}: level {self.level!r} is not course/hardened"
            )
        ids = [entry.mutant for entry in self.equivalents]
        repeated = sorted({mutant for mutant in ids if ids.count(mutant) > 1})
        if repeated:
            raise ValueError(f"{self.name}: mutants listed twice: {repeated}")

    def reason(self, mutant: str) -> Equivalent | None:
        for entry in self.equivalents:
            if entry.mutant == mutant:
                return entry
        return None


def _entries(kind: str, reason: str, *mutants: str) -> tuple[Equivalent, ...]:
    return tuple(Equivalent(mutant, kind, reason) for mutant in mutants)


# ---------------------------------------------------------------------------
# The course reference, src/tiny_llm_ref/agent/evaluation.py of the tiny-llm
# repository, judged at the course level. Reasons are paraphrased; ids are
# those `python -m planted.mutate --list` prints for that file.

_SAME = "same-behaviour"
_FREE = "contract-free"

_BLANK_TEST = (
    "the blank test asks only whether the stripped text is empty; text is empty"
    " after stripping one end exactly when it is empty after stripping both (it"
    " is all whitespace), and the value kept is the unstripped original"
)
_CURRENT_DIRECTORY = (
    "the path compared with the current directory is built from an empty string"
    " instead of a dot; pathlib spells both as '.', so every comparison agrees"
)
_FIELD_NAME_KEPT = (
    "only the words around the field's name in a refusal change; the contract"
    " asks the message to name the field, and the name is still in it"
)
_FIELD_LABEL_PADDED = (
    "the label a field check puts in its refusal gains letters on both sides;"
    " it still contains the field's name, which is all the contract asks of"
    " the message, and the label is used for nothing else"
)
_RULE_WORDING = (
    "the refusal still happens and its message still says what was refused;"
    " the contract fixes the refusal (a ValueError), not these words"
)
_PHRASE_KEPT = (
    "text is added around the refusal's message; the phrase the contract"
    " quotes (and the course's own tests match) is still in it"
)
_TYPE_NAMED = (
    "text is added around the refusal's message; it still names the expected"
    " type, which is all the contract asks"
)
_NO_REVALIDATION = (
    "evaluate_run no longer re-validates the case; every case built through its"
    " constructor or dataclasses.replace is validated there already, so only a"
    " case altered behind the frozen dataclass (object.__setattr__, or a"
    " subclass skipping __post_init__) could tell, and the contract asks nothing"
    " of evaluate_run for such a case"
)
_FAIL_WORDING = (
    "a failing check's detail is reworded; at the course level a failing"
    " detail's wording is the learner's choice (only the receipt prefixes are"
    " bound) and its verdict is unchanged"
)

_UNBOUND_WORDS = (
    "a refusal's words are emptied where neither the contract nor the course's"
    " own tests fix them (a group that is not a tuple of its type, a changed"
    " artifact, content or changed artifacts of the wrong type); the ValueError"
    " is still raised, and at the course level its wording is the learner's"
    " (strategies.cases.Spec.binds)"
)

_COURSE_REFERENCE: tuple[Equivalent, ...] = (
    *_entries(
        _SAME, _BLANK_TEST, "17:42:method-strip-lstrip", "17:42:method-strip-rstrip"
    ),
    *_entries(_FREE, _FIELD_NAME_KEPT, "18:26:fstr1-wrap", "18:26:fstr1-empty"),
    *_entries(_SAME, _CURRENT_DIRECTORY, "26:25:str-empty"),
    *_entries(_FREE, _FIELD_NAME_KEPT, "30:26:fstr1-wrap", "30:26:fstr1-empty"),
    *_entries(
        _FREE,
        _FIELD_LABEL_PADDED,
        "42:66:str-wrap",
        "55:33:str-wrap",
        "56:37:str-wrap",
        "70:41:str-wrap",
        "71:33:str-wrap",
        "74:44:str-wrap",
        "81:40:str-wrap",
        "100:43:str-wrap",
    ),
    *_entries(_FREE, _RULE_WORDING, "44:30:str-wrap", "76:30:str-wrap"),
    *_entries(
        _FREE, _PHRASE_KEPT, "73:30:str-wrap", "113:30:str-wrap", "116:30:str-wrap"
    ),
    *_entries(
        _FREE,
        _RULE_WORDING,
        "102:43:str-wrap",
        "103:47:str-wrap",
        "104:49:str-wrap",
        "110:34:fstr0-wrap",
        "110:34:fstr0-empty",
        "110:34:fstr2-wrap",
        "110:34:fstr2-empty",
    ),
    *_entries(
        _FREE,
        _FAIL_WORDING,
        "151:45:fstr0-wrap",
        "151:45:fstr0-empty",
        "154:41:str-wrap",
        "154:41:str-empty",
        "166:57:str-wrap",
        "166:57:str-empty",
        "193:45:str-wrap",
        "193:45:str-empty",
        "200:52:str-wrap",
        "200:52:str-empty",
        "229:56:str-wrap",
        "229:56:str-empty",
    ),
    *_entries(
        _FREE,
        _TYPE_NAMED,
        "213:26:str-wrap",
        "215:26:str-wrap",
        "217:26:str-wrap",
        "219:26:str-wrap",
    ),
    *_entries(_FREE, _NO_REVALIDATION, "220:5:call-remove"),
    *_entries(
        _FREE,
        _UNBOUND_WORDS,
        "44:30:str-empty",
        "76:30:str-empty",
        "81:40:str-empty",
        "102:43:str-empty",
        "103:47:str-empty",
        "104:49:str-empty",
    ),
)

REGISTERS: tuple[Register, ...] = (
    Register(
        name="course reference (tiny_llm_ref/agent)",
        sha256="ea10afa2db2e215b50294998f28c44627c3f711183b016deca59a79c05f1a63f",
        level="course",
        equivalents=_COURSE_REFERENCE,
    ),
)


def lookup(sha256: str, level: str) -> Register | None:
    """The register for this evaluation.py at this level, if one was judged."""
    for register in REGISTERS:
        if register.sha256 == sha256 and register.level == level:
            return register
    return None
