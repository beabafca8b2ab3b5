"""Plant a bug into a loaded target, in process: the helpers every meta-test shares.

A planted target is the target with `evaluate_run` replaced by a wrapper
that does one wrong thing around the real one. The catalogue of bugs planted
into source copies (and run as whole suites) is `planted/`; these are the
quick, in-process ones that show a single judgement failing. A bug that
hangs is planted into a copy of the bundled evaluator judged in a worker
(`in_worker`): only there is a call bounded, from outside.
"""

from __future__ import annotations

import dataclasses
import shutil
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

EVALUATOR = Path(__file__).resolve().parents[2] / "evaluator"
_BODY = (
    '    """Check ``run`` against ``case``: final, files, results, receipts,'
    ' in order."""\n'
)

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


def in_worker(folder: Path, code: str) -> Any:
    """The bundled evaluator copied to `folder`, `code` planted at the top of
    its evaluate_run's body, loaded as a remote target (hardened level)."""
    from judge import load_target

    shutil.copytree(EVALUATOR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    if source.count(_BODY) != 1:
        raise AssertionError("evaluate_run's docstring moved: update planting.py")
    module.write_text(source.replace(_BODY, _BODY + code), encoding="utf-8")
    return load_target(impl_path=folder, level="hardened")
