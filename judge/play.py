"""A real run: the world's plan played by the target's own `run_agent`.

Once the plan's files are laid out and the target's policy and store made
(judge/build.py, as for any world), its `run_agent` is given a scripted
model (the plan's replies, in order) and an approval callback that answers
plain True or False, as the plan decides for the reply being played. That
is all the approval a Day 7 learner has: Day 8's `ApprovalDecision` is not
used. The run must then be the one the plan implies (its events, approvals
and files); a run that is not fails the world as a lesson about Days 1-3,
since Day 7 cannot be judged on it. The lesson says what went wrong at which
event, and names a place only where the run tells it: an approved effect the
workspace refused is `Workspace.execute`'s, a wrong read result
`Workspace.read_file`'s, a run that does not end as the plan does
`run_agent`'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.built import Built, evidence_bytes
from judge.calls import call_target
from judge.evidence import Play
from judge.fixes import placed
from judge.lessons import InvariantFailure
from judge.shape import short_repr

__all__ = ["Approver", "ScriptedModel", "play_plan"]


class ScriptedModel:
    """The model: returns the plan's replies in order, counting its calls."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = tuple(replies)
        self.calls = 0

    def __call__(self, messages: object) -> str:
        if self.calls >= len(self.replies):
            raise AssertionError(
                f"the model was asked for reply {self.calls + 1},"
                f" but the plan has {len(self.replies)}"
            )
        self.calls += 1
        return self.replies[self.calls - 1]


class Approver:
    """The approval callback: plain True or False, the plan's decision for
    the reply being played (the model's calls so far), asked once; False for
    anything else. Records every action it is shown, as (tool, arguments),
    and at which reply (`asked_at`)."""

    def __init__(self, decisions: Sequence[bool | None], model: ScriptedModel) -> None:
        self.decisions = tuple(decisions)
        self.model = model
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.asked_at: list[int] = []

    def __call__(self, action: Any) -> bool:
        self.seen.append((action.tool, dict(action.arguments)))
        step = self.model.calls
        self.asked_at.append(step)
        if self.asked_at.count(step) > 1 or not 1 <= step <= len(self.decisions):
            return False  # an action the plan never asked to approve
        return self.decisions[step - 1] is True


def play_plan(play: Play, target: Any, built: Built, policy: Any) -> None:
    """Play the world's plan with the target's own run_agent, in the workspace
    of `policy` and the store `built` already holds; fail, as a lesson about
    Days 1-3, when the run is not the one the plan implies."""
    built.outcome = play.outcome
    script = play.script
    built.model = model = ScriptedModel(script)
    approver = Approver(play.decisions, model)
    built.approvals = approver.seen
    built.workspace = call_target(
        "Workspace(policy, approve, store)",
        target.Workspace,
        policy,
        approver,
        built.receipts,
    )
    limits = call_target(
        "AgentLimits(...)",
        target.AgentLimits,
        max_steps=len(script),
        max_context_chars=1_000_000,
        max_invalid_actions=play.invalid + 1,
        max_identical_actions=len(script) + 1,
    )
    built.run = call_target(
        "run_agent(task, model, workspace, limits)",
        target.run_agent,
        play.task,
        model,
        built.workspace,
        limits,
    )
    _check_follows_plan(play, built, approver)


# --- what went wrong, and where ---------------------------------------------------


@dataclass(frozen=True)
class _Problem:
    """One way the run is not the plan's: `said` names the event; `name` is
    the Day 1-6 name to change, "" when the run cannot tell which."""

    said: str
    name: str
    hint: str


_APPROVES = (
    "Day 3: the approval callback's plain True approves (exactly True; anything"
    " else denies): an approved write, edit or command then runs and its result"
    " is returned and receipted"
)
_ASKS_ONCE = (
    "Day 3: Workspace.execute prepares a write, edit or command, asks"
    " confirm_tool(action) once, then runs it only if the answer is exactly True;"
    " reads and listings need no approval, and an edit it refuses is refused"
    " before asking"
)
_DENIES = (
    "Day 3: only exactly True approves; a denied effect is not run and its"
    " result is 'error: ...'"
)
_PARSED = (
    "Day 1-2: parse_action (protocol.py) turns a reply into its ToolAction"
    " (the tool, the other fields as arguments) or refuses it with AgentError,"
    " and run_agent (loop.py) records that action in the reply's event"
)
_RESULT = (
    "Workspace.execute returns a string for every action ('error: ...' for"
    " one it refuses), and run_agent records it as the event's result"
)
_ENDS = (
    "Day 2: run_agent records one event per model reply and ends at the final"
    " reply (completed=True, reason 'completed', final its text) or, when"
    " max_steps replies are used up first, with completed=False, reason"
    " 'step_limit'; these limits are not reached otherwise"
)


def _shown(value: object) -> str:
    return short_repr(value, 120)


def _as_json(arguments: object) -> str:
    """Arguments as the reply's JSON would spell them (a tuple as a list)."""
    try:
        return json.dumps(arguments, sort_keys=True)
    except (TypeError, ValueError):
        return short_repr(arguments, 400)


def _event_problem(play: Play, number: int, event: Any, asked: int) -> _Problem | None:
    """How event `number` (1-based, one per plan step) is not the plan's, or
    None; `asked` is how often the approval callback was asked meanwhile."""
    step, planned = play.steps[number - 1], play.outcome.events[number - 1]
    decision = step.decision
    action = getattr(event, "action", None)
    tool = getattr(action, "tool", None)
    result = getattr(event, "result", None)
    error = isinstance(result, str) and result.startswith("error:")
    if planned.known:
        ok = tool == planned.tool and result == planned.result
    elif planned.tool is None:
        ok = action is None and isinstance(result, str)
    else:
        ok = tool == planned.tool and isinstance(result, str)
        ok = ok and not any(mark in result for mark in play.forbidden)
        if planned.tool != "list_files":
            ok = ok and error
    if ok and asked == (decision is not None):
        return None  # the passing path reads nothing more
    at = f"event {number} ({step.what})"
    reply = play.script[number - 1]
    if step.kind == "invalid":
        if action is not None:
            return _Problem(
                f"event {number}: the invalid reply {reply!r} was recorded as the"
                f" action {_shown(action)}",
                "",
                _PARSED,
            )
        return _Problem(
            f"event {number}: the invalid reply {reply!r} has the result"
            f" {_shown(result)} instead of 'error: ...'",
            "",
            _PARSED,
        )
    body = json.loads(reply)
    wanted_tool = body.pop("tool")
    arguments = getattr(action, "arguments", None)
    if tool != wanted_tool or _as_json(arguments) != _as_json(body):
        return _Problem(
            f"event {number}: the reply {reply!r} was recorded as tool {_shown(tool)}"
            f" with arguments {_shown(arguments)}",
            "",
            _PARSED,
        )
    if not isinstance(result, str):
        return _Problem(
            f"{at} recorded the result {_shown(result)}, not a string", "", _RESULT
        )
    if step.kind == "approved" and asked <= 1:
        if error and asked == 1:
            return _Problem(
                f"the approval callback's decision (True) at {at} was refused by"
                f" Workspace.execute: it answered {_shown(result)} instead of"
                f" {_shown(planned.result)}",
                "Workspace.execute",
                _APPROVES,
            )
        if error and asked == 0:
            return _Problem(
                f"Workspace.execute refused {at} without asking the approval"
                f" callback: it answered {_shown(result)} instead of"
                f" {_shown(planned.result)}",
                "Workspace.execute",
                _ASKS_ONCE,
            )
        if result != planned.result:
            return _Problem(
                f"the tool result at {at} differed: expected"
                f" {_shown(planned.result)}, got {_shown(result)}",
                f"Workspace.{wanted_tool}",
                f"Day 3: {wanted_tool} answers {_shown(planned.result)} here",
            )
    elif step.kind == "denied":
        if not error or any(mark in result for mark in play.forbidden):
            how = (
                "though the approval callback denied it (returned False)"
                if asked
                else "without asking the approval callback"
            )
            return _Problem(
                f"Workspace.execute ran {at} {how}: it answered {_shown(result)}"
                " instead of 'error: ...'",
                "Workspace.execute",
                _DENIES if asked else _ASKS_ONCE,
            )
    elif step.kind == "refused":
        if not error:
            return _Problem(
                f"Workspace.execute accepted {at}, which it must refuse"
                f" ({step.why}): it answered {_shown(result)}",
                "Workspace.execute",
                "Day 3: edit_file refuses a file not read before, or an old text"
                " that does not occur exactly once, before asking for approval",
            )
    elif step.kind == "read" and result != planned.result:
        return _Problem(
            f"the tool result at {at} differed: expected {_shown(planned.result)},"
            f" got {_shown(result)}",
            "Workspace.read_file",
            "Day 1: read_file returns the file's whole text, decoded as strict UTF-8",
        )
    elif step.kind == "list" and not ok:
        return _Problem(
            f"the tool result at {at} differed: {_shown(result)}",
            "Workspace.list_files",
            "Day 1: list_files lists the directory's entries as relative paths",
        )
    return _Problem(
        f"the approval callback was asked {asked} time(s) at {at}, instead of"
        f" {int(decision is not None)}",
        "Workspace.execute",
        _ASKS_ONCE,
    )


def _problems(play: Play, built: Built, approver: Approver) -> list[_Problem]:
    """Every way the run is not the plan's, in the order they happened."""
    run = built.run
    final, complete = play.final, play.complete
    steps = len(play.steps)
    events = tuple(getattr(run, "events", ()) or ())
    problems: list[_Problem] = []
    for number, event in enumerate(events[:steps], start=1):
        problem = _event_problem(play, number, event, approver.asked_at.count(number))
        if problem is not None:
            problems.append(problem)
    elsewhere = [at for at in approver.asked_at if not 1 <= at <= steps]
    if elsewhere:
        problems.append(
            _Problem(
                f"the approval callback was asked at reply {elsewhere[0]}, where"
                " the plan makes no effect",
                "Workspace.execute",
                _ASKS_ONCE,
            )
        )
    if complete and len(events) > steps:
        last = events[steps]
        action = getattr(last, "action", None)
        result = getattr(last, "result", None)
        if result is not None or getattr(action, "tool", None) is not None:
            problems.append(
                _Problem(
                    f"event {steps + 1} (the final reply) was recorded with the"
                    f" action {_shown(action)} and result {_shown(result)}",
                    "",
                    f"{_PARSED}; a final reply's event has result None",
                )
            )
    planned = steps + complete
    if len(events) != planned:
        problems.append(
            _Problem(
                f"the run has {len(events)} events instead of {planned}, one per"
                " model reply",
                "run_agent",
                _ENDS,
            )
        )
    completed = getattr(run, "completed", None)
    reason = getattr(run, "reason", None)
    if complete and (completed is not True or getattr(run, "final", None) != final):
        problems.append(
            _Problem(
                f"the run ended with completed={completed!r}, reason={_shown(reason)},"
                f" final={_shown(getattr(run, 'final', None))} instead of"
                f" completed=True, reason='completed', final={final!r}",
                "run_agent",
                _ENDS,
            )
        )
    if not complete and (completed is not False or reason != "step_limit"):
        problems.append(
            _Problem(
                f"the run ended with completed={completed!r}, reason={_shown(reason)}"
                " instead of completed=False, reason='step_limit'",
                "run_agent",
                _ENDS,
            )
        )
    for kept in play.kept:
        there = evidence_bytes(built, (built.root.name, *kept.parts))
        if there != kept.text.encode():
            problems.append(_file_problem(play, kept.path, kept.text, there))
    return problems


def _file_problem(play: Play, path: str, text: str, there: object) -> _Problem:
    """A file the run left other than the plan says, blamed on the last
    step that names it, if any."""
    shown = there.decode("utf-8", "replace") if isinstance(there, bytes) else there
    said = (
        f"after the run {path} holds {_shown(shown)} instead of {_shown(text)}"
        if there is not None
        else f"after the run {path} is missing (it should hold {_shown(text)})"
    )
    for step in reversed(play.steps):
        if step.path != path or step.kind in ("read", "list"):
            continue
        if step.kind == "approved":
            tool = step.what.split(" ", 1)[0]
            return _Problem(
                said,
                f"Workspace.{tool}",
                f"Day 3: an approved {tool} replaces the file's bytes, atomically",
            )
        return _Problem(said, "Workspace.execute", _DENIES)
    return _Problem(said, "", "only an approved write or edit changes a file")


def _check_follows_plan(play: Play, built: Built, approver: Approver) -> None:
    """Fail, as a lesson about the substrate, if the run is not the plan's."""
    problems = _problems(play, built, approver)
    if problems:
        first = problems[0]
        raise InvariantFailure(
            world="",
            expected="the run the plan implies (Days 1-3 behaviour)",
            observed="; ".join(problem.said for problem in problems[:3]),
            hint=placed(first.hint, first.name),
            cause=f"substrate:{first.name or 'run'}",
        )
