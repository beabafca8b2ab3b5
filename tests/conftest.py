"""The suite's pytest wiring: which target is judged, and the verdict told as lessons.

- `--impl MODULE` / `--impl-path DIR` / `--level course|hardened` choose the
  target (judge/target.py); a bad choice is one line and exit status 4.
- The session fixture `target` is the only way tests reach the implementation.
- `@pytest.mark.invariant("name")` groups tests into invariants;
  `@pytest.mark.hardened` tests run only at the hardened level; tests under
  tests/bundled/ run only when the target is the bundled evaluator.
- The Hypothesis profile is `dev`, or `ci` under CI, unless
  `--hypothesis-profile` names one (strategies/profiles.py).
- Every call into a remote target is bounded (`--call-timeout`,
  judge.limits through judge.calls.call_target): its worker is ended from
  outside; `--test-timeout` bounds every request of a whole test as a
  backstop for the target's code that runs outside those calls (properties,
  repr, ==). A hang fails its test with a lesson and the run goes on. A
  KeyboardInterrupt raised by the target's code arrives from its worker as
  data and fails its test; one raised in this process is the person's
  Ctrl-C (only the bundled evaluator, ours, runs here) and stops the run.
- Tests run in the order of judge.ordering: the most basic invariants
  first (stable within an invariant).
- At the end, a summary in the evaluator's own voice: one line per invariant,
  then, for each broken one, its minimal counterexample as a lesson;
  `--verification-json PATH` writes the same as JSON, with the score's
  probe (which check groups the target makes, judge/probe.py; run
  after the last test). The verdict is PASS only when every selected test
  ran to its end and nothing stopped the run; otherwise INCOMPLETE,
  whatever held so far.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import re
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import core as hypothesis_core
from hypothesis import settings
from hypothesis.errors import InvalidArgument

from judge.calls import timed_out
from judge.lessons import CallAborted, InvariantFailure, JudgeFault
from judge.limits import CALL_SECONDS, CallLimits, use_call_limits
from judge.ordering import rank
from judge.parts import assign, parse_part
from judge.probe import fresh_seed, probe_seed, probe_target
from judge.remote import OutOfTime, bounded
from judge.target import LEVELS, Target, TargetError, load_target
from judge.verdicts import told_smaller
from strategies.profiles import PROFILES, choose_profile, register_profiles

# The command's own end-to-end tests run it in children: one seed for all of
# them (the command draws a fresh one per run otherwise), so CI meets the
# same examples every time. test_command_seed names its seeds itself.
os.environ.setdefault("DAY7_VERIFY_SEED", "20261204")

# The loader's own tests drive whole pytest runs through `pytester`; plugins
# may only be named in the root conftest.
pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent
BUNDLED = TESTS / "bundled"
META = TESTS / "meta"  # the suite's own oracle, judged with the bundled evaluator
INVARIANTS = TESTS / "invariants"

_TARGET = pytest.StashKey[Target]()
_OUTCOMES = pytest.StashKey["Outcomes"]()
_PREVIOUS_LIMITS = pytest.StashKey[CallLimits]()
_PREVIOUS_SEED = pytest.StashKey[Any]()

# Registered at import, before Hypothesis's own pytest_configure loads a
# profile named by --hypothesis-profile.
register_profiles()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("day7", "Day 7 verification target")
    group.addoption(
        "--impl",
        metavar="MODULE",
        default=None,
        help="judge an importable module exposing the Day 7 surface"
        " (default: the bundled evaluator)",
    )
    group.addoption(
        "--impl-path",
        metavar="DIR",
        default=None,
        help="judge a course agent folder, e.g. .../src/tiny_llm/agent;"
        " its __init__.py is not run",
    )
    group.addoption(
        "--level",
        choices=LEVELS,
        default=None,
        help="course: the chapter's rules; hardened: course plus no hang,"
        " bounded reads, nothing outside the root"
        " (default: hardened for the bundled evaluator, course otherwise)",
    )
    group.addoption(
        "--verification-json",
        metavar="PATH",
        default=None,
        help="also write the end-of-run verification summary as JSON to PATH",
    )
    group.addoption(
        "--call-timeout",
        metavar="SECONDS",
        type=_seconds,
        default=CALL_SECONDS,
        help="how long one call into the target may take before its test fails"
        f" as a hang (default {CALL_SECONDS:g}; 1 s for a function that already"
        " hung; 0: no limit)",
    )
    group.addoption(
        "--part",
        metavar="I/N",
        type=_part,
        default=(1, 1),
        help="run only the I-th of N parts of the invariants (judge/parts.py);"
        " day7-verify runs the N parts at once, one per core (default 1/1)",
    )
    group.addoption(
        "--test-timeout",
        metavar="SECONDS",
        type=_seconds,
        default=0.0,
        help="how long one whole test may take before it fails as a hang, a"
        " backstop for the target's code that runs outside a bounded call"
        " (default 0: no limit)",
    )


def _part(text: str) -> tuple[int, int]:
    try:
        return parse_part(text)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value >= 0 and math.isfinite(value)):
        raise pytest.UsageError(f"{text!r} is not a number of seconds >= 0")
    return value


@pytest.hookimpl(tryfirst=True)  # before Hypothesis's plugin loads the profile
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "invariant(name): an invariant of the Day 7 evaluator;"
        " the end-of-run summary groups results by name",
    )
    config.addinivalue_line(
        "markers", "hardened: holds only at the hardened level (skipped at course)"
    )
    # A seed makes the run seeded: every profile then obeys it (even `ci`,
    # derandomized otherwise), before either plugin loads one.
    seed = config.getoption("--hypothesis-seed", default=None)
    register_profiles(seeded=seed is not None)
    # Hypothesis sets its global seed and never unsets it: put back, at the
    # end, what a session around this one (pytester) had.
    config.stash[_PREVIOUS_SEED] = hypothesis_core.global_force_seed
    explicit = config.getoption("--hypothesis-profile", default=None)
    if explicit:
        try:
            settings.get_profile(explicit)
        except InvalidArgument:
            raise pytest.UsageError(
                f"--hypothesis-profile {explicit}: no such profile;"
                f" choose one of {', '.join(PROFILES)}"
            ) from None
    else:
        # An explicit --hypothesis-profile is loaded by Hypothesis's plugin.
        settings.load_profile(choose_profile(None))
    outcomes = Outcomes(seed=None if seed is None else probe_seed(seed))
    config.stash[_OUTCOMES] = outcomes
    config.pluginmanager.register(outcomes, "day7-verification-outcomes")
    config.stash[_PREVIOUS_LIMITS] = use_call_limits(
        CallLimits(seconds=config.getoption("--call-timeout") or None)
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    # A session run inside another one (pytester) shares these modules.
    previous = config.stash.get(_PREVIOUS_LIMITS, None)
    if previous is not None:
        use_call_limits(previous)
    if _PREVIOUS_SEED in config.stash:
        previous_seed = config.stash[_PREVIOUS_SEED]
        hypothesis_core.global_force_seed = previous_seed
        register_profiles(seeded=previous_seed is not None)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    # Loaded here rather than in pytest_configure so `pytest --help` works
    # whatever the target; before the terminal reporter prints the header.
    config = session.config
    try:
        config.stash[_TARGET] = load_target(
            impl=config.getoption("--impl"),
            impl_path=config.getoption("--impl-path"),
            level=config.getoption("--level"),
        )
    except TargetError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    target = config.stash.get(_TARGET, None)
    if target is None:
        return []
    missing = ", ".join(target.missing) if target.missing else "none"
    lines = [f"target: {target.label} ({target.level} level); missing: {missing}"]
    if not target.bundled:
        lines.append(
            "skipped: tests/bundled and tests/meta (the bundled evaluator's parts,"
            " the suite's own oracle)"
        )
    profile = f"hypothesis profile: {settings.get_current_profile_name()}"
    seed = config.getoption("--hypothesis-seed", default=None)
    lines.append(profile if seed is None else f"{profile}, seed {seed}")
    return lines


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    """The implementation under test (see --impl, --impl-path, --level)."""
    return pytestconfig.stash[_TARGET]


def _under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
    except ValueError:
        return False
    return True


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    target = config.stash.get(_TARGET, None)
    if target is None:
        return
    for item in items:
        if target.level != "hardened" and item.get_closest_marker("hardened"):
            item.add_marker(
                pytest.mark.skip(
                    reason=f"a hardened rule; {target.label} is judged at"
                    f" the {target.level} level (--level hardened adds it)"
                )
            )
    # The most basic invariants first, so a learner meets them first; other
    # tests (the bundled package's own) keep their place before them.
    position = {id(item): index for index, item in enumerate(items)}

    def key(item: pytest.Item) -> tuple[int, int, int]:
        invariant = _invariant_of(item)
        if invariant is None:
            return (0, 0, position[id(item)])
        return (1, rank(invariant), position[id(item)])

    items.sort(key=key)
    part, parts = config.getoption("--part")
    if parts > 1:
        # Each invariant in exactly one part; other tests in the first. The
        # parts are balanced over the invariants this level runs.
        owner = assign(
            parts,
            {
                _invariant_of(item) or ""
                for item in items
                if target.level == "hardened" or not item.get_closest_marker("hardened")
            },
        )
        kept = [i for i in items if owner.get(_invariant_of(i) or "", 1) == part]
        dropped = [i for i in items if owner.get(_invariant_of(i) or "", 1) != part]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    outcomes = session.config.stash[_OUTCOMES]
    for index, item in enumerate(session.items):
        outcomes.expect(item.nodeid, index, _invariant_of(item), _statement(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """The whole-test backstop bound on every request to the target's worker."""
    seconds = item.config.getoption("--test-timeout") or None
    # A target that changes directory (the read-only invariant reports it)
    # must not move the tests that follow.
    directory = os.getcwd()
    try:
        with bounded(seconds) as bound:
            outcome = yield
    except OutOfTime as late:
        if late.bound is not bound:
            raise
        assert seconds is not None
        raise timed_out(
            "the test",
            seconds,
            late.where,
            verb="finish",
            hint="the target's code ran past --test-timeout outside the calls the"
            " suite bounds one by one (a property such as report.passed, repr(),"
            " ==, a copy): look for a loop that never ends there",
        ) from None
    except BaseException as error:
        _reword_notes(error)
        raise
    finally:
        os.chdir(directory)
    return outcome


_VERBOSE_NOTE = "use Verbosity.verbose to view)"


def _reword_notes(error: BaseException) -> None:
    """Hypothesis's note on other failing examples names its Python API; say
    the pytest option instead (in the error and any it groups)."""
    notes = getattr(error, "__notes__", None)
    if isinstance(notes, list):
        notes[:] = [
            note.replace(
                _VERBOSE_NOTE, "add --hypothesis-verbosity=verbose to see them)"
            )
            if isinstance(note, str)
            else note
            for note in notes
        ]
    for inner in getattr(error, "exceptions", ()):
        if isinstance(inner, BaseException):
            _reword_notes(inner)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # Tests of the bundled evaluator's own parts import it directly; for any
    # other target they are not collected at all (the header says so), which
    # keeps a learner's report to the invariants and spares those imports.
    target = config.stash.get(_TARGET, None)
    if target is not None and not target.bundled:
        if _under(collection_path, BUNDLED) or _under(collection_path, META):
            return True
    return None


# ---------------------------------------------------------------------------
# The invariant summary
#
# Each test's report carries a plain-data record (its invariant, statement and
# lessons), set where the exception is at hand and read where reports arrive,
# so the summary also works when reports cross processes (pytest-xdist).

_RECORD = "day7_verification"


def _invariant_of(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("invariant")
    if marker is not None and marker.args:
        return str(marker.args[0])
    if _under(item.path, INVARIANTS):
        # An unmarked invariant test still counts, under its module's name.
        return item.path.stem.removeprefix("test_")
    return None


def _statement(item: pytest.Item) -> str:
    """The invariant in one sentence: the first of its test's docstring."""
    doc = inspect.getdoc(getattr(item, "obj", None)) or ""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    if not paragraph:
        return "(its test states no invariant)"
    return re.split(r"(?<=[.!?])\s+(?=[A-Z`])", paragraph, maxsplit=1)[0]


def _lessons_of(
    error: BaseException, invariant: str, test: str
) -> list[dict[str, Any]]:
    # Hypothesis raises an ExceptionGroup when it found several distinct
    # bugs: each member is one minimal failing example, so one lesson each.
    inner = getattr(error, "exceptions", None)
    if not (
        isinstance(inner, (tuple, list))
        and inner
        and all(isinstance(member, BaseException) for member in inner)
    ):
        return [_lesson(error, invariant, test)]
    lessons = [
        lesson for member in inner for lesson in _lessons_of(member, invariant, test)
    ]
    if type(error).__name__.startswith("Flaky"):
        # Failed once, then passed on replay: say so before the example.
        for lesson in lessons:
            lesson["example"].insert(0, _first_line(error))
    return lessons


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def _lesson(error: BaseException, invariant: str, test: str) -> dict[str, Any]:
    notes = [str(note) for note in getattr(error, "__notes__", ()) or ()]
    as_dict = getattr(error, "as_dict", None)
    if isinstance(error, InvariantFailure):
        # A wrong verdict met on a written (or unshrunk) world: told on the
        # smallest world found that gets the same verdict (judge.reduce).
        told_smaller(error)
    if isinstance(error, (InvariantFailure, CallAborted)) and callable(as_dict):
        fields = as_dict()
        fields["invariant"] = invariant
    elif isinstance(error, JudgeFault):
        fields = _judge_fault(error, invariant)
    else:
        fields = {
            "invariant": invariant,
            "headline": _first_line(error),
            "world": "",
            "expected": "",
            "observed": "",
            "hint": "",
            "topic": "memory" if isinstance(error, MemoryError) else "day7",
            "reproduce": "",
            "cause": "",
        }
    if invariant == "surface" and fields["topic"] == "day7":
        # The surface invariant is about the names and their shapes.
        fields["topic"] = "surface"
    if not fields.get("cause"):
        # Nothing more specific is known: the invariant is its own cause, so
        # its failing examples are one lesson (the first, the most basic).
        fields["cause"] = f"invariant:{invariant}"
    return {**fields, "test": test, "example": notes}


def _judge_fault(error: JudgeFault, invariant: str) -> dict[str, Any]:
    """A world the judge could not make: its own fault, said as such."""
    return {
        "invariant": invariant,
        "headline": f"day7-verify failed, not the folder: it could not {error.what}",
        "world": "",
        "expected": f"the judge makes every world it draws, and {invariant} is judged",
        "observed": f"{error.error}, before any code of the folder ran on it",
        "hint": "no verdict on this invariant: judge the folder again (its seed"
        " line draws the same worlds), and report the line above with that"
        " seed to day7-verify's maintainers",
        "topic": "judge",
        "reproduce": "",
        "cause": "judge:fault",
    }


def _judge_faults_only(lessons: list[dict[str, Any]]) -> bool:
    return bool(lessons) and all(item.get("topic") == "judge" for item in lessons)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    invariant = _invariant_of(item)
    if invariant is not None:
        lessons = []
        if report.failed and call.excinfo is not None:
            lessons = _lessons_of(call.excinfo.value, invariant, item.nodeid)
        setattr(
            report,
            _RECORD,
            {"invariant": invariant, "statement": _statement(item), "lessons": lessons},
        )
    return report


#: A test's outcome when only the judge's own fault stopped it (JudgeFault).
JUDGE_FAULT = "judge fault"


@dataclass
class Invariant:
    name: str
    statement: str
    tests: dict[str, str] = field(default_factory=dict)  # nodeid -> outcome
    lessons: list[dict[str, Any]] = field(default_factory=list)
    unfinished: set[str] = field(default_factory=set)  # nodeids not run to the end

    @property
    def status(self) -> str:
        """FAIL once any test failed (a proven fact, even in a stopped run);
        else INCOMPLETE while any test has not run to its end or stopped on
        the judge's own fault; else SKIP or PASS."""
        outcomes = {
            outcome
            for nodeid, outcome in self.tests.items()
            if nodeid not in self.unfinished
        }
        if "failed" in self.tests.values():
            return "FAIL"
        if self.unfinished or JUDGE_FAULT in outcomes:
            return "INCOMPLETE"
        if outcomes <= {"skipped"}:
            return "SKIP"
        return "PASS"


@dataclass(eq=False)  # hashable by identity: pytest registers it as a plugin
class Outcomes:
    invariants: dict[str, Invariant] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)  # nodeid -> run position
    # Every selected test, by node id, with its invariant (None: not one).
    expected: dict[str, str | None] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)  # tests whose teardown ran
    stopped: str = ""  # why the run stopped early, if it did
    # Interrupted (Ctrl-C, pytest.exit, an internal error): never complete,
    # even if the last test had just ended.
    interrupted: bool = False
    # Which check groups the target makes (judge/probe.py), measured at
    # the end of a run whose summary is written; None: not measured.
    probe: dict[str, Any] | None = None
    # The run's seed (--hypothesis-seed, as a number); None: not seeded.
    seed: int | None = None

    def expect(
        self, nodeid: str, index: int, invariant: str | None, statement: str
    ) -> None:
        """A selected test: until it runs to its end, the run is not complete."""
        self.expected[nodeid] = invariant
        self.order.setdefault(nodeid, index)
        if invariant is not None:
            self._invariant(invariant, statement).tests.setdefault(nodeid, "not run")

    def _invariant(self, name: str, statement: str) -> Invariant:
        return self.invariants.setdefault(name, Invariant(name, statement))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under pytest-xdist the controller collects nothing itself."""
        for index, nodeid in enumerate(ids):
            self.expected.setdefault(nodeid, None)
            self.order.setdefault(nodeid, index)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Registered as a plugin: every test report, from any process."""
        if report.when == "teardown":
            self.finished.add(report.nodeid)
        record = getattr(report, _RECORD, None)
        if record is None:
            name = self.expected.get(report.nodeid)
            if name is None or not report.failed:
                return
            # A report made outside the test's process (a crashed xdist
            # worker): the test failed without a lesson of ours.
            record = {"invariant": name, "statement": "", "lessons": []}
        invariant = self._invariant(record["invariant"], record["statement"])
        previous = invariant.tests.get(report.nodeid)
        if report.failed:
            # Stopped only by the judge's own fault: no verdict either way.
            faults = _judge_faults_only(record["lessons"])
            outcome = JUDGE_FAULT if faults else "failed"
            invariant.lessons.extend(record["lessons"])
        elif report.skipped:
            outcome = "skipped"
        else:
            outcome = "passed"
        # A failure in any phase (setup, call, teardown) is the test's outcome.
        if previous in (None, "not run") or (
            previous != "failed"
            and not (previous == "skipped" and outcome == "passed")
            and not (previous == JUDGE_FAULT and outcome != "failed")
        ):
            invariant.tests[report.nodeid] = outcome

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[Any]) -> None:
        self.interrupted = True
        error = excinfo.value
        # Only the person's Ctrl-C raises a plain KeyboardInterrupt here (the
        # target's own arrives from its worker as data); pytest's own stops
        # are subclasses of it.
        if type(error) is KeyboardInterrupt:
            self.stopped = "interrupted by Ctrl-C"
        else:
            message = getattr(error, "msg", None) or " ".join(str(error).split())
            self.stopped = "interrupted" + (f": {message}" if message else "")

    def note_session_end(self, session: pytest.Session, exitstatus: int) -> None:
        """Why the run ended early, if it did (-x, --maxfail, an internal error).

        -x or --maxfail after the last test leaves nothing unrun: that run is
        complete; one that they cut short has unfinished tests.
        """
        if exitstatus in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.INTERRUPTED):
            self.interrupted = True
        if self.stopped:
            return
        for reason in (session.shouldfail, session.shouldstop):
            if reason:
                text = reason if isinstance(reason, str) else "asked to stop"
                self.stopped = f"stopped early: {text}"
                return
        if exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            self.stopped = "stopped by an internal error"
        elif exitstatus == pytest.ExitCode.INTERRUPTED:
            self.stopped = "interrupted"

    def summary(self, target: Target | None) -> dict[str, Any] | None:
        if not self.invariants:
            return None
        unfinished = sorted(
            (n for n in self.expected if n not in self.finished),
            key=lambda n: (self.order.get(n, math.inf), n),
        )
        for invariant in self.invariants.values():
            # Under xdist a test may report without having been expected.
            invariant.unfinished = {
                n for n in invariant.tests if n not in self.finished
            }

        def first_test(invariant: Invariant) -> tuple[int, float, str]:
            nodeid = min(
                invariant.tests, key=lambda n: (self.order.get(n, math.inf), n)
            )
            return (rank(invariant.name), self.order.get(nodeid, math.inf), nodeid)

        invariants = sorted(self.invariants.values(), key=first_test)
        counted = [i for i in invariants if i.status != "SKIP"]
        holding = [i for i in counted if i.status == "PASS"]
        complete = not self.interrupted and not unfinished
        faulted = [i.name for i in counted if i.status == "INCOMPLETE"]
        if not complete or (faulted and not any(i.status == "FAIL" for i in counted)):
            # Stopped, or some invariant judged neither way by the judge's
            # own fault and none failed: no verdict on the folder.
            verdict = "INCOMPLETE"
        elif len(holding) == len(counted):
            verdict = "PASS"
        else:
            verdict = "FAIL"
        return {
            "verification": verdict,
            "complete": complete,
            "stopped": self.stopped,
            "unfinished": unfinished,
            "selected": len(self.expected),
            "holding": len(holding),
            "counted": len(counted),
            "failing": sum(i.status == "FAIL" for i in invariants),
            "judge_faults": faulted if complete else [],
            "target": target.label if target else None,
            "level": target.level if target else None,
            "missing": list(target.missing) if target else [],
            "hypothesis_profile": settings.get_current_profile_name(),
            "seed": self.seed,
            "invariants": [
                {
                    "name": i.name,
                    "status": i.status,
                    "statement": i.statement,
                    "tests": dict(sorted(i.tests.items())),
                }
                for i in invariants
            ],
            "lessons": [lesson for i in invariants for lesson in i.lessons],
            "probe": self.probe,
        }


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    config.stash[_OUTCOMES].note_session_end(session, exitstatus)
    path = config.getoption("--verification-json")
    if path is None or config.option.collectonly:
        return
    outcomes = config.stash[_OUTCOMES]
    target = config.stash.get(_TARGET, None)
    first_part = config.getoption("--part")[0] == 1
    if (
        target is not None
        and outcomes.invariants
        and not outcomes.interrupted
        and first_part
    ):
        # After every test, so a crash or a hang is still told by the test
        # that met it; only for the summary, the one reader of the probe
        # (the score, docs/score.md). An interrupted run is left alone; of a
        # run split into parts, the first part measures it.
        # Its worlds are drawn from the run's seed: never the same two runs
        # over (issue 26), the same given the seed. An unseeded run draws
        # from 0 when derandomized (ci, tox: the same every time), else from
        # a fresh seed the probe reports.
        seed = outcomes.seed
        if seed is None:
            seed = 0 if settings.default.derandomize else fresh_seed()
        outcomes.probe = probe_target(target, seed)
    summary = outcomes.summary(target)
    if summary is None:
        summary = {
            "verification": "NONE",
            "complete": False,
            "invariants": [],
            "lessons": [],
        }
    Path(path).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def _headline_line(summary: dict[str, Any]) -> str:
    verdict = summary["verification"]
    if verdict == "INCOMPLETE":
        why = [summary["stopped"]] if summary["stopped"] else []
        left, selected = len(summary["unfinished"]), summary["selected"]
        if left:
            why.append(
                f"{left} of {selected} test{'s' * (selected != 1)}"
                " did not run to the end"
            )
        if summary["failing"]:
            failing = summary["failing"]
            why.append(f"{failing} invariant{'s' * (failing != 1)} failed before that")
        if summary.get("judge_faults"):
            names = ", ".join(summary["judge_faults"])
            why.append(f"the judge's own fault left {names} unjudged")
        return f"verification: INCOMPLETE ({'; '.join(why) or 'interrupted'})"
    if verdict == "PASS":
        if summary["counted"] == 0:
            return "verification: SKIP (no invariant ran)"
        return "verification: PASS"
    return (
        f"verification: FAIL ({summary['holding']}/{summary['counted']}"
        " invariants hold)"
    )


def _indented(label: str, text: str) -> list[str]:
    lines = text.splitlines() or [""]
    if len(lines) == 1:
        return [f"  {label}: {lines[0]}"]
    return [f"  {label}:"] + [f"    {line}" for line in lines]


# Lessons shown per invariant on the terminal; the JSON keeps every one. A
# missing name fails dozens of tests the same way, and the first few teach it.
LESSONS_SHOWN = 3


def summary_lines(summary: dict[str, Any], *, verbose: bool = False) -> list[str]:
    """The summary as the evaluator's own text, one string per line.

    Without `verbose`, each lesson's example leaves out what is addressed to
    whoever writes tests (Hypothesis's call of the test with its arguments,
    how to replay it, its explanations) and what repeats the world.
    """
    lines = [_headline_line(summary)]
    for invariant in summary["invariants"]:
        lines.append(
            f"- {invariant['name']}: {invariant['status']} ({invariant['statement']})"
        )
    by_invariant: dict[str, list[dict[str, Any]]] = {}
    for lesson in summary["lessons"]:
        by_invariant.setdefault(lesson["invariant"], []).append(lesson)
    for name, lessons in by_invariant.items():
        for lesson in lessons[:LESSONS_SHOWN]:
            lines.append("")
            lines.extend(_lesson_lines(lesson, verbose=verbose))
        if len(lessons) > LESSONS_SHOWN:
            more = len(lessons) - LESSONS_SHOWN
            lines.append("")
            lines.append(f"{name}: {more} more failing example(s) like these")
    return lines


def _lesson_lines(lesson: dict[str, Any], *, verbose: bool = False) -> list[str]:
    lines = [f"lesson: {lesson['invariant']}", f"  test: {lesson['test']}"]
    lines.extend(f"  {line}" for line in lesson["headline"].splitlines())
    if lesson["world"]:
        lines.extend(_indented("world", lesson["world"]))
    if lesson["hint"]:
        lines.extend(_indented("hint", lesson["hint"]))
    if lesson.get("reproduce"):
        lines.extend(_indented("reproduce", lesson["reproduce"]))
    notes = lesson["example"] if verbose else _notes_for_learner(lesson)
    if notes:
        lines.extend(_indented("example", "\n".join(notes)))
    return lines


# Hypothesis's own lines: its call of the test with every argument (the world
# in its dataclass form), how to replay it, and explanations naming lines of
# the test. Whoever writes tests needs them (pytest -v shows them, the JSON
# keeps them); a learner reads the world and the hint.
_FOR_TEST_AUTHORS = (
    "Falsifying example",
    "Falsifying explicit example",
    "Failing test case",
    "Failing explicit example",
    "Explanation:",
    "You can reproduce this",
    "You can add @seed",
    "Unreliable test timings",
)
_OTHERS_FAILED = re.compile(
    r"\(note: (\d+) other explicit examples? also failed with this error;"
    r" (?:use Verbosity\.verbose to view|add --hypothesis-verbosity=verbose to"
    r" see them)\)"
)


def _notes_for_learner(lesson: dict[str, Any]) -> list[str]:
    world = lesson["world"]
    world_lines = {line.strip() for line in world.splitlines() if line.strip()}
    kept = []
    in_explanation = False
    for note in lesson["example"]:
        text = note.strip()
        if in_explanation and note[:1].isspace():
            continue  # the lines of an "Explanation:" block
        in_explanation = text.startswith("Explanation:")
        others = _OTHERS_FAILED.fullmatch(text)
        if others is not None:
            count = int(others.group(1))
            kept.append(
                f"{count} other example{'s' * (count != 1)} failed the same way"
            )
        elif not text or text.startswith(_FOR_TEST_AUTHORS):
            continue
        elif world and (
            text in world
            or {line.strip() for line in text.splitlines() if line.strip()}
            <= world_lines
        ):
            continue  # the world, already shown
        else:
            kept.append(note)
    return kept


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if config.option.collectonly:
        return
    summary = config.stash[_OUTCOMES].summary(config.stash.get(_TARGET, None))
    if summary is None:
        return
    terminalreporter.write_sep("=", "verification")
    for line in summary_lines(summary, verbose=config.get_verbosity() > 0):
        terminalreporter.write_line(line)
