"""The lessons beyond one check's verdict get plain tests that say them.

judge/compared.py writes a plain test (judge/snippets.py's kind: the
course's names, the folder on one line, run by a plain `python`) for the
lessons that compare two evaluations (order-insensitivity, independence,
tampered-log), that read the report's verdict or rendering, that give an
argument of a subclass, that find the process changed, or that saw
evaluate_run raise. Here each invariant is run on a planted bug with a
written example; its lesson's test, run by a plain Python, fails with the
lesson's headline on the bug's folder, and passes on the bundled evaluator
(and on the course reference, when $DAY7_COURSE names a checkout).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import learner_folder
from _written_worlds import EXAMPLE_WORLDS
from test_lesson_snippets import as_tested

from day7_verify.reports._causes import FIELD_BOUNDS
from judge import InvariantFailure, load_target
from judge.lessons import PLAIN_MARK
from strategies import PASSING_WORLD
from strategies.cases import WrongArgument, _lookalike
from strategies.perturb import perturbations

# Some 300 plain Pythons, each writing and judging a world: a minute, run
# once (tox: py311). What they share with every plain test (the skeleton, the
# helpers) runs on every interpreter in test_plain_snippets.py.
pytestmark = pytest.mark.once

COURSE = os.environ.get("DAY7_COURSE", "")

#: The working directories a lesson quotes are the judge's process's; a
#: test run elsewhere sees its own.
_WHERE = re.compile(r"(the process's working directory )\(before: .*; after: .*?\)")


def _invariant(module: str, name: str):
    """A property's undecorated body, called with one example; notes are
    only Hypothesis's to keep."""
    import importlib

    tests = importlib.import_module(module)
    tests.note = lambda *args, **kwargs: None
    return getattr(tests, name).hypothesis.inner_test


def _pair(index: int):
    return (PASSING_WORLD, perturbations(PASSING_WORLD)[index])


def _order_case():
    import test_order

    return test_order._reversed("result before_decoy")


def _stores_case():
    import test_truth

    return test_truth._in_memory("receipt match", "inside")


#: (planted code, invariant module, property, its example by argument).
CASES = {
    "store kinds": (
        "bug:memory-store-empty",
        "test_truth",
        "test_memory_and_path_stores_give_the_same_report",
        lambda: {"pair": _stores_case()},
    ),
    "order": (
        "bug:result-first-of-tool-only",
        "test_order",
        "test_reordering_duplicating_or_adding_events_changes_nothing",
        lambda: {"case": _order_case()},
    ),
    "independence flip": (
        "bug:final-smart-case",
        "test_independence",
        "test_one_changed_fact_flips_its_own_check_and_no_other",
        lambda: {"pair": _pair(4)},
    ),
    "independence names": (
        "bug:receipt-named-by-tool",
        "test_independence",
        "test_one_changed_fact_flips_its_own_check_and_no_other",
        lambda: {"pair": _pair(46)},
    ),
    "report verdict": (
        "bug:report-ignores-final",
        "test_report",
        "test_the_report_passes_exactly_when_every_check_passes",
        lambda: {"world": EXAMPLE_WORLDS["final absent"]},
    ),
    "render": (
        "bug:render-trailing-newline",
        "test_report",
        "test_render_follows_its_grammar_line_by_line",
        lambda: {"rows": [("a", True, "x"), ("b", False, "y")]},
    ),
    "subclass": (
        "bug:run-exact-type",
        "test_specification",
        "test_an_instance_of_a_subclass_is_judged_as_its_type",
        lambda: {"position": 0, "name": "MyAgentRun"},
    ),
    "working directory": (
        "bug:directory-changed",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "report none": (
        "returns-none",
        "test_report",
        "test_one_check_per_fact_named_and_ordered_by_the_contract",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "report passed none": (
        "unfinished-report",
        "test_report",
        "test_one_check_per_fact_named_and_ordered_by_the_contract",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "report names": (
        "bug:checks-sorted",
        "test_report",
        "test_one_check_per_fact_named_and_ordered_by_the_contract",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "report read otherwise": (
        "shifting-report",
        "test_report",
        "test_one_check_per_fact_named_and_ordered_by_the_contract",
        lambda: {"world": EXAMPLE_WORLDS["final absent"]},
    ),
    "render none": (
        "unfinished-report",
        "test_report",
        "test_render_follows_its_grammar_line_by_line",
        lambda: {"rows": [("a", True, "x"), ("b", False, "y")]},
    ),
    "render none evaluated": (
        "unfinished-render",
        "test_report",
        "test_an_evaluated_report_renders_its_own_checks",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "passed built directly": (
        "bug:report-passes-empty",
        "test_report",
        "test_a_report_built_directly_passes_exactly_when_every_check_passes",
        lambda: {"rows": []},
    ),
    "passed none built directly": (
        "unfinished-report",
        "test_report",
        "test_a_report_built_directly_passes_exactly_when_every_check_passes",
        lambda: {"rows": [("a", True, "x")]},
    ),
    "wrong argument returned": (
        "returns-none",
        "test_specification",
        "test_a_wrong_argument_is_refused_naming_its_type",
        lambda: {"position": 1, "wrong": WrongArgument("{}", "arguments[p] = {}")},
    ),
    "wrong argument look-alike": (
        "bug:run-duck-typed",
        "test_specification",
        "test_a_wrong_argument_is_refused_naming_its_type",
        lambda: {"position": 0, "wrong": _lookalike("namespace", 0)},
    ),
    "wrong argument raised": (
        "always-raises",
        "test_specification",
        "test_a_wrong_argument_is_refused_naming_its_type",
        lambda: {"position": 0, "wrong": WrongArgument("None", "arguments[p] = None")},
    ),
    "path kept raw": (
        "bug:path-kept-raw",
        "test_specification",
        "test_paths_are_stored_normalised_and_equal_paths_collide",
        lambda: {"path": (("a", "b"), "double_slash")},
    ),
    "artifacts kept raw": (
        "bug:artifacts-kept-raw",
        "test_specification",
        "test_paths_are_stored_normalised_and_equal_paths_collide",
        lambda: {"path": (("a", "b"), "dot_inside")},
    ),
    "determinism": (
        "counts-calls",
        "test_determinism",
        "test_equal_inputs_built_afresh_give_equal_reports",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "stateless repeated": (
        "counts-calls",
        "test_determinism",
        "test_evaluation_keeps_nothing_from_one_call_to_the_next",
        lambda: {"pair": _pair(4), "first": False},
    ),
    "read-only tree": (
        "bug:file-created-when-missing",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["file missing"]},
    ),
    "read-only tool": (
        "bug:file-read-through-tool",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "read-only store": (
        "bug:receipt-content-popped",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["receipt of a write mismatching, in memory"]},
    ),
    "read-only run": (
        "bug:events-sorted-in-place",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["events handed over as a list"]},
    ),
    "read-only case": (
        "bug:case-trimmed",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["final padded_edges"]},
    ),
    "read-only twice": (
        "counts-calls",
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "case refused": (
        "refuses-subfolders",
        "test_truth",
        "test_every_check_says_what_the_world_makes_true",
        lambda: {"world": EXAMPLE_WORLDS["everything at once"]},
    ),
    "raised": (
        "always-raises",
        "test_truth",
        "test_every_check_says_what_the_world_makes_true",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
}


def _plain_python(source: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = cwd / "test_lesson.py"
    script.write_text(source, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [sys.executable, "-I", "-S", str(script)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _repointed(source: str, folder: str) -> str:
    line = f"FOLDER = {folder!r}  # your agent folder"
    return re.sub(r"^FOLDER = .*$", lambda _: line, source, count=1, flags=re.M)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_lessons_plain_test_says_it_and_passes_where_the_work_is_right(
    tmp_path: Path, case: str
):
    """The lesson's test fails with its headline on the planted bug, and
    passes on the bundled evaluator and the course's reference."""
    plant, module, name, example = CASES[case]
    folder = learner_folder(tmp_path, "learner", plant)
    target = load_target(impl_path=folder, level="hardened")
    with pytest.raises(InvariantFailure) as raised:
        _invariant(module, name)(target, **example())
    lesson = raised.value
    assert lesson.reproduce.startswith(PLAIN_MARK), lesson.reproduce[:400]
    # Within what the reports keep of a snippet: a longer one is dropped.
    bound = FIELD_BOUNDS["reproduce"]
    assert len(lesson.reproduce.splitlines()) <= bound.lines
    assert len(lesson.reproduce) <= bound.chars
    ran = _plain_python(lesson.reproduce, tmp_path)
    said = [_WHERE.sub(r"\1(...)", line) for line in ran.stderr.splitlines()]
    headline = as_tested(_WHERE.sub(r"\1(...)", lesson.headline))
    assert f"AssertionError: {headline}" in said, (lesson.headline, ran.stderr)
    clean = learner_folder(tmp_path, "clean")
    ran = _plain_python(_repointed(lesson.reproduce, str(clean)), tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    if COURSE:
        course = "src/tiny_llm_ref/agent"
        ran = _plain_python(_repointed(lesson.reproduce, course), Path(COURSE))
        assert ran.returncode == 0, ran.stderr[-2000:]


def test_a_repeat_test_after_a_world_before_fails_only_where_state_is_kept(
    tmp_path: Path,
):
    """stateless's test for a world met after another at the same paths
    (the world before evaluated as often first, then removed) passes on the
    bundled evaluator and the course reference, and fails, in the lesson's
    words, on an evaluator whose report counts its calls."""
    from types import SimpleNamespace

    from judge.compared import repeat_test

    before, after = PASSING_WORLD, _pair(4)[1].world
    said = "one report for one world, 5 times over"
    source = repeat_test(
        after, before, 5, SimpleNamespace(expected=said), folder="learner"
    )
    for folder, passes in (
        (learner_folder(tmp_path, "clean"), True),
        (learner_folder(tmp_path, "counting", "counts-calls"), False),
    ):
        ran = _plain_python(_repointed(source, str(folder)), tmp_path)
        assert (ran.returncode == 0) is passes, ran.stderr[-2000:]
        if not passes:
            assert "the first time, then" in ran.stderr
            assert f"but should be {said}" in ran.stderr
    if COURSE:
        course = "src/tiny_llm_ref/agent"
        ran = _plain_python(_repointed(source, course), Path(COURSE))
        assert ran.returncode == 0, ran.stderr[-2000:]


def test_a_plain_test_too_long_to_keep_gives_the_day7_verify_line(tmp_path: Path):
    """A lesson met on the largest written world, whose plain test would be
    longer than the reports keep (and so be dropped, leaving no snippet),
    says so and carries the day7-verify line that draws it again, which
    they keep and a learner runs (never the judge's own snippet)."""
    from judge.lessons import REDRAW_MARK, kept_whole

    folder = learner_folder(tmp_path, "learner", "bug:file-created-when-missing")
    target = load_target(impl_path=folder, level="hardened")
    test = _invariant(
        "test_read_only", "test_evaluation_changes_nothing_and_calls_no_tool"
    )
    with pytest.raises(InvariantFailure) as raised:
        test(target, world=EXAMPLE_WORLDS["everything at once"])
    snippet = raised.value.reproduce
    assert snippet and kept_whole(snippet), snippet[:400]
    assert snippet.startswith(f"{REDRAW_MARK} a world whose test"), snippet
    assert f"day7-verify {folder}" in snippet
    assert "import" not in snippet


def _world_tests(folder: str) -> dict[str, str]:
    """One of each world's plain tests a correct evaluator must pass, for
    every written world a test builds plainly, taking turns: the report's
    shape, the case built, the world twice (afresh, and five times in one
    process), evaluation changing nothing (each rule), a wrong argument
    refused, the path normalised, and reports built directly rendered and
    their verdict read (lessons made up for the writer to write from: a
    correct evaluator tells none)."""
    from types import SimpleNamespace

    from test_plain_snippets import PLAIN_WORLDS

    from judge import compared
    from strategies import EXAMPLE_WRONG_ARGUMENTS
    from strategies.cases import ARGUMENT_FIELDS, Spec

    said = {
        "shape": SimpleNamespace(
            observed=f"{compared._EVALUATE} returned None",
            headline=f"{compared._EVALUATE} returned None, but should return an"
            " EvaluationReport",
        ),
        "case": SimpleNamespace(
            headline=f"{compared._NOT_BUILT}FileExpectation('a', 'b') raised X",
            observed="FileExpectation('a', 'b') raised X",
        ),
        "repeat": SimpleNamespace(expected="one report for one world, 5 times over"),
        "calls": SimpleNamespace(expected=compared._NO_CALL, headline=""),
        "tree": SimpleNamespace(expected=compared._SAME_TREE, headline=""),
        "twice": SimpleNamespace(expected=f"{compared._TWICE}x", headline=""),
        **{
            f"state {what}": SimpleNamespace(
                expected=f"{what} unchanged by evaluation",
                headline=f"evaluate_run changed {what}, {compared._LEAVE}",
            )
            for what in compared._STATE
        },
    }
    kinds = ("shape", "case", "determinism", "repeat", "calls", "tree", "twice")
    kinds += tuple(name for name in said if name.startswith("state "))
    sources: dict[str, str | None] = {}
    for number, (name, world) in enumerate(PLAIN_WORLDS.items()):
        kind = kinds[number % len(kinds)]
        lesson = said.get(kind)
        if kind == "shape":
            made = compared.shape_test(world, lesson, folder=folder)
        elif kind == "case":
            made = compared.case_test(world, lesson, folder=folder)
        elif kind == "determinism":
            made = compared.determinism_test(world, None, folder=folder)
        elif kind == "repeat":
            made = compared.repeat_test(world, PASSING_WORLD, 5, lesson, folder=folder)
        else:
            made = compared.read_only_test(world, lesson, folder=folder)
        sources[f"{kind}: {name}"] = made
    for position, wrong in EXAMPLE_WRONG_ARGUMENTS:
        made = [f"p = {position}", f"fields = {ARGUMENT_FIELDS[position]!r}"]
        sources[f"argument {position}: {wrong.what}"] = compared.argument_test(
            PASSING_WORLD,
            f"evaluate_run({wrong.what} at {position})",
            [*made, *wrong.code.splitlines()],
            ("AgentRun", "Workspace", "ReceiptStore", "EvaluationCase")[position],
            folder=folder,
        )
    for written in ("a//b", "./a/b", "a/b/", "a/./b", "b//", "./c"):
        normal = "/".join(part for part in written.split("/") if part not in ("", "."))
        duplicate = Spec(
            f"a case naming {normal!r} and {written!r}",
            ("file paths must be unique",),
            "two spellings of one path are a duplicate",
            code=f"target.EvaluationCase('done', files=(target.FileExpectation("
            f"{normal!r}, '1'), target.FileExpectation({written!r}, '2')))",
        )
        sources[f"normalised {written}"] = compared.normalisation_test(
            written, normal, duplicate, binding=False, folder=folder
        )
    rendered = SimpleNamespace(
        cause="unfinished:render",
        observed="report.render() returned None",
        headline="report.render() returned None, but should return a string",
    )
    passed = SimpleNamespace(
        observed="report.passed is None", headline="report.passed is None, but"
    )
    for number, rows in enumerate(
        [
            [],
            [("final", True, "required final observed")],
            [("a", False, "x"), ("b", True, "y")],
            [("file:100%/{x}, y %s.txt", True, "content matches"), ("é日", False, "")],
        ]
    ):
        sources[f"rendered {number}"] = compared.render_test(
            rendered, folder=folder, rows=rows
        )
        sources[f"passed {number}"] = compared.passed_test(rows, passed, folder=folder)
    assert all(sources.values()), [k for k, v in sources.items() if not v]
    return {name: source for name, source in sources.items() if source}


def test_every_new_plain_test_passes_on_correct_work(tmp_path: Path):
    """A FAIL on correct work is the worst a grader can do: every world's
    shape, case, determinism, repeat and read-only test, every written wrong
    argument's and every path's, and a few reports built directly (rendered,
    their verdict read), run by a plain Python, passes on the
    bundled evaluator and (from its checkout) on the course reference."""
    from test_plain_snippets import _run_all

    folder = learner_folder(tmp_path, "agent")
    said = _run_all(_world_tests(str(folder)), tmp_path, tmp_path / "bundled")
    assert {n: s for n, s in said.items() if s} == {}
    assert len(said) > 150
    if COURSE:
        course = _world_tests("src/tiny_llm_ref/agent")
        said = _run_all(course, Path(COURSE), tmp_path / "course")
        assert {n: s for n, s in said.items() if s} == {}
