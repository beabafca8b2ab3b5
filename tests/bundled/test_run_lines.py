"""Every snippet in the page and the JSON comes with the command that runs it.

A plain test says on its first lines where to save it and `python FILE`;
a world no test file builds, the `day7-verify FOLDER --seed N` line; any
other snippet the shell command naming day7-verify's Python (reports/_run.py).
The JSON gives each lesson that line as `run`, the page shows it under
the snippet.
"""

from __future__ import annotations

import json

from _written_worlds import EXAMPLE_WORLDS

from day7_verify.reports._html import html_page
from day7_verify.reports._report import ClassReport, LearnerVerdict, lesson
from day7_verify.reports._run import run_line, runnable
from judge.snippets import lesson_test, redraw_note
from strategies import truth

_PLAIN = lesson_test(
    EXAMPLE_WORLDS["file exact"],
    truth(EXAMPLE_WORLDS["file exact"])[-1],
    level="course",
    folder="/home/ada/tiny-llm/src/tiny_llm/agent",
)
_REDRAW = redraw_note("a FIFO in the workspace", "/home/ada/agent", 7)
_JUDGES = "from judge import load_target\ntarget = load_target(impl='evaluator')\n"


def test_each_kind_of_snippet_has_its_run_line():
    """A plain test's run line is its own `python FILE`, a redraw note's the
    day7-verify line, any other snippet the shell command that runs it."""
    assert run_line(_PLAIN) == "python test_file_src_app_py.py"
    assert f"#     {run_line(_PLAIN)}" in _PLAIN
    assert run_line(_REDRAW) == "day7-verify /home/ada/agent --seed 7"
    # A run drawn with another profile than the default says so: the same
    # seed draws other examples under it.
    quick = redraw_note("a FIFO in the workspace", "/home/ada/agent", 7, "quick")
    assert run_line(quick) == "day7-verify /home/ada/agent --profile quick --seed 7"
    assert run_line(_JUDGES) == runnable(_JUDGES)
    assert run_line("") == ""


def _report() -> ClassReport:
    lessons = tuple(
        lesson({"invariant": "truth", "headline": f"got {n}", "reproduce": snippet})
        for n, snippet in enumerate((_PLAIN, _REDRAW, _JUDGES))
    )
    verdict = LearnerVerdict(
        path="/home/ada/agent",
        status="fail",
        seconds=1.0,
        detail="",
        invariants=(("truth", "fail"),),
        lessons=lessons,
    )
    return ClassReport(settings={"level": "course"}, learners=(verdict,))


def test_the_json_and_the_page_give_every_snippets_run_line():
    """Each lesson of the JSON carries `run`, and the page shows it."""
    data = json.loads(_report().dumps())
    runs = [item["run"] for item in data["learners"][0]["lessons"]]
    assert runs == [run_line(_PLAIN), run_line(_REDRAW), runnable(_JUDGES)]
    page = html_page(_report())
    assert page.count("<dt>run</dt>") == 3
    assert "python test_file_src_app_py.py" in page
    assert "day7-verify /home/ada/agent --seed 7" in page
