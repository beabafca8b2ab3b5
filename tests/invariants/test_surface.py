"""The surface: the target defines every Day 7 name, shaped as the contract says.

Only names a Day 7 learner has (judge.target.REQUIRED_NAMES): the course's
later days add names (Day 8's ApprovalDecision) that a Day 7 verdict must
not need.

Every other invariant reaches the implementation through these names, so a
missing or misshapen one is reported here once, by name, while the facts
that need it fail on their own with "X is not defined in <target>".
"""

from __future__ import annotations

import inspect

import pytest

from judge import REQUIRED_NAMES, InvariantFailure, Target, fail
from judge.fixes import placed

# The constructor fields of every dataclass of the contract, in order. Course
# tests build variants with dataclasses.replace and construct them by
# keyword, so the names are part of the surface.
FIELDS: dict[str, tuple[str, ...]] = {
    "FinalAction": ("final",),
    "ToolAction": ("tool", "arguments"),
    "AgentEvent": ("step", "response", "action", "result"),
    "AgentRun": ("completed", "reason", "final", "events", "modified_files"),
    "AgentLimits": (
        "max_steps",
        "max_context_chars",
        "max_invalid_actions",
        "max_identical_actions",
    ),
    "ToolPolicy": (
        "root",
        "max_file_bytes",
        "max_list_entries",
        "allow_writes",
        "allowed_commands",
        "max_write_bytes",
        "command_timeout_seconds",
    ),
    "Workspace": ("policy", "confirm_tool", "receipt_store"),
    "EffectReceipt": (
        "tool_call_id",
        "tool",
        "arguments",
        "exit_state",
        "result",
        "changed_artifacts",
    ),
    "ReceiptStore": ("path",),
    "FileExpectation": ("path", "content"),
    "ResultExpectation": ("tool", "contains"),
    "ReceiptExpectation": (
        "tool_call_id",
        "tool",
        "exit_state",
        "result_contains",
        "changed_artifacts",
    ),
    "EvaluationCase": ("final_contains", "files", "results", "receipts"),
    "EvaluationCheck": ("name", "passed", "detail"),
    "EvaluationReport": ("checks",),
}

# Course tests replace `read_file` on one Workspace and `get` on one
# ReceiptStore instance, so these two must be neither frozen nor slotted;
# every other dataclass is a frozen value.
MUTABLE = ("Workspace", "ReceiptStore")

# How the contract calls the two functions: positional arguments, then the
# keywords it names.
CALLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "run_agent": (("task", "generate", "workspace"), ("limits", "on_event")),
    "evaluate_run": (("run", "workspace", "receipts", "case"), ()),
}


def _defined(target: Target, name: str) -> dict:
    """What the target's `name` is (worker.serve.describe_name: asked of
    the worker where the target's code runs), or a lesson saying it is not
    defined."""
    __tracebackhide__ = True
    if name in target.missing:
        raise InvariantFailure(
            world=f"the target is {target.label}",
            expected=f"{name} defined",
            observed=f"no {name}",
            headline=f"{name} is not defined in {target.label}",
            hint=placed(f"define {name} as the starter does", name),
            cause=f"surface:{name}",
        )
    return target.describe(name)


@pytest.mark.invariant("surface")
@pytest.mark.parametrize("name", REQUIRED_NAMES)
def test_has_name(target: Target, name: str) -> None:
    """The target defines every public name of the Day 7 surface.

    Task: all of Day 7 (and the Days 1-6 substrate it judges), the names a
    learner has at Day 7 and keeps at every later day: no Day 8 or Day 9
    name (`ApprovalDecision`, branching, evidence) is required, so a
    learner at Day 7 passes as one at Day 9 does. Why: a learner who
    renames or forgets one name should read that name, not a crash.
    """
    _defined(target, name)


@pytest.mark.invariant("surface")
@pytest.mark.parametrize("name", sorted(FIELDS))
def test_dataclass_shape(target: Target, name: str) -> None:
    """Every type of the surface is a dataclass with the contract's fields.

    Task: the case, check and report types of Day 7, and the run, workspace
    and receipt types it reads. Why: cases and runs are built by keyword and
    varied with dataclasses.replace; values are frozen, while Workspace and
    ReceiptStore stay mutable so one instance's method can be replaced.
    """
    info = _defined(target, name)
    world = f"{name} of {target.label}"
    if not (info["is_class"] and info.get("dataclass")):
        fail(
            world=world,
            expected=f"{name} to be a dataclass",
            observed=f"{name} is {info['repr']}, not a dataclass",
            hint=placed("keep the @dataclass decorator of the starter", name),
        )
    fields = tuple(info["init_fields"])
    if fields != FIELDS[name]:
        fail(
            world=world,
            expected=f"fields ({', '.join(FIELDS[name])})",
            observed=f"fields ({', '.join(fields)})",
            hint=placed(
                "keep the starter's field names and order; add private state"
                " with field(init=False)",
                name,
            ),
        )
    frozen = info["frozen"]
    should_freeze = name not in MUTABLE
    if frozen != should_freeze:
        fail(
            world=world,
            expected="a frozen dataclass" if should_freeze else "a mutable dataclass",
            observed="frozen" if frozen else "not frozen",
            hint=placed(
                "values are frozen; Workspace and ReceiptStore hold state and"
                " their methods are replaced per instance in tests",
                name,
            ),
        )
    if not should_freeze and info["slots"] is not None:
        fail(
            world=world,
            expected=f"{name} without __slots__",
            observed=f"{name} with __slots__ {info['slots']}",
            hint=placed("a slotted instance cannot have one method replaced", name),
        )


def _bases(info: dict) -> str:
    if not info["is_class"]:
        return f"{info['repr']}, not a class"
    return f"{info['name']}({', '.join(info['bases'])})"


@pytest.mark.invariant("surface")
def test_agent_error_is_a_value_error(target: Target) -> None:
    """AgentError is a ValueError, so callers catching ValueError see it.

    Task: the substrate (Day 1) whose errors the evaluator turns into failed
    checks. Why: an evaluator that catches AgentError must catch the boundary's
    refusals, and the course raises them as ValueError too.
    """
    info = _defined(target, "AgentError")
    if not (info["is_class"] and info["value_error"]):
        fail(
            world=f"AgentError of {target.label}",
            expected="a subclass of ValueError",
            observed=_bases(info),
            hint=placed("class AgentError(ValueError)", "AgentError"),
        )


@pytest.mark.invariant("surface")
def test_report_has_passed_and_render(target: Target) -> None:
    """EvaluationReport has a `passed` property and a `render()` method.

    Task: Day 7's report. Why: callers gate on `report.passed` and show
    `report.render()`; both are part of what a report is.
    """
    info = _defined(target, "EvaluationReport")
    for attribute, kind in (("passed", "a property"), ("render", "a method")):
        if not info["attributes"][attribute]:
            fail(
                world=f"EvaluationReport of {target.label}",
                expected=f"EvaluationReport to have {attribute}, {kind}",
                observed=f"EvaluationReport has no {attribute}",
                headline=f"EvaluationReport has no {attribute}, but should have it"
                f" ({kind})",
                hint=placed(
                    "keep the starter's property and method",
                    f"EvaluationReport.{attribute}",
                ),
            )


@pytest.mark.invariant("surface")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_function_accepts_the_contract_call(target: Target, name: str) -> None:
    """run_agent and evaluate_run accept the arguments the contract passes.

    Task: Day 7's evaluate_run and the loop that makes runs. Why: the suite
    and the course call them positionally, with limits and on_event by
    keyword.
    """
    info = _defined(target, name)
    positional, keywords = CALLS[name]
    call = f"{name}({', '.join(positional + tuple(f'{k}=...' for k in keywords))})"
    if info["parameters"] is None:
        return  # a builtin or C function: nothing to inspect, calls will tell
    signature = inspect.Signature(
        [
            inspect.Parameter(
                parameter,
                inspect._ParameterKind(kind),
                default=None if has_default else inspect.Parameter.empty,
            )
            for parameter, kind, has_default in info["parameters"]
        ]
    )
    try:
        signature.bind(*positional, **{k: None for k in keywords})
    except TypeError as error:
        fail(
            world=f"{name}{info['signature']} of {target.label}",
            expected=f"to accept {call}",
            observed=f"TypeError: {error}",
            hint=placed("keep the starter's parameters", name),
        )
