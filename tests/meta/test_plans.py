"""A replayed plan equals a real loop: what `replay` says is what run_agent does.

The real-run invariants take the plan's own replay as the truth. Here the
bundled evaluator's loop (the known-good substrate) plays drawn plans and
every event, file, receipt and approval is compared with the replay.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import replace

import pytest
from hypothesis import given, settings

import evaluator
from judge import load_target, materialise
from strategies import (
    CHAPTER_WORLD,
    World,
    played_worlds,
    replay,
    with_written_worlds,
)

# Meta-tests of the suite's own strategies and oracle: the invariants draw
# from the same strategies on every interpreter; their distribution is
# checked once (tox: py311), since it is minutes and interpreter-neutral.
pytestmark = pytest.mark.once


@settings(max_examples=40, database=None, deadline=None)
@given(world=played_worlds())
def test_a_replayed_plan_equals_what_the_loop_does(world: World) -> None:
    """Every event, file, receipt and approval of a real run of the bundled loop
    is the one the plan's replay predicts (the builder checks events, files and
    approvals; here the receipts too)."""
    target = load_target()
    outcome = replay(world.plan)
    with materialise(world, target) as built:
        for planned in outcome.receipts:
            receipt = built.receipts.get(planned.call_id)
            assert isinstance(receipt, evaluator.EffectReceipt)
            assert (
                receipt.tool,
                receipt.exit_state,
                receipt.result,
                receipt.changed_artifacts,
            ) == (
                planned.tool,
                planned.exit_state,
                planned.result,
                planned.changed_artifacts,
            )
        for call_id in outcome.unused_call_ids:
            assert built.receipts.get(call_id) is None
        for path, text in outcome.files:
            assert (built.root / path).read_bytes() == text.encode()


def test_a_real_runs_store_raises_on_lookup_only_after_the_run() -> None:
    """A real run whose store is handed with a raising `get` is played with
    the store as the target made it, and only then is its `get` replaced: the
    Day 1-3 loop may look receipts up, and the run must still be the plan's
    (the builder checks it), while evaluation meets the raising lookup."""
    target = load_target()
    world = CHAPTER_WORLD
    raising = replace(world, log=replace(world.log, get="OSError"))
    with materialise(raising, target) as built:
        assert built.run.completed is True
        with pytest.raises(OSError, match="lookup of call-1 broke"):
            built.receipts.get("call-1")
    with materialise(world, target) as built:
        assert isinstance(built.receipts.get("call-1"), evaluator.EffectReceipt)


class Day7Workspace(evaluator.Workspace):
    """The bundled workspace with the course's Day 7 rules where Day 8 changes
    them: an effect is approved only by a callback that is not None and
    returns exactly True (an ApprovalDecision, the starter's unfinished class
    or not, denies), and a new call id never skips ids the store holds."""

    def _approve(self, action: evaluator.ToolAction) -> None:
        if self.confirm_tool is None or self.confirm_tool(action) is not True:
            raise evaluator.AgentError("operator denied the tool action")

    def _new_call_id(self) -> str:
        call_id = f"call-{self._next_call_number}"
        self._next_call_number += 1
        return call_id


@settings(max_examples=25, database=None, deadline=None)
@given(world=played_worlds())
@with_written_worlds()
def test_a_day_7_workspace_plays_every_plan(world: World) -> None:
    """Every plan, written or drawn, is played by a workspace with Day 7's
    approval and call-id rules exactly as its replay says.

    Day 7 task 7 (real runs of the learner's own loop): a learner judged for
    Day 7 may not have Day 8's ApprovalDecision, truth-value callback or
    call ids that skip a loaded log, so no plan may need them. Why it
    matters: a plan that approves with an ApprovalDecision fails every
    correct Day 7 learner's real runs (the builder checks each event, the
    approvals and the files, and fails the world otherwise).
    """
    bundled = load_target()
    names = types.MappingProxyType({**bundled.names, "Workspace": Day7Workspace})
    target = dataclasses.replace(bundled, names=names)
    with materialise(world, target) as built:
        assert built.run.completed is True
        for planned in replay(world.plan).receipts:
            assert built.receipts.get(planned.call_id) is not None
