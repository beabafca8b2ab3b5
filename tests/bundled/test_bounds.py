"""Deadlines (judge.bounds) and Ctrl-C (judge.interrupts), on their own.

Code under a deadline that loops for ever is stopped near its time, however
it swallows the interruption; deadlines nest, keeping the earliest; whatever
alarm handler, interval timer and tracer were there before are there after;
off the main thread nothing is armed. The person's Ctrl-C is told apart from
a KeyboardInterrupt that code raises itself.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from judge import bounds
from judge.bounds import (
    ESCALATE_SECONDS,
    CallLimits,
    Deadline,
    Expired,
    call_limits,
    use_call_limits,
    within,
)

ROOT = Path(__file__).resolve().parents[2]

# Every wait below is bounded by this, so a broken deadline fails the test
# instead of hanging it: a loop checks the clock itself.
SAFETY = 10.0


def spin(seconds: float = SAFETY) -> str:
    """Loop until `seconds` pass (long after any deadline under test)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "ran to the end"


@pytest.fixture(autouse=True)
def nothing_left_armed() -> Iterator[None]:
    before = (signal.getsignal(signal.SIGALRM), sys.gettrace())
    yield
    assert bounds._active == []
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert (signal.getsignal(signal.SIGALRM), sys.gettrace()) == before


def test_a_loop_is_stopped_near_its_deadline() -> None:
    """A loop under a 0.2 s deadline raises Expired after about 0.2 s."""
    deadline = Deadline(0.2)
    started = time.monotonic()
    with pytest.raises(Expired) as raised:
        within(deadline, spin)
    took = time.monotonic() - started
    assert 0.2 <= took < 1.5
    assert raised.value.deadline is deadline
    assert deadline.expired and not deadline.armed
    assert any(function == "spin" for _, _, function in raised.value.where)
    assert str(raised.value) == "did not finish within 0.2 s"


def test_a_call_that_returns_in_time_is_untouched() -> None:
    """A quick call returns its value; the deadline never rang."""
    deadline = Deadline(5.0)
    assert within(deadline, lambda x: x + 1, 41) == 42
    assert not deadline.expired
    with Deadline(None) as unbounded:
        pass
    assert not unbounded.armed


def test_except_exception_cannot_swallow_it() -> None:
    """Expired is not an Exception: `except Exception` lets it through."""
    assert not issubclass(Expired, Exception)

    def careful() -> str:
        try:
            return spin()
        except Exception:
            return "swallowed"

    with pytest.raises(Expired):
        within(Deadline(0.1), careful)


def test_a_bare_except_loop_is_hit_again_and_again() -> None:
    """Code that catches the interruption and loops on is interrupted again, and
    leaves once every line raises."""
    caught = []

    def stubborn() -> None:
        while True:
            try:
                spin()
            except BaseException:
                caught.append(time.monotonic())

    started = time.monotonic()
    with pytest.raises(Expired):
        within(Deadline(0.1), stubborn)
    assert len(caught) >= 2
    assert time.monotonic() - started < 0.1 + ESCALATE_SECONDS + 2.0


def test_a_retry_around_a_blocking_call_is_stopped() -> None:
    """`while True: try: sleep() except: pass` swallows every ring in the sleep;
    the line-by-line escalation still ends it."""

    def retrying() -> None:
        end = time.monotonic() + SAFETY
        while time.monotonic() < end:
            try:
                time.sleep(0.05)
            except BaseException:
                pass

    started = time.monotonic()
    with pytest.raises(Expired):
        within(Deadline(0.1), retrying)
    assert time.monotonic() - started < 0.1 + ESCALATE_SECONDS + 2.0


def test_code_that_swallows_it_and_returns_is_still_late() -> None:
    """A call that catches the interruption and returns has `expired` set."""

    def returns_anyway() -> str:
        try:
            return spin()
        except BaseException:
            return "pretended to finish"

    deadline = Deadline(0.1)
    assert within(deadline, returns_anyway) == "pretended to finish"
    assert deadline.expired


def test_nested_deadlines_keep_the_earliest() -> None:
    """An inner, shorter deadline rings first; an outer, shorter one wins even
    inside a longer inner one; the outer one still rings after an inner ended."""
    outer, inner = Deadline(5.0), Deadline(0.1)
    with outer:
        with pytest.raises(Expired) as raised:
            within(inner, spin)
        assert raised.value.deadline is inner
        assert outer.armed and not outer.expired

    outer, inner = Deadline(0.1), Deadline(5.0)
    started = time.monotonic()
    with pytest.raises(Expired) as raised, outer:
        within(inner, spin)
    assert raised.value.deadline is outer
    assert time.monotonic() - started < 1.5

    outer = Deadline(0.3)
    with pytest.raises(Expired) as raised, outer:
        within(Deadline(5.0), lambda: None)
        spin()
    assert raised.value.deadline is outer


def test_the_previous_handler_and_timer_are_put_back() -> None:
    """A SIGALRM handler and interval timer set before are restored, the timer
    with the time it had left."""
    rang: list[float] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        rang.append(time.monotonic())

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 3.0)
    try:
        with pytest.raises(Expired):
            within(Deadline(0.1), spin)
        assert signal.getsignal(signal.SIGALRM) is handler
        left, interval = signal.getitimer(signal.ITIMER_REAL)
        assert 1.0 < left < 3.0
        assert interval == 0.0
        assert rang == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_previous_tracer_is_put_back_after_the_escalation() -> None:
    """The line-by-line escalation borrows sys.settrace and gives it back."""
    seen: list[str] = []

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        seen.append(event)

    def stubborn() -> None:
        while True:
            try:
                time.sleep(0.05)
            except BaseException:
                pass

    outer = sys.gettrace()  # a coverage tool's, under tox -e coverage
    sys.settrace(tracer)
    try:
        with pytest.raises(Expired):
            within(Deadline(0.1), stubborn)
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(outer)


def test_off_the_main_thread_nothing_is_armed() -> None:
    """In another thread a deadline is not armed: the code runs to its end."""
    outcome: dict[str, object] = {}

    def work() -> None:
        deadline = Deadline(0.05)
        outcome["can_bound"] = bounds.can_bound()
        outcome["result"] = within(deadline, spin, 0.2)
        outcome["armed"] = deadline.armed
        outcome["expired"] = deadline.expired

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(SAFETY)
    assert outcome == {
        "can_bound": False,
        "result": "ran to the end",
        "armed": False,
        "expired": False,
    }


def test_hurry_makes_every_deadline_due_now() -> None:
    """After hurry() (the person's Ctrl-C), an armed deadline rings at once."""

    def hurried() -> str:
        bounds.hurry()
        return spin()

    started = time.monotonic()
    with pytest.raises(Expired):
        within(Deadline(SAFETY), hurried)
    assert time.monotonic() - started < 1.0
    bounds.hurry()  # nothing armed: nothing happens


def test_a_deadline_refuses_nonsense() -> None:
    """Negative, infinite or NaN seconds are refused; a deadline arms once."""
    for seconds in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="finite number of seconds"):
            Deadline(seconds)
    deadline = Deadline(1.0)
    with deadline, pytest.raises(RuntimeError, match="already armed"):
        with deadline:
            pass


def test_call_limits_shorten_only_for_a_function_that_hung() -> None:
    """After a hang, that function's calls get the short limit; others keep theirs."""
    limits = CallLimits(seconds=5.0, after_hang=1.0)
    assert limits.limit("evaluate_run") == (5.0, False)
    limits.record_hang("evaluate_run")
    assert limits.limit("evaluate_run") == (1.0, True)
    assert limits.limit("run_agent") == (5.0, False)
    assert CallLimits(seconds=None).limit("evaluate_run") == (None, False)
    assert CallLimits(seconds=0.5, after_hang=1.0, hung={"x"}).limit("x") == (
        0.5,
        False,
    )
    with pytest.raises(ValueError, match="after_hang"):
        CallLimits(after_hang=-1.0)
    previous = use_call_limits(limits)
    try:
        assert call_limits() is limits
    finally:
        assert use_call_limits(previous) is limits


# A child process: a real SIGINT while a watch is on, then after it stopped.
_CTRL_C = """
import signal, sys
from judge import interrupts
# As in a terminal, even when this test itself runs as a background job
# (which starts with SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
print(interrupts.watching(), interrupts.pressed())
stop = interrupts.watch()
inner = interrupts.watch()
print(interrupts.watching(), interrupts.pressed(),
      interrupts.is_from_person(KeyboardInterrupt()))
try:
    signal.raise_signal(signal.SIGINT)
except KeyboardInterrupt:
    interrupted = KeyboardInterrupt()
    print("raised", interrupts.pressed(), interrupts.is_from_person(interrupted))
inner()
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
stop()
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


_IGNORED = """
import signal
from judge import interrupts
signal.signal(signal.SIGINT, signal.SIG_IGN)
stop = interrupts.watch()
signal.raise_signal(signal.SIGINT)
print(interrupts.watching(), interrupts.pressed(),
      interrupts.is_from_person(KeyboardInterrupt()))
stop()
print(interrupts.watching(), signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
"""


def _printed_by(script: str) -> subprocess.CompletedProcess[str]:
    """Run `script` in a child interpreter (signals are per process)."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_where_ctrl_c_is_ignored_every_keyboard_interrupt_is_codes() -> None:
    """Run as a background job (nohup, `&`), SIGINT is ignored: nobody can
    press Ctrl-C, so a KeyboardInterrupt is the code's, and the watch leaves
    the ignored handler as it was."""
    result = _printed_by(_IGNORED)
    assert result.stdout.splitlines() == ["True False False", "False True"]


def test_the_persons_ctrl_c_is_told_apart() -> None:
    """A watch notes a real SIGINT before raising KeyboardInterrupt; a
    KeyboardInterrupt raised by code is not the person's; nested watches
    share one handler and the outermost puts Python's back."""
    result = _printed_by(_CTRL_C)
    assert result.stdout.splitlines() == [
        "False False",
        "True False False",
        "raised True True",
        "False",
        "True",
    ]
