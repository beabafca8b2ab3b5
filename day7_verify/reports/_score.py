"""A learner's score: credit for the invariants that hold over checks it really makes.

Counting the invariants that hold rewards doing nothing: read-only,
determinism, statelessness and order-insensitivity hold vacuously for checks
an evaluator never makes. So each invariant has a weight and the check
groups (final, files, results, receipts) whose checks it protects, and its
credit is

    weight x (it holds) x (share of its protected groups the evaluator makes)

where the groups made are measured by the suite's probe (judge/probe.py)
and an invariant that protects no group (the case's validation, the report's
verdict and rendering, judged on reports built directly) needs none. The
score is the credits over the weights, in percent. Pure functions over
frozen data; the model is documented in docs/score.md, and every report
(terminal, JSON, page, JUnit, Gradescope) shows the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from day7_verify.reports._report import LearnerVerdict

__all__ = [
    "ALL_GROUPS",
    "GROUPS",
    "UNKNOWN",
    "WEIGHTS",
    "Credit",
    "Score",
    "Weighting",
    "credit",
    "made_groups",
    "score",
    "scored",
]

#: The check groups, in the contract's order (as judge/probe.py names them).
GROUPS: tuple[str, ...] = ("final", "files", "results", "receipts")
ALL_GROUPS: frozenset[str] = frozenset(GROUPS)


@dataclass(frozen=True)
class Weighting:
    """What an invariant is worth, and the groups whose checks it protects.

    No groups: it holds or not on its own (never vacuously).
    """

    weight: float
    protects: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not self.weight >= 0:
            raise ValueError(f"a weight is a number >= 0, got {self.weight}")
        if not self.protects <= ALL_GROUPS:
            raise ValueError(f"unknown groups {sorted(self.protects - ALL_GROUPS)}")


def _w(weight: float, *groups: str) -> Weighting:
    return Weighting(weight, frozenset(groups))


_EVERY = GROUPS
#: Every invariant's weighting. Why each (docs/score.md has the table):
#: - surface and writes-nothing-outside: prerequisites, not work (weight 0);
#:   the first is met by defining names, the second by not writing, and both
#:   still decide pass or fail;
#: - the case's validation (task 1) is one task in four invariants, and the
#:   report's verdict and rendering two small parts of task 6: half weight,
#:   so validating and rendering alone are not a third of the score;
#: - the rest weigh 1 and protect the groups whose checks they are about.
WEIGHTS: Mapping[str, Weighting] = {
    "surface": _w(0),
    "specification-refused": _w(0.5),
    "specification-accepted": _w(0.5),
    "path-normalisation": _w(0.5),
    "argument-types": _w(0.5),
    "report-shape": _w(1, *_EVERY),
    "report-verdict": _w(0.5),
    "render-grammar": _w(0.5),
    "truth": _w(1, *_EVERY),
    "store-kinds": _w(1, "receipts"),
    "unavailable-evidence": _w(1, "files", "receipts"),
    "malformed-run": _w(1, "final", "results"),
    "tampered-log": _w(1, "receipts"),
    # Events are read by result checks; a receipt check must not read them.
    "order-insensitivity": _w(1, "results", "receipts"),
    "independence": _w(1, *_EVERY),
    "determinism": _w(1, *_EVERY),
    "stateless": _w(1, *_EVERY),
    "read-only": _w(1, *_EVERY),
    "end-to-end": _w(1, *_EVERY),
    "wrong-fact-fails-alone": _w(1, *_EVERY),
    "phrasing-and-order-free": _w(1, "final", "results"),
    "incomplete-fails-final-only": _w(1, "final"),
    "chapter-scenario": _w(1, *_EVERY),
    "read-only-real-runs": _w(1, *_EVERY),
    "read-state-kept": _w(1, "files"),
    "hostile-worlds": _w(1, *_EVERY),
    "confinement": _w(1, "files", "receipts"),
    "writes-nothing-outside": _w(0),
}

#: A name the suite has that this table does not (a newer suite): counted,
#: and as vacuous as it could be, so it never earns without the probe.
UNKNOWN = _w(1, *_EVERY)


@dataclass(frozen=True)
class Credit:
    """One invariant's share of the score."""

    name: str
    weight: float
    credit: float


@dataclass(frozen=True)
class Score:
    """The credits, and their sum over the weights."""

    credits: tuple[Credit, ...]

    @property
    def earned(self) -> float:
        return round(sum(c.credit for c in self.credits), 4)

    @property
    def possible(self) -> float:
        return round(sum(c.weight for c in self.credits), 4)

    @property
    def percent(self) -> float:
        if not self.possible:
            return 0.0
        return round(100 * self.earned / self.possible, 1)

    def as_json(self) -> dict[str, float]:
        return {
            "percent": self.percent,
            "earned": self.earned,
            "possible": self.possible,
        }


def credit(weighting: Weighting, holds: bool, made: frozenset[str] | None) -> float:
    """An invariant's credit: weight x holds x the share of its groups made.

    `made` None: the probe never ran, so only what needs no probe earns.
    """
    if not holds:
        return 0.0
    if not weighting.protects:
        return weighting.weight
    if made is None:
        return 0.0
    share = len(weighting.protects & made) / len(weighting.protects)
    return round(weighting.weight * share, 4)


def score(
    invariants: Sequence[tuple[str, str]],
    made: frozenset[str] | None,
    weights: Mapping[str, Weighting] = WEIGHTS,
) -> Score:
    """The score of a learner's invariants (name, status) given the groups made.

    An invariant skipped at the level is not part of it; any other status but
    `pass` earns nothing (not run, incomplete, timed out: nothing proven).
    """
    return Score(
        tuple(
            Credit(
                name,
                weights.get(name, UNKNOWN).weight,
                credit(weights.get(name, UNKNOWN), status == "pass", made),
            )
            for name, status in invariants
            if status != "skip"
        )
    )


def made_groups(probe: Any) -> frozenset[str] | None:
    """The groups the suite's probe says are made; None when it did not run."""
    if not isinstance(probe, Mapping) or not isinstance(probe.get("made"), list):
        return None
    return frozenset(g for g in probe["made"] if g in ALL_GROUPS)


def scored(verdict: LearnerVerdict) -> LearnerVerdict:
    """`verdict` with its score and credits, from its invariants and groups made."""
    made = None if verdict.checks_made is None else frozenset(verdict.checks_made)
    result = score(verdict.invariants, made)
    return replace(
        verdict,
        score=result.as_json(),
        credits=tuple((c.name, c.credit, c.weight) for c in result.credits),
    )
