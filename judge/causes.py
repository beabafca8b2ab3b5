"""Where a failure came from, and its cause: pure functions of what a lesson knows.

A lesson's cause is a short stable key for the mistake behind it
(`hang:evaluation.py:evaluate_run`, `unfinished:EvaluationReport.passed`,
`substrate:ReceiptStore.put`, `raises:evaluate_run:_receipt_check`): every
test that meets the same mistake makes the same key, so nothing drawn (a
path, a value) is in it, and the reports group lessons by it
(day7_verify/reports/_causes.py). The place a lesson's hint names is the target's
own frame: the learner's function an exception escaped from, or where a
call was running when it was ended.
"""

from __future__ import annotations

import os
import re
import sysconfig
import traceback
from collections.abc import Sequence

from judge.fixes import HOME, change_for, changing, placed

__all__ = [
    "RENDER_GRAMMAR",
    "at_frame",
    "called",
    "escaped",
    "frame_place",
    "hang_cause",
    "raised_cause",
    "raised_place",
    "raised_where",
    "shape_cause",
    "short_name",
]


#: The cause of a rendering that breaks render()'s grammar, wherever it is met
#: (render-grammar's own rows, the chapter scenario's report): one mistake.
RENDER_GRAMMAR = "render:grammar"


def short_name(what: str) -> str:
    return what.split("(", 1)[0].rsplit(".", 1)[-1]


# --- causes ------------------------------------------------------------------------
#
# Pure functions from what a lesson knows where it is made to its cause key.
# A key names the mistake, not the world: every test that meets the same
# mistake must make the same key, so nothing drawn (a path, a value) is in it.


def called(what: str) -> str:
    """The name a call is known by: 'ReceiptStore.put(x)' -> 'ReceiptStore.put'."""
    return re.split(r"[( ]", what.strip(), maxsplit=1)[0]


def raised_cause(what: str, error: BaseException, topic: str = "day7") -> str:
    """The cause of a call that raised: a broken Day 1-6 name is its name alone
    (whatever it raised, the learner fixes that name); a Day 7 call by the
    call and the learner's function the exception escaped from (`escaped`),
    not by its type: a lookup that lets AgentError through on one store and
    OSError on another is one mistake in one helper."""
    if topic == "substrate":
        return f"substrate:{called(what)}"
    frame = escaped(_where_of(error), _home_of(what))
    if frame is None:
        return f"raises:{short_name(what)}"
    return f"raises:{short_name(what)}:{frame[2]}"


def _where_of(error: BaseException) -> tuple[tuple[str, int, str], ...]:
    """Where `error` was raised, innermost first: as the worker saw it for an
    error from the target's process, else from its own traceback."""
    remote = getattr(error, "where", None)
    if isinstance(remote, tuple) and remote:
        return remote
    return raised_where(error)


def _home_of(what: str) -> str:
    """The course module of the call `what` names ("" if none does)."""
    name = change_for(what)
    return HOME.get(name.split(".", 1)[0], "") if name else ""


def escaped(
    where: Sequence[tuple[str, int, str]], home: str = ""
) -> tuple[str, int, str] | None:
    """The learner's function an exception left their code from: the
    innermost of the target's frames in `home`, the module of the function
    called (evaluation.py for evaluate_run), or, with no home known, in the
    module of the outermost of them. A Day 1-6 method that raised, as it
    should (Workspace.resolve_path refusing a path), is not where the
    mistake is: the evaluation helper that let it through is. None if no
    such frame is known (the worker keeps the innermost few), or the one
    found is not a plain function name (a comprehension's or a lambda's
    frame is passed over for the function it is in)."""
    targets = [frame for frame in where if _is_targets(frame[0])]
    if not targets:
        return None
    home = home or os.path.basename(targets[-1][0])
    # A comprehension or a lambda is its enclosing function's code.
    inner = (f for f in targets if os.path.basename(f[0]) == home)
    frame = next((f for f in inner if not f[2].startswith("<")), None)
    if frame is None:
        return None
    name = frame[2]
    if not name.isidentifier() or name.startswith("__"):
        return None
    return frame


def raised_place(what: str, error: BaseException, topic: str) -> tuple[str, str]:
    """(name, file) to change for a call that raised: the learner's function
    it escaped from (`escaped`) when that is not the call itself, else the
    call's name and its course module."""
    short = short_name(what)
    frame = None if topic == "substrate" else escaped(_where_of(error), _home_of(what))
    if frame is None or frame[2] == short:
        return change_for(what), ""
    return frame[2], os.path.basename(frame[0])


def hang_cause(what: str, where: Sequence[tuple[str, int, str]] = ()) -> str:
    """A hang's cause is where it hung: the function of the target's
    innermost frame, so every test that hung in the same loop is one lesson
    (not its line: a spinning loop is caught on any of its lines); else the
    call."""
    chosen = _target_frame(where)
    if chosen is None:
        return f"hang:{short_name(what)}"
    filename, _, function = chosen
    return f"hang:{os.path.basename(filename)}:{function}"


def shape_cause(short: str, problem: str) -> str:
    """The cause of a result of the wrong shape, read off its problem.

    None from a call, or None for .passed, is an unfinished function (a TODO
    body): `unfinished:<name>`; any other wrong shape `shape:<name>`.
    """
    if problem == "None":
        return f"unfinished:{short}"
    if problem.startswith("a report whose code is the judge's own"):
        return "borrowed:evaluator"
    if problem.startswith("a report whose checks, .passed or render() read otherwise"):
        return "shape:EvaluationReport.unstable"
    if problem.startswith("a report whose .passed is None"):
        return "unfinished:EvaluationReport.passed"
    if problem.startswith("a report whose .passed"):
        return "shape:EvaluationReport.passed"
    if problem.startswith("a report whose .checks"):
        return "shape:EvaluationReport.checks"
    if problem.startswith("a report whose check "):
        # "check 3 has passed=None": the field, not the position.
        field = problem.split(" has ", 1)[-1].split("=", 1)[0]
        return f"shape:CheckResult.{field}"
    if problem.startswith("a report whose checks or .passed raise "):
        kind = problem.removeprefix("a report whose checks or .passed raise ")
        return f"raises:EvaluationReport:{kind.split(':', 1)[0]}"
    if "render()" in problem:
        return "shape:EvaluationReport.render"
    return f"shape:{short}"


def at_frame(hint: str, what: str, where: Sequence[tuple[str, int, str]]) -> str:
    """`hint`, ending with the function of the target's innermost frame in
    `where` (innermost first) and its file; else with the call's name."""
    chosen = _target_frame(where)
    if chosen is not None and _is_targets(chosen[0]):
        filename, _, function = chosen
        return f"{hint}; {changing(function, os.path.basename(filename))}"
    return placed(hint, change_for(what))


def raised_where(error: BaseException) -> tuple[tuple[str, int, str], ...]:
    """Where `error` was raised, as (file, line, function), innermost first."""
    return tuple(
        (frame.filename, frame.lineno or 0, frame.name)
        for frame in reversed(traceback.extract_tb(error.__traceback__))
    )


# Frames in these places are the suite's or Python's, not the target's.
_NOT_TARGET = tuple(
    os.path.realpath(path) + os.sep
    for path in {
        os.path.dirname(os.path.abspath(__file__)),  # judge/
        *(
            sysconfig.get_paths().get(key, "")
            for key in ("stdlib", "purelib", "platlib")
        ),
    }
    if path
)


def _target_frame(
    where: Sequence[tuple[str, int, str]],
) -> tuple[str, int, str] | None:
    """The innermost frame of the call that is not the standard library's or
    the suite's own (else the innermost), or None."""
    return next(
        (frame for frame in where if _is_targets(frame[0])),
        where[0] if where else None,
    )


def _is_targets(filename: str) -> bool:
    """Whether a frame's file is the target's (not the suite's or Python's)."""
    if filename.startswith("<"):
        return False
    return not os.path.realpath(filename).startswith(_NOT_TARGET)


def frame_place(where: Sequence[tuple[str, int, str]]) -> str:
    """Where the target's code was when the alarm rang, e.g. 'evaluation.py,
    line 57, in evaluate_run' (the frame `_target_frame` picks), or ''."""
    chosen = _target_frame(where)
    if chosen is None:
        return ""
    filename, line, function = chosen
    return f"{os.path.basename(filename)}, line {line}, in {function}"
