"""One learner's trouble is that learner's row (issue 37, items 5 to 11).

Whatever goes wrong while one learner's folder is handled (found, copied,
its child started, sandboxed, its worker's answer read, its verdict made,
scored, or its part of a report written) ends in that learner's `error` row
saying why: never a traceback, a refused class or a lost report. Every
classmate is judged as if nothing happened.

The children here are stand-ins (`_FakeChild`): what is tested is the
command's handling around them, which is the same for a real child.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from day7_verify import (
    _cli,
    _discover,
    _evidence,
    _html,
    _judge,
    _junit,
    _pool,
    _report,
    _text,
)
from day7_verify._supervise import Finished
from judge.ordering import HARDENED_ONLY, INVARIANT_ORDER

VICTIM = "bo"
CLASS = ("ada", VICTIM, "cy")
INJECTED = "injected fault"


class _Injected(Exception):
    """The fault a test plants in one step, for one learner."""


class _Manifest:
    """The bundle, as far as a stand-in child needs it."""

    def copy_into(self, target: Path) -> None:
        (target / "worker").mkdir(parents=True)


def _fake_child(argv: Any, **options: Any) -> Finished:
    """A child that says every invariant of the course level holds."""
    config = json.loads(options["stdin_data"])
    names = [
        name
        for name in INVARIANT_ORDER
        if name not in HARDENED_ONLY and name != "writes-nothing-outside"
    ]
    result = {
        "protocol": _evidence.PROTOCOL,
        "nonce": config["nonce"],
        "phase": "suite",
        "complete": True,
        "exit_code": 0,
        "stopped": None,
        "summary": {
            "verification": "PASS",
            "invariants": [
                {"name": name, "status": "PASS", "statement": f"{name} holds."}
                for name in names
            ],
            "lessons": [],
        },
        "memory_error": None,
        "outside_writes": None,
    }
    Path(config["result"]).write_text(json.dumps(result), encoding="utf-8")
    return Finished(
        returncode=0,
        timed_out=False,
        seconds=0.1,
        peak_rss_kib=1,
        output="",
        output_bytes=0,
    )


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Children, bundle, preflight and Unicode tables stood in for: fast."""
    monkeypatch.setattr(_pool, "manifest", lambda: _Manifest())
    monkeypatch.setattr(_pool, "check_worker", lambda *args, **kwargs: None)
    monkeypatch.setattr(_pool, "unicode_tables", lambda workroot: None)
    monkeypatch.setattr(_judge, "run_bounded", _fake_child)


def _class(base: Path) -> Path:
    root = base / "class"
    for name in CLASS:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "evaluation.py").write_text("def evaluate_run(): ...\n")
    return root


def _run(base: Path) -> tuple[int, dict[str, Path]]:
    root = _class(base) if not (base / "class").exists() else base / "class"
    out = {name: base / f"out.{name}" for name in ("json", "html", "junit")}
    argv = [
        "--cohort",
        str(root),
        "--isolation",
        "process",
        "--seed",
        "7",
        "--jobs",
        "1",
        *(word for name, path in out.items() for word in (f"--{name}", str(path))),
    ]
    return _cli.main(argv), out


def _text_of(path: Path) -> str:
    """A report's text, the run's own folder written as BASE."""
    return path.read_text(encoding="utf-8").replace(str(path.parent), "BASE")


def _rows(out: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Each learner's JSON row by its folder's name, timings left out."""
    data = json.loads(_text_of(out["json"]))
    rows = {}
    for learner in data["learners"]:
        learner.pop("seconds")
        rows[learner["path"].rsplit("/", 1)[-1]] = learner
    return rows


def _suites(out: dict[str, Path]) -> dict[str, str]:
    """Each learner's JUnit suite by its folder's name, timings left out."""
    suites = {}
    for suite in ET.fromstring(_text_of(out["junit"])):
        for element in suite.iter():
            element.attrib.pop("time", None)
        suites[suite.get("name", "").rsplit("/", 1)[-1]] = ET.tostring(suite)
    return suites


# --- each step of one learner's way, made to fail for that learner only ------

_judging = {"path": ""}


def _for_victim(raising_when: Callable[..., bool]) -> Callable[..., Any]:
    def fault(*args: Any, **kwargs: Any) -> Any:
        if raising_when(*args, **kwargs):
            raise _Injected(INJECTED)
        return fault.original(*args, **kwargs)  # type: ignore[attr-defined]

    return fault


def _victim_judged(*args: Any, **kwargs: Any) -> bool:
    return _judging["path"].endswith(f"/{VICTIM}")


def _victim_shown(learner: Any, *args: Any, **kwargs: Any) -> bool:
    # The learner's own data breaks the writer; the row that replaces it,
    # `error` saying why, does not.
    return learner.path.endswith(f"/{VICTIM}") and learner.status != "error"


#: Where the fault goes: (module, name, when it raises, the report it shows in).
STEPS: dict[str, tuple[Any, str, Callable[..., bool], str]] = {
    "discover": (
        _discover,
        "_candidates",
        lambda top, written: written.endswith(f"/{VICTIM}"),
        "every report",
    ),
    "copy": (_judge, "_copy_folder", _victim_judged, "every report"),
    "child start": (_judge, "run_bounded", _victim_judged, "every report"),
    "sandbox": (_judge, "worker_settings", _victim_judged, "every report"),
    "worker": (_judge, "read_result", _victim_judged, "every report"),
    "verdict": (_judge, "classify", _victim_judged, "every report"),
    "score": (_judge, "scored", _victim_judged, "every report"),
    "json row": (_report.LearnerVerdict, "to_json", _victim_shown, "json row"),
    "junit suite": (_junit, "_suite", _victim_shown, "junit"),
    "html row": (
        _html,
        "_row",
        lambda row, learner, *rest: _victim_shown(learner),
        "html",
    ),
    "terminal row": (
        _text,
        "_cell",
        lambda learner, name: _victim_shown(learner),
        "terminal",
    ),
}


@pytest.mark.parametrize("step", list(STEPS))
def test_a_fault_at_any_step_of_one_learner_is_that_learners_error_row(
    step: str,
    tmp_path: Path,
    stand_ins: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An exception at any step of one learner's handling leaves that row
    `error`, saying why, and every other row as an unharmed run has it; every
    report is written and the run ends with a verdict, not a traceback."""
    # The class judged with no fault first, in the same folder: what every
    # classmate's row must stay.
    status, out = _run(tmp_path)
    unharmed = {"rows": _rows(out), "suites": _suites(out)}
    assert status == 0 and len(unharmed["rows"]) == len(CLASS)
    capsys.readouterr()
    module, name, raising_when, shown_in = STEPS[step]
    original = getattr(module, name)
    fault = _for_victim(raising_when)
    fault.original = original  # type: ignore[attr-defined]
    monkeypatch.setattr(module, name, fault)
    real_judge = _judge._judge

    def judging(learner: Any, *args: Any, **kwargs: Any) -> Any:
        _judging["path"] = learner.path
        return real_judge(learner, *args, **kwargs)

    monkeypatch.setattr(_judge, "_judge", judging)
    status, out = _run(tmp_path)
    said = capsys.readouterr()
    everywhere = shown_in == "every report"
    # The verdicts decide the status: a row one report could not show is
    # that report's error, not the learner's.
    assert status == (1 if everywhere else 0), said.err
    assert all(path.exists() for path in out.values()), said.err
    assert "Traceback" not in said.err
    rows, suites = _rows(out), _suites(out)
    harmed = {
        "json": everywhere or shown_in == "json row",
        "junit": everywhere or shown_in == "junit",
        "html": everywhere or shown_in == "html",
        "terminal": everywhere or shown_in == "terminal",
    }
    for learner in CLASS:
        if learner == VICTIM and harmed["json"]:
            assert rows[learner]["status"] == "error"
            assert INJECTED in rows[learner]["detail"]
        else:
            assert rows[learner] == unharmed["rows"][learner], learner
        if learner == VICTIM and harmed["junit"]:
            assert INJECTED.encode() in suites[learner]
        else:
            assert suites[learner] == unharmed["suites"][learner], learner
    page = out["html"].read_text(encoding="utf-8")
    assert (f"_Injected: {INJECTED}" in page) == harmed["html"]
    errors = [line for line in said.out.splitlines() if " error " in line]
    assert len(errors) == harmed["terminal"], said.out
    assert all(line.split()[0] == VICTIM for line in errors)
