"""From what happened to a child to one learner's verdict: pure functions.

The rules, in order:

- a trustworthy result that says the folder could not be imported: `error`;
- the command's clock ran out (and no complete result came first): `timeout`;
- a MemoryError reached the judge, or the process died saying it was out of
  memory: `out-of-memory`;
- a trustworthy result whose selection of tests did not all run to their
  end, no result, or a result that cannot be trusted: `crashed` (`error` when
  it happened while the folder was being imported);
- the folder's code changed files around it (the working directory, HOME):
  `fail`, whatever the invariants said;
- otherwise the suite's own verdict: `pass` only when it says PASS, every
  collected test finished, pytest exited 0 and at least one invariant counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from day7_verify.cohort._supervise import Finished
from day7_verify.reports._causes import told
from day7_verify.reports._evidence import Progress
from day7_verify.reports._report import LearnerVerdict, lesson
from day7_verify.reports._score import GROUPS, made_groups
from judge.ordering import INVARIANT_ORDER, invariants_at, rank

__all__ = ["OUTSIDE_WRITES", "Limits", "at_level", "classify", "counted", "output_tail"]

#: The command's own invariant, judged around the suite's.
OUTSIDE_WRITES = "writes-nothing-outside"
OUTSIDE_WRITES_STATEMENT = (
    "Judging the folder changes no file outside the workspaces it is given:"
    " not the working directory, HOME, its own folder or the judge's files."
)

_SUITE_STATUSES = {
    "PASS": "pass",
    "FAIL": "fail",
    "SKIP": "skip",
    "INCOMPLETE": "incomplete",
}
_MEMORY_WORDS = re.compile(
    r"MemoryError|Cannot allocate memory|std::bad_alloc|out of memory"
)
_TAIL_LINES = 20
_TAIL_CHARS = 2000


@dataclass(frozen=True)
class Limits:
    """The bounds a learner was judged within, as its verdict words them."""

    timeout: float
    memory: int  # bytes


def output_tail(output: str) -> str:
    """The last complete lines of what the child printed (at most 20, 2,000 chars)."""
    lines = output.splitlines()
    if output and not output.endswith("\n") and len(lines) > 1:
        lines = lines[:-1]  # cut where the clock stopped it: not a line it finished
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-_TAIL_LINES:]):
        size += len(line) + 1
        if size > _TAIL_CHARS:
            break
        kept.append(line)
    return "\n".join(reversed(kept))


def classify(
    *,
    path: str,
    limits: Limits,
    finished: Finished,
    result: Mapping[str, Any] | None,
    untrusted: str | None,
    progress: Progress,
    seconds: float,
) -> LearnerVerdict:
    """One learner's verdict from everything known about its child."""
    base: dict[str, Any] = {
        "path": path,
        "seconds": seconds,
        # Whatever happened next, the groups the probe saw made (if it ran).
        "checks_made": _checks_made(result),
    }
    tail = output_tail(finished.output)
    if result is not None and result.get("load_error"):
        return LearnerVerdict(
            status="error",
            detail=_one_line(f"the folder cannot be loaded: {result['load_error']}"),
            output_tail=tail,
            **base,
        )
    complete = result is not None and result.get("complete") is True
    memory = result.get("memory_error") if result is not None else None
    if not memory and result is not None:
        # The suite may catch a MemoryError itself and say so as a lesson.
        memory = _memory_lesson(result.get("summary") or {})
    if not memory and progress.memory_error is not None and not complete:
        memory = {
            "test": progress.memory_error,
            "invariant": progress.invariant_of(progress.memory_error),
        }
    if memory or (not complete and _MEMORY_WORDS.search(finished.output)):
        running = "timeout" if finished.timed_out else "crashed"
        return _out_of_memory(result, memory, limits, progress, running, tail, base)
    if finished.timed_out and not complete:
        return _stopped(
            "timeout",
            f"did not finish within {limits.timeout:g} s",
            "hang",
            "a call into the folder never returned in time: look for a loop that"
            " does not end, or a read or wait that never comes back, in the code"
            " this test calls",
            progress,
            tail,
            base,
        )
    if result is None or not complete:
        return _crashed(result, untrusted, finished, progress, tail, base)
    return _judged(result, base)


def _judge_faults(summary: Mapping[str, Any]) -> list[str]:
    faults = summary.get("judge_faults")
    if not isinstance(faults, list):
        return []
    # Names the suite has, nothing else: the summary is data.
    return [name for name in INVARIANT_ORDER if name in faults]


def _checks_made(result: Mapping[str, Any] | None) -> tuple[str, ...] | None:
    summary = (result or {}).get("summary")
    made = made_groups(summary.get("probe") if isinstance(summary, dict) else None)
    return None if made is None else tuple(g for g in GROUPS if g in made)


def _judged(result: Mapping[str, Any], base: dict[str, Any]) -> LearnerVerdict:
    summary = result.get("summary") or {}
    invariants, statements = _suite_invariants(summary)
    # One per cause, bounded; the command's own lesson after them, never
    # folded away: it is a verdict the suite cannot give.
    raw = _lessons(summary)
    invariants = _stopped_calls(invariants, raw)
    lessons = list(told(raw, rank))
    writes = result.get("outside_writes")
    invariants.append((OUTSIDE_WRITES, "fail" if writes else "pass"))
    statements[OUTSIDE_WRITES] = OUTSIDE_WRITES_STATEMENT
    if writes:
        lessons.append(_outside_lesson(writes))
    judged = [(n, s) for n, s in invariants if s != "skip"]
    holding = sum(s == "pass" for _, s in judged)
    verdict = summary.get("verification")
    if (
        verdict == "PASS"
        and not writes
        and result.get("exit_code") == 0
        and len(judged) > 1
    ):
        status, detail = "pass", f"all {len(judged)} invariants hold"
    elif verdict == "INCOMPLETE" and not writes and _judge_faults(summary):
        # Every test ran, none failed, and the judge could not make some
        # world itself: no verdict on the folder, and never its FAIL.
        faults = _judge_faults(summary)
        status, detail = (
            "error",
            f"day7-verify's own fault left {len(faults)} invariant"
            f"{'s' * (len(faults) != 1)} unjudged ({', '.join(faults)}):"
            " not a verdict on the folder",
        )
    elif verdict in ("PASS", "FAIL", "INCOMPLETE"):
        status, detail = "fail", f"{holding} of {len(judged)} invariants hold"
        if verdict == "PASS" and not writes:
            detail += f" (but pytest exited {result.get('exit_code')})"
    else:
        status, detail = (
            "crashed",
            f"the suite judged nothing (verification {verdict!r})",
        )
    return LearnerVerdict(
        status=status,
        detail=detail,
        invariants=tuple(invariants),
        lessons=tuple(lessons),
        statements=statements,
        **base,
    )


#: A failed invariant's mark when one of its tests failed on a call into the
#: folder that never returned (the suite's per-call clock) or whose process
#: died (the worker: os._exit, a signal), most telling first: the learner
#: then sees a hang or a crash, not a wrong verdict that never was.
_CALL_MARKS = (("hang", "timeout"), ("crash", "crashed"))


def _stopped_calls(
    invariants: Sequence[tuple[str, str]], lessons: Sequence[Mapping[str, Any]]
) -> list[tuple[str, str]]:
    """`invariants`, each failed one marked by how its calls stopped, if they did.

    The run still went on to its end and judged everything else, so the
    learner's status stays `fail`; only the invariant's mark changes.
    """
    topics: dict[str, set[str]] = {}
    for item in lessons:
        topics.setdefault(str(item.get("invariant", "")), set()).add(
            str(item.get("topic", ""))
        )
    marked = []
    for name, status in invariants:
        if status == "fail":
            status = next(
                (mark for topic, mark in _CALL_MARKS if topic in topics.get(name, ())),
                status,
            )
        marked.append((name, status))
    return marked


def _memory_lesson(summary: Mapping[str, Any]) -> dict[str, str] | None:
    for item in summary.get("lessons", ()):
        if isinstance(item, dict) and item.get("topic") == "memory":
            return {
                "test": str(item.get("test", "")),
                "invariant": str(item.get("invariant", "")),
            }
    return None


def _suite_invariants(
    summary: Mapping[str, Any],
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    invariants: list[tuple[str, str]] = []
    statements: dict[str, str] = {}
    seen: set[str] = set()
    for item in summary.get("invariants", ()):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        name = item["name"]
        if name in seen or name == OUTSIDE_WRITES:
            continue
        seen.add(name)
        invariants.append(
            (name, _SUITE_STATUSES.get(str(item.get("status")), "incomplete"))
        )
        statements[name] = str(item.get("statement", ""))
    return invariants, statements


def _lessons(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The suite's lessons, each (invariant, headline, world) once, in its order
    (`told` then makes them one per cause)."""
    kept: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for item in summary.get("lessons", ()):
        if not isinstance(item, dict):
            continue
        shaped = lesson(item)
        shaped["example"] = [_for_the_command(note) for note in shaped["example"]]
        key = (shaped["invariant"], shaped["headline"], shaped["world"])
        if key not in seen:
            seen.add(key)
            kept.append(shaped)
    return kept


# Hypothesis's note on other failing examples names a pytest option the
# command does not take: a learner is told how many, as the suite tells them.
_OTHERS_FAILED = re.compile(
    r"\(note: (?P<count>\d+) other explicit examples? also failed with this"
    r" error; (?:add --hypothesis-verbosity=verbose to see them|use"
    r" Verbosity\.verbose to view)\)"
)


def _for_the_command(note: str) -> str:
    return _OTHERS_FAILED.sub(
        lambda m: f"{m['count']} other example(s) failed the same way", note
    )


def _outside_lesson(writes: Mapping[str, Any]) -> dict[str, Any]:
    test = str(writes.get("test") or "")
    changes = [str(c) for c in writes.get("changes", ()) if isinstance(c, str)]
    if test:
        when = f"while {test} ran"
    elif writes.get("when") == "import":
        when = "while the folder was imported"
    else:
        when = "during the run"
    return lesson(
        {
            "invariant": OUTSIDE_WRITES,
            "topic": "day7",
            "headline": f"{when}, the folder's code changed files around it: "
            + "; ".join(changes[:3])
            + (f"; and {len(changes) - 3} more" if len(changes) > 3 else ""),
            "world": "the judge runs in a scratch working directory holding"
            " README.md, pyproject.toml and tox.ini, with an empty HOME, on a"
            " private copy of the folder and of the suite",
            "expected": "no file created, changed or deleted outside the workspace",
            "observed": "; ".join(changes),
            "hint": "evaluation is read-only: it reads the workspace and the receipt"
            " log and writes nothing, there or anywhere else (not the current"
            " directory, not next to its own modules)",
            "test": test,
            "cause": f"invariant:{OUTSIDE_WRITES}",
        }
    )


def _progress_invariants(
    progress: Progress, running_status: str
) -> tuple[tuple[tuple[str, str], ...], dict[str, str] | None]:
    """Each collected invariant's status as far as the child got; and what ran last."""
    running = progress.running
    by_invariant: dict[str, list[str]] = {}
    for nodeid, invariant in progress.collected:
        by_invariant.setdefault(invariant, []).append(nodeid)
    statuses: list[tuple[str, str]] = []
    for invariant, nodeids in by_invariant.items():
        outcomes = [progress.outcomes.get(n) for n in nodeids]
        if running in nodeids:
            status = running_status
        elif "failed" in outcomes:
            status = "fail"
        elif not all(n in progress.done for n in nodeids):
            status = "not-run"
        elif all(o == "skipped" for o in outcomes):
            status = "skip"
        else:
            status = "pass"
        statuses.append((invariant, status))
    where = None
    if running is not None:
        where = {"test": running, "invariant": progress.invariant_of(running)}
    return tuple(statuses), where


def _where(progress: Progress, running: Mapping[str, str] | None) -> str:
    if running is not None:
        invariant = (
            f" (invariant {running['invariant']})" if running["invariant"] else ""
        )
        return f" while running {running['test']}{invariant}"
    if progress.phase == "load":
        return " while importing the folder"
    if progress.phase in ("suite", ""):
        return " while the suite was starting"
    if progress.phase == "finishing":
        # Every test ended; the score's probe (judge/probe.py) still
        # calls evaluate_run on its written worlds.
        return " after its last test, while the score's probe called evaluate_run"
    return " between tests"


def _stopped(
    status: str,
    what: str,
    topic: str,
    hint: str,
    progress: Progress,
    tail: str,
    base: dict[str, Any],
    result: Mapping[str, Any] | None = None,
) -> LearnerVerdict:
    invariants, running = _progress_invariants(progress, status)
    headline = what + _where(progress, running)
    lessons = _lessons((result or {}).get("summary") or {})
    stop = lesson(
        {
            "invariant": running["invariant"] if running else "",
            "topic": topic,
            "headline": headline,
            "hint": hint,
            "test": running["test"] if running else "",
            # What stopped the run; the suite's own lessons on the same
            # hang (a call it bounded) keep their own, finer causes.
            "cause": f"stopped:{topic}",
        }
    )
    return LearnerVerdict(
        status=status,
        detail=_one_line(headline),
        invariants=invariants,
        # What stopped the run first: it is why the status is what it is.
        lessons=(stop, *told(lessons, rank)),
        running=running,
        output_tail=tail,
        **base,
    )


def _out_of_memory(
    result: Mapping[str, Any] | None,
    memory: Any,
    limits: Limits,
    progress: Progress,
    running_status: str,
    tail: str,
    base: dict[str, Any],
) -> LearnerVerdict:
    what = f"ran out of memory (the limit is {limits.memory >> 20} MiB)"
    hint = (
        "something the judge called allocated without bound: a list or string"
        " that grows for ever, or a whole huge file read into memory"
    )
    if isinstance(memory, dict) and isinstance(memory.get("test"), str):
        # The suite carried on after the MemoryError: say where it happened.
        statements: dict[str, str] = {}
        invariants: Sequence[tuple[str, str]]
        if result is not None and result.get("complete") is True:
            invariants, statements = _suite_invariants(result.get("summary") or {})
        else:
            invariants, _ = _progress_invariants(progress, running_status)
        where = {"test": memory["test"], "invariant": str(memory.get("invariant", ""))}
        marked = tuple(
            (name, "out-of-memory" if name == where["invariant"] else status)
            for name, status in invariants
        )
        headline = what + _where(progress, where)
        if running_status == "timeout" and (result or {}).get("complete") is not True:
            headline += f"; then the run did not finish within {limits.timeout:g} s"
        stop = lesson(
            {
                "invariant": where["invariant"],
                "topic": "memory",
                "headline": headline,
                "hint": hint,
                "test": where["test"],
                "cause": "stopped:memory",
            }
        )
        lessons = _lessons((result or {}).get("summary") or {})
        return LearnerVerdict(
            status="out-of-memory",
            detail=_one_line(headline),
            invariants=marked,
            lessons=(stop, *told(lessons, rank)),
            statements=statements,
            running=where,
            output_tail=tail,
            **base,
        )
    return _stopped("out-of-memory", what, "memory", hint, progress, tail, base, result)


def _crashed(
    result: Mapping[str, Any] | None,
    untrusted: str | None,
    finished: Finished,
    progress: Progress,
    tail: str,
    base: dict[str, Any],
) -> LearnerVerdict:
    if untrusted is not None:
        what = f"its result cannot be trusted ({untrusted})"
    elif result is not None:
        what = f"the run stopped early: {result.get('stopped') or 'not every test ran'}"
    elif finished.signal_name is not None:
        what = f"the process was killed by {finished.signal_name}"
    else:
        what = f"the process exited with status {finished.returncode} without a result"
    hint = (
        "something in the folder ended or interrupted the judge's process"
        " (os._exit, sys.exit or KeyboardInterrupt escaping, a signal):"
        " evaluation must return a report, whatever it is given"
    )
    if progress.phase == "load" and result is None:
        return LearnerVerdict(
            status="error",
            detail=_one_line(
                f"the folder cannot be loaded: importing it ended the"
                f" process ({what.removeprefix('the process ')})"
            ),
            output_tail=tail,
            **base,
        )
    return _stopped("crashed", what, "crash", hint, progress, tail, base, result)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def at_level(verdict: LearnerVerdict, level: str) -> LearnerVerdict:
    """`verdict` with exactly the level's invariants, in the suite's order.

    A run that stopped early (or never started) lists only what it reached;
    every report must still show the same invariants for every learner, so
    the others are added as `not-run`, a rule of the other level is `skip`
    whatever the child said (and a rule of this level said to be skipped is
    `incomplete`), and the command's own invariant is always there.
    """
    said = dict(verdict.invariants)
    listed: list[tuple[str, str]] = []
    for name, judged in invariants_at(level):
        status = said.pop(name, "not-run")
        if not judged:
            status = "skip"
        elif status == "skip":
            # The level judges it, so a skip means its tests never ran (a
            # profile without phases, a skip raised from the folder's code).
            status = "incomplete"
        listed.append((name, status))
    outside = said.pop(OUTSIDE_WRITES, "not-run")
    # A name the suite has that the command does not know is kept, not lost.
    listed += sorted(said.items(), key=lambda item: rank(item[0]))
    listed.append((OUTSIDE_WRITES, outside))
    statements = dict(verdict.statements)
    statements.setdefault(OUTSIDE_WRITES, OUTSIDE_WRITES_STATEMENT)
    return replace(verdict, invariants=tuple(listed), statements=statements)


def counted(verdict: LearnerVerdict, level: str) -> LearnerVerdict:
    """`verdict`, with a pass only where every invariant `level` judges holds.

    The child's summary says PASS or FAIL, but that is a claim: a pass is
    counted here from the invariants `at_level` lists, so a run whose summary
    left out, skipped or never reached one of the level's invariants cannot
    pass, whatever it said, and "k of n invariants hold" counts all n.
    """
    if verdict.status not in ("pass", "fail"):
        return verdict
    judged_here = [name for name, judged in invariants_at(level) if judged]
    judged_here.append(OUTSIDE_WRITES)
    statuses = dict(verdict.invariants)
    short = [name for name in judged_here if statuses.get(name) != "pass"]
    held = f"{len(judged_here) - len(short)} of {len(judged_here)} invariants hold"
    if verdict.status == "pass" and short:
        return replace(
            verdict,
            status="fail",
            detail=f"{held}: {_some(short)} did not run to the end and hold",
        )
    if verdict.status == "fail":
        return replace(verdict, detail=_HOLD_COUNT.sub(held, verdict.detail, count=1))
    return verdict


def _some(names: Sequence[str]) -> str:
    shown = ", ".join(names[:3])
    return shown if len(names) <= 3 else f"{shown} and {len(names) - 3} more"


_HOLD_COUNT = re.compile(r"^\d+ of \d+ invariants hold")
