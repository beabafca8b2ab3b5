"""A real run: the world's plan played by the target's own `run_agent`.

Once the plan's files are laid out and the target's policy and store made
(judge/build.py, as for any world), its `run_agent` is given a scripted
model (the plan's replies, in order) and an approval callback (the plan's
decisions, in order). The run must then be the one the
plan implies (its events, approvals and files); a run that is not fails the
world as a lesson about Days 1-3, since Day 7 cannot be judged on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge.built import Built, evidence_bytes
from judge.calls import call_target
from judge.evidence import Play
from judge.fixes import placed
from judge.lessons import InvariantFailure

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
    """The approval callback: answers the plan's decisions in order and
    records every action it is shown, as (tool, arguments)."""

    def __init__(self, decisions: Sequence[object]) -> None:
        self.decisions = tuple(decisions)
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, action: Any) -> object:
        self.seen.append((action.tool, dict(action.arguments)))
        if len(self.seen) > len(self.decisions):
            return False  # an action the plan never asked to approve
        return self.decisions[len(self.seen) - 1]


def _decisions(target: Any, play: Play) -> list[object]:
    decisions: list[object] = []
    for decision in play.decisions:
        if not decision.made:
            decisions.append(decision.approve)
        elif decision.approve:
            decisions.append(
                call_target("ApprovalDecision(True)", target.ApprovalDecision, True)
            )
        else:
            decisions.append(
                call_target(
                    "ApprovalDecision(False, reason)",
                    target.ApprovalDecision,
                    False,
                    decision.reason,
                )
            )
    return decisions


def play_plan(play: Play, target: Any, built: Built, policy: Any) -> None:
    """Play the world's plan with the target's own run_agent, in the workspace
    of `policy` and the store `built` already holds; fail, as a lesson about
    Days 1-3, when the run is not the one the plan implies."""
    built.outcome = play.outcome
    script = play.script
    approver = Approver(_decisions(target, play))
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
    built.model = ScriptedModel(script)
    built.run = call_target(
        "run_agent(task, model, workspace, limits)",
        target.run_agent,
        play.task,
        built.model,
        built.workspace,
        limits,
    )
    _check_follows_plan(play, built, approver)


def _check_follows_plan(play: Play, built: Built, approver: Approver) -> None:
    """Fail, as a lesson about the substrate, if the run is not the plan's."""
    run, outcome = built.run, play.outcome
    final, complete = play.final, play.complete
    planned = (*outcome.events, None) if complete else outcome.events
    problems: list[str] = []
    events = tuple(getattr(run, "events", ()) or ())
    completed = getattr(run, "completed", None)
    if complete and (completed is not True or getattr(run, "final", None) != final):
        problems.append(
            f"completed={completed!r}, reason={getattr(run, 'reason', None)!r},"
            f" final={getattr(run, 'final', None)!r}"
        )
    if not complete and (completed is not False or run.reason != "step_limit"):
        problems.append(f"completed={completed!r}, reason={run.reason!r}")
    if len(events) != len(planned):
        problems.append(f"{len(events)} events instead of {len(planned)}")
    else:
        for number, (event, plan_event) in enumerate(
            zip(events, planned, strict=False), start=1
        ):
            action = getattr(event, "action", None)
            tool = getattr(action, "tool", None)
            result = getattr(event, "result", None)
            if plan_event is None:  # the final reply
                ok = result is None and tool is None
            elif plan_event.known:
                ok = tool == plan_event.tool and result == plan_event.result
            elif plan_event.tool is None:
                ok = action is None and isinstance(result, str)
            else:
                ok = tool == plan_event.tool and isinstance(result, str)
                ok = ok and not any(mark in result for mark in play.forbidden)
                if plan_event.tool != "list_files":
                    ok = ok and result.startswith("error:")
            if not ok:
                want = plan_event.tool if plan_event else None
                problems.append(
                    f"event {number}: tool {tool!r} result {result!r}"
                    f" instead of tool {want!r}"
                    + (
                        f" result {plan_event.result!r}"
                        if plan_event and plan_event.known
                        else ""
                    )
                )
    if [tool for tool, _ in approver.seen] != list(outcome.approvals):
        problems.append(
            f"the approval callback saw {[t for t, _ in approver.seen]}"
            f" instead of {list(outcome.approvals)}"
        )
    for kept in play.kept:
        if evidence_bytes(built, (built.root.name, *kept.parts)) != kept.text.encode():
            problems.append(f"{kept.path} does not hold {kept.text!r} after the run")
    if problems:
        raise InvariantFailure(
            world="",
            expected="the run the plan implies (Days 1-3 behaviour)",
            observed="; ".join(problems[:3]),
            hint=placed(
                "Day 7 judges runs made by the Day 1-3 loop and workspace;"
                " finish run_agent, Workspace and ReceiptStore first",
                "run_agent",
            ),
            cause="substrate:run_agent",
        )
