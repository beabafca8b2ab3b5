"""The verdicts as data: one learner's, a class's, and their versioned JSON form.

Everything the command writes (the terminal table, JSON, HTML, JUnit,
Gradescope) is made from a `ClassReport`, and `merge` and `--baseline` read
one back from JSON, so this module is the one place the schema lives. The
schema is documented in docs/checking-a-class.md; a change that a reader of
version 1 could misread gets a new version.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from day7_verify.reports._run import run_line
from day7_verify.reports._safe import clean_verdict, exact_bytes

__all__ = [
    "CHANGES",
    "INVARIANT_STATUSES",
    "SCHEMA",
    "STATUSES",
    "ClassReport",
    "LearnerVerdict",
    "SCORE_FIELDS",
    "SchemaError",
    "lesson",
    "lesson_text",
    "lessons_by_invariant",
    "pointer",
    "read_report",
    "score_problem",
    "short_names",
    "tool_version",
    "unreportable",
]

#: The version of the JSON form; readers refuse any other.
SCHEMA = "day7-verify/1"

#: A learner's status, best first.
STATUSES: tuple[str, ...] = (
    "pass",
    "fail",
    "timeout",
    "out-of-memory",
    "crashed",
    "error",
)

#: An invariant's status for one learner.
INVARIANT_STATUSES: tuple[str, ...] = (
    "pass",
    "fail",
    "skip",
    "incomplete",
    "not-run",
    "timeout",
    "crashed",
    "out-of-memory",
)

#: What a baseline says about a learner or an invariant.
CHANGES: tuple[str, ...] = (
    "newly failing",
    "fixed",
    "still failing",
    "still passing",
    "new",
)

#: The fields of a lesson, all strings but `example` and `invariants` (lists
#: of strings). `cause` is the mistake behind it (docs/checking-a-class.md),
#: `invariants` every invariant that cause breaks, most basic first, the
#: first being `invariant`; a report written before causes has neither, and
#: reads as one cause per invariant.
LESSON_FIELDS: tuple[str, ...] = (
    "invariant",
    "topic",
    "headline",
    "world",
    "whole_world",
    "expected",
    "observed",
    "hint",
    "reproduce",
    "test",
    "example",
    "cause",
    "invariants",
)


class SchemaError(Exception):
    """A report that is not what this schema says; one line saying where."""


#: The fields every score has; a score model may add more, all numbers.
SCORE_FIELDS: tuple[str, ...] = ("percent", "earned", "possible")


def score_problem(score: Any) -> str | None:
    """What is wrong with `score` as a learner's score, or None when nothing is."""
    if not isinstance(score, Mapping):
        return "a score is a mapping of numbers"
    for name in SCORE_FIELDS:
        if name not in score:
            return f"a score has no {name!r}"
    for name, value in score.items():
        # bool is an int to Python but never a number of points.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"score {name!r} is not a number"
        if not math.isfinite(value) or value < 0:
            return f"score {name!r} must be a finite number >= 0, got {value}"
    if score["percent"] > 100:
        return f"score 'percent' is above 100: {score['percent']}"
    return None


def tool_version() -> str:
    try:
        return importlib.metadata.version("day7-verify")
    except importlib.metadata.PackageNotFoundError:
        return "0+checkout"


def lesson(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A lesson with every field, each of its type; unknown fields dropped."""
    shaped: dict[str, Any] = {}
    for name in LESSON_FIELDS:
        value = fields.get(name)
        if name in ("example", "invariants"):
            items = value if isinstance(value, list) else []
            shaped[name] = [str(item) for item in items]
        else:
            shaped[name] = "" if value is None else str(value)
    shaped["topic"] = shaped["topic"] or "day7"
    if not shaped["invariants"] and shaped["invariant"]:
        shaped["invariants"] = [shaped["invariant"]]
    if not shaped["cause"] and shaped["invariant"]:
        shaped["cause"] = f"invariant:{shaped['invariant']}"
    return shaped


def lessons_by_invariant(
    lessons: Sequence[Mapping[str, Any]],
) -> dict[str, list[Mapping[str, Any]]]:
    """Each invariant's lessons: a lesson is under every invariant its cause
    breaks, so each failing invariant points at the lesson that explains it.
    A lesson that names no invariant is the run's, under ""."""
    found: dict[str, list[Mapping[str, Any]]] = {}
    for item in lessons:
        names = item.get("invariants") or [item.get("invariant", "")]
        first = str(item.get("invariant") or names[0])
        for name in dict.fromkeys(str(name) for name in names):
            found.setdefault(name, []).append(
                item if name == first else pointer(item, first)
            )
    return found


def pointer(item: Mapping[str, Any], first: str) -> dict[str, Any]:
    """A cause's lesson as told under an invariant other than its first:
    the headline and where the whole lesson is, not the lesson again (a TODO
    `passed` breaks a dozen invariants; its world and snippet are told once)."""
    return {
        **item,
        "world": "",
        "whole_world": "",
        "expected": "",
        "observed": "",
        "reproduce": "",
        "example": [],
        "hint": f"the same cause as {first}'s failure: its lesson, under {first},"
        " says what to fix",
    }


def lesson_text(lesson: Mapping[str, Any]) -> str:
    """A lesson as plain text: its headline, then each field it has."""
    parts = [str(lesson.get("headline", ""))]
    breaks = [str(name) for name in lesson.get("invariants") or ()]
    if len(breaks) > 1:
        parts.append(f"breaks: {', '.join(breaks)}")
    for label in ("world", "expected", "observed", "hint", "reproduce", "test"):
        value = str(lesson.get(label, "")).strip()
        if value:
            parts.append(f"{label}:\n{value}" if "\n" in value else f"{label}: {value}")
    return "\n".join(parts)


@dataclass(frozen=True)
class LearnerVerdict:
    """One learner's verdict: its status, each invariant's, and the lessons."""

    path: str
    status: str
    seconds: float
    detail: str
    invariants: tuple[tuple[str, str], ...] = ()
    lessons: tuple[Mapping[str, Any], ...] = ()
    statements: Mapping[str, str] = field(default_factory=dict)
    running: Mapping[str, str] | None = None
    output_tail: str | None = None
    baseline: Mapping[str, Any] | None = None
    # The score (day7_verify/reports/_score.py, docs/score.md): the check groups the
    # suite's probe saw made (None: the probe did not run), the score as
    # {"percent", "earned", "possible"} (None: not scored, as in a report
    # written before scores), and each invariant's (name, credit, weight).
    checks_made: tuple[str, ...] | None = None
    score: Mapping[str, float] | None = None
    credits: tuple[tuple[str, float, float], ...] = ()
    # The exact bytes of the learner's name when `path` shows them escaped
    # (a name that is not UTF-8): the learner's identity, which `q\xff`
    # written out in four characters never shares (day7_verify.reports._safe).
    name_bytes: bytes | None = None

    def __post_init__(self) -> None:
        if not self.path:
            raise ValueError("a learner verdict needs a path")
        if self.status not in STATUSES:
            raise ValueError(
                f"status {self.status!r} is not one of {', '.join(STATUSES)}"
            )
        if not math.isfinite(self.seconds) or self.seconds < 0:
            raise ValueError(
                f"seconds must be a finite number >= 0, got {self.seconds}"
            )
        if "\n" in self.detail:
            raise ValueError("a verdict's detail is one line")
        names = [name for name, _ in self.invariants]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.path}: an invariant is listed twice")
        for name, status in self.invariants:
            if status not in INVARIANT_STATUSES:
                raise ValueError(f"{self.path}: invariant {name} has status {status!r}")
        if self.score is not None:
            problem = score_problem(self.score)
            if problem:
                raise ValueError(f"{self.path}: {problem}")

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def identity(self) -> bytes:
        """Who this learner is: the exact bytes of its name, one per learner
        however its path is shown (merge, shards and baselines match by it)."""
        if self.name_bytes is not None:
            return self.name_bytes
        return exact_bytes(self.path)

    def invariant_status(self, name: str) -> str | None:
        return dict(self.invariants).get(name)

    def counts(self) -> tuple[int, int]:
        """(invariants that hold, invariants judged): skipped ones do not count."""
        judged = [status for _, status in self.invariants if status != "skip"]
        return sum(status == "pass" for status in judged), len(judged)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "status": self.status,
            "seconds": round(self.seconds, 2),
            "detail": self.detail,
            "invariants": dict(self.invariants),
            # Each snippet with the command that runs it (reports/_run.py).
            "lessons": [
                {**item, "run": run_line(str(item.get("reproduce", "")))}
                for item in self.lessons
            ],
            "running": dict(self.running) if self.running else None,
        }
        if self.output_tail is not None:
            data["output_tail"] = self.output_tail
        if self.baseline is not None:
            data["baseline"] = dict(self.baseline)
        if self.name_bytes is not None:
            data["path_bytes"] = self.name_bytes.hex()
        if self.score is not None:
            data["score"] = dict(self.score)
            data["credits"] = {
                name: {"credit": earned, "weight": weight}
                for name, earned, weight in self.credits
            }
            data["checks_made"] = (
                None if self.checks_made is None else list(self.checks_made)
            )
        return data

    @classmethod
    def from_json(cls, data: Any, statements: Mapping[str, str]) -> LearnerVerdict:
        where = "a learner"
        if not isinstance(data, dict):
            raise SchemaError(f"{where} is not a JSON object")
        path = data.get("path")
        if not isinstance(path, str) or not path:
            raise SchemaError(f'{where} has no "path" string')
        where = f"learner {path}"
        invariants = data.get("invariants")
        if not isinstance(invariants, dict) or not all(
            isinstance(value, str) for value in invariants.values()
        ):
            raise SchemaError(f'{where}: "invariants" is not an object of strings')
        lessons = data.get("lessons")
        if not isinstance(lessons, list) or not all(
            isinstance(x, dict) for x in lessons
        ):
            raise SchemaError(f'{where}: "lessons" is not a list of objects')
        seconds = data.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise SchemaError(f'{where}: "seconds" is not a number')
        running = data.get("running")
        tail = data.get("output_tail")
        baseline = data.get("baseline")
        score, credits, made = _score_of(data, where)
        exact = data.get("path_bytes")
        try:
            name_bytes = None if exact is None else bytes.fromhex(exact)
        except (TypeError, ValueError):
            raise SchemaError(f'{where}: "path_bytes" is not hexadecimal') from None
        try:
            return cls(
                path=path,
                status=str(data.get("status")),
                seconds=float(seconds),
                detail=str(data.get("detail", "")),
                invariants=tuple(invariants.items()),
                lessons=tuple(lesson(item) for item in lessons),
                statements={n: statements.get(n, "") for n in invariants},
                running=running if isinstance(running, dict) else None,
                output_tail=tail if isinstance(tail, str) else None,
                baseline=baseline if isinstance(baseline, dict) else None,
                checks_made=made,
                score=score,
                credits=credits,
                name_bytes=name_bytes,
            )
        except ValueError as error:
            raise SchemaError(f"{where}: {error}") from None


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _score_of(
    data: Mapping[str, Any], where: str
) -> tuple[
    dict[str, float] | None,
    tuple[tuple[str, float, float], ...],
    tuple[str, ...] | None,
]:
    """A learner's score, credits and groups made, from JSON; all optional
    (a report written before scores has none)."""
    score = data.get("score")
    if score is None:
        return None, (), None
    if not isinstance(score, dict) or not all(
        _is_number(score.get(key)) for key in SCORE_FIELDS
    ):
        raise SchemaError(f'{where}: "score" is not {{{", ".join(SCORE_FIELDS)}}}')
    credits = data.get("credits", {})
    if not isinstance(credits, dict) or not all(
        isinstance(item, dict)
        and _is_number(item.get("credit"))
        and _is_number(item.get("weight"))
        for item in credits.values()
    ):
        raise SchemaError(f'{where}: "credits" is not an object of credit and weight')
    made = data.get("checks_made")
    if made is not None and not (
        isinstance(made, list) and all(isinstance(g, str) for g in made)
    ):
        raise SchemaError(f'{where}: "checks_made" is not a list of strings or null')
    return (
        dict(score),  # score_problem judges it, in the verdict
        tuple(
            (name, float(item["credit"]), float(item["weight"]))
            for name, item in credits.items()
        ),
        None if made is None else tuple(made),
    )


@dataclass(frozen=True)
class Shard:
    """This report holds the learners at positions index-1, index-1+count, ..."""

    index: int
    count: int
    learners: int  # in the whole class, before sharding

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: need 1 <= I <= N")


@dataclass(frozen=True)
class ClassReport:
    """Every learner judged by one run (or one shard), and how they were judged."""

    settings: Mapping[str, Any]
    learners: tuple[LearnerVerdict, ...]
    seconds: float = 0.0
    shard: Shard | None = None
    tool: str = field(default_factory=tool_version)
    #: With --baseline: the learners the baseline judged and this run did not
    #: (a folder removed or renamed since), as (path, status then), by path.
    gone: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        paths = [learner.path for learner in self.learners]
        if paths != sorted(paths):
            raise ValueError("a report lists its learners sorted by path")
        if len({learner.identity for learner in self.learners}) != len(paths):
            raise ValueError("a report names each learner once")
        # The boundary between judging (which needs a folder's real name) and
        # reporting: from here on every string is one every report can write.
        object.__setattr__(self, "learners", _cleaned(self.learners))

    @property
    def passed(self) -> bool:
        return all(learner.passed for learner in self.learners)

    def invariant_names(self) -> list[str]:
        """Every invariant any learner has, in the suite's order (most basic first)."""
        names: dict[str, None] = {}
        for learner in self.learners:
            for name, _ in learner.invariants:
                names.setdefault(name, None)
        return list(names)

    def statements(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for learner in self.learners:
            for name, text in learner.statements.items():
                if text and name not in found:
                    found[name] = text
        return found

    def summary(self) -> dict[str, int]:
        counts = {status: 0 for status in STATUSES}
        for learner in self.learners:
            counts[learner.status] += 1
        return {"learners": len(self.learners), **counts}

    def to_json(self) -> dict[str, Any]:
        statements = self.statements()
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "tool": {"name": "day7-verify", "version": self.tool},
            "settings": dict(self.settings),
            "summary": self.summary(),
            "invariants": [
                {"name": name, "statement": statements.get(name, "")}
                for name in self.invariant_names()
            ],
            "learners": [learner.to_json() for learner in self.learners],
            "seconds": round(self.seconds, 2),
        }
        if self.gone:
            data["gone"] = [
                {"path": path, "status": status} for path, status in self.gone
            ]
        if self.shard is not None:
            data["shard"] = {
                "index": self.shard.index,
                "count": self.shard.count,
                "learners": self.shard.learners,
            }
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: Any) -> ClassReport:
        if not isinstance(data, dict):
            raise SchemaError("the report is not a JSON object")
        schema = data.get("schema")
        if schema != SCHEMA:
            raise SchemaError(f"schema {schema!r} is not {SCHEMA!r}")
        settings = data.get("settings")
        if not isinstance(settings, dict):
            raise SchemaError('"settings" is not an object')
        listed = data.get("invariants")
        if not isinstance(listed, list):
            raise SchemaError('"invariants" is not a list')
        statements = {
            str(item.get("name")): str(item.get("statement", ""))
            for item in listed
            if isinstance(item, dict)
        }
        learners = data.get("learners")
        if not isinstance(learners, list):
            raise SchemaError('"learners" is not a list')
        verdicts = tuple(
            LearnerVerdict.from_json(item, statements) for item in learners
        )
        shard = None
        raw_shard = data.get("shard")
        if raw_shard is not None:
            try:
                shard = Shard(
                    int(raw_shard["index"]),
                    int(raw_shard["count"]),
                    int(raw_shard["learners"]),
                )
            except (TypeError, KeyError, ValueError) as error:
                raise SchemaError(
                    f'"shard" is not index/count/learners: {error}'
                ) from None
        gone = data.get("gone", [])
        if not isinstance(gone, list) or not all(
            isinstance(item, dict) and isinstance(item.get("path"), str)
            for item in gone
        ):
            raise SchemaError('"gone" is not a list of learners with a path')
        tool = data.get("tool")
        version = tool.get("version") if isinstance(tool, dict) else None
        seconds = data.get("seconds", 0.0)
        try:
            return cls(
                settings=settings,
                learners=tuple(sorted(verdicts, key=lambda v: v.path)),
                seconds=float(seconds) if isinstance(seconds, (int, float)) else 0.0,
                shard=shard,
                tool=str(version) if version else "unknown",
                gone=tuple((i["path"], str(i.get("status", ""))) for i in gone),
            )
        except ValueError as error:
            raise SchemaError(str(error)) from None

    def with_learners(self, learners: Sequence[LearnerVerdict]) -> ClassReport:
        return replace(self, learners=tuple(sorted(learners, key=lambda v: v.path)))


def unreportable(learner: LearnerVerdict, error: BaseException) -> LearnerVerdict:
    """The row of a learner whose own part of a report could not be made:
    `error`, saying why, with its invariants' names kept and nothing else of
    what it said (whatever broke the report is in there)."""
    why = " ".join(f"{type(error).__name__}: {error}".split())[:300]
    return LearnerVerdict(
        path=learner.path,
        status="error",
        seconds=learner.seconds,
        detail=f"this learner's report could not be made: {why}",
        invariants=tuple((name, "not-run") for name, _ in learner.invariants),
        name_bytes=learner.name_bytes,
    )


def _cleaned(learners: Sequence[LearnerVerdict]) -> tuple[LearnerVerdict, ...]:
    """`learners` made valid UTF-8 (`clean_verdict`), sorted by path again.

    Two names that differ only where they were not UTF-8 could read alike
    once cleaned; the later (by its exact bytes) gets ` (2)`, so each
    learner is still one row, and keeps its identity (`name_bytes`): a
    report, its shards merged, and it read back agree on who is who.
    """
    taken: set[str] = set()
    cleaned = []
    for clean in sorted(
        (clean_verdict(learner) for learner in learners),
        key=lambda v: (v.path, v.identity),
    ):
        path, number = clean.path, 1
        while path in taken:
            number += 1
            path = f"{clean.path} ({number})"
        taken.add(path)
        if path != clean.path:
            clean = replace(clean, path=path, name_bytes=clean.identity)
        cleaned.append(clean)
    return tuple(sorted(cleaned, key=lambda v: (v.path, v.identity)))


def short_names(paths: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The folder all `paths` share, and each path below it (for tables).

    ("", each path as it is) when they share none.
    """
    if len(paths) < 2:
        return "", {path: path for path in paths}
    parts = [path.split("/") for path in paths]
    shared: list[str] = []
    for column in zip(*(p[:-1] for p in parts), strict=False):
        if len(set(column)) != 1:
            break
        shared.append(column[0])
    if not shared or shared == [""]:
        return "", {path: path for path in paths}
    prefix = "/".join(shared)
    return prefix, {path: path[len(prefix) + 1 :] for path in paths}


def read_report(path: str | Path, what: str) -> ClassReport:
    """A report read back from JSON; SchemaError (one line naming `what`) otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise SchemaError(f"{what} {path}: {error.strerror or error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise SchemaError(f"{what} {path}: not JSON ({error})") from None
    try:
        return ClassReport.from_json(data)
    except SchemaError as error:
        raise SchemaError(f"{what} {path}: {error}") from None
