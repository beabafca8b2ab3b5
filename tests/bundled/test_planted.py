"""The planted-bug catalogue still fits the bundled evaluator's source.

``python -m planted`` is slow, so it is not part of the ordinary run; these
checks are instant and keep the catalogue from rotting when the evaluator
changes: every substitution still applies exactly once, still yields valid
Python, and names invariants that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planted.bugs import BUGS, TASKS, PlantedBug, PlantError, plant

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evaluator"
INVARIANT_MARK = re.compile(r"""mark\.invariant\(\s*["']([^"']+)["']""")


def _invariant_names() -> set[str]:
    names: set[str] = set()
    for module in (ROOT / "tests" / "invariants").glob("test_*.py"):
        names.update(INVARIANT_MARK.findall(module.read_text(encoding="utf-8")))
    return names


def test_the_catalogue_has_enough_bugs_for_every_task() -> None:
    """At least 25 bugs with unique names, and every Day 7 task has one."""
    names = [bug.name for bug in BUGS]
    assert len(names) >= 25, f"got {len(names)} planted bugs, but should be at least 25"
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert not duplicates, f"planted bug names repeat: {duplicates}"
    uncovered = sorted(set(TASKS) - {bug.task for bug in BUGS})
    assert not uncovered, f"no planted bug for the Day 7 tasks {uncovered}"


@pytest.mark.parametrize("bug", BUGS, ids=lambda bug: bug.name)
def test_each_bug_applies_exactly_once_and_compiles(bug: PlantedBug) -> None:
    """The bug's old text occurs once in its module; the result is valid Python."""
    module = PACKAGE / bug.module
    source = module.read_text(encoding="utf-8")
    bugged = plant(bug, source)
    compile(bugged, str(module), "exec")


@pytest.mark.parametrize("bug", BUGS, ids=lambda bug: bug.name)
def test_each_bug_names_invariants_that_exist(bug: PlantedBug) -> None:
    """Every invariant a bug expects to catch it marks a test in tests/invariants."""
    known = _invariant_names()
    unknown = sorted(set(bug.catches) - known)
    assert not unknown, (
        f"{bug.name} expects invariants {unknown}, but no test is marked so"
    )


def test_plant_refuses_text_that_is_missing_or_repeated() -> None:
    """A substitution that does not match exactly once fails loudly."""
    bug = PlantedBug(
        name="probe",
        task="final",
        mistake="probe",
        old="x = 1",
        new="x = 2",
        catches=("probe",),
    )
    assert plant(bug, "x = 1\n") == "x = 2\n"
    for source in ("", "x = 1\nx = 1\n"):
        with pytest.raises(PlantError, match="occurs"):
            plant(bug, source)
