"""The chapter's scenario end to end, and ``python -m evaluator demo``.

A scripted model drives the real loop: read app.py, edit it, run the one
allowed validation command, finish.  The run is then judged by the chapter's
case, and by single-fact variants of it that must fail exactly one check.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import evaluator.__main__ as cli
import evaluator._demo as demo
from evaluator import (
    EvaluationCase,
    FileExpectation,
    ReceiptExpectation,
    ReceiptStore,
    ResultExpectation,
    ToolAction,
    evaluate_run,
)
from evaluator._forms import case_from_json, run_from_json

PROJECT = Path(__file__).resolve().parents[2]
REPORT = [
    "evaluation: PASS",
    "- final: PASS (required final observed)",
    "- file:app.py: PASS (content matches)",
    "- result:run_command: PASS (required result observed)",
    "- receipt:call-1: PASS (receipt facts match)",
    "- receipt:call-2: PASS (receipt facts match)",
]

# The chapter's tests also require the edit's own result.
COURSE_CASE = EvaluationCase(
    final_contains="validated",
    files=(FileExpectation("app.py", "answer = 2\n"),),
    results=(
        ResultExpectation("edit_file", "edited app.py"),
        ResultExpectation("run_command", "validation passed"),
    ),
    receipts=(
        ReceiptExpectation("call-1", "edit_file", "ok", "edited app.py", ("app.py",)),
        ReceiptExpectation("call-2", "run_command", "ok", "validation passed"),
    ),
)


@pytest.fixture
def outcome(tmp_path: Path) -> demo.DemoOutcome:
    return demo.run_demo(tmp_path)


# --- the scenario ------------------------------------------------------------


def test_the_scenario_passes_the_chapters_case(outcome: demo.DemoOutcome) -> None:
    report = evaluate_run(outcome.run, outcome.workspace, outcome.receipts, COURSE_CASE)
    assert report.render().splitlines() == [
        "evaluation: PASS",
        "- final: PASS (required final observed)",
        "- file:app.py: PASS (content matches)",
        "- result:edit_file: PASS (required result observed)",
        "- result:run_command: PASS (required result observed)",
        "- receipt:call-1: PASS (receipt facts match)",
        "- receipt:call-2: PASS (receipt facts match)",
    ]


def test_the_scenario_really_ran(outcome: demo.DemoOutcome, tmp_path: Path) -> None:
    assert outcome.report.render().splitlines() == REPORT
    assert outcome.run.completed and outcome.run.reason == "completed"
    assert [type(e.action).__name__ for e in outcome.run.events] == [
        "ToolAction",
        "ToolAction",
        "ToolAction",
        "FinalAction",
    ]
    assert (tmp_path / "workspace" / "app.py").read_bytes() == b"answer = 2\n"
    assert outcome.workspace.modified_files == ("app.py",)
    logged = [
        json.loads(line)
        for line in (tmp_path / "receipts.jsonl").read_text().splitlines()
    ]
    assert [(r["tool_call_id"], r["tool"], r["exit_state"]) for r in logged] == [
        ("call-1", "edit_file", "ok"),
        ("call-2", "run_command", "ok"),
    ]
    # The log sits beside the workspace root, not inside it.
    assert sorted(p.name for p in (tmp_path / "workspace").iterdir()) == ["app.py"]


@pytest.mark.parametrize(
    ("fact", "failed"),
    [
        ("final", "final"),
        ("file", "file:app.py"),
        ("result", "result:run_command"),
        ("receipt-tool", "receipt:call-1"),
        ("receipt-state", "receipt:call-1"),
        ("receipt-result", "receipt:call-2"),
        ("receipt-artifacts", "receipt:call-1"),
    ],
)
def test_each_wrong_fact_fails_only_its_own_check(
    outcome: demo.DemoOutcome, fact: str, failed: str
) -> None:
    case = COURSE_CASE
    edit, command = case.receipts
    if fact == "final":
        case = dataclasses.replace(case, final_contains="not in the final")
    elif fact == "file":
        case = dataclasses.replace(
            case, files=(FileExpectation("app.py", "answer = 1\n"),)
        )
    elif fact == "result":
        wrong = ResultExpectation("run_command", "status: 9")
        case = dataclasses.replace(case, results=(case.results[0], wrong))
    elif fact == "receipt-tool":
        case = dataclasses.replace(
            case, receipts=(dataclasses.replace(edit, tool="write_file"), command)
        )
    elif fact == "receipt-state":
        case = dataclasses.replace(
            case, receipts=(dataclasses.replace(edit, exit_state="error"), command)
        )
    elif fact == "receipt-result":
        changed = dataclasses.replace(command, result_contains="validation failed")
        case = dataclasses.replace(case, receipts=(edit, changed))
    else:
        changed = dataclasses.replace(edit, changed_artifacts=("other.py",))
        case = dataclasses.replace(case, receipts=(changed, command))
    report = evaluate_run(outcome.run, outcome.workspace, outcome.receipts, case)
    assert [check.name for check in report.checks if not check.passed] == [failed]


def test_an_incomplete_run_fails_only_the_final_check(
    outcome: demo.DemoOutcome,
) -> None:
    incomplete = dataclasses.replace(outcome.run, completed=False, reason="step_limit")
    report = evaluate_run(incomplete, outcome.workspace, outcome.receipts, COURSE_CASE)
    assert [check.name for check in report.checks if not check.passed] == ["final"]


def test_other_phrasing_and_event_order_still_pass(outcome: demo.DemoOutcome) -> None:
    alternate = dataclasses.replace(
        outcome.run,
        final="The outcome is validated by the recorded evidence.",
        events=tuple(reversed(outcome.run.events)),
    )
    assert evaluate_run(
        alternate, outcome.workspace, outcome.receipts, COURSE_CASE
    ).passed


def test_an_in_memory_store_is_asked_directly(outcome: demo.DemoOutcome) -> None:
    copy = ReceiptStore()
    for call_id in ("call-1", "call-2"):
        found = outcome.receipts.get(call_id)
        assert found is not None
        copy.put(found)
    assert evaluate_run(outcome.run, outcome.workspace, copy, COURSE_CASE).passed
    empty = evaluate_run(outcome.run, outcome.workspace, ReceiptStore(), COURSE_CASE)
    assert [c.detail for c in empty.checks[-2:]] == ["receipt is absent"] * 2


def test_evaluating_the_scenario_changes_nothing(
    outcome: demo.DemoOutcome, tmp_path: Path
) -> None:
    def state() -> object:
        files = {
            str(path.relative_to(tmp_path)): (
                path.read_bytes(),
                path.stat().st_mtime_ns,
            )
            for path in sorted(tmp_path.rglob("*"))
            if path.is_file()
        }
        return (files, outcome.workspace.modified_files, outcome.run)

    before = state()
    for _ in range(2):
        evaluate_run(outcome.run, outcome.workspace, outcome.receipts, COURSE_CASE)
    assert state() == before


# --- the scripted model ------------------------------------------------------


def test_the_model_answers_from_its_script_then_gives_up() -> None:
    model = demo.ScriptedModel(["first", "second"])
    assert [model([]), model([]), model([])] == ["first", "second", demo.OUT_OF_SCRIPT]
    assert model.calls == 3


def test_the_demo_operator_approves() -> None:
    assert demo.approve(ToolAction("run_command", {"argv": ["x"]})) is True


def test_the_validation_command_checks_the_file(tmp_path: Path) -> None:
    command = demo.validation_command()
    (tmp_path / "app.py").write_text("answer = 1\n", encoding="utf-8")
    failed = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert failed.returncode != 0 and "validation passed" not in failed.stdout
    (tmp_path / "app.py").write_text("answer = 2\n", encoding="utf-8")
    passed = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert (passed.returncode, passed.stdout) == (0, "validation passed\n")


# --- python -m evaluator demo ------------------------------------------------


def leftovers() -> set[str]:
    return {
        n for n in os.listdir(tempfile.gettempdir()) if n.startswith("evaluator-demo-")
    }


def test_demo_prints_the_five_checks_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = leftovers()
    assert cli.main(["demo"]) == 0
    captured = capsys.readouterr()
    assert (captured.out.splitlines(), captured.err) == (REPORT, "")
    assert leftovers() == before


def test_demo_as_a_real_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evaluator", "demo"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.splitlines(), done.stderr) == (0, REPORT, "")


def test_a_failing_demo_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A model that stops after reading: nothing edited, nothing validated.
    monkeypatch.setattr(
        demo,
        "scripted_replies",
        lambda command: ('{"tool":"read_file","path":"app.py"}',),
    )
    assert cli.main(["demo"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "evaluation: FAIL"
    assert all(": FAIL (" in line for line in lines[1:])


def test_keep_leaves_everything_needed_to_check_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "new" / "kept"
    assert cli.main(["demo", "--keep", str(base)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:6] == REPORT
    assert lines[6:9] == [
        "",
        f"kept the workspace, receipt log, run and case in {base}",
        "check them again with:",
    ]
    assert sorted(p.name for p in base.iterdir()) == [
        "case.json",
        "receipts.jsonl",
        "run.json",
        "workspace",
    ]
    run = run_from_json(json.loads((base / "run.json").read_text(encoding="utf-8")))
    assert run.completed and len(run.events) == 4
    assert case_from_json(
        json.loads((base / "case.json").read_text(encoding="utf-8"))
    ) == (demo.demo_case())
    command = shlex.split(lines[9].strip())
    assert command[1:4] == ["-m", "evaluator", "check"]
    assert command[0] in ("python", sys.executable)
    done = subprocess.run(
        [sys.executable, *command[1:]],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.splitlines()) == (0, REPORT)


def test_keep_accepts_an_existing_empty_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here").mkdir()
    assert cli.main(["demo", "--keep", "here"]) == 0
    assert f"in {tmp_path / 'here'}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "taken", ["workspace", "receipts.jsonl", "run.json", "case.json"]
)
def test_keep_refuses_a_directory_holding_a_kept_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], taken: str
) -> None:
    (tmp_path / taken).write_text("mine", encoding="utf-8")
    assert cli.main(["demo", "--keep", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"error: --keep {tmp_path}: already holds {taken}; choose an empty directory\n"
    )
    assert (tmp_path / taken).read_text(encoding="utf-8") == "mine"


def test_keep_refuses_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert cli.main(["demo", "--keep", str(tmp_path / "file")]) == 2
    assert (
        capsys.readouterr().err
        == f"error: --keep {tmp_path / 'file'}: not a directory\n"
    )


def test_keep_reports_a_directory_it_cannot_create(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    target = tmp_path / "file" / "below"
    assert cli.main(["demo", "--keep", str(target)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"error: --keep {target}: cannot create it: ")
        and err.count("\n") == 1
    )


def test_the_printed_command_names_this_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli.shutil, "which", lambda name: None)
    assert shlex.split(cli.check_command(Path("/d")))[0] == sys.executable
    monkeypatch.setattr(cli.shutil, "which", lambda name: sys.executable)
    assert cli.check_command(Path("/d i r")) == (
        "python -m evaluator check '/d i r/case.json' --run '/d i r/run.json'"
        " --workspace '/d i r/workspace' --receipts '/d i r/receipts.jsonl'"
    )
    monkeypatch.setattr(cli.shutil, "which", lambda name: "/somewhere/else/python")
    assert shlex.split(cli.check_command(Path("/d")))[0] == sys.executable
