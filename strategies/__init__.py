"""Hypothesis strategies and helpers for verifying any Day 7 evaluator.

The names the suite's tests (and a lesson's  snippet) import,
re-exported lazily: importing this package imports nothing else, because
Hypothesis loads `strategies._plugin` through an entry point while it is
itself being imported, so this package must stay light.

Where things live (docs/design.md has the whole map):

- the world and its truth: `World` and what the builder makes of it, worked
  out when it is made (its `Blueprint`), `truth`, `describe`, `case_spec`,
  `world_events` (world.py); the facts and their kinds: `FinalFact`,
  `FileFact`, `ResultFact`, `ReceiptFact`, `LogFact`, `EventSpec` and the
  `*_KINDS` tables (finals.py, files.py, results.py, receipts.py, logs.py);
- drawing: `worlds`, `passing_worlds`, `unavailable_worlds`,
  `hostile_worlds`, `PASSING_WORLD` (draw.py; the worlds written out one
  per kind are the suite's, tests/invariants/_written_worlds.py); real
  runs: `Plan` and its steps (plan_steps.py), what a plan implies, `replay`
  (outcome.py), `played_worlds`, `WRITTEN_WORLDS` (plans.py);
  `perturbations` (perturb.py);
- a world as evidence, in one pure step, is the judge's
  (judge/evidence.py), read from the world and its blueprint;
- the cases of task 1: `valid_specs`, `invalid_specs`, `wrong_type_specs`
  (cases.py).

Nothing here starts a process, touches a target's object or keeps a
deadline: making a world real and judging a target's report is the judge's
(`judge/`), and the target's code runs in the worker (`worker/`).
"""

from __future__ import annotations

import importlib
from typing import Any

# Each module, and the names it lends the package.
_HOMES = {
    "strategies.world": "Blueprint ExpectedCheck World case_spec describe truth"
    " world_events",
    "strategies.kinds": "UnknownKindError",
    "strategies.finals": "FINAL_KINDS FinalFact final_text",
    "strategies.files": "FILE_KINDS FileFact devices_available file_layout spelled",
    "strategies.edits": "Edit",
    "strategies.results": "RESULT_KINDS EventSpec ResultFact",
    "strategies.receipts": "RECEIPT_KINDS ReceiptFact",
    "strategies.logs": "LOG_KINDS LogDamage LogFact",
    "strategies.vocabulary": "EVALUATE INCOMPLETE_REASONS",
    "strategies.draw": "PASSING_WORLD examples_of file_facts hostile_worlds log_damages"
    " log_facts noise_events passing_worlds unavailable_worlds with_perturbations"
    " worlds",
    "strategies.plan_steps": "Denied EditFile Invalid ListFiles Plan ReadFile Refused"
    " RunCommand SeedFile WriteFile",
    "strategies.plans": "ALTERNATE_FINAL CHAPTER_WORLD EFFECTS_WORLD RICH_WORLD"
    " played_world played_worlds stopped with_written_worlds wrong_facts",
    "strategies.outcome": "Outcome replay",
    "strategies.perturb": "Perturbation perturbations perturbed_worlds",
    "strategies.cases": "EXAMPLE_WRONG_ARGUMENTS Spec ValidSpec WrongArgument"
    " example_invalid_specs example_valid_specs invalid_specs normalisable_paths"
    " valid_specs wrong_arguments wrong_type_specs",
    "strategies.profiles": "real_runs",
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names.split()}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> Any:
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module 'strategies' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
