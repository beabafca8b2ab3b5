"""The Day 7 scenario, played by a scripted model in a throwaway workspace.

The model reads ``app.py``, edits ``answer = 1`` into ``answer = 2``, runs the
one allowed validation command and finishes with a final answer.  Every effect
is approved and recorded in a receipt log that sits beside the workspace root
(not inside it), and the run is then judged by the chapter's case.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .evaluation import (
    EvaluationCase,
    EvaluationReport,
    FileExpectation,
    ReceiptExpectation,
    ResultExpectation,
    evaluate_run,
)
from .loop import AgentRun, run_agent
from .protocol import ToolAction
from .receipts import ReceiptStore
from .workspace import ToolPolicy, Workspace

TASK = "set answer = 2 in app.py and validate"
INITIAL_SOURCE = b"answer = 1\n"
VALIDATION_SOURCE = (
    "from pathlib import Path; "
    "assert Path('app.py').read_text(encoding='utf-8') == 'answer = 2\\n'; "
    "print('validation passed')"
)
WORKSPACE_NAME = "workspace"
LOG_NAME = "receipts.jsonl"
# What the scripted model says once its script is used up: a final that does
# not claim validation, so an unexpected extra turn shows as a failed check.
OUT_OF_SCRIPT = '{"final":"the script ran out before the task was done"}'


def validation_command() -> tuple[str, ...]:
    """The exact argv the policy allows; ``-I`` keeps the environment out."""
    return (sys.executable, "-I", "-c", VALIDATION_SOURCE)


def demo_case() -> EvaluationCase:
    """The facts the chapter's scenario must leave behind."""
    return EvaluationCase(
        final_contains="validated",
        files=(FileExpectation("app.py", "answer = 2\n"),),
        results=(ResultExpectation("run_command", "validation passed"),),
        receipts=(
            ReceiptExpectation(
                "call-1", "edit_file", "ok", "edited app.py", ("app.py",)
            ),
            ReceiptExpectation("call-2", "run_command", "ok", "validation passed"),
        ),
    )


def scripted_replies(command: Sequence[str]) -> tuple[str, ...]:
    """The model's replies, one per turn."""
    return (
        '{"tool":"read_file","path":"app.py"}',
        '{"tool":"edit_file","path":"app.py","old":"1","new":"2"}',
        json.dumps({"tool": "run_command", "argv": list(command)}),
        '{"final":"updated app.py and validated the result"}',
    )


class ScriptedModel:
    """A stand-in model: returns its replies in order, ignoring the messages."""

    def __init__(self, replies: Sequence[str]) -> None:
        self._replies = list(replies)
        self.calls = 0

    def __call__(self, _messages: object) -> str:
        self.calls += 1
        if self._replies:
            return self._replies.pop(0)
        return OUT_OF_SCRIPT


def approve(_action: ToolAction) -> bool:
    """The demo's operator approves every prepared effect."""
    return True


@dataclass(frozen=True)
class DemoOutcome:
    """Everything the demo produced, for printing and for saving."""

    run: AgentRun
    workspace: Workspace
    receipts: ReceiptStore
    case: EvaluationCase
    report: EvaluationReport


def run_demo(base: Path) -> DemoOutcome:
    """Play the scenario in ``base/workspace`` with the log ``base/receipts.jsonl``.

    ``base`` must exist and hold neither name yet.
    """
    root = base / WORKSPACE_NAME
    root.mkdir()
    (root / "app.py").write_bytes(INITIAL_SOURCE)
    command = validation_command()
    receipts = ReceiptStore(base / LOG_NAME)
    workspace = Workspace(
        ToolPolicy(root, allow_writes=True, allowed_commands=(command,)),
        approve,
        receipts,
    )
    run = run_agent(TASK, ScriptedModel(scripted_replies(command)), workspace)
    case = demo_case()
    report = evaluate_run(run, workspace, receipts, case)
    return DemoOutcome(run, workspace, receipts, case, report)
