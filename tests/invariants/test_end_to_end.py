"""End to end: real runs of the target's own agent loop, judged by their plan.

Day 7's focused scenario (task 7) asks the loop to set `answer = 2` in
`app.py`, run the validation command and finish, then judges that run. Here
the scenario is generalised: a drawn plan (reads, listings, edits, writes,
commands, denied and refused effects, invalid replies, a final) is played by
the target's `run_agent` with a scripted model, and the case the plan implies
is true by construction. Every example runs in a fresh temporary directory.
The written-out plans (the chapter's first, then small ones each showing one
kind of mistake) run before any drawn plan, under every seed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from strategies.lessons import call_target, fail, report_view
from strategies.runs import (
    ALTERNATE_TEMPLATE,
    CHAPTER_PLAN,
    CaseFacts,
    FileFact,
    ReceiptFact,
    ResultFact,
    assert_verdicts,
    case_facts,
    describe_plan,
    describe_world,
    judge,
    materialise_run,
    plans,
    run_view,
    with_written_plans,
    wrong_facts,
)

# Every example starts the target's loop and up to two interpreter processes
# (about 20 ms each), so these properties draw a quarter of the profile's
# examples (25 under `ci`): the step kinds are few, and the written-out plans
# hold every kind, so finding a mistake does not hinge on the count.
RUNS = settings(max_examples=max(10, settings.default.max_examples // 4))

INCOMPLETE_REASONS = (
    "step_limit",
    "context_limit",
    "invalid_action_limit",
    "repeated_action_limit",
)

_HINTS = (
    "final passes only for a completed run whose final contains the exact,"
    " case-sensitive substring",
    "compare the file's exact UTF-8 text: no strip, no newline translation"
    " (read_text), no BOM removal (utf-8-sig), no prefix or substring match",
    "one event must carry both the tool (a ToolAction) and the substring in its"
    " result string: not in its arguments, not in the model's response",
    "the receipt's tool, exit state, result substring and exact changed-artifact"
    " tuple must all match; a call id without a receipt fails",
)


def _hint_for(facts: CaseFacts, index: int) -> str:
    bounds = (1, 1 + len(facts.files), 1 + len(facts.files) + len(facts.results))
    return _HINTS[sum(index >= bound for bound in bounds)]


@pytest.mark.invariant("end-to-end")
@RUNS
@given(plan=plans())
@with_written_plans()
def test_a_real_run_passes_the_case_its_plan_implies(target, plan):
    """A real run of the target's own loop passes every check of the case its
    plan implies.

    Day 7 task 7 (the focused scenario, generalised): the final marker, every
    file's final text (edits applied), each tool result the plan produced and
    one receipt per approved effect, under the call id the workspace gave it.
    Why it matters: this is the harness's whole purpose; an evaluator that
    fails a run which did exactly what was asked cannot grade anything.
    """
    note(describe_plan(plan))
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, plan, Path(directory))
        facts = case_facts(plan, real.outcome)
        assert_verdicts(
            report_view(judge(target, real, facts)),
            [True] * len(facts.check_names()),
            facts,
            world=describe_world(real, facts),
            hint="every fact of this case holds after the run: read files through"
            " resolve_path as strict UTF-8, search every event, reload the log",
        )


@pytest.mark.invariant("wrong-fact-fails-alone")
@RUNS
@given(plan=plans())
@with_written_plans()
def test_each_wrong_fact_fails_only_its_own_check(target, plan):
    """Making one expectation of a real run's case false fails exactly that
    check.

    Day 7 task 7: "independent wrong final, file, result, and receipt facts
    each fail their own named check". Every single change the plan knows to
    be false is tried: a final substring the answer lacks (another case,
    padded, a command's output), a file text one character off (stripped,
    LF-translated, BOM dropped, truncated, one newline more), a result under
    another tool or only in a denied command's arguments, a receipt with
    another tool, exit state, result, artifact tuple, or a call id that has
    no receipt. Why it matters: a check that passes a false fact, or a fact
    that drags other checks down with it, makes the report lie about which
    outcome is missing.
    """
    note(describe_plan(plan))
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, plan, Path(directory))
        facts = case_facts(plan, real.outcome)
        baseline = [row[1] for row in report_view(judge(target, real, facts))]
        for wrong in wrong_facts(plan, real.outcome):
            expected = list(baseline)
            if len(expected) == len(wrong.facts.check_names()):
                expected[wrong.index] = False
            assert_verdicts(
                report_view(judge(target, real, wrong.facts)),
                expected,
                wrong.facts,
                world=describe_world(real, wrong.facts),
                hint=_hint_for(wrong.facts, wrong.index),
                what=f"with one wrong fact ({wrong.label}); every other check"
                " as for the true case",
            )


@pytest.mark.invariant("phrasing-and-order-free")
@RUNS
@given(plan=plans(), data=st.data())
@with_written_plans(data=None)
def test_final_phrasing_and_event_order_do_not_change_the_report(target, plan, data):
    """A real run with its final reworded around the same marker, or its
    events reordered, gets the same verdicts.

    Day 7 tasks 2 and 4 (and task 7's "an alternate final phrase and event
    order still pass"): the final is a substring fact, not a transcript, and
    events are a set of observable facts. Reversed events, a drawn
    permutation and both changes at once are tried. Why it matters: two
    useful runs may word their answers differently and interleave read-only
    observations differently; grading the transcript's shape fails good runs.
    """
    note(describe_plan(plan))
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, plan, Path(directory))
        facts = case_facts(plan, real.outcome)
        baseline = [row[1] for row in report_view(judge(target, real, facts))]
        events = tuple(real.run.events)
        alternate = ALTERNATE_TEMPLATE.format(plan.marker)
        order = list(range(len(events)))[::-1]
        if data is not None:
            order = data.draw(st.permutations(range(len(events))), label="order")
        variants = (
            (f"final reworded as {alternate!r}", {"final": alternate}),
            ("events reversed", {"events": events[::-1]}),
            (
                f"events in the order {order}",
                {"events": tuple(events[i] for i in order)},
            ),
            (
                "final reworded and events reversed",
                {"final": alternate, "events": events[::-1]},
            ),
        )
        for label, changes in variants:
            variant = run_view(real.run, **changes)
            assert_verdicts(
                report_view(judge(target, real, facts, run=variant)),
                baseline,
                facts,
                world=describe_world(real, facts),
                hint="search all events for a match, in any order and position;"
                " require the marker as a substring of the final, not its wording",
                what=f"with the {label}, as for the run itself",
            )


@pytest.mark.invariant("incomplete-fails-final-only")
@RUNS
@given(plan=plans(min_steps=1))
@with_written_plans()
def test_an_incomplete_real_run_fails_only_its_final(target, plan):
    """A run that stopped before its final reply fails the final check and
    nothing else.

    Day 7 task 2: "the first check requires a completed run". The plan is
    played with a step limit that ends it before the final (reason
    `step_limit`, final None); then the same run, marked complete with its
    final, is marked incomplete again under every stop reason while keeping
    the final text. Why it matters: an agent that ran out of budget did not
    finish the task, however promising its last words; an evaluator that
    ignores `completed` passes it.
    """
    note(describe_plan(plan, with_final=False))
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, plan, Path(directory), stop_before_final=True)
        facts = case_facts(plan, real.outcome)
        world = describe_world(real, facts)
        finished = run_view(
            real.run, completed=True, reason="completed", final=plan.final
        )
        baseline = report_view(judge(target, real, facts, run=finished))
        expected = [False, *(row[1] for row in baseline[1:])]
        hint = (
            "final needs run.completed: an incomplete run fails final even when its"
            " final text holds the marker, and a final of None is a failed check"
        )
        assert_verdicts(
            report_view(judge(target, real, facts)),
            expected,
            facts,
            world=world,
            hint=hint,
            what="for the run the step limit ended (final None); the other checks"
            " as when it is marked complete",
        )
        for reason in INCOMPLETE_REASONS:
            stopped = run_view(finished, completed=False, reason=reason)
            assert_verdicts(
                report_view(judge(target, real, facts, run=stopped)),
                expected,
                facts,
                world=world,
                hint=hint,
                what=f"for the run marked completed=False, reason={reason!r},"
                f" final {plan.final!r} kept",
            )


#: The chapter's own case: five checks (Day 7, tasks 1 and 6).
CHAPTER_FACTS = CaseFacts(
    final_contains="validated",
    files=(FileFact("app.py", "answer = 2\n"),),
    results=(ResultFact("run_command", "validation passed"),),
    receipts=(
        ReceiptFact("call-1", "edit_file", "ok", "edited app.py", ("app.py",)),
        ReceiptFact("call-2", "run_command", "ok", "validation passed"),
    ),
)

CHAPTER_RENDER = (
    "evaluation: PASS",
    "- final: PASS (required final observed)",
    "- file:app.py: PASS (content matches)",
    "- result:run_command: PASS (required result observed)",
    "- receipt:call-1: PASS (receipt facts match)",
    "- receipt:call-2: PASS (receipt facts match)",
)


@pytest.mark.invariant("chapter-scenario")
def test_the_chapter_scenario_passes_its_five_checks(target):
    """The chapter's scenario (app.py: answer = 1 -> 2, then the validation
    command) passes its five checks and renders as the chapter shows.

    Day 7 tasks 1, 6 and 7: the case of task 1, the report of task 6, the
    run of task 7 made by the target's own loop, with the edit and the
    command approved in that order. Why it matters: it is the one example
    every learner reads; if it does not pass, nothing else will.
    """
    with tempfile.TemporaryDirectory() as directory:
        real = materialise_run(target, CHAPTER_PLAN, Path(directory))
        world = describe_world(real, CHAPTER_FACTS)
        report = judge(target, real, CHAPTER_FACTS)
        assert_verdicts(
            report_view(report),
            [True] * 5,
            CHAPTER_FACTS,
            world=world,
            hint="the chapter's run did exactly what its case declares",
        )
        rendered = call_target("report.render()", report.render)
        if tuple(rendered.splitlines()) != CHAPTER_RENDER:
            fail(
                world=world,
                expected="\n".join(CHAPTER_RENDER),
                observed=rendered,
                hint="`evaluation: PASS|FAIL`, then `- <name>: PASS|FAIL (<detail>)`"
                " per check, in case order",
            )
        seen = [tool for tool, _ in real.approver.seen]
        if seen != ["edit_file", "run_command"]:
            fail(
                world=world,
                expected="the approval callback seeing ['edit_file', 'run_command']",
                observed=f"the approval callback seeing {seen}",
                hint="the loop asks approval once per effect, in order",
            )
