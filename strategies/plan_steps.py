"""The plan vocabulary: the steps a scripted model takes, and a plan in words.

Neutral data only (no strategy, no world): `strategies.world` holds a plan
and describes it, `strategies.plans` draws plans and knows what they imply.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from strategies.compact import Compact
from strategies.finals import FinalFact, final_text

#: The task a drawn plan carries (the chapter's scenario has its own).
PLAN_TASK = "carry out the scripted plan"

__all__ = [
    "PLAN_TASK",
    "Denied",
    "EditFile",
    "Invalid",
    "ListFiles",
    "Plan",
    "ReadFile",
    "Refused",
    "RunCommand",
    "SeedFile",
    "Step",
    "WriteFile",
    "argv",
    "command",
    "commands",
    "describe_plan",
    "effect_tool",
    "replies",
]


# --- the plan vocabulary -------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class SeedFile(Compact):
    """A file present before the run."""

    path: str
    content: str


@dataclass(frozen=True, repr=False)
class ReadFile(Compact):
    path: str


@dataclass(frozen=True, repr=False)
class ListFiles(Compact):
    path: str = "."


@dataclass(frozen=True, repr=False)
class EditFile(Compact):
    path: str
    old: str
    new: str


@dataclass(frozen=True, repr=False)
class WriteFile(Compact):
    path: str
    content: str


@dataclass(frozen=True, repr=False)
class RunCommand(Compact):
    """`python -c code`: prints `output` (status 0) or writes it to stderr and
    exits with `status`. `printed` is exactly what the command outputs.

    `isolated` adds `-I -S`: no site packages to import, so the interpreter
    starts in a fraction of the time (the chapter's own command has neither).
    """

    code: str
    output: str
    printed: str
    status: int
    isolated: bool = True


@dataclass(frozen=True, repr=False)
class Denied(Compact):
    """An effect the approval callback refuses by returning False.

    Day 3's rule, the same at every later day: exactly True approves,
    anything else denies. Day 8's `ApprovalDecision` (a denial with a reason)
    is no Day 7 fact, so no plan uses it."""

    effect: EditFile | WriteFile | RunCommand


@dataclass(frozen=True, repr=False)
class Refused(Compact):
    """An edit the workspace refuses before asking for approval: the file was
    never read, or its `old` text does not occur."""

    path: str
    old: str
    why: str


@dataclass(frozen=True, repr=False)
class Invalid(Compact):
    reply: str


Step = (
    ReadFile
    | ListFiles
    | EditFile
    | WriteFile
    | RunCommand
    | Denied
    | Refused
    | Invalid
)


@dataclass(frozen=True, repr=False)
class Plan(Compact):
    """A workspace and the model's replies in order (the final one aside)."""

    files: tuple[SeedFile, ...]
    steps: tuple[Step, ...]
    task: str = PLAN_TASK


def command(output: str, status: int = 0) -> RunCommand:
    """A command printing `output` (status 0), or failing with it on stderr."""
    if status == 0:
        return RunCommand(f"print({output!r})", output, output + "\n", 0)
    code = f"import sys; sys.stderr.write({output!r}); sys.exit({status})"
    return RunCommand(code, output, output, status)


def effect_tool(step: EditFile | WriteFile | RunCommand) -> str:
    if isinstance(step, EditFile):
        return "edit_file"
    if isinstance(step, WriteFile):
        return "write_file"
    return "run_command"


#: The Python a command of a plan runs: the base one under a venv, which the
#: learner's uid can run (and which names no venv of the judge's).
PYTHON = getattr(sys, "_base_executable", "") or sys.executable


def argv(step: RunCommand) -> list[str]:
    flags = ["-I", "-S"] if step.isolated else []
    return [PYTHON, *flags, "-c", step.code]


def _reply(step: Step) -> str:
    """The model's JSON reply for one step."""
    if isinstance(step, Invalid):
        return step.reply
    if isinstance(step, Denied):
        return _reply(step.effect)
    if isinstance(step, ReadFile):
        body: dict[str, Any] = {"tool": "read_file", "path": step.path}
    elif isinstance(step, ListFiles):
        body = {"tool": "list_files", "path": step.path}
    elif isinstance(step, EditFile):
        body = {"tool": "edit_file", "path": step.path, "old": step.old}
        body["new"] = step.new
    elif isinstance(step, Refused):
        body = {"tool": "edit_file", "path": step.path, "old": step.old, "new": "x"}
    elif isinstance(step, WriteFile):
        body = {"tool": "write_file", "path": step.path, "content": step.content}
    else:
        body = {"tool": "run_command", "argv": argv(step)}
    return json.dumps(body)


def replies(plan: Plan, final: object) -> tuple[str, ...]:
    """The model's replies: every step's, then the final one unless `final` is
    not a string (the run is then stopped by its step limit before it)."""
    steps = tuple(_reply(step) for step in plan.steps)
    return (*steps, json.dumps({"final": final})) if isinstance(final, str) else steps


def commands(plan: Plan) -> tuple[tuple[str, ...], ...]:
    """Every command argv of the plan, once each, for the policy."""
    found: list[tuple[str, ...]] = []
    for step in plan.steps:
        effect = step.effect if isinstance(step, Denied) else step
        if isinstance(effect, RunCommand) and tuple(argv(effect)) not in found:
            found.append(tuple(argv(effect)))
    return tuple(found)


# --- in words --------------------------------------------------------------------


def _short(text: str, limit: int = 40) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 4] + "...'"


def _describe_effect(step: EditFile | WriteFile | RunCommand) -> str:
    if isinstance(step, EditFile):
        return f"edit_file {step.path}: {_short(step.old)} -> {_short(step.new)}"
    if isinstance(step, WriteFile):
        return f"write_file {step.path}: {_short(step.content)}"
    if step.status == 0:
        return f"run_command printing {step.output!r} (exit 0)"
    return f"run_command failing with {step.output!r} on stderr (exit {step.status})"


def describe_plan(plan: Plan, final: FinalFact) -> str:
    """The plan in words: the workspace, each step and its call id, the final."""
    lines = ["workspace:"]
    lines += [f"  {seed.path} = {seed.content!r}" for seed in plan.files]
    lines.append("model replies:")
    calls = 0
    for number, step in enumerate(plan.steps, start=1):
        if isinstance(step, (EditFile, WriteFile, RunCommand)):
            calls += 1
            text = f"{_describe_effect(step)} [call-{calls}, approved with True]"
        elif isinstance(step, Denied):
            calls += 1
            text = (
                f"{_describe_effect(step.effect)} [call-{calls}, DENIED by"
                " returning False]"
            )
        elif isinstance(step, Refused):
            calls += 1
            text = (
                f"edit_file {step.path} refused: {step.why} [call-{calls}, no receipt]"
            )
        elif isinstance(step, ReadFile):
            text = f"read_file {step.path}"
        elif isinstance(step, ListFiles):
            text = f"list_files {step.path}"
        else:
            text = f"invalid reply {step.reply!r}"
        lines.append(f"  {number}. {text}")
    answer, _ = final_text(final)
    if isinstance(answer, str):
        lines.append(f"  {len(plan.steps) + 1}. final {answer!r}")
    else:
        lines.append("  (the step limit ends the run before the final reply)")
    return "\n".join(lines)
