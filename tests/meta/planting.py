"""Plant a bug into a loaded target, in process: the helpers every meta-test shares.

A planted target is the target with `evaluate_run` replaced by a wrapper
that does one wrong thing around the real one. The catalogue of bugs planted
into source copies (and run as whole suites) is `planted/`; these are the
quick, in-process ones that show a single judgement failing.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any

Evaluate = Callable[[Any, Any, Any, Any], Any]


def with_evaluate(target: Any, evaluate: Evaluate) -> Any:
    """`target` with `evaluate_run` replaced by `evaluate`."""
    names = types.MappingProxyType({**target.names, "evaluate_run": evaluate})
    return dataclasses.replace(target, names=names)


def before(target: Any, action: Callable[[Any, Any, Any, Any], None]) -> Any:
    """`target` whose evaluate_run first does `action(run, workspace, receipts,
    case)`, then evaluates correctly."""

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        action(run, workspace, receipts, case)
        return target.evaluate_run(run, workspace, receipts, case)

    return with_evaluate(target, evaluate)


def rewritten(target: Any, change: Callable[[Any, Any, Any, Any, Any], Any]) -> Any:
    """`target` whose report is passed through `change(report, run, workspace,
    receipts, case)`."""

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        report = target.evaluate_run(run, workspace, receipts, case)
        return change(report, run, workspace, receipts, case)

    return with_evaluate(target, evaluate)
