"""``python -m evaluator check``: saved runs judged again, bad input told in one line.

Also the JSON forms of runs and cases the command reads (evaluator._forms).
A kept demo (``demo --keep``) supplies a real workspace, log, run and case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evaluator.__main__ as cli
from evaluator import (
    AgentEvent,
    AgentRun,
    EvaluationCase,
    EvaluationCheck,
    EvaluationReport,
    FinalAction,
    ToolAction,
)
from evaluator._demo import demo_case, run_demo
from evaluator._forms import (
    FormError,
    case_from_json,
    case_to_json,
    report_to_json,
    run_from_json,
    run_to_json,
)

PROJECT = Path(__file__).resolve().parents[2]
PASSING = [
    "evaluation: PASS",
    "- final: PASS (required final observed)",
    "- file:app.py: PASS (content matches)",
    "- result:run_command: PASS (required result observed)",
    "- receipt:call-1: PASS (receipt facts match)",
    "- receipt:call-2: PASS (receipt facts match)",
]


class Kept:
    """The four things ``demo --keep DIR`` leaves in DIR."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.case = base / "case.json"
        self.run = base / "run.json"
        self.workspace = base / "workspace"
        self.log = base / "receipts.jsonl"

    def arguments(self, *extra: str, receipts: bool = True) -> list[str]:
        args = ["check", str(self.case), "--run", str(self.run)]
        args += ["--workspace", str(self.workspace)]
        if receipts:
            args += ["--receipts", str(self.log)]
        return args + list(extra)


@pytest.fixture
def kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Kept:
    assert cli.main(["demo", "--keep", str(tmp_path / "kept")]) == 0
    capsys.readouterr()
    return Kept(tmp_path / "kept")


def run_main(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> tuple[int, str, str]:
    status = cli.main(arguments)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_module(
    *arguments: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evaluator", *arguments],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# --- checking a saved run ----------------------------------------------------


def test_a_kept_demo_checks_again_as_it_passed(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(capsys, kept.arguments())
    assert (status, out.splitlines(), err) == (0, PASSING, "")


def test_json_output_is_the_report_form(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_main(capsys, kept.arguments("--json"))
    report = json.loads(out)
    assert status == 0
    assert set(report) == {"passed", "checks"}
    assert report["passed"] is True
    assert [check["name"] for check in report["checks"]] == [
        "final",
        "file:app.py",
        "result:run_command",
        "receipt:call-1",
        "receipt:call-2",
    ]
    assert report["checks"][1] == {
        "name": "file:app.py",
        "passed": True,
        "detail": "content matches",
    }


def test_a_changed_file_fails_with_status_one(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    (kept.workspace / "app.py").write_bytes(b"answer = 2\r\n")
    status, out, err = run_main(capsys, kept.arguments())
    assert status == 1 and err == ""
    assert out.splitlines()[0] == "evaluation: FAIL"
    assert "- file:app.py: FAIL (content does not match)" in out.splitlines()


def test_json_output_of_a_failure(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    (kept.workspace / "app.py").unlink()
    status, out, _ = run_main(capsys, kept.arguments("--json"))
    report = json.loads(out)
    assert status == 1 and report["passed"] is False
    assert report["checks"][1]["detail"].startswith("evidence unavailable: ")


def test_without_a_log_every_receipt_is_absent(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_main(capsys, kept.arguments(receipts=False))
    assert status == 1
    assert out.splitlines()[-2:] == [
        "- receipt:call-1: FAIL (receipt is absent)",
        "- receipt:call-2: FAIL (receipt is absent)",
    ]


def test_a_tampered_log_is_a_failed_evaluation_not_bad_input(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    text = kept.log.read_text(encoding="utf-8")
    kept.log.write_text(
        text.replace("edited app.py", "edited other.py", 1), encoding="utf-8"
    )
    status, out, err = run_main(capsys, kept.arguments())
    assert status == 1 and err == ""
    assert all(
        "receipt evidence unavailable: " in line for line in out.splitlines()[-2:]
    )


def test_a_fifo_log_fails_at_once_from_the_command_line(kept: Kept) -> None:
    kept.log.unlink()
    os.mkfifo(kept.log)
    done = run_module(*kept.arguments(), timeout=20)
    assert done.returncode == 1
    assert "the log is a FIFO, not a regular file" in done.stdout


def test_the_printed_report_is_the_same_from_a_real_process(kept: Kept) -> None:
    done = run_module(*kept.arguments())
    assert (done.returncode, done.stdout.splitlines(), done.stderr) == (0, PASSING, "")


# --- unusable input: status 2 and one line -----------------------------------


def write(path: Path, value: Any) -> None:
    path.write_text(
        value if isinstance(value, str) else json.dumps(value), encoding="utf-8"
    )


def replace_case(value: Any) -> Callable[[Kept], None]:
    return lambda kept: write(kept.case, value)


def replace_run(value: Any) -> Callable[[Kept], None]:
    return lambda kept: write(kept.run, value)


def edit_run(change: Callable[[dict[str, Any]], None]) -> Callable[[Kept], None]:
    def apply(kept: Kept) -> None:
        run = json.loads(kept.run.read_text(encoding="utf-8"))
        change(run)
        write(kept.run, run)

    return apply


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        place: Any = document
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda document: document.pop(key)


def _symlinked_workspace(kept: Kept) -> None:
    (kept.base / "alias").symlink_to(kept.workspace, target_is_directory=True)


GOOD_CASE = {"final_contains": "validated"}
BAD_INPUTS: list[tuple[str, Callable[[Kept], None], list[str] | None, str]] = [
    ("case-missing", lambda k: k.case.unlink(), None, "cannot read the case file"),
    (
        "case-directory",
        lambda k: (k.case.unlink(), k.case.mkdir()),
        None,
        "Is a directory",
    ),
    (
        "case-not-utf8",
        lambda k: k.case.write_bytes(b'{"final_contains":"\xff"}'),
        None,
        "is not valid UTF-8 (byte offset 19)",
    ),
    (
        "case-not-json",
        replace_case('{\n  "final_contains": }'),
        None,
        "is not valid JSON: Expecting value at line 2 column 21",
    ),
    (
        "case-too-deep",
        replace_case("[" * 100_000 + "]" * 100_000),
        None,
        "is not valid JSON",
    ),
    ("case-array", replace_case([]), None, "case must be an object, got array"),
    (
        "case-missing-key",
        replace_case({}),
        None,
        "case is missing the key 'final_contains'",
    ),
    (
        "case-extra-key",
        replace_case({**GOOD_CASE, "grader": "llm"}),
        None,
        "case has an unexpected key 'grader'",
    ),
    (
        "case-files-object",
        replace_case({**GOOD_CASE, "files": {}}),
        None,
        "case.files must be an array, got object",
    ),
    (
        "case-path-number",
        replace_case({**GOOD_CASE, "files": [{"path": 1, "content": ""}]}),
        None,
        "case.files[0].path must be a string, got number",
    ),
    (
        "case-result-null",
        replace_case({**GOOD_CASE, "results": [{"tool": "t", "contains": None}]}),
        None,
        "case.results[0].contains must be a string, got null",
    ),
    (
        "case-artifact-null",
        replace_case(
            {
                **GOOD_CASE,
                "receipts": [
                    {
                        "tool_call_id": "c",
                        "tool": "t",
                        "exit_state": "ok",
                        "result_contains": "r",
                        "changed_artifacts": ["a", None],
                    }
                ],
            }
        ),
        None,
        "case.receipts[0].changed_artifacts[1] must be a string, got null",
    ),
    (
        "case-receipt-bool",
        replace_case(
            {
                **GOOD_CASE,
                "receipts": [
                    {
                        "tool_call_id": True,
                        "tool": "t",
                        "exit_state": "ok",
                        "result_contains": "r",
                    }
                ],
            }
        ),
        None,
        "case.receipts[0].tool_call_id must be a string, got boolean",
    ),
    (
        "case-duplicate-paths",
        replace_case(
            {
                **GOOD_CASE,
                "files": [
                    {"path": "a/b", "content": ""},
                    {"path": "a//b", "content": ""},
                ],
            }
        ),
        None,
        "file paths must be unique: 'a/b' appears more than once",
    ),
    (
        "case-blank-final",
        replace_case({"final_contains": "  "}),
        None,
        "final substring must not be blank",
    ),
    (
        "case-exit-state",
        replace_case(
            {
                **GOOD_CASE,
                "receipts": [
                    {
                        "tool_call_id": "c",
                        "tool": "t",
                        "exit_state": "fine",
                        "result_contains": "r",
                    }
                ],
            }
        ),
        None,
        "receipt exit_state must be 'ok' or 'error', got 'fine'",
    ),
    ("run-missing", lambda k: k.run.unlink(), None, "cannot read the run file"),
    ("run-not-json", replace_run("{"), None, "run file"),
    (
        "run-completed-string",
        edit_run(_set(("completed",), "yes")),
        None,
        "run.completed must be a boolean, got string",
    ),
    (
        "run-final-number",
        edit_run(_set(("final",), 2)),
        None,
        "run.final must be a string, got number",
    ),
    (
        "run-no-events",
        edit_run(_drop("events")),
        None,
        "run is missing the key 'events'",
    ),
    (
        "run-events-object",
        edit_run(_set(("events",), {})),
        None,
        "run.events must be an array, got object",
    ),
    (
        "run-step-bool",
        edit_run(_set(("events", 0, "step"), True)),
        None,
        "run.events[0].step must be an integer, got boolean",
    ),
    (
        "run-step-float",
        edit_run(_set(("events", 0, "step"), 1.0)),
        None,
        "run.events[0].step must be an integer, got number",
    ),
    (
        "run-tool-number",
        edit_run(_set(("events", 0, "action", "tool"), 3)),
        None,
        "run.events[0].action.tool must be a string, got number",
    ),
    (
        "run-arguments-array",
        edit_run(_set(("events", 0, "action", "arguments"), [])),
        None,
        "run.events[0].action.arguments must be an object, got array",
    ),
    (
        "run-action-string",
        edit_run(_set(("events", 0, "action"), "read_file")),
        None,
        "run.events[0].action must be an object, got string",
    ),
    (
        "run-final-and-tool",
        edit_run(_set(("events", 3, "action", "tool"), "x")),
        None,
        "run.events[3].action has an unexpected key 'tool'",
    ),
    (
        "run-final-action-null",
        edit_run(_set(("events", 3, "action", "final"), None)),
        None,
        "run.events[3].action.final must be a string, got null",
    ),
    (
        "run-result-number",
        edit_run(_set(("events", 0, "result"), 0)),
        None,
        "run.events[0].result must be a string, got number",
    ),
    (
        "run-response-missing",
        edit_run(lambda r: r["events"][0].pop("response")),
        None,
        "run.events[0] is missing the key 'response'",
    ),
    (
        "run-modified-files",
        edit_run(_set(("modified_files",), [1])),
        None,
        "run.modified_files[0] must be a string, got number",
    ),
    (
        "workspace-missing",
        lambda k: None,
        ["--workspace", "nowhere"],
        "workspace nowhere does not exist",
    ),
    ("workspace-file", lambda k: None, ["--workspace", "CASE"], "workspace "),
    ("workspace-symlink", _symlinked_workspace, ["--workspace", "ALIAS"], "symlink"),
    ("log-missing", lambda k: k.log.unlink(), None, "receipt log "),
]


@pytest.mark.parametrize(
    ("change", "override", "message"),
    [(change, override, message) for _, change, override, message in BAD_INPUTS],
    ids=[name for name, _, _, _ in BAD_INPUTS],
)
def test_unusable_input_exits_2_with_one_line(
    kept: Kept,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Kept], None],
    override: list[str] | None,
    message: str,
) -> None:
    monkeypatch.chdir(kept.base)
    change(kept)
    arguments = kept.arguments()
    if override is not None:
        flag, value = override
        value = {"CASE": str(kept.case), "ALIAS": str(kept.base / "alias")}.get(
            value, value
        )
        arguments[arguments.index(flag) + 1] = value
    status, out, err = run_main(capsys, arguments)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert message in err
    assert "Traceback" not in err


def test_a_log_named_but_missing_says_so(
    kept: Kept, capsys: pytest.CaptureFixture[str]
) -> None:
    kept.log.unlink()
    _, _, err = run_main(capsys, kept.arguments())
    assert err == f"error: receipt log {kept.log} does not exist\n"


def test_an_unexpected_failure_is_still_one_line(
    kept: Kept, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object) -> EvaluationReport:
        raise RuntimeError("boom\n  on two lines")

    monkeypatch.setattr(cli, "evaluate_run", broken)
    status, out, err = run_main(capsys, kept.arguments())
    assert (status, out, err) == (
        2,
        "",
        "error: unexpected RuntimeError: boom on two lines\n",
    )


@pytest.mark.parametrize(
    "arguments",
    [
        [],
        ["check"],
        ["check", "case.json"],
        ["check", "case.json", "--run", "r"],
        ["grade"],
    ],
    ids=["no-command", "no-case", "no-run", "no-workspace", "unknown-command"],
)
def test_argument_mistakes_exit_2_with_usage(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(arguments)
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert err.startswith("usage: python -m evaluator")
    assert "Traceback" not in err


def test_bad_input_from_a_real_process_has_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "case.json").write_text("{", encoding="utf-8")
    done = run_module(
        "check", str(tmp_path / "case.json"), "--run", "r", "--workspace", "."
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: case file ") and done.stderr.count("\n") == 1
    done = run_module()
    assert done.returncode == 2 and "Traceback" not in done.stderr


# --- the JSON forms ----------------------------------------------------------


def test_runs_and_cases_round_trip(tmp_path: Path) -> None:
    outcome = run_demo(tmp_path)
    assert (
        run_from_json(json.loads(json.dumps(run_to_json(outcome.run)))) == outcome.run
    )
    assert (
        case_from_json(json.loads(json.dumps(case_to_json(outcome.case))))
        == outcome.case
    )


def test_a_run_with_every_kind_of_event_round_trips() -> None:
    run = AgentRun(
        False,
        "invalid_action_limit",
        None,
        (
            AgentEvent(1, "nonsense", None, "error: response is not valid JSON"),
            AgentEvent(
                2, "{}", ToolAction("run_command", {"argv": ["x", "y"]}), "status: 0"
            ),
            AgentEvent(3, "{}", FinalAction("done"), None),
        ),
        ("a.py", "b/c.py"),
    )
    assert run_from_json(run_to_json(run)) == run


def test_optional_keys_may_be_left_out() -> None:
    run = run_from_json(
        {"completed": True, "reason": "completed", "final": "f", "events": []}
    )
    assert run == AgentRun(True, "completed", "f", (), ())
    case = case_from_json(
        {
            "final_contains": "f",
            "receipts": [
                {
                    "tool_call_id": "c",
                    "tool": "t",
                    "exit_state": "ok",
                    "result_contains": "r",
                }
            ],
        }
    )
    assert case.files == () and case.results == ()
    assert case.receipts[0].changed_artifacts == ()


def test_paths_are_saved_normalised() -> None:
    case = case_from_json(
        {"final_contains": "f", "files": [{"path": "./a//b", "content": ""}]}
    )
    assert case_to_json(case)["files"] == [{"path": "a/b", "content": ""}]


def test_only_real_events_and_actions_have_a_json_form() -> None:
    with pytest.raises(FormError, match="run events must be AgentEvent, got str"):
        run_to_json(AgentRun(True, "completed", "f", ("event",)))  # type: ignore[arg-type]
    odd = AgentEvent(1, "{}", "read_file", None)  # type: ignore[arg-type]
    with pytest.raises(FormError, match="a FinalAction, a ToolAction or None, got str"):
        run_to_json(AgentRun(True, "completed", "f", (odd,)))


def test_a_python_value_that_json_cannot_hold_is_named_by_its_type() -> None:
    with pytest.raises(FormError, match="run.completed must be a boolean, got object"):
        run_from_json(
            {"completed": object(), "reason": "r", "final": None, "events": []}
        )


def test_the_report_form() -> None:
    report = EvaluationReport(
        (
            EvaluationCheck("final", True, "required final observed"),
            EvaluationCheck("file:a", False, "content does not match"),
        )
    )
    assert report_to_json(report) == {
        "passed": False,
        "checks": [
            {"name": "final", "passed": True, "detail": "required final observed"},
            {"name": "file:a", "passed": False, "detail": "content does not match"},
        ],
    }


def test_the_demo_case_round_trips_to_the_documented_form() -> None:
    assert case_to_json(demo_case()) == {
        "final_contains": "validated",
        "files": [{"path": "app.py", "content": "answer = 2\n"}],
        "results": [{"tool": "run_command", "contains": "validation passed"}],
        "receipts": [
            {
                "tool_call_id": "call-1",
                "tool": "edit_file",
                "exit_state": "ok",
                "result_contains": "edited app.py",
                "changed_artifacts": ["app.py"],
            },
            {
                "tool_call_id": "call-2",
                "tool": "run_command",
                "exit_state": "ok",
                "result_contains": "validation passed",
                "changed_artifacts": [],
            },
        ],
    }
    assert isinstance(case_from_json(case_to_json(demo_case())), EvaluationCase)
