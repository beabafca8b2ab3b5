"""The suite's Hypothesis profiles, registered in this one place.

`dev` is the default on a workstation, `ci` on a CI machine (the `CI`
environment variable set), `thorough` when asked for; an explicit
`--hypothesis-profile NAME` always wins.

A run given a seed (`--hypothesis-seed N`, which `day7-verify` always
passes: a fresh one per run unless `--seed N`) is *seeded*: every profile is
registered again without derandomization and without an example database,
so the seed alone decides the examples. `ci` without a seed stays the
derandomized run tox and CI measure with.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hypothesis import Phase, settings

from strategies.budget import EXAMPLES, QUICK_EXAMPLES, THOROUGH_EXAMPLES

__all__ = [
    "CI",
    "DEV",
    "EXAMPLES",
    "PROFILES",
    "QUICK",
    "THOROUGH",
    "choose_profile",
    "real_runs",
    "register_profiles",
]

DEV = "dev"
CI = "ci"
THOROUGH = "thorough"
QUICK = "quick"
PROFILES: tuple[str, ...] = (DEV, CI, THOROUGH, QUICK)

# Why no deadline, in every profile: one example builds a fresh temporary
# tree (files, FIFOs, symlinks, a receipt log) and may run the target's
# agent with real subprocess commands, so its time depends on the disk and
# on process start-up, not on the code under test; a deadline would only
# report a busy machine as a flaky failure. Hangs (a FIFO at an expected
# path) are caught by the tests that plant them, with their own timeouts.
_NO_DEADLINE = None


def register_profiles(seeded: bool = False) -> None:
    """Register `dev`, `ci` and `thorough`; safe to call more than once.

    `seeded`: the run has a seed, and every profile obeys it. Why: with
    derandomize=True Hypothesis seeds each test from the test's own digest
    and ignores --hypothesis-seed, so the examples would be the same in
    every run, and a learner could record the judge's questions once and
    replay their answers (issue 26). A database would replay an earlier
    run's failure, so the same seed would not mean the same verdicts.
    """
    seeded_only = {"derandomize": False, "database": None} if seeded else {}
    settings.register_profile(
        DEV, max_examples=EXAMPLES, deadline=_NO_DEADLINE, **seeded_only
    )
    # Registered over Hypothesis's own built-in `ci` profile on purpose:
    # Hypothesis loads that one by itself when CI is set, and it keeps the
    # example database and a deadline; ours is the deterministic run the
    # 60-second CI budget is measured with. derandomize=True would make a
    # run ignore --hypothesis-seed: a seeded run registers it without.
    settings.register_profile(
        CI,
        max_examples=EXAMPLES,
        deadline=_NO_DEADLINE,
        derandomize=not seeded,
        database=None,  # CI machines start empty; a database only hides flakiness
        print_blob=True,  # a failure prints @reproduce_failure to replay it locally
        # No explain phase: it replays the failing example many times over to
        # say which parts of it matter, which the lesson's world already says;
        # on a learner whose evaluate_run raises everywhere it was most of the
        # run (20-30 s a property).
        phases=[p for p in Phase if p is not Phase.explain],
    )
    settings.register_profile(
        THOROUGH, max_examples=THOROUGH_EXAMPLES, deadline=_NO_DEADLINE, **seeded_only
    )
    # `ci` at a fifth of its examples: deterministic the same way, a seed obeyed.
    settings.register_profile(
        QUICK, settings.get_profile(CI), max_examples=QUICK_EXAMPLES
    )


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false", "no")


def choose_profile(
    explicit: str | None, environ: Mapping[str, str] | None = None
) -> str:
    """The profile to load: `explicit` if given, else `ci` under CI, else `dev`."""
    if explicit:
        return explicit
    environ = os.environ if environ is None else environ
    return CI if _truthy(environ.get("CI")) else DEV


def real_runs() -> settings:
    """Settings for properties over real runs: a sixth of the profile's examples.

    Why fewer: every example starts the target's loop and up to two
    interpreter processes (about 20 ms each); the step kinds are few, and
    the written-out worlds (strategies.plans.WRITTEN_WORLDS) hold every kind,
    so finding a mistake does not hinge on the count. No planted bug is
    caught by these properties alone; the six they catch were caught under
    10 of 10 seeds at a sixth (ten) as at a quarter (fifteen).
    """
    return settings(max_examples=max(10, settings.default.max_examples // 6))
