"""How long one call into a remote target may take, by the function's name.

`call_target` (judge.lessons) asks `call_limits()` for the bound of each
call and makes its requests to the worker under it (judge.remote.bounded):
the worker is ended when the call overruns, from outside its process. The
bundled evaluator runs in the judge's process and is ours: no limit applies
to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
    "AFTER_HANG_SECONDS",
    "CALL_SECONDS",
    "CallLimits",
    "call_limits",
    "use_call_limits",
]

#: How long one call into the target may take by default. A correct
#: evaluate_run on the suite's worlds takes milliseconds and the slowest
#: target call measured (run_agent playing a plan with real subprocess
#: commands) under 0.1 s on a quiet 2-core machine; 5 s leaves room for a
#: machine busy with other work.
CALL_SECONDS = 5.0

#: The limit for a function that has already hung once in this session.
AFTER_HANG_SECONDS = 1.0


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
