"""Every sentence of a lesson is true: each template fired on a planted mistake.

Each test plants one mistake (a stand-in function or report that makes it,
or the bundled evaluator with one name replaced), lets the suite's own code
make the lesson, and checks what the lesson claims against what happened:
the type it names is the type that was raised or returned, the call it
blames is the call that was made, the verdicts it states are the report's
and the truth's, and its hint ends naming the file and the function to
change. The last tests bound the world a lesson shows. docs/lessons.md lists
the templates; each is exercised here or, for the invariants' own, checked
to name its place by `test_every_invariant_template_names_its_place`.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import pickle
import re
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _command_learners import learner_folder
from _written_worlds import EXAMPLE_WORLDS

from evaluator import EvaluationCheck, EvaluationReport
from judge.build import materialise
from judge.calls import call_target, expect_error, report_view, substrate_lesson
from judge.causes import at_frame, raised_where
from judge.fixes import HOME, change_for, changing
from judge.hardened import judge_access, judge_hostile
from judge.lessons import (
    MAX_WORLD_CHARS,
    MAX_WORLD_LINES,
    CallAborted,
    InvariantFailure,
    shown_world,
)
from judge.limits import CallLimits, use_call_limits
from judge.remote import WorkerDied
from judge.target import MissingNameError, load_target
from judge.verdicts import assert_truth, evaluate, judging, shown_row
from strategies.draw import PASSING_WORLD
from strategies.vocabulary import EVALUATE
from strategies.world import World, describe, truth

ROOT = Path(__file__).resolve().parents[2]

# "...; change <name> in <file>" at the end of a hint.
_PLACE = re.compile(r"change (?P<name>[A-Za-z_][\w.]*) in (?P<file>\w+\.py)$")


def place_of(lesson: InvariantFailure | CallAborted) -> tuple[str, str]:
    """The (function, file) a lesson's hint tells the learner to change."""
    match = _PLACE.search(lesson.hint)
    assert match is not None, f"the hint names no place: {lesson.hint!r}"
    return match["name"], match["file"]


@pytest.fixture
def short_limits() -> Iterator[CallLimits]:
    limits = CallLimits(seconds=0.3, after_hang=0.3)
    previous = use_call_limits(limits)
    try:
        yield limits
    finally:
        use_call_limits(previous)


@pytest.fixture(scope="module")
def obeys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A remote target whose evaluate_run("plant:<how>", ...) does <how>
    (_command_learners' `obeys-run`): a hang is ended in its worker."""
    parent = tmp_path_factory.mktemp("obeys")
    target = load_target(impl_path=learner_folder(parent, "obeys", "obeys-run"))
    try:
        yield target
    finally:
        target.client.stop()


@pytest.fixture
def learner_module(tmp_path: Path) -> Callable[[str], types.ModuleType]:
    """A module written as `evaluation.py` in a fresh folder, as a learner's
    would be: a frame in it is the target's, not the suite's."""

    def load(source: str) -> types.ModuleType:
        path = tmp_path / "evaluation.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("planted_evaluation", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


def report_of(rows: list[tuple[str, bool, str]]) -> EvaluationReport:
    return EvaluationReport(tuple(EvaluationCheck(*row) for row in rows))


def true_rows(world: World) -> list[tuple[str, bool, str]]:
    """A report the truth accepts, row by row (an either-way check passes)."""
    rows = []
    for check in truth(world):
        passed = True if check.passed is None else check.passed
        detail = check.detail or "any detail"
        rows.append((check.name, passed, detail + ("x" if check.prefix else "")))
        assert check.accepts(*rows[-1][1:])
    return rows


# --- calls into the target (judge/calls.py) ---------------------------------


@pytest.mark.parametrize(
    "what, error",
    [
        (EVALUATE, ValueError("no such file")),
        (EVALUATE, SystemExit(3)),
        ("report.render()", TypeError("render() takes no arguments")),
        ("ReceiptStore(path).put(receipt)", OSError("disk full")),
    ],
)
def test_a_raised_call_names_the_call_the_type_and_the_place(
    short_limits: CallLimits, what: str, error: BaseException
) -> None:
    """call_target's `raised` template: the call blamed, the exception's
    type and message are the ones raised, the place is the call's home (no
    frame of the raise is in the call's course module)."""

    def planted(*args: Any) -> None:
        raise error

    with pytest.raises(InvariantFailure) as raised:
        call_target(what, planted)
    lesson = raised.value
    assert lesson.__cause__ is error
    assert lesson.headline.startswith(f"{what} raised {type(error).__name__}")
    assert str(error) in lesson.observed
    name = change_for(what)
    assert place_of(lesson) == (name, HOME[name.split(".")[0]])


_HELPER_FOLDER = {
    "workspace.py": (
        "class Workspace:\n"
        "    def resolve_path(self, raw, error):\n"
        "        raise error\n"
    ),
    "evaluation.py": (
        "from workspace import Workspace\n\n\n"
        "def _file_check(raw, error):\n"
        "    return Workspace().resolve_path(raw, error)\n\n\n"
        "def evaluate_run(raw, error):\n"
        "    return [_file_check(raw, error)]\n"
    ),
}


def test_a_raise_names_the_learners_helper_it_escaped_from(
    short_limits: CallLimits, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception a Day 1-6 method raised (as it should) and the learner's
    evaluation helper let through is placed at that helper, not at
    evaluate_run nor the method; two exception types through the same helper
    are one cause."""
    for name, text in _HELPER_FOLDER.items():
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location(
        "evaluation", tmp_path / "evaluation.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    causes = set()
    for error in (ValueError("path does not exist"), OSError("lookup broke")):
        with pytest.raises(InvariantFailure) as raised:
            call_target(EVALUATE, module.evaluate_run, "a.txt", error)
        assert place_of(raised.value) == ("_file_check", "evaluation.py")
        causes.add(raised.value.cause)
    assert causes == {"raises:evaluate_run:_file_check"}


def test_a_missing_name_names_itself_and_its_home(short_limits: CallLimits) -> None:
    """The `surface` template: the name that is missing and where it lives."""
    missing = MissingNameError("evaluate_run is not defined in folder x")

    def planted(*args: Any) -> None:
        raise missing

    with pytest.raises(InvariantFailure) as raised:
        call_target(EVALUATE, planted)
    assert raised.value.headline == f"{EVALUATE} cannot run: {missing}"
    assert (raised.value.topic, raised.value.cause) == (
        "surface",
        "surface:evaluate_run",
    )
    assert place_of(raised.value) == ("evaluate_run", "evaluation.py")


@pytest.mark.parametrize(
    "what, returned, shown, place",
    [
        (EVALUATE, None, "None", ("evaluate_run", "evaluation.py")),
        (
            "run_agent(task, model, workspace, limits)",
            None,
            "None",
            ("run_agent", "loop.py"),
        ),
        ("report.render()", 7, "7", ("EvaluationReport.render", "evaluation.py")),
        (
            EVALUATE,
            types.SimpleNamespace(checks=[], passed=True, render=str),
            "a report whose .checks is []",
            ("evaluate_run", "evaluation.py"),
        ),
    ],
)
def test_a_result_of_the_wrong_shape_names_what_came_back(
    short_limits: CallLimits, what: str, returned: Any, shown: str, place: tuple
) -> None:
    """`_check_shape`: the lesson quotes what the call really returned and
    blames the function that returned it (a report's checks: evaluate_run)."""
    with pytest.raises(InvariantFailure) as raised:
        call_target(what, lambda *args: returned)
    lesson = raised.value
    assert lesson.observed.startswith(f"{what} returned {shown}")
    assert place_of(lesson) == place


def test_a_report_whose_passed_is_none_blames_the_property(
    short_limits: CallLimits,
) -> None:
    """`_report_hint` for .passed: the property is named, and its value."""

    class Unfinished(EvaluationReport):
        @property
        def passed(self) -> bool:
            return None  # type: ignore[return-value]

    report = Unfinished((EvaluationCheck("final", True, "required final observed"),))
    with pytest.raises(InvariantFailure) as raised:
        call_target(EVALUATE, lambda *args: report)
    assert "whose .passed is None" in raised.value.headline
    assert raised.value.cause == "unfinished:EvaluationReport.passed"
    assert place_of(raised.value) == ("EvaluationReport.passed", "evaluation.py")
    with pytest.raises(InvariantFailure) as viewed:
        report_view(report)
    assert viewed.value.headline.startswith("the report's .passed is None")
    assert place_of(viewed.value) == ("EvaluationReport.passed", "evaluation.py")


def test_a_hang_names_the_function_and_line_it_was_running(
    short_limits: CallLimits, obeys: Any
) -> None:
    """`timed_out` through call_target: the file, line and function named are
    where the planted loop is in the worker's stack, and the hint says to
    change that function."""
    with pytest.raises(CallAborted) as raised:
        call_target(EVALUATE, obeys.evaluate_run, "plant:loop", 2, 3, 4)
    lesson = raised.value
    where = re.search(r"running (\S+), line (\d+), in (\w+)$", lesson.headline)
    assert where is not None, lesson.headline
    assert where[1] == "evaluation.py" and where[3] == "_planted_loop"
    source = (Path(obeys.client.config["folder"]) / "evaluation.py").read_text()
    loop = source.splitlines().index("def _planted_loop():") + 1
    assert int(where[2]) in (loop + 1, loop + 2)  # the while or the pass
    assert "within 0.3 s" in lesson.headline
    assert place_of(lesson) == ("_planted_loop", "evaluation.py")
    assert lesson.cause == "hang:evaluation.py:_planted_loop"


def test_memory_and_crash_lessons_blame_the_call(short_limits: CallLimits) -> None:
    """The `memory` and `crash` templates: the call, what happened, its place."""

    def eats(*args: Any) -> None:
        raise MemoryError

    def dies(*args: Any) -> None:
        raise WorkerDied("the worker exited with status -9")

    with pytest.raises(CallAborted) as memory:
        call_target(EVALUATE, eats)
    assert memory.value.headline == f"{EVALUATE} ran out of memory"
    assert place_of(memory.value) == ("evaluate_run", "evaluation.py")
    with pytest.raises(CallAborted) as crash:
        call_target("ReceiptStore.put(receipt)", dies)
    assert crash.value.headline == (
        "ReceiptStore.put(receipt) crashed the process it ran in:"
        " the worker exited with status -9"
    )
    assert place_of(crash.value) == ("ReceiptStore.put", "receipts.py")


def test_expect_error_says_what_happened_instead(short_limits: CallLimits) -> None:
    """expect_error's four templates: what the call returned or raised, the
    message that lacks the words, each placed at the constructor."""
    what = "FileExpectation(path='/etc/passwd', content='x')"
    cases: list[tuple[Callable[[], object], str]] = [
        (
            lambda: "accepted",
            f"{what} returned 'accepted', but should raise ValueError",
        ),
        (_raiser(TypeError("bad path")), f"{what} raised TypeError: bad path"),
        (_raiser(ValueError("nope")), "which does not name 'file path'"),
        (_raiser(MissingNameError("FileExpectation is not defined")), "cannot run"),
    ]
    for thunk, claim in cases:
        with pytest.raises(InvariantFailure) as raised:
            expect_error(what, thunk, world="w", mentions="file path")
        assert claim in raised.value.headline
        assert place_of(raised.value) == ("FileExpectation", "evaluation.py")


def _raiser(error: BaseException) -> Callable[[], object]:
    def thunk() -> object:
        raise error

    return thunk


def test_an_escaping_error_names_the_frame_that_raised_it(
    learner_module: Callable[[str], types.ModuleType],
) -> None:
    """`at_frame` with `raised_where`: the function named is the one whose
    line raised it."""
    module = learner_module(
        "def _receipt_check():\n    raise LookupError\n\n"
        "def evaluate_run():\n    _receipt_check()\n"
    )
    with pytest.raises(LookupError) as raised:
        module.evaluate_run()
    hint = at_frame("report a problem", "", raised_where(raised.value))
    assert hint == "report a problem; change _receipt_check in evaluation.py"


# --- wrong verdicts (judge/verdicts.py) --------------------------------------


def test_a_wrong_verdict_states_the_true_and_the_observed_check() -> None:
    """assert_truth's wrong-verdict template: `expected` is the truth's verdict,
    `observed` the report's row, the world names the fact behind that check."""
    rows = true_rows(PASSING_WORLD)
    index = 1
    name, passed, _ = rows[index]
    rows[index] = (name, not passed, "content does not match")
    with pytest.raises(InvariantFailure) as raised:
        assert_truth(report_of(rows), truth(PASSING_WORLD))
    lesson = raised.value
    check = truth(PASSING_WORLD)[index]
    assert lesson.observed == shown_row(rows[index])
    assert lesson.observed.startswith(f"{name}: {'PASS' if not passed else 'FAIL'}")
    assert lesson.expected.startswith(f"{name}: {'PASS' if passed else 'FAIL'}")
    assert f"the fact behind {name}: {check.fact}" in lesson.world
    assert lesson.cause == f"check:{check.kind.split(':')[0]}"
    assert place_of(lesson) == ("evaluate_run", "evaluation.py")


def test_the_right_verdict_in_wrong_words_says_which_words() -> None:
    """`hint_for`'s wording branch: the binding words are the truth's."""
    world = EXAMPLE_WORLDS["everything at once"]
    rows = true_rows(world)
    index = next(
        i for i, c in enumerate(truth(world)) if c.prefix and c.passed is False
    )
    check = truth(world)[index]
    rows[index] = (check.name, False, "it is broken")
    with pytest.raises(InvariantFailure) as raised:
        assert_truth(report_of(rows), truth(world), level="hardened")
    assert raised.value.hint == (
        f"the detail must start with the words {check.detail.rstrip()!r};"
        " change evaluate_run in evaluation.py"
    )
    assert raised.value.cause == f"detail:{check.kind.split(':')[0]}"


def test_checks_in_the_wrong_order_are_listed_as_they_came() -> None:
    """The names template: both lists are the real ones."""
    rows = true_rows(PASSING_WORLD)
    swapped = [rows[1], rows[0], *rows[2:]]
    with pytest.raises(InvariantFailure) as raised:
        assert_truth(report_of(swapped), truth(PASSING_WORLD))
    lesson = raised.value
    assert lesson.observed == f"checks [{', '.join(r[0] for r in swapped)}]"
    assert lesson.expected == f"checks [{', '.join(r[0] for r in rows)}]"
    assert lesson.cause == "names:order"
    assert place_of(lesson) == ("evaluate_run", "evaluation.py")


# --- hardened judgements (judge/hardened.py) ----------------------------------


def _with(target: Any, **names: object) -> Any:
    return dataclasses.replace(
        target, names=types.MappingProxyType({**target.names, **names})
    )


def test_hostile_lessons_state_what_the_planted_evaluator_did(
    short_limits: CallLimits, tmp_path: Path
) -> None:
    """judge_hostile's templates: a hang (in a worker, ended from outside) says
    so within its seconds, an exception quotes the type raised, a changed
    byte names the file."""
    bundled = load_target()
    world = PASSING_WORLD
    loops = load_target(
        impl_path=learner_folder(tmp_path, "loops", "loops-for-ever"),
        level="hardened",
    )

    def raises(*args: Any) -> None:
        raise LookupError("planted")

    def writes(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        (Path(workspace.policy.root) / "planted.txt").write_text("x")
        return bundled.evaluate_run(run, workspace, receipts, case)

    try:
        with pytest.raises(CallAborted) as hang:
            judge_hostile(loops, world, seconds=0.3)
    finally:
        loops.client.stop()
    assert hang.value.headline.startswith(f"{EVALUATE} did not return within 0.3 s")
    assert place_of(hang.value) == ("evaluate_run", "evaluation.py")
    with pytest.raises(InvariantFailure) as error:
        judge_hostile(_with(bundled, evaluate_run=raises), world, seconds=5)
    assert error.value.observed == f"{EVALUATE} raised LookupError: planted"
    assert place_of(error.value) == ("evaluate_run", "evaluation.py")
    with pytest.raises(InvariantFailure) as changed:
        judge_hostile(_with(bundled, evaluate_run=writes), world, seconds=5)
    assert "planted.txt" in changed.value.observed
    assert place_of(changed.value) == ("evaluate_run", "evaluation.py")


def test_an_error_escaping_everywhere_is_one_cause_in_hostile_worlds(
    tmp_path: Path,
) -> None:
    """An evaluate_run that raises on every world (a uid lookup that fails
    under isolation, say) gets, from hostile-worlds, the cause every other
    invariant gives that raise: one mistake, one lesson (issue 36, item 6)."""
    target = load_target(
        impl_path=learner_folder(tmp_path, "raises", "always-raises"), level="hardened"
    )
    try:
        with pytest.raises(InvariantFailure) as hostile:
            judge_hostile(target, PASSING_WORLD, seconds=5)
        with pytest.raises(InvariantFailure) as called:
            with materialise(PASSING_WORLD, target) as built:
                evaluate(target, built)
    finally:
        target.client.stop()
    assert called.value.cause == "raises:evaluate_run:evaluate_run"
    assert hostile.value.cause == called.value.cause


def test_an_access_outside_the_root_is_named(tmp_path: Path) -> None:
    """judge_access's template: the path opened is the one the planted code
    opened, and the place is evaluate_run."""
    bundled = load_target()
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")

    def peeks(*args: Any) -> Any:
        outside.read_text()
        return bundled.evaluate_run(*args)

    with pytest.raises(InvariantFailure) as raised:
        judge_access(_with(bundled, evaluate_run=peeks), PASSING_WORLD, seconds=5)
    assert "outside.txt" in raised.value.observed
    assert place_of(raised.value) == ("evaluate_run", "evaluation.py")


# --- building a world through the target (judge/build.py) ------------------


def test_a_broken_day_1_6_name_is_blamed_where_it_lives() -> None:
    """`substrate_lesson`: the name blamed is the one whose call failed."""
    inner = InvariantFailure(
        world="",
        expected="ToolPolicy(root) to return normally",
        observed="ToolPolicy(root) raised ValueError: root",
    )
    lesson = substrate_lesson(describe(PASSING_WORLD), inner)
    assert lesson.cause == "substrate:ToolPolicy"
    assert place_of(lesson) == ("ToolPolicy", "workspace.py")
    case = InvariantFailure(
        world="",
        expected="FileExpectation(path, content) to return normally",
        observed="FileExpectation('a', '') raised ValueError: blank",
    )
    assert place_of(substrate_lesson(describe(PASSING_WORLD), case)) == (
        "FileExpectation",
        "evaluation.py",
    )


def test_a_put_that_writes_nothing_blames_receipt_store_put() -> None:
    """The log-building template: the number of puts it states is the number
    made, the lines it states the lines in the log, the place ReceiptStore.put."""
    bundled = load_target()
    puts: list[object] = []

    class Forgetful(bundled.ReceiptStore):  # type: ignore[misc, name-defined]
        def put(self, receipt: Any) -> None:
            puts.append(receipt)  # and never writes its line

    world = next(
        w for w in EXAMPLE_WORLDS.values() if w.receipts and w.log.store == "path"
    )
    with pytest.raises(InvariantFailure) as raised:
        with materialise(world, _with(bundled, ReceiptStore=Forgetful)):
            pass
    assert puts
    assert raised.value.observed == (
        f"after {len(puts)} call(s) of ReceiptStore.put (receipts.py) the log"
        " holds 0 line(s)"
    )
    assert place_of(raised.value) == ("ReceiptStore.put", "receipts.py")


# --- every invariant's template names its place ----------------------------------

_LESSON_CALLS = {"fail", "InvariantFailure"}
_PLACING = {"placed", "hint_for", "at_frame"}


def _templates(folder: Path) -> Iterator[tuple[str, ast.Call]]:
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") in _LESSON_CALLS
            ):
                yield f"{path.name}:{node.lineno}", node


def test_every_invariant_template_names_its_place() -> None:
    """Each fail()/InvariantFailure() of tests/invariants ends its hint with a
    place (placed, hint_for or at_frame), and each place named in words is a
    name the course defines."""
    found = list(_templates(ROOT / "tests" / "invariants"))
    assert len(found) > 40
    for where, call in found:
        hint = next((k.value for k in call.keywords if k.arg == "hint"), None)
        assert isinstance(hint, ast.Call), f"{where}: its hint names no place"
        called = getattr(hint.func, "id", getattr(hint.func, "attr", ""))
        assert called in _PLACING, f"{where}: its hint names no place"
        if called == "placed" and isinstance(hint.args[1], ast.Constant):
            changing(hint.args[1].value)  # raises for a name with no home


# --- the world a lesson shows ----------------------------------------------------


def test_a_hang_on_a_big_world_shows_a_bounded_world(
    short_limits: CallLimits, obeys: Any
) -> None:
    """A hang is never shrunk: its world is cut to MAX_WORLD_LINES lines and
    MAX_WORLD_CHARS characters, and the count of lines left out is true."""
    world = EXAMPLE_WORLDS["everything at once"]
    full = describe(world).splitlines()
    assert len(full) > MAX_WORLD_LINES  # else there is nothing to bound

    with pytest.raises(CallAborted) as raised, judging(world, obeys):
        call_target(EVALUATE, obeys.evaluate_run, "plant:loop", 2, 3, 4)
    assert raised.value.cause == "hang:evaluation.py:_planted_loop"
    shown = raised.value.world.splitlines()
    assert len(shown) <= MAX_WORLD_LINES
    assert len(raised.value.world) <= MAX_WORLD_CHARS
    left = re.search(r"… and (\d+) more line", raised.value.world)
    assert left is not None
    assert int(left[1]) == len(full) - (len(shown) - 1)
    assert shown[0] == full[0]


def test_a_wrong_verdict_on_a_big_world_shows_only_its_checks_facts() -> None:
    """A world a second mistake kept from shrinking (97 lines) is told, for one
    wrong check, by its final, that check's facts (every result of the same
    tool: one may be what it depends on) and a count of the rest: a few lines,
    none cut, as for the same mistake alone."""
    world = EXAMPLE_WORLDS["everything at once"]
    rows = true_rows(world)
    checks = truth(world)
    for index, check in enumerate(checks):
        if not check.name.startswith(("file:src/f7.txt", "result:read_file")):
            continue
        wrong = list(rows)
        name, passed, detail = wrong[index]
        wrong[index] = (name, not passed, detail)
        with pytest.raises(InvariantFailure) as raised, judging(world, load_target()):
            assert_truth(report_of(wrong), checks)
        shown = raised.value.world.splitlines()
        assert "more line(s) of the world" not in raised.value.world
        facts = [line for line in shown if line.startswith(("file ", "result "))]
        subject = name.replace(":", " ", 1)
        assert facts and all(line.startswith(subject) for line in facts), facts
        assert any("other fact(s) of the world" in line for line in shown)
        assert len(shown) <= (12 if name.startswith("result") else 6), shown
        assert shown[-1].startswith(f"the fact behind {name}: ")
        # --verbose shows the world whole: every fact, then the one behind.
        told = raised.value.as_dict()
        assert told["whole_world"].startswith(describe(world))
        assert told["whole_world"].endswith(shown[-1])
        assert pickle.loads(pickle.dumps(raised.value)).as_dict() == told


def test_a_wrong_verdict_on_a_big_world_keeps_the_fact_behind_it() -> None:
    """The cut keeps the last lines: the fact behind the wrong check."""
    world = EXAMPLE_WORLDS["everything at once"]
    rows = true_rows(world)
    name, passed, detail = rows[-1]
    rows[-1] = (name, not passed, detail)
    with pytest.raises(InvariantFailure) as raised, judging(world, load_target()):
        assert_truth(report_of(rows), truth(world))
    shown = raised.value.world
    assert len(shown.splitlines()) <= MAX_WORLD_LINES
    assert len(shown) <= MAX_WORLD_CHARS
    assert shown.splitlines()[-1].startswith(f"the fact behind {name}: ")


def test_a_small_world_is_shown_whole() -> None:
    """Within the bounds the world is unchanged, byte for byte."""
    text = describe(PASSING_WORLD)
    assert shown_world(text) == text
    long_lines = "\n".join("x" * 1000 for _ in range(5))
    cut = shown_world(long_lines)
    assert len(cut) <= MAX_WORLD_CHARS and cut.count("\n") == 4
    assert all(line.endswith("…") for line in cut.splitlines())


def test_every_day7_name_has_one_home_and_no_other_name_has_one() -> None:
    """The places lessons name (judge.fixes.HOME) cover exactly the Day 7
    surface the worker loads (judge.target.REQUIRED_NAMES): a name added
    to one list and not the other would be a lesson with no place, or a
    place for a name the suite never asks for."""
    from judge.target import REQUIRED_NAMES

    assert set(HOME) == set(REQUIRED_NAMES)


def test_docs_show_every_hint_of_a_wrong_final_word_for_word() -> None:
    """docs/lessons.md shows each hint a final's wrong verdict can get, as written."""
    from _written_worlds import FINAL_EXAMPLES

    from strategies.finals import FINAL_KINDS, LOOKALIKES, final_hint

    hints = {final_hint(fact) for fact in FINAL_EXAMPLES.values()}
    hints |= {FINAL_KINDS[name].hint for name in FINAL_KINDS}
    hints |= {hint for _, hint in LOOKALIKES.values()}
    docs = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")
    assert not sorted(hint for hint in hints if f"| {hint} |" not in docs)
