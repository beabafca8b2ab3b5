"""The Hypothesis entry point teaches st.from_type the bundled case types."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import evaluator
from strategies import _plugin

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


@given(st.from_type(evaluator.EvaluationCase))
def test_drawn_cases_are_judged_without_error(case: evaluator.EvaluationCase) -> None:
    """A drawn case has unique paths and call ids and gives one check per fact."""
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
