"""The bundled evaluator's Day 7 rules, one example at a time.

Case validation, the four kinds of check with every detail they can give, the
report and its rendering, and the argument checks of ``evaluate_run``.  The
hardening beyond the chapter (odd files, races, bounded reads, odd logs) is in
test_hardening.py; the command line in test_cli.py and test_demo.py.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evaluator import (
    AgentError,
    AgentEvent,
    AgentRun,
    EffectReceipt,
    EvaluationCase,
    EvaluationCheck,
    EvaluationReport,
    FileExpectation,
    FinalAction,
    ReceiptExpectation,
    ReceiptStore,
    ResultExpectation,
    ToolAction,
    ToolPolicy,
    Workspace,
    evaluate_run,
)

# --- small worlds ------------------------------------------------------------


def tool_event(step: int, tool: str, result: object, **arguments: Any) -> AgentEvent:
    response = f'{{"tool":"{tool}"}}'
    return AgentEvent(step, response, ToolAction(tool, arguments), result)  # type: ignore[arg-type]


def final_event(step: int, text: str) -> AgentEvent:
    return AgentEvent(step, f'{{"final":"{text}"}}', FinalAction(text), None)


def run_of(*events: object, final: object = "done and validated") -> AgentRun:
    completed = final is not None
    reason = "completed" if completed else "step_limit"
    return AgentRun(completed, reason, final, tuple(events))  # type: ignore[arg-type]


def workspace_at(root: Path) -> Workspace:
    return Workspace(ToolPolicy(root))


def only(report: EvaluationReport, prefix: str) -> EvaluationCheck:
    matches = [check for check in report.checks if check.name.startswith(prefix)]
    assert len(matches) == 1, report.render()
    return matches[0]


def receipt(
    call_id: str = "call-1",
    tool: str = "edit_file",
    exit_state: str = "ok",
    result: str = "edited app.py",
    artifacts: tuple[str, ...] = ("app.py",),
) -> EffectReceipt:
    return EffectReceipt(
        call_id, tool, {"path": "app.py"}, exit_state, result, artifacts
    )


def store_with(*receipts: EffectReceipt, path: Path | None = None) -> ReceiptStore:
    store = ReceiptStore(path)
    for item in receipts:
        store.put(item)
    return store


EDIT = ReceiptExpectation("call-1", "edit_file", "ok", "edited app.py", ("app.py",))


# --- case validation ---------------------------------------------------------

BLANK_FIELDS: list[tuple[str, Callable[[str], object]]] = [
    ("final substring", lambda s: EvaluationCase(s)),
    ("file path", lambda s: FileExpectation(s, "x")),
    ("result tool", lambda s: ResultExpectation(s, "x")),
    ("result substring", lambda s: ResultExpectation("read_file", s)),
    ("receipt call id", lambda s: ReceiptExpectation(s, "t", "ok", "x")),
    ("receipt tool", lambda s: ReceiptExpectation("call-1", s, "ok", "x")),
    ("receipt result substring", lambda s: ReceiptExpectation("c", "t", "ok", s)),
    ("changed artifact", lambda s: ReceiptExpectation("c", "t", "ok", "x", (s,))),
]


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000"])
@pytest.mark.parametrize(
    ("field", "build"), BLANK_FIELDS, ids=[f for f, _ in BLANK_FIELDS]
)
def test_blank_required_strings_are_rejected_naming_the_field(
    field: str, build: Callable[[str], object], blank: str
) -> None:
    with pytest.raises(ValueError, match=f"^{field} must not be blank"):
        build(blank)


@pytest.mark.parametrize("value", [None, 3, b"bytes", ["a"]])
@pytest.mark.parametrize(
    ("field", "build"), BLANK_FIELDS, ids=[f for f, _ in BLANK_FIELDS]
)
def test_non_string_required_fields_are_rejected_naming_the_field(
    field: str, build: Callable[[Any], object], value: object
) -> None:
    with pytest.raises(ValueError, match=f"^{field} must be a string, got"):
        build(value)


BAD_PATHS = [
    ("/etc/passwd", "must be relative"),
    ("//server/share", "must be relative"),
    (".", "not '.'"),
    ("./", "not '.'"),
    ("./.", "not '.'"),
    ("..", "'..' component"),
    ("a/../b", "'..' component"),
    ("a/..", "'..' component"),
    ("a\0b", "NUL"),
]


@pytest.mark.parametrize(("raw", "reason"), BAD_PATHS)
def test_bad_file_paths_are_rejected(raw: str, reason: str) -> None:
    with pytest.raises(ValueError, match="^file path ") as caught:
        FileExpectation(raw, "content")
    assert reason in str(caught.value)


@pytest.mark.parametrize(("raw", "reason"), BAD_PATHS)
def test_bad_changed_artifacts_are_rejected(raw: str, reason: str) -> None:
    with pytest.raises(ValueError, match="^changed artifact ") as caught:
        ReceiptExpectation("call-1", "edit_file", "ok", "edited", ("ok.py", raw))
    assert reason in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("a//b", "a/b"),
        ("./a/b", "a/b"),
        ("a/b/", "a/b"),
        ("a/./b", "a/b"),
        (".//a///b//", "a/b"),
        ("app.py", "app.py"),
        (" spaced name ", " spaced name "),
        ("back\\slash", "back\\slash"),
    ],
)
def test_paths_and_artifacts_are_stored_normalised(raw: str, stored: str) -> None:
    assert FileExpectation(raw, "x").path == stored
    expectation = ReceiptExpectation("c", "t", "ok", "x", (raw, "other"))
    assert expectation.changed_artifacts == (stored, "other")


@pytest.mark.parametrize("state", ["maybe", "OK", "Error", "", None, 1])
def test_exit_state_must_be_ok_or_error(state: object) -> None:
    with pytest.raises(ValueError, match="^receipt exit_state must be 'ok' or 'error'"):
        ReceiptExpectation("call-1", "edit_file", state, "edited")  # type: ignore[arg-type]


def test_exit_state_error_is_accepted() -> None:
    assert (
        ReceiptExpectation("call-1", "run_command", "error", "status").exit_state
        == "error"
    )


def test_file_content_must_be_a_string_but_may_be_empty() -> None:
    with pytest.raises(ValueError, match="^file content must be a string, got bytes"):
        FileExpectation("app.py", b"answer")  # type: ignore[arg-type]
    assert FileExpectation("app.py", "").content == ""


def test_changed_artifacts_must_be_a_tuple() -> None:
    with pytest.raises(
        ValueError, match="changed artifacts must be a tuple .* got list"
    ):
        ReceiptExpectation("call-1", "edit_file", "ok", "edited", ["app.py"])  # type: ignore[arg-type]


GROUPS = [
    ("files", FileExpectation("a", "x"), ResultExpectation("t", "x")),
    ("results", ResultExpectation("t", "x"), FileExpectation("a", "x")),
    ("receipts", EDIT, ResultExpectation("t", "x")),
]


@pytest.mark.parametrize(
    ("group", "good", "wrong"), GROUPS, ids=[g for g, _, _ in GROUPS]
)
def test_groups_must_be_tuples_of_their_type(
    group: str, good: object, wrong: object
) -> None:
    kind = type(good).__name__
    with pytest.raises(
        ValueError, match=f"^case {group} must be a tuple of {kind}, got list"
    ):
        EvaluationCase("done", **{group: [good]})
    with pytest.raises(ValueError, match=f"got {type(wrong).__name__} at index 1"):
        EvaluationCase("done", **{group: (good, wrong)})
    assert getattr(EvaluationCase("done", **{group: (good,)}), group) == (good,)


@pytest.mark.parametrize(
    ("first", "second"), [("a/b", "a//b"), ("a/b", "./a/b"), ("x", "x")]
)
def test_file_paths_must_be_unique_after_normalisation(first: str, second: str) -> None:
    files = (FileExpectation(first, "1"), FileExpectation(second, "2"))
    with pytest.raises(ValueError, match="^file paths must be unique"):
        EvaluationCase("done", files=files)


def test_receipt_call_ids_must_be_unique() -> None:
    repeated = (EDIT, ReceiptExpectation("call-1", "run_command", "ok", "status"))
    with pytest.raises(ValueError, match="^receipt call ids must be unique"):
        EvaluationCase("done", receipts=repeated)


def test_a_repeat_is_named_by_the_first_value_met_twice() -> None:
    files = tuple(FileExpectation(path, "x") for path in ("a", "b", "c", "c", "a"))
    with pytest.raises(ValueError, match="^file paths must be unique: 'c' appears"):
        EvaluationCase("done", files=files)
    receipts = tuple(
        ReceiptExpectation(call_id, "run_command", "ok", "status")
        for call_id in ("call-1", "call-2", "call-1", "call-2")
    )
    with pytest.raises(ValueError, match="call ids must be unique: 'call-1' appears"):
        EvaluationCase("done", receipts=receipts)


def test_result_expectations_may_repeat(tmp_path: Path) -> None:
    twice = (ResultExpectation("read_file", "answer"),) * 2
    case = EvaluationCase("done", results=twice)
    run = run_of(tool_event(1, "read_file", "answer = 1\n"), final_event(2, "done"))
    report = evaluate_run(run, workspace_at(tmp_path), ReceiptStore(), case)
    assert [check.name for check in report.checks] == ["final", "result:read_file"] + [
        "result:read_file"
    ]
    assert report.passed


def test_a_case_altered_by_force_is_rejected_again(tmp_path: Path) -> None:
    case = EvaluationCase("done")
    object.__setattr__(case, "files", [FileExpectation("a", "x")])
    with pytest.raises(ValueError, match="^case files must be a tuple"):
        evaluate_run(run_of(), workspace_at(tmp_path), ReceiptStore(), case)


# --- evaluate_run's arguments ------------------------------------------------


@pytest.mark.parametrize(
    ("position", "expected"),
    [(0, "AgentRun"), (1, "Workspace"), (2, "ReceiptStore"), (3, "EvaluationCase")],
)
def test_wrong_arguments_are_rejected_naming_the_expected_type(
    tmp_path: Path, position: int, expected: str
) -> None:
    arguments: list[object] = [
        run_of(),
        workspace_at(tmp_path),
        ReceiptStore(),
        EvaluationCase("done"),
    ]
    arguments[position] = object()
    with pytest.raises(
        ValueError, match=f"must be an instance of {expected}, got object"
    ):
        evaluate_run(*arguments)  # type: ignore[arg-type]


# --- the report --------------------------------------------------------------


def test_an_empty_report_does_not_pass() -> None:
    report = EvaluationReport(())
    assert report.passed is False
    assert report.render() == "evaluation: FAIL"


def test_report_passes_only_when_every_check_passes() -> None:
    good = EvaluationCheck("final", True, "required final observed")
    bad = EvaluationCheck("file:a", False, "content does not match")
    assert EvaluationReport((good,)).passed is True
    assert EvaluationReport((good, bad)).passed is False
    assert EvaluationReport((bad, good)).passed is False


def test_render_has_a_verdict_line_then_one_line_per_check() -> None:
    report = EvaluationReport(
        (
            EvaluationCheck("final", True, "required final observed"),
            EvaluationCheck("file:src/app.py", False, "content does not match"),
        )
    )
    assert report.render() == (
        "evaluation: FAIL\n"
        "- final: PASS (required final observed)\n"
        "- file:src/app.py: FAIL (content does not match)"
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ((1, True, "d"), "check name must be a string"),
        (("n", 1, "d"), "check passed must be a bool"),
        (("n", None, "d"), "check passed must be a bool"),
        (("n", True, None), "check detail must be a string"),
    ],
)
def test_checks_validate_their_fields(fields: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EvaluationCheck(*fields)


def test_reports_hold_a_tuple_of_checks() -> None:
    check = EvaluationCheck("final", True, "required final observed")
    with pytest.raises(
        ValueError, match="^report checks must be a tuple of EvaluationCheck, got list"
    ):
        EvaluationReport([check])  # type: ignore[arg-type]


def test_checks_come_in_case_order_final_files_results_receipts(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("b", encoding="utf-8")
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    case = EvaluationCase(
        "done",
        files=(FileExpectation("b.txt", "b"), FileExpectation("./a.txt", "a")),
        results=(
            ResultExpectation("write_file", "w"),
            ResultExpectation("edit_file", "e"),
        ),
        receipts=(
            ReceiptExpectation("call-2", "t", "ok", "x"),
            ReceiptExpectation("call-1", "t", "ok", "x"),
        ),
    )
    report = evaluate_run(run_of(), workspace_at(tmp_path), ReceiptStore(), case)
    assert [check.name for check in report.checks] == [
        "final",
        "file:b.txt",
        "file:a.txt",
        "result:write_file",
        "result:edit_file",
        "receipt:call-2",
        "receipt:call-1",
    ]


# --- final -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("completed", "final", "passed"),
    [
        (True, "updated app.py and validated it", True),
        (True, "validated", True),
        (False, "updated app.py and validated it", False),
        (True, "VALIDATED", False),
        (True, "valid ated", False),
        (True, "", False),
        (True, None, False),
        (True, 42, False),
        (True, b"validated", False),
        (True, ["validated"], False),
        (1, "validated", False),
        ("yes", "validated", False),
    ],
)
def test_final_needs_a_completed_run_whose_final_contains_the_substring(
    tmp_path: Path, completed: object, final: object, passed: bool
) -> None:
    run = AgentRun(completed, "completed", final, ())  # type: ignore[arg-type]
    report = evaluate_run(
        run, workspace_at(tmp_path), ReceiptStore(), EvaluationCase("validated")
    )
    detail = "required final observed" if passed else "required final not observed"
    assert report.checks == (EvaluationCheck("final", passed, detail),)
    assert report.passed is passed


def test_final_substring_is_not_stripped(tmp_path: Path) -> None:
    run = run_of(final="validated")
    case = EvaluationCase(" validated")
    report = evaluate_run(run, workspace_at(tmp_path), ReceiptStore(), case)
    assert not report.passed


# --- files -------------------------------------------------------------------


def file_check(root: Path, path: str, content: str) -> EvaluationCheck:
    case = EvaluationCase("done", files=(FileExpectation(path, content),))
    report = evaluate_run(run_of(), workspace_at(root), ReceiptStore(), case)
    return report.checks[1]


@pytest.mark.parametrize(
    ("data", "expected", "passed"),
    [
        (b"answer = 2\n", "answer = 2\n", True),
        (b"", "", True),
        (b"caf\xc3\xa9\n", "caf\u00e9\n", True),
        (b"answer = 2\nextra\n", "answer = 2\n", False),
        (b"answer = 2", "answer = 2\n", False),
        (b"answer = 2\n\n", "answer = 2\n", False),
        (b"answer = 2\r\n", "answer = 2\n", False),
        (b"answer = 2\r", "answer = 2\n", False),
        (b"answer = 2\n", "answer = 2\r\n", False),
        (b"\xef\xbb\xbfanswer = 2\n", "answer = 2\n", False),
        (b"\xef\xbb\xbfanswer = 2\n", "\ufeffanswer = 2\n", True),
        (b" answer = 2\n", "answer = 2\n", False),
        (b"answer = 2 \n", "answer = 2\n", False),
        (b"Answer = 2\n", "answer = 2\n", False),
        (b"answer = 2\n", "answer", False),
        (b"x", "", False),
        (b"", "x", False),
    ],
)
def test_file_content_must_match_exactly(
    tmp_path: Path, data: bytes, expected: str, passed: bool
) -> None:
    (tmp_path / "app.py").write_bytes(data)
    check = file_check(tmp_path, "app.py", expected)
    detail = "content matches" if passed else "content does not match"
    assert check == EvaluationCheck("file:app.py", passed, detail)


@pytest.mark.parametrize(
    "data",
    [b"answer = \xff2\n", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"ok\n\x80"],
    ids=["ff", "truncated", "surrogate", "overlong", "continuation"],
)
def test_invalid_utf8_is_unavailable_evidence_not_a_replacement(
    tmp_path: Path, data: bytes
) -> None:
    (tmp_path / "app.py").write_bytes(data)
    replaced = data.decode("utf-8", errors="replace")
    check = file_check(tmp_path, "app.py", replaced)
    assert not check.passed
    assert check.detail.startswith("evidence unavailable: app.py is not valid UTF-8")


def test_content_with_a_lone_surrogate_never_matches(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_bytes(b"\xed\xa0\x80")
    assert file_check(tmp_path, "app.py", "\ud800").detail.startswith(
        "evidence unavailable"
    )
    (tmp_path / "app.py").write_bytes(b"x")
    assert file_check(tmp_path, "app.py", "\ud800") == EvaluationCheck(
        "file:app.py", False, "content does not match"
    )


def test_file_check_names_the_normalised_path(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x", encoding="utf-8")
    check = file_check(tmp_path, "./src//app.py/", "x")
    assert check == EvaluationCheck("file:src/app.py", True, "content matches")


@pytest.mark.parametrize(
    ("make", "path", "reason"),
    [
        (lambda root: None, "missing.txt", "does not exist"),
        (lambda root: (root / "folder").mkdir(), "folder", "is a directory"),
        (lambda root: (root / ".env").write_text("x"), ".env", "protected"),
        (lambda root: (root / "deploy.pem").write_text("x"), "deploy.pem", "protected"),
        (
            lambda root: (root / "app.py").write_text("x"),
            "app.py/inner",
            "does not exist",
        ),
        (lambda root: (root / "link").symlink_to(root / "target"), "link", "symlink"),
    ],
    ids=[
        "missing",
        "directory",
        "protected",
        "protected-suffix",
        "through-file",
        "symlink",
    ],
)
def test_unavailable_file_evidence_is_a_failed_check(
    tmp_path: Path, make: Callable[[Path], object], path: str, reason: str
) -> None:
    (tmp_path / "target").write_text("x", encoding="utf-8")
    make(tmp_path)
    check = file_check(tmp_path, path, "x")
    assert not check.passed
    assert check.detail.startswith("evidence unavailable: ")
    assert reason in check.detail


def test_file_evidence_never_uses_the_stateful_read_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "app.py").write_text("answer = 2\n", encoding="utf-8")
    workspace = workspace_at(tmp_path)

    def forbidden(*_args: object, **_kwargs: object) -> str:
        raise AssertionError("evaluation must not call read_file")

    monkeypatch.setattr(workspace, "read_file", forbidden)
    case = EvaluationCase("done", files=(FileExpectation("app.py", "answer = 2\n"),))
    assert evaluate_run(run_of(), workspace, ReceiptStore(), case).passed


def test_file_evidence_goes_through_resolve_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "app.py").write_text("x", encoding="utf-8")
    workspace = workspace_at(tmp_path)
    asked: list[str] = []

    def refusing(raw: str, *, must_exist: bool = True) -> Path:
        asked.append(raw)
        raise AgentError("the boundary says no")

    monkeypatch.setattr(workspace, "resolve_path", refusing)
    case = EvaluationCase("done", files=(FileExpectation("./app.py", "x"),))
    check = evaluate_run(run_of(), workspace, ReceiptStore(), case).checks[1]
    assert asked == ["app.py"]
    assert check == EvaluationCheck(
        "file:app.py", False, "evidence unavailable: the boundary says no"
    )


# --- results -----------------------------------------------------------------


def result_check(
    events: object, tool: str, contains: str, root: Path
) -> EvaluationCheck:
    run = AgentRun(True, "completed", "done", events)  # type: ignore[arg-type]
    case = EvaluationCase("done", results=(ResultExpectation(tool, contains),))
    return evaluate_run(run, workspace_at(root), ReceiptStore(), case).checks[1]


EDITED = tool_event(2, "edit_file", "edited app.py", path="app.py", old="1", new="2")


@pytest.mark.parametrize(
    ("events", "contains", "passed"),
    [
        ((EDITED,), "edited app.py", True),
        ((EDITED,), "edited", True),
        ((EDITED,), "app.py", True),
        ((EDITED,), "Edited app.py", False),
        ((EDITED,), "edited app.py and more", False),
        ((tool_event(1, "read_file", "edited app.py"),), "edited app.py", False),
        ((tool_event(1, "edit_file", None),), "edited", False),
        ((tool_event(1, "edit_file", 7),), "7", False),
        (
            (tool_event(1, "edit_file", "x", note="edited app.py"),),
            "edited app.py",
            False,
        ),
        (
            (AgentEvent(1, "edit_file edited app.py", None, "error: bad"),),
            "edited",
            False,
        ),
        ((final_event(1, "edit_file edited app.py"),), "edited", False),
        ((), "edited", False),
    ],
    ids=[
        "exact",
        "prefix",
        "suffix",
        "case-sensitive",
        "longer",
        "other-tool",
        "result-none",
        "result-not-string",
        "only-in-arguments",
        "unparsed-reply",
        "final-action",
        "no-events",
    ],
)
def test_result_needs_one_event_of_the_tool_containing_the_substring(
    tmp_path: Path, events: tuple[AgentEvent, ...], contains: str, passed: bool
) -> None:
    check = result_check(events, "edit_file", contains, tmp_path)
    detail = "required result observed" if passed else "required result not observed"
    assert check == EvaluationCheck("result:edit_file", passed, detail)


def test_tool_and_substring_must_meet_in_the_same_event(tmp_path: Path) -> None:
    events = (
        tool_event(1, "read_file", "edited app.py", path="app.py"),
        tool_event(2, "edit_file", "edit completed", path="app.py"),
    )
    assert not result_check(events, "edit_file", "edited app.py", tmp_path).passed


@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_results_are_facts_in_any_order_among_unrelated_events(
    tmp_path: Path, position: int
) -> None:
    others = [
        tool_event(1, "read_file", "answer = 1\n", path="app.py"),
        tool_event(2, "edit_file", "error: old text must occur once"),
        AgentEvent(3, "not json", None, "error: response is not valid JSON"),
    ]
    events = others[:position] + [EDITED] + others[position:]
    assert result_check(tuple(events), "edit_file", "edited app.py", tmp_path).passed
    assert result_check(list(events), "edit_file", "edited app.py", tmp_path).passed


def test_a_substring_never_matches_across_two_results(tmp_path: Path) -> None:
    events = (tool_event(1, "run_command", "ab"), tool_event(2, "run_command", "cd"))
    assert not result_check(events, "run_command", "bc", tmp_path).passed
    # With NUL in the expected substring the joined-text search is not used.
    assert not result_check(events, "run_command", "b\0c", tmp_path).passed


@pytest.mark.parametrize(
    ("results", "contains", "passed"),
    [
        (("a\0b",), "a\0b", True),
        (("a", "b"), "a\0b", False),
        (("x\0y", "z"), "y", True),
        (("x\0y", "z"), "y\0z", False),
        (("\0",), "\0", True),
        (("a\0", "\0b"), "\0\0", False),
    ],
)
def test_nul_characters_in_results_and_substrings_are_exact(
    tmp_path: Path, results: tuple[str, ...], contains: str, passed: bool
) -> None:
    events = tuple(tool_event(i, "run_command", r) for i, r in enumerate(results))
    assert result_check(events, "run_command", contains, tmp_path).passed is passed


@pytest.mark.parametrize(
    "events",
    [None, 42, "edited app.py", {"a": 1}, (object(), "edited app.py", None)],
    ids=["none", "int", "str", "dict", "odd-items"],
)
def test_odd_event_containers_and_items_are_no_evidence(
    tmp_path: Path, events: object
) -> None:
    check = result_check(events, "edit_file", "edited", tmp_path)
    assert check == EvaluationCheck(
        "result:edit_file", False, "required result not observed"
    )


def test_odd_items_do_not_hide_a_real_event(tmp_path: Path) -> None:
    events = (object(), None, "edit_file", EDITED, 3)
    assert result_check(events, "edit_file", "edited", tmp_path).passed


def test_an_action_with_a_non_string_tool_is_skipped(tmp_path: Path) -> None:
    action = ToolAction("edit_file", {})
    object.__setattr__(action, "tool", ["edit_file"])
    events = (AgentEvent(1, "", action, "edited app.py"), EDITED)
    assert result_check(events, "edit_file", "edited", tmp_path).passed
    assert not result_check(events[:1], "edit_file", "edited", tmp_path).passed


class _AnyTool:
    """A forced tool name that claims to equal, and hashes like, every name."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("edit_file")


def _forced(tool: object, result: object = "edited app.py") -> AgentEvent:
    action = ToolAction("edit_file", {})
    object.__setattr__(action, "tool", tool)
    return AgentEvent(1, "", action, result)  # type: ignore[arg-type]


def _careful_verdicts(events: object, case: EvaluationCase) -> list[bool]:
    """The rule itself, item by item: tool action, string tool, string result."""
    items = events if isinstance(events, (tuple, list)) else ()
    return [
        any(
            isinstance(event, AgentEvent)
            and isinstance(event.action, ToolAction)
            and isinstance(event.action.tool, str)
            and event.action.tool == expected.tool
            and isinstance(event.result, str)
            and expected.contains in event.result
            for event in items
        )
        for expected in case.results
    ]


_ODD_WORLDS = {
    "plain": (EDITED, final_event(3, "edited app.py")),
    "non-string-results": (
        tool_event(1, "edit_file", b"edited app.py"),
        tool_event(2, "edit_file", ["edited app.py"]),
        tool_event(3, "run_command", {"edited app.py": 1}),
    ),
    "non-events": (None, "edit_file edited app.py", 3, {"action": None}, EDITED),
    "non-events-only": (object(), {"tool": "edit_file", "result": "edited app.py"}),
    "event-lookalike": (
        SimpleNamespace(action=ToolAction("edit_file", {}), result="edited app.py"),
    ),
    "claims-every-name": (_forced(_AnyTool()),),
    "claims-then-real": (_forced(_AnyTool()), EDITED),
    "unhashable-tool": (_forced(["edit_file"]), _forced({"t": 1}), EDITED),
    "unhashable-only": (_forced(["edit_file"]),),
    "action-not-a-tool-action": (
        AgentEvent(1, "", "edit_file", "edited app.py"),  # type: ignore[arg-type]
        AgentEvent(2, "", None, "edited app.py"),
    ),
}


@pytest.mark.parametrize("tools", [("edit_file",), ("edit_file", "run_command")])
@pytest.mark.parametrize("world", sorted(_ODD_WORLDS))
def test_result_checks_follow_the_rule_whatever_the_events_hold(
    tmp_path: Path, world: str, tools: tuple[str, ...]
) -> None:
    """One expected tool or several (two gathering passes), odd items or not."""
    events = _ODD_WORLDS[world]
    results = tuple(ResultExpectation(tool, "edited") for tool in tools)
    results += (ResultExpectation("edit_file", "app.py"),)
    case = EvaluationCase("done", results=results)
    run = AgentRun(True, "completed", "done", events)  # type: ignore[arg-type]
    report = evaluate_run(run, workspace_at(tmp_path), ReceiptStore(), case)
    assert [check.passed for check in report.checks[1:]] == _careful_verdicts(
        events, case
    )


def _naive_results(run: AgentRun, case: EvaluationCase) -> list[bool]:
    """The straightforward nested loop: every expectation scans every event."""
    return [
        any(
            isinstance(event.action, ToolAction)
            and event.action.tool == expected.tool
            and isinstance(event.result, str)
            and expected.contains in event.result
            for event in run.events
        )
        for expected in case.results
    ]


def test_result_checks_are_much_faster_than_a_nested_loop(tmp_path: Path) -> None:
    """Many events and 100 expectations: one pass plus one search each.

    The benchmark runs 100,000 events; 30,000 keep this test quick (also under
    coverage tracing) and the ratio is the same.
    """
    count = 30_000
    tools = ("read_file", "edit_file", "run_command", "list_files")
    events = tuple(
        tool_event(i, tools[i % 4], f"status: 0\noutput:\nline {i} of the run\n")
        for i in range(count)
    )
    # Half are found late in the run (in an event of their tool), half never:
    # the nested loop's worst case.
    results = tuple(
        ResultExpectation(
            tools[i % 4],
            f"line {count - 4 * (i + 1) + i % 4} of" if i % 2 else f"no {i}",
        )
        for i in range(100)
    )
    run = AgentRun(True, "completed", "done", events)
    case = EvaluationCase("done", results=results)
    workspace = workspace_at(tmp_path)

    started = time.perf_counter()
    report = evaluate_run(run, workspace, ReceiptStore(), case)
    ours = time.perf_counter() - started
    started = time.perf_counter()
    expected = _naive_results(run, case)
    naive = time.perf_counter() - started

    assert [check.passed for check in report.checks[1:]] == expected
    assert sum(expected) == 50
    # About 10x on a quiet machine (benchmarks/ measures it properly); 5x
    # leaves room for a busy one and still fails on any per-event rescan.
    assert ours * 5 < naive, (
        f"evaluate_run took {ours:.3f}s, the nested loop {naive:.3f}s"
    )


# --- receipts ----------------------------------------------------------------


def receipt_check(
    store: ReceiptStore, expected: ReceiptExpectation, root: Path
) -> EvaluationCheck:
    case = EvaluationCase("done", receipts=(expected,))
    return evaluate_run(run_of(), workspace_at(root), store, case).checks[1]


def test_matching_receipt_facts_pass(tmp_path: Path) -> None:
    check = receipt_check(store_with(receipt()), EDIT, tmp_path)
    assert check == EvaluationCheck("receipt:call-1", True, "receipt facts match")


@pytest.mark.parametrize(
    "stored",
    [
        receipt(tool="write_file"),
        receipt(exit_state="error"),
        receipt(result="wrote app.py"),
        receipt(result="Edited app.py"),
        receipt(artifacts=()),
        receipt(artifacts=("other.py",)),
        receipt(artifacts=("app.py", "app.py")),
        receipt(artifacts=("./app.py",)),
    ],
    ids=[
        "tool",
        "exit-state",
        "result",
        "result-case",
        "no-artifacts",
        "other",
        "extra",
        "raw",
    ],
)
def test_each_receipt_fact_is_required(tmp_path: Path, stored: EffectReceipt) -> None:
    check = receipt_check(store_with(stored), EDIT, tmp_path)
    assert check == EvaluationCheck(
        "receipt:call-1", False, "receipt facts do not match"
    )


def test_artifacts_are_an_exact_ordered_tuple(tmp_path: Path) -> None:
    stored = store_with(receipt(artifacts=("a.py", "b.py")))
    ordered = dataclasses.replace(EDIT, changed_artifacts=("a.py", "b.py"))
    assert receipt_check(stored, ordered, tmp_path).passed
    swapped = dataclasses.replace(EDIT, changed_artifacts=("b.py", "a.py"))
    assert not receipt_check(stored, swapped, tmp_path).passed
    prefix = dataclasses.replace(EDIT, changed_artifacts=("a.py",))
    assert not receipt_check(stored, prefix, tmp_path).passed


def test_result_substring_need_not_be_the_whole_result(tmp_path: Path) -> None:
    stored = store_with(receipt(tool="run_command", result="status: 0\noutput:\nok\n"))
    expected = ReceiptExpectation(
        "call-1", "run_command", "ok", "output:\nok", ("app.py",)
    )
    assert receipt_check(stored, expected, tmp_path).passed


def test_an_absent_receipt_is_a_failed_check(tmp_path: Path) -> None:
    check = receipt_check(store_with(receipt(call_id="call-2")), EDIT, tmp_path)
    assert check == EvaluationCheck("receipt:call-1", False, "receipt is absent")


@pytest.mark.parametrize(
    "error",
    [
        AgentError("lookup broke"),
        OSError("disk gone"),
        KeyError("call-1"),
        RuntimeError(),
    ],
    ids=["agent", "os", "key", "runtime"],
)
def test_in_memory_lookup_errors_are_failed_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    store = store_with(receipt())

    def broken(_call_id: str) -> EffectReceipt | None:
        raise error

    monkeypatch.setattr(store, "get", broken)
    case = EvaluationCase(
        "done", receipts=(EDIT, dataclasses.replace(EDIT, tool_call_id="c2"))
    )
    report = evaluate_run(run_of(), workspace_at(tmp_path), store, case)
    details = [check.detail for check in report.checks[1:]]
    assert len(details) == 2
    assert all(detail.startswith("receipt lookup failed: ") for detail in details)
    assert details[0] == f"receipt lookup failed: {str(error) or type(error).__name__}"


def test_a_lookup_returning_something_else_is_a_failed_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ReceiptStore()
    monkeypatch.setattr(store, "get", lambda _call_id: {"tool": "edit_file"})
    check = receipt_check(store, EDIT, tmp_path)
    assert check == EvaluationCheck(
        "receipt:call-1", False, "receipt lookup failed: got dict, not an EffectReceipt"
    )


def test_multi_line_errors_become_one_line_details(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ReceiptStore()

    def broken(_call_id: str) -> None:
        raise RuntimeError("first line\nsecond   line\n")

    monkeypatch.setattr(store, "get", broken)
    check = receipt_check(store, EDIT, tmp_path)
    assert check.detail == "receipt lookup failed: first line second line"


def test_a_store_with_a_log_is_judged_by_its_log(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    store = store_with(receipt(), path=log)
    assert receipt_check(store, EDIT, tmp_path).passed
    # Another writer appends a second receipt: the reload sees it.
    store_with(receipt(call_id="call-2", tool="run_command", artifacts=()), path=log)
    second = ReceiptExpectation("call-2", "run_command", "ok", "edited")
    assert receipt_check(store, second, tmp_path).passed


def test_a_replaced_get_on_a_store_with_a_log_is_not_consulted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_with(receipt(), path=tmp_path / "receipts.jsonl")
    monkeypatch.setattr(store, "get", lambda _call_id: None)
    assert receipt_check(store, EDIT, tmp_path).passed


def test_a_deleted_log_means_absent_receipts_and_is_not_recreated(
    tmp_path: Path,
) -> None:
    log = tmp_path / "receipts.jsonl"
    store = store_with(receipt(), path=log)
    log.unlink()
    check = receipt_check(store, EDIT, tmp_path)
    assert check == EvaluationCheck("receipt:call-1", False, "receipt is absent")
    assert not log.exists()


def test_a_log_under_a_regular_file_is_absent(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x", encoding="utf-8")
    store = ReceiptStore()
    store.path = tmp_path / "plain" / "receipts.jsonl"
    assert receipt_check(store, EDIT, tmp_path).detail == "receipt is absent"


@pytest.mark.parametrize("tamper", ["digest", "utf8", "json", "conflict", "truncated"])
def test_a_tampered_log_fails_every_receipt_check(tmp_path: Path, tamper: str) -> None:
    log = tmp_path / "receipts.jsonl"
    store = store_with(
        receipt(), receipt(call_id="call-2", tool="run_command", artifacts=()), path=log
    )
    text = log.read_text(encoding="utf-8")
    if tamper == "digest":
        log.write_text(text.replace('"edit_file"', '"write_file"', 1), encoding="utf-8")
    elif tamper == "utf8":
        log.write_bytes(log.read_bytes() + b"\xff\n")
    elif tamper == "json":
        log.write_text(text + "{not json\n", encoding="utf-8")
    elif tamper == "conflict":
        other = EffectReceipt("call-1", "edit_file", {}, "ok", "different", ())
        log.write_text(text + __import__("json").dumps(other.to_dict()) + "\n")
    else:
        log.write_text(text[: len(text) // 2], encoding="utf-8")
    expectations = (EDIT, ReceiptExpectation("call-2", "run_command", "ok", "edited"))
    case = EvaluationCase("done", receipts=expectations)
    report = evaluate_run(run_of(), workspace_at(tmp_path), store, case)
    assert [check.name for check in report.checks if not check.passed] == [
        "receipt:call-1",
        "receipt:call-2",
    ]
    assert all(
        check.detail.startswith("receipt evidence unavailable: ")
        for check in report.checks[1:]
    )


def test_a_case_without_receipts_never_looks_at_the_log(tmp_path: Path) -> None:
    class Untouchable:
        def __fspath__(self) -> str:
            raise AssertionError("the log was inspected")

    store = ReceiptStore()
    store.path = Untouchable()  # type: ignore[assignment]
    report = evaluate_run(
        run_of(), workspace_at(tmp_path), store, EvaluationCase("done")
    )
    assert (
        report.render() == "evaluation: PASS\n- final: PASS (required final observed)"
    )
    case = EvaluationCase("done", receipts=(EDIT,))
    check = evaluate_run(run_of(), workspace_at(tmp_path), store, case).checks[1]
    assert check.detail == "receipt evidence unavailable: the log was inspected"
