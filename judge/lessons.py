"""Failures that read as lessons: the minimal world, what should hold, what did.

Every invariant test reports a broken fact through `InvariantFailure`, so the
end-of-run summary can tell a learner, in plain words, which world broke
which rule and what the usual mistake is, instead of opening with a
traceback. The helpers hide their own frames (`__tracebackhide__`) so
pytest points at the test line that asked.

Every call into the target goes through `call_target` (judge.calls), which
makes whatever the target's code does a lesson of one of the two kinds
here: an `InvariantFailure` (Hypothesis then shrinks it to a minimal
world), or a `CallAborted` for a call that hung, ran out of memory or
crashed its process: a lesson raised as a BaseException, which Hypothesis
neither shrinks nor replays (it would only hang or exhaust memory again).

Each lesson has a topic: "surface" (a Day 7 name is missing), "substrate"
(the Day 1-6 names the judge needs are broken), "hang", "memory", or "day7"
(everything else); and may carry `reproduce`, a runnable Python snippet.

Each lesson also has a `cause`: a short stable key for what made it fail,
set where the lesson is made (judge.causes: `hang:evaluation.py:evaluate_run`,
`unfinished:EvaluationReport.passed`, `substrate:ReceiptStore.put`,
`check:file`, ...). One mistake fails many tests and many
invariants; the reports group lessons by cause (day7_verify/reports/_causes.py), so
a learner reads one lesson per mistake, naming every invariant it breaks.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, NoReturn

__all__ = [
    "MAX_SNIPPET_CHARS",
    "MAX_SNIPPET_LINES",
    "MAX_WORLD_CHARS",
    "MAX_WORLD_LINES",
    "PLAIN_MARK",
    "REDRAW_MARK",
    "TOPICS",
    "CallAborted",
    "InvariantFailure",
    "JudgeFault",
    "fail",
    "folder_line",
    "headline_of",
    "kept_whole",
    "shown_world",
]

#: What a lesson is about; the command that runs the suite for a class maps
#: them to a learner's status.
TOPICS: tuple[str, ...] = (
    "surface",
    "substrate",
    "hang",
    "memory",
    "crash",
    "day7",
    "judge",
)


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

    #: The topic a lesson of this class has unless told another.
    _TOPIC = "day7"

    def __init__(
        self,
        *,
        world: str,
        expected: str,
        observed: str,
        hint: str = "",
        invariant: str = "",
        headline: str | None = None,
        topic: str | None = None,
        reproduce: str = "",
        cause: str = "",
    ) -> None:
        # The exception's one argument is the rendered lesson (pytest shows it).
        super().__init__(
            self._fill(
                world=world,
                expected=expected,
                observed=observed,
                hint=hint,
                invariant=invariant,
                headline=headline,
                topic=self._TOPIC if topic is None else topic,
                reproduce=reproduce,
                cause=cause,
            )
        )

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
            headline if headline is not None else headline_of(observed, expected)
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


class CallAborted(_Lesson, BaseException):
    """A call into the target was stopped (it hung, or ran out of memory).

    A lesson like InvariantFailure, but a BaseException: Hypothesis only
    shrinks and replays Exception, SystemExit and GeneratorExit (and pytest's
    Failed), so this one ends the test at once, with this world, instead of
    being tried again on more worlds that would hang too. pytest records the
    test as failed and goes on with the next.
    """

    _TOPIC = "hang"


class JudgeFault(BaseException):
    """The judge's own failure: a world it could not make, before any code of
    the folder saw it. Never a verdict on the folder: the test stops (a
    BaseException, as CallAborted, so Hypothesis neither shrinks nor replays
    it), its invariant is incomplete, and the learner's status is `error`
    unless some invariant failed on its own."""

    def __init__(self, what: str, error: BaseException) -> None:
        self.what = what
        name, text = type(error).__name__, str(error).strip().splitlines()
        self.error = f"{name}: {text[0]}" if text else name
        super().__init__(f"the judge could not {what} ({self.error})")


#: The most a lesson's world shows: lines, and characters in all. A drawn
#: world is shrunk by Hypothesis to a few lines; a written one ("everything
#: at once": 97 lines) and a hang's or a crash's (never shrunk: Hypothesis
#: would only hang again) are not, and their reproduce snippet has them whole.
MAX_WORLD_LINES = 12
MAX_WORLD_CHARS = 2400

#: The most of a snippet the reports keep (a longer one is dropped): a plain
#: test is a program of its own, 60 to 150 lines; the characters hold the
#: suite's largest written world twice, as the judge's snippet writes it.
MAX_SNIPPET_LINES = 200
MAX_SNIPPET_CHARS = 24000


def kept_whole(snippet: str) -> bool:
    """Whether the reports keep `snippet` (within the bounds above)."""
    return (
        len(snippet.splitlines()) <= MAX_SNIPPET_LINES
        and len(snippet) <= MAX_SNIPPET_CHARS
    )


# Kept from the end: the context and "the fact behind <check>", which
# `judging` and `assert_truth` put last because they matter most.
_WORLD_TAIL = 3


#: The first line of a lesson's snippet that is a plain test the learner
#: keeps (judge/snippets.py); the reports show it as it is, not as a command
#: for the judge's own Python.
PLAIN_MARK = "# A day7-verify lesson as a test you can keep."

#: The first words of what a lesson says instead, for a world no test file
#: builds plainly (a FIFO, a device): the day7-verify line that draws it.
REDRAW_MARK = "# This world holds"


def folder_line(folder: str) -> str:
    """The folder as a plain test names it on its FOLDER line:
    `src/<package>/agent` when the folder sits in a checkout that way (the
    test runs from the checkout's root), else the folder's own path."""
    parts = PurePosixPath(folder).parts
    if len(parts) >= 3 and parts[-3] == "src" and parts[-1] == "agent":
        return "/".join(parts[-3:])
    return folder


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


def headline_of(observed: str, expected: str) -> str:
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
