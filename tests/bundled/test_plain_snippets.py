"""A wrong verdict's snippet is a test to keep, and it says what the lesson says.

judge/snippets.py writes, for a lesson about one check's verdict on one
world, a program in plain Python: the learner's folder on one line, loaded
as a package of its own, the world built in a temporary folder with the
course's names, and asserts whose message is the lesson's headline. Here
each is run as a learner would: a plain `python` (`-I -S`: no judge, no
Hypothesis, no site-packages) from the folder's checkout.

- every written world the snippets can build passes on a correct evaluator
  (the bundled one; the course reference too when $DAY7_COURSE names a
  checkout of the course, e.g. one extracted from skyzh/tiny-llm);
- every planted bug (planted/bugs.py) that misjudges a written world gets a
  lesson told on a smaller world (judge/reduce.py), whose snippet fails
  with an AssertionError saying the lesson's headline on the bug's folder,
  and passes on the correct one;
- two mistakes at once still give each lesson a small world.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import QUICK, learner_folder
from _written_worlds import EXAMPLE_WORLDS

from judge import (
    InvariantFailure,
    assert_truth,
    evaluate,
    expect_error,
    judging,
    load_target,
    materialise,
)
from judge.lessons import PLAIN_MARK
from judge.snippets import (
    acceptance_test,
    checkout_root,
    folder_line,
    lesson_test,
    refusal_test,
    why_not_plain,
)
from judge.verdicts import fresh_rows, told_smaller
from planted.bugs import BUGS
from strategies import (
    World,
    example_invalid_specs,
    example_valid_specs,
    truth,
    wrong_type_specs,
)

#: The written worlds a test file builds plainly (no FIFO, no damaged log).
PLAIN_WORLDS = {n: w for n, w in EXAMPLE_WORLDS.items() if not why_not_plain(w)}

#: A course checkout whose src/tiny_llm_ref/agent the snippets must pass on.
COURSE = os.environ.get("DAY7_COURSE", "")


def _plain_python(script: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python script` as a learner runs it: no PYTHON* variable, no site."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [sys.executable, "-I", "-S", str(script)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _causes(body, target, examples) -> set[str]:
    """The causes of the lessons a property's body raises on `examples`."""
    causes = set()
    for example in examples:
        try:
            body(target, **example)
        except InvariantFailure as lesson:
            causes.add(lesson.cause)
    return causes


def _pairs(world, perturbations) -> list[dict]:
    """independence's examples: `world` and each of its perturbations."""
    return [{"pair": (world, change)} for change in perturbations(world)]


def _says_its_headline(failure: InvariantFailure, where: Path) -> str:
    """The lesson's test saved in `where` and run with a plain python: ""
    when it fails with the lesson's headline, else what it said."""
    script = where / "test_lesson.py"
    script.write_text(failure.reproduce, encoding="utf-8")
    ran = _plain_python(script, where)
    return (
        ""
        if f"AssertionError: {failure.headline}" in ran.stderr
        else ran.stderr[-2000:]
    )


def _property(module: str, name: str):
    """A property's undecorated body, called with one example (Hypothesis's
    `note` a no-op outside a test)."""
    import importlib

    tests = importlib.import_module(module)
    tests.note = lambda *args, **kwargs: None
    return getattr(tests, name).hypothesis.inner_test


def _run_all(sources: dict[str, str], cwd: Path, where: Path) -> dict[str, str]:
    """Each source run as `__main__` in one plain Python: "" where it passed,
    else what it raised."""
    where.mkdir()
    paths = []
    for number, source in enumerate(sources.values()):
        path = where / f"test_world_{number}.py"
        path.write_text(source, encoding="utf-8")
        paths.append(str(path))
    runner = where / "run_all.py"
    runner.write_text(
        "import json, runpy, sys\n"
        "out = []\n"
        "for path in sys.argv[2:]:\n"
        "    try:\n"
        "        runpy.run_path(path, run_name='__main__')\n"
        "        out.append('')\n"
        "    except BaseException as error:\n"
        "        out.append(f'{type(error).__name__}: {error}')\n"
        "open(sys.argv[1], 'w').write(json.dumps(out))\n",
        encoding="utf-8",
    )
    outcome = where / "outcome.json"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(runner), str(outcome), *paths],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    said = json.loads(outcome.read_text(encoding="utf-8"))
    return dict(zip(sources, said, strict=True))


def _world_tests(folder: str, level: str) -> dict[str, str]:
    """One test per plain written world: its last check (its own fact's)."""
    return {
        name: lesson_test(world, truth(world)[-1], level=level, folder=folder)
        for name, world in PLAIN_WORLDS.items()
    }


def test_the_snippets_are_plain_python_from_the_learners_checkout(tmp_path: Path):
    """A snippet imports nothing of the judge: only the standard library and
    the folder's own modules, the folder named relative to the checkout."""
    folder = tmp_path / "course" / "src" / "tiny_llm" / "agent"
    source = lesson_test(
        EXAMPLE_WORLDS["everything at once"],
        truth(EXAMPLE_WORLDS["everything at once"])[-1],
        level="course",
        folder=str(folder),
    )
    assert source.startswith(PLAIN_MARK)
    assert "FOLDER = 'src/tiny_llm/agent'" in source
    assert checkout_root(str(folder)) == str(tmp_path / "course")
    imported = {
        line.split()[1]
        for line in source.splitlines()
        if line.startswith(("import ", "from "))
    }
    assert imported <= {
        "os",
        "sys",
        "tempfile",
        "types",
        "pathlib",
        *(f"day7_agent.{m}" for m in ("protocol", "loop", "receipts", "workspace")),
        "day7_agent.evaluation",
    }
    assert "def test_" in source and 'if __name__ == "__main__":' in source
    assert folder_line("/somewhere/else") == "/somewhere/else"


def test_every_plain_written_world_passes_on_the_bundled_evaluator(tmp_path: Path):
    """On a correct evaluator (a copy of the bundled one, as a learner's
    folder), every written world's test passes, run by a plain Python."""
    folder = learner_folder(tmp_path, "agent")
    said = _run_all(_world_tests(str(folder), "hardened"), tmp_path, tmp_path / "t")
    assert {n: s for n, s in said.items() if s} == {}
    assert len(said) > 150  # the written worlds, not a handful of them


@pytest.mark.skipif(not COURSE, reason="$DAY7_COURSE names no course checkout")
def test_every_plain_written_world_passes_on_the_course_reference(tmp_path: Path):
    """The same tests, at the course level, on the course's own reference,
    run from its checkout with the folder written relative to it."""
    folder = Path(COURSE, "src", "tiny_llm_ref", "agent")
    assert (folder / "evaluation.py").is_file(), f"no course at {COURSE}"
    said = _run_all(_world_tests(str(folder), "course"), Path(COURSE), tmp_path / "t")
    assert {n: s for n, s in said.items() if s} == {}


def _first_wrong_verdict(target) -> InvariantFailure | None:
    """The lesson of the first written world whose check the target misjudges."""
    for world in PLAIN_WORLDS.values():
        try:
            with judging(world, target), materialise(world, target) as built:
                assert_truth(evaluate(target, built), truth(world), level=target.level)
        except InvariantFailure as failure:
            if getattr(failure, "misjudged", None) is not None:
                return failure
    return None


def _repointed(folder: Path, level: str, failure: InvariantFailure) -> str:
    """The same lesson's test for another folder (and level)."""
    _, seen = failure.misjudged
    (check,) = [c for c in truth(seen.world) if c.name == seen.name][:1]
    return lesson_test(seen.world, check, level=level, folder=str(folder))


#: Bugs that let chance into a verdict: a snippet cannot reproduce them surely.
_CHANCE = {bug.name for bug in BUGS if "determinism" in bug.catches}


#: A wrong verdict's headline: the check got, its observed detail, and what
#: it should have been.
_GOT = re.compile(
    r"got (?P<got>.+?: (?:PASS|FAIL)) \((?P<detail>.*)\), but should be (?P<should>.+)"
)


def _says(stderr: str, headline: str) -> bool:
    """Whether a plain test's failure says the lesson's headline: word for
    word, or with only the observed detail differing where the detail
    quotes the learner's own environment (a learner who expands `~` reads
    their own HOME, the judge's worker another), the check, its verdict and
    what it should have been the same; a headline the reports cut short,
    by the part they keep."""
    from test_lesson_snippets import as_tested

    headline = as_tested(headline)
    if f"AssertionError: {headline}" in stderr:
        return True
    kept, cut, _ = headline.partition("\n… (cut short)")
    if cut:
        # A headline longer than the reports keep: the part they show.
        said = f"AssertionError: {kept}"
        return any(line.startswith(said) for line in stderr.splitlines())
    told = _GOT.fullmatch(headline)
    if told is None:
        return False
    return any(
        (seen := _GOT.fullmatch(line.removeprefix("AssertionError: "))) is not None
        and seen["got"] == told["got"]
        and seen["should"] == told["should"]
        and seen["detail"].split(":")[0] == told["detail"].split(":")[0]
        for line in stderr.splitlines()
        if line.startswith("AssertionError: got ")
    )


# A worker, a search and three plain Pythons for each of the catalogue's
# bugs: minutes, and nothing of it is the interpreter's.
@pytest.mark.once
def test_every_planted_wrong_verdict_is_told_small_and_its_test_says_the_lesson(
    tmp_path: Path,
):
    """For each planted bug that misjudges a written world: the lesson is
    told on a world of a few facts, and its test, saved and run with a plain
    python from the folder's checkout, fails with an AssertionError whose
    message is the lesson's headline; with the folder pointed at the correct
    evaluator (and the course reference, when given) it passes."""
    clean = learner_folder(tmp_path, "clean")
    course = Path(COURSE, "src", "tiny_llm_ref", "agent") if COURSE else None
    wrong: dict[str, str] = {}
    told: list[str] = []
    for bug in BUGS:
        if bug.name in _CHANCE:
            continue
        folder = learner_folder(tmp_path, bug.name, f"bug:{bug.name}")
        failure = _first_wrong_verdict(load_target(impl_path=folder, level="hardened"))
        if failure is None:
            continue  # its lessons are about other calls than one verdict
        told_smaller(failure)
        told.append(bug.name)
        if len(failure.whole_world.splitlines()) > 6:
            wrong[bug.name] = (
                f"a world of {len(failure.whole_world.splitlines())} lines"
            )
        script = tmp_path / f"test_{bug.name.replace('-', '_')}.py"
        script.write_text(failure.reproduce, encoding="utf-8")
        ran = _plain_python(script, tmp_path)
        if not _says(ran.stderr, failure.headline):
            wrong[bug.name] = f"{failure.headline!r} not in {ran.stderr[-600:]!r}"
        script.write_text(_repointed(clean, "hardened", failure))
        ran = _plain_python(script, tmp_path)
        if ran.returncode != 0:
            wrong[bug.name] = f"fails on the correct evaluator: {ran.stderr[-600:]}"
        if course is not None:
            script.write_text(_repointed(course, "course", failure))
            ran = _plain_python(script, Path(COURSE))
            if ran.returncode != 0:
                wrong[bug.name] = f"fails on the course: {ran.stderr[-600:]}"
    assert wrong == {}
    # One bug of each group of checks at least: the search is not empty.
    assert {
        "final-stripped",
        "file-trailing-blanks",
        "result-split-events",
        "receipt-exit-state-ignored",
    } <= set(told)


def test_two_mistakes_give_the_written_worlds_lesson_a_small_world(tmp_path: Path):
    """A receipt mistake met on "everything at once" (a file mistake beside
    it keeping drawn worlds from showing it alone) is told on the final and
    that receipt alone, and its test fails with the lesson's headline."""
    folder = learner_folder(
        tmp_path, "both", "bug:file-trailing-blanks", "bug:receipt-exit-state-ignored"
    )
    target = load_target(impl_path=folder, level="hardened")
    world: World = EXAMPLE_WORLDS["everything at once"]
    with pytest.raises(InvariantFailure) as raised:
        with judging(world, target), materialise(world, target) as built:
            assert_truth(
                evaluate(target, built),
                truth(world),
                level=target.level,
                only=lambda check: check.name.startswith("receipt:"),
            )
    failure = raised.value
    before = failure.unnarrowed or failure.whole_world
    assert len(before.splitlines()) > 50  # the whole example, before
    assert told_smaller(failure)
    lines = failure.whole_world.splitlines()
    assert len(lines) <= 5, failure.whole_world
    assert sum(line.startswith("receipt '") for line in lines) == 1
    assert not any(line.startswith("file ") for line in lines)
    assert not (said := _says_its_headline(failure, tmp_path)), said


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
def test_a_raise_on_the_written_world_is_told_on_a_small_world(tmp_path: Path):
    """An exception that escapes evaluate_run on "everything at once" (the
    learner's file check catches OSError, not the boundary's AgentError) is
    told on a world of a few facts where it escapes alike, in the words it
    was raised with there; its test fails with that headline on the
    learner's folder and passes on the bundled evaluator (Day 7: a check
    whose evidence is unavailable fails, and a learner reads the smallest
    world that shows the raise)."""
    from judge.compared import raise_test

    folder = learner_folder(tmp_path, "raises", "bug:file-catches-oserror-only")
    target = load_target(impl_path=folder, level="hardened")
    world: World = EXAMPLE_WORLDS["everything at once"]
    with pytest.raises(InvariantFailure) as raised:
        with judging(world, target), materialise(world, target) as built:
            evaluate(target, built)
    failure = raised.value
    assert failure.headline.startswith("evaluate_run(run, workspace, receipts, case)")
    assert " raised AgentError: " in failure.headline
    assert len((failure.unnarrowed or failure.whole_world).splitlines()) > 50
    assert told_smaller(failure)
    lines = failure.whole_world.splitlines()
    assert len(lines) <= 5, failure.whole_world
    assert sum(line.startswith("file ") for line in lines) == 1, failure.whole_world
    assert " raised AgentError: " in failure.headline, failure.headline
    assert failure.reproduce.startswith(PLAIN_MARK), failure.reproduce[:300]
    assert not (said := _says_its_headline(failure, tmp_path)), said
    _, small = failure.raised_on
    clean = learner_folder(tmp_path, "clean")
    script = tmp_path / "test_clean.py"
    script.write_text(raise_test(small, failure, folder=str(clean)), encoding="utf-8")
    ran = _plain_python(script, tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]


def test_a_verdict_wrong_only_after_earlier_calls_gets_the_day7_verify_line():
    """A verdict wrong on a world evaluated after other calls, and right on
    it built afresh (state kept from the calls before), carries the
    day7-verify line that makes those calls again, saying why, never a test
    that evaluates the world once and would pass (Day 7 task 6: a stable
    report does not depend on what came before)."""
    from evaluator import EvaluationCheck, EvaluationReport
    from judge.lessons import REDRAW_MARK
    from judge.snippets import KEPT_STATE

    world = EXAMPLE_WORLDS["file exact"]
    expected = truth(world)
    flipped = EvaluationReport(
        tuple(EvaluationCheck(c.name, not c.passed, "kept") for c in expected)
    )
    with pytest.raises(InvariantFailure) as raised:
        with judging(world, load_target(), "evaluated first"):
            try:
                assert_truth(flipped, expected)
            except InvariantFailure as wrong:
                wrong.cause = "stateless:kept-evidence"
                raise
    said = raised.value.reproduce
    assert said.startswith(f"{REDRAW_MARK} {KEPT_STATE}."), said
    assert "day7-verify " in said and "import" not in said


#: A Day 1-6 store whose put raises on a receipt of a failed call.
_PUT_RAISES = (
    "        previous = self._receipts.get(receipt.tool_call_id)\n"
    "        if previous is not None:\n"
    "            if previous != receipt:\n",
    "        if receipt.exit_state == 'error':\n"
    "            raise KeyError(receipt.tool_call_id)\n",
)


def _substrate_lesson(said: str) -> object:
    from types import SimpleNamespace

    observed = f"{said} raised KeyError: 'x'"
    headline = f"could not build the world through the target: {observed}"
    return SimpleNamespace(topic="substrate", headline=headline, observed=observed)


def _named_call_tests(folder: str) -> dict[str, str]:
    """A substrate lesson's test for every plain written world, and for one
    whose file holds text that reads like the calls."""
    from judge.compared import substrate_test
    from strategies import FileFact

    lookalike = "receipts.put(AgentRun(x)) ReceiptStore() " * 2
    worlds = {
        **PLAIN_WORLDS,
        "calls in a string": World(
            files=(FileFact(index=0, parts=("a.txt",), text=lookalike),)
        ),
    }
    lesson = _substrate_lesson("ReceiptStore.put(receipt)")
    sources = {n: substrate_test(w, lesson, folder=folder) for n, w in worlds.items()}
    assert all(s and "_step('AgentRun(" in s for s in sources.values())
    assert repr(lookalike)[1:-1] in sources["calls in a string"]
    return sources


def test_every_plain_written_world_is_built_by_named_calls_on_a_correct_folder(
    tmp_path: Path,
):
    """A substrate lesson's test builds its world with each Day 1-6 call
    named as the judge names it (`_step`); on a correct folder every
    written world's such test passes, a string that reads like a call
    (drawn text) left as it is."""
    folder = str(learner_folder(tmp_path, "agent"))
    said = _run_all(_named_call_tests(folder), tmp_path, tmp_path / "t")
    assert {n: s for n, s in said.items() if s} == {}


@pytest.mark.skipif(not COURSE, reason="$DAY7_COURSE names no course checkout")
def test_every_plain_written_world_is_built_by_named_calls_on_the_course(
    tmp_path: Path,
):
    """The same tests on the course's own reference, from its checkout."""
    folder = Path(COURSE, "src", "tiny_llm_ref", "agent")
    assert (folder / "evaluation.py").is_file(), f"no course at {COURSE}"
    said = _run_all(_named_call_tests(str(folder)), Path(COURSE), tmp_path / "t")
    assert {n: s for n, s in said.items() if s} == {}


@pytest.mark.once  # the judge's lessons: not the interpreter's
def test_a_day_1_to_6_name_that_raises_gets_a_test_that_says_so(tmp_path: Path):
    """A learner whose ReceiptStore.put raises while the judge builds a
    world is told so with a plain test that builds the world with their
    Day 1-6 names: it fails with the lesson's headline on their folder and
    passes on a correct one (issue 36: every snippet a test the learner
    keeps; Day 7 is judged on Days 1-6 that work)."""
    folder = learner_folder(tmp_path, "puts")
    module = folder / "receipts.py"
    line, planted = _PUT_RAISES
    source = module.read_text(encoding="utf-8")
    assert source.count(line) == 1, "ReceiptStore.put moved: update _PUT_RAISES"
    module.write_text(source.replace(line, planted + line), encoding="utf-8")
    body = _property(*_COUNTED["truth"][:2])
    target = load_target(impl_path=folder, level="hardened")
    with pytest.raises(InvariantFailure) as raised:
        body(target, EXAMPLE_WORLDS["receipt match_error_result"])
    failure = raised.value
    told_smaller(failure)
    assert failure.topic == "substrate", failure.headline
    assert failure.headline.startswith("could not build the world through the")
    assert "ReceiptStore.put(receipt) raised KeyError: " in failure.headline
    assert failure.reproduce.startswith(PLAIN_MARK), failure.reproduce[:300]
    assert not (said := _says_its_headline(failure, tmp_path)), said
    clean = learner_folder(tmp_path, "clean")
    script = tmp_path / "test_clean.py"
    script.write_text(
        failure.reproduce.replace(repr(str(folder)), repr(str(clean))),
        encoding="utf-8",
    )
    ran = _plain_python(script, tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]


@pytest.mark.once  # the judge's lessons: not the interpreter's
def test_a_real_run_a_day_1_to_6_call_broke_gets_the_day7_verify_line(
    tmp_path: Path,
):
    """A real run of the learner's run_agent that one of their Day 1-6 calls
    broke (put raising on a failed command's receipt) is told with the
    day7-verify line that runs it again, saying why no test file builds it,
    never the judge's own snippet (issue 36: snippets a learner can run)."""
    from judge.lessons import REDRAW_MARK
    from strategies.plans import WRITTEN_WORLDS

    folder = learner_folder(tmp_path, "puts")
    module = folder / "receipts.py"
    line, planted = _PUT_RAISES
    source = module.read_text(encoding="utf-8")
    module.write_text(source.replace(line, planted + line), encoding="utf-8")
    body = _property(
        "test_end_to_end", "test_a_real_run_passes_the_case_its_plan_implies"
    )
    target = load_target(impl_path=folder, level="hardened")
    failures = []
    for world in WRITTEN_WORLDS:
        try:
            body(target, world)
        except InvariantFailure as failure:
            failures.append(failure)
    assert failures, "no written real run puts a failed command's receipt"
    for failure in failures:
        assert failure.topic == "substrate", failure.headline
        said = failure.reproduce
        assert said.startswith(f"{REDRAW_MARK} a real run of your own run_agent"), said
        assert f"day7-verify {folder}" in said and "import" not in said


#: Properties whose lessons quote an evaluation's words: their module, name
#: and one example a report that counts its calls breaks.
_COUNTED = {
    "truth": (
        "test_truth",
        "test_every_check_says_what_the_world_makes_true",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "determinism": (
        "test_determinism",
        "test_equal_inputs_built_afresh_give_equal_reports",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "read-only": (
        "test_read_only",
        "test_evaluation_changes_nothing_and_calls_no_tool",
        lambda: {"world": EXAMPLE_WORLDS["file exact"]},
    ),
    "stateless": (
        "test_determinism",
        "test_evaluation_keeps_nothing_from_one_call_to_the_next",
        lambda: {"pair": _pair(4), "first": False},
    ),
    "argument-types": (
        "test_specification",
        "test_an_instance_of_a_subclass_is_judged_as_its_type",
        lambda: {"position": 3, "name": "MyEvaluationCase"},
    ),
}


def _pair(index: int):
    from strategies import PASSING_WORLD
    from strategies.perturb import perturbations

    return (PASSING_WORLD, perturbations(PASSING_WORLD)[index])


def _calls(headline: str) -> list[int]:
    """The call numbers a report that counts its calls quotes."""
    return [int(n) for n in re.findall(r"\(call (\d+)\)", headline)] or [0]


def _after_calls(target, calls: int) -> None:
    """`calls` evaluations made first, as the suite's other tests make them."""
    world = EXAMPLE_WORLDS["file exact"]
    for _ in range(calls):
        with materialise(world, target) as built:
            evaluate(target, built)


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
@pytest.mark.parametrize("invariant", sorted(_COUNTED))
def test_a_lesson_quotes_what_its_test_run_alone_meets(tmp_path: Path, invariant):
    """A lesson whose words come from the learner's report (here a report
    that counts its calls, met after many) is told in the words a fresh
    process gives, so the test a learner keeps, run alone, fails with its
    headline word for word (Day 7 task 6: a stable report; issue 36: every
    snippet reproduces its lesson)."""
    module, name, example = _COUNTED[invariant]
    body = _property(module, name)
    folder = learner_folder(tmp_path, "counting", "counts-calls")
    target = load_target(impl_path=folder, level="hardened")
    _after_calls(target, 30)
    with pytest.raises(InvariantFailure) as raised:
        body(target, **example())
    failure = raised.value
    assert min(_calls(failure.headline)) > 30, failure.headline
    told_smaller(failure)
    # Run alone, its test makes a dozen calls at most.
    assert 0 < max(_calls(failure.headline)) <= 12, failure.headline
    assert failure.reproduce.startswith(PLAIN_MARK), failure.reproduce[:300]
    assert not (said := _says_its_headline(failure, tmp_path)), said


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
@pytest.mark.parametrize("invariant", ["truth", "argument-types"])
def test_a_verdict_a_fresh_process_gets_right_gets_the_day7_verify_line(
    tmp_path: Path, invariant: str
):
    """A verdict wrong only once the learner's process has made a few calls
    (right when the world is judged again in a fresh one) carries the
    day7-verify line that makes those calls again, saying why, never a
    test that judges the world once and would pass (Day 7 task 6: a report
    does not depend on what came before)."""
    from judge.lessons import REDRAW_MARK
    from judge.snippets import NOT_AFRESH

    module, name, example = _COUNTED[invariant]
    body = _property(module, name)
    folder = learner_folder(tmp_path, "late", "wrong-after-calls")
    target = load_target(impl_path=folder, level="hardened")
    _after_calls(target, 3)  # right, then wrong from here on
    with pytest.raises(InvariantFailure) as raised:
        body(target, **example())
    failure = raised.value
    told_smaller(failure)
    said = failure.reproduce
    assert said.startswith(f"{REDRAW_MARK} {NOT_AFRESH}."), said
    assert f"day7-verify {folder}" in said and "import" not in said


# --- every lesson of a class of planted bugs ------------------------------------------

#: Two mistakes at once, as the issue met them: each lesson must still say
#: what its own snippet shows.
_TOGETHER = {
    "strip-and-exit": ("bug:file-trailing-blanks", "bug:receipt-exit-state-ignored"),
    "memory-and-blank": ("bug:receipts-not-reloaded", "bug:blank-only-empty"),
}


#: Learners whose lessons are about concrete calls (the starter's unfinished
#: functions; case types that accept a blank field or rename a path; an
#: evaluate_run that creates the file it was asked to read): their plants,
#: and the invariants each must be told. (A call that hangs, ends its
#: worker or runs out of memory: test_lesson_snippets' aborting class.)
_CALLS = {
    "unfinished": (
        ("returns-none", "unfinished-report", "bug:path-kept-raw"),
        {
            "specification-refused",
            "path-normalisation",
            "argument-types",
            "report-shape",
            "report-verdict",
            "render-grammar",
        },
    ),
    "blank": (
        ("bug:blank-only-empty", "bug:path-unicode-normalised"),
        {"specification-refused", "specification-accepted"},
    ),
    "writes": (("bug:file-created-when-missing",), {"read-only"}),
}


def _planted_class() -> dict[str, tuple[str, ...]]:
    """The learners: one planted bug for each invariant the catalogue names
    (the first bug that names it), the pairs above, and with
    $DAY7_ALL_PLANTED every bug of the catalogue."""
    everyone = os.environ.get("DAY7_ALL_PLANTED") == "1"
    chosen: dict[str, tuple[str, ...]] = dict(_TOGETHER)
    covered: set[str] = set()
    for bug in BUGS:
        if bug.name in _CHANCE:
            continue
        if everyone or not set(bug.catches) <= covered:
            chosen[bug.name] = (f"bug:{bug.name}",)
            covered |= set(bug.catches)
    return chosen


#: A lesson's working directories, before and after: the judge's worker's,
#: where the learner's test sees its own.
_WHERE = re.compile(r"(the process's working directory )\(before: .*; after: .*?\)")


def _said_again(lesson: dict, where: Path) -> str:
    """Why `lesson`'s snippet does not show what the lesson says, or ""."""
    from test_lesson_snippets import _reproduced, _run

    snippet = lesson["reproduce"]
    if snippet.startswith(PLAIN_MARK):
        script = where / "test_lesson.py"
        script.write_text(snippet, encoding="utf-8")
        ran = _plain_python(script, where)
        if _says(ran.stderr, lesson["headline"]):
            return ""  # word for word, or but for the environment it quotes
        said = _WHERE.sub(r"\1(...)", lesson["headline"])
        if said != lesson["headline"] and any(
            _WHERE.sub(r"\1(...)", line) == f"AssertionError: {said}"
            for line in ran.stderr.splitlines()
        ):
            return ""  # the same words, the process's own directories aside
        return f"its test says {ran.stderr[-800:]!r}"
    if snippet.startswith("# This world holds"):
        return "" if "day7-verify " in snippet else "no day7-verify line"
    ran = _run(snippet, where)
    if ran.returncode == 0 and _reproduced(lesson, ran.stdout):
        return ""
    observed = lesson["observed"]
    called = observed.removeprefix("evaluate_run called ").removeprefix("calls to ")
    if lesson["invariant"].startswith("read-only") and called != observed:
        # A tool called: the snippet prints the calls it spied on.
        calls = [c.strip() for c in re.split(r"; |, (?=workspace|receipts)", called)]
        if ran.returncode == 0 and all(repr(c) in ran.stdout for c in calls):
            return ""
    return f"printed {ran.stdout[-800:]!r} {ran.stderr[-400:]!r}"


@pytest.mark.children
def test_every_lesson_of_a_planted_class_says_what_its_snippet_shows(
    tmp_path: Path,
):
    """Every lesson day7-verify gives a class of planted bugs (one per
    invariant the catalogue names, two mistakes at once, and the learners
    of `_CALLS`, each told its invariants) carries a snippet that, run
    where a learner runs it, from another folder, shows what the lesson
    says: a plain test fails with the lesson's headline, a judge snippet
    prints its observation, a redrawn world gives its day7-verify line."""
    import json

    cohort = tmp_path / "class"
    cohort.mkdir()
    plants = {**_planted_class(), **{n: p for n, (p, _) in _CALLS.items()}}
    for name, planted in plants.items():
        learner_folder(cohort, name, *planted)
    report = tmp_path / "class.json"
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHON"))
    }
    finished = subprocess.run(
        [sys.executable, "-m", "day7_verify", *QUICK, "--cohort", str(cohort)]
        + ["--jobs", "2", "--seed", "1", "--json", str(report)],
        cwd=Path(__file__).resolve().parents[2],
        env=environment,
        capture_output=True,
        timeout=3600,
    )
    assert finished.returncode == 1, finished.stderr[-2000:]
    learners = json.loads(report.read_text(encoding="utf-8"))["learners"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert {Path(learner["path"]).name for learner in learners} == set(plants)
    wrong = {}
    for learner in learners:
        name = Path(learner["path"]).name
        lessons = [i for i in learner["lessons"] if i["cause"] != "more-causes"]
        told = {lesson["invariant"] for lesson in lessons}
        assert _CALLS.get(name, ((), set()))[1] <= told, (name, told)
        for lesson in lessons:
            assert lesson["reproduce"], (name, lesson["headline"])
            why = _said_again(lesson, elsewhere)
            if why:
                wrong[f"{name}: {lesson['invariant']} {lesson['cause']}"] = why
    assert wrong == {}


# --- case specifications ----------------------------------------------------------


def _spec_tests(folder: str, binding: bool) -> dict[str, str]:
    """The plain test of every written case specification, valid or not."""
    made: dict[str, str] = {}
    for spec in [*example_invalid_specs(), *wrong_type_specs()]:
        made[f"refused {spec.what}"] = refusal_test(
            spec.what,
            spec.code,
            spec.names,
            binding=binding or spec.binds,
            folder=folder,
        )
    for spec in example_valid_specs():
        made[f"accepted {spec.what}"] = acceptance_test(
            spec.what, spec.code, spec.holds, folder=folder
        )
    return made


def test_every_written_specifications_test_passes_on_the_bundled_evaluator(
    tmp_path: Path,
):
    """On a correct evaluator every case specification's plain test passes:
    the invalid ones are refused naming their field, the valid kept."""
    folder = learner_folder(tmp_path, "agent")
    said = _run_all(_spec_tests(str(folder), True), tmp_path, tmp_path / "t")
    assert {n: s for n, s in said.items() if s} == {}
    assert len(said) > 40


@pytest.mark.skipif(not COURSE, reason="$DAY7_COURSE names no course checkout")
def test_every_written_specifications_test_passes_on_the_course_reference(
    tmp_path: Path,
):
    """The same, at the course level (the words bind where the course fixes
    them), on the course's reference from its checkout."""
    folder = Path(COURSE, "src", "tiny_llm_ref", "agent")
    said = _run_all(_spec_tests(str(folder), False), Path(COURSE), tmp_path / "t")
    assert {n: s for n, s in said.items() if s} == {}


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
def test_a_planted_specification_bugs_test_fails_with_its_lesson(tmp_path: Path):
    """For each planted bug of task 1 (declare the case) that accepts a
    written invalid specification, that specification's plain test fails
    with the headline the judge's lesson gives."""
    wrong: dict[str, str] = {}
    tried = 0
    for bug in BUGS:
        if bug.task != "case":
            continue
        folder = learner_folder(tmp_path, bug.name, f"bug:{bug.name}")
        target = load_target(impl_path=folder, level="hardened")
        for spec in [*example_invalid_specs(), *wrong_type_specs()]:
            source = refusal_test(
                spec.what, spec.code, spec.names, binding=True, folder=str(folder)
            )
            try:
                with judging(World(), target):
                    expect_error(
                        spec.what,
                        lambda s=spec, t=target: s.make(t),
                        ValueError,
                        world="",
                    )
            except InvariantFailure as failure:
                headline = failure.headline
            else:
                continue
            tried += 1
            script = tmp_path / "test_spec.py"
            script.write_text(source, encoding="utf-8")
            ran = _plain_python(script, tmp_path)
            if f"AssertionError: {headline}" not in ran.stderr:
                wrong[f"{bug.name}: {spec.what}"] = ran.stderr[-600:]
            break  # one specification a bug
    assert wrong == {}
    assert tried >= 5


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
def test_a_planted_bug_refusing_a_valid_specification_gets_a_test_that_fails(
    tmp_path: Path,
):
    """For each planted bug of task 1 that refuses (or changes) a written
    valid specification, a subclass of a course class among them, the
    lesson's snippet is a plain test (the subclass made in plain Python,
    never the judge's `recast`) that fails with the lesson's headline."""
    accepted = _property(
        "test_specification", "test_every_valid_specification_is_accepted_as_written"
    )
    wrong: dict[str, str] = {}
    told: set[str] = set()
    for bug in BUGS:
        if bug.task != "case":
            continue
        folder = learner_folder(tmp_path, bug.name, f"bug:{bug.name}")
        target = load_target(impl_path=folder, level="hardened")
        for spec in example_valid_specs():
            try:
                accepted(target, spec)
            except InvariantFailure as failure:
                lesson = failure
            else:
                continue
            told.add(bug.name)
            if not lesson.reproduce.startswith(PLAIN_MARK):
                wrong[f"{bug.name}: {spec.what}"] = lesson.reproduce[:300]
                break
            script = tmp_path / "test_spec.py"
            script.write_text(lesson.reproduce, encoding="utf-8")
            ran = _plain_python(script, tmp_path)
            if f"AssertionError: {lesson.headline}" not in ran.stderr:
                wrong[f"{bug.name}: {spec.what}"] = ran.stderr[-600:]
            break  # one specification a bug
    assert wrong == {}
    assert "case-items-exact-type" in told, sorted(told)


# --- the reduction's bounds ----------------------------------------------------------


def test_a_reduction_keeps_nothing_the_target_does_not_get_wrong(monkeypatch):
    """On a correct evaluator no smaller world shows a misjudgement that was
    never made, so nothing is reduced; and a reduction stops at its bound of
    evaluations, whatever the world."""
    from judge import reduce

    world = EXAMPLE_WORLDS["everything at once"]
    name = truth(world)[-1].name
    seen = reduce.Misjudged(world, name, (name, False, "receipt is absent"), "hardened")
    calls = []
    real = reduce.misjudges

    def counted(target, candidate, seen, rows_of):
        calls.append(candidate)
        return real(target, candidate, seen, rows_of)

    monkeypatch.setattr(reduce, "misjudges", counted)
    assert reduce.reduced(load_target(), seen, fresh_rows, tries=5) is None
    assert 1 <= len(calls) <= 5
    assert all(c.receipts and c.receipts[-1] == world.receipts[-1] for c in calls)


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
def test_a_read_only_lesson_on_the_written_world_is_told_on_a_small_world(
    tmp_path: Path,
):
    """A learner whose file check creates a missing file breaks read-only on
    "everything at once"; the lesson is told again on a world of a few
    facts that breaks it the same way, in that world's words (the root
    named as its test names it), and its plain test fails with them (Day 7
    task 7: evaluation is read-only, and a learner reads the smallest world
    that shows the write)."""
    body = _property(
        "test_read_only", "test_evaluation_changes_nothing_and_calls_no_tool"
    )
    folder = learner_folder(tmp_path, "writes", "bug:file-created-when-missing")
    target = load_target(impl_path=folder, level="hardened")
    with pytest.raises(InvariantFailure) as raised:
        body(target, EXAMPLE_WORLDS["everything at once"])
    failure = raised.value
    assert len((failure.unnarrowed or failure.whole_world).splitlines()) > 50
    assert told_smaller(failure)
    lines = failure.whole_world.splitlines()
    assert len(lines) <= 5, failure.whole_world
    assert failure.expected.startswith("the temporary tree unchanged")
    assert " was created" in failure.headline and "ws-" not in failure.headline
    assert failure.reproduce.startswith(PLAIN_MARK), failure.reproduce[:300]
    assert not (said := _says_its_headline(failure, tmp_path)), said


@pytest.mark.once  # the judge's reductions and lessons: not the interpreter's
def test_wrong_check_names_are_one_lesson_told_on_a_small_world(tmp_path: Path):
    """A report whose checks come in another order is report-shape's names
    lesson, told on a world of a few facts when met on "everything at
    once", its test failing with its headline; the same names mistake met
    by tampered-log and independence carries the same cause, so a learner
    reads it once (Day 7 task 6: stable names in the contract's order)."""
    import importlib

    folder = learner_folder(tmp_path, "names", "bug:receipts-before-results")
    target = load_target(impl_path=folder, level="hardened")
    shape = _property(
        "test_report", "test_one_check_per_fact_named_and_ordered_by_the_contract"
    )
    with pytest.raises(InvariantFailure) as raised:
        shape(target, EXAMPLE_WORLDS["everything at once"])
    failure = raised.value
    assert failure.cause == "names:order"
    assert told_smaller(failure)
    assert len(failure.whole_world.splitlines()) <= 6, failure.whole_world
    assert not (said := _says_its_headline(failure, tmp_path)), said

    from strategies import PASSING_WORLD, perturbations

    renamed = learner_folder(tmp_path, "renamed", "bug:receipt-named-by-tool")
    target = load_target(impl_path=renamed, level="hardened")
    independence = _property(
        "test_independence", "test_one_changed_fact_flips_its_own_check_and_no_other"
    )
    causes = _causes(independence, target, _pairs(PASSING_WORLD, perturbations))
    assert "names:spelling" in causes and "invariant:independence" not in causes
    # Checks sorted: the same mistake, never a leak between the checks a
    # position-by-position comparison would pair (independence, and one
    # wrong fact of a real run).
    from strategies.plans import WRITTEN_WORLDS

    sorting = load_target(
        impl_path=learner_folder(tmp_path, "sorted", "bug:checks-sorted"),
        level="hardened",
    )
    alone = _property(
        "test_end_to_end", "test_each_wrong_fact_fails_only_its_own_check"
    )
    causes = _causes(independence, sorting, _pairs(PASSING_WORLD, perturbations))
    causes |= _causes(alone, sorting, [{"world": w} for w in WRITTEN_WORLDS])
    assert causes == {"names:order"}, causes
    tampering = _property(
        "test_tampering",
        "test_a_tampered_log_fails_every_receipt_check_and_nothing_else",
    )
    from _written_worlds import LOG_EXAMPLES

    made = importlib.import_module("test_tampering")
    case = made._tampered(
        EXAMPLE_WORLDS["everything at once"], LOG_EXAMPLES["non_json"]
    )
    with pytest.raises(InvariantFailure) as raised:
        tampering(target, case=case)
    assert raised.value.cause == "names:spelling", raised.value.headline


def test_a_call_that_hangs_ends_a_reduction_where_it_stands():
    """A smaller world whose call hangs (CallAborted) ends the search: no
    world is tried after it, and the smallest found before it is kept."""
    from judge.lessons import CallAborted
    from judge.reduce import smallest
    from strategies import FileFact

    files = tuple(FileFact(index=n, parts=("src", f"f{n}.txt")) for n in range(8))
    tried, shown = [], []

    def shows(world):
        tried.append(world)
        if len(tried) == 5:
            raise CallAborted(world="", expected="to return", observed="it hung")
        if any(fact.index == 5 for fact in world.files):
            shown.append(world)
            return "same"
        return None

    found = smallest(World(files=files), "", shows)
    assert len(tried) == 5, tried
    assert shown and found == (shown[-1], "same")
    assert len(found[0].files) < len(files)


def test_a_raise_is_reduced_only_while_the_same_exception_escapes_the_same_function():
    """A raise lesson's world is made smaller only while evaluate_run raises
    the same exception type from the same function (its cause): a smaller
    world where another type escapes, or the same type from another
    function, shows another mistake and is not kept."""
    from judge.reduce import reduced_raise
    from strategies import FileFact

    call = "evaluate_run(run, workspace, receipts, case)"

    def lesson(raised: str, cause: str) -> InvariantFailure:
        return InvariantFailure(
            world="",
            expected="to return an EvaluationReport",
            observed=f"{call} raised {raised}",
            headline=f"{call} raised {raised}, but should return an EvaluationReport",
            cause=cause,
        )

    def rows_of(target, world):
        held = {fact.index for fact in world.files}
        if 2 in held:  # the mistake told: KeyError from _file_check
            raise lesson(f"KeyError: 'f{len(held)}'", "raises:evaluate_run:_file_check")
        if 5 in held:  # the same type from another function
            raise lesson("KeyError: 'x'", "raises:evaluate_run:_receipt_check")
        if held:  # another type from the same function
            raise lesson("TypeError: no", "raises:evaluate_run:_file_check")
        return ()

    files = tuple(FileFact(index=n, parts=("src", f"f{n}.txt")) for n in range(8))
    world = World(files=files)
    seen = lesson("KeyError: 'f8'", "raises:evaluate_run:_file_check")
    found = reduced_raise(None, world, seen, rows_of)
    assert found is not None
    small, there = found
    assert [fact.index for fact in small.files] == [2]
    assert there.observed == f"{call} raised KeyError: 'f1'"


def test_the_command_names_a_checkouts_folder_relative_to_its_root(tmp_path: Path):
    """The judge's copy of a folder, on a plain test's FOLDER line, becomes
    the folder as the learner's checkout names it (src/<package>/agent),
    or its absolute path when it sits in no checkout."""
    from day7_verify.cohort._judge import _Normaliser

    copy = tmp_path / "scratch" / "folder" / "agent"
    source = lesson_test(
        EXAMPLE_WORLDS["file exact"],
        truth(EXAMPLE_WORLDS["file exact"])[-1],
        level="course",
        folder=str(copy),
    )
    assert f"FOLDER = {str(copy)!r}" in source
    for real, line in (
        (tmp_path / "ada" / "src" / "tiny_llm" / "agent", "src/tiny_llm/agent"),
        (tmp_path / "ada" / "mine", str(tmp_path / "ada" / "mine")),
    ):
        clean = _Normaliser(copy, "typed", tmp_path / "scratch", tmp_path / "t", real)
        assert f"FOLDER = {line!r}  # your agent folder" in clean.text(source)
