"""The command's data and pure logic: verdicts, reports, baseline, shards, text.

Nothing here starts a child: these are the rules that turn what happened
into statuses, and statuses into every form the command writes.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from day7_verify._cli import _judge_parser
from day7_verify.cohort._discover import Learner, UsageError, cohort, learner_at, unique
from day7_verify.cohort._supervise import Finished
from day7_verify.reports._baseline import compare
from day7_verify.reports._evidence import (
    Progress,
    Untrusted,
    read_progress,
    read_result,
)
from day7_verify.reports._gradescope import gradescope_results
from day7_verify.reports._junit import classname, junit_xml
from day7_verify.reports._report import (
    INVARIANT_STATUSES,
    SCHEMA,
    STATUSES,
    ClassReport,
    LearnerVerdict,
    SchemaError,
    Shard,
    lesson,
)
from day7_verify.reports._shard import merge, parse_shard, select
from day7_verify.reports._text import class_lines, learner_lines
from day7_verify.reports._verdict import (
    OUTSIDE_WRITES,
    Limits,
    at_level,
    classify,
    counted,
    output_tail,
)
from judge.ordering import HARDENED_ONLY, INVARIANT_ORDER

SETTINGS = {"level": "course", "profile": "ci", "timeout": 60.0, "memory_mib": 2048}
LIMITS = Limits(timeout=60.0, memory=2 << 30)
NAMES = ("surface", "report-shape", "truth", "read-only")


def _finished(
    returncode: int | None = 0, timed_out: bool = False, output: str = ""
) -> Finished:
    return Finished(
        returncode=returncode,
        timed_out=timed_out,
        seconds=1.0,
        peak_rss_kib=1,
        output=output,
        output_bytes=len(output),
    )


def _summary(statuses: dict[str, str], lessons: list[dict[str, str]] = ()) -> dict:
    failing = any(status == "FAIL" for status in statuses.values())
    return {
        "verification": "FAIL" if failing else "PASS",
        "invariants": [
            {"name": name, "status": status, "statement": f"{name} holds."}
            for name, status in statuses.items()
        ],
        "lessons": list(lessons),
    }


def _result(summary: dict | None, **fields: object) -> dict:
    base = {
        "phase": "suite",
        "exit_code": 0,
        "complete": True,
        "stopped": None,
        "summary": summary,
        "memory_error": None,
        "outside_writes": None,
    }
    return {**base, **fields}


def _progress(running: str | None = None, failed: tuple[str, ...] = ()) -> Progress:
    progress = Progress(phase="tests")
    progress.collected = [(f"t::{name}", name) for name in NAMES]
    for nodeid, _ in progress.collected:
        progress.started.append(nodeid)
        if nodeid == running:
            break
        progress.done.add(nodeid)
    for name in failed:
        progress.outcomes[f"t::{name}"] = "failed"
    return progress


def _classify(**overrides: object) -> LearnerVerdict:
    arguments = {
        "path": "learners/ada",
        "limits": LIMITS,
        "finished": _finished(),
        "result": None,
        "untrusted": None,
        "progress": _progress(),
        "seconds": 1.0,
    }
    arguments.update(overrides)
    return classify(**arguments)  # type: ignore[arg-type]


# --- statuses ---------------------------------------------------------------


def test_a_complete_passing_run_is_a_pass_and_the_command_adds_its_own_invariant():
    """PASS, every test finished, exit status 0: pass, with writes-nothing-outside."""
    verdict = _classify(result=_result(_summary(dict.fromkeys(NAMES, "PASS"))))
    assert verdict.status == "pass"
    assert dict(verdict.invariants) == {
        **dict.fromkeys(NAMES, "pass"),
        OUTSIDE_WRITES: "pass",
    }


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({"complete": False, "stopped": "interrupted by KeyboardInterrupt"}, "crashed"),
        ({"exit_code": 1}, "fail"),
        (
            {"exit_code": 2, "complete": False, "stopped": "pytest ended with 2"},
            "crashed",
        ),
        ({"memory_error": {"test": "t::truth", "invariant": "truth"}}, "out-of-memory"),
        (
            {
                "outside_writes": {
                    "test": "t::truth",
                    "changes": ["cwd: deleted README.md"],
                }
            },
            "fail",
        ),
    ],
)
def test_a_passing_summary_is_not_a_pass_when_anything_else_went_wrong(fields, status):
    """A summary saying PASS never makes a pass unless the run itself was whole."""
    summary = _summary(dict.fromkeys(NAMES, "PASS"))
    verdict = _classify(result=_result(summary, **fields))
    assert verdict.status == status, verdict.detail


@pytest.mark.parametrize("beside", ["PASS", "FAIL"])
def test_an_invariant_the_judges_own_fault_left_unjudged_is_an_error_not_a_fail(
    beside: str,
):
    """The suite's INCOMPLETE with `judge_faults` (the judge could not make a
    world) is the learner's `error`, naming the judge, never `fail`; beside a
    real FAIL it is that `fail`, the faulted invariant still `incomplete`."""
    summary = _summary({**dict.fromkeys(NAMES, "PASS"), "truth": "INCOMPLETE"})
    summary["invariants"][1]["status"] = beside  # report-shape
    summary["verification"] = "FAIL" if beside == "FAIL" else "INCOMPLETE"
    summary["judge_faults"] = ["truth", "<b>not an invariant</b>"]
    verdict = _classify(result=_result(summary, exit_code=1))
    assert dict(verdict.invariants)["truth"] == "incomplete"
    if beside == "FAIL":
        assert verdict.status == "fail"
        return
    assert verdict.status == "error"
    assert verdict.detail == (
        "day7-verify's own fault left 1 invariant unjudged (truth): not a verdict"
        " on the folder"
    )


def test_no_result_is_never_a_pass_whatever_the_exit_status():
    """os._exit(0): exit status 0 and no result is a crash that names the test."""
    verdict = _classify(finished=_finished(0), progress=_progress(running="t::truth"))
    assert verdict.status == "crashed"
    assert "t::truth" in verdict.detail and "status 0" in verdict.detail
    assert dict(verdict.invariants) == {
        "surface": "pass",
        "report-shape": "pass",
        "truth": "crashed",
        "read-only": "not-run",
    }


def test_a_signal_names_itself_and_an_untrusted_result_says_why():
    killed = _classify(finished=_finished(-11), progress=_progress(running="t::truth"))
    assert killed.status == "crashed" and "SIGSEGV" in killed.detail
    forged = _classify(untrusted="it does not carry the nonce its judge was given")
    assert forged.status == "crashed" and "nonce" in forged.detail


def test_the_clock_running_out_is_a_timeout_naming_the_test_that_hung():
    verdict = _classify(
        finished=_finished(-9, timed_out=True, output="tick\ntick\nti"),
        progress=_progress(running="t::report-shape"),
    )
    assert verdict.status == "timeout"
    assert verdict.running == {"test": "t::report-shape", "invariant": "report-shape"}
    assert dict(verdict.invariants)["report-shape"] == "timeout"
    assert verdict.output_tail == "tick\ntick"  # the line cut by the kill is dropped
    assert verdict.lessons[0]["topic"] == "hang"


def test_a_memory_error_that_reached_the_judge_is_out_of_memory_even_after_a_timeout():
    progress = _progress(running="t::read-only")
    progress.memory_error = "t::truth"
    verdict = _classify(finished=_finished(-9, timed_out=True), progress=progress)
    assert verdict.status == "out-of-memory"
    assert dict(verdict.invariants)["truth"] == "out-of-memory"
    assert dict(verdict.invariants)["read-only"] == "timeout"


def test_a_memory_lesson_from_the_suite_is_out_of_memory_too():
    """The suite may catch the MemoryError itself: its lesson's topic says so."""
    lessons = [
        {
            "invariant": "truth",
            "topic": "memory",
            "test": "t::truth",
            "headline": "evaluate_run ran out of memory",
        }
    ]
    summary = _summary({**dict.fromkeys(NAMES, "PASS"), "truth": "FAIL"}, lessons)
    verdict = _classify(result=_result(summary, exit_code=1))
    assert verdict.status == "out-of-memory"
    assert verdict.running == {"test": "t::truth", "invariant": "truth"}
    assert dict(verdict.invariants)["truth"] == "out-of-memory"


def test_dying_while_the_folder_is_imported_is_an_error_not_a_crash():
    progress = Progress(phase="load")
    verdict = _classify(finished=_finished(3), progress=progress)
    assert verdict.status == "error"
    assert verdict.detail.startswith("the folder cannot be loaded")
    said = _classify(result={"phase": "load", "load_error": "importing x.py failed: E"})
    assert said.status == "error" and "x.py" in said.detail


def test_output_tail_keeps_the_last_whole_lines_only():
    assert output_tail("a\nb\nc\n") == "a\nb\nc"
    assert output_tail("".join(f"{n}\n" for n in range(100))).splitlines()[0] == "80"
    assert len(output_tail("x" * 5000 + "\n" + "y" * 10 + "\n")) <= 2000


# --- the child's files ------------------------------------------------------


def test_a_result_is_believed_only_with_its_nonce_and_shape(tmp_path: Path):
    path = tmp_path / "result.json"
    assert read_result(path, "n") is None  # none at all
    good = {**_result(None), "protocol": 1, "nonce": "n"}
    path.write_text(json.dumps(good))
    assert read_result(path, "n")["complete"] is True
    for bad, why in [
        ({**good, "nonce": "m"}, "nonce"),
        ({**good, "protocol": 2}, "protocol"),
        ({**good, "complete": "yes"}, "complete"),
        ({**good, "phase": None}, "phase"),
        ({**good, "summary": {"verification": "PASS"}}, "summary"),
    ]:
        path.write_text(json.dumps(bad))
        with pytest.raises(Untrusted, match=why):
            read_result(path, "n")
    path.write_text("{not json")
    with pytest.raises(Untrusted, match="not JSON"):
        read_result(path, "n")


def test_a_symlinked_or_special_result_is_not_read(tmp_path: Path):
    real = tmp_path / "elsewhere.json"
    real.write_text(json.dumps({**_result(None), "protocol": 1, "nonce": "n"}))
    link = tmp_path / "result.json"
    link.symlink_to(real)
    with pytest.raises(Untrusted, match="regular file"):
        read_result(link, "n")
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(Untrusted, match="regular file"):
        read_result(fifo, "n")  # and it does not block


def test_progress_is_read_as_far_as_it_makes_sense(tmp_path: Path):
    path = tmp_path / "progress"
    path.write_text(
        '{"phase": "suite"}\n{"collected": [["a", "x"], ["b", "y"]]}\n'
        'garbage\n{"start": "a"}\n{"done": "a"}\n{"start": "b"}\n[1]\n'
    )
    progress = read_progress(path)
    assert progress.running == "b" and progress.invariant_of("b") == "y"
    assert read_progress(tmp_path / "absent").phase == ""


# --- reports and their JSON -------------------------------------------------

_paths = st.text(alphabet="abcdefgh/", min_size=1, max_size=8).map(lambda p: "c/" + p)


@st.composite
def verdicts(draw: st.DrawFn, path: str) -> LearnerVerdict:
    status = draw(st.sampled_from(STATUSES))
    names = draw(st.lists(st.sampled_from(NAMES), unique=True))
    return LearnerVerdict(
        path=path,
        status=status,
        seconds=draw(st.floats(0, 500, allow_nan=False)),
        detail=draw(st.sampled_from(["all hold", "2 of 4 invariants hold", "boom"])),
        invariants=tuple((n, draw(st.sampled_from(INVARIANT_STATUSES))) for n in names),
        lessons=tuple(
            lesson({"invariant": n, "headline": f"{n} broke", "reproduce": "x = 1"})
            for n in names[:1]
        ),
        statements={n: f"{n} holds." for n in names},
        score=draw(st.none() | _scores),
    )


_scores = st.fixed_dictionaries(
    {
        "percent": st.floats(0, 100),
        "earned": st.floats(0, 1e6),
        "possible": st.floats(0, 1e6),
    }
)


@st.composite
def reports(draw: st.DrawFn) -> ClassReport:
    paths = draw(st.lists(_paths, unique=True, max_size=12))
    learners = [draw(verdicts(path)) for path in sorted(paths)]
    return ClassReport(settings=SETTINGS, learners=tuple(learners), seconds=3.0)


def _without_timings(data: dict) -> dict:
    data = {key: value for key, value in data.items() if key != "seconds"}
    data["learners"] = [
        {k: v for k, v in learner.items() if k != "seconds"}
        for learner in data["learners"]
    ]
    return data


@given(reports())
def test_a_report_reads_back_as_itself(report: ClassReport):
    """to_json then from_json is the identity on everything a report says."""
    again = ClassReport.from_json(json.loads(report.dumps()))
    assert again.to_json() == report.to_json()


def test_a_score_may_be_absent_or_null_but_never_malformed():
    learner = ClassReport(SETTINGS, (_failing_learner(),)).to_json()

    def read(**changed) -> ClassReport:
        data = {**learner, "learners": [{**learner["learners"][0], **changed}]}
        data["learners"][0] = {
            k: v for k, v in data["learners"][0].items() if v is not ...
        }
        return ClassReport.from_json(data)

    assert read(score=...).learners[0].score is None  # a report from before scores
    assert read(score=None).learners[0].score is None
    score = {"percent": 62.5, "earned": 15.0, "possible": 24.0}
    assert read(score=score).learners[0].score == score
    for bad in (
        "62.5",
        {"percent": 62.5, "earned": 15.0},
        {**score, "percent": 120.0},
        {**score, "earned": -1.0},
        {**score, "possible": True},
    ):
        with pytest.raises(SchemaError, match="score"):
            read(score=bad)


@given(reports(), st.integers(1, 5))
def test_shards_merged_are_the_unsharded_report(report: ClassReport, count: int):
    """Every learner lands in exactly one shard; merging the parts gives the whole."""
    learners = [Learner(v.path, Path("/nowhere") / v.path) for v in report.learners]
    parts = []
    for index in range(1, count + 1):
        chosen = {learner.path for learner in select(learners, index, count)}
        part = replace(
            report.with_learners([v for v in report.learners if v.path in chosen]),
            shard=Shard(index, count, len(learners)),
        )
        parts.append((f"part{index}.json", ClassReport.from_json(part.to_json())))
    assert sum(len(part.learners) for _, part in parts) == len(learners)
    merged = merge(list(reversed(parts)))
    assert _without_timings(merged.to_json()) == _without_timings(report.to_json())


def test_merge_refuses_parts_that_do_not_fit():
    one = LearnerVerdict("c/a", "pass", 1.0, "ok", (("truth", "pass"),))
    two = LearnerVerdict("c/b", "fail", 1.0, "no", (("truth", "fail"),))
    part1 = ClassReport(SETTINGS, (one,), shard=Shard(1, 2, 2))
    part2 = ClassReport(SETTINGS, (two,), shard=Shard(2, 2, 2))
    assert [v.path for v in merge([("a", part1), ("b", part2)]).learners] == [
        "c/a",
        "c/b",
    ]
    with pytest.raises(SchemaError, match="shard 2/2 is missing"):
        merge([("a", part1)])
    with pytest.raises(SchemaError, match="in both"):
        merge([("a", part1), ("b", replace(part2, learners=(one,)))])
    with pytest.raises(SchemaError, match="different level"):
        merge(
            [("a", part1), ("b", replace(part2, settings={**SETTINGS, "level": "x"}))]
        )
    with pytest.raises(SchemaError, match="schema"):
        ClassReport.from_json({**part1.to_json(), "schema": "day7-verify/0"})


def test_parse_shard_is_strict():
    assert parse_shard("2/3") == (2, 3)
    for bad in ("0/3", "4/3", "1", "a/b", "1/0"):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(bad)


def test_a_baseline_marks_learners_and_invariants():
    old = ClassReport(
        SETTINGS,
        (
            LearnerVerdict(
                "c/a", "pass", 1, "ok", (("truth", "pass"), ("surface", "pass"))
            ),
            LearnerVerdict(
                "c/b", "fail", 1, "no", (("truth", "fail"), ("surface", "pass"))
            ),
        ),
    )
    new = ClassReport(
        SETTINGS,
        (
            LearnerVerdict(
                "c/a", "fail", 1, "no", (("truth", "fail"), ("surface", "pass"))
            ),
            LearnerVerdict(
                "c/b", "pass", 1, "ok", (("truth", "pass"), ("surface", "pass"))
            ),
            LearnerVerdict("c/c", "pass", 1, "ok", (("truth", "pass"),)),
        ),
    )
    marked = {v.path: v.baseline for v in compare(new, old).learners}
    assert marked["c/a"]["change"] == "newly failing"
    assert marked["c/a"]["invariants"] == {
        "truth": "newly failing",
        "surface": "still passing",
    }
    assert marked["c/b"]["change"] == "fixed"
    assert marked["c/c"]["change"] == "new"
    with pytest.raises(SchemaError, match="level"):
        compare(new, replace(old, settings={**SETTINGS, "level": "hardened"}))
    table = "\n".join(class_lines(compare(new, old)))
    assert "newly failing" in table and "X" in table


def test_a_baseline_shows_a_learner_gone_since_as_gone():
    """A learner the baseline judged whose folder is no longer there is told
    as gone in the table, the page and the JSON (issue 36: it was dropped);
    one this run only did not ask for, whose folder is there, is not."""
    from _command_schema import report_problems

    from day7_verify.reports._html import html_page

    old = ClassReport(
        SETTINGS,
        (
            LearnerVerdict("c/a", "pass", 1, "ok", (("truth", "pass"),)),
            LearnerVerdict("c/gone", "fail", 1, "no", (("truth", "fail"),)),
            LearnerVerdict("c/there", "pass", 1, "ok", (("truth", "pass"),)),
        ),
    )
    new = ClassReport(
        SETTINGS, (LearnerVerdict("c/a", "pass", 1, "ok", (("truth", "pass"),)),)
    )
    compared = compare(new, old, present=lambda path: path == "c/there")
    assert compared.gone == (("c/gone", "fail"),)
    table = "\n".join(class_lines(compared))
    assert "gone since the baseline (1)" in table and "c/gone  (was fail)" in table
    assert "c/there" not in table
    page = html_page(compared)
    assert "Gone since the baseline (1)" in page and "c/gone" in page
    data = compared.to_json()
    assert data["gone"] == [{"path": "c/gone", "status": "fail"}]
    assert ClassReport.from_json(json.loads(compared.dumps())).gone == compared.gone
    # This test's settings are partial: only what the schema says of "gone".
    assert not [problem for problem in report_problems(data) if "gone" in problem]
    bad = {**data, "gone": [{"path": "c/gone", "status": 3}]}
    assert [problem for problem in report_problems(bad) if "gone" in problem]
    assert "gone" not in compare(new, new).to_json()


def test_the_page_finds_a_hang_by_its_filter_and_shows_the_whole_world():
    """A learner whose status is fail with an invariant that hung is counted
    and shown by the timeout filter (the legend's ∞), and a lesson whose world
    shows less has the whole world on the page: at once with --verbose,
    one click away without (issue 36: the filter was disabled, the page said
    "--verbose shows the whole world" and offered none)."""
    from day7_verify.reports._html import html_page

    whole = "final: done\nfile a.txt: holds it\nfile b.txt: missing"
    narrowed = (
        "final: done\n1 other fact(s) of the world, not file:a.txt's, not shown"
        " here (--verbose shows the whole world)"
    )
    hung = LearnerVerdict(
        "c/hangs",
        "fail",
        1,
        "1 of 2 invariants hold",
        (("surface", "pass"), ("truth", "timeout")),
        lessons=(
            lesson(
                {
                    "invariant": "truth",
                    "headline": "evaluate_run did not return within 5 s",
                    "world": narrowed,
                    "whole_world": whole,
                    "cause": "hang:evaluation.py:evaluate_run",
                }
            ),
        ),
    )
    fine = LearnerVerdict(
        "c/ok", "pass", 1, "ok", (("surface", "pass"), ("truth", "pass"))
    )
    report = ClassReport(SETTINGS, (hung, fine))
    page = html_page(report)
    button = re.search(r'<button[^>]*data-filter="timeout"[^>]*>', page).group(0)
    assert "disabled" not in button
    assert re.search(
        r'data-filter="timeout"[^<]*<span class="mark"[^>]*>[^<]*</span>'
        r' timeout <span class="n">1</span>',
        page,
    )
    assert 'data-status="fail" data-has="timeout" data-learner="c/hangs"' in page
    assert "return status === filter || has.indexOf(filter) >= 0" in page
    assert "--verbose shows the whole world" not in page
    assert "<summary>the whole world</summary><pre>" in page
    assert "file b.txt: missing" in page
    verbose = html_page(report, verbose=True)
    assert "--verbose shows the whole world" not in verbose
    assert "<summary>" not in verbose.split('<h2 id="lessons">')[1]
    assert "file b.txt: missing" in verbose


def test_help_says_the_number_of_examples_the_profiles_draw():
    """--help's count of examples is the constant the profiles draw (issue 36:
    it said 60 while the code drew 50)."""
    from hypothesis import settings

    from strategies.budget import EXAMPLES, QUICK_EXAMPLES, THOROUGH_EXAMPLES
    from strategies.profiles import CI, DEV, QUICK, THOROUGH, register_profiles

    words = " ".join(_judge_parser().format_help().split())
    assert (
        f"ci and dev draw {EXAMPLES}, thorough {THOROUGH_EXAMPLES},"
        f" quick {QUICK_EXAMPLES}"
    ) in words
    register_profiles()
    for name, count in (
        (CI, EXAMPLES),
        (DEV, EXAMPLES),
        (THOROUGH, THOROUGH_EXAMPLES),
        (QUICK, QUICK_EXAMPLES),
    ):
        assert settings.get_profile(name).max_examples == count


# --- what is written --------------------------------------------------------


def _failing_learner() -> LearnerVerdict:
    return LearnerVerdict(
        path="c/ada",
        status="fail",
        seconds=2.5,
        detail="1 of 3 invariants hold",
        invariants=(("surface", "pass"), ("truth", "fail"), ("read-only", "fail")),
        lessons=(
            lesson({"invariant": "truth", "topic": "substrate", "headline": "S1"}),
            lesson({"invariant": "read-only", "topic": "substrate", "headline": "S2"}),
            lesson(
                {
                    "invariant": "truth",
                    "headline": "got FAIL, but should be PASS",
                    "world": "a file",
                    "hint": "compare bytes",
                    "reproduce": "from agent import evaluate_run\nevaluate_run(...)",
                }
            ),
            lesson(
                {
                    "invariant": "truth",
                    "headline": "got FAIL, but should be PASS",
                    "world": "a file",
                }
            ),
        ),
        statements={
            "surface": "Names exist.",
            "truth": "Facts decide.",
            "read-only": ".",
        },
    )


def test_one_learner_reads_verdict_first_then_lessons_then_invariants():
    lines = learner_lines(_failing_learner(), "course")
    assert lines[0].startswith("day7-verify: FAIL  c/ada: 1 of 3 invariants hold")
    # What to act on comes right under the verdict, before the rows.
    assert lines[1:3] == ["", "What to fix, most basic first:"]
    text = "\n".join(lines)
    assert text.index("What to fix") < text.index("PASS  surface")
    assert text.index("got FAIL") < text.index("PASS  surface")
    # The substrate is said once, first; the repeated lesson once.
    assert text.count("Day 1-6 names") == 1
    assert text.index("Day 1-6 names") < text.index("got FAIL")
    assert text.count("got FAIL, but should be PASS") == 1
    assert "evaluate_run(...)" in text and "Traceback" not in text


def test_verbose_never_advises_an_option_day7_verify_refuses():
    """The suite's note names --hypothesis-verbosity; the command says what is
    true of itself instead."""
    note = (
        "(note: 2 other explicit examples also failed with this error;"
        " add --hypothesis-verbosity=verbose to see them)"
    )
    learner = replace(
        _failing_learner(),
        lessons=(
            lesson({"invariant": "truth", "headline": "got FAIL", "example": [note]}),
        ),
    )
    text = "\n".join(learner_lines(learner, "course", verbose=True))
    assert "2 other explicit examples also failed" in text
    assert "add --hypothesis-verbosity" not in text
    assert "pytest tests --impl-path c/ada --hypothesis-verbosity=verbose" in text
    # And day7-verify itself does refuse the option.
    with pytest.raises(SystemExit):
        _judge_parser().parse_args(["--hypothesis-verbosity=verbose", "c/ada"])


def test_a_call_that_hung_is_a_hang_in_the_terminal_json_and_junit():
    """A run that went on after a call hung (the suite's per-call clock) marks
    that invariant `timeout`, not `fail`: T in the class table, an <error
    type="timeout"> in JUnit saying the hang; the learner stays `fail`."""
    hang = {
        "invariant": "truth",
        "topic": "hang",
        "headline": "evaluate_run(...) did not return within 5 s",
        "cause": "hang:evaluation.py:evaluate_run",
    }
    summary = _summary(
        {
            "surface": "PASS",
            "report-shape": "PASS",
            "truth": "FAIL",
            "read-only": "PASS",
        },
        [hang],
    )
    verdict = _classify(result=_result(summary, exit_code=1))
    assert verdict.status == "fail"
    assert dict(verdict.invariants)["truth"] == "timeout"
    report = ClassReport(SETTINGS, (verdict,))
    [row] = [line for line in class_lines(report) if line.startswith("learners/")]
    assert row.split()[-1] == "..T.."
    [case] = [
        case
        for case in ET.fromstring(junit_xml(report)).iter("testcase")
        if case.get("name") == "truth"
    ]
    [error] = case.findall("error")
    assert error.get("type") == "timeout"
    assert error.get("message") == hang["headline"]


def test_every_broken_day_1_6_name_is_named_without_verbose():
    """The first broken Day 1-6 name is told whole; each other one is a line
    with its place, so a learner knows all of them are to fix."""
    put, modified = (
        lesson(
            {
                "invariant": invariant,
                "topic": "substrate",
                "headline": headline,
                "hint": f"a TODO body; change {name} in {home}",
            }
        )
        for invariant, headline, name, home in (
            ("truth", "the log holds 0 line(s)", "ReceiptStore.put", "receipts.py"),
            (
                "read-only",
                "workspace.modified_files is None",
                "Workspace.modified_files",
                "workspace.py",
            ),
        )
    )
    learner = replace(_failing_learner(), lessons=(put, modified))
    text = " ".join(" ".join(learner_lines(learner, "course")).split())
    assert (
        "also: read-only: workspace.modified_files is None; change"
        " Workspace.modified_files in workspace.py"
    ) in text


def test_verbose_shows_the_whole_world_and_the_default_its_cut():
    """--verbose prints `whole_world`, every line; without it, the cut world."""
    whole = "\n".join(f"file src/f{n}.txt holds the text" for n in range(95))
    cut = "file src/f0.txt holds the text\n… and 94 more line(s) of the world"
    learner = replace(
        _failing_learner(),
        lessons=(
            lesson(
                {
                    "invariant": "truth",
                    "headline": "got FAIL",
                    "world": cut,
                    "whole_world": whole,
                }
            ),
        ),
    )
    verbose = "\n".join(learner_lines(learner, "course", verbose=True))
    assert "src/f94.txt" in verbose and "not shown" not in verbose
    assert "more line(s)" not in verbose
    short = "\n".join(learner_lines(learner, "course"))
    assert "src/f94.txt" not in short and "94 more line(s)" in short


def test_a_reproduction_runs_as_printed_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The printed lines run the snippet with the command's own interpreter,
    from wherever they are pasted: no ModuleNotFoundError for strategies."""
    from judge import load_target
    from judge.verdicts import reproduction
    from strategies import World

    snippet = reproduction(World(), load_target())
    learner = replace(
        _failing_learner(),
        lessons=(
            lesson(
                {"invariant": "truth", "headline": "got FAIL", "reproduce": snippet}
            ),
        ),
    )
    # The command ran somewhere that holds no strategies package of its own.
    ran_in = tmp_path / "where-the-command-ran"
    ran_in.mkdir()
    monkeypatch.chdir(ran_in)
    lines = learner_lines(learner, "course")
    start = next(i for i, line in enumerate(lines) if "reproduce (paste" in line)
    end = lines.index("EOF", start)
    printed = "\n".join(lines[start + 1 : end + 1]) + "\n"
    # Where `strategies` is, not where the command ran: the folder is named
    # by its absolute path, so no `cd` is needed.
    assert printed.startswith(
        f"PYTHONPATH={shlex.quote(str(Path(__file__).resolve().parents[2]))} "
    )
    assert shlex.quote(sys.executable) in printed.splitlines()[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    ran = subprocess.run(
        ["sh", "-c", printed],
        cwd=elsewhere,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert "ModuleNotFoundError" not in ran.stderr
    assert ran.stdout.strip()  # the report, rendered


def test_cohort_progress_is_the_quiet_line_of_each_learner():
    from day7_verify._cli import _progress_line
    from day7_verify.cohort._judge import Judged

    learner = _failing_learner()
    line = _progress_line(2, 5, Judged(learner, 0.0, 0))
    assert line == "[2/5] " + learner_lines(learner, "course", quiet=True)[0]
    assert "1 of 3 invariants hold" in line


def test_quiet_is_the_verdict_line_only():
    learner = _failing_learner()
    lines = learner_lines(learner, "course", quiet=True)
    assert lines == learner_lines(learner, "course")[:1]
    assert lines[0].startswith("day7-verify: FAIL  c/ada: 1 of 3 invariants hold")


def test_a_world_the_substrate_could_not_build_is_said_once_without_a_topic_too():
    learner = replace(
        _failing_learner(),
        lessons=(
            lesson(
                {
                    "invariant": "truth",
                    "headline": "could not build the world"
                    " through the target: after 2 call(s) of ReceiptStore.put"
                    " (receipts.py) the log holds 0 line(s)",
                }
            ),
            lesson(
                {
                    "invariant": "read-only",
                    "headline": "could not build the world"
                    " through the target: after 1 call(s) of ReceiptStore.put"
                    " (receipts.py) the log holds 0 line(s)",
                }
            ),
            lesson({"invariant": "truth", "headline": "report.render() returned None"}),
        ),
    )
    text = "\n".join(learner_lines(learner, "course"))
    assert text.count("could not build the world") == 1
    assert text.index("Day 1-6 names") < text.index("report.render() returned None")


def test_junit_is_xml_with_a_suite_per_learner(tmp_path: Path):
    report = ClassReport(
        SETTINGS,
        (
            _failing_learner(),
            LearnerVerdict("c/bob", "error", 0.1, "cannot load: \x00 bad"),
        ),
    )
    root = ET.fromstring(junit_xml(report))
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == ["c/ada", "c/bob"]
    assert suites[0].get("failures") == "2" and suites[1].get("errors") == "1"
    failure = suites[0].find("testcase[@name='truth']/failure")
    assert failure is not None and "compare bytes" in failure.text


def _level_names() -> list[str]:
    return [*INVARIANT_ORDER, OUTSIDE_WRITES]


def test_a_crashed_learner_lists_exactly_the_levels_invariants_in_every_report():
    """A run that stopped at its second invariant still has every invariant of
    the level: `not-run` where it never got, `skip` for the other level's."""
    progress = Progress(phase="tests")
    progress.collected = [
        (f"t::{name}", name) for name in ("surface", "report-shape", "hostile-worlds")
    ]
    progress.started = ["t::surface", "t::report-shape"]
    progress.done = {"t::surface"}
    progress.outcomes = {"t::surface": "passed"}
    crashed = at_level(_classify(progress=progress), "course")
    passing = at_level(
        _classify(
            result=_result(_summary({"surface": "PASS", "truth": "PASS"})),
        ),
        "course",
    )
    assert crashed.status == "crashed"
    for learner in (crashed, passing):
        assert [name for name, _ in learner.invariants] == _level_names()
    statuses = dict(crashed.invariants)
    assert statuses["surface"] == "pass" and statuses["report-shape"] == "crashed"
    assert {n for n, s in crashed.invariants if s == "skip"} == HARDENED_ONLY
    assert statuses["truth"] == statuses[OUTSIDE_WRITES] == "not-run"
    # JSON
    assert list(crashed.to_json()["invariants"]) == _level_names()
    # Gradescope: the same tests, so the same maximum, as a passing learner.
    judged = [n for n in _level_names() if n not in HARDENED_ONLY]
    for learner in (crashed, passing):
        tests = gradescope_results(learner, "summary")["tests"]
        assert [test["name"] for test in tests] == judged
    assert gradescope_results(crashed, "")["score"] == 0.0
    # JUnit and the table: one case, one cell per invariant for both.
    report = ClassReport(SETTINGS, (crashed, replace(passing, path="learners/bob")))
    root = ET.fromstring(junit_xml(report))
    for suite in root.findall("testsuite"):
        assert [case.get("name") for case in suite.findall("testcase")] == (
            _level_names()
        )
    rows = [line for line in class_lines(report) if line.startswith(("ada", "bob"))]
    marks = [row.split(maxsplit=3)[3].replace(" ", "") for row in rows]
    assert [len(m) for m in marks] == [len(_level_names())] * 2
    shape = _level_names().index("report-shape")
    assert marks[0][0] == "." and marks[0][shape] == "C"


def test_junit_classnames_are_dotted_identifiers_unique_with_the_path_kept():
    paths = sorted(["../class/ada", "class/ada", "./c/bob o'neil", "2024/cy-2/agent"])
    learners = tuple(
        LearnerVerdict(path, "error", 0.1, "cannot load") for path in paths
    )
    root = ET.fromstring(junit_xml(ClassReport(SETTINGS, learners)))
    names = []
    for suite, path in zip(root.findall("testsuite"), paths, strict=True):
        [name] = {case.get("classname") for case in suite.findall("testcase")}
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name)
        prop = suite.find("properties/property[@name='path']")
        assert prop is not None and prop.get("value") == path
        names.append(name)
    assert dict(zip(paths, names, strict=True)) == {
        "../class/ada": "day7.class.ada",
        "class/ada": "day7.class.ada_2",
        "./c/bob o'neil": "day7.c.bob_o_neil",
        "2024/cy-2/agent": "day7._2024.cy_2.agent",
    }
    assert classname("../class/ada") == "day7.class.ada"


def test_gradescope_scores_each_invariant_its_credit_and_a_crash_what_it_proved():
    """Each test is worth its weight and scores its credit (docs/score.md)."""
    learner = replace(
        _failing_learner(),
        invariants=(
            ("surface", "pass"),
            ("specification-refused", "pass"),
            ("truth", "fail"),
            ("read-only", "pass"),
        ),
        checks_made=("final", "files", "results", "receipts"),
    )
    results = gradescope_results(learner, "summary")
    assert results["score"] == 1.5
    assert [test["status"] for test in results["tests"]] == [
        "passed",
        "passed",
        "failed",
        "passed",
    ]
    assert [test["max_score"] for test in results["tests"]] == [0.0, 0.5, 1.0, 1.0]
    # Crashed: the probe runs after the last test, so it never ran, and only
    # what needs no probe earns.
    crashed = replace(learner, status="crashed", checks_made=None)
    assert gradescope_results(crashed, "s")["score"] == 0.5


def test_the_schema_constant_is_versioned():
    assert SCHEMA == "day7-verify/1"
    report = ClassReport(SETTINGS, (_failing_learner(),))
    data = report.to_json()
    assert data["schema"] == SCHEMA
    assert set(data["learners"][0]) >= {
        "path",
        "status",
        "seconds",
        "invariants",
        "lessons",
    }


# --- finding learners -------------------------------------------------------


def _agent(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "evaluation.py").write_text("")
    return folder


def test_a_path_is_a_checkout_or_an_agent_folder(tmp_path: Path):
    _agent(tmp_path / "course" / "src" / "tiny_llm" / "agent")
    _agent(tmp_path / "course" / "src" / "tiny_llm_ref" / "agent")
    found = learner_at(str(tmp_path / "course"))
    assert found.path.endswith("course/src/tiny_llm/agent")
    folder = learner_at(str(tmp_path / "course/src/tiny_llm_ref/agent"))
    assert folder.folder == tmp_path / "course/src/tiny_llm_ref/agent"
    with pytest.raises(UsageError, match="no such file"):
        learner_at(str(tmp_path / "nobody"))


def test_a_cohort_is_every_learner_below_its_root_once(tmp_path: Path):
    """Every learner below ROOT is found once, hidden folders are not
    searched, and a folder under ROOT holding no learner is a row too."""
    root = tmp_path / "class"
    _agent(root / "ada" / "src" / "tiny_llm" / "agent")
    _agent(root / "bob" / "agent")
    _agent(root / "group" / "cy" / "agent")
    (root / ".git").mkdir()
    _agent(root / ".git" / "hidden")
    (root / "empty").mkdir()
    learners = cohort(str(root))
    assert [learner.path for learner in learners] == [
        f"{root}/ada/src/tiny_llm/agent",
        f"{root}/bob/agent",
        f"{root}/empty",
        f"{root}/group/cy/agent",
    ]
    assert [learner.problem is None for learner in learners] == [1, 1, 0, 1]
    again = unique([*learners, learner_at(str(root / "bob" / "agent" / "."))])
    assert len(again) == 4
    with pytest.raises(UsageError, match="no learner folder"):
        cohort(str(root / "empty"))


def test_a_pass_is_counted_from_every_invariant_of_the_level():
    """A child whose summary says PASS while some of the level's invariants are
    missing or said to be skipped does not pass: the command counts them."""
    claimed = _classify(
        result=_result(
            _summary({"surface": "PASS", "truth": "PASS", "determinism": "SKIP"})
        )
    )
    assert claimed.status == "pass"  # what the child's summary claims
    learner = counted(at_level(claimed, "course"), "course")
    statuses = dict(learner.invariants)
    assert statuses["determinism"] == "incomplete"
    assert learner.status == "fail"
    judged = [n for n in _level_names() if n not in HARDENED_ONLY]
    # surface, truth and writes-nothing-outside hold; nothing else ran.
    assert learner.detail.startswith(f"3 of {len(judged)} invariants hold: ")
    # Every invariant of the level holding is a pass, and stays one.
    every = _summary({name: "PASS" for name in judged if name != OUTSIDE_WRITES})
    whole = counted(at_level(_classify(result=_result(every)), "course"), "course")
    assert whole.status == "pass", whole.detail


def test_the_seed_line_judges_again_with_the_level_and_profile_judged_with():
    """The seed line names a level or profile other than the default: another
    draws other examples, so without it the line would not judge again what
    was judged (a `quick` verdict is ten examples a property, not fifty)."""
    from day7_verify.reports._text import seed_line

    assert "`day7-verify a/b --seed 5`" in seed_line("a/b", 5)
    assert "`day7-verify a/b --seed 5`" in seed_line("a/b", 5, "course", "ci")
    assert "`day7-verify a/b --profile quick --seed 5`" in seed_line(
        "a/b", 5, "course", "quick"
    )
    assert "`day7-verify a/b --level hardened --profile thorough --seed 5`" in (
        seed_line("a/b", 5, "hardened", "thorough")
    )
