"""Watching one evaluate_run: how it ended, and what the properties saw.

For the hardened properties (tests/invariants/test_hostile.py and
test_audit.py), none tied to one implementation; the byte snapshot they also
take is `judge.snapshot`'s, the one the read-only invariants use. A remote
target's call is bounded by its worker's bound (`HANG_SECONDS`, through
judge.remote.bounded); the bundled evaluator, ours, is called plainly. What
the call opened is `worker.audit`'s `AccessRecorder` (standard library
only, so the worker records with it too); `judge.access` judges its records.

`Figures` counts what the properties saw and reports it at the end of the
run through a small pytest plugin object (no import of pytest here).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judge.remote import OutOfTime, bounded

__all__ = [
    "HANG_SECONDS",
    "Figures",
    "FiguresReporter",
    "Outcome",
    "report_figures",
    "reported_figures",
    "short_unless_thorough",
    "watched",
]

#: How long one remote evaluate_run may take on a hostile world.  The
#: bundled evaluator needs milliseconds; a reader blocked on a FIFO needs
#: for ever. Generous, so a loaded CI machine is not mistaken for a hang.
HANG_SECONDS = 5.0


@dataclass
class Outcome:
    """How one watched call ended."""

    value: Any = None
    error: BaseException | None = None
    hung: bool = False
    seconds: float = 0.0


def watched(
    call: Callable[[], Any],
    *,
    seconds: float = HANG_SECONDS,
    inside: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
) -> Outcome:
    """Run `call()`, every request it makes to a worker within `seconds`.

    A worker that overruns is ended (judge.remote.bounded): the outcome is
    `hung`. Code that runs here (the bundled evaluator, ours) is called
    plainly. `inside` is entered around the call (the audit recorder). What
    the call raises is reported, except a KeyboardInterrupt raised here,
    which is the person's Ctrl-C, and an outer bound's expiry.
    """
    outcome = Outcome()
    started = time.perf_counter()
    try:
        with bounded(seconds) as bound:
            with inside() if inside is not None else contextlib.nullcontext():
                outcome.value = call()
    except OutOfTime as late:
        if late.bound is not bound:
            raise
        outcome.hung = True
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # reported, not raised, in the caller
        outcome.error = error
    outcome.seconds = seconds if outcome.hung else time.perf_counter() - started
    return outcome


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
