"""End to end: real runs of the target's own agent loop, judged by their plan.

Day 7's focused scenario (task 7) asks the loop to set `answer = 2` in
`app.py`, run the validation command and finish, then judges that run. Here
the scenario is generalised: a drawn plan (reads, listings, edits, writes,
commands, denied and refused effects, invalid replies, a final) is played by
the target's `run_agent` with a scripted model, and the case the plan implies
is true by construction. Every example runs in a fresh temporary directory.
The written-out worlds (the chapter's first, then small ones each showing one
kind of mistake) run before any drawn one, under every seed.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from judge import (
    assert_names,
    assert_truth,
    call_target,
    evaluate,
    fail,
    judging,
    make_case,
    materialise,
    remote_replace,
    report_view,
    shown_row,
    verdict_cause,
)
from judge.causes import RENDER_GRAMMAR
from judge.fixes import hint_for, placed
from strategies import (
    ALTERNATE_FINAL,
    CHAPTER_WORLD,
    INCOMPLETE_REASONS,
    World,
    describe,
    final_text,
    played_worlds,
    real_runs,
    stopped,
    truth,
    with_written_worlds,
    wrong_facts,
)


@pytest.mark.invariant("end-to-end")
@real_runs()
@given(world=played_worlds())
@with_written_worlds()
def test_a_real_run_passes_the_case_its_plan_implies(target, world: World):
    """A real run of the target's own loop passes every check of the case its
    plan implies.

    Day 7 task 7 (the focused scenario, generalised): the final marker, every
    file's final text (edits applied), each tool result the plan produced and
    one receipt per approved effect, under the call id the workspace gave it.
    Why it matters: this is the harness's whole purpose; an evaluator that
    fails a run which did exactly what was asked cannot grade anything.
    """
    note(describe(world))
    with judging(world, target), materialise(world, target) as built:
        assert_truth(evaluate(target, built), truth(world), level=target.level)


@pytest.mark.invariant("wrong-fact-fails-alone")
@real_runs()
@given(world=played_worlds())
@with_written_worlds()
def test_each_wrong_fact_fails_only_its_own_check(target, world: World):
    """Making one expectation of a real run's case false fails exactly that
    check.

    Day 7 task 7: "independent wrong final, file, result, and receipt facts
    each fail their own named check". Every single change the plan knows to
    be false is tried: a final substring the answer lacks (one character
    longer, in the other letter case, padded), a file text one character off
    (a character, a newline or a BOM the file lacks), a path only a denied
    write named, a result under another tool or only in a denied command's
    arguments, a receipt with another tool, exit state, result, artifact
    tuple, or a call id that has no receipt. Why it matters: a check that
    passes a false fact, or a fact that drags other checks down with it,
    makes the report lie about which outcome is missing.
    """
    note(describe(world))
    with judging(world, target), materialise(world, target) as built:
        baseline = report_view(evaluate(target, built))
        # Checks misnamed, misordered or miscounted are the names lesson,
        # told once with report-shape's: compared position by position, they
        # would pair other checks and blame a leak between them.
        names = [check.name for check in truth(world)]
        assert_names(baseline, names, world=describe(world), level=target.level)
        for wrong in wrong_facts(world):
            case = make_case(target, wrong.world.blueprint.case)
            report = evaluate(target, built, case=case)
            rows = report_view(report)
            expected = truth(wrong.world)
            context = f"with one wrong fact: {wrong.label}"
            want = [check.name for check in expected]
            assert_names(rows, want, world=context, level=target.level)
            for index, (row, check) in enumerate(zip(rows, expected, strict=True)):
                if index == wrong.index and not check.accepts(*row[1:], target.level):
                    fail(
                        world=f"{context}\nthe fact behind {check.name}: {check.fact}",
                        expected=check.shown(target.level),
                        observed=shown_row(row),
                        hint=hint_for(check, row[1], target.level),
                        # The wrong fact's own verdict: the truth's mistake
                        # for that kind of fact, told once with it.
                        cause=verdict_cause(check, row[1]),
                    )
                if index != wrong.index and not check.same(
                    row, baseline[index], target.level
                ):
                    fail(
                        world=context,
                        expected=f"{row[0]} as for the true case:"
                        f" {shown_row(baseline[index])}",
                        observed=shown_row(row),
                        hint=placed(
                            "each check looks only at its own fact: one wrong"
                            " expectation must not change another check",
                            "evaluate_run",
                        ),
                        # The check that changed is the one whose code is wrong.
                        cause=verdict_cause(check, None),
                    )


@pytest.mark.invariant("phrasing-and-order-free")
@real_runs()
@given(world=played_worlds(), data=st.data())
@with_written_worlds(data=None)
def test_final_phrasing_and_event_order_do_not_change_the_report(
    target, world: World, data
):
    """A real run with its final reworded around the same marker, or its
    events reordered, gets the same verdicts.

    Day 7 tasks 2 and 4 (and task 7's "an alternate final phrase and event
    order still pass"): the final is a substring fact, not a transcript, and
    events are a set of observable facts. Reversed events, a drawn
    permutation and both changes at once are tried. Why it matters: two
    useful runs may word their answers differently and interleave read-only
    observations differently; grading the transcript's shape fails good runs.
    """
    note(describe(world))
    with judging(world, target), materialise(world, target) as built:
        events = tuple(built.run.events)
        _, contains = final_text(world.final)
        alternate = ALTERNATE_FINAL.format(contains)
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
            with judging(world, target, f"the run's {label}"):
                run = run_view(built.run, **changes)
                assert_truth(
                    evaluate(target, built, run=run), truth(world), level=target.level
                )


def run_view(run, **changes):
    """`dataclasses.replace(run, **changes)`, a lesson if the target's AgentRun
    is not a dataclass."""
    __tracebackhide__ = True
    return call_target(
        f"dataclasses.replace(run, {', '.join(changes)}=...)",
        remote_replace,
        run,
        **changes,
    )


@pytest.mark.invariant("incomplete-fails-final-only")
@real_runs()
@given(world=played_worlds(min_steps=1))
@with_written_worlds()
def test_an_incomplete_real_run_fails_only_its_final(target, world: World):
    """A run that stopped before its final reply fails the final check and
    nothing else.

    Day 7 task 2: "the first check requires a completed run". The plan is
    played with a step limit that ends it before the final (reason
    `step_limit`, final None); then the same run, given its final text back,
    is marked incomplete under every stop reason. Why it matters: an agent
    that ran out of budget did not finish the task, however promising its
    last words; an evaluator that ignores `completed` passes it.
    """
    halted = stopped(world)
    note(describe(halted))
    with judging(halted, target), materialise(halted, target) as built:
        assert_truth(evaluate(target, built), truth(halted), level=target.level)
        for reason in INCOMPLETE_REASONS:
            incomplete = replace(
                world, final=replace(world.final, completed=False, reason=reason)
            )
            text, _ = final_text(incomplete.final)
            with judging(
                incomplete, target, f"the run marked completed=False, {reason}"
            ):
                run = run_view(built.run, completed=False, reason=reason, final=text)
                assert_truth(
                    evaluate(target, built, run=run),
                    truth(incomplete),
                    level=target.level,
                )


CHAPTER_RENDER = (
    "evaluation: PASS",
    "- final: PASS (required final observed)",
    "- file:app.py: PASS (content matches)",
    "- result:run_command: PASS (required result observed)",
    "- receipt:call-1: PASS (receipt facts match)",
    "- receipt:call-2: PASS (receipt facts match)",
)


def _chapter_case(world: World) -> World:
    # The chapter's own case: five checks, the result and receipts as it
    # writes them (Day 7, tasks 1 and 6).
    results = tuple(r for r in world.results if r.marker == "validation passed")
    receipts = tuple(
        replace(
            r, marker="edited app.py" if r.tool == "edit_file" else "validation passed"
        )
        for r in world.receipts
    )
    return replace(world, results=results, receipts=receipts)


@pytest.mark.invariant("chapter-scenario")
def test_the_chapter_scenario_passes_its_five_checks(target):
    """The chapter's scenario (app.py: answer = 1 -> 2, then the validation
    command) passes its five checks and renders as the chapter shows.

    Day 7 tasks 1, 6 and 7: the case of task 1, the report of task 6, the
    run of task 7 made by the target's own loop, with the edit and the
    command approved in that order. Why it matters: it is the one example
    every learner reads; if it does not pass, nothing else will.
    """
    world = _chapter_case(CHAPTER_WORLD)
    with judging(world, target), materialise(world, target) as built:
        report = evaluate(target, built)
        assert_truth(report, truth(world), level=target.level)
        rendered = call_target("report.render()", report.render)
        if tuple(rendered.splitlines()) != CHAPTER_RENDER:
            # Its own rows rendered by the grammar: a rendering that breaks it
            # is render-grammar's mistake met again (one cause); one that
            # keeps it differs in the rows' words, a mistake of its own.
            rows = report_view(report)
            grammar = [f"evaluation: {'PASS' if report.passed else 'FAIL'}"] + [
                f"- {name}: {'PASS' if ok else 'FAIL'} ({detail})"
                for name, ok, detail in rows
            ]
            fail(
                world="",
                expected="\n".join(CHAPTER_RENDER),
                observed=rendered,
                hint=placed(
                    "`evaluation: PASS|FAIL`, then `- <name>: PASS|FAIL (<detail>)`"
                    " per check, in case order",
                    "EvaluationReport.render",
                ),
                cause=RENDER_GRAMMAR if rendered.split("\n") != grammar else "",
            )
        seen = [tool for tool, _ in built.approvals]
        if seen != ["edit_file", "run_command"]:
            fail(
                world="",
                expected="the approval callback seeing ['edit_file', 'run_command']",
                observed=f"the approval callback seeing {seen}",
                hint=placed(
                    "Day 3: the workspace asks confirm_tool(action) once per write,"
                    " edit or command it runs, in order",
                    "Workspace.execute",
                ),
            )
