"""One learner's suite split across cores, and the parts' summaries joined.

`day7-verify` judges one learner faster by running the invariants as N
parts at once: N pytest sessions, each with its own worker, every invariant
in exactly one part, so each invariant's verdict is made whole in one
process. `assign` says which part an invariant belongs to (the same answer
in every process, with no state), `join_summaries` makes the N end-of-run
summaries one, as a single session would have written it.

The split balances the parts by what each invariant cost on a passing
folder; the costs are a guide, not a rule: a part that finishes early only
waits, and an invariant missing from the table counts as an average one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from judge.ordering import INVARIANT_ORDER, rank

__all__ = ["COSTS", "assign", "join_summaries", "parse_part"]

#: Seconds each invariant took on the course reference (ci profile, the
#: median of seeds 1-3, one process: `pytest tests/invariants` with a plugin
#: summing each invariant's test durations, 2026-12-05); the two
#: hardened-only ones measured on the bundled evaluator. `python -m
#: benchmarks.costs --impl-path DIR` measures them again beside this table
#: and says when it no longer balances the parts.
COSTS: Mapping[str, float] = {
    "surface": 0.01,
    "specification-refused": 0.22,
    "specification-accepted": 0.12,
    "path-normalisation": 0.18,
    "argument-types": 0.33,
    "report-shape": 0.66,
    "report-verdict": 0.74,
    "render-grammar": 0.78,
    "truth": 1.02,
    "store-kinds": 0.91,
    "unavailable-evidence": 0.75,
    "malformed-run": 0.01,
    "tampered-log": 1.3,
    "order-insensitivity": 0.98,
    "independence": 1.04,
    "determinism": 0.92,
    "stateless": 2.06,
    "read-only": 1.23,
    "end-to-end": 0.23,
    "wrong-fact-fails-alone": 0.8,
    "phrasing-and-order-free": 0.25,
    "incomplete-fails-final-only": 0.24,
    "chapter-scenario": 0.03,
    "read-only-real-runs": 0.32,
    "read-state-kept": 0.21,
    "hostile-worlds": 0.38,
    "confinement": 0.5,
}


def parse_part(text: str) -> tuple[int, int]:
    """`"I/N"` (1 <= I <= N) as (I, N); ValueError in one line otherwise."""
    index, slash, count = text.partition("/")
    try:
        if not slash:
            raise ValueError
        part, parts = int(index), int(count)
    except ValueError:
        raise ValueError(f"a part is I/N, such as 1/2, not {text!r}") from None
    if not 1 <= part <= parts:
        raise ValueError(f"part {text!r}: I must be between 1 and N")
    return part, parts


def assign(
    parts: int,
    names: Iterable[str] = INVARIANT_ORDER,
    costs: Mapping[str, float] = COSTS,
) -> dict[str, int]:
    """Each invariant's part (1..parts): the costliest first, each to the part
    with the least so far (ties to the lowest part), so the same names always
    split the same way. `costs` is the table to split by (benchmarks/costs.py
    compares another with it)."""
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    average = sum(costs.values()) / len(costs) if costs else 1.0
    load = [0.0] * parts
    chosen: dict[str, int] = {}
    for name in sorted(set(names), key=lambda n: (-costs.get(n, average), n)):
        lightest = min(range(parts), key=lambda p: (load[p], p))
        load[lightest] += costs.get(name, average)
        chosen[name] = lightest + 1
    return chosen


def join_summaries(summaries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The parts' end-of-run summaries as one (tests/conftest.py's shape).

    Invariants and their lessons come back in the basic-first order; counts
    add up; the run is complete only when every part is, and its verdict is
    then PASS exactly when every counted invariant of every part holds.
    """
    if not summaries:
        raise ValueError("no summary to join")
    first = summaries[0]
    invariants = sorted(
        (i for s in summaries for i in s.get("invariants", [])),
        key=lambda i: rank(str(i.get("name", ""))),
    )
    lessons = sorted(
        (lesson for s in summaries for lesson in s.get("lessons", [])),
        key=lambda lesson: rank(str(lesson.get("invariant", ""))),
    )
    complete = all(s.get("complete") is True for s in summaries)
    holding = sum(int(s.get("holding", 0)) for s in summaries)
    counted = sum(int(s.get("counted", 0)) for s in summaries)
    failing = sum(int(s.get("failing", 0)) for s in summaries)
    faults = [name for s in summaries for name in s.get("judge_faults") or []]
    if all(s.get("verification") == "NONE" for s in summaries):
        verdict = "NONE"
    elif not complete or (faults and not failing):
        # Some invariant unjudged by the judge's own fault, none failed: no
        # verdict, as one session would say (tests/conftest.py).
        verdict = "INCOMPLETE"
    else:
        verdict = "PASS" if holding == counted else "FAIL"
    joined = dict(first)
    joined.update(
        verification=verdict,
        complete=complete,
        stopped=next((s["stopped"] for s in summaries if s.get("stopped")), ""),
        unfinished=[n for s in summaries for n in s.get("unfinished", [])],
        selected=sum(int(s.get("selected", 0)) for s in summaries),
        holding=holding,
        counted=counted,
        failing=failing,
        judge_faults=sorted(faults, key=rank) if complete else [],
        invariants=invariants,
        lessons=lessons,
        probe=next((s["probe"] for s in summaries if s.get("probe")), None),
    )
    return joined
