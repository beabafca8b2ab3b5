"""The end-of-run summary stays honest, and the run bounded, whatever happens.

Small pytest sessions run here (in-process, through `pytester`) with the
suite's own conftest and a few stand-in invariant tests whose "target code"
loops for ever, exits, raises KeyboardInterrupt or runs out of memory; and
sessions that are cut short (-x, a plugin that stops them, pytest.exit).
Each test fails with its lesson, the run goes on, and the summary says PASS
only when every selected test ran to its end.
"""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from judge.ordering import INVARIANT_ORDER

ROOT = Path(__file__).resolve().parents[2]
CONFTEST = ROOT / "tests" / "conftest.py"

# Inner runs leave out plugins that only add noise or time there.
LEAN = ("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:benchmark")


@pytest.fixture
def session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Our conftest in a fresh pytest project; write tests into the folder given.

    The target is the bundled evaluator (no --impl-path): the stand-in tests
    call their own "target code". The inner conftest loads a Hypothesis
    profile, so the outer session's is put back afterwards.
    """
    monkeypatch.delenv("CI", raising=False)
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    folder = pytester.path / "invariants"
    folder.mkdir()
    profile = settings.get_current_profile_name()
    try:
        yield folder
    finally:
        settings.load_profile(profile)


def write(folder: Path, source: str, name: str = "test_standins.py") -> None:
    (folder / name).write_text(textwrap.dedent(source), encoding="utf-8")


def summary_of(pytester: pytest.Pytester, *args: str) -> tuple[Any, dict[str, Any]]:
    """Run the session; return pytest's result and the JSON summary."""
    path = pytester.path / "verification.json"
    result = pytester.runpytest(*args, *LEAN, "--verification-json", str(path))
    return result, json.loads(path.read_text(encoding="utf-8"))


def statuses(summary: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item["status"] for item in summary["invariants"]}


ESCAPES = """
    import pytest
    from _command_learners import learner_folder
    from hypothesis import given, strategies as st
    from judge.calls import call_target
    from judge.target import load_target

    EVALUATE = "evaluate_run(run, workspace, receipts, case)"

    @pytest.fixture(scope="module")
    def obeys(tmp_path_factory):
        '''A worker whose evaluate_run("plant:<how>", ...) does <how>.'''
        folder = learner_folder(tmp_path_factory.mktemp("o"), "obeys", "obeys-run")
        target = load_target(impl_path=folder)
        yield target
        target.client.stop()

    def plant(target, how):
        return lambda *args: target.evaluate_run(f"plant:{how}", None, None, None)

    @pytest.mark.invariant("truth")
    @given(st.integers(0, 9))
    def test_hangs(obeys, n):
        '''evaluate_run returns on every world.'''
        call_target(EVALUATE, plant(obeys, "loop"), world=f"world number {n}")

    @pytest.mark.invariant("report-shape")
    def test_hangs_again(obeys):
        '''evaluate_run returns, again.'''
        call_target(EVALUATE, plant(obeys, "loop"))

    @pytest.mark.invariant("store-kinds")
    @pytest.mark.parametrize(
        "error",
        ["KeyboardInterrupt", "SystemExit:0", "GeneratorExit", "MemoryError"],
        ids=["interrupt", "exit", "generator-exit", "memory"],
    )
    def test_escapes(obeys, error):
        '''Nothing the target raises escapes its call.'''
        call_target(EVALUATE, plant(obeys, f"raise:{error}"))

    @pytest.mark.invariant("read-only")
    def test_a_property_loops(obeys):
        '''Target code outside a bounded call is stopped by the test's bound.'''
        plant(obeys, "report-loops")()

    @pytest.mark.invariant("independence")
    def test_interrupts_outside_a_call(obeys):
        '''A KeyboardInterrupt the target raises outside a call fails only its test.'''
        plant(obeys, "raise:KeyboardInterrupt")()

    @pytest.mark.invariant("determinism")
    def test_the_run_went_on(target):
        '''The run reached the last test.'''
"""


def test_escapes_fail_their_own_test_and_the_run_goes_on(
    pytester: pytest.Pytester, session: Path
) -> None:
    """Hangs (ended in the worker), SystemExit, KeyboardInterrupt, GeneratorExit
    and MemoryError from the target each fail their test with a lesson; the
    last test still runs, the run ends in bounded time, and the summary is
    FAIL, complete."""
    write(session, ESCAPES)
    started = time.monotonic()
    result, summary = summary_of(
        pytester, "--call-timeout", "0.3", "--test-timeout", "1.5"
    )
    assert time.monotonic() - started < 30
    assert result.ret == 1
    assert (summary["verification"], summary["complete"]) == ("FAIL", True)
    assert statuses(summary) == {
        "report-shape": "FAIL",
        "truth": "FAIL",
        "store-kinds": "FAIL",
        "independence": "FAIL",
        "determinism": "PASS",
        "read-only": "FAIL",
    }
    lessons = {
        (lesson["test"].split("::")[1], lesson["topic"]): lesson
        for lesson in summary["lessons"]
    }
    evaluate = "evaluate_run(run, workspace, receipts, case)"
    hang = lessons["test_hangs", "hang"]
    assert hang["headline"].startswith(
        f"{evaluate} did not return within 0.3 s on this world; it was running"
        " evaluation.py, line"
    )
    assert hang["world"].startswith("world number ")
    assert lessons["test_hangs_again", "hang"]["headline"].startswith(
        f"{evaluate} did not return within 0.3 s;"
    )
    for test, shown in (
        ("interrupt", "KeyboardInterrupt"),
        ("exit", "SystemExit: 0"),
        ("generator-exit", "GeneratorExit"),
    ):
        lesson = lessons[f"test_escapes[{test}]", "day7"]
        assert lesson["headline"] == (
            f"{evaluate} raised {shown}, but should return an EvaluationReport"
        )
    memory = lessons["test_escapes[memory]", "memory"]
    assert memory["headline"] == f"{evaluate} ran out of memory"
    stopped = lessons["test_a_property_loops", "hang"]
    assert stopped["headline"].startswith("the test did not finish within 1.5 s")
    outside = lessons["test_interrupts_outside_a_call", "day7"]
    # The target's own KeyboardInterrupt, raised in its worker: not the
    # person's, so it fails its test and the run goes on.
    assert outside["headline"] == "KeyboardInterrupt"
    result.stdout.fnmatch_lines(["verification: FAIL (1/6 invariants hold)"])


STOPPABLE = """
    import pytest

    @pytest.mark.invariant("surface")
    def test_first(target):
        '''The first one.'''
        assert {fails}

    @pytest.mark.invariant("truth")
    def test_second(target):
        '''The second one.'''
"""


def test_a_run_cut_short_by_x_is_incomplete(
    pytester: pytest.Pytester, session: Path
) -> None:
    """-x after a failure leaves a test unrun: INCOMPLETE, never PASS; the unrun
    invariant is INCOMPLETE, the failed one FAIL."""
    write(session, STOPPABLE.format(fails="False"))
    result, summary = summary_of(pytester, "-x")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "verification: INCOMPLETE (stopped early: stopping after 1 failures;"
            " 1 of 2 tests did not run to the end; 1 invariant failed before that)",
            "- surface: FAIL (The first one.)",
            "- truth: INCOMPLETE (The second one.)",
        ]
    )
    assert (summary["verification"], summary["complete"]) == ("INCOMPLETE", False)
    assert summary["unfinished"] == ["invariants/test_standins.py::test_second"]
    assert summary["invariants"][1]["tests"] == {
        "invariants/test_standins.py::test_second": "not run"
    }


def test_x_that_cuts_nothing_leaves_the_run_complete(
    pytester: pytest.Pytester, session: Path
) -> None:
    """-x with every test passing stops nothing: PASS."""
    write(session, STOPPABLE.format(fails="True"))
    result, summary = summary_of(pytester, "-x")
    assert result.ret == 0
    assert (summary["verification"], summary["complete"]) == ("PASS", True)


class StopsAfterTheFirstTest:
    """A plugin that asks pytest to stop, as some plugins do."""

    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        item.session.shouldstop = "a plugin asked to stop"


def test_a_run_a_plugin_stops_is_incomplete(
    pytester: pytest.Pytester, session: Path
) -> None:
    """session.shouldstop set by a plugin: INCOMPLETE with its reason."""
    write(session, STOPPABLE.format(fails="True"))
    path = pytester.path / "verification.json"
    recorded = pytester.inline_run(
        *LEAN, "--verification-json", str(path), plugins=[StopsAfterTheFirstTest()]
    )
    summary = json.loads(path.read_text(encoding="utf-8"))
    assert recorded.ret != 0
    assert summary["verification"] == "INCOMPLETE"
    # pytest ends the session as Interrupted with the plugin's reason.
    assert summary["stopped"] == "interrupted: a plugin asked to stop"
    assert statuses(summary) == {"surface": "PASS", "truth": "INCOMPLETE"}


def test_a_run_ended_by_pytest_exit_is_incomplete(
    pytester: pytest.Pytester, session: Path
) -> None:
    """pytest.exit() in the middle: INCOMPLETE, interrupted, never PASS."""
    write(
        session,
        """
        import pytest

        @pytest.mark.invariant("surface")
        def test_first(target):
            '''The first one.'''
            pytest.exit("enough for today")

        @pytest.mark.invariant("truth")
        def test_second(target):
            '''The second one.'''
        """,
    )
    result, summary = summary_of(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert summary["verification"] == "INCOMPLETE"
    assert summary["stopped"] == "interrupted: enough for today"
    result.stdout.fnmatch_lines(["verification: INCOMPLETE (interrupted: *"])


def test_invariants_are_run_and_listed_most_basic_first(
    pytester: pytest.Pytester, session: Path
) -> None:
    """Whatever the file order, surface runs before truth before confinement,
    an unknown invariant last, and the summary lists them so."""
    write(
        session,
        """
        import pytest

        @pytest.mark.invariant("something-new")
        def test_new(target):
            '''New.'''

        @pytest.mark.invariant("confinement")
        def test_confined(target):
            '''Confined.'''

        @pytest.mark.invariant("truth")
        def test_true_one(target):
            '''True.'''

        @pytest.mark.invariant("surface")
        def test_surface(target):
            '''Surface.'''

        @pytest.mark.invariant("truth")
        def test_true_two(target):
            '''True again.'''
        """,
    )
    path = pytester.path / "verification.json"
    recorded = pytester.inline_run(*LEAN, "--verification-json", str(path))
    ran = [
        report.nodeid.split("::")[1]
        for report in recorded.getreports("pytest_runtest_logreport")
        if report.when == "call"
    ]
    assert ran == [
        "test_surface",
        "test_true_one",
        "test_true_two",
        "test_confined",
        "test_new",
    ]
    summary = json.loads(path.read_text(encoding="utf-8"))
    names = [item["name"] for item in summary["invariants"]]
    assert names == ["surface", "truth", "confinement", "something-new"]
    assert INVARIANT_ORDER.index("surface") == 0


NOTES = """
    import pytest
    from hypothesis import example, given, note, strategies as st
    from judge.lessons import fail

    @pytest.mark.invariant("truth")
    @given(st.integers(0, 100))
    @example(50)
    @example(60)
    @example(70)
    def test_notes(target, n):
        '''Numbers stay small.'''
        world = f"a world holding {n}"
        note(world)
        if n >= 50:
            fail(world=world, expected="n < 50", observed=f"n = {n}")
"""


def test_a_lesson_shows_the_world_once_and_speaks_to_learners(
    pytester: pytest.Pytester, session: Path
) -> None:
    """The world is shown once (not again among Hypothesis's notes); Hypothesis's
    call of the test and its advice to test authors appear only with -v, and
    "N other examples failed" is said in the suite's voice."""
    write(session, NOTES)
    result, summary = summary_of(pytester)
    text = result.stdout.str().split("verification ===")[-1]
    assert text.count("a world holding 50") == 1
    assert "test_notes(" not in text
    # Nor in pytest's own failure section: the option to pass, not the API.
    assert "Verbosity" not in result.stdout.str()
    assert "add --hypothesis-verbosity=verbose to see them" in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "  got n = 50, but should be n < 50",
            "  world: a world holding 50",
            "  example: 2 other examples failed the same way",
        ]
    )
    (lesson,) = summary["lessons"]
    assert any("test_notes(" in note for note in lesson["example"])

    verbose, _ = summary_of(pytester, "-v")
    shown = verbose.stdout.str().split("verification ===")[-1]
    assert "test_notes(" in shown
    assert "a world holding 50" in shown


def test_a_bad_timeout_is_a_usage_error(
    pytester: pytest.Pytester, session: Path
) -> None:
    """--call-timeout and --test-timeout take seconds >= 0; else one line."""
    write(session, STOPPABLE.format(fails="True"))
    for option in ("--call-timeout", "--test-timeout"):
        result = pytester.runpytest(*LEAN, option, "soon")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert "'soon' is not a number of seconds >= 0" in result.stderr.str()


def test_a_lesson_shows_how_to_reproduce_it_and_its_topic(
    pytester: pytest.Pytester, session: Path
) -> None:
    """A lesson's snippet is printed under "reproduce:"; the surface invariant's
    lessons have topic "surface", a memory error raised in a test "memory"."""
    write(
        session,
        """
        import pytest
        from judge.lessons import fail

        @pytest.mark.invariant("surface")
        def test_shape(target):
            '''Names are shaped as the contract says.'''
            fail(world="", expected="a dataclass", observed="a class",
                 reproduce="import dataclasses\\nprint(dataclasses.is_dataclass(X))")

        @pytest.mark.invariant("truth")
        def test_memory(target):
            '''Memory is bounded.'''
            raise MemoryError
        """,
    )
    result, summary = summary_of(pytester)
    result.stdout.fnmatch_lines(
        [
            "  got a class, but should be a dataclass",
            "  reproduce:",
            "    import dataclasses",
            "    print(dataclasses.is_dataclass(X))",
        ]
    )
    topics = {lesson["invariant"]: lesson["topic"] for lesson in summary["lessons"]}
    assert topics == {"surface": "surface", "truth": "memory"}


FAULTS = """
    import errno
    import pytest
    from hypothesis import given, strategies as st
    from judge.lessons import JudgeFault

    @pytest.mark.invariant("surface")
    def test_holds():
        '''The first one.'''

    @pytest.mark.invariant("truth")
    @given(st.integers(0, 9))
    def test_the_judge_fails(n):
        '''The judge cannot make the fifth world.'''
        if n == 5:
            raise JudgeFault(
                "lay out this world's files", OSError(errno.EINVAL, "bad name")
            )

    @pytest.mark.invariant("read-only")
    def test_fails(target):
        '''The third one, {fails}.'''
        assert {holds}, "the folder's own wrong verdict"
"""


@pytest.mark.parametrize("fails", [False, True], ids=["alone", "beside-a-fail"])
def test_a_world_the_judge_cannot_make_is_never_the_folders_fail(
    pytester: pytest.Pytester, session: Path, fails: bool
) -> None:
    """A JudgeFault (a world the judge could not make, before the folder's code
    ran on it) leaves its invariant INCOMPLETE, never FAIL: alone, the
    verdict is INCOMPLETE, with the judge named as the cause; beside a real
    failure, the verdict is that FAIL, still without counting the fault."""
    write(
        session,
        FAULTS.format(
            fails="failing" if fails else "holding", holds="False" if fails else "True"
        ),
    )
    result, summary = summary_of(pytester)
    assert statuses(summary) == {
        "surface": "PASS",
        "truth": "INCOMPLETE",
        "read-only": "FAIL" if fails else "PASS",
    }
    fault = next(item for item in summary["lessons"] if item["invariant"] == "truth")
    assert fault["topic"] == "judge"
    assert fault["headline"] == (
        "day7-verify failed, not the folder: it could not lay out this world's files"
    )
    assert "OSError: [Errno 22] bad name" in fault["observed"]
    assert summary["complete"] is True
    if fails:
        assert (summary["verification"], summary["failing"]) == ("FAIL", 1)
        assert summary["judge_faults"] == ["truth"]
    else:
        assert summary["verification"] == "INCOMPLETE"
        assert summary["judge_faults"] == ["truth"]
        result.stdout.fnmatch_lines(
            ["verification: INCOMPLETE (the judge's own fault left truth unjudged)"]
        )
