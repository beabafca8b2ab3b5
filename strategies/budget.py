"""How many examples each property draws: the one place the number lives.

Plain constants, no import: the command's parent process (its `--help`)
reads them without loading Hypothesis; strategies/profiles.py registers the
profiles with them.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "QUICK_EXAMPLES", "THOROUGH_EXAMPLES"]

#: Drawn examples per property in `dev` and `ci`, beyond the written-out
#: worlds every property runs first (they hold every kind of fact, so what a
#: kind's mistake needs is met under any seed). `python -m planted` shows
#: every planted bug caught at this count under 10 seeds, and the course
#: reference's mutants killed (docs/mutation.md); one learner's passing
#: verdict takes about 8.9 s on two cores at it, installed (docs/figures.md).
EXAMPLES = 50

#: Drawn examples per property in `quick`: a first look while working, and
#: the command's own end-to-end tests, whose subject is the command, not how
#: hard it searches. The written-out worlds still run first, so a kind's
#: mistake is still met; a PASS here is not yet one under `ci`.
QUICK_EXAMPLES = 10

#: Drawn examples per property in `thorough`.
THOROUGH_EXAMPLES = 1000
