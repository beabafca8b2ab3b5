"""A small coding-agent substrate and the Day 7 evaluator that judges its runs.

The names below are the whole public surface: the reply protocol, the loop,
the workspace and its receipts, and the evaluation of a finished run.
"""

from .evaluation import (
    EvaluationCase,
    EvaluationCheck,
    EvaluationReport,
    FileExpectation,
    ReceiptExpectation,
    ResultExpectation,
    evaluate_run,
)
from .loop import AgentEvent, AgentLimits, AgentRun, run_agent
from .protocol import AgentError, FinalAction, ToolAction, parse_action
from .receipts import EffectReceipt, ReceiptStore
from .workspace import ApprovalDecision, ToolPolicy, Workspace

__all__ = [
    "AgentError",
    "AgentEvent",
    "AgentLimits",
    "AgentRun",
    "ApprovalDecision",
    "EffectReceipt",
    "EvaluationCase",
    "EvaluationCheck",
    "EvaluationReport",
    "FileExpectation",
    "FinalAction",
    "ReceiptExpectation",
    "ReceiptStore",
    "ResultExpectation",
    "ToolAction",
    "ToolPolicy",
    "Workspace",
    "evaluate_run",
    "parse_action",
    "run_agent",
]
