"""The command end to end: a one-mistake folder reads as one clear lesson.

Learners judged by real children, copies of the bundled evaluator
(tests/bundled/_command_learners.py): one whose `passed` is true on an empty
report (its `render` is right: no render lesson), one without evaluation.py
(one line saying so, not a lesson per missing name), one whose result check
looks only at the first event of the tool, one whose result check helper
looks only at the last (naming that helper), and one whose receipt lookup
lets errors through (each one lesson, the last naming the helper it escaped
from), and one whose Day 1-6
`Workspace.modified_files` is still a TODO (the read-only lesson names it,
with a world, a hint and a snippet, not a bare TypeError). Marked `children`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import QUICK, ROOT, command_environment, learner_folder

pytestmark = pytest.mark.children

_MODIFIED = "        return tuple(sorted(self._modified))\n"
# The bundled _result_check's search, and a learner's that reads only the
# last result of the tool.
_RESULT_FOUND = (
    "    found = _result_found(\n"
    "        gathered[expected.tool], joined[expected.tool], expected.contains\n"
    "    )\n"
)
_LAST_RESULT_ONLY = (
    "    found = expected.contains in (gathered[expected.tool] or [''])[-1]\n"
)


# The bundled _file_check's bounded read, and a learner's that reads the
# whole file and decodes it, catching only OSError (issue 36: the chapter's
# likeliest slip lets UnicodeDecodeError escape).
_OBSERVE = "        observed = observe_text(root, resolved, expected_bytes)\n"
_DECODES = "        observed = resolved.read_bytes().decode('utf-8')\n"
_FINAL_IS_TEXT = "        and isinstance(final, str)\n"


def _replaced(folder: Path, old: str, new: str) -> None:
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(old) == 1, f"{old.strip()!r} moved"
    module.write_text(source.replace(old, new), encoding="utf-8")


def _cohort(parent: Path) -> None:
    _replaced(learner_folder(parent, "decode-escapes"), _OBSERVE, _DECODES)
    _replaced(learner_folder(parent, "final-none-raises"), _FINAL_IS_TEXT, "")
    learner_folder(parent, "always-raises", "always-raises")
    learner_folder(parent, "in-memory-store", "bug:receipts-not-reloaded")
    # Two mistakes: render's verdict word in lower case, and a file check
    # that accepts a file with one more trailing newline.
    lower = learner_folder(parent, "render-lower-and-file", "bug:file-trailing-newline")
    _replaced(
        lower,
        'return "PASS" if passed else "FAIL"',
        'return "pass" if passed else "FAIL"',
    )
    learner_folder(parent, "passes-empty", "bug:report-passes-empty")
    learner_folder(parent, "first-of-tool", "bug:result-first-of-tool-only")
    learner_folder(parent, "lookup-escapes", "bug:receipt-lookup-error-escapes")
    helper = learner_folder(parent, "last-result-helper") / "evaluation.py"
    source = helper.read_text(encoding="utf-8")
    assert source.count(_RESULT_FOUND) == 1, "_result_check moved"
    helper.write_text(source.replace(_RESULT_FOUND, _LAST_RESULT_ONLY))
    (learner_folder(parent, "no-evaluation") / "evaluation.py").unlink()
    todo = learner_folder(parent, "modified-files-todo") / "workspace.py"
    source = todo.read_text(encoding="utf-8")
    assert source.count(_MODIFIED) == 1, "Workspace.modified_files moved"
    todo.write_text(source.replace(_MODIFIED, "        return None  # TODO\n"))


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    cohort = tmp_path_factory.mktemp("lessons")
    _cohort(cohort)
    out = tmp_path_factory.mktemp("reports") / "class.json"
    environment = command_environment()
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            "--cohort",
            str(cohort),
            "--jobs",
            "2",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    yield {
        "finished": finished,
        "text": out.read_text(encoding="utf-8"),
        "learners": {Path(x["path"]).name: x for x in data["learners"]},
    }


def test_passed_true_on_an_empty_report_is_one_lesson_and_render_holds(judged):
    """A wrong `passed` with a right `render` is report-verdict's lesson only."""
    learner = judged["learners"]["passes-empty"]
    assert learner["status"] == "fail", judged["finished"].stderr
    assert learner["invariants"]["report-verdict"] == "fail"
    assert learner["invariants"]["render-grammar"] == "pass"
    assert [lesson["invariant"] for lesson in learner["lessons"]] == ["report-verdict"]


def test_a_folder_without_evaluation_py_is_one_line_saying_so(judged):
    learner = judged["learners"]["no-evaluation"]
    assert learner["status"] == "error"
    assert "no evaluation.py" in learner["detail"]
    assert "\n" not in learner["detail"]
    assert learner["lessons"] == []


def test_a_todo_modified_files_is_a_lesson_naming_it_not_a_type_error(judged):
    """The read-only test reads workspace.modified_files: a TODO there is a
    substrate lesson with its world, hint and snippet."""
    learner = judged["learners"]["modified-files-todo"]
    assert learner["status"] == "fail", judged["finished"].stderr
    assert learner["invariants"]["read-only"] != "pass"
    [told] = [
        lesson for lesson in learner["lessons"] if "read-only" in lesson["invariants"]
    ]
    assert told["cause"] == "substrate:Workspace.modified_files"
    assert told["world"] and told["reproduce"]
    assert "change Workspace.modified_files in workspace.py" in told["hint"]
    assert not any(
        lesson["headline"].startswith("TypeError") for lesson in learner["lessons"]
    )


def test_no_report_advises_a_pytest_option_the_command_does_not_take(judged):
    assert "--hypothesis-verbosity" not in judged["text"]


def test_a_result_check_wrong_on_many_kinds_of_fact_is_one_lesson(judged):
    """Wrong on a repeated result, a reordered run, a real run's and another
    fact's change: one mistake in the result check, one lesson naming all."""
    learner = judged["learners"]["first-of-tool"]
    assert learner["status"] == "fail", judged["finished"].stderr
    [told] = learner["lessons"]
    assert told["cause"] == "check:result"
    assert {"truth", "order-insensitivity"} <= set(told["invariants"])
    assert "more line(s) of the world" not in told["world"]


def test_a_wrong_verdict_built_in_a_helper_is_one_lesson(judged):
    """A result check built wrong in the learner's _result_check: one lesson,
    whose hint says to change _result_check, the function seen building the
    check the report holds (judge/maker.py)."""
    learner = judged["learners"]["last-result-helper"]
    assert learner["status"] == "fail", judged["finished"].stderr
    [told] = learner["lessons"]
    assert told["cause"] == "check:result"
    assert told["hint"].endswith("; change _result_check in evaluation.py")


def test_errors_escaping_one_helper_are_one_lesson_naming_it(judged):
    """AgentError from one store, OSError from another, both through
    _receipt_check: one lesson, whose hint says to change _receipt_check."""
    learner = judged["learners"]["lookup-escapes"]
    assert learner["status"] == "fail", judged["finished"].stderr
    [told] = learner["lessons"]
    assert told["cause"] == "raises:evaluate_run:_receipt_check"
    assert told["hint"].endswith("change _receipt_check in evaluation.py")


def test_an_escaping_unicode_error_is_named_as_raised_with_its_helper(judged):
    """UnicodeDecodeError escaping the learner's _file_check is told as that
    error, escaping that helper (issue 36: it was told as 'TypeError:
    function takes exactly 5 arguments (1 given)', the judge's own error)."""
    learner = judged["learners"]["decode-escapes"]
    assert learner["status"] == "fail", judged["finished"].stderr
    raised = [lesson for lesson in learner["lessons"] if "raised" in lesson["headline"]]
    assert raised, learner["lessons"]
    for lesson in raised:
        assert "raised UnicodeDecodeError: 'utf-8' codec" in lesson["headline"]
        assert "UnicodeDecodeError escaped from _file_check" in lesson["hint"]
        assert lesson["hint"].endswith("change _file_check in evaluation.py")
    assert "function takes exactly" not in judged["text"]


def test_a_raise_on_a_none_final_is_not_told_it_was_unavailable_evidence(judged):
    """A final check that raises on final=None is told what escaped from where,
    not a guess that unavailable evidence caused it."""
    learner = judged["learners"]["final-none-raises"]
    assert learner["status"] == "fail", judged["finished"].stderr
    raised = [lesson for lesson in learner["lessons"] if "raised" in lesson["headline"]]
    assert raised, learner["lessons"]
    for lesson in raised:
        assert "unavailable evidence" not in lesson["hint"], lesson["hint"]
        assert "TypeError escaped from _final_check" in lesson["hint"], lesson["hint"]


def test_a_probe_that_always_raises_is_one_lesson_not_told_about_subclasses(judged):
    """An evaluate_run that raises on every call is one lesson that says it
    raises, never told to use isinstance rather than type() is (a hint from
    the world that found it, not from what the code did)."""
    learner = judged["learners"]["always-raises"]
    assert learner["status"] == "fail", judged["finished"].stderr
    for lesson in learner["lessons"]:
        assert "isinstance(" not in lesson["hint"], lesson
        assert lesson["cause"] != "argument:subclass", lesson
    # One mistake, one lesson: its refusal of a wrong argument with the wrong
    # exception is the same raise, not a lesson of its own.
    causes = [lesson["cause"] for lesson in learner["lessons"]]
    assert causes == ["raises:evaluate_run:evaluate_run"], causes
    assert "RuntimeError escaped from evaluate_run" in learner["lessons"][0]["hint"]


def test_receipts_asked_of_the_store_in_memory_are_one_lesson(judged):
    """A receipt check that asks the store it was given instead of reloading
    the log is one lesson (check:receipt), naming stateless among what it
    breaks: the stale verdict after the log was rewritten is right once the
    store is reloaded, so it is that mistake, not state kept by evaluation."""
    learner = judged["learners"]["in-memory-store"]
    assert learner["status"] == "fail", judged["finished"].stderr
    causes = [lesson["cause"] for lesson in learner["lessons"]]
    assert causes == ["check:receipt"], causes
    assert "stateless" in learner["lessons"][0]["invariants"]


def test_one_render_mistake_is_one_lesson_and_a_second_mistake_its_own(judged):
    """render() with a lower-case PASS breaks render-grammar and the chapter
    scenario: one lesson (render:grammar); the file check's mistake beside it
    is a lesson of its own, not hidden by it."""
    learner = judged["learners"]["render-lower-and-file"]
    assert learner["status"] == "fail", judged["finished"].stderr
    by_cause = {lesson["cause"]: lesson for lesson in learner["lessons"]}
    assert set(by_cause) == {"render:grammar", "check:file"}, list(by_cause)
    render = by_cause["render:grammar"]["invariants"]
    assert {"render-grammar", "chapter-scenario"} <= set(render)
