"""Every call into the target, and the lesson for whatever it did.

`call_target(what, fn, *args)` (or `expect_error`) makes whatever the
target's code does a lesson about that call (judge.lessons):

- an exception, a missing name or a result of the wrong shape is an
  `InvariantFailure` (Hypothesis then shrinks it to a minimal world);
- so is anything else it raises, even `SystemExit` or `GeneratorExit`, and a
  `KeyboardInterrupt` raised in the worker (it arrives as data, so the run
  goes on); a KeyboardInterrupt raised here, in the judge's process (where
  only the bundled evaluator, ours, runs) is the person's Ctrl-C and stops
  the run;
- a call to a remote target that does not return within its limit
  (judge.limits; the worker is ended from outside, judge.remote) or runs
  out of memory is a `CallAborted`, which Hypothesis neither shrinks nor
  replays, so the test fails at once with it and the run goes on.

`describing` gives the calls made while a world is built the world's words;
`substrate_lesson` is the lesson of a world the target could not build;
`report_view` reads a report's checks as plain rows, its shape checked.
The causes and places the lessons carry are judge.causes'.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

from judge.causes import (
    at_frame,
    called,
    frame_place,
    hang_cause,
    raised_cause,
    raised_place,
    shape_cause,
    short_name,
)
from judge.fixes import change_for, placed
from judge.lessons import CallAborted, InvariantFailure, fail
from judge.limits import call_limits
from judge.reading import ReadReport
from judge.remote import (
    REQUEST_SECONDS,
    OutOfTime,
    ProtocolError,
    Remote,
    WorkerDied,
    WorkerHung,
    bounded,
    read_remote,
)
from judge.shape import report_problem as _report_problem
from judge.shape import short_repr as _short_repr
from judge.target import MissingNameError

__all__ = [
    "CheckRow",
    "call_target",
    "describing",
    "expect_error",
    "raise_hint",
    "report_view",
    "substrate_lesson",
    "timed_out",
]

#: One check of a report as plain data: (name, passed, detail).
CheckRow = tuple[str, bool, str]


# --- the world a call is made in -------------------------------------------------

_WORLD: ContextVar[str] = ContextVar("day7_lesson_world", default="")


@contextlib.contextmanager
def describing(world: str) -> Iterator[None]:
    """Within the block, lessons from `call_target` that name no world use `world`.

    For the code that builds a world for a target: a call that hangs ends
    the test before Hypothesis can print the example, so the world must
    travel with the lesson.
    """
    token = _WORLD.set(world)
    try:
        yield
    finally:
        _WORLD.reset(token)


# --- calls into the target -------------------------------------------------------

# What a call into the target must return, by the name of what is called.
# A learner's unfinished function returns None; that is a failed invariant
# with a sentence, not an AttributeError three frames later.
_RETURNS: dict[str, str] = {
    "evaluate_run": "an EvaluationReport",
    "run_agent": "an AgentRun",
    "render": "a string",
}

# What a call that raised must do instead: the contract, not a guess at what
# in the world made it raise (the lesson's own words say what was raised).
_RAISE_HINTS: dict[str, str] = {
    "evaluate_run": "evaluate_run returns a report for every world: a fact it"
    " cannot confirm is a failed check with its detail, never an exception",
}

_BASE_HINTS: dict[str, str] = {
    "KeyboardInterrupt": "nobody pressed Ctrl-C: the code raised KeyboardInterrupt"
    " itself; report a problem with an ordinary exception, or a failed check",
    "SystemExit": "sys.exit() and exit() end the whole program: a library"
    " function returns, or raises an ordinary exception",
    "GeneratorExit": "GeneratorExit belongs to generators being closed; raise an"
    " ordinary exception instead",
}

_HANG_HINTS: dict[str, str] = {
    "evaluate_run": "look for a loop whose condition never changes, or a read"
    " that blocks for ever: open() on a FIFO or a device at an expected path or"
    " as the log waits for a writer; judge only regular files",
}

_MEMORY_HINTS: dict[str, str] = {
    "evaluate_run": "read at most what can match (the expected text's length"
    " plus one byte), never a whole file or log of unknown size",
}


def call_target(
    what: str,
    fn: Callable[..., Any],
    /,
    *args: Any,
    world: str = "",
    topic: str = "day7",
    reproduce: str = "",
    **kwargs: Any,
) -> Any:
    """Call `fn(*args, **kwargs)`, a function of the target, and return its result.

    `what` names the call for a learner, e.g. "evaluate_run(run, workspace,
    receipts, case)" or "report.render()". Every request it makes to a
    remote target's worker runs under the session's call limit
    (`--call-timeout`; judge.limits, judge.remote.bounded); the bundled
    evaluator, ours, runs here unbounded.
    Whatever goes wrong becomes a lesson naming the call: an exception, a
    missing name (topic "surface"), a result of the wrong shape (None from an
    unfinished function), any BaseException from the target (SystemExit,
    KeyboardInterrupt, ...) as an InvariantFailure; a call that does not
    return in time (topic "hang") or runs out of memory (topic "memory") as
    a CallAborted.

    The keywords `world`, `topic` and `reproduce` are the lesson's, never
    passed to `fn`: `world` describes the world in words (default: the one
    set by `describing`), `topic` is that of a failure of this call
    ("substrate" for the Day 1-6 calls that build a world), `reproduce` a
    runnable snippet. Every other keyword argument goes to `fn`.
    """
    __tracebackhide__ = True
    short = short_name(what)
    should = _RETURNS.get(short)
    world = world or _WORLD.get()
    returned, value = _attempt(what, short, fn, args, kwargs, world, reproduce)
    if not returned:
        if isinstance(value, MissingNameError):
            raise InvariantFailure(
                world=world,
                expected=f"{short} to be defined",
                observed=str(value),
                headline=f"{what} cannot run: {value}",
                hint=placed(
                    "define every name of the Day 7 surface in the folder's modules",
                    change_for(what),
                ),
                topic="surface",
                reproduce=reproduce,
                cause=f"surface:{short}",
            ) from value
        raised = f"{what} raised {_one_line(value)}"
        should_do = f"return {should}" if should else "return normally"
        raise InvariantFailure(
            world=world,
            expected=f"to {should_do}",
            observed=raised,
            headline=f"{raised}, but should {should_do}",
            hint=raise_hint(what, value, topic),
            topic=topic,
            reproduce=reproduce,
            cause=raised_cause(what, value, topic),
        ) from value
    if should is not None:
        _check_shape(what, short, should, value, world, topic, reproduce)
    return value


_CASE_STEPS = (
    "EvaluationCase",
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
)


def substrate_lesson(world: str, failure: InvariantFailure) -> InvariantFailure:
    """The lesson of a world (`world`: in words) the target could not build."""
    if failure.topic == "surface":
        return failure  # a missing name says so itself
    if failure.observed.split("(", 1)[0].startswith(_CASE_STEPS):
        hint = placed(
            "a valid case must be accepted: only blank required strings, bad"
            " paths, bad exit states, wrong group types and duplicates are refused",
            change_for(failure.observed),
        )
        topic = "day7"
        cause = failure.cause
    else:
        hint = failure.hint or placed(
            "the Day 1-6 names (ToolPolicy, Workspace, ReceiptStore, EffectReceipt,"
            " AgentEvent, AgentRun, ToolAction, FinalAction) must work before Day 7"
            " can be judged",
            change_for(failure.observed),
        )
        topic = "substrate"
        # The broken Day 1-6 name, whatever it did wrong and in whichever
        # invariant: the learner fixes that name, once.
        cause = (
            failure.cause
            if failure.cause.startswith("substrate:")
            else f"substrate:{called(failure.observed)}"
        )
    return InvariantFailure(
        world=world,
        expected=f"{failure.expected} to build the world",
        observed=failure.observed,
        headline=f"could not build the world through the target: {failure.observed}",
        hint=hint,
        topic=topic,
        cause=cause,
    )


def _attempt(
    what: str,
    short: str,
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    world: str,
    reproduce: str,
) -> tuple[bool, Any]:
    """Run one call into the target, its requests to a worker bounded.

    Returns (True, result), or (False, error) for anything it raised that
    is the target's own doing. Raises a CallAborted lesson when the call
    hung or ran out of memory, and lets through what is not the target's
    doing: the person's Ctrl-C (any KeyboardInterrupt raised in this
    process: the target's own arrive from the worker as data), a lesson or
    control flow of the suite's own code called back from the target, and
    an outer bound's expiry (the whole test ran out of time).
    """
    __tracebackhide__ = True
    limits = call_limits()
    seconds, shortened = limits.limit(short)
    where: tuple[tuple[str, int, str], ...] = ()
    try:
        try:
            with bounded(seconds) as bound:
                value = fn(*args, **kwargs)
        except OutOfTime as late:
            if late.bound is not bound:
                raise  # an outer bound: the whole test ran out of time
            where = late.where
            if late.memory is not None and late.memory.exhausted:
                # Out of time while filling memory (an allocation in a loop
                # the limit had not stopped yet): told as memory, with both.
                raise _filling_memory(
                    what, short, seconds, late, world, reproduce
                ) from None
        except (InvariantFailure, CallAborted, MemoryError, KeyboardInterrupt):
            raise
        except WorkerHung as hung:
            # Past REQUEST_SECONDS with no call limit (--call-timeout 0).
            seconds, where = REQUEST_SECONDS, hung.where
        except (WorkerDied, ProtocolError) as error:
            raise CallAborted(
                world=world,
                expected=f"{what} to return",
                observed=f"{what}: {error}",
                headline=f"{what} crashed the process it ran in: {error}",
                hint=placed(_CRASH_HINT, change_for(what)),
                topic="crash",
                reproduce=reproduce,
                cause=f"crash:{short}",
            ) from None
        except BaseException as error:
            if _is_machinery(error):
                raise
            return False, error
        else:
            return True, value
    except MemoryError as error:
        raise CallAborted(
            world=world,
            expected=f"{what} to return within bounded memory",
            observed=f"{what} raised {_one_line(error)}",
            headline=f"{what} ran out of memory",
            hint=placed(
                _MEMORY_HINTS.get(short, "a call must not need unbounded memory"),
                change_for(what),
            ),
            topic="memory",
            reproduce=reproduce,
            cause=f"memory:{short}",
        ) from None
    limits.record_hang(short)
    assert seconds is not None  # without a call limit only WorkerHung hangs
    raise timed_out(
        what,
        seconds,
        where,
        world=world,
        shortened=shortened,
        hint=_HANG_HINTS.get(short, ""),
        reproduce=reproduce,
    ) from None


def _filling_memory(
    what: str,
    short: str,
    seconds: float | None,
    late: OutOfTime,
    world: str,
    reproduce: str,
) -> CallAborted:
    """The lesson of a call ended by its clock with most of its memory used."""
    assert late.memory is not None
    used = f"{late.memory.peak >> 20} MiB of its {late.memory.limit >> 20} MiB limit"
    place = frame_place(late.where)
    running = f"; it was running {place}" if place else ""
    return CallAborted(
        world=world,
        expected=f"{what} to return within bounded memory",
        observed=f"{what} still running after {seconds:g} s, its memory grown to"
        f" {used} and still allocating{running}",
        # The same words as a MemoryError: which of the two ends a hog first
        # is the machine's load, and a folder judged again tells it again.
        headline=f"{what} ran out of memory",
        hint=at_frame(
            _MEMORY_HINTS.get(short, "a call must not need unbounded memory"),
            what,
            late.where,
        ),
        topic="memory",
        reproduce=reproduce,
        cause=f"memory:{short}",
    )


_CRASH_HINT = (
    "the target's code ended the process it runs in (os._exit, a signal, a"
    " crash in C code, or memory beyond the limit); a library function returns,"
    " or raises an ordinary exception"
)


def timed_out(
    what: str,
    seconds: float,
    where: Sequence[tuple[str, int, str]] = (),
    *,
    world: str = "",
    shortened: bool = False,
    hint: str = "",
    reproduce: str = "",
    verb: str = "return",
) -> CallAborted:
    """The lesson for `what`, which did not return within `seconds`.

    `where` is the worker's stack as it was ended (judge.remote.OutOfTime),
    innermost first: the lesson names the target's innermost frame in it.
    """
    headline = f"{what} did not {verb} within {seconds:g} s"
    if world:
        headline += " on this world"
    if shortened:
        headline += " (an earlier call already hung)"
    place = frame_place(where)
    if place:
        headline += f"; it was running {place}"
    return CallAborted(
        world=world,
        expected=f"{what} to {verb} within {seconds:g} s",
        observed=f"{what} still running after {seconds:g} s"
        + (f", in {place}" if place else ""),
        headline=headline,
        hint=at_frame(
            hint or "look for a loop whose condition never changes", what, where
        ),
        topic="hang",
        reproduce=reproduce,
        cause=hang_cause(what, where),
    )


def raise_hint(what: str, error: BaseException, topic: str = "day7") -> str:
    """The hint for a call `what` that raised `error`, from what happened
    alone (never a guess at what in the world made it raise): the error's
    type and the learner's function it escaped from (judge.causes.escaped),
    what the call must do instead, and where to change it."""
    place = raised_place(what, error, topic)
    if type(error).__name__ in _BASE_HINTS:
        return placed(_BASE_HINTS[type(error).__name__], *place)
    happened = _happened(what, error, topic)
    should = _RAISE_HINTS.get(short_name(what), "")
    return placed(f"{happened}; {should}" if should else happened, *place)


def _happened(what: str, error: BaseException, topic: str) -> str:
    """ "<type> escaped from <the learner's function>" (else the call's name)."""
    function = raised_place(what, error, topic)[0] or short_name(what)
    return f"{type(error).__name__} escaped from {function}"


def _is_machinery(error: BaseException) -> bool:
    """Control flow of pytest or Hypothesis, from suite code the target called."""
    module = type(error).__module__ or ""
    return module.startswith(("_pytest.", "pytest", "hypothesis.", "pluggy"))


def _check_shape(
    what: str,
    short: str,
    should: str,
    result: Any,
    world: str,
    topic: str,
    reproduce: str,
) -> None:
    __tracebackhide__ = True
    if short == "evaluate_run":
        problem = _inspect_report(result)
    elif result is None:
        problem = "None"
    elif short == "run_agent":
        absent = [
            f
            for f in ("completed", "reason", "final", "events")
            if not hasattr(result, f)
        ]
        problem = (
            f"{_short_repr(result)} without {', '.join(absent)}" if absent else None
        )
    elif short == "render" and not isinstance(result, str):
        problem = _short_repr(result)
    else:
        problem = None
    if problem is not None:
        # A report of the wrong shape is still a report: say what is wrong
        # with it, not that something else should have been returned.
        wrong_report = problem.startswith(_A_REPORT)
        raise InvariantFailure(
            world=world,
            expected=should,
            observed=f"{what} returned {problem}",
            headline=f"{what} returned {problem}"
            if wrong_report
            else f"{what} returned {problem}, but should return {should}",
            hint=placed(
                _report_hint(problem)
                if wrong_report
                else "an unfinished function (a TODO body) returns None"
                if result is None
                else "",
                _report_change(problem, what),
            ),
            topic=topic,
            reproduce=reproduce,
            cause=shape_cause(short, problem),
        )


#: How every problem of a report that is one, but of the wrong shape, starts.
_A_REPORT = "a report "
_PASSED_HINT = (
    "EvaluationReport.passed is True exactly when every check passed, e.g."
    " all(check.passed for check in self.checks); a field never set, or a"
    " property that falls off its end, gives None"
)
_CHECKS_HINT = (
    "EvaluationReport.checks is a tuple of CheckResult(name: str, passed: bool,"
    " detail: str), one per declared fact"
)


def _report_change(problem: str, what: str) -> str:
    """The name to change for a result of the wrong shape: the report's part
    its problem names (its .passed, its render), else the call that made it."""
    if problem == _UNSTABLE:
        return "EvaluationReport"
    if problem.startswith(_BORROWED):
        return "evaluate_run"
    if problem.startswith(_A_REPORT):
        if ".passed" in problem and "check " not in problem:
            return "EvaluationReport.passed"
        if "render()" in problem:
            return "EvaluationReport.render"
        # Its checks: evaluate_run makes them.
        return "evaluate_run"
    return change_for(what)


def _wrong_report(problem: str) -> str:
    """`problem` said of the report in hand: "the report's .passed is None; ..."."""
    if problem.startswith("a report whose "):
        return "the report's " + problem.removeprefix("a report whose ")
    return "the report has " + problem.removeprefix("a report ").replace(
        "without", "no", 1
    )


def _report_hint(problem: str) -> str:
    """What to do about a report of the wrong shape, read off its problem."""
    if problem == _UNSTABLE:
        return _UNSTABLE_HINT
    if problem.startswith(_BORROWED):
        return _BORROWED_HINT
    if ".passed" in problem and "check " not in problem:
        return _PASSED_HINT
    if "check" in problem:
        return _CHECKS_HINT
    return "EvaluationReport has a render() method that returns the report as text"


def _inspect_report(report: Any) -> str | None:
    """`_report_problem`, with the report's own code (its properties) bounded;
    a report the worker read (`ReadReport`) is judged on that reading alone."""
    __tracebackhide__ = True
    if isinstance(report, Remote):  # no call read it: read now, once
        returned, value = _attempt(
            "reading the report's checks and .passed",
            "report",
            read_remote,
            (report,),
            {},
            _WORLD.get(),
            "",
        )
        if not returned:
            return f"a report whose checks or .passed raise {_one_line(value)}"
        report = value
    if isinstance(report, ReadReport):
        if report.borrowed is not None:
            return f"{_BORROWED} ({report.borrowed} was loaded)"
        if report.raised is not None:
            return f"a report whose checks or .passed raise {_one_line(report.error())}"
        if report.unstable:
            return _UNSTABLE
        return report.problem
    returned, value = _attempt(
        "reading the report's checks and .passed",
        "report",
        _report_problem,
        (report,),
        {},
        _WORLD.get(),
        "",
    )
    if returned:
        return value  # type: ignore[no-any-return]
    return f"a report whose checks or .passed raise {_one_line(value)}"


_REPORT_SHAPE = "an EvaluationReport with a tuple of (name, passed, detail) checks"
#: A report that reads otherwise the second time (worker/serve.py `view`).
_UNSTABLE = (
    "a report whose checks, .passed or render() read otherwise the second time"
    " they are read"
)
#: A report made where the judge's own code was loaded (judge/reading.py).
_BORROWED = "a report whose code is the judge's own evaluator, not the learner's"
_BORROWED_HINT = (
    "a verdict built on the judge's own evaluator is refused: write the Day 7"
    " evaluator in your own evaluation.py, importing nothing of day7-verify"
)
_UNSTABLE_HINT = (
    "a report is data: make EvaluationReport a frozen dataclass holding a tuple of"
    " checks, with .passed and render() worked out from those checks alone, the"
    " same every time they are read"
)


def report_view(report: Any) -> tuple[CheckRow, ...]:
    """The report's checks as plain (name, passed, detail) rows, shape checked."""
    __tracebackhide__ = True
    problem = _inspect_report(report)
    if problem is not None:
        raise InvariantFailure(
            world=_WORLD.get(),
            expected=_REPORT_SHAPE,
            observed=problem,
            headline=_wrong_report(problem)
            if problem.startswith(_A_REPORT)
            else f"the report is {problem}, but should be {_REPORT_SHAPE}",
            hint=placed(
                _report_hint(problem)
                if problem.startswith(_A_REPORT)
                else "an unfinished function (a TODO body) returns None"
                if report is None
                else "",
                _report_change(problem, "evaluate_run"),
            ),
            cause=shape_cause("evaluate_run", problem),
        )
    if isinstance(report, Remote):
        return read_remote(report).rows
    if isinstance(report, ReadReport):
        return report.rows
    return tuple((check.name, check.passed, check.detail) for check in report.checks)


def expect_error(
    what: str,
    thunk: Callable[[], object],
    error: type[BaseException] = ValueError,
    *,
    world: str,
    mentions: str | None = None,
    hint: str = "",
    reproduce: str = "",
) -> BaseException:
    """Assert `thunk()` raises `error` (whose message contains `mentions`).

    Returns the exception. `what` names the call, e.g.
    "FileExpectation(path='/etc/passwd', content='x')". The call is bounded
    like `call_target`'s; `reproduce` is the lessons' snippet.
    """
    __tracebackhide__ = True
    should = f"raise {error.__name__}" + (
        f" naming {mentions!r}" if mentions is not None else ""
    )
    returned, value = _attempt(
        what, short_name(what), thunk, (), {}, world or _WORLD.get(), reproduce
    )
    if returned:
        fail(
            world=world,
            expected=f"{what} to {should}",
            observed=f"{what} returned {_short_repr(value)}",
            headline=f"{what} returned {_short_repr(value)}, but should {should}",
            hint=placed(hint, change_for(what)),
            reproduce=reproduce,
        )
    if isinstance(value, MissingNameError):
        fail(
            world=world,
            expected=f"{what} to {should}",
            observed=str(value),
            headline=f"{what} cannot run: {value}",
            hint=placed(hint, change_for(what)),
            topic="surface",
            reproduce=reproduce,
            cause=f"surface:{short_name(what)}",
        )
    if not isinstance(value, error):
        # What happened first (the error, the function it escaped from), and
        # its cause a raise's: a call that raises whatever it is given is one
        # mistake, told once, not once more as a refusal of the wrong kind.
        happened = _happened(what, value, "day7")
        fail(
            world=world,
            expected=f"{what} to {should}",
            observed=f"{what} raised {_one_line(value)}",
            headline=f"{what} raised {_one_line(value)}, but should {should}",
            hint=placed(
                "; ".join(part for part in (happened, hint) if part),
                *raised_place(what, value, "day7"),
            ),
            reproduce=reproduce,
            cause=raised_cause(what, value),
        )
    if mentions is not None and mentions not in str(value):
        message = f"{error.__name__}: {str(value)!r}"
        fail(
            world=world,
            expected=f"{what} to {should}",
            observed=message,
            headline=f"{what} raised {message}, which does not name {mentions!r}",
            hint=placed(
                hint or "say which field is wrong, in the field's own words",
                change_for(what),
            ),
            reproduce=reproduce,
        )
    return value  # type: ignore[no-any-return]


def _one_line(error: BaseException) -> str:
    try:
        text = " ".join(str(error).split())
    except Exception as failed:  # the target's own exception may not print
        text = f"(its str() raised {type(failed).__name__})"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
