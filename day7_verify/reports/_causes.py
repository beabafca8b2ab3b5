"""A lesson per cause, and a learner's bounded share of every report: pure functions.

One mistake fails many tests, often in many invariants: a TODO `passed`
spoils every invariant that reads a report, a loop hangs every call, a
`strip()` on both sides of a file check is wrong in `truth` and again in
`independence`. The suite gives every lesson a `cause`, a stable key for
the mistake (judge/causes.py: `hang:evaluation.py:evaluate_run`,
`unfinished:EvaluationReport.passed`, `check:file`, ...);
here the lessons of one cause become one lesson, the first (most basic)
one, naming every invariant it breaks in `invariants`. A consequence is
so told under its cause instead of as a lesson of its own.

Then the share is bounded: at most `MAX_CAUSES` lessons (the rest folded
into one that names what they break) and every field capped in lines and
characters, so a folder that hangs or crashes everywhere takes about the
room of one that fails, in the terminal, the JSON, the page, JUnit and
Gradescope alike (they are all made from the same verdict).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge.lessons import MAX_SNIPPET_CHARS, MAX_SNIPPET_LINES, WHERE_THE_REST_IS

__all__ = [
    "FIELD_BOUNDS",
    "MAX_CAUSES",
    "MORE",
    "bounded",
    "cause_of",
    "grouped",
    "told",
]

#: The lessons one learner keeps; the rest are folded into one.
MAX_CAUSES = 8

#: The cause of the lesson that stands for the causes beyond MAX_CAUSES.
MORE = "more-causes"


@dataclass(frozen=True)
class Bound:
    """At most `lines` lines and `chars` characters of one field."""

    lines: int
    chars: int


#: Each text field's bound. A world in words or a reproduction snippet is a
#: few lines for a drawn world; a real run's plan or a hostile world is
#: longer, and still well inside these. The snippet's characters hold the
#: suite's largest written world ("everything at once", about 10,000) twice,
#: for a lesson that compares it with itself changed (a tampered log).
FIELD_BOUNDS: Mapping[str, Bound] = {
    "headline": Bound(8, 800),
    "world": Bound(30, 3000),
    # The world uncut, for --verbose: bounded still, but well past any
    # drawn world (a hang's unshrunk world is about 100 lines).
    "whole_world": Bound(400, 40000),
    "expected": Bound(12, 1200),
    "observed": Bound(12, 1200),
    "hint": Bound(8, 800),
    # A plain test (judge/snippets.py) is a program of its own: 60 to 150 lines.
    "reproduce": Bound(MAX_SNIPPET_LINES, MAX_SNIPPET_CHARS),
}

#: Hypothesis's example, all its notes together: shown by --verbose only, and
#: whole (a cut line or a dropped note hides what the example was), so its
#: bound is whole_world's, well past any drawn example.
EXAMPLE_BOUND = Bound(400, 40000)


def cause_of(lesson: Mapping[str, Any]) -> str:
    """The lesson's cause; a lesson from a suite without causes is its
    invariant's (what the reports told once per invariant before)."""
    cause = str(lesson.get("cause") or "")
    if cause:
        return cause
    invariant = str(lesson.get("invariant") or "")
    if invariant:
        return f"invariant:{invariant}"
    return f"headline:{lesson.get('headline', '')}"


def _invariants_of(lesson: Mapping[str, Any]) -> list[str]:
    listed = lesson.get("invariants")
    if isinstance(listed, (list, tuple)) and listed:
        return [str(name) for name in listed]
    invariant = str(lesson.get("invariant") or "")
    return [invariant] if invariant else []


def grouped(
    lessons: Sequence[Mapping[str, Any]],
    rank: Callable[[str], int],
) -> tuple[dict[str, Any], ...]:
    """One lesson per cause, most basic first.

    A cause's lesson is its lesson from the most basic invariant (the first
    of those, in the order given, when two share a rank): the place a
    learner starts, with its own world and snippet. `invariants` lists every
    invariant the cause breaks, most basic first, and `invariant` is the
    first of them. The causes come in the order of their first invariants
    (stable: the suite's order within one invariant).
    """
    by_cause: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for position, lesson in enumerate(lessons):
        by_cause.setdefault(cause_of(lesson), []).append((position, lesson))
    groups = []
    for cause, members in by_cause.items():
        names: dict[str, int] = {}
        for position, lesson in members:
            for name in _invariants_of(lesson):
                names.setdefault(name, position)
        # Basic first; an unknown name (rank past the known) after them.
        ordered = sorted(names, key=lambda name: (rank(name), names[name]))
        first = min(
            members,
            key=lambda member: (
                min((rank(n) for n in _invariants_of(member[1])), default=1 << 30),
                member[0],
            ),
        )
        lesson = dict(first[1])
        lesson["cause"] = cause
        lesson["invariants"] = ordered
        if ordered:
            lesson["invariant"] = ordered[0]
        key = (rank(ordered[0]) if ordered else 1 << 30, first[0])
        groups.append((key, lesson))
    return tuple(lesson for _, lesson in sorted(groups, key=lambda item: item[0]))


def _capped(text: str, bound: Bound) -> str:
    """`text` within `bound`, saying how much was left out."""
    lines = text.splitlines()
    if len(lines) <= bound.lines and len(text) <= bound.chars:
        return text
    kept: list[str] = []
    size = 0
    for line in lines[: bound.lines]:
        if size + len(line) + 1 > bound.chars:
            line = line[: max(0, bound.chars - size - 1)]
            kept.append(line)
            break
        kept.append(line)
        size += len(line) + 1
    left = len(lines) - len(kept)
    note = f"… ({left} more line(s) not shown)" if left > 0 else "… (cut short)"
    return "\n".join([*kept, note])


def _bounded_lesson(lesson: Mapping[str, Any]) -> dict[str, Any]:
    shaped = dict(lesson)
    for name, bound in FIELD_BOUNDS.items():
        value = shaped.get(name)
        if not isinstance(value, str):
            continue
        if name == "reproduce" and _capped(value, bound) != value:
            # Cut code does not run: a snippet too long is left out whole,
            # and the world no longer says the snippet has what it left out.
            shaped[name] = ""
            world = shaped.get("world")
            if isinstance(world, str):
                shaped["world"] = world.replace(f" ({WHERE_THE_REST_IS})", "")
            continue
        shaped[name] = _capped(value, bound)
    example = shaped.get("example")
    if isinstance(example, list):
        shaped["example"] = _whole_notes([str(item) for item in example])
    return shaped


def _whole_notes(notes: list[str]) -> list[str]:
    """The example's notes, each whole, as many as fit `EXAMPLE_BOUND`; the
    first alone cut to it if even that one does not fit."""
    kept: list[str] = []
    lines = chars = 0
    for note in notes:
        lines, chars = lines + len(note.splitlines()), chars + len(note) + 1
        if lines > EXAMPLE_BOUND.lines or chars > EXAMPLE_BOUND.chars:
            if not kept:
                kept.append(_capped(note, EXAMPLE_BOUND))
            left = len(notes) - len(kept)
            if left:
                kept.append(f"… ({left} more note(s), past the report's bound)")
            break
        kept.append(note)
    return kept


def _folded(rest: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one lesson that stands for the causes past MAX_CAUSES."""
    names: list[str] = []
    for lesson in rest:
        for name in _invariants_of(lesson):
            if name not in names:
                names.append(name)
    headlines = [str(lesson.get("headline", "")).splitlines()[0] for lesson in rest]
    return {
        "invariant": names[0] if names else "",
        "invariants": names,
        "cause": MORE,
        "topic": "day7",
        "headline": f"{len(rest)} more cause(s) of failure, not shown here:"
        " fix the ones above first, then judge the folder again",
        "world": "",
        "expected": "",
        "observed": "\n".join(headline for headline in headlines if headline),
        "hint": "",
        "reproduce": "",
        "test": "",
        "example": [],
    }


def bounded(
    lessons: Sequence[Mapping[str, Any]], max_causes: int = MAX_CAUSES
) -> tuple[dict[str, Any], ...]:
    """At most `max_causes` lessons, each field within its bound.

    The causes past the bound are folded into one more lesson that names
    every invariant they break, so each failing invariant still points at a
    lesson.
    """
    kept = [_bounded_lesson(lesson) for lesson in lessons[:max_causes]]
    rest = lessons[max_causes:]
    if rest:
        kept.append(_bounded_lesson(_folded(rest)))
    return tuple(kept)


def told(
    lessons: Sequence[Mapping[str, Any]], rank: Callable[[str], int]
) -> tuple[dict[str, Any], ...]:
    """The lessons as every report tells them: one per cause, bounded."""
    return bounded(grouped(lessons, rank))
