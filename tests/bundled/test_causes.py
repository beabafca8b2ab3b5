"""A lesson per cause, and a learner's bounded share: the pure functions.

The suite gives every lesson a cause where it is made (judge/causes.py,
judge/verdicts.py); the command groups them, one lesson per cause
naming every invariant it breaks, and bounds what one learner puts into
every report (day7_verify/reports/_causes.py). Nothing here starts a child.
"""

from __future__ import annotations

import json
import os
import sysconfig

from day7_verify.cohort._supervise import Finished
from day7_verify.reports._causes import (
    FIELD_BOUNDS,
    MAX_CAUSES,
    MORE,
    bounded,
    cause_of,
    grouped,
    told,
)
from day7_verify.reports._evidence import Progress
from day7_verify.reports._report import (
    LearnerVerdict,
    lesson,
    lesson_text,
    lessons_by_invariant,
)
from day7_verify.reports._text import learner_lines
from day7_verify.reports._verdict import Limits, classify
from judge.causes import hang_cause, raised_cause, shape_cause
from judge.ordering import rank
from judge.verdicts import verdict_cause
from strategies.world import ExpectedCheck


def _lesson(invariant: str, cause: str = "", **fields: str) -> dict:
    return lesson(
        {
            "invariant": invariant,
            "cause": cause,
            "headline": fields.pop("headline", f"{invariant} broke"),
            "world": fields.pop("world", f"the world of {invariant}"),
            "test": f"tests/invariants/t.py::test_{invariant}",
            **fields,
        }
    )


# --- the causes, where lessons are made ---------------------------------------------


def test_a_todo_result_is_unfinished_and_other_wrong_shapes_are_shape():
    assert shape_cause("render", "None") == "unfinished:render"
    assert shape_cause("evaluate_run", "None") == "unfinished:evaluate_run"
    assert (
        shape_cause("evaluate_run", "a report whose .passed is None; it must be a bool")
        == "unfinished:EvaluationReport.passed"
    )
    assert (
        shape_cause("evaluate_run", "a report whose .passed is 1; it must be a bool")
        == "shape:EvaluationReport.passed"
    )
    # The field, not the check's position: every position is one mistake.
    assert (
        shape_cause("evaluate_run", "a report whose check 0 has passed=None; it must")
        == shape_cause("evaluate_run", "a report whose check 3 has passed=1; it must")
        == "shape:CheckResult.passed"
    )


def test_a_hang_is_keyed_by_the_targets_frame_not_the_world():
    where = (
        (os.path.join(sysconfig.get_paths()["stdlib"], "threading.py"), 320, "wait"),
        ("/learners/ada/evaluation.py", 57, "evaluate_run"),
    )
    assert hang_cause("evaluate_run(run, workspace, receipts, case)", where) == (
        "hang:evaluation.py:evaluate_run"
    )
    assert hang_cause("report.render()") == "hang:render"


def test_a_broken_day_1_6_name_is_its_name_whatever_it_raised():
    assert raised_cause("ReceiptStore.put(receipt)", ValueError("x"), "substrate") == (
        raised_cause("ReceiptStore.put(receipt)", OSError("y"), "substrate")
    )
    assert raised_cause("ReceiptStore.put(receipt)", OSError(), "substrate") == (
        "substrate:ReceiptStore.put"
    )
    # Nowhere known: the call alone, whatever it raised.
    assert raised_cause("evaluate_run(run)", KeyError("k")) == "raises:evaluate_run"
    assert raised_cause("evaluate_run(run)", OSError()) == "raises:evaluate_run"


def test_a_wrong_verdict_is_keyed_by_the_checks_group_and_wrong_words_apart():
    """One key per group of checks, whatever kind of fact: one mistake in a
    check's code, wrong on many kinds, is one lesson."""
    check = ExpectedCheck(
        "file:a.txt", False, "content does not match", kind="file:newline_added"
    )
    assert verdict_cause(check, True) == "check:file"
    assert verdict_cause(check, False) == "detail:file"
    # A check another way made, the same kind: the same cause.
    other = ExpectedCheck("file:b/c.txt", False, None, kind="file:newline_added")
    assert verdict_cause(other, True) == verdict_cause(check, True)
    # Another kind of fact of the same group: the same cause too (a result
    # check that wants results in order fails a repeated result, a reordered
    # run and a real run's: one mistake).
    embedded = ExpectedCheck("result:read_file", True, None, kind="result:embedded")
    observed = ExpectedCheck("result:run_command", True, None, kind="result:observed")
    assert verdict_cause(embedded, False) == verdict_cause(observed, False)
    assert verdict_cause(embedded, False) != verdict_cause(check, True)


# --- one lesson per cause -----------------------------------------------------------


def test_one_cause_across_invariants_is_one_lesson_naming_them_all_basic_first():
    lessons = [
        _lesson("stateless", "check:file:newline_added", headline="from stateless"),
        _lesson("independence", "check:file:newline_added"),
        _lesson("truth", "check:file:newline_added", headline="from truth"),
    ]
    (only,) = grouped(lessons, rank)
    assert only["invariants"] == ["truth", "independence", "stateless"]
    assert only["invariant"] == "truth"
    # The lesson told is the most basic invariant's own, world and all.
    assert only["headline"] == "from truth"
    assert only["world"] == "the world of truth"


def test_different_causes_stay_apart_in_the_order_of_their_first_invariant():
    lessons = [
        _lesson("stateless", "stateless:kept-evidence"),
        _lesson("truth", "check:result:missing"),
        _lesson("report-shape", "unfinished:EvaluationReport.passed"),
        _lesson("truth", "unfinished:EvaluationReport.passed"),
    ]
    causes = [item["cause"] for item in grouped(lessons, rank)]
    assert causes == [
        "unfinished:EvaluationReport.passed",
        "check:result:missing",
        "stateless:kept-evidence",
    ]


def test_a_lesson_without_a_cause_is_its_invariants_as_in_an_old_report():
    old = {"invariant": "truth", "headline": "h", "topic": "day7"}
    assert lesson(old)["cause"] == "invariant:truth"
    assert lesson(old)["invariants"] == ["truth"]
    assert cause_of({"invariant": "order-insensitivity"}) == (
        "invariant:order-insensitivity"
    )
    two = [_lesson("truth", headline="one example"), _lesson("truth", headline="two")]
    (only,) = grouped(two, rank)
    assert only["headline"] == "one example"


def test_every_report_shows_a_causes_lesson_under_each_invariant_it_breaks():
    (only,) = grouped(
        [_lesson("truth", "check:x"), _lesson("independence", "check:x")], rank
    )
    by_invariant = lessons_by_invariant([only])
    assert by_invariant["truth"] == [only]
    # Under the others, the headline and where the whole lesson is told.
    (pointed,) = by_invariant["independence"]
    assert pointed["headline"] == only["headline"]
    assert pointed["world"] == pointed["reproduce"] == ""
    assert "under truth" in pointed["hint"]
    assert "breaks: truth, independence" in lesson_text(only)


# --- a bounded share ----------------------------------------------------------------


def test_causes_past_the_bound_are_folded_into_one_that_names_what_they_break():
    names = ["truth", "order-insensitivity", "independence", "determinism"]
    lessons = [
        _lesson(names[i % len(names)], f"cause:{i}") for i in range(MAX_CAUSES + 4)
    ]
    kept = bounded(lessons)
    assert len(kept) == MAX_CAUSES + 1
    assert kept[-1]["cause"] == MORE
    assert "4 more cause(s)" in kept[-1]["headline"]
    # Every invariant still points at a lesson.
    covered = {name for item in kept for name in item["invariants"]}
    assert covered == set(names)


def test_every_field_is_bounded_and_a_snippet_too_long_is_left_out_whole():
    huge = "\n".join(f"line {i} " + "x" * 80 for i in range(500))
    (kept,) = bounded(
        [
            _lesson(
                "truth", "c", world=huge, hint=huge, reproduce=huge, example=[huge] * 50
            )
        ]
    )
    for name, bound in FIELD_BOUNDS.items():
        text = kept[name]
        assert len(text.splitlines()) <= bound.lines + 1, name
        assert len(text) <= bound.chars + 80, name
    assert kept["world"].endswith("more line(s) not shown)")
    assert kept["reproduce"] == ""
    assert len(kept["example"]) == 2 and "49 more note(s)" in kept["example"][-1]
    small = _lesson("truth", "c", reproduce="print(1)")
    assert bounded([small])[0]["reproduce"] == "print(1)"


def _finished() -> Finished:
    return Finished(
        returncode=0,
        timed_out=False,
        seconds=1.0,
        peak_rss_kib=1,
        output="",
        output_bytes=0,
    )


def _judged(lessons: list[dict], failing: list[str]) -> LearnerVerdict:
    names = ["surface", "report-shape", "truth", "independence", "stateless"]
    summary = {
        "verification": "FAIL",
        "invariants": [
            {
                "name": name,
                "status": "FAIL" if name in failing else "PASS",
                "statement": f"{name} holds.",
            }
            for name in names
        ],
        "lessons": lessons,
    }
    result = {
        "phase": "suite",
        "exit_code": 1,
        "complete": True,
        "stopped": None,
        "summary": summary,
        "memory_error": None,
        "outside_writes": None,
    }
    return classify(
        path="learners/ada",
        limits=Limits(timeout=60.0, memory=2 << 30),
        finished=_finished(),
        result=result,
        untrusted=None,
        progress=Progress(phase="tests"),
        seconds=1.0,
    )


# A reproduction snippet as the suite writes one: the world is one long line.
_SNIPPET = "\n".join(
    [
        "from strategies import FileFact, World, load_target, materialise",
        "target = load_target(impl_path='learners/ada')",
        "world = World(" + ", ".join(f"FileFact('f{i}.txt')" for i in range(20)) + ")",
        "with materialise(world, target) as built:",
        "    print(target.evaluate_run(*built.args).render())",
    ]
)


def _hang(invariant: str, number: int) -> dict:
    # What a looping folder's summary holds: a hang per test, each with its
    # long world and snippet, all in the same loop.
    return {
        "invariant": invariant,
        "topic": "hang",
        "cause": "hang:evaluation.py:evaluate_run",
        "headline": f"evaluate_run(...) did not return within 1 s on this world;"
        f" it was running evaluation.py, line 57, in evaluate_run ({number})",
        "world": "\n".join(f"file {i}.txt: matches" for i in range(12)),
        "hint": "look for a loop whose condition never changes",
        "reproduce": _SNIPPET,
        "test": f"tests/invariants/t.py::test_{number}",
        "example": [],
    }


def test_a_hanging_learner_takes_about_the_room_of_a_failing_one():
    """The looping folder: twenty hangs in one loop, one lesson; its JSON and
    its terminal within twice a learner's with one wrong file check."""
    invariants = ["report-shape", "truth", "independence", "stateless"]
    hanging = _judged(
        [_hang(invariants[i % 4], i) for i in range(20)], failing=invariants
    )
    failing = _judged(
        [
            {
                "invariant": name,
                "cause": "check:file:newline_added",
                "headline": f"got file:a.txt: PASS, but should be FAIL ({name})",
                "world": "file a.txt: a missing newline at the end\n" * 3,
                "hint": "compare the bytes exactly",
                "reproduce": _SNIPPET,
                "test": f"tests/invariants/t.py::test_{name}",
            }
            for name in ("truth", "independence", "stateless")
        ],
        failing=["truth", "independence", "stateless"],
    )
    assert len(hanging.lessons) == 1
    assert hanging.lessons[0]["invariants"] == invariants
    assert len(failing.lessons) == 1
    size = len(json.dumps(hanging.to_json()))
    assert size <= 2 * len(json.dumps(failing.to_json())), size
    shown = learner_lines(hanging, "course")
    assert len(shown) <= 2 * len(learner_lines(failing, "course")), shown


def test_the_terminal_prints_one_entry_per_cause_naming_its_invariants():
    verdict = _judged(
        [
            _lesson("truth", "check:file:newline_added"),
            _lesson("independence", "check:file:newline_added"),
            _lesson("stateless", "check:file:newline_added"),
        ],
        failing=["truth", "independence", "stateless"],
    )
    text = "\n".join(learner_lines(verdict, "course"))
    assert text.count("breaks: truth, independence, stateless") == 1
    assert "2. " not in text  # one entry
    assert told(verdict.lessons, rank) == verdict.lessons  # told once is told


def test_verbose_shows_hypothesis_example_whole() -> None:
    """A long example (a 452-character line, 105 lines) reaches --verbose
    whole: no line cut, no note saying lines were left out (issue 36)."""
    from day7_verify.reports._report import LearnerVerdict
    from day7_verify.reports._text import learner_lines

    long_line = "world=World(files=(" + "FileFact(index=0, text='x'), " * 15 + "))"
    assert len(long_line) > 452
    example = [f"test_truth(\n    {long_line}\n" + "    x,\n" * 103 + ")"]
    (kept,) = bounded([_lesson("truth", "c", example=example)])
    assert kept["example"] == example
    verdict = LearnerVerdict(
        path="DIR",
        status="fail",
        detail="1 of 2 invariants hold",
        seconds=1.0,
        lessons=(kept,),
        invariants=(("truth", "fail"),),
    )
    shown = "\n".join(learner_lines(verdict, "course", verbose=True))
    assert long_line in shown
    assert "not shown" not in shown and "cut short" not in shown
