"""The order invariants are met in: most basic first.

A learner reads the summary from the top and fixes the first thing that
fails, so the names come first, then the case's validation, the report's
shape, the truth of each check, and only then the properties built on them
(events in any order, one fact at a time, read-only, real runs) and the
hardened ones. The suite runs its tests in this order too, and
docs/invariants.md has its sections in it (tests/bundled/test_invariant_docs.py
keeps the three in step).
"""

from __future__ import annotations

__all__ = ["HARDENED_ONLY", "INVARIANT_ORDER", "invariants_at", "rank"]

INVARIANT_ORDER: tuple[str, ...] = (
    "surface",
    "specification-refused",
    "specification-accepted",
    "path-normalisation",
    "argument-types",
    "report-shape",
    "report-verdict",
    "render-grammar",
    "truth",
    "store-kinds",
    "unavailable-evidence",
    "malformed-run",
    "tampered-log",
    "order-insensitivity",
    "independence",
    "determinism",
    "stateless",
    "read-only",
    "end-to-end",
    "wrong-fact-fails-alone",
    "phrasing-and-order-free",
    "incomplete-fails-final-only",
    "chapter-scenario",
    "read-only-real-runs",
    "read-state-kept",
    "hostile-worlds",
    "confinement",
)

#: The invariants every test of which is marked `hardened`: at the course
#: level they are skipped whole (tests/bundled/test_invariant_docs.py checks
#: this against the markers).
HARDENED_ONLY: frozenset[str] = frozenset(
    {"malformed-run", "hostile-worlds", "confinement"}
)

_RANKS = {name: index for index, name in enumerate(INVARIANT_ORDER)}


def rank(name: str) -> int:
    """Where `name` comes in the order; a name not listed comes after all of them."""
    return _RANKS.get(name, len(INVARIANT_ORDER))


def invariants_at(level: str) -> tuple[tuple[str, bool], ...]:
    """Every invariant of the suite in order, each with whether `level` judges it.

    A report lists the same invariants for every learner at a level, whether
    or not its run reached them, so the command needs the list without a run.
    """
    return tuple(
        (name, level == "hardened" or name not in HARDENED_ONLY)
        for name in INVARIANT_ORDER
    )
