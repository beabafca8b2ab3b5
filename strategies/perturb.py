"""Named single-fact perturbations, each knowing the one check it must flip.

A perturbation changes one fact of a world whose every check passes: a
byte of a file, the run's completion, the tool of one event, one field of a
receipt expectation, one receipt's presence in the log. Some change the
case (what is expected), some the world (what is there); either way exactly
the checks of that one fact must flip (a result listed twice has two), and
every other check must stay as it was, detail included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from strategies.facts import (
    INCOMPLETE_REASONS,
    FileFact,
    ReceiptFact,
    ResultFact,
    World,
)

__all__ = [
    "FILE_PERTURBATIONS",
    "FINAL_PERTURBATIONS",
    "RECEIPT_PERTURBATIONS",
    "RESULT_PERTURBATIONS",
    "Perturbation",
    "perturbations",
    "perturbed_worlds",
]

#: (name, changes "case" or "world", the kind the fact becomes)
FINAL_PERTURBATIONS = (
    ("final substring no longer in the final", "case", "absent"),
    ("run left incomplete, final text kept", "world", "incomplete"),
    ("run left incomplete with final=None", "world", "incomplete_without_final"),
    ("final holds the substring only in lower case", "world", "case_changed"),
    ("final substring padded with spaces", "case", "padded_absent"),
)
FILE_PERTURBATIONS = (
    ("one character of the file changed", "world", "wrong_byte"),
    ("file rewritten with CRLF line endings", "world", "crlf_twin"),
    ("file rewritten with CR line endings", "world", "cr_twin"),
    ("BOM added to the file", "world", "bom_added"),
    ("trailing newline added to the file", "world", "newline_added"),
    ("expected content one character longer", "case", "shorter"),
    ("file emptied", "world", "emptied"),
    ("file removed", "world", "missing"),
    ("file replaced by a directory", "world", "directory"),
    ("file replaced by a symlink to an identical file", "world", "symlink_inside"),
    ("file replaced by a symlink out of the root", "world", "symlink_outside"),
    ("invalid UTF-8 byte inserted into the file", "world", "invalid_utf8"),
)
RESULT_PERTURBATIONS = (
    ("substring removed from the event's result", "world", "absent"),
    ("event's tool renamed", "world", "other_tool"),
    ("substring moved to another tool's event", "world", "split"),
    ("substring moved from the result to the response", "world", "response_only"),
    ("substring in the result changed to lower case", "world", "case_changed"),
    (
        "event replaced by an invalid reply holding the substring",
        "world",
        "invalid_event",
    ),
)
RECEIPT_PERTURBATIONS = (
    ("expected receipt tool changed", "case", "tool"),
    ("expected exit state changed", "case", "exit_state"),
    ("expected result substring changed", "case", "result"),
    ("expected changed artifacts reversed", "case", "artifacts_reversed"),
    ("last expected changed artifact dropped", "case", "artifacts_prefix"),
    ("one more changed artifact expected", "case", "artifacts_superset"),
)

# Kinds whose path depends on the kind: changing them would rename the check.
_PATH_KINDS = ("protected", "symlinked_parent")


@dataclass(frozen=True)
class Perturbation:
    """One named change to one fact, and the checks (by index) it flips."""

    name: str
    changes: str  # "case" or "world"
    checks: tuple[int, ...]
    world: World

    def __str__(self) -> str:
        return f"{self.name} (changes the {self.changes})"


def _check_indices(world: World) -> dict[tuple[str, int], tuple[int, ...]]:
    """The report positions of every fact's checks."""
    positions: dict[tuple[str, int], tuple[int, ...]] = {("final", 0): (0,)}
    at = 1
    for i, _ in enumerate(world.files):
        positions["file", i] = (at,)
        at += 1
    for i, fact in enumerate(world.results):
        count = 2 if fact.repeat else 1
        positions["result", i] = tuple(range(at, at + count))
        at += count
    for i, _ in enumerate(world.receipts):
        positions["receipt", i] = (at,)
        at += 1
    return positions


def _swap(items: tuple[Any, ...], index: int, item: Any) -> tuple[Any, ...]:
    return (*items[:index], item, *items[index + 1 :])


def perturbations(world: World) -> list[Perturbation]:
    """Every single-fact perturbation of a world whose checks all pass.

    Simplest first: the final's, then the files', results' and receipts'.
    """
    at = _check_indices(world)
    found: list[Perturbation] = []
    for number, (name, changes, kind) in enumerate(FINAL_PERTURBATIONS):
        reason = INCOMPLETE_REASONS[number % len(INCOMPLETE_REASONS)]
        final = replace(world.final, kind=kind, reason=reason)
        found.append(
            Perturbation(
                f"final: {name}", changes, at["final", 0], replace(world, final=final)
            )
        )
    for i, fact in enumerate(world.files):
        if fact.kind in _PATH_KINDS:
            continue
        for name, changes, kind in FILE_PERTURBATIONS:
            changed: FileFact = replace(fact, kind=kind)
            found.append(
                Perturbation(
                    f"file {fact.path}: {name}",
                    changes,
                    at["file", i],
                    replace(world, files=_swap(world.files, i, changed)),
                )
            )
    for i, result in enumerate(world.results):
        for name, changes, kind in RESULT_PERTURBATIONS:
            changed_result: ResultFact = replace(result, kind=kind)
            found.append(
                Perturbation(
                    f"result {result.tool} {result.marker}: {name}",
                    changes,
                    at["result", i],
                    replace(world, results=_swap(world.results, i, changed_result)),
                )
            )
    for i, receipt in enumerate(world.receipts):
        options: list[tuple[str, str, ReceiptFact]] = [
            (name, changes, replace(receipt, kind=kind))
            for name, changes, kind in RECEIPT_PERTURBATIONS
        ]
        options.append(
            (
                "receipt removed from the store",
                "world",
                replace(receipt, stored="absent"),
            )
        )
        for name, changes, changed_receipt in options:
            found.append(
                Perturbation(
                    f"receipt {receipt.call_id}: {name}",
                    changes,
                    at["receipt", i],
                    replace(world, receipts=_swap(world.receipts, i, changed_receipt)),
                )
            )
    return found


@st.composite
def perturbed_worlds(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    bases: st.SearchStrategy[World],
) -> tuple[World, Perturbation]:
    """A passing world and one of its single-fact perturbations."""
    world = draw(bases)
    return world, draw(st.sampled_from(perturbations(world)))
