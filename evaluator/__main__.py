"""Command line for the evaluator.

``python -m evaluator demo [--keep DIR]``
    Play the Day 7 scenario (a scripted model edits ``app.py`` and validates
    it) in a fresh temporary workspace, then print the evaluation report.
    With ``--keep DIR`` the workspace (``DIR/workspace``), the receipt log
    (``DIR/receipts.jsonl``), the run (``DIR/run.json``) and the case
    (``DIR/case.json``) are kept, and the command that checks them again is
    printed.

``python -m evaluator check CASE.json --run RUN.json --workspace DIR
[--receipts LOG.jsonl] [--json]``
    Evaluate a saved run against a saved case.  The JSON forms of runs, cases
    and reports are described in ``evaluator._forms`` and ``docs/cli.md``.
    Without ``--receipts`` the receipt store is empty, so every declared
    receipt is absent.  ``--json`` prints the report as
    ``{"passed": bool, "checks": [{"name", "passed", "detail"}]}``.

Exit status: 0 when the evaluation passes, 1 when it fails, 2 when the input
is unusable; then one line on standard error says what is wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ._demo import LOG_NAME, WORKSPACE_NAME, DemoOutcome, run_demo
from ._forms import (
    JSON,
    case_from_json,
    case_to_json,
    report_to_json,
    run_from_json,
    run_to_json,
)
from .evaluation import EvaluationReport, evaluate_run
from .receipts import ReceiptStore
from .workspace import ToolPolicy, Workspace

PASSED, FAILED, BAD_INPUT = 0, 1, 2
RUN_NAME = "run.json"
CASE_NAME = "case.json"

_Built = TypeVar("_Built")


class BadInput(Exception):
    """The command cannot run on what it was given; the message says why."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --- demo --------------------------------------------------------------------------


def _keep_directory(raw: str) -> Path:
    base = Path(raw).absolute()
    if os.path.lexists(base) and not base.is_dir():
        raise BadInput(f"--keep {raw}: not a directory")
    taken = [
        name
        for name in (WORKSPACE_NAME, LOG_NAME, RUN_NAME, CASE_NAME)
        if os.path.lexists(base / name)
    ]
    if taken:
        raise BadInput(
            f"--keep {raw}: already holds {taken[0]}; choose an empty directory"
        )
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BadInput(
            f"--keep {raw}: cannot create it: {error.strerror or error}"
        ) from error
    return base


def _write_json(path: Path, value: JSON) -> None:
    path.write_text(
        json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def _python_name() -> str:
    """``python`` when that name runs this interpreter, else its full path."""
    found = shutil.which("python")
    if found is not None and os.path.realpath(found) == os.path.realpath(
        sys.executable
    ):
        return "python"
    return sys.executable


def check_command(base: Path) -> str:
    """The shell command that checks a kept demo in ``base`` again."""
    return shlex.join(
        [
            _python_name(),
            "-m",
            "evaluator",
            "check",
            str(base / CASE_NAME),
            "--run",
            str(base / RUN_NAME),
            "--workspace",
            str(base / WORKSPACE_NAME),
            "--receipts",
            str(base / LOG_NAME),
        ]
    )


def _keep(outcome: DemoOutcome, base: Path) -> None:
    _write_json(base / RUN_NAME, run_to_json(outcome.run))
    _write_json(base / CASE_NAME, case_to_json(outcome.case))
    print()
    print(f"kept the workspace, receipt log, run and case in {base}")
    print("check them again with:")
    print(f"  {check_command(base)}")


def _demo(arguments: argparse.Namespace) -> int:
    if arguments.keep is None:
        with tempfile.TemporaryDirectory(prefix="evaluator-demo-") as scratch:
            outcome = run_demo(Path(scratch))
            print(outcome.report.render())
    else:
        base = _keep_directory(arguments.keep)
        outcome = run_demo(base)
        print(outcome.report.render())
        _keep(outcome, base)
    return PASSED if outcome.report.passed else FAILED


# --- check -------------------------------------------------------------------------


def _load(raw: str, label: str, build: Callable[[JSON], _Built]) -> _Built:
    try:
        data = Path(raw).read_bytes()
    except OSError as error:
        raise BadInput(
            f"cannot read the {label} file {raw}: {error.strerror or error}"
        ) from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(
            f"{label} file {raw} is not valid UTF-8 (byte offset {error.start})"
        ) from error
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadInput(
            f"{label} file {raw} is not valid JSON: {error.msg} "
            f"at line {error.lineno} column {error.colno}"
        ) from error
    except (ValueError, RecursionError) as error:
        raise BadInput(f"{label} file {raw} is not valid JSON: {error}") from error
    try:
        return build(value)
    except (ValueError, TypeError) as error:
        raise BadInput(f"{label} file {raw}: {error}") from error


def _workspace(raw: str) -> Workspace:
    if not os.path.lexists(raw):
        raise BadInput(f"workspace {raw} does not exist")
    try:
        return Workspace(ToolPolicy(Path(raw)))
    except ValueError as error:
        raise BadInput(f"workspace {raw}: {error}") from error


def _receipts(raw: str | None) -> ReceiptStore:
    store = ReceiptStore()
    if raw is not None:
        if not os.path.lexists(raw):
            raise BadInput(f"receipt log {raw} does not exist")
        # The store only names the log: evaluate_run reloads it with its own
        # checks, so a tampered or odd log becomes failed checks, not an error.
        store.path = Path(raw)
    return store


def _print_report(report: EvaluationReport, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report_to_json(report), indent=2, ensure_ascii=False))
    else:
        print(report.render())


def _check(arguments: argparse.Namespace) -> int:
    case = _load(arguments.case, "case", case_from_json)
    run = _load(arguments.run, "run", run_from_json)
    workspace = _workspace(arguments.workspace)
    receipts = _receipts(arguments.receipts)
    report = evaluate_run(run, workspace, receipts, case)
    _print_report(report, arguments.json)
    return PASSED if report.passed else FAILED


# --- entry point -------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluator",
        description="Evaluate agent runs against declared observable facts.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = commands.add_parser("demo", help="play and evaluate the Day 7 scenario")
    demo.add_argument(
        "--keep", metavar="DIR", help="keep the workspace, log, run and case in DIR"
    )
    demo.set_defaults(handler=_demo)
    check = commands.add_parser(
        "check", help="evaluate a saved run against a saved case"
    )
    check.add_argument("case", metavar="CASE.json", help="the case, as JSON")
    check.add_argument(
        "--run", required=True, metavar="RUN.json", help="the run, as JSON"
    )
    check.add_argument(
        "--workspace", required=True, metavar="DIR", help="the workspace root"
    )
    check.add_argument("--receipts", metavar="LOG.jsonl", help="the receipt log")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(handler=_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    arguments = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = arguments.handler
    try:
        return handler(arguments)
    except BadInput as problem:
        print(f"error: {_one_line(str(problem))}", file=sys.stderr)
    except Exception as error:  # never a traceback: say what broke in one line
        print(
            f"error: unexpected {type(error).__name__}: {_one_line(str(error))}",
            file=sys.stderr,
        )
    return BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
