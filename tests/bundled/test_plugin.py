"""The Hypothesis entry point teaches st.from_type the bundled case types."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import evaluator
from strategies import _plugin

HOOK = "strategies._plugin:_hypothesis_setup_hook"


def _why_the_hook_did_not_run_at_import() -> str | None:
    """Why Hypothesis did not run our hook while it was imported; None if it did."""
    if os.environ.get("HYPOTHESIS_NO_PLUGINS"):
        return "HYPOTHESIS_NO_PLUGINS is set: Hypothesis runs no entry point"
    hooks = importlib.metadata.entry_points(group="hypothesis")
    if not any(entry.value == HOOK for entry in hooks):
        return (
            "the project is not installed, so Hypothesis has no entry point to run "
            "at import (tox installs it)"
        )
    return None


NOT_RUN_AT_IMPORT = _why_the_hook_did_not_run_at_import()

CASE_TYPES = (
    evaluator.FileExpectation,
    evaluator.ResultExpectation,
    evaluator.ReceiptExpectation,
    evaluator.EvaluationCase,
    evaluator.EvaluationCheck,
)


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    # Installed, Hypothesis runs the hook at import; from a bare checkout it
    # has not, so run it here: registering twice is harmless.
    _plugin._hypothesis_setup_hook()


@pytest.mark.parametrize("kind", CASE_TYPES, ids=lambda kind: kind.__name__)
def test_from_type_draws_values_that_revalidate(kind: type) -> None:
    """Every drawn value survives being rebuilt from its own fields."""

    @given(st.from_type(kind))
    def rebuilt_equal(value: object) -> None:
        assert isinstance(value, kind)
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(kind)}
        assert kind(**fields) == value

    rebuilt_equal()


# st.from_type resolves at once, here while the module is imported: before the
# fixture above registers anything, so this draws from the hook only where
# the installed entry point ran it inside `import hypothesis`. Bare, it would
# draw builds() of blank texts, which the evaluator rightly refuses.
@pytest.mark.skipif(
    NOT_RUN_AT_IMPORT is not None,
    reason=f"needs the installed entry point: {NOT_RUN_AT_IMPORT}",
)
@given(st.from_type(evaluator.EvaluationCase))
def test_drawn_cases_are_judged_without_error(case: evaluator.EvaluationCase) -> None:
    """A case drawn by a from_type resolved at import has unique paths and call ids."""
    assert len({f.path for f in case.files}) == len(case.files)
    assert len({r.tool_call_id for r in case.receipts}) == len(case.receipts)


def test_the_hook_is_declared_as_an_entry_point() -> None:
    """pyproject.toml names the hook in Hypothesis's entry-point group."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert "[project.entry-points.hypothesis]" in text
    assert '"strategies._plugin:_hypothesis_setup_hook"' in text


def test_a_broken_environment_only_warns() -> None:
    """Without an importable evaluator, importing Hypothesis still works."""
    code = (
        "import sys; sys.modules['evaluator'] = None\n"
        "from strategies import _plugin\n"
        "_plugin._hypothesis_setup_hook()\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
