"""Hypothesis strategies and helpers for verifying any Day 7 evaluator.

The everyday names, re-exported lazily (importing this package imports
nothing else: Hypothesis loads `strategies._plugin` through an entry point
while it is itself being imported, so this package must stay light):

- `worlds`, `passing_worlds`, `unavailable_worlds`, `EXAMPLE_WORLDS`,
  `examples` (strategies.worlds): whole neutral worlds that know their truth;
- `truth`, `describe` (strategies.facts): what a world makes true, in words;
- `materialise` (strategies.build): a world made real for one target;
- `perturbations`, `perturbed_worlds` (strategies.perturb);
- `tree_snapshot`, `tree_changes`, `object_state`, `spy_on`
  (strategies.snapshot);
- `invalid_specs`, `valid_specs` (strategies.cases);
- `assert_truth` (strategies.verdicts).
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "EXAMPLE_WORLDS": "worlds",
    "examples": "worlds",
    "passing_worlds": "worlds",
    "unavailable_worlds": "worlds",
    "worlds": "worlds",
    "describe": "facts",
    "truth": "facts",
    "materialise": "build",
    "perturbations": "perturb",
    "perturbed_worlds": "perturb",
    "object_state": "snapshot",
    "spy_on": "snapshot",
    "tree_changes": "snapshot",
    "tree_snapshot": "snapshot",
    "invalid_specs": "cases",
    "valid_specs": "cases",
    "assert_truth": "verdicts",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'strategies' has no attribute {name!r}")
    return getattr(importlib.import_module(f"strategies.{home}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
