"""Deadlines on code the suite does not trust: a call that never returns is stopped.

A learner's code may loop for ever. `within(deadline, fn, ...)` runs a call
(and `with deadline:` runs a block) under a wall-clock deadline in the main
thread: `signal.setitimer(ITIMER_REAL)` arms an alarm whose SIGALRM handler
raises `Expired` where the code is. `Expired` is a BaseException, so an
`except Exception:` in learner code cannot swallow it; and once due, the
alarm rings again every `REPEAT_SECONDS`, so a bare `except:` that swallows it
and loops on is hit again and again. A loop that retries a blocking call
inside `try: ... except: pass` would swallow every ring (the alarm lands in
the blocking call, inside the `try`), so a deadline still running
`ESCALATE_SECONDS` after it was due also traces the code under it line by
line (`sys.settrace`) and raises `Expired` at its next line, wherever that
is: in the `except` clause too, from where it leaves the loop. The tracer
that was there before (a coverage tool's) is put back when the deadline ends.

Deadlines nest: the earliest one rings first, and when several are due the
outermost wins (a whole-test deadline ends the test even inside a call that
has its own, later, deadline). When the last deadline ends, the SIGALRM
handler and any interval timer that was running before are put back (the
timer with the time it had left, minus the time spent here).

Limits, on purpose:
- Signals reach only the main thread. Off the main thread, or where
  SIGALRM or setitimer does not exist (Windows), a deadline is not armed
  (`Deadline.armed` stays False) and the code runs unbounded; a command that
  runs the suite in a child process bounds the whole child by the wall clock,
  and that is the backstop.
- A C function that never returns to the interpreter (a regular expression
  backtracking for hours) is only interrupted once it does.

`CallLimits` holds how long one call into the target may take: a first,
generous limit, and a short one for a function that has already hung once,
so an evaluate_run that always hangs costs seconds, not minutes, per test.
"""

from __future__ import annotations

import _signal
import contextlib
import inspect
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, TypeVar

__all__ = [
    "AFTER_HANG_SECONDS",
    "CALL_SECONDS",
    "ESCALATE_SECONDS",
    "REPEAT_SECONDS",
    "CallLimits",
    "Deadline",
    "Expired",
    "call_limits",
    "can_bound",
    "frames_of",
    "hurry",
    "remaining",
    "suspended",
    "use_call_limits",
    "within",
]

#: How long one call into the target may take by default. A correct
#: evaluate_run on the suite's worlds takes milliseconds and the slowest
#: target call measured (run_agent playing a plan with real subprocess
#: commands) under 0.1 s on a quiet 2-core machine; 5 s leaves room for a
#: machine busy with other work.
CALL_SECONDS = 5.0

#: The limit for a function that has already hung once in this session.
AFTER_HANG_SECONDS = 1.0

#: Once a deadline is due, the alarm rings again this often, so learner code
#: that catches `Expired` and carries on is interrupted again.
REPEAT_SECONDS = 0.1

#: How long after it was due a deadline whose code still runs starts
#: raising at every line of that code.
ESCALATE_SECONDS = 0.3

# The shortest delay ever given to setitimer: zero would disarm it.
_SOONEST = 0.001

T = TypeVar("T")


class Expired(BaseException):
    """The deadline `deadline` passed while the code under it was running.

    A BaseException, never an Exception, so ordinary error handling in the
    code under the deadline does not catch it. `where` is the stack at the
    moment the alarm rang, innermost frame first, as (file, line, function),
    out to the frame that armed the deadline (when known).
    """

    def __init__(self, deadline: Deadline, where: tuple[tuple[str, int, str], ...]):
        self.deadline = deadline
        self.where = where
        super().__init__(f"did not finish within {deadline.seconds:g} s")


class Deadline:
    """A wall-clock bound on the code run under it: `with Deadline(5.0):`.

    `seconds` of None or 0 means no bound. `repeat_while(frame)`, when
    given, decides whether the alarm may ring again after it has rung once:
    it is asked with the frame the alarm interrupted (say, "is the target's
    code still on the stack?"), so the code that unwinds after the first
    `Expired` is not interrupted again. By default it always rings again.

    After the block, `expired` tells whether the alarm rang for this
    deadline (code that catches `Expired` and returns normally still ran
    out of time), and `armed` whether a deadline was armed at all.
    """

    def __init__(
        self,
        seconds: float | None,
        *,
        repeat_while: Callable[[FrameType | None], bool] | None = None,
    ) -> None:
        if seconds is not None and not (seconds >= 0 and math.isfinite(seconds)):
            raise ValueError(
                f"a deadline needs a finite number of seconds >= 0, got {seconds!r}"
            )
        self.seconds = seconds
        self.repeat_while = repeat_while
        self.armed = False
        self.expired = False
        self.at = math.inf  # time.monotonic() when due
        # The frame that armed it: the code under the deadline runs in frames
        # it called (None when unknown: a generator armed it).
        self.frame: FrameType | None = None

    def __repr__(self) -> str:
        return f"Deadline({self.seconds!r}, armed={self.armed}, expired={self.expired})"

    def __enter__(self) -> Deadline:
        _arm(self, sys._getframe(1))
        return self

    def __exit__(self, *exc_info: object) -> None:
        _disarm(self)


def within(deadline: Deadline, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` under `deadline`; raises `Expired` when it runs out.

    Prefer this to `with deadline:` around a call: between the call's last
    frame and the disarming, only this module's code runs, and the alarm
    never interrupts this module's own frames.
    """
    _arm(deadline, sys._getframe())
    try:
        return fn(*args, **kwargs)
    finally:
        _disarm(deadline)


_HAS_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")
_MAIN_THREAD = threading.main_thread().ident

# Every call into the target arms and disarms a deadline, so it must cost
# microseconds: signal.signal's wrapper converts to and from enums (~15 us);
# the C function under it does not.
_set_handler: Callable[[int, Any], Any] = getattr(_signal, "signal", signal.signal)


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """No deadline rings inside the block, and the time spent there is not
    counted against any: for the judge's own work in the middle of a bounded
    call (starting a new worker after the last one hung)."""
    if not _active:
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    started = time.monotonic()
    try:
        yield
    finally:
        spent = time.monotonic() - started
        for deadline in _active:
            deadline.at += spent
        if _active:
            _set_timer()


def remaining() -> float | None:
    """Seconds until the earliest armed deadline rings; None when none is armed."""
    if not _active:
        return None
    return max(min(d.at for d in _active) - time.monotonic(), 0.0)


def can_bound() -> bool:
    """Whether a deadline armed here and now would really be enforced."""
    return _HAS_ALARM and threading.get_ident() == _MAIN_THREAD


# --- the alarm -------------------------------------------------------------------

# The armed deadlines, outermost first.
_active: list[Deadline] = []
# What was there before the first deadline was armed: the SIGALRM handler,
# the interval timer (seconds left, interval) and when it was read.
_saved_handler: Any = None
_saved_timer: tuple[float, float] = (0.0, 0.0)
_saved_at = 0.0


def _arm(deadline: Deadline, frame: FrameType) -> None:
    global _saved_handler, _saved_timer, _saved_at
    if deadline.armed:
        raise RuntimeError("this deadline is already armed; make a new one")
    deadline.expired = False
    if not deadline.seconds or not can_bound():
        return
    generator = frame.f_code.co_flags & inspect.CO_GENERATOR
    # A generator's frame is not on the stack of the code it brackets.
    deadline.frame = None if generator else frame
    now = time.monotonic()
    deadline.at = now + deadline.seconds
    deadline.armed = True
    if _active:
        _active.append(deadline)
        _set_timer()
        return
    _active.append(deadline)
    _saved_handler = _set_handler(signal.SIGALRM, _ring)
    # One call sets ours and hands back whatever timer ran before.
    _saved_timer = signal.setitimer(
        signal.ITIMER_REAL, deadline.seconds, REPEAT_SECONDS
    )
    _saved_at = now


def _disarm(deadline: Deadline) -> None:
    if not deadline.armed:
        return
    # Silence first: nothing may ring while the bookkeeping changes.
    signal.setitimer(signal.ITIMER_REAL, 0)
    deadline.armed = False
    deadline.frame = None
    if deadline in _active:
        _active.remove(deadline)
    if _tracing is deadline:
        _stop_tracing()
    if _active:
        _set_timer()
        return
    previous = _saved_handler if _saved_handler is not None else signal.SIG_DFL
    _set_handler(signal.SIGALRM, previous)
    left, interval = _saved_timer
    if left > 0:
        left -= time.monotonic() - _saved_at
        signal.setitimer(signal.ITIMER_REAL, max(left, _SOONEST), interval)


def _set_timer() -> None:
    due = min(d.at for d in _active)
    delay = max(due - time.monotonic(), _SOONEST)
    signal.setitimer(signal.ITIMER_REAL, delay, REPEAT_SECONDS)


def _ring(signum: int, frame: FrameType | None) -> None:
    if not _active:
        return  # a ring already on its way when the last deadline ended
    if frame is not None and frame.f_code.co_filename == __file__:
        return  # arming or disarming: the repeat rings again if still due
    now = time.monotonic()
    due = [d for d in _active if d.at <= now]
    if not due:
        _set_timer()  # rang early (timer granularity): wait for the rest
        return
    deadline = due[0]
    if deadline.expired:
        if deadline.repeat_while is not None and not deadline.repeat_while(frame):
            return
        if now - deadline.at >= ESCALATE_SECONDS:
            _trace_under(deadline, frame)
    deadline.expired = True
    raise Expired(deadline, _stack(frame, deadline.frame))


def hurry() -> None:
    """Make every armed deadline due now (the person pressed Ctrl-C).

    Code under a deadline that swallows the KeyboardInterrupt is then
    stopped as if it had run out of time; whoever catches its `Expired`
    sees that Ctrl-C was pressed and stops the run.
    """
    if not _active:
        return
    now = time.monotonic()
    for deadline in _active:
        deadline.at = min(deadline.at, now)
    signal.setitimer(signal.ITIMER_REAL, _SOONEST, REPEAT_SECONDS)


# --- the last resort: every line raises -------------------------------------------

_tracing: Deadline | None = None
_saved_trace: Any = None
_saved_frame_traces: list[tuple[FrameType, Any]] = []


def _under(deadline: Deadline, frame: FrameType) -> bool:
    """Whether `frame` runs code under `deadline` (and is not this module's)."""
    if frame.f_code.co_filename == __file__:
        return False
    if deadline.frame is not None and not any(
        f is deadline.frame for f in frames_of(frame.f_back)
    ):
        return False
    return deadline.repeat_while is None or deadline.repeat_while(frame)


def _trace_under(deadline: Deadline, frame: FrameType | None) -> None:
    """From now on, every line of code under `deadline` raises Expired."""
    global _tracing, _saved_trace
    if _tracing is None:
        _tracing = deadline
        _saved_trace = sys.gettrace()
    for running in frames_of(frame):
        if deadline.frame is not None and running is deadline.frame:
            break
        if running.f_code.co_filename != __file__:
            _saved_frame_traces.append((running, running.f_trace))
            running.f_trace = _raise_in
    # Raising from a tracer unsets it, so it is set again at every ring.
    sys.settrace(_raise_in)


def _raise_in(frame: FrameType, event: str, arg: object) -> Any:
    deadline = _tracing
    if deadline is None or not deadline.armed:
        return None
    if event in ("call", "line") and _under(deadline, frame):
        raise Expired(deadline, _stack(frame, deadline.frame))
    return _raise_in


def _stop_tracing() -> None:
    global _tracing, _saved_trace
    sys.settrace(_saved_trace)
    for frame, trace in reversed(_saved_frame_traces):
        frame.f_trace = trace
    _saved_frame_traces.clear()
    _tracing = None
    _saved_trace = None


def _stack(
    frame: FrameType | None, until: FrameType | None, limit: int = 40
) -> tuple[tuple[str, int, str], ...]:
    """The frames from `frame` out to (not including) `until`, innermost first."""
    frames = []
    while frame is not None and frame is not until and len(frames) < limit:
        frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    return tuple(frames)


def frames_of(frame: FrameType | None) -> Iterator[FrameType]:
    """`frame` and every frame that called it, innermost first."""
    while frame is not None:
        yield frame
        frame = frame.f_back


# --- how long a call into the target may take -------------------------------------


@dataclass
class CallLimits:
    """How long one call into the target may take, by the function's name.

    `seconds` (None: unbounded) for a function's first calls;
    `after_hang` once that function has hung in this session, so a learner
    whose evaluate_run always hangs loses `seconds` once and `after_hang`
    per later test. Functions are told apart by name, so an evaluate_run
    that hangs does not shorten the limit of a slower run_agent.
    """

    seconds: float | None = CALL_SECONDS
    after_hang: float = AFTER_HANG_SECONDS
    hung: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        for name, value in (("seconds", self.seconds), ("after_hang", self.after_hang)):
            if value is not None and not (value >= 0 and math.isfinite(value)):
                raise ValueError(
                    f"CallLimits.{name} must be >= 0 seconds, got {value!r}"
                )

    def limit(self, name: str) -> tuple[float | None, bool]:
        """The limit for the next call of `name`, and whether it was shortened."""
        if not self.seconds:
            return None, False
        if name in self.hung and self.after_hang < self.seconds:
            return self.after_hang, True
        return self.seconds, False

    def record_hang(self, name: str) -> None:
        self.hung.add(name)


_limits = CallLimits()


def call_limits() -> CallLimits:
    """The limits call_target uses now."""
    return _limits


def use_call_limits(limits: CallLimits) -> CallLimits:
    """Make `limits` the ones call_target uses; returns the previous ones.

    A pytest session sets its own at the start and puts the previous ones
    back at the end (sessions run inside another session share this module).
    """
    global _limits
    previous, _limits = _limits, limits
    return previous
