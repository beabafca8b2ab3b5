"""Watching one evaluate_run: a deadline, and what it opened.

Two instruments for the hardened properties (tests/invariants/test_hostile.py
and test_audit.py), none tied to one implementation; the byte snapshot they
also take is `judge.snapshot`'s, the one the read-only invariants use:

* `call_with_deadline` runs a call under a deadline and gives up after a
  few seconds, so a FIFO opened for reading fails one example instead of
  hanging pytest. In the main thread the deadline is judge.bounds' alarm,
  which stops the call itself (a loop, a blocked open); elsewhere the call
  runs in a worker thread, and on a timeout the world's FIFOs are opened for
  writing, which lets a blocked reader return and the thread finish.
* what the call opened is `worker.audit`'s `AccessRecorder` (standard
  library only, so the worker records with it too); `judge.access` judges
  its records.

`Figures` counts what the properties saw and reports it at the end of the
run through a small pytest plugin object (no import of pytest here).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import safefs
from judge.bounds import Deadline, Expired, can_bound, within
from judge.interrupts import is_from_person, pressed

__all__ = [
    "HANG_SECONDS",
    "Figures",
    "FiguresReporter",
    "Outcome",
    "call_with_deadline",
    "report_figures",
    "reported_figures",
    "short_unless_thorough",
]

#: How long one evaluate_run may take on a hostile world.  The bundled
#: evaluator needs milliseconds; a reader blocked on a FIFO needs for ever.
#: Generous, so a loaded CI machine is not mistaken for a hang.
HANG_SECONDS = 5.0


# --- the deadline ---


@dataclass
class Outcome:
    """How one watched call ended."""

    value: Any = None
    error: BaseException | None = None
    hung: bool = False
    seconds: float = 0.0


def call_with_deadline(
    call: Callable[[], Any],
    *,
    seconds: float = HANG_SECONDS,
    fifos: Iterable[Path] = (),
    inside: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
) -> Outcome:
    """Run `call()` in a worker thread for at most `seconds`.

    `inside` is entered in the worker around the call (the audit recorder
    arms itself there, since it records per thread).  On a timeout the
    `fifos` are opened for writing and closed again, so a reader blocked in
    `open` or `read` gets end-of-file and the daemon thread can end.

    In the main thread the call runs there, under judge.bounds' alarm:
    a thread cannot be stopped, and one that loops for ever would hold the
    interpreter for the rest of the run.
    """
    if can_bound():
        return _call_here(call, seconds, inside)
    _settle_runaways()
    outcome = Outcome()

    def work() -> None:
        started = time.perf_counter()
        try:
            with inside() if inside is not None else contextlib.nullcontext():
                outcome.value = call()
        except BaseException as error:  # reported, not raised, in the caller
            outcome.error = error
        finally:
            outcome.seconds = time.perf_counter() - started

    worker = threading.Thread(target=work, name="day7-watched-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        outcome.hung = True
        outcome.seconds = seconds
        _unblock(worker, list(fifos))
        if worker.is_alive():
            _runaways.append(worker)
    return outcome


def _call_here(
    call: Callable[[], Any],
    seconds: float,
    inside: Callable[[], contextlib.AbstractContextManager[Any]] | None,
) -> Outcome:
    outcome = Outcome()
    deadline = Deadline(seconds)
    started = time.perf_counter()
    try:
        with inside() if inside is not None else contextlib.nullcontext():
            outcome.value = within(deadline, call)
    except Expired as expired:
        if expired.deadline is not deadline:
            raise
    except BaseException as error:  # reported, not raised, in the caller
        if is_from_person(error):
            raise
        outcome.error = error
    finally:
        outcome.seconds = time.perf_counter() - started
    if pressed():
        raise KeyboardInterrupt
    if deadline.expired:
        outcome.hung, outcome.value, outcome.error = True, None, None
        outcome.seconds = seconds
    return outcome


#: How long a new call waits for one left running by an earlier timeout.
RUNAWAY_SECONDS = 120.0

# Threads still running after their deadline (an evaluator reading a 4 GiB
# sparse file whole, say).  A Python thread cannot be stopped, so the next
# call waits for them first: otherwise every example of a failing property,
# shrinking included, would add one more runaway reader and exhaust memory.
_runaways: list[threading.Thread] = []


def _settle_runaways() -> None:
    while _runaways:
        # Waited for once: one that never ends costs one wait, not one per call.
        _runaways.pop().join(RUNAWAY_SECONDS)


#: A FIFO the judge made is opened to unblock its reader, never a link
#: learner code left in its place.
_UNBLOCK_FLAGS = os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def _unblock(worker: threading.Thread, fifos: list[Path]) -> None:
    deadline = time.monotonic() + 2.0
    while worker.is_alive() and time.monotonic() < deadline:
        for fifo in fifos:
            # Its folders reached through descriptors, never a link: the
            # worker may have swapped one for a link to a device.
            with contextlib.suppress(OSError, safefs.Unexpected):
                with safefs.opened(*_from_judges(fifo.parent)) as parent:
                    # Succeeds only while a reader waits; closing gives it EOF.
                    os.close(os.open(fifo.name, _UNBLOCK_FLAGS, dir_fd=parent))
        worker.join(0.05)


def _from_judges(folder: Path) -> tuple[Path, tuple[str, ...]]:
    """`folder` as the tree's top (in the judge's scratch parent) and the parts
    below it, each to be opened without following a link; else `folder` itself."""
    from judge.build import scratch_parent

    trusted = Path(scratch_parent() or tempfile.gettempdir())
    for top in (folder, *folder.parents):
        if top.parent == trusted:
            return top, folder.relative_to(top).parts
    return folder, ()


# --- figures ---


class Figures:
    """What a property saw across all its examples, shrinking included.

    A plain class with a short repr: Hypothesis prints a test's fixtures in
    a falsifying example, and would spell out a dataclass field by field.
    """

    def __init__(self, title: str, counts: dict[str, int] | None = None) -> None:
        self.title = title
        self.counts: dict[str, int] = dict(counts or {})
        self.kinds: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Figures({self.title!r})"

    def add(self, name: str, amount: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + amount

    def saw(self, kind: str) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def line(self) -> str:
        counted = ", ".join(f"{value:,} {name}" for name, value in self.counts.items())
        return f"{self.title}: {counted}"


class FiguresReporter:
    """A pytest plugin object: prints each `Figures` at the end of the run.

    Registered by a session fixture (`config.pluginmanager.register`), so it
    prints whether or not output is captured, after the tests and before
    pytest's own summary.
    """

    def __init__(self) -> None:
        self.figures: list[Figures] = []

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        shown = [f for f in self.figures if f.counts]
        if not shown:
            return
        terminalreporter.write_sep("-", "hardened figures")
        for figures in shown:
            terminalreporter.write_line(figures.line())
            if figures.kinds:
                kinds = ", ".join(f"{k} {v}" for k, v in sorted(figures.kinds.items()))
                terminalreporter.write_line(f"  hazards drawn: {kinds}")


_REPORTER_NAME = "day7-hardened-figures"


def report_figures(config: Any, figures: Figures) -> None:
    """Have `figures` printed at the end of the run (pytest `config`)."""
    reporter = config.pluginmanager.get_plugin(_REPORTER_NAME)
    if reporter is None:
        reporter = FiguresReporter()
        config.pluginmanager.register(reporter, _REPORTER_NAME)
    if figures not in reporter.figures:
        reporter.figures.append(figures)


def reported_figures(config: Any, title: str, names: tuple[str, ...]) -> Figures:
    """New figures counting each of `names` from zero, printed at the end of the run."""
    figures = Figures(title, counts=dict.fromkeys(names, 0))
    report_figures(config, figures)
    return figures


#: Examples per hardened property outside the `thorough` profile.
SHORT_EXAMPLES = 40


def short_unless_thorough() -> Any:
    """Settings for the short CI version of a hardened property.

    Why fewer examples: one example builds a tree of FIFOs, sockets, sparse
    files and directories nested to PATH_MAX, and creating and removing
    those costs tens of milliseconds on an ordinary disk, several times a
    typical property's example.  Every trap still runs in every run through
    the tests' explicit examples; `--hypothesis-profile thorough` runs the
    long version with that profile's own count.
    """
    from hypothesis import settings

    from strategies.profiles import THOROUGH

    if settings.get_current_profile_name() == THOROUGH:
        return settings()
    return settings(max_examples=min(settings().max_examples, SHORT_EXAMPLES))
