"""Single-fact perturbations, each knowing the one check it must flip.

A perturbation changes one fact of a world whose every check passes into a
kind that fails: the kinds say which changes exist (`Kind.perturbation`) and
how they read, so this module only applies them. For a real run, whose
evidence is what the loop left behind, the changes are to the case only, and
the plan's own replay says which of them are false (`plans.wrong_facts`).
Either way exactly the checks of that one fact must flip (a result listed
twice has two), and every other check must stay as it was, detail included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from hypothesis import strategies as st

from strategies.files import FILE_KINDS, file_perturbations
from strategies.finals import final_changes
from strategies.plans import wrong_facts
from strategies.receipts import receipt_changes
from strategies.results import result_changes
from strategies.world import World, check_positions

__all__ = ["Perturbation", "perturbations", "perturbed_worlds"]


@dataclass(frozen=True)
class Perturbation:
    """One named change to one fact, and the checks (by index) it flips."""

    name: str
    changes: str  # "case" or "world"
    checks: tuple[int, ...]
    world: World

    def __str__(self) -> str:
        return f"{self.name} (changes the {self.changes})"


def _swap(items: tuple[Any, ...], index: int, item: Any) -> tuple[Any, ...]:
    return (*items[:index], item, *items[index + 1 :])


def perturbations(world: World) -> list[Perturbation]:
    """Every single-fact perturbation of a world whose checks all pass.

    Simplest first: the final's, then the files', results' and receipts'.
    """
    return [Perturbation(*head, world=make()) for *head, make in _changes(world)]


_Change = tuple[str, str, tuple[int, ...], Callable[[], World]]


def _changes(world: World) -> list[_Change]:
    """Each perturbation's name, what it changes, its checks, and how to make
    its world: made only when chosen, for a world works out its blueprint
    when made, and a draw keeps one perturbation of dozens."""
    if world.plan is not None:
        return [
            (wrong.label, "case", (wrong.index,), partial(_given, wrong.world))
            for wrong in wrong_facts(world)
        ]
    at = check_positions(world)
    found: list[_Change] = [
        (
            f"final: {words}",
            changes,
            at["final", 0],
            partial(replace, world, final=final),
        )
        for words, changes, final in final_changes(world.final)
    ]
    for i, fact in enumerate(world.files):
        if FILE_KINDS[fact.kind].own_path:
            continue  # its path depends on its kind: another kind renames the check
        found.extend(
            (
                f"file {fact.path}: {words}",
                changes,
                at["file", i],
                partial(replace, world, files=_swap(world.files, i, changed)),
            )
            for words, changes, changed in file_perturbations(fact)
        )
    for i, result in enumerate(world.results):
        found.extend(
            (
                f"result {result.tool} {result.marker}: {words}",
                changes,
                at["result", i],
                partial(replace, world, results=_swap(world.results, i, changed)),
            )
            for words, changes, changed in result_changes(result)
        )
    for i, receipt in enumerate(world.receipts):
        options = receipt_changes(receipt)
        options.append(
            (
                "receipt removed from the store",
                "world",
                replace(receipt, stored="absent"),
            )
        )
        found.extend(
            (
                f"receipt {receipt.call_id}: {name}",
                changes,
                at["receipt", i],
                partial(replace, world, receipts=_swap(world.receipts, i, changed)),
            )
            for name, changes, changed in options
        )
    return found


def _given(world: World) -> World:
    return world


@st.composite
def perturbed_worlds(
    draw: st.DrawFn, bases: st.SearchStrategy[World]
) -> tuple[World, Perturbation]:
    """A passing world and one of its single-fact perturbations."""
    world = draw(bases)
    *head, make = draw(st.sampled_from(_changes(world)))
    return world, Perturbation(*head, world=make())
