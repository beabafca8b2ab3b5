"""The suite's pytest wiring: which target is judged, and the verdict told as lessons.

- `--impl MODULE` / `--impl-path DIR` / `--level course|hardened` choose the
  target (strategies/target.py); a bad choice is one line and exit status 4.
- The session fixture `target` is the only way tests reach the implementation.
- `@pytest.mark.invariant("name")` groups tests into invariants;
  `@pytest.mark.hardened` tests run only at the hardened level; tests under
  tests/bundled/ run only when the target is the bundled evaluator.
- The Hypothesis profile is `dev`, or `ci` under CI, unless
  `--hypothesis-profile` names one (strategies/profiles.py).
- At the end, a summary in the evaluator's own voice: one line per invariant,
  then, for each broken one, its minimal counterexample as a lesson;
  `--verification-json PATH` writes the same as JSON.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.errors import InvalidArgument

from strategies.lessons import InvariantFailure
from strategies.profiles import PROFILES, choose_profile, register_profiles
from strategies.target import LEVELS, Target, TargetError, load_target

# The loader's own tests drive whole pytest runs through `pytester`; plugins
# may only be named in the root conftest.
pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent
BUNDLED = TESTS / "bundled"
INVARIANTS = TESTS / "invariants"

_TARGET = pytest.StashKey[Target]()
_OUTCOMES = pytest.StashKey["Outcomes"]()

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
    outcomes = Outcomes()
    config.stash[_OUTCOMES] = outcomes
    config.pluginmanager.register(outcomes, "day7-verification-outcomes")


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
        lines.append("skipped: tests/bundled (tests of the bundled evaluator's parts)")
    lines.append(f"hypothesis profile: {settings.get_current_profile_name()}")
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
    outcomes = config.stash[_OUTCOMES]
    for index, item in enumerate(items):
        outcomes.order.setdefault(item.nodeid, index)
        if target.level != "hardened" and item.get_closest_marker("hardened"):
            item.add_marker(
                pytest.mark.skip(
                    reason=f"a hardened rule; {target.label} is judged at"
                    f" the {target.level} level (--level hardened adds it)"
                )
            )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # Tests of the bundled evaluator's own parts import it directly; for any
    # other target they are not collected at all (the header says so), which
    # keeps a learner's report to the invariants and spares those imports.
    target = config.stash.get(_TARGET, None)
    if target is not None and not target.bundled and _under(collection_path, BUNDLED):
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
    if isinstance(error, InvariantFailure):
        fields = error.as_dict()
        fields["invariant"] = invariant
    else:
        fields = {
            "invariant": invariant,
            "headline": _first_line(error),
            "world": "",
            "expected": "",
            "observed": "",
            "hint": "",
        }
    return {**fields, "test": test, "example": notes}


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


@dataclass
class Invariant:
    name: str
    statement: str
    tests: dict[str, str] = field(default_factory=dict)  # nodeid -> outcome
    lessons: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        outcomes = set(self.tests.values())
        if "failed" in outcomes:
            return "FAIL"
        if outcomes <= {"skipped"}:
            return "SKIP"
        return "PASS"


@dataclass(eq=False)  # hashable by identity: pytest registers it as a plugin
class Outcomes:
    invariants: dict[str, Invariant] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)  # nodeid -> collection index

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Registered as a plugin: every test report, from any process."""
        record = getattr(report, _RECORD, None)
        if record is None:
            return
        invariant = self.invariants.setdefault(
            record["invariant"], Invariant(record["invariant"], record["statement"])
        )
        previous = invariant.tests.get(report.nodeid)
        if report.failed:
            outcome = "failed"
            invariant.lessons.extend(record["lessons"])
        elif report.skipped:
            outcome = "skipped"
        else:
            outcome = "passed"
        # A failure in any phase (setup, call, teardown) is the test's outcome.
        if previous != "failed" and not (previous == "skipped" and outcome == "passed"):
            invariant.tests[report.nodeid] = outcome

    def summary(self, target: Target | None) -> dict[str, Any] | None:
        if not self.invariants:
            return None

        def first_test(invariant: Invariant) -> tuple[float, str]:
            nodeid = min(invariant.tests, key=lambda n: (self.order.get(n, 1e9), n))
            return (self.order.get(nodeid, 1e9), nodeid)

        invariants = sorted(self.invariants.values(), key=first_test)
        counted = [i for i in invariants if i.status != "SKIP"]
        holding = [i for i in counted if i.status == "PASS"]
        verdict = "PASS" if len(holding) == len(counted) else "FAIL"
        return {
            "verification": verdict,
            "holding": len(holding),
            "counted": len(counted),
            "target": target.label if target else None,
            "level": target.level if target else None,
            "missing": list(target.missing) if target else [],
            "hypothesis_profile": settings.get_current_profile_name(),
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
        }


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    path = config.getoption("--verification-json")
    if path is None:
        return
    summary = config.stash[_OUTCOMES].summary(config.stash.get(_TARGET, None))
    if summary is None:
        summary = {"verification": "NONE", "invariants": [], "lessons": []}
    Path(path).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def _headline_line(summary: dict[str, Any]) -> str:
    if summary["verification"] == "PASS":
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


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The summary as the evaluator's own text, one string per line."""
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
            lines.extend(_lesson_lines(lesson))
        if len(lessons) > LESSONS_SHOWN:
            more = len(lessons) - LESSONS_SHOWN
            lines.append("")
            lines.append(f"{name}: {more} more failing example(s) like these")
    return lines


def _lesson_lines(lesson: dict[str, Any]) -> list[str]:
    lines = [f"lesson: {lesson['invariant']}", f"  test: {lesson['test']}"]
    lines.extend(f"  {line}" for line in lesson["headline"].splitlines())
    if lesson["world"]:
        lines.extend(_indented("world", lesson["world"]))
    if lesson["hint"]:
        lines.extend(_indented("hint", lesson["hint"]))
    # Hypothesis's "Explanation:" notes name lines of the test, which helps
    # whoever writes tests, not a learner; the JSON keeps them.
    notes = [n for n in lesson["example"] if not n.startswith("Explanation:")]
    if notes:
        lines.extend(_indented("example", "\n".join(notes)))
    return lines


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    summary = config.stash[_OUTCOMES].summary(config.stash.get(_TARGET, None))
    if summary is None:
        return
    terminalreporter.write_sep("=", "verification")
    for line in summary_lines(summary):
        terminalreporter.write_line(line)
