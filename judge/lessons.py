"""Failures that read as lessons: the minimal world, what should hold, what did.

Every invariant test reports a broken fact through `InvariantFailure`, so the
end-of-run summary can tell a learner, in plain words, which world broke
which rule and what the usual mistake is, instead of opening with a
traceback. The helpers hide their own frames (`__tracebackhide__`) so
pytest points at the test line that asked.

Every call into the target goes through `call_target` (or `expect_error`),
which makes whatever the target's code does a lesson about that call:

- an exception, a missing name or a result of the wrong shape is an
  `InvariantFailure` (Hypothesis then shrinks it to a minimal world);
- so is anything else it raises, even `SystemExit` or `GeneratorExit`, and a
  `KeyboardInterrupt` raised in the worker (it arrives as data, so the run
  goes on); a KeyboardInterrupt raised here, in the judge's process (where
  only the bundled evaluator, ours, runs) is the person's Ctrl-C and stops
  the run;
- a call to a remote target that does not return within its limit
  (judge.limits; the worker is ended from outside, judge.remote) or runs
  out of memory is a `CallAborted`: a lesson raised as a BaseException, which
  Hypothesis neither shrinks nor replays (it would only hang or exhaust
  memory again), so the test fails at once with it and the run goes on.

Each lesson has a topic: "surface" (a Day 7 name is missing), "substrate"
(the Day 1-6 names the judge needs are broken), "hang", "memory", or "day7"
(everything else); and may carry `reproduce`, a runnable Python snippet.

Each lesson also has a `cause`: a short stable key for what made it fail,
set where the lesson is made (`hang:evaluation.py:evaluate_run`,
`unfinished:EvaluationReport.passed`, `substrate:ReceiptStore.put`,
`check:file`, ...). One mistake fails many tests and many
invariants; the reports group lessons by cause (day7_verify/_causes.py), so
a learner reads one lesson per mistake, naming every invariant it breaks.
"""

from __future__ import annotations

import contextlib
import os
import re
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, NoReturn

from judge.fixes import HOME, change_for, changing, placed
from judge.limits import call_limits
from judge.remote import (
    REQUEST_SECONDS,
    OutOfTime,
    ProtocolError,
    Remote,
    WorkerDied,
    WorkerHung,
    bounded,
    report_data,
)
from judge.shape import report_problem as _report_problem
from judge.shape import short_repr as _short_repr
from judge.target import MissingNameError

__all__ = [
    "TOPICS",
    "CallAborted",
    "InvariantFailure",
    "at_frame",
    "call_target",
    "describing",
    "expect_error",
    "fail",
    "raised_where",
    "report_view",
    "shown_world",
    "substrate_lesson",
    "timed_out",
]

#: One check of a report as plain data: (name, passed, detail).
CheckRow = tuple[str, bool, str]

#: What a lesson is about; the command that runs the suite for a class maps
#: them to a learner's status.
TOPICS: tuple[str, ...] = ("surface", "substrate", "hang", "memory", "crash", "day7")


class _Lesson:
    """The fields of a lesson, and how it reads; shared by both kinds of failure.

    `world` is the minimal world in words, `expected` and `observed` what
    should have happened and what did, `hint` the usual mistake behind it,
    `topic` one of TOPICS, `reproduce` a runnable snippet (or "").
    `invariant` may stay empty: the summary takes the name from the test's
    `invariant` marker. `cause` is what made it fail, as a stable key (see
    the module's docstring); empty: the summary uses the invariant and the
    headline, which groups nothing across invariants.
    """

    invariant: str
    expected: str
    observed: str
    hint: str
    headline: str
    topic: str
    reproduce: str
    cause: str

    def _fill(
        self,
        *,
        world: str,
        expected: str,
        observed: str,
        hint: str,
        invariant: str,
        headline: str | None,
        topic: str,
        reproduce: str,
        cause: str,
    ) -> str:
        if topic not in TOPICS:
            raise ValueError(
                f"lesson topic {topic!r} is not one of {', '.join(TOPICS)}"
            )
        self.invariant = invariant
        self.world = world
        self.expected = expected
        self.observed = observed
        self.hint = hint
        self.topic = topic
        self.reproduce = reproduce
        self.cause = cause
        # The first line of the lesson; by default built from the two sides.
        self.headline = (
            headline if headline is not None else _headline(observed, expected)
        )
        return self._render()

    #: The world as it was given, before `shown_world` bounded it.
    whole_world: str

    #: The world before it was narrowed to the facts of the wrong check
    #: (judge.verdicts.judging), or "": what --verbose shows.
    unnarrowed: str = ""

    @property
    def world(self) -> str:
        """The world the lesson shows: `whole_world`, bounded (`shown_world`);
        the lines left out are said to be in the snippet only when it has one."""
        return shown_world(self.whole_world, rebuilt=bool(self.reproduce))

    @world.setter
    def world(self, text: str) -> None:
        # Set again when a lesson travels out of `judging`, which adds the
        # world's words in front of what the lesson said.
        self.whole_world = text

    def _render(self) -> str:
        lines = [self.headline]
        if self.world:
            lines.append(_field("world", self.world))
        if self.hint:
            lines.append(_field("hint", self.hint))
        if self.reproduce:
            lines.append(_field("reproduce", self.reproduce))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only construction would defeat the default pickling, which
        # replays positional args (xdist and multiprocessing pickle errors).
        return (_rebuild, (type(self), self.as_dict(), self.whole_world))

    def _uncut(self) -> str:
        """The world whole, where `world` shows less of it; else ""."""
        whole = self.unnarrowed or self.whole_world
        return whole if whole != self.world else ""

    def as_dict(self) -> dict[str, str]:
        """The lesson as plain strings, for the summary and its JSON form."""
        return {
            "invariant": self.invariant,
            "headline": self.headline,
            "world": self.world,
            # The world uncut, only where `world` cut it: --verbose shows it.
            "whole_world": self._uncut(),
            "expected": self.expected,
            "observed": self.observed,
            "hint": self.hint,
            "topic": self.topic,
            "reproduce": self.reproduce,
            "cause": self.cause,
        }


class InvariantFailure(_Lesson, AssertionError):
    """A broken invariant, told as a lesson (see `_Lesson` for the fields)."""

    def __init__(
        self,
        *,
        world: str,
        expected: str,
        observed: str,
        hint: str = "",
        invariant: str = "",
        headline: str | None = None,
        topic: str = "day7",
        reproduce: str = "",
        cause: str = "",
    ) -> None:
        super().__init__(
            self._fill(
                world=world,
                expected=expected,
                observed=observed,
                hint=hint,
                invariant=invariant,
                headline=headline,
                topic=topic,
                reproduce=reproduce,
                cause=cause,
            )
        )


class CallAborted(_Lesson, BaseException):
    """A call into the target was stopped (it hung, or ran out of memory).

    A lesson like InvariantFailure, but a BaseException: Hypothesis only
    shrinks and replays Exception, SystemExit and GeneratorExit (and pytest's
    Failed), so this one ends the test at once, with this world, instead of
    being tried again on more worlds that would hang too. pytest records the
    test as failed and goes on with the next.
    """

    def __init__(
        self,
        *,
        world: str,
        expected: str,
        observed: str,
        hint: str = "",
        invariant: str = "",
        headline: str | None = None,
        topic: str = "hang",
        reproduce: str = "",
        cause: str = "",
    ) -> None:
        super().__init__(
            self._fill(
                world=world,
                expected=expected,
                observed=observed,
                hint=hint,
                invariant=invariant,
                headline=headline,
                topic=topic,
                reproduce=reproduce,
                cause=cause,
            )
        )


#: The most a lesson's world shows: lines, and characters in all. A drawn
#: world is shrunk by Hypothesis to a few lines; a written one ("everything
#: at once": 97 lines) and a hang's or a crash's (never shrunk: Hypothesis
#: would only hang again) are not, and their reproduce snippet has them whole.
MAX_WORLD_LINES = 12
MAX_WORLD_CHARS = 2400
# Kept from the end: the context and "the fact behind <check>", which
# `judging` and `assert_truth` put last because they matter most.
_WORLD_TAIL = 3


#: What the line standing for the lines left out says of them.
WHERE_THE_REST_IS = "the reproduce snippet rebuilds it whole"


def shown_world(text: str, rebuilt: bool = False) -> str:
    """`text` within MAX_WORLD_LINES lines and MAX_WORLD_CHARS characters.

    A longer world keeps its first lines and its last `_WORLD_TAIL`, with one
    line between saying how many were left out (and, when `rebuilt`, that the
    lesson's snippet rebuilds them: a lesson without one never says so); a
    line too long for the share of the characters is cut, ending in "…".
    Within the bounds, the text is unchanged.
    """
    lines = text.splitlines()
    if len(lines) <= MAX_WORLD_LINES and len(text) <= MAX_WORLD_CHARS:
        return text
    if len(lines) > MAX_WORLD_LINES:
        head = MAX_WORLD_LINES - _WORLD_TAIL - 1
        left = len(lines) - head - _WORLD_TAIL
        lines = [
            *lines[:head],
            f"… and {left} more line(s) of the world, not shown"
            + (f" ({WHERE_THE_REST_IS})" if rebuilt else ""),
            *lines[-_WORLD_TAIL:],
        ]
    if len("\n".join(lines)) <= MAX_WORLD_CHARS:
        return "\n".join(lines)
    share = MAX_WORLD_CHARS // len(lines) - 1
    return "\n".join(
        line if len(line) <= share else line[: share - 1] + "…" for line in lines
    )


def _rebuild(kind: type[_Lesson], fields: dict[str, str], world: str) -> _Lesson:
    fields = dict(fields)
    uncut = fields.pop("whole_world", "")
    # Rebuilt from the world before the cut, so it is cut again the same way.
    fields["world"] = world
    lesson = kind(**fields)  # type: ignore[call-arg]
    if uncut and uncut != world:
        lesson.unnarrowed = uncut
    return lesson


# --- headlines -------------------------------------------------------------------

# "<subject> to <verb> ...": an expectation phrased as what something should do.
_SHOULD_DO = re.compile(
    r"(?:^|(?<= ))to (?P<verb>accept|be|build|fail|flip|give|pass|raise|refuse"
    r"|return|stay)\b(?P<rest>.*)$"
)


def _headline(observed: str, expected: str) -> str:
    """One English sentence from what happened and what should have.

    "X returned None" / "X to raise ValueError" reads "X returned None, but
    should raise ValueError"; "report.passed is None" / "report.passed is
    False" reads "report.passed is None, but should be False"; anything else
    "got <observed>, but should be <expected>".
    """
    if "\n" in observed or "\n" in expected:
        return f"got:\n{_indent(observed)}\nbut should be:\n{_indent(expected)}"
    match = _SHOULD_DO.search(expected)
    if match is not None:
        subject = expected[: match.start()].strip()
        should = f"{match['verb']}{match['rest']}"
        if subject and observed.startswith(subject + " "):
            return f"{observed}, but should {should}"
        if subject:
            return f"got {observed}, but {subject} should {should}"
        return f"got {observed}, but it should {should}"
    for link in (" is ", " == "):
        subject, found, value = expected.partition(link)
        if found and subject and observed.startswith(subject + link):
            return f"{observed}, but should be {value}"
    return f"got {observed}, but should be {expected}"


def _field(label: str, text: str) -> str:
    if "\n" in text:
        return f"  {label}:\n{_indent(text, '    ')}"
    return f"  {label}: {text}"


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def fail(
    *,
    world: str,
    expected: str,
    observed: str,
    hint: str = "",
    invariant: str = "",
    headline: str | None = None,
    topic: str = "day7",
    reproduce: str = "",
    cause: str = "",
) -> NoReturn:
    """Raise an InvariantFailure; its headline is built from the two sides
    unless `headline` gives the sentence."""
    __tracebackhide__ = True
    raise InvariantFailure(
        world=world,
        expected=expected,
        observed=observed,
        hint=hint,
        invariant=invariant,
        headline=headline,
        topic=topic,
        reproduce=reproduce,
        cause=cause,
    )


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

_RAISE_HINTS: dict[str, str] = {
    "evaluate_run": "unavailable evidence is a failed check with its detail,"
    " never an exception",
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
    short = _short_name(what)
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
            hint=placed(
                _BASE_HINTS.get(type(value).__name__, _RAISE_HINTS.get(short, "")),
                *_raised_place(what, value, topic),
            ),
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


def _short_name(what: str) -> str:
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
        return f"raises:{_short_name(what)}"
    return f"raises:{_short_name(what)}:{frame[2]}"


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
    found is not a plain function name."""
    targets = [frame for frame in where if _is_targets(frame[0])]
    if not targets:
        return None
    home = home or os.path.basename(targets[-1][0])
    frame = next((f for f in targets if os.path.basename(f[0]) == home), None)
    if frame is None:
        return None
    name = frame[2]
    if not name.isidentifier() or name.startswith("__"):
        return None
    return frame


def _raised_place(what: str, error: BaseException, topic: str) -> tuple[str, str]:
    """(name, file) to change for a call that raised: the learner's function
    it escaped from (`escaped`) when that is not the call itself, else the
    call's name and its course module."""
    short = _short_name(what)
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
        return f"hang:{_short_name(what)}"
    filename, _, function = chosen
    return f"hang:{os.path.basename(filename)}:{function}"


def shape_cause(short: str, problem: str) -> str:
    """The cause of a result of the wrong shape, read off its problem.

    None from a call, or None for .passed, is an unfinished function (a TODO
    body): `unfinished:<name>`; any other wrong shape `shape:<name>`.
    """
    if problem == "None":
        return f"unfinished:{short}"
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
    except MemoryError:
        raise CallAborted(
            world=world,
            expected=f"{what} to return within bounded memory",
            observed=f"{what} raised MemoryError",
            headline=f"{what} ran out of memory (MemoryError)",
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
    place = _place(where)
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


def _is_machinery(error: BaseException) -> bool:
    """Control flow of pytest or Hypothesis, from suite code the target called."""
    module = type(error).__module__ or ""
    return module.startswith(("_pytest.", "pytest", "hypothesis.", "pluggy"))


# Frames in these places are the suite's or Python's, not the target's.
_NOT_TARGET = tuple(
    os.path.realpath(path) + os.sep
    for path in {
        os.path.dirname(os.path.abspath(__file__)),  # strategies/
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


def _place(where: Sequence[tuple[str, int, str]]) -> str:
    """Where the target's code was when the alarm rang, e.g. 'evaluation.py,
    line 57, in evaluate_run' (the frame `_target_frame` picks), or ''."""
    chosen = _target_frame(where)
    if chosen is None:
        return ""
    filename, line, function = chosen
    return f"{os.path.basename(filename)}, line {line}, in {function}"


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
    if ".passed" in problem and "check " not in problem:
        return _PASSED_HINT
    if "check" in problem:
        return _CHECKS_HINT
    return "EvaluationReport has a render() method that returns the report as text"


def _inspect_report(report: Any) -> str | None:
    """`_report_problem`, with the report's own code (its properties) bounded."""
    __tracebackhide__ = True
    if isinstance(report, Remote):
        returned, value = _attempt(
            "reading the report's checks and .passed",
            "report",
            report_data,
            (report,),
            {},
            _WORLD.get(),
            "",
        )
        if returned:
            problem, rows = value
            _REMOTE_ROWS[:] = [report, rows]
            return problem  # type: ignore[no-any-return]
        return f"a report whose checks or .passed raise {_one_line(value)}"
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
        held, rows = _REMOTE_ROWS or (None, None)
        _REMOTE_ROWS[:] = []
        if held is not report or rows is None:
            _, rows = report_data(report)
        return rows  # type: ignore[no-any-return]
    return tuple((check.name, check.passed, check.detail) for check in report.checks)


# The last remote report whose shape was checked, and its rows: the
# report_view that follows reads them (one request instead of two).
_REMOTE_ROWS: list[Any] = []


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
        what, _short_name(what), thunk, (), {}, world or _WORLD.get(), reproduce
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
            cause=f"surface:{_short_name(what)}",
        )
    if not isinstance(value, error):
        fail(
            world=world,
            expected=f"{what} to {should}",
            observed=f"{what} raised {_one_line(value)}",
            headline=f"{what} raised {_one_line(value)}, but should {should}",
            hint=placed(hint, change_for(what)),
            reproduce=reproduce,
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
    except Exception:  # the target's own exception may not print
        text = "(its message cannot be printed)"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
