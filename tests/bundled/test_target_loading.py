"""The target loader, the profiles, and the end-of-run verification summary.

These are tests of the suite's own machinery, on small fake course folders
made here: a folder loads without running its __init__.py, missing names
become stand-ins that say so, a bad target is one line, and a whole pytest
run ends with the invariant summary and its JSON form.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import settings

from judge.calls import call_target, expect_error, report_view
from judge.lessons import InvariantFailure, fail
from judge.target import (
    DAY7_MODULES,
    REQUIRED_NAMES,
    MissingNameError,
    TargetError,
    load_target,
)
from strategies.profiles import CI, DEV, THOROUGH, choose_profile
from worker.serve import PACKAGE

ROOT = Path(__file__).resolve().parents[2]
CONFTEST = ROOT / "tests" / "conftest.py"

EVALUATION_NAMES = (
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
    "EvaluationCase",
    "EvaluationCheck",
    "EvaluationReport",
    "evaluate_run",
)

# A fake course agent folder: the seven Day 7 modules with relative imports,
# just enough of each type to be loaded, and an __init__.py that must never
# run (the real one imports an Apple-only array library).
COURSE = {
    "__init__.py": "raise RuntimeError('the package __init__ must not run')\n",
    "protocol.py": """
        from dataclasses import dataclass

        class AgentError(ValueError):
            pass

        @dataclass(frozen=True)
        class FinalAction:
            final: str

        @dataclass(frozen=True)
        class ToolAction:
            tool: str
            arguments: dict
    """,
    "receipts.py": """
        from dataclasses import dataclass

        @dataclass(frozen=True)
        class EffectReceipt:
            tool_call_id: str
            tool: str
            arguments: dict
            exit_state: str
            result: str
            changed_artifacts: tuple = ()

        @dataclass
        class ReceiptStore:
            path: object = None
    """,
    "workspace.py": """
        from dataclasses import dataclass, field
        from .receipts import ReceiptStore

        @dataclass(frozen=True)
        class ToolPolicy:
            root: object
            max_file_bytes: int = 65536
            max_list_entries: int = 200
            allow_writes: bool = False
            allowed_commands: tuple = ()
            max_write_bytes: int = 65536
            command_timeout_seconds: float = 30.0

        @dataclass
        class Workspace:
            policy: ToolPolicy
            confirm_tool: object = None
            receipt_store: ReceiptStore = field(default_factory=ReceiptStore)
    """,
    "generation.py": "Message = dict\n",
    "checkpoint.py": "from .generation import Message\n",
    "loop.py": """
        from dataclasses import dataclass
        from .protocol import FinalAction, ToolAction
        from .checkpoint import Message

        @dataclass(frozen=True)
        class AgentEvent:
            step: int
            response: str
            action: object
            result: object

        @dataclass(frozen=True)
        class AgentRun:
            completed: bool
            reason: str
            final: object
            events: tuple
            modified_files: tuple = ()

        @dataclass(frozen=True)
        class AgentLimits:
            max_steps: int = 8
            max_context_chars: int = 48_000
            max_invalid_actions: int = 3
            max_identical_actions: int = 2

        def run_agent(task, generate, workspace, limits=None, on_event=None):
            return AgentRun(True, "completed", "done", ())
    """,
    "evaluation.py": """
        from dataclasses import dataclass
        from .loop import AgentRun

        @dataclass(frozen=True)
        class FileExpectation:
            path: str
            content: str

        @dataclass(frozen=True)
        class ResultExpectation:
            tool: str
            contains: str

        @dataclass(frozen=True)
        class ReceiptExpectation:
            tool_call_id: str
            tool: str
            exit_state: str
            result_contains: str
            changed_artifacts: tuple = ()

        @dataclass(frozen=True)
        class EvaluationCase:
            final_contains: str
            files: tuple = ()
            results: tuple = ()
            receipts: tuple = ()

        @dataclass(frozen=True)
        class EvaluationCheck:
            name: str
            passed: bool
            detail: str

        @dataclass(frozen=True)
        class EvaluationReport:
            checks: tuple

            @property
            def passed(self):
                return bool(self.checks) and all(c.passed for c in self.checks)

            def render(self):
                return "evaluation: PASS" if self.passed else "evaluation: FAIL"

        def evaluate_run(run, workspace, receipts, case):
            passed = run.completed and case.final_contains in (run.final or "")
            return EvaluationReport((EvaluationCheck("final", passed, "detail"),))
    """,
}

EMPTY: Mapping[str, str] = {}

STARTER_EVALUATE = """
        def evaluate_run(run, workspace, receipts, case):
            pass
"""


def make_course(
    root: Path, *, drop: tuple[str, ...] = (), replace: Mapping[str, str] = EMPTY
) -> Path:
    """Write the fake course folder under `root`, minus `drop`, with files replaced."""
    folder = root / "agent"
    folder.mkdir()
    for name, text in {**COURSE, **replace}.items():
        if name not in drop:
            (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def make_starter(root: Path) -> Path:
    evaluation = COURSE["evaluation.py"].split("        def evaluate_run")[0]
    return make_course(root, replace={"evaluation.py": evaluation + STARTER_EVALUATE})


# ----------------------------------------------------------------- the loader


def test_a_course_folder_loads_without_running_its_init(tmp_path: Path) -> None:
    """A course folder loads its Day 7 modules and never runs __init__.py; a
    folder as at Day 7 (no Day 8 ApprovalDecision) misses no name."""
    folder = make_course(tmp_path)
    target = load_target(impl_path=folder)
    assert target.label == f"folder {folder}"
    assert (target.level, target.bundled, target.missing) == ("course", False, ())
    assert tuple(target.names) == REQUIRED_NAMES
    assert target.remote  # its code runs in a worker, never here
    assert target.describe("AgentError")["value_error"]
    run = target.AgentRun(True, "completed", "all done", ())
    case = target.EvaluationCase("done")
    report = call_target(
        "evaluate_run(...)", target.evaluate_run, run, None, None, case
    )
    assert report_view(report) == (("final", True, "detail"),)
    assert target.EvaluationCase is target.names["EvaluationCase"]


def test_the_loader_leaves_no_bytecode_in_the_folder(tmp_path: Path) -> None:
    """Loading a learner's folder writes nothing into it."""
    folder = make_course(tmp_path)
    before = sorted(p.name for p in folder.iterdir())
    load_target(impl_path=folder)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_two_loads_of_one_folder_are_independent(tmp_path: Path) -> None:
    """Each load is its own worker: nothing of one is shared with the other."""
    folder = make_course(tmp_path)
    first, second = load_target(impl_path=folder), load_target(impl_path=folder)
    assert first.EvaluationCase is not second.EvaluationCase
    assert first.client is not second.client
    assert first.client.process.pid != second.client.process.pid


def test_a_starter_returning_none_reads_as_a_lesson(tmp_path: Path) -> None:
    """An unfinished evaluate_run (a `pass` body) fails with a sentence."""
    target = load_target(impl_path=make_starter(tmp_path))
    run = target.AgentRun(True, "completed", "done", ())
    with pytest.raises(InvariantFailure) as raised:
        call_target(
            "evaluate_run(run, workspace, receipts, case)",
            target.evaluate_run,
            run,
            None,
            None,
            target.EvaluationCase("done"),
        )
    assert str(raised.value).splitlines()[0] == (
        "evaluate_run(run, workspace, receipts, case) returned None,"
        " but should return an EvaluationReport"
    )


def test_missing_names_become_stand_ins(tmp_path: Path) -> None:
    """A folder without evaluation.py loads; its Day 7 names are stand-ins."""
    folder = make_course(tmp_path, drop=("evaluation.py",))
    target = load_target(impl_path=folder)
    assert target.missing == EVALUATION_NAMES
    message = f"EvaluationCase is not defined in folder {folder}"
    with pytest.raises(MissingNameError, match=message):
        target.EvaluationCase("x")
    with pytest.raises(MissingNameError, match=message):
        target.EvaluationCase.some_class_attribute  # noqa: B018
    assert not isinstance(object(), target.EvaluationCase)
    assert not issubclass(int, target.EvaluationCase)
    assert "missing EvaluationCase" in repr(target.EvaluationCase)
    with pytest.raises(InvariantFailure, match="cannot run: evaluate_run is not"):
        call_target("evaluate_run(...)", target.evaluate_run, None, None, None, None)
    # Code that merely catches the missing error type still runs.
    with pytest.raises(KeyError):
        try:
            raise KeyError("real")
        except target.FileExpectation:
            pass


# Learner code that runs at import time: (module, code appended to it).
IMPORT_TIME_CODE = {
    "exits": ("protocol.py", "\nraise SystemExit(0)\n"),
    "interrupts": ("loop.py", "\nraise KeyboardInterrupt\n"),
    "closes": ("loop.py", "\nraise GeneratorExit\n"),
    "loops": ("evaluation.py", "\nwhile True:\n    pass\n"),
}


@pytest.mark.parametrize(
    "make, options, message",
    [
        (None, {"impl_path": "/nonexistent/agent"}, "no such directory"),
        ("file", {}, "not a directory"),
        ("empty", {}, "holds none of protocol.py"),
        ("raising", {}, "importing loop.py failed: ZeroDivisionError"),
        ("syntax", {}, "importing evaluation.py failed: SyntaxError"),
        ("broken-import", {}, "importing loop.py failed: ModuleNotFoundError"),
        ("exits", {}, "importing protocol.py failed: SystemExit: 0"),
        ("interrupts", {}, "importing loop.py failed: KeyboardInterrupt"),
        ("closes", {}, "importing loop.py failed: GeneratorExit"),
        ("loops", {}, "importing evaluation.py failed: did not finish within 0.3 s"),
        (None, {"impl": "no_such_module_here"}, "no module named"),
        (None, {"impl": "not a name"}, "is not a module name"),
        (None, {"impl": "os", "impl_path": "/tmp"}, "were both given"),
        (None, {"impl": "evaluator", "level": "strict"}, "is not one of"),
    ],
)
def test_a_bad_target_is_one_line(
    tmp_path: Path, make: str | None, options: dict[str, str], message: str
) -> None:
    """Every way a target cannot load is a TargetError of one line."""
    if make == "file":
        options = {"impl_path": str(tmp_path / "file.py")}
        (tmp_path / "file.py").write_text("x = 1\n")
    elif make == "empty":
        options = {"impl_path": str(tmp_path)}
    elif make == "raising":
        folder = make_course(tmp_path, replace={"loop.py": "x = 1 / 0\n"})
        options = {"impl_path": str(folder)}
    elif make == "syntax":
        folder = make_course(tmp_path, replace={"evaluation.py": "def (:\n"})
        options = {"impl_path": str(folder)}
    elif make == "broken-import":
        folder = make_course(tmp_path, drop=("checkpoint.py",))
        options = {"impl_path": str(folder)}
    elif make in IMPORT_TIME_CODE:
        module, code = IMPORT_TIME_CODE[make]
        text = COURSE[module] + textwrap.indent(code, " " * 8)
        folder = make_course(tmp_path, replace={module: text})
        options = {"impl_path": str(folder), "import_seconds": 0.3}
    loaded_before = set(sys.modules)
    with pytest.raises(TargetError) as raised:
        load_target(**options)
    text = str(raised.value)
    assert message in text
    assert "\n" not in text
    # The synthetic package stays invisible.
    assert not re.search(rf"(?<![\w.]){PACKAGE}\.", text), text
    # Nothing of a folder that cannot load stays imported.
    loaded = set(sys.modules) - loaded_before
    assert not [m for m in loaded if m.split(".")[0] == PACKAGE]


def test_the_bundled_evaluator_is_hardened_by_default() -> None:
    """The default target is our evaluator, judged at the hardened level."""
    target = load_target()
    assert (target.label, target.bundled, target.level) == (
        "module evaluator",
        True,
        "hardened",
    )
    assert load_target(level="course").level == "course"
    assert set(DAY7_MODULES) >= {"protocol", "loop", "evaluation"}


def test_target_attributes_are_only_day7_names(tmp_path: Path) -> None:
    """Unknown attributes of a target are AttributeErrors, not stand-ins."""
    target = load_target(impl_path=make_course(tmp_path))
    with pytest.raises(AttributeError):
        target.parse_action  # noqa: B018
    assert "folder" in repr(target)


# ----------------------------------------------------------------- the lessons


def test_a_lesson_reads_got_but_should_be() -> None:
    """An InvariantFailure renders headline, world and hint."""
    with pytest.raises(InvariantFailure) as raised:
        fail(world="a.txt holds 'x'", expected="FAIL", observed="PASS", hint="h")
    assert str(raised.value) == (
        "got PASS, but should be FAIL\n  world: a.txt holds 'x'\n  hint: h"
    )
    assert raised.value.as_dict()["observed"] == "PASS"


def test_expect_error_checks_type_and_words() -> None:
    """expect_error passes on the named error and fails on anything else."""

    def reject() -> None:
        raise ValueError("file path must not be blank")

    assert "blank" in str(expect_error("f()", reject, world="w", mentions="file path"))
    with pytest.raises(InvariantFailure) as raised:
        expect_error("f()", reject, world="w", mentions="result tool")
    assert raised.value.headline == (
        "f() raised ValueError: 'file path must not be blank',"
        " which does not name 'result tool'"
    )
    with pytest.raises(InvariantFailure) as raised:
        expect_error("g()", lambda: None, world="w", mentions="file path")
    assert raised.value.headline == (
        "g() returned None, but should raise ValueError naming 'file path'"
    )
    with pytest.raises(InvariantFailure) as raised:
        expect_error("h()", lambda: {}["x"], world="w")
    assert raised.value.headline == (
        "h() raised KeyError: 'x', but should raise ValueError"
    )


# ----------------------------------------------------------------- the profiles


def test_the_profile_is_explicit_then_ci_then_dev() -> None:
    """--hypothesis-profile wins; otherwise CI chooses ci, else dev."""
    assert choose_profile(THOROUGH, {"CI": "true"}) == THOROUGH
    assert choose_profile(None, {"CI": "true"}) == CI
    assert choose_profile(None, {"CI": "1"}) == CI
    for unset in ({}, {"CI": ""}, {"CI": "0"}, {"CI": "false"}):
        assert choose_profile(None, unset) == DEV
    ci = settings.get_profile(CI)
    assert (ci.derandomize, ci.database, ci.print_blob) == (True, None, True)
    assert settings.get_profile(THOROUGH).max_examples >= 1000


# ----------------------------------------------------------------- whole runs

INVARIANT_TESTS = """
    import pytest
    from hypothesis import given, note, strategies as st
    from judge.lessons import fail

    @pytest.mark.invariant("holds")
    def test_holds(target):
        '''The target's final check passes for its own final. More words.'''
        run = target.AgentRun(True, "completed", "done", ())
        case = target.EvaluationCase("done")
        assert target.evaluate_run(run, None, None, case).passed

    @pytest.mark.invariant("breaks")
    @given(st.integers(min_value=0))
    def test_breaks(target, n):
        '''Every number is below three.'''
        note(f"the world holds {n}")
        if n >= 3:
            fail(world=f"n is {n}", expected="n < 3", observed=f"n = {n}",
                 hint="count from zero")

    @pytest.mark.invariant("strict")
    @pytest.mark.hardened
    def test_strict(target):
        '''A hardened rule.'''
"""

BUNDLED_TEST = """
    import no_such_module_for_this_test  # would be a collection error

    def test_bundled():
        pass
"""


# Inner runs leave out plugins that only add noise or time there.
LEAN = ("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:benchmark")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*args, *LEAN)


def run_inline(pytester: pytest.Pytester, *args: str) -> pytest.HookRecorder:
    return pytester.inline_run(*args, *LEAN)


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Our conftest in a fresh pytest project, over a fake course folder.

    The runs are in-process (fast); the inner conftest loads a Hypothesis
    profile, so the outer session's profile is put back afterwards.
    """
    monkeypatch.delenv("CI", raising=False)
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    (pytester.path / "invariants").mkdir()
    (pytester.path / "bundled").mkdir()
    (pytester.path / "invariants" / "test_demo.py").write_text(
        textwrap.dedent(INVARIANT_TESTS)
    )
    (pytester.path / "bundled" / "test_own.py").write_text(
        textwrap.dedent(BUNDLED_TEST)
    )
    profile = settings.get_current_profile_name()
    try:
        yield make_course(pytester.path)
    finally:
        settings.load_profile(profile)


def test_a_run_ends_with_the_verification_summary(
    pytester: pytest.Pytester, suite: Path
) -> None:
    """A failing invariant gives FAIL, its lesson, the JSON form and exit 1."""
    json_path = pytester.path / "verification.json"
    result = run(
        pytester,
        "--impl-path",
        str(suite),
        "--verification-json",
        str(json_path),
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            f"target: folder {suite} (course level); missing: none",
            "skipped: tests/bundled and tests/meta (the bundled evaluator's parts,"
            " the suite's own oracle)",
            "hypothesis profile: dev",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "verification: FAIL (1/2 invariants hold)",
            "- holds: PASS (The target's final check passes for its own final.)",
            "- breaks: FAIL (Every number is below three.)",
            "- strict: SKIP (A hardened rule.)",
            "",
            "lesson: breaks",
            "  test: invariants/test_demo.py::test_breaks",
            "  got n = 3, but should be n < 3",
            "  world: n is 3",
            "  hint: count from zero",
            "  example: the world holds 3",
        ]
    )
    # Hypothesis's call of the test, how to replay it and its explanations
    # are for whoever writes tests: shown with -v, and kept in the JSON.
    terminal_summary = result.stdout.str().split("verification ===")[-1]
    for advice in ("test_breaks(", "reproduce_failure", "Explanation"):
        assert advice not in terminal_summary
    assert "Traceback" not in result.stdout.str().split("verification ===")[-1]
    summary = json.loads(json_path.read_text(encoding="utf-8"))
    assert summary["verification"] == "FAIL"
    assert (summary["holding"], summary["counted"]) == (1, 2)
    assert [(i["name"], i["status"]) for i in summary["invariants"]] == [
        ("holds", "PASS"),
        ("breaks", "FAIL"),
        ("strict", "SKIP"),
    ]
    assert (summary["complete"], summary["stopped"], summary["unfinished"]) == (
        True,
        "",
        [],
    )
    (lesson,) = summary["lessons"]
    assert lesson["expected"] == "n < 3"
    assert lesson["observed"] == "n = 3"
    assert lesson["test"] == "invariants/test_demo.py::test_breaks"
    assert (lesson["topic"], lesson["reproduce"]) == ("day7", "")
    # Hypothesis says "Falsifying example" or, newer, "Failing test case".
    assert any("test_breaks(" in note for note in lesson["example"])


def test_a_passing_subset_says_pass_and_exits_zero(
    pytester: pytest.Pytester, suite: Path
) -> None:
    """With -k choosing holding invariants, the summary is PASS and exit 0."""
    result = run(pytester, "--impl-path", str(suite), "-k", "holds")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["verification: PASS", "- holds: PASS (*)"])
    result.stdout.no_fnmatch_line("*breaks*")


def test_missing_names_are_reported_in_one_header_line(
    pytester: pytest.Pytester, suite: Path
) -> None:
    """A folder without evaluation.py names every missing name in one line."""
    (suite / "evaluation.py").unlink()
    result = run(pytester, "--impl-path", str(suite), "-k", "holds")
    missing = ", ".join(EVALUATION_NAMES)
    result.stdout.fnmatch_lines(
        [f"target: folder {suite} (course level); missing: {missing}"]
    )
    result.stdout.fnmatch_lines(
        ["verification: FAIL (0/1 invariants hold)", "*EvaluationCase is not defined*"]
    )
    assert result.ret == 1


def test_a_bad_target_is_a_usage_error(pytester: pytest.Pytester, suite: Path) -> None:
    """A target that cannot load ends the run at once: one line, exit 4."""
    result = run(pytester, "--impl-path", str(suite / "nowhere"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [f"ERROR: --impl-path {suite / 'nowhere'}: no such directory"]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_several_bugs_give_several_lessons(
    pytester: pytest.Pytester, suite: Path
) -> None:
    """When Hypothesis finds distinct failures, each becomes its own lesson."""
    (pytester.path / "invariants" / "test_demo.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from hypothesis import given, strategies as st
            from judge.lessons import fail

            @pytest.mark.invariant("two-bugs")
            @given(st.integers())
            def test_two(target, n):
                '''Numbers are near zero.'''
                if n > 5:
                    fail(world=f"n={n}", expected="small", observed="big")
                if n < -5:
                    raise KeyError("negative")
            """
        )
    )
    json_path = pytester.path / "v.json"
    # `ci` is derandomized: the same examples every run.
    result = run(
        pytester,
        "--impl-path",
        str(suite),
        "--verification-json",
        str(json_path),
        "--hypothesis-profile",
        "ci",
    )
    assert result.ret == 1
    lessons = json.loads(json_path.read_text(encoding="utf-8"))["lessons"]
    assert sorted(lesson["headline"] for lesson in lessons) == [
        "KeyError: 'negative'",
        "got big, but should be small",
    ]


SURFACE = ROOT / "tests" / "invariants" / "test_surface.py"


def test_the_surface_invariant_holds_and_bites(
    pytester: pytest.Pytester, suite: Path
) -> None:
    """test_surface passes a well-shaped folder and names each planted flaw."""
    (pytester.path / "invariants" / "test_demo.py").unlink()
    # Another basename: the outer session may have imported test_surface.
    (pytester.path / "invariants" / "test_copied_surface.py").write_text(
        SURFACE.read_text(encoding="utf-8")
    )
    assert run(pytester, "--impl-path", str(suite)).ret == 0

    def plant(module: str, old: str, new: str) -> None:
        path = suite / module
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, (module, old)
        path.write_text(text.replace(old, new), encoding="utf-8")

    plant("protocol.py", "class AgentError(ValueError)", "class AgentError(Exception)")
    plant(
        "receipts.py",
        "@dataclass\nclass ReceiptStore",
        "@dataclass(frozen=True)\nclass ReceiptStore",
    )
    plant("evaluation.py", "    contains: str", "    substring: str")
    plant(
        "evaluation.py",
        "def evaluate_run(run, workspace, receipts, case)",
        "def evaluate_run(run, case)",
    )
    plant("evaluation.py", "    def render(self):", "    def show(self):")
    recorded = run_inline(pytester, "--impl-path", str(suite))
    assert recorded.ret == 1
    failed = sorted(report.nodeid.split("::")[1] for report in recorded.getfailures())
    assert failed == [
        "test_agent_error_is_a_value_error",
        "test_dataclass_shape[ReceiptStore]",
        "test_dataclass_shape[ResultExpectation]",
        "test_function_accepts_the_contract_call[evaluate_run]",
        "test_report_has_passed_and_render",
    ]


def test_a_load_error_the_worker_words_badly_is_still_one_line() -> None:
    """Why a folder cannot load is one bounded line whatever the worker sends
    (its code may be the learner's, patched at import): a report never gets a
    line break or a page of text from it."""
    from judge.remote import _load_problem

    said = {
        "at": "evaluation.py\nPASS: all invariants hold",
        "type": "Error\r\nline",
        "message": "first\nsecond\tthird " + "x" * 5000,
    }
    text = _load_problem(said, {"folder": "/f"})
    assert text.startswith("importing evaluation.py PASS: all invariants hold failed:")
    assert not any(c in text for c in "\n\r\t") and len(text) <= 2000
