"""Telling the person's Ctrl-C from a KeyboardInterrupt that learner code raised.

Learner code may `raise KeyboardInterrupt` (or call something that does).
That is a failed invariant, and the run must go on. A real Ctrl-C from the
person running the suite must still stop it. Both arrive as the same
exception, so while the suite runs, a SIGINT handler notes that the person
pressed Ctrl-C before it raises KeyboardInterrupt as Python's own handler
does; `pressed()` then tells the two apart.

`watch()` installs the handler and returns a function that puts the previous
one back. Watches nest (a pytest session run inside another one): only the
outermost installs, and a Ctrl-C is seen by all. The handler is installed only
in the main thread and only over Python's default handler. Where SIGINT is
ignored (a background job, nohup) no Ctrl-C can arrive, so every
KeyboardInterrupt is code's. Otherwise `watching()` is False, and a caller
cannot tell the two apart, so it must treat every KeyboardInterrupt as the
person's (stop, never pass).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

from judge import bounds

__all__ = ["is_from_person", "pressed", "watch", "watching"]

_depth = 0
_installed = False  # our handler is in place
_telling = False  # a KeyboardInterrupt can be told apart (installed, or SIGINT ignored)
_pressed = False
_previous: object = None


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _pressed
    _pressed = True
    # Code under a deadline that swallows this is then stopped all the same.
    bounds.hurry()
    raise KeyboardInterrupt


def watch() -> Callable[[], None]:
    """Start telling Ctrl-C apart; call the returned function to stop."""
    global _depth, _installed, _pressed, _previous, _telling
    if _depth == 0:
        _pressed = False
        _installed = _telling = False
        if threading.current_thread() is threading.main_thread():
            current = signal.getsignal(signal.SIGINT)
            if current is signal.default_int_handler:
                _previous = signal.signal(signal.SIGINT, _on_sigint)
                _installed = _telling = True
            elif current is signal.SIG_IGN:
                _telling = True
    _depth += 1
    stopped = False

    def stop() -> None:
        global _depth, _installed, _telling
        nonlocal stopped
        if stopped:
            return
        stopped = True
        _depth -= 1
        if _depth == 0:
            if _installed and signal.getsignal(signal.SIGINT) is _on_sigint:
                signal.signal(signal.SIGINT, _previous)  # type: ignore[arg-type]
            _installed = _telling = False

    return stop


def watching() -> bool:
    """Whether KeyboardInterrupts can be told apart (a watch is on, and its
    handler installed or SIGINT ignored)."""
    return _telling


def pressed() -> bool:
    """Whether the person pressed Ctrl-C since the outermost watch began."""
    return _pressed


def is_from_person(error: BaseException) -> bool:
    """Whether `error`, a KeyboardInterrupt, must be taken as the person's.

    True when they pressed Ctrl-C, and whenever nobody can tell.
    """
    return isinstance(error, KeyboardInterrupt) and (_pressed or not _telling)
