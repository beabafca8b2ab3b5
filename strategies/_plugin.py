"""Hypothesis entry-point hook: teach ``st.from_type`` the bundled case types.

Installing this project registers ``_hypothesis_setup_hook`` under the
``hypothesis`` entry-point group (see pyproject.toml). Hypothesis calls it while
``import hypothesis`` runs, in every project of the environment, so the hook
must never raise: an environment without our ``evaluator`` (or with some other
package of that name) simply gets nothing registered.

The strategies here are deliberately small and valid by construction: every
drawn value is one the bundled evaluator accepts, without filtering on its
validation. The richer, truth-carrying worlds live in ``strategies.draw``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from operator import attrgetter
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

# Plain data and functions, importing no Hypothesis: safe while it is imported.
from strategies.paths import allowed_name
from strategies.vocabulary import TOOLS

if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    # Imported on first use, not at load: Hypothesis loads this module while
    # `import hypothesis` runs, and a module-level import from here would make
    # `import strategies._plugin` (before Hypothesis) a circular import.
    st = None

T = TypeVar("T")

_CASE_TYPES = (
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
    "EvaluationCase",
    "EvaluationCheck",
)


def _relative_paths() -> st.SearchStrategy[str]:
    """Normalised relative paths: one to three names of any character the
    contract allows a path (`allowed_name`), not blank as a whole."""
    names = st.text(
        st.characters(exclude_categories=("Cs",), exclude_characters="/\x00"),
        min_size=1,
        max_size=8,
    ).filter(allowed_name)
    return st.lists(names, min_size=1, max_size=3).map("/".join).filter(str.strip)


def _non_blank_texts() -> st.SearchStrategy[str]:
    """Texts with at least one non-whitespace character, built around it."""
    # Z* and Cc are exactly the categories that hold str.isspace() characters;
    # Cs (surrogates) cannot be encoded as UTF-8, and are all it cannot.
    visible = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs"))
    return st.tuples(st.text(max_size=3), visible, st.text(max_size=3)).map("".join)


def _tool_names() -> st.SearchStrategy[str]:
    # The course's tools first, so failures shrink to a familiar name.
    return st.sampled_from(TOOLS) | _non_blank_texts()


def _call_ids() -> st.SearchStrategy[str]:
    numbered = st.integers(min_value=1, max_value=9).map("call-{}".format)
    return numbered | _non_blank_texts()


def _small_tuples(
    elements: st.SearchStrategy[T], unique_by: Callable[[T], object] | None = None
) -> st.SearchStrategy[tuple[T, ...]]:
    return st.lists(elements, max_size=3, unique_by=unique_by).map(tuple)


def _register(evaluator: ModuleType) -> None:
    global st
    from hypothesis import strategies as st

    file_expectations = st.builds(
        evaluator.FileExpectation,
        path=_relative_paths(),
        content=st.text(max_size=20),
    )
    result_expectations = st.builds(
        evaluator.ResultExpectation,
        tool=_tool_names(),
        contains=_non_blank_texts(),
    )
    receipt_expectations = st.builds(
        evaluator.ReceiptExpectation,
        tool_call_id=_call_ids(),
        tool=_tool_names(),
        exit_state=st.sampled_from(("ok", "error")),
        result_contains=_non_blank_texts(),
        changed_artifacts=st.lists(_relative_paths(), max_size=2).map(tuple),
    )
    # Paths are drawn normalised, so uniqueness of the drawn strings is
    # uniqueness after the case's own normalisation.
    cases = st.builds(
        evaluator.EvaluationCase,
        final_contains=_non_blank_texts(),
        files=_small_tuples(file_expectations, unique_by=attrgetter("path")),
        results=_small_tuples(result_expectations),
        receipts=_small_tuples(
            receipt_expectations, unique_by=attrgetter("tool_call_id")
        ),
    )
    checks = st.builds(
        evaluator.EvaluationCheck,
        name=_non_blank_texts(),
        passed=st.booleans(),
        detail=st.text(max_size=20),
    )
    strategies = {
        evaluator.FileExpectation: file_expectations,
        evaluator.ResultExpectation: result_expectations,
        evaluator.ReceiptExpectation: receipt_expectations,
        evaluator.EvaluationCase: cases,
        evaluator.EvaluationCheck: checks,
    }
    for case_type, strategy in strategies.items():
        st.register_type_strategy(case_type, strategy)


def _hypothesis_setup_hook() -> None:
    """Register strategies for the bundled evaluator's case types, if present."""
    try:
        import evaluator
    except ImportError:
        return  # not our environment: nothing to register
    except Exception as error:  # never break `import hypothesis` for anyone
        _warn(f"importing evaluator failed with {error!r}")
        return
    if not all(isinstance(getattr(evaluator, n, None), type) for n in _CASE_TYPES):
        return  # some other package called "evaluator"
    try:
        _register(evaluator)
    except Exception as error:
        _warn(f"registering them failed with {error!r}")


def _warn(reason: str) -> None:
    warnings.warn(
        f"day7-verify: st.from_type does not know the evaluator types: {reason}",
        stacklevel=3,
    )
