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

_COURSE_REFERENCE: tuple[Equivalent, ...] = ()

REGISTERS: tuple[Register, ...] = ()


def lookup(sha256: str, level: str) -> Register | None:
    """The register for this evaluation.py at this level, if one was judged."""
    for register in REGISTERS:
        if register.sha256 == sha256 and register.level == level:
            return register
    return None
