"""Lessons (judge.lessons): whatever a call into the target does, a sentence.

A call that loops for ever, exits the interpreter, raises KeyboardInterrupt or
GeneratorExit, or runs out of memory becomes a lesson about that call, with a
topic; the person's Ctrl-C still goes through. Headlines are sentences. A
hang is shown through a worker (a copy of the bundled evaluator that does what
its `run` says, `obeys-run`): only a remote call is bounded, from outside.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _command_learners import learner_folder

from judge.calls import call_target, describing, expect_error, timed_out
from judge.lessons import TOPICS, CallAborted, InvariantFailure, fail
from judge.limits import CallLimits, use_call_limits
from judge.target import MissingNameError, Target, load_target

EVALUATE = "evaluate_run(run, workspace, receipts, case)"


@pytest.fixture
def short_limits() -> Iterator[CallLimits]:
    """Calls into the target may take 0.3 s, then 0.1 s once a function hung."""
    limits = CallLimits(seconds=0.3, after_hang=0.1)
    previous = use_call_limits(limits)
    try:
        yield limits
    finally:
        use_call_limits(previous)


@pytest.fixture(scope="module")
def obeys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """A remote target whose evaluate_run("plant:<how>", ...) does <how>."""
    parent = tmp_path_factory.mktemp("obeys")
    target = load_target(impl_path=learner_folder(parent, "obeys", "obeys-run"))
    try:
        yield target
    finally:
        target.client.stop()


def plant(target: Target, how: str) -> Any:
    """A call of the obedient target's evaluate_run that does `how`."""
    return lambda *args: target.evaluate_run(f"plant:{how}", None, None, None)


def test_a_call_that_never_returns_is_a_hang_lesson(
    short_limits: CallLimits, obeys: Target
) -> None:
    """A hang is a CallAborted (a BaseException Hypothesis does not shrink) naming
    the call, its limit, the world and where the worker was; the next call of
    the same function gets the short limit and says why."""
    assert not issubclass(CallAborted, Exception)
    started = time.monotonic()
    with pytest.raises(CallAborted) as raised:
        call_target(EVALUATE, plant(obeys, "loop"), world="a.txt holds 'x'")
    assert time.monotonic() - started < 2.0
    lesson = raised.value
    assert lesson.headline.startswith(
        f"{EVALUATE} did not return within 0.3 s on this world; it was running"
        " evaluation.py, line "
    )
    assert lesson.headline.endswith(", in _planted_loop")
    assert (lesson.topic, lesson.world) == ("hang", "a.txt holds 'x'")
    assert lesson.cause == "hang:evaluation.py:_planted_loop"
    assert "FIFO" in lesson.hint
    assert short_limits.hung == {"evaluate_run"}

    with pytest.raises(CallAborted) as raised:
        call_target(EVALUATE, plant(obeys, "loop"))
    assert raised.value.headline.startswith(
        f"{EVALUATE} did not return within 0.1 s (an earlier call already hung)"
    )
    # Another function keeps the first limit.
    with pytest.raises(CallAborted, match="within 0.3 s"):
        call_target("report.render()", plant(obeys, "loop"))


@pytest.mark.parametrize(
    "error, shown, hint",
    [
        (SystemExit(0), "SystemExit: 0", "end the whole program"),
        (SystemExit(), "SystemExit", "end the whole program"),
        (GeneratorExit(), "GeneratorExit", "generators being closed"),
        (ValueError("bad"), "ValueError: bad", "never an exception"),
    ],
)
def test_anything_the_target_raises_fails_only_its_call(
    short_limits: CallLimits, error: BaseException, shown: str, hint: str
) -> None:
    """SystemExit, GeneratorExit and any exception the bundled evaluator raises
    here become an InvariantFailure, which the run goes on after."""

    def evaluate(*args: Any) -> None:
        raise error

    with pytest.raises(InvariantFailure) as raised:
        call_target(EVALUATE, evaluate, 1, 2, 3, 4)
    assert raised.value.headline == (
        f"{EVALUATE} raised {shown}, but should return an EvaluationReport"
    )
    assert hint in raised.value.hint
    assert raised.value.topic == "day7"
    assert raised.value.__cause__ is error


@pytest.mark.parametrize(
    "how, shown",
    [
        ("raise:KeyboardInterrupt", "KeyboardInterrupt"),
        ("raise:SystemExit:3", "SystemExit: 3"),
        ("raise:GeneratorExit", "GeneratorExit"),
    ],
)
def test_anything_a_remote_target_raises_fails_only_its_call(
    short_limits: CallLimits, obeys: Target, how: str, shown: str
) -> None:
    """What a target raises in its worker, KeyboardInterrupt too (nobody
    pressed Ctrl-C: it arrives as data), is an InvariantFailure."""
    with pytest.raises(InvariantFailure) as raised:
        call_target(EVALUATE, plant(obeys, how))
    assert raised.value.headline == (
        f"{EVALUATE} raised {shown}, but should return an EvaluationReport"
    )
    assert raised.value.topic == "day7"
    if shown == "KeyboardInterrupt":
        assert "nobody pressed Ctrl-C" in raised.value.hint


def test_a_target_that_swallows_every_interruption_is_still_ended(
    short_limits: CallLimits, obeys: Target
) -> None:
    """A call that catches everything and carries on is still a hang: its worker
    is ended from outside."""
    started = time.monotonic()
    with pytest.raises(CallAborted, match="did not return within") as raised:
        call_target(
            "run_agent(task, model, workspace, limits)", plant(obeys, "swallow")
        )
    assert time.monotonic() - started < 2.0
    assert raised.value.cause == "hang:evaluation.py:_planted"


def test_running_out_of_memory_is_a_memory_lesson(short_limits: CallLimits) -> None:
    """A MemoryError is a CallAborted with topic "memory": not shrunk, not retried."""

    def evaluate(*args: Any) -> None:
        raise MemoryError

    with pytest.raises(CallAborted) as raised:
        call_target(EVALUATE, evaluate, 1, 2, 3, 4)
    assert raised.value.topic == "memory"
    assert raised.value.headline == f"{EVALUATE} ran out of memory"
    assert "never a whole file" in raised.value.hint


def test_the_persons_ctrl_c_goes_through(short_limits: CallLimits) -> None:
    """A KeyboardInterrupt raised in the judge's process is the person's Ctrl-C
    (only the bundled evaluator, ours, runs here): it stops the run."""

    def evaluate(*args: Any) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_target(EVALUATE, evaluate)
    with pytest.raises(KeyboardInterrupt):
        expect_error("FileExpectation('', 'x')", evaluate, world="w")


def test_a_missing_name_is_a_surface_lesson(short_limits: CallLimits) -> None:
    """A stand-in for a missing name fails its call with topic "surface"."""

    def missing(*args: Any) -> None:
        raise MissingNameError("evaluate_run is not defined in folder x")

    with pytest.raises(InvariantFailure) as raised:
        call_target(EVALUATE, missing)
    assert raised.value.topic == "surface"
    assert raised.value.headline == (
        f"{EVALUATE} cannot run: evaluate_run is not defined in folder x"
    )
    with pytest.raises(InvariantFailure) as raised:
        expect_error("FileExpectation('', 'x')", missing, world="w")
    assert raised.value.topic == "surface"


def test_a_lesson_carries_the_world_it_was_described_in(
    short_limits: CallLimits,
) -> None:
    """Within `describing(...)`, call lessons that name no world use that one;
    the builder's calls pass their topic and snippet through."""
    with describing("the world in words"), pytest.raises(InvariantFailure) as raised:
        call_target(
            "ToolPolicy(root)",
            lambda: 1 / 0,
            topic="substrate",
            reproduce="ToolPolicy('/tmp')",
        )
    fields = raised.value.as_dict()
    assert (fields["world"], fields["topic"], fields["reproduce"]) == (
        "the world in words",
        "substrate",
        "ToolPolicy('/tmp')",
    )
    assert "  reproduce: ToolPolicy('/tmp')" in str(raised.value)
    with describing("outer"):
        with describing("inner"), pytest.raises(InvariantFailure) as raised:
            call_target("f()", lambda: 1 / 0)
        assert raised.value.world == "inner"
        with pytest.raises(InvariantFailure) as raised:
            call_target("f()", lambda: 1 / 0, world="given")
        assert raised.value.world == "given"


def test_keywords_other_than_the_lessons_go_to_the_call() -> None:
    """Only world, topic and reproduce are the lesson's."""

    def build(root: str, *, allow_writes: bool = False) -> tuple[str, bool]:
        return root, allow_writes

    assert call_target("ToolPolicy(root)", build, "r", allow_writes=True) == (
        "r",
        True,
    )


def test_lessons_pickle_with_every_field() -> None:
    """Both kinds of lesson cross processes (xdist) whole."""
    for lesson in (
        InvariantFailure(
            world="w", expected="e", observed="o", topic="substrate", reproduce="r"
        ),
        timed_out(EVALUATE, 2.0, world="w"),
    ):
        copy = pickle.loads(pickle.dumps(lesson))
        assert type(copy) is type(lesson)
        assert copy.as_dict() == lesson.as_dict()
        assert set(copy.as_dict()) == {
            "invariant",
            "headline",
            "world",
            "whole_world",
            "expected",
            "observed",
            "hint",
            "topic",
            "reproduce",
            "cause",
        }


def test_a_long_world_is_cut_in_world_and_whole_in_whole_world() -> None:
    """`world` keeps a long world's first and last lines; `whole_world` (what
    --verbose shows) keeps every line, and both survive pickling."""
    whole = "\n".join(f"file src/f{n}.txt holds exactly the text" for n in range(95))
    lesson = InvariantFailure(world=whole, expected="e", observed="o")
    shown = lesson.as_dict()
    assert "more line(s) of the world, not shown" in shown["world"]
    assert shown["whole_world"] == whole
    assert pickle.loads(pickle.dumps(lesson)).as_dict() == shown
    short = InvariantFailure(world="w", expected="e", observed="o").as_dict()
    assert short["whole_world"] == ""


def test_a_topic_must_be_one_of_the_known_ones() -> None:
    """An unknown topic is refused when the lesson is made."""
    assert TOPICS == (
        "surface",
        "substrate",
        "hang",
        "memory",
        "crash",
        "day7",
        "judge",
    )
    with pytest.raises(ValueError, match="topic 'speed' is not one of"):
        fail(world="w", expected="e", observed="o", topic="speed")


@pytest.mark.parametrize(
    "observed, expected, headline",
    [
        (
            "EvaluationCase('x') returned None",
            "EvaluationCase('x') to raise ValueError",
            "EvaluationCase('x') returned None, but should raise ValueError",
        ),
        (
            f"{EVALUATE} still running after 5 s",
            f"{EVALUATE} to return within 5 s",
            f"{EVALUATE} still running after 5 s, but should return within 5 s",
        ),
        (
            "ValueError: 'bad'",
            "EvaluationCase('') to raise ValueError naming 'final substring'",
            "got ValueError: 'bad', but EvaluationCase('') should raise ValueError"
            " naming 'final substring'",
        ),
        (
            "TypeError: too many arguments",
            "to accept evaluate_run(run, workspace, receipts, case)",
            "got TypeError: too many arguments, but it should accept"
            " evaluate_run(run, workspace, receipts, case)",
        ),
        (
            "report.passed is None",
            "report.passed is False",
            "report.passed is None, but should be False",
        ),
        (".path == './/b'", ".path == 'b'", ".path == './/b', but should be 'b'"),
        ("n = 3", "n < 3", "got n = 3, but should be n < 3"),
        (
            "the second time: 'evaluation: FAIL'",
            "the same report twice: 'evaluation: PASS'",
            "got the second time: 'evaluation: FAIL', but should be the same report"
            " twice: 'evaluation: PASS'",
        ),
    ],
)
def test_a_default_headline_is_a_sentence(
    observed: str, expected: str, headline: str
) -> None:
    """The headline built from the two sides reads as English, never "got X
    returned None, but should be X to raise"."""
    with pytest.raises(InvariantFailure) as raised:
        fail(world="", expected=expected, observed=observed)
    assert raised.value.headline == headline


def test_expect_error_is_bounded_and_names_escapes(
    short_limits: CallLimits, obeys: Target
) -> None:
    """A constructor that hangs in its worker or exits is a lesson too."""
    with pytest.raises(CallAborted, match="did not return within 0.3 s"):
        expect_error("FileExpectation('', 'x')", plant(obeys, "loop"), world="w")

    def exits() -> None:
        raise SystemExit(3)

    with pytest.raises(InvariantFailure) as raised:
        expect_error("FileExpectation('', 'x')", exits, world="w", mentions="file path")
    assert raised.value.headline == (
        "FileExpectation('', 'x') raised SystemExit: 3, but should raise"
        " ValueError naming 'file path'"
    )


def test_a_report_whose_property_loops_is_a_hang(
    short_limits: CallLimits, obeys: Target
) -> None:
    """The report's own code (its .passed property) runs bounded too."""
    with pytest.raises(CallAborted) as raised:
        call_target(EVALUATE, plant(obeys, "report-loops"))
    assert raised.value.topic == "hang"
    assert raised.value.cause == "hang:evaluation.py:_planted_loop"


class _ReportPassedNone:
    """A report planted with .passed left None (a field never set)."""

    checks = ()
    passed = None

    def render(self) -> str:
        return ""


def test_a_report_whose_passed_is_none_is_said_to_be_a_report() -> None:
    """It did return a report: the lesson says what is wrong with it, and how."""
    with pytest.raises(InvariantFailure) as caught:
        call_target(EVALUATE, lambda: _ReportPassedNone())
    failure = caught.value
    assert failure.headline == (
        f"{EVALUATE} returned a report whose .passed is None; it must be a bool"
    )
    assert "should return" not in failure.headline
    assert "all(check.passed for check in self.checks)" in failure.hint


def test_a_receipt_store_that_writes_nothing_names_put_and_receipts_py() -> None:
    """Planted: ReceiptStore.put keeps nothing. The lesson says which Day 1-6
    method, in which file, and how many puts left how many lines."""
    from dataclasses import replace

    import evaluator
    from judge import load_target, materialise
    from strategies import LogFact, ReceiptFact, World

    class ForgetfulStore(evaluator.ReceiptStore):  # type: ignore[misc]
        def put(self, receipt: object) -> None:
            return None

    bundled = load_target()
    target = replace(bundled, names={**bundled.names, "ReceiptStore": ForgetfulStore})
    world = World(receipts=(ReceiptFact(),), log=LogFact())
    with pytest.raises(InvariantFailure) as caught:
        with materialise(world, target):
            pass
    failure = caught.value
    assert failure.topic == "substrate"
    assert "ReceiptStore.put (receipts.py) the log holds 0 line(s)" in failure.headline
    assert "after 1 call(s) of ReceiptStore.put" in failure.headline
    assert "ReceiptStore.put in receipts.py" in failure.hint
